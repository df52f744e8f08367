//! # Loop parallelisation
//!
//! [`parallelize`] turns a sequential `Loop` whose iterations are provably independent into
//! a `Map`. It runs on the primal before [`crate::reverse`], which reverses maps into maps,
//! so the forward function *and* the adjoint get `#pragma omp parallel for`. A loop that is
//! not provably independent stays a `Loop`, sequential in both sweeps: a wrong "yes" here is
//! a data race and a wrong result, so every rule errs on the side of "no".
//!
//! A loop over `v` becomes a map when all of these hold:
//!
//! * its step is a constant, and its body holds no push/pop, alloc/free or library call;
//! * its bounds read nothing the body writes, and no loop or map bound inside the body
//!   reads a variable the body writes (trip counts must not depend on the iteration);
//! * every array the body writes is either *owned slice by slice*: in one dimension, every
//!   access (read or write) indexes it with the same affine function `a*v + c`, `a != 0`,
//!   `c` invariant — so iteration `v` touches only its own slice; or *only accumulated*:
//!   written by `+=` alone and never read in the body (those `+=` become `shared`);
//! * every scalar the body writes is either *iteration-private*: assigned before any read
//!   in every iteration and dead after the loop; or a *reduction*: updated only by one of
//!   `+=`, `max=`, `min=` (the last two on local scalars only, as OpenMP reductions) and
//!   never read in the body (the updates become `shared`).
//!
//! The outermost qualifying loop of a nest wins. Loops inside maps (given, or made by this
//! pass) are left alone: the emitter parallelises only the outermost map of a nest. One
//! independent loop is kept sequential for speed: a flat scalar reduction (a dot product)
//! inside another loop, where a parallel region per outer iteration would cost more than
//! the reduction's flops.
//!
//! Steps: `+1` keeps the bounds; `-1` maps the same iterations as `[stop + 1, start + 1)`;
//! any other constant step maps a fresh counter `v_it` over `[0, trip)` and substitutes
//! `v = start + step * v_it` in the body (only when `start` is a plain affine expression).

use adjc_ir::eval::eval_int;
use adjc_ir::proc::affine::Affine;
use adjc_ir::{
    walk_stmts, written_vars, AccOp, BinOp, Block, Expr, ExprKind, Function, Loop, Map, MapDim, Note, Scalar, Stmt,
    StmtKind, Type, VarId, VarRole,
};
use std::collections::{BTreeMap, BTreeSet};

type VarSet = BTreeSet<VarId>;

/// The primal `f` with every provably independent loop turned into a map (see the module
/// documentation). `f` must be valid IR (validate it first); so is the result. Pure.
pub fn parallelize(f: &Function) -> Function {
    let mut out = f.clone();
    let body = std::mem::take(&mut out.body);
    // Parameters are what the caller sees after the call: live at the end.
    let live_end: VarSet = f.params.iter().map(|p| p.var).filter(|v| liveness::tracked(f, *v)).collect();
    out.body = Pass { f: &mut out, depth: 0 }.block(body, &live_end);
    adjc_ir::proc::ids::settle(&mut out.body);
    out
}

struct Pass<'a> {
    f: &'a mut Function,
    /// Number of sequential loops around the current block.
    depth: usize,
}

impl Pass<'_> {
    /// Rewrites `b`; `out` is the set of scalars live right after it.
    fn block(&mut self, b: Block, out: &VarSet) -> Block {
        let mut outs = vec![VarSet::new(); b.len()];
        let mut live = out.clone();
        for (k, s) in b.iter().enumerate().rev() {
            outs[k] = live.clone();
            live = liveness::stmt(self.f, s, &live);
        }
        b.into_iter().zip(outs).map(|(s, o)| self.stmt(s, &o)).collect()
    }

    fn stmt(&mut self, mut s: Stmt, out: &VarSet) -> Stmt {
        match &mut s.kind {
            StmtKind::Loop(l) => {
                if let Some(plan) = independence::plan(self.f, l, out) {
                    if self.depth == 0 || !flat_scalar_reduction(self.f, l) {
                        return rewrite::to_map(self.f, &s, plan);
                    }
                }
                let body_out = liveness::loop_fixpoint(self.f, &l.body, out);
                self.depth += 1;
                l.body = self.block(std::mem::take(&mut l.body), &body_out);
                self.depth -= 1;
            }
            StmtKind::If { then_body, else_body, .. } => {
                *then_body = self.block(std::mem::take(then_body), out);
                *else_body = self.block(std::mem::take(else_body), out);
            }
            StmtKind::Section { body, .. } => *body = self.block(std::mem::take(body), out),
            _ => {}
        }
        s
    }
}

