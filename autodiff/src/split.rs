//! `split_shared_maps`: adjoint stencil sweeps without atomics.
//!
//! The adjoint of `B[i] = c * (A[i-1] + A[i] + A[i+1])` is a map whose iterations scatter
//! into their neighbours' elements:
//!
//! ```text
//! map i in [1, N - 1) {
//!   A_b[i - 1] += c * B_b[i] shared
//!   A_b[i] += c * B_b[i] shared
//!   A_b[i + 1] += c * B_b[i] shared
//!   B_b[i] = 0.0
//! }
//! ```
//!
//! Each update on its own reaches a different element in every iteration; only together do
//! they collide. When the updates of an array are a constant-offset stencil, they become
//! one gather map instead ([`crate::gather`]: every element sums the terms that land on it);
//! a map around one sequential loop of updates is first seen as a map over both
//! ([`crate::flatten`]). Otherwise the map becomes one map per update (without `shared`), then a map with
//! the statements left (`B_b[i] = 0.0`): loops that vectorise and need no atomics.
//!
//! ## Why the result computes the same thing
//!
//! An update `S: X[idx] op= value` at the top level of the body moves to a map of its own
//! over the same index space, placed before the rest of the body, when
//! 1. `idx` is injective in the map variables: each iteration owns its element of `X`
//!    (every map variable `v` is recovered from some position `±v + c`);
//! 2. everything else in the body that mentions `X` is an accumulation into `X` with the
//!    same operator, and `X` appears in no expression and in no bound of the map: nothing
//!    observes `X` between the updates, which commute;
//! 3. `value` and `idx` read only values an iteration sees as they were on entry to the
//!    map: variables the body does not write, or arrays that the body writes only *after*
//!    `S`, at exactly the element `S` reads, through an injective index (the `B_b[i] = 0.0`
//!    after `... * B_b[i]`): no iteration has overwritten what `S` reads;
//! 4. an iteration-private scalar that `S` reads is replaced by its defining expression
//!    when that is cheap and itself follows 3 (the scalar is assigned once, at the top
//!    level, before `S`); the definition is dropped from the rest if nothing reads it there.
//!
//! The moved updates then read the same values and add the same terms into the same
//! elements; only the order in which terms reach one element changes (a floating-point
//! sum may differ in its last bits, as between two OpenMP schedules). What stays behind
//! never reads what the moved updates write.
//!
//! Two updates of one array *conflict* when some iteration's element of one can be another
//! iteration's element of the other: not when their indices are equal (injectivity), nor
//! when in some position both are free of map variables and differ by a non-zero constant
//! (`A_b[i - 1, k]` and `A_b[i + 1, k]` in a map over `k`). An update that conflicts with no
//! other statement of the body loses `shared` where it stands; conflicting ones move out,
//! first fit into the fewest maps without a conflict inside one map. A map over `i, j` with
//! five updates of one array becomes five maps plus the rest; nine updates in three rows
//! of a map over `k`, three maps.
//!
//! Maps nested in a map, and statements inside a body's loops and branches, stay where
//! they are: their `shared` may refer to iterations of an enclosing map.
//!
//! An update that misses map variables (`b_b[j] += y_b[i, j]` in a map over `i, j`, the
//! adjoint of a broadcast operand) and is owned by the variables it has, reading entry
//! values (rule 3), becomes a *reduction*: a map over the owning variables with sequential
//! loops over the others inside (`map j { loop i { b_b[j] += y_b[i, j] } }`). Reductions
//! over the same variables into different arrays share one nest. A map dimension of one
//! iteration (`l in [0, 1)`, a kept axis) never separates iterations: its variable counts
//! as a constant.
//!
//! Sequential nests of adjoint updates outside loops are reordered by [`crate::own`].

use crate::affine::Affine;
use crate::util::{block_reads, block_writes, same_index, VarSet};
use adjc_ir::*;
use std::collections::BTreeMap;

/// Scalar definitions bigger than this (in expression nodes) are not recomputed: the
/// update that reads them stays in the shared map instead.
const CHEAP_NODES: usize = 16;

/// Splits every outermost map of `f` whose shared accumulations can be owned by single
/// iterations (see the module documentation). New maps get fresh index variables; existing
/// `VarId`s are unchanged.
pub fn split_shared_maps(f: &Function) -> Function {
    // The analysis trusts the IR's invariants; invalid input is left for the caller's
    // validation to report.
    if adjc_ir::validate::validate(f).is_err() {
        return f.clone();
    }
    let mut out = f.clone();
    let body = std::mem::take(&mut out.body);
    out.body = split_block(&mut out, body, false);
    adjc_ir::proc::ids::settle(&mut out.body);
    out
}

