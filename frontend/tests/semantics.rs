//! Lowered kernels run in the reference interpreter give the values NumPy gives
//! (reference results computed by plain loops here).

mod common;
use common::*;

fn example(name: &str) -> String {
    let path = format!("{}/../examples/python/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn jacobi_1d_matches_reference() {
    let m = lower(&example("jacobi_1d.py"));
    let f = &m.functions[0];
    let n = 9;
    let a0 = data(n, 1);
    let b0 = data(n, 2);
    let out = run(
        f,
        &[
            ("A_n0", Data::i(n as i64)),
            ("TSTEPS", Data::i(5)),
            ("A", Data::arr(&[n], a0.clone())),
            ("B", Data::arr(&[n], b0.clone())),
        ],
    );
    let (mut a, mut b) = (a0, b0);
    for _ in 1..5 {
        for i in 1..n - 1 {
            b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
        }
        for i in 1..n - 1 {
            a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
        }
    }
    assert_close(&out["A"].floats(), &a);
    assert_close(&out["B"].floats(), &b);
}

#[test]
fn overlapping_slices_read_old_values() {
    let src = "def f(A, B):\n    A[1:] = A[:-1] * 2\n    B[:] = B[::-1]\n";
    let f = &lower(src).functions[0];
    let a0 = vec![1.0, 2.0, 3.0, 4.0];
    let b0 = vec![5.0, 6.0, 7.0];
    let out =
        run(f, &[("A_n0", Data::i(4)), ("B_n0", Data::i(3)), ("A", Data::arr(&[4], a0)), ("B", Data::arr(&[3], b0))]);
    assert_close(&out["A"].floats(), &[1.0, 2.0, 4.0, 6.0]);
    assert_close(&out["B"].floats(), &[7.0, 6.0, 5.0]);
}

#[test]
fn in_place_update_with_reduction_of_itself() {
    let src = "import numpy as np\ndef f(A):\n    A[:] = A / np.sum(A)\n    A[1:-1] += A[:-2]\n";
    let f = &lower(src).functions[0];
    let out = run(f, &[("A_n0", Data::i(4)), ("A", Data::arr(&[4], vec![1.0, 2.0, 3.0, 4.0]))]);
    let a = [0.1, 0.2, 0.3, 0.4];
    assert_close(&out["A"].floats(), &[a[0], a[1] + a[0], a[2] + a[1], a[3]]);
}

#[test]
fn stencil_2d_matches_reference() {
    let f = &lower(&example("stencil_2d.py")).functions[0];
    let (n, m) = (5, 6);
    let a = data(n * m, 3);
    let b = data(n * m, 4);
    let out = run(
        f,
        &[
            ("N", Data::i(n as i64)),
            ("M", Data::i(m as i64)),
            ("A", Data::arr(&[n, m], a.clone())),
            ("B", Data::arr(&[n, m], b.clone())),
            ("alpha", Data::f(0.1)),
        ],
    );
    let mut want = b;
    for i in 1..n - 1 {
        for j in 1..m - 1 {
            let c = a[i * m + j];
            want[i * m + j] =
                c + 0.1 * (a[(i - 1) * m + j] + a[(i + 1) * m + j] + a[i * m + j - 1] + a[i * m + j + 1] - 4.0 * c);
        }
    }
    assert_close(&out["B"].floats(), &want);
}

#[test]
fn reductions_example_matches_reference() {
    let f = &lower(&example("reductions.py")).functions[0];
    let (n, m) = (3, 4);
    let x = data(n * m, 5);
    let out = run(f, &[("n", Data::i(n as i64)), ("m", Data::i(m as i64)), ("X", Data::arr(&[n, m], x.clone()))]);
    let total: f64 = x.iter().sum();
    let row_sum: Vec<f64> = (0..n).map(|i| (0..m).map(|j| x[i * m + j]).sum::<f64>() / total).collect();
    let col_mean: Vec<f64> = (0..m).map(|j| (0..n).map(|i| x[i * m + j]).sum::<f64>() / n as f64).collect();
    let centered: Vec<f64> = (0..n * m).map(|k| x[k] - col_mean[k % m]).collect();
    let peak: Vec<f64> =
        (0..n).map(|i| (0..m).map(|j| centered[i * m + j].abs()).fold(f64::NEG_INFINITY, f64::max)).collect();
    let ret1: Vec<f64> = (0..n * m).map(|k| centered[k] / peak[k / m]).collect();
    assert_close(&out["ret0"].floats(), &row_sum);
    assert_close(&out["ret1"].floats(), &ret1);
}

#[test]
fn softmax_rows_sum_to_one() {
    let f = &lower(&example("softmax.py")).functions[0];
    let dims = [2, 1, 3, 3];
    let x = data(18, 6);
    let out = run(f, &[("N", Data::i(2)), ("H", Data::i(1)), ("SM", Data::i(3)), ("x", Data::arr(&dims, x.clone()))]);
    let r = out["ret"].floats();
    for row in 0..6 {
        let xs = &x[row * 3..row * 3 + 3];
        let mx = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = xs.iter().map(|v| (v - mx).exp()).collect();
        let s: f64 = e.iter().sum();
        for k in 0..3 {
            assert!((r[row * 3 + k] - e[k] / s).abs() < 1e-6, "{r:?}");
        }
    }
}

#[test]
fn go_fast_and_bias_add_match_reference() {
    let f = &lower(&example("go_fast.py")).functions[0];
    let a = data(9, 7);
    let out = run(f, &[("a_n0", Data::i(3)), ("a_n1", Data::i(3)), ("a", Data::arr(&[3, 3], a.clone()))]);
    let trace: f64 = (0..3).map(|i| a[i * 4].tanh()).sum();
    assert_close(&out["ret"].floats(), &a.iter().map(|v| v + trace).collect::<Vec<_>>());

    let f = &lower(&example("bias_add.py")).functions[0];
    let x = data(6, 8);
    let b = data(3, 9);
    let out = run(
        f,
        &[
            ("N", Data::i(2)),
            ("M", Data::i(3)),
            ("x", Data::arr(&[2, 3], x.clone())),
            ("b", Data::arr(&[3], b.clone())),
        ],
    );
    let want: Vec<f64> = (0..6).map(|k| (x[k] + b[k % 3]).max(0.0)).collect();
    assert_close(&out["ret"].floats(), &want);
}

#[test]
fn tuple_return_and_elementwise_match_reference() {
    let f = &lower(&example("tuple_return.py")).functions[0];
    let (n, m) = (4, 2);
    let d = data(n * m, 10);
    let out = run(f, &[("n", Data::i(n as i64)), ("m", Data::i(m as i64)), ("data", Data::arr(&[n, m], d.clone()))]);
    let mean: Vec<f64> = (0..m).map(|j| (0..n).map(|i| d[i * m + j]).sum::<f64>() / n as f64).collect();
    let std: Vec<f64> =
        (0..m).map(|j| ((0..n).map(|i| (d[i * m + j] - mean[j]).powi(2)).sum::<f64>() / n as f64).sqrt()).collect();
    assert_close(&out["ret0"].floats(), &mean);
    assert_close(&out["ret1"].floats(), &std);

    let f = &lower(&example("elementwise.py")).functions[0];
    let x = data(5, 11);
    let out = run(f, &[("N", Data::i(5)), ("x", Data::arr(&[5], x.clone()))]);
    let want: Vec<f64> = x.iter().map(|v| ((1.0 + v.exp()).ln() * (1.0 / (1.0 + (-v).exp()))).tanh()).collect();
    assert_close(&out["ret"].floats(), &want);
}

#[test]
fn arc_distance_matches_reference() {
    let f = &lower(&example("arc_distance.py")).functions[0];
    let n = 4;
    let (t1, p1, t2, p2) = (data(n, 12), data(n, 13), data(n, 14), data(n, 15));
    let out = run(
        f,
        &[
            ("N", Data::i(n as i64)),
            ("theta_1", Data::arr(&[n], t1.clone())),
            ("phi_1", Data::arr(&[n], p1.clone())),
            ("theta_2", Data::arr(&[n], t2.clone())),
            ("phi_2", Data::arr(&[n], p2.clone())),
        ],
    );
    let want: Vec<f64> = (0..n)
        .map(|i| {
            let t = ((t2[i] - t1[i]) / 2.0).sin().powf(2.0)
                + t1[i].cos() * t2[i].cos() * ((p2[i] - p1[i]) / 2.0).sin().powf(2.0);
            2.0 * t.sqrt().atan2((1.0 - t).sqrt())
        })
        .collect();
    assert_close(&out["ret"].floats(), &want);
}

#[test]
fn helpers_that_mutate_and_return_match_reference() {
    let f = &lower(&example("with_helper.py")).functions[0];
    let (n, m) = (5, 4);
    let u0 = data(n * m, 16);
    let out = run(
        f,
        &[
            ("u_n0", Data::i(n as i64)),
            ("u_n1", Data::i(m as i64)),
            ("nt", Data::i(2)),
            ("u", Data::arr(&[n, m], u0.clone())),
            ("dt", Data::f(0.5)),
        ],
    );
    let mut u = u0;
    for _ in 0..2 {
        let un = u.clone();
        for i in 1..n - 1 {
            for j in 1..m - 1 {
                let lap = un[(i - 1) * m + j] + un[(i + 1) * m + j] + un[i * m + j - 1] + un[i * m + j + 1]
                    - 4.0 * un[i * m + j];
                u[i * m + j] = un[i * m + j] + 0.1 * 0.5 * lap;
            }
        }
        for j in 0..m {
            u[j] = 0.0;
            u[(n - 1) * m + j] = 0.0;
        }
        for i in 0..n {
            u[i * m] = 0.0;
            u[i * m + m - 1] = 0.0;
        }
    }
    assert_close(&out["u"].floats(), &u);
}

#[test]
fn triangular_loops_with_prefix_dots() {
    // LU decomposition in place (no pivoting), as written in NumPy kernels.
    let src = "
def lu(A):
    N = A.shape[0]
    for i in range(N):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, N):
            A[i, j] -= A[i, :i] @ A[:i, j]
";
    let f = &lower(src).functions[0];
    let n = 4;
    let mut a: Vec<f64> = data(n * n, 17);
    for i in 0..n {
        a[i * n + i] += 8.0;
    }
    let out = run(f, &[("N", Data::i(n as i64)), ("A_n1", Data::i(n as i64)), ("A", Data::arr(&[n, n], a.clone()))]);
    for i in 0..n {
        for j in 0..i {
            let s: f64 = (0..j).map(|k| a[i * n + k] * a[k * n + j]).sum();
            a[i * n + j] -= s;
            a[i * n + j] /= a[j * n + j];
        }
        for j in i..n {
            let s: f64 = (0..i).map(|k| a[i * n + k] * a[k * n + j]).sum();
            a[i * n + j] -= s;
        }
    }
    assert_close(&out["A"].floats(), &a);
}

