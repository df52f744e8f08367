//! The table of scalar derivative rules: for every differentiable operation, the partial
//! derivative with respect to each operand, written as an IR expression over the operands
//! (Tangent style: what you would write on paper). Nothing else in the crate knows a
//! derivative; [`crate::deriv`] chains these rules through an expression tree.
//!
//! | operation       | ∂/∂a                              | ∂/∂b                    |
//! |-----------------|-----------------------------------|-------------------------|
//! | `a + b`         | `1`                               | `1`                     |
//! | `a - b`         | `1`                               | `-1`                    |
//! | `a * b`         | `b`                               | `a`                     |
//! | `a / b`         | `1 / b`                           | `-a / (b * b)`          |
//! | `-a`            | `-1`                              |                         |
//! | `exp(a)`        | `exp(a)`                          |                         |
//! | `log(a)`        | `1 / a`                           |                         |
//! | `sin(a)`        | `cos(a)`                          |                         |
//! | `cos(a)`        | `-sin(a)`                         |                         |
//! | `tan(a)`        | `1 / (cos(a) * cos(a))`           |                         |
//! | `tanh(a)`       | `1 - tanh(a) * tanh(a)`           |                         |
//! | `sinh(a)`       | `cosh(a)`                         |                         |
//! | `cosh(a)`       | `sinh(a)`                         |                         |
//! | `arcsin(a)`     | `1 / sqrt(1 - a * a)`             |                         |
//! | `arccos(a)`     | `-1 / sqrt(1 - a * a)`            |                         |
//! | `arctan(a)`     | `1 / (1 + a * a)`                 |                         |
//! | `arctan2(a, b)` | `b / (b * b + a * a)`             | `-a / (b * b + a * a)`  |
//! | `sqrt(a)`       | `0.5 / sqrt(a)`                   |                         |
//! | `abs(a)`        | `a < 0 ? -1 : 1`                  |                         |
//! | `pow(a, b)`     | `b * pow(a, b - 1)`               | `log(a) * pow(a, b)`    |
//! | `max(a, b)`     | `a >= b ? 1 : 0`                  | `a >= b ? 0 : 1`        |
//! | `max(a, c)`     | `a > c ? 1 : 0` (`c` constant: ReLU) |                      |
//! | `min(a, b)`     | `a <= b ? 1 : 0`                  | `a <= b ? 0 : 1`        |
//! | `min(a, c)`     | `a < c ? 1 : 0` (`c` constant)    |                         |
//! | `sign(a, b)`    | `(b >= 0 ? 1 : -1) * (a < 0 ? -1 : 1)` | `0`                |
//! | `floor`, `ceil` | `0`                               |                         |
//!
//! Conventions at non-differentiable points: `abs'(0) = 1`; `max`/`min` give the whole
//! derivative to the first argument on ties (the IR's tie rule: the first argument is the
//! result), except against a constant: `np.maximum(x, 0)` is a ReLU, whose mask an expert
//! writes as `x > 0` (derivative 0 at the kink, as in the DL frameworks; `np.maximum(0, x)`
//! gives the same mask through the second column); `sign` is treated as `|a|·sign(b)` with
//! `|a|'` as for `abs`.

use crate::util::call;
use adjc_ir::{BinOp, Expr, Intrinsic, Scalar, UnOp};

fn c(v: f64, ty: Scalar) -> Expr {
    Expr::float(v, ty)
}

fn sq(x: &Expr) -> Expr {
    x.clone().mul(x.clone())
}

fn f1(f: Intrinsic, x: &Expr) -> Expr {
    call(f, vec![x.clone()])
}

fn cmp(op: BinOp, a: &Expr, b: &Expr) -> Expr {
    Expr::binary(op, a.clone(), b.clone())
}

/// `cond ? x : y` for float constants `x`, `y`.
fn pick(cond: Expr, x: f64, y: f64, ty: Scalar) -> Expr {
    Expr::select(cond, c(x, ty), c(y, ty))
}

/// Partial derivatives of `a op b` with respect to `a` and `b`; `None` when the operation
/// has no derivative (integer and boolean operations).
pub(crate) fn binary(op: BinOp, a: &Expr, b: &Expr) -> Option<[Expr; 2]> {
    let ty = a.ty;
    if !ty.is_float() {
        return None;
    }
    Some(match op {
        BinOp::Add => [c(1.0, ty), c(1.0, ty)],
        BinOp::Sub => [c(1.0, ty), c(-1.0, ty)],
        BinOp::Mul => [b.clone(), a.clone()],
        BinOp::Div => [c(1.0, ty).div(b.clone()), a.clone().neg().div(sq(b))],
        _ => return None,
    })
}

/// Derivative of a unary operation.
pub(crate) fn unary(op: UnOp, a: &Expr) -> Option<Expr> {
    match op {
        UnOp::Neg if a.ty.is_float() => Some(c(-1.0, a.ty)),
        _ => None,
    }
}

