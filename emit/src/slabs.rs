//! A loop of gemms over consecutive slabs of arrays as one gemm per statement.
//!
//! A product of a stack of matrices with one matrix (doitgen's
//! `reshape(A, (NR, NQ, 1, NP)) @ C4`) reaches the C as a loop of small gemms, one per
//! matrix of the stack, and its adjoint as a reversed loop of the adjoint gemms and a zero
//! fill of the slab of the output's adjoint:
//!
//! ```text
//! for i:  gemm  dot[i] = A[i] @ C4                      (rows: NQ)
//! for i:  gemm  A_b[i] += dot_b[i] @ C4ᵀ;  gemm  C4_b += A[i]ᵀ @ dot_b[i];  dot_b[i] = 0
//! ```
//!
//! When slab `i + 1` starts where slab `i` ends (the looped axis comes right before the
//! gemm's axis, with only extent-1 axes between, and the gemm spans that axis whole), the
//! slabs of all iterations form one matrix with `trip × NQ` rows, and the loop is one gemm:
//! over more rows when the output and the first operand are slabs and the second operand
//! is the same at every iteration (`dot = A @ C4`), over a longer shared dimension when
//! both operands are slabs and the output is the same at every iteration and accumulated
//! (`C4_b += Aᵀ dot_b`, β = 1). One call instead of one per iteration: the blocked BLAS
//! gets the whole product (one parallel region, not one per slab).
//!
//! A loop of several statements is first split into one loop per statement, in order
//! (loop fission). That is exact when no statement reads what another statement writes at
//! a different iteration: every array written in the loop is only accessed at slab `i`,
//! at the same axis, by every statement (so different iterations touch disjoint slabs, and
//! each iteration's statements still run in order), or is the accumulated output of one
//! gemm that no other statement touches (the sum is the same in any order, up to
//! rounding). Statements other than gemms and zero fills of a slab keep the loop as it is.

use crate::ctx::FnCtx;
use adjc_ir::{Expr, ExprKind, Layout, LibCall, LibOp, Loop, Stmt, StmtKind, Type, VarId, View};

/// One statement of the loop after fission.
pub(crate) enum Piece<'a> {
    /// The loop's gemms, merged into one call; run when the loop has iterations. `stmt`
    /// is the statement it replaces (for its note).
    Call { call: LibCall, trips: Expr, stmt: &'a Stmt },
    /// A statement that stays in a loop of its own (a zero fill of slab `i`).
    Loop(&'a Stmt),
}

/// How an array is accessed by one statement of the loop.
#[derive(Clone, Copy, PartialEq)]
enum Access {
    /// Slab `i` at this axis of the variable.
    Slab(usize),
    /// The same elements at every iteration.
    Whole,
}

fn mentions(e: &Expr, v: VarId) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x.kind, ExprKind::Var(w) if w == v));
    found
}

fn is_var(e: &Expr, v: VarId) -> bool {
    matches!(e.kind, ExprKind::Var(w) if w == v)
}

/// The axis of view `w` of `x` that holds exactly the loop index, if no other start or
/// extent mentions it; `Some(None)` when nothing does; `None` otherwise.
fn slab_axis(w: &View, i: VarId) -> Option<Option<usize>> {
    if w.extents.iter().any(|e| mentions(e, i)) {
        return None;
    }
    let at: Vec<usize> = (0..w.start.len()).filter(|&d| mentions(&w.start[d], i)).collect();
    match at.as_slice() {
        [] => Some(None),
        [d] if is_var(&w.start[*d], i) => Some(Some(*d)),
        _ => None,
    }
}

/// Whether the slabs of operand view `w` of `x` (looped at variable axis `p`) are
/// consecutive along operand axis `m`: `m`'s variable axis `r` follows `p` with only
/// extent-1 axes between, starts at its lower bound and is spanned whole, and the other
/// operand axis is the variable's contiguous one.
fn consecutive(cx: &FnCtx, x: VarId, w: &View, p: usize, m: usize) -> bool {
    let Type::Array { dims, layout: Layout::RowMajor, .. } = &cx.f.var(x).ty else { return false };
    let (r, other) = (w.axes[m], w.axes[1 - m]);
    let text = |e: &Expr| crate::cexpr::expr(cx, e);
    other + 1 == dims.len()
        && p < r
        && r < other
        && (p + 1..r).all(|q| dims[q].extent.as_int() == Some(1))
        && text(&w.start[r]) == text(&dims[r].lower)
        && text(&w.extents[m]) == text(&dims[r].extent)
}

