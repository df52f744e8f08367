//! # Memory plans: store or recompute under a memory limit
//!
//! The adjoint built store-all keeps every value its reverse sweep needs. For concrete
//! sizes, [`model::build`] lists the *candidates* — temporary arrays of the primal that the
//! reverse sweep reads (store them, or free them after their last forward use and recompute
//! them right before their reverse use, DaCe AD's model), tapes (store-only) and time loops
//! the checkpointing side offers (store every iteration, or a periodic / binomial schedule)
//! — with their bytes, recompute cost in flops (static count, [`flops`]) and dependencies,
//! and the memory timeline: one point per top-level statement of either sweep, where local
//! arrays live from their first to their last use. Allocations happen only between
//! top-level statements, so every control-flow path sees the same sequence and one
//! constraint per point covers them all.
//!
//! [`solve::solve`] picks the decisions (store-all, recompute-all, or the ILP minimising
//! recompute cost with peak ≤ limit at every point) and [`apply()`] rewrites the adjoint:
//! recomputed definitions re-run in the reverse sweep under a comment saying why, and local
//! arrays are allocated over their lifetime.

mod apply;
mod error;
pub(crate) mod flops;
pub mod model;
pub mod solve;
mod sweeps;

pub use apply::apply;
pub use error::PlanError;
pub use flops::CALL_FLOPS;
pub use model::{build, Candidate, CandidateKind, LoopOption, Model, Point};
pub use solve::{loads, peak, smallest_peak, solve, Infeasible, Plan, Settings, Strategy};
