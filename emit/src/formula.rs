//! The formula of a library call in the source's notation, for the comment above an
//! adjoint's BLAS call: a reviewer checks `/* x_3_b = xw3_b @ w3.T */` against the calculus
//! (∂L/∂A = ∂L/∂C · Bᵀ) at a glance, where "adjoint of gemm" says nothing.
//!
//! | call | formula |
//! |---|---|
//! | gemm `C = α op(A)·op(B) + β C` | `C = A @ B.T`, `C += alpha * A.T @ B`, `C = A @ B + 0.5 * C` |
//! | gemv `y = α op(A)·x + β y` | `y += A.T @ x` |
//! | ger `A += α x ⊗ y` | `A += np.outer(x, y)` |
//! | dot `s = α x·y + β s` | `s += x @ y` |
//!
//! Operands are the C names (the source names, `_b` for adjoints); a view of part of an array
//! is written with NumPy slices (`A[k, :]`, `A[1:n, :]`; a long bound as `...`), a transposed
//! view with `.T`. The operator is `=` when `β` is 0 (the call overwrites its output) and `+=`
//! when `β` is 1.

use crate::cexpr;
use crate::ctx::FnCtx;
use adjc_ir::proc::eq::strip;
use adjc_ir::{Expr, LibCall, LibOp, Type, VarId, View};

/// `out_b += A_b @ B.T`-style formula of `c`.
pub(crate) fn formula(cx: &FnCtx, c: &LibCall) -> String {
    // The LAPACK-style operations: the formula of what they compute (their adjoints are
    // products and solves, each commented where it stands).
    match c.op {
        LibOp::Cholesky => {
            if let (Some(&a), Some(va)) = (c.args.first(), c.arg_views.first()) {
                let (out, a) = (operand(cx, c.out, &c.out_view), operand(cx, a, va));
                return format!("{out} = np.linalg.cholesky({a})");
            }
        }
        LibOp::Solve => {
            if let (Some(&a), Some(&b), Some(va), Some(vb)) =
                (c.args.first(), c.args.get(1), c.arg_views.first(), c.arg_views.get(1))
            {
                let (out, a, b) = (operand(cx, c.out, &c.out_view), operand(cx, a, va), operand(cx, b, vb));
                return format!("{out} = np.linalg.solve({a}, {b})");
            }
        }
        LibOp::CholeskyAdjoint => {
            if let (Some(&l), Some(&lb), Some(vl), Some(vlb)) =
                (c.args.first(), c.args.get(1), c.arg_views.first(), c.arg_views.get(1))
            {
                let out = operand(cx, c.out, &c.out_view);
                let (l, lb) = (operand(cx, l, vl), operand(cx, lb, vlb));
                return format!(
                    "{out} += cholesky_adjoint({l}, {lb}): Phi({l}.T @ {lb}) through two triangular solves (Murray 2016)"
                );
            }
        }
        _ => {}
    }
    let (Some(&a), Some(&b), Some(va), Some(vb)) =
        (c.args.first(), c.args.get(1), c.arg_views.first(), c.arg_views.get(1))
    else {
        return format!("{} of {}", c.op.name(), cx.name(c.out));
    };
    let (a, b) = (operand(cx, a, va), operand(cx, b, vb));
    let product = match c.op {
        LibOp::Gemm | LibOp::Gemv | LibOp::Dot => format!("{a} @ {b}"),
        LibOp::Ger => format!("np.outer({a}, {b})"),
        LibOp::Solve | LibOp::Cholesky | LibOp::CholeskyAdjoint => format!("{}({a}, {b})", c.op.name()),
    };
    let scaled = match c.alpha.as_float() {
        Some(v) if v == 1.0 && c.alpha.is_const() => product,
        _ => format!("{} * {product}", factor(cx, &c.alpha)),
    };
    let out = operand(cx, c.out, &c.out_view);
    // ger has no β: it always adds to its output.
    if c.op == LibOp::Ger {
        return format!("{out} += {scaled}");
    }
    match c.beta.as_float().filter(|_| c.beta.is_const()) {
        Some(0.0) => format!("{out} = {scaled}"),
        Some(1.0) => format!("{out} += {scaled}"),
        _ => format!("{out} = {scaled} + {} * {out}", factor(cx, &c.beta)),
    }
}

/// A scale factor, parenthesized unless it is a single token.
fn factor(cx: &FnCtx, e: &Expr) -> String {
    let s = cexpr::expr(cx, e);
    if s.chars().all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.') {
        s
    } else {
        format!("({s})")
    }
}

/// A slice bound, or `...` when it is a long formula (a flattened axis's clamped product):
/// the comment names the operands; the call below it has the exact bounds.
fn bound(cx: &FnCtx, e: &Expr) -> String {
    let s = cexpr::expr(cx, e);
    if s.chars().count() > 24 {
        "...".to_string()
    } else {
        s
    }
}

/// `A`, `A.T`, `A[k, :]`, `A[1:n, :].T`.
fn operand(cx: &FnCtx, v: VarId, view: &View) -> String {
    let name = cx.name(v).to_string();
    let Type::Array { dims, .. } = &cx.f.var(v).ty else { return name };
    let mut parts = Vec::new();
    let mut whole = true;
    for (d, dim) in dims.iter().enumerate() {
        let start = view.start.get(d).cloned().unwrap_or_else(|| dim.lower.clone());
        match view.axes.iter().position(|&x| x == d) {
            Some(k) => {
                let extent = view.extents.get(k).cloned().unwrap_or_else(|| dim.extent.clone());
                if strip(&start) == strip(&dim.lower) && strip(&extent) == strip(&dim.extent) {
                    parts.push(":".to_string());
                } else {
                    whole = false;
                    let stop = start.clone().add(extent);
                    parts.push(format!("{}:{}", bound(cx, &start), bound(cx, &stop)));
                }
            }
            None => {
                whole = false;
                parts.push(cexpr::expr(cx, &start));
            }
        }
    }
    let mut s = if whole { name } else { format!("{name}[{}]", parts.join(", ")) };
    if view.axes.len() == 2 && view.axes[0] > view.axes[1] {
        s.push_str(".T");
    }
    s
}
