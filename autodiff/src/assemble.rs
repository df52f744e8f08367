//! Final layout of the adjoint function:
//!
//! ```text
//! alloc ...                      (primal locals, local adjoints, tapes, snapshots)
//! section "forward sweep" { primal statements with tape saves; snapshot of clobbered outputs }
//! section "reverse sweep" { zeroing of local adjoints; adjoint statements in reverse order;
//!                           zeroing of output-only adjoints; outputs put back }
//! free ...
//! ```
//!
//! Outputs the reverse sweep modifies (restored from tapes or recomputed) are copied at the
//! end of the forward sweep and copied back at the end, so that one call of the adjoint
//! leaves every primal output as the forward function would. When a single save site is
//! all that modifies an output, its restore swaps instead, and the values the tape then
//! holds are copied back (see `crate::tape::Swap`): no copy of the whole output.

use crate::report::{TapeInfo, TapeKind};
use crate::state::Ad;
use crate::util::{block_writes, rename_in_block, same, stmt_mentions, zero, VarSet};
use adjc_ir::*;

pub(crate) struct Parts<'a> {
    pub fwd: Block,
    pub rev: Block,
    pub primal_body: &'a Block,
    pub primal_allocs: &'a [VarId],
    pub of: &'a [VarId],
    pub by_value: &'a [(VarId, VarId)],
}

/// Whether `s` itself (not its nested blocks) mentions `v`.
fn direct_mentions(s: &Stmt, v: VarId) -> bool {
    let mut found = s.written_var() == Some(v);
    s.exprs(&mut |e| found |= e.mentions(v));
    found
}

fn mentions_outside_maps(b: &Block, v: VarId) -> bool {
    b.iter().any(|s| {
        direct_mentions(s, v)
            || (!matches!(s.kind, StmtKind::Map(_)) && s.blocks().iter().any(|c| mentions_outside_maps(c, v)))
    })
}

fn is_zero_assign(s: &Stmt, v: VarId) -> bool {
    matches!(&s.kind, StmtKind::Assign { target, value } if target.var == v && target.is_scalar() && value.as_float() == Some(0.0))
}

/// Removes `v = 0` statements that nothing executed later reads (the final zeroing of a
/// by-value seed is useless and would write an input).
fn drop_dead_zeroing(b: &mut Block, v: VarId, mut used_after: bool) -> bool {
    let mut k = b.len();
    while k > 0 {
        k -= 1;
        if !used_after && is_zero_assign(&b[k], v) {
            b.remove(k);
            continue;
        }
        let in_loop = matches!(b[k].kind, StmtKind::Loop(_) | StmtKind::Map(_));
        let inner_used = used_after || (in_loop && stmt_mentions(&b[k], v));
        for c in b[k].blocks_mut() {
            drop_dead_zeroing(c, v, inner_used);
        }
        used_after |= stmt_mentions(&b[k], v);
    }
    used_after
}

/// Whether a top-level statement of the primal assigns every element of `y`.
pub(crate) fn fully_overwritten(body: &[Stmt], f: &Function, y: VarId) -> bool {
    let dims = f.var(y).ty.dims().to_vec();
    body.iter().any(|s| match &s.kind {
        StmtKind::Assign { target, .. } => target.var == y && dims.is_empty(),
        StmtKind::Map(m) if m.dims.len() == dims.len() && !dims.is_empty() => m.body.iter().any(|t| match &t.kind {
            StmtKind::Assign { target, .. } if target.var == y => {
                target.index.iter().zip(&m.dims).zip(&dims).all(|((i, md), d)| {
                    matches!(i.kind, ExprKind::Var(v) if v == md.var)
                        && same(&md.start, &d.lower)
                        && same(&md.stop, &d.lower.clone().add(d.extent.clone()))
                })
            }
            _ => false,
        }),
        _ => false,
    })
}

/// Whether `s` restores `x` from `tape` (`x[w] = tape[k]`).
fn is_restore(s: &Stmt, x: VarId, tape: VarId) -> bool {
    matches!(&s.kind, StmtKind::Assign { target, value }
        if target.var == x && matches!(&value.kind, ExprKind::Var(t) | ExprKind::Load(t, _) if *t == tape))
}

