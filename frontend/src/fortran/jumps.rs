//! `do while`, `do` without control, `exit` / `cycle` (with or without a construct name)
//! and `return` inside loops, lowered to flags (the rule is in `adjc_ir::proc::jumps`):
//! `exit` sets the target loop's `brk` flag (a `while` tests it in its condition, a
//! counted `do` skips its remaining iterations), `cycle` sets its `cont` flag (the rest of
//! its body is skipped), a `return` inside a loop sets the procedure's `returned` flag
//! (every loop around it stops; the rest of the procedure is skipped). A `return` outside
//! loops keeps the structured lowering of `returns`.

use super::ast::{self, DoControl};
use super::lower::{Lowerer, R};
use adjc_ir::proc::jumps;
use adjc_ir::*;

type AStmt = ast::Stmt;

/// The flags of one `do` loop being lowered, created at its first `exit` / `cycle`.
pub struct FJump {
    /// The construct name (`outer` of `outer: do`), lower-case.
    pub name: Option<String>,
    /// Which procedure body (entry or inlined callee) the loop belongs to.
    pub body: usize,
    /// A `do concurrent` (no `exit` / `cycle` may leave it; it has no flags).
    pub concurrent: bool,
    pub brk: Option<VarId>,
    pub cont: Option<VarId>,
}

impl<'s, 't> Lowerer<'s, 't> {
    /// Lowers a procedure body (entry or inlined callee) into the current block; a
    /// `return` inside a loop sets a flag, and what follows runs under `if (!returned)`.
    pub fn body_with_loop_returns(&mut self, f: impl FnOnce(&mut Self) -> R<()>) -> R<()> {
        // Lowered into the current block (not a nested one: the BLAS rules look at the
        // nesting), then the statements it added are guarded.
        let start = self.blocks.last().map_or(0, |b| b.len());
        self.ret_flags.push(None);
        let r = f(self);
        let flag = self.ret_flags.pop().flatten();
        r?;
        if let (Some(r), Some(block)) = (flag, self.blocks.last_mut()) {
            let b = block.split_off(start.min(block.len()));
            let span = b.first().map(|s| s.span).unwrap_or(self.span);
            block.push(Stmt::assign(Place::scalar(r), Expr::boolean(false), span));
            block.extend(jumps::guard_rest(b, &[r]));
        }
        Ok(())
    }

    /// Whether the statement being lowered is inside a `do` loop of the current body.
    pub fn in_flag_loop(&self) -> bool {
        let body = self.ret_flags.len();
        self.jumps.last().is_some_and(|j| j.body == body)
    }

    /// Whether the statement being lowered is inside `do concurrent` or an array statement
    /// (a map: no jump may leave it).
    pub fn in_concurrent(&self) -> bool {
        let body = self.ret_flags.len();
        self.map_depth > 0 || self.jumps.iter().any(|j| j.body == body && j.concurrent)
    }

    /// `return` inside a loop: `returned = true`.
    pub fn loop_return(&mut self, n: &'t AStmt) -> R<()> {
        let span = self.sp(n);
        if self.in_concurrent() {
            return Err(self.err(n, "a `return` inside `do concurrent` is not supported"));
        }
        let flag = match self.ret_flags.last().copied().flatten() {
            Some(f) => f,
            None => {
                let name = self.temp_name("returned");
                let f = self.f.add_var(name, Type::Scalar(Scalar::Bool), VarRole::Temp, span);
                if let Some(slot) = self.ret_flags.last_mut() {
                    *slot = Some(f);
                }
                f
            }
        };
        self.span = span;
        self.emit(StmtKind::Assign { target: Place::scalar(flag), value: Expr::boolean(true) });
        Ok(())
    }

