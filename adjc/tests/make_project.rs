//! `examples/make/` built with real GNU make, as README "Using adjc in your build: make"
//! says (issue 14 part 2): a clean `make -j2 check` builds two NumPy and two Fortran kernels,
//! a C and a Fortran driver, and both drivers' gradients agree with finite differences; then
//! `make -q` says it is up to date; touching a source regenerates only that kernel; an edit
//! rebuilds only its chain; touching an `include` file or a module file regenerates its
//! user; touching an unrelated file does nothing; a clean parallel build never fails.
//!
//! Skipped (with a message) when `make` or `gfortran` is missing; CI has both. The README's
//! 20-run stress of the clean parallel build:
//! `for i in $(seq 20); do make clean >/dev/null && make -j2 all >/dev/null || echo FAIL; done`.

mod common;

use std::path::Path;
use std::process::Command;

use common::{copy_dir, have, root, scratch, touch};

/// Runs `make ARGS ADJC=<this adjc>` in `dir`; returns (success, stdout + stderr).
fn make(dir: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new("make")
        .current_dir(dir)
        .args(args)
        .arg(format!("ADJC={}", env!("CARGO_BIN_EXE_adjc")))
        // Not the jobserver of a make that may run cargo.
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS")
        .env_remove("MAKELEVEL")
        .output()
        .expect("run make");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn make_ok(dir: &Path, args: &[&str]) -> String {
    let (ok, text) = make(dir, args);
    assert!(ok, "make {} failed:\n{text}", args.join(" "));
    text
}

/// The commands make ran (adjc's and the compilers'), without the programs' own output.
fn commands(text: &str) -> Vec<String> {
    text.lines()
        // adjc's lines, and the compilers' (whatever $CC is): every one has `-o`.
        .filter(|l| l.contains(" transpile ") || l.contains(" -o "))
        .map(|l| l.replace(env!("CARGO_BIN_EXE_adjc"), "adjc"))
        .collect()
}

#[test]
fn the_make_example_builds_and_rebuilds_only_what_changed() {
    if !have("make") || !have("gfortran") {
        assert!(std::env::var_os("ADJC_REQUIRE_GFORTRAN").is_none(), "gfortran is required but not installed");
        eprintln!("SKIPPED: the make example needs GNU make and gfortran");
        return;
    }
    let dir = scratch("make-project");
    copy_dir(&root().join("examples/make"), &dir);

    // `make clean` needs no adjc (there is no adjc.mk yet).
    let clean = Command::new("make")
        .current_dir(&dir)
        .args(["clean", "ADJC=/nonexistent/adjc"])
        .env_remove("MAKEFLAGS")
        .env_remove("MAKELEVEL")
        .output()
        .unwrap();
    assert!(clean.status.success(), "make clean: {}", String::from_utf8_lossy(&clean.stderr));
    // A clean parallel build of all kernels never fails (README: the same loop, 20 runs).
    for _ in 0..20 {
        make_ok(&dir, &["clean"]);
        make_ok(&dir, &["-j2", "all"]);
    }
    let out = make_ok(&dir, &["-j2", "check"]);
    assert!(out.contains("grad_c: ok") && out.contains("grad_f: ok"), "{out}");
    let (up_to_date, text) = make(&dir, &["-q", "all"]);
    assert!(up_to_date, "make -q: not up to date after a build\n{text}");

    // touch of a source: adjc runs for it alone, and as the C it writes is unchanged,
    // nothing is compiled.
    touch(&dir.join("kernels/smooth.py"));
    let ran = commands(&make_ok(&dir, &["-j2", "all"]));
    assert_eq!(ran.len(), 1, "{ran:#?}");
    assert!(ran[0].starts_with("adjc transpile kernels/smooth.py"), "{ran:#?}");

    // An edit: only its chain (adjc, its object, the C driver's link).
    let src = dir.join("kernels/smooth.py");
    let text = std::fs::read_to_string(&src).unwrap().replace("0.5 * x[1:-1]", "0.5 * x[1:-1] + 0.0 * x[2:]");
    std::fs::write(&src, text).unwrap();
    touch(&src);
    let ran = commands(&make_ok(&dir, &["-j2", "all"]));
    assert_eq!(ran.len(), 3, "{ran:#?}");
    assert!(ran[0].starts_with("adjc transpile kernels/smooth.py"), "{ran:#?}");
    assert!(ran[1].contains("-c gen/smooth.c"), "{ran:#?}");
    assert!(ran[2].contains("-o build/grad_c "), "{ran:#?}");

    // An included file and a module file found by `use`: their user is regenerated (its C
    // is unchanged, so none of the generated code compiles; the original heat.f90, which
    // the Fortran driver links for its finite differences, is recompiled by its own rule);
    // an edit of the include rebuilds the Fortran driver's chain.
    let generated = |ran: &[String]| -> Vec<String> {
        ran.iter().filter(|c| c.starts_with("adjc ") || c.contains(" -c gen/")).cloned().collect()
    };
    for dep in ["kernels/stencil.inc", "kernels/params.f90"] {
        touch(&dir.join(dep));
        let ran = commands(&make_ok(&dir, &["-j2", "all"]));
        let adjc_part = generated(&ran);
        assert_eq!(adjc_part.len(), 1, "{dep}: {ran:#?}");
        assert!(adjc_part[0].starts_with("adjc transpile kernels/heat.f90"), "{dep}: {ran:#?}");
        assert!(
            !ran.iter().any(|c| c.contains("smooth") || c.contains("softplus") || c.contains("grad_c")),
            "{ran:#?}"
        );
    }
    let inc = dir.join("kernels/stencil.inc");
    std::fs::write(&inc, std::fs::read_to_string(&inc).unwrap().replace("-2.0d0", "-2.5d0")).unwrap();
    touch(&inc);
    let ran = commands(&make_ok(&dir, &["-j2", "all"]));
    assert!(ran[0].starts_with("adjc transpile kernels/heat.f90"), "{ran:#?}");
    assert!(ran.iter().any(|c| c.contains("-c gen/heat.c")), "{ran:#?}");
    assert!(ran.iter().any(|c| c.contains("-c kernels/heat.f90")), "{ran:#?}");
    assert!(ran.last().is_some_and(|c| c.contains("-o build/grad_f ")), "{ran:#?}");
    assert!(!ran.iter().any(|c| c.contains("smooth") || c.contains("softplus") || c.contains("grad_c")), "{ran:#?}");

    // An unrelated file: nothing. (First, once the times `touch` set ahead have passed, the
    // original routines' plain rules catch up: their objects were made before those times.)
    std::thread::sleep(std::time::Duration::from_millis(2500));
    make_ok(&dir, &["-j2", "all"]);
    std::fs::write(dir.join("kernels/notes.txt"), "unrelated\n").unwrap();
    std::fs::write(dir.join("kernels/other.inc"), "! unrelated\n").unwrap();
    let ran = commands(&make_ok(&dir, &["-j2", "all"]));
    assert!(ran.is_empty(), "{ran:#?}");

    // The edited kernels still give the right gradients.
    let out = make_ok(&dir, &["check"]);
    assert!(out.contains("grad_c: ok") && out.contains("grad_f: ok"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
