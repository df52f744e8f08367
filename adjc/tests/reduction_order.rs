//! Broadcast-sum reductions into rows (autodiff/src/reduction_order.rs): in conv2d_bias's
//! forward function and in its adjoint's forward sweep, the output element is zero-filled
//! first and the innermost loop of the reduction nest runs over the output channel, the
//! unit-stride axis of `output` and `weights`; the adjoint of `input` is a dot over that
//! channel (loop_order.rs sinks it innermost), summed in a local (element_sum.rs). The gradients of the convolution kernels still
//! pass `adjc check` serial and with OpenMP.

mod common;

use common::{adjc, check_example, examples, scratch, text};

/// The loop header that encloses the first line of `c` containing `needle`, innermost first.
fn innermost_loop_of(c: &str, needle: &str) -> String {
    let mut open: Vec<String> = Vec::new();
    for l in c.lines() {
        let t = l.trim();
        if t.contains(needle) {
            return open.last().cloned().unwrap_or_default();
        }
        if t.starts_with('}') {
            open.pop();
        }
        if t.ends_with('{') {
            open.push(t.to_string());
        }
    }
    panic!("no `{needle}` in\n{c}");
}

#[test]
fn conv2d_accumulates_along_the_output_channel() {
    let dir = scratch("reduction-order-conv2d");
    let out = adjc(&["transpile", "examples/python/conv2d_bias.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("conv2d_bias.c")).unwrap();
    for name in ["conv2d_bias", "conv2d_bias_b"] {
        let start = c.find(&format!("\nint {name}(")).unwrap_or_else(|| panic!("no {name} in\n{c}"));
        let f = &c[start..];
        let f = &f[..f.find("\n}\n").unwrap_or(f.len())];
        // The C writes the row in register tiles (emit/src/sum_tiles.rs, tests/sum_tiles.rs)
        // and the channels past the last tile as the IR has them: that remainder shows the
        // order this pass chose.
        let update = innermost_loop_of(f, "output_(k, i, j, l) +=");
        assert_eq!(update, "for (int64_t l = l_tile; l < C_out; l++) {", "{name}:\n{f}");
        let fill = innermost_loop_of(f, "output_(k, i, j, l) = 0.0;");
        assert_eq!(fill, "for (int64_t l = l_tile; l < C_out; l++) {", "{name}:\n{f}");
        // The zero-fill comes before the reduction loops, not inside them.
        let fill_at = f.find("output_(k, i, j, l) = 0.0;").unwrap();
        let m_at = fill_at + f[fill_at..].find("for (int64_t m = i; m < K + i; m++) {").unwrap();
        let update_at = f.find("output_(k, i, j, l) +=").unwrap();
        assert!(fill_at < m_at && m_at < update_at, "{name}:\n{f}");
        let tile = innermost_loop_of(f, "output_sum[l - l_tile] +=");
        assert_eq!(tile, "for (int64_t l = l_tile; l < l_tile + ADJC_SUM_TILE; l++) {", "{name}:\n{f}");
    }
    // The adjoint of the input is a dot over the output channel (autodiff/src/loop_order.rs),
    // summed in a local as a vector reduction (autodiff/src/element_sum.rs).
    let start = c.find("\nint conv2d_bias_b(").unwrap();
    let dot = innermost_loop_of(&c[start..], "input_b_sum += weights_(m - i, n - j, p, l)");
    assert_eq!(dot, "for (int64_t l = 0; l < C_out; l++) {", "{c}");
    assert!(c[start..].contains("ADJC_OMP(simd reduction(+:input_b_sum))"), "{c}");
    assert!(c[start..].contains("input_b_(k, m, n, p) += input_b_sum;"), "{c}");
}

#[test]
fn convolution_gradients_pass_the_check() {
    let wanted = ["conv2d_bias.py", "resnet.py", "lenet.py"];
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
