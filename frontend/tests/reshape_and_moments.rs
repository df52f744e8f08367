//! Issue 3 additions, checked by running the lowered IR in the reference interpreter:
//! `np.reshape` as index remapping (views and copies), batched `@`, `np.std`/`np.var`,
//! `np.eye`/`np.identity` and `np.sign`.

mod common;
use common::*;

fn example(name: &str) -> String {
    let path = format!("{}/../examples/python/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn doitgen_reshapes_and_multiplies_every_fibre() {
    let f = &lower(&example("doitgen.py")).functions[0];
    let (nr, nq, np_) = (2, 3, 4);
    let a = data(nr * nq * np_, 1);
    let c4 = data(np_ * np_, 2);
    let out = run(
        f,
        &[
            ("NR", Data::i(nr as i64)),
            ("NQ", Data::i(nq as i64)),
            ("NP", Data::i(np_ as i64)),
            ("A", Data::arr(&[nr, nq, np_], a.clone())),
            ("C4", Data::arr(&[np_, np_], c4.clone())),
        ],
    );
    let mut want = vec![0.0; a.len()];
    for r in 0..nr {
        for q in 0..nq {
            for p in 0..np_ {
                let base = (r * nq + q) * np_;
                want[base + p] = (0..np_).map(|s| a[base + s] * c4[s * np_ + p]).sum();
            }
        }
    }
    assert_close(&out["A"].floats(), &want);
}

#[test]
fn reshape_splits_and_merges_axes_in_c_order() {
    let src = "
import numpy as np

def f(x: 'float64[6]', A: 'float64[N, M]'):
    N, M = A.shape
    m = np.reshape(x, (2, 3))
    flat = A.reshape(-1)
    t = A.reshape(M, N)
    return m * 1.0, flat * 1.0, t * 1.0
";
    let f = &lower(src).functions[0];
    let x: Vec<f64> = (0..6).map(|v| v as f64).collect();
    let a: Vec<f64> = (0..6).map(|v| 10.0 + v as f64).collect();
    let out = run(
        f,
        &[
            ("N", Data::i(2)),
            ("M", Data::i(3)),
            ("x", Data::arr(&[6], x.clone())),
            ("A", Data::arr(&[2, 3], a.clone())),
        ],
    );
    // Reshape never reorders elements: every result holds the input in the same order.
    assert_eq!(out["ret0"].dims(), vec![2, 3]);
    assert_close(&out["ret0"].floats(), &x);
    assert_eq!(out["ret1"].dims(), vec![6]);
    assert_close(&out["ret1"].floats(), &a);
    assert_eq!(out["ret2"].dims(), vec![3, 2]);
    assert_close(&out["ret2"].floats(), &a);
}

#[test]
fn reshape_of_a_whole_array_is_a_view_and_flatten_a_copy() {
    let src = "
def f(A: 'float64[N, M]'):
    N, M = A.shape
    v = A.reshape(N * M)
    v[0] = 7.0
    c = A.flatten()
    c[1] = 9.0
    w = A.ravel()
    w[2] = w[2] + c[1]
";
    let f = &lower(src).functions[0];
    let out = run(f, &[("N", Data::i(2)), ("M", Data::i(2)), ("A", Data::arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]))]);
    assert_close(&out["A"].floats(), &[7.0, 2.0, 12.0, 4.0]);
}

#[test]
fn reshape_inserting_unit_axes_unifies_inferred_extents() {
    let src = "
import numpy as np

def f(NR, NP, A):
    A[:] = np.reshape(np.reshape(A, (NR, 1, NP)) * 2.0, (NR, NP))
";
    let m = lower(src);
    let f = &m.functions[0];
    let a = f.params.iter().map(|p| f.var(p.var)).find(|v| v.name == "A").unwrap();
    assert_eq!(adjc_ir::print::type_str(f, &a.ty), "f64[NR, NP]");
    let out = run(f, &[("NR", Data::i(2)), ("NP", Data::i(2)), ("A", Data::arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]))]);
    assert_close(&out["A"].floats(), &[2.0, 4.0, 6.0, 8.0]);
}

#[test]
fn batched_matmul_broadcasts_stack_axes() {
    let src = "
def f(X: 'float64[B, 1, N, K]', Y: 'float64[C, K, M]'):
    return X @ Y
";
    let f = &lower(src).functions[0];
    let (b, c, n, k, m) = (2, 3, 2, 4, 2);
    let x = data(b * n * k, 3);
    let y = data(c * k * m, 4);
    let out = run(
        f,
        &[
            ("B", Data::i(b as i64)),
            ("N", Data::i(n as i64)),
            ("K", Data::i(k as i64)),
            ("C", Data::i(c as i64)),
            ("M", Data::i(m as i64)),
            ("X", Data::arr(&[b, 1, n, k], x.clone())),
            ("Y", Data::arr(&[c, k, m], y.clone())),
        ],
    );
    assert_eq!(out["ret"].dims(), vec![b, c, n, m]);
    let mut want = Vec::new();
    for ib in 0..b {
        for ic in 0..c {
            for i in 0..n {
                for j in 0..m {
                    want.push((0..k).map(|s| x[(ib * n + i) * k + s] * y[(ic * k + s) * m + j]).sum::<f64>());
                }
            }
        }
    }
    assert_close(&out["ret"].floats(), &want);
}

