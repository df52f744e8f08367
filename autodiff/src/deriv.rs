//! Differentiation of one scalar expression: the partial derivative of the expression with
//! respect to every active place it reads, obtained by chaining the rules of
//! [`crate::rules`] from the root down (reverse mode on the expression tree).

use crate::rules;
use crate::util::{same_index, zero};
use adjc_ir::{BinOp, Expr, ExprKind, Intrinsic, Literal, UnOp, VarId};

/// `∂e/∂(var[index])`: one entry per distinct place read by the expression.
#[derive(Clone, Debug)]
pub(crate) struct Partial {
    pub var: VarId,
    pub index: Vec<Expr>,
    pub d: Expr,
}

/// The partial derivatives of `e` with respect to the active places it reads, in order of
/// first appearance. Reads of the same place are summed (`A[i] * A[i]` gives one entry
/// `A[i] + A[i]`).
pub(crate) fn partials(e: &Expr, active: &dyn Fn(VarId) -> bool) -> Vec<Partial> {
    let mut raw = Vec::new();
    prop(e, None, active, &mut raw);
    merge(raw)
}

/// [`partials`] of a statement's value `e` whose result `held` holds when the adjoint runs
/// (an element the forward sweep wrote and nothing changed since): the derivative of the
/// root operation is written with the result, as on paper, and costs no call:
///
/// | `e`                       | `∂e/∂u` with `t = e`   |
/// |---------------------------|------------------------|
/// | `exp(u)`                  | `t`                    |
/// | `tanh(u)`                 | `1 - t * t`            |
/// | `sqrt(u)`                 | `0.5 / t`              |
/// | `1 / (1 + exp(-u))`       | `t * (1 - t)` (logistic) |
///
/// Other roots differentiate as [`partials`] does. Each form is the exact derivative; only
/// the rounding differs (`t` was rounded once when it was stored).
pub(crate) fn partials_held(e: &Expr, active: &dyn Fn(VarId) -> bool, held: &Expr) -> Vec<Partial> {
    let Some((u, d)) = by_result(e, held) else {
        return partials(e, active);
    };
    let mut raw = Vec::new();
    prop(u, Some(d), active, &mut raw);
    merge(raw)
}

/// The operand `u` of the root of `e` and `∂e/∂u` written with the result `t`.
fn by_result<'e>(e: &'e Expr, t: &Expr) -> Option<(&'e Expr, Expr)> {
    if t.ty != e.ty || !e.ty.is_float() {
        return None;
    }
    let one = || Expr::float(1.0, e.ty);
    match &e.kind {
        ExprKind::Call(Intrinsic::Exp, args) if args.len() == 1 => Some((&args[0], t.clone())),
        ExprKind::Call(Intrinsic::Tanh, args) if args.len() == 1 => {
            Some((&args[0], one().sub(t.clone().mul(t.clone()))))
        }
        ExprKind::Call(Intrinsic::Sqrt, args) if args.len() == 1 => {
            Some((&args[0], Expr::float(0.5, e.ty).div(t.clone())))
        }
        ExprKind::Binary(BinOp::Div, num, den) if num.as_float() == Some(1.0) && num.is_const() => {
            let ExprKind::Binary(BinOp::Add, a, b) = &den.kind else { return None };
            let exp = match (a.as_float(), b.as_float()) {
                (Some(c), _) if c == 1.0 && a.is_const() => b,
                (_, Some(c)) if c == 1.0 && b.is_const() => a,
                _ => return None,
            };
            let ExprKind::Call(Intrinsic::Exp, args) = &exp.kind else { return None };
            let [arg] = args.as_slice() else { return None };
            let ExprKind::Unary(UnOp::Neg, u) = &arg.kind else { return None };
            // d/du 1/(1+exp(-u)) = exp(-u)/(1+exp(-u))² = t (1 - t).
            Some((&**u, t.clone().mul(one().sub(t.clone()))))
        }
        _ => None,
    }
}

fn merge(raw: Vec<Partial>) -> Vec<Partial> {
    let mut out: Vec<Partial> = Vec::new();
    for p in raw {
        match out.iter_mut().find(|q| q.var == p.var && same_index(&q.index, &p.index)) {
            Some(q) => q.d = q.d.clone().add(p.d),
            None => out.push(p),
        }
    }
    out
}

/// Whether `e` reads an active float variable (a cheap over-approximation used to prune).
fn has_active(e: &Expr, active: &dyn Fn(VarId) -> bool) -> bool {
    let mut found = false;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Var(v) | ExprKind::Load(v, _) if x.ty.is_float() && active(*v) => found = true,
        _ => {}
    });
    found
}

