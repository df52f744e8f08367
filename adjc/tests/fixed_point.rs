//! `--fixed-point LOOP` (issue 15): the adjoint of a convergence loop by Christianson's
//! two-phase method (`autodiff/src/fixed_point.rs`). The examples `fixed_point.py` and
//! `jacobi_fixed_point.f90` carry the flag on their check lines (e2e, fortran_e2e); these
//! tests pin that the gradient is the exact reversal's, that the memory does not grow with
//! the trips, that a loop that does not converge is an error, and the refusals.

mod common;

use common::{adjc, scratch, text};

/// The adjoint dot product `<J^T w, v>` of each `d/dX` line of `adjc check`.
fn adjoint_values(t: &str) -> Vec<f64> {
    t.lines()
        .filter(|l| l.trim_start().starts_with("d/d"))
        .filter_map(|l| l.split("(adjoint) =").nth(1)?.split_whitespace().next()?.parse().ok())
        .collect()
}

/// The runtime peak of the adjoint's allocations that `adjc check` reports.
fn peak(t: &str) -> u64 {
    t.split("adjoint peak memory: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no peak in\n{t}"))
}

fn run(args: &[&str]) -> (bool, String) {
    let out = adjc(args);
    (out.status.success(), text(&out))
}

fn check_src(src: &str, name: &str, flags: &[&str]) -> (bool, String) {
    let dir = scratch(name);
    let file = dir.join(format!("{name}.py"));
    std::fs::write(&file, src).unwrap();
    let out_dir = dir.join("out");
    let mut args = vec!["check", file.to_str().unwrap(), "-o", out_dir.to_str().unwrap()];
    args.extend_from_slice(flags);
    let r = run(&args);
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// Newton per grid point (`J = 0` at the root) and a contraction with array state: the
/// two-phase adjoint gives the gradient of the exact reversal of the trips taken (to the
/// tolerances of the loops), serial and with OpenMP.
#[test]
fn fixed_point_gradient_equals_the_exact_reversal() {
    let cases: [(&str, &[&str], &str); 2] = [
        ("examples/python/newton.py", &["--sizes", "N=40"], "L1"),
        ("examples/python/fixed_point.py", &["--sizes", "N=30"], "14"),
    ];
    for (file, sizes, lp) in cases {
        for omp in [false, true] {
            let dir = scratch(&format!("fp_{}_{omp}", lp));
            let d = dir.to_str().unwrap();
            let mut exact: Vec<&str> = vec!["check", file, "-o", d];
            exact.extend_from_slice(sizes);
            if omp {
                exact.push("--openmp");
            }
            let mut fixed = exact.clone();
            fixed.extend_from_slice(&["--fixed-point", lp]);
            let (ok, te) = run(&exact);
            assert!(ok, "{te}");
            let (ok, tf) = run(&fixed);
            assert!(ok && tf.contains("check passed"), "{tf}");
            let (ae, af) = (adjoint_values(&te), adjoint_values(&tf));
            assert!(!ae.is_empty() && ae.len() == af.len(), "{te}\n{tf}");
            for (a, b) in ae.iter().zip(&af) {
                assert!((a - b).abs() <= 1e-10 * a.abs().max(1.0), "{file}: exact {a} vs fixed point {b}");
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

/// The same contraction run to two tolerances (about 10 and 45 trips): with
/// `--fixed-point` the adjoint's peak memory is the same for both (nothing is taped per
/// trip); the exact reversal's grows with the trips.
#[test]
fn memory_does_not_depend_on_the_trip_count() {
    let src = |tol: &str| {
        format!(
            "import numpy as np\n\n\ndef k(W: 'float64[N, N]', b: 'float64[N]'):\n    x = np.zeros_like(b)\n    err = 1.0\n    \
             while err > {tol}:\n        xn = np.tanh(0.5 * (W @ x) / b.shape[0] + b)\n        err = np.max(np.abs(xn - x))\n        \
             x[:] = xn\n    return x\n"
        )
    };
    let peaks = |flags: &[&str]| -> Vec<u64> {
        ["1e-4", "1e-14"]
            .iter()
            .map(|tol| {
                let mut f = vec!["--sizes", "N=64"];
                f.extend_from_slice(flags);
                let (ok, t) = check_src(&src(tol), "fp_trips", &f);
                // The loose tolerance: the fixed point's gradient is not the truncated
                // iteration's, so only the peak is compared there.
                assert!(ok || (*tol == "1e-4" && t.contains("adjoint peak memory")), "{t}");
                peak(&t)
            })
            .collect()
    };
    let fixed = peaks(&["--fixed-point", "7"]);
    assert_eq!(fixed[0], fixed[1], "peak with --fixed-point depends on the trips: {fixed:?}");
    let exact = peaks(&[]);
    assert!(exact[1] > exact[0], "the exact reversal's peak should grow with the trips: {exact:?}");
    assert!(fixed[1] < exact[1], "{fixed:?} vs {exact:?}");
}

/// An adjoint iteration that runs out of passes returns ADJC_ERR_CONVERGE (never a
/// truncated sum as a gradient).
#[test]
fn no_convergence_is_an_error() {
    let dir = scratch("fp_noconv");
    let (ok, t) = run(&[
        "check",
        "examples/python/fixed_point.py",
        "--sizes",
        "N=24",
        "--fixed-point",
        "14:max=2",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert!(!ok, "{t}");
    assert!(t.contains("returned 4 (ADJC_ERR_CONVERGE"), "{t}");
    let out =
        adjc(&["transpile", "examples/python/fixed_point.py", "--fixed-point", "14", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("fixed_point.c")).unwrap();
    assert!(c.contains("goto not_converged;") && c.contains("return ADJC_ERR_CONVERGE;"), "{c}");
    let h = std::fs::read_to_string(dir.join("fixed_point.h")).unwrap();
    assert!(h.contains("Returns ADJC_ERR_CONVERGE when a --fixed-point adjoint iteration"), "{h}");
    // Boundary values carried in the iterate and never written: eigenvalue 1 there, no
    // contraction; the adjoint says so instead of returning a partial sum.
    let bnd = "import numpy as np\n\n\ndef bnd(b: 'float64[N]', u0: 'float64[N]'):\n    u = u0.copy()\n    un = u0.copy()\n    \
               err = 1.0\n    while err > 1e-13:\n        un[1:-1] = 0.25 * (u[:-2] + u[2:]) + b[1:-1]\n        \
               err = np.max(np.abs(un[1:-1] - u[1:-1]))\n        u[1:-1] = un[1:-1]\n    return u\n";
    let (ok, t) = check_src(bnd, "fp_bnd", &["--sizes", "N=20", "--fixed-point", "8"]);
    assert!(!ok && t.contains("returned 4 (ADJC_ERR_CONVERGE"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Loops that are no fixed-point iteration of their state are refused with what to do;
/// so are flags that name no `while` loop or bad options.
#[test]
fn refusals_say_what_to_do() {
    let dir = scratch("fp_refuse");
    let d = dir.to_str().unwrap();
    // A running sum of the iterates: its adjoint never decays.
    let sum = "import numpy as np\n\n\ndef k(x: 'float64[N]', a: float):\n    v = a\n    s = 0.0\n    t = 0\n    while t < 5:\n        \
               v = 0.5 * v + x[0]\n        s += x[1]\n        t += 1\n    return v + s\n";
    let file = dir.join("sum.py");
    std::fs::write(&file, sum).unwrap();
    let (ok, t) = run(&["transpile", file.to_str().unwrap(), "--fixed-point", "8", "-o", d]);
    assert!(!ok, "{t}");
    assert!(t.contains("`s` accumulates a value that does not depend on it at every trip"), "{t}");
    assert!(t.contains("sum.py:10:"), "{t}");
    // Nested data-dependent loops.
    let nested = "def k(x: 'float64[N]'):\n    v = x[0]\n    m = 0\n    while m < 3:\n        n = 0\n        while n < 2:\n            \
                  v = 0.5 * v + x[1]\n            n += 1\n        m += 1\n    return v\n";
    let file = dir.join("nested.py");
    std::fs::write(&file, nested).unwrap();
    let (ok, t) = run(&["transpile", file.to_str().unwrap(), "--fixed-point", "4", "-o", d]);
    assert!(!ok && t.contains("the loop body holds another data-dependent loop"), "{t}");
    // Not a while loop; bad options.
    let (ok, t) = run(&["transpile", "examples/python/newton.py", "--fixed-point", "L0", "-o", d]);
    assert!(!ok && t.contains("--fixed-point: L0 is not a `while` loop"), "{t}");
    let (ok, t) = run(&["transpile", "examples/python/newton.py", "--fixed-point", "L1:tol=3", "-o", d]);
    assert!(!ok && t.contains("tol: 3 is not between 0 and 1"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The forward sweep runs the loop as written (no tape, no counter inside); the reverse
/// sweep runs the body once and iterates the adjoint: the report lists no stack.
#[test]
fn nothing_is_taped_per_trip() {
    let dir = scratch("fp_report");
    let out = adjc(&[
        "transpile",
        "examples/python/newton.py",
        "--fixed-point",
        "L1",
        "--report",
        "-o",
        dir.to_str().unwrap(),
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(!t.contains("stack"), "{t}");
    assert!(
        t.contains("while loop L1 (newton.py:14), --fixed-point: nothing per trip; the body's run at the converged state saves xi_tape_1"),
        "{t}"
    );
    // The exact reversal's line says what each trip and each run records.
    let exact = dir.join("exact");
    let out = adjc(&["transpile", "examples/python/newton.py", "--report", "-o", exact.to_str().unwrap()]);
    let t = text(&out);
    assert!(
        t.contains("while loop L1 (newton.py:14): 16 bytes per trip (f_tape 8, xi_tape 8); 8 bytes per run (trips_tape: its trip count)"),
        "{t}"
    );
    let c = std::fs::read_to_string(dir.join("newton.c")).unwrap();
    assert!(!c.contains("adjc_push"), "{c}");
    assert!(c.contains("fixed-point loop L1: nothing is taped per trip (--fixed-point)"), "{c}");
    assert!(c.contains("while (fp_norm > fp_seed * 1e-12 && fp_passes < 10000) {"), "{c}");
    let _ = std::fs::remove_dir_all(&dir);
}
