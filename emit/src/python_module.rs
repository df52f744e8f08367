//! `<stem>_adjc.py`: a Python module (ctypes and NumPy only) that calls the forward function
//! and the adjoint from a shared library built from the generated C (`adjc build --python`).
//!
//! For each C function the module has a function of the same name taking NumPy arrays: the
//! sizes that are an array's extent are read from the arrays' shapes (not passed), every
//! array is checked for dtype, shape (the source's formulas of the sizes), contiguity and
//! order (Fortran order for Fortran kernels) and, when the function writes it, for being
//! writable; scalars the function writes are returned. A non-zero status raises
//! `AdjcError` with the code's meaning. ctypes releases the GIL during the call.
//!
//! On top, for the loss `L = Σ ⟨seed_y, y⟩` over the outputs y: `value_and_grad(...,
//! seeds=...)` returns `(L, {x: ∂L/∂x})` without modifying the arguments (the form
//! `scipy.optimize.minimize(..., jac=True)` takes), and `grad` only the gradients.

use adjc_ir::{
    BinOp, Expr, ExprKind, Function, Intent, Intrinsic, Layout, Literal, Scalar, Type, UnOp, VarId, VarRole,
};
use minijinja::{context, Value};

use crate::names;
use crate::templates::environment;
use crate::Diagnostic;

struct PyFunction {
    /// The C (and Python) name.
    name: String,
    /// Parameters in C order.
    params: Vec<PyParam>,
    /// The Python function's arguments (the C parameters but the inferred sizes).
    args: Vec<String>,
    doc: Vec<String>,
}

struct PyParam {
    /// Python name (a C name that is a Python keyword gets `_`).
    name: String,
    /// The C name, for messages.
    c_name: String,
    /// `size` (inferred from `from_array`'s axis `from_axis`, or passed when none),
    /// `value`, `scalar_out` or `array`.
    kind: &'static str,
    dtype: &'static str,
    ctype: &'static str,
    from_array: Option<String>,
    from_axis: usize,
    /// Arrays: the extents as Python expressions over the sizes; the order; whether written.
    shape: Vec<String>,
    order: &'static str,
    writable: bool,
    /// An argument of the Python function: not a size read from a shape, not a scalar the
    /// function only writes.
    is_arg: bool,
}

