//! Random primal kernels (maps with stencil reads, iteration-private temporaries, all
//! accumulation kinds, parallel reductions, recurrences, branches, time loops), each
//! checked by the dot-product test. A failing seed prints the primal and the adjoint.

mod common;

use adjc_ir::{AccOp, BinOp, Function, Intent, Intrinsic, Scalar, Stmt, VarId};
use common::builder::*;
use common::check::{check_with, Rng};
use common::interp::Value;

struct Gen {
    rng: Rng,
    b: B,
    n: VarId,
    a: VarId,
    writable: Vec<VarId>,
    alpha: VarId,
    s: VarId,
    t: VarId,
    i: VarId,
    k: VarId,
    tt: Vec<VarId>,
    j: VarId,
    m: VarId,
    tmp: VarId,
}

/// Where an expression is evaluated: which reads are allowed.
#[derive(Clone, Copy)]
enum At {
    /// Top level or a time loop: scalars only.
    Scalar,
    /// A map over `i` in [1, N-1) writing `w` (read only at `i`); `tmp`: the private temp is set.
    Map { w: Option<VarId>, tmp: bool, no_s: bool },
    /// A recurrence loop over `k` in [1, N) writing `w`.
    Rec { w: VarId },
}

impl Gen {
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[(self.rng.uniform(0.0, xs.len() as f64) as usize).min(xs.len() - 1)]
    }
    fn coin(&mut self, p: f64) -> bool {
        self.rng.uniform(0.0, 1.0) < p
    }
    fn leaf(&mut self, at: At) -> E {
        let arrays: Vec<VarId> = std::iter::once(self.a).chain(self.writable.iter().copied()).collect();
        match at {
            At::Scalar => match self.pick(&[0, 1, 2]) {
                0 => self.b.v(self.alpha),
                1 => self.b.v(self.s),
                _ => f64c(self.rng.uniform(0.2, 0.9)),
            },
            At::Map { w, tmp, no_s } => {
                let choice = self.pick(&[0, 0, 0, 1, 2, 3]);
                match choice {
                    0 => {
                        let x = self.pick(&arrays);
                        let off = if Some(x) == w { 0 } else { self.pick(&[-1i64, 0, 1]) };
                        let i = self.b.v(self.i);
                        self.b.ld(x, vec![i + off])
                    }
                    1 if tmp => self.b.v(self.t),
                    2 if !no_s => self.b.v(self.s),
                    _ => self.b.v(self.alpha),
                }
            }
            At::Rec { w } => {
                let x = self.pick(&arrays);
                let k = self.b.v(self.k);
                if x == w {
                    let off = self.pick(&[-1i64, 0]);
                    self.b.ld(x, vec![k + off])
                } else {
                    self.b.ld(x, vec![k])
                }
            }
        }
    }
    fn expr(&mut self, depth: u32, at: At) -> E {
        if depth == 0 || self.coin(0.25) {
            return self.leaf(at);
        }
        match self.pick(&[0, 1, 2, 3, 4, 5, 6, 7, 8]) {
            0 => self.expr(depth - 1, at) + self.expr(depth - 1, at),
            1 => self.expr(depth - 1, at) - self.expr(depth - 1, at),
            2 => self.expr(depth - 1, at) * self.expr(depth - 1, at),
            3 => {
                let d = self.expr(depth - 1, at);
                self.expr(depth - 1, at) / (d.clone() * d + 1.5)
            }
            4 => sin(self.expr(depth - 1, at)),
            5 => tanh(self.expr(depth - 1, at)),
            6 => exp(tanh(self.expr(depth - 1, at))),
            7 => max(self.expr(depth - 1, at), self.expr(depth - 1, at)),
            _ => {
                let x = self.expr(depth - 1, at);
                sqrt(x.clone() * x + 1.0)
            }
        }
    }
    fn acc_op(&mut self) -> Option<AccOp> {
        self.pick(&[None, None, Some(AccOp::Add), Some(AccOp::Mul), Some(AccOp::Max), Some(AccOp::Min)])
    }
    fn write(&mut self, place: adjc_ir::Place, e: E) -> Stmt {
        match self.acc_op() {
            None => assign(place, e),
            Some(AccOp::Mul) => acc(place, AccOp::Mul, tanh(e) * 0.5 + 1.0, false),
            Some(op) => acc(place, op, e, false),
        }
    }
    fn stmt(&mut self, depth: u32) -> Stmt {
        let n = self.b.v(self.n);
        let kind = self.pick(&[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
        match kind {
            0 => {
                let w = self.pick(&self.writable.clone());
                let e = self.expr(3, At::Map { w: Some(w), tmp: false, no_s: false });
                let iv = self.b.v(self.i);
                let st = self.write(at(w, vec![iv]), e);
                map(vec![(self.i, int(1), n - 1)], vec![st])
            }
            1 => {
                let w = self.pick(&self.writable.clone());
                let e1 = self.expr(2, At::Map { w: Some(w), tmp: false, no_s: false });
                let e2 = self.expr(3, At::Map { w: Some(w), tmp: true, no_s: false });
                let iv = self.b.v(self.i);
                let st = self.write(at(w, vec![iv.clone()]), e2);
                let mut body = vec![assign(sc(self.t), e1), st];
                if self.coin(0.5) {
                    let tv = self.b.v(self.t);
                    body.push(assign(sc(self.t), sin(tv)));
                    let tv = self.b.v(self.t);
                    body.push(acc(at(w, vec![iv]), AccOp::Add, tv * 0.3, false));
                }
                map(vec![(self.i, int(1), n - 1)], body)
            }
            2 => {
                let op = self.pick(&[AccOp::Add, AccOp::Add, AccOp::Max, AccOp::Min, AccOp::Mul]);
                let e = self.expr(3, At::Map { w: None, tmp: false, no_s: true });
                let e = if op == AccOp::Mul { tanh(e) * 0.2 + 1.0 } else { e * 0.2 };
                map(vec![(self.i, int(1), n - 1)], vec![acc(sc(self.s), op, e, true)])
            }
            3 => {
                let e = self.expr(3, At::Scalar);
                let v = self.b.v(self.s);
                assign(sc(self.s), tanh(e) + v * 0.5)
            }
            4 => {
                let w = self.pick(&self.writable.clone());
                let e = self.expr(3, At::Rec { w });
                let kv = self.b.v(self.k);
                lp(self.k, int(1), n, 1, vec![self.write(at(w, vec![kv]), tanh(e))])
            }
            5 if depth > 0 => {
                let c = self.b.v(self.s).cmp(BinOp::Gt, f64c(self.rng.uniform(0.0, 1.0)));
                let then_body = vec![self.stmt(depth - 1)];
                let else_body = if self.coin(0.5) { vec![self.stmt(depth - 1)] } else { vec![] };
                if_(c, then_body, else_body)
            }
            6 => {
                // A reduction loop inside a map: w[i] op= e(k) for k over the whole range.
                let w = self.pick(&self.writable.clone());
                let others: Vec<VarId> =
                    std::iter::once(self.a).chain(self.writable.iter().copied()).filter(|x| *x != w).collect();
                let z = self.pick(&others);
                let op = self.pick(&[AccOp::Max, AccOp::Min, AccOp::Add]);
                let (iv, kv) = (self.b.v(self.i), self.b.v(self.k));
                let fi = E(iv.0.clone().cast(Scalar::F64));
                let e = sin(self.b.ld(z, vec![kv]) * fi * 0.1 + self.b.ld(z, vec![iv.clone()]));
                let mut body = Vec::new();
                if self.coin(0.6) {
                    body.push(assign(
                        at(w, vec![iv.clone()]),
                        self.expr(1, At::Map { w: Some(w), tmp: false, no_s: false }),
                    ));
                }
                body.push(lp(self.k, int(0), n, 1, vec![acc(at(w, vec![iv]), op, e, false)]));
                map(vec![(self.i, int(1), self.b.v(self.n) - 1)], body)
            }
            8 => {
                // `if` inside a map body: on the input (evaluated again) or on a private temp.
                let w = self.pick(&self.writable.clone());
                let iv = self.b.v(self.i);
                let e1 = self.expr(2, At::Map { w: Some(w), tmp: false, no_s: false });
                let e2 = self.expr(2, At::Map { w: Some(w), tmp: true, no_s: false });
                let e3 = self.expr(2, At::Map { w: Some(w), tmp: true, no_s: false });
                let on_input = self.coin(0.5);
                let c = if on_input {
                    self.b.ld(self.a, vec![iv.clone()]).cmp(BinOp::Gt, f64c(1.0))
                } else {
                    self.b.v(self.t).cmp(BinOp::Gt, f64c(self.rng.uniform(0.0, 1.5)))
                };
                let then_w = self.write(at(w, vec![iv.clone()]), e2);
                map(
                    vec![(self.i, int(1), n - 1)],
                    vec![assign(sc(self.t), e1), if_(c, vec![then_w], vec![assign(at(w, vec![iv]), e3)])],
                )
            }
            9 => {
                // An integer counter indexing backwards.
                let w = self.pick(&self.writable.clone());
                let (jv, kv) = (self.b.v(self.j), self.b.v(self.k));
                let x = self.pick(&[self.a, w]);
                let e = tanh(self.b.ld(w, vec![jv.clone()]) * self.b.ld(x, vec![kv.clone()]));
                let st = self.write(at(w, vec![jv.clone()]), e);
                let nv = self.b.v(self.n);
                Stmt::new(
                    adjc_ir::StmtKind::Section {
                        title: "counter".into(),
                        body: vec![
                            assign(sc(self.j), nv - 1),
                            lp(self.k, int(0), n, 1, vec![st, assign(sc(self.j), jv - 1)]),
                        ],
                    },
                    adjc_ir::Span::NONE,
                )
            }
            10 => {
                // A backward recurrence with a negative step.
                let w = self.pick(&self.writable.clone());
                let kv = self.b.v(self.k);
                let e = tanh(
                    self.b.ld(w, vec![kv.clone() + 1]) * self.b.ld(self.a, vec![kv.clone()])
                        + self.b.ld(w, vec![kv.clone()]),
                );
                let st = self.write(at(w, vec![kv]), e);
                lp(self.k, n - 2, int(-1), -1, vec![st])
            }
            11 => {
                // A parallel max/min into a scalar, then used.
                let op = self.pick(&[AccOp::Max, AccOp::Min]);
                let e = self.expr(2, At::Map { w: None, tmp: false, no_s: false });
                let init = if op == AccOp::Max { f64::NEG_INFINITY } else { f64::INFINITY };
                let sv = self.b.v(self.s);
                let mv = self.b.v(self.m);
                Stmt::new(
                    adjc_ir::StmtKind::Section {
                        title: "reduce".into(),
                        body: vec![
                            assign(sc(self.m), f64c(init)),
                            map(vec![(self.i, int(1), n - 1)], vec![acc(sc(self.m), op, e, true)]),
                            assign(sc(self.s), sv + tanh(mv)),
                        ],
                    },
                    adjc_ir::Span::NONE,
                )
            }
            12 => {
                // A local temporary array, filled then consumed.
                let w = self.pick(&self.writable.clone());
                let e1 = self.expr(2, At::Map { w: None, tmp: false, no_s: false });
                let iv = self.b.v(self.i);
                let tv = self.b.ld(self.tmp, vec![iv.clone()]);
                let e2 = tanh(tv) * self.b.ld(w, vec![iv.clone()]);
                let st = self.write(at(w, vec![iv.clone()]), e2);
                Stmt::new(
                    adjc_ir::StmtKind::Section {
                        title: "temp".into(),
                        body: vec![
                            map(vec![(self.i, int(1), n.clone() - 1)], vec![assign(at(self.tmp, vec![iv]), e1)]),
                            map(vec![(self.i, int(1), n - 1)], vec![st]),
                        ],
                    },
                    adjc_ir::Span::NONE,
                )
            }
            13 => {
                // A sequential max over the whole array into the scalar.
                let x = self.pick(&[self.a, self.writable[0], self.writable[1]]);
                let kv = self.b.v(self.k);
                let e = sin(self.b.ld(x, vec![kv]) * 3.0);
                let sv = self.b.v(self.s);
                let mv = self.b.v(self.m);
                Stmt::new(
                    adjc_ir::StmtKind::Section {
                        title: "seqmax".into(),
                        body: vec![
                            assign(sc(self.m), sv * 0.1),
                            lp(self.k, int(0), n, 1, vec![acc(sc(self.m), AccOp::Max, e, false)]),
                            assign(sc(self.s), mv * 0.5 + tanh(self.b.v(self.s))),
                        ],
                    },
                    adjc_ir::Span::NONE,
                )
            }
            _ if depth > 0 => {
                let body = (0..self.pick(&[1, 2, 3])).map(|_| self.stmt(depth - 1)).collect();
                lp(self.tt[depth as usize], int(0), int(self.pick(&[0i64, 1, 2, 3])), 1, body)
            }
            _ => self.stmt(depth),
        }
    }
}

fn kernel(seed: u64) -> Function {
    let mut b = B::new("fuzz");
    let n = b.size("N");
    let ty = || array(Scalar::F64, vec![E(adjc_ir::Expr::var(n, Scalar::I64))]);
    let alpha = b.param("alpha", F64, Intent::In);
    let a = b.param("A", ty(), Intent::In);
    let bb = b.param("B", ty(), Intent::InOut);
    let c = b.param("C", ty(), Intent::InOut);
    let ret = b.ret("ret", F64);
    let s = b.local("s", F64);
    let t = b.temp("t", F64);
    let (i, k) = (b.index("i"), b.index("k"));
    let tt = (0..3).map(|d| b.index(&format!("t{d}"))).collect();
    let j = b.local("j", I64);
    let m = b.local("m", F64);
    let tmp = b.temp("T", array(Scalar::F64, vec![E(adjc_ir::Expr::var(n, Scalar::I64))]));
    let mut g = Gen { rng: Rng::new(seed), b, n, a, writable: vec![bb, c], alpha, s, t, i, k, tt, j, m, tmp };
    let mut body = vec![alloc(tmp), assign(sc(s), g.b.v(alpha) * 0.5)];
    for _ in 0..g.pick(&[2, 3, 4, 5]) {
        body.push(g.stmt(2));
    }
    let (sv, av) = (g.b.v(s), g.b.v(alpha));
    body.push(assign(sc(ret), sv * av));
    body.push(free(tmp));
    let _ = Intrinsic::Exp;
    g.b.finish(body)
}

#[test]
fn random_kernels_pass_the_dot_product_test() {
    // ADJC_FUZZ=<count> and ADJC_FUZZ_START=<first seed> run longer campaigns.
    let env = |name: &str, default: u64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let (start, count) = (env("ADJC_FUZZ_START", 0), env("ADJC_FUZZ", 300));
    for seed in start..start + count {
        let f = kernel(seed);
        let mut rng = Rng::new(seed ^ 0xabcdef);
        let subset = |rng: &mut Rng, all: &[&str]| -> Option<Vec<String>> {
            if rng.uniform(0.0, 1.0) < 0.6 {
                return None;
            }
            let v: Vec<String> = all.iter().filter(|_| rng.uniform(0.0, 1.0) < 0.5).map(|s| s.to_string()).collect();
            if v.is_empty() {
                None
            } else {
                Some(v)
            }
        };
        let opts = adjc_autodiff::AdOptions {
            wrt: subset(&mut rng, &["alpha", "A", "B", "C"]),
            of: subset(&mut rng, &["B", "C", "ret"]),
            ..Default::default()
        };
        let res = std::panic::catch_unwind(|| {
            check_with(&f, &opts, &[("N", Value::Int(6))], 0.5, 1.5);
        });
        if res.is_err() {
            panic!("seed {seed} failed ({opts:?}); primal:\n{}", adjc_ir::print::print_function(&f));
        }
    }
}