/// The loop's statements as merged gemms and single-statement loops, or `None` when the
/// loop must stay as it is (also when a bound, a scale factor or a view offset reads an
/// array the loop writes: after fission it would be read at another time).
pub(crate) fn split<'a>(cx: &FnCtx, l: &'a Loop) -> Option<Vec<Piece<'a>>> {
    let i = l.var;
    let step = l.step.as_int()?;
    // The iterations, as `trips` consecutive values from `lo`.
    let (lo, trips) = match step {
        1 => (l.start.clone(), l.stop.clone().sub(l.start.clone())),
        -1 => (l.stop.clone().add(Expr::int(1)), l.start.clone().sub(l.stop.clone())),
        _ => return None,
    };
    if mentions(&l.start, i) || mentions(&l.stop, i) {
        return None;
    }
    let mut accesses: Vec<(VarId, Access, bool, usize)> = Vec::new(); // (var, how, writes, statement)
    let mut pieces = Vec::new();
    let mut gemms = 0;
    for (k, s) in l.body.iter().enumerate() {
        match &s.kind {
            StmtKind::Call(c) if c.op == LibOp::Gemm => {
                if mentions(&c.alpha, i) || mentions(&c.beta, i) {
                    return None;
                }
                let out = slab_axis(&c.out_view, i)?;
                let a = slab_axis(&c.arg_views[0], i)?;
                let b = slab_axis(&c.arg_views[1], i)?;
                let mut call = c.clone();
                match (out, a, b) {
                    // dot[i] = A[i] @ C4: more rows.
                    (Some(po), Some(pa), None)
                        if consecutive(cx, c.out, &c.out_view, po, 0)
                            && consecutive(cx, c.args[0], &c.arg_views[0], pa, 0) =>
                    {
                        for w in [&mut call.out_view, &mut call.arg_views[0]] {
                            w.extents[0] = trips.clone().mul(w.extents[0].clone());
                        }
                        accesses.push((c.out, Access::Slab(po), true, k));
                        accesses.push((c.args[0], Access::Slab(pa), false, k));
                        accesses.push((c.args[1], Access::Whole, false, k));
                    }
                    // C4_b += A[i]ᵀ @ dot_b[i]: a longer shared dimension.
                    (None, Some(pa), Some(pb))
                        if c.beta.as_float() == Some(1.0)
                            && consecutive(cx, c.args[0], &c.arg_views[0], pa, 1)
                            && consecutive(cx, c.args[1], &c.arg_views[1], pb, 0) =>
                    {
                        call.arg_views[0].extents[1] = trips.clone().mul(call.arg_views[0].extents[1].clone());
                        call.arg_views[1].extents[0] = trips.clone().mul(call.arg_views[1].extents[0].clone());
                        accesses.push((c.out, Access::Whole, true, k));
                        accesses.push((c.args[0], Access::Slab(pa), false, k));
                        accesses.push((c.args[1], Access::Slab(pb), false, k));
                    }
                    _ => return None,
                }
                let at_lo = |w: &mut View| w.start = w.start.iter().map(|e| e.substitute(i, &lo)).collect();
                at_lo(&mut call.out_view);
                call.arg_views.iter_mut().for_each(at_lo);
                gemms += 1;
                pieces.push(Piece::Call { call, trips: trips.clone(), stmt: s });
            }
            // A zero fill of slab i: `for ...: X[..., i, ...] = 0`.
            StmtKind::Map(m) => {
                let [one] = m.body.as_slice() else { return None };
                let StmtKind::Assign { target, value } = &one.kind else { return None };
                if value.as_float() != Some(0.0) || m.dims.iter().any(|d| mentions(&d.start, i) || mentions(&d.stop, i))
                {
                    return None;
                }
                let at: Vec<usize> = (0..target.index.len()).filter(|&d| mentions(&target.index[d], i)).collect();
                let [p] = at.as_slice() else { return None };
                if !is_var(&target.index[*p], i) {
                    return None;
                }
                accesses.push((target.var, Access::Slab(*p), true, k));
                pieces.push(Piece::Loop(s));
            }
            _ => return None,
        }
    }
    if gemms == 0 {
        return None;
    }
    // The bounds and the scalars of the calls (alpha, beta, view offsets and extents) are
    // evaluated once per piece after fission: none may read an array the loop writes.
    let written: Vec<VarId> = accesses.iter().filter(|a| a.2).map(|a| a.0).collect();
    let reads_written = |e: &Expr| {
        let mut found = false;
        e.walk(&mut |x| found |= matches!(&x.kind, ExprKind::Var(v) | ExprKind::Load(v, _) if written.contains(v)));
        found
    };
    let mut scalars: Vec<&Expr> = vec![&l.start, &l.stop];
    for s in &l.body {
        match &s.kind {
            StmtKind::Call(c) => {
                scalars.extend([&c.alpha, &c.beta]);
                for w in std::iter::once(&c.out_view).chain(&c.arg_views) {
                    scalars.extend(w.start.iter().chain(&w.extents));
                }
            }
            StmtKind::Map(m) => {
                for d in &m.dims {
                    scalars.extend([&d.start, &d.stop]);
                }
            }
            _ => {}
        }
    }
    if scalars.into_iter().any(reads_written) {
        return None;
    }
    // Fission is exact when every written array is accessed at the same slab axis by every
    // statement, or is the accumulated output of one statement alone.
    for (v, how, writes, k) in &accesses {
        if !writes {
            continue;
        }
        for (w, how2, _, k2) in &accesses {
            if w != v {
                continue;
            }
            let ok = match how {
                Access::Slab(_) => how2 == how,
                Access::Whole => k2 == k,
            };
            if !ok {
                return None;
            }
        }
    }
    Some(pieces)
}
