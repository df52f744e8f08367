//! Data-dependent loops (issue 15): `while`, `break`, `continue`, early `return`, Fortran
//! `do while` / `exit` / `cycle`. The examples run through `adjc check` in `e2e` and
//! `fortran_e2e`; these tests pin what the reversal records and that it is right.

mod common;

use common::{adjc, scratch, text};

/// The adjoint dot product `<J^T w, v>` of each `d/dX` line of `adjc check`.
fn adjoint_values(t: &str) -> Vec<f64> {
    t.lines()
        .filter(|l| l.trim_start().starts_with("d/d"))
        .filter_map(|l| l.split("(adjoint) =").nth(1)?.split_whitespace().next()?.parse().ok())
        .collect()
}

fn check(src: &str, name: &str, flags: &[&str]) -> String {
    check_ext(src, name, "py", flags)
}

fn check_ext(src: &str, name: &str, ext: &str, flags: &[&str]) -> String {
    let dir = scratch(name);
    let file = dir.join(format!("{name}.{ext}"));
    std::fs::write(&file, src).unwrap();
    let out_dir = dir.join("out");
    let mut args = vec!["check", file.to_str().unwrap(), "-o", out_dir.to_str().unwrap()];
    args.extend_from_slice(flags);
    let out = adjc(&args);
    let t = text(&out);
    assert!(out.status.success(), "{name}: {t}");
    let _ = std::fs::remove_dir_all(&dir);
    t
}

/// A `while` whose trip count differs from point to point (1 to 5 trips, inside a `for`)
/// gives the same gradient as the same computation with the trip count written as a
/// `range`: if the recorded trip counts were wrong (shared, shifted, or read in the wrong
/// order), the reversed loops would run the wrong number of iterations and differ.
#[test]
fn while_gradient_equals_the_counted_loop_gradient() {
    let body = |lp: &str| {
        format!(
            "import numpy as np\n\ndef k(x: 'float64[N]', y: 'float64[N]'):\n    out = np.zeros_like(x)\n    \
             for i in range(x.shape[0]):\n        v = x[i]\n        t = 0\n{lp}\n            v = np.sin(v) * y[i] + 0.5 * v\n            \
             t += 1\n        out[i] = v * v\n    return out\n"
        )
    };
    let w = body("        while t < i % 5 + 1:");
    let f = body("        for s in range(i % 5 + 1):");
    let tw = check(&w, "while_trips", &["--sizes", "N=23"]);
    let tf = check(&f, "for_trips", &["--sizes", "N=23"]);
    let (aw, af) = (adjoint_values(&tw), adjoint_values(&tf));
    assert_eq!(aw.len(), 2, "{tw}");
    assert_eq!(aw.len(), af.len(), "{tf}");
    for (a, b) in aw.iter().zip(&af) {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "while {a} vs for {b}\n{tw}\n{tf}");
    }
}

