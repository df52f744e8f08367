//! The comment above each prototype in the generated header: one row per parameter with
//! its C type, intent, shape (a formula over the size parameters) and role, followed by
//! the producing stage's documentation of what it holds on entry and on exit.

use crate::cexpr;
use crate::cstmt::{comment_text, tame};
use crate::ctx::FnCtx;
use crate::names::Names;
use adjc_ir::{Expr, ExprKind, Function, Intent, Layout, Type, VarRole};

/// What the caller needs to know about failures.
pub(crate) struct Failure {
    pub allocates: bool,
    pub stack: bool,
    /// Parameters a stack tape's failing push may leave partially updated: those written
    /// up to the last top-level statement that pushes.
    pub written_before_push: Vec<String>,
    /// Made for a memory plan: sizes beyond it are refused.
    pub plan: bool,
    /// Holds a `--fixed-point` adjoint iteration that may not converge.
    pub converge: bool,
    /// Holds a source `stop` (Fortran).
    pub stop: bool,
}

/// The comment lines (each starting with ` *`) documenting function `f` named `cname`.
pub(crate) fn function_doc(
    f: &Function,
    names: &Names,
    cname: &str,
    param_types: &[String],
    fail: &Failure,
) -> Vec<String> {
    let cx = FnCtx::new(f, names);
    let mut out = Vec::new();
    let args: Vec<&str> = f.params.iter().map(|p| names.get(p.var)).collect();
    out.push(format!(" * {cname}({})", args.join(", ")));
    for (k, note) in f.notes.iter().enumerate() {
        // The memory of every tape reads as one block.
        let memory = |n: &str| n.starts_with("extra memory");
        if !(k > 0 && memory(note) && memory(&f.notes[k - 1])) {
            out.push(" *".into());
        }
        for l in note.lines() {
            out.push(format!(" * {}", comment_text(l)));
        }
    }
    if !f.params.is_empty() {
        out.push(" *".into());
        out.push(" * Parameters:".into());
    }
    let rows: Vec<[String; 4]> = f
        .params
        .iter()
        .zip(param_types)
        .map(|(p, ty)| [names.get(p.var).to_string(), ty.clone(), p.intent.name().to_string(), describe(&cx, p.var)])
        .collect();
    let w0 = rows.iter().map(|r| r[0].chars().count()).max().unwrap_or(0);
    let w1 = rows.iter().map(|r| r[1].chars().count()).max().unwrap_or(0);
    let w2 = rows.iter().map(|r| r[2].len()).max().unwrap_or(0);
    // Continuation lines start under the description column.
    let indent = 3 + w0 + 2 + w1 + 2 + w2 + 2;
    for (row, p) in rows.iter().zip(&f.params) {
        let mut doc: Vec<String> = p.doc.lines().map(comment_text).filter(|l| !l.trim().is_empty()).collect();
        let mut desc = row[3].clone();
        if desc.is_empty() && !doc.is_empty() {
            desc = doc.remove(0);
        }
        let text = format!(" *   {:w0$}  {:w1$}  {:w2$}  {}", row[0], row[1], row[2], desc);
        out.push(text.trim_end().to_string());
        for l in doc {
            out.push(format!(" *{}{}", " ".repeat(indent), l.trim()));
        }
    }
    out.push(" *".into());
    out.push(" * Returns ADJC_OK (0) on success.".into());
    for a in &f.assumptions {
        let (l, r) = (cexpr::expr(&cx, &a.lhs), cexpr::expr(&cx, &a.rhs));
        let guard = a.guard.as_ref().map(|g| format!("{} and ", cexpr::expr(&cx, g))).unwrap_or_default();
        if let Some(arr) = a.each {
            out.push(format!(
                " * Returns ADJC_ERR_SHAPE when {guard}an element of {} is outside [{l}, {r}] ({}), before writing anything.",
                cx.name(arr),
                comment_text(&a.what)
            ));
            continue;
        }
        out.push(format!(
            " * Returns ADJC_ERR_SHAPE when {guard}{l} {} {r} ({}), before writing anything.",
            a.rel.negated_symbol(),
            comment_text(&a.what)
        ));
    }
    if fail.allocates {
        // A memory plan's arrays come from one block reserved on entry with the others.
        out.push(" * Returns ADJC_ERR_ALLOC when its work arrays cannot be allocated (or their sizes".into());
        out.push(" * overflow), before writing anything.".into());
    }
    if fail.stack {
        out.push(" * Returns ADJC_ERR_ALLOC when a stack tape cannot grow: stack tapes hold values".into());
        out.push(" * whose number has no closed form, so they grow while the forward sweep runs.".into());
        if fail.written_before_push.is_empty() {
            out.push(" * Nothing has been written then.".into());
        } else {
            let mut line = String::from(" * Then");
            for (k, name) in fail.written_before_push.iter().enumerate() {
                let piece =
                    if k + 1 == fail.written_before_push.len() { format!(" {name}") } else { format!(" {name},") };
                if line.len() + piece.len() > 88 {
                    out.push(line);
                    line = String::from(" *");
                }
                line.push_str(&piece);
            }
            let tail = " may be partially updated (and nothing else).";
            if line.len() + tail.len() > 92 {
                out.push(line);
                line = String::from(" *");
            }
            line.push_str(tail);
            out.push(line);
        }
    }
    if fail.plan {
        out.push(" * Returns ADJC_ERR_PLAN when a size exceeds the sizes its memory plan was made".into());
        out.push(" * for; nothing has been written then.".into());
    }
    if fail.stop {
        out.push(" * Returns ADJC_ERR_STOP when the source reaches a `stop` or `error stop`; what it".into());
        out.push(" * wrote before stays written, as the original leaves it when it stops.".into());
    }
    if fail.converge {
        out.push(" * Returns ADJC_ERR_CONVERGE when a --fixed-point adjoint iteration does not converge".into());
        out.push(" * within its passes (the loop is no contraction there): the adjoints are incomplete.".into());
    }
    out
}

