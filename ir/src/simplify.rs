//! Local algebraic simplification used by every stage when it builds expressions, so that
//! generated code reads `i + 1` rather than `(i + 0) + 1` and adjoints lose their `* 1.0`.

use crate::{BinOp, Expr, ExprKind, Literal, Scalar, Span, UnOp};

fn lit_int(e: &Expr) -> Option<i64> {
    e.as_int()
}

fn lit_float(e: &Expr) -> Option<f64> {
    match e.kind {
        ExprKind::Const(Literal::Float(v)) => Some(v),
        _ => None,
    }
}

fn is_zero(e: &Expr) -> bool {
    lit_int(e) == Some(0) || lit_float(e) == Some(0.0)
}

fn is_one(e: &Expr) -> bool {
    lit_int(e) == Some(1) || lit_float(e) == Some(1.0)
}

fn span_of(a: &Expr, b: &Expr) -> Span {
    if a.span.is_none() {
        b.span
    } else {
        a.span
    }
}

/// At most 8 significant digits in the shortest decimal that reads back as `v`.
fn short_decimal(v: f64) -> bool {
    let text = format!("{v:e}");
    let mantissa = text.split('e').next().unwrap_or("");
    mantissa.chars().filter(|c| c.is_ascii_digit()).count() <= 8
}

pub(crate) fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    let span = span_of(&lhs, &rhs);
    let ty = if op.is_comparison() || op.is_logical() { Scalar::Bool } else { lhs.ty };
    // Integer constant folding.
    if let (Some(a), Some(b)) = (lit_int(&lhs), lit_int(&rhs)) {
        let folded = match op {
            BinOp::Add => a.checked_add(b),
            BinOp::Sub => a.checked_sub(b),
            BinOp::Mul => a.checked_mul(b),
            BinOp::FloorDiv if b != 0 => Some(a.div_euclid(b) - if (a.rem_euclid(b) != 0) && b < 0 { 1 } else { 0 }),
            _ => None,
        };
        if let Some(v) = folded {
            return Expr::new(ExprKind::Const(Literal::Int(v)), Scalar::I64, span);
        }
    }
    // Float constant folding: IEEE arithmetic on two literals gives the value the C
    // compiler would fold to, so `1.0 / 2.0` reads as `0.5` without changing results. Only
    // when the result is a short decimal: `1.0 / 9.0` stays an exact fraction for the
    // reader instead of `0.1111111111111111` (the C compiler folds it to the same value).
    if let (Some(a), Some(b)) = (lit_float(&lhs), lit_float(&rhs)) {
        if lhs.ty == rhs.ty && lhs.ty == Scalar::F64 {
            let folded = match op {
                BinOp::Add => Some(a + b),
                BinOp::Sub => Some(a - b),
                BinOp::Mul => Some(a * b),
                BinOp::Div if b != 0.0 => Some(a / b),
                _ => None,
            };
            if let Some(v) = folded.filter(|v| v.is_finite() && short_decimal(*v)) {
                return Expr::new(ExprKind::Const(Literal::Float(v)), lhs.ty, span);
            }
        }
    }
    match op {
        BinOp::Add => {
            if is_zero(&rhs) {
                return lhs;
            }
            if is_zero(&lhs) && lhs.ty == rhs.ty {
                return rhs;
            }
            // (x + c1) + c2 -> x + (c1 + c2) for integers: keeps index arithmetic tidy.
            if let (Some(c2), ExprKind::Binary(BinOp::Add | BinOp::Sub, _, _)) = (lit_int(&rhs), &lhs.kind) {
                if let ExprKind::Binary(inner, x, c1) = lhs.kind.clone() {
                    if let Some(c1) = lit_int(&c1) {
                        let c = if inner == BinOp::Add { c1 + c2 } else { c2 - c1 };
                        return offset(*x, c, span);
                    }
                }
            }
            if let Some(c) = lit_int(&rhs) {
                if c < 0 {
                    return raw(BinOp::Sub, lhs, Expr::int(-c), ty, span);
                }
            }
            if let ExprKind::Unary(UnOp::Neg, inner) = &rhs.kind {
                return raw(BinOp::Sub, lhs, (**inner).clone(), ty, span);
            }
        }
        BinOp::Sub => {
            if is_zero(&rhs) {
                return lhs;
            }
            if let Some(c2) = lit_int(&rhs) {
                if let ExprKind::Binary(BinOp::Add | BinOp::Sub, _, _) = &lhs.kind {
                    return binary(BinOp::Add, lhs, Expr::int(-c2));
                }
                if c2 < 0 {
                    return raw(BinOp::Add, lhs, Expr::int(-c2), ty, span);
                }
            }
            if lhs == rhs && lhs.ty == Scalar::I64 {
                return Expr::int(0);
            }
            if is_zero(&lhs) {
                return neg(rhs);
            }
        }
        BinOp::Mul => {
            if is_one(&rhs) {
                return lhs;
            }
            if is_one(&lhs) && lhs.ty == rhs.ty {
                return rhs;
            }
            if ty == Scalar::I64 && (is_zero(&lhs) || is_zero(&rhs)) {
                return Expr::int(0);
            }
            if let Some(v) = lit_float(&rhs) {
                if v == -1.0 {
                    return neg(lhs);
                }
            }
        }
        BinOp::Div => {
            if is_one(&rhs) {
                return lhs;
            }
        }
        _ => {}
    }
    raw(op, lhs, rhs, ty, span)
}

