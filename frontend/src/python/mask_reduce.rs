//! Reductions over a boolean-mask selection, without materialising it:
//! `np.sum(x[mask])`, `x[mask].mean()`, `np.max(x[m] * y[m])`, `np.sum(x[np.where(c)])`.
//!
//! `x[mask]` has a size only known at run time (the number of true elements), so adjc
//! never builds it. A full reduction over an element-wise expression whose arrays are all
//! selected by the same mask (of the arrays' shape) is the reduction over every element,
//! with the unselected ones replaced by the reduction's identity:
//!
//! ```text
//! np.sum(x[m] * y[m])   →   sum over i of (m[i] ? x[i] * y[i] : 0)
//! x[m].mean()           →   (sum of m[i] ? x[i] : 0) / (sum of m[i] ? 1 : 0)   (nan when empty, as NumPy)
//! np.max(x[m])          →   max over i of (m[i] ? x[i] : -inf)                (NumPy raises when empty)
//! ```
//!
//! so the adjoint is the same select: the gradient reaches the selected elements only.
//! `x[np.where(c)]` selects the same elements as `x[c]` (in the same order), so it is the
//! same mask. Anything else over a mask (an `axis`, an array not selected by the mask, a
//! mask of another shape, two different masks, a selection used outside a reduction) stays
//! an error with a location.

use super::ast::*;
use super::lower::{Lowerer, R};
use super::names::{self, NpName};
use super::ops::{self, SVal};
use super::value::*;
use adjc_ir::*;

/// The mask of a subscript item: `m` for `x[m]` with a boolean `m`, `c` for
/// `x[np.where(c)]`.
struct Mask<'e> {
    /// The item as written (`m`, `np.where(c)`): subscripts with this text are selections.
    item: String,
    /// The boolean expression.
    cond: &'e Ex,
}

