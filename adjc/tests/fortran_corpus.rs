//! The real-code-style Fortran corpus of issue 13 (`tests/fortran_corpus/`): routines written
//! in the style of NAS, CloverLeaf, ecRad, CLOUDSC, miniWeather, OpenAD's regression suite and
//! PolyBench/Fortran, each with a `! corpus: ARGS` line (paths relative to the corpus).
//!
//! * No file makes adjc crash: every `adjc transpile` ends with success or an error message,
//!   never exit 101, a signal, a panic or an "internal error".
//! * Every routine listed in `tests/fortran_corpus/expected.txt` is still accepted and passes
//!   `adjc check` (finite differences against the adjoint, the C forward against gfortran).
//!
//! The full measurement (acceptance share, refusal reasons, `RESULTS.md`) is
//! `python3 scripts/fortran_corpus.py --write-expected`; this test keeps its accepted part from
//! regressing. A routine that becomes accepted is added to `expected.txt` by that command.

mod common;

use common::{root, split_flags};
use std::path::PathBuf;
use std::process::{Command, Output};

/// Options only `adjc check` takes (each followed by a value).
const CHECK_ONLY: &[&str] = &["--init", "--setup", "--tol", "--step", "--seed", "--inputs", "--keep"];

fn corpus() -> PathBuf {
    root().join("tests/fortran_corpus")
}

fn run(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_adjc")).current_dir(corpus()).args(args).output().expect("run adjc")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The corpus routine files, sorted.
fn files() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| ["f", "f90", "F90", "F"].iter().any(|x| e == *x)))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The arguments of a file's `corpus:` line.
fn corpus_args(file: &str) -> Vec<String> {
    let src = std::fs::read_to_string(corpus().join(file)).unwrap();
    src.lines()
        .take(40)
        .find_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix(['!', 'c', 'C', '*'])?;
            rest.trim_start().strip_prefix("corpus:").map(split_flags)
        })
        .unwrap_or_else(|| panic!("{file} has no `corpus:` line"))
}

fn without_check_options(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let name = a.split('=').next().unwrap_or(a);
        if CHECK_ONLY.contains(&name) {
            if !a.contains('=') {
                it.next();
            }
            continue;
        }
        out.push(a.clone());
    }
    out
}

fn crashed(o: &Output) -> bool {
    let t = text(o);
    o.status.code().is_none_or(|c| c == 101) || t.contains("internal error") || t.contains("panicked")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("adjc-corpus-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn no_corpus_routine_crashes_adjc() {
    let files = files();
    assert!(files.len() >= 40, "expected at least 40 corpus routines, found {}", files.len());
    let mut crashes = Vec::new();
    for f in &files {
        let dir = scratch(&f.replace('.', "_"));
        let mut args = vec!["transpile".to_string(), f.clone()];
        args.extend(without_check_options(&corpus_args(f)));
        args.extend(["-o".to_string(), dir.display().to_string()]);
        let out = run(&args);
        if crashed(&out) {
            crashes.push(format!("adjc {}\n{}", args.join(" "), text(&out)));
        } else if !out.status.success() {
            // A refusal must say why, at a place.
            let t = text(&out);
            if !t.contains("error") {
                crashes.push(format!("refused without an error message: adjc {}\n{t}", args.join(" ")));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    assert!(crashes.is_empty(), "{} crash(es):\n\n{}", crashes.len(), crashes.join("\n\n"));
}

#[test]
fn expected_corpus_routines_are_accepted_and_pass_the_check() {
    let list = std::fs::read_to_string(corpus().join("expected.txt")).unwrap();
    let expected: Vec<&str> = list.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
    assert!(expected.len() >= 10, "expected.txt lists only {} routines", expected.len());
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(f) = expected.get(k) else { break };
                let dir = scratch(&format!("check-{}", f.replace('.', "_")));
                let mut args = vec!["check".to_string(), f.to_string()];
                args.extend(corpus_args(f));
                args.extend(["-o".to_string(), dir.display().to_string()]);
                let out = run(&args);
                let t = text(&out);
                let grads = t.lines().filter(|l| l.contains("(adjoint)") && l.trim_end().ends_with("ok")).count();
                if !out.status.success() || !t.contains("check passed") || grads == 0 {
                    failures.lock().unwrap().push(format!("adjc {}\n{t}", args.join(" ")));
                }
                let _ = std::fs::remove_dir_all(&dir);
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{} corpus check(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}
