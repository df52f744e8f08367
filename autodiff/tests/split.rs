//! `split_shared_maps`: which adjoint maps are split, and proof that the split function
//! computes what the original computes (reference interpreter, map iterations in both
//! orders, with its race detection: an unshared update hit by two iterations fails).

mod common;

use adjc_autodiff::split::split_shared_maps;
use adjc_autodiff::{reverse, AdOptions};
use adjc_ir::{walk_stmts, AccOp, BinOp, Function, Intent, Scalar, StmtKind, VarId};
use common::builder::*;
use common::check::assert_rewrite_keeps_results;
use common::kernels as k;

// ---------------------------------------------------------------------------------------
// Helpers

/// `f` as printed, without the loop and map ids (`L3: `, `M7: `): these tests compare the
/// shape of the split; ids are the validator's and the snapshots' business.
fn text(f: &Function) -> String {
    let t = adjc_ir::print::print_function(f);
    t.lines()
        .map(|l| {
            let body = l.trim_start();
            let id = body.split_once(": ").filter(|(id, rest)| {
                id.len() > 1
                    && (id.starts_with('L') || id.starts_with('M'))
                    && id[1..].bytes().all(|b| b.is_ascii_digit())
                    && (rest.starts_with("loop ") || rest.starts_with("map "))
            });
            match id {
                Some((_, rest)) => format!("{}{rest}\n", &l[..l.len() - body.len()]),
                None => format!("{l}\n"),
            }
        })
        .collect()
}

/// The body of `f` as printed (without the signature and variable list).
fn body_text(f: &Function) -> String {
    let t = text(f);
    let start = t.find("\n{\n").map(|k| k + 3).unwrap_or(0);
    t[start..].trim_end().trim_end_matches('}').to_string()
}

fn split(f: &Function) -> Function {
    let s = split_shared_maps(f);
    adjc_ir::validate::validate(&s).unwrap_or_else(|e| panic!("invalid after split: {e}\n{}", text(&s)));
    s
}

/// How many `Map` statements `f` has, and how many accumulations are `shared`.
fn counts(f: &Function) -> (usize, usize) {
    let (mut maps, mut shared) = (0, 0);
    walk_stmts(&f.body, &mut |s| match &s.kind {
        StmtKind::Map(_) => maps += 1,
        StmtKind::Accumulate { shared: true, .. } => shared += 1,
        _ => {}
    });
    (maps, shared)
}

fn same_results(original: &Function, rewritten: &Function, fixed: &[(&str, i64)]) {
    assert_rewrite_keeps_results(original, rewritten, fixed, "split", (-1.0, 1.0));
}

fn vec1(b: &B, n: VarId) -> adjc_ir::Type {
    array(Scalar::F64, vec![b.v(n)])
}

fn mat(b: &B, n: VarId, m: VarId) -> adjc_ir::Type {
    array(Scalar::F64, vec![b.v(n), b.v(m)])
}

// ---------------------------------------------------------------------------------------
// Hand-built adjoint sweeps

/// The adjoint of `B[1:-1] = c * (A[:-2] + A[1:-1] + A[2:])`, as `reverse` writes it.
fn stencil_1d_sweep() -> Function {
    let mut b = B::new("sweep");
    let n = b.size("N");
    let ab = b.param("A_b", vec1(&b, n), Intent::InOut);
    let bb = b.param("B_b", vec1(&b, n), Intent::InOut);
    let i = b.index("i");
    let seed = || 0.33333 * b.ld(bb, vec![b.v(i)]);
    let body = vec![map(
        vec![(i, int(1), b.v(n) - 1)],
        vec![
            acc(at(ab, vec![b.v(i) - 1]), AccOp::Add, seed(), true),
            acc(at(ab, vec![b.v(i)]), AccOp::Add, seed(), true),
            acc(at(ab, vec![b.v(i) + 1]), AccOp::Add, seed(), true),
            assign(at(bb, vec![b.v(i)]), f64c(0.0)),
        ],
    )];
    b.finish(body)
}

