//! `merge_rank_updates`: which `ger` runs (with a zero-fill) into one matrix become one map,
//! what moves to make them adjacent, and proof in the reference interpreter (map iterations
//! in both orders, race detection) that the merged block computes what the calls did. The
//! refused case is a dependence that a wrong reordering would break (the second `ger` reads
//! a vector that a statement moved past it overwrites): the test fails on a wrong merge.

mod common;

use adjc_autodiff::rank_update::merge_rank_updates;
use adjc_ir::{walk_stmts, Expr, Function, Intent, LibCall, LibOp, Note, Scalar, Span, Stmt, StmtKind, VarId, View};
use common::builder::*;
use common::check::assert_rewrite_keeps_results;

fn text(f: &Function) -> String {
    adjc_ir::print::print_function(f)
}

fn count(f: &Function, what: impl Fn(&Stmt) -> bool) -> usize {
    let mut n = 0;
    walk_stmts(&f.body, &mut |s| n += what(s) as usize);
    n
}

fn gers(f: &Function) -> usize {
    count(f, |s| matches!(&s.kind, StmtKind::Call(c) if c.op == LibOp::Ger))
}

fn merged(f: &Function) -> usize {
    count(f, |s| s.note.as_ref().is_some_and(|n| n.any(|p| matches!(p, Note::RankUpdates { .. }))))
}

fn ger(out: VarId, out_view: View, x: (VarId, View), y: (VarId, View), alpha: f64) -> Stmt {
    Stmt::new(
        StmtKind::Call(LibCall {
            op: LibOp::Ger,
            out,
            out_view,
            args: vec![x.0, y.0],
            arg_views: vec![x.1, y.1],
            alpha: f64c(alpha).0,
            beta: f64c(1.0).0,
        }),
        Span::NONE,
    )
}

/// `G[1:, 2:] (+)= ...`: a fill of `G` (optional), `ger(u, x)`, then `u = 3` (moves past the
/// second update), `s += x[0]` (unrelated, stays), then `ger(second, y)` into the transposed
/// window `G[1:, 2:].T`, where `second` is `v` or `u`.
fn chain(fill: bool, second_reads_u: bool) -> Function {
    let mut b = B::new("chain");
    let (n, m) = (b.size("N"), b.size("M"));
    let g = b.param("G", array(Scalar::F64, vec![b.v(n), b.v(m)]), Intent::InOut);
    let u = b.param("u", array(Scalar::F64, vec![b.v(n)]), Intent::InOut);
    let v = b.param("v", array(Scalar::F64, vec![b.v(m)]), Intent::In);
    let x = b.param("x", array(Scalar::F64, vec![b.v(m)]), Intent::In);
    let y = b.param("y", array(Scalar::F64, vec![b.v(n)]), Intent::In);
    let s = b.param("s", array(Scalar::F64, vec![int(1)]), Intent::InOut);
    let (i, j, k, l) = (b.index("i"), b.index("j"), b.index("k"), b.index("l"));
    let n1 = b.v(n).0.sub(Expr::int(1));
    let m2 = b.v(m).0.sub(Expr::int(2));
    let window =
        View { start: vec![Expr::int(1), Expr::int(2)], axes: vec![0, 1], extents: vec![n1.clone(), m2.clone()] };
    let vec_view = |start: i64, len: Expr| View { start: vec![Expr::int(start)], axes: vec![0], extents: vec![len] };
    let mut body = Vec::new();
    if fill {
        body.push(map(
            vec![(i, int(1), b.v(n)), (j, int(2), b.v(m))],
            vec![assign(at(g, vec![b.v(i), b.v(j)]), f64c(0.0))],
        ));
    }
    body.push(ger(g, window.clone(), (u, vec_view(0, n1.clone())), (x, vec_view(1, m2.clone())), 0.5));
    body.push(map(vec![(k, int(0), b.v(n))], vec![assign(at(u, vec![b.v(k)]), f64c(3.0))]));
    body.push(map(
        vec![(l, int(0), int(1))],
        vec![acc(at(s, vec![int(0)]), adjc_ir::AccOp::Add, b.ld(x, vec![int(0)]), false)],
    ));
    let second = if second_reads_u { (u, vec_view(1, m2.clone())) } else { (v, vec_view(0, m2.clone())) };
    body.push(ger(g, window.t(), second, (y, vec_view(1, n1)), 2.0));
    b.finish(body)
}

fn merge(f: &Function) -> Function {
    let g = merge_rank_updates(f);
    adjc_ir::validate::validate(&g).unwrap_or_else(|e| panic!("invalid after merge: {e}\n{}", text(&g)));
    g
}

#[test]
fn two_updates_of_one_window_are_one_map() {
    let f = chain(false, false);
    let g = merge(&f);
    assert_eq!((gers(&g), merged(&g)), (0, 1), "{}", text(&g));
    assert!(text(&g).contains("+="), "{}", text(&g));
    assert_rewrite_keeps_results(&f, &g, &[("N", 5), ("M", 7)], "rank_update", (-1.0, 1.0));
}

#[test]
fn a_fill_and_two_updates_are_one_assignment() {
    let f = chain(true, false);
    let g = merge(&f);
    assert_eq!((gers(&g), merged(&g)), (0, 1), "{}", text(&g));
    assert!(text(&g).contains("(from zero)"), "{}", text(&g));
    assert_rewrite_keeps_results(&f, &g, &[("N", 5), ("M", 7)], "rank_update", (-1.0, 1.0));
}

/// The second update reads `u` after `u = 3`: the first cannot move past `u = 3`'s writer,
/// nor `u = 3` past the second update. Nothing merges, and the function is unchanged.
#[test]
fn an_update_reading_what_a_moved_statement_writes_is_left_alone() {
    let f = chain(false, true);
    let g = merge(&f);
    assert_eq!((gers(&g), merged(&g)), (2, 0), "{}", text(&g));
    assert_eq!(text(&f), text(&g));
    // The merge the rule refuses would compute something else: moving `u = 3` after both
    // updates changes G (the second update would read the old u).
    let mut wrong = f.clone();
    let moved = wrong.body.remove(1);
    wrong.body.push(moved);
    let args = common::check::random_inputs(&f, &[("N", 6), ("M", 7)], 1, -1.0, 1.0);
    let (mut want, mut got) = (args.clone(), args);
    common::interp::run(&f, &mut want, Default::default()).unwrap();
    common::interp::run(&wrong, &mut got, Default::default()).unwrap();
    assert_ne!(format!("{want:?}"), format!("{got:?}"), "the reordering should be observable");
}
