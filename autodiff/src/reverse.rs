//! Statement reversal outside map bodies: the forward sweep (primal statements plus tape
//! saves) and the reverse sweep (restores plus adjoint statements, in reverse order).
//!
//! The model: when the reverse sweep reaches statement `S`, memory holds the primal state
//! right *after* `S` (for every location some adjoint still needs). Every adjoint rule in
//! this crate reads the operands of `S` as they were *before* `S`, so the reverse code of
//! `S` is always
//!
//! 1. restore what `S` overwrote, if it was taped (memory is now the state before `S`);
//! 2. the adjoint of `S`.
//!
//! The one rule that needs a value *after* `S` (a parallel `max=`/`min=` reduction, see
//! [`crate::map`]) reads it into a temporary before step 1.
//!
//! A statement saves the location it overwrites (to-be-recorded analysis) only when some
//! adjoint that runs after the restore point reads the value it overwrites: the adjoint of
//! `S` itself, or of a statement executed since that value was written (before `S`, or in
//! earlier iterations of the enclosing loops). This is a forward data flow over the
//! primal ([`Ad::flow_stmt`], with a fixpoint over loops); it is per variable, and only
//! writes to scalars, and writes to arrays nothing needed whose adjoint reads only the
//! element written, end the life of a value, which is conservative. A scalar the reverse
//! sweep can recompute cheaply is never saved ([`crate::recompute`]).

use crate::deriv::{partials, times, Partial};
use crate::recompute;
use crate::report::Recomputed;
use crate::util::{block_writes, expr_vars, index_vars, same_index, stmt_mentions, zero, VarSet};
use adjc_ir::*;
use std::collections::BTreeMap;

use crate::state::Frame;
pub(crate) use crate::state::{Ad, Env, Fail, R};

/// `old op value` for an accumulation, so that every accumulation but `+=` (whose adjoint
/// leaves the target's adjoint unchanged) is differentiated as the assignment it is.
pub(crate) fn canonical(target: &Place, op: AccOp, value: &Expr, ty: Scalar) -> Expr {
    let old = target.to_expr(ty).with_span(value.span);
    match op {
        AccOp::Add => old.add(value.clone()),
        AccOp::Mul => old.mul(value.clone()),
        // Ties keep the old value: it is the first argument.
        AccOp::Max => Expr::call(Intrinsic::Max, vec![old, value.clone()], ty).with_span(value.span),
        AccOp::Min => Expr::call(Intrinsic::Min, vec![old, value.clone()], ty).with_span(value.span),
    }
}

/// The reversed iteration space of `range(start, stop, step)`: the same iterates in the
/// opposite order, empty when the forward loop is empty. For a constant step `s`, the last
/// iterate is `start + ((stop - start - sign(s)) // s) * s` (floor division), and the
/// reversed loop is `range(last, start - s, -s)`.
pub(crate) fn reversed_range(l: &Loop, f: &Function, span: Span) -> Result<(Expr, Expr, Expr), Diagnostic> {
    let Some(s) = l.step.as_int() else {
        return Err(Diagnostic::error(
            span,
            format!("the step of loop `{}` is not a constant: adjc cannot reverse it yet", f.var(l.var).name),
        )
        .with_help("use a literal step such as 1 or -1"));
    };
    let (lo, hi) = (l.start.clone(), l.stop.clone());
    Ok(match s {
        1 => (hi.sub(Expr::int(1)), lo.sub(Expr::int(1)), Expr::int(-1)),
        -1 => (hi.add(Expr::int(1)), lo.add(Expr::int(1)), Expr::int(1)),
        s => {
            let trips = Expr::binary(BinOp::FloorDiv, hi.sub(lo.clone()).sub(Expr::int(s.signum())), Expr::int(s));
            (lo.clone().add(trips.mul(Expr::int(s))), lo.sub(Expr::int(s)), Expr::int(-s))
        }
    })
}

impl<'p> Ad<'p> {
    /// Whether an `if` condition can be evaluated again in the reverse sweep: none of its
    /// operands is ever modified.
    pub fn is_reeval(&self, cond: &Expr) -> bool {
        expr_vars(cond).iter().all(|v| !self.written.contains(v))
    }

