//! Renders the check driver (`templates/check_driver.c.j2`), compiles it with the generated
//! code using the system C compiler, runs it and reads its report.

use std::path::Path;
use std::process::Command;

use adjc_ir::{Intent, Scalar, VarRole};
use minijinja::{context, Value};

use super::{CheckParam, Plan};
use crate::cli::{CheckArgs, CliError, CliResult};
use crate::pipeline::Transpiled;

const TEMPLATE: &str = include_str!("../../../templates/check_driver.c.j2");

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
}

fn ctype(s: Scalar) -> &'static str {
    match s {
        Scalar::F32 => "float",
        Scalar::F64 => "double",
        Scalar::I64 => "int64_t",
        Scalar::Bool => "bool",
    }
}

/// The C argument passing `p` to a function: integers as literals, In scalars by value,
/// everything else as a pointer to the driver's buffer.
fn primal_arg(p: &CheckParam, idx: usize) -> String {
    match (p.int_value, &p.shape, p.intent) {
        (Some(v), _, _) => format!("(int64_t){v}"),
        (None, None, Intent::In) => format!("p{idx}[0]"),
        _ => format!("p{idx}"),
    }
}

fn render(t: &Transpiled, plan: &Plan, step: f64) -> CliResult<String> {
    let primal = &t.module.functions[0];
    let adjoint = &t.adjoint.function;
    let pos = |v| plan.params.iter().position(|p| p.var == v);
    let fwd_args: Vec<String> = plan.params.iter().enumerate().map(|(k, p)| primal_arg(p, k)).collect();
    let mut adj_args = Vec::new();
    let mut has_adjoint = vec![false; plan.params.len()];
    for ap in &adjoint.params {
        let var = adjoint.var(ap.var);
        match &var.role {
            VarRole::Adjoint(of) => {
                let k = pos(*of)
                    .ok_or_else(|| CliError::CheckFailed(format!("adjoint `{}` of a non-parameter", var.name)))?;
                has_adjoint[k] = true;
                let by_value = !var.ty.is_array() && ap.intent == Intent::In;
                adj_args.push(if by_value { format!("b{k}[0]") } else { format!("b{k}") });
            }
            _ => {
                let k = pos(ap.var).ok_or_else(|| {
                    CliError::CheckFailed(format!(
                        "adjoint parameter `{}` is not a parameter of the forward function",
                        var.name
                    ))
                })?;
                adj_args.push(primal_arg(&plan.params[k], k));
            }
        }
    }
    let params: Vec<Value> = plan
        .params
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let count = p.count();
            Value::from(serde_like(k, p, count, has_adjoint[k]))
        })
        .collect();
    crate::templates::render(
        "check_driver.c",
        TEMPLATE,
        context! {
        header => format!("{}.h", t.stem),
        fname => primal.name.clone(),
        bname => adjoint.name.clone(),
        data_len => plan.data.len(),
        step => format!("{step:e}"),
        params => params,
        fwd_args => fwd_args.join(", "),
        adj_args => adj_args.join(", "),
        },
    )
}

fn serde_like(
    k: usize,
    p: &CheckParam,
    count: usize,
    adjoint: bool,
) -> std::collections::BTreeMap<&'static str, Value> {
    let mut m = std::collections::BTreeMap::new();
    m.insert("idx", Value::from(k));
    m.insert("name", Value::from(p.name.clone()));
    m.insert("ctype", Value::from(ctype(p.elem)));
    m.insert("count", Value::from(count));
    m.insert("alloc", Value::from(count.max(1)));
    m.insert("float", Value::from(p.is_float()));
    m.insert("input", Value::from(p.is_input()));
    m.insert("output", Value::from(p.is_output()));
    m.insert("wrt", Value::from(p.wrt));
    m.insert("of", Value::from(p.of));
    m.insert("adjoint", Value::from(adjoint));
    m.insert("x_off", Value::from(p.x_off.unwrap_or(0)));
    m.insert("v_off", Value::from(p.v_off.unwrap_or(0)));
    m.insert("w_off", Value::from(p.w_off.unwrap_or(0)));
    m
}

fn run(cmd: &mut Command, what: &str) -> CliResult<String> {
    let out = cmd.output().map_err(|e| CliError::CheckFailed(format!("cannot run {what}: {e}")))?;
    if !out.status.success() {
        return Err(CliError::CheckFailed(format!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `cc` (or `$CC`) with the project's strict flags, `$CFLAGS` appended.
pub fn compile(dir: &Path, sources: &[&str], exe: &str, openmp: bool) -> CliResult<()> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut cmd = Command::new(&cc);
    cmd.current_dir(dir).args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", "-I."]);
    if openmp {
        cmd.arg("-fopenmp");
    }
    if let Ok(flags) = std::env::var("CFLAGS") {
        cmd.args(flags.split_whitespace());
    }
    cmd.args(sources).args(["-o", exe, "-lm"]);
    run(&mut cmd, &format!("the C compiler (`{cc}`)")).map(|_| ())
}

pub fn build_and_run(t: &Transpiled, plan: &Plan, dir: &Path, args: &CheckArgs, step: f64) -> CliResult<Report> {
    let driver = render(t, plan, step)?;
    std::fs::write(dir.join("check_driver.c"), driver)
        .map_err(|e| CliError::Io(format!("cannot write driver: {e}")))?;
    let source = format!("{}.c", t.stem);
    compile(dir, &[&source, "check_driver.c"], "check_driver", args.openmp)?;
    let exe = dir.join("check_driver");
    let stdout = run(Command::new(&exe).current_dir(dir).args(["inputs.bin", "forward.bin"]), "the check driver")?;
    let mut gradients = Vec::new();
    let mut primal = f64::INFINITY;
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["grad", name, fd, ad] => {
                let fd: f64 = fd.parse().unwrap_or(f64::NAN);
                let ad: f64 = ad.parse().unwrap_or(f64::NAN);
                gradients.push(Gradient { name: name.to_string(), fd, ad, rel_err: rel_err(fd, ad) });
            }
            ["primal", v] => primal = v.parse().unwrap_or(f64::INFINITY),
            _ => {}
        }
    }
    Ok(Report { gradients, primal_after_adjoint: primal })
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
