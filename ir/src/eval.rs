//! Evaluation of integer expressions (extents, bounds) for concrete sizes: used by tools
//! that need numbers, such as the gradient-check driver and the tape-size report.

use crate::{BinOp, Expr, ExprKind, Intrinsic, Literal, UnOp, VarId};

/// Evaluates an `i64` expression; `env` gives the value of each variable. `None` when a
/// variable is unknown, the expression is not integer-valued, or arithmetic overflows.
pub fn eval_int(e: &Expr, env: &dyn Fn(VarId) -> Option<i64>) -> Option<i64> {
    match &e.kind {
        ExprKind::Const(Literal::Int(v)) => Some(*v),
        ExprKind::Const(Literal::Bool(b)) => Some(*b as i64),
        ExprKind::Const(Literal::Float(_)) => None,
        ExprKind::Var(v) => env(*v),
        ExprKind::Unary(UnOp::Neg, a) => eval_int(a, env)?.checked_neg(),
        ExprKind::Unary(UnOp::Not, a) => Some((eval_int(a, env)? == 0) as i64),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (eval_int(a, env)?, eval_int(b, env)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                BinOp::Div => a.checked_div(b),
                BinOp::FloorDiv => {
                    let q = a.checked_div(b)?;
                    Some(if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q })
                }
                BinOp::Mod => {
                    let r = a.checked_rem(b)?;
                    Some(if r != 0 && ((r < 0) != (b < 0)) { r + b } else { r })
                }
                BinOp::Lt => Some((a < b) as i64),
                BinOp::Le => Some((a <= b) as i64),
                BinOp::Gt => Some((a > b) as i64),
                BinOp::Ge => Some((a >= b) as i64),
                BinOp::Eq => Some((a == b) as i64),
                BinOp::Ne => Some((a != b) as i64),
                BinOp::And => Some((a != 0 && b != 0) as i64),
                BinOp::Or => Some((a != 0 || b != 0) as i64),
            }
        }
        ExprKind::Call(Intrinsic::Max, args) if args.len() == 2 => {
            Some(eval_int(&args[0], env)?.max(eval_int(&args[1], env)?))
        }
        ExprKind::Call(Intrinsic::Min, args) if args.len() == 2 => {
            Some(eval_int(&args[0], env)?.min(eval_int(&args[1], env)?))
        }
        ExprKind::Call(Intrinsic::Abs, args) if args.len() == 1 => eval_int(&args[0], env)?.checked_abs(),
        ExprKind::Select(c, a, b) => {
            if eval_int(c, env)? != 0 {
                eval_int(a, env)
            } else {
                eval_int(b, env)
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scalar;

    #[test]
    fn python_floor_division_and_modulo() {
        let env = |_| None;
        let fd = |a: i64, b: i64| eval_int(&Expr::binary(BinOp::FloorDiv, Expr::int(a), Expr::int(b)), &env);
        assert_eq!(fd(-7, 2), Some(-4));
        assert_eq!(fd(7, 2), Some(3));
        let md = Expr::binary(BinOp::Mod, Expr::int(-7), Expr::int(3));
        assert_eq!(eval_int(&md, &env), Some(2));
        let n = Expr::var(VarId(0), Scalar::I64).sub(Expr::int(2));
        assert_eq!(eval_int(&n, &|v| (v == VarId(0)).then_some(10)), Some(8));
    }
}
