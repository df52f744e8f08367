//! Intrinsic functions: elemental math, conversions, and the array intrinsics `sum`,
//! `product`, `maxval`, `minval`, `dot_product`, `matmul`, `transpose`, `size` (lowered
//! to loops: reductions become a `Map` with a shared accumulation, or a sequential loop
//! inside an array statement; each element of `matmul` is an inner-product loop). These
//! loops are the fallback: `blas` makes library calls of the products it can.

use super::ast::{self, ExprKind as AKind};
use super::expr::promote;
use super::lower::{Binding, Lowerer, R};
use crate::sym::{canon, Lin};
use adjc_ir::*;

type AExpr = ast::Expr;

impl<'s, 't> Lowerer<'s, 't> {
    fn float_arg(&mut self, a: &'t AExpr, el: Option<&[Expr]>) -> R<Expr> {
        let e = self.expr(a, el)?;
        match e.ty {
            Scalar::Bool => Err(self.err(a, "a numeric argument is expected")),
            Scalar::I64 => Ok(e.cast(Scalar::F32)),
            _ => Ok(e),
        }
    }

    fn nargs(&self, n: &'t AExpr, name: &str, args: &'t [AExpr], lo: usize, hi: usize) -> R<()> {
        if args.iter().any(|a| matches!(a.kind, AKind::Keyword { .. })) {
            return Err(self.err(n, format!("keyword arguments of `{name}` are not supported")));
        }
        if args.len() < lo || args.len() > hi {
            let want = if lo == hi {
                format!("{lo}")
            } else if hi == usize::MAX {
                format!("at least {lo}")
            } else {
                format!("{lo} to {hi}")
            };
            return Err(self.err(n, format!("`{name}` takes {want} argument(s), got {}", args.len())));
        }
        Ok(())
    }

    /// The value of a conversion's `kind` argument: an integer constant, a named constant,
    /// `kind(...)`, or an `iso_fortran_env`/`iso_c_binding` kind name.
    fn conversion_kind(&mut self, k: &'t AExpr) -> R<i64> {
        match self.text(k).trim().to_ascii_lowercase().as_str() {
            "real64" | "c_double" | "int64" | "c_int64_t" => return Ok(8),
            "real32" | "c_float" | "int32" | "c_int" => return Ok(4),
            _ => {}
        }
        self.expr(k, None)?.as_int().ok_or_else(|| self.err(k, "the kind must be an integer constant"))
    }

