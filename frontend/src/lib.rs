//! Source frontends of adjc: they read a kernel and produce an [`adjc_ir::Module`].
//!
//! * [`lower_python`]: Python/NumPy (tree-sitter-python). See [`python`] for what is
//!   supported.
//! * [`lower_fortran`] / [`lower_fortran_sources`]: Fortran, free and fixed form, one or
//!   several (preprocessed) files (tree-sitter-fortran). See [`fortran`].
//!
//! Shared pieces (`sym`, the integer normaliser; `irutil`, whole-function rewriting) are
//! language-independent and used by both frontends.

mod bounds;
pub mod fortran;
mod irutil;
pub mod python;
mod ranges;
mod sym;
mod ts;

pub use fortran::{lower_fortran, lower_fortran_sources, FortranOptions, FortranSource, SourceError};
pub use python::{lower_python, PythonOptions};
