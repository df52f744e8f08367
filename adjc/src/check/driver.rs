//! Renders the check driver (`templates/check_driver.c.j2`), compiles it with the generated
//! code using the system C compiler, runs it and reads its report.

use std::path::Path;
use std::process::Command;

use minijinja::context;

use crate::cli::CheckArgs;
use crate::cli_error::{CliError, CliResult};
use crate::harness::{build, calls, Plan};
use adjc::Transpiled;

use super::fd::Sample;

/// The project's strict flags: the generated code must build warning-free. The gradients
/// are checked in the build users make (`-O2`, no counters): gcc 12.2 miscompiled an adjoint
/// at `-O2` that the counters' build got right (`source.c.j2`: the loop-distribution pragma).
const CFLAGS: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2"];

/// The second build, run for the adjoint's measured peak only: ADJC_STATS turns on the
/// runtime's memory counters.
const STATS_CFLAGS: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-DADJC_STATS"];

/// `--sanitize`: AddressSanitizer and UndefinedBehaviorSanitizer, stopping at the first
/// finding, with frames readable in the report.
pub const SANITIZE_CFLAGS: &[&str] = &[
    "-std=c11",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-O1",
    "-g",
    "-DADJC_STATS",
    "-fsanitize=address,undefined",
    "-fno-omit-frame-pointer",
    "-fno-sanitize-recover=all",
];

/// The first line of a sanitizer's (or gfortran's -fcheck) report in a failed run's output.
pub fn sanitizer_finding(output: &str) -> Option<String> {
    const MARKERS: &[&str] =
        &["runtime error:", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "Fortran runtime error", "At line "];
    let line = output.lines().find(|l| MARKERS.iter().any(|m| l.contains(m)))?;
    let line = line.trim();
    let mut text = if line.starts_with("==") {
        line.trim_start_matches(|c: char| c == '=' || c.is_ascii_digit()).trim().to_string()
    } else {
        line.to_string()
    };
    // gfortran says where first (`At line 7 of file k.f90`), then what.
    if text.starts_with("At line ") {
        if let Some(what) = output.lines().find(|l| l.contains("Fortran runtime error")) {
            text = format!("{text}: {}", what.trim());
        }
    }
    Some(text)
}

/// Runs a driver built with `--sanitize`: a finding is a failure naming its first line.
pub fn run_checked(cmd: &mut Command, what: &str, sanitize: bool) -> CliResult<String> {
    if sanitize {
        // Leaks are findings too; stop at the first report either way. The user's own
        // settings win (`ASAN_OPTIONS=detect_leaks=0` where LeakSanitizer cannot run).
        for (var, value) in [
            ("ASAN_OPTIONS", "detect_leaks=1:halt_on_error=1"),
            ("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1"),
        ] {
            if std::env::var_os(var).is_none() {
                cmd.env(var, value);
            }
        }
    }
    build::run(cmd, what).map_err(|e| match (&e, sanitize) {
        (CliError::CheckFailed(m), true) => match sanitizer_finding(m) {
            Some(first) => CliError::CheckFailed(format!(
                "--sanitize: {what} hit a memory or undefined-behaviour error: {first}\n(full report:)\n{m}"
            )),
            None => e,
        },
        _ => e,
    })
}

/// The driver's numbers for one differentiated input.
pub struct Gradient {
    pub name: String,
    /// ⟨Jᵀw, v⟩ from the adjoint.
    pub ad: f64,
    /// Σ_k |v_k (Jᵀw)_k|: the size of the terms of the dot product.
    pub ad_abs: f64,
    /// Central differences, largest step first.
    pub samples: Vec<Sample>,
}

pub struct Report {
    pub gradients: Vec<Gradient>,
    /// Forward output values at the check inputs that are NaN or infinite.
    pub nonfinite: u64,
    /// Max relative difference between the outputs left by the adjoint and the forward's.
    pub primal_after_adjoint: f64,
    /// Most bytes the adjoint's generated code held at once (`adjc_peak_bytes`).
    pub peak_bytes: u64,
}

fn render(t: &Transpiled, plan: &Plan, steps: &[f64]) -> CliResult<String> {
    let c = calls::calls(t, plan)?;
    crate::templates::render(
        "check_driver.c.j2",
        context! {
        header => format!("{}.h", t.stem),
        fname => t.module.functions[0].name.clone(),
        bname => t.adjoint.function.name.clone(),
        data_len => plan.data.len(),
        steps => steps.iter().map(|h| format!("{h:e}")).collect::<Vec<_>>(),
        params => calls::template_params(plan, &c),
        fwd_args => c.fwd_args,
        adj_args => c.adj_args,
        },
    )
}

