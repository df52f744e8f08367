//! Which variables statements read, write and mention, and renaming them: the one
//! read/write/rename utility set of the stages.
//!
//! The rules, for a statement *with its nested blocks*:
//! * it **reads** every variable of its expressions (values, indices of loads and of
//!   target places, bounds, conditions, view windows), the old value of an accumulation's
//!   target, the arguments of a library call, and a call's output when `beta` is not 0;
//! * it **writes** the targets of assignments, accumulations and pops, and library outputs;
//! * it **mentions** those and every variable it binds (loop and map indices), allocates,
//!   frees, or uses as a tape.
//!
//! Renaming ([`rename`], [`rewrite_block`]) replaces a variable everywhere it is
//! mentioned. Sets are ordered ([`VarSet`]) so that decisions taken from them are
//! deterministic.

use crate::{Block, Expr, ExprKind, Stmt, StmtKind, VarId};
use std::collections::BTreeSet;

/// An ordered set of variables.
pub type VarSet = BTreeSet<VarId>;

/// Every variable executing `s` reads (see the module docs).
pub fn reads(s: &Stmt) -> VarSet {
    let mut out = VarSet::new();
    s.exprs(&mut |e| out.extend(e.vars()));
    match &s.kind {
        StmtKind::Accumulate { target, .. } => {
            out.insert(target.var);
        }
        StmtKind::Call(c) => {
            out.extend(c.args.iter().copied());
            if c.reads_out() {
                out.insert(c.out);
            }
        }
        _ => {}
    }
    for b in s.blocks() {
        out.extend(block_reads(b));
    }
    out
}

pub fn block_reads(b: &Block) -> VarSet {
    b.iter().flat_map(reads).collect()
}

/// Every variable `s` writes, at any depth.
pub fn writes(s: &Stmt) -> VarSet {
    let mut out: VarSet = s.written_var().into_iter().collect();
    for b in s.blocks() {
        out.extend(block_writes(b));
    }
    out
}

pub fn block_writes(b: &Block) -> VarSet {
    b.iter().flat_map(writes).collect()
}

