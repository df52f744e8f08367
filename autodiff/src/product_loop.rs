//! A loop of matrix–vector products of fixed matrices, computed as one matrix product
//! before the loop.
//!
//! Covariance's `for i: c[i, i:] = X[:, i] @ X[:, i:]` calls one `gemv` per iteration:
//!
//! ```text
//! out[o(i) + q] = α Σ_r X[r0 + r, c0(i) + q] Y[r0 + r, g(i)]  (+ β out[o(i) + q])
//! ```
//!
//! for `q` in `0..len(i)`, `r` in one row range `R`, where `X` and `Y` are matrices the
//! loop does not write (the same array in covariance) and `g(i)` moves by one per
//! iteration. Every such product is an entry of `G = Y[R, :]^T X[R, :]`:
//! `out[o(i) + q] = α G[g(i), c0(i) + q]`. So one `gemm` before the loop computes `G`
//! (a work array with one row per column of `Y` and one column per column of `X`), and each
//! call becomes a map that reads its window of `G`. The row form (`X[c0(i):, R] @ Y[g(i), R]`,
//! the products along rows) is the same with the axes exchanged: `G = Y[:, R] X[:, R]^T`.
//!
//! When `X` and `Y` are the same matrix and every iteration reads row `g(i)` of `G` from
//! column `g(i) + d` on (`d >= 0` a constant: covariance `d = 0`, correlation `d = 1`), only
//! the upper triangle of `G` is computed: a loop of products over blocks of
//! [`UPPER_BLOCK`] rows, each from its block's first column on (about half the
//! multiply-adds; covariance's forward gemm at preset S: 150M → 85M). Otherwise the
//! product computes every entry, also those no iteration reads, but as BLAS-3 work: a blocked `gemm` runs
//! several times faster than the memory-bound `gemv` of each iteration (each re-reads its
//! window of `X`). Moving the products before the loop is exact when `X` and `Y` are the
//! same at every iteration: the pass applies only when the loop writes neither, and the row
//! range depends on nothing the loop changes; `α`, `β`, `g`, `c0` and `len` are evaluated
//! where the call was. A loop inside a parallel map is left alone, and so is a product whose
//! column `g(i)` does not move by one per iteration or a loop of fewer than 4 iterations
//! (few iterations over a wide matrix would make the product dearer than the calls).

use crate::affine::Affine;
use crate::util::{block_writes, expr_vars, same};
use adjc_ir::*;

/// Applies the rewrite to every eligible loop of `f` (the forward function, or the forward
/// sweep of an adjoint: the rewrite never changes what a statement computes).
pub fn batch_products(f: &Function) -> Function {
    let mut f = f.clone();
    let mut body = std::mem::take(&mut f.body);
    let mut work = Vec::new();
    walk(&mut f, &mut body, &mut work);
    f.body = crate::util::around_work_arrays(body, &work);
    // The maps made here are new: they get fresh ids (see "Identities" in adjc_ir).
    adjc_ir::proc::ids::settle(&mut f.body);
    f
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
        let products = plan(f, l);
        if products.is_empty() {
            k += 1;
            continue;
        }
        let span = block[k].span;
        let mut before = Vec::new();
        let mut body = l.body.clone();
        for p in products {
            let (g, call) = build(f, &mut body, p, span);
            work.push(g);
            before.push(call);
        }
        if let StmtKind::Loop(l) = &mut block[k].kind {
            l.body = body;
        }
        let n = before.len();
        block.splice(k..k, before);
        k += n + 1;
    }
}

/// One call of the loop, normalised.
struct Product {
    /// Index of the call in the loop body.
    at: usize,
    x: VarId,
    y: VarId,
    /// The axis of `X` and `Y` the products sum over (0: columns form, 1: row form).
    sum_axis: usize,
    /// The summed range: start and length along `sum_axis`.
    r0: Expr,
    rows: Expr,
    /// `Y`'s fixed index on the free axis (the vector), `X`'s window start and length.
    g: Expr,
    c0: Expr,
    len: Expr,
}

/// The calls of loop `l` that can be computed before it.
fn plan(f: &Function, l: &Loop) -> Vec<Product> {
    let written = block_writes(&l.body);
    let invariant = |e: &Expr| expr_vars(e).iter().all(|v| *v != l.var && !written.contains(v));
    let mut out = Vec::new();
    for (at, s) in l.body.iter().enumerate() {
        let StmtKind::Call(c) = &s.kind else { continue };
        let Some(p) = normalise(f, c, at) else { continue };
        if written.contains(&p.x) || written.contains(&p.y) || !invariant(&p.r0) || !invariant(&p.rows) {
            continue;
        }
        let Some(g) = Affine::parse(&p.g, &|_| true, &|_| true) else { continue };
        if g.coeff(l.var).abs() != 1 || few_iterations(l) {
            continue;
        }
        out.push(p);
    }
    out
}

