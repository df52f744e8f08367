//! The calls a driver makes: the argument lists of the forward function and of the
//! adjoint over the driver's buffers, and what a driver template knows of each parameter.
//!
//! Buffer naming, shared by the templates: `adjc_p<k>` holds parameter k, `adjc_b<k>` its
//! adjoint. Every identifier of a driver starts with `adjc_`, a prefix the generated
//! functions never take, so no source name can collide with the driver's own.

use std::collections::BTreeMap;

use adjc_ir::{Intent, Scalar, VarRole};
use minijinja::Value;

use super::{Plan, PlanParam};
use crate::cli_error::{CliError, CliResult};
use adjc::Transpiled;

pub fn ctype(s: Scalar) -> &'static str {
    match s {
        Scalar::F32 => "float",
        Scalar::F64 => "double",
        Scalar::I64 => "int64_t",
        Scalar::Bool => "bool",
    }
}

/// `sizeof` of the C type of `s`.
pub fn elem_size(s: Scalar) -> usize {
    match s {
        Scalar::F32 => 4,
        Scalar::F64 | Scalar::I64 => 8,
        Scalar::Bool => 1,
    }
}

/// The C argument passing `p` to a function: integers as literals, In scalars by value,
/// everything else as a pointer to the driver's buffer.
fn primal_arg(p: &PlanParam, idx: usize) -> String {
    match (p.int_value, &p.shape, p.intent) {
        (Some(v), _, _) if p.elem == Scalar::Bool => (if v != 0 { "true" } else { "false" }).to_string(),
        (Some(v), _, _) => format!("(int64_t){v}"),
        (None, None, Intent::In) => format!("adjc_p{idx}[0]"),
        _ => format!("adjc_p{idx}"),
    }
}

/// The argument lists of one forward and one adjoint call.
pub struct Calls {
    pub fwd_args: String,
    pub adj_args: String,
    /// Per plan parameter: whether the adjoint takes its adjoint (`adjc_b<k>`).
    pub has_adjoint: Vec<bool>,
}

pub fn calls(t: &Transpiled, plan: &Plan) -> CliResult<Calls> {
    let adjoint = &t.adjoint.function;
    let pos = |v| plan.params.iter().position(|p| p.var == v);
    let fwd_args: Vec<String> = plan.params.iter().enumerate().map(|(k, p)| primal_arg(p, k)).collect();
    let mut adj_args = Vec::new();
    let mut has_adjoint = vec![false; plan.params.len()];
    for ap in &adjoint.params {
        let var = adjoint.var(ap.var);
        match &var.role {
            VarRole::Adjoint(of) => {
                let k = pos(*of)
                    .ok_or_else(|| CliError::CheckFailed(format!("adjoint `{}` of a non-parameter", var.name)))?;
                has_adjoint[k] = true;
                let by_value = !var.ty.is_array() && ap.intent == Intent::In;
                adj_args.push(if by_value { format!("adjc_b{k}[0]") } else { format!("adjc_b{k}") });
            }
            _ => {
                let k = pos(ap.var).ok_or_else(|| {
                    CliError::CheckFailed(format!(
                        "adjoint parameter `{}` is not a parameter of the forward function",
                        var.name
                    ))
                })?;
                adj_args.push(primal_arg(&plan.params[k], k));
            }
        }
    }
    Ok(Calls { fwd_args: fwd_args.join(", "), adj_args: adj_args.join(", "), has_adjoint })
}

/// What the driver templates know of each parameter.
pub fn template_params(plan: &Plan, calls: &Calls) -> Vec<Value> {
    plan.params.iter().enumerate().map(|(k, p)| Value::from(param_value(k, p, calls.has_adjoint[k]))).collect()
}

fn param_value(k: usize, p: &PlanParam, adjoint: bool) -> BTreeMap<&'static str, Value> {
    let count = p.count();
    let mut m = BTreeMap::new();
    m.insert("idx", Value::from(k));
    m.insert("name", Value::from(p.name.clone()));
    m.insert("ctype", Value::from(ctype(p.elem)));
    m.insert("count", Value::from(count));
    m.insert("alloc", Value::from(count.max(1)));
    m.insert("float", Value::from(p.is_float()));
    m.insert("input", Value::from(p.is_input()));
    m.insert("int_array", Value::from(!p.is_float() && p.shape.is_some()));
    m.insert("int_input", Value::from(p.is_int_array_input()));
    m.insert("output", Value::from(p.is_output()));
    m.insert("wrt", Value::from(p.wrt));
    m.insert("of", Value::from(p.of));
    m.insert("adjoint", Value::from(adjoint));
    m.insert("x_off", Value::from(p.x_off.unwrap_or(0)));
    m.insert("v_off", Value::from(p.v_off.unwrap_or(0)));
    m.insert("w_off", Value::from(p.w_off.unwrap_or(0)));
    m
}
