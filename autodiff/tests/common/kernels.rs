//! Hand-built primal functions shaped like what the Python frontend produces.

#![allow(dead_code)]

use super::builder::*;
use adjc_ir::{AccOp, BinOp, Expr, Function, Intent, LibCall, LibOp, Scalar, Span, Stmt, StmtKind, VarId, View};

fn vec1(b: &B, n: adjc_ir::VarId) -> adjc_ir::Type {
    array(Scalar::F64, vec![b.v(n)])
}

/// `ret = np.exp(x) * np.sin(x)`
pub fn elementwise() -> Function {
    let mut b = B::new("ew");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let ret = b.ret("ret", vec1(&b, nn));
    let i = b.index("i");
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![assign(at(ret, vec![b.v(i)]), exp(b.ld(x, vec![b.v(i)])) * sin(b.ld(x, vec![b.v(i)])))],
    )];
    b.finish(body)
}

/// `B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])` (or a nonlinear variant)
pub fn stencil(nonlinear: bool) -> Function {
    let mut b = B::new("stencil");
    let nn = b.size("N");
    let a = b.param("A", vec1(&b, nn), Intent::In);
    let bb = b.param("B", vec1(&b, nn), Intent::InOut);
    let i = b.index("i");
    let (l, c, r) = (b.ld(a, vec![b.v(i) - 1]), b.ld(a, vec![b.v(i)]), b.ld(a, vec![b.v(i) + 1]));
    let value = if nonlinear { 0.5 * (l * c.clone()) + sin(r) * c } else { 0.33333 * (l + c + r) };
    let body = vec![map(vec![(i, int(1), b.v(nn) - 1)], vec![assign(at(bb, vec![b.v(i)]), value)])];
    b.finish(body)
}

/// `A[:] = A * A`
pub fn square() -> Function {
    let mut b = B::new("square");
    let nn = b.size("N");
    let a = b.param("A", vec1(&b, nn), Intent::InOut);
    let i = b.index("i");
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![assign(at(a, vec![b.v(i)]), b.ld(a, vec![b.v(i)]) * b.ld(a, vec![b.v(i)]))],
    )];
    b.finish(body)
}

/// `return np.sum(np.sin(A) * A)`
pub fn total() -> Function {
    let mut b = B::new("total");
    let (nn, mm) = (b.size("N"), b.size("M"));
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), b.v(mm)]), Intent::In);
    let ret = b.ret("ret", F64);
    let (i, j) = (b.index("i"), b.index("j"));
    let aij = || b.ld(a, vec![b.v(i), b.v(j)]);
    let body = vec![
        assign(sc(ret), f64c(0.0)),
        map(vec![(i, int(0), b.v(nn)), (j, int(0), b.v(mm))], vec![acc(sc(ret), AccOp::Add, sin(aij()) * aij(), true)]),
    ];
    b.finish(body)
}

/// `return np.max(A, axis=1)`
pub fn rowmax() -> Function {
    let mut b = B::new("rowmax");
    let (nn, mm) = (b.size("N"), b.size("M"));
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), b.v(mm)]), Intent::In);
    let ret = b.ret("ret", vec1(&b, nn));
    let (i, k) = (b.index("i"), b.index("k"));
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![
            assign(at(ret, vec![b.v(i)]), f64c(f64::NEG_INFINITY)),
            lp(
                k,
                int(0),
                b.v(mm),
                1,
                vec![acc(at(ret, vec![b.v(i)]), AccOp::Max, b.ld(a, vec![b.v(i), b.v(k)]), false)],
            ),
        ],
    )];
    b.finish(body)
}

/// `return np.max(np.sin(A) * 2)`
pub fn biggest() -> Function {
    let mut b = B::new("biggest");
    let (nn, mm) = (b.size("N"), b.size("M"));
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), b.v(mm)]), Intent::In);
    let ret = b.ret("ret", F64);
    let (i, j) = (b.index("i"), b.index("j"));
    let body = vec![
        assign(sc(ret), f64c(f64::NEG_INFINITY)),
        map(
            vec![(i, int(0), b.v(nn)), (j, int(0), b.v(mm))],
            vec![acc(sc(ret), AccOp::Max, sin(b.ld(a, vec![b.v(i), b.v(j)])) * 2.0, true)],
        ),
    ];
    b.finish(body)
}

/// `p = 1; for k in range(N): p = p * x[k]; return p` (or `x` a scalar)
pub fn product(scalar_x: bool) -> Function {
    let mut b = B::new("product");
    let nn = b.size("N");
    let x = if scalar_x { b.param("x", F64, Intent::In) } else { b.param("x", vec1(&b, nn), Intent::In) };
    let ret = b.ret("ret", F64);
    let p = b.local("p", F64);
    let k = b.index("k");
    let xk = if scalar_x { b.v(x) } else { b.ld(x, vec![b.v(k)]) };
    let body = vec![
        assign(sc(p), f64c(1.0)),
        lp(k, int(0), b.v(nn), 1, vec![assign(sc(p), b.v(p) * xk)]),
        assign(sc(ret), b.v(p)),
    ];
    b.finish(body)
}

