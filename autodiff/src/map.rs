//! Reversal of parallel maps.
//!
//! The adjoint of a map is a map over the same index space whose body, per iteration, is
//!
//! 1. *recomputation*: the primal statements of the body whose results some adjoint in
//!    the iteration reads (iteration-private scalars do not survive the forward map), each
//!    preceded by an iteration-private copy of what it overwrites when an adjoint needs
//!    the old value or the location must be handed back unchanged;
//! 2. the adjoint statements of the body in reverse order, each preceded by the restore of
//!    the copy taken in step 1.
//!
//! Values the body overwrites and that the map's own recomputation or adjoints of earlier
//! statements read are saved by the *forward* sweep (a tape of the region, see
//! [`crate::tape`]) and restored right before the adjoint map, so that step 1 starts from
//! the state before the map.
//!
//! Statements inside a sequential loop of the body cannot keep per-iteration copies in
//! parallel code; when the adjoint needs them, the map runs as a sequential loop nest
//! instead (stack tapes, one value per iteration) — correct, but no longer parallel.
//!
//! Parallel `max=`/`min=` reductions into a scalar get their own rule: the reverse sweep
//! finds the first iteration (row-major order) whose value equals the result and gives it
//! the whole adjoint (the first-argument convention of `max`), unless the value before the
//! map already was the result.

use crate::minmax::Nest;
use crate::reverse::{Ad, Env, Fail, R};
use crate::shared::injective;
use crate::util::{block_writes, expr_vars, reads, same_index, write_places, writes, zero, VarSet};
use adjc_ir::*;
use std::collections::BTreeMap;

/// A statement of a map body with its recomputation decision.
pub(crate) struct PStmt<'a> {
    s: &'a Stmt,
    /// Executed again in the adjoint map because a later adjoint reads what it writes.
    keep: bool,
    /// Primal variables its adjoint reads.
    ar: VarSet,
    /// For an `if`: the plans of both branches.
    branches: Option<(Vec<PStmt<'a>>, Vec<PStmt<'a>>)>,
    /// A `max=`/`min=` reduction nest (see [`crate::minmax`]).
    pattern: bool,
}

/// What code generation needs to know about the map body as a whole.
pub(crate) struct MapCtx {
    /// Memory variables each iteration accesses at one element of its own.
    owned: VarSet,
    /// Variables the outer tape restores before the adjoint map.
    undo: VarSet,
}

/// Turns a map into a sequential loop nest with the same variables (outermost first).
pub(crate) fn sequentialize(s: &Stmt) -> Stmt {
    let StmtKind::Map(m) = &s.kind else {
        return s.clone();
    };
    if m.dims.is_empty() {
        return s.clone();
    }
    let inner = seq_block(&m.body);
    let nest = m.dims.iter().rev().fold(inner, |body, d| {
        vec![Stmt::new(
            StmtKind::Loop(Loop {
                id: LoopId::NEW,
                var: d.var,
                start: d.start.clone(),
                stop: d.stop.clone(),
                step: Expr::int(1),
                body,
            }),
            s.span,
        )]
    });
    match nest.into_iter().next() {
        Some(l) => l.with_note(Note::RunSequentially),
        None => s.clone(),
    }
}

fn seq_block(b: &Block) -> Block {
    b.iter()
        .map(|s| {
            let mut s = if matches!(s.kind, StmtKind::Map(_)) { sequentialize(s) } else { s.clone() };
            if let StmtKind::Accumulate { shared, .. } = &mut s.kind {
                *shared = false;
            }
            for blk in s.blocks_mut() {
                *blk = seq_block(blk);
            }
            s
        })
        .collect()
}

/// A map whose body is a single shared `max=`/`min=` into a scalar.
fn shared_minmax(m: &Map) -> Option<(&Place, AccOp, &Expr)> {
    match m.body.as_slice() {
        [Stmt {
            kind: StmtKind::Accumulate { target, op: op @ (AccOp::Max | AccOp::Min), value, shared: true }, ..
        }] if target.is_scalar() && !value.mentions(target.var) => Some((target, *op, value)),
        _ => None,
    }
}

