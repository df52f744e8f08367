//! `adjc check`: proves a generated adjoint with the dot-product test.
//!
//! For seeded random inputs x, directions v (one per `--wrt` input) and output weights w
//! (one per `--of` output), the driver computes
//!
//! * `⟨w, (f(x + h v) − f(x − h v)) / 2h⟩` with the generated forward function, and
//! * `⟨Jᵀ w, v⟩` with one call of the generated adjoint (seeds = w),
//!
//! per input, the first at a sweep of steps h with Richardson extrapolation (see [`fd`]; one
//! step with `--step`), and reports the best agreement or why there is none. It also checks that the adjoint
//! leaves the primal outputs as the forward function does, and — when `python3` with
//! NumPy is available — runs the original Python function on the same inputs and compares
//! the forward outputs (for a Fortran source, the original compiled by gfortran: `gfortran`);
//! without that comparison the verdict says the forward was NOT compared with the source.
//! `--sanitize` builds the driver with ASan/UBSan (and the gfortran reference with
//! `-fcheck=all`): any finding fails the check.

mod derived_args;
mod driver;
mod fd;
mod gfortran;
mod numpy;

use adjc_frontend::fortran::LoadOptions;
use adjc_ir::Scalar;

use crate::cli::CheckArgs;
use crate::cli_error::{CliError, CliResult};
use crate::commands;
use crate::harness::{self, build};

pub fn run_check(args: &CheckArgs) -> CliResult<()> {
    let t = commands::transpile(&args.transpile)?;
    let mut plan = harness::plan(&t, &args.transpile.sizes, &args.values)?;
    let (dir, _guard) = build::build_dir(args.keep.as_deref())?;
    t.write_files(&dir)?;
    if !args.setup.is_empty() {
        // The state the setup routines leave replaces the random inputs (Fortran only).
        if args.transpile.file.extension().is_some_and(|e| e.eq_ignore_ascii_case("py")) {
            return Err(CliError::Usage("--setup runs Fortran setup routines; the source is Python".into()));
        }
        let load =
            LoadOptions { defines: args.transpile.defines.clone(), include_dirs: args.transpile.include_dirs.clone() };
        gfortran::run_setup(&t, &mut plan, &dir, &load.cpp_flags(), &args.setup)?;
    }
    build::write_f64s(&dir.join("inputs.bin"), &plan.data)?;
    let primal = &t.module.functions[0];
    let f32_kernel = plan.params.iter().any(|p| p.elem == Scalar::F32);
    let tol = args.tol.unwrap_or(if f32_kernel { 1e-2 } else { 1e-6 });
    // `--step` keeps one step; the default is a sweep with Richardson extrapolation.
    let steps = match args.step {
        Some(h) => vec![h],
        None => fd::default_steps(f32_kernel),
    };
    let steps_text = match steps.as_slice() {
        [h] => format!("step {h:e}"),
        s => format!("FD steps {:.0e}..{:.0e} with Richardson extrapolation", s[0], s[s.len() - 1]),
    };
    println!(
        "adjc check: {} ({}), seed {}, {steps_text}, {}{}",
        primal.name,
        if plan.sizes_text.is_empty() { "no sizes".to_string() } else { plan.sizes_text.clone() },
        args.values.seed,
        if args.openmp { "OpenMP" } else { "serial" },
        if args.sanitize { ", sanitizers on" } else { "" }
    );
    let report = driver::build_and_run(&t, &plan, &dir, args, &steps)?;
    let mut failures = Vec::new();
    if report.nonfinite > 0 {
        println!("  forward outputs at the check inputs: {} NaN or infinite values   FAILED", report.nonfinite);
        failures.push(format!(
            "the forward outputs hold {} NaN or infinite values at the check inputs, so no gradient can be \
             checked there: choose inputs in the kernel's domain with --init NAME=DIST (e.g. uniform(0.5,2) \
             before a log or a division) or --inputs FILE.npz",
            report.nonfinite
        ));
    }
    for g in &report.gradients {
        let all = fd::estimates(&g.samples, g.ad_abs);
        let best = fd::best(&all).cloned();
        let (fd_value, err, at) = match &best {
            Some(e) => (e.fd, e.err, e.label()),
            None => (f64::NAN, f64::INFINITY, "no step".into()),
        };
        let ok = err <= tol && g.ad.is_finite();
        println!(
            "  d/d{:<8} <w, J v> (central FD) = {:>23.15e}   <J^T w, v> (adjoint) = {:>23.15e}   rel. error {:.2e} ({at})   {}",
            g.name,
            fd_value,
            g.ad,
            err,
            if ok { "ok" } else { "FAILED" }
        );
        // Non-finite forward values are the failure already reported: no table of NaNs.
        if !ok && report.nonfinite == 0 {
            for e in &all {
                println!("      {:<20} FD {:>23.15e}   error {:.2e}", e.label(), e.fd, e.err);
            }
            failures.push(if !g.ad.is_finite() {
                format!("gradient of `{}`: the adjoint is not finite ({})", g.name, g.ad)
            } else {
                fd::diagnose(&g.name, &g.samples, g.ad_abs, tol)
            });
        }
    }
    let primal_ok = report.primal_after_adjoint <= 1e-12 || (f32_kernel && report.primal_after_adjoint <= 1e-5);
    println!(
        "  primal outputs after {}_b vs {}: max rel. difference {:.2e}   {}",
        primal.name,
        primal.name,
        report.primal_after_adjoint,
        if primal_ok { "ok" } else { "FAILED" }
    );
    println!(
        "  adjoint peak memory: {} bytes (runtime count of every allocation of the generated code)",
        report.peak_bytes
    );
    if !primal_ok {
        failures.push("the adjoint leaves different primal outputs than the forward function".into());
    }
    let python_source = args.transpile.file.extension().is_some_and(|e| e.eq_ignore_ascii_case("py"));
    // Why the forward function was not compared with the source, when it was not.
    let not_compared = if args.no_python {
        println!("  forward vs Python: skipped (--no-python)");
        Some("--no-python".to_string())
    } else if !python_source {
        println!("  forward vs Python: skipped (Fortran source)");
        let fixed_form = adjc_frontend::fortran::is_fixed_form(&args.transpile.file);
        let load =
            LoadOptions { defines: args.transpile.defines.clone(), include_dirs: args.transpile.include_dirs.clone() };
        let flags = load.cpp_flags();
        let outcome = gfortran::compare(&t, &plan, &dir, &flags, fixed_form, args.sanitize)?;
        let why = report_forward("gfortran", outcome, f32_kernel, &mut failures);
        let wrappers = gfortran::compare_wrappers(&t, &plan, &dir, &flags, fixed_form, args.openmp)?;
        report_wrappers(&t.routine, wrappers, f32_kernel, &mut failures);
        why
    } else {
        let outcome = numpy::compare(&t, &plan, &dir, &args.transpile.file)?;
        report_forward("NumPy", outcome, f32_kernel, &mut failures)
    };
    if !failures.is_empty() {
        return Err(CliError::CheckFailed(failures.join("; ")));
    }
    match not_compared {
        None => println!("check passed"),
        Some(why) => println!(
            "check passed (forward NOT compared with the source: {why}; the adjoint is only proven consistent \
             with the generated C forward function)"
        ),
    }
    Ok(())
}

