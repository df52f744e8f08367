//! Zero fills of adjoints that nothing reads, and first accumulations into a zero-filled
//! adjoint written as assignments.
//!
//! The reversal zero-fills every local adjoint before the reverse sweep, then adds into it;
//! it zeroes an adjoint again after its last use (so that a loop's next iteration starts
//! from zero), and output-only adjoints once more at the end. Each of those is a pass over
//! memory. In a BLAS-bound adjoint (doitgen, k2mm: a matrix per adjoint) or a convolution's
//! they are a sizeable share of the time, and an expert would not write them:
//!
//! ```text
//! dot_b = 0                              (zero fill)
//! map: dot_b[i, j] += A_b[i, j]; A_b[i, j] = 0
//! loop i: A_b[i, :, :] = gemm(dot_b[i, :, :], C4ᵀ) + 1.0 * A_b[i, :, :]
//! map: dot_b[...] = 0                    (dot_b is freed next)
//! ```
//!
//! becomes `map: dot_b[i, j] = A_b[i, j]` and `loop i: A_b[i, :, :] = gemm(...) + 0.0 * A_b`.
//!
//! ## The rules
//!
//! The pass follows each array through the straight-line statements of the function body
//! (sections opened, loops and maps taken as one statement) and keeps the zero stores whose
//! values no statement has read yet (*pending* stores), and whether every element is zero:
//!
//! * A statement whose only contact with `X` is storing zeros adds its stores to the pending
//!   ones; a map whose one statement zeroes `X[i, j, ...]` over all of `X` makes `X` all zero.
//! * A statement that overwrites every element of `X` without reading it (a map assigning
//!   `X` over all of it, a `gemm` with β = 0 into all of `X`, `alloc`, `free`) makes the
//!   pending stores dead: they are removed.
//! * A statement that adds into every element of `X` exactly once and reads nothing else of
//!   `X` (a map `X[i, j] += e` over all of `X` with `e` not reading `X`; a `gemm` or `gemv`
//!   with β = 1 into all of `X`, or a loop of them over consecutive slabs `X[i, :, :]`
//!   covering `X`; not `ger`, which only accumulates),
//!   met while `X` is all zero, becomes an assignment (`=`, β = 0): the pending stores are
//!   then dead too.
//! * Any other mention reads the pending stores (they stay). A map's zero stores of `X`
//!   after its last other mention of `X` become the pending stores (a map's iterations do
//!   not read each other's writes), and make `X` all zero when they cover it.
//! * At the end of the function the pending stores of a local array are dead. Parameters
//!   keep theirs: the caller reads them (an output-only adjoint is zero on exit).
//!
//! Stores inside a sequential loop are only followed through the loop as a whole, so a
//! zeroing that the loop's next iteration reads is never taken for dead. Coverage compares
//! bounds with the array's extents up to affine algebra (`max(0, e)` taken as `e`: a map
//! over `[0, e)` is empty for `e ≤ 0` either way).

use adjc_ir::proc::access::mentions;
use adjc_ir::proc::affine::Affine;
use adjc_ir::proc::eq::same;
use adjc_ir::*;
use std::collections::BTreeSet;

/// A statement's place in the body: statement index, then (block index, statement index)
/// pairs into nested blocks.
type Path = Vec<usize>;

/// What the rewrite does, collected over every array before anything changes.
#[derive(Default)]
struct Edits {
    /// Zero stores to remove.
    delete: BTreeSet<Path>,
    /// Accumulations `X[..] += e` to write as `X[..] = e`.
    to_assign: BTreeSet<Path>,
    /// Library calls whose β becomes 0.
    beta_zero: BTreeSet<Path>,
}

