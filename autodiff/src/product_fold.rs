//! Scalings and copies next to a library product folded into the call.
//!
//! `C[:] = alpha * A @ B + beta * C` reaches the IR as three statements: a map
//! `tmp = alpha * A`, a gemm `dot = 1.0 * tmp @ B`, a map `C = dot + beta * C`; its adjoint
//! with respect to `A` as `dot_b = C_b` (and `C_b = beta * C_b`, same map), a gemm
//! `tmp_b = dot_b @ Bᵀ`, a map `A_b += alpha * tmp_b`. Every map is a pass over a matrix
//! and every temporary a matrix of memory, where BLAS's own `alpha`, `beta` and in-place
//! output do the same work inside the product: `C = alpha * A @ B + beta * C` is one gemm,
//! its adjoint one gemm `A_b = alpha * C_b @ Bᵀ + 1.0 * A_b` before the map `C_b *= beta`.
//! JAX's XLA fuses the same way. This pass rewrites, in any block, until none applies:
//!
//! 1. **Scaled operand.** A map `T[own] = s * X[own]` directly followed by a library call
//!    (`gemm`, `gemv`, `dot`, `ger`: each is linear in each operand) reading `T`: the call
//!    reads `X` (the same view: `T` and `X` have the same dims and layout) and its `alpha`
//!    is multiplied by `s`.
//! 2. **Scaled result.** A `gemm` or `gemv` with β = 0 writing all of `D`, directly followed
//!    by a map over all of `Y` (same dims and layout as `D`) whose one statement is
//!    `Y[own] = s * D[own] + e * Y[own]` (either term's factor may be absent, the `Y` term
//!    too) or `Y[own] += s * D[own]`: the call writes `Y` with `alpha * s` and β = `e`
//!    (0 without the `Y` term, 1 for `+=`). `Y` is not an operand of the call (BLAS
//!    outputs must not alias inputs).
//! 3. **Copied operand.** A map whose body copies `D[own] = Y[own]` (no statement of the body
//!    before the copy mentions `Y` or `D`, none after it mentions `D`) directly followed by
//!    a call reading `D`: the call moves before the map and reads `Y` (which then still holds
//!    what the copy would have copied), and the copy goes. The map must not mention the
//!    call's output, nor write anything else the call reads.
//!
//! In each rule the temporary (`T`, `D`) is a local array that no other statement of the
//! function mentions (its `alloc` and `free` go with it); `s` and `e` are scalar
//! expressions that read no array and no index of the map (so they have the same value at
//! the call as in the map, which writes only arrays). An operand whose temporary another
//! statement still reads (gemm's `tmp` when `B` or `alpha` is differentiated: the adjoint
//! reads it) stays as it is. Rounding differs from the unfused code only in where `alpha`
//! multiplies (`alpha * (A @ B)` instead of `(alpha * A) @ B`), as between BLAS libraries.

use crate::rank_update::{effects, same_int};
use adjc_ir::proc::access::mentions;
use adjc_ir::*;

/// `f` with the scalings and copies around its library calls folded into them.
pub fn fold_products(f: &Function) -> Function {
    let mut out = f.clone();
    // One fold at a time, each against the function as it now is: a fold changes which
    // statements mention the variables it renames.
    loop {
        let now = out.clone();
        let Some(t) = fold_one(&now, &mut out.body) else { return out };
        drop_alloc_free(&mut out.body, t);
    }
}

type Rule = fn(&Function, &mut Block, usize) -> Option<VarId>;

/// The first fold found, done; its dead temporary. Rules 1 and 2 before 3: moving a call
/// (rule 3) separates it from the map after it that rule 2 folds.
fn fold_one(f: &Function, b: &mut Block) -> Option<VarId> {
    let rules: [Rule; 3] = [scaled_operand, scaled_result, copied_operand];
    rules.iter().find_map(|rule| fold_with(f, b, *rule))
}

fn fold_with(f: &Function, b: &mut Block, rule: Rule) -> Option<VarId> {
    for s in b.iter_mut() {
        for inner in s.blocks_mut() {
            if let Some(t) = fold_with(f, inner, rule) {
                return Some(t);
            }
        }
    }
    (0..b.len().saturating_sub(1)).find_map(|p| rule(f, b, p))
}

