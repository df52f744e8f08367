//! Adjoints of library calls, as library calls (what Enzyme does for BLAS, and what an
//! expert writes by hand):
//!
//! | primal | adjoint |
//! |---|---|
//! | `C = α A·B + β C` (gemm) | `A_b += α C_b·Bᵀ`, `B_b += α Aᵀ·C_b` (gemm, β = 1), `C_b *= β` |
//! | `y = α A·x + β y` (gemv) | `A_b += α y_b ⊗ x` (ger), `x_b += α Aᵀ·y_b` (gemv), `y_b *= β` |
//! | `s = α x·y + β s` (dot) | `x_b += α s_b y`, `y_b += α s_b x` (maps), `s_b *= β` |
//! | `s = α x·x + β s` (dot of a vector with itself) | `x_b += 2 α s_b x` (one map), `s_b *= β` |
//! | `C += α x ⊗ y` (ger) | `x_b += α C_b·y`, `y_b += α C_bᵀ·x` (gemv) |
//!
//! Transposes are views with reversed axes, so no operand is copied. Inactive operands get
//! no adjoint call. `β` must be passive; an active `α` (`alpha * A @ x` with `alpha`
//! differentiated) gets `α_b += ∂α/∂v ⟨C_b, op(A)·op(B)⟩`, summed by a loop nest. The old value of the output is never read by these adjoints, and the operands
//! are read as they were before the call. When the output overwrites a value some adjoint
//! still needs, a scalar output (`dot`) is taped like any scalar assignment and an array
//! output region like the region a map overwrites (one slot per iteration of the loops
//! around the call, so `h = tanh(W @ h + b)` in a loop saves each step's `W @ h`).

use crate::reverse::{Ad, R};
use crate::util::{expr_vars, same_index, VarSet};
use adjc_ir::*;

