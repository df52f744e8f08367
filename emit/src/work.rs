//! Work estimates of loop nests, for the OpenMP placement of [`crate::omp`].
//!
//! The work of a statement is a count of operations: every arithmetic operator, load,
//! comparison or cheap intrinsic counts 1, a transcendental function (`exp`, `log`, `pow`,
//! trigonometry) 10, an atomic or critical update 10 more, a stack push or pop 2, a library
//! call the product of its extents (the flops of a dot, gemv, ger or gemm up to a factor 2).
//! A loop or map multiplies its body's work by its trip count. The result is a polynomial
//! in the sizes, kept symbolic ([`Work`]: a sum of `coefficient · Π factors`) so that the
//! generated C can compare it with `ADJC_OMP_MIN_WORK` at run time when the sizes are only
//! known then.
//!
//! A trip count that depends on a variable bound inside the estimated nest (a triangular
//! loop `range(i)` inside a map over `i`) is estimated with that variable at the end of its
//! range where the trip count grows with the sizes (or the larger constant): at most twice
//! the average, good enough to compare with a threshold. A trip count that reads a variable the nest itself writes, or
//! a non-constant step, counts as 1 (unknown: the estimate errs towards "small", which keeps
//! the code sequential).

use crate::cexpr;
use crate::ctx::FnCtx;
use adjc_ir::{Expr, ExprKind, Intrinsic, LibOp, Span, Stmt, StmtKind, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// `Σ coef · Π factors`, factors being integer expressions over variables in scope where
/// the estimate is used.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Work {
    terms: Vec<(f64, Vec<Expr>)>,
}

impl Work {
    pub fn constant(c: f64) -> Work {
        Work { terms: if c == 0.0 { Vec::new() } else { vec![(c, Vec::new())] } }
    }

    pub fn add(&mut self, other: Work) {
        for (c, fs) in other.terms {
            match self.terms.iter_mut().find(|(_, g)| *g == fs) {
                Some(t) => t.0 += c,
                None => self.terms.push((c, fs)),
            }
        }
    }

    /// The work times a trip count (an `i64` expression, spans already stripped), which
    /// becomes the first factor (multiply inner loops first: outer factors read first).
    pub fn times(mut self, trip: &Expr) -> Work {
        match trip.as_int() {
            Some(n) => {
                for t in &mut self.terms {
                    t.0 *= n as f64;
                }
            }
            None => {
                for t in &mut self.terms {
                    t.1.insert(0, trip.clone());
                }
            }
        }
        self
    }

    pub fn scaled(mut self, k: f64) -> Work {
        for t in &mut self.terms {
            t.0 *= k;
        }
        self
    }

    /// The value when no size is involved.
    pub fn as_const(&self) -> Option<f64> {
        self.terms.iter().map(|(c, fs)| fs.is_empty().then_some(*c)).sum()
    }

    /// The estimate with every size equal to `n` (a factor that cannot be evaluated, or
    /// overflows, counts as `n`): how two estimates compare as the sizes grow.
    pub fn at_size(&self, n: i64) -> f64 {
        self.terms
            .iter()
            .map(|(c, fs)| {
                fs.iter().fold(*c, |acc, f| acc * adjc_ir::eval::eval_int(f, &|_| Some(n)).unwrap_or(n) as f64)
            })
            .sum()
    }

    /// C text of the estimate, in `double` so that no product overflows:
    /// `5.0 * (A_n0 - 2) * (A_n1 - 2)`.
    pub fn render(&self, cx: &FnCtx) -> String {
        if self.terms.is_empty() {
            return "0.0".into();
        }
        let terms: Vec<String> = self
            .terms
            .iter()
            .map(|(c, fs)| {
                let mut s = format!("{:.1}", c);
                for f in fs {
                    let text = cexpr::expr(cx, f);
                    if matches!(f.kind, ExprKind::Var(_) | ExprKind::Const(_)) {
                        s.push_str(&format!(" * {text}"));
                    } else {
                        s.push_str(&format!(" * ({text})"));
                    }
                }
                s
            })
            .collect();
        terms.join(" + ")
    }
}

/// `e` without spans (so that equal factors compare equal), folded again.
fn strip(e: &Expr) -> Expr {
    e.rewrite(&mut |x| match x.kind {
        ExprKind::Binary(op, a, b) => Expr::binary(op, *a, *b).with_span(Span::NONE),
        _ => x.with_span(Span::NONE),
    })
}

/// Operations of one expression.
fn ops(e: &Expr) -> f64 {
    let mut n = 0.0;
    e.walk(&mut |x| {
        n += match &x.kind {
            ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Cast(_) => 0.0,
            ExprKind::Call(f, _) => match f {
                Intrinsic::Abs
                | Intrinsic::Max
                | Intrinsic::Min
                | Intrinsic::Sign
                | Intrinsic::Floor
                | Intrinsic::Ceil
                | Intrinsic::Sqrt => 1.0,
                _ => 10.0,
            },
            _ => 1.0,
        }
    });
    n
}

/// Estimates the work of statements; `inner` are the variables bound inside the estimated
/// nest (with the range each one runs over), `opaque` the variables its trip counts may not
/// read (written inside it).
pub(crate) struct Estimator {
    inner: BTreeMap<VarId, (Expr, Expr)>,
    opaque: BTreeSet<VarId>,
}

impl Estimator {
    pub fn new(opaque: impl IntoIterator<Item = VarId>) -> Estimator {
        Estimator { inner: BTreeMap::new(), opaque: opaque.into_iter().collect() }
    }

