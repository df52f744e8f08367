//! End-to-end tests of the `adjc` binary on every example in `examples/fortran/`:
//! transpile, compile the C (with and without OpenMP), run the dot-product gradient test,
//! and check that the output is deterministic.
//!
//! Each example names its check configuration on a line `! adjc check: FLAGS`.

mod common;

use common::{adjc, check_all, check_example, root, text, Example};

fn examples() -> Vec<Example> {
    common::examples("examples/fortran", &["f90", "f", "F90", "F"], "!")
}

fn have_gfortran() -> bool {
    std::process::Command::new("gfortran").arg("--version").output().is_ok_and(|o| o.status.success())
}

fn check_fortran_example(ex: &Example, openmp: bool) -> Result<String, String> {
    let t = check_example(ex, openmp)?;
    if !t.contains("forward vs Python: skipped (Fortran source") {
        return Err(format!("the Python comparison was not skipped for a Fortran source:\n{t}"));
    }
    // Every example is compiled by gfortran too and its outputs compared with the C forward.
    if have_gfortran() {
        let compared = t.lines().filter(|l| l.contains("forward vs gfortran:") && l.trim_end().ends_with("ok")).count();
        if compared == 0 || t.contains("forward vs gfortran: skipped") {
            return Err(format!("the forward function was not compared with gfortran:\n{t}"));
        }
    } else {
        assert!(std::env::var_os("ADJC_REQUIRE_GFORTRAN").is_none(), "gfortran is required but not installed");
    }
    Ok(t)
}

#[test]
fn every_fortran_example_passes_the_gradient_check_serial_and_openmp() {
    let exs = examples();
    assert!(exs.len() >= 6, "expected at least 6 Fortran examples, found {}", exs.len());
    check_all(&exs, &check_fortran_example);
}

