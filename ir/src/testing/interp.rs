//! A reference interpreter for adjc IR, used to check adjoints numerically.
//!
//! Floats are computed in f64 whatever their IR type (f32 included), so that finite
//! differences are meaningful. The interpreter is deliberately strict, to catch wrong IR
//! that a C compiler would silently accept:
//! * out-of-bounds indices, reads of unset scalars, use of freed arrays are errors;
//! * freshly allocated arrays and output-only arrays are filled with NaN;
//! * scalars written inside a map body are iteration-private: they are unset at the start
//!   of every iteration and after the map;
//! * map iterations can run in reverse order (`Opts::reverse_maps`), and every map is
//!   checked for races: an element written by one iteration and read or written by
//!   another, or a `shared` accumulation target also read or written plainly, is an error;
//! * push/pop inside a map is an error; every tape must be empty at the end.

use crate::*;
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    F(f64),
    I(i64),
    B(bool),
}

impl Val {
    fn f(self) -> Result<f64, String> {
        match self {
            Val::F(x) => Ok(x),
            v => Err(format!("expected a float, got {v:?}")),
        }
    }
    fn i(self) -> Result<i64, String> {
        match self {
            Val::I(x) => Ok(x),
            v => Err(format!("expected an integer, got {v:?}")),
        }
    }
    fn b(self) -> Result<bool, String> {
        match self {
            Val::B(x) => Ok(x),
            v => Err(format!("expected a bool, got {v:?}")),
        }
    }
}

/// Argument and result values, by parameter name.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Array(Vec<f64>),
    IntArray(Vec<i64>),
}

impl Value {
    pub fn floats(&self) -> Vec<f64> {
        match self {
            Value::Float(x) => vec![*x],
            Value::Array(v) => v.clone(),
            other => panic!("not a float value: {other:?}"),
        }
    }
}

pub type Args = BTreeMap<String, Value>;

#[derive(Clone, Copy, Debug, Default)]
pub struct Opts {
    /// Run the iterations of every map in reverse order.
    pub reverse_maps: bool,
    /// Round every `f32` result (expressions, stores) to single precision, as the generated
    /// C computes: the frontends' tests compare with NumPy and gfortran that way. Off for
    /// adjoint checks, whose finite differences need every digit.
    pub single_precision: bool,
}

/// `x` rounded to single precision.
fn single(x: Val) -> Val {
    match x {
        Val::F(v) => Val::F(v as f32 as f64),
        other => other,
    }
}

#[derive(Clone, Debug)]
enum Slot {
    Unset,
    Freed,
    Scalar(Val),
    Array { shape: Vec<(i64, i64)>, col_major: bool, data: Vec<Val> },
}

#[derive(Default)]
struct Access {
    writer: Option<u64>,
    reader: Option<u64>,
    many_readers: bool,
    shared: bool,
}

struct Race {
    iter: u64,
    access: HashMap<(VarId, usize), Access>,
    private: Vec<VarId>,
}

struct M<'f> {
    f: &'f Function,
    slots: Vec<Slot>,
    stacks: BTreeMap<VarId, Vec<Val>>,
    opts: Opts,
    race: Option<Race>,
    steps: u64,
}

const STEP_LIMIT: u64 = 50_000_000;

fn private_scalars(f: &Function, b: &Block) -> Vec<VarId> {
    let mut out = Vec::new();
    walk_stmts(b, &mut |s| {
        let t = match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Pop { target, .. } => Some(target),
            StmtKind::Accumulate { target, shared: false, .. } => Some(target),
            _ => None,
        };
        if let Some(t) = t {
            if t.index.is_empty() && !f.is_param(t.var) && !out.contains(&t.var) {
                out.push(t.var);
            }
        }
    });
    out
}

