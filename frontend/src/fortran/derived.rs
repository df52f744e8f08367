//! Derived types, lowered to their components before anything else reads the tree: the IR
//! and the differentiation never see a derived type.
//!
//! The rule: a variable `curr` of type `field` becomes one variable per component it has,
//! named `curr_<component>` (nested types: `curr_<sub>_<component>`), declared with the
//! component's type. So `type(field), intent(inout) :: curr` with components `nx` and
//! `data(:,:)` becomes the dummies `curr_nx` and `curr_data` (each with its adjoint in the
//! C when active), and `curr%data(i, j)` reads `curr_data(i, j)`.
//! - Arrays of types are stored as one array per component (structure of arrays): the
//!   component's own axes first, then the axes of each enclosing array, innermost type
//!   first. `cells(i)%rho` reads `cells_rho(i)`, `cells(i)%v(k)` reads `cells_v(k, i)`,
//!   `cells%rho` the whole `cells_rho`.
//! - An allocatable (or pointer) array component of a dummy keeps the bounds its caller
//!   allocated: it becomes an assumed-shape dummy whose lower bounds are integer dummies of
//!   their own, `curr_data_lb0`, ... (0-based axis numbers, like the extents `curr_data_n0`
//!   the lowering gives every assumed-shape dummy). A call passing a derived-type variable
//!   passes its components, and `lbound(...)` of its allocatable ones.
//! - Whole-variable assignment (`prev = curr`) becomes one assignment per component.
//! - Default initialisation of components (`integer :: n = 0`) is an assignment at entry
//!   for locals and `intent(out)` dummies, as in Fortran.
//! - Only components some `%name` of the files mentions become variables (with every
//!   component of a type assigned as a whole): a type of fifty components of which a
//!   kernel reads three gives three parameters. This is consistent across the files, so a
//!   call passes exactly the components its callee's dummy has.
//!
//! - A module variable of derived type (a scalar, plain or `pointer`: IFS's `yrecldp`)
//!   becomes one module variable per component in use, `yrecldp_rkconv`, declared in the
//!   module; a routine using the module reads `yrecldp%rkconv` as that variable, which the
//!   lowering passes as module state ([`ModuleComponents`] keeps the Fortran designator for
//!   the check driver and the drop-in wrapper).
//!
//! What stays refused (a located error): `class(...)`, polymorphism and type-bound
//! procedures; pointer or allocatable variables of derived type (module arrays of types
//! too), allocatable components
//! of arrays of types, derived-type function results; a derived-type value where a
//! number is expected.
//!
//! [`Bindings`] record, for each procedure, how its original dummies reach the C
//! parameters: the check driver and the Fortran interface rebuild the derived-type
//! arguments from them. It is the one place that says which C parameters were
//! synthesised from the source's variables.

use super::ast::*;
use adjc_ir::{Diagnostic, Intent, Span};
use std::collections::{BTreeMap, BTreeSet};

/// How the original dummy arguments of one procedure reach the C function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bindings {
    /// The dummies in the source's order.
    pub dummies: Vec<DummyBinding>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DummyBinding {
    /// Passed as itself: the C parameter of that name (as spelled).
    Plain(String),
    /// A derived-type dummy, passed as the C parameters of its components.
    Derived(DerivedDummy),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DerivedDummy {
    /// As spelled.
    pub name: String,
    /// The type's name, as spelled in its definition.
    pub type_name: String,
    /// The module defining the type (lower case), if a module does.
    pub module: Option<String>,
    /// The rank of the dummy (an array of types), 0 for a scalar.
    pub rank: usize,
    /// The C parameters, in order.
    pub parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The C parameter (as spelled; the IR variable of that name).
    pub param: String,
    /// The component names from the dummy down (as spelled): `["data"]`, `["sub", "x"]`.
    pub path: Vec<String>,
    /// The rank of each level of the path that is a derived type, from the dummy down
    /// (`[rank of the dummy, rank of sub]`).
    pub level_ranks: Vec<usize>,
    /// The rank of the component itself.
    pub rank: usize,
    pub kind: PartKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// The component's values.
    Value,
    /// The lower bound of axis `axis` (0-based) of the allocatable component `param` of
    /// the same path.
    LowerBound { of: String, axis: usize },
}

/// A module variable of derived type becomes one module variable per component in use,
/// named `<var>_<component>`: where each of them lives in Fortran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleComponent {
    /// The Fortran designator, lower case: `yrecldp%ramid`.
    pub designator: String,
    /// The variable is a `pointer` (a caller must have it associated).
    pub pointer: bool,
}

/// The components of the modules' derived-type variables, by (module, component
/// variable), both lower case.
pub type ModuleComponents = BTreeMap<(String, String), ModuleComponent>;

/// Fresh expression ids for the nodes this pass creates (the parser counts from 0).
struct Ids(ExprId);
impl Ids {
    fn next(&mut self) -> ExprId {
        self.0 = self.0.wrapping_add(1);
        self.0
    }
    fn mk(&mut self, span: Span, kind: ExprKind) -> Expr {
        Expr { id: self.next(), span, kind }
    }
    /// A copy of `e` with new ids (an expression may be copied into several statements).
    fn copy(&mut self, e: &Expr) -> Expr {
        let mut c = e.clone();
        self.renumber(&mut c);
        c
    }
    fn renumber(&mut self, e: &mut Expr) {
        e.id = self.next();
        for k in children_mut(e) {
            self.renumber(k);
        }
    }
}

fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match &mut e.kind {
        ExprKind::Paren(x) | ExprKind::Not(x) | ExprKind::Unary { operand: x, .. } => vec![&mut **x],
        ExprKind::Math { lhs, rhs, .. } | ExprKind::Compare { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            vec![&mut **lhs, &mut **rhs]
        }
        ExprKind::Call { callee, args } => std::iter::once(&mut **callee).chain(args.iter_mut()).collect(),
        ExprKind::Range { lo, hi, stride } => [lo, hi, stride].into_iter().flatten().map(|b| &mut **b).collect(),
        ExprKind::Keyword { value, .. } => vec![&mut **value],
        ExprKind::Component { base, .. } => vec![&mut **base],
        ExprKind::ArrayConstructor(items) => items.iter_mut().collect(),
        ExprKind::ImpliedDo(d) => {
            let ImpliedDo { items, start, last, step, .. } = &mut **d;
            let mut v: Vec<&mut Expr> = items.iter_mut().collect();
            v.push(start);
            v.push(last);
            if let Some(s) = step {
                v.push(s);
            }
            v
        }
        _ => Vec::new(),
    }
}

const MAX_NESTING: usize = 16;

/// A type definition and the module holding it.
#[derive(Clone)]
struct TypeInfo {
    def: TypeDef,
    module: Option<String>,
}

