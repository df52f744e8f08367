//! Memory plans end to end: the planner's decisions on the DaCe AD motivating example,
//! gradients under every strategy and several limits, and the adjoint's measured peak
//! (the runtime's count of every allocation) against the plan's prediction and the limit.

mod common;

use common::{adjc, text};

/// `--sizes ...`, `--max-trips ...` and `--fixed-point ...` of an example's `adjc check:`
/// line (plans need only the sizes, and a bound on each `while` loop's trips or its
/// reversal as a fixed point, which tapes nothing per trip).
fn sizes_of(path: &str) -> Vec<String> {
    let ex = common::examples("examples/python", &["py"], "#").into_iter().find(|e| e.path == path).unwrap();
    let mut out = Vec::new();
    for (k, f) in ex.check_flags.iter().enumerate() {
        if (f == "--sizes" || f == "--max-trips" || f == "--fixed-point") && k + 1 < ex.check_flags.len() {
            out.push(f.clone());
            out.push(ex.check_flags[k + 1].clone());
        }
    }
    out
}

fn plan(path: &str, extra: &[&str]) -> Result<serde_json::Value, String> {
    let sizes = sizes_of(path);
    let mut args = vec!["plan", path, "--report-format", "json"];
    args.extend(sizes.iter().map(|s| s.as_str()));
    args.extend(extra);
    let out = adjc(&args);
    if !out.status.success() {
        return Err(text(&out));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("{e}: {}", text(&out)))
}

fn recomputed(p: &serde_json::Value) -> Vec<String> {
    p["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["decision"] == "recompute")
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// Runs `adjc check` with the example's flags plus `extra`; the measured peak.
fn check(path: &str, extra: &[&str]) -> Result<u64, String> {
    let ex = common::examples("examples/python", &["py"], "#").into_iter().find(|e| e.path == path).unwrap();
    common::check_peak(&ex, extra)
}

const DACE: &str = "examples/python/dace_motivating.py";

#[test]
fn dace_motivating_example_recomputes_the_cheapest_array() {
    // N = 64: 512 bytes per array; a, b, c, s, u, v and their six adjoints.
    let store_all = plan(DACE, &["--strategy", "store-all"]).unwrap();
    assert_eq!(store_all["store_all_peak_bytes"], 6144);
    assert!(recomputed(&store_all).is_empty());
    let roomy = plan(DACE, &["--memory-limit", "6144"]).unwrap();
    assert!(recomputed(&roomy).is_empty(), "{roomy}");
    assert_eq!(roomy["solver_status"], "store-all fits");
    // One array short: b (one multiplication per element) rather than a or c.
    let one = plan(DACE, &["--memory-limit", "5632"]).unwrap();
    assert_eq!(recomputed(&one), vec!["b"], "{one}");
    assert_eq!(one["predicted_peak_bytes"], 5632);
    assert_eq!(one["recompute_flops"], 64.0);
    // Two short: then a (exp and sin) rather than c (exp, log and two more operations).
    let two = plan(DACE, &["--memory-limit", "5KiB"]).unwrap();
    assert_eq!(recomputed(&two), vec!["a", "b"], "{two}");
    let err = plan(DACE, &["--memory-limit", "4000"]).unwrap_err();
    assert!(err.contains("the smallest feasible limit is 4608 bytes (4.5 KiB)"), "{err}");
}

#[test]
fn the_generated_adjoint_recomputes_under_a_comment_and_refuses_larger_sizes() {
    let dir = common::scratch("dace-plan");
    let d = dir.to_str().unwrap();
    let out = adjc(&["transpile", DACE, "-o", d, "--sizes", "N=64", "--memory-limit", "5632"]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("dace_motivating.c")).unwrap();
    assert!(c.contains("/* recomputed: `b` (line 15) is freed after its last forward use"), "{c}");
    assert!(!c.contains("recomputed: `a`"));
    assert!(c.contains("if (N > 64) {\n        return ADJC_ERR_PLAN;"), "{c}");
    // The guard in action: a driver calling with N = 65 gets ADJC_ERR_PLAN and nothing written.
    let main = r#"#include "dace_motivating.h"
#include <stdio.h>
int main(void)
{
    double x[65] = {0}, xb[65] = {0}, y[65] = {0}, yb[65] = {0}, o[65] = {0}, ob[65] = {0};
    int small = dace_motivating_b(64, x, xb, y, yb, o, ob);
    int large = dace_motivating_b(65, x, xb, y, yb, o, ob);
    printf("%d %d %d\n", small, large, ADJC_ERR_PLAN);
    return 0;
}
"#;
    std::fs::write(dir.join("main.c"), main).unwrap();
    let cc = std::process::Command::new("cc")
        .current_dir(&dir)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I.", "main.c", "dace_motivating.c", "-o", "main", "-lm"])
        .output()
        .unwrap();
    assert!(cc.status.success(), "{}", text(&cc));
    let run = std::process::Command::new(dir.join("main")).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&run.stdout), "0 3 3\n");
}

