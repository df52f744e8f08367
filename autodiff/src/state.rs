//! The state of one differentiation: the adjoint function under construction and the
//! bookkeeping every rule shares ([`Ad`]), with the types its fields hold (the loops around
//! the statement being reversed, [`Frame`]; output swaps, [`Swap`]; checkpoint schedules;
//! expert rules, [`ExpertRule`]).
//!
//! This module names no module that extends `Ad`: the reversal (`reverse`, `map`,
//! `checkpoint`, `tape`, `nest`, the expert rules, ...) all name it, never each other's
//! state, so their `use` graph is a DAG (`adjc/tests/module_dag.rs`). The methods here only
//! create variables and record what was added, so that a [`Checkpoint`] can roll it back.

use crate::affine::{Affine, Interval};
use crate::recompute;
use crate::report::{Recomputed, TapeInfo};
use crate::util::{block_writes, VarSet};
use adjc_ir::*;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Why reversing a statement stopped. `Diag` is an error for the user (or a bug, see
/// [`Diagnostic::internal`]). `Seq` is not an error but an early exit: it unwinds the
/// planning of a parallel map's adjoint (`crate::map`, `Ad::adjoint_simple` inside a map) up
/// to `Ad::rev_map` / `Ad::ar_map`, which reverse the map as a sequential nest instead; one
/// that escapes to `crate::reverse` is a bug. It stays a variant because the decision is
/// made deep in a recursion whose every level would otherwise pass a flag up.
pub(crate) enum Fail {
    Diag(Diagnostic),
    /// A map body needs values saved per iteration of an inner loop: the map must run as a
    /// sequential loop nest (stack tapes are not safe in parallel code).
    Seq,
}

impl From<Diagnostic> for Fail {
    fn from(d: Diagnostic) -> Fail {
        Fail::Diag(d)
    }
}

pub(crate) type R<T> = Result<T, Fail>;

/// Where a statement sits: at most once (top level) or inside sequential loops. Map
/// bodies have their own machinery ([`crate::map`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Env {
    Top,
    Loop,
}