impl<'f> M<'f> {
    fn new(f: &'f Function, opts: Opts) -> M<'f> {
        M { f, slots: vec![Slot::Unset; f.vars.len()], stacks: BTreeMap::new(), opts, race: None, steps: 0 }
    }

    fn name(&self, v: VarId) -> &str {
        &self.f.var(v).name
    }

    fn tracked(&self, v: VarId) -> bool {
        match &self.race {
            Some(r) => !r.private.contains(&v) && self.f.var(v).role != VarRole::Index,
            None => false,
        }
    }

    fn note(&mut self, v: VarId, flat: usize, kind: u8) -> Result<(), String> {
        // kind: 0 read, 1 write, 2 shared accumulation
        if !self.tracked(v) {
            return Ok(());
        }
        let name = self.name(v).to_string();
        let Some(r) = self.race.as_mut() else { return Ok(()) };
        let it = r.iter;
        let a = r.access.entry((v, flat)).or_default();
        let race = |what: &str| Err(format!("race in a map on `{name}` (element {flat}): {what}"));
        match kind {
            0 => {
                if a.shared {
                    return race("read while other iterations accumulate into it");
                }
                if matches!(a.writer, Some(w) if w != it) {
                    return race("read of an element another iteration wrote");
                }
                match a.reader {
                    None => a.reader = Some(it),
                    Some(x) if x != it => a.many_readers = true,
                    _ => {}
                }
            }
            1 => {
                if a.shared {
                    return race("plain write to a shared accumulation target");
                }
                if matches!(a.writer, Some(w) if w != it) {
                    return race("written by two iterations");
                }
                if matches!(a.reader, Some(x) if x != it) || a.many_readers {
                    return race("written by one iteration and read by another");
                }
                a.writer = Some(it);
            }
            _ => {
                if a.writer.is_some() || a.reader.is_some() {
                    return race("shared accumulation into an element also accessed plainly");
                }
                a.shared = true;
            }
        }
        Ok(())
    }

    fn scalar(&mut self, v: VarId) -> Result<Val, String> {
        match &self.slots[v.index()] {
            Slot::Scalar(x) => {
                let x = *x;
                self.note(v, 0, 0)?;
                Ok(x)
            }
            Slot::Unset => Err(format!("read of unset scalar `{}`", self.name(v))),
            other => Err(format!("`{}` read as a scalar but is {other:?}", self.name(v))),
        }
    }

    fn flat(&mut self, v: VarId, idx: &[Expr]) -> Result<usize, String> {
        let mut ix = Vec::with_capacity(idx.len());
        for e in idx {
            ix.push(self.eval(e)?.i()?);
        }
        let name = self.name(v).to_string();
        let (shape, col_major) = match &self.slots[v.index()] {
            Slot::Array { shape, col_major, .. } => (shape.clone(), *col_major),
            Slot::Freed => return Err(format!("use of `{name}` after free")),
            Slot::Unset => return Err(format!("use of unallocated array `{name}`")),
            Slot::Scalar(_) => return Err(format!("`{name}` indexed but is a scalar")),
        };
        if shape.len() != ix.len() {
            return Err(format!("`{name}` indexed with {} indices", ix.len()));
        }
        let order: Vec<usize> = if col_major { (0..ix.len()).rev().collect() } else { (0..ix.len()).collect() };
        let mut flat: i64 = 0;
        for k in order {
            let (lo, ext) = shape[k];
            let i = ix[k];
            if i < lo || i >= lo + ext {
                return Err(format!("index {i} out of bounds [{lo}, {}) on axis {k} of `{name}` {ix:?}", lo + ext));
            }
            flat = flat * ext + (i - lo);
        }
        Ok(flat as usize)
    }

    fn read_elem(&mut self, v: VarId, flat: usize) -> Val {
        match &self.slots[v.index()] {
            Slot::Array { data, .. } => data[flat],
            _ => Val::F(f64::NAN),
        }
    }

    fn place_read(&mut self, p: &Place, note: bool) -> Result<Val, String> {
        if p.index.is_empty() {
            if note {
                return self.scalar(p.var);
            }
            return match &self.slots[p.var.index()] {
                Slot::Scalar(x) => Ok(*x),
                _ => Err(format!("read of unset scalar `{}`", self.name(p.var))),
            };
        }
        let fl = self.flat(p.var, &p.index)?;
        if note {
            self.note(p.var, fl, 0)?;
        }
        Ok(self.read_elem(p.var, fl))
    }

    fn store(&mut self, p: &Place, x: Val, kind: u8) -> Result<(), String> {
        let x = if self.opts.single_precision && self.f.var(p.var).ty.elem() == Scalar::F32 { single(x) } else { x };
        if p.index.is_empty() {
            self.note(p.var, 0, kind)?;
            self.slots[p.var.index()] = Slot::Scalar(x);
            return Ok(());
        }
        let fl = self.flat(p.var, &p.index)?;
        self.note(p.var, fl, kind)?;
        if let Slot::Array { data, .. } = &mut self.slots[p.var.index()] {
            data[fl] = x;
        }
        Ok(())
    }

    fn alloc(&mut self, v: VarId) -> Result<(), String> {
        let var = self.f.var(v).clone();
        let mut shape = Vec::new();
        for d in var.ty.dims() {
            let lo = self.eval(&d.lower)?.i()?;
            let ext = self.eval(&d.extent)?.i()?;
            if ext < 0 {
                return Err(format!("negative extent {ext} for `{}`", var.name));
            }
            shape.push((lo, ext));
        }
        let n: i64 = shape.iter().map(|(_, e)| *e).product();
        let fill = match var.ty.elem() {
            Scalar::F32 | Scalar::F64 => Val::F(f64::NAN),
            Scalar::I64 => Val::I(i64::MIN),
            Scalar::Bool => Val::B(false),
        };
        let col_major = matches!(var.ty, Type::Array { layout: Layout::ColMajor, .. });
        self.slots[v.index()] = Slot::Array { shape, col_major, data: vec![fill; n as usize] };
        Ok(())
    }

    fn eval(&mut self, e: &Expr) -> Result<Val, String> {
        let x = self.eval_exact(e)?;
        Ok(if self.opts.single_precision && e.ty == Scalar::F32 { single(x) } else { x })
    }

    fn eval_exact(&mut self, e: &Expr) -> Result<Val, String> {
        Ok(match &e.kind {
            ExprKind::Const(Literal::Float(x)) => Val::F(*x),
            ExprKind::Const(Literal::Int(x)) => Val::I(*x),
            ExprKind::Const(Literal::Bool(x)) => Val::B(*x),
            ExprKind::Var(v) => self.scalar(*v)?,
            ExprKind::Load(v, idx) => {
                let fl = self.flat(*v, idx)?;
                self.note(*v, fl, 0)?;
                self.read_elem(*v, fl)
            }
            ExprKind::Unary(UnOp::Neg, a) => match self.eval(a)? {
                Val::F(x) => Val::F(-x),
                Val::I(x) => Val::I(x.checked_neg().ok_or("integer overflow")?),
                Val::B(_) => return Err("negation of a bool".into()),
            },
            ExprKind::Unary(UnOp::Not, a) => Val::B(!self.eval(a)?.b()?),
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                binary(*op, x, y)?
            }
            ExprKind::Call(f, args) => {
                let mut xs = Vec::new();
                for a in args {
                    xs.push(self.eval(a)?);
                }
                intrinsic(*f, &xs)?
            }
            ExprKind::Select(c, a, b) => {
                if self.eval(c)?.b()? {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            ExprKind::Cast(a) => {
                let x = self.eval(a)?;
                match (e.ty, x) {
                    (Scalar::F32 | Scalar::F64, Val::F(x)) => Val::F(x),
                    (Scalar::F32 | Scalar::F64, Val::I(x)) => Val::F(x as f64),
                    (Scalar::F32 | Scalar::F64, Val::B(x)) => Val::F(x as i64 as f64),
                    (Scalar::I64, Val::F(x)) => Val::I(x.trunc() as i64),
                    (Scalar::I64, Val::I(x)) => Val::I(x),
                    (Scalar::I64, Val::B(x)) => Val::I(x as i64),
                    (Scalar::Bool, Val::I(x)) => Val::B(x != 0),
                    (Scalar::Bool, Val::F(x)) => Val::B(x != 0.0),
                    (Scalar::Bool, Val::B(x)) => Val::B(x),
                }
            }
        })
    }

    fn block(&mut self, b: &Block) -> Result<(), String> {
        for s in b {
            self.stmt(s).map_err(|e| if e.contains("(line") { e } else { format!("{e} (line {})", s.span.line) })?;
        }
        Ok(())
    }

    /// One element of a library-call operand at operand indices `idx`.
    fn view_place(var: VarId, v: &View, idx: &[i64]) -> Place {
        let ie: Vec<Expr> = idx.iter().map(|k| Expr::int(*k)).collect();
        Place { var, index: v.index_of(&ie) }
    }

    /// A library call, element by element (the definition in `crate::LibCall`).
    fn call(&mut self, c: &LibCall) -> Result<(), String> {
        if self.race.is_some() {
            return Err("library call inside a parallel map".into());
        }
        let alpha = self.eval(&c.alpha)?.f()?;
        let beta = self.eval(&c.beta)?.f()?;
        let mut ext = |v: &View| -> Result<Vec<i64>, String> { v.extents.iter().map(|e| self.eval(e)?.i()).collect() };
        let eo = ext(&c.out_view)?;
        let ea = ext(&c.arg_views[0])?;
        // One-argument calls (`cholesky`) use the first argument twice below.
        let last = c.args.len().saturating_sub(1).min(1);
        let eb = ext(&c.arg_views[last])?;
        let (a, b) = (c.args[0], c.args[last]);
        let (va, vb, vo) = (&c.arg_views[0], &c.arg_views[last], &c.out_view);
        // Every output element as a function of the arguments, computed before any write.
        let mut results: Vec<(Vec<i64>, f64)> = Vec::new();
        let get = |m: &mut Self, var: VarId, v: &View, idx: &[i64]| -> Result<f64, String> {
            m.place_read(&Self::view_place(var, v, idx), true)?.f()
        };
        let (m_, n_) = (eo.first().copied().unwrap_or(1), eo.get(1).copied().unwrap_or(1));
        match c.op {
            LibOp::Gemm => {
                if ea != [m_, ea[1]] || eb != [ea[1], n_] {
                    return Err(format!("gemm shapes {eo:?} = {ea:?} @ {eb:?}"));
                }
                for i in 0..m_ {
                    for j in 0..n_ {
                        let mut t = 0.0;
                        for p in 0..ea[1] {
                            t += get(self, a, va, &[i, p])? * get(self, b, vb, &[p, j])?;
                        }
                        results.push((vec![i, j], alpha * t));
                    }
                }
            }
            LibOp::Gemv => {
                if ea != [m_, eb[0]] {
                    return Err(format!("gemv shapes {eo:?} = {ea:?} @ {eb:?}"));
                }
                for i in 0..m_ {
                    let mut t = 0.0;
                    for p in 0..eb[0] {
                        t += get(self, a, va, &[i, p])? * get(self, b, vb, &[p])?;
                    }
                    results.push((vec![i], alpha * t));
                }
            }
            LibOp::Ger => {
                if ea != [m_] || eb != [n_] {
                    return Err(format!("ger shapes {eo:?} = {ea:?} x {eb:?}"));
                }
                for i in 0..m_ {
                    for j in 0..n_ {
                        results.push((vec![i, j], alpha * get(self, a, va, &[i])? * get(self, b, vb, &[j])?));
                    }
                }
            }
            LibOp::Dot => {
                if ea != eb {
                    return Err(format!("dot shapes {ea:?} . {eb:?}"));
                }
                let mut t = 0.0;
                for p in 0..ea[0] {
                    t += get(self, a, va, &[p])? * get(self, b, vb, &[p])?;
                }
                results.push((vec![], alpha * t));
            }
            LibOp::Solve => {
                let n = ea[0];
                let k = eb.get(1).copied().unwrap_or(1);
                let vecform = eb.len() == 1;
                let mut m = vec![vec![0.0; (n + k) as usize]; n as usize];
                for i in 0..n {
                    for j in 0..n {
                        m[i as usize][j as usize] = get(self, a, va, &[i, j])?;
                    }
                    for j in 0..k {
                        let idx = if vecform { vec![i] } else { vec![i, j] };
                        m[i as usize][(n + j) as usize] = get(self, b, vb, &idx)?;
                    }
                }
                let x = gauss_solve(m, n as usize, k as usize);
                for i in 0..n {
                    for j in 0..k {
                        let idx = if vecform { vec![i] } else { vec![i, j] };
                        results.push((idx, x[i as usize][j as usize]));
                    }
                }
            }
            LibOp::Cholesky => {
                let n = ea[0] as usize;
                let mut l = vec![vec![0.0; n]; n];
                for j in 0..n {
                    let d = get(self, a, va, &[j as i64, j as i64])? - l[j][..j].iter().map(|x| x * x).sum::<f64>();
                    l[j][j] = d.sqrt();
                    for i in j + 1..n {
                        let t = get(self, a, va, &[i as i64, j as i64])?
                            - l[i][..j].iter().zip(&l[j][..j]).map(|(x, y)| x * y).sum::<f64>();
                        l[i][j] = t / l[j][j];
                    }
                }
                for (i, row) in l.iter().enumerate() {
                    for (j, x) in row.iter().enumerate() {
                        results.push((vec![i as i64, j as i64], *x));
                    }
                }
            }
            LibOp::CholeskyAdjoint => {
                let n = ea[0] as usize;
                let mut l = vec![vec![0.0; n]; n];
                let mut lb = vec![vec![0.0; n]; n];
                for i in 0..n {
                    for j in 0..n {
                        l[i][j] = if j <= i { get(self, a, va, &[i as i64, j as i64])? } else { 0.0 };
                        lb[i][j] = get(self, b, vb, &[i as i64, j as i64])?;
                    }
                }
                for (idx, x) in cholesky_adjoint(&l, &lb) {
                    results.push((vec![idx.0 as i64, idx.1 as i64], x));
                }
            }
        }
        for (idx, x) in results {
            let place = Self::view_place(c.out, vo, &idx);
            let old = if beta == 0.0 { 0.0 } else { beta * self.place_read(&place, true)?.f()? };
            self.store(&place, Val::F(x + old), 1)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), String> {
        self.steps += 1;
        if self.steps > STEP_LIMIT {
            return Err("step limit exceeded".into());
        }
        match &s.kind {
            StmtKind::Assign { target, value } => {
                let x = self.eval(value)?;
                self.store(target, x, 1)
            }
            StmtKind::Accumulate { target, op, value, shared } => {
                let x = self.eval(value)?;
                let old = self.place_read(target, !*shared)?;
                let new = match (op, old, x) {
                    (AccOp::Add, Val::F(a), Val::F(b)) => Val::F(a + b),
                    (AccOp::Mul, Val::F(a), Val::F(b)) => Val::F(a * b),
                    (AccOp::Max, Val::F(a), Val::F(b)) => Val::F(if b > a { b } else { a }),
                    (AccOp::Min, Val::F(a), Val::F(b)) => Val::F(if b < a { b } else { a }),
                    (AccOp::Add, Val::I(a), Val::I(b)) => Val::I(a + b),
                    (AccOp::Mul, Val::I(a), Val::I(b)) => Val::I(a * b),
                    (AccOp::Max, Val::I(a), Val::I(b)) => Val::I(a.max(b)),
                    (AccOp::Min, Val::I(a), Val::I(b)) => Val::I(a.min(b)),
                    (_, a, b) => return Err(format!("accumulation of {b:?} into {a:?}")),
                };
                self.store(target, new, if *shared { 2 } else { 1 })
            }
            StmtKind::Loop(l) => {
                let start = self.eval(&l.start)?.i()?;
                let stop = self.eval(&l.stop)?.i()?;
                let step = self.eval(&l.step)?.i()?;
                if step == 0 {
                    return Err("loop step is zero".into());
                }
                let mut k = start;
                while (step > 0 && k < stop) || (step < 0 && k > stop) {
                    self.slots[l.var.index()] = Slot::Scalar(Val::I(k));
                    self.block(&l.body)?;
                    k += step;
                }
                self.slots[l.var.index()] = Slot::Unset;
                Ok(())
            }
            StmtKind::While(w) => {
                while self.eval(&w.cond)?.b()? {
                    self.block(&w.body)?;
                }
                Ok(())
            }
            StmtKind::Map(m) => {
                let mut ranges = Vec::new();
                for d in &m.dims {
                    ranges.push((self.eval(&d.start)?.i()?, self.eval(&d.stop)?.i()?));
                }
                let mut iters: Vec<Vec<i64>> = vec![vec![]];
                for (a, b) in &ranges {
                    let mut next = Vec::new();
                    for it in &iters {
                        for k in *a..*b {
                            let mut t = it.clone();
                            t.push(k);
                            next.push(t);
                        }
                    }
                    iters = next;
                }
                if self.opts.reverse_maps {
                    iters.reverse();
                }
                let outer = self.race.is_none();
                let private = private_scalars(self.f, &m.body);
                if outer {
                    self.race = Some(Race { iter: 0, access: HashMap::new(), private: private.clone() });
                }
                for (n, it) in iters.iter().enumerate() {
                    if outer {
                        if let Some(r) = self.race.as_mut() {
                            r.iter = n as u64;
                        }
                    }
                    for v in &private {
                        self.slots[v.index()] = Slot::Unset;
                    }
                    for (d, k) in m.dims.iter().zip(it) {
                        self.slots[d.var.index()] = Slot::Scalar(Val::I(*k));
                    }
                    self.block(&m.body)?;
                }
                for v in private.iter().chain(m.dims.iter().map(|d| &d.var)) {
                    self.slots[v.index()] = Slot::Unset;
                }
                if outer {
                    self.race = None;
                }
                Ok(())
            }
            StmtKind::If { cond, then_body, else_body } => {
                if self.eval(cond)?.b()? {
                    self.block(then_body)
                } else {
                    self.block(else_body)
                }
            }
            StmtKind::Alloc(v) => self.alloc(*v),
            StmtKind::Free(v) => {
                self.slots[v.index()] = Slot::Freed;
                Ok(())
            }
            StmtKind::Call(c) => self.call(c),
            StmtKind::Fail(why) => Err(format!("the function failed: {}", why.code())),
            StmtKind::Push { tape, value } => {
                if self.race.is_some() {
                    return Err("push inside a parallel map".into());
                }
                let x = self.eval(value)?;
                self.stacks.entry(*tape).or_default().push(x);
                Ok(())
            }
            StmtKind::Pop { tape, target } => {
                if self.race.is_some() {
                    return Err("pop inside a parallel map".into());
                }
                let x = self
                    .stacks
                    .get_mut(tape)
                    .and_then(|s| s.pop())
                    .ok_or_else(|| format!("pop from empty tape `{}`", self.name(*tape)))?;
                self.store(target, x, 1)
            }
            StmtKind::Section { body, .. } => self.block(body),
        }
    }
}

fn binary(op: BinOp, x: Val, y: Val) -> Result<Val, String> {
    use BinOp::*;
    Ok(match (x, y) {
        (Val::F(a), Val::F(b)) => match op {
            Add => Val::F(a + b),
            Sub => Val::F(a - b),
            Mul => Val::F(a * b),
            Div => Val::F(a / b),
            Lt => Val::B(a < b),
            Le => Val::B(a <= b),
            Gt => Val::B(a > b),
            Ge => Val::B(a >= b),
            Eq => Val::B(a == b),
            Ne => Val::B(a != b),
            _ => return Err(format!("{op:?} on floats")),
        },
        (Val::I(a), Val::I(b)) => match op {
            Add => Val::I(a.checked_add(b).ok_or("integer overflow")?),
            Sub => Val::I(a.checked_sub(b).ok_or("integer overflow")?),
            Mul => Val::I(a.checked_mul(b).ok_or("integer overflow")?),
            Div => Val::I(a.checked_div(b).ok_or("integer division by zero")?),
            FloorDiv => {
                if b == 0 {
                    return Err("integer division by zero".into());
                }
                Val::I(a.div_euclid(b) - if b < 0 && a.rem_euclid(b) != 0 { 1 } else { 0 })
            }
            Mod => {
                if b == 0 {
                    return Err("integer modulo by zero".into());
                }
                let r = a % b;
                Val::I(if r != 0 && ((r < 0) != (b < 0)) { r + b } else { r })
            }
            Lt => Val::B(a < b),
            Le => Val::B(a <= b),
            Gt => Val::B(a > b),
            Ge => Val::B(a >= b),
            Eq => Val::B(a == b),
            Ne => Val::B(a != b),
            _ => return Err(format!("{op:?} on integers")),
        },
        (Val::B(a), Val::B(b)) => match op {
            And => Val::B(a && b),
            Or => Val::B(a || b),
            Eq => Val::B(a == b),
            Ne => Val::B(a != b),
            _ => return Err(format!("{op:?} on bools")),
        },
        (a, b) => return Err(format!("{op:?} on {a:?} and {b:?}")),
    })
}

fn intrinsic(f: Intrinsic, xs: &[Val]) -> Result<Val, String> {
    use Intrinsic::*;
    if let [Val::I(a), rest @ ..] = xs {
        return Ok(Val::I(match (f, rest) {
            (Abs, []) => a.abs(),
            (Max, [Val::I(b)]) => (*a).max(*b),
            (Min, [Val::I(b)]) => (*a).min(*b),
            _ => return Err(format!("{f:?} on integers")),
        }));
    }
    let a = xs.first().ok_or("missing argument")?.f()?;
    let b = || xs.get(1).copied().ok_or("missing argument".to_string()).and_then(|v| v.f());
    Ok(Val::F(match f {
        Exp => a.exp(),
        Log => a.ln(),
        Sin => a.sin(),
        Cos => a.cos(),
        Tan => a.tan(),
        Tanh => a.tanh(),
        Sinh => a.sinh(),
        Cosh => a.cosh(),
        Arcsin => a.asin(),
        Arccos => a.acos(),
        Arctan => a.atan(),
        Arctan2 => a.atan2(b()?),
        Sqrt => a.sqrt(),
        Abs => a.abs(),
        Pow => a.powf(b()?),
        Max => {
            let b = b()?;
            if a >= b {
                a
            } else {
                b
            }
        }
        Min => {
            let b = b()?;
            if a <= b {
                a
            } else {
                b
            }
        }
        Sign => {
            if b()? >= 0.0 {
                a.abs()
            } else {
                -a.abs()
            }
        }
        Floor => a.floor(),
        Ceil => a.ceil(),
    }))
}

fn setup<'f>(f: &'f Function, args: &Args, opts: Opts) -> Result<M<'f>, String> {
    let mut m = M::new(f, opts);
    for pass in 0..2 {
        for p in &f.params {
            let var = f.var(p.var);
            if var.ty.is_array() != (pass == 1) {
                continue;
            }
            let given = args.get(&var.name);
            if given.is_none() && p.intent != Intent::Out {
                return Err(format!("missing argument `{}`", var.name));
            }
            if !var.ty.is_array() {
                m.slots[p.var.index()] = match given {
                    None => Slot::Unset,
                    Some(Value::Int(x)) => Slot::Scalar(Val::I(*x)),
                    Some(Value::Float(x)) => Slot::Scalar(Val::F(*x)),
                    Some(Value::Bool(x)) => Slot::Scalar(Val::B(*x)),
                    Some(v) => return Err(format!("`{}` expects a scalar, got {v:?}", var.name)),
                };
                continue;
            }
            m.alloc(p.var)?;
            let Slot::Array { data, .. } = &mut m.slots[p.var.index()] else { unreachable!() };
            let n = data.len();
            match given {
                None => {}
                Some(Value::Array(v)) if v.len() == n => *data = v.iter().map(|x| Val::F(*x)).collect(),
                Some(Value::IntArray(v)) if v.len() == n => *data = v.iter().map(|x| Val::I(*x)).collect(),
                Some(v) => return Err(format!("`{}` expects {n} elements, got {v:?}", var.name)),
            }
        }
    }
    Ok(m)
}

/// Number of elements of parameter `name` given the scalar arguments.
pub fn size_of(f: &Function, name: &str, args: &Args) -> usize {
    let mut scalars = args.clone();
    scalars.retain(|_, v| matches!(v, Value::Int(_) | Value::Float(_) | Value::Bool(_)));
    let mut m = M::new(f, Opts::default());
    for p in &f.params {
        let var = f.var(p.var);
        if let Some(Value::Int(x)) = scalars.get(&var.name) {
            m.slots[p.var.index()] = Slot::Scalar(Val::I(*x));
        }
    }
    let v = f.vars.iter().position(|v| v.name == name).unwrap_or_else(|| panic!("no variable {name}"));
    m.alloc(VarId(v as u32)).unwrap();
    match &m.slots[v] {
        Slot::Array { data, .. } => data.len(),
        _ => 1,
    }
}

/// Runs `f` on `args`; outputs (intent out/inout) are written back into `args`.
pub fn run(f: &Function, args: &mut Args, opts: Opts) -> Result<(), String> {
    let mut m = setup(f, args, opts)?;
    m.block(&f.body)?;
    for (t, st) in &m.stacks {
        if !st.is_empty() {
            return Err(format!("tape `{}` holds {} values at the end", f.var(*t).name, st.len()));
        }
    }
    for p in &f.params {
        if p.intent == Intent::In {
            continue;
        }
        let var = f.var(p.var);
        let v = match &m.slots[p.var.index()] {
            Slot::Scalar(Val::F(x)) => Value::Float(*x),
            Slot::Scalar(Val::I(x)) => Value::Int(*x),
            Slot::Scalar(Val::B(x)) => Value::Bool(*x),
            Slot::Array { data, .. } => match var.ty.elem() {
                Scalar::I64 => Value::IntArray(data.iter().map(|x| x.i()).collect::<Result<_, _>>()?),
                _ => Value::Array(data.iter().map(|x| x.f()).collect::<Result<_, _>>()?),
            },
            _ => return Err(format!("output `{}` was never set", var.name)),
        };
        args.insert(var.name.clone(), v);
    }
    Ok(())
}

/// `[A | B]` (n rows, n + k columns) → `A⁻¹ B` by Gaussian elimination with partial pivoting.
fn gauss_solve(mut m: Vec<Vec<f64>>, n: usize, k: usize) -> Vec<Vec<f64>> {
    for col in 0..n {
        let piv = (col..n).max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs())).unwrap_or(col);
        m.swap(col, piv);
        let pivot_row = m[col].clone();
        for row in m.iter_mut().skip(col + 1) {
            let f = row[col] / pivot_row[col];
            for (x, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                *x -= f * p;
            }
        }
    }
    let mut x = vec![vec![0.0; k]; n];
    for j in 0..k {
        for i in (0..n).rev() {
            let mut t = m[i][n + j];
            for p in i + 1..n {
                t -= m[i][p] * x[p][j];
            }
            x[i][j] = t / m[i][i];
        }
    }
    x
}

