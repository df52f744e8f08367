//! How variables are accessed in C, and index linearisation.
//!
//! Arrays are flat pointers. A one-dimensional zero-based array is indexed directly
//! (`A[i - 1]`); every other array gets a function-like macro named after it with a
//! trailing `_` that takes source indices and does the arithmetic once, in one visible
//! place (`#define A_(i, j) A[(i) * M + (j)]`, used as `A_(i - 1, j)`). Lower bounds are
//! subtracted there, and column-major arrays put the first index fastest.
//!
//! A function-like macro is only expanded when its name is followed by `(`, which never
//! happens to a variable in generated code, so the macro cannot capture a variable that
//! happens to be called `A_`.

use crate::cexpr::{self, P_ADD, P_MUL};
use crate::ctx::FnCtx;
use crate::names::Names;
use adjc_ir::{walk_stmts, Expr, Function, Intent, Layout, StmtKind, Type, VarId};
use std::collections::BTreeSet;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// A scalar local or a scalar passed by value.
    Value,
    /// An `out`/`inout` scalar parameter, read and written as `(*x)`.
    Pointer,
    /// A zero-based 1-D array, `x[i]`.
    Direct,
    /// Any other array, through the named index macro.
    Macro(String),
    /// A stack tape (`adjc_tape`), only used by push and pop.
    Stack,
}

/// Variables used as the tape of a push or pop.
pub(crate) fn stack_tapes(f: &Function) -> BTreeSet<VarId> {
    let mut out = BTreeSet::new();
    walk_stmts(&f.body, &mut |s| match &s.kind {
        StmtKind::Push { tape, .. } | StmtKind::Pop { tape, .. } => {
            out.insert(*tape);
        }
        _ => {}
    });
    out
}

pub(crate) fn access_table(f: &Function, names: &Names) -> Vec<Access> {
    let stacks = stack_tapes(f);
    f.vars
        .iter()
        .enumerate()
        .map(|(k, var)| {
            let id = VarId(k as u32);
            if stacks.contains(&id) {
                return Access::Stack;
            }
            match &var.ty {
                Type::Array { dims, .. } => {
                    if dims.is_empty() || (dims.len() == 1 && dims[0].lower.as_int() == Some(0)) {
                        Access::Direct
                    } else {
                        Access::Macro(format!("{}_", names.get(id)))
                    }
                }
                Type::Scalar(_) => match f.param(id).map(|p| p.intent) {
                    Some(Intent::Out | Intent::InOut) => Access::Pointer,
                    _ => Access::Value,
                },
            }
        })
        .collect()
}

/// One element of array `v` at source indices `idx`.
pub(crate) fn element(cx: &FnCtx, v: VarId, idx: &[Expr]) -> String {
    let name = cx.name(v);
    let args: Vec<String> = idx.iter().map(|e| cexpr::expr(cx, e)).collect();
    match cx.access(v) {
        Access::Macro(m) => format!("{m}({})", args.join(", ")),
        // A rank-0 array (one element) has no index.
        _ if args.is_empty() => format!("{name}[0]"),
        _ => format!("{name}[{}]", args.join(", ")),
    }
}

/// `#define A_(i, j) A[(i) * M + (j)]` for an array accessed through a macro.
pub(crate) fn macro_definition(cx: &FnCtx, v: VarId) -> Option<(String, String)> {
    let Access::Macro(mname) = cx.access(v) else { return None };
    let var = cx.f.var(v);
    let Type::Array { dims, layout, .. } = &var.ty else { return None };
    if dims.is_empty() {
        return None;
    }
    let params = macro_params(cx, dims.iter().flat_map(|d| [&d.lower, &d.extent]), dims.len());
    let term = |k: usize| -> (String, bool) {
        let p = format!("({})", params[k]);
        match dims[k].lower.as_int() {
            Some(0) => (p, true),
            Some(c) if c < 0 && c != i64::MIN => (format!("{p} + {}", -c), false),
            _ => (format!("{p} - {}", cexpr::expr_min(cx, &dims[k].lower, P_ADD + 1)), false),
        }
    };
    let order: Vec<usize> = match layout {
        Layout::RowMajor => (0..dims.len()).collect(),
        Layout::ColMajor => (0..dims.len()).rev().collect(),
    };
    let (mut acc, mut primary) = term(order[0]);
    for &k in &order[1..] {
        let scaled = if primary { acc } else { format!("({acc})") };
        let (t, _) = term(k);
        // A unit axis (`keepdims`) scales nothing: `(i) + (j)`, not `(i) * 1 + (j)`.
        acc = match dims[k].extent.as_int() {
            Some(1) => format!("{scaled} + {t}"),
            _ => format!("{scaled} * {} + {t}", cexpr::expr_min(cx, &dims[k].extent, P_MUL + 1)),
        };
        primary = false;
    }
    let name = cx.name(v);
    Some((mname.clone(), format!("#define {mname}({}) {name}[{acc}]", params.join(", "))))
}

/// Parameter names for an index macro that cannot capture a name used in its body.
fn macro_params<'e>(cx: &FnCtx, exprs: impl Iterator<Item = &'e Expr>, rank: usize) -> Vec<String> {
    let mut mentioned = BTreeSet::new();
    for e in exprs {
        for v in e.vars() {
            mentioned.insert(cx.names.get(v).to_string());
        }
    }
    let candidates: [Vec<String>; 2] = [
        ["i", "j", "k", "l", "m", "n"].iter().take(rank).map(|s| s.to_string()).collect(),
        (0..rank).map(|k| format!("i{k}")).collect(),
    ];
    for c in candidates {
        if c.len() == rank && c.iter().all(|p| !mentioned.contains(p)) {
            return c;
        }
    }
    // Names under the runtime's reserved prefix cannot be variable names.
    (0..rank).map(|k| format!("adjc_i{k}")).collect()
}
