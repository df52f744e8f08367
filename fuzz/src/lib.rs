//! What every fuzz target checks once a frontend has produced a module: valid IR, a
//! printable module, and, for the entry function, the rest of the pipeline of
//! `adjc transpile` (parallelise, reverse, the split and shadow rewrites, validate, emit C)
//! either succeeds or fails with a located diagnostic. A panic anywhere (libfuzzer-sys turns
//! it into an abort, even inside the frontends' own `catch_unwind`) or an "internal error"
//! diagnostic is a finding.

use adjc_ir::{validate, Diagnostic, Module};

/// A diagnostic that says adjc itself is wrong is a finding, like a panic.
pub fn no_internal(d: &Diagnostic, file: &str, src: &str) {
    if d.internal {
        panic!("internal error for:\n{src}\n{}", d.render(file, src));
    }
    let _ = d.render(file, src);
}

/// Checks a lowered module and runs autodiff and emit on its entry function.
pub fn check_module(m: &Module, file: &str, src: &str) {
    for f in &m.functions {
        if let Err(e) = validate::validate(f) {
            panic!("invalid IR from the frontend for:\n{src}\n{}", e.message);
        }
    }
    let _ = adjc_ir::print::print_module(m);
    let Some(sequential) = m.functions.first() else { return };
    let parallel = adjc_autodiff::parallelize(sequential);
    if let Err(e) = validate::validate(&parallel) {
        panic!("invalid IR after parallelize for:\n{src}\n{}", e.message);
    }
    let opts = adjc_autodiff::AdOptions::default();
    let (primal, mut adjoint) = match adjc_autodiff::reverse(&parallel, &opts) {
        Ok(a) => (parallel, a),
        Err(d) if &parallel == sequential => return no_internal(&d, file, src),
        Err(_) => match adjc_autodiff::reverse(sequential, &opts) {
            Ok(a) => (sequential.clone(), a),
            Err(d) => return no_internal(&d, file, src),
        },
    };
    adjoint.function = adjc_autodiff::split::split_shared_maps(&adjoint.function);
    adjoint.function = adjc_autodiff::shadow::shadow_scalar_outputs(&adjoint.function);
    if let Err(e) = validate::validate(&adjoint.function) {
        panic!("invalid adjoint IR for:\n{src}\n{}", e.message);
    }
    let mut module = m.clone();
    module.functions[0] = primal;
    let emit_opts = adjc_emit::EmitOptions { stem: "fuzz".into(), header_comment: vec![], source_comment: vec![], size_guards: vec![] };
    if let Err(d) = adjc_emit::emit_c(&module, &[&module.functions[0], &adjoint.function], &emit_opts) {
        no_internal(&d, file, src);
    }
}