#[test]
fn negative_steps_strides_and_branches() {
    let src = "
import numpy as np
def f(x, y, N: int):
    acc = 0
    for i in range(N - 1, -1, -2):
        if x[i] > 0:
            acc += x[i]
        else:
            acc -= 1
    y[::2] = x[::2][::-1]
    y[1::2] = np.where(x[1::2] > 0.5, x[1::2], -1.0)
    return acc
";
    let f = &lower(src).functions[0];
    let x = vec![0.3, -1.0, 0.7, 2.0, -0.5, 1.5];
    let out = run(
        f,
        &[
            ("x_n0", Data::i(6)),
            ("N", Data::i(6)),
            ("x", Data::arr(&[6], x.clone())),
            ("y", Data::arr(&[6], vec![0.0; 6])),
        ],
    );
    // i = 5, 3, 1: x = 1.5, 2.0, -1.0
    assert_close(&out["ret"].floats(), &[1.5 + 2.0 - 1.0]);
    // x[::2] = [0.3, 0.7, -0.5] reversed; x[1::2] = [-1, 2, 1.5]
    assert_close(&out["y"].floats(), &[-0.5, -1.0, 0.7, 2.0, 0.3, 1.5]);
}

#[test]
fn masks_clip_outer_and_newaxis() {
    let src = "
import numpy as np
def f(s, a, b):
    s[s <= 0.1] = 1.0
    return np.clip(a[:, None] * b[None, :], -1.0, 1.0) + np.outer(a, b)
";
    let f = &lower(src).functions[0];
    let s = vec![0.05, 0.5, -1.0];
    let a = vec![1.0, 2.0];
    let b = vec![0.25, -3.0, 0.5];
    let out = run(
        f,
        &[
            ("s_n0", Data::i(3)),
            ("a_n0", Data::i(2)),
            ("b_n0", Data::i(3)),
            ("s", Data::arr(&[3], s)),
            ("a", Data::arr(&[2], a.clone())),
            ("b", Data::arr(&[3], b.clone())),
        ],
    );
    assert_close(&out["s"].floats(), &[1.0, 0.5, 1.0]);
    let want: Vec<f64> = (0..6).map(|k| (a[k / 3] * b[k % 3]).clamp(-1.0, 1.0) + a[k / 3] * b[k % 3]).collect();
    assert_close(&out["ret"].floats(), &want);
}