/// A dot product or norm: its body writes only scalars and holds no loop or map. Inside
/// another loop it is left sequential: a parallel region per outer iteration costs far more
/// than its few flops (cholesky.py at N = 300 ran 30 times slower).
fn flat_scalar_reduction(f: &Function, l: &Loop) -> bool {
    let only_scalars = written_vars(&l.body).iter().all(|v| !f.var(*v).ty.is_array());
    let mut nested = false;
    walk_stmts(&l.body, &mut |s| nested |= matches!(s.kind, StmtKind::Loop(_) | StmtKind::Map(_)));
    only_scalars && !nested
}

/// Whether the iterations of `l` are independent by the rules that turn a loop into a map
/// (see the module documentation): they may then run in any order. `live_out`: scalars
/// live right after the loop.
pub(crate) fn iterations_commute(f: &Function, l: &Loop, live_out: &VarSet) -> bool {
    independence::plan(f, l, live_out).is_some()
}

/// Backward liveness of scalar variables on the structured IR. Arrays are not tracked
/// (their elements are handled by the index rules). Maps are treated like loops, which
/// only over-approximates.
pub(crate) mod liveness {
    use super::*;

    /// Scalars that statements can assign (indices never are).
    pub(crate) fn tracked(f: &Function, v: VarId) -> bool {
        let var = f.var(v);
        !var.ty.is_array() && var.role != VarRole::Index
    }

    fn add_reads(f: &Function, e: &Expr, set: &mut VarSet) {
        set.extend(e.vars().into_iter().filter(|v| tracked(f, *v)));
    }

    pub(crate) fn block(f: &Function, b: &Block, out: &VarSet) -> VarSet {
        b.iter().rev().fold(out.clone(), |live, s| stmt(f, s, &live))
    }

    /// The scalars live at the end of a loop (or map) body, given those live after the
    /// loop: the body may run again or not at all. Bound reads aside, it is also what is
    /// live on entry to the loop.
    pub(crate) fn loop_fixpoint(f: &Function, body: &Block, out: &VarSet) -> VarSet {
        let mut x = out.clone();
        loop {
            let mut next = out.clone();
            next.extend(block(f, body, &x));
            if next == x {
                return x;
            }
            x = next;
        }
    }

    /// Scalars live before `s` given those live after it.
    pub(crate) fn stmt(f: &Function, s: &Stmt, out: &VarSet) -> VarSet {
        let mut live = out.clone();
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Pop { target, .. } if target.is_scalar() => {
                live.remove(&target.var);
            }
            StmtKind::Accumulate { target, .. } if target.is_scalar() && tracked(f, target.var) => {
                live.insert(target.var);
            }
            StmtKind::Loop(l) => live = loop_fixpoint(f, &l.body, out),
            StmtKind::While(w) => live = loop_fixpoint(f, &w.body, out),
            StmtKind::Map(m) => live = loop_fixpoint(f, &m.body, out),
            StmtKind::If { then_body, else_body, .. } => {
                live = block(f, then_body, out);
                live.extend(block(f, else_body, out));
            }
            StmtKind::Section { body, .. } => live = block(f, body, out),
            _ => {}
        }
        s.exprs(&mut |e| add_reads(f, e, &mut live));
        live
    }
}

