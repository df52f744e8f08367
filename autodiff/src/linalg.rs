//! Adjoints of the LAPACK-style library calls (`np.linalg.solve`, `np.linalg.cholesky`),
//! as library calls: the standard matrix adjoints, never a differentiated elimination.
//!
//! | primal | adjoint |
//! |---|---|
//! | `x = A⁻¹ b` (solve) | `t = A⁻ᵀ x_b` (solve on the transposed view), `b_b += t`, `A_b -= t xᵀ` (ger; gemm for a matrix `b`) |
//! | `L = cholesky(A)` | `A_b += Φ-adjoint(L, L_b)` (`cholesky_adjoint`: `P = Φ(Lᵀ L_b)`, `S = L⁻ᵀ P L⁻¹`, the lower triangle of `S + Sᵀ` with `S`'s diagonal) |
//!
//! Like every library call's adjoint, these read the operands as they were before the call
//! (the to-be-recorded analysis saves them if they are overwritten later), not the output:
//! the reverse sweep solves or factors once more (`x` for `A_b`, `L` for `A_b`) instead of
//! taping the factorisation. That costs one more O(n³) factorisation in the reverse sweep
//! and saves the n² factor and its pivots; the temporaries it needs (`t`, the recomputed
//! `x` or `L`) are allocated for the call and freed after it.

use crate::reverse::{Ad, R};
use crate::util::{expr_vars, VarSet};
use adjc_ir::*;

impl Ad<'_> {
    /// Primal variables the adjoint of LAPACK-style call `c` reads: every operand (the
    /// solution or factor is recomputed from them) and the views' indices.
    pub fn ar_lapack(&self, c: &LibCall) -> VarSet {
        let mut out = VarSet::new();
        let s = Stmt::new(StmtKind::Call(c.clone()), Span::NONE);
        s.exprs(&mut |e| out.extend(expr_vars(e)));
        out.extend(c.args.iter().copied());
        out
    }

    /// A temporary array of the reverse sweep with zero-based `extents`.
    fn temp_array(&mut self, base: &str, elem: Scalar, extents: &[Expr], span: Span) -> R<VarId> {
        if extents.iter().any(|e| e.vars().iter().any(|v| !self.f.is_param(*v))) {
            return Err(Diagnostic::error(span, "a linear-algebra call whose extents change inside a loop")
                .with_help("call it on arrays whose shapes depend only on the sizes")
                .into());
        }
        let dims = extents.iter().map(|e| Dim::zero_based(e.clone())).collect();
        let name = self.fresh(base);
        Ok(self.f.add_var(name, Type::Array { elem, dims, layout: Layout::RowMajor }, VarRole::Temp, span))
    }

    /// The reverse-sweep code of LAPACK-style call `c` with an active output (before the
    /// output's adjoint is zeroed).
    pub fn rev_lapack(&mut self, c: &LibCall, span: Span) -> R<Block> {
        let elem = self.elem(c.out);
        let call = |op: LibOp, out: VarId, out_view: View, args: Vec<(VarId, View)>, alpha: f64, beta: f64| {
            let (args, arg_views): (Vec<VarId>, Vec<View>) = args.into_iter().unzip();
            Stmt::new(
                StmtKind::Call(LibCall {
                    op,
                    out,
                    out_view,
                    args,
                    arg_views,
                    alpha: Expr::float(alpha, elem),
                    beta: Expr::float(beta, elem),
                }),
                span,
            )
        };
        let ob = self.adj_of(c.out);
        let vo = c.out_view.clone();
        let oname = self.name(c.out);
        let mut rev = Vec::new();
        match c.op {
            LibOp::Solve => {
                let (a, b) = (c.args[0], c.args[1]);
                let (va, vb) = (c.arg_views[0].clone(), c.arg_views[1].clone());
                let aname = self.name(a);
                let t = self.temp_array(&format!("{oname}_b_solved"), elem, &vo.extents, span)?;
                let tw = View::whole(self.f.var(t).ty.dims());
                rev.push(Stmt::new(StmtKind::Alloc(t), span));
                rev.push(
                    call(LibOp::Solve, t, tw.clone(), vec![(a, va.t()), (ob, vo.clone())], 1.0, 0.0)
                        .with_note(Note::SolveSeed { out: oname.clone(), matrix: aname.clone() }),
                );
                if self.is_active(b) {
                    let bb = self.adj_of(b);
                    let idx: Vec<VarId> = (0..vb.rank()).map(|k| self.copy_index(k)).collect();
                    let ie: Vec<Expr> = idx.iter().map(|i| Expr::var(*i, Scalar::I64)).collect();
                    let value = Expr::load(t, ie.clone(), elem);
                    let body = vec![Stmt::accumulate(Place::element(bb, vb.index_of(&ie)), value, span)];
                    let dims = idx
                        .iter()
                        .zip(&vb.extents)
                        .map(|(i, e)| MapDim { var: *i, start: Expr::int(0), stop: e.clone() })
                        .collect();
                    rev.push(
                        Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims, body }), span).with_note(Note::SolveRhs),
                    );
                }
                if self.is_active(a) {
                    let ab = self.adj_of(a);
                    let x = self.temp_array(&format!("{oname}_again"), elem, &vo.extents, span)?;
                    let xw = View::whole(self.f.var(x).ty.dims());
                    rev.push(Stmt::new(StmtKind::Alloc(x), span));
                    rev.push(
                        call(LibOp::Solve, x, xw.clone(), vec![(a, va.clone()), (b, vb.clone())], 1.0, 0.0)
                            .with_note(Note::SolveAgain { out: oname.clone() }),
                    );
                    let update = if vo.rank() == 1 {
                        call(LibOp::Ger, ab, va.clone(), vec![(t, tw.clone()), (x, xw)], -1.0, 1.0)
                    } else {
                        call(LibOp::Gemm, ab, va.clone(), vec![(t, tw.clone()), (x, xw.t())], -1.0, 1.0)
                    };
                    rev.push(update.with_note(Note::SolveMatrix));
                    rev.push(Stmt::new(StmtKind::Free(x), span));
                }
                rev.push(Stmt::new(StmtKind::Free(t), span));
            }
            LibOp::Cholesky => {
                let a = c.args[0];
                let va = c.arg_views[0].clone();
                if self.is_active(a) {
                    let ab = self.adj_of(a);
                    let l = self.temp_array(&format!("{oname}_again"), elem, &vo.extents, span)?;
                    let lw = View::whole(self.f.var(l).ty.dims());
                    rev.push(Stmt::new(StmtKind::Alloc(l), span));
                    rev.push(
                        call(LibOp::Cholesky, l, lw.clone(), vec![(a, va.clone())], 1.0, 0.0)
                            .with_note(Note::CholeskyAgain { out: oname.clone() }),
                    );
                    rev.push(
                        call(LibOp::CholeskyAdjoint, ab, va, vec![(l, lw), (ob, vo.clone())], 1.0, 1.0)
                            .with_note(Note::LibraryAdjoint { op: LibOp::Cholesky }),
                    );
                    rev.push(Stmt::new(StmtKind::Free(l), span));
                }
            }
            _ => {
                return Err(Diagnostic::error(span, format!("`{}` cannot be differentiated", c.op.name())).into());
            }
        }
        Ok(rev)
    }
}
