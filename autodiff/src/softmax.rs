//! The softmax rule: the adjoint an expert writes for a numerically stable softmax.
//!
//! Frontends lower `e = exp(x - max(x, axis, keepdims)); y = e / sum(e, axis, keepdims)`
//! to four maps at the top level of the function (any axis `p`, any rank):
//!
//! ```text
//! map v (v_p in [0, 1)) { m[v] = -inf; loop q in range(0, A, 1) { m[v] max= x[v/q] } }
//! map w { e[w] = exp(x[w] - m[w/0]) }
//! map v (v_p in [0, 1)) { s[v] = 0; loop q in range(0, A, 1) { s[v] += e[v/q] } }
//! map w { y[w] = e[w] / s[w/0] }
//! ```
//!
//! (`v/q`: the index `v` with axis `p` replaced by `q`). Differentiated statement by
//! statement, this gives a chain of shared row reductions (`m_b`, `s_b`) and an arg-max
//! search whose contribution is zero in exact arithmetic: `∂y/∂m = 0`, the max only keeps
//! `exp` in range. The rule replaces it by the row-wise formula
//!
//! ```text
//! map rows { d = Σ_q y[q] * y_b[q]; for q: x_b[q] += y[q] * (y_b[q] - d); y_b[q] = 0 }
//! ```
//!
//! with `y` recomputed as `e / s` (the values the division's own adjoint reads, so the
//! to-be-recorded analysis of the statement-wise rules, which is kept, already keeps them
//! alive). Each iteration owns its row: no atomics, one pass to reduce, one to update.
//!
//! It applies only where the result is exact: `m`, `e` and `s` are read nowhere else and
//! are not parameters (so their adjoints would be nothing but the softmax chain), `x` and `y` are distinct active
//! arrays, the maps sit at the top level (not in a loop or branch) and none of the four
//! targets holds a value an adjoint still needs (nothing to save). Anything else is left to
//! the statement-wise rules, which are correct everywhere.
//!
//! The pattern is recognised on the IR, not in a frontend: the frontends stay free of AD
//! knowledge, the IR needs no softmax operation, and any frontend that lowers the same
//! computation gets the same adjoint.

use crate::state::Ad;
use crate::util::{same, stmt_mentions, zero};
use adjc_ir::*;

/// A recognised softmax: the four primal maps and what the adjoint needs from them.
#[derive(Clone, Debug)]
pub(crate) struct Softmax {
    x: VarId,
    e: VarId,
    s: VarId,
    y: VarId,
    /// The row space: the reduction maps' dimensions without the reduced axis.
    rows: Vec<MapDim>,
    /// Position of the reduced axis in the indices.
    axis: usize,
    /// Its loop variable and extent.
    q: VarId,
    extent: Expr,
}

/// `map v { t[v] = init; loop q in range(0, A, 1) { t[v] op= src[v/q] } }` over a space
/// whose axis `axis` is `[0, 1)`.
struct Reduce<'a> {
    dims: &'a [MapDim],
    target: VarId,
    init: &'a Expr,
    op: AccOp,
    src: VarId,
    axis: usize,
    q: VarId,
    extent: &'a Expr,
}

pub(crate) fn map_of(s: &Stmt) -> Option<&Map> {
    match &s.kind {
        StmtKind::Map(m) => Some(m),
        _ => None,
    }
}

pub(crate) fn is_var(e: &Expr, v: VarId) -> bool {
    matches!(e.kind, ExprKind::Var(x) if x == v)
}

/// Whether `index` is the map's own variables, except `at` (when given) where it is `with`.
pub(crate) fn index_is(index: &[Expr], dims: &[MapDim], at: Option<(usize, &dyn Fn(&Expr) -> bool)>) -> bool {
    index.len() == dims.len()
        && index.iter().zip(dims).enumerate().all(|(k, (e, d))| match at {
            Some((p, with)) if p == k => with(e),
            _ => is_var(e, d.var),
        })
}

