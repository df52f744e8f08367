//! The reference interpreter of the IR shared by the Python and Fortran frontend tests:
//! NumPy (row-major, zero-based) and Fortran (column-major, declared lower bounds) arrays,
//! library calls by their definition.

use adjc_ir::*;
use std::collections::BTreeMap;

// ---------------------------------------------------------------------------------------
// Interpreter

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum V {
    F(f64),
    I(i64),
    B(bool),
}

impl V {
    fn f(self) -> f64 {
        match self {
            V::F(x) => x,
            V::I(i) => i as f64,
            V::B(b) => b as i64 as f64,
        }
    }
    fn i(self) -> i64 {
        match self {
            V::F(x) => x as i64,
            V::I(i) => i,
            V::B(b) => b as i64,
        }
    }
    fn b(self) -> bool {
        match self {
            V::B(b) => b,
            V::I(i) => i != 0,
            V::F(x) => x != 0.0,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Data {
    Scalar(V),
    Array { dims: Vec<usize>, data: Vec<V> },
}

impl Data {
    pub fn arr(dims: &[usize], data: Vec<f64>) -> Data {
        assert_eq!(dims.iter().product::<usize>(), data.len());
        Data::Array { dims: dims.to_vec(), data: data.into_iter().map(V::F).collect() }
    }
    pub fn f(x: f64) -> Data {
        Data::Scalar(V::F(x))
    }
    pub fn i(x: i64) -> Data {
        Data::Scalar(V::I(x))
    }
    pub fn floats(&self) -> Vec<f64> {
        match self {
            Data::Scalar(v) => vec![v.f()],
            Data::Array { data, .. } => data.iter().map(|v| v.f()).collect(),
        }
    }
    pub fn dims(&self) -> Vec<usize> {
        match self {
            Data::Scalar(_) => vec![],
            Data::Array { dims, .. } => dims.clone(),
        }
    }
}

struct Interp<'a> {
    f: &'a Function,
    mem: Vec<Option<Data>>,
    reverse_maps: bool,
}

fn round(v: f64, t: Scalar) -> V {
    match t {
        Scalar::F32 => V::F(v as f32 as f64),
        Scalar::F64 => V::F(v),
        Scalar::I64 => V::I(v as i64),
        Scalar::Bool => V::B(v != 0.0),
    }
}

impl Interp<'_> {
    fn scalar(&self, v: VarId) -> V {
        match &self.mem[v.index()] {
            Some(Data::Scalar(x)) => *x,
            other => panic!("`{}` is not a scalar with a value: {other:?}", self.f.var(v).name),
        }
    }

    /// Honours declared lower bounds and the layout (column-major for Fortran).
    fn offset(&self, v: VarId, idx: &[i64]) -> usize {
        let Some(Data::Array { dims, .. }) = &self.mem[v.index()] else {
            panic!("`{}` is not an allocated array", self.f.var(v).name)
        };
        assert_eq!(dims.len(), idx.len());
        let var = self.f.var(v);
        let lowers: Vec<i64> = var.ty.dims().iter().map(|d| self.eval(&d.lower).i()).collect();
        let col = matches!(var.ty, Type::Array { layout: Layout::ColMajor, .. });
        let order: Vec<usize> = if col { (0..dims.len()).rev().collect() } else { (0..dims.len()).collect() };
        let mut off = 0usize;
        for k in order {
            let (i, n) = (idx[k] - lowers[k], dims[k]);
            assert!(
                i >= 0 && (i as usize) < n,
                "index {} out of range in axis {k} of `{}`",
                idx[k],
                self.f.var(v).name
            );
            off = off * n + i as usize;
        }
        off
    }

    fn eval(&self, e: &Expr) -> V {
        let r = match &e.kind {
            ExprKind::Const(Literal::Int(i)) => V::I(*i),
            ExprKind::Const(Literal::Float(x)) => V::F(*x),
            ExprKind::Const(Literal::Bool(b)) => V::B(*b),
            ExprKind::Var(v) => self.scalar(*v),
            ExprKind::Load(v, idx) => {
                let idx: Vec<i64> = idx.iter().map(|i| self.eval(i).i()).collect();
                let off = self.offset(*v, &idx);
                let Some(Data::Array { data, .. }) = &self.mem[v.index()] else { unreachable!() };
                data[off]
            }
            ExprKind::Unary(UnOp::Neg, a) => match self.eval(a) {
                V::I(i) => V::I(-i),
                x => V::F(-x.f()),
            },
            ExprKind::Unary(UnOp::Not, a) => V::B(!self.eval(a).b()),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                let int = a.ty == Scalar::I64;
                match op {
                    BinOp::Add if int => V::I(x.i() + y.i()),
                    BinOp::Sub if int => V::I(x.i() - y.i()),
                    BinOp::Mul if int => V::I(x.i() * y.i()),
                    BinOp::Div if int => V::I(x.i() / y.i()),
                    BinOp::Add => V::F(x.f() + y.f()),
                    BinOp::Sub => V::F(x.f() - y.f()),
                    BinOp::Mul => V::F(x.f() * y.f()),
                    BinOp::Div => V::F(x.f() / y.f()),
                    BinOp::FloorDiv => {
                        V::I(x.i().div_euclid(y.i()) - if y.i() < 0 && x.i().rem_euclid(y.i()) != 0 { 1 } else { 0 })
                    }
                    BinOp::Mod => {
                        let r = x.i().rem_euclid(y.i());
                        V::I(if y.i() < 0 && r != 0 { r + y.i() } else { r })
                    }
                    BinOp::Lt => V::B(if int { x.i() < y.i() } else { x.f() < y.f() }),
                    BinOp::Le => V::B(if int { x.i() <= y.i() } else { x.f() <= y.f() }),
                    BinOp::Gt => V::B(if int { x.i() > y.i() } else { x.f() > y.f() }),
                    BinOp::Ge => V::B(if int { x.i() >= y.i() } else { x.f() >= y.f() }),
                    BinOp::Eq => V::B(x.f() == y.f()),
                    BinOp::Ne => V::B(x.f() != y.f()),
                    BinOp::And => V::B(x.b() && y.b()),
                    BinOp::Or => V::B(x.b() || y.b()),
                }
            }
            ExprKind::Call(fun, args) => {
                let a: Vec<V> = args.iter().map(|x| self.eval(x)).collect();
                if e.ty == Scalar::I64 {
                    return match fun {
                        Intrinsic::Abs => V::I(a[0].i().abs()),
                        Intrinsic::Max => V::I(a[0].i().max(a[1].i())),
                        Intrinsic::Min => V::I(a[0].i().min(a[1].i())),
                        _ => panic!("int {fun:?}"),
                    };
                }
                let x = a[0].f();
                let y = a.get(1).map(|v| v.f()).unwrap_or(0.0);
                V::F(match fun {
                    Intrinsic::Exp => x.exp(),
                    Intrinsic::Log => x.ln(),
                    Intrinsic::Sin => x.sin(),
                    Intrinsic::Cos => x.cos(),
                    Intrinsic::Tan => x.tan(),
                    Intrinsic::Tanh => x.tanh(),
                    Intrinsic::Sinh => x.sinh(),
                    Intrinsic::Cosh => x.cosh(),
                    Intrinsic::Arcsin => x.asin(),
                    Intrinsic::Arccos => x.acos(),
                    Intrinsic::Arctan => x.atan(),
                    Intrinsic::Arctan2 => x.atan2(y),
                    Intrinsic::Sqrt => x.sqrt(),
                    Intrinsic::Abs => x.abs(),
                    Intrinsic::Pow => x.powf(y),
                    Intrinsic::Max => {
                        if x >= y {
                            x
                        } else {
                            y
                        }
                    }
                    Intrinsic::Min => {
                        if x <= y {
                            x
                        } else {
                            y
                        }
                    }
                    Intrinsic::Sign => x.abs() * y.signum(),
                    Intrinsic::Floor => x.floor(),
                    Intrinsic::Ceil => x.ceil(),
                })
            }
            ExprKind::Select(c, a, b) => {
                if self.eval(c).b() {
                    self.eval(a)
                } else {
                    self.eval(b)
                }
            }
            ExprKind::Cast(a) => {
                let v = self.eval(a);
                match e.ty {
                    Scalar::I64 => V::I(v.i()),
                    Scalar::Bool => V::B(v.b()),
                    t => round(v.f(), t),
                }
            }
        };
        match r {
            V::F(x) => round(x, e.ty),
            other => other,
        }
    }