/// The state of one differentiation: the adjoint function under construction and the
/// bookkeeping shared by all rules.
pub(crate) struct Ad<'p> {
    pub p: &'p Function,
    pub f: Function,
    pub active: VarSet,
    /// Adjoint variable of each active primal variable (parameters' adjoints are created
    /// with the signature, locals' on first use).
    pub adj: BTreeMap<VarId, VarId>,
    /// Variables written anywhere in the primal.
    pub written: VarSet,
    /// Scalars written (not by a shared accumulation) inside a map body: iteration-private.
    pub private: VarSet,
    /// Primal variables some save site tapes (locals among them get a value before the
    /// forward sweep, see `assemble`).
    pub saved: VarSet,
    /// Every tape created so far, for the report.
    pub tapes: Vec<TapeInfo>,
    /// Scalars the reverse sweep recomputes instead of taping (see `crate::recompute`).
    pub recompute: VarSet,
    /// Recomputations emitted so far, for the report.
    pub recomputed: Vec<Recomputed>,
    /// Local arrays recomputed in the reversed body of their loop instead of taped (see
    /// `crate::recompute`): shrinks when a reversed body cannot give a map its inputs back.
    pub recompute_arrays: VarSet,
    /// Arrays that qualify for that recomputation (whether or not it is chosen).
    pub array_candidates: VarSet,
    /// `(array, tape)`: arrays of `array_candidates` taped after all, for the planner.
    pub array_tapes: Vec<(VarId, VarId)>,
    /// The sequential loops around the statement being reversed, outermost first.
    pub nest: Vec<Frame>,
    /// How many `if`s enclose the statement being reversed.
    pub cond_depth: usize,
    /// Save sites whose tape can give an output its forward result back (see `assemble`).
    pub swaps: Vec<Swap>,
    /// Outputs the reverse sweep changes other than through such a site.
    pub unswappable: VarSet,
    /// Arrays created by the transform (tapes, snapshots) to allocate and free.
    pub ad_allocs: Vec<VarId>,
    /// Primal variables the reverse sweep modifies (restores, recomputation).
    pub clobbered: VarSet,
    /// Scalars created by the transform that live inside one map iteration.
    pub private_ad: VarSet,
    /// Index variables for whole-array copy nests, one per depth.
    pub copy_idx: Vec<VarId>,
    /// Statements to run first in the adjoint map being built (reads of final values).
    pub map_entry: Vec<Stmt>,
    /// The top-level body and the expert rules found in it, by position (see
    /// `crate::expert`).
    pub top: *const Stmt,
    pub rules: Vec<(usize, Rc<dyn ExpertRule>)>,
    /// The ids of the primal's loops, in program order.
    pub loop_ids: Vec<LoopId>,
    /// The loops to checkpoint and how (see [`crate::checkpoint`]).
    pub checkpoints: BTreeMap<LoopId, Checkpointing>,
    /// Bounds on the trips of `while` loops (see [`crate::AdOptions::max_trips`]).
    pub max_trips: BTreeMap<LoopId, u64>,
    /// What each reversed `while` loop records (the last reversal of each, for the report).
    pub data_loops: Vec<crate::report::DataLoop>,
    /// `while` loops reversed as fixed points (see [`crate::fixed_point`]).
    pub fixed_points: BTreeMap<LoopId, crate::options::FixedPoint>,
    /// The loops actually checkpointed.
    pub checkpointed: Vec<LoopId>,
    /// Top-level loops a planner may checkpoint.
    pub checkpointable: Vec<CheckpointableLoop>,
    /// For each primal variable, the spans of the statements whose adjoints read it, in
    /// pre-order: built on the first [`Ad::readers`] query (one walk of the primal, not one
    /// per save site).
    pub readers_index: std::cell::OnceCell<BTreeMap<VarId, Vec<Span>>>,
    /// What was added to `adj`, `saved`, `unswappable`, `clobbered` and `private_ad`, in
    /// order, so that a [`Checkpoint`] is a few lengths and a rollback undoes only what
    /// came after it (copying those sets at every map and top-level loop made the
    /// transform quadratic in the size of the kernel).
    journal: Vec<Added>,
    /// Loop counters that only their own loop mentions (see [`crate::util::loop_local_vars`]).
    pub loop_local: VarSet,
    /// The names of `f.vars[..named]`, for [`Ad::fresh`] (kept in step lazily: variables
    /// are only pushed, or truncated by a rollback).
    /// (How many variables have each name: names may repeat.)
    names: std::collections::HashMap<String, usize>,
    named: usize,
    /// Variables the primal writes at exactly one statement (see [`Ad::held_result`]).
    pub written_once: VarSet,
    /// Where the value of the statement being differentiated is held when its adjoint
    /// runs (set by `crate::map` for one [`Ad::adjoint_simple`] call): its derivative is
    /// then written with it (`t * (1.0 - t)` for a logistic `t`, see
    /// [`crate::deriv::partials_held`]).
    pub held_result: Option<Expr>,
}

/// One insertion into a set of [`Ad`] (these sets only grow between rollbacks).
#[derive(Clone, Copy)]
enum Added {
    Adj(VarId),
    Saved(VarId),
    Unswappable(VarId),
    Clobbered(VarId),
    PrivateAd(VarId),
}

#[derive(Clone)]
pub(crate) struct Checkpoint {
    nvars: usize,
    journal: usize,
    swaps: usize,
    tapes: usize,
    recomputed: usize,
    array_tapes: usize,
    ad_allocs: usize,
    copy_idx: usize,
}