fn reduce(s: &Stmt) -> Option<Reduce<'_>> {
    let m = map_of(s)?;
    let [init_stmt, loop_stmt] = m.body.as_slice() else { return None };
    let StmtKind::Assign { target, value: init } = &init_stmt.kind else { return None };
    let StmtKind::Loop(l) = &loop_stmt.kind else { return None };
    let [acc] = l.body.as_slice() else { return None };
    let StmtKind::Accumulate { target: t2, op, value, .. } = &acc.kind else { return None };
    let ExprKind::Load(src, sidx) = &value.kind else { return None };
    if l.start.as_int() != Some(0) || l.step.as_int() != Some(1) || t2 != target {
        return None;
    }
    if !index_is(&target.index, &m.dims, None) {
        return None;
    }
    let axis = m.dims.iter().position(|d| d.start.as_int() == Some(0) && d.stop.as_int() == Some(1))?;
    let q = l.var;
    if !index_is(sidx, &m.dims, Some((axis, &|e: &Expr| is_var(e, q)))) {
        return None;
    }
    Some(Reduce { dims: &m.dims, target: target.var, init, op: *op, src: *src, axis, q, extent: &l.stop })
}

/// `map w { t[w] = value }`: the target and value.
pub(crate) fn elementwise(s: &Stmt) -> Option<(&Map, VarId, &Expr)> {
    let m = map_of(s)?;
    let [st] = m.body.as_slice() else { return None };
    let StmtKind::Assign { target, value } = &st.kind else { return None };
    index_is(&target.index, &m.dims, None).then_some((m, target.var, value))
}

/// Whether the full space `w` is the row space `v` with axis `p` running over `[0, A)`.
pub(crate) fn full_space(w: &[MapDim], v: &[MapDim], p: usize, extent: &Expr) -> bool {
    w.len() == v.len()
        && w.iter().zip(v).enumerate().all(|(k, (a, b))| {
            if k == p {
                a.start.as_int() == Some(0) && same(&a.stop, extent)
            } else {
                same(&a.start, &b.start) && same(&a.stop, &b.stop)
            }
        })
}

/// `var[w/0]` in a map over `w`.
pub(crate) fn is_row_load(e: &Expr, var: VarId, w: &[MapDim], p: usize) -> bool {
    matches!(&e.kind, ExprKind::Load(v, idx) if *v == var
        && index_is(idx, w, Some((p, &|i: &Expr| i.as_int() == Some(0)))))
}

pub(crate) fn is_own_load(e: &Expr, var: VarId, w: &[MapDim]) -> bool {
    matches!(&e.kind, ExprKind::Load(v, idx) if *v == var && index_is(idx, w, None))
}

/// The softmax starting at `b[0]`, if the four statements form one (structure only).
fn match_at(b: &[Stmt]) -> Option<Softmax> {
    let [s1, s2, s3, s4, ..] = b else { return None };
    let max = reduce(s1)?;
    let sum = reduce(s3)?;
    let (m, x, p) = (max.target, max.src, max.axis);
    if max.op != AccOp::Max || max.init.as_float() != Some(f64::NEG_INFINITY) {
        return None;
    }
    if sum.op != AccOp::Add || sum.init.as_float() != Some(0.0) || sum.axis != p || !same(sum.extent, max.extent) {
        return None;
    }
    let same_rows = sum.dims.len() == max.dims.len()
        && sum.dims.iter().zip(max.dims).all(|(a, b)| same(&a.start, &b.start) && same(&a.stop, &b.stop));
    let (m2, e, ev) = elementwise(s2)?;
    let (m4, y, yv) = elementwise(s4)?;
    if !same_rows || sum.src != e || !full_space(&m2.dims, max.dims, p, max.extent) {
        return None;
    }
    if !full_space(&m4.dims, max.dims, p, max.extent) {
        return None;
    }
    // e[w] = exp(x[w] - m[w/0])
    let ExprKind::Call(Intrinsic::Exp, args) = &ev.kind else { return None };
    let [arg] = args.as_slice() else { return None };
    let ExprKind::Binary(BinOp::Sub, xa, ma) = &arg.kind else { return None };
    if !is_own_load(xa, x, &m2.dims) || !is_row_load(ma, m, &m2.dims, p) {
        return None;
    }
    // y[w] = e[w] / s[w/0]
    let ExprKind::Binary(BinOp::Div, ea, sa) = &yv.kind else { return None };
    if !is_own_load(ea, e, &m4.dims) || !is_row_load(sa, sum.target, &m4.dims, p) {
        return None;
    }
    let distinct = [x, m, e, sum.target, y];
    if (0..distinct.len()).any(|i| distinct[i + 1..].contains(&distinct[i])) {
        return None;
    }
    let rows = max.dims.iter().enumerate().filter(|(k, _)| *k != p).map(|(_, d)| d.clone()).collect();
    Some(Softmax { x, e, s: sum.target, y, rows, axis: p, q: max.q, extent: max.extent.clone() })
}

