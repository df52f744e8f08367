//! Numerical verification of adjoints (dot-product test against central finite
//! differences) on hand-built primal functions, run by the reference interpreter.

mod common;

use common::check::check;
use common::interp::Value;
use common::kernels as k;

fn n(v: i64) -> (&'static str, Value) {
    ("N", Value::Int(v))
}

fn m(v: i64) -> (&'static str, Value) {
    ("M", Value::Int(v))
}

fn text(ad: &adjc_autodiff::Adjoint) -> String {
    adjc_ir::print::print_function(&ad.function)
}

#[test]
fn elementwise_exp_sin() {
    check(&k::elementwise(), &[n(7)]);
}

#[test]
fn three_point_stencil_shares_accumulations() {
    for nonlinear in [false, true] {
        let t = text(&check(&k::stencil(nonlinear), &[n(9)]));
        assert!(t.contains("A_b[i - 1] +="), "{t}");
        assert!(t.contains("shared"), "stencil accumulations must be shared:\n{t}");
    }
}

#[test]
fn in_place_square() {
    let t = text(&check(&k::square(), &[n(6)]));
    assert!(t.contains("A_tape"), "the old A must be taped:\n{t}");
}

#[test]
fn full_sum_reduction() {
    check(&k::total(), &[n(4), m(3)]);
}

#[test]
fn axis_max_reduction() {
    check(&k::rowmax(), &[n(5), m(4)]);
}

#[test]
fn full_max_reduction() {
    check(&k::biggest(), &[n(4), m(3)]);
}

#[test]
fn loop_carried_scalar_product() {
    check(&k::product(false), &[n(6)]);
    check(&k::product(true), &[n(5)]);
}

#[test]
fn jacobi_1d_time_loop() {
    let t = text(&check(&k::jacobi_1d(false), &[n(8), ("TSTEPS", Value::Int(4))]));
    assert!(!t.contains("tape"), "a linear stencil needs no tape:\n{t}");
    let t = text(&check(&k::jacobi_1d(true), &[n(8), ("TSTEPS", Value::Int(4))]));
    assert!(t.contains("B_tape[t - 1, i - 1] = B[i]"), "the nonlinear stencil needs B taped:\n{t}");
    // No time step at all: neither sweep runs the loop.
    check(&k::jacobi_1d(true), &[n(8), ("TSTEPS", Value::Int(1))]);
    check(&k::jacobi_1d(true), &[n(8), ("TSTEPS", Value::Int(-3))]);
}

#[test]
fn map_with_private_scalar() {
    check(&k::private_scalar(), &[n(5)]);
}

#[test]
fn scalar_broadcast_into_map() {
    let t = text(&check(&k::axpy(), &[n(6)]));
    assert!(t.contains("alpha_b +="), "{t}");
}

#[test]
fn recurrence_in_loop() {
    check(&k::recurrence(), &[n(6)]);
}

#[test]
fn loops_with_steps() {
    for (start, stop, step) in
        [(10, 0, -1), (9, -1, -2), (0, 9, 2), (1, 10, 3), (0, 0, 1), (5, 9, -2), (2, 3, 4), (7, 2, 1)]
    {
        check(&k::stepped(start, stop, step), &[n(12)]);
    }
}

#[test]
fn branches_reevaluated_and_taped() {
    let t = text(&check(&k::branchy(), &[n(8)]));
    assert!(t.contains("branch_tape"), "{t}");
}

#[test]
fn float32_kernel() {
    let t = text(&check(&k::float32(), &[n(4)]));
    assert!(t.contains("f32"), "{t}");
    assert!(!t.contains(" 2.0 "), "constants keep type f32:\n{t}");
}

#[test]
fn local_temporary_array() {
    check(&k::temporary(), &[n(5)]);
}

#[test]
fn min_and_mul_accumulations_in_loops() {
    check(&k::accumulations(), &[n(6)]);
}

#[test]
fn map_needing_per_iteration_values_runs_sequentially() {
    let t = text(&check(&k::row_product(), &[n(4), m(5)]));
    assert!(t.contains("run sequentially"), "{t}");
    assert!(t.contains("p_tape[i, k] = p"), "{t}");
}

#[test]
fn max_over_two_axes_stays_parallel() {
    let t = text(&check(&k::pool(), &[n(3), m(4)]));
    assert!(!t.contains("push"), "{t}");
    assert!(t.contains("p_win") && t.contains("q_win"), "{t}");
}

#[test]
fn max_into_existing_values() {
    check(&k::max_into(), &[n(4), m(3)]);
}

#[test]
fn sequential_max_at_top_level() {
    let t = text(&check(&k::seq_max(), &[n(7)]));
    assert!(t.contains("k_win"), "{t}");
}

