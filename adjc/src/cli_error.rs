//! What can stop a subcommand, and its exit code: the library's [`adjc::Error`] (rendered
//! by the library, the one diagnostics path) and the command line's own failures.

/// Everything that can stop a subcommand.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The pipeline stopped (a problem in the source, the options, or adjc itself).
    #[error("{0}")]
    Pipeline(#[from] adjc::Error),
    /// Bad flags or values on the command line.
    #[error("{0}")]
    Usage(String),
    /// The check ran and found a discrepancy (or could not build).
    #[error("check failed: {0}")]
    CheckFailed(String),
    /// A file or a program of the harness failed.
    #[error("{0}")]
    Io(String),
    /// The harness broke its own invariant (a template that does not render): a bug.
    #[error("internal error: {0}")]
    Internal(String),
}

impl CliError {
    pub fn render(&self) -> String {
        match self {
            CliError::Pipeline(e) => e.render(),
            CliError::Usage(m) | CliError::Io(m) => adjc::render_message(m),
            CliError::CheckFailed(m) => format!("adjc: check failed: {m}\n"),
            CliError::Internal(m) => {
                adjc::render_message(&format!("internal error: {m} (this is a bug in adjc; please report it)"))
            }
        }
    }

    /// 1 a check failed, 2 bad input (source, flags), 3 an I/O failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Pipeline(e) if e.is_io() => 3,
            CliError::Pipeline(_) | CliError::Usage(_) => 2,
            CliError::CheckFailed(_) => 1,
            CliError::Io(_) | CliError::Internal(_) => 3,
        }
    }
}

pub type CliResult<T> = Result<T, CliError>;