/// Variables written by exactly one statement of `body` (library calls and pops included).
fn written_once(body: &Block) -> VarSet {
    let mut count: BTreeMap<VarId, usize> = BTreeMap::new();
    walk_stmts(body, &mut |s| {
        if let Some(v) = s.written_var() {
            *count.entry(v).or_default() += 1;
        }
    });
    count.into_iter().filter(|(_, n)| *n == 1).map(|(v, _)| v).collect()
}

impl<'p> Ad<'p> {
    pub fn new(p: &'p Function, f: Function, active: VarSet, adj: BTreeMap<VarId, VarId>, body: &Block) -> Ad<'p> {
        let written = block_writes(body);
        let mut private = VarSet::new();
        let mut shared_targets = VarSet::new();
        walk_stmts(body, &mut |s| {
            if let StmtKind::Map(m) = &s.kind {
                walk_stmts(&m.body, &mut |t| match &t.kind {
                    StmtKind::Accumulate { target, shared: true, .. } => {
                        shared_targets.insert(target.var);
                    }
                    StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } if target.is_scalar() => {
                        private.insert(target.var);
                    }
                    _ => {}
                });
            }
        });
        private.retain(|v| !shared_targets.contains(v) && !p.is_param(*v));
        Ad {
            p,
            f,
            active,
            adj,
            written,
            private,
            saved: VarSet::new(),
            tapes: Vec::new(),
            recompute: recompute::find(p, body),
            recomputed: Vec::new(),
            recompute_arrays: VarSet::new(),
            array_candidates: recompute::find_arrays(p, body),
            array_tapes: Vec::new(),
            nest: Vec::new(),
            cond_depth: 0,
            swaps: Vec::new(),
            unswappable: VarSet::new(),
            ad_allocs: Vec::new(),
            clobbered: VarSet::new(),
            private_ad: VarSet::new(),
            copy_idx: Vec::new(),
            map_entry: Vec::new(),
            top: body.as_ptr(),
            rules: Vec::new(),
            loop_ids: adjc_ir::proc::ids::loops(body).iter().map(|(_, l)| l.id).collect(),
            checkpoints: BTreeMap::new(),
            max_trips: BTreeMap::new(),
            fixed_points: BTreeMap::new(),
            data_loops: Vec::new(),
            checkpointed: Vec::new(),
            checkpointable: Vec::new(),
            readers_index: std::cell::OnceCell::new(),
            journal: Vec::new(),
            loop_local: crate::util::loop_local_vars(body),
            names: std::collections::HashMap::new(),
            named: 0,
            written_once: written_once(body),
            held_result: None,
        }
    }

    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            nvars: self.f.vars.len(),
            journal: self.journal.len(),
            swaps: self.swaps.len(),
            tapes: self.tapes.len(),
            recomputed: self.recomputed.len(),
            array_tapes: self.array_tapes.len(),
            ad_allocs: self.ad_allocs.len(),
            copy_idx: self.copy_idx.len(),
        }
    }

    /// Back to the state of `c` (`ad_allocs` and `copy_idx` only grow by pushes).
    pub fn rollback(&mut self, c: Checkpoint) {
        if self.named > c.nvars {
            for v in &self.f.vars[c.nvars..self.named] {
                if let Some(n) = self.names.get_mut(&v.name) {
                    *n -= 1;
                    if *n == 0 {
                        self.names.remove(&v.name);
                    }
                }
            }
            self.named = c.nvars;
        }
        self.f.vars.truncate(c.nvars);
        for added in self.journal.drain(c.journal..).rev() {
            match added {
                Added::Adj(v) => {
                    self.adj.remove(&v);
                }
                Added::Saved(v) => {
                    self.saved.remove(&v);
                }
                Added::Unswappable(v) => {
                    self.unswappable.remove(&v);
                }
                Added::Clobbered(v) => {
                    self.clobbered.remove(&v);
                }
                Added::PrivateAd(v) => {
                    self.private_ad.remove(&v);
                }
            }
        }
        self.swaps.truncate(c.swaps);
        self.tapes.truncate(c.tapes);
        self.recomputed.truncate(c.recomputed);
        self.array_tapes.truncate(c.array_tapes);
        self.ad_allocs.truncate(c.ad_allocs);
        self.copy_idx.truncate(c.copy_idx);
        self.map_entry.clear();
    }

    /// `self.f.fresh_name(base)` without a scan of every variable per call: `base`, else
    /// `base_k` for the smallest `k >= 1` no variable has.
    pub fn fresh(&mut self, base: &str) -> String {
        for v in &self.f.vars[self.named..] {
            *self.names.entry(v.name.clone()).or_default() += 1;
        }
        self.named = self.f.vars.len();
        if !self.names.contains_key(base) {
            return base.to_string();
        }
        (1..).map(|k| format!("{base}_{k}")).find(|n| !self.names.contains_key(n)).expect("infinite iterator")
    }

    /// Adds `v` to `saved` (undone by a rollback).
    pub fn mark_saved(&mut self, v: VarId) {
        if self.saved.insert(v) {
            self.journal.push(Added::Saved(v));
        }
    }

    /// Adds `v` to `unswappable` (undone by a rollback).
    pub fn mark_unswappable(&mut self, v: VarId) {
        if self.unswappable.insert(v) {
            self.journal.push(Added::Unswappable(v));
        }
    }

    /// Adds `v` to `clobbered` (undone by a rollback).
    pub fn mark_clobbered(&mut self, v: VarId) {
        if self.clobbered.insert(v) {
            self.journal.push(Added::Clobbered(v));
        }
    }

    /// Adds `v` to `private_ad` (undone by a rollback).
    pub fn mark_private_ad(&mut self, v: VarId) {
        if self.private_ad.insert(v) {
            self.journal.push(Added::PrivateAd(v));
        }
    }

    /// Records that the reverse sweep changes primal variable `v` (other than by a
    /// restore that can keep its forward result, see [`Swap`]).
    pub fn clobber(&mut self, v: VarId) {
        self.mark_clobbered(v);
        self.mark_unswappable(v);
    }

    pub fn elem(&self, v: VarId) -> Scalar {
        self.f.var(v).ty.elem()
    }

    pub fn name(&self, v: VarId) -> String {
        self.f.var(v).name.clone()
    }

    pub fn is_active(&self, v: VarId) -> bool {
        self.active.contains(&v)
    }

    /// The adjoint variable of active primal variable `v`, created on first use.
    pub fn adj_of(&mut self, v: VarId) -> VarId {
        if let Some(a) = self.adj.get(&v) {
            return *a;
        }
        let var = self.f.var(v).clone();
        let name = self.fresh(&format!("{}_b", var.name));
        let a = self.f.add_var(name, var.ty, VarRole::Adjoint(v), var.span);
        self.adj.insert(v, a);
        self.journal.push(Added::Adj(v));
        a
    }

    /// A scalar temporary; `private` when it lives inside one map iteration.
    pub fn temp(&mut self, base: &str, ty: Scalar, private: bool) -> VarId {
        let name = self.fresh(base);
        let v = self.f.add_var(name, Type::Scalar(ty), VarRole::Temp, Span::NONE);
        if private {
            self.mark_private_ad(v);
        }
        v
    }

    pub fn place_str(&self, p: &Place) -> String {
        adjc_ir::print::expr_str(&self.f, &p.to_expr(self.elem(p.var)))
    }
}

