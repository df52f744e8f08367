//! Why [`crate::emit_c`] stops: the function cannot be written as C (the user's to
//! fix), or an invariant of adjc broke (a bug, reported as such with the input's location).
//! The text of both is the stage's [`Diagnostic`]; [`Diagnostic::render`] is the one place it
//! is formatted for people.

use adjc_ir::Diagnostic;

/// An error of the emit stage.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// Two functions that would have one C name, located in the source.
    #[error("{0}")]
    Unsupported(Diagnostic),
    /// An invariant broken inside emit (invalid IR given to it, a template that does not
    /// render, a local used but never declared): a bug in adjc, located in the input that
    /// triggers it.
    #[error("{0} (this is a bug in adjc; please report it with this input)")]
    Internal(Diagnostic),
}

impl EmitError {
    /// The located message, whichever the kind.
    pub fn diagnostic(&self) -> &Diagnostic {
        match self {
            EmitError::Unsupported(d) | EmitError::Internal(d) => d,
        }
    }

    pub fn into_diagnostic(self) -> Diagnostic {
        match self {
            EmitError::Unsupported(d) | EmitError::Internal(d) => d,
        }
    }
}

/// Emitting reports with [`Diagnostic`]s; [`Diagnostic::internal`] marks a bug.
impl From<Diagnostic> for EmitError {
    fn from(d: Diagnostic) -> EmitError {
        if d.internal {
            EmitError::Internal(d)
        } else {
            EmitError::Unsupported(d)
        }
    }
}

/// Reads as the located message (`e.message`, `e.span`).
impl std::ops::Deref for EmitError {
    type Target = Diagnostic;
    fn deref(&self) -> &Diagnostic {
        self.diagnostic()
    }
}
