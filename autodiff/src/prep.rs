//! Normalisation of the primal body before differentiation: sections are flattened (the
//! adjoint has its own), allocations are hoisted (the adjoint allocates everything up
//! front and frees at the end), and constructs the transform cannot handle yet are
//! rejected with a diagnostic pointing at them.

use adjc_ir::{Block, Diagnostic, StmtKind, VarId};

pub(crate) struct Prepared {
    pub body: Block,
    /// Local arrays the primal allocates, in order of first allocation.
    pub allocs: Vec<VarId>,
}

pub(crate) fn prepare(body: &Block) -> Result<Prepared, Diagnostic> {
    let mut allocs = Vec::new();
    let body = go(body, &mut allocs)?;
    Ok(Prepared { body, allocs })
}

fn go(b: &Block, allocs: &mut Vec<VarId>) -> Result<Block, Diagnostic> {
    let mut out = Vec::new();
    for s in b {
        match &s.kind {
            StmtKind::Section { body, .. } => out.extend(go(body, allocs)?),
            StmtKind::Alloc(v) => {
                if !allocs.contains(v) {
                    allocs.push(*v);
                }
            }
            StmtKind::Free(_) => {}
            StmtKind::Push { .. } | StmtKind::Pop { .. } => {
                return Err(Diagnostic::error(s.span, "the primal function already uses tapes (push/pop)"))
            }
            _ => {
                let mut s = s.clone();
                for blk in s.blocks_mut() {
                    *blk = go(blk, allocs)?;
                }
                out.push(s);
            }
        }
    }
    Ok(out)
}
