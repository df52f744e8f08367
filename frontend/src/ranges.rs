//! Ranges of integer index expressions over a loop nest: the smallest and largest value an
//! index takes while the loops around it run, as expressions of the parameters.
//!
//! The Python frontend uses them twice: to tell a computed index that can never be
//! negative (`x[i - 1]` in `range(1, n)`) from one that can (`x[i - 1]` in `range(n)`,
//! which NumPy reads as `x[-1]`, the last element), and to state the checks a generated
//! function makes on entry so that no index leaves its array (`bounds`).
//!
//! Bounding works on the linear part first, eliminating loop variables innermost first
//! (each replaced by the end of its range that maximises or minimises the expression), so
//! correlated terms cancel (`j - i` with `j < i` is at most `-1`). Non-linear parts are
//! bounded by interval rules: `a // k` and `min`/`max` are monotone, `a % d` lies in
//! `[0, d - 1]`. The result is exact for rectangular nests with unit steps and a valid
//! bound otherwise (triangular nests, steps); `None` when the expression reads something
//! that is neither a loop variable nor fixed for the whole call (a parameter).

use crate::sym::{self, Lin};
use adjc_ir::{BinOp, Expr, ExprKind, Intrinsic, Loop, MapDim, Scalar, VarId};

/// The values a loop variable takes: `lo ..= hi` when the loop runs at least once.
#[derive(Clone, Debug)]
pub struct LoopRange {
    pub var: VarId,
    pub lo: Expr,
    pub hi: Expr,
}

impl LoopRange {
    /// The range of a `range(start, stop, step)` loop; `None` for a step that is not a
    /// constant.
    pub fn of_loop(l: &Loop) -> Option<LoopRange> {
        let step = l.step.as_int().filter(|s| *s != 0)?;
        Some(LoopRange::of_range(l.var, &l.start, &l.stop, step))
    }

    pub fn of_range(var: VarId, start: &Expr, stop: &Expr, step: i64) -> LoopRange {
        let canon = |e: Expr| sym::canon(&e);
        if step > 0 {
            let hi = if step == 1 {
                canon(stop.clone().sub(Expr::int(1)))
            } else {
                // The last value taken, `start + step * ((stop - 1 - start) // step)`.
                let span = canon(stop.clone().sub(Expr::int(1)).sub(start.clone()));
                canon(start.clone().add(Expr::int(step).mul(Expr::binary(BinOp::FloorDiv, span, Expr::int(step)))))
            };
            LoopRange { var, lo: start.clone(), hi }
        } else {
            let t = -step;
            let lo = if t == 1 {
                canon(stop.clone().add(Expr::int(1)))
            } else {
                let span = canon(start.clone().sub(stop.clone()).sub(Expr::int(1)));
                canon(start.clone().sub(Expr::int(t).mul(Expr::binary(BinOp::FloorDiv, span, Expr::int(t)))))
            };
            LoopRange { var, lo, hi: start.clone() }
        }
    }

    pub fn of_map_dim(d: &MapDim) -> LoopRange {
        LoopRange::of_range(d.var, &d.start, &d.stop, 1)
    }
}

/// The largest (`upper`) or smallest value of `e` while the loops run (outermost first),
/// as an expression of variables accepted by `fixed`; `None` when `e` cannot be bounded.
pub fn bound(e: &Expr, loops: &[LoopRange], upper: bool, fixed: &dyn Fn(VarId) -> bool) -> Option<Expr> {
    bound_depth(e, loops, upper, &Known { fixed, nonneg: &|_| false }, 0)
}

/// [`bound`], knowing which fixed variables are never negative (array extents), so that a
/// product with them is monotone (`p * N + q`, as reshapes index).
pub fn bound_nonneg(
    e: &Expr,
    loops: &[LoopRange],
    upper: bool,
    fixed: &dyn Fn(VarId) -> bool,
    nonneg: &dyn Fn(VarId) -> bool,
) -> Option<Expr> {
    bound_depth(e, loops, upper, &Known { fixed, nonneg }, 0)
}

/// What the bounding may assume of variables that are not loop variables: `fixed` ones keep
/// their value for the whole call (parameters), `nonneg` ones are never negative (extents).
struct Known<'a> {
    fixed: &'a dyn Fn(VarId) -> bool,
    nonneg: &'a dyn Fn(VarId) -> bool,
}

/// Recursion guard for hostile input (bounds of bounds of ...).
const MAX_DEPTH: usize = 48;

fn is_loop_var(loops: &[LoopRange], v: VarId) -> Option<usize> {
    loops.iter().position(|l| l.var == v)
}