#[test]
fn stencil_1d_becomes_a_gather() {
    let f = stencil_1d_sweep();
    let s = split(&f);
    assert_eq!(
        body_text(&s),
        "  # gather form of this statement's adjoint into A_b: each iteration sums the terms that land on its own element (one pass, no atomics)
  map i in [2, N - 2) {  # 2
    A_b[i] += 0.33333 * (B_b[i + 1] + B_b[i] + B_b[i - 1])  # 2
  }
  # boundary of the gather into A_b: only the terms that exist there
  loop i in range(0, min(2, N), 1) {  # 2
    if i < N - 2 {  # 2
      A_b[i] += 0.33333 * B_b[i + 1]  # 2
    }
    if 1 <= i && i < N - 1 {  # 2
      A_b[i] += 0.33333 * B_b[i]  # 2
    }
    if 2 <= i {  # 2
      A_b[i] += 0.33333 * B_b[i - 1]  # 2
    }
  }
  # boundary of the gather into A_b: only the terms that exist there
  loop i in range(max(N - 2, 2), N, 1) {  # 2
    if i < N - 2 {  # 2
      A_b[i] += 0.33333 * B_b[i + 1]  # 2
    }
    if 1 <= i && i < N - 1 {  # 2
      A_b[i] += 0.33333 * B_b[i]  # 2
    }
    if 2 <= i {  # 2
      A_b[i] += 0.33333 * B_b[i - 1]  # 2
    }
  }
  map i in [1, N - 1) {  # 1
    B_b[i] = 0.0  # 5
  }
"
    );
    // The interior and the zeroing are maps; the 1-D boundary strips plain loops.
    assert_eq!(counts(&s), (2, 0));
    // Every new nest binds an index of its own.
    let indices = s.vars.iter().filter(|v| v.name == "i").count();
    assert_eq!(indices, 4);
    // Every size: an empty range, strips that overlap (N < 4), one or two interior points.
    for n in 0..=9 {
        same_results(&f, &s, &[("N", n)]);
    }
    // Nothing left to split: the pass is idempotent.
    assert_eq!(split(&s), s);
}

#[test]
fn stencil_2d_five_point() {
    let mut b = B::new("sweep2");
    let (n, m) = (b.size("N"), b.size("M"));
    let ab = b.param("A_b", mat(&b, n, m), Intent::InOut);
    let bb = b.param("B_b", mat(&b, n, m), Intent::InOut);
    let (i, j) = (b.index("i"), b.index("j"));
    let seed = || 0.2 * b.ld(bb, vec![b.v(i), b.v(j)]);
    let at2 = |di: i64, dj: i64| at(ab, vec![b.v(i) + di, b.v(j) + dj]);
    let body = vec![map(
        vec![(i, int(1), b.v(n) - 1), (j, int(1), b.v(m) - 1)],
        vec![
            acc(at2(0, 0), AccOp::Add, seed(), true),
            acc(at2(0, -1), AccOp::Add, seed(), true),
            acc(at2(0, 1), AccOp::Add, seed(), true),
            acc(at2(1, 0), AccOp::Add, seed(), true),
            acc(at2(-1, 0), AccOp::Add, seed(), true),
            assign(at(bb, vec![b.v(i), b.v(j)]), f64c(0.0)),
        ],
    )];
    let f = b.finish(body);
    let s = split(&f);
    // Interior, four boundary strips, the zeroing.
    assert_eq!(counts(&s), (6, 0), "{}", text(&s));
    let t = body_text(&s);
    assert!(t.contains("map i in [2, N - 2), j in [2, M - 2) {  # 2\n    A_b[i, j] += 0.2 * (B_b[i, j] + B_b[i, j + 1] + B_b[i, j - 1] + B_b[i - 1, j] + B_b[i + 1, j])  # 2\n  }"), "{t}");
    assert!(t.ends_with("map i in [1, N - 1), j in [1, M - 1) {  # 1\n    B_b[i, j] = 0.0  # 7\n  }\n"), "{t}");
    for (n, m) in [(6, 7), (0, 3), (1, 1), (2, 5), (3, 3), (4, 2), (5, 4)] {
        same_results(&f, &s, &[("N", n), ("M", m)]);
    }
}

