//! Reductions, matrix products and fresh arrays: computed straight into their
//! destination when they are a whole right-hand side, else into a temporary first.

use super::ast::*;
use super::lower::{Lowerer, R};
use super::ops::{self, SVal};
use super::value::*;
use super::var_names::op_name;
use adjc_ir::*;

fn ident_of(text: &str) -> Option<&str> {
    let t = text.trim();
    if !t.is_empty() && t.chars().all(|c| c.is_alphanumeric() || c == '_') && !t.starts_with(|c: char| c.is_numeric()) {
        Some(t)
    } else {
        None
    }
}

fn float_of(t: Scalar) -> Scalar {
    if t.is_float() {
        t
    } else {
        Scalar::F64
    }
}

impl Lowerer<'_> {
    pub fn reduce(&mut self, op: RedOp, v: Val, axis: Option<&Ex>, keep: Option<&Ex>, e: &Ex) -> R<Val> {
        let keepdims = match keep {
            None => false,
            Some(k) => match self.eval(k)? {
                Val::Scalar(sv) => match sv.e.kind {
                    ExprKind::Const(Literal::Bool(b)) => b,
                    ExprKind::Const(Literal::Int(i)) => i != 0,
                    _ => return Err(self.err(k.span, "`keepdims` must be `True` or `False`")),
                },
                _ => return Err(self.err(k.span, "`keepdims` must be `True` or `False`")),
            },
        };
        let arr = match v {
            Val::Scalar(sv) => {
                return Ok(Val::Scalar(if op == RedOp::Mean { ops::cast(sv.clone(), float_of(sv.ty())) } else { sv }))
            }
            Val::Array(a) => a,
            Val::Deferred(d) => match self.force(*d)? {
                Val::Array(a) => a,
                other => return Ok(other),
            },
            other => return Err(self.err(e.span, format!("cannot reduce {}", other.kind_name()))),
        };
        let rank = arr.rank();
        let axes = self.reduce_axes(&arr, axis)?;
        let mut shape = Vec::new();
        let mut bounds = Vec::new();
        for d in 0..rank {
            if axes.contains(&d) {
                if keepdims {
                    shape.push(Expr::int(1));
                    bounds.push(Expr::int(1));
                }
            } else {
                shape.push(arr.shape[d].clone());
                bounds.push(arr.bounds[d].clone());
            }
        }
        let elem = match op {
            RedOp::Sum | RedOp::Prod if !arr.elem.is_float() => Scalar::I64,
            RedOp::Mean => float_of(arr.elem),
            _ if arr.elem == Scalar::Bool => Scalar::I64,
            _ => arr.elem,
        };
        Ok(Val::Deferred(Box::new(Deferred {
            op: DefOp::Reduce { op, arg: arr, axes, keepdims },
            elem,
            shape,
            bounds,
            text: e.text.clone(),
        })))
    }

    /// The axes (sorted, non-negative) an `axis=` argument selects; all when absent.
    pub fn reduce_axes(&mut self, arr: &Arr, axis: Option<&Ex>) -> R<Vec<usize>> {
        let rank = arr.rank();
        let mut axes: Vec<usize> = Vec::new();
        match axis {
            None => axes.extend(0..rank),
            Some(ax) => {
                let v = self.eval(ax)?;
                let items = match v {
                    Val::Tuple(items) => items,
                    Val::None => (0..rank).map(|k| Val::Scalar(SVal::weak(Expr::int(k as i64)))).collect(),
                    other => vec![other],
                };
                for it in items {
                    let k = match it {
                        Val::Scalar(sv) => sv.e.as_int(),
                        _ => None,
                    };
                    let Some(k) = k else {
                        return Err(self.err(ax.span, "`axis` must be an integer constant or a tuple of them"));
                    };
                    let a = if k < 0 { k + rank as i64 } else { k };
                    if a < 0 || a >= rank as i64 {
                        return Err(self.err(
                            ax.span,
                            format!("axis {k} is out of range for `{}` with {rank} dimension(s)", arr.text),
                        ));
                    }
                    if axes.contains(&(a as usize)) {
                        return Err(self.err(ax.span, format!("axis {k} is repeated")));
                    }
                    axes.push(a as usize);
                }
                axes.sort_unstable();
            }
        }
        Ok(axes)
    }

    pub fn arrays_for_product(&mut self, a: Val, b: Val, ea: &Ex, eb: &Ex) -> R<(Arr, Arr)> {
        let mut out = Vec::new();
        for (v, ex) in [(a, ea), (b, eb)] {
            match self.operand(v, ex)? {
                super::expr::Operand::A(arr) => out.push(arr),
                super::expr::Operand::S(_) => {
                    return Err(self.err_help(
                        ex.span,
                        format!("`{}` is a scalar; matrix products need arrays", ex.text),
                        "use `*` to multiply by a scalar",
                    ))
                }
            }
        }
        let b = out.pop().ok_or_else(|| self.err(eb.span, "internal"))?;
        let a = out.pop().ok_or_else(|| self.err(ea.span, "internal"))?;
        Ok((a, b))
    }

    /// Makes extents `a` and `b` equal, as a matrix product, a broadcast or an assignment
    /// needs: unified when one is inferred, else checked on entry to the generated function
    /// when their difference only depends on parameters (`N - i - 1` and `M - i` give the
    /// check `N == M + 1`); `false` when they cannot be equal (a constant difference, or one
    /// that changes with a loop variable) or cannot be checked there.
    pub fn require_equal(&mut self, a: &Expr, b: &Expr, span: Span, what: String) -> bool {
        let f = &self.f;
        if self.shapes.equate(a, b, &|v| f.is_param(v)) {
            return true;
        }
        let Some(diff) = self.shapes.elin(a).sub(&self.shapes.elin(b)) else { return false };
        if diff.as_const().is_some() {
            return false;
        }
        let (lhs, rhs) = if diff.has_opaque() {
            if !self.is_param_expr(&self.shapes.apply(a)) || !self.is_param_expr(&self.shapes.apply(b)) {
                return false;
            }
            (a.clone(), b.clone())
        } else {
            if diff.vars().iter().any(|v| !f.is_param(*v)) {
                return false;
            }
            // One orientation (the first variable on the left), so that the same
            // condition met twice is checked once.
            let first = diff.terms.values().next().copied().unwrap_or(1);
            split_sides(&if first < 0 { diff.scale(-1).unwrap_or(diff) } else { diff })
        };
        self.f.assumptions.push(Assumption::equal(lhs, rhs, span, what));
        true
    }

    /// Whether `a <= b` holds wherever the statement being built runs (from the enclosing
    /// loop ranges and array extents being non-negative).
    pub fn provably_le(&self, a: &Expr, b: &Expr) -> bool {
        let (sizes, ints) = (&self.sizes, &self.extent_ints);
        let d = crate::sym::canon(&b.clone().sub(a.clone()));
        self.shapes.provably_nonneg(&d, &self.loops, &|v| sizes.contains(&v) || ints.contains(&v))
    }

    /// Records the integer parameters among the extents of a new array.
    pub fn note_extents(&mut self, shape: &[Expr]) {
        for e in shape {
            if let ExprKind::Var(v) = e.kind {
                if self.f.is_param(v) && e.ty == Scalar::I64 {
                    self.extent_ints.insert(v);
                }
            }
        }
    }

    /// An extent as a number of elements: clamped at 0 unless provably non-negative (a
    /// slice's extent can be negative, meaning empty: `x[1:-1]` of one element).
    pub fn length(&self, e: &Expr) -> Expr {
        let e = crate::sym::canon(e);
        if self.provably_le(&Expr::int(0), &e) || crate::sym::unclamp(&e) != &e {
            e
        } else {
            crate::sym::clamp0(e)
        }
    }

    /// Makes sure `a <= b` holds wherever the statement being built runs: proved, else
    /// checked on entry when the least value of `b - a` over the enclosing loops only
    /// depends on parameters; `false` when neither.
    pub fn require_le(&mut self, a: &Expr, b: &Expr, span: Span, what: String) -> bool {
        if self.provably_le(a, b) {
            return true;
        }
        let d = crate::sym::canon(&b.clone().sub(a.clone()));
        let Some(least) = self.shapes.extreme(&d, &self.loops, false) else { return false };
        let least = least.to_expr();
        if !self.is_param_expr(&least) {
            return false;
        }
        // Only when the enclosing loops run at all (a statement in a loop over
        // `range(1, N - 1)` makes no demand when N < 2); loops with bounds that are not
        // parameters alone are left out of the guard, which only makes the check stricter.
        let mut guard: Option<Expr> = None;
        for r in &self.loops {
            let (lo, hi) = (self.shapes.norm(&r.lo), self.shapes.norm(&r.hi));
            if !self.is_param_expr(&lo) || !self.is_param_expr(&hi) || self.provably_le(&lo, &hi) {
                continue;
            }
            let runs = Expr::binary(BinOp::Le, lo, hi);
            guard = Some(match guard {
                None => runs,
                Some(g) => Expr::binary(BinOp::And, g, runs),
            });
        }
        let l = crate::sym::Lin::from_expr(&least);
        let (p, q) = if l.has_opaque() { (least, Expr::int(0)) } else { split_sides(&l) };
        self.assume_le(q, p, guard, span, what)
    }

    /// The entry check `a <= b`, or `guard implies a <= b`.
    fn assume_le(&mut self, a: Expr, b: Expr, guard: Option<Expr>, span: Span, what: String) -> bool {
        // Constants: true, or false whenever the statement runs (an error at the slice).
        if let (Some(x), Some(y)) = (a.as_int(), b.as_int()) {
            return x <= y;
        }
        self.f.assumptions.push(Assumption { lhs: a, rel: Relation::Le, rhs: b, guard, each: None, span, what });
        true
    }

    /// `a @ b`. With `batched` (`@`, `np.matmul`), operands of rank above 2 are stacks of
    /// matrices whose leading axes broadcast; `np.dot` of such arrays (a different
    /// contraction) is not supported.
    pub fn matmul(&mut self, a: Val, b: Val, ea: &Ex, eb: &Ex, e: &Ex, batched: bool) -> R<Val> {
        let (a, b) = self.arrays_for_product(a, b, ea, eb)?;
        if !batched && (a.rank() > 2 || b.rank() > 2) {
            return Err(self.err_help(
                e.span,
                "`np.dot` of arrays with more than 2 dimensions is not supported",
                "use `@` (np.matmul) for stacks of matrices",
            ));
        }
        let (ra, rb) = (a.rank(), b.rank());
        let ka = a.shape[ra - 1].clone();
        let kb = if rb >= 2 { b.shape[rb - 2].clone() } else { b.shape[0].clone() };
        let what = format!("inner extents of `{}`", e.text);
        if !self.require_equal(&ka, &kb, e.span, what) {
            return Err(self.err_help(
                e.span,
                format!(
                    "shape mismatch in `{}`: `{}` has extent {}, `{}` has extent {}",
                    e.text,
                    ea.text,
                    self.ext_str(&ka),
                    eb.text,
                    self.ext_str(&kb)
                ),
                "the last axis of the left operand must match the first axis of the right operand",
            ));
        }
        // Broadcast the stack axes (all but the last two) of both operands.
        let sa = ra.saturating_sub(2);
        let sb = rb.saturating_sub(2);
        let nb = sa.max(sb);
        let mut shape = Vec::new();
        let mut bounds = Vec::new();
        for d in 0..nb {
            let pick = |x: &Arr, s: usize| {
                if d + s >= nb {
                    Some((x.shape[d + s - nb].clone(), x.bounds[d + s - nb].clone()))
                } else {
                    None
                }
            };
            let (ext, bound) = match (pick(&a, sa), pick(&b, sb)) {
                (Some((xa, ba)), Some((xb, bb))) => {
                    let f = &self.f;
                    let r = match self.shapes.broadcast(&xa, &xb, &|v| f.is_param(v)) {
                        Some(r) => r,
                        None if self.require_equal(&xa, &xb, e.span, format!("stack extents of `{}`", e.text)) => {
                            xa.clone()
                        }
                        None => return Err(self.mismatch(&ea.text, &xa, &eb.text, &xb, e.span, Some(d), nb + 2)),
                    };
                    let bound = if self.shapes.is_one(&xa) { bb } else { ba };
                    (r, bound)
                }
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) => (Expr::int(1), Expr::int(1)),
            };
            shape.push(ext);
            bounds.push(bound);
        }
        if ra >= 2 {
            shape.push(a.shape[ra - 2].clone());
            bounds.push(a.bounds[ra - 2].clone());
        }
        if rb >= 2 {
            shape.push(b.shape[rb - 1].clone());
            bounds.push(b.bounds[rb - 1].clone());
        }
        let mut elem = a.elem.max(b.elem);
        if elem == Scalar::Bool {
            elem = Scalar::I64;
        }
        Ok(Val::Deferred(Box::new(Deferred { op: DefOp::MatMul { a, b }, elem, shape, bounds, text: e.text.clone() })))
    }

    pub fn outer(&mut self, a: Val, b: Val, ea: &Ex, eb: &Ex, e: &Ex) -> R<Val> {
        let (a, b) = self.arrays_for_product(a, b, ea, eb)?;
        if a.rank() != 1 || b.rank() != 1 {
            return Err(self.err(e.span, "`np.outer` of arrays that are not 1-dimensional is not supported"));
        }
        let ta = SVal::strong(a.tmpl.clone());
        let tb = SVal::strong(subst_ph(&b.tmpl, &|_| ph_expr(1)));
        let r = ops::arith(BinOpAst::Mul, ta, tb).map_err(|m| self.err(e.span, m))?;
        let elementwise = Arr {
            elem: r.ty(),
            shape: vec![a.shape[0].clone(), b.shape[0].clone()],
            bounds: vec![a.bounds[0].clone(), b.bounds[0].clone()],
            tmpl: r.e,
            view: false,
            text: e.text.clone(),
        };
        let (elem, shape, bounds) = (elementwise.elem, elementwise.shape.clone(), elementwise.bounds.clone());
        let op = DefOp::Outer { a, b, elementwise };
        Ok(Val::Deferred(Box::new(Deferred { op, elem, shape, bounds, text: e.text.clone() })))
    }

    fn temp_base(&self, d: &Deferred) -> String {
        match &d.op {
            DefOp::Reduce { op, arg, .. } => op_name(op.name(), &arg.text),
            DefOp::MatMul { a, b } => match (ident_of(&a.text), ident_of(&b.text)) {
                (Some(x), Some(y)) => format!("{x}{y}"),
                _ => op_name("dot", &format!("{}, {}", a.text, b.text)),
            },
            DefOp::Outer { .. } => "outer".to_string(),
            DefOp::Fresh { .. } => "tmp".to_string(),
            DefOp::Join { .. } => "joined".to_string(),
            DefOp::Linalg { cholesky: true, .. } => "chol".to_string(),
            DefOp::Linalg { cholesky: false, .. } => "solved".to_string(),
            DefOp::Scan { prod, arg, .. } => {
                let op = if *prod { "cumprod" } else { "cumsum" };
                op_name(op, &arg.text)
            }
        }
    }

    /// Computes a deferred value into a temporary and returns it.
    /// An outer product used in an expression stays element-wise (fused into the map that
    /// uses it).
    pub fn force(&mut self, d: Deferred) -> R<Val> {
        if let DefOp::Outer { elementwise, .. } = d.op {
            return Ok(Val::Array(elementwise));
        }
        let base = self.temp_base(&d);
        if d.shape.is_empty() {
            let name = self.fresh_temp(&base);
            let span = self.span;
            let v = self.f.add_var(name, Type::Scalar(d.elem), VarRole::Temp, span);
            self.want_name(v, &base, true);
            self.compute_into_scalar(v, &d)?;
            return Ok(Val::Scalar(SVal::strong(Expr::var(v, d.elem))));
        }
        let dest = self.new_array(&base, d.elem, &d.shape, &d.bounds, VarRole::Temp)?;
        self.compute_into_view(&dest, &d)?;
        Ok(Val::Array(Arr { text: d.text.clone(), ..dest }))
    }

    /// A full reduction or a vector dot product into the scalar local `target`.
    pub fn compute_into_scalar(&mut self, target: VarId, d: &Deferred) -> R<()> {
        let span = self.span;
        let elem = self.ty_of(target);
        let place = Place::scalar(target);
        match &d.op {
            DefOp::Reduce { op, arg, .. } => {
                let (init, acc) = red_init(*op, elem);
                self.emit_kind(StmtKind::Assign { target: place.clone(), value: init });
                let rank = arg.rank();
                let (dims, idx) = self.map_dims(arg);
                let value = ops::cast(SVal::strong(arg.at(&idx)), elem).e;
                self.pop_names(rank);
                let body =
                    vec![Stmt::new(StmtKind::Accumulate { target: place.clone(), op: acc, value, shared: true }, span)];
                self.emit_kind(StmtKind::Map(Map { id: MapId::NEW, dims, body }));
                if *op == RedOp::Mean {
                    let count = arg.shape.iter().fold(Expr::int(1), |acc, x| acc.mul(self.length(x)));
                    let value = Expr::var(target, elem).div(count.cast(elem));
                    self.emit_kind(StmtKind::Assign { target: place, value });
                }
                Ok(())
            }
            DefOp::MatMul { a, b } => {
                if self.matmul_call(a, b, None, Some(target))? {
                    return Ok(());
                }
                self.emit_kind(StmtKind::Assign { target: place.clone(), value: zero(elem) });
                let k = self.index_name();
                let kv = self.add_index(k);
                let ke = Expr::var(kv, Scalar::I64);
                let value = product(a.at(std::slice::from_ref(&ke)), b.at(&[ke]), elem);
                self.pop_names(1);
                let body =
                    vec![Stmt::new(StmtKind::Accumulate { target: place, op: AccOp::Add, value, shared: false }, span)];
                let stop = crate::sym::canon(crate::sym::unclamp(&a.shape[0]));
                self.emit_kind(StmtKind::Loop(Loop {
                    id: LoopId::NEW,
                    var: kv,
                    start: Expr::int(0),
                    stop,
                    step: Expr::int(1),
                    body,
                }));
                Ok(())
            }
            DefOp::Fresh { .. }
            | DefOp::Outer { .. }
            | DefOp::Join { .. }
            | DefOp::Scan { .. }
            | DefOp::Linalg { .. } => Err(self.err(span, "internal: an array value has no scalar value")),
        }
    }

    /// Computes a deferred array value into the view `dest` (same shape).
    pub fn compute_into_view(&mut self, dest: &Arr, d: &Deferred) -> R<()> {
        let span = self.span;
        let elem = dest.elem;
        match &d.op {
            DefOp::Fresh { init: None } => Ok(()),
            DefOp::Outer { a, b, elementwise } => {
                if self.outer_call(a, b, dest)? {
                    return Ok(());
                }
                let v = ops::cast(SVal::strong(elementwise.tmpl.clone()), elem).e;
                self.emit_store_map(dest, v, false)
            }
            DefOp::Fresh { init: Some(v) } => {
                let v = ops::cast(SVal::strong(v.clone()), elem).e;
                self.emit_store_map(dest, v, false)
            }
            DefOp::Join { parts, axis } => self.join_into(dest, parts, *axis),
            DefOp::Scan { prod, arg, axis } => self.scan_into(dest, *prod, arg, *axis),
            DefOp::Linalg { cholesky, args } => self.linalg_into(dest, *cholesky, args),
            DefOp::Reduce { op, arg, axes, keepdims } => {
                let rank = dest.rank();
                let (dims, didx) = self.map_dims(dest);
                let place = match self.place_of(dest, &didx) {
                    Ok(p) => p,
                    Err(e) => {
                        self.pop_names(rank);
                        return Err(e);
                    }
                };
                let (init, acc) = red_init(*op, elem);
                // Sequential loops over the reduced axes.
                let mut loops = Vec::new();
                let mut arg_idx = Vec::new();
                let mut kept = 0usize;
                for a in 0..arg.rank() {
                    if axes.contains(&a) {
                        let name = self.index_name();
                        let v = self.add_index(name);
                        let ve = Expr::var(v, Scalar::I64);
                        let ext = crate::sym::canon(crate::sym::unclamp(&arg.shape[a]));
                        match arg.unit_offset(a) {
                            Some(r) if r.as_int() != Some(0) => {
                                let stop = crate::sym::canon(&r.clone().add(ext));
                                arg_idx.push(crate::sym::canon(&ve.sub(r.clone())));
                                loops.push((v, r, stop));
                            }
                            _ => {
                                arg_idx.push(ve);
                                loops.push((v, Expr::int(0), ext));
                            }
                        }
                        if *keepdims {
                            kept += 1;
                        }
                    } else {
                        arg_idx.push(didx.get(kept).cloned().unwrap_or_else(|| Expr::int(0)));
                        kept += 1;
                    }
                }
                let value = ops::cast(SVal::strong(arg.at(&arg_idx)), elem).e;
                self.pop_names(rank + loops.len());
                let mut inner = vec![Stmt::new(
                    StmtKind::Accumulate { target: place.clone(), op: acc, value, shared: false },
                    span,
                )];
                for (v, start, stop) in loops.into_iter().rev() {
                    inner = vec![Stmt::new(
                        StmtKind::Loop(Loop { id: LoopId::NEW, var: v, start, stop, step: Expr::int(1), body: inner }),
                        span,
                    )];
                }
                let mut body = vec![Stmt::new(StmtKind::Assign { target: place.clone(), value: init }, span)];
                body.extend(inner);
                if *op == RedOp::Mean {
                    let count = axes.iter().fold(Expr::int(1), |acc, a| acc.mul(self.length(&arg.shape[*a])));
                    let value = place.to_expr(elem).div(crate::sym::canon(&count).cast(elem));
                    body.push(Stmt::new(StmtKind::Assign { target: place, value }, span));
                }
                self.emit_kind(StmtKind::Map(Map { id: MapId::NEW, dims, body }));
                Ok(())
            }
            DefOp::MatMul { a, b } => {
                if self.matmul_call(a, b, Some(dest), None)? {
                    return Ok(());
                }
                let rank = dest.rank();
                let (dims, didx) = self.map_dims(dest);
                let place = match self.place_of(dest, &didx) {
                    Ok(p) => p,
                    Err(e) => {
                        self.pop_names(rank);
                        return Err(e);
                    }
                };
                let k = self.index_name();
                let kv = self.add_index(k);
                let ke = Expr::var(kv, Scalar::I64);
                let (ai, bi) = self.matmul_indices(a, b, dest, &didx, &ke);
                let value = product(a.at(&ai), b.at(&bi), elem);
                self.pop_names(rank + 1);
                let stop = crate::sym::canon(crate::sym::unclamp(&a.shape[a.rank() - 1]));
                let acc = Stmt::new(
                    StmtKind::Accumulate { target: place.clone(), op: AccOp::Add, value, shared: false },
                    span,
                );
                let body = vec![
                    Stmt::new(StmtKind::Assign { target: place, value: zero(elem) }, span),
                    Stmt::new(
                        StmtKind::Loop(Loop {
                            id: LoopId::NEW,
                            var: kv,
                            start: Expr::int(0),
                            stop,
                            step: Expr::int(1),
                            body: vec![acc],
                        }),
                        span,
                    ),
                ];
                self.emit_kind(StmtKind::Map(Map { id: MapId::NEW, dims, body }));
                Ok(())
            }
        }
    }
}

