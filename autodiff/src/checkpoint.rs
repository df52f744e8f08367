//! Checkpointing of time loops: the reverse sweep gets the states of a sequential loop
//! back by running it again from snapshots, instead of taping every iteration.
//!
//! The **state** of loop `L` is what one iteration hands the next: the variables `L`'s body
//! writes and reads, except those whose first use in the body assigns all of them without
//! reading them (`un = u.copy()`, a scalar temporary). With
//! [`Checkpointing::Periodic`] `{ every: k }`:
//!
//! ```text
//! forward sweep:  for t: if counter % k == 0: snapshot state → x_ckpt[counter / k]
//!                        body                                  (untaped)
//! reverse sweep:  for seg from last to first:
//!                     restore state ← x_ckpt[seg]
//!                     for t in segment seg: body with its tapes  (tapes sized for k iterations)
//!                     for t in segment seg, reversed: adjoint of the body
//! ```
//!
//! Each of the three bodies appears once in the generated code; the tapes of the body are
//! indexed by the iteration's position in its segment, so they hold `k` iterations whatever
//! the trip count. Memory: `ceil(T / k)` snapshots plus `k` iterations of tapes.
//!
//! [`Checkpointing::Binomial`] `{ snapshots: c }` follows Revolve (Griewank & Walther,
//! ACM TOMS 2000) in loop form: the forward sweep snapshots the state before step 0 and runs
//! the loop untaped; the reverse sweep is one loop over the steps from last to first, each
//! restoring the latest snapshot, advancing untaped to the step (snapshotting where Revolve's
//! advance rule says while a snapshot is free), running the step taped and reversing it. The
//! generated code computes the advance rule itself (see [`Ad::revolve_advance`]): Revolve's
//! whole action iterator (advance / takeshot / restore / firsturn / youturn) is not needed in
//! this form, so neither a runtime helper nor an IR extension is. It advances exactly
//! t(T, c) steps ([`binomial_optimum`]); memory: `c` snapshots plus one step of tapes.
//!
//! Soundness: re-running a segment reads the state (restored) and variables `L` does not
//! write; those must still hold their forward values when the reverse sweep reaches `L`,
//! so they stay live after `L` in the to-be-recorded analysis (later statements that
//! overwrite them tape them). Everything `L` writes is changed by the re-runs: outputs among
//! them get their forward result back at the end (`assemble`), and the variables whose value
//! from before `L` the adjoint of earlier code reads (live before `L`) get it back from one
//! copy taken before `L` ([`Ad::entry_values`]); the state gets it back from the first
//! snapshot through the taped re-run of the first step.
//!
//! Any sequential loop with a closed-form trip count can be checkpointed, nested ones too
//! (inside checkpointed loops or not): snapshot arrays get a leading slot per iteration of
//! the loops around, like tapes. Loops inside a parallel map cannot.
//! [`Adjoint::checkpointable`] lists the top-level loops with the formulas a planner needs.
//!
//! [`Adjoint::checkpointable`]: crate::Adjoint::checkpointable

use crate::report::{elem_bytes, TapeInfo, TapeKind};
use crate::reverse::reversed_range;
use crate::state::{Ad, Env, R};
use crate::state::{Frame, Trips};
use crate::util::{block_reads, block_writes, reads, VarSet};
use adjc_ir::*;

pub use crate::state::{CheckpointableLoop, Checkpointing};
/// A sequential loop of the primal given to `reverse` is named by its IR id (`L3`).
pub use adjc_ir::LoopId;

/// `C(n, k)`, saturating at `u64::MAX` (only compared with trip counts).
fn binomial(n: u64, k: u64) -> u64 {
    let k = k.min(n.saturating_sub(k));
    let mut acc: u128 = 1;
    for i in 0..k {
        // Exact at every step: acc is C(n - k + i + 1, i + 1) afterwards.
        acc = acc * u128::from(n - k + i + 1) / u128::from(i + 1);
        if acc > u128::from(u64::MAX) {
            return u64::MAX;
        }
    }
    acc as u64
}

/// The binomial optimum t(T, c) = r·T − C(c+r, c+1), r smallest with C(c+r, c) ≥ T: the
/// fewest forward steps that reverse T steps holding at most c snapshots (Griewank 1992;
/// the T taped steps not counted). 0 for T ≤ 1; `u64::MAX` when c = 0 and T > 1 (impossible).
pub fn binomial_optimum(trips: u64, snapshots: u64) -> u64 {
    if trips <= 1 {
        return 0;
    }
    if snapshots == 0 {
        return u64::MAX;
    }
    let mut r = 0;
    while binomial(snapshots + r, snapshots) < trips {
        r += 1;
    }
    (r * trips).saturating_sub(binomial(snapshots + r, snapshots + 1))
}

