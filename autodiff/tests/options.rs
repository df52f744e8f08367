//! `--wrt` / `--of` handling, signatures, parameter documentation and diagnostics.

mod common;

use adjc_autodiff::{reverse, AdOptions};
use adjc_ir::{Intent, Span, StmtKind, VarRole};
use common::builder::*;
use common::check::check_with;
use common::interp::Value;
use common::kernels as k;

fn opts(wrt: Option<&[&str]>, of: Option<&[&str]>) -> AdOptions {
    let own = |x: Option<&[&str]>| x.map(|v| v.iter().map(|s| s.to_string()).collect());
    AdOptions { wrt: own(wrt), of: own(of), ..AdOptions::default() }
}

fn sig(f: &adjc_ir::Function) -> Vec<String> {
    f.params.iter().map(|p| format!("{}:{}", f.var(p.var).name, p.intent.name())).collect()
}

#[test]
fn tapenade_signature_and_docs() {
    let ad = reverse(&k::axpy(), &AdOptions::default()).unwrap();
    let f = &ad.function;
    assert_eq!(f.name, "axpy_b");
    assert_eq!(sig(f), ["N:in", "alpha:in", "alpha_b:inout", "x:in", "x_b:inout", "y:inout", "y_b:inout"]);
    assert!(f.params.iter().all(|p| !p.doc.is_empty()));
    let doc = |n: &str| f.params.iter().find(|p| f.var(p.var).name == n).unwrap().doc.clone();
    assert_eq!(doc("y_b"), "adjoint of y: on entry the seed ∂L/∂y(final); on exit ∂L/∂y(initial)");
    assert_eq!(doc("x_b"), "adjoint of x: on exit incremented by ∂L/∂x (zero it before the call)");
    // The adjoint's vars start with the primal's, so roles point at primal VarIds.
    let p = k::axpy();
    assert_eq!(&f.vars[..p.vars.len()], &p.vars[..]);
    let yb = f.params[6].var;
    assert_eq!(f.var(yb).role, VarRole::Adjoint(p.params[3].var));
    assert_eq!(ad.wrt.len(), 3);
    assert_eq!(ad.of, vec![p.params[3].var]);
}

#[test]
fn returned_scalar_seed_is_by_value() {
    let ad = reverse(&k::total(), &AdOptions::default()).unwrap();
    assert_eq!(sig(&ad.function), ["N:in", "M:in", "A:in", "A_b:inout", "ret:out", "ret_b:in"]);
    let doc = &ad.function.params[5].doc;
    assert!(doc.contains("seed") && doc.contains("by value"), "{doc}");
}

#[test]
fn unknown_and_integer_names_are_diagnostics() {
    let f = k::jacobi_1d(false);
    let e = reverse(&f, &opts(Some(&["C"]), None)).unwrap_err();
    assert_eq!(e.message, "unknown --wrt variable `C`; the function's float inputs are: A, B");
    assert_eq!(e.span, Span::NONE);
    let e = reverse(&f, &opts(Some(&["TSTEPS"]), None)).unwrap_err();
    assert!(e.message.starts_with("unknown --wrt variable `TSTEPS`"), "{}", e.message);
    assert!(e.help.as_deref().unwrap().contains("i64"));
    let e = reverse(&k::total(), &opts(None, Some(&["A"]))).unwrap_err();
    assert_eq!(e.message, "unknown --of variable `A`; the function's float outputs are: ret");
    let e = reverse(&k::total(), &opts(Some(&["ret"]), None)).unwrap_err();
    assert!(e.help.as_deref().unwrap().contains("output only"));
}

#[test]
fn wrt_and_of_subsets() {
    // Only B's final value is differentiated: A_b is ignored on entry (the checker passes
    // junk there) and still receives dL/dA(initial).
    let out = check_with(
        &k::jacobi_1d(true),
        &opts(Some(&["A"]), Some(&["B"])),
        &[("N", Value::Int(7)), ("TSTEPS", Value::Int(3))],
        0.5,
        1.5,
    );
    let f = &out.adjoint.function;
    let doc = f.params.iter().find(|p| f.var(p.var).name == "A_b").unwrap().doc.clone();
    assert!(doc.contains("ignored on entry"), "{doc}");
    // Subset of inputs: the other input still has an adjoint (it is active) but is not in wrt.
    let out = check_with(&k::axpy(), &opts(Some(&["x"]), None), &[("N", Value::Int(5))], 0.5, 1.5);
    assert_eq!(out.adjoint.wrt.len(), 1);
}

#[test]
fn inactive_inputs_get_no_adjoint() {
    let mut b = B::new("half");
    let nn = b.size("N");
    let x = b.param("x", array(adjc_ir::Scalar::F64, vec![b.v(nn)]), Intent::In);
    let c = b.param("c", array(adjc_ir::Scalar::F64, vec![b.v(nn)]), Intent::In);
    let ret = b.ret("ret", array(adjc_ir::Scalar::F64, vec![b.v(nn)]));
    let i = b.index("i");
    let cond = b.ld(c, vec![b.v(i)]).cmp(adjc_ir::BinOp::Gt, f64c(1.0));
    let body = vec![map(
        vec![(i, int(0), b.v(nn))],
        vec![assign(at(ret, vec![b.v(i)]), E::select(cond, b.ld(x, vec![b.v(i)]), f64c(0.0)))],
    )];
    let f = b.finish(body);
    let ad = reverse(&f, &AdOptions::default()).unwrap();
    assert_eq!(sig(&ad.function), ["N:in", "x:in", "x_b:inout", "c:in", "ret:out", "ret_b:inout"]);
    assert!(ad.function.notes.iter().any(|n| n.contains("`c` does not influence")), "{:?}", ad.function.notes);
    check_with(&f, &AdOptions::default(), &[("N", Value::Int(6))], 0.5, 1.5);
}

