//! Small helpers over the IR shared by the analyses: typed constants, write places, loop
//! counters. Read/write sets, renaming and span-insensitive comparison are `adjc_ir::proc`'s,
//! re-exported here under the names the analyses use.

use adjc_ir::{Block, Expr, Intrinsic, Place, Scalar, Span, Stmt, StmtKind, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// Variable sets are ordered so that every decision taken from them is deterministic.
pub(crate) type VarSet = BTreeSet<VarId>;

pub(crate) fn expr_vars(e: &Expr) -> VarSet {
    e.vars().into_iter().collect()
}

pub(crate) fn index_vars(index: &[Expr]) -> VarSet {
    index.iter().flat_map(|e| e.vars()).collect()
}

/// Read, write and mention sets and renaming (one definition for every stage:
/// `adjc_ir::proc::access`).
pub(crate) use adjc_ir::proc::access::{
    block_reads, block_writes, mentions as stmt_mentions, reads, rename as rename_in_block, writes,
};

/// Every place where `var` is written inside `b`, with whether the write sits inside a
/// nested sequential loop.
pub(crate) fn write_places(b: &Block, var: VarId) -> Vec<(Place, bool)> {
    fn go(b: &Block, var: VarId, in_loop: bool, out: &mut Vec<(Place, bool)>) {
        for s in b {
            match &s.kind {
                StmtKind::Assign { target, .. }
                | StmtKind::Accumulate { target, .. }
                | StmtKind::Pop { target, .. }
                    if target.var == var =>
                {
                    out.push((target.clone(), in_loop))
                }
                StmtKind::Loop(l) => go(&l.body, var, true, out),
                StmtKind::Map(m) => go(&m.body, var, true, out),
                _ => s.blocks().into_iter().for_each(|c| go(c, var, in_loop, out)),
            }
        }
    }
    let mut out = Vec::new();
    go(b, var, false, &mut out);
    out
}

/// Equality up to spans (one definition for every stage: `adjc_ir::proc::eq`).
pub(crate) use adjc_ir::proc::eq::{same, same_index};

pub(crate) fn zero(ty: Scalar) -> Expr {
    Expr::float(0.0, ty)
}

pub(crate) fn call(f: Intrinsic, args: Vec<Expr>) -> Expr {
    let ty = args.first().map(|a| a.ty).unwrap_or(Scalar::F64);
    Expr::call(f, args, ty)
}

/// "line 7" for notes, or "" when the statement has no source position.
pub(crate) fn at_line(span: Span) -> String {
    adjc_ir::Line::from(span).to_string()
}

/// Counters of loops that nothing outside their own loop mentions (each the counter of one
/// loop only, as the Python frontend makes them; Fortran's `i` of several `do` loops is not).
pub(crate) fn loop_local_vars(body: &Block) -> VarSet {
    fn walk(b: &Block, around: &mut Vec<VarId>, loops: &mut BTreeMap<VarId, usize>, outside: &mut VarSet) {
        for s in b {
            let mut direct = reads_direct(s);
            direct.extend(s.written_var());
            match &s.kind {
                StmtKind::Push { tape, .. } | StmtKind::Pop { tape, .. } => {
                    direct.insert(*tape);
                }
                StmtKind::Alloc(x) | StmtKind::Free(x) => {
                    direct.insert(*x);
                }
                _ => {}
            }
            if let StmtKind::Loop(l) = &s.kind {
                *loops.entry(l.var).or_default() += 1;
                around.push(l.var);
            }
            outside.extend(direct.into_iter().filter(|v| !around.contains(v)));
            for inner in s.blocks() {
                walk(inner, around, loops, outside);
            }
            if let StmtKind::Loop(_) = &s.kind {
                around.pop();
            }
        }
    }
    let (mut loops, mut outside) = (BTreeMap::new(), VarSet::new());
    walk(body, &mut Vec::new(), &mut loops, &mut outside);
    loops.into_iter().filter(|(v, n)| *n == 1 && !outside.contains(v)).map(|(v, _)| v).collect()
}

/// The variables `s` itself reads (not its nested blocks).
fn reads_direct(s: &Stmt) -> VarSet {
    let mut out = VarSet::new();
    s.exprs(&mut |e| out.extend(e.vars()));
    match &s.kind {
        StmtKind::Accumulate { target, .. } => {
            out.insert(target.var);
        }
        StmtKind::Call(c) => {
            out.extend(c.args.iter().copied());
            out.insert(c.out);
        }
        _ => {}
    }
    out
}

/// `body` with the work arrays `work` allocated before it and freed after it (in the order
/// given); `body` itself when there are none.
pub(crate) fn around_work_arrays(body: Block, work: &[VarId]) -> Block {
    if work.is_empty() {
        return body;
    }
    let mut out: Block = work.iter().map(|w| Stmt::new(StmtKind::Alloc(*w), Span::NONE)).collect();
    out.extend(body);
    out.extend(work.iter().map(|w| Stmt::new(StmtKind::Free(*w), Span::NONE)));
    out
}
