//! A map around one sequential loop of adjoint updates, as one map over both (part of the
//! `split` pass, so that [`crate::gather`] sees the whole stencil).
//!
//! Fortran's `do i; do j; b(j, i) = 0.2 * (a(j, i) + a(j - 1, i) + ...)` has a parallel outer
//! loop and a sequential inner one; its adjoint is
//!
//! ```text
//! map i { loop j (reversed) {
//!   a_b[j, i] += 0.2 * b_b[j, i] shared
//!   a_b[j - 1, i] += 0.2 * b_b[j, i] shared
//!   ...
//!   b_b[j, i] = 0.0
//! } }
//! ```
//!
//! The inner loop carries nothing from one iteration to the next: the order of its
//! iterations only orders terms of sums. So the nest is the map over `i, j` whose updates
//! are all `shared`, which split and gather then make race-free.
//!
//! ## When (why the map computes the same thing)
//!
//! The map's body is one loop of step ±1 whose bounds read neither the map's variables nor
//! anything the body writes; its body holds only `+=` into arrays and assignments to array
//! elements, and
//! 1. no accumulated array is read or assigned in the body: the accumulations commute;
//! 2. an assigned array is assigned by one statement, at an index injective in the map's
//!    and the loop's variables, and read only at that index, by that statement or
//!    statements before it: every iteration reads its own element before writing it, which
//!    no other iteration touches.
//!
//! Then no iteration of the map over both observes another, except through accumulations,
//! all marked `shared`. The caller keeps the flat map only when split leaves none shared.

use crate::util::{same_index, VarSet};
use adjc_ir::*;

/// The map over `m`'s dimensions and its single loop's variable, or `None` when the rule
/// does not apply.
pub(crate) fn flatten(m: &Map) -> Option<Map> {
    let [Stmt { kind: StmtKind::Loop(l), .. }] = m.body.as_slice() else { return None };
    let step = l.step.as_int()?;
    if step != 1 && step != -1 {
        return None;
    }
    let mut vars: Vec<VarId> = m.dims.iter().map(|d| d.var).collect();
    vars.push(l.var);
    let mut accumulated = VarSet::new();
    let mut assigned: Vec<(usize, &Place)> = Vec::new();
    for (p, s) in l.body.iter().enumerate() {
        match &s.kind {
            StmtKind::Accumulate { target, op: AccOp::Add, .. } if !target.is_scalar() => {
                accumulated.insert(target.var);
            }
            StmtKind::Assign { target, .. } if !target.is_scalar() => assigned.push((p, target)),
            _ => return None,
        }
    }
    let written: VarSet = accumulated.iter().copied().chain(assigned.iter().map(|(_, t)| t.var)).collect();
    if [&l.start, &l.stop].iter().any(|e| vars.iter().chain(&written).any(|v| e.mentions(*v))) {
        return None;
    }
    if m.dims.iter().any(|d| written.iter().any(|v| d.start.mentions(*v) || d.stop.mentions(*v))) {
        return None;
    }
    // Every load in the body, with the position of its statement.
    let mut loads: Vec<(usize, VarId, Vec<Expr>)> = Vec::new();
    for (p, s) in l.body.iter().enumerate() {
        s.exprs(&mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Load(v, idx) = &x.kind {
                    loads.push((p, *v, idx.clone()));
                }
            })
        });
    }
    // Rule 1.
    if loads.iter().any(|(_, v, _)| accumulated.contains(v))
        || assigned.iter().any(|(_, t)| accumulated.contains(&t.var))
    {
        return None;
    }
    // Rule 2.
    for (p, t) in &assigned {
        if assigned.iter().filter(|(_, u)| u.var == t.var).count() != 1
            || !crate::shared::injective(&t.index, &vars, &VarSet::new())
            || !loads.iter().filter(|(_, v, _)| *v == t.var).all(|(q, _, idx)| q <= p && same_index(idx, &t.index))
        {
            return None;
        }
    }
    // range(a, b, 1) is [a, b); range(a, b, -1) is [b + 1, a + 1).
    let (start, stop) = if step == 1 {
        (l.start.clone(), l.stop.clone())
    } else {
        (l.stop.clone().add(Expr::int(1)), l.start.clone().add(Expr::int(1)))
    };
    let mut dims = m.dims.clone();
    dims.push(MapDim { var: l.var, start, stop });
    let mut body = l.body.clone();
    for s in body.iter_mut() {
        if let StmtKind::Accumulate { shared, .. } = &mut s.kind {
            *shared = true;
        }
    }
    Some(Map { id: MapId::NEW, dims, body })
}

/// Whether some accumulation in `stmts` (any depth) is `shared`.
pub(crate) fn any_shared(stmts: &[Stmt]) -> bool {
    let mut found = false;
    walk_stmts(&stmts.to_vec(), &mut |t| found |= matches!(t.kind, StmtKind::Accumulate { shared: true, .. }));
    found
}
