//! NumPy's index rules in the generated C: computed negative indices count from the end
//! (`X[i - 2]` at `i == 0` is `X[n - 2]`), and an index NumPy would reject is refused on
//! entry with ADJC_ERR_SHAPE, before anything is written, or at transpile time when it is
//! out of bounds whenever it is used.

mod common;
use common::*;
use std::process::Command;

fn transpile_src(name: &str, src: &str) -> (std::path::PathBuf, std::process::Output) {
    let dir = scratch(name);
    let file = dir.join(format!("{name}.py"));
    std::fs::write(&file, src).unwrap();
    let out = adjc(&["transpile", file.to_str().unwrap(), "-o", dir.to_str().unwrap()]);
    (dir, out)
}

fn build_and_run(dir: &std::path::Path, stem: &str, driver: &str) -> String {
    std::fs::write(dir.join("main.c"), driver).unwrap();
    for openmp in [false, true] {
        let mut args = vec![
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
        ];
        if openmp {
            args.push("-fopenmp");
        }
        let c = format!("{stem}.c");
        args.extend(["-o", "main", "main.c", c.as_str(), "-lm"]);
        let cc = Command::new("cc").current_dir(dir).args(&args).output().expect("run cc");
        assert!(cc.status.success(), "{}", text(&cc));
        let run = Command::new(dir.join("main")).output().expect("run driver");
        assert!(run.status.success(), "{}", text(&run));
        if openmp {
            return String::from_utf8_lossy(&run.stdout).trim().to_string();
        }
    }
    unreachable!()
}

/// Lorenz-96's periodic stencil: the loop is split where `i - 2` and `i - 1` change sign,
/// no element is read out of bounds (ASan), the values are NumPy's, and n = 1 (where
/// NumPy raises IndexError for `X[-2]`) is refused.
#[test]
fn negative_computed_indices_count_from_the_end() {
    let src = "def l96(X, F):\n    n = X.shape[0]\n    d = np.empty_like(X)\n    for i in range(n):\n        d[i] = (X[(i + 1) % n] - X[i - 2]) * X[i - 1] - X[i] + F\n    return d\n";
    let src = format!("import numpy as np\n\n{src}");
    let (dir, out) = transpile_src("l96", &src);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("l96.c")).unwrap();
    // Three parts of the loop, none with a per-element branch on the sign.
    assert_eq!(c.matches("for (int64_t i = ").count() >= 3, true, "{c}");
    assert!(c.contains("X[n + i - 2]") && c.contains("X[n + i - 1]"), "{c}");
    assert!(!c.contains("? "), "a per-element branch is left in the forward loop:\n{c}");
    let driver = r#"
#include <stdio.h>
#include "l96.h"
int main(void)
{
    double X[5] = {1.0, 2.0, 3.0, 4.0, 5.0}, d[5], X_b[5] = {0}, d_b[5] = {1, 1, 1, 1, 1}, F = 8.0, F_b = 0.0;
    int rc = l96(5, X, F, d);
    for (int k = 0; k < 5; k++) printf("%.1f ", d[k]);
    int rc_b = l96_b(5, X, X_b, F, &F_b, d, d_b);
    for (int k = 0; k < 5; k++) printf("%.1f ", X_b[k]);
    double one[1] = {2.0}, r1[1] = {-7.0};
    int bad = l96(1, one, F, r1);
    printf("%d %d %d %.1f %.1f\n", rc, rc_b, bad, r1[0], F_b);
    return 0;
}
"#;
    let got = build_and_run(&dir, "l96", driver);
    // NumPy: d[i] = (X[(i+1)%5] - X[i-2]) * X[i-1] - X[i] + 8 with X = 1..5.
    let x = [1.0f64, 2.0, 3.0, 4.0, 5.0];
    let n = 5usize;
    let mut want = String::new();
    for i in 0..n {
        let d = (x[(i + 1) % n] - x[(i + n - 2) % n]) * x[(i + n - 1) % n] - x[i] + 8.0;
        want.push_str(&format!("{d:.1} "));
    }
    // d/dX of sum(d): each X[k] appears as X[(i+1)%n] (coefficient X[i-1]), as X[i-2]
    // (coefficient -X[i-1]), as X[i-1] (coefficient X[(i+1)%n] - X[i-2]) and as -X[i].
    let mut g = [0.0f64; 5];
    for i in 0..n {
        let (p1, m2, m1) = ((i + 1) % n, (i + n - 2) % n, (i + n - 1) % n);
        g[p1] += x[m1];
        g[m2] -= x[m1];
        g[m1] += x[p1] - x[m2];
        g[i] -= 1.0;
    }
    for v in g {
        want.push_str(&format!("{v:.1} "));
    }
    want.push_str("0 0 2 -7.0 5.0");
    assert_eq!(got, want);
}

/// `x[i + 1]` over `range(m)` with `x` of extent `n` needs `m <= n`: checked on entry.
#[test]
fn index_past_the_end_is_an_entry_check() {
    let src = "def past_end(x: 'float64[N]', m: int):\n    s = 0.0\n    for i in range(m):\n        s += x[i + 1] * x[i]\n    return s\n";
    let (dir, out) = transpile_src("past_end", src);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("past_end.c")).unwrap();
    assert!(c.contains("return ADJC_ERR_SHAPE;"), "{c}");
    let driver = r#"
#include <stdio.h>
#include "past_end.h"
int main(void)
{
    double x[4] = {1, 2, 3, 4}, ret = -1.0, x_b[4] = {0};
    int ok = past_end(4, x, 3, &ret);
    double r_ok = ret;
    ret = -1.0;
    int bad = past_end(4, x, 4, &ret);
    int bad_b = past_end_b(4, x, x_b, 4, &ret, 1.0);
    int empty = past_end(4, x, 0, &ret);
    printf("%d %.1f %d %d %.1f %.1f %d\n", ok, r_ok, bad, bad_b, -1.0, x_b[0], empty);
    return 0;
}
"#;
    let got = build_and_run(&dir, "past_end", driver);
    // 1*2 + 2*3 + 3*4 = 20; m = 4 reads x[4]: refused, nothing written; m = 0 runs nothing.
    assert_eq!(got, "0 20.0 2 2 -1.0 0.0 0");
}

/// An index that leaves its array whenever it is used is a transpile-time error.
#[test]
fn index_always_out_of_bounds_is_an_error() {
    let src = "def always_oob(x):\n    s = 0.0\n    for i in range(x.shape[0]):\n        s += x[i + 1]\n    return s\n";
    let (_dir, out) = transpile_src("always_oob", src);
    assert!(!out.status.success());
    let t = text(&out);
    assert!(t.contains(":4:") && t.contains("index out of bounds"), "{t}");
    assert!(t.contains("IndexError"), "{t}");
}

/// `if i < n - 1:` guards `x[i + 1]`: no check, no error.
#[test]
fn guarded_index_needs_no_check() {
    let src = "def guarded(x):\n    n = x.shape[0]\n    s = 0.0\n    for i in range(n):\n        if i < n - 1:\n            s += x[i + 1] * x[i]\n    return s\n";
    let (dir, out) = transpile_src("guarded", src);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("guarded.c")).unwrap();
    assert!(!c.contains("ADJC_ERR_SHAPE;"), "{c}");
}