/// `in_loop`: the block runs once per iteration of a sequential loop. Nests there are not
/// reordered into parallel maps: a parallel region per outer iteration costs more than the
/// inner loop (durbin's triangular updates).
fn split_block(f: &mut Function, block: Block, in_loop: bool) -> Block {
    let mut out = Vec::with_capacity(block.len());
    for mut s in block {
        if let StmtKind::Map(m) = s.kind {
            // A map around one sequential loop of updates may run as one map over both
            // (`crate::flatten`): kept when that leaves no shared update.
            if let Some(flat) = crate::flatten::flatten(&m) {
                let (mut g, mut trial) = (f.clone(), out.clone());
                split_map(&mut g, flat, s.span, s.note.clone(), &mut trial);
                if !crate::flatten::any_shared(&trial[out.len().saturating_sub(1)..]) {
                    *f = g;
                    out = trial;
                    continue;
                }
            }
            split_map(f, m, s.span, s.note, &mut out);
            continue;
        }
        if let Some(nests) = (!in_loop).then(|| crate::own::reorder(f, &s)).flatten() {
            out.extend(nests);
            continue;
        }
        let inner_in_loop = in_loop || matches!(s.kind, StmtKind::Loop(_));
        for b in s.blocks_mut() {
            let inner = std::mem::take(b);
            *b = split_block(f, inner, inner_in_loop);
        }
        out.push(s);
    }
    out
}

/// Appends the statements replacing map `m` to `out`. A zeroing map at the end of `out` may
/// be taken back and fused into a gather (see [`crate::gather`]).
fn split_map(f: &mut Function, m: Map, span: Span, note: Option<Note>, out: &mut Vec<Stmt>) {
    let (gathers, groups, reductions, rest) = {
        let body = Body::new(&m.dims, &m.body);
        let moved: Vec<(usize, Stmt)> =
            m.body.iter().enumerate().filter_map(|(p, s)| body.movable(p, s).map(|s| (p, s))).collect();
        let reductions: Vec<(usize, Stmt, Vec<VarId>)> = m
            .body
            .iter()
            .enumerate()
            .filter(|(p, _)| !moved.iter().any(|(q, _)| q == p))
            .filter_map(|(p, s)| body.reduction(p, s).map(|(s, own)| (p, s, own)))
            .collect();
        let taken: Vec<(usize, Stmt)> =
            moved.iter().cloned().chain(reductions.iter().map(|(p, s, _)| (*p, s.clone()))).collect();
        let rest = remainder(&body, &taken);
        let constant = |u: VarId| body.constant(u);
        let (gathers, scattered) =
            crate::gather::plan(f, &m.dims, moved.into_iter().map(|(_, s)| s).collect(), &constant);
        let groups = body.groups(scattered);
        (gathers, groups, reductions.into_iter().map(|(_, s, own)| (s, own)).collect::<Vec<_>>(), rest)
    };
    let rest = Body::new(&m.dims, &rest).unshare_owned();
    let mut note = note;
    let first = out.len();
    // The zeroing map just before may fuse into one gather (the first that fits): it then
    // leaves `out`, and nothing between it and the gather touches the gather's target.
    let mut fused = None;
    if let Some(prev) = out.last() {
        fused =
            gathers.iter().enumerate().find_map(|(k, g)| crate::gather::fusable_zero(prev, g, &m.dims).map(|z| (k, z)));
    }
    let first = if fused.is_some() {
        out.pop();
        first - 1
    } else {
        first
    };
    for (k, g) in gathers.iter().enumerate() {
        let zero = fused.as_ref().filter(|(j, _)| *j == k).map(|(_, z)| z);
        let n = if out.len() == first { note.take() } else { None };
        out.extend(crate::gather::lower(f, &m.dims, g, zero, n));
    }
    let mut give_note = |s: &mut Stmt, why: Note, first: bool| {
        if first {
            s.note = Some(Note::after(note.take(), why));
        }
    };
    for group in groups {
        let line = group.first().map(|s| s.span).filter(|s| !s.is_none()).unwrap_or(span);
        let (dims, body) = fresh_nest(f, &m.dims, group);
        let mut s = Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims, body }), line);
        give_note(&mut s, Note::OwnedSplit, out.len() == first);
        out.push(s);
    }
    for (updates, own) in reduction_groups(reductions) {
        let line = updates.first().map(|s| s.span).filter(|s| !s.is_none()).unwrap_or(span);
        let mut s = reduction_nest(f, &m.dims, &own, updates, line);
        give_note(&mut s, Note::OwnedReduction, out.len() == first);
        out.push(s);
    }
    if !rest.is_empty() {
        out.push(Stmt { kind: StmtKind::Map(Map { id: m.id, dims: m.dims, body: rest }), span, note });
    }
}

