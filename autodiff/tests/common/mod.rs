pub mod builder;
pub mod check;
pub mod interp;
pub mod kernels;
