//! Small helpers over the IR shared by the analyses: read/write sets, span-insensitive
//! comparison, typed constants.

use adjc_ir::{Block, Expr, ExprKind, Intrinsic, Place, Scalar, Span, Stmt, StmtKind, VarId};
use std::collections::{BTreeMap, BTreeSet};

/// Variable sets are ordered so that every decision taken from them is deterministic.
pub(crate) type VarSet = BTreeSet<VarId>;

pub(crate) fn expr_vars(e: &Expr) -> VarSet {
    e.vars().into_iter().collect()
}

pub(crate) fn index_vars(index: &[Expr]) -> VarSet {
    index.iter().flat_map(|e| e.vars()).collect()
}

/// Every variable whose value executing `s` reads (values, indices, bounds, conditions),
/// including the old value of an accumulation target.
pub(crate) fn reads(s: &Stmt) -> VarSet {
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

pub(crate) fn block_reads(b: &Block) -> VarSet {
    b.iter().flat_map(reads).collect()
}

/// Every variable `s` writes, at any depth.
pub(crate) fn writes(s: &Stmt) -> VarSet {
    let mut out: VarSet = s.written_var().into_iter().collect();
    for b in s.blocks() {
        out.extend(block_writes(b));
    }
    out
}

pub(crate) fn block_writes(b: &Block) -> VarSet {
    b.iter().flat_map(writes).collect()
}

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

/// The expression with every span cleared, for structural comparison.
pub(crate) fn strip(e: &Expr) -> Expr {
    e.rewrite(&mut |mut x| {
        x.span = Span::NONE;
        x
    })
}

pub(crate) fn same(a: &Expr, b: &Expr) -> bool {
    strip(a) == strip(b)
}

pub(crate) fn same_index(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

pub(crate) fn zero(ty: Scalar) -> Expr {
    Expr::float(0.0, ty)
}

pub(crate) fn call(f: Intrinsic, args: Vec<Expr>) -> Expr {
    let ty = args.first().map(|a| a.ty).unwrap_or(Scalar::F64);
    Expr::call(f, args, ty)
}

/// "line 7" for notes, or "" when the statement has no source position.
pub(crate) fn at_line(span: Span) -> String {
    if span.is_none() {
        String::new()
    } else {
        format!(" (line {})", span.line)
    }
}

/// Replaces every use of variable `from` (read or written) by `to` in `b`.
pub(crate) fn rename_in_block(b: &mut Block, from: VarId, to: VarId) {
    let re = |e: &Expr| {
        e.rewrite(&mut |mut x| {
            match &mut x.kind {
                ExprKind::Var(v) | ExprKind::Load(v, _) if *v == from => *v = to,
                _ => {}
            }
            x
        })
    };
    for s in b.iter_mut() {
        let place = |p: &mut Place| {
            if p.var == from {
                p.var = to;
            }
            for i in p.index.iter_mut() {
                *i = re(i);
            }
        };
        match &mut s.kind {
            StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
                place(target);
                *value = re(value);
            }
            StmtKind::Loop(l) => {
                l.start = re(&l.start);
                l.stop = re(&l.stop);
                l.step = re(&l.step);
            }
            StmtKind::Map(m) => {
                for d in m.dims.iter_mut() {
                    d.start = re(&d.start);
                    d.stop = re(&d.stop);
                }
            }
            StmtKind::If { cond, .. } => *cond = re(cond),
            StmtKind::Push { value, .. } => *value = re(value),
            StmtKind::Pop { target, .. } => place(target),
            StmtKind::Alloc(_) | StmtKind::Free(_) | StmtKind::Call(_) | StmtKind::Section { .. } => {}
        }
        for c in s.blocks_mut() {
            rename_in_block(c, from, to);
        }
    }
}

/// Whether `s` (with its nested blocks) mentions `v` anywhere: read, written, bound, tape.
pub(crate) fn stmt_mentions(s: &Stmt, v: VarId) -> bool {
    let direct = reads(s).contains(&v)
        || s.written_var() == Some(v)
        || match &s.kind {
            StmtKind::Push { tape, .. } | StmtKind::Pop { tape, .. } => *tape == v,
            StmtKind::Alloc(x) | StmtKind::Free(x) => *x == v,
            StmtKind::Loop(l) => l.var == v,
            StmtKind::Map(m) => m.dims.iter().any(|d| d.var == v),
            _ => false,
        };
    direct || s.blocks().iter().any(|b| b.iter().any(|t| stmt_mentions(t, v)))
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
