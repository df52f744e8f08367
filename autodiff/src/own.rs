//! Owner-computes order for sequential adjoint nests (part of the `split` pass).
//!
//! The adjoint of a convolution written as loops over output pixels with window reads is
//! a reversed loop nest of window accumulations:
//!
//! ```text
//! loop i { loop j { loop k { loop l {
//!   loop m in [i, i + K) { loop n in [j, j + K) { loop p {
//!     input_b[k, m, n, p] += weights[m - i, n - j, p, l] * output_b[k, i, j, l]
//!     weights_b[m - i, n - j, p, l] += input[k, m, n, p] * output_b[k, i, j, l]
//!   } } }
//!   output_b[k, i, j, l] = 0.0
//! } } } }
//! ```
//!
//! Windows overlap, so the pixel loops cannot run in parallel as they stand. But each
//! update on its own is a sum whose terms commute: `weights_b[.., p, l]` is owned by `l`
//! (and `p`), `input_b[k, .., p]` by `k` (and `p`). Each update gets a nest of its own whose
//! outermost owning loop becomes a parallel map around the others (in their original order,
//! so every element receives its terms in the same order as before: the result is bit for
//! bit the sequential one, and the innermost loop still walks contiguous memory); the
//! zeroing runs last, in what is left of the nest.
//!
//! ## When it applies (why the result is the same)
//!
//! The nest holds only loops of step ±1, `+=` updates of adjoint arrays and assignments of
//! zero to array elements, and
//! 1. no updated array is read in the nest (values, indices, bounds) or zeroed in it: the
//!    updates commute and nothing observes them;
//! 2. an array that is zeroed is zeroed by one statement, at an index that is injective in
//!    the loops around that statement, and read only at that same index, by statements
//!    inside those loops and before the zeroing: every read sees the value the element had
//!    on entry, which it still has when the updates run first;
//! 3. every update has an owning loop: one whose bounds use no other loop of the nest and
//!    whose variable `v` appears in a position `±v + c` of the update's index (`c` free of
//!    the nest's variables). Otherwise the nest is left as it is.

use crate::shared::unit_affine;
use crate::util::{same_index, VarSet};
use adjc_ir::*;

/// A statement of the nest other than a loop, with its enclosing loops (outermost first)
/// and its position in program order.
struct Leaf<'a> {
    stmt: &'a Stmt,
    chain: Vec<&'a Stmt>,
    order: usize,
}

fn loop_of(s: &Stmt) -> &Loop {
    match &s.kind {
        StmtKind::Loop(l) => l,
        _ => unreachable!("chains hold loops only"),
    }
}

/// The leaves of the nest rooted at loop `s`, or `None` when it holds anything but loops
/// of unit step, non-shared `+=` into arrays and zero assignments to arrays.
fn leaves(s: &Stmt) -> Option<Vec<Leaf<'_>>> {
    fn go<'a>(s: &'a Stmt, chain: &mut Vec<&'a Stmt>, out: &mut Vec<Leaf<'a>>) -> bool {
        match &s.kind {
            StmtKind::Loop(l) if matches!(l.step.as_int(), Some(1 | -1)) => {
                chain.push(s);
                let ok = l.body.iter().all(|t| go(t, chain, out));
                chain.pop();
                ok
            }
            StmtKind::Accumulate { target, op: AccOp::Add, shared: false, .. } if !target.is_scalar() => {
                out.push(Leaf { stmt: s, chain: chain.clone(), order: out.len() });
                true
            }
            StmtKind::Assign { target, value } if !target.is_scalar() && value.as_float() == Some(0.0) => {
                out.push(Leaf { stmt: s, chain: chain.clone(), order: out.len() });
                true
            }
            _ => false,
        }
    }
    let mut out = Vec::new();
    go(s, &mut Vec::new(), &mut out).then_some(out)
}

/// Every expression the nest evaluates: values, indices, loop bounds.
fn nest_exprs<'a>(s: &'a Stmt, out: &mut Vec<&'a Expr>) {
    match &s.kind {
        StmtKind::Loop(l) => {
            out.extend([&l.start, &l.stop, &l.step]);
            l.body.iter().for_each(|t| nest_exprs(t, out));
        }
        StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
            out.extend(target.index.iter());
            out.push(value);
        }
        _ => {}
    }
}

