//! `fuse_sweeps`: which forward maps are fused into reverse maps, and proof that the fused
//! adjoint computes what the unfused one computes (reference interpreter, map iterations in
//! both orders, with its race detection). The shifted-read sweep shows that a fusion the
//! rules refuse is caught (a race on `y`, stale values): the test fails on a wrong fusion.

mod common;

use adjc_autodiff::fuse::fuse_sweeps;
use adjc_autodiff::{reverse, AdOptions};
use adjc_ir::{walk_stmts, Block, Function, Intent, Note, Scalar, Span, Stmt, StmtKind};
use common::builder::*;
use common::check::{assert_rewrite_keeps_results, random_inputs};
use common::interp::{run, Opts};
use common::kernels as k;

fn text(f: &Function) -> String {
    adjc_ir::print::print_function(f)
}

fn section(title: &str, body: Block) -> Stmt {
    Stmt::new(StmtKind::Section { title: title.into(), body }, Span::NONE)
}

/// Top-level maps of the forward sweep section of `f`.
fn forward_maps(f: &Function) -> usize {
    let mut n = 0;
    for s in &f.body {
        if let StmtKind::Section { title, body } = &s.kind {
            if title == "forward sweep" {
                n += body.iter().filter(|s| matches!(s.kind, StmtKind::Map(_))).count();
            }
        }
    }
    n
}

fn fused_count(f: &Function) -> usize {
    let mut n = 0;
    walk_stmts(&f.body, &mut |s| n += s.note.as_ref().is_some_and(|t| t.contains(&Note::Fused)) as usize);
    n
}

fn fuse(f: &Function) -> Function {
    let g = fuse_sweeps(f);
    adjc_ir::validate::validate(&g).unwrap_or_else(|e| panic!("invalid after fusion: {e}\n{}", text(&g)));
    g
}

fn same_results(original: &Function, rewritten: &Function, fixed: &[(&str, i64)]) {
    assert_rewrite_keeps_results(original, rewritten, fixed, "fused", (0.5, 1.5));
}

fn vec1(b: &B, n: adjc_ir::VarId) -> adjc_ir::Type {
    array(Scalar::F64, vec![b.v(n)])
}

/// A hand-built adjoint: forward `y[i] = 2 x[i]`, then a reverse map over the same `i`
/// reading `y` at `read(i)`.
fn sweep(read: impl Fn(&B, adjc_ir::VarId, adjc_ir::VarId) -> E, r_start: i64) -> Function {
    let mut b = B::new("sweep");
    let n = b.size("N");
    let x = b.param("x", vec1(&b, n), Intent::In);
    let y = b.param("y", vec1(&b, n), Intent::InOut);
    let z = b.param("z", vec1(&b, n), Intent::InOut);
    let (i, j) = (b.index("i"), b.index("j"));
    let fwd = vec![map(vec![(i, int(0), b.v(n))], vec![assign(at(y, vec![b.v(i)]), 2.0 * b.ld(x, vec![b.v(i)]))])];
    let rev = vec![map(vec![(j, int(r_start), b.v(n))], vec![assign(at(z, vec![b.v(j)]), read(&b, y, j) * 3.0)])];
    b.finish(vec![section("forward sweep", fwd), section("reverse sweep", rev)])
}

#[test]
fn own_element_reads_fuse() {
    let f = sweep(|b, y, j| b.ld(y, vec![b.v(j)]), 0);
    let g = fuse(&f);
    assert_eq!((forward_maps(&g), fused_count(&g)), (0, 1), "{}", text(&g));
    same_results(&f, &g, &[("N", 7)]);
}

