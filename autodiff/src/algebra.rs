//! Exact algebraic tidying of float expressions, run on the forward function and on the
//! adjoint (both sweeps) just before they are written out, so that the C reads like the
//! calculus on paper and compiles to cheap instructions:
//!
//! | written                       | becomes                | why it is exact                      |
//! |-------------------------------|------------------------|--------------------------------------|
//! | `pow(x, 2.0)`, `pow(x, 3.0)`, `pow(x, 4.0)` | `x * x`, `x * x * x`, `x * x * x * x` | one or a few roundings instead of libm's `pow` (same value as NumPy's `x**2`) |
//! | `pow(x, 1.0)`                 | `x`                    | identical                            |
//! | `pow(x, -1.0)`, `pow(x, -2.0)`, `pow(x, -3.0)` | `1.0 / x`, `1.0 / (x * x)`, `1.0 / (x * x * x)` | as above |
//! | `pow(x, 0.5)`                 | `sqrt(x)`              | what NumPy's `x ** 0.5` computes      |
//! | `pow(x, 1.5)`, ..., `pow(x, 4.5)` and their negatives | `x * sqrt(x)`, `1.0 / (x * x * sqrt(x))`, ... | a few roundings (the derivative of `x ** -0.5` is `-0.5 * x ** -1.5`) |
//! | `pow(x, -0.5)`                | `1.0 / sqrt(x)`        | as above                             |
//! | `a * -b`, `-a * b`            | `-(a * b)`             | rounding is symmetric in the sign    |
//! | `-a / b`, `a / -b`            | `-(a / b)`             | as above                             |
//! | `a + -b`, `a - -b`, `-a + b`  | `a - b`, `a + b`, `b - a` | IEEE: `a + (-b)` is `a - b`       |
//! | `-(-a)`                       | `a`                    | identical                            |
//! | `c * (1.0 / a)` (`c` a literal) | `c / a`             | one rounding fewer                   |
//! | `c1 * (c2 * a)`, `(c2 * a) * c1` | `(c1 * c2) * a`     | only when `c1` or `c2` is a power of two (the product of the constants is exact and so is the scaling) |
//! | `e + e`                       | `2.0 * e`, or `e` with its leading literal doubled (`2.0 * (0.5 / r * z)` is `1.0 / r * z`) | `e + e` is `2 e` exactly; a power of two scales a literal exactly |
//!
//! Integer powers are expanded only when the base is a variable, an array element or a
//! constant (reading it twice costs nothing); `pow(sin(u), 3.0)` stays a call rather than
//! evaluating `sin(u)` three times. `pow(e, 2.0)` of a compound `e` also stays: gcc turns it
//! into `e * e` itself. The rewrites with `sqrt` differ from `pow` at `-0.0` (`-0.0` instead
//! of `0.0`) and at `-inf` (NaN instead of `inf`), as NumPy's `x ** 0.5` does.
//! Everything else is left as the rules wrote it: no rewrite here changes a value by more
//! than the rounding of the operations it removes, and most change nothing at all.

use adjc_ir::proc::eq::strip;
use adjc_ir::{BinOp, Block, Expr, ExprKind, Function, Intrinsic, Literal, Scalar, StmtKind, UnOp};

/// `f` with every expression of its body tidied.
pub fn simplify_function(f: &Function) -> Function {
    let mut out = f.clone();
    simplify_block(&mut out.body);
    out
}

fn simplify_block(block: &mut Block) {
    for s in block.iter_mut() {
        match &mut s.kind {
            // `x_b += -(e)` is written `x_b -= e`: a sign at the top of an accumulated
            // value stays there.
            StmtKind::Accumulate { value, .. } => {
                *value = match simplify(value) {
                    Expr { kind: ExprKind::Unary(UnOp::Neg, a), ty, span } => {
                        Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(sink(*a))), ty, span)
                    }
                    e => sink(e),
                }
            }
            StmtKind::Assign { value, .. } | StmtKind::Push { value, .. } => *value = tidy(value),
            StmtKind::If { cond, .. } => *cond = tidy(cond),
            _ => {}
        }
        for b in s.blocks_mut() {
            simplify_block(b);
        }
    }
}

/// The tidied form of `e`: [`simplify`], then the signs no sum absorbed put back on the
/// leftmost factor (`-(c / b)` is written `-c / b`, as the source writes it).
pub fn tidy(e: &Expr) -> Expr {
    sink(simplify(e))
}

/// Bottom-up tidying, each node once its operands are tidied. Signs end up as high as a
/// sum can absorb them, or at the top of the expression.
pub fn simplify(e: &Expr) -> Expr {
    e.rewrite(&mut step)
}

