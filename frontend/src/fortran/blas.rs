//! `matmul` and `dot_product` as library calls (`gemm`, `gemv`, `dot` on column-major
//! views of the operands), the IR NumPy's `@` gives, so both sweeps call BLAS.
//!
//! Operands are float arrays or unit-stride sections of one variable (`a`, `a(:, j)`,
//! `a(2:n, 1:m)`), possibly `transpose`d. `c = matmul(a, b)`, `c = 2 * matmul(a, b)` and
//! `c = c + matmul(a, b)` become one call writing `c`; any other `matmul` of the
//! statement (`c = beta * c + alpha * matmul(a, b)`) is computed into a work array first,
//! and `dot_product` anywhere into a scalar. `gemm`/`gemv` only at the top level of the
//! routine (the adjoint never has to tape a whole product overwritten in a loop); other
//! positions and operands (expressions, strided sections) stay loops.

use super::ast::{self, ExprKind as AKind, MathOp};
use super::expr::Sub;
use super::lower::{Binding, Lowerer, R};
use crate::irutil::product_call;
use crate::sym::canon;
use adjc_ir::*;

type AExpr = ast::Expr;

impl<'s, 't> Lowerer<'s, 't> {
    /// The arguments of a call of intrinsic `name` that no variable or procedure of the
    /// files shadows.
    fn intrinsic_args(&self, n: &'t AExpr, name: &str) -> Option<&'t [AExpr]> {
        let AKind::Call { callee, args } = &n.kind else { return None };
        callee.as_name()?;
        let text = self.text(&**callee).to_ascii_lowercase();
        let shadowed = self.names.contains_key(&text)
            || self.loops.iter().any(|(x, _)| *x == text)
            || self.unit.find(&text).is_some();
        if text != name || shadowed {
            return None;
        }
        args.iter().all(|a| !matches!(a.kind, AKind::Keyword { .. })).then_some(&args[..])
    }

    /// A float array, a unit-stride section of one, or the transpose of a matrix: its
    /// variable and view.
    fn operand_view(&mut self, n: &'t AExpr) -> R<Option<(VarId, View)>> {
        let float_array = |lw: &Self, v: VarId| lw.f.var(v).ty.is_array() && lw.f.var(v).ty.elem().is_float();
        match &n.kind {
            AKind::Paren(x) => self.operand_view(x),
            AKind::Name(_) => match self.names.get(&self.text(n).to_ascii_lowercase()).cloned() {
                Some(Binding::Var(v)) if float_array(self, v) => Ok(Some((v, View::whole(self.f.var(v).ty.dims())))),
                _ => Ok(None),
            },
            AKind::Call { callee, args } => {
                if let Some(v) = self.hoisted.get(&n.id).copied() {
                    return Ok(float_array(self, v).then(|| (v, View::whole(self.f.var(v).ty.dims()))));
                }
                if let Some([x]) = self.intrinsic_args(n, "transpose") {
                    return Ok(self.operand_view(x)?.filter(|(_, w)| w.rank() == 2).map(|(v, w)| (v, w.t())));
                }
                if callee.as_name().is_none() {
                    return Ok(None);
                }
                let name = self.text(&**callee).to_ascii_lowercase();
                if self.loops.iter().any(|(x, _)| *x == name) {
                    return Ok(None);
                }
                let Some(Binding::Var(v)) = self.names.get(&name).cloned() else { return Ok(None) };
                if !float_array(self, v) {
                    return Ok(None);
                }
                let mut view = View::scalar();
                for (d, s) in self.subscripts(n, v, args)?.into_iter().enumerate() {
                    match s {
                        Sub::Index(e) => view.start.push(e),
                        Sub::Range { lo, hi, st: 1 } => {
                            view.extents.push(canon(&hi.sub(lo.clone()).add(Expr::int(1))));
                            view.start.push(lo);
                            view.axes.push(d);
                        }
                        Sub::Range { .. } | Sub::Vector { .. } => return Ok(None),
                    }
                }
                Ok(Some((v, view)))
            }
            _ => Ok(None),
        }
    }

    /// The views of the two operands of a product, when both are views of the same float
    /// type `elem` (matrices along their contiguous axis) whose inner extents conform. At
    /// the top level, an operand that is an element-wise expression (`alpha * a`) is
    /// computed into a work array first, as NumPy's `alpha * A @ B` is.
    fn product_operands(&mut self, args: &'t [AExpr], elem: Scalar) -> R<Option<[(VarId, View); 2]>> {
        let [a, b] = args else { return Ok(None) };
        let top = self.blocks.len() == 1;
        let mut views = Vec::new();
        for x in [a, b] {
            let v = match self.operand_view(x)? {
                Some((v, w)) => {
                    let unit = w.rank() < 2 || crate::irutil::has_unit_axis(&self.f, v, &w);
                    if self.f.var(v).ty.elem() != elem || !unit {
                        return Ok(None);
                    }
                    Some((v, w))
                }
                None if top && self.temp_shape(x)?.is_some() => None,
                None => return Ok(None),
            };
            views.push(v);
        }
        let mut out = Vec::new();
        for (x, v) in [a, b].into_iter().zip(views) {
            match v {
                Some(v) => out.push(v),
                None => out.push(self.computed_in_work_array(x, elem)?),
            }
        }
        let (Some(vb), Some(va)) = (out.pop(), out.pop()) else { return Ok(None) };
        if let (Some(inner), Some(rows)) = (va.1.extents.last(), vb.1.extents.first()) {
            self.conform(b, std::slice::from_ref(inner), std::slice::from_ref(rows))?;
        }
        Ok(Some([va, vb]))
    }

    /// The extents of an array expression whose work array can be allocated at the top
    /// (extents over arguments only).
    fn temp_shape(&mut self, x: &'t AExpr) -> R<Option<Vec<Expr>>> {
        let Some(shape) = self.shape_of(x)? else { return Ok(None) };
        let fixed = shape.iter().all(|e| e.vars().iter().all(|v| self.f.var(*v).role == VarRole::Param));
        Ok(fixed.then_some(shape))
    }

    /// A work array of `elem` with `shape`, allocated at the top, and its whole view.
    fn work_array(&mut self, base: &str, elem: Scalar, shape: &[Expr], span: Span) -> (VarId, View) {
        let dims: Vec<Dim> = shape.iter().map(|e| Dim { lower: Expr::int(1), extent: e.clone() }).collect();
        let name = self.temp_name(base);
        let t = self.f.add_var(
            name,
            Type::Array { elem, dims: dims.clone(), layout: Layout::ColMajor },
            VarRole::Temp,
            span,
        );
        self.alloc_at_top(t, span);
        (t, View::whole(&dims))
    }

    /// The array expression `x` computed into a work array.
    fn computed_in_work_array(&mut self, x: &'t AExpr, elem: Scalar) -> R<(VarId, View)> {
        let shape = self.temp_shape(x)?.unwrap_or_default();
        let (t, view) = self.work_array("tmp", elem, &shape, self.sp(x));
        let subs: Vec<Sub> = shape.iter().map(|e| Sub::Range { lo: Expr::int(1), hi: e.clone(), st: 1 }).collect();
        self.section_assign(t, &subs, x, &[])?;
        Ok((t, view))
    }

    /// `lhs = [c *] matmul(a, b)`, `lhs = lhs + [c *] matmul(a, b)` (a literal or constant
    /// `c`), `s = dot_product(x, y)` as one library call writing `lhs`; `false` when the
    /// statement has another form (nothing is emitted then).
    pub fn product_assign(&mut self, lhs: &'t AExpr, rhs: &'t AExpr) -> R<bool> {
        // Inside a map body (a function applied element by element) every iteration would
        // share the call's output.
        if self.map_depth > 0 {
            return Ok(false);
        }
        let Some((prod, scale, accumulate)) = self.product_form(lhs, rhs)? else { return Ok(false) };
        // The checks of any assignment target (a `do` variable, a constant).
        match &lhs.kind {
            AKind::Name(_) => self.target_var(lhs).map(|_| ())?,
            AKind::Call { callee, .. } if callee.as_name().is_some() => self.target_var(callee).map(|_| ())?,
            _ => return Ok(false),
        }
        let is_dot = self.intrinsic_args(prod, "dot_product").is_some();
        let out = if is_dot {
            match self.names.get(&self.text(lhs).to_ascii_lowercase()).cloned() {
                Some(Binding::Var(v)) if lhs.as_name().is_some() && !self.f.var(v).ty.is_array() => (v, View::scalar()),
                _ => return Ok(false),
            }
        } else {
            if self.blocks.len() != 1 {
                return Ok(false);
            }
            match self.operand_view(lhs)? {
                Some(o) => o,
                None => return Ok(false),
            }
        };
        let elem = self.f.var(out.0).ty.elem();
        if !elem.is_float() {
            return Ok(false);
        }
        let args = self.call_args(prod);
        let Some([a, b]) = self.product_operands(args, elem)? else { return Ok(false) };
        let beta = if accumulate { 1.0 } else { 0.0 };
        let extents = out.1.extents.clone();
        let Some(call) = product_call(&self.f, out, a, b, Expr::float(scale, elem), Expr::float(beta, elem)) else {
            return Ok(false);
        };
        if let Some(s) = self.shape_of(prod)? {
            self.conform(rhs, &extents, &s)?;
        }
        self.emit(StmtKind::Call(call));
        Ok(true)
    }

    /// The product node of `rhs`, its constant factor, and whether `lhs` is added.
    fn product_form(&mut self, lhs: &'t AExpr, rhs: &'t AExpr) -> R<Option<(&'t AExpr, f64, bool)>> {
        if let Some((p, c)) = self.scaled_product(rhs)? {
            return Ok(Some((p, c, false)));
        }
        let AKind::Math { op: MathOp::Add, lhs: x, rhs: y } = &rhs.kind else { return Ok(None) };
        let same = |lw: &Self, n: &'t AExpr| {
            let norm = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
            norm(&lw.text(n)) == norm(&lw.text(lhs))
        };
        for (this, other) in [(&**x, &**y), (&**y, &**x)] {
            if same(self, this) {
                if let Some((p, c)) = self.scaled_product(other)? {
                    if self.intrinsic_args(p, "matmul").is_some() {
                        return Ok(Some((p, c, true)));
                    }
                }
            }
        }
        Ok(None)
    }

