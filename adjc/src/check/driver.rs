//! Renders the check driver (`templates/check_driver.c.j2`), compiles it with the generated
//! code using the system C compiler, runs it and reads its report.

use std::path::Path;
use std::process::Command;

use minijinja::context;

use crate::cli::{CheckArgs, CliError, CliResult};
use crate::harness::{build, calls, Plan};
use crate::pipeline::Transpiled;

const TEMPLATE: &str = include_str!("../../../templates/check_driver.c.j2");

/// The project's strict flags: the generated code must build warning-free. ADJC_STATS
/// turns on the runtime's memory counters, for the adjoint's measured peak.
const CFLAGS: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-DADJC_STATS"];

pub struct Gradient {
    pub name: String,
    pub fd: f64,
    pub ad: f64,
    pub rel_err: f64,
}

pub struct Report {
    pub gradients: Vec<Gradient>,
    /// Max relative difference between the outputs left by the adjoint and the forward's.
    pub primal_after_adjoint: f64,
    /// Most bytes the adjoint's generated code held at once (`adjc_peak_bytes`).
    pub peak_bytes: u64,
}

fn render(t: &Transpiled, plan: &Plan, step: f64) -> CliResult<String> {
    let c = calls::calls(t, plan)?;
    crate::templates::render(
        "check_driver.c",
        TEMPLATE,
        context! {
        header => format!("{}.h", t.stem),
        fname => t.module.functions[0].name.clone(),
        bname => t.adjoint.function.name.clone(),
        data_len => plan.data.len(),
        step => format!("{step:e}"),
        params => calls::template_params(plan, &c),
        fwd_args => c.fwd_args,
        adj_args => c.adj_args,
        },
    )
}

pub fn build_and_run(t: &Transpiled, plan: &Plan, dir: &Path, args: &CheckArgs, step: f64) -> CliResult<Report> {
    let driver = render(t, plan, step)?;
    std::fs::write(dir.join("check_driver.c"), driver)
        .map_err(|e| CliError::Io(format!("cannot write driver: {e}")))?;
    let source = format!("{}.c", t.stem);
    build::compile(dir, CFLAGS, &[&source, "check_driver.c"], "check_driver", args.openmp)?;
    let exe = dir.join("check_driver");
    let stdout =
        build::run(Command::new(&exe).current_dir(dir).args(["inputs.bin", "forward.bin"]), "the check driver")?;
    let mut gradients = Vec::new();
    let mut primal = f64::INFINITY;
    let mut peak_bytes = 0;
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["grad", name, fd, ad] => {
                let fd: f64 = fd.parse().unwrap_or(f64::NAN);
                let ad: f64 = ad.parse().unwrap_or(f64::NAN);
                gradients.push(Gradient { name: name.to_string(), fd, ad, rel_err: rel_err(fd, ad) });
            }
            ["primal", v] => primal = v.parse().unwrap_or(f64::INFINITY),
            ["peak", v] => peak_bytes = v.parse().unwrap_or(0),
            _ => {}
        }
    }
    Ok(Report { gradients, primal_after_adjoint: primal, peak_bytes })
}

/// |a − b| relative to the larger magnitude; two (near) zeros agree.
pub fn rel_err(a: f64, b: f64) -> f64 {
    if !(a.is_finite() && b.is_finite()) {
        return f64::INFINITY;
    }
    let scale = a.abs().max(b.abs());
    if scale < 1e-300 {
        0.0
    } else {
        (a - b).abs() / scale
    }
}
