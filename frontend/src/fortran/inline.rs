//! Calls of subroutines and functions defined in the same file: the callee's body is
//! lowered in place (inlined) with its dummies bound to the actual arguments, so the
//! entry stays one IR function and the callee is differentiated with it.
//!
//! Binding rules (Fortran passes by reference): an array dummy is the caller's whole
//! array (same shape required); a scalar dummy is the caller's variable when the actual
//! argument is a variable (writes propagate back), else a temporary holding the value;
//! integer dummies bound to expressions are substituted (they may appear in bounds).

use super::ast::{self, ExprKind as AKind};
use super::decl::Sym;
use super::lower::{Binding, Lowerer, R};
use super::scan::{Proc, ProcKind};
use crate::sym::Lin;
use adjc_ir::*;
use std::collections::BTreeMap;

type AExpr = ast::Expr;

/// Deeper call chains than this are taken for recursion.
const MAX_INLINE_DEPTH: usize = 16;

impl<'s, 't> Lowerer<'s, 't> {
    /// Inlines `proc(args)` at the current position; returns the function result.
    /// Inside an array expression (`el`), scalar dummies take the element of the actual
    /// argument (the function is applied element by element).
    pub fn inline_call(
        &mut self,
        n: Span,
        proc: &Proc<'t>,
        args: &'t [AExpr],
        el: Option<&[Expr]>,
    ) -> R<Option<VarId>> {
        if self.inline_depth >= MAX_INLINE_DEPTH {
            return Err(self.err(n, format!("`{}` calls itself (recursion is not supported)", proc.name)));
        }
        let spec = self.read_spec(proc)?;
        let args = self.match_arguments(n, proc, &spec, args)?;
        // Actual arguments, evaluated in the caller's scope.
        let mut actuals = Vec::new();
        for (a, (name, _)) in args.iter().zip(&spec.dummies) {
            if spec.local.get(name).is_some_and(super::decl::is_text) {
                actuals.push(Some(Actual::Text));
                continue;
            }
            let is_array = spec.local.get(name).is_some_and(|s| s.dims.is_some());
            actuals.push(match a {
                Some(a) => Some(self.actual(a, is_array, el)?),
                None => None,
            });
        }
        let saved_absent = std::mem::take(&mut self.absent);
        let saved_names = std::mem::take(&mut self.names);
        // An internal procedure sees its host's variables and constants (host
        // association): the host's names, less those the procedure declares itself.
        if let Some(host) = &proc.host_proc {
            if *host == self.current_proc {
                self.host_scopes.insert(host.clone(), saved_names.clone());
            }
            if let Some(names) = self.host_scopes.get(host) {
                self.names = names
                    .iter()
                    .filter(|(k, _)| !spec.local.contains_key(k.as_str()) && !spec.dummies.iter().any(|(d, _)| d == *k))
                    .map(|(k, b)| (k.clone(), b.clone()))
                    .collect();
            }
        }
        let saved_current = std::mem::replace(&mut self.current_proc, proc.name.to_ascii_lowercase());
        let saved_loops = std::mem::take(&mut self.loops);
        let saved_implicit = self.implicit_none;
        let saved_host_vars = std::mem::take(&mut self.host_vars);
        let saved_host_arrays = std::mem::take(&mut self.host_param_arrays);
        let saved_stmt_fns = std::mem::take(&mut self.stmt_fns);
        let saved_text = std::mem::take(&mut self.text_names);
        let saved_span = self.span;
        self.inline_depth += 1;
        let r = self.inline_body(n, proc, &spec, args, actuals);
        self.inline_depth -= 1;
        self.span = saved_span;
        self.names = saved_names;
        self.current_proc = saved_current;
        self.loops = saved_loops;
        self.implicit_none = saved_implicit;
        self.host_vars = saved_host_vars;
        self.host_param_arrays = saved_host_arrays;
        self.absent = saved_absent;
        self.stmt_fns = saved_stmt_fns;
        self.text_names = saved_text;
        r
    }

