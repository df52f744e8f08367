//! A backward `goto` that closes a loop (F77's `10 continue ... if (c) goto 10`),
//! rewritten on the tree before lowering into a `do` loop without control:
//!
//! ```text
//! 10 continue                 do                       (construct name `goto 10`)
//! S1                            S1
//! if (c) goto 20      →         if (c) cycle           (another `goto 10`: back to the top)
//! S2                            S2
//! if (t) goto 10                if (.not. t) exit
//! rest                        end do
//!                             rest
//! ```
//!
//! The loop then lowers like any `do` left by `exit` (a `While` with a `brk` flag in the
//! IR, `adjc_ir::proc::jumps`), so its reversal records the trip count and runs exactly
//! the iterations the forward sweep ran. A closing unconditional `goto 10` repeats the
//! body until a `return` (or a named `exit` of an enclosing loop) leaves it, as in the
//! source; without either the loop never ends and the `goto` stays an error.
//!
//! The rewrite applies when the label and the closing `goto` (the plain statement, or an
//! `if (c) goto 10` whose only statement it is) stand in the same statement list, every
//! `goto` to the label is inside the region between them (other ones become `cycle` of the
//! new loop, which has a construct name no source name can be, so nothing else binds to
//! it), no `goto` from outside the region jumps to a label inside it, and no unnamed `exit`
//! or `cycle` in the region belongs to an enclosing `do` (it would bind to the new loop).
//! Otherwise the `goto` stays and lowering reports it with its location.

use super::ast::{DoControl, DoLoop, Expr, ExprKind, File, IfBlock, ModuleItem, Procedure, Stmt, StmtKind, TopUnit};
use std::collections::BTreeMap;

/// Rewrites the loop-closing backward `goto`s of every procedure of the file.
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
    let mut targets = BTreeMap::new();
    count_gotos(&p.body, &mut targets);
    list(&mut p.body, &targets);
    p.contains.iter_mut().for_each(procedure);
}

/// How many plain `goto`s jump to each label (computed ones were rewritten before, or stay
/// and are errors).
fn count_gotos(stmts: &[Stmt], out: &mut BTreeMap<String, usize>) {
    for s in stmts {
        if let StmtKind::Goto { label: Some(l) } = &s.kind {
            *out.entry(l.clone()).or_default() += 1;
        }
        for b in s.bodies() {
            count_gotos(b, out);
        }
    }
}

/// The label a loop-closing statement jumps back to, and its condition (`None`: always).
fn closing_goto(s: &Stmt) -> Option<(&str, Option<&Expr>)> {
    match &s.kind {
        StmtKind::Goto { label: Some(l) } => Some((l, None)),
        StmtKind::If(b) if b.clauses.is_empty() => match b.then_body.as_slice() {
            [Stmt { kind: StmtKind::Goto { label: Some(l) }, .. }] => Some((l, Some(&b.cond))),
            _ => None,
        },
        _ => None,
    }
}

fn list(stmts: &mut Vec<Stmt>, targets: &BTreeMap<String, usize>) {
    // Inner lists first: a loop inside a region is rewritten before the region's own.
    for s in stmts.iter_mut() {
        for b in s.bodies_mut() {
            list(b, targets);
        }
    }
    let mut at = 0;
    while at < stmts.len() {
        if let Some(new) = rewrite_at(stmts, at, targets) {
            let (start, do_stmt) = new;
            let rest = stmts.split_off(start);
            stmts.push(do_stmt);
            stmts.extend(rest.into_iter().skip(at + 1 - start));
            at = start + 1;
        } else {
            at += 1;
        }
    }
}

/// When `stmts[end]` closes a loop that can be rewritten: the position of its label and the
/// `do` statement replacing `stmts[label..=end]`.
fn rewrite_at(stmts: &[Stmt], end: usize, targets: &BTreeMap<String, usize>) -> Option<(usize, Stmt)> {
    let (label, cond) = closing_goto(&stmts[end])?;
    let start = (0..end).rev().find(|&j| matches!(&stmts[j].kind, StmtKind::Label(l) if l == label))?;
    let region = &stmts[start + 1..end];
    // Every `goto` to the label is in the region (plus the closing one).
    let mut inside = BTreeMap::new();
    count_gotos(region, &mut inside);
    if inside.get(label).copied().unwrap_or(0) + 1 != targets.get(label).copied().unwrap_or(0) {
        return None;
    }
    // No jump from outside into the region; no unnamed `exit`/`cycle` that would rebind.
    let mut labels = Vec::new();
    labels_in(region, &mut labels);
    if labels.iter().any(|l| inside.get(l).copied().unwrap_or(0) != targets.get(l).copied().unwrap_or(0)) {
        return None;
    }
    if unnamed_jump_outside_do(region) || (cond.is_none() && !leaves(region)) {
        return None;
    }
    let name = format!("goto {label}");
    let goto_span = stmts[end].span;
    let mut body: Vec<Stmt> = region.to_vec();
    retarget(&mut body, label, &name);
    if let Some(c) = cond {
        // `if (c) goto 10` at the end: leave unless `c`.
        let not_c = Expr { id: c.id, span: c.span, kind: ExprKind::Not(Box::new(c.clone())) };
        body.push(Stmt {
            span: goto_span,
            kind: StmtKind::If(Box::new(IfBlock {
                cond: not_c,
                one_line: true,
                then_body: vec![Stmt { span: goto_span, kind: StmtKind::Exit(Some(name.clone())) }],
                clauses: Vec::new(),
            })),
        });
    }
    let do_loop = DoLoop { head: goto_span, name: Some(name), control: DoControl::Forever, body };
    Some((start, Stmt { span: goto_span, kind: StmtKind::Do(Box::new(do_loop)) }))
}

