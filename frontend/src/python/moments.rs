//! `np.std` and `np.var` (functions and methods): the mean is computed first (kept
//! dimensions, so it broadcasts back), then the mean of squared deviations, as NumPy does
//! (two passes, not `E[x²] - E[x]²`, which cancels badly).

use super::ast::*;
use super::lower::{Lowerer, R};
use super::ops::{self, SVal};
use super::value::*;
use adjc_ir::*;

impl Lowerer<'_> {
    pub fn moment(
        &mut self,
        std: bool,
        v: Val,
        axis: Option<&Ex>,
        keep: Option<&Ex>,
        ddof: Option<&Ex>,
        e: &Ex,
    ) -> R<Val> {
        let ddof = match ddof {
            None => 0,
            Some(d) => {
                let dv = self.eval(d)?;
                match dv {
                    Val::Scalar(sv) if sv.e.as_int().is_some() => sv.e.as_int().unwrap_or(0),
                    _ => return Err(self.err(d.span, "`ddof` must be an integer constant")),
                }
            }
        };
        let arr = match v {
            Val::Scalar(sv) => {
                let t = if sv.ty().is_float() { sv.ty() } else { Scalar::F64 };
                return Ok(Val::Scalar(SVal::strong(Expr::float(0.0, t))));
            }
            other => self.array_of(other, e)?,
        };
        let axes = self.reduce_axes(&arr, axis)?;
        let count = axes.iter().fold(Expr::int(1), |acc, a| acc.mul(arr.shape[*a].clone()));
        let count = crate::sym::canon(&count.sub(Expr::int(ddof)));
        let keep_true = Ex { kind: ExKind::Bool(true), span: e.span, text: "True".into() };
        let mean = self.reduce(RedOp::Mean, Val::Array(arr.clone()), axis, Some(&keep_true), e)?;
        let sq = self.lift(vec![Val::Array(arr), mean], &[e, e], e, &|v| {
            let d = ops::arith(BinOpAst::Sub, v[0].clone(), v[1].clone())?;
            ops::arith(BinOpAst::Mul, d.clone(), d)
        })?;
        let sum = self.reduce(RedOp::Sum, sq, axis, keep, e)?;
        let n = SVal::weak(count.cast(Scalar::F64));
        let var = self
            .lift(vec![sum, Val::Scalar(n)], &[e, e], e, &|v| ops::arith(BinOpAst::Div, v[0].clone(), v[1].clone()))?;
        if std {
            self.lift(vec![var], &[e], e, &|v| Ok(ops::intrinsic(Intrinsic::Sqrt, vec![v[0].clone()])))
        } else {
            Ok(var)
        }
    }
}
