//! Shape rules NumPy enforces: sizes that break them are refused on entry (ADJC_ERR_SHAPE,
//! nothing written), and slices at tiny extents (0, 1, 2) behave as NumPy's (empty, never a
//! read past the axis).

mod common;
use common::{adjc, scratch, text};
use std::process::Command;

/// `examples/python/slice_sizes.py`: `A[i, i + 1:] @ x[i:]` needs N == M + 1 and
/// `c[1:n - i]` needs N <= K. Bad sizes return 2 from both functions before anything is
/// written; good ones compute what NumPy computes.
#[test]
fn slice_lengths_only_the_call_can_compare_are_checked_on_entry() {
    let dir = scratch("shape-slices");
    let out = adjc(&["transpile", "examples/python/slice_sizes.py", "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let header = std::fs::read_to_string(dir.join("slice_sizes.h")).unwrap();
    assert!(header.contains("Returns ADJC_ERR_SHAPE when N != M + 1"), "{header}");
    let driver = r#"
#include <math.h>
#include <stdio.h>
#include "slice_sizes.h"

int main(void)
{
    double A[16], A_b[16], x[4], x_b[4], c[6], c_b[6], y[4], y_b[4];
    for (int k = 0; k < 16; k++) { A[k] = 0.1 * k; A_b[k] = -1.0; }
    for (int k = 0; k < 4; k++) { x[k] = 1.0 + k; x_b[k] = y[k] = y_b[k] = -1.0; }
    for (int k = 0; k < 6; k++) { c[k] = 0.5 * k; c_b[k] = -1.0; }
    /* N = 4, M = 4: A[i, i+1:] has one element fewer than x[i:] (NumPy: ValueError). */
    int bad_m = slice_sizes(4, 4, 6, A, x, c, y);
    int bad_m_b = slice_sizes_b(4, 4, 6, A, A_b, x, x_b, c, c_b, y, y_b);
    /* N = 4, M = 3, K = 3: c[1:4 - i] would stop past c's 3 elements (NumPy: clipped, then
       ValueError); the C must not read c[3]. */
    int bad_k = slice_sizes(4, 3, 3, A, x, c, y);
    int untouched = 1;
    for (int k = 0; k < 4; k++) untouched &= y[k] == -1.0 && y_b[k] == -1.0 && x_b[k] == -1.0;
    for (int k = 0; k < 16; k++) untouched &= A_b[k] == -1.0;
    int good = slice_sizes(4, 3, 6, A, x, c, y);
    /* y[i] = tanh(A[i, i+1:] @ x[i:] + sum(x[i:] * c[1:4-i])), x of 3 elements. */
    double err = 0.0;
    for (int i = 0; i < 4; i++) {
        double s = 0.0;
        for (int j = i + 1; j < 4; j++) s += A[i * 4 + j] * x[j - 1];
        for (int j = i; j < 3; j++) s += x[j] * c[1 + j - i];
        err = fmax(err, fabs(y[i] - tanh(s)));
    }
    printf("%d %d %d %d %d %d %d %.1e\n", ADJC_ERR_SHAPE, bad_m, bad_m_b, bad_k, untouched, good, err < 1e-12, err);
    return 0;
}
"#;
    std::fs::write(dir.join("main.c"), driver).unwrap();
    let cc = Command::new("cc")
        .current_dir(&dir)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-o", "main", "main.c", "slice_sizes.c", "-lm"])
        .output()
        .expect("run cc");
    assert!(cc.status.success(), "{}", text(&cc));
    let run = Command::new(dir.join("main")).output().expect("run driver");
    let got = String::from_utf8_lossy(&run.stdout).trim().to_string();
    assert!(got.starts_with("2 2 2 2 1 0 1 "), "{got}\n{}", text(&run));
}

/// Kernels with slices run by `adjc check` at tiny sizes: the forward values and the
/// gradient must match (and match NumPy when it is available). Before, `x[-3:]` at N = 2
/// read x[-1], `x[:5]` read past the end and `x[1:-1]` at N = 1 gave a result of extent -1.
#[test]
fn slices_at_tiny_sizes_behave_as_numpy() {
    let dir = scratch("shape-tiny");
    let cases: &[(&str, &str, &[&str])] = &[
        // Starts and stops past the other end only empty the slice.
        (
            "inner",
            "import numpy as np\n\ndef inner(x: \"float64[N]\", y: \"float64[N]\"):\n    y[1:-1] = x[2:] * x[:-2]\n    return x[1:-1] * 2.0 + np.sum(x[2:])\n",
            &["N=0", "N=1", "N=2", "N=3"],
        ),
        // A stop past the end or a start before the beginning: checked on entry.
        (
            "ends",
            "import numpy as np\n\ndef ends(x: \"float64[N]\"):\n    return np.sum(x[-3:] ** 2) + np.sum(x[:5])\n",
            &["N=5", "N=6"],
        ),
        // Bounds from loop indices, inside the axis for every iteration.
        (
            "window",
            "import numpy as np\n\ndef window(x: \"float64[N]\", y: \"float64[N]\"):\n    n = x.shape[0]\n    for i in range(1, n - 1):\n        y[i] = np.sum(x[i - 1:i + 2] ** 2)\n",
            &["N=0", "N=1", "N=2", "N=3", "N=5"],
        ),
    ];
    for (name, src, sizes) in cases {
        let path = dir.join(format!("{name}.py"));
        std::fs::write(&path, src).unwrap();
        for s in *sizes {
            let out = adjc(&["check", path.to_str().unwrap(), "--sizes", s]);
            let t = text(&out);
            assert!(out.status.success() && t.contains("check passed"), "{name} at {s}:\n{t}");
            assert!(!t.contains("FAILED"), "{name} at {s}:\n{t}");
        }
    }
    // `x[:5]` and `x[-3:]` at N = 2: NumPy clips to two elements; adjc refuses the call.
    let out = adjc(&["check", dir.join("ends.py").to_str().unwrap(), "--sizes", "N=2"]);
    assert!(text(&out).contains("returned 2 (ADJC_ERR_SHAPE"), "{}", text(&out));
}

/// Broadcasting extents that are different size parameters, and a reshape to a shape of
/// parameters (NPBench's LeNet flattens to `(N, C)`): checked on entry, not refused.
#[test]
fn broadcasts_and_reshapes_of_parameters_are_checked_on_entry() {
    let dir = scratch("shape-broadcast");
    let src = "import numpy as np\n\ndef bc(a: \"float64[N]\", b: \"float64[M]\", x: \"float64[P, Q]\", w: \"float64[C, D]\", R: int, C: int):\n    y = np.reshape(x, (R, C))\n    return np.sum(np.tanh(y @ w)) + np.sum(a[1:] * b[:-1])\n";
    let path = dir.join("bc.py");
    std::fs::write(&path, src).unwrap();
    let good = adjc(&["check", path.to_str().unwrap(), "--sizes", "N=4,M=4,P=2,Q=6,C=3,D=2,R=4"]);
    assert!(good.status.success() && text(&good).contains("check passed"), "{}", text(&good));
    for bad in ["N=4,M=5,P=2,Q=6,C=3,D=2,R=4", "N=4,M=4,P=2,Q=6,C=4,D=2,R=4"] {
        let out = adjc(&["check", path.to_str().unwrap(), "--sizes", bad]);
        assert!(text(&out).contains("returned 2 (ADJC_ERR_SHAPE"), "{bad}: {}", text(&out));
    }
}
