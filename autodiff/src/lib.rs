//! # adjc-autodiff: reverse-mode differentiation of adjc IR
//!
//! `reverse` turns a primal [`Function`] into its adjoint `<name>_b` in the same IR,
//! Tapenade style (README.md, "What the generated code looks like"): the adjoint takes every
//! primal parameter followed, for each active one, by its adjoint; one call computes the
//! primal outputs and the gradient.
//!
//! ## Layout of the adjoint
//!
//! Allocations first; a `forward sweep` section (the primal statements plus tape saves);
//! a `reverse sweep` section (the adjoint of every statement, in reverse order); frees
//! last. Primal outputs that the reverse sweep changes are copied at the end of the
//! forward sweep and put back at the end, so that outputs hold the forward results.
//!
//! ## Ordering rules
//!
//! When the reverse sweep reaches statement `S`, memory holds the state right after `S`
//! (for everything an adjoint still reads). Every adjoint rule reads the operands of `S`
//! as they were *before* `S`, so the reverse code of `S` is: restore what `S` overwrote
//! (if taped), then the adjoint of `S`. Accumulations other than `+=` are differentiated
//! as the assignment they are (`m max= x` is `m = max(m, x)`, exact with the first-argument
//! tie rule). The only rules that read a value *after* `S` are the reductions of
//! `minmax` and the parallel `max=` reduction of `map`: they read the final value into
//! a temporary before restoring.
//!
//! ## Tapes (to-be-recorded analysis)
//!
//! A forward data flow tracks which current values some adjoint will read; a statement
//! that overwrites such a value saves it, and only the overwritten element or region
//! (`B[1:-1]`): in a local array with one axis per enclosing loop, sized before the
//! forward sweep by a formula of the parameters and indexed by the loop counters; on a
//! stack only where a trip count has no closed form. Cheap scalars that depend on nothing
//! loop-carried are recomputed instead. Branch decisions that cannot be evaluated again
//! are taped the same way (`branch_tape`). [`Adjoint::tapes`] describes every tape.
//!
//! ## Maps
//!
//! The adjoint of a map is a map over the same space: per iteration, the statements whose
//! results the adjoint needs are recomputed (iteration-private copies undo what they
//! overwrite), then the body's adjoints run in reverse. Accumulations that different
//! iterations may hit are `shared`. A map whose adjoint would need values saved in every
//! iteration of an inner loop runs as a sequential loop nest instead (stack tapes).
//!
//! ## Modules
//!
//! * `state`: the reversal context `Ad` (the adjoint under construction, what was saved,
//!   rollback) and the types of its fields; a leaf that names none of the modules extending
//!   `Ad`, so that the crate's modules import each other without circles;
//! * `options`: `--wrt` / `--of` resolution and defaults;
//! * `algebra`: exact tidying of float expressions (integer powers as products, signs
//!   moved to the sums that absorb them), run on both functions before they are written;
//! * `activity`: which variables need an adjoint;
//! * `blas`: adjoints of library calls (gemm, gemv, dot, ger) as library calls;
//! * `rules`: the table of scalar derivatives; `deriv` chains it through expressions;
//! * `reverse`: statement reversal and the to-be-recorded analysis;
//! * `map`: reversal of parallel maps; `minmax`: `max=`/`min=` reduction loops;
//! * `expert`: the registry of rules for statement groups differentiated as one operation
//!   (`state::ExpertRule`): `softmax` (row-wise softmax adjoint), `batchnorm` (closed-form
//!   batch-norm adjoint);
//! * `tape`: save sites and region tapes; `nest`: tape slots from loop trip counts;
//!   `affine`: affine bounds; `recompute`: values recomputed instead of taped;
//!   `report`: the tape report; `shared`: which adjoint accumulations race;
//! * `signature`: adjoint parameters and their documentation; `assemble`: layout;
//!   `cse`: repeated calls of a derivative named once (`tanh_s = tanh(...)`);
//!   `element_sum`: a loop's sum into one array element accumulated in a local (a vector
//!   reduction instead of an add chain through memory);
//!   `fuse`: forward maps fused into the reverse maps over the same elements (one pass);
//!   `rank_update`: the `ger` updates (and zero-fill) of one adjoint matrix as one map;
//!   `fill_merge`: a zero-fill and the map that first adds into it, as one assigning map;
//!   `zero_fill`: zero fills of adjoints that nothing reads dropped, first additions into a
//!   zero-filled adjoint written as assignments (β = 0 for gemm);
//!   `product_fold`: scalings and copies next to a library product folded into its
//!   `alpha`, `beta` and output (`alpha * A @ B + beta * C` as one gemm);
//! * `split` (with `own`, `gather`, `flatten`): adjoint updates without atomics, as stencil
//!   gathers (one pass per statement, boundaries peeled), owned maps, reductions and
//!   owner-ordered nests.
//! * `plan`: memory plans under a limit (candidates, timeline, ILP) and their application
//!   (local arrays allocated over their lifetime, temporaries recomputed in the reverse sweep).
//! * `checkpoint`: checkpointed time loops (periodic and binomial snapshots instead of
//!   per-iteration tapes, [`AdOptions::checkpoints`]) and what a planner needs to choose
//!   them ([`Adjoint::checkpointable`]).

