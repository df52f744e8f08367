//! A map's shared additions into one array element become a scalar reduction.
//!
//! The adjoint of `R[k, j] = np.dot(Q[:, k], A[:, j])`'s neighbour `A[:, j] -= Q[:, k] * R[k, j]`
//! is a map over the rows `i` that adds `-Q[i, k] * A_b[i, j]` into the one element
//! `R_b[k, j]` from every iteration: a `shared` accumulation, which the OpenMP build emits
//! as an `omp atomic` per iteration (a serialising update that also stops vectorisation).
//! When the element's index does not depend on the map's counters nor on anything the body
//! writes, and the body touches the array only through `+=` into that same element, the
//! additions go into a fresh scalar instead:
//!
//! ```text
//! s = 0;  map i { ...; s += v(i) (shared) };  R_b[k, j] += s
//! ```
//!
//! A shared `+=` into a scalar declared outside the map is an OpenMP `reduction(+: s)`
//! clause (emit/src/omp.rs): per-thread partial sums combined once, no atomics. The value
//! is the same sum, reassociated as any parallel reduction is.

use crate::util::{same_index, VarSet};
use adjc_ir::*;

/// `f` with every eligible shared element accumulation of its maps turned into a reduction.
pub fn reduce_shared_elements(f: &Function) -> Function {
    let mut out = f.clone();
    let mut body = std::mem::take(&mut out.body);
    block(&mut out, &mut body);
    out.body = body;
    out
}

fn block(f: &mut Function, b: &mut Block) {
    let mut k = 0;
    while k < b.len() {
        if let StmtKind::Map(m) = &mut b[k].kind {
            let (before, after) = rewrite(f, m);
            let span = b[k].span;
            let (nb, na) = (before.len(), after.len());
            let mk = |kind| Stmt::new(kind, span);
            b.splice(k + 1..k + 1, after.into_iter().map(mk));
            b.splice(k..k, before.into_iter().map(mk));
            k += nb + 1 + na;
            continue;
        }
        for inner in b[k].blocks_mut() {
            block(f, inner);
        }
        k += 1;
    }
}

/// Rewrites the eligible accumulations of map `m`: the statements to run before and after it.
fn rewrite(f: &mut Function, m: &mut Map) -> (Vec<StmtKind>, Vec<StmtKind>) {
    let mut bound: VarSet = m.dims.iter().map(|d| d.var).collect();
    bound.extend(written_vars(&m.body));
    walk_stmts(&m.body, &mut |s| {
        if let StmtKind::Loop(l) = &s.kind {
            bound.insert(l.var);
        }
        if let StmtKind::Map(inner) = &s.kind {
            bound.extend(inner.dims.iter().map(|d| d.var));
        }
    });
    // Candidate (array, index) pairs: shared `+=` into an element with an invariant index.
    let mut found: Vec<(VarId, Vec<Expr>)> = Vec::new();
    walk_stmts(&m.body, &mut |s| {
        if let StmtKind::Accumulate { target, op: AccOp::Add, shared: true, .. } = &s.kind {
            let invariant = target.index.iter().all(|e| e.vars().iter().all(|v| !bound.contains(v)));
            let array = f.var(target.var).ty.is_array();
            if array && invariant && !found.iter().any(|(v, i)| *v == target.var && same_index(i, &target.index)) {
                found.push((target.var, target.index.clone()));
            }
        }
    });
    // Every access to the array in the body must be `+=` into that one element.
    found.retain(|(var, index)| only_added_here(&m.body, *var, index));
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for (var, index) in found {
        let Type::Array { elem, .. } = f.var(var).ty else { continue };
        let name = f.fresh_name(&format!("{}_sum", f.var(var).name));
        let s = f.add_var(name, Type::Scalar(elem), VarRole::Local, Span::NONE);
        retarget(&mut m.body, var, &index, s);
        before.push(StmtKind::Assign { target: Place::scalar(s), value: Expr::float(0.0, elem) });
        after.push(StmtKind::Accumulate {
            target: Place::element(var, index),
            op: AccOp::Add,
            value: Expr::var(s, elem),
            shared: false,
        });
    }
    (before, after)
}

/// Whether every mention of `var` in `b` is an `Add` accumulation into `var[index]`.
fn only_added_here(b: &Block, var: VarId, index: &[Expr]) -> bool {
    let mut ok = true;
    walk_stmts(b, &mut |s| {
        match &s.kind {
            StmtKind::Accumulate { target, op, .. } if target.var == var => {
                ok &= *op == AccOp::Add && same_index(&target.index, index);
            }
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } | StmtKind::Pop { target, .. }
                if target.var == var =>
            {
                ok = false;
            }
            StmtKind::Call(c) if c.out == var || c.args.contains(&var) => ok = false,
            StmtKind::Push { tape, .. } if *tape == var => ok = false,
            _ => {}
        }
        s.exprs(&mut |e| ok &= !e.vars().contains(&var));
    });
    ok
}

/// Points every accumulation into `var[index]` in `b` at scalar `s`.
fn retarget(b: &mut Block, var: VarId, index: &[Expr], s: VarId) {
    for st in b.iter_mut() {
        if let StmtKind::Accumulate { target, .. } = &mut st.kind {
            if target.var == var && same_index(&target.index, index) {
                *target = Place::scalar(s);
            }
        }
        for inner in st.blocks_mut() {
            retarget(inner, var, index, s);
        }
    }
}