/// What the analysis of one map body needs.
struct Body<'a> {
    dims: &'a [MapDim],
    vars: Vec<VarId>,
    stmts: &'a Block,
    /// Variables whose value may differ between two points of one iteration: what the body
    /// writes and the indices of its inner loops and maps.
    varying: VarSet,
    /// Iteration-private scalars assigned exactly once, at the top level: position and value.
    defs: BTreeMap<VarId, (usize, &'a Expr)>,
}

impl<'a> Body<'a> {
    fn new(dims: &'a [MapDim], stmts: &'a Block) -> Body<'a> {
        let mut varying = block_writes(stmts);
        walk_stmts(stmts, &mut |s| match &s.kind {
            StmtKind::Loop(l) => {
                varying.insert(l.var);
            }
            StmtKind::Map(m) => varying.extend(m.dims.iter().map(|d| d.var)),
            _ => {}
        });
        let mut defs = BTreeMap::new();
        for (p, s) in stmts.iter().enumerate() {
            if let StmtKind::Assign { target, value } = &s.kind {
                if target.is_scalar() && write_count(stmts, target.var) == 1 {
                    defs.insert(target.var, (p, value));
                }
            }
        }
        Body { dims, vars: crate::shared::iterating_vars(dims), stmts, varying, defs }
    }

    /// Whether `u` keeps its value during the map (not a map variable, not written).
    fn constant(&self, u: VarId) -> bool {
        !self.vars.contains(&u) && !self.varying.contains(&u)
    }

    /// Whether every variable of `index` is a map variable or constant during the map.
    fn fixed(&self, index: &[Expr]) -> bool {
        index.iter().all(|e| e.vars().iter().all(|v| self.vars.contains(v) || !self.varying.contains(v)))
    }

    /// Whether distinct iterations reach distinct elements through `index`: every map
    /// variable `v` is recovered from some position `±v + c`, `c` constant during the map
    /// (`A_b[i - 1, j]`, and also the diagonal `a_b[i, i]`).
    fn owns(&self, index: &[Expr]) -> bool {
        self.owned_by(index, &self.vars)
    }

    /// Whether distinct values of the map variables `by` reach distinct elements through
    /// `index`: each of them is recovered from some position `±v + c` (`c` constant
    /// during the map).
    fn owned_by(&self, index: &[Expr], by: &[VarId]) -> bool {
        let constant = |u: VarId| !self.vars.contains(&u) && !self.varying.contains(&u);
        let recovers = |e: &Expr, v: VarId| {
            Affine::parse(e, &|u| u == v || constant(u), &constant).is_some_and(|a| a.coeff(v).abs() == 1)
        };
        self.fixed(index) && by.iter().all(|v| index.iter().any(|e| recovers(e, *v)))
    }

    /// The shared `+=` at top-level position `p` that misses some map variables in its
    /// index (`b_b[j] += y_b[i, j]` in a map over `i, j`: the adjoint of a broadcast) and
    /// is owned by the variables it has: the unshared update and the variables that own it,
    /// to run as a map over those with loops over the others inside (a reduction).
    fn reduction(&self, p: usize, s: &Stmt) -> Option<(Stmt, Vec<VarId>)> {
        let StmtKind::Accumulate { target, op: AccOp::Add, value, shared: true } = &s.kind else { return None };
        let x = target.var;
        if target.is_scalar() || self.dims.iter().any(|d| d.start.mentions(x) || d.stop.mentions(x)) {
            return None;
        }
        self.updates_of(x, AccOp::Add)?;
        let index: Vec<Expr> = target.index.iter().map(|e| self.resolve(e, p)).collect::<Option<_>>()?;
        let own: Vec<VarId> = self.vars.iter().copied().filter(|v| index.iter().any(|e| e.mentions(*v))).collect();
        if own.is_empty() || own.len() == self.vars.len() || !self.owned_by(&index, &own) {
            return None;
        }
        let value = self.resolve(value, p)?;
        if !index.iter().chain([&value]).all(|e| self.reads_entry_values(e, p)) {
            return None;
        }
        let kind = StmtKind::Accumulate { target: Place::element(x, index), op: AccOp::Add, value, shared: false };
        Some((Stmt { kind, span: s.span, note: s.note.clone() }, own))
    }

    /// Whether no iteration's element `a` can be another iteration's element `b` (both
    /// owned indices): equal indices, or a position where both are constant during the map
    /// and differ by a non-zero constant.
    fn apart(&self, a: &[Expr], b: &[Expr]) -> bool {
        let constant = |v: VarId| !self.vars.contains(&v) && !self.varying.contains(&v);
        let differ =
            |x: &Expr, y: &Expr| match (Affine::parse(x, &constant, &constant), Affine::parse(y, &constant, &constant))
            {
                (Some(x), Some(y)) => matches!(x.sub(&y).as_const(), Some(c) if c != 0),
                _ => false,
            };
        same_index(a, b) || (a.len() == b.len() && a.iter().zip(b).any(|(x, y)| differ(x, y)))
    }

    /// The shared update at top-level position `p` if, owned by its iteration, it still
    /// conflicts with another update of its array: `None` when it stays (unshared where it
    /// stands, or shared), else the unshared update to run in a map of its own.
    fn movable(&self, p: usize, s: &Stmt) -> Option<Stmt> {
        let StmtKind::Accumulate { target, op, value, shared: true } = &s.kind else { return None };
        let x = target.var;
        if target.is_scalar() || self.dims.iter().any(|d| d.start.mentions(x) || d.stop.mentions(x)) {
            return None;
        }
        let others = self.updates_of(x, *op)?;
        let index: Vec<Expr> = target.index.iter().map(|e| self.resolve(e, p)).collect::<Option<_>>()?;
        if !self.owns(&index) || others.iter().all(|o| self.apart(&target.index, o)) {
            return None;
        }
        let value = self.resolve(value, p)?;
        if !index.iter().chain([&value]).all(|e| self.reads_entry_values(e, p)) {
            return None;
        }
        let kind = StmtKind::Accumulate { target: Place::element(x, index), op: *op, value, shared: false };
        Some(Stmt { kind, span: s.span, note: s.note.clone() })
    }

    /// The indices of every accumulation into `x` in the body (any depth), when those are
    /// all with `op` and the only mentions of `x`.
    fn updates_of(&self, x: VarId, op: AccOp) -> Option<Vec<Vec<Expr>>> {
        let mut out = Vec::new();
        accumulations(self.stmts, x, op, &mut out).then_some(out)
    }

    /// `e` with every body-local scalar replaced by its (cheap) definition, as evaluated at
    /// position `p`; `None` when some varying scalar has no usable definition.
    fn resolve(&self, e: &Expr, p: usize) -> Option<Expr> {
        let mut ok = true;
        let out = e.rewrite(&mut |x| match x.kind {
            ExprKind::Var(v) if self.varying.contains(&v) && !self.vars.contains(&v) => {
                let def = self.defs.get(&v).filter(|(q, _)| *q < p).and_then(|(q, d)| self.resolve(d, *q));
                match def {
                    Some(d) if cheap(&d) => d,
                    _ => {
                        ok = false;
                        x
                    }
                }
            }
            _ => x,
        });
        ok.then_some(out)
    }

    /// Whether every value `e` reads (at top-level position `p`) is the one it had on entry
    /// to the map, in every iteration (rule 3 of the module documentation).
    fn reads_entry_values(&self, e: &Expr, p: usize) -> bool {
        let mut ok = true;
        e.walk(&mut |x| match &x.kind {
            ExprKind::Var(v) if self.varying.contains(v) && !self.vars.contains(v) => ok = false,
            ExprKind::Load(y, idx) if self.varying.contains(y) => ok &= self.written_later_at(*y, idx, p),
            _ => {}
        });
        ok
    }

    /// Whether array `y` is written only by statements after position `p`, always at
    /// element `idx`, which only one iteration reaches.
    fn written_later_at(&self, y: VarId, idx: &[Expr], p: usize) -> bool {
        self.owns(idx)
            && self.stmts.iter().enumerate().all(|(q, s)| {
                let mut sites = Vec::new();
                write_sites(std::slice::from_ref(s), y, &mut sites)
                    && (sites.is_empty() || (q > p && sites.iter().all(|i| same_index(i, idx))))
            })
    }

    /// The moved updates in the fewest maps (first fit, program order kept inside a map)
    /// such that no map holds two conflicting updates of one array.
    fn groups(&self, moved: Vec<Stmt>) -> Vec<Block> {
        let mut out: Vec<Block> = Vec::new();
        for s in moved {
            let StmtKind::Accumulate { target, .. } = &s.kind else { continue };
            let fits = |g: &Block| {
                g.iter().all(|t| match &t.kind {
                    StmtKind::Accumulate { target: o, .. } => {
                        o.var != target.var || self.apart(&o.index, &target.index)
                    }
                    _ => true,
                })
            };
            match out.iter().position(fits) {
                Some(k) => out[k].push(s),
                None => out.push(vec![s]),
            }
        }
        out
    }

    /// The body with `shared` dropped from top-level updates whose iteration owns their
    /// element and that conflict with no other update of their array.
    fn unshare_owned(&self) -> Block {
        let mut out = self.stmts.clone();
        for s in out.iter_mut() {
            let StmtKind::Accumulate { target, op, shared, .. } = &mut s.kind else { continue };
            let x = target.var;
            if !*shared || target.is_scalar() || self.dims.iter().any(|d| d.start.mentions(x) || d.stop.mentions(x)) {
                continue;
            }
            let alone = self.updates_of(x, *op).is_some_and(|o| o.iter().all(|i| self.apart(&target.index, i)));
            if alone && self.owns(&target.index) {
                *shared = false;
            }
        }
        out
    }
}

