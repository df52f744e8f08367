//! Checkpointed time loops at the IR level: the dot-product test (IR interpreter) on a
//! nonlinear Jacobi sweep under several periods, and the formulas `Adjoint::checkpointable`
//! gives a planner.

mod common;

use adjc_autodiff::{binomial_optimum, checkpoint_recompute_steps, AdOptions, Checkpointing, LoopId};
use adjc_ir::*;
use common::check::{check, check_with};
use common::interp::{run, Args, Opts, Value};
use common::kernels as k;
use std::collections::BTreeMap;

fn sizes(t: i64) -> [(&'static str, Value); 2] {
    [("N", Value::Int(7)), ("TSTEPS", Value::Int(t))]
}

#[test]
fn periodic_checkpointing_passes_the_dot_product_test() {
    for (t, every) in [(6, 1), (6, 2), (6, 4), (6, 5), (6, 9), (2, 3)] {
        let opts = AdOptions {
            checkpoints: [(LoopId(0), Checkpointing::Periodic { every })].into_iter().collect(),
            ..Default::default()
        };
        let ad = check_with(&k::jacobi_1d(true), &opts, &sizes(t), 0.5, 1.5).adjoint;
        let text = adjc_ir::print::print_function(&ad.function);
        assert!(text.contains("t_seg"), "{text}");
        // Per-iteration tapes are sized for one segment, snapshots for one per segment.
        let show = |e: &adjc_ir::Expr| adjc_ir::print::expr_str(&ad.function, e);
        let a = ad.tapes.iter().find(|x| x.name == "A_tape").expect("A is taped");
        assert_eq!(show(a.elems.as_ref().unwrap()), format!("min({every}, max(0, TSTEPS - 1)) * max(0, N - 2)"));
        let snap = ad.tapes.iter().find(|x| x.name == "A_ckpt").expect("A is in the state");
        let segments = match every {
            1 => "max(0, TSTEPS - 1) // 1".to_string(),
            k => format!("(max(0, TSTEPS - 1) + {}) // {k}", k - 1),
        };
        assert_eq!(show(snap.elems.as_ref().unwrap()), format!("{segments} * N"));
    }
}

#[test]
fn checkpointable_loops_come_with_their_formulas() {
    let ad = check(&k::jacobi_1d(true), &sizes(4));
    let [l] = ad.checkpointable.as_slice() else { panic!("{:?}", ad.checkpointable) };
    let show = |e: &adjc_ir::Expr| adjc_ir::print::expr_str(&ad.function, e);
    assert_eq!(l.id, LoopId(0));
    assert_eq!(show(&l.trips), "max(0, TSTEPS - 1)");
    assert_eq!(show(&l.state_bytes), "8 * N + 8 * N");
    // B[i] and A[i] are both saved before being overwritten, N - 2 each per iteration.
    assert_eq!(show(&l.step_tape_bytes), "8 * max(0, N - 2) + 8 * max(0, N - 2)");
    // 0.33333 * (l * c + sin(r) * c): 5 operations per element, two sweeps of N - 2.
    assert_eq!(show(&l.step_flops), "max(0, N - 2) * 5 + max(0, N - 2) * 5");
    // A linear sweep needs no tape at all: nothing to gain from checkpointing it.
    assert!(check(&k::jacobi_1d(false), &sizes(4)).checkpointable.is_empty());
}

#[test]
fn a_loop_that_does_not_exist_cannot_be_checkpointed() {
    let opts = AdOptions {
        checkpoints: [(LoopId(5), Checkpointing::Periodic { every: 2 })].into_iter().collect(),
        ..Default::default()
    };
    let err = adjc_autodiff::reverse(&k::jacobi_1d(true), &opts).unwrap_err();
    assert!(err.message.contains("there is no loop L5"), "{}", err.message);
}

fn binomial(c: u64) -> AdOptions {
    AdOptions {
        checkpoints: [(LoopId(0), Checkpointing::Binomial { snapshots: c })].into_iter().collect(),
        ..Default::default()
    }
}

#[test]
fn binomial_checkpointing_passes_the_dot_product_test() {
    for (t, c) in [(7, 1), (7, 2), (7, 3), (7, 6), (7, 7), (7, 20), (2, 1), (1, 1)] {
        let ad = check_with(&k::jacobi_1d(true), &binomial(c), &sizes(t), 0.5, 1.5).adjoint;
        let show = |e: &adjc_ir::Expr| adjc_ir::print::expr_str(&ad.function, e);
        // One step taped at a time; c snapshots, whatever TSTEPS.
        let a = ad.tapes.iter().find(|x| x.name == "A_tape").expect("A is taped");
        assert_eq!(show(a.elems.as_ref().unwrap()), "max(0, N - 2)");
        let snap = ad.tapes.iter().find(|x| x.name == "A_ckpt").expect("A is in the state");
        let want = if c == 1 { "N".to_string() } else { format!("{c} * N") };
        assert_eq!(show(snap.elems.as_ref().unwrap()), want);
    }
}

/// The adjoint with a counter of the untaped steps its reverse sweep runs (the body of the
/// loop noted "advance untaped"), as an extra in-out parameter `advanced`.
fn count_advances(ad: &adjc_autodiff::Adjoint) -> Function {
    let mut f = ad.function.clone();
    let n = f.add_var("advanced", Type::Scalar(Scalar::I64), VarRole::Param, Span::NONE);
    f.params.push(Param { var: n, intent: Intent::InOut, doc: String::new() });
    let mut found = 0;
    fn go(b: &mut Block, n: VarId, found: &mut usize) {
        for s in b.iter_mut() {
            let advance = s.note.as_ref().is_some_and(|n| n.any(|p| matches!(p, Note::AdvanceToStep { .. })));
            if let (true, StmtKind::Loop(l)) = (advance, &mut s.kind) {
                l.body.insert(0, Stmt::accumulate(Place::scalar(n), Expr::int(1), Span::NONE));
                *found += 1;
            }
            for c in s.blocks_mut() {
                go(c, n, found);
            }
        }
    }
    go(&mut f.body, n, &mut found);
    assert_eq!(found, 1, "{}", adjc_ir::print::print_function(&f));
    f
}

#[test]
fn binomial_reverse_sweep_advances_exactly_revolves_optimum() {
    let small = [1u64, 2, 3, 5, 8, 13, 20].into_iter().flat_map(|t| [1u64, 2, 3, 4, 25].map(|c| (t, c)));
    for (t, c) in small.chain([(1000, 8), (1000, 32)]) {
        {
            let ad = adjc_autodiff::reverse(&k::jacobi_1d(true), &binomial(c)).unwrap();
            let f = count_advances(&ad);
            let mut args: Args = BTreeMap::new();
            // TSTEPS - 1 steps: range(1, TSTEPS).
            args.insert("TSTEPS".into(), Value::Int(t as i64 + 1));
            args.insert("N".into(), Value::Int(5));
            for x in ["A", "A_b", "B", "B_b"] {
                args.insert(x.into(), Value::Array((0..5).map(|i| 0.1 * i as f64).collect()));
            }
            args.insert("advanced".into(), Value::Int(0));
            run(&f, &mut args, Opts::default()).unwrap();
            let Some(Value::Int(n)) = args.get("advanced") else { panic!("{args:?}") };
            let want = binomial_optimum(t, c);
            assert_eq!(*n as u64, want, "T = {t}, c = {c}");
            let cp = Checkpointing::Binomial { snapshots: c };
            assert_eq!(checkpoint_recompute_steps(t, &cp), t + want);
        }
    }
}

fn plan(loops: &[(u32, Checkpointing)]) -> AdOptions {
    AdOptions { checkpoints: loops.iter().map(|(k, c)| (LoopId(*k), c.clone())).collect(), ..Default::default() }
}

#[test]
fn a_scalar_carried_across_steps_is_part_of_the_state() {
    // `e` accumulates over the steps and is read after the loop.
    let every = |k| Checkpointing::Periodic { every: k };
    let snaps = |c| Checkpointing::Binomial { snapshots: c };
    for c in [every(1), every(2), every(4), snaps(1), snaps(2), snaps(5)] {
        let opts = plan(&[(0, c.clone())]);
        let fixed = [("N", Value::Int(4)), ("T", Value::Int(5))];
        let ad = check_with(&k::time_loop_scalar(), &opts, &fixed, 0.5, 1.5).adjoint;
        assert!(ad.tapes.iter().any(|t| t.name == "e_ckpt"), "{c:?}: {:?}", ad.tapes);
    }
}

/// `jacobi_1d(true)` inside an outer loop `for s in range(S)`: loop 0 is the outer, 1 the
/// inner time loop.
fn repeated_jacobi() -> Function {
    let mut f = k::jacobi_1d(true);
    let s = f.add_var("s", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
    let reps = f.add_var("S", Type::Scalar(Scalar::I64), VarRole::Param, Span::NONE);
    f.params.push(Param { var: reps, intent: Intent::In, doc: String::new() });
    let body = std::mem::take(&mut f.body);
    let outer = Loop {
        id: LoopId::NEW,
        var: s,
        start: Expr::int(0),
        stop: Expr::var(reps, Scalar::I64),
        step: Expr::int(1),
        body,
    };
    f.body = vec![Stmt::new(StmtKind::Loop(outer), Span::NONE)];
    adjc_ir::proc::ids::renumber(&mut f.body);
    f
}

#[test]
fn nested_checkpointed_loops_pass_the_dot_product_test() {
    let every = |k| Checkpointing::Periodic { every: k };
    let snaps = |c| Checkpointing::Binomial { snapshots: c };
    let fixed = [("N", Value::Int(6)), ("TSTEPS", Value::Int(5)), ("S", Value::Int(3))];
    let plans = [
        vec![(1, every(2))],
        vec![(1, snaps(2))],
        vec![(0, every(2)), (1, snaps(2))],
        vec![(0, snaps(2)), (1, every(3))],
        vec![(0, snaps(1)), (1, snaps(1))],
    ];
    for p in plans {
        let ad = check_with(&repeated_jacobi(), &plan(&p), &fixed, 0.5, 1.5).adjoint;
        let show = |e: &Expr| adjc_ir::print::expr_str(&ad.function, e);
        // The inner loop's snapshots: one set per outer iteration the reverse sweep keeps
        // (S of them when the outer loop is store-all, one segment or step otherwise).
        let inner = ad.tapes.iter().find(|t| t.name == "A_ckpt_1" || (p.len() == 1 && t.name == "A_ckpt"));
        let inner = inner.unwrap_or_else(|| panic!("{p:?}: {:?}", ad.tapes));
        let e = show(inner.elems.as_ref().unwrap());
        let ok = match p[0].1 {
            _ if p.len() == 1 => e.starts_with("max(0, S) * "),
            Checkpointing::Periodic { every } => e.starts_with(&format!("min({every}, max(0, S)) * ")),
            Checkpointing::Binomial { .. } => !e.contains("max(0, S)"),
        };
        assert!(ok, "{p:?}: {e}");
    }
}

#[test]
fn values_the_adjoint_of_earlier_code_needs_survive_the_re_runs() {
    // `v` is not loop state (each step assigns it before reading it), but the adjoint of
    // `ret = sum(v * v)` before the loop reads the value the loop overwrites: the re-runs
    // must not leave theirs. The loop starts at 1.
    let every = |k| Checkpointing::Periodic { every: k };
    let snaps = |c| Checkpointing::Binomial { snapshots: c };
    let fixed = [("N", Value::Int(4)), ("T", Value::Int(6))];
    let primal = k::time_loop_overwrites_a_temporary();
    for c in [every(1), every(2), every(4), snaps(1), snaps(2), snaps(5)] {
        let ad = check_with(&primal, &plan(&[(0, c.clone())]), &fixed, 0.5, 1.5).adjoint;
        let entry = ad.tapes.iter().find(|t| t.name == "v_entry").unwrap_or_else(|| panic!("{c:?}: {:?}", ad.tapes));
        assert_eq!(adjc_ir::print::expr_str(&ad.function, entry.elems.as_ref().unwrap()), "N", "{c:?}");
        assert!(!ad.tapes.iter().any(|t| t.name == "v_ckpt"), "{c:?}: v is not state");
    }
    // The planner counts the output `u` (the replay rewrites it), the local `v` (alive during
    // the replay) and the copy of `v` taken before the loop.
    let ad = check(&primal, &fixed);
    let [l] = ad.checkpointable.as_slice() else { panic!("{:?}", ad.checkpointable) };
    assert_eq!(adjc_ir::print::expr_str(&ad.function, &l.replay_bytes), "8 * N + 8 * N + 8 * N");
    assert_eq!(adjc_ir::print::expr_str(&ad.function, &l.state_bytes), "8 * N");
}
