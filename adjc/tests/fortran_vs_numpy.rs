//! The same algorithm written in NumPy and in Fortran (examples/python/gemm.py and
//! examples/fortran/gemm_numpy.f90; examples/python/jacobi_2d.py and
//! examples/fortran/jacobi_2d_sections.f90) gives the same IR up to layout and names, and
//! adjoints that agree to 1e-12 on the same data (a row-major NumPy `A[i, k]` is the
//! column-major Fortran `a(i, k)`: the test transposes the memory between them).

mod common;

use common::{adjc, scratch, text};
use std::process::Command;

/// The statement structure of the `--emit ir` text of a function and of its adjoint:
/// one token per statement (`loop`, `map2`, `assign`, `gemm`, ...) with its nesting,
/// without names, bounds, layouts, allocations or comments.
fn structure(ir: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in ir.lines() {
        let t = line.split(" # ").next().unwrap_or("").trim();
        let depth = (line.len() - line.trim_start().len()) / 2;
        let token = if t.starts_with("fn ") {
            "fn".to_string()
        } else if t.starts_with("loop ") {
            "loop".into()
        } else if t.starts_with("map ") {
            format!("map{}", t.matches(" in [").count())
        } else if t.starts_with("section ") || t == "}" || t == "{" {
            t.to_string()
        } else if let Some(op) = ["gemm(", "gemv(", "dot(", "ger("].iter().find(|op| t.contains(*op)) {
            op.trim_end_matches('(').to_string()
        } else if t.starts_with("push ") || t.starts_with("pop ") || t.starts_with("if ") || t.starts_with("else") {
            t.split_whitespace().next().unwrap_or("").to_string()
        } else if t.contains(" += ") {
            "accumulate".into()
        } else if t.contains(" = ") && !t.starts_with("var ") {
            "assign".into()
        } else {
            continue;
        };
        out.push(format!("{}{token}", "  ".repeat(depth)));
    }
    out
}

fn ir_of(path: &str) -> String {
    let out = adjc(&["transpile", path, "--emit", "ir"]);
    assert!(out.status.success(), "{path}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn numpy_and_fortran_give_the_same_ir_up_to_layout() {
    for (py, f90) in [
        ("examples/python/gemm.py", "examples/fortran/gemm_numpy.f90"),
        ("examples/python/jacobi_2d.py", "examples/fortran/jacobi_2d_sections.f90"),
    ] {
        let (a, b) = (structure(&ir_of(py)), structure(&ir_of(f90)));
        assert!(a.len() > 8, "{a:?}");
        assert_eq!(a, b, "{py} and {f90} differ:\n{}\n---\n{}", ir_of(py), ir_of(f90));
    }
}

const DRIVER: &str = r#"
#include <math.h>
#include <stdio.h>
#include "gemm.h"
#include "gemm_numpy.h"
#include "jacobi_2d.h"
#include "jacobi_2d_sections.h"

enum { NI = 7, NJ = 6, NK = 5, N = 9, T = 4 };

static double val(int k, int s) { return sin(0.37 * k + 1.3 * s) + 0.1 * s; }

/* Row-major (rows x cols) `x` against column-major `y` holding the same matrix. */
static double diff(const double *x, const double *y, int rows, int cols)
{
    double m = 0.0, scale = 1e-300;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            m = fmax(m, fabs(x[i * cols + j] - y[i + j * rows]));
            scale = fmax(scale, fabs(x[i * cols + j]));
        }
    return m / scale;
}

/* Fills row-major `x` and column-major `y` with the same matrix. */
static void fill(double *x, double *y, int rows, int cols, int s)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            x[i * cols + j] = y[i + j * rows] = val(i * cols + j, s);
}