    /// The actual argument of each dummy, in the dummies' order: positional arguments first,
    /// then keyword ones (`opt=x`); `None` for an `optional` dummy the call leaves out.
    fn match_arguments(
        &self,
        n: Span,
        proc: &Proc<'t>,
        spec: &super::lower::Spec<'t>,
        args: &'t [AExpr],
    ) -> R<Vec<Option<&'t AExpr>>> {
        let mut out: Vec<Option<&'t AExpr>> = vec![None; spec.dummies.len()];
        let mut keywords = false;
        for (k, a) in args.iter().enumerate() {
            match &a.kind {
                AKind::Keyword { name, value } => {
                    keywords = true;
                    let key = name.to_ascii_lowercase();
                    let Some(slot) = spec.dummies.iter().position(|(d, _)| *d == key) else {
                        return Err(self.err(a, format!("`{}` has no argument `{name}`", proc.name)));
                    };
                    if out[slot].is_some() {
                        return Err(self.err(a, format!("the argument `{name}` of `{}` is given twice", proc.name)));
                    }
                    out[slot] = Some(&**value);
                }
                _ if keywords => return Err(self.err(a, "a positional argument after a keyword argument")),
                _ if k >= out.len() => {
                    return Err(self.err(
                        n,
                        format!("`{}` takes {} argument(s), but {} are given", proc.name, out.len(), args.len()),
                    ))
                }
                _ => out[k] = Some(a),
            }
        }
        for ((name, _), a) in spec.dummies.iter().zip(&out) {
            let optional = spec.local.get(name).is_some_and(|s| s.optional);
            if a.is_none() && !optional {
                return Err(self
                    .err(n, format!("`{}` takes {} argument(s), but `{name}` is not given", proc.name, out.len()))
                    .with_help(format!("pass `{name}`, or declare it `optional` in `{}`", proc.name)));
            }
        }
        Ok(out)
    }

    fn actual(&mut self, a: &'t AExpr, dummy_is_array: bool, el: Option<&[Expr]>) -> R<Actual> {
        if let (false, Some(offs)) = (dummy_is_array, el) {
            // A whole array applied element by element (an elemental subroutine): the
            // element at these offsets, by reference (copied back when assigned).
            if let AKind::Name(_) = a.kind {
                let key = self.text(a).to_ascii_lowercase();
                if let Some(Binding::Var(v)) = self.names.get(&key).cloned() {
                    let ty = self.f.var(v).ty.clone();
                    if ty.is_array() && ty.rank() == offs.len() {
                        let index: Vec<Expr> = ty
                            .dims()
                            .iter()
                            .zip(offs)
                            .map(|(d, o)| crate::sym::canon(&d.lower.clone().add(o.clone())))
                            .collect();
                        let value = Expr::load(v, index.clone(), ty.elem());
                        return Ok(Actual::Element(value, Place::element(v, index)));
                    }
                }
            }
            return Ok(Actual::Value(self.expr(a, el)?));
        }
        if let AKind::Name(_) = a.kind {
            let key = self.text(a).to_ascii_lowercase();
            let is_index = self.loops.iter().any(|(x, _)| *x == key);
            if !is_index {
                if let Binding::Var(v) = self.lookup(a)? {
                    return Ok(Actual::Var(v));
                }
            }
        }
        if self.shape_of(a)?.is_some() {
            return Err(self
                .err(a, "array sections and array expressions as arguments are not supported yet")
                .with_help("pass a whole array"));
        }
        // An array element: passed by reference in Fortran, so what the callee stores in
        // the dummy goes back to the element (copied back after the inlined body).
        if let AKind::Call { callee, args } = &a.kind {
            let key = self.text(&**callee).to_ascii_lowercase();
            let is_index = self.loops.iter().any(|(x, _)| *x == key);
            if let (Some(_), false, Some(Binding::Var(v))) = (callee.as_name(), is_index, self.names.get(&key).cloned())
            {
                if self.f.var(v).ty.is_array() {
                    let subs = self.subscripts(a, v, args)?;
                    let index: Option<Vec<Expr>> = subs
                        .into_iter()
                        .map(|s| match s {
                            super::expr::Sub::Index(e) => Some(e),
                            _ => None,
                        })
                        .collect();
                    if let Some(index) = index {
                        let elem = self.f.var(v).ty.elem();
                        let value = Expr::load(v, index.clone(), elem);
                        return Ok(Actual::Element(value, Place::element(v, index)));
                    }
                }
            }
        }
        Ok(Actual::Value(self.expr(a, None)?))
    }

    fn inline_body(
        &mut self,
        n: Span,
        proc: &Proc<'t>,
        spec: &super::lower::Spec<'t>,
        args: Vec<Option<&'t AExpr>>,
        actuals: Vec<Option<Actual>>,
    ) -> R<Option<VarId>> {
        self.implicit_none = spec.implicit_none;
        self.define_all_constants(proc, spec)?;
        let mut arrays: Vec<(Sym<'t>, VarId, &'t AExpr)> = Vec::new();
        // Temporaries standing for array elements, copied back after the body.
        let mut copy_back: Vec<(VarId, Place, &'t AExpr)> = Vec::new();
        let mut by_name: BTreeMap<String, Binding> = BTreeMap::new();
        for ((name, span), (actual, node)) in spec.dummies.iter().zip(actuals.into_iter().zip(args)) {
            let (Some(actual), Some(node)) = (actual, node) else {
                self.absent.insert(name.clone());
                continue;
            };
            if let Actual::Text = actual {
                self.text_names.insert(name.clone());
                continue;
            }
            let sym = self.dummy_sym(spec, name, *span)?;
            let elem = self.scalar_type(&sym)?;
            let binding = match actual {
                Actual::Var(v) => {
                    let var = self.f.var(v);
                    if sym.dims.is_some() != var.ty.is_array() {
                        return Err(self.err(
                            node,
                            format!(
                                "`{}` is {} in `{}`, but the argument is {}",
                                sym.name,
                                if sym.dims.is_some() { "an array" } else { "a scalar" },
                                proc.name,
                                if var.ty.is_array() { "an array" } else { "a scalar" }
                            ),
                        ));
                    }
                    if var.ty.elem() != elem {
                        return Err(self.err(
                            node,
                            format!(
                                "`{}` is {} in `{}`, but the argument is {}",
                                sym.name,
                                elem,
                                proc.name,
                                var.ty.elem()
                            ),
                        ));
                    }
                    if sym.dims.is_some() {
                        arrays.push((sym.clone(), v, node));
                    }
                    Binding::Var(v)
                }
                Actual::Text => continue,
                Actual::Value(_) | Actual::Element(..) if sym.dims.is_some() => {
                    return Err(self.err(node, format!("`{}` is an array in `{}`", sym.name, proc.name)));
                }
                Actual::Element(e, _) if elem == Scalar::I64 && e.ty == Scalar::I64 => Binding::Const(e),
                Actual::Element(e, place) => {
                    if (e.ty == Scalar::Bool) != (elem == Scalar::Bool)
                        || (elem == Scalar::I64) != (e.ty == Scalar::I64)
                    {
                        return Err(self.err(node, format!("`{}` is {} in `{}`", sym.name, elem, proc.name)));
                    }
                    let t = self.f.add_var(
                        self.temp_name(&format!("{}_arg", sym.name)),
                        Type::Scalar(elem),
                        VarRole::Temp,
                        *span,
                    );
                    self.span = self.sp(n);
                    self.emit(StmtKind::Assign { target: Place::scalar(t), value: e.cast(elem) });
                    copy_back.push((t, place, node));
                    Binding::Var(t)
                }
                Actual::Value(e) if elem == Scalar::I64 => Binding::Const(e.cast(Scalar::I64)),
                Actual::Value(e) => {
                    if (e.ty == Scalar::Bool) != (elem == Scalar::Bool) {
                        return Err(self.err(node, format!("`{}` is {} in `{}`", sym.name, elem, proc.name)));
                    }
                    let t = self.f.add_var(
                        self.temp_name(&format!("{}_arg", sym.name)),
                        Type::Scalar(elem),
                        VarRole::Temp,
                        *span,
                    );
                    self.span = self.sp(n);
                    self.emit(StmtKind::Assign { target: Place::scalar(t), value: e.cast(elem) });
                    Binding::Var(t)
                }
            };
            by_name.insert(name.clone(), binding);
        }
        self.names.extend(by_name);
        // Declared shapes of array dummies must be the caller's (no sequence association).
        for (sym, v, node) in arrays {
            let have = self.f.var(v).ty.dims().to_vec();
            let dims = self.array_dims(&sym, Some(&have))?;
            let same = dims.len() == have.len()
                && dims
                    .iter()
                    .zip(&have)
                    .all(|(a, b)| same_expr(&a.lower, &b.lower) && same_expr(&a.extent, &b.extent));
            if !same {
                return Err(self
                    .err(
                        node,
                        format!(
                            "the array `{}` has a different shape or lower bounds in `{}`",
                            self.f.var(v).name,
                            proc.name
                        ),
                    )
                    .with_help("declare the dummy argument with the caller's bounds"));
            }
        }
        let result = match proc.kind {
            ProcKind::Function => {
                let name = self.temp_name(&proc.name.to_ascii_lowercase());
                Some(self.declare_result(proc, spec, name, VarRole::Temp)?)
            }
            ProcKind::Subroutine => None,
        };
        self.declare_locals(spec, Vec::new())?;
        let stmts = self.statement_functions(spec, spec.stmts)?;
        // What the body writes (after the temporaries got their values).
        let mark = self.blocks.last().map_or(0, |b| b.len());
        self.body_with_loop_returns(|lw| lw.body_with_returns(stmts))?;
        let body: Block = self.blocks.last().map(|b| b.get(mark..).unwrap_or(&[]).to_vec()).unwrap_or_default();
        let written = crate::irutil::written_in(&body);
        for (t, place, node) in copy_back {
            if !written.contains(&t) {
                continue;
            }
            if place.index.iter().any(|i| i.vars().iter().any(|v| written.contains(v))) {
                return Err(self
                    .err(node, format!("`{}` changes an index of this argument, which it also assigns", proc.name))
                    .with_help("pass the element through a local variable"));
            }
            let elem = self.f.var(place.var).ty.elem();
            self.span = self.sp(n);
            self.emit(StmtKind::Assign { target: place, value: Expr::var(t, self.f.var(t).ty.elem()).cast(elem) });
        }
        Ok(result)
    }
}