#[test]
fn axis_tuples_keepdims_and_matmul() {
    let src = "
import numpy as np
def f(x: 'float64[A, B, C]', W: 'float64[C, D]'):
    s = np.sum(x, axis=(0, 2), keepdims=True)
    m = x.max(axis=-1)
    y = x[0] @ W
    return s, m, y, np.mean(x)
";
    let f = &lower(src).functions[0];
    let (a, b, c, d) = (2, 3, 2, 2);
    let x = data(a * b * c, 18);
    let w = data(c * d, 19);
    let out = run(
        f,
        &[
            ("A", Data::i(2)),
            ("B", Data::i(3)),
            ("C", Data::i(2)),
            ("D", Data::i(2)),
            ("x", Data::arr(&[a, b, c], x.clone())),
            ("W", Data::arr(&[c, d], w.clone())),
        ],
    );
    let at = |i: usize, j: usize, k: usize| x[(i * b + j) * c + k];
    let s: Vec<f64> =
        (0..b).map(|j| (0..a).flat_map(|i| (0..c).map(move |k| (i, k))).map(|(i, k)| at(i, j, k)).sum()).collect();
    assert_eq!(out["ret0"].dims(), vec![1, 3, 1]);
    assert_close(&out["ret0"].floats(), &s);
    let m: Vec<f64> = (0..a * b).map(|ij| (0..c).map(|k| x[ij * c + k]).fold(f64::NEG_INFINITY, f64::max)).collect();
    assert_close(&out["ret1"].floats(), &m);
    let y: Vec<f64> = (0..b * d).map(|jd| (0..c).map(|k| at(0, jd / d, k) * w[k * d + jd % d]).sum()).collect();
    assert_close(&out["ret2"].floats(), &y);
    assert_close(&out["ret3"].floats(), &[x.iter().sum::<f64>() / x.len() as f64]);
}

