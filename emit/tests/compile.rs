//! The generated C compiles warning-free with `-std=c11 -Wall -Wextra -Werror`, with and
//! without OpenMP, and computes the right values.

mod common;

use adjc_emit::CFiles;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const FLAGS: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Werror"];

fn runtime_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c")
}

/// A fresh directory holding `<stem>.c` and `<stem>.h`.
fn write(stem: &str, tag: &str, files: &CFiles) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("emit-{stem}-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    std::fs::write(dir.join(format!("{stem}.c")), &files.c).expect("write .c");
    std::fs::write(dir.join(format!("{stem}.h")), &files.h).expect("write .h");
    dir
}

fn cc(dir: &Path, args: &[&str]) {
    let out = Command::new("cc")
        .current_dir(dir)
        .args(FLAGS)
        .arg("-I")
        .arg(runtime_dir())
        .arg("-I")
        .arg(dir)
        .args(args)
        .output()
        .expect("running cc (gcc is required by these tests)");
    assert!(out.status.success(), "cc {args:?} failed in {}:\n{}", dir.display(), String::from_utf8_lossy(&out.stderr));
}

#[test]
fn every_sample_compiles_with_and_without_openmp() {
    for (stem, m) in all_samples() {
        let files = emit(&m, stem);
        let dir = write(stem, "cc", &files);
        let src = format!("{stem}.c");
        cc(&dir, &["-c", &src, "-o", "plain.o"]);
        cc(&dir, &["-fopenmp", "-c", &src, "-o", "omp.o"]);
        // Optimisation enables more flow-based warnings (-Wmaybe-uninitialized, ...).
        cc(&dir, &["-O2", "-fopenmp", "-c", &src, "-o", "omp2.o"]);
        cc(&dir, &["-O2", "-c", &src, "-o", "plain2.o"]);
        // The memory counters of `adjc bench` (runtime built with ADJC_STATS).
        cc(&dir, &["-O2", "-fopenmp", "-DADJC_STATS", "-c", &src, "-o", "stats.o"]);
    }
}

#[test]
fn headers_are_valid_cplusplus() {
    for (stem, m) in all_samples() {
        let files = emit(&m, stem);
        let dir = write(stem, "cxx", &files);
        std::fs::write(dir.join("use.cpp"), format!("#include \"{stem}.h\"\nint main() {{ return ADJC_OK; }}\n"))
            .expect("write");
        let out = Command::new("g++")
            .current_dir(&dir)
            .args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "use.cpp"])
            .output()
            .expect("running g++");
        assert!(out.status.success(), "{stem}.h as C++:\n{}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Builds `main` with the generated file (optionally with OpenMP, run on 3 threads) and
/// returns what it prints. `main` exits non-zero on a failed check.
fn run(stem: &str, files: &CFiles, main: &str, openmp: bool) -> String {
    run_with(stem, files, main, openmp, &[])
}

fn run_with(stem: &str, files: &CFiles, main: &str, openmp: bool, extra: &[&str]) -> String {
    let tag = format!("run{}{}", if openmp { "-omp" } else { "" }, extra.join(""));
    let dir = write(stem, &tag, files);
    std::fs::write(dir.join("main.c"), main).expect("write main.c");
    let src = format!("{stem}.c");
    let mut args = vec!["-O1", "main.c", src.as_str(), "-o", "main", "-lm"];
    if openmp {
        args.insert(0, "-fopenmp");
    }
    args.extend_from_slice(extra);
    cc(&dir, &args);
    let out = Command::new(dir.join("main")).env("OMP_NUM_THREADS", "3").output().expect("run main");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{stem} main failed ({openmp}):\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

fn run_both(stem: &str, m: &adjc_ir::Module, main: &str) {
    let files = emit(m, stem);
    for openmp in [false, true] {
        let out = run(stem, &files, main, openmp);
        assert!(out.contains("ok"), "{stem}: {out}");
    }
}

const CHECK: &str = r#"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
static int failures = 0;
static void check(const char *what, double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol * (1.0 + fabs(want)))) {
        printf("%s: got %.17g, want %.17g\n", what, got, want);
        failures++;
    }
}
"#;

