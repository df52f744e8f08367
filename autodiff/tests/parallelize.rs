//! `parallelize`: which loops become parallel maps, and proof that the result computes
//! what the original does (reference interpreter, map iterations in both orders, with its
//! race detection) and still differentiates correctly.

mod common;

use adjc_autodiff::parallelize;
use adjc_ir::{walk_stmts, AccOp, Function, Intent, Scalar, StmtKind, VarId};
use common::builder::*;
use common::check::{assert_same_outputs, check, Rng};
use common::interp::{run, size_of, Args, Opts, Value};
use common::kernels as k;

// ---------------------------------------------------------------------------------------
// Helpers

#[derive(Debug, PartialEq)]
enum Form {
    Loop,
    Map,
    Gone,
}

/// Whether `v` is bound by a loop or by a map in `f`.
fn form(f: &Function, v: VarId) -> Form {
    let mut out = Form::Gone;
    walk_stmts(&f.body, &mut |s| match &s.kind {
        StmtKind::Loop(l) if l.var == v => out = Form::Loop,
        StmtKind::Map(m) if m.dims.iter().any(|d| d.var == v) => out = Form::Map,
        _ => {}
    });
    out
}

fn var(f: &Function, name: &str) -> VarId {
    let k = f.vars.iter().position(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}"));
    VarId(k as u32)
}

/// Scalars and arrays whose accumulations are `shared`, by name.
fn shared_targets(f: &Function) -> Vec<String> {
    let mut out = Vec::new();
    walk_stmts(&f.body, &mut |s| {
        if let StmtKind::Accumulate { target, shared: true, .. } = &s.kind {
            let name = f.var(target.var).name.clone();
            if !out.contains(&name) {
                out.push(name);
            }
        }
    });
    out
}

fn text(f: &Function) -> String {
    adjc_ir::print::print_function(f)
}

/// Parallelizes `f`, checks the result is valid IR, and returns it.
fn par(f: &Function) -> Function {
    let p = parallelize(f);
    adjc_ir::validate::validate(&p).unwrap_or_else(|e| panic!("invalid after parallelize: {e}\n{}", text(&p)));
    p
}

/// Random float inputs for every non-output parameter not in `fixed`.
fn inputs(f: &Function, fixed: &[(&str, Value)], seed: u64) -> Args {
    let mut rng = Rng::new(seed);
    let mut args: Args = fixed.iter().map(|(n, v)| (n.to_string(), v.clone())).collect();
    for p in &f.params {
        let v = f.var(p.var);
        if p.intent == Intent::Out || args.contains_key(&v.name) {
            continue;
        }
        let value = if v.ty.is_array() {
            Value::Array(rng.vec(size_of(f, &v.name, &args), 0.5, 1.5))
        } else {
            Value::Float(rng.uniform(0.5, 1.5))
        };
        args.insert(v.name.clone(), value);
    }
    args
}

/// The parallelized function computes what the original computes, whatever the order
/// of map iterations (the interpreter also reports any race).
fn same_results(original: &Function, parallel: &Function, args: &Args) {
    let mut want = args.clone();
    run(original, &mut want, Opts::default()).unwrap_or_else(|e| panic!("original failed: {e}"));
    for reverse_maps in [false, true] {
        let mut got = args.clone();
        run(parallel, &mut got, Opts { reverse_maps, ..Opts::default() })
            .unwrap_or_else(|e| panic!("parallel run failed (reverse_maps {reverse_maps}): {e}\n{}", text(parallel)));
        assert_same_outputs(original, parallel, &want, &got, "parallel", reverse_maps);
    }
}