/// `size: extent of A (axis 0)`, `array [N, M]`, `scalar, adjoint of alpha`, ...
fn describe(cx: &FnCtx, v: adjc_ir::VarId) -> String {
    let f = cx.f;
    let var = f.var(v);
    let mut parts: Vec<String> = Vec::new();
    match &var.ty {
        Type::Array { dims, layout, .. } => {
            let shape: Vec<String> = dims
                .iter()
                .map(|d| match d.lower.as_int() {
                    Some(0) => cexpr::expr(cx, &d.extent),
                    _ if !(tame(&d.extent) && tame(&d.lower)) => {
                        format!("{} (extent {})", cexpr::expr(cx, &d.lower), cexpr::expr(cx, &d.extent))
                    }
                    _ => {
                        // Fold constants so that `a(-1:n+1)` reads `-1:n + 1`, not `-1:-1 + (n + 3) - 1`.
                        let upper = match d.lower.as_int() {
                            Some(c) => d.extent.clone().add(Expr::int(c - 1)),
                            None => d.lower.clone().add(d.extent.clone()).sub(Expr::int(1)),
                        };
                        format!("{}:{}", cexpr::expr(cx, &d.lower), cexpr::expr(cx, &upper))
                    }
                })
                .collect();
            let mut s = format!("array [{}]", shape.join(", "));
            if *layout == Layout::ColMajor && dims.len() > 1 {
                s.push_str(", column-major");
            }
            parts.push(s);
        }
        Type::Scalar(_) => {
            if var.role == VarRole::Size {
                let uses = extent_uses(f, cx.names, v);
                if uses.is_empty() {
                    parts.push("size".into());
                } else {
                    parts.push(format!("size: extent of {}", uses.join(", ")));
                }
            } else if f.param(v).is_some_and(|p| p.intent != Intent::In) {
                parts.push("scalar, by pointer".into());
            }
        }
    }
    match &var.role {
        VarRole::Return => parts.push("returned value".into()),
        VarRole::Adjoint(of) => parts.push(format!("adjoint of {}", cx.names.get(*of))),
        _ => {}
    }
    parts.join(", ")
}

/// `A (axis 0)` for every array parameter with an axis of extent exactly `v`.
fn extent_uses(f: &Function, names: &Names, v: adjc_ir::VarId) -> Vec<String> {
    let mut out = Vec::new();
    for p in &f.params {
        for (k, d) in f.var(p.var).ty.dims().iter().enumerate() {
            if matches!(d.extent.kind, ExprKind::Var(u) if u == v) {
                out.push(format!("{} (axis {k})", names.get(p.var)));
            }
        }
    }
    if out.len() > 4 {
        let more = out.len() - 3;
        out.truncate(3);
        out.push(format!("{more} more"));
    }
    out
}
