//! Integer index and bound expressions as affine combinations: to compare indices however
//! they are written (`parallelize`'s independence test), and to state tape sizes as
//! formulas of the size parameters (autodiff's nests and tapes).
//!
//! An [`Affine`] is `Σ cᵢ·atomᵢ + c` where an atom is a variable or an opaque
//! sub-expression (`N // 2`, `N * M`) compared up to spans. Terms keep their order of first
//! appearance, so printing ([`Affine::to_expr`]) is deterministic and follows the source;
//! `==` compares terms in order, [`Affine::same_value`] as a sum. Two readers:
//! [`Affine::parse`] (the caller says which variables may be atoms and which may appear
//! inside opaque atoms; arithmetic saturates) and [`Affine::linear`] (variables only, no
//! opaque atom, `None` on overflow).
//!
//! Bounding an expression over a loop nest ([`extreme`]) eliminates the loop variables
//! innermost first, each replaced by the end of its range that maximises (or minimises) the
//! expression: exact for rectangular nests, a valid bound for triangular ones whose bounds
//! are affine in outer indices.

use super::eq::{same, strip};
use crate::*;

#[derive(Clone, Debug)]
pub enum Atom {
    Var(VarId),
    Opaque(Expr),
}

impl PartialEq for Atom {
    fn eq(&self, other: &Atom) -> bool {
        match (self, other) {
            (Atom::Var(a), Atom::Var(b)) => a == b,
            (Atom::Opaque(a), Atom::Opaque(b)) => same(a, b),
            _ => false,
        }
    }
}

impl Atom {
    /// The atom as an `i64` expression.
    pub fn expr(&self) -> Expr {
        match self {
            Atom::Var(v) => Expr::var(*v, Scalar::I64),
            Atom::Opaque(e) => e.clone(),
        }
    }
}

/// `Σ coeff·atom + konst`; terms keep their order of first appearance (deterministic text)
/// and never have a zero coefficient.
#[derive(Clone, Debug, PartialEq)]
pub struct Affine {
    pub terms: Vec<(Atom, i64)>,
    pub konst: i64,
}

impl Affine {
    pub fn constant(c: i64) -> Affine {
        Affine { terms: Vec::new(), konst: c }
    }

    pub fn var(v: VarId) -> Affine {
        Affine { terms: vec![(Atom::Var(v), 1)], konst: 0 }
    }

    /// `e` as an affine combination. `var_ok` says which variables may appear as atoms;
    /// a non-affine sub-expression becomes an opaque atom when every variable it reads
    /// passes `opaque_ok`. `None` when neither applies.
    pub fn parse(e: &Expr, var_ok: &dyn Fn(VarId) -> bool, opaque_ok: &dyn Fn(VarId) -> bool) -> Option<Affine> {
        if e.ty != Scalar::I64 {
            return None;
        }
        let opaque = || {
            let vs = e.vars();
            let loads = {
                let mut found = false;
                e.walk(&mut |x| found |= matches!(x.kind, ExprKind::Load(..)));
                found
            };
            (!loads && vs.iter().all(|v| opaque_ok(*v)))
                .then(|| Affine { terms: vec![(Atom::Opaque(strip(e)), 1)], konst: 0 })
        };
        match &e.kind {
            ExprKind::Const(Literal::Int(c)) => Some(Affine::constant(*c)),
            ExprKind::Var(v) if var_ok(*v) => Some(Affine::var(*v)),
            ExprKind::Unary(UnOp::Neg, a) => Some(Affine::parse(a, var_ok, opaque_ok)?.scale(-1)),
            ExprKind::Binary(BinOp::Add, a, b) => {
                Some(Affine::parse(a, var_ok, opaque_ok)?.add(&Affine::parse(b, var_ok, opaque_ok)?))
            }
            ExprKind::Binary(BinOp::Sub, a, b) => {
                Some(Affine::parse(a, var_ok, opaque_ok)?.sub(&Affine::parse(b, var_ok, opaque_ok)?))
            }
            ExprKind::Binary(BinOp::Mul, a, b) => match (a.as_int(), b.as_int()) {
                (Some(c), _) => Some(Affine::parse(b, var_ok, opaque_ok)?.scale(c)),
                (_, Some(c)) => Some(Affine::parse(a, var_ok, opaque_ok)?.scale(c)),
                _ => opaque(),
            },
            _ => opaque(),
        }
    }

