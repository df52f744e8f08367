//! One procedure to one IR function: the symbol table, variables and signature (this
//! file), statements (`stmt`), expressions (`expr`) and array sections (`array`).

use super::ast::{self, At, Expr as AExpr, ExprKind as AKind, SpecKind, Stmt as AStmt, TypeSpec};
use super::decl::{self, DimSpec, Table};
use super::scan::{Proc, ProcKind, Unit};
use crate::irutil;
use adjc_ir::*;
use std::collections::{BTreeMap, BTreeSet};

pub type R<T> = Result<T, Diagnostic>;

/// What a name means inside the procedure.
#[derive(Clone, Debug)]
pub enum Binding {
    Var(VarId),
    Const(Expr),
}

pub struct Lowerer<'s, 't> {
    pub src: &'s str,
    pub unit: &'s Unit<'t>,
    pub f: Function,
    /// Lower-case name → meaning (dummies, locals, result, constants).
    pub names: BTreeMap<String, Binding>,
    /// Enclosing `do` variables, innermost last.
    pub loops: Vec<(String, VarId)>,
    /// Enclosing `do` loops with their `exit` / `cycle` flags, innermost last (`jumps`).
    pub jumps: Vec<super::jumps::FJump>,
    /// Per procedure body being lowered (entry, inlined callees): the flag a `return`
    /// inside a loop sets, once one is met.
    pub ret_flags: Vec<Option<VarId>>,
    /// Statement blocks under construction, innermost last.
    pub blocks: Vec<Block>,
    pub implicit_none: bool,
    /// Every identifier of the source (lower case): generated names avoid them.
    pub reserved: BTreeSet<String>,
    pub allocs: Vec<(VarId, Span)>,
    /// Dummy arguments in source order with their declared intent.
    pub dummies: Vec<(VarId, Option<Intent>)>,
    pub ret: Option<VarId>,
    /// The span of the statement being lowered.
    pub span: Span,
    pub depth: usize,
    /// Chain links on the path to the expression being lowered (see `MAX_CHAIN`), and
    /// whether the next expression entered is one.
    pub chain: usize,
    pub chain_link: bool,
    /// Real `parameter` constants read by executable statements keep their names: each
    /// becomes a local assigned its value at the top of the function (`const_inits`), so
    /// the C reads `kappa * u[i]`, not `0.01 * u[i]` (off in specification parts, whose
    /// expressions must fold to literals).
    pub named_constants: bool,
    /// The local of each named constant, by (lower-case name, value): a callee's constant
    /// of the same name and value is the same local.
    pub constant_vars: BTreeMap<(String, String), VarId>,
    pub const_inits: Vec<Stmt>,
    /// Where each constant is declared and its initial value, by the key of `constant_vars`.
    pub constant_spans: BTreeMap<(String, String), (Span, Option<&'t AExpr>)>,
    /// How many maps (array statements, parallel reductions) enclose the statements
    /// being emitted: reductions inside them become sequential loops.
    pub map_depth: usize,
    /// The element value computed inside a reduction body.
    pub reduce_value: Option<Expr>,
    /// How many calls are being inlined around the current statement.
    pub inline_depth: usize,
    /// Size parameters invented for assumed-shape dummies, with their documentation.
    pub sizes: Vec<(VarId, String)>,
    /// Variables of the enclosing modules (not supported: only their constants are).
    pub host_vars: Vec<String>,
    /// `parameter` arrays of the modules (not supported yet: an error where one is read).
    pub host_param_arrays: BTreeSet<String>,
    /// The procedure whose statements are being lowered (lower case: the entry, or the
    /// callee being inlined), and the names of each host procedure as its internal
    /// procedures see them (host association, see `inline`).
    pub current_proc: String,
    pub host_scopes: BTreeMap<String, BTreeMap<String, Binding>>,
    /// Calls of array-valued functions already inlined (by expression id) and their results.
    pub hoisted: BTreeMap<ast::ExprId, VarId>,
    /// Variables that are also `do` variables somewhere (their value after the loop is
    /// not kept).
    pub do_vars: BTreeSet<VarId>,
    /// Allocatable locals not allocated yet, with their declared rank.
    pub deferred: BTreeMap<VarId, usize>,
    /// Variables set by left-out timer and hook calls (call name, call span).
    pub left_out: Vec<(VarId, String, Span)>,
    /// Locals kept from one call to the next: given a value in their declaration (with
    /// the span of that initialiser, which is the span of the statements giving them that
    /// value), or declared `save` (with the span of the name, `true`).
    pub initialised: Vec<(VarId, Span, bool)>,
    /// Optional dummies of the inlined callee that its call leaves out (lower case):
    /// `present(x)` is false, any other use an error.
    pub absent: BTreeSet<String>,
    /// COMMON members and module variables met so far (`state`).
    pub state: super::state::StateVars,
    /// The statement functions of the procedure being lowered (`stmt_fn`), and those
    /// being expanded (a statement function cannot call itself).
    pub stmt_fns: BTreeMap<String, super::stmt_fn::StmtFn<'t>>,
    pub stmt_fns_active: Vec<String>,
    /// Statement labels lowered so far (a `goto` to one of them jumps backwards).
    pub labels_seen: BTreeSet<String>,
    /// `character` variables and constants of the current scope (lower case): text, left
    /// out with the statements that use it (output, hooks); any other use is an error.
    pub text_names: BTreeSet<String>,
    /// Positions of the entry's `character` dummies (they are not parameters of the C).
    pub text_dummies: Vec<usize>,
}

/// The header and specification part of a procedure.
pub struct Spec<'t> {
    /// Dummy argument names (lower case) in order.
    pub dummies: Vec<(String, Span)>,
    pub result_name: Option<String>,
    pub result_type: Option<&'t TypeSpec>,
    pub local: Table<'t>,
    pub stmts: &'t [AStmt],
    pub implicit_none: bool,
    /// `use m, only: local => remote` renames: (local as spelled, remote lower case, where).
    pub aliases: Vec<(String, String, Span)>,
    /// `pure` or `elemental` (not `impure`): its locals cannot be saved.
    pub pure: bool,
    /// The COMMON blocks the procedure declares, in order of first mention.
    pub commons: Vec<super::state::CommonDecl>,
    /// The modules named in `use` statements (lower case).
    pub uses: Vec<String>,
    /// The groups of the `data` statements, in order.
    pub data: Vec<&'t ast::DataSet>,
}

