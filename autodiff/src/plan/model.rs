//! The candidate model of an adjoint for concrete sizes: every forwarded value with its
//! bytes, recompute cost and dependencies, and the memory timeline of both sweeps with the
//! terms each decision adds or removes at each point.

use super::flops;
use super::sweeps::{placeable, temps, Sweeps};
use super::PlanError::{self, Internal, Unmodelled};
use crate::checkpoint_recompute_steps;
use crate::report::elem_bytes;
use crate::util::stmt_mentions;
use crate::{Adjoint, Checkpointing, TapeKind};
use adjc_ir::{eval::eval_int, Expr, Function, StmtKind, VarId};
use std::collections::BTreeMap;

/// What a candidate is.
#[derive(Clone, Debug, PartialEq)]
pub enum CandidateKind {
    /// A local array of the primal that the reverse sweep reads: store it for the whole
    /// call, or free it after its last forward use and recompute it before its reverse use.
    Temporary,
    /// A tape (store-only: its values are overwritten by the time the reverse sweep needs them).
    Tape,
    /// A time loop: store every iteration's tape, or checkpoint it with one of `options`.
    Loop(crate::LoopId, Vec<LoopOption>),
    /// The tape of a local array defined by a cheap map in a loop (`hu = h * u` in a time
    /// step): store it, or evaluate the map again in every reversed iteration
    /// ([`crate::AdOptions::loop_arrays`], the default without a plan). The name is the array's.
    LoopArray(String),
}

/// One checkpointing schedule of a loop candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopOption {
    pub schedule: Checkpointing,
    /// Memory of the schedule (snapshots plus one segment's tape), replacing the candidate's
    /// `bytes` (all iterations' tapes).
    pub bytes: u64,
    /// Forward iterations recomputed, times the cost of one.
    pub flops: f64,
}

/// A value the reverse sweep needs from the forward sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The id `AdOptions::recompute` takes (the array's name for a temporary).
    pub id: String,
    pub kind: CandidateKind,
    /// Source line of its definition (0: none).
    pub line: u32,
    /// Bytes when stored, at the planned sizes, and the formula they come from.
    pub bytes: u64,
    pub formula: String,
    /// Cost of recomputing it once; `None` when it can only be stored.
    pub recompute_flops: Option<f64>,
    /// Why it can only be stored.
    pub store_only: Option<String>,
    /// Memory recomputing it needs beyond its own array: the stored arrays its definition
    /// reads, kept alive until the recomputation.
    pub extra_bytes: u64,
    /// Candidates its recomputation reads: they must be stored for it to be recomputed.
    pub depends_on: Vec<usize>,
}

/// One point of the memory timeline: a top-level statement of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub label: String,
    /// Bytes held while it runs when everything is stored.
    pub base: u64,
    /// `(candidate, bytes)`: held here only when the candidate is stored.
    pub freed_by_recompute: Vec<(usize, u64)>,
    /// `(candidates, bytes)`: an array held here only because one of the candidates is
    /// recomputed later and reads it (held once, however many of them are recomputed).
    pub added_by_recompute: Vec<(Vec<usize>, u64)>,
}

/// Candidates and timeline; loop candidates change the memory of every point.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Model {
    pub candidates: Vec<Candidate>,
    pub points: Vec<Point>,
    /// Bytes of the adjoint without a plan, where every array lives for the whole call.
    pub unplanned_bytes: u64,
}

impl Model {
    /// Peak bytes when every candidate is stored.
    pub fn store_all_peak(&self) -> u64 {
        self.points.iter().map(|p| p.base).max().unwrap_or(0)
    }
}

/// The id of a temporary: its name, made unique by its variable number when shared.
pub(crate) fn temp_id(f: &Function, v: VarId) -> String {
    let name = &f.var(v).name;
    if f.vars.iter().filter(|w| &w.name == name).count() > 1 {
        format!("{name}#{}", v.0)
    } else {
        name.clone()
    }
}

fn array_bytes(f: &Function, v: VarId, env: &dyn Fn(VarId) -> Option<i64>) -> Result<(u64, String), PlanError> {
    let var = f.var(v);
    let elems = var.ty.dims().iter().fold(Expr::int(1), |a, d| a.mul(d.extent.clone()));
    let bytes = Expr::int(elem_bytes(var.ty.elem())).mul(elems);
    let n = eval_int(&bytes, env).ok_or_else(|| {
        Unmodelled(format!(
            "the size of `{}` ({}) needs a size --sizes does not give",
            var.name,
            adjc_ir::print::expr_str(f, &bytes)
        ))
    })?;
    Ok((n.max(0) as u64, adjc_ir::print::expr_str(f, &bytes)))
}