#[test]
fn jacobi_1d_matches_a_reference_loop() {
    let main = format!(
        r#"{CHECK}
#include "jacobi_1d.h"
int main(void)
{{
    enum {{ N = 37, T = 6 }};
    double A[N], B[N], RA[N], RB[N];
    for (int i = 0; i < N; i++) {{
        A[i] = RA[i] = (double)(i * i % 7) + 0.5;
        B[i] = RB[i] = 0.0;
    }}
    for (int t = 1; t < T; t++) {{
        for (int i = 1; i < N - 1; i++) RB[i] = 0.33333 * (RA[i - 1] + RA[i] + RA[i + 1]);
        for (int i = 1; i < N - 1; i++) RA[i] = 0.33333 * (RB[i - 1] + RB[i] + RB[i + 1]);
    }}
    if (jacobi_1d(N, T, A, B) != ADJC_OK) return 1;
    for (int i = 0; i < N; i++) {{
        check("A", A[i], RA[i], 0.0);
        check("B", B[i], RB[i], 0.0);
    }}
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("jacobi_1d", &jacobi_1d(), &main);
}

#[test]
fn heat_2d_stencil_uses_row_major_macros() {
    let main = format!(
        r#"{CHECK}
#include "heat.h"
int main(void)
{{
    enum {{ N = 9, M = 13 }};
    double A[N * M], B[N * M];
    for (int k = 0; k < N * M; k++) {{ A[k] = (double)(k % 11); B[k] = -1.0; }}
    if (heat(N, M, A, B) != ADJC_OK) return 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {{
            double want = -1.0;
            if (i > 0 && i < N - 1 && j > 0 && j < M - 1)
                want = 0.2 * (A[i * M + j] + A[(i - 1) * M + j] + A[(i + 1) * M + j] + A[i * M + j - 1] + A[i * M + j + 1]);
            check("B", B[i * M + j], want, 0.0);
        }}
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("heat", &heat_2d(), &main);
}

#[test]
fn reductions_and_atomic_out_scalar() {
    let main = format!(
        r#"{CHECK}
#include "reduce.h"
int main(void)
{{
    enum {{ N = 1000 }};
    double A[N], s = 0.0, m = -INFINITY, sum = 0.0;
    for (int i = 0; i < N; i++) {{
        A[i] = sin(0.1 * i) * 10.0;
        s += A[i] * 1.5;
        sum += A[i];
        if (A[i] > m) m = A[i];
    }}
    double ret = 123.0;
    if (reduce(N, A, 1.5, &ret) != ADJC_OK) return 1;
    check("ret", ret, -sum + (s + m), 1e-12);
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("reduce", &reduce(), &main);
}

#[test]
fn adjoint_with_allocated_tape_matches_finite_differences() {
    // d/dA of A <- sin(A) * A applied T times, elementwise.
    let main = format!(
        r#"{CHECK}
#include "kern_b.h"
static double forward(double a, int T) {{ for (int t = 0; t < T; t++) a = sin(a) * a; return a; }}
int main(void)
{{
    enum {{ N = 8, T = 4 }};
    double A[N], A_b[N], A0[N];
    for (int i = 0; i < N; i++) {{ A[i] = A0[i] = 0.3 + 0.2 * i; A_b[i] = 1.0; }}
    if (kern_b(N, T, A, A_b) != ADJC_OK) return 1;
    for (int i = 0; i < N; i++) {{
        double h = 1e-6;
        double fd = (forward(A0[i] + h, T) - forward(A0[i] - h, T)) / (2 * h);
        check("A_b", A_b[i], fd, 1e-6);
        check("A", A[i], forward(A0[i], T), 1e-15);
    }}
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("kern_b", &kern_b(), &main);
}

#[test]
fn scattered_adjoint_accumulations_are_atomic() {
    let main = format!(
        r#"{CHECK}
#include "smooth_b.h"
int main(void)
{{
    enum {{ N = 5000 }};
    static double A[N], A_b[N], B[N], B_b[N];
    for (int i = 0; i < N; i++) {{ A[i] = i; A_b[i] = 0.0; B[i] = 0.0; B_b[i] = 1.0; }}
    if (smooth_b(N, A, A_b, B, B_b) != ADJC_OK) return 1;
    for (int i = 0; i < N; i++) {{
        double want = 0.0;
        if (i - 1 >= 1 && i - 1 < N - 1) want += 0.5;
        if (i + 1 >= 1 && i + 1 < N - 1) want += 0.5;
        check("A_b", A_b[i], want, 0.0);
        check("B_b", B_b[i], (i >= 1 && i < N - 1) ? 0.0 : 1.0, 0.0);
        if (i >= 1 && i < N - 1) check("B", B[i], 0.5 * (A[i - 1] + A[i + 1]), 0.0);
    }}
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("smooth_b", &smooth_b(), &main);
}

#[test]
fn stack_tapes_push_and_pop_in_order() {
    let main = format!(
        r#"{CHECK}
#include "clip_b.h"
int main(void)
{{
    enum {{ N = 9000 }};
    static double x[N], x_b[N];
    double lo = 0.25, lo_b = 0.5;
    int clipped = 0;
    for (int i = 0; i < N; i++) {{ x[i] = sin(i * 0.7); x_b[i] = 1.0; clipped += x[i] < lo; }}
    if (clip_b(N, x, x_b, lo, &lo_b) != ADJC_OK) return 1;
    check("lo_b", lo_b, 0.5 + clipped, 0.0);
    for (int i = 0; i < N; i++) {{
        int c = sin(i * 0.7) < lo;
        check("x", x[i], c ? lo : sin(i * 0.7), 0.0);
        check("x_b", x_b[i], c ? 0.0 : 1.0, 0.0);
    }}
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("clip_b", &clip_b(), &main);

    let main = format!(
        r#"{CHECK}
#include "reverse_copy.h"
int main(void)
{{
    enum {{ N = 3000 }};
    static double x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = i;
    if (reverse_copy(N, x, y) != ADJC_OK) return 1;
    for (int i = 0; i < N; i++) check("y", y[i], N - 1 - i, 0.0);
    if (reverse_copy(0, x, y) != ADJC_OK) return 1;
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("reverse_copy", &reverse_copy(), &main);
}

#[test]
fn float32_softmax_with_temporary() {
    let main = format!(
        r#"{CHECK}
#include "softmax.h"
int main(void)
{{
    enum {{ N = 100 }};
    float x[N], y[N];
    for (int i = 0; i < N; i++) x[i] = (float)(i % 13) * 0.5f;
    if (softmax(N, x, y) != ADJC_OK) return 1;
    double total = 0.0, m = 6.0, z = 0.0;
    for (int i = 0; i < N; i++) z += exp(x[i] - m);
    for (int i = 0; i < N; i++) {{ total += y[i]; check("y", y[i], exp(x[i] - m) / z, 1e-5); }}
    check("sum", total, 1.0, 1e-5);
    /* Empty input: the work array is still allocated (1 byte) and nothing is touched. */
    if (softmax(0, x, y) != ADJC_OK) return 1;
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("softmax", &softmax(), &main);
}

#[test]
fn fortran_layout_symbolic_step_and_integer_helpers() {
    let main = format!(
        r#"{CHECK}
#include "fort.h"
static long pymod(long a, long b) {{ long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }}
static long pyfloordiv(long a, long b) {{ return (a - pymod(a, b)) / b; }}
int main(void)
{{
    enum {{ n = 7, m = 3 }};
    double a[n + 3], c[n * m], a0[n + 3];
    for (int k = 0; k < n + 3; k++) a[k] = a0[k] = (k % 3) - 1.0;  /* a(-1..n+1) */
    for (int k = 0; k < n * m; k++) c[k] = 99.0;
    if (fort(n, m, -2, a, c) != ADJC_OK) return 1;
    /* c(i, j), column-major, 1-based: merge(1, -1, a(i) > 0) * sign(2, a(i - 1)) */
    for (int j = 1; j <= m; j++)
        for (int i = 1; i <= n; i++) {{
            double ai = a0[i + 1], aim1 = a0[i];
            double want = (ai > 0 ? 1.0 : -1.0) * copysign(2.0, aim1);
            check("c", c[(j - 1) * n + (i - 1)], want, 0.0);
        }}
    /* do i = n, 0, -2 */
    for (long i = -1; i <= n + 1; i++) {{
        double want = a0[i + 1];
        if (i <= n && i > 0 && (n - i) % 2 == 0)
            want += (double)(pymod(i, 3) + i / 2 + labs(i - m) + (i > m ? i : m) + pyfloordiv(i, -2));
        check("a", a[i + 1], want, 0.0);
    }}
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("fort", &fort(), &main);
}

#[test]
fn reduction_kinds_axis_sums_and_nested_maps() {
    let main = format!(
        r#"{CHECK}
#include "stats.h"
int main(void)
{{
    enum {{ N = 40, M = 30 }};
    static double A[N * M], colmax[M], rowsum[N], B[N * M];
    for (int k = 0; k < N * M; k++) A[k] = cos(0.37 * k) - 0.99;
    for (int j = 0; j < M; j++) colmax[j] = -INFINITY;
    bool any = false;
    double ret = 0.0, p = 1.0, q = 0.0;
    for (int i = 0; i < N; i++) {{ p *= A[i * M]; q += A[i * M]; }}
    if (stats(N, M, A, colmax, rowsum, B, &any, &ret) != ADJC_OK) return 1;
    int want_any = 0;
    for (int i = 0; i < N; i++) {{
        double r = 0.0;
        for (int j = 0; j < M; j++) {{
            r += A[i * M + j];
            want_any |= A[i * M + j] > 0.0;
            check("B", B[i * M + j], A[i * M + j] * (p + q), 1e-12);
        }}
        check("rowsum", rowsum[i], r, 1e-15);
    }}
    for (int j = 0; j < M; j++) {{
        double mx = -INFINITY;
        for (int i = 0; i < N; i++) mx = fmax(mx, A[i * M + j]);
        check("colmax", colmax[j], mx, 0.0);
    }}
    check("any", any, want_any, 0.0);
    check("ret", ret, p + q, 1e-12);
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("stats", &stats(), &main);
}

#[test]
fn private_shadows_reductions_in_sequential_maps_and_hoisted_steps() {
    let main = format!(
        r#"{CHECK}
#include "scopes.h"
int main(void)
{{
    enum {{ N = 6 }};
    double A[N], R[N], sum = 0.0;
    for (int i = 0; i < N; i++) {{ A[i] = R[i] = 0.1 * (i + 1); sum += A[i]; }}
    for (int i = 0; i < N; i++) {{
        double t = R[i], u = 0.0;
        for (int j = 0; j < N; j++) u += R[j] * t;
        R[i] = u;
    }}
    double ret0 = -1.0;
    int64_t ret1 = -1;
    if (scopes(N, A, &ret0, &ret1) != ADJC_OK) return 1;
    for (int i = 0; i < N; i++) check("A", A[i], R[i], 1e-14);
    check("ret0", ret0, sum, 1e-14);
    check("ret1", (double)ret1, 10.0, 0.0);
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("scopes", &scopes(), &main);
}

/// With -DADJC_STATS the runtime counts tape arrays, stack-tape bytes and work arrays of a
/// call exactly; `adjc bench` reports these numbers.
#[test]
fn stats_build_counts_tape_and_stack_bytes() {
    let main = format!(
        r#"{CHECK}
#include "kern_b.h"
#include "adjc_runtime.h"
ADJC_STATS_DEFINE
int main(void)
{{
    enum {{ N = 8, T = 4 }};
    double A[N], A_b[N];
    for (int i = 0; i < N; i++) {{ A[i] = 0.3 + 0.2 * i; A_b[i] = 1.0; }}
    memset(&adjc_stats, 0, sizeof adjc_stats);
    if (kern_b(N, T, A, A_b) != ADJC_OK) return 1;
    check("tape arrays", (double)adjc_stats.tape_array_bytes, N * T * 8.0, 0.0);
    check("tape peak", (double)adjc_stats.tape_peak, N * T * 8.0, 0.0);
    check("work", (double)adjc_stats.work_bytes, 0.0, 0.0);
    check("stack", (double)adjc_stats.stack_peak, 0.0, 0.0);
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    let files = emit(&kern_b(), "kern_b");
    for openmp in [false, true] {
        assert!(run_with("kern_b", &files, &main, openmp, &["-DADJC_STATS"]).contains("ok"));
    }

    let main = format!(
        r#"{CHECK}
#include "clip_b.h"
#include "adjc_runtime.h"
ADJC_STATS_DEFINE
int main(void)
{{
    enum {{ N = 9000 }};
    static double x[N], x_b[N];
    double lo = 0.25, lo_b = 0.5;
    for (int i = 0; i < N; i++) {{ x[i] = sin(i * 0.7); x_b[i] = 1.0; }}
    memset(&adjc_stats, 0, sizeof adjc_stats);
    if (clip_b(N, x, x_b, lo, &lo_b) != ADJC_OK) return 1;
    /* One bool pushed per element, all popped again. */
    check("stack peak", (double)adjc_stats.stack_peak, N * (double)sizeof(bool), 0.0);
    check("tape peak", (double)adjc_stats.tape_peak, N * (double)sizeof(bool), 0.0);
    check("stack now", (double)adjc_stats.stack_bytes, 0.0, 0.0);
    check("tape arrays", (double)adjc_stats.tape_array_bytes, 0.0, 0.0);
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    let files = emit(&clip_b(), "clip_b");
    for openmp in [false, true] {
        assert!(run_with("clip_b", &files, &main, openmp, &["-DADJC_STATS"]).contains("ok"));
    }
}

const BLAS_MAIN: &str = r#"
#include "blas.h"
int main(void)
{
    enum { N = 5, K = 4, M = 3 };
    double A[N * K], B[M * K], C[N * M], D[N * N], x[K], y[N], ry[N], s = 0.0;
    for (int i = 0; i < N * K; i++) A[i] = (double)((i * 7) % 11) - 4.5;
    for (int i = 0; i < M * K; i++) B[i] = (double)((i * 5) % 7) * 0.25 - 0.5;
    for (int i = 0; i < K; i++) x[i] = 1.0 + 0.5 * i;
    for (int i = 0; i < N; i++) y[i] = ry[i] = 0.1 * i - 0.2;
    for (int i = 0; i < N * M; i++) C[i] = 99.0;
    if (blas(N, K, M, A, B, C, D, x, y, &s) != ADJC_OK) return 1;
    for (int i = 0; i < N; i++) {
        double t = 0.0;
        for (int p = 0; p < K; p++) t += A[i * K + p] * x[p];
        ry[i] = 2.0 * t + 0.5 * ry[i];
        check("y", y[i], ry[i], 1e-12);
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++) {
            double t = 0.0;
            for (int p = 0; p < K; p++) t += A[i * K + p] * B[j * K + p];
            check("C", C[i * M + j], t + ry[i] * B[j], 1e-12);
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double t = 0.0;
            for (int p = 0; p < K; p++) t += A[i * K + p] * A[j * K + p];
            check("D (column-major)", D[i + j * N], t, 1e-12);
        }
    double t = 0.0;
    for (int p = 0; p < K; p++) t += A[K + p] * x[p];
    check("s", s, t, 1e-12);
    if (failures) return 1;
    printf("ok\n");
    return 0;
}
"#;

#[test]
fn blas_calls_compute_the_products_with_the_fallback() {
    run_both("blas", &blas(), &format!("{CHECK}{BLAS_MAIN}"));
    let files = emit(&blas(), "blas");
    let out = run_with("blas", &files, &format!("{CHECK}{BLAS_MAIN}"), true, &["-DADJC_BLAS=none"]);
    assert!(out.contains("ok"), "{out}");
}

/// A dot product into a scalar local that nothing reads is declared all the same (it was
/// used undeclared: the C did not compile), and one inside a parallel map is declared in
/// the map's body, private to each iteration (declared at the function's top, it would be
/// shared by the threads: a data race).
#[test]
fn dot_products_into_scalar_locals_are_declared_where_written() {
    let files = emit(&dots(), "dots");
    let c = &files.c;
    let top = c.find("double s = 0.0;").unwrap_or_else(|| panic!("`s` is not declared:\n{c}"));
    let call = c.find("s = cblas_ddot(").unwrap_or_else(|| panic!("{c}"));
    assert!(top < call, "{c}");
    let loop_start = c.find("for (int64_t i = 0; i < N; i++) {").unwrap_or_else(|| panic!("{c}"));
    let private = c.find("double t = 0.0;").unwrap_or_else(|| panic!("`t` is not declared:\n{c}"));
    assert!(loop_start < private, "`t` must be declared inside the parallel loop:\n{c}");
    assert_eq!(c.matches("double t = ").count(), 1, "{c}");
    let main = format!(
        r#"{CHECK}
#include "dots.h"
int main(void)
{{
    enum {{ N = 2000, M = 7 }};
    static double A[N * M], x[M], y[N];
    for (int k = 0; k < N * M; k++) A[k] = sin(0.37 * k);
    for (int p = 0; p < M; p++) x[p] = 0.5 + 0.1 * p;
    if (dots(N, M, A, x, y) != ADJC_OK) return 1;
    for (int i = 0; i < N; i++) {{
        double t = 0.0;
        for (int p = 0; p < M; p++) t += A[i * M + p] * x[p];
        check("y", y[i], t * t, 1e-12);
    }}
    if (failures) return 1;
    printf("ok\n");
    return 0;
}}
"#
    );
    run_both("dots", &dots(), &main);
}

/// With OpenBLAS when it is installed (CI installs `libopenblas-dev`).
#[test]
fn blas_calls_compute_the_products_with_openblas() {
    if !Path::new("/usr/include/cblas.h").exists() && !Path::new("/usr/include/x86_64-linux-gnu/cblas.h").exists() {
        eprintln!("skipped: no cblas.h (install libopenblas-dev)");
        return;
    }
    let files = emit(&blas(), "blas");
    for openmp in [false, true] {
        let out =
            run_with("blas", &files, &format!("{CHECK}{BLAS_MAIN}"), openmp, &["-DADJC_BLAS=cblas", "-lopenblas"]);
        assert!(out.contains("ok"), "{out}");
    }
}

const RUNTIME_SIZES_MAIN: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "adjc_runtime.h"
static int failures = 0;
#define EXPECT(c) do { if (!(c)) { printf("line %d: %s\n", __LINE__, #c); failures++; } } while (0)

static uint64_t seed = 88172645463325252u;
static uint64_t rnd(void) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed; }

int main(void)
{
    /* Sizes: products checked, extents <= 0 empty, overflow SIZE_MAX. */
    EXPECT(adjc_size(sizeof(double), ADJC_DIMS(3, 4)) == 96);
    EXPECT(adjc_size(sizeof(double), ADJC_DIMS(7)) == 56);
    EXPECT(adjc_size(sizeof(double), ADJC_DIMS(-1, 5)) == 0);
    EXPECT(adjc_size(sizeof(double), ADJC_DIMS(INT64_MAX, 0)) == 0);
    EXPECT(adjc_size(sizeof(double), ADJC_DIMS(INT64_MIN)) == 0);
    EXPECT(adjc_size(sizeof(double), ADJC_DIMS((int64_t)1 << 62, 22)) == SIZE_MAX);
    EXPECT(adjc_size(sizeof(double), ADJC_DIMS((int64_t)1 << 60)) == SIZE_MAX);
    EXPECT(adjc_size(2, ADJC_DIMS(INT64_MAX)) == SIZE_MAX);
    EXPECT(adjc_size(1, ADJC_DIMS(INT64_MAX, 2)) == SIZE_MAX);
    EXPECT(adjc_size(1, ADJC_DIMS((int64_t)1 << 32, (int64_t)1 << 32)) == SIZE_MAX);
    EXPECT(adjc_size(sizeof(double), ADJC_DIMS((int64_t)1 << 20, (int64_t)1 << 20)) == (size_t)1 << 43);
    EXPECT(adjc_alloc(sizeof(double), ADJC_DIMS((int64_t)1 << 62, 3)) == NULL);
    void *empty = adjc_alloc_tape(sizeof(double), ADJC_DIMS(5, -3));
    EXPECT(empty != NULL);
    adjc_free(empty);
    EXPECT(adjc_mul_fits(3037000499, 3037000499));
    EXPECT(!adjc_mul_fits(3037000500, 3037000500));
    EXPECT(adjc_mul_fits(-((int64_t)1 << 62), 2));
    EXPECT(!adjc_mul_fits((int64_t)1 << 62, 2));
    EXPECT(!adjc_mul_fits(INT64_MIN, -1));
    EXPECT(!adjc_mul_fits(-1, INT64_MIN));
    EXPECT(adjc_mul_fits(INT64_MIN, 1) && adjc_mul_fits(0, INT64_MIN) && adjc_mul_fits(-5, -7));
    EXPECT(!adjc_mul_fits(-((int64_t)1 << 32), (int64_t)1 << 32) && !adjc_mul_fits(INT64_MAX, -2));

    /* Arena: arrays alive at the same time never share bytes, places are aligned, and with
     * equal sizes the block is exactly the most bytes alive at once. */
    enum { N = 14 };
    for (int trial = 0; trial < 3000; trial++) {
        size_t bytes[N], at[N];
        int32_t life[N][3];
        int equal = trial % 3 == 0;
        int32_t ev = 0;
        for (int k = 0; k < N; k++) {
            ev += (int32_t)(rnd() % 3);
            life[k][0] = ev++;
            life[k][1] = rnd() % 5 == 0 ? INT32_MAX : life[k][0] + 1 + (int32_t)(rnd() % 20);
            size_t unit = (size_t[]){1, 4, 8, 8}[rnd() % 4];
            life[k][2] = (int32_t)unit;
            bytes[k] = equal ? 64 : unit * (rnd() % 7 == 0 ? 0 : 1 + rnd() % 40);
        }
        unsigned char *arena = adjc_arena_reserve(N, bytes, (const int32_t (*)[3])life, at);
        EXPECT(arena != NULL);
        size_t total = 0, peak = 0;
        for (int k = 0; k < N; k++) {
            EXPECT(at[k] % (size_t)life[k][2] == 0);
            if (at[k] + bytes[k] > total) total = at[k] + bytes[k];
            size_t alive = 0;
            for (int j = 0; j < N; j++) {
                int overlap = life[j][0] <= life[k][0] && life[k][0] <= life[j][1];
                if (overlap) alive += bytes[j];
                if (j != k && bytes[j] && bytes[k] && life[j][0] <= life[k][1] && life[k][0] <= life[j][1]) {
                    EXPECT(at[j] + bytes[j] <= at[k] || at[k] + bytes[k] <= at[j]);
                }
            }
            if (alive > peak) peak = alive;
        }
        EXPECT(total >= peak);
        if (equal) EXPECT(total == peak);
        memset(arena, 0xab, total);
        adjc_free(arena);
        if (failures) { printf("trial %d\n", trial); break; }
    }
    size_t huge[2] = {SIZE_MAX, 8}, at2[2];
    const int32_t life2[2][3] = {{0, 1, 8}, {1, 2, 8}};
    EXPECT(adjc_arena_reserve(2, huge, life2, at2) == NULL);
    if (failures) return 1;
    printf("ok\n");
    return 0;
}
"#;

/// The runtime's checked sizes and the arena of memory plans, with the compiler's overflow
/// builtins and with the portable fallback (ADJC_NO_BUILTINS), under the sanitizers.
#[test]
fn runtime_sizes_are_checked_and_arena_places_never_overlap() {
    let files = emit(&jacobi_1d(), "jacobi_1d");
    for extra in [&[][..], &["-DADJC_NO_BUILTINS"], &["-DADJC_NO_BUILTINS", "-fsanitize=address,undefined"]] {
        let out = run_with("jacobi_1d", &files, RUNTIME_SIZES_MAIN, false, extra);
        assert!(out.contains("ok"), "{extra:?}: {out}");
    }
}

const BLOCK_CACHE_MAIN: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "adjc_runtime.h"
#ifdef ADJC_STATS
ADJC_STATS_DEFINE
#endif
static int failures = 0;
#define EXPECT(c) do { if (!(c)) { printf("line %d: %s\n", __LINE__, #c); failures++; } } while (0)

/* Every malloc of the program, counted (-Wl,--wrap=malloc). */
void *__real_malloc(size_t n);
static long mallocs = 0;
void *__wrap_malloc(size_t n) { mallocs++; return __real_malloc(n); }

/* How many mallocs an adjc_malloc of `bytes` made, the block freed again before returning;
 * the block is written first (a block handed out is the caller's). */
static long mallocs_for(size_t bytes)
{
    long before = mallocs;
    unsigned char *p = adjc_malloc(bytes);
    EXPECT(p != NULL);
    memset(p, 0x5a, bytes);
    adjc_free(p);
    return mallocs - before;
}

int main(void)
{
    const long cached = ADJC_BLOCK_CACHE_BYTES > 0;
    const size_t MiB = (size_t)1 << 20;
    /* A large block freed is handed out again: the second call mallocs nothing. */
    EXPECT(mallocs_for(MiB) == 1);
    EXPECT(mallocs_for(MiB) == 1 - cached);
    /* Any size up to the block's, down to half of it; not a larger one, not a much smaller. */
    EXPECT(mallocs_for(MiB - 4096) == 1 - cached);
    EXPECT(mallocs_for(MiB / 2) == 1 - cached);
    EXPECT(mallocs_for(MiB / 2 - 1) == 1);
    EXPECT(mallocs_for(MiB + 1) == 1);
    /* Small blocks are never kept: malloc serves them well. */
    EXPECT(mallocs_for(1024) == 1);
    EXPECT(mallocs_for(1024) == 1);
    /* Blocks alive together are distinct, and each comes back. */
    unsigned char *a = adjc_malloc(3 * MiB), *b = adjc_malloc(3 * MiB);
    EXPECT(a != NULL && b != NULL && a != b);
    memset(a, 1, 3 * MiB);
    memset(b, 2, 3 * MiB);
    EXPECT(a[3 * MiB - 1] == 1 && b[0] == 2);
    adjc_free(a);
    adjc_free(b);
    long before = mallocs;
    a = adjc_malloc(3 * MiB);
    b = adjc_malloc(3 * MiB);
    EXPECT(mallocs - before == 2 - 2 * cached);
    adjc_free(b);
    adjc_free(a);
    /* The kept blocks hold at most ADJC_BLOCK_CACHE_BYTES: a block larger than that is freed. */
    EXPECT(mallocs_for(ADJC_BLOCK_CACHE_BYTES + MiB) == 1);
    EXPECT(mallocs_for(ADJC_BLOCK_CACHE_BYTES + MiB) == 1);
    /* Realloc'd tape blocks keep working through the cache. */
    unsigned char *t = adjc_realloc(NULL, MiB);
    EXPECT(t != NULL);
    t = adjc_realloc(t, 5 * MiB);
    EXPECT(t != NULL);
    t[5 * MiB - 1] = 7;
    adjc_free(t);
    EXPECT(mallocs_for(5 * MiB) == 1 - cached);
#ifdef ADJC_STATS
    /* Statistics count what the caller holds, not the kept blocks. */
    EXPECT(adjc_stats.live_bytes == 0);
#endif
    if (failures) return 1;
    printf("ok (cache %s)\n", cached ? "on" : "off");
    return 0;
}
"#;

/// The runtime keeps large freed blocks for the next call (no fresh pages to fault per
/// call), only blocks of a fitting size, within its byte bound; `-DADJC_BLOCK_CACHE_BYTES=0`
/// turns it off, and so does AddressSanitizer. Counted with a wrapped malloc, with and without
/// OpenMP and statistics.
#[test]
fn runtime_block_cache_reuses_large_blocks_within_its_bound() {
    let files = emit(&jacobi_1d(), "jacobi_1d");
    let wrap = "-Wl,--wrap=malloc";
    for (openmp, extra, on) in [
        (false, &[wrap][..], true),
        (true, &[wrap][..], true),
        (false, &[wrap, "-DADJC_STATS"][..], true),
        (false, &[wrap, "-DADJC_BLOCK_CACHE_BYTES=0"][..], false),
        // Off under AddressSanitizer: a reused block would hide a use after free.
        (false, &[wrap, "-fsanitize=address"][..], false),
    ] {
        let out = run_with("jacobi_1d", &files, BLOCK_CACHE_MAIN, openmp, extra);
        let want = if on { "ok (cache on)" } else { "ok (cache off)" };
        assert!(out.contains(want), "{openmp} {extra:?}: {out}");
    }
}