    pub fn intrinsic(&mut self, n: &'t AExpr, name: &str, args: &'t [AExpr], el: Option<&[Expr]>) -> R<Expr> {
        let unary = match name {
            "sqrt" => Some(Intrinsic::Sqrt),
            "exp" => Some(Intrinsic::Exp),
            "log" => Some(Intrinsic::Log),
            "sin" => Some(Intrinsic::Sin),
            "cos" => Some(Intrinsic::Cos),
            "tan" => Some(Intrinsic::Tan),
            "tanh" => Some(Intrinsic::Tanh),
            "sinh" => Some(Intrinsic::Sinh),
            "cosh" => Some(Intrinsic::Cosh),
            "asin" => Some(Intrinsic::Arcsin),
            "acos" => Some(Intrinsic::Arccos),
            "atan" => Some(Intrinsic::Arctan),
            "dsqrt" => Some(Intrinsic::Sqrt),
            "dexp" => Some(Intrinsic::Exp),
            "dlog" => Some(Intrinsic::Log),
            "dsin" => Some(Intrinsic::Sin),
            "dcos" => Some(Intrinsic::Cos),
            _ => None,
        };
        if let Some(f) = unary {
            self.nargs(n, name, args, 1, 1)?;
            let x = self.float_arg(&args[0], el)?;
            let t = x.ty;
            return Ok(Expr::call(f, vec![x], t));
        }
        match name {
            "abs" | "dabs" => {
                self.nargs(n, name, args, 1, 1)?;
                let x = self.expr(&args[0], el)?;
                if x.ty == Scalar::Bool {
                    return Err(self.err(n, "`abs` needs a numeric argument"));
                }
                let t = x.ty;
                Ok(Expr::call(Intrinsic::Abs, vec![x], t))
            }
            "atan2" | "sign" | "dsign" => {
                self.nargs(n, name, args, 2, 2)?;
                let (a, b) = promote(self.float_arg(&args[0], el)?, self.float_arg(&args[1], el)?);
                let t = a.ty;
                let f = if name == "atan2" { Intrinsic::Arctan2 } else { Intrinsic::Sign };
                Ok(Expr::call(f, vec![a, b], t))
            }
            "max" | "min" | "amax1" | "amin1" | "dmax1" | "dmin1" | "max0" | "min0" => {
                self.nargs(n, name, args, 2, usize::MAX)?;
                let mut vals = Vec::new();
                for a in args {
                    let v = self.expr(a, el)?;
                    if v.ty == Scalar::Bool {
                        return Err(self.err(a, format!("`{name}` needs numeric arguments")));
                    }
                    vals.push(v);
                }
                let t = vals.iter().map(|v| v.ty).max().unwrap_or(Scalar::F64);
                let f = if name.contains("max") { Intrinsic::Max } else { Intrinsic::Min };
                let mut it = vals.into_iter().map(|v| v.cast(t));
                let mut acc = it.next().unwrap_or_else(|| Expr::int(0));
                for v in it {
                    acc = Expr::call(f, vec![acc, v], t);
                }
                Ok(acc)
            }
            "aint" | "dint" | "anint" | "dnint" => {
                self.nargs(n, name, args, 1, 1)?;
                let x = self.float_arg(&args[0], el)?;
                Ok(if name.ends_with("nint") { rounded(x) } else { truncated(x) })
            }
            "dim" | "ddim" | "idim" => {
                // max(x - y, 0)
                self.nargs(n, name, args, 2, 2)?;
                let (x, y) = promote(self.expr(&args[0], el)?, self.expr(&args[1], el)?);
                let t = x.ty;
                let zero = if t == Scalar::I64 { Expr::int(0) } else { Expr::float(0.0, t) };
                Ok(Expr::call(Intrinsic::Max, vec![x.sub(y), zero], t))
            }
            "hypot" => {
                self.nargs(n, name, args, 2, 2)?;
                let (x, y) = promote(self.float_arg(&args[0], el)?, self.float_arg(&args[1], el)?);
                let t = x.ty;
                Ok(Expr::call(Intrinsic::Sqrt, vec![x.clone().mul(x).add(y.clone().mul(y))], t))
            }
            "mod" | "modulo" => {
                self.nargs(n, name, args, 2, 2)?;
                let (a, b) = promote(self.expr(&args[0], el)?, self.expr(&args[1], el)?);
                if a.ty != Scalar::I64 {
                    // a - aint(a / b) * b (`mod`, the sign of a) or a - floor(a / b) * b
                    // (`modulo`, the sign of b): the rounded quotient is piecewise constant,
                    // so the derivatives are 1 and -aint(a / b) (or -floor).
                    let t = a.ty;
                    let q = a.clone().div(b.clone());
                    let whole = if name == "modulo" { Expr::call(Intrinsic::Floor, vec![q], t) } else { truncated(q) };
                    return Ok(a.sub(whole.mul(b)));
                }
                if b.as_int() == Some(0) {
                    return Err(self.err(n, "`mod` by zero"));
                }
                if name == "modulo" {
                    return Ok(Expr::binary(BinOp::Mod, a, b));
                }
                // Fortran `mod` takes the sign of the dividend (C `%`): a - (a / b) * b.
                Ok(a.clone().sub(a.div(b.clone()).mul(b)))
            }
            "dble" | "dfloat" | "real" | "float" | "sngl" | "int" | "nint" | "floor" | "ceiling" => {
                // The optional kind: `real(x, 8)`, `real(x, kind=dp)`.
                let kind_node = match args.get(1) {
                    Some(k @ AExpr { kind: AKind::Keyword { name: key, value }, .. }) => {
                        if !key.eq_ignore_ascii_case("kind") {
                            return Err(self.err(k, format!("`{name}` takes `kind=` as its keyword argument")));
                        }
                        Some(&**value)
                    }
                    k => k,
                };
                self.nargs(n, name, &args[..args.len().min(1)], 1, 1)?;
                if args.len() > 2 || (kind_node.is_some() && matches!(name, "dble" | "dfloat" | "sngl" | "float")) {
                    return Err(self.err(n, format!("too many arguments for `{name}`")));
                }
                let kind = match kind_node {
                    Some(k) => Some(self.conversion_kind(k)?),
                    None => None,
                };
                let x = self.expr(&args[0], el)?;
                if x.ty == Scalar::Bool {
                    return Err(self.err(n, format!("`{name}` needs a numeric argument")));
                }
                Ok(match name {
                    "dble" | "dfloat" => x.cast(Scalar::F64),
                    // `real(x)` is single precision whatever `x` is: a double is rounded.
                    "real" | "float" => match kind {
                        None | Some(4) => x.cast(Scalar::F32),
                        Some(8) => x.cast(Scalar::F64),
                        Some(k) => {
                            return Err(self
                                .err(n, format!("real kind {k} is not supported"))
                                .with_help("use kind 4 (single precision) or 8 (double precision)"))
                        }
                    },
                    "sngl" => x.cast(Scalar::F32),
                    "int" => x.cast(Scalar::I64),
                    "nint" => {
                        let t = if x.ty == Scalar::I64 { Scalar::F64 } else { x.ty };
                        let half = Expr::float(0.5, t);
                        let x = x.cast(t);
                        let up = Expr::call(Intrinsic::Floor, vec![x.clone().add(half.clone())], t);
                        let down = Expr::call(Intrinsic::Ceil, vec![x.clone().sub(half)], t);
                        Expr::select(Expr::binary(BinOp::Ge, x, Expr::float(0.0, t)), up, down).cast(Scalar::I64)
                    }
                    "floor" | "ceiling" => {
                        if x.ty == Scalar::I64 {
                            x
                        } else {
                            let t = x.ty;
                            let f = if name == "floor" { Intrinsic::Floor } else { Intrinsic::Ceil };
                            Expr::call(f, vec![x], t).cast(Scalar::I64)
                        }
                    }
                    _ => x,
                })
            }
            "merge" => {
                self.nargs(n, name, args, 3, 3)?;
                let (a, b) = promote(self.expr(&args[0], el)?, self.expr(&args[1], el)?);
                let mask = self.expr(&args[2], el)?;
                if mask.ty != Scalar::Bool || a.ty == Scalar::Bool {
                    return Err(self.err(n, "`merge(tsource, fsource, mask)` needs numeric values and a logical mask"));
                }
                Ok(Expr::select(mask, a, b))
            }
            "huge" | "tiny" | "epsilon" => {
                self.nargs(n, name, args, 1, 1)?;
                let x = self.expr(&args[0], None)?;
                let f32_ = x.ty == Scalar::F32;
                Ok(match (name, x.ty) {
                    ("huge", Scalar::I64) => Expr::int(i64::MAX),
                    ("huge", _) => Expr::float(if f32_ { f32::MAX as f64 } else { f64::MAX }, x.ty),
                    ("tiny", t) if t.is_float() => {
                        Expr::float(if f32_ { f32::MIN_POSITIVE as f64 } else { f64::MIN_POSITIVE }, t)
                    }
                    ("epsilon", t) if t.is_float() => {
                        Expr::float(if f32_ { f32::EPSILON as f64 } else { f64::EPSILON }, t)
                    }
                    _ => return Err(self.err(n, format!("`{name}` needs a real argument"))),
                })
            }
            // Kind inquiries, so that `integer, parameter :: dp = kind(1.0d0)` works.
            "kind" => {
                self.nargs(n, name, args, 1, 1)?;
                let x = self.expr(&args[0], None)?;
                Ok(Expr::int(match x.ty {
                    Scalar::F32 => 4,
                    Scalar::Bool => 4,
                    _ => 8,
                }))
            }
            "selected_real_kind" => {
                self.nargs(n, name, args, 1, 3)?;
                let p = self.int_expr(&args[0])?.as_int().unwrap_or(15);
                Ok(Expr::int(if p <= 6 { 4 } else { 8 }))
            }
            "selected_int_kind" => {
                self.nargs(n, name, args, 1, 1)?;
                Ok(Expr::int(8))
            }
            "sum" | "product" | "maxval" | "minval" => {
                self.nargs(n, name, args, 1, 1)?;
                let op = match name {
                    "sum" => AccOp::Add,
                    "product" => AccOp::Mul,
                    "maxval" => AccOp::Max,
                    _ => AccOp::Min,
                };
                self.reduce(n, name, op, args)
            }
            "dot_product" => {
                self.nargs(n, name, args, 2, 2)?;
                self.reduce(n, name, AccOp::Add, args)
            }
            "matmul" => {
                self.nargs(n, name, args, 2, 2)?;
                self.matmul(n, args, el)
            }
            "transpose" => {
                self.nargs(n, name, args, 1, 1)?;
                match el {
                    Some(off) if off.len() == 2 => {
                        let swapped = [off[1].clone(), off[0].clone()];
                        self.expr(&args[0], Some(&swapped))
                    }
                    _ => Err(self.err(n, "`transpose` is only supported inside a rank-2 array expression")),
                }
            }
            "present" => {
                // Known at each call: the inlined callee is specialised to its call's arguments.
                self.nargs(n, name, args, 1, 1)?;
                let key = match &args[0].kind {
                    AKind::Name(x) => x.to_ascii_lowercase(),
                    _ => return Err(self.err(&args[0], "`present` takes the name of an optional argument")),
                };
                if self.absent.contains(&key) {
                    return Ok(Expr::boolean(false));
                }
                // A text argument passed to the call is present (the C has no text).
                match self.names.get(&key) {
                    Some(_) => Ok(Expr::boolean(true)),
                    None if self.text_names.contains(&key) => Ok(Expr::boolean(true)),
                    None => Err(self.err(&args[0], format!("`{key}` is not an argument here"))),
                }
            }
            "lbound" | "ubound" => {
                // The declared bounds of a whole array (`lbound(a, k)`): what a derived-type
                // argument passes for the lower bounds of its allocatable components.
                self.nargs(n, name, args, 2, 2)?;
                let dims = match (&args[0].kind, self.lookup(&args[0])) {
                    (AKind::Name(_), Ok(Binding::Var(v))) if self.f.var(v).ty.is_array() => {
                        self.f.var(v).ty.dims().to_vec()
                    }
                    _ => {
                        return Err(self
                            .err(&args[0], format!("`{name}` is supported for a whole array with its dimension"))
                            .with_help(format!("write `{name}(a, k)`")))
                    }
                };
                let k = self.int_expr(&args[1])?.as_int().unwrap_or(0);
                let Some(d) = usize::try_from(k).ok().and_then(|k| k.checked_sub(1)).and_then(|k| dims.get(k)) else {
                    return Err(self.err(&args[1], format!("`{name}` dimension out of range")));
                };
                Ok(if name == "lbound" {
                    d.lower.clone()
                } else {
                    crate::sym::canon(&d.lower.clone().add(d.extent.clone()).sub(Expr::int(1)))
                })
            }
            "size" => {
                self.nargs(n, name, args, 1, 2)?;
                let Some(shape) = self.shape_of(&args[0])? else {
                    return Err(self.err(n, "`size` needs an array argument"));
                };
                match args.get(1) {
                    Some(d) => {
                        let k = self.int_expr(d)?.as_int().unwrap_or(0);
                        if k < 1 || k as usize > shape.len() {
                            return Err(self.err(d, "`size` dimension out of range"));
                        }
                        Ok(shape[k as usize - 1].clone())
                    }
                    None => Ok(shape.into_iter().fold(Expr::int(1), |a, b| a.mul(b))),
                }
            }
            _ if self.host_param_arrays.contains(name) => Err(self
                .err(n, format!("the `parameter` array `{name}` of a module is not supported yet"))
                .with_help("declare the `parameter` array in the routine that reads it (adjc reads those)")),
            _ if self.host_vars.iter().any(|v| v == name) => Err(self
                .err(n, format!("the module variable `{name}` is not supported"))
                .with_help("adjc passes module scalars and arrays with constant bounds; pass this one as an argument")),
            _ => {
                let what = if self.unit.find(name).is_some() {
                    format!("calls to `{name}` are not supported yet")
                } else {
                    format!("unknown function or array `{name}`")
                };
                Err(self.err(n, what).with_help(if self.unit.find(name).is_some() {
                    "inline the function body into the kernel".to_string()
                } else {
                    format!("declare `{name}` as an array, or use a supported intrinsic")
                }))
            }
        }
    }

