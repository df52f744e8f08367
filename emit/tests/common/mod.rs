//! Hand-built IR for the emitter's tests: the sample kernels, built with the shared test
//! builder, and helpers that give statements their source lines.
#![allow(dead_code)]

use adjc_emit::{emit_c, CFiles, EmitOptions};
use adjc_ir::*;

pub fn sp(line: u32) -> Span {
    Span { line, col: 1, start: 0, end: 0 }
}

pub fn int(v: i64) -> Expr {
    Expr::int(v)
}

pub fn f64c(v: f64) -> Expr {
    Expr::float(v, Scalar::F64)
}

pub fn f32c(v: f64) -> Expr {
    Expr::float(v, Scalar::F32)
}

/// The one IR builder of the tests (`adjc_ir::testing::builder`): emit's samples give each
/// statement its source line (the C quotes it), so they use `B::at`, `push` and
/// `finish_as_built`.
pub use adjc_ir::testing::builder::B;

/// A zero-based row-major array whose extents are the size variables `sizes`.
pub fn sized(elem: Scalar, sizes: &[VarId]) -> Type {
    array_ty(elem, sizes.iter().map(|v| Expr::var(*v, Scalar::I64)).collect())
}

pub fn array_ty(elem: Scalar, extents: Vec<Expr>) -> Type {
    Type::Array { elem, dims: extents.into_iter().map(Dim::zero_based).collect(), layout: Layout::RowMajor }
}

pub fn iv(v: VarId) -> Expr {
    Expr::var(v, Scalar::I64)
}

pub fn fv(v: VarId) -> Expr {
    Expr::var(v, Scalar::F64)
}

pub fn ld(a: VarId, idx: Vec<Expr>) -> Expr {
    Expr::load(a, idx, Scalar::F64)
}

pub fn ld32(a: VarId, idx: Vec<Expr>) -> Expr {
    Expr::load(a, idx, Scalar::F32)
}

pub fn assign(target: Place, value: Expr, line: u32) -> Stmt {
    Stmt::assign(target, value, sp(line))
}

pub fn shared_acc(target: Place, op: AccOp, value: Expr, line: u32) -> Stmt {
    Stmt::new(StmtKind::Accumulate { target, op, value, shared: true }, sp(line))
}

pub fn map(dims: Vec<(VarId, Expr, Expr)>, body: Vec<Stmt>, line: u32) -> Stmt {
    let dims = dims.into_iter().map(|(var, start, stop)| MapDim { var, start, stop }).collect();
    Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims, body }), sp(line))
}

pub fn range(var: VarId, start: Expr, stop: Expr, step: Expr, body: Vec<Stmt>, line: u32) -> Stmt {
    Stmt::new(StmtKind::Loop(Loop { id: LoopId::NEW, var, start, stop, step, body }), sp(line))
}

pub fn section(title: &str, body: Vec<Stmt>) -> Stmt {
    Stmt::new(StmtKind::Section { title: title.into(), body }, Span::NONE)
}

pub fn module(file: &str, source: &str, functions: Vec<Function>) -> Module {
    Module { file: file.into(), source: source.into(), functions, continued: vec![] }
}

pub fn emit(m: &Module, stem: &str) -> CFiles {
    let fs: Vec<&Function> = m.functions.iter().collect();
    let opts = EmitOptions {
        stem: stem.into(),
        header_comment: vec![
            "adjc 0.1.0".into(),
            format!("source: {}", m.file),
            format!("command: adjc transpile {}", m.file),
        ],
        ..Default::default()
    };
    match emit_c(m, &fs, &opts) {
        Ok(files) => files,
        Err(d) => panic!("emit failed: {}", d.render(&m.file, &m.source)),
    }
}

// ---------------------------------------------------------------------------------------
// Sample kernels

pub const JACOBI_1D_PY: &str = "import numpy as np

def jacobi_1d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
";

/// PolyBench jacobi_1d: a time loop around two 3-point stencil maps.
pub fn jacobi_1d() -> Module {
    let mut b = B::at("jacobi_1d", sp(1));
    let n = b.size("N");
    let tsteps = b.param("TSTEPS", Type::Scalar(Scalar::I64), Intent::In);
    let a = b.param("A", sized(Scalar::F64, &[n]), Intent::InOut);
    let bb = b.param("B", sized(Scalar::F64, &[n]), Intent::InOut);
    let t = b.index("t");
    let i1 = b.index("i");
    let i2 = b.index("i");
    let stencil = |src: VarId, dst: VarId, i: VarId, line: u32| {
        let x = iv(i);
        let sum = ld(src, vec![x.clone().sub(int(1))])
            .add(ld(src, vec![x.clone()]))
            .add(ld(src, vec![x.clone().add(int(1))]));
        map(
            vec![(i, int(1), iv(n).sub(int(1)))],
            vec![assign(Place::element(dst, vec![x]), f64c(0.33333).mul(sum), line)],
            line,
        )
    };
    let body = vec![stencil(a, bb, i1, 5), stencil(bb, a, i2, 6)];
    b.push(range(t, int(1), iv(tsteps), int(1), body, 4));
    module("examples/python/jacobi_1d.py", JACOBI_1D_PY, vec![b.finish_as_built()])
}

