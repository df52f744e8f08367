//! Hostile and broken Fortran never panics, never produces invalid IR and never hits an
//! internal error: random bytes, prefixes of every example, and random token soup.

use adjc_frontend::{lower_fortran, lower_fortran_sources, FortranOptions, FortranSource};

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// On a thread with a large stack, as `adjc` runs every stage (long operator chains make
/// deep, left-leaning expression trees).
fn check(src: &str) {
    std::thread::scope(|s| {
        let run = || {
            check_form(src, false);
            check_form(src, true);
        };
        std::thread::Builder::new().stack_size(1 << 30).spawn_scoped(s, run).unwrap().join().unwrap()
    })
}

fn check_form(src: &str, fixed_form: bool) {
    match lower_fortran("fuzz.f90", src, &FortranOptions { fixed_form, ..Default::default() }) {
        Ok(m) => {
            for f in &m.functions {
                if let Err(e) = adjc_ir::validate::validate(f) {
                    panic!("invalid IR for:\n{src}\n{e}");
                }
            }
            let _ = adjc_ir::print::print_module(&m);
        }
        Err(d) => {
            assert!(!d.internal, "internal error for:\n{src}\n{}", d.render("fuzz.f90", src));
            let _ = d.render("fuzz.f90", src);
        }
    }
}

fn examples_dir() -> String {
    format!("{}/../examples/fortran", env!("CARGO_MANIFEST_DIR"))
}

/// Every example that needs no preprocessor, with whether it is fixed form.
fn examples() -> Vec<(String, bool)> {
    let mut paths: Vec<_> =
        std::fs::read_dir(examples_dir()).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "f90" || e == "f"))
        .filter_map(|p| Some((std::fs::read_to_string(p).ok()?, p.extension().is_some_and(|e| e == "f"))))
        .collect()
}

/// Each example lowers, given the module files of `examples/fortran/modules/` too and its
/// include files.
#[test]
fn every_example_lowers() {
    let exs = examples();
    assert!(exs.len() >= 6, "expected the Fortran examples");
    // Every module file (kinds first: the others use them).
    let modules: Vec<FortranSource> = [
        "heat_kinds",
        "heat_params",
        "heat_fields",
        "column_types",
        "parkind1",
        "yomhook",
        "radiation_state",
        "radiation_io",
        "yoecldp",
    ]
    .iter()
    .map(|m| {
        let name = format!("{}/modules/{m}.f90", examples_dir());
        let text = std::fs::read_to_string(&name).unwrap();
        FortranSource { name, text, preprocessed: false, fixed_form: false, original: None }
    })
    .collect();
    let include = |name: &str, _: &str| {
        let path = format!("{}/{name}", examples_dir());
        std::fs::read_to_string(&path).map(|t| (path, t)).map_err(|e| e.to_string())
    };
    for (src, fixed_form) in &exs {
        let main = FortranSource {
            name: "ex.f90".into(),
            text: src.clone(),
            preprocessed: false,
            fixed_form: *fixed_form,
            original: None,
        };
        let sources: Vec<FortranSource> = std::iter::once(main).chain(modules.iter().cloned()).collect();
        if let Err(e) = lower_fortran_sources(&sources, &FortranOptions::default(), &include) {
            panic!("{}", e.render());
        }
    }
}

#[test]
fn prefixes_of_examples() {
    for (src, _) in examples() {
        let cuts: Vec<usize> = src.char_indices().map(|(i, _)| i).filter(|i| i % 5 == 0).collect();
        for cut in cuts {
            check(&src[..cut]);
        }
    }
}

#[test]
fn random_bytes() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn random_token_soup() {
    const TOKENS: [&str; 48] = [
        "subroutine",
        "function",
        "end",
        "do",
        "if",
        "then",
        "else",
        "(",
        ")",
        ",",
        ":",
        "=",
        "+",
        "-",
        "*",
        "/",
        "**",
        "x",
        "a",
        "i",
        "n",
        "1",
        "2.0d0",
        "0.5",
        "real(8)",
        "integer",
        "::",
        "\n",
        "sum(",
        "matmul(",
        "max(",
        "sqrt(",
        ".and.",
        ">",
        "/=",
        "implicit none",
        "intent(in)",
        "parameter",
        "dimension(n)",
        "call",
        "goto",
        "module",
        "contains",
        "0:n+1",
        "a(i)",
        "a(:)",
        "x(2:n-1)",
        "-1",
    ];
    let mut rng = Rng(12345);
    for _ in 0..300 {
        let mut s = String::from("subroutine k(n, a, x)\n  integer :: n\n  real(8) :: a(n), x\n  integer :: i\n");
        for _ in 0..rng.below(40) {
            s.push_str(rng.pick(&TOKENS));
            s.push(' ');
        }
        s.push_str("\nend subroutine\n");
        check(&s);
    }
}

