//! Tapes: where the forward sweep saves values the reverse sweep needs back.
//!
//! Every save site (a statement that overwrites a value some adjoint still needs) gets its
//! own tape, named `<var>_tape` (`_1`, `_2`, … when a variable has several):
//!
//! * outside every loop, a scalar or single element is saved in a local scalar;
//! * inside sequential loops with closed-form trip counts (see [`crate::nest`]), in a
//!   local array with one axis per enclosing loop, indexed by the loop counters
//!   (`p_tape[k]`, `A_tape[i - 1, j]`): the reverse sweep reads the slot of its own
//!   iteration back, no stack;
//! * a map saves only the **region** it overwrites (`B[1:-1]` → extent `N - 2`, indexed
//!   relative to the region's start), appended as extra axes after the loop axes; the
//!   copies into and out of the tape are parallel maps. The region is the map's own index
//!   space when the map writes one injective place, otherwise the bounding box of its
//!   writes, axis by axis (the whole axis when a write index is not affine);
//! * when a loop around the site has no closed-form trip count, the site uses a stack
//!   (push before, pop in the reverse sweep), said so in the note of its save; a region
//!   is then pushed by a sequential loop nest (pushes are ordered).
//!
//! Decisions of `if`s whose condition cannot be evaluated again are saved the same way in
//! `branch_tape`. Whether a value is taped at all is decided by the callers
//! (to-be-recorded analysis in `crate::reverse`); every tape is described in the report
//! (`crate::report`).
//!
//! When one save site is all that changes an output in the reverse sweep, its restore
//! becomes a swap and the tape then holds the output's forward result ([`Swap`]): no
//! snapshot of the whole output is needed.

use crate::affine::{extreme, Affine, Interval};
use crate::nest::Axis;
use crate::report::{TapeInfo, TapeKind};
use crate::state::Ad;
pub(crate) use crate::state::Swap;
use crate::util::write_places;
use adjc_ir::*;
use std::collections::BTreeMap;

/// The part of an array a map overwrites, as the copy loops see it.
struct Region {
    /// The index space of the copy (a parallel map; empty for a single element).
    dims: Vec<MapDim>,
    /// The array element at one point of that space.
    elem: Vec<Expr>,
    /// The tape axes of the region: extents and positions relative to the region's start.
    axes: Vec<Axis>,
    /// `B[1:-1]`, for notes and the report.
    what: String,
}

/// One axis of the bounding box of a map's writes: `lo ..= hi`, affine in the indices
/// of the loops around the map; `None`: the whole axis.
type BoxAxis = Option<(Affine, Affine)>;

/// The tape of one save site and how to use it.
pub(crate) enum SiteTape {
    /// A local scalar or array, read and written at `index` (empty for a scalar).
    Slots { tape: VarId, index: Vec<Expr>, bounded: Option<String> },
    /// A stack, and why there is no closed form.
    Stack { tape: VarId, why: String },
}

