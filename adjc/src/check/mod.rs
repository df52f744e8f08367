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
//! the forward outputs.

mod data;
mod driver;
mod numpy;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use adjc_ir::{eval::eval_int, Function, Intent, Scalar, VarId, VarRole};

use crate::cli::{CheckArgs, CliError, CliResult};
use crate::pipeline::{self, Transpiled};
use data::{Dist, Rng};

/// How a parameter takes part in the check.
#[derive(Clone, Debug)]
pub struct CheckParam {
    pub var: VarId,
    pub name: String,
    pub role: VarRole,
    pub intent: Intent,
    pub elem: Scalar,
    /// `None` for scalars.
    pub shape: Option<Vec<usize>>,
    /// Integer parameters: the value from `--sizes`.
    pub int_value: Option<i64>,
    pub wrt: bool,
    pub of: bool,
    /// Offsets (in float64 values) into the data file.
    pub x_off: Option<usize>,
    pub v_off: Option<usize>,
    pub w_off: Option<usize>,
}

impl CheckParam {
    pub fn count(&self) -> usize {
        self.shape.as_ref().map(|s| s.iter().product()).unwrap_or(1)
    }
    pub fn is_float(&self) -> bool {
        self.elem.is_float()
    }
    /// A float value the function reads: its initial value comes from the data file.
    pub fn is_input(&self) -> bool {
        self.is_float() && self.intent != Intent::Out
    }
    /// A float value the function writes: compared with NumPy and after the adjoint.
    pub fn is_output(&self) -> bool {
        self.is_float() && self.intent != Intent::In
    }
}

/// The whole plan of one check: parameters with their values and the data file.
pub struct Plan {
    pub params: Vec<CheckParam>,
    pub data: Vec<f64>,
    pub sizes_text: String,
}

fn parse_sizes(specs: &[String]) -> CliResult<BTreeMap<String, i64>> {
    let mut out = BTreeMap::new();
    for s in specs.iter().filter(|s| !s.trim().is_empty()) {
        let (k, v) = s
            .split_once('=')
            .ok_or_else(|| CliError::Usage(format!("bad --sizes entry `{s}`: expected NAME=INTEGER")))?;
        let v: i64 = v
            .trim()
            .parse()
            .map_err(|_| CliError::Usage(format!("bad --sizes entry `{s}`: `{v}` is not an integer")))?;
        out.insert(k.trim().to_string(), v);
    }
    Ok(out)
}

fn plan(t: &Transpiled, args: &CheckArgs) -> CliResult<Plan> {
    let f: &Function = &t.module.functions[0];
    let sizes = parse_sizes(&args.sizes)?;
    let mut inits: BTreeMap<String, Dist> = BTreeMap::new();
    for spec in &args.inits {
        let (name, dist) = data::parse_init(spec)?;
        inits.insert(name, dist);
    }
    // Integer parameters first: extents are formulas of them.
    let mut int_values: BTreeMap<VarId, i64> = BTreeMap::new();
    let mut missing = Vec::new();
    for p in &f.params {
        let var = f.var(p.var);
        if var.ty == adjc_ir::Type::Scalar(Scalar::I64) {
            match sizes.get(&var.name) {
                Some(v) => {
                    int_values.insert(p.var, *v);
                }
                None => missing.push(var.name.clone()),
            }
        }
    }
    if !missing.is_empty() {
        return Err(CliError::Usage(format!(
            "`{}` needs values for its integer parameters: add --sizes {}",
            f.name,
            missing.iter().map(|m| format!("{m}=...")).collect::<Vec<_>>().join(",")
        )));
    }
    for name in sizes.keys() {
        if !f.params.iter().any(|p| &f.var(p.var).name == name) {
            return Err(CliError::Usage(format!("--sizes names `{name}`, which is not a parameter of `{}`", f.name)));
        }
    }
    for name in inits.keys() {
        if !f.params.iter().any(|p| &f.var(p.var).name == name && f.var(p.var).ty.elem().is_float()) {
            return Err(CliError::Usage(format!("--init names `{name}`, which is not a float input of `{}`", f.name)));
        }
    }
    let env = |v: VarId| int_values.get(&v).copied();
    let mut params = Vec::new();
    for p in &f.params {
        let var = f.var(p.var);
        let shape = match &var.ty {
            adjc_ir::Type::Scalar(_) => None,
            adjc_ir::Type::Array { dims, .. } => {
                let mut shape = Vec::new();
                for d in dims {
                    let n = eval_int(&d.extent, &env).ok_or_else(|| {
                        CliError::Usage(format!("cannot compute the shape of `{}` from --sizes", var.name))
                    })?;
                    if n < 0 {
                        return Err(CliError::Usage(format!("`{}` would have a negative extent ({n})", var.name)));
                    }
                    shape.push(n as usize);
                }
                Some(shape)
            }
        };
        if var.ty.elem() == Scalar::Bool || (var.ty.is_array() && var.ty.elem() == Scalar::I64) {
            return Err(CliError::Usage(format!(
                "`adjc check` cannot generate values for `{}` of type {}",
                var.name,
                adjc_ir::print::type_str(f, &var.ty)
            )));
        }
        params.push(CheckParam {
            var: p.var,
            name: var.name.clone(),
            role: var.role.clone(),
            intent: p.intent,
            elem: var.ty.elem(),
            shape,
            int_value: int_values.get(&p.var).copied(),
            wrt: t.adjoint.wrt.contains(&p.var),
            of: t.adjoint.of.contains(&p.var),
            x_off: None,
            v_off: None,
            w_off: None,
        });
    }
    // The data file: initial values of every float input, then directions, then weights.
    let mut rng = Rng::new(args.seed);
    let mut data_values = Vec::new();
    let npz = match &args.inputs {
        Some(path) => data::read_npz(path)?,
        None => Vec::new(),
    };
    for p in params.iter_mut().filter(|p| p.is_input()) {
        let shape = p.shape.clone().unwrap_or_default();
        let values = if let Some((_, s, v)) = npz.iter().find(|(n, _, _)| n == &p.name) {
            if v.len() != p.count() || (p.shape.is_some() && s != &shape) {
                return Err(CliError::Usage(format!(
                    "--inputs: `{}` has shape {:?} in the file but {:?} for these sizes",
                    p.name, s, shape
                )));
            }
            v.clone()
        } else {
            let dist = inits.get(&p.name).unwrap_or(&data::DEFAULT_DIST);
            data::fill(dist, &shape, &mut rng, &p.name)?
        };
        p.x_off = Some(data_values.len());
        data_values.extend(values);
    }
    for p in params.iter_mut().filter(|p| p.wrt) {
        p.v_off = Some(data_values.len());
        data_values.extend((0..p.count()).map(|_| rng.uniform(-1.0, 1.0)));
    }
    for p in params.iter_mut().filter(|p| p.of) {
        p.w_off = Some(data_values.len());
        data_values.extend((0..p.count()).map(|_| rng.uniform(-1.0, 1.0)));
    }
    let sizes_text = sizes.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ");
    Ok(Plan { params, data: data_values, sizes_text })
}

