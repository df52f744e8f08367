//! Choosing the decisions: store-all, recompute-all, or the ILP that minimises recompute
//! cost subject to peak ≤ limit at every timeline point (good_lp with microlp, or HiGHS
//! with the `highs` feature), with a MIP gap, a time limit and a greedy fallback.

use super::model::{CandidateKind, Model};
use good_lp::{constraint, variable, Expression, ProblemVariables, Solution, SolverModel, Variable};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// How to decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    StoreAll,
    RecomputeAll,
    Ilp,
}

/// The decisions and what they cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Per candidate: recomputed (temporaries).
    pub recompute: Vec<bool>,
    /// Loop candidate → index of its chosen checkpointing option.
    pub loops: BTreeMap<usize, usize>,
    /// Predicted peak bytes of the plan, and of store-all.
    pub peak: u64,
    pub store_all_peak: u64,
    /// Total recompute cost (flops).
    pub flops: f64,
    /// `optimal`, `gap limit`, `time limit`, `greedy (...)`, `store-all fits`, ...
    pub status: String,
    pub seconds: f64,
}

/// Why no plan meets the limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Infeasible {
    pub limit: u64,
    /// The smallest peak any plan reaches (the smallest feasible limit).
    pub smallest: u64,
}

/// Solver settings: relative MIP gap and time limit.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub gap: f32,
    pub time_limit: Duration,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { gap: 0.01, time_limit: Duration::from_secs(5) }
    }
}

/// Bytes held at each timeline point under the given decisions.
pub fn loads(m: &Model, recompute: &[bool], loops: &BTreeMap<usize, usize>) -> Vec<i128> {
    let loop_delta: i128 = loops
        .iter()
        .map(|(&c, &o)| match &m.candidates[c].kind {
            CandidateKind::Loop(_, opts) => opts[o].bytes as i128 - m.candidates[c].bytes as i128,
            _ => 0,
        })
        .sum();
    m.points
        .iter()
        .map(|p| {
            let mut b = p.base as i128 + loop_delta;
            b -= p.freed_by_recompute.iter().filter(|(c, _)| recompute[*c]).map(|(_, x)| *x as i128).sum::<i128>();
            b += p
                .added_by_recompute
                .iter()
                .filter(|(cs, _)| cs.iter().any(|c| recompute[*c]))
                .map(|(_, x)| *x as i128)
                .sum::<i128>();
            b.max(0)
        })
        .collect()
}

/// Peak bytes under the given decisions.
pub fn peak(m: &Model, recompute: &[bool], loops: &BTreeMap<usize, usize>) -> u64 {
    loads(m, recompute, loops).into_iter().max().unwrap_or(0) as u64
}

fn flops(m: &Model, recompute: &[bool], loops: &BTreeMap<usize, usize>) -> f64 {
    let r: f64 = m.candidates.iter().zip(recompute).filter(|(_, r)| **r).filter_map(|(c, _)| c.recompute_flops).sum();
    let l: f64 = loops
        .iter()
        .map(|(&c, &o)| match &m.candidates[c].kind {
            CandidateKind::Loop(_, opts) => opts[o].flops,
            _ => 0.0,
        })
        .sum();
    // An empty sum is -0.0; the report should say 0.
    r + l + 0.0
}

fn finish(m: &Model, recompute: Vec<bool>, loops: BTreeMap<usize, usize>, status: &str, t0: Instant) -> Plan {
    Plan {
        peak: peak(m, &recompute, &loops),
        store_all_peak: m.store_all_peak(),
        flops: flops(m, &recompute, &loops),
        recompute,
        loops,
        status: status.to_string(),
        seconds: t0.elapsed().as_secs_f64(),
    }
}

/// Every recomputable candidate whose dependencies are stored (dependencies first win), and
/// the smallest schedule of every loop.
fn recompute_all(m: &Model) -> (Vec<bool>, BTreeMap<usize, usize>) {
    let mut r = vec![false; m.candidates.len()];
    for (k, c) in m.candidates.iter().enumerate() {
        if c.recompute_flops.is_some() && !c.depends_on.iter().any(|d| r[*d]) {
            r[k] = true;
        }
    }
    let mut loops = BTreeMap::new();
    for (k, c) in m.candidates.iter().enumerate() {
        if let CandidateKind::Loop(_, opts) = &c.kind {
            if let Some((o, _)) = opts.iter().enumerate().min_by_key(|(_, o)| o.bytes) {
                loops.insert(k, o);
            }
        }
    }
    (r, loops)
}