pub const HEAT_2D_PY: &str = "def heat(A, B):
    B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[:-2, 1:-1] + A[2:, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:])
";

/// A 2-D five-point stencil (one collapsed map with index macros).
pub fn heat_2d() -> Module {
    let mut b = B::at("heat", sp(1));
    let n = b.size("N");
    let m = b.size("M");
    let a = b.param("A", sized(Scalar::F64, &[n, m]), Intent::In);
    let bb = b.param("B", sized(Scalar::F64, &[n, m]), Intent::InOut);
    let i = b.index("i");
    let j = b.index("j");
    let (x, y) = (iv(i), iv(j));
    let at = |di: i64, dj: i64| ld(a, vec![x.clone().add(int(di)), y.clone().add(int(dj))]);
    let sum = at(0, 0).add(at(-1, 0)).add(at(1, 0)).add(at(0, -1)).add(at(0, 1));
    b.push(map(
        vec![(i, int(1), iv(n).sub(int(1))), (j, int(1), iv(m).sub(int(1)))],
        vec![assign(Place::element(bb, vec![x.clone(), y.clone()]), f64c(0.2).mul(sum), 2)],
        2,
    ));
    module("heat.py", HEAT_2D_PY, vec![b.finish_as_built()])
}

pub const REDUCE_PY: &str = "def reduce(A, alpha):
    s = np.sum(A * alpha)
    m = np.max(A)
    return s + m
";

/// Full reductions into local scalars (reduction clauses) and a shared accumulation into
/// an out scalar (atomic), returning a scalar by pointer.
pub fn reduce() -> Module {
    let mut b = B::at("reduce", sp(1));
    let n = b.size("N");
    let a = b.param("A", sized(Scalar::F64, &[n]), Intent::In);
    let alpha = b.param("alpha", Type::Scalar(Scalar::F64), Intent::In);
    let ret = b.param_with("ret", Type::Scalar(Scalar::F64), VarRole::Return, Intent::Out, "the returned value");
    let s = b.local("s", Type::Scalar(Scalar::F64));
    let m = b.local("m", Type::Scalar(Scalar::F64));
    let i = b.index("i");
    let i2 = b.index("i");
    b.push(assign(Place::scalar(s), f64c(0.0), 2));
    b.push(map(
        vec![(i, int(0), iv(n))],
        vec![shared_acc(Place::scalar(s), AccOp::Add, ld(a, vec![iv(i)]).mul(fv(alpha)), 2)],
        2,
    ));
    b.push(assign(Place::scalar(m), f64c(f64::NEG_INFINITY), 3));
    b.push(assign(Place::scalar(ret), f64c(0.0), 3));
    b.push(map(
        vec![(i2, int(0), iv(n))],
        vec![
            shared_acc(Place::scalar(m), AccOp::Max, ld(a, vec![iv(i2)]), 3),
            shared_acc(Place::scalar(ret), AccOp::Add, ld(a, vec![iv(i2)]).neg(), 3),
        ],
        3,
    ));
    b.push(Stmt::accumulate(Place::scalar(ret), fv(s).add(fv(m)), sp(4)));
    module("reduce.py", REDUCE_PY, vec![b.finish_as_built()])
}

pub const SQUARE_PY: &str = "def kern(TSTEPS, A):
    for t in range(TSTEPS):
        A[:] = np.sin(A) * A
";

