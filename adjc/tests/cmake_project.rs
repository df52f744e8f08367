//! `examples/cmake/` built with real CMake, as README "Using adjc in your build: CMake" says
//! (issue 14 part 3): `adjc_add_adjoint` of `cmake/Adjc.cmake` differentiates the two NumPy
//! and two Fortran kernels of `examples/make/`, both drivers' gradients agree with finite
//! differences (ctest), a second build does nothing, touching a source or an `include`d or
//! `use`d file reruns adjc for its user alone and compiles nothing when the C is unchanged,
//! and an edit rebuilds exactly its chain.
//!
//! Skipped (with a message) when `cmake`, `make` or `gfortran` is missing, unless
//! `ADJC_REQUIRE_CMAKE` is set (CI sets it and installs cmake).

mod common;

use std::path::Path;
use std::process::Command;

use common::{copy_dir, have, root, scratch};

/// Runs `cmake ARGS` in `dir`; returns stdout + stderr, asserting success.
fn cmake(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("cmake")
        .current_dir(dir)
        .args(args)
        // Not the jobserver of a make that may run cargo.
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS")
        .env_remove("MAKELEVEL")
        .output()
        .expect("run cmake");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "cmake {} failed:\n{text}", args.join(" "));
    text
}

/// What a build ran: adjc (its COMMENT line, `differentiating STEM`), compilations
/// (`Building ... object`) and links (`Linking`).
fn steps(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.contains("adjc: differentiating") || l.contains("Building ") || l.contains("Linking "))
        .map(|l| l.split_once("] ").map_or(l, |(_, rest)| rest).to_string())
        .collect()
}

/// Sets a file's time to now, after a pause longer than the coarsest file-system clock, so
/// that it is newer than everything the last build wrote (the build's stamp is touched to
/// the time it finished).
fn touch_later(path: &Path) {
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::File::options().append(true).open(path).unwrap().set_modified(std::time::SystemTime::now()).unwrap();
}

#[test]
fn the_cmake_example_builds_and_rebuilds_only_what_changed() {
    if !have("cmake") || !have("make") || !have("gfortran") {
        assert!(std::env::var_os("ADJC_REQUIRE_CMAKE").is_none(), "cmake is required but not installed");
        eprintln!("SKIPPED: the CMake example needs cmake, make and gfortran");
        return;
    }
    // The example refers to ../make (the kernels and drivers) and ../../cmake (Adjc.cmake).
    let dir = scratch("cmake-project");
    copy_dir(&root().join("cmake"), &dir.join("cmake"));
    copy_dir(&root().join("examples/make"), &dir.join("examples/make"));
    copy_dir(&root().join("examples/cmake"), &dir.join("examples/cmake"));
    let build = dir.join("build");
    let adjc = format!("-DADJC_EXECUTABLE={}", env!("CARGO_BIN_EXE_adjc"));
    cmake(&dir, &["-S", "examples/cmake", "-B", "build", &adjc]);

    let first = steps(&cmake(&build, &["--build", ".", "-j2"]));
    for stem in ["smooth", "softplus", "heat", "damp"] {
        assert!(first.contains(&format!("adjc: differentiating {stem}")), "{first:#?}");
    }
    let test = Command::new("ctest").current_dir(&build).arg("--output-on-failure").output().expect("run ctest");
    let text = String::from_utf8_lossy(&test.stdout);
    assert!(test.status.success() && text.contains("100% tests passed, 0 tests failed out of 2"), "{text}");

    // Up to date: nothing runs.
    let ran = steps(&cmake(&build, &["--build", "."]));
    assert!(ran.is_empty(), "{ran:#?}");

    // touch of a source, of its `include` file and of the module it uses: adjc runs for its
    // user alone and, as the C it writes is unchanged, nothing is compiled.
    for (dep, stem) in [
        ("examples/make/kernels/smooth.py", "smooth"),
        ("examples/make/kernels/stencil.inc", "heat"),
        ("examples/make/kernels/params.f90", "heat"),
    ] {
        touch_later(&dir.join(dep));
        let ran = steps(&cmake(&build, &["--build", "."]));
        // The original routines the Fortran driver links for its finite differences
        // (`original_f`) are CMake's own business: recompiled with their include and module.
        let ours: Vec<String> = ran
            .iter()
            .filter(|s| !s.contains("original_f") && !s.contains("Linking Fortran executable grad_f"))
            .cloned()
            .collect();
        assert_eq!(ours, vec![format!("adjc: differentiating {stem}")], "{dep}: {ran:#?}");
        let ran = steps(&cmake(&build, &["--build", "."]));
        assert!(ran.is_empty(), "{dep}, second build: {ran:#?}");
    }

    // An edit: its chain only (adjc, its object, its library, the C driver's link).
    let src = dir.join("examples/make/kernels/smooth.py");
    let text = std::fs::read_to_string(&src).unwrap().replace("0.5 * x[1:-1]", "0.5 * x[1:-1] + 0.0 * x[2:]");
    std::fs::write(&src, text).unwrap();
    touch_later(&src);
    let ran = steps(&cmake(&build, &["--build", "."]));
    assert_eq!(ran[0], "adjc: differentiating smooth", "{ran:#?}");
    assert!(ran.iter().any(|s| s.contains("smooth.c.o")), "{ran:#?}");
    assert!(ran.iter().any(|s| s.contains("Linking C executable grad_c")), "{ran:#?}");
    assert!(!ran.iter().any(|s| s.contains("heat") || s.contains("damp") || s.contains("grad_f")), "{ran:#?}");

    // The same for the Fortran kernel through its include file.
    let inc = dir.join("examples/make/kernels/stencil.inc");
    std::fs::write(&inc, std::fs::read_to_string(&inc).unwrap().replace("-2.0d0", "-2.5d0")).unwrap();
    touch_later(&inc);
    let ran = steps(&cmake(&build, &["--build", "."]));
    assert_eq!(ran[0], "adjc: differentiating heat", "{ran:#?}");
    assert!(ran.iter().any(|s| s.contains("heat.c.o")), "{ran:#?}");
    assert!(ran.iter().any(|s| s.contains("Linking Fortran executable grad_f")), "{ran:#?}");
    assert!(!ran.iter().any(|s| s.contains("smooth") || s.contains("grad_c")), "{ran:#?}");

    // The edited kernels still give the right gradients.
    let test = Command::new("ctest").current_dir(&build).arg("--output-on-failure").output().expect("run ctest");
    let text = String::from_utf8_lossy(&test.stdout);
    assert!(test.status.success() && text.contains("100% tests passed, 0 tests failed out of 2"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