/// The trip count of a `while` inside a `for` goes to a tape indexed by the loop counter
/// (a closed form, not a stack), and the reversed loop runs exactly those trips.
#[test]
fn trip_counts_are_taped_per_outer_iteration() {
    let dir = scratch("newton_c");
    let out = adjc(&["transpile", "examples/python/newton.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("newton.c")).unwrap();
    assert!(c.contains("int64_t *trips_tape = adjc_alloc_tape(sizeof(int64_t), ADJC_DIMS(N));"), "{c}");
    assert!(c.contains("trips_tape[i] = trips;"), "{c}");
    assert!(c.contains("trips = trips_tape[i];"), "{c}");
    assert!(c.contains("for (int64_t it = trips - 1; it >= 0; it--) {"), "{c}");
    assert!(c.contains("while (fabs(dx) > 1e-13 && k < 60) {"), "{c}");
    // The forward function runs the points in parallel, each with its own `while` (the
    // scalars it updates are declared in the iteration); the adjoint's sweeps stay
    // sequential (its stacks are pushed and popped in order).
    let forward = &c[c.find("int newton(").unwrap()..c.find("int newton_b(").unwrap()];
    let par = forward.find("ADJC_OMP(parallel for)\n    for (int64_t i = 0; i < N; i++) {").expect(forward);
    assert!(forward[par..].contains("double xi = y[i];"), "{forward}");
    assert!(forward[par..].contains("while (fabs(dx)"), "{forward}");
    let adjoint = &c[c.find("int newton_b(").unwrap()..];
    assert!(adjoint.contains("/* run sequentially: its adjoint needs values saved in every iteration */"), "{adjoint}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Nested data-dependent loops: the inner `while`'s trip counts go on a stack (the outer
/// one has no closed-form trip count), pushed after and popped before each instance.
/// (Arrays are indexed by `for` variables: an index a `while` changes cannot be proven to
/// stay inside its array, and is refused.)
#[test]
fn nested_while_loops_pass_the_gradient_check() {
    let src = "def k(x: 'float64[N]', s: float):\n    acc = 0.0\n    for j in range(x.shape[0]):\n        v = x[j]\n        \
               m = 0\n        while m < j % 4:\n            n = 0\n            while n < (j + m) % 3 + 1:\n                \
               v = v * s + 0.25 * v * v\n                n += 1\n            m += 1\n        acc += v\n    return acc\n";
    let t = check(src, "nested_while", &["--sizes", "N=17"]);
    assert!(t.contains("check passed"), "{t}");
    let dir = scratch("nested_while_c");
    let file = dir.join("nested.py");
    std::fs::write(&file, src).unwrap();
    let out = adjc(&["transpile", file.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("nested.c")).unwrap();
    // Inner instances: a stack (the outer `while` has no closed-form trip count); outer
    // instances: one slot per iteration of the `for`.
    assert!(c.contains("adjc_push_i64(&trips_tape, trips_1) != ADJC_OK"), "{c}");
    assert!(c.contains("trips_1 = adjc_pop_i64(&trips_tape);"), "{c}");
    assert!(c.contains("trips_tape_1[j] = trips;") && c.contains("trips = trips_tape_1[j];"), "{c}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `break` and `continue` in a `while` and a `for`, and an early `return` from a helper
/// inlined twice.
#[test]
fn break_continue_and_helper_returns_pass_the_gradient_check() {
    let src = "def first_big(x, lim):\n    for i in range(x.shape[0]):\n        if x[i] > lim:\n            return x[i] * x[i]\n    \
               return 0.0\n\ndef k(x: 'float64[N]', y: 'float64[N]'):\n    s = first_big(x, 0.5) + first_big(y, 0.2)\n    \
               for i in range(x.shape[0]):\n        if y[i] < 0.0:\n            continue\n        s = s * 0.9 + x[i] * y[i]\n        \
               if s > 3.0:\n            break\n    t = s\n    while True:\n        t = 0.5 * t / (1.0 + 0.1 * t * t)\n        \
               if abs(t) < 0.01:\n            break\n    return s + t\n";
    let t = check(src, "break_continue", &["--sizes", "N=20"]);
    assert!(t.contains("check passed"), "{t}");
}

/// `adjc check -fopenmp` on a `while` kernel: the data-dependent loop stays sequential
/// (its trip counts are recorded in order) and the gradient is the same.
#[test]
fn while_loops_pass_with_openmp() {
    let out = adjc(&[
        "check",
        "examples/python/newton.py",
        "--sizes",
        "N=40",
        "--openmp",
        "-o",
        scratch("newton_omp").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
}

/// Without a bound a `while` loop's per-trip stacks have no size: the report says they
/// grow, and a memory plan is refused with what to do. `--max-trips` bounds them (the
/// report gives `N * K` elements), a plan is made, and checkpointing the loop around the
/// `while` keeps the gradient right.
#[test]
fn max_trips_bounds_the_per_trip_stacks() {
    let dir = scratch("max_trips");
    let d = dir.to_str().unwrap();
    let out = adjc(&["transpile", "examples/python/newton.py", "--report", "-o", d]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("xi_tape     f64  grows with the iterations"), "{}", text(&out));
    let out = adjc(&["transpile", "examples/python/newton.py", "--memory-limit", "1MB", "--sizes", "N=1000", "-o", d]);
    assert!(!out.status.success());
    assert!(text(&out).contains("bound each `while` loop with --max-trips LOOP=K"), "{}", text(&out));
    let out = adjc(&["transpile", "examples/python/newton.py", "--max-trips", "L1=60", "--report", "-o", d]);
    assert!(text(&out).contains("xi_tape     f64  at most N * 60 elements"), "{}", text(&out));
    let out = adjc(&["transpile", "examples/python/newton.py", "--max-trips", "L0=60", "-o", d]);
    assert!(text(&out).contains("--max-trips: L0 is not a `while` loop"), "{}", text(&out));
    let out = adjc(&[
        "check",
        "examples/python/newton.py",
        "--sizes",
        "N=300",
        "--max-trips",
        "14=60",
        "--memory-limit",
        "300KB",
        "-o",
        d,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    for cp in ["L0=every:4", "L0=binomial:3"] {
        let out = adjc(&["check", "examples/python/newton.py", "--sizes", "N=30", "--checkpoint", cp, "-o", d]);
        assert!(out.status.success(), "{cp}: {}", text(&out));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Gradients of two sources (by `adjc check`) agree to rounding.
fn same_gradients(a: &str, b: &str) {
    let (ga, gb) = (adjoint_values(a), adjoint_values(b));
    assert!(!ga.is_empty() && ga.len() == gb.len(), "{a}\n{b}");
    for (x, y) in ga.iter().zip(&gb) {
        // Relative: some of these dot products are small (a product of 7 contractions).
        assert!((x - y).abs() <= 1e-10 * y.abs(), "{x} vs {y}\n{a}\n{b}");
    }
}

/// A Fortran loop closed by a backward `goto` (backward_goto.rs), with another `goto` to
/// its label in the middle (a `cycle`) and a trip count that differs from point to point,
/// gives the gradient of the same computation written as a counted `do` whose trip count
/// is computed before it: a wrong recorded trip count (or a `cycle` taken on the wrong
/// trip) would run a different number of reversed iterations and differ.
#[test]
fn backward_goto_loop_gradient_equals_the_counted_loop_gradient() {
    let head =
        "subroutine k(n, x, y, out)\n  integer :: n, i, t, te\n  real(8) :: x(n), y(n), out(n), v\n  do i = 1, n\n    \
                v = x(i)\n";
    let tail = "    out(i) = v * v\n  end do\nend subroutine\n";
    let goto = format!(
        "{head}    t = 0\n10  continue\n    t = t + 1\n    if (mod(t, 3) == 2) goto 10\n    v = sin(v) * y(i) + 0.5d0 * v\n    \
         if (t < mod(i, 5) + 2) goto 10\n{tail}"
    );
    let counted = format!(
        "{head}    te = mod(i, 5) + 2\n    if (mod(te, 3) == 2) te = te + 1\n    do t = 1, te\n      \
         if (mod(t, 3) /= 2) v = sin(v) * y(i) + 0.5d0 * v\n    end do\n{tail}"
    );
    let tg = check_ext(&goto, "goto_trips", "f90", &["--sizes", "n=23"]);
    let tc = check_ext(&counted, "goto_counted", "f90", &["--sizes", "n=23"]);
    same_gradients(&tg, &tc);
}

/// An unconditional backward `goto` left by a `return` (a loop with its exit test in the
/// middle) has the gradient of the counted loop of the same trips.
#[test]
fn backward_goto_left_by_return_equals_the_counted_loop() {
    let goto =
        "subroutine k(x, s, r)\n  real(8) :: x, s, r\n  integer :: t\n  r = x\n  t = 0\n20 continue\n  t = t + 1\n  \
                r = sin(r) * s + 0.5d0 * r\n  if (t >= 7) return\n  goto 20\nend subroutine\n";
    let counted = "subroutine k(x, s, r)\n  real(8) :: x, s, r\n  integer :: t\n  r = x\n  do t = 1, 7\n    \
                   r = sin(r) * s + 0.5d0 * r\n  end do\nend subroutine\n";
    let tg = check_ext(goto, "goto_return", "f90", &[]);
    let tc = check_ext(counted, "goto_return_counted", "f90", &[]);
    same_gradients(&tg, &tc);
}

/// `for ... else` (loop_else.rs): the `else` block runs when the loop ends without its own
/// `break`; a `break` of a loop nested in it does not count. Here the outer loop never
/// breaks, so the `else` runs for every point: had the nested `break` cleared the flag, the
/// forward function would differ from NumPy's (and so would the gradient from FD).
#[test]
fn for_else_runs_unless_its_own_loop_breaks() {
    let src = "import numpy as np\n\ndef k(x: 'float64[N]'):\n    out = np.zeros_like(x)\n    for i in range(x.shape[0]):\n        \
               v = x[i]\n        for j in range(3):\n            for m in range(4):\n                if m > j:\n                    \
               break\n                v = v * 0.9 + 0.1 * np.sin(v)\n            if v > 50.0:\n                break\n        else:\n            \
               v = v * v + 1.0\n        out[i] = v\n    return out\n";
    let t = check(src, "for_else", &["--sizes", "N=17"]);
    if std::env::var_os("ADJC_PYTHON").is_some() {
        assert!(t.lines().any(|l| l.contains("forward vs NumPy: ret") && l.trim_end().ends_with("ok")), "{t}");
    }
}