    /// Full reduction of an array expression into a temporary scalar; returns the scalar.
    fn reduce(&mut self, n: &'t AExpr, name: &str, op: AccOp, args: &'t [AExpr]) -> R<Expr> {
        let Some(shape) = self.shape_of(&args[0])? else {
            return Err(self.err(n, format!("`{name}` needs an array argument")));
        };
        if let Some(b) = args.get(1) {
            match self.shape_of(b)? {
                Some(sb) if sb.len() == shape.len() => self.conform(b, &shape, &sb)?,
                _ => return Err(self.err(b, format!("the arguments of `{name}` must be arrays of the same shape"))),
            }
        }
        // Inside an array statement each element needs its own reduction: a sequential
        // loop nest into an iteration-private scalar; elsewhere a parallel map.
        let inside_map = self.map_depth > 0;
        let span = self.sp(n);
        let vars: Vec<(String, VarId)> = shape
            .iter()
            .map(|_| {
                let nm = self.index_name(&[]);
                let id = self.f.add_var(nm.clone(), Type::Scalar(Scalar::I64), VarRole::Index, span);
                self.loops.push((nm, id));
                (String::new(), id)
            })
            .collect();
        let offs: Vec<Expr> = vars.iter().map(|(_, v)| Expr::var(*v, Scalar::I64).sub(Expr::int(1))).collect();
        // Statements the element expression needs (inlined calls, nested reductions)
        // end up in the body of the map built below.
        let map_body = usize::from(!inside_map);
        self.map_depth += map_body;
        let body = self.with_block(|lw| {
            let mut v = lw.expr(&args[0], Some(&offs))?;
            if let Some(b) = args.get(1) {
                let w = lw.expr(b, Some(&offs))?;
                let (x, y) = promote(v, w);
                v = x.mul(y);
            }
            if v.ty == Scalar::Bool {
                return Err(lw.err(n, format!("`{name}` needs a numeric argument")));
            }
            lw.reduce_value = Some(v);
            Ok(())
        });
        self.map_depth -= map_body;
        for _ in &vars {
            self.loops.pop();
        }
        let body = body?;
        let value = self.reduce_value.take().unwrap_or_else(|| Expr::int(0));
        let t = value.ty;
        let init = match op {
            AccOp::Add => Expr::float(0.0, t),
            AccOp::Mul => Expr::float(1.0, t),
            AccOp::Max => Expr::float(f64::NEG_INFINITY, t),
            AccOp::Min => Expr::float(f64::INFINITY, t),
        };
        let init = if t == Scalar::I64 {
            match op {
                AccOp::Add => Expr::int(0),
                AccOp::Mul => Expr::int(1),
                AccOp::Max => Expr::int(i64::MIN),
                AccOp::Min => Expr::int(i64::MAX),
            }
        } else {
            init
        };
        let acc_name = self.temp_name(match name {
            "sum" => "total",
            "product" => "prod",
            "maxval" => "vmax",
            "minval" => "vmin",
            _ => "dot",
        });
        let acc = self.f.add_var(acc_name, Type::Scalar(t), VarRole::Temp, span);
        let saved = self.span;
        self.emit(StmtKind::Assign { target: Place::scalar(acc), value: init });
        let mut inner = body;
        inner.push(Stmt::new(
            StmtKind::Accumulate { target: Place::scalar(acc), op, value, shared: !inside_map },
            self.span,
        ));
        let ids: Vec<VarId> = vars.iter().map(|(_, v)| *v).collect();
        if inside_map {
            for (k, id) in ids.iter().enumerate().rev() {
                let stop = canon(&shape[k].clone().add(Expr::int(1)));
                let l = Loop { id: LoopId::NEW, var: *id, start: Expr::int(1), stop, step: Expr::int(1), body: inner };
                inner = vec![Stmt::new(StmtKind::Loop(l), self.span)];
            }
            if let Some(b) = self.blocks.last_mut() {
                b.extend(inner);
            }
        } else {
            let dims = ids
                .iter()
                .zip(&shape)
                .map(|(id, ext)| MapDim { var: *id, start: Expr::int(1), stop: canon(&ext.clone().add(Expr::int(1))) })
                .collect();
            self.emit(StmtKind::Map(Map { id: MapId::NEW, dims, body: inner }));
        }
        self.span = saved;
        Ok(Expr::var(acc, t))
    }

