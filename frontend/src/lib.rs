//! Source frontends of adjc: they read a kernel and produce an [`adjc_ir::Module`].
//!
//! * [`lower_python`]: Python/NumPy (tree-sitter-python). See [`python`] for what is
//!   supported.
//! * [`lower_fortran`] / [`lower_fortran_sources`]: Fortran, free and fixed form, one or
//!   several (preprocessed) files (tree-sitter-fortran). See [`fortran`]; reading the files
//!   (preprocessor, `include`, module search) is [`fortran::load_sources`].
//! * [`read_source`]: reading one source file, bounded, as UTF-8 text.
//!
//! Shared pieces (`sym`, the integer normaliser; `irutil`, whole-function rewriting) are
//! language-independent and used by both frontends.

mod bounds;
pub mod fortran;
mod index_vars;
mod irutil;
pub mod python;
mod ranges;
mod source_file;
mod sym;
mod ts;

pub use fortran::{
    lower_fortran, lower_fortran_bound, lower_fortran_sources, FortranOptions, FortranSource, SourceError,
};
pub use python::{lower_python, PythonOptions};
pub use source_file::{read_source, LoadError, MAX_SOURCE_BYTES};
