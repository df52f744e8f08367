//! A gradient check that neither cries wolf nor stays silent: the verdict says when the
//! forward function was not compared with the source; correct adjoints on which one
//! finite-difference step is wrong pass (a sweep of steps with Richardson extrapolation);
//! failures say why; `--sanitize` turns memory errors into failures.

mod common;

use std::process::{Command, Output};

use common::{adjc, root, scratch, text};

fn adjc_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_adjc"));
    cmd.current_dir(root()).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run adjc")
}

fn verdict(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or("").to_string()
}

#[test]
fn the_verdict_says_when_the_forward_was_not_compared_with_the_source() {
    let args = ["check", "examples/python/elementwise.py", "--sizes", "N=8"];
    let out = adjc_env(&args, &[("ADJC_PYTHON", "/nonexistent/python3")]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        verdict(&out).starts_with(
            "check passed (forward NOT compared with the source: python3 with NumPy not found: install numpy or set \
             ADJC_PYTHON;"
        ),
        "{}",
        text(&out)
    );
    let mut no_python = args.to_vec();
    no_python.push("--no-python");
    let out = adjc(&no_python);
    assert!(
        verdict(&out).starts_with("check passed (forward NOT compared with the source: --no-python;"),
        "{}",
        text(&out)
    );
    let fortran = ["check", "examples/fortran/jacobi_2d.f90", "--sizes", "n=8,tsteps=2"];
    let out = adjc_env(&fortran, &[("ADJC_GFORTRAN", "/nonexistent/gfortran")]);
    assert!(
        verdict(&out).starts_with("check passed (forward NOT compared with the source: gfortran not found"),
        "{}",
        text(&out)
    );
    // With the reference available, the verdict is the plain one.
    let python = std::env::var("ADJC_PYTHON").unwrap_or_else(|_| "python3".into());
    let numpy = Command::new(&python).args(["-c", "import numpy"]).output().is_ok_and(|o| o.status.success());
    if numpy {
        let out = adjc(&args);
        assert_eq!(verdict(&out), "check passed", "{}", text(&out));
    }
}

/// Correct adjoints on which one central difference at h = 1e-6 is wrong: the default sweep
/// passes them, `--step 1e-6` keeps the single step and fails, saying so.
#[test]
fn one_bad_step_is_no_false_alarm() {
    for kernel in ["tests/inputs/fd_stiff.py", "tests/inputs/fd_cancel.py"] {
        let out = adjc(&["check", kernel, "--sizes", "N=8", "--no-python"]);
        assert!(out.status.success(), "{kernel}: {}", text(&out));
        let line = text(&out).lines().find(|l| l.contains("d/dx")).unwrap_or("").to_string();
        assert!(line.trim_end().ends_with("ok"), "{kernel}: {line}");
        let out = adjc(&["check", kernel, "--sizes", "N=8", "--no-python", "--step", "1e-6"]);
        assert_eq!(out.status.code(), Some(1), "{kernel}: {}", text(&out));
        assert!(
            text(&out).contains("at the single step 1e-6 (without --step, adjc tries several steps)"),
            "{}",
            text(&out)
        );
    }
}

#[test]
fn a_failed_check_says_why() {
    // NaN forward values: say so and point at --init, instead of a wall of NaN gradients.
    let out = adjc(&["check", "tests/inputs/log_kernel.py", "--sizes", "N=8", "--no-python"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("forward outputs at the check inputs: 3 NaN or infinite values   FAILED"), "{t}");
    assert!(t.contains("choose inputs in the kernel's domain with --init NAME=DIST"), "{t}");
    let out =
        adjc(&["check", "tests/inputs/log_kernel.py", "--sizes", "N=8", "--no-python", "--init", "x=uniform(0.5,2)"]);
    assert!(out.status.success(), "{}", text(&out));
    // A tolerance no difference can meet: every step tried is listed with its error.
    let out = adjc(&["check", "examples/python/elementwise.py", "--sizes", "N=16", "--tol", "0", "--no-python"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    for h in ["h 1e-2 ", "h 1e-8 ", "h 1e-4 extrapolated"] {
        assert!(t.lines().any(|l| l.trim_start().starts_with(h) && l.contains(" error ")), "{h}: {t}");
    }
    assert!(t.contains("error at each step: h 1e-2: "), "{t}");
}

/// `--sanitize` on a gather whose indices come from `--inputs`: in range it passes with the
/// sanitizers on; out of range, the generated entry check (a scan of `idx`) refuses the call
/// before anything reads out of bounds. Clean kernels pass. (The sanitizer plumbing itself
/// is tested on hand-written faulty C in `check::driver`'s unit tests.)
#[test]
fn sanitize_reports_an_out_of_bounds_read_and_passes_clean_kernels() {
    let dir = scratch("sanitize");
    let npz = dir.join("idx.npz");
    for (bad, idx) in [(false, [4i64, 0, 3]), (true, [4i64, 0, 5])] {
        {
            use npyz::WriterBuilder;
            let mut w = npyz::npz::NpzWriter::create(&npz).unwrap();
            let mut a =
                w.array::<f64>("x", Default::default()).unwrap().default_dtype().shape(&[5]).begin_nd().unwrap();
            a.extend([0.5, -1.5, 2.0, 3.0, -0.25]).unwrap();
            a.finish().unwrap();
            let mut a =
                w.array::<i64>("idx", Default::default()).unwrap().default_dtype().shape(&[3]).begin_nd().unwrap();
            a.extend(idx).unwrap();
            a.finish().unwrap();
        }
        let args = [
            "check",
            "tests/inputs/gather_kernel.py",
            "--sizes",
            "M=5,N=3",
            "--inputs",
            npz.to_str().unwrap(),
            "--sanitize",
        ];
        let out = adjc(&args);
        let t = text(&out);
        if bad {
            // The gather's entry check scans `idx` and refuses the call before any read.
            assert_eq!(out.status.code(), Some(1), "{t}");
            assert!(t.contains("returned 2 (ADJC_ERR_SHAPE"), "{t}");
            assert!(!t.contains("AddressSanitizer"), "{t}");
        } else {
            assert!(out.status.success() && t.contains("sanitizers on") && t.contains("check passed"), "{t}");
        }
    }
    let clean: [&[&str]; 3] = [
        &["examples/python/jacobi_2d.py", "--sizes", "A_n0=8,A_n1=8,TSTEPS=3", "--openmp"],
        &["examples/python/lenet.py", "--sizes", "N=2,H=10,W=10,K=3,C1=2,C2=3,F1=5,F2=4,F3=3"],
        &["examples/fortran/jacobi_2d.f90", "--sizes", "n=12,tsteps=3"],
    ];
    for flags in clean {
        let mut args = vec!["check"];
        args.extend_from_slice(flags);
        args.push("--sanitize");
        let out = adjc(&args);
        assert!(out.status.success() && text(&out).contains("check passed"), "{}", text(&out));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
