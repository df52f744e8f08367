//! Reductions into a row of elements run with the row's unit-stride axis innermost.
//!
//! NumPy's broadcast-sum `out[k, :] = np.sum(x[k, :, None] * w, axis=0)` (a convolution, a
//! batched matrix product written with broadcasting) lowers to a map over the output's
//! elements, each a zero-fill and a sequential reduction nest:
//!
//! ```text
//! map k, l { out[k, l] = 0; loop m { loop p { out[k, l] += x[k, m, p] * w[m, p, l] } } }
//! ```
//!
//! The reduction loops are innermost and short (conv2d: the input channels), and `l`, the
//! unit-stride axis of `out` and `w`, is an outer counter: nothing vectorises. Because the
//! iterations of a map are independent (IR invariant 5: no iteration reads what another
//! writes) and the reduction bounds do not depend on `l`, the `l` iterations may be
//! interleaved in any way that keeps each one's own order — zero-fill first, then its
//! updates in the order of the reduction loops. So the map's unit-stride dimension moves
//! below the reduction nest:
//!
//! ```text
//! map k { map l { out[k, l] = 0 }; loop m { loop p { map l' { out[k, l'] += ... } } } }
//! ```
//!
//! Only maps with another dimension left outside (the parallel loop stays outermost) and
//! rows of more than one element are reordered. The inner maps run along rows (`omp simd` in C). Every value is computed by the same
//! operations in the same order; only the interleaving of independent elements changes.

use adjc_ir::eval::eval_int;
use adjc_ir::{
    AccOp, Block, Expr, ExprKind, Function, Layout, Map, MapDim, MapId, Place, Scalar, Stmt, StmtKind, Type, VarId,
    VarRole,
};

/// `f` with every zero-filled reduction map over a row reordered so that the row's
/// unit-stride axis is innermost. Pure; valid IR in, valid IR out.
pub fn order_reductions(f: &Function) -> Function {
    let mut out = f.clone();
    let body = std::mem::take(&mut out.body);
    out.body = block(&mut out, body);
    adjc_ir::proc::ids::settle(&mut out.body);
    out
}

fn block(f: &mut Function, b: Block) -> Block {
    let mut out = Vec::with_capacity(b.len());
    for mut s in b {
        for inner in s.blocks_mut() {
            let taken = std::mem::take(inner);
            *inner = block(f, taken);
        }
        match reorder(f, &s) {
            Some(stmts) => out.extend(stmts),
            None => out.push(s),
        }
    }
    out
}

/// The statements replacing the map `s` when it has the shape in the module docs.
fn reorder(f: &mut Function, s: &Stmt) -> Option<Vec<Stmt>> {
    let StmtKind::Map(m) = &s.kind else { return None };
    let [init, nest] = m.body.as_slice() else { return None };
    let StmtKind::Assign { target, value: init_value } = &init.kind else { return None };
    let row = row_dim(f, m, target)?;
    // A map over the row alone (or with other dimensions of one iteration: `keepdims`)
    // stays: reordered, its parallel loop would sit below the sequential reduction loops
    // (a region or barrier per reduction step, or no parallel loop at all). A row of one
    // element (`keepdims`) has nothing to vectorise.
    let wide = |d: &MapDim| extent(d).is_none_or(|n| n > 1);
    let others_wide = m.dims.iter().enumerate().any(|(k, d)| k != row && wide(d));
    if !others_wide || !wide(&m.dims[row]) {
        return None;
    }
    let c = m.dims[row].var;
    if init_value.mentions(c) || init_value.mentions(target.var) {
        return None;
    }
    // The reduction nest: perfectly nested loops whose bounds read neither the row counter
    // nor the array, around one unshared `+=` into the zero-filled element.
    let mut loops = Vec::new();
    let mut cur = nest;
    let update = loop {
        match &cur.kind {
            StmtKind::Loop(l) => {
                let bounds = [&l.start, &l.stop, &l.step];
                if bounds.iter().any(|e| e.mentions(c) || e.mentions(target.var)) {
                    return None;
                }
                let [only] = l.body.as_slice() else { return None };
                loops.push(cur);
                cur = only;
            }
            StmtKind::Accumulate { target: t, op: AccOp::Add, shared: false, .. } if t == target => break cur,
            _ => return None,
        }
    };
    if loops.is_empty() {
        return None;
    }
    let dim = m.dims[row].clone();
    let fill =
        Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: vec![dim.clone()], body: vec![init.clone()] }), init.span);
    // The update's map binds its own counter (an index variable is bound by one map).
    let old = f.var(c).clone();
    let c2 = f.add_var(old.name, old.ty, VarRole::Index, old.span);
    let to = Expr::var(c2, Scalar::I64);
    let mut renamed = update.clone();
    if let StmtKind::Accumulate { target: t, value, .. } = &mut renamed.kind {
        t.index = t.index.iter().map(|e| e.substitute(c, &to)).collect();
        *value = value.substitute(c, &to);
    }
    let dim2 = MapDim { var: c2, ..dim };
    let mut inner =
        Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: vec![dim2], body: vec![renamed] }), update.span);
    for l in loops.into_iter().rev() {
        let StmtKind::Loop(lp) = &l.kind else { return None };
        let mut lp = lp.clone();
        lp.body = vec![inner];
        inner = Stmt { kind: StmtKind::Loop(lp), ..l.clone() };
    }
    let mut rest = m.dims.clone();
    rest.remove(row);
    let outer = Map { id: m.id, dims: rest, body: vec![fill, inner] };
    Some(vec![Stmt { kind: StmtKind::Map(outer), ..s.clone() }])
}

/// The number of iterations of `d` when it is a constant.
fn extent(d: &MapDim) -> Option<i64> {
    let n = |e: &Expr| eval_int(e, &|_| None);
    Some(n(&d.stop)? - n(&d.start)?)
}

/// The map dimension whose counter is the unit-stride index of `target` (and appears in
/// no other index of it), if any.
fn row_dim(f: &Function, m: &Map, target: &Place) -> Option<usize> {
    let Type::Array { layout, .. } = &f.var(target.var).ty else { return None };
    let (unit, others) = match layout {
        Layout::RowMajor => {
            let (last, rest) = target.index.split_last()?;
            (last, rest)
        }
        Layout::ColMajor => {
            let (first, rest) = target.index.split_first()?;
            (first, rest)
        }
    };
    let ExprKind::Var(v) = &unit.kind else { return None };
    let v: VarId = *v;
    if others.iter().any(|e| e.mentions(v)) {
        return None;
    }
    m.dims.iter().position(|d| d.var == v)
}
