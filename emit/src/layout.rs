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
//!
//! This module decides how each variable is accessed ([`Access`]); the C of an element and
//! of an index macro is written by the expression printer (`cexpr::element`,
//! `cexpr::macro_definition`), which the access table does not need.

use crate::names::Names;
use adjc_ir::{walk_stmts, Function, Intent, StmtKind, Type, VarId};
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
