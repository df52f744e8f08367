//! The arithmetic the generated C is written with: powers as products (`algebra` in
//! autodiff) in both sweeps, and loops of transcendentals that gcc vectorises with glibc's
//! libmvec in the default build (the declarations of `adjc_runtime.h`). The gradients of
//! these kernels are checked against finite differences and NumPy by `e2e.rs`
//! (`examples/python/powers.py`); this file checks the form.

mod common;

use common::{adjc, scratch, text};
use std::process::Command;

fn transpile(example: &str, dir: &std::path::Path) -> String {
    transpile_with(example, dir, &[])
}

fn transpile_with(example: &str, dir: &std::path::Path, flags: &[&str]) -> String {
    let mut args = vec!["transpile", example, "-o", dir.to_str().unwrap()];
    args.extend_from_slice(flags);
    let out = adjc(&args);
    assert!(out.status.success(), "{}", text(&out));
    let stem = std::path::Path::new(example).file_stem().unwrap().to_string_lossy().into_owned();
    // Statements whole, wherever the emitter broke their lines.
    adjc_emit::wrap::unwrap_c(&std::fs::read_to_string(dir.join(format!("{stem}.c"))).unwrap())
}

#[test]
fn powers_are_products_in_both_sweeps() {
    let dir = scratch("powers-form");
    let c = transpile("examples/python/powers.py", &dir);
    let (forward, adjoint) = c.split_once("int powers_b(").unwrap();
    for sweep in [forward, adjoint] {
        // x**2 + y**3 - x**-2 + x**0.5 - y**-1, and x**-0.5 in the return.
        assert!(
            sweep.contains("x[i] * x[i] + y[i] * y[i] * y[i] - 1.0 / (x[i] * x[i]) + sqrt(x[i]) - 1.0 / y[i]"),
            "{sweep}"
        );
        assert!(sweep.contains("(1.0 / sqrt(x[i]))"), "{sweep}");
        assert!(!sweep.contains("pow(x[i]") && !sweep.contains("pow(y[i]"), "{sweep}");
        // np.clip as the NaN-propagating, vectorisable max/min of the runtime.
        assert!(sweep.contains("adjc_fmin(adjc_fmax(squash[i], -0.5), 2.0)"), "{sweep}");
    }
    // Derivatives: d(x**-2)/dx = 2 / x**3 with the sign folded; d(x**-0.5)/dx with x**-1.5
    // as a product; the sign of a derivative moved into `-=`.
    assert!(adjoint.contains("2.0 / (x[i] * x[i] * x[i])"), "{adjoint}");
    assert!(adjoint.contains("0.5 / (x[i] * sqrt(x[i]))"), "{adjoint}");
    assert!(adjoint.contains("0.5 / sqrt(x[i])"), "{adjoint}");
    assert!(adjoint.contains("x_b[i] -= "), "{adjoint}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// gcc on x86-64 with glibc: every loop of the element-wise kernels vectorises in the
/// default `-O3` build (no -ffast-math, no -fno-math-errno), including the reverse sweeps
/// that call sin, cos, exp, log, atan2, sqrt and the clip's max/min. (arc_distance is
/// differentiated as benchmarked, with respect to `theta_1`: with all four inputs its
/// reverse loop writes four gradients and gcc gives up on the run-time alias checks, which
/// only a `simd`/`ivdep` assertion on the loop can lift.)
#[test]
fn elementwise_loops_vectorise_with_gcc() {
    let gcc_x86 = Command::new("gcc").arg("-dumpmachine").output().ok().filter(|o| o.status.success());
    let Some(m) = gcc_x86 else {
        eprintln!("skipped: no gcc");
        return;
    };
    if !String::from_utf8_lossy(&m.stdout).starts_with("x86_64") {
        eprintln!("skipped: gcc does not target x86-64");
        return;
    }
    // The third column: whether the loops need -fno-trapping-math (README's recommended
    // flags), which lets gcc evaluate both arms of a select whose arm divides (the clip's
    // derivative times `1.0 / sqrt(x)` in powers.py). The last: whether the OpenMP build is
    // checked too. In powers.py's OpenMP build gcc needs more run-time alias checks than
    // it makes (`--param vect-max-version-for-alias-checks`, 10) for loops writing four
    // arrays: a `simd` assertion on map loops would lift that (see README).
    let cases: [(&str, &[&str], bool, bool); 4] = [
        ("arc_distance", &["--wrt", "theta_1"], false, true),
        ("compute", &[], false, true),
        ("powers", &[], true, false),
        ("elementwise", &[], false, true),
    ];
    for (example, flags, no_trapping, with_openmp) in cases {
        let dir = scratch(&format!("vec-{example}"));
        transpile_with(&format!("examples/python/{example}.py"), &dir, flags);
        for openmp in [false, true] {
            // gcc does not vectorise the inner loop of an `omp parallel for collapse(2)`
            // nest (the collapsed index is split again in every iteration): the OpenMP
            // placement decides where to collapse, so only the serial build is checked then.
            let c = std::fs::read_to_string(dir.join(format!("{example}.c"))).unwrap();
            if openmp && (c.contains("collapse(") || !with_openmp) {
                continue;
            }
            let mut cmd = Command::new("gcc");
            cmd.current_dir(&dir).args([
                "-std=c11",
                "-O3",
                "-march=haswell",
                "-fopt-info-vec-missed",
                "-fopt-info-vec-optimized",
                "-c",
            ]);
            if openmp {
                cmd.arg("-fopenmp");
            }
            if no_trapping {
                cmd.arg("-fno-trapping-math");
            }
            let out = cmd.args([&format!("{example}.c"), "-o", "k.o"]).output().expect("run gcc");
            assert!(out.status.success(), "{}", text(&out));
            let report = String::from_utf8_lossy(&out.stderr);
            // The innermost loops over elements (not the runtime header's own helpers; an
            // outer loop is "not vectorised" when its inner loop is).
            let lines: Vec<&str> = c.lines().collect();
            // gcc reports every version of a loop it tries (the outlined body of an OpenMP
            // region, an alias-check copy): a loop is missed only when no version of it at
            // that line and column was vectorised.
            let location = |l: &str| l.split(": ").next().unwrap_or("").to_string();
            let vectorised: std::collections::BTreeSet<String> =
                report.lines().filter(|l| l.contains("optimized: loop vectorized")).map(location).collect();
            let missed: Vec<&str> = report
                .lines()
                .filter(|l| l.contains("couldn't vectorize loop"))
                .filter(|l| !vectorised.contains(&location(l)))
                .filter(|l| {
                    let Some(rest) = l.strip_prefix(&format!("{example}.c:")) else { return false };
                    let line: usize = rest.split(':').next().and_then(|n| n.parse().ok()).unwrap_or(0);
                    line > 0 && is_innermost_loop(&lines, line - 1)
                })
                .collect();
            assert!(missed.is_empty(), "{example} (openmp {openmp}): loops not vectorised:\n{report}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Whether the `for` at `lines[at]` has no `for` inside its braces.
fn is_innermost_loop(lines: &[&str], at: usize) -> bool {
    let mut depth = 0i64;
    for (k, l) in lines.iter().enumerate().skip(at) {
        if k > at && l.contains("for (") {
            return false;
        }
        depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
        if k > at && depth <= 0 {
            return true;
        }
    }
    true
}
