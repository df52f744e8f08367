//! The flags of a subcommand as the library's [`adjc::Options`], and the subcommands that
//! only transpile (`transpile`, `plan`); `check` and `bench` are in their own modules.

use adjc::{MemoryOptions, Options, Pipeline, ReportFormat, Strategy, Transpiled, Written};

use std::path::PathBuf;

use adjc::buildflags::{Blas, BuildConfig};

use crate::cli::{
    self, BlasArg, BuildArgs, CheckStaleArgs, ConfigArgs, EmitKind, PlanArgs, RuntimeArgs, StrategyArg, TranspileArgs,
    TranspileCommand,
};
use crate::cli_error::{CliError, CliResult};
use crate::harness::parse_sizes;

/// The library's options for the flags of `args`.
pub fn options(args: &TranspileArgs) -> CliResult<Options> {
    let strategy = args.strategy.map(|s| match s {
        StrategyArg::StoreAll => Strategy::StoreAll,
        StrategyArg::RecomputeAll => Strategy::RecomputeAll,
        StrategyArg::Ilp => Strategy::Ilp,
    });
    Ok(Options {
        input: adjc::Input::Files(std::iter::once(args.file.clone()).chain(args.more.iter().cloned()).collect()),
        entry: args.function.clone(),
        wrt: args.wrt.as_ref().map(|w| w.iter().map(|n| adjc::component_param(n)).collect()),
        of: args.of.as_ref().map(|w| w.iter().map(|n| adjc::component_param(n)).collect()),
        arg_types: args.args.clone(),
        defines: args.defines.clone(),
        include_dirs: args.include_dirs.clone(),
        name: args.name.clone(),
        checkpoints: adjc::checkpoint_flag::parse(&args.checkpoints).map_err(|e| CliError::Usage(e.0))?,
        max_trips: adjc::max_trips_flag::parse(&args.max_trips).map_err(|e| CliError::Usage(e.0))?,
        fixed_points: adjc::fixed_point_flag::parse(&args.fixed_points).map_err(CliError::Usage)?,
        memory: MemoryOptions::from_flags(strategy, args.memory_limit),
        fuse_sweeps: args.fuse_sweeps,
        sizes: parse_sizes(&args.sizes)?,
        command_line: Some(command_line()),
        keep_case: args.keep_case,
        prefix: args.prefix.clone(),
        line_directives: args.line_directives,
    })
}