fn sizes(pairs: &[(&'static str, i64)]) -> Vec<(&'static str, Value)> {
    pairs.iter().map(|(n, v)| (*n, Value::Int(*v))).collect()
}

fn mat(b: &B, n: VarId, m: VarId) -> adjc_ir::Type {
    array(Scalar::F64, vec![b.v(n), b.v(m)])
}

fn vec1(b: &B, n: VarId) -> adjc_ir::Type {
    array(Scalar::F64, vec![b.v(n)])
}

// ---------------------------------------------------------------------------------------
// Kernels (shaped like the frontend's output)

/// go_fast: `trace = 0; for i in range(N): trace += tanh(a[i, i]); return a + trace`
fn go_fast() -> Function {
    let mut b = B::new("go_fast");
    let n = b.size("N");
    let a = b.param("a", mat(&b, n, n), Intent::In);
    let ret = b.ret("ret", mat(&b, n, n));
    let trace = b.local("trace", F64);
    let (i, j, k) = (b.index("i"), b.index("j"), b.index("k"));
    let body = vec![
        assign(sc(trace), f64c(0.0)),
        lp(i, int(0), b.v(n), 1, vec![acc(sc(trace), AccOp::Add, tanh(b.ld(a, vec![b.v(i), b.v(i)])), false)]),
        map(
            vec![(j, int(0), b.v(n)), (k, int(0), b.v(n))],
            vec![assign(at(ret, vec![b.v(j), b.v(k)]), b.ld(a, vec![b.v(j), b.v(k)]) + b.v(trace))],
        ),
    ];
    b.finish(body)
}

/// syrk: `for i: C[i, :i+1] *= beta; for k: C[i, :i+1] += alpha * A[i, k] * A[:i+1, k]`
fn syrk() -> Function {
    let mut b = B::new("syrk");
    let (n, m) = (b.size("N"), b.size("M"));
    let alpha = b.param("alpha", F64, Intent::In);
    let beta = b.param("beta", F64, Intent::In);
    let c = b.param("C", mat(&b, n, n), Intent::InOut);
    let a = b.param("A", mat(&b, n, m), Intent::In);
    let (i, j, k, j2) = (b.index("i"), b.index("j"), b.index("k"), b.index("j2"));
    let body = vec![lp(
        i,
        int(0),
        b.v(n),
        1,
        vec![
            map(
                vec![(j, int(0), b.v(i) + 1)],
                vec![assign(at(c, vec![b.v(i), b.v(j)]), b.ld(c, vec![b.v(i), b.v(j)]) * b.v(beta))],
            ),
            lp(
                k,
                int(0),
                b.v(m),
                1,
                vec![map(
                    vec![(j2, int(0), b.v(i) + 1)],
                    vec![acc(
                        at(c, vec![b.v(i), b.v(j2)]),
                        AccOp::Add,
                        b.v(alpha) * b.ld(a, vec![b.v(i), b.v(k)]) * b.ld(a, vec![b.v(j2), b.v(k)]),
                        false,
                    )],
                )],
            ),
        ],
    )];
    b.finish(body)
}

/// One column per iteration: `for j in range(M): B[:, j] = B[:, j] * 0.5 + sin(A[:, j])`
fn columns() -> Function {
    let mut b = B::new("columns");
    let (n, m) = (b.size("N"), b.size("M"));
    let a = b.param("A", mat(&b, n, m), Intent::In);
    let bb = b.param("B", mat(&b, n, m), Intent::InOut);
    let (j, i) = (b.index("j"), b.index("i"));
    let body = vec![lp(
        j,
        int(0),
        b.v(m),
        1,
        vec![map(
            vec![(i, int(0), b.v(n))],
            vec![assign(
                at(bb, vec![b.v(i), b.v(j)]),
                b.ld(bb, vec![b.v(i), b.v(j)]) * 0.5 + sin(b.ld(a, vec![b.v(i), b.v(j)])),
            )],
        )],
    )];
    b.finish(body)
}

/// `for i in range(start, stop, step): B[i] = B[i] * A[i] + 1` over a fixed-size array.
fn stepped_elements(start: i64, stop: i64, step: i64) -> Function {
    let mut b = B::new("stepped");
    let n = b.size("N");
    let a = b.param("A", vec1(&b, n), Intent::In);
    let bb = b.param("B", vec1(&b, n), Intent::InOut);
    let i = b.index("i");
    let body = vec![lp(
        i,
        int(start),
        int(stop),
        step,
        vec![assign(at(bb, vec![b.v(i)]), b.ld(bb, vec![b.v(i)]) * b.ld(a, vec![b.v(i)]) + 1.0)],
    )];
    b.finish(body)
}

/// nested_negative.py: `for i in range(N-2, -1, -1): for j in range(M-1, -1, -2):
/// A[i, j] = A[i, j] + 0.5 * A[i+1, j] * B[i, j]`
fn nested_negative() -> Function {
    let mut b = B::new("nested_negative");
    let (n, m) = (b.size("N"), b.size("M"));
    let a = b.param("A", mat(&b, n, m), Intent::InOut);
    let bb = b.param("B", mat(&b, n, m), Intent::In);
    let (i, j) = (b.index("i"), b.index("j"));
    let body = vec![lp(
        i,
        b.v(n) - 2,
        int(-1),
        -1,
        vec![lp(
            j,
            b.v(m) - 1,
            int(-1),
            -2,
            vec![assign(
                at(a, vec![b.v(i), b.v(j)]),
                b.ld(a, vec![b.v(i), b.v(j)])
                    + 0.5 * b.ld(a, vec![b.v(i) + 1, b.v(j)]) * b.ld(bb, vec![b.v(i), b.v(j)]),
            )],
        )],
    )];
    b.finish(body)
}

/// An iteration-private scalar: `for i: t = sin(A[i]); B[i] = t * t + t`
fn private_temp(read_after: bool) -> Function {
    let mut b = B::new("private_temp");
    let n = b.size("N");
    let a = b.param("A", vec1(&b, n), Intent::In);
    let bb = b.param("B", vec1(&b, n), Intent::InOut);
    let ret = b.ret("ret", F64);
    let t = b.local("t", F64);
    let i = b.index("i");
    let mut body = vec![
        assign(sc(t), f64c(0.0)),
        lp(
            i,
            int(0),
            b.v(n),
            1,
            vec![assign(sc(t), sin(b.ld(a, vec![b.v(i)]))), assign(at(bb, vec![b.v(i)]), b.v(t) * b.v(t) + b.v(t))],
        ),
    ];
    body.push(assign(sc(ret), if read_after { b.v(t) } else { f64c(1.0) }));
    b.finish(body)
}

/// `m = -inf; for i: m max= A[i] * A[i]; ret = m` (into a local, or straight into `ret`).
fn max_reduction(into_ret: bool) -> Function {
    let mut b = B::new("max_reduction");
    let n = b.size("N");
    let a = b.param("A", vec1(&b, n), Intent::In);
    let ret = b.ret("ret", F64);
    let m = b.local("m", F64);
    let i = b.index("i");
    let target = if into_ret { ret } else { m };
    let mut body = vec![
        assign(sc(target), f64c(f64::NEG_INFINITY)),
        lp(
            i,
            int(0),
            b.v(n),
            1,
            vec![acc(sc(target), AccOp::Max, b.ld(a, vec![b.v(i)]) * b.ld(a, vec![b.v(i)]), false)],
        ),
    ];
    if !into_ret {
        body.push(assign(sc(ret), b.v(m) * 2.0));
    }
    b.finish(body)
}

/// Column sums by rows: `for i: colsum[:] += A[i, :]` (an array only accumulated).
fn column_sums() -> Function {
    let mut b = B::new("column_sums");
    let (n, m) = (b.size("N"), b.size("M"));
    let a = b.param("A", mat(&b, n, m), Intent::In);
    let s = b.param("S", vec1(&b, m), Intent::InOut);
    let (i, j) = (b.index("i"), b.index("j"));
    let body = vec![lp(
        i,
        int(0),
        b.v(n),
        1,
        vec![map(
            vec![(j, int(0), b.v(m))],
            vec![acc(at(s, vec![b.v(j)]), AccOp::Add, sin(b.ld(a, vec![b.v(i), b.v(j)])), false)],
        )],
    )];
    b.finish(body)
}

/// symm-like: in `for i`, `for j` keeps a private dot product (assigned, then summed by an
/// inner loop) and writes `temp2[j]`; the rest of the `i` body reads `temp2`. With `reuse`,
/// the `i` body reads `dot` before the `j` loop, so `dot` is live after it.
fn symm_like(reuse: bool) -> Function {
    let mut b = B::new("symm_like");
    let (n, m) = (b.size("N"), b.size("M"));
    let a = b.param("A", mat(&b, n, n), Intent::In);
    let bm = b.param("B", mat(&b, n, m), Intent::In);
    let c = b.param("C", mat(&b, n, m), Intent::InOut);
    let temp2 = b.local("temp2", vec1(&b, m));
    let dot = b.local("dot", F64);
    let (i, j, k, l) = (b.index("i"), b.index("j"), b.index("k"), b.index("l"));
    let mut i_body = Vec::new();
    if reuse {
        i_body.push(acc(at(c, vec![b.v(i), int(0)]), AccOp::Add, b.v(dot), false));
    }
    i_body.push(lp(
        j,
        int(0),
        b.v(m),
        1,
        vec![
            assign(sc(dot), f64c(0.0)),
            lp(
                k,
                int(0),
                b.v(i),
                1,
                vec![acc(sc(dot), AccOp::Add, b.ld(bm, vec![b.v(k), b.v(j)]) * b.ld(a, vec![b.v(i), b.v(k)]), false)],
            ),
            assign(at(temp2, vec![b.v(j)]), b.v(dot)),
        ],
    ));
    i_body.push(map(
        vec![(l, int(0), b.v(m))],
        vec![acc(at(c, vec![b.v(i), b.v(l)]), AccOp::Add, b.ld(temp2, vec![b.v(l)]) * 0.5, false)],
    ));
    let body = vec![alloc(temp2), assign(sc(dot), f64c(0.0)), lp(i, int(0), b.v(n), 1, i_body), free(temp2)];
    b.finish(body)
}

/// if_on_data-like: `for i: for j: if x[i,j] > 1: y[i,j] *= x[i,j] else: y[i,j] -= 1` then
/// a loop-carried `total` in the `i` loop.
fn branches() -> Function {
    let mut b = B::new("branches");
    let (n, m) = (b.size("N"), b.size("M"));
    let x = b.param("x", mat(&b, n, m), Intent::In);
    let y = b.param("y", mat(&b, n, m), Intent::InOut);
    let ret = b.ret("ret", F64);
    let total = b.local("total", F64);
    let (i, j) = (b.index("i"), b.index("j"));
    let xij = || b.ld(x, vec![b.v(i), b.v(j)]);
    let yij = || at(y, vec![b.v(i), b.v(j)]);
    let body = vec![
        assign(sc(total), f64c(0.0)),
        lp(
            i,
            int(0),
            b.v(n),
            1,
            vec![
                lp(
                    j,
                    int(0),
                    b.v(m),
                    1,
                    vec![if_(
                        xij().cmp(adjc_ir::BinOp::Gt, f64c(1.0)),
                        vec![assign(yij(), b.ld(y, vec![b.v(i), b.v(j)]) * xij())],
                        vec![assign(yij(), b.ld(y, vec![b.v(i), b.v(j)]) - 1.0)],
                    )],
                ),
                assign(sc(total), 0.5 * b.v(total) + b.ld(y, vec![b.v(i), int(0)])),
            ],
        ),
        assign(sc(ret), b.v(total)),
    ];
    b.finish(body)
}

/// seidel_2d without the vectorised row update: `for t: for i: for j:
/// A[i, j] = (A[i-1, j] + A[i, j-1] + A[i, j] + A[i+1, j]) / 4`
fn seidel() -> Function {
    let mut b = B::new("seidel");
    let ts = b.param("TSTEPS", I64, Intent::In);
    let n = b.size("N");
    let a = b.param("A", mat(&b, n, n), Intent::InOut);
    let (t, i, j) = (b.index("t"), b.index("i"), b.index("j"));
    let (iv, jv) = (|| b.v(i), || b.v(j));
    let sum = b.ld(a, vec![iv() - 1, jv()])
        + b.ld(a, vec![iv(), jv() - 1])
        + b.ld(a, vec![iv(), jv()])
        + b.ld(a, vec![iv() + 1, jv()]);
    let body = vec![lp(
        t,
        int(0),
        b.v(ts),
        1,
        vec![lp(
            i,
            int(1),
            b.v(n) - 1,
            1,
            vec![lp(j, int(1), b.v(n) - 1, 1, vec![assign(at(a, vec![iv(), jv()]), sum / 4.0)])],
        )],
    )];
    b.finish(body)
}

/// The `j` recurrence of seidel_2d alone: `for j: A[i, j] += A[i, j-1]; A[i, j] /= 9`.
fn row_recurrence() -> Function {
    let mut b = B::new("row_recurrence");
    let n = b.size("N");
    let a = b.param("A", mat(&b, n, n), Intent::InOut);
    let row = b.param("r", I64, Intent::In);
    let j = b.index("j");
    let aij = |b: &B, d: i64| b.ld(a, vec![b.v(row), b.v(j) - d]);
    let body = vec![lp(
        j,
        int(1),
        b.v(n) - 1,
        1,
        vec![
            acc(at(a, vec![b.v(row), b.v(j)]), AccOp::Add, aij(&b, 1), false),
            assign(at(a, vec![b.v(row), b.v(j)]), aij(&b, 0) / 9.0),
        ],
    )];
    b.finish(body)
}

/// cholesky.py as the frontend lowers it.
fn cholesky() -> Function {
    let mut b = B::new("cholesky");
    let n = b.size("N");
    let a = b.param("A", mat(&b, n, n), Intent::InOut);
    let (dot1, dot2) = (b.temp("dot_1", F64), b.temp("dot_2", F64));
    let (i, j, k, k2) = (b.index("i"), b.index("j"), b.index("k"), b.index("k2"));
    let ld = |b: &B, r: E, c: E| b.ld(a, vec![r, c]);
    let body = vec![
        assign(at(a, vec![int(0), int(0)]), sqrt(ld(&b, int(0), int(0)))),
        lp(
            i,
            int(1),
            b.v(n),
            1,
            vec![
                lp(
                    j,
                    int(0),
                    b.v(i),
                    1,
                    vec![
                        assign(sc(dot1), f64c(0.0)),
                        lp(
                            k,
                            int(0),
                            b.v(j),
                            1,
                            vec![acc(sc(dot1), AccOp::Add, ld(&b, b.v(i), b.v(k)) * ld(&b, b.v(j), b.v(k)), false)],
                        ),
                        assign(at(a, vec![b.v(i), b.v(j)]), ld(&b, b.v(i), b.v(j)) - b.v(dot1)),
                        assign(at(a, vec![b.v(i), b.v(j)]), ld(&b, b.v(i), b.v(j)) / ld(&b, b.v(j), b.v(j))),
                    ],
                ),
                assign(sc(dot2), f64c(0.0)),
                lp(
                    k2,
                    int(0),
                    b.v(i),
                    1,
                    vec![acc(sc(dot2), AccOp::Add, ld(&b, b.v(i), b.v(k2)) * ld(&b, b.v(i), b.v(k2)), false)],
                ),
                assign(at(a, vec![b.v(i), b.v(i)]), ld(&b, b.v(i), b.v(i)) - b.v(dot2)),
                assign(at(a, vec![b.v(i), b.v(i)]), sqrt(ld(&b, b.v(i), b.v(i)))),
            ],
        ),
    ];
    b.finish(body)
}

/// durbin.py as the frontend lowers it; `tmp_inside` allocates `y_tmp` in the loop (as
/// the frontend does), otherwise before it (so that only the dependence rules can refuse).
fn durbin(tmp_inside: bool) -> Function {
    let mut b = B::new("durbin");
    let n = b.size("N");
    let r = b.param("r", vec1(&b, n), Intent::In);
    let ret = b.ret("ret", vec1(&b, n));
    let y = b.local("y", vec1(&b, n));
    let y_tmp = b.temp("y_tmp", vec1(&b, n));
    let (alpha, beta, dot) = (b.local("alpha", F64), b.local("beta", F64), b.temp("dot_1", F64));
    let (k, i, i2, i3, i4) = (b.index("k"), b.index("i"), b.index("i2"), b.index("i3"), b.index("i4"));
    let mut k_body = vec![
        assign(sc(beta), b.v(beta) * (1.0 - b.v(alpha) * b.v(alpha))),
        assign(sc(dot), f64c(0.0)),
        lp(
            i,
            int(0),
            b.v(k),
            1,
            vec![acc(sc(dot), AccOp::Add, b.ld(r, vec![b.v(k) - b.v(i) - 1]) * b.ld(y, vec![b.v(i)]), false)],
        ),
        assign(sc(alpha), -(b.ld(r, vec![b.v(k)]) + b.v(dot)) / b.v(beta)),
    ];
    if tmp_inside {
        k_body.push(alloc(y_tmp));
    }
    k_body.extend([
        map(
            vec![(i2, int(0), b.v(k))],
            vec![assign(
                at(y_tmp, vec![b.v(i2)]),
                b.ld(y, vec![b.v(i2)]) + b.v(alpha) * b.ld(y, vec![b.v(k) - b.v(i2) - 1]),
            )],
        ),
        map(vec![(i3, int(0), b.v(k))], vec![assign(at(y, vec![b.v(i3)]), b.ld(y_tmp, vec![b.v(i3)]))]),
        assign(at(y, vec![b.v(k)]), b.v(alpha)),
    ]);
    let mut body = vec![alloc(y)];
    if !tmp_inside {
        body.push(alloc(y_tmp));
    }
    body.extend([
        assign(sc(alpha), -b.ld(r, vec![int(0)])),
        assign(sc(beta), f64c(1.0)),
        assign(at(y, vec![int(0)]), -b.ld(r, vec![int(0)])),
        lp(k, int(1), b.v(n), 1, k_body),
        map(vec![(i4, int(0), b.v(n))], vec![assign(at(ret, vec![b.v(i4)]), b.ld(y, vec![b.v(i4)]))]),
        free(y),
        free(y_tmp),
    ]);
    b.finish(body)
}

/// A running sum read in the body (a prefix sum): `for i: s += A[i]; B[i] = s`.
fn prefix_sum() -> Function {
    let mut b = B::new("prefix_sum");
    let n = b.size("N");
    let a = b.param("A", vec1(&b, n), Intent::In);
    let bb = b.param("B", vec1(&b, n), Intent::InOut);
    let s = b.local("s", F64);
    let i = b.index("i");
    let body = vec![
        assign(sc(s), f64c(0.0)),
        lp(
            i,
            int(0),
            b.v(n),
            1,
            vec![acc(sc(s), AccOp::Add, b.ld(a, vec![b.v(i)]), false), assign(at(bb, vec![b.v(i)]), b.v(s))],
        ),
    ];
    b.finish(body)
}

/// `for i: cnt = i % 3 + 1; for j in range(cnt): B[i, j] = A[i, j]`: an inner trip count
/// that depends on a scalar the body writes.
fn inner_bound_from_body() -> Function {
    let mut b = B::new("inner_bound");
    let (n, m) = (b.size("N"), b.size("M"));
    let a = b.param("A", mat(&b, n, m), Intent::In);
    let bb = b.param("B", mat(&b, n, m), Intent::InOut);
    let cnt = b.local("cnt", I64);
    let (i, j) = (b.index("i"), b.index("j"));
    let body = vec![lp(
        i,
        int(0),
        b.v(n),
        1,
        vec![
            assign(sc(cnt), E(adjc_ir::Expr::binary(adjc_ir::BinOp::Mod, b.v(i).0, adjc_ir::Expr::int(3))) + 1),
            lp(j, int(0), b.v(cnt), 1, vec![assign(at(bb, vec![b.v(i), b.v(j)]), b.ld(a, vec![b.v(i), b.v(j)]))]),
        ],
    )];
    b.finish(body)
}

/// `for i: B[write_scale * i] = B[read_scale * i + read] * 2 + 1`
fn shifted(read_scale: i64, read: i64, write_scale: i64) -> Function {
    let mut b = B::new("shifted");
    let n = b.size("N");
    let bb = b.param("B", array(Scalar::F64, vec![b.v(n) * 2 + 2]), Intent::InOut);
    let i = b.index("i");
    let body = vec![lp(
        i,
        int(0),
        b.v(n),
        1,
        vec![assign(at(bb, vec![b.v(i) * write_scale]), b.ld(bb, vec![b.v(i) * read_scale + read]) * 2.0 + 1.0)],
    )];
    b.finish(body)
}

/// A loop inside a map: never converted (the map is already the parallel level).
fn loop_in_map() -> Function {
    let mut b = B::new("loop_in_map");
    let (n, m) = (b.size("N"), b.size("M"));
    let a = b.param("A", mat(&b, n, m), Intent::In);
    let bb = b.param("B", mat(&b, n, m), Intent::InOut);
    let (i, j) = (b.index("i"), b.index("j"));
    let body = vec![map(
        vec![(i, int(0), b.v(n))],
        vec![lp(j, int(0), b.v(m), 1, vec![assign(at(bb, vec![b.v(i), b.v(j)]), exp(b.ld(a, vec![b.v(i), b.v(j)])))])],
    )];
    b.finish(body)
}

// ---------------------------------------------------------------------------------------
// Loops that must become parallel

#[test]
fn go_fast_trace_is_a_parallel_reduction() {
    let f = go_fast();
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Map, "{}", text(&p));
    assert_eq!(shared_targets(&p), vec!["trace"]);
    assert!(text(&p).contains("trace += tanh(a[i, i]) shared"), "{}", text(&p));
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 6)]), 1));
    let t = text(&check(&p, &sizes(&[("N", 5)])).function);
    assert!(t.contains("map i in [0, N)"), "the adjoint keeps the loop parallel:\n{t}");
}

