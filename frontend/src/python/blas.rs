//! Matrix products as library calls (`gemm`, `gemv`, `dot`) on views of the operands,
//! when the whole chain can take them; else the caller falls back to loops.
//!
//! A call is emitted when every operand is a NumPy view of one float variable with
//! unit-step slices, possibly times a literal or (in a gemv or dot) a scalar, folded into
//! `alpha` (`alpha * A @ x` is one gemv: the scaled matrix is never formed), or, at the top
//! level, any element-wise value (computed into a temporary first, so `alpha * A @ B` is a
//! scaling map and a gemm; a float32 operand of a float64 product is cast into one, as
//! NumPy promotes it); a matrix operand runs along its variable's contiguous axis (any
//! other strides become leading dimensions or increments), and the output does not alias
//! an operand. Calls may sit inside loops: when a later iteration overwrites an output the
//! adjoint still needs, autodiff tapes the output region. Stacks of matrices (`@` on rank
//! 3+) are a loop of gemms, one per matrix, when both stacks have the same stack extents
//! (or the right operand is one matrix); broadcast stacks stay loops.

use super::lower::{Lowerer, R};
use super::value::*;
use crate::irutil::has_unit_axis;
use crate::sym::Lin;
use adjc_ir::*;

/// The variable and view of an operand, when it is a plain load of one variable with
/// unit-step indices.
pub(super) fn view_of(arr: &Arr, f: &Function, length: &dyn Fn(&Expr) -> Expr) -> Option<(VarId, View)> {
    let ExprKind::Load(var, idx) = &arr.tmpl.kind else { return None };
    let var = *var;
    if !arr.elem.is_float() || f.var(var).ty.elem() != arr.elem {
        return None;
    }
    let mut axes: Vec<Option<usize>> = vec![None; arr.rank()];
    let mut start = Vec::new();
    for (d, ix) in idx.iter().enumerate() {
        let mut l = Lin::from_expr(ix);
        let phs: Vec<VarId> = l.vars().into_iter().filter(|v| ph_index(*v).is_some()).collect();
        let mentions_ph = {
            let mut m = false;
            ix.walk(&mut |e| m |= matches!(e.kind, ExprKind::Var(v) if ph_index(v).is_some()));
            m
        };
        match phs.as_slice() {
            [] if !mentions_ph => start.push(ix.clone()),
            [p] if !l.has_opaque() && l.coeff(*p) == 1 => {
                let k = ph_index(*p)?;
                if axes.get(k)?.is_some() {
                    return None;
                }
                axes[k] = Some(d);
                l.take(*p);
                start.push(crate::sym::canon(&l.to_expr()));
            }
            _ => return None,
        }
    }
    let axes: Option<Vec<usize>> = axes.into_iter().collect();
    Some((var, View { start, axes: axes?, extents: arr.shape.iter().map(length).collect() }))
}

/// A factor of an operand folded into the call's `alpha`: a literal, or a scalar
/// expression of the product's type that reads no array (`alpha` in `alpha * A @ x`), so
/// that the scaled matrix is never computed.
enum Factor {
    Lit(f64),
    Scalar(Expr),
}

/// `c * X` with a scalar factor `c` and a view `X`: the factor and `X`.
fn split_factor(arr: &Arr) -> Option<(Factor, Arr)> {
    let ExprKind::Binary(BinOp::Mul, x, y) = &arr.tmpl.kind else { return None };
    let scalar = |e: &Expr| {
        let mut plain = e.ty == arr.elem;
        e.walk(&mut |x| {
            plain &= match &x.kind {
                ExprKind::Var(v) => ph_index(*v).is_none(),
                ExprKind::Load(..) => false,
                _ => true,
            }
        });
        plain
    };
    let (c, rest) = match (x.as_float(), y.as_float()) {
        (Some(c), None) => (Factor::Lit(c), y),
        (None, Some(c)) => (Factor::Lit(c), x),
        _ if scalar(x) && !scalar(y) => (Factor::Scalar((**x).clone()), y),
        _ if scalar(y) && !scalar(x) => (Factor::Scalar((**y).clone()), x),
        _ => return None,
    };
    Some((c, Arr { tmpl: (**rest).clone(), ..arr.clone() }))
}

