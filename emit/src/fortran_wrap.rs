//! The drop-in Fortran interface (`<stem>_adjc_wrap.f90`): module `<stem>_adjc_wrap` of
//! subroutines that take the routine's **original arguments**, so a Fortran caller changes
//! nothing but the name: `call heat_b(n, nsteps, u, u_b, flux, flux_b)` next to the original
//! `call heat(n, nsteps, u, flux)`. The `bind(C)` interfaces of `<stem>_adjc` take every
//! integer as `integer(c_int64_t)` by value and return a status; the wrappers take
//!
//! * integers of the kind the routine declares (`integer`, `integer(8)`), converted;
//! * arrays with the routine's own bounds (`u(0:n + 1)`): explicit shapes, so an F77 caller
//!   may pass an element sequence as it does to the original; assumed shapes stay assumed
//!   (the C gets `size(a, k)`);
//! * derived-type dummies whole: the wrapper passes their components (`curr%data`), extents
//!   and lower bounds, and the matching components of the adjoint (`curr_b%data`); a rank-1
//!   array of types goes through one work array per component;
//! * COMMON members and module variables the routine uses from where they live (the
//!   wrapper declares the blocks and `use`s the modules), their adjoints as trailing dummies
//!   (`fields_u_b`) after the routine's own;
//! * `character` dummies (the C leaves them out) in their place, unused;
//! * an optional `stat` last: the C status when present, else a non-zero status is an
//!   `error stop` that says what it means.
//!
//! Wrapper names are the source's (`heat`, `heat_b`) whatever `--prefix` the C symbols get;
//! the forward one calls the generated C (import only `heat_b` next to the original).
//!
//! What the wrappers need from the frontend comes as a [`WrapSpec`] (plain data: this crate
//! does not know the frontend).

use crate::fortran_iface::{expr as size_expr, fortran_stem, interface, wrap};
use adjc_ir::{Diagnostic, Function, Intent, Layout, Scalar, Span, Type, VarRole};
use std::collections::BTreeMap;

/// The original dummies of the routine and how they reach the C parameters.
#[derive(Clone, Debug, Default)]
pub struct WrapSpec {
    /// The routine's name in the source (without `--prefix`): the wrappers are `<routine>`
    /// and `<routine>_b`.
    pub routine: String,
    /// `(module, type)` pairs the wrappers `use`.
    pub uses: Vec<(String, String)>,
    pub dummies: Vec<WrapDummy>,
    /// C parameters standing for COMMON members and module variables.
    pub state: Vec<WrapState>,
    /// The COMMON blocks of [`WrapOrigin::Common`], every member in storage order.
    pub commons: Vec<WrapCommon>,
    /// Declared kinds of integer dummies (lower-case name → kind, `8` for `integer(8)`);
    /// absent: default `integer`.
    pub int_kinds: BTreeMap<String, u32>,
}

#[derive(Clone, Debug)]
pub enum WrapDummy {
    /// Passed as itself: the C parameter of that name.
    Plain(String),
    /// A `character` dummy: the C has no parameter for it; the wrapper takes it, unused.
    Text(String),
    /// A variable of derived type, passed as its components: a scalar (`rank` 0), or a
    /// rank-1 array whose components the C takes as one array each (the wrapper copies them
    /// into work arrays and back).
    Derived { name: String, type_name: String, rank: usize, parts: Vec<WrapPart> },
}

#[derive(Clone, Debug)]
pub struct WrapPart {
    /// The C parameter (IR name).
    pub param: String,
    /// The component below the dummy: `data`, `gas%t`.
    pub path: String,
    /// For a lower-bound parameter: the axis (0-based) of the component's lower bound.
    pub lower_axis: Option<usize>,
}

/// A C parameter that is not a dummy: where the wrapper finds it.
#[derive(Clone, Debug)]
pub struct WrapState {
    /// The C parameter (IR name); the wrapper's local name for the storage too.
    pub param: String,
    pub origin: WrapOrigin,
}

