//! Source names C cannot use as they are (keywords, libm and POSIX functions, macros, the
//! runtime's prefix, and `forward`/`data`, names the check driver once used itself): the
//! gradient check passes, serial and with OpenMP, and the header lists every rename.

mod common;

use common::{adjc, scratch, text};

const EXPECTED_RENAMES: &[&str] = &[
    "renamed: I → I_ (collides with complex.h)",
    "renamed: y1 → y1_ (collides with math.h)",
    "renamed: int → int_ (is a C keyword)",
    "renamed: double → double_ (is a C keyword)",
    "renamed: j0 → j0_ (collides with math.h)",
    "renamed: exp → exp_ (collides with math.h)",
    "renamed: main → main_ (is the C program entry point)",
    "renamed: free → free_ (collides with stdlib.h)",
    "renamed: adjc_k → u_adjc_k (is reserved for the adjc runtime)",
];

#[test]
fn renamed_identifiers_pass_the_check_and_are_listed_in_the_header() {
    for openmp in [false, true] {
        let dir = scratch(if openmp { "renames-omp" } else { "renames" });
        let keep = dir.to_str().unwrap();
        let mut args = vec!["check", "tests/inputs/renames.py", "--sizes", "double_n0=5,j0=3", "--keep", keep];
        if openmp {
            args.push("--openmp");
        }
        let out = adjc(&args);
        let t = text(&out);
        assert!(out.status.success(), "adjc {}\n{t}", args.join(" "));
        assert!(t.contains("check passed"), "{t}");
        // Every float input is differentiated under its source name.
        for name in ["I", "y1", "int", "double", "exp", "data"] {
            let line = t.lines().find(|l| l.trim_start().starts_with(&format!("d/d{name} ")));
            assert!(line.is_some_and(|l| l.trim_end().ends_with("ok")), "d/d{name}:\n{t}");
        }
        let header = std::fs::read_to_string(dir.join("renames.h")).unwrap();
        for r in EXPECTED_RENAMES {
            assert!(header.contains(&format!(" *   {r}\n")), "`{r}` missing from the header:\n{header}");
        }
        // The entry keeps its name: `forward` is valid C, and the driver's own names are prefixed.
        assert!(header.contains("int forward(int64_t double_n0, double I_, double y1_, double int_, double *double_,"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

const NETWORK: &str = r#"import numpy as np


def relu(x):
    return np.maximum(x, 0)


def net(inp: "float64[N, K]", w1: "float64[K, M]", w2: "float64[M, P]"):
    x = relu(inp @ w1)
    x = relu(np.exp(-x) @ w2 + 1.0)
    relu2 = np.sum(x * x)
    return relu2
"#;

/// Temporaries are named after what they hold (`frontend/src/python/var_names.rs`): the
/// values of a reassigned `x` after the calls that computed them, the helper's parameter after
/// its call, adjoints after them; a source variable called like a call keeps its name. The
/// gradient check passes, and the names are the same on every run.
#[test]
fn temporaries_are_named_after_what_they_hold() {
    let dir = scratch("temp-names");
    let src = dir.join("net.py");
    std::fs::write(&src, NETWORK).unwrap();
    let out_dir = dir.join("out");
    let args = ["transpile", src.to_str().unwrap(), "-o", out_dir.to_str().unwrap()];
    let out = adjc(&args);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(out_dir.join("net.c")).unwrap();
    for name in ["relu1_x", "relu1", "relu2_x", "relu2_1", "relu2_1_b", "relu2_x_b", "exp_neg_x", "dot_x_w2"] {
        assert!(c.contains(&format!("*{name} = adjc_alloc")), "no array {name}:\n{c}");
    }
    // The source's `relu2` (a scalar) keeps its name; no bare numbered `x_1`.
    assert!(c.contains("relu2 = 0.0;") || c.contains("double relu2 "), "{c}");
    assert!(!c.contains("x_1") && !c.contains("x_2"), "{c}");
    let again = adjc(&args);
    assert!(again.status.success());
    assert_eq!(c, std::fs::read_to_string(out_dir.join("net.c")).unwrap(), "names change between runs");
    let check = adjc(&["check", src.to_str().unwrap(), "--sizes", "N=3,K=4,M=5,P=2"]);
    assert!(text(&check).contains("check passed"), "{}", text(&check));
}

const IN_PLACE_LAYERS: &str = r#"import numpy as np


def relu(x):
    return np.maximum(x, 0)


def center(x):
    return x - np.mean(x, axis=0, keepdims=True)


def net(inp: "float64[N, K]", w1: "float64[K, M]", w2: "float64[M, P]"):
    x = center(inp @ w1)
    x = relu(x)
    x = center(x @ w2)
    x = relu(x)
    return np.sum(x * x)
"#;

/// A layer whose activation is applied in place (`x = center(...); x = relu(x)`, as resnet's
/// `batchnorm2d` then `relu`): each layer's array holds the values of two calls and is named
/// after both (`center1_relu1`), never `x`, `x_1`; its adjoint and tape follow. The gradient
/// check passes.
#[test]
fn arrays_updated_in_place_by_helper_calls_are_named_after_the_calls() {
    let dir = scratch("in-place-names");
    let src = dir.join("layers.py");
    std::fs::write(&src, IN_PLACE_LAYERS).unwrap();
    let out_dir = dir.join("out");
    let out = adjc(&["transpile", src.to_str().unwrap(), "-o", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(out_dir.join("layers.c")).unwrap();
    for name in ["center1_relu1", "center1_relu1_b", "center1_relu1_tape", "center2_relu2", "center2_relu2_b"] {
        assert!(c.contains(&format!("*{name} = adjc_alloc")), "no array {name}:\n{c}");
    }
    assert!(!c.contains("*x = adjc_alloc") && !c.contains("x_1"), "{c}");
    let check = adjc(&["check", src.to_str().unwrap(), "--sizes", "N=4,K=3,M=5,P=2"]);
    assert!(text(&check).contains("check passed"), "{}", text(&check));
    let _ = std::fs::remove_dir_all(&dir);
}
