//! The lowering state and statement lowering. One [`Lowerer`] builds one IR function from
//! the entry `def`; helper functions are inlined through a stack of [`Scope`]s.

use super::ast::*;
use super::infer::{self, InfKind};
use super::ops::{self, SVal};
use super::shapes::{IndexRange, Shapes};
use super::types::{type_of, ArgSpec, TypeSpec};
use super::value::*;
use adjc_ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// Why lowering stopped: the user's error (or an internal one), never a request to start
/// again (a local that needs a wider type is recorded in [`Lowerer::widen`]).
pub(super) type Fail = Diagnostic;

pub(super) type R<T> = Result<T, Fail>;

/// Types of scalar locals (by scope and name), and of a scope's `<return>`, wider than their
/// first assignment gives them.
pub(super) type Hints = BTreeMap<(u32, String), Scalar>;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Binding {
    /// A scalar variable (parameter, local, loop index).
    Scalar { var: VarId, weak: bool },
    /// An immutable value: an integer defined once from parameters, an array view, a tuple.
    Value(Val),
}

/// Bindings watched while a loop body is lowered: a name read with its pre-loop binding
/// and rebound later in the body would see the new binding from the second iteration on.
pub(super) struct Watch {
    pub before: BTreeMap<String, Binding>,
    pub read: BTreeSet<String>,
}

impl Watch {
    pub fn before_of(&self, name: &str) -> Option<&Binding> {
        self.before.get(name)
    }
    pub fn mark_read(&mut self, name: &str) {
        self.read.insert(name.to_string());
    }
}

pub(super) struct Scope {
    pub id: u32,
    pub fname: String,
    pub is_entry: bool,
    pub env: BTreeMap<String, Binding>,
    /// Python function scoping: one variable per scalar name.
    pub locals: BTreeMap<String, VarId>,
    pub counts: BTreeMap<String, usize>,
    pub single_top: BTreeSet<String>,
    pub poisoned: BTreeMap<String, String>,
    pub ret: Option<Val>,
    /// Nesting of loops and ifs inside this function.
    pub depth: usize,
    /// Local arrays created for names of this scope (may be reused on rebinding).
    pub owned: BTreeSet<VarId>,
    pub watches: Vec<Watch>,
    /// Local arrays bound in the `then` branch of the `if` being lowered: the `else`
    /// branch binding the same name to a value of the same shape reuses the array, so
    /// that the name means one array after the `if`.
    pub sibling: BTreeMap<String, Arr>,
    /// With an early `return`: the flag it sets and the scalar that holds the value (see
    /// `adjc_ir::proc::jumps`).
    pub ret_flag: Option<VarId>,
    pub ret_var: Option<VarId>,
}

/// The `break` / `continue` flags of one loop being lowered, created at the first jump.
pub(super) struct JumpFrame {
    pub scope: u32,
    pub brk: Option<VarId>,
    pub cont: Option<VarId>,
}

impl Scope {
    pub fn new(id: u32, fname: &str, is_entry: bool, body: &[St]) -> Scope {
        let mut counts = BTreeMap::new();
        let mut top = BTreeMap::new();
        count_assignments(body, 0, &mut counts, &mut top);
        let single_top =
            counts.iter().filter(|(n, c)| **c == 1 && top.contains_key(*n)).map(|(n, _)| n.clone()).collect();
        Scope {
            id,
            fname: fname.to_string(),
            is_entry,
            env: BTreeMap::new(),
            locals: BTreeMap::new(),
            counts,
            single_top,
            poisoned: BTreeMap::new(),
            ret: None,
            depth: 0,
            owned: BTreeSet::new(),
            watches: Vec::new(),
            sibling: BTreeMap::new(),
            ret_flag: None,
            ret_var: None,
        }
    }
}

fn target_names(t: &Ex, out: &mut Vec<String>) {
    match &t.kind {
        ExKind::Name(n) => out.push(n.clone()),
        ExKind::Tuple(items) | ExKind::List(items) => items.iter().for_each(|i| target_names(i, out)),
        _ => {}
    }
}

fn count_assignments(body: &[St], depth: usize, counts: &mut BTreeMap<String, usize>, top: &mut BTreeMap<String, ()>) {
    for s in body {
        let mut names = Vec::new();
        match &s.kind {
            StKind::Assign { targets, .. } => targets.iter().for_each(|t| target_names(t, &mut names)),
            StKind::AugAssign { target, .. } => target_names(target, &mut names),
            StKind::For { var, body, .. } => {
                names.push(var.clone());
                count_assignments(body, depth + 1, counts, top);
            }
            StKind::If { then_body, else_body, .. } => {
                count_assignments(then_body, depth + 1, counts, top);
                count_assignments(else_body, depth + 1, counts, top);
            }
            StKind::While { body, .. } => count_assignments(body, depth + 1, counts, top),
            _ => {}
        }
        for n in names {
            *counts.entry(n.clone()).or_insert(0) += 1;
            if depth == 0 && !matches!(s.kind, StKind::For { .. }) {
                top.insert(n, ());
            }
        }
    }
}

pub(super) struct Lowerer<'m> {
    pub m: &'m ModuleAst,
    pub f: Function,
    pub shapes: Shapes,
    pub blocks: Vec<Block>,
    pub scopes: Vec<Scope>,
    pub allocs: Vec<(VarId, Span)>,
    pub hints: &'m Hints,
    /// Scalars found to need a wider type than this attempt gave them (locals have one type
    /// for the whole function, as in C): lowering goes on with the narrower variable, and
    /// the caller lowers the function again with these added to the hints
    /// (`python::lower_function`), whatever this attempt returns.
    pub widen: Hints,
    pub serial: u32,
    /// Every identifier of the source: generated index names avoid them.
    pub reserved: &'m BTreeSet<String>,
    /// Names of the loop and map indices enclosing the statement being built.
    pub index_names: Vec<String>,
    /// Ranges of the `for` loop indices enclosing the statement being built (outermost
    /// first): what proves slice bounds inside their axes.
    pub loops: Vec<IndexRange>,
    /// Integer parameters used as the extent of a new array (`np.zeros((M, M))`): NumPy
    /// raises for a negative one, so they count as non-negative like array extents.
    pub extent_ints: BTreeSet<VarId>,
    pub sizes: Vec<VarId>,
    pub src_params: Vec<VarId>,
    pub rets: Vec<VarId>,
    pub docs: BTreeMap<VarId, String>,
    pub inferred_notes: Vec<(VarId, String)>,
    /// Span of the statement being lowered.
    pub span: Span,
    pub const_depth: usize,
    /// Ranges of the `for` loops around the statement being lowered (outermost first),
    /// to tell indices that can be negative from those that cannot.
    pub loop_ranges: Vec<crate::ranges::LoopRange>,
    /// The loops around the statement being lowered, innermost last (all scopes).
    pub jumps: Vec<JumpFrame>,
    /// Naming (`var_names.rs`): the scope that made each variable (index = `VarId`), the
    /// name each variable made by the lowering wants, the helper of each call scope, the
    /// call scope whose result the assignment being lowered binds, and the last call made.
    pub owner: Vec<u32>,
    pub wanted: BTreeMap<VarId, super::var_names::Wanted>,
    pub call_names: BTreeMap<u32, String>,
    pub result_of: Option<u32>,
    pub last_call: Option<u32>,
}