/// One component of a type (parents' first).
#[derive(Clone)]
struct Comp {
    name: String,
    span: Span,
    ty: TypeSpec,
    shape: Option<Shape>,
    allocatable: bool,
    pointer: bool,
    init: Option<Expr>,
}

/// One variable a derived-type variable becomes.
#[derive(Clone)]
struct Leaf {
    name: String,
    /// Component names, as spelled.
    path: Vec<String>,
    ty: TypeSpec,
    own: Option<Shape>,
    allocatable: bool,
    /// The shapes of the derived-type levels, from the variable down.
    levels: Vec<Option<Shape>>,
    init: Option<Expr>,
}

impl Leaf {
    fn keys(&self) -> Vec<String> {
        self.path.iter().map(|p| p.to_ascii_lowercase()).collect()
    }
}

/// A variable of derived type in one procedure.
#[derive(Clone)]
struct DVar {
    name: String,
    span: Span,
    type_key: String,
    shape: Option<Shape>,
    intent: Option<Intent>,
    dummy: bool,
    save: bool,
    leaves: Vec<Leaf>,
}

fn err(span: Span, msg: impl Into<String>, help: impl Into<String>) -> Diagnostic {
    Diagnostic::error(span, msg).with_help(help.into())
}

fn rank(s: &Option<Shape>) -> usize {
    s.as_ref().map_or(0, |s| s.dims.len())
}

/// Rewrites every procedure of `file` that declares or mentions derived types. Returns
/// the bindings of each procedure (by lower-case name) and the errors of the procedures it
/// could not rewrite (left as they are: lowering them reports the first derived-type
/// construct it meets; the entry reports this error instead).
#[allow(clippy::type_complexity)]
pub fn lower_file(file: &mut File) -> (BTreeMap<String, Bindings>, BTreeMap<String, Diagnostic>, ModuleComponents) {
    let mut types: BTreeMap<String, TypeInfo> = BTreeMap::new();
    let mut used = BTreeSet::new();
    let mut max_id = 0;
    for u in &file.units {
        match u {
            TopUnit::Module(m) => {
                let module = m.name.as_ref().map(|n| n.to_ascii_lowercase());
                for item in &m.items {
                    match item {
                        ModuleItem::TypeDef(t) => add_type(&mut types, t, module.clone()),
                        ModuleItem::Decl(d) => scan_decl(d, &mut used, &mut max_id),
                        ModuleItem::Contains(ps) => {
                            ps.iter().for_each(|p| scan_proc(p, &mut types, &mut used, &mut max_id))
                        }
                        ModuleItem::Implicit(_) | ModuleItem::Generic { .. } => {}
                    }
                }
            }
            TopUnit::Procedure(p) => scan_proc(p, &mut types, &mut used, &mut max_id),
            TopUnit::Unsupported(_) => {}
        }
    }
    let mut pass = Pass {
        types,
        used,
        ids: Ids(max_id.max(1 << 30)),
        bindings: BTreeMap::new(),
        errors: BTreeMap::new(),
        module_vars: BTreeMap::new(),
    };
    // Types assigned or passed whole keep all their components.
    let whole: Vec<String> = pass.whole_types(file);
    for t in whole {
        pass.use_all(&t, 0);
    }
    let components = pass.module_variables(file);
    for u in &mut file.units {
        match u {
            TopUnit::Module(m) => {
                let host = m.name.as_ref().map(|n| n.to_ascii_lowercase());
                for item in &mut m.items {
                    if let ModuleItem::Contains(ps) = item {
                        ps.iter_mut().for_each(|p| pass.proc(p, host.as_deref()));
                    }
                }
            }
            TopUnit::Procedure(p) => pass.proc(p, None),
            TopUnit::Unsupported(_) => {}
        }
    }
    (pass.bindings, pass.errors, components)
}

fn add_type(types: &mut BTreeMap<String, TypeInfo>, t: &TypeDef, module: Option<String>) {
    if let Some(n) = &t.name {
        types.entry(n.to_ascii_lowercase()).or_insert(TypeInfo { def: t.clone(), module });
    }
}

fn scan_expr(e: &Expr, used: &mut BTreeSet<String>, max_id: &mut ExprId) {
    *max_id = (*max_id).max(e.id);
    if let ExprKind::Component { name, .. } = &e.kind {
        used.insert(name.to_ascii_lowercase());
    }
    for c in e.children() {
        scan_expr(c, used, max_id);
    }
}

fn scan_decl(d: &Decl, used: &mut BTreeSet<String>, max_id: &mut ExprId) {
    for e in &d.entities {
        if let Some(i) = &e.init {
            scan_expr(i, used, max_id);
        }
        for x in e.shape.iter().flat_map(shape_exprs) {
            scan_expr(x, used, max_id);
        }
    }
}

fn shape_exprs(s: &Shape) -> Vec<&Expr> {
    s.dims
        .iter()
        .flat_map(|d| match d {
            DimSpec::Explicit { lower, upper } => lower.iter().chain(std::iter::once(upper)).collect::<Vec<_>>(),
            DimSpec::Assumed { lower } => lower.iter().collect(),
            _ => Vec::new(),
        })
        .collect()
}

fn scan_proc(p: &Procedure, types: &mut BTreeMap<String, TypeInfo>, used: &mut BTreeSet<String>, max_id: &mut ExprId) {
    for s in &p.spec {
        match &s.kind {
            SpecKind::TypeDef(t) => add_type(types, t, None),
            SpecKind::Decl(d) | SpecKind::Attributes(d) => scan_decl(d, used, max_id),
            SpecKind::Parameter(defs) => defs.iter().for_each(|(_, _, e)| scan_expr(e, used, max_id)),
            _ => {}
        }
    }
    visit_stmts(&p.body, &mut |e| scan_expr(e, used, max_id));
    for c in &p.contains {
        scan_proc(c, types, used, max_id);
    }
}

