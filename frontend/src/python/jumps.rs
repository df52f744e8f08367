//! `while`, `break`, `continue` and early `return`, lowered to flags (the rule is in
//! `adjc_ir::proc::jumps`): `break` sets the loop's `brk` (a `while` tests it in its
//! condition, a `for` skips its remaining iterations), `continue` sets `cont` (the rest of
//! the body is skipped), `return` stores the value into the function's result and sets
//! `returned` (the rest of the function, and every loop around the `return`, is skipped).
//! An early `return` returns a scalar; a helper's early return is inlined the same way.

use super::ast::{St, StKind};
use super::lower::{JumpFrame, Lowerer, Watch, R};
use super::ops;
use super::ops::SVal;
use super::value::Val;
use adjc_ir::proc::jumps;
use adjc_ir::*;
use std::collections::BTreeSet;

/// Whether `body` (a function body) returns from inside a loop or an `if` (a `return`
/// followed by dead statements at the top level stays an error).
pub(super) fn has_early_return(body: &[St]) -> bool {
    fn nested(b: &[St]) -> bool {
        b.iter().any(|s| match &s.kind {
            StKind::Return(_) => true,
            StKind::For { body, .. } | StKind::While { body, .. } => nested(body),
            StKind::If { then_body, else_body, .. } => nested(then_body) || nested(else_body),
            _ => false,
        })
    }
    body.iter().any(|s| match &s.kind {
        StKind::For { body, .. } | StKind::While { body, .. } => nested(body),
        StKind::If { then_body, else_body, .. } => nested(then_body) || nested(else_body),
        _ => false,
    })
}