/// A hand-written adjoint in the shape autodiff produces: forward and reverse sections, a
/// closed-form tape (an allocated 2-D local array), a reversed loop with step -1, and an
/// iteration-private scalar inside a map.
pub fn kern_b() -> Module {
    let mut b = B::at("kern_b", sp(1));
    let n = b.size("N");
    let tsteps = b.param("TSTEPS", Type::Scalar(Scalar::I64), Intent::In);
    let a = b.param("A", sized(Scalar::F64, &[n]), Intent::InOut);
    let a_ty = b.f.var(a).ty.clone();
    let a_b = b.param_with(
        "A_b",
        a_ty,
        VarRole::Adjoint(a),
        Intent::InOut,
        "on entry: seed for the final A\non exit: gradient with respect to the initial A",
    );
    let tape = b.var("A_tape", array_ty(Scalar::F64, vec![iv(tsteps), iv(n)]), VarRole::Tape);
    let t = b.index("t");
    let i = b.index("i");
    let t2 = b.index("t");
    let i2 = b.index("i");
    let old = b.local("a", Type::Scalar(Scalar::F64));
    let x = iv(i);
    let sin = |e: Expr| Expr::call(Intrinsic::Sin, vec![e], Scalar::F64);
    let cos = |e: Expr| Expr::call(Intrinsic::Cos, vec![e], Scalar::F64);
    let fwd = vec![
        Stmt::new(StmtKind::Alloc(tape), sp(3)),
        range(
            t,
            int(0),
            iv(tsteps),
            int(1),
            vec![map(
                vec![(i, int(0), iv(n))],
                vec![
                    assign(Place::element(tape, vec![iv(t), x.clone()]), ld(a, vec![x.clone()]), 3)
                        .with_note("tape of A"),
                    assign(
                        Place::element(a, vec![x.clone()]),
                        sin(ld(a, vec![x.clone()])).mul(ld(a, vec![x.clone()])),
                        3,
                    ),
                ],
                3,
            )],
            2,
        ),
    ];
    let y = iv(i2);
    let deriv = cos(fv(old)).mul(fv(old)).add(sin(fv(old)));
    let rev = vec![
        range(
            t2,
            iv(tsteps).sub(int(1)),
            int(-1),
            int(-1),
            vec![map(
                vec![(i2, int(0), iv(n))],
                vec![
                    assign(Place::scalar(old), ld(tape, vec![iv(t2), y.clone()]), 3)
                        .with_note("recomputed: A before step t"),
                    assign(Place::element(a_b, vec![y.clone()]), ld(a_b, vec![y.clone()]).mul(deriv), 3),
                ],
                3,
            )],
            2,
        ),
        Stmt::new(StmtKind::Free(tape), sp(3)),
    ];
    b.push(section("forward sweep", fwd));
    b.push(section("reverse sweep", rev));
    module("kern.py", SQUARE_PY, vec![b.finish_as_built()])
}

pub const STENCIL_PY: &str = "def smooth(A, B):
    B[1:-1] = 0.5 * (A[:-2] + A[2:])
";

/// Adjoint of a stencil: scattered `shared` accumulations into an array (atomics).
pub fn smooth_b() -> Module {
    let mut b = B::at("smooth_b", sp(1));
    let n = b.size("N");
    let a = b.param("A", sized(Scalar::F64, &[n]), Intent::In);
    let a_ty = b.f.var(a).ty.clone();
    let a_b = b.param_with("A_b", a_ty.clone(), VarRole::Adjoint(a), Intent::InOut, "incremented by the gradient");
    let bb = b.param("B", sized(Scalar::F64, &[n]), Intent::InOut);
    let b_b = b.param_with("B_b", a_ty, VarRole::Adjoint(bb), Intent::InOut, "seed; zero on exit");
    let i = b.index("i");
    let i2 = b.index("i");
    let x = iv(i);
    let half_seed = f64c(0.5).mul(ld(b_b, vec![x.clone()]));
    b.push(section(
        "forward sweep",
        vec![map(
            vec![(i2, int(1), iv(n).sub(int(1)))],
            vec![assign(
                Place::element(bb, vec![iv(i2)]),
                f64c(0.5).mul(ld(a, vec![iv(i2).sub(int(1))]).add(ld(a, vec![iv(i2).add(int(1))]))),
                2,
            )],
            2,
        )],
    ));
    b.push(section(
        "reverse sweep",
        vec![map(
            vec![(i, int(1), iv(n).sub(int(1)))],
            vec![
                shared_acc(Place::element(a_b, vec![x.clone().sub(int(1))]), AccOp::Add, half_seed.clone(), 2),
                shared_acc(Place::element(a_b, vec![x.clone().add(int(1))]), AccOp::Add, half_seed, 2),
                assign(Place::element(b_b, vec![x]), f64c(0.0), 2),
            ],
            2,
        )],
    ));
    module("smooth.py", STENCIL_PY, vec![b.finish_as_built()])
}

pub const CLIP_PY: &str = "def clip(x, lo):
    for i in range(len(x)):
        if x[i] < lo:
            x[i] = lo
";