impl<'m> Lowerer<'m> {
    pub fn err(&self, span: Span, msg: impl Into<String>) -> Fail {
        let span = if span.is_none() { self.span } else { span };
        Diagnostic::error(span, msg)
    }

    pub fn err_help(&self, span: Span, msg: impl Into<String>, help: impl Into<String>) -> Fail {
        let span = if span.is_none() { self.span } else { span };
        Diagnostic::error(span, msg).with_help(help)
    }

    /// Records that the scalar `key` needs the type `ty`, wider than its variable has in
    /// this attempt (see [`Lowerer::widen`]).
    pub fn need_wider(&mut self, key: (u32, String), ty: Scalar) {
        let entry = self.widen.entry(key).or_insert(ty);
        if kind_rank(ty) > kind_rank(*entry) {
            *entry = ty;
        }
    }

    pub fn emit(&mut self, s: Stmt) {
        if let Some(b) = self.blocks.last_mut() {
            b.push(s);
        }
    }

    pub fn emit_kind(&mut self, k: StmtKind) {
        let span = self.span;
        self.emit(Stmt::new(k, span));
    }

    pub fn with_block(&mut self, f: impl FnOnce(&mut Self) -> R<()>) -> R<Block> {
        self.blocks.push(Vec::new());
        let r = f(self);
        let b = self.blocks.pop().unwrap_or_default();
        r.map(|_| b)
    }

    pub fn scope(&self) -> &Scope {
        // The scope stack is never empty while lowering (the entry scope is pushed first).
        &self.scopes[self.scopes.len() - 1]
    }

    pub fn scope_mut(&mut self) -> &mut Scope {
        let n = self.scopes.len() - 1;
        &mut self.scopes[n]
    }

    pub fn ty_of(&self, v: VarId) -> Scalar {
        self.f.var(v).ty.elem()
    }

    /// A name for a generated temporary that clashes neither with variables nor with
    /// source identifiers.
    pub fn fresh_temp(&self, base: &str) -> String {
        let taken = |n: &str| self.reserved.contains(n) || self.f.vars.iter().any(|v| v.name == n);
        if !taken(base) {
            return base.to_string();
        }
        (1..).map(|k| format!("{base}_{k}")).find(|n| !taken(n)).unwrap_or_else(|| base.to_string())
    }

    /// A readable index name not used by the source, the enclosing loops or any
    /// non-index variable.
    pub fn index_name(&self) -> String {
        const CANDS: [&str; 14] = ["i", "j", "k", "l", "m", "n", "p", "q", "r", "s", "t", "u", "v", "w"];
        let free = |n: &str| {
            !self.reserved.contains(n)
                && !self.index_names.iter().any(|x| x == n)
                && !self.f.vars.iter().any(|v| v.name == n && v.role != VarRole::Index)
        };
        if let Some(c) = CANDS.iter().find(|c| free(c)) {
            return c.to_string();
        }
        (1..).map(|k| format!("i{k}")).find(|n| free(n)).unwrap_or_else(|| "i".into())
    }

