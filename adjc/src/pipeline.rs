//! The transpile pipeline: source → IR → adjoint IR → C, each stage validated.

use std::path::{Path, PathBuf};

use adjc_autodiff::{AdOptions, Adjoint};
use adjc_emit::{CFiles, EmitOptions};
use adjc_frontend::{FortranOptions, PythonOptions};
use adjc_ir::{validate, Diagnostic, Module};

use crate::cli::{CliError, CliResult, EmitKind, TranspileArgs};

/// The runtime header every generated `.c` includes; written next to it.
pub const RUNTIME_HEADER: &str = adjc_emit::RUNTIME_HEADER;
pub const RUNTIME_HEADER_NAME: &str = "adjc_runtime.h";
/// The BLAS selection header (`-DADJC_BLAS=cblas|mkl`, else adjc's fallback), included by
/// generated files with matrix products; written next to them like the runtime header.
pub const BLAS_HEADER: &str = adjc_emit::BLAS_HEADER;
pub const BLAS_HEADER_NAME: &str = "adjc_blas.h";

/// Everything one transpilation produces, before anything is written.
pub struct Transpiled {
    pub module: Module,
    pub adjoint: Adjoint,
    pub files: CFiles,
    pub stem: String,
    /// Every source file read (Fortran: with the module files found for `use`).
    pub sources: Vec<PathBuf>,
    /// The memory plan applied to the adjoint (`--memory-limit` / `--strategy`).
    pub memory: Option<crate::memory::MemoryPlan>,
}

/// The largest source file adjc reads (4 MiB): kernels are a few hundred lines, and a
/// device or a data file given by mistake must not be read without end.
pub const MAX_SOURCE_BYTES: u64 = 4 << 20;

/// Reads a source file, at most [`MAX_SOURCE_BYTES`], as UTF-8 text; whole-file problems
/// (missing, a directory, too large, not UTF-8) are errors naming the file.
pub fn read_source(path: &Path) -> CliResult<(String, String)> {
    use std::io::Read;
    let display = path.display().to_string();
    let whole_file = |msg: String, help: &str| CliError::Source {
        file: display.clone(),
        source: String::new(),
        diag: Diagnostic::error(adjc_ir::Span::NONE, msg).with_help(help.to_string()),
    };
    let file = std::fs::File::open(path).map_err(|e| CliError::Io(format!("cannot read {display}: {e}")))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(whole_file(
            "this is a directory, not a source file".into(),
            "give the path of a `.py` or Fortran file",
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| CliError::Io(format!("cannot read {display}: {e}")))?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(whole_file(
            format!("the file is larger than {} MiB, the most adjc reads as a source", MAX_SOURCE_BYTES >> 20),
            "give adjc the file holding the kernel (a Python or Fortran source), not a data file or a device",
        ));
    }
    match String::from_utf8(bytes) {
        Ok(s) if s.trim().is_empty() => Err(whole_file(
            "the file is empty".into(),
            "give adjc the file holding the kernel: a Python `def` or a Fortran subroutine or function",
        )),
        Ok(s) => Ok((display, s)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let good = &e.as_bytes()[..at];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            let col = good.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
            Err(whole_file(
                format!(
                    "the file is not UTF-8 text: byte {at} (line {line}, column {col}) is 0x{:02x}",
                    e.as_bytes()[at]
                ),
                "save the source as UTF-8 (adjc reads Python and Fortran source text)",
            ))
        }
    }
}

/// Stems of the files the check and bench harness writes next to `<stem>.c` in its build
/// directory (besides the runtime headers, `adjc_*`): an output called so would overwrite
/// one of them or be overwritten.
const HARNESS_STEMS: &[&str] = &["check_driver", "bench_driver", "bench_stats", "check_gfortran", "check_numpy"];

/// The base name of the written files: `--name`, else the source file's stem. It must be a
/// plain file stem (letters, digits, `_`, `-`, `.`; not starting with `.` or `-`; at most
/// 200 characters) and not one of the names adjc writes itself.
pub fn stem_of(args: &TranspileArgs) -> CliResult<String> {
    let (stem, origin) = match &args.name {
        Some(n) => (n.clone(), format!("--name `{n}`")),
        None => {
            let s = args.file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let origin = format!("the output name `{s}` (from {})", args.file.display());
            (s, origin)
        }
    };
    let fix = if args.name.is_some() { "choose another --name" } else { "give the outputs a name with --name" };
    let bad = |why: &str| Err(CliError::Usage(format!("{origin} {why}; {fix}")));
    let lower = stem.to_lowercase();
    if stem.is_empty() {
        bad("is empty")
    } else if stem.chars().count() > 200 {
        bad("is longer than 200 characters")
    } else if stem.starts_with(['.', '-']) {
        bad("starts with `.` or `-`")
    } else if let Some(c) = stem.chars().find(|c| !(c.is_alphanumeric() || "_-.".contains(*c))) {
        bad(&format!(
            "contains `{}`: a name is a file stem of letters, digits, `_`, `-` and `.` (no directory: -o sets it)",
            c.escape_default()
        ))
    } else if lower.starts_with("adjc_") {
        bad("starts with `adjc_`, the prefix of adjc's own files (adjc_runtime.h, adjc_blas.h)")
    } else if HARNESS_STEMS.contains(&lower.as_str()) {
        bad("is the name of a file the check/bench harness writes")
    } else {
        Ok(stem)
    }
}

