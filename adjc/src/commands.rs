//! The flags of a subcommand as the library's [`adjc::Options`], and the subcommands that
//! only transpile (`transpile`, `plan`); `check` and `bench` are in their own modules.

use adjc::{MemoryOptions, Options, Pipeline, ReportFormat, Strategy, Transpiled};

use crate::cli::{self, EmitKind, PlanArgs, StrategyArg, TranspileArgs};
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
        wrt: args.wrt.clone(),
        of: args.of.clone(),
        arg_types: args.args.clone(),
        defines: args.defines.clone(),
        include_dirs: args.include_dirs.clone(),
        name: args.name.clone(),
        checkpoints: adjc::checkpoint_flag::parse(&args.checkpoints).map_err(CliError::Usage)?,
        memory: MemoryOptions::from_flags(strategy, args.memory_limit),
        fuse_sweeps: args.fuse_sweeps,
        sizes: parse_sizes(&args.sizes)?,
        command_line: Some(command_line()),
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
pub fn run_transpile(args: &TranspileArgs) -> CliResult<()> {
    let t = transpile(args)?;
    match args.emit {
        EmitKind::Ir => print!("{}", t.ir_text()),
        EmitKind::C => {
            for path in t.write_files(&args.out_dir)? {
                println!("wrote {}", path.display());
            }
            if args.fortran_interface {
                println!("wrote {}", t.write_fortran_interface(&args.out_dir)?.display());
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

/// `adjc plan`: a store-all plan unless the flags ask for another.
pub fn run_plan(args: &PlanArgs) -> CliResult<()> {
    let mut options = options(&args.transpile)?;
    options.memory.get_or_insert(MemoryOptions { strategy: Strategy::StoreAll, limit: None });
    let t = Pipeline::new(options).run()?;
    let format = match args.report_format {
        cli::ReportFormat::Text => ReportFormat::Text,
        cli::ReportFormat::Json => ReportFormat::Json,
    };
    let report = t.memory_report(format).ok_or_else(|| CliError::Usage("no memory plan was made".into()))?;
    print!("{report}");
    Ok(())
}
