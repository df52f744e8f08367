//! The sequential loops around a save site, and the slot each of their iterations gets in
//! a tape array.
//!
//! Every loop the reverse sweep walks through pushes a [`Frame`] while its body is
//! reversed. A save site inside frames `F₁ … Fₖ` (outermost first) stores one value (or
//! one region) per iteration of the nest, at index `[c₁, …, cₖ]` where `cₘ` counts the
//! iterations of `Fₘ` from 0 (`t - 1` for `range(1, T)`, `N - 2 - j` for
//! `range(N - 2, 0, -1)`). The extent of axis `m` is the trip count of `Fₘ`,
//! `max(0, (stop - start + s - sign(s)) // s)`, when it is a formula of the parameters.
//!
//! A trip count (or region extent) that is affine in the counter `c` of the loop just
//! outside, `alpha + beta·c` (`range(i)`, `range(i + 1, N)`, the prefix `A[i, :j]`), makes a
//! triangle: the two axes merge into one of `Σ_c (alpha + beta·c)` elements, row `c`
//! starting at `c (2 alpha + beta (c - 1)) / 2` ([`Ad::merge_axes`]), so the tape holds
//! exactly what the loops save. Other dependences on outer indices through affine bounds
//! are sized for their largest value over the outer ranges; anything else falls back to a
//! stack tape.

use crate::affine::{clamp, extreme, Affine, Interval};
use crate::state::Ad;
pub(crate) use crate::state::{Frame, Tri, Trips};
use adjc_ir::*;

/// Why a save site has no slot in an array tape: a loop around it has no trip count in
/// closed form (the reason, in the user's words). Its values go on a stack instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NoSlot(pub String);

/// One axis of a tape array: its extent (a formula of the parameters), the position of
/// the current iteration or element along it, and how it was sized.
#[derive(Clone, Debug)]
pub(crate) struct Axis {
    pub extent: Expr,
    pub index: Expr,
    /// Why `extent` is only an upper bound (`None`: exact).
    pub bounded: Option<String>,
    /// The loop it counts, when its extent is that loop's exact trip count.
    pub frame: Option<VarId>,
    /// A triangular extent over the previous axis's loop (see [`Ad::merge_axes`]).
    pub tri: Option<Tri>,
}

/// Where a save site's values go in a tape array.
pub(crate) struct Slot {
    /// One extent per axis (outermost first).
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
            return Frame {
                var: l.var,
                counter: None,
                trips: Trips::Unknown(why),
                interval: None,
                span,
                range,
                last: None,
                tri: None,
                diff: None,
            };
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
        let mut last = None;
        let mut tri = None;
        let exact_diff = (outer.is_empty() && s == 1).then(|| diff.clone());
        let trips = if outer.is_empty() {
            let end = if s == 1 {
                diff.plus(-1).to_expr()
            } else {
                Expr::binary(BinOp::FloorDiv, diff.plus(s - 1).to_expr(), Expr::int(s)).sub(Expr::int(1))
            };
            last = Some((end, Expr::binary(BinOp::Gt, diff.to_expr(), Expr::int(0))));
            Trips::Exact(count(&diff))
        } else {
            let bound = extreme(&diff, &self.nest_env(), true);
            let on: Vec<String> = outer.iter().map(|v| format!("`{}`", name(*v))).collect();
            if s == 1 {
                tri = self.tri_of(&diff);
            }
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
        Frame {
            var: l.var,
            counter: Some(counter),
            trips,
            interval: Some(interval),
            span,
            range,
            last,
            tri,
            diff: exact_diff,
        }
    }

    /// `d` (an extent, affine in the nest's indices) as `alpha + beta * c` with `c` the
    /// counter of the innermost loop of the nest, when it depends on no other index and
    /// cannot be negative while that loop runs: from 0 at `c = 0` upwards (`beta > 0`), or
    /// down to a non-negative value at the last iteration (`beta < 0`).
    pub fn tri_of(&self, d: &Affine) -> Option<Tri> {
        let o = self.nest.last()?;
        let others: Vec<VarId> = self.nest.iter().map(|f| f.var).filter(|v| *v != o.var).collect();
        let coeff = d.coeff(o.var);
        if coeff == 0 || d.mentions_any(&others) {
            return None;
        }
        let d_o = o.diff.as_ref()?;
        let s_o = o.range.step.as_int()?;
        let start = Affine::parse(&o.range.start, &|v| self.is_fixed(v), &|v| self.is_fixed(v))?;
        // The loop variable is `start + s_o * c`.
        let alpha = d.add(&Affine::var(o.var).scale(-coeff)).add(&start.scale(coeff));
        let beta = coeff * s_o;
        let low = if beta >= 0 { alpha.clone() } else { alpha.add(&d_o.plus(-1).scale(beta)) };
        (low.as_const()? >= 0).then_some(Tri { outer: o.var, alpha, beta })
    }