#[test]
fn updates_of_different_arrays_gather_apart() {
    // fdtd_2d's hz adjoint: two updates of ex_b, two of ey_b: one gather each.
    let mut b = B::new("fdtd");
    let (n, m) = (b.size("N"), b.size("M"));
    let ex = b.param("ex_b", mat(&b, n, m), Intent::InOut);
    let ey = b.param("ey_b", mat(&b, n, m), Intent::InOut);
    let hz = b.param("hz_b", mat(&b, n, m), Intent::In);
    let (i, j) = (b.index("i"), b.index("j"));
    let h = || b.ld(hz, vec![b.v(i), b.v(j)]);
    let body = vec![map(
        vec![(i, int(0), b.v(n) - 1), (j, int(0), b.v(m) - 1)],
        vec![
            acc(at(ex, vec![b.v(i), b.v(j) + 1]), AccOp::Add, -0.7 * h(), true),
            acc(at(ex, vec![b.v(i), b.v(j)]), AccOp::Add, 0.7 * h(), true),
            acc(at(ey, vec![b.v(i) + 1, b.v(j)]), AccOp::Add, -0.7 * h(), true),
            acc(at(ey, vec![b.v(i), b.v(j)]), AccOp::Add, 0.7 * h(), true),
        ],
    )];
    let f = b.finish(body);
    let s = split(&f);
    // One gather per array (interior and two strips of the shifted axis each).
    assert_eq!(counts(&s), (6, 0), "{}", text(&s));
    let t = body_text(&s);
    assert!(t.contains("map i in [0, N - 1), j in [1, M - 1) {  # 2\n    ex_b[i, j] += -0.7 * hz_b[i, j - 1] + 0.7 * hz_b[i, j]  # 2\n  }"), "{t}");
    assert!(t.contains("map i in [1, N - 1), j in [0, M - 1) {  # 4\n    ey_b[i, j] += -0.7 * hz_b[i - 1, j] + 0.7 * hz_b[i, j]  # 4\n  }"), "{t}");
    for (n, m) in [(5, 6), (1, 1), (2, 2), (3, 1), (1, 4)] {
        same_results(&f, &s, &[("N", n), ("M", m)]);
    }
}

#[test]
fn zeroing_before_a_gather_is_fused() {
    // `A_b[1:-1] = 0` then the adjoint of `B[1:-1] = c * (A[:-2] + A[1:-1] + A[2:])`: the
    // interior assigns, the boundary zeroes what the zeroing covered, then adds.
    let mut b = B::new("fuse");
    let n = b.size("N");
    let ab = b.param("A_b", vec1(&b, n), Intent::InOut);
    let bb = b.param("B_b", vec1(&b, n), Intent::InOut);
    let (z, i) = (b.index("z"), b.index("i"));
    let seed = || 0.5 * b.ld(bb, vec![b.v(i)]);
    let body = vec![
        map(vec![(z, int(1), b.v(n) - 1)], vec![assign(at(ab, vec![b.v(z)]), f64c(0.0))]),
        map(
            vec![(i, int(1), b.v(n) - 1)],
            vec![
                acc(at(ab, vec![b.v(i) - 1]), AccOp::Add, seed(), true),
                acc(at(ab, vec![b.v(i)]), AccOp::Add, seed(), true),
                acc(at(ab, vec![b.v(i) + 1]), AccOp::Add, seed(), true),
                assign(at(bb, vec![b.v(i)]), f64c(0.0)),
            ],
        ),
    ];
    let f = b.finish(body);
    let s = split(&f);
    let t = body_text(&s);
    assert!(t.contains("fused in"), "{t}");
    assert!(t.contains("A_b[i] = 0.5 * (B_b[i + 1] + B_b[i] + B_b[i - 1])"), "{t}");
    assert_eq!(counts(&s), (2, 0), "{t}");
    for n in 0..=8 {
        same_results(&f, &s, &[("N", n)]);
    }
    // A zeroing that does not cover the interior stays apart.
    let mut f2 = f.clone();
    if let StmtKind::Map(m) = &mut f2.body[0].kind {
        m.dims[0].start = adjc_ir::Expr::int(3);
    }
    let s2 = split(&f2);
    assert!(!body_text(&s2).contains("fused in"), "{}", body_text(&s2));
    for n in 0..=8 {
        same_results(&f2, &s2, &[("N", n)]);
    }
}