#[test]
fn syrk_rows_are_owned_by_their_iteration() {
    let f = syrk();
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Map, "{}", text(&p));
    // Inside the new map: the k loop stays sequential, the j maps stay maps.
    assert_eq!(form(&p, var(&p, "k")), Form::Loop);
    assert_eq!(form(&p, var(&p, "j")), Form::Map);
    assert_eq!(form(&p, var(&p, "j2")), Form::Map);
    assert!(shared_targets(&p).is_empty(), "each row is private: no atomics\n{}", text(&p));
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 6), ("M", 4)]), 2));
    check(&p, &sizes(&[("N", 5), ("M", 3)]));
}

#[test]
fn per_column_loop_is_parallel() {
    let f = columns();
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "j")), Form::Map, "{}", text(&p));
    assert_eq!(form(&p, var(&p, "i")), Form::Map);
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 4), ("M", 5)]), 3));
    check(&p, &sizes(&[("N", 4), ("M", 3)]));
}

#[test]
fn negative_unit_step_maps_the_same_iterations() {
    let f = stepped_elements(8, -1, -1);
    let p = par(&f);
    assert!(text(&p).contains("map i in [0, 9)"), "{}", text(&p));
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 9)]), 4));
    // An empty range stays empty.
    let f = stepped_elements(2, 5, -1);
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Map);
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 9)]), 5));
}