#[derive(Clone, Debug)]
pub enum WrapOrigin {
    /// Member `member` (index) of `WrapSpec::commons[block]`.
    Common { block: usize, member: usize },
    /// Variable `var` of module `module`.
    Module { module: String, var: String },
}

#[derive(Clone, Debug)]
pub struct WrapCommon {
    /// `None`: blank COMMON.
    pub block: Option<String>,
    /// `(type declaration, bounds)` of each member in storage order: `("integer", "")`,
    /// `("real(kind(1.0d0))", "(12, 10)")`.
    pub members: Vec<(String, String)>,
}

/// What one C parameter is, seen from the wrapper.
enum Source {
    /// A wrapper dummy (by index) or its adjoint, with the designator.
    Value { dummy: usize, adjoint: bool, designator: String },
    /// An integer computed from the arguments (`size(...)`, `lbound(...)`).
    Int(String),
    /// COMMON or module storage (`WrapSpec::state[k]`), or its adjoint (a trailing dummy).
    State { adjoint: bool },
    /// A function result (or its adjoint): a trailing dummy of that name.
    Result,
}

fn err(msg: String) -> Diagnostic {
    Diagnostic::error(Span::NONE, msg).with_help("call the `bind(C)` interfaces of `<stem>_adjc` directly")
}

fn resolve(name: &str, spec: &WrapSpec, f: &Function) -> Result<Source, Diagnostic> {
    let find = |n: &str| -> Option<(usize, String, Option<usize>)> {
        for (k, d) in spec.dummies.iter().enumerate() {
            match d {
                WrapDummy::Plain(p) if p.eq_ignore_ascii_case(n) => return Some((k, p.clone(), None)),
                WrapDummy::Derived { name, parts, .. } => {
                    if let Some(part) = parts.iter().find(|q| q.param.eq_ignore_ascii_case(n)) {
                        return Some((k, format!("{name}%{}", part.path), part.lower_axis));
                    }
                }
                _ => {}
            }
        }
        None
    };
    if let Some((dummy, designator, lower)) = find(name) {
        return Ok(match lower {
            Some(axis) => Source::Int(format!("int(lbound({designator}, {}), c_int64_t)", axis + 1)),
            None => Source::Value { dummy, adjoint: false, designator },
        });
    }
    let is_state = |n: &str| spec.state.iter().any(|s| s.param == n);
    if is_state(name) {
        return Ok(Source::State { adjoint: false });
    }
    let role = f.vars.iter().find(|v| v.name == name).map(|v| v.role.clone());
    if role == Some(VarRole::Return) {
        return Ok(Source::Result);
    }
    if let Some(base) = name.strip_suffix("_b") {
        if let Some((dummy, designator, None)) = find(base) {
            let designator = match &spec.dummies[dummy] {
                WrapDummy::Derived { name, .. } => format!("{name}_b{}", &designator[name.len()..]),
                WrapDummy::Plain(p) | WrapDummy::Text(p) => format!("{p}_b"),
            };
            return Ok(Source::Value { dummy, adjoint: true, designator });
        }
        if is_state(base) {
            return Ok(Source::State { adjoint: true });
        }
        if f.vars.iter().any(|v| v.name == base && v.role == VarRole::Return) {
            return Ok(Source::Result);
        }
    }
    // `<array>_n<k>`: an extent of an assumed-shape array.
    if let Some((array, k)) = name.rsplit_once("_n") {
        if let (Ok(k), Some((_, designator, None))) = (k.parse::<usize>(), find(array)) {
            let is_array = f.vars.iter().any(|v| v.name.eq_ignore_ascii_case(array) && v.ty.is_array());
            if is_array {
                return Ok(Source::Int(format!("int(size({designator}, {}), c_int64_t)", k + 1)));
            }
        }
    }
    Err(err(format!("the wrapper of `{}` cannot tell where the C parameter `{name}` comes from", spec.routine)))
}