/// Row-major linear position of the current iteration in the map's index space.
fn linear_index(m: &Map) -> Expr {
    let mut lin: Option<Expr> = None;
    for d in &m.dims {
        let pos = Expr::var(d.var, Scalar::I64).sub(d.start.clone());
        lin = Some(match lin {
            None => pos,
            Some(l) => l.mul(d.stop.clone().sub(d.start.clone())).add(pos),
        });
    }
    lin.unwrap_or_else(|| Expr::int(0))
}

impl Ad<'_> {
    /// What the reverse sweep of map statement `s` reads.
    pub fn ar_map(&self, s: &Stmt, m: &Map) -> VarSet {
        let mut out: VarSet = m.dims.iter().flat_map(|d| [&d.start, &d.stop]).flat_map(|e| e.vars()).collect();
        if let Some((target, _, value)) = shared_minmax(m) {
            if self.is_active(target.var) {
                out.insert(target.var);
                out.extend(expr_vars(value));
            }
            return out;
        }
        let owned = self.owned_vars(m);
        match self.plan_block(&m.body, &VarSet::new(), Some(&owned)) {
            Ok((_, need)) => out.extend(need),
            Err(Fail::Seq) => out.extend(self.ar(&sequentialize(s))),
            Err(Fail::Diag(_)) => {}
        }
        // A map the reversed loop body evaluates again reads its inputs there.
        if crate::recompute::array_def(s).is_some_and(|(a, _, _)| self.recompute_arrays.contains(&a)) {
            out.extend(crate::recompute::array_inputs(s));
        }
        out
    }

    /// Variables whose value *after* the map its adjoint reads: the results of reduction
    /// nests of the body (see `gen_minmax`). They stay live after the map, so that later
    /// statements that overwrite them save them.
    pub fn map_post_reads(&self, m: &Map) -> VarSet {
        m.body.iter().filter_map(|t| self.active_nest(t)).map(|n| n.target.var).collect()
    }

    /// `live`: variables whose current value an adjoint needs, right before the map.
    pub fn rev_map(&mut self, s: &Stmt, m: &Map, env: Env, live: &VarSet) -> R<(Block, Block)> {
        let mut need = live.clone();
        need.extend(self.ar_map(s, m));
        if let Some((target, op, value)) = shared_minmax(m) {
            return Ok(self.rev_shared_minmax(s, m, target, op, value, &need));
        }
        let cp = self.checkpoint();
        match self.rev_map_parallel(s, m, &need) {
            Err(Fail::Seq) => {
                self.rollback(cp);
                let seq = sequentialize(s);
                let (fwd, rev) = self.rev_stmt(&seq, env, &mut live.clone())?;
                // Only the reverse sweep needs the sequential order: when the forward sweep
                // saves nothing, it keeps the map (iterations independent, same results).
                let saves_nothing = matches!(fwd.as_slice(), [f] if *f == seq);
                Ok((if saves_nothing { vec![s.clone()] } else { fwd }, rev))
            }
            other => other,
        }
    }

    fn rev_map_parallel(&mut self, s: &Stmt, m: &Map, need: &VarSet) -> R<(Block, Block)> {
        let owned = self.owned_vars(m);
        let (plan, _) = self.plan_block(&m.body, &VarSet::new(), Some(&owned))?;
        let written: VarSet = block_writes(&m.body).into_iter().filter(|v| !self.private.contains(v)).collect();
        let taped: VarSet =
            written.intersection(need).copied().filter(|x| !self.recompute_arrays.contains(x)).collect();
        let mut fwd = Vec::new();
        let mut rev = Vec::new();
        for x in &taped {
            let (save, restore) = self.region_tape(*x, s, m);
            fwd.extend(save);
            rev.extend(restore);
            if self.array_candidates.contains(x) && crate::recompute::array_def(s).is_some() {
                if let Some(t) = self.tapes.last() {
                    self.array_tapes.push((*x, t.var));
                }
            }
        }
        fwd.push(s.clone());
        self.map_entry.clear();
        let ctx = MapCtx { owned, undo: taped };
        let (recompute, adjoint) = self.gen_block(&plan, &VarSet::new(), &ctx, true)?;
        if !adjoint.is_empty() {
            let mut body = std::mem::take(&mut self.map_entry);
            body.extend(recompute);
            let privates: VarSet = block_writes(&m.body).into_iter().filter(|v| self.private.contains(v)).collect();
            for v in privates {
                if self.is_active(v) {
                    let vb = self.adj_of(v);
                    self.mark_private_ad(vb);
                    body.push(Stmt::assign(Place::scalar(vb), zero(self.elem(v)), s.span));
                }
            }
            body.extend(adjoint);
            let vars = crate::shared::iterating_vars(&m.dims);
            crate::shared::mark(&mut body, &vars, &self.private_ad, self.p.vars.len());
            rev.push(Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: m.dims.clone(), body }), s.span));
        }
        Ok((fwd, rev))
    }

    // ---------------------------------------------------------------------------------
    // Planning: which statements of a map body are recomputed (backward liveness)

    /// `owned` is given for the top level of the body: an assignment there to an element
    /// the iteration owns kills its liveness (the old value cannot be needed before it).
    pub fn plan_block<'a>(
        &self,
        b: &'a Block,
        need_after: &VarSet,
        owned: Option<&VarSet>,
    ) -> R<(Vec<PStmt<'a>>, VarSet)> {
        let mut need = need_after.clone();
        let mut out = Vec::new();
        for s in b.iter().rev() {
            let (ps, mut nb) = self.plan_stmt(s, &need)?;
            if let (Some(owned), StmtKind::Assign { target, value }) = (owned, &s.kind) {
                if owned.contains(&target.var) && !value.mentions(target.var) && !ps.ar.contains(&target.var) {
                    nb.remove(&target.var);
                }
            }
            need = nb;
            out.push(ps);
        }
        out.reverse();
        Ok((out, need))
    }

    fn plan_stmt<'a>(&self, s: &'a Stmt, need_after: &VarSet) -> R<(PStmt<'a>, VarSet)> {
        let simple = |keep: bool, ar: VarSet| {
            let mut need = need_after.clone();
            need.extend(ar.iter().copied());
            if keep {
                need.extend(reads(s));
            }
            (PStmt { s, keep, ar, branches: None, pattern: false }, need)
        };
        match &s.kind {
            // Never in a map body (IR invariant); run the map as a sequential nest if so.
            StmtKind::While(_) => Err(Fail::Seq),
            StmtKind::Assign { target, value } => {
                Ok(simple(need_after.contains(&target.var), self.ar_write(target, value)))
            }
            StmtKind::Accumulate { target, op, value, shared } => {
                if *shared {
                    // Never re-executed (it would count twice); nothing in the body may read it.
                    if *op != AccOp::Add || value.mentions(target.var) || need_after.contains(&target.var) {
                        return Err(Fail::Seq);
                    }
                    return Ok(simple(false, self.ar_write(target, value)));
                }
                let v = self.effective_value(target, *op, value);
                Ok(simple(need_after.contains(&target.var), self.ar_write(target, &v)))
            }
            StmtKind::If { cond, then_body, else_body } => {
                let (pt, nt) = self.plan_block(then_body, need_after, None)?;
                let (pe, ne) = self.plan_block(else_body, need_after, None)?;
                let reeval = self.is_reeval(cond);
                let keep = !reeval || pt.iter().chain(pe.iter()).any(|p| p.keep);
                let ar = self.ar(s);
                let mut need: VarSet = nt.union(&ne).copied().collect();
                if keep || reeval {
                    need.extend(expr_vars(cond));
                }
                Ok((PStmt { s, keep, ar, branches: Some((pt, pe)), pattern: false }, need))
            }
            StmtKind::Loop(l) => {
                self.check_loop_bounds(s, l)?;
                if let Some(nest) = self.active_nest(s) {
                    let (mut ps, need) = simple(need_after.contains(&nest.target.var), self.ar_minmax(&nest));
                    ps.pattern = true;
                    return Ok((ps, need));
                }
                self.check_loop_in_map(s, l)?;
                let keep = block_writes(&l.body).iter().any(|v| need_after.contains(v));
                Ok(simple(keep, self.ar(s)))
            }
            StmtKind::Section { body, .. } => {
                // Sections were flattened by prep; keep the code total anyway.
                let (ps, need) = self.plan_block(body, need_after, None)?;
                let keep = ps.iter().any(|p| p.keep);
                Ok((PStmt { s, keep, ar: self.ar(s), branches: Some((ps, Vec::new())), pattern: false }, need))
            }
            StmtKind::Map(_) => Err(Fail::Seq),
            StmtKind::Alloc(_) | StmtKind::Free(_) => Ok(simple(false, VarSet::new())),
            StmtKind::Call(_) | StmtKind::Push { .. } | StmtKind::Pop { .. } | StmtKind::Fail(_) => {
                Err(Diagnostic::error(s.span, "this statement cannot be differentiated inside a parallel map").into())
            }
        }
    }

    /// A loop inside a map body is reversed without per-iteration copies: nothing its
    /// adjoint reads may change during the loop.
    fn check_loop_in_map(&self, s: &Stmt, l: &Loop) -> R<()> {
        let ar = self.ar(s);
        let mut res: R<()> = Ok(());
        walk_stmts(&l.body, &mut |t| {
            if res.is_err() {
                return;
            }
            res = match &t.kind {
                StmtKind::Assign { target, .. } if ar.contains(&target.var) => Err(Fail::Seq),
                StmtKind::Accumulate { target, op, value, shared } => {
                    if ar.contains(&target.var) || (*shared && (*op != AccOp::Add || value.mentions(target.var))) {
                        Err(Fail::Seq)
                    } else {
                        Ok(())
                    }
                }
                StmtKind::Map(_) => Err(Fail::Seq),
                StmtKind::If { cond, .. } if !self.is_reeval(cond) => Err(Fail::Seq),
                StmtKind::Loop(inner) => self.check_loop_bounds(t, inner).map_err(Fail::from),
                StmtKind::Call(_) | StmtKind::Push { .. } | StmtKind::Pop { .. } => {
                    Err(Diagnostic::error(t.span, "this statement cannot be differentiated inside a parallel map")
                        .into())
                }
                _ => Ok(()),
            };
        });
        res
    }

    // ---------------------------------------------------------------------------------
    // Code generation for one iteration of the adjoint map

    /// `(recomputation, adjoint)` of a planned block. `seen`: variables read by adjoints
    /// of statements before the block in the iteration; `undo`: memory variables that must
    /// be handed back unchanged (the outer tape restored them before the map).
    fn gen_block(&mut self, plan: &[PStmt], seen: &VarSet, ctx: &MapCtx, top: bool) -> R<(Block, Block)> {
        let mut seen = seen.clone();
        let mut recompute = Vec::new();
        let mut parts = Vec::new();
        for (k, ps) in plan.iter().enumerate() {
            seen.extend(ps.ar.iter().copied());
            let later: Option<VarSet> = top.then(|| plan[k + 1..].iter().flat_map(|p| writes(p.s)).collect());
            let (c, r) = self.gen_stmt(ps, &seen, ctx, later.as_ref())?;
            recompute.extend(c);
            parts.push(r);
        }
        Ok((recompute, parts.into_iter().rev().flatten().collect()))
    }

    /// Whether a recomputed write to `x` must be undone after its adjoint.
    fn must_save(&self, x: VarId, seen: &VarSet, undo: &VarSet) -> bool {
        seen.contains(&x) || (!self.private.contains(&x) && undo.contains(&x))
    }

    fn private_copy(&mut self, place: &Place, span: Span) -> (Stmt, Stmt) {
        let ty = self.elem(place.var);
        let what = self.place_str(place);
        let t = self.temp(&format!("{}_save", self.name(place.var)), ty, true);
        let save = Stmt::assign(Place::scalar(t), place.to_expr(ty), span)
            .with_note(Note::PrivateCopy { what: what.clone(), line: span.into() });
        let restore = Stmt::assign(place.clone(), Expr::var(t, ty), span).with_note(Note::Restore { what });
        if !self.private.contains(&place.var) {
            self.clobber(place.var);
        }
        (save, restore)
    }

    /// `later`: at the top level of the body, what the statements after this one write.
    fn gen_stmt(&mut self, ps: &PStmt, seen: &VarSet, ctx: &MapCtx, later: Option<&VarSet>) -> R<(Block, Block)> {
        let s = ps.s;
        let undo = &ctx.undo;
        let mut c = Vec::new();
        let mut r = Vec::new();
        if ps.pattern {
            if let Some(nest) = self.active_nest(s) {
                return self.gen_minmax(ps, &nest, ctx, later);
            }
        }
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } => {
                if ps.keep {
                    if self.must_save(target.var, seen, undo) {
                        let (save, restore) = self.private_copy(target, s.span);
                        c.push(save);
                        r.push(restore);
                    }
                    c.push(s.clone().with_note(Note::Recomputed));
                    if !self.private.contains(&target.var) {
                        self.clobber(target.var);
                    }
                }
                self.held_result = self.result_holder(s, ctx, later);
                let adjoint = self.adjoint_simple(s, true);
                self.held_result = None;
                r.extend(adjoint?);
            }
            StmtKind::If { cond, .. } => {
                let Some((pt, pe)) = &ps.branches else { return Ok((c, r)) };
                let decision = if self.is_reeval(cond) {
                    cond.clone()
                } else {
                    let d = self.temp("branch", Scalar::Bool, true);
                    c.push(Stmt::assign(Place::scalar(d), cond.clone(), s.span).with_note(Note::RecomputedBranch));
                    Expr::var(d, Scalar::Bool)
                };
                let (tc, tr) = self.gen_block(pt, seen, ctx, false)?;
                let (ec, er) = self.gen_block(pe, seen, ctx, false)?;
                if !tc.is_empty() || !ec.is_empty() {
                    c.push(Stmt::new(StmtKind::If { cond: decision.clone(), then_body: tc, else_body: ec }, s.span));
                }
                if !tr.is_empty() || !er.is_empty() {
                    r.push(Stmt::new(StmtKind::If { cond: decision, then_body: tr, else_body: er }, s.span));
                }
            }
            StmtKind::Loop(l) => {
                if ps.keep {
                    let inner_written = block_writes(&l.body);
                    let mut inner_bound = VarSet::from([l.var]);
                    walk_stmts(&l.body, &mut |t| {
                        if let StmtKind::Loop(il) = &t.kind {
                            inner_bound.insert(il.var);
                        }
                    });
                    for x in block_writes(&l.body) {
                        if !self.must_save(x, seen, undo) {
                            continue;
                        }
                        // One copy can only undo a loop that keeps writing the same place.
                        let places = write_places(&l.body, x);
                        let Some((first, _)) = places.first() else { continue };
                        let invariant = places.iter().all(|(p, _)| same_index(&p.index, &first.index))
                            && first
                                .index
                                .iter()
                                .flat_map(|e| e.vars())
                                .all(|v| !inner_written.contains(&v) && !inner_bound.contains(&v));
                        if !invariant {
                            return Err(Fail::Seq);
                        }
                        let (save, restore) = self.private_copy(first, s.span);
                        c.push(save);
                        r.push(restore);
                    }
                    c.push(s.clone().with_note(Note::Recomputed));
                    let shared: Vec<VarId> = inner_written.into_iter().filter(|v| !self.private.contains(v)).collect();
                    for v in shared {
                        self.clobber(v);
                    }
                }
                let body = self.rev_inner(&l.body)?;
                if !body.is_empty() {
                    let (start, stop, step) = crate::reverse::reversed_range(l, &self.f, s.span)?;
                    r.push(Stmt::new(
                        StmtKind::Loop(Loop { id: LoopId::NEW, var: l.var, start, stop, step, body }),
                        s.span,
                    ));
                }
            }
            StmtKind::Section { .. } => {
                if let Some((pb, _)) = &ps.branches {
                    return self.gen_block(pb, seen, ctx, false);
                }
            }
            _ => {}
        }
        Ok((c, r))
    }

    /// Where the adjoint of assignment `s` (at the top level of the body, `later` given)
    /// can read the value `s` computed: its own target, when that element provably still
    /// holds it. Sufficient conditions, each simple to check: the map is at the top level of
    /// the function (no loop or branch around it: the forward sweep ran it once, and
    /// nothing runs it again), the target is a local array written by this statement only
    /// (so no later statement, restore, recomputation or checkpoint re-run changes it; a
    /// memory plan that frees it recomputes it from this statement before the reverse sweep
    /// reads it), each iteration owns its element, and neither the outer tape nor the
    /// body's later statements touch it. The value must not read the target.
    fn result_holder(&self, s: &Stmt, ctx: &MapCtx, later: Option<&VarSet>) -> Option<Expr> {
        let StmtKind::Assign { target, value } = &s.kind else { return None };
        let x = target.var;
        let var = self.p.var(x);
        let top = self.nest.is_empty() && self.cond_depth == 0;
        let local = matches!(var.role, VarRole::Local | VarRole::Temp) && var.ty.rank() > 0;
        let untouched = later.is_some_and(|l| !l.contains(&x))
            && !ctx.undo.contains(&x)
            && ctx.owned.contains(&x)
            && !self.recompute_arrays.contains(&x)
            && !self.private.contains(&x);
        (top && local && untouched && self.written_once.contains(&x) && !value.mentions(x))
            .then(|| target.to_expr(var.ty.elem()))
    }

    /// A reduction nest in a map body. The value after the nest is read when the adjoint
    /// iteration starts if nothing changes it before (the element belongs to this
    /// iteration, nothing later in the body writes it, the outer tape does not restore
    /// it); otherwise the nest is recomputed after a private copy of the value before it.
    fn gen_minmax(&mut self, ps: &PStmt, nest: &Nest, ctx: &MapCtx, later: Option<&VarSet>) -> R<(Block, Block)> {
        let s = ps.s;
        let x = nest.target.var;
        let ty = self.elem(x);
        let fin = self.temp(&format!("{}_fin", self.name(x)), ty, true);
        let read_fin =
            Stmt::assign(Place::scalar(fin), nest.target.to_expr(ty), s.span).with_note(Note::ExtremumValue {
                op: crate::minmax::opname(nest.op).to_string(),
                by: Reducer::Loop(s.span.into()),
            });
        let early =
            !ps.keep && ctx.owned.contains(&x) && !ctx.undo.contains(&x) && later.is_some_and(|w| !w.contains(&x));
        let mut c = Vec::new();
        let mut r = Vec::new();
        if early {
            self.map_entry.push(read_fin);
        } else {
            let (save, restore) = self.private_copy(nest.target, s.span);
            c.push(save);
            c.push(s.clone().with_note(Note::Recomputed));
            if !self.private.contains(&x) {
                self.clobber(x);
            }
            r.push(read_fin);
            r.push(restore);
        }
        r.push(self.minmax_adjoint(nest, fin, true)?);
        Ok((c, r))
    }

    /// Memory variables that every iteration of `m` accesses at a single element of its
    /// own: one index expression everywhere, injective in the map variables, depending on
    /// nothing the body changes.
    pub fn owned_vars(&self, m: &Map) -> VarSet {
        let map_vars = crate::shared::iterating_vars(&m.dims);
        let written = block_writes(&m.body);
        let mut bound = VarSet::new();
        let mut seen: BTreeMap<VarId, Option<Vec<Expr>>> = BTreeMap::new();
        let mut note = |v: VarId, idx: &[Expr]| {
            if idx.is_empty() {
                return;
            }
            let entry = seen.entry(v).or_insert_with(|| Some(idx.to_vec()));
            if entry.as_ref().is_some_and(|i| !same_index(i, idx)) {
                *entry = None;
            }
        };
        walk_stmts(&m.body, &mut |t| {
            if let StmtKind::Loop(l) = &t.kind {
                bound.insert(l.var);
            }
            match &t.kind {
                StmtKind::Assign { target, .. }
                | StmtKind::Accumulate { target, .. }
                | StmtKind::Pop { target, .. } => note(target.var, &target.index),
                _ => {}
            }
            t.exprs(&mut |e| {
                e.walk(&mut |x| {
                    if let ExprKind::Load(v, idx) = &x.kind {
                        note(*v, idx);
                    }
                })
            });
        });
        seen.into_iter()
            .filter_map(|(v, idx)| idx.map(|i| (v, i)))
            .filter(|(v, idx)| {
                written.contains(v)
                    && idx.iter().flat_map(|e| e.vars()).all(|u| !bound.contains(&u) && !written.contains(&u))
                    && injective(idx, &map_vars, &written)
            })
            .map(|(v, _)| v)
            .collect()
    }

    /// Adjoint of a block inside a loop inside a map body: nothing it reads changes during
    /// the loop (checked by `check_loop_in_map`), so no restores are needed.
    fn rev_inner(&mut self, b: &Block) -> R<Block> {
        let mut out = Vec::new();
        for s in b.iter().rev() {
            match &s.kind {
                StmtKind::Assign { .. } | StmtKind::Accumulate { .. } => out.extend(self.adjoint_simple(s, true)?),
                StmtKind::Loop(l) => {
                    let body = self.rev_inner(&l.body)?;
                    if !body.is_empty() {
                        let (start, stop, step) = crate::reverse::reversed_range(l, &self.f, s.span)?;
                        out.push(Stmt::new(
                            StmtKind::Loop(Loop { id: LoopId::NEW, var: l.var, start, stop, step, body }),
                            s.span,
                        ));
                    }
                }
                StmtKind::If { cond, then_body, else_body } => {
                    let t = self.rev_inner(then_body)?;
                    let e = self.rev_inner(else_body)?;
                    if !t.is_empty() || !e.is_empty() {
                        out.push(Stmt::new(StmtKind::If { cond: cond.clone(), then_body: t, else_body: e }, s.span));
                    }
                }
                StmtKind::Section { body, .. } => out.extend(self.rev_inner(body)?),
                StmtKind::Alloc(_) | StmtKind::Free(_) => {}
                _ => return Err(Fail::Seq),
            }
        }
        Ok(out)
    }

    // ---------------------------------------------------------------------------------
    // Parallel max/min reductions

    fn rev_shared_minmax(
        &mut self,
        s: &Stmt,
        m: &Map,
        target: &Place,
        op: AccOp,
        value: &Expr,
        need: &VarSet,
    ) -> (Block, Block) {
        let mvar = target.var;
        let ty = self.elem(mvar);
        let mut fwd = Vec::new();
        let mut rev = Vec::new();
        if !self.is_active(mvar) {
            if need.contains(&mvar) {
                let (push, pop) = self.save_place(target, s.span);
                fwd.push(push);
                rev.push(pop);
            }
            fwd.push(s.clone());
            return (fwd, rev);
        }
        let (push, pop) = self.save_place(target, s.span);
        fwd.push(push);
        fwd.push(s.clone());
        let name = self.name(mvar);
        let mb = self.adj_of(mvar);
        let fin = self.temp(&format!("{name}_fin"), ty, false);
        let lin = linear_index(m);
        let opname = if op == AccOp::Max { "maximum" } else { "minimum" };
        rev.push(
            Stmt::assign(Place::scalar(fin), Expr::var(mvar, ty), s.span)
                .with_note(Note::ExtremumValue { op: opname.to_string(), by: Reducer::Map }),
        );
        rev.push(pop);
        let seed = Expr::var(mb, ty);
        let mut contribs = Vec::new();
        for p in self.partials(value) {
            contribs.push(self.contribution(&p, &seed, s.span));
        }
        let mut then_body = Vec::new();
        if !contribs.is_empty() {
            // The first iteration whose value is the result receives the whole adjoint.
            let win = self.temp(&format!("{name}_win"), Scalar::I64, false);
            let find = Stmt::new(
                StmtKind::Map(Map {
                    id: MapId::NEW,
                    dims: m.dims.clone(),
                    body: vec![Stmt::new(
                        StmtKind::If {
                            cond: Expr::binary(BinOp::Eq, value.clone(), Expr::var(fin, ty)),
                            then_body: vec![Stmt::new(
                                StmtKind::Accumulate {
                                    target: Place::scalar(win),
                                    op: AccOp::Min,
                                    value: lin.clone(),
                                    shared: true,
                                },
                                s.span,
                            )],
                            else_body: Vec::new(),
                        },
                        s.span,
                    )],
                }),
                s.span,
            )
            .with_note(Note::FirstWinner { op: opname.to_string(), row_major: true });
            let vars = crate::shared::iterating_vars(&m.dims);
            let mut body = vec![Stmt::new(
                StmtKind::If {
                    cond: Expr::binary(BinOp::Eq, lin, Expr::var(win, Scalar::I64)),
                    then_body: contribs,
                    else_body: Vec::new(),
                },
                s.span,
            )];
            crate::shared::mark(&mut body, &vars, &self.private_ad, self.p.vars.len());
            then_body.push(Stmt::assign(Place::scalar(win), Expr::int(i64::MAX), s.span));
            then_body.push(find);
            then_body.push(Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: m.dims.clone(), body }), s.span));
        }
        then_body.push(Stmt::assign(Place::scalar(mb), zero(ty), s.span));
        rev.push(
            Stmt::new(
                StmtKind::If {
                    cond: Expr::binary(BinOp::Ne, Expr::var(mvar, ty), Expr::var(fin, ty)),
                    then_body,
                    else_body: Vec::new(),
                },
                s.span,
            )
            .with_note(Note::AdjointToMapValues { op: opname.to_string() }),
        );
        (fwd, rev)
    }
}
