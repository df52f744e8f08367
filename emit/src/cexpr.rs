//! C expressions with the fewest parentheses that keep the IR's evaluation order.
//!
//! Operands are parenthesised only when C precedence requires it, except that right
//! operands of a left-associative operator keep theirs (`a - (b - c)`, and `a + (b + c)`
//! since float addition is not associative), and where `-Wall` would complain
//! (`a && b || c`, comparisons of comparisons). Negations are folded into the operator
//! around them (`a - -b` is written `a + b`, `x += -y` is `x -= y`): IEEE negation is
//! exact, so the value is unchanged.

use crate::ctx::FnCtx;
use crate::layout::Access;
use adjc_ir::{BinOp, Expr, ExprKind, Intrinsic, Layout, Literal, Scalar, Type, UnOp, VarId};
use std::collections::BTreeSet;

pub(crate) const P_COND: u8 = 3;
pub(crate) const P_OR: u8 = 4;
pub(crate) const P_AND: u8 = 5;
pub(crate) const P_EQ: u8 = 9;
pub(crate) const P_REL: u8 = 10;
pub(crate) const P_ADD: u8 = 12;
pub(crate) const P_MUL: u8 = 13;
pub(crate) const P_UNARY: u8 = 15;
pub(crate) const P_PRIMARY: u8 = 16;

/// The C type of a scalar.
pub fn c_type(s: Scalar) -> &'static str {
    match s {
        Scalar::F64 => "double",
        Scalar::F32 => "float",
        Scalar::I64 => "int64_t",
        Scalar::Bool => "bool",
    }
}

/// The zero of a scalar type, used to initialise locals.
pub fn zero(s: Scalar) -> &'static str {
    match s {
        Scalar::F64 => "0.0",
        Scalar::F32 => "0.0f",
        Scalar::I64 => "0",
        Scalar::Bool => "false",
    }
}

/// A float literal of type `ty` that reads back as exactly the IR's value (rounded to
/// `float` for `f32`). Non-finite values use `INFINITY` / `NAN` from `math.h`.
pub fn float_literal(v: f64, ty: Scalar) -> String {
    let (text, finite) = if ty == Scalar::F32 {
        let x = v as f32;
        (format!("{:?}", x.abs()), x.is_finite())
    } else {
        (format!("{:?}", v.abs()), v.is_finite())
    };
    let body = if v.is_nan() {
        return "NAN".into();
    } else if !finite {
        "INFINITY".to_string()
    } else if ty == Scalar::F32 {
        format!("{text}f")
    } else {
        text
    };
    if v.is_sign_negative() {
        format!("-{body}")
    } else {
        body
    }
}

/// An `int64_t` literal. `INT64_MIN` has no literal form in C.
pub fn int_literal(v: i64) -> String {
    if v == i64::MIN {
        "INT64_MIN".into()
    } else {
        v.to_string()
    }
}

/// `e` as a complete C expression (for an assignment, an argument, an index).
pub(crate) fn expr(cx: &FnCtx, e: &Expr) -> String {
    expr_min(cx, e, 0)
}

/// `e`, parenthesised if its precedence is below `min`.
pub(crate) fn expr_min(cx: &FnCtx, e: &Expr, min: u8) -> String {
    let (s, p) = render(cx, e);
    wrap(s, p, min)
}

fn wrap(s: String, p: u8, min: u8) -> String {
    if p < min {
        format!("({s})")
    } else {
        s
    }
}

/// If `e` is a negation (`-x` or a negative literal), the thing negated.
pub(crate) fn negated(e: &Expr) -> Option<Expr> {
    match &e.kind {
        ExprKind::Unary(UnOp::Neg, inner) => Some((**inner).clone()),
        ExprKind::Const(Literal::Int(v)) if *v < 0 && *v != i64::MIN => {
            Some(Expr { kind: ExprKind::Const(Literal::Int(-v)), ..*e })
        }
        ExprKind::Const(Literal::Float(v)) if v.is_sign_negative() && !v.is_nan() => {
            Some(Expr { kind: ExprKind::Const(Literal::Float(-v)), ..*e })
        }
        _ => None,
    }
}

