//! Renders the timing driver (`templates/bench_driver.c.j2`), builds it twice — optimised
//! for the timings, with the runtime's memory counters (`-DADJC_STATS`) for the memory —
//! runs both and reads what they print.

use std::path::Path;
use std::process::Command;

use minijinja::context;

use crate::cli::BenchArgs;
use crate::cli_error::{CliError, CliResult};
use crate::harness::{build, calls, Plan};
use adjc::Transpiled;

/// Flags of the timed build: the build README recommends (`-fno-trapping-math` lets gcc
/// vectorise selects whose arms divide; generated code never reads floating-point flags).
pub const TIMING_FLAGS: &[&str] = &["-std=c11", "-O3", "-march=native", "-fno-trapping-math"];
/// The counters do not depend on optimisation: build the counting driver quickly.
const STATS_FLAGS: &[&str] = &["-std=c11", "-O1", "-DADJC_STATS"];

/// Memory one call used, as the runtime counted it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    pub work_bytes: u64,
    pub tape_array_bytes: u64,
    pub stack_peak_bytes: u64,
    pub tape_peak_bytes: u64,
    /// Most bytes the generated code held at once (every allocation, `adjc_peak_bytes`).
    pub peak_bytes: u64,
}

/// What the two drivers printed.
pub struct Measured {
    pub forward_s: Vec<f64>,
    pub adjoint_s: Vec<f64>,
    pub nonfinite: u64,
    /// Peak resident set of the timing process in KiB (getrusage), when the system gives it.
    pub peak_rss_kib: Option<u64>,
    pub forward_mem: Memory,
    pub adjoint_mem: Memory,
}

fn render(t: &Transpiled, plan: &Plan) -> CliResult<String> {
    let c = calls::calls(t, plan)?;
    crate::templates::render(
        "bench_driver.c.j2",
        context! {
        header => format!("{}.h", t.stem),
        fname => t.module.functions[0].name.clone(),
        bname => t.adjoint.function.name.clone(),
        data_len => plan.data.len(),
        params => calls::template_params(plan, &c),
        fwd_args => c.fwd_args,
        adj_args => c.adj_args,
        },
    )
}

/// Where the timing driver writes the values of `--dump` (in the build directory).
pub const VALUES_FILE: &str = "values.bin";

fn run_driver(dir: &Path, exe: &str, args: &BenchArgs, dump: bool) -> CliResult<String> {
    let mut cmd = Command::new(dir.join(exe));
    cmd.current_dir(dir).args(["inputs.bin", &args.repeat.to_string()]);
    if dump {
        cmd.arg(VALUES_FILE);
    }
    if let Some(n) = args.threads {
        cmd.env("OMP_NUM_THREADS", n.to_string());
    }
    build::run(&mut cmd, "the bench driver")
}

pub fn build_and_run(t: &Transpiled, plan: &Plan, dir: &Path, args: &BenchArgs) -> CliResult<Measured> {
    std::fs::write(dir.join("bench_driver.c"), render(t, plan)?)
        .map_err(|e| CliError::Io(format!("cannot write driver: {e}")))?;
    let source = format!("{}.c", t.stem);
    let sources = [source.as_str(), "bench_driver.c"];
    build::compile(dir, STATS_FLAGS, &sources, "bench_stats", args.openmp)?;
    build::compile(dir, TIMING_FLAGS, &sources, "bench_driver", args.openmp)?;
    let stats = run_driver(dir, "bench_stats", args, false)?;
    let timing = run_driver(dir, "bench_driver", args, args.dump.is_some())?;
    parse(&stats, &timing)
}

fn parse(stats: &str, timing: &str) -> CliResult<Measured> {
    let bad = |line: &str| CliError::CheckFailed(format!("unexpected line from the bench driver: `{line}`"));
    let mut m = Measured {
        forward_s: Vec::new(),
        adjoint_s: Vec::new(),
        nonfinite: 0,
        peak_rss_kib: None,
        forward_mem: Memory::default(),
        adjoint_mem: Memory::default(),
    };
    let mut seen = (false, false);
    for line in stats.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let ["stats", which, rest @ ..] = words.as_slice() else { return Err(bad(line)) };
        let n: Vec<u64> = rest.iter().map(|w| w.parse::<u64>()).collect::<Result<_, _>>().map_err(|_| bad(line))?;
        let [work_bytes, tape_array_bytes, stack_peak_bytes, tape_peak_bytes, peak_bytes] = n.as_slice() else {
            return Err(bad(line));
        };
        let mem = Memory {
            work_bytes: *work_bytes,
            tape_array_bytes: *tape_array_bytes,
            stack_peak_bytes: *stack_peak_bytes,
            tape_peak_bytes: *tape_peak_bytes,
            peak_bytes: *peak_bytes,
        };
        match *which {
            "forward" => (m.forward_mem, seen.0) = (mem, true),
            "adjoint" => (m.adjoint_mem, seen.1) = (mem, true),
            _ => return Err(bad(line)),
        }
    }
    for line in timing.lines() {
        match line.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["forward", s] => m.forward_s.push(s.parse().map_err(|_| bad(line))?),
            ["adjoint", s] => m.adjoint_s.push(s.parse().map_err(|_| bad(line))?),
            ["nonfinite", n] => m.nonfinite = n.parse().map_err(|_| bad(line))?,
            ["rss", n] => m.peak_rss_kib = Some(n.parse().map_err(|_| bad(line))?),
            _ => return Err(bad(line)),
        }
    }
    if !(seen.0 && seen.1) || m.forward_s.is_empty() || m.adjoint_s.is_empty() {
        return Err(CliError::CheckFailed("the bench driver printed no measurement".into()));
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_drivers() {
        let m = parse(
            "stats forward 16 0 0 0 16\nstats adjoint 32 800 24 824 4952\n",
            "forward 1.5e-3\nforward 1.0e-3\nadjoint 4e-3\nnonfinite 2\nrss 5120\n",
        )
        .unwrap();
        assert_eq!(m.forward_s, vec![1.5e-3, 1.0e-3]);
        assert_eq!(m.adjoint_s, vec![4e-3]);
        assert_eq!(m.nonfinite, 2);
        assert_eq!(m.peak_rss_kib, Some(5120));
        assert_eq!(m.forward_mem.work_bytes, 16);
        assert_eq!(
            m.adjoint_mem,
            Memory {
                work_bytes: 32,
                tape_array_bytes: 800,
                stack_peak_bytes: 24,
                tape_peak_bytes: 824,
                peak_bytes: 4952
            }
        );
    }

    #[test]
    fn rejects_garbage_and_missing_lines() {
        assert!(parse("stats adjoint 1 2 3 4\n", "forward 1\nadjoint 1\n").is_err());
        assert!(parse("stats forward 0 0 0 0 0\nstats adjoint 0 0 0 0 0\n", "forward x\n").is_err());
        assert!(parse("stats forward 0 0 0 0 0\nstats adjoint 0 0 0 0 0\n", "forward 1\n").is_err());
    }
}