fn offset(x: Expr, c: i64, span: Span) -> Expr {
    if c == 0 {
        x
    } else if c > 0 {
        raw(BinOp::Add, x, Expr::int(c), Scalar::I64, span)
    } else {
        raw(BinOp::Sub, x, Expr::int(-c), Scalar::I64, span)
    }
}

fn raw(op: BinOp, lhs: Expr, rhs: Expr, ty: Scalar, span: Span) -> Expr {
    Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), ty, span)
}

pub(crate) fn neg(e: Expr) -> Expr {
    match e.kind {
        ExprKind::Const(Literal::Int(v)) => Expr::new(ExprKind::Const(Literal::Int(-v)), e.ty, e.span),
        ExprKind::Const(Literal::Float(v)) => Expr::new(ExprKind::Const(Literal::Float(-v)), e.ty, e.span),
        ExprKind::Unary(UnOp::Neg, inner) => *inner,
        _ => {
            let (ty, span) = (e.ty, e.span);
            Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(e)), ty, span)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::VarId;

    #[test]
    fn folds_floats_to_short_decimals_only() {
        let f = |v: f64| Expr::float(v, Scalar::F64);
        let half = binary(BinOp::Div, f(1.0), f(2.0));
        assert_eq!(half.kind, ExprKind::Const(Literal::Float(0.5)));
        let ninth = binary(BinOp::Div, f(1.0), f(9.0));
        assert!(matches!(ninth.kind, ExprKind::Binary(BinOp::Div, _, _)), "{ninth:?}");
        let sum = binary(BinOp::Add, f(0.1), f(0.2));
        assert!(matches!(sum.kind, ExprKind::Binary(BinOp::Add, _, _)), "0.30000000000000004 is no short decimal");
        assert_eq!(binary(BinOp::Mul, f(2.0), f(0.01)).kind, ExprKind::Const(Literal::Float(0.02)));
    }

    #[test]
    fn folds_index_offsets() {
        let i = Expr::var(VarId(0), Scalar::I64);
        let e = i.clone().add(Expr::int(1)).sub(Expr::int(1));
        assert_eq!(e, i);
        let e = i.clone().add(Expr::int(-2));
        assert!(matches!(e.kind, ExprKind::Binary(BinOp::Sub, _, _)));
        assert_eq!(Expr::int(3).mul(Expr::int(4)).as_int(), Some(12));
    }

    #[test]
    fn drops_float_identities() {
        let x = Expr::var(VarId(1), Scalar::F64);
        assert_eq!(x.clone().mul(Expr::float(1.0, Scalar::F64)), x);
        assert_eq!(x.clone().add(Expr::float(0.0, Scalar::F64)), x);
        // x * 0.0 is not folded for floats: NaN and inf must propagate as in the source.
        assert_ne!(x.clone().mul(Expr::float(0.0, Scalar::F64)), Expr::float(0.0, Scalar::F64));
    }
}