fn render(cx: &FnCtx, e: &Expr) -> (String, u8) {
    match &e.kind {
        ExprKind::Const(lit) => literal(*lit, e.ty),
        ExprKind::Var(v) => {
            let name = cx.name(*v);
            match cx.access(*v) {
                Access::Pointer => (format!("(*{name})"), P_PRIMARY),
                _ => (name.to_string(), P_PRIMARY),
            }
        }
        ExprKind::Load(v, idx) => (element(cx, *v, idx), P_PRIMARY),
        ExprKind::Unary(UnOp::Neg, a) => {
            if let Some(inner) = negated(a) {
                return render(cx, &inner);
            }
            (format!("-{}", expr_min(cx, a, P_UNARY)), P_UNARY)
        }
        ExprKind::Unary(UnOp::Not, a) => {
            if let ExprKind::Unary(UnOp::Not, inner) = &a.kind {
                return render(cx, inner);
            }
            (format!("!{}", expr_min(cx, a, P_UNARY)), P_UNARY)
        }
        ExprKind::Binary(op, a, b) => binary(cx, *op, a, b),
        ExprKind::Call(f, args) => {
            let args: Vec<String> = args.iter().map(|a| expr(cx, a)).collect();
            (format!("{}({})", intrinsic_name(*f, e.ty), args.join(", ")), P_PRIMARY)
        }
        ExprKind::Select(c, a, b) => {
            let s = format!(
                "{} ? {} : {}",
                expr_min(cx, c, P_EQ),
                expr_min(cx, a, P_COND + 1),
                expr_min(cx, b, P_COND + 1)
            );
            (s, P_COND)
        }
        ExprKind::Cast(a) => {
            if a.ty == e.ty {
                return render(cx, a);
            }
            (format!("({}){}", c_type(e.ty), expr_min(cx, a, P_PRIMARY)), P_UNARY)
        }
    }
}

fn literal(lit: Literal, ty: Scalar) -> (String, u8) {
    let s = match lit {
        Literal::Bool(b) => return (if b { "true" } else { "false" }.into(), P_PRIMARY),
        Literal::Int(v) => int_literal(v),
        Literal::Float(v) => float_literal(v, ty),
    };
    let p = if s.starts_with('-') { P_UNARY } else { P_PRIMARY };
    (s, p)
}

fn binary(cx: &FnCtx, op: BinOp, a: &Expr, b: &Expr) -> (String, u8) {
    if matches!(op, BinOp::Add | BinOp::Sub) {
        if let Some(pos) = negated(b) {
            let flipped = if op == BinOp::Add { BinOp::Sub } else { BinOp::Add };
            return binary(cx, flipped, a, &pos);
        }
    }
    match op {
        BinOp::FloorDiv | BinOp::Mod => {
            let f = if op == BinOp::FloorDiv { "adjc_floordiv" } else { "adjc_mod" };
            (format!("{f}({}, {})", expr(cx, a), expr(cx, b)), P_PRIMARY)
        }
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
            let p = if matches!(op, BinOp::Add | BinOp::Sub) { P_ADD } else { P_MUL };
            let mut left = expr_min(cx, a, p);
            // Two unfolded integer literals would be computed in `int` by C.
            if a.as_int().is_some() && b.as_int().is_some() && a.ty == Scalar::I64 {
                left = format!("(int64_t){}", expr_min(cx, a, P_PRIMARY));
            }
            (format!("{left} {} {}", op.symbol(), expr_min(cx, b, p + 1)), p)
        }
        _ if op.is_comparison() => {
            let p = if matches!(op, BinOp::Eq | BinOp::Ne) { P_EQ } else { P_REL };
            let side = |x: &Expr, min: u8| {
                // `a < b == c` and `!a == b` draw -Wparentheses / -Wlogical-not-parentheses.
                let boolish = matches!(&x.kind, ExprKind::Binary(o, _, _) if o.is_comparison() || o.is_logical())
                    || matches!(&x.kind, ExprKind::Unary(UnOp::Not, _));
                if boolish {
                    expr_min(cx, x, P_PRIMARY)
                } else {
                    expr_min(cx, x, min)
                }
            };
            (format!("{} {} {}", side(a, p), op.symbol(), side(b, p + 1)), p)
        }
        _ => {
            let p = if op == BinOp::And { P_AND } else { P_OR };
            let side = |x: &Expr, min: u8| {
                let and_in_or = op == BinOp::Or && matches!(&x.kind, ExprKind::Binary(BinOp::And, _, _));
                expr_min(cx, x, if and_in_or { P_PRIMARY } else { min })
            };
            (format!("{} {} {}", side(a, p), op.symbol(), side(b, p + 1)), p)
        }
    }
}

