//! Helpers shared by the end-to-end tests: they run the `adjc` binary from the repository root.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

pub fn adjc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_adjc")).current_dir(root()).args(args).output().expect("run adjc")
}

/// Runs adjc with the parallel copies of OpenMP code forced on (`ADJC_OMP_MIN_WORK=0`,
/// appended to `$CFLAGS`) and 3 threads (an uneven split), so that the checks exercise the
/// hoisted regions and guarded parallel loops that the tests' small sizes would skip.
pub fn adjc_parallel_copies(args: &[&str]) -> Output {
    let cflags = format!("{} -DADJC_OMP_MIN_WORK=0", std::env::var("CFLAGS").unwrap_or_default());
    Command::new(env!("CARGO_BIN_EXE_adjc"))
        .current_dir(root())
        .args(args)
        .env("CFLAGS", cflags.trim())
        .env("OMP_NUM_THREADS", "3")
        .output()
        .expect("run adjc")
}

/// Standard output then standard error.
pub fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A fresh, empty directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("adjc-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// An example kernel and the flags of its `adjc check:` line.
pub struct Example {
    pub path: String,
    pub check_flags: Vec<String>,
}

/// The flags of a check line that say which sources to read (extra Fortran files, `-D`,
/// `-I`), for commands other than `check`.
pub fn source_flags(flags: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        if f == "-D" || f == "-I" {
            out.push(f.clone());
            out.extend(it.next().cloned());
        } else if f.starts_with("-D")
            || f.starts_with("-I")
            || (!f.starts_with('-') && [".f90", ".F90", ".f", ".F"].iter().any(|e| f.ends_with(e)))
        {
            out.push(f.clone());
        }
    }
    out
}

/// Splits FLAGS like a shell would for simple quoting ('...' keeps spaces).
pub fn split_flags(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in s.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// The files of `dir` (relative to the root) with one of `exts`, sorted, each with the flags
/// of its `<comment> adjc check:` line.
pub fn examples(dir: &str, exts: &[&str], comment: &str) -> Vec<Example> {
    let marker = format!("{comment} adjc check:");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let src = std::fs::read_to_string(&p).unwrap();
            let flags = src
                .lines()
                .find_map(|l| l.trim().strip_prefix(marker.as_str()))
                .unwrap_or_else(|| panic!("{} has no `{marker}` line", p.display()));
            Example { path: p.strip_prefix(root()).unwrap().display().to_string(), check_flags: split_flags(flags) }
        })
        .collect()
}

/// Runs `adjc check` on an example; the check must pass and show at least one checked
/// gradient (a check that printed nothing proves nothing). Returns the output.
pub fn check_example(ex: &Example, openmp: bool) -> Result<String, String> {
    let mut args = vec!["check", ex.path.as_str()];
    args.extend(ex.check_flags.iter().map(|s| s.as_str()));
    if openmp {
        args.push("--openmp");
    }
    let out = if openmp { adjc_parallel_copies(&args) } else { adjc(&args) };
    let t = text(&out);
    if !out.status.success() {
        return Err(format!("adjc {}\n{t}", args.join(" ")));
    }
    let grads = t.lines().filter(|l| l.contains("(adjoint)") && l.trim_end().ends_with("ok")).count();
    if grads == 0 || !t.contains("check passed") {
        return Err(format!("no gradient was checked:\n{t}"));
    }
    Ok(t)
}

/// Runs `check` on every example, serial and with OpenMP, on two workers; fails with every
/// failure listed.
pub fn check_all(exs: &[Example], check: &(dyn Fn(&Example, bool) -> Result<String, String> + Sync)) {
    let jobs: Vec<(&Example, bool)> = exs.iter().flat_map(|e| [(e, false), (e, true)]).collect();
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((ex, omp)) = jobs.get(k) else { break };
                match check(ex, *omp) {
                    Ok(t) => eprintln!("{} ({}):\n{t}", ex.path, if *omp { "openmp" } else { "serial" }),
                    Err(e) => failures.lock().unwrap().push(e),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{} check(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// Runs `adjc check` on an example with its flags plus `extra`; the adjoint's peak memory as
/// the runtime measured it (`adjoint peak memory: N bytes`), or the output when the check fails.
pub fn check_peak(ex: &Example, extra: &[&str]) -> Result<u64, String> {
    let mut args = vec!["check", ex.path.as_str()];
    args.extend(ex.check_flags.iter().map(|s| s.as_str()));
    args.extend(extra);
    let out = adjc(&args);
    let t = text(&out);
    if !out.status.success() || !t.contains("check passed") {
        return Err(format!("adjc {}\n{t}", args.join(" ")));
    }
    t.lines()
        .find_map(|l| l.trim().strip_prefix("adjoint peak memory: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("no peak in:\n{t}"))
}

/// Whether `program --version` runs and succeeds.
pub fn have(program: &str) -> bool {
    Command::new(program).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// Copies a directory tree, leaving out what the examples' builds make (`build`, `gen`,
/// `adjc.mk`).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap();
        if ["build", "gen", "adjc.mk"].iter().any(|n| name == *n) {
            continue;
        }
        if p.is_dir() {
            copy_dir(&p, &to.join(name));
        } else {
            std::fs::copy(&p, to.join(name)).unwrap();
        }
    }
}

/// Moves a file's time forward, as `touch` does, but surely later than the last build even
/// on a file system with coarse timestamps.
pub fn touch(path: &Path) {
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(2);
    std::fs::File::options().append(true).open(path).unwrap().set_modified(later).unwrap();
}