mod activity;
mod affine;
pub mod algebra;
mod assemble;
mod batch;
mod batchnorm;
mod blas;
mod checkpoint;
pub mod column_tiles;
pub mod cse;
mod deriv;
pub mod element_sum;
mod error;
mod expert;
pub mod fill_merge;
pub mod fixed_point;
mod flatten;
pub mod fuse;
mod gather;
mod linalg;
pub mod loop_order;
mod map;
pub mod map_fusion;
mod minmax;
mod nest;
mod options;
mod own;
pub mod parallelize;
pub mod plan;
mod prep;
pub mod product_fold;
pub mod product_loop;
pub mod rank_update;
mod recompute;
pub mod reduction_order;
mod report;
mod reverse;
mod rules;
pub mod shadow;
mod shared;
pub mod shared_element;
mod signature;
mod softmax;
pub mod split;
mod state;
mod tape;
pub mod unit_loops;
mod util;
mod while_loop;
pub mod zero_fill;
pub mod zero_place;
pub mod zero_then_add;

pub use checkpoint::{binomial_optimum, checkpoint_recompute_steps, CheckpointableLoop, Checkpointing, LoopId};
pub use error::AdError;
pub use options::FixedPoint;
pub use parallelize::parallelize;

use adjc_ir::{Diagnostic, Function, VarId};
pub use report::{DataLoop, Recomputed, TapeInfo, TapeKind};
use state::{Ad, Env, Fail};
use util::VarSet;

/// What to differentiate. `None` selects the defaults: `wrt` = every float parameter the
/// function reads (intent in or inout), `of` = every float output (returned values, inout
/// and out parameters).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AdOptions {
    pub wrt: Option<Vec<String>>,
    pub of: Option<Vec<String>>,
    /// Loops whose states the reverse sweep gets back from snapshots instead of tapes
    /// (empty: store-all). See [`Checkpointing`].
    pub checkpoints: std::collections::BTreeMap<LoopId, Checkpointing>,
    /// Local arrays defined by a cheap map in a sequential loop that the reverse sweep
    /// recomputes instead of taping: `None` for every array that
    /// qualifies (the default), `Some(names)` for those named only (a memory plan's choice;
    /// `Some` of an empty set tapes them all).
    pub loop_arrays: Option<std::collections::BTreeSet<String>>,
    /// Bounds on the trips of `while` loops (`--max-trips`): they size the loops' stack
    /// tapes in the report and for a memory plan (the stacks still grow past them).
    pub max_trips: std::collections::BTreeMap<LoopId, u64>,
    /// `while` loops whose adjoint iterates the adjoint fixed point instead of reversing
    /// the trips taken (`--fixed-point`, see [`fixed_point`]).
    pub fixed_points: std::collections::BTreeMap<LoopId, FixedPoint>,
}

/// A local array the reverse sweep can recompute in its loop instead of taping, for a
/// planner: the tape it has when stored and what recomputing one element costs.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopArray {
    pub name: String,
    /// Line of its defining map.
    pub line: u32,
    /// Source span of its defining map (inside the span of the loops around it).
    pub span: adjc_ir::Span,
    /// The tape's variable in the adjoint (when the adjoint tapes it), else `None`.
    pub tape: Option<VarId>,
    /// Floating-point operations per element of the map (as [`plan`] counts them).
    pub flops_per_elem: f64,
}

/// The adjoint function and the variables it differentiates. `function.vars` starts with
/// an exact copy of the primal's `vars`, so the VarIds in `wrt`, `of` and in
/// `VarRole::Adjoint` are primal VarIds. `wrt` and `of` list the requested variables that
/// are active (and therefore have an adjoint parameter), in signature order.
#[derive(Clone, Debug, PartialEq)]
pub struct Adjoint {
    pub function: Function,
    pub wrt: Vec<VarId>,
    pub of: Vec<VarId>,
    /// Every tape of the adjoint (and snapshot of outputs): what it saves, why, and its
    /// size as a formula of the parameters (VarIds and expressions of `function`).
    pub tapes: Vec<TapeInfo>,
    /// Values recomputed by the reverse sweep instead of taped.
    pub recomputed: Vec<Recomputed>,
    /// Every top-level sequential loop that could be checkpointed, with its trip count,
    /// state size, per-iteration tape size and cost (checkpointed or not).
    pub checkpointable: Vec<CheckpointableLoop>,
    /// Arrays of loops that the reverse sweep can recompute instead of taping, recomputed
    /// or not.
    pub loop_recomputable: Vec<LoopArray>,
    /// What is recorded for each `while` loop, per trip and per run.
    pub data_loops: Vec<DataLoop>,
}