    fn write(&mut self, p: &Place, v: V) {
        let t = self.f.var(p.var).ty.elem();
        let v = match (v, t) {
            (V::F(x), t) => round(x, t),
            (other, _) => other,
        };
        if p.index.is_empty() {
            self.mem[p.var.index()] = Some(Data::Scalar(v));
        } else {
            let idx: Vec<i64> = p.index.iter().map(|i| self.eval(i).i()).collect();
            let off = self.offset(p.var, &idx);
            let Some(Data::Array { data, .. }) = &mut self.mem[p.var.index()] else { unreachable!() };
            data[off] = v;
        }
    }

    /// One element of a library-call operand.
    fn at(&mut self, var: VarId, v: &View, idx: &[i64]) -> f64 {
        let ie: Vec<Expr> = idx.iter().map(|k| Expr::int(*k)).collect();
        let ty = self.f.var(var).ty.elem();
        self.eval(&Place { var, index: v.index_of(&ie) }.to_expr(ty)).f()
    }

    /// A library call by its definition (`adjc_ir::LibCall`), element by element.
    fn call(&mut self, c: &LibCall) {
        let alpha = self.eval(&c.alpha).f();
        let beta = self.eval(&c.beta).f();
        let ext = |m: &mut Self, v: &View| -> Vec<i64> { v.extents.iter().map(|e| m.eval(e).i()).collect() };
        let (eo, ea) = (ext(self, &c.out_view), ext(self, &c.arg_views[0]));
        let (a, b, va, vb) = (c.args[0], c.args[1], &c.arg_views[0], &c.arg_views[1]);
        let mut res: Vec<(Vec<i64>, f64)> = Vec::new();
        match c.op {
            LibOp::Gemm => {
                for i in 0..eo[0] {
                    for j in 0..eo[1] {
                        let t: f64 = (0..ea[1]).map(|p| self.at(a, va, &[i, p]) * self.at(b, vb, &[p, j])).sum();
                        res.push((vec![i, j], alpha * t));
                    }
                }
            }
            LibOp::Gemv => {
                for i in 0..eo[0] {
                    let t: f64 = (0..ea[1]).map(|p| self.at(a, va, &[i, p]) * self.at(b, vb, &[p])).sum();
                    res.push((vec![i], alpha * t));
                }
            }
            LibOp::Dot => {
                let t: f64 = (0..ea[0]).map(|p| self.at(a, va, &[p]) * self.at(b, vb, &[p])).sum();
                res.push((vec![], alpha * t));
            }
            LibOp::Ger => {
                for i in 0..eo[0] {
                    for j in 0..eo[1] {
                        res.push((vec![i, j], alpha * self.at(a, va, &[i]) * self.at(b, vb, &[j])));
                    }
                }
            }
        }
        for (idx, x) in res {
            let ie: Vec<Expr> = idx.iter().map(|k| Expr::int(*k)).collect();
            let place = Place { var: c.out, index: c.out_view.index_of(&ie) };
            let old = if beta == 0.0 { 0.0 } else { beta * self.eval(&place.to_expr(self.f.var(c.out).ty.elem())).f() };
            self.write(&place, V::F(x + old));
        }
    }

