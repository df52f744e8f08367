//! The reports of a transpilation, as text for people (and JSON for the memory plan):
//! the adjoint's tapes (`--report`) and its memory plan (`adjc plan`).

use std::path::Path;

use adjc_autodiff::plan::{self, CandidateKind};
use adjc_autodiff::Adjoint;

use crate::error::human;
use crate::memory::{strategy_name, MemoryPlan};

/// `--report`: one line per tape of the adjoint (name, element type, element count as a
/// formula of the sizes, what it saves and why), then the values recomputed instead.
pub fn tapes(source_file: &str, adjoint: &Adjoint) -> String {
    let f = &adjoint.function;
    let file = Path::new(source_file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut out = format!("tapes of {}:\n", f.name);
    if adjoint.tapes.is_empty() {
        out.push_str("  none: the reverse sweep needs no saved value\n");
    }
    let rows: Vec<[String; 4]> = adjoint
        .tapes
        .iter()
        .map(|tape| {
            let count = tape.elems_text(f);
            let elems = if count == "1" { "1 element".to_string() } else { format!("{count} elements") };
            let kind = match tape.kind {
                adjc_autodiff::TapeKind::Stack => " (stack)",
                _ => "",
            };
            let saves = if tape.line == 0 {
                format!("saves {}{kind}; {}", tape.what, tape.why)
            } else if tape.what.starts_with("the trip count of") {
                // Nothing is overwritten: the count is saved after each run of the loop.
                format!("saves {}{kind} ({file}:{}) after each run; {}", tape.what, tape.line, tape.why)
            } else {
                format!("saves {}{kind} before {file}:{} overwrites it; {}", tape.what, tape.line, tape.why)
            };
            [tape.name.clone(), tape.elem.to_string(), elems, saves]
        })
        .collect();
    let width = |k: usize| rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    for r in &rows {
        out.push_str(&format!("  {:w0$}  {:w1$}  {:w2$}  {}\n", r[0], r[1], r[2], r[3]));
    }
    for r in &adjoint.recomputed {
        out.push_str(&format!("  {} recomputed in the reverse sweep instead of taped ({file}:{})\n", r.name, r.line));
    }
    out.push_str(&data_loops(&file, adjoint));
    out
}

/// One line per `while` loop: what its reversal records per trip and per run (the tapes
/// above), or, with `--fixed-point`, that nothing is recorded per trip.
fn data_loops(file: &str, adjoint: &Adjoint) -> String {
    let mut out = String::new();
    for d in &adjoint.data_loops {
        let at = format!("{} ({file}:{})", d.id, d.line);
        if d.fixed_point {
            let once = if d.once.is_empty() { "nothing".to_string() } else { d.once.join(", ") };
            out.push_str(&format!(
                "  while loop {at}, --fixed-point: nothing per trip; the body's run at the converged state saves {once}\n"
            ));
            continue;
        }
        let bytes: i64 = d.per_trip.iter().map(|(_, b)| b).sum();
        let trip = if d.per_trip.is_empty() {
            "nothing per trip".to_string()
        } else {
            let names: Vec<String> = d.per_trip.iter().map(|(n, b)| format!("{n} {b}")).collect();
            format!("{bytes} bytes per trip ({})", names.join(", "))
        };
        let run = if d.per_run.is_empty() {
            String::new()
        } else {
            format!("; 8 bytes per run ({}: its trip count)", d.per_run.join(", "))
        };
        out.push_str(&format!("  while loop {at}: {trip}{run}\n"));
    }
    out
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

/// The memory plan as a table (`adjc plan`, `adjc transpile --report`).
pub fn memory_text(fname: &str, m: &MemoryPlan) -> String {
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

/// The memory plan as JSON (`adjc plan --report-format json`).
pub fn memory_json(fname: &str, m: &MemoryPlan) -> String {
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