impl Lowerer<'_> {
    /// `op` over `arg` (`np.sum(arg)`, `arg.mean()`, ...) when `arg` selects through a
    /// boolean mask; `None` when it does not (the ordinary reduction applies).
    pub fn masked_reduction(
        &mut self,
        op: RedOp,
        arg: &Ex,
        axis: Option<&Ex>,
        keep: Option<&Ex>,
        e: &Ex,
    ) -> R<Option<Val>> {
        let Some(mask) = self.first_mask(arg)? else { return Ok(None) };
        if let Some(a) = axis.or(keep) {
            return Err(self.err_help(
                a.span,
                format!("a reduction over the boolean-mask selection `{}` takes no `axis` or `keepdims`", arg.text),
                "the selection is one-dimensional: reduce it whole (`np.sum(x[mask])`), or reduce \
                 `np.where(mask, x, 0)` along the axis",
            ));
        }
        self.check_selection(arg, &mask)?;
        let stripped = strip(arg, &mask.item);
        let m = self.eval(mask.cond)?;
        let v = self.eval(&stripped)?;
        let (melem, mshape) =
            shape_of(&m).ok_or_else(|| self.err(mask.cond.span, "internal: the mask is not an array"))?;
        if melem != Scalar::Bool {
            return Err(self.err(mask.cond.span, "internal: the mask is not boolean"));
        }
        let Some((elem, vshape)) = shape_of(&v) else {
            return Err(self.err(arg.span, "internal: the selected expression is not an array"));
        };
        if vshape.len() != mshape.len() {
            return Err(self.err_help(
                arg.span,
                format!(
                    "the mask `{}` has {} dimension(s) but selects from an array with {}",
                    mask.cond.text,
                    mshape.len(),
                    vshape.len()
                ),
                "a mask in a reduction selects elements of an array of its own shape",
            ));
        }
        for d in 0..vshape.len() {
            let what = format!("equal extents of `{}` and the mask `{}`", stripped.text, mask.cond.text);
            if !self.require_equal(&vshape[d], &mshape[d], arg.span, what) {
                return Err(self.mismatch(
                    &stripped.text,
                    &vshape[d],
                    &mask.cond.text,
                    &mshape[d],
                    arg.span,
                    Some(d),
                    vshape.len(),
                ));
            }
        }
        let ft = if elem.is_float() { elem } else { Scalar::F64 };
        let fill = |x: f64| -> Result<SVal, String> {
            if elem.is_float() {
                Ok(SVal::strong(Expr::float(x, elem)))
            } else if x.is_finite() {
                Ok(SVal::strong(Expr::int(x as i64)))
            } else {
                Err("a `max`/`min` over a boolean-mask selection of integers is not supported".into())
            }
        };
        let identity = match op {
            RedOp::Sum | RedOp::Mean => 0.0,
            RedOp::Prod => 1.0,
            RedOp::Max => f64::NEG_INFINITY,
            RedOp::Min => f64::INFINITY,
        };
        let id = fill(identity).map_err(|msg| self.err(e.span, msg))?;
        let exs = [mask.cond, &stripped];
        let selected =
            self.lift(vec![m.clone(), v], &exs, e, &|x| Ok(ops::select(x[0].clone(), x[1].clone(), id.clone())))?;
        let red = if op == RedOp::Mean { RedOp::Sum } else { op };
        let total = self.reduce(red, selected, None, None, e)?;
        if op != RedOp::Mean {
            return Ok(Some(total));
        }
        // The number of selected elements, as a float: NumPy's mean of an empty selection is nan.
        let one = SVal::strong(Expr::float(1.0, ft));
        let zero = SVal::strong(Expr::float(0.0, ft));
        let ones =
            self.lift(vec![m], &[mask.cond], e, &|x| Ok(ops::select(x[0].clone(), one.clone(), zero.clone())))?;
        let count = self.reduce(RedOp::Sum, ones, None, None, e)?;
        let total = self.lift(vec![total], &[e], e, &|x| Ok(ops::cast(x[0].clone(), ft)))?;
        let mean =
            self.lift(vec![total, count], &[e, e], e, &|x| ops::arith(BinOpAst::Div, x[0].clone(), x[1].clone()))?;
        Ok(Some(mean))
    }

    /// The first boolean-mask subscript in `arg` (outside calls other than ufuncs).
    fn first_mask<'e>(&mut self, arg: &'e Ex) -> R<Option<Mask<'e>>> {
        if let ExKind::Subscript(_, items) = &arg.kind {
            if let [item] = items.as_slice() {
                if let Some(cond) = self.where_cond(item) {
                    return Ok(Some(Mask { item: item.text.clone(), cond }));
                }
                if self.is_bool_array(item)? {
                    return Ok(Some(Mask { item: item.text.clone(), cond: item }));
                }
            }
        }
        if !elementwise_node(self, arg) {
            return Ok(None);
        }
        for c in children_values(arg) {
            if let Some(m) = self.first_mask(c)? {
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    /// `c` of `np.where(c)` (one argument: the indices where `c` holds).
    fn where_cond<'e>(&self, item: &'e Ex) -> Option<&'e Ex> {
        let ExKind::Call { func, args, kwargs } = &item.kind else { return None };
        let q = self.resolve_name(func)?;
        (names::classify(&q) == NpName::Where && args.len() == 1 && kwargs.is_empty()).then(|| &args[0])
    }

    /// Whether `x` is a boolean array (comparisons by their syntax; names by their value,
    /// a pure lookup).
    fn is_bool_array(&mut self, x: &Ex) -> R<bool> {
        Ok(match &x.kind {
            ExKind::Compare(..) => true,
            ExKind::Bin(BinOpAst::BitAnd | BinOpAst::BitOr | BinOpAst::BitXor, a, b) => {
                self.is_bool_array(a)? && self.is_bool_array(b)?
            }
            ExKind::Unary(UnOpAst::Invert, a) => self.is_bool_array(a)?,
            ExKind::Name(_) => {
                matches!(self.eval(x)?, Val::Array(Arr { elem: Scalar::Bool, .. }))
                    || matches!(self.eval(x)?, Val::Deferred(d) if d.elem == Scalar::Bool && !d.shape.is_empty())
            }
            _ => false,
        })
    }

    /// Every array in `x` is selected by `mask`, through element-wise operations only:
    /// otherwise NumPy would combine arrays of different sizes (an error) and adjc would
    /// compute something else.
    fn check_selection(&mut self, x: &Ex, mask: &Mask) -> R<()> {
        if let ExKind::Subscript(_, items) = &x.kind {
            if let [item] = items.as_slice() {
                if item.text == mask.item {
                    return Ok(());
                }
                if self.where_cond(item).is_some() || self.is_bool_array(item)? {
                    return Err(self.err_help(
                        item.span,
                        format!("a second mask `{}` in a reduction over `[{}]`", item.text, mask.item),
                        "select every array of the reduction with the same mask (combine masks with `&`)",
                    ));
                }
            }
        }
        let leaf_ok = match &x.kind {
            ExKind::Int(_) | ExKind::Float(_) | ExKind::Bool(_) => true,
            ExKind::Name(_) | ExKind::Attr(..) => !matches!(self.eval(x)?, Val::Array(_) | Val::Deferred(_)),
            _ => false,
        };
        if leaf_ok {
            return Ok(());
        }
        if !elementwise_node(self, x) {
            return Err(self.err_help(
                x.span,
                format!(
                    "`{}` in a reduction over the boolean-mask selection `[{}]` is not supported",
                    x.text, mask.item
                ),
                "a masked reduction takes element-wise arithmetic and ufuncs of arrays selected by the same mask \
                 and scalars (`np.sum(x[m] * y[m] ** 2)`)",
            ));
        }
        for c in children_values(x) {
            self.check_selection(c, mask)?;
        }
        Ok(())
    }
}

