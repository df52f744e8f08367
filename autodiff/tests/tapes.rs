//! One test per tape rule: what is saved, in what form, and how big it is (the formula of
//! the tape report), on kernels whose gradients the dot-product test also checks.

mod common;

use adjc_autodiff::{Adjoint, TapeInfo, TapeKind};
use adjc_ir::{walk_stmts, StmtKind};
use common::check::check;
use common::interp::Value;
use common::kernels as k;

fn text(ad: &Adjoint) -> String {
    adjc_ir::print::print_function(&ad.function)
}

fn tape<'a>(ad: &'a Adjoint, name: &str) -> &'a TapeInfo {
    ad.tapes.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tape {name}:\n{}", text(ad)))
}

fn elems(ad: &Adjoint, t: &TapeInfo) -> String {
    adjc_ir::print::expr_str(&ad.function, t.elems.as_ref().expect("a formula"))
}

fn pushes_or_pops(ad: &Adjoint) -> usize {
    let mut n = 0;
    walk_stmts(&ad.function.body, &mut |s| {
        n += matches!(s.kind, StmtKind::Push { .. } | StmtKind::Pop { .. }) as usize
    });
    n
}

fn n(v: i64) -> (&'static str, Value) {
    ("N", Value::Int(v))
}

#[test]
fn a_value_no_adjoint_reads_gets_no_tape() {
    // A linear stencil time loop: the adjoint reads no primal value, so nothing is saved.
    let ad = check(&k::jacobi_1d(false), &[n(8), ("TSTEPS", Value::Int(4))]);
    assert!(ad.tapes.is_empty(), "{:?}\n{}", ad.tapes, text(&ad));
    assert!(!text(&ad).contains("tape"), "{}", text(&ad));
    assert!(!ad.function.notes.iter().any(|n| n.starts_with("extra memory")), "{:?}", ad.function.notes);
}

#[test]
fn a_region_tape_saves_the_region_not_the_array() {
    let ad = check(&k::jacobi_1d(true), &[n(8), ("TSTEPS", Value::Int(4))]);
    let t = tape(&ad, "B_tape");
    assert_eq!(t.what, "B[1:-1]");
    assert_eq!(t.kind, TapeKind::Array);
    assert!(t.exact);
    // One row per time step, N - 2 elements per row (not N).
    assert_eq!(elems(&ad, t), "max(0, TSTEPS - 1) * max(0, N - 2)");
    let ir = text(&ad);
    assert!(ir.contains("var B_tape: f64[max(0, TSTEPS - 1), max(0, N - 2)] (tape)"), "{ir}");
    assert!(ir.contains("B_tape[t - 1, i - 1] = B[i]"), "indexed relative to the region start:\n{ir}");
    assert!(
        ad.function.notes.iter().any(|n| n == "extra memory: B_tape: 8 * max(0, TSTEPS - 1) * max(0, N - 2) bytes"),
        "{:?}",
        ad.function.notes
    );
    // The same for a row of a matrix inside a loop.
    let ad = check(&k::rows(), &[n(5), ("M", Value::Int(6))]);
    let t = tape(&ad, "A_tape");
    assert_eq!(t.what, "A[i, 1:-1]");
    assert_eq!(elems(&ad, t), "max(0, N - 1) * max(0, M - 2)");
}

#[test]
fn a_closed_form_loop_tape_is_an_array_without_push_or_pop() {
    // `p = p * x[k]` is loop-carried: one saved value per iteration, in an array of N.
    let ad = check(&k::product(false), &[n(6)]);
    let t = tape(&ad, "p_tape");
    assert_eq!((t.kind, t.exact), (TapeKind::Array, true));
    assert_eq!(elems(&ad, t), "N");
    assert_eq!(pushes_or_pops(&ad), 0, "{}", text(&ad));
    assert!(text(&ad).contains("p = p_tape[k]"), "{}", text(&ad));
    // Decisions of `if`s are taped the same way.
    let ad = check(&k::branchy(), &[n(8)]);
    let t = tape(&ad, "branch_tape");
    assert_eq!((t.kind, t.elem, elems(&ad, t).as_str()), (TapeKind::Array, adjc_ir::Scalar::Bool, "N"));
    assert_eq!(pushes_or_pops(&ad), 0, "{}", text(&ad));
}

