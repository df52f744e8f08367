//! `adjc bench`: how fast the generated adjoint is, and how much memory it needs.
//!
//! The driver runs the forward function and the adjoint `--repeat` times each on the
//! seeded inputs of `adjc check` (fresh copies before every call, copying not timed),
//! built with `-O3 -march=native -fno-trapping-math`. A second build of the same driver, with the runtime's
//! counters (`-DADJC_STATS`), makes one call of each and reports the adjoint's memory:
//! tape bytes (tape arrays plus the peak of the stack tapes: values the forward sweep
//! saves for the reverse sweep) and work-array bytes (the adjoint's other local arrays).
//! Timings are only measured here, never asserted in tests. `--dump FILE.npz` also saves
//! the run's inputs, weights, forward outputs and adjoints (`dump`), so that another tool
//! (benchmarks/bench.py: NumPy, JAX) can run on the same values and compare its gradient.

mod driver;
mod dump;

use crate::cli::BenchArgs;
use crate::cli_error::{CliError, CliResult};
use crate::commands;
use crate::harness::{self, build, Plan};
use driver::{Measured, TIMING_FLAGS};

/// The median of `xs` (the mean of the middle two for an even count); NaN when empty.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

fn min(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::INFINITY, f64::min)
}

pub fn run_bench(args: &BenchArgs) -> CliResult<()> {
    if args.threads.is_some() && !args.openmp {
        return Err(CliError::Usage("--threads needs --openmp".into()));
    }
    let t = commands::transpile(&args.transpile)?;
    let plan = harness::plan(&t, &args.transpile.sizes, &args.values)?;
    let (dir, _guard) = build::build_dir(args.keep.as_deref())?;
    t.write_files(&dir)?;
    build::write_f64s(&dir.join("inputs.bin"), &plan.data)?;
    let measured = driver::build_and_run(&t, &plan, &dir, args)?;
    if let Some(path) = &args.dump {
        dump::write(path, &plan, &dir.join(driver::VALUES_FILE))?;
    }
    print!("{}", report(&t.module.functions[0].name, &plan, args, &measured));
    Ok(())
}

fn report(fname: &str, plan: &Plan, args: &BenchArgs, m: &Measured) -> String {
    let mode = match (args.openmp, args.threads) {
        (false, _) => "serial".to_string(),
        (true, None) => "OpenMP".to_string(),
        (true, Some(n)) => format!("OpenMP, {n} threads"),
    };
    let sizes = if plan.sizes_text.is_empty() { "no sizes" } else { plan.sizes_text.as_str() };
    let ms = |s: f64| s * 1e3;
    let (fwd, adj) = (median(&m.forward_s), median(&m.adjoint_s));
    let arrays: Vec<_> = plan.params.iter().filter(|p| p.shape.is_some()).collect();
    let arg_bytes: usize = arrays.iter().map(|p| p.bytes()).sum();
    let per_arg: Vec<String> = arrays.iter().map(|p| format!("{} {}", p.name, p.bytes())).collect();
    let a = &m.adjoint_mem;
    let mut out = String::new();
    out.push_str(&format!(
        "adjc bench: {fname} ({sizes}), seed {}, {mode}, {} timed call{} each, cc {}\n",
        args.values.seed,
        args.repeat,
        if args.repeat == 1 { "" } else { "s" },
        TIMING_FLAGS.join(" ")
    ));
    out.push_str(&format!("  forward ms          median {:.6}  min {:.6}\n", ms(fwd), ms(min(&m.forward_s))));
    out.push_str(&format!("  adjoint ms          median {:.6}  min {:.6}\n", ms(adj), ms(min(&m.adjoint_s))));
    out.push_str(&format!(
        "  ratio               {:.3}  (adjoint/forward medians; mins {:.3})\n",
        adj / fwd,
        min(&m.adjoint_s) / min(&m.forward_s)
    ));
    out.push_str(&format!("  argument bytes      {arg_bytes}  ({})\n", per_arg.join(", ")));
    out.push_str(&format!(
        "  tape bytes          {}  (tape arrays {}, stack tapes at peak {})\n",
        a.tape_peak_bytes, a.tape_array_bytes, a.stack_peak_bytes
    ));
    out.push_str(&format!(
        "  work bytes          {}  (adjoint work arrays; the forward's {})\n",
        a.work_bytes, m.forward_mem.work_bytes
    ));
    out.push_str(&format!(
        "  peak bytes          {}  (most memory the adjoint held at once, every allocation counted)\n",
        a.peak_bytes
    ));
    if let Some(kib) = m.peak_rss_kib {
        out.push_str(&format!(
            "  process peak RSS    {}  (bytes; the whole timing process: inputs, copies, both functions)\n",
            kib * 1024
        ));
    }
    if m.nonfinite > 0 {
        out.push_str(&format!(
            "  warning: {} forward output values are NaN or infinite; the timings may not be representative \
             (choose inputs with --init)\n",
            m.nonfinite
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert_eq!(min(&[3.0, 1.0, 2.0]), 1.0);
    }
}