#[test]
fn std_and_var_match_numpy_definitions() {
    let src = "
import numpy as np

def f(X: 'float64[N, M]'):
    return np.std(X, axis=0), X.var(axis=1, ddof=1), np.std(X), np.var(X, axis=-1, keepdims=True)
";
    let f = &lower(src).functions[0];
    let (n, m) = (4, 3);
    let x = data(n * m, 5);
    let out = run(f, &[("N", Data::i(n as i64)), ("M", Data::i(m as i64)), ("X", Data::arr(&[n, m], x.clone()))]);
    let var = |vals: &[f64], ddof: usize| {
        let mean = vals.iter().sum::<f64>() / vals.len() as f64;
        vals.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (vals.len() - ddof) as f64
    };
    let col = |j: usize| (0..n).map(|i| x[i * m + j]).collect::<Vec<f64>>();
    let row = |i: usize| x[i * m..(i + 1) * m].to_vec();
    let std0: Vec<f64> = (0..m).map(|j| var(&col(j), 0).sqrt()).collect();
    let var1: Vec<f64> = (0..n).map(|i| var(&row(i), 1)).collect();
    let var_keep: Vec<f64> = (0..n).map(|i| var(&row(i), 0)).collect();
    assert_close(&out["ret0"].floats(), &std0);
    assert_close(&out["ret1"].floats(), &var1);
    assert_close(&out["ret2"].floats(), &[var(&x, 0).sqrt()]);
    assert_eq!(out["ret3"].dims(), vec![n, 1]);
    assert_close(&out["ret3"].floats(), &var_keep);
}

#[test]
fn eye_identity_and_sign() {
    let src = "
import numpy as np

def f(x: 'float64[N]', M: int):
    e = np.eye(M, 4, k=1) + 2.0 * np.identity(M)[:, 0:1]
    return e, np.sign(x), np.eye(2, dtype=np.float32)
";
    let f = &lower(src).functions[0];
    let out = run(f, &[("N", Data::i(3)), ("M", Data::i(3)), ("x", Data::arr(&[3], vec![-2.5, 0.0, 4.0]))]);
    assert_eq!(out["ret0"].dims(), vec![3, 4]);
    #[rustfmt::skip]
    let want = [
        2.0, 3.0, 2.0, 2.0,
        0.0, 0.0, 1.0, 0.0,
        0.0, 0.0, 0.0, 1.0,
    ];
    assert_close(&out["ret0"].floats(), &want);
    assert_close(&out["ret1"].floats(), &[-1.0, 0.0, 1.0]);
    assert_close(&out["ret2"].floats(), &[1.0, 0.0, 0.0, 1.0]);
    let f32_ret = f.params.iter().map(|p| f.var(p.var)).find(|v| v.name == "ret2").unwrap();
    assert_eq!(f32_ret.ty.elem(), adjc_ir::Scalar::F32);
}

#[test]
fn correlation_matches_reference() {
    let f = &lower(&example("correlation.py")).functions[0];
    let (n, m) = (6, 4);
    let d0 = data(n * m, 7);
    let out = run(
        f,
        &[
            ("M", Data::i(m as i64)),
            ("data_n0", Data::i(n as i64)),
            ("data_n1", Data::i(m as i64)),
            ("float_n", Data::f(n as f64)),
            ("data", Data::arr(&[n, m], d0.clone())),
        ],
    );
    let mut d = d0;
    for j in 0..m {
        let mean = (0..n).map(|i| d[i * m + j]).sum::<f64>() / n as f64;
        let var = (0..n).map(|i| (d[i * m + j] - mean).powi(2)).sum::<f64>() / n as f64;
        let std = if var.sqrt() <= 0.1 { 1.0 } else { var.sqrt() };
        for i in 0..n {
            d[i * m + j] = (d[i * m + j] - mean) / ((n as f64).sqrt() * std);
        }
    }
    let mut corr = vec![0.0; m * m];
    for i in 0..m {
        corr[i * m + i] = 1.0;
        for j in i + 1..m {
            let c: f64 = (0..n).map(|k| d[k * m + i] * d[k * m + j]).sum();
            corr[i * m + j] = c;
            corr[j * m + i] = c;
        }
    }
    assert_close(&out["ret"].floats(), &corr);
    assert_close(&out["data"].floats(), &d);
}

#[test]
fn extents_that_are_products_match_in_any_factor_order() {
    // LeNet's flattening: the inferred `-1` extent is `H * W * C`, the bias is declared
    // `C * H * W`; both name the same number of elements, so they broadcast.
    let src = "
import numpy as np

def f(x: 'float64[N, H, W, C]', b: 'float64[C * H * W]'):
    return np.reshape(x, (x.shape[0], -1)) + b
";
    let f = &lower(src).functions[0];
    let (n, h, w, c) = (2, 2, 3, 2);
    let k = h * w * c;
    let x = data(n * k, 1);
    let b = data(k, 2);
    let out = run(
        f,
        &[
            ("N", Data::i(n as i64)),
            ("H", Data::i(h as i64)),
            ("W", Data::i(w as i64)),
            ("C", Data::i(c as i64)),
            ("x", Data::arr(&[n, h, w, c], x.clone())),
            ("b", Data::arr(&[k], b.clone())),
        ],
    );
    let want: Vec<f64> = (0..n * k).map(|s| x[s] + b[s % k]).collect();
    assert_eq!(out["ret"].dims(), vec![n, k]);
    assert_close(&out["ret"].floats(), &want);
}
