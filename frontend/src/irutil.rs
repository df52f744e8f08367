//! Whole-function rewriting helpers shared by the frontends.

use adjc_ir::*;
use std::collections::BTreeSet;

/// Renaming and mention sets (one definition for every stage: `adjc_ir::proc::access`).
pub use adjc_ir::proc::access::{block_vars, remap_expr, rewrite_block};

/// Drops the variables `keep` rejects and renumbers the rest (in order).
pub fn compact_vars(f: &mut Function, keep: &dyn Fn(VarId) -> bool) {
    let mut map = vec![VarId(u32::MAX); f.vars.len()];
    let mut vars = Vec::new();
    for (k, v) in f.vars.iter().enumerate() {
        if keep(VarId(k as u32)) {
            map[k] = VarId(vars.len() as u32);
            vars.push(v.clone());
        }
    }
    let fv = |v: VarId| map.get(v.index()).copied().unwrap_or(v);
    for v in vars.iter_mut() {
        if let VarRole::Adjoint(a) = v.role {
            v.role = VarRole::Adjoint(fv(a));
        }
        if let Type::Array { dims, .. } = &mut v.ty {
            for d in dims.iter_mut() {
                d.lower = remap_expr(&d.lower, &fv);
                d.extent = remap_expr(&d.extent, &fv);
            }
        }
    }
    f.vars = vars;
    for p in f.params.iter_mut() {
        p.var = fv(p.var);
    }
    for a in f.assumptions.iter_mut() {
        a.lhs = remap_expr(&a.lhs, &fv);
        a.rhs = remap_expr(&a.rhs, &fv);
        a.guard = a.guard.as_ref().map(|g| remap_expr(g, &fv));
        a.each = a.each.map(&fv);
    }
    rewrite_block(&mut f.body, &|e| e.clone(), &fv);
}

/// Variables written anywhere in a block.
pub fn written_in(b: &Block) -> BTreeSet<VarId> {
    written_vars(b).into_iter().collect()
}

/// Whether a matrix view runs along its variable's contiguous axis (the last axis
/// row-major, the first column-major): BLAS then takes the other axis's stride as the
/// leading dimension, with a transpose flag when needed.
pub fn has_unit_axis(f: &Function, var: VarId, v: &View) -> bool {
    let Type::Array { dims, layout, .. } = &f.var(var).ty else { return false };
    let unit = match layout {
        Layout::RowMajor => dims.len() - 1,
        Layout::ColMajor => 0,
    };
    v.axes.contains(&unit)
}

/// The library call computing `out_view = alpha * a @ b + beta * out_view` for views of
/// ranks (2, 2) → 2 (`gemm`), (2, 1) or (1, 2) → 1 (`gemv`, `x @ B` being `Bᵀ x`), (1, 1) →
/// 0 (`dot`); `None` for other ranks, when the output is an operand, or when a matrix
/// view does not run along its variable's contiguous axis.
pub fn product_call(
    f: &Function,
    (out, out_view): (VarId, View),
    (va, wa): (VarId, View),
    (vb, wb): (VarId, View),
    alpha: Expr,
    beta: Expr,
) -> Option<LibCall> {
    let op = match (wa.rank(), wb.rank(), out_view.rank()) {
        (2, 2, 2) => LibOp::Gemm,
        (2, 1, 1) | (1, 2, 1) => LibOp::Gemv,
        (1, 1, 0) => LibOp::Dot,
        _ => return None,
    };
    if va == out || vb == out {
        return None;
    }
    for (v, w) in [(va, &wa), (vb, &wb), (out, &out_view)] {
        if w.rank() == 2 && !has_unit_axis(f, v, w) {
            return None;
        }
    }
    let (args, arg_views) =
        if wa.rank() == 1 && wb.rank() == 2 { (vec![vb, va], vec![wb.t(), wa]) } else { (vec![va, vb], vec![wa, wb]) };
    Some(LibCall { op, out, out_view, args, arg_views, alpha, beta })
}
