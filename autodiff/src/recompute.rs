//! Values the reverse sweep computes again instead of taping them (LAGrad's rule: a value
//! the adjoint uses that is not loop-carried needs no tape).
//!
//! A local scalar `z` qualifies when
//!
//! * its only assignment in the whole function is `z = e` at the top level of the body of
//!   a sequential loop `L` (so it runs once per iteration);
//! * `e` is cheap (a few operations), does not read `z`, and reads nothing that `L`
//!   changes: loop indices, parameters, arrays and scalars not written in `L`;
//! * `z` is read only in `L`'s body, after the assignment: its value never crosses an
//!   iteration boundary.
//!
//! The forward sweep then saves nothing for `z`; the reversed body of `L` starts with
//! `z = e` (noted "recomputed"), which gives `z` the value the iteration's adjoints read.
//! Whatever `e` reads stays live for the to-be-recorded analysis (a later overwrite of it
//! is taped), see [`crate::reverse::Ad::ar`].
//!
//! ## Arrays
//!
//! A local array `a` defined by a cheap map `a[i] = e` (one assignment, a few operations
//! per element) at the top level of a sequential loop `L` is recomputed the same way when
//!
//! * that map is the only statement of the function that writes `a`, `e` does not read `a`
//!   nor another recomputed array, and its scalars and bounds are not changed by `L`;
//! * `a` is read only in `L`'s body after the map (no value crosses an iteration).
//!
//! Unlike a scalar, `e` may read arrays that `L` changes (`hu = h * u` before `h` and `u`
//! are updated): the recomputation does not start the reversed body but runs right before
//! the adjoint of the *last* statement `R` of the body that reads `a` (after `R`'s own
//! restore), and the arrays `e` reads must hold there the values they had at the map. That
//! is checked on the reversed body (`Ad::place_array_recomputes`): a variable `v` of `e`
//! written by one statement `W` between the map and `R` is fine when `W`'s restore of `v`
//! comes first in its reverse code and can move up to right before the recomputation (no
//! statement after `W` up to `R` writes `v` or has an adjoint that reads it, and no other
//! recomputation in between reads `v` after `W`); anything else (two writes, a write inside
//! a nested loop, a restore that is not first) tapes `a` as before. The definition's inputs
//! join what its adjoint reads for the to-be-recorded analysis, so the writes of `v` after
//! the map are taped (`v` is usually needed anyway: `hu = h * u`'s adjoint reads `h` and `u`).
//!
//! Why recompute by default: the tape of `a` costs one store per element per step in the
//! forward sweep, one load in the reverse sweep and `8 · trips · n` bytes that no cache
//! holds for long time loops; the recomputation costs the map's few flops per element on
//! values the reverse sweep loads anyway. A memory planner still sees both options: with
//! [`crate::AdOptions::loop_arrays`] it chooses which of these arrays are recomputed, and
//! `Adjoint::loop_recomputable` gives each one's tape and flops per element.

use crate::util::{block_writes, reads, VarSet};
use adjc_ir::*;
use std::collections::BTreeMap;

/// Expressions with more nodes than this are not worth recomputing.
const CHEAP: usize = 16;

fn size(e: &Expr) -> usize {
    let mut n = 0;
    e.walk(&mut |_| n += 1);
    n
}

/// Scalars written anywhere in `b`, with how many statements write them and whether one
/// of those is not a plain assignment.
fn scalar_writes(b: &Block, out: &mut BTreeMap<VarId, (usize, bool)>) {
    walk_stmts(b, &mut |s| {
        // A library call (`dot`) writing a scalar is not a plain assignment either.
        let call_out = match &s.kind {
            StmtKind::Call(c) => Some(Place::scalar(c.out)),
            _ => None,
        };
        let target = match &s.kind {
            StmtKind::Assign { target, .. } => Some((target, true)),
            StmtKind::Accumulate { target, .. } | StmtKind::Pop { target, .. } => Some((target, false)),
            _ => call_out.as_ref().map(|p| (p, false)),
        };
        if let Some((t, plain)) = target {
            if t.is_scalar() {
                let e = out.entry(t.var).or_insert((0, true));
                e.0 += 1;
                e.1 &= plain;
            }
        }
    });
}

