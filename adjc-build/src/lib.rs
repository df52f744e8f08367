//! Differentiate NumPy and Fortran kernels with adjc from a Cargo build script.
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     adjc_build::Kernel::new("kernels/jacobi_1d.py").wrt(["A"]).of(["A"]).compile("jacobi_1d");
//! }
//! ```
//!
//! ```ignore
//! // src/lib.rs (the crate also depends on adjc-rt, the error type of the bindings)
//! mod jacobi_1d {
//!     include!(concat!(env!("OUT_DIR"), "/jacobi_1d.rs"));
//! }
//! // jacobi_1d::jacobi_1d_b(n, tsteps, &mut a, &mut a_b, &mut b, &mut b_b)?;
//! ```
//!
//! [`Kernel::compile`] runs adjc's library pipeline ([`adjc::Pipeline`]), writes the C, the
//! header and the runtime headers into `$OUT_DIR/adjc/<name>/`, compiles the C with
//! [`cc::Build`] (C11, warnings as errors, OpenMP when the compiler has it, the BLAS of
//! [`Blas`]) into a static library that Cargo links, prints `cargo:rerun-if-changed` for
//! every file adjc read (the source, Fortran modules found by `use`, `include` and cpp
//! `#include` files), and writes Rust bindings to `$OUT_DIR/<name>.rs`: `ffi::` holds the
//! `extern "C"` declarations, and beside each a safe function that takes slices, checks
//! their lengths against the sizes, and returns `Result<(), adjc_rt::Error>` (see
//! [`bindings`]). The generated C is the same as `adjc transpile`'s.

pub mod bindings;

use std::path::{Path, PathBuf};

pub use adjc::buildflags::Blas;

/// A kernel to differentiate: the options of `adjc transpile`, set by methods.
#[derive(Clone, Debug)]
pub struct Kernel {
    sources: Vec<PathBuf>,
    function: Option<String>,
    wrt: Option<Vec<String>>,
    of: Option<Vec<String>>,
    arg_types: Vec<String>,
    defines: Vec<String>,
    include_dirs: Vec<PathBuf>,
    blas: Option<Blas>,
    openmp: Option<bool>,
    warnings_into_errors: bool,
}

/// Why [`Kernel::try_compile`] failed.
#[derive(Debug)]
pub enum Error {
    /// adjc refused the source, or could not read it (rendered as the command line does:
    /// `file:line:col: error: ...` with the source line and a caret).
    Adjc(String),
    /// Not run by Cargo (`OUT_DIR` is not set), or a file could not be written.
    Environment(String),
    /// The C compiler failed.
    Compile(String),
    /// The bindings adjc-build made do not fit the C it was given: a bug in adjc.
    Internal(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Adjc(m) | Error::Environment(m) | Error::Compile(m) => f.write_str(m),
            Error::Internal(m) => write!(f, "adjc-build: internal error: {m} ({})", adjc_ir::diag::REPORT_BUG),
        }
    }
}

impl std::error::Error for Error {}

/// What [`Kernel::try_compile`] wrote.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The directory of the generated `.c`, `.h` and runtime headers.
    pub c_dir: PathBuf,
    /// The Rust bindings (`$OUT_DIR/<name>.rs`).
    pub bindings: PathBuf,
    /// Every file adjc read.
    pub dependencies: Vec<PathBuf>,
}

impl Kernel {
    /// A kernel from its source file (`.py`, `.f90`, `.F90`, `.f`), relative to the
    /// package's directory (where Cargo runs build scripts).
    pub fn new(source: impl AsRef<Path>) -> Kernel {
        Kernel {
            sources: vec![source.as_ref().to_path_buf()],
            function: None,
            wrt: None,
            of: None,
            arg_types: Vec::new(),
            defines: Vec::new(),
            include_dirs: Vec::new(),
            blas: None,
            openmp: None,
            warnings_into_errors: true,
        }
    }

    /// More Fortran files (modules the first one uses, when not found next to it).
    pub fn source(mut self, path: impl AsRef<Path>) -> Kernel {
        self.sources.push(path.as_ref().to_path_buf());
        self
    }

    /// `--function`: the entry function (default: the only one, else the last one).
    pub fn function(mut self, name: &str) -> Kernel {
        self.function = Some(name.to_string());
        self
    }

    /// `--wrt`: the inputs to differentiate with respect to (default: every float input).
    pub fn wrt<S: AsRef<str>>(mut self, names: impl IntoIterator<Item = S>) -> Kernel {
        self.wrt = Some(names.into_iter().map(|s| s.as_ref().to_string()).collect());
        self
    }

    /// `--of`: the outputs whose weighted sum is the loss (default: every output).
    pub fn of<S: AsRef<str>>(mut self, names: impl IntoIterator<Item = S>) -> Kernel {
        self.of = Some(names.into_iter().map(|s| s.as_ref().to_string()).collect());
        self
    }

    /// `--arg`: a Python parameter's type, e.g. `"A: float64[N, M]"`.
    pub fn arg(mut self, spec: &str) -> Kernel {
        self.arg_types.push(spec.to_string());
        self
    }

    /// `-D`: a Fortran preprocessor macro, `NAME` or `NAME=VALUE`.
    pub fn define(mut self, macro_: &str) -> Kernel {
        self.defines.push(macro_.to_string());
        self
    }

    /// `-I`: a directory searched for `include`d files and Fortran modules.
    pub fn include_dir(mut self, dir: impl AsRef<Path>) -> Kernel {
        self.include_dirs.push(dir.as_ref().to_path_buf());
        self
    }