/// Top-down: `-(a * b)` and `-(a / b)` become `-a * b` and `-a / b`, the sign on the
/// leftmost factor (`-2.0 * x` with a literal). Only the place of the sign changes.
fn sink(e: Expr) -> Expr {
    let (ty, span) = (e.ty, e.span);
    let kind = match e.kind {
        ExprKind::Unary(UnOp::Neg, a) if matches!(a.kind, ExprKind::Binary(BinOp::Mul | BinOp::Div, ..)) => {
            return sink(negate_leftmost(*a)).with_span(span);
        }
        ExprKind::Unary(op, a) => ExprKind::Unary(op, Box::new(sink(*a))),
        ExprKind::Cast(a) => ExprKind::Cast(Box::new(sink(*a))),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(op, Box::new(sink(*a)), Box::new(sink(*b))),
        ExprKind::Call(f, args) => ExprKind::Call(f, args.into_iter().map(sink).collect()),
        ExprKind::Select(c, a, b) => ExprKind::Select(Box::new(sink(*c)), Box::new(sink(*a)), Box::new(sink(*b))),
        kind => kind,
    };
    Expr::new(kind, ty, span)
}

fn negate_leftmost(e: Expr) -> Expr {
    let (ty, span) = (e.ty, e.span);
    match e.kind {
        ExprKind::Binary(op @ (BinOp::Mul | BinOp::Div), a, b) => {
            Expr::new(ExprKind::Binary(op, Box::new(negate_leftmost(*a)), b), ty, span)
        }
        kind => Expr::new(kind, ty, span).neg(),
    }
}

fn step(e: Expr) -> Expr {
    if !e.ty.is_float() {
        return e;
    }
    let ty = e.ty;
    let span = e.span;
    match e.kind {
        ExprKind::Call(Intrinsic::Pow, args) => power(args, ty).with_span(span),
        ExprKind::Unary(UnOp::Neg, a) => a.neg().with_span(span),
        ExprKind::Binary(op, a, b) => binary(op, *a, *b).with_span(span),
        kind => Expr::new(kind, ty, span),
    }
}

/// Whether reading `e` twice costs nothing: a variable, an element, a constant.
fn is_leaf(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Var(_) | ExprKind::Load(..) | ExprKind::Const(_))
}

fn power(args: Vec<Expr>, ty: Scalar) -> Expr {
    let call = |args: Vec<Expr>| Expr::call(Intrinsic::Pow, args, ty);
    let [x, k] = match <[Expr; 2]>::try_from(args) {
        Ok(a) => a,
        Err(args) => return call(args),
    };
    let one = || Expr::float(1.0, ty);
    let Some(p) = k.as_float().filter(|_| k.is_const()) else {
        return call(vec![x, k]);
    };
    let sqrt = |x: Expr| Expr::call(Intrinsic::Sqrt, vec![x], ty);
    match p {
        _ if p == 1.0 => x,
        _ if p == 0.5 => sqrt(x),
        _ if p == -0.5 => one().div(sqrt(x)),
        _ if p.fract() == 0.0 && (2.0..=4.0).contains(&p.abs()) && is_leaf(&x) => {
            let n = p.abs() as usize;
            let mut prod = x.clone();
            for _ in 1..n {
                prod = prod.mul(x.clone());
            }
            if p < 0.0 {
                one().div(prod)
            } else {
                prod
            }
        }
        // x ** 1.5 is x * sqrt(x), x ** -2.5 is 1.0 / (x * x * sqrt(x)) (what the rule of
        // x ** -0.5 and x ** 2.5 gives).
        _ if (p - 0.5).fract() == 0.0 && (1.5..=4.5).contains(&p.abs()) && is_leaf(&x) => {
            let n = (p.abs() - 0.5) as usize;
            let mut prod = x.clone();
            for _ in 1..n {
                prod = prod.mul(x.clone());
            }
            let prod = prod.mul(sqrt(x));
            if p < 0.0 {
                one().div(prod)
            } else {
                prod
            }
        }
        _ if p == -1.0 => one().div(x),
        _ => call(vec![x, k]),
    }
}

fn negated(e: &Expr) -> Option<&Expr> {
    match &e.kind {
        ExprKind::Unary(UnOp::Neg, a) => Some(a),
        _ => None,
    }
}

/// A float literal that is a power of two: multiplying by it only changes the exponent.
fn power_of_two(e: &Expr) -> Option<f64> {
    match e.kind {
        ExprKind::Const(Literal::Float(v)) if v.is_finite() && v != 0.0 => {
            let (m, _) = frexp(v.abs());
            (m == 0.5).then_some(v)
        }
        _ => None,
    }
}

