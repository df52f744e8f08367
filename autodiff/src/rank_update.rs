//! Rank-k updates of one adjoint matrix in one pass: the `ger` calls (and the zero-fill)
//! that a reverse sweep applies to the same matrix become one element-wise map.
//!
//! Every matrix–vector product `y = α A·x` gives the adjoint update `A_b += α y_b ⊗ x`
//! (`blas.rs`), a `ger`: one read and one write of the whole of `A_b`. A matrix used in
//! several products gets several of them: atax's `(A @ x) @ A` two, gemver's
//! `A += ...; x += β y @ A + z; w += α A @ x` two more after the zero-fill of `A_b` (A's
//! seed is zero when only `w` is differentiated). Each is a pass over an N×N array where the
//! vectors involved are N long, so the matrix traffic is all the cost. Done as one map,
//!
//! ```text
//! A_b[i, j] = α dot_1_b[i] x[j] + β y[i] dot_b[j]      (gemver: fill + 2 gers, 1 pass instead of 3)
//! A_b[i, j] += ret_b[j] Ax[i] + Ax_b[i] x[j]           (atax: 2 gers, 1 pass instead of 2)
//! ```
//!
//! the matrix is read and written once (written only, after a fill). The map runs its
//! unit-stride axis innermost and vectorises; `emit` makes it a parallel loop like any map.
//!
//! ## When it applies
//!
//! Within one block, an **anchor** (a `ger` into a 2-D variable `V`, or a map that sets the
//! whole of a region of `V` to zero) is followed by the next statement that mentions `V`.
//! When that statement is a `ger` into the same region of `V` (same start, same extent per
//! axis of `V`; either operand layout), the anchor moves down next to it:
//!
//! * the statements in between that **depend** on the anchor (write what it reads, read or
//!   write what it writes; allocations, frees and tapes count as writes), and those that
//!   depend on them in turn, move after the `ger` instead, which is exact only when the
//!   `ger` itself does not depend on any of them (else nothing moves);
//! * the others keep their order and now run before the anchor, which is exact because by
//!   construction they neither depend on it nor on anything that moves past them.
//!
//! The gemver example: the first `ger` reads `dot_1_b`, which `dot_1_b = 0` (after the
//! adjoint's gemv) overwrites: the fill moves after the second `ger`. Then the adjacent run
//! (optional fill, two or more `ger`s) becomes one map: `=` after a fill, `+=` otherwise,
//! with the terms in the order of the calls. A single `ger` stays a library call.
//!
//! Index variables bound inside a statement (loop counters, map indices) are local to it
//! (the C declares them in the `for`), so they do not count as dependences.

use crate::util::{reads, same, writes, VarSet};
use adjc_ir::*;

/// `f` with adjacent rank-1 updates of one matrix merged into one map (module docs).
pub fn merge_rank_updates(f: &Function) -> Function {
    let mut out = f.clone();
    let mut body = std::mem::take(&mut out.body);
    let mut changed = false;
    rewrite_block(&mut out, &mut body, &mut changed);
    if changed {
        adjc_ir::proc::ids::settle(&mut body);
    }
    out.body = body;
    out
}

fn rewrite_block(f: &mut Function, b: &mut Block, changed: &mut bool) {
    for s in b.iter_mut() {
        for inner in s.blocks_mut() {
            rewrite_block(f, inner, changed);
        }
    }
    let mut p = 0;
    while p < b.len() {
        let Some(region) = anchor_region(f, &b[p]) else {
            p += 1;
            continue;
        };
        let (mut lo, mut hi) = (p, p);
        while let Some(q) = next_mention(b, hi + 1, region.var) {
            if ger_region(f, &b[q]).as_ref().is_none_or(|r| !r.same_as(&region)) {
                break;
            }
            match sink(b, lo, hi, q) {
                Some((l, h)) => (lo, hi) = (l, h),
                None => break,
            }
        }
        let gers = b[lo..=hi].iter().filter(|s| matches!(s.kind, StmtKind::Call(_))).count();
        if gers >= 2 || (gers == 1 && hi > lo) {
            let run: Block = b.drain(lo..=hi).collect();
            let merged = merge(f, &region, run);
            b.insert(lo, merged);
            *changed = true;
            p = lo + 1;
        } else {
            p = hi + 1;
        }
    }
}