/// Rule 1 at `b[p]` (the map) and `b[p + 1]` (the call); the dead temporary.
fn scaled_operand(f: &Function, b: &mut Block, p: usize) -> Option<VarId> {
    let StmtKind::Map(m) = &b[p].kind else { return None };
    let [st] = m.body.as_slice() else { return None };
    let StmtKind::Assign { target, value } = &st.kind else { return None };
    let t = target.var;
    let (x, s) = scaled_load(value, m)?;
    let StmtKind::Call(c) = &b[p + 1].kind else { return None };
    if x == t
        || !own(&target.index, m)
        || !local(f, t)
        || !same_type(f, t, x)
        || !covers(m, f, t)
        || !c.args.contains(&t)
        || c.out == t
        || c.out == x
        || leaf_mentions(&f.body, t) != 2
    {
        return None;
    }
    let s = s.unwrap_or_else(|| Expr::float(1.0, value.ty));
    let StmtKind::Call(c) = &mut b[p + 1].kind else { return None };
    for a in c.args.iter_mut().filter(|a| **a == t) {
        *a = x;
        c.alpha = c.alpha.clone().mul(s.clone());
    }
    b.remove(p);
    Some(t)
}

/// Rule 2 at `b[p]` (the call) and `b[p + 1]` (the map); the dead temporary.
fn scaled_result(f: &Function, b: &mut Block, p: usize) -> Option<VarId> {
    let StmtKind::Call(c) = &b[p].kind else { return None };
    let StmtKind::Map(m) = &b[p + 1].kind else { return None };
    let d = c.out;
    if !matches!(c.op, LibOp::Gemm | LibOp::Gemv)
        || c.beta.as_float() != Some(0.0)
        || !local(f, d)
        || !whole(f, d, &c.out_view)
    {
        return None;
    }
    let [st] = m.body.as_slice() else { return None };
    let (target, value, add) = match &st.kind {
        StmtKind::Assign { target, value } => (target, value, false),
        StmtKind::Accumulate { target, op: AccOp::Add, value, shared: false } => (target, value, true),
        _ => return None,
    };
    let y = target.var;
    if y == d
        || c.args.contains(&y)
        || !own(&target.index, m)
        || !same_type(f, y, d)
        || !covers(m, f, y)
        || leaf_mentions(&f.body, d) != 2
    {
        return None;
    }
    // The terms of the value: one of `D`, at most one of `Y` (assignments only).
    let terms: Vec<&Expr> = match &value.kind {
        ExprKind::Binary(BinOp::Add, l, r) => vec![l, r],
        _ => vec![value],
    };
    let (mut d_factor, mut y_factor) = (None, None);
    for term in terms {
        let (v, factor) = scaled_load(term, m)?;
        let factor = factor.unwrap_or_else(|| Expr::float(1.0, value.ty));
        let slot = if v == d {
            &mut d_factor
        } else if v == y && !add {
            &mut y_factor
        } else {
            return None;
        };
        if slot.replace(factor).is_some() {
            return None;
        }
    }
    let d_factor = d_factor?;
    let beta = match (add, y_factor) {
        (true, _) => Expr::float(1.0, value.ty),
        (false, Some(e)) => e,
        (false, None) => Expr::float(0.0, value.ty),
    };
    let Type::Array { dims, .. } = &f.var(y).ty else { return None };
    let view = View::whole(dims);
    let StmtKind::Call(c) = &mut b[p].kind else { return None };
    c.out = y;
    c.out_view = view;
    c.alpha = c.alpha.clone().mul(d_factor);
    c.beta = beta;
    b.remove(p + 1);
    Some(d)
}

/// Rule 3 at `b[p]` (the map) and `b[p + 1]` (the call); the dead temporary.
fn copied_operand(f: &Function, b: &mut Block, p: usize) -> Option<VarId> {
    let StmtKind::Map(m) = &b[p].kind else { return None };
    let StmtKind::Call(c) = &b[p + 1].kind else { return None };
    // The copy `D[own] = Y[own]`: the first statement of the body mentioning `D` or `Y`.
    let (k, d, y) = m.body.iter().enumerate().find_map(|(k, st)| {
        let StmtKind::Assign { target, value } = &st.kind else { return None };
        let ExprKind::Load(y, idx) = &value.kind else { return None };
        (c.args.contains(&target.var) && own(&target.index, m) && own(idx, m)).then_some((k, target.var, *y))
    })?;
    if d == y
        || c.out == y
        || c.out == d
        || !local(f, d)
        || !same_type(f, d, y)
        || !covers(m, f, d)
        || m.body[..k].iter().any(|st| mentions(st, d) || mentions(st, y))
        || m.body[k + 1..].iter().any(|st| mentions(st, d))
        || leaf_mentions(&f.body, d) != 2
    {
        return None;
    }
    // What the map writes that the call reads (besides `Y`, read before the map now), or
    // any mention of the call's output, forbids the swap.
    let (map_writes, map_mentions) = effects(&b[p]);
    let (_, call_mentions) = effects(&b[p + 1]);
    if map_mentions.contains(&c.out) || map_writes.iter().any(|v| *v != y && *v != d && call_mentions.contains(v)) {
        return None;
    }
    let StmtKind::Map(m) = &mut b[p].kind else { return None };
    m.body.remove(k);
    let empty = m.body.is_empty();
    let StmtKind::Call(c) = &mut b[p + 1].kind else { return None };
    for a in c.args.iter_mut().filter(|a| **a == d) {
        *a = y;
    }
    b.swap(p, p + 1);
    if empty {
        b.remove(p + 1);
    }
    Some(d)
}