/// Arithmetic, unary operators and NumPy/`math` ufunc calls: the operations that act
/// element by element.
fn elementwise_node(lw: &Lowerer, x: &Ex) -> bool {
    match &x.kind {
        ExKind::Bin(op, ..) => !matches!(op, BinOpAst::MatMul),
        ExKind::Unary(..) => true,
        ExKind::Call { func, kwargs, .. } => {
            kwargs.is_empty()
                && lw
                    .resolve_name(func)
                    .is_some_and(|q| matches!(names::classify(&q), NpName::Ufunc1(_) | NpName::Ufunc2(_)))
        }
        _ => false,
    }
}

/// The value operands of an element-wise node (a call's arguments, not its callee).
fn children_values(x: &Ex) -> Vec<&Ex> {
    match &x.kind {
        ExKind::Call { args, .. } => args.iter().collect(),
        _ => x.children(),
    }
}

/// `x` with every selection `a[item]` replaced by `a`.
fn strip(x: &Ex, item: &str) -> Ex {
    let kind = match &x.kind {
        ExKind::Subscript(base, items) if items.len() == 1 && items[0].text == item => return (**base).clone(),
        ExKind::Bin(op, a, b) => ExKind::Bin(*op, Box::new(strip(a, item)), Box::new(strip(b, item))),
        ExKind::Unary(op, a) => ExKind::Unary(*op, Box::new(strip(a, item))),
        ExKind::Call { func, args, kwargs } => ExKind::Call {
            func: func.clone(),
            args: args.iter().map(|a| strip(a, item)).collect(),
            kwargs: kwargs.clone(),
        },
        other => other.clone(),
    };
    Ex { kind, span: x.span, text: x.text.clone() }
}

fn shape_of(v: &Val) -> Option<(Scalar, Vec<Expr>)> {
    match v {
        Val::Array(a) => Some((a.elem, a.shape.clone())),
        Val::Deferred(d) if !d.shape.is_empty() => Some((d.elem, d.shape.clone())),
        _ => None,
    }
}
