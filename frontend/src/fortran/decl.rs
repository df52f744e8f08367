//! Declarations of one procedure: types, intents, `parameter` constants and array
//! shapes, gathered per name before any statement is lowered (Fortran declares
//! everything up front, and `call_expression` nodes need the table to tell an array
//! reference from a function call).

use super::syntax::{children, named, span_of, text};
use adjc_ir::{Diagnostic, Intent, Span};
use std::collections::BTreeMap;
use tree_sitter::Node;

/// One axis of a declared array.
#[derive(Clone, Copy)]
pub enum DimSpec<'t> {
    /// `upper` or `lower:upper`.
    Explicit { lower: Option<Node<'t>>, upper: Node<'t> },
    /// `:` or `lower:` (assumed shape, deferred shape).
    Assumed { lower: Option<Node<'t>> },
    /// `*`.
    AssumedSize,
}

/// Everything the declarations say about one name.
#[derive(Clone)]
pub struct Sym<'t> {
    /// As spelled in its first declaration.
    pub name: String,
    pub span: Span,
    /// The `intrinsic_type` (or `derived_type`) node.
    pub ty: Option<Node<'t>>,
    pub dims: Option<Vec<DimSpec<'t>>>,
    pub intent: Option<Intent>,
    pub parameter: bool,
    pub init: Option<Node<'t>>,
    /// `allocatable`: the shape comes from an `allocate` statement.
    pub allocatable: bool,
    /// `save`: the value is kept from one call to the next.
    pub save: bool,
}

impl Sym<'_> {
    /// A name seen before any attribute of it: no type, shape, intent or value yet.
    pub fn bare(name: String, span: Span) -> Self {
        Sym {
            name,
            span,
            ty: None,
            dims: None,
            intent: None,
            parameter: false,
            init: None,
            allocatable: false,
            save: false,
        }
    }
}

pub type Table<'t> = BTreeMap<String, Sym<'t>>;

fn unsupported(src: &str, n: Node, what: &str, help: &str) -> Diagnostic {
    Diagnostic::error(span_of(src, n), format!("{what} not supported")).with_help(help.to_string())
}

/// The parts of `a:b:c` between colons (`None` where a part is omitted).
pub fn colon_parts<'t>(n: Node<'t>) -> Vec<Option<Node<'t>>> {
    let mut parts = vec![None];
    for c in children(n) {
        if !c.is_named() && c.kind() == ":" {
            parts.push(None);
        } else if c.is_named() {
            if let Some(last) = parts.last_mut() {
                *last = Some(c);
            }
        }
    }
    parts
}

pub fn dim_specs<'t>(src: &str, list: Node<'t>) -> Result<Vec<DimSpec<'t>>, Diagnostic> {
    if named(list).is_empty() {
        return Err(Diagnostic::error(span_of(src, list), "an array needs at least one dimension")
            .with_help("give its bounds, e.g. `x(n)` or `x(:)`"));
    }
    let mut dims = Vec::new();
    for d in named(list) {
        if text(src, d).trim() == "*" || d.kind() == "assumed_size" {
            dims.push(DimSpec::AssumedSize);
        } else if d.kind() == "extent_specifier" {
            let parts = colon_parts(d);
            match (parts.first().copied().flatten(), parts.get(1).copied().flatten()) {
                (lower, Some(upper)) if parts.len() == 2 => {
                    if text(src, upper).trim() == "*" {
                        dims.push(DimSpec::AssumedSize);
                    } else {
                        dims.push(DimSpec::Explicit { lower, upper });
                    }
                }
                (lower, None) if parts.len() == 2 => dims.push(DimSpec::Assumed { lower }),
                _ => return Err(Diagnostic::error(span_of(src, d), "malformed array bounds")),
            }
        } else {
            dims.push(DimSpec::Explicit { lower: None, upper: d });
        }
    }
    Ok(dims)
}

