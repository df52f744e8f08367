//! NumPy's meaning of computed indices, and the entry checks that keep every index inside
//! its array.
//!
//! * A computed index that may be negative (`x[i - 1]` with `i` from 0) is lowered by the
//!   Python frontend to [`wrap_index`]: `(i - 1 < 0 ? i - 1 + n : i - 1)`, NumPy's rule.
//!   [`peel_negative_indices`] then splits each loop at the iterations where such an index
//!   changes sign, so every part of the loop indexes plainly (`x[i - 1 + n]` for `i < 1`,
//!   `x[i - 1]` after): no per-element branch in the loop, and affine indices for the
//!   autodiff and parallelisation analyses. Indices it cannot split on (a non-unit step, a
//!   non-affine index) keep the branch.
//! * [`index_checks`] bounds every element access and array view over the loops around it
//!   ([`crate::ranges`]) and returns the checks the generated function makes on entry
//!   (`if (n >= 1 && n > m) return ADJC_ERR_SHAPE;`): an index NumPy would reject (at or
//!   above the extent, or below `-n`) is refused before anything is written. A check that
//!   can never hold is a transpile-time error.

use crate::irutil;
use crate::ranges::{self, bound, const_diff, min_max, LoopRange};
use crate::sym::{self, Lin};
use adjc_ir::*;
use std::collections::BTreeMap;

/// `x < 0 ? x + extent : x`: NumPy's index `x` on an axis of extent `extent`.
pub fn wrap_index(x: Expr, extent: &Expr) -> Expr {
    let span = x.span;
    let cond = Expr::binary(BinOp::Lt, x.clone(), Expr::int(0));
    let wrapped = sym::canon(&x.clone().add(extent.clone()));
    Expr::select(cond, wrapped, x).with_span(span)
}

