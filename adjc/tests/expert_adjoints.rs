//! The adjoints of the deep-learning kernels have the form an expert writes by hand (their
//! values are proven by the `adjc check` runs of e2e.rs): softmax backward row by row,
//! strict ReLU masks, bias adjoints as reductions and sums' adjoints as broadcasts, with no
//! atomics where every iteration can own what it writes.

mod common;

use common::{adjc, scratch, text};

/// The generated C of an example (`test`: a scratch directory of the test's own).
fn transpile(test: &str, example: &str) -> String {
    let dir = scratch(&format!("expert-{test}-{example}"));
    let path = format!("examples/python/{example}.py");
    let out = adjc(&["transpile", &path, "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    // Statements whole, wherever the emitter broke their lines.
    adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join(format!("{example}.c"))).unwrap())
}

/// The text of C function `name` (from its signature to the closing brace).
fn function<'a>(c: &'a str, name: &str) -> &'a str {
    let start = c.find(&format!("\nint {name}(")).unwrap_or_else(|| panic!("no {name} in\n{c}"));
    let len = c[start..].find("\n}\n").unwrap_or(c.len() - start);
    &c[start..start + len]
}

fn atomics(c: &str) -> usize {
    c.matches("ADJC_OMP(atomic)").count()
}

/// The lines of the loop nest that follows the first line containing `marker`, up to the
/// next blank line.
fn block_after<'a>(c: &'a str, marker: &str) -> Vec<&'a str> {
    let start = c.find(marker).unwrap_or_else(|| panic!("no `{marker}` in\n{c}"));
    c[start..].lines().take_while(|l| !l.trim().is_empty()).collect()
}

#[test]
fn softmax_backward_is_the_row_formula() {
    let c = transpile("rows", "softmax");
    let adj = function(&c, "softmax_b");
    assert_eq!(atomics(adj), 0, "{adj}");
    // No arg-max search and no adjoint of the intermediates: the max subtraction
    // contributes nothing.
    for absent in ["_win", "tmp_max_b", "tmp_out_b", "tmp_sum_b"] {
        assert!(!adj.contains(absent), "`{absent}` in\n{adj}");
    }
    let rows = block_after(adj, "softmax backward").join("\n");
    // One map over the rows (i, j, k), the dot product, then the update (not collapsed:
    // the outer extent is symbolic, emit/src/omp.rs).
    assert!(rows.contains("ADJC_OMP(parallel for)"), "{rows}");
    assert!(
        rows.contains("ret_b_dot_ret += tmp_out_(i, j, k, m) / tmp_sum_(i, j, k, 0) * ret_b_(i, j, k, m);"),
        "{rows}"
    );
    assert!(
        rows.contains(
            "x_b_(i, j, k, m) += tmp_out_(i, j, k, m) / tmp_sum_(i, j, k, 0) * (ret_b_(i, j, k, m) - ret_b_dot_ret);"
        ),
        "{rows}"
    );
}

#[test]
fn softmax_rule_stays_away_from_shared_intermediates() {
    // The row sum and max feed a log-sum-exp too: the statement-wise adjoint is kept.
    let c = transpile("guard", "softmax_lse");
    let adj = function(&c, "softmax_lse_b");
    assert!(!adj.contains("softmax backward"), "{adj}");
    assert!(adj.contains("s_b_") && adj.contains("m_b_"), "{adj}");
}

#[test]
fn mlp_relu_masks_and_bias_reductions() {
    let c = transpile("masks", "mlp");
    let adj = function(&c, "mlp_b");
    assert_eq!(atomics(adj), 0, "{adj}");
    assert!(adj.contains("softmax backward"), "{adj}");
    // The first update of relu2_x_b assigns: no zero-fill pass before it (fill_merge, zero_fill).
    assert!(adj.contains("relu2_x_b_(i, j) = relu2_x_(i, j) > 0.0 ? relu2_b_(i, j) : 0.0;"), "{adj}");
    assert!(!adj.contains(">= 0.0 ?"), "{adj}");
    // b1 was broadcast over the batch: its adjoint is a column sum, each thread owning a tile
    // of b1_b's columns and running along the rows of relu1_x_b (autodiff/src/column_tiles.rs).
    let bias = block_after(adj, "b1_b[j] +=");
    assert_eq!(bias[0].trim(), "b1_b[j] += relu1_x_b_(i, j);");
    // The tile's loop is `simd` (a sequential map inside a parallel one, emit/src/omp.rs).
    let lines: Vec<&str> = adj.lines().collect();
    let at = lines.iter().position(|l| l.contains("b1_b[j] +=")).unwrap();
    assert_eq!(lines[at - 1].trim(), "for (int64_t j = j_tile * 32; j < adjc_min_i64(j_tile * 32 + 32, S0); j++) {");
    assert_eq!(lines[at - 2].trim(), "ADJC_OMP(simd)");
    assert_eq!(lines[at - 3].trim(), "for (int64_t i = 0; i < N; i++) {");
    assert_eq!(lines[at - 4].trim(), "for (int64_t j_tile = 0; j_tile < (S0 + 31) / 32; j_tile++) {");
    assert_eq!(lines[at - 5].trim(), "ADJC_OMP(parallel for)");
}