#[test]
fn fortran_output_is_deterministic_and_column_major() {
    for ex in examples() {
        let stem = std::path::Path::new(&ex.path).file_stem().unwrap().to_string_lossy().into_owned();
        let mut outs = Vec::new();
        for _run in 0..2 {
            let dir = std::env::temp_dir().join(format!("adjc-fdet-{}-{stem}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            let mut args = vec!["transpile".to_string(), ex.path.clone(), "-o".into(), dir.display().to_string()];
            args.extend(common::source_flags(&ex.check_flags));
            let out = adjc(&args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
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
    assert!(t.contains("bad.f90:4:3: error: this `goto 10` is not supported"), "{t}");
    assert!(t.contains('^') && t.contains("help:"), "{t}");
    assert!(!out_dir.exists(), "output written despite the error");
    let _ = std::fs::remove_dir_all(&dir);
}

fn check_with_gfortran(gfortran: &str) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_adjc"))
        .current_dir(root())
        .env("ADJC_GFORTRAN", gfortran)
        .args(["check", "examples/fortran/gemm.f90", "--sizes", "ni=7,nj=6,nk=5"])
        .output()
        .unwrap()
}

#[test]
fn gfortran_comparison_is_skipped_without_gfortran_and_catches_a_different_original() {
    let out = check_with_gfortran("/nonexistent/gfortran");
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("forward vs gfortran: skipped (gfortran not found"), "{t}");
    if !have_gfortran() {
        return;
    }
    // A "gfortran" that compiles a changed copy of the kernel (beta replaced by beta + 1e-3):
    // the comparison must see the difference.
    let dir = common::scratch("gfortran-mutant");
    let script = dir.join("gfortran");
    let mutant = dir.join("mutant.f90");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *gemm.f90) sed 's/\\* beta/* (beta + 1d-3)/' \"$a\" > {m}; set -- \"$@\" {m};; *) set -- \"$@\" \"$a\";; esac; shift; done\nexec gfortran \"$@\"\n",
            m = mutant.display()
        ),
    )
    .unwrap();
    std::process::Command::new("chmod").arg("+x").arg(&script).status().unwrap();
    let out = check_with_gfortran(script.to_str().unwrap());
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("forward vs gfortran: c") && t.contains("FAILED"), "{t}");
    assert!(t.contains("differs from gfortran"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The gfortran driver passes logicals, single precision, an `intent(out)` array and an
/// in-out scalar, and calls a function at top level for its result.
#[test]
fn gfortran_comparison_of_logicals_float32_and_a_function() {
    if !have_gfortran() {
        return;
    }
    let dir = common::scratch("gfortran-kinds");
    let flagk = dir.join("flagk.f90");
    std::fs::write(
        &flagk,
        "subroutine flagk(n, flag, x, y, s)\n  implicit none\n  integer, intent(in) :: n\n  logical, intent(in) :: flag\n  real(4), intent(in) :: x(n, 2)\n  real(4), intent(out) :: y(n)\n  real(4), intent(inout) :: s\n  integer :: i\n  do i = 1, n\n    if (flag) then\n      y(i) = x(i, 1) * s + x(i, 2)\n    else\n      y(i) = x(i, 2) * s\n    end if\n  end do\n  s = s * 2.0\nend subroutine flagk\n",
    )
    .unwrap();
    let topfun = dir.join("topfun.f90");
    std::fs::write(
        &topfun,
        "real(8) function topfun(n, x)\n  implicit none\n  integer :: n\n  real(8) :: x(n)\n  topfun = sum(x * x) + x(1)\nend function topfun\n",
    )
    .unwrap();
    for (file, sizes, outputs) in [
        (&flagk, "n=5,flag=0", &["y", "s"][..]),
        (&flagk, "n=5,flag=1", &["y", "s"][..]),
        (&topfun, "n=5", &["ret"][..]),
    ] {
        let out = adjc(&["check", file.to_str().unwrap(), "--sizes", sizes]);
        let t = text(&out);
        assert!(out.status.success(), "{t}");
        for name in outputs {
            let line = t.lines().find(|l| l.contains(&format!("forward vs gfortran: {name} "))).unwrap_or("");
            assert!(line.trim_end().ends_with("ok"), "{name}:\n{t}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn transpile_in(dir: &std::path::Path, args: &[&str], cpp: Option<&str>) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_adjc"));
    cmd.current_dir(root()).arg("transpile").args(args).args(["-o", dir.join("out").to_str().unwrap()]);
    if let Some(c) = cpp {
        cmd.env("ADJC_CPP", c);
    }
    cmd.output().unwrap()
}

#[test]
fn a_missing_preprocessor_is_a_clear_error() {
    let dir = common::scratch("no-cpp");
    let out = transpile_in(&dir, &["examples/fortran/gemm_polybench.F90"], Some("/nonexistent/cpp"));
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("needs the C preprocessor") && t.contains("ADJC_CPP"), "{t}");
    assert!(!dir.join("out").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `include` files are searched next to the including file, then in the -I directories;
/// an error inside one points at the include file's own line.
#[test]
fn include_files_are_found_with_dash_i_and_errors_point_into_them() {
    let dir = common::scratch("include-dirs");
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    let kernel = dir.join("kernel.f90");
    std::fs::write(&kernel, "subroutine kernel(x)\n  include 'w.inc'\n  real(8) :: x\n  x = w * x\nend subroutine\n")
        .unwrap();
    std::fs::write(dir.join("inc/w.inc"), "  ! weight\n  real(8), parameter :: w = 3.0d0\n").unwrap();
    let k = kernel.to_str().unwrap();
    let inc = dir.join("inc");
    let out = transpile_in(&dir, &[k], None);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("kernel.f90:2:11: error: include file `w.inc` not found"), "{t}");
    let out = transpile_in(&dir, &[k, "-I", inc.to_str().unwrap(), "--emit", "ir"], None);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    // The included constant keeps its name (a local assigned its value on entry).
    assert!(t.contains("  w = 3.0\n") && t.contains("x = w * x"), "{t}");
    std::fs::write(dir.join("inc/w.inc"), "  ! weight\n  real(8), parameter :: w = (3.0d0\n").unwrap();
    let out = transpile_in(&dir, &[k, "-I", inc.to_str().unwrap()], None);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("inc/w.inc:2:"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `enum, bind(c)` enumerators are integer constants (0, then one more than the previous
/// unless given), `iso_fortran_env`'s kinds are constants too (`dp = real64`), and a text
/// argument passed to a callee is `present` there.
#[test]
fn enumerators_and_intrinsic_module_kinds_are_constants() {
    let dir = common::scratch("enum-kinds");
    let m = dir.join("cfg.f90");
    std::fs::write(
        &m,
        "module cfg\n  use iso_fortran_env, only: real64\n  implicit none\n  integer, parameter :: dp = real64\n  \
         enum, bind(c)\n    enumerator :: ia = 2, ib, ic\n    enumerator id\n  end enum\ncontains\n  \
         subroutine note(text)\n    character(*), intent(in), optional :: text\n    \
         if (present(text)) write(*, *) text\n  end subroutine note\nend module cfg\n",
    )
    .unwrap();
    let k = dir.join("k.f90");
    std::fs::write(
        &k,
        "subroutine k(n, x, y)\n  use cfg, only: dp, ib, id, note\n  implicit none\n  integer :: n\n  \
         real(dp) :: x(n), y(n)\n  integer :: i\n  call note('scaling')\n  do i = 1, n\n    \
         y(i) = ib * x(i) + id\n  end do\nend subroutine k\n",
    )
    .unwrap();
    let out = transpile_in(&dir, &[k.to_str().unwrap(), m.to_str().unwrap(), "--emit", "ir"], None);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("x: f64[1:n]"), "{t}");
    assert!(t.contains("y[i] = 3.0 * x[i] + 5.0"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--setup` of a module procedure: the setup program reaches it through its module (it
/// failed to link before, with no message).
#[test]
fn setup_routines_may_be_module_procedures() {
    if !common::have("gfortran") {
        assert!(std::env::var_os("ADJC_REQUIRE_GFORTRAN").is_none(), "gfortran is required but not installed");
        return;
    }
    let dir = common::scratch("setup-module");
    let m = dir.join("yomcst.f90");
    std::fs::write(
        &m,
        "module yomcst\n  implicit none\n  real(8) :: rg = 0\ncontains\n  subroutine sucst\n    \
         rg = 9.80665d0\n  end subroutine sucst\nend module yomcst\n",
    )
    .unwrap();
    let k = dir.join("kernel.f90");
    std::fs::write(
        &k,
        "subroutine kernel(n, x, y)\n  use yomcst, only: rg\n  implicit none\n  integer :: n\n  \
         real(8) :: x(n), y(n)\n  integer :: i\n  do i = 1, n\n    y(i) = rg * x(i) ** 2\n  end do\n\
         end subroutine kernel\n",
    )
    .unwrap();
    let out = adjc(&["check", k.to_str().unwrap(), m.to_str().unwrap(), "--setup", "sucst", "--sizes", "n=5"]);
    let t = text(&out);
    assert!(out.status.success() && t.contains("check passed"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Components of derived-type arguments are named the Fortran way in the flags too:
/// `--sizes curr%nx=6`, `--wrt prev%data`, `--of curr%data`, `--init prev%dx=...`.
#[test]
fn flags_take_component_spellings() {
    let out = adjc(&[
        "check",
        "examples/fortran/heat_evolve.f90",
        "examples/fortran/modules/heat_fields.f90",
        "-I",
        "examples/fortran/modules",
        "--sizes",
        "curr%nx=6,curr%ny=5,prev%nx=6,prev%ny=5,curr%data_lb0=0,curr_data_lb1=0,prev_data_lb0=0,\
         prev_data_lb1=0,curr_data_n0=8,curr_data_n1=7,prev_data_n0=8,prev_data_n1=7",
        "--wrt",
        "prev%data,a",
        "--of",
        "curr%data",
        "--init",
        "prev%dx=const(0.5)",
        "--no-python",
    ]);
    let t = text(&out);
    assert!(out.status.success() && t.contains("check passed"), "{t}");
    assert!(t.contains("d/dprev_data") && t.contains("d/da ") && !t.contains("d/ddt"), "{t}");
}

/// The text of C function `name` (from its signature to the closing brace).
fn c_function<'a>(c: &'a str, name: &str) -> &'a str {
    let start = c.find(&format!("\nint {name}(")).unwrap_or_else(|| panic!("no {name} in\n{c}"));
    let len = c[start..].find("\n}\n").unwrap_or(c.len() - start);
    &c[start..start + len]
}

/// `matmul` and `dot_product` are the library calls NumPy's `@` gives: BLAS in both
/// sweeps, column-major.
#[test]
fn matmul_and_dot_product_are_blas_calls_in_both_sweeps() {
    let dir = common::scratch("fortran-blas");
    let out = adjc(&["transpile", "examples/fortran/gemm_matmul.f90", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("gemm_matmul.c")).unwrap();
    let (fwd, adj) = (c_function(&c, "gemm_matmul"), c_function(&c, "gemm_matmul_b"));
    assert_eq!(fwd.matches("cblas_dgemm(CblasColMajor").count(), 1, "{fwd}");
    // The forward product again, then a_b += prod_b b^T and b_b += a^T prod_b.
    assert_eq!(adj.matches("cblas_dgemm(CblasColMajor").count(), 3, "{adj}");
    assert!(adj.contains("CblasNoTrans, CblasTrans") && adj.contains("CblasTrans, CblasNoTrans"), "{adj}");
    assert!(!fwd.contains("for (int64_t k"), "the product is still a loop:\n{fwd}");
    let out = adjc(&["transpile", "examples/fortran/products.f90", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("products.c")).unwrap();
    let (fwd, adj) = (c_function(&c, "products"), c_function(&c, "products_b"));
    assert_eq!(fwd.matches("cblas_dgemm(").count(), 1, "{fwd}");
    assert_eq!(fwd.matches("cblas_dgemv(").count(), 2, "{fwd}");
    assert_eq!(fwd.matches("cblas_ddot(").count(), 2, "{fwd}");
    // gemv gives ger (a_b) and gemv (x_b); the forward products run again for the tapes. The
    // two gers into a_b are one pass (rank_update.rs), its unit-stride (first) axis innermost.
    assert!(adj.matches("cblas_dger(").count() == 0 && adj.matches("cblas_dgemv(").count() == 4, "{adj}");
    assert!(
        adj.contains("a_b_(1 + i_2, 1 + j_1) += prod_b_(1 + i_2) * x_(1 + j_1) + y_b_(1 + i_2) * x_(1 + j_1);"),
        "{adj}"
    );
    let at = adj.find("a_b_(1 + i_2, 1 + j_1) +=").unwrap();
    assert!(adj[..at].rfind("for (int64_t i_2").unwrap() > adj[..at].rfind("for (int64_t j_1").unwrap(), "{adj}");
    let _ = std::fs::remove_dir_all(&dir);
    let have_cblas = ["/usr/include/cblas.h", "/usr/include/x86_64-linux-gnu/cblas.h", "/usr/include/openblas/cblas.h"]
        .iter()
        .any(|p| std::path::Path::new(p).exists());
    if !have_cblas {
        assert!(std::env::var_os("ADJC_REQUIRE_OPENBLAS").is_none(), "cblas.h is required but missing");
        return;
    }
    for (file, sizes) in [("gemm_matmul", "ni=7,nj=6,nk=5"), ("products", "n=6,m=5")] {
        for openmp in [false, true] {
            let path = format!("examples/fortran/{file}.f90");
            let mut args = vec!["check", path.as_str(), "--sizes", sizes];
            if openmp {
                args.push("--openmp");
            }
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjc"))
                .current_dir(root())
                .env("CFLAGS", "-DADJC_BLAS=cblas")
                .env("LDLIBS", "-lopenblas")
                .env("OMP_NUM_THREADS", "2")
                .args(&args)
                .output()
                .unwrap();
            assert!(out.status.success() && text(&out).contains("check passed"), "{file}:\n{}", text(&out));
        }
    }
}

/// Generated-program finding (tests/gen/findings/reversed_strided_section_empty_asan.f90):
/// the trip count of `y(n:1:-2)` was `(1 - n) / -2 + 1` in C, whose division truncates, so
/// at n = 0 the empty section had one element and wrote `y(0)` (ASan: global-buffer-overflow;
/// without the sanitizer the check driver failed). Sections and `do` loops with non-unit
/// steps, forward and reversed, at the sizes where they are empty or partly so, under the
/// sanitizers and against gfortran.
#[test]
fn strided_sections_are_empty_when_fortran_says_so() {
    for n in 0..=3 {
        let size = format!("n={n}");
        let out = adjc(&["check", "examples/fortran/strided_sections.f90", "--sizes", &size, "--sanitize"]);
        let t = text(&out);
        assert!(out.status.success(), "n = {n}:\n{t}");
        assert!(t.contains("check passed"), "n = {n}:\n{t}");
        if have_gfortran() {
            let compared = t.lines().filter(|l| l.contains("forward vs gfortran:") && l.trim_end().ends_with("ok"));
            assert_eq!(compared.count(), 4, "n = {n}: x, y, z and res are compared with gfortran:\n{t}");
        }
    }
}

/// `adjc transpile ARGS` into a relative directory (the command line quoted in the files must
/// not depend on the machine), the `.c` and `.h` as the snapshots `fortran_<stem>.{c,h}`.
fn snapshot_c(stem: &str, args: &[String]) {
    let rel = format!("target/adjc-fsnap/{stem}");
    let dir = root().join(&rel);
    let _ = std::fs::remove_dir_all(&dir);
    let mut all = vec!["transpile", args[0].as_str(), "-o", rel.as_str()];
    all.extend(args[1..].iter().map(|s| s.as_str()));
    let out = adjc(&all);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join(format!("{stem}.c"))).unwrap();
    let h = std::fs::read_to_string(dir.join(format!("{stem}.h"))).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    insta::with_settings!({snapshot_path => root().join("tests/snapshots"), prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("fortran_{stem}.c"), c);
        insta::assert_snapshot!(format!("fortran_{stem}.h"), h);
    });
}

/// C snapshots of the Fortran examples of real-code constructs (derived types, array
/// constructors, module kinds): the generated C is reviewed like the Python examples'.
#[test]
fn fortran_c_snapshots() {
    const SNAPSHOTTED: &[&str] = &["heat_evolve", "column_flux", "layer_weights", "optional_args", "vector_subscripts"];
    for ex in examples() {
        let stem = std::path::Path::new(&ex.path).file_stem().unwrap().to_string_lossy().into_owned();
        if !SNAPSHOTTED.contains(&stem.as_str()) {
            continue;
        }
        let mut args = vec![ex.path.clone()];
        args.extend(common::source_flags(&ex.check_flags));
        snapshot_c(&stem, &args);
    }
}

#[test]
fn fortran_names_are_lower_case_unless_keep_case_and_flags_match_any_case() {
    let dir = std::env::temp_dir().join(format!("adjc-fcase-{}", std::process::id()));
    let src = root().join("examples/fortran/f77_gotos.f");
    let header = |extra: &[&str], sub: &str| {
        let out_dir = dir.join(sub);
        let mut args = vec!["transpile", src.to_str().unwrap(), "-o", out_dir.to_str().unwrap()];
        args.extend_from_slice(extra);
        let out = adjc(&args);
        assert!(out.status.success(), "{}", text(&out));
        std::fs::read_to_string(out_dir.join("f77_gotos.h")).unwrap()
    };
    let lower = header(&["--wrt", "U", "--of", "s"], "lower");
    assert!(lower.contains("int clip_flux_b(int64_t n, const double *u, double *u_b,"), "{lower}");
    assert!(!lower.contains("fmax_b"), "--wrt U names u only:\n{lower}");
    let kept = header(&["--keep-case", "--wrt", "u"], "kept");
    assert!(kept.contains("int CLIP_FLUX_b(int64_t N, const double *U, double *U_b,"), "{kept}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// C snapshots of the Fortran examples in the style of the real codes (issue 13): COMMON
/// through `include`, module state with the dr_hook pattern, DATA and statement
/// functions, forward gotos, text and output left out. Reviewed by hand when they change.
#[test]
fn real_code_examples_c_snapshots() {
    // And the data-dependent loops of issue 15 (`do while`, `exit`, `cycle`, `return` in loops).
    for name in [
        "nas_rhs.f",
        "scale_optical_depth.f90",
        "nas_data_stmtfn.f",
        "f77_gotos.f",
        "radiation_diag.f90",
        "converge.f90",
        "search_exit.f90",
        // `stop` / `error stop` (issue 13): ADJC_ERR_STOP in both functions.
        "transmittance_abort.f90",
        // A module variable of derived type (IFS's yrecldp%rkconv): its components as parameters.
        "cloudsc_module_type.f90",
    ] {
        let ex = examples().into_iter().find(|e| e.path.ends_with(name)).expect("the example exists");
        let stem = std::path::Path::new(&ex.path).file_stem().unwrap().to_string_lossy().into_owned();
        let mut args = vec![ex.path.clone()];
        // The example's flags but the check's own (`--init`, `--setup`).
        let mut flags = ex.check_flags.iter();
        while let Some(f) = flags.next() {
            match f.as_str() {
                "--init" | "--setup" => {
                    flags.next();
                }
                _ => args.push(f.clone()),
            }
        }
        snapshot_c(&stem, &args);
    }
}

#[test]
fn setup_routines_fill_common_before_the_check() {
    let keep = std::env::temp_dir().join(format!("adjc-fsetup-{}", std::process::id()));
    let src = root().join("examples/fortran/nas_rhs.f");
    let out = adjc(&[
        "check",
        src.to_str().unwrap(),
        "--wrt",
        "fields_u,constants_dt",
        "--setup",
        "set_constants",
        "--keep",
        keep.to_str().unwrap(),
    ]);
    let t = text(&out);
    if !have_gfortran() {
        return;
    }
    assert!(out.status.success(), "{t}");
    assert!(t.contains("forward vs gfortran: fields_rhs") && t.contains("check passed"), "{t}");
    // The inputs of the check hold the constants set_constants stores in COMMON /constants/
    // (dt, c1, c2 follow the three 12 x 10 arrays of /fields/), and its forcing.
    let bytes = std::fs::read(keep.join("inputs.bin")).unwrap();
    let x: Vec<f64> = bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect();
    assert_eq!(&x[360..363], &[0.015, 1.4, 0.4], "dt, c1, c2");
    assert_eq!(x[240 + 2 + 12 * 3], 0.01 * 3.0 - 0.02 * 4.0, "forcing(3, 4)");
    let _ = std::fs::remove_dir_all(&keep);
}