/// The wrapper's type of a real or logical value (integers: [`int_kind`]).
fn kind(s: Scalar) -> &'static str {
    match s {
        Scalar::F64 => "real(c_double)",
        Scalar::F32 => "real(c_float)",
        Scalar::I64 => "integer",
        Scalar::Bool => "logical",
    }
}

/// An integer dummy's type as the routine declares it.
fn int_kind(name: &str, spec: &WrapSpec) -> String {
    match spec.int_kinds.get(&name.to_ascii_lowercase()) {
        Some(k) => format!("integer({k})"),
        None => "integer".into(),
    }
}

/// The bounds of an array dummy as the routine declares them: explicit over the wrapper's
/// names (`(0:n + 1, m)`), or assumed (`(0:, :)`) when its extents are the C's `<a>_n<k>`.
fn array_bounds(name: &str, ty: &Type, f: &Function, spec: &WrapSpec) -> Option<String> {
    let Type::Array { dims, layout, .. } = ty else { return Some(String::new()) };
    let names: Vec<String> = f.vars.iter().map(|v| v.name.clone()).collect();
    // The C's extents of an assumed-shape dummy (`x_n0`, shared by `x_b`) are sizes that
    // are no dummy of the routine.
    let _ = name;
    let assumed = dims.iter().any(|d| {
        matches!(&d.extent.kind, adjc_ir::ExprKind::Var(v)
            if f.vars[v.index()].role == VarRole::Size
                && !spec.dummies.iter().any(|w| matches!(w, WrapDummy::Plain(p) if p.eq_ignore_ascii_case(&f.vars[v.index()].name))))
    });
    let mut out = Vec::new();
    for d in dims {
        let lower = size_expr(&d.lower, &names, 0)?;
        out.push(if assumed {
            if lower == "1" {
                ":".to_string()
            } else {
                format!("{lower}:")
            }
        } else if lower == "1" {
            size_expr(&d.extent, &names, 0)?
        } else {
            let upper = d.lower.clone().add(d.extent.clone()).sub(adjc_ir::Expr::int(1));
            format!("{lower}:{}", size_expr(&upper, &names, 0)?)
        });
    }
    if *layout == Layout::RowMajor {
        out.reverse();
    }
    Some(format!("({})", out.join(", ")))
}

/// Renders `<stem>_adjc_wrap.f90`: module `<stem>_adjc_wrap` with one subroutine per
/// function: `<routine>` for the forward function, `<routine>_b` for the adjoint.
pub fn emit_fortran_wrappers(
    functions: &[&Function],
    spec: &WrapSpec,
    opts: &crate::EmitOptions,
) -> Result<String, Diagnostic> {
    let stem = fortran_stem(&opts.stem);
    let iface = format!("{stem}_adjc");
    // Each function's wrapper first (an error leaves the file unwritten).
    let mut bodies = Vec::new();
    let mut names = Vec::new();
    for (k, f) in functions.iter().enumerate() {
        let name = if k == 0 { spec.routine.clone() } else { format!("{}_b", spec.routine) };
        bodies.push(one(f, &name, spec)?);
        names.push(name);
    }
    let mut out = Vec::new();
    for line in &opts.header_comment {
        out.push(if line.is_empty() { "!".to_string() } else { format!("! {line}") });
    }
    if !opts.header_comment.is_empty() {
        out.push("!".into());
    }
    out.push("! Generated by adjc: do not edit.".into());
    out.push("!".into());
    out.push(format!("! Drop-in wrappers taking the original arguments of {}: integers of the", spec.routine));
    out.push("! routine's kinds, arrays with its bounds, derived types whole, COMMON and module".into());
    out.push(format!(
        "! state from where it lives. Each calls the C function (the `bind(C)` interfaces of `{iface}`)."
    ));
    out.push("! The adjoint of an argument `x` is `x_b`, of the same type and shape; adjoints of".into());
    out.push("! COMMON members and module variables come last (`<block>_<member>_b`), then the".into());
    out.push("! optional `stat`: the C status (0 on success); absent, a failure is an `error stop`.".into());
    out.push(format!("! Next to the original routine: `use {stem}_adjc_wrap, only: {}_b`.", spec.routine));
    out.push(format!("module {stem}_adjc_wrap"));
    out.push("  use iso_c_binding, only: c_int, c_int64_t, c_double, c_float, c_bool".into());
    for (m, t) in &spec.uses {
        out.push(format!("  use {m}, only: {t}"));
    }
    out.push("  implicit none".into());
    out.push("  private".into());
    // The `bind(C)` interfaces again, under Fortran names of their own: gfortran warns when
    // a module procedure shares its name with an interface it can see.
    out.push("  interface".into());
    for f in functions {
        let i = interface(f, Some(&format!("adjc_c_{}", f.name)))?;
        let lines = |key: &str| -> Vec<String> {
            i.get_attr(key)
                .ok()
                .and_then(|v| v.try_iter().ok())
                .map(|it| it.map(|l| l.to_string()).collect())
                .unwrap_or_default()
        };
        out.extend(lines("head").into_iter().map(|l| format!("    {l}")));
        out.push("      import :: c_int, c_int64_t, c_double, c_float, c_bool".into());
        out.extend(lines("decls").into_iter().map(|l| format!("      {l}")));
        out.push(format!("      integer(c_int) :: adjc_c_{}", f.name));
        out.push(format!("    end function adjc_c_{}", f.name));
    }
    out.push("  end interface".into());
    out.push(format!("  public :: {}", names.join(", ")));
    out.push("contains".into());
    for body in bodies {
        out.push(String::new());
        out.extend(body);
    }
    out.push(String::new());
    out.extend(fail_routine());
    out.push(format!("end module {stem}_adjc_wrap"));
    let mut text = out.join("\n");
    text.push('\n');
    Ok(text)
}

