//! The memory-plan stage: choose what the adjoint stores and what it recomputes
//! ([`MemoryOptions`]), rebuild the adjoint around checkpointed time loops, verify the
//! rebuilt adjoint against the limit (plan again, tighter, when it needs more than its
//! model said), and apply the plan — [`apply`] is the one place a plan changes an adjoint.

use std::collections::{BTreeMap, BTreeSet};

use adjc_autodiff::plan::{self, CandidateKind, Model, Plan, Settings, Strategy};
use adjc_autodiff::{AdOptions, Adjoint};
use adjc_emit::SizeGuard;
use adjc_ir::{Diagnostic, Function};

use crate::error::{Error, PlanError, Stage};
use crate::options::MemoryOptions;

/// A plan applied to an adjoint, for the report and the generated code's size guard.
#[derive(Clone, Debug)]
pub struct MemoryPlan {
    pub model: Model,
    pub plan: Plan,
    pub strategy: Strategy,
    pub limit: Option<u64>,
    pub sizes: BTreeMap<String, i64>,
}

impl MemoryPlan {
    /// Ids of the candidates the plan recomputes.
    pub fn recompute_ids(&self) -> BTreeSet<String> {
        self.model.candidates.iter().zip(&self.plan.recompute).filter(|(_, r)| **r).map(|(c, _)| c.id.clone()).collect()
    }

    /// Ids of the temporaries the plan recomputes ([`apply`] rewrites the adjoint for them).
    pub fn temporary_ids(&self) -> BTreeSet<String> {
        self.model
            .candidates
            .iter()
            .zip(&self.plan.recompute)
            .filter(|(c, r)| **r && !matches!(c.kind, CandidateKind::LoopArray(_)))
            .map(|(c, _)| c.id.clone())
            .collect()
    }

    /// Names of the loop arrays the plan recomputes instead of taping (the adjoint is built
    /// again with them, `AdOptions::loop_arrays`).
    pub fn loop_arrays(&self) -> BTreeSet<String> {
        self.model
            .candidates
            .iter()
            .zip(&self.plan.recompute)
            .filter_map(|(c, r)| match &c.kind {
                CandidateKind::LoopArray(name) if *r => Some(name.clone()),
                _ => None,
            })
            .collect()
    }

    /// The schedule of every time loop the plan checkpoints.
    pub fn checkpoints(&self) -> BTreeMap<adjc_autodiff::LoopId, adjc_autodiff::Checkpointing> {
        self.plan
            .loops
            .iter()
            .filter_map(|(&c, &o)| match &self.model.candidates[c].kind {
                CandidateKind::Loop(id, opts) => Some((*id, opts[o].schedule.clone())),
                _ => None,
            })
            .collect()
    }

    /// The size guard of the planned adjoint: memory grows with every size.
    pub fn size_guard(&self, function: &str) -> SizeGuard {
        SizeGuard {
            function: function.to_string(),
            max: self.sizes.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            plan: format!("predicted peak {} bytes", self.plan.peak),
        }
    }

    /// The adjoint's note about its plan.
    fn note(&self) -> String {
        let recompute = self.recompute_ids();
        let limit_text = self.limit.map(|l| format!(" under a limit of {l} bytes")).unwrap_or_default();
        format!(
            "memory plan ({}): predicted peak {} bytes{limit_text}; recomputed: {}",
            strategy_name(self.strategy),
            self.plan.peak,
            if recompute.is_empty() {
                "nothing".to_string()
            } else {
                recompute.iter().cloned().collect::<Vec<_>>().join(", ")
            }
        )
    }
}

pub fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::StoreAll => "store-all",
        Strategy::RecomputeAll => "recompute-all",
        Strategy::Ilp => "ilp",
    }
}

/// What the plan stage needs from the stage before it.
pub struct Planning<'a> {
    /// The function differentiated.
    pub primal: &'a Function,
    /// The options it was differentiated with (store-all, loop arrays taped).
    pub ad_opts: &'a AdOptions,
    /// The adjoint as `reverse` laid it out.
    pub laid_out: Adjoint,
    /// The source file (name and text) the diagnostics point into.
    pub file: &'a str,
    pub text: &'a str,
}