/// Calls `f` on every top-level expression of the statements (recursively through blocks).
fn visit_stmts(stmts: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { lhs, rhs } => {
                f(lhs);
                f(rhs)
            }
            StmtKind::Do(l) => {
                match &l.control {
                    DoControl::Counted { var, start, last, step } => {
                        [var, start, last].into_iter().chain(step.iter()).for_each(&mut *f)
                    }
                    DoControl::While { cond } => f(cond),
                    DoControl::Concurrent { items, .. } => {
                        for it in items {
                            if let ConcurrentItem::Control { var, start, last, step, .. } = it {
                                [var, start, last].into_iter().chain(step.iter()).for_each(&mut *f)
                            }
                        }
                    }
                    _ => {}
                }
                visit_stmts(&l.body, f);
            }
            StmtKind::If(b) => {
                f(&b.cond);
                visit_stmts(&b.then_body, f);
                for c in &b.clauses {
                    match c {
                        ElseClause::ElseIf { cond, body, .. } => {
                            f(cond);
                            visit_stmts(body, f)
                        }
                        ElseClause::Else { body, .. } => visit_stmts(body, f),
                    }
                }
            }
            StmtKind::Call { args, .. } => args.iter().for_each(&mut *f),
            StmtKind::Where(w) => {
                f(&w.mask);
                visit_stmts(&w.body, f);
                for e in &w.elsewhere {
                    e.mask.iter().for_each(&mut *f);
                    visit_stmts(&e.body, f);
                }
            }
            StmtKind::Select(sc) => {
                f(&sc.selector);
                for c in &sc.cases {
                    c.values.iter().for_each(&mut *f);
                    visit_stmts(&c.body, f);
                }
            }
            StmtKind::Allocate(items) => {
                for a in items {
                    if let Allocation::Sized { name, shape, .. } = a {
                        f(name);
                        shape_exprs(shape).into_iter().for_each(&mut *f);
                    }
                }
            }
            StmtKind::Parameter(defs) => defs.iter().for_each(|(_, _, e)| f(e)),
            _ => {}
        }
    }
}

struct Pass {
    types: BTreeMap<String, TypeInfo>,
    /// Component names some `%name` mentions (lower case).
    used: BTreeSet<String>,
    ids: Ids,
    bindings: BTreeMap<String, Bindings>,
    errors: BTreeMap<String, Diagnostic>,
    /// The derived-type variables of each module (lower case) that became component
    /// variables of the module.
    module_vars: BTreeMap<String, Vec<DVar>>,
}

/// The derived-type variables of the procedure being rewritten, by lower-case name.
type Scope = BTreeMap<String, DVar>;

/// `root(args)%a(args)%b...` read from the outside in.
struct Chain {
    root: String,
    root_args: Option<Vec<Expr>>,
    steps: Vec<(String, Span, Option<Vec<Expr>>)>,
}

impl Pass {
    /// The types of the derived variables assigned whole (`a = b`) or passed whole to a
    /// call anywhere (their every component must exist).
    fn whole_types(&self, file: &File) -> Vec<String> {
        let mut out = Vec::new();
        let mut procs: Vec<&Procedure> = Vec::new();
        for u in &file.units {
            match u {
                TopUnit::Module(m) => {
                    for item in &m.items {
                        if let ModuleItem::Contains(ps) = item {
                            procs.extend(ps.iter());
                        }
                    }
                }
                TopUnit::Procedure(p) => procs.push(p),
                TopUnit::Unsupported(_) => {}
            }
        }
        for p in procs {
            let mut vars: BTreeMap<String, String> = BTreeMap::new();
            for s in &p.spec {
                if let SpecKind::Decl(d) = &s.kind {
                    if let Some(TypeSpec::Derived { name, .. }) = d.type_spec() {
                        for e in &d.entities {
                            vars.insert(e.name.to_ascii_lowercase(), name.to_ascii_lowercase());
                        }
                    }
                }
            }
            if vars.is_empty() {
                continue;
            }
            let mut whole = |e: &Expr| {
                let root = match &e.kind {
                    ExprKind::Name(n) => Some(n.as_str()),
                    ExprKind::Call { callee, .. } => callee.as_name(),
                    _ => None,
                };
                if let Some(t) = root.and_then(|n| vars.get(&n.to_ascii_lowercase())) {
                    out.push(t.clone());
                }
            };
            let mut stack: Vec<&[Stmt]> = vec![&p.body];
            while let Some(ss) = stack.pop() {
                for s in ss {
                    match &s.kind {
                        StmtKind::Assign { lhs, .. } => whole(lhs),
                        StmtKind::Call { args, .. } => args.iter().for_each(&mut whole),
                        StmtKind::Do(l) => stack.push(&l.body),
                        StmtKind::If(b) => {
                            stack.push(&b.then_body);
                            for c in &b.clauses {
                                match c {
                                    ElseClause::ElseIf { body, .. } | ElseClause::Else { body, .. } => stack.push(body),
                                }
                            }
                        }
                        StmtKind::Select(sc) => sc.cases.iter().for_each(|c| stack.push(&c.body)),
                        _ => {}
                    }
                }
            }
        }
        out
    }

    fn use_all(&mut self, type_key: &str, depth: usize) {
        if depth > MAX_NESTING {
            return;
        }
        let Ok(comps) = self.components(type_key, Span::NONE, 0) else { return };
        for c in comps {
            self.used.insert(c.name.to_ascii_lowercase());
            if let TypeSpec::Derived { name, .. } = &c.ty {
                self.use_all(&name.to_ascii_lowercase(), depth + 1);
            }
        }
    }

    /// The components of a type, its parent's first.
    fn components(&self, key: &str, at: Span, depth: usize) -> Result<Vec<Comp>, Diagnostic> {
        let Some(info) = self.types.get(key) else {
            return Err(err(
                at,
                format!("the type `{key}` is not defined in the files given"),
                "give the file of the module defining it on the command line, or with -I DIR",
            ));
        };
        if depth > MAX_NESTING {
            return Err(err(at, format!("the type `{key}` nests too deeply"), "derived types may nest 16 levels"));
        }
        let mut out = Vec::new();
        if let Some((parent, span)) = &info.def.parent {
            let p = parent.trim().to_ascii_lowercase();
            let p = p.trim_start_matches("extends").trim().trim_matches(|c| c == '(' || c == ')').trim().to_string();
            out.extend(self.components(&p, *span, depth + 1)?);
        }
        for d in &info.def.components {
            let mut ty = None;
            let mut shape = None;
            let (mut allocatable, mut pointer) = (false, false);
            for part in &d.parts {
                match part {
                    DeclPart::Type(t) => ty = Some(t.clone()),
                    DeclPart::Attr(a) => match &a.kind {
                        AttrKind::Dimension(s) => shape = s.clone(),
                        AttrKind::Allocatable => allocatable = true,
                        AttrKind::Pointer => pointer = true,
                        _ => {}
                    },
                    DeclPart::Unsupported(d) => return Err(d.clone()),
                }
            }
            let Some(ty) = ty else { continue };
            for e in &d.entities {
                out.push(Comp {
                    name: e.name.clone(),
                    span: e.span,
                    ty: ty.clone(),
                    shape: e.shape.clone().or_else(|| shape.clone()),
                    allocatable,
                    pointer,
                    init: e.init.clone(),
                });
            }
        }
        Ok(out)
    }