/// `coeff` is ∂(root)/∂(e), `None` standing for 1.
fn prop(e: &Expr, coeff: Option<Expr>, active: &dyn Fn(VarId) -> bool, out: &mut Vec<Partial>) {
    if !e.ty.is_float() || !has_active(e, active) {
        return;
    }
    let k = || coeff.clone().unwrap_or_else(|| Expr::float(1.0, e.ty));
    match &e.kind {
        ExprKind::Const(_) => {}
        ExprKind::Var(v) => out.push(Partial { var: *v, index: Vec::new(), d: k() }),
        ExprKind::Load(v, idx) => out.push(Partial { var: *v, index: idx.clone(), d: k() }),
        ExprKind::Unary(op, a) => {
            if let Some(d) = rules::unary(*op, a) {
                prop(a, Some(scale(d, &coeff)), active, out);
            }
        }
        ExprKind::Binary(op, a, b) => {
            if let Some([da, db]) = rules::binary(*op, a, b) {
                prop(a, Some(scale(da, &coeff)), active, out);
                prop(b, Some(scale(db, &coeff)), active, out);
            }
        }
        ExprKind::Call(f, args) => {
            for (arg, d) in args.iter().zip(rules::intrinsic(*f, args)) {
                if let Some(d) = d {
                    prop(arg, Some(scale(d, &coeff)), active, out);
                }
            }
        }
        ExprKind::Select(c, a, b) => {
            prop(a, Some(Expr::select((**c).clone(), k(), zero(e.ty))), active, out);
            prop(b, Some(Expr::select((**c).clone(), zero(e.ty), k())), active, out);
        }
        ExprKind::Cast(a) => {
            if a.ty.is_float() {
                prop(a, coeff.map(|c| c.cast(a.ty)), active, out);
            }
        }
    }
}

/// `coeff * local` (outer factors first, so constants lead: `0.5 * x`), keeping selects
/// of constants readable: `select(c, 1, 0) * k` is written `select(c, k, 0)`.
fn scale(local: Expr, coeff: &Option<Expr>) -> Expr {
    match coeff {
        None => local,
        Some(k) if local.is_const() || matches!(local.kind, ExprKind::Select(..)) => times(local, k.clone()),
        Some(k) => times(k.clone(), local),
    }
}

/// `d * x` with the identities `1 * x = x`, `-1 * x = -x`, `0 * x = 0` for constant
/// factors produced by the rules (never for user constants: those keep IEEE semantics),
/// and selects of constants distributed over `x`.
pub(crate) fn times(d: Expr, x: Expr) -> Expr {
    match &d.kind {
        ExprKind::Const(Literal::Float(v)) if *v == 1.0 && d.ty == x.ty => x,
        ExprKind::Const(Literal::Float(v)) if *v == -1.0 && d.ty == x.ty => x.neg(),
        ExprKind::Select(c, a, b) if a.is_const() && b.is_const() && d.ty == x.ty => {
            let arm = |v: &Expr| match v.as_float() {
                Some(0.0) => zero(x.ty),
                Some(1.0) => x.clone(),
                Some(-1.0) => x.clone().neg(),
                _ => v.clone().mul(x.clone()),
            };
            Expr::select((**c).clone(), arm(a), arm(b))
        }
        _ => d.mul(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjc_ir::{Function, Intrinsic, Scalar, Span, Type, VarRole};

    fn setup() -> (Function, VarId, VarId) {
        let mut f = Function::empty("t", Span::NONE);
        let x = f.add_var("x", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        let c = f.add_var("c", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        (f, x, c)
    }

    #[test]
    fn product_rule_and_pruning() {
        let (f, x, c) = setup();
        let xe = Expr::var(x, Scalar::F64);
        let e = Expr::call(Intrinsic::Exp, vec![xe.clone()], Scalar::F64)
            .mul(Expr::call(Intrinsic::Sin, vec![xe.clone()], Scalar::F64))
            .mul(Expr::var(c, Scalar::F64));
        let ps = partials(&e, &|v| v == x);
        assert_eq!(ps.len(), 1);
        assert_eq!(adjc_ir::print::expr_str(&f, &ps[0].d), "c * sin(x) * exp(x) + c * exp(x) * cos(x)");
    }

    #[test]
    fn held_results_give_the_derivative_on_paper() {
        let (f, x, t) = setup();
        let (xe, te) = (Expr::var(x, Scalar::F64), Expr::var(t, Scalar::F64));
        let one = Expr::float(1.0, Scalar::F64);
        let exp = |e: Expr| Expr::call(Intrinsic::Exp, vec![e], Scalar::F64);
        let show = |e: &Expr| {
            let ps = partials_held(e, &|v| v == x, &te);
            assert_eq!(ps.len(), 1);
            adjc_ir::print::expr_str(&f, &ps[0].d)
        };
        let logistic = one.clone().div(one.clone().add(exp(xe.clone().neg())));
        assert_eq!(show(&logistic), "c * (1.0 - c)");
        assert_eq!(show(&exp(xe.clone().mul(xe.clone()))), "c * x + c * x");
        assert_eq!(show(&Expr::call(Intrinsic::Tanh, vec![xe.clone()], Scalar::F64)), "1.0 - c * c");
        assert_eq!(show(&Expr::call(Intrinsic::Sqrt, vec![xe.clone()], Scalar::F64)), "0.5 / c");
        // Any other root: the rules as usual.
        assert_eq!(
            show(&one.clone().div(one.add(exp(xe.clone())))),
            "-1.0 / ((1.0 + exp(x)) * (1.0 + exp(x))) * exp(x)"
        );
    }

    #[test]
    fn selects_stay_readable() {
        let (f, x, c) = setup();
        let e = Expr::call(Intrinsic::Max, vec![Expr::var(x, Scalar::F64), Expr::float(0.0, Scalar::F64)], Scalar::F64);
        let ps = partials(&e, &|v| v == x);
        let d = times(ps[0].d.clone(), Expr::var(c, Scalar::F64));
        assert_eq!(adjc_ir::print::expr_str(&f, &d), "select(x > 0.0, c, 0.0)");
    }
}
