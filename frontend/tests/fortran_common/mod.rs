//! Test helpers of the Fortran frontend tests: lowering with validation, and the reference
//! interpreter of the IR (shared with the Python tests: `common/interp.rs`).

#![allow(dead_code)]

use adjc_frontend::{lower_fortran, FortranOptions};
use adjc_ir::*;

pub fn lower_with(src: &str, opts: &FortranOptions) -> Module {
    let m = match lower_fortran("test.f90", src, opts) {
        Ok(m) => m,
        Err(d) => panic!("lowering failed:\n{}", d.render("test.f90", src)),
    };
    for f in &m.functions {
        if let Err(e) = validate::validate(f) {
            panic!("invalid IR: {e}\n{}", print::print_function(f));
        }
    }
    assert_eq!(m.functions.len(), 1);
    m
}

pub fn lower(src: &str) -> Module {
    lower_with(src, &FortranOptions::default())
}

pub fn ir(src: &str) -> String {
    print::print_module(&lower(src))
}

pub fn lower_err(src: &str) -> Diagnostic {
    match lower_fortran("test.f90", src, &FortranOptions::default()) {
        Ok(m) => panic!("expected an error, got:\n{}", print::print_module(&m)),
        Err(d) => d,
    }
}

#[path = "../common/interp.rs"]
mod interp;
#[allow(unused_imports)]
pub use interp::*;