    /// The variables `name` of type `key` becomes (only the components in use).
    fn leaves(
        &self,
        name: &str,
        key: &str,
        at: Span,
        levels: Vec<Option<Shape>>,
        path: Vec<String>,
    ) -> Result<Vec<Leaf>, Diagnostic> {
        if levels.len() > MAX_NESTING {
            return Err(err(at, format!("the type `{key}` nests too deeply"), "derived types may nest 16 levels"));
        }
        let mut out = Vec::new();
        for c in self.components(key, at, 0)? {
            let ckey = c.name.to_ascii_lowercase();
            if !self.used.contains(&ckey) {
                continue;
            }
            let leaf_name = format!("{name}_{}", c.name);
            let mut p = path.clone();
            p.push(c.name.clone());
            match &c.ty {
                TypeSpec::Derived { name: t, span, .. } => {
                    if c.allocatable || c.pointer {
                        return Err(err(
                            c.span,
                            format!(
                                "the allocatable or pointer component `{}` of derived type is not supported",
                                c.name
                            ),
                            "give the component a fixed shape, or pass its arrays as separate arguments",
                        ));
                    }
                    let mut lv = levels.clone();
                    lv.push(c.shape.clone());
                    out.extend(self.leaves(&leaf_name, &t.to_ascii_lowercase(), *span, lv, p)?);
                }
                TypeSpec::Intrinsic { .. } => {
                    if (c.allocatable || c.pointer) && levels.iter().any(|l| l.is_some()) {
                        return Err(err(
                            c.span,
                            format!(
                                "the allocatable component `{}` of an array of derived types is not supported",
                                c.name
                            ),
                            "each element may have its own shape: store the values in one array of the enclosing type",
                        ));
                    }
                    out.push(Leaf {
                        name: leaf_name,
                        path: p,
                        ty: c.ty.clone(),
                        own: c.shape.clone(),
                        allocatable: c.allocatable || c.pointer,
                        levels: levels.clone(),
                        init: c.init.clone(),
                    });
                }
            }
        }
        Ok(out)
    }

    /// Module variables of derived type (scalars, plain or `pointer`, of a type whose
    /// components are of intrinsic type or nested scalar types) become one module variable
    /// per component in use, `<var>_<component>`; a procedure using the module reads
    /// `yrecldp%ramid` as `yrecldp_ramid` (see `rewrite`). Other forms (arrays of types,
    /// allocatable variables) are left as they are: lowering reports them where used.
    fn module_variables(&mut self, file: &mut File) -> ModuleComponents {
        let mut out = ModuleComponents::new();
        for u in &mut file.units {
            let TopUnit::Module(m) = u else { continue };
            let Some(mname) = m.name.as_ref().map(|n| n.to_ascii_lowercase()) else { continue };
            if m.kind != ModuleKind::Module {
                continue;
            }
            let mut items = Vec::new();
            for item in std::mem::take(&mut m.items) {
                let ModuleItem::Decl(d) = item else {
                    items.push(item);
                    continue;
                };
                let (vars, pointer) = match self.module_dvars(&d) {
                    Ok(Some(found)) => found,
                    Ok(None) => {
                        items.push(ModuleItem::Decl(d));
                        continue;
                    }
                    // Reported by the lowering of a routine using the module.
                    Err(why) => {
                        let mut d = d;
                        d.parts = vec![DeclPart::Unsupported(why)];
                        items.push(ModuleItem::Decl(d));
                        continue;
                    }
                };
                for v in vars {
                    for decl in self.leaf_decls(&v, d.span) {
                        items.push(ModuleItem::Decl(decl));
                    }
                    for l in &v.leaves {
                        let designator = std::iter::once(v.name.clone())
                            .chain(l.path.iter().cloned())
                            .collect::<Vec<_>>()
                            .join("%")
                            .to_ascii_lowercase();
                        out.insert(
                            (mname.clone(), l.name.to_ascii_lowercase()),
                            ModuleComponent { designator, pointer },
                        );
                    }
                    self.module_vars.entry(mname.clone()).or_default().push(v);
                }
            }
            m.items = items;
        }
        out
    }

    /// The variables of a module's declaration of derived-type scalars, with their
    /// components in use; `Ok(None)` when the declaration is not of a derived type, an
    /// error (reported where a routine uses the module) for the forms not supported.
    #[allow(clippy::type_complexity)]
    fn module_dvars(&self, d: &Decl) -> Result<Option<(Vec<DVar>, bool)>, Diagnostic> {
        let Some(TypeSpec::Derived { name: tname, class, span: tspan }) = d.type_spec() else { return Ok(None) };
        let help = "module variables of derived type are supported as scalars (`type(t) :: v`, \
                    `type(t), pointer :: v`); pass the arrays to the kernel as arguments";
        let first = d.entities.first().map(|e| e.name.clone()).unwrap_or_default();
        if *class {
            return Err(err(*tspan, "polymorphic `class(...)` module variables are not supported", help));
        }
        let mut pointer = false;
        for part in &d.parts {
            match part {
                DeclPart::Attr(a) => match &a.kind {
                    AttrKind::Pointer => pointer = true,
                    AttrKind::Save => {}
                    AttrKind::Other(o) if matches!(o.as_str(), "target" | "public" | "private" | "protected") => {}
                    AttrKind::Allocatable | AttrKind::Dimension(_) => {
                        return Err(err(
                            a.span,
                            format!("the module variable `{first}` is an array or allocatable of derived type: not supported yet"),
                            help,
                        ))
                    }
                    AttrKind::Parameter => {
                        return Err(err(
                            a.span,
                            "derived-type constants are not supported",
                            "declare the components as `parameter` constants",
                        ))
                    }
                    _ => {
                        return Err(err(
                            a.span,
                            format!("this attribute of the derived-type module variable `{first}` is not supported"),
                            help,
                        ))
                    }
                },
                DeclPart::Unsupported(x) => return Err(x.clone()),
                DeclPart::Type(_) => {}
            }
        }
        let mut vars = Vec::new();
        for e in &d.entities {
            if e.shape.is_some() {
                return Err(err(
                    e.span,
                    format!("the module variable `{}` is an array of derived type: not supported yet", e.name),
                    help,
                ));
            }
            if e.init.is_some() {
                return Err(err(
                    e.span,
                    format!("the derived-type module variable `{}` has an initial value", e.name),
                    "set its components in a setup routine",
                ));
            }
            let mut v = DVar {
                name: e.name.clone(),
                span: e.span,
                type_key: tname.to_ascii_lowercase(),
                shape: None,
                intent: None,
                dummy: false,
                save: false,
                leaves: Vec::new(),
            };
            v.leaves = self.leaves(&v.name, &v.type_key, v.span, vec![None], Vec::new())?;
            vars.push(v);
        }
        Ok(Some((vars, pointer)))
    }

    fn proc(&mut self, p: &mut Procedure, host: Option<&str>) {
        for c in &mut p.contains {
            self.proc(c, host);
        }
        let key = p.name.to_ascii_lowercase();
        match self.rewrite(p, host) {
            Ok(b) => {
                self.bindings.entry(key).or_insert(b);
            }
            Err(d) => {
                self.errors.entry(key).or_insert(d);
            }
        }
    }

