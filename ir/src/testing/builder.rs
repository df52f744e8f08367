//! The IR builder of the tests: functions written in a few lines (`lp`, `map`, `assign`,
//! `acc`, expressions with operators through [`E`]), spans numbered by position, loops and
//! maps numbered as a frontend does, validated on [`B::finish`].
//!
//! Tests of the printers (emit's), whose output quotes source lines, give every statement
//! its span themselves: they start with [`B::at`], add statements with [`B::push`] and end
//! with [`B::finish_as_built`], which keeps the spans.

use crate::*;
use std::ops;

/// An expression with operators (`a + b`, `a * 2.0`, `i - 1`).
#[derive(Clone, Debug)]
pub struct E(pub Expr);

impl From<Expr> for E {
    fn from(e: Expr) -> E {
        E(e)
    }
}

fn lift(x: f64, like: &Expr) -> Expr {
    if like.ty == Scalar::I64 {
        Expr::int(x as i64)
    } else {
        Expr::float(x, like.ty)
    }
}

macro_rules! binop {
    ($tr:ident, $m:ident, $op:expr) => {
        impl ops::$tr<E> for E {
            type Output = E;
            fn $m(self, rhs: E) -> E {
                E(Expr::binary($op, self.0, rhs.0))
            }
        }
        impl ops::$tr<f64> for E {
            type Output = E;
            fn $m(self, rhs: f64) -> E {
                let r = lift(rhs, &self.0);
                E(Expr::binary($op, self.0, r))
            }
        }
        impl ops::$tr<i64> for E {
            type Output = E;
            fn $m(self, rhs: i64) -> E {
                let r = lift(rhs as f64, &self.0);
                E(Expr::binary($op, self.0, r))
            }
        }
        impl ops::$tr<E> for f64 {
            type Output = E;
            fn $m(self, rhs: E) -> E {
                let l = lift(self, &rhs.0);
                E(Expr::binary($op, l, rhs.0))
            }
        }
    };
}
binop!(Add, add, BinOp::Add);
binop!(Sub, sub, BinOp::Sub);
binop!(Mul, mul, BinOp::Mul);
binop!(Div, div, BinOp::Div);

impl ops::Neg for E {
    type Output = E;
    fn neg(self) -> E {
        E(self.0.neg())
    }
}

impl E {
    pub fn call(f: Intrinsic, args: Vec<E>) -> E {
        let ty = args[0].0.ty;
        E(Expr::call(f, args.into_iter().map(|a| a.0).collect(), ty))
    }
    pub fn cmp(self, op: BinOp, rhs: E) -> E {
        E(Expr::binary(op, self.0, rhs.0))
    }
    pub fn select(c: E, a: E, b: E) -> E {
        E(Expr::select(c.0, a.0, b.0))
    }
}

pub fn exp(x: E) -> E {
    E::call(Intrinsic::Exp, vec![x])
}
pub fn sin(x: E) -> E {
    E::call(Intrinsic::Sin, vec![x])
}
pub fn cos(x: E) -> E {
    E::call(Intrinsic::Cos, vec![x])
}
pub fn log(x: E) -> E {
    E::call(Intrinsic::Log, vec![x])
}
pub fn sqrt(x: E) -> E {
    E::call(Intrinsic::Sqrt, vec![x])
}
pub fn tanh(x: E) -> E {
    E::call(Intrinsic::Tanh, vec![x])
}
pub fn max(a: E, b: E) -> E {
    E::call(Intrinsic::Max, vec![a, b])
}
pub fn int(v: i64) -> E {
    E(Expr::int(v))
}
pub fn f64c(v: f64) -> E {
    E(Expr::float(v, Scalar::F64))
}
pub fn f32c(v: f64) -> E {
    E(Expr::float(v, Scalar::F32))
}

pub struct B {
    pub f: Function,
}

pub fn array(elem: Scalar, dims: Vec<E>) -> Type {
    Type::Array { elem, dims: dims.into_iter().map(|d| Dim::zero_based(d.0)).collect(), layout: Layout::RowMajor }
}

pub const F64: Type = Type::Scalar(Scalar::F64);
pub const F32: Type = Type::Scalar(Scalar::F32);
pub const I64: Type = Type::Scalar(Scalar::I64);