    pub fn add_index(&mut self, name: String) -> VarId {
        let span = self.span;
        self.index_names.push(name.clone());
        self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Index, span)
    }

    /// Whether `e` only depends on parameters (so it can be an extent or an alias).
    pub fn is_param_expr(&self, e: &Expr) -> bool {
        let mut ok = true;
        e.walk(&mut |x| match &x.kind {
            ExprKind::Var(v) if ph_index(*v).is_some() || v.index() >= self.f.vars.len() || !self.f.is_param(*v) => {
                ok = false;
            }
            ExprKind::Load(..) => ok = false,
            _ => {}
        });
        ok
    }

    pub fn ext_str(&self, e: &Expr) -> String {
        print::expr_str(&self.f, &self.shapes.norm(e))
    }

    /// Allocates a local array (role Local or Temp) at the current statement and returns
    /// the view of it that holds a value of `shape`. When the shape depends on loop
    /// variables (`A[i, :j] * 2`), the array is allocated with the parameter-only
    /// `bounds` and the view covers its leading part.
    pub fn new_array(&mut self, name: &str, elem: Scalar, shape: &[Expr], bounds: &[Expr], role: VarRole) -> R<Arr> {
        let fits = |lw: &Self, es: &[Expr]| es.iter().all(|e| lw.is_param_expr(&lw.shapes.apply(e)));
        let dims_from = if fits(self, shape) {
            shape
        } else if bounds.len() == shape.len() && fits(self, bounds) {
            bounds
        } else {
            let bad = shape
                .iter()
                .find(|e| !self.is_param_expr(&self.shapes.apply(e)))
                .cloned()
                .unwrap_or_else(|| Expr::int(0));
            return Err(self.err_help(
                self.span,
                format!(
                    "the shape of `{name}` ({}) depends on loop variables or local values",
                    print::expr_str(&self.f, &crate::sym::canon(&self.shapes.apply(&bad)))
                ),
                "arrays created in the kernel must have shapes computed from the parameters",
            ));
        };
        let dims: Vec<Dim> = dims_from.iter().map(|e| Dim::zero_based(crate::sym::canon(e))).collect();
        let span = self.span;
        // Source names stay as written (unless taken); generated ones avoid source names.
        let vname = if role == VarRole::Local { self.f.fresh_name(name) } else { self.fresh_temp(name) };
        let temp = role != VarRole::Local;
        let v = self.f.add_var(vname.clone(), Type::Array { elem, dims, layout: Layout::RowMajor }, role, span);
        self.want_name(v, name, temp);
        self.emit_kind(StmtKind::Alloc(v));
        self.allocs.push((v, span));
        let mut view = self.whole(v);
        view.shape = shape.to_vec();
        view.text = vname;
        Ok(view)
    }

    pub fn whole(&self, v: VarId) -> Arr {
        let var = self.f.var(v);
        let shape = var.ty.dims().iter().map(|d| d.extent.clone()).collect();
        Arr::whole(v, var.ty.elem(), shape, var.name.clone())
    }

    // -----------------------------------------------------------------------------------
    // Setup

    pub fn new(
        m: &'m ModuleAst,
        entry: &FuncDef,
        specs: &[ArgSpec],
        hints: &'m Hints,
        reserved: &'m BTreeSet<String>,
    ) -> R<Lowerer<'m>> {
        let params = entry.params.clone()?;
        let body = entry.body.as_ref().map_err(|d| d.clone())?;
        let f = Function {
            name: entry.name.clone(),
            params: Vec::new(),
            vars: Vec::new(),
            body: Vec::new(),
            span: entry.span,
            notes: Vec::new(),
            assumptions: Vec::new(),
        };
        let mut lw = Lowerer {
            m,
            f,
            shapes: Shapes::default(),
            blocks: vec![Vec::new()],
            scopes: Vec::new(),
            allocs: Vec::new(),
            hints,
            widen: Hints::new(),
            serial: 0,
            reserved,
            index_names: Vec::new(),
            loops: Vec::new(),
            extent_ints: BTreeSet::new(),
            sizes: Vec::new(),
            src_params: Vec::new(),
            rets: Vec::new(),
            docs: BTreeMap::new(),
            inferred_notes: Vec::new(),
            span: entry.span,
            const_depth: 0,
            loop_ranges: Vec::new(),
            jumps: Vec::new(),
            owner: Vec::new(),
            wanted: BTreeMap::new(),
            call_names: BTreeMap::new(),
            result_of: None,
            last_call: None,
        };
        // Declared types: argument specs first, then annotations.
        let mut declared: Vec<Option<TypeSpec>> = Vec::new();
        for p in &params {
            let t = match specs.iter().find(|s| s.name == p.name) {
                Some(s) => Some(s.ty.clone()),
                None => match &p.ann {
                    Some(a) => Some(type_of(a, Some(m))?),
                    None => None,
                },
            };
            declared.push(t);
        }
        let wanted: Vec<String> = params
            .iter()
            .zip(&declared)
            .filter(|(_, d)| matches!(d, None | Some(TypeSpec::AnyArray)))
            .map(|(p, _)| p.name.clone())
            .collect();
        let arrays: BTreeSet<String> = params
            .iter()
            .zip(&declared)
            .filter(|(_, d)| matches!(d, Some(TypeSpec::AnyArray)))
            .map(|(p, _)| p.name.clone())
            .collect();
        let inferred = infer::infer(m, body, &wanted, &arrays).map_err(|d| {
            let span = params.iter().find(|p| d.message.contains(&format!("`{}`", p.name))).map(|p| p.span);
            Diagnostic { span: span.unwrap_or(entry.name_span), ..d }
        })?;
        // Scalar parameters first (extents may name them), arrays get their type after.
        enum Kind {
            Scalar(Scalar),
            Declared(Scalar, Vec<Ex>),
            Inferred(usize, Vec<Option<String>>),
        }
        let mut kinds = Vec::new();
        for (p, d) in params.iter().zip(&declared) {
            let k = match d {
                Some(TypeSpec::Scalar(t)) => Kind::Scalar(*t),
                Some(TypeSpec::Array(t, ex)) => Kind::Declared(*t, ex.clone()),
                _ => match inferred.get(&p.name).map(|i| &i.kind) {
                    Some(InfKind::Int) => Kind::Scalar(Scalar::I64),
                    Some(InfKind::Array { rank, names }) => Kind::Inferred(*rank, names.clone()),
                    _ => Kind::Scalar(Scalar::F64),
                },
            };
            let ty = match &k {
                Kind::Scalar(t) => Type::Scalar(*t),
                _ => Type::Scalar(Scalar::F64),
            };
            let v = lw.f.add_var(p.name.clone(), ty, VarRole::Param, p.span);
            lw.src_params.push(v);
            if let Some(inf) = inferred.get(&p.name) {
                lw.inferred_notes.push((v, inf.reason.clone()));
            }
            kinds.push(k);
        }
        lw.set_params();
        let mut size_by_name: BTreeMap<String, (VarId, bool)> = BTreeMap::new();
        for (k, kind) in kinds.iter().enumerate() {
            let v = lw.src_params[k];
            let pname = params[k].name.clone();
            let (elem, dims) = match kind {
                Kind::Scalar(_) => continue,
                Kind::Declared(elem, exts) => {
                    let mut dims = Vec::new();
                    for (axis, ex) in exts.iter().enumerate() {
                        let e = lw.extent_expr(ex, &params, &mut size_by_name, &pname, axis)?;
                        dims.push(Dim::zero_based(e));
                    }
                    (*elem, dims)
                }
                Kind::Inferred(rank, names) => {
                    let mut dims = Vec::new();
                    for axis in 0..*rank {
                        let default = format!("{pname}_n{axis}");
                        let wanted = names.get(axis).cloned().flatten().unwrap_or_else(|| default.clone());
                        let sv = match size_by_name.get(&wanted) {
                            Some((sv, false)) => *sv,
                            _ => {
                                let user_named = wanted != default
                                    && !size_by_name.contains_key(&wanted)
                                    && !params.iter().any(|p| p.name == wanted);
                                let name = if user_named { wanted } else { default };
                                let name = lw.f.fresh_name(&name);
                                let sv = lw.new_size(&name, &pname, axis);
                                lw.shapes.mark_inferred(sv);
                                if user_named {
                                    lw.shapes.mark_named(sv);
                                }
                                size_by_name.insert(name, (sv, true));
                                sv
                            }
                        };
                        dims.push(Dim::zero_based(Expr::var(sv, Scalar::I64)));
                    }
                    (Scalar::F64, dims)
                }
            };
            lw.f.var_mut(v).ty = Type::Array { elem, dims, layout: Layout::RowMajor };
        }
        lw.set_params();
        // The entry scope.
        let mut sc = Scope::new(0, &entry.name, true, body);
        lw.serial = 1;
        let mut copies = Vec::new();
        for (k, p) in params.iter().enumerate() {
            let v = lw.src_params[k];
            let ty = lw.f.var(v).ty.clone();
            if ty.is_array() {
                sc.env.insert(p.name.clone(), Binding::Value(Val::Array(lw.whole(v))));
            } else {
                let weak = ty.elem() != Scalar::F32;
                if sc.counts.get(&p.name).copied().unwrap_or(0) > 0 {
                    // The source reassigns a by-value parameter: work on a local copy.
                    let name = lw.f.fresh_name(&p.name);
                    let local = lw.f.add_var(name, ty.clone(), VarRole::Local, p.span);
                    copies.push(Stmt::assign(Place::scalar(local), Expr::var(v, ty.elem()), entry.span));
                    sc.locals.insert(p.name.clone(), local);
                    sc.env.insert(p.name.clone(), Binding::Scalar { var: local, weak });
                } else {
                    sc.env.insert(p.name.clone(), Binding::Scalar { var: v, weak });
                }
            }
        }
        for c in copies {
            lw.emit(c);
        }
        lw.scopes.push(sc);
        Ok(lw)
    }

    fn set_params(&mut self) {
        let mut params = Vec::new();
        for v in self.sizes.iter().chain(&self.src_params).chain(&self.rets) {
            let intent = if self.rets.contains(v) { Intent::Out } else { Intent::In };
            params.push(Param { var: *v, intent, doc: self.docs.get(v).cloned().unwrap_or_default() });
        }
        self.f.params = params;
    }

    fn new_size(&mut self, name: &str, of: &str, axis: usize) -> VarId {
        let span = self.f.span;
        let v = self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Size, span);
        self.sizes.push(v);
        self.docs.insert(v, format!("extent of axis {axis} of `{of}`"));
        self.set_params();
        v
    }

    /// An extent of a declared type: names are integer parameters, module constants or
    /// size parameters (created on first appearance).
    fn extent_expr(
        &mut self,
        ex: &Ex,
        params: &[ParamAst],
        sizes: &mut BTreeMap<String, (VarId, bool)>,
        of: &str,
        axis: usize,
    ) -> R<Expr> {
        let bad = |lw: &Self| {
            lw.err_help(
                ex.span,
                format!("unsupported extent `{}` in the type of `{of}`", ex.text),
                "extents are integers, names, or sums and products of them: `N`, `5`, `I + 4`",
            )
        };
        Ok(match &ex.kind {
            ExKind::Int(v) => Expr::int(*v),
            ExKind::Name(n) => {
                if let Some(k) = params.iter().position(|p| &p.name == n) {
                    let v = self.src_params[k];
                    if self.f.var(v).ty != Type::Scalar(Scalar::I64) {
                        return Err(self.err_help(
                            ex.span,
                            format!("the extent `{n}` of `{of}` is a parameter that is not an integer"),
                            format!("declare it as an integer: `{n}: int`"),
                        ));
                    }
                    Expr::var(v, Scalar::I64)
                } else if let Some((v, _)) = sizes.get(n) {
                    Expr::var(*v, Scalar::I64)
                } else if let Some(c) = self.m.constant(n) {
                    match c.kind {
                        ExKind::Int(k) => Expr::int(k),
                        _ => return Err(bad(self)),
                    }
                } else {
                    let v = self.new_size(n, of, axis);
                    sizes.insert(n.clone(), (v, false));
                    Expr::var(v, Scalar::I64)
                }
            }
            ExKind::Bin(op, a, b) => {
                let a = self.extent_expr(a, params, sizes, of, axis)?;
                let b = self.extent_expr(b, params, sizes, of, axis)?;
                match op {
                    BinOpAst::Add => a.add(b),
                    BinOpAst::Sub => a.sub(b),
                    BinOpAst::Mul => a.mul(b),
                    BinOpAst::FloorDiv => Expr::binary(BinOp::FloorDiv, a, b),
                    _ => return Err(bad(self)),
                }
            }
            ExKind::Unary(UnOpAst::Neg, a) => self.extent_expr(a, params, sizes, of, axis)?.neg(),
            _ => return Err(bad(self)),
        })
    }

    // -----------------------------------------------------------------------------------
    // Statements

    pub fn lower_block(&mut self, body: &[St]) -> R<()> {
        for (k, s) in body.iter().enumerate() {
            self.lower_stmt(s, k + 1 == body.len())?;
        }
        Ok(())
    }

    fn lower_stmt(&mut self, s: &St, last: bool) -> R<()> {
        self.span = s.span;
        match &s.kind {
            StKind::Assign { targets, value } => self.assign(targets, value),
            StKind::AugAssign { target, op, value } => self.aug_assign(target, *op, value),
            StKind::Expr(e) => {
                if let ExKind::Str(_) = e.kind {
                    return Ok(());
                }
                self.eval(e).map(|_| ())
            }
            StKind::For { var, var_span, iter, body } => self.for_loop(var, *var_span, iter, body, s.span),
            StKind::If { cond, then_body, else_body } => self.if_stmt(cond, then_body, else_body),
            StKind::While { cond, body } => self.while_loop(cond, body, s.span),
            StKind::Break | StKind::Continue => self.jump(matches!(s.kind, StKind::Break), s.span),
            StKind::Return(v) if self.scope().ret_flag.is_some() => self.early_ret(v.as_ref(), s.span),
            StKind::Return(v) => {
                if self.scope().depth > 0 {
                    return Err(self.err_help(
                        s.span,
                        "early `return` inside a loop or an `if` is not supported",
                        "compute the result into a variable and return it at the end of the function",
                    ));
                }
                if !last {
                    return Err(
                        self.err(s.span, format!("`return` must be the last statement of `{}`", self.scope().fname))
                    );
                }
                self.ret(v.as_ref())
            }
            StKind::Pass => Ok(()),
        }
    }

    fn assign(&mut self, targets: &[Ex], value: &Ex) -> R<()> {
        self.last_call = None;
        let v = self.eval(value)?;
        // `x = relu(...)`: a new variable for `x` is named after the call (`var_names.rs`).
        self.result_of = if targets.len() == 1 && self.calls_helper(value) { self.last_call.take() } else { None };
        let r = self.assign_value(targets, value, v);
        self.result_of = None;
        r
    }

    /// Whether `value` is a call of one of the module's functions (inlined).
    fn calls_helper(&self, value: &Ex) -> bool {
        match &value.kind {
            ExKind::Call { func, .. } => func.as_name().is_some_and(|n| !self.is_bound(n) && self.m.func(n).is_some()),
            _ => false,
        }
    }

    fn assign_value(&mut self, targets: &[Ex], value: &Ex, mut v: Val) -> R<()> {
        if targets.len() > 1 {
            // `a = b = value`: compute once, before any target changes what it reads.
            let written: Vec<VarId> = targets.iter().filter_map(|t| self.target_var(t)).collect();
            let scalar_targets: Vec<VarId> = targets
                .iter()
                .filter_map(|t| match self.scope().env.get(t.as_name()?)? {
                    Binding::Scalar { var, .. } => Some(*var),
                    _ => None,
                })
                .collect();
            v = match v {
                Val::Deferred(d) => self.force(*d)?,
                Val::Scalar(sv) if written.iter().chain(&scalar_targets).any(|w| sv.e.mentions(*w)) => {
                    self.snapshot(Val::Scalar(sv))?
                }
                Val::Array(a) if !a.view && written.iter().any(|w| a.tmpl.mentions(*w)) => {
                    let t = self.new_array("tmp", a.elem, &a.shape.clone(), &a.bounds.clone(), VarRole::Temp)?;
                    self.store_view(&t, Val::Array(a), None, &value.text)?;
                    Val::Array(t)
                }
                other => other,
            };
        }
        for t in targets {
            self.store(t, v.clone(), value)?;
        }
        Ok(())
    }

    /// The array variable an assignment target writes into, if it is bound to one.
    fn target_var(&self, t: &Ex) -> Option<VarId> {
        let mut base = t;
        while let ExKind::Subscript(b, _) | ExKind::Attr(b, _) = &base.kind {
            base = b;
        }
        match self.scope().env.get(base.as_name()?)? {
            Binding::Value(Val::Array(a)) => a.view_var(),
            _ => None,
        }
    }

    /// Assigns an evaluated value to a target expression.
    pub fn store(&mut self, t: &Ex, v: Val, value: &Ex) -> R<()> {
        match &t.kind {
            ExKind::Name(n) => self.bind_name(n, v, t.span),
            ExKind::Tuple(items) | ExKind::List(items) => {
                let vals = match v {
                    Val::Tuple(vals) => vals,
                    other => {
                        return Err(self.err(t.span, format!("cannot unpack {} into `{}`", other.kind_name(), t.text)))
                    }
                };
                if vals.len() != items.len() {
                    return Err(self.err(
                        t.span,
                        format!("cannot unpack {} values into {} targets `{}`", vals.len(), items.len(), t.text),
                    ));
                }
                // Python evaluates the whole right-hand side before assigning: unless every
                // target is a fresh name, compute pending values now so that an earlier
                // target cannot change what a later value reads (`a, b = b, a`).
                let all_fresh = items.iter().all(|i| i.as_name().is_some_and(|n| !self.is_bound(n)));
                let mut snap = Vec::new();
                for val in vals {
                    snap.push(if all_fresh { val } else { self.snapshot(val)? });
                }
                for (item, val) in items.iter().zip(snap) {
                    self.store(item, val, value)?;
                }
                Ok(())
            }
            ExKind::Subscript(base, items) => self.store_subscript(t, base, items, v, None, &value.text),
            ExKind::Attr(_, a) => Err(self.err(t.span, format!("assigning to the attribute `.{a}` is not supported"))),
            _ => Err(self.err(t.span, format!("cannot assign to `{}`", t.text))),
        }
    }

    /// The value computed now: scalars into temporaries, pending arrays into temporary
    /// arrays (views stay views).
    fn snapshot(&mut self, v: Val) -> R<Val> {
        Ok(match v {
            Val::Scalar(sv) if !sv.e.is_const() && !self.is_param_expr(&sv.e) => {
                let name = self.fresh_temp("tmp");
                let span = self.span;
                let tv = self.f.add_var(name, Type::Scalar(sv.ty()), VarRole::Temp, span);
                self.emit_kind(StmtKind::Assign { target: Place::scalar(tv), value: sv.e.clone() });
                Val::Scalar(SVal { e: Expr::var(tv, sv.ty()), weak: sv.weak })
            }
            Val::Deferred(d) => self.force(*d)?,
            Val::Array(a) if !a.view => {
                let t = self.new_array("tmp", a.elem, &a.shape.clone(), &a.bounds.clone(), VarRole::Temp)?;
                self.store_view(&t, Val::Array(a), None, "tmp")?;
                Val::Array(t)
            }
            Val::Tuple(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(self.snapshot(i)?);
                }
                Val::Tuple(out)
            }
            other => other,
        })
    }

    fn scalar_local(&mut self, name: &str, ty: Scalar, span: Span) -> R<VarId> {
        let id = self.scope().id;
        if let Some(v) = self.scope().locals.get(name) {
            let v = *v;
            let have = self.ty_of(v);
            if kind_rank(ty) > kind_rank(have) {
                self.need_wider((id, name.to_string()), ty);
            }
            return Ok(v);
        }
        let hinted = self.hints.get(&(id, name.to_string())).copied();
        let ty = match hinted {
            Some(h) if kind_rank(h) > kind_rank(ty) => h,
            _ => ty,
        };
        let vname = self.f.fresh_name(name);
        let v = self.f.add_var(vname, Type::Scalar(ty), VarRole::Local, span);
        self.want_name(v, name, false);
        self.scope_mut().locals.insert(name.to_string(), v);
        Ok(v)
    }

    pub fn bind_name(&mut self, name: &str, v: Val, span: Span) -> R<()> {
        if let Some(Binding::Scalar { var, .. }) = self.scope().env.get(name) {
            if self.f.var(*var).role == VarRole::Index {
                return Err(self.err(span, format!("the loop variable `{name}` is assigned inside its loop")));
            }
        }
        self.scope_mut().poisoned.remove(name);
        match v {
            Val::Scalar(sv) => {
                let sc = self.scope();
                let alias = sc.depth == 0
                    && sc.single_top.contains(name)
                    && sv.ty() == Scalar::I64
                    && self.is_param_expr(&sv.e);
                if alias {
                    self.scope_mut().env.insert(name.to_string(), Binding::Value(Val::Scalar(SVal::weak(sv.e))));
                    return Ok(());
                }
                let var = self.scalar_local(name, sv.ty(), span)?;
                let ty = self.ty_of(var);
                let value = ops::cast(sv.clone(), ty).e;
                self.emit_kind(StmtKind::Assign { target: Place::scalar(var), value });
                self.scope_mut().env.insert(name.to_string(), Binding::Scalar { var, weak: sv.weak });
            }
            Val::Deferred(d) if d.shape.is_empty() => {
                let var = self.scalar_local(name, d.elem, span)?;
                if d.reads(var) {
                    let sv = match self.force(*d)? {
                        Val::Scalar(sv) => sv,
                        _ => return Err(self.err(span, "internal: a scalar reduction gave an array")),
                    };
                    return self.bind_name(name, Val::Scalar(sv), span);
                }
                self.compute_into_scalar(var, &d)?;
                self.scope_mut().env.insert(name.to_string(), Binding::Scalar { var, weak: false });
            }
            Val::Array(a) if a.view => {
                let a = Arr { text: name.to_string(), ..a };
                self.scope_mut().env.insert(name.to_string(), Binding::Value(Val::Array(a)));
            }
            Val::Array(_) | Val::Deferred(_) => {
                let (elem, shape, bounds) = match &v {
                    Val::Array(a) => (a.elem, a.shape.clone(), a.bounds.clone()),
                    Val::Deferred(d) => (d.elem, d.shape.clone(), d.bounds.clone()),
                    _ => return Err(self.err(span, "internal: not an array")),
                };
                let sibling = self.scope().sibling.get(name).filter(|a| {
                    a.elem == elem
                        && a.shape.len() == shape.len()
                        && a.shape.iter().zip(&shape).all(|(x, y)| self.shapes.same_ext(x, y))
                        && !self.scope().env.contains_key(name)
                });
                let mut w = match (self.reusable(name, elem, &shape), sibling.cloned()) {
                    (Some(w), _) => {
                        if let Some(wanted) = w.view_var().and_then(|v| self.wanted.get_mut(&v)) {
                            wanted.rebind(self.result_of);
                        }
                        w
                    }
                    (None, Some(w)) => w,
                    (None, None) => self.new_array(name, elem, &shape, &bounds, VarRole::Local)?,
                };
                self.store_view(&w, v, None, name)?;
                w.text = name.to_string();
                let sc = self.scope_mut();
                if let Some(var) = w.view_var() {
                    sc.owned.insert(var);
                }
                sc.env.insert(name.to_string(), Binding::Value(Val::Array(w)));
            }
            Val::Tuple(items) => {
                // Bound values must not change meaning later: compute what is pending now.
                let mut fixed = Vec::new();
                for it in items {
                    fixed.push(match it {
                        Val::Deferred(d) => self.force(*d)?,
                        Val::Array(a) if !a.view => {
                            let t =
                                self.new_array("tmp", a.elem, &a.shape.clone(), &a.bounds.clone(), VarRole::Temp)?;
                            self.store_view(&t, Val::Array(a), None, name)?;
                            Val::Array(t)
                        }
                        other => other,
                    });
                }
                self.scope_mut().env.insert(name.to_string(), Binding::Value(Val::Tuple(fixed)));
            }
            Val::None => {
                self.scope_mut().env.insert(name.to_string(), Binding::Value(v));
            }
        }
        Ok(())
    }

    /// The local array currently bound to `name`, if a new value of this shape can be
    /// written into it (nothing else refers to it).
    fn reusable(&self, name: &str, elem: Scalar, shape: &[Expr]) -> Option<Arr> {
        let sc = self.scope();
        let Some(Binding::Value(Val::Array(a))) = sc.env.get(name) else { return None };
        let var = a.view_var()?;
        if !sc.owned.contains(&var) || a.elem != elem || a.tmpl != self.whole(var).tmpl {
            return None;
        }
        if a.shape.len() != shape.len() || a.shape.iter().zip(shape).any(|(x, y)| !self.shapes.same_ext(x, y)) {
            return None;
        }
        let aliased = self.scopes.iter().any(|s| {
            s.env.iter().any(|(n, b)| n != name && matches!(b, Binding::Value(Val::Array(o)) if o.tmpl.mentions(var)))
        });
        if aliased {
            None
        } else {
            Some(a.clone())
        }
    }

    fn aug_assign(&mut self, target: &Ex, op: BinOpAst, value: &Ex) -> R<()> {
        let v = self.eval(value)?;
        match &target.kind {
            ExKind::Name(n) => {
                let cur = self.lookup(n, target)?;
                match cur {
                    Val::Array(a) if a.view => self.store_view(&a, v, Some(op), &value.text),
                    Val::Scalar(sv) => {
                        let var = match self.scope().env.get(n) {
                            Some(Binding::Scalar { var, .. }) => *var,
                            _ => return Err(self.err(target.span, format!("cannot update `{n}` in place"))),
                        };
                        if self.f.var(var).role == VarRole::Index {
                            return Err(
                                self.err(target.span, format!("the loop variable `{n}` is assigned inside its loop"))
                            );
                        }
                        let rhs = match v {
                            Val::Scalar(r) => r,
                            Val::Deferred(d) if d.shape.is_empty() => match self.force(*d)? {
                                Val::Scalar(r) => r,
                                _ => return Err(self.err(value.span, "internal: scalar expected")),
                            },
                            other => {
                                return Err(self.err_help(
                                    target.span,
                                    format!("cannot update the scalar `{n}` with {}", other.kind_name()),
                                    format!("create the array explicitly: `{n} = {n} {} ...`", op.symbol()),
                                ))
                            }
                        };
                        let combined = ops::arith(op, sv.clone(), rhs.clone()).map_err(|m| self.err(target.span, m))?;
                        let have = self.ty_of(var);
                        if kind_rank(combined.ty()) > kind_rank(have) {
                            let id = self.scope().id;
                            self.need_wider((id, n.clone()), combined.ty());
                        }
                        let kind = if op == BinOpAst::Add {
                            StmtKind::Accumulate {
                                target: Place::scalar(var),
                                op: AccOp::Add,
                                value: ops::cast(rhs, have).e,
                                shared: false,
                            }
                        } else {
                            StmtKind::Assign { target: Place::scalar(var), value: ops::cast(combined.clone(), have).e }
                        };
                        self.emit_kind(kind);
                        let weak = combined.weak;
                        self.scope_mut().env.insert(n.clone(), Binding::Scalar { var, weak });
                        Ok(())
                    }
                    other => Err(self.err(target.span, format!("cannot update {} in place", other.kind_name()))),
                }
            }
            ExKind::Subscript(base, items) => self.store_subscript(target, base, items, v, Some(op), &value.text),
            _ => Err(self.err(target.span, format!("cannot update `{}` in place", target.text))),
        }
    }

    fn for_loop(&mut self, var: &str, var_span: Span, iter: &Ex, body: &[St], span: Span) -> R<()> {
        let range_args = match &iter.kind {
            ExKind::Call { func, args, kwargs }
                if func.as_name() == Some("range") && !self.scope().env.contains_key("range") && kwargs.is_empty() =>
            {
                args
            }
            _ => {
                return Err(self.err_help(
                    iter.span,
                    format!("unsupported loop over `{}`", iter.text),
                    "only `for i in range(...)` loops are supported",
                ))
            }
        };
        if range_args.is_empty() || range_args.len() > 3 {
            return Err(self.err(iter.span, "`range` takes 1 to 3 arguments"));
        }
        let mut bounds = Vec::new();
        for a in range_args {
            let v = self.eval(a)?;
            bounds.push(self.int_value(v, a, "a `range` bound")?);
        }
        let (start, stop, step) = match bounds.len() {
            1 => (Expr::int(0), bounds[0].clone(), Expr::int(1)),
            2 => (bounds[0].clone(), bounds[1].clone(), Expr::int(1)),
            _ => (bounds[0].clone(), bounds[1].clone(), bounds[2].clone()),
        };
        if step.as_int() == Some(0) {
            return Err(self.err(iter.span, "`range` step cannot be zero"));
        }
        if let Some(Binding::Scalar { var: v, .. }) = self.scope().env.get(var) {
            if self.f.var(*v).role == VarRole::Index {
                return Err(
                    self.err(var_span, format!("the loop variable `{var}` is already used by an enclosing loop"))
                );
            }
        }
        let iv = self.f.add_var(var, Type::Scalar(Scalar::I64), VarRole::Index, var_span);
        self.index_names.push(var.to_string());
        let ranged = step.as_int().map(|st| crate::ranges::LoopRange::of_range(iv, &start, &stop, st));
        let pushed = ranged.is_some();
        self.loop_ranges.extend(ranged);
        let before = self.scope().env.clone();
        {
            let sc = self.scope_mut();
            sc.env.insert(var.to_string(), Binding::Scalar { var: iv, weak: true });
            sc.depth += 1;
            sc.watches.push(Watch { before: before.clone(), read: BTreeSet::new() });
        }
        let range = match step.as_int() {
            Some(k) if k > 0 => Some(IndexRange { var: iv, lo: start.clone(), hi: stop.clone().sub(Expr::int(1)) }),
            Some(_) => Some(IndexRange { var: iv, lo: stop.clone().add(Expr::int(1)), hi: start.clone() }),
            None => None,
        };
        let ranged = range.is_some();
        self.loops.extend(range);
        self.push_jumps();
        let r = self.with_block(|lw| lw.lower_block(body));
        let r = r.map(|b| self.pop_jumps(b));
        if r.is_err() {
            self.jumps.pop();
        }
        if ranged {
            self.loops.pop();
        }
        self.index_names.pop();
        if pushed {
            self.loop_ranges.pop();
        }
        let watch = {
            let sc = self.scope_mut();
            sc.depth -= 1;
            sc.watches.pop()
        };
        let (fin, brk) = r?;
        self.check_rebinding(watch, span)?;
        self.span = span;
        if let Some(b) = brk {
            self.emit_kind(StmtKind::Assign { target: Place::scalar(b), value: Expr::boolean(false) });
        }
        let body = adjc_ir::proc::jumps::counted_body(fin.body, &fin.stop);
        self.emit_kind(StmtKind::Loop(Loop { id: LoopId::NEW, var: iv, start, stop, step, body }));
        // Python keeps the last value of the loop variable; the IR index only exists
        // inside its loop.
        let sc = self.scope_mut();
        sc.env.remove(var);
        let dependent: Vec<String> = sc
            .env
            .iter()
            .filter(|(_, b)| matches!(b, Binding::Value(v) if val_mentions(v, iv)))
            .map(|(n, _)| n.clone())
            .collect();
        for n in dependent {
            sc.env.remove(&n);
            sc.poisoned.insert(
                n.clone(),
                format!("`{n}` depends on the loop variable `{var}` and is not available after its loop"),
            );
        }
        sc.poisoned.insert(var.to_string(), format!("the loop variable `{var}` is not available after its loop"));
        Ok(())
    }

    fn if_stmt(&mut self, cond: &Ex, then_body: &[St], else_body: &[St]) -> R<()> {
        let span = self.span;
        let c = self.eval(cond)?;
        let c = match c {
            Val::Scalar(sv) => ops::truth(sv).e,
            Val::Deferred(d) if d.shape.is_empty() => match self.force(*d)? {
                Val::Scalar(sv) => ops::truth(sv).e,
                _ => return Err(self.err(cond.span, "internal: scalar expected")),
            },
            other => {
                return Err(self.err_help(
                    cond.span,
                    format!("the condition of an `if` must be a scalar, but `{}` is {}", cond.text, other.kind_name()),
                    "use `np.where(cond, a, b)` for element-wise choices",
                ))
            }
        };
        let before = self.scope().env.clone();
        self.scope_mut().depth += 1;
        let then_r = self.with_block(|lw| lw.lower_block(then_body));
        let env_then = std::mem::replace(&mut self.scope_mut().env, before.clone());
        let then_b = match then_r {
            Ok(b) => b,
            Err(e) => {
                self.scope_mut().depth -= 1;
                return Err(e);
            }
        };
        let created: BTreeMap<String, Arr> = env_then
            .iter()
            .filter(|(n, b)| before.get(*n) != Some(*b))
            .filter_map(|(n, b)| match b {
                Binding::Value(Val::Array(a)) if a.view_var().is_some_and(|v| self.scope().owned.contains(&v)) => {
                    Some((n.clone(), a.clone()))
                }
                _ => None,
            })
            .collect();
        let shared_vars: Vec<VarId> = created.values().filter_map(|a| a.view_var()).collect();
        let outer_sibling = std::mem::replace(&mut self.scope_mut().sibling, created);
        let else_r = self.with_block(|lw| lw.lower_block(else_body));
        let sc = self.scope_mut();
        sc.sibling = outer_sibling;
        sc.depth -= 1;
        let else_b = else_r?;
        // Arrays both branches write are allocated before the `if`.
        let mut then_b = then_b;
        let used_in_else = crate::irutil::written_in(&else_b);
        let mut hoisted = Vec::new();
        then_b.retain(|s| match s.kind {
            StmtKind::Alloc(v) if shared_vars.contains(&v) && used_in_else.contains(&v) => {
                hoisted.push(s.clone());
                false
            }
            _ => true,
        });
        for s in hoisted {
            self.emit(s);
        }
        let env_else = std::mem::take(&mut self.scope_mut().env);
        // Merge: names bound alike in both branches keep their binding; scalars created in
        // one branch stay (they are variables); differing array bindings cannot be merged.
        let mut merged = BTreeMap::new();
        let mut poisoned = Vec::new();
        let names: BTreeSet<&String> = env_then.keys().chain(env_else.keys()).collect();
        for n in names {
            match (env_then.get(n), env_else.get(n)) {
                (Some(a), Some(b)) if a == b => {
                    merged.insert(n.clone(), a.clone());
                }
                (Some(Binding::Scalar { var: a, weak: wa }), Some(Binding::Scalar { var: b, weak: wb })) if a == b => {
                    merged.insert(n.clone(), Binding::Scalar { var: *a, weak: *wa && *wb });
                }
                (Some(s @ Binding::Scalar { .. }), None) | (None, Some(s @ Binding::Scalar { .. })) => {
                    merged.insert(n.clone(), s.clone());
                }
                _ => poisoned.push(n.clone()),
            }
        }
        let sc = self.scope_mut();
        sc.env = merged;
        for n in poisoned {
            sc.poisoned.insert(n.clone(), format!("`{n}` is bound to different values in the branches of an `if`"));
        }
        self.span = span;
        self.emit_kind(StmtKind::If { cond: c, then_body: then_b, else_body: else_b });
        Ok(())
    }

    fn ret(&mut self, v: Option<&Ex>) -> R<()> {
        let val = match v {
            Some(e) => self.eval(e)?,
            None => Val::None,
        };
        if !self.scope().is_entry {
            self.scope_mut().ret = Some(val);
            return Ok(());
        }
        match val {
            Val::None => Ok(()),
            Val::Tuple(items) => {
                for (k, it) in items.into_iter().enumerate() {
                    self.make_ret(&format!("ret{k}"), it, v)?;
                }
                Ok(())
            }
            other => self.make_ret("ret", other, v),
        }
    }

    fn make_ret(&mut self, name: &str, v: Val, e: Option<&Ex>) -> R<()> {
        let span = e.map(|e| e.span).unwrap_or(self.span);
        let v = match v {
            Val::Deferred(d) if d.shape.is_empty() => self.force(*d)?,
            other => other,
        };
        match v {
            Val::Scalar(sv) => {
                let var = self.f.add_var(name, Type::Scalar(sv.ty()), VarRole::Return, span);
                self.add_ret(var);
                self.emit_kind(StmtKind::Assign { target: Place::scalar(var), value: sv.e });
                Ok(())
            }
            Val::Array(_) | Val::Deferred(_) => {
                let (elem, shape) = match &v {
                    Val::Array(a) => (a.elem, a.shape.clone()),
                    Val::Deferred(d) => (d.elem, d.shape.clone()),
                    _ => return Err(self.err(span, "internal: not an array")),
                };
                let mut dims = Vec::new();
                for x in &shape {
                    if !self.is_param_expr(&self.shapes.apply(x)) {
                        return Err(self.err(
                            span,
                            format!("the shape of the returned value ({}) depends on local values", self.ext_str(x)),
                        ));
                    }
                    dims.push(Dim::zero_based(self.length(x)));
                }
                let var =
                    self.f.add_var(name, Type::Array { elem, dims, layout: Layout::RowMajor }, VarRole::Return, span);
                self.add_ret(var);
                let text = e.map(|e| e.text.clone()).unwrap_or_default();
                self.store_whole(var, v, &text)
            }
            other => Err(self.err(span, format!("cannot return {} here", other.kind_name()))),
        }
    }

    pub(super) fn add_ret(&mut self, var: VarId) {
        self.rets.push(var);
        let k = self.rets.len() - 1;
        self.docs.insert(
            var,
            if self.f.var(var).name == "ret" { "returned value".into() } else { format!("returned value {k}") },
        );
        self.set_params();
    }

    /// An integer-valued scalar (bools are widened), or a diagnostic naming `what`.
    /// Whether integer expression `e` is never negative in the loops being lowered
    /// (array extents are non-negative; other parameters may have either sign).
    pub fn never_negative(&self, e: &Expr) -> bool {
        let fixed = |v: VarId| self.sizes.contains(&v) || self.src_params.contains(&v);
        let nonneg = |v: VarId| self.sizes.contains(&v);
        crate::ranges::never_negative(e, &self.loop_ranges, &fixed, &nonneg)
    }

    pub fn int_value(&mut self, v: Val, e: &Ex, what: &str) -> R<Expr> {
        let sv = match v {
            Val::Scalar(sv) => sv,
            Val::Deferred(d) if d.shape.is_empty() && !d.elem.is_float() => match self.force(*d)? {
                Val::Scalar(sv) => sv,
                _ => return Err(self.err(e.span, "internal: scalar expected")),
            },
            other => {
                return Err(
                    self.err(e.span, format!("{what} must be an integer, but `{}` is {}", e.text, other.kind_name()))
                )
            }
        };
        match sv.ty() {
            Scalar::I64 => Ok(sv.e),
            Scalar::Bool => Ok(sv.e.cast(Scalar::I64)),
            t => Err(self.err_help(
                e.span,
                format!("{what} must be an integer, but `{}` is {t}", e.text),
                "convert it with `int(...)`",
            )),
        }
    }
}

/// Bool < integer < float: a local assigned a value of a higher kind must be widened.
pub(super) fn kind_rank(t: Scalar) -> u8 {
    match t {
        Scalar::Bool => 0,
        Scalar::I64 => 1,
        Scalar::F32 | Scalar::F64 => 2,
    }
}

/// Equal bindings; scalar variables compare by variable (their weak flag may change).
pub(super) fn same_binding(a: Option<&Binding>, b: Option<&Binding>) -> bool {
    match (a, b) {
        (Some(Binding::Scalar { var: x, .. }), Some(Binding::Scalar { var: y, .. })) => x == y,
        _ => a == b,
    }
}

fn val_mentions(v: &Val, var: VarId) -> bool {
    match v {
        Val::Scalar(sv) => sv.e.mentions(var),
        Val::Array(a) => a.tmpl.mentions(var) || a.shape.iter().any(|e| e.mentions(var)),
        Val::Deferred(d) => d.reads(var) || d.shape.iter().any(|e| e.mentions(var)),
        Val::Tuple(items) => items.iter().any(|i| val_mentions(i, var)),
        Val::None => false,
    }
}
