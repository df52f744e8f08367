//! Adjoint stencils in gather form (`autodiff/src/gather.rs`): the gather and its peeled
//! boundaries are written for the stencil examples, and their gradients hold at the small
//! sizes where the interior is empty or one or two points wide and the boundary strips
//! overlap or are clipped (finite differences, NumPy forward, ASan/UBSan, serial and OpenMP).

mod common;
use common::*;

/// Kernels, their flags, and sizes from degenerate to a few interior points.
const CASES: &[(&str, &[&str], &[&str])] = &[
    (
        "examples/python/stencil_offsets.py",
        &[],
        &["a_n0=1,T=1", "a_n0=3,T=2", "a_n0=4,T=1", "a_n0=5,T=2", "a_n0=6,T=2", "a_n0=9,T=1"],
    ),
    (
        "examples/python/stencil_skew_2d.py",
        &[],
        &[
            "A_n0=3,A_n1=2,X_n0=1,X_n1=1,X_n2=2",
            "A_n0=4,A_n1=3,X_n0=2,X_n1=2,X_n2=3",
            "A_n0=5,A_n1=4,X_n0=2,X_n1=3,X_n2=4",
            "A_n0=6,A_n1=5,X_n0=3,X_n1=2,X_n2=5",
        ],
    ),
    (
        "examples/python/jacobi_1d.py",
        &[],
        &["A_n0=1,TSTEPS=2", "A_n0=3,TSTEPS=3", "A_n0=4,TSTEPS=3", "A_n0=5,TSTEPS=2"],
    ),
    (
        "examples/python/jacobi_2d.py",
        &[],
        &["A_n0=2,A_n1=3,TSTEPS=3", "A_n0=3,A_n1=4,TSTEPS=3", "A_n0=5,A_n1=4,TSTEPS=2"],
    ),
    ("examples/python/heat_3d.py", &[], &["A_n0=3,A_n1=4,A_n2=5,TSTEPS=2", "A_n0=4,A_n1=3,A_n2=3,TSTEPS=2"]),
    ("examples/python/fdtd_2d.py", &[], &["ex_n0=1,ex_n1=2,TMAX=2,_fict__n0=2", "ex_n0=2,ex_n1=3,TMAX=2,_fict__n0=2"]),
    (
        "examples/python/hdiff.py",
        &[],
        &["I=1,J=1,K=1,in_field_n0=5,in_field_n1=5", "I=2,J=1,K=2,in_field_n0=6,in_field_n1=5"],
    ),
];

#[test]
fn stencil_adjoints_are_gathers() {
    for (file, flags, _) in CASES {
        let dir = scratch(&format!("gather-{}", file.rsplit('/').next().unwrap().replace('.', "-")));
        let mut args = vec!["transpile", file, "-o", dir.to_str().unwrap()];
        args.extend(flags.iter());
        let out = adjc(&args);
        assert!(out.status.success(), "{}", text(&out));
        let stem = file.rsplit('/').next().unwrap().split('.').next().unwrap();
        let c = std::fs::read_to_string(dir.join(format!("{stem}.c"))).unwrap();
        assert!(c.contains("gather form of this statement's adjoint"), "{file}: no gather form");
        assert!(c.contains("boundary of the gather"), "{file}: no peeled boundary");
    }
}

#[test]
fn gathers_hold_at_small_sizes() {
    let jobs: Vec<(&str, &[&str], &str, &str)> = CASES
        .iter()
        .flat_map(|(f, fl, sizes)| {
            sizes
                .iter()
                .flat_map(move |s| [(*f, *fl, *s, "serial"), (*f, *fl, *s, "--openmp"), (*f, *fl, *s, "--sanitize")])
        })
        .collect();
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((file, flags, sizes, mode)) = jobs.get(k) else { break };
                let mut args = vec!["check", file, "--sizes", sizes];
                args.extend(flags.iter());
                if *mode != "serial" {
                    args.push(mode);
                }
                let out = adjc(&args);
                let t = text(&out);
                if !out.status.success() || !t.contains("check passed") {
                    failures.lock().unwrap().push(format!("adjc {}\n{t}", args.join(" ")));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