/// `X[own]`, `s * X[own]` or `X[own] * s` with `s` a scalar factor (module docs): `X` and
/// `s` (`None` for a plain load).
fn scaled_load(e: &Expr, m: &Map) -> Option<(VarId, Option<Expr>)> {
    let load = |e: &Expr| match &e.kind {
        ExprKind::Load(x, idx) if own(idx, m) => Some(*x),
        _ => None,
    };
    if let Some(x) = load(e) {
        return Some((x, None));
    }
    let ExprKind::Binary(BinOp::Mul, l, r) = &e.kind else { return None };
    match (load(l), load(r)) {
        (Some(x), None) if scalar_factor(r, m) => Some((x, Some((**r).clone()))),
        (None, Some(x)) if scalar_factor(l, m) => Some((x, Some((**l).clone()))),
        _ => None,
    }
}

/// Reads no array and no index of `m`.
fn scalar_factor(e: &Expr, m: &Map) -> bool {
    let mut ok = e.ty.is_float();
    e.walk(&mut |x| match &x.kind {
        ExprKind::Load(..) => ok = false,
        ExprKind::Var(v) if m.dims.iter().any(|d| d.var == *v) => ok = false,
        _ => {}
    });
    ok
}

/// The map's own indices, in order.
fn own(index: &[Expr], m: &Map) -> bool {
    index.len() == m.dims.len()
        && index.iter().zip(&m.dims).all(|(e, d)| matches!(e.kind, ExprKind::Var(x) if x == d.var))
}

/// A local array (not a parameter).
fn local(f: &Function, v: VarId) -> bool {
    !f.is_param(v) && f.var(v).ty.rank() > 0
}

/// Same element type, layout and dims (bounds compared as affine expressions).
fn same_type(f: &Function, a: VarId, b: VarId) -> bool {
    match (&f.var(a).ty, &f.var(b).ty) {
        (Type::Array { elem: ea, dims: da, layout: la }, Type::Array { elem: eb, dims: db, layout: lb }) => {
            ea == eb
                && la == lb
                && da.len() == db.len()
                && da.iter().zip(db).all(|(x, y)| same_int(&x.lower, &y.lower) && same_int(&x.extent, &y.extent))
        }
        _ => false,
    }
}

/// Whether map `m` runs over every element of `v` (its dims, in order).
fn covers(m: &Map, f: &Function, v: VarId) -> bool {
    let Type::Array { dims, .. } = &f.var(v).ty else { return false };
    dims.len() == m.dims.len()
        && dims
            .iter()
            .zip(&m.dims)
            .all(|(d, md)| same_int(&md.start, &d.lower) && same_int(&md.stop, &d.lower.clone().add(d.extent.clone())))
}

/// Whether `view` is all of `v`, axes in order.
fn whole(f: &Function, v: VarId, view: &View) -> bool {
    let Type::Array { dims, .. } = &f.var(v).ty else { return false };
    view.start.len() == dims.len()
        && view.axes == (0..dims.len()).collect::<Vec<_>>()
        && dims.iter().zip(&view.start).all(|(d, s)| same_int(s, &d.lower))
        && dims.iter().zip(&view.extents).all(|(d, e)| same_int(e, &d.extent))
}

/// Statements of `b` (at any depth) that mention `v`, `alloc` and `free` not counted: leaf
/// statements, and compound ones whose own header (bounds, condition) mentions it.
fn leaf_mentions(b: &Block, v: VarId) -> usize {
    let mut n = 0;
    walk_stmts(b, &mut |s| {
        if matches!(s.kind, StmtKind::Alloc(_) | StmtKind::Free(_)) {
            return;
        }
        let header_or_leaf = if s.blocks().is_empty() {
            mentions(s, v)
        } else {
            let mut h = s.clone();
            for inner in h.blocks_mut() {
                inner.clear();
            }
            mentions(&h, v)
        };
        n += usize::from(header_or_leaf);
    });
    n
}

fn drop_alloc_free(b: &mut Block, dead: VarId) {
    b.retain(|s| !matches!(s.kind, StmtKind::Alloc(v) | StmtKind::Free(v) if v == dead));
    for s in b.iter_mut() {
        for inner in s.blocks_mut() {
            drop_alloc_free(inner, dead);
        }
    }
}
