//! End-to-end tests of the `adjc` binary on every example in `examples/python/`:
//! transpile, compile the C (with and without OpenMP), run the dot-product gradient test
//! and the forward comparison with NumPy, plus determinism and snapshot tests.
//!
//! Each example names its check configuration on a line `# adjc check: FLAGS`.

mod common;

use common::{adjc, check_all, check_example, root, split_flags, text, Example};
use std::path::{Path, PathBuf};

fn examples() -> Vec<Example> {
    common::examples("examples/python", &["py"], "#")
}

fn check_python_example(ex: &Example, openmp: bool) -> Result<String, String> {
    let t = check_example(ex, openmp)?;
    let required = std::env::var("ADJC_REQUIRE_NUMPY").is_ok_and(|v| v == "1");
    if required && (!t.contains("forward vs NumPy:") || t.contains("NumPy: skipped")) {
        return Err(format!("the NumPy comparison did not run:\n{t}"));
    }
    Ok(t)
}

#[test]
fn every_example_passes_the_gradient_check_serial_and_openmp() {
    let exs = examples();
    assert!(exs.len() >= 10, "expected at least 10 examples, found {}", exs.len());
    check_all(&exs, &check_python_example);
}

/// `--fuse-sweeps` (opt-in) on the examples where it fuses the most: the fused adjoints pass
/// the gradient check, serial and with OpenMP, and say where they fused.
#[test]
fn fused_sweeps_pass_the_gradient_check() {
    let names = ["compute", "go_fast", "elementwise", "arc_distance", "softmax_lse", "lenet", "gemm", "stencil_1d"];
    let exs: Vec<Example> = examples()
        .into_iter()
        .filter(|e| names.iter().any(|n| e.path.ends_with(&format!("/{n}.py"))))
        .map(|mut e| {
            e.check_flags.push("--fuse-sweeps".into());
            e
        })
        .collect();
    assert_eq!(exs.len(), names.len());
    check_all(&exs, &check_python_example);
    let dir = common::scratch("fused_sweeps");
    let out = adjc(&["transpile", "examples/python/compute.py", "--fuse-sweeps", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("compute.c")).unwrap();
    assert!(c.contains("forward and adjoint in one pass (fused)"), "{c}");
}

#[test]
fn output_is_deterministic_and_snapshotted() {
    for ex in examples() {
        let stem = Path::new(&ex.path).file_stem().unwrap().to_string_lossy().into_owned();
        let mut outs = Vec::new();
        for _run in 0..2 {
            // The same relative -o every time: the command line is part of the output, and
            // the snapshots must not depend on where or by which process they were made.
            let rel = format!("target/adjc-det/{stem}");
            let dir = root().join(&rel);
            let _ = std::fs::remove_dir_all(&dir);
            let out = adjc(&["transpile", &ex.path, "-o", &rel]);
            assert!(out.status.success(), "{}", text(&out));
            let c = std::fs::read_to_string(dir.join(format!("{stem}.c"))).unwrap();
            let h = std::fs::read_to_string(dir.join(format!("{stem}.h"))).unwrap();
            outs.push((c, h));
            let _ = std::fs::remove_dir_all(&dir);
        }
        assert_eq!(outs[0], outs[1], "{}: two runs differ", ex.path);
        // Generated C is read by people: no line wider than the emitter's limit.
        for (file, content) in [("c", &outs[0].0), ("h", &outs[0].1)] {
            for (n, line) in content.lines().enumerate() {
                let width = line.chars().count();
                assert!(width <= 100, "{}: {stem}.{file}:{} is {width} columns wide:\n{line}", ex.path, n + 1);
            }
            // Tests read statements whole through `unwrap_c`: it must undo the wrapping exactly.
            let unwrapped = adjc_emit::wrap::unwrap_c(content);
            assert_eq!(&adjc_emit::wrap::wrap_c(&unwrapped), content, "{}: {stem}.{file} does not round-trip", ex.path);
        }
        let ir = adjc(&["transpile", &ex.path, "--emit", "ir"]);
        assert!(ir.status.success(), "{}", text(&ir));
        insta::with_settings!({snapshot_path => root().join("tests/snapshots"), prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!(format!("{stem}.ir"), String::from_utf8_lossy(&ir.stdout));
            insta::assert_snapshot!(format!("{stem}.c"), outs[0].0);
            insta::assert_snapshot!(format!("{stem}.h"), outs[0].1);
        });
    }
}

/// Every file in tests/errors/ is bad input. Its first line says what adjc must report:
/// `# expect: LINE:COL: MESSAGE-SUBSTRING` (`! expect:` in Fortran). Flags for adjc may
/// follow on `# flags: ...` (`! flags:`).
#[test]
fn bad_input_is_reported_with_location_and_no_output() {
    let dir = root().join("tests/errors");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    assert!(paths.len() >= 8, "expected error cases in tests/errors");
    let mut failures = Vec::new();
    for p in paths {
        let src = std::fs::read(&p).unwrap();
        let head = String::from_utf8_lossy(&src).lines().next().unwrap_or("").to_string();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        // Fortran cases say it in a comment (`! expect:`): a `#` line would go to cpp.
        let expect = head.strip_prefix("# expect: ").or_else(|| head.strip_prefix("! expect: ")).map(str::to_string);
        let flags: Vec<String> = String::from_utf8_lossy(&src)
            .lines()
            .find_map(|l| l.strip_prefix("# flags: ").or_else(|| l.strip_prefix("! flags: ")))
            .map(split_flags)
            .unwrap_or_default();
        let out_dir = std::env::temp_dir().join(format!("adjc-err-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&out_dir);
        let rel = p.strip_prefix(root()).unwrap().display().to_string();
        let mut args = vec!["transpile".to_string(), rel.clone(), "-o".into(), out_dir.display().to_string()];
        args.extend(flags);
        let out = adjc(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.code() != Some(2) {
            failures.push(format!("{name}: exit code {:?}, expected 2\n{}", out.status.code(), text(&out)));
        }
        if stderr.contains("panicked") {
            failures.push(format!("{name}: panic\n{stderr}"));
        }
        if out_dir.exists() {
            failures.push(format!("{name}: wrote output despite the error"));
        }
        if let Some(expect) = expect {
            let (loc, msg) = expect.split_once(": ").unwrap_or((expect.as_str(), ""));
            let want = format!("{rel}:{loc}: error:");
            if !stderr.starts_with(&want) || !stderr.contains(msg) {
                failures.push(format!("{name}: expected `{want} ...{msg}...`, got:\n{stderr}"));
            }
            if loc.contains(':') && !stderr.contains('^') {
                failures.push(format!("{name}: no caret under the source line:\n{stderr}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn check_rejects_a_wrong_gradient_tolerance_violation() {
    // A tolerance of zero cannot be met by finite differences: the check must say FAILED
    // and exit 1, which proves the comparison is live.
    let out = adjc(&["check", "examples/python/elementwise.py", "--sizes", "N=16", "--tol", "0", "--no-python"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("FAILED"), "{t}");
}

#[test]
fn logical_parameters_take_their_value_from_sizes() {
    for v in ["square=0", "square=1"] {
        let sizes = format!("N=5,{v}");
        let out = adjc(&["check", "tests/inputs/flag_kernel.py", "--sizes", &sizes]);
        assert!(out.status.success(), "{}", text(&out));
        assert!(text(&out).contains("check passed"));
    }
    let out = adjc(&["check", "tests/inputs/flag_kernel.py", "--sizes", "N=5,square=2"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("takes 0 or 1"), "{}", text(&out));
}