/// Builds the adjoint of `primal`. Errors point at the statement that cannot be
/// differentiated (or have no span for a bad option); [`AdError::Internal`] is a bug.
pub fn reverse(primal: &Function, opts: &AdOptions) -> Result<Adjoint, AdError> {
    adjc_ir::validate::validate(primal)
        .map_err(|e| Diagnostic::internal(e.span, format!("invalid IR given to autodiff: {}", e.message)))?;
    let (wrt, of) = options::resolve(primal, opts)?;
    let prep = prep::prepare(&primal.body)?;
    let active = activity::analyse(primal, &prep.body, &wrt, &of);
    let sig = signature::build(primal, &active, &of);
    let mut ad = Ad::new(primal, sig.f, active.clone(), sig.adj, &prep.body);
    ad.rules = expert::find(&prep.body);
    ad.checkpoints = opts.checkpoints.clone();
    ad.max_trips = opts.max_trips.clone();
    ad.fixed_points = opts.fixed_points.clone();
    // Only arrays some adjoint reads, and only when the inputs of their map that the
    // function changes are read by some adjoint anyway: recomputing must not make the
    // forward sweep tape those inputs instead (`un = u.copy()` before a linear update of `u`).
    let needed = ad.ar_block(&prep.body);
    let defs = recompute::array_defs(&prep.body);
    ad.array_candidates.retain(|a| {
        needed.contains(a)
            && defs.get(a).is_some_and(|s| {
                recompute::array_inputs(s).iter().all(|v| !ad.written.contains(v) || needed.contains(v))
            })
    });
    ad.recompute_arrays = ad
        .array_candidates
        .iter()
        .copied()
        .filter(|a| opts.loop_arrays.as_ref().is_none_or(|names| names.contains(&primal.var(*a).name)))
        .collect();
    let (fwd, rev) = ad.rev_block(&prep.body, Env::Top, &mut VarSet::new()).map_err(|e| match e {
        Fail::Diag(d) => d,
        Fail::Seq => Diagnostic::internal(primal.span, "a map could not be reversed"),
    })?;
    if let Some(id) = opts.checkpoints.keys().find(|id| !ad.checkpointed.contains(id)) {
        let d = if ad.loop_ids.contains(id) {
            format!("loop {id} cannot be checkpointed: it is part of a parallel map (only sequential loops can be)")
        } else {
            let n = ad.loop_ids.len();
            format!("there is no loop {id} to checkpoint: the function has {n} sequential loops")
        };
        return Err(Diagnostic::error(primal.span, d).into());
    }
    let body = assemble::assemble(
        &mut ad,
        assemble::Parts {
            fwd,
            rev,
            primal_body: &prep.body,
            primal_allocs: &prep.allocs,
            of: &of,
            by_value: &sig.by_value,
        },
    );
    let loop_recomputable = loop_arrays(primal, &prep.body, &ad);
    let mut function = ad.f;
    function.body = body;
    let names = |vs: &[VarId]| vs.iter().map(|v| primal.var(*v).name.clone()).collect::<Vec<_>>().join(", ");
    function.notes.push(format!(
        "adjoint (reverse mode) of `{}`: derivatives of {} with respect to {}",
        primal.name,
        names(&of),
        names(&wrt)
    ));
    for v in wrt.iter().filter(|v| !active.contains(v)) {
        function.notes.push(format!(
            "`{}` does not influence the differentiated outputs: its gradient is zero and it has no adjoint parameter",
            primal.var(*v).name
        ));
    }
    for v in of.iter().filter(|v| !active.contains(v)) {
        function.notes.push(format!(
            "`{}` does not depend on the differentiated inputs: it has no adjoint parameter",
            primal.var(*v).name
        ));
    }
    for t in &ad.tapes {
        function.notes.push(report::memory_note(&function, t));
    }
    let keep = |vs: &[VarId]| vs.iter().copied().filter(|v| active.contains(v)).collect();
    // Temporaries a memory plan recomputes are applied to this adjoint afterwards, by
    // [`plan::apply`] (the driver's one way of applying a plan).
    batch::batch_updates(&mut function);
    // The forward sweep keeps the primal's loop ids; reversed loops, re-runs and copies get
    // fresh ones (see "Identities" in adjc_ir).
    adjc_ir::proc::ids::settle(&mut function.body);
    Ok(Adjoint {
        wrt: keep(&wrt),
        of: keep(&of),
        function,
        tapes: ad.tapes,
        recomputed: ad.recomputed,
        checkpointable: ad.checkpointable,
        loop_recomputable,
        data_loops: ad.data_loops,
    })
}

/// The arrays the reverse sweep recomputed or could recompute in their loops (those taped
/// with their tapes), with their cost per element.
fn loop_arrays(primal: &Function, body: &adjc_ir::Block, ad: &Ad) -> Vec<LoopArray> {
    let mut out = Vec::new();
    adjc_ir::walk_stmts(body, &mut |s| {
        let Some((a, _, value)) = recompute::array_def(s) else { return };
        if !ad.array_candidates.contains(&a) {
            return;
        }
        let tape = ad.array_tapes.iter().find(|(x, _)| *x == a).map(|(_, t)| *t);
        let recomputed = ad.recomputed.iter().any(|r| r.var == a);
        if tape.is_some() || recomputed {
            out.push(LoopArray {
                name: primal.var(a).name.clone(),
                line: s.span.line,
                span: s.span,
                tape,
                flops_per_elem: plan::flops::expr(value),
            });
        }
    });
    out
}