/// The index `x` of a [`wrap_index`] expression.
pub fn as_wrap(e: &Expr) -> Option<&Expr> {
    let ExprKind::Select(c, _, b) = &e.kind else { return None };
    match &c.kind {
        ExprKind::Binary(BinOp::Lt, x, z) if z.as_int() == Some(0) && **x == **b => Some(b),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// Peeling

/// Splits loops where a wrapped index changes sign (see the module documentation), then
/// drops the wraps of indices that cannot be negative where they are evaluated (`v[N - 1, i]`
/// inside a loop that only runs when `N >= 3`).
pub fn peel_negative_indices(f: &mut Function) {
    let body = std::mem::take(&mut f.body);
    let mut body = peel_block(f, body);
    let extents = extent_params(f);
    let fixed = |v: VarId| f.is_param(v);
    let nonneg = |v: VarId| extents.contains(&v);
    // The entry checks hold wherever the body runs (a guarded one where its guard does).
    let facts: Vec<(Vec<Lin>, Lin)> = f
        .assumptions
        .iter()
        .filter(|a| a.rel == Relation::Le && a.each.is_none())
        .filter_map(|a| {
            let fact = Lin::from_expr(&a.rhs).sub(&Lin::from_expr(&a.lhs))?;
            let guard: Option<Vec<Lin>> = conjuncts(&a.guard)
                .iter()
                .map(|c| match &c.kind {
                    ExprKind::Binary(BinOp::Le, l, r) => Lin::from_expr(r).sub(&Lin::from_expr(l)),
                    _ => None,
                })
                .collect();
            Some((guard?, ranges::integer_fact(&fact)))
        })
        .collect();
    drop_needless_wraps(&mut body, &mut Vec::new(), &fixed, &nonneg, &facts);
    f.body = body;
}

fn extent_params(f: &Function) -> Vec<VarId> {
    let mut extents = Vec::new();
    for v in &f.vars {
        for d in v.ty.dims() {
            if let ExprKind::Var(x) = d.extent.kind {
                extents.push(x);
            }
        }
    }
    extents
}

fn drop_needless_wraps(
    b: &mut Block,
    ctx: &mut Vec<LoopRange>,
    fixed: &dyn Fn(VarId) -> bool,
    nonneg: &dyn Fn(VarId) -> bool,
    facts: &[(Vec<Lin>, Lin)],
) {
    for s in b.iter_mut() {
        let mut inner: Vec<LoopRange> = Vec::new();
        match &s.kind {
            StmtKind::Loop(l) => inner.extend(LoopRange::of_loop(l)),
            StmtKind::Map(m) => inner.extend(m.dims.iter().map(LoopRange::of_map_dim)),
            _ => {}
        }
        let n = inner.len();
        ctx.extend(inner);
        let loops: &[LoopRange] = ctx;
        // A guard holds here when each of its conditions is a loop around here running.
        let widths: Vec<Lin> = loops
            .iter()
            .filter_map(|l| Lin::from_expr(&l.hi).sub(&Lin::from_expr(&l.lo)))
            .filter(|w| w.vars().iter().all(|v| fixed(*v)))
            .collect();
        let here: Vec<Lin> = facts
            .iter()
            .filter(|(guard, _)| {
                guard.iter().all(|g| widths.iter().any(|w| g.sub(w).and_then(|d| d.as_const()) == Some(0)))
            })
            .map(|(_, fact)| fact.clone())
            .collect();
        let fe = |e: &Expr| {
            e.rewrite(&mut |x| match as_wrap(&x) {
                Some(w) if ranges::never_negative_given(w, loops, fixed, nonneg, &here) => w.clone(),
                _ => x,
            })
        };
        match &mut s.kind {
            StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
                target.index = target.index.iter().map(fe).collect();
                *value = fe(value);
            }
            StmtKind::If { cond, .. } => *cond = fe(cond),
            _ => {}
        }
        match &mut s.kind {
            StmtKind::Loop(l) => drop_needless_wraps(&mut l.body, ctx, fixed, nonneg, facts),
            StmtKind::Map(m) => drop_needless_wraps(&mut m.body, ctx, fixed, nonneg, facts),
            StmtKind::If { then_body, else_body, .. } => {
                drop_needless_wraps(then_body, ctx, fixed, nonneg, facts);
                drop_needless_wraps(else_body, ctx, fixed, nonneg, facts);
            }
            StmtKind::Section { body, .. } => drop_needless_wraps(body, ctx, fixed, nonneg, facts),
            _ => {}
        }
        ctx.truncate(ctx.len() - n);
    }
}

fn peel_block(f: &mut Function, b: Block) -> Block {
    let mut out = Vec::with_capacity(b.len());
    for mut s in b {
        match s.kind {
            StmtKind::Loop(l) => out.extend(peel_loop(f, l, s.span, s.note)),
            StmtKind::Map(mut m) => {
                m.body = peel_block(f, m.body);
                s.kind = StmtKind::Map(m);
                out.push(s);
            }
            StmtKind::If { cond, then_body, else_body } => {
                let (then_body, else_body) = (peel_block(f, then_body), peel_block(f, else_body));
                s.kind = StmtKind::If { cond, then_body, else_body };
                out.push(s);
            }
            StmtKind::Section { title, body } => {
                s.kind = StmtKind::Section { title, body: peel_block(f, body) };
                out.push(s);
            }
            kind => {
                s.kind = kind;
                out.push(s);
            }
        }
    }
    out
}

/// Where a wrapped index on loop variable `v` is negative: `v < t` (`below`) or `v >= t`.
struct Threshold {
    t: Expr,
    below: bool,
}

/// The sign change of wrapped index `x` along `v`, when `x = ±v + rest` with `rest` free of
/// variables bound inside the loop.
fn threshold(x: &Expr, v: VarId, inner: &[VarId]) -> Option<Threshold> {
    let mut lin = Lin::from_expr(x);
    if lin.has_opaque() {
        return None;
    }
    let c = lin.take(v);
    if c.abs() != 1 || lin.vars().iter().any(|u| inner.contains(u)) {
        return None;
    }
    let rest = lin;
    if c == 1 {
        // v + rest < 0  <=>  v < -rest
        Some(Threshold { t: rest.scale(-1)?.to_expr(), below: true })
    } else {
        // rest - v < 0  <=>  v >= rest + 1
        Some(Threshold { t: rest.add(&Lin::constant(1))?.to_expr(), below: false })
    }
}

fn bound_vars(b: &Block) -> Vec<VarId> {
    let mut out = Vec::new();
    walk_stmts(b, &mut |s| match &s.kind {
        StmtKind::Loop(l) => out.push(l.var),
        StmtKind::Map(m) => out.extend(m.dims.iter().map(|d| d.var)),
        _ => {}
    });
    out
}

fn wraps_in(b: &Block) -> Vec<Expr> {
    let mut out = Vec::new();
    let mut visit = |e: &Expr| {
        e.walk(&mut |x| {
            if let Some(w) = as_wrap(x) {
                out.push(w.clone());
            }
        })
    };
    walk_exprs(b, &mut visit);
    walk_stmts(b, &mut |s| {
        if let StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } = &s.kind {
            for i in &target.index {
                i.walk(&mut |x| {
                    if let Some(w) = as_wrap(x) {
                        out.push(w.clone());
                    }
                });
            }
        }
    });
    out
}

/// At most this many thresholds per loop (each adds a copy of the loop body).
const MAX_CUTS: usize = 4;

