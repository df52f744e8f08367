//! Scalar typing of Python/NumPy operators: promotion with NumPy 2 (NEP 50) "weak"
//! Python scalars, casts, and the element-level expression for each operator. Array
//! operations apply the same functions to element templates.

use super::ast::{BinOpAst, CmpOp};
use adjc_ir::{BinOp, Expr, ExprKind, Intrinsic, Scalar, UnOp};

/// A scalar value (or an array element template). `weak` marks Python numbers (literals,
/// Python `int`/`float` parameters): they adopt the type of a NumPy operand of the same
/// kind, so `x32 * 2.0` stays `float32`.
#[derive(Clone, Debug, PartialEq)]
pub struct SVal {
    pub e: Expr,
    pub weak: bool,
}

impl SVal {
    pub fn strong(e: Expr) -> SVal {
        SVal { e, weak: false }
    }
    pub fn weak(e: Expr) -> SVal {
        SVal { e, weak: true }
    }
    pub fn ty(&self) -> Scalar {
        self.e.ty
    }
}

fn kind(s: Scalar) -> u8 {
    match s {
        Scalar::Bool => 0,
        Scalar::I64 => 1,
        Scalar::F32 | Scalar::F64 => 2,
    }
}

/// The common type of two operands (NEP 50).
pub fn promote(a: &SVal, b: &SVal) -> (Scalar, bool) {
    let (ta, tb) = (a.ty(), b.ty());
    if a.weak == b.weak {
        return (ta.max(tb), a.weak);
    }
    let (w, s) = if a.weak { (ta, tb) } else { (tb, ta) };
    let t = if kind(w) <= kind(s) {
        s
    } else if kind(w) == 2 {
        Scalar::F64
    } else {
        w.max(s)
    };
    (t, false)
}

pub fn cast(v: SVal, ty: Scalar) -> SVal {
    if v.ty() == ty {
        return v;
    }
    let span = v.e.span;
    SVal { e: v.e.cast(ty).with_span(span), weak: v.weak }
}

fn float_of(t: Scalar) -> Scalar {
    if t.is_float() {
        t
    } else {
        Scalar::F64
    }
}

pub fn arith(op: BinOpAst, a: SVal, b: SVal) -> Result<SVal, String> {
    let (mut t, weak) = promote(&a, &b);
    match op {
        BinOpAst::BitAnd | BinOpAst::BitOr | BinOpAst::BitXor => {
            if a.ty() != Scalar::Bool || b.ty() != Scalar::Bool {
                return Err(format!("`{}` is only supported on booleans", op.symbol()));
            }
            let e = match op {
                BinOpAst::BitAnd => Expr::binary(BinOp::And, a.e, b.e),
                BinOpAst::BitOr => Expr::binary(BinOp::Or, a.e, b.e),
                _ => Expr::binary(BinOp::Ne, a.e, b.e),
            };
            return Ok(SVal { e, weak });
        }
        BinOpAst::MatMul => return Err("`@` needs arrays".into()),
        _ => {}
    }
    if t == Scalar::Bool {
        t = Scalar::I64;
    }
    let e = match op {
        BinOpAst::Add => cast(a, t).e.add(cast(b, t).e),
        BinOpAst::Sub => cast(a, t).e.sub(cast(b, t).e),
        BinOpAst::Mul => cast(a, t).e.mul(cast(b, t).e),
        BinOpAst::Div => {
            let ft = float_of(t);
            cast(a, ft).e.div(cast(b, ft).e)
        }
        BinOpAst::FloorDiv => {
            if t == Scalar::I64 {
                Expr::binary(BinOp::FloorDiv, cast(a, t).e, cast(b, t).e)
            } else {
                Expr::call(Intrinsic::Floor, vec![cast(a, t).e.div(cast(b, t).e)], t)
            }
        }
        BinOpAst::Mod => {
            if t == Scalar::I64 {
                Expr::binary(BinOp::Mod, cast(a, t).e, cast(b, t).e)
            } else {
                let (x, y) = (cast(a, t).e, cast(b, t).e);
                let q = Expr::call(Intrinsic::Floor, vec![x.clone().div(y.clone())], t);
                x.sub(q.mul(y))
            }
        }
        BinOpAst::Pow => return pow(a, b),
        _ => unreachable_op(op)?,
    };
    Ok(SVal { e, weak })
}

fn unreachable_op(op: BinOpAst) -> Result<Expr, String> {
    Err(format!("the operator `{}` is not supported here", op.symbol()))
}