/// PolyBench jacobi_1d (or a nonlinear variant whose adjoint needs tapes).
pub fn jacobi_1d(nonlinear: bool) -> Function {
    let mut b = B::new("jacobi_1d");
    let ts = b.param("TSTEPS", I64, Intent::In);
    let nn = b.size("N");
    let a = b.param("A", vec1(&b, nn), Intent::InOut);
    let bb = b.param("B", vec1(&b, nn), Intent::InOut);
    let (t, i) = (b.index("t"), b.index("i"));
    let rhs = |b: &B, src| {
        let (l, c, r) = (b.ld(src, vec![b.v(i) - 1]), b.ld(src, vec![b.v(i)]), b.ld(src, vec![b.v(i) + 1]));
        if nonlinear {
            0.33333 * (l * c.clone() + sin(r) * c)
        } else {
            0.33333 * (l + c + r)
        }
    };
    let body = vec![lp(
        t,
        int(1),
        b.v(ts),
        1,
        vec![
            map(vec![(i, int(1), b.v(nn) - 1)], vec![assign(at(bb, vec![b.v(i)]), rhs(&b, a))]),
            map(vec![(i, int(1), b.v(nn) - 1)], vec![assign(at(a, vec![b.v(i)]), rhs(&b, bb))]),
        ],
    )];
    b.finish(body)
}

/// A map body with an iteration-private scalar that is overwritten, and a `*=`.
pub fn private_scalar() -> Function {
    let mut b = B::new("private");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let y = b.ret("ret", vec1(&b, nn));
    let t = b.temp("t", F64);
    let i = b.index("i");
    let xi = || b.ld(x, vec![b.v(i)]);
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![
            assign(sc(t), exp(xi())),
            assign(at(y, vec![b.v(i)]), b.v(t) * b.v(t) + xi() * b.v(t)),
            assign(sc(t), sin(b.v(t))),
            acc(at(y, vec![b.v(i)]), AccOp::Mul, b.v(t) + 2.0, false),
        ],
    )];
    b.finish(body)
}

/// `y += alpha * x * y`
pub fn axpy() -> Function {
    let mut b = B::new("axpy");
    let nn = b.size("N");
    let alpha = b.param("alpha", F64, Intent::In);
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let y = b.param("y", vec1(&b, nn), Intent::InOut);
    let i = b.index("i");
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![acc(at(y, vec![b.v(i)]), AccOp::Add, b.v(alpha) * b.ld(x, vec![b.v(i)]) * b.ld(y, vec![b.v(i)]), false)],
    )];
    b.finish(body)
}

/// `for i in range(1, N): x[i] = x[i-1] * c + sin(x[i])`
pub fn recurrence() -> Function {
    let mut b = B::new("recur");
    let nn = b.size("N");
    let c = b.param("c", F64, Intent::In);
    let x = b.param("x", vec1(&b, nn), Intent::InOut);
    let i = b.index("i");
    let body = vec![lp(
        i,
        int(1),
        b.v(nn),
        1,
        vec![assign(at(x, vec![b.v(i)]), b.ld(x, vec![b.v(i) - 1]) * b.v(c) + sin(b.ld(x, vec![b.v(i)])))],
    )];
    b.finish(body)
}

/// `ret = 0.5; for k in range(start, stop, step): ret = ret * x[k] + sin(ret)`
pub fn stepped(start: i64, stop: i64, step: i64) -> Function {
    let mut b = B::new("steps");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let ret = b.ret("ret", F64);
    let k = b.index("k");
    let body = vec![
        assign(sc(ret), f64c(0.5)),
        lp(k, int(start), int(stop), step, vec![assign(sc(ret), b.v(ret) * b.ld(x, vec![b.v(k)]) + sin(b.v(ret)))]),
    ];
    b.finish(body)
}

/// Two `if`s in a loop: one on a changing scalar (decision taped), one on the input.
pub fn branchy() -> Function {
    let mut b = B::new("branchy");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let ret = b.ret("ret", F64);
    let s = b.local("s", F64);
    let k = b.index("k");
    let xk = || b.ld(x, vec![b.v(k)]);
    let body = vec![
        assign(sc(s), f64c(1.0)),
        lp(
            k,
            int(0),
            b.v(nn),
            1,
            vec![
                if_(b.v(s).cmp(BinOp::Gt, f64c(1.2)), vec![assign(sc(s), b.v(s) * 0.5)], vec![]),
                if_(
                    xk().cmp(BinOp::Gt, f64c(1.0)),
                    vec![assign(sc(s), b.v(s) * xk())],
                    vec![assign(sc(s), b.v(s) + sin(xk()))],
                ),
            ],
        ),
        assign(sc(ret), b.v(s)),
    ];
    b.finish(body)
}