/// The part of a 2-D variable a `ger` or a fill covers: per axis of the variable, the first
/// index and the number of indices.
#[derive(Clone, Debug)]
struct Region {
    var: VarId,
    start: [Expr; 2],
    extent: [Expr; 2],
}

impl Region {
    fn same_as(&self, o: &Region) -> bool {
        self.var == o.var
            && (0..2).all(|a| same_int(&self.start[a], &o.start[a]) && same_int(&self.extent[a], &o.extent[a]))
    }
}

/// Whether two integer expressions are equal: the same up to spans, or the same affine sum
/// (`1 + ni` and `ni + 1`, `(ni + 1) - 1` and `ni`: Fortran's bounds).
pub(crate) fn same_int(a: &Expr, b: &Expr) -> bool {
    use adjc_ir::proc::affine::Affine;
    same(a, b) || matches!((Affine::linear(a), Affine::linear(b)), (Some(x), Some(y)) if x.same_value(&y))
}

fn rank2(f: &Function, v: VarId) -> bool {
    matches!(&f.var(v).ty, Type::Array { dims, .. } if dims.len() == 2)
}

/// The region of a `ger` into a 2-D variable.
fn ger_region(f: &Function, s: &Stmt) -> Option<Region> {
    let StmtKind::Call(c) = &s.kind else { return None };
    if c.op != LibOp::Ger || !rank2(f, c.out) || c.out_view.start.len() != 2 || c.out_view.rank() != 2 {
        return None;
    }
    let v = &c.out_view;
    let ext = |a: usize| v.axes.iter().position(|x| *x == a).map(|k| v.extents[k].clone());
    Some(Region { var: c.out, start: [v.start[0].clone(), v.start[1].clone()], extent: [ext(0)?, ext(1)?] })
}

/// The region of a map that sets `V[i, j]` to zero for every `(i, j)` of a rectangle.
fn fill_region(f: &Function, s: &Stmt) -> Option<Region> {
    let StmtKind::Map(m) = &s.kind else { return None };
    let [d0, d1] = m.dims.as_slice() else { return None };
    let [st] = m.body.as_slice() else { return None };
    let StmtKind::Assign { target, value } = &st.kind else { return None };
    let own = |e: &Expr, d: &MapDim| matches!(e.kind, ExprKind::Var(x) if x == d.var);
    let is_own = target.index.len() == 2 && own(&target.index[0], d0) && own(&target.index[1], d1);
    let inner_bounds_free = !d1.start.vars().contains(&d0.var) && !d1.stop.vars().contains(&d0.var);
    if value.as_float() != Some(0.0) || !is_own || !inner_bounds_free || !rank2(f, target.var) {
        return None;
    }
    let extent = |d: &MapDim| d.stop.clone().sub(d.start.clone());
    Some(Region { var: target.var, start: [d0.start.clone(), d1.start.clone()], extent: [extent(d0), extent(d1)] })
}

fn anchor_region(f: &Function, s: &Stmt) -> Option<Region> {
    ger_region(f, s).or_else(|| fill_region(f, s))
}

/// `f` on `s` and every statement nested in it.
fn visit(s: &Stmt, f: &mut dyn FnMut(&Stmt)) {
    f(s);
    for b in s.blocks() {
        walk_stmts(b, f);
    }
}

/// Variables bound inside `s` (loop counters, map indices): local to it.
fn binders(s: &Stmt) -> VarSet {
    let mut out = VarSet::new();
    visit(s, &mut |t| match &t.kind {
        StmtKind::Loop(l) => {
            out.insert(l.var);
        }
        StmtKind::Map(m) => out.extend(m.dims.iter().map(|d| d.var)),
        _ => {}
    });
    out
}

/// What `s` writes (allocations, frees and tapes included) and what it mentions, without
/// its own index variables.
pub(crate) fn effects(s: &Stmt) -> (VarSet, VarSet) {
    let mut w = writes(s);
    visit(s, &mut |t| match &t.kind {
        StmtKind::Alloc(v) | StmtKind::Free(v) => {
            w.insert(*v);
        }
        StmtKind::Push { tape, .. } | StmtKind::Pop { tape, .. } => {
            w.insert(*tape);
        }
        _ => {}
    });
    let mut m = reads(s);
    m.extend(w.iter().copied());
    let local = binders(s);
    w.retain(|v| !local.contains(v));
    m.retain(|v| !local.contains(v));
    (w, m)
}

