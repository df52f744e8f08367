//! Extent comparison for broadcasting. Extents the frontend invented for unannotated
//! parameters (`A_n0`, or `N` named by `N = A.shape[0]`) are *inferred*: when
//! broadcasting requires two extents to be equal and one side can be solved for an
//! inferred extent, the two are unified (a substitution applied to the whole function at
//! the end) instead of being reported as a mismatch.

use crate::sym::{self, Lin};
use adjc_ir::{BinOp, Expr, ExprKind, VarId};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Default)]
pub struct Shapes {
    inferred: BTreeSet<VarId>,
    /// Inferred extents the source names (`I = A.shape[0]`): solved for last, so that the
    /// signature keeps the source's names.
    named: BTreeSet<VarId>,
    /// Solved inferred extents; right-hand sides never mention solved variables.
    subst: BTreeMap<VarId, Expr>,
}

impl Shapes {
    pub fn mark_inferred(&mut self, v: VarId) {
        self.inferred.insert(v);
    }

    pub fn mark_named(&mut self, v: VarId) {
        self.named.insert(v);
    }

    pub fn is_solved(&self, v: VarId) -> bool {
        self.subst.contains_key(&v)
    }

    pub fn apply(&self, e: &Expr) -> Expr {
        if self.subst.is_empty() {
            return e.clone();
        }
        sym::substitute(e, &|v| self.subst.get(&v).cloned())
    }

    pub fn lin(&self, e: &Expr) -> Lin {
        Lin::from_expr(&sym::sort_products(&self.apply(e)))
    }

    /// The extent in canonical form after unification.
    pub fn norm(&self, e: &Expr) -> Expr {
        sym::canon(&self.apply(e))
    }

    /// Whether two index expressions are equal.
    pub fn same(&self, a: &Expr, b: &Expr) -> bool {
        self.lin(a) == self.lin(b)
    }

    /// An extent as a linear form: `max(0, x)` (an extent clamped to a length) reads as
    /// `x`, since a negative extent means an empty axis.
    pub fn elin(&self, e: &Expr) -> Lin {
        let a = self.apply(e);
        Lin::from_expr(&sym::sort_products(sym::unclamp(&a)))
    }

    /// Whether two extents are equal.
    pub fn same_ext(&self, a: &Expr, b: &Expr) -> bool {
        self.elin(a) == self.elin(b)
    }

    pub fn is_one(&self, e: &Expr) -> bool {
        self.elin(e).as_const() == Some(1)
    }

    /// The broadcast of two extents, unifying inferred extents where that makes them equal.
    /// `allowed` says which variables a solution may mention (parameters).
    pub fn broadcast(&mut self, a: &Expr, b: &Expr, allowed: &dyn Fn(VarId) -> bool) -> Option<Expr> {
        let (la, lb) = (self.elin(a), self.elin(b));
        if la == lb {
            return Some(a.clone());
        }
        if la.as_const() == Some(1) {
            return Some(b.clone());
        }
        if lb.as_const() == Some(1) {
            return Some(a.clone());
        }
        if self.equate(a, b, allowed) {
            Some(a.clone())
        } else {
            None
        }
    }

    /// Makes `a` and `b` equal by solving for an inferred extent; false if they are (or
    /// may be) different.
    pub fn equate(&mut self, a: &Expr, b: &Expr, allowed: &dyn Fn(VarId) -> bool) -> bool {
        let (la, lb) = (self.elin(a), self.elin(b));
        if la == lb {
            return true;
        }
        let Some(diff) = la.sub(&lb) else { return false };
        if diff.has_opaque() {
            // Same non-linear structure (`(A_n0 + 1) // 2` vs `(B_n0 + 1) // 2`): unify the
            // differing linear parts.
            let mut pairs = Vec::new();
            if !same_structure(&self.apply(a), &self.apply(b), &mut pairs) || pairs.is_empty() || pairs.len() > 8 {
                return false;
            }
            // Only renamings (`A_n0` for `B_n0`): an offset inside a non-linear expression
            // (`(B_n0 + 1) // 2 = A_n0 // 2`) does not determine the extents.
            for (x, y) in &pairs {
                let Some(d) = self.lin(x).sub(&self.lin(y)) else { return false };
                let unit: Vec<i64> = d.terms.values().copied().collect();
                if d.c != 0 || d.has_opaque() || unit.len() != 2 || unit.iter().sum::<i64>() != 0 || unit[0].abs() != 1
                {
                    return false;
                }
            }
            for (x, y) in pairs {
                if !self.equate_linear(&x, &y, allowed) {
                    return false;
                }
            }
            return self.elin(a) == self.elin(b);
        }
        self.solve(diff, allowed)
    }

