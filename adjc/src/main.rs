//! `adjc`: the command line of the adjc automatic-differentiation compiler.
//!
//! * `adjc transpile FILE` writes `<stem>.c` / `<stem>.h` with the forward function and
//!   its reverse-mode adjoint (`--emit ir` prints the IR instead);
//! * `adjc check FILE --sizes N=40` transpiles, builds a check driver with the system C
//!   compiler and proves the gradient with a dot-product test against central finite
//!   differences (and the forward against NumPy when it is available);
//! * `adjc bench FILE --sizes N=40` times the forward function and the adjoint built with
//!   `-O3 -march=native -fno-trapping-math` and reports the adjoint's tape and work-array memory.
//!
//! * `adjc runtime -o DIR`, `adjc config --cflags|--libs`, `adjc makefile`: what a build
//!   system needs (the runtime headers and `adjc.pc`, the flags, the make fragment `adjc.mk`).
//!
//! * `adjc plan FILE --sizes N=40 --memory-limit 1MiB` prints the memory plan of the
//!   adjoint (what is stored, what is recomputed, the predicted peak).
//!
//! Exit codes: 0 success, 1 a check failed (gradient, forward or build), 2 bad input
//! (source, flags), 3 an I/O failure.
//!
//! A shell over the `adjc` library (`src/lib.rs`): `cli` parses the flags, `commands`
//! turns them into `adjc::Options` and runs `adjc::Pipeline`; `check`, `bench` and
//! `harness` build and run the generated drivers; errors are `cli_error::CliError`.

mod bench;
mod check;
mod cli;
mod cli_error;
mod commands;
mod harness;
mod review;
mod review_plan;
mod templates;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

fn main() -> ExitCode {
    // Like any Unix filter, stop quietly when the reader goes away (`adjc check ... | head`)
    // instead of panicking on a failed write to stdout.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // `--version` names the commit adjc was built from (`build.rs`).
    let matches = cli::Cli::command().version(adjc::VERSION).get_matches_from(cli::normalize_args(std::env::args_os()));
    let args = cli::Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // Every stage recurses over expression trees, which long operator chains make deep
    // (the frontends bound them, see `MAX_CHAIN`): run on a thread with a large stack,
    // reserved, not committed, so that a 5,000-term sum cannot overflow it even in a
    // debug build.
    std::thread::scope(|s| {
        let worker =
            std::thread::Builder::new().name("adjc".into()).stack_size(STACK_SIZE).spawn_scoped(s, || run(&args));
        match worker {
            Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread available: run on the main thread.
            Err(_) => run(&args),
        }
    })
}

/// Stack of the thread that runs the command.
const STACK_SIZE: usize = 1 << 30;

fn run(args: &cli::Cli) -> ExitCode {
    let result = match &args.command {
        cli::Command::Transpile(t) => commands::run_transpile(t),
        cli::Command::Check(c) => check::run_check(c),
        cli::Command::Bench(b) => bench::run_bench(b),
        cli::Command::Plan(p) => commands::run_plan(p),
        cli::Command::Runtime(r) => commands::run_runtime(r),
        cli::Command::Build(b) => commands::run_build(b),
        cli::Command::Review(r) => review::run_review(r),
        cli::Command::CheckStale(c) => commands::run_check_stale(c),
        cli::Command::Config(c) => commands::run_config(c),
        cli::Command::Makefile => commands::run_makefile(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprint!("{}", e.render());
            ExitCode::from(e.exit_code())
        }
    }
}