impl<'s, 't> Lowerer<'s, 't> {
    /// `call f(a, b, s)` of an `elemental` subroutine with array arguments: loops over the
    /// arrays' shape (the first index innermost), inlining `f` on the elements at each
    /// position; an element the body assigns is stored back (intent `out`/`inout`).
    /// Array arguments must be whole arrays of one shape; scalar arguments are broadcast.
    pub fn elemental_call(&mut self, n: Span, proc: &Proc<'t>, args: &'t [AExpr]) -> R<()> {
        let mut shape: Option<Vec<Dim>> = None;
        for a in args {
            let value = match &a.kind {
                AKind::Keyword { value, .. } => &**value,
                _ => a,
            };
            if self.shape_of(value)?.is_none() {
                continue;
            }
            let dims = match (&value.kind, self.names.get(&self.text(value).to_ascii_lowercase()).cloned()) {
                (AKind::Name(_), Some(Binding::Var(v))) => self.f.var(v).ty.dims().to_vec(),
                _ => {
                    return Err(self
                        .err(value, format!("`{}` is elemental: pass whole arrays to it", proc.name))
                        .with_help("array sections and expressions as arguments of elemental subroutines are not supported yet; loop over the elements"))
                }
            };
            match &shape {
                None => shape = Some(dims),
                Some(s) => {
                    let same =
                        s.len() == dims.len() && s.iter().zip(&dims).all(|(a, b)| same_expr(&a.extent, &b.extent));
                    if !same {
                        return Err(self.err(
                            value,
                            format!("the arguments of the elemental `{}` have different shapes", proc.name),
                        ));
                    }
                }
            }
        }
        let Some(shape) = shape else {
            self.inline_call(n, proc, args, None)?;
            return Ok(());
        };
        let mut ivs = Vec::new();
        let mut taken = Vec::new();
        for _ in &shape {
            let name = self.index_name(&taken);
            taken.push(name.clone());
            ivs.push(self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Index, n));
        }
        let offs: Vec<Expr> = ivs.iter().map(|v| Expr::var(*v, Scalar::I64)).collect();
        let mut body = self.with_block(|lw| lw.inline_call(n, proc, args, Some(&offs)).map(|_| ()))?;
        for (k, d) in shape.iter().enumerate() {
            let l = Loop {
                id: LoopId::NEW,
                var: ivs[k],
                start: Expr::int(0),
                stop: d.extent.clone(),
                step: Expr::int(1),
                body,
            };
            body = vec![Stmt::new(StmtKind::Loop(l), n)];
        }
        self.span = n;
        if let Some(b) = self.blocks.last_mut() {
            b.extend(body);
        }
        Ok(())
    }

    /// The specific procedure a call of the generic `name` (`interface scale; module
    /// procedure scale_s, scale_v; end interface`) means: the one whose dummies take the
    /// arguments (their number, keywords, and for each argument whether it is an array and
    /// its rank). `None` when `name` is not generic; an error when no specific, or more
    /// than one, fits.
    pub fn resolve_generic(&mut self, n: Span, name: &str, args: &'t [AExpr]) -> R<Option<&'s Proc<'t>>> {
        let unit: &'s super::scan::Unit<'t> = self.unit;
        let Some(specifics) = unit.generics.get(&name.to_ascii_lowercase()) else { return Ok(None) };
        let mut ranks = Vec::new();
        for a in args {
            let value = match &a.kind {
                AKind::Keyword { value, .. } => &**value,
                _ => a,
            };
            ranks.push(self.shape_of(value)?.map_or(0, |s| s.len()));
        }
        let mut fits = Vec::new();
        for specific in specifics {
            let Some(proc) = unit.find(specific) else {
                return Err(self.err(n, format!("the generic `{name}` names `{specific}`, which is not in the files")));
            };
            let spec = self.read_spec(proc)?;
            let Ok(matched) = self.match_arguments(n, proc, &spec, args) else { continue };
            let ok = matched.iter().zip(&spec.dummies).all(|(a, (d, _))| {
                let Some(a) = a else { return true };
                let k = args.iter().position(|x| {
                    std::ptr::eq(x, *a) || matches!(&x.kind, AKind::Keyword { value, .. } if std::ptr::eq(&**value, *a))
                });
                let rank = spec.local.get(d.as_str()).and_then(|s| s.dims.as_ref()).map_or(0, |d| d.len());
                k.is_some_and(|k| ranks[k] == rank)
            });
            if ok {
                fits.push(proc);
            }
        }
        match fits.as_slice() {
            [one] => Ok(Some(*one)),
            [] => Err(self
                .err(n, format!("no specific procedure of the generic `{name}` takes these arguments"))
                .with_help(format!("its procedures: {}", specifics.join(", ")))),
            _ => {
                Err(self
                    .err(n, format!("more than one specific procedure of the generic `{name}` takes these arguments")))
            }
        }
    }

    /// Inlines the calls of array-valued functions in `n` (the right-hand side of an
    /// assignment) before the statement, so that the statement reads their results.
    pub fn hoist_array_calls(&mut self, n: &'t AExpr) -> R<()> {
        let mut found = Vec::new();
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if let AKind::Call { callee, .. } = &x.kind {
                let name = self.text(&**callee).to_ascii_lowercase();
                let local = self.loops.iter().any(|(l, _)| *l == name) || self.names.contains_key(&name);
                if let Some(proc) = self.unit.find(&name).filter(|p| p.kind == ProcKind::Function && !local) {
                    let spec = self.read_spec(proc)?;
                    let rname = spec.result_name.clone().unwrap_or_else(|| proc.name.to_ascii_lowercase());
                    if spec.local.get(&rname).is_some_and(|s| s.dims.is_some()) {
                        found.push((x, proc));
                        continue;
                    }
                }
            }
            let mut kids = x.children();
            kids.reverse();
            stack.extend(kids);
        }
        for (x, proc) in found {
            let args = self.call_args(x);
            if let Some(v) = self.inline_call(x.span, proc, args, None)? {
                self.hoisted.insert(x.id, v);
            }
        }
        Ok(())
    }
}

enum Actual {
    Var(VarId),
    Value(Expr),
    /// An array element (its value, and the element for the copy back).
    Element(Expr, Place),
    /// The argument of a `character` dummy: not lowered (text).
    Text,
}

fn same_expr(a: &Expr, b: &Expr) -> bool {
    Lin::from_expr(a).sub(&Lin::from_expr(b)).and_then(|d| d.as_const()) == Some(0)
}
