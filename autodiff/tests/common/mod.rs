pub use adjc_ir::testing::{builder, interp};
pub mod check;
pub mod kernels;
