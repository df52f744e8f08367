//! Declarations of one procedure: types, intents, `parameter` constants and array
//! shapes, gathered per name before any statement is lowered (Fortran declares
//! everything up front, and a call-like reference `a(i)` needs the table to tell an
//! array element from a function call).

use super::ast::{self, AttrKind, Decl, DeclPart, Expr, TypeSpec};
use adjc_ir::{Diagnostic, Intent, Span};
use std::collections::BTreeMap;

/// One axis of a declared array.
#[derive(Clone, Copy)]
pub enum DimSpec<'t> {
    /// `upper` or `lower:upper`.
    Explicit { lower: Option<&'t Expr>, upper: &'t Expr },
    /// `:` or `lower:` (assumed shape, deferred shape).
    Assumed { lower: Option<&'t Expr> },
    /// `*` or `lower:*`.
    AssumedSize { lower: Option<&'t Expr> },
}

/// Everything the declarations say about one name.
#[derive(Clone)]
pub struct Sym<'t> {
    /// As spelled in its first declaration.
    pub name: String,
    pub span: Span,
    /// The declared type.
    pub ty: Option<&'t TypeSpec>,
    pub dims: Option<Vec<DimSpec<'t>>>,
    pub intent: Option<Intent>,
    pub parameter: bool,
    pub init: Option<&'t Expr>,
    /// `allocatable`: the shape comes from an `allocate` statement.
    pub allocatable: bool,
    /// `save`: the value is kept from one call to the next.
    pub save: bool,
    /// `optional`: a call may leave the argument out (`present(x)` says).
    pub optional: bool,
    /// Member of a COMMON block: the block (lower case, `""` for blank COMMON) and the
    /// position in it.
    pub common: Option<(String, usize)>,
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
            optional: false,
            common: None,
        }
    }
}

pub type Table<'t> = BTreeMap<String, Sym<'t>>;

/// Whether `sym` is declared `character` (text: adjc leaves it out with the statements that
/// use it).
pub fn is_text(sym: &Sym) -> bool {
    matches!(sym.ty, Some(TypeSpec::Intrinsic { base, .. }) if base.starts_with("character"))
}

fn unsupported(span: Span, what: &str, help: &str) -> Diagnostic {
    Diagnostic::error(span, format!("{what} not supported")).with_help(help.to_string())
}

/// The axes of a declared shape (an error for an empty or malformed one).
pub fn dim_specs(shape: &ast::Shape) -> Result<Vec<DimSpec<'_>>, Diagnostic> {
    if shape.dims.is_empty() {
        return Err(Diagnostic::error(shape.span, "an array needs at least one dimension")
            .with_help("give its bounds, e.g. `x(n)` or `x(:)`"));
    }
    let mut dims = Vec::new();
    for d in &shape.dims {
        dims.push(match d {
            ast::DimSpec::Explicit { lower, upper } => DimSpec::Explicit { lower: lower.as_ref(), upper },
            ast::DimSpec::Assumed { lower } => DimSpec::Assumed { lower: lower.as_ref() },
            ast::DimSpec::AssumedSize { lower } => DimSpec::AssumedSize { lower: lower.as_ref() },
            ast::DimSpec::Malformed(span) => return Err(Diagnostic::error(*span, "malformed array bounds")),
        });
    }
    Ok(dims)
}

/// Adds the names declared by `decl` to `table`. With `once` (the declarations of one
/// scope), a name given a type, shape or intent twice is an error.
pub fn collect<'t>(decl: &'t Decl, table: &mut Table<'t>, once: bool) -> Result<(), Diagnostic> {
    collect_in(decl, table, once, false)
}

/// An attribute statement (`dimension x(n)`, `save x`): like a declaration, but a bare
/// `dimension` takes the bounds from each name, which must have them.
pub fn collect_attributes<'t>(decl: &'t Decl, table: &mut Table<'t>) -> Result<(), Diagnostic> {
    collect_in(decl, table, true, true)
}

/// `parameter (n = 10)`: `name` becomes a constant with that value (typed by its
/// declaration, or by the value when it has none and typing is implicit).
pub fn collect_parameter<'t>(name: &str, span: Span, value: &'t Expr, table: &mut Table<'t>) -> Result<(), Diagnostic> {
    let entry = table.entry(name.to_ascii_lowercase()).or_insert_with(|| Sym::bare(name.to_string(), span));
    if entry.init.is_some() {
        return Err(Diagnostic::error(span, format!("`{name}` is given a value twice"))
            .with_help(format!("give `{name}` one value (its first declaration is on line {})", entry.span.line)));
    }
    if entry.intent.is_some() {
        return Err(Diagnostic::error(span, format!("the argument `{name}` is declared `parameter`")).with_help(
            "a `parameter` is a constant of the procedure; pass the value as an argument or make it a local constant",
        ));
    }
    entry.parameter = true;
    entry.init = Some(value);
    Ok(())
}

fn collect_in<'t>(decl: &'t Decl, table: &mut Table<'t>, once: bool, statement: bool) -> Result<(), Diagnostic> {
    let mut bare_dimension = None;
    let mut ty = None;
    let mut intent = None;
    let mut parameter = false;
    let mut allocatable = false;
    let mut save = false;
    let mut optional = false;
    let mut dims_attr = None;
    for part in &decl.parts {
        match part {
            DeclPart::Type(t @ TypeSpec::Intrinsic { .. }) => ty = Some(t),
            DeclPart::Type(TypeSpec::Derived { span, .. }) => {
                return Err(unsupported(
                    *span,
                    "derived types are",
                    "pass the components as separate arrays and scalars",
                ))
            }
            DeclPart::Attr(a) => match &a.kind {
                AttrKind::Intent(i) => intent = Some(*i),
                AttrKind::Parameter => parameter = true,
                AttrKind::Dimension(Some(shape)) => dims_attr = Some(dim_specs(shape)?),
                AttrKind::Dimension(None) if statement => bare_dimension = Some(a.span),
                AttrKind::Dimension(None) => return Err(Diagnostic::error(a.span, "malformed `dimension` attribute")),
                AttrKind::Pointer => {
                    return Err(unsupported(a.span, "pointers are", "use ordinary (explicit-shape) arrays"))
                }
                AttrKind::Allocatable => allocatable = true,
                AttrKind::Save => save = true,
                AttrKind::Optional => optional = true,
                // target, value, contiguous, ... do not change the math.
                AttrKind::Other(_) => {}
            },
            DeclPart::Unsupported(d) => return Err(d.clone()),
        }
    }
    for e in &decl.entities {
        let dims = match &e.shape {
            Some(shape) => Some(dim_specs(shape)?),
            None => None,
        };
        let name = e.name.clone();
        if bare_dimension.is_some() && dims.is_none() {
            return Err(Diagnostic::error(e.span, format!("`dimension {name}` without bounds"))
                .with_help(format!("give the bounds of `{name}`, e.g. `dimension {name}(n)`")));
        }
        let key = name.to_ascii_lowercase();
        let entry = table.entry(key).or_insert_with(|| Sym::bare(name.clone(), e.span));
        let twice = |what: &str| {
            Diagnostic::error(e.span, format!("`{name}` is given {what} twice"))
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
        entry.optional |= optional;
        if e.init.is_some() {
            entry.init = e.init.as_ref();
        }
    }
    Ok(())
}