/// Whether `b` reads `z` anywhere except inside the loop `skip`.
fn read_outside(b: &Block, z: VarId, skip: &Stmt) -> bool {
    b.iter().any(|s| {
        if std::ptr::eq(s, skip) {
            return false;
        }
        let mut found = false;
        s.exprs(&mut |e| found |= e.mentions(z));
        if let StmtKind::Accumulate { target, .. } = &s.kind {
            found |= target.var == z;
        }
        found || s.blocks().iter().any(|c| read_outside(c, z, skip))
    })
}

/// Every sequential `Loop` statement of `body`, outermost first, not looking into map
/// bodies (maps have their own recomputation, `crate::map`), and every map whose body
/// holds a `while`: its reversal runs it as a sequential loop nest (`map::sequentialize`),
/// whose body is the map's.
fn sequential_loops(body: &Block) -> Vec<(&Stmt, &Block)> {
    fn collect<'a>(b: &'a Block, out: &mut Vec<(&'a Stmt, &'a Block)>) {
        for s in b {
            match &s.kind {
                StmtKind::Loop(l) => out.push((s, &l.body)),
                StmtKind::Map(m) if has_while(&m.body) => out.push((s, &m.body)),
                _ => {}
            }
            if !matches!(s.kind, StmtKind::Map(_)) {
                s.blocks().into_iter().for_each(|c| collect(c, out));
            }
        }
    }
    let mut loops = Vec::new();
    collect(body, &mut loops);
    loops
}

fn has_while(b: &Block) -> bool {
    let mut found = false;
    walk_stmts(b, &mut |s| found |= matches!(s.kind, StmtKind::While(_)));
    found
}

/// The recomputable scalars of `body` (of function `p`).
pub(crate) fn find(p: &Function, body: &Block) -> VarSet {
    let mut counts = BTreeMap::new();
    scalar_writes(body, &mut counts);
    let mut out = VarSet::new();
    for (ls, lbody) in sequential_loops(body) {
        let changed = block_writes(lbody);
        for (k, s) in lbody.iter().enumerate() {
            let StmtKind::Assign { target, value } = &s.kind else { continue };
            let z = target.var;
            let var = p.var(z);
            let local = matches!(var.role, VarRole::Local | VarRole::Temp) && !p.is_param(z) && !var.ty.is_array();
            if !local || counts.get(&z) != Some(&(1, true)) || value.mentions(z) || size(value) > CHEAP {
                continue;
            }
            if value.vars().iter().any(|v| changed.contains(v)) {
                continue;
            }
            let before: VarSet = lbody[..k].iter().flat_map(reads).collect();
            if before.contains(&z) || read_outside(body, z, ls) {
                continue;
            }
            out.insert(z);
        }
    }
    out
}

/// Floating-point operations per element above which an array map is not recomputed by
/// default: a tape costs a store and a load of 8 bytes per element and step, which a few
/// arithmetic operations on values already loaded beat; an elementary function does not.
pub(crate) const CHEAP_ARRAY_FLOPS: usize = 8;

/// Operations per element of `e` when it is cheap to evaluate again: arithmetic counts one,
/// `abs`/`min`/`max`/`sign` one, `x ** 2` and `x ** 3` (multiplications) one and two; any
/// other function (`exp`, `sqrt`, `pow` of other exponents) makes it not cheap (`None`).
pub(crate) fn cheap_flops(e: &Expr) -> Option<usize> {
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Var(_) => Some(0),
        ExprKind::Load(_, idx) => idx.iter().map(cheap_flops).sum(),
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => Some(cheap_flops(a)? + e.ty.is_float() as usize),
        ExprKind::Binary(_, a, b) => Some(cheap_flops(a)? + cheap_flops(b)? + e.ty.is_float() as usize),
        ExprKind::Call(f, args) => {
            let own = match (f, args.as_slice()) {
                (Intrinsic::Abs | Intrinsic::Max | Intrinsic::Min | Intrinsic::Sign, _) => 1,
                (Intrinsic::Pow, [_, k]) => match k.as_float().or_else(|| k.as_int().map(|i| i as f64)) {
                    Some(2.0) => 1,
                    Some(3.0) => 2,
                    _ => return None,
                },
                _ => return None,
            };
            args.iter().map(cheap_flops).sum::<Option<usize>>().map(|n| n + own)
        }
        ExprKind::Select(c, a, b) => Some(cheap_flops(c)? + cheap_flops(a)?.max(cheap_flops(b)?) + 1),
    }
}