#[test]
fn updates_in_different_rows_stay_together() {
    // seidel_2d's adjoint: a map over k inside a loop over i updates rows i - 1 and i + 1:
    // those never meet, so only the columns k - 1, k, k + 1 need maps of their own; and
    // two updates of fixed different rows need no split at all.
    let mut b = B::new("rows");
    let n = b.size("N");
    let a = b.param("A_b", mat(&b, n, n), Intent::InOut);
    let t = b.param("T_b", vec1(&b, n), Intent::InOut);
    let (i, kk) = (b.index("i"), b.index("k"));
    let tk = || b.ld(t, vec![b.v(kk)]);
    let body = vec![lp(
        i,
        int(1),
        b.v(n) - 1,
        1,
        vec![
            map(
                vec![(kk, int(1), b.v(n) - 1)],
                vec![
                    acc(at(a, vec![b.v(i) - 1, b.v(kk) - 1]), AccOp::Add, tk(), true),
                    acc(at(a, vec![b.v(i) - 1, b.v(kk)]), AccOp::Add, tk(), true),
                    acc(at(a, vec![b.v(i) + 1, b.v(kk) - 1]), AccOp::Add, tk(), true),
                    acc(at(a, vec![b.v(i) + 1, b.v(kk)]), AccOp::Add, tk(), true),
                    assign(at(t, vec![b.v(kk)]), f64c(0.0)),
                ],
            ),
            map(
                vec![(kk, int(1), b.v(n) - 1)],
                vec![
                    acc(at(a, vec![b.v(i) - 1, b.v(kk)]), AccOp::Add, tk(), true),
                    acc(at(a, vec![b.v(i) + 1, b.v(kk)]), AccOp::Add, tk(), true),
                ],
            ),
        ],
    )];
    let f = b.finish(body);
    let s = split(&f);
    let t = body_text(&s);
    assert!(
        t.contains(
            "    map k in [1, N - 1) {  # 3
      A_b[i - 1, k - 1] += T_b[k]  # 3
      A_b[i + 1, k - 1] += T_b[k]  # 5
    }
    map k in [1, N - 1) {  # 4
      A_b[i - 1, k] += T_b[k]  # 4
      A_b[i + 1, k] += T_b[k]  # 6
    }
    map k in [1, N - 1) {  # 2
      T_b[k] = 0.0  # 7
    }
    map k in [1, N - 1) {  # 8
      A_b[i - 1, k] += T_b[k]  # 9
      A_b[i + 1, k] += T_b[k]  # 10
    }"
        ),
        "{t}"
    );
    assert_eq!(counts(&s), (4, 0));
    same_results(&f, &s, &[("N", 7)]);
}

#[test]
fn cheap_private_scalars_are_recomputed() {
    // `t = 0.5 * B_b[i]` read by the moved updates: substituted, and dropped from the rest.
    let mut b = B::new("temp");
    let n = b.size("N");
    let ab = b.param("A_b", vec1(&b, n), Intent::InOut);
    let bb = b.param("B_b", vec1(&b, n), Intent::InOut);
    let tt = b.temp("t", F64);
    let u = b.temp("u", F64);
    let i = b.index("i");
    let body = vec![map(
        vec![(i, int(1), b.v(n) - 1)],
        vec![
            assign(sc(tt), 0.5 * b.ld(bb, vec![b.v(i)])),
            assign(sc(u), b.v(tt) * b.v(tt)),
            acc(at(ab, vec![b.v(i) - 1]), AccOp::Add, b.v(u), true),
            acc(at(ab, vec![b.v(i) + 1]), AccOp::Add, b.v(tt), true),
            assign(at(bb, vec![b.v(i)]), f64c(0.0)),
        ],
    )];
    let f = b.finish(body);
    let s = split(&f);
    assert_eq!(
        body_text(&s),
        "  # gather form of this statement's adjoint into A_b: each iteration sums the terms that land on its own element (one pass, no atomics)
  map i in [2, N - 2) {  # 4
    A_b[i] += 0.5 * B_b[i + 1] * (0.5 * B_b[i + 1]) + 0.5 * B_b[i - 1]  # 4
  }
  # boundary of the gather into A_b: only the terms that exist there
  loop i in range(0, min(2, N), 1) {  # 4
    if i < N - 2 {  # 4
      A_b[i] += 0.5 * B_b[i + 1] * (0.5 * B_b[i + 1])  # 4
    }
    if 2 <= i {  # 4
      A_b[i] += 0.5 * B_b[i - 1]  # 4
    }
  }
  # boundary of the gather into A_b: only the terms that exist there
  loop i in range(max(N - 2, 2), N, 1) {  # 4
    if i < N - 2 {  # 4
      A_b[i] += 0.5 * B_b[i + 1] * (0.5 * B_b[i + 1])  # 4
    }
    if 2 <= i {  # 4
      A_b[i] += 0.5 * B_b[i - 1]  # 4
    }
  }
  map i in [1, N - 1) {  # 1
    B_b[i] = 0.0  # 6
  }
"
    );
    for n in [0, 1, 2, 3, 4, 5, 8] {
        same_results(&f, &s, &[("N", n)]);
    }
}

// ---------------------------------------------------------------------------------------
// What must not be split

/// A map over `i` of `N - 2` iterations with the given body builder.
fn one_map(name: &str, build: impl FnOnce(&mut B, VarId, VarId, VarId, VarId) -> Vec<adjc_ir::Stmt>) -> Function {
    let mut b = B::new(name);
    let n = b.size("N");
    let ab = b.param("A_b", vec1(&b, n), Intent::InOut);
    let bb = b.param("B_b", vec1(&b, n), Intent::InOut);
    let i = b.index("i");
    let stmts = build(&mut b, n, ab, bb, i);
    let body = vec![map(vec![(i, int(1), b.v(n) - 1)], stmts)];
    b.finish(body)
}

