//! `nowait` on worksharing loops of a hoisted region whose next loop does not depend on them.
//!
//! Inside a hoisted region ([`crate::omp`]) every `omp for` ends with a barrier, so that the
//! construct after it sees its writes. A barrier costs about a microsecond at 2 threads
//! (more with more threads, and a descheduled thread stalls the others), and a stencil's
//! adjoint step in gather form is one interior map and one map per boundary strip of every
//! array it writes (heat_3d: 7 worksharing loops per gather, each iteration of the reversed
//! time loop 14 barriers where its work is ~20 µs). Those maps write disjoint parts of one
//! array and read arrays that none of them writes: no thread needs to wait between them.
//!
//! The rule: consecutive worksharing maps of one region level form a group as long as every
//! pair in the group is independent ([`independent`]); every map of a group but the last
//! gets `nowait`. The last keeps its barrier, and a thread reaching it has finished its
//! share of every map of the group, so everything after the barrier sees all their writes.
//! Anything else at the region level (an `omp single`, an inner loop that every thread
//! runs, the end of the loop body) closes the group. A map with a `reduction` clause never
//! gets `nowait` (its result is only complete after a barrier).
//!
//! Two maps are independent when no variable one writes is used by the other, except arrays
//! that both use at provably disjoint elements: on some axis both index it with one of
//! their own map variables plus a constant, and the two index ranges do not overlap for any
//! sizes ([`le`] proves `a <= b` through `min`/`max` and constant affine differences).
//! Scalars private to an iteration (declared in the map's body) are not shared.
//!
//! Or, for an array the second map reads (or writes) where the first wrote, when each
//! element is touched by the same thread in both: both maps index the array on some axis
//! with their distributed (outermost) variable plus the same constant, over the same
//! iteration range, and both carry an explicit `schedule(static)` (not collapsed, not a
//! `for simd`, same schedule). OpenMP assigns the iterations of such loops to threads
//! identically (the static schedule's guarantee for loops of equal trip count in one
//! region), so the thread that wrote row `l` in the first map is the one that reads it in
//! the second, and program order is all it needs. vadv's step is such a chain of
//! element-wise maps over the columns (`as_ = gav * BET_M` after `gav = ...`).

use crate::omp::{Mode, Plan};
use adjc_ir::proc::affine::Affine;
use adjc_ir::{walk_stmts, Block, Expr, ExprKind, Function, Intrinsic, Map, MapDim, Stmt, StmtKind, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// Sets `nowait` on the maps of `plan` that can go without their barrier.
pub(crate) fn plan_nowait(f: &Function, plan: &mut Plan) {
    let mut levels: Vec<&Block> = Vec::new();
    collect_levels(&f.body, plan, &mut levels);
    let mut marked = Vec::new();
    let mut same_schedule = BTreeSet::new();
    for level in levels {
        let mut group: Vec<&Map> = Vec::new();
        for s in level {
            match &s.kind {
                StmtKind::Alloc(_) | StmtKind::Free(_) if group_transparent(s, plan) => {}
                StmtKind::Map(m) if workshare_without_reduction(plan, m) => {
                    let verdicts: Option<Vec<Pair>> = group.iter().map(|g| pair(f, plan, g, m)).collect();
                    match verdicts {
                        Some(v) if !group.is_empty() => {
                            for (g, verdict) in group.iter().zip(v) {
                                if verdict == Pair::SameOwner {
                                    same_schedule.insert(g.id);
                                    same_schedule.insert(m.id);
                                }
                            }
                            marked.push(group.last().map(|g| g.id));
                            group.push(m);
                        }
                        _ => group = vec![m],
                    }
                }
                _ => group.clear(),
            }
        }
    }
    for id in marked.into_iter().flatten() {
        if let Some(p) = plan.maps.get_mut(&id) {
            p.nowait = true;
        }
    }
    for id in same_schedule {
        if let Some(p) = plan.maps.get_mut(&id) {
            p.same_schedule = true;
        }
    }
}

/// How two maps of a group may overlap.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pair {
    /// Nothing one writes is touched by the other (or at disjoint elements).
    Independent,
    /// Some element is touched by both, always by the same thread under `schedule(static)`.
    SameOwner,
}

/// The `Alloc`/`Free` of an array allocated at the top writes no code (see
/// [`crate::omp::writes_no_code`]); a placed one is a statement of an `omp single`.
fn group_transparent(s: &Stmt, plan: &Plan) -> bool {
    crate::omp::writes_no_code(s, &plan.placed)
}

fn workshare_without_reduction(plan: &Plan, m: &Map) -> bool {
    plan.map(m).is_some_and(|p| p.mode == Mode::Workshare && p.reductions.is_empty())
}

