//! Loops of exactly one iteration written as their body.
//!
//! A `keepdims=True` reduction gives an axis of extent 1, and its loop nest a loop
//! `for (j = 0; j < 1; j++)` around the statement: nothing a reader should have to step
//! through. A sequential loop whose bounds are integer literals with exactly one iterate
//! (`range(a, a + 1)`, or `range(a, a - 1, -1)`) becomes its body with the index replaced by
//! that literal (`tmp_max_(i, 0)`), and the integer arithmetic around it folded (`0 + 1` is
//! `1`). The body runs once either way, with the same index value, so nothing changes but
//! the text; the index is local to its loop in C (`for (int64_t j = ...)`), so no statement
//! after the loop can read it.
//!
//! A map dimension of one value goes the same way, as long as the map keeps another one (the
//! iterations of a map are independent whatever its dimensions; the OpenMP plan is made
//! afterwards, from what is left); a map of one dimension and one iteration whose body only
//! stores array elements is its body. Loops whose bounds are not literals stay: a trip count
//! that is 1 only for some sizes is still a loop.

use adjc_ir::proc::access::rewrite_block;
use adjc_ir::{Block, Expr, ExprKind, Function, Loop, Stmt, StmtKind, VarId};

/// `f` with every one-iteration loop replaced by its body.
pub fn drop_unit_loops(f: &Function) -> Function {
    let mut out = f.clone();
    out.body = block(std::mem::take(&mut out.body));
    out
}

fn block(b: Block) -> Block {
    let mut out = Vec::with_capacity(b.len());
    for mut s in b {
        for inner in s.blocks_mut() {
            *inner = block(std::mem::take(inner));
        }
        match &s.kind {
            StmtKind::Loop(l) if only_iterate(l).is_some() && s.note.is_none() => {
                let (Some(at), StmtKind::Loop(l)) = (only_iterate(l), s.kind) else { unreachable!() };
                let mut body = l.body;
                substitute(&mut body, l.var, at);
                // The first statement takes the loop's place in the source comments.
                out.extend(body);
            }
            StmtKind::Map(m) if single_iteration_of_stores(m).is_some() && s.note.is_none() => {
                let (Some(at), StmtKind::Map(m)) = (single_iteration_of_stores(m), s.kind) else { unreachable!() };
                let mut body = m.body;
                substitute(&mut body, m.dims[0].var, at);
                out.extend(body);
            }
            StmtKind::Map(m) if m.dims.len() > 1 && m.dims.iter().any(|d| one_value(&d.start, &d.stop).is_some()) => {
                let StmtKind::Map(mut m) = s.kind else { unreachable!() };
                // Keep at least one dimension: a map is a loop nest of one or more loops.
                let mut k = 0;
                while k < m.dims.len() && m.dims.len() > 1 {
                    match one_value(&m.dims[k].start, &m.dims[k].stop) {
                        Some(at) => {
                            let d = m.dims.remove(k);
                            substitute(&mut m.body, d.var, at);
                        }
                        None => k += 1,
                    }
                }
                out.push(Stmt { kind: StmtKind::Map(m), ..s });
            }
            _ => out.push(s),
        }
    }
    out
}

/// The one value of the index of a one-dimensional map of one iteration whose body only
/// stores or adds into array elements (`joined[0] = u[N - 1]`, the wrapped element of
/// `np.roll`, and its adjoint): written
/// as its body. A body with scalars of its own or shared accumulations keeps its map (they
/// mean something per iteration, and the C declares them in the loop).
fn single_iteration_of_stores(m: &adjc_ir::Map) -> Option<i64> {
    let [d] = m.dims.as_slice() else { return None };
    let at = one_value(&d.start, &d.stop)?;
    // `+=` into an element too (`u_b[N - 1] += joined_b[0]`, the wrapped element's adjoint),
    // unless it is shared: a reduction's accumulations mean something per iteration.
    let stores = m.body.iter().all(|t| match &t.kind {
        StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, shared: false, .. } => {
            !target.index.is_empty()
        }
        _ => false,
    });
    stores.then_some(at)
}

/// The one value of a map dimension `start..stop` with literal bounds one apart.
fn one_value(start: &Expr, stop: &Expr) -> Option<i64> {
    let (a, b) = (start.as_int()?, stop.as_int()?);
    (is_int(start) && b.checked_sub(a) == Some(1)).then_some(a)
}

/// The one value of a loop's index, when its bounds are literals giving exactly one.
fn only_iterate(l: &Loop) -> Option<i64> {
    let (a, b, step) = (l.start.as_int()?, l.stop.as_int()?, l.step.as_int()?);
    let one = match step {
        1 => b.checked_sub(a) == Some(1),
        -1 => a.checked_sub(b) == Some(1),
        _ => false,
    };
    (one && is_int(&l.start)).then_some(a)
}

fn is_int(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Const(adjc_ir::Literal::Int(_)))
}

/// Every use of index `var` in `b` replaced by the literal `at`, integer sums folded.
fn substitute(b: &mut Block, var: VarId, at: i64) {
    let with = Expr::int(at);
    let fold = |e: &Expr| {
        e.substitute(var, &with).rewrite(&mut |x| match x.kind {
            ExprKind::Binary(op, a, c) => Expr::binary(op, *a, *c).with_span(x.span),
            kind => Expr { kind, ..x },
        })
    };
    rewrite_block(b, &fold, &|v| v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjc_ir::{AccOp, Map, MapDim, MapId, Place, Scalar, Span, Type, VarRole};

    /// `map i in [0, 1) { u_b[n + i] += j_b[i] }` (shared or not) in a function.
    fn one_iteration_add(shared: bool) -> (Function, VarId, VarId, VarId) {
        let mut f = Function {
            name: "f".into(),
            params: Vec::new(),
            vars: Vec::new(),
            body: Vec::new(),
            span: Span::NONE,
            notes: Vec::new(),
            assumptions: Vec::new(),
        };
        let (u, j, n) = (
            f.add_var("u_b", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE),
            f.add_var("j_b", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE),
            f.add_var("n", Type::Scalar(Scalar::I64), VarRole::Size, Span::NONE),
        );
        let i = f.add_var("i", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
        let idx = |v| Expr::var(v, Scalar::I64);
        let add = Stmt::new(
            StmtKind::Accumulate {
                target: Place { var: u, index: vec![idx(n).add(idx(i))] },
                op: AccOp::Add,
                value: Expr::load(j, vec![idx(i)], Scalar::F64),
                shared,
            },
            Span::NONE,
        );
        let dims = vec![MapDim { var: i, start: Expr::int(0), stop: Expr::int(1) }];
        f.body = vec![Stmt::new(StmtKind::Map(Map { id: MapId(0), dims, body: vec![add] }), Span::NONE)];
        (f, u, j, n)
    }

    #[test]
    fn a_one_iteration_map_of_additions_is_its_body_unless_shared() {
        let (f, u, j, n) = one_iteration_add(false);
        let g = drop_unit_loops(&f);
        let [s] = g.body.as_slice() else { panic!("{:?}", g.body) };
        let StmtKind::Accumulate { target, value, .. } = &s.kind else { panic!("{s:?}") };
        assert_eq!(target.var, u);
        assert!(target.index[0].mentions(n) && value.mentions(j), "{s:?}");
        let (f, ..) = one_iteration_add(true);
        assert!(matches!(drop_unit_loops(&f).body[0].kind, StmtKind::Map(_)), "a shared accumulation keeps its map");
    }
}
