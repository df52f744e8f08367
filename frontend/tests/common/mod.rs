//! Test helpers: lowering with validation, and a small reference interpreter of the IR
//! used to check that lowered kernels compute what NumPy computes.

#![allow(dead_code)]

use adjc_frontend::{lower_python, PythonOptions};
use adjc_ir::*;

pub fn lower_with(src: &str, opts: &PythonOptions) -> Module {
    let m = match lower_python("test.py", src, opts) {
        Ok(m) => m,
        Err(d) => panic!("lowering failed:\n{}", d.render("test.py", src)),
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
    lower_with(src, &PythonOptions::default())
}

pub fn ir(src: &str) -> String {
    print::print_module(&lower(src))
}

pub fn lower_err(src: &str) -> Diagnostic {
    lower_err_with(src, &PythonOptions::default())
}

pub fn lower_err_with(src: &str, opts: &PythonOptions) -> Diagnostic {
    match lower_python("test.py", src, opts) {
        Ok(m) => panic!("expected an error, got:\n{}", print::print_module(&m)),
        Err(d) => d,
    }
}

pub fn specs(s: &[&str]) -> PythonOptions {
    PythonOptions { entry: None, arg_specs: s.iter().map(|x| x.to_string()).collect() }
}

mod interp;
#[allow(unused_imports)]
pub use interp::*;
