//! Source frontends of adjc: they read a kernel and produce an [`adjc_ir::Module`].
//!
//! * [`lower_python`]: Python/NumPy (tree-sitter-python). See [`python`] for what is
//!   supported.
//!
//! Shared pieces (`sym`, the integer normaliser; `irutil`, whole-function rewriting) are
//! language-independent so that a Fortran frontend can reuse them.

mod irutil;
pub mod python;
mod sym;

pub use python::{lower_python, PythonOptions};