    /// Rewrites one procedure; on error it is left unchanged.
    fn rewrite(&mut self, p: &mut Procedure, host: Option<&str>) -> Result<Bindings, Diagnostic> {
        let mut scope: Scope = BTreeMap::new();
        let dummy_keys: Vec<String> = p.dummies.iter().map(|(d, _)| d.to_ascii_lowercase()).collect();
        let mut local_types = Vec::new();
        for s in &p.spec {
            match &s.kind {
                SpecKind::TypeDef(t) => local_types.push(t.clone()),
                SpecKind::Decl(d) => {
                    let Some(TypeSpec::Derived { name: tname, span: tspan, .. }) = d.type_spec() else { continue };
                    if self.text_is_class(d) {
                        return Err(err(
                            *tspan,
                            "polymorphic `class(...)` declarations are not supported",
                            "declare the variable with `type(...)`",
                        ));
                    }
                    let mut intent = None;
                    let mut shape = None;
                    let mut save = false;
                    for part in &d.parts {
                        if let DeclPart::Attr(a) = part {
                            match &a.kind {
                                AttrKind::Intent(i) => intent = Some(*i),
                                AttrKind::Dimension(s) => shape = s.clone(),
                                AttrKind::Save => save = true,
                                AttrKind::Allocatable | AttrKind::Pointer => {
                                    return Err(err(
                                        a.span,
                                        "allocatable or pointer variables of derived type are not supported",
                                        "declare the variable with a fixed shape (`type(cell) :: cells(n)`)",
                                    ))
                                }
                                AttrKind::Optional => {
                                    return Err(err(
                                        a.span,
                                        "optional derived-type arguments are not supported",
                                        "make the argument required",
                                    ))
                                }
                                AttrKind::Parameter => {
                                    return Err(err(
                                        a.span,
                                        "derived-type constants are not supported",
                                        "declare the components as `parameter` constants",
                                    ))
                                }
                                _ => {}
                            }
                        }
                    }
                    for e in &d.entities {
                        let k = e.name.to_ascii_lowercase();
                        if e.init.is_some() {
                            return Err(err(
                                e.span,
                                format!("the derived-type variable `{}` has an initial value", e.name),
                                "assign its components in the body",
                            ));
                        }
                        scope.insert(
                            k.clone(),
                            DVar {
                                name: e.name.clone(),
                                span: e.span,
                                type_key: tname.to_ascii_lowercase(),
                                shape: e.shape.clone().or_else(|| shape.clone()),
                                intent,
                                dummy: dummy_keys.contains(&k),
                                save,
                                leaves: Vec::new(),
                            },
                        );
                    }
                }
                _ => {}
            }
        }
        for t in &local_types {
            add_type(&mut self.types, t, None);
        }
        // Derived-type variables of the modules it uses (and of its host module), unless a
        // declaration here hides them: their components are the modules' variables.
        if mentions_components(p) {
            let mut modules: Vec<String> = p
                .spec
                .iter()
                .filter_map(|s| match &s.kind {
                    SpecKind::Use(u) => Some(u.module.clone()),
                    _ => None,
                })
                .collect();
            modules.extend(host.map(str::to_string));
            let mut declared: BTreeSet<String> = dummy_keys.iter().cloned().collect();
            for s in &p.spec {
                if let SpecKind::Decl(d) | SpecKind::Attributes(d) = &s.kind {
                    declared.extend(d.entities.iter().map(|e| e.name.to_ascii_lowercase()));
                }
            }
            for m in modules {
                for v in self.module_vars.get(&m).cloned().unwrap_or_default() {
                    let k = v.name.to_ascii_lowercase();
                    if !declared.contains(&k) {
                        scope.entry(k).or_insert(v);
                    }
                }
            }
        }
        if scope.is_empty() {
            if local_types.is_empty() && !mentions_components(p) {
                return Ok(plain(p));
            }
            // Components of variables that are not derived-type variables here (module
            // variables, host variables): left to the lowering's diagnostics.
            p.spec.retain(|s| !matches!(s.kind, SpecKind::TypeDef(_)));
            return Ok(plain(p));
        }
        // Attribute statements about derived-type variables.
        for s in &p.spec {
            if let SpecKind::Attributes(d) = &s.kind {
                if let Some(e) = d.entities.iter().find(|e| scope.contains_key(&e.name.to_ascii_lowercase())) {
                    return Err(err(
                        e.span,
                        format!("an attribute statement for the derived-type variable `{}` is not supported", e.name),
                        "give the attributes in its type declaration",
                    ));
                }
            }
        }
        let keys: Vec<String> = scope.keys().cloned().collect();
        for k in &keys {
            let v = &scope[k];
            let leaves = self.leaves(&v.name, &v.type_key, v.span, vec![v.shape.clone()], Vec::new())?;
            if !v.dummy && leaves.iter().any(|l| l.allocatable) && v.save {
                return Err(err(
                    v.span,
                    format!("the saved variable `{}` has allocatable components", v.name),
                    "allocate the arrays in the routine, without `save`",
                ));
            }
            if let Some(v) = scope.get_mut(k) {
                v.leaves = leaves;
            }
        }
        // The names the components take must be free.
        let mut taken: BTreeSet<String> = BTreeSet::new();
        for s in &p.spec {
            if let SpecKind::Decl(d) | SpecKind::Attributes(d) = &s.kind {
                for e in &d.entities {
                    if !scope.contains_key(&e.name.to_ascii_lowercase()) {
                        taken.insert(e.name.to_ascii_lowercase());
                    }
                }
            }
        }
        taken.extend(dummy_keys.iter().filter(|d| !scope.contains_key(*d)).cloned());
        for v in scope.values() {
            for n in leaf_params(v).into_iter().map(|(n, _)| n) {
                if !taken.insert(n.to_ascii_lowercase()) {
                    return Err(err(
                        v.span,
                        format!("the component variable `{n}` of `{}` clashes with another name", v.name),
                        format!(
                            "adjc names the components of `{}` `{}_<component>`: rename the other variable",
                            v.name, v.name
                        ),
                    ));
                }
            }
        }
        // Bindings and the new dummy list.
        let mut bindings = Bindings::default();
        let mut dummies = Vec::new();
        for (d, span) in &p.dummies {
            match scope.get(&d.to_ascii_lowercase()) {
                Some(v) => {
                    let info = &self.types[&v.type_key];
                    let mut parts = Vec::new();
                    for (param, leaf) in leaf_params(v) {
                        dummies.push((param.clone(), *span));
                        let kind = match &leaf {
                            LeafParam::Value(_) => PartKind::Value,
                            LeafParam::Lower(l, axis) => PartKind::LowerBound { of: l.name.clone(), axis: *axis },
                        };
                        let l = leaf.leaf();
                        parts.push(Part {
                            param,
                            path: l.path.clone(),
                            level_ranks: l.levels.iter().map(rank).collect(),
                            rank: rank(&l.own),
                            kind,
                        });
                    }
                    bindings.dummies.push(DummyBinding::Derived(DerivedDummy {
                        name: v.name.clone(),
                        type_name: info.def.name.clone().unwrap_or_default(),
                        module: info.module.clone(),
                        rank: rank(&v.shape),
                        parts,
                    }));
                }
                None => {
                    dummies.push((d.clone(), *span));
                    bindings.dummies.push(DummyBinding::Plain(d.clone()));
                }
            }
        }
        // The new specification part.
        let mut spec = Vec::new();
        let mut inits = Vec::new();
        for item in std::mem::take(&mut p.spec) {
            match item.kind {
                SpecKind::TypeDef(_) => {}
                SpecKind::Decl(d) if matches!(d.type_spec(), Some(TypeSpec::Derived { .. })) => {
                    for e in &d.entities {
                        let v = &scope[&e.name.to_ascii_lowercase()];
                        for decl in self.leaf_decls(v, d.span) {
                            spec.push(SpecItem { span: item.span, kind: SpecKind::Decl(decl) });
                        }
                        if !v.dummy || v.intent == Some(Intent::Out) {
                            for l in &v.leaves {
                                if let (Some(init), false) = (&l.init, l.allocatable) {
                                    let lhs = self.ids.mk(v.span, ExprKind::Name(l.name.clone()));
                                    let rhs = self.ids.copy(init);
                                    inits.push(Stmt { span: init.span, kind: StmtKind::Assign { lhs, rhs } });
                                }
                            }
                        }
                    }
                }
                mut kind => {
                    match &mut kind {
                        SpecKind::Decl(d) | SpecKind::Attributes(d) => self.decl_exprs(d, &scope)?,
                        SpecKind::Parameter(defs) => {
                            for (_, _, e) in defs.iter_mut() {
                                self.rx(e, &scope)?;
                            }
                        }
                        _ => {}
                    }
                    spec.push(SpecItem { span: item.span, kind });
                }
            }
        }
        let body = self.stmts(std::mem::take(&mut p.body), &scope)?;
        p.spec = spec;
        p.dummies = dummies;
        inits.extend(body);
        p.body = inits;
        Ok(bindings)
    }