/// Variables written anywhere in `block`, in first-write order, without repeats.
pub fn written_vars(block: &Block) -> Vec<VarId> {
    let mut out = Vec::new();
    crate::walk_stmts(block, &mut |s| {
        if let Some(v) = s.written_var() {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    });
    out
}

/// Variables read anywhere in `block`, in first-read order, without repeats: those of the
/// expressions (indices and bounds included) and library calls' inputs. Unlike
/// [`block_reads`], the old value of an accumulation's target does not count.
pub fn read_vars(block: &Block) -> Vec<VarId> {
    let mut out = Vec::new();
    crate::walk_stmts(block, &mut |s| {
        s.exprs(&mut |e| {
            for v in e.vars() {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        });
        if let StmtKind::Call(c) = &s.kind {
            let old = c.reads_out().then_some(&c.out);
            for v in c.args.iter().chain(old) {
                if !out.contains(v) {
                    out.push(*v);
                }
            }
        }
    });
    out
}

/// The variables `s` mentions without looking into its nested blocks: bound, allocated,
/// freed, used as a tape, library operands, targets, and those of its own expressions.
fn own_vars(s: &Stmt, out: &mut VarSet) {
    s.exprs(&mut |e| out.extend(e.vars()));
    match &s.kind {
        StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } => {
            out.insert(target.var);
        }
        StmtKind::Loop(l) => {
            out.insert(l.var);
        }
        StmtKind::Map(m) => out.extend(m.dims.iter().map(|d| d.var)),
        StmtKind::Alloc(v) | StmtKind::Free(v) => {
            out.insert(*v);
        }
        StmtKind::Call(c) => {
            out.insert(c.out);
            out.extend(c.args.iter().copied());
        }
        StmtKind::Push { tape, .. } => {
            out.insert(*tape);
        }
        StmtKind::Pop { tape, target } => {
            out.insert(*tape);
            out.insert(target.var);
        }
        StmtKind::If { .. } | StmtKind::While(_) | StmtKind::Section { .. } | StmtKind::Fail(_) => {}
    }
}

/// Every variable a block mentions (bound, read, written, allocated, tapes), added to `out`.
pub fn block_vars(b: &Block, out: &mut VarSet) {
    crate::walk_stmts(b, &mut |s| own_vars(s, out));
}

/// Whether `s` (with its nested blocks) mentions `v` anywhere.
pub fn mentions(s: &Stmt, v: VarId) -> bool {
    let mut own = VarSet::new();
    own_vars(s, &mut own);
    own.contains(&v) || s.blocks().iter().any(|b| b.iter().any(|t| mentions(t, v)))
}

/// `e` with every variable (scalar or array) renamed by `fv`.
pub fn remap_expr(e: &Expr, fv: &dyn Fn(VarId) -> VarId) -> Expr {
    e.rewrite(&mut |x| match x.kind {
        ExprKind::Var(v) => Expr { kind: ExprKind::Var(fv(v)), ..x },
        ExprKind::Load(v, idx) => Expr { kind: ExprKind::Load(fv(v), idx), ty: x.ty, span: x.span },
        _ => x,
    })
}

/// Rewrites every expression of `b` with `fe` (after renaming its variables with `fv`) and
/// renames every variable the statements mention with `fv` (targets, indices, library
/// operands, tapes, allocations, loop and map indices), at any depth.
pub fn rewrite_block(b: &mut Block, fe: &dyn Fn(&Expr) -> Expr, fv: &dyn Fn(VarId) -> VarId) {
    let ex = |e: &Expr| fe(&remap_expr(e, fv));
    for s in b.iter_mut() {
        match &mut s.kind {
            StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
                target.var = fv(target.var);
                target.index = target.index.iter().map(ex).collect();
                *value = ex(value);
            }
            StmtKind::Loop(l) => {
                l.var = fv(l.var);
                l.start = ex(&l.start);
                l.stop = ex(&l.stop);
                l.step = ex(&l.step);
                rewrite_block(&mut l.body, fe, fv);
            }
            StmtKind::While(w) => {
                w.cond = ex(&w.cond);
                rewrite_block(&mut w.body, fe, fv);
            }
            StmtKind::Map(m) => {
                for d in m.dims.iter_mut() {
                    d.var = fv(d.var);
                    d.start = ex(&d.start);
                    d.stop = ex(&d.stop);
                }
                rewrite_block(&mut m.body, fe, fv);
            }
            StmtKind::If { cond, then_body, else_body } => {
                *cond = ex(cond);
                rewrite_block(then_body, fe, fv);
                rewrite_block(else_body, fe, fv);
            }
            StmtKind::Alloc(v) | StmtKind::Free(v) => *v = fv(*v),
            StmtKind::Call(c) => {
                c.out = fv(c.out);
                c.args = c.args.iter().map(|a| fv(*a)).collect();
                for v in std::iter::once(&mut c.out_view).chain(c.arg_views.iter_mut()) {
                    v.start = v.start.iter().map(ex).collect();
                    v.extents = v.extents.iter().map(ex).collect();
                }
                c.alpha = ex(&c.alpha);
                c.beta = ex(&c.beta);
            }
            StmtKind::Push { tape, value } => {
                *tape = fv(*tape);
                *value = ex(value);
            }
            StmtKind::Pop { tape, target } => {
                *tape = fv(*tape);
                target.var = fv(target.var);
                target.index = target.index.iter().map(ex).collect();
            }
            StmtKind::Section { body, .. } => rewrite_block(body, fe, fv),
            StmtKind::Fail(_) => {}
        }
    }
}

/// Replaces every mention of `from` in `b` by `to` (see [`rewrite_block`]).
pub fn rename(b: &mut Block, from: VarId, to: VarId) {
    rewrite_block(b, &|e| e.clone(), &|v| if v == from { to } else { v });
}
