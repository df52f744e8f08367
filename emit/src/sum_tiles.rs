//! Sums over a loop nest into a row of an array, written so that the compiler keeps the row
//! in registers.
//!
//! `np.sum` of a broadcast product over some axes (a convolution: every output pixel sums
//! an input window times the weights over the window and the input channels) lowers to a
//! zeroed row of the output and, below a nest of loops over the summed axes, a map over
//! the row that accumulates into it:
//!
//! ```text
//! map l { X[..., l] = v0 }
//! loop m { loop n { loop p { map l { X[..., l] += e(m, n, p, l) } } } }
//! ```
//!
//! Written as it stands, every step of the nest reads and writes the row in memory
//! (`K·K·C_in` passes over `C_out` elements per pixel), through a loop of unknown trip
//! count that gcc versions for aliasing and peels on every entry. The C instead runs the
//! row in tiles of `ADJC_SUM_TILE` elements (16 unless defined otherwise when the file is
//! compiled), then one tile of half that (resnet's 8 channels), then the elements left as
//! written: each tile's partial sums live in a local array of constant size, whose lane
//! loops gcc unrolls and keeps in vector registers, and are stored once. Each element still
//! receives the same terms in the same order, so the results are bit for bit those of the
//! plain loops. Measured at preset M, `-fopenmp`, one thread, medians (benchmarks/README.md):
//! forward 12.4 → 9.6 ms (conv2d_bias), 19.3 → 13.9 (resnet), 8.1 → 5.9 (lenet).
//!
//! Applies when the row index is the map's counter alone in the last (unit-stride)
//! position, the nest's loops hold nothing but the next loop (the innermost: the map), the
//! target element does not move with the nest's counters, nothing in the nest reads the
//! target array, and no operand that moves along the row has an index that follows the
//! enclosing loops alone: such operands are shared by all the rows those loops visit (the
//! weights of a convolution, whose `w[m - i, n - j, p, l]` under `m in i..i+K` is the same
//! window at every pixel; `B` of `A @ B`), while a row of fresh data per element
//! (`A[i, r, l]` of `np.sum(A, axis=1)`) streams better as written.
//! Only maps kept sequential (inside a parallel loop, or too small) are tiled.

use crate::ctx::FnCtx;
use crate::omp::{Mode, Plan};
use adjc_ir::{AccOp, Expr, ExprKind, Loop, Map, Place, Stmt, StmtKind, VarId};

/// A row sum the C writes in tiles: `init` zeroes (or sets) the row, `nest` is the loop
/// nest whose innermost statement is the map `inner` accumulating into it.
pub(crate) struct SumTile<'s> {
    pub init: &'s Map,
    pub init_value: &'s Expr,
    pub target: &'s Place,
    pub nest: &'s Loop,
    pub inner: &'s Map,
}

/// The tile of `first` followed by `second`, when the pair has the shape of the module docs.
pub(crate) fn find<'s>(cx: &FnCtx, plan: &Plan, first: &'s Stmt, second: Option<&'s Stmt>) -> Option<SumTile<'s>> {
    let StmtKind::Map(init) = &first.kind else { return None };
    let StmtKind::Loop(nest) = &second?.kind else { return None };
    let [dim] = init.dims.as_slice() else { return None };
    let [Stmt { kind: StmtKind::Assign { target, value: init_value }, .. }] = init.body.as_slice() else {
        return None;
    };
    if !sequential(plan, init) || !cx.f.var(target.var).ty.elem().is_float() {
        return None;
    }
    let lane = dim.var;
    let (last, outer) = target.index.split_last()?;
    if !is_var(last, lane) || outer.iter().any(|e| e.vars().contains(&lane)) || reads(init_value, target.var) {
        return None;
    }
    // Down the nest: loops holding one statement each, to the accumulating map.
    let mut counters: Vec<VarId> = Vec::new();
    let mut l = nest;
    let inner = loop {
        counters.push(l.var);
        for bound in [&l.start, &l.stop, &l.step] {
            if reads(bound, target.var) {
                return None;
            }
        }
        match l.body.as_slice() {
            [Stmt { kind: StmtKind::Loop(next), .. }] => l = next,
            [Stmt { kind: StmtKind::Map(m), .. }] => break m,
            _ => return None,
        }
    };
    let [inner_dim] = inner.dims.as_slice() else { return None };
    let [Stmt {
        kind: StmtKind::Accumulate { target: inner_target, op: AccOp::Add, value: term, shared: false }, ..
    }] = inner.body.as_slice()
    else {
        return None;
    };
    if !sequential(plan, inner)
        || inner_target.var != target.var
        || inner_dim.start != dim.start
        || inner_dim.stop != dim.stop
        || reads(term, target.var)
    {
        return None;
    }
    let inner_lane = inner_dim.var;
    let (inner_last, inner_outer) = inner_target.index.split_last()?;
    // The same element in every step of the nest: the row's other indices are the init's.
    if !is_var(inner_last, inner_lane) || inner_outer != outer {
        return None;
    }
    if inner_outer.iter().any(|e| e.vars().iter().any(|v| counters.contains(v))) {
        return None;
    }
    // Operands along the row must not move with the rows (see the module docs); and there
    // must be rows: a row indexed by the lane alone is one sum over all the data.
    let row_vars: Vec<VarId> = outer.iter().flat_map(|e| e.vars()).collect();
    if row_vars.is_empty() {
        return None;
    }
    let mut fresh = false;
    term.walk(&mut |x| {
        if let ExprKind::Load(_, idx) = &x.kind {
            let along_row = idx.iter().any(|e| e.vars().contains(&inner_lane));
            // `w[m - i, ...]` under `loop m in i..i+K` reads the same window at every row;
            // `A[i, r, l]` reads a new row of A at every `i`.
            let moves = |e: &Expr| {
                let vars = e.vars();
                vars.iter().any(|v| row_vars.contains(v)) && !vars.iter().any(|v| counters.contains(v))
            };
            if along_row && idx.iter().any(moves) {
                fresh = true;
            }
        }
    });
    if fresh {
        return None;
    }
    Some(SumTile { init, init_value, target, nest, inner })
}

fn sequential(plan: &Plan, m: &Map) -> bool {
    plan.map(m).is_none_or(|p| p.mode == Mode::Sequential)
}

fn is_var(e: &Expr, v: VarId) -> bool {
    matches!(e.kind, ExprKind::Var(w) if w == v)
}

fn reads(e: &Expr, v: VarId) -> bool {
    e.vars().contains(&v)
}

/// The counters of `nest`'s loops, outermost first.
pub(crate) fn counters(nest: &Loop) -> Vec<VarId> {
    let mut out = vec![nest.var];
    let mut l = nest;
    while let [Stmt { kind: StmtKind::Loop(next), .. }] = l.body.as_slice() {
        out.push(next.var);
        l = next;
    }
    out
}
