//! Expressions: literals, names, operators, array elements and elemental intrinsics.
//!
//! An expression is lowered either in a scalar context (`el == None`) or at one element
//! of an array expression (`el == Some(offsets)`): the 0-based position in the
//! iteration space of the enclosing array statement. Sections and whole arrays are only
//! valid in the second case and are indexed `lower + offset * stride` there.

use super::ast::{self, CmpOp, ExprKind as AKind, LogicalOp, MathOp, UnaryOp};
use super::lower::{Binding, Lowerer, MAX_CHAIN, MAX_DEPTH, R};
use super::scan::ProcKind;
use crate::sym::{canon, clamp0};
use adjc_ir::*;

type AExpr = ast::Expr;

/// One subscript of an array reference.
pub enum Sub {
    Index(Expr),
    /// `lo:hi:st` with a constant non-zero stride.
    Range {
        lo: Expr,
        hi: Expr,
        st: i64,
    },
    /// A vector subscript `x(idx)`: element `k` (0-based) of the section is `x(idx(k))`;
    /// `at` is the subscript's value with `hole` standing for `k`, `count` its length.
    Vector {
        at: Expr,
        hole: VarId,
        count: Expr,
    },
}

/// The stand-in for the position inside a vector subscript (substituted before any
/// statement is built, so never in the IR): one per axis, far above any real variable.
fn hole(axis: usize) -> VarId {
    VarId(u32::MAX - 4096 - axis as u32)
}

impl Sub {
    /// The number of elements. With a non-unit stride, Fortran's `max(0, (hi - lo + st) /
    /// st)`: a floor division by the stride's magnitude (C's `/` truncates toward zero, and
    /// `(1 - 0) / -2 == 0` would make the empty `y(0:1:-2)` one element long), clamped at 0.
    /// Whether the subscript is an axis of the section (a range or a vector subscript).
    pub fn is_section(&self) -> bool {
        !matches!(self, Sub::Index(_))
    }

    /// The index at 0-based position `k` of a vector subscript.
    pub fn vector_at(at: &Expr, hole: VarId, k: &Expr) -> Expr {
        // Canonical indices inside the loads too: `idx(1 + (j - 1))` reads `idx(j)`.
        let e = at.substitute(hole, k).rewrite(&mut |x| match x.kind {
            ExprKind::Load(v, idx) => {
                Expr { kind: ExprKind::Load(v, idx.iter().map(canon).collect()), ty: x.ty, span: x.span }
            }
            _ => x,
        });
        canon(&e)
    }

    pub fn count(&self) -> Expr {
        match self {
            Sub::Index(_) => Expr::int(1),
            Sub::Vector { count, .. } => count.clone(),
            Sub::Range { lo, hi, st: 1 } => canon(&hi.clone().sub(lo.clone()).add(Expr::int(1))),
            Sub::Range { .. } => match self.strided_trips() {
                t if t.as_int().is_some() => Expr::int(t.as_int().unwrap_or(0).max(0)),
                t => clamp0(t),
            },
        }
    }

    /// The loop bound of a strided range: `(hi - lo) // st + 1` with floor division, which
    /// is 0 or negative when the range is empty (a loop `k < bound` then does not run).
    pub fn strided_trips(&self) -> Expr {
        let Sub::Range { lo, hi, st } = self else { return Expr::int(1) };
        // Divide by the magnitude: `floor(d / st) == floor(-d / -st)`.
        let d = if *st > 0 { hi.clone().sub(lo.clone()) } else { lo.clone().sub(hi.clone()) };
        let d = canon(&d);
        let m = st.abs();
        match d.as_int() {
            Some(c) => Expr::int(c.div_euclid(m) + 1),
            None => canon(&Expr::binary(BinOp::FloorDiv, d, Expr::int(m)).add(Expr::int(1))),
        }
    }
}

pub fn promote(a: Expr, b: Expr) -> (Expr, Expr) {
    if a.ty == b.ty {
        return (a, b);
    }
    let t = if a.ty == Scalar::F64 || b.ty == Scalar::F64 {
        Scalar::F64
    } else if a.ty == Scalar::F32 || b.ty == Scalar::F32 {
        Scalar::F32
    } else {
        Scalar::I64
    };
    (a.cast(t), b.cast(t))
}

