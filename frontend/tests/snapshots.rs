//! Snapshot tests of the printed IR (`adjc_ir::print`) for the examples and for small
//! kernels exercising one construct each. Every snapshot was reviewed by hand.

mod common;
use common::*;

fn example(name: &str) -> String {
    let path = format!("{}/../examples/python/{name}.py", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut m = lower(&src);
    m.file = format!("examples/python/{name}.py");
    adjc_ir::print::print_module(&m)
}

macro_rules! example_snapshot {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            insta::assert_snapshot!(concat!("example_", stringify!($name)), example(stringify!($name)));
        }
    )*};
}

example_snapshot!(
    jacobi_1d,
    elementwise,
    arc_distance,
    stencil_1d,
    stencil_2d,
    reductions,
    softmax,
    go_fast,
    bias_add,
    tuple_return,
    with_helper,
    doitgen,
    correlation,
    durbin,
    if_on_data,
    select,
    finite_volume,
    fancy_indexing,
    newton,
    bisection,
    early_exit
);

#[test]
fn overlapping_assignments_use_temporaries() {
    insta::assert_snapshot!(ir("
def overlap(A, B):
    A[1:] = A[:-1] * 2
    B[:] = B[::-1]
    B[:] = B * 2
"));
}

#[test]
fn strided_and_negative_step_slices() {
    insta::assert_snapshot!(ir("
def strides(x: 'float64[N]', y: 'float64[N]'):
    y[::2] = x[::2] + 1.0
    y[1::2] = x[-1:0:-2]
"));
}

#[test]
fn loops_with_dependent_bounds_and_prefix_dots() {
    insta::assert_snapshot!(ir("
def trisolv(L, x, b):
    N = x.shape[0]
    for i in range(N):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
"));
}

#[test]
fn backward_loop_if_else_and_scalar_widening() {
    insta::assert_snapshot!(ir("
def backward(x, N: int):
    acc = 0
    for i in range(N - 1, -1, -1):
        if x[i] > 0.0:
            acc += x[i]
        else:
            acc = acc * 0.5
    return acc
"));
}

#[test]
fn helper_returning_a_tuple_and_mutating_its_argument() {
    insta::assert_snapshot!(ir("
import numpy as np

def normalise(v):
    s = np.sum(v)
    v[:] /= s
    return s, v.max()

def entry(a):
    total, top = normalise(a)
    return total * top
"));
}

#[test]
fn reductions_inside_expressions_are_computed_first() {
    insta::assert_snapshot!(ir("
import numpy as np

def center(X: 'float64[N, M]'):
    X[:] = X - np.mean(X, axis=0) + np.max(X)
"));
}

#[test]
fn matrix_products_become_library_calls() {
    insta::assert_snapshot!(ir("
import numpy as np

def gemm(alpha: float, beta: float, C: 'float64[NI, NJ]', A: 'float64[NI, NK]', B: 'float64[NK, NJ]'):
    C[:] = alpha * A @ B + beta * C
"));
}

#[test]
fn float32_kernels_stay_float32() {
    insta::assert_snapshot!(ir("
import numpy as np

def relu32(x: 'float32[N]', alpha: float):
    return np.maximum(x * alpha, 0.0) + 1
"));
}

#[test]
fn masks_where_and_module_constants() {
    insta::assert_snapshot!(ir("
import numpy
from numpy import where

EPS = 0.1
SCALE = 2

def clean(s, t):
    s[s <= EPS] = 1.0
    t[:] = where(t > 0, t, numpy.exp(t)) * SCALE
"));
}

#[test]
fn local_arrays_and_int_locals_in_shapes() {
    insta::assert_snapshot!(ir("
import numpy as np

def locals_(A: 'float64[N]'):
    n = A.shape[0] - 2
    tmp = np.zeros((n, 2), dtype=np.float32)
    tmp[:, 0] = A[1:-1]
    out = np.empty_like(A)
    out[:] = 0.0
    out[1:-1] = tmp[:, 0] * 2
    return out
"));
}

#[test]
fn arrays_bound_in_both_branches_share_one_allocation() {
    insta::assert_snapshot!(ir("
def pick(A: 'float64[N]', c: float):
    if c > 0:
        x = A * 2
    else:
        x = A * 3
    return x + 1
"));
}

#[test]
fn loop_dependent_temporaries_use_parameter_bounds() {
    insta::assert_snapshot!(ir("
import numpy as np

def cov(M: int, float_n: float, data: 'float64[N, M]'):
    c = np.zeros((M, M))
    for i in range(M):
        c[i:M, i] = c[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
    return c
"));
}
