//! `return` as structured control flow.
//!
//! A procedure body (or an inlined callee's body) is lowered as a sequence with a
//! continuation: the statements that follow, at every enclosing `if` level. A `return`
//! ends the sequence (what follows it in the same list is dead and not lowered). An `if`
//! whose branches contain a `return` takes the continuation into the one branch that can
//! fall through, so the statements after the `if` run only when the return was not taken:
//!
//! ```text
//! if (c) return          →   if (c) { } else { rest }
//! rest
//! ```
//!
//! The condition is an ordinary `if` on data of the IR, recorded or recomputed by the
//! reversal like any other, so the adjoint of the statements after the `if` is taken
//! only when they ran. No statement is ever lowered twice: when more than one branch of
//! such an `if` can fall through and statements follow, the returning branches set an
//! integer flag (`returned`, 0 before the `if`) and the statements after the `if` run
//! under `if (returned == 0)`. A `return` inside a `do` loop is a data-dependent loop exit,
//! which the IR cannot express yet: `stmt` refuses it with what to do instead.

use super::ast::{self, ElseClause, StmtKind as S};
use super::lower::{Lowerer, R};
use adjc_ir::*;

type AStmt = ast::Stmt;

/// Whether every path through `stmts` ends in a `return` (statically: a `return` at this
/// level, or an `if` with an `else` whose branches all return).
fn always_returns(stmts: &[AStmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        S::Return => true,
        S::If(b) => {
            let has_else = b.clauses.iter().any(|c| matches!(c, ElseClause::Else { .. }));
            has_else && always_returns(&b.then_body) && b.clauses.iter().all(|c| always_returns(clause_body(c)))
        }
        _ => false,
    })
}

/// Whether a `return` appears in `stmts` outside loops (inside nested `if`s).
fn has_return(stmts: &[AStmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        S::Return => true,
        S::If(b) => has_return(&b.then_body) || b.clauses.iter().any(|c| has_return(clause_body(c))),
        _ => false,
    })
}

fn clause_body(c: &ElseClause) -> &[AStmt] {
    match c {
        ElseClause::ElseIf { body, .. } | ElseClause::Else { body, .. } => body,
    }
}

impl<'s, 't> Lowerer<'s, 't> {
    /// Lowers a procedure's executable statements (returns handled as described above).
    pub fn body_with_returns(&mut self, stmts: &'t [AStmt]) -> R<()> {
        let mut flag = None;
        self.seq(stmts, Vec::new(), &mut flag)
    }

    /// Lowers `stmts`, then the continuation `rest` (the statements after the enclosing
    /// `if`s, innermost first), unless a `return` ends the way first.
    fn seq(&mut self, stmts: &'t [AStmt], rest: Vec<&'t [AStmt]>, flag: &mut Option<VarId>) -> R<()> {
        for (i, s) in stmts.iter().enumerate() {
            match &s.kind {
                S::Return => {
                    if let Some(f) = *flag {
                        self.span = self.sp(s);
                        self.emit(StmtKind::Assign { target: Place::scalar(f), value: Expr::int(1) });
                    }
                    return Ok(());
                }
                S::If(b) if has_return(std::slice::from_ref(s)) => {
                    let mut cont = vec![&stmts[i + 1..]];
                    cont.extend(rest);
                    return self.if_with_return(s, b, cont, flag);
                }
                _ => self.stmt(s)?,
            }
        }
        match rest.split_first() {
            Some((first, more)) => self.seq(first, more.to_vec(), flag),
            None => Ok(()),
        }
    }

    /// An `if` with a `return` in some branch: the continuation goes into the branch
    /// that can fall through.
    fn if_with_return(
        &mut self,
        n: &'t AStmt,
        b: &'t ast::IfBlock,
        cont: Vec<&'t [AStmt]>,
        flag: &mut Option<VarId>,
    ) -> R<()> {
        let span = self.sp(n);
        let has_else = b.clauses.iter().any(|c| matches!(c, ElseClause::Else { .. }));
        let mut falling = usize::from(!always_returns(&b.then_body));
        falling += b.clauses.iter().filter(|c| !always_returns(clause_body(c))).count();
        falling += usize::from(!has_else);
        if falling > 1 && cont.iter().any(|c| !c.is_empty()) {
            return self.if_with_return_flag(n, b, cont, flag);
        }
        let cond = self.cond_expr(&b.cond)?;
        let then_cont = if always_returns(&b.then_body) { Vec::new() } else { cont.clone() };
        let then_body = self.with_block(|lw| lw.seq(&b.then_body, then_cont, flag))?;
        let else_body = self.else_chain_with_return(&b.clauses, &cont, flag)?;
        self.span = span;
        self.emit(StmtKind::If { cond, then_body, else_body });
        Ok(())
    }

    /// More than one branch falls through: the returning branches set a flag (an integer
    /// local, 0 until a `return` is taken), and the statements after the `if` run under
    /// `if (flag == 0)`. The flag is data like any other: the reversal records the branch.
    fn if_with_return_flag(
        &mut self,
        n: &'t AStmt,
        b: &'t ast::IfBlock,
        cont: Vec<&'t [AStmt]>,
        flag: &mut Option<VarId>,
    ) -> R<()> {
        let span = self.sp(n);
        let f = match *flag {
            Some(f) => f,
            None => {
                let name = self.temp_name("returned");
                let f = self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Temp, span);
                *flag = Some(f);
                f
            }
        };
        // Reached only while no `return` was taken: the flag is 0 here.
        self.span = span;
        self.emit(StmtKind::Assign { target: Place::scalar(f), value: Expr::int(0) });
        let cond = self.cond_expr(&b.cond)?;
        let then_body = self.with_block(|lw| lw.seq(&b.then_body, Vec::new(), flag))?;
        let else_body = self.else_chain_with_return(&b.clauses, &[], flag)?;
        self.span = span;
        self.emit(StmtKind::If { cond, then_body, else_body });
        let not_returned = Expr::binary(BinOp::Eq, Expr::var(f, Scalar::I64), Expr::int(0)).with_span(span);
        let guarded = self.with_block(|lw| lw.seq(&[], cont, flag))?;
        self.span = span;
        self.emit(StmtKind::If { cond: not_returned, then_body: guarded, else_body: Vec::new() });
        Ok(())
    }

    fn else_chain_with_return(
        &mut self,
        clauses: &'t [ElseClause],
        cont: &[&'t [AStmt]],
        flag: &mut Option<VarId>,
    ) -> R<Block> {
        let Some((first, more)) = clauses.split_first() else {
            // The implicit `else`: the continuation.
            return self.with_block(|lw| lw.seq(&[], cont.to_vec(), flag));
        };
        let body = clause_body(first);
        let this_cont = if always_returns(body) { Vec::new() } else { cont.to_vec() };
        let (span, cond) = match first {
            ElseClause::Else { .. } => return self.with_block(|lw| lw.seq(body, this_cont, flag)),
            ElseClause::ElseIf { span, cond, .. } => (*span, cond),
        };
        self.span = span;
        let cond = self.cond_expr(cond)?;
        let then_body = self.with_block(|lw| lw.seq(body, this_cont, flag))?;
        let else_body = self.else_chain_with_return(more, cont, flag)?;
        Ok(vec![Stmt::new(StmtKind::If { cond, then_body, else_body }, span)])
    }
}
