//! Kernels differentiated by adjc in `build.rs`, called from Rust through the bindings
//! adjc-build writes: `diffusion::diffusion(...)` (the forward function) and
//! `diffusion::diffusion_b(...)` (its adjoint), each returning `Result<(), adjc_rt::Error>`.
//! `include_kernel!` includes the bindings `build.rs` wrote under the name given to
//! `Kernel::compile` (`include!(concat!(env!("OUT_DIR"), "/diffusion.rs"))`).

/// `kernels/diffusion.py`.
pub mod diffusion {
    adjc_macros::include_kernel!("diffusion");
}

/// `kernels/damping.f90`.
pub mod damping {
    adjc_macros::include_kernel!("damping");
}
