//! `--fixed-point LOOP`: the adjoint of a convergence loop by Christianson's two-phase
//! method instead of the reversal of every iteration taken.
//!
//! A `while` loop `while err > tol: x = g(x, p)` that has converged leaves `x* = g(x*, p)`.
//! The derivative of `x*` is that of the fixed point, not of the iterations that reached
//! it: with `J = ∂g/∂x` and `P = ∂g/∂p` at `x*`, the adjoint `x̄*` of the result gives
//!
//! ```text
//! w = x̄* + Jᵀ w          (the adjoint fixed point)
//! p̄ += Pᵀ w
//! ```
//!
//! The reverse sweep runs the body once more, at the converged state (its forward code,
//! saving what its adjoint reads; the forward sweep runs the loop as written and stores
//! nothing per trip), then, from those same saved values:
//!
//! 1. phase 1, the series `w = Σₖ uₖ` with `u₀ = x̄*`, `uₖ₊₁ = Jᵀ uₖ`: each pass is the
//!    body's adjoint without the statements that add to the adjoints of the loop's
//!    parameters (variables the body reads and does not write). It stops when the
//!    largest element of a term is at most `tol` times that of `x̄*` (`--fixed-point
//!    LOOP:tol=1e-12`), or after `max` passes;
//! 2. phase 2, the whole adjoint body once with the state's adjoint set to `w`: it adds
//!    `Pᵀ w` to the parameters' adjoints. The state's adjoint is then zero: a fixed point
//!    does not depend on where the iteration started.
//!
//! Before every pass the primal variables the adjoint body changes (its restores) get
//! back their values after that one forward run. Memory: one run's saves (plain locals,
//! one per instance of the loop at a time), never one per trip, plus one sum per state
//! variable. Cost: one forward body, then one state adjoint per pass; a Newton iteration
//! has `J = 0` at the root and needs one or two passes.
//!
//! Valid when the forward loop converged to a fixed point and `g` is a contraction near
//! it (spectral radius of `J` below 1). The shape is checked here: the body must assign
//! its loop-carried state from the previous state (not accumulate into a variable whose
//! update does not depend on it, like a running sum of the iterates, which is no fixed
//! point), and run no data-dependent loop of its own; the number of passes is capped
//! (`max=`, default [`DEFAULT_MAX_PASSES`]).

pub use crate::options::{FixedPoint, DEFAULT_MAX_PASSES, DEFAULT_TOL};
use crate::state::{Ad, R};
use crate::util::{block_writes, expr_vars, reads, writes, VarSet};
use adjc_ir::*;

