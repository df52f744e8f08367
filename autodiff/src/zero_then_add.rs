//! Scalar stores a reviewer should not have to read: a scalar set to zero and then added to,
//! and a local scalar zeroed after its last use.
//!
//! The reversal zeroes a scalar adjoint where it starts and again after its last use (so that
//! a loop's next iteration starts from zero), and adds into it. At the top of a sweep that
//! reads as
//!
//! ```text
//! loss_b = 0.0;          loss_b = ret_b;
//! loss_b += ret_b;   →   ...
//! ...
//! loss_b = 0.0;          (nothing: nothing reads loss_b afterwards)
//! ```
//!
//! * In any block, `s = 0; s += e` with `s` a scalar and `e` not reading `s` becomes `s = e`:
//!   the same value (`0 + e` is `e` exactly, up to the sign of a zero).
//! * In the function body and its sections (the sweeps; not in a loop, whose next iteration
//!   may read it), a zero store of
//!   a scalar that is not a parameter, with no later statement mentioning it, is dropped:
//!   nobody reads it. Parameters keep theirs (the caller reads an output-only adjoint).

use adjc_ir::proc::access::mentions;
use adjc_ir::*;

/// `f` with its scalar zero-then-add pairs merged and its dead scalar zero stores dropped.
pub fn merge_zero_then_add(f: &Function) -> Function {
    let mut out = f.clone();
    let mut body = std::mem::take(&mut out.body);
    merge_block(&mut body);
    let params: Vec<VarId> = out.params.iter().map(|p| p.var).collect();
    drop_dead_zeroes(&mut body, &params, &[]);
    out.body = body;
    out
}

/// Drops the zero stores of `b` whose scalar nothing mentions after them: not a later
/// statement of `b`, nor one of `after` (the statements that follow the section `b` is the
/// body of). Sections (the sweeps) are straight-line code, so their bodies are followed too.
fn drop_dead_zeroes(b: &mut Block, params: &[VarId], after: &[&Stmt]) {
    let mut k = 0;
    while k < b.len() {
        if let StmtKind::Section { body, .. } = &mut b[k].kind {
            let mut inner = std::mem::take(body);
            // The statements after this section: the rest of `b`, then `after`.
            let later: Vec<&Stmt> = b[k + 1..].iter().chain(after.iter().copied()).collect();
            drop_dead_zeroes(&mut inner, params, &later);
            if let StmtKind::Section { body, .. } = &mut b[k].kind {
                *body = inner;
            }
            k += 1;
            continue;
        }
        let dead = zeroed_scalar(&b[k]).is_some_and(|v| {
            !params.contains(&v) && !b[k + 1..].iter().any(|s| mentions(s, v)) && !after.iter().any(|s| mentions(s, v))
        });
        if dead {
            b.remove(k);
        } else {
            k += 1;
        }
    }
}

/// The scalar `s` of a statement `s = 0`.
fn zeroed_scalar(s: &Stmt) -> Option<VarId> {
    match &s.kind {
        StmtKind::Assign { target, value } if target.index.is_empty() && value.as_float() == Some(0.0) => {
            Some(target.var)
        }
        _ => None,
    }
}

fn merge_block(b: &mut Block) {
    for s in b.iter_mut() {
        for inner in s.blocks_mut() {
            merge_block(inner);
        }
    }
    let mut k = 0;
    while k + 1 < b.len() {
        let merged = match (zeroed_scalar(&b[k]), &b[k + 1].kind) {
            (Some(v), StmtKind::Accumulate { target, op: AccOp::Add, value, shared: false })
                if target.var == v && target.index.is_empty() && !value.mentions(v) =>
            {
                Some(Stmt::assign(Place::scalar(v), value.clone(), b[k].span))
            }
            _ => None,
        };
        match merged {
            Some(s) => {
                b[k] = s;
                b.remove(k + 1);
            }
            None => k += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function() -> (Function, VarId, VarId, VarId) {
        let mut f = Function {
            name: "f".into(),
            params: Vec::new(),
            vars: Vec::new(),
            body: Vec::new(),
            span: Span::NONE,
            notes: Vec::new(),
            assumptions: Vec::new(),
        };
        let s = f.add_var("s", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        let e = f.add_var("e", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        let p = f.add_var("p_b", Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        f.params.push(Param { var: p, intent: Intent::InOut, doc: String::new() });
        (f, s, e, p)
    }

    fn var(v: VarId) -> Expr {
        Expr::var(v, Scalar::F64)
    }

    #[test]
    fn zero_then_add_is_one_assignment_and_dead_zeroes_go() {
        let (mut f, s, e, p) = function();
        let zero = |v| Stmt::assign(Place::scalar(v), Expr::float(0.0, Scalar::F64), Span::NONE);
        f.body = vec![
            zero(s),
            Stmt::accumulate(Place::scalar(s), var(e), Span::NONE),
            Stmt::accumulate(Place::scalar(p), var(s), Span::NONE),
            zero(s),
            zero(p),
        ];
        let g = merge_zero_then_add(&f);
        let expected = vec![
            Stmt::assign(Place::scalar(s), var(e), Span::NONE),
            Stmt::accumulate(Place::scalar(p), var(s), Span::NONE),
            zero(p),
        ];
        assert_eq!(g.body, expected);
    }

    #[test]
    fn dead_zeroes_inside_a_sweep_go_unless_a_later_section_reads_them() {
        let (mut f, s, e, _) = function();
        let zero = |v| Stmt::assign(Place::scalar(v), Expr::float(0.0, Scalar::F64), Span::NONE);
        let read = Stmt::accumulate(Place::scalar(e), var(s), Span::NONE);
        let section = |body: Block| Stmt::new(StmtKind::Section { title: "sweep".into(), body }, Span::NONE);
        f.body = vec![section(vec![read.clone(), zero(s)]), section(vec![read.clone(), zero(s)])];
        let g = merge_zero_then_add(&f);
        // The first sweep's zero is read by the second sweep; the second's by nobody.
        assert_eq!(g.body, vec![section(vec![read.clone(), zero(s)]), section(vec![read])]);
    }

    #[test]
    fn an_addition_that_reads_the_scalar_or_a_zero_read_later_stays() {
        let (mut f, s, e, _) = function();
        let zero = |v| Stmt::assign(Place::scalar(v), Expr::float(0.0, Scalar::F64), Span::NONE);
        let plus = |x: Expr| Stmt::accumulate(Place::scalar(s), x, Span::NONE);
        f.body = vec![zero(s), plus(var(s).mul(var(e))), plus(var(e)), zero(s), plus(var(e))];
        let g = merge_zero_then_add(&f);
        // The first pair reads `s`; the last zero is read by the addition after it (merged).
        let expected =
            vec![zero(s), plus(var(s).mul(var(e))), plus(var(e)), Stmt::assign(Place::scalar(s), var(e), Span::NONE)];
        assert_eq!(g.body, expected);
    }
}
