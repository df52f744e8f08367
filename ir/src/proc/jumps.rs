//! `break`, `continue` and `return` as `bool` flags: the structured lowering both
//! frontends share, so that the IR (and autodiff) only ever sees loops, `while`s and `if`s.
//!
//! A jump statement becomes `flag = true` (`brk` for `break` / `exit`, `cont` for
//! `continue` / `cycle`, `returned` for `return`). Then:
//!
//! * [`guard_rest`]: in every block, the statements after one that may set a flag run
//!   under `if (!(flag || ...))`, with the flags that statement may set;
//! * [`finish_loop`]: a loop body is guarded so, begins with `cont = false` when it has a
//!   `continue`, and the loop stops when any other flag set inside it is set: a `while`
//!   tests them in its condition (`while (!brk && err > tol)`), a counted loop guards its
//!   body with them (`for (...) { if (!brk) { ... } }`), the remaining iterations doing
//!   nothing. A flag of an outer loop (a named `exit` / `cycle`) or of the function
//!   (`return`) set inside an inner loop stops the inner loop the same way.
//!
//! Flags are set to `false` by the frontend before the loop (`brk`) or at the start of the
//! function (`returned`); `cont` is reset by [`finish_loop`] at the start of each iteration.

use crate::{walk_stmts, Block, Expr, ExprKind, Scalar, Stmt, StmtKind, UnOp, VarId};

/// The flags among `flags` that some statement of `b` (at any depth) sets (`flag = true`;
/// the resets to `false` do not jump).
pub fn flags_set(b: &Block, flags: &[VarId]) -> Vec<VarId> {
    let mut out = Vec::new();
    walk_stmts(b, &mut |s| {
        if let StmtKind::Assign { target, value } = &s.kind {
            let sets = matches!(value.kind, ExprKind::Const(crate::Literal::Bool(true)));
            if sets && target.is_scalar() && flags.contains(&target.var) && !out.contains(&target.var) {
                out.push(target.var);
            }
        }
    });
    out.sort();
    out
}

/// `!(f1 || f2 || ...)` (`!f1` for one flag).
pub fn none_set(flags: &[VarId]) -> Expr {
    let any = flags
        .iter()
        .map(|f| Expr::var(*f, Scalar::Bool))
        .reduce(|a, b| Expr::binary(crate::BinOp::Or, a, b))
        .unwrap_or_else(|| Expr::boolean(false));
    Expr::new(ExprKind::Unary(UnOp::Not, Box::new(any)), Scalar::Bool, crate::Span::NONE)
}

/// `b` with the statements after each one that may set one of `flags` guarded by
/// `if (!(flags it may set))`, recursively through `if`s and sections (loops inside `b`
/// were finished with [`finish_loop`] already).
pub fn guard_rest(b: Block, flags: &[VarId]) -> Block {
    let mut out = Vec::new();
    let mut rest = b.into_iter();
    while let Some(mut s) = rest.next() {
        match &mut s.kind {
            StmtKind::If { then_body, else_body, .. } => {
                *then_body = guard_rest(std::mem::take(then_body), flags);
                *else_body = guard_rest(std::mem::take(else_body), flags);
            }
            StmtKind::Section { body, .. } => *body = guard_rest(std::mem::take(body), flags),
            _ => {}
        }
        let set = flags_set(&vec![s.clone()], flags);
        // `flag = true` itself needs no guard after it when nothing follows.
        out.push(s);
        if set.is_empty() {
            continue;
        }
        let remaining: Block = rest.collect();
        if !remaining.is_empty() {
            let span = remaining[0].span;
            let guarded = guard_rest(remaining, flags);
            out.push(Stmt::new(StmtKind::If { cond: none_set(&set), then_body: guarded, else_body: Vec::new() }, span));
        }
        break;
    }
    out
}

/// A finished loop body: the body to run each iteration, and the flags that stop the
/// loop (to test in a `while` condition or to guard a counted loop's body).
pub struct Finished {
    pub body: Block,
    pub stop: Vec<VarId>,
}

