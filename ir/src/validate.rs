//! The IR validator. Every stage's output is validated in tests (and in debug builds of
//! the command line), so a stage that breaks an invariant is caught where it happens
//! rather than as wrong C.

use crate::*;

/// An invariant violation: which function, where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    pub function: String,
    pub span: Span,
    pub message: String,
}

impl std::fmt::Display for ValidationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid IR in `{}` (line {}): {}", self.function, self.span.line, self.message)
    }
}

impl std::error::Error for ValidationError {}

pub fn validate_module(m: &Module) -> Result<(), ValidationError> {
    m.functions.iter().try_for_each(validate)
}

pub fn validate(f: &Function) -> Result<(), ValidationError> {
    let mut v = Validator {
        f,
        bound: Vec::new(),
        ever_bound: vec![false; f.vars.len()],
        span: f.span,
        loop_ids: std::collections::HashSet::new(),
        map_ids: std::collections::HashSet::new(),
    };
    for (k, p) in f.params.iter().enumerate() {
        v.check_var(p.var)?;
        if f.params[..k].iter().any(|q| q.var == p.var) {
            return v.err(format!("parameter `{}` listed twice", f.var(p.var).name));
        }
    }
    for var in &f.vars {
        for d in var.ty.dims() {
            for e in [&d.lower, &d.extent] {
                v.expr(e)?;
                if e.ty != Scalar::I64 {
                    return v.err(format!("extent of `{}` is not an integer", var.name));
                }
                for u in e.vars() {
                    if !f.is_param(u) {
                        return v.err(format!(
                            "extent of `{}` depends on `{}`, which is not a parameter",
                            var.name,
                            f.var(u).name
                        ));
                    }
                }
            }
        }
    }
    for a in &f.assumptions {
        if let Some(arr) = a.each {
            let ok = f.is_param(arr)
                && arr.index() < f.vars.len()
                && f.var(arr).ty.is_array()
                && f.var(arr).ty.elem() == Scalar::I64;
            if !ok {
                return v
                    .err(format!("assumption `{}` scans something that is not an integer array parameter", a.what));
            }
        }
        for e in a.exprs() {
            v.expr(e)?;
            let is_guard = a.guard.as_ref().is_some_and(|g| std::ptr::eq(g, e));
            if is_guard && e.ty != Scalar::Bool {
                return v.err(format!("the guard of assumption `{}` is not a condition", a.what));
            }
            if !is_guard && e.ty != Scalar::I64 {
                return v.err(format!("assumption `{}` compares non-integers", a.what));
            }
            if let Some(u) = e.vars().into_iter().find(|u| !f.is_param(*u)) {
                return v.err(format!(
                    "assumption `{}` depends on `{}`, which is not a parameter",
                    a.what,
                    f.var(u).name
                ));
            }
        }
    }
    v.block(&f.body)
}