struct Loss {
    /// The adjoint's name and the forward's.
    adjoint: String,
    forward: String,
    /// The forward's arguments (the Python names).
    args: Vec<String>,
    /// The outputs y with their seed: (y, y_b, y is a scalar, how y_b is passed).
    seeds: Vec<(String, String, bool, &'static str)>,
    /// The inputs x with their gradient: (x, x_b, how x_b is passed).
    grads: Vec<(String, String, &'static str)>,
    /// The adjoint's arguments, as expressions of `work` and `adjoints`.
    call: Vec<String>,
}

/// The module for `functions` (the forward function, then its adjoint), whose C names are
/// `c_names` (the header's), loading `lib<stem>_adjc.so` (or `.dylib`, `.dll`) next to it.
pub fn emit_python_module(
    functions: &[&Function],
    c_names: &[String],
    stem: &str,
    banner: &[String],
) -> Result<String, Diagnostic> {
    let mut fns = Vec::new();
    for (f, cname) in functions.iter().zip(c_names) {
        fns.push(py_function(f, cname)?);
    }
    let loss = match (functions, fns.as_slice()) {
        ([_, adj], [pf, pa]) => Some(loss(adj, pf, pa).value()),
        _ => None,
    };
    let functions: Vec<Value> = fns.into_iter().map(PyFunction::value).collect();
    let env = environment()?;
    let ctx = context! { banner => banner.to_vec(), stem => stem, library => format!("{stem}_adjc"), functions => functions, loss => loss };
    env.get_template("python_module.py.j2")
        .and_then(|t| t.render(&ctx))
        .map_err(|e| Diagnostic::internal(adjc_ir::Span::NONE, format!("the Python template did not render: {e}")))
}

fn py_function(f: &Function, cname: &str) -> Result<PyFunction, Diagnostic> {
    let c_vars = names::assign(f).vars;
    let py_name = |v: VarId| python_ident(&c_vars[v.index()]);
    let mut params = Vec::new();
    for p in &f.params {
        let var = f.var(p.var);
        let (dtype, ctype) = dtypes(var.ty.elem());
        let mut param = PyParam {
            name: py_name(p.var),
            c_name: c_vars[p.var.index()].clone(),
            kind: "value",
            dtype,
            ctype,
            from_array: None,
            from_axis: 0,
            shape: Vec::new(),
            order: "C",
            writable: p.intent != Intent::In,
            is_arg: true,
        };
        match &var.ty {
            Type::Array { dims, layout, .. } => {
                param.kind = "array";
                param.order = if *layout == Layout::ColMajor { "F" } else { "C" };
                for d in dims {
                    let text = python_expr(f, &d.extent, &py_name).ok_or_else(|| {
                        Diagnostic::error(var.span, format!("an extent of `{}` has no Python formula", var.name))
                            .with_help("call the C library directly, or give the array a shape of sizes and + - * //")
                    })?;
                    param.shape.push(text);
                }
            }
            Type::Scalar(_) if p.intent != Intent::In => {
                param.kind = "scalar_out";
                param.is_arg = p.intent == Intent::InOut;
            }
            Type::Scalar(_) => {
                if var.role == VarRole::Size || var.ty == Type::Scalar(Scalar::I64) {
                    // A size read from the first array whose axis it is the extent of.
                    let source = f.params.iter().find_map(|q| {
                        f.var(q.var)
                            .ty
                            .dims()
                            .iter()
                            .position(|d| matches!(d.extent.kind, ExprKind::Var(v) if v == p.var))
                            .map(|axis| (q.var, axis))
                    });
                    if let Some((array, axis)) = source {
                        param.kind = "size";
                        param.is_arg = false;
                        param.from_array = Some(py_name(array));
                        param.from_axis = axis;
                    }
                }
            }
        }
        params.push(param);
    }
    let args = params.iter().filter(|p| p.is_arg).map(|p| p.name.clone()).collect();
    let doc = docstring(f, &params);
    Ok(PyFunction { name: cname.to_string(), params, args, doc })
}

/// The docstring: what the function computes, and each argument.
fn docstring(f: &Function, params: &[PyParam]) -> Vec<String> {
    let mut out = Vec::new();
    for note in f.notes.iter().filter(|n| n.starts_with("adjoint")) {
        out.extend(note.lines().map(str::to_string));
    }
    for (p, fp) in params.iter().zip(&f.params) {
        let what = match p.kind {
            "size" => continue,
            "array" => format!(
                "{}: {}[{}] ({}{})",
                p.name,
                p.dtype,
                p.shape.join(", "),
                fp.intent.name(),
                if p.order == "F" { ", Fortran order" } else { "" }
            ),
            "scalar_out" => format!("{}: {} ({}; the value on exit is returned)", p.name, p.dtype, fp.intent.name()),
            _ => format!("{}: {}", p.name, p.dtype),
        };
        out.push(what);
        out.extend(fp.doc.lines().filter(|l| !l.trim().is_empty()).map(|l| format!("    {}", l.trim())));
    }
    out
}

impl PyFunction {
    fn value(self) -> Value {
        let params: Vec<Value> = self.params.into_iter().map(PyParam::value).collect();
        context! { name => self.name, params => params, args => self.args, doc => self.doc }
    }
}

impl PyParam {
    fn value(self) -> Value {
        context! {
            name => self.name, c_name => self.c_name, kind => self.kind, dtype => self.dtype,
            ctype => self.ctype, from_array => self.from_array, from_axis => self.from_axis,
            shape => self.shape, order => self.order, writable => self.writable, is_arg => self.is_arg,
        }
    }
}

impl Loss {
    fn value(self) -> Value {
        let seeds: Vec<Value> = self
            .seeds
            .into_iter()
            .map(|(y, yb, scalar, mode)| context! { y => y, yb => yb, scalar => scalar, mode => mode })
            .collect();
        let grads: Vec<Value> =
            self.grads.into_iter().map(|(x, xb, mode)| context! { x => x, xb => xb, mode => mode }).collect();
        context! {
            adjoint => self.adjoint, forward => self.forward, args => self.args,
            seeds => seeds, grads => grads, call => self.call,
        }
    }
}

/// How an adjoint parameter is passed: `array`, `value` (a seed by value, `ret_b`) or `ref`
/// (a scalar written through a pointer, returned by the Python function).
fn mode(p: &PyParam) -> &'static str {
    match p.kind {
        "array" => "array",
        "scalar_out" => "ref",
        _ => "value",
    }
}

fn loss(adj: &Function, pf: &PyFunction, pa: &PyFunction) -> Loss {
    let mut seeds = Vec::new();
    let mut grads = Vec::new();
    let mut call = Vec::new();
    for (p, pp) in adj.params.iter().zip(&pa.params) {
        let VarRole::Adjoint(of) = adj.var(p.var).role else {
            if pp.is_arg {
                call.push(format!("work[{:?}]", pp.name));
            }
            continue;
        };
        call.push(format!("adjoints[{:?}]", pp.name));
        // The primal parameter of the variable.
        let Some((q, qq)) = adj.params.iter().zip(&pa.params).find(|(q, _)| q.var == of) else { continue };
        if matches!(q.intent, Intent::Out | Intent::InOut) {
            seeds.push((qq.name.clone(), pp.name.clone(), qq.kind != "array", mode(pp)));
        }
        if matches!(q.intent, Intent::In | Intent::InOut) {
            grads.push((qq.name.clone(), pp.name.clone(), mode(pp)));
        }
    }
    Loss { adjoint: pa.name.clone(), forward: pf.name.clone(), args: pf.args.clone(), seeds, grads, call }
}

fn dtypes(s: Scalar) -> (&'static str, &'static str) {
    match s {
        Scalar::Bool => ("bool_", "ctypes.c_bool"),
        Scalar::I64 => ("int64", "ctypes.c_int64"),
        Scalar::F32 => ("float32", "ctypes.c_float"),
        Scalar::F64 => ("float64", "ctypes.c_double"),
    }
}

/// An integer formula of the sizes in Python (`//` and `%` are the IR's, Python's own).
fn python_expr(f: &Function, e: &Expr, name: &dyn Fn(VarId) -> String) -> Option<String> {
    Some(match &e.kind {
        ExprKind::Const(Literal::Int(v)) => v.to_string(),
        ExprKind::Var(v) if f.params.iter().any(|p| p.var == *v) => name(*v),
        ExprKind::Unary(UnOp::Neg, a) => format!("(-{})", python_expr(f, a, name)?),
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (python_expr(f, a, name)?, python_expr(f, b, name)?);
            match op {
                BinOp::Add => format!("({a} + {b})"),
                BinOp::Sub => format!("({a} - {b})"),
                BinOp::Mul => format!("({a} * {b})"),
                // C's truncating division.
                BinOp::Div => format!("_cdiv({a}, {b})"),
                BinOp::FloorDiv => format!("({a} // {b})"),
                BinOp::Mod => format!("({a} % {b})"),
                _ => return None,
            }
        }
        ExprKind::Call(Intrinsic::Max, args) if args.len() == 2 => {
            format!("max({}, {})", python_expr(f, &args[0], name)?, python_expr(f, &args[1], name)?)
        }
        ExprKind::Call(Intrinsic::Min, args) if args.len() == 2 => {
            format!("min({}, {})", python_expr(f, &args[0], name)?, python_expr(f, &args[1], name)?)
        }
        _ => return None,
    })
}

const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// A C name as a Python identifier; names the module uses itself get `_` too.
fn python_ident(c: &str) -> String {
    if PYTHON_KEYWORDS.contains(&c) || ["np", "ctypes", "seeds", "work", "adjoints"].contains(&c) {
        format!("{c}_")
    } else {
        c.to_string()
    }
}