/// How one statement of the straight-line sequence uses an array `X`.
enum Use {
    None,
    /// Only stores zeros (`full`: into every element).
    Zero {
        stores: Vec<Path>,
        full: bool,
    },
    /// Writes every element without reading any.
    Overwrite,
    /// Adds into every element once, reading nothing else of `X`; the edit that makes it an
    /// assignment.
    Accumulate(Edit),
    /// Anything else; zero stores that end a map (`full`: covering `X`).
    Other {
        tail: Vec<Path>,
        full: bool,
    },
}

enum Edit {
    ToAssign(Path),
    BetaZero(Path),
}

/// Applies the rules of the module docs to every array of `f` that some statement zeroes.
pub fn drop_redundant_zeroing(f: &Function) -> Function {
    let mut f = f.clone();
    let mut seq = Vec::new();
    sequence(&f.body, &mut Vec::new(), &mut seq);
    let mut zeroed = BTreeSet::new();
    walk_zero_targets(&f.body, &mut zeroed);
    let mut edits = Edits::default();
    for x in zeroed {
        if f.var(x).ty.dims().is_empty() {
            continue;
        }
        follow(&f, &seq, x, &mut edits);
    }
    if edits.delete.is_empty() && edits.to_assign.is_empty() && edits.beta_zero.is_empty() {
        return f;
    }
    apply(&mut f.body, &mut Vec::new(), &edits);
    f
}

/// The paths of the straight-line statements: the top level, sections opened.
fn sequence(b: &Block, prefix: &mut Path, out: &mut Vec<Path>) {
    for (k, s) in b.iter().enumerate() {
        prefix.push(k);
        if let StmtKind::Section { body, .. } = &s.kind {
            prefix.push(0);
            sequence(body, prefix, out);
            prefix.pop();
        } else {
            out.push(prefix.clone());
        }
        prefix.pop();
    }
}

fn walk_zero_targets(b: &Block, out: &mut BTreeSet<VarId>) {
    walk_stmts(b, &mut |s| {
        if let StmtKind::Assign { target, value } = &s.kind {
            if !target.is_scalar() && value.as_float() == Some(0.0) {
                out.insert(target.var);
            }
        }
    });
}

fn at<'a>(body: &'a Block, path: &[usize]) -> &'a Stmt {
    let mut s = &body[path[0]];
    for pair in path[1..].chunks(2) {
        s = &s.blocks()[pair[0]][pair[1]];
    }
    s
}

/// Follows `x` through the sequence, recording the edits the rules allow.
fn follow(f: &Function, seq: &[Path], x: VarId, edits: &mut Edits) {
    let mut pending: Vec<Path> = Vec::new();
    let mut all_zero = false;
    for p in seq {
        match classify(f, at(&f.body, p), p, x) {
            Use::None => {}
            Use::Zero { stores, full } => {
                if full {
                    // Every earlier pending store is written again.
                    edits.delete.extend(pending.drain(..));
                }
                pending.extend(stores);
                all_zero |= full;
            }
            Use::Overwrite => {
                edits.delete.extend(pending.drain(..));
                all_zero = false;
            }
            Use::Accumulate(edit) if all_zero => {
                match edit {
                    Edit::ToAssign(q) => edits.to_assign.insert(q),
                    Edit::BetaZero(q) => edits.beta_zero.insert(q),
                };
                edits.delete.extend(pending.drain(..));
                all_zero = false;
            }
            Use::Accumulate(_) => {
                pending.clear();
                all_zero = false;
            }
            Use::Other { tail, full } => {
                pending = tail;
                all_zero = full;
            }
        }
    }
    if !f.is_param(x) {
        edits.delete.extend(pending);
    }
}

fn is_zero_store(s: &Stmt, x: VarId) -> bool {
    matches!(&s.kind, StmtKind::Assign { target, value }
        if target.var == x && !target.is_scalar() && value.as_float() == Some(0.0)
            && !target.index.iter().any(|e| e.mentions(x)))
}