#[test]
fn chained_assignment_with_loop_dependent_temporaries() {
    let src = "
import numpy as np

def cov(M: int, float_n: float, data: 'float64[N, M]'):
    mean = np.mean(data, axis=0)
    data -= mean
    c = np.zeros((M, M))
    for i in range(M):
        c[i:M, i] = c[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
    return c
";
    let f = &lower(src).functions[0];
    let (n, m) = (4, 3);
    let d0 = data(n * m, 20);
    let out = run(
        f,
        &[
            ("N", Data::i(n as i64)),
            ("M", Data::i(m as i64)),
            ("float_n", Data::f(n as f64)),
            ("data", Data::arr(&[n, m], d0.clone())),
        ],
    );
    let mean: Vec<f64> = (0..m).map(|j| (0..n).map(|i| d0[i * m + j]).sum::<f64>() / n as f64).collect();
    let d: Vec<f64> = (0..n * m).map(|k| d0[k] - mean[k % m]).collect();
    let mut c = vec![0.0; m * m];
    for i in 0..m {
        for j in i..m {
            let v = (0..n).map(|k| d[k * m + i] * d[k * m + j]).sum::<f64>() / (n as f64 - 1.0);
            c[j * m + i] = v;
            c[i * m + j] = v;
        }
    }
    assert_close(&out["ret"].floats(), &c);
    assert_close(&out["data"].floats(), &d);
}

#[test]
fn row_update_reads_old_row_then_recurrence() {
    // Gauss-Seidel: the row update reads the old row (NumPy evaluates the right-hand side
    // first), the element loop then reads updated neighbours.
    let src = "
def seidel(TSTEPS: int, N: int, A: 'float64[N, N]'):
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] + A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0
";
    let f = &lower(src).functions[0];
    let n = 5;
    let a0 = data(n * n, 21);
    let out = run(f, &[("TSTEPS", Data::i(3)), ("N", Data::i(n as i64)), ("A", Data::arr(&[n, n], a0.clone()))]);
    let mut a = a0;
    for _ in 0..2 {
        for i in 1..n - 1 {
            let old = a.clone();
            for j in 1..n - 1 {
                a[i * n + j] = old[i * n + j]
                    + old[(i - 1) * n + j - 1]
                    + old[(i - 1) * n + j]
                    + old[(i - 1) * n + j + 1]
                    + old[i * n + j + 1]
                    + old[(i + 1) * n + j - 1]
                    + old[(i + 1) * n + j]
                    + old[(i + 1) * n + j + 1];
            }
            for j in 1..n - 1 {
                a[i * n + j] += a[i * n + j - 1];
                a[i * n + j] /= 9.0;
            }
        }
    }
    assert_close(&out["A"].floats(), &a);
}