/// The model of `adj` (built store-all) for `sizes` (values of its integer parameters).
pub fn build(adj: &Adjoint, sizes: &BTreeMap<String, i64>) -> Result<Model, PlanError> {
    let f = &adj.function;
    let env = |v: VarId| if f.is_param(v) { sizes.get(&f.var(v).name).copied() } else { None };
    let sw = Sweeps::find(f).ok_or(Internal("the adjoint has no forward and reverse sweep sections".into()))?;
    let outside: Vec<_> = f
        .body
        .iter()
        .filter(|s| !matches!(s.kind, StmtKind::Section { .. } | StmtKind::Alloc(_) | StmtKind::Free(_)))
        .collect();
    let mut fixed = 0u64;
    let mut lives: Vec<(u64, usize, usize)> = Vec::new();
    for s in &f.body {
        let StmtKind::Alloc(v) = s.kind else { continue };
        let (bytes, _) = array_bytes(f, v, &env)?;
        let at = sw.mentions(v);
        match (at.first(), at.last()) {
            (Some(&a), Some(&b)) if placeable(f, v) && !outside.iter().any(|s| stmt_mentions(s, v)) => {
                lives.push((bytes, a, b))
            }
            (None, _) if placeable(f, v) => {}
            _ => fixed += bytes,
        }
    }
    let mut candidates = Vec::new();
    for t in &adj.tapes {
        let bytes = match (t.bytes(), t.kind) {
            (Some(b), _) => eval_int(&b, &env)
                .ok_or_else(|| Unmodelled(format!("the size of tape `{}` needs a size --sizes does not give", t.name)))?
                .max(0) as u64,
            (None, _) => {
                return Err(Unmodelled(format!(
                    "the tape `{}` has no size bound: its memory cannot be planned (a stack inside a loop whose \
                     trip count is only known at run time); bound each `while` loop with --max-trips LOOP=K \
                     (LOOP its line or its id in --emit ir)",
                    t.name
                )))
            }
        };
        if t.kind == TapeKind::Stack {
            // The runtime's stacks start at 4096 bytes and double (`adjc_tape_reserve`):
            // the capacity is what the allocation holds.
            let mut cap = 4096u64;
            while cap < bytes {
                cap = cap.saturating_mul(2);
            }
            fixed += if bytes == 0 { 0 } else { cap };
        }
        let formula = t.bytes().map(|b| adjc_ir::print::expr_str(f, &b)).unwrap_or_default();
        // The tape of a cheap map: recomputing it costs the map's flops for every element
        // the tape would hold (one per element and iteration), and frees the whole tape.
        if let Some(la) = adj.loop_recomputable.iter().find(|la| la.tape == Some(t.var)) {
            let elems = bytes / elem_bytes(t.elem).max(1) as u64;
            candidates.push(Candidate {
                id: t.name.clone(),
                kind: CandidateKind::LoopArray(la.name.clone()),
                line: t.line,
                bytes,
                formula,
                recompute_flops: Some(elems as f64 * la.flops_per_elem),
                store_only: None,
                extra_bytes: 0,
                depends_on: Vec::new(),
            });
            continue;
        }
        candidates.push(Candidate {
            id: t.name.clone(),
            kind: CandidateKind::Tape,
            line: t.line,
            bytes,
            formula,
            recompute_flops: None,
            store_only: Some("a tape: the values it saves are overwritten before the reverse sweep".into()),
            extra_bytes: 0,
            depends_on: Vec::new(),
        });
    }
    let mut points: Vec<Point> = (0..sw.points())
        .map(|p| {
            let s = sw.stmt(p);
            let sweep = if p < sw.fwd.len() { "forward" } else { "reverse" };
            Point {
                label: format!("{sweep} sweep, line {}", s.span.line),
                base: fixed + lives.iter().filter(|(_, a, b)| *a <= p && p <= *b).map(|l| l.0).sum::<u64>(),
                freed_by_recompute: Vec::new(),
                added_by_recompute: Vec::new(),
            }
        })
        .collect();
    // A recomputed loop array's tape is gone from every point (tapes live for the whole call).
    for (c, cand) in candidates.iter().enumerate() {
        if matches!(cand.kind, CandidateKind::LoopArray(_)) {
            points.iter_mut().for_each(|p| p.freed_by_recompute.push((c, cand.bytes)));
        }
    }
    let temps = temps(f, &sw);
    let first_temp = candidates.len();
    for t in &temps {
        let (bytes, formula) = array_bytes(f, t.var, &env)?;
        let flops = t.defs.iter().map(|&d| flops::stmt(&sw.fwd[d], &env)).sum::<f64>();
        candidates.push(Candidate {
            id: temp_id(f, t.var),
            kind: CandidateKind::Temporary,
            line: sw.fwd[t.defs.first().copied().unwrap_or(0)].span.line,
            bytes,
            formula,
            recompute_flops: if t.store_only.is_none() { Some(flops) } else { None },
            store_only: t.store_only.clone(),
            extra_bytes: 0,
            depends_on: Vec::new(),
        });
    }
    let mut extended: BTreeMap<(usize, VarId), (Vec<usize>, u64)> = BTreeMap::new();
    for (k, t) in temps.iter().enumerate() {
        let c = first_temp + k;
        if t.store_only.is_some() {
            continue;
        }
        for p in t.last_fwd + 1..t.first_rev {
            points[p].freed_by_recompute.push((c, candidates[c].bytes));
        }
        for d in &t.deps {
            if let Some(j) = temps.iter().position(|u| u.var == *d) {
                candidates[c].depends_on.push(first_temp + j);
            }
            // The arrays the definition reads must now live until the recomputation.
            let last = sw.mentions(*d).last().copied().unwrap_or(0);
            if last < t.first_rev {
                let (bytes, _) = array_bytes(f, *d, &env)?;
                candidates[c].extra_bytes += bytes;
                for p in last + 1..=t.first_rev {
                    extended.entry((p, *d)).or_insert_with(|| (Vec::new(), bytes)).0.push(c);
                }
            }
        }
    }
    for ((p, _), held) in extended {
        points[p].added_by_recompute.push(held);
    }
    for l in &adj.checkpointable {
        // The tapes of the loop arrays inside the loop are candidates of their own: the
        // loop's per-step tape leaves them out, so that recomputing them and checkpointing
        // the loop do not both count their bytes (with the loop checkpointed and an array
        // stored, the prediction is then high by that array's share of the replayed segment).
        let trips = eval_int(&l.trips, &env).unwrap_or(0).max(1) as u64;
        let inside: u64 = candidates
            .iter()
            .zip(&adj.tapes)
            .filter(|(c, _)| matches!(c.kind, CandidateKind::LoopArray(_)))
            .filter(|(_, t)| {
                adj.loop_recomputable
                    .iter()
                    .any(|la| la.tape == Some(t.var) && l.span.start <= la.span.start && la.span.end <= l.span.end)
            })
            .map(|(c, _)| c.bytes / trips)
            .sum();
        candidates.push(loop_candidate(f, l, &env, inside)?);
    }
    let unplanned_bytes = fixed + lives.iter().map(|l| l.0).sum::<u64>();
    Ok(Model { candidates, points, unplanned_bytes })
}

