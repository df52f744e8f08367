//! Adjoint stencils in gather form (part of the `split` pass).
//!
//! The adjoint of `B[i] = c * (A[i - 1] + A[i] + A[i + 1])` over `i in [a, b)` scatters:
//! every iteration adds into three elements of `A_b`. [`crate::split`] makes that race-free
//! with one map per term (three passes over memory, plus one for the rest of the body).
//! The *gather* form turns the sum around: every element `k` of `A_b` collects the terms
//! that land on it, in one map whose iterations each write only their own element:
//!
//! ```text
//! map k in [a + 1, b - 1) {                       // interior: every term exists
//!   A_b[k] += c * B_b[k + 1] + c * B_b[k] + c * B_b[k - 1]
//! }
//! map k in [a - 1, min(a + 1, b + 1)) {           // boundary (lower strip)
//!   if (k + 1 < b) A_b[k] += c * B_b[k + 1]
//!   if (a <= k && k < b) A_b[k] += c * B_b[k]
//!   if (a + 1 <= k) A_b[k] += c * B_b[k - 1]
//! }
//! map k in [max(b - 1, a + 1), b + 1) { ... }    // boundary (upper strip)
//! ```
//!
//! ## The rule
//!
//! Take the updates of one array `X` that split moves out of a map over the box
//! `v_d in [a_d, b_d)` (they already satisfy split's rules: each reads only values the map
//! does not change before it, nothing in the body reads `X`, they commute). When every one
//! is `X[... v_d + o_d ...] += e(v)` — each map variable in exactly one index position with
//! coefficient 1 and an integer offset `o_d`, the other positions identical expressions
//! free of map variables — the term with offsets `o` reaches element `k` exactly when
//! `v = k - o` is an iteration: `a_d <= k_d - o_d < b_d` for every `d`. So
//!
//! ```text
//! X[k] += Σ_terms [a <= k - o < b] · e(k - o)
//! ```
//!
//! over the union of the shifted boxes, which adds the same terms into the same elements
//! as the scatter (only their order within one element changes, as between two OpenMP
//! schedules), and each iteration writes only its own element: a parallel map, no atomics,
//! one pass. The coefficient expressions are re-indexed with the terms (`w[i]` becomes
//! `w[k - o]`).
//!
//! ## Peeling: no branches in the interior, correct at every size
//!
//! Per dimension with offsets from `cmin` to `cmax` (`cmin < cmax`), the union is
//! `[a + cmin, b + cmax)`; every term exists in the interior `[a + cmax, b + cmin)`. The
//! union is cut into the interior and, per shifted dimension `d` in order, a lower strip
//! `[a + cmin, min(a + cmax, b + cmax))` and an upper strip `[max(b + cmin, a + cmax), b + cmax)`
//! of `d`, with the dimensions before `d` over their interior and those after `d` over their
//! whole union (an onion: every element lies in exactly one piece — the first shifted
//! dimension where it leaves the interior decides, and the `min`/`max` keep the three
//! ranges of one dimension disjoint and covering when `b - a < cmax - cmin`, where the
//! interior is empty). The interior map has all terms and no condition; a boundary map
//! (comment "boundary") guards each term with the conditions of `a <= k - o < b` that can
//! fail there (none along a dimension where the piece is interior, `k >= a + o` never when
//! `o = cmin`, `k < b + o` never when `o = cmax`). Code size depends on the number of
//! shifted dimensions, never on sizes. A boundary piece whose every dimension is a strip
//! (of at most `cmax - cmin` elements) or of constant extent — the 1-D case — is a plain
//! loop nest: a parallel region would cost more than its few elements.
//!
//! ## Zeroing fused into the gather
//!
//! An adjoint statement often ends with `X_b = 0` over its box `Z` (`A_b[1:-1, 1:-1] = 0`),
//! and the next one (in the reverse sweep) gathers into `X_b`. When the zeroing is a map on
//! its own right before the gather, its index has the gather's shape, and `I ⊆ Z ⊆ U` holds
//! for the interior `I` and union `U` at every size (bounds whose differences are
//! constants), the two become one pass: the interior *assigns* the sum (it is inside `Z`),
//! and a boundary piece first zeroes its element when it lies in `Z`. Elements of `Z` are
//! then zero before their terms arrive, elements outside `Z` keep their value: the same as
//! zeroing first.
//!
//! Anything else (a reflected index `X[n - i]`, a diagonal `X[i, i]`, a symbolic offset,
//! another operator) keeps split's form.