#[test]
fn shifted_reads_of_a_forward_output_do_not_fuse() {
    // z[j] = 3 y[N - 1 - j]: iteration j reads the y that iteration N - 1 - j writes.
    let f = sweep(|b, y, j| b.ld(y, vec![b.v(j) * -1 + 6]), 0);
    let g = fuse(&f);
    assert_eq!((forward_maps(&g), fused_count(&g)), (1, 0), "{}", text(&g));
    same_results(&f, &g, &[("N", 7)]);
    // The fusion the rule refuses is wrong: run it and see a different z.
    let mut naive = f.clone();
    let StmtKind::Section { body: fwd, .. } = &mut naive.body[0].kind else { unreachable!() };
    let fm = fwd.remove(0);
    let StmtKind::Section { body: rev, .. } = &mut naive.body[1].kind else { unreachable!() };
    let (StmtKind::Map(fm), StmtKind::Map(rm)) = (fm.kind, &mut rev[0].kind) else { unreachable!() };
    let mut body = fm.body;
    for s in body.iter_mut() {
        if let StmtKind::Assign { target, value } = &mut s.kind {
            target.index = vec![adjc_ir::Expr::var(rm.dims[0].var, Scalar::I64)];
            *value = value.substitute(fm.dims[0].var, &adjc_ir::Expr::var(rm.dims[0].var, Scalar::I64));
        }
    }
    body.append(&mut rm.body);
    rm.body = body;
    let args = random_inputs(&f, &[("N", 7)], 1, 0.5, 1.5);
    let (mut want, mut got) = (args.clone(), args);
    run(&f, &mut want, Opts { reverse_maps: false, ..Opts::default() }).unwrap();
    // The interpreter reports the race (an iteration reads the y another one writes); were
    // it to run on, z would hold stale values.
    let wrong = match run(&naive, &mut got, Opts { reverse_maps: false, ..Opts::default() }) {
        Err(e) => e.contains("race"),
        Ok(()) => want["z"].floats() != got["z"].floats(),
    };
    assert!(wrong, "the naive fusion should be caught:\n{}", text(&naive));
}

#[test]
fn different_bounds_do_not_fuse() {
    let f = sweep(|b, y, j| b.ld(y, vec![b.v(j)]), 1);
    let g = fuse(&f);
    assert_eq!(fused_count(&g), 0, "{}", text(&g));
}

#[test]
fn a_statement_in_between_that_reads_the_output_blocks_fusion() {
    let mut b = B::new("between");
    let n = b.size("N");
    let x = b.param("x", vec1(&b, n), Intent::In);
    let y = b.param("y", vec1(&b, n), Intent::InOut);
    let z = b.param("z", vec1(&b, n), Intent::InOut);
    let s = b.param("s", F64, Intent::InOut);
    let (i, j) = (b.index("i"), b.index("j"));
    let fwd = vec![
        map(vec![(i, int(0), b.v(n))], vec![assign(at(y, vec![b.v(i)]), 2.0 * b.ld(x, vec![b.v(i)]))]),
        assign(sc(s), b.ld(y, vec![int(0)])),
    ];
    let rev = vec![map(vec![(j, int(0), b.v(n))], vec![assign(at(z, vec![b.v(j)]), b.ld(y, vec![b.v(j)]) * b.v(s))])];
    let f = b.finish(vec![section("forward sweep", fwd), section("reverse sweep", rev)]);
    let g = fuse(&f);
    assert_eq!(fused_count(&g), 0, "{}", text(&g));
}

/// Real adjoints: whatever fuses computes the same outputs and gradients.
#[test]
fn fused_adjoints_compute_what_the_unfused_ones_do() {
    let n = [("N", 6)];
    let cases: Vec<(Function, Vec<(&str, i64)>, bool)> = vec![
        (k::elementwise(), n.to_vec(), true),
        (k::private_scalar(), n.to_vec(), false),
        (k::map_if(), n.to_vec(), false),
        (k::square(), n.to_vec(), false),
        (k::stencil(true), n.to_vec(), false),
        (k::total(), vec![("N", 4), ("M", 3)], false),
        (k::rowmax(), vec![("N", 4), ("M", 3)], false),
        (k::temporary(), n.to_vec(), false),
        (k::softmax(), vec![("N", 3), ("M", 4)], false),
    ];
    let mut fused_any = 0;
    for (primal, fixed, must_fuse) in cases {
        let ad = reverse(&primal, &AdOptions::default()).unwrap_or_else(|d| panic!("{}: {d}", primal.name));
        let split = adjc_autodiff::split::split_shared_maps(&ad.function);
        let g = fuse(&split);
        let count = fused_count(&g);
        assert!(!must_fuse || count > 0, "{} should fuse:\n{}", primal.name, text(&g));
        fused_any += count;
        same_results(&split, &g, &fixed);
    }
    assert!(fused_any > 0);
}
