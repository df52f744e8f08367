//! `adjc transpile --fortran-interface`: the text of the generated `<stem>_adjc.f90`, and,
//! when `gfortran` is installed, a Fortran program (`fortran_drivers/`) that calls the
//! forward function and the adjoint through it and checks the gradient against a finite
//! difference. `ADJC_REQUIRE_GFORTRAN=1` (CI) makes a missing gfortran a failure.

mod common;

use common::{adjc, root, scratch, text};
use std::path::Path;
use std::process::Command;

fn transpile(source: &str, dir: &Path) -> String {
    let out = adjc(&["transpile", source, "-o", dir.to_str().unwrap(), "--fortran-interface"]);
    assert!(out.status.success(), "{}", text(&out));
    let stem = Path::new(source).file_stem().unwrap().to_str().unwrap();
    assert!(text(&out).contains(&format!("{stem}_adjc.f90")), "{}", text(&out));
    std::fs::read_to_string(dir.join(format!("{stem}_adjc.f90"))).unwrap()
}

#[test]
fn module_declares_c_types_and_explicit_shapes() {
    let dir = scratch("fiface-text");
    let m = transpile("examples/fortran/gemm.f90", &dir);
    assert!(m.contains("module gemm_adjc\n  use iso_c_binding, only: c_int, c_int64_t, c_double, c_float, c_bool\n"));
    assert!(m.contains("    function gemm(ni, nj, nk, alpha, beta, c, a, b) bind(C, name=\"gemm\")\n"), "{m}");
    assert!(m.contains("      integer(c_int64_t), value :: ni\n"));
    assert!(m.contains("      real(c_double), value :: alpha\n"));
    assert!(m.contains("      real(c_double), intent(inout) :: alpha_b\n"));
    assert!(m.contains("      real(c_double), intent(in) :: a(nk, ni)\n"));
    assert!(m.contains("      real(c_double), intent(inout) :: a_b(nk, ni)\n"));
    assert!(m.contains("      integer(c_int) :: gemm_b\n    end function gemm_b\n"));
    // Wrapped with a continuation, never past the free-form limit.
    assert!(m.lines().all(|l| l.len() <= 132), "{m}");
    assert!(m.contains(" &\n"), "{m}");

    let m = transpile("examples/fortran/smooth_bounds.f90", &dir);
    assert!(m.contains("      real(c_double), intent(inout) :: u(0:n + 1)\n"), "{m}");
    assert!(m.contains("      real(c_double), intent(out) :: w(0:n + 1)\n"), "{m}");
    // Sizes are declared before the arrays whose bounds use them.
    let n = m.find("integer(c_int64_t), value :: n").unwrap();
    assert!(n < m.find(":: u(0:n + 1)").unwrap());

    // NumPy arrays: same memory, axes reversed, 0-based.
    let m = transpile("examples/python/gemm.py", &dir);
    assert!(m.contains("      real(c_double), intent(in) :: A(0:NK - 1, 0:NI - 1)\n"), "{m}");
    assert!(m.contains("Fortran caller writes A(j, i) for the source's A[i, j]"), "{m}");

    // Deterministic.
    let again = transpile("examples/python/gemm.py", &dir);
    assert_eq!(m, again);
    let _ = std::fs::remove_dir_all(&dir);
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?}\n{}", text(&out));
}