#[test]
fn random_well_formed_kernels() {
    const STMTS: [&str; 12] = [
        "x = x + a(1)",
        "a(2:n) = a(1:n-1) * x",
        "a = sqrt(abs(a)) + 1",
        "x = sum(a(:)) + dot_product(a, a)",
        "do i = 1, n\n a(i) = a(i) * 2\n end do",
        "do i = n, 1, -2\n a(i) = max(a(i), x, 0.5d0)\n end do",
        "if (x > 0) then\n x = -x\n else if (x < -1) then\n x = 1\n else\n x = 0\n end if",
        "a(n:1:-1) = a",
        "x = maxval(a) - minval(a)",
        "a(1) = mod(n, 3) + sign(x, -1.0d0)",
        "if (n > 2) a(2) = tanh(a(1))",
        "x = x ** 2 + exp(-x)",
    ];
    let mut rng = Rng(777);
    for _ in 0..200 {
        let mut s = String::from("subroutine k(n, a, x)\n  integer :: n\n  real(8) :: a(n), x\n  integer :: i\n");
        for _ in 0..1 + rng.below(6) {
            s.push_str(STMTS[rng.below(STMTS.len())]);
            s.push('\n');
        }
        s.push_str("end subroutine\n");
        match lower_fortran("k.f90", &s, &FortranOptions::default()) {
            Ok(m) => {
                for f in &m.functions {
                    adjc_ir::validate::validate(f).unwrap_or_else(|e| panic!("invalid IR for:\n{s}\n{e}"));
                }
            }
            Err(d) => panic!("a well-formed kernel was rejected:\n{s}\n{}", d.render("k.f90", &s)),
        }
    }
}

#[test]
fn deep_nesting_is_rejected_not_overflowed() {
    let deep_expr =
        format!("subroutine k(x)\n  real(8) :: x\n  x = {}x{}\nend subroutine\n", "(".repeat(3000), ")".repeat(3000));
    check(&deep_expr);
    for n in [3000, 6000] {
        let terms = vec!["x"; n].join(" + &\n  ");
        check(&format!("subroutine k(x, y)\n  real(8) :: x, y\n  y = {terms}\nend subroutine\n"));
    }
    let mut deep_loops = String::from("subroutine k(n, x)\n  integer :: n\n  real(8) :: x\n");
    for _ in 0..1500 {
        deep_loops.push_str("if (x > 0) then\n");
    }
    deep_loops.push_str("x = 1\n");
    for _ in 0..1500 {
        deep_loops.push_str("end if\n");
    }
    deep_loops.push_str("end subroutine\n");
    check(&deep_loops);
}

/// Fuzz finding (fuzz/regressions/fortran_frontend/line_marker_oom): preprocessor output
/// whose line marker names a huge line (`#line 2000000000` in a `.F90`) made the frontend
/// allocate one string per line up to it and abort (`memory allocation of 48000000000 bytes
/// failed`). Now a marker beyond `MAX_LINE` is an error located at the marker, and one just
/// below it (in the second of two files too) lowers, quickly.
#[test]
fn huge_line_marker_does_not_abort() {
    let body = "subroutine k(x)\n  real(8) :: x\n  x = 2d0 * x\nend subroutine k\n";
    let src = |name: &str, text: String| FortranSource {
        name: name.into(),
        text,
        preprocessed: true,
        fixed_form: false,
        original: None,
    };
    let include = |_: &str, _: &str| -> Result<(String, String), String> { Err("no includes".into()) };
    for number in ["2000000000", "4294967296", "99999999999999999999999999", "1000001"] {
        let text = format!("# 1 \"k.F90\"\n! c\n# {number} \"k.F90\"\n{body}");
        let e = lower_fortran_sources(&[src("k.F90", text)], &FortranOptions::default(), &include)
            .expect_err("a huge line marker is an error");
        assert_eq!((e.file.as_str(), e.diag.span.line, e.diag.span.col), ("k.F90", 2, 1), "{}", e.render());
        assert!(e.diag.message.contains("line marker sets line"), "{}", e.render());
        assert!(e.render().contains("adjc supports line numbers up to 1000000"), "{}", e.render());
    }
    // The same in the second file, after a marker naming an included file.
    let first = format!("# 1 \"m.f90\"\nmodule m\nend module m\n");
    let second = format!("# 1 \"k.F90\"\n# 1 \"inc.h\"\n# 3000000000 \"inc.h\"\n{body}");
    let e = lower_fortran_sources(
        &[src("k.F90", second.clone()), src("m.f90", first)],
        &FortranOptions::default(),
        &include,
    )
    .expect_err("a huge line marker is an error");
    assert_eq!((e.file.as_str(), e.diag.span.line), ("inc.h", 1), "{}", e.render());
    // At the bound it lowers, and the module's source quotes the lines at their numbers.
    let text = format!("# 1000000 \"k.F90\"\n{body}");
    let m = lower_fortran_sources(&[src("k.F90", text)], &FortranOptions::default(), &include).expect("lowers");
    assert_eq!(m.source.split('\n').nth(1_000_000 - 1), Some("subroutine k(x)"));
}
