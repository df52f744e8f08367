//! The command line: clap's `Cli::try_parse_from` on a fuzzed argv, then the flag values
//! parsed after clap (`--checkpoint`). The flag definitions live in the binary of the crate
//! `adjc`: its `cli.rs` and the library's `checkpoint_flag.rs` are compiled in here by path
//! (both depend only on clap and the adjc stage crates); clap's value parsers in `cli.rs`
//! (`--step`, `--tol`, `--memory-limit`, `--name`) run too. Flags parsed in other modules of
//! the binary (`--sizes` values against a kernel, `--init`) are not reached.
//!
//! Input: argv elements separated by NUL bytes (`adjc` is prepended).
#![no_main]
use clap::Parser;
use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../adjc/src/checkpoint_flag.rs"]
mod checkpoint_flag;
#[allow(dead_code)]
#[path = "../../adjc/src/cli.rs"]
mod cli;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let argv = std::iter::once("adjc").chain(text.split('\0'));
    match cli::Cli::try_parse_from(cli::normalize_args(argv.map(std::ffi::OsString::from))) {
        Ok(c) => {
            let t = match &c.command {
                cli::Command::Transpile(t) => &t.transpile,
                cli::Command::Check(c) => &c.transpile,
                cli::Command::Bench(b) => &b.transpile,
                cli::Command::Plan(p) => &p.transpile,
                cli::Command::Runtime(_) | cli::Command::Config(_) | cli::Command::Makefile => return,
            };
            let _ = checkpoint_flag::parse(&t.checkpoints);
        }
        Err(e) => {
            let _ = e.render().to_string();
        }
    }
});