/// `tmp = x[w]; x[w] = tape[k]; tape[k] = tmp` for the restore `x[w] = tape[k]`.
fn swapped(s: &Stmt, tmp: VarId, ty: Scalar) -> Block {
    let StmtKind::Assign { target, value } = &s.kind else { return vec![s.clone()] };
    let slot = match &value.kind {
        ExprKind::Load(t, idx) => Place::element(*t, idx.clone()),
        ExprKind::Var(t) => Place::scalar(*t),
        _ => return vec![s.clone()],
    };
    vec![
        Stmt::assign(Place::scalar(tmp), target.to_expr(ty), s.span),
        Stmt::assign(target.clone(), value.clone(), s.span),
        Stmt::assign(slot, Expr::var(tmp, ty), s.span),
    ]
}

/// Turns the restore of `x` from `tape` in `b` into a swap; false when it is not found.
fn swap_restore(b: &mut Block, x: VarId, tape: VarId, tmp: VarId, ty: Scalar) -> bool {
    let keep = |n: &Option<Note>| Some(Note::Swapped(n.clone().map(Box::new)));
    for k in 0..b.len() {
        if is_restore(&b[k], x, tape) {
            let mut three = swapped(&b[k], tmp, ty);
            three[0].note = keep(&b[k].note);
            b.splice(k..k + 1, three);
            return true;
        }
        if let StmtKind::Map(m) = &mut b[k].kind {
            if let [only] = m.body.as_slice() {
                if is_restore(only, x, tape) {
                    m.body = swapped(only, tmp, ty);
                    b[k].note = keep(&b[k].note);
                    return true;
                }
            }
        }
        for c in b[k].blocks_mut() {
            if swap_restore(c, x, tape, tmp, ty) {
                return true;
            }
        }
    }
    false
}

