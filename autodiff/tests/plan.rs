//! The memory planner on synthetic models: the ILP's choices, its limits (infeasible limits,
//! store-all when everything fits), and a model with thousands of candidates solved within
//! the time limit.

mod common;

use adjc_autodiff::plan::{self, Candidate, CandidateKind, Model, Point, Settings, Strategy};
use adjc_autodiff::{reverse, AdOptions};
use adjc_ir::{Intent, Scalar, StmtKind};
use common::builder::*;
use common::check::check_adjoint;
use common::interp::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

fn temp(id: &str, bytes: u64, flops: f64) -> Candidate {
    Candidate {
        id: id.into(),
        kind: CandidateKind::Temporary,
        line: 1,
        bytes,
        formula: String::new(),
        recompute_flops: Some(flops),
        store_only: None,
        extra_bytes: 0,
        depends_on: Vec::new(),
    }
}

fn point(base: u64, freed: &[(usize, u64)]) -> Point {
    Point { label: String::new(), base, freed_by_recompute: freed.to_vec(), added_by_recompute: Vec::new() }
}

/// Three arrays held through one peak point: the limit forces recomputing the cheapest ones.
fn three() -> Model {
    Model {
        candidates: vec![temp("a", 100, 30.0), temp("b", 100, 1.0), temp("c", 100, 20.0)],
        points: vec![point(200, &[]), point(500, &[(0, 100), (1, 100), (2, 100)]), point(250, &[])],
        unplanned_bytes: 500,
    }
}

#[test]
fn the_ilp_recomputes_the_cheapest_candidates_that_fit() {
    let m = three();
    let s = Settings::default();
    let p = plan::solve(&m, Strategy::Ilp, Some(400), s).unwrap();
    assert_eq!(p.recompute, vec![false, true, false]);
    assert_eq!((p.peak, p.flops), (400, 1.0));
    let p = plan::solve(&m, Strategy::Ilp, Some(300), s).unwrap();
    assert_eq!(p.recompute, vec![false, true, true]);
    assert_eq!(p.flops, 21.0);
    // At or above store-all's need the plan is store-all.
    let p = plan::solve(&m, Strategy::Ilp, Some(500), s).unwrap();
    assert_eq!(p.recompute, vec![false; 3]);
    assert_eq!(p.status, "store-all fits");
    // Below what any plan reaches: the error gives the smallest feasible limit, and that
    // limit works.
    let e = plan::solve(&m, Strategy::Ilp, Some(150), s).unwrap_err();
    assert_eq!(e.smallest, 250);
    assert_eq!(plan::solve(&m, Strategy::Ilp, Some(250), s).unwrap().peak, 250);
}

#[test]
fn a_recomputed_candidate_keeps_its_inputs_stored() {
    let mut m = three();
    // c is recomputed from b: both cannot be recomputed.
    m.candidates[2].depends_on = vec![1];
    let p = plan::solve(&m, Strategy::Ilp, Some(300), Settings::default()).unwrap();
    assert_eq!(p.recompute, vec![true, true, false], "{p:?}");
    let (r, _) = (plan::solve(&m, Strategy::RecomputeAll, None, Settings::default()).unwrap().recompute, ());
    assert_eq!(r, vec![true, true, false]);
}

#[test]
fn an_array_kept_for_several_recomputations_is_counted_once() {
    let mut m = three();
    m.points[1].added_by_recompute = vec![(vec![0, 1, 2], 60)];
    let p = plan::solve(&m, Strategy::Ilp, Some(360), Settings::default()).unwrap();
    assert_eq!(p.recompute, vec![false, true, true]);
    assert_eq!(p.peak, 360);
}

#[test]
fn a_time_loop_is_checkpointed_when_its_tape_does_not_fit() {
    let t = 100u64;
    let opts = vec![
        plan::LoopOption {
            schedule: adjc_autodiff::Checkpointing::Periodic { every: 10 },
            bytes: 10 * 80 + 10 * 80,
            flops: adjc_autodiff::checkpoint_recompute_steps(t, &adjc_autodiff::Checkpointing::Periodic { every: 10 })
                as f64
                * 5.0,
        },
        plan::LoopOption {
            schedule: adjc_autodiff::Checkpointing::Binomial { snapshots: 4 },
            bytes: 4 * 80 + 80,
            flops: adjc_autodiff::checkpoint_recompute_steps(
                t,
                &adjc_autodiff::Checkpointing::Binomial { snapshots: 4 },
            ) as f64
                * 5.0,
        },
    ];
    let lp = Candidate {
        kind: CandidateKind::Loop(adjc_autodiff::LoopId(0), opts),
        recompute_flops: None,
        bytes: t * 80,
        ..temp("loop0", 0, 0.0)
    };
    let m = Model { candidates: vec![lp], points: vec![point(8000 + 100, &[])], unplanned_bytes: 8100 };
    let p = plan::solve(&m, Strategy::Ilp, Some(2000), Settings::default()).unwrap();
    assert_eq!(p.loops.get(&0), Some(&0), "periodic (90 steps) is cheaper than binomial: {p:?}");
    let p = plan::solve(&m, Strategy::Ilp, Some(1000), Settings::default()).unwrap();
    assert_eq!(p.loops.get(&0), Some(&1));
    assert_eq!(p.peak, 500);
}

/// 1,200 candidates over 400 timeline points, each point freed by a window of them.
fn big() -> Model {
    let n = 1200;
    let candidates: Vec<Candidate> = (0..n)
        .map(|k| temp(&format!("t{k}"), 1000 + (k as u64 * 7919) % 5000, 1.0 + ((k * 104729) % 997) as f64))
        .collect();
    let points = (0..400)
        .map(|p| {
            let freed: Vec<(usize, u64)> = (0..60).map(|j| (p * 3 + j) % n).map(|c| (c, candidates[c].bytes)).collect();
            point(1_000_000 + (p as u64 % 17) * 1000, &freed)
        })
        .collect();
    Model { candidates, points, unplanned_bytes: 1_100_000 }
}