impl Validator<'_> {
    /// Operand counts, ranks, views inside their variables, types of `alpha`/`beta`.
    fn call(&mut self, c: &LibCall) -> Result<(), ValidationError> {
        let (rout, rargs) = c.op.ranks_for(c.out_view.rank());
        if c.args.len() != rargs.len() || c.arg_views.len() != rargs.len() {
            return self.err(format!("`{}` takes {} argument(s)", c.op.name(), rargs.len()));
        }
        if c.args.contains(&c.out) {
            return self.err(format!("the output of `{}` is also an argument", c.op.name()));
        }
        let elem = {
            self.check_var(c.out)?;
            self.f.var(c.out).ty.elem()
        };
        if !elem.is_float() {
            return self.err(format!("`{}` on a non-float output", c.op.name()));
        }
        let operands = std::iter::once((c.out, &c.out_view, rout))
            .chain(c.args.iter().zip(&c.arg_views).zip(rargs).map(|((a, v), r)| (*a, v, *r)));
        for (var, view, rank) in operands {
            self.check_var(var)?;
            let ty = &self.f.var(var).ty;
            let name = &self.f.var(var).name;
            if ty.elem() != elem {
                return self.err(format!("`{}` mixes element types (`{name}`)", c.op.name()));
            }
            if view.rank() != rank || view.extents.len() != rank || view.start.len() != ty.rank() {
                return self.err(format!("view of `{name}` has the wrong rank for `{}`", c.op.name()));
            }
            let mut seen = Vec::new();
            for a in &view.axes {
                if *a >= ty.rank() || seen.contains(a) {
                    return self.err(format!("view of `{name}` names a bad axis"));
                }
                seen.push(*a);
            }
            for e in view.start.iter().chain(view.extents.iter()) {
                self.int_expr(e, "a view index")?;
            }
        }
        for e in [&c.alpha, &c.beta] {
            self.expr(e)?;
            if e.ty != elem {
                return self.err(format!("alpha/beta of `{}` must have the output's type", c.op.name()));
            }
        }
        if c.op == LibOp::Ger && c.beta.as_float() != Some(1.0) {
            return self.err("`ger` only accumulates (beta = 1)".into());
        }
        if c.op.is_lapack() {
            // `cholesky_adjoint` accumulates (beta = 1) or overwrites (beta = 0); the others
            // overwrite.
            let beta = c.beta.as_float();
            let beta_ok = beta == Some(0.0) || (beta == Some(1.0) && c.op == LibOp::CholeskyAdjoint);
            if c.alpha.as_float() != Some(1.0) || !beta_ok {
                return self.err(format!("`{}` takes alpha = 1 and beta = 0 (or 1 for the adjoint)", c.op.name()));
            }
        }
        Ok(())
    }
}

struct Validator<'a> {
    f: &'a Function,
    /// Index variables bound by the enclosing loops and maps.
    bound: Vec<VarId>,
    ever_bound: Vec<bool>,
    span: Span,
    /// Ids of the loops and maps seen so far (unique per function, invariant 8).
    loop_ids: std::collections::HashSet<LoopId>,
    map_ids: std::collections::HashSet<MapId>,
}