/// Plans the adjoint's memory and applies the plan; `None` without [`MemoryOptions`].
pub fn plan_memory(
    memory: Option<&MemoryOptions>,
    sizes: &BTreeMap<String, i64>,
    p: Planning,
) -> Result<(Adjoint, Option<MemoryPlan>), Error> {
    let Some(memory) = memory else { return Ok((p.laid_out, None)) };
    let applied = |adjoint: &mut Adjoint, m: &MemoryPlan| {
        apply(adjoint, m).map_err(|e| {
            let msg = format!("cannot apply the memory plan: {e}");
            Error::internal(Stage::Plan, p.file, p.text, Diagnostic::internal(p.primal.span, msg))
        })
    };
    let mut tighten = 0;
    loop {
        let mut m = choose(memory, sizes, &p.laid_out, tighten)?;
        if m.plan.loops.is_empty() && m.loop_arrays().is_empty() {
            let mut adjoint = p.laid_out;
            applied(&mut adjoint, &m)?;
            return Ok((adjoint, Some(m)));
        }
        // Checkpointed time loops change the adjoint itself: build it again around the
        // chosen schedules, then apply the plan's recomputations to it.
        let mut opts = p.ad_opts.clone();
        opts.checkpoints.extend(m.checkpoints());
        opts.loop_arrays = Some(m.loop_arrays());
        let mut rebuilt = adjc_autodiff::reverse(p.primal, &opts)
            .map_err(|e| Error::at(Stage::Reverse, p.file, p.text, e.into_diagnostic()))?;
        // A loop that keeps its inputs alive for its replays can make later code tape what
        // store-all did not: the rebuilt adjoint's own model has the last word. Over the
        // limit, plan again with the limit tightened by the excess.
        let verified = verified_peak(&rebuilt, &m)?;
        if let Some(limit) = m.limit.filter(|l| verified > *l) {
            if tighten < limit {
                tighten += verified - limit;
                continue;
            }
            return Err(PlanError::Checkpoints { limit, needs: verified }.into());
        }
        m.plan.peak = m.plan.peak.max(verified);
        applied(&mut rebuilt, &m)?;
        return Ok((rebuilt, Some(m)));
    }
}

/// Solves the plan of `adjoint` (built store-all) for the options.
///
/// `tighten` bytes are taken off the limit for the solver (not for the report): used when an
/// adjoint rebuilt around checkpointed loops needs more than the model said.
fn choose(
    memory: &MemoryOptions,
    sizes: &BTreeMap<String, i64>,
    adjoint: &Adjoint,
    tighten: u64,
) -> Result<MemoryPlan, Error> {
    let f = &adjoint.function;
    let missing: Vec<String> = f
        .params
        .iter()
        .map(|p| f.var(p.var))
        .filter(|v| v.ty == adjc_ir::Type::Scalar(adjc_ir::Scalar::I64) && !sizes.contains_key(&v.name))
        .map(|v| v.name.clone())
        .collect();
    if !missing.is_empty() {
        return Err(PlanError::MissingSizes(missing).into());
    }
    let model = plan::build(adjoint, sizes).map_err(|e| PlanError::Model(e.to_string()))?;
    let solver_limit = memory.limit.map(|l| l.saturating_sub(tighten));
    let plan = plan::solve(&model, memory.strategy, solver_limit, Settings::default()).map_err(|e| {
        // In the user's terms: the solver's limit was tightened by `tighten` bytes (an
        // adjoint rebuilt around a schedule needed that much more than its model said).
        PlanError::Infeasible {
            limit: e.limit + tighten,
            smallest: e.smallest + tighten,
            store_all: model.store_all_peak(),
        }
    })?;
    Ok(MemoryPlan { model, plan, strategy: memory.strategy, limit: memory.limit, sizes: sizes.clone() })
}

/// The predicted peak of `adjoint`, rebuilt around the plan's checkpointed loops: its own
/// model (every tape it now has, snapshots, copies and the tapes later code needs because the
/// loop keeps its inputs alive) under the plan's recomputations.
fn verified_peak(adjoint: &Adjoint, m: &MemoryPlan) -> Result<u64, Error> {
    let model = plan::build(adjoint, &m.sizes).map_err(|e| PlanError::Model(e.to_string()))?;
    let ids = m.recompute_ids();
    let recompute: Vec<bool> = model.candidates.iter().map(|c| ids.contains(&c.id)).collect();
    Ok(plan::peak(&model, &recompute, &BTreeMap::new()))
}

/// Applies the plan's recomputed temporaries to `adjoint` and notes the plan in it. The
/// solver only recomputes what can be, so a refusal here is adjc's bug (the message says
/// what was refused).
pub fn apply(adjoint: &mut Adjoint, m: &MemoryPlan) -> Result<(), plan::PlanError> {
    adjoint.function.body = plan::apply(&adjoint.function, &m.temporary_ids())?;
    adjoint.function.notes.push(m.note());
    Ok(())
}
