//! What the generated drivers of `adjc check` and `adjc bench` share: the plan of a run
//! (parameter values from `--sizes`, `--init`, `--inputs` and the seed), the data file,
//! the argument lists of the calls, and building and running the driver.

pub mod build;
pub mod calls;
pub mod data;

use std::collections::BTreeMap;

use adjc_ir::{eval::eval_int, Function, Intent, Scalar, VarId, VarRole};

use crate::cli::InputArgs;
use crate::cli_error::{CliError, CliResult};
use adjc::Transpiled;
use data::{Dist, Rng};

/// How a parameter takes part in a generated driver (check or bench).
#[derive(Clone, Debug)]
pub struct PlanParam {
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

impl PlanParam {
    pub fn count(&self) -> usize {
        self.shape.as_ref().map(|s| s.iter().product()).unwrap_or(1)
    }
    /// Bytes of the caller's buffer (arrays) or of the value (scalars).
    pub fn bytes(&self) -> usize {
        self.count() * calls::elem_size(self.elem)
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
    /// An integer or logical array the function reads (indices of a gather, masks): its
    /// values come from `--inputs` (stored in the data file as float64, exact below 2^53).
    pub fn is_int_array_input(&self) -> bool {
        !self.is_float() && self.shape.is_some() && self.intent != Intent::Out
    }
}

/// The parameters of one driver run with their values, and the data file it reads.
pub struct Plan {
    pub params: Vec<PlanParam>,
    pub data: Vec<f64>,
    pub sizes_text: String,
}

/// Most elements the arrays of one driver run may have together: the driver holds each
/// several times (values, adjoints, copies, the data file), so 2^27 elements (1 GiB of
/// float64 per copy) is already a large machine's worth.
pub const MAX_ELEMENTS: u64 = 1 << 27;

pub fn parse_sizes(specs: &[String]) -> CliResult<BTreeMap<String, i64>> {
    let mut out = BTreeMap::new();
    for s in specs.iter().filter(|s| !s.trim().is_empty()) {
        let (k, v) = s
            .split_once('=')
            .ok_or_else(|| CliError::Usage(format!("bad --sizes entry `{s}`: expected NAME=INTEGER")))?;
        let v: i64 = v
            .trim()
            .parse()
            .map_err(|_| CliError::Usage(format!("bad --sizes entry `{s}`: `{v}` is not an integer")))?;
        if out.insert(k.trim().to_string(), v).is_some() {
            return Err(CliError::Usage(format!("--sizes gives `{}` twice; give each name once", k.trim())));
        }
    }
    Ok(out)
}

/// `--inputs`: the archive must give every input (float inputs without an `--init`, and
/// integer arrays) and nothing else, so that a misspelt name is never replaced by random
/// values. Integer scalars may be in it when they agree with `--sizes`.
fn check_archive(
    f: &Function,
    path: &std::path::Path,
    arrays: &[data::NamedArray],
    params: &[PlanParam],
    inits: &BTreeMap<String, Dist>,
) -> CliResult<()> {
    let file = path.display();
    if arrays.is_empty() {
        return Err(CliError::Usage(format!("--inputs {file}: the archive holds no arrays")));
    }
    let wanted: Vec<&PlanParam> =
        params.iter().filter(|p| (p.is_int_array_input() || p.is_input()) && !inits.contains_key(&p.name)).collect();
    for (name, _, values) in arrays {
        let Some(p) = params.iter().find(|p| &p.name == name) else {
            let names: Vec<String> = wanted.iter().map(|p| format!("`{}`", p.name)).collect();
            return Err(CliError::Usage(format!(
                "--inputs {file}: `{name}` is not a parameter of `{}` (its inputs are {})",
                f.name,
                if names.is_empty() { "given otherwise".to_string() } else { names.join(", ") }
            )));
        };
        if let (Some(v), [x]) = (p.int_value, values.as_slice()) {
            if *x != v as f64 {
                return Err(CliError::Usage(format!(
                    "--inputs {file}: `{name}` is {x} in the archive but {v} in --sizes"
                )));
            }
            continue;
        }
        if !(p.is_input() || p.is_int_array_input()) {
            return Err(CliError::Usage(format!(
                "--inputs {file}: `{name}` is not an input of `{}` (it is only written, or takes its value from --sizes)",
                f.name
            )));
        }
        if inits.contains_key(name) {
            return Err(CliError::Usage(format!("`{name}` is given both by --inputs {file} and by --init")));
        }
    }
    let missing: Vec<String> = wanted
        .iter()
        .filter(|p| !arrays.iter().any(|(n, _, _)| n == &p.name))
        .map(|p| format!("`{}`", p.name))
        .collect();
    if !missing.is_empty() {
        return Err(CliError::Usage(format!(
            "--inputs {file}: the archive has no {} (it holds {}); add every input to it (a float input may \
             take --init NAME=DIST instead)",
            missing.join(", "),
            arrays.iter().map(|(n, _, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        )));
    }
    Ok(())
}

/// The default values of an integer array that indexes other arrays (a gather or a
/// scatter): uniform integers, with repeats, over the indices valid for every array it
/// indexes at these sizes (the entry checks `assume every idx in [lo, hi]`), non-negative
/// ones where NumPy's negative indices would also be valid. `None` when it indexes nothing.
fn index_range(f: &Function, arr: VarId, env: &dyn Fn(VarId) -> Option<i64>) -> Option<(i64, i64)> {
    let mut range: Option<(i64, i64)> = None;
    for a in f.assumptions.iter().filter(|a| a.each == Some(arr)) {
        if let Some(g) = &a.guard {
            if eval_int(g, env) == Some(0) {
                continue;
            }
        }
        let (lo, hi) = (eval_int(&a.lhs, env)?, eval_int(&a.rhs, env)?);
        range = Some(match range {
            None => (lo, hi),
            Some((l, h)) => (l.max(lo), h.min(hi)),
        });
    }
    let (lo, hi) = range?;
    let lo = if lo < 0 && hi >= 0 { 0 } else { lo };
    (lo <= hi).then_some((lo, hi))
}

fn sizes_text(sizes: &BTreeMap<String, i64>) -> String {
    sizes.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")
}

pub fn plan(t: &Transpiled, sizes: &[String], args: &InputArgs) -> CliResult<Plan> {
    let f: &Function = &t.module.functions[0];
    // Fortran is case-insensitive: `--sizes n=8` and `--init omega=...` name `N`, `OMEGA`.
    let fortran = adjc::Language::of(std::path::Path::new(&t.module.file)) == Some(adjc::Language::Fortran);
    let name_of = |given: String| if fortran { adjc::fortran_name(f, &given) } else { given };
    let sizes: BTreeMap<String, i64> = parse_sizes(sizes)?.into_iter().map(|(k, v)| (name_of(k), v)).collect();
    let mut inits: BTreeMap<String, Dist> = BTreeMap::new();
    for spec in &args.inits {
        let size = |n: &str| sizes.get(&name_of(n.to_string())).copied();
        let (name, dist) = data::parse_init(spec, &size)?;
        inits.insert(name_of(name), dist);
    }
    // Integer parameters first: extents are formulas of them.
    let mut int_values: BTreeMap<VarId, i64> = BTreeMap::new();
    let mut missing = Vec::new();
    for p in &f.params {
        let var = f.var(p.var);
        let flag = var.ty == adjc_ir::Type::Scalar(Scalar::Bool);
        if var.ty == adjc_ir::Type::Scalar(Scalar::I64) || flag {
            match sizes.get(&var.name) {
                Some(v) if flag && *v != 0 && *v != 1 => {
                    return Err(CliError::Usage(format!("--sizes {}={v}: a logical parameter takes 0 or 1", var.name)));
                }
                Some(v) => {
                    int_values.insert(p.var, *v);
                }
                None => missing.push(var.name.clone()),
            }
        }
    }
    if !missing.is_empty() {
        return Err(CliError::Usage(format!(
            "`{}` needs values for its integer and logical parameters: add --sizes {}",
            f.name,
            missing.iter().map(|m| format!("{m}=...")).collect::<Vec<_>>().join(",")
        )));
    }
    for name in sizes.keys() {
        if !f.params.iter().any(|p| &f.var(p.var).name == name) {
            return Err(CliError::Usage(format!("--sizes names `{name}`, which is not a parameter of `{}`", f.name)));
        }
    }
    for (name, dist) in &inits {
        let Some(p) = f.params.iter().find(|p| &f.var(p.var).name == name) else {
            return Err(CliError::Usage(format!("--init names `{name}`, which is not an input of `{}`", f.name)));
        };
        let ty = &f.var(p.var).ty;
        let index_array = ty.is_array() && ty.elem() == Scalar::I64;
        if !ty.elem().is_float() && !index_array {
            return Err(CliError::Usage(format!(
                "--init names `{name}`, which is not a float input or an integer array of `{}`",
                f.name
            )));
        }
        let integral = matches!(dist, Dist::RandInt(..) | Dist::Permutation(_))
            || matches!(dist, Dist::Const(c) if c.fract() == 0.0 && c.abs() < 9.0e15);
        if !ty.elem().is_float() && !integral {
            return Err(CliError::Usage(format!(
                "--init {name}: `{name}` is an integer array: give randint(lo,hi), permutation(n) or const(k)"
            )));
        }
    }
    let env = |v: VarId| int_values.get(&v).copied();
    let mut params = Vec::new();
    let mut total: u64 = 0;
    for p in &f.params {
        let var = f.var(p.var);
        let shape = match &var.ty {
            adjc_ir::Type::Scalar(_) => None,
            adjc_ir::Type::Array { dims, .. } => {
                let mut shape = Vec::new();
                let too_big = || {
                    CliError::Usage(format!(
                        "--sizes ({}): the array arguments of `{}` would have more than {MAX_ELEMENTS} (2^27) \
                         elements together (at `{}`), the most adjc check and bench generate: choose smaller sizes",
                        sizes_text(&sizes),
                        f.name,
                        var.name
                    ))
                };
                let mut count: u64 = 1;
                for d in dims {
                    // An extent formula that overflows 64-bit arithmetic is far over the limit.
                    let n = eval_int(&d.extent, &env).ok_or_else(|| {
                        if adjc_ir::eval::eval_int(&d.extent, &|v| env(v).map(|_| 1)).is_some() {
                            too_big()
                        } else {
                            CliError::Usage(format!("cannot compute the shape of `{}` from --sizes", var.name))
                        }
                    })?;
                    if n < 0 {
                        return Err(CliError::Usage(format!("`{}` would have a negative extent ({n})", var.name)));
                    }
                    count = count.saturating_mul(n as u64);
                    shape.push(n as usize);
                }
                total = total.saturating_add(count);
                if total > MAX_ELEMENTS {
                    return Err(too_big());
                }
                Some(shape)
            }
        };
        params.push(PlanParam {
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
    // The data file: initial values of every input, then directions, then weights.
    let mut rng = Rng::new(args.seed);
    let mut data_values = Vec::new();
    let npz = match &args.inputs {
        Some(path) => {
            let arrays = data::read_npz(path)?;
            check_archive(f, path, &arrays, &params, &inits)?;
            arrays
        }
        None => Vec::new(),
    };
    for p in params.iter_mut().filter(|p| p.is_input() || p.is_int_array_input()) {
        let shape = p.shape.clone().unwrap_or_default();
        let values = if let Some((_, s, v)) = npz.iter().find(|(n, _, _)| n == &p.name) {
            if v.len() != p.count() || (p.shape.is_some() && s != &shape) {
                return Err(CliError::Usage(format!(
                    "--inputs: `{}` has shape {:?} in the file but {:?} for these sizes",
                    p.name, s, shape
                )));
            }
            if !p.is_float() {
                let bad = v.iter().find(|x| {
                    x.fract() != 0.0 || x.abs() > 9.0e15 || (p.elem == Scalar::Bool && **x != 0.0 && **x != 1.0)
                });
                if let Some(x) = bad {
                    let kind = if p.elem == Scalar::Bool { "0 or 1" } else { "an integer" };
                    return Err(CliError::Usage(format!(
                        "--inputs: `{}` holds {x}, which is not {kind} (`{}` is a {} array)",
                        p.name,
                        p.name,
                        if p.elem == Scalar::Bool { "logical" } else { "integer" }
                    )));
                }
            }
            v.clone()
        } else if let (Some(Dist::Permutation(n)), false) = (inits.get(&p.name), p.is_float()) {
            // A permutation of the first n valid indices: 0.. in Python, from the lower bound
            // (1..n) in Fortran.
            let base = index_range(f, p.var, &env).map(|(lo, _)| lo).unwrap_or(0);
            let values = data::fill(&Dist::Permutation(*n), &shape, &mut rng, &p.name)?;
            values.into_iter().map(|v| v + base as f64).collect()
        } else if !p.is_float() && !inits.contains_key(&p.name) {
            let Some(dist) = index_range(f, p.var, &env).map(|(lo, hi)| Dist::RandInt(lo, hi.saturating_add(1))) else {
                return Err(CliError::Usage(format!(
                    "adjc cannot make up values for the integer array `{}` (it indexes no array, so no range \
                     is known): give them with --init {}=randint(lo,hi) or permutation(n), or in an .npz \
                     archive with --inputs FILE.npz",
                    p.name, p.name
                )));
            };
            data::fill(&dist, &shape, &mut rng, &p.name)?
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
    let sizes_text = sizes_text(&sizes);
    Ok(Plan { params, data: data_values, sizes_text })
}