use crate::affine::Affine;
use crate::util::same;
use adjc_ir::*;

/// Where a position of the target's index comes from.
#[derive(Clone, Debug)]
enum Slot {
    /// The same expression, free of map variables, in every term.
    Fixed(Expr),
    /// The target element's coordinate along map dimension `d`.
    Dim(usize),
}

/// The terms of one offset vector, summed.
#[derive(Clone, Debug)]
struct Term {
    offset: Vec<i64>,
    value: Expr,
}

/// The updates of one array, ready for the gather form.
#[derive(Clone, Debug)]
pub(crate) struct Gather {
    target: VarId,
    ty: Scalar,
    slots: Vec<Slot>,
    terms: Vec<Term>,
    span: Span,
}

/// The zeroed box of a preceding map, in the gather's coordinates.
pub(crate) struct Zero {
    lo: Vec<Expr>,
    hi: Vec<Expr>,
}

/// Per dimension of the map: its bounds and the offsets' extremes.
struct Axis {
    a: Expr,
    b: Expr,
    cmin: i64,
    cmax: i64,
}

impl Axis {
    fn shifted(&self) -> bool {
        self.cmin != self.cmax
    }
    fn lo(&self) -> Expr {
        self.a.clone().add(Expr::int(self.cmin))
    }
    fn hi(&self) -> Expr {
        self.b.clone().add(Expr::int(self.cmax))
    }
    fn ilo(&self) -> Expr {
        self.a.clone().add(Expr::int(self.cmax))
    }
    fn ihi(&self) -> Expr {
        self.b.clone().add(Expr::int(self.cmin))
    }
}

/// The range of one dimension in one piece.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Whole,
    Inner,
    Lower,
    Upper,
}

/// The slots of `index` and the offset of each map variable (`vars`), when every map
/// variable appears once, as `v + c` with `c` an integer, and every other position is
/// free of map variables and made of `constant` variables.
fn shape(index: &[Expr], vars: &[VarId], constant: &dyn Fn(VarId) -> bool) -> Option<(Vec<Slot>, Vec<i64>)> {
    let mut slots = Vec::with_capacity(index.len());
    let mut offset: Vec<Option<i64>> = vec![None; vars.len()];
    for e in index {
        let a = Affine::parse(e, &|u| vars.contains(&u) || constant(u), constant)?;
        let present: Vec<usize> = (0..vars.len()).filter(|d| e.mentions(vars[*d])).collect();
        match present.as_slice() {
            [] => slots.push(Slot::Fixed(e.clone())),
            [d] => {
                let c = a.sub(&Affine::var(vars[*d])).as_const()?;
                if offset[*d].replace(c).is_some() {
                    return None;
                }
                slots.push(Slot::Dim(*d));
            }
            _ => return None,
        }
    }
    Some((slots, offset.into_iter().collect::<Option<Vec<i64>>>()?))
}

fn same_slots(a: &[Slot], b: &[Slot]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Slot::Fixed(x), Slot::Fixed(y)) => same(x, y),
            (Slot::Dim(x), Slot::Dim(y)) => x == y,
            _ => false,
        })
}

/// Splits the updates split moves out of a map over `dims` into gathers (one per target
/// array whose updates all have the stencil shape, with at least two offsets) and the
/// updates left for split's own maps, in their order. `constant`: variables that keep
/// their value during the map.
pub(crate) fn plan(
    f: &Function,
    dims: &[MapDim],
    updates: Vec<Stmt>,
    constant: &dyn Fn(VarId) -> bool,
) -> (Vec<Gather>, Vec<Stmt>) {
    let vars: Vec<VarId> = dims.iter().map(|d| d.var).collect();
    let bounds_ok = dims.iter().all(|d| !vars.iter().any(|v| d.start.mentions(*v) || d.stop.mentions(*v)));
    let mut targets: Vec<VarId> = Vec::new();
    for s in &updates {
        if let Some(x) = s.written_var().filter(|x| !targets.contains(x)) {
            targets.push(x);
        }
    }
    let mut gathers = Vec::new();
    let mut gathered: Vec<VarId> = Vec::new();
    for x in targets {
        let mine: Vec<&Stmt> = updates.iter().filter(|s| s.written_var() == Some(x)).collect();
        if let Some(g) = bounds_ok.then(|| gather_of(f, x, &mine, &vars, constant)).flatten() {
            gathers.push(g);
            gathered.push(x);
        }
    }
    let rest = updates.into_iter().filter(|s| !s.written_var().is_some_and(|x| gathered.contains(&x))).collect();
    (gathers, rest)
}