/// Whether `s` (with its nested blocks) touches `x` only by storing zeros; the stores'
/// paths are added to `stores`.
fn zero_only(s: &Stmt, path: &Path, x: VarId, stores: &mut Vec<Path>) -> bool {
    if is_zero_store(s, x) {
        stores.push(path.clone());
        return true;
    }
    if !mentions(s, x) {
        return true;
    }
    let blocks = s.blocks();
    if blocks.is_empty() || matches!(s.kind, StmtKind::Section { .. }) {
        return false;
    }
    let mut own = false;
    s.exprs(&mut |e| own |= e.mentions(x));
    if own {
        return false;
    }
    blocks.iter().enumerate().all(|(bi, b)| {
        b.iter().enumerate().all(|(k, t)| {
            let mut q = path.clone();
            q.extend([bi, k]);
            zero_only(t, &q, x, stores)
        })
    })
}

fn classify(f: &Function, s: &Stmt, path: &Path, x: VarId) -> Use {
    if !mentions(s, x) {
        return Use::None;
    }
    match &s.kind {
        StmtKind::Alloc(v) | StmtKind::Free(v) if *v == x => return Use::Overwrite,
        _ => {}
    }
    let mut stores = Vec::new();
    if zero_only(s, path, x, &mut stores) {
        let full = matches!(&s.kind, StmtKind::Map(m) if m.body.len() == 1
            && matches!(&m.body[0].kind, StmtKind::Assign { target, .. } if covers(f, x, &m.dims, &target.index)));
        return Use::Zero { stores, full };
    }
    match &s.kind {
        // `ger` only accumulates (the IR has no β for it).
        StmtKind::Call(c)
            if c.op != LibOp::Ger && c.out == x && !c.args.contains(&x) && whole_view(f, x, &c.out_view) =>
        {
            if c.beta.as_float() == Some(0.0) {
                return Use::Overwrite;
            }
            if c.beta.as_float() == Some(1.0) {
                return Use::Accumulate(Edit::BetaZero(path.clone()));
            }
        }
        StmtKind::Map(m) => {
            if let Some(u) = map_use(f, m, path, x) {
                return u;
            }
        }
        StmtKind::Loop(l) => {
            if let Some(q) = slab_calls(f, l, path, x) {
                return Use::Accumulate(Edit::BetaZero(q));
            }
        }
        _ => {}
    }
    let (tail, full) = match &s.kind {
        StmtKind::Map(m) => body_tail(f, &m.body, Some(&m.dims), path, x),
        StmtKind::Loop(l) if slab_private(&l.body, x, l.var) => body_tail(f, &l.body, None, path, x),
        _ => (Vec::new(), false),
    };
    Use::Other { tail, full }
}

/// A map whose one statement mentioning `x` writes or adds into all of `x`, element by
/// element, without reading `x`.
fn map_use(f: &Function, m: &Map, path: &Path, x: VarId) -> Option<Use> {
    let mut it = m.body.iter().enumerate().filter(|(_, t)| mentions(t, x));
    let (k, t) = it.next()?;
    if it.next().is_some() {
        return None;
    }
    let q = {
        let mut q = path.clone();
        q.extend([0, k]);
        q
    };
    match &t.kind {
        StmtKind::Assign { target, value }
            if target.var == x && !value.mentions(x) && covers(f, x, &m.dims, &target.index) =>
        {
            Some(Use::Overwrite)
        }
        StmtKind::Accumulate { target, op: AccOp::Add, value, .. }
            if target.var == x && !value.mentions(x) && covers(f, x, &m.dims, &target.index) =>
        {
            Some(Use::Accumulate(Edit::ToAssign(q)))
        }
        _ => None,
    }
}