/// f32 elementwise kernel.
pub fn float32() -> Function {
    let mut b = B::new("f32k");
    let nn = b.size("N");
    let x = b.param("x", array(Scalar::F32, vec![b.v(nn)]), Intent::In);
    let ret = b.ret("ret", array(Scalar::F32, vec![b.v(nn)]));
    let i = b.index("i");
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![assign(at(ret, vec![b.v(i)]), tanh(b.ld(x, vec![b.v(i)]) * 2.0) + b.ld(x, vec![b.v(i)]))],
    )];
    b.finish(body)
}

/// A temporary array (`np.empty`) then a sum.
pub fn temporary() -> Function {
    let mut b = B::new("tmp");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let ret = b.ret("ret", F64);
    let t = b.temp("T", vec1(&b, nn));
    let i = b.index("i");
    let body = vec![
        alloc(t),
        map(vec![(i, int(0), b.v(nn))], vec![assign(at(t, vec![b.v(i)]), sqrt(b.ld(x, vec![b.v(i)])))]),
        assign(sc(ret), f64c(0.0)),
        map(
            vec![(i, int(0), b.v(nn))],
            vec![acc(sc(ret), AccOp::Add, b.ld(t, vec![b.v(i)]) * b.ld(x, vec![b.v(i)]), true)],
        ),
        free(t),
    ];
    b.finish(body)
}

/// `min=` and `*=` accumulations in a sequential loop.
pub fn accumulations() -> Function {
    let mut b = B::new("accs");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let ret = b.ret("ret", F64);
    let (m, p) = (b.local("m", F64), b.local("p", F64));
    let k = b.index("k");
    let body = vec![
        assign(sc(m), f64c(f64::INFINITY)),
        assign(sc(p), f64c(1.0)),
        lp(
            k,
            int(0),
            b.v(nn),
            1,
            vec![
                acc(sc(m), AccOp::Min, b.ld(x, vec![b.v(k)]) * b.ld(x, vec![b.v(k)]), false),
                acc(sc(p), AccOp::Mul, b.ld(x, vec![b.v(k)]) + b.v(m), false),
            ],
        ),
        assign(sc(ret), b.v(m) * b.v(p)),
    ];
    b.finish(body)
}

/// `np.prod(A, axis=1)` written as a loop: the map must run sequentially.
pub fn row_product() -> Function {
    let mut b = B::new("rowprod");
    let (nn, mm) = (b.size("N"), b.size("M"));
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), b.v(mm)]), Intent::In);
    let ret = b.ret("ret", vec1(&b, nn));
    let p = b.temp("p", F64);
    let (i, k) = (b.index("i"), b.index("k"));
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![
            assign(sc(p), f64c(1.0)),
            lp(k, int(0), b.v(mm), 1, vec![assign(sc(p), b.v(p) * b.ld(a, vec![b.v(i), b.v(k)]))]),
            assign(at(ret, vec![b.v(i)]), b.v(p) * 2.0),
        ],
    )];
    b.finish(body)
}

/// Max over two axes (a max-pool window): `ret[i] = max_{p,q} A[i, p, q]`.
pub fn pool() -> Function {
    let mut b = B::new("pool");
    let (nn, mm) = (b.size("N"), b.size("M"));
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), int(2), b.v(mm)]), Intent::In);
    let ret = b.ret("ret", vec1(&b, nn));
    let (i, p, q) = (b.index("i"), b.index("p"), b.index("q"));
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![
            assign(at(ret, vec![b.v(i)]), f64c(f64::NEG_INFINITY)),
            lp(
                p,
                int(0),
                int(2),
                1,
                vec![lp(
                    q,
                    int(0),
                    b.v(mm),
                    1,
                    vec![acc(at(ret, vec![b.v(i)]), AccOp::Max, sin(b.ld(a, vec![b.v(i), b.v(p), b.v(q)])), false)],
                )],
            ),
        ],
    )];
    b.finish(body)
}

/// A max-accumulation into an existing (in-out) value: the initial value may win.
pub fn max_into() -> Function {
    let mut b = B::new("max_into");
    let (nn, mm) = (b.size("N"), b.size("M"));
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), b.v(mm)]), Intent::In);
    let bb = b.param("B", vec1(&b, nn), Intent::InOut);
    let (i, k) = (b.index("i"), b.index("k"));
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![lp(
            k,
            int(0),
            b.v(mm),
            1,
            vec![acc(at(bb, vec![b.v(i)]), AccOp::Max, b.ld(a, vec![b.v(i), b.v(k)]), false)],
        )],
    )];
    b.finish(body)
}

/// `m = -inf; for k: m = max(m, x[k]**2); return m * 2` (a sequential max at top level).
pub fn seq_max() -> Function {
    let mut b = B::new("seq_max");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let ret = b.ret("ret", F64);
    let mv = b.local("m", F64);
    let k = b.index("k");
    let body = vec![
        assign(sc(mv), f64c(f64::NEG_INFINITY)),
        lp(k, int(0), b.v(nn), 1, vec![acc(sc(mv), AccOp::Max, b.ld(x, vec![b.v(k)]) * b.ld(x, vec![b.v(k)]), false)]),
        assign(sc(ret), b.v(mv) * 2.0),
    ];
    b.finish(body)
}

