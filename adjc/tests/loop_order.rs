//! The adjoint's independent reversed loops run forwards and its independent perfect nests
//! run along rows (autodiff/src/loop_order.rs); loops with a real loop-carried dependence
//! keep their reversed order. Gradients against finite differences, serial and with OpenMP
//! at 3 threads with every guarded parallel copy forced on (`ADJC_OMP_MIN_WORK=0`).

mod common;

use common::{adjc, adjc_parallel_copies, scratch, text};

/// The text of C function `name` (from its signature to the closing brace).
fn function<'a>(c: &'a str, name: &str) -> &'a str {
    let start = c.find(&format!("\nint {name}(")).unwrap_or_else(|| panic!("no {name} in\n{c}"));
    let len = c[start..].find("\n}\n").unwrap_or(c.len() - start);
    &c[start..start + len]
}

fn reverse_sweep(f: &str) -> &str {
    &f[f.find("===== reverse sweep").unwrap_or_else(|| panic!("no reverse sweep in\n{f}"))..]
}

/// The loop headers of `c`, in order, trimmed.
fn loop_headers(c: &str) -> Vec<&str> {
    c.lines().map(str::trim).filter(|l| l.starts_with("for (")).collect()
}

fn check_passes(args: &[&str]) {
    for (out, how) in
        [(adjc(args), "serial"), (adjc_parallel_copies(&[args, &["--openmp"]].concat()), "OpenMP, 3 threads")]
    {
        let t = text(&out);
        let grads = t.lines().filter(|l| l.contains("(adjoint)") && l.trim_end().ends_with("ok")).count();
        assert!(
            out.status.success() && t.contains("check passed") && grads > 0,
            "adjc {} ({how})\n{t}",
            args.join(" ")
        );
    }
}

#[test]
fn syrk_adjoint_runs_forwards_along_rows() {
    let dir = scratch("loop-order-syrk");
    let sizes = "C_n0=9,C_n1=9,A_n0=9,A_n1=7";
    for (example, wrt, extra) in [("syrk", "A", ""), ("syr2k", "A,B", ",B_n0=9,B_n1=7")] {
        let path = format!("examples/python/{example}.py");
        let out = adjc(&["transpile", &path, "--wrt", wrt, "--of", "C", "-o", dir.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out));
        let c = std::fs::read_to_string(dir.join(format!("{example}.c"))).unwrap();
        let rev = reverse_sweep(function(&c, &format!("{example}_b")));
        let heads = loop_headers(rev);
        assert!(heads.iter().all(|h| !h.contains("--)")), "{example}: a reversed loop is left:\n{rev}");
        // i, then j <= i, then the unit-stride k innermost.
        assert_eq!(
            &heads[..3],
            [
                "for (int64_t i = 0; i < A_n0; i++) {",
                "for (int64_t j = 0; j <= i; j++) {",
                "for (int64_t k = 0; k < A_n1; k++) {"
            ],
            "{example}:\n{rev}"
        );
        check_passes(&["check", &path, "--sizes", &format!("{sizes}{extra}"), "--wrt", wrt, "--of", "C"]);
    }
}

/// A prefix sum's adjoint carries `x_b[i - 1] += x_b[i]` from one iteration to the next: it
/// must stay reversed. The independent scaling loop next to it runs forwards.
#[test]
fn loop_carried_adjoints_stay_reversed() {
    let dir = scratch("loop-order-carried");
    let py = dir.join("prefix.py");
    std::fs::write(
        &py,
        "def prefix(x: \"float64[N]\", y: \"float64[N]\"):\n    for i in range(1, x.shape[0]):\n        \
         x[i] += x[i - 1] * y[i]\n    for i in range(x.shape[0]):\n        y[i] = y[i] * x[i]\n",
    )
    .unwrap();
    let out = adjc(&["transpile", py.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("prefix.c")).unwrap();
    let rev = reverse_sweep(function(&c, "prefix_b"));
    let heads = loop_headers(rev);
    assert!(heads.iter().any(|h| h.contains("i >= 1; i--)")), "the prefix sum's adjoint runs backwards:\n{rev}");
    check_passes(&["check", py.to_str().unwrap(), "--sizes", "N=11"]);
}

/// The kernels whose adjoints these passes change, at sizes where every triangle is uneven.
#[test]
fn changed_kernels_check_serial_and_at_3_threads() {
    check_passes(&["check", "examples/python/gramschmidt.py", "--sizes", "A_n0=11,A_n1=7", "--wrt", "A", "--of", "A"]);
    check_passes(&["check", "examples/python/trmm.py", "--sizes", "A_n0=9,A_n1=9,B_n1=6", "--wrt", "A", "--of", "B"]);
    check_passes(&[
        "check",
        "examples/python/covariance.py",
        "--sizes",
        "M=9,data_n0=13,data_n1=11",
        "--init",
        "float_n=const(13.0)",
    ]);
    check_passes(&[
        "check",
        "examples/python/correlation.py",
        "--sizes",
        "M=8,data_n0=12,data_n1=9",
        "--init",
        "float_n=const(12.0)",
        "--init",
        "data=uniform(0,4)",
    ]);
}