/// The C function computing an intrinsic on operands of type `ty`.
pub fn intrinsic_name(f: Intrinsic, ty: Scalar) -> String {
    if ty == Scalar::I64 {
        let name = match f {
            Intrinsic::Abs => "adjc_abs_i64",
            Intrinsic::Max => "adjc_max_i64",
            Intrinsic::Min => "adjc_min_i64",
            // The validator only lets abs/max/min take integers.
            _ => return intrinsic_name(f, Scalar::F64),
        };
        return name.into();
    }
    let base = match f {
        Intrinsic::Exp => "exp",
        Intrinsic::Log => "log",
        Intrinsic::Sin => "sin",
        Intrinsic::Cos => "cos",
        Intrinsic::Tan => "tan",
        Intrinsic::Tanh => "tanh",
        Intrinsic::Sinh => "sinh",
        Intrinsic::Cosh => "cosh",
        Intrinsic::Arcsin => "asin",
        Intrinsic::Arccos => "acos",
        Intrinsic::Arctan => "atan",
        Intrinsic::Arctan2 => "atan2",
        Intrinsic::Sqrt => "sqrt",
        Intrinsic::Abs => "fabs",
        Intrinsic::Pow => "pow",
        Intrinsic::Max => "adjc_fmax",
        Intrinsic::Min => "adjc_fmin",
        // copysign takes the magnitude of its first argument: Fortran's sign(a, b).
        Intrinsic::Sign => "copysign",
        Intrinsic::Floor => "floor",
        Intrinsic::Ceil => "ceil",
    };
    if ty == Scalar::F32 {
        format!("{base}f")
    } else {
        base.into()
    }
}

/// One element of array `v` at source indices `idx`.
pub(crate) fn element(cx: &FnCtx, v: VarId, idx: &[Expr]) -> String {
    let name = cx.name(v);
    let args: Vec<String> = idx.iter().map(|e| expr(cx, e)).collect();
    match cx.access(v) {
        Access::Macro(m) => format!("{m}({})", args.join(", ")),
        // A rank-0 array (one element) has no index.
        _ if args.is_empty() => format!("{name}[0]"),
        _ => format!("{name}[{}]", args.join(", ")),
    }
}

/// `#define A_(i, j) A[(i) * M + (j)]` for an array accessed through a macro.
pub(crate) fn macro_definition(cx: &FnCtx, v: VarId) -> Option<(String, String)> {
    let Access::Macro(mname) = cx.access(v) else { return None };
    let var = cx.f.var(v);
    let Type::Array { dims, layout, .. } = &var.ty else { return None };
    if dims.is_empty() {
        return None;
    }
    let params = macro_params(cx, dims.iter().flat_map(|d| [&d.lower, &d.extent]), dims.len());
    let term = |k: usize| -> (String, bool) {
        let p = format!("({})", params[k]);
        match dims[k].lower.as_int() {
            Some(0) => (p, true),
            Some(c) if c < 0 && c != i64::MIN => (format!("{p} + {}", -c), false),
            _ => (format!("{p} - {}", expr_min(cx, &dims[k].lower, P_ADD + 1)), false),
        }
    };
    let order: Vec<usize> = match layout {
        Layout::RowMajor => (0..dims.len()).collect(),
        Layout::ColMajor => (0..dims.len()).rev().collect(),
    };
    let (mut acc, mut primary) = term(order[0]);
    for &k in &order[1..] {
        let scaled = if primary { acc } else { format!("({acc})") };
        let (t, _) = term(k);
        // A unit axis (`keepdims`) scales nothing: `(i) + (j)`, not `(i) * 1 + (j)`.
        acc = match dims[k].extent.as_int() {
            Some(1) => format!("{scaled} + {t}"),
            _ => format!("{scaled} * {} + {t}", expr_min(cx, &dims[k].extent, P_MUL + 1)),
        };
        primary = false;
    }
    let name = cx.name(v);
    Some((mname.clone(), format!("#define {mname}({}) {name}[{acc}]", params.join(", "))))
}

