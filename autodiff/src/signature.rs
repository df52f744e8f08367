//! The adjoint's signature (Tapenade style) and the documentation of every parameter.
//!
//! Every primal parameter, in order, each active one immediately followed by its adjoint
//! `<name>_b` of the same type:
//! * input-only `X`: `X_b` (inout) is incremented by ∂L/∂X;
//! * in-out `A`: `A_b` holds the seed for the final `A` on entry, ∂L/∂(initial A) on exit;
//! * output-only `Y`: `Y_b` holds the seed on entry and is zero on exit;
//! * a returned scalar `ret` stays an output pointer; its seed `ret_b` is passed by value.

use crate::util::VarSet;
use adjc_ir::{Function, Intent, Param, Type, VarId, VarRole};
use std::collections::BTreeMap;

pub(crate) struct Signature {
    pub f: Function,
    pub adj: BTreeMap<VarId, VarId>,
    /// Adjoint parameters passed by value (seeds of returned scalars): primal var → adjoint.
    pub by_value: Vec<(VarId, VarId)>,
}

fn shape(f: &Function, v: VarId) -> String {
    match &f.var(v).ty {
        Type::Scalar(s) => s.name().to_string(),
        ty => adjc_ir::print::type_str(f, ty),
    }
}

fn primal_doc(f: &Function, p: &Param) -> String {
    if !p.doc.is_empty() {
        return p.doc.clone();
    }
    let v = f.var(p.var);
    let ty = shape(f, p.var);
    match (p.intent, &v.role) {
        (_, VarRole::Size) => format!("extent `{}`", v.name),
        (Intent::In, _) => format!("{ty}, input"),
        (Intent::InOut, _) => format!("{ty}, updated in place; on exit it holds the result of the forward computation"),
        (Intent::Out, _) => format!("{ty}, output; on exit it holds the result of the forward computation"),
    }
}

pub(crate) fn build(p: &Function, active: &VarSet, of: &[VarId]) -> Signature {
    let mut f = Function {
        name: format!("{}_b", p.name),
        params: Vec::new(),
        vars: p.vars.clone(),
        body: Vec::new(),
        span: p.span,
        notes: Vec::new(),
        assumptions: p.assumptions.clone(),
    };
    let mut adj = BTreeMap::new();
    let mut by_value = Vec::new();
    for q in &p.params {
        f.params.push(Param { var: q.var, intent: q.intent, doc: primal_doc(p, q) });
        if !active.contains(&q.var) {
            continue;
        }
        let var = p.var(q.var).clone();
        let name = f.fresh_name(&format!("{}_b", var.name));
        let a = f.add_var(name, var.ty.clone(), VarRole::Adjoint(q.var), var.span);
        adj.insert(q.var, a);
        let n = &var.name;
        let seeded = of.contains(&q.var);
        let (intent, doc) = match (q.intent, var.ty.is_array(), &var.role) {
            (Intent::Out, false, VarRole::Return) => {
                by_value.push((q.var, a));
                let doc = if seeded {
                    format!("seed ∂L/∂{n} (passed by value)")
                } else {
                    format!("ignored: `{n}` is not differentiated")
                };
                (Intent::In, doc)
            }
            (Intent::In, _, _) => {
                (Intent::InOut, format!("adjoint of {n}: on exit incremented by ∂L/∂{n} (zero it before the call)"))
            }
            (Intent::InOut, _, _) if seeded => {
                (Intent::InOut, format!("adjoint of {n}: on entry the seed ∂L/∂{n}(final); on exit ∂L/∂{n}(initial)"))
            }
            (Intent::InOut, _, _) => (
                Intent::InOut,
                format!(
                    "adjoint of {n}: ignored on entry (the final {n} is not differentiated); on exit ∂L/∂{n}(initial)"
                ),
            ),
            (Intent::Out, _, _) if seeded => {
                (Intent::InOut, format!("adjoint of {n}: on entry the seed ∂L/∂{n}; zero on exit"))
            }
            (Intent::Out, _, _) => {
                (Intent::InOut, format!("adjoint of {n}: ignored on entry ({n} is not differentiated); zero on exit"))
            }
        };
        f.params.push(Param { var: a, intent, doc });
    }
    Signature { f, adj, by_value }
}