    fn text_is_class(&self, d: &Decl) -> bool {
        matches!(d.type_spec(), Some(TypeSpec::Derived { class: true, .. }))
    }

    fn decl_exprs(&mut self, d: &mut Decl, scope: &Scope) -> Result<(), Diagnostic> {
        for e in &mut d.entities {
            if let Some(i) = &mut e.init {
                self.rx(i, scope)?;
            }
            if let Some(s) = &mut e.shape {
                self.shape_rx(s, scope)?;
            }
        }
        for part in &mut d.parts {
            if let DeclPart::Attr(Attr { kind: AttrKind::Dimension(Some(s)), .. }) = part {
                self.shape_rx(s, scope)?;
            }
        }
        Ok(())
    }

    fn shape_rx(&mut self, s: &mut Shape, scope: &Scope) -> Result<(), Diagnostic> {
        for d in &mut s.dims {
            match d {
                DimSpec::Explicit { lower, upper } => {
                    if let Some(l) = lower {
                        self.rx(l, scope)?;
                    }
                    self.rx(upper, scope)?;
                }
                DimSpec::Assumed { lower: Some(l) } => self.rx(l, scope)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// The declarations replacing the derived-type variable `v`.
    fn leaf_decls(&mut self, v: &DVar, span: Span) -> Vec<Decl> {
        let mut out = Vec::new();
        let attr = |kind| DeclPart::Attr(Attr { span: v.span, kind });
        for lp in leaf_params(v) {
            let (name, lp) = lp;
            match lp {
                LeafParam::Lower(..) => {
                    let ty = TypeSpec::Intrinsic { span: v.span, base: "integer".into(), kind: None };
                    out.push(Decl {
                        span,
                        parts: vec![DeclPart::Type(ty), attr(AttrKind::Intent(Intent::In))],
                        entities: vec![Entity { name, span: v.span, shape: None, init: None }],
                    });
                }
                LeafParam::Value(l) => {
                    let mut parts = vec![DeclPart::Type(l.ty.clone())];
                    if v.dummy {
                        match v.intent {
                            Some(Intent::In) => parts.push(attr(AttrKind::Intent(Intent::In))),
                            Some(Intent::Out) => parts.push(attr(AttrKind::Intent(Intent::Out))),
                            _ => {}
                        }
                    } else if l.allocatable {
                        parts.push(attr(AttrKind::Allocatable));
                    }
                    if v.save {
                        parts.push(attr(AttrKind::Save));
                    }
                    let mut dims = Vec::new();
                    if let Some(own) = &l.own {
                        if l.allocatable && v.dummy {
                            for k in 0..own.dims.len() {
                                let lb = self.ids.mk(v.span, ExprKind::Name(format!("{}_lb{k}", l.name)));
                                dims.push(DimSpec::Assumed { lower: Some(lb) });
                            }
                        } else {
                            dims.extend(own.dims.iter().map(|d| self.copy_dim(d)));
                        }
                    }
                    for lv in l.levels.iter().rev().flatten() {
                        dims.extend(lv.dims.iter().map(|d| self.copy_dim(d)));
                    }
                    let shape = (!dims.is_empty()).then_some(Shape { span: v.span, dims });
                    out.push(Decl {
                        span,
                        parts,
                        entities: vec![Entity { name: l.name.clone(), span: v.span, shape, init: None }],
                    });
                }
            }
        }
        out
    }

    fn copy_dim(&mut self, d: &DimSpec) -> DimSpec {
        match d {
            DimSpec::Explicit { lower, upper } => {
                DimSpec::Explicit { lower: lower.as_ref().map(|l| self.ids.copy(l)), upper: self.ids.copy(upper) }
            }
            DimSpec::Assumed { lower } => DimSpec::Assumed { lower: lower.as_ref().map(|l| self.ids.copy(l)) },
            other => other.clone(),
        }
    }

    fn stmts(&mut self, stmts: Vec<Stmt>, scope: &Scope) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(s, scope, &mut out)?;
        }
        Ok(out)
    }

    fn stmt(&mut self, mut s: Stmt, scope: &Scope, out: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        let span = s.span;
        match &mut s.kind {
            StmtKind::Assign { lhs, rhs } => {
                if let Some(targets) = self.derived_value(lhs, scope)? {
                    let Some(values) = self.derived_value(rhs, scope)? else {
                        return Err(err(
                            rhs.span,
                            "only a variable of the same type can be assigned to a derived-type variable",
                            "assign the components one by one",
                        ));
                    };
                    if targets.iter().map(|(k, _)| k).ne(values.iter().map(|(k, _)| k)) {
                        return Err(err(
                            rhs.span,
                            "the two sides of this assignment have different types",
                            "assign variables of the same type",
                        ));
                    }
                    for ((_, l), (_, r)) in targets.into_iter().zip(values) {
                        out.push(Stmt { span, kind: StmtKind::Assign { lhs: l, rhs: r } });
                    }
                    return Ok(());
                }
                self.rx(lhs, scope)?;
                self.rx(rhs, scope)?;
            }
            StmtKind::Call { args, .. } => *args = self.actuals(std::mem::take(args), scope)?,
            StmtKind::Do(l) => {
                match &mut l.control {
                    DoControl::Counted { var, start, last, step } => {
                        for e in [var, start, last] {
                            self.rx(e, scope)?;
                        }
                        if let Some(e) = step {
                            self.rx(e, scope)?;
                        }
                    }
                    DoControl::While { cond } => self.rx(cond, scope)?,
                    DoControl::Concurrent { items, .. } => {
                        for it in items {
                            if let ConcurrentItem::Control { var, start, last, step, .. } = it {
                                for e in [var, start, last] {
                                    self.rx(e, scope)?;
                                }
                                if let Some(e) = step {
                                    self.rx(e, scope)?;
                                }
                            }
                        }
                    }
                    _ => {}
                }
                l.body = self.stmts(std::mem::take(&mut l.body), scope)?;
            }
            StmtKind::If(b) => {
                self.rx(&mut b.cond, scope)?;
                b.then_body = self.stmts(std::mem::take(&mut b.then_body), scope)?;
                for c in &mut b.clauses {
                    match c {
                        ElseClause::ElseIf { cond, body, .. } => {
                            self.rx(cond, scope)?;
                            *body = self.stmts(std::mem::take(body), scope)?;
                        }
                        ElseClause::Else { body, .. } => *body = self.stmts(std::mem::take(body), scope)?,
                    }
                }
                // A one-line `if` whose statement became several is a block now.
                if b.one_line && b.then_body.len() != 1 {
                    b.one_line = false;
                }
            }
            StmtKind::Where(w) => {
                self.rx(&mut w.mask, scope)?;
                w.body = self.stmts(std::mem::take(&mut w.body), scope)?;
                for e in &mut w.elsewhere {
                    if let Some(m) = &mut e.mask {
                        self.rx(m, scope)?;
                    }
                    e.body = self.stmts(std::mem::take(&mut e.body), scope)?;
                }
            }
            StmtKind::Select(sc) => {
                self.rx(&mut sc.selector, scope)?;
                for c in &mut sc.cases {
                    for v in &mut c.values {
                        self.rx(v, scope)?;
                    }
                    c.body = self.stmts(std::mem::take(&mut c.body), scope)?;
                }
            }
            StmtKind::Allocate(items) => {
                for a in items {
                    if let Allocation::Sized { name, shape, .. } = a {
                        self.rx(name, scope)?;
                        self.shape_rx(shape, scope)?;
                    }
                }
            }
            StmtKind::Declaration(d) => self.decl_exprs(d, scope)?,
            StmtKind::Parameter(defs) => {
                for (_, _, e) in defs.iter_mut() {
                    self.rx(e, scope)?;
                }
            }
            _ => {}
        }
        out.push(s);
        Ok(())
    }

    /// Actual arguments: a derived-type value becomes its components (and the lower
    /// bounds of its allocatable ones), in the order its dummy's components take.
    fn actuals(&mut self, args: Vec<Expr>, scope: &Scope) -> Result<Vec<Expr>, Diagnostic> {
        let mut out = Vec::new();
        for mut a in args {
            match self.derived_value(&a, scope)? {
                Some(parts) => {
                    for (_, e) in parts {
                        out.push(e);
                    }
                }
                None => {
                    if let ExprKind::Keyword { value, .. } = &a.kind {
                        if self.derived_value(value, scope)?.is_some() {
                            return Err(err(
                                a.span,
                                "derived-type keyword arguments are not supported",
                                "pass the argument by position",
                            ));
                        }
                    }
                    self.rx(&mut a, scope)?;
                    out.push(a);
                }
            }
        }
        Ok(out)
    }

    /// `e` read as a chain of components from a derived-type variable of the scope.
    fn chain(&self, e: &Expr, scope: &Scope) -> Option<Chain> {
        let mut steps = Vec::new();
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Component { base, name } => {
                    steps.push((name.clone(), cur.span, None));
                    cur = base;
                }
                ExprKind::Call { callee, args } => match &callee.kind {
                    ExprKind::Component { base, name } => {
                        steps.push((name.clone(), cur.span, Some(args.clone())));
                        cur = base;
                    }
                    ExprKind::Name(n) if scope.contains_key(&n.to_ascii_lowercase()) => {
                        steps.reverse();
                        return Some(Chain { root: n.to_ascii_lowercase(), root_args: Some(args.clone()), steps });
                    }
                    _ => return None,
                },
                ExprKind::Name(n) if scope.contains_key(&n.to_ascii_lowercase()) => {
                    steps.reverse();
                    return Some(Chain { root: n.to_ascii_lowercase(), root_args: None, steps });
                }
                _ => return None,
            }
        }
    }

    /// The value `e` designates when it is a derived-type value (a variable, an element,
    /// a component of derived type): one expression per component variable, keyed by the
    /// component's path below `e` (lower bounds of allocatable components included, as
    /// `lbound(...)`, for actual arguments). `None` when `e` is not a derived-type value.
    #[allow(clippy::type_complexity)]
    fn derived_value(&mut self, e: &Expr, scope: &Scope) -> Result<Option<Vec<(String, Expr)>>, Diagnostic> {
        let Some(ch) = self.chain(e, scope) else { return Ok(None) };
        let v = &scope[&ch.root];
        let (prefix, subs) = self.walk(&ch, v, e.span)?;
        let Some(prefix) = prefix else { return Ok(None) };
        let mut out = Vec::new();
        for (param, lp) in leaf_params(v) {
            let l = lp.leaf();
            let keys = l.keys();
            if keys.len() <= prefix.len() || keys[..prefix.len()] != prefix[..] {
                continue;
            }
            let below = keys[prefix.len()..].join("%");
            match lp {
                LeafParam::Lower(_, axis) => {
                    let name = self.ids.mk(e.span, ExprKind::Name(l.name.clone()));
                    let k = self.ids.mk(e.span, ExprKind::Number(format!("{}", axis + 1)));
                    let callee = self.ids.mk(e.span, ExprKind::Name("lbound".into()));
                    let call = self.ids.mk(e.span, ExprKind::Call { callee: Box::new(callee), args: vec![name, k] });
                    out.push((format!("{below}#lb{axis}"), call));
                }
                LeafParam::Value(_) => {
                    let _ = param;
                    let r = self.reference(l, &subs, None, e.span)?;
                    out.push((below, r));
                }
            }
        }
        if out.is_empty() {
            return Err(err(e.span, format!("`{}` has no component in use", self.text_of(&ch)), "use its components"));
        }
        Ok(Some(out))
    }

    fn text_of(&self, ch: &Chain) -> String {
        std::iter::once(ch.root.clone())
            .chain(ch.steps.iter().map(|(n, _, _)| n.to_ascii_lowercase()))
            .collect::<Vec<_>>()
            .join("%")
    }

    /// Follows the chain's components through the types: `Some(path)` when it ends at a
    /// derived-type value, `None` when it ends at a component of intrinsic type; and the
    /// subscripts of each level (the variable's first).
    #[allow(clippy::type_complexity)]
    fn walk(
        &self,
        ch: &Chain,
        v: &DVar,
        at: Span,
    ) -> Result<(Option<Vec<String>>, Vec<Option<Vec<Expr>>>), Diagnostic> {
        let mut ty = v.type_key.clone();
        let mut subs = vec![ch.root_args.clone()];
        let mut path = Vec::new();
        for (k, (name, span, args)) in ch.steps.iter().enumerate() {
            let comps = self.components(&ty, at, 0)?;
            let Some(c) = comps.iter().find(|c| c.name.eq_ignore_ascii_case(name)) else {
                return Err(err(
                    *span,
                    format!("the type `{ty}` has no component `{name}`"),
                    "check the type's definition",
                ));
            };
            path.push(name.to_ascii_lowercase());
            match &c.ty {
                TypeSpec::Derived { name: t, .. } => {
                    ty = t.to_ascii_lowercase();
                    subs.push(args.clone());
                }
                TypeSpec::Intrinsic { .. } => {
                    if k + 1 != ch.steps.len() {
                        return Err(err(*span, format!("`{name}` is not of a derived type"), ""));
                    }
                    subs.push(args.clone());
                    return Ok((None, subs));
                }
            }
        }
        Ok((Some(path), subs))
    }

    /// The expression reading leaf `l` with the subscripts of the levels above it (`subs`,
    /// the variable's first, then one per derived level, then the leaf's own if the chain
    /// reached it).
    fn reference(
        &mut self,
        l: &Leaf,
        subs: &[Option<Vec<Expr>>],
        _own: Option<()>,
        at: Span,
    ) -> Result<Expr, Diagnostic> {
        // Ranks: the leaf's own axes, then the levels innermost first.
        let nlev = l.levels.len();
        let own_subs = subs.get(nlev).cloned().flatten();
        let mut groups: Vec<(usize, Option<Vec<Expr>>)> = vec![(rank(&l.own), own_subs)];
        for (k, lv) in l.levels.iter().enumerate().rev() {
            groups.push((rank(lv), subs.get(k).cloned().flatten()));
        }
        for (r, s) in &groups {
            if let Some(s) = s {
                if s.len() != *r {
                    return Err(err(
                        at,
                        format!("`{}` takes {r} subscript(s) here, not {}", l.path.join("%"), s.len()),
                        "give one subscript per axis",
                    ));
                }
            }
        }
        let name = self.ids.mk(at, ExprKind::Name(l.name.clone()));
        if groups.iter().all(|(_, s)| s.is_none()) {
            return Ok(name);
        }
        let mut args = Vec::new();
        for (r, s) in groups {
            match s {
                Some(s) => args.extend(s.iter().map(|x| self.ids.copy(x))),
                None => {
                    for _ in 0..r {
                        args.push(self.ids.mk(at, ExprKind::Range { lo: None, hi: None, stride: None }));
                    }
                }
            }
        }
        Ok(self.ids.mk(at, ExprKind::Call { callee: Box::new(name), args }))
    }

    /// Rewrites the component references inside `e`.
    fn rx(&mut self, e: &mut Expr, scope: &Scope) -> Result<(), Diagnostic> {
        if let Some(ch) = self.chain(e, scope) {
            let v = &scope[&ch.root];
            let (prefix, mut subs) = self.walk(&ch, v, e.span)?;
            for s in subs.iter_mut().flatten() {
                for x in s.iter_mut() {
                    self.rx(x, scope)?;
                }
            }
            if prefix.is_some() {
                let what = self.text_of(&ch);
                return Err(err(
                    e.span,
                    format!("the derived-type value `{what}` is not supported here"),
                    "use its components (`x%a`), or pass it whole to a procedure",
                ));
            }
            let keys: Vec<String> = ch.steps.iter().map(|(n, _, _)| n.to_ascii_lowercase()).collect();
            let Some(l) = v.leaves.iter().find(|l| l.keys() == keys).cloned() else {
                return Err(
                    Diagnostic::internal(e.span, "a component in use has no variable").with_help("please report this")
                );
            };
            *e = self.reference(&l, &subs, None, e.span)?;
            return Ok(());
        }
        if let ExprKind::Call { callee, args } = &mut e.kind {
            // A function call may pass derived-type values.
            if callee.as_name().is_some() {
                *args = self.actuals(std::mem::take(args), scope)?;
                return Ok(());
            }
        }
        for c in children_mut(e) {
            self.rx(c, scope)?;
        }
        Ok(())
    }
}