/// Nesting deeper than this is reported instead of risking the stack.
pub const MAX_DEPTH: usize = 400;
/// Left-spine links of binary operators on one path (see `Lowerer::enter`).
pub const MAX_CHAIN: usize = 5_000;

pub fn lower_proc(src: &str, unit: &Unit, proc: &Proc) -> R<(Function, super::state::FortranState)> {
    let mut lw = Lowerer {
        src,
        unit,
        f: Function {
            name: proc.name.clone(),
            params: Vec::new(),
            vars: Vec::new(),
            body: Vec::new(),
            span: proc.name_span,
            notes: Vec::new(),
            assumptions: Vec::new(),
        },
        names: BTreeMap::new(),
        loops: Vec::new(),
        jumps: Vec::new(),
        ret_flags: Vec::new(),
        blocks: vec![Vec::new()],
        implicit_none: false,
        reserved: crate::ts::identifiers(src, true),
        allocs: Vec::new(),
        dummies: Vec::new(),
        ret: None,
        span: proc.name_span,
        depth: 0,
        chain: 0,
        chain_link: false,
        map_depth: 0,
        reduce_value: None,
        inline_depth: 0,
        sizes: Vec::new(),
        host_vars: Vec::new(),
        host_param_arrays: BTreeSet::new(),
        current_proc: proc.name.to_ascii_lowercase(),
        host_scopes: BTreeMap::new(),
        hoisted: BTreeMap::new(),
        do_vars: BTreeSet::new(),
        deferred: BTreeMap::new(),
        left_out: Vec::new(),
        initialised: Vec::new(),
        absent: BTreeSet::new(),
        state: Default::default(),
        stmt_fns: BTreeMap::new(),
        stmt_fns_active: Vec::new(),
        labels_seen: BTreeSet::new(),
        text_names: BTreeSet::new(),
        text_dummies: Vec::new(),
        named_constants: false,
        constant_vars: BTreeMap::new(),
        const_inits: Vec::new(),
        constant_spans: BTreeMap::new(),
    };
    let stmts = lw.declare(proc)?;
    lw.named_constants = true;
    lw.body_with_loop_returns(|lw| lw.body_with_returns(stmts))?;
    lw.finish()
}