pub fn build_and_run(t: &Transpiled, plan: &Plan, dir: &Path, args: &CheckArgs, steps: &[f64]) -> CliResult<Report> {
    let driver = render(t, plan, steps)?;
    std::fs::write(dir.join("check_driver.c"), driver)
        .map_err(|e| CliError::Io(format!("cannot write driver: {e}")))?;
    let source = format!("{}.c", t.stem);
    let flags = if args.sanitize { SANITIZE_CFLAGS } else { CFLAGS };
    build::compile(dir, flags, &[&source, "check_driver.c"], "check_driver", args.openmp)?;
    let exe = dir.join("check_driver");
    let stdout = run_checked(
        Command::new(&exe).current_dir(dir).args(["inputs.bin", "forward.bin", "adjoint.bin"]),
        "the check driver",
        args.sanitize,
    )?;
    let mut report = parse(&stdout);
    if !args.sanitize {
        // The sanitized build counts already (SANITIZE_CFLAGS has ADJC_STATS).
        build::compile(dir, STATS_CFLAGS, &[&source, "check_driver.c"], "check_stats", args.openmp)?;
        let stats = run_checked(
            Command::new(dir.join("check_stats")).current_dir(dir).args(["inputs.bin", "stats_forward.bin"]),
            "the check driver (memory counters)",
            false,
        )?;
        report.peak_bytes = parse(&stats).peak_bytes;
    }
    Ok(report)
}

fn parse(stdout: &str) -> Report {
    let num = |w: &str| w.parse::<f64>().unwrap_or(f64::NAN);
    let mut r = Report { gradients: Vec::new(), nonfinite: 0, primal_after_adjoint: f64::INFINITY, peak_bytes: 0 };
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["grad", name, ad, ad_abs] => r.gradients.push(Gradient {
                name: name.to_string(),
                ad: num(ad),
                ad_abs: num(ad_abs),
                samples: Vec::new(),
            }),
            ["fd", name, h, fd, ad] => {
                if let Some(g) = r.gradients.iter_mut().rev().find(|g| g.name == *name) {
                    g.samples.push(Sample { h: num(h), fd: num(fd), ad: num(ad) });
                }
            }
            ["nonfinite", n] => r.nonfinite = n.parse().unwrap_or(u64::MAX),
            ["primal", v] => r.primal_after_adjoint = v.parse().unwrap_or(f64::INFINITY),
            ["peak", v] => r.peak_bytes = v.parse().unwrap_or(0),
            _ => {}
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sanitizer plumbing on hand-written faulty C, whatever the generated code does:
    /// built with `--sanitize`'s flags, each fault fails the run with its report's first line.
    #[test]
    fn sanitized_builds_turn_faults_into_failures() {
        let dir = std::env::temp_dir().join(format!("adjc-sanitize-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let faults = [
            (
                "heap",
                "double *a = malloc(4 * sizeof *a); for (int i = 0; i < 4; i++) a[i] = i; \
                      double s = a[argc + 3]; free(a); printf(\"%g\\n\", s);",
                "ERROR: AddressSanitizer: heap-buffer-overflow|runtime error: load of address",
            ),
            ("overflow", "int x = INT_MAX; x += argc; printf(\"%d\\n\", x);", "runtime error: signed integer overflow"),
            ("leak", "double *a = malloc(64); a[0] = argc; printf(\"%g\\n\", a[0]); a = 0;", "ERROR: LeakSanitizer"),
            ("clean", "printf(\"%d\\n\", argc);", ""),
        ];
        for (name, body, finding) in faults {
            let src = format!(
                "#include <limits.h>\n#include <stdio.h>\n#include <stdlib.h>\nint main(int argc, char **argv)\n{{\n    (void)argv;\n    {body}\n    return 0;\n}}\n"
            );
            std::fs::write(dir.join(format!("{name}.c")), src).unwrap();
            build::compile(&dir, SANITIZE_CFLAGS, &[&format!("{name}.c")], name, false).unwrap();
            let result = run_checked(&mut Command::new(dir.join(name)), "the faulty program", true);
            match result {
                Ok(out) => assert!(finding.is_empty() && out == "1\n", "{name}: ran clean: {out}"),
                Err(e) => {
                    let m = e.render();
                    assert!(!finding.is_empty(), "{name}: {m}");
                    let head = "adjc: check failed: --sanitize: the faulty program hit a memory or undefined-behaviour error: ";
                    let first = m[head.len()..].lines().next().unwrap();
                    assert!(m.starts_with(head) && finding.split('|').any(|f| first.contains(f)), "{name}: {m}");
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn finds_gfortran_runtime_checks() {
        let out = "At line 7 of file k.f90\nFortran runtime error: Index '6' of dimension 1 of array 'x' above upper bound of 5\n";
        assert_eq!(
            sanitizer_finding(out).unwrap(),
            "At line 7 of file k.f90: Fortran runtime error: Index '6' of dimension 1 of array 'x' above upper bound of 5"
        );
        assert_eq!(sanitizer_finding("grad x 1 2\nfd x 1e-2 1 1 1\n"), None);
    }
}