/// Where an operand comes from.
enum Src {
    /// A view of a variable, scaled by a factor.
    View(VarId, View, Factor),
    /// An element-wise expression computed into a temporary first (top level only).
    Temp,
}

impl Lowerer<'_> {
    /// Not inside a loop or branch. (Products are always computed at statement level,
    /// before any map of the statement is built, so they are never inside a map body.)
    pub(super) fn at_top_level(&self) -> bool {
        self.blocks.len() == 1
    }

    /// How operand `arr` reaches a product computed in `elem`. An operand of another float
    /// type (float32 data in a float64 product: NumPy promotes it) is cast into a temporary.
    /// `scalar_ok`: a non-literal factor may become `alpha` (not for gemm: the adjoint of an
    /// active `alpha` would be a triple loop there, where the scaled temporary costs a map).
    fn src_of(&self, arr: &Arr, top: bool, elem: Scalar, scalar_ok: bool) -> Option<Src> {
        if arr.elem != elem {
            return (top && arr.elem.is_float()).then_some(Src::Temp);
        }
        if let Some((v, w)) = view_of(arr, &self.f, &|e| self.length(e)) {
            return Some(Src::View(v, w, Factor::Lit(1.0)));
        }
        if let Some((c, x)) = split_factor(arr).filter(|(c, _)| scalar_ok || matches!(c, Factor::Lit(_))) {
            if let Some((v, w)) = view_of(&x, &self.f, &|e| self.length(e)) {
                return Some(Src::View(v, w, c));
            }
        }
        (top && arr.elem.is_float()).then_some(Src::Temp)
    }

    /// `a @ b` into `dest` (an array view), or into the scalar variable `scalar` (a dot),
    /// as one library call; `false` when it must stay loops (nothing is emitted then).
    pub fn matmul_call(&mut self, a: &Arr, b: &Arr, dest: Option<&Arr>, scalar: Option<VarId>) -> R<bool> {
        let (out, out_view) = match (dest, scalar) {
            (Some(d), _) => match view_of(d, &self.f, &|e| self.length(e)) {
                Some(x) => x,
                None => return Ok(false),
            },
            (None, Some(s)) => (s, View::scalar()),
            (None, None) => return Ok(false),
        };
        let elem = self.f.var(out).ty.elem();
        if !elem.is_float() || a.elem.max(b.elem) != elem {
            return Ok(false);
        }
        if (a.rank() >= 3 && b.rank() == a.rank()) || (a.rank() == 2 && b.rank() >= 3) {
            return match dest {
                Some(d) if d.rank() == b.rank() => self.batched_matmul_call(a, b, d),
                _ => Ok(false),
            };
        }
        if a.rank() >= 3 && b.rank() == 2 {
            return match dest {
                Some(d) if d.rank() == a.rank() => self.stack_matmul_call(a, b, d),
                _ => Ok(false),
            };
        }
        let op = match (a.rank(), b.rank(), out_view.rank()) {
            (2, 2, 2) => LibOp::Gemm,
            (2, 1, 1) | (1, 2, 1) => LibOp::Gemv,
            (1, 1, 0) => LibOp::Dot,
            _ => return Ok(false),
        };
        let top = self.at_top_level();
        let scalar_ok = op != LibOp::Gemm;
        let (Some(sa), Some(sb)) = (self.src_of(a, top, elem, scalar_ok), self.src_of(b, top, elem, scalar_ok)) else {
            return Ok(false);
        };
        for s in [&sa, &sb] {
            if let Src::View(v, w, _) = s {
                if *v == out || (w.rank() == 2 && !has_unit_axis(&self.f, *v, w)) {
                    return Ok(false);
                }
            }
        }
        if out_view.rank() == 2 && !has_unit_axis(&self.f, out, &out_view) {
            return Ok(false);
        }
        let mut alpha = 1.0;
        let mut factors: Vec<Expr> = Vec::new();
        let mut operands = Vec::new();
        for (s, arr) in [(sa, a), (sb, b)] {
            match s {
                Src::View(v, w, c) => {
                    match c {
                        Factor::Lit(c) => alpha *= c,
                        Factor::Scalar(e) => factors.push(e),
                    }
                    operands.push((v, w));
                }
                Src::Temp => {
                    // The operand computed for the call: named after what it is made of.
                    let name = super::var_names::copy_name(&arr.text);
                    let t = self.new_array(&name, elem, &arr.shape, &arr.bounds, VarRole::Temp)?;
                    self.emit_store_map(&t, arr.tmpl.clone().cast(elem), false)?;
                    match view_of(&t, &self.f, &|e| self.length(e)) {
                        Some(x) => operands.push(x),
                        None => return Err(self.err(self.span, "internal: a temporary is not a view")),
                    }
                }
            }
        }
        let (vb, wb) = operands.pop().ok_or_else(|| self.err(self.span, "internal"))?;
        let (va, wa) = operands.pop().ok_or_else(|| self.err(self.span, "internal"))?;
        let alpha = match factors.into_iter().reduce(|x, y| x.mul(y)) {
            None => Expr::float(alpha, elem),
            Some(f) if alpha == 1.0 => f,
            Some(f) => Expr::float(alpha, elem).mul(f),
        };
        // `x @ B` is `B.T @ x`.
        let (args, views) = if wa.rank() == 1 && wb.rank() == 2 {
            (vec![vb, va], vec![wb.t(), wa])
        } else {
            (vec![va, vb], vec![wa, wb])
        };
        self.emit_kind(StmtKind::Call(LibCall {
            op,
            out,
            out_view,
            args,
            arg_views: views,
            alpha,
            beta: Expr::float(0.0, elem),
        }));
        Ok(true)
    }

    /// A stack of matrices times one matrix (`(NR, NQ, 1, NP) @ (NP, NP)` in doitgen) as a
    /// loop of gemms: the innermost stack-or-row axis that is not of extent 1 becomes the
    /// rows of each gemm, the loop runs over the other stack axes, and extent-1 axes stay
    /// at index 0; `false` (nothing emitted) when a slice is not a plain view.
    fn stack_matmul_call(&mut self, a: &Arr, b: &Arr, dest: &Arr) -> R<bool> {
        let r = a.rank();
        let unit: Vec<bool> = (0..r - 1).map(|d| self.shapes.is_one(&a.shape[d])).collect();
        let row = (0..r - 1).rev().find(|&d| !unit[d]).unwrap_or(r - 2);
        let looped: Vec<usize> = (0..r - 1).filter(|&d| d != row && !unit[d]).collect();
        let names: Vec<String> = looped
            .iter()
            .map(|_| {
                let n = self.index_name();
                self.index_names.push(n.clone());
                n
            })
            .collect();
        self.pop_names(names.len());
        let span = self.span;
        let vars: Vec<VarId> =
            names.into_iter().map(|n| self.f.add_var(n, Type::Scalar(Scalar::I64), VarRole::Index, span)).collect();
        // Operand axis `d` of the stacked operands at one gemm: looped, fixed or a gemm axis.
        let at = |d: usize| -> Expr {
            if let Some(k) = looped.iter().position(|&x| x == d) {
                Expr::var(vars[k], Scalar::I64)
            } else if d == row {
                ph_expr(0)
            } else if d == r - 1 {
                ph_expr(1)
            } else {
                Expr::int(0)
            }
        };
        let slice = |x: &Arr| Arr {
            tmpl: subst_ph(&x.tmpl, &at),
            shape: vec![x.shape[row].clone(), x.shape[r - 1].clone()],
            bounds: vec![x.bounds[row].clone(), x.bounds[r - 1].clone()],
            ..x.clone()
        };
        let (a2, d2) = (slice(a), slice(dest));
        let mut done = false;
        let body = self.with_block(|me| {
            done = me.matmul_call(&a2, b, Some(&d2), None)?;
            Ok(())
        })?;
        if !done {
            return Ok(false);
        }
        let nest = looped.iter().zip(&vars).rev().fold(body, |body, (&d, &v)| {
            vec![Stmt::new(
                StmtKind::Loop(Loop {
                    id: LoopId::NEW,
                    var: v,
                    start: Expr::int(0),
                    stop: crate::sym::canon(&a.shape[d]),
                    step: Expr::int(1),
                    body,
                }),
                span,
            )]
        });
        for s in nest {
            self.emit(s);
        }
        Ok(true)
    }

    /// Two stacks of matrices with the same stack extents (`(B, N, K) @ (B, K, M)`), or one
    /// matrix times a stack, as a loop of gemms, one per matrix of the stack; `false`
    /// (nothing emitted) when the stack axes broadcast or a matrix is not a plain view.
    fn batched_matmul_call(&mut self, a: &Arr, b: &Arr, dest: &Arr) -> R<bool> {
        let r = dest.rank();
        let stacked = |x: &Arr| x.rank() == r;
        for d in 0..r - 2 {
            if self.shapes.is_one(&dest.shape[d])
                || [a, b].iter().any(|x| stacked(x) && !self.shapes.same(&x.shape[d], &dest.shape[d]))
            {
                return Ok(false);
            }
        }
        let names: Vec<String> = (0..r - 2)
            .map(|_| {
                let n = self.index_name();
                self.index_names.push(n.clone());
                n
            })
            .collect();
        self.pop_names(names.len());
        let span = self.span;
        let vars: Vec<VarId> =
            names.into_iter().map(|n| self.f.add_var(n, Type::Scalar(Scalar::I64), VarRole::Index, span)).collect();
        let at = |d: usize| -> Expr {
            if d < r - 2 {
                Expr::var(vars[d], Scalar::I64)
            } else {
                ph_expr(d + 2 - r)
            }
        };
        let slice = |x: &Arr| {
            if !stacked(x) {
                return x.clone();
            }
            Arr {
                tmpl: subst_ph(&x.tmpl, &at),
                shape: x.shape[r - 2..].to_vec(),
                bounds: x.bounds[r - 2..].to_vec(),
                ..x.clone()
            }
        };
        let (a2, b2, d2) = (slice(a), slice(b), slice(dest));
        let mut done = false;
        let body = self.with_block(|me| {
            done = me.matmul_call(&a2, &b2, Some(&d2), None)?;
            Ok(())
        })?;
        if !done {
            return Ok(false);
        }
        let nest = vars.iter().enumerate().rev().fold(body, |body, (d, &v)| {
            vec![Stmt::new(
                StmtKind::Loop(Loop {
                    id: LoopId::NEW,
                    var: v,
                    start: Expr::int(0),
                    stop: crate::sym::canon(&dest.shape[d]),
                    step: Expr::int(1),
                    body,
                }),
                span,
            )]
        });
        for s in nest {
            self.emit(s);
        }
        Ok(true)
    }

    /// `dest = np.outer(a, b)` as a zero fill and a `ger` (so that the adjoint is two
    /// `gemv`s); `false` (nothing emitted) unless both vectors and `dest` are plain views of
    /// the same float type.
    pub fn outer_call(&mut self, a: &Arr, b: &Arr, dest: &Arr) -> R<bool> {
        let Some((out, out_view)) = view_of(dest, &self.f, &|e| self.length(e)) else { return Ok(false) };
        let elem = self.f.var(out).ty.elem();
        let (Some((va, wa)), Some((vb, wb))) =
            (view_of(a, &self.f, &|e| self.length(e)), view_of(b, &self.f, &|e| self.length(e)))
        else {
            return Ok(false);
        };
        if !elem.is_float() || a.elem != elem || b.elem != elem || va == out || vb == out {
            return Ok(false);
        }
        if out_view.rank() != 2 || !has_unit_axis(&self.f, out, &out_view) {
            return Ok(false);
        }
        self.emit_store_map(dest, Expr::float(0.0, elem), false)?;
        self.emit_kind(StmtKind::Call(LibCall {
            op: LibOp::Ger,
            out,
            out_view,
            args: vec![va, vb],
            arg_views: vec![wa, wb],
            alpha: Expr::float(1.0, elem),
            beta: Expr::float(1.0, elem),
        }));
        Ok(true)
    }
}
