//! # adjc-autodiff: reverse-mode differentiation of adjc IR
//!
//! [`reverse`] turns a primal [`Function`] into its adjoint `<name>_b` in the same IR,
//! Tapenade style (see `/work/shared/design/conventions.md`): the adjoint takes every
//! primal parameter followed, for each active one, by its adjoint; one call computes the
//! primal outputs and the gradient.
//!
//! The adjoint body has a forward sweep (the primal statements plus tape saves) and a
//! reverse sweep (the adjoint of every statement in reverse order). The pieces:
//!
//! * [`options`]: `--wrt` / `--of` resolution and defaults;
//! * [`activity`]: which variables need an adjoint;
//! * [`rules`]: the table of scalar derivatives; [`deriv`] chains it through expressions;
//! * [`reverse`]: statement reversal and the to-be-recorded analysis;
//! * [`map`]: reversal of parallel maps (recomputation inside the adjoint map);
//! * [`tape`]: stack tapes and region tapes; [`shared`]: which adjoint accumulations race;
//! * [`signature`]: adjoint parameters and their documentation; [`assemble`]: layout.

mod activity;
mod assemble;
mod deriv;
mod map;
mod minmax;
mod options;
mod prep;
mod reverse;
mod rules;
mod shared;
mod signature;
mod tape;
mod util;

use adjc_ir::{Diagnostic, Function, VarId};
use reverse::{Ad, Env, Fail};
use util::VarSet;

/// What to differentiate. `None` selects the defaults: `wrt` = every float parameter the
/// function reads (intent in or inout), `of` = every float output (returned values, inout
/// and out parameters).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AdOptions {
    pub wrt: Option<Vec<String>>,
    pub of: Option<Vec<String>>,
}

/// The adjoint function and the variables it differentiates. `function.vars` starts with
/// an exact copy of the primal's `vars`, so the VarIds in `wrt`, `of` and in
/// `VarRole::Adjoint` are primal VarIds. `wrt` and `of` list the requested variables that
/// are active (and therefore have an adjoint parameter), in signature order.
#[derive(Clone, Debug, PartialEq)]
pub struct Adjoint {
    pub function: Function,
    pub wrt: Vec<VarId>,
    pub of: Vec<VarId>,
}

/// Builds the adjoint of `primal`. Errors are diagnostics pointing at the statement that
/// cannot be differentiated (or without span for a bad option).
pub fn reverse(primal: &Function, opts: &AdOptions) -> Result<Adjoint, Diagnostic> {
    adjc_ir::validate::validate(primal).map_err(|e| {
        Diagnostic::error(e.span, format!("internal error: invalid IR given to autodiff: {}", e.message))
    })?;
    let (wrt, of) = options::resolve(primal, opts)?;
    let prep = prep::prepare(&primal.body)?;
    let active = activity::analyse(primal, &prep.body, &wrt, &of);
    let sig = signature::build(primal, &active, &of);
    let mut ad = Ad::new(primal, sig.f, active.clone(), sig.adj, &prep.body);
    let (fwd, rev) = ad.rev_block(&prep.body, Env::Top, &mut VarSet::new()).map_err(|e| match e {
        Fail::Diag(d) => d,
        Fail::Seq => Diagnostic::error(primal.span, "internal error: a map could not be reversed"),
    })?;
    let body = assemble::assemble(
        &mut ad,
        assemble::Parts {
            fwd,
            rev,
            primal_body: &prep.body,
            primal_allocs: &prep.allocs,
            of: &of,
            by_value: &sig.by_value,
        },
    );
    let mut function = ad.f;
    function.body = body;
    let names = |vs: &[VarId]| vs.iter().map(|v| primal.var(*v).name.clone()).collect::<Vec<_>>().join(", ");
    function.notes.push(format!(
        "adjoint (reverse mode) of `{}`: derivatives of {} with respect to {}",
        primal.name,
        names(&of),
        names(&wrt)
    ));
    for v in wrt.iter().filter(|v| !active.contains(v)) {
        function.notes.push(format!(
            "`{}` does not influence the differentiated outputs: its gradient is zero and it has no adjoint parameter",
            primal.var(*v).name
        ));
    }
    for v in of.iter().filter(|v| !active.contains(v)) {
        function.notes.push(format!(
            "`{}` does not depend on the differentiated inputs: it has no adjoint parameter",
            primal.var(*v).name
        ));
    }
    let keep = |vs: &[VarId]| vs.iter().copied().filter(|v| active.contains(v)).collect();
    Ok(Adjoint { wrt: keep(&wrt), of: keep(&of), function })
}
