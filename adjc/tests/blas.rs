//! Matrix products are BLAS calls in both sweeps, and the generated file builds with
//! adjc's fallback and with OpenBLAS (`-DADJC_BLAS=cblas -lopenblas`).

mod common;

use common::{adjc, root, scratch, text};
use std::path::Path;
use std::process::Command;

/// The deepest nest of `for` loops in `c` (by indentation: the generated C is formatted).
fn max_loop_depth(c: &str) -> usize {
    let mut open: Vec<usize> = Vec::new();
    let mut max = 0;
    for line in c.lines() {
        let t = line.trim_start();
        if t.is_empty() {
            continue;
        }
        let indent = line.len() - t.len();
        while open.last().is_some_and(|&i| indent <= i) {
            open.pop();
        }
        if t.starts_with("for (") {
            open.push(indent);
            max = max.max(open.len());
        }
    }
    max
}

/// The text of C function `name` (from its signature to the closing brace).
fn function<'a>(c: &'a str, name: &str) -> &'a str {
    let start = c.find(&format!("\nint {name}(")).unwrap_or_else(|| panic!("no {name} in\n{c}"));
    let len = c[start..].find("\n}\n").unwrap_or(c.len() - start);
    &c[start..start + len]
}

#[test]
fn gemm_adjoint_is_blas_calls_without_triple_loops() {
    let dir = scratch("blas-gemm");
    let out = adjc(&["transpile", "examples/python/gemm.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(dir.join("adjc_blas.h").exists(), "the BLAS header is written next to the C");
    let c = std::fs::read_to_string(dir.join("gemm.c")).unwrap();
    assert!(c.contains("#include \"adjc_blas.h\""), "{c}");
    let fwd = function(&c, "gemm");
    let adj = function(&c, "gemm_b");
    assert_eq!(fwd.matches("cblas_dgemm(").count(), 1, "{fwd}");
    // The forward product again, then A_b += C_b B^T and B_b += A^T C_b.
    assert_eq!(adj.matches("cblas_dgemm(").count(), 3, "{adj}");
    assert!(adj.contains("CblasNoTrans, CblasTrans"), "{adj}");
    assert!(adj.contains("CblasTrans, CblasNoTrans"), "{adj}");
    assert!(max_loop_depth(fwd) <= 2 && max_loop_depth(adj) <= 2, "a triple loop:\n{c}");
}

#[test]
fn loop_depth_counts_nests() {
    let c = "int f(void)\n{\n    for (i) {\n        for (j) {\n            for (k) {\n            }\n        }\n    }\n    for (l) {\n    }\n}\n";
    assert_eq!(max_loop_depth(c), 3);
}

fn have_openblas() -> bool {
    let found = ["/usr/include/cblas.h", "/usr/include/x86_64-linux-gnu/cblas.h", "/usr/include/openblas/cblas.h"]
        .iter()
        .any(|p| Path::new(p).exists());
    if !found && std::env::var_os("ADJC_REQUIRE_OPENBLAS").is_some() {
        panic!("ADJC_REQUIRE_OPENBLAS is set but cblas.h is missing (install libopenblas-dev)");
    }
    found
}

/// `adjc check` of the BLAS examples, built against OpenBLAS (the fallback build is part
/// of the check of every example in e2e.rs).
#[test]
fn blas_examples_check_with_openblas() {
    if !have_openblas() {
        eprintln!("skipped: no cblas.h (install libopenblas-dev)");
        return;
    }
    for (file, sizes) in [("gemm", "NI=7,NJ=6,NK=5"), ("k2mm", "NI=6,NJ=5,NK=4,NL=7")] {
        for openmp in [false, true] {
            let path = format!("examples/python/{file}.py");
            let mut args = vec!["check", path.as_str(), "--sizes", sizes];
            if openmp {
                args.push("--openmp");
            }
            let out = Command::new(env!("CARGO_BIN_EXE_adjc"))
                .current_dir(root())
                .env("CFLAGS", "-DADJC_BLAS=cblas")
                .env("LDLIBS", "-lopenblas")
                .env("OMP_NUM_THREADS", "2")
                .args(&args)
                .output()
                .expect("run adjc");
            assert!(out.status.success(), "{file} (openmp: {openmp}):\n{}", text(&out));
            assert!(text(&out).contains("check passed"), "{}", text(&out));
        }
    }
}