#[test]
fn other_steps_map_a_counter() {
    for (start, stop, step, n) in
        [(1, 9, 2, 9), (1, 10, 3, 10), (8, -1, -2, 9), (9, 0, -3, 10), (3, 3, 2, 5), (5, 2, 2, 6)]
    {
        let f = stepped_elements(start, stop, step);
        let p = par(&f);
        assert_eq!(form(&p, var(&p, "i")), Form::Gone, "range({start}, {stop}, {step}):\n{}", text(&p));
        assert_eq!(form(&p, var(&p, "i_it")), Form::Map, "{}", text(&p));
        same_results(&f, &p, &inputs(&f, &sizes(&[("N", n)]), 6));
        check(&p, &sizes(&[("N", n)]));
    }
    let t = text(&par(&stepped_elements(8, -1, -2)));
    assert!(t.contains("map i_it in [0, 5)") && t.contains("B[8 - i_it * 2]"), "{t}");
}

#[test]
fn nested_negative_inner_stepped_loop_is_parallel() {
    let f = nested_negative();
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Loop, "A[i+1] is read: rows depend on each other\n{}", text(&p));
    assert_eq!(form(&p, var(&p, "j_it")), Form::Map, "{}", text(&p));
    assert!(text(&p).contains("map j_it in [0, (M + 1) / 2)"), "{}", text(&p));
    for m in [4, 5] {
        same_results(&f, &p, &inputs(&f, &sizes(&[("N", 4), ("M", m)]), 7));
    }
}