/// Runs the pipeline on the flags of `args`.
pub fn transpile(args: &TranspileArgs) -> CliResult<Transpiled> {
    Ok(Pipeline::new(options(args)?).run()?)
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

/// `adjc transpile`.
pub fn run_transpile(cmd: &TranspileCommand) -> CliResult<()> {
    let args = &cmd.transpile;
    if args.emit == EmitKind::Ir && (cmd.depfile.is_some() || cmd.md || cmd.mf.is_some()) {
        return Err(CliError::Usage(
            "--depfile, -MD and -MF list the files written: they go with --emit c (the default), not --emit ir".into(),
        ));
    }
    let t = transpile(args)?;
    match args.emit {
        EmitKind::Ir => print!("{}", t.ir_text()),
        EmitKind::C => {
            let mut files = t.write_files_noting(&args.out_dir)?;
            if args.fortran_interface {
                files.push(t.write_fortran_interface_noting(&args.out_dir)?);
                if let Some((path, written, why)) = t.write_fortran_wrappers_noting(&args.out_dir)? {
                    if let Some(why) = why {
                        eprintln!("adjc: note: {} has no drop-in wrappers: {why}", path.display());
                    }
                    files.push((path, written));
                }
            }
            for (path, w) in &files {
                say_written(path, *w);
            }
            if let Some(depfile) = depfile_path(cmd, &t.stem) {
                // The runtime headers are shared by every kernel: not outputs of this one.
                let targets: Vec<PathBuf> = files
                    .into_iter()
                    .map(|(p, _)| p)
                    .filter(|p| !p.ends_with(adjc::RUNTIME_HEADER_NAME) && !p.ends_with(adjc::BLAS_HEADER_NAME))
                    .collect();
                say_written(&depfile, t.write_depfile(&depfile, &targets)?);
            }
        }
    }
    if args.report {
        print!("{}", t.tape_report());
        if let Some(text) = t.memory_report(ReportFormat::Text) {
            print!("{text}");
        }
    }
    Ok(())
}

/// `wrote PATH`, or `unchanged PATH` when the file already held its content (not touched).
fn say_written(path: &std::path::Path, w: Written) {
    match w {
        Written::Changed => println!("wrote {}", path.display()),
        Written::Unchanged => println!("unchanged {}", path.display()),
    }
}

/// The dependency file `--depfile`/`-MF` name, else `<out-dir>/<stem>.d` with `-MD`.
fn depfile_path(cmd: &TranspileCommand, stem: &str) -> Option<PathBuf> {
    match (&cmd.depfile, &cmd.mf) {
        (Some(p), _) | (None, Some(p)) => Some(p.clone()),
        (None, None) => cmd.md.then(|| cmd.transpile.out_dir.join(format!("{stem}.d"))),
    }
}

/// `adjc build`: the C files, the shared library `lib<stem>_adjc.so` built by `$CC` (else
/// `cc`) with `adjc config`'s flags, and with `--python` the module `<stem>_adjc.py`.
pub fn run_build(args: &BuildArgs) -> CliResult<()> {
    let out_dir = &args.transpile.out_dir;
    if args.transpile.emit == EmitKind::Ir {
        return Err(CliError::Usage("adjc build writes C and a library: --emit ir goes with adjc transpile".into()));
    }
    let t = transpile(&args.transpile)?;
    // Everything that can fail before the compiler runs: no partial output.
    let module = if args.python { Some(t.python_module()?) } else { None };
    for (path, w) in t.write_files_noting(out_dir)? {
        say_written(&path, w);
    }
    let config = BuildConfig {
        blas: blas(args.blas),
        openmp: !args.no_openmp,
        runtime_dir: None,
        mkl_root: std::env::var("MKLROOT").ok().filter(|r| !r.is_empty()),
    };
    let suffix = if cfg!(target_os = "macos") { "dylib" } else { "so" };
    let library = out_dir.join(format!("lib{}_adjc.{suffix}", t.stem));
    let cc = std::env::var("CC").ok().filter(|c| !c.trim().is_empty()).unwrap_or_else(|| "cc".into());
    let mut command = std::process::Command::new(&cc);
    command
        .args(config.cflags())
        .args(args.opt.split_whitespace())
        .args(["-fPIC", "-shared", "-o"])
        .arg(&library)
        .arg(out_dir.join(format!("{}.c", t.stem)))
        .args(config.libs());
    let output =
        command.output().map_err(|e| CliError::Usage(format!("cannot run the C compiler `{cc}` ($CC): {e}")))?;
    if !output.status.success() {
        return Err(CliError::Usage(format!(
            "the C compiler failed on {}:\n{}",
            out_dir.join(format!("{}.c", t.stem)).display(),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    println!("built {}", library.display());
    if let Some(text) = module {
        let path = out_dir.join(format!("{}_adjc.py", t.stem));
        let written = adjc::write::write_if_changed(&path, text.as_bytes())
            .map_err(|e| CliError::Io(format!("cannot write {}: {e}", path.display())))?;
        say_written(&path, written);
    }
    Ok(())
}

fn blas(arg: BlasArg) -> Blas {
    match arg {
        BlasArg::None => Blas::None,
        BlasArg::Cblas => Blas::Cblas,
        BlasArg::Mkl => Blas::Mkl,
    }
}

/// `adjc check-stale DIR`: one line per stale generated file and input; fails when any.
pub fn run_check_stale(args: &CheckStaleArgs) -> CliResult<()> {
    let base = std::env::current_dir().map_err(|e| CliError::Io(format!("no current directory: {e}")))?;
    let (checked, stale) = adjc::stale::check_dir(&args.dir, &base)
        .map_err(|e| CliError::Io(format!("cannot read {}: {e}", args.dir.display())))?;
    for s in &stale {
        println!("stale: {} ({} {})", s.file.display(), s.input, s.why);
    }
    if stale.is_empty() {
        println!("up to date: {checked} generated files in {}", args.dir.display());
        Ok(())
    } else {
        Err(CliError::CheckFailed(format!("{} generated files are stale", {
            let mut files: Vec<_> = stale.iter().map(|s| &s.file).collect();
            files.dedup();
            files.len()
        })))
    }
}

/// `adjc runtime -o DIR`: the runtime headers and `adjc.pc`.
pub fn run_runtime(args: &RuntimeArgs) -> CliResult<()> {
    for (path, w) in adjc::write_runtime(&args.out_dir)? {
        say_written(&path, w);
    }
    Ok(())
}

/// `adjc config --cflags|--libs ...`.
pub fn run_config(args: &ConfigArgs) -> CliResult<()> {
    let config = BuildConfig {
        blas: blas(args.blas),
        openmp: args.openmp,
        runtime_dir: args.runtime_dir.as_ref().map(|d| d.display().to_string()),
        mkl_root: std::env::var("MKLROOT").ok().filter(|r| !r.is_empty()),
    };
    let mut flags = Vec::new();
    if args.cflags {
        flags.extend(config.cflags());
    }
    if args.libs {
        flags.extend(config.libs());
    }
    if args.cflags || args.libs {
        println!("{}", flags.join(" "));
    }
    if args.notes {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        for line in config.notes(adjc::buildflags::openblas_coretype(&cpuinfo)) {
            println!("{line}");
        }
    }
    Ok(())
}

/// `adjc makefile`: `adjc.mk`.
pub fn run_makefile() -> CliResult<()> {
    print!("{}", adjc::buildflags::MAKEFILE);
    Ok(())
}

/// `adjc plan`: a store-all plan unless the flags ask for another.
pub fn run_plan(args: &PlanArgs) -> CliResult<()> {
    let mut options = options(&args.transpile)?;
    options.memory.get_or_insert(MemoryOptions { strategy: Strategy::StoreAll, limit: None });
    let t = Pipeline::new(options).run()?;
    let format = match args.report_format {
        cli::ReportFormat::Text => ReportFormat::Text,
        cli::ReportFormat::Json => ReportFormat::Json,
    };
    // `plan` always asks for a memory plan (store-all at least): none is adjc's bug.
    let report = t.memory_report(format).ok_or_else(|| CliError::Internal("no memory plan was made".into()))?;
    print!("{report}");
    Ok(())
}
