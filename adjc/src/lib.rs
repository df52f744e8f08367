//! adjc as a library: source-to-source reverse-mode automatic differentiation of NumPy and
//! Fortran kernels to readable C/OpenMP.
//!
//! Build [`Options`] (the typed form of the command line's flags), run a [`Pipeline`], get
//! a [`Transpiled`]: the forward function and its adjoint as C ([`Transpiled::c`],
//! [`Transpiled::h`]), their IR, the tape and memory-plan reports and the notes the stages
//! left for the reader. Nothing is written until you ask ([`Transpiled::write_files`]).
//! Errors are an [`Error`] per stage; [`Error::render`] prints them as the command line
//! does (`file:line:col: error: ...`, the source line and a caret).
//!
//! ```
//! let kernel = "
//! import numpy as np
//!
//! def axpy(a: float, x: 'float64[N]', y: 'float64[N]'):
//!     y[:] = a * x + y
//! ";
//! let options = adjc::Options { wrt: Some(vec!["a".into(), "x".into()]), ..adjc::Options::source("axpy.py", kernel) };
//! let out = adjc::Pipeline::new(options).run().map_err(|e| e.render())?;
//! // The forward function and its adjoint (Tapenade's convention: `a_b` is incremented by
//! // the gradient of the loss whose seed is `y_b`).
//! assert!(out.h().contains("int axpy(int64_t N, double a, const double *x, double *y);"));
//! assert!(out.c().contains("int axpy_b(") && out.c().contains("double *a_b"));
//! // A source the frontend refuses is an error located in it.
//! let bad = adjc::Pipeline::new(adjc::Options::source("bad.py", "def f(x):\n    while x:\n        pass\n"));
//! let err = bad.run().unwrap_err();
//! assert!(matches!(err, adjc::Error::Frontend(_)));
//! assert!(err.render().starts_with("bad.py:2:5: error:"));
//! # Ok::<(), String>(())
//! ```
//!
//! The stages, in order ([`Stage::ALL`]; [`pipeline`] says what each does):
//!
//! ```text
//! frontend → parallelize → reverse → plan (checkpoint, recompute) → split → shadow → simplify → emit
//! ```
//!
//! The command line (`src/main.rs`, and the modules it declares: `cli`, `cli_error`,
//! `commands`, `check/`, `bench/`, `harness/`, `templates`) is a shell over this library:
//! it turns flags into [`Options`], runs the pipeline, writes the files, and builds and runs
//! the check and bench drivers. Every other file of `src/` belongs to the library.

pub mod buildflags;
pub mod checkpoint_flag;
mod cpp;
pub mod depfile;
mod error;
pub mod fixed_point_flag;
pub mod fortran_kinds;
pub mod max_trips_flag;
pub mod memory;
mod options;
mod output;
pub mod pipeline;
mod report;
pub mod stale;
pub mod write;

/// A parameter named the Fortran way, `curr%nx` (a component of a derived-type argument),
/// is the C parameter `curr_nx`: `--wrt`, `--of`, `--sizes` and `--init` take either.
pub fn component_param(name: &str) -> String {
    name.replace('%', "_")
}

pub use cpp::SystemCpp;
pub use error::{human, render_message, Error, FlagError, Located, PlanError, Stage};
pub use memory::MemoryPlan;
pub use options::{Checkpointing, Input, Language, LoopRef, MemoryOptions, Options, Strategy};
pub use output::{
    NoWrappers, ReportFormat, Transpiled, Written, BLAS_HEADER, BLAS_HEADER_NAME, RUNTIME_HEADER, RUNTIME_HEADER_NAME,
};
pub use pipeline::Pipeline;

/// `adjc --version`: the version and the git commit adjc was built from (`unknown` when it
/// was not built from a git checkout; see `build.rs`).
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("ADJC_GIT_COMMIT"), ")");

/// Writes the runtime headers (`adjc_runtime.h`, `adjc_blas.h`) and `adjc.pc` into `dir`
/// (`adjc runtime -o DIR`), each only if its content changes; returns the paths and
/// whether each was written.
pub fn write_runtime(dir: &std::path::Path) -> Result<Vec<(std::path::PathBuf, Written)>, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let files = [
        (dir.join(RUNTIME_HEADER_NAME), RUNTIME_HEADER.to_string()),
        (dir.join(BLAS_HEADER_NAME), BLAS_HEADER.to_string()),
        (dir.join("adjc.pc"), buildflags::pkg_config(&absolute)),
    ];
    files.into_iter().map(|(path, text)| output::write_file(&path, &text).map(|w| (path, w))).collect()
}

/// The frontend's source loading, for callers that inject their own C preprocessor.
pub use adjc_frontend::fortran::{PreprocessFailure, Preprocessor};
pub use adjc_frontend::LoadError;

/// The variable of `f` that the name `given` means in Fortran (case-insensitive): its
/// spelling in `f`, or `given` itself when no variable matches (the caller reports it).
pub fn fortran_name(f: &adjc_ir::Function, given: &str) -> String {
    let exact = f.vars.iter().any(|v| v.name == given);
    match f.vars.iter().find(|v| v.name.eq_ignore_ascii_case(given)) {
        Some(v) if !exact => v.name.clone(),
        _ => given.to_string(),
    }
}
