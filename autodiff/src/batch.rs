//! Rank-1 and matrix–vector adjoint updates of one loop, batched into one `gemm` after it.
//!
//! A loop of matrix–vector products over the columns of one matrix, such as covariance's
//! `for i: c[i, i:] = X[:, i] @ X[:, i:]`, has per iteration a `ger` and a `gemv` in its
//! adjoint, both adding into `X_b`:
//!
//! ```text
//! X_b[r, c0(i) + q] += α X[r, g(i)] v[q]         (ger: a column of X times a vector)
//! X_b[r, g(i)]      += α Σ_q X[r, c0(i) + q] v[q] (gemv: a window of X times a vector)
//! ```
//!
//! for `r` in one row range `R`. Both are a product of `X[R, :]` with a sparse matrix:
//! the loop only records `W[g(i), c0(i) + q] += α v[q]` (ger) or `W[c0(i) + q, g(i)] += α v[q]`
//! (gemv) into a square work array `W` (as many rows and columns as `X` has columns, zero
//! before the loop), and one `X_b[R, :] += X[R, :] @ W` after the loop does every update:
//! `(X W)[r, c] = Σ_k X[r, k] W[k, c]`. That is BLAS-3 work in place of a memory-bound
//! `ger` per iteration (JAX's `vjp` of the same loop is a product too).
//!
//! Moving the updates after the loop is exact because they are sums and nothing between
//! them reads the sums: the pass only applies when no other statement of the loop mentions
//! `X_b`, the loop writes no element of `X` (so `X` after the loop is `X` at every
//! iteration), and the row range depends on nothing the loop changes. `W` is written where
//! the calls were, so `g`, `c0`, `α` and `v` are read when they were. A loop inside a
//! parallel map is left alone (its iterations would share `W`), and so is a loop whose
//! column `g(i)` does not move by one per iteration (few iterations over a wide matrix would
//! make the product dearer than the updates).

use crate::affine::Affine;
use crate::util::{block_writes, expr_vars, same, stmt_mentions};
use adjc_ir::*;

/// Applies the batching to every eligible loop of `f`'s body.
pub(crate) fn batch_updates(f: &mut Function) {
    let mut body = std::mem::take(&mut f.body);
    let mut work = Vec::new();
    walk(f, &mut body, &mut work);
    f.body = crate::util::around_work_arrays(body, &work);
}

fn walk(f: &mut Function, block: &mut Block, work: &mut Vec<VarId>) {
    let mut k = 0;
    while k < block.len() {
        if let StmtKind::Map(_) = block[k].kind {
            k += 1;
            continue;
        }
        for inner in block[k].blocks_mut() {
            walk(f, inner, work);
        }
        let StmtKind::Loop(l) = &block[k].kind else {
            k += 1;
            continue;
        };
        let Some(plan) = plan(f, l) else {
            k += 1;
            continue;
        };
        let span = block[k].span;
        let (before, body, after, w) = build(f, l, plan, span);
        work.push(w);
        if let StmtKind::Loop(l) = &mut block[k].kind {
            l.body = body;
        }
        let n_before = before.len();
        let n_after = after.len();
        block.splice(k + 1..k + 1, after);
        block.splice(k..k, before);
        k += n_before + 1 + n_after;
    }
}

/// One update of the loop, normalised: `W[row, col + q] += α v[q]` for `q` in `0..len`.
struct Update {
    at: usize,
    row: Expr,
    col: Expr,
    len: Expr,
    alpha: Expr,
    v: VarId,
    v_view: View,
    /// The `gemv` form (`W` is written transposed: `W[col + q, row]`).
    transposed: bool,
}

struct Plan {
    x: VarId,
    xb: VarId,
    r0: Expr,
    rows: Expr,
    updates: Vec<Update>,
}

