//! The pipeline called as a library, the way another Rust crate (a build script, a notebook
//! server) would: options built in code, source text from memory or files, an injected C
//! preprocessor, typed errors, and the same C as the command line writes.

mod common;

use std::cell::Cell;
use std::path::Path;
use std::rc::Rc;

use adjc::{Error, Input, MemoryOptions, Options, Pipeline, PlanError, ReportFormat, Strategy};
use common::{adjc as run_cli, root, scratch, text};

const AXPY: &str =
    "import numpy as np\n\ndef axpy(a: float, x: 'float64[N]', y: 'float64[N]'):\n    y[:] = a * x + y\n";

#[test]
fn a_kernel_from_a_string_gives_its_adjoint() {
    let options = Options { wrt: Some(vec!["a".into(), "x".into()]), ..Options::source("axpy.py", AXPY) };
    let out = Pipeline::new(options).run().unwrap_or_else(|e| panic!("{}", e.render()));
    // Fragments only: long lines of the C may be wrapped.
    assert!(out.c().contains("int axpy_b(") && out.c().contains("double *a_b"), "{}", out.c());
    assert!(out.h().contains("int axpy(int64_t N, double a, const double *x, double *y);"), "{}", out.h());
    assert_eq!(out.stem, "axpy");
    assert!(out.sources.is_empty());
    assert!(out.memory.is_none() && out.memory_report(ReportFormat::Text).is_none());
    // No command line: the header comment names the source and the version only.
    assert!(out.c().contains("source: axpy.py") && !out.c().contains("command:"), "{}", out.c());
    assert!(out.notes().iter().any(|n| n.starts_with("adjoint (reverse mode) of `axpy`")), "{:?}", out.notes());
    assert!(out.tape_report().starts_with("tapes of axpy_b:\n"), "{}", out.tape_report());
    assert!(out.ir_text().contains("axpy_b"));
}

