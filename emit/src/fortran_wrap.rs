//! Fortran wrappers (`<stem>_adjc_wrap.f90`) for a routine with derived-type dummies: the
//! C functions take each component as a parameter of its own (the frontend's lowering);
//! these subroutines take the original arguments whole, so a Fortran caller writes
//! `call evolve_b(curr, curr_b, prev, prev_b, a, a_b, dt, dt_b)`. Each passes the
//! components (`curr%data`), their extents and lower bounds (`size`, `lbound`), and the
//! matching components of the adjoint variables (`curr_b%data`) to the `bind(C)` interfaces
//! of `<stem>_adjc`, and stops with an error when the C function fails.
//!
//! What the wrappers need from the frontend comes as a [`WrapSpec`] (plain data: this crate
//! does not know the frontend).

use crate::fortran_iface::{expr as size_expr, fortran_stem, interface, wrap};
use adjc_ir::{Diagnostic, Function, Intent, Scalar, Span, Type, VarRole};

/// The original dummies of the routine and how they reach the C parameters.
#[derive(Clone, Debug, Default)]
pub struct WrapSpec {
    /// `(module, type)` pairs the wrappers `use`.
    pub uses: Vec<(String, String)>,
    pub dummies: Vec<WrapDummy>,
}

#[derive(Clone, Debug)]
pub enum WrapDummy {
    /// Passed as itself: the C parameter of that name.
    Plain(String),
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

/// What one C parameter is, seen from the wrapper.
enum Source {
    /// A wrapper dummy (by index) or its adjoint, with the designator.
    Value { dummy: usize, adjoint: bool, designator: String },
    /// An integer computed from the arguments (`size(...)`, `lbound(...)`).
    Int(String),
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
    if let Some(base) = name.strip_suffix("_b") {
        if let Some((dummy, designator, None)) = find(base) {
            let designator = match &spec.dummies[dummy] {
                WrapDummy::Derived { name, .. } => format!("{name}_b{}", &designator[name.len()..]),
                WrapDummy::Plain(p) => format!("{p}_b"),
            };
            return Ok(Source::Value { dummy, adjoint: true, designator });
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
    Err(err(format!("the wrapper of `{}` cannot tell where the C parameter `{name}` comes from", f.name)))
}

fn kind(s: Scalar) -> &'static str {
    match s {
        Scalar::F64 => "real(c_double)",
        Scalar::F32 => "real(c_float)",
        Scalar::I64 => "integer",
        Scalar::Bool => "logical(c_bool)",
    }
}

/// Renders `<stem>_adjc_wrap.f90`: module `<stem>_adjc_wrap` with one subroutine per
/// function (same name as the C function).
pub fn emit_fortran_wrappers(
    functions: &[&Function],
    spec: &WrapSpec,
    opts: &crate::EmitOptions,
) -> Result<String, Diagnostic> {
    let stem = fortran_stem(&opts.stem);
    let iface = format!("{stem}_adjc");
    let mut out = Vec::new();
    for line in &opts.header_comment {
        out.push(if line.is_empty() { "!".to_string() } else { format!("! {line}") });
    }
    if !opts.header_comment.is_empty() {
        out.push("!".into());
    }
    out.push("! Generated by adjc: do not edit.".into());
    out.push("!".into());
    out.push(format!("! Wrappers taking the original arguments of {} (derived types whole): each passes", stem));
    out.push(format!("! their components to the C functions (the `bind(C)` interfaces of `{iface}`),"));
    out.push("! and stops with an error when the C function reports one. The adjoint of a".into());
    out.push("! derived-type argument `x` is `x_b`, of the same type, its components allocated like `x`'s.".into());
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
    out.push(format!("  public :: {}", functions.iter().map(|f| f.name.clone()).collect::<Vec<_>>().join(", ")));
    out.push("contains".into());
    for f in functions {
        out.push(String::new());
        out.extend(one(f, spec)?);
    }
    out.push(format!("end module {stem}_adjc_wrap"));
    let mut text = out.join("\n");
    text.push('\n');
    Ok(text)
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

fn one(f: &Function, spec: &WrapSpec) -> Result<Vec<String>, Diagnostic> {
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
                let _ = k;
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
    let mut plain_decl: Vec<Option<(String, String)>> = vec![None; spec.dummies.len()];
    let mut plain_adj_decl: Vec<Option<String>> = vec![None; spec.dummies.len()];
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
        match resolve(&v.name, spec, f)? {
            Source::Int(e) => args.push(e),
            Source::Value { dummy, adjoint, designator } => {
                if adjoint {
                    used[dummy].1 = true;
                } else {
                    used[dummy].0 = true;
                }
                let by_value = p.intent == Intent::In && !v.ty.is_array();
                args.push(match (by_value, v.ty.elem()) {
                    (true, Scalar::I64) => format!("int({designator}, c_int64_t)"),
                    (true, Scalar::F64) => format!("real({designator}, c_double)"),
                    (true, Scalar::F32) => format!("real({designator}, c_float)"),
                    (true, Scalar::Bool) => format!("logical({designator}, c_bool)"),
                    (false, _) => designator.clone(),
                });
                if let WrapDummy::Plain(name) = &spec.dummies[dummy] {
                    let intent = if p.intent == Intent::In { "in" } else { "inout" };
                    let shape = match &v.ty {
                        Type::Array { dims, .. } => format!("({})", vec![":"; dims.len()].join(", ")),
                        Type::Scalar(_) => String::new(),
                    };
                    let decl = format!("{}, intent({intent}) :: {designator}{shape}", kind(v.ty.elem()));
                    if v.role == VarRole::Size {
                        continue;
                    }
                    if adjoint {
                        plain_adj_decl[dummy] = Some(decl);
                    } else {
                        plain_decl[dummy] = Some((name.clone(), decl));
                    }
                }
            }
        }
    }
    let mut dummies = Vec::new();
    let mut decls = Vec::new();
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
                decls.push(format!("type({type_name}), intent(inout) :: {}", names.join(", ")));
            }
            WrapDummy::Plain(name) => {
                if !val && !adj {
                    continue;
                }
                dummies.push(name.clone());
                match &plain_decl[k] {
                    Some((_, decl)) => decls.push(decl.clone()),
                    None => return Err(err(format!("the wrapper of `{}` misses the type of `{name}`", f.name))),
                }
                if let Some(decl) = &plain_adj_decl[k] {
                    dummies.push(format!("{name}_b"));
                    decls.push(decl.clone());
                }
            }
        }
    }
    let mut out = Vec::new();
    for l in wrap(&format!("subroutine {}({})", f.name, dummies.join(", ")), 2) {
        out.push(format!("  {l}"));
    }
    for d in decls {
        out.extend(wrap(&d, 4).into_iter().map(|l| format!("    {l}")));
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
    for l in wrap(&format!("adjc_stat = adjc_c_{}({})", f.name, args.join(", ")), 4) {
        out.push(format!("    {l}"));
    }
    for c in copies.iter().filter(|c| c.back) {
        out.extend(copy(c, false));
    }
    out.push(format!(
        "    if (adjc_stat /= 0) error stop \"{}: the C function failed (ADJC_ERR_* in the C header)\"",
        f.name
    ));
    out.push(format!("  end subroutine {}", f.name));
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
