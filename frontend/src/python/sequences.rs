//! Evenly spaced values and norms: `np.arange`, `np.linspace` (lazy arrays whose element
//! is `start + i * step`, fused into the map that uses them) and `np.linalg.norm`
//! (a reduction of squares or absolute values, then a square root).

use super::ast::*;
use super::calls::kwarg;
use super::lower::{Lowerer, R};
use super::ops::{self, SVal};
use super::value::*;
use crate::sym::canon;
use adjc_ir::*;

impl Lowerer<'_> {
    fn scalar_arg(&mut self, ex: &Ex, what: &str) -> R<SVal> {
        match self.eval(ex)? {
            Val::Scalar(sv) => Ok(sv),
            other => Err(self.err(ex.span, format!("{what} must be a scalar, not {}", other.kind_name()))),
        }
    }

    fn lazy_1d(&mut self, elem: Scalar, n: Expr, tmpl: Expr, e: &Ex) -> R<Val> {
        let n = canon(&n);
        if !self.is_param_expr(&n) {
            return Err(self.err_help(
                e.span,
                format!("the length of `{}` depends on values known only inside a loop", e.text),
                "give it a length that depends only on the function's sizes and integer arguments",
            ));
        }
        self.note_extents(std::slice::from_ref(&n));
        Ok(Val::Array(Arr {
            elem,
            shape: vec![n.clone()],
            bounds: vec![n],
            tmpl: tmpl.with_span(e.span),
            view: false,
            text: e.text.clone(),
        }))
    }

    /// `np.arange([start,] stop[, step], dtype=None)`: integer bounds (any integer
    /// expressions, a constant step), or float constants.
    pub fn arange(&mut self, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        self.check_kwargs(e, kwargs, &["start", "stop", "step", "dtype"])?;
        self.arity(e, args, 0, 4)?;
        let pos: Vec<&Ex> = args.iter().take(3).collect();
        let (start_ex, stop_ex, step_ex) = match pos.len() {
            0 => (kwarg(kwargs, "start"), kwarg(kwargs, "stop"), kwarg(kwargs, "step")),
            1 if kwarg(kwargs, "stop").is_none() => (None, Some(pos[0]), kwarg(kwargs, "step")),
            1 => (Some(pos[0]), kwarg(kwargs, "stop"), kwarg(kwargs, "step")),
            2 => (Some(pos[0]), Some(pos[1]), kwarg(kwargs, "step")),
            _ => (Some(pos[0]), Some(pos[1]), Some(pos[2])),
        };
        let Some(stop_ex) = stop_ex else { return Err(self.err(e.span, format!("`{}` needs a stop value", e.text))) };
        let dtype = self.dtype_arg(args.get(3).or_else(|| kwarg(kwargs, "dtype")))?;
        let stop = self.scalar_arg(stop_ex, "the stop of `np.arange`")?;
        let start = match start_ex {
            None => SVal::weak(Expr::int(0)),
            Some(x) => self.scalar_arg(x, "the start of `np.arange`")?,
        };
        let step = match step_ex {
            None => SVal::weak(Expr::int(1)),
            Some(x) => self.scalar_arg(x, "the step of `np.arange`")?,
        };
        let all_int = [&start, &stop, &step].iter().all(|v| v.ty() == Scalar::I64);
        if all_int {
            let Some(k) = step.e.as_int().filter(|k| *k != 0) else {
                return Err(self.err(
                    step_ex.map_or(e.span, |x| x.span),
                    "the step of `np.arange` must be a non-zero integer constant",
                ));
            };
            let (lo, hi, kk) = if k > 0 { (&start.e, &stop.e, k) } else { (&stop.e, &start.e, -k) };
            let count = match (lo.as_int(), hi.as_int()) {
                (Some(a), Some(b)) => Expr::int(((b - a).max(0) + kk - 1) / kk),
                _ => {
                    let what = format!("`{}` has a non-negative length", e.text);
                    if !self.require_le(lo, hi, e.span, what) {
                        return Err(self.err(e.span, format!("cannot check that `{}` is not empty", e.text)));
                    }
                    let span = canon(&hi.clone().sub(lo.clone()));
                    if kk == 1 {
                        span
                    } else {
                        Expr::binary(BinOp::FloorDiv, canon(&span.add(Expr::int(kk - 1))), Expr::int(kk))
                    }
                }
            };
            let elem = dtype.unwrap_or(Scalar::I64);
            let tmpl = canon(&start.e.clone().add(ph_expr(0).mul(Expr::int(k))));
            let tmpl = ops::cast(SVal::strong(tmpl), elem).e;
            return self.lazy_1d(elem, count, tmpl, e);
        }
        let (Some(a), Some(b), Some(s)) = (start.e.as_float(), stop.e.as_float(), step.e.as_float()) else {
            return Err(self.err_help(
                e.span,
                format!("`{}` with float bounds known only at run time is not supported", e.text),
                "use integer bounds, or `np.linspace(start, stop, num)`",
            ));
        };
        if s == 0.0 || !s.is_finite() {
            return Err(self.err(e.span, "the step of `np.arange` must be finite and non-zero"));
        }
        let count = ((b - a) / s).ceil().max(0.0) as i64;
        let elem = dtype.unwrap_or(Scalar::F64);
        let i = ph_expr(0).cast(Scalar::F64);
        let tmpl = Expr::float(a, Scalar::F64).add(i.mul(Expr::float(s, Scalar::F64)));
        let tmpl = ops::cast(SVal::strong(tmpl), elem).e;
        self.lazy_1d(elem, Expr::int(count), tmpl, e)
    }

    /// `np.linspace(start, stop, num=50, endpoint=True, dtype=None)` of scalars.
    pub fn linspace(&mut self, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        self.check_kwargs(e, kwargs, &["num", "endpoint", "dtype"])?;
        self.arity(e, args, 2, 4)?;
        let start = self.scalar_arg(&args[0], "the start of `np.linspace`")?;
        let stop = self.scalar_arg(&args[1], "the stop of `np.linspace`")?;
        let num = match args.get(2).or_else(|| kwarg(kwargs, "num")) {
            None => Expr::int(50),
            Some(x) => {
                let v = self.eval(x)?;
                self.int_value(v, x, "the number of samples")?
            }
        };
        let endpoint = match args.get(3).or_else(|| kwarg(kwargs, "endpoint")) {
            None => true,
            Some(x) => match self.eval(x)? {
                Val::Scalar(sv) => match sv.e.kind {
                    ExprKind::Const(Literal::Bool(b)) => b,
                    _ => return Err(self.err(x.span, "`endpoint` must be `True` or `False`")),
                },
                _ => return Err(self.err(x.span, "`endpoint` must be `True` or `False`")),
            },
        };
        let dtype = self.dtype_arg(kwarg(kwargs, "dtype"))?;
        // The number of intervals (at least 1: `linspace(a, b, 1)` is `[a]`).
        let den = if endpoint {
            match num.as_int() {
                Some(k) => Expr::int((k - 1).max(1)),
                None => {
                    let n1 = SVal::strong(canon(&num.clone().sub(Expr::int(1))));
                    ops::intrinsic(Intrinsic::Max, vec![n1, SVal::strong(Expr::int(1))]).e
                }
            }
        } else {
            num.clone()
        };
        let f = Scalar::F64;
        let width = ops::arith(BinOpAst::Sub, stop, start.clone()).map_err(|m| self.err(e.span, m))?;
        let step = ops::arith(BinOpAst::Div, width, SVal::strong(den.cast(f))).map_err(|m| self.err(e.span, m))?;
        let i = SVal::strong(ph_expr(0).cast(f));
        let off = ops::arith(BinOpAst::Mul, i, step).map_err(|m| self.err(e.span, m))?;
        let x = ops::arith(BinOpAst::Add, start, off).map_err(|m| self.err(e.span, m))?;
        let elem = dtype.unwrap_or(if x.ty().is_float() { x.ty() } else { f });
        let tmpl = ops::cast(x, elem).e;
        self.lazy_1d(elem, num, tmpl, e)
    }

    /// `np.linalg.norm(x, ord=None, axis=None, keepdims=False)`: the 2-norm of vectors
    /// (also `ord=2`), the Frobenius norm of matrices (`ord=None`/`'fro'`), `ord=1` and
    /// `ord=np.inf` of vectors.
    pub fn norm(&mut self, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        self.check_kwargs(e, kwargs, &["ord", "axis", "keepdims"])?;
        self.arity(e, args, 1, 3)?;
        let v = self.eval(&args[0])?;
        let arr = self.array_of(v, &args[0])?;
        let ord_ex = args.get(1).or_else(|| kwarg(kwargs, "ord"));
        let axis = args.get(2).or_else(|| kwarg(kwargs, "axis")).filter(|x| !matches!(x.kind, ExKind::NoneLit));
        let keep = kwarg(kwargs, "keepdims");
        // How many axes each norm spans.
        let spanned = match axis.map(|a| &a.kind) {
            None => arr.rank(),
            Some(ExKind::Tuple(t)) | Some(ExKind::List(t)) => t.len(),
            Some(_) => 1,
        };
        #[derive(PartialEq)]
        enum Ord {
            Two,
            One,
            Inf,
        }
        let ord =
            match ord_ex.map(|o| &o.kind) {
                None | Some(ExKind::NoneLit) => Ord::Two,
                Some(ExKind::Str(s)) if s == "fro" && spanned == 2 => Ord::Two,
                Some(_) => {
                    let o = ord_ex.ok_or_else(|| self.err(e.span, "internal: no ord"))?;
                    let val = match self.eval(o)? {
                        Val::Scalar(sv) => sv.e.as_float(),
                        _ => None,
                    };
                    match val {
                        Some(x) if x == 2.0 && spanned == 1 => Ord::Two,
                        Some(x) if x == 1.0 && spanned == 1 => Ord::One,
                        Some(x) if x == f64::INFINITY && spanned == 1 => Ord::Inf,
                        _ => return Err(self.err_help(
                            o.span,
                            format!("`ord={}` is not supported in `np.linalg.norm` of {spanned} axes", o.text),
                            "supported: the 2-norm of vectors (`ord=None`, `2`), `ord=1` and `ord=np.inf` of vectors, \
                             the Frobenius norm of matrices (`ord=None`, `'fro'`)",
                        )),
                    }
                }
            };
        if arr.rank() > 2 && axis.is_none() && ord != Ord::Two {
            return Err(self.err(e.span, "`np.linalg.norm` of an array of more than 2 dimensions needs `axis`"));
        }
        let elem = if arr.elem.is_float() { arr.elem } else { Scalar::F64 };
        let term = self.lift(vec![Val::Array(arr)], &[&args[0]], e, &|v| {
            let x = ops::cast(v[0].clone(), elem);
            match ord {
                Ord::Two => ops::arith(BinOpAst::Mul, x.clone(), x),
                _ => Ok(ops::intrinsic(Intrinsic::Abs, vec![x])),
            }
        })?;
        let red = if ord == Ord::Inf { RedOp::Max } else { RedOp::Sum };
        let total = self.reduce(red, term, axis, keep, e)?;
        if ord == Ord::Two {
            self.lift(vec![total], &[e], e, &|v| Ok(ops::intrinsic(Intrinsic::Sqrt, vec![v[0].clone()])))
        } else {
            Ok(total)
        }
    }
}