#[test]
fn batchnorm_backward_is_the_closed_formula() {
    for (example, ty) in [("batchnorm", "double"), ("batchnorm_f32", "float")] {
        let c = transpile("bn", example);
        let adj = function(&c, "batchnorm_b");
        assert_eq!(atomics(adj), 0, "{adj}");
        // Nothing flows back through the means and the sum of squares one by one.
        for absent in ["mean_b", "mean_x_b", "sum_b_", "var_b"] {
            assert!(!adj.contains(absent), "`{absent}` in\n{adj}");
        }
        let rows = block_after(adj, "batch-norm backward").join("\n");
        assert!(rows.contains("ADJC_OMP(parallel for)\n    for (int64_t j = 0; j < C; j++) {"), "{rows}");
        assert!(rows.contains("ret_b_sum += ret_b_(k, j);"), "{rows}");
        assert!(rows.contains("ret_b_hat_sum += ret_b_(k, j) * ((x_(k, j) - mean_(0, j)) * x_rstd);"), "{rows}");
        let update = format!(
            "x_b_(k, j) += x_rstd / ({ty})N * (({ty})N * ret_b_(k, j) - ret_b_sum - (x_(k, j) - mean_(0, j)) * x_rstd * ret_b_hat_sum);"
        );
        assert!(rows.contains(&update), "{rows}");
    }
}

#[test]
fn batchnorm_rule_stays_away_from_shared_statistics() {
    // The variance is also returned: the statement-wise adjoint is kept.
    let c = transpile("stats", "batchnorm_stats");
    let adj = function(&c, "batchnorm_stats_b");
    assert!(!adj.contains("batch-norm backward"), "{adj}");
    assert!(adj.contains("var_b_(") && adj.contains("mean_b_("), "{adj}");
}

#[test]
fn normalisation_by_the_std_keeps_reductions_and_broadcasts() {
    // resnet divides by sqrt(std + eps) (NPBench's formula), not a batch norm: the
    // statement-wise adjoint stays, as per-feature reductions without atomics.
    let c = transpile("std", "resnet");
    let adj = function(&c, "resnet_basicblock_b");
    assert!(!adj.contains("batch-norm backward"), "{adj}");
    let red = block_after(adj, "a broadcast operand's adjoint").join("\n");
    // Updated in place (`+=`, or `-=` where the derivative's sign is folded into it).
    let updated = |place: &str| red.contains(&format!("{place} +=")) || red.contains(&format!("{place} -="));
    assert!(updated("batchnorm2d3_mean_b_(0, l, m, n)") && updated("batchnorm2d3_std_b_(0, l, m, n)"), "{red}");
}

#[test]
fn convolution_adjoint_is_parallel_over_the_owners_of_its_writes() {
    let c = transpile("conv", "conv2d_bias");
    let adj = function(&c, "conv2d_bias_b");
    let nests = block_after(adj, "reordered so that every iteration");
    let text = nests.join("\n");
    // input_b[k, m, n, p]: each batch element owns its slice; the output-channel loop l is
    // innermost, a dot of rows contiguous in NHWC (weights[.., p, l], output_b[.., l]).
    assert_eq!(nests[1].trim(), "ADJC_OMP(parallel for)", "{text}");
    assert_eq!(nests[2].trim(), "for (int64_t k = 0; k < N; k++) {", "{text}");
    let lines: Vec<&str> = adj.lines().map(str::trim).collect();
    let x = lines.iter().position(|l| l.starts_with("input_b_sum += weights_(m - i, n - j, p, l)")).unwrap();
    // Its iterations are independent: it runs forwards, l sunk innermost
    // (autodiff/src/loop_order.rs), summed in a local (autodiff/src/element_sum.rs).
    assert_eq!(lines[x - 1], "for (int64_t l = 0; l < C_out; l++) {", "{adj}");
    assert_eq!(lines[x - 2], "ADJC_OMP(simd reduction(+:input_b_sum))", "{adj}");
    assert!(lines[x..].iter().take(4).any(|l| *l == "input_b_(k, m, n, p) += input_b_sum;"), "{adj}");
    // weights_b[.., p, l]: each output channel owns its slice.
    let w = lines.iter().position(|l| l.starts_with("weights_b_(m - i, n - j, p, l) +=")).unwrap();
    let map = lines[..w].iter().rposition(|l| l.starts_with("ADJC_OMP(parallel for")).unwrap();
    assert_eq!(lines[map], "ADJC_OMP(parallel for)", "{adj}");
    assert_eq!(lines[map + 1], "for (int64_t l = 0; l < C_out; l++) {", "{adj}");
    assert_eq!(lines[w - 1], "for (int64_t p = 0; p < input_n3; p++) {", "{adj}");
}

#[test]
fn convolution_and_pooling_adjoints_own_their_writes() {
    for (example, name) in [("conv2d_bias", "conv2d_bias_b"), ("resnet", "resnet_basicblock_b")] {
        let c = transpile("own", example);
        let adj = function(&c, name);
        assert_eq!(atomics(adj), 0, "{example}:\n{adj}");
    }
    let c = transpile("own", "lenet");
    let adj = function(&c, "lenet5_b");
    // Max-pool: the first element of the window that reached the maximum gets the adjoint.
    assert!(adj.contains("the first iteration that reached the maximum"), "{adj}");
    assert!(adj.contains("relu2_b_(k, m_win_1, n_win_1, l) += maxpool2d2_output_b_(k, i, j, l);"), "{adj}");
    // Only the flattening reshape's adjoint (a permutation adjc cannot prove injective)
    // keeps an atomic; the biases and the ReLUs have none.
    assert_eq!(atomics(adj), 1, "{adj}");
    assert!(adj.contains("conv1bias_b[n] +="), "{adj}");
}
