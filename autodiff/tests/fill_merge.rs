//! `merge_fills`: a zero-fill merged into the map that first adds into each element, dead
//! resets of local arrays removed, and the forms that must stay (an update under a condition,
//! a shifted read of the filled array, a reset of a parameter, a reset read later). Each
//! rewrite is run in the reference interpreter against the original (map iterations in both
//! orders, race and unset-read detection); each refusal is shown to matter: the naive rewrite
//! computes something else.

mod common;

use adjc_autodiff::fill_merge::merge_fills;
use adjc_ir::{walk_stmts, Block, Function, Intent, Scalar, Span, Stmt, StmtKind};
use common::builder::*;
use common::check::{assert_rewrite_keeps_results, random_inputs};
use common::interp::run;

fn text(f: &Function) -> String {
    adjc_ir::print::print_function(f)
}

fn section(title: &str, body: Block) -> Stmt {
    Stmt::new(StmtKind::Section { title: title.into(), body }, Span::NONE)
}

fn count(f: &Function, what: impl Fn(&Stmt) -> bool) -> usize {
    let mut n = 0;
    walk_stmts(&f.body, &mut |s| n += what(s) as usize);
    n
}

fn accumulations(f: &Function) -> usize {
    count(f, |s| matches!(s.kind, StmtKind::Accumulate { .. }))
}

fn zero_stores(f: &Function) -> usize {
    count(f, |s| matches!(&s.kind, StmtKind::Assign { value, .. } if value.as_float() == Some(0.0)))
}

#[derive(Clone, Copy, PartialEq)]
enum Update {
    /// `t[i] += x[i]`
    Own,
    /// `if x[i] > 0: t[i] += x[i]`
    Conditional,
    /// `t[i + 1] += x[i]` over `0..N-1` (not the iteration's own element)
    Shifted,
}

/// `t` local (or the in-out parameter `p` when `param`): `t = 0`, `u[i] = 2` (unrelated),
/// the update, then `y[i] += 3 t[i]; t[i] = 0` (the last use of `t`, with its reset).
fn kernel(update: Update, param: bool) -> Function {
    let mut b = B::new("k");
    let n = b.size("N");
    let vec = |b: &B| array(Scalar::F64, vec![b.v(n)]);
    let x = b.param("x", vec(&b), Intent::In);
    let y = b.param("y", vec(&b), Intent::InOut);
    let u = b.param("u", vec(&b), Intent::InOut);
    let t = if param { b.param("p", vec(&b), Intent::InOut) } else { b.local("t", vec(&b)) };
    let (i, j, k, l) = (b.index("i"), b.index("j"), b.index("k"), b.index("l"));
    let fill = map(vec![(i, int(0), b.v(n))], vec![assign(at(t, vec![b.v(i)]), f64c(0.0))]);
    let other = map(vec![(l, int(0), b.v(n))], vec![assign(at(u, vec![b.v(l)]), f64c(2.0))]);
    let add = |b: &B, e: E| acc(at(t, vec![b.v(j)]), adjc_ir::AccOp::Add, e, false);
    let upd = match update {
        Update::Own => map(vec![(j, int(0), b.v(n))], vec![add(&b, b.ld(x, vec![b.v(j)]))]),
        Update::Conditional => map(
            vec![(j, int(0), b.v(n))],
            vec![if_(
                b.ld(x, vec![b.v(j)]).cmp(adjc_ir::BinOp::Gt, f64c(0.0)),
                vec![add(&b, b.ld(x, vec![b.v(j)]))],
                vec![],
            )],
        ),
        Update::Shifted => map(
            vec![(j, int(0), b.v(n) - 1i64)],
            vec![acc(at(t, vec![b.v(j) + 1i64]), adjc_ir::AccOp::Add, b.ld(x, vec![b.v(j)]), false)],
        ),
    };
    let last = map(
        vec![(k, int(0), b.v(n))],
        vec![
            acc(at(y, vec![b.v(k)]), adjc_ir::AccOp::Add, 3.0 * b.ld(t, vec![b.v(k)]), false),
            assign(at(t, vec![b.v(k)]), f64c(0.0)),
        ],
    );
    let mut body = Vec::new();
    if !param {
        body.push(alloc(t));
    }
    body.push(section("reverse sweep", vec![fill, other, upd, last]));
    if !param {
        body.push(free(t));
    }
    b.finish(body)
}

fn merged(f: &Function) -> Function {
    let g = merge_fills(f);
    adjc_ir::validate::validate(&g).unwrap_or_else(|e| panic!("invalid after merge: {e}\n{}", text(&g)));
    assert_rewrite_keeps_results(f, &g, &[("N", 7)], "fill_merge", (-1.0, 1.0));
    g
}

#[test]
fn a_fill_and_the_first_update_are_one_assignment_and_the_dead_reset_goes() {
    let f = kernel(Update::Own, false);
    let g = merged(&f);
    // Before: the fill, u = 2, the reset: 3 zero stores (u's 2.0 is not one); t += x and y += 3 t.
    assert_eq!((zero_stores(&f), accumulations(&f)), (2, 2), "{}", text(&f));
    assert_eq!((zero_stores(&g), accumulations(&g)), (0, 1), "{}", text(&g));
}

#[test]
fn a_parameter_keeps_its_reset() {
    let f = kernel(Update::Own, true);
    let g = merged(&f);
    // The fill merges (the map assigns every element it zeroed); the caller sees p's reset.
    assert_eq!((zero_stores(&g), accumulations(&g)), (1, 1), "{}", text(&g));
}

/// Under a condition, or into another element than the iteration's own, the update does
/// not reach every element the fill zeroed: the fill stays. The naive rewrite (drop the
/// fill) leaves elements unset (the interpreter reports them) or stale: the refusal matters.
#[test]
fn a_conditional_or_shifted_update_keeps_its_fill() {
    for update in [Update::Conditional, Update::Shifted] {
        let f = kernel(update, false);
        let g = merged(&f);
        let fills = |f: &Function| {
            let mut n = 0;
            walk_stmts(&f.body, &mut |s| {
                if let StmtKind::Map(m) = &s.kind {
                    n += (m.body.len() == 1 && zero_stores_in(&m.body) == 1) as usize;
                }
            });
            n
        };
        assert_eq!(fills(&g), 1, "{}", text(&g));
        // The naive merge: no fill, the update's += as =.
        let mut wrong = f.clone();
        let StmtKind::Section { body, .. } = &mut wrong.body[1].kind else { panic!() };
        body.remove(0);
        let args = random_inputs(&f, &[("N", 7)], 1, -1.0, 1.0);
        let (mut want, mut got) = (args.clone(), args);
        run(&f, &mut want, Default::default()).unwrap();
        let differs = match run(&wrong, &mut got, Default::default()) {
            Err(_) => true,
            Ok(_) => format!("{want:?}") != format!("{got:?}"),
        };
        assert!(differs, "dropping the fill should be observable");
    }
}

fn zero_stores_in(b: &Block) -> usize {
    let mut n = 0;
    walk_stmts(b, &mut |s| {
        n += matches!(&s.kind, StmtKind::Assign { value, .. } if value.as_float() == Some(0.0)) as usize
    });
    n
}