fn peel_loop(f: &mut Function, mut l: Loop, span: Span, note: Option<Note>) -> Vec<Stmt> {
    let step = l.step.as_int();
    let inner = bound_vars(&l.body);
    let mut cuts: Vec<Expr> = Vec::new();
    let mut splittable = matches!(step, Some(1) | Some(-1));
    if splittable {
        for x in wraps_in(&l.body) {
            if !x.mentions(l.var) {
                continue;
            }
            match threshold(&x, l.var, &inner) {
                Some(th) => {
                    if !cuts.iter().any(|c| const_diff(c, &th.t) == Some(0)) {
                        cuts.push(th.t);
                    }
                }
                None => splittable = false,
            }
        }
    }
    // The iterations, as the half-open interval [lo, hi) of values.
    let (lo, hi) = if step == Some(1) {
        (l.start.clone(), l.stop.clone())
    } else {
        (sym::canon(&l.stop.clone().add(Expr::int(1))), sym::canon(&l.start.clone().add(Expr::int(1))))
    };
    // Thresholds outside [lo, hi) cut nothing.
    cuts.retain(|t| {
        !matches!(const_diff(t, &lo), Some(d) if d <= 0) && !matches!(const_diff(t, &hi), Some(d) if d >= 0)
    });
    let comparable = cuts.iter().all(|a| cuts.iter().all(|b| const_diff(a, b).is_some()));
    // A loop of a few iterations (`range(K - 1, K)`) keeps its branch: copies of its body
    // would cost more to read than the branch costs to run.
    let short = const_diff(&hi, &lo).is_some_and(|trips| trips <= MAX_CUTS as i64);
    if !splittable || !comparable || short || cuts.len() > MAX_CUTS {
        // Keep the branch; still split the loops inside.
        l.body = peel_block(f, l.body);
        let mut s = Stmt::new(StmtKind::Loop(l), span);
        s.note = note;
        return vec![s];
    }
    if let Some(first) = cuts.first().cloned() {
        cuts.sort_by_key(|t| const_diff(t, &first).unwrap_or(0));
    }
    let mut points = vec![lo.clone()];
    for t in &cuts {
        let p = match (const_diff(t, &lo), const_diff(&hi, t)) {
            (Some(_), Some(_)) => t.clone(),
            (Some(_), None) => min_max(Intrinsic::Min, t.clone(), hi.clone()),
            (None, Some(_)) => min_max(Intrinsic::Max, lo.clone(), t.clone()),
            (None, None) => min_max(Intrinsic::Max, lo.clone(), min_max(Intrinsic::Min, t.clone(), hi.clone())),
        };
        points.push(p);
    }
    points.push(hi.clone());
    let pieces = cuts.len() + 1;
    let resolve = |j: usize, x: &Expr, wrapped: &Expr, plain: &Expr, var: VarId| -> Expr {
        let Some(th) = threshold(x, var, &inner) else {
            return Expr::select(Expr::binary(BinOp::Lt, x.clone(), Expr::int(0)), wrapped.clone(), plain.clone());
        };
        let neg = match cuts.iter().position(|c| const_diff(c, &th.t) == Some(0)) {
            // Piece j lies below cut m (1-based) iff j < m.
            Some(m) => (j < m + 1) == th.below,
            // Outside [lo, hi): every value lies above (below) the threshold.
            None => {
                let all_above = matches!(const_diff(&th.t, &lo), Some(d) if d <= 0);
                all_above != th.below
            }
        };
        if neg {
            wrapped.clone()
        } else {
            plain.clone()
        }
    };
    let mut order: Vec<usize> = (0..pieces).collect();
    if step == Some(-1) {
        order.reverse();
    }
    let mut out = Vec::new();
    for j in order {
        let (body, var) = if pieces == 1 || j == 0 { (l.body.clone(), l.var) } else { fresh_copy(f, &l.body, l.var) };
        let mut body = body;
        let fe = |e: &Expr| {
            e.rewrite(&mut |x| match &x.kind {
                ExprKind::Select(_, a, b) if as_wrap(&x).is_some() => resolve(j, b, a, b, var),
                _ => x,
            })
        };
        irutil::rewrite_block(&mut body, &fe, &|v| v);
        let body = peel_block(f, body);
        let (a, b) = (points[j].clone(), points[j + 1].clone());
        let (start, stop) =
            if step == Some(1) { (a, b) } else { (sym::canon(&b.sub(Expr::int(1))), sym::canon(&a.sub(Expr::int(1)))) };
        let lp = Loop { id: LoopId::NEW, var, start, stop, step: l.step.clone(), body };
        let mut s = Stmt::new(StmtKind::Loop(lp), span);
        s.note = if pieces > 1 { Some(Note::NegativeIndexPart { part: j + 1, of: pieces }) } else { note.clone() };
        out.push(s);
    }
    out
}

/// A copy of a loop body over a fresh loop variable, with fresh variables for the loops
/// and maps inside (each index variable is bound by exactly one loop).
fn fresh_copy(f: &mut Function, body: &Block, var: VarId) -> (Block, VarId) {
    let mut map = BTreeMap::new();
    for v in std::iter::once(var).chain(bound_vars(body)) {
        let old = f.var(v).clone();
        let nv = f.add_var(old.name.clone(), old.ty.clone(), old.role.clone(), old.span);
        map.insert(v, nv);
    }
    let mut b = body.clone();
    irutil::rewrite_block(&mut b, &|e| e.clone(), &|v| map.get(&v).copied().unwrap_or(v));
    (b, map[&var])
}

// ---------------------------------------------------------------------------------------
// Entry checks

/// One element access or view axis: the index range that must lie in `[lo, hi]`.
struct Access {
    var: VarId,
    axis: usize,
    /// The smallest and largest index used, as expressions over loop variables.
    first: Expr,
    last: Expr,
    /// NumPy's wrapped index: valid from `-extent`.
    wrapped: bool,
    /// Extra condition for the access to happen (a view of positive length).
    when: Option<Expr>,
    span: Span,
}