#[test]
fn the_library_writes_what_the_command_line_writes() {
    for example in ["examples/python/jacobi_1d.py", "examples/fortran/gemm.f90"] {
        let path = root().join(example);
        let dir = scratch(&format!("library-vs-cli-{}", Path::new(example).file_stem().unwrap().to_string_lossy()));
        let (cli_dir, lib_dir) = (dir.join("cli"), dir.join("lib"));
        let cli = run_cli(&["transpile", path.to_str().unwrap(), "-o", cli_dir.to_str().unwrap()]);
        assert!(cli.status.success(), "{}", text(&cli));
        let command = format!("adjc transpile {} -o {}", path.display(), cli_dir.display());
        let options = Options { command_line: Some(command), ..Options::files([path.clone()]) };
        let out = Pipeline::new(options).run().unwrap_or_else(|e| panic!("{}", e.render()));
        assert_eq!(out.sources, vec![path.clone()]);
        let written = out.write_files(&lib_dir).unwrap();
        assert_eq!(written.len(), 4);
        for file in written {
            let name = file.file_name().unwrap();
            let (a, b) = (std::fs::read(cli_dir.join(name)).unwrap(), std::fs::read(&file).unwrap());
            assert!(a == b, "{example}: {} differs between the command line and the library", name.to_string_lossy());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_memory_plan_is_an_option_and_its_report_a_result() {
    let path = root().join("examples/python/jacobi_1d.py");
    let mut options = Options::files([path]);
    options.memory = Some(MemoryOptions { strategy: Strategy::StoreAll, limit: None });
    // Sizes are needed: the plan is made for them.
    let err = Pipeline::new(options.clone()).run().unwrap_err();
    assert!(matches!(&err, Error::Plan(PlanError::MissingSizes(names)) if names.len() == 2), "{err:?}");
    assert!(err.render().contains("add --sizes"), "{}", err.render());
    options.sizes = [("A_n0".to_string(), 30), ("TSTEPS".to_string(), 5)].into();
    let out = Pipeline::new(options).run().unwrap_or_else(|e| panic!("{}", e.render()));
    let plan = out.memory.as_ref().expect("a plan");
    assert_eq!(plan.strategy, Strategy::StoreAll);
    let json = out.memory_report(ReportFormat::Json).unwrap();
    assert!(json.contains("\"strategy\": \"store-all\"") && json.contains("predicted_peak_bytes"), "{json}");
    // The size guard of the planned adjoint is in the C.
    assert!(out.c().contains("ADJC_ERR_PLAN"), "{}", out.c());
}

/// A preprocessor that strips `#` lines and counts its calls.
struct CountingCpp(Rc<Cell<usize>>);

impl adjc::Preprocessor for CountingCpp {
    fn preprocess(&self, path: &Path, flags: &[String]) -> Result<String, adjc::PreprocessFailure> {
        self.0.set(self.0.get() + 1);
        assert_eq!(flags, ["-DSCALE=2d0"]);
        let text = std::fs::read_to_string(path).map_err(|_| adjc::PreprocessFailure::NotUtf8)?;
        let body: String =
            text.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{}\n", l.replace("SCALE", "2d0"))).collect();
        Ok(format!("# 1 \"{}\"\n{body}", path.display()))
    }
}

#[test]
fn the_fortran_preprocessor_is_injected() {
    let dir = scratch("library-cpp");
    let file = dir.join("scale.F90");
    let source = "subroutine scale(n, x, y)\n  integer :: n\n  real(8), intent(in) :: x(n)\n  \
                  real(8), intent(out) :: y(n)\n  y = SCALE * x\nend subroutine\n";
    std::fs::write(&file, source).unwrap();
    let calls = Rc::new(Cell::new(0));
    let options = Options { defines: vec!["SCALE=2d0".into()], ..Options::files([file.clone()]) };
    let out = Pipeline::new(options)
        .with_preprocessor(CountingCpp(calls.clone()))
        .run()
        .unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(calls.get(), 1);
    assert!(out.c().contains("int scale_b("), "{}", out.c());
    // The generated C quotes the file as written, not the preprocessor's output.
    assert!(out.c().contains("y = SCALE * x"), "{}", out.c());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fortran_text_is_transpiled_too() {
    let text = "subroutine twice(n, x, y)\n  integer :: n\n  real(8), intent(in) :: x(n)\n  \
                real(8), intent(out) :: y(n)\n  y = 2d0 * x\nend subroutine\n";
    let out = Pipeline::new(Options::source("twice.f90", text)).run().unwrap_or_else(|e| panic!("{}", e.render()));
    assert!(out.c().contains("int twice_b(") && out.c().contains("twice.f90"), "{}", out.c());
}

#[test]
fn errors_are_typed_by_stage() {
    let run = |options: Options| Pipeline::new(options).run().unwrap_err();
    let e = run(Options::source("k.py", "def f(x):\n    with x:\n        pass\n"));
    assert!(matches!(e, Error::Frontend(_)) && !e.is_io(), "{e:?}");
    let e = run(Options { wrt: Some(vec!["nope".into()]), ..Options::source("axpy.py", AXPY) });
    assert!(matches!(e, Error::Autodiff(_)), "{e:?}");
    assert!(e.render().starts_with("axpy.py:"), "{}", e.render());
    let e = run(Options { name: Some("../x".into()), ..Options::source("axpy.py", AXPY) });
    assert!(matches!(&e, Error::Usage(m) if m.contains("starts with `.` or `-`")), "{e:?}");
    let e = run(Options::source("kernel.c", "int f;"));
    assert!(matches!(&e, Error::Usage(m) if m.contains("unsupported source language")), "{e:?}");
    let e = run(Options::source("k.F90", "subroutine f(x)\n  real(8) :: x\nend subroutine\n"));
    assert!(matches!(&e, Error::Usage(m) if m.contains("needs the C preprocessor")), "{e:?}");
    let e = run(Options::files([root().join("no/such/file.py")]));
    assert!(matches!(e, Error::Load(adjc::LoadError::Read { .. })) && e.is_io(), "{e:?}");
    assert!(matches!(Options::default().input, Input::Files(ref f) if f.is_empty()));
}

#[test]
fn the_result_lists_every_file_read() {
    // heat_step.f90 uses heat_params (given) and heat_kinds (found in -I); jacobi_2d_include
    // includes jacobi_weights.inc.
    let fortran = root().join("examples/fortran");
    let options = Options {
        include_dirs: vec![fortran.join("modules")],
        ..Options::files([fortran.join("heat_step.f90"), fortran.join("modules/heat_params.f90")])
    };
    let out = Pipeline::new(options).run().unwrap_or_else(|e| panic!("{}", e.render()));
    assert_eq!(out.dependencies, out.sources);
    assert!(out.dependencies.contains(&fortran.join("modules/heat_kinds.f90")), "{:?}", out.dependencies);
    let out = Pipeline::new(Options::files([fortran.join("jacobi_2d_include.f90")])).run().unwrap();
    assert_eq!(out.dependencies, vec![fortran.join("jacobi_2d_include.f90"), fortran.join("jacobi_weights.inc")]);
    let d = out.depfile(&["k.c".into()]);
    assert!(d.starts_with("k.c: \\\n") && d.contains("jacobi_weights.inc"), "{d}");
    // Text in memory reads no file.
    let out = Pipeline::new(Options::source("axpy.py", AXPY)).run().unwrap();
    assert!(out.dependencies.is_empty());
}