/// The adjoint of these converted loops is right in C (`adjc check` passes on
/// nested_negative.py serial and with OpenMP), but the autodiff marks some adjoint
/// accumulations `shared` while the same iteration also writes the element plainly, which
/// the interpreter reports as a race: `shared::injective` accepts only `±v + c` indices and
/// a single index per array, not `2 * v + c` or rows `c[i, 1]`, `c[i, 2]` of one iteration.
#[test]
#[ignore = "autodiff: shared marking of multi-index / non-unit-stride adjoint accumulations"]
fn adjoints_of_strided_and_multi_column_maps() {
    for m in [4, 5] {
        check(&par(&nested_negative()), &sizes(&[("N", 4), ("M", m)]));
    }
    let f = k::fortran_layout();
    let p = par(&f);
    assert_ne!(p, f);
    check(&p, &[("n", Value::Int(5))]);
}

#[test]
fn private_scalar_dead_after_the_loop() {
    let f = private_temp(false);
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Map, "{}", text(&p));
    assert!(shared_targets(&p).is_empty());
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 6)]), 8));
    check(&p, &sizes(&[("N", 6)]));
}

#[test]
fn max_reduction_into_a_local() {
    let f = max_reduction(false);
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Map, "{}", text(&p));
    assert_eq!(shared_targets(&p), vec!["m"]);
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 7)]), 9));
    check(&p, &sizes(&[("N", 7)]));
}

