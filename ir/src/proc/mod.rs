//! Analyses and small transformations over the IR that several stages share (after naga's
//! `proc`): one implementation each, so the frontends, autodiff and emit agree.
//!
//! * [`ids`]: numbering loops and maps (the "Identities" rule of the crate docs).

pub mod ids;
