//! Zero fills nobody reads and first additions into a zero-filled adjoint
//! (autodiff/src/zero_fill.rs): the BLAS-bound adjoints of doitgen and k2mm and the
//! convolution's adjoint copy the seed and call gemm with β = 0 instead of zero-filling,
//! adding and zeroing again; the gradients still pass `adjc check`, serial and OpenMP, with
//! the benchmark's `--wrt`/`--of` (where the rewrite applies) and in loops where a zeroing is
//! read by the next iteration (where it must not).

mod common;

use common::{adjc, adjc_parallel_copies, scratch, text};

fn adjoint_c(file: &str, flags: &[&str], name: &str) -> String {
    let dir = scratch(&format!("zero-fill-{name}"));
    let mut args = vec!["transpile", file, "-o", dir.to_str().unwrap()];
    args.extend(flags);
    let out = adjc(&args);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join(format!("{name}.c"))).unwrap();
    let start = c.find(&format!("\nint {name}_b(")).unwrap_or_else(|| panic!("no {name}_b in\n{c}"));
    c[start..].to_string()
}

fn check(file: &str, flags: &[&str]) {
    for openmp in [false, true] {
        let mut args = vec!["check", file];
        args.extend(flags);
        if openmp {
            args.push("--openmp");
        }
        let out = if openmp { adjc_parallel_copies(&args) } else { adjc(&args) };
        let t = text(&out);
        assert!(out.status.success() && t.contains("check passed"), "adjc {}\n{t}", args.join(" "));
    }
}

#[test]
fn doitgen_copies_the_seed_and_calls_gemm_with_beta_zero() {
    let flags = ["--wrt", "A", "--of", "A"];
    let c = adjoint_c("examples/python/doitgen.py", &flags, "doitgen");
    assert!(!c.contains("dot_A_C4_b_(i_1, j_1, k_1, l) = 0.0;"), "zero fill of dot_A_C4_b left:\n{c}");
    assert!(!c.contains("dot_A_C4_b_(i, i_1, 0, j_1) = 0.0;"), "dead zeroing of dot_A_C4_b left:\n{c}");
    assert!(!c.contains("A_b_(i, j, k) = 0.0;"), "zeroing of A_b before an overwrite left:\n{c}");
    assert!(c.contains("dot_A_C4_b_(i, j, 0, k) = A_b_(i, j, k);"), "{c}");
    assert!(c.contains("NP, &C4_(0, 0), NP, 0.0, &A_b_(0, 0, 0), NP);"), "gemm into A_b with β = 1:\n{c}");
    check("examples/python/doitgen.py", &["--sizes", "NR=3,NQ=4,NP=5", "--wrt", "A", "--of", "A"]);
}

#[test]
fn k2mm_adjoint_has_no_zero_fills() {
    let flags = ["--wrt", "A", "--of", "D"];
    let c = adjoint_c("examples/python/k2mm.py", &flags, "k2mm");
    let zero_stores = c.lines().filter(|l| l.contains("_b_(") && l.trim_end().ends_with("= 0.0;")).count();
    assert_eq!(zero_stores, 0, "{c}");
    // product_fold: the first gemm reads D_b itself (no copy `dot_alpha_A_B_C_b = D_b`) before the map
    // `D_b *= beta`, and the second one adds alpha * dot_b Bᵀ into A_b (no `tmp_b`).
    assert!(!c.contains("dot_alpha_A_B_C_b_(i, j) = D_b_(i, j);") && !c.contains("tmp_b"), "{c}");
    assert_eq!(c.matches(", 0.0, &dot_alpha_A_B_b_(0, 0), NJ);").count(), 1, "{c}");
    assert_eq!(c.matches(", 1.0, &A_b_(0, 0), NK);").count(), 1, "{c}");
    check("examples/python/k2mm.py", &["--sizes", "NI=6,NJ=5,NK=4,NL=7", "--wrt", "A", "--of", "D"]);
}

#[test]
fn conv2d_zeroes_the_output_seed_once() {
    let flags = ["--wrt", "input", "--of", "ret"];
    let c = adjoint_c("examples/python/conv2d_bias.py", &flags, "conv2d_bias");
    assert!(!c.contains("output_b_(i_1, j_1, k_1, l_1) = 0.0;"), "{c}");
    assert!(!c.contains("output_b_(k, i, j, l) = 0.0;"), "{c}");
    assert!(c.contains("output_b_(k, l, m, n) = ret_b_(k, l, m, n);"), "{c}");
    // The output-only seed is zero on exit: one zeroing (one adjc_zero call), at the end.
    let zeroings = c.lines().filter(|l| l.contains("ret_b_(") && l.trim_end().ends_with("= 0.0;")).count();
    assert_eq!(zeroings, 0, "{c}");
    assert_eq!(c.matches("adjc_zero(ret_b, sizeof(*ret_b),").count(), 1, "{c}");
    let at = c.find("adjc_zero(ret_b,").unwrap_or(0);
    assert!(!c[at..].contains("ret_b_("), "the zeroing is not the last use of ret_b:\n{c}");
    check(
        "examples/python/conv2d_bias.py",
        &["--sizes", "N=2,input_n1=6,input_n2=5,input_n3=3,K=2,C_out=4", "--wrt", "input", "--of", "ret"],
    );
}

/// Zeroings that a later iteration of a sequential loop reads stay: each step's product
/// adjoint is zeroed after use and accumulated again in the next step.
#[test]
fn zeroing_read_by_the_next_iteration_stays() {
    let dir = scratch("zero-fill-loop");
    let src = dir.join("power.py");
    std::fs::write(
        &src,
        "def power(T, A: \"float64[N, M]\", B: \"float64[M, M]\"):\n    for t in range(T):\n        A[:] = A @ B\n",
    )
    .unwrap();
    let file = src.to_str().unwrap();
    let c = adjoint_c(file, &[], "power");
    assert!(c.contains("= 0.0;"), "{c}");
    check(file, &["--sizes", "T=3,N=4,M=5"]);
}
