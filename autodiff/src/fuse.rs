//! Fused element-wise sweeps: a map of the forward sweep and a map of the reverse sweep
//! over the same index space become one map, so that the forward value and the adjoint come
//! from one pass over memory.
//!
//! The adjoint of `ret = np.clip(x, 2, 10) * a + y * b + c` is a forward map writing `ret`
//! followed, after the rest of the forward sweep, by a reverse map reading `x` and `ret_b`.
//! Run as two loops the adjoint reads `x` twice and walks every array in two passes; fused,
//! each iteration writes `ret[i, j]` (the output must hold the forward result after the
//! call) and then updates `x_b[i, j]`, one pass.
//!
//! ## When fusion is legal
//!
//! The forward map `F` moves from its place in the forward sweep to the place of the reverse
//! map `R`, and each iteration runs `F`'s body then `R`'s body. That is exact when:
//!
//! * **Same iteration space.** `F` and `R` have as many dimensions, with the same bounds
//!   (`F`'s index variables are renamed to `R`'s).
//! * **Nothing in between sees the move.** Every statement `F` moves past (the forward
//!   statements after it, the reverse statements before `R`) neither reads nor writes what
//!   `F` writes, and writes nothing `F` reads (allocations, frees and tapes count as writes).
//! * **No iteration reads what another writes.** A variable that one of the two bodies
//!   writes and both mention is accessed, everywhere in both bodies, as the element of the
//!   iteration itself (`v[i, j]` with the map's own indices in order). Then the only order
//!   that matters is per element, and each element still sees `F` before `R`. A shifted
//!   read (`ret[i - 1, j]` in `R` of a `ret` that `F` writes) would read a value a later
//!   iteration has not yet written: no fusion.
//! * **No reduction across the boundary.** A scalar that `F` writes is private to `F`'s
//!   iteration (a temporary nothing else mentions): a scalar written by one body and
//!   mentioned by the other (a sum `F` accumulates and `R` reads) is not element-wise, so
//!   the rule above refuses it. Reductions inside `R` alone (`trace_b += ret_b[j, k]`) are
//!   untouched.
//! * **`F` is a plain element-wise body**: assignments, accumulations into its own
//!   iteration's elements, and conditionals; no inner loop, map, library call or tape.
//!
//! The pass rewrites a finished adjoint (the pipeline runs it after memory plans and
//! `split`, so that the planner sees the two sweeps as `reverse` laid them out), pairing
//! forward maps from the end of the forward sweep with reverse maps from the start of the
//! reverse sweep; each fusion is checked on the blocks as they are then. A forward sweep
//! left empty says where its statements went.

use crate::util::{reads, writes, VarSet};
use adjc_ir::*;

/// `f` with forward maps fused into reverse maps (module docs).
pub fn fuse_sweeps(f: &Function) -> Function {
    let mut out = f.clone();
    fuse_body(&mut out.body);
    out
}

/// Fuses forward maps into reverse maps in the `forward sweep` and `reverse sweep` sections
/// of an adjoint body.
fn fuse_body(body: &mut Block) {
    let title = |s: &Stmt, t: &str| matches!(&s.kind, StmtKind::Section { title, .. } if title == t);
    let Some(fi) = body.iter().position(|s| title(s, "forward sweep")) else { return };
    let Some(ri) = body.iter().position(|s| title(s, "reverse sweep")) else { return };
    let mut fwd = take_section(&mut body[fi]);
    let mut rev = take_section(&mut body[ri]);
    let mut fused = false;
    while let Some((k, r)) = find_pair(&fwd, &rev) {
        let f = fwd.remove(k);
        fuse_into(f, &mut rev[r]);
        fused = true;
    }
    if fused && fwd.is_empty() {
        body[fi].note = Some(Note::FusedSweeps);
    }
    put_section(&mut body[fi], fwd);
    put_section(&mut body[ri], rev);
}

fn take_section(s: &mut Stmt) -> Block {
    match &mut s.kind {
        StmtKind::Section { body, .. } => std::mem::take(body),
        _ => Vec::new(),
    }
}

fn put_section(s: &mut Stmt, b: Block) {
    if let StmtKind::Section { body, .. } = &mut s.kind {
        *body = b;
    }
}

/// The first legal (forward map, reverse map) pair: reverse maps from the start of the
/// reverse sweep, each with forward maps from the end of the forward sweep. Adjoint maps
/// are preferred to the zero-fills of local adjoints that open the reverse sweep: a forward
/// map fused into its own adjoint shares the reads of its inputs.
fn find_pair(fwd: &Block, rev: &Block) -> Option<(usize, usize)> {
    find_pair_in(fwd, rev, false).or_else(|| find_pair_in(fwd, rev, true))
}

/// A map whose body only stores constants (`x_b[i] = 0`).
fn is_fill(m: &Map) -> bool {
    m.body.iter().all(|s| matches!(&s.kind, StmtKind::Assign { value, .. } if value.is_const()))
}

fn find_pair_in(fwd: &Block, rev: &Block, fills: bool) -> Option<(usize, usize)> {
    for r in 0..rev.len() {
        let StmtKind::Map(rm) = &rev[r].kind else { continue };
        if is_fill(rm) != fills {
            continue;
        }
        for k in (0..fwd.len()).rev() {
            let StmtKind::Map(fm) = &fwd[k].kind else { continue };
            let between = fwd[k + 1..].iter().chain(&rev[..r]);
            if fusible(fm, rm) && between_ok(&fwd[k], between) {
                return Some((k, r));
            }
        }
    }
    None
}

/// `F`'s body with its index variables renamed to `R`'s.
fn renamed_body(fm: &Map, rm: &Map) -> Block {
    let mut body = fm.body.clone();
    for (a, b) in fm.dims.iter().zip(&rm.dims) {
        crate::util::rename_in_block(&mut body, a.var, b.var);
    }
    body
}