/// An integer counter that changes in the loop and indexes the data.
pub fn counter() -> Function {
    let mut b = B::new("counter");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let y = b.param("y", vec1(&b, nn), Intent::InOut);
    let j = b.local("j", I64);
    let k = b.index("k");
    let body = vec![
        assign(sc(j), b.v(nn) - 1),
        lp(
            k,
            int(0),
            b.v(nn),
            1,
            vec![
                assign(at(y, vec![b.v(j)]), b.ld(y, vec![b.v(j)]) * b.ld(x, vec![b.v(k)]) + sin(b.ld(y, vec![b.v(k)]))),
                assign(sc(j), b.v(j) - 1),
            ],
        ),
    ];
    b.finish(body)
}

/// `if` inside a map body: on the input (evaluated again) and on a private scalar.
pub fn map_if() -> Function {
    let mut b = B::new("map_if");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let y = b.ret("ret", vec1(&b, nn));
    let t = b.temp("t", F64);
    let i = b.index("i");
    let xi = || b.ld(x, vec![b.v(i)]);
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![
            if_(
                xi().cmp(BinOp::Gt, f64c(1.0)),
                vec![assign(at(y, vec![b.v(i)]), xi() * xi())],
                vec![assign(at(y, vec![b.v(i)]), sin(xi()))],
            ),
            assign(sc(t), b.ld(y, vec![b.v(i)]) * 3.0),
            if_(b.v(t).cmp(BinOp::Gt, f64c(2.5)), vec![assign(sc(t), b.v(t) * b.v(t))], vec![]),
            acc(at(y, vec![b.v(i)]), AccOp::Add, b.v(t) * xi(), false),
        ],
    )];
    b.finish(body)
}

/// Writes two interleaved halves of `B` in one map inside a time loop (non-injective
/// writes: the whole array is taped).
pub fn interleaved() -> Function {
    let mut b = B::new("interleaved");
    let ts = b.param("T", I64, Intent::In);
    let h = b.size("H");
    let a = b.param("A", vec1(&b, h), Intent::In);
    let bb = b.param("B", array(Scalar::F64, vec![b.v(h) * 2]), Intent::InOut);
    let (t, i) = (b.index("t"), b.index("i"));
    let body = vec![lp(
        t,
        int(0),
        b.v(ts),
        1,
        vec![map(
            vec![(i, int(0), b.v(h))],
            vec![
                assign(at(bb, vec![b.v(i) * 2]), b.ld(a, vec![b.v(i)]) * b.ld(bb, vec![b.v(i) * 2])),
                assign(at(bb, vec![b.v(i) * 2 + 1]), sin(b.ld(bb, vec![b.v(i) * 2 + 1]))),
            ],
        )],
    )];
    b.finish(body)
}

/// A product reduction in a parallel map: runs sequentially in the adjoint.
pub fn shared_product() -> Function {
    let mut b = B::new("shared_product");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let ret = b.ret("ret", F64);
    let i = b.index("i");
    let body = vec![
        assign(sc(ret), f64c(1.0)),
        map(vec![(i, int(0), b.v(nn))], vec![acc(sc(ret), AccOp::Mul, b.ld(x, vec![b.v(i)]), true)]),
    ];
    b.finish(body)
}

/// `C = A @ B` written with an inner loop.
pub fn matmul() -> Function {
    let mut b = B::new("matmul");
    let (nn, kk, mm) = (b.size("N"), b.size("K"), b.size("M"));
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), b.v(kk)]), Intent::In);
    let bm = b.param("B", array(Scalar::F64, vec![b.v(kk), b.v(mm)]), Intent::In);
    let c = b.ret("ret", array(Scalar::F64, vec![b.v(nn), b.v(mm)]));
    let (i, j, k) = (b.index("i"), b.index("j"), b.index("k"));
    let body = vec![map(
        vec![(i, int(0), b.v(nn)), (j, int(0), b.v(mm))],
        vec![
            assign(at(c, vec![b.v(i), b.v(j)]), f64c(0.0)),
            lp(
                k,
                int(0),
                b.v(kk),
                1,
                vec![acc(
                    at(c, vec![b.v(i), b.v(j)]),
                    AccOp::Add,
                    b.ld(a, vec![b.v(i), b.v(k)]) * b.ld(bm, vec![b.v(k), b.v(j)]),
                    false,
                )],
            ),
        ],
    )];
    b.finish(body)
}

