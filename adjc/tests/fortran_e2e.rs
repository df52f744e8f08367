//! End-to-end tests of the `adjc` binary on every example in `examples/fortran/`:
//! transpile, compile the C (with and without OpenMP), run the dot-product gradient test,
//! and check that the output is deterministic.
//!
//! Each example names its check configuration on a line `! adjc check: FLAGS`.

mod common;

use common::{adjc, root, text};
use std::path::PathBuf;

struct Example {
    path: String,
    check_flags: Vec<String>,
}

fn examples() -> Vec<Example> {
    let dir = root().join("examples/fortran");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "f90" || e == "f"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let src = std::fs::read_to_string(&p).unwrap();
            let flags = src
                .lines()
                .find_map(|l| l.trim().strip_prefix("! adjc check:"))
                .unwrap_or_else(|| panic!("{} has no `! adjc check:` line", p.display()));
            Example {
                path: p.strip_prefix(root()).unwrap().display().to_string(),
                check_flags: flags.split_whitespace().map(str::to_string).collect(),
            }
        })
        .collect()
}

fn check_example(ex: &Example, openmp: bool) -> Result<String, String> {
    let mut args = vec!["check", ex.path.as_str()];
    args.extend(ex.check_flags.iter().map(|s| s.as_str()));
    if openmp {
        args.push("--openmp");
    }
    let out = adjc(&args);
    let t = text(&out);
    if !out.status.success() {
        return Err(format!("adjc {}\n{t}", args.join(" ")));
    }
    let grads = t.lines().filter(|l| l.contains("(adjoint)") && l.trim_end().ends_with("ok")).count();
    if grads == 0 || !t.contains("check passed") {
        return Err(format!("no gradient was checked:\n{t}"));
    }
    if !t.contains("forward vs Python: skipped (Fortran source") {
        return Err(format!("the Python comparison was not skipped for a Fortran source:\n{t}"));
    }
    Ok(t)
}

#[test]
fn every_fortran_example_passes_the_gradient_check_serial_and_openmp() {
    let exs = examples();
    assert!(exs.len() >= 6, "expected at least 6 Fortran examples, found {}", exs.len());
    let jobs: Vec<(&Example, bool)> = exs.iter().flat_map(|e| [(e, false), (e, true)]).collect();
    let failures = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((ex, omp)) = jobs.get(k) else { break };
                match check_example(ex, *omp) {
                    Ok(t) => eprintln!("{} ({}):\n{t}", ex.path, if *omp { "openmp" } else { "serial" }),
                    Err(e) => failures.lock().unwrap().push(e),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{} check(s) failed:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn fortran_output_is_deterministic_and_column_major() {
    for ex in examples() {
        let stem = std::path::Path::new(&ex.path).file_stem().unwrap().to_string_lossy().into_owned();
        let mut outs = Vec::new();
        for _run in 0..2 {
            let dir = std::env::temp_dir().join(format!("adjc-fdet-{}-{stem}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let out = adjc(&["transpile", &ex.path, "-o", dir.to_str().unwrap()]);
            assert!(out.status.success(), "{}", text(&out));
            outs.push(std::fs::read_to_string(dir.join(format!("{stem}.c"))).unwrap());
            let _ = std::fs::remove_dir_all(&dir);
        }
        assert_eq!(outs[0], outs[1], "{}: two runs differ", ex.path);
        // Source lines are quoted with the Fortran file name.
        let file = std::path::Path::new(&ex.path).file_name().unwrap().to_string_lossy().into_owned();
        assert!(outs[0].contains(&format!("{file}:")), "{}: no source comments", ex.path);
    }
}

#[test]
fn fortran_errors_have_location_caret_and_exit_code_2() {
    let dir = std::env::temp_dir().join(format!("adjc-ferr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("bad.f90");
    std::fs::write(&src, "subroutine k(n, x)\n  integer :: n\n  real(8) :: x(n)\n  goto 10\nend subroutine\n").unwrap();
    let out_dir = dir.join("out");
    let out = adjc(&["transpile", src.to_str().unwrap(), "-o", out_dir.to_str().unwrap()]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("bad.f90:4:3: error: `goto` is not supported"), "{t}");
    assert!(t.contains('^') && t.contains("help:"), "{t}");
    assert!(!out_dir.exists(), "output written despite the error");
    let _ = std::fs::remove_dir_all(&dir);
}