/// The entry checks that keep every index of `f` inside its array (see the module
/// documentation); an error for an index that is out of bounds whenever it is used.
pub fn index_checks(f: &Function) -> Result<Vec<Assumption>, Diagnostic> {
    let mut out = Vec::new();
    let extents = extent_params(f);
    let locals = crate::index_vars::index_local_ranges(f);
    let mut cx =
        Walk { f, out: &mut out, loops: Vec::new(), guards: Vec::new(), extents, locals, assigned: Default::default() };
    cx.block(&f.body)?;
    // Keep one of identical checks, and drop a check that a stronger one under the same
    // guard implies (`M <= n + 1` beside `M <= n`).
    let slack = |a: &Assumption| Lin::from_expr(&a.rhs).sub(&Lin::from_expr(&a.lhs));
    let mut uniq: Vec<Assumption> = Vec::new();
    for (k, a) in out.iter().enumerate() {
        // A scan of one index array says nothing about another one (`every idx in [-N,
        // N - 1]` does not imply `every cols in [-N, N - 1]`).
        let implied = out.iter().enumerate().any(|(j, b)| {
            j != k && a.each == b.each && guard_weaker(&b.guard, &a.guard) && {
                match (slack(a), slack(b)) {
                    (Some(sa), Some(sb)) => match sa.sub(&sb).and_then(|d| d.as_const()) {
                        Some(d) => d > 0 || (d == 0 && j < k),
                        None => false,
                    },
                    _ => false,
                }
            }
        });
        if !implied {
            uniq.push(a.clone());
        }
    }
    Ok(uniq)
}

/// `idx[...] + c` with `idx` an integer array parameter the function never writes: a
/// gather, whose index range is checked by scanning `idx` on entry.
fn gather(f: &Function, index: &Expr) -> Option<(VarId, i64)> {
    let lin = Lin::from_expr(index);
    let atoms = lin.opaque_terms();
    if !lin.vars().is_empty() || atoms.len() != 1 || atoms[0].1 != 1 {
        return None;
    }
    let ExprKind::Load(arr, _) = atoms[0].0.kind else { return None };
    let read_only = f.param(arr).is_some_and(|p| p.intent == Intent::In);
    (read_only && f.var(arr).ty.elem() == Scalar::I64).then_some((arr, lin.c))
}

/// Whether two checks say the same thing (`if 1 <= N: N <= M` and `if 0 <= N - 1: N <= M`):
/// the index checks skip what a frontend's shape rules already check.
pub fn same_check(a: &Assumption, b: &Assumption) -> bool {
    let slack = |l: &Expr, r: &Expr| Lin::from_expr(r).sub(&Lin::from_expr(l));
    let guards = |g: &Option<Expr>| -> Vec<Option<Lin>> {
        conjuncts(g)
            .iter()
            .map(|c| match &c.kind {
                ExprKind::Binary(BinOp::Le, l, r) => slack(l, r),
                ExprKind::Binary(BinOp::Lt, l, r) => slack(l, r).map(|s| s.add(&Lin::constant(-1)).unwrap_or(s)),
                _ => None,
            })
            .collect()
    };
    let (ga, gb) = (guards(&a.guard), guards(&b.guard));
    a.rel == b.rel
        && a.each == b.each
        && slack(&a.lhs, &a.rhs).is_some()
        && slack(&a.lhs, &a.rhs) == slack(&b.lhs, &b.rhs)
        && ga.iter().all(|x| x.is_some() && gb.contains(x))
        && gb.iter().all(|x| ga.contains(x))
}

fn conjuncts(g: &Option<Expr>) -> Vec<Expr> {
    fn go(e: &Expr, out: &mut Vec<Expr>) {
        match &e.kind {
            ExprKind::Binary(BinOp::And, a, b) => {
                go(a, out);
                go(b, out);
            }
            _ => out.push(e.clone()),
        }
    }
    let mut out = Vec::new();
    if let Some(e) = g {
        go(e, &mut out);
    }
    out
}

/// Whether guard `b` holds whenever guard `a` does (each of its conditions is one of `a`'s).
fn guard_weaker(b: &Option<Expr>, a: &Option<Expr>) -> bool {
    let ca = conjuncts(a);
    conjuncts(b).iter().all(|x| ca.contains(x))
}

struct Walk<'a> {
    f: &'a Function,
    out: &'a mut Vec<Assumption>,
    loops: Vec<LoopRange>,
    /// Per enclosing loop or refined `if`, a necessary condition for the body to run.
    guards: Vec<Vec<Fact>>,
    /// Parameters that are array extents (never negative).
    extents: Vec<VarId>,
    /// Integer locals assigned in the routine with a range over parameters
    /// (`crate::index_vars`), and those definitely assigned at the current point.
    locals: BTreeMap<VarId, LoopRange>,
    assigned: crate::index_vars::Assigned,
}

/// `lo <= hi`, over parameters.
#[derive(Clone, Debug)]
struct Fact {
    lo: Expr,
    hi: Expr,
}

impl Fact {
    fn slack(&self) -> Option<Lin> {
        Lin::from_expr(&self.hi).sub(&Lin::from_expr(&self.lo))
    }
}