/// One sequential loop around the statements being reversed.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub var: VarId,
    /// The iteration counter, from 0.
    pub counter: Option<Expr>,
    pub trips: Trips,
    /// The range of the loop variable, affine in outer loop variables.
    pub interval: Option<Interval>,
    /// The loop statement's span (its body included).
    pub span: Span,
    /// The loop itself (bounds and step), body left out.
    pub range: Loop,
    /// With an exact trip count: the counter of the last iteration and the condition that
    /// the loop runs at all (`TSTEPS - 2`, `TSTEPS - 1 > 0`).
    pub last: Option<(Expr, Expr)>,
    /// A trip count that is affine in the counter of the loop just outside (triangular).
    pub tri: Option<Tri>,
    /// With an exact trip count and a unit step: the trip count before clamping at 0.
    pub diff: Option<Affine>,
}

/// An extent `alpha + beta * c` where `c` counts the iterations of loop `outer` (the
/// loop just outside), never negative while that loop runs.
#[derive(Clone, Debug)]
pub(crate) struct Tri {
    pub outer: VarId,
    pub alpha: Affine,
    pub beta: i64,
}

/// How many iterations a loop of the nest makes.
#[derive(Clone, Debug)]
pub(crate) enum Trips {
    /// A formula of the parameters.
    Exact(Expr),
    /// An upper bound over the outer iterations, and why it is not exact.
    Bounded(Expr, String),
    /// No formula: why.
    Unknown(String),
}