/// Runs every stage. Pure apart from reading the source files (and, for preprocessed
/// Fortran, running the C preprocessor).
pub fn transpile(args: &TranspileArgs, command_line: &str) -> CliResult<Transpiled> {
    let stem = stem_of(args)?;
    let ext = args.file.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    let mut sources = vec![args.file.clone()];
    let mut module = match ext.as_str() {
        "py" => {
            if !args.more.is_empty() || !args.defines.is_empty() || !args.include_dirs.is_empty() {
                return Err(CliError::Usage(
                    "several files, -D and -I are for Fortran sources; a Python kernel is one file".into(),
                ));
            }
            let (file, source) = read_source(&args.file)?;
            let in_source = |diag: Diagnostic| CliError::Source { file: file.clone(), source: source.clone(), diag };
            let opts = PythonOptions { entry: args.function.clone(), arg_specs: args.args.clone() };
            adjc_frontend::lower_python(&file, &source, &opts).map_err(in_source)?
        }
        "f90" | "f95" | "f03" | "f08" | "f18" | "f" | "for" | "ftn" | "f77" | "fpp" => {
            if !args.args.is_empty() {
                return Err(CliError::Usage(
                    "--arg is for Python sources; Fortran declarations give every type and shape".into(),
                ));
            }
            let (inputs, paths) = crate::fortran_sources::load_all(args)?;
            sources = paths;
            let opts = FortranOptions { entry: args.function.clone(), fixed_form: false };
            let dirs = args.include_dirs.clone();
            let resolve = move |name: &str, from: &str| crate::fortran_sources::find_include(name, from, &dirs);
            adjc_frontend::lower_fortran_sources(&inputs, &opts, &resolve).map_err(|e| CliError::Source {
                file: e.file,
                source: e.source,
                diag: e.diag,
            })?
        }
        _ => {
            let what = if ext.is_empty() { "no file extension".to_string() } else { format!("`.{ext}`") };
            return Err(CliError::Usage(format!(
                "{}: unsupported source language ({what}); adjc reads Python (`.py`) and Fortran (`.f90`, fixed-form `.f`) files",
                args.file.display()
            )));
        }
    };
    let (file, source) = (module.file.clone(), module.source.clone());
    let in_source = |diag: Diagnostic| CliError::Source { file: file.clone(), source: source.clone(), diag };
    validate::validate_module(&module).map_err(|e| internal(&file, &source, e))?;
    let sequential =
        module.functions.first().cloned().ok_or_else(|| CliError::Usage("no function to differentiate".into()))?;
    // Loops with independent iterations become parallel maps, in the forward function and,
    // through `reverse`, in the adjoint.
    let parallel = adjc_autodiff::parallelize(&sequential);
    validate::validate(&parallel).map_err(|e| internal(&file, &source, e))?;
    let specs = crate::checkpoint_flag::parse(&args.checkpoints).map_err(CliError::Usage)?;
    // Flag errors (an unknown --wrt name) have no span of their own: point at the function.
    // `--checkpoint` names loops by source line, resolved against the function differentiated.
    let ad_opts_for = |f: &adjc_ir::Function| -> Result<AdOptions, Diagnostic> {
        Ok(AdOptions {
            wrt: args.wrt.clone(),
            of: args.of.clone(),
            checkpoints: crate::checkpoint_flag::resolve(f, &specs)?,
            // A memory plan starts from the adjoint that tapes everything, loop arrays
            // included, and chooses which of them to recompute.
            loop_arrays: (args.memory_limit.is_some() || args.strategy.is_some()).then(Default::default),
            ..AdOptions::default()
        })
    };
    let differentiate = |f: &adjc_ir::Function| {
        let ad_opts = ad_opts_for(f)?;
        adjc_autodiff::reverse(f, &ad_opts)
            .map_err(|d| if d.span.is_none() { Diagnostic { span: f.span, ..d } } else { d })
    };
    // A parallel map the autodiff cannot reverse must not cost the user a gradient that the
    // sequential loop gives: keep the loops then.
    let (primal, mut adjoint) = match differentiate(&parallel) {
        Ok(a) => (parallel, a),
        Err(d) if parallel == sequential => return Err(in_source(d)),
        Err(_) => {
            let a = differentiate(&sequential).map_err(in_source)?;
            (sequential, a)
        }
    };
    // The plan sees the adjoint as `reverse` laid it out, before the rewrites below.
    let laid_out = adjoint.clone();
    let mut tighten = 0;
    let memory = loop {
        let mut planned = laid_out.clone();
        let memory = crate::memory::plan_adjoint(args, &mut planned, tighten)?;
        let Some(mut m) = memory else {
            adjoint = planned;
            break None;
        };
        if m.plan.loops.is_empty() && m.loop_arrays().is_empty() {
            adjoint = planned;
            break Some(m);
        }
        // Checkpointed time loops change the adjoint itself: build it again around the
        // chosen schedules, then apply the plan's recomputations to it.
        let mut opts = ad_opts_for(&primal).map_err(in_source)?;
        opts.checkpoints.extend(m.checkpoints());
        opts.loop_arrays = Some(m.loop_arrays());
        let mut rebuilt = adjc_autodiff::reverse(&primal, &opts).map_err(in_source)?;
        // A loop that keeps its inputs alive for its replays can make later code tape what
        // store-all did not: the rebuilt adjoint's own model has the last word. Over the
        // limit, plan again with the limit tightened by the excess.
        let verified = crate::memory::verified_peak(&rebuilt, &m)?;
        if let Some(limit) = m.limit.filter(|l| verified > *l) {
            if tighten < limit {
                tighten += verified - limit;
                continue;
            }
            return Err(CliError::Usage(format!(
                "no checkpoint plan keeps the adjoint within --memory-limit {}: the best one found needs {}",
                crate::memory::human(limit),
                crate::memory::human(verified)
            )));
        }
        m.plan.peak = m.plan.peak.max(verified);
        rebuilt.function.body = adjc_autodiff::plan::apply(&rebuilt.function, &m.temporary_ids())
            .map_err(|msg| CliError::Usage(format!("cannot apply the plan: {msg}")))?;
        rebuilt.function.notes.push(crate::memory::plan_note(&m));
        adjoint = rebuilt;
        break Some(m);
    };
    // Scatter updates of the adjoint's stencil sweeps become one map per neighbour,
    // without atomics (validated just below).
    adjoint.function = adjc_autodiff::split::split_shared_maps(&adjoint.function);
    // Shared additions of a map into one element (`R_b[k, j]` from every row) are a scalar
    // reduction, not one `omp atomic` per iteration.
    adjoint.function = adjc_autodiff::shared_element::reduce_shared_elements(&adjoint.function);
    // Scalar gradients updated in loops (`*alpha_b += ...`) accumulate in a register-friendly
    // local and are written back once.
    adjoint.function = adjc_autodiff::shadow::shadow_scalar_outputs(&adjoint.function);
    // Both functions as they are written: `x * x` for `x ** 2`, signs folded into sums.
    adjoint.function = adjc_autodiff::algebra::simplify_function(&adjoint.function);
    // Reversed loops whose iterations are independent run forwards, nests along rows.
    adjoint.function = adjc_autodiff::loop_order::order_loops(&adjoint.function);
    module.functions[0] = adjc_autodiff::algebra::simplify_function(&primal);
    // Loops of matrix-vector products of fixed matrices become one matrix product before
    // the loop, in the forward function and in the adjoint's forward sweep (not under a
    // memory plan: it does not count the product's work array).
    module.functions[0] = adjc_autodiff::product_loop::batch_products(&module.functions[0]);
    if memory.is_none() {
        adjoint.function = adjc_autodiff::product_loop::batch_products(&adjoint.function);
    }
    let primal = &module.functions[0];
    validate::validate(&adjoint.function).map_err(|e| internal(&file, &source, e))?;
    let header_comment = vec![
        format!("adjc {}", env!("CARGO_PKG_VERSION")),
        format!("source: {file}"),
        format!("command: {command_line}"),
    ];
    let size_guards = memory.iter().map(|m| crate::memory::size_guard(&adjoint.function.name, m)).collect();
    let emit_opts = EmitOptions { stem: stem.clone(), header_comment, size_guards };
    let files = adjc_emit::emit_c(&module, &[primal, &adjoint.function], &emit_opts).map_err(in_source)?;
    Ok(Transpiled { module, adjoint, files, stem, sources, memory })
}