impl<'a> Walk<'a> {
    fn fixed(&self) -> impl Fn(VarId) -> bool + '_ {
        |v| self.f.is_param(v)
    }

    /// The enclosing loops, then the integer locals assigned on every path to here with
    /// their ranges (`crate::index_vars`), as loop variables.
    fn loops_here(&self) -> Vec<LoopRange> {
        let mut loops = self.loops.clone();
        loops.extend(self.assigned.0.iter().filter_map(|v| self.locals.get(v)).cloned());
        loops
    }

    fn block(&mut self, b: &Block) -> Result<(), Diagnostic> {
        for s in b {
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), Diagnostic> {
        match &s.kind {
            StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
                self.place(target, s.span)?;
                self.expr(value, s.span)?;
                if target.index.is_empty() && self.locals.contains_key(&target.var) {
                    self.assigned.0.insert(target.var);
                }
            }
            StmtKind::Loop(l) => {
                for e in [&l.start, &l.stop, &l.step] {
                    self.expr(e, s.span)?;
                }
                let before = self.assigned.clone();
                let r = LoopRange::of_loop(l).unwrap_or_else(|| {
                    // A step only known at run time: the values lie between the bounds.
                    LoopRange {
                        var: l.var,
                        lo: min_max(Intrinsic::Min, l.start.clone(), sym::canon(&l.stop.clone().add(Expr::int(1)))),
                        hi: min_max(Intrinsic::Max, l.start.clone(), sym::canon(&l.stop.clone().sub(Expr::int(1)))),
                    }
                });
                let res = self.enter(r, s.span, &l.body);
                // The body may run no iteration.
                self.assigned = before;
                res?;
            }
            // The body runs under the loops around the `while`, like an `if`'s branch.
            StmtKind::While(w) => {
                self.expr(&w.cond, s.span)?;
                let before = self.assigned.clone();
                let res = self.block(&w.body);
                self.assigned = before;
                res?;
            }
            StmtKind::Map(m) => {
                let n = m.dims.len();
                for d in &m.dims {
                    self.expr(&d.start, s.span)?;
                    self.expr(&d.stop, s.span)?;
                    let r = LoopRange::of_map_dim(d);
                    let g = self.runs_guard(&r);
                    self.loops.push(r);
                    self.guards.push(g.into_iter().collect());
                }
                let before = self.assigned.clone();
                let res = self.block(&m.body);
                self.assigned = before;
                for _ in 0..n {
                    self.loops.pop();
                    self.guards.pop();
                }
                res?;
            }
            StmtKind::If { cond, then_body, else_body } => {
                self.expr(cond, s.span)?;
                let before = self.assigned.clone();
                let mut after = Vec::new();
                for (body, negate) in [(then_body, false), (else_body, true)] {
                    let saved = self.loops.clone();
                    let extra = if cond.ty == Scalar::Bool { self.refine(cond, negate) } else { Vec::new() };
                    self.guards.push(extra);
                    self.assigned = before.clone();
                    let r = self.block(body);
                    self.guards.pop();
                    self.loops = saved;
                    r?;
                    after.push(std::mem::take(&mut self.assigned));
                }
                let b = after.pop().unwrap_or_default();
                let a = after.pop().unwrap_or_default();
                self.assigned = crate::index_vars::Assigned::join(a, b);
            }
            StmtKind::Call(c) => {
                for (var, view) in std::iter::once((c.out, &c.out_view)).chain(c.args.iter().copied().zip(&c.arg_views))
                {
                    self.view(var, view, s.span)?;
                }
                self.expr(&c.alpha, s.span)?;
                self.expr(&c.beta, s.span)?;
            }
            StmtKind::Push { value, .. } => self.expr(value, s.span)?,
            StmtKind::Pop { target, .. } => self.place(target, s.span)?,
            StmtKind::Section { body, .. } => self.block(body)?,
            StmtKind::Alloc(_) | StmtKind::Free(_) | StmtKind::Fail(_) => {}
        }
        Ok(())
    }

    fn enter(&mut self, r: LoopRange, _span: Span, body: &Block) -> Result<(), Diagnostic> {
        let g = self.runs_guard(&r);
        self.loops.push(r);
        self.guards.push(g.into_iter().collect());
        let res = self.block(body);
        self.loops.pop();
        self.guards.pop();
        res
    }

    /// A necessary condition, over parameters, for a loop to run at least once:
    /// `1 <= max(hi - lo + 1)` over the enclosing loops.
    fn runs_guard(&self, r: &LoopRange) -> Option<Fact> {
        let trips = sym::canon(&r.hi.clone().sub(r.lo.clone()).add(Expr::int(1)));
        let most = bound(&trips, &self.loops, true, &self.fixed())?;
        match most.as_int() {
            Some(k) if k >= 1 => None,
            _ => Some(Fact { lo: Expr::int(1), hi: most }),
        }
    }

    /// Narrows the range of a loop variable under an `if` on it (`if i < n - 1:`).
    fn refine(&mut self, cond: &Expr, negate: bool) -> Vec<Fact> {
        let ExprKind::Binary(BinOp::And, a, b) = &cond.kind else {
            return self.refine_one(cond, negate).into_iter().collect();
        };
        if negate {
            return Vec::new();
        }
        let mut facts = self.refine(a, false);
        facts.extend(self.refine(b, false));
        facts
    }

    fn refine_one(&mut self, cond: &Expr, negate: bool) -> Option<Fact> {
        let ExprKind::Binary(op, a, b) = &cond.kind else { return None };
        let op = match (op, negate) {
            (BinOp::Lt, false) | (BinOp::Ge, true) => BinOp::Lt,
            (BinOp::Le, false) | (BinOp::Gt, true) => BinOp::Le,
            (BinOp::Gt, false) | (BinOp::Le, true) => BinOp::Gt,
            (BinOp::Ge, false) | (BinOp::Lt, true) => BinOp::Ge,
            _ => return None,
        };
        if a.ty != Scalar::I64 {
            return None;
        }
        let mut d = Lin::from_expr(a).sub(&Lin::from_expr(b))?;
        if d.has_opaque() {
            return None;
        }
        let k = (0..self.loops.len()).rev().find(|k| d.coeff(self.loops[*k].var).abs() == 1)?;
        let c = d.take(self.loops[k].var);
        let outer: Vec<VarId> = self.loops[..k].iter().map(|l| l.var).collect();
        if d.vars().iter().any(|v| !outer.contains(v) && !self.f.is_param(*v)) {
            return None;
        }
        // c*v + rest OP 0, as a bound on v.
        let rest = d;
        let neg_rest = rest.scale(-1)?;
        let (upper, value) = match (op, c) {
            (BinOp::Lt, 1) => (true, neg_rest.add(&Lin::constant(-1))?),
            (BinOp::Lt, _) => (false, rest.add(&Lin::constant(1))?),
            (BinOp::Le, 1) => (true, neg_rest),
            (BinOp::Le, _) => (false, rest),
            (BinOp::Gt, 1) => (false, neg_rest.add(&Lin::constant(1))?),
            (BinOp::Gt, _) => (true, rest.add(&Lin::constant(-1))?),
            (BinOp::Ge, 1) => (false, neg_rest),
            _ => (true, rest),
        };
        let value = value.to_expr();
        let l = &mut self.loops[k];
        if upper {
            l.hi = min_max(Intrinsic::Min, l.hi.clone(), value);
        } else {
            l.lo = min_max(Intrinsic::Max, l.lo.clone(), value);
        }
        // The narrowed range may be empty: then nothing inside runs.
        let l = self.loops[k].clone();
        let width = sym::canon(&l.hi.clone().sub(l.lo.clone()));
        let most = bound(&width, &self.loops[..k], true, &self.fixed())?;
        match most.as_int() {
            Some(w) if w >= 0 => None,
            _ => Some(Fact { lo: Expr::int(0), hi: most }),
        }
    }

    fn expr(&mut self, e: &Expr, span: Span) -> Result<(), Diagnostic> {
        let mut loads = Vec::new();
        e.walk(&mut |x| {
            if let ExprKind::Load(v, idx) = &x.kind {
                loads.push((*v, idx.clone(), if x.span.is_none() { span } else { x.span }));
            }
        });
        for (v, idx, sp) in loads {
            self.element(v, &idx, sp)?;
        }
        Ok(())
    }

    fn place(&mut self, p: &Place, span: Span) -> Result<(), Diagnostic> {
        for i in &p.index {
            self.expr(i, span)?;
        }
        if !p.index.is_empty() {
            self.element(p.var, &p.index, span)?;
        }
        Ok(())
    }

    fn element(&mut self, v: VarId, idx: &[Expr], span: Span) -> Result<(), Diagnostic> {
        for (axis, i) in idx.iter().enumerate() {
            let (x, wrapped) = match as_wrap(i) {
                Some(x) => (x.clone(), true),
                None => (i.clone(), false),
            };
            self.check(Access { var: v, axis, first: x.clone(), last: x, wrapped, when: None, span })?;
        }
        Ok(())
    }

    fn view(&mut self, v: VarId, view: &View, span: Span) -> Result<(), Diagnostic> {
        for (axis, start) in view.start.iter().enumerate() {
            self.expr(start, span)?;
            let (last, when) = match view.axes.iter().position(|a| *a == axis) {
                Some(k) => {
                    let len = &view.extents[k];
                    // A clamped length `max(0, L)`: elements are only read where `L >= 1`,
                    // so the last one is `start + L - 1`.
                    let reach = match &len.kind {
                        ExprKind::Call(Intrinsic::Max, args) if args.len() == 2 && args[0].as_int() == Some(0) => {
                            &args[1]
                        }
                        ExprKind::Call(Intrinsic::Max, args) if args.len() == 2 && args[1].as_int() == Some(0) => {
                            &args[0]
                        }
                        _ => len,
                    };
                    let last = sym::canon(&start.clone().add(reach.clone()).sub(Expr::int(1)));
                    (last, Some(Expr::binary(BinOp::Lt, Expr::int(0), len.clone())))
                }
                None => (start.clone(), None),
            };
            self.check(Access { var: v, axis, first: start.clone(), last, wrapped: false, when, span })?;
        }
        Ok(())
    }

    fn check(&mut self, a: Access) -> Result<(), Diagnostic> {
        let var = self.f.var(a.var);
        let Some(dim) = var.ty.dims().get(a.axis) else { return Ok(()) };
        let loops = self.loops_here();
        let f = self.f;
        let fixed = |v: VarId| f.is_param(v);
        // The access runs only if its view is non-empty somewhere in the loops.
        let mut facts: Vec<Fact> = self.guards.iter().flatten().cloned().collect();
        if let Some(w) = &a.when {
            let ExprKind::Binary(_, _, len) = &w.kind else { return Ok(()) };
            match bound(len, &loops, true, &fixed) {
                Some(most) => match most.as_int() {
                    Some(k) if k >= 1 => {}
                    Some(_) => return Ok(()),
                    None => facts.push(Fact { lo: Expr::int(1), hi: most }),
                },
                None => return Ok(()),
            }
        }
        let extents = &self.extents;
        let nonneg = |l: &Lin| ranges::provably_nonneg(l, extents, 0);
        // A guard that always holds says nothing; one that never holds means the access
        // never runs.
        let mut kept = Vec::new();
        for fact in facts {
            match fact.slack() {
                Some(l) if nonneg(&l) => {}
                Some(l) if l.as_const().is_some_and(|c| c < 0) => return Ok(()),
                _ => kept.push(fact),
            }
        }
        let mut facts: Vec<Fact> = Vec::new();
        for fact in kept {
            if !facts.iter().any(|g| g.lo == fact.lo && g.hi == fact.hi) {
                facts.push(fact);
            }
        }
        let low_limit = if a.wrapped { sym::canon(&dim.extent.clone().neg()) } else { dim.lower.clone() };
        let high_limit = sym::canon(&dim.lower.clone().add(dim.extent.clone()).sub(Expr::int(1)));
        let name = &var.name;
        let ext_ok = |v: VarId| self.extents.contains(&v);
        let lo = ranges::bound_nonneg(&a.first, &loops, false, &fixed, &ext_ok);
        let hi = ranges::bound_nonneg(&a.last, &loops, true, &fixed, &ext_ok);
        if lo.is_none() || hi.is_none() {
            if let Some((arr, c)) = gather(self.f, &a.first) {
                let guard = facts
                    .iter()
                    .map(|g| Expr::binary(BinOp::Le, g.lo.clone(), g.hi.clone()))
                    .reduce(|x, y| Expr::binary(BinOp::And, x, y));
                let axis_txt = if var.ty.rank() > 1 { format!(" (axis {})", a.axis) } else { String::new() };
                self.out.push(Assumption {
                    lhs: sym::canon(&low_limit.clone().sub(Expr::int(c))),
                    rel: Relation::Le,
                    rhs: sym::canon(&high_limit.clone().sub(Expr::int(c))),
                    guard,
                    each: Some(arr),
                    span: a.span,
                    what: format!("`{}` indexes `{name}`{axis_txt}", self.f.var(arr).name),
                });
                return Ok(());
            }
            let mut depends: Vec<String> = a
                .first
                .vars()
                .into_iter()
                .chain(a.last.vars())
                .filter(|v| !self.f.is_param(*v) && !loops.iter().any(|l| l.var == *v))
                .map(|v| format!("`{}`", self.f.var(v).name))
                .collect();
            depends.dedup();
            // An index read from an integer array that is not a read-only parameter: its
            // values are only known as the call runs, so no entry scan can check them.
            let mut through: Vec<String> = Vec::new();
            a.first.walk(&mut |x| {
                if let ExprKind::Load(v, _) = &x.kind {
                    let n = format!("`{}`", self.f.var(*v).name);
                    if self.f.var(*v).ty.elem() == Scalar::I64 && !through.contains(&n) {
                        through.push(n);
                    }
                }
            });
            if !through.is_empty() {
                return Err(Diagnostic::error(
                    a.span,
                    format!(
                        "cannot check this index of `{name}` on entry: it is read from {}, which the function \
                         writes or computes (only read-only integer array parameters are scanned on entry), \
                         or it combines several values read from index arrays",
                        through.join(", ")
                    ),
                )
                .with_help(
                    "index with one value of an integer array parameter that the function does not modify, \
                     plus a constant (`x[idx[i]]`, `x[cell[e, 0] + 1]`); adjc writes no C whose indices it cannot check",
                ));
            }
            let why = if depends.is_empty() {
                "it is not an affine, monotone or modular function of the loop variables".to_string()
            } else {
                format!("it depends on {}, which changes during the call", depends.join(", "))
            };
            return Err(Diagnostic::error(
                a.span,
                format!("cannot prove that this index of `{name}` stays inside the array: {why}"),
            )
            .with_help("adjc only writes C whose indices it can check; index with an expression of the loop variables and sizes (such as `y[2 * i]`)"));
        }
        let guard = facts
            .iter()
            .map(|g| Expr::binary(BinOp::Le, g.lo.clone(), g.hi.clone()))
            .reduce(|x, y| Expr::binary(BinOp::And, x, y));
        let axis_txt = if var.ty.rank() > 1 { format!(" (axis {})", a.axis) } else { String::new() };
        let what = format!("index of `{name}`{axis_txt} in range");
        let out = &mut *self.out;
        let mut push = |lhs: Expr, rhs: Expr, error: String| -> Result<(), Diagnostic> {
            let Some(slack) = Lin::from_expr(&rhs).sub(&Lin::from_expr(&lhs)) else { return Ok(()) };
            // Proved outright, or by one of the conditions for the access to run.
            if nonneg(&slack) || facts.iter().any(|g| g.slack().and_then(|s| slack.sub(&s)).is_some_and(|d| nonneg(&d)))
            {
                return Ok(());
            }
            if slack.as_const().is_some_and(|c| c < 0) {
                return Err(Diagnostic::error(a.span, error)
                    .with_help("NumPy raises IndexError for this index; fix the loop bounds or the index"));
            }
            // `lhs <= rhs` written with positive terms on each side: `2 <= n`, `m <= n`.
            let (mut pos, mut negs) = (Lin::constant(0), Lin::constant(0));
            for v in slack.vars() {
                let k = slack.coeff(v);
                let t = Lin::var(v).scale(k.abs()).unwrap_or_default();
                if k > 0 {
                    pos = pos.add(&t).unwrap_or_default();
                } else {
                    negs = negs.add(&t).unwrap_or_default();
                }
            }
            for (e, k) in slack.opaque_terms() {
                let t = Lin::from_expr(&e).scale(k.abs()).unwrap_or_default();
                if k > 0 {
                    pos = pos.add(&t).unwrap_or_default();
                } else {
                    negs = negs.add(&t).unwrap_or_default();
                }
            }
            if slack.c > 0 {
                pos.c = slack.c;
            } else {
                negs.c = -slack.c;
            }
            out.push(Assumption {
                lhs: negs.to_expr(),
                rel: Relation::Le,
                rhs: pos.to_expr(),
                guard: guard.clone(),
                each: None,
                span: a.span,
                what: what.clone(),
            });
            Ok(())
        };
        let ext = print::expr_str(self.f, &dim.extent);
        if let Some(lo) = lo {
            let error = format!(
                "index out of bounds: the index of `{name}`{axis_txt} goes down to `{}`, below `{}`",
                print::expr_str(self.f, &lo),
                print::expr_str(self.f, &low_limit)
            );
            push(low_limit.clone(), lo, error)?;
        }
        // A reshaped view's leading index `l // (B * C)` with `l < A * B * C` is below `A`.
        let reshaped = match &a.last.kind {
            ExprKind::Binary(BinOp::FloorDiv, num, d) if d.as_int().is_none() => bound(num, &loops, true, &fixed)
                .is_some_and(|u| {
                    let lhs = sym::sort_products(&u.add(Expr::int(1)));
                    let rhs = sym::sort_products(&(**d).clone().mul(dim.extent.clone()));
                    Lin::from_expr(&lhs) == Lin::from_expr(&rhs)
                }),
            _ => false,
        };
        if let Some(hi) = hi.filter(|_| !reshaped) {
            let error = format!(
                "index out of bounds: the index of `{name}`{axis_txt} goes up to `{}`, past the last element of an axis of extent `{ext}`",
                print::expr_str(self.f, &hi)
            );
            push(hi, high_limit, error)?;
        }
        Ok(())
    }
}