/// The adjoint of `a` (its lower triangle) in `l = cholesky(a)` given `l_b`: with
/// `P = Φ(Lᵀ L_b)` (lower triangle, halved diagonal) and `S = L⁻ᵀ P L⁻¹`, `a_b[i, j] =
/// S[i, j] + S[j, i]` below the diagonal, `S[i, i]` on it, 0 above.
pub fn cholesky_adjoint(l: &[Vec<f64>], lb: &[Vec<f64>]) -> Vec<((usize, usize), f64)> {
    let n = l.len();
    let mut p = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let mut t = 0.0;
            for q in 0..n {
                t += l[q][i] * lb[q][j];
            }
            p[i][j] = if i == j { 0.5 * t } else { t };
        }
    }
    // Solve Lᵀ X = M column by column (back substitution).
    let lt_solve = |m: &Vec<Vec<f64>>| {
        let mut x = vec![vec![0.0; n]; n];
        for c in 0..n {
            for i in (0..n).rev() {
                let mut t = m[i][c];
                for q in i + 1..n {
                    t -= l[q][i] * x[q][c];
                }
                x[i][c] = t / l[i][i];
            }
        }
        x
    };
    let y = lt_solve(&p);
    let yt: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| y[j][i]).collect()).collect();
    let z = lt_solve(&yt); // Sᵀ
    let mut out = Vec::new();
    for (i, zi) in z.iter().enumerate() {
        for (j, zij) in zi.iter().enumerate() {
            let v = match i.cmp(&j) {
                std::cmp::Ordering::Greater => zij + z[j][i],
                std::cmp::Ordering::Equal => *zij,
                std::cmp::Ordering::Less => 0.0,
            };
            out.push(((i, j), v));
        }
    }
    out
}