/// The updates of loop `l` that can be batched, when every condition holds.
fn plan(f: &Function, l: &Loop) -> Option<Plan> {
    let mut found: Vec<(VarId, Expr, Expr, Update)> = Vec::new();
    let mut xb = None;
    for (at, s) in l.body.iter().enumerate() {
        let StmtKind::Call(c) = &s.kind else { continue };
        let Some((x, r0, rows, g, u)) = normalise(f, c, at) else { continue };
        // g moves by one per iteration.
        let Some(g_aff) = Affine::parse(&g, &|_| true, &|_| true) else { continue };
        if g_aff.coeff(l.var).abs() != 1 {
            continue;
        }
        if *xb.get_or_insert(c.out) != c.out {
            return None;
        }
        found.push((x, r0, rows, u));
    }
    let xb = xb?;
    let (x, r0, rows) = (found[0].0, found[0].1.clone(), found[0].2.clone());
    if found.iter().any(|(x2, r2, n2, _)| *x2 != x || !same(r2, &r0) || !same(n2, &rows)) {
        return None;
    }
    // Nothing else in the loop mentions X_b; the loop does not write X.
    let batched: Vec<usize> = found.iter().map(|t| t.3.at).collect();
    if l.body.iter().enumerate().any(|(k, s)| !batched.contains(&k) && stmt_mentions(s, xb)) {
        return None;
    }
    let written = block_writes(&l.body);
    if written.contains(&x) {
        return None;
    }
    // The row range is evaluated after the loop.
    let invariant = |e: &Expr| expr_vars(e).iter().all(|v| *v != l.var && !written.contains(v));
    if !invariant(&r0) || !invariant(&rows) {
        return None;
    }
    let (tx, txb) = (&f.var(x).ty, &f.var(xb).ty);
    if tx.rank() != 2 || tx != txb {
        return None;
    }
    Some(Plan { x, xb, r0, rows, updates: found.into_iter().map(|t| t.3).collect() })
}

/// A `ger` or `gemv` adding into a rank-2 `X_b` from columns of a rank-2 `X`, as
/// `(X, r0, rows, g, update)`.
fn normalise(f: &Function, c: &LibCall, at: usize) -> Option<(VarId, Expr, Expr, Expr, Update)> {
    if c.beta.as_float() != Some(1.0) || f.var(c.out).ty.rank() != 2 {
        return None;
    }
    let vo = &c.out_view;
    match c.op {
        LibOp::Ger => {
            // out[p, q] = X_b[vo(p, q)] += α a[p] b[q]; u runs along X_b's rows.
            let (ku, kv) = match vo.axes.as_slice() {
                [0, 1] => (0, 1),
                [1, 0] => (1, 0),
                _ => return None,
            };
            let (u, uv) = (c.args[ku], &c.arg_views[ku]);
            let (v, vv) = (c.args[kv], &c.arg_views[kv]);
            let rows = vo.extents[ku].clone();
            let r0 = vo.start[0].clone();
            // u = X[r0 .. r0 + rows, g]: a column of X over the same rows.
            if u == c.out || f.var(u).ty.rank() != 2 || uv.axes != [0] || !same(&uv.start[0], &r0) {
                return None;
            }
            if !same(&uv.extents[0], &rows) {
                return None;
            }
            let g = uv.start[1].clone();
            let update = Update {
                at,
                row: g.clone(),
                col: vo.start[1].clone(),
                len: vo.extents[kv].clone(),
                alpha: c.alpha.clone(),
                v,
                v_view: vv.clone(),
                transposed: false,
            };
            Some((u, r0, rows, g, update))
        }
        LibOp::Gemv => {
            // X_b[r0 + p, g] += α Σ_q X[r0 + p, c0 + q] x[q].
            let (a, av) = (c.args[0], &c.arg_views[0]);
            let (v, vv) = (c.args[1], &c.arg_views[1]);
            if vo.axes != [0] || a == c.out || f.var(a).ty.rank() != 2 || av.axes != [0, 1] {
                return None;
            }
            let (r0, rows, g) = (vo.start[0].clone(), vo.extents[0].clone(), vo.start[1].clone());
            if !same(&av.start[0], &r0) || !same(&av.extents[0], &rows) {
                return None;
            }
            let update = Update {
                at,
                row: g.clone(),
                col: av.start[1].clone(),
                len: av.extents[1].clone(),
                alpha: c.alpha.clone(),
                v,
                v_view: vv.clone(),
                transposed: true,
            };
            Some((a, r0, rows, g, update))
        }
        LibOp::Gemm | LibOp::Dot | LibOp::Solve | LibOp::Cholesky | LibOp::CholeskyAdjoint => None,
    }
}