/// Stack tapes: a branch decision pushed in the forward sweep and popped in reverse, and a
/// map that pushes (so it stays sequential).
pub fn clip_b() -> Module {
    let mut b = B::at("clip_b", sp(1));
    let n = b.size("N");
    let x = b.param("x", sized(Scalar::F64, &[n]), Intent::InOut);
    let x_ty = b.f.var(x).ty.clone();
    let x_b = b.param_with("x_b", x_ty, VarRole::Adjoint(x), Intent::InOut, "");
    let lo = b.param("lo", Type::Scalar(Scalar::F64), Intent::In);
    let lo_b = b.param_with("lo_b", Type::Scalar(Scalar::F64), VarRole::Adjoint(lo), Intent::InOut, "incremented");
    let c = b.local("c", Type::Scalar(Scalar::Bool));
    let c_tape = b.var("c_tape", Type::Scalar(Scalar::Bool), VarRole::Tape);
    let i = b.index("i");
    let i2 = b.index("i");
    let x_at = |i: VarId| Place::element(x, vec![iv(i)]);
    let fwd = vec![range(
        i,
        int(0),
        iv(n),
        int(1),
        vec![
            assign(Place::scalar(c), Expr::binary(BinOp::Lt, ld(x, vec![iv(i)]), fv(lo)), 3),
            Stmt::new(StmtKind::Push { tape: c_tape, value: Expr::var(c, Scalar::Bool) }, sp(3))
                .with_note("branch taken"),
            Stmt::new(
                StmtKind::If {
                    cond: Expr::var(c, Scalar::Bool),
                    then_body: vec![assign(x_at(i), fv(lo), 4)],
                    else_body: vec![],
                },
                sp(3),
            ),
        ],
        2,
    )];
    let rev = vec![range(
        i2,
        iv(n).sub(int(1)),
        int(-1),
        int(-1),
        vec![
            Stmt::new(StmtKind::Pop { tape: c_tape, target: Place::scalar(c) }, sp(3)),
            Stmt::new(
                StmtKind::If {
                    cond: Expr::var(c, Scalar::Bool),
                    then_body: vec![
                        Stmt::accumulate(Place::scalar(lo_b), ld(x_b, vec![iv(i2)]), sp(4)),
                        assign(Place::element(x_b, vec![iv(i2)]), f64c(0.0), 4),
                    ],
                    else_body: vec![],
                },
                sp(3),
            ),
        ],
        2,
    )];
    b.push(section("forward sweep", fwd));
    b.push(section("reverse sweep", rev));
    module("clip.py", CLIP_PY, vec![b.finish_as_built()])
}

/// `y = x[::-1]` through a stack tape filled by a map (which must stay sequential).
pub fn reverse_copy() -> Module {
    let mut b = B::at("reverse_copy", sp(1));
    let n = b.size("N");
    let x = b.param("x", sized(Scalar::F64, &[n]), Intent::In);
    let y = b.param("y", sized(Scalar::F64, &[n]), Intent::InOut);
    let tape = b.var("x_tape", Type::Scalar(Scalar::F64), VarRole::Tape);
    let i = b.index("i");
    let j = b.index("i");
    b.push(map(
        vec![(i, int(0), iv(n))],
        vec![Stmt::new(StmtKind::Push { tape, value: ld(x, vec![iv(i)]) }, sp(2))],
        2,
    ));
    b.push(range(
        j,
        int(0),
        iv(n),
        int(1),
        vec![Stmt::new(StmtKind::Pop { tape, target: Place::element(y, vec![iv(j)]) }, sp(3))],
        3,
    ));
    module("rev.py", "def reverse_copy(x, y):\n    push\n    pop\n", vec![b.finish_as_built()])
}

pub const SOFTMAX_PY: &str = "def softmax(x):
    m = np.max(x)
    e = np.exp(x - m)
    return e / np.sum(e)
";

/// A float32 kernel with an allocated temporary, a max reduction and a returned array.
pub fn softmax() -> Module {
    let mut b = B::at("softmax", sp(1));
    let n = b.size("N");
    let x = b.param("x", sized(Scalar::F32, &[n]), Intent::In);
    let ret_ty = array_ty(Scalar::F32, vec![iv(n)]);
    let ret = b.param_with("ret", ret_ty.clone(), VarRole::Return, Intent::Out, "softmax of x");
    let m = b.local("m", Type::Scalar(Scalar::F32));
    let s = b.local("s", Type::Scalar(Scalar::F32));
    let e = b.var("e", ret_ty, VarRole::Local);
    let (i1, i2, i3, i4) = (b.index("i"), b.index("i"), b.index("i"), b.index("i"));
    let f = |v: VarId| Expr::var(v, Scalar::F32);
    b.push(assign(Place::scalar(m), f32c(f64::NEG_INFINITY), 2));
    b.push(map(vec![(i1, int(0), iv(n))], vec![shared_acc(Place::scalar(m), AccOp::Max, ld32(x, vec![iv(i1)]), 2)], 2));
    b.push(Stmt::new(StmtKind::Alloc(e), sp(3)));
    b.push(map(
        vec![(i2, int(0), iv(n))],
        vec![assign(
            Place::element(e, vec![iv(i2)]),
            Expr::call(Intrinsic::Exp, vec![ld32(x, vec![iv(i2)]).sub(f(m))], Scalar::F32),
            3,
        )],
        3,
    ));
    b.push(assign(Place::scalar(s), f32c(0.0), 4));
    b.push(map(vec![(i3, int(0), iv(n))], vec![shared_acc(Place::scalar(s), AccOp::Add, ld32(e, vec![iv(i3)]), 4)], 4));
    b.push(map(
        vec![(i4, int(0), iv(n))],
        vec![assign(
            Place::element(ret, vec![iv(i4)]),
            ld32(e, vec![iv(i4)]).div(f(s)).mul(f32c(1.0)).add(f32c(0.0)),
            4,
        )],
        4,
    ));
    b.push(Stmt::new(StmtKind::Free(e), sp(4)));
    module("softmax.py", SOFTMAX_PY, vec![b.finish_as_built()])
}

