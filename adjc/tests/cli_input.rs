//! The command line does not crash or mislead: huge sizes, bad flag values, unsafe output
//! names and unreadable sources are errors with exit code 2 (never a panic, never a file
//! written outside `-o`).

mod common;

use common::{adjc, root, scratch, text};

fn assert_usage_error(args: &[&str], message: &str) {
    let out = adjc(args);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "adjc {}\n{t}", args.join(" "));
    assert!(!t.contains("panicked"), "adjc {}\n{t}", args.join(" "));
    assert!(t.contains(message), "adjc {}: expected `{message}` in\n{t}", args.join(" "));
}

#[test]
fn sizes_beyond_the_harness_limit_are_an_error_not_a_crash() {
    for n in ["9223372036854775807", "1000000000000", "134217729"] {
        for cmd in ["check", "bench"] {
            let sizes = format!("A_n0={n},TSTEPS=2");
            assert_usage_error(
                &[cmd, "examples/python/jacobi_1d.py", "--sizes", &sizes],
                "would have more than 134217728 (2^27) elements together",
            );
        }
    }
    // An extent formula that overflows 64-bit arithmetic (N * N) is over the limit too.
    assert_usage_error(&["check", "examples/python/gemm.py", "--sizes", "NI=4,NJ=5,NK=4000000000"], "(2^27)");
}

#[test]
fn bad_flag_values_are_flag_errors() {
    let base = ["check", "examples/python/elementwise.py", "--sizes", "N=4"];
    let cases: &[(&[&str], &str)] = &[
        (&["--step", "0"], "the step must be a positive finite number"),
        (&["--step", "nan"], "the step must be a positive finite number"),
        (&["--step=-1e-6"], "the step must be a positive finite number"),
        (&["--step", "inf"], "the step must be a positive finite number"),
        (&["--tol", "nan"], "the tolerance must be a finite number"),
        (&["--tol=-1"], "the tolerance must be a finite number"),
        (&["--tol", "abc"], "`abc` is not a number"),
        (&["--sizes", "N=5"], "--sizes gives `N` twice"),
        (&["--sizes", "N=x"], "`x` is not an integer"),
        (&["--sizes", "N=99999999999999999999"], "is not an integer"),
        (&["--sizes", "../N=3"], "is not a parameter name"),
        (&["--memory-limit", "20000000000000000000"], "more than the largest limit, 2^64 - 1 bytes"),
        (&["--memory-limit", "17179869184GiB"], "more than the largest limit"),
        (&["--memory-limit", "12 parsecs"], "unknown unit"),
    ];
    for (extra, message) in cases {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        assert_usage_error(&args, message);
    }
}

