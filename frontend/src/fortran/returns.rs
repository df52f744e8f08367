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
//!
//! A forward `goto` is the same exit, from a smaller region: when a statement of a list
//! holds (directly or inside `if`s) a `goto 10` and the label `10` stands later in the same
//! list, the statements from that one up to the label are lowered as a sequence whose
//! exit is `goto 10` (a `jumped` flag when needed), then the label's statements follow
//! unconditionally. Regions nest (`goto 20` inside the region of `goto 10` whose label
//! `20` comes first), also in loop bodies (`do 10 ...; if (c) goto 10; ...; 10 continue`
//! skips the rest of the iteration). What stays an error at the `goto`: a backward `goto`
//! (a loop), a `goto` out of a `do` loop (a data-dependent loop exit), into a block, to a
//! label of an enclosing list across another region's label, and a `return` between a
//! `goto` and its label.

use super::ast::{self, ElseClause, StmtKind as S};
use super::lower::{Lowerer, R};
use adjc_ir::*;

type AStmt = ast::Stmt;

/// What ends a sequence early: a `return` (the procedure body), a `goto` to a label (a
/// region, see the module docs), or nothing (loop bodies: a `return` there is an error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    None,
    Return,
    Label(String),
}

impl Exit {
    fn is(&self, s: &AStmt) -> bool {
        match (&s.kind, self) {
            (S::Return, Exit::Return) => true,
            (S::Goto { label: Some(l) }, Exit::Label(x)) => l == x,
            _ => false,
        }
    }
}

/// Whether every path through `stmts` ends in the exit (statically: the exit at this
/// level, or an `if` with an `else` whose branches all exit).
fn always_exits(stmts: &[AStmt], exit: &Exit) -> bool {
    stmts.iter().any(|s| match &s.kind {
        _ if exit.is(s) => true,
        S::If(b) => {
            let has_else = b.clauses.iter().any(|c| matches!(c, ElseClause::Else { .. }));
            has_else && always_exits(&b.then_body, exit) && b.clauses.iter().all(|c| always_exits(clause_body(c), exit))
        }
        _ => false,
    })
}

/// Whether the exit appears in `stmts` outside loops (inside nested `if`s).
fn has_exit(stmts: &[AStmt], exit: &Exit) -> bool {
    stmts.iter().any(|s| match &s.kind {
        _ if exit.is(s) => true,
        S::If(b) => has_exit(&b.then_body, exit) || b.clauses.iter().any(|c| has_exit(clause_body(c), exit)),
        _ => false,
    })
}

/// The labels that `goto`s in `s` jump to (outside loops, inside `if`s).
fn goto_labels(s: &AStmt, out: &mut Vec<String>) {
    match &s.kind {
        S::Goto { label: Some(l) } => out.push(l.clone()),
        S::If(b) => {
            for x in b.then_body.iter().chain(b.clauses.iter().flat_map(|c| clause_body(c).iter())) {
                goto_labels(x, out);
            }
        }
        _ => {}
    }
}