/// Examples with forwarded arrays (several recomputable), tapes, or both; none with stack
/// tapes, whose capacity grows by doubling beyond the values they hold.
const SUBSET: &[&str] = &[
    "examples/python/dace_motivating.py",
    "examples/python/elementwise.py",
    "examples/python/mlp.py",
    "examples/python/hdiff.py",
    "examples/python/reductions.py",
    "examples/python/tuple_return.py",
    "examples/python/k2mm.py",
    "examples/python/gramschmidt.py",
];

#[test]
fn gradients_hold_and_the_measured_peak_is_the_predicted_one_under_every_plan() {
    let mut failures = Vec::new();
    for &path in SUBSET {
        let base = plan(path, &["--strategy", "store-all"]).unwrap();
        let store_all = base["store_all_peak_bytes"].as_u64().unwrap();
        // Without a plan every array lives for the whole call: the runtime counts exactly
        // the tapes and work arrays the adjoint allocates.
        match check(path, &[]) {
            Ok(peak) if peak == base["unplanned_bytes"].as_u64().unwrap() => {}
            other => failures.push(format!("{path} without a plan: {other:?} vs {}", base["unplanned_bytes"])),
        }
        let mut runs: Vec<Vec<String>> =
            vec![vec!["--strategy".into(), "store-all".into()], vec!["--strategy".into(), "recompute-all".into()]];
        for frac in [0.75, 0.5] {
            let limit = (store_all as f64 * frac) as u64;
            let limit = match plan(path, &["--memory-limit", &limit.to_string()]) {
                Ok(_) => limit,
                Err(e) => {
                    // Below every plan: the error names the smallest feasible limit, which works.
                    let smallest = e
                        .split("smallest feasible limit is ")
                        .nth(1)
                        .and_then(|s| s.split_whitespace().next())
                        .and_then(|n| n.parse::<u64>().ok());
                    match smallest {
                        Some(s) if s > limit && s <= store_all => s,
                        _ => {
                            failures.push(format!("{path} at {limit}: {e}"));
                            continue;
                        }
                    }
                }
            };
            runs.push(vec!["--memory-limit".into(), limit.to_string()]);
        }
        for run in runs {
            let extra: Vec<&str> = run.iter().map(|s| s.as_str()).collect();
            let predicted = plan(path, &extra).unwrap()["predicted_peak_bytes"].as_u64().unwrap();
            match check(path, &extra) {
                Ok(peak) if peak == predicted => {
                    if let Some(limit) = run.get(1).filter(|_| run[0] == "--memory-limit") {
                        let limit: u64 = limit.parse().unwrap();
                        if peak > limit {
                            failures.push(format!("{path} {run:?}: peak {peak} over the limit"));
                        }
                    }
                }
                Ok(peak) => failures.push(format!("{path} {run:?}: measured {peak}, predicted {predicted}")),
                Err(e) => failures.push(e),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_example_is_planned_in_under_a_second() {
    for ex in common::examples("examples/python", &["py"], "#") {
        let full = plan(&ex.path, &["--strategy", "store-all"]).unwrap();
        let half = full["store_all_peak_bytes"].as_u64().unwrap() / 2;
        let p = match plan(&ex.path, &["--memory-limit", &half.to_string()]) {
            Ok(p) => p,
            // Infeasible at half: the error comes from the same solver; time the smallest limit.
            Err(e) if e.contains("smallest feasible limit") => continue,
            Err(e) => panic!("{}: {e}", ex.path),
        };
        let secs = p["solver_seconds"].as_f64().unwrap();
        assert!(secs < 1.0, "{}: {secs} s", ex.path);
        assert!(p["predicted_peak_bytes"].as_u64().unwrap() <= half, "{}: {p}", ex.path);
    }
}

/// Time loops whose steps are nonlinear tape every step under store-all; under a limit the
/// planner checkpoints them (periodic or binomial schedules), the gradient still passes the
/// check, and the runtime's measured peak stays within the prediction and the limit.
#[test]
fn time_loops_are_checkpointed_under_a_limit() {
    let mut failures = Vec::new();
    for path in ["examples/python/reaction_diffusion.py", "examples/python/cavity_flow.py"] {
        let base = plan(path, &["--strategy", "store-all"]).unwrap();
        let store_all = base["store_all_peak_bytes"].as_u64().unwrap();
        for frac in [0.5, 0.25] {
            let mut limit = (store_all as f64 * frac) as u64;
            // The smallest feasible limit an error names is the model's; an adjoint rebuilt
            // around a schedule (with loop arrays recomputed) can need a little more, which
            // the next error names: at most a few rounds.
            let mut p = None;
            for _round in 0..3 {
                match plan(path, &["--memory-limit", &limit.to_string()]) {
                    Ok(ok) => {
                        p = Some(ok);
                        break;
                    }
                    Err(e) => {
                        let smallest = e
                            .split("smallest feasible limit is ")
                            .nth(1)
                            .and_then(|s| s.split_whitespace().next())
                            .and_then(|n| n.parse::<u64>().ok())
                            .unwrap_or_else(|| panic!("{path}: {e}"));
                        assert!(smallest > limit, "{path}: {e}");
                        limit = smallest;
                    }
                }
            }
            let p = p.unwrap_or_else(|| panic!("{path}: no plan at {limit}"));
            let predicted = p["predicted_peak_bytes"].as_u64().unwrap();
            let decision: Vec<String> = p["candidates"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["kind"] == "loop")
                .map(|c| c["decision"].as_str().unwrap().to_string())
                .collect();
            if !decision.iter().any(|d| d.starts_with("checkpoint ")) {
                failures.push(format!("{path} at {limit}: no loop checkpointed: {decision:?}"));
                continue;
            }
            match check(path, &["--memory-limit", &limit.to_string()]) {
                // Output copies of a checkpointed loop's state are counted conservatively.
                Ok(peak) if peak <= predicted && predicted <= limit => {}
                other => failures.push(format!("{path} at {limit}: {other:?}, predicted {predicted}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

const SHALLOW_WATER: &str = "examples/python/shallow_water.py";

/// The flux arrays of shallow_water (`hu = h * u`, `fu = 0.5 * u**2 + g * h`) are
/// recomputed without a plan; a plan sees their tapes as `loop array` candidates (store, or
/// recompute at the map's flops) and recomputes the cheaper one first when memory is short.
#[test]
fn loop_arrays_are_planned_as_a_tape_or_a_recomputation() {
    // check sizes h_n0 = 24, T = 5: each flux tape is 5 * 24 * 8 = 960 bytes.
    let store_all = plan(SHALLOW_WATER, &["--strategy", "store-all"]).unwrap();
    let cands = store_all["candidates"].as_array().unwrap();
    let find = |id: &str| cands.iter().find(|c| c["id"] == id).unwrap_or_else(|| panic!("{id}: {store_all}"));
    for (id, flops) in [("hu_tape", 120.0), ("fu_tape", 1560.0)] {
        let c = find(id);
        assert_eq!(c["kind"], "loop array", "{c}");
        assert_eq!(c["bytes"], 960, "{c}");
        assert_eq!(c["recompute_flops"], flops, "{c}");
    }
    assert!(recomputed(&store_all).is_empty());
    let peak_all = store_all["store_all_peak_bytes"].as_u64().unwrap();
    // Without a plan both are recomputed: the measured peak is store-all's minus both tapes.
    assert_eq!(check(SHALLOW_WATER, &[]).unwrap(), peak_all - 2 * 960);
    // One tape short: `hu` (one multiplication per element) rather than `fu`.
    let limit = (peak_all - 960).to_string();
    let one = plan(SHALLOW_WATER, &["--memory-limit", &limit]).unwrap();
    assert_eq!(recomputed(&one), vec!["hu_tape"], "{one}");
    let predicted = one["predicted_peak_bytes"].as_u64().unwrap();
    assert_eq!(predicted, peak_all - 960);
    assert_eq!(check(SHALLOW_WATER, &["--memory-limit", &limit]).unwrap(), predicted);
    // store-all tapes both, and the gradient still holds.
    assert_eq!(check(SHALLOW_WATER, &["--strategy", "store-all"]).unwrap(), peak_all);
}
