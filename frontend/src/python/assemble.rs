//! Arrays assembled from others: `np.concatenate`, `np.stack`, `np.hstack`, `np.vstack`,
//! `np.roll`, `np.diff`, `np.triu`, `np.tril`.
//!
//! `diff`, `triu` and `tril` are element-wise (loads at shifted indices, a `select` on the
//! diagonal offset) and fuse into the map of the statement that uses them. Joins are not:
//! each part is stored by its own map into its slab of the destination
//! ([`DefOp::Join`]), so no element is read out of range and the adjoint of each part is a
//! plain map (never a `select` between loads at different offsets). `np.roll(x, s)` is the
//! join of the last `s` elements and the first `n - s`; `np.stack` joins the parts along a
//! new axis of extent 1.

use super::ast::*;
use super::calls::{copy_of, fill_value, kwarg};
use super::lower::{Lowerer, R};
use super::ops::{self, SVal};
use super::value::*;
use crate::sym::canon;
use adjc_ir::*;

/// `arr` with a new axis of extent 1 at `axis`.
fn expand(arr: Arr, axis: usize) -> Arr {
    let tmpl = subst_ph(&arr.tmpl, &|d| if d < axis { ph_expr(d) } else { ph_expr(d + 1) });
    let mut shape = arr.shape.clone();
    shape.insert(axis, Expr::int(1));
    let mut bounds = arr.bounds.clone();
    bounds.insert(axis, Expr::int(1));
    Arr { tmpl, shape, bounds, view: false, ..arr }
}

/// Full slices on every axis but `axis`, which takes `item`.
fn along(rank: usize, axis: usize, item: Item) -> Vec<Item> {
    (0..rank).map(|d| if d == axis { item.clone() } else { Item::Slice { start: None, stop: None, step: 1 } }).collect()
}