    // ---------------------------------------------------------------------------------
    // What adjoints read (the input of the to-be-recorded analysis)

    /// The value an accumulation is differentiated as: `+=` stays an increment unless
    /// the increment reads the target; everything else is `target = old op value`.
    pub fn effective_value(&self, target: &Place, op: AccOp, value: &Expr) -> Expr {
        if op == AccOp::Add && !value.mentions(target.var) {
            value.clone()
        } else {
            canonical(target, op, value, self.elem(target.var))
        }
    }

    pub fn partials(&self, e: &Expr) -> Vec<Partial> {
        partials(e, &|v| self.active.contains(&v))
    }

    /// Primal variables read by the adjoint of a write `target = value` (or increment).
    pub fn ar_write(&self, target: &Place, value: &Expr) -> VarSet {
        let mut out = index_vars(&target.index);
        if self.is_active(target.var) {
            for p in self.partials(value) {
                out.extend(expr_vars(&p.d));
                out.extend(index_vars(&p.index));
            }
        }
        out
    }

    /// Primal variables whose values the reverse-sweep code of `s` reads (derivatives,
    /// indices of adjoint places, reversed loop bounds, re-evaluated conditions, values
    /// recomputed inside adjoint maps).
    pub fn ar(&self, s: &Stmt) -> VarSet {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                let mut out = self.ar_write(target, value);
                // The reversed loop body evaluates a recomputed value again.
                if target.is_scalar() && self.recompute.contains(&target.var) {
                    out.extend(expr_vars(value));
                }
                out
            }
            StmtKind::Accumulate { target, op, value, .. } => {
                self.ar_write(target, &self.effective_value(target, *op, value))
            }
            StmtKind::Loop(_) if self.active_nest(s).is_some() => {
                self.active_nest(s).map(|n| self.ar_minmax(&n)).unwrap_or_default()
            }
            StmtKind::Loop(l) => {
                let mut out: VarSet = [&l.start, &l.stop, &l.step].iter().flat_map(|e| e.vars()).collect();
                out.extend(self.ar_block(&l.body));
                out
            }
            StmtKind::While(w) if self.fixed_points.contains_key(&w.id) => self.ar_fixed_point(w),
            StmtKind::While(w) => self.ar_block(&w.body),
            StmtKind::Map(m) => self.ar_map(s, m),
            StmtKind::If { cond, then_body, else_body } => {
                let mut out = if self.is_reeval(cond) { expr_vars(cond) } else { VarSet::new() };
                out.extend(self.ar_block(then_body));
                out.extend(self.ar_block(else_body));
                out
            }
            StmtKind::Section { body, .. } => self.ar_block(body),
            StmtKind::Call(c) => self.ar_call(c),
            _ => VarSet::new(),
        }
    }

    pub fn ar_block(&self, b: &Block) -> VarSet {
        b.iter().flat_map(|s| self.ar(s)).collect()
    }

    // ---------------------------------------------------------------------------------
    // Reversal

    // ---------------------------------------------------------------------------------
    // To-be-recorded analysis: which current values some adjoint still needs

    /// Forward data flow over the primal: `live` holds the variables whose *current* value
    /// the adjoint of some statement executed since that value was written reads (the
    /// adjoint of `S` reads its operands as they were before `S`). A statement that
    /// overwrites a live variable must save it. Writing a scalar kills it (its new value
    /// is not needed by anything yet); so does writing an array that was not live when the
    /// statement's adjoint reads it only at the element written (or a map's, at each
    /// iteration's own element). Other array writes kill nothing (per-variable analysis).
    pub fn flow_stmt(&self, s: &Stmt, live: &mut VarSet) {
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } => {
                let was_live = live.contains(&target.var);
                live.extend(self.ar(s));
                if target.is_scalar() || (!was_live && self.reads_own_element_only(s)) {
                    live.remove(&target.var);
                }
            }
            StmtKind::Loop(l) => match self.active_nest(s) {
                // The reduction's adjoint reads the value after the nest: it stays live.
                Some(n) => live.extend(self.ar_minmax(&n)),
                None => {
                    let mut entry = live.clone();
                    entry.extend([&l.start, &l.stop, &l.step].iter().flat_map(|e| e.vars()));
                    *live = self.loop_fixpoint(l, entry);
                    // A checkpointed loop runs again in the reverse sweep: what it reads and
                    // does not write itself (its state is snapshotted) must keep its value.
                    if self.checkpointing_of(s).is_some() {
                        let w = block_writes(&l.body);
                        live.extend(crate::util::block_reads(&l.body).into_iter().filter(|v| !w.contains(v)));
                    } else if self.loop_local.contains(&l.var) {
                        // Nothing after the loop mentions its counter (the reversed loop sets
                        // it again): dropping it keeps the live set from growing by one
                        // counter per loop, which made long kernels quadratic.
                        live.remove(&l.var);
                    }
                }
            },
            // A fixed-point loop's reverse code runs its body again after the loop: what the
            // body reads keeps its value after the loop (see `crate::fixed_point`).
            StmtKind::While(w) if self.fixed_points.contains_key(&w.id) => live.extend(self.ar(s)),
            StmtKind::While(w) => *live = self.while_fixpoint(&w.body, live.clone()),
            StmtKind::Map(m) => {
                let before = live.clone();
                let post = self.map_post_reads(m);
                live.extend(self.ar_map(s, m));
                live.extend(post.iter().copied());
                // Each iteration reads and writes only its own element of an owned array:
                // if nothing needed it before, its new values are not needed yet either.
                for x in self.owned_vars(m) {
                    if !before.contains(&x) && !post.contains(&x) {
                        live.remove(&x);
                    }
                }
                // A map that assigns every element of an array (`flux[:] = 0.0`) saves what
                // was needed of the old values itself; its new values are not needed by any
                // adjoint yet (a later statement whose adjoint reads them makes them live
                // again). Without this, an accumulation right after it (a scatter through
                // an index array, whose write region is the whole axis) would save the
                // values just assigned, which no adjoint reads.
                for x in full_overwrites(&self.f, m) {
                    if !post.contains(&x) {
                        live.remove(&x);
                    }
                }
            }
            StmtKind::If { cond, then_body, else_body } => {
                if self.is_reeval(cond) {
                    live.extend(expr_vars(cond));
                }
                let mut lt = live.clone();
                self.flow_block(then_body, &mut lt);
                let mut le = live.clone();
                self.flow_block(else_body, &mut le);
                *live = lt.union(&le).copied().collect();
            }
            StmtKind::Section { body, .. } => self.flow_block(body, live),
            // No adjoint reads the output of a library call: a scalar output's new value
            // is not needed yet; an array's other elements keep their liveness.
            StmtKind::Call(c) => {
                live.extend(self.ar(s));
                if self.f.var(c.out).ty.rank() == 0 {
                    live.remove(&c.out);
                }
            }
            _ => {}
        }
    }

    /// Whether the adjoint of the write `s` reads its target array only at the element
    /// `s` writes. Then, when no value of the array was needed before `s`, none is after:
    /// the old element is saved by `s` itself and the new one has not been read yet.
    fn reads_own_element_only(&self, s: &Stmt) -> bool {
        let (target, value) = match &s.kind {
            StmtKind::Assign { target, value } => (target, value.clone()),
            StmtKind::Accumulate { target, op, value, .. } => (target, self.effective_value(target, *op, value)),
            _ => return false,
        };
        let x = target.var;
        let mut own = !target.index.iter().any(|e| e.mentions(x));
        for p in self.partials(&value) {
            for e in std::iter::once(&p.d).chain(p.index.iter()) {
                e.walk(&mut |y| {
                    if let ExprKind::Load(v, idx) = &y.kind {
                        own &= *v != x || same_index(idx, &target.index);
                    }
                });
            }
        }
        own
    }

    pub fn flow_block(&self, b: &Block, live: &mut VarSet) {
        for s in b {
            self.flow_stmt(s, live);
        }
    }

    /// Live set at the start of every iteration: what is live on entry plus what the body
    /// leaves live for the next iteration.
    pub fn loop_fixpoint(&self, l: &Loop, entry: VarSet) -> VarSet {
        let mut cur = entry.clone();
        loop {
            let mut out = cur.clone();
            self.flow_block(&l.body, &mut out);
            let next: VarSet = entry.union(&out).copied().collect();
            if next == cur {
                return cur;
            }
            cur = next;
        }
    }

    // ---------------------------------------------------------------------------------
    // Reversal

    /// Forward-sweep and reverse-sweep code of a block; `live` flows through (see
    /// [`Ad::flow_stmt`]).
    pub fn rev_block(&mut self, b: &Block, env: Env, live: &mut VarSet) -> R<(Block, Block)> {
        let (fwd, parts) = self.rev_block_parts(b, env, live)?;
        Ok((fwd, parts.into_iter().rev().flatten().collect()))
    }

    /// [`Ad::rev_block`] with the reverse code of each statement (or expert rule) apart, in
    /// forward order.
    fn rev_block_parts(&mut self, b: &Block, env: Env, live: &mut VarSet) -> R<(Block, Vec<Block>)> {
        let mut fwd = Vec::new();
        let mut parts = Vec::new();
        let mut i = 0;
        while i < b.len() {
            if let Some((n, f, r)) = self.rev_rule_at(b, i, live) {
                fwd.extend(f);
                parts.push(r);
                i += n;
                continue;
            }
            let (f, r) = self.rev_stmt(&b[i], env, live)?;
            fwd.extend(f);
            parts.push(r);
            i += 1;
        }
        Ok((fwd, parts))
    }

    /// An expert rule for several statements starting at `b[i]`: how many it covers, their
    /// forward and reverse code. `live` flows through them.
    fn rev_rule_at(&mut self, b: &Block, i: usize, live: &mut VarSet) -> Option<(usize, Block, Block)> {
        if !std::ptr::eq(b.as_ptr(), self.top) {
            return None;
        }
        let rule = self.rules.iter().find(|(at, _)| *at == i)?.1.clone();
        let (n, f, r) = self.rev_expert(&*rule, b, i, live)?;
        for s in &b[i..i + n] {
            self.flow_stmt(s, live);
        }
        Some((n, f, r))
    }

    pub fn rev_stmt(&mut self, s: &Stmt, env: Env, live: &mut VarSet) -> R<(Block, Block)> {
        let out = self.rev_stmt_at(s, env, live)?;
        self.flow_stmt(s, live);
        Ok(out)
    }

    /// `live`: the live set right before `s`.
    fn rev_stmt_at(&mut self, s: &Stmt, env: Env, live: &VarSet) -> R<(Block, Block)> {
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } => {
                let mut fwd = Vec::new();
                let mut rev = Vec::new();
                let recomputed = if target.is_scalar() {
                    self.recompute.contains(&target.var)
                } else {
                    self.recompute_arrays.contains(&target.var)
                };
                if !recomputed && (live.contains(&target.var) || self.ar(s).contains(&target.var)) {
                    let (push, pop) = self.save_place(target, s.span);
                    fwd.push(push);
                    rev.push(pop);
                }
                fwd.push(s.clone());
                rev.extend(self.adjoint_simple(s, false)?);
                Ok((fwd, rev))
            }
            StmtKind::Loop(l) => self.rev_loop(s, l, live),
            StmtKind::While(w) => self.rev_while(s, w, live),
            StmtKind::Map(m) => self.rev_map(s, m, env, live),
            StmtKind::If { cond, then_body, else_body } => {
                let mut base = live.clone();
                if self.is_reeval(cond) {
                    base.extend(expr_vars(cond));
                }
                self.cond_depth += 1;
                let branches = self
                    .rev_block(then_body, env, &mut base.clone())
                    .and_then(|t| Ok((t, self.rev_block(else_body, env, &mut base.clone())?)));
                self.cond_depth -= 1;
                let ((mut ft, rt), (mut fe, re)) = branches?;
                let plain_if = |ft: Block, fe: Block| Stmt {
                    kind: StmtKind::If { cond: cond.clone(), then_body: ft, else_body: fe },
                    ..s.clone()
                };
                if rt.is_empty() && re.is_empty() {
                    return Ok((vec![plain_if(ft, fe)], Vec::new()));
                }
                if self.is_reeval(cond) {
                    let rev = Stmt::new(StmtKind::If { cond: cond.clone(), then_body: rt, else_body: re }, s.span)
                        .with_note(Note::ConditionAgain);
                    return Ok((vec![plain_if(ft, fe)], vec![rev]));
                }
                let (mark_then, mark_else, mut rev, decision) = self.save_branch(s.span);
                ft.push(mark_then);
                fe.push(mark_else);
                rev.push(Stmt::new(StmtKind::If { cond: decision, then_body: rt, else_body: re }, s.span));
                Ok((vec![plain_if(ft, fe)], rev))
            }
            StmtKind::Section { body, .. } => self.rev_block(body, env, &mut live.clone()),
            StmtKind::Alloc(_) | StmtKind::Free(_) => Ok((Vec::new(), Vec::new())),
            StmtKind::Call(c) => self.rev_call(s, c, live),
            // A source `stop`: the forward sweep stops where the primal does (the same
            // status, before any adjoint is computed); nothing to reverse.
            StmtKind::Fail(_) => Ok((vec![s.clone()], Vec::new())),
            StmtKind::Push { .. } | StmtKind::Pop { .. } => {
                Err(Diagnostic::error(s.span, "the primal function already uses tapes").into())
            }
        }
    }

    /// Reverses the body of `l` with `frame` (the tapes' view of the loop around it): the
    /// taped body, and its adjoint with the recomputations it needs first.
    pub(crate) fn rev_loop_body(&mut self, l: &Loop, live: &VarSet, frame: Frame) -> R<(Block, Block)> {
        let cp = self.checkpoint();
        let (fb, mut rb) = loop {
            let mut entry = live.clone();
            entry.extend([&l.start, &l.stop, &l.step].iter().flat_map(|e| e.vars()));
            let mut inner = self.loop_fixpoint(l, entry);
            self.nest.push(frame.clone());
            let body = self.rev_block_parts(&l.body, Env::Loop, &mut inner);
            self.nest.pop();
            let (fb, parts) = body?;
            match self.place_array_recomputes(&l.body, parts) {
                Ok(rb) => break (fb, rb),
                // The reversed body cannot give this array's map its inputs back: tape it.
                Err(a) => {
                    self.rollback(cp.clone());
                    self.recompute_arrays.remove(&a);
                }
            }
        };
        if !rb.is_empty() {
            let again = self.recomputations(&l.body, &rb);
            rb.splice(0..0, again);
        }
        Ok((fb, rb))
    }

    /// Reverses `body` run once where it stands, as if outside every loop (its saves are
    /// plain locals that its adjoint reads right after) and under a condition (nothing in
    /// it is a top-level statement): the pass of a `--fixed-point` loop's body, which the
    /// reverse sweep runs itself (see `crate::fixed_point`).
    pub(crate) fn rev_body_once(&mut self, body: &Block) -> R<(Block, Block)> {
        let nest = std::mem::take(&mut self.nest);
        self.cond_depth += 1;
        let cp = self.checkpoint();
        let out = loop {
            let parts = self.rev_block_parts(body, Env::Loop, &mut VarSet::new());
            let (fb, parts) = match parts {
                Ok(p) => p,
                Err(e) => break Err(e),
            };
            match self.place_array_recomputes(body, parts) {
                Ok(rb) => break Ok((fb, rb)),
                Err(a) => {
                    self.rollback(cp.clone());
                    self.recompute_arrays.remove(&a);
                }
            }
        };
        self.cond_depth -= 1;
        self.nest = nest;
        let (fb, mut rb) = out?;
        if !rb.is_empty() {
            let again = self.recomputations(body, &rb);
            rb.splice(0..0, again);
        }
        Ok((fb, rb))
    }

    fn rev_loop(&mut self, s: &Stmt, l: &Loop, live: &VarSet) -> R<(Block, Block)> {
        self.check_loop_bounds(s, l)?;
        if let Some(r) = self.rev_minmax_loop(s)? {
            return Ok(r);
        }
        if self.nest.is_empty() && self.cond_depth == 0 {
            self.describe_checkpointable(s, l, live);
        }
        // A checkpoint schedule (crate::checkpoint) or store-all (below): the one place the
        // strategy of a sequential loop is chosen.
        if let Some(out) = self.rev_checkpointed(s, l, live)? {
            return Ok(out);
        }
        let (start, stop, step) = reversed_range(l, &self.f, s.span)?;
        let frame = self.frame(l, s.span);
        let (fb, rb) = self.rev_loop_body(l, live, frame)?;
        let fwd = Stmt { kind: StmtKind::Loop(Loop { body: fb, ..l.clone() }), ..s.clone() };
        let rev = if rb.is_empty() {
            Vec::new()
        } else {
            vec![Stmt::new(StmtKind::Loop(Loop { id: LoopId::NEW, var: l.var, start, stop, step, body: rb }), s.span)]
        };
        Ok((vec![fwd], rev))
    }

    /// The reversed loop body from the reverse code of each statement of `body` (`parts`,
    /// in forward order), with the maps of [`Ad::recompute_arrays`] defined in `body`
    /// evaluated again right before the adjoint of the last statement that reads their
    /// array, and the restores that give them their inputs back moved up to that point
    /// (see `crate::recompute`). `Err(a)`: array `a` cannot be recomputed here.
    fn place_array_recomputes(&mut self, body: &Block, mut parts: Vec<Block>) -> Result<Block, VarId> {
        let defs: Vec<(usize, VarId)> = body
            .iter()
            .enumerate()
            .filter_map(|(k, s)| recompute::array_def(s).map(|(a, _, _)| (k, a)))
            .filter(|(_, a)| self.recompute_arrays.contains(a))
            .collect();
        if defs.is_empty() {
            return Ok(parts.into_iter().rev().flatten().collect());
        }
        if parts.len() != body.len() {
            return Err(defs[0].1);
        }
        let is_restore = |t: &Stmt| t.note.as_ref().is_some_and(Note::is_restore);
        let leading = |p: &Block| p.iter().take_while(|t| is_restore(t)).count();
        // (W, v) -> R: the restore of `v` by statement W moves up to right before the
        // recomputations at statement R.
        let mut hoists: BTreeMap<(usize, VarId), usize> = BTreeMap::new();
        // (R, S, array): the map S runs again at R.
        let mut placed: Vec<(usize, usize, VarId)> = Vec::new();
        for &(s, a) in &defs {
            let readers: Vec<usize> =
                (0..body.len()).filter(|&k| k != s && parts[k].iter().any(|t| stmt_mentions(t, a))).collect();
            if readers.iter().any(|&k| k < s) {
                return Err(a);
            }
            let Some(&r) = readers.last() else { continue };
            for v in recompute::array_inputs(&body[s]) {
                let ws: Vec<usize> = (s + 1..=r).filter(|&k| crate::util::writes(&body[k]).contains(&v)).collect();
                match ws.as_slice() {
                    [] => {}
                    [w] => {
                        let restores = &parts[*w][..leading(&parts[*w])];
                        if !restores.iter().any(|t| crate::util::writes(t).contains(&v)) {
                            return Err(a);
                        }
                        if *w < r {
                            if (w + 1..=r).any(|k| self.ar(&body[k]).contains(&v)) {
                                return Err(a);
                            }
                            let at = hoists.entry((*w, v)).or_insert(r);
                            *at = (*at).max(r);
                        }
                    }
                    _ => return Err(a),
                }
            }
            placed.push((r, s, a));
        }
        // A restore moved up must not pass a recomputation that reads the value after W.
        for (&(w, v), &r) in &hoists {
            for &(rb, sb, b) in &placed {
                if sb > w && rb <= r && recompute::array_inputs(&body[sb]).contains(&v) {
                    return Err(b);
                }
            }
        }
        // Take the moved restores out of their statements' reverse code.
        let mut moved: BTreeMap<usize, Vec<(usize, Stmt)>> = BTreeMap::new();
        for (&(w, v), &r) in hoists.iter().rev() {
            let n = leading(&parts[w]);
            let Some(k) = (0..n).find(|&k| crate::util::writes(&parts[w][k]).contains(&v)) else {
                return Err(defs[0].1);
            };
            let t = parts[w].remove(k);
            moved.entry(r).or_default().push((w, t));
        }
        placed.sort();
        for (r, group) in moved.iter_mut() {
            // Restores in reverse order of their statements, as the reverse sweep runs them.
            group.sort_by_key(|(w, _)| std::cmp::Reverse(*w));
            let at = leading(&parts[*r]);
            let stmts: Vec<Stmt> = group.drain(..).map(|(_, t)| t).collect();
            parts[*r].splice(at..at, stmts);
        }
        for &(r, s, a) in placed.iter().rev() {
            let name = self.name(a);
            let line = body[s].span.line;
            let again =
                body[s].clone().with_note(Note::RecomputedCheapMap { name: name.clone(), line: body[s].span.into() });
            // After R's restores and the restores moved up to R, before R's adjoint; maps
            // of the same R in forward order (each was inserted at the same place, last first).
            let at = leading(&parts[r]);
            parts[r].insert(at, again);
            self.recomputed.push(Recomputed { var: a, name, line });
        }
        Ok(parts.into_iter().rev().flatten().collect())
    }

    /// `z = e` for every recomputable scalar assigned in the loop body `body` that the
    /// reversed body `rb` reads: it starts each reversed iteration.
    pub fn recomputations(&mut self, body: &Block, rb: &Block) -> Block {
        let mut out = Vec::new();
        for t in body {
            let StmtKind::Assign { target, value } = &t.kind else { continue };
            if !target.is_scalar() || !self.recompute.contains(&target.var) {
                continue;
            }
            let z = target.var;
            if !rb.iter().any(|r| stmt_mentions(r, z)) {
                continue;
            }
            let name = self.name(z);
            out.push(
                Stmt::assign(target.clone(), value.clone(), t.span)
                    .with_note(Note::RecomputedInvariant { name: name.clone(), line: t.span.into() }),
            );
            self.recomputed.push(Recomputed { var: z, name, line: t.span.line });
        }
        out
    }

    /// The reversed loop evaluates its bounds after the forward loop has run: they must not
    /// depend on anything the loop changes.
    pub fn check_loop_bounds(&self, s: &Stmt, l: &Loop) -> Result<(), Diagnostic> {
        let w = block_writes(&l.body);
        for e in [&l.start, &l.stop, &l.step] {
            if let Some(v) = e.vars().into_iter().find(|v| w.contains(v)) {
                return Err(Diagnostic::error(
                    s.span,
                    format!(
                        "the bounds of loop `{}` depend on `{}`, which the loop body modifies: adjc cannot reverse this loop",
                        self.name(l.var),
                        self.name(v)
                    ),
                ));
            }
        }
        reversed_range(l, &self.f, s.span).map(|_| ())
    }

    // ---------------------------------------------------------------------------------
    // Adjoints of single writes

    /// Adjoint statements of an assignment or accumulation (no restores). `in_map`: the
    /// statement is in a map body, where `shared` accumulations run concurrently.
    pub fn adjoint_simple(&mut self, s: &Stmt, in_map: bool) -> R<Block> {
        match &s.kind {
            StmtKind::Assign { target, value } => Ok(self.adj_assign(target, value, s.span, in_map)),
            StmtKind::Accumulate { target, op, value, shared } => {
                if in_map && *shared {
                    // The order of concurrent `*=`, `max=` updates is unknown: the caller
                    // falls back to a sequential nest (or the reduction rule of map.rs).
                    if *op != AccOp::Add || value.mentions(target.var) {
                        return Err(Fail::Seq);
                    }
                    return Ok(self.adj_increment(target, value, s.span));
                }
                if *op == AccOp::Add && !value.mentions(target.var) {
                    Ok(self.adj_increment(target, value, s.span))
                } else {
                    let v = canonical(target, *op, value, self.elem(target.var));
                    Ok(self.adj_assign(target, &v, s.span, in_map))
                }
            }
            _ => Ok(Vec::new()),
        }
    }

    /// `r_b += ∂e/∂r * seed` for one partial.
    pub fn contribution(&mut self, p: &Partial, seed: &Expr, span: Span) -> Stmt {
        let rb = self.adj_of(p.var);
        let ty = self.elem(p.var);
        let value = times(p.d.clone(), seed.clone().cast(ty));
        Stmt::accumulate(Place::element(rb, p.index.clone()), value, span)
    }

    /// Adjoint of `X[w] = e`: every active read `r` of `e` receives `∂e/∂r * X_b[w]`, then
    /// `X_b[w]` becomes the adjoint of the old `X[w]` (zero, or `∂e/∂X[w] * X_b[w]` when
    /// `e` reads the same element). When `e` reads other elements of `X` that may alias
    /// `X[w]`, the seed goes through a temporary and `X_b[w]` is zeroed first.
    pub fn adj_assign(&mut self, target: &Place, e: &Expr, span: Span, in_map: bool) -> Block {
        let x = target.var;
        if !self.is_active(x) {
            return Vec::new();
        }
        let ty = self.elem(x);
        let xb = Place::element(self.adj_of(x), target.index.clone());
        let ps = match self.held_result.take() {
            Some(t) => crate::deriv::partials_held(e, &|v| self.active.contains(&v), &t),
            None => self.partials(e),
        };
        let is_own = |p: &Partial| p.var == x && same_index(&p.index, &target.index);
        let aliasing = ps.iter().any(|p| p.var == x && !is_own(p));
        let mut out = Vec::new();
        if aliasing {
            let t = self.temp(&format!("{}_b_t", self.name(x)), ty, in_map);
            out.push(Stmt::assign(Place::scalar(t), xb.to_expr(ty), span));
            out.push(Stmt::assign(xb.clone(), zero(ty), span));
            let seed = Expr::var(t, ty);
            for p in &ps {
                out.push(self.contribution(p, &seed, span));
            }
            return out;
        }
        let seed = xb.to_expr(ty);
        let mut own = None;
        for p in &ps {
            if is_own(p) {
                own = Some(p.d.clone());
            } else {
                out.push(self.contribution(p, &seed, span));
            }
        }
        let new = match own {
            Some(d) => times(d, seed.clone()),
            None => zero(ty),
        };
        // `X_b[w] = X_b[w]` (∂e/∂X[w] = 1) is left out.
        if !crate::util::same(&new, &seed) {
            out.push(Stmt::assign(xb, new, span));
        }
        out
    }

    /// Adjoint of `X[w] += e` (`e` not reading `X`): `r_b += ∂e/∂r * X_b[w]`.
    pub fn adj_increment(&mut self, target: &Place, e: &Expr, span: Span) -> Block {
        if !self.is_active(target.var) {
            return Vec::new();
        }
        let ty = self.elem(target.var);
        let seed = Place::element(self.adj_of(target.var), target.index.clone()).to_expr(ty);
        let ps = self.partials(e);
        ps.iter().map(|p| self.contribution(p, &seed, span)).collect()
    }
}

