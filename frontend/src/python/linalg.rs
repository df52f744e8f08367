//! `np.linalg.solve(A, b)` and `np.linalg.cholesky(A)` as LAPACK-style library calls
//! (`LibOp::Solve`, `LibOp::Cholesky`: LU with partial pivoting and `potrf` in the
//! generated C, see `runtime-c/adjc_blas.h`), whose adjoints are the standard matrix
//! adjoints (`autodiff/src/linalg.rs`), not a differentiated elimination.
//!
//! Operands that are not plain views of a float64 variable are computed into a temporary
//! first; the calls are emitted at the top level of the function only (not inside loops or
//! branches, where the reverse sweep would need a factorisation per iteration).

use super::ast::*;
use super::blas::view_of;
use super::lower::{Lowerer, R};
use super::ops::{self, SVal};
use super::value::*;
use adjc_ir::*;

impl Lowerer<'_> {
    /// A square (`square`) or any float64 matrix / vector operand of a linear-algebra call.
    fn linalg_operand(&mut self, ex: &Ex, fname: &str, ranks: &[usize]) -> R<Arr> {
        let v = self.eval(ex)?;
        let arr = self.array_of(v, ex)?;
        if !ranks.contains(&arr.rank()) {
            return Err(self.err_help(
                ex.span,
                format!("`{fname}` of a {}-dimensional `{}` is not supported", arr.rank(), ex.text),
                "pass a matrix (and a vector or matrix right-hand side); stacks of matrices are not supported yet",
            ));
        }
        match arr.elem {
            Scalar::F64 => Ok(arr),
            Scalar::F32 => Err(self.err_help(
                ex.span,
                format!("`{fname}` of float32 data is not supported yet"),
                "cast it with `.astype(np.float64)`",
            )),
            _ => {
                let tmpl = ops::cast(SVal::strong(arr.tmpl.clone()), Scalar::F64).e;
                Ok(Arr { elem: Scalar::F64, tmpl, view: false, ..arr })
            }
        }
    }

    /// `np.linalg.solve(A, b)` / `np.linalg.cholesky(A)`.
    pub fn linalg(&mut self, name: &str, e: &Ex, func: &Ex, args: &[Ex], kwargs: &[(String, Ex)]) -> R<Val> {
        let fname = format!("np.linalg.{name}");
        if name != "solve" && name != "cholesky" {
            return Err(self.err_help(
                func.span,
                format!("`{fname}` is not supported yet"),
                "supported: `np.linalg.solve`, `np.linalg.cholesky`, `np.linalg.norm`",
            ));
        }
        self.check_kwargs(e, kwargs, &[])?;
        let cholesky = name == "cholesky";
        self.arity(e, args, if cholesky { 1 } else { 2 }, if cholesky { 1 } else { 2 })?;
        let a = self.linalg_operand(&args[0], &fname, &[2])?;
        let what = format!("a square matrix in `{}`", e.text);
        if !self.require_equal(&a.shape[0], &a.shape[1], e.span, what) {
            return Err(self.err(
                args[0].span,
                format!(
                    "`{fname}` needs a square matrix, `{}` is {} x {}",
                    args[0].text,
                    self.ext_str(&a.shape[0]),
                    self.ext_str(&a.shape[1])
                ),
            ));
        }
        let mut parts = vec![a];
        if !cholesky {
            let b = self.linalg_operand(&args[1], &fname, &[1, 2])?;
            let what = format!("the rows of `{}`", e.text);
            if !self.require_equal(&parts[0].shape[0], &b.shape[0], e.span, what) {
                return Err(self.err(
                    e.span,
                    format!(
                        "shape mismatch in `{}`: `{}` has {} rows, `{}` has {}",
                        e.text,
                        args[0].text,
                        self.ext_str(&parts[0].shape[0]),
                        args[1].text,
                        self.ext_str(&b.shape[0])
                    ),
                ));
            }
            parts.push(b);
        }
        let last = parts.last().ok_or_else(|| self.err(e.span, "internal: no operand"))?;
        let (shape, bounds) = (last.shape.clone(), last.bounds.clone());
        Ok(Val::Deferred(Box::new(Deferred {
            op: DefOp::Linalg { cholesky, args: parts },
            elem: Scalar::F64,
            shape,
            bounds,
            text: e.text.clone(),
        })))
    }

    /// The view of `arr`, computed into a temporary first when it is not a plain view.
    fn linalg_view(&mut self, arr: &Arr) -> R<(VarId, View)> {
        if let Some(x) = view_of(arr, &self.f, &|e| self.length(e)) {
            return Ok(x);
        }
        let name = super::var_names::copy_name(&arr.text);
        let t = self.new_array(&name, arr.elem, &arr.shape, &arr.bounds, VarRole::Temp)?;
        self.emit_store_map(&t, arr.tmpl.clone(), false)?;
        view_of(&t, &self.f, &|e| self.length(e))
            .ok_or_else(|| self.err(self.span, "internal: a temporary is not a view"))
    }

    /// The call into `dest`.
    pub fn linalg_into(&mut self, dest: &Arr, cholesky: bool, args: &[Arr]) -> R<()> {
        let what = if cholesky { "np.linalg.cholesky" } else { "np.linalg.solve" };
        if !self.at_top_level() {
            return Err(self.err_help(
                self.span,
                format!("`{what}` inside a loop or a branch is not supported yet"),
                "call it at the top level of the function",
            ));
        }
        if args.iter().chain(std::iter::once(dest)).any(|x| x.shape.iter().any(|e| !self.is_param_expr(e))) {
            return Err(self.err(self.span, format!("`{what}` of arrays whose shapes are not the function's sizes")));
        }
        let mut views = Vec::new();
        for a in args {
            views.push(self.linalg_view(a)?);
        }
        let (out, out_view) = match view_of(dest, &self.f, &|e| self.length(e)) {
            Some(x) => x,
            None => {
                // A strided destination: solve into a temporary, then copy.
                let name = "tmp";
                let t = self.new_array(name, Scalar::F64, &dest.shape, &dest.bounds, VarRole::Temp)?;
                self.linalg_into(&t, cholesky, args)?;
                return self.emit_store_map(dest, t.tmpl.clone(), false);
            }
        };
        let op = if cholesky { LibOp::Cholesky } else { LibOp::Solve };
        let (args, arg_views): (Vec<VarId>, Vec<View>) = views.into_iter().unzip();
        if args.contains(&out) {
            return Err(self.err(self.span, format!("internal: `{what}` writes an operand")));
        }
        self.emit_kind(StmtKind::Call(LibCall {
            op,
            out,
            out_view,
            args,
            arg_views,
            alpha: Expr::float(1.0, Scalar::F64),
            beta: Expr::float(0.0, Scalar::F64),
        }));
        Ok(())
    }
}
