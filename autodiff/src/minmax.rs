//! Sequential `max=`/`min=` reductions: a loop nest whose only statement is
//! `P max= x` with `P` the same place in every iteration (`np.max(A, axis=1)` lowers to
//! one per row). Reversing it statement by statement would need `P` saved in every
//! iteration; instead the reverse sweep uses the value before the nest (`init`) and after
//! it (`fin`):
//!
//! ```text
//! if init != fin:                       # otherwise the old value won (first argument)
//!     reversed nest: if x == fin: k_win = k     # ends on the first iteration that won
//!     r_b += ∂x/∂r (at k = k_win) * P_b
//!     P_b = 0
//! ```
//!
//! This is exact with the first-argument convention of `max`: ties keep the earlier value,
//! so the winner is the first iteration whose value equals the result, unless the initial
//! value already was the result.

use crate::reverse::{reversed_range, Ad, R};
use crate::util::{expr_vars, index_vars, VarSet};
use adjc_ir::*;

pub(crate) struct Nest<'a> {
    pub loops: Vec<&'a Loop>,
    pub target: &'a Place,
    pub op: AccOp,
    pub value: &'a Expr,
    pub span: Span,
}

/// The reduction nest rooted at loop statement `s`, if it is one.
pub(crate) fn minmax_nest(s: &Stmt) -> Option<Nest<'_>> {
    let StmtKind::Loop(l) = &s.kind else { return None };
    let mut loops = vec![l];
    let mut cur = &l.body;
    loop {
        match cur.as_slice() {
            [t] => match &t.kind {
                StmtKind::Loop(inner) => {
                    loops.push(inner);
                    cur = &inner.body;
                }
                StmtKind::Accumulate { target, op: op @ (AccOp::Max | AccOp::Min), value, shared: false } => {
                    let bound: VarSet = loops.iter().map(|l| l.var).collect();
                    let invariant = index_vars(&target.index).iter().all(|v| !bound.contains(v));
                    if !invariant || value.mentions(target.var) {
                        return None;
                    }
                    return Some(Nest { loops, target, op: *op, value, span: t.span });
                }
                _ => return None,
            },
            _ => return None,
        }
    }
}

impl Ad<'_> {
    /// A reduction nest whose target is active.
    pub fn active_nest<'a>(&self, s: &'a Stmt) -> Option<Nest<'a>> {
        minmax_nest(s).filter(|n| self.is_active(n.target.var))
    }

    /// Top level or sequential loops: `init` is pushed before the nest.
    pub fn rev_minmax_loop(&mut self, s: &Stmt) -> R<Option<(Block, Block)>> {
        let Some(nest) = self.active_nest(s) else { return Ok(None) };
        let (push, pop) = self.save_place(nest.target, s.span);
        let ty = self.elem(nest.target.var);
        let fin = self.temp(&format!("{}_fin", self.name(nest.target.var)), ty, false);
        let mut rev = vec![Stmt::assign(Place::scalar(fin), nest.target.to_expr(ty), s.span)
            .with_note(Note::ExtremumValue { op: opname(nest.op).to_string(), by: Reducer::Loop(Line(0)) })];
        rev.push(pop);
        rev.push(self.minmax_adjoint(&nest, fin, false)?);
        Ok(Some((vec![push, s.clone()], rev)))
    }

    /// `if P != fin { find the winner; give it P_b; P_b = 0 }`, with `P` holding the value
    /// before the nest.
    pub fn minmax_adjoint(&mut self, nest: &Nest, fin: VarId, private: bool) -> R<Stmt> {
        let span = nest.span;
        let ty = self.elem(nest.target.var);
        let pb = Place::element(self.adj_of(nest.target.var), nest.target.index.clone());
        let partials = self.partials(nest.value);
        let cond = Expr::binary(BinOp::Ne, nest.target.to_expr(ty), Expr::var(fin, ty));
        if partials.is_empty() {
            // The values have no derivative: the adjoint just stops unless the old value won.
            let zero = Stmt::assign(pb, Expr::float(0.0, ty), span);
            return Ok(Stmt::new(StmtKind::If { cond, then_body: vec![zero], else_body: Vec::new() }, span));
        }
        let bound: Vec<VarId> = nest.loops.iter().map(|l| l.var).collect();
        let wins: Vec<VarId> =
            bound.iter().map(|k| self.temp(&format!("{}_win", self.name(*k)), Scalar::I64, private)).collect();
        // Reversed search: the last match seen is the first iteration in forward order.
        let record: Block = bound
            .iter()
            .zip(&wins)
            .map(|(k, w)| Stmt::assign(Place::scalar(*w), Expr::var(*k, Scalar::I64), span))
            .collect();
        let mut search = Stmt::new(
            StmtKind::If {
                cond: Expr::binary(BinOp::Eq, nest.value.clone(), Expr::var(fin, ty)),
                then_body: record,
                else_body: Vec::new(),
            },
            span,
        );
        for l in nest.loops.iter().rev() {
            let (start, stop, step) = reversed_range(l, &self.f, span)?;
            search = Stmt::new(
                StmtKind::Loop(Loop { id: LoopId::NEW, var: l.var, start, stop, step, body: vec![search] }),
                span,
            );
        }
        let opn = opname(nest.op);
        let mut then_body: Block = nest
            .loops
            .iter()
            .zip(&wins)
            .map(|(l, w)| {
                let start =
                    if l.start.vars().iter().any(|v| bound.contains(v)) { Expr::int(0) } else { l.start.clone() };
                Stmt::assign(Place::scalar(*w), start, span)
            })
            .collect();
        then_body.push(search.with_note(Note::FirstWinner { op: opn.to_string(), row_major: false }));
        let pb = Place::element(self.adj_of(nest.target.var), nest.target.index.clone());
        let seed = pb.to_expr(ty);
        let at_win = |e: &Expr| {
            bound.iter().zip(&wins).fold(e.clone(), |e, (k, w)| e.substitute(*k, &Expr::var(*w, Scalar::I64)))
        };
        for mut p in self.partials(nest.value) {
            p.d = at_win(&p.d);
            p.index = p.index.iter().map(at_win).collect();
            then_body.push(self.contribution(&p, &seed, span));
        }
        then_body.push(Stmt::assign(pb, Expr::float(0.0, ty), span));
        Ok(Stmt::new(StmtKind::If { cond, then_body, else_body: Vec::new() }, span)
            .with_note(Note::AdjointToWinner { op: opn.to_string() }))
    }

    /// Primal variables the reduction's reverse code reads.
    pub fn ar_minmax(&self, nest: &Nest) -> VarSet {
        let mut out: VarSet =
            nest.loops.iter().flat_map(|l| [&l.start, &l.stop, &l.step]).flat_map(|e| e.vars()).collect();
        out.extend(expr_vars(nest.value));
        out.extend(index_vars(&nest.target.index));
        out.insert(nest.target.var);
        out
    }
}

pub(crate) fn opname(op: AccOp) -> &'static str {
    if op == AccOp::Max {
        "maximum"
    } else {
        "minimum"
    }
}