    fn block(&mut self, b: &Block) {
        for s in b {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                let v = self.eval(value);
                self.write(target, v);
            }
            StmtKind::Accumulate { target, op, value, .. } => {
                let cur = self.eval(&target.to_expr(self.f.var(target.var).ty.elem()));
                let v = self.eval(value);
                let r = match (op, cur) {
                    (AccOp::Add, V::I(c)) => V::I(c + v.i()),
                    (AccOp::Mul, V::I(c)) => V::I(c * v.i()),
                    (AccOp::Max, V::I(c)) => V::I(c.max(v.i())),
                    (AccOp::Min, V::I(c)) => V::I(c.min(v.i())),
                    (AccOp::Add, c) => V::F(c.f() + v.f()),
                    (AccOp::Mul, c) => V::F(c.f() * v.f()),
                    (AccOp::Max, c) => V::F(if v.f() > c.f() { v.f() } else { c.f() }),
                    (AccOp::Min, c) => V::F(if v.f() < c.f() { v.f() } else { c.f() }),
                };
                self.write(target, r);
            }
            StmtKind::Loop(l) => {
                let (start, stop, step) = (self.eval(&l.start).i(), self.eval(&l.stop).i(), self.eval(&l.step).i());
                let mut i = start;
                while (step > 0 && i < stop) || (step < 0 && i > stop) {
                    self.mem[l.var.index()] = Some(Data::Scalar(V::I(i)));
                    self.block(&l.body);
                    i += step;
                }
                self.mem[l.var.index()] = None;
            }
            StmtKind::Map(m) => {
                let ranges: Vec<(i64, i64)> =
                    m.dims.iter().map(|d| (self.eval(&d.start).i(), self.eval(&d.stop).i())).collect();
                let mut points: Vec<Vec<i64>> = vec![vec![]];
                for (a, b) in &ranges {
                    let mut next = Vec::new();
                    for p in &points {
                        for i in *a..*b {
                            let mut q = p.clone();
                            q.push(i);
                            next.push(q);
                        }
                    }
                    points = next;
                }
                if self.reverse_maps {
                    points.reverse();
                }
                for p in points {
                    for (d, i) in m.dims.iter().zip(&p) {
                        self.mem[d.var.index()] = Some(Data::Scalar(V::I(*i)));
                    }
                    self.block(&m.body);
                }
                for d in &m.dims {
                    self.mem[d.var.index()] = None;
                }
            }
            StmtKind::If { cond, then_body, else_body } => {
                if self.eval(cond).b() {
                    self.block(then_body)
                } else {
                    self.block(else_body)
                }
            }
            StmtKind::Alloc(v) => {
                let var = self.f.var(*v);
                let dims: Vec<usize> = var.ty.dims().iter().map(|d| self.eval(&d.extent).i() as usize).collect();
                let n = dims.iter().product();
                // Uninitialised memory is NaN so that reading it shows in the results.
                self.mem[v.index()] = Some(Data::Array { dims, data: vec![V::F(f64::NAN); n] });
            }
            StmtKind::Free(v) => self.mem[v.index()] = None,
            StmtKind::Call(c) => self.call(c),
            other => panic!("interpreter: unsupported statement {other:?}"),
        }
    }
}

