//! Reversal of data-dependent loops ([`StmtKind::While`]).
//!
//! The rule: the reverse sweep runs exactly the iterations the forward sweep ran, in the
//! opposite order. The forward sweep counts them,
//!
//! ```text
//! trips = 0;
//! while (cond) { <taped body>; trips += 1; }
//! [save trips]                         only inside loops: one slot per iteration of the
//!                                      loops around it (a stack when they have no
//!                                      closed-form trip count)
//! ```
//!
//! and the reverse sweep is a counted loop over the recorded trips:
//!
//! ```text
//! [restore trips]
//! for (it = trips - 1; it >= 0; it--) { <adjoint body> }
//! ```
//!
//! The body is reversed like a `for` loop's whose trip count has no formula (a [`Frame`]
//! with [`Trips::Unknown`]): every value it saves goes to a stack tape (grown by doubling
//! in the C runtime), one entry per iteration, and the memory report says so. The
//! condition has no adjoint (it is a `bool`) and is never evaluated again. `break`,
//! `continue` and `return` reach this pass as `bool` flags that the condition and `if`
//! guards test (see `adjc_ir::proc::jumps`); their `if`s are reversed like any other,
//! with the branch taken recorded per iteration.

use crate::nest::{Frame, Trips};
use crate::report::{DataLoop, TapeKind};
use crate::reverse::{Ad, R};
use crate::util::at_line;
use crate::util::VarSet;
use adjc_ir::*;

impl Ad<'_> {
    /// Forward-sweep and reverse-sweep code of the `while` statement `s`; `live` is the
    /// live set right before it (see [`Ad::flow_stmt`]).
    pub(crate) fn rev_while(&mut self, s: &Stmt, w: &While, live: &VarSet) -> R<(Block, Block)> {
        let first = self.tapes.len();
        let out = match self.fixed_points.get(&w.id).copied() {
            Some(fp) => self.rev_fixed_point(s, w, live, fp)?,
            None => self.rev_while_exact(s, w, live)?,
        };
        self.record_data_loop(w, s.span.line, first);
        Ok(out)
    }

    /// What the reversal of `w` recorded (the tapes from `first` on), for the report.
    fn record_data_loop(&mut self, w: &While, line: u32, first: usize) {
        let fixed_point = self.fixed_points.contains_key(&w.id);
        let mut dl =
            DataLoop { id: w.id, line, fixed_point, per_trip: Vec::new(), per_run: Vec::new(), once: Vec::new() };
        for t in self.tapes.get(first..).unwrap_or_default() {
            if fixed_point {
                dl.once.push(t.name.clone());
            } else if t.what.starts_with(&format!("the trip count of `while` loop {}", w.id)) {
                dl.per_run.push(t.name.clone());
            } else if t.kind == TapeKind::Stack {
                dl.per_trip.push((t.name.clone(), crate::report::elem_bytes(t.elem)));
            }
        }
        self.data_loops.retain(|d| d.id != w.id);
        self.data_loops.push(dl);
    }

    fn rev_while_exact(&mut self, s: &Stmt, w: &While, live: &VarSet) -> R<(Block, Block)> {
        let line = at_line(s.span);
        let trips_name = self.fresh("trips");
        let trips = self.f.add_var(trips_name, Type::Scalar(Scalar::I64), VarRole::Temp, s.span);
        let it_name = self.fresh("it");
        let it = self.f.add_var(it_name, Type::Scalar(Scalar::I64), VarRole::Index, s.span);
        // The body seen as the body of a counted loop over `it` without a trip formula.
        let as_loop = Loop {
            id: w.id,
            var: it,
            start: Expr::int(0),
            stop: Expr::int(0),
            step: Expr::int(1),
            body: w.body.clone(),
        };
        let unknown = format!("the `while` loop {}{line} runs a number of times known only at run time", w.id);
        let bound = match self.max_trips.get(&w.id) {
            Some(k) => Trips::Bounded(Expr::int(*k as i64), format!("{unknown}: at most {k} (--max-trips)")),
            None => Trips::Unknown(unknown),
        };
        let frame = Frame {
            var: it,
            counter: None,
            trips: bound,
            interval: None,
            span: s.span,
            range: Loop { body: Vec::new(), ..as_loop.clone() },
            last: None,
            tri: None,
            diff: None,
        };
        let (mut fb, rb) = self.rev_loop_body(&as_loop, live, frame)?;
        let count = Place::scalar(trips);
        fb.push(
            Stmt::new(
                StmtKind::Accumulate { target: count.clone(), op: AccOp::Add, value: Expr::int(1), shared: false },
                s.span,
            )
            .with_note(Note::CountIterations),
        );
        let mut fwd =
            vec![Stmt::assign(count.clone(), Expr::int(0), s.span).with_note(Note::TripCount { line: s.span.into() })];
        fwd.push(Stmt { kind: StmtKind::While(While { id: w.id, cond: w.cond.clone(), body: fb }), ..s.clone() });
        if rb.is_empty() {
            // Nothing to reverse: the counter is dead (kept for a uniform forward sweep).
            return Ok((fwd, Vec::new()));
        }
        let mut rev = Vec::new();
        if !self.nest.is_empty() {
            // Another iteration of an enclosing loop runs the `while` again before the
            // reverse sweep gets here: keep each instance's count.
            let (save, restore) = self.save_trips(trips, w.id, s.span);
            fwd.push(save);
            rev.push(restore);
        }
        let last = Expr::var(trips, Scalar::I64).sub(Expr::int(1));
        rev.push(
            Stmt::new(
                StmtKind::Loop(Loop {
                    id: LoopId::NEW,
                    var: it,
                    start: last,
                    stop: Expr::int(-1),
                    step: Expr::int(-1),
                    body: rb,
                }),
                s.span,
            )
            .with_note(Note::WhileReversed { line: s.span.into() }),
        );
        Ok((fwd, rev))
    }

    /// Live set at the start of every iteration of a `while` body (it may run any number
    /// of times, including none): see [`Ad::loop_fixpoint`].
    pub(crate) fn while_fixpoint(&self, body: &Block, entry: VarSet) -> VarSet {
        let mut cur = entry.clone();
        loop {
            let mut out = cur.clone();
            self.flow_block(body, &mut out);
            let next: VarSet = entry.union(&out).copied().collect();
            if next == cur {
                return cur;
            }
            cur = next;
        }
    }
}
