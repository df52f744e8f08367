//! Sums into one array element accumulated in a local (autodiff/src/element_sum.rs): the
//! loop becomes a `simd reduction` into a scalar, and the element is updated once after it —
//! only when the loop runs, unless its trip count is known to be positive or the element was
//! zero-filled just before. `examples/python/tail_sums.py` has inner loops whose trip count
//! reaches zero (the last row of a triangle) and odd sizes; it passes `adjc check` serial and
//! with OpenMP, and `conv2d_bias` (the shape this is for: a dot over the output channels into
//! each input pixel, batch > 1) too.

mod common;

use common::{adjc, check_example, examples, scratch, text};

fn transpile(example: &str) -> String {
    let dir = scratch(&format!("element-sum-{example}"));
    let path = format!("examples/python/{example}.py");
    let out = adjc(&["transpile", &path, "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    std::fs::read_to_string(dir.join(format!("{example}.c"))).unwrap()
}

#[test]
fn a_sum_into_an_element_is_a_vector_reduction_written_back_when_the_loop_runs() {
    let c = transpile("tail_sums");
    // The triangular loop has no trips at the last row: the write-back is guarded.
    let tri = "        ADJC_OMP(simd reduction(+:y_sum))\n        for (int64_t j = i + 1; j < N; j++) {";
    assert!(c.contains(tri), "{c}");
    assert!(c.contains("        if (i + 1 < N) {\n            y[i] += y_sum;\n        }"), "{c}");
    // The adjoint's column sum into `x_b[k]` walks the rows: it runs in tiles of columns along
    // the rows (column_tiles runs first) and needs no local.
    assert!(c.contains("            for (int64_t k = k_tile * 32; k < adjc_min_i64(k_tile * 32 + 32, M); k++) {\n                x_b[k] += A_(i, k) * y_b[i];"), "{c}");
    assert!(!c.contains("x_b_sum_1"), "{c}");
}

#[test]
fn a_zero_filled_sum_needs_no_guard() {
    // mlp's softmax row sums (covariance's column means, the first user, now run in tiles of
    // columns: see column_tiles.rs).
    let c = transpile("mlp");
    assert!(c.contains("        tmp_sum_(i, 0) = 0.0;"), "{c}");
    assert!(c.contains("        tmp_sum_(i, 0) += tmp_sum_sum;\n"), "{c}");
    assert!(!c.contains("if (0 < S2) {\n            tmp_sum_(i, 0) += tmp_sum_sum;"), "{c}");
}

#[test]
fn element_sums_pass_the_gradient_check() {
    let wanted = ["tail_sums.py", "conv2d_bias.py", "covariance.py", "mlp.py"];
    let exs: Vec<_> = examples("examples/python", &["py"], "#")
        .into_iter()
        .filter(|e| wanted.iter().any(|w| e.path.ends_with(&format!("/{w}"))))
        .collect();
    assert_eq!(exs.len(), wanted.len());
    for ex in &exs {
        for openmp in [false, true] {
            if let Err(e) = check_example(ex, openmp) {
                panic!("{} (openmp {openmp}): {e}", ex.path);
            }
        }
    }
}
