//! What can stop the pipeline, one variant per stage, and the one place errors are
//! rendered for people.
//!
//! A located error renders in the compiler style of [`Diagnostic::render`]
//! (`file:line:col: error: message`, the source line, a caret, `= help: ...`); an error
//! without a location as `adjc: error: message`. An [`Error::Internal`] is adjc's bug, never
//! the user's: it says so and asks for the input that caused it. The command line adds
//! its own errors (a failed check) and maps these to exit codes ([`Error::is_io`]).

use adjc_frontend::LoadError;
use adjc_ir::Diagnostic;

/// The stages of [`crate::Pipeline`], in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Source text → IR module (`adjc-frontend`), validated.
    Frontend,
    /// Independent loops → parallel maps (`adjc_autodiff::parallelize`), validated.
    Parallelize,
    /// The adjoint (`adjc_autodiff::reverse`): activity, tapes, reversed loops.
    Reverse,
    /// A memory plan: checkpointed loops, recomputed arrays (`adjc_autodiff::plan`).
    Plan,
    /// Scatter updates of stencil sweeps → one map per neighbour (`adjc_autodiff::split`).
    Split,
    /// Opt-in (`--fuse-sweeps`): element-wise forward maps run inside the reverse map over the
    /// same elements (`adjc_autodiff::fuse`).
    Fuse,
    /// Scalar gradients updated in loops → a local written back once (`adjc_autodiff::shadow`).
    Shadow,
    /// Arithmetic as on paper, both functions (`adjc_autodiff::algebra`); repeated calls of
    /// the derivative rules named once (`adjc_autodiff::cse`); then validated.
    Simplify,
    /// IR → C and header (`adjc-emit`).
    Emit,
}

impl Stage {
    /// Every stage, in the order [`crate::Pipeline::run`] runs them.
    pub const ALL: [Stage; 9] = [
        Stage::Frontend,
        Stage::Parallelize,
        Stage::Reverse,
        Stage::Plan,
        Stage::Split,
        Stage::Fuse,
        Stage::Shadow,
        Stage::Simplify,
        Stage::Emit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Frontend => "frontend",
            Stage::Parallelize => "parallelize",
            Stage::Reverse => "reverse",
            Stage::Plan => "plan",
            Stage::Split => "split",
            Stage::Fuse => "fuse",
            Stage::Shadow => "shadow",
            Stage::Simplify => "simplify",
            Stage::Emit => "emit",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A diagnostic and the file it points into (`text`: that file's text, for the quoted line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub file: String,
    pub text: String,
    pub diag: Diagnostic,
}

impl Located {
    pub fn new(file: &str, text: &str, diag: Diagnostic) -> Located {
        Located { file: file.to_string(), text: text.to_string(), diag }
    }
    pub fn render(&self) -> String {
        self.diag.render(&self.file, &self.text)
    }
}

impl std::fmt::Display for Located {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.diag.span.is_none() {
            write!(f, "{}: {}", self.file, self.diag.message)
        } else {
            write!(f, "{}:{}:{}: {}", self.file, self.diag.span.line, self.diag.span.col, self.diag.message)
        }
    }
}

/// A flag value that does not parse (`--checkpoint`, `--max-trips`): the message names the
/// flag and the form it takes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FlagError(pub String);

impl From<String> for FlagError {
    fn from(m: String) -> FlagError {
        FlagError(m)
    }
}

impl From<&str> for FlagError {
    fn from(m: &str) -> FlagError {
        FlagError(m.to_string())
    }
}

/// Why no memory plan could be made (the messages name the command-line options).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A plan is made for concrete sizes; these integer parameters have none.
    #[error("a memory plan is made for concrete sizes: add --sizes {}", .0.iter().map(|n| format!("{n}=...")).collect::<Vec<_>>().join(","))]
    MissingSizes(Vec<String>),
    /// The planner cannot model the adjoint (a tape without a size bound, ...).
    #[error("cannot plan memory: {0}")]
    Model(String),
    /// Even recomputing everything it may, the adjoint needs more than the limit.
    #[error(
        "no plan keeps the adjoint within --memory-limit {}: the smallest feasible limit is {} (storing everything needs {})",
        human(*.limit), human(*.smallest), human(*.store_all)
    )]
    Infeasible { limit: u64, smallest: u64, store_all: u64 },
    /// The adjoint rebuilt around checkpointed loops needs more than the limit, whatever the
    /// limit the planner was given.
    #[error("no checkpoint plan keeps the adjoint within --memory-limit {}: the best one found needs {}", human(*.limit), human(*.needs))]
    Checkpoints { limit: u64, needs: u64 },
}

