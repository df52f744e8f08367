//! The adjoint's loops in the order that walks memory forwards and along rows.
//!
//! Reversal runs every sequential loop of the forward function backwards, because in
//! general iteration `t` of the reverse sweep needs what iteration `t + 1` left. When the
//! iterations of a reversed loop are independent — by the rules that make a forward loop a
//! parallel map (`parallelize.rs`: each iteration owns its slice of every array it writes,
//! or only adds into it with `+=`; its scalars are private or reductions) — any order gives
//! the same sums, so the loop runs forwards: `range(last, first - 1, -1)` becomes
//! `range(first, last + 1)`, the order hardware prefetchers and vectorisers expect.
//!
//! In a perfect nest of two such loops whose inner bounds do not depend on the outer
//! counter, any interleaving of the iterations is also valid, so the loops are exchanged
//! when the outer counter indexes the unit-stride axis (the last one, row-major; the first,
//! column-major) of more accesses in the body than the inner one. syrk's adjoint
//! `for k: for j <= i: A_b[j, k] += alpha * A[i, k] * C_b[i, j]` walks column `k` of `A_b`
//! with stride `A_n1`; exchanged, the inner loop runs along rows and vectorises.
//!
//! In a perfect nest of sequential loops around one `+=` into an array its value does not
//! read, the loop along the unit-stride axis of most accesses moves innermost
//! ([`sink_unit_stride`]): conv2d's `input_b` becomes a dot over the output channel.
//!
//! Sums are reassociated (the same freedom a parallel map takes); every value is otherwise
//! unchanged.

use crate::parallelize::{iterations_commute, liveness};
use adjc_ir::eval::eval_int;
use adjc_ir::{AccOp, Block, Expr, ExprKind, Function, Layout, Loop, Stmt, StmtKind, Type, VarId};
use std::collections::BTreeSet;

type VarSet = BTreeSet<VarId>;

/// `f` with its independent reversed loops running forwards and its independent perfect
/// nests ordered for unit stride. Pure; valid IR in, valid IR out.
pub fn order_loops(f: &Function) -> Function {
    let mut out = f.clone();
    let live_end: VarSet = f.params.iter().map(|p| p.var).filter(|v| liveness::tracked(f, *v)).collect();
    out.body = block(f, f.body.clone(), &live_end);
    out
}

/// Rewrites `b`; `out`: scalars live right after it.
fn block(f: &Function, b: Block, out: &VarSet) -> Block {
    let mut outs = vec![VarSet::new(); b.len()];
    let mut live = out.clone();
    for (k, s) in b.iter().enumerate().rev() {
        outs[k] = live.clone();
        live = liveness::stmt(f, s, &live);
    }
    b.into_iter().zip(outs).map(|(s, o)| stmt(f, s, &o)).collect()
}

fn stmt(f: &Function, mut s: Stmt, out: &VarSet) -> Stmt {
    let mut exchanged = false;
    match &mut s.kind {
        StmtKind::Loop(l) => {
            let body_out = liveness::loop_fixpoint(f, &l.body, out);
            l.body = block(f, std::mem::take(&mut l.body), &body_out);
            if step(l) == Some(-1) && iterations_commute(f, l, out) {
                // range(start, stop, -1) visits start, start - 1, ..., stop + 1.
                let first = l.stop.clone().add(Expr::int(1));
                let last = l.start.clone().add(Expr::int(1));
                l.start = first;
                l.stop = last;
                l.step = Expr::int(1);
            }
            if let Some(swapped) = exchange(f, l, out, &body_out) {
                *l = swapped;
                exchanged = true;
            }
            if !exchanged {
                if let Some(sunk) = sink_unit_stride(f, &s) {
                    return sunk;
                }
            }
        }
        StmtKind::Map(m) => {
            let body_out = liveness::loop_fixpoint(f, &m.body, out);
            m.body = block(f, std::mem::take(&mut m.body), &body_out);
        }
        StmtKind::If { then_body, else_body, .. } => {
            *then_body = block(f, std::mem::take(then_body), out);
            *else_body = block(f, std::mem::take(else_body), out);
        }
        StmtKind::Section { body, .. } => *body = block(f, std::mem::take(body), out),
        _ => {}
    }
    if exchanged {
        // Each loop keeps its source line and note: they move with the counter.
        if let StmtKind::Loop(l) = &mut s.kind {
            if let Some(inner) = l.body.first_mut() {
                std::mem::swap(&mut s.span, &mut inner.span);
                std::mem::swap(&mut s.note, &mut inner.note);
            }
        }
    }
    s
}

fn step(l: &Loop) -> Option<i64> {
    eval_int(&l.step, &|_| None)
}