/// Prints what `<routine>_b` of the drop-in Fortran wrappers left, compared with what the C
/// driver's call of the adjoint left (the same C function: only rounding of a parallel
/// reduction may differ).
fn report_wrappers(routine: &str, outcome: numpy::Outcome, f32_kernel: bool, failures: &mut Vec<String>) {
    match outcome {
        numpy::Outcome::Skipped(why) => println!("  drop-in wrapper {routine}_b vs C: skipped ({why})"),
        numpy::Outcome::Compared(rows) => {
            let tol = if f32_kernel { 1e-5 } else { 1e-12 };
            let worst = rows.iter().map(|r| r.1).fold(0.0f64, f64::max);
            let bad: Vec<&(String, f64)> = rows.iter().filter(|r| r.1.is_nan() || r.1 > tol).collect();
            println!(
                "  drop-in wrapper {routine}_b vs C: {} arrays and scalars, max rel. difference {worst:.2e}   {}",
                rows.len(),
                if bad.is_empty() { "ok" } else { "FAILED" }
            );
            for (name, err) in &bad {
                println!("      {name:<12} rel. difference {err:.2e}");
                failures.push(format!(
                    "`{routine}_b` of the drop-in wrappers leaves `{name}` different from the C (rel. {err:.2e})"
                ));
            }
        }
    }
}

/// Prints the forward outputs compared with the `reference` implementation and records
/// those off by more than the tolerance of the kernel's precision; why the comparison did
/// not happen, when it did not.
fn report_forward(
    reference: &str,
    outcome: numpy::Outcome,
    f32_kernel: bool,
    failures: &mut Vec<String>,
) -> Option<String> {
    match outcome {
        numpy::Outcome::Skipped(why) => {
            println!("  forward vs {reference}: skipped ({why})");
            Some(why)
        }
        numpy::Outcome::Compared(rows) => {
            let ftol = if f32_kernel { 1e-4 } else { 1e-9 };
            if rows.is_empty() {
                return Some(format!("{reference} compared no output"));
            }
            for (name, err) in rows {
                let ok = err <= ftol;
                println!(
                    "  forward vs {reference}: {:<10} max rel. error {:.2e}   {}",
                    name,
                    err,
                    if ok { "ok" } else { "FAILED" }
                );
                if !ok {
                    failures.push(format!("forward output `{name}` differs from {reference} (rel. error {err:.2e})"));
                }
            }
            None
        }
    }
}