/// Softmax over the last axis, NumPy style (max, exp, sum, in-place divide).
pub fn softmax() -> Function {
    let mut b = B::new("softmax");
    let (nn, mm) = (b.size("N"), b.size("M"));
    let x = b.param("x", array(Scalar::F64, vec![b.v(nn), b.v(mm)]), Intent::In);
    let ret = b.ret("ret", array(Scalar::F64, vec![b.v(nn), b.v(mm)]));
    let mx = b.temp("mx", vec1(&b, nn));
    let s = b.temp("s", vec1(&b, nn));
    let (i, j, k) = (b.index("i"), b.index("j"), b.index("k"));
    let body = vec![
        alloc(mx),
        alloc(s),
        map(
            vec![(i, int(0), b.v(nn))],
            vec![
                assign(at(mx, vec![b.v(i)]), f64c(f64::NEG_INFINITY)),
                lp(
                    k,
                    int(0),
                    b.v(mm),
                    1,
                    vec![acc(at(mx, vec![b.v(i)]), AccOp::Max, b.ld(x, vec![b.v(i), b.v(k)]), false)],
                ),
            ],
        ),
        map(
            vec![(i, int(0), b.v(nn)), (j, int(0), b.v(mm))],
            vec![assign(at(ret, vec![b.v(i), b.v(j)]), exp(b.ld(x, vec![b.v(i), b.v(j)]) - b.ld(mx, vec![b.v(i)])))],
        ),
        map(
            vec![(i, int(0), b.v(nn))],
            vec![
                assign(at(s, vec![b.v(i)]), f64c(0.0)),
                lp(
                    k,
                    int(0),
                    b.v(mm),
                    1,
                    vec![acc(at(s, vec![b.v(i)]), AccOp::Add, b.ld(ret, vec![b.v(i), b.v(k)]), false)],
                ),
            ],
        ),
        map(
            vec![(i, int(0), b.v(nn)), (j, int(0), b.v(mm))],
            vec![assign(at(ret, vec![b.v(i), b.v(j)]), b.ld(ret, vec![b.v(i), b.v(j)]) / b.ld(s, vec![b.v(i)]))],
        ),
        free(mx),
        free(s),
    ];
    b.finish(body)
}

/// Softmax into `ret` through `e = exp(x - max)` and `s = sum(e)`, with `exp_out`
/// (`e`, or the max or the sum) an output of its own whose adjoint the caller seeds, or
/// (`"ret"`) `ret` holding `x * x` before, which `sq = ret * ret` reads.
pub fn softmax_exposed(exp_out: &str) -> Function {
    let mut b = B::new("softmax_exposed");
    let (nn, mm) = (b.size("N"), b.size("M"));
    let x = b.param("x", array(Scalar::F64, vec![b.v(nn), b.v(mm)]), Intent::In);
    let ret = b.ret("ret", array(Scalar::F64, vec![b.v(nn), b.v(mm)]));
    let full = |b: &B| array(Scalar::F64, vec![b.v(nn), b.v(mm)]);
    let row = |b: &B| array(Scalar::F64, vec![b.v(nn), int(1)]);
    let mut local = Vec::new();
    let mut var = |b: &mut B, name: &str, ty: adjc_ir::Type| {
        if name == exp_out {
            b.param(name, ty, Intent::Out)
        } else {
            let v = b.local(name, ty);
            local.push(v);
            v
        }
    };
    let e_ty = full(&b);
    let e = var(&mut b, "e", e_ty);
    let mx_ty = row(&b);
    let mx = var(&mut b, "mx", mx_ty);
    let s_ty = row(&b);
    let s = var(&mut b, "s", s_ty);
    let (i, j, k) = (b.index("i"), b.index("j"), b.index("k"));
    let rows = |b: &B| vec![(i, int(0), b.v(nn)), (j, int(0), int(1))];
    let all = |b: &B| vec![(i, int(0), b.v(nn)), (j, int(0), b.v(mm))];
    let reduce = |b: &B, t: VarId, init: f64, op: AccOp, src: VarId| {
        map(
            rows(b),
            vec![
                assign(at(t, vec![b.v(i), b.v(j)]), f64c(init)),
                lp(
                    k,
                    int(0),
                    b.v(mm),
                    1,
                    vec![acc(at(t, vec![b.v(i), b.v(j)]), op, b.ld(src, vec![b.v(i), b.v(k)]), false)],
                ),
            ],
        )
    };
    let mut body: Vec<Stmt> = local.iter().map(|v| alloc(*v)).collect();
    if exp_out == "ret" {
        let sq = b.param("sq", full(&b), Intent::Out);
        let own = |b: &B, v: VarId| b.ld(v, vec![b.v(i), b.v(j)]);
        body.push(map(all(&b), vec![assign(at(ret, vec![b.v(i), b.v(j)]), own(&b, x) * own(&b, x))]));
        body.push(map(all(&b), vec![assign(at(sq, vec![b.v(i), b.v(j)]), own(&b, ret) * own(&b, ret))]));
    }
    body.extend([
        reduce(&b, mx, f64::NEG_INFINITY, AccOp::Max, x),
        map(
            all(&b),
            vec![assign(
                at(e, vec![b.v(i), b.v(j)]),
                exp(b.ld(x, vec![b.v(i), b.v(j)]) - b.ld(mx, vec![b.v(i), int(0)])),
            )],
        ),
        reduce(&b, s, 0.0, AccOp::Add, e),
        map(
            all(&b),
            vec![assign(at(ret, vec![b.v(i), b.v(j)]), b.ld(e, vec![b.v(i), b.v(j)]) / b.ld(s, vec![b.v(i), int(0)]))],
        ),
    ]);
    body.extend(local.iter().map(|v| free(*v)));
    b.finish(body)
}