int main(void)
{
    double C[NI * NJ], A[NI * NK], B[NK * NJ], C_b[NI * NJ], A_b[NI * NK] = {0}, B_b[NK * NJ] = {0};
    double c[NI * NJ], a[NI * NK], b[NK * NJ], c_b[NI * NJ], a_b[NI * NK] = {0}, b_b[NK * NJ] = {0};
    fill(C, c, NI, NJ, 1);
    fill(A, a, NI, NK, 2);
    fill(B, b, NK, NJ, 3);
    fill(C_b, c_b, NI, NJ, 4);
    double alpha_b = 0.0, beta_b = 0.0, alpha_b2 = 0.0, beta_b2 = 0.0;
    if (gemm_b(NI, NJ, NK, 1.3, &alpha_b, 0.7, &beta_b, C, C_b, A, A_b, B, B_b) != 0) return 1;
    if (gemm_numpy_b(NI, NJ, NK, 1.3, &alpha_b2, 0.7, &beta_b2, c, c_b, a, a_b, b, b_b) != 0) return 1;
    double e = fmax(diff(C, c, NI, NJ), diff(C_b, c_b, NI, NJ));
    e = fmax(e, fmax(diff(A_b, a_b, NI, NK), diff(B_b, b_b, NK, NJ)));
    e = fmax(e, fabs(alpha_b - alpha_b2) / fabs(alpha_b));
    e = fmax(e, fabs(beta_b - beta_b2) / fabs(beta_b));
    printf("gemm %.3e %.6f\n", e, alpha_b);

    double P[N * N], Q[N * N], P_b[N * N], Q_b[N * N], p[N * N], q[N * N], p_b[N * N], q_b[N * N];
    fill(P, p, N, N, 5);
    fill(Q, q, N, N, 6);
    fill(P_b, p_b, N, N, 7);
    fill(Q_b, q_b, N, N, 8);
    /* range(1, TSTEPS) runs TSTEPS - 1 steps, `do t = 1, tsteps` tsteps. */
    if (jacobi_2d_b(N, N, T, P, P_b, Q, Q_b) != 0) return 1;
    if (jacobi_2d_sections_b(T - 1, N, p, p_b, q, q_b) != 0) return 1;
    e = fmax(fmax(diff(P, p, N, N), diff(Q, q, N, N)), fmax(diff(P_b, p_b, N, N), diff(Q_b, q_b, N, N)));
    printf("jacobi_2d %.3e %.6f\n", e, P_b[N + 1]);
    return 0;
}
"#;

#[test]
fn numpy_and_fortran_adjoints_agree_on_the_same_data() {
    let dir = scratch("numpy-vs-fortran");
    for src in [
        "examples/python/gemm.py",
        "examples/fortran/gemm_numpy.f90",
        "examples/python/jacobi_2d.py",
        "examples/fortran/jacobi_2d_sections.f90",
    ] {
        let out = adjc(&["transpile", src, "-o", dir.to_str().unwrap()]);
        assert!(out.status.success(), "{src}: {}", text(&out));
    }
    std::fs::write(dir.join("driver.c"), DRIVER).unwrap();
    for openmp in [false, true] {
        let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
        cc.current_dir(&dir).args(["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-I."]);
        if openmp {
            cc.arg("-fopenmp");
        }
        cc.args(["driver.c", "gemm.c", "gemm_numpy.c", "jacobi_2d.c", "jacobi_2d_sections.c", "-lm", "-o", "driver"]);
        let built = cc.output().unwrap();
        assert!(built.status.success(), "{}", text(&built));
        let run = Command::new(dir.join("driver")).env("OMP_NUM_THREADS", "2").output().unwrap();
        let t = text(&run);
        assert!(run.status.success(), "{t}");
        for kernel in ["gemm", "jacobi_2d"] {
            let line = t.lines().find(|l| l.starts_with(&format!("{kernel} "))).unwrap_or_else(|| panic!("{t}"));
            let fields: Vec<&str> = line.split_whitespace().collect();
            let err: f64 = fields[1].parse().unwrap();
            let sample: f64 = fields[2].parse().unwrap();
            assert!(err < 1e-12, "{kernel}: the adjoints differ by {err:e} (openmp: {openmp})");
            assert!(sample.abs() > 1e-3, "{kernel}: a zero gradient compares nothing: {line}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