    /// The trip count of `start .. stop` by `step`, over variables in scope outside the
    /// nest, or `None` when unknown.
    fn trip(&self, start: &Expr, stop: &Expr, step: &Expr) -> Option<Expr> {
        let raw = match step.as_int()? {
            1 => stop.clone().sub(start.clone()),
            -1 => start.clone().sub(stop.clone()),
            s if s > 1 => stop.clone().sub(start.clone()).div(Expr::int(s)),
            s if s < -1 && s != i64::MIN => start.clone().sub(stop.clone()).div(Expr::int(-s)),
            _ => return None,
        };
        let mut e = strip(&raw);
        // Inner variables, innermost last: substitute from the last bound outwards.
        for (v, (lo, hi)) in self.inner.iter().rev() {
            if e.mentions(*v) {
                // The end of the range where the loop is not empty: the symbolic one
                // (`range(i)`, `i` up to `N - 1`) or the larger constant.
                let at_lo = strip(&e.substitute(*v, lo));
                let at_hi = strip(&e.substitute(*v, hi));
                e = match (at_lo.as_int(), at_hi.as_int()) {
                    (Some(a), Some(b)) => Expr::int(a.max(b)),
                    (Some(_), None) => at_hi,
                    _ => at_lo,
                };
            }
        }
        if self.opaque.iter().any(|v| e.mentions(*v)) || self.inner.keys().any(|v| e.mentions(*v)) {
            return None;
        }
        Some(strip(&e))
    }

    /// Binds a loop variable inside the nest: trip counts that read it are estimated over
    /// its range.
    pub fn bind_loop(&mut self, v: VarId, start: &Expr, stop: &Expr, step: i64) {
        let (lo, hi) = if step > 0 {
            (start.clone(), stop.clone().sub(Expr::int(1)))
        } else {
            (stop.clone().add(Expr::int(1)), start.clone())
        };
        self.inner.insert(v, (strip(&lo), strip(&hi)));
    }

    pub fn block(&mut self, b: &[Stmt]) -> Work {
        let mut w = Work::default();
        for s in b {
            w.add(self.stmt(s));
        }
        w
    }

    /// Work of a map nest: trip counts of its dims times its body.
    pub fn map(&mut self, m: &adjc_ir::Map) -> Work {
        let trips: Vec<Option<Expr>> = m
            .dims
            .iter()
            .map(|d| {
                let t = self.trip(&d.start, &d.stop, &Expr::int(1));
                self.bind_loop(d.var, &d.start, &d.stop, 1);
                t
            })
            .collect();
        let mut w = self.block(&m.body);
        for t in trips.iter().rev().flatten() {
            w = w.times(t);
        }
        w
    }

    fn stmt(&mut self, s: &Stmt) -> Work {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                Work::constant(1.0 + ops(value) + target.index.iter().map(ops).sum::<f64>())
            }
            StmtKind::Accumulate { target, value, shared, .. } => {
                let sync = if *shared { 10.0 } else { 0.0 };
                Work::constant(2.0 + sync + ops(value) + target.index.iter().map(ops).sum::<f64>())
            }
            StmtKind::Push { value, .. } => Work::constant(2.0 + ops(value)),
            StmtKind::Pop { .. } => Work::constant(2.0),
            StmtKind::Fail(_) => Work::constant(1.0),
            StmtKind::If { cond, then_body, else_body } => {
                let mut w = Work::constant(ops(cond));
                w.add(self.block(then_body));
                w.add(self.block(else_body));
                w
            }
            StmtKind::Loop(l) => {
                let trip = self.trip(&l.start, &l.stop, &l.step);
                if let Some(step) = l.step.as_int() {
                    self.bind_loop(l.var, &l.start, &l.stop, step);
                }
                let body = self.block(&l.body);
                match trip {
                    Some(t) => body.times(&t),
                    None => body,
                }
            }
            // The trip count is only known at run time: counted once, like an unknown step.
            StmtKind::While(w) => {
                let mut work = Work::constant(ops(&w.cond));
                work.add(self.block(&w.body));
                work
            }
            StmtKind::Map(m) => self.map(m),
            StmtKind::Call(c) => {
                let mut w = Work::constant(match c.op {
                    LibOp::Gemm => 2.0,
                    // n³-order factorisations: the output's extents times n once more.
                    LibOp::Solve | LibOp::Cholesky | LibOp::CholeskyAdjoint => 2.0,
                    _ => 1.0,
                });
                let mut extents: Vec<&Expr> = c.out_view.extents.iter().collect();
                // gemm's inner dimension: the first argument's last axis; dot's length.
                if matches!(c.op, LibOp::Gemm | LibOp::Dot | LibOp::Solve | LibOp::Cholesky | LibOp::CholeskyAdjoint) {
                    if let Some(e) = c.arg_views.first().and_then(|v| v.extents.last()) {
                        extents.push(e);
                    }
                }
                if c.op == LibOp::Gemv {
                    if let Some(e) = c.arg_views.get(1).and_then(|v| v.extents.first()) {
                        extents.push(e);
                    }
                }
                for e in extents {
                    if let Some(t) = self.trip(&Expr::int(0), e, &Expr::int(1)) {
                        w = w.times(&t);
                    }
                }
                w
            }
            StmtKind::Section { body, .. } => self.block(body),
            StmtKind::Alloc(_) | StmtKind::Free(_) => Work::default(),
        }
    }
}