    /// The BLAS the matrix products call. Default: `$ADJC_BLAS` (`none`, `cblas`, `mkl`),
    /// else the package's Cargo feature `cblas` or `mkl` when enabled, else none (adjc's
    /// own blocked loops).
    pub fn blas(mut self, blas: Blas) -> Kernel {
        self.blas = Some(blas);
        self
    }

    /// Build with OpenMP (default: when the C compiler accepts `-fopenmp`).
    pub fn openmp(mut self, on: bool) -> Kernel {
        self.openmp = Some(on);
        self
    }

    /// Treat C compiler warnings as errors (default: yes; adjc's C has none).
    pub fn warnings_into_errors(mut self, on: bool) -> Kernel {
        self.warnings_into_errors = on;
        self
    }

    /// Differentiates, compiles and links the kernel as library `name`, writes the bindings
    /// to `$OUT_DIR/<name>.rs`. Panics with adjc's message on an error, as build scripts
    /// do (see [`Kernel::try_compile`]).
    pub fn compile(&self, name: &str) {
        if let Err(e) = self.try_compile(name) {
            // The message is the diagnostic; a panic's location would only add noise.
            eprintln!("{e}");
            panic!("adjc-build: `{name}` failed (the message above says why)");
        }
    }

    /// [`Kernel::compile`], returning the error.
    pub fn try_compile(&self, name: &str) -> Result<Compiled, Error> {
        let out_dir = std::env::var_os("OUT_DIR")
            .map(PathBuf::from)
            .ok_or_else(|| Error::Environment("adjc-build: OUT_DIR is not set (run from a build script)".into()))?;
        let options = adjc::Options {
            entry: self.function.clone(),
            wrt: self.wrt.clone(),
            of: self.of.clone(),
            arg_types: self.arg_types.clone(),
            defines: self.defines.clone(),
            include_dirs: self.include_dirs.clone(),
            name: Some(name.to_string()),
            command_line: Some(format!("adjc-build, Kernel::new({:?}).compile({name:?})", self.sources[0])),
            ..adjc::Options::files(self.sources.clone())
        };
        let out = adjc::Pipeline::new(options).run().map_err(|e| Error::Adjc(e.render()))?;
        for dep in &out.dependencies {
            println!("cargo:rerun-if-changed={}", dep.display());
        }
        println!("cargo:rerun-if-env-changed=ADJC_BLAS");

        let c_dir = out_dir.join("adjc").join(name);
        out.write_files(&c_dir).map_err(|e| Error::Environment(e.to_string()))?;
        self.compile_c(name, &c_dir.join(format!("{name}.c")), &c_dir)?;

        let functions = [out.primal(), &out.adjoint.function];
        let pairs: Vec<_> = functions.into_iter().zip(&out.files.prototypes).collect();
        let title = format!("`{}` (adjc {})", self.sources[0].display(), env!("CARGO_PKG_VERSION"));
        let rust = bindings::render(&title, &pairs)?;
        let bindings = out_dir.join(format!("{name}.rs"));
        adjc::write::write_if_changed(&bindings, rust.as_bytes()).map_err(|e| Error::Environment(e.to_string()))?;
        Ok(Compiled { c_dir, bindings, dependencies: out.dependencies.clone() })
    }

    fn blas_choice(&self) -> Result<Blas, Error> {
        if let Some(b) = self.blas {
            return Ok(b);
        }
        match std::env::var("ADJC_BLAS").ok().as_deref() {
            Some("none") => return Ok(Blas::None),
            Some("cblas") => return Ok(Blas::Cblas),
            Some("mkl") => return Ok(Blas::Mkl),
            Some(other) => {
                return Err(Error::Environment(format!("adjc-build: ADJC_BLAS={other}: expected none, cblas or mkl")))
            }
            None => {}
        }
        Ok(if std::env::var_os("CARGO_FEATURE_CBLAS").is_some() {
            Blas::Cblas
        } else if std::env::var_os("CARGO_FEATURE_MKL").is_some() {
            Blas::Mkl
        } else {
            Blas::None
        })
    }

    fn compile_c(&self, name: &str, c_file: &Path, c_dir: &Path) -> Result<(), Error> {
        let mut build = cc::Build::new();
        build.file(c_file).include(c_dir).warnings(true).extra_warnings(true);
        build.warnings_into_errors(self.warnings_into_errors);
        for flag in adjc::buildflags::BASE_CFLAGS {
            build.flag(flag);
        }
        let openmp = match self.openmp {
            Some(on) => on,
            None => build.is_flag_supported("-fopenmp").unwrap_or(false),
        };
        if openmp {
            build.flag("-fopenmp");
            // The OpenMP runtime of the compiler: libgomp for gcc, libomp for clang.
            let compiler = build.get_compiler();
            println!("cargo:rustc-link-lib={}", if compiler.is_like_clang() { "omp" } else { "gomp" });
        }
        match self.blas_choice()? {
            Blas::None => {}
            Blas::Cblas => {
                build.define("ADJC_BLAS", "cblas");
                println!("cargo:rustc-link-lib=openblas");
            }
            Blas::Mkl => {
                build.define("ADJC_BLAS", "mkl");
                if let Some(root) = std::env::var_os("MKLROOT") {
                    let root = PathBuf::from(root);
                    build.include(root.join("include"));
                    println!("cargo:rustc-link-search=native={}", root.join("lib").display());
                }
                println!("cargo:rustc-link-lib=mkl_rt");
            }
        }
        build.try_compile(name).map_err(|e| Error::Compile(format!("adjc-build: compiling `{name}`: {e}")))?;
        if cfg!(unix) {
            println!("cargo:rustc-link-lib=m");
        }
        Ok(())
    }
}