/// The body without the moved statements, and without the definitions of private scalars
/// that only moved statements read.
fn remainder(body: &Body, moved: &[(usize, Stmt)]) -> Block {
    let mut rest: Block = body
        .stmts
        .iter()
        .enumerate()
        .filter(|(p, _)| !moved.iter().any(|(q, _)| q == p))
        .map(|(_, s)| s.clone())
        .collect();
    let read_before = block_reads(body.stmts);
    loop {
        let reads = block_reads(&rest);
        let dead = rest.iter().position(|s| match &s.kind {
            StmtKind::Assign { target, .. } => {
                body.defs.contains_key(&target.var) && read_before.contains(&target.var) && !reads.contains(&target.var)
            }
            _ => false,
        });
        match dead {
            Some(k) => {
                rest.remove(k);
            }
            None => return rest,
        }
    }
}

/// A copy of `dims` over fresh index variables (a map variable is bound by one map only),
/// and `body` renamed to use them.
fn fresh_nest(f: &mut Function, dims: &[MapDim], mut body: Block) -> (Vec<MapDim>, Block) {
    let mut renames: Vec<(VarId, Expr)> = Vec::new();
    let rename =
        |renames: &[(VarId, Expr)], e: &Expr| renames.iter().fold(e.clone(), |e, (v, to)| e.substitute(*v, to));
    let mut out: Vec<MapDim> = Vec::with_capacity(dims.len());
    for d in dims {
        let old = f.var(d.var).clone();
        let new = f.add_var(old.name, old.ty, VarRole::Index, old.span);
        out.push(MapDim { var: new, start: rename(&renames, &d.start), stop: rename(&renames, &d.stop) });
        renames.push((d.var, Expr::var(new, Scalar::I64)));
    }
    for s in body.iter_mut() {
        if let StmtKind::Accumulate { target, value, .. } = &mut s.kind {
            target.index = target.index.iter().map(|e| rename(&renames, e)).collect();
            *value = rename(&renames, value);
        }
    }
    (out, body)
}

