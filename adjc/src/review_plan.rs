//! What the adjoint stores, for the review page (`adjc review`, issue 16 part 2): the memory
//! plan's candidates as table rows a reviewer can read without the planner's vocabulary, and
//! the memory over the two sweeps as an inline SVG.
//!
//! The rows are the plan's candidates (the same as `adjc plan` prints), each completed with
//! what the page's reader asks next: for a tape, which overwritten value it saves and which
//! adjoint statement reads it (the tape report's words); for a time loop, its checkpoint
//! schedule, the bytes of that schedule against those of every iteration's tape, and the
//! forward iterations it runs again; for a tape inside a checkpointed loop, that it holds one
//! segment at a time (its store-all bytes are what the loop's schedule replaces).

use std::collections::BTreeSet;

use adjc::{MemoryPlan, Strategy, Transpiled};
use adjc_autodiff::plan::{Candidate, CandidateKind};
use minijinja::{context, Value};

fn bytes(b: u64) -> String {
    adjc::human(b)
}

/// The plan's summary, its table and its timeline; `planned` is the transpilation that made
/// `m` (its primal gives the loops' extents, its adjoint the tapes' reasons).
pub fn plan_value(m: &MemoryPlan, planned: &Transpiled) -> Value {
    let sizes: Vec<String> = m.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
    // Source lines inside each time loop the plan checkpoints, with the loop's id.
    let checkpointed: Vec<(String, BTreeSet<u32>)> = m
        .model
        .candidates
        .iter()
        .enumerate()
        .filter(|(k, _)| m.plan.loops.contains_key(k))
        .map(|(_, c)| (c.id.clone(), loop_lines(planned.primal(), c.line)))
        .collect();
    let candidates: Vec<Value> =
        m.model.candidates.iter().enumerate().map(|(k, c)| row(m, planned, k, c, &checkpointed)).collect();
    let store_all = adjc_autodiff::plan::loads(&m.model, &vec![false; m.model.candidates.len()], &Default::default());
    let loads = adjc_autodiff::plan::loads(&m.model, &m.plan.recompute, &m.plan.loops);
    let labels: Vec<&str> = m.model.points.iter().map(|p| p.label.as_str()).collect();
    context! {
        sizes => sizes.join(", "),
        strategy => match m.strategy {
            Strategy::StoreAll => "store-all",
            Strategy::RecomputeAll => "recompute-all",
            Strategy::Ilp => "ILP",
        },
        limit => m.limit.map(bytes),
        peak => bytes(m.plan.peak),
        store_all_peak => bytes(m.plan.store_all_peak),
        flops => (m.plan.flops > 0.0).then(|| format!("{:.0}", m.plan.flops)),
        status => m.plan.status.clone(),
        candidates => candidates,
        // Nothing to draw when the adjoint holds nothing at any point (a linear stencil).
        svg => loads.iter().chain(&store_all).any(|&b| b > 0).then(|| timeline_svg(&labels, &loads, &store_all, m.limit)),
    }
}

/// One row of the table: the candidate `k` of the plan.
fn row(
    m: &MemoryPlan,
    planned: &Transpiled,
    k: usize,
    c: &Candidate,
    checkpointed: &[(String, BTreeSet<u32>)],
) -> Value {
    let tape = planned.adjoint.tapes.iter().find(|t| t.name == c.id);
    let inside = checkpointed.iter().find(|(id, lines)| *id != c.id && lines.contains(&c.line));
    let (kind, decision, held, flops, why) = match &c.kind {
        CandidateKind::Loop(_, opts) => {
            let chosen = m.plan.loops.get(&k).map(|&o| &opts[o]);
            let decision = chosen.map_or_else(
                || "store every iteration".to_string(),
                |o| format!("checkpoint {} ({})", o.schedule, schedule_words(&o.schedule)),
            );
            let held = chosen.map(|o| format!("{} (snapshots and one segment's tape)", bytes(o.bytes)));
            let why = "a time loop: its iterations' tapes, or snapshots of its state from which the reverse \
                       sweep runs segments of it again";
            ("time loop", decision, held, chosen.map(|o| format!("{:.0}", o.flops)), why.to_string())
        }
        _ => {
            let recomputed = m.plan.recompute.get(k).copied().unwrap_or(false);
            let kind = match c.kind {
                CandidateKind::Temporary => "array",
                CandidateKind::Tape => "tape",
                _ => "loop array",
            };
            let decision = match inside {
                Some((id, _)) if !recomputed => format!("store, one segment at a time ({id} is checkpointed)"),
                _ if recomputed => "recompute".to_string(),
                _ => "store".to_string(),
            };
            let why = match (tape, &c.store_only) {
                (Some(t), _) => format!("saves {} before line {} overwrites it; {}", t.what, t.line, t.why),
                (None, Some(s)) => s.clone(),
                (None, None) if recomputed => "recomputed from stored values before the reverse sweep reads it".into(),
                (None, None) => "the reverse sweep reads it".into(),
            };
            let flops = c.recompute_flops.filter(|_| recomputed).map(|f| format!("{f:.0}"));
            (kind, decision, None, flops, why)
        }
    };
    context! {
        id => c.id.clone(), kind => kind, line => (c.line > 0).then_some(c.line),
        formula => c.formula.clone(), bytes => bytes(c.bytes), held => held,
        decision => decision, why => why, flops => flops.unwrap_or_default(),
    }
}