impl Validator<'_> {
    fn err<T>(&self, message: String) -> Result<T, ValidationError> {
        Err(ValidationError { function: self.f.name.clone(), span: self.span, message })
    }

    fn check_var(&self, v: VarId) -> Result<(), ValidationError> {
        if v.index() >= self.f.vars.len() {
            return self.err(format!("variable id {} out of range", v.0));
        }
        Ok(())
    }

    fn bind(&mut self, v: VarId) -> Result<(), ValidationError> {
        self.check_var(v)?;
        if self.ever_bound[v.index()] && self.bound.contains(&v) {
            return self.err(format!("index `{}` bound twice in one nest", self.f.var(v).name));
        }
        if self.f.var(v).ty != Type::Scalar(Scalar::I64) {
            return self.err(format!("index `{}` is not i64", self.f.var(v).name));
        }
        self.ever_bound[v.index()] = true;
        self.bound.push(v);
        Ok(())
    }

    fn block(&mut self, b: &Block) -> Result<(), ValidationError> {
        b.iter().try_for_each(|s| self.stmt(s))
    }

    fn int_expr(&mut self, e: &Expr, what: &str) -> Result<(), ValidationError> {
        self.expr(e)?;
        if e.ty != Scalar::I64 {
            return self.err(format!("{what} has type {}, expected i64", e.ty));
        }
        Ok(())
    }

    fn place(&mut self, p: &Place) -> Result<Scalar, ValidationError> {
        self.check_var(p.var)?;
        let var = self.f.var(p.var);
        if var.role == VarRole::Index {
            return self.err(format!("index `{}` is assigned", var.name));
        }
        if p.index.len() != var.ty.rank() {
            return self.err(format!(
                "`{}` has rank {} but is written with {} indices",
                var.name,
                var.ty.rank(),
                p.index.len()
            ));
        }
        if let Some(param) = self.f.param(p.var) {
            if param.intent == Intent::In {
                return self.err(format!("parameter `{}` is intent(in) but written", var.name));
            }
        }
        for e in &p.index {
            self.int_expr(e, "an index")?;
        }
        Ok(var.ty.elem())
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), ValidationError> {
        if !s.span.is_none() {
            self.span = s.span;
        }
        match &s.kind {
            StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
                let ty = self.place(target)?;
                self.expr(value)?;
                if value.ty != ty {
                    return self.err(format!(
                        "`{}` of type {} is given a value of type {}",
                        self.f.var(target.var).name,
                        ty,
                        value.ty
                    ));
                }
                if let StmtKind::Accumulate { op, .. } = &s.kind {
                    if ty == Scalar::Bool && *op != AccOp::Max && *op != AccOp::Min {
                        return self.err("arithmetic accumulation into a bool".into());
                    }
                }
            }
            StmtKind::Loop(l) => {
                if l.id.is_new() {
                    return self.err("loop without an id (a stage did not settle its ids)".into());
                }
                if !self.loop_ids.insert(l.id) {
                    return self.err(format!("two loops have id {}", l.id));
                }
                self.int_expr(&l.start, "a loop start")?;
                self.int_expr(&l.stop, "a loop stop")?;
                self.int_expr(&l.step, "a loop step")?;
                if l.step.as_int() == Some(0) {
                    return self.err("loop step is zero".into());
                }
                self.bind(l.var)?;
                self.block(&l.body)?;
                self.bound.pop();
            }
            StmtKind::While(w) => {
                if w.id.is_new() {
                    return self.err("loop without an id (a stage did not settle its ids)".into());
                }
                if !self.loop_ids.insert(w.id) {
                    return self.err(format!("two loops have id {}", w.id));
                }
                self.expr(&w.cond)?;
                if w.cond.ty != Scalar::Bool {
                    return self.err("condition is not bool".into());
                }
                self.block(&w.body)?;
            }
            StmtKind::Map(m) => {
                if m.dims.is_empty() {
                    return self.err("map without dimensions".into());
                }
                if m.id.is_new() {
                    return self.err("map without an id (a stage did not settle its ids)".into());
                }
                if !self.map_ids.insert(m.id) {
                    return self.err(format!("two maps have id {}", m.id));
                }
                for d in &m.dims {
                    self.int_expr(&d.start, "a map start")?;
                    self.int_expr(&d.stop, "a map stop")?;
                }
                for d in &m.dims {
                    self.bind(d.var)?;
                }
                let body = self.block(&m.body);
                body?;
                for _ in &m.dims {
                    self.bound.pop();
                }
            }
            StmtKind::If { cond, then_body, else_body } => {
                self.expr(cond)?;
                if cond.ty != Scalar::Bool {
                    return self.err("condition is not bool".into());
                }
                self.block(then_body)?;
                self.block(else_body)?;
            }
            StmtKind::Alloc(v) | StmtKind::Free(v) => {
                self.check_var(*v)?;
                if !self.f.var(*v).ty.is_array() {
                    return self.err(format!("alloc/free of scalar `{}`", self.f.var(*v).name));
                }
                if self.f.is_param(*v) {
                    return self.err(format!("alloc/free of parameter `{}`", self.f.var(*v).name));
                }
            }
            StmtKind::Call(c) => self.call(c)?,
            StmtKind::Push { tape, value } => {
                self.check_var(*tape)?;
                self.expr(value)?;
                if self.f.var(*tape).role != VarRole::Tape {
                    return self.err("push onto a variable that is not a tape".into());
                }
            }
            StmtKind::Pop { tape, target } => {
                self.check_var(*tape)?;
                self.place(target)?;
                if self.f.var(*tape).role != VarRole::Tape {
                    return self.err("pop from a variable that is not a tape".into());
                }
            }
            StmtKind::Section { body, .. } => self.block(body)?,
            StmtKind::Fail(_) => {}
        }
        Ok(())
    }

    fn expr(&mut self, e: &Expr) -> Result<(), ValidationError> {
        let f = self.f;
        match &e.kind {
            ExprKind::Const(l) => {
                let ok = matches!(
                    (l, e.ty),
                    (Literal::Bool(_), Scalar::Bool)
                        | (Literal::Int(_), Scalar::I64)
                        | (Literal::Float(_), Scalar::F32 | Scalar::F64)
                );
                if !ok {
                    return self.err(format!("literal {l:?} typed {}", e.ty));
                }
            }
            ExprKind::Var(v) => {
                self.check_var(*v)?;
                let var = f.var(*v);
                if var.ty.is_array() {
                    return self.err(format!("array `{}` used as a scalar", var.name));
                }
                if var.role == VarRole::Index && !self.bound.contains(v) {
                    return self.err(format!("index `{}` used outside its loop", var.name));
                }
                if var.ty.elem() != e.ty {
                    return self.err(format!("`{}` is {} but read as {}", var.name, var.ty.elem(), e.ty));
                }
            }
            ExprKind::Load(v, idx) => {
                self.check_var(*v)?;
                let var = f.var(*v);
                if idx.len() != var.ty.rank() {
                    return self.err(format!(
                        "`{}` has rank {} but is read with {} indices",
                        var.name,
                        var.ty.rank(),
                        idx.len()
                    ));
                }
                if var.ty.elem() != e.ty {
                    return self.err(format!("`{}` is {} but read as {}", var.name, var.ty.elem(), e.ty));
                }
                for i in idx {
                    self.int_expr(i, "an index")?;
                }
            }
            ExprKind::Unary(op, a) => {
                self.expr(a)?;
                let ok = match op {
                    UnOp::Neg => a.ty == e.ty && a.ty != Scalar::Bool,
                    UnOp::Not => a.ty == Scalar::Bool && e.ty == Scalar::Bool,
                };
                if !ok {
                    return self.err(format!("bad operand type for {op:?}"));
                }
            }
            ExprKind::Binary(op, a, b) => {
                self.expr(a)?;
                self.expr(b)?;
                if a.ty != b.ty {
                    return self.err(format!("operands of `{}` have types {} and {}", op.symbol(), a.ty, b.ty));
                }
                let ok = if op.is_comparison() {
                    e.ty == Scalar::Bool
                } else if op.is_logical() {
                    e.ty == Scalar::Bool && a.ty == Scalar::Bool
                } else if matches!(op, BinOp::FloorDiv | BinOp::Mod) {
                    e.ty == Scalar::I64 && a.ty == Scalar::I64
                } else {
                    e.ty == a.ty && a.ty != Scalar::Bool
                };
                if !ok {
                    return self.err(format!("`{}` on {} cannot produce {}", op.symbol(), a.ty, e.ty));
                }
            }
            ExprKind::Call(i, args) => {
                if args.len() != i.arity() {
                    return self.err(format!("{} takes {} arguments", i.name(), i.arity()));
                }
                for a in args {
                    self.expr(a)?;
                    if a.ty != e.ty {
                        return self.err(format!("argument of {} has type {}, result {}", i.name(), a.ty, e.ty));
                    }
                }
                if !(e.ty.is_float() || (e.ty == Scalar::I64 && i.accepts_int())) {
                    return self.err(format!("{} on {}", i.name(), e.ty));
                }
            }
            ExprKind::Select(c, a, b) => {
                self.expr(c)?;
                self.expr(a)?;
                self.expr(b)?;
                if c.ty != Scalar::Bool || a.ty != e.ty || b.ty != e.ty {
                    return self.err("select with mismatched types".into());
                }
            }
            ExprKind::Cast(a) => self.expr(a)?,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64_array(n: VarId) -> Type {
        Type::Array {
            elem: Scalar::F64,
            dims: vec![Dim::zero_based(Expr::var(n, Scalar::I64))],
            layout: Layout::RowMajor,
        }
    }

    fn sample() -> Function {
        let mut f = Function::empty("k", Span::NONE);
        let n = f.add_var("N", Type::Scalar(Scalar::I64), VarRole::Size, Span::NONE);
        let a = f.add_var("A", f64_array(n), VarRole::Param, Span::NONE);
        let i = f.add_var("i", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
        f.params = vec![
            Param { var: n, intent: Intent::In, doc: String::new() },
            Param { var: a, intent: Intent::InOut, doc: String::new() },
        ];
        let iv = Expr::var(i, Scalar::I64);
        f.body = vec![Stmt::new(
            StmtKind::Map(Map {
                id: MapId(0),
                dims: vec![MapDim { var: i, start: Expr::int(0), stop: Expr::var(n, Scalar::I64) }],
                body: vec![Stmt::assign(
                    Place::element(a, vec![iv.clone()]),
                    Expr::load(a, vec![iv], Scalar::F64).mul(Expr::float(2.0, Scalar::F64)),
                    Span::NONE,
                )],
            }),
            Span::NONE,
        )];
        f
    }

    #[test]
    fn accepts_well_formed_function() {
        validate(&sample()).unwrap();
        let text = print::print_function(&sample());
        assert!(text.contains("M0: map i in [0, N) {"), "{text}");
        assert!(text.contains("A[i] = A[i] * 2.0"), "{text}");
    }

    /// `while` loops: printed with their id, numbered with the loops, with a `bool`
    /// condition; also inside a map body.
    #[test]
    fn while_loops_are_checked() {
        let mut f = sample();
        let flag = f.add_var("brk", Type::Scalar(Scalar::Bool), VarRole::Local, Span::NONE);
        let cond = crate::proc::jumps::none_set(&[flag]);
        let w = |id: u32, cond: Expr, body: Block| {
            Stmt::new(StmtKind::While(While { id: LoopId(id), cond, body }), Span::NONE)
        };
        let set = Stmt::assign(Place::scalar(flag), Expr::boolean(true), Span::NONE);
        f.body.push(Stmt::assign(Place::scalar(flag), Expr::boolean(false), Span::NONE));
        f.body.push(w(0, cond.clone(), vec![set.clone()]));
        validate(&f).unwrap();
        let text = print::print_function(&f);
        assert!(text.contains("L0: while !brk {"), "{text}");
        // Two loops with one id.
        let mut g = f.clone();
        g.body.push(w(0, cond.clone(), vec![set.clone()]));
        assert!(validate(&g).unwrap_err().message.contains("two loops have id L0"));
        // Not a bool.
        let mut g = f.clone();
        g.body.push(w(1, Expr::int(1), Vec::new()));
        assert!(validate(&g).unwrap_err().message.contains("condition is not bool"));
        // Inside a map (each iteration runs its own loop): valid.
        let mut g = f.clone();
        if let StmtKind::Map(m) = &mut g.body[0].kind {
            m.body.push(w(1, cond, vec![set]));
        }
        validate(&g).unwrap();
    }

    #[test]
    fn rejects_wrong_rank_and_type() {
        let mut f = sample();
        if let StmtKind::Map(m) = &mut f.body[0].kind {
            if let StmtKind::Assign { target, .. } = &mut m.body[0].kind {
                target.index.push(Expr::int(0));
            }
        }
        assert!(validate(&f).unwrap_err().message.contains("rank 1"));
        let mut f = sample();
        if let StmtKind::Map(m) = &mut f.body[0].kind {
            if let StmtKind::Assign { value, .. } = &mut m.body[0].kind {
                *value = Expr::int(1);
            }
        }
        assert!(validate(&f).unwrap_err().message.contains("type i64"));
    }

    #[test]
    fn assumptions_compare_parameters_only() {
        let mut f = sample();
        let n = Expr::var(VarId(0), Scalar::I64);
        let assume = |lhs: Expr, rhs: Expr| Assumption::equal(lhs, rhs, Span::NONE, "A @ x");
        f.assumptions.push(assume(n.clone(), Expr::int(3)));
        validate(&f).unwrap();
        assert!(print::print_function(&f).contains("assume N == 3  # A @ x"));
        // The loop index `i` has no value on entry.
        f.assumptions.push(assume(n, Expr::var(VarId(2), Scalar::I64)));
        let e = validate(&f).unwrap_err().message;
        assert!(e.contains("outside its loop") || e.contains("not a parameter"), "{e}");
        f.assumptions.pop();
        f.assumptions.push(assume(Expr::float(1.0, Scalar::F64), Expr::float(1.0, Scalar::F64)));
        assert!(validate(&f).unwrap_err().message.contains("compares non-integers"));
    }

    #[test]
    fn rejects_duplicate_and_unnumbered_ids() {
        let mut f = sample();
        let map = f.body[0].clone();
        f.body.push(map);
        let e = validate(&f).unwrap_err().message;
        assert!(e.contains("two maps have id M0"), "{e}");
        proc::ids::settle(&mut f.body);
        validate(&f).unwrap();
        assert!(print::print_function(&f).contains("M1: map i in [0, N) {"));
        // Two loops with one id; then a loop nobody numbered.
        let lp = |id| {
            let l =
                Loop { id, var: VarId(2), start: Expr::int(0), stop: Expr::int(1), step: Expr::int(1), body: vec![] };
            Stmt::new(StmtKind::Loop(l), Span::NONE)
        };
        f.body = vec![lp(LoopId(3)), lp(LoopId(3))];
        let e = validate(&f).unwrap_err().message;
        assert!(e.contains("two loops have id L3"), "{e}");
        f.body = vec![lp(LoopId(3)), lp(LoopId::NEW)];
        let e = validate(&f).unwrap_err().message;
        assert!(e.contains("loop without an id"), "{e}");
        proc::ids::settle(&mut f.body);
        validate(&f).unwrap();
        assert!(print::print_function(&f).contains("L4: loop i in range(0, 1, 1)"));
    }

    #[test]
    fn rejects_index_outside_its_loop() {
        let mut f = sample();
        let i = VarId(2);
        f.body.push(Stmt::assign(
            Place::element(VarId(1), vec![Expr::var(i, Scalar::I64)]),
            Expr::float(0.0, Scalar::F64),
            Span::NONE,
        ));
        assert!(validate(&f).unwrap_err().message.contains("outside its loop"));
    }
}

#[cfg(test)]
mod call_tests {
    use super::*;

    /// `ret = dot(A[i + 1:N], B[i + 1:N])` for `A`, `B` of extent `N`, and a second array
    /// `C` for the error cases.
    fn dot_fn(out_is_arg: bool, beta: f64) -> Function {
        let mut f = Function::empty("d", Span::NONE);
        let n = f.add_var("N", Type::Scalar(Scalar::I64), VarRole::Size, Span::NONE);
        let ty = Type::Array {
            elem: Scalar::F64,
            dims: vec![Dim::zero_based(Expr::var(n, Scalar::I64))],
            layout: Layout::RowMajor,
        };
        let a = f.add_var("A", ty.clone(), VarRole::Param, Span::NONE);
        let b = f.add_var("B", ty, VarRole::Param, Span::NONE);
        let r = f.add_var("ret", Type::Scalar(Scalar::F64), VarRole::Return, Span::NONE);
        let i = f.add_var("i", Type::Scalar(Scalar::I64), VarRole::Param, Span::NONE);
        f.params = [n, a, b, i, r].iter().map(|v| Param { var: *v, intent: Intent::In, doc: String::new() }).collect();
        let start = Expr::var(i, Scalar::I64).add(Expr::int(1));
        let ext = Expr::var(n, Scalar::I64).sub(Expr::var(i, Scalar::I64)).sub(Expr::int(1));
        let view = View { start: vec![start], axes: vec![0], extents: vec![ext] };
        let out = if out_is_arg { a } else { r };
        let out_view = if out_is_arg { view.clone() } else { View::scalar() };
        f.body = vec![Stmt::new(
            StmtKind::Call(LibCall {
                op: if out_is_arg { LibOp::Ger } else { LibOp::Dot },
                out,
                out_view,
                args: vec![a, b],
                arg_views: vec![view.clone(), view],
                alpha: Expr::float(1.0, Scalar::F64),
                beta: Expr::float(beta, Scalar::F64),
            }),
            Span::NONE,
        )];
        f
    }

    #[test]
    fn library_calls_print_as_views_and_validate() {
        let f = dot_fn(false, 0.0);
        validate(&f).unwrap();
        let StmtKind::Call(c) = &f.body[0].kind else { unreachable!() };
        assert_eq!(crate::print::call_str(&f, c), "ret = 1.0 * dot(A[i + 1:N], B[i + 1:N]) + 0.0 * ret");
        assert!(!c.reads_out());
        // A ger needs a 2-D output and only accumulates; outputs never alias arguments.
        let e = validate(&dot_fn(true, 0.0)).unwrap_err();
        assert!(e.message.contains("also an argument"), "{e}");
    }
}