/// The reordered nests replacing loop `s`, or `None` when the rule does not apply.
pub(crate) fn reorder(f: &mut Function, s: &Stmt) -> Option<Vec<Stmt>> {
    let leaves = leaves(s)?;
    let target = |l: &Leaf| match &l.stmt.kind {
        StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } => target.clone(),
        _ => unreachable!("leaves are writes"),
    };
    let is_update = |l: &Leaf| matches!(l.stmt.kind, StmtKind::Accumulate { .. });
    let updated: VarSet = leaves.iter().filter(|l| is_update(l)).map(|l| target(l).var).collect();
    let zeroed: VarSet = leaves.iter().filter(|l| !is_update(l)).map(|l| target(l).var).collect();
    if updated.is_empty() || !updated.is_disjoint(&zeroed) {
        return None;
    }
    if !updated.iter().all(|v| matches!(f.var(*v).role, VarRole::Adjoint(_))) {
        return None;
    }
    let mut exprs = Vec::new();
    nest_exprs(s, &mut exprs);
    // Rule 1: updated arrays are never read.
    if exprs.iter().any(|e| updated.iter().any(|v| e.mentions(*v))) {
        return None;
    }
    let written: VarSet = updated.union(&zeroed).copied().collect();
    // Rule 2: each zeroed array is read only at its zeroed element, before the zeroing.
    for z in &zeroed {
        let sites: Vec<&Leaf> = leaves.iter().filter(|l| !is_update(l) && target(l).var == *z).collect();
        let [zl] = sites.as_slice() else { return None };
        let idx = target(zl).index;
        let chain_vars: Vec<VarId> = zl.chain.iter().map(|c| loop_of(c).var).collect();
        if !crate::shared::injective(&idx, &chain_vars, &written) {
            return None;
        }
        let reads_ok = leaves.iter().all(|l| {
            let mut reads_z = Vec::new();
            let mut own_exprs = Vec::new();
            match &l.stmt.kind {
                StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
                    own_exprs.extend(target.index.iter());
                    own_exprs.push(value);
                }
                _ => {}
            }
            for e in own_exprs {
                e.walk(&mut |x| {
                    if let ExprKind::Load(v, i) = &x.kind {
                        if v == z {
                            reads_z.push(i.clone());
                        }
                    }
                });
            }
            reads_z.is_empty()
                || (l.order < zl.order
                    && l.chain.len() >= zl.chain.len()
                    && l.chain.iter().zip(&zl.chain).all(|(a, b)| loop_of(a).id == loop_of(b).id)
                    && reads_z.iter().all(|i| same_index(i, &idx)))
        });
        // Loop bounds never read adjoint arrays in practice; refuse rather than reason.
        let in_bounds = leaves.iter().any(|l| {
            l.chain.iter().any(|c| {
                let lp = loop_of(c);
                [&lp.start, &lp.stop, &lp.step].iter().any(|e| e.mentions(*z))
            })
        });
        if !reads_ok || in_bounds {
            return None;
        }
    }
    // Rule 3: every update has an owning loop.
    let mut plans = Vec::new();
    for l in leaves.iter().filter(|l| is_update(l)) {
        let vars: Vec<VarId> = l.chain.iter().map(|c| loop_of(c).var).collect();
        let bad = |u: VarId| vars.contains(&u) || written.contains(&u);
        let idx = target(l).index;
        let own: Vec<bool> = l
            .chain
            .iter()
            .map(|c| {
                let lp = loop_of(c);
                let rectangular = [&lp.start, &lp.stop].iter().all(|e| e.vars().iter().all(|u| !vars.contains(u)));
                rectangular && idx.iter().any(|e| unit_affine(e, lp.var, &bad))
            })
            .collect();
        // Only the outermost owner becomes the map: the loops inside keep their order, so
        // the innermost one still walks contiguous memory (the channel axis of NHWC).
        let Some(first) = own.iter().position(|o| *o) else { return None };
        let own: Vec<bool> = (0..own.len()).map(|k| k == first).collect();
        plans.push((l, own));
    }
    let mut out = Vec::new();
    for (l, own) in plans {
        let mut st = owner_nest(f, l, &own);
        if out.is_empty() {
            st.note = Some(Note::OwnedReorder);
        }
        out.push(st);
    }
    if let Some(rest) = without_updates(s) {
        out.push(rest);
    }
    Some(out)
}

/// The update of `leaf` as a map over its owning loop (`own`) around the other loops of its
/// chain, in their order, all over fresh index variables.
fn owner_nest(f: &mut Function, leaf: &Leaf, own: &[bool]) -> Stmt {
    let mut renames: Vec<(VarId, Expr)> = Vec::new();
    let rename =
        |renames: &[(VarId, Expr)], e: &Expr| renames.iter().fold(e.clone(), |e, (v, to)| e.substitute(*v, to));
    let mut dims = Vec::new();
    let mut loops = Vec::new();
    for (c, owned) in leaf.chain.iter().zip(own) {
        let l = loop_of(c);
        let old = f.var(l.var).clone();
        let new = f.add_var(old.name, old.ty, VarRole::Index, old.span);
        let (start, stop) = (rename(&renames, &l.start), rename(&renames, &l.stop));
        if *owned {
            // range(a, b, 1) is [a, b); range(a, b, -1) is [b + 1, a + 1).
            let (lo, hi) = if l.step.as_int() == Some(1) {
                (start, stop)
            } else {
                (stop.add(Expr::int(1)), start.add(Expr::int(1)))
            };
            dims.push(MapDim { var: new, start: lo, stop: hi });
        } else {
            loops.push((
                c.span,
                Loop { id: LoopId::NEW, var: new, start, stop, step: l.step.clone(), body: Vec::new() },
            ));
        }
        renames.push((l.var, Expr::var(new, Scalar::I64)));
    }
    let mut update = leaf.stmt.clone();
    if let StmtKind::Accumulate { target, value, .. } = &mut update.kind {
        target.index = target.index.iter().map(|e| rename(&renames, e)).collect();
        *value = rename(&renames, value);
    }
    let body = loops
        .into_iter()
        .rev()
        .fold(vec![update], |body, (span, l)| vec![Stmt::new(StmtKind::Loop(Loop { body, ..l }), span)]);
    Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims, body }), leaf.chain[0].span)
}

/// Loop `s` without its updates and without the loops left empty, if anything remains.
fn without_updates(s: &Stmt) -> Option<Stmt> {
    match &s.kind {
        StmtKind::Loop(l) => {
            let body: Block = l.body.iter().filter_map(without_updates).collect();
            (!body.is_empty()).then(|| Stmt { kind: StmtKind::Loop(Loop { body, ..l.clone() }), ..s.clone() })
        }
        StmtKind::Accumulate { .. } => None,
        _ => Some(s.clone()),
    }
}
