//! Indirect indexing in the generated C: index arrays checked on entry (an index out of
//! range returns ADJC_ERR_SHAPE before anything is written), and scatter-adds (the adjoint
//! of a gather, `np.add.at`) race-free under OpenMP: with every index repeated thousands
//! of times, two threads give the serial result.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

const KERNEL: &str = r#"import numpy as np


def scat(x: "float64[N]", w: "float64[K]", idx: "int64[K]"):
    y = x[idx] * w
    z = np.zeros_like(x)
    np.add.at(z, idx, y * y)
    return z
"#;

fn transpile(name: &str, extra: &[&str]) -> std::path::PathBuf {
    let dir = scratch(name);
    let file = dir.join("scat.py");
    std::fs::write(&file, KERNEL).unwrap();
    let mut args = vec!["transpile", file.to_str().unwrap(), "-o", dir.to_str().unwrap()];
    args.extend(extra);
    let out = adjc(&args);
    assert!(out.status.success(), "{}", text(&out));
    dir
}

fn build_and_run(dir: &Path, driver: &str, flags: &[&str]) -> String {
    std::fs::write(dir.join("main.c"), driver).unwrap();
    let mut args = vec!["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2"];
    args.extend(flags);
    args.extend(["-o", "main", "main.c", "scat.c", "-lm"]);
    let cc = Command::new("cc").current_dir(dir).args(&args).output().expect("run cc");
    assert!(cc.status.success(), "cc {flags:?}: {}", text(&cc));
    let run = Command::new(dir.join("main")).output().expect("run driver");
    assert!(run.status.success(), "{}", text(&run));
    String::from_utf8_lossy(&run.stdout).trim().to_string()
}

/// An index past either end (NumPy's IndexError) returns ADJC_ERR_SHAPE from both functions
/// with every output and adjoint untouched, serial and with OpenMP; a negative index inside
/// the axis counts from the end, as in NumPy.
#[test]
fn an_index_out_of_range_returns_err_shape_and_writes_nothing() {
    let dir = transpile("indirect-range", &[]);
    let c = std::fs::read_to_string(dir.join("scat.c")).unwrap();
    assert!(c.contains("if (idx[adjc_k] < -N || idx[adjc_k] > N - 1) return ADJC_ERR_SHAPE;"), "{c}");
    let driver = r#"
#include <stdio.h>
#include "scat.h"
int main(void)
{
    double x[3] = {1.0, 2.0, 3.0}, w[4] = {1.0, 1.0, 1.0, 1.0};
    long long bad_values[2] = {3, -4};
    for (int b = 0; b < 2; b++) {
        int64_t idx[4] = {0, 2, 1, 0};
        idx[2] = bad_values[b];
        double z[3] = {-7.0, -7.0, -7.0}, x_b[3] = {-5.0, -5.0, -5.0}, w_b[4] = {-5.0, -5.0, -5.0, -5.0};
        double z_b[3] = {1.0, 1.0, 1.0};
        int rc = scat(3, 4, x, w, idx, z);
        int rc_b = scat_b(3, 4, x, x_b, w, w_b, idx, z, z_b);
        int untouched = 1;
        for (int k = 0; k < 3; k++) untouched &= z[k] == -7.0 && x_b[k] == -5.0 && z_b[k] == 1.0;
        for (int k = 0; k < 4; k++) untouched &= w_b[k] == -5.0;
        printf("%d %d %d ", rc, rc_b, untouched);
    }
    int64_t idx[4] = {0, -1, 1, 0};
    double z[3];
    int rc = scat(3, 4, x, w, idx, z);
    printf("%d %.1f %.1f %.1f\n", rc, z[0], z[1], z[2]);
    return 0;
}
"#;
    for flags in [&[][..], &["-fopenmp"][..]] {
        let got = build_and_run(&dir, driver, flags);
        // z = add.at of (x[idx] * w)^2: z[0] = 1 + 1, z[2] = 9 (idx -1), z[1] = 4.
        assert_eq!(got, "2 2 1 2 2 1 0 2.0 4.0 9.0", "{flags:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The scatter-adds of the forward (`np.add.at`) and of the adjoint (the gather `x[idx]`)
/// under two threads, with 3 cells and 400000 indices, agree with one thread (a lost update
/// would be off by far more than the rounding of a different summation order). Without the
/// atomics (`sed 's/ADJC_OMP(atomic)//'`) this test failed in 4 of 5 executions on a loaded
/// 2-core machine (one two-thread run alone: 1 in 3).
#[test]
fn scatter_adds_with_repeated_indices_agree_under_two_threads() {
    let dir = transpile("indirect-race", &[]);
    let c = std::fs::read_to_string(dir.join("scat.c")).unwrap();
    assert_eq!(c.matches("ADJC_OMP(atomic)").count(), 3, "{c}");
    assert!(c.contains("/* atomic: the indices read from `idx` may repeat across iterations */"), "{c}");
    let driver = r#"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#include "scat.h"
#define K 400000
int main(void)
{
    static double w[K], w_b[2][K];
    static int64_t idx[K];
    double x[3] = {0.5, -1.0, 0.25}, z[2][3], x_b[2][3], z_b[2][3];
    for (int k = 0; k < K; k++) {
        w[k] = 1.0 + (k % 7) * 0.125;
        idx[k] = ((int64_t)k * 7919) % 3;
    }
    int rc = 0;
    double worst = 0.0;
    /* One serial run, then several with two threads (a race does not show every time). */
    for (int run = 0; run < 8; run++) {
        int t = run > 0;
        omp_set_num_threads(t + 1);
        for (int k = 0; k < 3; k++) {
            x_b[t][k] = 0.0;
            z_b[t][k] = 1.0 + k;
        }
        for (int k = 0; k < K; k++) w_b[t][k] = 0.0;
        rc |= scat(3, K, x, w, idx, z[t]);
        rc |= scat_b(3, K, x, x_b[t], w, w_b[t], idx, z[t], z_b[t]);
        if (t == 0) continue;
        for (int k = 0; k < 3; k++) {
            worst = fmax(worst, fabs(z[1][k] - z[0][k]) / fabs(z[0][k]));
            worst = fmax(worst, fabs(x_b[1][k] - x_b[0][k]) / fabs(x_b[0][k]));
        }
        for (int k = 0; k < K; k++) worst = fmax(worst, fabs(w_b[1][k] - w_b[0][k]) / fabs(w_b[0][k]));
    }
    printf("%d %s\n", rc, worst < 1e-9 ? "same" : "DIFFERENT");
    if (worst >= 1e-9) printf("worst relative difference %g\n", worst);
    return 0;
}
"#;
    let got = build_and_run(&dir, driver, &["-fopenmp"]);
    assert_eq!(got, "0 same");
    let _ = std::fs::remove_dir_all(&dir);
}
