//! Edge cases of the NumPy functions of issue 15 (cumulative sums and products, joins,
//! shifts, differences, triangles, evenly spaced values, norms): each small kernel goes
//! through `adjc check`, so the forward is compared with NumPy (when `ADJC_PYTHON` has it)
//! and the adjoint with finite differences; the examples in `examples/python/` cover the
//! common forms, these the argument variants (negative shifts, axes, offsets, endpoints).

mod common;

use common::{adjc, scratch, text};

fn check(name: &str, src: &str, sizes: &str) {
    let dir = scratch(&format!("npfn-{name}"));
    let path = dir.join(format!("{name}.py"));
    std::fs::write(&path, src).unwrap();
    let p = path.to_str().unwrap();
    let out_dir = dir.join("out");
    let o = out_dir.to_str().unwrap();
    let out = adjc(&["check", p, "--sizes", sizes, "-o", o]);
    let t = text(&out);
    assert!(out.status.success(), "{name}:\n{t}");
    assert!(t.contains("check passed"), "{name}:\n{t}");
    // With a Python that has NumPy, the forward must have been compared with it.
    if std::env::var_os("ADJC_PYTHON").is_some() || std::env::var("ADJC_REQUIRE_NUMPY").is_ok_and(|v| v == "1") {
        assert!(t.contains("forward vs NumPy: ret") && !t.contains("NumPy: skipped"), "{name}:\n{t}");
    }
}

#[test]
fn roll_with_negative_shifts_shifts_larger_than_constant_extents_and_axes() {
    check(
        "roll_edges",
        r#"import numpy as np

def roll_edges(u: "float64[N]", A: "float64[5, M]"):
    a = np.roll(u, -1)
    b = np.roll(u, -4)
    c = np.roll(A, 7, axis=0)
    d = np.roll(A, -1, axis=-1)
    e = np.roll(A, shift=-12, axis=0)
    return a * b, c * d, e
"#,
        "N=6,M=4",
    );
}

#[test]
fn diff_orders_and_axes() {
    check(
        "diff_edges",
        r#"import numpy as np

def diff_edges(u: "float64[N]", A: "float64[N, M]"):
    a = np.diff(u, n=3)
    b = np.diff(A, axis=0)
    c = np.diff(A, 2, -1)
    d = np.diff(u, n=0)
    return a * a, b * c[:-1, 0:1], d
"#,
        "N=7,M=5",
    );
}

#[test]
fn joins_along_every_axis() {
    check(
        "join_edges",
        r#"import numpy as np

def join_edges(A: "float64[N, M]", B: "float64[N, K]", C: "float64[N, M]"):
    a = np.concatenate([A, B], axis=1)
    b = np.concatenate((A, C, A * C), axis=-2)
    c = np.stack((A, C), axis=-1)
    d = np.stack([A, C, A])
    e = np.hstack((A, B))
    return a * a, b, c * c, d, e
"#,
        "N=3,M=4,K=2",
    );
}

#[test]
fn triangles_with_offsets_and_stacks() {
    check(
        "tri_edges",
        r#"import numpy as np

def tri_edges(A: "float64[N, M]", T: "float64[B, N, N]", k: int):
    a = np.triu(A, -1)
    b = np.tril(A, k=2)
    c = np.triu(T, k)
    d = np.tril(A, -k)
    return a * b, c, d
"#,
        "N=4,M=6,B=2,k=1",
    );
}

#[test]
fn sequences_with_and_without_endpoint() {
    check(
        "seq_edges",
        r#"import numpy as np

def seq_edges(u: "float64[N]", t0: float, t1: float):
    a = np.linspace(t0, t1, len(u), endpoint=False)
    b = np.linspace(t0, t1, num=len(u))
    c = np.linspace(0, 1, 1)
    d = np.arange(len(u), 0, -1)
    e = np.arange(0.5, 3.0, 0.5)
    f = np.arange(2, len(u) + 2, dtype=np.float64)
    return u * a + u * b * d + f * u, c * t0, e * t1
"#,
        "N=6",
    );
}

#[test]
fn scans_along_axes_and_of_flattened_arrays() {
    check(
        "scan_edges",
        r#"import numpy as np

def scan_edges(A: "float64[N, M]", T: "float64[B, N, M]"):
    a = np.cumsum(A)
    b = np.cumsum(T, axis=1)
    c = np.cumprod(A, axis=-1)
    d = A.cumprod()
    e = np.cumsum(np.cumsum(A, axis=0), axis=1)
    return a * a, b * b, c, d, e
"#,
        "N=3,M=4,B=2",
    );
}

#[test]
fn norms_of_vectors_matrices_and_axes() {
    check(
        "norm_edges",
        r#"import numpy as np

def norm_edges(A: "float64[N, M]", T: "float64[B, N, M]", v: "float64[N]"):
    a = np.linalg.norm(A, 'fro')
    b = np.linalg.norm(A, axis=0)
    c = np.linalg.norm(T, axis=(1, 2))
    d = np.linalg.norm(A, ord=1, axis=1)
    e = np.linalg.norm(v, 2)
    f = np.linalg.norm(T, axis=-1, keepdims=True)
    return a * b, c, d * e, f
"#,
        "N=3,M=4,B=2",
    );
}

/// The reversed running sum is one loop over the axis, not the closed form's double loop.
#[test]
fn cumsum_adjoint_is_one_reversed_loop() {
    let dir = scratch("npfn-cumsum-c");
    let out = adjc(&["transpile", "examples/python/cumulative.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("cumulative.c")).unwrap();
    let adj = &c[c.find("===== reverse sweep =====").unwrap()..];
    let block = &adj[adj.find("x = np.cumsum(increments) */").unwrap()..];
    let block = &block[..block.find("\n\n").unwrap()];
    assert_eq!(block.matches("for (").count(), 1, "{block}");
    assert!(block.contains("for (int64_t i = N - 2; i >= 1; i--)"), "{block}");
    assert!(block.contains("x_b[i - 1] += x_b_t;"), "{block}");
}

/// Operands that are expressions, strided views and transposes; a Cholesky factor of a
/// matrix whose upper triangle is garbage (NumPy reads the lower triangle only: the
/// gradient with respect to the upper triangle is zero, and the FD check agrees).
#[test]
fn linalg_operands_of_every_kind() {
    check(
        "linalg_edges",
        r#"import numpy as np

def linalg_edges(A: "float64[N, N]", G: "float64[N, N]", b: "float64[M]", B: "float64[K, N]"):
    n = A.shape[0]
    S = A @ A.T + n * np.eye(n)
    L = np.linalg.cholesky(S + np.triu(G, 1))
    x = np.linalg.solve(2.0 * A + n * np.eye(n), b[::2])
    Y = np.linalg.solve(L, B.T)
    out = np.zeros((n, 2 * n))
    out[:, ::2] = np.linalg.cholesky(S)
    return L, x, Y, out
"#,
        "N=4,M=8,K=3",
    );
}