/// Whether the variables `vars` are mentioned in `body` only by the `len` statements
/// starting at position `at`.
pub(crate) fn read_only_inside(body: &Block, at: usize, len: usize, vars: &[VarId]) -> bool {
    vars.iter().all(|v| body.iter().enumerate().all(|(k, s)| (at..at + len).contains(&k) || !stmt_mentions(s, *v)))
}

/// Every softmax at the top level of `body` whose intermediates nothing else reads, keyed
/// by the position of its first statement.
pub(crate) fn find(body: &Block) -> Vec<(usize, Softmax)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let found = match_at(&body[i..]).filter(|sm| {
            let m = reduce(&body[i]).map(|r| r.target);
            let private: Vec<VarId> = [m, Some(sm.e), Some(sm.s)].into_iter().flatten().collect();
            read_only_inside(body, i, 4, &private)
        });
        match found {
            Some(sm) => {
                out.push((i, sm));
                i += 4;
            }
            None => i += 1,
        }
    }
    out
}

impl Ad<'_> {
    /// Forward and reverse code of the softmax `sm` made of the statements `stmts`, or
    /// `None` when the rule does not apply here (see the module documentation).
    /// [`crate::expert`] has checked that nothing needs saving.
    pub fn rev_softmax(&mut self, sm: &Softmax, stmts: &[Stmt]) -> Option<(Block, Block)> {
        if !self.is_active(sm.x) || !self.is_active(sm.y) || !self.nest.is_empty() || self.cond_depth > 0 {
            return None;
        }
        let span = stmts[3].span;
        let ty = self.elem(sm.y);
        let (xb, yb) = (self.adj_of(sm.x), self.adj_of(sm.y));
        // The index of element q of the row: row variables, with the axis at q (or 0).
        let row_index = |at: Expr| -> Vec<Expr> {
            let mut idx: Vec<Expr> = sm.rows.iter().map(|d| Expr::var(d.var, Scalar::I64)).collect();
            idx.insert(sm.axis, at);
            idx
        };
        let q = Expr::var(sm.q, Scalar::I64);
        let yq = Expr::load(sm.e, row_index(q.clone()), ty).div(Expr::load(sm.s, row_index(Expr::int(0)), ty));
        let ybq = Expr::load(yb, row_index(q.clone()), ty);
        let yname = self.name(sm.y);
        let d = self.temp(&format!("{yname}_b_dot_{yname}"), ty, true);
        let dv = Expr::var(d, ty);
        let row_loop = |body: Block| {
            Stmt::new(
                StmtKind::Loop(Loop {
                    id: LoopId::NEW,
                    var: sm.q,
                    start: Expr::int(0),
                    stop: sm.extent.clone(),
                    step: Expr::int(1),
                    body,
                }),
                span,
            )
        };
        let body = vec![
            Stmt::assign(Place::scalar(d), zero(ty), span),
            row_loop(vec![Stmt::accumulate(Place::scalar(d), yq.clone().mul(ybq.clone()), span)]),
            row_loop(vec![
                Stmt::accumulate(
                    Place::element(xb, row_index(q.clone())),
                    yq.mul(ybq.sub(dv)).cast(self.elem(sm.x)),
                    span,
                ),
                Stmt::assign(Place::element(yb, row_index(q)), zero(ty), span),
            ]),
        ];
        let rev = Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: sm.rows.clone(), body }), span).with_note(
            Note::SoftmaxBackward { x: self.name(sm.x), y: yname.clone(), e: self.name(sm.e), s: self.name(sm.s) },
        );
        Some((stmts.to_vec(), vec![rev]))
    }
}