/// `adjc_fail(what, stat)`: the meaning of a C status (the `ADJC_ERR_*` of the header), then
/// `error stop`.
fn fail_routine() -> Vec<String> {
    [
        "  subroutine adjc_fail(what, stat)",
        "    use iso_fortran_env, only: error_unit",
        "    character(*), intent(in) :: what",
        "    integer(c_int), intent(in) :: stat",
        "    select case (stat)",
        "    case (1)",
        "      write (error_unit, '(a)') what // ': a work array could not be allocated (ADJC_ERR_ALLOC)'",
        "    case (2)",
        "      write (error_unit, '(a)') what // ': the sizes break a shape rule of the source (ADJC_ERR_SHAPE)'",
        "    case (3)",
        "      write (error_unit, '(a)') what // ': sizes beyond those the memory plan was made for (ADJC_ERR_PLAN)'",
        "    case (5)",
        "      write (error_unit, '(a)') what // ': the routine reached a `stop` or `error stop` (ADJC_ERR_STOP)'",
        "    case default",
        "      write (error_unit, '(a, i0)') what // ': the C function failed with status ', stat",
        "    end select",
        "    error stop 1",
        "  end subroutine adjc_fail",
    ]
    .iter()
    .map(|l| l.to_string())
    .collect()
}

/// A component of an array of derived types, passed through a work array.
struct Copy {
    temp: String,
    /// `cols%rho` or `cols(adjc_i)%gas%t` (with the loop), for the copy in and out.
    dummy: String,
    path: String,
    /// The component's own extents (empty for a scalar component).
    extents: Vec<String>,
    elem: Scalar,
    back: bool,
}

/// The argument that passes a scalar `v` by value to a C parameter of type `elem`.
fn by_value(v: &str, elem: Scalar) -> String {
    match elem {
        Scalar::I64 => format!("int({v}, c_int64_t)"),
        Scalar::F64 => format!("real({v}, c_double)"),
        Scalar::F32 => format!("real({v}, c_float)"),
        Scalar::Bool => format!("logical({v}, c_bool)"),
    }
}

