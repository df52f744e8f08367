//! Calls: inlined helper functions, Python builtins, NumPy/math functions and array
//! methods.

use super::ast::*;
use super::lower::{Binding, Lowerer, Scope, R};
use super::names::{self, NpName};
use super::ops::{self, SVal};
use super::types::dtype_of;
use super::value::*;
use adjc_ir::*;

/// The element-level function of a ufunc.
type ElemFn = dyn Fn(&[SVal]) -> Result<SVal, String>;

pub(super) fn kwarg<'a>(kwargs: &'a [(String, Ex)], name: &str) -> Option<&'a Ex> {
    kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

impl Lowerer<'_> {
    pub(super) fn check_kwargs(&self, e: &Ex, kwargs: &[(String, Ex)], allowed: &[&str]) -> R<()> {
        for (k, v) in kwargs {
            if !allowed.contains(&k.as_str()) {
                return Err(self.err(v.span, format!("the keyword argument `{k}=` is not supported in `{}`", e.text)));
            }
        }
        Ok(())
    }

    pub(super) fn arity(&self, e: &Ex, args: &[Ex], min: usize, max: usize) -> R<()> {
        if args.len() < min || args.len() > max {
            let want = if min == max { format!("{min}") } else { format!("{min} to {max}") };
            return Err(
                self.err(e.span, format!("`{}` takes {want} positional argument(s), {} given", e.text, args.len()))
            );
        }
        Ok(())
    }

    pub fn call(&mut self, e: &Ex, func: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        if let Some(n) = func.as_name() {
            if !self.is_bound(n) {
                if let Some(fd) = self.m.func(n) {
                    return self.inline(fd, args, kwargs, e);
                }
                if let Some(v) = self.builtin(n, e, args, kwargs)? {
                    return Ok(v);
                }
            }
        }
        if let Some(q) = self.resolve_name(func) {
            if q == "numpy.add.at" {
                return self.add_at(e, args, kwargs);
            }
            return self.np_call(&q, e, func, args, kwargs);
        }
        if let ExKind::Attr(obj, meth) = &func.kind {
            return self.method(e, obj, meth, args, kwargs);
        }
        let helpers: Vec<String> = self.m.funcs.iter().map(|f| format!("`{}`", f.name)).collect();
        Err(self.err_help(
            func.span,
            format!("unknown function `{}`", func.text),
            format!(
                "call NumPy functions as `np.<name>` or helper functions defined in this file ({})",
                if helpers.is_empty() { "none".to_string() } else { helpers.join(", ") }
            ),
        ))
    }

    /// `np.add.at(x, idx, v)`: every term of `v` added into `x[idx]`, repeated indices
    /// included (unlike `x[idx] += v`, which adds once per distinct index).
    fn add_at(&mut self, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        self.arity(e, args, 3, 3)?;
        self.check_kwargs(e, kwargs, &[])?;
        let arr = match self.eval(&args[0])? {
            Val::Array(a) if a.view => a,
            _ => {
                return Err(self.err_help(
                    args[0].span,
                    format!("`np.add.at` updates an array variable in place; `{}` is not one", args[0].text),
                    "pass the array to update as the first argument",
                ))
            }
        };
        let items: Vec<Ex> = match &args[1].kind {
            ExKind::Tuple(items) => items.clone(),
            _ => vec![args[1].clone()],
        };
        let its = self.eval_items(&items, false)?;
        let dest = index(&arr, &its, self).map_err(|m| self.err(args[1].span, m))?;
        let dest = Arr { view: true, text: format!("{}[{}]", args[0].text, args[1].text), ..dest };
        if dest.rank() == 0 {
            return Err(self.err_help(
                args[1].span,
                "`np.add.at` with a single element is not supported",
                "write `x[i] += v`",
            ));
        }
        let v = self.eval(&args[2])?;
        self.store_fancy(&dest, v, Some(BinOpAst::Add), &args[2].text, true)?;
        Ok(Val::None)
    }

    fn builtin(&mut self, n: &str, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Option<Val>> {
        let v = match n {
            "abs" => {
                self.arity(e, args, 1, 1)?;
                self.check_kwargs(e, kwargs, &[])?;
                self.ufunc(&["abs"], e, args)?
            }
            "min" | "max" => {
                self.check_kwargs(e, kwargs, &[])?;
                if args.len() < 2 {
                    return Err(self.err_help(
                        e.span,
                        format!("`{n}` of a single argument is not supported"),
                        format!("use `np.{n}(x)` for arrays or `{n}(a, b)` for two numbers"),
                    ));
                }
                let f = if n == "min" { Intrinsic::Min } else { Intrinsic::Max };
                let mut acc = self.eval(&args[0])?;
                for a in &args[1..] {
                    let b = self.eval(a)?;
                    acc = self.lift(vec![acc, b], &[&args[0], a], e, &|v| Ok(ops::intrinsic(f, v.to_vec())))?;
                    if !matches!(acc, Val::Scalar(_)) {
                        return Err(self.err_help(
                            e.span,
                            format!("the builtin `{n}` of arrays is not supported"),
                            format!("use `np.{}imum(a, b)`", if n == "min" { "min" } else { "max" }),
                        ));
                    }
                }
                acc
            }
            "float" | "int" | "bool" => {
                self.arity(e, args, 1, 1)?;
                let v = self.eval(&args[0])?;
                let sv = match v {
                    Val::Scalar(sv) => sv,
                    other => {
                        return Err(self.err(e.span, format!("`{n}(...)` needs a scalar, not {}", other.kind_name())))
                    }
                };
                let r = match n {
                    "float" => ops::cast(sv, Scalar::F64),
                    "int" => ops::cast(sv, Scalar::I64),
                    _ => ops::truth(sv),
                };
                Val::Scalar(SVal::weak(r.e))
            }
            "len" => {
                self.arity(e, args, 1, 1)?;
                match self.eval(&args[0])? {
                    Val::Array(a) => Val::Scalar(SVal::weak(a.shape[0].clone())),
                    Val::Deferred(d) if !d.shape.is_empty() => Val::Scalar(SVal::weak(d.shape[0].clone())),
                    Val::Tuple(t) => Val::Scalar(SVal::weak(Expr::int(t.len() as i64))),
                    _ => return Err(self.err(e.span, format!("`len` of the scalar `{}`", args[0].text))),
                }
            }
            "pow" => {
                self.arity(e, args, 2, 2)?;
                let a = self.eval(&args[0])?;
                let b = self.eval(&args[1])?;
                self.lift(vec![a, b], &[&args[0], &args[1]], e, &|v| {
                    ops::arith(BinOpAst::Pow, v[0].clone(), v[1].clone())
                })?
            }
            "range" => {
                return Err(self.err_help(
                    e.span,
                    "`range` can only be used in `for` loops",
                    "write `for i in range(...)`",
                ))
            }
            "sum" => {
                return Err(self.err_help(e.span, "the builtin `sum` is not supported", "use `np.sum(x)`"));
            }
            _ => return Ok(None),
        };
        Ok(Some(v))
    }

    fn ufunc(&mut self, names: &[&str], e: &Ex, args: &[Ex]) -> R<Val> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.eval(a)?);
        }
        let exs: Vec<&Ex> = args.iter().collect();
        let name = names[0];
        let f: Box<ElemFn> = match name {
            "square" => Box::new(|v: &[SVal]| ops::arith(BinOpAst::Mul, v[0].clone(), v[0].clone())),
            "negative" => Box::new(|v: &[SVal]| Ok(ops::neg(v[0].clone()))),
            "positive" => Box::new(|v: &[SVal]| Ok(v[0].clone())),
            // NumPy's sign is 0 at 0 (Fortran's `sign` intrinsic is not).
            "sign" => Box::new(|v: &[SVal]| {
                let t = v[0].ty();
                let c = |x: f64| SVal::strong(if t.is_float() { Expr::float(x, t) } else { Expr::int(x as i64) });
                let zero = c(0.0);
                let pos = ops::compare(CmpOp::Gt, v[0].clone(), zero.clone());
                let negv = ops::compare(CmpOp::Lt, v[0].clone(), zero.clone());
                Ok(ops::select(pos, c(1.0), ops::select(negv, c(-1.0), zero)))
            }),
            "log10" | "log2" => {
                let ln = if name == "log10" { std::f64::consts::LN_10 } else { std::f64::consts::LN_2 };
                Box::new(move |v: &[SVal]| {
                    let l = ops::intrinsic(Intrinsic::Log, vec![v[0].clone()]);
                    ops::arith(BinOpAst::Div, l, SVal::weak(Expr::float(ln, Scalar::F64)))
                })
            }
            "log1p" => Box::new(|v: &[SVal]| {
                let x = ops::arith(BinOpAst::Add, SVal::weak(Expr::float(1.0, Scalar::F64)), v[0].clone())?;
                Ok(ops::intrinsic(Intrinsic::Log, vec![x]))
            }),
            "expm1" => Box::new(|v: &[SVal]| {
                let x = ops::intrinsic(Intrinsic::Exp, vec![v[0].clone()]);
                ops::arith(BinOpAst::Sub, x, SVal::weak(Expr::float(1.0, Scalar::F64)))
            }),
            "arctan2" => Box::new(|v: &[SVal]| Ok(ops::intrinsic(Intrinsic::Arctan2, v.to_vec()))),
            "power" => Box::new(|v: &[SVal]| ops::arith(BinOpAst::Pow, v[0].clone(), v[1].clone())),
            "maximum" => Box::new(|v: &[SVal]| Ok(ops::intrinsic(Intrinsic::Max, v.to_vec()))),
            "minimum" => Box::new(|v: &[SVal]| Ok(ops::intrinsic(Intrinsic::Min, v.to_vec()))),
            "add" => Box::new(|v: &[SVal]| ops::arith(BinOpAst::Add, v[0].clone(), v[1].clone())),
            "subtract" => Box::new(|v: &[SVal]| ops::arith(BinOpAst::Sub, v[0].clone(), v[1].clone())),
            "multiply" => Box::new(|v: &[SVal]| ops::arith(BinOpAst::Mul, v[0].clone(), v[1].clone())),
            "divide" | "true_divide" => Box::new(|v: &[SVal]| ops::arith(BinOpAst::Div, v[0].clone(), v[1].clone())),
            "hypot" => Box::new(|v: &[SVal]| {
                let a = ops::arith(BinOpAst::Mul, v[0].clone(), v[0].clone())?;
                let b = ops::arith(BinOpAst::Mul, v[1].clone(), v[1].clone())?;
                let s = ops::arith(BinOpAst::Add, a, b)?;
                Ok(ops::intrinsic(Intrinsic::Sqrt, vec![s]))
            }),
            other => match names::intrinsic1(other) {
                Some(i) => Box::new(move |v: &[SVal]| Ok(ops::intrinsic(i, vec![v[0].clone()]))),
                None => return Err(self.err(e.span, format!("`{}` is not supported", e.text))),
            },
        };
        self.lift(vals, &exs, e, &*f)
    }

    fn np_call(&mut self, q: &str, e: &Ex, func: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        match names::classify(q) {
            NpName::Ufunc1(n) => {
                self.arity(e, args, 1, 1)?;
                self.check_kwargs(e, kwargs, &[])?;
                self.ufunc(&[n], e, args)
            }
            NpName::Ufunc2(n) => {
                self.arity(e, args, 2, 2)?;
                self.check_kwargs(e, kwargs, &[])?;
                self.ufunc(&[n], e, args)
            }
            NpName::Where => {
                self.arity(e, args, 3, 3)?;
                self.check_kwargs(e, kwargs, &[])?;
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.eval(a)?);
                }
                self.lift(vals, &[&args[0], &args[1], &args[2]], e, &|v| {
                    Ok(ops::select(v[0].clone(), v[1].clone(), v[2].clone()))
                })
            }
            NpName::Clip => {
                self.check_kwargs(e, kwargs, &["a_min", "a_max", "min", "max"])?;
                self.arity(e, args, 1, 3)?;
                let lo = args.get(1).or_else(|| kwarg(kwargs, "a_min")).or_else(|| kwarg(kwargs, "min"));
                let hi = args.get(2).or_else(|| kwarg(kwargs, "a_max")).or_else(|| kwarg(kwargs, "max"));
                let mut v = self.eval(&args[0])?;
                if let Some(lo) = lo {
                    let l = self.eval(lo)?;
                    if !matches!(l, Val::None) {
                        v = self.lift(vec![v, l], &[&args[0], lo], e, &|x| {
                            Ok(ops::intrinsic(Intrinsic::Max, x.to_vec()))
                        })?;
                    }
                }
                if let Some(hi) = hi {
                    let h = self.eval(hi)?;
                    if !matches!(h, Val::None) {
                        v = self.lift(vec![v, h], &[&args[0], hi], e, &|x| {
                            Ok(ops::intrinsic(Intrinsic::Min, x.to_vec()))
                        })?;
                    }
                }
                Ok(v)
            }
            NpName::Reduction(n) => {
                self.check_kwargs(e, kwargs, &["axis", "keepdims"])?;
                self.arity(e, args, 1, 2)?;
                let axis = args.get(1).or_else(|| kwarg(kwargs, "axis"));
                let keep = kwarg(kwargs, "keepdims");
                if let Some(v) = self.masked_reduction(red_op(n), &args[0], axis, keep, e)? {
                    return Ok(v);
                }
                let v = self.eval(&args[0])?;
                self.reduce(red_op(n), v, axis, keep, e)
            }
            NpName::Product(n) => {
                self.arity(e, args, 2, 2)?;
                self.check_kwargs(e, kwargs, &[])?;
                let a = self.eval(&args[0])?;
                let b = self.eval(&args[1])?;
                if n == "outer" {
                    self.outer(a, b, &args[0], &args[1], e)
                } else {
                    self.matmul(a, b, &args[0], &args[1], e, n == "matmul")
                }
            }
            NpName::Einsum => {
                self.check_kwargs(e, kwargs, &[])?;
                self.einsum(e, args)
            }
            NpName::Creation(c) => self.creation(c, e, args, kwargs),
            NpName::Cast(t) => {
                self.arity(e, args, 1, 1)?;
                let v = self.eval(&args[0])?;
                let r = self.lift(vec![v], &[&args[0]], e, &|v| Ok(ops::cast(v[0].clone(), t)))?;
                Ok(match r {
                    Val::Scalar(sv) => Val::Scalar(SVal::strong(sv.e)),
                    other => other,
                })
            }
            NpName::Flip => {
                self.arity(e, args, 1, 2)?;
                self.check_kwargs(e, kwargs, &["axis"])?;
                let v = self.eval(&args[0])?;
                let arr = match v {
                    Val::Array(a) => a,
                    Val::Deferred(d) => match self.force(*d)? {
                        Val::Array(a) => a,
                        other => return Ok(other),
                    },
                    other => return Ok(other),
                };
                let rank = arr.rank();
                let mut axes: Vec<bool> = vec![true; rank];
                if let Some(ax) = args.get(1).or_else(|| kwarg(kwargs, "axis")) {
                    axes = vec![false; rank];
                    let v = self.eval(ax)?;
                    let items = match v {
                        Val::Tuple(t) => t,
                        other => vec![other],
                    };
                    for it in items {
                        let k = match it {
                            Val::Scalar(sv) => sv.e.as_int(),
                            _ => None,
                        };
                        let Some(k) =
                            k.map(|k| if k < 0 { k + rank as i64 } else { k }).filter(|k| (0..rank as i64).contains(k))
                        else {
                            return Err(
                                self.err(ax.span, "`axis` must be an integer constant within the array's dimensions")
                            );
                        };
                        axes[k as usize] = true;
                    }
                }
                let items: Vec<Item> = axes
                    .iter()
                    .map(|f| Item::Slice { start: None, stop: None, step: if *f { -1 } else { 1 } })
                    .collect();
                let r = index(&arr, &items, self).map_err(|m| self.err(e.span, m))?;
                Ok(Val::Array(Arr { text: e.text.clone(), ..r }))
            }
            NpName::Transpose => {
                self.arity(e, args, 1, 1)?;
                self.check_kwargs(e, kwargs, &[])?;
                let v = self.eval(&args[0])?;
                match v {
                    Val::Array(a) => Ok(Val::Array(a.transpose())),
                    Val::Deferred(d) => match self.force(*d)? {
                        Val::Array(a) => Ok(Val::Array(a.transpose())),
                        other => Ok(other),
                    },
                    other => Ok(other),
                }
            }
            NpName::Reshape => {
                self.check_kwargs(e, kwargs, &["newshape", "shape", "order"])?;
                self.c_order_only(kwargs)?;
                self.arity(e, args, 1, 2)?;
                let shape_ex = args.get(1).or_else(|| kwarg(kwargs, "newshape")).or_else(|| kwarg(kwargs, "shape"));
                let Some(shape_ex) = shape_ex else {
                    return Err(self.err(e.span, format!("`{}` needs a new shape", e.text)));
                };
                let v = self.eval(&args[0])?;
                let arr = self.array_of(v, &args[0])?;
                let new = self.new_shape(std::slice::from_ref(shape_ex))?;
                self.reshape(arr, new, e)
            }
            NpName::Ravel => {
                self.check_kwargs(e, kwargs, &["order"])?;
                self.c_order_only(kwargs)?;
                self.arity(e, args, 1, 1)?;
                let v = self.eval(&args[0])?;
                let arr = self.array_of(v, &args[0])?;
                self.reshape(arr, vec![None], e)
            }
            NpName::Moment(std) => {
                self.check_kwargs(e, kwargs, &["axis", "keepdims", "ddof"])?;
                self.arity(e, args, 1, 2)?;
                let v = self.eval(&args[0])?;
                let axis = args.get(1).or_else(|| kwarg(kwargs, "axis"));
                self.moment(std, v, axis, kwarg(kwargs, "keepdims"), kwarg(kwargs, "ddof"), e)
            }
            NpName::Scan(prod) => {
                self.check_kwargs(e, kwargs, &["axis", "dtype"])?;
                self.arity(e, args, 1, 2)?;
                let axis = args.get(1).or_else(|| kwarg(kwargs, "axis"));
                self.scan(prod, e, &args[0], axis, kwargs)
            }
            NpName::Diff => self.diff(e, args, kwargs),
            NpName::Roll => self.roll(e, args, kwargs),
            NpName::Join(kind) => self.join(kind, e, args, kwargs),
            NpName::Arange => self.arange(e, args, kwargs),
            NpName::Linspace => self.linspace(e, args, kwargs),
            NpName::Tri(upper) => self.tri(upper, e, args, kwargs),
            NpName::Norm => self.norm(e, args, kwargs),
            NpName::Linalg(n) => self.linalg(n, e, func, args, kwargs),
            NpName::Const(_) => Err(self.err(func.span, format!("`{}` is not callable", func.text))),
            NpName::Unknown => {
                let msg = if matches!(q, "numpy.dot" | "numpy.matmul") {
                    "matrix products are not supported yet".to_string()
                } else {
                    format!("`{}` is not supported", func.text)
                };
                Err(self.err_help(func.span, msg, format!("supported: {}", names::supported_list())))
            }
        }
    }

    fn method(&mut self, e: &Ex, obj: &Ex, meth: &str, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        match meth {
            "copy" => {
                self.arity(e, args, 0, 0)?;
                let v = self.eval(obj)?;
                Ok(copy_of(v, e))
            }
            "sum" | "mean" | "max" | "min" | "prod" => {
                self.check_kwargs(e, kwargs, &["axis", "keepdims"])?;
                self.arity(e, args, 0, 1)?;
                let axis = args.first().or_else(|| kwarg(kwargs, "axis"));
                if let Some(v) = self.masked_reduction(red_op(meth), obj, axis, kwarg(kwargs, "keepdims"), e)? {
                    return Ok(v);
                }
                let v = self.eval(obj)?;
                self.reduce(red_op(meth), v, axis, kwarg(kwargs, "keepdims"), e)
            }
            "astype" => {
                self.arity(e, args, 1, 1)?;
                let Some(t) = self.dtype_arg(Some(&args[0]))? else {
                    return Err(self.err(args[0].span, format!("unsupported dtype `{}`", args[0].text)));
                };
                let v = self.eval(obj)?;
                self.lift(vec![v], &[obj], e, &|v| Ok(ops::cast(v[0].clone(), t)))
            }
            "transpose" if args.is_empty() => {
                let v = self.eval(obj)?;
                match v {
                    Val::Array(a) => Ok(Val::Array(a.transpose())),
                    other => Ok(other),
                }
            }
            "dot" => {
                self.arity(e, args, 1, 1)?;
                let a = self.eval(obj)?;
                let b = self.eval(&args[0])?;
                self.matmul(a, b, obj, &args[0], e, false)
            }
            "fill" => {
                self.arity(e, args, 1, 1)?;
                let target = self.eval(obj)?;
                let v = self.eval(&args[0])?;
                match target {
                    Val::Array(a) if a.view => {
                        self.store_view(&a, v, None, &args[0].text)?;
                        Ok(Val::None)
                    }
                    _ => Err(self.err(obj.span, format!("`{}` is not an array variable", obj.text))),
                }
            }
            "reshape" => {
                self.check_kwargs(e, kwargs, &["order"])?;
                self.c_order_only(kwargs)?;
                if args.is_empty() {
                    return Err(self.err(e.span, format!("`{}` needs a new shape", e.text)));
                }
                let v = self.eval(obj)?;
                let arr = self.array_of(v, obj)?;
                let new = self.new_shape(args)?;
                self.reshape(arr, new, e)
            }
            "flatten" | "ravel" => {
                self.check_kwargs(e, kwargs, &["order"])?;
                self.c_order_only(kwargs)?;
                self.arity(e, args, 0, 0)?;
                let v = self.eval(obj)?;
                let arr = self.array_of(v, obj)?;
                let r = self.reshape(arr, vec![None], e)?;
                // `flatten` always copies.
                Ok(if meth == "flatten" { copy_of(r, e) } else { r })
            }
            "cumsum" | "cumprod" => {
                self.check_kwargs(e, kwargs, &["axis", "dtype"])?;
                self.arity(e, args, 0, 1)?;
                let axis = args.first().or_else(|| kwarg(kwargs, "axis"));
                self.scan(meth == "cumprod", e, obj, axis, kwargs)
            }
            "std" | "var" => {
                self.check_kwargs(e, kwargs, &["axis", "keepdims", "ddof"])?;
                self.arity(e, args, 0, 1)?;
                let v = self.eval(obj)?;
                let axis = args.first().or_else(|| kwarg(kwargs, "axis"));
                self.moment(meth == "std", v, axis, kwarg(kwargs, "keepdims"), kwarg(kwargs, "ddof"), e)
            }
            _ => Err(self.err_help(
                e.span,
                format!("the method `.{meth}()` is not supported"),
                "supported methods: `.copy()`, `.sum()`, `.mean()`, `.max()`, `.min()`, `.prod()`, `.std()`, `.var()`, `.cumsum()`, `.cumprod()`, `.astype()`, `.dot()`, `.fill()`, `.transpose()`, `.reshape()`, `.ravel()`, `.flatten()`",
            )),
        }
    }

    fn shape_arg(&mut self, ex: &Ex) -> R<Vec<Expr>> {
        let v = self.eval(ex)?;
        let items = match v {
            Val::Tuple(items) => items,
            other => vec![other],
        };
        let mut out = Vec::new();
        for it in items {
            out.push(self.int_value(it, ex, "an array extent")?);
        }
        if out.is_empty() || out.len() > MAX_RANK {
            return Err(self.err(ex.span, "unsupported array shape (0-dimensional or too many dimensions)"));
        }
        self.note_extents(&out);
        Ok(out)
    }

    pub(super) fn dtype_arg(&mut self, ex: Option<&Ex>) -> R<Option<Scalar>> {
        // `dtype=A.dtype`
        if let Some(Ex { kind: ExKind::Attr(obj, a), .. }) = ex {
            if a == "dtype" {
                return match self.eval(obj)? {
                    Val::Array(arr) => Ok(Some(arr.elem)),
                    Val::Deferred(d) => Ok(Some(d.elem)),
                    Val::Scalar(sv) => Ok(Some(sv.ty())),
                    _ => Err(self.err(obj.span, format!("`{}` has no dtype", obj.text))),
                };
            }
        }
        match ex {
            None => Ok(None),
            Some(x) => match dtype_of(x, Some(self.m)) {
                Some(t) => Ok(Some(t)),
                None => Err(self.err_help(
                    x.span,
                    format!("unsupported dtype `{}`", x.text),
                    "use np.float64, np.float32, np.int64 or bool",
                )),
            },
        }
    }

    fn c_order_only(&self, kwargs: &[(String, Ex)]) -> R<()> {
        if let Some(o) = kwarg(kwargs, "order") {
            if !matches!(&o.kind, ExKind::Str(s) if s == "C") {
                return Err(self.err(o.span, "only C order (`order='C'`) is supported"));
            }
        }
        Ok(())
    }

    fn creation(&mut self, c: &str, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        if c == "eye" || c == "identity" {
            return self.eye(c, e, args, kwargs);
        }
        self.check_kwargs(e, kwargs, &["dtype", "shape", "fill_value", "order"])?;
        self.c_order_only(kwargs)?;
        let weakf = |v: f64| Expr::float(v, Scalar::F64);
        match c {
            "empty" | "zeros" | "ones" | "ndarray" | "full" => {
                let shape_ex = args.first().or_else(|| kwarg(kwargs, "shape"));
                let Some(shape_ex) = shape_ex else {
                    return Err(self.err(e.span, format!("`{}` needs a shape", e.text)));
                };
                let (fill, dtype_pos) = if c == "full" {
                    let f = args.get(1).or_else(|| kwarg(kwargs, "fill_value"));
                    let Some(f) = f else { return Err(self.err(e.span, "`np.full` needs a fill value")) };
                    (Some(f), 2)
                } else {
                    (None, 1)
                };
                self.arity(e, args, 0, dtype_pos + 1)?;
                let shape = self.shape_arg(shape_ex)?;
                let dtype = self.dtype_arg(args.get(dtype_pos).or_else(|| kwarg(kwargs, "dtype")))?;
                let (elem, init) = match c {
                    "zeros" => (dtype.unwrap_or(Scalar::F64), Some(weakf(0.0))),
                    "ones" => (dtype.unwrap_or(Scalar::F64), Some(weakf(1.0))),
                    "full" => {
                        let fv = match fill.map(|f| self.eval(f)).transpose()? {
                            Some(Val::Scalar(sv)) => sv,
                            _ => return Err(self.err(e.span, "the fill value of `np.full` must be a scalar")),
                        };
                        (dtype.unwrap_or(fv.ty()), Some(fv.e))
                    }
                    _ => (dtype.unwrap_or(Scalar::F64), None),
                };
                let init = init.map(|x| fill_value(x, elem));
                let bounds = shape.clone();
                Ok(Val::Deferred(Box::new(Deferred {
                    op: DefOp::Fresh { init },
                    elem,
                    shape,
                    bounds,
                    text: e.text.clone(),
                })))
            }
            "empty_like" | "zeros_like" | "ones_like" | "full_like" => {
                let Some(proto_ex) = args.first() else {
                    return Err(self.err(e.span, format!("`{}` needs an array", e.text)));
                };
                let proto = self.eval(proto_ex)?;
                let (elem0, shape, bounds) = match &proto {
                    Val::Array(a) => (a.elem, a.shape.clone(), a.bounds.clone()),
                    Val::Deferred(d) => (d.elem, d.shape.clone(), d.bounds.clone()),
                    _ => return Err(self.err(proto_ex.span, format!("`{}` is not an array", proto_ex.text))),
                };
                let dpos = if c == "full_like" { 2 } else { 1 };
                let dtype = self.dtype_arg(args.get(dpos).or_else(|| kwarg(kwargs, "dtype")))?;
                let elem = dtype.unwrap_or(elem0);
                let init = match c {
                    "zeros_like" => Some(weakf(0.0)),
                    "ones_like" => Some(weakf(1.0)),
                    "full_like" => {
                        let f = args.get(1).or_else(|| kwarg(kwargs, "fill_value"));
                        match f.map(|f| self.eval(f)).transpose()? {
                            Some(Val::Scalar(sv)) => Some(sv.e),
                            _ => return Err(self.err(e.span, "the fill value of `np.full_like` must be a scalar")),
                        }
                    }
                    _ => None,
                };
                let init = init.map(|x| fill_value(x, elem));
                Ok(Val::Deferred(Box::new(Deferred {
                    op: DefOp::Fresh { init },
                    elem,
                    shape,
                    bounds,
                    text: e.text.clone(),
                })))
            }
            "copy" => {
                self.arity(e, args, 1, 1)?;
                let v = self.eval(&args[0])?;
                Ok(copy_of(v, e))
            }
            _ => Err(self.err(e.span, format!("`{}` is not supported", e.text))),
        }
    }

    /// `np.eye(N, M=None, k=0, dtype=float)` / `np.identity(n, dtype=float)`: a lazy
    /// array that is 1 on the `k`-th diagonal.
    fn eye(&mut self, c: &str, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        let names: &[&str] = if c == "eye" { &["N", "M", "k", "dtype", "order"] } else { &["n", "dtype"] };
        self.check_kwargs(e, kwargs, names)?;
        self.c_order_only(kwargs)?;
        self.arity(e, args, 0, names.len() - 1)?;
        let arg = |k: usize| args.get(k).or_else(|| kwarg(kwargs, names[k]));
        let Some(n_ex) = arg(0) else {
            return Err(self.err(e.span, format!("`{}` needs the number of rows", e.text)));
        };
        let nv = self.eval(n_ex)?;
        let n = self.int_value(nv, n_ex, "an array extent")?;
        let (m, k, dtype_ex) = if c == "eye" {
            let m = match arg(1) {
                None => n.clone(),
                Some(x) => match self.eval(x)? {
                    Val::None => n.clone(),
                    v => self.int_value(v, x, "an array extent")?,
                },
            };
            let k = match arg(2) {
                None => Expr::int(0),
                Some(x) => {
                    let v = self.eval(x)?;
                    self.int_value(v, x, "the diagonal offset")?
                }
            };
            (m, k, arg(3))
        } else {
            (n.clone(), Expr::int(0), arg(1))
        };
        let elem = self.dtype_arg(dtype_ex)?.unwrap_or(Scalar::F64);
        let one = fill_value(Expr::float(1.0, Scalar::F64), elem);
        let zero = fill_value(Expr::float(0.0, Scalar::F64), elem);
        let on_diag = Expr::binary(BinOp::Eq, ph_expr(1), crate::sym::canon(&ph_expr(0).add(k)));
        let tmpl = Expr::select(on_diag, one, zero);
        let shape = vec![crate::sym::canon(&n), crate::sym::canon(&m)];
        self.note_extents(&shape);
        Ok(Val::Array(Arr { elem, bounds: shape.clone(), shape, tmpl, view: false, text: e.text.clone() }))
    }

    /// Inlines a helper function: parameters are bound to the caller's values (arrays by
    /// reference, so helpers that mutate their arguments mutate the caller's arrays).
    fn inline(&mut self, fd: &FuncDef, args: &[Ex], kwargs: &[(String, Ex)], e: &Ex) -> R<Val> {
        if self.scopes.iter().any(|s| s.fname == fd.name) || self.scopes.len() > 32 {
            return Err(self.err_help(
                e.span,
                format!("recursive call of `{}` is not supported", fd.name),
                "helper functions are inlined; rewrite the recursion as a loop",
            ));
        }
        let params = fd.params.clone()?;
        let body = fd.body.clone()?;
        if args.len() > params.len() {
            return Err(self
                .err(e.span, format!("`{}` takes {} arguments but {} were given", fd.name, params.len(), args.len())));
        }
        let mut vals: Vec<Option<Val>> = vec![None; params.len()];
        for (k, a) in args.iter().enumerate() {
            vals[k] = Some(self.eval(a)?);
        }
        for (k, v) in kwargs {
            let Some(i) = params.iter().position(|p| &p.name == k) else {
                return Err(self.err(v.span, format!("`{}` has no parameter `{k}`", fd.name)));
            };
            if vals[i].is_some() {
                return Err(self.err(v.span, format!("`{k}` is given twice in the call of `{}`", fd.name)));
            }
            vals[i] = Some(self.eval(v)?);
        }
        for (k, p) in params.iter().enumerate() {
            if vals[k].is_none() {
                match &p.default {
                    Some(d) => vals[k] = Some(self.eval(d)?),
                    None => {
                        return Err(
                            self.err(e.span, format!("missing argument `{}` in the call of `{}`", p.name, fd.name))
                        )
                    }
                }
            }
        }
        let id = self.serial;
        self.serial += 1;
        let sc = Scope::new(id, &fd.name, false, &body);
        let call_span = self.span;
        self.note_owners();
        self.call_names.insert(id, fd.name.clone());
        self.scopes.push(sc);
        let r = (|| -> R<()> {
            for (p, v) in params.iter().zip(vals) {
                let v = v.unwrap_or(Val::None);
                self.bind_param(p, v)?;
            }
            self.lower_body(&body)
        })();
        self.note_owners();
        let sc = self.scopes.pop();
        self.span = call_span;
        self.last_call = Some(id);
        r?;
        Ok(sc.and_then(|s| s.ret).unwrap_or(Val::None))
    }

    fn bind_param(&mut self, p: &ParamAst, v: Val) -> R<()> {
        let assigned = self.scope().counts.get(&p.name).copied().unwrap_or(0) > 0;
        match v {
            Val::Scalar(sv) => {
                let simple = matches!(sv.e.kind, ExprKind::Var(_) | ExprKind::Const(_));
                if assigned || !simple {
                    let name = self.f.fresh_name(&p.name);
                    let span = self.span;
                    let var = self.f.add_var(name, Type::Scalar(sv.ty()), VarRole::Local, span);
                    self.want_name(var, &p.name, false);
                    self.emit_kind(StmtKind::Assign { target: Place::scalar(var), value: sv.e.clone() });
                    let sc = self.scope_mut();
                    sc.locals.insert(p.name.clone(), var);
                    sc.env.insert(p.name.clone(), Binding::Scalar { var, weak: sv.weak });
                } else {
                    self.scope_mut().env.insert(p.name.clone(), Binding::Value(Val::Scalar(sv)));
                }
                Ok(())
            }
            Val::Array(a) if a.view => {
                let a = Arr { text: p.name.clone(), ..a };
                self.scope_mut().env.insert(p.name.clone(), Binding::Value(Val::Array(a)));
                Ok(())
            }
            Val::Array(_) | Val::Deferred(_) => {
                // A computed argument: materialise it under the parameter's name.
                let (elem, shape) = match &v {
                    Val::Array(a) => (a.elem, a.shape.clone()),
                    Val::Deferred(d) => (d.elem, d.shape.clone()),
                    _ => return Err(self.err(p.span, "internal: not an array")),
                };
                if shape.is_empty() {
                    let sv = match self.operand(v, &Ex { kind: ExKind::NoneLit, span: p.span, text: p.name.clone() })? {
                        super::expr::Operand::S(sv) => sv,
                        super::expr::Operand::A(_) => return Err(self.err(p.span, "internal: scalar expected")),
                    };
                    return self.bind_param(p, Val::Scalar(sv));
                }
                let bounds = match &v {
                    Val::Array(a) => a.bounds.clone(),
                    Val::Deferred(d) => d.bounds.clone(),
                    _ => shape.clone(),
                };
                let mut w = self.new_array(&p.name, elem, &shape, &bounds, VarRole::Local)?;
                self.store_view(&w, v, None, &p.name)?;
                w.text = p.name.clone();
                let sc = self.scope_mut();
                if let Some(var) = w.view_var() {
                    sc.owned.insert(var);
                }
                sc.env.insert(p.name.clone(), Binding::Value(Val::Array(w)));
                Ok(())
            }
            other => {
                self.scope_mut().env.insert(p.name.clone(), Binding::Value(other));
                Ok(())
            }
        }
    }
}

fn red_op(n: &str) -> RedOp {
    match n {
        "mean" => RedOp::Mean,
        "max" | "amax" => RedOp::Max,
        "min" | "amin" => RedOp::Min,
        "prod" => RedOp::Prod,
        _ => RedOp::Sum,
    }
}

pub(super) fn fill_value(x: Expr, elem: Scalar) -> Expr {
    match (x.as_float(), elem) {
        (Some(v), t) if t.is_float() => Expr::float(v, t),
        (Some(v), Scalar::I64) if x.as_int().is_none() && v.fract() == 0.0 => Expr::int(v as i64),
        (Some(v), Scalar::Bool) => Expr::boolean(v != 0.0),
        _ => x.cast(elem),
    }
}

/// `x.copy()`: a value that no longer aliases `x`.
pub(super) fn copy_of(v: Val, e: &Ex) -> Val {
    match v {
        Val::Array(a) => Val::Array(Arr { view: false, text: e.text.clone(), ..a }),
        other => other,
    }
}