/// A loop with a known trip count under 4: its few products cost less than one over every
/// column.
fn few_iterations(l: &Loop) -> bool {
    let c = |e: &Expr| adjc_ir::eval::eval_int(e, &|_| None);
    match (c(&l.start), c(&l.stop), c(&l.step)) {
        (Some(a), Some(b), Some(s)) if s != 0 => (b - a) / s < 4,
        _ => false,
    }
}

/// A `gemv` whose matrix is a window of `X` along one axis and whose vector is a line of
/// `Y` along the other, over the same summed range.
fn normalise(f: &Function, c: &LibCall, at: usize) -> Option<Product> {
    if c.op != LibOp::Gemv {
        return None;
    }
    let (x, av) = (c.args[0], &c.arg_views[0]);
    let (y, yv) = (c.args[1], &c.arg_views[1]);
    let (tx, ty) = (&f.var(x).ty, &f.var(y).ty);
    if tx.rank() != 2 || ty.rank() != 2 || x == c.out || y == c.out {
        return None;
    }
    let (Type::Array { elem: ex, .. }, Type::Array { elem: ey, .. }, Type::Array { elem: eo, .. }) =
        (tx, ty, &f.var(c.out).ty)
    else {
        return None;
    };
    if ex != ey || ex != eo {
        return None;
    }
    // The matrix operand is m x k: m runs along X's free axis, k along the summed one.
    let (free, sum_axis) = match av.axes.as_slice() {
        [1, 0] => (1, 0),
        [0, 1] => (0, 1),
        _ => return None,
    };
    if yv.axes != [sum_axis] {
        return None;
    }
    let (r0, rows) = (av.start[sum_axis].clone(), av.extents[1].clone());
    if !same(&yv.start[sum_axis], &r0) || !same(&yv.extents[0], &rows) {
        return None;
    }
    Some(Product {
        at,
        x,
        y,
        sum_axis,
        r0,
        rows,
        g: yv.start[free].clone(),
        c0: av.start[free].clone(),
        len: av.extents[0].clone(),
    })
}

/// Replaces the call at `p.at` of `body` by a map reading the work array `G`; returns `G`
/// and the `gemm` that fills it (to run before the loop).
fn build(f: &mut Function, body: &mut Block, p: Product, span: Span) -> (VarId, Stmt) {
    let free = 1 - p.sum_axis;
    let (elem, layout, ydim) = match &f.var(p.y).ty {
        Type::Array { elem, dims, layout } => (*elem, *layout, dims[free].clone()),
        Type::Scalar(_) => unreachable!("normalise checked the rank"),
    };
    let xdim = match &f.var(p.x).ty {
        Type::Array { dims, .. } => dims[free].clone(),
        Type::Scalar(_) => unreachable!("normalise checked the rank"),
    };
    let (xn, yn) = (f.var(p.x).name.clone(), f.var(p.y).name.clone());
    let name = f.fresh_name(&if p.x == p.y {
        format!("{xn}_gram")
    } else if p.sum_axis == 0 {
        format!("{yn}T{xn}")
    } else {
        format!("{yn}{xn}T")
    });
    let g = f.add_var(
        name.clone(),
        Type::Array { elem, dims: vec![ydim.clone(), xdim.clone()], layout },
        VarRole::Temp,
        Span::NONE,
    );
    // G = Y^T X over the summed range: operand views (ydim x rows) and (rows x xdim).
    let line = |d: &Dim, r0: &Expr| {
        let mut start = vec![Expr::int(0), Expr::int(0)];
        start[free] = d.lower.clone();
        start[p.sum_axis] = r0.clone();
        start
    };
    let yview = View {
        start: line(&ydim, &p.r0),
        axes: vec![free, p.sum_axis],
        extents: vec![ydim.extent.clone(), p.rows.clone()],
    };
    let xview = View {
        start: line(&xdim, &p.r0),
        axes: vec![p.sum_axis, free],
        extents: vec![p.rows.clone(), xdim.extent.clone()],
    };
    let gemm = LibCall {
        op: LibOp::Gemm,
        out: g,
        out_view: View::whole(&[ydim.clone(), xdim.clone()]),
        args: vec![p.y, p.x],
        arg_views: vec![yview, xview],
        alpha: Expr::float(1.0, elem),
        beta: Expr::float(0.0, elem),
    };
    let form = format!(
        "{} @ {}",
        adjc_ir::print::view_str(f, p.y, &gemm.arg_views[0]),
        adjc_ir::print::view_str(f, p.x, &gemm.arg_views[1])
    );
    let window = View { start: vec![p.g.clone(), p.c0.clone()], axes: vec![1], extents: vec![p.len.clone()] };
    let read = adjc_ir::print::view_str(f, g, &window);
    let call = if upper_only(&p) {
        let blocks = upper_blocks(f, gemm, &ydim, free, span);
        Stmt::new(StmtKind::Loop(blocks), span).with_note(Note::LoopProducts {
            name: name.to_string(),
            form: form.to_string(),
            read: read.to_string(),
            upper_block: Some(UPPER_BLOCK),
        })
    } else {
        Stmt::new(StmtKind::Call(gemm), span).with_note(Note::LoopProducts {
            name: name.to_string(),
            form: form.to_string(),
            read: read.to_string(),
            upper_block: None,
        })
    };
    // In the loop: out[o(q)] = α G[g, c0 + q] (+ β out[o(q)]).
    let placeholder = Stmt::new(StmtKind::Section { title: String::new(), body: Vec::new() }, Span::NONE);
    let old = std::mem::replace(&mut body[p.at], placeholder);
    let StmtKind::Call(c) = old.kind else { unreachable!("plan found a call here") };
    let q = {
        let n = f.fresh_name("q");
        f.add_var(n, Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE)
    };
    let qe = Expr::var(q, Scalar::I64);
    let target = Place::element(c.out, c.out_view.index_of(std::slice::from_ref(&qe)));
    let mut value = c.alpha.clone().mul(Expr::load(g, vec![p.g.clone(), p.c0.clone().add(qe)], elem));
    if c.reads_out() {
        value = value.add(c.beta.clone().mul(Expr::load(target.var, target.index.clone(), elem)));
    }
    let m = Map {
        id: adjc_ir::MapId::NEW,
        dims: vec![MapDim { var: q, start: Expr::int(0), stop: p.len }],
        body: vec![Stmt::assign(target, value, old.span)],
    };
    body[p.at] = Stmt { kind: StmtKind::Map(m), ..old };
    (g, call)
}

