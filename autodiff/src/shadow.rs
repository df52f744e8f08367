//! Scalar outputs passed by pointer (`double *alpha_b`, `double *ret`) are updated in loops
//! through a local copy, written back once at the end.
//!
//! Why: `(*alpha_b) += ...` inside a loop nest forces the C compiler to load and store
//! through the pointer on every iteration, because it may alias any array argument; in
//! syrk's adjoint that alone made the reverse sweep 9× the forward. A local accumulator
//! stays in a register, and inside a parallel map a `shared` accumulation into a local
//! becomes an OpenMP reduction instead of an atomic.

use adjc_ir::{Block, Expr, Function, Intent, Note, Place, Stmt, StmtKind, Type, VarId, VarRole};

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
        adjc_ir::proc::access::rename(&mut body, v, local);
        let copy_in = Stmt::assign(Place::scalar(local), Expr::var(v, ty), body.first().map_or(f.span, |s| s.span))
            .with_note(Note::LocalCopy { var: var.name.clone() });
        let copy_out = Stmt::assign(Place::scalar(v), Expr::var(local, ty), body.last().map_or(f.span, |s| s.span))
            .with_note(Note::WriteBack { var: var.name.clone() });
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