#[cfg(test)]
mod linalg_tests {
    use super::{cholesky_adjoint, gauss_solve};

    fn chol(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let n = a.len();
        let mut l = vec![vec![0.0; n]; n];
        for j in 0..n {
            let d = a[j][j] - l[j][..j].iter().map(|x| x * x).sum::<f64>();
            l[j][j] = d.sqrt();
            for i in j + 1..n {
                l[i][j] = (a[i][j] - l[i][..j].iter().zip(&l[j][..j]).map(|(x, y)| x * y).sum::<f64>()) / l[j][j];
            }
        }
        l
    }

    #[test]
    fn solve_matches_a_known_solution() {
        let m = vec![vec![4.0, 1.0, 2.0, 1.0], vec![1.0, 5.0, 1.0, 2.0], vec![2.0, 1.0, 6.0, 3.0]];
        let x = gauss_solve(m, 3, 1);
        let want = [-0.06382978723404255, 0.3191489361702128, 0.46808510638297873];
        for (xi, wi) in x.iter().zip(want) {
            assert!((xi[0] - wi).abs() < 1e-12, "{x:?}");
        }
    }

    /// `<a_b, da>` equals the derivative of `<l_b, cholesky(a)>` along `da` (central
    /// differences), for a `da` that also touches the upper triangle (never read).
    #[test]
    fn cholesky_adjoint_matches_finite_differences() {
        let a = vec![vec![4.0, 0.3, 2.0], vec![1.0, 5.0, -7.0], vec![2.0, 1.0, 6.0]];
        let lb = vec![vec![0.7, 9.0, 9.0], vec![-0.4, 1.1, 9.0], vec![0.25, 0.6, -1.3]];
        let da = vec![vec![0.2, -0.5, 0.9], vec![0.3, -0.1, 0.4], vec![-0.6, 0.8, 0.5]];
        let f = |h: f64| {
            let ah: Vec<Vec<f64>> =
                a.iter().zip(&da).map(|(r, d)| r.iter().zip(d).map(|(x, y)| x + h * y).collect()).collect();
            let l = chol(&ah);
            (0..3).flat_map(|i| (0..=i).map(move |j| (i, j))).map(|(i, j)| l[i][j] * lb[i][j]).sum::<f64>()
        };
        let h = 1e-5;
        let fd = (f(h) - f(-h)) / (2.0 * h);
        let ab = cholesky_adjoint(&chol(&a), &lb);
        let adj: f64 = ab.iter().map(|((i, j), g)| g * da[*i][*j]).sum();
        assert!((fd - adj).abs() < 1e-8 * fd.abs().max(1.0), "fd {fd} adjoint {adj}");
    }
}
