//! Expression evaluation: names, literals, operators with broadcasting, subscripts and
//! attributes. Array results stay lazy (see [`value`](super::value)).

use super::ast::*;
use super::lower::{same_binding, Binding, Lowerer, R};
use super::names::{self, NpName};
use super::ops::{self, SVal};
use super::value::*;
use adjc_ir::*;

/// An operand of an element-wise operation.
pub(super) enum Operand {
    S(SVal),
    A(Arr),
}

impl Lowerer<'_> {
    pub fn eval(&mut self, e: &Ex) -> R<Val> {
        let v = self.eval_inner(e)?;
        Ok(match v {
            Val::Scalar(sv) if sv.e.span.is_none() => Val::Scalar(SVal { e: sv.e.with_span(e.span), weak: sv.weak }),
            other => other,
        })
    }

    fn eval_inner(&mut self, e: &Ex) -> R<Val> {
        match &e.kind {
            ExKind::Int(v) => Ok(Val::Scalar(SVal::weak(Expr::int(*v)))),
            ExKind::Float(v) => Ok(Val::Scalar(SVal::weak(Expr::float(*v, Scalar::F64)))),
            ExKind::Bool(b) => Ok(Val::Scalar(SVal::weak(Expr::boolean(*b)))),
            ExKind::NoneLit => Ok(Val::None),
            ExKind::Str(_) => Err(self.err(e.span, "strings are not supported in expressions")),
            ExKind::Ellipsis => Err(self.err(e.span, "`...` is only supported inside subscripts")),
            ExKind::Slice(..) => Err(self.err(e.span, "a slice is only valid inside a subscript")),
            ExKind::Name(n) => self.lookup(n, e),
            ExKind::Attr(obj, a) => self.attr(e, obj, a),
            ExKind::Call { func, args, kwargs } => self.call(e, func, args, kwargs),
            ExKind::Subscript(base, items) => self.subscript(e, base, items),
            ExKind::Bin(op, l, r) => {
                let a = self.eval(l)?;
                let b = self.eval(r)?;
                if *op == BinOpAst::MatMul {
                    return self.matmul(a, b, l, r, e, true);
                }
                let op = *op;
                self.lift(vec![a, b], &[l, r], e, &|v| ops::arith(op, v[0].clone(), v[1].clone()))
            }
            ExKind::Unary(op, a) => {
                let v = self.eval(a)?;
                match op {
                    UnOpAst::Neg => self.lift(vec![v], &[a], e, &|v| Ok(ops::neg(v[0].clone()))),
                    UnOpAst::Pos => Ok(v),
                    UnOpAst::Not => match v {
                        Val::Scalar(sv) => Ok(Val::Scalar(ops::not(sv))),
                        _ => Err(self.err_help(
                            e.span,
                            "`not` needs a scalar",
                            "use `~` (or `np.logical_not`) on boolean arrays",
                        )),
                    },
                    UnOpAst::Invert => self.lift(vec![v], &[a], e, &|v| {
                        if v[0].ty() == Scalar::Bool {
                            Ok(ops::not(v[0].clone()))
                        } else {
                            Err("`~` is only supported on booleans".into())
                        }
                    }),
                }
            }
            ExKind::Compare(first, rest) => {
                let mut prev = self.eval(first)?;
                let mut prev_ex: &Ex = first;
                let mut acc: Option<Val> = None;
                for (op, x) in rest {
                    let cur = self.eval(x)?;
                    let op = *op;
                    let c = self.lift(vec![prev.clone(), cur.clone()], &[prev_ex, x], e, &|v| {
                        Ok(ops::compare(op, v[0].clone(), v[1].clone()))
                    })?;
                    acc = Some(match acc {
                        None => c,
                        Some(a) => self.lift(vec![a, c], &[e, e], e, &|v| {
                            ops::arith(BinOpAst::BitAnd, v[0].clone(), v[1].clone())
                        })?,
                    });
                    prev = cur;
                    prev_ex = x;
                }
                acc.ok_or_else(|| self.err(e.span, "empty comparison"))
            }
            ExKind::BoolOp(and, a, b) => {
                let va = self.eval(a)?;
                let vb = self.eval(b)?;
                match (va, vb) {
                    (Val::Scalar(x), Val::Scalar(y)) => Ok(Val::Scalar(ops::logical(*and, x, y))),
                    _ => Err(self.err_help(
                        e.span,
                        format!("`{}` needs scalars", if *and { "and" } else { "or" }),
                        "use `&` / `|` on boolean arrays",
                    )),
                }
            }
            ExKind::IfExp(c, a, b) => {
                let vc = self.eval(c)?;
                if !matches!(vc, Val::Scalar(_)) {
                    return Err(self.err_help(
                        c.span,
                        "the condition of `a if c else b` must be a scalar",
                        "use `np.where(c, a, b)` for element-wise choices",
                    ));
                }
                let va = self.eval(a)?;
                let vb = self.eval(b)?;
                self.lift(vec![vc, va, vb], &[c, a, b], e, &|v| {
                    Ok(ops::select(v[0].clone(), v[1].clone(), v[2].clone()))
                })
            }
            ExKind::Tuple(items) | ExKind::List(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.eval(i)?);
                }
                Ok(Val::Tuple(out))
            }
        }
    }

    pub fn is_bound(&self, name: &str) -> bool {
        self.scope().env.contains_key(name) || self.scope().locals.contains_key(name)
    }

    /// The qualified NumPy/math name of a dotted expression whose root is not shadowed.
    pub fn resolve_name(&self, e: &Ex) -> Option<String> {
        let parts = e.dotted()?;
        if self.is_bound(&parts[0]) {
            return None;
        }
        names::resolve(self.m, e)
    }

    pub fn lookup(&mut self, name: &str, e: &Ex) -> R<Val> {
        if let Some(b) = self.scope().env.get(name).cloned() {
            let sc = self.scope_mut();
            for w in sc.watches.iter_mut() {
                if same_binding(w.before_of(name), Some(&b)) {
                    w.mark_read(name);
                }
            }
            return Ok(match b {
                Binding::Scalar { var, weak } => {
                    let ty = self.ty_of(var);
                    Val::Scalar(SVal { e: Expr::var(var, ty).with_span(e.span), weak })
                }
                Binding::Value(v) => v,
            });
        }
        if let Some(msg) = self.scope().poisoned.get(name) {
            return Err(self.err(e.span, msg.clone()));
        }
        if let Some(q) = self.resolve_name(e) {
            return self.np_const(&q, e);
        }
        if let Some(c) = self.m.constant(name) {
            if self.const_depth > 16 {
                return Err(self.err(e.span, format!("the module-level constant `{name}` refers to itself")));
            }
            let c = c.clone();
            self.const_depth += 1;
            let saved = std::mem::take(&mut self.scope_mut().env);
            let v = self.eval(&c);
            self.scope_mut().env = saved;
            self.const_depth -= 1;
            return match v? {
                Val::Scalar(sv) if sv.e.is_const() => Ok(Val::Scalar(SVal::weak(sv.e.with_span(e.span)))),
                Val::Scalar(sv) if matches!(sv.e.kind, ExprKind::Unary(UnOp::Neg, ref x) if x.is_const()) => {
                    Ok(Val::Scalar(SVal::weak(sv.e)))
                }
                _ => Err(self.err_help(
                    e.span,
                    format!("the module-level name `{name}` is not a numeric constant"),
                    "only module-level numbers (`N = 100`, `ALPHA = 0.5`) can be used in kernels",
                )),
            };
        }
        if self.m.func(name).is_some() {
            return Err(self.err(e.span, format!("the function `{name}` can only be called")));
        }
        if name == "np" || name == "numpy" || name == "math" {
            return Err(self.err(e.span, format!("`{name}` is a module, not a value")));
        }
        Err(self.err(e.span, format!("undefined name `{name}`")))
    }

    pub fn np_const(&mut self, q: &str, e: &Ex) -> R<Val> {
        let f = |v: f64| Ok(Val::Scalar(SVal::weak(Expr::float(v, Scalar::F64))));
        match names::classify(q) {
            NpName::Const("pi") => f(std::f64::consts::PI),
            NpName::Const("e") => f(std::f64::consts::E),
            NpName::Const("inf") | NpName::Const("Inf") | NpName::Const("PINF") => f(f64::INFINITY),
            NpName::Const("NINF") => f(f64::NEG_INFINITY),
            NpName::Const("nan") | NpName::Const("NaN") => f(f64::NAN),
            NpName::Const("newaxis") => Ok(Val::None),
            NpName::Unknown if q == "numpy" || q == "math" => {
                Err(self.err(e.span, format!("`{}` is a module, not a value", e.text)))
            }
            NpName::Unknown => Err(self.err_help(
                e.span,
                format!("`{}` is not supported", e.text),
                format!("supported: {}", names::supported_list()),
            )),
            NpName::Cast(_) => Err(self.err(e.span, format!("`{}` can only be used as a dtype or called", e.text))),
            _ => Err(self.err(e.span, format!("`{}` is a function and must be called", e.text))),
        }
    }

    fn attr(&mut self, e: &Ex, obj: &Ex, a: &str) -> R<Val> {
        if let Some(q) = self.resolve_name(e) {
            return self.np_const(&q, e);
        }
        let v = self.eval(obj)?;
        match (a, v) {
            ("shape", Val::Array(arr)) => {
                Ok(Val::Tuple(arr.shape.iter().map(|x| Val::Scalar(SVal::weak(x.clone()))).collect()))
            }
            ("shape", Val::Deferred(d)) => {
                Ok(Val::Tuple(d.shape.iter().map(|x| Val::Scalar(SVal::weak(x.clone()))).collect()))
            }
            ("ndim", Val::Array(arr)) => Ok(Val::Scalar(SVal::weak(Expr::int(arr.rank() as i64)))),
            ("ndim", Val::Deferred(d)) => Ok(Val::Scalar(SVal::weak(Expr::int(d.shape.len() as i64)))),
            ("size", Val::Array(arr)) => {
                let n = arr.shape.iter().fold(Expr::int(1), |acc, x| acc.mul(x.clone()));
                Ok(Val::Scalar(SVal::weak(n)))
            }
            ("T", Val::Array(arr)) => Ok(Val::Array(arr.transpose())),
            ("T", Val::Deferred(d)) => match self.force(*d)? {
                Val::Array(arr) => Ok(Val::Array(arr.transpose())),
                other => Ok(other),
            },
            (_, Val::Scalar(_)) if a == "shape" || a == "T" => {
                Err(self.err(e.span, format!("`{}` is a scalar and has no `.{a}`", obj.text)))
            }
            (_, _) => Err(self.err_help(
                e.span,
                format!("the attribute `.{a}` is not supported"),
                "supported: `.shape`, `.T`, `.ndim`, `.size` and the methods `.copy()`, `.sum()`, `.mean()`, `.max()`, `.min()`, `.astype()`",
            )),
        }
    }

    fn subscript(&mut self, e: &Ex, base: &Ex, items: &[Ex]) -> R<Val> {
        let b = self.eval(base)?;
        let arr = match b {
            Val::Tuple(vals) => {
                if items.len() != 1 {
                    return Err(self.err(e.span, format!("`{}` is a tuple and takes one index", base.text)));
                }
                let k = match self.eval(&items[0])? {
                    Val::Scalar(sv) => sv.e.as_int(),
                    _ => None,
                };
                let Some(k) = k else {
                    return Err(self.err(items[0].span, "tuple indices must be integer constants"));
                };
                let n = vals.len() as i64;
                let idx = if k < 0 { n + k } else { k };
                return match vals.get(idx.max(0) as usize) {
                    Some(v) if idx >= 0 => Ok(v.clone()),
                    _ => Err(self.err(items[0].span, format!("index {k} is out of range for `{}`", base.text))),
                };
            }
            Val::Array(a) => a,
            Val::Deferred(d) => match self.force(*d)? {
                Val::Array(a) => a,
                _ => return Err(self.err(base.span, format!("`{}` is a scalar and cannot be subscripted", base.text))),
            },
            Val::Scalar(_) => {
                return Err(self.err(base.span, format!("`{}` is a scalar and cannot be subscripted", base.text)))
            }
            Val::None => return Err(self.err(base.span, "`None` cannot be subscripted")),
        };
        let its = self.eval_items(items, false)?;
        let r = index(&arr, &its, self).map_err(|m| self.err(e.span, m))?;
        if r.shape.is_empty() {
            Ok(Val::Scalar(SVal::strong(r.tmpl)))
        } else {
            Ok(Val::Array(Arr { text: e.text.clone(), ..r }))
        }
    }

    /// Evaluates subscript items. With `allow_mask`, a single boolean array is returned
    /// as the mask (caller handles it) instead of an error.
    pub fn eval_items(&mut self, items: &[Ex], allow_mask: bool) -> R<Vec<Item>> {
        let mut out = Vec::new();
        for it in items {
            match &it.kind {
                ExKind::Slice(a, b, c) => {
                    let bound = |x: &Option<Box<Ex>>, lw: &mut Self| -> R<Option<Expr>> {
                        match x {
                            None => Ok(None),
                            Some(x) => {
                                let v = lw.eval(x)?;
                                if let Val::None = v {
                                    return Ok(None);
                                }
                                Ok(Some(lw.int_value(v, x, "a slice bound")?))
                            }
                        }
                    };
                    let start = bound(a, self)?;
                    let stop = bound(b, self)?;
                    let step = match bound(c, self)? {
                        None => 1,
                        Some(s) => match s.as_int() {
                            Some(0) => return Err(self.err(it.span, "slice step cannot be zero")),
                            Some(k) => k,
                            None => {
                                return Err(self.err(it.span, "slice steps must be integer constants"));
                            }
                        },
                    };
                    out.push(Item::Slice { start, stop, step });
                }
                ExKind::Ellipsis => out.push(Item::Ellipsis),
                ExKind::NoneLit => out.push(Item::NewAxis),
                _ => {
                    let v = self.eval(it)?;
                    match v {
                        Val::None => out.push(Item::NewAxis),
                        Val::Scalar(_) => {
                            let e = self.int_value(v, it, "an array index")?;
                            if e.as_int().is_some() || self.never_negative(&e) {
                                out.push(Item::Index(e));
                            } else {
                                out.push(Item::Computed(e));
                            }
                        }
                        Val::Array(a) if a.elem == Scalar::Bool => {
                            if allow_mask && items.len() == 1 {
                                out.push(Item::Mask(a));
                            } else {
                                return Err(self.err_help(
                                    it.span,
                                    format!(
                                        "boolean mask indexing `[{}]` is only supported as an assignment target \
                                         or in a reduction",
                                        it.text
                                    ),
                                    "write `x[mask] = value`, reduce the selection whole (`np.sum(x[mask])`, \
                                     `x[mask].mean()`, `np.max(x[mask])`), or use `np.where(mask, a, b)`",
                                ));
                            }
                        }
                        Val::Array(a) if a.elem == Scalar::I64 && a.rank() >= 1 => {
                            out.push(Item::Fancy(Arr { text: it.text.clone(), ..a }));
                        }
                        Val::Deferred(d) if d.elem == Scalar::I64 && !d.shape.is_empty() => {
                            let a = self.array_of(Val::Deferred(d), it)?;
                            out.push(Item::Fancy(Arr { text: it.text.clone(), ..a }));
                        }
                        Val::Array(_) | Val::Deferred(_) => {
                            return Err(self.err_help(
                                it.span,
                                format!("indexing with the float array `{}` is not supported", it.text),
                                "index with integers, slices, integer arrays or a boolean mask (as an assignment \
                                 target); an index parameter needs an integer type: `idx: \"int64[K]\"` or \
                                 --arg 'idx: int64[K]'",
                            ))
                        }
                        Val::Tuple(_) => {
                            return Err(self.err(it.span, "a tuple cannot be used as an index here"));
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    pub fn operand(&mut self, v: Val, e: &Ex) -> R<Operand> {
        match v {
            Val::Scalar(sv) => Ok(Operand::S(sv)),
            Val::Array(a) => Ok(Operand::A(a)),
            Val::Deferred(d) => match self.force(*d)? {
                Val::Scalar(sv) => Ok(Operand::S(sv)),
                Val::Array(a) => Ok(Operand::A(a)),
                _ => Err(self.err(e.span, "internal: bad forced value")),
            },
            Val::Tuple(_) => Err(self.err_help(
                e.span,
                format!("`{}` is a tuple here; arithmetic on tuples is not supported", e.text),
                "use `np.array`-free code: index the tuple first",
            )),
            Val::None => Err(self.err(e.span, format!("`{}` is `None` here", e.text))),
        }
    }

    /// The array a value holds (pending values are computed first).
    pub fn array_of(&mut self, v: Val, e: &Ex) -> R<Arr> {
        match self.operand(v, e)? {
            Operand::A(a) => Ok(a),
            Operand::S(_) => Err(self.err(e.span, format!("`{}` is a scalar, not an array", e.text))),
        }
    }

    /// Applies the element-level function `f` to operands with NumPy broadcasting.
    pub fn lift(&mut self, vals: Vec<Val>, exs: &[&Ex], e: &Ex, f: &dyn Fn(&[SVal]) -> Result<SVal, String>) -> R<Val> {
        let mut ops = Vec::new();
        for (k, v) in vals.into_iter().enumerate() {
            let ex = exs.get(k).copied().unwrap_or(e);
            ops.push(self.operand(v, ex)?);
        }
        if ops.iter().all(|o| matches!(o, Operand::S(_))) {
            let svs: Vec<SVal> = ops
                .into_iter()
                .map(|o| match o {
                    Operand::S(s) => s,
                    Operand::A(_) => SVal::weak(Expr::int(0)),
                })
                .collect();
            let r = f(&svs).map_err(|m| self.err(e.span, m))?;
            return Ok(Val::Scalar(SVal { e: r.e.with_span(e.span), weak: r.weak }));
        }
        let texts: Vec<String> =
            (0..ops.len()).map(|k| exs.get(k).map(|x| x.text.clone()).unwrap_or_default()).collect();
        let (shape, bounds, tmpls) = self.broadcast(&ops, &texts, e.span)?;
        let svs: Vec<SVal> = ops
            .into_iter()
            .zip(tmpls)
            .map(|(o, t)| match o {
                Operand::S(s) => s,
                Operand::A(_) => SVal::strong(t),
            })
            .collect();
        let r = f(&svs).map_err(|m| self.err(e.span, m))?;
        Ok(Val::Array(Arr {
            elem: r.ty(),
            shape,
            bounds,
            tmpl: r.e.with_span(e.span),
            view: false,
            text: e.text.clone(),
        }))
    }

    /// The broadcast shape of the operands (with extent bounds) and each operand's
    /// template over it.
    pub fn broadcast(&mut self, ops: &[Operand], texts: &[String], span: Span) -> R<(Vec<Expr>, Vec<Expr>, Vec<Expr>)> {
        let rank = ops
            .iter()
            .map(|o| match o {
                Operand::S(_) => 0,
                Operand::A(a) => a.rank(),
            })
            .max()
            .unwrap_or(0);
        let mut shape: Vec<Expr> = Vec::new();
        let mut bounds: Vec<Expr> = Vec::new();
        for axis in 0..rank {
            let mut cur: Option<(Expr, usize)> = None;
            for (k, o) in ops.iter().enumerate() {
                let Operand::A(a) = o else { continue };
                let off = rank - a.rank();
                if axis < off {
                    continue;
                }
                let ext = a.shape[axis - off].clone();
                cur = match cur {
                    None => Some((ext, k)),
                    Some((c, owner)) => {
                        let f = &self.f;
                        match self.shapes.broadcast(&c, &ext, &|v| f.is_param(v)) {
                            Some(r) => {
                                let owner = if self.shapes.is_one(&c) { k } else { owner };
                                Some((r, owner))
                            }
                            // Extents only the call can compare (`N` and `M`): checked on
                            // entry to be equal (an extent that is 1 only at run time is
                            // not broadcast).
                            None if self.require_equal(
                                &c,
                                &ext,
                                span,
                                format!("equal extents of `{}` and `{}`", texts[owner], texts[k]),
                            ) =>
                            {
                                Some((c, owner))
                            }
                            None => {
                                return Err(self.mismatch(&texts[owner], &c, &texts[k], &ext, span, Some(axis), rank))
                            }
                        }
                    }
                };
            }
            match cur {
                Some((ext, owner)) => {
                    let b = match &ops[owner] {
                        Operand::A(a) => a.bounds.get(axis + a.rank() - rank).cloned().unwrap_or_else(|| ext.clone()),
                        Operand::S(_) => ext.clone(),
                    };
                    shape.push(ext);
                    bounds.push(b);
                }
                None => {
                    shape.push(Expr::int(1));
                    bounds.push(Expr::int(1));
                }
            }
        }
        let mut tmpls = Vec::new();
        for o in ops {
            match o {
                Operand::S(s) => tmpls.push(s.e.clone()),
                Operand::A(a) => {
                    let off = rank - a.rank();
                    let ones: Vec<bool> = (0..a.rank())
                        .map(|d| self.shapes.is_one(&a.shape[d]) && !self.shapes.is_one(&shape[d + off]))
                        .collect();
                    tmpls.push(subst_ph(&a.tmpl, &|d| if ones[d] { Expr::int(0) } else { ph_expr(d + off) }));
                }
            }
        }
        Ok((shape, bounds, tmpls))
    }

    #[allow(clippy::too_many_arguments)]
    pub fn mismatch(
        &self,
        ta: &str,
        ea: &Expr,
        tb: &str,
        eb: &Expr,
        span: Span,
        axis: Option<usize>,
        rank: usize,
    ) -> super::lower::Fail {
        let help = match axis {
            Some(a) if rank > 1 => {
                format!(
                    "NumPy broadcasting needs equal extents or extent 1 (axis {a} of the {rank}-dimensional result)"
                )
            }
            _ => "NumPy broadcasting needs equal extents or extent 1".to_string(),
        };
        self.err_help(
            span,
            format!("shape mismatch: `{ta}` has extent {}, `{tb}` has extent {}", self.ext_str(ea), self.ext_str(eb)),
            help,
        )
    }
}
