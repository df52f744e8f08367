//! Scalar outputs passed by pointer (`double *alpha_b`, `double *ret`) are updated in loops
//! through a local copy, written back once at the end.
//!
//! Why: `(*alpha_b) += ...` inside a loop nest forces the C compiler to load and store
//! through the pointer on every iteration, because it may alias any array argument; in
//! syrk's adjoint that alone made the reverse sweep 9× the forward. A local accumulator
//! stays in a register, and inside a parallel map a `shared` accumulation into a local
//! becomes an OpenMP reduction instead of an atomic.

use adjc_ir::{Block, Expr, ExprKind, Function, Intent, Place, Stmt, StmtKind, Type, VarId, VarRole};

/// Rewrites `f` so that every float scalar parameter with intent `out`/`inout` that is
/// read or written inside a loop or map lives in a local copy during the body.
pub fn shadow_scalar_outputs(f: &Function) -> Function {
    let mut out = f.clone();
    let candidates: Vec<VarId> = f
        .params
        .iter()
        .filter(|p| p.intent != Intent::In)
        .map(|p| p.var)
        .filter(|&v| matches!(f.var(v).ty, Type::Scalar(s) if s.is_float()))
        .filter(|&v| used_in_loop(&f.body, v, false))
        .collect();
    for v in candidates {
        let var = f.var(v).clone();
        let name = out.fresh_name(&format!("{}_acc", var.name));
        let local = out.add_var(name, var.ty.clone(), VarRole::Temp, var.span);
        let ty = var.ty.elem();
        let mut body = std::mem::take(&mut out.body);
        rename_in_block(&mut body, v, local);
        let copy_in = Stmt::assign(Place::scalar(local), Expr::var(v, ty), body.first().map_or(f.span, |s| s.span))
            .with_note(format!("`{}` is updated in loops: work on a local copy", var.name));
        let copy_out = Stmt::assign(Place::scalar(v), Expr::var(local, ty), body.last().map_or(f.span, |s| s.span))
            .with_note(format!("write `{}` back", var.name));
        out.body = std::iter::once(copy_in).chain(body).chain(std::iter::once(copy_out)).collect();
    }
    out
}

fn mentions_stmt(s: &Stmt, v: VarId) -> bool {
    let mut found = s.written_var() == Some(v);
    s.exprs(&mut |e| found |= e.mentions(v));
    if let StmtKind::Call(c) = &s.kind {
        found |= c.args.contains(&v);
    }
    found
}

fn used_in_loop(block: &Block, v: VarId, inside: bool) -> bool {
    block.iter().any(|s| {
        if inside && mentions_stmt(s, v) {
            return true;
        }
        let nested = inside || matches!(s.kind, StmtKind::Loop(_) | StmtKind::Map(_));
        s.blocks().into_iter().any(|b| used_in_loop(b, v, nested))
    })
}

fn rename_expr(e: &Expr, from: VarId, to: VarId) -> Expr {
    e.rewrite(&mut |x| match x.kind {
        ExprKind::Var(v) if v == from => Expr { kind: ExprKind::Var(to), ..x },
        _ => x,
    })
}

fn rename_place(p: &mut Place, from: VarId, to: VarId) {
    if p.var == from {
        p.var = to;
    }
    for i in &mut p.index {
        *i = rename_expr(i, from, to);
    }
}

fn rename_in_block(block: &mut Block, from: VarId, to: VarId) {
    for s in block.iter_mut() {
        match &mut s.kind {
            StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
                rename_place(target, from, to);
                *value = rename_expr(value, from, to);
            }
            StmtKind::Loop(l) => {
                l.start = rename_expr(&l.start, from, to);
                l.stop = rename_expr(&l.stop, from, to);
                l.step = rename_expr(&l.step, from, to);
            }
            StmtKind::Map(m) => {
                for d in &mut m.dims {
                    d.start = rename_expr(&d.start, from, to);
                    d.stop = rename_expr(&d.stop, from, to);
                }
            }
            StmtKind::If { cond, .. } => *cond = rename_expr(cond, from, to),
            StmtKind::Push { value, .. } => *value = rename_expr(value, from, to),
            StmtKind::Pop { target, .. } => rename_place(target, from, to),
            StmtKind::Call(c) => {
                if c.out == from {
                    c.out = to;
                }
                for a in &mut c.args {
                    if *a == from {
                        *a = to;
                    }
                }
                c.alpha = rename_expr(&c.alpha, from, to);
                c.beta = rename_expr(&c.beta, from, to);
            }
            StmtKind::Alloc(_) | StmtKind::Free(_) | StmtKind::Section { .. } => {}
        }
        for b in s.blocks_mut() {
            rename_in_block(b, from, to);
        }
    }
}