/// `binomial:8` in words.
fn schedule_words(s: &adjc::Checkpointing) -> String {
    match s {
        adjc::Checkpointing::Periodic { every } => format!("a snapshot every {every} iterations"),
        adjc::Checkpointing::Binomial { snapshots } => format!("Revolve, at most {snapshots} snapshots"),
    }
}

/// The source lines of the statements inside the loop of `f` on source line `line`.
fn loop_lines(f: &adjc_ir::Function, line: u32) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    adjc_ir::walk_stmts(&f.body, &mut |s| {
        if let adjc_ir::StmtKind::Loop(l) = &s.kind {
            if s.span.line == line {
                adjc_ir::walk_stmts(&l.body, &mut |t| {
                    out.insert(t.span.line);
                });
            }
        }
    });
    out
}

/// The memory timeline as an inline SVG bar chart: one bar per point, forward sweep then
/// reverse sweep, under the outline of the same point when everything is stored; the limit
/// as a dashed line; each bar labelled with its source line below the axis.
fn timeline_svg(labels: &[&str], loads: &[i128], store_all: &[i128], limit: Option<u64>) -> String {
    let (w, h, left, bottom, top) = (900.0, 260.0, 110.0, 48.0, 16.0);
    let max = loads.iter().chain(store_all).copied().max().unwrap_or(0).max(limit.unwrap_or(0) as i128).max(1) as f64;
    let n = loads.len().max(1) as f64;
    let bar = (w - left - 10.0) / n;
    let y = |b: f64| top + (h - top - bottom) * (1.0 - b / max);
    let esc = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" \
         aria-label=\"memory over the two sweeps\">\n"
    );
    // Axis and ticks at 0, half and the top of the scale.
    svg.push_str(&format!(
        "<line x1=\"{left}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#888\"/>\n",
        h - bottom,
        w - 10.0
    ));
    let ticks: &[f64] = if max >= 2.0 { &[0.0, 0.5, 1.0] } else { &[0.0, 1.0] };
    for &frac in ticks {
        let v = max * frac;
        svg.push_str(&format!(
            "<text x=\"{}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
            left - 6.0,
            y(v) + 4.0,
            short_bytes(v as u64)
        ));
    }
    let every = (loads.len() / 24).max(1);
    for (k, (load, label)) in loads.iter().zip(labels).enumerate() {
        let x = left + bar * k as f64;
        let width = (bar - 1.0).max(1.0);
        if let Some(&all) = store_all.get(k).filter(|&&a| a > *load) {
            let ay = y(all as f64);
            svg.push_str(&format!(
                "<rect x=\"{x:.1}\" y=\"{ay:.1}\" width=\"{width:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#999\" \
                 stroke-dasharray=\"3 2\"><title>{}: {} if everything were stored</title></rect>\n",
                (h - bottom - ay).max(0.0),
                esc(label),
                bytes(all as u64)
            ));
        }
        let top_y = y(*load as f64);
        let fill = if label.starts_with("reverse") { "#d9822b" } else { "#2a5db0" };
        svg.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"{top_y:.1}\" width=\"{width:.1}\" height=\"{:.1}\" fill=\"{fill}\"><title>{}: {}</title></rect>\n",
            (h - bottom - top_y).max(0.0),
            esc(label),
            bytes(*load as u64)
        ));
        if k % every == 0 {
            let line = label.rsplit(' ').next().unwrap_or("");
            svg.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#444\">{}</text>\n",
                x + width / 2.0,
                h - bottom + 13.0,
                esc(line)
            ));
        }
    }
    if let Some(limit) = limit {
        let ly = y(limit as f64);
        svg.push_str(&format!(
            "<line x1=\"{left}\" y1=\"{ly:.1}\" x2=\"{}\" y2=\"{ly:.1}\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>\n",
            w - 10.0
        ));
        svg.push_str(&format!(
            "<text x=\"{}\" y=\"{:.1}\" font-size=\"11\" fill=\"#c00\" text-anchor=\"end\">limit {}</text>\n",
            w - 12.0,
            ly - 3.0,
            bytes(limit)
        ));
    }
    svg.push_str(&format!(
        "<text x=\"{left}\" y=\"{}\" font-size=\"11\">source line of each statement; forward sweep (blue), reverse \
         sweep (orange); dashed outline: the same point when everything is stored</text>\n",
        h - 8.0
    ));
    svg.push_str("</svg>");
    svg
}

/// Bytes for an axis label: `17.2 KiB`, `616 B`.
fn short_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut v = b as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_labels_are_short() {
        assert_eq!(short_bytes(616), "616 B");
        assert_eq!(short_bytes(17600), "17.2 KiB");
        assert_eq!(short_bytes(3 << 20), "3.0 MiB");
    }

    #[test]
    fn the_timeline_outlines_store_all_and_draws_the_limit() {
        let svg =
            timeline_svg(&["forward sweep, line 9", "reverse sweep, line 9"], &[100, 200], &[100, 900], Some(400));
        // One outline (only where store-all holds more), two bars, the limit, the lines below.
        assert_eq!(svg.matches("stroke-dasharray=\"3 2\"").count(), 1);
        assert_eq!(svg.matches("<rect").count(), 3);
        assert!(svg.contains("limit 400 bytes"), "{svg}");
        assert_eq!(svg.matches(">9</text>").count(), 2, "{svg}");
    }
}