impl<'s, 't> Lowerer<'s, 't> {
    pub fn err(&self, n: impl At, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(n.at(), msg)
    }
    /// The source text of `n` (a name node: its name, which a node made by `derived`
    /// does not spell in the source).
    pub fn text(&self, n: impl At) -> std::borrow::Cow<'s, str> {
        if let Some(name) = n.name() {
            return std::borrow::Cow::Owned(name.to_string());
        }
        let s = n.at();
        std::borrow::Cow::Borrowed(self.src.get(s.start as usize..s.end as usize).unwrap_or(""))
    }
    pub fn sp(&self, n: impl At) -> Span {
        n.at()
    }

    /// Reads the header and the specification part of `proc`.
    pub fn read_spec(&mut self, proc: &Proc<'t>) -> R<Spec<'t>> {
        let p = proc.node;
        if let Some(TypeSpec::Derived { span, .. }) = &p.result_type {
            return Err(Diagnostic::error(*span, "functions returning derived types are not supported"));
        }
        let mut dummy_names: Vec<(String, Span)> = Vec::new();
        for (spelled, span) in &p.dummies {
            let name = spelled.to_ascii_lowercase();
            if dummy_names.iter().any(|(d, _)| *d == name) {
                return Err(Diagnostic::error(
                    *span,
                    format!("the argument `{spelled}` appears twice in the argument list"),
                )
                .with_help("give every dummy argument its own name"));
            }
            dummy_names.push((name, *span));
        }
        let result_name = p.result.as_ref().map(|r| r.to_ascii_lowercase());
        let result_type = p.result_type.as_ref();
        let mut aliases = Vec::new();
        if let Some((d, span)) = dummy_names.iter().find(|(d, _)| Some(d) == result_name.as_ref()) {
            return Err(Diagnostic::error(*span, format!("`{d}` is both an argument and the function result"))
                .with_help("give the result its own name in `result(...)`"));
        }
        let mut local = Table::new();
        let mut implicit_none = false;
        let mut implicit_seen = false;
        // Names an attribute or `parameter` statement mentions: they need a type
        // declaration under `implicit none`.
        let mut untyped: Vec<(String, Span)> = Vec::new();
        let mut parameters = Vec::new();
        let mut commons = Vec::new();
        let mut uses = Vec::new();
        let mut data = Vec::new();
        for item in &p.spec {
            let n = item.span;
            match &item.kind {
                SpecKind::Decl(d) => decl::collect(d, &mut local, true)?,
                SpecKind::Attributes(d) => {
                    decl::collect_attributes(d, &mut local)?;
                    untyped.extend(d.entities.iter().map(|e| (e.name.to_ascii_lowercase(), e.span)));
                }
                SpecKind::Parameter(defs) => parameters.extend(defs.iter()),
                SpecKind::Implicit(i) => {
                    if !local.is_empty() {
                        return Err(self
                            .err(n, "`implicit` after a declaration")
                            .with_help("put `implicit none` before the declarations (after the `use` statements)"));
                    }
                    if implicit_seen {
                        return Err(self.err(n, "a second `implicit` statement").with_help("keep one `implicit none`"));
                    }
                    implicit_seen = true;
                    if i.none {
                        implicit_none = true;
                    } else {
                        return Err(self
                            .err(n, "implicit typing rules other than `implicit none` are not supported")
                            .with_help("add `implicit none` and declare every variable"));
                    }
                }
                SpecKind::Use(u) => {
                    aliases.extend(self.check_use(n, u)?);
                    uses.push(u.module.clone());
                }
                SpecKind::Common(blocks) => super::state::collect_common(n, blocks, &mut local, &mut commons)?,
                SpecKind::Equivalence => {
                    return Err(self
                        .err(n, "`equivalence` is not supported")
                        .with_help("use separate variables; adjc must know which storage each name refers to"))
                }
                SpecKind::Data(sets) => data.extend(sets.iter()),
                SpecKind::Include => {
                    return Err(self
                        .err(n, "`include` is not supported yet")
                        .with_help("paste the included declarations into the file"))
                }
                SpecKind::TypeDef(_) => {
                    return Err(self
                        .err(n, "derived types are not supported")
                        .with_help("pass the components as separate arrays and scalars"))
                }
                SpecKind::Interface => return Err(self.err(n, "interface blocks are not supported")),
            }
        }
        // The host's `implicit none` holds unless the procedure has its own `implicit`.
        let implicit_none = implicit_none || (!implicit_seen && proc.host_implicit_none);
        // `parameter (...)` statements after all declarations, wherever they stand: the
        // declarations give the type, the statement the value.
        for (name, span, value) in parameters {
            decl::collect_parameter(name, *span, value, &mut local)?;
            untyped.push((name.to_ascii_lowercase(), *span));
        }
        if implicit_none {
            for (key, span) in &untyped {
                let typed_result =
                    result_type.is_some() && result_name.as_deref().unwrap_or(&proc.name.to_ascii_lowercase()) == key;
                if local.get(key).is_some_and(|s| s.ty.is_none()) && !typed_result {
                    let name = local.get(key).map(|s| s.name.clone()).unwrap_or_default();
                    return Err(Diagnostic::error(*span, format!("`{name}` has no type declaration")).with_help(
                        format!("declare it, e.g. `real(8) :: {name}` (the procedure has `implicit none`)"),
                    ));
                }
            }
        }
        Ok(Spec {
            dummies: dummy_names,
            result_name,
            result_type,
            local,
            stmts: &p.body,
            implicit_none,
            aliases,
            pure: p.pure,
            commons,
            uses,
            data,
        })
    }

    /// `parameter` constants: the file's modules, then the host, then the procedure itself.
    pub fn define_all_constants(&mut self, proc: &Proc<'t>, spec: &Spec<'t>) -> R<()> {
        let local = &spec.local;
        let mut host = Table::new();
        for d in self.unit.module_decls.iter().chain(proc.host_decls.iter()) {
            decl::collect(d, &mut host, false)?;
        }
        for (name, remote, span) in &spec.aliases {
            match host.get(remote) {
                Some(s) if s.parameter => {
                    let alias = decl::Sym { name: name.clone(), ..s.clone() };
                    host.insert(name.to_ascii_lowercase(), alias);
                }
                _ => {
                    return Err(Diagnostic::error(
                        *span,
                        format!("`{remote}` is not a `parameter` constant of the module"),
                    )
                    .with_help("adjc renames module constants only (`use m, only: wp => dp`)"))
                }
            }
        }
        self.text_names.extend(host.iter().filter(|(_, s)| decl::is_text(s)).map(|(k, _)| k.clone()));
        self.text_names.extend(local.iter().filter(|(_, s)| decl::is_text(s)).map(|(k, _)| k.clone()));
        let host_params: Vec<decl::Sym> =
            host.values().filter(|s| s.parameter && !decl::is_text(s) && s.dims.is_none()).cloned().collect();
        self.host_param_arrays =
            host.iter().filter(|(_, s)| s.parameter && s.dims.is_some()).map(|(k, _)| k.clone()).collect();
        self.define_constants(&host_params)?;
        self.host_vars = host.iter().filter(|(_, s)| !s.parameter).map(|(k, _)| k.clone()).collect();
        // A `parameter` array (`real, parameter :: c(3) = (/ ... /)`) is a local given its
        // value once at the top (`declare_locals`), like an initialised local.
        let local_params: Vec<decl::Sym> =
            local.values().filter(|s| s.parameter && !decl::is_text(s) && s.dims.is_none()).cloned().collect();
        self.define_constants(&local_params)?;
        self.bind_module_vars(proc, spec)
    }

    /// The declaration of a dummy argument (implicitly typed when undeclared).
    pub fn dummy_sym(&self, spec: &Spec<'t>, name: &str, span: Span) -> R<decl::Sym<'t>> {
        match spec.local.get(name) {
            Some(s) if s.parameter => {
                Err(Diagnostic::error(s.span, format!("the argument `{}` is declared `parameter`", s.name)))
            }
            Some(s) => Ok(s.clone()),
            None => self.implicit_sym(name, span),
        }
    }

    /// Reads the specification part of the entry procedure, declares its variables and
    /// signature; returns the executable statements.
    fn declare(&mut self, proc: &Proc<'t>) -> R<&'t [AStmt]> {
        let spec = self.read_spec(proc)?;
        self.implicit_none = spec.implicit_none;
        self.define_all_constants(proc, &spec)?;
        // Dummies first (source order), then the function result, then locals.
        let mut array_syms: Vec<(VarId, decl::Sym<'t>)> = Vec::new();
        for (k, (name, span)) in spec.dummies.iter().enumerate() {
            let sym = self.dummy_sym(&spec, name, *span)?;
            if decl::is_text(&sym) {
                // Text: used only by statements adjc leaves out (checked at each use).
                self.text_dummies.push(k);
                self.f
                    .notes
                    .push(format!("the character argument `{}` is not a parameter of the C (text only)", sym.name));
                continue;
            }
            let elem = self.scalar_type(&sym)?;
            let id = self.f.add_var(sym.name.clone(), Type::Scalar(elem), VarRole::Param, sym.span);
            self.names.insert(name.clone(), Binding::Var(id));
            self.dummies.push((id, sym.intent));
            if sym.dims.is_some() {
                array_syms.push((id, sym));
            }
        }
        if proc.kind == ProcKind::Function {
            let name = self.f.fresh_name("ret");
            self.ret = Some(self.declare_result(proc, &spec, name, VarRole::Return)?);
        }
        self.declare_locals(&spec, array_syms)?;
        self.statement_functions(&spec, spec.stmts)
    }

    /// The result variable of a function, bound to its result name.
    pub fn declare_result(&mut self, proc: &Proc<'t>, spec: &Spec<'t>, name: String, role: VarRole) -> R<VarId> {
        let rname = spec.result_name.clone().unwrap_or_else(|| proc.name.to_ascii_lowercase());
        let sym = spec.local.get(&rname).cloned();
        let elem = match (&sym, spec.result_type) {
            (Some(s), _) if s.ty.is_some() => self.scalar_type(s)?,
            (_, Some(t)) => self.type_of(t)?,
            _ => {
                let s = self.implicit_sym(&rname, proc.name_span)?;
                self.scalar_type(&s)?
            }
        };
        let id = self.f.add_var(name, Type::Scalar(elem), role.clone(), proc.name_span);
        if let Some(s) = sym.as_ref().filter(|s| s.dims.is_some()) {
            // Array results exist for inlined calls only (they become a work array).
            if role != VarRole::Temp {
                return Err(Diagnostic::error(
                    proc.name_span,
                    "functions returning arrays are not supported as the entry",
                )
                .with_help("write a subroutine with an `intent(out)` array argument, or call the function from one"));
            }
            let dims = self.array_dims(s, None)?;
            self.f.var_mut(id).ty = Type::Array { elem, dims, layout: Layout::ColMajor };
            self.alloc_at_top(id, s.span);
        }
        self.names.insert(rname, Binding::Var(id));
        Ok(id)
    }

    /// Local variables (those not bound yet); then the shapes of `array_syms` and of the
    /// local arrays, which are allocated at the top of the function.
    pub fn declare_locals(&mut self, spec: &Spec<'t>, array_syms: Vec<(VarId, decl::Sym<'t>)>) -> R<()> {
        // Bounds, initial values and DATA need literals: constants by value here.
        let named = std::mem::replace(&mut self.named_constants, false);
        let result = self.declare_locals_literal(spec, array_syms);
        self.named_constants = named;
        result
    }

    fn declare_locals_literal(&mut self, spec: &Spec<'t>, mut array_syms: Vec<(VarId, decl::Sym<'t>)>) -> R<()> {
        self.bind_commons(spec)?;
        let mut with_init = Vec::new();
        for (key, sym) in &spec.local {
            if let (Some(init), false, true) = (sym.init, sym.parameter, self.names.contains_key(key)) {
                return Err(self
                    .err(init, format!("the argument or function result `{}` cannot have an initial value", sym.name))
                    .with_help("assign it in the body"));
            }
            let constant = sym.parameter && sym.dims.is_none();
            if constant || self.names.contains_key(key) || self.absent.contains(key) || decl::is_text(sym) {
                continue;
            }
            let elem = self.scalar_type(sym)?;
            let id = self.f.add_var(sym.name.clone(), Type::Scalar(elem), VarRole::Local, sym.span);
            self.names.insert(key.clone(), Binding::Var(id));
            if let (Some(init), true, false) = (sym.init, spec.pure, sym.parameter) {
                return Err(self
                    .err(init, format!("`{}` has an initial value in a pure procedure", sym.name))
                    .with_help("an initial value makes a local saved between calls, which a pure procedure cannot have; make it a `parameter`, or assign it in the body"));
            }
            if sym.init.is_some() {
                with_init.push((id, sym.clone()));
            } else if sym.save {
                self.initialised.push((id, sym.span, true));
            }
            if sym.allocatable {
                // Typed by its `allocate` statement.
                self.deferred.insert(id, sym.dims.as_ref().map_or(0, |d| d.len()));
            } else if sym.dims.is_some() {
                array_syms.push((id, sym.clone()));
            }
        }
        for (id, sym) in array_syms {
            if sym.allocatable {
                return Err(Diagnostic::error(
                    sym.span,
                    format!("the allocatable argument `{}` is not supported yet", sym.name),
                )
                .with_help("pass an explicit-shape or assumed-shape array"));
            }
            let dims = self.array_dims(&sym, None)?;
            let elem = self.f.var(id).ty.elem();
            self.f.var_mut(id).ty = Type::Array { elem, dims, layout: Layout::ColMajor };
            if self.f.var(id).role == VarRole::Local {
                self.alloc_at_top(id, sym.span);
            }
        }
        with_init.sort_by_key(|(_, s)| s.span.start);
        for (id, sym) in with_init {
            self.initialise(id, &sym)?;
        }
        self.data_statements(spec)
    }

    /// Gives a local its declared initial value (`real(8) :: c = 2.0_8`,
    /// `w(3) = (/1d0, 2d0, 3d0/)`) at the top of the function (also for the locals of an
    /// inlined callee). In Fortran such a local is saved between calls; `finish` rejects it
    /// when the procedure also assigns it, so it is a constant here.
    fn initialise(&mut self, id: VarId, sym: &decl::Sym<'t>) -> R<()> {
        let Some(init) = sym.init else { return Ok(()) };
        let span = self.sp(init);
        let saved = std::mem::replace(&mut self.span, span);
        let ty = self.f.var(id).ty.clone();
        let elem = ty.elem();
        let constant = |lw: &mut Self, n: &'t AExpr| -> R<Expr> {
            let e = lw.expr(n, None)?;
            if !e.vars().is_empty() {
                return Err(lw
                    .err(n, format!("the initial value of `{}` is not a constant", sym.name))
                    .with_help("an initialiser must be a constant expression; assign the value in the body"));
            }
            if (e.ty == Scalar::Bool) != (elem == Scalar::Bool) {
                return Err(
                    lw.err(n, format!("cannot initialise the {elem} variable `{}` with a {} value", sym.name, e.ty))
                );
            }
            Ok(e.cast(elem))
        };
        let mut stmts = Vec::new();
        match &ty {
            Type::Scalar(_) => {
                if matches!(init.kind, AKind::ArrayConstructor(_)) {
                    return Err(self.err(init, format!("`{}` is a scalar, initialised with an array", sym.name)));
                }
                stmts.push(Stmt::assign(Place::scalar(id), constant(self, init)?, span));
            }
            Type::Array { dims, .. } => {
                let help = "assign the values in the body, or make it a `parameter` array";
                let extents: Option<Vec<i64>> = dims.iter().map(|d| d.extent.as_int()).collect();
                let lowers: Option<Vec<i64>> = dims.iter().map(|d| d.lower.as_int()).collect();
                let (Some(extents), Some(lowers)) = (extents, lowers) else {
                    return Err(self
                        .err(init, format!("the initialised array `{}` has no constant shape", sym.name))
                        .with_help(help));
                };
                let count: i64 = extents.iter().product();
                let values: Vec<Expr> = if let AKind::ArrayConstructor(items) = &init.kind {
                    if dims.len() != 1 {
                        return Err(self
                            .err(
                                init,
                                format!(
                                    "array initialisers are supported for rank-1 arrays; `{}` has rank {}",
                                    sym.name,
                                    dims.len()
                                ),
                            )
                            .with_help(help));
                    }
                    if let Some(bad) =
                        items.iter().find(|i| matches!(i.kind, AKind::ImpliedDo(_) | AKind::ArrayConstructor(_)))
                    {
                        return Err(self
                            .err(bad, "this array constructor item is not supported in an initialiser")
                            .with_help(help));
                    }
                    if items.len() as i64 != count {
                        return Err(self.err(
                            init,
                            format!("`{}` has {count} elements but its initialiser gives {}", sym.name, items.len()),
                        ));
                    }
                    items.iter().map(|i| constant(self, i)).collect::<R<_>>()?
                } else {
                    if count > 16 {
                        return Err(self
                            .err(
                                init,
                                format!(
                                    "initialising all {count} elements of `{}` in its declaration is not supported",
                                    sym.name
                                ),
                            )
                            .with_help("assign the value in the body (`w = 0`)"));
                    }
                    let v = constant(self, init)?;
                    vec![v; count.max(0) as usize]
                };
                // Column-major order, from the declared lower bounds.
                for (k, v) in values.into_iter().enumerate() {
                    let mut rest = k as i64;
                    let index: Vec<Expr> = extents
                        .iter()
                        .zip(&lowers)
                        .map(|(&e, &lo)| {
                            let i = lo + rest % e.max(1);
                            rest /= e.max(1);
                            Expr::int(i)
                        })
                        .collect();
                    stmts.push(Stmt::assign(Place::element(id, index), v, span));
                }
            }
        }
        // At the top of the function, after the allocations and earlier initialisers, also
        // for an inlined callee: the value is a constant (see `check_initialised`), so one
        // assignment serves every call, and none is taped inside loops.
        let inits: Vec<u32> = self.initialised.iter().filter(|(_, _, save)| !save).map(|(_, s, _)| s.start).collect();
        if let Some(top) = self.blocks.first_mut() {
            let allocs = top.iter().take_while(|s| matches!(s.kind, StmtKind::Alloc(_))).count();
            let after = top.iter().rposition(|s| inits.contains(&s.span.start)).map_or(0, |p| p + 1);
            let at = allocs.max(after);
            top.splice(at..at, stmts);
        }
        self.initialised.push((id, span, false));
        self.span = saved;
        Ok(())
    }

    /// Allocates a local array at the top of the function (after earlier allocations)
    /// and frees it at the end.
    pub fn alloc_at_top(&mut self, id: VarId, span: Span) {
        if let Some(top) = self.blocks.first_mut() {
            let at = top.iter().take_while(|s| matches!(s.kind, StmtKind::Alloc(_))).count();
            top.insert(at, Stmt::new(StmtKind::Alloc(id), span));
        }
        self.allocs.push((id, span));
    }

    /// Checks that the module is known; returns the renames of the statement.
    fn check_use(&self, n: Span, u: &ast::Use) -> R<Vec<(String, String, Span)>> {
        let name = &u.module;
        if !(self.unit.modules.contains(name) || matches!(name.as_str(), "iso_fortran_env" | "iso_c_binding")) {
            return Err(self.err(n, format!("module `{name}` is not defined in the files given")).with_help(format!(
                "give the file defining it on the command line (`adjc transpile kernel.f90 {name}.f90`), \
                 or put `{name}.f90` next to the kernel or in a directory given with -I"
            )));
        }
        Ok(u.renames.clone())
    }

    /// A symbol for an undeclared name, typed by the implicit rules (i-n integer, else real).
    pub fn implicit_sym(&self, name: &str, span: Span) -> R<decl::Sym<'t>> {
        if self.implicit_none {
            return Err(Diagnostic::error(span, format!("`{name}` has no type declaration"))
                .with_help(format!("declare it, e.g. `real(8) :: {name}` (the procedure has `implicit none`)")));
        }
        Ok(decl::Sym::bare(name.to_string(), span))
    }

    /// Evaluates `parameter` constants; they may refer to each other in any order.
    fn define_constants(&mut self, params: &[decl::Sym<'t>]) -> R<()> {
        let mut pending: Vec<&decl::Sym<'t>> = params.iter().collect();
        while !pending.is_empty() {
            let mut left = Vec::new();
            let mut last_err = None;
            let waiting: Vec<String> = pending.iter().map(|s| s.name.to_ascii_lowercase()).collect();
            for sym in pending.iter().copied() {
                let Some(init) = sym.init else {
                    return Err(Diagnostic::error(sym.span, format!("the constant `{}` has no value", sym.name)));
                };
                // A constant naming one not evaluated yet (`PARAMETER (M = N)` before `N`'s
                // turn) waits for it: without `implicit none` the name would otherwise read as
                // an implicitly typed variable and the value as not constant.
                let own = sym.name.to_ascii_lowercase();
                if init.names().iter().any(|n| *n != own && waiting.contains(n)) {
                    left.push(sym);
                    last_err = Some(self.err(init, format!("the value of `{}` is not a constant", sym.name)));
                    continue;
                }
                match self.expr(init, None) {
                    Ok(e) => {
                        if !e.vars().is_empty() {
                            return Err(self.err(init, format!("the value of `{}` is not a constant", sym.name)));
                        }
                        // The kind may be a constant not defined yet (`real(dp)` before `dp`).
                        let ty = match sym.ty.map(|_| self.scalar_type(sym)) {
                            Some(Ok(t)) => t,
                            Some(Err(d)) => {
                                left.push(sym);
                                last_err = Some(d);
                                continue;
                            }
                            None => e.ty,
                        };
                        let value = e.cast(ty);
                        let key = (sym.name.to_ascii_lowercase(), format!("{value:?}"));
                        self.constant_spans.insert(key, (sym.span, sym.init));
                        self.names.insert(sym.name.to_ascii_lowercase(), Binding::Const(value));
                    }
                    Err(d) => {
                        left.push(sym);
                        last_err = Some(d);
                    }
                }
            }
            if left.len() == pending.len() {
                return Err(last_err.unwrap_or_else(|| Diagnostic::error(Span::NONE, "cyclic constants")));
            }
            pending = left;
        }
        Ok(())
    }

    pub fn scalar_type(&mut self, sym: &decl::Sym<'t>) -> R<Scalar> {
        match sym.ty {
            Some(t) => self.type_of(t),
            None => {
                let first = sym.name.chars().next().unwrap_or('a').to_ascii_lowercase();
                Ok(if ('i'..='n').contains(&first) { Scalar::I64 } else { Scalar::F32 })
            }
        }
    }

    /// `real(8)`, `real(kind=dp)`, `real*8`, `double precision`, `integer`, `logical`, ...
    pub fn type_of(&mut self, t: &'t TypeSpec) -> R<Scalar> {
        let TypeSpec::Intrinsic { span, base, kind } = t else {
            return Err(self
                .err(
                    t.span(),
                    format!("the type `{}` is not supported", self.text(t.span()).to_ascii_lowercase().trim()),
                )
                .with_help("adjc handles real, double precision, integer and logical"));
        };
        let kind = match kind {
            Some(k) => Some(self.kind_value(k)?),
            None => None,
        };
        match base.as_str() {
            "double precision" => Ok(Scalar::F64),
            "integer" => Ok(Scalar::I64),
            "logical" => Ok(Scalar::Bool),
            "real" => match kind {
                None | Some(4) => Ok(Scalar::F32),
                Some(8) => Ok(Scalar::F64),
                Some(k) => Err(self
                    .err(*span, format!("`real` of kind {k} is not supported"))
                    .with_help("use real(4) or real(8)")),
            },
            _ => Err(self
                .err(*span, format!("the type `{}` is not supported", self.text(*span).to_ascii_lowercase().trim()))
                .with_help("adjc handles real, double precision, integer and logical")),
        }
    }

    fn kind_value(&mut self, k: &'t ast::KindSel) -> R<i64> {
        let Some(v) = &k.value else { return Err(self.err(k.span, "cannot read this kind")) };
        let t = self.text(v).to_ascii_lowercase();
        match t.as_str() {
            "real64" | "c_double" | "int64" | "c_int64_t" => return Ok(8),
            "real32" | "c_float" | "int32" | "c_int" => return Ok(4),
            _ => {}
        }
        if let AKind::Call { callee, args } = &v.kind {
            let callee = self.text(&**callee).to_ascii_lowercase();
            match callee.as_str() {
                "selected_real_kind" => {
                    let p = match args.first() {
                        Some(a) => self.expr(a, None)?.as_int().unwrap_or(15),
                        None => 15,
                    };
                    return Ok(if p <= 6 { 4 } else { 8 });
                }
                "kind" => {
                    let e = match args.first() {
                        Some(a) => self.expr(a, None)?,
                        None => return Err(self.err(v, "`kind` needs an argument")),
                    };
                    return Ok(if e.ty == Scalar::F32 { 4 } else { 8 });
                }
                "selected_int_kind" => return Ok(8),
                _ => {}
            }
        }
        let e = self.expr(v, None)?;
        e.as_int().ok_or_else(|| self.err(v, "the kind must be an integer constant"))
    }

    /// Declared bounds → IR dims: lower bound (default 1) and extent `upper - lower + 1`,
    /// over integer arguments and constants only. Assumed-shape axes (`a(:)`) of the
    /// entry's dummies get a size parameter `a_n0`, `a_n1`, ...; those of an inlined
    /// callee's dummies take the extents of the actual argument (`caller`).
    pub fn array_dims(&mut self, sym: &decl::Sym<'t>, caller: Option<&[Dim]>) -> R<Vec<Dim>> {
        let mut dims = Vec::new();
        let is_entry_dummy = matches!(self.names.get(&sym.name.to_ascii_lowercase()), Some(Binding::Var(v)) if self.f.var(*v).role == VarRole::Param);
        for (k, d) in sym.dims.clone().unwrap_or_default().into_iter().enumerate() {
            match d {
                DimSpec::Explicit { lower, upper } => {
                    let lo = self.bound(sym, lower)?;
                    let hi = self.int_expr(upper)?;
                    self.check_bound_vars(sym, &hi)?;
                    let extent = crate::sym::canon(&hi.sub(lo.clone()).add(Expr::int(1)));
                    dims.push(Dim { lower: crate::sym::canon(&lo), extent });
                }
                DimSpec::AssumedSize { .. } if !(is_entry_dummy && caller.is_none()) => {
                    return Err(Diagnostic::error(
                        sym.span,
                        format!("assumed-size array `{}` (`*`) in a called routine is not supported", sym.name),
                    )
                    .with_help(format!(
                        "declare its extents from integer arguments, e.g. `{}(n)` (the routine differentiated \
                         may take `*`: its extent becomes a size parameter)",
                        sym.name
                    )))
                }
                DimSpec::Assumed { lower } | DimSpec::AssumedSize { lower } => {
                    let assumed_size = matches!(d, DimSpec::AssumedSize { .. });
                    let lo = self.bound(sym, lower)?;
                    let extent = match caller.and_then(|c| c.get(k)) {
                        Some(cd) => cd.extent.clone(),
                        None if is_entry_dummy && caller.is_none() => {
                            // Only real names count here (not words in comments): the
                            // user passes this name to `--sizes`.
                            let base = format!("{}_n{k}", sym.name);
                            let taken = |n: &str| {
                                self.names.contains_key(&n.to_ascii_lowercase())
                                    || self.f.vars.iter().any(|v| v.name.eq_ignore_ascii_case(n))
                            };
                            let name = if taken(&base) {
                                (1..).map(|j| format!("{base}_{j}")).find(|n| !taken(n)).unwrap_or(base)
                            } else {
                                base
                            };
                            let v = self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Size, sym.span);
                            let what = if assumed_size {
                                "assumed size: the elements the caller's array holds along it"
                            } else {
                                "assumed shape"
                            };
                            self.sizes.push((v, format!("extent {} of `{}` ({what})", k + 1, sym.name)));
                            Expr::var(v, Scalar::I64)
                        }
                        None if caller.is_some() => {
                            return Err(Diagnostic::error(
                                sym.span,
                                format!("the array argument for `{}` has a different rank", sym.name),
                            ))
                        }
                        None => {
                            return Err(Diagnostic::error(
                                sym.span,
                                format!("the local array `{}` has no shape (`:`)", sym.name),
                            )
                            .with_help(format!("declare its extents from integer arguments, e.g. `{}(n)`", sym.name)))
                        }
                    };
                    dims.push(Dim { lower: crate::sym::canon(&lo), extent });
                }
            }
        }
        Ok(dims)
    }

    fn bound(&mut self, sym: &decl::Sym<'t>, lower: Option<&'t AExpr>) -> R<Expr> {
        let lo = match lower {
            Some(l) => self.int_expr(l)?,
            None => Expr::int(1),
        };
        self.check_bound_vars(sym, &lo)?;
        Ok(lo)
    }

    fn check_bound_vars(&self, sym: &decl::Sym<'t>, e: &Expr) -> R<()> {
        for v in e.vars() {
            let var = self.f.var(v);
            if !(matches!(var.role, VarRole::Param | VarRole::Size) && var.ty == Type::Scalar(Scalar::I64)) {
                return Err(Diagnostic::error(
                    sym.span,
                    format!("the bounds of `{}` depend on `{}`, which is not an integer argument", sym.name, var.name),
                )
                .with_help("array bounds may use integer arguments and `parameter` constants"));
            }
        }
        Ok(())
    }

    pub fn emit(&mut self, kind: StmtKind) {
        let s = Stmt::new(kind, self.span);
        if let Some(b) = self.blocks.last_mut() {
            b.push(s);
        }
    }

    /// Runs `f` with a fresh statement block and returns what it emitted.
    pub fn with_block(&mut self, f: impl FnOnce(&mut Self) -> R<()>) -> R<Block> {
        self.blocks.push(Vec::new());
        let r = f(self);
        let b = self.blocks.pop().unwrap_or_default();
        r.map(|_| b)
    }

    /// A readable index name not used by the source or the enclosing loops.
    pub fn index_name(&self, taken: &[String]) -> String {
        const CANDS: [&str; 10] = ["i", "j", "k", "l", "m", "p", "q", "r", "s", "u"];
        let free = |n: &str| {
            !self.reserved.contains(n)
                && !taken.iter().any(|x| x == n)
                && !self.loops.iter().any(|(x, _)| x == n)
                && !self.f.vars.iter().any(|v| v.name.eq_ignore_ascii_case(n) && v.role != VarRole::Index)
        };
        if let Some(c) = CANDS.iter().find(|c| free(c)) {
            return c.to_string();
        }
        (1..).map(|k| format!("i{k}")).find(|n| free(n)).unwrap_or_else(|| "i".into())
    }

    /// A temporary name derived from `base` that the source does not use.
    pub fn temp_name(&self, base: &str) -> String {
        let free = |n: &str| !self.reserved.contains(n) && !self.f.vars.iter().any(|v| v.name.eq_ignore_ascii_case(n));
        if free(base) {
            return base.to_string();
        }
        (1..).map(|k| format!("{base}_{k}")).find(|n| free(n)).unwrap_or_else(|| base.to_string())
    }

    /// A local with an initialiser that the procedure also assigns keeps its value from
    /// one call to the next in Fortran (implied `save`): state adjc cannot differentiate.
    fn check_initialised(&self) -> R<()> {
        for &(v, init, save) in &self.initialised {
            let mut write: Option<Span> = None;
            walk_stmts(&self.f.body, &mut |s| {
                let writes = s.written_var() == Some(v) || matches!(&s.kind, StmtKind::Loop(l) if l.var == v);
                if writes && s.span.start != init.start && write.is_none() {
                    write = Some(s.span);
                }
            });
            if let Some(at) = write {
                return Err(self.saved_error(v, init, save, at));
            }
        }
        Ok(())
    }

    /// `v`, initialised in its declaration at `init` (declared `save` there when `save`),
    /// is assigned at `at`.
    pub fn saved_error(&self, v: VarId, init: Span, save: bool, at: Span) -> Diagnostic {
        let name = &self.f.var(v).name;
        let why = if save { "is declared `save`" } else { "has an initial value in its declaration" };
        let implied = if save { "" } else { " (implied `save`)" };
        Diagnostic::error(
            at,
            format!(
                "`{name}` is assigned here but {why} (line {}): Fortran then keeps its value from one call to \
                 the next{implied}, which adjc does not support",
                init.line
            ),
        )
        .with_help(format!(
            "if `{name}` is a constant, declare it `parameter`; else drop the {} and assign `{name}` at the start of the routine",
            if save { "`save`" } else { "initialiser" }
        ))
    }

    fn finish(mut self) -> R<(Function, super::state::FortranState)> {
        let mut body = std::mem::take(&mut self.const_inits);
        body.extend(self.blocks.pop().unwrap_or_default());
        for (v, span) in &self.allocs {
            body.push(Stmt::new(StmtKind::Free(*v), *span));
        }
        self.f.body = body;
        self.check_initialised()?;
        let written = irutil::written_in(&self.f.body);
        let read: BTreeSet<VarId> = read_vars(&self.f.body).into_iter().collect();
        for (v, call, span) in &self.left_out {
            if read.contains(v) || self.dummies.iter().any(|(d, _)| d == v) {
                return Err(Diagnostic::error(
                    *span,
                    format!(
                        "`{}` is set by `call {call}`, which adjc leaves out, and the kernel uses it",
                        self.f.var(*v).name
                    ),
                )
                .with_help("measure time in the caller, outside the differentiated kernel"));
            }
        }
        for v in &self.do_vars {
            if read.contains(v) && !written.contains(v) {
                let var = self.f.var(*v);
                return Err(Diagnostic::error(
                    var.span,
                    format!("`{}` is read outside its `do` loop, where it has no value in adjc", var.name),
                )
                .with_help("adjc does not keep the final value of a `do` variable; compute it explicitly"));
            }
        }
        let mut params: Vec<Param> =
            self.sizes.iter().map(|(v, doc)| Param { var: *v, intent: Intent::In, doc: doc.clone() }).collect();
        let mut notes = Vec::new();
        for (v, declared) in &self.dummies {
            let var = self.f.var(*v);
            let is_written = written.contains(v);
            let write_span = first_write(&self.f.body, *v).unwrap_or(var.span);
            if var.ty == Type::Scalar(Scalar::I64) && is_written {
                return Err(Diagnostic::error(write_span, format!("the integer argument `{}` is assigned", var.name))
                    .with_help("integer arguments are sizes and must be inputs; copy it to a local variable"));
            }
            let intent = match declared {
                Some(Intent::In) if is_written => {
                    return Err(Diagnostic::error(
                        write_span,
                        format!("`{}` is `intent(in)` but is assigned", var.name),
                    )
                    .with_help("declare it `intent(inout)`, or assign a local copy"))
                }
                Some(i) => *i,
                None if var.ty == Type::Scalar(Scalar::I64) => Intent::In,
                None => {
                    let out = !var.ty.is_array() && first_use_is_assignment(&self.f.body, *v);
                    let (i, why) = match (is_written, out) {
                        (true, true) => (Intent::Out, "assigned before it is read"),
                        (true, false) => (Intent::InOut, "assigned in the body"),
                        _ => (Intent::In, "never assigned"),
                    };
                    notes.push(format!("inferred intent({}) for {} ({why})", i.name(), var.name));
                    i
                }
            };
            let doc = match intent {
                Intent::In => "input",
                Intent::InOut => "input, updated in place",
                Intent::Out => "output",
            };
            params.push(Param { var: *v, intent, doc: doc.to_string() });
        }
        params.extend(self.state_params(&written)?);
        if let Some(r) = self.ret {
            params.push(Param { var: r, intent: Intent::Out, doc: "function result".to_string() });
        }
        self.f.params = params;
        // Notes on left-out statements come after the inferred intents.
        notes.append(&mut self.f.notes);
        self.f.notes = notes;
        let mut used = BTreeSet::new();
        irutil::block_vars(&self.f.body, &mut used);
        used.extend(self.f.params.iter().map(|p| p.var));
        let typed: Vec<VarId> = used.iter().copied().collect();
        for v in typed {
            for d in self.f.var(v).ty.dims() {
                used.extend(d.extent.vars());
                used.extend(d.lower.vars());
            }
        }
        // The state's description names the parameters as they are after compaction.
        let params_now: BTreeSet<VarId> = self.f.params.iter().map(|p| p.var).collect();
        let state = self.state_description(&|v| params_now.contains(&v), &|v| self.f.var(v).name.clone());
        irutil::compact_vars(&mut self.f, &|v| used.contains(&v));
        Ok((self.f, state))
    }

    /// The parameters standing for the COMMON members and module variables the body
    /// uses, after the dummies; intents inferred from use.
    fn state_params(&self, written: &BTreeSet<VarId>) -> R<Vec<Param>> {
        let mut used = BTreeSet::new();
        irutil::block_vars(&self.f.body, &mut used);
        let typed: Vec<VarId> = used.iter().copied().collect();
        for v in typed {
            for d in self.f.var(v).ty.dims() {
                used.extend(d.extent.vars());
                used.extend(d.lower.vars());
            }
        }
        let mut params = Vec::new();
        for (v, origin) in self.state_origins() {
            if !used.contains(&v) {
                continue;
            }
            let var = self.f.var(v);
            let from = match &origin {
                super::state::Origin::Common { block: Some(b), member } => format!("COMMON /{b}/ {member}"),
                super::state::Origin::Common { block: None, member } => format!("blank COMMON {member}"),
                super::state::Origin::Module { module, var, .. } => format!("module {module}, {var}"),
            };
            let is_written = written.contains(&v);
            if var.ty == Type::Scalar(Scalar::I64) && is_written {
                let at = first_write(&self.f.body, v).unwrap_or(var.span);
                return Err(Diagnostic::error(at, format!("the integer `{}` ({from}) is assigned", var.name))
                    .with_help("integer state is a size for adjc and must be an input; assign a local copy"));
            }
            let out = !var.ty.is_array() && first_use_is_assignment(&self.f.body, v);
            let (intent, doc) = match (is_written, out) {
                (true, true) => (Intent::Out, "output"),
                (true, false) => (Intent::InOut, "input, updated in place"),
                _ => (Intent::In, "input"),
            };
            params.push(Param { var: v, intent, doc: format!("{doc} ({from})") });
        }
        Ok(params)
    }
}

/// Whether the first statement of `body` that mentions scalar `v` is an unconditional
/// assignment of a value that does not read it (then `v` is an output only).
fn first_use_is_assignment(body: &Block, v: VarId) -> bool {
    for s in body {
        let mut reads = false;
        s.exprs(&mut |e| reads |= e.mentions(v));
        let mut nested = false;
        for b in s.blocks() {
            walk_stmts(b, &mut |x| {
                x.exprs(&mut |e| nested |= e.mentions(v));
                nested |= x.written_var() == Some(v);
            });
        }
        match &s.kind {
            StmtKind::Assign { target, .. } if target.var == v && target.index.is_empty() => return !reads,
            _ if reads || nested || s.written_var() == Some(v) => return false,
            _ => {}
        }
    }
    false
}

/// The span of the first statement that writes `v`.
fn first_write(body: &Block, v: VarId) -> Option<Span> {
    let mut found = None;
    walk_stmts(body, &mut |s| {
        if found.is_none() && s.written_var() == Some(v) {
            found = Some(s.span);
        }
    });
    found
}