/// Reductions over the same variables into different arrays share one loop nest (one pass
/// over the broadcast adjoint instead of one per operand), in program order.
fn reduction_groups(reductions: Vec<(Stmt, Vec<VarId>)>) -> Vec<(Block, Vec<VarId>)> {
    let target = |s: &Stmt| s.written_var();
    let mut out: Vec<(Block, Vec<VarId>)> = Vec::new();
    for (s, own) in reductions {
        let fits = |(g, o): &&mut (Block, Vec<VarId>)| *o == own && g.iter().all(|t| target(t) != target(&s));
        match out.iter_mut().find(fits) {
            Some((g, _)) => g.push(s),
            None => out.push((vec![s], own)),
        }
    }
    out
}

/// `updates` (written over the variables of `dims`) as a map over the dimensions of `own`
/// with one sequential loop per other dimension inside, all over fresh index variables.
fn reduction_nest(f: &mut Function, dims: &[MapDim], own: &[VarId], updates: Block, span: Span) -> Stmt {
    let mut renames: Vec<(VarId, Expr)> = Vec::new();
    let mut fresh: Vec<MapDim> = Vec::with_capacity(dims.len());
    for d in dims {
        let old = f.var(d.var).clone();
        let new = f.add_var(old.name, old.ty, VarRole::Index, old.span);
        fresh.push(MapDim { var: new, start: d.start.clone(), stop: d.stop.clone() });
        renames.push((d.var, Expr::var(new, Scalar::I64)));
    }
    let rename = |e: &Expr| renames.iter().fold(e.clone(), |e, (v, to)| e.substitute(*v, to));
    let mut updates = updates;
    for u in updates.iter_mut() {
        if let StmtKind::Accumulate { target, value, .. } = &mut u.kind {
            target.index = target.index.iter().map(rename).collect();
            *value = rename(value);
        }
    }
    let (outer, inner): (Vec<(MapDim, &MapDim)>, Vec<(MapDim, &MapDim)>) =
        fresh.into_iter().zip(dims).partition(|(_, d)| own.contains(&d.var));
    let body = inner.into_iter().rev().fold(updates, |body, (d, _)| {
        let l = Loop { id: LoopId::NEW, var: d.var, start: d.start, stop: d.stop, step: Expr::int(1), body };
        vec![Stmt::new(StmtKind::Loop(l), span)]
    });
    Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: outer.into_iter().map(|(d, _)| d).collect(), body }), span)
}

