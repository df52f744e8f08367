//! A zero-fill followed by an accumulation over the same elements is an assignment.
//!
//! The reverse sweep starts every local adjoint at zero (`temp_b[i] = 0.0` over the whole
//! array) and its first update then adds to it (`distance_matrix_b[i] += ret_b[i]`). When
//! that first update is a map over the same index space that adds into each element of the
//! array once, at the iteration's own element, the fill is a pass over memory that computes
//! nothing: the map can assign (`distance_matrix_b[i] = ret_b[i]`) and the fill goes. For
//! element-wise kernels (arc_distance, cavity_flow, ...) the arrays are as large as the
//! inputs, so each fill removed is one full pass fewer.
//!
//! ## When it applies
//!
//! * The fill is a map whose body is the one statement `V[i, j, ...] = 0` (the map's own
//!   indices, in order).
//! * The next statement of the same block that mentions `V` is a map with the same bounds
//!   (index variables renamed) whose body, at its top level, holds exactly one statement
//!   that mentions `V`: `V[own indices] += e` with `e` not reading `V`. Top level: the
//!   update runs exactly once per element, not under a condition or in an inner loop.
//! * Nothing in between writes what the fill reads (its bounds).
//!
//! A fill whose next mention is the same fill again is dead too and goes.
//!
//! Then every element of `V` the fill zeroed is assigned `e` by the map, which is what
//! `0 + e` gave (exactly: `0.0 + e` is `e` for every `e` but `-0.0`, whose sign nothing
//! downstream of an adjoint can observe except through division by zero, which adjoints
//! of adjc's rules do not do on accumulated values).
//!
//! ## Dead zeroing
//!
//! The other end of a local adjoint's life: the map that last reads `temp_b[i]` also resets
//! it (`temp_b[i] = 0.0`, so that a later use would start from zero). When `V` is a local
//! array (not a parameter), the map is a statement of a top-level section (not inside a
//! loop that would run it again), nothing after it in the function mentions `V` but its
//! `free`, and in the map's body nothing after the reset mentions `V`, the reset is a store
//! nobody reads: it goes.

use crate::rank_update::{depends, effects, next_mention, same_int};
use crate::util::same;
use adjc_ir::*;

/// `f` with fills of local arrays merged into the accumulation that follows them.
pub fn merge_fills(f: &Function) -> Function {
    let mut out = f.clone();
    rewrite_block(&mut out.body);
    drop_dead_resets(&mut out);
    out
}

/// Removes the resets to zero of local arrays that nothing reads afterwards (module docs).
fn drop_dead_resets(f: &mut Function) {
    let is_local = |f: &Function, v: VarId| f.param(v).is_none() && f.var(v).ty.rank() > 0;
    let n = f.body.len();
    for top in 0..n {
        // Mentions after the section, frees excluded.
        let after: crate::util::VarSet = f.body[top + 1..]
            .iter()
            .filter(|s| !matches!(s.kind, StmtKind::Free(_)))
            .flat_map(|s| effects(s).1)
            .collect();
        let StmtKind::Section { body, .. } = &f.body[top].kind else { continue };
        let mut edits: Vec<(usize, usize)> = Vec::new();
        for (p, s) in body.iter().enumerate() {
            let StmtKind::Map(m) = &s.kind else { continue };
            let later: crate::util::VarSet = body[p + 1..].iter().flat_map(|t| effects(t).1).collect();
            for (k, st) in m.body.iter().enumerate() {
                let StmtKind::Assign { target, value } = &st.kind else { continue };
                let v = target.var;
                // Any index: a map's iterations do not read what another writes, and nothing
                // after this statement reads `v` at all.
                if value.as_float() != Some(0.0)
                    || target.index.is_empty()
                    || !is_local(f, v)
                    || later.contains(&v)
                    || after.contains(&v)
                    || m.body[k + 1..].iter().any(|t| effects(t).1.contains(&v))
                {
                    continue;
                }
                edits.push((p, k));
            }
        }
        let StmtKind::Section { body, .. } = &mut f.body[top].kind else { continue };
        for (p, k) in edits.into_iter().rev() {
            if let StmtKind::Map(m) = &mut body[p].kind {
                m.body.remove(k);
                if m.body.is_empty() {
                    body.remove(p);
                }
            }
        }
    }
}