fn labels_in(stmts: &[Stmt], out: &mut Vec<String>) {
    for s in stmts {
        if let StmtKind::Label(l) = &s.kind {
            out.push(l.clone());
        }
        for b in s.bodies() {
            labels_in(b, out);
        }
    }
}

/// An `exit` or `cycle` without a construct name that is not inside a `do` of the region.
fn unnamed_jump_outside_do(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Exit(None) | StmtKind::Cycle(None) => true,
        StmtKind::Do(_) => false,
        _ => s.bodies().into_iter().any(|b| unnamed_jump_outside_do(b)),
    })
}

/// Whether a `return` or a named `exit` (of an enclosing loop) can leave the region: a
/// loop closed by an unconditional `goto` without one never ends (the `goto` stays, and
/// lowering reports it).
fn leaves(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Return | StmtKind::Exit(Some(_)) => true,
        _ => s.bodies().into_iter().any(|b| leaves(b)),
    })
}

/// Every `goto label` in the region jumps to the top of the new loop: `cycle name`.
fn retarget(stmts: &mut [Stmt], label: &str, name: &str) {
    for s in stmts.iter_mut() {
        if matches!(&s.kind, StmtKind::Goto { label: Some(l) } if l == label) {
            s.kind = StmtKind::Cycle(Some(name.to_string()));
        }
        for b in s.bodies_mut() {
            retarget(b, label, name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse, syntax};
    use super::*;

    fn body_of(src: &str) -> Vec<Stmt> {
        let tree = syntax::parse(src).expect("parses");
        let mut file = parse::parse_file(src, tree.root_node());
        rewrite(&mut file);
        match file.units.into_iter().next() {
            Some(TopUnit::Procedure(p)) => p.body,
            _ => panic!("one procedure"),
        }
    }

    /// The statements of a list without the `continue` of `10 continue`.
    fn executable(b: &[Stmt]) -> Vec<&Stmt> {
        b.iter().filter(|s| !matches!(s.kind, StmtKind::Continue)).collect()
    }

    #[test]
    fn conditional_goto_closes_a_do_loop() {
        let b = body_of(
            "subroutine k(x)\n  real(8) :: x\n10 continue\n  x = 2.0d0 * x\n  if (x < 1.0d0) goto 10\nend subroutine\n",
        );
        let [Stmt { kind: StmtKind::Do(d), .. }] = b.as_slice() else { panic!("one do loop: {b:?}") };
        assert!(matches!(d.control, DoControl::Forever));
        assert_eq!(d.name.as_deref(), Some("goto 10"));
        let body = executable(&d.body);
        assert!(matches!(body[0].kind, StmtKind::Assign { .. }), "{body:?}");
        let StmtKind::If(exit) = &body[1].kind else { panic!("exit test") };
        assert!(matches!(exit.cond.kind, ExprKind::Not(_)));
        assert!(matches!(&exit.then_body[0].kind, StmtKind::Exit(Some(n)) if n == "goto 10"));
    }

    #[test]
    fn inner_goto_becomes_cycle_and_a_jump_from_outside_keeps_the_goto() {
        let b = body_of(
            "subroutine k(x)\n  real(8) :: x\n10 continue\n  if (x > 5.0d0) goto 10\n  x = 2.0d0 * x\n  \
             if (x < 1.0d0) goto 10\nend subroutine\n",
        );
        let [Stmt { kind: StmtKind::Do(d), .. }] = b.as_slice() else { panic!("one do loop: {b:?}") };
        let StmtKind::If(first) = &executable(&d.body)[0].kind else { panic!("if") };
        assert!(matches!(&first.then_body[0].kind, StmtKind::Cycle(Some(n)) if n == "goto 10"));
        // A forward `goto 10` from before the label: no rewrite.
        let b = body_of(
            "subroutine k(x)\n  real(8) :: x\n  if (x > 5.0d0) goto 10\n10 continue\n  x = 2.0d0 * x\n  \
             if (x < 1.0d0) goto 10\nend subroutine\n",
        );
        assert!(!b.iter().any(|s| matches!(s.kind, StmtKind::Do(_))));
    }

    #[test]
    fn unnamed_exit_of_an_enclosing_loop_keeps_the_goto() {
        let b = body_of(
            "subroutine k(x)\n  real(8) :: x\n  do\n10 continue\n    if (x > 5.0d0) exit\n    x = 2.0d0 * x\n    \
             if (x < 1.0d0) goto 10\n  end do\nend subroutine\n",
        );
        let [Stmt { kind: StmtKind::Do(outer), .. }] = b.as_slice() else { panic!("outer do: {b:?}") };
        assert!(!outer.body.iter().any(|s| matches!(s.kind, StmtKind::Do(_))));
    }
}
