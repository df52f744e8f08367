//! What adjc writes, as a build system sees it (issue 14 parts 1–2): outputs are rewritten
//! only when their content changes (so their times move only then), the dependency file
//! (`--depfile`, `-MD`, `-MF`) lists every file read, and the build commands (`--version`,
//! `runtime`, `config`, `makefile`) work.

mod common;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use common::{adjc, root, scratch, text};

fn mtimes(dir: &Path) -> Vec<(PathBuf, SystemTime)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let t = std::fs::metadata(&p).unwrap().modified().unwrap();
            (p, t)
        })
        .collect();
    out.sort();
    out
}

fn ok(args: &[&str]) -> String {
    let out = adjc(args);
    assert!(out.status.success(), "adjc {}\n{}", args.join(" "), text(&out));
    text(&out)
}

/// Sets a file's time into the past, so that a rewrite would be seen even on a file system
/// with coarse timestamps.
fn age(path: &Path) {
    let past = SystemTime::now() - std::time::Duration::from_secs(100);
    std::fs::File::options().write(true).open(path).unwrap().set_modified(past).unwrap();
}

#[test]
fn unchanged_outputs_keep_their_times_and_changed_ones_move() {
    let dir = scratch("build-mtimes");
    let src = dir.join("k.py");
    std::fs::write(&src, "def k(x: 'float64[N]', y: 'float64[N]'):\n    y[:] = x * x\n").unwrap();
    let out = dir.join("out");
    let (s, o) = (src.to_str().unwrap(), out.to_str().unwrap());
    ok(&["transpile", s, "-o", o, "--fortran-interface", "-MD"]);
    // The depfile has the time of the newest file read (the make rule's stamp).
    let src_time = std::fs::metadata(&src).unwrap().modified().unwrap();
    assert_eq!(std::fs::metadata(out.join("k.d")).unwrap().modified().unwrap(), src_time);
    for (p, _) in mtimes(&out) {
        if !p.ends_with("k.d") {
            age(&p);
        }
    }
    let before = mtimes(&out);
    let names: Vec<String> = before.iter().map(|(p, _)| p.file_name().unwrap().to_string_lossy().into()).collect();
    assert_eq!(names, ["adjc_blas.h", "adjc_runtime.h", "k.c", "k.d", "k.h", "k_adjc.f90"]);
    let second = ok(&["transpile", s, "-o", o, "--fortran-interface", "-MD"]);
    assert_eq!(mtimes(&out), before, "a second run rewrote a file");
    assert!(!second.contains("wrote") && second.matches("unchanged ").count() == 6, "{second}");
    // A change of the body changes the C only: the header, the interface and the runtime
    // headers keep their times (the depfile takes the source's time).
    std::fs::write(&src, "def k(x: 'float64[N]', y: 'float64[N]'):\n    y[:] = x * x * x\n").unwrap();
    ok(&["transpile", s, "-o", o, "--fortran-interface", "-MD"]);
    let moved: Vec<String> = mtimes(&out)
        .iter()
        .zip(&before)
        .filter(|(a, b)| a.1 != b.1)
        .map(|(a, _)| a.0.file_name().unwrap().to_string_lossy().into())
        .collect();
    assert_eq!(moved, ["k.c", "k.d"]);
    // No temporary file is left behind.
    assert_eq!(mtimes(&out).len(), 6);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_depfile_lists_every_file_read() {
    let dir = scratch("build-depfile");
    let sub = dir.join("my inc");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(dir.join("consts.f90"), "module consts\n  real(8), parameter :: c = 2d0\nend module\n").unwrap();
    std::fs::write(sub.join("w.inc"), "  real(8), parameter :: w = 0.5d0\n").unwrap();
    std::fs::write(sub.join("scale.h"), "#define SCALE 3.0d0\n").unwrap();
    std::fs::write(
        dir.join("k.F90"),
        "#include \"scale.h\"\nsubroutine k(n, x, y)\n  use consts\n  implicit none\n  include 'w.inc'\n  integer :: n\n  real(8) :: x(n), y(n)\n  y = SCALE * c * w * x\nend subroutine\n",
    )
    .unwrap();
    std::fs::write(dir.join("unrelated.f90"), "module unrelated\nend module\n").unwrap();
    let k = dir.join("k.F90");
    let inc = sub.to_str().unwrap();
    let out = dir.join("out");
    let depfile = out.join("deps.d");
    // The three spellings write the same file.
    for flags in [
        vec!["--depfile", depfile.to_str().unwrap()],
        vec!["-MD", "-MF", depfile.to_str().unwrap()],
        vec![&*format!("-MF{}", depfile.display())],
    ] {
        let _ = std::fs::remove_file(&depfile);
        let mut args = vec!["transpile", k.to_str().unwrap(), "-I", inc, "-o", out.to_str().unwrap()];
        args.extend(flags.iter().copied());
        ok(&args);
        let d = std::fs::read_to_string(&depfile).unwrap();
        let esc = |p: &Path| p.display().to_string().replace(' ', "\\ ");
        let (rule, _) = d.split_once("\n\n").unwrap();
        let (targets, prereqs) = rule.split_once(':').unwrap();
        assert_eq!(
            targets,
            format!("{} {} {}", out.join("k.c").display(), out.join("k.h").display(), depfile.display())
        );
        for p in [k.clone(), dir.join("consts.f90"), sub.join("scale.h"), sub.join("w.inc")] {
            assert!(prereqs.contains(&format!(" {}", esc(&p))), "{} missing from\n{d}", p.display());
        }
        assert!(!d.contains("unrelated"), "{d}");
    }
    // -MD alone: <out>/<stem>.d
    ok(&["transpile", k.to_str().unwrap(), "-I", inc, "-o", out.to_str().unwrap(), "-MD"]);
    assert!(out.join("k.d").is_file());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn version_names_the_commit() {
    let v = ok(&["--version"]);
    assert!(v.starts_with(&format!("adjc {} (commit ", env!("CARGO_PKG_VERSION"))), "{v}");
}

#[test]
fn runtime_writes_the_headers_and_a_pkg_config_file() {
    let dir = scratch("build-runtime");
    ok(&["runtime", "-o", dir.to_str().unwrap()]);
    let names: Vec<_> =
        mtimes(&dir).iter().map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["adjc.pc", "adjc_blas.h", "adjc_runtime.h"]);
    let pc = std::fs::read_to_string(dir.join("adjc.pc")).unwrap();
    assert!(pc.contains(&format!("includedir={}", dir.display())) && pc.contains("Cflags: -I${includedir}"), "{pc}");
    // pkg-config reads it, when installed.
    if let Ok(out) = std::process::Command::new("pkg-config")
        .args(["--cflags", "--libs", "adjc"])
        .env("PKG_CONFIG_PATH", &dir)
        .output()
    {
        if out.status.success() {
            let flags = String::from_utf8_lossy(&out.stdout);
            assert!(flags.contains(&format!("-I{}", dir.display())) && flags.contains("-lm"), "{flags}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn config_prints_compile_and_link_flags() {
    let flags = ok(&["config", "--cflags", "--blas", "cblas", "--openmp", "--runtime-dir", "gen"]);
    assert_eq!(flags.trim(), "-Igen -std=c11 -fno-trapping-math -fopenmp -DADJC_BLAS=cblas");
    assert_eq!(ok(&["config", "--libs", "--blas", "cblas", "--openmp"]).trim(), "-fopenmp -lopenblas -lm");
    assert_eq!(ok(&["config", "--libs"]).trim(), "-lm");
    // --notes: the thread settings of the build, after the flags when both are asked for.
    let notes = ok(&["config", "--notes", "--blas", "mkl", "--openmp"]);
    assert!(notes.starts_with("OpenMP:") && notes.contains("mkl_set_num_threads_local(1)"), "{notes}");
    let both = ok(&["config", "--libs", "--notes"]);
    assert!(both.starts_with("-lm\n") && both.contains("OpenMP: off"), "{both}");
    let out = adjc(&["config"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let out = adjc(&["config", "--cflags", "--blas", "atlas"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn makefile_prints_the_fragment() {
    let mk = ok(&["makefile"]);
    assert_eq!(mk, std::fs::read_to_string(root().join("adjc/src/adjc.mk")).unwrap());
    assert!(mk.contains("&: $(ADJC_OUT)/%.d ;") && mk.contains("-include $(wildcard $(ADJC_OUT)/*.d)"));
    // Included first, it leaves the default goal to the Makefile's first target.
    let dir = scratch("build-makefile-goal");
    std::fs::write(dir.join("adjc.mk"), &mk).unwrap();
    std::fs::write(
        dir.join("Makefile"),
        format!("ADJC := {}\ninclude adjc.mk\nall: ; @echo ALL\n", env!("CARGO_BIN_EXE_adjc")),
    )
    .unwrap();
    if let Ok(out) = std::process::Command::new("make").current_dir(&dir).env_remove("MAKEFLAGS").output() {
        assert_eq!(String::from_utf8_lossy(&out.stdout), "ALL\n", "{}", String::from_utf8_lossy(&out.stderr));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