/// Builds `fortran_drivers/<driver>.f90` against the C of `source` and runs it.
fn drive(source: &str, driver: &str) {
    let stem = Path::new(source).file_stem().unwrap().to_str().unwrap().to_string();
    let dir = scratch(&format!("fiface-{}-{stem}", source.replace(['/', '.'], "_")));
    transpile(source, &dir);
    run(Command::new("cc").current_dir(&dir).args(["-std=c11", "-O1", "-I.", "-c", &format!("{stem}.c")]));
    run(Command::new("gfortran").current_dir(&dir).args(["-std=f2018", "-Werror", "-c", &format!("{stem}_adjc.f90")]));
    let driver = root().join("adjc/tests/fortran_drivers").join(format!("{driver}.f90"));
    run(Command::new("gfortran").current_dir(&dir).args([
        "-o",
        "drive",
        driver.to_str().unwrap(),
        &format!("{stem}.o"),
        "-lm",
    ]));
    let out = Command::new(dir.join("drive")).output().unwrap();
    let t = text(&out);
    assert!(out.status.success() && t.contains("fortran driver ok"), "{source}:\n{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fortran_program_calls_forward_and_adjoint() {
    if !have("gfortran") {
        assert!(std::env::var_os("ADJC_REQUIRE_GFORTRAN").is_none(), "gfortran is required but not installed");
        eprintln!("skipped: gfortran is not installed");
        return;
    }
    drive("examples/fortran/gemm.f90", "gemm");
    drive("examples/fortran/smooth_bounds.f90", "smooth_bounds");
    // The NumPy gemm has the same signature; its arrays appear transposed, which the
    // driver's column-major declarations already are.
    drive("examples/python/gemm.py", "gemm");
}

/// An array of nested derived types (column_flux: `type(column) :: cols(ncol)`): the wrappers
/// copy its components into the C's one-array-per-component layout and back.
#[test]
fn array_of_types_wrappers_copy_the_components() {
    let dir = scratch("fiface-cols");
    let out = adjc(&[
        "transpile",
        "examples/fortran/column_flux.f90",
        "examples/fortran/modules/column_types.f90",
        "-I",
        "examples/fortran/modules",
        "-o",
        dir.to_str().unwrap(),
        "--fortran-interface",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let w = std::fs::read_to_string(dir.join("column_flux_adjc_wrap.f90")).unwrap();
    assert!(w.contains("  subroutine column_flux_b(ncol, cols, cols_b, flux, flux_b, stat)\n"), "{w}");
    assert!(w.contains("      adjc_t3(:, adjc_i) = cols(adjc_i)%gas%t\n"), "{w}");
    if !have("gfortran") {
        assert!(std::env::var_os("ADJC_REQUIRE_GFORTRAN").is_none(), "gfortran is required but not installed");
        return;
    }
    let modules = root().join("examples/fortran/modules");
    let m = |f: &str| modules.join(f).display().to_string();
    let original = root().join("examples/fortran/column_flux.f90").display().to_string();
    run(Command::new("cc").current_dir(&dir).args(["-std=c11", "-O1", "-I.", "-c", "column_flux.c"]));
    for src in
        [m("heat_kinds.f90"), m("column_types.f90"), "column_flux_adjc.f90".into(), "column_flux_adjc_wrap.f90".into()]
    {
        run(Command::new("gfortran").current_dir(&dir).args(["-std=f2018", "-Werror", "-c", &src]));
    }
    run(Command::new("gfortran").current_dir(&dir).args([
        "-std=f2018",
        "-Werror",
        "-c",
        &original,
        "-o",
        "column_physics.o",
    ]));
    let driver = root().join("adjc/tests/fortran_drivers/column_flux.f90");
    run(Command::new("gfortran").current_dir(&dir).args([
        "-o",
        "drive",
        driver.to_str().unwrap(),
        "heat_kinds.o",
        "column_types.o",
        "column_physics.o",
        "column_flux.o",
        "column_flux_adjc.o",
        "column_flux_adjc_wrap.o",
        "-lm",
    ]));
    let out = Command::new(dir.join("drive")).output().unwrap();
    let t = text(&out);
    assert!(out.status.success() && t.contains("fortran driver ok"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A routine with derived-type dummies (heat_evolve: `type(field)` from a module of another
/// file): the wrappers of `<stem>_adjc_wrap.f90` take the fields whole; a Fortran program
/// calls them next to the original routine and checks the forward values and the gradient.
#[test]
fn derived_type_wrappers_take_the_original_arguments() {
    let dir = scratch("fiface-derived");
    let out = adjc(&[
        "transpile",
        "examples/fortran/heat_evolve.f90",
        "examples/fortran/modules/heat_fields.f90",
        "-I",
        "examples/fortran/modules",
        "-o",
        dir.to_str().unwrap(),
        "--fortran-interface",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let w = std::fs::read_to_string(dir.join("heat_evolve_adjc_wrap.f90")).unwrap();
    assert!(w.contains("  subroutine evolve_b(curr, curr_b, prev, prev_b, a, a_b, dt, dt_b, stat)\n"), "{w}");
    assert!(w.contains("    type(field), intent(inout) :: curr, curr_b\n"), "{w}");
    assert!(w.contains("int(lbound(curr%data, 1), c_int64_t)"), "{w}");
    assert!(w.lines().all(|l| l.len() <= 132 || l.starts_with('!')), "{w}");
    if !have("gfortran") {
        assert!(std::env::var_os("ADJC_REQUIRE_GFORTRAN").is_none(), "gfortran is required but not installed");
        return;
    }
    let modules = root().join("examples/fortran/modules");
    let m = |f: &str| modules.join(f).display().to_string();
    let heat = root().join("examples/fortran/heat_evolve.f90").display().to_string();
    run(Command::new("cc").current_dir(&dir).args(["-std=c11", "-O1", "-I.", "-c", "heat_evolve.c"]));
    for src in
        [m("heat_kinds.f90"), m("heat_fields.f90"), "heat_evolve_adjc.f90".into(), "heat_evolve_adjc_wrap.f90".into()]
    {
        run(Command::new("gfortran").current_dir(&dir).args(["-std=f2018", "-Werror", "-c", &src]));
    }
    // The original routine (its object must not take the C object's name).
    run(Command::new("gfortran").current_dir(&dir).args(["-std=f2018", "-Werror", "-c", &heat, "-o", "heat_core.o"]));
    let driver = root().join("adjc/tests/fortran_drivers/heat_evolve.f90");
    run(Command::new("gfortran").current_dir(&dir).args([
        "-o",
        "drive",
        driver.to_str().unwrap(),
        "heat_kinds.o",
        "heat_fields.o",
        "heat_core.o",
        "heat_evolve.o",
        "heat_evolve_adjc.o",
        "heat_evolve_adjc_wrap.o",
        "-lm",
    ]));
    let out = Command::new(dir.join("drive")).output().unwrap();
    let t = text(&out);
    assert!(out.status.success() && t.contains("fortran driver ok"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every example's interface module compiles with `gfortran -std=f2018 -Werror`, names Fortran
/// cannot take included (`_fict_` in fdtd_2d.py, `N` next to `n` in power_loop.py).
#[test]
fn every_example_module_compiles_with_gfortran() {
    if !have("gfortran") {
        assert!(std::env::var_os("ADJC_REQUIRE_GFORTRAN").is_none(), "gfortran is required but not installed");
        return;
    }
    let dir = scratch("fiface-all");
    let mut sources: Vec<String> = Vec::new();
    for sub in ["examples/fortran", "examples/python"] {
        for e in std::fs::read_dir(root().join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e == "f90" || e == "F90" || e == "f" || e == "py") {
                sources.push(p.strip_prefix(root()).unwrap().display().to_string());
            }
        }
    }
    sources.sort();
    for source in &sources {
        let src = std::fs::read_to_string(root().join(source)).unwrap();
        let mut args = vec!["transpile".to_string(), source.clone(), "-o".into(), dir.display().to_string()];
        args.push("--fortran-interface".into());
        // The entry, when the check line names one.
        let check_line = src.lines().find_map(|l| l.split_once("adjc check:").map(|(_, f)| f)).unwrap_or("");
        let flags: Vec<&str> = check_line.split_whitespace().collect();
        args.extend(common::source_flags(&common::split_flags(check_line)));
        if let Some(k) = flags.iter().position(|f| *f == "--function") {
            args.push("--function".into());
            args.push(flags.get(k + 1).unwrap().to_string());
        }
        let refs: Vec<&str> = args.iter().map(|a| a.as_str()).collect();
        let out = adjc(&refs);
        assert!(out.status.success(), "{source}: {}", text(&out));
        let stem = Path::new(source).file_stem().unwrap().to_str().unwrap();
        run(Command::new("gfortran").current_dir(&dir).args([
            "-std=f2018",
            "-Werror",
            "-c",
            &format!("{stem}_adjc.f90"),
        ]));
    }
    assert!(sources.len() > 40, "{sources:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The drop-in wrappers of a plain routine: the routine's own integer kinds and bounds, an
/// optional `stat`, and the C reached through interfaces of their own names. With `--prefix`
/// the C symbols move and the wrappers keep the source's names.
#[test]
fn drop_in_wrappers_take_the_routines_own_arguments() {
    let dir = scratch("fiface-dropin");
    let out = adjc(&[
        "transpile",
        "examples/make/kernels/heat.f90",
        "-o",
        dir.to_str().unwrap(),
        "--fortran-interface",
        "--prefix",
        "ad_",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("heat.c")).unwrap();
    assert!(c.contains("int ad_heat_b(int64_t n, int64_t nsteps, double *u, double *u_b"), "{c}");
    assert!(!c.contains("int heat_b("), "{c}");
    let m = std::fs::read_to_string(dir.join("heat_adjc.f90")).unwrap();
    assert!(m.contains("bind(C, name=\"ad_heat_b\")"), "{m}");
    let w = std::fs::read_to_string(dir.join("heat_adjc_wrap.f90")).unwrap();
    assert!(w.contains("  public :: heat, heat_b\n"), "{w}");
    assert!(w.contains("  subroutine heat_b(n, nsteps, u, u_b, flux, flux_b, stat)\n"), "{w}");
    assert!(w.contains("    integer, intent(in) :: n\n"), "{w}");
    assert!(w.contains("    real(c_double), intent(inout) :: u_b(0:n + 1)\n"), "{w}");
    assert!(w.contains("    integer, intent(out), optional :: stat\n"), "{w}");
    assert!(w.contains("bind(C, name=\"ad_heat_b\")"), "{w}");
    assert!(w.contains("int(n, c_int64_t), int(nsteps, c_int64_t), u, u_b, flux, flux_b)"), "{w}");
    // A bad prefix is a usage error, and nothing is written.
    let bad = scratch("fiface-badprefix");
    let out = adjc(&["transpile", "examples/make/kernels/heat.f90", "-o", bad.to_str().unwrap(), "--prefix", "_x"]);
    assert!(!out.status.success() && text(&out).contains("--prefix `_x`"), "{}", text(&out));
    let out = adjc(&["transpile", "examples/make/kernels/heat.f90", "-o", bad.to_str().unwrap(), "--prefix", "adjc_"]);
    assert!(!out.status.success() && text(&out).contains("adjc's own"), "{}", text(&out));
    assert!(!bad.join("heat.c").exists());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&bad);
}

/// `adjc check --prefix`: the C driver calls the prefixed symbols, the references (gfortran,
/// NumPy) the source's names, the wrappers their own.
#[test]
fn check_passes_with_a_prefix() {
    let out = adjc(&["check", "examples/make/kernels/heat.f90", "--sizes", "n=8,nsteps=2", "--prefix", "ad_"]);
    let t = text(&out);
    assert!(out.status.success() && t.contains("check passed"), "{t}");
    if have("gfortran") {
        assert!(t.contains("forward vs gfortran: u "), "{t}");
        assert!(t.contains("drop-in wrapper heat_b vs C: 4 arrays and scalars") && t.contains("   ok"), "{t}");
    }
    let out = adjc(&["check", "examples/python/gemm.py", "--sizes", "NI=5,NJ=6,NK=7", "--prefix", "k_"]);
    let t = text(&out);
    assert!(out.status.success() && t.contains("check passed"), "{t}");
}

/// A Fortran `stop` (`error stop` in ecRad's `radiation_abort`, from a module of another
/// file): the C function and its adjoint return ADJC_ERR_STOP (5) where the original stops.
/// A Fortran main calls the original and the drop-in wrapper: equal outputs and the exact
/// adjoint on good input, `stat = 5` on an input out of range.
#[test]
fn a_stop_returns_adjc_err_stop_through_the_drop_in_wrapper() {
    let dir = scratch("fiface-stop");
    let src = "examples/fortran/transmittance_abort.f90";
    let module = "examples/fortran/modules/radiation_io.f90";
    let out = adjc(&["transpile", src, module, "-o", dir.to_str().unwrap(), "--fortran-interface"]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("transmittance_abort.c")).unwrap();
    // Both functions: the stop where the source has it, inside the loops, nothing else.
    assert_eq!(c.matches("goto stopped;").count(), 4, "{c}");
    assert_eq!(c.matches("return ADJC_ERR_STOP;").count(), 2, "{c}");
    let h = std::fs::read_to_string(dir.join("transmittance_abort.h")).unwrap();
    assert!(h.contains("Returns ADJC_ERR_STOP when the source reaches a `stop`"), "{h}");
    assert!(h.contains("radiation_io.f90 line 13: `error stop 1` returns ADJC_ERR_STOP"), "{h}");
    let w = std::fs::read_to_string(dir.join("transmittance_abort_adjc_wrap.f90")).unwrap();
    assert!(w.contains("(ADJC_ERR_STOP)"), "{w}");
    if !have("gfortran") {
        assert!(std::env::var_os("ADJC_REQUIRE_GFORTRAN").is_none(), "gfortran is required but not installed");
        eprintln!("skipped: gfortran is not installed");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    run(Command::new("cc").current_dir(&dir).args([
        "-std=c11",
        "-O1",
        "-I.",
        "-c",
        "transmittance_abort.c",
        "-o",
        "transmittance_abort_c.o",
    ]));
    for f in [root().join(module), root().join(src), dir.join("transmittance_abort_adjc_wrap.f90")] {
        run(Command::new("gfortran").current_dir(&dir).args(["-c", f.to_str().unwrap()]));
    }
    let driver = root().join("adjc/tests/fortran_drivers/transmittance_abort.f90");
    run(Command::new("gfortran").current_dir(&dir).args([
        "-o",
        "drive",
        driver.to_str().unwrap(),
        "transmittance_abort_adjc_wrap.o",
        "transmittance_abort.o",
        "radiation_io.o",
        "transmittance_abort_c.o",
        "-lm",
    ]));
    let out = Command::new(dir.join("drive")).output().unwrap();
    let t = text(&out);
    assert!(out.status.success() && t.contains("fortran driver ok"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}
