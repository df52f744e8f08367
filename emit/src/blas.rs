//! Library calls as CBLAS calls (`cblas_dgemm`, `cblas_dgemv`, `cblas_ddot`, `cblas_dger`
//! and the float forms). A view is passed as a pointer to its first element
//! (`&A_(i, 0)`), a leading dimension or increment (the stride of the variable's axis),
//! and a layout/transpose flag chosen from which of its axes is contiguous: no copies.
//! `runtime-c/adjc_blas.h` maps the names to a real CBLAS or to adjc's fallback.

use crate::cexpr;
use crate::ctx::FnCtx;
use adjc_ir::{Diagnostic, Expr, Layout, LibCall, LibOp, Scalar, Span, Type, VarId, View};

/// The stride (in elements) of axis `d` of array `v`, as an expression of its extents.
fn stride(cx: &FnCtx, v: VarId, d: usize) -> Expr {
    let Type::Array { dims, layout, .. } = &cx.f.var(v).ty else { return Expr::int(1) };
    let range = match layout {
        Layout::RowMajor => d + 1..dims.len(),
        Layout::ColMajor => 0..d,
    };
    dims[range].iter().fold(Expr::int(1), |acc, x| acc.mul(x.extent.clone()))
}

/// Whether axis `d` of `v` is its contiguous one.
fn is_unit(cx: &FnCtx, v: VarId, d: usize) -> bool {
    match &cx.f.var(v).ty {
        Type::Array { dims, layout: Layout::RowMajor, .. } => d + 1 == dims.len(),
        Type::Array { layout: Layout::ColMajor, .. } => d == 0,
        Type::Scalar(_) => false,
    }
}

fn internal(span: Span, what: &str) -> Diagnostic {
    Diagnostic::internal(span, what).with_help("matrix operands need one contiguous axis; please report this")
}

struct Ctx<'a, 'c> {
    cx: &'a FnCtx<'c>,
    span: Span,
}

impl Ctx<'_, '_> {
    fn e(&self, e: &Expr) -> String {
        cexpr::expr(self.cx, e)
    }
    fn ptr(&self, v: VarId, view: &View) -> String {
        format!("&{}", cexpr::element(self.cx, v, &view.start))
    }
    /// Increment of a vector view.
    fn inc(&self, v: VarId, view: &View) -> String {
        self.e(&stride(self.cx, v, view.axes[0]))
    }
    /// `(transposed, ld)` of matrix view `view` of `v` for a call in layout `row_major`.
    fn mat(&self, v: VarId, view: &View, row_major: bool) -> Result<(bool, String), Diagnostic> {
        let (r, c) = (view.axes[0], view.axes[1]);
        let (fast, slow) = if row_major { (c, r) } else { (r, c) };
        if is_unit(self.cx, v, fast) {
            Ok((false, self.e(&stride(self.cx, v, slow))))
        } else if is_unit(self.cx, v, slow) {
            Ok((true, self.e(&stride(self.cx, v, fast))))
        } else {
            Err(internal(self.span, "a matrix view without a contiguous axis"))
        }
    }
}

fn order(row_major: bool) -> &'static str {
    if row_major {
        "CblasRowMajor"
    } else {
        "CblasColMajor"
    }
}

fn trans(t: bool) -> &'static str {
    if t {
        "CblasTrans"
    } else {
        "CblasNoTrans"
    }
}