fn unchanged(f: &Function, sizes: &[(&str, i64)]) {
    let s = split(f);
    assert_eq!(s, *f, "expected no change, got\n{}", text(&s));
    same_results(f, &s, sizes);
}

#[test]
fn temp_read_after_the_write_it_depends_on_is_not_moved() {
    // `t = B_b[i]` is taken before `B_b[i] = 0.0`: a map of its own running before the
    // rest would be fine for `t`, but the updates read `t`, whose definition reads B_b
    // *before* a write that precedes the updates: recomputing it after would read 0.
    let f = one_map("ordered", |b, _, ab, bb, i| {
        let t = b.temp("t", F64);
        vec![
            assign(sc(t), b.ld(bb, vec![b.v(i)])),
            assign(at(bb, vec![b.v(i)]), f64c(0.0)),
            acc(at(ab, vec![b.v(i) - 1]), AccOp::Add, 0.5 * b.v(t), true),
            acc(at(ab, vec![b.v(i) + 1]), AccOp::Add, 0.5 * b.v(t), true),
        ]
    });
    unchanged(&f, &[("N", 7)]);
}

#[test]
fn expensive_temp_is_not_recomputed() {
    let f = one_map("costly", |b, _, ab, bb, i| {
        let t = b.temp("t", F64);
        vec![
            assign(sc(t), exp(b.ld(bb, vec![b.v(i)]))),
            acc(at(ab, vec![b.v(i) - 1]), AccOp::Add, b.v(t), true),
            acc(at(ab, vec![b.v(i) + 1]), AccOp::Add, b.v(t), true),
            assign(at(bb, vec![b.v(i)]), f64c(0.0)),
        ]
    });
    unchanged(&f, &[("N", 7)]);
}

#[test]
fn broadcast_update_becomes_a_reduction() {
    // `b_b[j] += A_b[i, j]` over i, j: every i hits the same element, so the update runs in
    // a map over j (each iteration owns b_b[j]) with a loop over i inside.
    let mut b = B::new("bias");
    let (n, m) = (b.size("N"), b.size("M"));
    let ab = b.param("A_b", mat(&b, n, m), Intent::InOut);
    let bias = b.param("b_b", vec1(&b, m), Intent::InOut);
    let (i, j) = (b.index("i"), b.index("j"));
    let body = vec![map(
        vec![(i, int(0), b.v(n)), (j, int(0), b.v(m))],
        vec![
            acc(at(bias, vec![b.v(j)]), AccOp::Add, b.ld(ab, vec![b.v(i), b.v(j)]), true),
            assign(at(ab, vec![b.v(i), b.v(j)]), f64c(0.0)),
        ],
    )];
    let f = b.finish(body);
    let s = split(&f);
    assert_eq!(counts(&s), (2, 0));
    assert_eq!(
        body_text(&s),
        "  # a broadcast operand's adjoint: a reduction in which every iteration owns its element (no atomics)
  map j in [0, M) {  # 2
    loop i in range(0, N, 1) {  # 2
      b_b[j] += A_b[i, j]  # 2
    }
  }
  map i in [0, N), j in [0, M) {  # 1
    A_b[i, j] = 0.0  # 3
  }
"
    );
    same_results(&f, &s, &[("N", 4), ("M", 5)]);
}

#[test]
fn updates_into_an_array_the_body_reads_stay() {
    // Racy already (the interpreter rejects it): the pass must only leave it alone.
    let f = one_map("observed", |b, _, ab, bb, i| {
        vec![
            acc(at(ab, vec![b.v(i) - 1]), AccOp::Add, b.ld(bb, vec![b.v(i)]), true),
            acc(at(ab, vec![b.v(i) + 1]), AccOp::Add, b.ld(bb, vec![b.v(i)]), true),
            acc(at(bb, vec![b.v(i)]), AccOp::Add, b.ld(ab, vec![b.v(i)]), false),
        ]
    });
    assert_eq!(split(&f), f);
}

#[test]
fn updates_with_different_operators_stay() {
    let f = one_map("mixed", |b, _, ab, bb, i| {
        vec![
            acc(at(ab, vec![b.v(i) - 1]), AccOp::Add, b.ld(bb, vec![b.v(i)]), true),
            acc(at(ab, vec![b.v(i) + 1]), AccOp::Mul, b.ld(bb, vec![b.v(i)]), true),
        ]
    });
    unchanged(&f, &[("N", 7)]);
}