/// Names C cannot use as they are, duplicates, and nested loops over the same name.
pub fn renames() -> Module {
    let mut b = B::at("exp", sp(1));
    let n = b.size("N");
    let big_i = b.param("I", sized(Scalar::F64, &[n]), Intent::InOut);
    let y1 = b.param("y1", Type::Scalar(Scalar::F64), Intent::In);
    let kw = b.local("int", Type::Scalar(Scalar::F64));
    let rt = b.local("adjc_tmp", Type::Scalar(Scalar::F64));
    let alpha = b.local("α", Type::Scalar(Scalar::F64));
    let x1 = b.local("x", Type::Scalar(Scalar::F64));
    let x2 = b.local("x", Type::Scalar(Scalar::F64));
    let i_outer = b.index("i");
    let i_inner = b.index("i");
    let j0 = b.index("j0");
    b.push(assign(Place::scalar(kw), fv(y1).mul(f64c(2.0)), 2));
    b.push(assign(Place::scalar(rt), fv(kw).add(f64c(1.0)), 2));
    b.push(assign(Place::scalar(alpha), fv(rt), 3));
    b.push(assign(Place::scalar(x1), fv(alpha), 3));
    b.push(assign(Place::scalar(x2), fv(x1), 3));
    b.push(range(
        i_outer,
        int(0),
        int(2),
        int(1),
        vec![range(
            i_inner,
            int(0),
            iv(n),
            int(1),
            vec![Stmt::accumulate(
                Place::element(big_i, vec![iv(i_inner)]),
                fv(x2).mul(iv(i_outer).cast(Scalar::F64)),
                sp(4),
            )],
            4,
        )],
        4,
    ));
    b.push(map(
        vec![(j0, int(0), iv(n))],
        vec![Stmt::accumulate(Place::element(big_i, vec![iv(j0)]), f64c(1.0), sp(5))],
        5,
    ));
    module(
        "names.py",
        "def exp(I, y1):\n    int = y1 * 2\n    α = x = x = adjc_tmp\n    loops\n    I += 1\n",
        vec![b.finish_as_built()],
    )
}

pub const FORT_SRC: &str = "subroutine fort(n, m, k, a, c)
  do j = 1, m
    c(1:n, j) = merge(1d0, -1d0, a(1:n) > 0) * sign(2d0, a(0:n-1))
  end do
  do i = n, 0, k
    a(i) = a(i) + mod(i, 3) + i / 2 + abs(i - m) + max(i, m)
  end do
  lim = n
  do i = 0, lim - 1
    lim = lim - 1
  end do
";

/// Fortran-style arrays (column-major, lower bounds), a symbolic step, a loop whose bound
/// the body changes, integer helpers, select and casts.
pub fn fort() -> Module {
    let mut b = B::at("fort", sp(1));
    let n = b.param("n", Type::Scalar(Scalar::I64), Intent::In);
    let m = b.param("m", Type::Scalar(Scalar::I64), Intent::In);
    let k = b.param("k", Type::Scalar(Scalar::I64), Intent::In);
    let a_ty = Type::Array {
        elem: Scalar::F64,
        dims: vec![Dim { lower: int(-1), extent: iv(n).add(int(3)) }],
        layout: Layout::ColMajor,
    };
    let c_ty = Type::Array {
        elem: Scalar::F64,
        dims: vec![Dim { lower: int(1), extent: iv(n) }, Dim { lower: int(1), extent: iv(m) }],
        layout: Layout::ColMajor,
    };
    let a = b.param_with("a", a_ty, VarRole::Param, Intent::InOut, "");
    let c = b.param_with("c", c_ty, VarRole::Param, Intent::InOut, "");
    let lim = b.local("lim", Type::Scalar(Scalar::I64));
    let (j, i, i2, i3) = (b.index("j"), b.index("i"), b.index("i"), b.index("i"));
    let cond = Expr::binary(BinOp::Gt, ld(a, vec![iv(i)]), f64c(0.0));
    let merge = Expr::select(cond, f64c(1.0), f64c(-1.0));
    let sign = Expr::call(Intrinsic::Sign, vec![f64c(2.0), ld(a, vec![iv(i).sub(int(1))])], Scalar::F64);
    b.push(range(
        j,
        int(1),
        iv(m).add(int(1)),
        int(1),
        vec![map(
            vec![(i, int(1), iv(n).add(int(1)))],
            vec![assign(Place::element(c, vec![iv(i), iv(j)]), merge.mul(sign), 3)],
            3,
        )],
        2,
    ));
    let x = iv(i2);
    let ints = Expr::binary(BinOp::Mod, x.clone(), int(3))
        .add(Expr::binary(BinOp::Div, x.clone(), int(2)))
        .add(Expr::call(Intrinsic::Abs, vec![x.clone().sub(iv(m))], Scalar::I64))
        .add(Expr::call(Intrinsic::Max, vec![x.clone(), iv(m)], Scalar::I64))
        .add(Expr::binary(BinOp::FloorDiv, x.clone(), int(-2)));
    b.push(range(
        i2,
        iv(n),
        int(0),
        iv(k),
        vec![assign(Place::element(a, vec![x.clone()]), ld(a, vec![x.clone()]).add(ints.cast(Scalar::F64)), 6)],
        5,
    ));
    b.push(assign(Place::scalar(lim), iv(n), 8));
    b.push(range(
        i3,
        int(0),
        Expr::var(lim, Scalar::I64).sub(int(1)).add(int(1)),
        int(1),
        vec![assign(Place::scalar(lim), Expr::var(lim, Scalar::I64).sub(int(1)), 10)],
        9,
    ));
    module("fort.f90", FORT_SRC, vec![b.finish_as_built()])
}

