//! The batch-norm rule: the adjoint an expert writes for a normalisation by the batch
//! mean and (biased) variance.
//!
//! `y = (x - np.mean(x, axis, keepdims=True)) / np.sqrt(np.var(x, axis, keepdims=True) + eps)`
//! is lowered by the Python frontend to five maps at the top level (any rank, any axis `p`
//! of extent `N`):
//!
//! ```text
//! map v { mean[v] = 0; loop q { mean[v] += x[v/q] }; mean[v] = mean[v] / N }
//! map v { mx[v] = 0; loop q { mx[v] += x[v/q] }; mx[v] = mx[v] / N }        (inside np.var)
//! map v { sum[v] = 0; loop q { sum[v] += (x[v/q] - mx[v/0]) * (x[v/q] - mx[v/0]) } }
//! map v { var[v] = sum[v] / N }
//! map w { y[w] = (x[w] - mean[w/0]) / sqrt(var[w/0] + eps) }
//! ```
//!
//! Statement by statement, the adjoint runs back through both means and the sum of
//! squares; the contribution through `mx` is zero in exact arithmetic (`Σ (x - mx) = 0`).
//! The rule writes the closed form instead, per row of the reduced axis, with
//! `r = 1 / sqrt(var + eps)` and `x̂ = (x - mean) * r`:
//!
//! ```text
//! x_b += r / N * (N * y_b - Σ y_b - x̂ * Σ (y_b * x̂))
//! ```
//!
//! one pass for the two sums, one for the update, no atomics. It applies under the same
//! conditions as the softmax rule ([`crate::softmax`]): the four intermediates are read
//! nowhere else and are not parameters, `x` and `y` are distinct active arrays, the maps are at the top level and
//! none of their targets must be saved; `eps` is a constant.

use crate::softmax::{elementwise, full_space, index_is, is_own_load, is_row_load, map_of};
use crate::state::Ad;
use crate::util::{same, zero};
use adjc_ir::*;

#[derive(Clone, Debug)]
pub(crate) struct BatchNorm {
    x: VarId,
    mean: VarId,
    var: VarId,
    y: VarId,
    /// The intermediates only the pattern may read.
    private: [VarId; 4],
    rows: Vec<MapDim>,
    axis: usize,
    q: VarId,
    extent: Expr,
    /// The map space of the last statement and its value (for `x - mean` and the
    /// denominator, rewritten over the rows and `q`).
    w: Vec<VarId>,
    value: Expr,
}

/// `map v { t[v] = 0; loop q in range(0, A, 1) { t[v] += term } [; t[v] = t[v] / A] }`
/// over a space whose axis `axis` is `[0, 1)`: the map, target, summed term, loop
/// variable and whether the sum is divided by the extent.
struct Sum<'a> {
    dims: &'a [MapDim],
    target: VarId,
    term: &'a Expr,
    axis: usize,
    q: VarId,
    extent: &'a Expr,
    divided: bool,
}

fn sum(s: &Stmt) -> Option<Sum<'_>> {
    let m = map_of(s)?;
    let (init, lp, div) = match m.body.as_slice() {
        [a, b] => (a, b, None),
        [a, b, c] => (a, b, Some(c)),
        _ => return None,
    };
    let StmtKind::Assign { target, value: z } = &init.kind else { return None };
    let StmtKind::Loop(l) = &lp.kind else { return None };
    let [acc] = l.body.as_slice() else { return None };
    let StmtKind::Accumulate { target: t2, op: AccOp::Add, value: term, .. } = &acc.kind else { return None };
    if z.as_float() != Some(0.0) || t2 != target || l.start.as_int() != Some(0) || l.step.as_int() != Some(1) {
        return None;
    }
    if !index_is(&target.index, &m.dims, None) {
        return None;
    }
    let axis = m.dims.iter().position(|d| d.start.as_int() == Some(0) && d.stop.as_int() == Some(1))?;
    let divided = match div {
        None => false,
        Some(d) => {
            let StmtKind::Assign { target: t3, value } = &d.kind else { return None };
            if t3 != target || !is_mean_of(value, target, &l.stop) {
                return None;
            }
            true
        }
    };
    Some(Sum { dims: &m.dims, target: target.var, term, axis, q: l.var, extent: &l.stop, divided })
}