#[test]
fn array_only_accumulated_becomes_shared() {
    let f = column_sums();
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Map, "{}", text(&p));
    assert_eq!(shared_targets(&p), vec!["S"]);
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 5), ("M", 3)]), 10));
    check(&p, &sizes(&[("N", 5), ("M", 3)]));
}

#[test]
fn inner_loop_with_private_dot_product() {
    let f = symm_like(false);
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Loop, "C[i, :] += temp2 reads every j's temp2\n{}", text(&p));
    assert_eq!(form(&p, var(&p, "j")), Form::Map, "{}", text(&p));
    assert_eq!(form(&p, var(&p, "k")), Form::Loop, "loops inside the new map stay loops");
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 5), ("M", 4)]), 11));
    check(&p, &sizes(&[("N", 4), ("M", 3)]));
}

#[test]
fn branches_on_owned_elements() {
    let f = branches();
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Loop, "total is carried from one row to the next\n{}", text(&p));
    assert_eq!(form(&p, var(&p, "j")), Form::Map, "{}", text(&p));
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 5), ("M", 6)]), 12));
}

#[test]
fn injective_non_unit_index() {
    // B[i] = f(B[i]) and B[2i] = f(B[2i]): owned.
    for scale in [1, 2] {
        let f = shifted(scale, 0, scale);
        let p = par(&f);
        assert_eq!(form(&p, var(&p, "i")), Form::Map, "{}", text(&p));
        same_results(&f, &p, &inputs(&f, &sizes(&[("N", 5)]), 13));
    }
    // B[2i] = f(B[i]): iteration 2 reads what iteration 1 writes.
    let p = par(&shifted(1, 0, 2));
    assert_eq!(form(&p, var(&p, "i")), Form::Loop, "{}", text(&p));
}