/// Finishes the body of a loop (see the module docs). `cont`: the loop's own `continue`
/// flag, if it has one; `flags`: every flag in scope (the loop's own `break` flag, the
/// flags of the loops around it, the function's `returned`).
pub fn finish_loop(body: Block, cont: Option<VarId>, flags: &[VarId]) -> Finished {
    let mut all: Vec<VarId> = flags.to_vec();
    all.extend(cont);
    let set = flags_set(&body, &all);
    let mut out = guard_rest(body, &set);
    if let Some(c) = cont.filter(|c| set.contains(c)) {
        out.insert(0, Stmt::assign(crate::Place::scalar(c), Expr::boolean(false), crate::Span::NONE));
    }
    let stop = set.into_iter().filter(|f| Some(*f) != cont).collect();
    Finished { body: out, stop }
}

/// `cond` for a `while` that must also stop on `stop` flags: `!(flags) && cond`.
pub fn while_cond(cond: Expr, stop: &[VarId]) -> Expr {
    if stop.is_empty() {
        return cond;
    }
    let span = cond.span;
    if matches!(cond.kind, ExprKind::Const(crate::Literal::Bool(true))) {
        return none_set(stop).with_span(span);
    }
    Expr::binary(crate::BinOp::And, none_set(stop), cond).with_span(span)
}

/// The body of a counted loop that must skip its remaining iterations once a `stop` flag
/// is set.
pub fn counted_body(body: Block, stop: &[VarId]) -> Block {
    if stop.is_empty() || body.is_empty() {
        return body;
    }
    let span = body[0].span;
    vec![Stmt::new(StmtKind::If { cond: none_set(stop), then_body: body, else_body: Vec::new() }, span)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;

    fn flag(f: &mut Function, name: &str) -> VarId {
        f.add_var(name, Type::Scalar(Scalar::Bool), VarRole::Local, Span::NONE)
    }

    fn set(v: VarId) -> Stmt {
        Stmt::assign(Place::scalar(v), Expr::boolean(true), Span::NONE)
    }

    /// `for ...: a; if c: break; b` becomes `if !brk { a; if c { brk = true }; if !brk { b } }`
    /// and `while`: `!brk && cond`; `continue` resets at the start of each iteration.
    #[test]
    fn break_and_continue_become_guards() {
        let mut f = Function::empty("k", Span::NONE);
        let x = f.add_var("x", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        let (brk, cont) = (flag(&mut f, "brk"), flag(&mut f, "cont"));
        let c = Expr::binary(BinOp::Gt, Expr::var(x, Scalar::F64), Expr::float(1.0, Scalar::F64));
        let a = Stmt::assign(Place::scalar(x), Expr::float(2.0, Scalar::F64), Span::NONE);
        let iff =
            |t: Stmt| Stmt::new(StmtKind::If { cond: c.clone(), then_body: vec![t], else_body: vec![] }, Span::NONE);
        let body = vec![a.clone(), iff(set(cont)), a.clone(), iff(set(brk)), a.clone()];
        let fin = finish_loop(body, Some(cont), &[brk]);
        assert_eq!(fin.stop, vec![brk]);
        f.body = counted_body(fin.body, &fin.stop);
        let text = crate::print::print_function(&f);
        let want = "  if !brk {\n    cont = false\n    x = 2.0\n    if x > 1.0 {\n      cont = true\n    }\n    \
                    if !cont {\n      x = 2.0\n      if x > 1.0 {\n        brk = true\n      }\n      if !brk {\n        \
                    x = 2.0\n      }\n    }\n  }\n";
        assert!(text.contains(want), "{text}");
        let w = while_cond(c.clone(), &[brk]);
        assert_eq!(crate::print::expr_str(&f, &w), "!brk && x > 1.0");
        assert_eq!(crate::print::expr_str(&f, &while_cond(Expr::boolean(true), &[brk])), "!brk");
        // Resets to false do not jump.
        let reset = Stmt::assign(Place::scalar(brk), Expr::boolean(false), Span::NONE);
        assert!(flags_set(&vec![reset], &[brk]).is_empty());
    }
}