#[test]
fn a_triangular_loop_tape_takes_exactly_the_triangle() {
    // Row i saves i values: the rows are laid end to end, row i starting at i (i - 1) / 2.
    let ad = check(&k::triangular(false), &[n(5)]);
    let t = tape(&ad, "A_tape");
    assert_eq!((t.kind, t.exact), (TapeKind::Array, true));
    assert_eq!(elems(&ad, t), "N * (N - 1) / 2");
    assert_eq!(pushes_or_pops(&ad), 0, "{}", text(&ad));
    assert!(text(&ad).contains("A_tape[i * (i - 1) / 2 + j] = A[i, j]"), "{}", text(&ad));
    // Another loop in between: sized for the largest row instead.
    let ad = check(&k::triangular(true), &[n(5)]);
    let t = tape(&ad, "A_tape");
    assert_eq!((t.kind, t.exact), (TapeKind::Array, false));
    assert_eq!(elems(&ad, t), "N * 2 * max(0, N - 1)");
    assert!(text(&ad).contains("depends on `i`: sized for its largest value"), "{}", text(&ad));
}

#[test]
fn a_trip_count_without_closed_form_uses_a_stack_and_says_why() {
    let ad = check(&k::square_trips(), &[n(4)]);
    let t = tape(&ad, "p_tape");
    assert_eq!((t.kind, &t.elems), (TapeKind::Stack, &None));
    let ir = text(&ad);
    assert!(ir.contains("# stack tape: the trip count of `j` depends on `i`"), "{ir}");
    assert!(ir.contains("push p_tape <- p"), "{ir}");
}

#[test]
fn a_value_that_depends_on_nothing_loop_carried_is_recomputed() {
    let ad = check(&k::recomputable(), &[n(7)]);
    let names: Vec<&str> = ad.tapes.iter().map(|t| t.name.as_str()).collect();
    assert!(!names.iter().any(|n| n.starts_with("c_") || n.starts_with("z_")), "{names:?}\n{}", text(&ad));
    let recomputed: Vec<&str> = ad.recomputed.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(recomputed, ["c", "z"]);
    let ir = text(&ad);
    assert!(ir.contains("# recomputed: `c` (line 2) is not taped"), "{ir}");
    assert!(ir.contains("c = a[k] * 2.0  # 2"), "{ir}");
    // The recurrence itself still needs its old values.
    assert_eq!(tape(&ad, "y_tape").what, "y[k]");
    // A loop-carried scalar is not recomputed.
    let ad = check(&k::product(false), &[n(6)]);
    assert!(ad.recomputed.is_empty());
}

#[test]
fn an_output_restored_by_one_tape_needs_no_snapshot() {
    // The tape keeps the forward result when the reverse sweep restores A (a swap) and
    // gives it back at the end: no `A_final` copy of the whole array.
    for ad in [check(&k::square(), &[n(6)]), check(&k::triangular(false), &[n(5)])] {
        assert!(!ad.tapes.iter().any(|t| t.name.ends_with("_final")), "{}", text(&ad));
        assert!(text(&ad).contains("A_tape kept it"), "{}", text(&ad));
    }
    // The same region in every time step: the last step's slot holds the result.
    let ad = check(&k::jacobi_1d(true), &[n(8), ("TSTEPS", Value::Int(4))]);
    let ir = text(&ad);
    assert!(ir.contains("B[i] = B_tape[TSTEPS - 2, i - 1]"), "{ir}");
    // `y[j]` with `j` a counter the kernel computes: which slot ends up holding which
    // element is unknown, so the snapshot stays.
    let ad = check(&k::counter(), &[n(6)]);
    assert!(ad.tapes.iter().any(|t| t.name == "y_final"), "{}", text(&ad));
}