fn gather_of(
    f: &Function,
    x: VarId,
    updates: &[&Stmt],
    vars: &[VarId],
    constant: &dyn Fn(VarId) -> bool,
) -> Option<Gather> {
    let mut slots: Option<Vec<Slot>> = None;
    let mut terms: Vec<Term> = Vec::new();
    for s in updates {
        let StmtKind::Accumulate { target, op: AccOp::Add, value, shared: false } = &s.kind else { return None };
        let (sl, offset) = shape(&target.index, vars, constant)?;
        match &slots {
            Some(prev) if !same_slots(prev, &sl) => return None,
            Some(_) => {}
            None => slots = Some(sl),
        }
        match terms.iter_mut().find(|t| t.offset == offset) {
            Some(t) => t.value = t.value.clone().add(value.clone()),
            None => terms.push(Term { offset, value: value.clone() }),
        }
    }
    if terms.len() < 2 {
        return None;
    }
    let span = updates.iter().map(|s| s.span).find(|s| !s.is_none()).unwrap_or(Span::NONE);
    Some(Gather { target: x, ty: f.var(x).ty.elem(), slots: slots?, terms, span })
}

/// `b - a` when it is a constant at every size.
fn const_diff(b: &Expr, a: &Expr) -> Option<i64> {
    let all = |_: VarId| true;
    Affine::parse(b, &all, &all)?.sub(&Affine::parse(a, &all, &all)?).as_const()
}

fn axes(g: &Gather, dims: &[MapDim]) -> Vec<Axis> {
    dims.iter()
        .enumerate()
        .map(|(d, md)| {
            let offs = g.terms.iter().map(|t| t.offset[d]);
            Axis {
                a: md.start.clone(),
                b: md.stop.clone(),
                cmin: offs.clone().min().unwrap_or(0),
                cmax: offs.max().unwrap_or(0),
            }
        })
        .collect()
}

/// The zeroed box of `prev` when it is a map whose whole body zeroes the gather's target
/// with the gather's index shape, and the box lies between the gather's interior and its
/// union at every size (see the module documentation).
pub(crate) fn fusable_zero(prev: &Stmt, g: &Gather, dims: &[MapDim]) -> Option<Zero> {
    let StmtKind::Map(m) = &prev.kind else { return None };
    let [Stmt { kind: StmtKind::Assign { target, value }, .. }] = m.body.as_slice() else { return None };
    if target.var != g.target || value.as_float() != Some(0.0) || m.dims.len() != dims.len() {
        return None;
    }
    let vars: Vec<VarId> = m.dims.iter().map(|d| d.var).collect();
    if m.dims.iter().any(|d| vars.iter().any(|v| d.start.mentions(*v) || d.stop.mentions(*v))) {
        return None;
    }
    // Inside the zeroing map nothing is written but the target: every other variable is
    // constant there.
    let (slots, offset) = shape(&target.index, &vars, &|u| !vars.contains(&u) && u != g.target)?;
    let mut lo = vec![Expr::int(0); dims.len()];
    let mut hi = vec![Expr::int(0); dims.len()];
    for (s, t) in slots.iter().zip(&g.slots) {
        match (s, t) {
            (Slot::Fixed(x), Slot::Fixed(y)) if same(x, y) => {}
            (Slot::Dim(z), Slot::Dim(d)) => {
                lo[*d] = m.dims[*z].start.clone().add(Expr::int(offset[*z]));
                hi[*d] = m.dims[*z].stop.clone().add(Expr::int(offset[*z]));
            }
            _ => return None,
        }
    }
    for (d, ax) in axes(g, dims).iter().enumerate() {
        let ok = |b: &Expr, a: &Expr| const_diff(b, a).is_some_and(|c| c >= 0);
        if !(ok(&lo[d], &ax.lo()) && ok(&ax.hi(), &hi[d]) && ok(&ax.ilo(), &lo[d]) && ok(&hi[d], &ax.ihi())) {
            return None;
        }
    }
    Some(Zero { lo, hi })
}