/// Predicted extra recomputation of a schedule, in loop iterations (for the report): how
/// many more iterations run forward than under store-all (which runs each iteration once,
/// taped). Periodic: T (the forward sweep runs every iteration untaped, the reverse sweep
/// runs it again with its tapes); binomial: T + t(T, c) (the untaped forward sweep, then
/// Revolve's advances, its own first forward pass included).
pub fn checkpoint_recompute_steps(trips: u64, c: &Checkpointing) -> u64 {
    match c {
        Checkpointing::Periodic { .. } => trips,
        // The forward sweep's untaped run, then Revolve's t(T, c) advances.
        Checkpointing::Binomial { snapshots } => trips.saturating_add(binomial_optimum(trips, *snapshots)),
    }
}

/// Whether the first top-level statement of `body` that mentions `x` assigns all of it
/// without reading it: then no value of `x` crosses an iteration boundary.
fn defined_first(f: &Function, body: &Block, x: VarId) -> bool {
    for s in body {
        if !crate::util::stmt_mentions(s, x) {
            continue;
        }
        return !reads(s).contains(&x) && crate::assemble::fully_overwritten(std::slice::from_ref(s), f, x);
    }
    false
}

/// Floating-point operations of one execution of `b`, as a formula of the parameters
/// (inner loops and maps multiply by their trip counts).
pub(crate) fn flops(f: &Function, b: &Block) -> Expr {
    fn expr_ops(e: &Expr) -> i64 {
        let mut n = 0;
        e.walk(&mut |x| match &x.kind {
            ExprKind::Binary(op, _, _) if x.ty.is_float() && !op.is_comparison() => n += 1,
            ExprKind::Unary(UnOp::Neg, _) if x.ty.is_float() => n += 1,
            ExprKind::Call(_, _) if x.ty.is_float() => n += 1,
            _ => {}
        });
        n
    }
    let trips = |start: &Expr, stop: &Expr, step: i64| -> Expr {
        let d = stop.clone().sub(start.clone());
        let q = if step == 1 {
            d
        } else {
            Expr::binary(BinOp::FloorDiv, d.add(Expr::int(step - step.signum())), Expr::int(step))
        };
        Expr::call(Intrinsic::Max, vec![Expr::int(0), q], Scalar::I64)
    };
    let mut total = Expr::int(0);
    for s in b {
        let term = match &s.kind {
            StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
                let acc = matches!(s.kind, StmtKind::Accumulate { .. }) as i64;
                let n = expr_ops(value) + if f.var(target.var).ty.elem().is_float() { acc } else { 0 };
                Expr::int(n)
            }
            StmtKind::Loop(l) => {
                let step = l.step.as_int().unwrap_or(1);
                trips(&l.start, &l.stop, step).mul(flops(f, &l.body))
            }
            StmtKind::Map(m) => m.dims.iter().fold(flops(f, &m.body), |a, d| trips(&d.start, &d.stop, 1).mul(a)),
            StmtKind::If { cond, then_body, else_body } => {
                // The larger branch (both are formulas: count both, an upper bound).
                Expr::int(expr_ops(cond)).add(flops(f, then_body)).add(flops(f, else_body))
            }
            StmtKind::Section { body, .. } => flops(f, body),
            StmtKind::Call(c) => {
                let ext = |v: &View| v.extents.iter().cloned().fold(Expr::int(1), |a, e| a.mul(e));
                // 2 flops per multiply-add: out elements × inner extent.
                let inner = c.arg_views.first().and_then(|v| v.extents.last().cloned()).unwrap_or(Expr::int(1));
                let inner = if c.op == LibOp::Ger { Expr::int(1) } else { inner };
                Expr::int(2).mul(ext(&c.out_view)).mul(inner)
            }
            _ => Expr::int(0),
        };
        total = if total.as_int() == Some(0) { term } else { total.add(term) };
    }
    total
}

/// A state variable, its snapshot array, and the index of the current iteration of the
/// loops around the checkpointed loop (leading axes of the snapshot array).
struct Snap {
    x: VarId,
    snap: VarId,
    outer: Vec<Expr>,
}

