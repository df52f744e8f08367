//! Parameter types from `--arg` specs (`A: float64[N, M]`) and source annotations.

use super::ast::{Ex, ExKind, ModuleAst};
use super::parse::parse_expr_text;
use adjc_ir::{Diagnostic, Scalar, Span};

/// A declared parameter type. Extents are kept as expressions over names, evaluated when
/// the signature is built (names become size parameters or refer to integer parameters).
#[derive(Clone, Debug)]
pub enum TypeSpec {
    Scalar(Scalar),
    Array(Scalar, Vec<Ex>),
    /// `np.ndarray` without a shape: an array whose rank must be inferred.
    AnyArray,
}

pub struct ArgSpec {
    pub name: String,
    pub ty: TypeSpec,
    pub text: String,
}

const HELP: &str = "write `NAME: float64[N, M]`, `NAME: float32[5, N + 1]`, `NAME: float64` or `NAME: int`";

pub fn parse_arg_spec(s: &str) -> Result<ArgSpec, Diagnostic> {
    let bad = |why: &str| {
        Diagnostic::error(Span::NONE, format!("cannot read the argument spec `{s}`: {why}")).with_help(HELP)
    };
    let Some((name, ty)) = s.split_once(':') else {
        return Err(bad("expected `NAME: TYPE`"));
    };
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(bad("the name is not an identifier"));
    }
    let ex = parse_expr_text(ty.trim()).map_err(|e| bad(&e))?;
    let ty = type_of(&ex, None).map_err(|d| bad(&d.message))?;
    Ok(ArgSpec { name: name.to_string(), ty, text: s.to_string() })
}

fn dtype_name(name: &str) -> Option<Scalar> {
    Some(match name {
        "float64" | "float" | "double" | "f64" | "float_" => Scalar::F64,
        "float32" | "single" | "f32" => Scalar::F32,
        "int" | "int64" | "int32" | "i64" | "intp" | "int_" => Scalar::I64,
        "bool" | "bool_" => Scalar::Bool,
        _ => return None,
    })
}

/// The dtype named by `np.float32`, `float64`, `"float64"`, `float`.
pub fn dtype_of(e: &Ex, m: Option<&ModuleAst>) -> Option<Scalar> {
    match &e.kind {
        ExKind::Name(n) => dtype_name(n),
        ExKind::Str(s) => dtype_name(s.trim()),
        ExKind::Attr(obj, a) => {
            let root = obj.as_name()?;
            let is_np = root == "np" || root == "numpy" || m.and_then(|m| m.import(root)) == Some("numpy");
            if is_np {
                dtype_name(a)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Reads an annotation or the type part of an argument spec.
pub fn type_of(e: &Ex, m: Option<&ModuleAst>) -> Result<TypeSpec, Diagnostic> {
    let unsupported = || {
        Diagnostic::error(e.span, format!("unsupported type annotation `{}`", e.text))
            .with_help("annotate with e.g. `float64[N, M]`, `np.float32`, `float` or `int`")
    };
    match &e.kind {
        ExKind::Str(s) => {
            let inner = parse_expr_text(s).map_err(|_| unsupported())?;
            type_of(&inner, m).map_err(|d| Diagnostic { span: e.span, ..d })
        }
        ExKind::Subscript(base, items) => {
            let elem = dtype_of(base, m).ok_or_else(unsupported)?;
            if items.is_empty() {
                return Err(unsupported());
            }
            if items.iter().any(|i| matches!(i.kind, ExKind::Slice(..) | ExKind::Ellipsis | ExKind::Str(_))) {
                return Err(unsupported());
            }
            Ok(TypeSpec::Array(elem, items.clone()))
        }
        _ => {
            if let Some(t) = dtype_of(e, m) {
                return Ok(TypeSpec::Scalar(t));
            }
            let is_ndarray = match e.dotted() {
                Some(p) => {
                    p.last().map(String::as_str) == Some("ndarray") || p.last().map(String::as_str) == Some("NDArray")
                }
                None => false,
            };
            if is_ndarray {
                Ok(TypeSpec::AnyArray)
            } else {
                Err(unsupported())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_specs() {
        let s = parse_arg_spec("B: float64[I + 4, J + 4, K]").unwrap();
        assert_eq!(s.name, "B");
        assert!(matches!(s.ty, TypeSpec::Array(Scalar::F64, ref d) if d.len() == 3));
        assert!(matches!(parse_arg_spec("x: float32[5, 5, 1, 6]").unwrap().ty, TypeSpec::Array(Scalar::F32, _)));
        assert!(matches!(parse_arg_spec("alpha: float64").unwrap().ty, TypeSpec::Scalar(Scalar::F64)));
        assert!(matches!(parse_arg_spec("N: int").unwrap().ty, TypeSpec::Scalar(Scalar::I64)));
        assert!(parse_arg_spec("A float64").is_err());
        assert!(parse_arg_spec("A: complex128").is_err());
        assert!(parse_arg_spec("A: float64[N").is_err());
    }
}