    fn equate_linear(&mut self, a: &Expr, b: &Expr, allowed: &dyn Fn(VarId) -> bool) -> bool {
        let (la, lb) = (self.elin(a), self.elin(b));
        if la == lb {
            return true;
        }
        match la.sub(&lb) {
            Some(diff) if !diff.has_opaque() => self.solve(diff, allowed),
            _ => false,
        }
    }

    fn solve(&mut self, diff: Lin, allowed: &dyn Fn(VarId) -> bool) -> bool {
        // Solve for the most recently created inferred extent with a unit coefficient,
        // preferring extents the source does not name.
        let solvable = |v: &VarId| self.inferred.contains(v) && diff.coeff(*v).abs() == 1;
        let vars = diff.vars();
        let candidate = vars
            .iter()
            .rev()
            .find(|v| solvable(v) && !self.named.contains(v))
            .or_else(|| vars.iter().rev().find(|v| solvable(v)))
            .copied();
        let Some(x) = candidate else { return false };
        let mut rest = diff.clone();
        let c = rest.take(x);
        // c * x + rest = 0  =>  x = -rest / c
        let Some(solution) = rest.scale(-c) else { return false };
        if solution.vars().iter().any(|v| !allowed(*v)) {
            return false;
        }
        let sol = solution.to_expr();
        for e in self.subst.values_mut() {
            *e = sym::canon(&sym::substitute(e, &|v| if v == x { Some(sol.clone()) } else { None }));
        }
        self.subst.insert(x, sol);
        true
    }
}

/// The range of a loop index inside its loop: `lo <= var <= hi`.
#[derive(Clone, Debug)]
pub struct IndexRange {
    pub var: VarId,
    pub lo: Expr,
    pub hi: Expr,
}

impl Shapes {
    /// The least (`max == false`) or greatest value of `e` over the loop indices of
    /// `loops` (outermost first): innermost first, each index is replaced by the end of its
    /// range that minimises (maximises) the expression. Sound, not exact: an index whose
    /// loop may not run still gives a bound.
    pub fn extreme(&self, e: &Expr, loops: &[IndexRange], max: bool) -> Option<Lin> {
        let mut l = self.lin(e);
        for r in loops.iter().rev() {
            let c = l.coeff(r.var);
            if c == 0 {
                continue;
            }
            l.take(r.var);
            let end = if (c > 0) == max { &r.hi } else { &r.lo };
            l = l.add(&self.lin(end).scale(c)?)?;
        }
        Some(l)
    }

    /// Whether `e >= 0` follows from the loop ranges and from the variables `nonneg`
    /// accepts (array extents) being non-negative.
    pub fn provably_nonneg(&self, e: &Expr, loops: &[IndexRange], nonneg: &dyn Fn(VarId) -> bool) -> bool {
        let Some(mut l) = self.extreme(e, loops, false) else { return false };
        // `-k * (a // k)` is at least `-a` (a // k <= a / k): `a - 2 * (a // 2) >= 0`.
        for (x, c) in l.opaque_terms() {
            if let ExprKind::Binary(BinOp::FloorDiv, a, m) = &x.kind {
                if let Some(m) = m.as_int().filter(|m| *m > 0 && c < 0 && c % m == 0) {
                    let rest = l.sub(&self.lin(&x).scale(c).unwrap_or_default());
                    let bound = self.lin(a).scale(c / m);
                    if let (Some(rest), Some(bound)) = (rest, bound) {
                        if let Some(r) = rest.add(&bound) {
                            l = r;
                        }
                    }
                }
            }
        }
        l.c >= 0
            && l.vars().iter().all(|v| nonneg(*v) && l.coeff(*v) > 0)
            && l.opaque_terms().iter().all(|(x, k)| *k > 0 && self.nonneg_atom(x, loops, nonneg))
    }

    /// Non-linear extents that are non-negative when their parts are: `N * M`, `N // 2`,
    /// `max(N - 2, 0)`.
    fn nonneg_atom(&self, e: &Expr, loops: &[IndexRange], nonneg: &dyn Fn(VarId) -> bool) -> bool {
        use adjc_ir::{ExprKind as K, Intrinsic};
        let nn = |x: &Expr| self.provably_nonneg(x, loops, nonneg);
        match &e.kind {
            K::Binary(BinOp::Mul, a, b) => nn(a) && nn(b),
            K::Binary(BinOp::FloorDiv, a, b) => nn(a) && b.as_int().is_some_and(|k| k > 0),
            K::Call(Intrinsic::Max, args) => args.iter().any(nn),
            K::Call(Intrinsic::Min, args) => args.iter().all(nn),
            _ => false,
        }
    }
}