/// Adds the names declared by `decl` (a `variable_declaration`) to `table`. With `once`
/// (the declarations of one scope), a name given a type, shape or intent twice is an error.
pub fn collect<'t>(src: &str, decl: Node<'t>, table: &mut Table<'t>, once: bool) -> Result<(), Diagnostic> {
    let mut ty = None;
    let mut intent = None;
    let mut parameter = false;
    let mut allocatable = false;
    let mut save = false;
    let mut dims_attr = None;
    let mut declarators = Vec::new();
    for c in named(decl) {
        match c.kind() {
            "intrinsic_type" => ty = Some(c),
            "derived_type" => {
                return Err(unsupported(
                    src,
                    c,
                    "derived types are",
                    "pass the components as separate arrays and scalars",
                ))
            }
            "type_qualifier" => {
                let q: String = text(src, c).to_ascii_lowercase().chars().filter(|ch| !ch.is_whitespace()).collect();
                if let Some(rest) = q.strip_prefix("intent(") {
                    intent = Some(match rest.trim_end_matches(')') {
                        "in" => Intent::In,
                        "out" => Intent::Out,
                        _ => Intent::InOut,
                    });
                } else if q == "parameter" {
                    parameter = true;
                } else if q.starts_with("dimension") {
                    match named(c).into_iter().find(|x| matches!(x.kind(), "argument_list" | "size")) {
                        Some(list) => dims_attr = Some(dim_specs(src, list)?),
                        None => return Err(Diagnostic::error(span_of(src, c), "malformed `dimension` attribute")),
                    }
                } else if q == "pointer" {
                    return Err(unsupported(src, c, "pointers are", "use ordinary (explicit-shape) arrays"));
                } else if q == "allocatable" {
                    allocatable = true;
                } else if q == "save" {
                    save = true;
                }
                // target, value, optional, contiguous, ... do not change the math.
            }
            "identifier" | "sized_declarator" | "init_declarator" => declarators.push(c),
            _ => {
                return Err(Diagnostic::error(
                    span_of(src, c),
                    format!("cannot read this declaration (`{}`)", text(src, c).trim()),
                )
                .with_help("adjc reads `real`, `double precision`, `integer` and `logical` declarations"))
            }
        }
    }
    for d in declarators {
        let (target, init) = if d.kind() == "init_declarator" {
            let kids = named(d);
            (kids.first().copied().unwrap_or(d), kids.get(1).copied())
        } else {
            (d, None)
        };
        let (name_node, dims) = if target.kind() == "sized_declarator" {
            let kids = named(target);
            let name = kids.iter().copied().find(|k| k.kind() == "identifier").unwrap_or(target);
            let dims = match kids.iter().copied().find(|k| k.kind() == "size") {
                Some(size) => Some(dim_specs(src, size)?),
                None => None,
            };
            (name, dims)
        } else {
            (target, None)
        };
        let name = text(src, name_node).to_string();
        let key = name.to_ascii_lowercase();
        let entry = table.entry(key).or_insert_with(|| Sym::bare(name.clone(), span_of(src, name_node)));
        let twice = |what: &str| {
            Diagnostic::error(span_of(src, name_node), format!("`{name}` is given {what} twice"))
                .with_help(format!("declare `{name}` once (its first declaration is on line {})", entry.span.line))
        };
        if ty.is_some() {
            if once && entry.ty.is_some() {
                return Err(twice("a type"));
            }
            entry.ty = ty;
        }
        if let Some(dd) = dims.or_else(|| dims_attr.clone()) {
            if once && entry.dims.is_some() {
                return Err(twice("a shape"));
            }
            entry.dims = Some(dd);
        }
        if intent.is_some() {
            if once && entry.intent.is_some() {
                return Err(twice("an intent"));
            }
            entry.intent = intent;
        }
        entry.parameter |= parameter;
        entry.allocatable |= allocatable;
        entry.save |= save;
        if init.is_some() {
            entry.init = init;
        }
    }
    Ok(())
}