    /// `matmul(..)`, `dot_product(..)`, or one times a constant: the call and the factor.
    fn scaled_product(&mut self, n: &'t AExpr) -> R<Option<(&'t AExpr, f64)>> {
        let is_product = |lw: &Self, n: &'t AExpr| {
            lw.intrinsic_args(n, "matmul").is_some() || lw.intrinsic_args(n, "dot_product").is_some()
        };
        if is_product(self, n) {
            return Ok(Some((n, 1.0)));
        }
        let AKind::Math { op: MathOp::Mul, lhs: x, rhs: y } = &n.kind else { return Ok(None) };
        for (c, p) in [(&**x, &**y), (&**y, &**x)] {
            // Only a factor without calls is lowered here: lowering may emit statements.
            if is_product(self, p) && !c.has_call() && self.shape_of(c)?.is_none() {
                let value = self.expr(c, None)?;
                let k = match &value.kind {
                    ExprKind::Const(_) => value.as_float().or(value.as_int().map(|k| k as f64)),
                    _ => None,
                };
                if let Some(k) = k {
                    return Ok(Some((p, k)));
                }
            }
        }
        Ok(None)
    }

    /// Computes the `matmul`s (at the top level) and `dot_product`s of `n` into work
    /// variables before the statement, innermost first; the statement then reads them.
    pub fn hoist_products(&mut self, n: &'t AExpr) -> R<()> {
        if self.map_depth > 0 {
            return Ok(());
        }
        // Post-order, so a product of products reads the inner ones' results.
        let mut order = Vec::new();
        let mut stack = vec![(n, false)];
        while let Some((x, done)) = stack.pop() {
            if done {
                order.push(x);
                continue;
            }
            stack.push((x, true));
            let mut kids = x.children();
            kids.reverse();
            stack.extend(kids.into_iter().map(|k| (k, false)));
        }
        for x in order {
            if let Some(args) = self.intrinsic_args(x, "dot_product") {
                self.hoist_dot(x, args)?;
            } else if let Some(args) = self.intrinsic_args(x, "matmul") {
                if self.blocks.len() == 1 {
                    self.hoist_matmul(x, args)?;
                }
            }
        }
        Ok(())
    }

    fn hoist_dot(&mut self, x: &'t AExpr, args: &'t [AExpr]) -> R<()> {
        let Some(first) = args.first() else { return Ok(()) };
        let Some((v, _)) = self.operand_view(first)? else { return Ok(()) };
        let elem = self.f.var(v).ty.elem();
        let Some([a, b]) = self.product_operands(args, elem)? else { return Ok(()) };
        if a.1.rank() != 1 || b.1.rank() != 1 {
            return Ok(());
        }
        let name = self.temp_name("dot");
        let t = self.f.add_var(name, Type::Scalar(elem), VarRole::Temp, self.sp(x));
        if let Some(call) =
            product_call(&self.f, (t, View::scalar()), a, b, Expr::float(1.0, elem), Expr::float(0.0, elem))
        {
            self.emit(StmtKind::Call(call));
            self.hoisted.insert(x.id, t);
        }
        Ok(())
    }

    fn hoist_matmul(&mut self, x: &'t AExpr, args: &'t [AExpr]) -> R<()> {
        // The product's element type: its operands' (a view's, else the wider real kind).
        let Some(first) = args.first() else { return Ok(()) };
        let elem = match self.operand_view(first)? {
            Some((v, _)) => self.f.var(v).ty.elem(),
            None => match args.get(1).map(|b| self.operand_view(b)).transpose()?.flatten() {
                Some((v, _)) => self.f.var(v).ty.elem(),
                None => return Ok(()),
            },
        };
        let Some(shape) = self.temp_shape(x)? else { return Ok(()) };
        let Some([a, b]) = self.product_operands(args, elem)? else { return Ok(()) };
        let out = self.work_array("prod", elem, &shape, self.sp(x));
        // Cannot fail: the ranks come from a valid `matmul` and the views were checked.
        if let Some(call) = product_call(&self.f, out.clone(), a, b, Expr::float(1.0, elem), Expr::float(0.0, elem)) {
            self.emit(StmtKind::Call(call));
            self.hoisted.insert(x.id, out.0);
        }
        Ok(())
    }
}