/// The kind parameters of `iso_fortran_env` and `iso_c_binding` (gfortran's values).
fn intrinsic_kind(name: &str) -> Option<i64> {
    Some(match name {
        "real32" | "c_float" | "int32" | "c_int" | "c_int32_t" => 4,
        "real64" | "c_double" | "int64" | "c_int64_t" | "c_long" | "c_long_long" | "c_size_t" => 8,
        "real128" | "c_long_double" => 16,
        "int8" | "c_int8_t" | "c_bool" | "c_char" => 1,
        "int16" | "c_int16_t" | "c_short" => 2,
        _ => return None,
    })
}

impl<'s, 't> Lowerer<'s, 't> {
    pub fn expr(&mut self, n: &'t AExpr, el: Option<&[Expr]>) -> R<Expr> {
        let link = self.enter(n)?;
        let r = self.expr_inner(n, el);
        self.leave(link);
        r.map(|e| if e.span.is_none() { e.with_span(self.sp(n)) } else { e })
    }

    /// Counts one more level of nesting for `n`, or, when `n` is the left operand of a
    /// binary operator and a binary operator itself (the left spine of `a + b + c + ...`),
    /// one more chain link (see [`MAX_CHAIN`]): a long sum is flat to its author. Whether
    /// it is a link was set by the caller (`chain_link`). Returns which was counted.
    fn enter(&mut self, n: &'t AExpr) -> R<bool> {
        let link = std::mem::take(&mut self.chain_link) && matches!(n.kind, AKind::Math { .. });
        if link {
            if self.chain >= MAX_CHAIN {
                return Err(self
                    .err(n, format!("expression too long: more than {MAX_CHAIN} chained operators"))
                    .with_help("split it into several statements (`s = ...` then `s = s + ...`)"));
            }
            self.chain += 1;
        } else {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                self.depth -= 1;
                return Err(self.err(n, "expression nested too deeply"));
            }
        }
        Ok(link)
    }

    fn leave(&mut self, link: bool) {
        if link {
            self.chain -= 1;
        } else {
            self.depth -= 1;
        }
    }

    pub fn int_expr(&mut self, n: &'t AExpr) -> R<Expr> {
        if self.shape_of(n)?.is_some() {
            return Err(self.err(n, "an integer scalar is expected here, not an array"));
        }
        let e = self.expr(n, None)?;
        if e.ty != Scalar::I64 {
            return Err(self.err(n, format!("an integer is expected here, this is {}", e.ty)));
        }
        Ok(canon(&e))
    }

    pub fn cond_expr(&mut self, n: &'t AExpr) -> R<Expr> {
        if self.shape_of(n)?.is_some() {
            return Err(self
                .err(n, "a scalar condition is expected here, not an array")
                .with_help("array conditions (`where`, `any`, `all`) are not supported yet"));
        }
        let e = self.expr(n, None)?;
        if e.ty != Scalar::Bool {
            return Err(self.err(n, "a logical condition is expected here"));
        }
        Ok(e)
    }

    /// `double precision damp` in a caller types the function `damp` of the files (F77): the
    /// name is bound to an unused scalar local, but `damp(x)` calls the function.
    pub fn typed_function(&self, name: &str) -> bool {
        let scalar_local = matches!(self.names.get(name), Some(Binding::Var(v))
            if self.f.var(*v).role == VarRole::Local && !self.f.var(*v).ty.is_array());
        scalar_local
            && !self.loops.iter().any(|(x, _)| x == name)
            && self.unit.find(name).is_some_and(|p| p.kind == ProcKind::Function)
    }

    /// A `character` variable used where adjc needs a value.
    pub fn text_error(&self, n: &'t AExpr) -> Diagnostic {
        self.err(n, format!("`{}` is a character variable, used here in the computation", self.text(n)))
            .with_help("adjc handles text only in statements it leaves out (`print`, `write`, profiling hooks); compute with numbers here")
    }

    /// The meaning of a name; undeclared names get implicit types unless `implicit none`.
    /// A real `parameter` read by an executable statement: its local (see
    /// `Lowerer::named_constants`), made and initialised at its first use.
    fn named_constant(&mut self, n: &'t AExpr, value: Expr) -> Expr {
        let name = self.text(n).to_string();
        let key = (name.to_ascii_lowercase(), format!("{value:?}"));
        let ty = value.ty;
        if let Some(v) = self.constant_vars.get(&key) {
            return Expr::var(*v, ty);
        }
        let decl = self.constant_spans.get(&key).map(|(span, _)| *span).unwrap_or(self.sp(n));
        // The value as written (`1.0 / 9.0`, `2 * kappa`), when it is plain arithmetic on
        // literals and other real constants; else the folded value.
        let written = self.constant_spans.get(&key).and_then(|(_, init)| *init).and_then(|init| self.as_written(init));
        let value = match written {
            Some(w) if w.ty == ty => w,
            _ => value,
        };
        let id = self.f.add_var(name, Type::Scalar(ty), VarRole::Local, decl);
        self.constant_vars.insert(key, id);
        self.const_inits.push(Stmt::assign(Place::scalar(id), value, decl));
        Expr::var(id, ty)
    }

    /// A constant's initial value without folding: `+ - * /`, negation, parentheses, real
    /// literals and real constants (by name). Integer literals become reals (Fortran's
    /// mixed arithmetic, exact for those a constant expression holds).
    fn as_written(&mut self, n: &'t AExpr) -> Option<Expr> {
        let real = |e: Expr| -> Option<Expr> {
            match (&e.kind, e.ty) {
                (_, t) if t.is_float() => Some(e),
                (ExprKind::Const(Literal::Int(v)), Scalar::I64) => Some(Expr::float(*v as f64, Scalar::F64)),
                _ => None,
            }
        };
        match &n.kind {
            AKind::Number(_) => real(self.number(n).ok()?),
            AKind::Paren(inner) => self.as_written(inner),
            AKind::Name(_) => match self.lookup(n).ok()? {
                Binding::Const(e) if e.ty.is_float() && e.vars().is_empty() => Some(self.named_constant(n, e)),
                Binding::Const(e) => real(e),
                Binding::Var(_) => None,
            },
            AKind::Unary { op: UnaryOp::Neg, operand } => {
                let x = self.as_written(operand)?;
                let ty = x.ty;
                Some(Expr { kind: ExprKind::Unary(UnOp::Neg, Box::new(x)), ty, span: Span::NONE })
            }
            AKind::Math { op, lhs, rhs } => {
                let op = match op {
                    MathOp::Add => BinOp::Add,
                    MathOp::Sub => BinOp::Sub,
                    MathOp::Mul => BinOp::Mul,
                    MathOp::Div => BinOp::Div,
                    _ => return None,
                };
                let (x, y) = (self.as_written(lhs)?, self.as_written(rhs)?);
                let ty = if x.ty == Scalar::F64 || y.ty == Scalar::F64 { Scalar::F64 } else { x.ty };
                Some(Expr {
                    kind: ExprKind::Binary(op, Box::new(x.cast(ty)), Box::new(y.cast(ty))),
                    ty,
                    span: Span::NONE,
                })
            }
            _ => None,
        }
    }

    pub fn lookup(&mut self, n: &'t AExpr) -> R<Binding> {
        let key = self.text(n).to_ascii_lowercase();
        if let Some((_, v)) = self.loops.iter().rev().find(|(name, _)| *name == key) {
            return Ok(Binding::Var(*v));
        }
        if let Some(b) = self.names.get(&key) {
            return Ok(b.clone());
        }
        if self.absent.contains(&key) {
            return Err(self
                .err(n, format!("the optional argument `{}` is absent in this call", self.text(n)))
                .with_help(format!("use `{0}` under `if (present({0}))`, or pass it", self.text(n))));
        }
        if self.text_names.contains(&key) {
            return Err(self.text_error(n));
        }
        if self.unit.find(&key).is_some() {
            return Err(self.err(n, format!("`{key}` is a procedure, not a variable")));
        }
        if self.host_param_arrays.contains(&key) {
            return Err(self
                .err(n, format!("the `parameter` array `{}` of a module is not supported yet", self.text(n)))
                .with_help("declare the `parameter` array in the routine that reads it (adjc reads those)"));
        }
        if self.host_vars.contains(&key) {
            return Err(self.err(n, format!("the module variable `{}` is not supported", self.text(n))).with_help(
                "adjc passes module scalars and arrays with constant bounds; pass this one as an argument",
            ));
        }
        // The kind constants of the intrinsic modules (`use iso_fortran_env, only: real64`,
        // `integer, parameter :: dp = real64`), by value.
        if let Some(k) = intrinsic_kind(&key) {
            return Ok(Binding::Const(Expr::int(k)));
        }
        if self.implicit_none {
            return Err(self
                .err(n, format!("`{}` has no type declaration", self.text(n)))
                .with_help("declare it (the procedure has `implicit none`)"));
        }
        let first = key.chars().next().unwrap_or('a');
        let ty = if ('i'..='n').contains(&first) { Scalar::I64 } else { Scalar::F32 };
        let id = self.f.add_var(self.text(n).to_string(), Type::Scalar(ty), VarRole::Local, self.sp(n));
        self.names.insert(key, Binding::Var(id));
        Ok(Binding::Var(id))
    }

    fn expr_inner(&mut self, n: &'t AExpr, el: Option<&[Expr]>) -> R<Expr> {
        match &n.kind {
            AKind::Number(_) => self.number(n),
            AKind::Bool(b) => Ok(Expr::boolean(*b)),
            AKind::Paren(inner) => self.expr(inner, el),
            AKind::Name(_) => match self.lookup(n)? {
                Binding::Const(e) if self.named_constants && e.ty.is_float() && e.vars().is_empty() => {
                    Ok(self.named_constant(n, e))
                }
                Binding::Const(e) => Ok(e),
                Binding::Var(v) => self.whole(n, v, el),
            },
            AKind::Math { op, lhs, rhs } => {
                self.chain_link = true;
                let x = self.expr(lhs, el)?;
                let y = self.expr(rhs, el)?;
                self.arith(n, op.symbol(), x, y)
            }
            AKind::Unary { op, operand } => {
                let x = self.expr(operand, el)?;
                match op {
                    UnaryOp::Neg if x.ty != Scalar::Bool => Ok(x.neg()),
                    UnaryOp::Pos if x.ty != Scalar::Bool => Ok(x),
                    UnaryOp::Not if x.ty == Scalar::Bool => {
                        Ok(Expr::new(ExprKind::Unary(UnOp::Not, Box::new(x)), Scalar::Bool, Span::NONE))
                    }
                    _ => {
                        let op = match op {
                            UnaryOp::Neg => "-",
                            UnaryOp::Pos => "+",
                            UnaryOp::Not => ".not.",
                            UnaryOp::Other(o) => o,
                        };
                        Err(self.err(n, format!("the operator `{op}` does not apply to {}", x.ty)))
                    }
                }
            }
            AKind::Compare { op, lhs, rhs } => {
                let op = match op {
                    CmpOp::Lt => BinOp::Lt,
                    CmpOp::Le => BinOp::Le,
                    CmpOp::Gt => BinOp::Gt,
                    CmpOp::Ge => BinOp::Ge,
                    CmpOp::Eq => BinOp::Eq,
                    CmpOp::Ne => BinOp::Ne,
                };
                let (x, y) = promote(self.expr(lhs, el)?, self.expr(rhs, el)?);
                if x.ty == Scalar::Bool && !matches!(op, BinOp::Eq | BinOp::Ne) {
                    return Err(self.err(n, "logical values cannot be ordered"));
                }
                Ok(Expr::binary(op, x, y))
            }
            AKind::Not(operand) => {
                let x = self.expr(operand, el)?;
                if x.ty != Scalar::Bool {
                    return Err(self.err(n, "`.not.` needs a logical operand"));
                }
                Ok(Expr::new(ExprKind::Unary(UnOp::Not, Box::new(x)), Scalar::Bool, Span::NONE))
            }
            AKind::Logical { op, lhs, rhs } => {
                let op_text = match op {
                    LogicalOp::And => ".and.",
                    LogicalOp::Or => ".or.",
                    LogicalOp::Eqv => ".eqv.",
                    LogicalOp::Neqv => ".neqv.",
                    LogicalOp::Other(o) => o,
                };
                let x = self.expr(lhs, el)?;
                let y = self.expr(rhs, el)?;
                if x.ty != Scalar::Bool || y.ty != Scalar::Bool {
                    return Err(self.err(n, format!("`{op_text}` needs logical operands")));
                }
                let op = match op {
                    LogicalOp::And => BinOp::And,
                    LogicalOp::Or => BinOp::Or,
                    LogicalOp::Eqv => BinOp::Eq,
                    LogicalOp::Neqv => BinOp::Ne,
                    LogicalOp::Other(o) => return Err(self.err(n, format!("the operator `{o}` is not supported"))),
                };
                Ok(Expr::binary(op, x, y))
            }
            AKind::Call { .. } => self.call(n, el),
            AKind::Str(_) => Err(self.err(n, "character strings are not supported in kernels")),
            AKind::ArrayConstructor(_) if self.hoisted.contains_key(&n.id) => {
                let v = self.hoisted[&n.id];
                self.whole(n, v, el)
            }
            AKind::ArrayConstructor(_) => Err(self
                .err(n, "array constructors are supported in the right-hand side of assignments")
                .with_help("assign the constructor to an array first")),
            AKind::Range { .. } | AKind::Keyword { .. } | AKind::Component { .. } | AKind::ImpliedDo(_) => {
                Err(self.err(n, format!("this expression is not supported (`{}`)", n.what())))
            }
            AKind::Unsupported(d) => Err(d.clone()),
        }
    }

    /// Variable `v` (a scalar, or a whole array at element `el`).
    fn whole(&mut self, n: &'t AExpr, v: VarId, el: Option<&[Expr]>) -> R<Expr> {
        let var = self.f.var(v).clone();
        if !var.ty.is_array() {
            return Ok(Expr::var(v, var.ty.elem()));
        }
        let Some(off) = el else {
            return Err(self
                .err(n, format!("the whole array `{}` is used where a scalar is expected", var.name))
                .with_help(format!("index it, e.g. `{}(i)`", var.name)));
        };
        if off.len() != var.ty.rank() {
            return Err(self.rank_error(n, var.ty.rank(), off.len()));
        }
        let idx = var.ty.dims().iter().zip(off).map(|(d, o)| canon(&d.lower.clone().add(o.clone()))).collect();
        Ok(Expr::load(v, idx, var.ty.elem()))
    }

    fn rank_error(&self, n: &AExpr, have: usize, want: usize) -> Diagnostic {
        self.err(n, format!("this array expression has rank {have}, but rank {want} is expected here"))
            .with_help("the operands of an array expression must have the same shape")
    }

    fn number(&mut self, n: &'t AExpr) -> R<Expr> {
        // As spelled in the node (a node the parser makes, such as an enumerator's `+ 1`,
        // has no text of its own at its span).
        let t = match &n.kind {
            AKind::Number(spelled) => spelled.to_ascii_lowercase(),
            _ => self.text(n).to_ascii_lowercase(),
        };
        let (body, kind) = match t.split_once('_') {
            Some((b, k)) => (b.to_string(), Some(k.to_string())),
            None => (t.clone(), None),
        };
        let kind_val = match &kind {
            None => None,
            Some(k) => match k.parse::<i64>() {
                Ok(v) => Some(v),
                Err(_) => match self.names.get(k) {
                    Some(Binding::Const(e)) => e.as_int(),
                    _ => match k.as_str() {
                        "real64" | "c_double" => Some(8),
                        "real32" | "c_float" => Some(4),
                        _ => return Err(self.err(n, format!("unknown kind `{k}`"))),
                    },
                },
            },
        };
        let is_real = body.contains(['.', 'e', 'd']);
        if !is_real {
            return body
                .parse::<i64>()
                .map(Expr::int)
                .map_err(|_| self.err(n, format!("cannot read the number `{t}`")));
        }
        let ty = match (body.contains('d'), kind_val) {
            (true, None) | (false, Some(8)) => Scalar::F64,
            (false, None | Some(4)) => Scalar::F32,
            (true, Some(_)) => return Err(self.err(n, format!("`{t}` has both a `d` exponent and a kind"))),
            (false, Some(k)) => {
                return Err(self
                    .err(n, format!("real kind {k} is not supported"))
                    .with_help("use kind 4 (single precision) or 8 (double precision)"))
            }
        };
        let v: f64 =
            body.replace('d', "e").parse().map_err(|_| self.err(n, format!("cannot read the number `{t}`")))?;
        // A default-real literal is single precision: `0.1` is 0.100000001490116..., also
        // where it meets double precision operands (as in gfortran).
        let v = if ty == Scalar::F32 { v as f32 as f64 } else { v };
        Ok(Expr::float(v, ty))
    }

    fn arith(&mut self, n: &'t AExpr, op: &str, x: Expr, y: Expr) -> R<Expr> {
        if x.ty == Scalar::Bool || y.ty == Scalar::Bool {
            return Err(self.err(n, format!("`{op}` does not apply to logical values")));
        }
        if op == "**" {
            return self.pow(n, x, y);
        }
        let (x, y) = promote(x, y);
        let op = match op {
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            // Integer division truncates in Fortran as in C.
            "/" => BinOp::Div,
            o => return Err(self.err(n, format!("the operator `{o}` is not supported"))),
        };
        if op == BinOp::Div && x.ty == Scalar::I64 && y.as_int() == Some(0) {
            return Err(self.err(n, "integer division by zero"));
        }
        Ok(Expr::binary(op, x, y))
    }

    fn pow(&mut self, n: &'t AExpr, x: Expr, y: Expr) -> R<Expr> {
        if x.ty == Scalar::I64 && y.ty == Scalar::I64 {
            return match y.as_int() {
                Some(k) if (0..=8).contains(&k) => {
                    let mut e = Expr::int(1);
                    for _ in 0..k {
                        e = e.mul(x.clone());
                    }
                    Ok(e)
                }
                _ => Err(self.err(n, "integer powers need a small non-negative literal exponent")),
            };
        }
        let t = if x.ty == Scalar::I64 { y.ty } else { x.ty };
        let t = if y.ty == Scalar::F64 { Scalar::F64 } else { t };
        Ok(Expr::call(Intrinsic::Pow, vec![x.cast(t), y.cast(t)], t))
    }

    /// The arguments of a call (none for any other expression).
    pub fn call_args(&self, n: &'t AExpr) -> &'t [AExpr] {
        match &n.kind {
            AKind::Call { args, .. } => args,
            _ => &[],
        }
    }

    fn call(&mut self, n: &'t AExpr, el: Option<&[Expr]>) -> R<Expr> {
        let AKind::Call { callee, args } = &n.kind else { return Err(self.err(n, "cannot read this call")) };
        if callee.as_name().is_none() {
            return Err(self.err(n, "this expression is not supported"));
        }
        let name = self.text(&**callee).to_ascii_lowercase();
        if let Some(sf) = self.stmt_fns.get(&name).cloned() {
            return self.call_stmt_fn(n, sf, args, el);
        }
        if self.text_names.contains(&name) && !self.names.contains_key(&name) {
            return Err(self.text_error(callee));
        }
        let local = (self.loops.iter().any(|(x, _)| *x == name) || self.names.contains_key(&name))
            && !self.typed_function(&name);
        if local {
            return match self.lookup(callee)? {
                Binding::Var(v) if self.f.var(v).ty.is_array() => self.element(n, v, args, el),
                _ => Err(self.err(&**callee, format!("`{}` is not an array", self.text(&**callee)))),
            };
        }
        if let Some(v) = self.hoisted.get(&n.id).copied() {
            return self.whole(n, v, el);
        }
        if let Some(proc) = self.unit.find(&name).filter(|p| p.kind == ProcKind::Function) {
            let result = self.inline_call(n.span, proc, args, el)?;
            let Some(r) = result else { return Err(self.err(n, format!("`{name}` is not a function"))) };
            return Ok(Expr::var(r, self.f.var(r).ty.elem()));
        }
        self.intrinsic(n, &name, args, el)
    }

    /// The subscripts of `var(args)`.
    pub fn subscripts(&mut self, n: &'t AExpr, var: VarId, args: &'t [AExpr]) -> R<Vec<Sub>> {
        let v = self.f.var(var).clone();
        if args.len() != v.ty.rank() {
            return Err(self.err(
                n,
                format!("`{}` has rank {} but is used with {} subscript(s)", v.name, v.ty.rank(), args.len()),
            ));
        }
        let mut subs = Vec::new();
        for (d, a) in v.ty.dims().iter().zip(args) {
            if let AKind::Range { lo, hi, stride } = &a.kind {
                let lo = match lo {
                    Some(x) => self.int_expr(x)?,
                    None => d.lower.clone(),
                };
                let hi = match hi {
                    Some(x) => self.int_expr(x)?,
                    None => canon(&d.lower.clone().add(d.extent.clone()).sub(Expr::int(1))),
                };
                let st = match stride {
                    Some(x) => match self.int_expr(x)?.as_int() {
                        Some(0) => return Err(self.err(x, "the stride of a section cannot be zero")),
                        Some(k) => k,
                        None => return Err(self.err(x, "the stride of a section must be an integer constant")),
                    },
                    None => 1,
                };
                subs.push(Sub::Range { lo, hi, st });
            } else if let AKind::Keyword { .. } = a.kind {
                return Err(self.err(a, "keyword arguments are not valid in an array reference"));
            } else {
                if let Some(shape) = self.shape_of(a)? {
                    if shape.len() != 1 {
                        return Err(self
                            .err(
                                a,
                                format!("a vector subscript must be a rank-1 array, this one has rank {}", shape.len()),
                            )
                            .with_help("index with a rank-1 integer array (`x(idx)`) or with `idx(i)` inside a loop"));
                    }
                    let h = hole(subs.len());
                    let at = self.expr(a, Some(&[Expr::var(h, Scalar::I64)]))?;
                    if at.ty != Scalar::I64 {
                        return Err(self.err(a, "a vector subscript must be an integer array"));
                    }
                    subs.push(Sub::Vector { at, hole: h, count: shape[0].clone() });
                    continue;
                }
                subs.push(Sub::Index(self.int_expr(a)?));
            }
        }
        Ok(subs)
    }

    /// `var(args)` at element `el` of the enclosing array expression.
    fn element(&mut self, n: &'t AExpr, var: VarId, args: &'t [AExpr], el: Option<&[Expr]>) -> R<Expr> {
        let subs = self.subscripts(n, var, args)?;
        let ranges = subs.iter().filter(|s| s.is_section()).count();
        let off = match el {
            _ if ranges == 0 => &[][..],
            Some(off) if off.len() == ranges => off,
            Some(off) => return Err(self.rank_error(n, ranges, off.len())),
            None => {
                return Err(self
                    .err(n, "an array section is used where a scalar is expected")
                    .with_help("assign it to an array section of the same shape, or reduce it with `sum`"))
            }
        };
        let mut k = 0;
        let mut idx = Vec::new();
        for s in subs {
            idx.push(match s {
                Sub::Index(e) => e,
                Sub::Range { lo, st, .. } => {
                    let o = off[k].clone();
                    k += 1;
                    canon(&lo.add(o.mul(Expr::int(st))))
                }
                Sub::Vector { at, hole, .. } => {
                    let o = off[k].clone();
                    k += 1;
                    Sub::vector_at(&at, hole, &o)
                }
            });
        }
        Ok(Expr::load(var, idx, self.f.var(var).ty.elem()))
    }

    /// The extents of an array-valued expression, `None` for a scalar.
    pub fn shape_of(&mut self, n: &'t AExpr) -> R<Option<Vec<Expr>>> {
        let link = self.enter(n)?;
        let r = self.shape_inner(n);
        self.leave(link);
        r
    }

    fn shape_inner(&mut self, n: &'t AExpr) -> R<Option<Vec<Expr>>> {
        match &n.kind {
            AKind::ArrayConstructor(_) => match self.hoisted.get(&n.id) {
                Some(v) => Ok(Some(self.f.var(*v).ty.dims().iter().map(|d| d.extent.clone()).collect())),
                None => Err(self
                    .err(n, "array constructors are supported in the right-hand side of assignments")
                    .with_help("assign the constructor to an array first")),
            },
            AKind::Name(_) => match self.lookup(n)? {
                Binding::Var(v) if self.f.var(v).ty.is_array() => {
                    Ok(Some(self.f.var(v).ty.dims().iter().map(|d| d.extent.clone()).collect()))
                }
                _ => Ok(None),
            },
            AKind::Paren(_)
            | AKind::Math { .. }
            | AKind::Unary { .. }
            | AKind::Compare { .. }
            | AKind::Logical { .. }
            | AKind::Not(_) => {
                let mut shape: Option<Vec<Expr>> = None;
                let is_math = matches!(n.kind, AKind::Math { .. });
                for (k, c) in n.children().into_iter().enumerate() {
                    self.chain_link = k == 0 && is_math;
                    if let Some(s) = self.shape_of(c)? {
                        match &shape {
                            Some(prev) if prev.len() != s.len() => return Err(self.rank_error(c, s.len(), prev.len())),
                            Some(_) => {}
                            None => shape = Some(s),
                        }
                    }
                }
                Ok(shape)
            }
            AKind::Call { callee, args } => {
                let name = self.text(&**callee).to_ascii_lowercase();
                if self.stmt_fns.contains_key(&name) {
                    return Ok(None);
                }
                let local = (self.loops.iter().any(|(x, _)| *x == name) || self.names.contains_key(&name))
                    && !self.typed_function(&name);
                if local {
                    if let Binding::Var(v) = self.lookup(callee)? {
                        if self.f.var(v).ty.is_array() {
                            let subs = self.subscripts(n, v, args)?;
                            let shape: Vec<Expr> = subs.iter().filter(|s| s.is_section()).map(Sub::count).collect();
                            return Ok(if shape.is_empty() { None } else { Some(shape) });
                        }
                    }
                    return Ok(None);
                }
                if let Some(v) = self.hoisted.get(&n.id).copied() {
                    let ty = &self.f.var(v).ty;
                    return Ok(ty.is_array().then(|| ty.dims().iter().map(|d| d.extent.clone()).collect()));
                }
                if self.unit.find(&name).is_some() {
                    return Ok(None);
                }
                match name.as_str() {
                    "sum" | "product" | "maxval" | "minval" | "dot_product" | "size" | "lbound" | "ubound"
                    | "present" => Ok(None),
                    "matmul" => {
                        let (Some(a), Some(b)) = (args.first(), args.get(1)) else { return Ok(None) };
                        let sa = self.shape_of(a)?.unwrap_or_default();
                        let sb = self.shape_of(b)?.unwrap_or_default();
                        Ok(match (sa.len(), sb.len()) {
                            (2, 2) => Some(vec![sa[0].clone(), sb[1].clone()]),
                            (2, 1) => Some(vec![sa[0].clone()]),
                            (1, 2) => Some(vec![sb[1].clone()]),
                            _ => return Err(self.err(n, "`matmul` needs a matrix and a matrix or vector")),
                        })
                    }
                    "transpose" => {
                        let Some(a) = args.first() else { return Ok(None) };
                        match self.shape_of(a)? {
                            Some(s) if s.len() == 2 => Ok(Some(vec![s[1].clone(), s[0].clone()])),
                            _ => Err(self.err(n, "`transpose` needs a rank-2 array")),
                        }
                    }
                    _ => {
                        // Elemental intrinsics: the shape of their array arguments.
                        let mut shape: Option<Vec<Expr>> = None;
                        for a in args {
                            if let AKind::Keyword { .. } = a.kind {
                                continue;
                            }
                            if let Some(s) = self.shape_of(a)? {
                                if shape.as_ref().is_some_and(|p| p.len() != s.len()) {
                                    return Err(self.rank_error(a, s.len(), shape.map(|p| p.len()).unwrap_or(0)));
                                }
                                shape = Some(s);
                            }
                        }
                        Ok(shape)
                    }
                }
            }
            _ => Ok(None),
        }
    }
}
