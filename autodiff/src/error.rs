//! Why [`crate::reverse`] stops: the function cannot be differentiated as asked (the user's
//! to fix), or an invariant of adjc broke (a bug, reported as such with the input's location).
//! The text of both is the stage's [`Diagnostic`]; [`Diagnostic::render`] is the one place it
//! is formatted for people.

use adjc_ir::Diagnostic;

/// An error of the reverse stage.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AdError {
    /// A construct without an adjoint, an unknown `wrt`/`of` name, a loop that cannot be
    /// checkpointed: located at the statement or option that causes it.
    #[error("{0}")]
    Unsupported(Diagnostic),
    /// An invariant broken inside autodiff (invalid IR given to it, a map that could not be
    /// reversed): a bug in adjc, located in the input that triggers it.
    #[error("{0} (this is a bug in adjc; please report it with this input)")]
    Internal(Diagnostic),
}

impl AdError {
    /// The located message, whichever the kind.
    pub fn diagnostic(&self) -> &Diagnostic {
        match self {
            AdError::Unsupported(d) | AdError::Internal(d) => d,
        }
    }

    pub fn into_diagnostic(self) -> Diagnostic {
        match self {
            AdError::Unsupported(d) | AdError::Internal(d) => d,
        }
    }
}

/// The stage's rules report with [`Diagnostic`]s; [`Diagnostic::internal`] marks a bug.
impl From<Diagnostic> for AdError {
    fn from(d: Diagnostic) -> AdError {
        if d.internal {
            AdError::Internal(d)
        } else {
            AdError::Unsupported(d)
        }
    }
}

/// Reads as the located message (`e.message`, `e.span`).
impl std::ops::Deref for AdError {
    type Target = Diagnostic;
    fn deref(&self) -> &Diagnostic {
        self.diagnostic()
    }
}