fn fuse_into(f: Stmt, r: &mut Stmt) {
    let StmtKind::Map(fm) = f.kind else { return };
    let StmtKind::Map(rm) = &mut r.kind else { return };
    let mut body = renamed_body(&fm, rm);
    // The forward statements keep their source line: the emitter comments them.
    if let Some(first) = body.first_mut() {
        if first.span.is_none() {
            first.span = f.span;
        }
    }
    body.append(&mut rm.body);
    rm.body = body;
    r.note = Some(match r.note.take() {
        Some(n) if n.contains(&Note::Fused) => n,
        Some(n) => n.and(Note::Fused),
        None => Note::Fused,
    });
}

/// Whether the statements run after `F` can run before it instead.
fn between_ok<'a>(f: &Stmt, between: impl Iterator<Item = &'a Stmt>) -> bool {
    let (fr, fw) = (reads(f), writes(f));
    between.into_iter().all(|s| {
        let (sm, sw) = (mentions(s), strong_writes(s));
        fw.is_disjoint(&sm) && fr.is_disjoint(&sw)
    })
}

/// Every variable `s` mentions (read, written, bound, allocated, freed, tape).
fn mentions(s: &Stmt) -> VarSet {
    let mut out = reads(s);
    out.extend(strong_writes(s));
    out
}

/// Every variable `s` writes, counting allocations, frees and stack tapes as writes.
fn strong_writes(s: &Stmt) -> VarSet {
    let mut out = writes(s);
    walk_stmts(&vec![s.clone()], &mut |t| match &t.kind {
        StmtKind::Alloc(v) | StmtKind::Free(v) => {
            out.insert(*v);
        }
        StmtKind::Push { tape, .. } | StmtKind::Pop { tape, .. } => {
            out.insert(*tape);
        }
        _ => {}
    });
    out
}

/// Whether the forward map `fm` may be fused into the reverse map `rm`.
fn fusible(fm: &Map, rm: &Map) -> bool {
    if fm.dims.is_empty() || fm.dims.len() != rm.dims.len() {
        return false;
    }
    // Same bounds once F's indices are R's (a bound may mention an outer index).
    let mut same_space = true;
    for (k, (a, b)) in fm.dims.iter().zip(&rm.dims).enumerate() {
        let mut start = a.start.clone();
        let mut stop = a.stop.clone();
        for (x, y) in fm.dims[..k].iter().zip(&rm.dims) {
            start = start.substitute(x.var, &Expr::var(y.var, Scalar::I64));
            stop = stop.substitute(x.var, &Expr::var(y.var, Scalar::I64));
        }
        same_space &= crate::util::same(&start, &b.start) && crate::util::same(&stop, &b.stop);
    }
    if !same_space || !elementwise_body(&fm.body) {
        return false;
    }
    let fbody = renamed_body(fm, rm);
    let idx: Vec<VarId> = rm.dims.iter().map(|d| d.var).collect();
    let fa = accesses(&fbody, &idx);
    let ra = accesses(&rm.body, &idx);
    for (v, a) in &fa {
        let Some(b) = ra.get(v) else { continue };
        if idx.contains(v) {
            continue;
        }
        let written = a.written || b.written;
        if written && !(a.all_own && b.all_own) {
            return false;
        }
    }
    true
}

/// Assignments, non-shared accumulations and conditionals only.
fn elementwise_body(b: &Block) -> bool {
    b.iter().all(|s| match &s.kind {
        StmtKind::Assign { .. } | StmtKind::Accumulate { shared: false, .. } => true,
        StmtKind::If { then_body, else_body, .. } => elementwise_body(then_body) && elementwise_body(else_body),
        _ => false,
    })
}

/// How a body touches one variable.
#[derive(Default)]
struct Access {
    written: bool,
    /// Every access is the element of the iteration itself (`v[i, j]`, the map's indices in
    /// order); false for scalars, other indices, and any use outside a load or a place.
    all_own: bool,
}

fn accesses(b: &Block, idx: &[VarId]) -> std::collections::BTreeMap<VarId, Access> {
    let own = |index: &[Expr]| {
        index.len() == idx.len() && index.iter().zip(idx).all(|(e, v)| matches!(e.kind, ExprKind::Var(x) if x == *v))
    };
    let mut out: std::collections::BTreeMap<VarId, Access> = std::collections::BTreeMap::new();
    let mut note = |v: VarId, is_own: bool, write: bool| {
        let a = out.entry(v).or_insert(Access { written: false, all_own: true });
        a.written |= write;
        a.all_own &= is_own;
    };
    walk_stmts(b, &mut |s| {
        // Reads in expressions (values, indices, conditions, bounds).
        s.exprs(&mut |e| {
            e.walk(&mut |x| match &x.kind {
                ExprKind::Load(v, index) => note(*v, own(index), false),
                ExprKind::Var(v) => note(*v, false, false),
                _ => {}
            })
        });
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } | StmtKind::Pop { target, .. } => {
                note(target.var, !target.is_scalar() && own(&target.index), true)
            }
            StmtKind::Call(c) => {
                note(c.out, false, true);
                for a in &c.args {
                    note(*a, false, false);
                }
            }
            StmtKind::Push { tape, .. } => note(*tape, false, true),
            StmtKind::Alloc(v) | StmtKind::Free(v) => note(*v, false, true),
            StmtKind::Loop(l) => note(l.var, false, true),
            StmtKind::Map(m) => m.dims.iter().for_each(|d| note(d.var, false, true)),
            StmtKind::If { .. } | StmtKind::While(_) | StmtKind::Section { .. } | StmtKind::Fail(_) => {}
        }
    });
    out
}