fn bound_depth(e: &Expr, loops: &[LoopRange], upper: bool, known: &Known, depth: usize) -> Option<Expr> {
    if depth > MAX_DEPTH || e.ty != Scalar::I64 {
        return None;
    }
    // Fortran's `mod(a, k)`, lowered as `a - (a / k) * k`, lies in `[0, k - 1]` for `a >= 0`.
    let e = &e.rewrite(&mut |x| match truncated_mod(&x) {
        Some((a, k)) => {
            let low = bound_depth(a, loops, false, known, depth + 1);
            if low.and_then(|l| l.as_int()).is_some_and(|l| l >= 0) {
                Expr::binary(BinOp::Mod, a.clone(), Expr::int(k))
            } else {
                x
            }
        }
        None => x,
    });
    let mut lin = Lin::from_expr(e);
    // `min`/`max` of loop variables (a clamped length `max(0, M - i)` beside `i`): bound each
    // argument in place of the call, so that correlated terms still cancel.
    if let Some((call, k)) = lin.opaque_terms().into_iter().find(|(a, _)| {
        matches!(&a.kind, ExprKind::Call(Intrinsic::Min | Intrinsic::Max, args) if args.len() == 2)
            && a.vars().iter().any(|v| is_loop_var(loops, *v).is_some())
    }) {
        let ExprKind::Call(f, args) = &call.kind else { return None };
        let mut rest = lin.clone();
        rest.drop_opaque();
        for (a, c) in lin.opaque_terms() {
            if sym::key(&a) != sym::key(&call) {
                rest = rest.add(&Lin::from_expr(&a).scale(c)?)?;
            }
        }
        let mut parts = Vec::new();
        for arg in args {
            let with = rest.add(&Lin::from_expr(arg).scale(k)?)?.to_expr();
            parts.push(bound_depth(&with, loops, upper, known, depth + 1)?);
        }
        // max(a, b) raised (or min lowered) is the larger (smaller) of the two cases;
        // otherwise either case is a valid bound and the tighter one is kept.
        let exact = (*f == Intrinsic::Max) == ((k > 0) == upper);
        let pick = if exact == upper { Intrinsic::Max } else { Intrinsic::Min };
        let b = parts.pop()?;
        let a = parts.pop()?;
        return Some(min_max(pick, a, b));
    }
    // Innermost loop first: its bounds may mention outer loop variables, which are
    // eliminated later.
    for k in (0..=loops.len()).rev() {
        lin = bound_opaque(lin, &loops[..k], upper, known, depth)?;
        if k == 0 {
            break;
        }
        let l = &loops[k - 1];
        let c = lin.take(l.var);
        if c != 0 {
            let end = if (c > 0) == upper { &l.hi } else { &l.lo };
            lin = lin.add(&Lin::from_expr(end).scale(c)?)?;
        }
    }
    if lin.vars().iter().any(|v| is_loop_var(loops, *v).is_some() || !(known.fixed)(*v)) {
        return None;
    }
    Some(lin.to_expr())
}

/// Replaces each non-linear atom that mentions a variable of `loops` by its bound.
fn bound_opaque(mut lin: Lin, loops: &[LoopRange], upper: bool, known: &Known, depth: usize) -> Option<Lin> {
    let atoms = lin.opaque_terms();
    if atoms.iter().all(|(a, _)| !a.vars().iter().any(|v| is_loop_var(loops, *v).is_some())) {
        return Some(lin);
    }
    lin.drop_opaque();
    for (a, k) in atoms {
        let b = if a.vars().iter().any(|v| is_loop_var(loops, *v).is_some()) {
            bound_atom(&a, loops, (k > 0) == upper, known, depth + 1)?
        } else {
            a
        };
        lin = lin.add(&Lin::from_expr(&b).scale(k)?)?;
    }
    Some(lin)
}