pub(crate) fn assemble(ad: &mut Ad, parts: Parts) -> Block {
    let Parts { mut fwd, mut rev, primal_body, primal_allocs, of, by_value } = parts;
    let p = ad.p;
    let span = p.span;

    // Seeds passed by value are inputs: work on a copy if the sweep writes them.
    let mut prefix = Vec::new();
    for (ret, sb) in by_value {
        drop_dead_zeroing(&mut rev, *sb, false);
        let seeded = of.contains(ret);
        if !seeded || block_writes(&rev).contains(sb) {
            let ty = ad.elem(*ret);
            let name = ad.f.fresh_name(&format!("{}_b_acc", p.var(*ret).name));
            let w = ad.f.add_var(name, Type::Scalar(ty), VarRole::Adjoint(*ret), Span::NONE);
            rename_in_block(&mut rev, *sb, w);
            let init = if seeded { Expr::var(*sb, ty) } else { zero(ty) };
            prefix.push(Stmt::assign(Place::scalar(w), init, span).with_note(Note::SeedCopy { seed: ad.name(*sb) }));
        }
    }

    // Local adjoints start at zero; so do the adjoints of outputs that are not seeded.
    let mut allocs: Vec<VarId> = primal_allocs.to_vec();
    let locals: Vec<(VarId, VarId)> = ad.adj.iter().map(|(v, a)| (*v, *a)).collect();
    for (v, a) in &locals {
        let param = p.param(*v);
        let array = ad.f.var(*a).ty.is_array();
        match param {
            None if array => {
                allocs.push(*a);
                prefix.push(ad.zero_map(*a, span).with_note(Note::ZeroInit { var: p.var(*v).name.clone() }));
            }
            None => {
                if mentions_outside_maps(&rev, *a) {
                    prefix.push(Stmt::assign(Place::scalar(*a), zero(ad.elem(*a)), span));
                }
            }
            Some(q) => {
                let by_val = by_value.iter().any(|(r, _)| r == v);
                if q.intent != Intent::In && !of.contains(v) && !by_val {
                    let note = Note::NotDifferentiated { var: p.var(*v).name.clone() };
                    prefix.push(if array {
                        ad.zero_map(*a, span).with_note(note.clone())
                    } else {
                        Stmt::assign(Place::scalar(*a), zero(ad.elem(*a)), span).with_note(note)
                    });
                }
            }
        }
    }

    // Output-only adjoints are zero on exit.
    let mut suffix = Vec::new();
    for q in &p.params {
        let Some(a) = ad.adj.get(&q.var).copied() else { continue };
        if q.intent != Intent::Out || by_value.iter().any(|(r, _)| *r == q.var) {
            continue;
        }
        if !fully_overwritten(primal_body, p, q.var) {
            let note = Note::OutputOnlyZero { var: p.var(q.var).name.clone() };
            suffix.push(if ad.f.var(a).ty.is_array() {
                ad.zero_map(a, span).with_note(note.clone())
            } else {
                Stmt::assign(Place::scalar(a), zero(ad.elem(a)), span).with_note(note)
            });
        }
    }

    // Outputs the reverse sweep changed get the forward results back.
    let clobbered: VarSet = ad.clobbered.clone();
    for q in &p.params {
        if q.intent == Intent::In || !clobbered.contains(&q.var) {
            continue;
        }
        let x = q.var;
        let name = p.var(x).name.clone();
        let ty = ad.elem(x);
        // One save site changes it, and its tape can keep the forward result.
        let swaps: Vec<usize> = (0..ad.swaps.len()).filter(|k| ad.swaps[*k].x == x).collect();
        if let (false, [k]) = (ad.unswappable.contains(&x), swaps.as_slice()) {
            let tape = ad.swaps[*k].tape;
            let mut found = 0;
            walk_stmts(&rev, &mut |t| found += is_restore(t, x, tape) as usize);
            if found == 1 {
                let tmp = ad.temp(&format!("{name}_fwd"), ty, false);
                swap_restore(&mut rev, x, tape, tmp, ty);
                let tname = ad.name(tape);
                let mut back = std::mem::take(&mut ad.swaps[*k].copy_back);
                if let Some(first) = back.first_mut() {
                    first.note = Some(Note::ForwardResultKeptBy { var: name.clone(), tape: tname.clone() });
                }
                suffix.extend(back);
                if let Some(t) = ad.tapes.iter_mut().find(|t| t.var == tape) {
                    t.why.push_str(&format!("; it then keeps {name}'s forward result, copied back at the end"));
                }
                continue;
            }
        }
        let why = format!("the reverse sweep changes {name}; its forward result is put back at the end");
        if ad.f.var(x).ty.is_array() {
            let snap = ad.local_like(x, "_final", VarRole::Tape);
            fwd.push(ad.copy_map(snap, x, span).with_note(Note::ForwardResult { var: name.clone() }));
            suffix.push(ad.copy_map(x, snap, span).with_note(Note::ForwardResultBack { var: name.clone() }));
            let elems = ad.f.var(x).ty.dims().iter().fold(Expr::int(1), |a, d| a.mul(d.extent.clone()));
            ad.tapes.push(TapeInfo {
                var: snap,
                name: ad.name(snap),
                what: format!("{name} (forward result)"),
                line: 0,
                why,
                elems: Some(elems),
                exact: true,
                elem: ty,
                kind: TapeKind::Array,
            });
        } else {
            let snap = ad.temp(&format!("{name}_final"), ty, false);
            ad.tapes.push(TapeInfo {
                var: snap,
                name: ad.name(snap),
                what: format!("{name} (forward result)"),
                line: 0,
                why,
                elems: Some(Expr::int(1)),
                exact: true,
                elem: ty,
                kind: TapeKind::Value,
            });
            fwd.push(
                Stmt::assign(Place::scalar(snap), Expr::var(x, ty), span)
                    .with_note(Note::ForwardResult { var: name.clone() }),
            );
            suffix.push(
                Stmt::assign(Place::scalar(x), Expr::var(snap, ty), span)
                    .with_note(Note::ForwardResultBack { var: name.clone() }),
            );
        }
    }
    allocs.extend(ad.ad_allocs.iter().copied());

    // A local scalar saved in a loop is also saved before its first assignment (the value
    // carried into the first iteration is never used, but reading it would be undefined).
    let mut defined = Vec::new();
    for v in ad.saved.clone() {
        let var = p.var(v);
        if !var.ty.is_array() && !p.is_param(v) {
            let zero = match var.ty.elem() {
                Scalar::Bool => Expr::boolean(false),
                Scalar::I64 => Expr::int(0),
                ty => zero(ty),
            };
            defined.push(
                Stmt::assign(Place::scalar(v), zero, span).with_note(Note::DefinedBeforeTape { var: var.name.clone() }),
            );
        }
    }
    defined.extend(fwd);
    let fwd = defined;

    let mut reverse = prefix;
    reverse.extend(rev);
    reverse.extend(suffix);
    let mut body: Block = allocs.iter().map(|v| Stmt::new(StmtKind::Alloc(*v), span)).collect();
    body.push(Stmt::new(StmtKind::Section { title: "forward sweep".into(), body: fwd }, span));
    body.push(Stmt::new(StmtKind::Section { title: "reverse sweep".into(), body: reverse }, span));
    body.extend(allocs.iter().rev().map(|v| Stmt::new(StmtKind::Free(*v), span)));
    body
}
