//! Sums into one array element, accumulated in a local scalar.
//!
//! A loop whose whole body adds into one array element that does not move with the loop,
//!
//! ```text
//! for l in range(0, C_out):  input_b[k, m, n, p] += weights[m - i, n - j, p, l] * output_b[k, i, j, l]
//! ```
//!
//! (conv2d's adjoint: every input pixel gets a dot product over the output channels), is one
//! add chain through memory: the compiler cannot keep `input_b[k, m, n, p]` in a register
//! (it may alias the arrays the value reads) and may not reassociate the sum, so each
//! iteration waits for the previous add (4 cycles). Written as
//!
//! ```text
//! input_b_sum = 0
//! for l in range(0, C_out):  input_b_sum += weights[...] * output_b[...]
//! input_b[k, m, n, p] += input_b_sum
//! ```
//!
//! the loop is a sum into a scalar local, which the emitter vectorises as a
//! `simd reduction(+:input_b_sum)` (`omp::reduction_loop_simd`): conv2d_bias's reverse
//! sweep took 0.62× the time (measured, benchmarks/README.md). The element is read and
//! written once.
//!
//! ## When the rewrite is exact (up to the order of the sum)
//!
//! * The body is exactly one `+=` into an element of a float array, with step ±1.
//! * No index of the element mentions the loop variable (the element is the same in every
//!   iteration); the value and the bounds do not mention the array (no iteration reads what
//!   another wrote). The loop writes nothing else, so the index is the same expression
//!   before, during and after the loop.
//! * The element is only touched when the loop runs: its index may be out of bounds when
//!   the trip count is zero (`for k in range(i + 1, n): y[i + 1] += ...` at `i = n - 1`), so
//!   the write-back is guarded by the loop's condition (`if (start < stop)`) unless the
//!   bounds are constants with at least one trip or the statement before the loop assigns
//!   the same element (`mean[j] = 0`, the zero-fill of a sum).
//! * A `shared` accumulation (other iterations of an enclosing map add into the same
//!   element) keeps its flag on the write-back: one atomic add per loop instead of one per
//!   iteration.
//!
//! The sum's order changes (a vector reduction adds partial sums), as with every
//! `simd reduction` adjc emits; NumPy's own sums are pairwise, never left to right.

use adjc_ir::{AccOp, BinOp, Block, Expr, Function, Loop, Note, Place, Stmt, StmtKind, Type, VarRole};

/// `f` with every qualifying loop's element sum accumulated in a local (module docs).
pub fn sum_in_locals(f: &Function) -> Function {
    let mut out = f.clone();
    let mut body = std::mem::take(&mut out.body);
    rewrite_block(&mut out, &mut body);
    out.body = body;
    out
}

fn rewrite_block(f: &mut Function, block: &mut Block) {
    let mut i = 0;
    while i < block.len() {
        for b in block[i].blocks_mut() {
            rewrite_block(f, b);
        }
        // `X[idx] = 0` right before the loop: the element exists even when the loop is empty.
        let written_before = i > 0 && assigns_target_of(&block[i - 1], &block[i]);
        if let Some(stmts) = rewrite_loop(f, &block[i], written_before) {
            let n = stmts.len();
            block.splice(i..=i, stmts);
            i += n;
        } else {
            i += 1;
        }
    }
}

/// The three statements replacing `s` when it is a qualifying loop.
fn rewrite_loop(f: &mut Function, s: &Stmt, written_before: bool) -> Option<Vec<Stmt>> {
    let StmtKind::Loop(l) = &s.kind else { return None };
    let [acc] = l.body.as_slice() else { return None };
    let StmtKind::Accumulate { target, op: AccOp::Add, value, shared } = &acc.kind else { return None };
    let elem = f.var(target.var).ty.elem();
    let step = l.step.as_int()?;
    if target.is_scalar() || !elem.is_float() || !(step == 1 || step == -1) {
        return None;
    }
    if target.index.iter().any(|e| e.mentions(l.var))
        || value.mentions(target.var)
        || l.start.mentions(target.var)
        || l.stop.mentions(target.var)
    {
        return None;
    }
    let name = f.fresh_name(&format!("{}_sum", f.var(target.var).name));
    let local = f.add_var(name, Type::Scalar(elem), VarRole::Temp, f.var(target.var).span);
    let init = Stmt::assign(Place::scalar(local), Expr::float(0.0, elem), s.span)
        .with_note(Note::LocalSum { target: f.var(target.var).name.clone() });
    let mut lp = l.clone();
    lp.body = vec![Stmt::new(
        StmtKind::Accumulate { target: Place::scalar(local), op: AccOp::Add, value: value.clone(), shared: false },
        acc.span,
    )];
    let back = Stmt::new(
        StmtKind::Accumulate { target: target.clone(), op: AccOp::Add, value: Expr::var(local, elem), shared: *shared },
        acc.span,
    );
    let back = if written_before || runs_for_sure(l, step) {
        back
    } else {
        let cond = match step {
            1 => Expr::binary(BinOp::Lt, l.start.clone(), l.stop.clone()),
            _ => Expr::binary(BinOp::Gt, l.start.clone(), l.stop.clone()),
        };
        Stmt::new(StmtKind::If { cond, then_body: vec![back], else_body: Vec::new() }, acc.span)
    };
    Some(vec![init, Stmt { kind: StmtKind::Loop(lp), ..s.clone() }, back])
}