/// `min(x, y)` / `max(x, y)` of integers, decided at transpile time when the difference
/// is a constant.
fn min_i64(x: Expr, y: Expr, max: bool) -> Expr {
    match const_diff(&x, &y) {
        Some(c) => {
            if (c >= 0) == max {
                x
            } else {
                y
            }
        }
        None => Expr::call(if max { Intrinsic::Max } else { Intrinsic::Min }, vec![x, y], Scalar::I64),
    }
}

fn range(ax: &Axis, p: Part) -> (Expr, Expr) {
    if !ax.shifted() {
        return (ax.lo(), ax.hi());
    }
    match p {
        Part::Whole => (ax.lo(), ax.hi()),
        Part::Inner => (ax.ilo(), ax.ihi()),
        Part::Lower => (ax.lo(), min_i64(ax.ilo(), ax.hi(), false)),
        Part::Upper => (min_i64(ax.ihi(), ax.ilo(), true), ax.hi()),
    }
}

/// `e` with every integer and float operation rebuilt through the IR's simplifier
/// (`(k - 1) + 1` is `k` again after re-indexing).
fn tidy(e: &Expr) -> Expr {
    e.rewrite(&mut |x| match x.kind {
        ExprKind::Binary(op, a, b) => Expr::binary(op, *a, *b).with_span(x.span),
        _ => x,
    })
}

/// `v1 + v2 + ...`, written `c * (x1 + x2 + ...)` when every term is the same literal `c`
/// times something (the stencil's weight, as in the source).
fn sum_of(values: Vec<Expr>) -> Option<Expr> {
    let weight = |e: &Expr| match &e.kind {
        ExprKind::Binary(BinOp::Mul, c, x) if c.is_const() => Some(((**c).clone(), (**x).clone())),
        _ => None,
    };
    let split: Option<Vec<(Expr, Expr)>> = values.iter().map(weight).collect();
    if let Some(split) = split.filter(|w| w.len() > 1 && w.iter().all(|(c, _)| same(c, &w[0].0))) {
        let c = split[0].0.clone();
        let inner = split.into_iter().map(|(_, x)| x).reduce(plus)?;
        return Some(c.mul(inner));
    }
    values.into_iter().reduce(plus)
}

/// `a + b`, or `a - c * x` for `b = -c * x` with `c` a negative literal.
fn plus(a: Expr, b: Expr) -> Expr {
    if let ExprKind::Binary(BinOp::Mul, c, x) = &b.kind {
        if c.as_float().is_some_and(|v| v < 0.0) {
            return a.sub((**c).clone().neg().mul((**x).clone()));
        }
    }
    a.add(b)
}

fn and(conds: Vec<Expr>) -> Option<Expr> {
    conds.into_iter().reduce(|a, b| Expr::binary(BinOp::And, a, b))
}