/// Partial derivative of `f(args)` with respect to each argument; `None` means zero.
pub(crate) fn intrinsic(f: Intrinsic, args: &[Expr]) -> Vec<Option<Expr>> {
    let (Some(a), ty) = (args.first(), args.first().map(|a| a.ty).unwrap_or(Scalar::F64)) else {
        return Vec::new();
    };
    if !ty.is_float() || args.len() != f.arity() {
        return vec![None; args.len()];
    }
    let b = args.get(1).unwrap_or(a);
    let one = c(1.0, ty);
    use Intrinsic::*;
    match f {
        Exp => vec![Some(f1(Exp, a))],
        Log => vec![Some(one.div(a.clone()))],
        Sin => vec![Some(f1(Cos, a))],
        Cos => vec![Some(f1(Sin, a).neg())],
        Tan => vec![Some(one.div(sq(&f1(Cos, a))))],
        Tanh => vec![Some(one.sub(sq(&f1(Tanh, a))))],
        Sinh => vec![Some(f1(Cosh, a))],
        Cosh => vec![Some(f1(Sinh, a))],
        Arcsin => vec![Some(one.clone().div(f1(Sqrt, &one.sub(sq(a)))))],
        Arccos => vec![Some(c(-1.0, ty).div(f1(Sqrt, &one.sub(sq(a)))))],
        Arctan => vec![Some(one.clone().div(one.add(sq(a))))],
        Arctan2 => {
            // atan2(a, b) = atan(a / b): ∂/∂a = b / (a² + b²), ∂/∂b = -a / (a² + b²).
            let r2 = sq(b).add(sq(a));
            vec![Some(b.clone().div(r2.clone())), Some(a.clone().neg().div(r2))]
        }
        Sqrt => vec![Some(c(0.5, ty).div(f1(Sqrt, a)))],
        Abs => vec![Some(pick(cmp(BinOp::Lt, a, &c(0.0, ty)), -1.0, 1.0, ty))],
        Pow => vec![Some(pow_base(a, b)), Some(f1(Log, a).mul(call(Pow, vec![a.clone(), b.clone()])))],
        // Against a constant only `a` is differentiated: the strict mask (ReLU).
        Max if b.is_const() => vec![Some(pick(cmp(BinOp::Gt, a, b), 1.0, 0.0, ty)), None],
        Min if b.is_const() => vec![Some(pick(cmp(BinOp::Lt, a, b), 1.0, 0.0, ty)), None],
        Max => {
            let first = cmp(BinOp::Ge, a, b);
            vec![Some(pick(first.clone(), 1.0, 0.0, ty)), Some(pick(first, 0.0, 1.0, ty))]
        }
        Min => {
            let first = cmp(BinOp::Le, a, b);
            vec![Some(pick(first.clone(), 1.0, 0.0, ty)), Some(pick(first, 0.0, 1.0, ty))]
        }
        Sign => {
            let sb = pick(cmp(BinOp::Ge, b, &c(0.0, ty)), 1.0, -1.0, ty);
            let sa = pick(cmp(BinOp::Lt, a, &c(0.0, ty)), -1.0, 1.0, ty);
            vec![Some(sb.mul(sa)), None]
        }
        Floor | Ceil => vec![None],
    }
}

/// `∂ pow(a, b) / ∂a = b * pow(a, b - 1)`, folded for constant exponents (`x**2` → `2 * x`).
fn pow_base(a: &Expr, b: &Expr) -> Expr {
    let ty = a.ty;
    match b.as_float() {
        Some(k) if b.is_const() => {
            if k == 1.0 {
                c(1.0, ty)
            } else if k == 2.0 {
                c(2.0, ty).mul(a.clone())
            } else {
                c(k, ty).mul(call(Intrinsic::Pow, vec![a.clone(), c(k - 1.0, ty)]))
            }
        }
        _ => b.clone().mul(call(Intrinsic::Pow, vec![a.clone(), b.clone().sub(c(1.0, ty))])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjc_ir::{Function, Span, Type, VarId, VarRole};

    fn func() -> (Function, Expr, Expr) {
        let mut f = Function::empty("t", Span::NONE);
        let x = f.add_var("x", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        let y = f.add_var("y", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        (f, Expr::var(x, Scalar::F64), Expr::var(y, Scalar::F64))
    }

    fn show(f: &Function, e: &Expr) -> String {
        adjc_ir::print::expr_str(f, e)
    }

    #[test]
    fn table_reads_like_calculus() {
        let (f, x, y) = func();
        let [da, db] = binary(BinOp::Div, &x, &y).unwrap();
        assert_eq!(show(&f, &da), "1.0 / y");
        assert_eq!(show(&f, &db), "-x / (y * y)");
        let d = intrinsic(Intrinsic::Tanh, std::slice::from_ref(&x));
        assert_eq!(show(&f, d[0].as_ref().unwrap()), "1.0 - tanh(x) * tanh(x)");
        let d = intrinsic(Intrinsic::Pow, &[x.clone(), Expr::float(2.0, Scalar::F64)]);
        assert_eq!(show(&f, d[0].as_ref().unwrap()), "2.0 * x");
        let d = intrinsic(Intrinsic::Max, &[x.clone(), y.clone()]);
        assert_eq!(show(&f, d[0].as_ref().unwrap()), "select(x >= y, 1.0, 0.0)");
        let relu = intrinsic(Intrinsic::Max, &[x.clone(), Expr::float(0.0, Scalar::F64)]);
        assert_eq!(show(&f, relu[0].as_ref().unwrap()), "select(x > 0.0, 1.0, 0.0)");
        assert!(relu[1].is_none());
        let relu = intrinsic(Intrinsic::Max, &[Expr::float(0.0, Scalar::F64), y.clone()]);
        assert_eq!(show(&f, relu[1].as_ref().unwrap()), "select(0.0 >= y, 0.0, 1.0)");
        assert!(intrinsic(Intrinsic::Floor, std::slice::from_ref(&x))[0].is_none());
        assert!(binary(BinOp::Add, &Expr::int(1), &Expr::int(2)).is_none());
        let _ = VarId(0);
    }

    #[test]
    fn f32_constants_keep_their_type() {
        let x = Expr::var(VarId(0), Scalar::F32);
        let d = intrinsic(Intrinsic::Sqrt, &[x]);
        assert_eq!(d[0].as_ref().unwrap().ty, Scalar::F32);
    }
}