#[test]
fn a_thousand_candidates_get_a_feasible_plan_within_the_time_limit() {
    let m = big();
    let limit = 900_000;
    let s = Settings { gap: 0.01, time_limit: Duration::from_secs(5) };
    let t0 = std::time::Instant::now();
    let p = plan::solve(&m, Strategy::Ilp, Some(limit), s).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    assert!(p.peak <= limit, "{} > {limit}", p.peak);
    assert_eq!(p.peak, plan::solve::peak(&m, &p.recompute, &p.loops));
    // The time limit bounds the whole search (greedy plan, then the ILP in the time left).
    // Not a speed test: the bound is loose enough for a loaded CI machine and still catches
    // a search that ignores the limit by far.
    assert!(secs < 5.0 * 4.0, "{secs} s ({})", p.status);
    assert!(p.recompute.iter().any(|r| *r) && !p.recompute.iter().all(|r| *r));
}

/// `t = np.exp(x); u = x * x; s = np.sin(t * u); ret = np.cos(s) * t`: `t` and `u` are
/// temporaries the reverse sweep reads.
fn temporaries() -> adjc_ir::Function {
    let mut b = B::new("temps");
    let nn = b.size("N");
    let x = b.param("x", array(Scalar::F64, vec![b.v(nn)]), Intent::In);
    let ret = b.ret("ret", array(Scalar::F64, vec![b.v(nn)]));
    let t = b.local("t", array(Scalar::F64, vec![b.v(nn)]));
    let u = b.local("u", array(Scalar::F64, vec![b.v(nn)]));
    let s = b.local("s", array(Scalar::F64, vec![b.v(nn)]));
    let i: Vec<_> = (0..4).map(|_| b.index("i")).collect();
    let ld = |b: &B, v, k: usize| b.ld(v, vec![b.v(i[k])]);
    let body = vec![
        alloc(t),
        map(vec![(i[0], int(0), b.v(nn))], vec![assign(at(t, vec![b.v(i[0])]), exp(ld(&b, x, 0)))]),
        alloc(u),
        map(vec![(i[1], int(0), b.v(nn))], vec![assign(at(u, vec![b.v(i[1])]), ld(&b, x, 1) * ld(&b, x, 1))]),
        alloc(s),
        map(vec![(i[2], int(0), b.v(nn))], vec![assign(at(s, vec![b.v(i[2])]), sin(ld(&b, t, 2) * ld(&b, u, 2)))]),
        map(vec![(i[3], int(0), b.v(nn))], vec![assign(at(ret, vec![b.v(i[3])]), cos(ld(&b, s, 3)) * ld(&b, t, 3))]),
        free(s),
        free(u),
        free(t),
    ];
    b.finish(body)
}

#[test]
fn recomputed_temporaries_give_the_same_gradient() {
    let f = temporaries();
    let sizes = BTreeMap::from([("N".to_string(), 6)]);
    let stored = reverse(&f, &AdOptions::default()).unwrap();
    let m = plan::build(&stored, &sizes).unwrap();
    let ids: Vec<&str> = m.candidates.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["t", "u", "s"]);
    // exp: 10 flops per element; x * x: 1.
    assert_eq!(m.candidates[0].recompute_flops, Some(60.0));
    assert_eq!(m.candidates[1].recompute_flops, Some(6.0));
    // s is computed from t and u: recomputing it needs them stored.
    assert_eq!(m.candidates[2].depends_on, vec![0, 1]);
    for set in [vec!["t"], vec!["u"], vec!["t", "u"], vec!["s"]] {
        // The one way a plan changes an adjoint: `plan::apply` on the adjoint built store-all.
        let ids: BTreeSet<String> = set.iter().map(|s| s.to_string()).collect();
        let mut adjoint = stored.clone();
        adjoint.function.body = plan::apply(&adjoint.function, &ids).unwrap();
        let out = check_adjoint(&f, adjoint, &[("N", Value::Int(6))], -1.0, 1.0);
        let rel = (out.fd - out.ad).abs() / out.fd.abs().max(1e-12);
        assert!(rel < 1e-6, "{set:?}: fd {} ad {}", out.fd, out.ad);
        let text = adjc_ir::print::print_function(&out.adjoint.function);
        for id in &set {
            assert!(text.contains(&format!("recomputed: `{id}`")), "{set:?}:\n{text}");
        }
        // The forward sweep frees each recomputed array after its last forward use.
        let fwd = match &out
            .adjoint
            .function
            .body
            .iter()
            .find(|s| matches!(&s.kind, StmtKind::Section { title, .. } if title == "forward sweep"))
            .unwrap()
            .kind
        {
            StmtKind::Section { body, .. } => body.clone(),
            _ => unreachable!(),
        };
        let freed: BTreeSet<String> = fwd
            .iter()
            .filter_map(|s| match s.kind {
                StmtKind::Free(v) => Some(out.adjoint.function.var(v).name.clone()),
                _ => None,
            })
            .collect();
        assert!(set.iter().all(|id| freed.contains(*id)), "{set:?}: {freed:?}");
    }
    // A dependency cannot be recomputed together with what is computed from it.
    let both: BTreeSet<String> = ["s", "t"].iter().map(|s| s.to_string()).collect();
    let e = plan::apply(&stored.function, &both).unwrap_err();
    assert!(matches!(&e, plan::PlanError::Internal(m) if m.contains("which must then be stored")), "{e}");
}