/// An invariant violated between stages is adjc's bug, never the user's: say so plainly.
fn internal(file: &str, source: &str, e: validate::ValidationError) -> CliError {
    CliError::Source {
        file: file.to_string(),
        source: source.to_string(),
        diag: Diagnostic::error(e.span, format!("internal error: {e}"))
            .with_help("this is a bug in adjc; please report it with this source file"),
    }
}

/// The command line as the user typed it, for the generated file's header.
pub fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quoted: Vec<String> = args
        .iter()
        .map(|a| {
            if a.chars().all(|c| c.is_ascii_alphanumeric() || "-_=./,:".contains(c)) {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect();
    format!("adjc {}", quoted.join(" "))
}

pub fn ir_text(t: &Transpiled) -> String {
    let mut out = adjc_ir::print::print_module(&t.module);
    out.push('\n');
    out.push_str(&adjc_ir::print::print_function(&t.adjoint.function));
    out
}

/// Writes `<stem>.c`, `<stem>.h` and the runtime headers into `dir`; returns the paths.
pub fn write_files(t: &Transpiled, dir: &Path) -> CliResult<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::Io(format!("cannot create {}: {e}", dir.display())))?;
    let outputs = [
        (dir.join(format!("{}.c", t.stem)), t.files.c.as_str()),
        (dir.join(format!("{}.h", t.stem)), t.files.h.as_str()),
        (dir.join(RUNTIME_HEADER_NAME), RUNTIME_HEADER),
        (dir.join(BLAS_HEADER_NAME), BLAS_HEADER),
    ];
    for (path, text) in &outputs {
        std::fs::write(path, text).map_err(|e| CliError::Io(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(outputs.into_iter().map(|(p, _)| p).collect())
}

/// `--fortran-interface`: writes `<stem>_adjc.f90` into `dir` (after [`write_files`]).
pub fn write_fortran_interface(t: &Transpiled, dir: &Path, command_line: &str) -> CliResult<PathBuf> {
    let header_comment = vec![
        format!("adjc {}", env!("CARGO_PKG_VERSION")),
        format!("source: {}", t.module.file),
        format!("command: {command_line}"),
    ];
    let emit_opts = EmitOptions { stem: t.stem.clone(), header_comment, ..Default::default() };
    let text = adjc_emit::emit_fortran_interface(&[&t.module.functions[0], &t.adjoint.function], &emit_opts)
        .map_err(|diag| CliError::Source { file: t.module.file.clone(), source: t.module.source.clone(), diag })?;
    let path = dir.join(format!("{}_adjc.f90", t.stem));
    std::fs::write(&path, text).map_err(|e| CliError::Io(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

pub fn run_transpile(args: &TranspileArgs) -> CliResult<()> {
    let t = transpile(args, &command_line())?;
    match args.emit {
        EmitKind::Ir => print!("{}", ir_text(&t)),
        EmitKind::C => {
            for path in write_files(&t, &args.out_dir)? {
                println!("wrote {}", path.display());
            }
            if args.fortran_interface {
                println!("wrote {}", write_fortran_interface(&t, &args.out_dir, &command_line())?.display());
            }
        }
    }
    if args.report {
        print!("{}", tape_report(&t));
        if let Some(m) = &t.memory {
            print!("{}", crate::memory::report_text(&t.adjoint.function.name, m));
        }
    }
    Ok(())
}

/// `--report`: one line per tape of the adjoint (name, element type, element count as a
/// formula of the sizes, what it saves and why), then the values recomputed instead.
pub fn tape_report(t: &Transpiled) -> String {
    let f = &t.adjoint.function;
    let file = Path::new(&t.module.file).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut out = format!("tapes of {}:\n", f.name);
    if t.adjoint.tapes.is_empty() {
        out.push_str("  none: the reverse sweep needs no saved value\n");
    }
    let rows: Vec<[String; 4]> = t
        .adjoint
        .tapes
        .iter()
        .map(|tape| {
            let count = tape.elems_text(f);
            let elems = if count == "1" { "1 element".to_string() } else { format!("{count} elements") };
            let kind = match tape.kind {
                adjc_autodiff::TapeKind::Stack => " (stack)",
                _ => "",
            };
            let saves = if tape.line == 0 {
                format!("saves {}{kind}; {}", tape.what, tape.why)
            } else {
                format!("saves {}{kind} before {file}:{} overwrites it; {}", tape.what, tape.line, tape.why)
            };
            [tape.name.clone(), tape.elem.to_string(), elems, saves]
        })
        .collect();
    let width = |k: usize| rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    for r in &rows {
        out.push_str(&format!("  {:w0$}  {:w1$}  {:w2$}  {}\n", r[0], r[1], r[2], r[3]));
    }
    for r in &t.adjoint.recomputed {
        out.push_str(&format!("  {} recomputed in the reverse sweep instead of taped ({file}:{})\n", r.name, r.line));
    }
    out
}