#[test]
fn integer_counter_is_taped() {
    let t = text(&check(&k::counter(), &[n(6)]));
    assert!(t.contains("j_tape[k] = j"), "{t}");
}

#[test]
fn ifs_inside_a_map() {
    let t = text(&check(&k::map_if(), &[n(9)]));
    assert!(t.contains("branch = t > 2.5"), "the decision on t is recomputed:\n{t}");
}

#[test]
fn non_injective_writes_tape_the_whole_array() {
    check(&k::interleaved(), &[("H", Value::Int(4)), ("T", Value::Int(3))]);
}

#[test]
fn product_reduction_in_a_map() {
    check(&k::shared_product(), &[n(6)]);
}

#[test]
fn matmul_with_inner_loop() {
    let t = text(&check(&k::matmul(), &[n(3), ("K", Value::Int(4)), m(2)]));
    assert!(!t.contains("push") && !t.contains("tape"), "{t}");
}

#[test]
fn softmax_rows() {
    check(&k::softmax(), &[n(3), m(5)]);
}

#[test]
fn output_written_in_part() {
    check(&k::partial_output(), &[n(6)]);
}

#[test]
fn time_loop_with_scalar_feedback() {
    check(&k::time_loop_scalar(), &[n(5), ("T", Value::Int(3))]);
}

#[test]
fn fortran_layout_and_lower_bounds() {
    check(&k::fortran_layout(), &[("n", Value::Int(5))]);
}

#[test]
fn gather_scatters_shared_adjoints() {
    let idx = Value::IntArray(vec![3, 0, 3, 1, 4, 2]);
    let t = text(&check(&k::gather(), &[n(6), ("idx", idx)]));
    assert!(t.contains("x_b[idx[i]] +=") && t.contains("shared"), "{t}");
}

#[test]
fn fortran_inout_and_out_scalars() {
    check(&k::fortran_scalars(), &[("n", Value::Int(5))]);
}

/// A library call that overwrites an output region an earlier call's adjoint still needs
/// (the gemm into `T` again, after the ger and the dot read `T`): the region is taped
/// before the call and restored in the reverse sweep.
#[test]
fn library_call_overwriting_a_needed_output_tapes_it() {
    let mut f = k::blas_chain();
    let again = f.body[1].clone();
    f.body.push(again);
    let ad = check(&f, &[n(4), ("K", Value::Int(3)), m(5)]);
    let t = text(&ad);
    assert!(t.contains("T_tape"), "{t}");
}

#[test]
fn library_calls_have_library_call_adjoints() {
    let ad = check(&k::blas_chain(), &[n(4), ("K", Value::Int(3)), m(5)]);
    let t = text(&ad);
    // gemm: A_b += T_b @ B, B_b += T_b.T @ A (B enters transposed); gemv: A_b += outer(y_b, x),
    // x_b += A.T @ y_b; ger: y_b += T_b @ B[:, 1], B_b[:, 1] += T_b.T @ y.
    for want in [
        "A_b[0:N, 0:K] = 1.0 * gemm(T_b[0:N, 0:M], B[0:M, 0:K]) + 1.0 * A_b[0:N, 0:K]",
        "B_b[0:M, 0:K].T = 1.0 * gemm(A[0:N, 0:K].T, T_b[0:N, 0:M]) + 1.0 * B_b[0:M, 0:K].T",
        "A_b[0:N, 0:K] = 2.0 * ger(y_b[0:N], x[0:K]) + 1.0 * A_b[0:N, 0:K]",
        "x_b[0:K] = 2.0 * gemv(A[0:N, 0:K].T, y_b[0:N]) + 1.0 * x_b[0:K]",
        "y_b[0:N] = 0.5 * gemv(T_b[0:N, 0:M], B[0:M, 1]) + 1.0 * y_b[0:N]",
        "B_b[0:M, 1] = 0.5 * gemv(T_b[0:N, 0:M].T, y[0:N]) + 1.0 * B_b[0:M, 1]",
    ] {
        assert!(t.contains(want), "missing `{want}` in\n{t}");
    }
    // No element loops other than the dot adjoint, the seed scaling and the tape copies.
    assert!(!t.contains("loop"), "{t}");
}

#[test]
fn softmax_with_an_intermediate_as_output() {
    // The expert rule ignores the adjoints of e, the max and the sum: it must not apply
    // when the caller seeds one of them.
    for exposed in ["none", "ret", "e", "mx", "s"] {
        check(&k::softmax_exposed(exposed), &[n(3), m(4)]);
    }
}

#[test]
fn dot_into_array_elements() {
    let t = text(&check(&k::dot_into_elements(), &[n(4), ("K", Value::Int(3))]));
    assert!(t.contains("y_b[i] = y_b[i] * 0.5"), "{t}");
}
