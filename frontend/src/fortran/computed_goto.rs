//! Computed `goto` as a jump table of structured code (OpenAD's and old NAS codes'
//! `go to (10, 20, 30) k`), rewritten on the tree before lowering.
//!
//! The statements after `go to (...) k` in its list fall into segments: `S0` up to the
//! first of its labels, then one segment from each label to the next (in text order). The
//! jump enters at the segment of the k-th label, or at `S0` when `k` is out of range, and
//! runs on from there (falling through the labels) until a `goto` leaves. So segment `j`
//! runs when the entry is at or before it:
//!
//! ```text
//! go to (10, 20) k          if (k < 1 .or. k > 2) then; S0; end if
//! S0                        10 continue
//! 10 S1                 →   if (k < 1 .or. k > 2 .or. k == 1) then; S1; end if
//! 20 S2                     20 continue
//! rest                      S2
//!                           rest
//! ```
//!
//! The last segment and what follows run on every entry. A `goto 40` to a label after
//! the segments (the usual `goto 40` closing each case) is then an ordinary forward
//! `goto` out of `if`s, a structured exit (`returns`). The rewrite applies when every
//! label of the list stands later in the same statement list, no other `goto` targets one
//! of them, and nothing in the segments may change the selector (an assignment, a `do`
//! variable, a call argument mentioning one of its names); otherwise the statement stays
//! and lowering reports it.

use super::ast::{Expr, ExprKind, File, LogicalOp, ModuleItem, Procedure, Stmt, StmtKind, TopUnit};
use std::collections::BTreeSet;

/// Rewrites the computed `goto`s of every procedure of the file.
pub fn rewrite(file: &mut File) {
    for unit in file.units.iter_mut() {
        match unit {
            TopUnit::Procedure(p) => procedure(p),
            TopUnit::Module(m) => {
                for item in m.items.iter_mut() {
                    if let ModuleItem::Contains(procs) = item {
                        procs.iter_mut().for_each(procedure);
                    }
                }
            }
            TopUnit::Unsupported(_) => {}
        }
    }
}

fn procedure(p: &mut Procedure) {
    let mut targets = BTreeSet::new();
    goto_targets(&p.body, &mut targets);
    list(&mut p.body, &targets);
    p.contains.iter_mut().for_each(procedure);
}

/// The labels plain `goto`s jump to.
fn goto_targets(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        if let StmtKind::Goto { label: Some(l) } = &s.kind {
            out.insert(l.clone());
        }
        for b in s.bodies() {
            goto_targets(b, out);
        }
    }
}

fn list(stmts: &mut Vec<Stmt>, targets: &BTreeSet<String>) {
    for s in stmts.iter_mut() {
        for b in s.bodies_mut() {
            list(b, targets);
        }
    }
    let mut from = 0;
    while let Some(i) = (from..stmts.len()).find(|&i| matches!(stmts[i].kind, StmtKind::ComputedGoto { .. })) {
        from = i + 1;
        if let Some(new) = rewrite_at(stmts, i, targets) {
            let rest = stmts.split_off(i);
            let tail_start = new.1;
            stmts.extend(new.0);
            stmts.extend(rest.into_iter().skip(tail_start - i));
        }
    }
}

/// The statements replacing `stmts[i..end]`, and `end`.
fn rewrite_at(stmts: &[Stmt], i: usize, targets: &BTreeSet<String>) -> Option<(Vec<Stmt>, usize)> {
    let StmtKind::ComputedGoto { tests, out_of_range } = &stmts[i].kind else { return None };
    let span = stmts[i].span;
    // Each label's position in the list (after the `goto`).
    let mut positions: Vec<usize> = Vec::new();
    for (label, _) in tests {
        if targets.contains(label) {
            return None;
        }
        let at = (i + 1..stmts.len()).find(|&j| matches!(&stmts[j].kind, StmtKind::Label(l) if l == label))?;
        if !positions.contains(&at) {
            positions.push(at);
        }
    }
    positions.sort_unstable();
    let last = *positions.last()?;
    let selector: BTreeSet<String> = out_of_range.names().into_iter().collect();
    let mut changed = BTreeSet::new();
    changed_names(&stmts[i + 1..last], &mut changed);
    if selector.iter().any(|n| changed.contains(n)) {
        return None;
    }
    let mut out = Vec::new();
    let mut start = i + 1;
    for (seg, &at) in positions.iter().enumerate() {
        // Segment `seg` is stmts[start..at]: it runs when the entry is at or before it.
        let mut cond = out_of_range.clone();
        for (label, test) in tests {
            let rank = positions.iter().position(|&p| matches!(&stmts[p].kind, StmtKind::Label(l) if l == label));
            if rank.is_some_and(|r| r < seg) {
                cond = Expr {
                    id: cond.id,
                    span: cond.span,
                    kind: ExprKind::Logical { op: LogicalOp::Or, lhs: Box::new(cond), rhs: Box::new(test.clone()) },
                };
            }
        }
        let body: Vec<Stmt> = stmts[start..at].to_vec();
        if !body.is_empty() {
            out.push(Stmt {
                span,
                kind: StmtKind::If(Box::new(super::ast::IfBlock {
                    cond,
                    one_line: false,
                    then_body: body,
                    clauses: Vec::new(),
                })),
            });
        }
        out.push(stmts[at].clone());
        start = at + 1;
    }
    Some((out, last + 1))
}

/// Names a statement list may change: assigned variables, `do` variables, and every name
/// in the arguments of a call.
fn changed_names(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { lhs, .. } => {
                let base = match &lhs.kind {
                    ExprKind::Call { callee, .. } => &**callee,
                    _ => lhs,
                };
                out.extend(base.names());
            }
            StmtKind::Do(d) => {
                if let super::ast::DoControl::Counted { var, .. } = &d.control {
                    out.extend(var.names());
                }
            }
            StmtKind::Call { args, .. } => {
                for a in args {
                    out.extend(a.names());
                }
            }
            _ => {}
        }
        for b in s.bodies() {
            changed_names(b, out);
        }
    }
}
