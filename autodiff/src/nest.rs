//! The sequential loops around a save site, and the slot each of their iterations gets in
//! a tape array.
//!
//! Every loop the reverse sweep walks through pushes a [`Frame`] while its body is
//! reversed. A save site inside frames `F₁ … Fₖ` (outermost first) stores one value (or
//! one region) per iteration of the nest, at index `[c₁, …, cₖ]` where `cₘ` counts the
//! iterations of `Fₘ` from 0 (`t - 1` for `range(1, T)`, `N - 2 - j` for
//! `range(N - 2, 0, -1)`). The extent of axis `m` is the trip count of `Fₘ`,
//! `max(0, (stop - start + s - sign(s)) // s)`, when it is a formula of the parameters;
//! when it depends on outer indices (triangular loops) through affine bounds, its largest
//! value over the outer ranges; otherwise the site falls back to a stack tape.

use crate::affine::{clamp, extreme, Affine, Interval};
use crate::reverse::Ad;
use adjc_ir::*;

/// How many iterations a loop of the nest makes.
#[derive(Clone, Debug)]
pub(crate) enum Trips {
    /// A formula of the parameters.
    Exact(Expr),
    /// An upper bound over the outer iterations, and why it is not exact.
    Bounded(Expr, String),
    /// No formula: why.
    Unknown(String),
}

/// One sequential loop around the statements being reversed.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub var: VarId,
    /// The iteration counter, from 0.
    pub counter: Option<Expr>,
    pub trips: Trips,
    /// The range of the loop variable, affine in outer loop variables.
    pub interval: Option<Interval>,
    /// The loop statement's span (its body included).
    pub span: Span,
    /// The loop itself (bounds and step), body left out.
    pub range: Loop,
}

/// Where a save site's values go in a tape array.
pub(crate) struct Slot {
    /// One axis per enclosing loop (outermost first).
    pub dims: Vec<Expr>,
    /// The current iteration's position.
    pub index: Vec<Expr>,
    /// Why the size is an upper bound rather than exact.
    pub bounded: Option<String>,
}