/// The gather as maps: the interior (assigning when `zero` is fused), then the boundary
/// pieces. `note` goes on the first map, after the gather's own comment.
pub(crate) fn lower(
    f: &mut Function,
    dims: &[MapDim],
    g: &Gather,
    zero: Option<&Zero>,
    note: Option<Note>,
) -> Vec<Stmt> {
    let axes = axes(g, dims);
    let name = f.var(g.target).name.clone();
    let mut pieces: Vec<Vec<Part>> = vec![vec![Part::Inner; dims.len()]];
    for d in (0..dims.len()).filter(|d| axes[*d].shifted()) {
        for side in [Part::Lower, Part::Upper] {
            pieces.push(
                (0..dims.len())
                    .map(|e| {
                        if e < d {
                            Part::Inner
                        } else if e == d {
                            side
                        } else {
                            Part::Whole
                        }
                    })
                    .collect(),
            );
        }
    }
    let mut out = Vec::with_capacity(pieces.len());
    for parts in pieces {
        let interior = parts.iter().all(|p| *p == Part::Inner);
        let mut new_dims = Vec::with_capacity(dims.len());
        let mut ks = Vec::with_capacity(dims.len());
        for (d, md) in dims.iter().enumerate() {
            let old = f.var(md.var).clone();
            let k = f.add_var(old.name, old.ty, VarRole::Index, old.span);
            let (start, stop) = range(&axes[d], parts[d]);
            new_dims.push(MapDim { var: k, start, stop });
            ks.push(Expr::var(k, Scalar::I64));
        }
        let index: Vec<Expr> = g
            .slots
            .iter()
            .map(|s| match s {
                Slot::Fixed(e) => e.clone(),
                Slot::Dim(d) => ks[*d].clone(),
            })
            .collect();
        let place = Place::element(g.target, index);
        let value_at = |t: &Term| {
            let v = dims
                .iter()
                .enumerate()
                .fold(t.value.clone(), |v, (d, md)| v.substitute(md.var, &ks[d].clone().sub(Expr::int(t.offset[d]))));
            tidy(&v)
        };
        // Along dimensions where this piece is not the interior, the conditions that can fail.
        let checked = |d: usize| axes[d].shifted() && parts[d] != Part::Inner;
        let mut body = Vec::new();
        if interior {
            let sum = sum_of(g.terms.iter().map(value_at).collect()).unwrap_or_else(|| crate::util::zero(g.ty));
            body.push(match zero {
                Some(_) => Stmt::assign(place, sum, g.span),
                None => Stmt::accumulate(place, sum, g.span),
            });
        } else {
            if let Some(z) = zero {
                let mut conds = Vec::new();
                for d in (0..dims.len()).filter(|d| checked(*d)) {
                    if const_diff(&z.lo[d], &axes[d].lo()) != Some(0) {
                        conds.push(Expr::binary(BinOp::Le, z.lo[d].clone(), ks[d].clone()));
                    }
                    if const_diff(&axes[d].hi(), &z.hi[d]) != Some(0) {
                        conds.push(Expr::binary(BinOp::Lt, ks[d].clone(), z.hi[d].clone()));
                    }
                }
                let set = Stmt::assign(place.clone(), crate::util::zero(g.ty), g.span);
                body.push(match and(conds) {
                    Some(c) => Stmt::new(StmtKind::If { cond: c, then_body: vec![set], else_body: vec![] }, g.span),
                    None => set,
                });
            }
            for t in &g.terms {
                let mut conds = Vec::new();
                for d in (0..dims.len()).filter(|d| checked(*d)) {
                    let (ax, o) = (&axes[d], t.offset[d]);
                    if o != ax.cmin {
                        conds.push(Expr::binary(BinOp::Le, ax.a.clone().add(Expr::int(o)), ks[d].clone()));
                    }
                    if o != ax.cmax {
                        conds.push(Expr::binary(BinOp::Lt, ks[d].clone(), ax.b.clone().add(Expr::int(o))));
                    }
                }
                let add = Stmt::accumulate(place.clone(), value_at(t), g.span);
                body.push(match and(conds) {
                    Some(c) => Stmt::new(StmtKind::If { cond: c, then_body: vec![add], else_body: vec![] }, g.span),
                    None => add,
                });
            }
        }
        // A boundary piece of a few elements (every dimension a strip of the stencil's width
        // or of constant extent, as in 1-D) runs as plain loops: a parallel region would cost
        // more than its work.
        let tiny = !interior
            && new_dims.iter().zip(&parts).enumerate().all(|(d, (md, p))| {
                matches!(p, Part::Lower | Part::Upper) && axes[d].shifted() || const_diff(&md.stop, &md.start).is_some()
            });
        let kind = if tiny {
            // Innermost first; `body` ends up as the one outermost loop.
            let mut body = body;
            for d in new_dims.into_iter().rev() {
                let l = Loop { id: LoopId::NEW, var: d.var, start: d.start, stop: d.stop, step: Expr::int(1), body };
                body = vec![Stmt::new(StmtKind::Loop(l), g.span)];
            }
            match body.pop() {
                Some(outer) => outer.kind,
                None => continue,
            }
        } else {
            StmtKind::Map(Map { id: MapId::NEW, dims: new_dims, body })
        };
        let mut s = Stmt::new(kind, g.span);
        s.note = Some(if interior {
            let own = Note::Gather { target: name.clone(), fused_zero: zero.is_some() };
            Note::after(out.is_empty().then_some(note.clone()).flatten(), own)
        } else {
            Note::GatherBoundary { target: name.clone() }
        });
        out.push(s);
    }
    out
}
