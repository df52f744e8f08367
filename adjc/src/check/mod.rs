//! `adjc check`: proves a generated adjoint with the dot-product test.
//!
//! For seeded random inputs x, directions v (one per `--wrt` input) and output weights w
//! (one per `--of` output), the driver computes
//!
//! * `⟨w, (f(x + h v) − f(x − h v)) / 2h⟩` with the generated forward function, and
//! * `⟨Jᵀ w, v⟩` with one call of the generated adjoint (seeds = w),
//!
//! per input, and reports their relative difference. It also checks that the adjoint
//! leaves the primal outputs as the forward function does, and — when `python3` with
//! NumPy is available — runs the original Python function on the same inputs and compares
//! the forward outputs (for a Fortran source, the original compiled by gfortran: `gfortran`).

mod driver;
mod gfortran;
mod int_kinds;
mod numpy;

use adjc_ir::Scalar;

use crate::cli::{CheckArgs, CliError, CliResult};
use crate::harness::{self, build};
use crate::pipeline;

pub fn run_check(args: &CheckArgs) -> CliResult<()> {
    let t = pipeline::transpile(&args.transpile, &pipeline::command_line())?;
    let plan = harness::plan(&t, &args.transpile.sizes, &args.values)?;
    let (dir, _guard) = build::build_dir(args.keep.as_deref())?;
    pipeline::write_files(&t, &dir)?;
    build::write_f64s(&dir.join("inputs.bin"), &plan.data)?;
    let primal = &t.module.functions[0];
    let f32_kernel = plan.params.iter().any(|p| p.elem == Scalar::F32);
    let tol = args.tol.unwrap_or(if f32_kernel { 1e-2 } else { 1e-6 });
    // float32 cannot resolve a 1e-6 perturbation of O(1) values: larger step, looser tolerance.
    let step = args.step.unwrap_or(if f32_kernel { 1e-3 } else { 1e-6 });
    println!(
        "adjc check: {} ({}), seed {}, step {:e}, {}",
        primal.name,
        if plan.sizes_text.is_empty() { "no sizes".to_string() } else { plan.sizes_text.clone() },
        args.values.seed,
        step,
        if args.openmp { "OpenMP" } else { "serial" }
    );
    let report = driver::build_and_run(&t, &plan, &dir, args, step)?;
    let mut failures = Vec::new();
    for g in &report.gradients {
        let ok = g.rel_err <= tol && g.fd.is_finite() && g.ad.is_finite();
        println!(
            "  d/d{:<8} <w, J v> (central FD) = {:>23.15e}   <J^T w, v> (adjoint) = {:>23.15e}   rel. error {:.2e}   {}",
            g.name,
            g.fd,
            g.ad,
            g.rel_err,
            if ok { "ok" } else { "FAILED" }
        );
        if !ok {
            failures.push(format!("gradient of `{}` (rel. error {:.2e} > {:.0e})", g.name, g.rel_err, tol));
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
    if args.no_python {
        println!("  forward vs Python: skipped (--no-python)");
    } else if !python_source {
        println!("  forward vs Python: skipped (Fortran source)");
        let fixed_form = crate::fortran_sources::is_fixed_form(&args.transpile.file);
        let flags = crate::fortran_sources::cpp_flags(&args.transpile);
        let outcome = gfortran::compare(&t, &plan, &dir, &flags, fixed_form)?;
        report_forward("gfortran", outcome, f32_kernel, &mut failures);
    } else {
        let outcome = numpy::compare(&t, &plan, &dir, &args.transpile.file)?;
        report_forward("NumPy", outcome, f32_kernel, &mut failures);
    }
    if failures.is_empty() {
        println!("check passed");
        Ok(())
    } else {
        Err(CliError::CheckFailed(failures.join("; ")))
    }
}

/// Prints the forward outputs compared with the `reference` implementation and records
/// those off by more than the tolerance of the kernel's precision.
fn report_forward(reference: &str, outcome: numpy::Outcome, f32_kernel: bool, failures: &mut Vec<String>) {
    match outcome {
        numpy::Outcome::Skipped(why) => println!("  forward vs {reference}: skipped ({why})"),
        numpy::Outcome::Compared(rows) => {
            let ftol = if f32_kernel { 1e-4 } else { 1e-9 };
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
        }
    }
}
