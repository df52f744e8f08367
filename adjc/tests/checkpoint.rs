//! Checkpointed time loops (`--checkpoint LOOP=every:K|binomial:C`): the gradient equals
//! store-all's to rounding for every time-loop example, several periods (1, 2, 3, the trip
//! count, more than it, periods that do not divide it) and snapshot counts (1, 2, 3, the
//! trip count), serial and with OpenMP (each check compiles with -Wall -Wextra -Werror; half
//! of that matrix by default, all of it with `ADJC_LONG_TESTS=1`); the
//! generated code writes each body once per role whatever the trip count; tapes shrink to
//! one segment (periodic) or one step (binomial).

mod common;

use common::{adjc, scratch, split_flags, text};

/// Time-loop examples, the sizes they run at and their trip count.
const CASES: &[(&str, &str, i64)] = &[
    ("examples/python/jacobi_1d.py", "--sizes A_n0=20,TSTEPS=8", 7),
    ("examples/python/jacobi_2d.py", "--sizes A_n0=7,A_n1=7,TSTEPS=8", 7),
    ("examples/python/heat_3d.py", "--sizes A_n0=5,A_n1=5,A_n2=5,TSTEPS=6", 5),
    ("examples/python/fdtd_2d.py", "--sizes ex_n0=6,ex_n1=7,TMAX=7,_fict__n0=7", 7),
    ("examples/python/seidel_2d.py", "--sizes N=6,A_n0=6,A_n1=6,TSTEPS=8", 7),
    ("examples/python/reaction_diffusion.py", "--sizes u_n0=24,TSTEPS=7", 7),
    (
        "examples/python/cavity_flow.py",
        "--sizes nx=6,ny=6,nt=5,nit=2 --init dt=const(0.01) --init dx=const(0.2) --init dy=const(0.2) --init rho=const(1.0) --init nu=const(0.1)",
        5,
    ),
    ("examples/fortran/jacobi_1d.f90", "--sizes n=20,tsteps=7", 7),
    ("examples/fortran/jacobi_2d.f90", "--sizes n=8,tsteps=7", 7),
    ("examples/fortran/fdtd_2d.f90", "--sizes tmax=7,nx=6,ny=7", 7),
    ("examples/fortran/seidel_2d.f90", "--sizes n=8,tsteps=7", 7),
];

/// The adjoint side `<J^T w, v>` of every dot-product line of a passing check.
fn adjoint_values(path: &str, flags: &str, extra: &[String]) -> Result<Vec<f64>, String> {
    let mut args: Vec<String> = vec!["check".into(), path.into()];
    args.extend(split_flags(flags));
    args.extend(extra.iter().cloned());
    let refs: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let out = adjc(&refs);
    let t = text(&out);
    if !out.status.success() || !t.contains("check passed") {
        return Err(format!("adjc {}\n{t}", args.join(" ")));
    }
    let vals: Vec<f64> = t
        .lines()
        .filter_map(|l| l.split("(adjoint) =").nth(1))
        .filter_map(|r| r.split_whitespace().next())
        .map(|v| v.parse().map_err(|e| format!("{v}: {e}")))
        .collect::<Result<_, _>>()?;
    if vals.is_empty() {
        return Err(format!("no gradient was checked:\n{t}"));
    }
    Ok(vals)
}

fn same_to_rounding(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1e-300))
}