#[test]
fn value_written_before_the_update_stays() {
    // The update reads B_b[i] after this iteration changed it.
    let f = one_map("late", |b, _, ab, bb, i| {
        vec![
            assign(at(bb, vec![b.v(i)]), 2.0 * b.ld(bb, vec![b.v(i)])),
            acc(at(ab, vec![b.v(i) - 1]), AccOp::Add, b.ld(bb, vec![b.v(i)]), true),
            acc(at(ab, vec![b.v(i) + 1]), AccOp::Add, b.ld(bb, vec![b.v(i)]), true),
        ]
    });
    unchanged(&f, &[("N", 7)]);
}

#[test]
fn nested_maps_and_branches_are_left_alone() {
    // The inner map's updates race across iterations of the outer map: not this pass's
    // to split. The top-level update conflicts with one inside a branch: it moves out, the
    // branch's stays shared.
    let mut b = B::new("nested");
    let n = b.size("N");
    let ab = b.param("A_b", mat(&b, n, n), Intent::InOut);
    let bb = b.param("B_b", mat(&b, n, n), Intent::In);
    let c = b.param("c", vec1(&b, n), Intent::In);
    let (i, j) = (b.index("i"), b.index("j"));
    let body = vec![map(
        vec![(i, int(1), b.v(n) - 1)],
        vec![
            map(
                vec![(j, int(1), b.v(n) - 1)],
                vec![
                    acc(at(ab, vec![b.v(j) - 1, b.v(i)]), AccOp::Add, b.ld(bb, vec![b.v(i), b.v(j)]), true),
                    acc(at(ab, vec![b.v(j) + 1, b.v(i)]), AccOp::Add, b.ld(bb, vec![b.v(i), b.v(j)]), true),
                ],
            ),
            if_(
                b.ld(c, vec![b.v(i)]).cmp(BinOp::Gt, f64c(0.0)),
                vec![acc(at(ab, vec![b.v(i) + 1, int(0)]), AccOp::Add, b.ld(c, vec![b.v(i)]), true)],
                vec![],
            ),
            acc(at(ab, vec![b.v(i) - 1, int(0)]), AccOp::Add, b.ld(c, vec![b.v(i)]), true),
        ],
    )];
    let f = b.finish(body);
    let s = split(&f);
    let t = body_text(&s);
    assert!(
        t.starts_with(
            "  # split so that in each loop every iteration owns the elements it updates (no atomics)
  map i in [1, N - 1) {  # 7
    A_b[i - 1, 0] += c[i]  # 7
  }
  map i in [1, N - 1) {  # 1
    map j in [1, N - 1) {  # 2
      A_b[j - 1, i] += B_b[i, j] shared  # 3"
        ),
        "{t}"
    );
    assert_eq!(counts(&s), (3, 3));
    same_results(&f, &s, &[("N", 6)]);
}

#[test]
fn lone_owned_update_is_unshared_in_place() {
    // Nothing conflicts with `A_b[i - 1]` once marked shared by a conservative producer.
    let f = one_map("lone", |b, _, ab, bb, i| {
        vec![
            acc(at(ab, vec![b.v(i) - 1]), AccOp::Add, b.ld(bb, vec![b.v(i)]), true),
            assign(at(bb, vec![b.v(i)]), f64c(0.0)),
        ]
    });
    let s = split(&f);
    assert_eq!(counts(&s), (1, 0));
    same_results(&f, &s, &[("N", 7)]);
}

// ---------------------------------------------------------------------------------------
// Adjoints built by `reverse`

/// Splitting the adjoint of `primal` changes nothing it computes.
fn adjoint_unchanged(primal: &Function, sizes: &[(&str, i64)]) -> Function {
    let adj = reverse(primal, &AdOptions::default()).unwrap_or_else(|d| panic!("reverse failed: {d}")).function;
    let s = split(&adj);
    same_results(&adj, &s, sizes);
    s
}

#[test]
fn jacobi_adjoints_lose_their_atomics() {
    let s = adjoint_unchanged(&k::jacobi_1d(false), &[("N", 9), ("TSTEPS", 3)]);
    assert_eq!(counts(&s).1, 0, "{}", text(&s));
    // The nonlinear variant recomputes and tapes: what is left still matches.
    let s = adjoint_unchanged(&k::jacobi_1d(true), &[("N", 9), ("TSTEPS", 3)]);
    assert_eq!(counts(&s).1, 0, "{}", text(&s));
    adjoint_unchanged(&k::stencil(false), &[("N", 8)]);
    adjoint_unchanged(&k::stencil(true), &[("N", 8)]);
}

#[test]
fn other_adjoints_are_unchanged_in_value() {
    adjoint_unchanged(&k::total(), &[("N", 4), ("M", 5)]);
    adjoint_unchanged(&k::rowmax(), &[("N", 4), ("M", 5)]);
    adjoint_unchanged(&k::private_scalar(), &[("N", 6)]);
    adjoint_unchanged(&k::pool(), &[("N", 4), ("M", 6)]);
    adjoint_unchanged(&k::gather(), &[("N", 8)]);
    adjoint_unchanged(&k::softmax(), &[("N", 4), ("M", 5)]);
    adjoint_unchanged(&k::map_if(), &[("N", 6)]);
}

#[test]
fn ownership_needs_every_map_variable() {
    // The diagonal `a_b[i, i]` of a map over `i` is owned: unshared where it stands.
    let mut b = B::new("diag");
    let n = b.size("N");
    let ab = b.param("a_b", mat(&b, n, n), Intent::InOut);
    let t = b.param("t_b", vec1(&b, n), Intent::In);
    let i = b.index("i");
    let body = vec![map(
        vec![(i, int(0), b.v(n))],
        vec![acc(at(ab, vec![b.v(i), b.v(i)]), AccOp::Add, b.ld(t, vec![b.v(i)]), true)],
    )];
    let f = b.finish(body);
    let s = split(&f);
    assert_eq!(counts(&s), (1, 0));
    same_results(&f, &s, &[("N", 5)]);

    // `x_b[i + j]` and `x_b[i]` over `i, j`: neither recovers `j`. `x_b[i]` is owned by
    // `i` alone: a reduction over `j`; `x_b[i + j]` stays shared.
    let mut b = B::new("sums");
    let n = b.size("N");
    let xb = b.param("x_b", vec1(&b, n), Intent::InOut);
    let y = b.param("y_b", mat(&b, n, n), Intent::In);
    let (i, j) = (b.index("i"), b.index("j"));
    let body = vec![map(
        vec![(i, int(0), b.v(n) - 3), (j, int(0), int(3))],
        vec![
            acc(at(xb, vec![b.v(i) + b.v(j)]), AccOp::Add, b.ld(y, vec![b.v(i), b.v(j)]), true),
            acc(at(xb, vec![b.v(i)]), AccOp::Add, b.ld(y, vec![b.v(j), b.v(i)]), true),
        ],
    )];
    let f = b.finish(body);
    let s = split(&f);
    assert_eq!(counts(&s), (2, 1));
    assert!(body_text(&s).contains("map i in [0, N - 3) {  # 3\n    loop j in range(0, 3, 1) {"), "{}", text(&s));
    same_results(&f, &s, &[("N", 7)]);
}

// ---------------------------------------------------------------------------------------
// Sequential adjoint nests in owner-computes order (`own`)

/// The reversed adjoint nest of a 1-D convolution over channels,
/// `y[i] = Σ_k Σ_c x[i + k, c] * w[k, c]`, as `reverse` writes it; `y_read` gives the
/// index at which the updates read `y_b`.
fn conv1d_adjoint(y_read: impl Fn(&B, VarId) -> Vec<E>) -> Function {
    let mut b = B::new("conv1d_b");
    let (n, k_n, c_n) = (b.size("N"), b.size("K"), b.size("C"));
    let x = b.param("x", mat(&b, n, c_n), Intent::In);
    let w = b.param("w", mat(&b, k_n, c_n), Intent::In);
    let out = array(Scalar::F64, vec![b.v(n) - b.v(k_n) + 1]);
    let yb = b.param("y_b", out, Intent::InOut);
    let xb = b.param("x_b", mat(&b, n, c_n), Intent::InOut);
    let wb = b.param("w_b", mat(&b, k_n, c_n), Intent::InOut);
    let (i, k, c) = (b.index("i"), b.index("k"), b.index("c"));
    let seed = b.ld(yb, y_read(&b, i));
    let body = vec![lp(
        i,
        b.v(n) - b.v(k_n),
        int(-1),
        -1,
        vec![
            lp(
                k,
                b.v(k_n) - 1,
                int(-1),
                -1,
                vec![lp(
                    c,
                    b.v(c_n) - 1,
                    int(-1),
                    -1,
                    vec![
                        acc(
                            at(xb, vec![b.v(i) + b.v(k), b.v(c)]),
                            AccOp::Add,
                            b.ld(w, vec![b.v(k), b.v(c)]) * seed.clone(),
                            false,
                        ),
                        acc(
                            at(wb, vec![b.v(k), b.v(c)]),
                            AccOp::Add,
                            b.ld(x, vec![b.v(i) + b.v(k), b.v(c)]) * seed,
                            false,
                        ),
                    ],
                )],
            ),
            assign(at(yb, vec![b.v(i)]), f64c(0.0)),
        ],
    )];
    let mut f = b.finish(body);
    // Adjoint arrays, as `reverse` names their role.
    for (v, of) in [(xb, x), (wb, w), (yb, yb)] {
        f.var_mut(v).role = adjc_ir::VarRole::Adjoint(of);
    }
    f
}

#[test]
fn window_accumulations_become_owned_parallel_nests() {
    let f = conv1d_adjoint(|b, i| vec![b.v(i)]);
    let s = split(&f);
    // x_b[i + k, c] is owned by c, w_b[k, c] by k (the outer of k and c); y_b is zeroed last.
    assert_eq!(
        body_text(&s),
        "  # reordered so that every iteration of the parallel loops owns the elements it accumulates into (no atomics)
  map c in [0, C) {  # 1
    loop i in range(N - K, -1, -1) {  # 1
      loop k in range(K - 1, -1, -1) {  # 2
        x_b[i + k, c] += w[k, c] * y_b[i]  # 4
      }
    }
  }
  map k in [0, K) {  # 1
    loop i in range(N - K, -1, -1) {  # 1
      loop c in range(C - 1, -1, -1) {  # 3
        w_b[k, c] += x[i + k, c] * y_b[i]  # 5
      }
    }
  }
  loop i in range(N - K, -1, -1) {  # 1
    y_b[i] = 0.0  # 6
  }
"
    );
    same_results(&f, &s, &[("N", 7), ("K", 3), ("C", 2)]);
}

#[test]
fn nests_reading_elements_they_do_not_zero_stay() {
    // The updates read y_b[0], which only iteration 0 zeroes: the rule reasons about each
    // iteration's own element only, so it leaves the nest alone.
    let f = conv1d_adjoint(|_, _| vec![int(0)]);
    unchanged(&f, &[("N", 7), ("K", 3), ("C", 2)]);
}

#[test]
fn map_around_a_reversed_loop_becomes_one_gather() {
    // Fortran's `do i; do j` jacobi: the adjoint is a map over i around a reversed loop
    // over j with shared updates; flattened, it gathers like the NumPy form.
    let mut b = B::new("nest");
    let (n, m) = (b.size("N"), b.size("M"));
    let ab = b.param("a_b", mat(&b, n, m), Intent::InOut);
    let bb = b.param("b_b", mat(&b, n, m), Intent::InOut);
    let (i, j) = (b.index("i"), b.index("j"));
    let seed = || 0.2 * b.ld(ab, vec![b.v(j), b.v(i)]);
    let at2 = |dj: i64, di: i64| at(bb, vec![b.v(j) + dj, b.v(i) + di]);
    let body = vec![map(
        vec![(i, int(1), b.v(m) - 1)],
        vec![lp(
            j,
            b.v(n) - 2,
            int(0),
            -1,
            vec![
                acc(at2(0, 0), AccOp::Add, seed(), true),
                acc(at2(-1, 0), AccOp::Add, seed(), true),
                acc(at2(1, 0), AccOp::Add, seed(), true),
                acc(at2(0, 1), AccOp::Add, seed(), true),
                acc(at2(0, -1), AccOp::Add, seed(), true),
                assign(at(ab, vec![b.v(j), b.v(i)]), f64c(0.0)),
            ],
        )],
    )];
    let f = b.finish(body);
    let s = split(&f);
    let t = body_text(&s);
    assert!(t.contains("gather form"), "{t}");
    assert_eq!(counts(&s).1, 0, "{t}");
    for (n, m) in [(6, 7), (1, 1), (2, 3), (3, 2), (4, 4), (5, 3)] {
        same_results(&f, &s, &[("N", n), ("M", m)]);
    }
    // A loop that reads what an earlier iteration wrote stays sequential.
    let mut b = B::new("carried");
    let n = b.size("N");
    let ab = b.param("a_b", mat(&b, n, n), Intent::InOut);
    let (i, j) = (b.index("i"), b.index("j"));
    let body = vec![map(
        vec![(i, int(0), b.v(n))],
        vec![lp(
            j,
            int(1),
            b.v(n),
            1,
            vec![assign(at(ab, vec![b.v(i), b.v(j)]), b.ld(ab, vec![b.v(i), b.v(j) - 1]) * f64c(0.5))],
        )],
    )];
    let f = b.finish(body);
    let s = split(&f);
    assert_eq!(s, f, "{}", text(&s));
}