impl Ad<'_> {
    /// Primal variables the adjoint of library call `c` reads.
    pub fn ar_call(&self, c: &LibCall) -> VarSet {
        let mut out = VarSet::new();
        if !self.is_active(c.out) {
            return out;
        }
        if c.op.is_lapack() {
            return self.ar_lapack(c);
        }
        let s = Stmt::new(StmtKind::Call(c.clone()), Span::NONE);
        s.exprs(&mut |e| out.extend(expr_vars(e)));
        // Each argument's adjoint reads the other argument; an active scale factor's reads both.
        let alpha_active = expr_vars(&c.alpha).iter().any(|v| self.is_active(*v));
        for (k, a) in c.args.iter().enumerate() {
            let other = c.args[1 - k];
            if self.is_active(other) || alpha_active {
                out.insert(*a);
            }
        }
        out
    }

    /// Forward and reverse code of a library call.
    pub fn rev_call(&mut self, s: &Stmt, c: &LibCall, live: &VarSet) -> R<(Block, Block)> {
        let mut fwd = Vec::new();
        let mut rev = Vec::new();
        let name = self.name(c.out);
        let needed = live.contains(&c.out) || self.ar_call(c).contains(&c.out);
        if needed && c.out_view.rank() == 0 && self.f.var(c.out).ty.rank() == 0 {
            // A scalar result (dot) overwrites a value still needed: taped like `s = e`.
            let (push, pop) = self.save_place(&Place::scalar(c.out), s.span);
            fwd.push(push);
            rev.push(pop);
        } else if needed && c.out_view.rank() == 0 {
            return Err(Diagnostic::error(
                s.span,
                format!("`{name}` = {}(...) overwrites values of `{name}` that the adjoint still needs", c.op.name()),
            )
            .with_help("write the product into a new array")
            .into());
        } else if needed {
            // The output region is taped like the region a map overwrites (a slot per
            // iteration of the loops around it, or a stack), seen as the map that writes
            // each element of the view once.
            let idx: Vec<VarId> = (0..c.out_view.rank()).map(|k| self.copy_index(k)).collect();
            let ie: Vec<Expr> = idx.iter().map(|i| Expr::var(*i, Scalar::I64)).collect();
            let ty = self.elem(c.out);
            let write = Stmt::assign(Place::element(c.out, c.out_view.index_of(&ie)), Expr::float(0.0, ty), s.span);
            let dims = idx
                .iter()
                .zip(&c.out_view.extents)
                .map(|(i, e)| MapDim { var: *i, start: Expr::int(0), stop: e.clone() })
                .collect();
            let m = Map { id: MapId::NEW, dims, body: vec![write] };
            let (save, restore) = self.region_tape(c.out, s, &m);
            fwd.extend(save);
            rev.extend(restore);
        }
        fwd.push(s.clone());
        if !self.is_active(c.out) {
            return Ok((fwd, rev));
        }
        if expr_vars(&c.beta).iter().any(|v| self.is_active(*v)) {
            return Err(Diagnostic::error(
                s.span,
                format!("the scale factor `beta` of `{}` depends on the differentiated inputs", c.op.name()),
            )
            .into());
        }
        let span = s.span;
        if c.op.is_lapack() {
            rev.extend(self.rev_lapack(c, span)?);
            let (ob, vo) = (self.adj_of(c.out), c.out_view.clone());
            rev.extend(self.scale_view(ob, &vo, &Expr::float(0.0, self.elem(c.out)), span));
            return Ok((fwd, rev));
        }
        let ob = self.adj_of(c.out);
        let vo = c.out_view.clone();
        let [a, b] = [c.args[0], c.args[1]];
        let [va, vb] = [c.arg_views[0].clone(), c.arg_views[1].clone()];
        let alpha = c.alpha.clone();
        let one = Expr::float(1.0, alpha.ty);
        let lib = |op, out, out_view, args: [(VarId, View); 2]| {
            let [(a0, v0), (a1, v1)] = args;
            Stmt::new(
                StmtKind::Call(LibCall {
                    op,
                    out,
                    out_view,
                    args: vec![a0, a1],
                    arg_views: vec![v0, v1],
                    alpha: alpha.clone(),
                    beta: one.clone(),
                }),
                span,
            )
            .with_note(Note::LibraryAdjoint { op: c.op })
        };
        let act = [self.is_active(a), self.is_active(b)];
        let adj = [if act[0] { Some(self.adj_of(a)) } else { None }, if act[1] { Some(self.adj_of(b)) } else { None }];
        match c.op {
            LibOp::Gemm => {
                if let Some(ab) = adj[0] {
                    rev.push(lib(LibOp::Gemm, ab, va.clone(), [(ob, vo.clone()), (b, vb.t())]));
                }
                if let Some(bb) = adj[1] {
                    rev.push(lib(LibOp::Gemm, bb, vb.clone(), [(a, va.t()), (ob, vo.clone())]));
                }
            }
            LibOp::Gemv => {
                if let Some(ab) = adj[0] {
                    rev.push(lib(LibOp::Ger, ab, va.clone(), [(ob, vo.clone()), (b, vb.clone())]));
                }
                if let Some(xb) = adj[1] {
                    rev.push(lib(LibOp::Gemv, xb, vb.clone(), [(a, va.t()), (ob, vo.clone())]));
                }
            }
            LibOp::Ger => {
                if let Some(xb) = adj[0] {
                    rev.push(lib(LibOp::Gemv, xb, va.clone(), [(ob, vo.clone()), (b, vb.clone())]));
                }
                if let Some(yb) = adj[1] {
                    rev.push(lib(LibOp::Gemv, yb, vb.clone(), [(ob, vo.t()), (a, va.clone())]));
                }
            }
            LibOp::Dot => {
                // The output may be an element of an array (a rank-0 view).
                let mut seed = Place::element(ob, vo.index_of(&[])).to_expr(self.elem(ob)).mul(alpha.clone());
                // `x · x`: one update `x_b += 2 α s_b x` instead of two identical ones.
                let square = a == b
                    && va.axes == vb.axes
                    && same_index(&va.start, &vb.start)
                    && same_index(&va.extents, &vb.extents);
                if square {
                    seed = Expr::float(2.0, alpha.ty).mul(seed);
                }
                for (k, (x, vx)) in [(a, &va), (b, &vb)].into_iter().enumerate() {
                    let Some(xb) = adj[k] else { continue };
                    if square && k == 1 {
                        continue;
                    }
                    let (y, vy) = if k == 0 { (b, &vb) } else { (a, &va) };
                    let i = self.copy_index(0);
                    let ie = Expr::var(i, Scalar::I64);
                    let ty = self.elem(x);
                    let value = seed.clone().mul(Expr::load(y, vy.index_of(std::slice::from_ref(&ie)), ty));
                    let body = vec![Stmt::accumulate(Place::element(xb, vx.index_of(&[ie])), value, span)];
                    let dims = vec![MapDim { var: i, start: Expr::int(0), stop: vx.extents[0].clone() }];
                    // Commented with its formula in the source's notation (`x_b += s_b * y`).
                    let alpha_txt = match alpha.as_float() {
                        Some(v) if v == 1.0 && alpha.is_const() => None,
                        _ => Some(adjc_ir::print::expr_str(&self.f, &alpha)),
                    };
                    let sb =
                        adjc_ir::print::expr_str(&self.f, &Place::element(ob, vo.index_of(&[])).to_expr(self.elem(ob)));
                    let note = Note::DotAdjoint {
                        target: slice_text(&self.f, xb, vx),
                        square,
                        alpha: alpha_txt,
                        seed: sb,
                        other: slice_text(&self.f, y, vy),
                    };
                    rev.push(Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims, body }), span).with_note(note));
                }
            }
            // Handled by `rev_lapack` above.
            LibOp::Solve | LibOp::Cholesky | LibOp::CholeskyAdjoint => {}
        }
        rev.extend(self.alpha_adjoint(c, span));
        rev.extend(self.scale_view(ob, &vo, &c.beta, span));
        Ok((fwd, rev))
    }

    /// The adjoint of an active scale factor: `alpha_b += ∂alpha/∂v · ⟨out_b, op(args)⟩`
    /// for every active `v` that `alpha` reads, the inner product summed by a loop nest
    /// over the output and the contracted index (no temporary array).
    fn alpha_adjoint(&mut self, c: &LibCall, span: Span) -> Block {
        let partials = self.partials(&c.alpha);
        if partials.is_empty() {
            return Vec::new();
        }
        let ty = self.elem(c.out);
        let ob = self.adj_of(c.out);
        let (a, b) = (c.args[0], c.args[1]);
        let (va, vb, vo) = (&c.arg_views[0], &c.arg_views[1], &c.out_view);
        let (p, q, k) = (self.copy_index(0), self.copy_index(1), self.copy_index(2));
        let [pe, qe, ke] = [p, q, k].map(|v| Expr::var(v, Scalar::I64));
        // Output indices, indices of each argument, and the loops of the nest (outermost first).
        let (io, ia, ib, loops) = match c.op {
            LibOp::Gemm => (
                vec![pe.clone(), qe.clone()],
                vec![pe, ke.clone()],
                vec![ke, qe],
                vec![(p, vo.extents[0].clone()), (q, vo.extents[1].clone()), (k, va.extents[1].clone())],
            ),
            LibOp::Gemv => (
                vec![pe.clone()],
                vec![pe, ke.clone()],
                vec![ke],
                vec![(p, vo.extents[0].clone()), (k, va.extents[1].clone())],
            ),
            LibOp::Dot => (vec![], vec![ke.clone()], vec![ke], vec![(k, va.extents[0].clone())]),
            LibOp::Ger => (
                vec![pe.clone(), qe.clone()],
                vec![pe],
                vec![qe],
                vec![(p, vo.extents[0].clone()), (q, vo.extents[1].clone())],
            ),
            LibOp::Solve | LibOp::Cholesky | LibOp::CholeskyAdjoint => return Vec::new(),
        };
        let name = format!("{}_b", self.name(c.out));
        let t = self.temp(&format!("{name}_scale"), ty, false);
        let te = Expr::var(t, ty);
        let value = Place::element(ob, vo.index_of(&io))
            .to_expr(ty)
            .mul(Expr::load(a, va.index_of(&ia), ty))
            .mul(Expr::load(b, vb.index_of(&ib), ty));
        let mut body = vec![Stmt::new(
            StmtKind::Accumulate { target: Place::scalar(t), op: AccOp::Add, value, shared: false },
            span,
        )];
        for (v, stop) in loops.into_iter().rev() {
            let l = Loop { id: LoopId::NEW, var: v, start: Expr::int(0), stop, step: Expr::int(1), body };
            body = vec![Stmt::new(StmtKind::Loop(l), span)];
        }
        let mut out = vec![Stmt::assign(Place::scalar(t), Expr::float(0.0, ty), span)
            .with_note(Note::ScaleFactorAdjoint { op: c.op, product: name.clone() })];
        out.extend(body);
        for p in &partials {
            out.push(self.contribution(p, &te, span));
        }
        out
    }

    /// `X_b[view] *= beta` (nothing when `beta` is 1, zeroing when it is 0).
    fn scale_view(&mut self, xb: VarId, v: &View, beta: &Expr, span: Span) -> Block {
        if beta.as_float() == Some(1.0) {
            return Vec::new();
        }
        let ty = self.elem(xb);
        let idx: Vec<VarId> = (0..v.rank()).map(|k| self.copy_index(k)).collect();
        let ie: Vec<Expr> = idx.iter().map(|i| Expr::var(*i, Scalar::I64)).collect();
        let place = Place::element(xb, v.index_of(&ie));
        let value =
            if beta.as_float() == Some(0.0) { Expr::float(0.0, ty) } else { place.to_expr(ty).mul(beta.clone()) };
        let assign = Stmt::assign(place, value, span);
        if v.rank() == 0 {
            return vec![assign];
        }
        let dims =
            idx.iter().zip(&v.extents).map(|(i, e)| MapDim { var: *i, start: Expr::int(0), stop: e.clone() }).collect();
        vec![Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims, body: vec![assign] }), span)]
    }
}

