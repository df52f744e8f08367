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

/// Whether `b` reads `z` anywhere except inside the statement `skip` (compared by address).
fn read_outside(b: &Block, z: VarId, skip: *const Stmt) -> bool {
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

/// The recomputable scalars of `body` (of function `p`).
pub(crate) fn find(p: &Function, body: &Block) -> VarSet {
    let mut counts = BTreeMap::new();
    scalar_writes(body, &mut counts);
    let mut out = VarSet::new();
    let mut loops: Vec<&Stmt> = Vec::new();
    fn collect<'a>(b: &'a Block, out: &mut Vec<&'a Stmt>) {
        for s in b {
            if matches!(s.kind, StmtKind::Loop(_)) {
                out.push(s);
            }
            // Map bodies have their own recomputation (crate::map).
            if !matches!(s.kind, StmtKind::Map(_)) {
                s.blocks().into_iter().for_each(|c| collect(c, out));
            }
        }
    }
    collect(body, &mut loops);
    for ls in loops {
        let StmtKind::Loop(l) = &ls.kind else { continue };
        let changed = block_writes(&l.body);
        for (k, s) in l.body.iter().enumerate() {
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
            let before: VarSet = l.body[..k].iter().flat_map(reads).collect();
            if before.contains(&z) || read_outside(body, z, ls) {
                continue;
            }
            out.insert(z);
        }
    }
    out
}