impl Lowerer<'_> {
    /// The indices of `a` and `b` read for element `didx` of `a @ b` (stored in `dest`)
    /// at contraction index `k`: stack axes align from the right, extent-1 axes
    /// broadcast.
    fn matmul_indices(&self, a: &Arr, b: &Arr, dest: &Arr, didx: &[Expr], k: &Expr) -> (Vec<Expr>, Vec<Expr>) {
        let (ra, rb) = (a.rank(), b.rank());
        let nb = didx.len() - usize::from(ra >= 2) - usize::from(rb >= 2);
        let stack = |x: &Arr, s: usize| -> Vec<Expr> {
            (0..s)
                .map(|d| {
                    let r = d + nb - s;
                    if self.shapes.is_one(&x.shape[d]) && !self.shapes.is_one(&dest.shape[r]) {
                        Expr::int(0)
                    } else {
                        didx[r].clone()
                    }
                })
                .collect()
        };
        let mut ai = stack(a, ra.saturating_sub(2));
        if ra >= 2 {
            ai.push(didx[nb].clone());
        }
        ai.push(k.clone());
        let mut bi = stack(b, rb.saturating_sub(2));
        bi.push(k.clone());
        if rb >= 2 {
            bi.push(didx[didx.len() - 1].clone());
        }
        (ai, bi)
    }
}