/// The nest `outer { inner { body } }` with the loops exchanged, when both run forwards with
/// independent iterations, the inner bounds do not read the outer counter, and the outer
/// counter indexes the unit-stride axis of more accesses.
fn exchange(f: &Function, outer: &Loop, out: &VarSet, body_out: &VarSet) -> Option<Loop> {
    let [only] = outer.body.as_slice() else { return None };
    let StmtKind::Loop(inner) = &only.kind else { return None };
    if step(outer) != Some(1) || step(inner) != Some(1) {
        return None;
    }
    let mentions_outer = |e: &Expr| e.vars().contains(&outer.var);
    if mentions_outer(&inner.start) || mentions_outer(&inner.stop) {
        return None;
    }
    if unit_stride_uses(f, &inner.body, outer.var) <= unit_stride_uses(f, &inner.body, inner.var) {
        return None;
    }
    if !iterations_commute(f, outer, out) || !iterations_commute(f, inner, body_out) {
        return None;
    }
    let new_inner = Loop { body: inner.body.clone(), ..outer.clone() };
    let stmt = Stmt { kind: StmtKind::Loop(new_inner), ..only.clone() };
    Some(Loop { body: vec![stmt], ..inner.clone() })
}

/// A perfect nest of sequential loops around one unshared `+=` whose value does not read
/// the array it adds into, with the loop whose counter indexes the unit-stride axis of the
/// most accesses moved innermost (conv2d's adjoint: `for m: for l: for n: for p:
/// input_b[k, m, n, p] += weights[m - i, n - j, p, l] * output_b[k, i, j, l]` becomes a dot
/// over `l`). Every iteration only adds a value that no iteration changes, so any order of
/// the iterations gives the same sums up to reassociation; the moved loop's bounds must not
/// read the counters it crosses, nor theirs its own.
fn sink_unit_stride(f: &Function, top: &Stmt) -> Option<Stmt> {
    let mut chain: Vec<&Stmt> = Vec::new();
    let mut cur = top;
    let update = loop {
        match &cur.kind {
            StmtKind::Loop(l) => {
                let [only] = l.body.as_slice() else { return None };
                chain.push(cur);
                cur = only;
            }
            StmtKind::Accumulate { target, op: AccOp::Add, shared: false, value } => {
                if value.mentions(target.var) || target.index.iter().any(|e| e.mentions(target.var)) {
                    return None;
                }
                break cur;
            }
            _ => return None,
        }
    };
    let loop_of = |s: &Stmt| match &s.kind {
        StmtKind::Loop(l) => Some(l.clone()),
        _ => None,
    };
    let loops: Vec<Loop> = chain.iter().map(|s| loop_of(s)).collect::<Option<_>>()?;
    if loops.len() < 2 || loops.iter().any(|l| step(l).is_none()) {
        return None;
    }
    let body = vec![update.clone()];
    let uses: Vec<usize> = loops.iter().map(|l| unit_stride_uses(f, &body, l.var)).collect();
    let last = loops.len() - 1;
    let (best, _) = uses.iter().enumerate().filter(|(_, u)| **u > uses[last]).max_by_key(|(k, u)| (**u, *k))?;
    let bounds = |l: &Loop| [l.start.clone(), l.stop.clone(), l.step.clone()];
    let crossed = &loops[best + 1..];
    let independent = crossed.iter().all(|c| {
        bounds(c).iter().all(|e| !e.mentions(loops[best].var))
            && bounds(&loops[best]).iter().all(|e| !e.mentions(c.var))
    });
    if !independent {
        return None;
    }
    let mut order: Vec<usize> = (0..loops.len()).filter(|k| *k != best).collect();
    order.push(best);
    let mut inner = update.clone();
    for &k in order.iter().rev() {
        let mut l = loops[k].clone();
        l.body = vec![inner];
        inner = Stmt { kind: StmtKind::Loop(l), ..chain[k].clone() };
    }
    Some(inner)
}

/// How many array accesses (reads and written places) in `b` have `v` in the index of
/// their unit-stride axis.
fn unit_stride_uses(f: &Function, b: &Block, v: VarId) -> usize {
    let unit = |var: VarId, index: &[Expr]| -> bool {
        let Type::Array { layout, .. } = &f.var(var).ty else { return false };
        let axis = match layout {
            Layout::RowMajor => index.last(),
            Layout::ColMajor => index.first(),
        };
        axis.is_some_and(|e| e.vars().contains(&v))
    };
    let mut n = 0;
    adjc_ir::walk_stmts(b, &mut |s| {
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } | StmtKind::Pop { target, .. } => {
                n += usize::from(unit(target.var, &target.index));
            }
            _ => {}
        }
        s.exprs(&mut |e| count_loads(e, &mut |var, idx| n += usize::from(unit(var, idx))));
    });
    n
}

fn count_loads(e: &Expr, hit: &mut dyn FnMut(VarId, &[Expr])) {
    match &e.kind {
        ExprKind::Load(v, idx) => {
            hit(*v, idx);
            idx.iter().for_each(|i| count_loads(i, hit));
        }
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => count_loads(a, hit),
        ExprKind::Binary(_, a, b) => {
            count_loads(a, hit);
            count_loads(b, hit);
        }
        ExprKind::Call(_, args) => args.iter().for_each(|a| count_loads(a, hit)),
        ExprKind::Select(c, a, b) => [c, a, b].into_iter().for_each(|x| count_loads(x, hit)),
        _ => {}
    }
}