fn rewrite_block(b: &mut Block) {
    for s in b.iter_mut() {
        for inner in s.blocks_mut() {
            rewrite_block(inner);
        }
    }
    let mut p = 0;
    while p < b.len() {
        if let Some(v) = fill_var(&b[p]) {
            if let Some(q) = next_mention(b, p + 1, v) {
                let fe = effects(&b[p]);
                let clear = b[p + 1..q].iter().all(|s| !depends(&fe, &effects(s)));
                let fill = b[p].clone();
                if clear && (refilled(&fill, &b[q]) || assign_first_update(&fill, &mut b[q], v)) {
                    b.remove(p);
                    continue;
                }
            }
        }
        p += 1;
    }
}

/// Whether `next` is the same fill again (atax's `ret_b = 0` after the adjoint of the
/// product and again as the output's reset on exit): the first one is then dead.
fn refilled(fill: &Stmt, next: &Stmt) -> bool {
    let (StmtKind::Map(a), StmtKind::Map(b)) = (&fill.kind, &next.kind) else { return false };
    if fill_var(next).is_none() || a.dims.len() != b.dims.len() {
        return false;
    }
    let mut renamed = b.clone();
    for (x, y) in b.dims.iter().zip(&a.dims) {
        crate::util::rename_in_block(&mut renamed.body, x.var, y.var);
    }
    a.dims.iter().zip(&b.dims).all(|(x, y)| same_int(&x.start, &y.start) && same_int(&x.stop, &y.stop))
        && a.body.len() == renamed.body.len()
        && a.body.iter().zip(&renamed.body).all(|(s, t)| match (&s.kind, &t.kind) {
            (StmtKind::Assign { target: p, value: e }, StmtKind::Assign { target: q, value: g }) => {
                p.var == q.var && crate::util::same_index(&p.index, &q.index) && same(e, g)
            }
            _ => false,
        })
}

/// The array a map sets to zero element by element (`V[own indices] = 0`).
fn fill_var(s: &Stmt) -> Option<VarId> {
    let StmtKind::Map(m) = &s.kind else { return None };
    let [st] = m.body.as_slice() else { return None };
    let StmtKind::Assign { target, value } = &st.kind else { return None };
    (value.as_float() == Some(0.0) && value.ty.is_float() && own(&target.index, m)).then_some(target.var)
}

fn own(index: &[Expr], m: &Map) -> bool {
    index.len() == m.dims.len()
        && index.iter().zip(&m.dims).all(|(e, d)| matches!(e.kind, ExprKind::Var(x) if x == d.var))
}

/// Rewrites the one `V[own] += e` of map `update` (same space as `fill`) into `V[own] = e`;
/// false (nothing changed) when `update` is not of that form.
fn assign_first_update(fill: &Stmt, update: &mut Stmt, v: VarId) -> bool {
    let (StmtKind::Map(fm), StmtKind::Map(um)) = (&fill.kind, &mut update.kind) else { return false };
    if fm.dims.len() != um.dims.len() {
        return false;
    }
    for (k, (a, b)) in fm.dims.iter().zip(&um.dims).enumerate() {
        let (mut start, mut stop) = (a.start.clone(), a.stop.clone());
        for (x, y) in fm.dims[..k].iter().zip(&um.dims) {
            start = start.substitute(x.var, &Expr::var(y.var, Scalar::I64));
            stop = stop.substitute(x.var, &Expr::var(y.var, Scalar::I64));
        }
        if !same_int(&start, &b.start) || !same_int(&stop, &b.stop) {
            return false;
        }
    }
    let mentioning: Vec<usize> = (0..um.body.len()).filter(|&k| effects(&um.body[k]).1.contains(&v)).collect();
    let [k] = mentioning.as_slice() else { return false };
    let ok = match &um.body[*k].kind {
        StmtKind::Accumulate { target, op: AccOp::Add, value, shared: false } => {
            target.var == v && own(&target.index, um) && !value.vars().contains(&v)
        }
        _ => false,
    };
    if !ok {
        return false;
    }
    let st = &mut um.body[*k];
    let StmtKind::Accumulate { target, value, .. } = std::mem::replace(&mut st.kind, StmtKind::Alloc(v)) else {
        return false;
    };
    st.kind = StmtKind::Assign { target, value };
    true
}
