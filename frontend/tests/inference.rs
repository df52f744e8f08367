//! Parameter types: argument specs, annotations and inference, and the signature order.

mod common;
use adjc_ir::{print, Intent, Scalar, Type, VarRole};
use common::*;

fn signature(src: &str, opts: &adjc_frontend::PythonOptions) -> (String, Vec<String>) {
    let m = lower_with(src, opts);
    let f = &m.functions[0];
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            let v = f.var(p.var);
            format!("{}: {} {}", v.name, print::type_str(f, &v.ty), p.intent.name())
        })
        .collect();
    (params.join(", "), f.notes.clone())
}

#[test]
fn unannotated_kernel_is_inferred_from_use() {
    let src = "
def kernel(TSTEPS, alpha, A, B):
    N, M = A.shape
    for t in range(TSTEPS):
        B[1:-1, 1:-1] = alpha * A[1:-1, 1:-1]
";
    let (sig, notes) = signature(src, &Default::default());
    assert_eq!(sig, "N: i64 in, M: i64 in, TSTEPS: i64 in, alpha: f64 in, A: f64[N, M] in, B: f64[N, M] inout");
    assert_eq!(
        notes,
        vec![
            "inferred TSTEPS: i64 (used as a range bound)",
            "inferred alpha: f64 (used in arithmetic)",
            "inferred A: f64[N, M] (`.shape` unpacked into 2 names; extents from `N, M = A.shape`)",
            "inferred B: f64[N, M] (subscripted with 2 indices)",
        ]
    );
}

#[test]
fn extents_are_named_by_shape_indexing_or_invented() {
    let src = "
def k(x, y):
    n = x.shape[0]
    for i in range(n):
        y[i, 0] = x[i]
";
    let (sig, notes) = signature(src, &Default::default());
    assert_eq!(sig, "n: i64 in, y_n0: i64 in, y_n1: i64 in, x: f64[n] in, y: f64[y_n0, y_n1] inout");
    assert!(notes[0].contains("extents from `n = x.shape[0]`"), "{notes:?}");
}

#[test]
fn broadcasting_unifies_inferred_extents() {
    let src = "
def k(a, b, c):
    b[1:-1] = a[:-2] + a[2:]
    c[:] = b * 2
";
    let (sig, _) = signature(src, &Default::default());
    assert_eq!(sig, "a_n0: i64 in, a: f64[a_n0] in, b: f64[a_n0] inout, c: f64[a_n0] inout");
}

