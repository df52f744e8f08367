//! OpenMP placement is a cost decision (emit/src/omp.rs): no parallel region opens inside a
//! sequential loop unless guarded by `ADJC_OMP_PAYS` (with a sequential copy), time loops
//! get one region around them with worksharing inside, and the hoisted regions compute the
//! same gradient as the serial build at 2 and 4 threads (with `ADJC_OMP_MIN_WORK=0`, so that
//! the parallel copies run at the tests' small sizes). Timings are never asserted here.

mod common;

use common::{adjc, root, scratch, text};
use std::path::Path;
use std::process::Command;

/// Transpiles an example into `dir`; its C.
fn transpile(dir: &Path, example: &str, flags: &[&str]) -> String {
    let path = format!("examples/python/{example}.py");
    let mut args = vec!["transpile", path.as_str(), "-o", dir.to_str().unwrap()];
    args.extend(flags);
    let out = adjc(&args);
    assert!(out.status.success(), "{}", text(&out));
    std::fs::read_to_string(dir.join(format!("{example}.c"))).unwrap()
}

/// The text of C function `name` (from its signature to the closing brace).
fn function<'a>(c: &'a str, name: &str) -> &'a str {
    let start = c.find(&format!("\nint {name}(")).unwrap_or_else(|| panic!("no {name} in\n{c}"));
    let len = c[start..].find("\n}\n").unwrap_or(c.len() - start);
    &c[start..start + len]
}

/// Every `ADJC_OMP(parallel...)` line with the lines that open the blocks around it.
fn regions_with_context(f: &str) -> Vec<(String, Vec<String>)> {
    let mut open: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for l in f.lines() {
        let t = l.trim();
        if t.starts_with("ADJC_OMP(parallel") {
            out.push((t.to_string(), open.clone()));
        }
        if t.starts_with('}') {
            open.pop();
        }
        if t.ends_with('{') {
            open.push(t.to_string());
        }
    }
    out
}

/// No parallel region inside a sequential loop unless an `ADJC_OMP_PAYS` guard is around it.
fn assert_no_unguarded_region_in_loops(f: &str) {
    for (pragma, around) in regions_with_context(f) {
        let in_loop = around.iter().any(|l| l.starts_with("for ("));
        let guarded = around.iter().any(|l| l.starts_with("if (ADJC_OMP_PAYS("));
        assert!(!in_loop || guarded, "`{pragma}` inside {around:?} without a guard in\n{f}");
    }
}

#[test]
fn cholesky_opens_no_region_per_iteration_of_its_loops() {
    let dir = scratch("omp-cholesky");
    let c = transpile(&dir, "cholesky", &["--wrt", "A", "--of", "A"]);
    for name in ["cholesky", "cholesky_b"] {
        let f = function(&c, name);
        assert_no_unguarded_region_in_loops(f);
        // The guarded regions come with their sequential copy.
        assert!(f.matches("} else {").count() >= f.matches("if (ADJC_OMP_PAYS(").count(), "{f}");
    }
    let adj = function(&c, "cholesky_b");
    assert!(!adj.contains("ADJC_OMP(parallel for)\n            for"), "no per-iteration region in the loops:\n{adj}");
}

#[test]
fn time_loops_get_one_region_around_them() {
    for (example, flags) in [
        ("jacobi_2d", &["--wrt", "A", "--of", "A"][..]),
        ("heat_3d", &["--wrt", "A", "--of", "A"][..]),
        ("jacobi_1d", &["--wrt", "A", "--of", "A"][..]),
        ("fdtd_2d", &["--wrt", "ex", "--of", "hz"][..]),
    ] {
        let dir = scratch(&format!("omp-region-{example}"));
        let c = transpile(&dir, example, flags);
        for name in [example.to_string(), format!("{example}_b")] {
            let f = function(&c, &name);
            assert_no_unguarded_region_in_loops(f);
            let lines: Vec<&str> = f.lines().map(str::trim).collect();
            let hoisted: Vec<usize> = (0..lines.len()).filter(|&k| lines[k] == "ADJC_OMP(parallel)").collect();
            assert!(!hoisted.is_empty(), "{name}: a region around the time loop:\n{f}");
            for k in hoisted {
                assert!(lines[k + 1].starts_with("for (int64_t t"), "{name}: the region is the time loop:\n{f}");
                // Inside it: worksharing loops, no nested region.
                let region: Vec<&str> = lines[k + 1..].iter().take_while(|l| **l != "} else {").copied().collect();
                assert!(region.iter().any(|l| l.starts_with("ADJC_OMP(for")), "{name}:\n{f}");
                assert!(!region.iter().any(|l| l.starts_with("ADJC_OMP(parallel")), "{name}:\n{f}");
            }
            // No collapse over symbolic extents (it stops gcc from vectorising).
            assert!(!f.contains("collapse("), "{name}: no collapse over symbolic extents:\n{f}");
        }
    }
}