/// Reductions of every kind, an axis reduction, nested maps, atomics and a critical update.
pub fn stats() -> Module {
    let mut b = B::at("stats", sp(1));
    let n = b.size("N");
    let m = b.size("M");
    let a = b.param("A", sized(Scalar::F64, &[n, m]), Intent::In);
    let colmax = b.param("colmax", sized(Scalar::F64, &[m]), Intent::InOut);
    let rowsum = b.param("rowsum", sized(Scalar::F64, &[n]), Intent::InOut);
    let out = b.param("B", sized(Scalar::F64, &[n, m]), Intent::InOut);
    let any = b.param("any", Type::Scalar(Scalar::Bool), Intent::Out);
    let prod = b.param_with("ret", Type::Scalar(Scalar::F64), VarRole::Return, Intent::Out, "the returned value");
    let flag = b.local("flag", Type::Scalar(Scalar::Bool));
    let p = b.local("p", Type::Scalar(Scalar::F64));
    let q = b.local("q", Type::Scalar(Scalar::F64));
    let r = b.local("r", Type::Scalar(Scalar::F64));
    let (i1, j1, i2, j2, i3, i4, i5, j5, i6, j6) = (
        b.index("i"),
        b.index("j"),
        b.index("i"),
        b.index("j"),
        b.index("i"),
        b.index("i"),
        b.index("i"),
        b.index("j"),
        b.index("i"),
        b.index("j"),
    );
    let all = |i: VarId, j: VarId| vec![(i, int(0), iv(n)), (j, int(0), iv(m))];
    b.push(assign(Place::scalar(flag), Expr::boolean(false), 2));
    b.push(map(
        all(i1, j1),
        vec![shared_acc(
            Place::scalar(flag),
            AccOp::Max,
            Expr::binary(BinOp::Gt, ld(a, vec![iv(i1), iv(j1)]), f64c(0.0)),
            2,
        )],
        2,
    ));
    b.push(assign(Place::scalar(any), Expr::var(flag, Scalar::Bool), 2));
    b.push(map(
        all(i2, j2),
        vec![shared_acc(Place::element(colmax, vec![iv(j2)]), AccOp::Max, ld(a, vec![iv(i2), iv(j2)]), 3)],
        3,
    ));
    b.push(assign(Place::scalar(p), f64c(1.0), 4));
    b.push(map(
        vec![(i3, int(0), iv(n))],
        vec![shared_acc(Place::scalar(p), AccOp::Mul, ld(a, vec![iv(i3), int(0)]), 4)],
        4,
    ));
    b.push(assign(Place::scalar(q), f64c(0.0), 5));
    b.push(map(
        vec![(i4, int(0), iv(n))],
        vec![
            shared_acc(Place::scalar(q), AccOp::Add, ld(a, vec![iv(i4), int(0)]), 5),
            shared_acc(Place::scalar(q), AccOp::Mul, f64c(1.0), 5),
        ],
        5,
    ));
    b.push(map(
        vec![(i5, int(0), iv(n))],
        vec![
            assign(Place::scalar(r), f64c(0.0), 6),
            range(
                j5,
                int(0),
                iv(m),
                int(1),
                vec![Stmt::accumulate(Place::scalar(r), ld(a, vec![iv(i5), iv(j5)]), sp(6))],
                6,
            ),
            assign(Place::element(rowsum, vec![iv(i5)]), fv(r), 6),
        ],
        6,
    ));
    b.push(map(
        vec![(i6, int(0), iv(n))],
        vec![map(
            vec![(j6, int(0), iv(m))],
            vec![assign(
                Place::element(out, vec![iv(i6), iv(j6)]),
                ld(a, vec![iv(i6), iv(j6)]).mul(fv(p).add(fv(q))),
                7,
            )],
            7,
        )],
        7,
    ));
    b.push(assign(Place::scalar(prod), fv(p).add(fv(q)), 8));
    module(
        "stats.py",
        "def stats(A, colmax, rowsum, B, any):\n    any = (A > 0).any()\n    colmax max= A\n    p = prod\n    q = weird\n    rowsum = A.sum(axis=1)\n    B = A * (p + q)\n    return p + q\n",
        vec![b.finish_as_built()],
    )
}