/// `ret[1:-1] = x[1:-1] ** 2`: an output written only in part.
pub fn partial_output() -> Function {
    let mut b = B::new("partial");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let ret = b.ret("ret", vec1(&b, nn));
    let i = b.index("i");
    let body = vec![
        map(vec![(i, int(0), b.v(nn))], vec![assign(at(ret, vec![b.v(i)]), f64c(0.0))]),
        map(
            vec![(i, int(1), b.v(nn) - 1)],
            vec![assign(
                at(ret, vec![b.v(i)]),
                E::call(adjc_ir::Intrinsic::Pow, vec![b.ld(x, vec![b.v(i)]), f64c(2.0)]),
            )],
        ),
    ];
    b.finish(body)
}

/// A time loop updating a scalar and an array in place with a nonlinear map.
pub fn time_loop_scalar() -> Function {
    let mut b = B::new("decay");
    let ts = b.param("T", I64, Intent::In);
    let nn = b.size("N");
    let alpha = b.param("alpha", F64, Intent::In);
    let u = b.param("u", vec1(&b, nn), Intent::InOut);
    let ret = b.ret("ret", F64);
    let e = b.local("e", F64);
    let w = b.temp("w", F64);
    let (t, i) = (b.index("t"), b.index("i"));
    let body = vec![
        assign(sc(e), f64c(0.0)),
        lp(
            t,
            int(0),
            b.v(ts),
            1,
            vec![
                map(
                    vec![(i, int(0), b.v(nn))],
                    vec![
                        assign(sc(w), b.v(alpha) * b.ld(u, vec![b.v(i)])),
                        assign(at(u, vec![b.v(i)]), b.ld(u, vec![b.v(i)]) - tanh(b.v(w)) * b.v(e)),
                    ],
                ),
                map(vec![(i, int(0), b.v(nn))], vec![acc(sc(e), AccOp::Add, b.ld(u, vec![b.v(i)]) * 0.1, true)]),
            ],
        ),
        assign(sc(ret), b.v(e) * b.v(e)),
    ];
    b.finish(body)
}

/// Fortran style: `b(1:n)` from `a(0:n+1)`, column-major 2-D `c(1:n, 1:2)`, 1-based loop.
pub fn fortran_layout() -> Function {
    use adjc_ir::{Dim, Layout, Type};
    let mut b = B::new("fstencil");
    let nn = b.size("n");
    let a = b.param(
        "a",
        Type::Array {
            elem: Scalar::F64,
            dims: vec![Dim { lower: int(0).0, extent: (b.v(nn) + 2).0 }],
            layout: Layout::ColMajor,
        },
        Intent::In,
    );
    let c = b.param(
        "c",
        Type::Array {
            elem: Scalar::F64,
            dims: vec![Dim { lower: int(1).0, extent: b.v(nn).0 }, Dim { lower: int(1).0, extent: int(2).0 }],
            layout: Layout::ColMajor,
        },
        Intent::InOut,
    );
    let i = b.index("i");
    let body = vec![lp(
        i,
        int(1),
        b.v(nn) + 1,
        1,
        vec![
            assign(at(c, vec![b.v(i), int(1)]), b.ld(a, vec![b.v(i) - 1]) * b.ld(a, vec![b.v(i) + 1])),
            assign(at(c, vec![b.v(i), int(2)]), b.ld(c, vec![b.v(i), int(2)]) * b.ld(c, vec![b.v(i), int(1)])),
        ],
    )];
    b.finish(body)
}

/// Integer indirection: `y = x[idx] * x` (a gather: scattered adjoint accumulations).
pub fn gather() -> Function {
    let mut b = B::new("gather");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let idx = b.param("idx", array(Scalar::I64, vec![b.v(nn)]), Intent::In);
    let ret = b.ret("ret", vec1(&b, nn));
    let i = b.index("i");
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![assign(at(ret, vec![b.v(i)]), b.ld(x, vec![b.ld(idx, vec![b.v(i)])]) * b.ld(x, vec![b.v(i)]))],
    )];
    b.finish(body)
}

/// Fortran scalars: `s` intent(inout), `r` intent(out).
pub fn fortran_scalars() -> Function {
    let mut b = B::new("fscal");
    let nn = b.size("n");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let s = b.param("s", F64, Intent::InOut);
    let r = b.param("r", F64, Intent::Out);
    let k = b.index("k");
    let body = vec![
        assign(sc(r), f64c(0.0)),
        lp(
            k,
            int(0),
            b.v(nn),
            1,
            vec![assign(sc(s), b.v(s) * b.ld(x, vec![b.v(k)]) + 0.1), acc(sc(r), AccOp::Add, b.v(s) * b.v(s), false)],
        ),
    ];
    b.finish(body)
}

