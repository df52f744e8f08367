//! The printed adjoint IR of a few kernels, reviewed by hand.

mod common;

use adjc_autodiff::{reverse, AdOptions};
use common::kernels as k;

fn adjoint_text(f: &adjc_ir::Function) -> String {
    let ad = reverse(f, &AdOptions::default()).unwrap();
    adjc_ir::validate::validate(&ad.function).unwrap();
    adjc_ir::print::print_function(&ad.function)
}

#[test]
fn jacobi_1d_linear() {
    insta::assert_snapshot!(adjoint_text(&k::jacobi_1d(false)));
}

#[test]
fn jacobi_1d_nonlinear() {
    insta::assert_snapshot!(adjoint_text(&k::jacobi_1d(true)));
}

#[test]
fn in_place_square() {
    insta::assert_snapshot!(adjoint_text(&k::square()));
}

#[test]
fn softmax() {
    insta::assert_snapshot!(adjoint_text(&k::softmax()));
}