#[test]
fn branches_binding_one_array_and_tuple_swaps() {
    let src = "
def pick(A: 'float64[N]', c: float):
    if c > 0:
        x = A * 2
    else:
        x = A * 3
    a, b = x[0], x[1]
    a, b = b, a
    x[0], x[1] = x[1], x[0]
    return x + a - b
";
    let f = &lower(src).functions[0];
    let a = vec![1.0, 2.0, 3.0];
    for (c, k) in [(1.0, 2.0), (-1.0, 3.0)] {
        let out = run(f, &[("N", Data::i(3)), ("A", Data::arr(&[3], a.clone())), ("c", Data::f(c))]);
        let x = [a[1] * k, a[0] * k, a[2] * k];
        let d = a[1] * k - a[0] * k;
        assert_close(&out["ret"].floats(), &[x[0] + d, x[1] + d, x[2] + d]);
    }
}

#[test]
fn matrix_products_as_library_calls_match_numpy() {
    let src = "
import numpy as np
def f(A: 'float64[N, K]', B: 'float64[N, M]', x: 'float64[K]', v: 'float64[N]'):
    G = A.T @ B
    y = A @ x
    z = v @ A
    w = 2.0 * A[1:, 1] @ B[1:, 0]
    return G, y, z, w
";
    let f = &lower(src).functions[0];
    let ir = adjc_ir::print::print_function(f);
    for want in ["gemm(A[0:N, 0:K].T, B[0:N, 0:M])", "gemv(A[0:N, 0:K], x[0:K])", "gemv(A[0:N, 0:K].T, v[0:N])"] {
        assert!(ir.contains(want), "missing `{want}` in\n{ir}");
    }
    // `A[1:, 1]` has N - 1 elements, none when N is 0: the call gets a length, not -1.
    assert!(ir.contains("2.0 * dot(A[1:max(0, N - 1) + 1, 1], B[1:max(0, N - 1) + 1, 0])"), "{ir}");
    let (n, k, m) = (4, 3, 2);
    let (a, b, x, v) = (data(n * k, 31), data(n * m, 32), data(k, 33), data(n, 34));
    let out = run(
        f,
        &[
            ("N", Data::i(n as i64)),
            ("K", Data::i(k as i64)),
            ("M", Data::i(m as i64)),
            ("A", Data::arr(&[n, k], a.clone())),
            ("B", Data::arr(&[n, m], b.clone())),
            ("x", Data::arr(&[k], x.clone())),
            ("v", Data::arr(&[n], v.clone())),
        ],
    );
    let g: Vec<f64> = (0..k * m).map(|pq| (0..n).map(|i| a[i * k + pq / m] * b[i * m + pq % m]).sum()).collect();
    assert_close(&out["ret0"].floats(), &g);
    let y: Vec<f64> = (0..n).map(|i| (0..k).map(|p| a[i * k + p] * x[p]).sum()).collect();
    assert_close(&out["ret1"].floats(), &y);
    let z: Vec<f64> = (0..k).map(|p| (0..n).map(|i| v[i] * a[i * k + p]).sum()).collect();
    assert_close(&out["ret2"].floats(), &z);
    let w: f64 = 2.0 * (1..n).map(|i| a[i * k + 1] * b[i * m]).sum::<f64>();
    assert_close(&out["ret3"].floats(), &[w]);
}

/// A statement continued in brackets or with a backslash is listed whole in
/// `Module::continued`, so the C quotes all of its lines (issue 13); a bracket in a comment
/// continues nothing.
#[test]
fn continued_statements_are_listed() {
    let src = "def f(x: \"float64[N]\", y: \"float64[N]\"):\n    # ( is no bracket here\n    for i in range(\n            x.shape[0]):\n        y[i] = (2.0 * x[i]\n                + x[i]) \\\n            - 1.0\n";
    assert_eq!(lower(src).continued, vec![(3, 4), (5, 7)]);
}
