//! `name_common_subexpressions`: repeated calls named once, forward values reused, and
//! proof (reference interpreter) that the rewritten adjoints compute the same values.

mod common;

use adjc_autodiff::cse::name_common_subexpressions;
use adjc_autodiff::{reverse, AdOptions};
use adjc_ir::{Function, Intent, Scalar};
use common::builder::*;
use common::check::assert_rewrite_keeps_results;
use common::kernels as k;

fn text(f: &Function) -> String {
    adjc_ir::print::print_function(f)
}

fn cse(f: &Function) -> Function {
    let g = name_common_subexpressions(f);
    adjc_ir::validate::validate(&g).unwrap_or_else(|e| panic!("invalid after cse: {e}\n{}", text(&g)));
    g
}

fn same_results(original: &Function, rewritten: &Function, fixed: &[(&str, i64)]) {
    assert_rewrite_keeps_results(original, rewritten, fixed, "cse", (0.5, 1.5));
}

fn vec1(b: &B, n: adjc_ir::VarId) -> adjc_ir::Type {
    array(Scalar::F64, vec![b.v(n)])
}

#[test]
fn repeated_calls_are_named_once_and_forward_values_reused() {
    let mut b = B::new("k");
    let n = b.size("N");
    let x = b.param("x", vec1(&b, n), Intent::In);
    let y = b.param("y", vec1(&b, n), Intent::InOut);
    let z = b.param("z", vec1(&b, n), Intent::InOut);
    let i = b.index("i");
    let ex = || exp(0.0 - b.ld(x, vec![b.v(i)]));
    let th = || tanh(b.ld(x, vec![b.v(i)]));
    let body = vec![map(
        vec![(i, int(0), b.v(n))],
        vec![
            // exp(-x) three times in one value: one temporary.
            assign(at(z, vec![b.v(i)]), ex() * ex() / (1.0 + ex())),
            // y holds tanh(x): the next statement reads y[i]...
            assign(at(y, vec![b.v(i)]), th()),
            assign(at(z, vec![b.v(i)]), b.ld(z, vec![b.v(i)]) + (1.0 - th() * th())),
            // ...until y is written: then tanh(x) is computed again.
            assign(at(y, vec![b.v(i)]), b.ld(y, vec![b.v(i)]) * 2.0),
            assign(at(z, vec![b.v(i)]), b.ld(z, vec![b.v(i)]) + th()),
        ],
    )];
    let f = b.finish(body);
    let g = cse(&f);
    let t = text(&g);
    assert_eq!(t.matches("exp(").count(), 1, "{t}");
    assert!(t.contains("exp_x = exp("), "{t}");
    assert!(t.contains("1.0 - y[i] * y[i]"), "{t}");
    assert!(t.contains("z[i] + tanh(x[i])"), "the stale y must not be reused:\n{t}");
    same_results(&f, &g, &[("N", 5)]);
    assert_eq!(text(&cse(&f)), t, "names must be deterministic");
}

#[test]
fn calls_in_conditional_branches_are_not_hoisted() {
    let mut b = B::new("k");
    let n = b.size("N");
    let x = b.param("x", vec1(&b, n), Intent::In);
    let z = b.param("z", vec1(&b, n), Intent::InOut);
    let i = b.index("i");
    let l = || log(b.ld(x, vec![b.v(i)]));
    let c = b.ld(x, vec![b.v(i)]).cmp(adjc_ir::BinOp::Gt, f64c(1.0));
    let body =
        vec![map(vec![(i, int(0), b.v(n))], vec![assign(at(z, vec![b.v(i)]), E::select(c, l() * l(), f64c(0.0)))])];
    let f = b.finish(body);
    let g = cse(&f);
    assert_eq!(text(&g), text(&f));
}

/// Real adjoints: the rewritten functions compute the same outputs and gradients.
#[test]
fn rewritten_adjoints_compute_what_the_originals_do() {
    let n = [("N", 6)];
    let cases: Vec<(Function, Vec<(&str, i64)>)> = vec![
        (k::elementwise(), n.to_vec()),
        (k::private_scalar(), n.to_vec()),
        (k::map_if(), n.to_vec()),
        (k::stencil(true), n.to_vec()),
        (k::temporary(), n.to_vec()),
        (k::softmax(), vec![("N", 3), ("M", 4)]),
        (k::recurrence(), n.to_vec()),
    ];
    let mut named = 0;
    for (primal, fixed) in cases {
        let ad = reverse(&primal, &AdOptions::default()).unwrap_or_else(|d| panic!("{}: {d}", primal.name));
        let g = cse(&ad.function);
        named += g.vars.len() - ad.function.vars.len();
        same_results(&ad.function, &g, &fixed);
    }
    assert!(named > 0);
}