/// Slice bounds inside their axes: proved from the loop ranges, else checked on entry.
impl Fit for Lowerer<'_> {
    fn le(&self, a: &Expr, b: &Expr) -> bool {
        self.provably_le(a, b)
    }

    fn need(&mut self, a: &Expr, b: &Expr, role: &str, why: &str) -> Result<(), String> {
        let (x, y) = (self.ext_str(a), self.ext_str(b));
        let span = self.span;
        if self.require_le(a, b, span, format!("slice {role} inside the axis: {x} <= {y}")) {
            return Ok(());
        }
        Err(format!(
            "the slice {role} may fall outside the axis ({x} <= {y} does not always hold) and adjc cannot check it \
             before the call, as it depends on loop variables or local values; {why}, which adjc does not do: keep \
             slice bounds inside the axis (narrow the loop range)"
        ))
    }
}

/// Drops the entry checks `q <= p` (in their equality form `min(q, p) == q`) that another
/// one implies: `N - 1 <= M` when `N <= M` is checked, `0 <= N` when `2 <= N` is.
pub fn prune_implied(assumptions: &mut Vec<Assumption>, shapes: &super::shapes::Shapes) {
    // `q <= p`, possibly guarded: the guard's key and p - q.
    let slack = |a: &Assumption| -> Option<(String, crate::sym::Lin)> {
        if a.rel != Relation::Le || a.each.is_some() {
            return None;
        }
        let g = a.guard.as_ref().map(crate::sym::key).unwrap_or_default();
        Some((g, shapes.lin(&a.rhs).sub(&shapes.lin(&a.lhs))?))
    };
    let slacks: Vec<Option<(String, crate::sym::Lin)>> = assumptions.iter().map(slack).collect();
    let mut keep = vec![true; assumptions.len()];
    for i in 0..assumptions.len() {
        for j in 0..assumptions.len() {
            if i == j || !keep[j] {
                continue;
            }
            if let (Some((gi, di)), Some((gj, dj))) = (&slacks[i], &slacks[j]) {
                // A check without a guard also implies the guarded ones.
                if !gj.is_empty() && gi != gj {
                    continue;
                }
                // d_i = d_j + c with c >= 0 (and i after j when c == 0): d_j >= 0 implies d_i >= 0.
                let c = di.sub(dj).and_then(|d| d.as_const());
                if c.is_some_and(|c| c > 0 || (c == 0 && i > j)) {
                    keep[i] = false;
                    break;
                }
            }
        }
    }
    let mut k = 0;
    assumptions.retain(|_| {
        k += 1;
        keep[k - 1]
    });
}