#[test]
fn small_constant_work_stays_sequential_and_says_why() {
    let dir = scratch("omp-small");
    std::fs::write(
        dir.join("small.py"),
        "def small(A, B):\n    for t in range(100):\n        B[0:8] = A[0:8] * 2.0\n        A[0:8] = B[0:8] + 1.0\n",
    )
    .unwrap();
    let out = adjc(&["transpile", dir.join("small.py").to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("small.c")).unwrap();
    let f = function(&c, "small");
    assert!(!f.contains("ADJC_OMP(parallel"), "eight elements per map never pay for a region:\n{f}");
    assert!(f.contains("sequential: too little work for a parallel region"), "{f}");
}

/// `adjc check ARGS` with every parallel copy forced on passes.
fn assert_check_passes(args: &[&str]) {
    let out = common::adjc_parallel_copies(args);
    let t = text(&out);
    assert!(out.status.success() && t.contains("check passed"), "adjc {}\n{t}", args.join(" "));
}

/// A driver that runs `name_b` once on fixed inputs and prints the gradient.
fn gradient_driver(call: &str, decls: &str, print: &str) -> String {
    format!(
        "#include <stdio.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include \"kernel.h\"\n\
         int main(void) {{\n{decls}\n    if ({call} != 0) return 1;\n{print}\n    return 0;\n}}\n"
    )
}

/// Builds `driver` with the generated C (`-fopenmp -DADJC_OMP_MIN_WORK=0` when `openmp`);
/// runs it with `threads`; its output.
fn run(dir: &Path, stem: &str, openmp: bool, threads: usize) -> String {
    let exe = dir.join(if openmp { "omp" } else { "serial" });
    let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cc.args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-include", "stdint.h"]);
    if openmp {
        cc.args(["-fopenmp", "-DADJC_OMP_MIN_WORK=0"]);
    }
    cc.arg(dir.join("driver.c")).arg(dir.join(format!("{stem}.c"))).arg("-I").arg(dir).arg("-o").arg(&exe).arg("-lm");
    let out = cc.output().expect("run cc");
    assert!(out.status.success(), "{}", text(&out));
    let out = Command::new(&exe).env("OMP_NUM_THREADS", threads.to_string()).output().expect("run driver");
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn assert_close(a: &str, b: &str, what: &str) {
    let xs: Vec<f64> = a.split_whitespace().map(|v| v.parse().unwrap()).collect();
    let ys: Vec<f64> = b.split_whitespace().map(|v| v.parse().unwrap()).collect();
    assert_eq!(xs.len(), ys.len(), "{what}");
    assert!(!xs.is_empty(), "{what}");
    for (k, (x, y)) in xs.iter().zip(&ys).enumerate() {
        assert!((x - y).abs() <= 1e-12 * (1.0 + x.abs()), "{what}: element {k}: {x} vs {y}");
    }
}

#[test]
fn hoisted_regions_give_the_serial_gradient_at_2_and_4_threads() {
    let _ = root();
    // jacobi_2d (a time loop, forward and reversed) and cholesky (a region with `single`
    // statements between worksharing loops, and triangular inner loops).
    let cases = [
        (
            "jacobi_2d",
            &["--wrt", "A", "--of", "A"][..],
            "jacobi_2d_b(N, N, 6, A, A_b, B, B_b)",
            "    const int64_t N = 13;\n    double *A = malloc(N * N * 8), *A_b = malloc(N * N * 8), *B = malloc(N * N * 8), *B_b = malloc(N * N * 8);\n    for (int64_t k = 0; k < N * N; k++) { A[k] = (double)((k * 37) % 11) / 7.0; B[k] = 0.5; A_b[k] = 1.0 + (double)(k % 5); B_b[k] = 0.0; }",
            "    for (int64_t k = 0; k < N * N; k++) printf(\"%.17g\\n\", A_b[k]);",
        ),
        (
            "cholesky",
            &["--wrt", "A", "--of", "A"][..],
            "cholesky_b(N, N, A, A_b)",
            "    const int64_t N = 11;\n    double *A = malloc(N * N * 8), *A_b = malloc(N * N * 8);\n    for (int64_t i = 0; i < N; i++) for (int64_t j = 0; j < N; j++) { A[i * N + j] = (i == j ? (double)N : 0.0) + 1.0 / (double)(1 + i + j); A_b[i * N + j] = (double)((i * 7 + j * 3) % 5) - 2.0; }",
            "    for (int64_t k = 0; k < N * N; k++) printf(\"%.17g\\n\", A_b[k]);",
        ),
    ];
    for (example, flags, call, decls, print) in cases {
        let dir = scratch(&format!("omp-threads-{example}"));
        let c = transpile(&dir, example, flags);
        assert!(c.contains("ADJC_OMP(parallel)"), "{example} has a hoisted region");
        std::fs::rename(dir.join(format!("{example}.h")), dir.join("kernel.h")).unwrap();
        let c = c.replace(&format!("#include \"{example}.h\""), "#include \"kernel.h\"");
        std::fs::write(dir.join(format!("{example}.c")), c).unwrap();
        std::fs::write(dir.join("driver.c"), gradient_driver(call, decls, print)).unwrap();
        let serial = run(&dir, example, false, 1);
        for threads in [2, 4] {
            let par = run(&dir, example, true, threads);
            assert_close(&serial, &par, &format!("{example} at {threads} threads"));
        }
    }
}

/// Gram-Schmidt's adjoint adds `-Q[i, k] * A_b[i, j]` into the one element `R_b[k, j]` from
/// every row `i`: a reduction into a scalar (`reduction(+:...)`, per-thread partial sums),
/// not an `omp atomic` per row (autodiff/src/shared_element.rs). The gradient at 3 threads
/// with every parallel copy forced on (a lost or doubled partial sum fails it) and serial.
#[test]
fn shared_element_additions_are_reductions_not_atomics() {
    let dir = scratch("omp-gramschmidt");
    let c = transpile(&dir, "gramschmidt", &["--wrt", "A", "--of", "A"]);
    let adj = function(&c, "gramschmidt_b");
    assert!(!adj.contains("atomic"), "{adj}");
    assert!(adj.contains("ADJC_OMP(for reduction(+:R_b_sum))"), "{adj}");
    assert!(adj.contains("R_b_(k, j) += R_b_sum;"), "{adj}");
    for args in [&["--openmp"][..], &[]] {
        let mut a =
            vec!["check", "examples/python/gramschmidt.py", "--sizes", "A_n0=17,A_n1=9", "--wrt", "A", "--of", "A"];
        a.extend(args);
        assert_check_passes(&a);
    }
}

/// The `for` line of the loop that accumulates `needle` and the line just above it (its
/// pragma, if any), for every such loop in `f`.
fn pragmas_above(f: &str, needle: &str) -> Vec<String> {
    let lines: Vec<&str> = f.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        if l.starts_with(needle) && k >= 2 && lines[k - 1].starts_with("for (") {
            out.push(lines[k - 2].to_string());
        }
    }
    out
}

/// Sums into a scalar are vectorised (`simd reduction`): a sequential loop whose whole body
/// is the sum (durbin's `np.dot` of a flipped slice, forward and adjoint), a 1-D map with a
/// scalar reduction (`for simd`), and the sequential copy of a guarded map or hoisted
/// region, which is what runs at one thread. Without `simd` gcc keeps the strict
/// left-to-right order: one add chain, 4 cycles an element.
#[test]
fn scalar_sums_carry_simd_reductions() {
    let dir = scratch("omp-simd-sums");
    let durbin = transpile(&dir, "durbin", &[]);
    for name in ["durbin", "durbin_b"] {
        let f = function(&durbin, name);
        let above = pragmas_above(f, "dot_r_y += r[k - i - 1] * y[i];");
        assert!(!above.is_empty(), "no dot loop in\n{f}");
        for p in &above {
            assert_eq!(p, "ADJC_OMP(simd reduction(+:dot_r_y))", "{name}:\n{f}");
        }
    }
    // The reverse sweep's `alpha_b += y[k - i - 1] * y_tmp_b[i]`, in one loop with the
    // flipped update `y_b[k - i - 1] += ...` of the same statement (map_fusion): neither a
    // reversed read nor a reversed write is an obstacle to `simd`.
    let b = function(&durbin, "durbin_b");
    let above = pragmas_above(b, "y_b[k - i - 1] += alpha * y_tmp_b[i];");
    // (The step loop is sequential as a whole: `one_thread_loops_over_shared_arrays_stay_sequential`.)
    assert_eq!(above, ["ADJC_OMP(simd reduction(+:alpha_b))"], "{b}");

    let sw = transpile(&dir, "shallow_water", &[]);
    let b = function(&sw, "shallow_water_b");
    let above = pragmas_above(b, "dt_b_acc -= (fu[i + 1] - fu[i - 1]) * (1.0 / (2.0 * dx)) * u_b[i];");
    assert_eq!(
        above,
        ["ADJC_OMP(for simd reduction(+:dt_b_acc, dx_b_acc))", "ADJC_OMP(simd reduction(+:dt_b_acc, dx_b_acc))"],
        "{b}"
    );
    // Loops that are not sums keep no `simd` of their own in the sequential copies.
    let plain = pragmas_above(b, "hu[i] = h[i] * u[i];");
    assert!(plain.iter().all(|p| !p.contains("simd")), "{plain:?}");
}

/// The pragma lines of `f` (trimmed), in order.
fn pragma_lines(f: &str) -> Vec<&str> {
    f.lines().map(str::trim).filter(|l| l.starts_with("ADJC_OMP(")).collect()
}

/// Inside a hoisted region, a worksharing loop that the next one does not depend on drops
/// its barrier (`nowait`, emit/src/nowait.rs): heat_3d's reversed step is two gathers of one
/// interior map and six boundary strips each, all writing disjoint parts of one array and
/// reading another, so a step meets 4 barriers instead of 16. A loop whose successor reads
/// what it wrote keeps its barrier, and the last loop of a group always does. The gradient
/// at 3 threads with every parallel copy forced on is the serial one (a missing barrier
/// shows up there as a wrong gradient).
#[test]
fn independent_worksharing_loops_drop_their_barrier() {
    let dir = scratch("omp-nowait");
    let c = transpile(&dir, "heat_3d", &["--wrt", "A", "--of", "A"]);
    let b = function(&c, "heat_3d_b");
    let pragmas = pragma_lines(b);
    let nowait = pragmas.iter().filter(|p| **p == "ADJC_OMP(for nowait)").count();
    assert_eq!(nowait, 12, "six boundary strips per gather run without a barrier:\n{b}");
    // After a `nowait` loop comes another worksharing loop, never a `single` or the end of
    // the region (the next pragma is the next construct at the same level here).
    for (k, p) in pragmas.iter().enumerate() {
        if p.ends_with("nowait)") {
            let next = pragmas[k + 1..].iter().find(|q| !q.starts_with("ADJC_OMP(simd")).unwrap();
            assert!(next.starts_with("ADJC_OMP(for"), "`{p}` followed by `{next}`:\n{b}");
        }
    }
    // vadv: every map of an interior level reads only what the same iteration `l` of an
    // earlier map wrote (`as_ = gav * BET_M`): with `schedule(static)` on both the same thread
    // owns row `l` in both, so the step needs one barrier, at its end (the next level reads
    // `dcol[:, :, k - 1]`).
    let v = transpile(&dir, "vadv", &[]);
    let f = function(&v, "vadv");
    let lines: Vec<&str> = f.lines().map(str::trim).collect();
    let above = |needle: &str| -> Vec<&str> {
        (0..lines.len()).filter(|&k| lines[k].starts_with(needle)).map(|k| lines[k - 3]).collect()
    };
    assert!(
        above("gav_(l, m) = -0.25 * (wcon_(l + 1, m, k)").contains(&"ADJC_OMP(for schedule(static) nowait)"),
        "{f}"
    );
    assert!(above("dcol_(l, m, k) = dcol_tmp_(l, m);").contains(&"ADJC_OMP(for schedule(static))"), "{f}");
    let start = lines.iter().position(|l| *l == "for (int64_t k = 1; k < K - 1; k++) {").unwrap();
    let step: Vec<&str> = lines[start..].iter().take_while(|l| **l != "} else {").copied().collect();
    let barriers = step.iter().filter(|l| l.starts_with("ADJC_OMP(for") && !l.contains("nowait")).count();
    assert_eq!(barriers, 1, "one barrier per interior level:\n{f}");
    for (example, sizes, flags) in [
        ("heat_3d", "TSTEPS=4,A_n0=9,A_n1=8,A_n2=7", &["--wrt", "A", "--of", "A"][..]),
        ("vadv", "I=5,J=6,K=7,u_stage_n2=7,wcon_n2=8,u_pos_n2=7,utens_n2=7", &[][..]),
        ("jacobi_2d", "A_n0=11,A_n1=11,TSTEPS=5", &["--wrt", "A", "--of", "A"][..]),
    ] {
        let path = format!("examples/python/{example}.py");
        let mut a = vec!["check", path.as_str(), "--sizes", sizes, "--openmp"];
        a.extend(flags);
        let out = common::adjc_parallel_copies(&a);
        let t = text(&out);
        assert!(out.status.success() && t.contains("check passed"), "{example}:\n{t}");
    }
}

/// A time loop whose steps use temporaries (vadv's `gav`, `acol`, ...: arrays the IR
/// allocates inside the loop, the C at the top of the function) still gets one region
/// around it, not a guarded region per map and step.
#[test]
fn temporaries_of_a_step_do_not_stop_the_hoisting() {
    let dir = scratch("omp-alloc-hoist");
    let v = transpile(&dir, "vadv", &[]);
    for name in ["vadv", "vadv_b"] {
        let f = function(&v, name);
        assert_no_unguarded_region_in_loops(f);
        let lines: Vec<&str> = f.lines().map(str::trim).collect();
        let hoisted = (0..lines.len())
            .filter(|&k| lines[k] == "ADJC_OMP(parallel)" && lines[k + 1] == "for (int64_t k = 1; k < K - 1; k++) {")
            .count();
        assert_eq!(hoisted, 1, "{name}: one region around the interior levels' loop:\n{f}");
        // No `single` around nothing (an allocation writes no code there).
        for k in 0..lines.len().saturating_sub(2) {
            assert!(!(lines[k] == "ADJC_OMP(single)" && lines[k + 2] == "}"), "{name}: empty single:\n{f}");
        }
    }
}

/// A map kept sequential inside a parallel one runs in the function OpenMP outlines, where
/// gcc sees every array as a pointer loaded from a struct and versions a short inner loop
/// with run-time alias checks on each entry (lenet's convolution over 6 channels, entered 25
/// times per output pixel: the `-fopenmp` build was 40% slower than the serial one at one
/// thread). Its innermost loop carries `ADJC_OMP(simd)`, in both sweeps. The gradient with
/// every parallel copy forced on, at 3 threads, and serial.
#[test]
fn sequential_maps_inside_parallel_maps_carry_simd() {
    let dir = scratch("omp-nested-simd");
    let c = transpile(&dir, "lenet", &["--wrt", "input", "--of", "ret"]);
    for name in ["lenet5", "lenet5_b"] {
        let f = function(&c, name);
        let above = pragmas_above(f, "conv2d1_output_(k, i, j, l) +=");
        assert!(!above.is_empty(), "no convolution loop in\n{f}");
        for p in &above {
            assert_eq!(p, "ADJC_OMP(simd)", "{name}:\n{f}");
        }
    }
    for args in [&["--openmp"][..], &[]] {
        let mut a = vec![
            "check",
            "examples/python/lenet.py",
            "--sizes",
            "N=2,H=10,W=10,K=3,C1=5,C2=3,F1=5,F2=4,F3=3",
            "--wrt",
            "input",
            "--of",
            "ret",
        ];
        a.extend(args);
        assert_check_passes(&a);
    }
}

/// A scalar assigned and read only inside such a sequential map (batch norm's `sqrt(var +
/// eps)`, recomputed per element in the adjoint) is named `private` on its `simd` loop:
/// without it the loop carried no pragma and gcc versioned it for aliasing again. The
/// gradient with every parallel copy forced on, at 3 threads, and serial.
#[test]
fn scalars_confined_to_a_nested_map_are_simd_private() {
    let dir = scratch("omp-nested-private");
    let c = transpile(&dir, "batchnorm_stats", &[]);
    let f = function(&c, "batchnorm_stats_b");
    let above = pragmas_above(f, "mean_b_(0, j) -= 1.0 / sqrt(");
    assert_eq!(above, vec!["ADJC_OMP(simd private(sqrt_var))".to_string()], "{f}");
    for args in [&["--openmp"][..], &[]] {
        let mut a = vec!["check", "examples/python/batchnorm_stats.py", "--sizes", "N=7,C=37"];
        a.extend(args);
        assert_check_passes(&a);
    }
}

/// A step whose `omp single` part loops over the arrays its worksharing loops split between
/// the threads, with work of the same order (durbin's dot products over all of `y` every
/// step, seidel's row recurrence), gets no region: the arrays' cache lines would move
/// between the cores twice a step (durbin's adjoint was 2.3x slower at 2 threads than at 1,
/// at every size tried). The loop is the sequential copy, with its `simd` reductions, and
/// says why; its gradient is checked in the `-fopenmp` build at 3 threads.
#[test]
fn one_thread_loops_over_shared_arrays_stay_sequential() {
    let dir = scratch("omp-migrating");
    for (example, name) in
        [("durbin", "durbin"), ("durbin", "durbin_b"), ("seidel_2d", "seidel_2d"), ("seidel_2d", "seidel_2d_b")]
    {
        let c = transpile(&dir, example, &[]);
        let f = function(&c, name);
        let lines: Vec<&str> = f.lines().map(str::trim).collect();
        assert!(
            !lines.iter().any(|l| l.starts_with("ADJC_OMP(parallel)") || l.starts_with("ADJC_OMP(for")),
            "{name}:\n{f}"
        );
        assert!(!f.contains("ADJC_OMP_PAYS"), "{name}: no parallel copy:\n{f}");
        assert!(f.contains("their cache lines would move between the cores"), "{name}: says why:\n{f}");
    }
    // A stencil whose step also updates its two boundary points on one thread keeps its region.
    let c = transpile(&dir, "jacobi_1d", &["--wrt", "A", "--of", "A"]);
    assert!(function(&c, "jacobi_1d_b").contains("ADJC_OMP(parallel)"), "{c}");
    assert_check_passes(&[
        "check",
        "examples/python/durbin.py",
        "--sizes",
        "r_n0=40",
        "--init",
        "r=uniform(-0.3,0.3)",
        "--openmp",
    ]);
}

/// The pragma line right above the loop that holds the line starting with `needle`.
fn pragma_above_loop_of<'a>(f: &'a str, needle: &str) -> Option<&'a str> {
    let lines: Vec<&str> = f.lines().map(str::trim).collect();
    let at = lines.iter().position(|l| l.starts_with(needle))?;
    let header = (0..at).rev().find(|&k| lines[k].starts_with("for ("))?;
    (header > 0 && lines[header - 1].starts_with("ADJC_OMP(")).then(|| lines[header - 1])
}

