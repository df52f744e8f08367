//! Analyses and small transformations over the IR that several stages share (after naga's
//! `proc`): one implementation each, so the frontends, autodiff and emit agree.
//!
//! * [`ids`]: numbering loops and maps (the "Identities" rule of the crate docs).
//! * [`eq`]: equality of expressions up to spans.
//! * [`access`]: what statements read, write and mention; renaming variables.
//! * [`jumps`]: `break` / `continue` / `return` lowered to flags, loop conditions and guards.
//! * [`affine`]: integer expressions as affine combinations (compare indices, bound them
//!   over loop nests).

pub mod access;
pub mod affine;
pub mod eq;
pub mod ids;
pub mod jumps;