/// Drops the `<=` checks that always hold where they apply (`2 <= N` under the guard
/// `1 <= N - 2`) and those another check implies (`1 <= n` beside `N <= n` when `N >= 3`),
/// whichever rule (index ranges, shape rules) made them.
pub fn prune_checks(f: &mut Function) {
    let extents = extent_params(f);
    let slack = |l: &Expr, r: &Expr| Lin::from_expr(r).sub(&Lin::from_expr(l));
    let facts = |a: &Assumption| -> Vec<Lin> {
        conjuncts(&a.guard)
            .iter()
            .filter_map(|c| match &c.kind {
                ExprKind::Binary(BinOp::Le, l, r) => slack(l, r),
                _ => None,
            })
            .collect()
    };
    let holds_given = |d: &Lin, facts: &[Lin]| {
        ranges::provably_nonneg(d, &extents, 0)
            || facts.iter().any(|g| d.sub(g).is_some_and(|x| ranges::provably_nonneg(&x, &extents, 0)))
    };
    let all = f.assumptions.clone();
    let mut keep = vec![true; all.len()];
    for (i, a) in all.iter().enumerate() {
        if a.rel != Relation::Le || a.each.is_some() {
            continue;
        }
        let Some(da) = slack(&a.lhs, &a.rhs) else { continue };
        let fa = facts(a);
        if holds_given(&da, &fa) {
            keep[i] = false;
            continue;
        }
        // Implied by a kept check that applies whenever this one does.
        let implied = all.iter().enumerate().any(|(j, b)| {
            j != i
                && keep[j]
                && b.rel == Relation::Le
                && b.each.is_none()
                && guard_weaker(&b.guard, &a.guard)
                && slack(&b.lhs, &b.rhs).and_then(|db| da.sub(&db)).is_some_and(|x| {
                    let strict = x.as_const() != Some(0) || j < i;
                    strict && holds_given(&x, &fa)
                })
        });
        if implied {
            keep[i] = false;
        }
    }
    let mut k = 0;
    f.assumptions.retain(|_| {
        k += 1;
        keep[k - 1]
    });
}