/// A save site whose tape can also give output `x` its forward result back: when the
/// reverse sweep restores `x`, the tape slot takes the value it replaces (a swap, done by
/// `assemble` when this site is the only thing that changes `x` in the reverse sweep), so
/// that afterwards the tape holds the last value each element had; `copy_back` puts
/// those values back at the end, instead of a snapshot of the whole of `x`.
pub(crate) struct Swap {
    pub x: VarId,
    pub tape: VarId,
    pub copy_back: Block,
}

/// How the reverse sweep gets the states of a checkpointed loop back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checkpointing {
    /// Snapshot the loop state every `every` iterations; the reverse sweep restores a snapshot,
    /// re-runs that segment forward with a segment-sized tape, then reverses it.
    Periodic { every: u64 },
    /// Revolve-optimal binomial schedule holding at most `snapshots` snapshots at once.
    Binomial { snapshots: u64 },
}

/// The schedule as `--checkpoint` spells it: `every:K` or `binomial:C`.
impl std::fmt::Display for Checkpointing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Checkpointing::Periodic { every } => write!(f, "every:{every}"),
            Checkpointing::Binomial { snapshots } => write!(f, "binomial:{snapshots}"),
        }
    }
}

/// A loop the planner may checkpoint (listed for every such loop, checkpointed or not).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointableLoop {
    pub id: LoopId,
    pub span: adjc_ir::Span,
    pub var: adjc_ir::VarId,
    /// Trip count, an integer expression of the parameters (vars of `Adjoint::function`).
    pub trips: adjc_ir::Expr,
    /// Bytes of one snapshot of the loop state.
    pub state_bytes: adjc_ir::Expr,
    /// Bytes the store-all tapes of this loop use per iteration.
    pub step_tape_bytes: adjc_ir::Expr,
    /// Floating-point operations of one forward iteration (the cost of recomputing it).
    pub step_flops: adjc_ir::Expr,
    /// Bytes of the arrays a checkpointed schedule holds besides its snapshots and tape:
    /// copies of the outputs the body writes (the replay rewrites them; store-all keeps their
    /// forward results in its tapes), the local arrays the body uses (alive during the replay
    /// in the reverse sweep) and the copies of values from before the loop that earlier
    /// adjoints need (see `Ad::entry_values`). An upper bound.
    pub replay_bytes: adjc_ir::Expr,
}

/// A rule for a group of statements an expert differentiates as one operation (softmax,
/// batch norm): found on the primal's top-level body by the registry of `crate::expert`,
/// applied by the reversal where the group starts.
pub(crate) trait ExpertRule: std::fmt::Debug {
    /// How many statements the rule covers.
    fn len(&self) -> usize;
    /// Forward and reverse code of `stmts` (`len()` of them); `None` when the rule does not
    /// apply after all (the statements are then reversed one by one).
    fn reverse(&self, ad: &mut Ad<'_>, stmts: &[Stmt]) -> Option<(Block, Block)>;
}