fn build_dir(args: &CheckArgs) -> CliResult<(PathBuf, Option<TempDir>)> {
    if let Some(dir) = &args.keep {
        std::fs::create_dir_all(dir).map_err(|e| CliError::Io(format!("cannot create {}: {e}", dir.display())))?;
        return Ok((dir.clone(), None));
    }
    let tmp = TempDir::new()?;
    Ok((tmp.0.clone(), Some(tmp)))
}

/// A build directory removed when the check is over.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> CliResult<TempDir> {
        let base = std::env::temp_dir();
        for k in 0..1000u32 {
            let dir = base.join(format!("adjc-check-{}-{k}", std::process::id()));
            if std::fs::create_dir(&dir).is_ok() {
                return Ok(TempDir(dir));
            }
        }
        Err(CliError::Io("cannot create a temporary build directory".into()))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn write_f64s(path: &Path, values: &[f64]) -> CliResult<()> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).map_err(|e| CliError::Io(format!("cannot write {}: {e}", path.display())))
}

pub fn run_check(args: &CheckArgs) -> CliResult<()> {
    let t = pipeline::transpile(&args.transpile, &pipeline::command_line())?;
    let plan = plan(&t, args)?;
    let (dir, _guard) = build_dir(args)?;
    pipeline::write_files(&t, &dir)?;
    write_f64s(&dir.join("inputs.bin"), &plan.data)?;
    let primal = &t.module.functions[0];
    let f32_kernel = plan.params.iter().any(|p| p.elem == Scalar::F32);
    let tol = args.tol.unwrap_or(if f32_kernel { 1e-2 } else { 1e-6 });
    // float32 cannot resolve a 1e-6 perturbation of O(1) values: larger step, looser tolerance.
    let step = args.step.unwrap_or(if f32_kernel { 1e-3 } else { 1e-6 });
    println!(
        "adjc check: {} ({}), seed {}, step {:e}, {}",
        primal.name,
        if plan.sizes_text.is_empty() { "no sizes".to_string() } else { plan.sizes_text.clone() },
        args.seed,
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
    if !primal_ok {
        failures.push("the adjoint leaves different primal outputs than the forward function".into());
    }
    if args.no_python {
        println!("  forward vs Python: skipped (--no-python)");
    } else {
        match numpy::compare(&t, &plan, &dir, &args.transpile.file)? {
            numpy::Outcome::Skipped(why) => println!("  forward vs NumPy: skipped ({why})"),
            numpy::Outcome::Compared(rows) => {
                let ftol = if f32_kernel { 1e-4 } else { 1e-9 };
                for (name, err) in rows {
                    let ok = err <= ftol;
                    println!(
                        "  forward vs NumPy: {:<10} max rel. error {:.2e}   {}",
                        name,
                        err,
                        if ok { "ok" } else { "FAILED" }
                    );
                    if !ok {
                        failures.push(format!("forward output `{name}` differs from NumPy (rel. error {err:.2e})"));
                    }
                }
            }
        }
    }
    if failures.is_empty() {
        println!("check passed");
        Ok(())
    } else {
        Err(CliError::CheckFailed(failures.join("; ")))
    }
}