/// A checkpointable loop with a few schedules: periodic every ⌈√T⌉ iterations and binomial
/// with 2, 4, ... snapshots (while fewer than the trips).
fn loop_candidate(
    f: &Function,
    l: &crate::CheckpointableLoop,
    env: &dyn Fn(VarId) -> Option<i64>,
    loop_array_step_bytes: u64,
) -> Result<Candidate, PlanError> {
    let ev = |e: &Expr, what: &str| {
        eval_int(e, env).map(|v| v.max(0) as u64).ok_or_else(|| {
            Unmodelled(format!("the {what} of the loop at line {} needs a size --sizes does not give", l.span.line))
        })
    };
    let trips = ev(&l.trips, "trip count")?;
    let per_step = || -> Result<(u64, u64, f64, u64), PlanError> {
        Ok((
            ev(&l.state_bytes, "state size")?,
            ev(&l.step_tape_bytes, "tape")?.saturating_sub(loop_array_step_bytes),
            ev(&l.step_flops, "cost")? as f64,
            ev(&l.replay_bytes, "output size")?,
        ))
    };
    // A step whose tape or cost varies with the loop index (lu's triangular inner loops)
    // has no single per-step figure: the loop is then only stored, and the report says why.
    let (state, step_tape, step_flops, copies) = match per_step() {
        Ok(v) => v,
        Err(_) => {
            return Ok(Candidate {
                id: l.id.to_string(),
                kind: CandidateKind::Loop(l.id, Vec::new()),
                line: l.span.line,
                bytes: 0,
                formula: format!("{} iterations", adjc_ir::print::expr_str(f, &l.trips)),
                recompute_flops: None,
                store_only: Some(
                    "not checkpointed by the planner: its per-iteration tape or cost depends on the loop index \
                     (use --checkpoint to choose a schedule by hand)"
                        .into(),
                ),
                extra_bytes: 0,
                depends_on: Vec::new(),
            })
        }
    };
    let mut options = Vec::new();
    if trips > 1 {
        let k = (trips as f64).sqrt().ceil() as u64;
        options.push(LoopOption {
            schedule: Checkpointing::Periodic { every: k },
            bytes: trips.div_ceil(k) * state + k * step_tape + copies,
            flops: checkpoint_recompute_steps(trips, &Checkpointing::Periodic { every: k }) as f64 * step_flops,
        });
        let mut c = 1;
        while c < trips && c <= 64 {
            options.push(LoopOption {
                schedule: Checkpointing::Binomial { snapshots: c },
                // Revolve also keeps the step of each snapshot (`<t>_snap_at`, one i64 each).
                bytes: c * (state + 8) + step_tape + copies,
                flops: checkpoint_recompute_steps(trips, &Checkpointing::Binomial { snapshots: c }) as f64 * step_flops,
            });
            c *= 2;
        }
    }
    Ok(Candidate {
        id: l.id.to_string(),
        kind: CandidateKind::Loop(l.id, options),
        line: l.span.line,
        bytes: trips * step_tape,
        formula: format!("{} iterations × {} bytes", adjc_ir::print::expr_str(f, &l.trips), step_tape),
        recompute_flops: None,
        store_only: None,
        extra_bytes: 0,
        depends_on: Vec::new(),
    })
}