/// Rows of `G` per product when only its upper triangle is computed.
const UPPER_BLOCK: i64 = 64;

/// Whether every iteration reads `G` only on or right of the diagonal: `X` and `Y` are the
/// same matrix (so `G` is its Gram matrix) and the window of row `g` starts at `g + d`,
/// `d >= 0` a constant (covariance: `d = 0`, correlation: `d = 1`).
fn upper_only(p: &Product) -> bool {
    if p.x != p.y {
        return false;
    }
    let parse = |e: &Expr| Affine::parse(e, &|_| true, &|_| true);
    match (parse(&p.c0), parse(&p.g)) {
        (Some(c0), Some(g)) => c0.sub(&g).as_const().is_some_and(|d| d >= 0),
        _ => false,
    }
}

/// The Gram product `gemm` (`G = Y^T X` over the whole free axis `dim`) as a loop over row
/// blocks of `G`, each computing its rows from the block's first column on: the upper
/// triangle and the diagonal blocks, about half the multiply-adds of the full product.
fn upper_blocks(f: &mut Function, gemm: LibCall, dim: &Dim, free: usize, span: Span) -> Loop {
    let b = {
        let n = f.fresh_name("blk");
        f.add_var(n, Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE)
    };
    let n = dim.extent.clone();
    let first = Expr::var(b, Scalar::I64).mul(Expr::int(UPPER_BLOCK));
    let rows = Expr::call(Intrinsic::Min, vec![Expr::int(UPPER_BLOCK), n.clone().sub(first.clone())], Scalar::I64);
    let cols = n.clone().sub(first.clone());
    let at = dim.lower.clone().add(first);
    let mut call = gemm;
    call.out_view.start = vec![at.clone(), at.clone()];
    call.out_view.extents = vec![rows.clone(), cols.clone()];
    // Operand 0 is Y^T: its first operand axis is the free one (G's rows).
    call.arg_views[0].start[free] = at.clone();
    call.arg_views[0].extents[0] = rows;
    call.arg_views[1].start[free] = at;
    call.arg_views[1].extents[1] = cols;
    Loop {
        id: LoopId::NEW,
        var: b,
        start: Expr::int(0),
        stop: n.add(Expr::int(UPPER_BLOCK - 1)).div(Expr::int(UPPER_BLOCK)),
        step: Expr::int(1),
        body: vec![Stmt::new(StmtKind::Call(call), span)],
    }
}
