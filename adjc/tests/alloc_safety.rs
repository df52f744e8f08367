//! Allocation failures never leave the caller's arrays half written (issue 10): sizes whose
//! arithmetic overflows return ADJC_ERR_ALLOC before anything is written, and so does a
//! `malloc` that fails, with or without a memory plan (whose arrays come from one block
//! reserved on entry). The generated C is compiled and run; normal sizes also run under
//! AddressSanitizer when the compiler has it.

mod common;

use common::{adjc, scratch, text};
use std::path::Path;
use std::process::Command;

fn transpile(example: &str, dir: &Path, extra: &[&str]) {
    let out = dir.to_str().unwrap();
    let mut args = vec!["transpile", example, "-o", out];
    args.extend(extra);
    let o = adjc(&args);
    assert!(o.status.success(), "{}", text(&o));
}

/// Compiles `driver.c` with the generated `stem.c`; runs it; its output.
fn build_and_run(dir: &Path, stem: &str, driver: &str, flags: &[&str]) -> Result<String, String> {
    std::fs::write(dir.join("driver.c"), driver).unwrap();
    let exe = dir.join(format!("driver{}", flags.join("").replace(['-', '=', ','], "_")));
    let o = Command::new("cc")
        .current_dir(dir)
        .args(["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-I."])
        .args(flags)
        .args(["driver.c", &format!("{stem}.c"), "-o"])
        .arg(&exe)
        .arg("-lm")
        .output()
        .expect("run cc");
    if !o.status.success() {
        return Err(format!("cc {flags:?}: {}", text(&o)));
    }
    let r = Command::new(&exe).current_dir(dir).output().expect("run driver");
    let t = text(&r);
    if !r.status.success() || !t.contains("all ok") {
        return Err(format!("driver {flags:?} failed ({:?}):\n{t}", r.status));
    }
    Ok(t)
}

/// Whether `cc -fsanitize=address` builds and runs programs here.
fn asan_works(dir: &Path) -> bool {
    std::fs::write(dir.join("asan_probe.c"), "int main(void) { return 0; }\n").unwrap();
    let exe = dir.join("asan_probe");
    let built = Command::new("cc")
        .current_dir(dir)
        .args(["-fsanitize=address", "asan_probe.c", "-o"])
        .arg(&exe)
        .status()
        .is_ok_and(|s| s.success());
    built && Command::new(&exe).status().is_ok_and(|s| s.success())
}

const OVERFLOW_DRIVER: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "reaction_diffusion.h"

enum { CAP = 64 };
static double u[CAP], u_b[CAP], v[CAP], v_b[CAP];
static double u0[CAP], u_b0[CAP], v0[CAP], v_b0[CAP];

static void fill(void)
{
    for (int i = 0; i < CAP; i++) {
        u[i] = u0[i] = 0.5 + 0.01 * i;
        v[i] = v0[i] = 0.25 - 0.005 * i;
        u_b[i] = u_b0[i] = 1.0 + i;
        v_b[i] = v_b0[i] = -2.0 + i;
    }
}

static int untouched(void)
{
    return !memcmp(u, u0, sizeof u) && !memcmp(u_b, u_b0, sizeof u_b) && !memcmp(v, v0, sizeof v)
           && !memcmp(v_b, v_b0, sizeof v_b);
}

int main(void)
{
    /* Sizes whose tape (TSTEPS x (u_n0 - 2) doubles) or arrays overflow: refused, nothing written. */
    const int64_t huge[][2] = {
        {24, (int64_t)1 << 62}, {24, INT64_MAX}, {3, (int64_t)1 << 61}, {(int64_t)1 << 61, 3},
        {INT64_MAX, 2}, {(int64_t)1 << 33, (int64_t)1 << 33},
    };
    int bad = 0;
    for (size_t k = 0; k < sizeof huge / sizeof huge[0]; k++) {
        fill();
        int r = reaction_diffusion_b(huge[k][0], huge[k][1], u, u_b, v, v_b);
        if (r != ADJC_ERR_ALLOC || !untouched()) {
            printf("u_n0=%lld TSTEPS=%lld: returned %d, arrays %s\n", (long long)huge[k][0],
                   (long long)huge[k][1], r, untouched() ? "untouched" : "WRITTEN");
            bad = 1;
        }
    }
    /* Negative extents (u_n0 - 2 < 0) are empty arrays, and normal sizes work. */
    const int64_t fine[][2] = {{1, 5}, {0, 3}, {2, 4}, {24, 6}, {CAP, 9}};
    for (size_t k = 0; k < sizeof fine / sizeof fine[0]; k++) {
        fill();
        int r = reaction_diffusion_b(fine[k][0], fine[k][1], u, u_b, v, v_b);
        if (r != ADJC_OK) {
            printf("u_n0=%lld TSTEPS=%lld: returned %d\n", (long long)fine[k][0], (long long)fine[k][1], r);
            bad = 1;
        }
    }
    if (!bad) {
        printf("all ok\n");
    }
    return bad;
}
"#;