impl Lowerer<'_> {
    /// An integer constant axis in `0..rank` (negative values count from the end).
    pub fn const_axis(&mut self, ax: &Ex, rank: usize) -> R<usize> {
        let v = self.eval(ax)?;
        let k = match v {
            Val::Scalar(sv) => sv.e.as_int(),
            _ => None,
        };
        let Some(k) = k else {
            return Err(self.err(ax.span, "`axis` must be an integer constant"));
        };
        let a = if k < 0 { k + rank as i64 } else { k };
        if a < 0 || a >= rank as i64 {
            return Err(self.err(ax.span, format!("axis {k} is out of range for {rank} dimension(s)")));
        }
        Ok(a as usize)
    }

    /// An integer constant argument.
    pub fn const_int(&mut self, ex: &Ex, what: &str) -> R<i64> {
        let v = self.eval(ex)?;
        match v {
            Val::Scalar(sv) if sv.e.as_int().is_some() && sv.ty() == Scalar::I64 => Ok(sv.e.as_int().unwrap_or(0)),
            _ => Err(self.err_help(
                ex.span,
                format!("{what} must be an integer constant"),
                "a value known only at run time is not supported here",
            )),
        }
    }

    /// Whether an optional argument is absent or the literal `None`.
    fn absent(x: Option<&Ex>) -> bool {
        x.is_none_or(|x| matches!(x.kind, ExKind::NoneLit))
    }

    /// The arrays of a tuple or list argument (`np.concatenate((a, b))`).
    fn parts_of(&mut self, ex: &Ex, fname: &str) -> R<Vec<Arr>> {
        let v = self.eval(ex)?;
        let Val::Tuple(items) = v else {
            return Err(self.err_help(
                ex.span,
                format!("`{fname}` takes a tuple or list of arrays"),
                format!("write `{fname}((a, b))`"),
            ));
        };
        if items.is_empty() {
            return Err(self.err(ex.span, format!("`{fname}` needs at least one array")));
        }
        let mut out = Vec::new();
        for it in items {
            if matches!(it, Val::Scalar(_)) {
                return Err(self.err(ex.span, format!("`{fname}` of a scalar (0-dimensional) value is not supported")));
            }
            out.push(self.array_of(it, ex)?);
        }
        Ok(out)
    }

    /// `np.concatenate(parts, axis=0)`, `np.stack(parts, axis=0)`, `np.hstack(parts)`,
    /// `np.vstack(parts)`.
    pub fn join(&mut self, kind: &str, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        let fname = format!("np.{kind}");
        if kind == "concatenate" || kind == "stack" {
            self.check_kwargs(e, kwargs, &["axis"])?;
            self.arity(e, args, 1, 2)?;
        } else {
            self.check_kwargs(e, kwargs, &[])?;
            self.arity(e, args, 1, 1)?;
        }
        let mut parts = self.parts_of(&args[0], &fname)?;
        let rank0 = parts[0].rank();
        let axis_ex = args.get(1).or_else(|| kwarg(kwargs, "axis"));
        let axis = match kind {
            "concatenate" | "stack" => match axis_ex {
                None => 0,
                Some(ax) if matches!(ax.kind, ExKind::NoneLit) => {
                    return Err(self.err_help(
                        ax.span,
                        format!("`{fname}` with `axis=None` (flattening the parts) is not supported"),
                        "flatten the parts first: `np.concatenate((a.ravel(), b.ravel()))`",
                    ))
                }
                Some(ax) => self.const_axis(ax, if kind == "stack" { rank0 + 1 } else { rank0 })?,
            },
            "hstack" if rank0 > 1 => 1,
            _ => 0,
        };
        if kind == "stack" || (kind == "vstack" && rank0 == 1) {
            parts = parts.into_iter().map(|p| expand(p, axis)).collect();
        }
        let rank = parts[0].rank();
        for (k, p) in parts.iter().enumerate().skip(1) {
            if p.rank() != rank {
                return Err(self.err(
                    e.span,
                    format!(
                        "the arrays of `{}` have different numbers of dimensions ({} and {} for part {k})",
                        e.text,
                        parts[0].rank(),
                        p.rank()
                    ),
                ));
            }
        }
        for k in 1..parts.len() {
            for d in 0..rank {
                if d == axis && kind != "stack" {
                    continue;
                }
                let (x0, xk) = (parts[0].shape[d].clone(), parts[k].shape[d].clone());
                let what = format!("equal extents of the parts of `{}`", e.text);
                if !self.require_equal(&x0, &xk, e.span, what) {
                    return Err(self.err_help(
                        e.span,
                        format!(
                            "the parts of `{}` differ along axis {d}: `{}` has extent {}, `{}` has extent {}",
                            e.text,
                            parts[0].text,
                            self.ext_str(&x0),
                            parts[k].text,
                            self.ext_str(&xk)
                        ),
                        if kind == "stack" {
                            "the arrays of `np.stack` must have the same shape".to_string()
                        } else {
                            format!("the parts must have equal extents on every axis but the joined one (axis {axis})")
                        },
                    ));
                }
            }
        }
        Ok(self.joined(parts, axis, None, e))
    }

    /// The deferred join of `parts` along `axis`; `ext` overrides the extent and bound of
    /// the joined axis (a roll has the extent of its argument).
    fn joined(&mut self, parts: Vec<Arr>, axis: usize, ext: Option<(Expr, Expr)>, e: &Ex) -> Val {
        let elem = parts.iter().map(|p| p.elem).max().unwrap_or(Scalar::F64);
        let mut shape = parts[0].shape.clone();
        let mut bounds = parts[0].bounds.clone();
        let (x, b) = ext.unwrap_or_else(|| {
            let sum =
                |f: &dyn Fn(&Arr) -> Expr| canon(&parts.iter().map(f).reduce(|a, b| a.add(b)).unwrap_or(Expr::int(0)));
            (sum(&|p| p.shape[axis].clone()), sum(&|p| p.bounds[axis].clone()))
        });
        shape[axis] = x;
        bounds[axis] = b;
        Val::Deferred(Box::new(Deferred { op: DefOp::Join { parts, axis }, elem, shape, bounds, text: e.text.clone() }))
    }

    /// Stores each part into its slab of `dest` along `axis`.
    pub fn join_into(&mut self, dest: &Arr, parts: &[Arr], axis: usize) -> R<()> {
        let mut off = Expr::int(0);
        for p in parts {
            let o = off.clone();
            let tmpl = subst_ph(&dest.tmpl, &|d| if d == axis { ph_expr(d).add(o.clone()) } else { ph_expr(d) });
            let mut shape = dest.shape.clone();
            shape[axis] = p.shape[axis].clone();
            let mut bounds = dest.bounds.clone();
            bounds[axis] = p.bounds[axis].clone();
            let slab = Arr { tmpl, shape, bounds, ..dest.clone() };
            let v = ops::cast(SVal::strong(p.tmpl.clone()), dest.elem).e;
            self.emit_store_map(&slab, v, false)?;
            off = canon(&off.add(p.shape[axis].clone()));
        }
        Ok(())
    }

    /// `np.roll(x, shift, axis=None)` with a constant shift.
    pub fn roll(&mut self, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        self.check_kwargs(e, kwargs, &["shift", "axis"])?;
        self.arity(e, args, 1, 3)?;
        let v = self.eval(&args[0])?;
        let arr = self.array_of(v, &args[0])?;
        let Some(shift_ex) = args.get(1).or_else(|| kwarg(kwargs, "shift")) else {
            return Err(self.err(e.span, format!("`{}` needs a shift", e.text)));
        };
        let s = self.const_int(shift_ex, "the shift of `np.roll`")?;
        let axis_ex = args.get(2).or_else(|| kwarg(kwargs, "axis"));
        let axis = if Self::absent(axis_ex) {
            if arr.rank() != 1 {
                return Err(self.err_help(
                    e.span,
                    format!("`{}` of a {}-dimensional array without `axis` is not supported", e.text, arr.rank()),
                    "give the axis to roll along: `np.roll(x, shift, axis=0)`",
                ));
            }
            0
        } else {
            let ax = axis_ex.ok_or_else(|| self.err(e.span, "internal: no axis"))?;
            self.const_axis(ax, arr.rank())?
        };
        let n = arr.shape[axis].clone();
        let s = match n.as_int() {
            Some(nc) if nc > 0 => s.rem_euclid(nc),
            _ => s,
        };
        if s == 0 {
            return Ok(copy_of(Val::Array(arr), e));
        }
        let what = format!("the shift of `{}` is at most the extent of its axis", e.text);
        if !self.require_le(&Expr::int(s.abs()), &n, shift_ex.span, what) {
            return Err(self.err_help(
                shift_ex.span,
                format!("the shift {s} of `{}` is larger than the extent of the axis", e.text),
                "reduce the shift modulo the extent",
            ));
        }
        // The first part starts at `n - s` (`s > 0`) or at `-s`.
        let split = if s > 0 { canon(&n.clone().sub(Expr::int(s))) } else { Expr::int(-s) };
        let slice = |start: Option<Expr>, stop: Option<Expr>| Item::Slice { start, stop, step: 1 };
        let tail = index(&arr, &along(arr.rank(), axis, slice(Some(split.clone()), None)), self)
            .map_err(|m| self.err(e.span, m))?;
        let head =
            index(&arr, &along(arr.rank(), axis, slice(None, Some(split))), self).map_err(|m| self.err(e.span, m))?;
        let ext = (n, arr.bounds[axis].clone());
        Ok(self.joined(vec![tail, head], axis, Some(ext), e))
    }

    /// `np.diff(x, n=1, axis=-1)`: `x[..., 1:] - x[..., :-1]`, `n` times.
    pub fn diff(&mut self, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        self.check_kwargs(e, kwargs, &["n", "axis"])?;
        self.arity(e, args, 1, 3)?;
        let v = self.eval(&args[0])?;
        let mut arr = self.array_of(v, &args[0])?;
        if arr.elem == Scalar::Bool {
            return Err(self.err(args[0].span, "`np.diff` of a boolean array is not supported"));
        }
        let n = match args.get(1).or_else(|| kwarg(kwargs, "n")) {
            None => 1,
            Some(x) => self.const_int(x, "the order `n` of `np.diff`")?,
        };
        if n < 0 {
            return Err(self.err(e.span, "the order `n` of `np.diff` must be non-negative"));
        }
        let axis = match args.get(2).or_else(|| kwarg(kwargs, "axis")) {
            None => arr.rank() - 1,
            Some(ax) => self.const_axis(ax, arr.rank())?,
        };
        for _ in 0..n {
            let slice = |start: Option<i64>, stop: Option<i64>| Item::Slice {
                start: start.map(Expr::int),
                stop: stop.map(Expr::int),
                step: 1,
            };
            let hi =
                index(&arr, &along(arr.rank(), axis, slice(Some(1), None)), self).map_err(|m| self.err(e.span, m))?;
            let lo =
                index(&arr, &along(arr.rank(), axis, slice(None, Some(-1))), self).map_err(|m| self.err(e.span, m))?;
            let r = self.lift(vec![Val::Array(hi), Val::Array(lo)], &[e, e], e, &|v| {
                ops::arith(BinOpAst::Sub, v[0].clone(), v[1].clone())
            })?;
            arr = self.array_of(r, e)?;
        }
        Ok(Val::Array(Arr { text: e.text.clone(), view: false, ..arr }))
    }

    /// `np.triu(m, k=0)` / `np.tril(m, k=0)`: zero below / above the `k`-th diagonal of the
    /// last two axes.
    pub fn tri(&mut self, upper: bool, e: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        self.check_kwargs(e, kwargs, &["k"])?;
        self.arity(e, args, 1, 2)?;
        let v = self.eval(&args[0])?;
        let arr = self.array_of(v, &args[0])?;
        let r = arr.rank();
        if r < 2 {
            return Err(self.err_help(
                args[0].span,
                format!("`{}` of a 1-dimensional array is not supported", e.text),
                "pass a matrix (NumPy would first broadcast the vector to a square matrix)",
            ));
        }
        let k = match args.get(1).or_else(|| kwarg(kwargs, "k")) {
            None => Expr::int(0),
            Some(x) => {
                let kv = self.eval(x)?;
                self.int_value(kv, x, "the diagonal offset")?
            }
        };
        let off = ph_expr(r - 1).sub(ph_expr(r - 2));
        let keep = Expr::binary(if upper { BinOp::Ge } else { BinOp::Le }, off, k);
        let zero = fill_value(Expr::float(0.0, Scalar::F64), arr.elem);
        let tmpl = Expr::select(keep, arr.tmpl.clone(), zero);
        Ok(Val::Array(Arr { tmpl, view: false, text: e.text.clone(), ..arr }))
    }
}
