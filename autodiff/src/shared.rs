//! Which accumulations of an adjoint map body may hit the same place from different
//! iterations (`shared: true`, rendered as atomics or reductions by emit).
//!
//! An accumulation into an array is private to its iteration only if its index is
//! injective in the map variables and no other accumulation of the body targets the same
//! array with a different index. Injective means: every map variable appears in exactly
//! one index position, as `±var + c` with `c` free of map variables and of anything the
//! body writes. Scalars are shared unless they live inside the iteration.

use crate::util::{block_writes, same_index, VarSet};
use adjc_ir::*;

/// Whether `e` is `±v + c` with `c` free of `bad` variables.
pub(crate) fn unit_affine(e: &Expr, v: VarId, bad: &dyn Fn(VarId) -> bool) -> bool {
    let free = |x: &Expr| x.vars().into_iter().all(|u| !bad(u));
    match &e.kind {
        ExprKind::Var(u) => *u == v,
        ExprKind::Unary(UnOp::Neg, a) => unit_affine(a, v, bad),
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
            (unit_affine(a, v, bad) && free(b)) || (free(a) && unit_affine(b, v, bad))
        }
        _ => false,
    }
}

/// The variables of the dimensions that can take more than one value: a dimension of one
/// iteration (`l in [0, 1)`, the kept axis of `np.sum(..., keepdims=True)`) cannot make two
/// iterations collide, so its variable is a constant for the ownership analyses.
pub(crate) fn iterating_vars(dims: &[MapDim]) -> Vec<VarId> {
    dims.iter()
        .filter(|d| !matches!((d.start.as_int(), d.stop.as_int()), (Some(a), Some(b)) if b - a == 1))
        .map(|d| d.var)
        .collect()
}

/// Whether distinct iterations of a map over `map_vars` reach distinct elements through
/// `index`. `written`: variables the body writes (they may differ per iteration).
pub(crate) fn injective(index: &[Expr], map_vars: &[VarId], written: &VarSet) -> bool {
    let bad = |u: VarId| map_vars.contains(&u) || written.contains(&u);
    let mut used = vec![false; map_vars.len()];
    for e in index {
        let vs = e.vars();
        let mine: Vec<usize> = map_vars.iter().enumerate().filter(|(_, v)| vs.contains(v)).map(|(k, _)| k).collect();
        match mine.as_slice() {
            // Positions without a map variable cannot make two iterations collide.
            [] => {}
            [k] => {
                if used[*k] || !unit_affine(e, map_vars[*k], &bad) {
                    return false;
                }
                used[*k] = true;
            }
            _ => return false,
        }
    }
    used.iter().all(|u| *u)
}

/// Whether accumulation index `other` (into the same array) agrees with `index` at every
/// position where `index` mentions a map variable: then, when `index` is injective, the
/// iterations own disjoint slabs (rows `i` in `x_b[i, j] += ...; x_b[i, 0] += ...` of a
/// scan along `j`), and neither can reach another iteration's slab.
fn owns_alike(other: &[Expr], index: &[Expr], map_vars: &[VarId]) -> bool {
    if same_index(other, index) {
        return true;
    }
    other.len() == index.len()
        && index.iter().zip(other).all(|(a, b)| {
            !map_vars.iter().any(|v| a.mentions(*v)) || same_index(std::slice::from_ref(a), std::slice::from_ref(b))
        })
}

/// Sets `shared` on every accumulation into a variable created by autodiff (id ≥
/// `first_ad`) in an adjoint map body over `map_vars`. `private`: scalars that live inside
/// one iteration.
pub(crate) fn mark(body: &mut Block, map_vars: &[VarId], private: &VarSet, first_ad: usize) {
    let written = block_writes(body);
    let mut targets: Vec<(VarId, Vec<Expr>)> = Vec::new();
    walk_stmts(body, &mut |s| {
        if let StmtKind::Accumulate { target, .. } = &s.kind {
            if target.var.index() >= first_ad {
                targets.push((target.var, target.index.clone()));
            }
        }
    });
    let decide = |var: VarId, index: &[Expr]| -> bool {
        if index.is_empty() {
            return !private.contains(&var);
        }
        let alone = targets.iter().filter(|(v, _)| *v == var).all(|(_, i)| owns_alike(i, index, map_vars));
        !(alone && injective(index, map_vars, &written))
    };
    fn apply(b: &mut Block, first_ad: usize, decide: &dyn Fn(VarId, &[Expr]) -> bool) {
        for s in b.iter_mut() {
            if let StmtKind::Accumulate { target, shared, .. } = &mut s.kind {
                if target.var.index() >= first_ad {
                    *shared = decide(target.var, &target.index);
                }
            }
            for c in s.blocks_mut() {
                apply(c, first_ad, decide);
            }
        }
    }
    apply(body, first_ad, &decide);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injectivity() {
        let (i, j, k) = (VarId(0), VarId(1), VarId(2));
        let v = |x| Expr::var(x, Scalar::I64);
        let none = VarSet::new();
        assert!(injective(&[v(i).sub(Expr::int(1))], &[i], &none));
        assert!(injective(&[v(j), Expr::int(3).sub(v(i))], &[i, j], &none));
        assert!(injective(&[v(i).add(v(k)), v(j)], &[i, j], &none));
        assert!(!injective(&[v(i)], &[i, j], &none), "j missing: broadcast");
        assert!(!injective(&[v(i).add(v(j))], &[i, j], &none));
        assert!(!injective(&[v(i).mul(Expr::int(2))], &[i], &none));
        assert!(!injective(&[v(i).add(v(k))], &[i], &VarSet::from([k])), "k differs per iteration");
        assert!(injective(&[v(i), v(k)], &[i], &VarSet::from([k])), "i alone separates iterations");
    }

    #[test]
    fn slabs_owned_alike() {
        let (i, j) = (VarId(0), VarId(1));
        let v = |x| Expr::var(x, Scalar::I64);
        // Row `i` in both: each iteration owns its row.
        assert!(owns_alike(&[v(i), Expr::int(0)], &[v(i), v(j)], &[i]));
        // Another row (`i - 1`): a neighbour's slab.
        assert!(!owns_alike(&[v(i).sub(Expr::int(1)), v(j)], &[v(i), v(j)], &[i]));
        // The map variable moved to another axis.
        assert!(!owns_alike(&[v(j), v(i)], &[v(i), v(j)], &[i]));
        assert!(!owns_alike(&[v(i)], &[v(i), v(j)], &[i]));
    }
}