/// Whether running `a` and `b` in the other order could change anything.
pub(crate) fn depends(a: &(VarSet, VarSet), b: &(VarSet, VarSet)) -> bool {
    !a.0.is_disjoint(&b.1) || !b.0.is_disjoint(&a.1)
}

pub(crate) fn next_mention(b: &Block, from: usize, v: VarId) -> Option<usize> {
    (from..b.len()).find(|&k| effects(&b[k]).1.contains(&v))
}

/// Moves `b[lo..=hi]` down to just before `b[q]` (module docs); the new `(lo, hi)` of the
/// run that now ends with the old `b[q]`, or `None` (nothing moved) when that is not exact.
fn sink(b: &mut Block, lo: usize, hi: usize, q: usize) -> Option<(usize, usize)> {
    let unit: Vec<_> = b[lo..=hi].iter().map(effects).collect();
    let mut moved: Vec<(VarSet, VarSet)> = Vec::new();
    let mut after = vec![false; b.len()];
    for (k, flag) in after.iter_mut().enumerate().take(q).skip(hi + 1) {
        let e = effects(&b[k]);
        if unit.iter().chain(&moved).any(|u| depends(u, &e)) {
            moved.push(e);
            *flag = true;
        }
    }
    let target = effects(&b[q]);
    if moved.iter().any(|m| depends(m, &target)) {
        return None;
    }
    let mut tail: Vec<Stmt> = b.drain(lo..).collect();
    let rest = tail.split_off(q - lo + 1);
    let ger = tail.pop()?;
    let run: Vec<Stmt> = tail.drain(..=hi - lo).collect();
    let (mut stay, mut go) = (Vec::new(), Vec::new());
    for (k, s) in tail.into_iter().enumerate() {
        if after[hi + 1 + k] {
            go.push(s);
        } else {
            stay.push(s);
        }
    }
    let new_lo = lo + stay.len();
    let new_hi = new_lo + run.len();
    b.extend(stay);
    b.extend(run);
    b.push(ger);
    b.extend(go);
    b.extend(rest);
    Some((new_lo, new_hi))
}

/// One map for an adjacent run: an optional fill, then `ger`s into `region`.
fn merge(f: &mut Function, region: &Region, run: Block) -> Stmt {
    let (elem, layout) = match &f.var(region.var).ty {
        Type::Array { elem, layout, .. } => (*elem, *layout),
        Type::Scalar(s) => (*s, Layout::RowMajor),
    };
    let mut index = |base: &str| {
        let n = f.fresh_name(base);
        f.add_var(n, Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE)
    };
    let r = [index("i"), index("j")];
    let re = [Expr::var(r[0], Scalar::I64), Expr::var(r[1], Scalar::I64)];
    let filled = matches!(run.first().map(|s| &s.kind), Some(StmtKind::Map(_)));
    let mut value: Option<Expr> = None;
    let mut span = Span::NONE;
    for s in &run {
        let StmtKind::Call(c) = &s.kind else { continue };
        if span.is_none() {
            span = s.span;
        }
        // Operand element (p, q) of the call is the variable's element at offset r.
        let p = re[c.out_view.axes[0]].clone();
        let q = re[c.out_view.axes[1]].clone();
        let x = Expr::load(c.args[0], c.arg_views[0].index_of(std::slice::from_ref(&p)), elem);
        let y = Expr::load(c.args[1], c.arg_views[1].index_of(std::slice::from_ref(&q)), elem);
        let term = if c.alpha.as_float() == Some(1.0) { x.mul(y) } else { c.alpha.clone().mul(x).mul(y) };
        value = Some(match value {
            Some(v) => v.add(term),
            None => term,
        });
    }
    let value = value.unwrap_or_else(|| Expr::float(0.0, elem));
    let target = Place::element(region.var, (0..2).map(|a| region.start[a].clone().add(re[a].clone())).collect());
    let body = if filled { Stmt::assign(target, value, span) } else { Stmt::accumulate(target, value, span) };
    let dim = |a: usize| MapDim { var: r[a], start: Expr::int(0), stop: region.extent[a].clone() };
    // The unit-stride axis innermost.
    let dims = match layout {
        Layout::RowMajor => vec![dim(0), dim(1)],
        Layout::ColMajor => vec![dim(1), dim(0)],
    };
    let gers = run.iter().filter(|s| matches!(s.kind, StmtKind::Call(_))).count();
    let note = Note::RankUpdates { count: gers, var: f.var(region.var).name.clone(), from_zero: filled };
    Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims, body: vec![body] }), span).with_note(note)
}