/// `(before, new loop body, after, W)`.
fn build(f: &mut Function, l: &Loop, p: Plan, span: Span) -> (Block, Block, Block, VarId) {
    let (elem, dims, layout) = match &f.var(p.x).ty {
        Type::Array { elem, dims, layout } => (*elem, dims.clone(), *layout),
        Type::Scalar(_) => unreachable!("plan checked the rank"),
    };
    let col = dims[1].clone();
    let name = f.fresh_name(&format!("{}_bw", f.var(p.xb).name.trim_end_matches("_b")));
    let w =
        f.add_var(name, Type::Array { elem, dims: vec![col.clone(), col.clone()], layout }, VarRole::Temp, Span::NONE);
    let index = |f: &mut Function, base: &str| {
        let n = f.fresh_name(base);
        f.add_var(n, Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE)
    };
    let lo = col.lower.clone();
    let hi = col.lower.clone().add(col.extent.clone());
    // W = 0 before the loop.
    let (a, b) = (index(f, "w0"), index(f, "w1"));
    let (ae, be) = (Expr::var(a, Scalar::I64), Expr::var(b, Scalar::I64));
    let zero = Stmt::assign(Place::element(w, vec![ae, be]), Expr::float(0.0, elem), span);
    let dims2 =
        vec![MapDim { var: a, start: lo.clone(), stop: hi.clone() }, MapDim { var: b, start: lo.clone(), stop: hi }];
    let before = vec![Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: dims2, body: vec![zero] }), span)
        .with_note(Note::UpdatesGathered { var: f.var(p.xb).name.clone() })];
    // In the loop: W[row, col + q] += α v[q] where the call was.
    let mut body = l.body.clone();
    for u in p.updates.iter().rev() {
        let q = index(f, "q");
        let qe = Expr::var(q, Scalar::I64);
        let value = u.alpha.clone().mul(Expr::load(u.v, u.v_view.index_of(std::slice::from_ref(&qe)), elem));
        let c = u.col.clone().add(qe);
        let idx = if u.transposed { vec![c, u.row.clone()] } else { vec![u.row.clone(), c] };
        let acc = Stmt::accumulate(Place::element(w, idx), value, body[u.at].span);
        let m = Map {
            id: MapId::NEW,
            dims: vec![MapDim { var: q, start: Expr::int(0), stop: u.len.clone() }],
            body: vec![acc],
        };
        body[u.at] = Stmt::new(StmtKind::Map(m), body[u.at].span).with_note(Note::UpdateRecorded {
            ger: !u.transposed,
            var: f.var(p.xb).name.clone(),
            work: f.var(w).name.clone(),
        });
    }
    // After the loop: X_b[R, :] += X[R, :] @ W.
    let n = col.extent.clone();
    let xv = View { start: vec![p.r0.clone(), lo.clone()], axes: vec![0, 1], extents: vec![p.rows.clone(), n.clone()] };
    let wv = View { start: vec![lo.clone(), lo], axes: vec![0, 1], extents: vec![n.clone(), n] };
    let one = Expr::float(1.0, elem);
    let gemm = LibCall {
        op: LibOp::Gemm,
        out: p.xb,
        out_view: xv.clone(),
        args: vec![p.x, w],
        arg_views: vec![xv, wv],
        alpha: one.clone(),
        beta: one,
    };
    // Guarded by `n > 0` although the product is then empty: a C compiler that does not see
    // the zero fill run (no iteration) warns that the work array may be read uninitialised.
    let call = Stmt::new(StmtKind::Call(gemm), span);
    let cond = Expr::binary(BinOp::Gt, col.extent.clone(), Expr::int(0));
    let after = vec![Stmt::new(StmtKind::If { cond, then_body: vec![call], else_body: Vec::new() }, span)
        .with_note(Note::UpdatesAsOneProduct { var: f.var(p.xb).name.clone() })];
    (before, body, after, w)
}