/// Everything that can stop the pipeline.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Error {
    /// The source is not valid for its language or uses what adjc does not support.
    #[error("{0}")]
    Frontend(Located),
    /// A source file cannot be read or preprocessed.
    #[error("{0}")]
    Load(#[from] LoadError),
    /// The function cannot be differentiated as asked (a construct without an adjoint, an
    /// unknown `wrt` name, a loop that cannot be checkpointed).
    #[error("{0}")]
    Autodiff(Located),
    /// No memory plan meets the options.
    #[error("{0}")]
    Plan(#[from] PlanError),
    /// The C cannot be written for this function (located in its source).
    #[error("{0}")]
    Emit(Located),
    /// Options that do not fit together or name nothing (an output name, a language).
    #[error("{0}")]
    Usage(String),
    /// A file could not be written.
    #[error("{0}")]
    Io(String),
    /// An invariant broken between stages: a bug in adjc, located in the input that caused it.
    #[error("internal error in stage {stage}: {at} (this is a bug in adjc; please report it with this input)")]
    Internal { stage: Stage, at: Located },
}

impl Error {
    /// An internal error in `stage` at `diag` of `file` (its message without the
    /// "internal error" prefix, which rendering adds).
    pub fn internal(stage: Stage, file: &str, text: &str, diag: Diagnostic) -> Error {
        let diag = Diagnostic { internal: true, ..diag };
        Error::Internal { stage, at: Located::new(file, text, diag) }
    }

    /// A diagnostic of `stage` located in `file`: an internal error when the stage made it
    /// one ([`Diagnostic::internal`]), else the stage's own variant.
    pub fn at(stage: Stage, file: &str, text: &str, diag: Diagnostic) -> Error {
        if diag.internal {
            return Error::internal(stage, file, text, diag);
        }
        let at = Located::new(file, text, diag);
        match stage {
            Stage::Frontend => Error::Frontend(at),
            Stage::Emit => Error::Emit(at),
            _ => Error::Autodiff(at),
        }
    }

    /// An I/O failure of the machine rather than a problem of the input (exit code 3 of
    /// the command line; every other error is 2).
    pub fn is_io(&self) -> bool {
        match self {
            Error::Io(_) => true,
            Error::Load(e) => e.is_io(),
            _ => false,
        }
    }

    /// The error as the command line prints it (ends with a newline).
    pub fn render(&self) -> String {
        match self {
            Error::Frontend(at) | Error::Autodiff(at) | Error::Emit(at) | Error::Internal { at, .. } => at.render(),
            Error::Load(LoadError::Source(e)) => e.render(),
            Error::Load(e) => render_message(&e.to_string()),
            Error::Plan(e) => render_message(&e.to_string()),
            Error::Usage(m) | Error::Io(m) => render_message(m),
        }
    }
}

/// An error without a location: `adjc: error: message`.
pub fn render_message(message: &str) -> String {
    format!("adjc: error: {message}\n")
}

/// `1572864 bytes (1.5 MiB)`: exact first, readable after.
pub fn human(bytes: u64) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut k = 0;
    while v >= 1024.0 && k + 1 < units.len() {
        v /= 1024.0;
        k += 1;
    }
    if k == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{bytes} bytes ({v:.1} {})", units[k])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjc_ir::Span;

    #[test]
    fn internal_errors_say_they_are_bugs() {
        let span = Span { line: 1, col: 5, start: 4, end: 5 };
        let e = Error::at(Stage::Reverse, "k.py", "def f(x):\n", Diagnostic::internal(span, "lost"));
        assert!(matches!(e, Error::Internal { stage: Stage::Reverse, .. }));
        assert_eq!(
            e.render(),
            "k.py:1:5: error: internal error: lost\n 1 | def f(x):\n   |     ^\n  = help: this is a bug in adjc; \
             please report it with this source file\n"
        );
        let user = Error::at(Stage::Reverse, "k.py", "def f(x):\n", Diagnostic::error(span, "no adjoint"));
        assert!(matches!(user, Error::Autodiff(_)) && !user.is_io());
        assert_eq!(Error::Usage("bad".into()).render(), "adjc: error: bad\n");
    }

    #[test]
    fn plan_errors_read_in_the_users_terms() {
        let e = PlanError::Infeasible { limit: 1024, smallest: 2048, store_all: 4096 };
        assert_eq!(
            e.to_string(),
            "no plan keeps the adjoint within --memory-limit 1024 bytes (1.0 KiB): the smallest feasible limit is \
             2048 bytes (2.0 KiB) (storing everything needs 4096 bytes (4.0 KiB))"
        );
        assert_eq!(
            PlanError::MissingSizes(vec!["N".into(), "M".into()]).to_string(),
            "a memory plan is made for concrete sizes: add --sizes N=...,M=..."
        );
    }
}