/// The region starting at `stmts[i]`: the index of the last label of the list after `i`
/// that a `goto` in `stmts[i]` jumps to, and that label.
fn region_end(stmts: &[AStmt], i: usize) -> Option<(usize, String)> {
    let mut labels = Vec::new();
    goto_labels(&stmts[i], &mut labels);
    labels
        .into_iter()
        .filter_map(|l| {
            let j = stmts.iter().enumerate().skip(i + 1).find(|(_, x)| matches!(&x.kind, S::Label(y) if *y == l))?.0;
            Some((j, l))
        })
        .max_by_key(|(j, _)| *j)
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
        self.seq(stmts, Vec::new(), &mut flag, &Exit::Return)
    }

    /// A statement list where nothing exits but `goto` regions (a loop body, a branch).
    pub fn stmts_with_gotos(&mut self, stmts: &'t [AStmt]) -> R<()> {
        let mut flag = None;
        self.seq(stmts, Vec::new(), &mut flag, &Exit::None)
    }

    /// Lowers `stmts`, then the continuation `rest` (the statements after the enclosing
    /// `if`s, innermost first), unless `exit` ends the way first.
    fn seq(&mut self, stmts: &'t [AStmt], rest: Vec<&'t [AStmt]>, flag: &mut Option<VarId>, exit: &Exit) -> R<()> {
        let mut i = 0;
        while let Some(s) = stmts.get(i) {
            let region = region_end(stmts, i);
            if let Some((j, label)) = region.filter(|_| !exit.is(s)) {
                let region = &stmts[i..j];
                if *exit != Exit::None && has_exit(region, exit) {
                    let at =
                        region.iter().find(|x| has_exit(std::slice::from_ref(*x), exit)).map_or(s.span, |x| x.span);
                    return Err(self
                        .err(
                            at,
                            format!("a `return` or `goto` between a `goto {label}` and its label is not supported yet"),
                        )
                        .with_help(format!("jump to label {label} here too, and return after it")));
                }
                let mut inner = None;
                self.seq(region, Vec::new(), &mut inner, &Exit::Label(label))?;
                i = j;
                continue;
            }
            match &s.kind {
                _ if exit.is(s) => {
                    if let Some(f) = *flag {
                        self.span = self.sp(s);
                        self.emit(StmtKind::Assign { target: Place::scalar(f), value: Expr::int(1) });
                    }
                    return Ok(());
                }
                S::If(b) if *exit != Exit::None && has_exit(std::slice::from_ref(s), exit) => {
                    let mut cont = vec![&stmts[i + 1..]];
                    cont.extend(rest);
                    return self.if_with_return(s, b, cont, flag, exit);
                }
                _ => {
                    self.stmt(s)?;
                    i += 1;
                }
            }
        }
        match rest.split_first() {
            Some((first, more)) => self.seq(first, more.to_vec(), flag, exit),
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
        exit: &Exit,
    ) -> R<()> {
        let span = self.sp(n);
        let has_else = b.clauses.iter().any(|c| matches!(c, ElseClause::Else { .. }));
        let mut falling = usize::from(!always_exits(&b.then_body, exit));
        falling += b.clauses.iter().filter(|c| !always_exits(clause_body(c), exit)).count();
        falling += usize::from(!has_else);
        if falling > 1 && cont.iter().any(|c| !c.is_empty()) {
            return self.if_with_return_flag(n, b, cont, flag, exit);
        }
        let cond = self.cond_expr(&b.cond)?;
        let then_cont = if always_exits(&b.then_body, exit) { Vec::new() } else { cont.clone() };
        let then_body = self.with_block(|lw| lw.seq(&b.then_body, then_cont, flag, exit))?;
        let else_body = self.else_chain_with_return(&b.clauses, &cont, flag, exit)?;
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
        exit: &Exit,
    ) -> R<()> {
        let span = self.sp(n);
        let f = match *flag {
            Some(f) => f,
            None => {
                let name = self.temp_name(if *exit == Exit::Return { "returned" } else { "jumped" });
                let f = self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Temp, span);
                *flag = Some(f);
                f
            }
        };
        // Reached only while no `return` was taken: the flag is 0 here.
        self.span = span;
        self.emit(StmtKind::Assign { target: Place::scalar(f), value: Expr::int(0) });
        let cond = self.cond_expr(&b.cond)?;
        let then_body = self.with_block(|lw| lw.seq(&b.then_body, Vec::new(), flag, exit))?;
        let else_body = self.else_chain_with_return(&b.clauses, &[], flag, exit)?;
        self.span = span;
        self.emit(StmtKind::If { cond, then_body, else_body });
        let not_returned = Expr::binary(BinOp::Eq, Expr::var(f, Scalar::I64), Expr::int(0)).with_span(span);
        let guarded = self.with_block(|lw| lw.seq(&[], cont, flag, exit))?;
        self.span = span;
        self.emit(StmtKind::If { cond: not_returned, then_body: guarded, else_body: Vec::new() });
        Ok(())
    }

    fn else_chain_with_return(
        &mut self,
        clauses: &'t [ElseClause],
        cont: &[&'t [AStmt]],
        flag: &mut Option<VarId>,
        exit: &Exit,
    ) -> R<Block> {
        let Some((first, more)) = clauses.split_first() else {
            // The implicit `else`: the continuation.
            return self.with_block(|lw| lw.seq(&[], cont.to_vec(), flag, exit));
        };
        let body = clause_body(first);
        let this_cont = if always_exits(body, exit) { Vec::new() } else { cont.to_vec() };
        let (span, cond) = match first {
            ElseClause::Else { .. } => return self.with_block(|lw| lw.seq(body, this_cont, flag, exit)),
            ElseClause::ElseIf { span, cond, .. } => (*span, cond),
        };
        self.span = span;
        let cond = self.cond_expr(cond)?;
        let then_body = self.with_block(|lw| lw.seq(body, this_cont, flag, exit))?;
        let else_body = self.else_chain_with_return(more, cont, flag, exit)?;
        Ok(vec![Stmt::new(StmtKind::If { cond, then_body, else_body }, span)])
    }
}