impl Ad<'_> {
    /// The checkpointing requested for loop statement `s`, if any.
    pub fn checkpointing_of(&self, s: &Stmt) -> Option<(LoopId, Checkpointing)> {
        let StmtKind::Loop(l) = &s.kind else { return None };
        self.checkpoints.get(&l.id).map(|c| (l.id, c.clone()))
    }

    /// Forward and reverse code of loop `s` under the checkpoint schedule requested for it
    /// (periodic or binomial snapshots); `None` when it has none and is reversed store-all
    /// (every iteration taped) by the caller.
    pub fn rev_checkpointed(&mut self, s: &Stmt, l: &Loop, live: &VarSet) -> R<Option<(Block, Block)>> {
        let Some((id, c)) = self.checkpointing_of(s) else { return Ok(None) };
        let out = match c {
            Checkpointing::Periodic { every } => self.rev_periodic(s, l, live, every)?,
            Checkpointing::Binomial { snapshots } => self.rev_binomial(s, l, live, snapshots)?,
        };
        self.checkpointed.push(id);
        Ok(Some(out))
    }

    /// The loop state of `l`: variables its body writes and reads before writing.
    pub fn loop_state(&self, l: &Loop) -> Vec<VarId> {
        let r = block_reads(&l.body);
        block_writes(&l.body)
            .into_iter()
            // Scalars private to a map iteration never cross a step.
            .filter(|v| !matches!(self.p.var(*v).role, VarRole::Index) && *v != l.var && !self.private.contains(v))
            .filter(|v| r.contains(v))
            .filter(|v| !defined_first(self.p, &l.body, *v))
            .collect()
    }

    /// Variables `l` overwrites without carrying them across iterations (not its state)
    /// whose value before `l` the adjoint of earlier code reads (`live` before `l`). Taped,
    /// `l`'s own restores give them back; checkpointed, the re-runs leave whatever the
    /// last re-run wrote, so the reverse sweep puts back a copy taken before `l`.
    pub fn entry_values(&self, l: &Loop, live: &VarSet) -> Vec<VarId> {
        let state = self.loop_state(l);
        block_writes(&l.body)
            .into_iter()
            .filter(|v| !matches!(self.p.var(*v).role, VarRole::Index) && *v != l.var && !self.private.contains(v))
            .filter(|v| live.contains(v) && !state.contains(v))
            .collect()
    }

    /// The copies of [`Ad::entry_values`]: taken before the forward sweep runs `l`, put back
    /// after the reverse sweep has reversed it.
    fn entry_copies(&mut self, l: &Loop, live: &VarSet, span: Span) -> (Block, Block) {
        let vars = self.entry_values(l, live);
        let line = crate::util::at_line(span);
        let copies = self.copy_arrays(
            l,
            &vars,
            &Expr::int(1),
            span,
            "value at the start",
            "one copy",
            &format!("the adjoint of code before the loop{line} reads it, and the loop's re-runs overwrite it"),
        );
        let zero = Expr::int(0);
        let mut save: Block = copies.iter().map(|sn| self.snapshot_copy(sn, &zero, true, span)).collect();
        let mut restore: Block = copies.iter().map(|sn| self.snapshot_copy(sn, &zero, false, span)).collect();
        if let Some(first) = save.first_mut() {
            first.note = Some(Note::CheckpointBeforeLoop { counter: self.name(l.var) });
        }
        if let Some(first) = restore.first_mut() {
            first.note = Some(Note::CheckpointRestoreBeforeLoop);
        }
        (save, restore)
    }

    /// Elements of one snapshot of `x`.
    fn elems_of(&self, x: VarId) -> Expr {
        self.f.var(x).ty.dims().iter().fold(Expr::int(1), |a, d| a.mul(d.extent.clone()))
    }

    /// Bytes of one snapshot of the state of `l`.
    pub fn state_bytes(&self, l: &Loop) -> Expr {
        let mut total = Expr::int(0);
        for x in self.loop_state(l) {
            let b = Expr::int(elem_bytes(self.elem(x))).mul(self.elems_of(x));
            total = if total.as_int() == Some(0) { b } else { total.add(b) };
        }
        total
    }

    /// Arrays a schedule of `l` holds beyond its snapshots and one segment's tape (see
    /// [`CheckpointableLoop::replay_bytes`]): outputs the body writes (the replay rewrites
    /// them, so the adjoint copies their forward results aside), local arrays the body
    /// reads or writes (alive while the reverse sweep replays the loop) and the copies of its
    /// [`Ad::entry_values`]. Counted whole, even where a plan has them alive anyway: the
    /// prediction errs on the safe side.
    pub fn replay_bytes(&self, l: &Loop, live: &VarSet) -> Expr {
        let outputs: Vec<VarId> =
            self.p.params.iter().filter(|q| q.intent != adjc_ir::Intent::In).map(|q| q.var).collect();
        let writes = block_writes(&l.body);
        let mut used: Vec<VarId> = writes.iter().copied().chain(block_reads(&l.body).iter().copied()).collect();
        used.sort();
        used.dedup();
        let mut total = Expr::int(0);
        for x in used {
            let v = self.p.var(x);
            if v.ty.dims().is_empty() {
                continue;
            }
            let counted = if outputs.contains(&x) {
                writes.contains(&x)
            } else {
                matches!(v.role, VarRole::Local | VarRole::Temp)
            };
            if counted {
                let b = Expr::int(elem_bytes(self.elem(x))).mul(self.elems_of(x));
                total = if total.as_int() == Some(0) { b } else { total.add(b) };
            }
        }
        for x in self.entry_values(l, live) {
            let b = Expr::int(elem_bytes(self.elem(x))).mul(self.elems_of(x));
            total = if total.as_int() == Some(0) { b } else { total.add(b) };
        }
        total
    }

    /// Copies between a state variable and slot `slot` of its snapshot array (`to_snap`:
    /// save, else restore).
    fn snapshot_copy(&mut self, sn: &Snap, slot: &Expr, to_snap: bool, span: Span) -> Stmt {
        let (x, snap) = (sn.x, sn.snap);
        let ty = self.elem(x);
        let (dims, idx) = self.full_space(x);
        let mut sidx = sn.outer.clone();
        sidx.push(slot.clone());
        sidx.extend(idx.iter().cloned());
        let value = if idx.is_empty() { Expr::var(x, ty) } else { Expr::load(x, idx.clone(), ty) };
        let (dst, src) = if to_snap {
            (Place::element(snap, sidx), value)
        } else {
            (Place::element(x, idx), Expr::load(snap, sidx, ty))
        };
        let body = Stmt::assign(dst, src, span);
        if dims.is_empty() {
            body
        } else {
            Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims, body: vec![body] }), span)
        }
    }

    /// The frame of loop `s` over all its iterations, with its exact trip count and counter,
    /// or why it cannot be checkpointed.
    fn checkpoint_frame(&self, s: &Stmt, l: &Loop) -> Result<(Frame, Expr, Expr), Diagnostic> {
        let name = self.name(l.var);
        let no = |why: String| {
            Diagnostic::error(s.span, format!("loop `{name}` cannot be checkpointed: {why}"))
                .with_help("checkpoint a loop whose trip count is a formula of the parameters")
        };
        if let Err(crate::nest::NoSlot(why)) = self.slot(&[]) {
            return Err(no(format!("its snapshots need one slot per iteration of the loops around it, but {why}")));
        }
        let g = self.frame(l, s.span);
        let n = match &g.trips {
            Trips::Exact(n) => n.clone(),
            Trips::Bounded(_, why) | Trips::Unknown(why) => return Err(no(why.clone())),
        };
        let c = g.counter.clone().ok_or_else(|| no("its iterations cannot be counted".into()))?;
        Ok((g, n, c))
    }

    /// One snapshot array per state variable of `l`, with `slots` slots per iteration of the
    /// loops around `l` (a nested checkpointed loop snapshots each outer iteration's run),
    /// recorded in the tape report.
    fn snapshot_arrays(&mut self, l: &Loop, slots: &Expr, span: Span, when: &str, why: &str) -> Vec<Snap> {
        let state = self.loop_state(l);
        self.copy_arrays(l, &state, slots, span, "state", when, why)
    }

    /// Copy arrays of `vars` with `slots` slots per iteration of the loops around `l`
    /// (`what` and `when` describe them in the tape report).
    #[allow(clippy::too_many_arguments)]
    fn copy_arrays(
        &mut self,
        l: &Loop,
        vars: &[VarId],
        slots: &Expr,
        span: Span,
        what: &str,
        when: &str,
        why: &str,
    ) -> Vec<Snap> {
        let tname = self.name(l.var);
        // `checkpoint_frame` made sure the loops around have slots.
        let outer = self.slot(&[]).map(|s| (s.dims, s.index)).unwrap_or_default();
        let per_outer = outer.0.iter().cloned().fold(slots.clone(), |a, d| d.mul(a));
        let mut snaps = Vec::new();
        for &x in vars {
            let var = self.f.var(x).clone();
            let mut dims: Vec<Dim> = outer.0.iter().cloned().map(Dim::zero_based).collect();
            dims.push(Dim::zero_based(slots.clone()));
            dims.extend(var.ty.dims().iter().cloned());
            let ty = Type::Array { elem: var.ty.elem(), dims, layout: Layout::RowMajor };
            let suffix = if what == "state" { "ckpt" } else { "entry" };
            let name = self.fresh(&format!("{}_{suffix}", var.name));
            let snap = self.f.add_var(name.clone(), ty, VarRole::Tape, span);
            self.ad_allocs.push(snap);
            self.tapes.push(TapeInfo {
                var: snap,
                name,
                what: format!("{} ({what} of loop `{tname}`{}, {when})", var.name, crate::util::at_line(span)),
                // Not an overwrite: the snapshot is taken before the loop's steps.
                line: 0,
                why: format!("checkpoint: {why}"),
                elems: Some(per_outer.clone().mul(self.elems_of(x))),
                exact: true,
                elem: var.ty.elem(),
                kind: TapeKind::Array,
            });
            if !var.ty.is_array() && !self.p.is_param(x) {
                // A local scalar gets a value before the first snapshot reads it.
                self.mark_saved(x);
            }
            snaps.push(Snap { x, snap, outer: outer.1.clone() });
        }
        snaps
    }

    /// [`Ad::rev_loop_body`], then marks everything the body writes as changed, because the
    /// checkpointed reverse sweep runs the body again.
    fn rev_body_in(&mut self, l: &Loop, live: &VarSet, frame: Frame) -> R<(Block, Block)> {
        let (fb, rb) = self.rev_loop_body(l, live, frame)?;
        for v in block_writes(&l.body) {
            if !matches!(self.p.var(v).role, VarRole::Index) {
                self.clobber(v);
            }
        }
        Ok((fb, rb))
    }

    /// `range` run again with the taped body `fb`, then its adjoint `rb` over the same steps
    /// backwards.
    fn retaped(&self, range: &Loop, fb: Block, rb: Block, note: Note, span: Span) -> R<Block> {
        let mut out = vec![Stmt::new(StmtKind::Loop(Loop { body: fb, ..range.clone() }), span).with_note(note)];
        if !rb.is_empty() {
            let (start, stop, step) = reversed_range(range, &self.f, span)?;
            out.push(Stmt::new(
                StmtKind::Loop(Loop { id: LoopId::NEW, var: range.var, start, stop, step, body: rb }),
                span,
            ));
        }
        Ok(out)
    }

    /// A new integer variable of the transform.
    fn int_var(&mut self, base: &str, role: VarRole, span: Span) -> VarId {
        let name = self.fresh(base);
        self.f.add_var(name, Type::Scalar(Scalar::I64), role, span)
    }

    /// Forward and reverse code of loop `s` checkpointed every `k` iterations.
    pub fn rev_periodic(&mut self, s: &Stmt, l: &Loop, live: &VarSet, k: u64) -> R<(Block, Block)> {
        let span = s.span;
        let (g, n, c) = self.checkpoint_frame(s, l)?;
        if k == 0 {
            return Err(Diagnostic::error(span, "a checkpoint period must be at least 1").into());
        }
        let (save_entry, restore_entry) = self.entry_copies(l, live, span);
        let step = l.step.as_int().unwrap_or(1);
        let ki = i64::try_from(k).map_err(|_| Diagnostic::error(span, "checkpoint period too large"))?;
        let tname = self.name(l.var);
        let line = crate::util::at_line(span);

        let nseg = Expr::binary(BinOp::FloorDiv, n.clone().add(Expr::int(ki - 1)), Expr::int(ki));
        let seg = self.int_var(&format!("{tname}_seg"), VarRole::Index, span);
        let segv = Expr::var(seg, Scalar::I64);
        let snaps = self.snapshot_arrays(
            l,
            &nseg,
            span,
            &format!("every {k} iterations"),
            &format!("the reverse sweep runs each segment of {k} iterations of the loop{line} again from here"),
        );

        // Forward sweep: the loop, untaped, snapshotting at the start of each segment.
        let slot = Expr::binary(BinOp::FloorDiv, c.clone(), Expr::int(ki));
        let mut save: Block = snaps.iter().map(|sn| self.snapshot_copy(sn, &slot, true, span)).collect();
        if let Some(first) = save.first_mut() {
            first.note = Some(Note::CheckpointSegmentStart { counter: tname.clone(), every: k });
        }
        let mut fbody = if k == 1 {
            save
        } else {
            let at_start = Expr::binary(BinOp::Eq, Expr::binary(BinOp::Mod, c.clone(), Expr::int(ki)), Expr::int(0));
            vec![Stmt::new(StmtKind::If { cond: at_start, then_body: save, else_body: Vec::new() }, span)]
        };
        fbody.extend(l.body.iter().cloned());
        let fwd = Stmt { kind: StmtKind::Loop(Loop { body: fbody, ..l.clone() }), ..s.clone() }
            .with_note(Note::CheckpointedPeriodic { every: k });

        // One segment: `range(start + seg*k*step, min(stop, start + (seg+1)*k*step), step)`.
        let seg_start = l.start.clone().add(segv.clone().mul(Expr::int(ki * step)));
        let seg_end = l.start.clone().add(segv.clone().add(Expr::int(1)).mul(Expr::int(ki * step)));
        let clip = if step > 0 { Intrinsic::Min } else { Intrinsic::Max };
        let seg_stop = Expr::call(clip, vec![l.stop.clone(), seg_end], Scalar::I64);
        let segl = Loop {
            id: LoopId::NEW,
            var: l.var,
            start: seg_start,
            stop: seg_stop,
            step: l.step.clone(),
            body: Vec::new(),
        };

        let mut frame = g;
        frame.counter = Some(c.sub(segv.clone().mul(Expr::int(ki))));
        frame.trips = Trips::Bounded(
            Expr::call(Intrinsic::Min, vec![Expr::int(ki), n.clone()], Scalar::I64),
            format!("checkpointed: a segment of loop `{tname}` runs at most {k} iterations"),
        );
        frame.last = None;
        frame.tri = None;
        frame.diff = None;
        frame.range = segl.clone();
        let (fb, rb) = self.rev_body_in(l, live, frame)?;

        let mut rev_seg: Block = snaps.iter().map(|sn| self.snapshot_copy(sn, &segv, false, span)).collect();
        if let Some(first) = rev_seg.first_mut() {
            first.note = Some(Note::CheckpointSegmentRestore { segment: self.name(seg) });
        }
        rev_seg.extend(self.retaped(&segl, fb, rb, Note::SegmentRetaped, span)?);
        let rev = countdown(seg, nseg, rev_seg, span)
            .with_note(Note::ReversedBySegment { counter: tname, line: Line::from(span) });
        Ok((save_entry.into_iter().chain([fwd]).collect(), [rev].into_iter().chain(restore_entry).collect()))
    }

    /// Revolve's advance rule (Griewank & Walther 2000, `revolve.c`): from a snapshot at
    /// step `capo`, with `ds` snapshots for the steps `capo .. capo + m` (the one at `capo`
    /// included) and `m >= 2`, how many steps to advance before the next snapshot. Sets
    /// `next = capo + that`. `reps` is the smallest with C(ds + reps, ds) >= m, `range` that
    /// binomial; the loop computing them runs `m` cheap integer steps (no `while` in the IR).
    fn revolve_advance(&mut self, tname: &str, capo: Expr, m: Expr, ds: Expr, next: VarId, span: Span) -> Block {
        let i = |v: i64| Expr::int(v);
        let reps = self.int_var(&format!("{tname}_reps"), VarRole::Temp, span);
        let range = self.int_var(&format!("{tname}_range"), VarRole::Temp, span);
        let q = self.int_var(&format!("{tname}_q"), VarRole::Index, span);
        let [b1, b2, b3] =
            ["bino1", "bino2", "bino3"].map(|b| self.int_var(&format!("{tname}_{b}"), VarRole::Temp, span));
        let v = |x: VarId| Expr::var(x, Scalar::I64);
        let set = |x: VarId, e: Expr| Stmt::assign(Place::scalar(x), e, span);
        let div = |a: Expr, b: Expr| Expr::binary(BinOp::Div, a, b);
        let cmp = |op: BinOp, a: Expr, b: Expr| Expr::binary(op, a, b);
        let (r, rg, ds) = (v(reps), v(range), ds);
        let grow = Stmt::new(
            StmtKind::If {
                cond: cmp(BinOp::Lt, rg.clone(), m.clone()),
                then_body: vec![set(reps, v(q)), set(range, div(rg.clone().mul(v(q).add(ds.clone())), v(q)))],
                else_body: Vec::new(),
            },
            span,
        );
        let bino4 = div(v(b2).mul(r.clone().sub(i(1))), ds.clone());
        let bino5 = Expr::select(
            cmp(BinOp::Lt, ds.clone(), i(3)),
            i(0),
            Expr::select(
                cmp(BinOp::Gt, ds.clone(), i(3)),
                div(v(b3).mul(ds.clone().sub(i(2))), Expr::call(Intrinsic::Max, vec![i(1), r.clone()], Scalar::I64)),
                i(1),
            ),
        );
        let adv = Expr::select(
            cmp(BinOp::Le, m.clone(), v(b1).add(v(b3))),
            bino4,
            Expr::select(cmp(BinOp::Ge, m.clone(), rg.clone().sub(bino5)), v(b1), m.clone().sub(v(b2)).sub(v(b3))),
        );
        vec![
            set(reps, i(0)).with_note(Note::RevolveAdvanceRule),
            set(range, i(1)),
            Stmt::new(
                StmtKind::Loop(Loop {
                    id: LoopId::NEW,
                    var: q,
                    start: i(1),
                    stop: m.clone(),
                    step: i(1),
                    body: vec![grow],
                }),
                span,
            ),
            set(b1, div(rg.mul(r.clone()), ds.clone().add(r.clone()))),
            set(
                b2,
                Expr::select(
                    cmp(BinOp::Gt, ds.clone(), i(1)),
                    div(v(b1).mul(ds.clone()), ds.clone().add(r.clone()).sub(i(1))),
                    i(1),
                ),
            ),
            set(
                b3,
                Expr::select(
                    cmp(BinOp::Eq, ds.clone(), i(1)),
                    i(0),
                    Expr::select(
                        cmp(BinOp::Gt, ds.clone(), i(2)),
                        div(v(b2).mul(ds.clone().sub(i(1))), ds.clone().add(r).sub(i(2))),
                        i(1),
                    ),
                ),
            ),
            set(next, capo.add(Expr::call(Intrinsic::Max, vec![i(1), adv], Scalar::I64))),
        ]
    }

    /// Forward and reverse code of loop `s` on Revolve's binomial schedule with at
    /// most `c` snapshots:
    ///
    /// ```text
    /// forward sweep:  snapshot 0 ← state; the loop, untaped
    /// reverse sweep:  top = 0; at[0] = 0
    ///                 for i from T - 1 down to 0:
    ///                     state ← snapshot top; next = capo = at[top]
    ///                     for steps j in capo .. i - 1 (untaped):
    ///                         if j == next: snapshot here (if j > capo and one is free),
    ///                                       next = j + Revolve's advance
    ///                         body
    ///                     step i with its tapes; step i reversed
    ///                     if at[top] == i: top -= 1 (that snapshot is done)
    /// ```
    ///
    /// The reverse sweep advances exactly Revolve's t(T, c) steps (its first forward pass
    /// included: the forward sweep must finish the loop before the code after it runs).
    pub fn rev_binomial(&mut self, s: &Stmt, l: &Loop, live: &VarSet, c: u64) -> R<(Block, Block)> {
        let span = s.span;
        let (g, n, cnt) = self.checkpoint_frame(s, l)?;
        if c == 0 {
            return Err(Diagnostic::error(span, "binomial checkpointing needs at least 1 snapshot").into());
        }
        let ci = i64::try_from(c).map_err(|_| Diagnostic::error(span, "too many snapshots"))?;
        let (save_entry, restore_entry) = self.entry_copies(l, live, span);
        let step = l.step.as_int().unwrap_or(1);
        let tname = self.name(l.var);
        let line = crate::util::at_line(span);
        let v = |x: VarId| Expr::var(x, Scalar::I64);
        let set = |x: VarId, e: Expr| Stmt::assign(Place::scalar(x), e, span);

        let snaps = self.snapshot_arrays(
            l,
            &Expr::int(ci),
            span,
            &format!("binomial, at most {c} snapshots"),
            &format!("the reverse sweep runs the loop{line} again from here on Revolve's schedule"),
        );
        let at = {
            let name = self.fresh(&format!("{tname}_snap_at"));
            let ty =
                Type::Array { elem: Scalar::I64, dims: vec![Dim::zero_based(Expr::int(ci))], layout: Layout::RowMajor };
            let at = self.f.add_var(name, ty, VarRole::Tape, span);
            self.ad_allocs.push(at);
            at
        };
        let top = self.int_var(&format!("{tname}_snap_top"), VarRole::Temp, span);
        let turn = self.int_var(&format!("{tname}_turn"), VarRole::Index, span);
        let capo = self.int_var(&format!("{tname}_capo"), VarRole::Temp, span);
        let next = self.int_var(&format!("{tname}_next"), VarRole::Temp, span);
        let at_top = Expr::load(at, vec![v(top)], Scalar::I64);
        // `t` of step `j`.
        let t_of = |j: Expr| l.start.clone().add(j.mul(Expr::int(step)));

        // Forward sweep.
        let mut fwd: Block = snaps.iter().map(|sn| self.snapshot_copy(sn, &Expr::int(0), true, span)).collect();
        if let Some(first) = fwd.first_mut() {
            first.note = Some(Note::CheckpointFirstStep { counter: tname.clone() });
        }
        fwd.splice(0..0, save_entry);
        fwd.push(
            Stmt { kind: StmtKind::Loop(l.clone()), ..s.clone() }
                .with_note(Note::CheckpointedBinomial { snapshots: c }),
        );

        // The taped step: one iteration, one tape slot.
        let one = Loop {
            id: LoopId::NEW,
            var: l.var,
            start: t_of(v(turn)),
            stop: t_of(v(turn).add(Expr::int(1))),
            step: l.step.clone(),
            body: Vec::new(),
        };
        let mut frame = g;
        frame.counter = Some(Expr::int(0));
        frame.trips = Trips::Bounded(Expr::int(1), format!("checkpointed: loop `{tname}` is taped one step at a time"));
        frame.last = None;
        frame.tri = None;
        frame.diff = None;
        frame.range = one.clone();
        let (fb, rb) = self.rev_body_in(l, live, frame)?;

        // Advance from the restored snapshot to step `turn`, snapshotting on the way.
        let mut shot: Block = vec![set(top, v(top).add(Expr::int(1))).with_note(Note::FreeSnapshot)];
        shot.push(Stmt::assign(Place::element(at, vec![v(top)]), cnt.clone(), span));
        shot.extend(snaps.iter().map(|sn| self.snapshot_copy(sn, &v(top), true, span)).collect::<Vec<_>>());
        let free = Expr::binary(
            BinOp::And,
            Expr::binary(BinOp::Gt, cnt.clone(), v(capo)),
            Expr::binary(BinOp::Lt, v(top).add(Expr::int(1)), Expr::int(ci)),
        );
        let mut due = vec![Stmt::new(StmtKind::If { cond: free, then_body: shot, else_body: Vec::new() }, span)];
        let left = self.int_var(&format!("{tname}_left"), VarRole::Temp, span);
        let ds = self.int_var(&format!("{tname}_ds"), VarRole::Temp, span);
        due.push(set(left, v(turn).add(Expr::int(1)).sub(cnt.clone())).with_note(Note::StepsToTurn));
        due.push(set(ds, Expr::int(ci).sub(v(top))));
        due.extend(self.revolve_advance(&tname, cnt.clone(), v(left), v(ds), next, span));
        let mut abody = vec![Stmt::new(
            StmtKind::If { cond: Expr::binary(BinOp::Eq, cnt.clone(), v(next)), then_body: due, else_body: Vec::new() },
            span,
        )];
        abody.extend(l.body.iter().cloned());
        let advance = Stmt::new(
            StmtKind::Loop(Loop {
                id: LoopId::NEW,
                var: l.var,
                start: t_of(v(capo)),
                stop: t_of(v(turn)),
                step: l.step.clone(),
                body: abody,
            }),
            span,
        )
        .with_note(Note::AdvanceToStep { step: self.name(turn) });

        let mut body: Block = snaps.iter().map(|sn| self.snapshot_copy(sn, &v(top), false, span)).collect();
        if let Some(first) = body.first_mut() {
            first.note = Some(Note::CheckpointLatestSnapshot);
        }
        body.push(set(capo, at_top.clone()));
        body.push(set(next, v(capo)));
        body.push(advance);
        body.extend(self.retaped(&one, fb, rb, Note::StepRetaped, span)?);
        body.push(
            Stmt::new(
                StmtKind::If {
                    cond: Expr::binary(BinOp::Eq, at_top, v(turn)),
                    then_body: vec![set(top, v(top).sub(Expr::int(1)))],
                    else_body: Vec::new(),
                },
                span,
            )
            .with_note(Note::SnapshotDone),
        );
        let rev = countdown(turn, n, body, span)
            .with_note(Note::ReversedByRevolve { counter: tname.clone(), line: Line::from(span) });
        let start = vec![
            set(top, Expr::int(0)).with_note(Note::FirstSnapshot),
            Stmt::assign(Place::element(at, vec![Expr::int(0)]), Expr::int(0), span),
        ];
        Ok((fwd, start.into_iter().chain([rev]).chain(restore_entry).collect()))
    }

    /// Bytes of the tapes one iteration of top-level loop `l` records under store-all;
    /// `None` when some tape has no closed-form size.
    fn step_tape_bytes(&mut self, s: &Stmt, l: &Loop, live: &VarSet) -> Option<Expr> {
        let (mut g, _, _) = self.checkpoint_frame(s, l).ok()?;
        let before = self.checkpoint();
        let ntapes = self.tapes.len();
        g.trips = Trips::Exact(Expr::int(1));
        g.last = None;
        g.tri = None;
        g.diff = None;
        let mut entry = live.clone();
        entry.extend([&l.start, &l.stop, &l.step].iter().flat_map(|e| e.vars()));
        let mut inner = self.loop_fixpoint(l, entry);
        self.nest.push(g);
        let ok = self.rev_block(&l.body, Env::Loop, &mut inner).is_ok();
        self.nest.pop();
        let mut total = Some(Expr::int(0));
        if ok {
            for t in &self.tapes[ntapes..] {
                total = match (total, t.bytes()) {
                    (Some(a), Some(b)) if a.as_int() == Some(0) => Some(b),
                    (Some(a), Some(b)) => Some(a.add(b)),
                    _ => None,
                };
            }
        }
        self.rollback(before);
        if ok {
            total
        } else {
            None
        }
    }

    /// Describes top-level loop `s` for the planner (see [`CheckpointableLoop`]).
    pub fn describe_checkpointable(&mut self, s: &Stmt, l: &Loop, live: &VarSet) {
        let Ok((_, trips, _)) = self.checkpoint_frame(s, l) else { return };
        let Some(step_tape_bytes) = self.step_tape_bytes(s, l, live) else { return };
        if step_tape_bytes.as_int() == Some(0) {
            // Nothing taped per iteration: checkpointing would save nothing.
            return;
        }
        self.checkpointable.push(CheckpointableLoop {
            id: l.id,
            span: s.span,
            var: l.var,
            trips,
            state_bytes: self.state_bytes(l),
            step_tape_bytes,
            step_flops: flops(self.p, &l.body),
            replay_bytes: self.replay_bytes(l, live),
        });
    }
}