impl Ad<'_> {
    /// Variables whose values after the fixed-point loop `w` its reverse code reads: the
    /// body runs once more at the converged state, so what that run reads before writing
    /// it and what its adjoint needs (a backward slice of the body from the values its
    /// adjoints read; a counter that feeds nothing an adjoint reads is not among them).
    pub(crate) fn ar_fixed_point(&self, w: &While) -> VarSet {
        let mut need = VarSet::new();
        for st in w.body.iter().rev() {
            let wr = writes(st);
            if wr.iter().any(|v| need.contains(v)) {
                if let StmtKind::Assign { target, .. } = &st.kind {
                    if target.is_scalar() {
                        need.remove(&target.var);
                    }
                }
                need.extend(reads(st));
            }
            need.extend(self.ar(st));
        }
        need
    }

    /// Forward and reverse code of the `--fixed-point` loop `w` (statement `s`); `live`:
    /// the live set right before it.
    pub(crate) fn rev_fixed_point(&mut self, s: &Stmt, w: &While, live: &VarSet, fp: FixedPoint) -> R<(Block, Block)> {
        let line = Line::from(s.span);
        self.check_fixed_point(w)?;
        let written = block_writes(&w.body);
        let mut fwd = Vec::new();
        let mut restore_after = Vec::new();
        // Values the loop overwrites that adjoints of earlier statements read.
        for v in written.iter().filter(|v| live.contains(v)) {
            if self.f.var(*v).ty.is_array() {
                return Err(Diagnostic::error(
                    s.span,
                    format!(
                        "--fixed-point {}: the loop overwrites `{}`, whose value before the loop the adjoint of an earlier statement reads",
                        w.id,
                        self.name(*v)
                    ),
                )
                .with_help("copy it before the loop (`x0 = x.copy()`) and iterate on the copy, or drop --fixed-point")
                .into());
            }
            let (save, restore) = self.save_place(&Place::scalar(*v), s.span);
            fwd.push(save);
            restore_after.push(restore);
        }
        fwd.push(Stmt { kind: StmtKind::While(w.clone()), ..s.clone() }.with_note(Note::FixedPointLoop { id: w.id }));
        let (fb, rb) = self.rev_body_once(&w.body)?;
        if rb.is_empty() {
            return Ok((fwd, Vec::new()));
        }
        let mut stack = false;
        walk_stmts(&rb, &mut |x| stack |= matches!(x.kind, StmtKind::Pop { .. }));
        if stack {
            return Err(Diagnostic::error(
                s.span,
                format!("--fixed-point {}: the adjoint of the loop body needs a stack tape (a loop inside it has no closed-form trip count)", w.id),
            )
            .with_help("drop --fixed-point for this loop (the exact reversal handles it)")
            .into());
        }
        for v in &written {
            self.clobber(*v);
        }
        let state: Vec<VarId> = written.iter().copied().filter(|v| self.is_active(*v)).collect();
        let mut rev = fb;
        if let Some(first) = rev.first_mut() {
            let mine = Note::FixedPointBodyOnce { line };
            first.note = Some(match first.note.take() {
                Some(n) => mine.and(n),
                None => mine,
            });
        }
        // What the adjoint pass changes of the primal (restores, recomputations) goes back
        // to its value after that run before every pass.
        let nprimal = self.p.vars.len();
        let mut reset_vars: Vec<VarId> = block_writes(&rb).into_iter().filter(|v| (v.0 as usize) < nprimal).collect();
        reset_vars.sort();
        let mut reset = Vec::new();
        for v in reset_vars {
            if self.f.var(v).ty.is_array() {
                let copy = self.local_like(v, "_fp", VarRole::Temp);
                rev.push(self.copy_map(copy, v, s.span));
                reset.push(self.copy_map(v, copy, s.span));
            } else {
                let ty = self.elem(v);
                let name = self.fresh(&format!("{}_fp", self.name(v)));
                let copy = self.f.add_var(name, Type::Scalar(ty), VarRole::Temp, s.span);
                rev.push(Stmt::assign(Place::scalar(copy), Expr::var(v, ty), s.span));
                reset.push(Stmt::assign(Place::scalar(v), Expr::var(copy, ty), s.span));
            }
        }
        // Phase 1: u_0 = x_b, u_{k+1} = J^T u_k (the adjoint body without what it adds to
        // the adjoints of the loop's parameters), summed into `sum` until small.
        let state_pass = self.state_part(&rb, &written);
        let norm0 = self.scalar_temp("fp_seed", Scalar::F64, s.span);
        let norm = self.scalar_temp("fp_norm", Scalar::F64, s.span);
        let passes = self.scalar_temp("fp_passes", Scalar::I64, s.span);
        let mut sums = Vec::new();
        for v in &state {
            let vb = self.adj_of(*v);
            let sum = if self.f.var(vb).ty.is_array() {
                self.local_like(vb, "_sum", VarRole::Temp)
            } else {
                let ty = self.elem(vb);
                let name = self.fresh(&format!("{}_sum", self.name(vb)));
                self.f.add_var(name, Type::Scalar(ty), VarRole::Temp, s.span)
            };
            sums.push((vb, sum));
        }
        let measure = |ad: &mut Self, into: VarId| -> Block {
            let mut b = vec![Stmt::assign(Place::scalar(into), Expr::float(0.0, Scalar::F64), s.span)];
            for v in &state {
                let vb = ad.adj_of(*v);
                b.push(ad.max_abs_into(into, vb, s.span));
            }
            b
        };
        let mut m0 = measure(self, norm0);
        if let Some(st) = m0.first_mut() {
            st.note = Some(Note::FixedPointSeries { id: w.id, tol: fp.tol });
        }
        rev.extend(m0);
        for (_, sum) in &sums {
            rev.push(self.fill(*sum, None, s.span));
        }
        rev.push(Stmt::assign(Place::scalar(norm), Expr::var(norm0, Scalar::F64), s.span));
        rev.push(Stmt::assign(Place::scalar(passes), Expr::int(0), s.span));
        let mut body = Vec::new();
        for (vb, sum) in &sums {
            body.push(self.add_into(*sum, *vb, s.span));
        }
        body.extend(reset.iter().cloned());
        body.extend(state_pass);
        body.extend(measure(self, norm));
        body.push(Stmt::new(
            StmtKind::Accumulate { target: Place::scalar(passes), op: AccOp::Add, value: Expr::int(1), shared: false },
            s.span,
        ));
        let goal = Expr::var(norm0, Scalar::F64).mul(Expr::float(fp.tol, Scalar::F64));
        let cond = Expr::binary(
            BinOp::And,
            Expr::binary(BinOp::Gt, Expr::var(norm, Scalar::F64), goal.clone()),
            Expr::binary(BinOp::Lt, Expr::var(passes, Scalar::I64), Expr::int(fp.max_passes as i64)),
        );
        rev.push(
            Stmt::new(StmtKind::While(While { id: LoopId::NEW, cond, body }), s.span)
                .with_note(Note::SeriesTerms { max_passes: fp.max_passes }),
        );
        // Passes exhausted before the terms became small: the sum is not the fixed point.
        rev.push(
            Stmt::new(
                StmtKind::If {
                    cond: Expr::binary(BinOp::Gt, Expr::var(norm, Scalar::F64), goal.clone()),
                    then_body: vec![Stmt::new(StmtKind::Fail(Failure::NotConverged), s.span)],
                    else_body: Vec::new(),
                },
                s.span,
            )
            .with_note(Note::NoConvergence { max_passes: fp.max_passes }),
        );
        // Phase 2: w = the sum; p_b += P^T w by the whole adjoint body once.
        let mut w_is_sum = Vec::new();
        for (vb, sum) in &sums {
            w_is_sum.push(self.add_into(*vb, *sum, s.span));
        }
        if let Some(st) = w_is_sum.first_mut() {
            st.note = Some(Note::SeriesSum);
        }
        rev.extend(w_is_sum);
        let mut last = reset;
        last.extend(rb);
        if let Some(st) = last.first_mut() {
            st.note = Some(match st.note.take() {
                Some(n) => Note::AdjointBodyWithSum.and(n),
                None => Note::AdjointBodyWithSum,
            });
        }
        rev.extend(last);
        // The fixed point does not depend on the state the iteration started from.
        let mut zero = Vec::new();
        for (vb, _) in &sums {
            zero.push(self.fill(*vb, None, s.span));
        }
        if let Some(st) = zero.first_mut() {
            st.note = Some(Note::FixedPointIndependent);
        }
        rev.extend(zero);
        rev.extend(restore_after);
        Ok((fwd, rev))
    }

    /// `rb` without the statements that write the adjoints of variables the loop body
    /// does not write (the loop's parameters): what maps the state's adjoint `u` to
    /// `(dg/dx)^T u`. Those adjoints are only ever incremented, and nothing in `rb` reads
    /// them.
    fn state_part(&self, rb: &Block, written: &VarSet) -> Block {
        let param_adjoint = |v: VarId| match self.f.var(v).role {
            VarRole::Adjoint(p) => !written.contains(&p),
            _ => false,
        };
        fn strip(b: &Block, drop: &dyn Fn(VarId) -> bool) -> Block {
            let mut out = Vec::new();
            for s in b {
                let keep = match &s.kind {
                    StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } => !drop(target.var),
                    StmtKind::Call(c) => !drop(c.out),
                    _ => true,
                };
                if !keep {
                    continue;
                }
                let mut s = s.clone();
                for inner in s.blocks_mut() {
                    *inner = strip(inner, drop);
                }
                let empty = match &s.kind {
                    StmtKind::Loop(l) => l.body.is_empty(),
                    StmtKind::Map(m) => m.body.is_empty(),
                    StmtKind::Section { body, .. } => body.is_empty(),
                    StmtKind::If { then_body, else_body, .. } => then_body.is_empty() && else_body.is_empty(),
                    _ => false,
                };
                if !empty {
                    out.push(s);
                }
            }
            out
        }
        strip(rb, &param_adjoint)
    }

    /// `x = 0` (or `x = value`), over every element of an array.
    fn fill(&mut self, x: VarId, value: Option<Expr>, span: Span) -> Stmt {
        let ty = self.elem(x);
        let v = value.unwrap_or_else(|| Expr::float(0.0, ty));
        if !self.f.var(x).ty.is_array() {
            return Stmt::assign(Place::scalar(x), v, span);
        }
        let (dims, idx) = self.full_space(x);
        Stmt::new(
            StmtKind::Map(Map { id: MapId::NEW, dims, body: vec![Stmt::assign(Place::element(x, idx), v, span)] }),
            span,
        )
    }

    /// `dst += src`, element by element.
    fn add_into(&mut self, dst: VarId, src: VarId, span: Span) -> Stmt {
        let ty = self.elem(src);
        if !self.f.var(dst).ty.is_array() {
            return Stmt::new(
                StmtKind::Accumulate {
                    target: Place::scalar(dst),
                    op: AccOp::Add,
                    value: Expr::var(src, ty),
                    shared: false,
                },
                span,
            );
        }
        let (dims, idx) = self.full_space(src);
        let body = Stmt::new(
            StmtKind::Accumulate {
                target: Place::element(dst, idx.clone()),
                op: AccOp::Add,
                value: Expr::load(src, idx, ty),
                shared: false,
            },
            span,
        );
        Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims, body: vec![body] }), span)
    }

    fn scalar_temp(&mut self, base: &str, ty: Scalar, span: Span) -> VarId {
        let name = self.fresh(base);
        self.f.add_var(name, Type::Scalar(ty), VarRole::Temp, span)
    }

    /// `into = max(into, |x|)` over every element of `x`.
    fn max_abs_into(&mut self, into: VarId, x: VarId, span: Span) -> Stmt {
        let ty = self.elem(x);
        let magnitude = |e: Expr| {
            let a = Expr::call(Intrinsic::Abs, vec![e], ty);
            if ty == Scalar::F64 {
                a
            } else {
                a.cast(Scalar::F64)
            }
        };
        if !self.f.var(x).ty.is_array() {
            let v = magnitude(Expr::var(x, ty));
            return Stmt::new(
                StmtKind::Accumulate { target: Place::scalar(into), op: AccOp::Max, value: v, shared: false },
                span,
            );
        }
        let (dims, idx) = self.full_space(x);
        let v = magnitude(Expr::load(x, idx, ty));
        let inner = Stmt::new(
            StmtKind::Accumulate { target: Place::scalar(into), op: AccOp::Max, value: v, shared: false },
            span,
        );
        dims.into_iter().rev().fold(inner, |b, d| {
            Stmt::new(
                StmtKind::Loop(Loop {
                    id: LoopId::NEW,
                    var: d.var,
                    start: d.start,
                    stop: d.stop,
                    step: Expr::int(1),
                    body: vec![b],
                }),
                span,
            )
        })
    }

    /// The shape `--fixed-point` needs: a body that recomputes its state from the previous
    /// one, with no data-dependent loop inside.
    fn check_fixed_point(&self, w: &While) -> Result<(), Diagnostic> {
        let refuse = |span: Span, what: String, help: &str| {
            Err(Diagnostic::error(span, format!("--fixed-point {}: {what}", w.id)).with_help(help.to_string()))
        };
        let mut inner = None;
        walk_stmts(&w.body, &mut |x| {
            if matches!(x.kind, StmtKind::While(_)) && inner.is_none() {
                inner = Some(x.span);
            }
        });
        if let Some(sp) = inner {
            return refuse(
                sp,
                "the loop body holds another data-dependent loop".into(),
                "apply --fixed-point to the inner loop, or drop it (the exact reversal handles nested loops)",
            );
        }
        let written = block_writes(&w.body);
        if !written.iter().any(|v| self.is_active(*v)) {
            return Ok(());
        }
        // Variables whose value depends on the loop-carried state through the body.
        for v in written.iter().filter(|v| self.is_active(**v)) {
            let mut assigned = false;
            let mut acc: Option<(Span, Expr)> = None;
            walk_stmts(&w.body, &mut |x| match &x.kind {
                StmtKind::Assign { target, .. } if target.var == *v => assigned = true,
                StmtKind::Accumulate { target, value, op: AccOp::Add, .. } if target.var == *v && acc.is_none() => {
                    acc = Some((x.span, value.clone()))
                }
                _ => {}
            });
            let Some((span, value)) = acc else { continue };
            if assigned || self.depends_on(&w.body, &value, *v) {
                continue;
            }
            return refuse(
                span,
                format!(
                    "`{}` accumulates a value that does not depend on it at every trip: the loop is not a fixed-point iteration of its state",
                    self.name(*v)
                ),
                "use --fixed-point only on loops `x = g(x, p)` that converge to a fixed point; drop it for the exact reversal",
            );
        }
        Ok(())
    }

    /// Whether `e` depends on `v` through the assignments of `body` (any order: the body
    /// repeats).
    fn depends_on(&self, body: &Block, e: &Expr, v: VarId) -> bool {
        let mut dep: VarSet = [v].into_iter().collect();
        loop {
            let before = dep.len();
            walk_stmts(body, &mut |x| match &x.kind {
                StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. }
                    if expr_vars(value).iter().any(|u| dep.contains(u)) =>
                {
                    dep.insert(target.var);
                }
                _ => {}
            });
            if dep.len() == before {
                break;
            }
        }
        expr_vars(e).iter().any(|u| dep.contains(u))
    }
}