    /// Merges an axis whose extent is triangular over the loop of the axis just before it
    /// with that axis: the pair becomes one axis of `Σ_c (alpha + beta c)` elements, at
    /// `c (2 alpha + beta (c - 1)) / 2 + index`, so that triangular nests take exactly the
    /// memory they use. Axes that cannot merge keep their bounds.
    pub fn merge_axes(&self, axes: Vec<Axis>) -> Vec<Axis> {
        let mut out: Vec<Axis> = Vec::new();
        for a in axes {
            let prev = out.last();
            let merged = match (&a.tri, prev) {
                (Some(t), Some(p)) if p.frame == Some(t.outer) && p.bounded.is_none() => {
                    let fixed = |v: VarId| self.is_fixed(v);
                    let nest = self.nest_vars();
                    let total = Affine::parse(&p.extent, &fixed, &fixed);
                    let count = Affine::parse(&p.index, &|v| nest.contains(&v) || fixed(v), &fixed);
                    total.zip(count).map(|(total, count)| {
                        // Σ_{c' < c} (alpha + beta c') = c (2 alpha + beta (c - 1)) / 2.
                        let sum = |c: &Affine| {
                            let e = t.alpha.scale(2).add(&c.plus(-1).scale(t.beta));
                            let prod = match (c.as_const(), e.as_const()) {
                                (Some(x), Some(y)) => Expr::int(x.saturating_mul(y)),
                                _ => c.to_expr().mul(e.to_expr()),
                            };
                            Expr::binary(BinOp::Div, prod, Expr::int(2))
                        };
                        Axis {
                            extent: sum(&total),
                            index: sum(&count).add(a.index.clone()),
                            bounded: None,
                            frame: None,
                            tri: None,
                        }
                    })
                }
                _ => None,
            };
            match merged {
                Some(m) => {
                    out.pop();
                    out.push(m);
                }
                None => out.push(a),
            }
        }
        out
    }

    /// An upper bound on how many times a statement of the nest runs, when every loop of
    /// the nest has an exact or bounded trip count (a stack tape's size for a plan).
    pub fn nest_bound(&self) -> Option<Expr> {
        self.nest.iter().try_fold(Expr::int(1), |acc, f| match &f.trips {
            Trips::Exact(n) | Trips::Bounded(n, _) => Some(acc.mul(n.clone())),
            Trips::Unknown(_) => None,
        })
    }

    /// One axis per loop of the nest, or why there is no closed form (stack tape).
    pub fn frame_axes(&self) -> Result<Vec<Axis>, NoSlot> {
        let mut out = Vec::new();
        for f in &self.nest {
            let Some(c) = &f.counter else {
                return Err(NoSlot(match &f.trips {
                    Trips::Unknown(why) | Trips::Bounded(_, why) => why.clone(),
                    _ => "a loop counter has no closed form".into(),
                }));
            };
            let (extent, bounded, frame) = match &f.trips {
                Trips::Exact(n) => (n.clone(), None, f.diff.as_ref().map(|_| f.var)),
                Trips::Bounded(n, why) => (n.clone(), Some(why.clone()), None),
                Trips::Unknown(why) => return Err(NoSlot(why.clone())),
            };
            out.push(Axis { extent, index: c.clone(), bounded, frame, tri: f.tri.clone() });
        }
        Ok(out)
    }

    /// The slot of a save site: the nest's axes followed by `extra` (region axes), merged.
    pub fn slot(&self, extra: &[Axis]) -> Result<Slot, NoSlot> {
        let mut axes = self.frame_axes()?;
        axes.extend(extra.iter().cloned());
        let axes = self.merge_axes(axes);
        let bounded = axes.iter().find_map(|a| a.bounded.clone());
        Ok(Slot {
            dims: axes.iter().map(|a| a.extent.clone()).collect(),
            index: axes.into_iter().map(|a| a.index).collect(),
            bounded,
        })
    }

    /// The axis of a region extent `stop - start` (affine in the nest's indices) for
    /// position `index`: its largest value over the nest (clamped at 0), exact when it
    /// does not depend on the loops, triangular when it grows or shrinks with the
    /// innermost one. `None` when not affine.
    pub fn extent_axis(&self, start: &Expr, stop: &Expr, index: Expr) -> Option<Axis> {
        let d = self.nest_affine(stop, &[])?.sub(&self.nest_affine(start, &[])?);
        self.affine_axis(&d, index)
    }

    /// [`Ad::extent_axis`] for an extent already in affine form.
    pub fn affine_axis(&self, d: &Affine, index: Expr) -> Option<Axis> {
        let nest = self.nest_vars();
        let b = extreme(d, &self.nest_env(), true);
        if b.mentions_any(&nest) {
            return None;
        }
        let on: Vec<String> =
            d.vars().into_iter().filter(|v| nest.contains(v)).map(|v| format!("`{}`", self.name(v))).collect();
        let bounded =
            (!on.is_empty()).then(|| format!("the region depends on {}: sized for its largest value", on.join(", ")));
        let tri = if on.is_empty() { None } else { self.tri_of(d) };
        Some(Axis { extent: clamp(&b, &|v| self.is_size(v)), index, bounded, frame: None, tri })
    }
}