/// Scoping corner cases: a scalar private to a sequential map (it pushes) that is also used
/// at the top level, a reduction into a scalar declared in that map's body from a parallel
/// map inside it, and a symbolic step that the loop body changes.
pub fn scopes() -> Module {
    let mut b = B::at("scopes", sp(1));
    let n = b.size("N");
    let a = b.param("A", sized(Scalar::F64, &[n]), Intent::InOut);
    let ret = b.param_with("ret0", Type::Scalar(Scalar::F64), VarRole::Return, Intent::Out, "the returned value");
    let count = b.f.add_var("ret1", Type::Scalar(Scalar::I64), VarRole::Return, Span::NONE);
    b.f.params.push(Param { var: count, intent: Intent::Out, doc: "iterations of the last loop".into() });
    let t = b.local("t", Type::Scalar(Scalar::F64));
    let u = b.local("u", Type::Scalar(Scalar::F64));
    let w = b.local("w", Type::Scalar(Scalar::F64));
    let st = b.local("s", Type::Scalar(Scalar::I64));
    let tape = b.var("t_tape", Type::Scalar(Scalar::F64), VarRole::Tape);
    let (i, j, k, q) = (b.index("i"), b.index("j"), b.index("k"), b.index("q"));
    b.push(assign(Place::scalar(t), f64c(0.0), 2));
    b.push(map(
        vec![(i, int(0), iv(n))],
        vec![
            assign(Place::scalar(t), ld(a, vec![iv(i)]), 4),
            Stmt::new(StmtKind::Push { tape, value: fv(t) }, sp(4)),
            assign(Place::scalar(u), f64c(0.0), 5),
            map(
                vec![(j, int(0), iv(n))],
                vec![
                    assign(Place::scalar(w), ld(a, vec![iv(j)]).mul(fv(t)), 6),
                    shared_acc(Place::scalar(u), AccOp::Add, fv(w), 6),
                ],
                6,
            ),
            assign(Place::element(a, vec![iv(i)]), fv(u), 7),
        ],
        3,
    ));
    b.push(assign(Place::scalar(ret), f64c(0.0), 8));
    b.push(range(
        k,
        int(0),
        iv(n),
        int(1),
        vec![
            Stmt::new(StmtKind::Pop { tape, target: Place::scalar(t) }, sp(9)),
            Stmt::accumulate(Place::scalar(ret), fv(t), sp(9)),
        ],
        9,
    ));
    b.push(assign(Place::scalar(st), int(1), 10));
    b.push(assign(Place::scalar(count), int(0), 10));
    let s_e = Expr::var(st, Scalar::I64);
    b.push(range(
        q,
        int(0),
        int(10),
        s_e.clone(),
        vec![assign(Place::scalar(st), s_e.add(int(1)), 11), Stmt::accumulate(Place::scalar(count), int(1), sp(11))],
        11,
    ));
    let src = "def scopes(A):\n    t = 0\n    for i in range(N):\n        t = A[i]; push(t)\n        u = 0\n        u = sum(A * t)\n        A[i] = u\n    ret0 = 0\n    for k: ret0 += pop()\n    s = 1; ret1 = 0\n    for q in range(0, 10, s): s += 1; ret1 += 1\n";
    module("scopes.py", src, vec![b.finish_as_built()])
}

pub const DOTS_PY: &str = "def dots(A, x, y):
    s = x @ x
    for i in prange(N):
        t = A[i, :] @ x
        y[i] = t * t
";