/// Whether a loop's iterations are independent, and what the map needs to know.
mod independence {
    use super::*;

    /// How a variable is used at one place of the loop body.
    enum Access<'a> {
        /// A read (scalar or element); the index is empty for scalars.
        Read(&'a [Expr]),
        Assign(&'a [Expr]),
        Accumulate(AccOp, &'a [Expr]),
    }

    impl<'a> Access<'a> {
        fn index(&self) -> &'a [Expr] {
            match self {
                Access::Read(i) | Access::Assign(i) | Access::Accumulate(_, i) => i,
            }
        }
    }

    pub(in super::super) struct Plan {
        pub step: i64,
        /// Variables whose accumulations other iterations may now hit: marked `shared`.
        pub shared: VarSet,
    }

    fn accesses(body: &Block) -> BTreeMap<VarId, Vec<Access<'_>>> {
        fn expr<'a>(e: &'a Expr, out: &mut BTreeMap<VarId, Vec<Access<'a>>>) {
            match &e.kind {
                ExprKind::Const(_) => {}
                ExprKind::Var(v) => out.entry(*v).or_default().push(Access::Read(&[])),
                ExprKind::Load(v, idx) => {
                    out.entry(*v).or_default().push(Access::Read(idx));
                    idx.iter().for_each(|i| expr(i, out));
                }
                ExprKind::Unary(_, a) | ExprKind::Cast(a) => expr(a, out),
                ExprKind::Binary(_, a, b) => {
                    expr(a, out);
                    expr(b, out);
                }
                ExprKind::Call(_, args) => args.iter().for_each(|a| expr(a, out)),
                ExprKind::Select(c, a, b) => [c, a, b].into_iter().for_each(|x| expr(x, out)),
            }
        }
        fn block<'a>(b: &'a Block, out: &mut BTreeMap<VarId, Vec<Access<'a>>>) {
            for s in b {
                let mut direct: Vec<&'a Expr> = Vec::new();
                match &s.kind {
                    StmtKind::Assign { target, value } => {
                        out.entry(target.var).or_default().push(Access::Assign(&target.index));
                        direct.extend(target.index.iter().chain([value]));
                    }
                    StmtKind::Accumulate { target, op, value, .. } => {
                        out.entry(target.var).or_default().push(Access::Accumulate(*op, &target.index));
                        direct.extend(target.index.iter().chain([value]));
                    }
                    StmtKind::Loop(l) => direct.extend([&l.start, &l.stop, &l.step]),
                    StmtKind::While(w) => direct.push(&w.cond),
                    StmtKind::Map(m) => direct.extend(m.dims.iter().flat_map(|d| [&d.start, &d.stop])),
                    StmtKind::If { cond, .. } => direct.push(cond),
                    StmtKind::Push { value, .. } => direct.push(value),
                    StmtKind::Pop { target, .. } => direct.extend(target.index.iter()),
                    StmtKind::Alloc(_)
                    | StmtKind::Free(_)
                    | StmtKind::Call(_)
                    | StmtKind::Section { .. }
                    | StmtKind::Fail(_) => {}
                }
                direct.into_iter().for_each(|e| expr(e, out));
                for c in s.blocks() {
                    block(c, out);
                }
            }
        }
        let mut out = BTreeMap::new();
        block(body, &mut out);
        out
    }

    /// Every index variable a loop or map inside `body` binds.
    fn bound_inside(body: &Block) -> VarSet {
        let mut out = VarSet::new();
        walk_stmts(body, &mut |s| match &s.kind {
            StmtKind::Loop(l) => {
                out.insert(l.var);
            }
            StmtKind::Map(m) => out.extend(m.dims.iter().map(|d| d.var)),
            _ => {}
        });
        out
    }

    fn reads_any(e: &Expr, set: &VarSet) -> bool {
        e.vars().iter().any(|v| set.contains(v))
    }

    /// Whether the body holds a statement that forbids parallel iterations, or a loop or
    /// map whose bounds depend on what the body writes.
    fn forbidden(body: &Block, written: &VarSet) -> bool {
        let mut bad = false;
        walk_stmts(body, &mut |s| match &s.kind {
            StmtKind::Push { .. }
            | StmtKind::Pop { .. }
            | StmtKind::Fail(_)
            | StmtKind::Alloc(_)
            | StmtKind::Free(_)
            | StmtKind::Call(_) => bad = true,
            // A data-dependent loop runs inside its iteration (Newton per grid point): the
            // rules above decide on what it reads and writes like any statement's. Its
            // reversal is `map.rs`'s business (recomputed per iteration, or sequential).
            StmtKind::While(_) => {}
            StmtKind::Loop(l) => bad |= [&l.start, &l.stop, &l.step].iter().any(|e| reads_any(e, written)),
            StmtKind::Map(m) => {
                bad |= m.dims.iter().any(|d| reads_any(&d.start, written) || reads_any(&d.stop, written))
            }
            _ => {}
        });
        bad
    }

    /// Each iteration touches only its own slice: one dimension is indexed by the same
    /// injective affine function of `v` (with otherwise invariant terms) at every access.
    fn owned_slice(accs: &[Access<'_>], v: VarId, variant: &VarSet) -> bool {
        let Some(rank) = accs.first().map(|a| a.index().len()) else { return false };
        (0..rank).any(|d| {
            let mut forms = accs.iter().map(|a| a.index().get(d).and_then(Affine::linear));
            let Some(Some(first)) = forms.next() else { return false };
            let invariant = first.vars().iter().all(|x| *x == v || !variant.contains(x));
            first.coeff(v) != 0 && invariant && forms.all(|g| g.is_some_and(|g| g.same_value(&first)))
        })
    }

    /// Only `+=` into it, never read: other iterations may add to the same element.
    fn only_added(accs: &[Access<'_>]) -> bool {
        accs.iter().all(|a| matches!(a, Access::Accumulate(AccOp::Add, _)))
    }

    /// One reduction operator (`+=` anywhere; `max=`/`min=` into a local only) and no read.
    fn reduction(f: &Function, var: VarId, accs: &[Access<'_>]) -> bool {
        let mut ops = accs.iter().map(|a| match a {
            Access::Accumulate(op, _) => Some(*op),
            _ => None,
        });
        let Some(Some(op)) = ops.next() else { return false };
        let allowed = match op {
            AccOp::Add => true,
            AccOp::Max | AccOp::Min => !f.is_param(var),
            AccOp::Mul => false,
        };
        allowed && ops.all(|o| o == Some(op))
    }

    /// The plan for turning `l` into a map, or `None` when its iterations may interact.
    /// `live_out`: scalars live right after the loop.
    pub(in super::super) fn plan(f: &Function, l: &Loop, live_out: &VarSet) -> Option<Plan> {
        let step = eval_int(&l.step, &|_| None).filter(|s| *s != 0)?;
        if step.checked_abs()? != 1 && Affine::linear(&l.start).is_none() {
            return None;
        }
        let written: VarSet = written_vars(&l.body).into_iter().collect();
        if [&l.start, &l.stop, &l.step].iter().any(|e| reads_any(e, &written)) || forbidden(&l.body, &written) {
            return None;
        }
        let mut variant = written.clone();
        variant.extend(bound_inside(&l.body));
        let accs = accesses(&l.body);
        let upward = liveness::block(f, &l.body, &VarSet::new());
        let mut shared = VarSet::new();
        for w in &written {
            let a = accs.get(w).map(Vec::as_slice).unwrap_or(&[]);
            let ok = match &f.var(*w).ty {
                Type::Array { .. } => {
                    if owned_slice(a, l.var, &variant) {
                        true
                    } else {
                        only_added(a) && shared.insert(*w)
                    }
                }
                Type::Scalar(_) => {
                    if reduction(f, *w, a) {
                        shared.insert(*w)
                    } else {
                        !upward.contains(w) && !live_out.contains(w)
                    }
                }
            };
            if !ok {
                return None;
            }
        }
        Some(Plan { step, shared })
    }
}

/// Building the map.
mod rewrite {
    use super::independence::Plan;
    use super::*;

    fn mark_shared(b: &mut Block, vars: &VarSet) {
        for s in b {
            if let StmtKind::Accumulate { target, shared, .. } = &mut s.kind {
                if vars.contains(&target.var) {
                    *shared = true;
                }
            }
            for c in s.blocks_mut() {
                mark_shared(c, vars);
            }
        }
    }

    fn substitute(b: &mut Block, v: VarId, with: &Expr) {
        let sub = |e: &mut Expr| *e = e.substitute(v, with);
        for s in b {
            match &mut s.kind {
                StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
                    target.index.iter_mut().for_each(sub);
                    sub(value);
                }
                StmtKind::Pop { target, .. } => target.index.iter_mut().for_each(sub),
                StmtKind::Push { value, .. } => sub(value),
                StmtKind::If { cond, .. } => sub(cond),
                StmtKind::Loop(l) => [&mut l.start, &mut l.stop, &mut l.step].into_iter().for_each(sub),
                StmtKind::While(w) => sub(&mut w.cond),
                StmtKind::Map(m) => m.dims.iter_mut().for_each(|d| {
                    sub(&mut d.start);
                    sub(&mut d.stop);
                }),
                StmtKind::Alloc(_)
                | StmtKind::Free(_)
                | StmtKind::Call(_)
                | StmtKind::Section { .. }
                | StmtKind::Fail(_) => {}
            }
            for c in s.blocks_mut() {
                substitute(c, v, with);
            }
        }
    }

    /// `ceil((stop - start) / step)` for `step > 0` (mirrored for `step < 0`), written with
    /// C's truncating division: not positive exactly when the loop runs no iteration.
    fn trip_count(start: &Expr, stop: &Expr, step: i64) -> Expr {
        let (distance, s) =
            if step > 0 { (stop.clone().sub(start.clone()), step) } else { (start.clone().sub(stop.clone()), -step) };
        let numerator = distance.add(Expr::int(s - 1));
        match numerator.as_int() {
            Some(n) => Expr::int(n / s),
            None => Expr::binary(BinOp::Div, numerator, Expr::int(s)),
        }
    }

    fn note(f: &Function, plan: &Plan, old: Option<Note>) -> Note {
        let shared = plan.shared.iter().map(|v| f.var(*v).name.clone()).collect();
        Note::after(old, Note::Parallel { shared })
    }

    /// The map replacing loop statement `s` according to `plan`.
    pub(in super::super) fn to_map(f: &mut Function, s: &Stmt, plan: Plan) -> Stmt {
        let StmtKind::Loop(l) = &s.kind else { return s.clone() };
        let mut body = l.body.clone();
        mark_shared(&mut body, &plan.shared);
        let dim = match plan.step {
            1 => MapDim { var: l.var, start: l.start.clone(), stop: l.stop.clone() },
            -1 => {
                MapDim { var: l.var, start: l.stop.clone().add(Expr::int(1)), stop: l.start.clone().add(Expr::int(1)) }
            }
            step => {
                let var = f.var(l.var).clone();
                let name = f.fresh_name(&format!("{}_it", var.name));
                let k = f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Index, var.span);
                let kv = Expr::var(k, Scalar::I64);
                let value = if step > 0 {
                    l.start.clone().add(kv.mul(Expr::int(step)))
                } else {
                    l.start.clone().sub(kv.mul(Expr::int(-step)))
                };
                substitute(&mut body, l.var, &value);
                MapDim { var: k, start: Expr::int(0), stop: trip_count(&l.start, &l.stop, step) }
            }
        };
        let note = note(f, &plan, s.note.clone());
        Stmt {
            kind: StmtKind::Map(Map { id: adjc_ir::MapId::NEW, dims: vec![dim], body }),
            span: s.span,
            note: Some(note),
        }
    }
}
