//! F77 `DATA` statements: `data w /0.25d0, 0.5d0, 0.25d0/`, `data a, b /2*1.0/`,
//! `data w(2) /3.0/`.
//!
//! A `DATA` statement gives locals their initial values, like an initialiser in a
//! declaration, and the same rule holds: the values are assigned once at the top of the
//! function (after the allocations and the initialisers of the declarations), and a local
//! that the routine also assigns would keep its value from one call to the next (implied
//! `save`), which is an error (`Lowerer::check_initialised`). Objects: scalars, whole
//! arrays with constant bounds (filled in column-major order) and elements with constant
//! subscripts; values: constants with optional repeat counts. Implied-do lists, dummies,
//! COMMON members and module variables are errors.

use super::ast::{DataSet, ExprKind as AKind};
use super::lower::{Binding, Lowerer, Spec, R};
use adjc_ir::*;

/// More values than this in one `DATA` group is an error (one assignment each in the C).
const MAX_DATA_VALUES: i64 = 4096;

impl<'s, 't> Lowerer<'s, 't> {
    /// The `DATA` statements of the procedure, as assignments at the top of the function.
    pub fn data_statements(&mut self, spec: &Spec<'t>) -> R<()> {
        for set in &spec.data {
            self.data_set(set)?;
        }
        Ok(())
    }

    fn data_set(&mut self, set: &'t DataSet) -> R<()> {
        let saved = std::mem::replace(&mut self.span, set.span);
        let help = "list scalars, whole arrays and elements with constant subscripts, or assign the values in the body";
        // The places, in order.
        let mut places: Vec<Place> = Vec::new();
        for o in &set.objects {
            let (name, args) = match &o.kind {
                AKind::Name(_) => (o, None),
                AKind::Call { callee, args } if matches!(callee.kind, AKind::Name(_)) => (&**callee, Some(args)),
                _ => return Err(self.err(o, "this `data` object is not supported").with_help(help)),
            };
            let v = match self.lookup(name)? {
                Binding::Var(v) if self.f.var(v).role == VarRole::Local => v,
                _ => {
                    return Err(self
                        .err(o, format!("`{}` in a `data` statement is not a local variable", self.text(name)))
                        .with_help("`data` gives locals their initial values; assign other variables in the body"))
                }
            };
            let ty = self.f.var(v).ty.clone();
            match (args, &ty) {
                (None, Type::Scalar(_)) => places.push(Place::scalar(v)),
                (None, Type::Array { dims, .. }) => {
                    let ext: Option<Vec<(i64, i64)>> =
                        dims.iter().map(|d| Some((d.lower.as_int()?, d.extent.as_int()?))).collect();
                    let Some(ext) = ext else {
                        return Err(self
                            .err(o, format!("`{}` has no constant shape", self.text(name)))
                            .with_help(help));
                    };
                    let count: i64 = ext.iter().fold(1i64, |a, (_, e)| a.saturating_mul((*e).max(0)));
                    if count > MAX_DATA_VALUES {
                        return Err(self
                            .err(o, format!("`data` for all {count} elements of `{}`", self.text(name)))
                            .with_help("assign the values in the body"));
                    }
                    for k in 0..count {
                        let mut rest = k;
                        let index = ext
                            .iter()
                            .map(|&(lo, e)| {
                                let i = lo.saturating_add(rest % e.max(1));
                                rest /= e.max(1);
                                Expr::int(i)
                            })
                            .collect();
                        places.push(Place::element(v, index));
                    }
                }
                (Some(args), Type::Array { .. }) if args.len() == ty.rank() => {
                    let mut index = Vec::new();
                    for a in args {
                        let e = self.int_expr(a)?;
                        if e.as_int().is_none() {
                            return Err(self
                                .err(a, "a subscript in a `data` statement must be a constant")
                                .with_help(help));
                        }
                        index.push(e);
                    }
                    places.push(Place::element(v, index));
                }
                _ => return Err(self.err(o, "this `data` object is not supported").with_help(help)),
            }
        }
        // The values, repeats expanded.
        let mut values: Vec<(Expr, Span)> = Vec::new();
        for (repeat, value) in &set.values {
            let n = match repeat {
                Some(r) => match self.int_expr(r)?.as_int() {
                    Some(n) if n >= 1 => n,
                    _ => return Err(self.err(r, "a repeat count must be a positive integer constant")),
                },
                None => 1,
            };
            let e = self.expr(value, None)?;
            if !e.vars().is_empty() {
                return Err(self.err(value, "a value in a `data` statement must be a constant"));
            }
            if (values.len() as i64).saturating_add(n) > MAX_DATA_VALUES {
                return Err(self
                    .err(set.span, "too many values in one `data` group")
                    .with_help("assign the values in the body"));
            }
            for _ in 0..n {
                values.push((e.clone(), self.sp(value)));
            }
        }
        if values.len() != places.len() {
            return Err(self.err(
                set.span,
                format!("this `data` group has {} object element(s) but {} value(s)", places.len(), values.len()),
            ));
        }
        let mut stmts = Vec::new();
        let mut vars: Vec<VarId> = Vec::new();
        for (place, (value, at)) in places.into_iter().zip(values) {
            let elem = self.f.var(place.var).ty.elem();
            if (value.ty == Scalar::Bool) != (elem == Scalar::Bool) {
                return Err(self.err(
                    at,
                    format!("cannot give the {elem} variable `{}` a {} value", self.f.var(place.var).name, value.ty),
                ));
            }
            if !vars.contains(&place.var) {
                vars.push(place.var);
            }
            stmts.push(Stmt::assign(place, value.cast(elem), set.span));
        }
        // At the top, after the allocations and earlier initial values (see `initialise`).
        let inits: Vec<u32> = self.initialised.iter().filter(|(_, _, save)| !save).map(|(_, s, _)| s.start).collect();
        if let Some(top) = self.blocks.first_mut() {
            let allocs = top.iter().take_while(|s| matches!(s.kind, StmtKind::Alloc(_))).count();
            let after = top.iter().rposition(|s| inits.contains(&s.span.start)).map_or(0, |p| p + 1);
            let at = allocs.max(after);
            top.splice(at..at, stmts);
        }
        for v in vars {
            self.initialised.push((v, set.span, false));
        }
        self.span = saved;
        Ok(())
    }
}