/// `for t in range(T): s = 0; for i: (for j:)? s += sin(A[i, j] * t); B[t] = s * s`: a
/// scalar reduction inside a time loop, flat (one column) or over a whole matrix. With
/// `carried`, `B[t] = s * s + B[t - 1]` (t from 1) makes the time loop sequential.
fn reduction_in_time_loop(flat: bool, carried: bool) -> Function {
    let mut b = B::new("reduction_in_time_loop");
    let (n, m, ts) = (b.size("N"), b.size("M"), b.size("T"));
    let a = b.param("A", mat(&b, n, m), Intent::In);
    let out = b.param("B", vec1(&b, ts), Intent::InOut);
    let s = b.local("s", F64);
    let (t, i, j) = (b.index("t"), b.index("i"), b.index("j"));
    let tf = || E(b.v(t).0.cast(Scalar::F64));
    let inner = if flat {
        vec![acc(sc(s), AccOp::Add, sin(b.ld(a, vec![b.v(i), int(0)]) * tf()), false)]
    } else {
        vec![lp(j, int(0), b.v(m), 1, vec![acc(sc(s), AccOp::Add, sin(b.ld(a, vec![b.v(i), b.v(j)]) * tf()), false)])]
    };
    let mut value = b.v(s) * b.v(s);
    if carried {
        value = value + b.ld(out, vec![b.v(t) - 1]);
    }
    let body = vec![lp(
        t,
        int(carried as i64),
        b.v(ts),
        1,
        vec![assign(sc(s), f64c(0.0)), lp(i, int(0), b.v(n), 1, inner), assign(at(out, vec![b.v(t)]), value)],
    )];
    b.finish(body)
}

#[test]
fn reductions_inside_loops_need_work_to_be_parallel() {
    let dims = sizes(&[("N", 4), ("M", 3), ("T", 3)]);
    // The t loop itself is independent (s is private to it): it wins, as the outermost.
    for flat in [true, false] {
        let f = reduction_in_time_loop(flat, false);
        let p = par(&f);
        assert_eq!(form(&p, var(&p, "t")), Form::Map, "{}", text(&p));
        assert_eq!(form(&p, var(&p, "i")), Form::Loop, "{}", text(&p));
        same_results(&f, &p, &inputs(&f, &dims, 19));
    }
    // With t carried, the reduction over i is the candidate: a whole matrix per parallel
    // region is worth it, a column of flops per region is not.
    for flat in [true, false] {
        let f = reduction_in_time_loop(flat, true);
        let p = par(&f);
        assert_eq!(form(&p, var(&p, "t")), Form::Loop, "{}", text(&p));
        let want = if flat { Form::Loop } else { Form::Map };
        assert_eq!(form(&p, var(&p, "i")), want, "flat {flat}:\n{}", text(&p));
        same_results(&f, &p, &inputs(&f, &dims, 20));
        check(&p, &dims);
    }
}

// ---------------------------------------------------------------------------------------
// Loops that must stay sequential

#[test]
fn seidel_stays_sequential() {
    let p = par(&seidel());
    for v in ["t", "i", "j"] {
        assert_eq!(form(&p, var(&p, v)), Form::Loop, "{v}:\n{}", text(&p));
    }
    assert_eq!(p, seidel());
    let p = par(&row_recurrence());
    assert_eq!(form(&p, var(&p, "j")), Form::Loop, "{}", text(&p));
}

#[test]
fn time_loop_with_ping_pong_stays_sequential() {
    for nonlinear in [false, true] {
        let f = k::jacobi_1d(nonlinear);
        assert_eq!(par(&f), f);
    }
}

#[test]
fn cholesky_outer_loops_stay_sequential() {
    let f = cholesky();
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Loop, "{}", text(&p));
    assert_eq!(form(&p, var(&p, "j")), Form::Loop, "{}", text(&p));
    // The dot products are independent reductions, but a parallel region per dot product
    // inside the i/j loops costs more than it gains: they stay loops too.
    assert_eq!(p, f);
    // A symmetric positive definite input: B B^T + n I.
    let n = 6;
    let mut rng = Rng::new(14);
    let bm = rng.vec(n * n, -1.0, 1.0);
    let mut a = vec![0.0; n * n];
    for r in 0..n {
        for c in 0..n {
            a[r * n + c] =
                (0..n).map(|q| bm[r * n + q] * bm[c * n + q]).sum::<f64>() + if r == c { n as f64 } else { 0.0 };
        }
    }
    let args: Args = [("N".to_string(), Value::Int(n as i64)), ("A".to_string(), Value::Array(a))].into();
    same_results(&f, &p, &args);
}

#[test]
fn durbin_recursion_stays_sequential() {
    for tmp_inside in [true, false] {
        let f = durbin(tmp_inside);
        let p = par(&f);
        assert_eq!(form(&p, var(&p, "k")), Form::Loop, "{}", text(&p));
        assert_eq!(form(&p, var(&p, "i")), Form::Loop, "a dot product inside a loop stays sequential\n{}", text(&p));
        let mut args = inputs(&f, &sizes(&[("N", 6)]), 15);
        args.insert("r".into(), Value::Array(Rng::new(16).vec(6, -0.3, 0.3)));
        same_results(&f, &p, &args);
    }
}