impl Ad<'_> {
    fn record(&mut self, info: TapeInfo) {
        self.tapes.push(info);
    }

    /// A tape for one save site of `base` holding a region with axes `per_iter` (none for
    /// one value) per iteration of the current nest.
    fn site_tape(&mut self, base: &str, elem: Scalar, per_iter: &[Axis]) -> (SiteTape, Option<Expr>, bool) {
        let name = self.fresh(&format!("{base}_tape"));
        match self.slot(per_iter) {
            Ok(slot) => {
                let dims = slot.dims.clone();
                let elems = dims.iter().cloned().fold(Expr::int(1), |a, d| a.mul(d));
                let tape = if dims.is_empty() {
                    self.f.add_var(name, Type::Scalar(elem), VarRole::Temp, Span::NONE)
                } else {
                    let ty = Type::Array {
                        elem,
                        dims: dims.into_iter().map(Dim::zero_based).collect(),
                        layout: Layout::RowMajor,
                    };
                    let t = self.f.add_var(name, ty, VarRole::Tape, Span::NONE);
                    self.ad_allocs.push(t);
                    t
                };
                let exact = slot.bounded.is_none();
                (SiteTape::Slots { tape, index: slot.index, bounded: slot.bounded }, Some(elems), exact)
            }
            Err(crate::nest::NoSlot(why)) => {
                let tape = self.f.add_var(name, Type::Scalar(elem), VarRole::Tape, Span::NONE);
                // With `--max-trips` on the `while` loops around it: an upper bound.
                let region = per_iter.iter().try_fold(Expr::int(1), |a, x| {
                    (x.bounded.is_none() || x.extent.as_int().is_some()).then(|| a.mul(x.extent.clone()))
                });
                let bound = self.nest_bound().zip(region).map(|(n, r)| n.mul(r));
                (SiteTape::Stack { tape, why }, bound, false)
            }
        }
    }

    fn kind_of(&self, t: &SiteTape) -> TapeKind {
        match t {
            SiteTape::Slots { tape, .. } if self.f.var(*tape).ty.is_array() => TapeKind::Array,
            SiteTape::Slots { .. } => TapeKind::Value,
            SiteTape::Stack { .. } => TapeKind::Stack,
        }
    }

    /// Save of `place` before the statement at `span` overwrites it, and the matching
    /// restore.
    pub fn save_place(&mut self, place: &Place, span: Span) -> (Stmt, Stmt) {
        let ty = self.elem(place.var);
        let what = self.what_place(place);
        self.mark_saved(place.var);
        let base = self.name(place.var);
        let (site, elems, exact) = self.site_tape(&base, ty, &[]);
        let kind = self.kind_of(&site);
        let line = Line::from(span);
        let (save, restore, name) = match &site {
            SiteTape::Slots { tape, index, bounded } => {
                let t = Place { var: *tape, index: index.clone() };
                let save = Stmt::assign(t.clone(), place.to_expr(ty), span).with_note(Note::Tape {
                    what: what.clone(),
                    before: Overwriter::Statement,
                    line,
                    bound: bounded.as_ref().map(|b| b.to_string()),
                });
                let restore =
                    Stmt::assign(place.clone(), t.to_expr(ty), span).with_note(Note::Restore { what: what.clone() });
                (save, restore, self.name(*tape))
            }
            SiteTape::Stack { tape, why } => {
                let push = Stmt::new(StmtKind::Push { tape: *tape, value: place.to_expr(ty) }, span).with_note(
                    Note::StackTape { why: why.clone(), what: what.clone(), before: Overwriter::Statement, line },
                );
                let pop = Stmt::new(StmtKind::Pop { tape: *tape, target: place.clone() }, span)
                    .with_note(Note::RestoreFromStack { what: what.clone() });
                (push, pop, self.name(*tape))
            }
        };
        self.offer_swap(place.var, &site, &[], &place.index, span);
        let tape = match site {
            SiteTape::Slots { tape, .. } | SiteTape::Stack { tape, .. } => tape,
        };
        let why = self.readers(place.var, span);
        self.record(TapeInfo { var: tape, name, what, line: span.line, why, elems, exact, elem: ty, kind });
        (save, restore)
    }

    /// Save of the trip count `trips` of the `while` loop `id` (at `span`) right after the
    /// loop, and its restore before the reversed loop: one slot per iteration of the
    /// loops around it when they have closed-form trip counts, else a stack.
    pub fn save_trips(&mut self, trips: VarId, id: adjc_ir::LoopId, span: Span) -> (Stmt, Stmt) {
        let (site, elems, exact) = self.site_tape("trips", Scalar::I64, &[]);
        let kind = self.kind_of(&site);
        let line = Line::from(span);
        let what = format!("the trip count of `while` loop {id}");
        let place = Place::scalar(trips);
        let (save, restore) = match &site {
            SiteTape::Slots { tape, index, .. } => {
                let t = Place { var: *tape, index: index.clone() };
                (
                    Stmt::assign(t.clone(), place.to_expr(Scalar::I64), span).with_note(Note::TripsTape { line }),
                    Stmt::assign(place.clone(), t.to_expr(Scalar::I64), span).with_note(Note::TripsRestore { line }),
                )
            }
            SiteTape::Stack { tape, why } => (
                Stmt::new(StmtKind::Push { tape: *tape, value: place.to_expr(Scalar::I64) }, span)
                    .with_note(Note::TripsStackTape { why: why.clone(), line }),
                Stmt::new(StmtKind::Pop { tape: *tape, target: place.clone() }, span)
                    .with_note(Note::TripsRestore { line }),
            ),
        };
        let tape = match site {
            SiteTape::Slots { tape, .. } | SiteTape::Stack { tape, .. } => tape,
        };
        let name = self.name(tape);
        let why = "the reverse sweep runs exactly the iterations the forward sweep ran".to_string();
        self.record(TapeInfo { var: tape, name, what, line: span.line, why, elems, exact, elem: Scalar::I64, kind });
        (save, restore)
    }

    /// Forward-sweep code at the end of each branch of the `if` at `span`, and how the
    /// reverse sweep finds the branch again: statements to run first and the decision.
    pub fn save_branch(&mut self, span: Span) -> (Stmt, Stmt, Block, Expr) {
        let (site, elems, exact) = self.site_tape("branch", Scalar::Bool, &[]);
        let kind = self.kind_of(&site);
        let line = Line::from(span);
        let what = "the branch taken".to_string();
        let out = match &site {
            SiteTape::Slots { tape, index, .. } => {
                let t = Place { var: *tape, index: index.clone() };
                let note = Note::BranchTape { line };
                (
                    Stmt::assign(t.clone(), Expr::boolean(true), span).with_note(note.clone()),
                    Stmt::assign(t.clone(), Expr::boolean(false), span).with_note(note),
                    Vec::new(),
                    t.to_expr(Scalar::Bool),
                )
            }
            SiteTape::Stack { tape, why } => {
                // Pushed at the end of the branch, after everything the branch pushed, so
                // that the reverse sweep pops it first.
                let note = Note::BranchStackTape { why: why.clone(), line };
                let b = self.temp("branch", Scalar::Bool, false);
                let pop = Stmt::new(StmtKind::Pop { tape: *tape, target: Place::scalar(b) }, span)
                    .with_note(Note::BranchPopped);
                (
                    Stmt::new(StmtKind::Push { tape: *tape, value: Expr::boolean(true) }, span).with_note(note.clone()),
                    Stmt::new(StmtKind::Push { tape: *tape, value: Expr::boolean(false) }, span).with_note(note),
                    vec![pop],
                    Expr::var(b, Scalar::Bool),
                )
            }
        };
        let tape = match site {
            SiteTape::Slots { tape, .. } | SiteTape::Stack { tape, .. } => tape,
        };
        let name = self.name(tape);
        let why = "the reverse sweep runs the adjoint of the branch the forward sweep took; \
                   the condition cannot be evaluated again"
            .to_string();
        self.record(TapeInfo { var: tape, name, what, line: span.line, why, elems, exact, elem: Scalar::Bool, kind });
        out
    }

    /// Registers the save site of `x` (the region `dims`/`elem`, empty for one element) as
    /// a [`Swap`] when its tape can hand the forward result back: outside every `if`, with
    /// slots, and either the region does not depend on the loops and every trip count is
    /// exact (the last iteration's slot holds the last values) or every iteration saves
    /// different elements (every slot does).
    fn offer_swap(&mut self, x: VarId, site: &SiteTape, dims: &[MapDim], elem: &[Expr], span: Span) {
        self.mark_clobbered(x);
        let SiteTape::Slots { tape, index, .. } = site else {
            self.mark_unswappable(x);
            return;
        };
        if self.cond_depth > 0 {
            self.mark_unswappable(x);
            return;
        }
        let ty = self.elem(x);
        let copy = |idx: Vec<Expr>| {
            let t = if idx.is_empty() { Place::scalar(*tape) } else { Place::element(*tape, idx) };
            let body = Stmt::assign(Place { var: x, index: elem.to_vec() }, t.to_expr(ty), span);
            if dims.is_empty() {
                body
            } else {
                Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: dims.to_vec(), body: vec![body] }), span)
            }
        };
        let nest: Vec<VarId> = self.nest.iter().map(|f| f.var).collect();
        let region_vars: Vec<VarId> = dims.iter().map(|d| d.var).collect();
        // The same region in every iteration: only fixed parameters and region indices.
        let free = elem
            .iter()
            .chain(dims.iter().flat_map(|d| [&d.start, &d.stop]))
            .flat_map(|e| e.vars())
            .all(|v| self.is_fixed(v) || region_vars.contains(&v));
        let last: Option<Vec<(Expr, Expr)>> = self.nest.iter().map(|f| f.last.clone()).collect();
        let mut vars: Vec<VarId> = dims.iter().map(|d| d.var).collect();
        vars.extend(nest.iter().copied());
        let copy_back = match last {
            Some(ends) if free => {
                // No loop axis is merged here (every trip count is exact): the first axes
                // are the loop counters, replaced by those of the last iteration.
                let mut idx: Vec<Expr> = ends.iter().map(|(e, _)| e.clone()).collect();
                idx.extend(index.iter().skip(ends.len()).cloned());
                let body = copy(idx);
                let cond = ends.into_iter().map(|(_, c)| c).reduce(|a, b| Expr::binary(BinOp::And, a, b));
                match cond {
                    None => body,
                    Some(c) => Stmt::new(StmtKind::If { cond: c, then_body: vec![body], else_body: Vec::new() }, span),
                }
            }
            _ if self.injective_in(elem, &vars).is_some() => {
                let idx = index.clone();
                // Every iteration copies its own elements: one parallel map when the nest
                // and the region are rectangular with unit steps, else the loops again.
                let rect = |e: &Expr| !e.vars().iter().any(|v| nest.contains(v));
                let unit: Option<Vec<MapDim>> = self
                    .nest
                    .iter()
                    .map(|f| {
                        let l = &f.range;
                        let ok = rect(&l.start) && rect(&l.stop);
                        match l.step.as_int() {
                            Some(1) if ok => Some(MapDim { var: l.var, start: l.start.clone(), stop: l.stop.clone() }),
                            Some(-1) if ok => Some(MapDim {
                                var: l.var,
                                start: l.stop.clone().add(Expr::int(1)),
                                stop: l.start.clone().add(Expr::int(1)),
                            }),
                            _ => None,
                        }
                    })
                    .collect();
                let flat = dims.iter().all(|d| rect(&d.start) && rect(&d.stop));
                match unit {
                    Some(mut md) if flat => {
                        md.extend(dims.iter().cloned());
                        let t = Place::element(*tape, idx);
                        let body = Stmt::assign(Place { var: x, index: elem.to_vec() }, t.to_expr(ty), span);
                        Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: md, body: vec![body] }), span)
                    }
                    _ => self.nest.iter().rev().fold(copy(idx), |body, f| {
                        Stmt::new(StmtKind::Loop(Loop { body: vec![body], ..f.range.clone() }), span)
                    }),
                }
            }
            _ => {
                self.mark_unswappable(x);
                return;
            }
        };
        self.swaps.push(Swap { x, tape: *tape, copy_back: vec![copy_back] });
    }

    /// Index variable number `k` of whole-array copy nests (`i`, `j`, `k`, `l`, then `i4`…).
    pub fn copy_index(&mut self, k: usize) -> VarId {
        while self.copy_idx.len() <= k {
            let n = self.copy_idx.len();
            let base = ["i", "j", "k", "l"].get(n).map(|s| s.to_string()).unwrap_or_else(|| format!("i{n}"));
            let name = self.fresh(&base);
            let v = self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
            self.copy_idx.push(v);
        }
        self.copy_idx[k]
    }

    /// Map dims covering the whole index space of array `x`, and the index of one element.
    pub fn full_space(&mut self, x: VarId) -> (Vec<MapDim>, Vec<Expr>) {
        let dims = self.f.var(x).ty.dims().to_vec();
        let mut md = Vec::new();
        let mut idx = Vec::new();
        for (k, d) in dims.iter().enumerate() {
            let v = self.copy_index(k);
            md.push(MapDim { var: v, start: d.lower.clone(), stop: d.lower.clone().add(d.extent.clone()) });
            idx.push(Expr::var(v, Scalar::I64));
        }
        (md, idx)
    }

    /// `dst[idx] = src[idx]` over the whole of `src` (same shapes).
    pub fn copy_map(&mut self, dst: VarId, src: VarId, span: Span) -> Stmt {
        let (dims, idx) = self.full_space(src);
        let ty = self.elem(src);
        Stmt::new(
            StmtKind::Map(Map {
                id: MapId::NEW,
                dims,
                body: vec![Stmt::assign(Place::element(dst, idx.clone()), Expr::load(src, idx, ty), span)],
            }),
            span,
        )
    }

    /// `x[idx] = 0` over the whole array.
    pub fn zero_map(&mut self, x: VarId, span: Span) -> Stmt {
        let (dims, idx) = self.full_space(x);
        let ty = self.elem(x);
        Stmt::new(
            StmtKind::Map(Map {
                id: MapId::NEW,
                dims,
                body: vec![Stmt::assign(Place::element(x, idx), Expr::float(0.0, ty), span)],
            }),
            span,
        )
    }

    /// A local array with the type of `x`, allocated by the adjoint.
    pub fn local_like(&mut self, x: VarId, suffix: &str, role: VarRole) -> VarId {
        let var = self.f.var(x).clone();
        let name = self.fresh(&format!("{}{suffix}", var.name));
        let t = self.f.add_var(name, var.ty, role, var.span);
        self.ad_allocs.push(t);
        t
    }

    /// Forward-sweep save and reverse-sweep restore of what map `s` overwrites in `x`.
    pub fn region_tape(&mut self, x: VarId, s: &Stmt, m: &Map) -> (Block, Block) {
        if !self.f.var(x).ty.is_array() {
            let (push, pop) = self.save_place(&Place::scalar(x), s.span);
            return (vec![push], vec![pop]);
        }
        self.mark_saved(x);
        let ty = self.elem(x);
        let bx = self.write_box(x, m);
        let region = self.region(x, m, &bx);
        let what = region.what.clone();
        let base = self.name(x);
        let (site, elems, exact) = self.site_tape(&base, ty, &region.axes);
        let kind = self.kind_of(&site);
        let line = Line::from(s.span);
        let copy = |dims: &[MapDim], body: Stmt| {
            if dims.is_empty() {
                body
            } else {
                Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: dims.to_vec(), body: vec![body] }), s.span)
            }
        };
        let (save, restore) = match &site {
            SiteTape::Slots { tape, index, bounded } => {
                let t = Place { var: *tape, index: index.clone() };
                let xe = Place::element(x, region.elem.clone());
                let save = copy(&region.dims, Stmt::assign(t.clone(), xe.to_expr(ty), s.span)).with_note(Note::Tape {
                    what: what.clone(),
                    before: Overwriter::Map,
                    line,
                    bound: bounded.as_ref().map(|b| b.to_string()),
                });
                let restore = copy(&region.dims, Stmt::assign(xe, t.to_expr(ty), s.span))
                    .with_note(Note::Restore { what: what.clone() });
                (save, restore)
            }
            SiteTape::Stack { tape, why } => {
                let push =
                    Stmt::new(StmtKind::Push { tape: *tape, value: Expr::load(x, region.elem.clone(), ty) }, s.span);
                let pop =
                    Stmt::new(StmtKind::Pop { tape: *tape, target: Place::element(x, region.elem.clone()) }, s.span);
                let nest = |inner: Stmt, reversed: bool| {
                    region.dims.iter().rev().fold(inner, |body, d| {
                        let (start, stop, step) = if reversed {
                            (d.stop.clone().sub(Expr::int(1)), d.start.clone().sub(Expr::int(1)), Expr::int(-1))
                        } else {
                            (d.start.clone(), d.stop.clone(), Expr::int(1))
                        };
                        Stmt::new(
                            StmtKind::Loop(Loop { id: LoopId::NEW, var: d.var, start, stop, step, body: vec![body] }),
                            s.span,
                        )
                    })
                };
                let save = nest(push, false).with_note(Note::StackTape {
                    why: why.clone(),
                    what: what.clone(),
                    before: Overwriter::Map,
                    line,
                });
                let restore = nest(pop, true).with_note(Note::RestoreFromStack { what: what.clone() });
                (save, restore)
            }
        };
        self.offer_swap(x, &site, &region.dims, &region.elem, s.span);
        let tape = match site {
            SiteTape::Slots { tape, .. } | SiteTape::Stack { tape, .. } => tape,
        };
        let name = self.name(tape);
        let why = self.readers(x, s.span);
        self.record(TapeInfo { var: tape, name, what, line: s.span.line, why, elems, exact, elem: ty, kind });
        (vec![save], vec![restore])
    }

    /// The region of `x` that map `m` overwrites, as copy loops.
    fn region(&mut self, x: VarId, m: &Map, bx: &[BoxAxis]) -> Region {
        let places = write_places(&m.body, x);
        // One injective write: the map's own index space is the region.
        if let [(p, false)] = places.as_slice() {
            if let Some(unit) = self.injective_write(&p.index, m) {
                let axes: Option<Vec<Axis>> = m
                    .dims
                    .iter()
                    .map(|d| {
                        let rel = match self.nest_affine(&d.start, &[]) {
                            Some(a) => Affine::var(d.var).sub(&a).to_expr(),
                            None => Expr::var(d.var, Scalar::I64).sub(d.start.clone()),
                        };
                        self.extent_axis(&d.start, &d.stop, rel)
                    })
                    .collect();
                if let Some(axes) = axes {
                    // A strided write is described by its index and the map's range.
                    let what = if unit {
                        self.box_text(x, bx)
                    } else {
                        let ranges: Vec<String> = m
                            .dims
                            .iter()
                            .map(|d| {
                                let s = |e: &Expr| adjc_ir::print::expr_str(&self.f, e);
                                format!("{} in [{}, {})", self.name(d.var), s(&d.start), s(&d.stop))
                            })
                            .collect();
                        format!("{} for {}", self.what_place(p), ranges.join(", "))
                    };
                    return Region { dims: m.dims.clone(), elem: p.index.clone(), axes, what };
                }
            }
        }
        // Otherwise the bounding box of the writes, axis by axis.
        let dims = self.f.var(x).ty.dims().to_vec();
        let what = self.box_text(x, bx);
        let mut region = Region { dims: Vec::new(), elem: Vec::new(), axes: Vec::new(), what };
        for (d, axis) in dims.iter().zip(bx) {
            let (lo, stop, ext) = match axis {
                Some((lo, hi)) if lo == hi => {
                    region.elem.push(lo.to_expr());
                    continue;
                }
                Some((lo, hi)) => (lo.to_expr(), hi.plus(1).to_expr(), Some(hi.sub(lo).plus(1))),
                None => (d.lower.clone(), d.lower.clone().add(d.extent.clone()), None),
            };
            let k = region.dims.len();
            let v = self.copy_index(k);
            let ve = Expr::var(v, Scalar::I64);
            let rel = ve.clone().sub(lo.clone());
            let whole = Axis { extent: d.extent.clone(), index: rel.clone(), bounded: None, frame: None, tri: None };
            let axis = match &ext {
                Some(ext) => self.affine_axis(ext, rel).unwrap_or(whole),
                None => whole,
            };
            region.dims.push(MapDim { var: v, start: lo, stop });
            region.elem.push(ve);
            region.axes.push(axis);
        }
        region
    }

    /// Whether distinct iterations of `m` reach distinct elements through `index`.
    fn injective_write(&self, index: &[Expr], m: &Map) -> Option<bool> {
        let map_vars: Vec<VarId> = m.dims.iter().map(|d| d.var).collect();
        self.injective_in(index, &map_vars)
    }

    /// Whether distinct values of `vars` reach distinct elements through `index`: every
    /// variable of `vars` appears with a non-zero coefficient in exactly one position,
    /// which mentions no other of them and nothing but loop indices and fixed parameters.
    /// `Some(true)` when every coefficient is ±1.
    fn injective_in(&self, index: &[Expr], map_vars: &[VarId]) -> Option<bool> {
        let mut used = vec![false; map_vars.len()];
        let mut unit = true;
        for e in index {
            let a = self.nest_affine(e, map_vars)?;
            let mine: Vec<usize> = (0..map_vars.len()).filter(|k| a.coeff(map_vars[*k]) != 0).collect();
            match mine.as_slice() {
                [] => {}
                [k] if !used[*k] => {
                    used[*k] = true;
                    unit &= a.coeff(map_vars[*k]).abs() == 1;
                }
                _ => return None,
            }
        }
        used.iter().all(|u| *u).then_some(unit)
    }

    /// The bounding box of every write to `x` in map `m`, axis by axis, in terms of the
    /// indices of the loops around the map.
    fn write_box(&self, x: VarId, m: &Map) -> Vec<BoxAxis> {
        let rank = self.f.var(x).ty.rank();
        let mut env: Vec<Interval> = Vec::new();
        for d in &m.dims {
            let known: Vec<VarId> = env.iter().map(|iv| iv.var).collect();
            match (self.nest_affine(&d.start, &known), self.nest_affine(&d.stop, &known)) {
                (Some(lo), Some(stop)) => env.push(Interval { var: d.var, lo, hi: stop.plus(-1) }),
                _ => return vec![None; rank],
            }
        }
        let mut writes: Vec<(Vec<Expr>, Vec<Interval>)> = Vec::new();
        self.collect_writes(x, &m.body, &env, &mut writes);
        let mut out: Vec<BoxAxis> = Vec::new();
        for axis in 0..rank {
            let mut acc: BoxAxis = None;
            let mut ok = !writes.is_empty();
            for (index, env) in &writes {
                let known: Vec<VarId> = env.iter().map(|iv| iv.var).collect();
                let Some(a) = index.get(axis).and_then(|e| self.nest_affine(e, &known)) else {
                    ok = false;
                    break;
                };
                let (lo, hi) = (extreme(&a, env, false), extreme(&a, env, true));
                if lo.mentions_any(&known) || hi.mentions_any(&known) {
                    ok = false;
                    break;
                }
                acc = match acc.take() {
                    None => Some((lo, hi)),
                    Some((l0, h0)) => {
                        let (Some(dl), Some(dh)) = (l0.sub(&lo).as_const(), h0.sub(&hi).as_const()) else {
                            ok = false;
                            break;
                        };
                        Some((if dl > 0 { lo } else { l0 }, if dh < 0 { hi } else { h0 }))
                    }
                };
            }
            out.push(if ok { acc } else { None });
        }
        out
    }

    /// Every write to `x` in `b` with the intervals of the loops around it.
    fn collect_writes(&self, x: VarId, b: &Block, env: &[Interval], out: &mut Vec<(Vec<Expr>, Vec<Interval>)>) {
        for s in b {
            match &s.kind {
                StmtKind::Assign { target, .. }
                | StmtKind::Accumulate { target, .. }
                | StmtKind::Pop { target, .. }
                    if target.var == x =>
                {
                    out.push((target.index.clone(), env.to_vec()))
                }
                StmtKind::Loop(l) => {
                    let known: Vec<VarId> = env.iter().map(|iv| iv.var).collect();
                    let mut inner = env.to_vec();
                    let step = l.step.as_int().unwrap_or(1);
                    if let (Some(a), Some(b)) = (self.nest_affine(&l.start, &known), self.nest_affine(&l.stop, &known))
                    {
                        let (lo, hi) = if step > 0 { (a, b.plus(-1)) } else { (b.plus(1), a) };
                        inner.push(Interval { var: l.var, lo, hi });
                    }
                    self.collect_writes(x, &l.body, &inner, out);
                }
                StmtKind::Map(mm) => {
                    let mut inner = env.to_vec();
                    for d in &mm.dims {
                        let known: Vec<VarId> = inner.iter().map(|iv| iv.var).collect();
                        if let (Some(lo), Some(stop)) =
                            (self.nest_affine(&d.start, &known), self.nest_affine(&d.stop, &known))
                        {
                            inner.push(Interval { var: d.var, lo, hi: stop.plus(-1) });
                        }
                    }
                    self.collect_writes(x, &mm.body, &inner, out);
                }
                _ => s.blocks().into_iter().for_each(|c| self.collect_writes(x, c, env, out)),
            }
        }
    }

    /// `B[1:-1]`, `A[i, 1:-1]`, `A[:, j]`: the box in NumPy slice notation.
    fn box_text(&self, x: VarId, bx: &[BoxAxis]) -> String {
        let f = &self.f;
        let dims = f.var(x).ty.dims().to_vec();
        let fixed = |e: &Expr| Affine::parse(e, &|v| self.is_fixed(v), &|v| self.is_fixed(v));
        let text = |a: &Affine| adjc_ir::print::expr_str(f, &a.to_expr());
        // Fortran arrays read as Fortran sections: `x(2:n)`, upper bounds inclusive.
        let fortran = matches!(f.var(x).ty, Type::Array { layout: Layout::ColMajor, .. });
        let parts: Vec<String> = dims
            .iter()
            .zip(bx)
            .map(|(d, axis)| match axis {
                None => ":".to_string(),
                Some((lo, hi)) if lo == hi => text(lo),
                Some((lo, hi)) => {
                    let (lower, extent) = (fixed(&d.lower), fixed(&d.extent));
                    let start = if lower.as_ref() == Some(lo) { String::new() } else { text(lo) };
                    let end = lower.as_ref().zip(extent.as_ref()).map(|(l, e)| l.add(e));
                    let stop = hi.plus(1);
                    let stop_text = match (&end, &lower) {
                        (Some(end), _) if *end == stop => String::new(),
                        _ if fortran => text(hi),
                        (Some(end), Some(l)) if l.as_const() == Some(0) => match end.sub(&stop).as_const() {
                            Some(c) if c > 0 => format!("-{c}"),
                            _ => text(&stop),
                        },
                        _ => text(&stop),
                    };
                    format!("{start}:{stop_text}")
                }
            })
            .collect();
        let (open, close) = if fortran { ("(", ")") } else { ("[", "]") };
        format!("{}{open}{}{close}", f.var(x).name, parts.join(", "))
    }

    /// `A[i, j]`, or `a(i, j)` for a Fortran array.
    fn what_place(&self, p: &Place) -> String {
        match &self.f.var(p.var).ty {
            Type::Array { layout: Layout::ColMajor, .. } => {
                let idx: Vec<String> = p.index.iter().map(|e| adjc_ir::print::expr_str(&self.f, e)).collect();
                format!("{}({})", self.name(p.var), idx.join(", "))
            }
            _ => self.place_str(p),
        }
    }

    /// "read by the adjoint of line 8": the statements whose adjoints read `x` and run in
    /// the reverse sweep after the restore of the save at `span` (those before it in the
    /// source, or in the loops around it).
    pub fn readers(&self, x: VarId, span: Span) -> String {
        let outer = self.nest.first().map(|f| f.span).unwrap_or(span);
        let relevant =
            |t: &Span| t.start <= span.start || (t.start >= outer.start && t.start < outer.end.max(outer.start + 1));
        let index = self.readers_index.get_or_init(|| self.build_readers_index());
        let mut lines: Vec<u32> = index
            .get(&x)
            .map(|spans| spans.iter().filter(|t| relevant(t)).map(|t| t.line).collect())
            .unwrap_or_default();
        lines.sort_unstable();
        lines.dedup();
        match lines.as_slice() {
            [] => "read by the reverse sweep".into(),
            [l] => format!("read by the adjoint of line {l}"),
            ls => {
                let ls: Vec<String> = ls.iter().map(|l| l.to_string()).collect();
                format!("read by the adjoints of lines {}", ls.join(", "))
            }
        }
    }

    /// Every primal variable with the spans of the statements whose adjoints read it.
    fn build_readers_index(&self) -> BTreeMap<VarId, Vec<Span>> {
        let mut index: BTreeMap<VarId, Vec<Span>> = BTreeMap::new();
        walk_stmts(&self.p.body, &mut |t| {
            if t.span.is_none() {
                return;
            }
            let reads = match &t.kind {
                StmtKind::Assign { target, value } => self.ar_write(target, value),
                StmtKind::Accumulate { target, op, value, .. } => {
                    self.ar_write(target, &self.effective_value(target, *op, value))
                }
                StmtKind::Loop(_) => self.active_nest(t).map(|n| self.ar_minmax(&n)).unwrap_or_default(),
                _ => return,
            };
            for x in reads {
                index.entry(x).or_default().push(t.span);
            }
        });
        index
    }
}