impl Ad<'_> {
    /// A variable whose value is the same everywhere in the function: a parameter the
    /// body never assigns.
    pub fn is_fixed(&self, v: VarId) -> bool {
        self.p.is_param(v) && !self.written.contains(&v) && self.p.var(v).ty == Type::Scalar(Scalar::I64)
    }

    pub fn is_size(&self, v: VarId) -> bool {
        self.p.var(v).role == VarRole::Size
    }

    fn nest_vars(&self) -> Vec<VarId> {
        self.nest.iter().map(|f| f.var).collect()
    }

    /// The known intervals of the current nest (a bound that still mentions a nest index
    /// after elimination met a loop without one).
    pub fn nest_env(&self) -> Vec<Interval> {
        self.nest.iter().filter_map(|f| f.interval.clone()).collect()
    }

    /// `e` as an affine combination of the nest's indices and fixed parameters.
    pub fn nest_affine(&self, e: &Expr, extra: &[VarId]) -> Option<Affine> {
        let nest = self.nest_vars();
        Affine::parse(e, &|v| nest.contains(&v) || extra.contains(&v) || self.is_fixed(v), &|v| self.is_fixed(v))
    }

    /// The frame of loop `l`, given the frames already around it.
    pub fn frame(&self, l: &Loop, span: Span) -> Frame {
        let name = |v: VarId| self.name(v);
        let step = l.step.as_int().unwrap_or(1);
        let (start, stop) = (self.nest_affine(&l.start, &[]), self.nest_affine(&l.stop, &[]));
        let (Some(start), Some(stop)) = (start, stop) else {
            let mut vs = l.start.vars();
            vs.extend(l.stop.vars());
            let nest = self.nest_vars();
            let why = match vs.iter().find(|v| nest.contains(v)) {
                Some(o) => format!("the trip count of `{}` depends on `{}`", name(l.var), name(*o)),
                None => match vs.iter().find(|v| !self.is_fixed(**v)) {
                    Some(v) => {
                        format!("the bounds of loop `{}` depend on `{}`, computed by the kernel", name(l.var), name(*v))
                    }
                    None => format!("the trip count of `{}` has no closed form", name(l.var)),
                },
            };
            let range = Loop { body: Vec::new(), ..l.clone() };
            return Frame { var: l.var, counter: None, trips: Trips::Unknown(why), interval: None, span, range };
        };
        let var = Affine::var(l.var);
        let (counter, diff, interval) = if step > 0 {
            let iv = Interval { var: l.var, lo: start.clone(), hi: stop.plus(-1) };
            (var.sub(&start), stop.sub(&start), iv)
        } else {
            let iv = Interval { var: l.var, lo: stop.plus(1), hi: start.clone() };
            (start.sub(&var), start.sub(&stop), iv)
        };
        let s = step.abs();
        let counter =
            if s == 1 { counter.to_expr() } else { Expr::binary(BinOp::Div, counter.to_expr(), Expr::int(s)) };
        let nest = self.nest_vars();
        let outer: Vec<VarId> = diff.vars().into_iter().filter(|v| nest.contains(v)).collect();
        let count = |d: &Affine| -> Expr {
            if s == 1 {
                return clamp(d, &|v| self.is_size(v));
            }
            let q = Expr::binary(BinOp::FloorDiv, d.plus(s - 1).to_expr(), Expr::int(s));
            match q.as_int() {
                Some(c) => Expr::int(c.max(0)),
                None => Expr::call(Intrinsic::Max, vec![Expr::int(0), q], Scalar::I64),
            }
        };
        let trips = if outer.is_empty() {
            Trips::Exact(count(&diff))
        } else {
            let bound = extreme(&diff, &self.nest_env(), true);
            let on: Vec<String> = outer.iter().map(|v| format!("`{}`", name(*v))).collect();
            if bound.mentions_any(&nest) {
                Trips::Unknown(format!("the trip count of `{}` depends on {}", name(l.var), on.join(", ")))
            } else {
                Trips::Bounded(
                    count(&bound),
                    format!(
                        "the trip count of `{}` depends on {}: sized for its largest value",
                        name(l.var),
                        on.join(", ")
                    ),
                )
            }
        };
        let range = Loop { body: Vec::new(), ..l.clone() };
        Frame { var: l.var, counter: Some(counter), trips, interval: Some(interval), span, range }
    }

    /// The slot of the current iteration of the nest, or why there is none (stack tape).
    pub fn slot(&self) -> Result<Slot, String> {
        let mut dims = Vec::new();
        let mut index = Vec::new();
        let mut bounded = None;
        for f in &self.nest {
            let Some(c) = &f.counter else {
                return Err(match &f.trips {
                    Trips::Unknown(why) => why.clone(),
                    _ => "a loop counter has no closed form".into(),
                });
            };
            match &f.trips {
                Trips::Exact(n) => dims.push(n.clone()),
                Trips::Bounded(n, why) => {
                    dims.push(n.clone());
                    bounded.get_or_insert_with(|| why.clone());
                }
                Trips::Unknown(why) => return Err(why.clone()),
            }
            index.push(c.clone());
        }
        Ok(Slot { dims, index, bounded })
    }

    /// The largest value of `stop - start` over the nest (a parameter formula, clamped at
    /// 0) and whether it is exact, when `start` and `stop` are affine in the nest's indices.
    pub fn extent_bound(&self, start: &Expr, stop: &Expr) -> Option<(Expr, bool)> {
        let d = self.nest_affine(stop, &[])?.sub(&self.nest_affine(start, &[])?);
        let nest = self.nest_vars();
        let b = extreme(&d, &self.nest_env(), true);
        (!b.mentions_any(&nest)).then(|| (clamp(&b, &|v| self.is_size(v)), !d.mentions_any(&nest)))
    }
}