#[test]
fn loop_carried_scalars_stay_sequential() {
    for scalar_x in [false, true] {
        let f = k::product(scalar_x);
        assert_eq!(par(&f), f, "p = p * x is carried");
    }
    assert_eq!(par(&prefix_sum()), prefix_sum(), "a running sum read in the body");
    assert_eq!(par(&k::recurrence()), k::recurrence());
    assert_eq!(par(&k::stepped(1, 9, 2)), k::stepped(1, 9, 2));
}

#[test]
fn private_scalar_read_after_the_loop_stays_sequential() {
    let f = private_temp(true);
    assert_eq!(par(&f), f);
}

#[test]
fn scalar_live_around_an_enclosing_loop_stays_sequential() {
    // `dot` is read at the top of the next `i` iteration: its last value matters.
    let f = symm_like(true);
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "j")), Form::Loop, "{}", text(&p));
}

#[test]
fn max_reduction_into_an_output_stays_sequential() {
    // OpenMP max reductions need a local; `ret` is an output pointer.
    let f = max_reduction(true);
    assert_eq!(par(&f), f);
}

#[test]
fn inner_trip_count_from_the_body_stays_sequential() {
    let f = inner_bound_from_body();
    let p = par(&f);
    assert_eq!(form(&p, var(&p, "i")), Form::Loop, "{}", text(&p));
    // Within one `i` iteration `cnt` is fixed: the inner loop itself is independent.
    assert_eq!(form(&p, var(&p, "j")), Form::Map, "{}", text(&p));
    same_results(&f, &p, &inputs(&f, &sizes(&[("N", 5), ("M", 4)]), 18));
}

#[test]
fn different_offsets_stay_sequential() {
    for read in [1, -1] {
        let f = shifted(1, read, 1);
        assert_eq!(par(&f), f, "B[i] = B[i + {read}]");
    }
}

#[test]
fn allocations_and_loops_in_maps_are_left_alone() {
    let f = loop_in_map();
    assert_eq!(par(&f), f, "a loop inside a map stays a loop");
    // An allocation inside the body: the work array would be shared by all iterations.
    let mut b = B::new("alloc_inside");
    let n = b.size("N");
    let a = b.param("A", vec1(&b, n), Intent::In);
    let out = b.param("B", vec1(&b, n), Intent::InOut);
    let tmp = b.temp("tmp", vec1(&b, n));
    let i = b.index("i");
    let body = vec![lp(
        i,
        int(0),
        b.v(n),
        1,
        vec![
            alloc(tmp),
            assign(at(tmp, vec![b.v(i)]), b.ld(a, vec![b.v(i)])),
            assign(at(out, vec![b.v(i)]), b.ld(tmp, vec![b.v(i)])),
        ],
    )];
    let f = b.finish(body);
    assert_eq!(par(&f), f);
}

// ---------------------------------------------------------------------------------------
// Every hand-built kernel of the autodiff tests: still valid, same results, same gradients.

#[test]
fn all_test_kernels_keep_their_results_and_gradients() {
    let n = |v: i64| ("N", Value::Int(v));
    let m = |v: i64| ("M", Value::Int(v));
    let t = |v: i64| ("T", Value::Int(v));
    let cases: Vec<(Function, Vec<(&str, Value)>)> = vec![
        (k::elementwise(), vec![n(7)]),
        (k::stencil(false), vec![n(9)]),
        (k::stencil(true), vec![n(9)]),
        (k::square(), vec![n(6)]),
        (k::total(), vec![n(4), m(3)]),
        (k::rowmax(), vec![n(5), m(4)]),
        (k::biggest(), vec![n(4), m(3)]),
        (k::product(false), vec![n(6)]),
        (k::product(true), vec![n(5)]),
        (k::jacobi_1d(true), vec![n(8), ("TSTEPS", Value::Int(4))]),
        (k::private_scalar(), vec![n(5)]),
        (k::axpy(), vec![n(6)]),
        (k::recurrence(), vec![n(6)]),
        (k::stepped(9, -1, -2), vec![n(12)]),
        (k::branchy(), vec![n(8)]),
        (k::float32(), vec![n(4)]),
        (k::temporary(), vec![n(5)]),
        (k::accumulations(), vec![n(6)]),
        (k::row_product(), vec![n(4), m(5)]),
        (k::pool(), vec![n(3), m(4)]),
        (k::max_into(), vec![n(4), m(3)]),
        (k::seq_max(), vec![n(7)]),
        (k::counter(), vec![n(6)]),
        (k::map_if(), vec![n(9)]),
        (k::interleaved(), vec![("H", Value::Int(4)), t(3)]),
        (k::shared_product(), vec![n(6)]),
        (k::matmul(), vec![n(3), ("K", Value::Int(4)), m(2)]),
        (k::softmax(), vec![n(3), m(5)]),
        (k::partial_output(), vec![n(6)]),
        (k::time_loop_scalar(), vec![n(5), t(3)]),
        (k::gather(), vec![n(6), ("idx", Value::IntArray(vec![3, 0, 3, 1, 4, 2]))]),
        (k::fortran_scalars(), vec![("n", Value::Int(5))]),
    ];
    let mut changed = Vec::new();
    for (f, fixed) in cases {
        let p = par(&f);
        same_results(&f, &p, &inputs(&f, &fixed, 17));
        if p != f {
            changed.push(f.name.clone());
            check(&p, &fixed);
        }
    }
    // Only the sequential max over a local is a parallel reduction among them.
    assert_eq!(changed, vec!["seq_max"]);
}
