//! Memory plans on the command line: `--memory-limit`, `--strategy` and `--sizes` select
//! and apply a plan to the adjoint (`transpile`, `check`, `bench`); `adjc plan` prints it.

use std::collections::{BTreeMap, BTreeSet};

use adjc_autodiff::plan::{self, CandidateKind, Model, Plan, Settings, Strategy};
use adjc_autodiff::Adjoint;
use adjc_emit::SizeGuard;

use crate::cli::{CliError, CliResult, PlanArgs, ReportFormat, StrategyArg, TranspileArgs};
use crate::harness::parse_sizes;
use crate::pipeline;

/// A plan applied to an adjoint, for the report and the generated code's size guard.
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

    /// Ids of the temporaries the plan recomputes ([`plan::apply`] rewrites the adjoint for them).
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
}

pub use crate::cli::parse_bytes;

/// `1572864 bytes (1.5 MiB)`: exact first, readable after.
pub fn human(bytes: u64) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut k = 0;
    while v >= 1024.0 && k + 1 < units.len() {
        v /= 1024.0;
        k += 1;
    }
    if k == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{bytes} bytes ({v:.1} {})", units[k])
    }
}

/// Plans `adjoint` when the flags ask for a plan, and applies it; `None` without one.
///
/// `tighten` bytes are taken off the limit for the solver (not for the report): the pipeline
/// uses it when an adjoint rebuilt around checkpointed loops needs more than the model said.
pub fn plan_adjoint(args: &TranspileArgs, adjoint: &mut Adjoint, tighten: u64) -> CliResult<Option<MemoryPlan>> {
    let limit = args.memory_limit.as_deref().map(parse_bytes).transpose()?;
    let strategy = match (args.strategy, limit) {
        (None, None) => return Ok(None),
        (Some(StrategyArg::StoreAll), _) => Strategy::StoreAll,
        (Some(StrategyArg::RecomputeAll), _) => Strategy::RecomputeAll,
        (Some(StrategyArg::Ilp), _) | (None, Some(_)) => Strategy::Ilp,
    };
    let sizes = parse_sizes(&args.sizes)?;
    let f = &adjoint.function;
    let missing: Vec<String> = f
        .params
        .iter()
        .map(|p| f.var(p.var))
        .filter(|v| v.ty == adjc_ir::Type::Scalar(adjc_ir::Scalar::I64) && !sizes.contains_key(&v.name))
        .map(|v| format!("{}=...", v.name))
        .collect();
    if !missing.is_empty() {
        return Err(CliError::Usage(format!(
            "a memory plan is made for concrete sizes: add --sizes {}",
            missing.join(",")
        )));
    }
    let model = plan::build(adjoint, &sizes).map_err(|m| CliError::Usage(format!("cannot plan memory: {m}")))?;
    let solver_limit = limit.map(|l| l.saturating_sub(tighten));
    let plan = plan::solve(&model, strategy, solver_limit, Settings::default()).map_err(|e| {
        CliError::Usage(format!(
            "no plan keeps the adjoint within --memory-limit {}: the smallest feasible limit is {} \
             (storing everything needs {})",
            // In the user's terms: the solver's limit was tightened by `tighten` bytes (an
            // adjoint rebuilt around a schedule needed that much more than its model said).
            human(e.limit + tighten),
            human(e.smallest + tighten),
            human(model.store_all_peak())
        ))
    })?;
    let planned = MemoryPlan { model, plan, strategy, limit, sizes };
    let recompute = planned.temporary_ids();
    adjoint.function.body = plan::apply(&adjoint.function, &recompute)
        .map_err(|m| CliError::Usage(format!("cannot apply the plan: {m}")))?;
    adjoint.function.notes.push(plan_note(&planned));
    Ok(Some(planned))
}

/// The adjoint's note about its plan (the last note; the pipeline replaces it when it verifies
/// a rebuilt adjoint).
pub fn plan_note(m: &MemoryPlan) -> String {
    let recompute = m.recompute_ids();
    let limit_text = m.limit.map(|l| format!(" under a limit of {l} bytes")).unwrap_or_default();
    format!(
        "memory plan ({}): predicted peak {} bytes{limit_text}; recomputed: {}",
        strategy_name(m.strategy),
        m.plan.peak,
        if recompute.is_empty() {
            "nothing".to_string()
        } else {
            recompute.iter().cloned().collect::<Vec<_>>().join(", ")
        }
    )
}

/// The predicted peak of `adjoint`, rebuilt around the plan's checkpointed loops: its own
/// model (every tape it now has, snapshots, copies and the tapes later code needs because the
/// loop keeps its inputs alive) under the plan's recomputations.
pub fn verified_peak(adjoint: &Adjoint, m: &MemoryPlan) -> CliResult<u64> {
    let model = plan::build(adjoint, &m.sizes).map_err(|e| CliError::Usage(format!("cannot plan memory: {e}")))?;
    let ids = m.recompute_ids();
    let recompute: Vec<bool> = model.candidates.iter().map(|c| ids.contains(&c.id)).collect();
    Ok(plan::peak(&model, &recompute, &BTreeMap::new()))
}

/// The size guard of the planned adjoint: memory grows with every size.
pub fn size_guard(function: &str, m: &MemoryPlan) -> SizeGuard {
    SizeGuard {
        function: function.to_string(),
        max: m.sizes.iter().map(|(k, v)| (k.clone(), *v)).collect(),
        plan: format!("predicted peak {} bytes", m.plan.peak),
    }
}

fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::StoreAll => "store-all",
        Strategy::RecomputeAll => "recompute-all",
        Strategy::Ilp => "ilp",
    }
}

fn decision(m: &MemoryPlan, k: usize) -> String {
    let c = &m.model.candidates[k];
    match &c.kind {
        CandidateKind::Loop(_, opts) => match m.plan.loops.get(&k) {
            Some(&o) => format!("checkpoint {}", opts[o].schedule),
            None if c.store_only.is_some() => "store (only)".into(),
            None => "store".into(),
        },
        _ if m.plan.recompute[k] => "recompute".into(),
        _ if c.store_only.is_some() => "store (only)".into(),
        _ => "store".into(),
    }
}

fn kind(c: &plan::Candidate) -> &'static str {
    match c.kind {
        CandidateKind::Temporary => "array",
        CandidateKind::Tape => "tape",
        CandidateKind::Loop(..) => "loop",
        CandidateKind::LoopArray(_) => "loop array",
    }
}

pub fn report_text(fname: &str, m: &MemoryPlan) -> String {
    let sizes: Vec<String> = m.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut out = format!(
        "memory plan of {fname} ({}), strategy {}, limit {}\n",
        sizes.join(", "),
        strategy_name(m.strategy),
        m.limit.map(human).unwrap_or_else(|| "none".into())
    );
    let mut rows = vec![[
        "candidate".to_string(),
        "kind".into(),
        "line".into(),
        "bytes".into(),
        "decision".into(),
        "recompute flops".into(),
    ]];
    for (k, c) in m.model.candidates.iter().enumerate() {
        let flops = match (&c.kind, c.recompute_flops) {
            (CandidateKind::Loop(_, opts), _) => match m.plan.loops.get(&k) {
                Some(&o) => format!("{:.0}", opts[o].flops),
                None => "-".into(),
            },
            (_, Some(f)) => format!("{f:.0}"),
            (_, None) => "-".into(),
        };
        rows.push([c.id.clone(), kind(c).into(), c.line.to_string(), c.bytes.to_string(), decision(m, k), flops]);
    }
    let w: Vec<usize> = (0..6).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    for r in &rows {
        let line = format!(
            "  {:w0$}  {:w1$}  {:>w2$}  {:>w3$}  {:w4$}  {:>w5$}",
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            r[5],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3],
            w4 = w[4],
            w5 = w[5]
        );
        out.push_str(line.trim_end());
        out.push('\n');
    }
    for c in m.model.candidates.iter().filter(|c| c.kind == CandidateKind::Temporary) {
        if let Some(why) = &c.store_only {
            out.push_str(&format!("  {} can only be stored: {why}\n", c.id));
        }
    }
    out.push_str(&format!(
        "predicted peak {} vs limit {} (store-all: {}); recompute cost {:.0} flops\n",
        human(m.plan.peak),
        m.limit.map(human).unwrap_or_else(|| "none".into()),
        human(m.plan.store_all_peak),
        m.plan.flops
    ));
    out.push_str(&format!("solver: {}, {:.3} s\n", m.plan.status, m.plan.seconds));
    out
}

pub fn report_json(fname: &str, m: &MemoryPlan) -> String {
    let candidates: Vec<serde_json::Value> = m
        .model
        .candidates
        .iter()
        .enumerate()
        .map(|(k, c)| {
            serde_json::json!({
                "id": c.id,
                "kind": kind(c),
                "line": c.line,
                "bytes": c.bytes,
                "bytes_formula": c.formula,
                "decision": decision(m, k),
                "recompute_flops": c.recompute_flops,
                "extra_bytes": c.extra_bytes,
                "store_only": c.store_only,
                "depends_on": c.depends_on.iter().map(|d| m.model.candidates[*d].id.clone()).collect::<Vec<_>>(),
            })
        })
        .collect();
    let v = serde_json::json!({
        "function": fname,
        "sizes": m.sizes,
        "strategy": strategy_name(m.strategy),
        "limit_bytes": m.limit,
        "predicted_peak_bytes": m.plan.peak,
        "store_all_peak_bytes": m.plan.store_all_peak,
        "unplanned_bytes": m.model.unplanned_bytes,
        "recompute_flops": m.plan.flops,
        "solver_status": m.plan.status,
        "solver_seconds": m.plan.seconds,
        "candidates": candidates,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

pub fn run_plan(args: &PlanArgs) -> CliResult<()> {
    let mut targs = args.transpile.clone();
    if targs.memory_limit.is_none() && targs.strategy.is_none() {
        targs.strategy = Some(StrategyArg::StoreAll);
    }
    let t = pipeline::transpile(&targs, &pipeline::command_line())?;
    let m = t.memory.as_ref().ok_or_else(|| CliError::Usage("no memory plan was made".into()))?;
    let fname = &t.adjoint.function.name;
    match args.report_format {
        ReportFormat::Text => print!("{}", report_text(fname, m)),
        ReportFormat::Json => print!("{}", report_json(fname, m)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_limits_with_units() {
        assert_eq!(parse_bytes("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_bytes("2GB").unwrap(), 2_000_000_000);
        assert_eq!(parse_bytes("1.5 KiB").unwrap(), 1536);
        assert_eq!(parse_bytes("4096").unwrap(), 4096);
        assert!(parse_bytes("12 parsecs").is_err());
        assert!(parse_bytes("MiB").is_err());
    }
}
