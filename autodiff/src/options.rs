//! Resolution of `--wrt` / `--of` names to parameters, with the defaults and the error
//! messages a user sees when a name is wrong.

use crate::AdOptions;
use adjc_ir::{Diagnostic, Function, Intent, Span, VarId, VarRole};

/// Float parameters the function reads (intent in or inout): the default `wrt`.
fn float_inputs(f: &Function) -> Vec<VarId> {
    f.params
        .iter()
        .filter(|p| matches!(p.intent, Intent::In | Intent::InOut))
        .filter(|p| f.var(p.var).ty.elem().is_float() && f.var(p.var).role != VarRole::Size)
        .map(|p| p.var)
        .collect()
}

/// Float parameters the function produces (returned values, inout and out parameters):
/// the default `of`.
fn float_outputs(f: &Function) -> Vec<VarId> {
    f.params
        .iter()
        .filter(|p| matches!(p.intent, Intent::Out | Intent::InOut))
        .filter(|p| f.var(p.var).ty.elem().is_float())
        .map(|p| p.var)
        .collect()
}

fn names(f: &Function, vs: &[VarId]) -> String {
    if vs.is_empty() {
        return "(none)".into();
    }
    vs.iter().map(|v| f.var(*v).name.as_str()).collect::<Vec<_>>().join(", ")
}

fn pick(
    f: &Function,
    requested: &Option<Vec<String>>,
    allowed: Vec<VarId>,
    flag: &str,
    what: &str,
) -> Result<Vec<VarId>, Diagnostic> {
    let Some(req) = requested else {
        if allowed.is_empty() {
            return Err(Diagnostic::error(f.span, format!("`{}` has no float {what} to differentiate", f.name)));
        }
        return Ok(allowed);
    };
    let mut chosen = Vec::new();
    for name in req {
        let found = allowed.iter().find(|v| &f.var(**v).name == name);
        match found {
            Some(v) => {
                if !chosen.contains(v) {
                    chosen.push(*v)
                }
            }
            None => {
                let mut d = Diagnostic::error(
                    Span::NONE,
                    format!(
                        "unknown {flag} variable `{name}`; the function's float {what} are: {}",
                        names(f, &allowed)
                    ),
                );
                if let Some(p) = f.params.iter().find(|p| &f.var(p.var).name == name) {
                    let v = f.var(p.var);
                    d = d.with_help(if !v.ty.elem().is_float() {
                        format!("`{name}` has type {}: only float variables can be differentiated", v.ty.elem())
                    } else if flag == "--wrt" {
                        format!("`{name}` is an output only: its initial value is never read")
                    } else {
                        format!("`{name}` is an input only: the function does not change it")
                    });
                }
                return Err(d);
            }
        }
    }
    if chosen.is_empty() {
        return Err(Diagnostic::error(Span::NONE, format!("{flag} names no variable")));
    }
    // Signature order, whatever the order on the command line.
    chosen.sort_by_key(|v| f.params.iter().position(|p| p.var == *v));
    Ok(chosen)
}

/// `(wrt, of)` as parameter VarIds in signature order.
pub(crate) fn resolve(f: &Function, opts: &AdOptions) -> Result<(Vec<VarId>, Vec<VarId>), Diagnostic> {
    let wrt = pick(f, &opts.wrt, float_inputs(f), "--wrt", "inputs")?;
    let of = pick(f, &opts.of, float_outputs(f), "--of", "outputs")?;
    Ok((wrt, of))
}

/// Options of one `--fixed-point` loop.
#[derive(Clone, Copy, Debug)]
pub struct FixedPoint {
    /// Stop when the largest state adjoint is at most `tol` times its value on entry.
    pub tol: f64,
    /// Most adjoint passes.
    pub max_passes: u64,
}

pub const DEFAULT_TOL: f64 = 1e-12;
pub const DEFAULT_MAX_PASSES: u64 = 10_000;

impl Default for FixedPoint {
    fn default() -> FixedPoint {
        FixedPoint { tol: DEFAULT_TOL, max_passes: DEFAULT_MAX_PASSES }
    }
}

impl PartialEq for FixedPoint {
    fn eq(&self, o: &FixedPoint) -> bool {
        self.tol.to_bits() == o.tol.to_bits() && self.max_passes == o.max_passes
    }
}
impl Eq for FixedPoint {}