/// Runs `f` with named inputs (parameters and size parameters); returns every parameter
/// by name after the call. Maps run in the given iteration order.
pub fn run_order(f: &Function, inputs: &[(&str, Data)], reverse_maps: bool) -> BTreeMap<String, Data> {
    let mut it = Interp { f, mem: vec![None; f.vars.len()], reverse_maps };
    let by_name: BTreeMap<&str, &Data> = inputs.iter().map(|(n, d)| (*n, d)).collect();
    for p in &f.params {
        let var = f.var(p.var);
        match by_name.get(var.name.as_str()) {
            Some(d) => it.mem[p.var.index()] = Some((*d).clone()),
            None if p.intent == Intent::Out => {
                let dims: Vec<usize> = var.ty.dims().iter().map(|d| it.eval(&d.extent).i() as usize).collect();
                it.mem[p.var.index()] = Some(if dims.is_empty() {
                    Data::Scalar(V::F(f64::NAN))
                } else {
                    Data::Array { data: vec![V::F(f64::NAN); dims.iter().product()], dims }
                });
            }
            None => panic!("missing input `{}`", var.name),
        }
        if let (Some(Data::Array { dims, .. }), Type::Array { dims: want, .. }) = (&it.mem[p.var.index()], &var.ty) {
            let want: Vec<usize> = want.iter().map(|d| it.eval(&d.extent).i() as usize).collect();
            assert_eq!(dims, &want, "shape of `{}`", var.name);
        }
    }
    it.block(&f.body);
    f.params
        .iter()
        .map(|p| (f.var(p.var).name.clone(), it.mem[p.var.index()].clone().unwrap_or(Data::Scalar(V::F(f64::NAN)))))
        .collect()
}

/// Runs `f` twice (maps in forward and in reverse order: iterations of a map must be
/// independent) and checks both runs agree.
pub fn run(f: &Function, inputs: &[(&str, Data)]) -> BTreeMap<String, Data> {
    let a = run_order(f, inputs, false);
    let b = run_order(f, inputs, true);
    for (k, x) in &a {
        let (xs, ys) = (x.floats(), b[k].floats());
        for (p, q) in xs.iter().zip(&ys) {
            assert!(close(*p, *q), "map iteration order changes `{k}`: {xs:?} vs {ys:?}");
        }
    }
    a
}

pub fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

pub fn assert_close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "lengths differ: {got:?} vs {want:?}");
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(close(*a, *b), "element {k}: got {a}, want {b}\n got: {got:?}\nwant: {want:?}");
    }
}

/// Deterministic pseudo-random test data.
pub fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) % 1000) as f64 / 250.0 - 2.0
        })
        .collect()
}