/// `for var = n - 1 down to 0`: the outer sweep of a checkpointed reversal, last part first.
fn countdown(var: VarId, n: Expr, body: Block, span: Span) -> Stmt {
    let range =
        Loop { id: LoopId::NEW, var, start: n.sub(Expr::int(1)), stop: Expr::int(-1), step: Expr::int(-1), body };
    Stmt::new(StmtKind::Loop(range), span)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fewest untaped forward steps to reverse `t` steps from a state held in a snapshot,
    /// with `c` more snapshots free: either the first step is turned directly (t = 1), or
    /// advance `m` steps, snapshot there, reverse the last `t - m` with one snapshot fewer,
    /// then reverse the first `m` from the original snapshot.
    fn brute(t: u64, c: u64, memo: &mut std::collections::HashMap<(u64, u64), u64>) -> u64 {
        if t <= 1 {
            return 0;
        }
        if c == 0 {
            // Restore and advance to each step from the only snapshot.
            return t * (t - 1) / 2;
        }
        if let Some(v) = memo.get(&(t, c)) {
            return *v;
        }
        let mut best = u64::MAX;
        for m in 1..t {
            let v = m + brute(t - m, c - 1, memo) + brute(m, c, memo);
            best = best.min(v);
        }
        memo.insert((t, c), best);
        best
    }

    #[test]
    fn binomial_optimum_matches_a_brute_force_search() {
        let mut memo = std::collections::HashMap::new();
        for t in 1..=40 {
            for c in 1..=6 {
                // The snapshot at the start counts among the c.
                assert_eq!(binomial_optimum(t, c), brute(t, c - 1, &mut memo), "T = {t}, c = {c}");
            }
        }
    }

    #[test]
    fn binomial_optimum_known_values() {
        // Enough snapshots: one forward run of T - 1 steps before the first turn.
        assert_eq!(binomial_optimum(10, 10), 9);
        assert_eq!(binomial_optimum(10, 100), 9);
        // One snapshot: T (T - 1) / 2.
        assert_eq!(binomial_optimum(10, 1), 45);
        assert_eq!(binomial_optimum(1, 1), 0);
        assert_eq!(binomial_optimum(5, 0), u64::MAX);
        // No cap on the number of snapshots or on T.
        assert_eq!(binomial_optimum(1_000_000, 1_000_000), 999_999);
        assert!(binomial_optimum(1_000_000, 3) > 1_000_000);
    }

    #[test]
    fn periodic_recomputes_each_iteration_once() {
        assert_eq!(checkpoint_recompute_steps(10, &Checkpointing::Periodic { every: 3 }), 10);
    }
}