/// The C statement of one library call; `out_place` renders a scalar output (`dot`).
pub(crate) fn call(cx: &FnCtx, c: &LibCall, span: Span, out_place: &str) -> Result<String, Diagnostic> {
    let k = Ctx { cx, span };
    let elem = cx.f.var(c.out).ty.elem();
    let p = match elem {
        Scalar::F32 => "s",
        Scalar::F64 => "d",
        _ => return Err(internal(span, "a library call on integers")),
    };
    let (alpha, beta) = (k.e(&c.alpha), k.e(&c.beta));
    if c.op.is_lapack() {
        return lapack(&k, c, p);
    }
    let [a, b] = [c.args[0], c.args[1]];
    let [va, vb] = [&c.arg_views[0], &c.arg_views[1]];
    let vo = &c.out_view;
    match c.op {
        LibOp::Gemm => {
            let row_major = if is_unit(cx, c.out, vo.axes[1]) {
                true
            } else if is_unit(cx, c.out, vo.axes[0]) {
                false
            } else {
                return Err(internal(span, "a gemm output without a contiguous axis"));
            };
            let (_, ldc) = k.mat(c.out, vo, row_major)?;
            let (ta, lda) = k.mat(a, va, row_major)?;
            let (tb, ldb) = k.mat(b, vb, row_major)?;
            Ok(format!(
                "cblas_{p}gemm({}, {}, {}, {}, {}, {}, {alpha}, {}, {lda}, {}, {ldb}, {beta}, {}, {ldc});",
                order(row_major),
                trans(ta),
                trans(tb),
                k.e(&vo.extents[0]),
                k.e(&vo.extents[1]),
                k.e(&va.extents[1]),
                k.ptr(a, va),
                k.ptr(b, vb),
                k.ptr(c.out, vo)
            ))
        }
        LibOp::Gemv => {
            let (ta, lda) = k.mat(a, va, true)?;
            // The stored (row-major) matrix is op(A) itself or its transpose.
            let (m, n) = if ta { (&va.extents[1], &va.extents[0]) } else { (&va.extents[0], &va.extents[1]) };
            Ok(format!(
                "cblas_{p}gemv(CblasRowMajor, {}, {}, {}, {alpha}, {}, {lda}, {}, {}, {beta}, {}, {});",
                trans(ta),
                k.e(m),
                k.e(n),
                k.ptr(a, va),
                k.ptr(b, vb),
                k.inc(b, vb),
                k.ptr(c.out, vo),
                k.inc(c.out, vo)
            ))
        }
        LibOp::Ger => {
            let row_major = is_unit(cx, c.out, vo.axes[1]);
            let (t, lda) = k.mat(c.out, vo, row_major)?;
            if t {
                return Err(internal(span, "a ger output without a contiguous axis"));
            }
            Ok(format!(
                "cblas_{p}ger({}, {}, {}, {alpha}, {}, {}, {}, {}, {}, {lda});",
                order(row_major),
                k.e(&vo.extents[0]),
                k.e(&vo.extents[1]),
                k.ptr(a, va),
                k.inc(a, va),
                k.ptr(b, vb),
                k.inc(b, vb),
                k.ptr(c.out, vo)
            ))
        }
        LibOp::Solve | LibOp::Cholesky | LibOp::CholeskyAdjoint => Err(internal(span, "a LAPACK call")),
        LibOp::Dot => {
            let dot = format!(
                "cblas_{p}dot({}, {}, {}, {}, {})",
                k.e(&va.extents[0]),
                k.ptr(a, va),
                k.inc(a, va),
                k.ptr(b, vb),
                k.inc(b, vb)
            );
            let scaled = if c.alpha.as_float() == Some(1.0) { dot } else { format!("{alpha} * {dot}") };
            Ok(match c.beta.as_float() {
                Some(v) if v == 0.0 => format!("{out_place} = {scaled};"),
                Some(v) if v == 1.0 => format!("{out_place} += {scaled};"),
                _ => format!("{out_place} = {scaled} + {beta} * {out_place};"),
            })
        }
    }
}

/// `pointer, row stride, column stride` of a matrix view, or of a vector view as one
/// column (column stride 0).
fn strided(k: &Ctx, v: VarId, view: &View) -> String {
    let rs = k.e(&stride(k.cx, v, view.axes[0]));
    let cs = match view.axes.get(1) {
        Some(a) => k.e(&stride(k.cx, v, *a)),
        None => "0".to_string(),
    };
    format!("{}, {rs}, {cs}", k.ptr(v, view))
}

/// The LAPACK-style calls, as calls of `adjc_blas.h`'s `adjc_dsolve`, `adjc_dcholesky` and
/// `adjc_dcholesky_adjoint` (LAPACK's `getrf`/`getrs`/`potrf` with `-DADJC_BLAS=cblas` or
/// `mkl`, portable C otherwise). Operands are passed with both strides: the routines copy
/// them into column-major work arrays, so any view (a transpose too) goes without a copy
/// in the generated code.
fn lapack(k: &Ctx, c: &LibCall, p: &str) -> Result<String, Diagnostic> {
    if p != "d" {
        return Err(internal(k.span, "a float32 LAPACK call"));
    }
    let vo = &c.out_view;
    let n = k.e(&c.arg_views[0].extents[0]);
    let out = strided(k, c.out, vo);
    let a = strided(k, c.args[0], &c.arg_views[0]);
    Ok(match c.op {
        LibOp::Solve => {
            let nrhs = match vo.extents.get(1) {
                Some(e) => k.e(e),
                None => "1".to_string(),
            };
            let b = strided(k, c.args[1], &c.arg_views[1]);
            format!("adjc_dsolve({n}, {nrhs}, {a}, {b}, {out});")
        }
        LibOp::Cholesky => format!("adjc_dcholesky({n}, {a}, {out});"),
        _ => {
            let lb = strided(k, c.args[1], &c.arg_views[1]);
            format!("adjc_dcholesky_adjoint({n}, {a}, {lb}, {}, {out});", k.e(&c.beta))
        }
    })
}