pub fn solve(m: &Model, strategy: Strategy, limit: Option<u64>, s: Settings) -> Result<Plan, Infeasible> {
    let t0 = Instant::now();
    let none = vec![false; m.candidates.len()];
    let plan = match strategy {
        Strategy::StoreAll => finish(m, none, BTreeMap::new(), "store-all", t0),
        Strategy::RecomputeAll => {
            let (r, l) = recompute_all(m);
            finish(m, r, l, "recompute-all", t0)
        }
        Strategy::Ilp => match limit {
            None => finish(m, none, BTreeMap::new(), "store-all (no limit)", t0),
            Some(limit) if m.store_all_peak() <= limit => finish(m, none, BTreeMap::new(), "store-all fits", t0),
            Some(limit) => {
                // The greedy plan first (fast), then the ILP in the time that is left: the
                // whole search stays within the time limit and always has a plan to return.
                let quick = greedy(m, limit);
                let left = s.time_limit.saturating_sub(t0.elapsed());
                let exact = if left.is_zero() {
                    Err("no time left after the greedy plan".to_string())
                } else {
                    ilp(m, Goal::MinFlops(limit), Settings { time_limit: left, ..s })
                };
                match (exact, quick) {
                    (Ok((r, l, status)), quick)
                        if quick.as_ref().is_none_or(|(qr, ql)| flops(m, &r, &l) <= flops(m, qr, ql)) =>
                    {
                        finish(m, r, l, &status, t0)
                    }
                    (Ok(_), Some((r, l))) => finish(m, r, l, "greedy (better than the solver's best)", t0),
                    (Err(why), Some((r, l))) => finish(m, r, l, &format!("greedy ({why})"), t0),
                    (_, None) => finish(m, none, BTreeMap::new(), "infeasible", t0),
                }
            }
        },
    };
    match limit {
        Some(limit) if plan.peak > limit => Err(Infeasible { limit, smallest: smallest_peak(m, s) }),
        _ => Ok(plan),
    }
}

/// The smallest peak any plan reaches: the ILP minimising the peak, or recompute-all.
pub fn smallest_peak(m: &Model, s: Settings) -> u64 {
    let (r, l) = recompute_all(m);
    let fallback = peak(m, &r, &l);
    match ilp(m, Goal::MinPeak, s) {
        Ok((r, l, _)) => peak(m, &r, &l).min(fallback),
        Err(_) => fallback,
    }
}

enum Goal {
    MinFlops(u64),
    MinPeak,
}

type Decisions = (Vec<bool>, BTreeMap<usize, usize>, String);

/// Bytes are in KiB in the model so that coefficients stay moderate for the solver.
const UNIT: f64 = 1024.0;