/// The defining map of an array the reverse sweep may recompute: `a[...] = e`, alone in
/// the body of a map at the top level of a sequential loop.
pub(crate) fn array_def(s: &Stmt) -> Option<(VarId, &Map, &Expr)> {
    let StmtKind::Map(m) = &s.kind else { return None };
    let [t] = m.body.as_slice() else { return None };
    let StmtKind::Assign { target, value } = &t.kind else { return None };
    (!target.is_scalar()).then_some((target.var, m, value))
}

/// Everything the map `s` (an [`array_def`]) reads but its own dimensions: what must hold
/// its forward values where the reverse sweep evaluates it again.
pub(crate) fn array_inputs(s: &Stmt) -> VarSet {
    let mut out = reads(s);
    if let StmtKind::Map(m) = &s.kind {
        for d in &m.dims {
            out.remove(&d.var);
        }
    }
    out
}

/// Arrays written anywhere in `b`, with how many statements write them and whether all
/// are plain assignments.
fn array_writes(b: &Block, out: &mut BTreeMap<VarId, (usize, bool)>) {
    walk_stmts(b, &mut |s| {
        let target = match &s.kind {
            StmtKind::Assign { target, .. } => Some((target.var, true)),
            StmtKind::Accumulate { target, .. } | StmtKind::Pop { target, .. } => Some((target.var, false)),
            StmtKind::Call(c) => Some((c.out, false)),
            _ => None,
        };
        if let Some((v, plain)) = target {
            let e = out.entry(v).or_insert((0, true));
            e.0 += 1;
            e.1 &= plain;
        }
    });
}

/// The local arrays of `body` (of function `p`) whose defining map qualifies for
/// recomputation in the reversed loop (see the module docs); whether the reversed body
/// then has their inputs back is decided when it is built.
pub(crate) fn find_arrays(p: &Function, body: &Block) -> VarSet {
    let mut counts = BTreeMap::new();
    array_writes(body, &mut counts);
    let loops = sequential_loops(body);
    let mut found: BTreeMap<VarId, VarSet> = BTreeMap::new();
    for (ls, _) in loops {
        // Array recomputations are placed in reversed `for` loops only.
        let StmtKind::Loop(l) = &ls.kind else { continue };
        let changed = block_writes(&l.body);
        for (k, s) in l.body.iter().enumerate() {
            let Some((a, _, value)) = array_def(s) else { continue };
            let var = p.var(a);
            let local = matches!(var.role, VarRole::Local | VarRole::Temp) && !p.is_param(a) && var.ty.is_array();
            if !local || counts.get(&a) != Some(&(1, true)) || cheap_flops(value).is_none_or(|n| n > CHEAP_ARRAY_FLOPS)
            {
                continue;
            }
            let inputs = array_inputs(s);
            if inputs.contains(&a) || inputs.iter().any(|v| !p.var(*v).ty.is_array() && changed.contains(v)) {
                continue;
            }
            let before: VarSet = l.body[..k].iter().flat_map(reads).collect();
            if before.contains(&a) || read_outside(body, a, ls) {
                continue;
            }
            found.insert(a, inputs);
        }
    }
    // A recomputation that reads another recomputed array would need that one first.
    let all: VarSet = found.keys().copied().collect();
    found.into_iter().filter(|(_, inputs)| inputs.is_disjoint(&all)).map(|(a, _)| a).collect()
}

/// The defining map of every array of `body` that has one (see [`array_def`]).
pub(crate) fn array_defs(body: &Block) -> BTreeMap<VarId, Stmt> {
    let mut out = BTreeMap::new();
    walk_stmts(body, &mut |s| {
        if let Some((a, _, _)) = array_def(s) {
            out.entry(a).or_insert_with(|| s.clone());
        }
    });
    out
}
