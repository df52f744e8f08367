//! Kernels differentiated by adjc in `build.rs`, called from Rust through the bindings
//! adjc-build writes: `diffusion::diffusion(...)` (the forward function) and
//! `diffusion::diffusion_b(...)` (its adjoint), each returning `Result<(), adjc_rt::Error>`.

/// `kernels/diffusion.py`.
pub mod diffusion {
    include!(concat!(env!("OUT_DIR"), "/diffusion.rs"));
}

/// `kernels/damping.f90`.
pub mod damping {
    include!(concat!(env!("OUT_DIR"), "/damping.rs"));
}
