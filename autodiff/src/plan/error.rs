//! Why a memory plan cannot be modelled or applied.

/// An error of the planner.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The model needs what the options do not give (a size `--sizes` leaves out, a bound
    /// on a `while` loop's trips): the message says which option to add.
    #[error("{0}")]
    Unmodelled(String),
    /// A plan that does not fit the adjoint it is applied to, an adjoint without sweeps:
    /// the solver only chooses what can be done, so this is a bug in adjc.
    #[error("{0}")]
    Internal(String),
}
