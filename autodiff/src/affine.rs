//! Affine forms of integer expressions: `adjc_ir::proc::affine`, the one normaliser of the
//! IR analyses, under the name autodiff's nests and tapes use.

pub(crate) use adjc_ir::proc::affine::{clamp, extreme, Affine, Interval};