impl Lowerer<'_> {
    /// Lowers a function body (entry or inlined helper) into the current block: with an
    /// early `return`, under a `returned` flag.
    pub fn lower_body(&mut self, body: &[St]) -> R<()> {
        if !has_early_return(body) {
            return self.lower_block(body);
        }
        if !matches!(body.last().map(|s| &s.kind), Some(StKind::Return(Some(_)))) {
            let span = body.last().map(|s| s.span).unwrap_or(self.span);
            return Err(self.err_help(
                span,
                format!("`{}` returns a value early but not at its end", self.scope().fname),
                "end the function with a `return` of the same kind of value",
            ));
        }
        let name = self.fresh_temp("returned");
        let flag = self.f.add_var(name, Type::Scalar(Scalar::Bool), VarRole::Local, self.span);
        self.scope_mut().ret_flag = Some(flag);
        // Lowered into the current block (not a nested one: the BLAS rules look at the
        // nesting), then the statements it added are guarded.
        let start = self.blocks.last().map_or(0, |b| b.len());
        self.lower_block(body)?;
        let span = body.first().map(|s| s.span).unwrap_or(self.span);
        if let Some(block) = self.blocks.last_mut() {
            let b = block.split_off(start.min(block.len()));
            block.push(Stmt::assign(Place::scalar(flag), Expr::boolean(false), span));
            block.extend(jumps::guard_rest(b, &[flag]));
        }
        Ok(())
    }

    /// `return v` in a function with early returns: `ret = v; returned = true`.
    pub fn early_ret(&mut self, v: Option<&super::ast::Ex>, span: Span) -> R<()> {
        let Some(e) = v else {
            return Err(self.err(span, "an early `return` must return a value"));
        };
        let val = self.eval(e)?;
        let val = match val {
            Val::Deferred(d) if d.shape.is_empty() => self.force(*d)?,
            other => other,
        };
        let Val::Scalar(sv) = val else {
            return Err(self.err_help(
                e.span,
                format!("an early `return` of {} is not supported", val.kind_name()),
                "early returns return scalars; for arrays, fill a result array and return it at the end",
            ));
        };
        let id = self.scope().id;
        let key = (id, "<return>".to_string());
        let var = match self.scope().ret_var {
            Some(v) => {
                let have = self.ty_of(v);
                if super::lower::kind_rank(sv.ty()) > super::lower::kind_rank(have) {
                    self.need_wider(key, sv.ty());
                }
                v
            }
            None => {
                let ty = match self.hints.get(&key).copied() {
                    Some(h) if super::lower::kind_rank(h) > super::lower::kind_rank(sv.ty()) => h,
                    _ => sv.ty(),
                };
                let v = if self.scope().is_entry {
                    let v = self.f.add_var("ret", Type::Scalar(ty), VarRole::Return, span);
                    self.add_ret(v);
                    v
                } else {
                    let name = self.fresh_temp(&format!("{}_ret", self.scope().fname));
                    self.f.add_var(name, Type::Scalar(ty), VarRole::Local, span)
                };
                self.scope_mut().ret_var = Some(v);
                v
            }
        };
        let ty = self.ty_of(var);
        let value = ops::cast(sv, ty).e;
        self.span = span;
        self.emit_kind(StmtKind::Assign { target: Place::scalar(var), value });
        if !self.scope().is_entry {
            self.scope_mut().ret = Some(Val::Scalar(SVal { e: Expr::var(var, ty), weak: false }));
        }
        let flag = self.scope().ret_flag.ok_or_else(|| self.err(span, "internal: no return flag"))?;
        self.emit_kind(StmtKind::Assign { target: Place::scalar(flag), value: Expr::boolean(true) });
        Ok(())
    }

    /// `break` / `continue`: sets the innermost loop's flag (created on first use).
    pub fn jump(&mut self, is_break: bool, span: Span) -> R<()> {
        let scope = self.scope().id;
        let word = if is_break { "break" } else { "continue" };
        if !self.jumps.last().is_some_and(|j| j.scope == scope) {
            return Err(self.err(span, format!("`{word}` outside a loop")));
        }
        let name = self.fresh_temp(if is_break { "brk" } else { "cont" });
        let fresh = self.f.add_var(name, Type::Scalar(Scalar::Bool), VarRole::Local, span);
        let Some(frame) = self.jumps.last_mut() else { return Err(self.err(span, "internal: no loop")) };
        let slot = if is_break { &mut frame.brk } else { &mut frame.cont };
        let flag = *slot.get_or_insert(fresh);
        self.span = span;
        self.emit_kind(StmtKind::Assign { target: Place::scalar(flag), value: Expr::boolean(true) });
        Ok(())
    }

    /// Every flag a jump in the current function may set: the loops' and `returned`.
    fn flags_in_scope(&self) -> Vec<VarId> {
        let scope = self.scope().id;
        let mut out: Vec<VarId> =
            self.jumps.iter().filter(|j| j.scope == scope).flat_map(|j| j.brk.into_iter().chain(j.cont)).collect();
        out.extend(self.scope().ret_flag);
        out
    }

    pub fn push_jumps(&mut self) {
        let scope = self.scope().id;
        self.jumps.push(JumpFrame { scope, brk: None, cont: None });
    }

    /// Pops the innermost loop's flags and finishes its body (see `adjc_ir::proc::jumps`):
    /// the guarded body, the flags that stop the loop, and the `brk` flag to clear before
    /// the loop.
    pub fn pop_jumps(&mut self, body: Block) -> (jumps::Finished, Option<VarId>) {
        let flags = self.flags_in_scope();
        let frame = self.jumps.pop();
        let (brk, cont) = frame.map(|f| (f.brk, f.cont)).unwrap_or((None, None));
        let own: Vec<VarId> = flags.into_iter().filter(|f| Some(*f) != cont).collect();
        (jumps::finish_loop(body, cont, &own), brk)
    }

    /// `while cond: body`.
    pub fn while_loop(&mut self, cond: &super::ast::Ex, body: &[St], span: Span) -> R<()> {
        // The condition is read in every iteration: watched like the body (a name it reads
        // must mean the same array in every iteration).
        let before = self.scope().env.clone();
        {
            let sc = self.scope_mut();
            sc.depth += 1;
            sc.watches.push(Watch { before: before.clone(), read: BTreeSet::new() });
        }
        let r = self.while_parts(cond, body);
        let watch = {
            let sc = self.scope_mut();
            sc.depth -= 1;
            sc.watches.pop()
        };
        let (c, fin, brk) = r?;
        self.check_rebinding(watch, span)?;
        self.span = span;
        if let Some(b) = brk {
            self.emit_kind(StmtKind::Assign { target: Place::scalar(b), value: Expr::boolean(false) });
        }
        let cond = jumps::while_cond(c, &fin.stop);
        self.emit_kind(StmtKind::While(While { id: LoopId::NEW, cond, body: fin.body }));
        Ok(())
    }

    /// The condition and the finished body of a `while` (inside its watch).
    fn while_parts(&mut self, cond: &super::ast::Ex, body: &[St]) -> R<(Expr, jumps::Finished, Option<VarId>)> {
        let (c, pre) = {
            let mut c = None;
            let pre = self.with_block(|lw| {
                let v = lw.eval(cond)?;
                c = Some(lw.condition(v, cond)?);
                Ok(())
            })?;
            (c, pre)
        };
        let Some(c) = c else { return Err(self.err(cond.span, "internal: no condition")) };
        if !pre.is_empty() {
            return Err(self.err_help(
                cond.span,
                format!("the condition `{}` of this `while` needs statements of its own", cond.text),
                "compute it into a scalar before the loop and again at the end of its body: \
                 `err = ...` then `while err > tol:`",
            ));
        }
        self.push_jumps();
        let r = self.with_block(|lw| lw.lower_block(body));
        let r = r.map(|b| self.pop_jumps(b));
        if r.is_err() {
            self.jumps.pop();
        }
        let (fin, brk) = r?;
        Ok((c, fin, brk))
    }

    /// A names read in a loop must mean the same array in every iteration.
    pub fn check_rebinding(&mut self, watch: Option<Watch>, span: Span) -> R<()> {
        if let Some(w) = watch {
            for name in &w.read {
                let now = self.scope().env.get(name);
                if !super::lower::same_binding(now, w.before.get(name)) {
                    return Err(self.err_help(
                        span,
                        format!("`{name}` refers to a different array in each iteration of this loop"),
                        format!("rebinding a name inside a loop is not supported; copy the values instead: `{name}[:] = ...`"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The `bool` of an `if` / `while` condition.
    pub fn condition(&mut self, c: Val, cond: &super::ast::Ex) -> R<Expr> {
        Ok(match c {
            Val::Scalar(sv) => ops::truth(sv).e,
            Val::Deferred(d) if d.shape.is_empty() => match self.force(*d)? {
                Val::Scalar(sv) => ops::truth(sv).e,
                _ => return Err(self.err(cond.span, "internal: scalar expected")),
            },
            other => {
                return Err(self.err_help(
                    cond.span,
                    format!("the condition must be a scalar, but `{}` is {}", cond.text, other.kind_name()),
                    "reduce it first: `np.max(np.abs(r)) > tol`, `np.any(...)`",
                ))
            }
        })
    }
}