/// `A`, `A[i, :j]`, `x[1:n]`: a view of one axis in NumPy notation, for the formula of a
/// dot product's adjoint (`emit/src/formula.rs` writes those of the calls).
fn slice_text(f: &Function, v: VarId, view: &View) -> String {
    let name = f.var(v).name.clone();
    let Type::Array { dims, .. } = &f.var(v).ty else { return name };
    let str = |e: &Expr| adjc_ir::print::expr_str(f, e);
    let mut parts = Vec::new();
    let mut whole = true;
    for (d, dim) in dims.iter().enumerate() {
        let start = view.start.get(d).cloned().unwrap_or_else(|| dim.lower.clone());
        match view.axes.iter().position(|&x| x == d) {
            Some(k) => {
                let extent = view.extents.get(k).cloned().unwrap_or_else(|| dim.extent.clone());
                let (lo, ext) = (str(&start), str(&extent));
                if lo == str(&dim.lower) && ext == str(&dim.extent) {
                    parts.push(":".to_string());
                } else {
                    whole = false;
                    let stop = str(&start.clone().add(extent));
                    let lo = if lo == "0" { String::new() } else { lo };
                    parts.push(format!("{lo}:{stop}"));
                }
            }
            None => {
                whole = false;
                parts.push(str(&start));
            }
        }
    }
    if whole {
        name
    } else {
        format!("{name}[{}]", parts.join(", "))
    }
}