/// `t[v] / N` with `N` the extent (converted to the element type).
fn is_mean_of(value: &Expr, t: &Place, extent: &Expr) -> bool {
    let ExprKind::Binary(BinOp::Div, a, n) = &value.kind else { return false };
    // `f32(f64(N))` in float32 code: the extent through any casts.
    let mut n = n.as_ref();
    while let ExprKind::Cast(inner) = &n.kind {
        n = inner.as_ref();
    }
    matches!(&a.kind, ExprKind::Load(v, i) if *v == t.var && crate::util::same_index(i, &t.index)) && same(n, extent)
}

/// `x[v/q]` in a sum over `dims` with axis `p` at loop variable `q`.
fn is_x_at_q(e: &Expr, x: VarId, dims: &[MapDim], p: usize, q: VarId) -> bool {
    matches!(&e.kind, ExprKind::Load(v, i) if *v == x
        && index_is(i, dims, Some((p, &|e: &Expr| matches!(e.kind, ExprKind::Var(u) if u == q)))))
}

fn same_space(a: &[MapDim], b: &[MapDim]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(&x.start, &y.start) && same(&x.stop, &y.stop))
}

fn match_at(b: &[Stmt]) -> Option<BatchNorm> {
    let [s1, s2, s3, s4, s5, ..] = b else { return None };
    let (mean, mx, sq) = (sum(s1)?, sum(s2)?, sum(s3)?);
    let (p, n) = (mean.axis, mean.extent);
    let ExprKind::Load(x, _) = &mean.term.kind else { return None };
    let x = *x;
    if !mean.divided || !mx.divided || sq.divided || mx.axis != p || sq.axis != p {
        return None;
    }
    if !same(mx.extent, n) || !same(sq.extent, n) || !same_space(mx.dims, mean.dims) || !same_space(sq.dims, mean.dims)
    {
        return None;
    }
    if !is_x_at_q(mean.term, x, mean.dims, p, mean.q) || !is_x_at_q(mx.term, x, mx.dims, p, mx.q) {
        return None;
    }
    // (x[v/q] - mx[v/0]) * (x[v/q] - mx[v/0])
    let ExprKind::Binary(BinOp::Mul, a, b2) = &sq.term.kind else { return None };
    let ExprKind::Binary(BinOp::Sub, xa, ma) = &a.kind else { return None };
    if !same(a, b2) || !is_x_at_q(xa, x, sq.dims, p, sq.q) || !is_row_load(ma, mx.target, sq.dims, p) {
        return None;
    }
    // var[v] = sum[v] / N
    let m4 = map_of(s4)?;
    let [st4] = m4.body.as_slice() else { return None };
    let StmtKind::Assign { target: vt, value: vv } = &st4.kind else { return None };
    if !same_space(&m4.dims, mean.dims) || !index_is(&vt.index, &m4.dims, None) {
        return None;
    }
    let sum_place = Place::element(sq.target, vt.index.clone());
    let ExprKind::Binary(BinOp::Div, sa, _) = &vv.kind else { return None };
    if !matches!(&sa.kind, ExprKind::Load(v, _) if *v == sq.target) || !is_mean_of(vv, &sum_place, n) {
        return None;
    }
    let var = vt.var;
    // y[w] = (x[w] - mean[w/0]) / sqrt(var[w/0] + eps)
    let (m5, y, value) = elementwise(s5)?;
    if !full_space(&m5.dims, mean.dims, p, n) {
        return None;
    }
    let ExprKind::Binary(BinOp::Div, num, den) = &value.kind else { return None };
    let ExprKind::Binary(BinOp::Sub, xn, mn) = &num.kind else { return None };
    let ExprKind::Call(Intrinsic::Sqrt, args) = &den.kind else { return None };
    let [arg] = args.as_slice() else { return None };
    let ExprKind::Binary(BinOp::Add, va, eps) = &arg.kind else { return None };
    if !is_own_load(xn, x, &m5.dims) || !is_row_load(mn, mean.target, &m5.dims, p) {
        return None;
    }
    if !is_row_load(va, var, &m5.dims, p) || !eps.is_const() {
        return None;
    }
    let private = [mean.target, mx.target, sq.target, var];
    let all = [x, y, mean.target, mx.target, sq.target, var];
    if (0..all.len()).any(|i| all[i + 1..].contains(&all[i])) {
        return None;
    }
    let rows = mean.dims.iter().enumerate().filter(|(k, _)| *k != p).map(|(_, d)| d.clone()).collect();
    Some(BatchNorm {
        x,
        mean: mean.target,
        var,
        y,
        private,
        rows,
        axis: p,
        q: mean.q,
        extent: n.clone(),
        w: m5.dims.iter().map(|d| d.var).collect(),
        value: value.clone(),
    })
}