/// Parameter names for an index macro that cannot capture a name used in its body.
fn macro_params<'e>(cx: &FnCtx, exprs: impl Iterator<Item = &'e Expr>, rank: usize) -> Vec<String> {
    let mut mentioned = BTreeSet::new();
    for e in exprs {
        for v in e.vars() {
            mentioned.insert(cx.names.get(v).to_string());
        }
    }
    let candidates: [Vec<String>; 2] = [
        ["i", "j", "k", "l", "m", "n"].iter().take(rank).map(|s| s.to_string()).collect(),
        (0..rank).map(|k| format!("i{k}")).collect(),
    ];
    for c in candidates {
        if c.len() == rank && c.iter().all(|p| !mentioned.contains(p)) {
            return c;
        }
    }
    // Names under the runtime's reserved prefix cannot be variable names.
    (0..rank).map(|k| format!("adjc_i{k}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names;
    use adjc_ir::{Dim, Function, Intent, Layout, Param, Span, Type, VarId, VarRole};

    struct T {
        f: Function,
    }

    const X: VarId = VarId(0);
    const Y: VarId = VarId(1);
    const K: VarId = VarId(2);
    const N: VarId = VarId(3);
    const A: VarId = VarId(4);
    const B: VarId = VarId(5);
    const R: VarId = VarId(6);
    const F: VarId = VarId(7);
    const FLAG: VarId = VarId(8);
    const INT: VarId = VarId(9);

    fn t() -> T {
        let mut f = Function::empty("k", Span::NONE);
        let sc = |s| Type::Scalar(s);
        f.add_var("x", sc(Scalar::F64), VarRole::Local, Span::NONE);
        f.add_var("y", sc(Scalar::F64), VarRole::Local, Span::NONE);
        f.add_var("k", sc(Scalar::I64), VarRole::Local, Span::NONE);
        f.add_var("N", sc(Scalar::I64), VarRole::Size, Span::NONE);
        let n = Expr::var(N, Scalar::I64);
        let arr = |dims: Vec<Dim>, layout| Type::Array { elem: Scalar::F64, dims, layout };
        f.add_var("A", arr(vec![Dim::zero_based(n.clone())], Layout::RowMajor), VarRole::Param, Span::NONE);
        f.add_var(
            "B",
            arr(
                vec![Dim { lower: Expr::int(1), extent: n.clone() }, Dim::zero_based(n.clone().sub(Expr::int(2)))],
                Layout::ColMajor,
            ),
            VarRole::Param,
            Span::NONE,
        );
        f.add_var("ret", sc(Scalar::F64), VarRole::Return, Span::NONE);
        f.add_var("f", sc(Scalar::F32), VarRole::Local, Span::NONE);
        f.add_var("flag", sc(Scalar::Bool), VarRole::Local, Span::NONE);
        f.add_var("int", sc(Scalar::F64), VarRole::Local, Span::NONE);
        f.params = vec![
            Param { var: N, intent: Intent::In, doc: String::new() },
            Param { var: A, intent: Intent::In, doc: String::new() },
            Param { var: B, intent: Intent::InOut, doc: String::new() },
            Param { var: R, intent: Intent::Out, doc: String::new() },
        ];
        T { f }
    }

    fn show(e: &Expr) -> String {
        let t = t();
        let names = names::assign(&t.f);
        let cx = FnCtx::new(&t.f, &names);
        expr(&cx, e)
    }

    fn x() -> Expr {
        Expr::var(X, Scalar::F64)
    }
    fn y() -> Expr {
        Expr::var(Y, Scalar::F64)
    }
    fn k() -> Expr {
        Expr::var(K, Scalar::I64)
    }
    fn raw(op: BinOp, a: Expr, b: Expr) -> Expr {
        let ty = if op.is_comparison() || op.is_logical() { Scalar::Bool } else { a.ty };
        Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty, Span::NONE)
    }
    fn neg(a: Expr) -> Expr {
        let ty = a.ty;
        Expr::new(ExprKind::Unary(UnOp::Neg, Box::new(a)), ty, Span::NONE)
    }
    fn not(a: Expr) -> Expr {
        Expr::new(ExprKind::Unary(UnOp::Not, Box::new(a)), Scalar::Bool, Span::NONE)
    }

    #[test]
    fn parenthesises_only_where_needed() {
        assert_eq!(show(&raw(BinOp::Mul, raw(BinOp::Add, x(), y()), x())), "(x + y) * x");
        assert_eq!(show(&raw(BinOp::Add, raw(BinOp::Mul, x(), y()), x())), "x * y + x");
        assert_eq!(show(&raw(BinOp::Add, raw(BinOp::Add, x(), y()), x())), "x + y + x");
        // Float addition is not associative: the grouping of the IR is kept.
        assert_eq!(show(&raw(BinOp::Add, x(), raw(BinOp::Add, y(), x()))), "x + (y + x)");
        assert_eq!(show(&raw(BinOp::Sub, x(), raw(BinOp::Sub, y(), x()))), "x - (y - x)");
        assert_eq!(show(&raw(BinOp::Div, x(), raw(BinOp::Mul, y(), x()))), "x / (y * x)");
        assert_eq!(show(&neg(raw(BinOp::Add, x(), y()))), "-(x + y)");
        assert_eq!(show(&raw(BinOp::Mul, x(), neg(y()))), "x * -y");
    }

    #[test]
    fn folds_negations_into_the_operator() {
        assert_eq!(show(&raw(BinOp::Sub, x(), neg(y()))), "x + y");
        assert_eq!(show(&raw(BinOp::Add, x(), neg(y()))), "x - y");
        assert_eq!(show(&raw(BinOp::Sub, k(), Expr::int(-1))), "k + 1");
        assert_eq!(show(&raw(BinOp::Add, x(), Expr::float(-2.5, Scalar::F64))), "x - 2.5");
        assert_eq!(show(&neg(neg(x()))), "x");
        assert_eq!(show(&neg(Expr::float(-1.0, Scalar::F64))), "1.0");
        assert_eq!(show(&not(not(Expr::var(FLAG, Scalar::Bool)))), "flag");
    }

    #[test]
    fn literals_round_trip_and_are_typed() {
        assert_eq!(float_literal(0.33333, Scalar::F64), "0.33333");
        assert_eq!(float_literal(1.0, Scalar::F64), "1.0");
        assert_eq!(float_literal(0.1, Scalar::F64), "0.1");
        assert_eq!(float_literal(1e-300, Scalar::F64), "1e-300");
        assert_eq!(float_literal(2.5, Scalar::F32), "2.5f");
        assert_eq!(float_literal(0.1, Scalar::F32), "0.1f");
        assert_eq!(float_literal(-0.0, Scalar::F64), "-0.0");
        assert_eq!(float_literal(f64::INFINITY, Scalar::F64), "INFINITY");
        assert_eq!(float_literal(f64::NEG_INFINITY, Scalar::F32), "-INFINITY");
        assert_eq!(float_literal(1e300, Scalar::F32), "INFINITY");
        assert_eq!(float_literal(f64::NAN, Scalar::F64), "NAN");
        assert_eq!(int_literal(i64::MIN), "INT64_MIN");
        for v in [0.1, 1.0 / 3.0, 6.02214076e23, 5e-324, 123456.789e10] {
            assert_eq!(float_literal(v, Scalar::F64).parse::<f64>().unwrap(), v);
        }
        let third = (1.0f64 / 3.0) as f32;
        let text = float_literal(1.0 / 3.0, Scalar::F32);
        assert_eq!(text.trim_end_matches('f').parse::<f32>().unwrap(), third);
    }

    #[test]
    fn intrinsics_by_type() {
        let f = Expr::var(F, Scalar::F32);
        assert_eq!(show(&Expr::call(Intrinsic::Exp, vec![x()], Scalar::F64)), "exp(x)");
        assert_eq!(show(&Expr::call(Intrinsic::Exp, vec![f.clone()], Scalar::F32)), "expf(f)");
        assert_eq!(show(&Expr::call(Intrinsic::Abs, vec![f.clone()], Scalar::F32)), "fabsf(f)");
        assert_eq!(show(&Expr::call(Intrinsic::Abs, vec![k()], Scalar::I64)), "adjc_abs_i64(k)");
        assert_eq!(show(&Expr::call(Intrinsic::Max, vec![k(), Expr::int(0)], Scalar::I64)), "adjc_max_i64(k, 0)");
        assert_eq!(show(&Expr::call(Intrinsic::Arctan2, vec![x(), y()], Scalar::F64)), "atan2(x, y)");
        assert_eq!(show(&Expr::call(Intrinsic::Sign, vec![x(), y()], Scalar::F64)), "copysign(x, y)");
        assert_eq!(
            show(&Expr::call(Intrinsic::Pow, vec![f.clone(), Expr::float(2.0, Scalar::F32)], Scalar::F32)),
            "powf(f, 2.0f)"
        );
        assert_eq!(show(&Expr::call(Intrinsic::Min, vec![x(), y()], Scalar::F64)), "adjc_fmin(x, y)");
        assert_eq!(show(&raw(BinOp::FloorDiv, k(), Expr::int(2))), "adjc_floordiv(k, 2)");
        assert_eq!(show(&raw(BinOp::Mod, raw(BinOp::Add, k(), Expr::int(1)), Expr::int(3))), "adjc_mod(k + 1, 3)");
    }

    #[test]
    fn casts_selects_and_logic() {
        assert_eq!(show(&k().cast(Scalar::F64)), "(double)k");
        assert_eq!(show(&raw(BinOp::Add, k(), Expr::int(1)).cast(Scalar::F64)), "(double)(k + 1)");
        assert_eq!(show(&x().cast(Scalar::F32)), "(float)x");
        let c = raw(BinOp::Gt, x(), Expr::float(0.0, Scalar::F64));
        let sel = Expr::select(c.clone(), x(), y());
        assert_eq!(show(&sel), "x > 0.0 ? x : y");
        assert_eq!(show(&raw(BinOp::Mul, sel.clone(), y())), "(x > 0.0 ? x : y) * y");
        let fl = Expr::var(FLAG, Scalar::Bool);
        // `a && b || c` and `a < b == c` warn under -Wall: parenthesised.
        assert_eq!(
            show(&raw(BinOp::Or, raw(BinOp::And, fl.clone(), c.clone()), fl.clone())),
            "(flag && x > 0.0) || flag"
        );
        assert_eq!(show(&raw(BinOp::Eq, c.clone(), fl.clone())), "(x > 0.0) == flag");
        assert_eq!(show(&raw(BinOp::Eq, not(fl.clone()), fl.clone())), "(!flag) == flag");
        assert_eq!(show(&not(c)), "!(x > 0.0)");
        // Unfolded integer literals are computed in int64_t, not int.
        assert_eq!(show(&raw(BinOp::Mul, Expr::int(100000), Expr::int(100000))), "(int64_t)100000 * 100000");
    }

    #[test]
    fn places_pointers_and_index_macros() {
        assert_eq!(show(&Expr::var(R, Scalar::F64)), "(*ret)");
        assert_eq!(show(&raw(BinOp::Mul, Expr::var(R, Scalar::F64), x())), "(*ret) * x");
        assert_eq!(show(&Expr::load(A, vec![k().sub(Expr::int(1))], Scalar::F64)), "A[k - 1]");
        assert_eq!(show(&Expr::load(B, vec![k(), Expr::int(0)], Scalar::F64)), "B_(k, 0)");
        assert_eq!(show(&Expr::var(INT, Scalar::F64)), "int_");
        let t = t();
        let names = names::assign(&t.f);
        let cx = FnCtx::new(&t.f, &names);
        let (name, def) = macro_definition(&cx, B).unwrap();
        assert_eq!(name, "B_");
        // Column-major with a lower bound of 1 on the first axis.
        assert_eq!(def, "#define B_(i, j) B[(j) * N + (i) - 1]");
        assert_eq!(macro_definition(&cx, A), None);
    }
}
