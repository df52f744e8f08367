//! A map that zeroes a whole array, written as one runtime call:
//! `adjc_zero(x_b, sizeof(*x_b), ADJC_DIMS(N, M));` instead of a loop nest per array (the
//! adjoints of local arrays start at zero, and a reviewer reads a line per array).
//!
//! Only for a map at the top level of a sweep (no loop, region or map around it) whose body
//! is the one assignment `X[i, j, ...] = 0.0` of an array of floats, each index a distinct
//! map dimension that runs over the whole of its axis: then the map writes +0.0 into every
//! element, which is what `memset` to zero bytes does (IEEE +0.0 is all bits zero), and
//! the size is that of the allocation (`adjc_size` of the same extents).

use crate::cexpr;
use crate::ctx::FnCtx;
use adjc_ir::proc::eq::strip;
use adjc_ir::{ExprKind, Literal, Map, StmtKind, Type};

/// The `adjc_zero` call that does what `m` does, when it zeroes a whole array.
pub(crate) fn whole_array_zero(cx: &FnCtx, m: &Map) -> Option<String> {
    let [stmt] = m.body.as_slice() else { return None };
    let StmtKind::Assign { target, value } = &stmt.kind else { return None };
    let ExprKind::Const(Literal::Float(v)) = value.kind else { return None };
    if v.to_bits() != 0 {
        return None;
    }
    let Type::Array { elem, dims, .. } = &cx.f.var(target.var).ty else { return None };
    if !elem.is_float() || dims.is_empty() || dims.len() != m.dims.len() || target.index.len() != dims.len() {
        return None;
    }
    let mut used = vec![false; m.dims.len()];
    for (axis, idx) in dims.iter().zip(&target.index) {
        let ExprKind::Var(iv) = idx.kind else { return None };
        let k = m.dims.iter().position(|d| d.var == iv)?;
        if used[k] {
            return None;
        }
        used[k] = true;
        let d = &m.dims[k];
        let stop = axis.lower.clone().add(axis.extent.clone());
        if strip(&d.start) != strip(&axis.lower) || strip(&d.stop) != strip(&stop) {
            return None;
        }
    }
    let name = cx.name(target.var);
    let extents: Vec<String> = dims.iter().map(|d| cexpr::expr(cx, &d.extent)).collect();
    Some(format!("adjc_zero({name}, sizeof(*{name}), ADJC_DIMS({}));", extents.join(", ")))
}