/// T = 2^62 made `max(0,T) * max(0,n - 2)` wrap to a negative count, allocated as an empty
/// array the time loop then wrote past.
#[test]
fn sizes_whose_arithmetic_overflows_return_err_alloc_and_write_nothing() {
    let dir = scratch("alloc-overflow");
    transpile("examples/python/reaction_diffusion.py", &dir, &[]);
    let c = std::fs::read_to_string(dir.join("reaction_diffusion.c")).unwrap();
    let c = adjc_emit::wrap::unwrap_c(&c);
    assert!(
        c.contains("adjc_alloc_tape(sizeof(double), ADJC_DIMS(adjc_max_i64(0, TSTEPS), adjc_max_i64(0, u_n0 - 2)))"),
        "{c}"
    );
    build_and_run(&dir, "reaction_diffusion", OVERFLOW_DRIVER, &[]).unwrap();
    build_and_run(&dir, "reaction_diffusion", OVERFLOW_DRIVER, &["-DADJC_NO_BUILTINS"]).unwrap();
    build_and_run(&dir, "reaction_diffusion", OVERFLOW_DRIVER, &["-fopenmp"]).unwrap();
    if asan_works(&dir) {
        build_and_run(
            &dir,
            "reaction_diffusion",
            OVERFLOW_DRIVER,
            &["-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
        )
        .unwrap();
    } else {
        eprintln!("note: no AddressSanitizer here; the normal-size runs were not sanitized");
    }
}

const TRIANGLE_DRIVER: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "cholesky.h"

int main(void)
{
    double A[16], A_b[16], A0[16], A_b0[16];
    for (int i = 0; i < 16; i++) {
        A[i] = A0[i] = i % 5 == 0 ? 4.0 : 0.5;
        A_b[i] = A_b0[i] = 1.0;
    }
    /* The packed triangular tape has n (n + 1) / 2 elements: its product overflows first. */
    int64_t n = (int64_t)1 << 32;
    int r = cholesky_b(n, n, A, A_b);
    int ok = r == ADJC_ERR_ALLOC && !memcmp(A, A0, sizeof A) && !memcmp(A_b, A_b0, sizeof A_b);
    if (!ok) {
        printf("returned %d\n", r);
        return 1;
    }
    if (cholesky_b(4, 4, A, A_b) != ADJC_OK) {
        printf("4x4 failed\n");
        return 1;
    }
    printf("all ok\n");
    return 0;
}
"#;

#[test]
fn a_product_inside_an_extent_is_checked_before_it_is_computed() {
    let dir = scratch("alloc-triangle");
    transpile("examples/python/cholesky.py", &dir, &[]);
    let c = std::fs::read_to_string(dir.join("cholesky.c")).unwrap();
    assert!(c.contains("if (!adjc_mul_fits(adjc_max_i64(0, A_n0 - 1), adjc_max_i64(0, A_n0 - 1) + 1)) {"), "{c}");
    build_and_run(&dir, "cholesky", TRIANGLE_DRIVER, &[]).unwrap();
    build_and_run(&dir, "cholesky", TRIANGLE_DRIVER, &["-DADJC_NO_BUILTINS"]).unwrap();
}

/// A driver that makes the `fail_at`-th malloc or realloc of the generated code fail (the
/// link wraps both), for every `fail_at` until the call succeeds, and checks that every
/// ADJC_ERR_ALLOC left all arrays (inputs, outputs, seeds, adjoints) as they were.
const FAIL_DRIVER: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dace_motivating.h"

void *__real_malloc(size_t);
void *__real_realloc(void *, size_t);
static long allocs_left = -1; /* -1: never fail */
static long allocs_made = 0;

void *__wrap_malloc(size_t n)
{
    allocs_made++;
    if (allocs_left == 0) {
        return NULL;
    }
    if (allocs_left > 0) {
        allocs_left--;
    }
    return __real_malloc(n);
}

void *__wrap_realloc(void *p, size_t n)
{
    allocs_made++;
    if (allocs_left == 0) {
        return NULL;
    }
    if (allocs_left > 0) {
        allocs_left--;
    }
    return __real_realloc(p, n);
}

enum { N = 16 };
static double x[N], x_b[N], y[N], y_b[N], out[N], out_b[N];
static double x0[N], x_b0[N], y0[N], y_b0[N], out0[N], out_b0[N];

int main(void)
{
    for (int i = 0; i < N; i++) {
        x0[i] = 0.1 * i - 0.3;
        y0[i] = 0.05 * i + 0.2;
        out0[i] = 123.0 + i;
        x_b0[i] = 0.5 * i;
        y_b0[i] = -0.25 * i;
        out_b0[i] = 1.0 + 0.1 * i;
    }
    int failures = 0, ok_at = -1;
    for (long fail_at = 0; fail_at < 100 && ok_at < 0; fail_at++) {
        memcpy(x, x0, sizeof x); memcpy(y, y0, sizeof y); memcpy(out, out0, sizeof out);
        memcpy(x_b, x_b0, sizeof x_b); memcpy(y_b, y_b0, sizeof y_b); memcpy(out_b, out_b0, sizeof out_b);
        allocs_left = fail_at;
        allocs_made = 0;
        int r = dace_motivating_b(N, x, x_b, y, y_b, out, out_b);
        allocs_left = -1;
        if (r == ADJC_OK) {
            ok_at = (int)fail_at;
            break;
        }
        int same = !memcmp(x, x0, sizeof x) && !memcmp(y, y0, sizeof y) && !memcmp(out, out0, sizeof out)
                   && !memcmp(x_b, x_b0, sizeof x_b) && !memcmp(y_b, y_b0, sizeof y_b)
                   && !memcmp(out_b, out_b0, sizeof out_b);
        if (r != ADJC_ERR_ALLOC || !same) {
            printf("allocation %ld failing: returned %d, arrays %s\n", fail_at + 1, r, same ? "untouched" : "WRITTEN");
            failures++;
        }
    }
    printf("succeeded once %d allocations could succeed (%ld made)\n", ok_at, allocs_made);
    if (failures == 0 && ok_at >= 0) {
        printf("all ok\n");
    }
    return failures != 0 || ok_at < 0;
}
"#;

fn allocations_that_fail_write_nothing(extra: &[&str], expect_allocs: usize) {
    let dir = scratch(&format!("alloc-fail{}", extra.len()));
    transpile("examples/python/dace_motivating.py", &dir, extra);
    let wrap = "-Wl,--wrap=malloc,--wrap=realloc";
    let out = build_and_run(&dir, "dace_motivating", FAIL_DRIVER, &[wrap]).unwrap();
    assert!(out.contains(&format!("succeeded once {expect_allocs} allocations could succeed")), "{out}");
    build_and_run(&dir, "dace_motivating", FAIL_DRIVER, &[wrap, "-fopenmp"]).unwrap();
    if asan_works(&dir) {
        // The arena's places do not overlap while their arrays live.
        build_and_run(
            &dir,
            "dace_motivating",
            FAIL_DRIVER,
            &[wrap, "-fsanitize=address,undefined", "-fno-sanitize-recover=all"],
        )
        .unwrap();
    }
}

/// Without a plan every array is allocated on entry: each of the 12 can fail, harmlessly.
#[test]
fn a_failing_malloc_writes_nothing_without_a_plan() {
    allocations_that_fail_write_nothing(&[], 12);
}

/// A plan allocates arrays between statements; they come from one block reserved on entry,
/// so the only allocations that can fail come before the first write. Before the arena the
/// lazy allocations of the reverse sweep failed after `out` was written.
#[test]
fn a_failing_malloc_writes_nothing_under_a_memory_plan() {
    let dir = scratch("plan-text");
    transpile("examples/python/dace_motivating.py", &dir, &["--sizes", "N=16", "--memory-limit", "1280"]);
    let c = std::fs::read_to_string(dir.join("dace_motivating.c")).unwrap();
    assert!(c.contains("adjc_arena_reserve("), "{c}");
    assert!(c.contains("recomputed:"), "the plan recomputes something:\n{c}");
    let h = std::fs::read_to_string(dir.join("dace_motivating.h")).unwrap();
    assert!(!h.contains("partially"), "{h}");
    // Two allocations, both on entry: the layout's scratch and the block.
    allocations_that_fail_write_nothing(&["--sizes", "N=16", "--memory-limit", "1280"], 2);
}

const SQUARE_TRIPS: &str = r#"def sq(N: int, x: "float64[N]", y: "float64[N]"):
    p = 0.5
    for i in range(N):
        for j in range(i * i):
            p = np.sin(p) * x[i] + 0.1
        y[i] = p
    return p
"#;

const STACK_DRIVER: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sq.h"

void *__real_malloc(size_t);
void *__real_realloc(void *, size_t);
static long allocs_left = -1;

void *__wrap_malloc(size_t n)
{
    if (allocs_left == 0) return NULL;
    if (allocs_left > 0) allocs_left--;
    return __real_malloc(n);
}

void *__wrap_realloc(void *p, size_t n)
{
    if (allocs_left == 0) return NULL;
    if (allocs_left > 0) allocs_left--;
    return __real_realloc(p, n);
}

enum { N = 40 };
static double x[N], x_b[N], y[N], y_b[N], x0[N], x_b0[N], y_b0[N];

int main(void)
{
    for (int i = 0; i < N; i++) {
        x[i] = x0[i] = 0.9 - 0.01 * i;
        x_b[i] = x_b0[i] = 0.5;
        y_b0[i] = 1.0 + i;
    }
    int fails = 0, failures = 0;
    for (long fail_at = 0; fail_at < 100; fail_at++) {
        double ret = 7.0;
        memcpy(x_b, x_b0, sizeof x_b);
        memcpy(y_b, y_b0, sizeof y_b);
        allocs_left = fail_at;
        int r = sq_b(N, x, x_b, y, y_b, &ret, 2.0);
        allocs_left = -1;
        if (r == ADJC_OK) break;
        fails++;
        /* The header: "Then y may be partially updated (and nothing else)". */
        if (r != ADJC_ERR_ALLOC || memcmp(x, x0, sizeof x) || memcmp(x_b, x_b0, sizeof x_b)
            || memcmp(y_b, y_b0, sizeof y_b) || ret != 7.0) {
            printf("allocation %ld failing: returned %d, more than y written\n", fail_at + 1, r);
            failures++;
        }
    }
    printf("%d failing growths\n", fails);
    if (failures == 0 && fails > 1) printf("all ok\n");
    return failures != 0 || fails <= 1;
}
"#;

/// A stack tape grows while the forward sweep runs; its header comment names what a failing
/// growth may leave written, and a failing realloc leaves exactly that much.
#[test]
fn a_stack_tape_that_cannot_grow_leaves_only_what_its_header_names() {
    let dir = scratch("stack-fail");
    let src = dir.join("sq.py");
    std::fs::write(&src, SQUARE_TRIPS).unwrap();
    transpile(src.to_str().unwrap(), &dir, &[]);
    let h = std::fs::read_to_string(dir.join("sq.h")).unwrap();
    assert!(h.contains(" * Then y may be partially updated (and nothing else).\n"), "{h}");
    let out = build_and_run(&dir, "sq", STACK_DRIVER, &["-Wl,--wrap=malloc,--wrap=realloc"]).unwrap();
    assert!(out.contains("failing growths"), "{out}");

    // Checkpointed, the loop re-runs forward steps (and pushes) in the reverse sweep: the
    // adjoint it has updated by then is named too.
    let tl = dir.join("tl.py");
    std::fs::write(
        &tl,
        "def tl(T: int, N: int, x: \"float64[N]\", y: \"float64[N]\"):\n    for t in range(T):\n        for i in range(N):\n            for j in range(i * i):\n                x[i] = np.sin(x[i]) * 0.9 + 0.1\n        y[:] = y + x\n",
    )
    .unwrap();
    transpile(tl.to_str().unwrap(), &dir, &["--checkpoint", "2=every:2"]);
    let h = std::fs::read_to_string(dir.join("tl.h")).unwrap();
    assert!(h.contains(" * Then x, x_b, y may be partially updated (and nothing else).\n"), "{h}");
}