/// The bodies run at a region level: of hoisted loops and of the loops inside them that
/// every thread runs.
fn collect_levels<'a>(b: &'a Block, plan: &Plan, out: &mut Vec<&'a Block>) {
    for s in b {
        if let StmtKind::Loop(l) = &s.kind {
            if plan.region(l).is_some() || plan.region_loops.contains(&l.id) {
                out.push(&l.body);
            }
        }
        for inner in s.blocks() {
            collect_levels(inner, plan, out);
        }
    }
}

/// One access of a variable inside a map: its index (empty for a scalar) and whether it
/// writes (an assignment or accumulation target; an accumulation also reads the element).
struct Access {
    var: VarId,
    index: Vec<Expr>,
    write: bool,
}

fn accesses(m: &Map) -> Vec<Access> {
    let mut out = Vec::new();
    walk_stmts(&m.body, &mut |s: &Stmt| {
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } => {
                out.push(Access { var: target.var, index: target.index.clone(), write: true });
            }
            StmtKind::Pop { target, .. } => {
                out.push(Access { var: target.var, index: target.index.clone(), write: true });
            }
            _ => {}
        }
        s.exprs(&mut |e| {
            e.walk(&mut |x| match &x.kind {
                ExprKind::Load(a, idx) => out.push(Access { var: *a, index: idx.clone(), write: false }),
                ExprKind::Var(v) => out.push(Access { var: *v, index: Vec::new(), write: false }),
                _ => {}
            })
        });
    });
    // Loop variables of inner loops are written by their `for`: private to the iteration.
    let mut inner_vars = BTreeSet::new();
    walk_stmts(&m.body, &mut |s: &Stmt| {
        if let StmtKind::Loop(l) = &s.kind {
            inner_vars.insert(l.var);
        }
    });
    out.retain(|a| !inner_vars.contains(&a.var));
    out
}

/// Whether `a` and `b` (worksharing maps of one region level, `a` first) may run at the
/// same time, and on what condition (module docs); `None` when they may not.
fn pair(f: &Function, plan: &Plan, a: &Map, b: &Map) -> Option<Pair> {
    let own = |m: &Map| -> BTreeSet<VarId> {
        let mut s: BTreeSet<VarId> = m.dims.iter().map(|d| d.var).collect();
        if let Some(p) = plan.map(m) {
            s.extend(p.private.iter().copied());
        }
        s
    };
    let (own_a, own_b) = (own(a), own(b));
    let xs: Vec<Access> = accesses(a).into_iter().filter(|x| !own_a.contains(&x.var)).collect();
    let ys: Vec<Access> = accesses(b).into_iter().filter(|y| !own_b.contains(&y.var)).collect();
    let dims_a: BTreeMap<VarId, &MapDim> = a.dims.iter().map(|d| (d.var, d)).collect();
    let dims_b: BTreeMap<VarId, &MapDim> = b.dims.iter().map(|d| (d.var, d)).collect();
    let same_rows = same_distribution(plan, a, b);
    let mut verdict = Pair::Independent;
    for x in &xs {
        for y in ys.iter().filter(|y| y.var == x.var && (x.write || y.write)) {
            let array = f.var(x.var).ty.is_array();
            if !array || x.index.is_empty() {
                return None;
            }
            if disjoint(&x.index, &dims_a, &y.index, &dims_b) {
                continue;
            }
            match same_rows {
                Some((u, v)) if same_owner(&x.index, u, &y.index, v) => verdict = Pair::SameOwner,
                _ => return None,
            }
        }
    }
    Some(verdict)
}

/// The distributed variables of `a` and `b` when OpenMP gives both the same iterations per
/// thread under `schedule(static)`: neither collapsed nor `for simd`, the same schedule
/// (both triangular `static, 1` or both plain), and outermost ranges that are equal for
/// every size.
fn same_distribution(plan: &Plan, a: &Map, b: &Map) -> Option<(VarId, VarId)> {
    let (pa, pb) = (plan.map(a)?, plan.map(b)?);
    let plain = |p: &crate::omp::MapPlan, m: &Map| p.collapse == 1 && !(p.simd && m.dims.len() == 1);
    if !plain(pa, a) || !plain(pb, b) || pa.balanced != pb.balanced {
        return None;
    }
    let (da, db) = (a.dims.first()?, b.dims.first()?);
    let equal = |x: &Expr, y: &Expr| le(x, y, 0) && le(y, x, 0);
    (equal(&da.start, &db.start) && equal(&da.stop, &db.stop)).then_some((da.var, db.var))
}