#[test]
fn output_names_stay_inside_the_output_directory_and_off_adjc_files() {
    let dir = scratch("names");
    let out_dir = dir.join("out");
    let o = out_dir.to_str().unwrap();
    let cases: &[(&str, &str)] = &[
        ("../escaped", "starts with `.` or `-`"),
        ("/tmp/abs", "contains `/`"),
        ("sub/x", "contains `/`"),
        ("", "is empty"),
        ("adjc_runtime", "starts with `adjc_`"),
        ("ADJC_BLAS", "starts with `adjc_`"),
        ("check_driver", "a file the check/bench harness writes"),
        ("bench_driver", "a file the check/bench harness writes"),
        ("a\"b", "contains `\\\"`"),
    ];
    for (name, message) in cases {
        assert_usage_error(&["transpile", "examples/python/elementwise.py", "-o", o, "--name", name], message);
        assert_usage_error(&["check", "examples/python/elementwise.py", "--sizes", "N=4", "--name", name], message);
    }
    assert!(!out_dir.exists() && !dir.join("escaped.c").exists());
    // A source whose own stem is reserved needs --name; with one it works.
    let src = dir.join("adjc_runtime.py");
    std::fs::copy(root().join("examples/python/elementwise.py"), &src).unwrap();
    let s = src.to_str().unwrap();
    assert_usage_error(&["transpile", s, "-o", o], "give the outputs a name with --name");
    let out = adjc(&["transpile", s, "-o", o, "--name", "elementwise"]);
    assert!(out.status.success(), "{}", text(&out));
    let runtime = std::fs::read_to_string(out_dir.join("adjc_runtime.h")).unwrap();
    assert!(runtime.contains("adjc_alloc"), "{runtime}");
    // Ordinary stems with `-` and `.` are fine.
    let out = adjc(&["check", "examples/python/elementwise.py", "--sizes", "N=4", "--name", "my-kernel.v2"]);
    assert!(out.status.success() && text(&out).contains("check passed"), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn whole_file_problems_name_the_file_and_are_bounded() {
    let dir = scratch("sources");
    let zero = dir.join("zero.py");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let big = dir.join("big.py");
    std::fs::write(&big, "# padding\n".repeat(1_000_000)).unwrap();
    let latin1 = dir.join("latin1.py");
    std::fs::write(&latin1, b"def f(x: float):\n    return x  # \xe9t\xe9\n").unwrap();
    let empty = dir.join("empty.f90");
    std::fs::write(&empty, "\n  \n").unwrap();
    let folder = dir.join("folder.py");
    std::fs::create_dir_all(&folder).unwrap();
    let cases = [
        (&zero, "error: the file is larger than 4 MiB"),
        (&big, "error: the file is larger than 4 MiB"),
        (&latin1, "error: the file is not UTF-8 text: byte 33 (line 2, column 17) is 0xe9"),
        (&empty, "error: the file is empty"),
        (&folder, "error: this is a directory"),
    ];
    for (path, message) in cases {
        let p = path.to_str().unwrap();
        let start = std::time::Instant::now();
        assert_usage_error(&["transpile", p, "-o", dir.join("out").to_str().unwrap()], &format!("{p}: {message}"));
        assert!(start.elapsed().as_secs() < 20, "{p}: took {:?}", start.elapsed());
    }
    assert_usage_error(&["transpile", dir.to_str().unwrap()], "unsupported source language (no file extension)");
    // An include file is read with the same bound.
    let inc = dir.join("inc.f90");
    std::fs::write(
        &inc,
        "subroutine f(x, n)\n  integer :: n\n  real(8) :: x(n)\n  include 'big.inc'\nend subroutine\n",
    )
    .unwrap();
    std::fs::write(dir.join("big.inc"), "!\n".repeat(3_000_000)).unwrap();
    assert_usage_error(
        &["transpile", inc.to_str().unwrap(), "-o", dir.join("out").to_str().unwrap()],
        "big.inc: the file is larger than 4 MiB",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn io_failures_exit_with_3() {
    let cases: &[(&[&str], &str)] = &[
        (&["transpile", "no/such/kernel.py"], "adjc: error: cannot read no/such/kernel.py: "),
        (
            &["transpile", "examples/python/elementwise.py", "-o", "/dev/null/out"],
            "adjc: error: cannot create /dev/null/out",
        ),
    ];
    for (args, message) in cases {
        let out = adjc(args);
        let t = text(&out);
        assert_eq!(out.status.code(), Some(3), "adjc {}\n{t}", args.join(" "));
        assert!(t.contains(message), "adjc {}: expected `{message}` in\n{t}", args.join(" "));
    }
}

#[test]
fn build_commands_refuse_bad_flags() {
    assert_usage_error(&["config"], "--cflags");
    assert_usage_error(&["config", "--libs", "--blas", "atlas"], "atlas");
    assert_usage_error(&["transpile", "examples/python/jacobi_1d.py", "-MF"], "--MF");
    assert_usage_error(&["transpile", "examples/python/jacobi_1d.py", "--emit", "ir", "-MD"], "--depfile, -MD and -MF");
    assert_usage_error(
        &["transpile", "examples/python/jacobi_1d.py", "--depfile", "a.d", "-MF", "b.d"],
        "cannot be used with",
    );
}
