//! Differentiates the two kernels of `kernels/` (adjc-build), compiles their C and writes
//! their Rust bindings to `$OUT_DIR/diffusion.rs` and `$OUT_DIR/damping.rs`.
fn main() {
    adjc_build::Kernel::new("kernels/diffusion.py").wrt(["u", "kappa"]).compile("diffusion");
    adjc_build::Kernel::new("kernels/damping.f90").compile("damping");
}