/// Every batch norm at the top level of `body` whose intermediates nothing else reads,
/// by the position of its first statement.
pub(crate) fn find(body: &Block) -> Vec<(usize, BatchNorm)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < body.len() {
        match match_at(&body[i..]) {
            Some(bn) if crate::softmax::read_only_inside(body, i, 5, &bn.private) => {
                out.push((i, bn));
                i += 5;
            }
            _ => i += 1,
        }
    }
    out
}

impl Ad<'_> {
    /// Forward and reverse code of the batch norm `bn` made of `stmts`, or `None` when
    /// the rule does not apply here.
    /// [`crate::expert`] has checked that nothing needs saving.
    pub fn rev_batchnorm(&mut self, bn: &BatchNorm, stmts: &[Stmt]) -> Option<(Block, Block)> {
        if !self.is_active(bn.x) || !self.is_active(bn.y) || !self.nest.is_empty() || self.cond_depth > 0 {
            return None;
        }
        let span = stmts[4].span;
        let ty = self.elem(bn.y);
        let (xb, yb) = (self.adj_of(bn.x), self.adj_of(bn.y));
        let q = Expr::var(bn.q, Scalar::I64);
        // The last statement's map variables become the rows' and `q`.
        let mut row_vars = bn.rows.iter().map(|d| Expr::var(d.var, Scalar::I64));
        let subst: Vec<(VarId, Expr)> =
            bn.w.iter()
                .enumerate()
                .map(|(k, w)| (*w, if k == bn.axis { Some(q.clone()) } else { row_vars.next() }))
                .map(|(w, to)| to.map(|to| (w, to)))
                .collect::<Option<_>>()?;
        let value = subst.iter().fold(bn.value.clone(), |e, (w, to)| e.substitute(*w, to));
        let ExprKind::Binary(BinOp::Div, num, den) = &value.kind else { return None };
        let mut idx: Vec<Expr> = bn.rows.iter().map(|d| Expr::var(d.var, Scalar::I64)).collect();
        idx.insert(bn.axis, q.clone());
        let ybq = Expr::load(yb, idx.clone(), ty);
        let yn = self.name(bn.y);
        let r = self.temp(&format!("{}_rstd", self.name(bn.x)), ty, true);
        let sdy = self.temp(&format!("{yn}_b_sum"), ty, true);
        let sdyx = self.temp(&format!("{yn}_b_hat_sum"), ty, true);
        let (rv, sdyv, sdyxv) = (Expr::var(r, ty), Expr::var(sdy, ty), Expr::var(sdyx, ty));
        let xhat = num.as_ref().clone().mul(rv.clone());
        let n = bn.extent.clone().cast(ty);
        let lp = |body: Block| {
            let l = Loop {
                id: LoopId::NEW,
                var: bn.q,
                start: Expr::int(0),
                stop: bn.extent.clone(),
                step: Expr::int(1),
                body,
            };
            Stmt::new(StmtKind::Loop(l), span)
        };
        let update =
            rv.clone().div(n.clone()).mul(n.mul(ybq.clone()).sub(sdyv.clone()).sub(xhat.clone().mul(sdyxv.clone())));
        let body = vec![
            Stmt::assign(Place::scalar(r), Expr::float(1.0, ty).div(den.as_ref().clone()), span),
            Stmt::assign(Place::scalar(sdy), zero(ty), span),
            Stmt::assign(Place::scalar(sdyx), zero(ty), span),
            lp(vec![
                Stmt::accumulate(Place::scalar(sdy), ybq.clone(), span),
                Stmt::accumulate(Place::scalar(sdyx), ybq.mul(xhat), span),
            ]),
            lp(vec![
                Stmt::accumulate(Place::element(xb, idx.clone()), update.cast(self.elem(bn.x)), span),
                Stmt::assign(Place::element(yb, idx), zero(ty), span),
            ]),
        ];
        let rev = Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: bn.rows.clone(), body }), span).with_note(
            Note::BatchNormBackward {
                x: self.name(bn.x),
                y: self.name(bn.y),
                var: self.name(bn.var),
                mean: self.name(bn.mean),
            },
        );
        Some((stmts.to_vec(), vec![rev]))
    }
}