/// Collects the index of every accumulation into `x` in `stmts` (any depth); `false` when
/// `x` is mentioned otherwise (read, written, accumulated with another operator).
fn accumulations(stmts: &[Stmt], x: VarId, op: AccOp, out: &mut Vec<Vec<Expr>>) -> bool {
    for s in stmts {
        match &s.kind {
            StmtKind::Accumulate { target, op: o, value, .. } if target.var == x => {
                if *o != op || value.mentions(x) || target.index.iter().any(|e| e.mentions(x)) {
                    return false;
                }
                out.push(target.index.clone());
            }
            _ if mentions_directly(s, x) => return false,
            _ => {}
        }
        if !s.blocks().into_iter().all(|b| accumulations(b, x, op, out)) {
            return false;
        }
    }
    true
}

/// Whether `s` itself (not its nested blocks) reads, writes, binds or allocates `x`.
fn mentions_directly(s: &Stmt, x: VarId) -> bool {
    let mut found = s.written_var() == Some(x);
    s.exprs(&mut |e| found |= e.mentions(x));
    found
        || match &s.kind {
            StmtKind::Push { tape, .. } | StmtKind::Pop { tape, .. } => *tape == x,
            StmtKind::Alloc(v) | StmtKind::Free(v) => *v == x,
            StmtKind::Call(c) => c.args.contains(&x),
            StmtKind::Loop(l) => l.var == x,
            StmtKind::Map(m) => m.dims.iter().any(|d| d.var == x),
            _ => false,
        }
}

/// Collects the index of every element write of `y` in `stmts` (any depth) into `out`;
/// `false` when `y` is written whole (library call, allocation).
fn write_sites(stmts: &[Stmt], y: VarId, out: &mut Vec<Vec<Expr>>) -> bool {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } | StmtKind::Pop { target, .. }
                if target.var == y =>
            {
                out.push(target.index.clone())
            }
            StmtKind::Call(c) if c.out == y => return false,
            StmtKind::Alloc(v) | StmtKind::Free(v) if *v == y => return false,
            _ => {}
        }
        if !s.blocks().into_iter().all(|b| write_sites(b, y, out)) {
            return false;
        }
    }
    true
}

/// How many statements of `stmts` (any depth) write `v`.
fn write_count(stmts: &[Stmt], v: VarId) -> usize {
    stmts
        .iter()
        .map(|s| usize::from(s.written_var() == Some(v)) + s.blocks().iter().map(|b| write_count(b, v)).sum::<usize>())
        .sum()
}

/// Small and free of transcendental calls: worth recomputing in each map that needs it.
fn cheap(e: &Expr) -> bool {
    let mut nodes = 0;
    let mut calls = false;
    e.walk(&mut |x| {
        nodes += 1;
        if let ExprKind::Call(i, _) = &x.kind {
            calls |= !matches!(i, Intrinsic::Abs | Intrinsic::Max | Intrinsic::Min | Intrinsic::Sign);
        }
    });
    nodes <= CHEAP_NODES && !calls
}