/// Interval rules for the non-linear forms indices take.
fn bound_atom(e: &Expr, loops: &[LoopRange], upper: bool, known: &Known, depth: usize) -> Option<Expr> {
    let rec = |x: &Expr, up: bool| bound_depth(x, loops, up, known, depth + 1);
    let free_of_loops = |x: &Expr| x.vars().iter().all(|v| is_loop_var(loops, *v).is_none() && (known.fixed)(*v));
    match &e.kind {
        // Monotone in `a` for a positive divisor (a divisor made of sizes, as reshapes
        // give, is taken to be positive: Python raises ZeroDivisionError otherwise).
        ExprKind::Binary(op @ (BinOp::FloorDiv | BinOp::Div), a, d)
            if d.as_int().is_some_and(|k| k > 0) || (d.as_int().is_none() && free_of_loops(d)) =>
        {
            let op = *op;
            let b = rec(a, upper)?;
            if b.as_int() == Some(0) {
                return Some(b);
            }
            Some(Expr::binary(op, b, (**d).clone()))
        }
        // Python's `%` with a positive divisor lies in `[0, d - 1]`.
        ExprKind::Binary(BinOp::Mod, _, d) if free_of_loops(d) => {
            if upper {
                Some(sym::canon(&(**d).clone().sub(Expr::int(1))))
            } else {
                Some(Expr::int(0))
            }
        }
        // `a * N` with `N` a product of extents: monotone in `a`; the bound is distributed
        // (`(M - 1) * N` as `M * N - N`) so that it compares with other products.
        ExprKind::Binary(BinOp::Mul, a, b) | ExprKind::Binary(BinOp::Mul, b, a)
            if free_of_loops(b)
                && !b.vars().is_empty()
                && b.vars().iter().all(|v| (known.nonneg)(*v))
                && is_product(b) =>
        {
            let ba = Lin::from_expr(&rec(a, upper)?);
            let mut acc = Expr::int(ba.c).mul((**b).clone());
            for v in ba.vars() {
                let t = Expr::int(ba.coeff(v)).mul(Expr::var(v, Scalar::I64).mul((**b).clone()));
                acc = acc.add(t);
            }
            for (x, k) in ba.opaque_terms() {
                acc = acc.add(Expr::int(k).mul(x.mul((**b).clone())));
            }
            Some(sym::sort_products(&acc))
        }
        ExprKind::Call(f @ (Intrinsic::Min | Intrinsic::Max), args) if args.len() == 2 => {
            let (a, b) = (rec(&args[0], upper)?, rec(&args[1], upper)?);
            Some(Expr::call(*f, vec![a, b], Scalar::I64))
        }
        ExprKind::Select(_, a, b) => {
            let (a, b) = (rec(a, upper)?, rec(b, upper)?);
            let f = if upper { Intrinsic::Max } else { Intrinsic::Min };
            Some(min_max(f, a, b))
        }
        _ => None,
    }
}

/// `(a, k)` of `a - (a / k) * k` with a positive constant `k` (C's `%`, Fortran's `mod`).
fn truncated_mod(e: &Expr) -> Option<(&Expr, i64)> {
    let ExprKind::Binary(BinOp::Sub, a, prod) = &e.kind else { return None };
    let ExprKind::Binary(BinOp::Mul, q, k) = &prod.kind else { return None };
    let ExprKind::Binary(BinOp::Div, a2, k2) = &q.kind else { return None };
    let k = k.as_int().filter(|k| *k > 0 && k2.as_int() == Some(*k))?;
    (sym::key(a) == sym::key(a2)).then_some((&**a, k))
}

fn is_product(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(_) => true,
        ExprKind::Binary(BinOp::Mul, a, b) => is_product(a) && is_product(b),
        _ => false,
    }
}

/// `min(a, b)` / `max(a, b)`, decided when the two differ by a constant.
pub fn min_max(f: Intrinsic, a: Expr, b: Expr) -> Expr {
    if let Some(d) = Lin::from_expr(&b).sub(&Lin::from_expr(&a)).and_then(|l| l.as_const()) {
        let a_wins = if f == Intrinsic::Min { d >= 0 } else { d <= 0 };
        return if a_wins { a } else { b };
    }
    Expr::call(f, vec![a, b], Scalar::I64)
}

/// `a - b` when it is a constant.
pub fn const_diff(a: &Expr, b: &Expr) -> Option<i64> {
    Lin::from_expr(a).sub(&Lin::from_expr(b)).and_then(|l| l.as_const())
}

/// Whether `e` is never negative while the loops run. Variables accepted by `nonneg`
/// (array extents) are non-negative; other variables must be loop variables or `fixed`.
pub fn never_negative(
    e: &Expr,
    loops: &[LoopRange],
    fixed: &dyn Fn(VarId) -> bool,
    nonneg: &dyn Fn(VarId) -> bool,
) -> bool {
    never_negative_given(e, loops, fixed, nonneg, &[])
}

