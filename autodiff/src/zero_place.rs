//! Zero starts at first use: a local adjoint's start at zero goes right before the first
//! statement of the function body that mentions the adjoint, and is attributed to that
//! statement's source line.
//!
//! The adjoint is assembled with every local adjoint zeroed on entry to the reverse sweep,
//! under the `def` line: a reader then meets nine `adjc_zero` calls before anything they
//! are for. Moved down, `adjc_zero(relu2_b, ...)` stands under the comment of the source
//! line whose adjoint first adds into `relu2_b`.
//!
//! Exact: nothing between the old and the new place reads or writes the adjoint (the new
//! place is the first statement mentioning it), so every value is unchanged. A start moves
//! only among the statements of the block it is in (the function body, or a top-level
//! section such as the reverse sweep), and never past an allocation or free of its array.
//!
//! Run without a memory plan only. A plan's arena gives each array the lifetime of its
//! statements, and the planner's model counts local adjoints live from the start of the
//! reverse sweep: a start moved later would shorten lifetimes the plan did not predict and
//! the arena's greedy layout could exceed the promised limit (a first attempt, which moved
//! the starts before planning, measured 80 bytes for a 40-byte limit on atax). Without a
//! plan every array is allocated on entry, so placement is only the order of statements.

use adjc_ir::proc::access::mentions;
use adjc_ir::{Block, ExprKind, Function, Literal, Span, Stmt, StmtKind, VarId, VarRole};

/// `f` with each zero start of a local adjoint moved to its first use.
pub fn place_zero_starts(f: &Function) -> Function {
    let mut out = f.clone();
    let body = std::mem::take(&mut out.body);
    out.body = place(&out, body);
    out
}

/// The statements of `body` (a function body or one of its top-level sections, such as the
/// reverse sweep) with the starts among them moved.
fn place(f: &Function, mut body: Block) -> Block {
    for s in body.iter_mut() {
        if let StmtKind::Section { body: inner, .. } = &mut s.kind {
            *inner = place(f, std::mem::take(inner));
        }
    }
    // Where each start goes: the index of its first use.
    let mut due: Vec<Option<usize>> = vec![None; body.len()];
    for k in 0..body.len() {
        let Some(a) = zero_start(f, &body[k]) else { continue };
        let Some(j) = (k + 1..body.len()).find(|&j| mentions(&body[j], a)) else { continue };
        if !matches!(body[j].kind, StmtKind::Alloc(_) | StmtKind::Free(_)) {
            due[k] = Some(j);
        }
    }
    let spans: Vec<Span> = body.iter().map(|s| s.span).collect();
    let mut moved: Vec<Vec<Stmt>> = vec![Vec::new(); body.len()];
    let mut kept: Vec<Option<Stmt>> = Vec::with_capacity(body.len());
    for (k, mut s) in body.into_iter().enumerate() {
        match due[k] {
            Some(j) => {
                respan(&mut s, spans[j]);
                moved[j].push(s);
                kept.push(None);
            }
            None => kept.push(Some(s)),
        }
    }
    // Each use preceded by its starts, in their original order.
    let mut out = Vec::new();
    for (s, starts) in kept.into_iter().zip(moved) {
        out.extend(starts);
        out.extend(s);
    }
    out
}

/// The local adjoint `s` sets to zero, if `s` is such a start: `x_b = 0.0`, or a map whose
/// one statement is `x_b[own indices] = 0.0`.
fn zero_start(f: &Function, s: &Stmt) -> Option<VarId> {
    let (target, value) = match &s.kind {
        StmtKind::Assign { target, value } if target.index.is_empty() => (target, value),
        StmtKind::Map(m) => {
            let [t] = m.body.as_slice() else { return None };
            let StmtKind::Assign { target, value } = &t.kind else { return None };
            let own = target.index.len() == m.dims.len()
                && target.index.iter().zip(&m.dims).all(|(e, d)| matches!(e.kind, ExprKind::Var(x) if x == d.var));
            if !own || !crate::zero_fill::covers(f, target.var, &m.dims, &target.index) {
                return None;
            }
            (target, value)
        }
        _ => return None,
    };
    let zero = matches!(value.kind, ExprKind::Const(Literal::Float(v)) if v.to_bits() == 0);
    let VarRole::Adjoint(of) = f.var(target.var).role else { return None };
    (zero && !f.is_param(of) && !f.is_param(target.var)).then_some(target.var)
}

/// `s` with every statement in it attributed to `span`.
fn respan(s: &mut Stmt, span: Span) {
    s.span = span;
    for b in s.blocks_mut() {
        respan_block(b, span);
    }
}

fn respan_block(b: &mut Block, span: Span) {
    for t in b.iter_mut() {
        respan(t, span);
    }
}