/// Whether some axis is `u + c` in `ix` and `v + c` in `iy` (the same `c`): iteration `u`
/// of one map and iteration `v` of the other touch the same element only when `u == v`.
fn same_owner(ix: &[Expr], u: VarId, iy: &[Expr], v: VarId) -> bool {
    let offset = |e: &Expr, w: VarId| -> Option<i64> {
        let a = Affine::linear(e)?;
        match a.terms.as_slice() {
            [(adjc_ir::proc::affine::Atom::Var(x), 1)] if *x == w => Some(a.konst),
            _ => None,
        }
    };
    ix.iter().zip(iy).any(|(ex, ey)| matches!((offset(ex, u), offset(ey, v)), (Some(c), Some(d)) if c == d))
}

/// Whether two indexings of one array touch different elements for every iteration of
/// their maps: some axis is `u + c` in one and `v + d` in the other (`u`, `v` variables of
/// the maps) over ranges that cannot overlap.
fn disjoint(ix: &[Expr], da: &BTreeMap<VarId, &MapDim>, iy: &[Expr], db: &BTreeMap<VarId, &MapDim>) -> bool {
    ix.iter().zip(iy).any(|(ex, ey)| {
        let (Some((ra, ca)), Some((rb, cb))) = (offset_of(ex, da), offset_of(ey, db)) else { return false };
        // [start_a + ca, stop_a + ca) and [start_b + cb, stop_b + cb)
        le(&ra.stop, &rb.start, ca - cb) || le(&rb.stop, &ra.start, cb - ca)
    })
}

/// `v + c` with `v` a variable of the map: its dimension and `c`.
fn offset_of<'a>(e: &Expr, dims: &BTreeMap<VarId, &'a MapDim>) -> Option<(&'a MapDim, i64)> {
    let a = Affine::linear(e)?;
    let [(adjc_ir::proc::affine::Atom::Var(v), 1)] = a.terms.as_slice() else { return None };
    Some((*dims.get(v)?, a.konst))
}

/// Whether `a + d <= b` whatever the sizes: through `min` and `max` on either side, down
/// to affine expressions whose difference is a constant.
pub(crate) fn le(a: &Expr, b: &Expr, d: i64) -> bool {
    if let ExprKind::Call(op @ (Intrinsic::Min | Intrinsic::Max), args) = &a.kind {
        if let [x, y] = args.as_slice() {
            return match op {
                Intrinsic::Min => le(x, b, d) || le(y, b, d),
                _ => le(x, b, d) && le(y, b, d),
            };
        }
    }
    if let ExprKind::Call(op @ (Intrinsic::Min | Intrinsic::Max), args) = &b.kind {
        if let [x, y] = args.as_slice() {
            return match op {
                Intrinsic::Max => le(a, x, d) || le(a, y, d),
                _ => le(a, x, d) && le(a, y, d),
            };
        }
    }
    let (Some(x), Some(y)) = (Affine::linear(a), Affine::linear(b)) else { return false };
    y.sub(&x).as_const().and_then(|c| c.checked_sub(d)).is_some_and(|c| c >= 0)
}

#[cfg(test)]
mod tests {
    use super::le;
    use adjc_ir::{Expr, Intrinsic, Scalar, VarId};

    fn n() -> Expr {
        Expr::var(VarId(0), Scalar::I64)
    }

    fn call(f: Intrinsic, a: Expr, b: Expr) -> Expr {
        Expr::call(f, vec![a, b], Scalar::I64)
    }

    #[test]
    fn proves_the_bounds_of_peeled_boundary_strips() {
        // interior [2, n - 2), strips [0, min(2, n)) and [max(n - 2, 2), n)
        let lo_stop = call(Intrinsic::Min, Expr::int(2), n());
        let hi_start = call(Intrinsic::Max, n().sub(Expr::int(2)), Expr::int(2));
        assert!(le(&lo_stop, &Expr::int(2), 0));
        assert!(le(&n().sub(Expr::int(2)), &hi_start, 0));
        assert!(le(&lo_stop, &hi_start, 0));
        // shifted: an access at i + 1 over [0, min(2, n)) ends at most at 3
        assert!(le(&lo_stop, &Expr::int(3), 1));
        assert!(!le(&lo_stop, &Expr::int(2), 1));
        // and refuses what does not hold for every n
        assert!(!le(&n(), &Expr::int(2), 0));
        assert!(!le(&hi_start, &n().sub(Expr::int(3)), 0));
        assert!(!le(&call(Intrinsic::Max, Expr::int(2), n()), &Expr::int(2), 0));
    }
}