enum LeafParam<'a> {
    Value(&'a Leaf),
    /// The lower bound of an axis of an allocatable component of a dummy.
    Lower(&'a Leaf, usize),
}

impl LeafParam<'_> {
    fn leaf(&self) -> &Leaf {
        match self {
            LeafParam::Value(l) | LeafParam::Lower(l, _) => l,
        }
    }
}

/// The variables `v` becomes, in order: per component, the lower bounds of an allocatable
/// component of a dummy, then the component.
fn leaf_params(v: &DVar) -> Vec<(String, LeafParam<'_>)> {
    let mut out = Vec::new();
    for l in &v.leaves {
        if l.allocatable && v.dummy {
            for k in 0..rank(&l.own) {
                out.push((format!("{}_lb{k}", l.name), LeafParam::Lower(l, k)));
            }
        }
        out.push((l.name.clone(), LeafParam::Value(l)));
    }
    out
}

fn plain(p: &Procedure) -> Bindings {
    Bindings { dummies: p.dummies.iter().map(|(d, _)| DummyBinding::Plain(d.clone())).collect() }
}

fn mentions_components(p: &Procedure) -> bool {
    let mut found = false;
    visit_stmts(&p.body, &mut |e| found |= has_component(e));
    found
}

fn has_component(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Component { .. }) || e.children().into_iter().any(has_component)
}