/// [`never_negative`], also given `facts` (each `>= 0` on every call that gets this far,
/// such as the entry checks of the function).
pub fn never_negative_given(
    e: &Expr,
    loops: &[LoopRange],
    fixed: &dyn Fn(VarId) -> bool,
    nonneg: &dyn Fn(VarId) -> bool,
    facts: &[Lin],
) -> bool {
    let Some(low) = bound(e, loops, false, fixed) else {
        return false;
    };
    let lin = Lin::from_expr(&low);
    let provable = |l: &Lin| provably_nonneg_with(l, nonneg, 0);
    if provable(&lin) || facts.iter().any(|f| lin.sub(f).is_some_and(|d| provable(&d))) {
        return true;
    }
    // The index is only evaluated when the loops run: each loop's `hi - lo >= 0` (at its
    // largest over the outer loops) may settle it, as `N - 1` inside `range(1, N - 1)`.
    (0..loops.len()).any(|k| {
        let width = sym::canon(&loops[k].hi.clone().sub(loops[k].lo.clone()));
        bound(&width, &loops[..k], true, fixed).and_then(|u| lin.sub(&Lin::from_expr(&u))).is_some_and(|d| provable(&d))
    })
}

/// `l >= 0` over integers, tightened: `2 * K - 1 >= 0` is `K - 1 >= 0` (the coefficients'
/// common divisor taken out, the constant rounded down).
pub fn integer_fact(l: &Lin) -> Lin {
    fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 {
            a.abs()
        } else {
            gcd(b, a % b)
        }
    }
    if l.has_opaque() {
        return l.clone();
    }
    let g = l.vars().iter().fold(0, |g, v| gcd(g, l.coeff(*v)));
    if g <= 1 {
        return l.clone();
    }
    let mut out = Lin::constant(l.c.div_euclid(g));
    for v in l.vars() {
        out = out.add(&Lin::var(v).scale(l.coeff(v) / g).unwrap_or_default()).unwrap_or_default();
    }
    out
}

/// Whether `l >= 0` for every value of the parameters, extents being non-negative:
/// linear terms need positive coefficients on extents; `k * (a // k)` is at most `a`;
/// `min(a, b)` is at most either argument and `max(a, b)` at least either.
pub fn provably_nonneg(l: &Lin, extents: &[VarId], depth: usize) -> bool {
    provably_nonneg_with(l, &|v| extents.contains(&v), depth)
}

fn provably_nonneg_with(l: &Lin, extents: &dyn Fn(VarId) -> bool, depth: usize) -> bool {
    let linear_ok = |l: &Lin| l.c >= 0 && l.vars().iter().all(|v| l.coeff(*v) > 0 && extents(*v));
    let atoms = l.opaque_terms();
    if atoms.is_empty() {
        return linear_ok(l);
    }
    if depth > 6 {
        return false;
    }
    let (e, k) = &atoms[0];
    let mut rest = Lin::from_expr(&{
        let mut r = l.clone();
        r.drop_opaque();
        r.to_expr()
    });
    for (e2, k2) in &atoms[1..] {
        match Lin::from_expr(e2).scale(*k2).and_then(|t| rest.add(&t)) {
            Some(r) => rest = r,
            None => return false,
        }
    }
    // Replace atom `e` (coefficient k) by a bound in the right direction.
    let with = |b: &Expr, scale_num: i64, scale_den: i64| -> Option<Lin> {
        if scale_den == 0 || (k * scale_num) % scale_den != 0 {
            return None;
        }
        Lin::from_expr(b).scale(k * scale_num / scale_den).and_then(|t| rest.add(&t))
    };
    match &e.kind {
        ExprKind::Binary(BinOp::FloorDiv, a, d) => {
            let Some(q) = d.as_int().filter(|q| *q > 0) else { return false };
            if *k < 0 {
                // a // q <= a / q
                with(a, 1, q).is_some_and(|r| provably_nonneg_with(&r, extents, depth + 1))
            } else {
                // a // q >= (a - q + 1) / q
                let lower = sym::canon(&(**a).clone().sub(Expr::int(q - 1)));
                with(&lower, 1, q).is_some_and(|r| provably_nonneg_with(&r, extents, depth + 1))
            }
        }
        ExprKind::Call(f @ (Intrinsic::Min | Intrinsic::Max), args) if args.len() == 2 => {
            // An upper bound of min (lower bound of max) is either argument; the other
            // direction needs both.
            let either = (*f == Intrinsic::Min) == (*k < 0);
            let ok = |arg: &Expr| with(arg, 1, 1).is_some_and(|r| provably_nonneg_with(&r, extents, depth + 1));
            if either {
                ok(&args[0]) || ok(&args[1])
            } else {
                ok(&args[0]) && ok(&args[1])
            }
        }
        _ => false,
    }
}