#[test]
fn unsupported_statements_point_at_their_line() {
    // A loop whose bound the body changes.
    let mut b = B::new("moving");
    let nn = b.size("N");
    let x = b.param("x", array(adjc_ir::Scalar::F64, vec![b.v(nn)]), Intent::In);
    let ret = b.ret("ret", F64);
    let n2 = b.local("n2", I64);
    let kk = b.index("k");
    let body = vec![
        assign(sc(n2), b.v(nn)),
        assign(sc(ret), f64c(0.0)),
        lp(
            kk,
            int(0),
            b.v(n2),
            1,
            vec![assign(sc(ret), b.v(ret) * b.ld(x, vec![int(0)]) + 1.0), assign(sc(n2), b.v(n2) - 1)],
        ),
    ];
    let f = b.finish(body);
    let e = reverse(&f, &AdOptions::default()).unwrap_err();
    assert_eq!(e.span.line, 3);
    assert!(e.message.contains("bounds of loop `k` depend on `n2`"), "{}", e.message);

    // A non-constant step.
    let mut b = B::new("stepvar");
    let nn = b.size("N");
    let s = b.param("s", I64, Intent::In);
    let x = b.param("x", array(adjc_ir::Scalar::F64, vec![b.v(nn)]), Intent::In);
    let ret = b.ret("ret", F64);
    let kk = b.index("k");
    let mut l = lp(kk, int(0), b.v(nn), 1, vec![assign(sc(ret), b.v(ret) * b.ld(x, vec![b.v(kk)]))]);
    if let StmtKind::Loop(lo) = &mut l.kind {
        lo.step = b.v(s).0;
    }
    let f = b.finish(vec![assign(sc(ret), f64c(1.0)), l]);
    let e = reverse(&f, &AdOptions::default()).unwrap_err();
    assert!(e.message.contains("step of loop `k` is not a constant"), "{}", e.message);
    assert_eq!(e.span.line, 2);
}

#[test]
fn output_is_deterministic() {
    for f in [k::softmax(), k::jacobi_1d(true), k::row_product(), k::map_if(), k::branchy()] {
        let a = reverse(&f, &AdOptions::default()).unwrap();
        let b = reverse(&f, &AdOptions::default()).unwrap();
        assert_eq!(a, b);
    }
}

#[test]
fn max_ties_go_to_the_first_argument() {
    use common::interp::{run, Args, Opts};
    // rowmax: row 0 has its maximum twice, row 1 once; first occurrence wins.
    let f = k::rowmax();
    let ad = reverse(&f, &AdOptions::default()).unwrap();
    let mut args: Args = [
        ("N".to_string(), Value::Int(2)),
        ("M".to_string(), Value::Int(3)),
        ("A".to_string(), Value::Array(vec![1.0, 3.0, 3.0, 0.5, 2.0, 1.0])),
        ("A_b".to_string(), Value::Array(vec![0.0; 6])),
        ("ret_b".to_string(), Value::Array(vec![1.0, 10.0])),
    ]
    .into_iter()
    .collect();
    run(&ad.function, &mut args, Opts::default()).unwrap();
    assert_eq!(args["A_b"], Value::Array(vec![0.0, 1.0, 0.0, 0.0, 10.0, 0.0]));
    assert_eq!(args["ret"], Value::Array(vec![3.0, 2.0]));
    assert_eq!(args["ret_b"], Value::Array(vec![0.0, 0.0]));

    // Full max over a map: the first iteration in row-major order wins.
    let f = k::biggest();
    let ad = reverse(&f, &AdOptions::default()).unwrap();
    let s = (0.9f64).asin();
    let mut args: Args = [
        ("N".to_string(), Value::Int(2)),
        ("M".to_string(), Value::Int(2)),
        ("A".to_string(), Value::Array(vec![0.1, s, 0.2, s])),
        ("A_b".to_string(), Value::Array(vec![0.0; 4])),
        ("ret_b".to_string(), Value::Float(1.0)),
    ]
    .into_iter()
    .collect();
    run(&ad.function, &mut args, Opts { reverse_maps: true, ..Opts::default() }).unwrap();
    let Value::Array(g) = &args["A_b"] else { panic!() };
    assert_eq!(g[0], 0.0);
    assert!((g[1] - 2.0 * s.cos()).abs() < 1e-15);
    assert_eq!(g[3], 0.0, "the tie at [1, 1] gets nothing");

    // max= into an existing value that already is the maximum: the gradient stays there.
    let f = k::max_into();
    let ad = reverse(&f, &AdOptions::default()).unwrap();
    let mut args: Args = [
        ("N".to_string(), Value::Int(1)),
        ("M".to_string(), Value::Int(2)),
        ("A".to_string(), Value::Array(vec![2.0, 1.0])),
        ("A_b".to_string(), Value::Array(vec![0.0; 2])),
        ("B".to_string(), Value::Array(vec![2.0])),
        ("B_b".to_string(), Value::Array(vec![1.0])),
    ]
    .into_iter()
    .collect();
    run(&ad.function, &mut args, Opts::default()).unwrap();
    assert_eq!(args["A_b"], Value::Array(vec![0.0, 0.0]));
    assert_eq!(args["B_b"], Value::Array(vec![1.0]));
}
