//! Which NumPy / `math` names the frontend understands.

use super::ast::{Ex, ModuleAst};
use adjc_ir::{Intrinsic, Scalar};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NpName {
    /// One-argument ufunc; the name is the NumPy name.
    Ufunc1(&'static str),
    Ufunc2(&'static str),
    Where,
    Clip,
    Reduction(&'static str),
    /// `matmul`, `dot`, `outer`.
    Product(&'static str),
    /// `einsum` (the contractions that are matrix products).
    Einsum,
    Creation(&'static str),
    Cast(Scalar),
    Const(&'static str),
    Transpose,
    Flip,
    Reshape,
    Ravel,
    /// `np.std` (true) / `np.var` (false).
    Moment(bool),
    /// `np.cumsum` (false) / `np.cumprod` (true).
    Scan(bool),
    Diff,
    Roll,
    /// `concatenate`, `stack`, `hstack`, `vstack`.
    Join(&'static str),
    Arange,
    Linspace,
    /// `np.triu` (true) / `np.tril` (false).
    Tri(bool),
    /// `np.linalg.norm`.
    Norm,
    /// `np.linalg` functions that are not supported yet (named in the diagnostic).
    Linalg(&'static str),
    Unknown,
}

const UFUNC1: &[&str] = &[
    "exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "sqrt", "abs", "absolute",
    "fabs", "floor", "ceil", "square", "negative", "positive", "log10", "log2", "log1p", "expm1", "sign",
];
const UFUNC2: &[&str] =
    &["arctan2", "power", "maximum", "minimum", "add", "subtract", "multiply", "divide", "true_divide", "hypot"];
const REDUCTIONS: &[&str] = &["sum", "mean", "max", "amax", "min", "amin", "prod"];
const PRODUCTS: &[&str] = &["matmul", "dot", "outer"];
const CREATION: &[&str] = &[
    "empty",
    "zeros",
    "ones",
    "full",
    "ndarray",
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
    "copy",
    "eye",
    "identity",
];
const CONSTS: &[&str] = &["pi", "e", "inf", "nan", "newaxis", "Inf", "NaN", "PINF", "NINF"];
const MATH_FUNCS: &[(&str, &str)] = &[
    ("sqrt", "sqrt"),
    ("exp", "exp"),
    ("log", "log"),
    ("sin", "sin"),
    ("cos", "cos"),
    ("tan", "tan"),
    ("tanh", "tanh"),
    ("sinh", "sinh"),
    ("cosh", "cosh"),
    ("asin", "arcsin"),
    ("acos", "arccos"),
    ("atan", "arctan"),
    ("fabs", "fabs"),
    ("floor", "floor"),
    ("ceil", "ceil"),
    ("log10", "log10"),
    ("log2", "log2"),
    ("log1p", "log1p"),
    ("expm1", "expm1"),
];

fn find(list: &[&'static str], n: &str) -> Option<&'static str> {
    list.iter().find(|x| **x == n).copied()
}

fn dtype(n: &str) -> Option<Scalar> {
    Some(match n {
        "float64" | "double" | "float_" => Scalar::F64,
        "float32" | "single" => Scalar::F32,
        "int64" | "int_" | "intp" | "int32" => Scalar::I64,
        "bool_" => Scalar::Bool,
        _ => return None,
    })
}

/// Classifies a qualified name such as `numpy.exp` or `math.atan2`.
pub fn classify(q: &str) -> NpName {
    if let Some(n) = q.strip_prefix("numpy.") {
        return classify_str(n);
    }
    if let Some(n) = q.strip_prefix("math.") {
        if let Some((_, np)) = MATH_FUNCS.iter().find(|(m, _)| *m == n) {
            return NpName::Ufunc1(np);
        }
        return match n {
            "atan2" => NpName::Ufunc2("arctan2"),
            "pow" => NpName::Ufunc2("power"),
            "hypot" => NpName::Ufunc2("hypot"),
            "pi" => NpName::Const("pi"),
            "e" => NpName::Const("e"),
            "inf" => NpName::Const("inf"),
            "nan" => NpName::Const("nan"),
            _ => NpName::Unknown,
        };
    }
    NpName::Unknown
}

/// Classifies a NumPy attribute name (without the `numpy.` prefix).
pub fn classify_str(n: &str) -> NpName {
    if let Some(x) = find(UFUNC1, n) {
        return NpName::Ufunc1(x);
    }
    if let Some(x) = find(UFUNC2, n) {
        return NpName::Ufunc2(x);
    }
    if let Some(x) = find(REDUCTIONS, n) {
        return NpName::Reduction(x);
    }
    if let Some(x) = find(PRODUCTS, n) {
        return NpName::Product(x);
    }
    if let Some(x) = find(CREATION, n) {
        return NpName::Creation(x);
    }
    if let Some(x) = find(CONSTS, n) {
        return NpName::Const(x);
    }
    if let Some(t) = dtype(n) {
        return NpName::Cast(t);
    }
    match n {
        "where" => NpName::Where,
        "clip" => NpName::Clip,
        "transpose" => NpName::Transpose,
        "flip" => NpName::Flip,
        "reshape" => NpName::Reshape,
        "ravel" => NpName::Ravel,
        "einsum" => NpName::Einsum,
        "std" => NpName::Moment(true),
        "var" => NpName::Moment(false),
        "cumsum" => NpName::Scan(false),
        "cumprod" => NpName::Scan(true),
        "diff" => NpName::Diff,
        "roll" => NpName::Roll,
        "concatenate" => NpName::Join("concatenate"),
        "stack" => NpName::Join("stack"),
        "hstack" => NpName::Join("hstack"),
        "vstack" => NpName::Join("vstack"),
        "arange" => NpName::Arange,
        "linspace" => NpName::Linspace,
        "triu" => NpName::Tri(true),
        "tril" => NpName::Tri(false),
        "linalg.norm" => NpName::Norm,
        "linalg.solve" => NpName::Linalg("solve"),
        "linalg.cholesky" => NpName::Linalg("cholesky"),
        "linalg.inv" => NpName::Linalg("inv"),
        "linalg.det" => NpName::Linalg("det"),
        _ => NpName::Unknown,
    }
}

/// The intrinsic of a one-argument ufunc that maps to one IR intrinsic.
pub fn intrinsic1(n: &str) -> Option<Intrinsic> {
    Some(match n {
        "exp" => Intrinsic::Exp,
        "log" => Intrinsic::Log,
        "sin" => Intrinsic::Sin,
        "cos" => Intrinsic::Cos,
        "tan" => Intrinsic::Tan,
        "tanh" => Intrinsic::Tanh,
        "sinh" => Intrinsic::Sinh,
        "cosh" => Intrinsic::Cosh,
        "arcsin" => Intrinsic::Arcsin,
        "arccos" => Intrinsic::Arccos,
        "arctan" => Intrinsic::Arctan,
        "sqrt" => Intrinsic::Sqrt,
        "abs" | "absolute" | "fabs" => Intrinsic::Abs,
        "floor" => Intrinsic::Floor,
        "ceil" => Intrinsic::Ceil,
        _ => return None,
    })
}

/// A comma-separated list of what is supported, for diagnostics.
pub fn supported_list() -> String {
    let mut all: Vec<String> = Vec::new();
    for l in [UFUNC1, UFUNC2, REDUCTIONS, PRODUCTS, CREATION] {
        all.extend(l.iter().map(|n| format!("np.{n}")));
    }
    all.extend(
        [
            "np.std",
            "np.var",
            "np.where",
            "np.clip",
            "np.transpose",
            "np.flip",
            "np.reshape",
            "np.ravel",
            "np.cumsum",
            "np.cumprod",
            "np.diff",
            "np.roll",
            "np.concatenate",
            "np.stack",
            "np.hstack",
            "np.vstack",
            "np.arange",
            "np.linspace",
            "np.triu",
            "np.tril",
            "np.linalg.norm",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    all.join(", ")
}

/// The qualified name (`numpy.exp`, `math.sqrt`) of a dotted expression rooted at an
/// imported module or a name imported from one. The caller checks local shadowing.
pub fn resolve(m: &ModuleAst, e: &Ex) -> Option<String> {
    let parts = e.dotted()?;
    let first = parts.first()?;
    let module = match m.import(first) {
        Some(q) => q.to_string(),
        None if first == "np" || first == "numpy" => "numpy".to_string(),
        None if first == "math" => "math".to_string(),
        None if parts.len() == 1 && m.import("*") == Some("numpy") => {
            if classify_str(first) == NpName::Unknown {
                return None;
            }
            return Some(format!("numpy.{first}"));
        }
        None => return None,
    };
    if !(module == "numpy" || module == "math" || module.starts_with("numpy.") || module.starts_with("math.")) {
        return None;
    }
    let mut q = module;
    for p in &parts[1..] {
        q.push('.');
        q.push_str(p);
    }
    Some(q)
}