    /// Errors when two extents are provably different.
    pub fn conform(&self, n: &'t AExpr, want: &[Expr], have: &[Expr]) -> R<()> {
        for (a, b) in want.iter().zip(have) {
            if let Some(d) = Lin::from_expr(a).sub(&Lin::from_expr(b)).and_then(|l| l.as_const()) {
                if d != 0 {
                    return Err(self.err(n, "the array shapes do not conform (their extents differ)"));
                }
            }
        }
        Ok(())
    }

    /// One element of `matmul(a, b)`: an inner-product loop into a private scalar.
    fn matmul(&mut self, n: &'t AExpr, args: &'t [AExpr], el: Option<&[Expr]>) -> R<Expr> {
        let sa = self.shape_of(&args[0])?.unwrap_or_default();
        let sb = self.shape_of(&args[1])?.unwrap_or_default();
        let Some(off) = el else {
            return Err(
                self.err(n, "`matmul` is only supported as (part of) the right-hand side of an array assignment")
            );
        };
        let (inner, rows_b) = match (sa.len(), sb.len()) {
            (2, 2) | (2, 1) => (sa[1].clone(), sb[0].clone()),
            (1, 2) => (sa[0].clone(), sb[0].clone()),
            _ => return Err(self.err(n, "`matmul` needs a matrix and a matrix or vector")),
        };
        self.conform(&args[1], std::slice::from_ref(&inner), &[rows_b])?;
        let span = self.sp(n);
        let kname = self.index_name(&[]);
        let kv = self.f.add_var(kname.clone(), Type::Scalar(Scalar::I64), VarRole::Index, span);
        let ko = Expr::var(kv, Scalar::I64).sub(Expr::int(1));
        let (oa, ob): (Vec<Expr>, Vec<Expr>) = match (sa.len(), sb.len(), off.len()) {
            (2, 2, 2) => (vec![off[0].clone(), ko.clone()], vec![ko.clone(), off[1].clone()]),
            (2, 1, 1) => (vec![off[0].clone(), ko.clone()], vec![ko.clone()]),
            (1, 2, 1) => (vec![ko.clone()], vec![ko.clone(), off[0].clone()]),
            _ => return Err(self.err(n, "the result of `matmul` has a different rank than the expression around it")),
        };
        self.loops.push((kname, kv));
        let body = self.with_block(|lw| {
            let (x, y) = promote(lw.expr(&args[0], Some(&oa))?, lw.expr(&args[1], Some(&ob))?);
            lw.reduce_value = Some(x.mul(y));
            Ok(())
        });
        self.loops.pop();
        let mut body = body?;
        let value = self.reduce_value.take().unwrap_or_else(|| Expr::int(0));
        let t = value.ty;
        let acc = self.f.add_var(self.temp_name("dot"), Type::Scalar(t), VarRole::Temp, span);
        self.emit(StmtKind::Assign { target: Place::scalar(acc), value: Expr::float(0.0, t) });
        body.push(Stmt::new(
            StmtKind::Accumulate { target: Place::scalar(acc), op: AccOp::Add, value, shared: false },
            self.span,
        ));
        let stop = canon(&inner.add(Expr::int(1)));
        self.emit(StmtKind::Loop(Loop {
            id: LoopId::NEW,
            var: kv,
            start: Expr::int(1),
            stop,
            step: Expr::int(1),
            body,
        }));
        Ok(Expr::var(acc, t))
    }
}

/// `aint(x)`: `x` rounded toward zero, as `sign(floor(|x|), x)`.
fn truncated(x: Expr) -> Expr {
    let t = x.ty;
    let magnitude = Expr::call(Intrinsic::Floor, vec![Expr::call(Intrinsic::Abs, vec![x.clone()], t)], t);
    Expr::call(Intrinsic::Sign, vec![magnitude, x], t)
}

/// `anint(x)`: `x` rounded to the nearest whole number, halves away from zero, as
/// `sign(floor(|x| + 0.5), x)`.
fn rounded(x: Expr) -> Expr {
    let t = x.ty;
    let half = Expr::call(Intrinsic::Abs, vec![x.clone()], t).add(Expr::float(0.5, t));
    Expr::call(Intrinsic::Sign, vec![Expr::call(Intrinsic::Floor, vec![half], t), x], t)
}