/// The reverse of a product's inner loop updates a scalar sum and array elements at the
/// loop's own position (syrk: `alpha_b += A[j, k] * A[i, k] * C_b[i, j]; A_b[i, k] += ...;
/// A_b[j, k] += ...`): `simd reduction` on the scalar, or the sum keeps the whole loop
/// scalar. Not when two iterations can meet on one element (`x_b[k - 1]` and `x_b[k]`).
#[test]
fn loops_of_updates_at_their_own_position_are_simd() {
    let dir = scratch("omp-update-loops");
    let c = transpile(&dir, "syrk", &[]);
    let b = function(&c, "syrk_b");
    assert_eq!(
        pragma_above_loop_of(b, "alpha_b_acc += A_(j, k) * A_(i, k) * C_b_(i, j);"),
        Some("ADJC_OMP(simd reduction(+:alpha_b_acc))"),
        "{b}"
    );
    std::fs::write(
        dir.join("neighbours.py"),
        "def neighbours(alpha, x: \"float64[N]\"):\n    s = 0.0\n    for k in range(1, x.shape[0]):\n        s = s + alpha * x[k - 1] * x[k]\n    return s\n",
    )
    .unwrap();
    let src = dir.join("neighbours.py");
    let out = adjc(&["transpile", src.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("neighbours.c")).unwrap();
    let b = function(&c, "neighbours_b");
    assert!(b.contains("x_b[k - 1] +=") && b.contains("x_b[k] +="), "{b}");
    assert_eq!(pragma_above_loop_of(b, "alpha_b_acc +="), None, "{b}");
    for args in [&["--openmp"][..], &[]] {
        for (file, sizes) in
            [("examples/python/syrk.py", "C_n0=13,C_n1=13,A_n0=13,A_n1=11"), (src.to_str().unwrap(), "N=23")]
        {
            let mut a = vec!["check", file, "--sizes", sizes];
            a.extend(args);
            assert_check_passes(&a);
        }
    }
}