    /// `e` as a combination of variables (no opaque atom): `None` when `e` is not an affine
    /// `i64` expression of scalar variables, or when a coefficient overflows. A product is
    /// affine when one factor reads as a constant.
    pub fn linear(e: &Expr) -> Option<Affine> {
        if e.ty != Scalar::I64 {
            return None;
        }
        match &e.kind {
            ExprKind::Const(_) => Some(Affine::constant(e.as_int()?)),
            ExprKind::Var(v) => Some(Affine::var(*v)),
            ExprKind::Unary(UnOp::Neg, a) => Affine::linear(a)?.checked_scale(-1),
            ExprKind::Binary(BinOp::Add, a, b) => Affine::linear(a)?.checked_add(&Affine::linear(b)?),
            ExprKind::Binary(BinOp::Sub, a, b) => {
                Affine::linear(a)?.checked_add(&Affine::linear(b)?.checked_scale(-1)?)
            }
            ExprKind::Binary(BinOp::Mul, a, b) => {
                let (a, b) = (Affine::linear(a)?, Affine::linear(b)?);
                match (a.as_const(), b.as_const()) {
                    (Some(k), _) => b.checked_scale(k),
                    (_, Some(k)) => a.checked_scale(k),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `self + o`, `None` on overflow.
    pub fn checked_add(&self, o: &Affine) -> Option<Affine> {
        let mut out = self.clone();
        for (a, c) in &o.terms {
            match out.terms.iter().position(|(b, _)| b == a) {
                Some(k) => {
                    out.terms[k].1 = out.terms[k].1.checked_add(*c)?;
                    if out.terms[k].1 == 0 {
                        out.terms.remove(k);
                    }
                }
                None if *c != 0 => out.terms.push((a.clone(), *c)),
                None => {}
            }
        }
        out.konst = out.konst.checked_add(o.konst)?;
        Some(out)
    }

    /// `c · self`, `None` on overflow.
    pub fn checked_scale(&self, c: i64) -> Option<Affine> {
        if c == 0 {
            return Some(Affine::constant(0));
        }
        let terms = self.terms.iter().map(|(a, k)| Some((a.clone(), k.checked_mul(c)?))).collect::<Option<_>>()?;
        Some(Affine { terms, konst: self.konst.checked_mul(c)? })
    }

    /// Whether both are the same sum (terms in any order).
    pub fn same_value(&self, o: &Affine) -> bool {
        self.konst == o.konst
            && self.terms.len() == o.terms.len()
            && self.terms.iter().all(|(a, c)| o.terms.iter().any(|(b, d)| a == b && c == d))
    }

    fn add_term(&mut self, atom: Atom, c: i64) {
        if c == 0 {
            return;
        }
        match self.terms.iter().position(|(a, _)| *a == atom) {
            Some(k) => {
                self.terms[k].1 = self.terms[k].1.saturating_add(c);
                if self.terms[k].1 == 0 {
                    self.terms.remove(k);
                }
            }
            None => self.terms.push((atom, c)),
        }
    }

    pub fn add(&self, o: &Affine) -> Affine {
        let mut out = self.clone();
        for (a, c) in &o.terms {
            out.add_term(a.clone(), *c);
        }
        out.konst = out.konst.saturating_add(o.konst);
        out
    }

    pub fn sub(&self, o: &Affine) -> Affine {
        self.add(&o.scale(-1))
    }

    pub fn plus(&self, c: i64) -> Affine {
        self.add(&Affine::constant(c))
    }

    pub fn scale(&self, c: i64) -> Affine {
        if c == 0 {
            return Affine::constant(0);
        }
        Affine {
            terms: self.terms.iter().map(|(a, k)| (a.clone(), k.saturating_mul(c))).collect(),
            konst: self.konst.saturating_mul(c),
        }
    }

    /// The coefficient of variable `v` (0 when absent).
    pub fn coeff(&self, v: VarId) -> i64 {
        self.terms.iter().find(|(a, _)| matches!(a, Atom::Var(u) if *u == v)).map(|(_, c)| *c).unwrap_or(0)
    }

    /// The combination without variable `v`'s term.
    pub fn without(&self, v: VarId) -> Affine {
        Affine {
            terms: self.terms.iter().filter(|(a, _)| !matches!(a, Atom::Var(u) if *u == v)).cloned().collect(),
            konst: self.konst,
        }
    }

    pub fn as_const(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.konst)
    }

    /// Every variable the combination reads (atoms and inside opaque atoms).
    pub fn vars(&self) -> Vec<VarId> {
        let mut out = Vec::new();
        for (a, _) in &self.terms {
            match a {
                Atom::Var(v) => out.push(*v),
                Atom::Opaque(e) => out.extend(e.vars()),
            }
        }
        out
    }

    pub fn mentions_any(&self, vs: &[VarId]) -> bool {
        self.vars().iter().any(|v| vs.contains(v))
    }

    /// The expression, positive terms first: `N - i - 2`, `2 * N`, `max(...)` atoms as is.
    pub fn to_expr(&self) -> Expr {
        let term = |a: &Atom, c: i64| {
            let e = a.expr();
            if c == 1 {
                e
            } else {
                Expr::int(c).mul(e)
            }
        };
        let mut out: Option<Expr> = None;
        for (a, c) in self.terms.iter().filter(|(_, c)| *c > 0) {
            let t = term(a, *c);
            out = Some(match out {
                None => t,
                Some(o) => o.add(t),
            });
        }
        for (a, c) in self.terms.iter().filter(|(_, c)| *c < 0) {
            out = Some(match out {
                None => term(a, *c),
                Some(o) => o.sub(term(a, -*c)),
            });
        }
        match out {
            None => Expr::int(self.konst),
            Some(o) if self.konst > 0 => o.add(Expr::int(self.konst)),
            Some(o) if self.konst < 0 => o.sub(Expr::int(self.konst.saturating_neg())),
            Some(o) => o,
        }
    }
}

/// The range a variable takes: `lo ..= hi`, affine in the variables of the intervals
/// before it (outer loops).
#[derive(Clone, Debug)]
pub struct Interval {
    pub var: VarId,
    pub lo: Affine,
    pub hi: Affine,
}

/// The maximum (`max`) or minimum of `a` while the variables of `env` (outermost first)
/// range over their intervals; the result no longer mentions them.
pub fn extreme(a: &Affine, env: &[Interval], max: bool) -> Affine {
    let mut a = a.clone();
    for iv in env.iter().rev() {
        let c = a.coeff(iv.var);
        if c == 0 {
            continue;
        }
        let end = if (c > 0) == max { &iv.hi } else { &iv.lo };
        a = a.without(iv.var).add(&end.scale(c));
    }
    a
}

/// `max(0, e)`, or `e` itself when it cannot be negative (a non-negative constant or a
/// size parameter).
pub fn clamp(a: &Affine, is_size: &dyn Fn(VarId) -> bool) -> Expr {
    if let Some(c) = a.as_const() {
        return Expr::int(c.max(0));
    }
    let nonneg = a.konst >= 0 && a.terms.iter().all(|(t, c)| *c > 0 && matches!(t, Atom::Var(v) if is_size(*v)));
    if nonneg {
        a.to_expr()
    } else {
        Expr::call(Intrinsic::Max, vec![Expr::int(0), a.to_expr()], Scalar::I64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f() -> (Function, VarId, VarId, VarId) {
        let mut f = Function::empty("t", Span::NONE);
        let n = f.add_var("N", Type::Scalar(Scalar::I64), VarRole::Size, Span::NONE);
        let i = f.add_var("i", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
        let j = f.add_var("j", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
        (f, n, i, j)
    }

    #[test]
    fn parse_and_print() {
        let (f, n, i, _) = f();
        let v = |x| Expr::var(x, Scalar::I64);
        let e = v(n).sub(Expr::int(1)).sub(v(i).add(Expr::int(1)));
        let a = Affine::parse(&e, &|_| true, &|_| true).unwrap();
        assert_eq!(crate::print::expr_str(&f, &a.to_expr()), "N - i - 2");
        let half = Expr::binary(BinOp::FloorDiv, v(n), Expr::int(2));
        let a = Affine::parse(&Expr::int(3).mul(half).sub(v(i)), &|_| true, &|u| u == n).unwrap();
        assert_eq!(crate::print::expr_str(&f, &a.to_expr()), "3 * (N // 2) - i");
        let sq = v(i).mul(v(i));
        assert!(Affine::parse(&sq, &|_| true, &|u| u == n).is_none(), "i*i is not affine in i");
    }

    #[test]
    fn linear_forms_compare_as_sums() {
        let (_, n, i, _) = f();
        let v = |x| Expr::var(x, Scalar::I64);
        let a = Affine::linear(&v(i).add(v(n)).mul(Expr::int(2))).unwrap();
        let b = Affine::linear(&Expr::int(2).mul(v(n)).add(v(i).mul(Expr::int(2)))).unwrap();
        assert!(a.same_value(&b) && a != b, "same sum, terms in another order");
        assert_eq!(a.coeff(i), 2);
        let half = Expr::binary(BinOp::FloorDiv, v(n), Expr::int(2));
        assert!(Affine::linear(&half).is_none() && Affine::linear(&v(i).mul(v(i))).is_none());
        let big = Expr::int(i64::MAX).mul(v(i));
        assert!(Affine::linear(&big.clone().add(big)).is_none(), "overflow is not an affine form");
    }

    #[test]
    fn triangular_bounds() {
        let (f, n, i, j) = f();
        // i in [1, N-1], j in [0, i-1]: max of the trip count i of j is N - 1.
        let env = vec![
            Interval { var: i, lo: Affine::constant(1), hi: Affine::var(n).plus(-1) },
            Interval { var: j, lo: Affine::constant(0), hi: Affine::var(i).plus(-1) },
        ];
        let s = |a: &Affine| crate::print::expr_str(&f, &a.to_expr());
        assert_eq!(s(&extreme(&Affine::var(i), &env, true)), "N - 1");
        assert_eq!(s(&extreme(&Affine::var(j), &env, true)), "N - 2");
        assert_eq!(s(&extreme(&Affine::var(n).sub(&Affine::var(i)), &env, true)), "N - 1");
        assert_eq!(s(&extreme(&Affine::var(j), &env, false)), "0");
        let size = |v: VarId| v == n;
        assert_eq!(crate::print::expr_str(&f, &clamp(&Affine::var(n), &size)), "N");
        assert_eq!(crate::print::expr_str(&f, &clamp(&Affine::var(n).plus(-2), &size)), "max(0, N - 2)");
    }
}