/// The zero stores of `x` that end the body of a map, or of a loop whose iterations each
/// touch their own slab of `x` (after the body's last other mention of `x`: no iteration
/// reads them), and whether one of them covers `x` (maps only).
fn body_tail(f: &Function, body: &Block, dims: Option<&[MapDim]>, path: &Path, x: VarId) -> (Vec<Path>, bool) {
    let mut tail = Vec::new();
    let mut full = false;
    for (k, t) in body.iter().enumerate().rev() {
        let mut stores = Vec::new();
        let mut q = path.clone();
        q.extend([0, k]);
        if mentions(t, x) && zero_only(t, &q, x, &mut stores) {
            if let (Some(dims), StmtKind::Assign { target, .. }) = (dims, &t.kind) {
                full |= covers(f, x, dims, &target.index);
            }
            tail.extend(stores);
        } else if mentions(t, x) {
            break;
        }
    }
    (tail, full)
}

/// Whether every mention of `x` in `body` is in the slab `x[i, ...]` of the loop counter
/// `i` (first index `i`; a library view fixed at `i` on the first axis), and the body does
/// not assign `i`: then iterations touch disjoint slabs.
fn slab_private(body: &Block, x: VarId, i: VarId) -> bool {
    let at_i = |e: &Expr| matches!(e.kind, ExprKind::Var(v) if v == i);
    let mut ok = true;
    walk_stmts(body, &mut |s| {
        s.exprs(&mut |e| {
            e.walk(&mut |e| {
                if let ExprKind::Load(v, idx) = &e.kind {
                    if *v == x && !idx.first().is_some_and(at_i) {
                        ok = false;
                    }
                }
            })
        });
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } | StmtKind::Pop { target, .. } => {
                ok &= target.var != i && (target.var != x || target.index.first().is_some_and(at_i));
            }
            StmtKind::Call(c) => {
                let views = std::iter::once((c.out, &c.out_view)).chain(c.args.iter().copied().zip(&c.arg_views));
                for (v, view) in views {
                    if v == i || (v == x && (!view.start.first().is_some_and(at_i) || view.axes.contains(&0))) {
                        ok = false;
                    }
                }
            }
            StmtKind::Alloc(v) | StmtKind::Free(v) | StmtKind::Push { tape: v, .. } => ok &= *v != x,
            StmtKind::Loop(l) => ok &= l.var != i,
            StmtKind::Map(m) => ok &= m.dims.iter().all(|d| d.var != i),
            _ => {}
        }
    });
    ok
}

/// A loop over the first axis of `x` (either direction, unit step, every index once) whose
/// one statement mentioning `x` is a library call adding (β = 1) into the slab
/// `x[i, :, ...]` without reading `x` otherwise: the path of that call.
fn slab_calls(f: &Function, l: &Loop, path: &Path, x: VarId) -> Option<Path> {
    let dims = f.var(x).ty.dims();
    if dims.len() < 2 {
        return None;
    }
    let mut own = false;
    for e in [&l.start, &l.stop, &l.step] {
        own |= e.mentions(x);
    }
    if own {
        return None;
    }
    let lo = dims[0].lower.clone();
    let hi = dims[0].lower.clone().add(dims[0].extent.clone());
    let one = Expr::int(1);
    let forward = l.step.as_int() == Some(1) && same_value(&l.start, &lo) && same_value(&l.stop, &hi);
    let backward = l.step.as_int() == Some(-1)
        && same_value(&l.start, &hi.clone().sub(one.clone()))
        && same_value(&l.stop, &lo.sub(one));
    if !(forward || backward) {
        return None;
    }
    let mut it = l.body.iter().enumerate().filter(|(_, t)| mentions(t, x));
    let (k, t) = it.next()?;
    if it.next().is_some() {
        return None;
    }
    let StmtKind::Call(c) = &t.kind else { return None };
    if c.op == LibOp::Ger {
        return None;
    }
    let v = &c.out_view;
    let slab = c.out == x
        && !c.args.contains(&x)
        && c.beta.as_float() == Some(1.0)
        && matches!(v.start[0].kind, ExprKind::Var(i) if i == l.var)
        && v.axes == (1..dims.len()).collect::<Vec<_>>()
        && dims[1..].iter().zip(&v.start[1..]).all(|(d, s)| same_value(s, &d.lower))
        && dims[1..].iter().zip(&v.extents).all(|(d, e)| same_value(e, &d.extent));
    if !slab {
        return None;
    }
    let mut q = path.clone();
    q.extend([0, k]);
    Some(q)
}

