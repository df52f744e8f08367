//! Assignments into arrays: one fused `Map` over the target's index space, with a
//! temporary when NumPy semantics require the right-hand side to read old values.

use super::ast::*;
use super::lower::{Lowerer, R};
use super::ops::{self, SVal};
use super::value::*;
use adjc_ir::*;

impl Lowerer<'_> {
    /// Loop dimensions over the axes of `arr`: an axis indexed with unit stride runs over
    /// the array's own indices (`map i in [1, N - 1)` for `B[1:-1]`), others over a
    /// counter. Returns the dims and, per axis, the 0-based position expression. Pushes
    /// one index name per axis; the caller pops them.
    pub fn map_dims(&mut self, arr: &Arr) -> (Vec<MapDim>, Vec<Expr>) {
        let mut dims = Vec::new();
        let mut idx = Vec::new();
        for d in 0..arr.rank() {
            let name = self.index_name();
            let v = self.add_index(name);
            let ext = crate::sym::canon(crate::sym::unclamp(&arr.shape[d]));
            let var = Expr::var(v, Scalar::I64);
            match arr.unit_offset(d) {
                Some(r) if r.as_int() != Some(0) => {
                    let stop = crate::sym::canon(&r.clone().add(ext));
                    idx.push(crate::sym::canon(&var.clone().sub(r.clone())));
                    dims.push(MapDim { var: v, start: r, stop });
                }
                _ => {
                    idx.push(var);
                    dims.push(MapDim { var: v, start: Expr::int(0), stop: ext });
                }
            }
        }
        (dims, idx)
    }

    pub fn pop_names(&mut self, n: usize) {
        let keep = self.index_names.len().saturating_sub(n);
        self.index_names.truncate(keep);
    }

    pub fn place_of(&self, dest: &Arr, idx: &[Expr]) -> R<Place> {
        match dest.at(idx).kind {
            ExprKind::Load(v, ix) => Ok(Place::element(v, ix)),
            _ => Err(self.err(self.span, format!("cannot assign to `{}`", dest.text))),
        }
    }

    /// Whether `value` reads `place.var` at an element other than `place`.
    pub fn reads_other(&self, place: &Place, value: &Expr) -> bool {
        let mut other = false;
        value.walk(&mut |x| {
            if let ExprKind::Load(v, idx) = &x.kind {
                if *v == place.var
                    && (idx.len() != place.index.len()
                        || idx.iter().zip(&place.index).any(|(a, b)| !self.shapes.same(a, b)))
                {
                    other = true;
                }
            }
        });
        other
    }

    pub fn store_whole(&mut self, var: VarId, v: Val, text: &str) -> R<()> {
        let w = self.whole(var);
        self.store_view(&w, v, None, text)
    }

    /// `dest[...] = v` (or `dest[...] op= v`) for a view `dest` of rank >= 1.
    pub fn store_view(&mut self, dest: &Arr, v: Val, aug: Option<BinOpAst>, rhs_text: &str) -> R<()> {
        let Some(dvar) = dest.view_var() else {
            return Err(self.err(self.span, format!("cannot assign to `{}`: it is not an array variable", dest.text)));
        };
        let v = match v {
            Val::Deferred(d) if aug.is_none() && !d.reads(dvar) && self.direct_ok(dest, &d.shape) => {
                return self.compute_into_view(dest, &d);
            }
            Val::Deferred(d) => self.force(*d)?,
            other => other,
        };
        let rhs_ex = Ex { kind: ExKind::NoneLit, span: self.span, text: rhs_text.to_string() };
        let rhs = match self.operand(v, &rhs_ex)? {
            super::expr::Operand::S(sv) => sv.e,
            super::expr::Operand::A(a) => self.broadcast_to(dest, &a, rhs_text)?,
        };
        let span = self.span;
        let value = match aug {
            None | Some(BinOpAst::Add) => rhs,
            Some(op) => {
                let cur = SVal::strong(dest.tmpl.clone());
                let r = SVal::strong(rhs);
                ops::arith(op, cur, r).map_err(|m| self.err(span, m))?.e
            }
        };
        let value = ops::cast(SVal::strong(value), dest.elem).e;
        self.emit_store_map(dest, value, aug == Some(BinOpAst::Add))
    }

    /// Whether a value of `shape` can be computed straight into `dest` (same shape, no
    /// broadcasting); unifies inferred extents where that makes them equal.
    fn direct_ok(&mut self, dest: &Arr, shape: &[Expr]) -> bool {
        if shape.len() != dest.rank() {
            return false;
        }
        for (d, e) in shape.iter().enumerate() {
            if self.shapes.same_ext(&dest.shape[d], e) {
                continue;
            }
            if self.shapes.is_one(e) || self.shapes.is_one(&dest.shape[d]) {
                return false;
            }
            let f = &self.f;
            if !self.shapes.equate(&dest.shape[d], e, &|v| f.is_param(v)) {
                return false;
            }
        }
        true
    }

    /// The template of `a` broadcast to the axes of `dest`.
    fn broadcast_to(&mut self, dest: &Arr, a: &Arr, text: &str) -> R<Expr> {
        let (r, rd) = (a.rank(), dest.rank());
        if r > rd {
            return Err(self.err_help(
                self.span,
                format!(
                    "cannot assign `{text}` ({r} dimensions) to `{}` ({rd} dimension{})",
                    dest.text,
                    if rd == 1 { "" } else { "s" }
                ),
                "the value must have at most as many dimensions as the target",
            ));
        }
        let off = rd - r;
        let mut ones = Vec::new();
        for k in 0..r {
            let de = dest.shape[k + off].clone();
            let ae = a.shape[k].clone();
            if self.shapes.is_one(&ae) && !self.shapes.is_one(&de) {
                ones.push(true);
                continue;
            }
            let what = format!("equal extents of `{}` and `{text}`", dest.text);
            if !self.require_equal(&de, &ae, self.span, what) {
                return Err(self.mismatch(&dest.text, &de, text, &ae, self.span, Some(k + off), rd));
            }
            ones.push(false);
        }
        Ok(subst_ph(&a.tmpl, &|k| if ones.get(k).copied().unwrap_or(false) { Expr::int(0) } else { ph_expr(k + off) }))
    }

    /// One map assigning (or accumulating) `value` (a template over the axes of `dest`)
    /// into every element of `dest`; via a temporary when the value reads other elements
    /// of the target.
    pub fn emit_store_map(&mut self, dest: &Arr, value: Expr, accumulate: bool) -> R<()> {
        let rank = dest.rank();
        let (dims, idx) = self.map_dims(dest);
        let place = match self.place_of(dest, &idx) {
            Ok(p) => p,
            Err(e) => {
                self.pop_names(rank);
                return Err(e);
            }
        };
        let val = subst_ph(&value, &|d| idx.get(d).cloned().unwrap_or_else(|| Expr::int(0)));
        let span = self.span;
        if !self.reads_other(&place, &val) {
            let kind = if accumulate {
                StmtKind::Accumulate { target: place, op: AccOp::Add, value: val, shared: false }
            } else {
                StmtKind::Assign { target: place, value: val }
            };
            self.pop_names(rank);
            self.emit_kind(StmtKind::Map(Map { id: MapId::NEW, dims, body: vec![Stmt::new(kind, span)] }));
            return Ok(());
        }
        self.pop_names(rank);
        // NumPy evaluates the whole right-hand side before writing: compute into a
        // temporary, then copy.
        let full = if accumulate { place.to_expr(dest.elem).add(val) } else { val };
        let base = self.f.var(place.var).name.clone();
        let tname = format!("{base}_tmp");
        let shape_ok = dest.shape.iter().all(|e| self.is_param_expr(&self.shapes.apply(e)));
        let bounds_ok = dest.bounds.iter().all(|e| self.is_param_expr(&self.shapes.apply(e)));
        let (tvar, tidx): (VarId, Vec<Expr>) = if shape_ok || bounds_ok {
            let t = self.new_array(&tname, dest.elem, &dest.shape.clone(), &dest.bounds.clone(), VarRole::Temp)?;
            (t.view_var().unwrap_or(place.var), idx.clone())
        } else {
            // No usable bound: a copy of the whole target, indexed like the target.
            let shape: Vec<Expr> = self.f.var(place.var).ty.dims().iter().map(|d| d.extent.clone()).collect();
            let t = self.new_array(&tname, dest.elem, &shape, &shape.clone(), VarRole::Temp)?;
            (t.view_var().unwrap_or(place.var), place.index.clone())
        };
        let first = Stmt::new(StmtKind::Assign { target: Place::element(tvar, tidx.clone()), value: full }, span);
        self.emit_kind(StmtKind::Map(Map { id: MapId::NEW, dims, body: vec![first] }));
        let (dims2, idx2) = self.map_dims(dest);
        let place2 = self.place_of(dest, &idx2)?;
        let tidx2 = if shape_ok || bounds_ok { idx2.clone() } else { place2.index.clone() };
        self.pop_names(rank);
        let copy = Stmt::new(StmtKind::Assign { target: place2, value: Expr::load(tvar, tidx2, dest.elem) }, span);
        self.emit_kind(StmtKind::Map(Map { id: MapId::NEW, dims: dims2, body: vec![copy] }));
        Ok(())
    }

    /// `base[items] = v` / `base[items] op= v`.
    pub fn store_subscript(
        &mut self,
        target: &Ex,
        base: &Ex,
        items: &[Ex],
        v: Val,
        aug: Option<BinOpAst>,
        rhs_text: &str,
    ) -> R<()> {
        let b = self.eval(base)?;
        let arr = match b {
            Val::Array(a) if a.view => a,
            Val::Array(_) | Val::Deferred(_) => {
                return Err(self.err(base.span, format!("cannot assign into `{}`: it is a computed value", base.text)))
            }
            other => {
                return Err(self.err(
                    base.span,
                    format!("cannot assign into `{}`: it is {}, not an array", base.text, other.kind_name()),
                ))
            }
        };
        let its = self.eval_items(items, true)?;
        if let [Item::Mask(mask)] = its.as_slice() {
            return self.store_mask(target, &arr, mask, v, aug);
        }
        let dest = index(&arr, &its, self).map_err(|m| self.err(target.span, m))?;
        let dest = Arr { view: true, text: target.text.clone(), ..dest };
        if its.iter().any(|i| matches!(i, Item::Fancy(_))) {
            return self.store_fancy(&dest, v, aug, rhs_text, false);
        }
        if dest.rank() > 0 {
            return self.store_view(&dest, v, aug, rhs_text);
        }
        let place = self.place_of(&dest, &[])?;
        let sv = match v {
            Val::Scalar(sv) => sv,
            Val::Deferred(d) if d.shape.is_empty() => match self.force(*d)? {
                Val::Scalar(sv) => sv,
                _ => return Err(self.err(target.span, "internal: scalar expected")),
            },
            other => {
                return Err(self.err_help(
                    target.span,
                    format!("cannot assign {} to the single element `{}`", other.kind_name(), target.text),
                    "index the value down to a scalar, or assign to a slice of the target",
                ))
            }
        };
        let elem = arr.elem;
        let span = self.span;
        let kind = match aug {
            None => StmtKind::Assign { target: place, value: ops::cast(sv, elem).e },
            Some(BinOpAst::Add) => {
                StmtKind::Accumulate { target: place, op: AccOp::Add, value: ops::cast(sv, elem).e, shared: false }
            }
            // A scatter `flux[cell[e]] -= f` is an accumulation (of `-f`), as `+=` is: a
            // loop of them may run in parallel with atomic updates (`parallelize`), and
            // the adjoint needs no old value of the target.
            Some(BinOpAst::Sub) if elem.is_float() && indirect(&place) => {
                let value = ops::cast(sv, elem).e.neg();
                StmtKind::Accumulate { target: place, op: AccOp::Add, value, shared: false }
            }
            Some(op) => {
                let cur = SVal::strong(place.to_expr(elem));
                let r = ops::arith(op, cur, sv).map_err(|m| self.err(span, m))?;
                StmtKind::Assign { target: place, value: ops::cast(r, elem).e }
            }
        };
        self.emit_kind(kind);
        Ok(())
    }

    /// `x[idx] = v`, `x[idx] op= v` (NumPy's semantics: the whole right-hand side, `x[idx]`
    /// of `op=` included, is evaluated before anything is stored, then stored in index
    /// order, so of repeated indices the last write wins and `x[idx] += v` adds once), and
    /// with `accumulate_all`, `np.add.at(x, idx, v)` (every term added). `dest` is the
    /// target indexed with integer arrays.
    ///
    /// The stores are a *sequential* loop nest: with repeated indices the iterations are
    /// not independent (the last writer wins), and whether an index repeats is known only
    /// at run time. `parallelize` may still run an `np.add.at` loop with atomic updates:
    /// it sees an accumulation through an unknown index.
    pub fn store_fancy(
        &mut self,
        dest: &Arr,
        v: Val,
        aug: Option<BinOpAst>,
        rhs_text: &str,
        accumulate_all: bool,
    ) -> R<()> {
        let Some(dvar) = dest.view_var() else {
            return Err(self.err(self.span, format!("cannot assign to `{}`: it is not an array variable", dest.text)));
        };
        let v = match v {
            Val::Deferred(d) => self.force(*d)?,
            other => other,
        };
        let rhs_ex = Ex { kind: ExKind::NoneLit, span: self.span, text: rhs_text.to_string() };
        let rhs = match self.operand(v, &rhs_ex)? {
            super::expr::Operand::S(sv) => sv.e,
            super::expr::Operand::A(a) => self.broadcast_to(dest, &a, rhs_text)?,
        };
        let span = self.span;
        let value = match aug {
            None => rhs,
            Some(BinOpAst::Add) if accumulate_all => rhs,
            Some(op) => {
                let cur = SVal::strong(dest.tmpl.clone());
                ops::arith(op, cur, SVal::strong(rhs)).map_err(|m| self.err(span, m))?.e
            }
        };
        let value = ops::cast(SVal::strong(value), dest.elem).e;
        let rank = dest.rank();
        if accumulate_all || !value.mentions(dvar) {
            let (dims, idx) = self.map_dims(dest);
            let place = self.place_of(dest, &idx);
            self.pop_names(rank);
            let place = place?;
            let val = subst_ph(&value, &|d| idx.get(d).cloned().unwrap_or_else(|| Expr::int(0)));
            let kind = if accumulate_all {
                StmtKind::Accumulate { target: place, op: AccOp::Add, value: val, shared: false }
            } else {
                StmtKind::Assign { target: place, value: val }
            };
            for s in loop_nest(dims, vec![Stmt::new(kind, span)], span) {
                self.emit(s);
            }
            return Ok(());
        }
        // The value reads the target: all of it first, into a temporary (a parallel map),
        // then the stores in order.
        let base = self.f.var(dvar).name.clone();
        let tname = format!("{base}_tmp");
        let t = self.new_array(&tname, dest.elem, &dest.shape.clone(), &dest.bounds.clone(), VarRole::Temp)?;
        let Some(tvar) = t.view_var() else { return Err(self.err(span, "internal: temporary is not an array")) };
        let (dims, idx) = self.map_dims(dest);
        let val = subst_ph(&value, &|d| idx.get(d).cloned().unwrap_or_else(|| Expr::int(0)));
        let first = Stmt::new(StmtKind::Assign { target: Place::element(tvar, idx.clone()), value: val }, span);
        self.pop_names(rank);
        self.emit_kind(StmtKind::Map(Map { id: MapId::NEW, dims, body: vec![first] }));
        let (dims, idx) = self.map_dims(dest);
        let place = self.place_of(dest, &idx);
        self.pop_names(rank);
        let place = place?;
        let store = Stmt::new(StmtKind::Assign { target: place, value: Expr::load(tvar, idx, dest.elem) }, span);
        for s in loop_nest(dims, vec![store], span) {
            self.emit(s);
        }
        Ok(())
    }

    /// `x[mask] = v` with a boolean array of the shape of `x`: a map with a conditional
    /// assignment.
    fn store_mask(&mut self, target: &Ex, arr: &Arr, mask: &Arr, v: Val, aug: Option<BinOpAst>) -> R<()> {
        if mask.rank() != arr.rank() {
            return Err(
                self.err(target.span, format!("the mask `{}` must have the dimensions of `{}`", mask.text, arr.text))
            );
        }
        for d in 0..arr.rank() {
            let what = format!("equal extents of `{}` and `{}`", arr.text, mask.text);
            if !self.require_equal(&arr.shape[d], &mask.shape[d], target.span, what) {
                return Err(self.mismatch(
                    &arr.text,
                    &arr.shape[d],
                    &mask.text,
                    &mask.shape[d],
                    target.span,
                    Some(d),
                    arr.rank(),
                ));
            }
        }
        let sv = match v {
            Val::Scalar(sv) => sv,
            Val::Deferred(d) if d.shape.is_empty() => match self.force(*d)? {
                Val::Scalar(sv) => sv,
                _ => return Err(self.err(target.span, "internal: scalar expected")),
            },
            other => {
                return Err(self.err_help(
                    target.span,
                    format!("only a scalar can be assigned through a boolean mask, not {}", other.kind_name()),
                    "use `np.where(mask, value, x)` for arrays",
                ))
            }
        };
        let rank = arr.rank();
        let (dims, idx) = self.map_dims(arr);
        let place = self.place_of(arr, &idx);
        let cond = mask.at(&idx);
        self.pop_names(rank);
        let place = place?;
        let span = self.span;
        let value = match aug {
            None => ops::cast(sv, arr.elem).e,
            Some(op) => {
                let cur = SVal::strong(place.to_expr(arr.elem));
                ops::cast(ops::arith(op, cur, sv).map_err(|m| self.err(span, m))?, arr.elem).e
            }
        };
        if self.reads_other(&place, &cond) || self.reads_other(&place, &value) {
            return Err(
                self.err(target.span, "a mask or value that reads other elements of the target is not supported")
            );
        }
        let body = vec![Stmt::new(
            StmtKind::If {
                cond,
                then_body: vec![Stmt::new(StmtKind::Assign { target: place, value }, span)],
                else_body: vec![],
            },
            span,
        )];
        self.emit_kind(StmtKind::Map(Map { id: MapId::NEW, dims, body }));
        Ok(())
    }
}

/// Whether an index of `place` reads an array (an indirect access through an index array).
pub fn indirect(place: &Place) -> bool {
    let mut found = false;
    for i in &place.index {
        i.walk(&mut |x| found |= matches!(x.kind, ExprKind::Load(..)));
    }
    found
}

/// Sequential loops over `dims` (outermost first) around `body`.
fn loop_nest(dims: Vec<MapDim>, body: Vec<Stmt>, span: Span) -> Vec<Stmt> {
    let mut body = body;
    for d in dims.into_iter().rev() {
        let l = Loop { id: LoopId::NEW, var: d.var, start: d.start, stop: d.stop, step: Expr::int(1), body };
        body = vec![Stmt::new(StmtKind::Loop(l), span)];
    }
    body
}