fn ilp(m: &Model, goal: Goal, s: Settings) -> Result<Decisions, String> {
    let mut vars = ProblemVariables::new();
    let x: Vec<Option<Variable>> =
        m.candidates.iter().map(|c| c.recompute_flops.map(|_| vars.add(variable().binary()))).collect();
    let y: Vec<Vec<Variable>> = m
        .candidates
        .iter()
        .map(|c| match &c.kind {
            CandidateKind::Loop(_, opts) => opts.iter().map(|_| vars.add(variable().binary())).collect(),
            _ => Vec::new(),
        })
        .collect();
    let max_flops = m
        .candidates
        .iter()
        .filter_map(|c| c.recompute_flops)
        .chain(m.candidates.iter().flat_map(|c| match &c.kind {
            CandidateKind::Loop(_, o) => o.iter().map(|o| o.flops).collect(),
            _ => Vec::new(),
        }))
        .fold(1.0f64, f64::max);
    let mut cost = Expression::from(0.0);
    for (k, c) in m.candidates.iter().enumerate() {
        if let (Some(v), Some(f)) = (x[k], c.recompute_flops) {
            cost += (f / max_flops) * v;
        }
        if let CandidateKind::Loop(_, opts) = &c.kind {
            for (o, v) in opts.iter().zip(&y[k]) {
                cost += (o.flops / max_flops) * *v;
            }
        }
    }
    // An array kept alive for the recomputation of any of several candidates is held once:
    // h ≥ x_c for each of them (h = max when it matters for a constraint).
    let mut held: BTreeMap<Vec<usize>, Expression> = BTreeMap::new();
    let mut links = Vec::new();
    for p in &m.points {
        for (cs, _) in &p.added_by_recompute {
            if held.contains_key(cs) {
                continue;
            }
            let e = match cs.as_slice() {
                [c] => x[*c].map(Expression::from).unwrap_or_else(|| Expression::from(0.0)),
                _ => {
                    let h = vars.add(variable().min(0.0).max(1.0));
                    for c in cs {
                        if let Some(v) = x[*c] {
                            links.push(constraint!(h >= v));
                        }
                    }
                    Expression::from(h)
                }
            };
            held.insert(cs.clone(), e);
        }
    }
    let peak_var = vars.add(variable().min(0.0));
    let objective = match goal {
        Goal::MinFlops(_) => cost,
        Goal::MinPeak => Expression::from(peak_var) + 1e-6 * cost,
    };
    let mut problem = vars.minimise(objective).using(good_lp::default_solver);
    problem = tune(problem, s)?;
    for (k, c) in m.candidates.iter().enumerate() {
        for d in &c.depends_on {
            if let (Some(a), Some(b)) = (x[k], x[*d]) {
                problem.add_constraint(constraint!(a + b <= 1.0));
            }
        }
        if y[k].len() > 1 {
            let sum: Expression = y[k].iter().copied().sum();
            problem.add_constraint(constraint!(sum <= 1.0));
        }
    }
    let loop_terms = || {
        let mut e = Expression::from(0.0);
        for (k, c) in m.candidates.iter().enumerate() {
            if let CandidateKind::Loop(_, opts) = &c.kind {
                for (o, v) in opts.iter().zip(&y[k]) {
                    e += ((o.bytes as f64 - c.bytes as f64) / UNIT) * *v;
                }
            }
        }
        e
    };
    // Points with the same decision terms differ only in their base: keep the largest.
    type Terms = (Vec<(usize, u64)>, Vec<(Vec<usize>, u64)>);
    let mut distinct: BTreeMap<Terms, u64> = BTreeMap::new();
    for p in &m.points {
        let e = distinct.entry((p.freed_by_recompute.clone(), p.added_by_recompute.clone())).or_insert(0);
        *e = (*e).max(p.base);
    }
    for ((freed, added), base) in distinct {
        let mut e = Expression::from(base as f64 / UNIT) + loop_terms();
        for (c, b) in &freed {
            if let Some(v) = x[*c] {
                e -= (*b as f64 / UNIT) * v;
            }
        }
        for (cs, b) in &added {
            e += (*b as f64 / UNIT) * held[cs].clone();
        }
        match goal {
            Goal::MinFlops(limit) => problem.add_constraint(constraint!(e <= limit as f64 / UNIT)),
            Goal::MinPeak => problem.add_constraint(constraint!(e <= peak_var)),
        };
    }
    for l in links {
        problem.add_constraint(l);
    }
    let sol = problem.solve().map_err(|e| format!("solver: {e}"))?;
    let status = match sol.status() {
        good_lp::solvers::SolutionStatus::Optimal => "optimal",
        good_lp::solvers::SolutionStatus::GapLimit => "within the MIP gap",
        good_lp::solvers::SolutionStatus::TimeLimit => "time limit (best plan found)",
    };
    let r = x.iter().map(|v| v.is_some_and(|v| sol.value(v) > 0.5)).collect();
    let mut loops = BTreeMap::new();
    for (k, vs) in y.iter().enumerate() {
        if let Some(o) = vs.iter().position(|v| sol.value(*v) > 0.5) {
            loops.insert(k, o);
        }
    }
    Ok((r, loops, status.to_string()))
}