/// Whether `a` and `b` have the same tree shape outside their linear integer parts;
/// collects the linear parts that differ.
fn same_structure(a: &Expr, b: &Expr, pairs: &mut Vec<(Expr, Expr)>) -> bool {
    use adjc_ir::ExprKind as K;
    let la = Lin::from_expr(a);
    let lb = Lin::from_expr(b);
    if !la.has_opaque() && !lb.has_opaque() {
        if la != lb {
            pairs.push((a.clone(), b.clone()));
        }
        return true;
    }
    match (&a.kind, &b.kind) {
        (K::Binary(o1, a1, a2), K::Binary(o2, b1, b2)) if o1 == o2 => {
            same_structure(a1, b1, pairs) && same_structure(a2, b2, pairs)
        }
        (K::Unary(o1, a1), K::Unary(o2, b1)) if o1 == o2 => same_structure(a1, b1, pairs),
        (K::Cast(a1), K::Cast(b1)) if a.ty == b.ty => same_structure(a1, b1, pairs),
        _ => sym::key(a) == sym::key(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjc_ir::Scalar;

    #[test]
    fn unifies_inferred_extents_through_offsets() {
        let mut s = Shapes::default();
        let (a, b, n) = (VarId(0), VarId(1), VarId(2));
        s.mark_inferred(a);
        s.mark_inferred(b);
        let va = Expr::var(a, Scalar::I64);
        let vb = Expr::var(b, Scalar::I64);
        let vn = Expr::var(n, Scalar::I64);
        assert!(s.equate(&vb.clone().sub(Expr::int(2)), &va.clone().sub(Expr::int(2)), &|_| true));
        assert!(s.same(&va, &vb));
        // Declared extents are never unified.
        assert!(!s.equate(&vn, &vn.clone().sub(Expr::int(1)), &|_| true));
        // Constants: 1 broadcasts, others must match.
        assert!(s.broadcast(&Expr::int(1), &vn, &|_| true).is_some());
        assert!(s.broadcast(&Expr::int(3), &Expr::int(4), &|_| true).is_none());
        // An inferred extent can become a constant.
        assert!(s.equate(&va, &Expr::int(5), &|_| true));
        assert_eq!(s.lin(&vb).as_const(), Some(5));
    }

    #[test]
    fn proves_bounds_from_loop_ranges() {
        let s = Shapes::default();
        let (n, i, j) = (VarId(0), VarId(1), VarId(2));
        let v = |x| Expr::var(x, Scalar::I64);
        let size = |x: VarId| x == n;
        // for i in range(n): for j in range(i):
        let loops = vec![
            IndexRange { var: i, lo: Expr::int(0), hi: v(n).sub(Expr::int(1)) },
            IndexRange { var: j, lo: Expr::int(0), hi: v(i).sub(Expr::int(1)) },
        ];
        // j + 1 <= i <= n - 1 < n
        assert!(s.provably_nonneg(&v(i).sub(v(j)).sub(Expr::int(1)), &loops, &size));
        assert!(s.provably_nonneg(&v(n).sub(v(j)).sub(Expr::int(2)), &loops, &size));
        // i - 1 is -1 in the first iteration; n - i - 2 is -1 in the last.
        assert!(!s.provably_nonneg(&v(i).sub(Expr::int(1)), &loops, &size));
        assert!(!s.provably_nonneg(&v(n).sub(v(i)).sub(Expr::int(2)), &loops, &size));
        // The least value over the loops: n - i - 2 >= -1.
        assert_eq!(s.extreme(&v(n).sub(v(i)).sub(Expr::int(2)), &loops, false).and_then(|l| l.as_const()), Some(-1));
        // n - 2 * (n // 2) >= 0, n // 2 and max(0, n - 3) are non-negative.
        let half = Expr::binary(BinOp::FloorDiv, v(n), Expr::int(2));
        assert!(s.provably_nonneg(&v(n).sub(half.clone().mul(Expr::int(2))), &[], &size));
        assert!(s.provably_nonneg(&half, &[], &size));
        assert!(s.provably_nonneg(&sym::clamp0(v(n).sub(Expr::int(3))), &[], &size));
        assert!(!s.provably_nonneg(&v(n).sub(Expr::int(3)), &[], &size));
    }
}
