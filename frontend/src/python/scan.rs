//! Running sums and products (`np.cumsum`, `np.cumprod`, also as methods) as the
//! recurrence they are: `c[0] = x[0]; for i in 1..n: c[i] = c[i - 1] op x[i]`, one
//! sequential loop over the scanned axis inside a map over the other axes.
//!
//! Reversal turns the loop into the reversed recurrence (`c_b[i - 1] += c_b[i]` for a sum,
//! `c_b[i - 1] += c_b[i] * x[i]` and `x_b[i] += c_b[i] * c[i - 1]` for a product): linear
//! in `n`, never the O(n²) Jacobian of the closed form. The product's adjoint reads the
//! previous partial product instead of dividing by `x[i]`, so it is exact when `x` has
//! zeros.

use super::ast::*;
use super::calls::kwarg;
use super::lower::{Lowerer, R};
use super::ops::{self, SVal};
use super::value::*;
use crate::sym::canon;
use adjc_ir::*;

impl Lowerer<'_> {
    /// `np.cumsum(x, axis=None)` / `np.cumprod(x, axis=None)` (`axis=None` scans the
    /// flattened array).
    pub fn scan(&mut self, prod: bool, e: &Ex, x: &Ex, axis_ex: Option<&Ex>, kwargs: &[(String, Ex)]) -> R<Val> {
        if let Some(d) = kwarg(kwargs, "dtype") {
            return Err(self.err(d.span, format!("the `dtype=` argument of `{}` is not supported", e.text)));
        }
        let v = self.eval(x)?;
        if let Val::Scalar(_) = v {
            return Err(self.err(x.span, format!("`{}` of a scalar is not supported", e.text)));
        }
        let mut arr = self.array_of(v, x)?;
        let axis = match axis_ex {
            Some(ax) if !matches!(ax.kind, ExKind::NoneLit) => self.const_axis(ax, arr.rank())?,
            _ => {
                if arr.rank() > 1 {
                    let flat = self.reshape(arr, vec![None], e)?;
                    arr = self.array_of(flat, e)?;
                }
                0
            }
        };
        let n = arr.shape[axis].clone();
        let what = format!("`{}` scans at least one element", e.text);
        if !self.require_le(&Expr::int(1), &n, e.span, what) {
            return Err(self.err(e.span, format!("`{}` of an empty axis is not supported", e.text)));
        }
        let elem = if arr.elem.is_float() { arr.elem } else { Scalar::I64 };
        let (shape, bounds) = (arr.shape.clone(), arr.bounds.clone());
        Ok(Val::Deferred(Box::new(Deferred {
            op: DefOp::Scan { prod, arg: arr, axis },
            elem,
            shape,
            bounds,
            text: e.text.clone(),
        })))
    }

    /// The recurrence into `dest` (same shape as `arg`, not read by `arg`).
    pub fn scan_into(&mut self, dest: &Arr, prod: bool, arg: &Arr, axis: usize) -> R<()> {
        let span = self.span;
        let rank = dest.rank();
        let elem = dest.elem;
        let drop = |v: &[Expr]| -> Vec<Expr> {
            v.iter().enumerate().filter(|(d, _)| *d != axis).map(|(_, x)| x.clone()).collect()
        };
        // The other axes, for the map.
        let outer = Arr {
            tmpl: subst_ph(&dest.tmpl, &|d| match d.cmp(&axis) {
                std::cmp::Ordering::Less => ph_expr(d),
                std::cmp::Ordering::Equal => Expr::int(0),
                std::cmp::Ordering::Greater => ph_expr(d - 1),
            }),
            shape: drop(&dest.shape),
            bounds: drop(&dest.bounds),
            ..dest.clone()
        };
        let (dims, oidx) = self.map_dims(&outer);
        let name = self.index_name();
        let iv = self.add_index(name);
        self.pop_names(rank);
        let at = |i: Expr| {
            let mut v = oidx.clone();
            v.insert(axis, i);
            v
        };
        let i = Expr::var(iv, Scalar::I64);
        let first = self.place_of(dest, &at(Expr::int(0)))?;
        let cur = self.place_of(dest, &at(i.clone()))?;
        let x0 = ops::cast(SVal::strong(arg.at(&at(Expr::int(0)))), elem).e;
        let xi = ops::cast(SVal::strong(arg.at(&at(i.clone()))), elem).e;
        let before = dest.at(&at(canon(&i.sub(Expr::int(1)))));
        let value = if prod { before.mul(xi) } else { before.add(xi) };
        let stop = canon(crate::sym::unclamp(&arg.shape[axis]));
        let step = Stmt::new(StmtKind::Assign { target: cur, value }, span);
        let lp = Loop { id: LoopId::NEW, var: iv, start: Expr::int(1), stop, step: Expr::int(1), body: vec![step] };
        let body =
            vec![Stmt::new(StmtKind::Assign { target: first, value: x0 }, span), Stmt::new(StmtKind::Loop(lp), span)];
        if dims.is_empty() {
            for s in body {
                self.emit(s);
            }
        } else {
            self.emit_kind(StmtKind::Map(Map { id: MapId::NEW, dims, body }));
        }
        Ok(())
    }
}
