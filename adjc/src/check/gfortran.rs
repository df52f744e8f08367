//! The forward check against the original Fortran: compiles the user's source with
//! gfortran together with a generated driver (`templates/check_gfortran.f90.j2`) that reads
//! the C driver's `inputs.bin` (arrays as flat element sequences: memory order, which is
//! column-major for Fortran arrays), calls the routine and writes its outputs in the order
//! of `forward.bin`; then compares both files.

use std::path::Path;
use std::process::Command;

use adjc_frontend::fortran::derived::DummyBinding;
use adjc_frontend::fortran::{FortranState, Origin};
use adjc_ir::{Intent, Scalar, VarRole};
use minijinja::context;

use crate::cli_error::{CliError, CliResult};
use crate::harness::Plan;
use adjc::Transpiled;

use super::numpy::Outcome;

/// `$ADJC_GFORTRAN`, else `gfortran`, when it runs.
fn gfortran() -> Option<String> {
    let exe = std::env::var("ADJC_GFORTRAN").unwrap_or_else(|_| "gfortran".into());
    let ok = Command::new(&exe).arg("--version").output().is_ok_and(|o| o.status.success());
    ok.then_some(exe)
}

/// Where the routine lives in the source: `Ok(Some(module))`, `Ok(None)` at top level, or
/// why the driver cannot call it (inside a program or another routine).
pub fn container(source: &str, routine: &str, fixed_form: bool) -> Result<Option<String>, String> {
    let routine = routine.to_ascii_lowercase();
    let mut module: Option<String> = None;
    let mut program = false;
    let mut depth = 0usize;
    for raw in source.lines() {
        if fixed_form && raw.starts_with(['c', 'C', '*']) {
            continue;
        }
        let line = raw.split('!').next().unwrap_or("").trim().to_ascii_lowercase();
        let words: Vec<&str> =
            line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        let Some(first) = words.first() else { continue };
        match *first {
            "module" if words.get(1).is_some_and(|w| *w != "procedure") => module = words.get(1).map(|w| w.to_string()),
            "program" => program = true,
            "end" | "endmodule" | "endprogram" | "endsubroutine" | "endfunction" => {
                let what = if *first == "end" { words.get(1).copied().unwrap_or("") } else { &first[3..] };
                match what {
                    // F77's bare `end` closes the routine (or the program).
                    "" if depth > 0 => depth -= 1,
                    "" => program = false,
                    "module" => module = None,
                    "program" => program = false,
                    "subroutine" | "function" => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            _ => {
                // `subroutine f(`, `pure real(8) function f(`, `recursive subroutine f`, ...
                let Some(k) = words.iter().position(|w| *w == "subroutine" || *w == "function") else { continue };
                if words[..k].contains(&"end") {
                    continue;
                }
                let name = words.get(k + 1).copied().unwrap_or("");
                if name == routine {
                    if program {
                        return Err("the routine is inside a program".into());
                    }
                    if depth > 0 {
                        return Err("the routine is contained in another routine".into());
                    }
                    return Ok(module);
                }
                depth += 1;
            }
        }
    }
    Ok(None)
}

/// The routine's state as the driver reaches it: `use` lines renaming the module variables
/// to the driver's names (`use m, only: adjc_p3 => alpha`), and the COMMON blocks declared
/// with the driver's names for the members that are parameters (storage association is by
/// position) and `adjc_cB_M` for the others.
///
/// A component of a module variable of derived type (`yrecldp%ramid`) cannot be renamed by
/// `use`: the variable is used (allocated first when it is a pointer not associated) and
/// the executable part runs inside `associate (adjc_pK => yrecldp%ramid)` (the third
/// result: the lines opening it).
fn state_lines(plan: &Plan, state: &FortranState) -> (Vec<String>, Vec<String>, Vec<String>) {
    let index = |name: &str| plan.params.iter().position(|p| p.name == name);
    let mut uses = Vec::new();
    let mut roots: Vec<(String, String, bool)> = Vec::new();
    let mut assoc = Vec::new();
    for sp in &state.params {
        if let (Origin::Module { module, var, pointer }, Some(k)) = (&sp.origin, index(&sp.name)) {
            match var.split_once('%') {
                Some((root, _)) => {
                    if !roots.iter().any(|(m, r, _)| m == module && r == root) {
                        roots.push((module.clone(), root.to_string(), *pointer));
                    }
                    assoc.push(format!("adjc_p{k} => {var}"));
                }
                None => uses.push(format!("use {module}, only: adjc_p{k} => {var}")),
            }
        }
    }
    let mut open = Vec::new();
    for (module, root, pointer) in &roots {
        uses.push(format!("use {module}, only: {root}"));
        if *pointer {
            open.push(format!("if (.not. associated({root})) allocate({root})"));
        }
    }
    if !assoc.is_empty() {
        open.push(format!("associate ({})", assoc.join(", ")));
    }
    let mut commons = Vec::new();
    for (b, c) in state.commons.iter().enumerate() {
        let mut names = Vec::new();
        for (m, member) in c.members.iter().enumerate() {
            match member.param.as_deref().and_then(index) {
                Some(k) => names.push(format!("adjc_p{k}")),
                None => {
                    let name = format!("adjc_c{b}_{m}");
                    commons.push(format!("{} :: {name}{}", member.type_decl, member.bounds));
                    names.push(name);
                }
            }
        }
        let block = c.block.as_deref().map(|b| format!("/{b}/ ")).unwrap_or_default();
        commons.push(format!("common {block}{}", names.join(", ")));
    }
    (uses, commons, open)
}

fn fortran_type(s: Scalar) -> &'static str {
    match s {
        Scalar::F64 => "real(kind(1.0d0))",
        Scalar::F32 => "real(kind(1.0))",
        Scalar::I64 => "integer",
        Scalar::Bool => "logical",
    }
}

/// `sanitize` (`check --sanitize`): the original and the driver are built with
/// `-fcheck=all` (bounds, pointers, ...) and a runtime error is a failure of the check.
pub fn compare(
    t: &Transpiled,
    plan: &Plan,
    dir: &Path,
    flags: &[String],
    fixed_form: bool,
    sanitize: bool,
) -> CliResult<Outcome> {
    run_program(t, plan, dir, flags, fixed_form, sanitize, None)
}

/// The drop-in wrappers (`<stem>_adjc_wrap.f90`, see `adjc_emit::emit_fortran_wrappers`)
/// against the C: a Fortran program passes the check's inputs and seeds to `<routine>_b` as
/// a Fortran caller of the original routine would (its integer kinds and bounds, COMMON and
/// module state where it lives) and writes what the adjoint left, which must equal what the
/// C driver's own call left (`adjoint.bin`): every adjoint argument and primal output.
/// `openmp`: the C was built with `-fopenmp` (so is the program's link).
pub fn compare_wrappers(
    t: &Transpiled,
    plan: &Plan,
    dir: &Path,
    flags: &[String],
    fixed_form: bool,
    openmp: bool,
) -> CliResult<Outcome> {
    let text = match t.fortran_wrappers() {
        None => return Ok(Outcome::Skipped("not a Fortran source".into())),
        Some(Err(why)) => return Ok(Outcome::Skipped(format!("no wrappers: {why}"))),
        Some(Ok(text)) => text,
    };
    if t.fortran_bindings.as_ref().is_some_and(|b| b.dummies.iter().any(|d| matches!(d, DummyBinding::Derived(_)))) {
        return Ok(Outcome::Skipped(
            "derived-type dummies (their wrappers are tested by adjc/tests/fortran_drivers)".into(),
        ));
    }
    std::fs::write(dir.join(format!("{}_adjc_wrap.f90", t.stem)), text)
        .map_err(|e| CliError::Io(format!("cannot write the wrappers: {e}")))?;
    run_program(t, plan, dir, flags, fixed_form, false, Some(openmp))
}

/// The gfortran program of [`compare`] (`wrapper: None`: the original routine on the
/// inputs) or of [`compare_wrappers`] (`Some(openmp)`: `<routine>_b` of the wrappers on
/// the inputs and seeds).
fn run_program(
    t: &Transpiled,
    plan: &Plan,
    dir: &Path,
    flags: &[String],
    fixed_form: bool,
    sanitize: bool,
    wrapper: Option<bool>,
) -> CliResult<Outcome> {
    let Some(gfortran) = gfortran() else {
        return Ok(Outcome::Skipped("gfortran not found; set ADJC_GFORTRAN".into()));
    };
    let primal = &t.module.functions[0];
    let module = match container(&t.module.source, &t.routine, fixed_form) {
        Ok(m) => m,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let returns: Vec<usize> = (0..plan.params.len()).filter(|&k| plan.params[k].role == VarRole::Return).collect();
    if returns.len() > 1 {
        return Ok(Outcome::Skipped("the function returns several values".into()));
    }
    let int_kinds = adjc::fortran_kinds::integer_kinds(&t.module.source, &t.routine);
    let state = &t.fortran_state;
    let (uses, commons, assoc) = state_lines(plan, state);
    let mut params = Vec::new();
    let mut args = Vec::new();
    let mut wrapper_args: Vec<Vec<String>> = Vec::new();
    let mut trailing = Vec::new();
    let adjoints = crate::harness::calls::calls(t, plan)?.has_adjoint;
    let mut seeds = Vec::new();
    let mut ret_type = String::new();
    for (k, p) in plan.params.iter().enumerate() {
        if !matches!(p.role, VarRole::Param | VarRole::Return) {
            continue;
        }
        let origin = state.origin(&p.name);
        let member_type = state
            .commons
            .iter()
            .flat_map(|c| &c.members)
            .find(|m| m.param.as_deref() == Some(p.name.as_str()))
            .map(|m| m.type_decl.clone());
        let decl = match (member_type, int_kinds.get(&p.name.to_ascii_lowercase())) {
            (Some(t), _) => t,
            (None, Some(k)) if p.elem == Scalar::I64 && origin.is_none() => format!("integer({k})"),
            _ => fortran_type(p.elem).to_string(),
        };
        let shape = match &p.shape {
            Some(s) => format!("({})", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
            None => String::new(),
        };
        if p.role == VarRole::Return {
            if p.shape.is_some() && module.is_none() {
                return Ok(Outcome::Skipped("an array-valued function outside a module".into()));
            }
            ret_type = decl.clone();
        } else {
            // (Assumed-size dummies, `x(*)`, need no explicit interface: their extents are
            // size parameters too, documented as such.)
            let assumed_shape = primal
                .params
                .iter()
                .any(|q| primal.var(q.var).role == VarRole::Size && q.doc.contains("(assumed shape)"));
            if p.shape.as_ref().is_some_and(|_| module.is_none()) && assumed_shape {
                return Ok(Outcome::Skipped("assumed-shape dummies of a routine outside a module".into()));
            }
            if origin.is_none() {
                args.push(format!("adjc_p{k}"));
                let mut group = vec![format!("adjc_p{k}")];
                if adjoints[k] {
                    group.push(format!("adjc_b{k}"));
                }
                wrapper_args.push(group);
            }
        }
        // The wrappers take results and adjoints of state last, in the C's order.
        if adjoints[k] && origin.is_some() {
            trailing.push(format!("adjc_b{k}"));
        }
        if p.role == VarRole::Return {
            trailing.push(format!("adjc_p{k}"));
            if adjoints[k] {
                trailing.push(format!("adjc_b{k}"));
            }
        }
        let cast = |v: String| match p.elem {
            Scalar::F32 => format!("real({v}, kind(1.0))"),
            Scalar::I64 => format!("int({v}, kind(adjc_p{k}))"),
            Scalar::Bool => format!("({v} /= 0)"),
            Scalar::F64 => v,
        };
        let init = match (p.int_value, &p.shape) {
            (Some(v), _) if p.elem == Scalar::Bool => (if v != 0 { ".true." } else { ".false." }).to_string(),
            (Some(v), _) => v.to_string(),
            _ if p.role == VarRole::Return => String::new(),
            (None, _) if p.intent == Intent::Out || p.x_off.is_none() => {
                if p.shape.is_some() {
                    "0".into()
                } else {
                    String::new()
                }
            }
            (None, None) => cast(format!("adjc_data({})", p.x_off.unwrap_or(0) + 1)),
            (None, Some(s)) => {
                let off = p.x_off.unwrap_or(0);
                let flat = format!("adjc_data({}:{})", off + 1, off + p.count());
                let value = if s.len() == 1 {
                    flat
                } else {
                    format!("reshape({flat}, [{}])", s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "))
                };
                cast(value)
            }
        };
        // The adjoint's seed: the weights of an output, zero for the rest.
        if adjoints[k] {
            let seed = match (p.w_off, &p.shape) {
                (Some(off), None) => format!("adjc_data({})", off + 1),
                (Some(off), Some(s)) if s.len() == 1 => format!("adjc_data({}:{})", off + 1, off + p.count()),
                (Some(off), Some(s)) => format!(
                    "reshape(adjc_data({}:{}), [{}])",
                    off + 1,
                    off + p.count(),
                    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
                ),
                (None, _) => "0".into(),
            };
            let seed = if p.elem == Scalar::F32 { format!("real({seed}, kind(1.0))") } else { seed };
            seeds.push(context! { idx => k, decl => decl.clone(), shape => shape.clone(), seed => seed });
        }
        // A module variable is declared by its module (`use m, only: adjc_pK => v`).
        let declare = !matches!(origin, Some(Origin::Module { .. }));
        params.push(context! { idx => k, decl => decl, shape => shape, init => init, output => p.is_output(), declare => declare });
    }
    // The `character` dummies the C leaves out take a blank text.
    for &k in &t.fortran_state.text_dummies {
        args.insert(k.min(args.len()), "' '".to_string());
        wrapper_args.insert(k.min(wrapper_args.len()), vec!["' '".to_string()]);
    }
    let mut wrapper_call: Vec<String> = wrapper_args.into_iter().flatten().collect();
    wrapper_call.extend(trailing);
    // Derived-type dummies: built from their components around the call.
    let derived = match t.fortran_bindings.as_ref().and_then(|b| super::derived_args::derived_args(b, plan)) {
        None => super::derived_args::DerivedArgs { args, ..Default::default() },
        Some(Ok(d)) => d,
        Some(Err(why)) => return Ok(Outcome::Skipped(why)),
    };
    let ctx = context! {
        kind => if returns.is_empty() { "subroutine" } else { "function" },
        uses => derived.uses.into_iter().chain(uses).collect::<Vec<String>>(),
        derived_decls => derived.decls,
        pre => derived.pre,
        post => derived.post,
        routine => t.routine.clone(),
        module => module,
        ret_type => ret_type,
        ret => returns.first().copied().unwrap_or(0),
        data_len => plan.data.len().max(1),
        params => params,
        args => derived.args.join(", "),
        commons => commons,
        assoc => assoc,
        wrapper => wrapper.is_some(),
        wrap_module => format!("{}_adjc_wrap", adjc_emit::fortran_module_stem(&t.stem)),
        wrapper_call => wrapper_call.join(", "),
        seeds => seeds,
        out_file => if wrapper.is_some() { "wrapper.bin" } else { "gfortran.bin" },
    };
    let (program, exe) =
        if wrapper.is_some() { ("check_wrapper", "check_wrapper") } else { ("check_gfortran", "check_gfortran") };
    let driver = crate::templates::render("check_gfortran.f90.j2", ctx)?;
    std::fs::write(dir.join(format!("{program}.f90")), driver)
        .map_err(|e| CliError::Io(format!("cannot write the gfortran driver: {e}")))?;
    let mut objects = match compile_sources(&gfortran, t, dir, flags, sanitize)? {
        Ok(objects) => objects,
        Err(why) => return Ok(Outcome::Skipped(why)),
    };
    let mut driver_args: Vec<String> = ["-ffree-line-length-none", "-I."].iter().map(|s| s.to_string()).collect();
    if let Some(openmp) = wrapper {
        // The C of the kernel and the wrapper module, before the program that uses it.
        let wrap = format!("{}_adjc_wrap.f90", t.stem);
        if let Some(why) =
            compile(dir, "the wrappers", Command::new(&gfortran).args(["-c", "-Wall", "-Werror", "-J", ".", &wrap]))
        {
            return Err(CliError::CheckFailed(format!("the drop-in wrappers do not compile: {why}")));
        }
        objects.push(format!("{}_adjc_wrap.o", t.stem));
        crate::harness::build::compile_object(dir, &format!("{}.c", t.stem), "adjc_kernel.o", openmp)?;
        objects.push("adjc_kernel.o".into());
        if openmp {
            driver_args.push("-fopenmp".into());
        }
    }
    driver_args.push(format!("{program}.f90"));
    driver_args.extend(objects);
    driver_args.extend(["-o".to_string(), exe.to_string()]);
    if wrapper.is_some() {
        if let Ok(libs) = std::env::var("LDLIBS") {
            driver_args.extend(libs.split_whitespace().map(str::to_string));
        }
        driver_args.push("-lm".into());
    }
    if sanitize {
        driver_args.extend(["-fcheck=all".to_string(), "-g".to_string()]);
    }
    if let Some(why) = compile(dir, "the driver", Command::new(&gfortran).args(&driver_args)) {
        return Ok(Outcome::Skipped(why));
    }
    super::driver::run_checked(
        Command::new(dir.join(exe)).current_dir(dir),
        if wrapper.is_some() { "the program calling the drop-in wrappers" } else { "the gfortran-compiled original" },
        sanitize,
    )?;
    let read = |name: &str| -> CliResult<Vec<f64>> {
        let bytes = std::fs::read(dir.join(name)).map_err(|e| CliError::Io(format!("cannot read {name}: {e}")))?;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect())
    };
    if wrapper.is_some() {
        let (got, reference) = (read("wrapper.bin")?, read("adjoint.bin")?);
        let mut rows = Vec::new();
        let mut off = 0usize;
        let adjoint_rows = plan
            .params
            .iter()
            .enumerate()
            .filter(|(k, _)| adjoints[*k])
            .map(|(_, p)| (format!("{}_b", p.name), p.count()));
        let output_rows = plan.params.iter().filter(|p| p.is_output()).map(|p| (p.name.clone(), p.count()));
        for (name, n) in adjoint_rows.chain(output_rows) {
            let (Some(g), Some(r)) = (got.get(off..off + n), reference.get(off..off + n)) else {
                return Err(CliError::CheckFailed("the wrapper program wrote fewer values than the C driver".into()));
            };
            rows.push((name, max_rel_diff(g, r)));
            off += n;
        }
        return Ok(Outcome::Compared(rows));
    }
    let (got, reference) = (read("gfortran.bin")?, read("forward.bin")?);
    let mut rows = Vec::new();
    let mut off = 0usize;
    for p in plan.params.iter().filter(|p| p.is_output()) {
        let n = p.count();
        let (Some(g), Some(r)) = (got.get(off..off + n), reference.get(off..off + n)) else {
            return Err(CliError::CheckFailed("the gfortran driver wrote fewer values than the C driver".into()));
        };
        rows.push((p.name.clone(), max_rel_diff(g, r)));
        off += n;
    }
    Ok(Outcome::Compared(rows))
}

/// The largest difference of `got` from `reference`, relative to the largest of `got`.
fn max_rel_diff(got: &[f64], reference: &[f64]) -> f64 {
    let scale = got.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    let diff =
        got.iter()
            .zip(reference)
            .fold(0.0f64, |m, (a, b)| if (a - b).is_nan() { f64::INFINITY } else { m.max((a - b).abs()) });
    diff / scale
}

/// A source gfortran rejects (an extension adjc accepts) is not a failure of the adjoint:
/// why it failed, or `None`.
fn compile(dir: &Path, what: &str, cmd: &mut Command) -> Option<String> {
    let out = cmd.current_dir(dir).output().ok()?;
    if out.status.success() {
        return None;
    }
    let err = String::from_utf8_lossy(&out.stderr);
    // gfortran's own errors say `Error`; the linker's (`undefined reference to`) do not.
    let first = err
        .lines()
        .find(|l| l.contains("Error"))
        .or_else(|| err.lines().find(|l| l.contains("undefined reference") || l.contains("error")))
        .or_else(|| err.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim()
        .to_string();
    Some(format!("gfortran cannot compile {what}: {first}"))
}

/// Compiles every source file in `dir`, in an order where modules come before their users
/// (compile what compiles, retry the rest while that makes progress): the object files,
/// or why gfortran cannot compile them.
fn compile_sources(
    gfortran: &str,
    t: &Transpiled,
    dir: &Path,
    flags: &[String],
    sanitize: bool,
) -> CliResult<Result<Vec<String>, String>> {
    let mut pending = Vec::new();
    for (k, p) in t.sources.iter().enumerate() {
        let abs = std::fs::canonicalize(p).map_err(|e| CliError::Io(format!("{}: {e}", p.display())))?;
        pending.push((abs.to_string_lossy().into_owned(), format!("adjc_original_{k}.o")));
    }
    let mut flags: Vec<String> = flags
        .iter()
        .map(|f| match f.strip_prefix("-I") {
            Some(d) => format!("-I{}", std::fs::canonicalize(d).map(|p| p.display().to_string()).unwrap_or(d.into())),
            None => f.clone(),
        })
        .collect();
    if sanitize {
        flags.extend(["-fcheck=all".to_string(), "-g".to_string()]);
    }
    let mut objects = Vec::new();
    while !pending.is_empty() {
        let before = pending.len();
        let mut failed = Vec::new();
        let mut why = None;
        for (src, obj) in std::mem::take(&mut pending) {
            let mut cmd = Command::new(gfortran);
            cmd.args(["-c", "-O1", "-J", "."]).args(&flags).args([src.as_str(), "-o", obj.as_str()]);
            if adjc_frontend::fortran::needs_cpp(Path::new(&src), &std::fs::read_to_string(&src).unwrap_or_default()) {
                cmd.arg("-cpp");
            }
            match compile(dir, "the source", &mut cmd) {
                None => objects.push(obj),
                Some(w) => {
                    why.get_or_insert(w);
                    failed.push((src, obj));
                }
            }
        }
        if failed.len() == before {
            return Ok(Err(why.unwrap_or_default()));
        }
        pending = failed;
    }
    Ok(Ok(objects))
}

/// `adjc check --setup ROUTINE,...`: runs the setup routines (compiled by gfortran with the
/// sources) and takes the values they leave in the routine's COMMON blocks and module
/// variables as the check's inputs for those parameters (in `plan.data`, before
/// `inputs.bin` is written), so that the gfortran reference and the C driver both run on
/// them. The other inputs keep their random values.
pub fn run_setup(t: &Transpiled, plan: &mut Plan, dir: &Path, flags: &[String], setup: &[String]) -> CliResult<()> {
    let Some(gfortran) = gfortran() else {
        return Err(CliError::Usage("--setup runs the setup routines with gfortran, which is not found".into()));
    };
    let state = &t.fortran_state;
    let inputs: Vec<usize> = (0..plan.params.len())
        .filter(|&k| state.origin(&plan.params[k].name).is_some() && plan.params[k].x_off.is_some())
        .collect();
    let (uses, commons, assoc) = state_lines(plan, state);
    if !assoc.is_empty() {
        return Err(CliError::Usage(
            "--setup with components of module variables of derived type is not supported yet".into(),
        ));
    }
    let mut lines =
        vec!["! Runs the setup routines of `adjc check --setup` and writes the state they set.".to_string()];
    lines.push("program adjc_setup".into());
    lines.extend(uses.iter().map(|u| format!("  {u}")));
    lines.push("  implicit none".into());
    lines.push("  integer :: adjc_u".into());
    lines.push(format!("  real(kind(1.0d0)) :: adjc_data({})", plan.data.len().max(1)));
    for (k, p) in plan.params.iter().enumerate() {
        if !matches!(state.origin(&p.name), Some(Origin::Common { .. })) {
            continue;
        }
        let member =
            state.commons.iter().flat_map(|c| &c.members).find(|m| m.param.as_deref() == Some(p.name.as_str()));
        let (ty, bounds) = member.map(|m| (m.type_decl.clone(), m.bounds.clone())).unwrap_or_default();
        lines.push(format!("  {ty} :: adjc_p{k}{bounds}"));
    }
    // The members the check does not set keep their declarations from `state_lines`.
    lines.extend(commons.iter().map(|c| format!("  {c}")));
    // The random inputs first: what the setup routines do not set keeps them.
    lines.push("  open(newunit=adjc_u, file='presetup.bin', access='stream', form='unformatted', status='old')".into());
    lines.push("  read(adjc_u) adjc_data".into());
    lines.push("  close(adjc_u)".into());
    for &k in &inputs {
        let p = &plan.params[k];
        let (off, n) = (p.x_off.unwrap_or(0), p.count());
        let value = match &p.shape {
            None => format!("adjc_data({})", off + 1),
            Some(s) if s.len() == 1 => format!("adjc_data({}:{})", off + 1, off + n),
            Some(s) => format!(
                "reshape(adjc_data({}:{}), [{}])",
                off + 1,
                off + n,
                s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
            ),
        };
        match p.elem {
            Scalar::Bool => lines.push(format!("  adjc_p{k} = ({value} /= 0)")),
            _ => lines.push(format!("  adjc_p{k} = {value}")),
        }
    }
    for r in setup {
        if !r.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || r.is_empty() {
            return Err(CliError::Usage(format!("--setup {r}: not a routine name")));
        }
        // A module procedure is reached through its module.
        for src in &t.sources {
            let text = std::fs::read_to_string(src).unwrap_or_default();
            let fixed = adjc_frontend::fortran::is_fixed_form(src);
            if let Ok(Some(module)) = container(&text, r, fixed) {
                lines.insert(2, format!("  use {module}, only: {r}"));
                break;
            }
        }
        lines.push(format!("  call {r}()"));
    }
    lines
        .push("  open(newunit=adjc_u, file='setup.bin', access='stream', form='unformatted', status='replace')".into());
    for &k in &inputs {
        let value = match plan.params[k].elem {
            Scalar::Bool => format!("merge(1.0d0, 0.0d0, adjc_p{k})"),
            _ => format!("real(adjc_p{k}, kind(1.0d0))"),
        };
        lines.push(format!("  write(adjc_u) {value}"));
    }
    lines.push("  close(adjc_u)".into());
    lines.push("end program adjc_setup".into());
    std::fs::write(dir.join("adjc_setup.f90"), lines.join("\n") + "\n")
        .map_err(|e| CliError::Io(format!("cannot write the setup program: {e}")))?;
    super::super::harness::build::write_f64s(&dir.join("presetup.bin"), &plan.data)?;
    let objects = compile_sources(&gfortran, t, dir, flags, false)?.map_err(CliError::CheckFailed)?;
    let mut args: Vec<String> =
        ["-ffree-line-length-none", "-I.", "adjc_setup.f90"].iter().map(|s| s.to_string()).collect();
    args.extend(objects);
    args.extend(["-o".to_string(), "adjc_setup".to_string()]);
    if let Some(why) = compile(dir, "the setup program", Command::new(&gfortran).args(&args)) {
        return Err(CliError::CheckFailed(format!("--setup: {why}")));
    }
    super::driver::run_checked(Command::new(dir.join("adjc_setup")).current_dir(dir), "the setup routines", false)?;
    let bytes =
        std::fs::read(dir.join("setup.bin")).map_err(|e| CliError::Io(format!("cannot read setup.bin: {e}")))?;
    let values: Vec<f64> =
        bytes.chunks_exact(8).map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect();
    let mut at = 0usize;
    for &k in &inputs {
        let (off, n) = (plan.params[k].x_off.unwrap_or(0), plan.params[k].count());
        let (Some(src), Some(dst)) = (values.get(at..at + n), plan.data.get_mut(off..off + n)) else {
            return Err(CliError::CheckFailed("the setup program wrote fewer values than expected".into()));
        };
        dst.copy_from_slice(src);
        at += n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::container;

    #[test]
    fn finds_the_module_of_a_routine() {
        let src = "module m\ncontains\n  pure real(8) function f(x) result(r)\n  end function f\n  subroutine g(a)\n  end subroutine g\nend module m\nsubroutine h()\nend\n";
        assert_eq!(container(src, "g", false), Ok(Some("m".into())));
        assert_eq!(container(src, "F", false), Ok(Some("m".into())));
        assert_eq!(container(src, "h", false), Ok(None));
        let prog = "program p\ncontains\n subroutine s()\n end subroutine s\nend program p\n";
        assert!(container(prog, "s", false).is_err());
        let fixed = "C     module m\n      SUBROUTINE T(N)\n      END\n      REAL*8 FUNCTION S(N)\n      END\n";
        assert_eq!(container(fixed, "s", true), Ok(None));
        let kinds = "module k\ncontains\n real(kind=dp) function e(x)\n end function\nend module\n";
        assert_eq!(container(kinds, "e", false), Ok(Some("k".into())));
    }
}