/// Whether the view is all of `x` with its axes in order.
fn whole_view(f: &Function, x: VarId, v: &View) -> bool {
    let dims = f.var(x).ty.dims();
    v.axes == (0..dims.len()).collect::<Vec<_>>()
        && dims.iter().zip(&v.start).all(|(d, s)| same_value(s, &d.lower))
        && dims.iter().zip(&v.extents).all(|(d, e)| same_value(e, &d.extent))
}

/// Whether the map over `dims` reaches every element of `x` exactly once through `index`:
/// each index is one map variable running over the whole axis, every map variable used
/// once, or the axis's lower bound on an axis of extent 1.
pub(crate) fn covers(f: &Function, x: VarId, dims: &[MapDim], index: &[Expr]) -> bool {
    let xd = f.var(x).ty.dims();
    if index.len() != xd.len() {
        return false;
    }
    let mut used = BTreeSet::new();
    for (e, d) in index.iter().zip(xd) {
        match &e.kind {
            ExprKind::Var(v) => {
                let Some(md) = dims.iter().find(|md| md.var == *v) else { return false };
                let hi = d.lower.clone().add(d.extent.clone());
                if !used.insert(*v) || !same_value(&md.start, &d.lower) || !same_value(&md.stop, &hi) {
                    return false;
                }
            }
            _ => {
                if d.extent.as_int() != Some(1) || !same_value(e, &d.lower) {
                    return false;
                }
            }
        }
    }
    used.len() == dims.len()
}

/// `max(0, e)` as `e` (see the module docs: used for bounds of ranges starting at 0).
fn unclamp(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Call(Intrinsic::Max, a) if a.len() == 2 && a[0].as_int() == Some(0) => unclamp(&a[1]),
        _ => e,
    }
}

/// Equal integer values: the same expression, or the same affine form.
fn same_value(a: &Expr, b: &Expr) -> bool {
    let (a, b) = (unclamp(a), unclamp(b));
    if same(a, b) {
        return true;
    }
    match (Affine::linear(a), Affine::linear(b)) {
        (Some(x), Some(y)) => x.same_value(&y),
        _ => false,
    }
}

/// Applies the edits; compound statements emptied by the deletions go too.
fn apply(b: &mut Block, prefix: &mut Path, e: &Edits) {
    let mut out = Vec::with_capacity(b.len());
    for (k, mut s) in std::mem::take(b).into_iter().enumerate() {
        prefix.push(k);
        if e.delete.contains(prefix.as_slice()) {
            prefix.pop();
            continue;
        }
        if e.to_assign.contains(prefix.as_slice()) {
            if let StmtKind::Accumulate { target, value, .. } = s.kind {
                s.kind = StmtKind::Assign { target, value };
            }
        }
        if e.beta_zero.contains(prefix.as_slice()) {
            if let StmtKind::Call(c) = &mut s.kind {
                c.beta = Expr::float(0.0, c.beta.ty);
            }
        }
        let compound = matches!(s.kind, StmtKind::Loop(_) | StmtKind::Map(_) | StmtKind::If { .. });
        let had = s.blocks().iter().any(|b| !b.is_empty());
        for (bi, inner) in s.blocks_mut().into_iter().enumerate() {
            prefix.push(bi);
            apply(inner, prefix, e);
            prefix.pop();
        }
        let emptied = compound && had && s.blocks().iter().all(|b| b.is_empty());
        prefix.pop();
        if !emptied {
            out.push(s);
        }
    }
    *b = out;
}