#[cfg(not(feature = "highs"))]
fn tune(
    p: good_lp::solvers::microlp::MicroLpProblem,
    s: Settings,
) -> Result<good_lp::solvers::microlp::MicroLpProblem, String> {
    use good_lp::{WithMipGap, WithTimeLimit};
    p.with_time_limit(s.time_limit.as_secs_f64()).with_mip_gap(s.gap).map_err(|e| e.to_string())
}

#[cfg(feature = "highs")]
fn tune(
    p: good_lp::solvers::highs::HighsProblem,
    s: Settings,
) -> Result<good_lp::solvers::highs::HighsProblem, String> {
    use good_lp::{WithMipGap, WithTimeLimit};
    p.with_time_limit(s.time_limit.as_secs_f64()).with_mip_gap(s.gap).map_err(|e| e.to_string())
}

/// Recomputes, one at a time, the candidate that removes the most bytes over the limit
/// (summed over the timeline) per flop, until the plan fits; `None` when nothing helps.
fn greedy(m: &Model, limit: u64) -> Option<(Vec<bool>, BTreeMap<usize, usize>)> {
    let n = m.candidates.len();
    // Where each candidate's recomputation frees memory, and which shared holds it joins.
    let mut freed: Vec<Vec<(usize, i128)>> = vec![Vec::new(); n];
    let mut holds: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (p, pt) in m.points.iter().enumerate() {
        for (c, b) in &pt.freed_by_recompute {
            freed[*c].push((p, *b as i128));
        }
        for (h, (cs, _)) in pt.added_by_recompute.iter().enumerate() {
            for c in cs {
                holds[*c].push((p, h));
            }
        }
    }
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, c) in m.candidates.iter().enumerate() {
        for d in &c.depends_on {
            dependents[*d].push(k);
        }
    }
    let mut r = vec![false; n];
    let mut loops: BTreeMap<usize, usize> = BTreeMap::new();
    let over = |load: i128| (load - limit as i128).max(0);
    let mut delta: Vec<i128> = vec![0; m.points.len()];
    let mut touched: Vec<usize> = Vec::new();
    loop {
        let load = loads(m, &r, &loops);
        if load.iter().all(|b| *b <= limit as i128) {
            return Some((r, loops));
        }
        let mut best: Option<(f64, usize, Option<usize>)> = None;
        let mut consider = |gain: i128, cost: f64, c: usize, o: Option<usize>| {
            if gain > 0 {
                let score = gain as f64 / (cost + 1.0);
                if best.is_none_or(|b| score > b.0) {
                    best = Some((score, c, o));
                }
            }
        };
        for (k, c) in m.candidates.iter().enumerate() {
            match (&c.kind, c.recompute_flops) {
                (_, Some(f))
                    if !r[k] && !c.depends_on.iter().any(|d| r[*d]) && !dependents[k].iter().any(|d| r[*d]) =>
                {
                    for (p, b) in &freed[k] {
                        touched.push(*p);
                        delta[*p] -= b;
                    }
                    for (p, h) in &holds[k] {
                        let (cs, b) = &m.points[*p].added_by_recompute[*h];
                        if !cs.iter().any(|c| r[*c]) {
                            touched.push(*p);
                            delta[*p] += *b as i128;
                        }
                    }
                    touched.sort_unstable();
                    touched.dedup();
                    let gain = touched.iter().map(|p| over(load[*p]) - over(load[*p] + delta[*p])).sum();
                    for p in touched.drain(..) {
                        delta[p] = 0;
                    }
                    consider(gain, f, k, None);
                }
                (CandidateKind::Loop(_, opts), _) => {
                    let now = loops.get(&k).map(|o| opts[*o].bytes).unwrap_or(c.bytes) as i128;
                    for (o, opt) in opts.iter().enumerate() {
                        let d = opt.bytes as i128 - now;
                        let gain = load.iter().map(|b| over(*b) - over(b + d)).sum();
                        consider(gain, opt.flops, k, Some(o));
                    }
                }
                _ => {}
            }
        }
        match best? {
            (_, c, None) => r[c] = true,
            (_, c, Some(o)) => {
                loops.insert(c, o);
            }
        }
    }
}