/// `for k in range(1, N): c = a[k] * 2; z = k * k; y[k] = y[k-1] * c + sin(0.01 * z * y[k])`:
/// `c` and `z` depend on nothing the loop changes (recomputed, not taped); `y` is a
/// recurrence.
pub fn recomputable() -> Function {
    let mut b = B::new("recomp");
    let nn = b.size("N");
    let a = b.param("a", vec1(&b, nn), Intent::In);
    let y = b.param("y", vec1(&b, nn), Intent::InOut);
    let c = b.local("c", F64);
    let z = b.local("z", F64);
    let k = b.index("k");
    let kf = || E(b.v(k).0.cast(Scalar::F64));
    let body = vec![lp(
        k,
        int(1),
        b.v(nn),
        1,
        vec![
            assign(sc(c), b.ld(a, vec![b.v(k)]) * 2.0),
            assign(sc(z), kf() * kf()),
            assign(
                at(y, vec![b.v(k)]),
                b.ld(y, vec![b.v(k) - 1]) * b.v(c) + sin(0.01 * b.v(z) * b.ld(y, vec![b.v(k)])),
            ),
        ],
    )];
    b.finish(body)
}

/// `for i in range(N): for j in range(i): A[i, j] = A[i, j] * A[j, j] + sin(A[i, j])`:
/// a triangular nest; `middle`: with `for k in range(2):` between the two loops.
pub fn triangular(middle: bool) -> Function {
    let mut b = B::new("tri");
    let nn = b.size("N");
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), b.v(nn)]), Intent::InOut);
    let (i, j, k) = (b.index("i"), b.index("j"), b.index("k"));
    let aij = || b.ld(a, vec![b.v(i), b.v(j)]);
    let inner = lp(
        j,
        int(0),
        b.v(i),
        1,
        vec![assign(at(a, vec![b.v(i), b.v(j)]), aij() * b.ld(a, vec![b.v(j), b.v(j)]) * 0.5 + sin(aij()))],
    );
    let inner = if middle { lp(k, int(0), int(2), 1, vec![inner]) } else { inner };
    let outer = lp(i, int(0), b.v(nn), 1, vec![inner]);
    b.finish(vec![outer])
}

/// `p = 0.5; for i in range(N): for j in range(i * i): p = sin(p) * x[i] + 0.1; return p`:
/// the trip count of `j` is not affine in `i`.
pub fn square_trips() -> Function {
    let mut b = B::new("square_trips");
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let ret = b.ret("ret", F64);
    let p = b.local("p", F64);
    let (i, j) = (b.index("i"), b.index("j"));
    let body = vec![
        assign(sc(p), f64c(0.5)),
        lp(
            i,
            int(0),
            b.v(nn),
            1,
            vec![lp(j, int(0), b.v(i) * b.v(i), 1, vec![assign(sc(p), sin(b.v(p)) * b.ld(x, vec![b.v(i)]) + 0.1)])],
        ),
        assign(sc(ret), b.v(p)),
    ];
    b.finish(body)
}

/// `for i in range(1, N): A[i, 1:-1] = sin(A[i, 1:-1]) * B[i - 1, 1:-1]`: a row region
/// per iteration.
pub fn rows() -> Function {
    let mut b = B::new("rows");
    let (nn, mm) = (b.size("N"), b.size("M"));
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), b.v(mm)]), Intent::InOut);
    let bb = b.param("B", array(Scalar::F64, vec![b.v(nn), b.v(mm)]), Intent::In);
    let (i, k) = (b.index("i"), b.index("k"));
    let body = vec![lp(
        i,
        int(1),
        b.v(nn),
        1,
        vec![map(
            vec![(k, int(1), b.v(mm) - 1)],
            vec![assign(
                at(a, vec![b.v(i), b.v(k)]),
                sin(b.ld(a, vec![b.v(i), b.v(k)])) * b.ld(bb, vec![b.v(i) - 1, b.v(k)]),
            )],
        )],
    )];
    b.finish(body)
}