    /// `exit [name]` (`is_exit`) or `cycle [name]`: sets the target loop's flag.
    pub fn jump(&mut self, n: &'t AStmt, is_exit: bool, target: &Option<String>) -> R<()> {
        let word = if is_exit { "exit" } else { "cycle" };
        let body = self.ret_flags.len();
        let found = self.jumps.iter().rposition(|j| {
            j.body == body && (j.concurrent || target.as_ref().is_none_or(|t| j.name.as_deref() == Some(t.as_str())))
        });
        let Some(k) = found else {
            let msg = match target {
                Some(t) => format!("`{word} {t}`: no enclosing `do` loop is named `{t}`"),
                None => format!("`{word}` outside a `do` loop"),
            };
            return Err(self.err(n, msg));
        };
        if self.jumps[k].concurrent {
            return Err(self
                .err(n, format!("`{word}` leaves a `do concurrent` construct"))
                .with_help("`do concurrent` iterations cannot end the loop early: use an ordinary `do` loop"));
        }
        let span = self.sp(n);
        let name = self.temp_name(if is_exit { "brk" } else { "cont" });
        let frame = &self.jumps[k];
        let existing = if is_exit { frame.brk } else { frame.cont };
        let flag = match existing {
            Some(f) => f,
            None => {
                let f = self.f.add_var(name, Type::Scalar(Scalar::Bool), VarRole::Temp, span);
                let frame = &mut self.jumps[k];
                if is_exit {
                    frame.brk = Some(f);
                } else {
                    frame.cont = Some(f);
                }
                f
            }
        };
        self.span = span;
        self.emit(StmtKind::Assign { target: Place::scalar(flag), value: Expr::boolean(true) });
        Ok(())
    }

    /// Lowers a loop body under a new jump frame; the finished body (see
    /// `adjc_ir::proc::jumps`) and the `brk` flag to clear before the loop.
    pub fn loop_body_with_jumps(
        &mut self,
        name: &Option<String>,
        f: impl FnOnce(&mut Self) -> R<()>,
    ) -> R<(jumps::Finished, Option<VarId>)> {
        let body = self.ret_flags.len();
        self.jumps.push(FJump { name: name.clone(), body, concurrent: false, brk: None, cont: None });
        let b = self.with_block(f);
        let flags: Vec<VarId> = self
            .jumps
            .iter()
            .filter(|j| j.body == body)
            .flat_map(|j| j.brk.into_iter().chain(j.cont))
            .chain(self.ret_flags.last().copied().flatten())
            .collect();
        let frame = self.jumps.pop();
        let b = b?;
        let (brk, cont) = frame.map(|f| (f.brk, f.cont)).unwrap_or((None, None));
        let own: Vec<VarId> = flags.into_iter().filter(|f| Some(*f) != cont).collect();
        Ok((jumps::finish_loop(b, cont, &own), brk))
    }

    /// Lowers a `do concurrent` body: `exit`, `cycle` and `return` may not leave it.
    pub fn concurrent_body(&mut self, f: impl FnOnce(&mut Self) -> R<()>) -> R<Block> {
        let body = self.ret_flags.len();
        self.jumps.push(FJump { name: None, body, concurrent: true, brk: None, cont: None });
        let b = self.with_block(f);
        self.jumps.pop();
        b
    }

    /// `do while (cond)` and `do` without control (`cond` is `None`: `.true.`).
    pub fn do_while(&mut self, d: &'t ast::DoLoop) -> R<()> {
        let head = d.head;
        self.span = head;
        if self.map_depth > 0 {
            return Err(self
                .err(head, "a `do while` loop inside `do concurrent` or an array statement is not supported")
                .with_help("write the enclosing loop as an ordinary `do` loop"));
        }
        let cond = match &d.control {
            DoControl::While { cond } => {
                let mut c = None;
                let pre = self.with_block(|lw| {
                    c = Some(lw.cond_expr(cond)?);
                    Ok(())
                })?;
                if !pre.is_empty() {
                    return Err(self
                        .err(cond, "this `do while` condition needs statements of its own")
                        .with_help("compute it into a logical variable before the loop and at the end of its body"));
                }
                c.ok_or_else(|| self.err(head, "internal: no condition"))?
            }
            _ => Expr::boolean(true),
        };
        let (fin, brk) = self.loop_body_with_jumps(&d.name, |lw| lw.stmts_with_gotos(&d.body))?;
        if matches!(d.control, DoControl::Forever) && fin.stop.is_empty() {
            return Err(self
                .err(head, "this `do` loop without a loop control never ends")
                .with_help("leave it with `exit` (or `return`), or give it a condition: `do while (...)`"));
        }
        self.span = head;
        if let Some(b) = brk {
            self.emit(StmtKind::Assign { target: Place::scalar(b), value: Expr::boolean(false) });
        }
        let cond = jumps::while_cond(cond, &fin.stop);
        self.emit(StmtKind::While(While { id: LoopId::NEW, cond, body: fin.body }));
        Ok(())
    }
}