#[test]
fn checkpointing_gives_the_store_all_gradient() {
    // (case, schedule, openmp): periods 1, 2, 3 (not dividing 5 or 7), T, more than T;
    // binomial with 1, 2, 3 and T snapshots; OpenMP once each. The whole matrix (121 checks)
    // with ADJC_LONG_TESTS=1; otherwise a fixed half of it, alternating between neighbouring
    // cases, so that every schedule still runs on five or six of the eleven examples and
    // every example on five or six schedules.
    let long = std::env::var_os("ADJC_LONG_TESTS").is_some();
    let jobs: Vec<(usize, String, bool)> = (0..CASES.len())
        .flat_map(|c| {
            let t = CASES[c].2;
            let mut v: Vec<(usize, String, bool)> = [1, 2, 3, t, t + 4]
                .iter()
                .map(|k| (c, format!("every:{k}"), false))
                .chain([1, 2, 3, t].iter().map(|k| (c, format!("binomial:{k}"), false)))
                .collect();
            v.push((c, "every:3".into(), true));
            v.push((c, "binomial:2".into(), true));
            v.into_iter().enumerate().filter(move |(j, _)| long || (j + c) % 2 == 0).map(|(_, job)| job)
        })
        .collect();
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let reference: Vec<Result<Vec<f64>, String>> = CASES.iter().map(|(p, f, _)| adjoint_values(p, f, &[])).collect();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((c, how, omp)) = jobs.get(n) else { break };
                let (c, omp) = (*c, *omp);
                let (path, flags, _) = CASES[c];
                let mut extra = vec!["--checkpoint".to_string(), format!("L0={how}")];
                if omp {
                    extra.push("--openmp".into());
                }
                let got = adjoint_values(path, flags, &extra);
                let r = match (&reference[c], got) {
                    (Ok(want), Ok(got)) if same_to_rounding(want, &got) => Ok(()),
                    (Ok(want), Ok(got)) => Err(format!("{path} {how}: {got:?} != store-all {want:?}")),
                    (Err(e), _) => Err(e.clone()),
                    (_, Err(e)) => Err(e),
                };
                if let Err(e) = r {
                    failures.lock().unwrap().push(e);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{} failure(s):\n\n{}", failures.len(), failures.join("\n\n"));
}

fn transpile(path: &str, extra: &[&str], dir: &str) -> (String, String) {
    let out_dir = scratch(dir);
    let o = out_dir.to_string_lossy().into_owned();
    let mut args = vec!["transpile", path, "--report", "-o", o.as_str()];
    args.extend(extra);
    let out = adjc(&args);
    assert!(out.status.success(), "{}", text(&out));
    let stem = std::path::Path::new(path).file_stem().unwrap().to_string_lossy().into_owned();
    (std::fs::read_to_string(out_dir.join(format!("{stem}.c"))).unwrap(), text(&out))
}

#[test]
fn checkpointed_code_writes_each_body_once_per_role_and_tapes_one_segment() {
    let path = "examples/python/reaction_diffusion.py";
    let (plain, plain_report) = transpile(path, &[], "ckpt_plain");
    let (ck, report) = transpile(path, &["--checkpoint", "9=every:4"], "ckpt_every4");
    let line10 = "/* reaction_diffusion.py:10 ";
    // The statement appears in the forward function, the untaped forward sweep, the taped
    // segment and the reversed segment: once per role, never unrolled (transpile does not
    // know the trip count).
    assert_eq!(ck.matches(line10).count(), 4, "{ck}");
    assert!(plain.contains(line10));
    assert_eq!(ck.matches("reversed segment by segment").count(), 1, "{ck}");
    // Store-all tapes grow with TSTEPS; checkpointed per-step tapes hold one segment of 4
    // iterations, and only the snapshots (one per segment) depend on TSTEPS.
    let tape_lines = |r: &str| -> Vec<String> {
        r.lines().filter(|l| l.contains("_tape ") || l.contains("_ckpt ")).map(|l| l.to_string()).collect()
    };
    let plain_tapes = tape_lines(&plain_report);
    assert!(!plain_tapes.is_empty() && plain_tapes.iter().all(|l| l.contains("max(0, TSTEPS) *")), "{plain_report}");
    let ck_tapes = tape_lines(&report);
    for l in &ck_tapes {
        if l.contains("_tape ") {
            assert!(l.contains("at most min(4, max(0, TSTEPS)) * max(0, u_n0 - 2) elements"), "{l}");
        } else {
            assert!(l.contains("(max(0, TSTEPS) + 3) // 4 * u_n0 elements"), "{l}");
        }
    }
    assert_eq!(ck_tapes.iter().filter(|l| l.contains("_ckpt ")).count(), 2, "{report}");

    // Binomial: the untaped step also runs in the reverse sweep's advances (one more copy);
    // no tape or snapshot depends on TSTEPS.
    let (bin, report) = transpile(path, &["--checkpoint", "9=binomial:5"], "ckpt_binomial5");
    assert_eq!(bin.matches(line10).count(), 5, "{bin}");
    assert_eq!(bin.matches("on Revolve's schedule */").count(), 1, "{bin}");
    let tapes = tape_lines(&report);
    assert_eq!(tapes.len(), 4, "{report}");
    for l in &tapes {
        assert!(!l.contains("TSTEPS"), "{l}");
        assert!(
            l.contains(if l.contains("_ckpt ") { "5 * u_n0 elements" } else { "max(0, u_n0 - 2) elements" }),
            "{l}"
        );
    }
}

#[test]
fn bad_checkpoint_requests_are_errors() {
    let path = "examples/python/reaction_diffusion.py";
    let cases: &[(&str, &str)] = &[
        ("10=every:2", "no sequential loop starts on line 10"),
        ("L3=every:2", "there is no loop L3"),
        ("9=every:0", "at least 1"),
        ("9=sometimes:2", "expected LOOP=every:K"),
    ];
    for (flag, want) in cases {
        let out = adjc(&["transpile", path, "--checkpoint", flag, "-o", &scratch("ckpt_bad").to_string_lossy()]);
        let t = text(&out);
        assert!(!out.status.success() && t.contains(want), "--checkpoint {flag}: {t}");
    }
}

/// cavity_flow's pressure relaxation (line 19, inlined from a helper) runs inside the time
/// loop (line 36): checkpointing either, or both with any mix of schedules, gives the
/// store-all gradient.
#[test]
fn nested_checkpointed_loops_give_the_store_all_gradient() {
    let path = "examples/python/cavity_flow.py";
    let flags = "--sizes nx=6,ny=6,nt=4,nit=3 --init dt=const(0.01) --init dx=const(0.2) --init dy=const(0.2) --init rho=const(1.0) --init nu=const(0.1)";
    let want = adjoint_values(path, flags, &[]).unwrap();
    let plans: &[&[&str]] = &[
        &["19=every:2"],
        &["19=binomial:2"],
        &["36=every:3", "19=binomial:2"],
        &["36=binomial:2", "19=every:2"],
        &["36=binomial:2", "19=binomial:1", "--openmp"],
    ];
    for plan in plans {
        let mut extra = Vec::new();
        for p in *plan {
            if !p.starts_with("--") {
                extra.push("--checkpoint".to_string());
            }
            extra.push(p.to_string());
        }
        let got = adjoint_values(path, flags, &extra).unwrap();
        assert!(same_to_rounding(&want, &got), "{plan:?}: {got:?} != store-all {want:?}");
    }
}

/// vadv's forward sweep (line 31, starting at 1) overwrites temporaries (`cs`, `bcol`,
/// `divided`, ...) whose values from the loop before it (line 19) that loop's adjoint reads:
/// checkpointed, the re-runs must not leave their own values there. Loops checkpointed alone
/// and together, periodic and binomial, give the store-all gradient.
#[test]
fn checkpointed_loops_keep_the_values_earlier_adjoints_need() {
    let path = "examples/python/vadv.py";
    let flags = "--sizes I=3,J=4,K=8,u_stage_n2=8,wcon_n2=9,u_pos_n2=8,utens_n2=8";
    let want = adjoint_values(path, flags, &[]).unwrap();
    let plans: &[&[&str]] = &[
        &["31=every:2"],
        &["31=every:4"],
        &["31=binomial:1"],
        &["31=binomial:3"],
        &["19=every:1"],
        &["62=binomial:2"],
        &["31=binomial:2", "62=every:3"],
        &["19=binomial:1", "31=every:3", "46=every:1", "62=binomial:1", "--openmp"],
    ];
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let n = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(plan) = plans.get(n) else { break };
                let mut extra = Vec::new();
                for p in plan.iter() {
                    if !p.starts_with("--") {
                        extra.push("--checkpoint".to_string());
                    }
                    extra.push(p.to_string());
                }
                let r = match adjoint_values(path, flags, &extra) {
                    Ok(got) if same_to_rounding(&want, &got) => continue,
                    Ok(got) => format!("{plan:?}: {got:?} != store-all {want:?}"),
                    Err(e) => e,
                };
                failures.lock().unwrap().push(r);
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{} failure(s):\n\n{}", failures.len(), failures.join("\n\n"));
}