#[test]
fn specs_take_precedence_over_annotations_and_inference() {
    let src = "
def k(A: 'float64[N]', B, x: float, n):
    B[:n] = A[:n] * x
";
    let opts = specs(&["A: float32[M]", "B: float32[M]", "n: int"]);
    let (sig, notes) = signature(src, &opts);
    assert_eq!(sig, "M: i64 in, A: f32[M] in, B: f32[M] inout, x: f64 in, n: i64 in");
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn spec_extents_may_be_expressions_constants_and_int_parameters() {
    let src = "
def k(B, x, I: int, J: int):
    B[2:-2, 2:-2, 0] = x[0, 0, 0, 0]
";
    let opts = specs(&["B: float64[I + 4, J + 4, K]", "x: float32[5, 5, 1, 6]"]);
    let (sig, _) = signature(src, &opts);
    assert_eq!(sig, "K: i64 in, B: f64[I + 4, J + 4, K] inout, x: f32[5, 5, 1, 6] in, I: i64 in, J: i64 in");
}

#[test]
fn annotations_of_every_supported_form() {
    let src = "
import numpy as np
def k(a: np.float64, b: float, c: int, d: 'float64[N, M]', e: np.float32, f: bool):
    d[0, 0] = a + b + c
";
    let m = lower(src);
    let f = &m.functions[0];
    let ty = |name: &str| f.vars.iter().find(|v| v.name == name).map(|v| v.ty.clone()).unwrap();
    assert_eq!(ty("a"), Type::Scalar(Scalar::F64));
    assert_eq!(ty("b"), Type::Scalar(Scalar::F64));
    assert_eq!(ty("c"), Type::Scalar(Scalar::I64));
    assert_eq!(ty("e"), Type::Scalar(Scalar::F32));
    assert_eq!(ty("f"), Type::Scalar(Scalar::Bool));
    assert_eq!(print::type_str(f, &ty("d")), "f64[N, M]");
}

#[test]
fn inference_follows_helper_functions() {
    let src = "
def smooth(u, v):
    u[1:-1, 1:-1] = 0.5 * v[1:-1, 1:-1]

def k(nt, a, b):
    for n in range(nt):
        smooth(a, b)
";
    let (sig, _) = signature(src, &Default::default());
    assert_eq!(sig, "a_n0: i64 in, a_n1: i64 in, nt: i64 in, a: f64[a_n0, a_n1] inout, b: f64[a_n0, a_n1] in");
}

#[test]
fn rank_from_whole_array_assignment_and_peers() {
    let src = "
import numpy as np
def k(A, C, D):
    n, m = A.shape
    C[:] = np.exp(A)
    D[:] = C.T @ A
";
    let (sig, notes) = signature(src, &Default::default());
    assert_eq!(sig, "n: i64 in, m: i64 in, A: f64[n, m] in, C: f64[n, m] inout, D: f64[m, m] inout");
    assert!(notes[1].contains("assigned a 2-dimensional value"), "{notes:?}");
}

#[test]
fn sizes_come_first_in_order_of_appearance_and_returns_last() {
    let src = "
def k(x: 'float64[N]', W: 'float64[M, N]'):
    return W @ x, x.sum()
";
    let m = lower(src);
    let f = &m.functions[0];
    let names: Vec<(&str, Intent, &VarRole)> =
        f.params.iter().map(|p| (f.var(p.var).name.as_str(), p.intent, &f.var(p.var).role)).collect();
    assert_eq!(
        names,
        vec![
            ("N", Intent::In, &VarRole::Size),
            ("M", Intent::In, &VarRole::Size),
            ("x", Intent::In, &VarRole::Param),
            ("W", Intent::In, &VarRole::Param),
            ("ret0", Intent::Out, &VarRole::Return),
            ("ret1", Intent::Out, &VarRole::Return),
        ]
    );
    assert_eq!(f.param(f.params[0].var).map(|p| p.doc.as_str()), Some("extent of axis 0 of `x`"));
}

#[test]
fn scalar_locals_are_typed_from_their_values() {
    let src = "
def k(x):
    n = 0
    flag = x[0] > 1.0
    s = 0
    for i in range(3):
        s += x[i]
        n += 1
    return s, n, flag
";
    let m = lower(src);
    let f = &m.functions[0];
    let ty = |name: &str| f.vars.iter().find(|v| v.name == name).map(|v| v.ty.elem()).unwrap();
    assert_eq!(ty("n"), Scalar::I64);
    assert_eq!(ty("flag"), Scalar::Bool);
    assert_eq!(ty("s"), Scalar::F64);
}

#[test]
fn reassigned_scalar_parameters_are_copied() {
    let src = "
def k(alpha, x):
    alpha = alpha * 2
    x[:] = alpha
";
    let text = ir(src);
    assert!(text.contains("alpha_1 = alpha"), "{text}");
    assert!(text.contains("x[i] = alpha_1"), "{text}");
}

#[test]
fn entry_selection() {
    let src = "def a(x):\n    x[0] = 1.0\n\ndef b(y):\n    y[0] = 2.0\n";
    assert_eq!(lower(src).functions[0].name, "b");
    let opts = adjc_frontend::PythonOptions { entry: Some("a".into()), arg_specs: vec![] };
    assert_eq!(lower_with(src, &opts).functions[0].name, "a");
}

#[test]
fn extents_named_in_a_tuple_of_shape_items_survive_unification() {
    // hdiff: `K` names the third extent of `out_field`; unifying it with the third extent
    // of `in_field` must keep the source's name, not the invented one.
    let src = "
def k(in_field, out_field):
    I, J, K = out_field.shape[0], out_field.shape[1], out_field.shape[2]
    out_field[:, :, :] = in_field[1:I + 1, 1:J + 1, :]
";
    let (sig, _) = signature(src, &Default::default());
    assert_eq!(
        sig,
        "in_field_n0: i64 in, in_field_n1: i64 in, I: i64 in, J: i64 in, K: i64 in, \
         in_field: f64[in_field_n0, in_field_n1, K] in, out_field: f64[I, J, K] inout"
    );
}

#[test]
fn reshape_and_batched_products_give_ranks() {
    // doitgen: `A[:] = <reshape to 3 extents>` makes A 3-D; C4, multiplied with a stack
    // of matrices, is a matrix; the reshape extents are integers.
    let src = "
import numpy as np

def kernel(NR, NQ, NP, A, C4):
    A[:] = np.reshape(np.reshape(A, (NR, NQ, 1, NP)) @ C4, (NR, NQ, NP))
";
    let (sig, notes) = signature(src, &Default::default());
    assert_eq!(sig, "NR: i64 in, NQ: i64 in, NP: i64 in, A: f64[NR, NQ, NP] inout, C4: f64[NP, NP] in");
    assert!(
        notes.iter().any(|n| n.contains("C4: f64[NP, NP] (a matrix multiplied with a stack of matrices")),
        "{notes:?}"
    );
    let src = "
def kernel(n, m, x, y):
    y[:, :] = x[:, :].reshape(n, m) * 2.0
";
    let (sig, _) = signature(src, &Default::default());
    assert_eq!(sig, "n: i64 in, m: i64 in, x: f64[n, m] in, y: f64[n, m] inout");
}

/// A scalar whose first assignment is narrower than a later one gets the wider type for the
/// whole function (as a C local has one type): a plain assignment, a `+=` and an early
/// `return` each widen it, and the function lowers without error.
#[test]
fn scalars_widen_to_their_widest_assignment() {
    let src = "
def widen(x, N: int):
    k = 0
    s = 0
    for i in range(N):
        k = x[i] * 2.0
        s += x[i]
    if N > 3:
        return 1
    return s + k
";
    let m = lower(src);
    let f = &m.functions[0];
    let ty_of = |name: &str| {
        let v = f.vars.iter().find(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}"));
        v.ty.clone()
    };
    assert_eq!(ty_of("k"), Type::Scalar(Scalar::F64));
    assert_eq!(ty_of("s"), Type::Scalar(Scalar::F64));
    let ret = f.vars.iter().find(|v| v.role == VarRole::Return).expect("a returned scalar");
    assert_eq!(ret.ty, Type::Scalar(Scalar::F64));
}