/// Dot products into scalar locals: one never read (`s`, declared all the same), one
/// inside a parallel map (`t`, private to an iteration).
pub fn dots() -> Module {
    let mut b = B::at("dots", sp(1));
    let (n, m) = (b.size("N"), b.size("M"));
    let a = b.param("A", sized(Scalar::F64, &[n, m]), Intent::In);
    let x = b.param("x", sized(Scalar::F64, &[m]), Intent::In);
    let y = b.param("y", sized(Scalar::F64, &[n]), Intent::InOut);
    let s = b.local("s", Type::Scalar(Scalar::F64));
    let t = b.local("t", Type::Scalar(Scalar::F64));
    let i = b.index("i");
    let vx = View::whole(b.f.var(x).ty.dims());
    let dot = |out, arg: (VarId, View), line| {
        Stmt::new(
            StmtKind::Call(LibCall {
                op: LibOp::Dot,
                out,
                out_view: View::scalar(),
                args: vec![arg.0, x],
                arg_views: vec![arg.1, vx.clone()],
                alpha: f64c(1.0),
                beta: f64c(0.0),
            }),
            sp(line),
        )
    };
    b.push(dot(s, (x, vx.clone()), 2));
    let arow = View { start: vec![iv(i), int(0)], axes: vec![1], extents: vec![iv(m)] };
    b.push(map(
        vec![(i, int(0), iv(n))],
        vec![dot(t, (a, arow), 4), assign(Place::element(y, vec![iv(i)]), fv(t).mul(fv(t)), 5)],
        3,
    ));
    module("dots.py", DOTS_PY, vec![b.finish_as_built()])
}

/// Every sample module, with a file stem for each.
pub fn all_samples() -> Vec<(&'static str, Module)> {
    vec![
        ("jacobi_1d", jacobi_1d()),
        ("heat", heat_2d()),
        ("reduce", reduce()),
        ("kern_b", kern_b()),
        ("smooth_b", smooth_b()),
        ("clip_b", clip_b()),
        ("reverse_copy", reverse_copy()),
        ("softmax", softmax()),
        ("renames", renames()),
        ("fort", fort()),
        ("stats", stats()),
        ("scopes", scopes()),
        ("dots", dots()),
    ]
}

pub const BLAS_PY: &str = "def blas(A, B, C, D, x, y):
    C[:] = A @ B.T
    y[:] = 2.0 * A @ x + 0.5 * y
    C += np.outer(y, B[0, :])
    s = A[1, :] @ x
    D[:] = A @ A.T
    return s
";

/// Library calls: gemm with a transposed operand, gemv with alpha/beta, ger of a row
/// slice, a dot of a row slice into the returned scalar, and a column-major output.
pub fn blas() -> Module {
    let mut b = B::at("blas", sp(1));
    let (n, k, m) = (b.size("N"), b.size("K"), b.size("M"));
    let a = b.param("A", sized(Scalar::F64, &[n, k]), Intent::In);
    let bb = b.param("B", sized(Scalar::F64, &[m, k]), Intent::In);
    let c = b.param("C", sized(Scalar::F64, &[n, m]), Intent::InOut);
    let d_ty = Type::Array {
        elem: Scalar::F64,
        dims: vec![Dim::zero_based(iv(n)), Dim::zero_based(iv(n))],
        layout: Layout::ColMajor,
    };
    let d = b.param_with("D", d_ty.clone(), VarRole::Param, Intent::InOut, "");
    let x = b.param("x", sized(Scalar::F64, &[k]), Intent::In);
    let y = b.param("y", sized(Scalar::F64, &[n]), Intent::InOut);
    let s = b.param_with("ret", Type::Scalar(Scalar::F64), VarRole::Return, Intent::Out, "the returned value");
    let whole = |f: &B, v: VarId| View::whole(f.f.var(v).ty.dims());
    let call = |op, out, out_view, args: [(VarId, View); 2], alpha: f64, beta: f64, line| {
        let [(a0, v0), (a1, v1)] = args;
        Stmt::new(
            StmtKind::Call(LibCall {
                op,
                out,
                out_view,
                args: vec![a0, a1],
                arg_views: vec![v0, v1],
                alpha: f64c(alpha),
                beta: f64c(beta),
            }),
            sp(line),
        )
    };
    let (va, vb, vc, vd, vx, vy) =
        (whole(&b, a), whole(&b, bb), whole(&b, c), whole(&b, d), whole(&b, x), whole(&b, y));
    b.push(call(LibOp::Gemm, c, vc.clone(), [(a, va.clone()), (bb, vb.t())], 1.0, 0.0, 2));
    b.push(call(LibOp::Gemv, y, vy.clone(), [(a, va.clone()), (x, vx.clone())], 2.0, 0.5, 3));
    let brow = View { start: vec![int(0), int(0)], axes: vec![1], extents: vec![iv(m)] };
    b.push(call(LibOp::Ger, c, vc, [(y, vy), (bb, brow)], 1.0, 1.0, 4));
    let arow = View { start: vec![int(1), int(0)], axes: vec![1], extents: vec![iv(k)] };
    b.push(call(LibOp::Dot, s, View::scalar(), [(a, arow), (x, vx)], 1.0, 0.0, 5));
    b.push(call(LibOp::Gemm, d, vd, [(a, va.clone()), (a, va.t())], 1.0, 0.0, 6));
    module("blas.py", BLAS_PY, vec![b.finish_as_built()])
}