/// A linear form `p - q` as the two sides `(p, q)`, each with positive coefficients, so
/// that `p == q` (or `q <= p`) reads like the source: `N - M - 1` gives `(N, M + 1)`.
fn split_sides(l: &crate::sym::Lin) -> (Expr, Expr) {
    let (mut p, mut q) = (crate::sym::Lin::constant(0), crate::sym::Lin::constant(0));
    for (atom, k) in l.terms.iter() {
        if let crate::sym::Atom::Var(v) = atom {
            let x = crate::sym::Lin::var(*v);
            let (side, k) = if *k > 0 { (&mut p, *k) } else { (&mut q, -*k) };
            *side = side.add(&x.scale(k).unwrap_or_default()).unwrap_or_default();
        }
    }
    if l.c > 0 {
        p.c = l.c;
    } else {
        q.c = -l.c;
    }
    (p.to_expr(), q.to_expr())
}

fn zero(t: Scalar) -> Expr {
    if t.is_float() {
        Expr::float(0.0, t)
    } else {
        Expr::int(0).cast(t)
    }
}

fn product(a: Expr, b: Expr, elem: Scalar) -> Expr {
    ops::cast(SVal::strong(a), elem).e.mul(ops::cast(SVal::strong(b), elem).e)
}

fn red_init(op: RedOp, t: Scalar) -> (Expr, AccOp) {
    let f = |v: f64| if t.is_float() { Expr::float(v, t) } else { Expr::int(v as i64) };
    match op {
        RedOp::Sum | RedOp::Mean => (f(0.0), AccOp::Add),
        RedOp::Prod => (f(1.0), AccOp::Mul),
        RedOp::Max => (if t.is_float() { Expr::float(f64::NEG_INFINITY, t) } else { Expr::int(i64::MIN) }, AccOp::Max),
        RedOp::Min => (if t.is_float() { Expr::float(f64::INFINITY, t) } else { Expr::int(i64::MAX) }, AccOp::Min),
    }
}