impl B {
    pub fn new(name: &str) -> B {
        B { f: Function::empty(name, Span::NONE) }
    }
    /// A function at `span` (its `def` line), for tests that give statements their spans.
    pub fn at(name: &str, span: Span) -> B {
        B { f: Function::empty(name, span) }
    }
    fn add(&mut self, name: &str, ty: Type, role: VarRole, intent: Option<Intent>) -> VarId {
        let v = self.f.add_var(name, ty, role, Span::NONE);
        if let Some(intent) = intent {
            self.f.params.push(Param { var: v, intent, doc: String::new() });
        }
        v
    }
    pub fn size(&mut self, name: &str) -> VarId {
        self.add(name, I64, VarRole::Size, Some(Intent::In))
    }
    pub fn param(&mut self, name: &str, ty: Type, intent: Intent) -> VarId {
        self.add(name, ty, VarRole::Param, Some(intent))
    }
    pub fn ret(&mut self, name: &str, ty: Type) -> VarId {
        self.add(name, ty, VarRole::Return, Some(Intent::Out))
    }
    pub fn local(&mut self, name: &str, ty: Type) -> VarId {
        self.add(name, ty, VarRole::Local, None)
    }
    pub fn temp(&mut self, name: &str, ty: Type) -> VarId {
        self.add(name, ty, VarRole::Temp, None)
    }
    pub fn index(&mut self, name: &str) -> VarId {
        self.add(name, I64, VarRole::Index, None)
    }
    /// A variable of any role that is not a parameter (a tape, a local array).
    pub fn var(&mut self, name: &str, ty: Type, role: VarRole) -> VarId {
        self.add(name, ty, role, None)
    }
    /// A parameter of any role, with its documentation (the generated header shows it).
    pub fn param_with(&mut self, name: &str, ty: Type, role: VarRole, intent: Intent, doc: &str) -> VarId {
        let v = self.add(name, ty, role, Some(intent));
        self.f.params.last_mut().expect("just added").doc = doc.to_string();
        v
    }
    /// Appends a statement to the body (see [`B::finish_as_built`]).
    pub fn push(&mut self, s: Stmt) {
        self.f.body.push(s);
    }
    /// A scalar variable read.
    pub fn v(&self, id: VarId) -> E {
        E(Expr::var(id, self.f.var(id).ty.elem()))
    }
    /// An array element read.
    pub fn ld(&self, id: VarId, idx: Vec<E>) -> E {
        E(Expr::load(id, idx.into_iter().map(|e| e.0).collect(), self.f.var(id).ty.elem()))
    }
    /// Numbers statements in pre-order (line = position) so notes and spans are readable,
    /// numbers loops and maps (`L0`, `M0`, ... in program order, as a frontend does), and
    /// validates.
    pub fn finish(mut self, body: Block) -> Function {
        let mut line = 1;
        #[allow(clippy::items_after_statements)]
        fn number(b: &mut Block, line: &mut u32) {
            for s in b.iter_mut() {
                s.span = Span { line: *line, col: 1, start: 0, end: 0 };
                *line += 1;
                for c in s.blocks_mut() {
                    number(c, line);
                }
            }
        }
        self.f.body = body;
        number(&mut self.f.body, &mut line);
        crate::proc::ids::settle(&mut self.f.body);
        validate::validate(&self.f).unwrap_or_else(|e| panic!("test primal invalid: {e}"));
        self.f
    }
    /// The pushed statements with the spans they were given; loops and maps numbered, and
    /// validated.
    pub fn finish_as_built(mut self) -> Function {
        crate::proc::ids::settle(&mut self.f.body);
        validate::validate(&self.f).unwrap_or_else(|e| panic!("test IR is invalid: {e}"));
        self.f
    }
}

pub fn at(v: VarId, idx: Vec<E>) -> Place {
    Place::element(v, idx.into_iter().map(|e| e.0).collect())
}
pub fn sc(v: VarId) -> Place {
    Place::scalar(v)
}
pub fn assign(p: Place, e: E) -> Stmt {
    Stmt::assign(p, e.0, Span::NONE)
}
pub fn acc(p: Place, op: AccOp, e: E, shared: bool) -> Stmt {
    Stmt::new(StmtKind::Accumulate { target: p, op, value: e.0, shared }, Span::NONE)
}
pub fn lp(var: VarId, start: E, stop: E, step: i64, body: Block) -> Stmt {
    Stmt::new(
        StmtKind::Loop(Loop { id: LoopId::NEW, var, start: start.0, stop: stop.0, step: Expr::int(step), body }),
        Span::NONE,
    )
}
pub fn map(dims: Vec<(VarId, E, E)>, body: Block) -> Stmt {
    Stmt::new(
        StmtKind::Map(Map {
            id: MapId::NEW,
            dims: dims.into_iter().map(|(var, a, b)| MapDim { var, start: a.0, stop: b.0 }).collect(),
            body,
        }),
        Span::NONE,
    )
}
pub fn if_(c: E, then_body: Block, else_body: Block) -> Stmt {
    Stmt::new(StmtKind::If { cond: c.0, then_body, else_body }, Span::NONE)
}
pub fn alloc(v: VarId) -> Stmt {
    Stmt::new(StmtKind::Alloc(v), Span::NONE)
}
pub fn free(v: VarId) -> Stmt {
    Stmt::new(StmtKind::Free(v), Span::NONE)
}
