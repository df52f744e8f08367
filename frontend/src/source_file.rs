//! Reading a source file, and what can go wrong reading the sources of a kernel: a file is
//! read whole, at most [`MAX_SOURCE_BYTES`], as UTF-8 text; whole-file problems (missing, a
//! directory, too large, not UTF-8, empty) are errors naming the file, so that a device or
//! a data file given by mistake is refused before any parsing.

use std::path::Path;

use adjc_ir::{Diagnostic, Span};

use crate::fortran::SourceError;

/// The largest source file adjc reads (4 MiB): kernels are a few hundred lines, and a
/// device or a data file given by mistake must not be read without end.
pub const MAX_SOURCE_BYTES: u64 = 4 << 20;

/// Why the sources of a kernel could not be read (before any of them is parsed).
#[derive(Clone, Debug, thiserror::Error)]
pub enum LoadError {
    /// A problem located in a file: a whole-file problem (empty, not UTF-8, a directory,
    /// too large) or an error the C preprocessor reported at a line.
    #[error("{}: {}", .0.file, .0.diag.message)]
    Source(SourceError),
    /// The file cannot be opened or read (an I/O failure).
    #[error("cannot read {path}: {message}")]
    Read { path: String, message: String },
    /// A file needs the C preprocessor and none was found.
    #[error(
        "{file} needs the C preprocessor (a `.F90`/`.F` file or `#` directives), but `{program}` was not found; \
         install it (e.g. `apt install cpp`) or set ADJC_CPP to its path"
    )]
    PreprocessorMissing { file: String, program: String },
    /// The preprocessor exists but could not be started (an I/O failure).
    #[error("cannot run the C preprocessor `{program}`: {message}")]
    PreprocessorNotRun { program: String, message: String },
    /// The preprocessor ran and failed without a located error.
    #[error("the C preprocessor failed on {file}:\n{stderr}")]
    PreprocessorFailed { file: String, stderr: String },
    /// The preprocessor's output is not text.
    #[error("the C preprocessor's output for {file} is not UTF-8")]
    PreprocessorOutputNotUtf8 { file: String },
}

impl LoadError {
    /// An I/O failure of the machine (exit code 3 of the command line), rather than a
    /// problem of the input (exit code 2).
    pub fn is_io(&self) -> bool {
        matches!(self, LoadError::Read { .. } | LoadError::PreprocessorNotRun { .. })
    }
}

/// Reads a source file: its display name and text.
pub fn read_source(path: &Path) -> Result<(String, String), LoadError> {
    use std::io::Read;
    let display = path.display().to_string();
    let whole_file = |msg: String, help: &str| {
        LoadError::Source(SourceError {
            file: display.clone(),
            source: String::new(),
            diag: Diagnostic::error(Span::NONE, msg).with_help(help.to_string()),
        })
    };
    let read_error = |e: std::io::Error| LoadError::Read { path: display.clone(), message: e.to_string() };
    let file = std::fs::File::open(path).map_err(read_error)?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(whole_file(
            "this is a directory, not a source file".into(),
            "give the path of a `.py` or Fortran file",
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_SOURCE_BYTES + 1).read_to_end(&mut bytes).map_err(read_error)?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(whole_file(
            format!("the file is larger than {} MiB, the most adjc reads as a source", MAX_SOURCE_BYTES >> 20),
            "give adjc the file holding the kernel (a Python or Fortran source), not a data file or a device",
        ));
    }
    match String::from_utf8(bytes) {
        Ok(s) if s.trim().is_empty() => Err(whole_file(
            "the file is empty".into(),
            "give adjc the file holding the kernel: a Python `def` or a Fortran subroutine or function",
        )),
        Ok(s) => Ok((display, s)),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let good = &e.as_bytes()[..at];
            let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
            let col = good.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
            Err(whole_file(
                format!(
                    "the file is not UTF-8 text: byte {at} (line {line}, column {col}) is 0x{:02x}",
                    e.as_bytes()[at]
                ),
                "save the source as UTF-8 (adjc reads Python and Fortran source text)",
            ))
        }
    }
}