/// The arrays a map assigns in full: a top-level assignment of its body whose target runs
/// over every element, one map variable per axis (see [`crate::zero_fill::covers`]).
fn full_overwrites(f: &Function, m: &Map) -> Vec<VarId> {
    m.body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Assign { target, .. }
                if !target.is_scalar() && crate::zero_fill::covers(f, target.var, &m.dims, &target.index) =>
            {
                Some(target.var)
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reversed_ranges_read_naturally() {
        let mut f = Function::empty("t", Span::NONE);
        let n = f.add_var("N", Type::Scalar(Scalar::I64), VarRole::Size, Span::NONE);
        let t = f.add_var("t", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
        let show = |start: Expr, stop: Expr, step: i64| {
            let l = Loop { id: LoopId::NEW, var: t, start, stop, step: Expr::int(step), body: vec![] };
            let (a, b, c) = reversed_range(&l, &f, Span::NONE).unwrap();
            let s = |e: &Expr| adjc_ir::print::expr_str(&f, e);
            format!("range({}, {}, {})", s(&a), s(&b), s(&c))
        };
        let nv = || Expr::var(n, Scalar::I64);
        assert_eq!(show(Expr::int(1), nv(), 1), "range(N - 1, 0, -1)");
        assert_eq!(show(nv().sub(Expr::int(1)), Expr::int(-1), -1), "range(0, N, 1)");
        assert_eq!(show(Expr::int(0), nv(), 2), "range((N - 1) // 2 * 2, -2, -2)");
        let l = Loop { id: LoopId::NEW, var: t, start: Expr::int(0), stop: nv(), step: nv(), body: vec![] };
        assert!(reversed_range(&l, &f, Span::NONE).unwrap_err().message.contains("not a constant"));
    }
}