/// Whether `prev` assigns the element that the loop `s` sums into (same array, same index):
/// then the element's index is valid whatever the loop's trip count.
fn assigns_target_of(prev: &Stmt, s: &Stmt) -> bool {
    let StmtKind::Assign { target: t, .. } = &prev.kind else { return false };
    let StmtKind::Loop(l) = &s.kind else { return false };
    let [acc] = l.body.as_slice() else { return false };
    let StmtKind::Accumulate { target, .. } = &acc.kind else { return false };
    t.var == target.var
        && t.index.len() == target.index.len()
        && t.index.iter().zip(&target.index).all(|(a, b)| adjc_ir::proc::eq::same(a, b))
}

/// Whether the loop has at least one trip whatever the sizes (constant bounds).
fn runs_for_sure(l: &Loop, step: i64) -> bool {
    match (l.start.as_int(), l.stop.as_int()) {
        (Some(a), Some(b)) => (step == 1 && a < b) || (step == -1 && a > b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjc_ir::{Dim, LoopId, Scalar, Span};

    /// `for l in range(lo, hi): x[i] += y[l]` inside `for i in range(n)`.
    fn kernel(lo: Expr, hi: Expr, index_mentions_l: bool) -> (Function, adjc_ir::VarId) {
        let mut f = Function::empty("k", Span::NONE);
        let n = f.add_var("n", Type::Scalar(Scalar::I64), VarRole::Param, Span::NONE);
        let ty = Type::Array {
            elem: Scalar::F64,
            dims: vec![Dim::zero_based(Expr::var(n, Scalar::I64))],
            layout: adjc_ir::Layout::RowMajor,
        };
        let x = f.add_var("x", ty.clone(), VarRole::Param, Span::NONE);
        let y = f.add_var("y", ty, VarRole::Param, Span::NONE);
        for (v, intent) in [(n, adjc_ir::Intent::In), (x, adjc_ir::Intent::InOut), (y, adjc_ir::Intent::In)] {
            f.params.push(adjc_ir::Param { var: v, intent, doc: String::new() });
        }
        let i = f.add_var("i", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
        let l = f.add_var("l", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
        let idx = if index_mentions_l { Expr::var(l, Scalar::I64) } else { Expr::var(i, Scalar::I64) };
        let acc = Stmt::accumulate(
            Place::element(x, vec![idx]),
            Expr::load(y, vec![Expr::var(l, Scalar::I64)], Scalar::F64),
            Span::NONE,
        );
        let inner = Loop { id: LoopId::NEW, var: l, start: lo, stop: hi, step: Expr::int(1), body: vec![acc] };
        let outer = Loop {
            id: LoopId::NEW,
            var: i,
            start: Expr::int(0),
            stop: Expr::var(n, Scalar::I64),
            step: Expr::int(1),
            body: vec![Stmt::new(StmtKind::Loop(inner), Span::NONE)],
        };
        f.body = vec![Stmt::new(StmtKind::Loop(outer), Span::NONE)];
        (f, x)
    }

    fn inner_body(f: &Function) -> &Block {
        match &f.body[0].kind {
            StmtKind::Loop(l) => &l.body,
            _ => panic!("not a loop"),
        }
    }

    #[test]
    fn sum_into_an_element_goes_through_a_local_guarded_by_the_trip_count() {
        let (f, x) = kernel(Expr::int(0), Expr::var(adjc_ir::VarId(0), Scalar::I64), false);
        let mut g = sum_in_locals(&f);
        adjc_ir::proc::ids::settle(&mut g.body);
        let b = inner_body(&g);
        assert_eq!(b.len(), 3, "init, loop, write-back");
        assert!(matches!(&b[0].kind, StmtKind::Assign { target, .. } if target.is_scalar()));
        let StmtKind::Loop(l) = &b[1].kind else { panic!("loop expected") };
        assert!(matches!(&l.body[0].kind, StmtKind::Accumulate { target, .. } if target.is_scalar()));
        // The loop may run zero times (`range(0, n)`): the element is only touched when it runs.
        let StmtKind::If { then_body, .. } = &b[2].kind else { panic!("guarded write-back expected") };
        assert!(matches!(&then_body[0].kind, StmtKind::Accumulate { target, .. } if target.var == x));
        adjc_ir::validate::validate(&g).expect("valid IR");
    }

    #[test]
    fn constant_trips_need_no_guard() {
        let (f, _) = kernel(Expr::int(0), Expr::int(3), false);
        let g = sum_in_locals(&f);
        assert!(matches!(&inner_body(&g)[2].kind, StmtKind::Accumulate { .. }));
    }

    #[test]
    fn a_zero_filled_element_needs_no_guard() {
        let (mut f, x) = kernel(Expr::int(0), Expr::var(adjc_ir::VarId(0), Scalar::I64), false);
        let StmtKind::Loop(outer) = &mut f.body[0].kind else { panic!("loop expected") };
        let i = outer.var;
        let fill =
            Stmt::assign(Place::element(x, vec![Expr::var(i, Scalar::I64)]), Expr::float(0.0, Scalar::F64), Span::NONE);
        outer.body.insert(0, fill);
        let g = sum_in_locals(&f);
        let b = inner_body(&g);
        assert_eq!(b.len(), 4, "fill, init, loop, write-back");
        assert!(matches!(&b[3].kind, StmtKind::Accumulate { target, .. } if target.var == x));
    }

    #[test]
    fn an_element_moving_with_the_loop_is_left_alone() {
        let (f, _) = kernel(Expr::int(0), Expr::int(3), true);
        assert_eq!(sum_in_locals(&f), f);
    }
}