fn pow(a: SVal, b: SVal) -> Result<SVal, String> {
    let (t, weak) = promote(&a, &b);
    if !t.is_float() {
        // Integer powers: only small non-negative literal exponents (multiplied out).
        return match b.e.as_int() {
            Some(k) if (0..=8).contains(&k) => {
                let base = cast(a, Scalar::I64).e;
                let mut e = Expr::int(1);
                for _ in 0..k {
                    e = e.mul(base.clone());
                }
                Ok(SVal { e, weak })
            }
            _ => Err("integer powers need a small non-negative literal exponent".into()),
        };
    }
    let base = cast(a, t).e;
    let exp = cast(b, t).e;
    Ok(SVal { e: Expr::call(Intrinsic::Pow, vec![base, exp], t), weak })
}

pub fn compare(op: CmpOp, a: SVal, b: SVal) -> SVal {
    let (t, weak) = promote(&a, &b);
    let bop = match op {
        CmpOp::Lt => BinOp::Lt,
        CmpOp::Le => BinOp::Le,
        CmpOp::Gt => BinOp::Gt,
        CmpOp::Ge => BinOp::Ge,
        CmpOp::Eq => BinOp::Eq,
        CmpOp::Ne => BinOp::Ne,
    };
    SVal { e: Expr::binary(bop, cast(a, t).e, cast(b, t).e), weak }
}

pub fn neg(a: SVal) -> SVal {
    let a = if a.ty() == Scalar::Bool { cast(a, Scalar::I64) } else { a };
    SVal { e: a.e.neg(), weak: a.weak }
}

pub fn truth(a: SVal) -> SVal {
    match a.ty() {
        Scalar::Bool => a,
        Scalar::I64 => SVal { e: Expr::binary(BinOp::Ne, a.e, Expr::int(0)), weak: a.weak },
        t => SVal { e: Expr::binary(BinOp::Ne, a.e, Expr::float(0.0, t)), weak: a.weak },
    }
}

pub fn not(a: SVal) -> SVal {
    let a = truth(a);
    let span = a.e.span;
    SVal { e: Expr::new(ExprKind::Unary(UnOp::Not, Box::new(a.e)), Scalar::Bool, span), weak: a.weak }
}

pub fn logical(and: bool, a: SVal, b: SVal) -> SVal {
    let weak = a.weak && b.weak;
    let op = if and { BinOp::And } else { BinOp::Or };
    SVal { e: Expr::binary(op, truth(a).e, truth(b).e), weak }
}

/// An intrinsic applied to scalars: float intrinsics cast integer arguments to `float64`
/// (as NumPy ufuncs do); `abs`, `max`, `min` keep integers.
pub fn intrinsic(f: Intrinsic, args: Vec<SVal>) -> SVal {
    let (mut t, mut weak) = (args[0].ty(), args[0].weak);
    for a in &args[1..] {
        let (t2, w2) = promote(&SVal { e: Expr::int(0).cast(t), weak }, a);
        t = t2;
        weak = w2;
    }
    if t == Scalar::Bool || (!t.is_float() && !f.accepts_int()) {
        t = float_of(if t == Scalar::Bool { Scalar::I64 } else { t });
    }
    let args = args.into_iter().map(|a| cast(a, t).e).collect();
    SVal { e: Expr::call(f, args, t), weak }
}

pub fn select(c: SVal, a: SVal, b: SVal) -> SVal {
    let (t, weak) = promote(&a, &b);
    SVal { e: Expr::select(truth(c).e, cast(a, t).e, cast(b, t).e), weak }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strong(t: Scalar) -> SVal {
        SVal::strong(Expr::var(adjc_ir::VarId(0), t))
    }

    #[test]
    fn python_scalars_are_weak() {
        assert_eq!(promote(&strong(Scalar::F32), &SVal::weak(Expr::float(2.0, Scalar::F64))).0, Scalar::F32);
        assert_eq!(promote(&strong(Scalar::I64), &SVal::weak(Expr::float(2.0, Scalar::F64))).0, Scalar::F64);
        assert_eq!(promote(&strong(Scalar::F32), &strong(Scalar::F64)).0, Scalar::F64);
        assert_eq!(promote(&SVal::weak(Expr::int(1)), &SVal::weak(Expr::float(2.0, Scalar::F64))).0, Scalar::F64);
    }

    #[test]
    fn int_division_is_true_division() {
        let r = arith(BinOpAst::Div, SVal::weak(Expr::int(1)), SVal::weak(Expr::int(2))).unwrap();
        assert_eq!(r.ty(), Scalar::F64);
        // Constant folding (if the IR does it) must give 0.5, not C's integer 0.
        assert!(r.e.as_float().is_none_or(|v| v == 0.5), "{:?}", r.e);
    }
}