/// Library calls chained: `T = A @ B.T` (gemm), `y = 2 A x + 0.5 y` (gemv, in place),
/// `T += 0.5 outer(y, B[:, 1])` (ger of a column slice), `ret = T[0, 1:] . T[N-1, :M-1]`
/// (dot of shifted row slices), so every adjoint rule and every view kind is exercised.
pub fn blas_chain() -> Function {
    let mut b = B::new("blas_chain");
    let (nn, kk, mm) = (b.size("N"), b.size("K"), b.size("M"));
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), b.v(kk)]), Intent::In);
    let bm = b.param("B", array(Scalar::F64, vec![b.v(mm), b.v(kk)]), Intent::In);
    let x = b.param("x", array(Scalar::F64, vec![b.v(kk)]), Intent::In);
    let y = b.param("y", array(Scalar::F64, vec![b.v(nn)]), Intent::InOut);
    let ret = b.ret("ret", F64);
    let t = b.temp("T", array(Scalar::F64, vec![b.v(nn), b.v(mm)]));
    let whole = |b: &B, v: VarId| View::whole(b.f.var(v).ty.dims());
    let call = |op, out, out_view, args: [(VarId, View); 2], alpha: f64, beta: f64| {
        let [(a0, v0), (a1, v1)] = args;
        Stmt::new(
            StmtKind::Call(LibCall {
                op,
                out,
                out_view,
                args: vec![a0, a1],
                arg_views: vec![v0, v1],
                alpha: f64c(alpha).0,
                beta: f64c(beta).0,
            }),
            Span::NONE,
        )
    };
    let (va, vb, vx, vy, vt) = (whole(&b, a), whole(&b, bm), whole(&b, x), whole(&b, y), whole(&b, t));
    let row = |r: Expr, c0: i64, len: Expr| View { start: vec![r, Expr::int(c0)], axes: vec![1], extents: vec![len] };
    let m1 = b.v(mm).0.sub(Expr::int(1));
    let col1 = View { start: vec![Expr::int(0), Expr::int(1)], axes: vec![0], extents: vec![b.v(mm).0] };
    let body = vec![
        Stmt::new(StmtKind::Alloc(t), Span::NONE),
        call(LibOp::Gemm, t, vt.clone(), [(a, va.clone()), (bm, vb.t())], 1.0, 0.0),
        call(LibOp::Gemv, y, vy.clone(), [(a, va), (x, vx)], 2.0, 0.5),
        call(LibOp::Ger, t, vt, [(y, vy), (bm, col1)], 0.5, 1.0),
        call(
            LibOp::Dot,
            ret,
            View::scalar(),
            [(t, row(Expr::int(0), 1, m1.clone())), (t, row(b.v(nn).0.sub(Expr::int(1)), 0, m1))],
            1.0,
            0.0,
        ),
    ];
    b.finish(body)
}

/// `for i: y[i] = 2 A[i, :] . x + 0.5 y[i]`: dots into elements of an array, whose
/// adjoints seed from (and scale) elements of `y_b`.
pub fn dot_into_elements() -> Function {
    let mut b = B::new("dot_rows");
    let (nn, kk) = (b.size("N"), b.size("K"));
    let a = b.param("A", array(Scalar::F64, vec![b.v(nn), b.v(kk)]), Intent::In);
    let x = b.param("x", array(Scalar::F64, vec![b.v(kk)]), Intent::In);
    let y = b.param("y", array(Scalar::F64, vec![b.v(nn)]), Intent::InOut);
    let i = b.index("i");
    let row = View { start: vec![b.v(i).0, Expr::int(0)], axes: vec![1], extents: vec![b.v(kk).0] };
    let yi = View { start: vec![b.v(i).0], axes: vec![], extents: vec![] };
    let dot = Stmt::new(
        StmtKind::Call(LibCall {
            op: LibOp::Dot,
            out: y,
            out_view: yi,
            args: vec![a, x],
            arg_views: vec![row, View::whole(b.f.var(x).ty.dims())],
            alpha: f64c(2.0).0,
            beta: f64c(0.5).0,
        }),
        Span::NONE,
    );
    let body = vec![lp(i, int(0), b.v(nn), 1, vec![dot])];
    b.finish(body)
}

/// A temporary the code before a time loop leaves for its adjoint, which the loop then
/// overwrites every step without carrying it (not loop state; vadv's `divided`):
///
/// ```text
/// v = sin(x); ret = sum(v * v)
/// for t in range(1, T): v = u * u; u = sin(u) * v
/// ret += sum(u)
/// ```
pub fn time_loop_overwrites_a_temporary() -> Function {
    let mut b = B::new("overwrite");
    let ts = b.param("T", I64, Intent::In);
    let nn = b.size("N");
    let x = b.param("x", vec1(&b, nn), Intent::In);
    let u = b.param("u", vec1(&b, nn), Intent::InOut);
    let ret = b.ret("ret", F64);
    let v = b.local("v", vec1(&b, nn));
    let (t, i) = (b.index("t"), b.index("i"));
    let all = |b: &B| vec![(i, int(0), b.v(nn))];
    let (vi, ui) = (|b: &B| b.ld(v, vec![b.v(i)]), |b: &B| b.ld(u, vec![b.v(i)]));
    let body = vec![
        alloc(v),
        map(all(&b), vec![assign(at(v, vec![b.v(i)]), sin(b.ld(x, vec![b.v(i)])))]),
        assign(sc(ret), f64c(0.0)),
        map(all(&b), vec![acc(sc(ret), AccOp::Add, vi(&b) * vi(&b), true)]),
        lp(
            t,
            int(1),
            b.v(ts),
            1,
            vec![
                map(all(&b), vec![assign(at(v, vec![b.v(i)]), ui(&b) * ui(&b))]),
                map(all(&b), vec![assign(at(u, vec![b.v(i)]), sin(ui(&b)) * vi(&b))]),
            ],
        ),
        map(all(&b), vec![acc(sc(ret), AccOp::Add, ui(&b), true)]),
        free(v),
    ];
    b.finish(body)
}
