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

/// `@` on two stacks of matrices is one gemm per matrix in both sweeps (a loop around
/// the call), never a triple loop.
#[test]
fn batched_products_are_one_gemm_per_matrix() {
    let dir = scratch("blas-batched");
    let out = adjc(&["transpile", "examples/python/batched.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("batched.c")).unwrap());
    let fwd = function(&c, "batched");
    let adj = function(&c, "batched_b");
    // `X @ W`, `X[0].T @ X[0]` and `dot @ W`.
    assert_eq!(fwd.matches("cblas_dgemm(").count(), 3, "{fwd}");
    assert!(adj.matches("cblas_dgemm(").count() >= 7, "{adj}");
    assert!(max_loop_depth(fwd) <= 3 && max_loop_depth(adj) <= 3, "a quadruple loop:\n{c}");
}

/// `np.linalg.solve` and `np.linalg.cholesky` are LAPACK-style calls in both sweeps: the
/// solve's adjoint is one more solve on the transposed view (and a ger/gemm for the
/// matrix), the Cholesky adjoint one call; never a differentiated elimination (no loop
/// nest deeper than the example's own).
#[test]
fn linalg_adjoints_are_library_calls() {
    let dir = scratch("blas-linalg");
    let out = adjc(&["transpile", "examples/python/linalg.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("linalg.c")).unwrap());
    let fwd = function(&c, "linalg");
    let adj = function(&c, "linalg_b");
    assert_eq!(fwd.matches("adjc_dsolve(").count(), 3, "{fwd}");
    assert_eq!(fwd.matches("adjc_dcholesky(").count(), 1, "{fwd}");
    // Per solve: the transposed solve and the solution again; per Cholesky: the factor
    // again and its adjoint.
    assert_eq!(adj.matches("adjc_dsolve(").count(), 3 + 6, "{adj}");
    assert_eq!(adj.matches("adjc_dcholesky_adjoint(").count(), 1, "{adj}");
    assert!(adj.contains("adjoint of solve: x_b_solved = A⁻ᵀ x_b"), "{adj}");
    assert!(max_loop_depth(fwd) <= 2 && max_loop_depth(adj) <= 2, "a triple loop:\n{c}");
}

#[test]
fn gemm_adjoint_is_blas_calls_without_triple_loops() {
    let dir = scratch("blas-gemm");
    let out = adjc(&["transpile", "examples/python/gemm.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(dir.join("adjc_blas.h").exists(), "the BLAS header is written next to the C");
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("gemm.c")).unwrap());
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

/// Products inside a time loop stay BLAS calls in both sweeps: each step's `W @ h` is
/// taped per step, and the reverse time loop runs `ger` and `gemv` adjoints.
#[test]
fn products_in_a_loop_are_blas_calls_in_both_sweeps() {
    let dir = scratch("blas-rnn");
    let out = adjc(&["transpile", "examples/python/rnn.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("rnn.c")).unwrap());
    let adj = function(&c, "rnn_b");
    let reverse_loop = &adj[adj.find("for (int64_t t = T - 1; t >= 0; t--)").unwrap_or_else(|| panic!("{adj}"))..];
    // W @ h and U @ xs[t] per step: A_b += y_b x^T (ger) and x_b += A^T y_b (gemv) each.
    assert_eq!(reverse_loop.matches("cblas_dger(").count(), 2, "{adj}");
    assert_eq!(reverse_loop.matches("cblas_dgemv(").count(), 2, "{adj}");
    assert!(adj.contains("Wh_tape_(t, "), "the pre-activation is taped per step:\n{adj}");
    assert!(max_loop_depth(adj) <= 2, "{adj}");
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

/// The kernels built on matrix products (and the deep-learning kernels around them), in
/// every precision: `adjc check` runs them against OpenBLAS here, and against the fallback
/// in e2e.rs with every other example.
const BLAS_KERNELS: &[&str] = &[
    "gemm",
    "k2mm",
    "k3mm",
    "atax",
    "bicg",
    "mvt",
    "gemver",
    "gesummv",
    "doitgen",
    "mlp",
    "mlp_f32",
    "softmax",
    "conv2d_bias",
    "conv2d_bias_f32",
    "lenet",
    "lenet_f32",
    "resnet",
    "resnet_f32",
    "matvec_sizes",
    "rnn",
    "mixed_precision",
    "einsum_products",
    "outer_product",
    "batched",
    "linalg",
];

/// `adjc check` of the BLAS kernels built against OpenBLAS (`-DADJC_BLAS=cblas
/// -lopenblas`), serial to keep CI time down; gemm and linalg (LAPACK) also with OpenMP.
/// The fallback build is part of the check of every example in e2e.rs.
#[test]
fn blas_examples_check_with_openblas() {
    if !have_openblas() {
        eprintln!("skipped: no cblas.h (install libopenblas-dev)");
        return;
    }
    let examples = common::examples("examples/python", &["py"], "#");
    let mut failures = Vec::new();
    for name in BLAS_KERNELS {
        let path = format!("examples/python/{name}.py");
        let ex = examples.iter().find(|e| e.path == path).unwrap_or_else(|| panic!("no example {path}"));
        for openmp in [false, true] {
            if openmp && !matches!(*name, "gemm" | "linalg") {
                continue;
            }
            let mut args = vec!["check", path.as_str()];
            args.extend(ex.check_flags.iter().map(|s| s.as_str()));
            if openmp {
                args.push("--openmp");
            }
            let out = Command::new(env!("CARGO_BIN_EXE_adjc"))
                .current_dir(root())
                .env("CFLAGS", "-DADJC_BLAS=cblas")
                .env("LDLIBS", "-lopenblas")
                .env("OMP_NUM_THREADS", "2")
                .env("OPENBLAS_NUM_THREADS", "1")
                .args(&args)
                .output()
                .expect("run adjc");
            let t = text(&out);
            if !out.status.success() || !t.contains("check passed") {
                failures.push(format!("{name} (openmp: {openmp}):\n{t}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} failed with OpenBLAS:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// Extents only known at run time: `matvec_sizes(A: [N, K], x: [M])` refuses K != M on
/// entry, in both functions, with ADJC_ERR_SHAPE and without touching any output.
#[test]
fn runtime_shape_mismatch_is_a_return_code() {
    let dir = scratch("blas-shape");
    let out = adjc(&["transpile", "examples/python/matvec_sizes.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let driver = r#"
#include <stdio.h>
#include "matvec_sizes.h"

int main(void)
{
    double A[12], A_b[12], x[4], x_b[4], b[4], b_b[4], ret[4], ret_b[4];
    for (int k = 0; k < 12; k++) { A[k] = 0.1 * k; A_b[k] = -1.0; }
    for (int k = 0; k < 4; k++) { x[k] = b[k] = 1.0; x_b[k] = b_b[k] = ret[k] = ret_b[k] = -1.0; }
    /* N = 4, K = 3, M = 4: A @ x does not fit. */
    int bad = matvec_sizes(4, 3, 4, A, x, b, ret);
    int bad_b = matvec_sizes_b(4, 3, 4, A, A_b, x, x_b, b, b_b, ret, ret_b);
    int untouched = 1;
    for (int k = 0; k < 4; k++) untouched &= ret[k] == -1.0 && ret_b[k] == -1.0 && x_b[k] == -1.0 && b_b[k] == -1.0;
    for (int k = 0; k < 12; k++) untouched &= A_b[k] == -1.0;
    int good = matvec_sizes(4, 3, 3, A, x, b, ret);
    printf("%d %d %d %d %d %.6f\n", ADJC_ERR_SHAPE, bad, bad_b, untouched, good, ret[1]);
    return 0;
}
"#;
    std::fs::write(dir.join("main.c"), driver).unwrap();
    let cc = Command::new("cc")
        .current_dir(&dir)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-o", "main", "main.c", "matvec_sizes.c", "-lm"])
        .output()
        .expect("run cc");
    assert!(cc.status.success(), "{}", text(&cc));
    let run = Command::new(dir.join("main")).output().expect("run driver");
    let got = String::from_utf8_lossy(&run.stdout).trim().to_string();
    // ret[1] = tanh(A[1, :] @ x + b[1]) = tanh(0.3 + 0.4 + 0.5 + 1).
    assert_eq!(got, format!("2 2 2 1 0 {:.6}", (2.2f64).tanh()), "{}", text(&run));
}

/// `adjc check` of `args` (run from the repository root): the check passes and shows at
/// least one checked gradient.
fn check_passes(args: &[&str]) {
    let out = adjc(args);
    let t = text(&out);
    let grads = t.lines().filter(|l| l.contains("(adjoint)") && l.trim_end().ends_with("ok")).count();
    assert!(out.status.success() && t.contains("check passed") && grads > 0, "adjc {}\n{t}", args.join(" "));
}

/// Products into locals nothing reads: a dot product into a scalar was used undeclared in
/// the C (`'s1' undeclared`, tests/gen/findings/dead_dot_scalar_c_build.py), so the C did not
/// compile. The reproducer at several sizes, then every library call (gemv, gemm, ger, dot;
/// Fortran `dot_product` and `matmul`) into an unused local, serial and with OpenMP.
#[test]
fn products_into_unused_locals_compile_and_check() {
    let finding = "tests/gen/findings/dead_dot_scalar_c_build.py";
    for n in ["N=0", "N=1", "N=3", "N=7"] {
        check_passes(&["check", finding, "--sizes", n]);
    }
    let dir = scratch("blas-unused");
    let py = dir.join("unused.py");
    std::fs::write(
        &py,
        "import numpy as np\n\n\ndef unused(A: \"float64[N, M]\", B: \"float64[M, K]\", x: \"float64[M]\", \
         u: \"float64[N]\", y: \"float64[N]\"):\n    t = A @ x\n    C = A @ B\n    D = np.outer(u, x)\n    \
         s = x @ x\n    y[:] += u * y\n",
    )
    .unwrap();
    let f90 = dir.join("unused.f90");
    std::fs::write(
        &f90,
        "subroutine unused(n, m, a, x, y)\n  integer, intent(in) :: n, m\n  real(8), intent(in) :: a(n, m), x(m)\n  \
         real(8), intent(inout) :: y(n)\n  real(8) :: s\n  real(8) :: t(n)\n  real(8) :: c(n, n)\n  \
         s = dot_product(x, x)\n  t = matmul(a, x)\n  c = matmul(a, transpose(a))\n  y = y * y\nend subroutine\n",
    )
    .unwrap();
    for openmp in [false, true] {
        let omp: &[&str] = if openmp { &["--openmp"] } else { &[] };
        let mut args = vec!["check", py.to_str().unwrap(), "--sizes", "N=3,M=2,K=4"];
        args.extend(omp);
        check_passes(&args);
        let mut args = vec!["check", f90.to_str().unwrap(), "--sizes", "n=3,m=2"];
        args.extend(omp);
        check_passes(&args);
    }
}

/// `adjc check` with the fallback BLAS and, when installed, with OpenBLAS, serial and with
/// OpenMP: the check passes and shows at least one checked gradient.
fn check_passes_both_blas(args: &[&str]) {
    let openblas = have_openblas();
    for (cblas, openmp) in [(false, false), (false, true), (true, false), (true, true)] {
        if cblas && !openblas {
            continue;
        }
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_adjc"));
        cmd.current_dir(root()).env("OMP_NUM_THREADS", "2").env("OPENBLAS_NUM_THREADS", "1").args(args);
        if cblas {
            cmd.env("CFLAGS", "-DADJC_BLAS=cblas").env("LDLIBS", "-lopenblas");
        }
        if openmp {
            cmd.arg("--openmp");
        }
        let out = cmd.output().expect("run adjc");
        let t = text(&out);
        let grads = t.lines().filter(|l| l.contains("(adjoint)") && l.trim_end().ends_with("ok")).count();
        assert!(
            out.status.success() && t.contains("check passed") && grads > 0,
            "adjc {} (cblas: {cblas}, openmp: {openmp})\n{t}",
            args.join(" ")
        );
    }
}

/// The reverse loop of covariance's triangular loop of products records its `ger` and
/// `gemv` updates of `data_b` and applies them as one `gemm` after the loop. Gradients at
/// non-square sizes, with row ranges and column windows that do not start at 0, and with
/// only the `ger` or only the `gemv` half active (a transposed work array, a wrong offset
/// or a wrong leading dimension fails these), in both BLAS builds.
#[test]
fn loop_of_matrix_vector_adjoints_is_one_gemm() {
    let dir = scratch("blas-batch");
    let out = adjc(&["transpile", "examples/python/covariance.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("covariance.c")).unwrap());
    let adj = function(&c, "covariance_b");
    assert!(!adj.contains("cblas_dger("), "{adj}");
    // The forward sweep's products (product_loop.rs) and the adjoint's updates: one each.
    assert_eq!(adj.matches("cblas_dgemm(").count(), 2, "{adj}");
    check_passes_both_blas(&["check", "examples/python/covariance.py", "--sizes", "M=4,data_n0=9,data_n1=6"]);
    check_passes_both_blas(&[
        "check",
        "examples/python/correlation.py",
        "--sizes",
        "M=3,data_n0=7,data_n1=5",
        "--init",
        "data=uniform(0,4)",
    ]);
    let tri = dir.join("tri.py");
    std::fs::write(
        &tri,
        "def tri(s, X: \"float64[R, P]\", C: \"float64[Q, Q]\"):\n    n = C.shape[0]\n    for i in range(n):\n        \
         C[i, i:] = s * X[1:, i + 1] @ X[1:, i + 2:n + 2]\n        C[i:, i] += X[1:, i + 1] @ X[1:, i + 1:n + 1]\n",
    )
    .unwrap();
    check_passes_both_blas(&["check", tri.to_str().unwrap(), "--sizes", "R=6,P=9,Q=5"]);
    let half = dir.join("half.py");
    std::fs::write(
        &half,
        "def half(X: \"float64[R, P]\", Y: \"float64[R, P]\", C: \"float64[Q, Q]\"):\n    n = C.shape[0]\n    \
         for i in range(n):\n        C[i, i:] = X[1:, i + 1] @ Y[1:, i + 2:n + 2]\n",
    )
    .unwrap();
    for wrt in ["X", "Y"] {
        let out = adjc(&["transpile", half.to_str().unwrap(), "--wrt", wrt, "-o", dir.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out));
        let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("half.c")).unwrap());
        assert_eq!(function(&c, "half_b").matches("cblas_dgemm(").count(), 2, "{c}");
        check_passes_both_blas(&["check", half.to_str().unwrap(), "--sizes", "R=6,P=9,Q=5", "--wrt", wrt]);
    }
}

/// A scalar factor of a matrix–vector product's operand (`alpha * A @ x`,
/// `(2.0 * alpha) * u @ y`, `x @ (B * beta)`) is the call's `alpha`: no scaled copy of the
/// matrix, in either sweep, and the factor's own gradient is `⟨out_b, product⟩`; a gemm's
/// (`(A * beta) @ B`) is still a scaled temporary. Gradients at non-square sizes.
#[test]
fn scalar_factors_are_blas_alpha_without_temporaries() {
    let dir = scratch("blas-alpha");
    let out = adjc(&["transpile", "examples/python/gesummv.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("gesummv.c")).unwrap());
    assert!(c.contains("cblas_dgemv(CblasRowMajor, CblasNoTrans, N, N, alpha, &A_(0, 0)"), "{c}");
    assert!(!c.contains("ADJC_DIMS(N, N)"), "an N x N temporary:\n{c}");
    check_passes_both_blas(&["check", "examples/python/gesummv.py", "--sizes", "N=4"]);
    let scaled = dir.join("scaled.py");
    std::fs::write(
        &scaled,
        "def scaled(alpha, beta, A: \"float64[N, K]\", B: \"float64[K, M]\", x: \"float64[K]\", u: \"float64[N]\"):\n    \
         y = alpha * A @ x\n    C = (A * beta) @ B\n    s = (2.0 * alpha) * u @ y\n    w = x @ (B * beta)\n    \
         return y, C, s, w\n",
    )
    .unwrap();
    let out = adjc(&["transpile", scaled.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("scaled.c")).unwrap());
    // The gemvs take alpha and beta; the gemm keeps its scaled temporary (an active alpha's
    // adjoint would be a triple loop).
    assert!(c.contains("alpha, &A_(0, 0)") && c.contains("beta, &B_(0, 0)"), "{c}");
    check_passes_both_blas(&["check", scaled.to_str().unwrap(), "--sizes", "N=3,K=4,M=5"]);
}

/// `np.dot(x, x)`: one adjoint update with factor 2, not two identical ones.
#[test]
fn dot_of_a_vector_with_itself_is_one_update() {
    let dir = scratch("blas-square");
    let out = adjc(&["transpile", "examples/python/cholesky.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("cholesky.c")).unwrap());
    let adj = function(&c, "cholesky_b");
    assert!(adj.contains("A_b_(i, i_1) += 2.0 * dot_A_1_b * A_(i, i_1);"), "{adj}");
    assert_eq!(adj.matches("+= dot_A_1_b").count(), 0, "{adj}");
}

/// The fallback BLAS of `runtime-c/adjc_blas.h` (blocked, packed gemm; gemv, ger, dot)
/// against naive reference loops: `blas_fallback/check.c` runs every transpose pair, both
/// orders, sizes that are not multiples of the register tile or the cache blocks, wide
/// leading dimensions, beta == 0 over NaN, float and double. Built with
/// -std=c11 -Wall -Wextra -Werror, with and without -fopenmp and -march=native, with the
/// default blocks and with tiny ones (every size then crosses several KC/MC/NC blocks, the
/// packed path runs for the smallest products, and every product is split among threads,
/// three of them so that shares are uneven), and with tiny few-rows panels and column blocks.
/// Also few-rows products whose op(A) holds subnormal numbers (the scaled path).
#[test]
fn fallback_blas_matches_reference_loops() {
    let dir = scratch("blas-fallback");
    let src = root().join("adjc/tests/blas_fallback/check.c");
    let runtime = root().join("runtime-c");
    let tiny: &[&str] = &[
        "-DADJC_BLAS_KC_d=16",
        "-DADJC_BLAS_MC_d=12",
        "-DADJC_BLAS_NC_d=48",
        "-DADJC_BLAS_KC_s=16",
        "-DADJC_BLAS_MC_s=12",
        "-DADJC_BLAS_NC_s=96",
        "-DADJC_BLAS_SMALL=0",
        "-DADJC_BLAS_PAR_MIN=0",
        "-DADJC_BLAS_SMALL_M=0",
    ];
    let configs: &[(&str, &[&str], bool)] = &[
        ("plain", &[], false),
        ("native", &["-march=native"], false),
        ("native-omp", &["-march=native", "-fopenmp"], false),
        ("tiny", &["-march=native"], true),
        ("tiny-omp", &["-march=native", "-fopenmp"], true),
        // The few-rows path with panels of 3 rows of B and column blocks of 40 (not a
        // multiple of the tile width), split among three threads.
        (
            "few-rows-tiny",
            &["-march=native", "-fopenmp", "-DADJC_BLAS_FR_KB=3", "-DADJC_BLAS_FR_JB=40", "-DADJC_BLAS_PAR_MIN=0"],
            false,
        ),
    ];
    for (name, flags, small_blocks) in configs {
        let exe = dir.join(name);
        let mut cc = Command::new("cc");
        cc.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2"]).args(*flags);
        if *small_blocks {
            cc.args(tiny);
        }
        cc.arg("-I").arg(&runtime).arg(&src).arg("-o").arg(&exe).arg("-lm");
        let out = cc.output().expect("run cc");
        assert!(out.status.success(), "{name}: {}", text(&out));
        let run = Command::new(&exe).env("OMP_NUM_THREADS", "3").output().expect("run check");
        assert!(run.status.success() && text(&run).trim() == "ok", "{name}:\n{}", text(&run));
    }
    // With OpenBLAS, the same checks go through adjc's gemm wrapper (`adjc_dgemm_lib_`:
    // few-rows products with subnormal op(A) scaled into a copy), serial and OpenMP.
    if have_openblas() {
        for (name, omp) in [("openblas", false), ("openblas-omp", true)] {
            let exe = dir.join(name);
            let mut cc = Command::new("cc");
            cc.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-DADJC_BLAS=cblas"]);
            if omp {
                cc.arg("-fopenmp");
            }
            cc.arg("-I").arg(&runtime).arg(&src).arg("-o").arg(&exe).args(["-lopenblas", "-lm"]);
            let out = cc.output().expect("run cc");
            assert!(out.status.success(), "{name}: {}", text(&out));
            let run = Command::new(&exe).env("OMP_NUM_THREADS", "3").output().expect("run check");
            assert!(run.status.success() && text(&run).trim() == "ok", "{name}:\n{}", text(&run));
        }
    }
    // The GFLOP/s benchmark of the fallback (README: BLAS) keeps compiling.
    let bench = root().join("adjc/tests/blas_fallback/bench.c");
    let out = Command::new("cc")
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-fopenmp", "-I"])
        .arg(&runtime)
        .arg(&bench)
        .arg("-o")
        .arg(dir.join("bench"))
        .output()
        .expect("run cc");
    assert!(out.status.success(), "bench.c: {}", text(&out));
}

/// A stack of matrices times one matrix (doitgen's `reshape(A, (NR, NQ, 1, NP)) @ C4`) is
/// one gemm over all `NR * NQ` rows in the forward sweep, and its adjoint loop becomes one
/// gemm per adjoint statement (rows for `A_b`, the shared dimension for `C4_b`), not a
/// gemm per slab. A stack whose slabs are not consecutive (`A[:, 1:, :]`) keeps its loop.
/// Gradients in both BLAS builds, serial and OpenMP (a merge with a wrong offset, extent or
/// leading dimension fails them).
#[test]
fn loop_of_slab_products_is_one_gemm() {
    let dir = scratch("blas-slabs");
    let out = adjc(&["transpile", "examples/python/doitgen.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("doitgen.c")).unwrap());
    let (fwd, adj) = (function(&c, "doitgen"), function(&c, "doitgen_b"));
    assert_eq!(fwd.matches("cblas_dgemm(").count(), 1, "{fwd}");
    assert!(fwd.contains("CblasNoTrans, CblasNoTrans, NR * NQ, NP, NP, 1.0, &A_(0, 0, 0)"), "{fwd}");
    assert_eq!(adj.matches("cblas_dgemm(").count(), 3, "{adj}");
    assert!(adj.contains("CblasNoTrans, CblasTrans, NR * NQ, NP, NP, 1.0, &dot_A_C4_b_(0, 0, 0, 0)"), "{adj}");
    assert!(adj.contains("CblasTrans, CblasNoTrans, NP, NP, NR * NQ, 1.0, &A_(0, 0, 0)"), "{adj}");
    check_passes_both_blas(&["check", "examples/python/doitgen.py", "--sizes", "NR=3,NQ=4,NP=5"]);
    let part = dir.join("part.py");
    std::fs::write(
        &part,
        "def part(A: \"float64[R, Q, P]\", C: \"float64[P, P]\", B: \"float64[R, Q, P]\"):\n    \
         B[:, 1:, :] = A[:, 1:, :] @ C\n    B[:, :, :] += A @ C\n",
    )
    .unwrap();
    let out = adjc(&["transpile", part.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("part.c")).unwrap());
    let adj = function(&c, "part_b");
    // The window A[:, 1:, :] stays a loop of gemms in both sweeps; A @ C is merged.
    assert!(c.contains("Q - 1), P, P, 1.0, &A_(i, 1, 0)"), "{c}");
    assert!(adj.contains("CblasTrans, CblasNoTrans, P, P, R * Q, 1.0, &A_(0, 0, 0)"), "{adj}");
    check_passes_both_blas(&["check", part.to_str().unwrap(), "--sizes", "R=3,Q=4,P=5"]);
}

/// A loop of matrix–vector products of matrices it does not write is one `gemm` before the
/// loop (autodiff/src/product_loop.rs), in the forward function and in the adjoint's
/// forward sweep: covariance calls no `gemv` at all. The rewrite must keep every value: the
/// forward is compared with NumPy (with `$ADJC_PYTHON`) and the gradients with finite
/// differences, for the column form with windows that do not start at 0 and a scale, the
/// row form accumulating into its output (`beta = 1`) with two different matrices, and a
/// loop that writes its matrix (left as it is), in both BLAS builds.
#[test]
fn loop_of_matrix_vector_products_is_one_gemm_before_it() {
    let dir = scratch("blas-product-loop");
    let out = adjc(&["transpile", "examples/python/covariance.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("covariance.c")).unwrap());
    for name in ["covariance", "covariance_b"] {
        let f = function(&c, name);
        assert!(!f.contains("cblas_dgemv("), "{f}");
        assert!(f.contains("data_gram = data[0:data_n0, 0:data_n1].T @ data[0:data_n0, 0:data_n1]"), "{f}");
        assert!(f.contains("] = data_gram_(i, i + "), "{f}");
    }
    assert_eq!(function(&c, "covariance").matches("cblas_dgemm(").count(), 1);
    // Covariance reads the upper triangle of its Gram matrix only: that is all it computes,
    // in blocks of 64 rows.
    assert!(c.contains("its upper triangle only, in blocks of 64 rows"), "{c}");
    assert!(c.contains("for (int64_t blk = 0; blk < (data_n1 + 63) / 64; blk++) {"), "{c}");
    let cases = [
        (
            "cols",
            "def cols(s, X: \"float64[R, P]\", C: \"float64[Q, Q]\"):\n    n = C.shape[0]\n    for i in range(n):\n        \
             C[i, i:] = s * X[1:, i + 1] @ X[1:, i + 2:n + 2]\n",
            "R=6,P=9,Q=5",
            true,
        ),
        (
            "wide",
            "def wide(s, X: \"float64[R, P]\", C: \"float64[Q, Q]\"):\n    n = C.shape[0]\n    for i in range(n):\n        \
             C[i, i:] = s * X[1:, i + 1] @ X[1:, i + 2:n + 2]\n",
            "R=6,P=140,Q=135",
            true,
        ),
        (
            "rows",
            "def rows(X: \"float64[P, R]\", Y: \"float64[Q, R]\", C: \"float64[Q, P]\"):\n    for i in range(Y.shape[0]):\n        \
             C[i, :] += 2.0 * X[:, 1:] @ Y[i, 1:]\n",
            "P=4,R=6,Q=5",
            true,
        ),
        (
            "writes",
            "def writes(X: \"float64[R, P]\", C: \"float64[P, P]\"):\n    for i in range(X.shape[1]):\n        \
             C[i, i:] = X[:, i] @ X[:, i:]\n        X[:, i] *= 0.5\n",
            "R=6,P=5",
            false,
        ),
    ];
    for (name, src, sizes, batched) in cases {
        let py = dir.join(format!("{name}.py"));
        std::fs::write(&py, src).unwrap();
        let out = adjc(&["transpile", py.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
        assert!(out.status.success(), "{}", text(&out));
        let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join(format!("{name}.c"))).unwrap());
        let before = c.contains("as one product before it") || c.contains("as products before it");
        assert_eq!(before, batched, "{name}:\n{c}");
        assert_eq!(function(&c, name).contains("cblas_dgemv("), !batched, "{name}:\n{c}");
        check_passes_both_blas(&["check", py.to_str().unwrap(), "--sizes", sizes]);
    }
}

/// The `ger` updates one reverse sweep makes to one adjoint matrix run as one map, one pass
/// over the matrix (`autodiff/src/rank_update.rs`): atax's, bicg's and mvt's two, gemver's
/// zero-fill of `A_b` and two (one assignment). Gradients through windows of a matrix
/// (offset starts, one transposed update, a third product on another window that stays a
/// call) at non-square sizes, in both BLAS builds: a wrong offset or transpose fails them.
#[test]
fn rank_one_updates_of_one_matrix_are_one_pass() {
    let dir = scratch("blas-rank-update");
    for (k, extra) in [("atax", vec![]), ("bicg", vec![]), ("mvt", vec![]), ("gemver", vec!["--wrt", "A", "--of", "w"])]
    {
        let mut args = vec!["transpile".to_string(), format!("examples/python/{k}.py"), "-o".into()];
        args.push(dir.to_str().unwrap().into());
        args.extend(extra.iter().map(|s| s.to_string()));
        let out = adjc(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(out.status.success(), "{}", text(&out));
        let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join(format!("{k}.c"))).unwrap());
        let adj = function(&c, &format!("{k}_b"));
        assert!(!adj.contains("cblas_dger"), "{k}: a separate pass per update:\n{adj}");
        assert_eq!(adj.matches("2 rank-1 updates of `A_b`").count(), 1, "{k}:\n{adj}");
        if k == "gemver" {
            assert!(adj.contains("2 rank-1 updates of `A_b` (from zero)"), "{adj}");
            assert!(!adj.contains("_b_(i_1, j_1) = 0.0"), "the zero-fill of A_b is a pass of its own:\n{adj}");
        }
    }
    let windows = dir.join("windows.py");
    std::fs::write(
        &windows,
        "def windows(A: \"float64[N, M]\", x: \"float64[M]\", y: \"float64[N]\"):\n    \
         u = A[1:, 2:] @ x[2:]\n    v = y[1:] @ A[1:, 2:]\n    w = A[:, 1:] @ x[1:]\n    return u, v, w\n",
    )
    .unwrap();
    let out = adjc(&["transpile", windows.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("windows.c")).unwrap());
    let adj = function(&c, "windows_b");
    assert!(adj.contains("A_b_(1 + i_2, 2 + j) += v_b[j] * y[1 + i_2] + u_b[i_2] * x[2 + j];"), "{adj}");
    assert_eq!(adj.matches("cblas_dger").count(), 1, "{adj}");
    check_passes_both_blas(&["check", windows.to_str().unwrap(), "--sizes", "N=5,M=8"]);
    check_passes_both_blas(&["check", "examples/python/gemver.py", "--sizes", "N=6", "--wrt", "A", "--of", "w"]);
    check_passes_both_blas(&["check", "examples/python/atax.py", "--sizes", "M=4,N=7"]);
}

/// `C[:] = alpha * A @ B + beta * C` differentiated with respect to `A` alone
/// (`autodiff/src/product_fold.rs`): the forward function and the forward sweep are one gemm
/// with `alpha` and `beta` into `C`, the reverse sweep one gemm into `A_b` (β = 1) reading
/// `C_b` before the map `C_b = beta * C_b`: no work array at all. Near misses keep their
/// maps: a scaled operand that is read again (`T + 1.0`), and products whose output map or
/// copied operand is also the call's operand or output (`C[:] = C @ A + 2.0 * C`: BLAS must
/// not write an array it reads). Gradients (and, with `$ADJC_PYTHON`, forward values against
/// NumPy) checked in every case, serial and with OpenMP: a fold in the wrong place would show
/// there (the copy of `C_b` moved after its scaling is off by `beta`; an aliased gemm reads
/// what it has overwritten).
#[test]
fn scalings_and_copies_fold_into_the_product() {
    let dir = scratch("blas-fold");
    let d = dir.to_str().unwrap();
    let out = adjc(&["transpile", "examples/python/gemm.py", "--wrt", "A", "--of", "C", "-o", d]);
    assert!(out.status.success(), "{}", text(&out));
    let c = adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join("gemm.c")).unwrap());
    let forward = "cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, NI, NJ, NK, alpha, &A_(0, 0), NK, \
                   &B_(0, 0), NJ, beta, &C_(0, 0), NJ);";
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let (fwd, adj) = (squeeze(function(&c, "gemm")), squeeze(function(&c, "gemm_b")));
    assert!(fwd.contains(forward) && adj.contains(forward), "{c}");
    let reverse = "cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, NI, NK, NJ, alpha, &C_b_(0, 0), NJ, \
                   &B_(0, 0), NJ, 1.0, &A_b_(0, 0), NK);";
    assert!(adj.contains(reverse), "{c}");
    assert!(adj.find(reverse) < adj.find("C_b_(i, j) = beta * C_b_(i, j);"), "{c}");
    assert!(!c.contains("adjc_alloc"), "a work array:\n{c}");
    check_passes_both_blas(&[
        "check",
        "examples/python/gemm.py",
        "--sizes",
        "NI=7,NJ=6,NK=5",
        "--wrt",
        "A",
        "--of",
        "C",
    ]);

    let reused = dir.join("reused.py");
    std::fs::write(
        &reused,
        "def reused(alpha, A: \"float64[N, K]\", B: \"float64[K, M]\"):\n    T = alpha * A\n    C = T @ B\n    \
         return C, T + 1.0\n",
    )
    .unwrap();
    let aliased = dir.join("aliased.py");
    std::fs::write(&aliased, "def aliased(A: \"float64[N, N]\", C: \"float64[N, N]\"):\n    C[:] = C @ A + 2.0 * C\n")
        .unwrap();
    for (py, stem, kept) in [
        (&reused, "reused", "T_(i, j) = alpha * A_(i, j);"),
        (&aliased, "aliased", "C_(i, j) = CA_(i, j) + 2.0 * C_(i, j);"),
    ] {
        let out = adjc(&["transpile", py.to_str().unwrap(), "--wrt", "A", "-o", d]);
        assert!(out.status.success(), "{}", text(&out));
        let c = std::fs::read_to_string(dir.join(format!("{stem}.c"))).unwrap();
        assert_eq!(c.matches(kept).count(), 2, "{c}");
    }
    let c = std::fs::read_to_string(dir.join("aliased.c")).unwrap();
    assert!(c.contains("CA_b_(i, j) = C_b_(i, j);"), "the copy of C_b must stay:\n{c}");
    check_passes_both_blas(&["check", reused.to_str().unwrap(), "--sizes", "N=3,K=4,M=5", "--wrt", "A"]);
    check_passes_both_blas(&["check", aliased.to_str().unwrap(), "--sizes", "N=4"]);
}