/// The mantissa of `v` in `[0.5, 1)` and its exponent (`v` finite and positive).
fn frexp(v: f64) -> (f64, i32) {
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        // Subnormal: scale up first.
        let (m, e) = frexp(v * f64::powi(2.0, 64));
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (m, exp - 1022)
}

fn float_lit(e: &Expr) -> Option<f64> {
    match e.kind {
        ExprKind::Const(Literal::Float(v)) => Some(v),
        _ => None,
    }
}

/// `c * rest` when `e` is a product whose leftmost factor is a float literal.
fn leading_const(e: &Expr) -> Option<(f64, Expr)> {
    match &e.kind {
        ExprKind::Binary(BinOp::Mul, a, b) => {
            if let Some(c) = float_lit(a) {
                return Some((c, (**b).clone()));
            }
            let (c, rest) = leading_const(a)?;
            Some((c, raw(BinOp::Mul, rest, (**b).clone())))
        }
        _ => None,
    }
}

fn raw(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = a.ty;
    Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty, adjc_ir::Span::NONE)
}

/// `e` without its sign, and whether it had one: `-a` and the literal `-2.0`.
fn strip_sign(e: Expr) -> (Expr, bool) {
    match e.kind {
        ExprKind::Unary(UnOp::Neg, a) => (*a, true),
        ExprKind::Const(Literal::Float(v)) if v < 0.0 => (Expr::float(-v, e.ty), true),
        _ => (e, false),
    }
}

/// `a * b`, with `c1 * (c2 * x)` and `(c2 * x) * c1` merged into `(c1 * c2) * x` when `c1`
/// or `c2` is a power of two (then both forms round the same way).
fn product(a: Expr, b: Expr) -> Expr {
    let ty = a.ty;
    let merged = |c1: f64, c2: f64, rest: Expr| {
        let exact = power_of_two(&Expr::float(c1, ty)).is_some() || power_of_two(&Expr::float(c2, ty)).is_some();
        let c = c1 * c2;
        (exact && c.is_finite() && c != 0.0 && ty == Scalar::F64).then(|| Expr::float(c, ty).mul(rest))
    };
    // c * (1.0 / e) is c / e: the same division, one rounding fewer (`a * (1.0 / b)` with
    // a variable `a` stays: `1.0 / b` may be invariant in the loop, a division is not).
    if let (Some(_), ExprKind::Binary(BinOp::Div, one, den)) = (float_lit(&a), &b.kind) {
        if float_lit(one) == Some(1.0) {
            return a.div((**den).clone());
        }
    }
    if let (Some(c1), Some((c2, rest))) = (float_lit(&a), leading_const(&b)) {
        if let Some(e) = merged(c1, c2, rest) {
            return e;
        }
    }
    if let (Some(c1), Some((c2, rest))) = (float_lit(&b), leading_const(&a)) {
        if let Some(e) = merged(c1, c2, rest) {
            return e;
        }
    }
    a.mul(b)
}

/// `k * e` for a power of two `k`, written by scaling the leftmost literal factor of `e`
/// (`2.0 * (0.5 / r * z)` is `1.0 / r * z`): scaling by a power of two commutes with
/// rounding, so both forms give the same double (barring overflow and subnormals, which
/// the check below refuses for the literal). `None` when `e` has no such literal.
fn scaled_exactly(k: f64, e: &Expr) -> Option<Expr> {
    power_of_two(&Expr::float(k, e.ty))?;
    match &e.kind {
        ExprKind::Const(Literal::Float(v)) => {
            let c = k * v;
            (c.is_normal() && e.ty == Scalar::F64).then(|| Expr::float(c, e.ty))
        }
        ExprKind::Binary(op @ (BinOp::Mul | BinOp::Div), a, b) => {
            let a = scaled_exactly(k, a)?;
            Some(Expr::new(ExprKind::Binary(*op, Box::new(a), b.clone()), e.ty, e.span))
        }
        _ => None,
    }
}

fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    if a.ty != b.ty {
        return Expr::binary(op, a, b);
    }
    match op {
        BinOp::Mul | BinOp::Div => {
            // Signs (of negations and of negative literals) move out of products and
            // quotients, up to the sums that absorb them: `a + 2.0 * -b` is `a - 2.0 * b`.
            let (a, na) = strip_sign(a);
            let (b, nb) = strip_sign(b);
            let e = if op == BinOp::Mul { product(a, b) } else { Expr::binary(op, a, b) };
            if na != nb {
                e.neg()
            } else {
                e
            }
        }
        // `e + e` is `2.0 * e` exactly (the sum of one read summed twice, `z * z`'s
        // derivative), and the factor goes into a literal of `e` when it can.
        BinOp::Add if strip(&a) == strip(&b) => {
            let (e, neg) = strip_sign(a);
            let e = scaled_exactly(2.0, &e).unwrap_or_else(|| product(Expr::float(2.0, e.ty), e));
            if neg {
                e.neg()
            } else {
                e
            }
        }
        BinOp::Add => match (negated(&a).cloned(), negated(&b).cloned()) {
            (None, Some(y)) => Expr::binary(BinOp::Sub, a, y),
            (Some(x), None) => Expr::binary(BinOp::Sub, b, x),
            (Some(x), Some(y)) => Expr::binary(BinOp::Add, x, y).neg(),
            _ => Expr::binary(op, a, b),
        },
        BinOp::Sub => match negated(&b).cloned() {
            Some(y) => binary(BinOp::Add, a, y),
            None => Expr::binary(op, a, b),
        },
        _ => Expr::binary(op, a, b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjc_ir::{Span, Type, VarId, VarRole};

    fn func() -> (Function, Expr, Expr) {
        let mut f = Function::empty("t", Span::NONE);
        let x = f.add_var("x", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        let y = f.add_var("y", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        (f, Expr::var(x, Scalar::F64), Expr::var(y, Scalar::F64))
    }

    fn c(v: f64) -> Expr {
        Expr::float(v, Scalar::F64)
    }

    fn pow(x: &Expr, k: f64) -> Expr {
        Expr::call(Intrinsic::Pow, vec![x.clone(), c(k)], Scalar::F64)
    }

    fn show(f: &Function, e: &Expr) -> String {
        adjc_ir::print::expr_str(f, &simplify(e))
    }

    #[test]
    fn integer_powers_of_leaves_are_products() {
        let (f, x, y) = func();
        assert_eq!(show(&f, &pow(&x, 2.0)), "x * x");
        assert_eq!(show(&f, &pow(&x, 3.0)), "x * x * x");
        assert_eq!(show(&f, &pow(&x, 4.0)), "x * x * x * x");
        assert_eq!(show(&f, &pow(&x, 1.0)), "x");
        assert_eq!(show(&f, &pow(&x, -1.0)), "1.0 / x");
        assert_eq!(show(&f, &pow(&x, -2.0)), "1.0 / (x * x)");
        assert_eq!(show(&f, &pow(&x, -3.0)), "1.0 / (x * x * x)");
        assert_eq!(show(&f, &pow(&x, 0.5)), "sqrt(x)");
        assert_eq!(show(&f, &pow(&x, -0.5)), "1.0 / sqrt(x)");
        // Not integers, too large, or of a compound base: pow stays.
        assert_eq!(show(&f, &pow(&x, 1.5)), "x * sqrt(x)");
        assert_eq!(show(&f, &pow(&x, -2.5)), "1.0 / (x * x * sqrt(x))");
        assert_eq!(show(&f, &pow(&x, 2.25)), "pow(x, 2.25)");
        assert_eq!(show(&f, &pow(&x, 5.5)), "pow(x, 5.5)");
        assert_eq!(show(&f, &pow(&x, 5.0)), "pow(x, 5.0)");
        let s = Expr::call(Intrinsic::Sin, vec![x.clone()], Scalar::F64);
        assert_eq!(show(&f, &pow(&s, 3.0)), "pow(sin(x), 3.0)");
        // A variable exponent is never touched.
        assert_eq!(show(&f, &Expr::call(Intrinsic::Pow, vec![x.clone(), y.clone()], Scalar::F64)), "pow(x, y)");
        // Nested: the derivative of x**3 is 3 * x**2.
        assert_eq!(show(&f, &c(3.0).mul(pow(&x, 2.0))), "3.0 * (x * x)");
        assert_eq!(show(&f, &c(2.0).mul(pow(&x, -3.0))), "2.0 / (x * x * x)");
        assert_eq!(show(&f, &c(0.5).mul(pow(&x, -0.5))), "0.5 / sqrt(x)");
        assert_eq!(show(&f, &y.clone().mul(pow(&x, -1.0))), "y * (1.0 / x)");
    }

    #[test]
    fn signs_move_to_sums() {
        let (f, x, y) = func();
        let s = Expr::call(Intrinsic::Sin, vec![y.clone()], Scalar::F64);
        // cos(x) * -sin(y) + x  →  x - cos(x) * sin(y)
        let e = Expr::call(Intrinsic::Cos, vec![x.clone()], Scalar::F64).mul(s.clone().neg()).add(x.clone());
        assert_eq!(show(&f, &e), "x - cos(x) * sin(y)");
        // x - 2 * (-y / s) * 0.5  →  x + y / sin(y)
        let e = x.clone().sub(c(2.0).mul(y.clone().neg().div(s.clone())).mul(c(0.5)));
        assert_eq!(show(&f, &e), "x + y / sin(y)");
        // (-x) * (-y) is x * y; -(-x) is x.
        let e = raw(BinOp::Mul, x.clone().neg(), y.clone().neg());
        assert_eq!(show(&f, &e), "x * y");
        let e = Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(x.clone().neg())), Scalar::F64, Span::NONE);
        assert_eq!(show(&f, &e), "x");
        // -x + y  →  y - x
        let e = raw(BinOp::Add, x.clone().neg(), y.clone());
        assert_eq!(show(&f, &e), "y - x");
        // A negative literal factor's sign moves out too, into the sum above it.
        assert_eq!(show(&f, &y.clone().add(c(-2.0).mul(x.clone()))), "y - 2.0 * x");
        assert_eq!(show(&f, &raw(BinOp::Add, x.clone().neg(), c(1.0))), "1.0 - x");
    }

    #[test]
    fn unabsorbed_signs_go_back_to_the_leftmost_factor() {
        let (f, x, y) = func();
        let t = |e: &Expr| adjc_ir::print::expr_str(&f, &tidy(e));
        // The source's `-c / b` and `-2.0 * x` read as written.
        assert_eq!(t(&raw(BinOp::Div, x.clone().neg(), y.clone())), "-x / y");
        assert_eq!(t(&raw(BinOp::Mul, c(-2.0), x.clone())), "-2.0 * x");
        assert_eq!(t(&raw(BinOp::Mul, x.clone(), c(-2.0))), "-x * 2.0");
        let e = Expr::call(Intrinsic::Exp, vec![raw(BinOp::Mul, x.clone(), y.clone().neg())], Scalar::F64);
        assert_eq!(t(&e), "exp(-x * y)");
    }

    #[test]
    fn constants_merge_only_when_exact() {
        let (f, x, y) = func();
        // 0.5 * (2.0 * x * y): 0.5 is a power of two.
        let e = raw(BinOp::Mul, c(0.5), raw(BinOp::Mul, raw(BinOp::Mul, c(2.0), x.clone()), y.clone()));
        assert_eq!(show(&f, &e), "x * y");
        let e = raw(BinOp::Mul, raw(BinOp::Mul, c(3.0), x.clone()), c(0.25));
        assert_eq!(show(&f, &e), "0.75 * x");
        // 0.1 * (3.0 * x): neither is a power of two, the rounding would change.
        let e = raw(BinOp::Mul, c(0.1), raw(BinOp::Mul, c(3.0), x.clone()));
        assert_eq!(show(&f, &e), "0.1 * (3.0 * x)");
    }

    #[test]
    fn a_sum_of_equal_terms_is_doubled_exactly() {
        let (f, x, y) = func();
        let half_over = raw(BinOp::Mul, raw(BinOp::Div, c(0.5), y.clone()), x.clone());
        assert_eq!(show(&f, &raw(BinOp::Add, half_over.clone(), half_over)), "1.0 / y * x");
        let sin = Expr::call(Intrinsic::Sin, vec![x.clone()], Scalar::F64);
        assert_eq!(show(&f, &raw(BinOp::Add, sin.clone(), sin)), "2.0 * sin(x)");
        // The sign stays outside, for the sum above to absorb it.
        let e = y.clone().sub(raw(BinOp::Add, x.clone().neg().mul(y.clone()), x.clone().neg().mul(y.clone())));
        assert_eq!(show(&f, &e), "y + 2.0 * (x * y)");
        // 0.1 * x doubled: 0.2 * x rounds like 2 * (0.1 * x).
        let tenth = raw(BinOp::Mul, c(0.1), x.clone());
        assert_eq!(show(&f, &raw(BinOp::Add, tenth.clone(), tenth)), "0.2 * x");
        assert_eq!(0.1f64 * 2.0, 0.2);
    }

    #[test]
    fn powers_of_two() {
        for v in [1.0, 2.0, 0.5, 0.25, -4.0, 1024.0, f64::MIN_POSITIVE, f64::MIN_POSITIVE / 8.0] {
            assert!(power_of_two(&c(v)).is_some(), "{v}");
        }
        for v in [0.0, 3.0, 0.1, 1.5, f64::INFINITY, f64::NAN] {
            assert!(power_of_two(&c(v)).is_none(), "{v}");
        }
        let _ = VarId(0);
    }
}