fn one(f: &Function, wname: &str, spec: &WrapSpec) -> Result<Vec<String>, Diagnostic> {
    // Components of arrays of types: each through a work array (`adjc_t<k>`).
    let names: Vec<String> = f.vars.iter().map(|v| v.name.clone()).collect();
    let mut copies: Vec<Copy> = Vec::new();
    for (k, p) in f.params.iter().enumerate() {
        let v = f.var(p.var);
        if let Ok(Source::Value { dummy, designator, .. }) = resolve(&v.name, spec, f) {
            if let WrapDummy::Derived { name, rank, .. } = &spec.dummies[dummy] {
                if *rank == 0 {
                    continue;
                }
                let Type::Array { dims, .. } = &v.ty else { continue };
                let own = &dims[..dims.len().saturating_sub(*rank)];
                let extents: Option<Vec<String>> = own.iter().map(|d| size_expr(&d.extent, &names, 0)).collect();
                let Some(extents) = extents else {
                    return Err(err(format!("the extents of `{}` cannot be written in Fortran", v.name)));
                };
                let base = designator.split('%').next().unwrap_or(name).to_string();
                let path = designator[base.len()..].to_string();
                copies.push(Copy {
                    temp: format!("adjc_t{k}"),
                    dummy: base,
                    path,
                    extents,
                    elem: v.ty.elem(),
                    back: p.intent != Intent::In,
                });
            }
        }
    }
    let temp_of = |param: &str| -> Option<String> {
        let k = f.params.iter().position(|p| f.var(p.var).name.eq_ignore_ascii_case(param))?;
        copies.iter().find(|c| c.temp == format!("adjc_t{k}")).map(|c| c.temp.clone())
    };
    // The C arguments, and which dummies (and adjoints) the wrapper needs.
    let mut args = Vec::new();
    let mut used: Vec<(bool, bool)> = vec![(false, false); spec.dummies.len()];
    // Declarations of plain dummies and their adjoints: `(is_array, declaration)`.
    let mut plain_decl: Vec<Option<(bool, String)>> = vec![None; spec.dummies.len()];
    let mut plain_adj_decl: Vec<Option<(bool, String)>> = vec![None; spec.dummies.len()];
    // Trailing dummies (results, adjoints of state), in C order, with declarations.
    let mut trailing: Vec<(String, bool, String)> = Vec::new();
    let mut state_used: Vec<&WrapState> = Vec::new();
    for p in &f.params {
        let v = f.var(p.var);
        // The extent of a work array.
        if let Some((array, k)) = v.name.rsplit_once("_n") {
            if let (Ok(k), Some(t)) = (k.parse::<usize>(), temp_of(array)) {
                args.push(format!("int(size({t}, {}), c_int64_t)", k + 1));
                continue;
            }
        }
        if let Some(t) = temp_of(&v.name) {
            if let Ok(Source::Value { dummy, adjoint, .. }) = resolve(&v.name, spec, f) {
                if adjoint {
                    used[dummy].1 = true;
                } else {
                    used[dummy].0 = true;
                }
            }
            args.push(t);
            continue;
        }
        let in_scalar = p.intent == Intent::In && !v.ty.is_array();
        let elem = v.ty.elem();
        // Integer and logical storage the C takes by reference is `int64_t`/`bool`: the
        // routine's own kinds differ, so the wrapper would need copies; not done.
        if !in_scalar && matches!(elem, Scalar::I64 | Scalar::Bool) {
            return Err(err(format!(
                "`{}` is an integer or logical array (or output): the C takes it as `{}`",
                v.name,
                if elem == Scalar::I64 { "int64_t" } else { "bool" }
            )));
        }
        let bounds = array_bounds(&v.name, &v.ty, f, spec)
            .ok_or_else(|| err(format!("the shape of `{}` cannot be written as a Fortran declaration", v.name)))?;
        let intent = if p.intent == Intent::In { "in" } else { "inout" };
        match resolve(&v.name, spec, f)? {
            Source::Int(e) => args.push(e),
            Source::State { adjoint: false } => {
                if let Some(s) = spec.state.iter().find(|s| s.param == v.name) {
                    state_used.push(s);
                }
                args.push(if in_scalar { by_value(&v.name, elem) } else { v.name.clone() });
            }
            Source::State { adjoint: true } | Source::Result => {
                let decl = format!("{}, intent({intent}) :: {}{bounds}", kind(elem), v.name);
                trailing.push((v.name.clone(), v.ty.is_array(), decl));
                args.push(if in_scalar { by_value(&v.name, elem) } else { v.name.clone() });
            }
            Source::Value { dummy, adjoint, designator } => {
                if adjoint {
                    used[dummy].1 = true;
                } else {
                    used[dummy].0 = true;
                }
                args.push(if in_scalar { by_value(&designator, elem) } else { designator.clone() });
                if let WrapDummy::Plain(_) = &spec.dummies[dummy] {
                    let ty = if elem == Scalar::I64 { int_kind(&designator, spec) } else { kind(elem).to_string() };
                    let decl = (v.ty.is_array(), format!("{ty}, intent({intent}) :: {designator}{bounds}"));
                    if adjoint {
                        plain_adj_decl[dummy] = Some(decl);
                    } else {
                        plain_decl[dummy] = Some(decl);
                    }
                }
            }
        }
    }
    let mut dummies = Vec::new();
    let mut texts = Vec::new();
    // Scalars before arrays: a bound may only use dummies declared before it.
    let mut scalar_decls = Vec::new();
    let mut array_decls = Vec::new();
    let mut push = |(is_array, decl): (bool, String)| {
        if is_array {
            array_decls.push(decl)
        } else {
            scalar_decls.push(decl)
        }
    };
    for (k, d) in spec.dummies.iter().enumerate() {
        let (val, adj) = used[k];
        match d {
            WrapDummy::Derived { name, type_name, rank, .. } => {
                dummies.push(name.clone());
                let mut names = vec![name.clone()];
                if adj {
                    dummies.push(format!("{name}_b"));
                    names.push(format!("{name}_b"));
                }
                let shape = if *rank > 0 { format!("({})", vec![":"; *rank].join(", ")) } else { String::new() };
                let names: Vec<String> = names.into_iter().map(|n| format!("{n}{shape}")).collect();
                push((false, format!("type({type_name}), intent(inout) :: {}", names.join(", "))));
            }
            WrapDummy::Text(name) => {
                dummies.push(name.clone());
                push((false, format!("character(*), intent(in) :: {name}")));
                texts.push(name.clone());
            }
            WrapDummy::Plain(name) => {
                if !val && !adj {
                    return Err(err(format!("`{name}` of `{}` has no C parameter to pass it to", spec.routine)));
                }
                dummies.push(name.clone());
                match &plain_decl[k] {
                    Some(decl) => push(decl.clone()),
                    None => return Err(err(format!("the wrapper of `{}` misses the type of `{name}`", spec.routine))),
                }
                if let Some(decl) = &plain_adj_decl[k] {
                    dummies.push(format!("{name}_b"));
                    push(decl.clone());
                }
            }
        }
    }
    for (name, is_array, decl) in &trailing {
        dummies.push(name.clone());
        push((*is_array, decl.clone()));
    }
    dummies.push("stat".into());
    let mut out = Vec::new();
    for l in wrap(&format!("subroutine {wname}({})", dummies.join(", ")), 2) {
        out.push(format!("  {l}"));
    }
    // State the routine reads: modules by `use` (renamed to the C parameter's name), COMMON
    // blocks declared whole (storage association is by position).
    // A component of a module variable of derived type (`yrecldp%ramid`) cannot be renamed
    // by `use`: the call runs inside `associate (yrecldp_ramid => yrecldp%ramid)`.
    let mut roots: Vec<String> = Vec::new();
    let mut assoc = Vec::new();
    for s in &state_used {
        if let WrapOrigin::Module { module, var } = &s.origin {
            match var.split_once('%') {
                Some((root, _)) => {
                    let line = format!("    use {module}, only: {root}");
                    if !roots.contains(&line) {
                        roots.push(line);
                    }
                    assoc.push(format!("{} => {var}", s.param));
                }
                None => out.push(format!("    use {module}, only: {} => {var}", s.param)),
            }
        }
    }
    out.extend(roots);
    for d in scalar_decls.iter().chain(&array_decls) {
        out.extend(wrap(d, 4).into_iter().map(|l| format!("    {l}")));
    }
    out.push("    integer, intent(out), optional :: stat".into());
    let mut blocks: Vec<usize> = state_used
        .iter()
        .filter_map(|s| match s.origin {
            WrapOrigin::Common { block, .. } => Some(block),
            WrapOrigin::Module { .. } => None,
        })
        .collect();
    blocks.sort_unstable();
    blocks.dedup();
    for b in blocks {
        let Some(c) = spec.commons.get(b) else { return Err(err(format!("no layout for COMMON block {b}"))) };
        let mut members = Vec::new();
        for (m, (ty, bounds)) in c.members.iter().enumerate() {
            let named = spec
                .state
                .iter()
                .find(|s| matches!(s.origin, WrapOrigin::Common { block, member } if block == b && member == m));
            let name = named.map_or_else(|| format!("adjc_c{b}_{m}"), |s| s.param.clone());
            out.push(format!("    {ty} :: {name}{bounds}"));
            members.push(name);
        }
        let label = c.block.as_deref().map(|b| format!("/{b}/ ")).unwrap_or_default();
        out.extend(wrap(&format!("common {label}{}", members.join(", ")), 4).into_iter().map(|l| format!("    {l}")));
    }
    out.push("    integer(c_int) :: adjc_stat".into());
    if copies.iter().any(|c| !c.extents.is_empty()) {
        out.push("    integer :: adjc_i".into());
    }
    for c in &copies {
        let rank = c.extents.len() + 1;
        out.push(format!("    {}, allocatable :: {}({})", kind(c.elem), c.temp, vec![":"; rank].join(", ")));
    }
    // Copy in: the components of every element into the work arrays.
    for c in &copies {
        let mut ext = c.extents.clone();
        ext.push(format!("size({})", c.dummy));
        out.push(format!("    allocate({}({}))", c.temp, ext.join(", ")));
        out.extend(copy(c, true));
    }
    // `character` dummies: taken for the caller's sake, not passed (the C has no text).
    for t in &texts {
        out.push(format!("    adjc_stat = int(0 * len({t}), c_int)  ! `{t}` is not passed to the C"));
    }
    if !assoc.is_empty() {
        for l in wrap(&format!("associate ({})", assoc.join(", ")), 4) {
            out.push(format!("    {l}"));
        }
    }
    for l in wrap(&format!("adjc_stat = adjc_c_{}({})", f.name, args.join(", ")), 4) {
        out.push(format!("    {l}"));
    }
    if !assoc.is_empty() {
        out.push("    end associate".into());
    }
    for c in copies.iter().filter(|c| c.back) {
        out.extend(copy(c, false));
    }
    out.push("    if (present(stat)) then".into());
    out.push("      stat = int(adjc_stat)".into());
    out.push("    else if (adjc_stat /= 0) then".into());
    out.push(format!("      call adjc_fail('{wname}', adjc_stat)"));
    out.push("    end if".into());
    out.push(format!("  end subroutine {wname}"));
    Ok(out)
}

/// The copy between the components of an array of types and its work array.
fn copy(c: &Copy, into_temp: bool) -> Vec<String> {
    if c.extents.is_empty() {
        let (to, from) = (c.temp.clone(), format!("{}{}", c.dummy, c.path));
        return vec![if into_temp { format!("    {to} = {from}") } else { format!("    {from} = {to}") }];
    }
    let colons = vec![":"; c.extents.len()].join(", ");
    let t = format!("{}({colons}, adjc_i)", c.temp);
    let d = format!("{}(adjc_i){}", c.dummy, c.path);
    let body = if into_temp { format!("      {t} = {d}") } else { format!("      {d} = {t}") };
    vec![format!("    do adjc_i = 1, size({})", c.dummy), body, "    end do".into()]
}
