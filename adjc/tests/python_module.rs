//! `adjc build --python` (issue 14 part 5): the shared library and the NumPy module it
//! writes, used from Python as README "Using adjc in your build: Python" says.
//!
//! * a NumPy kernel with a scalar input (softplus) and a Fortran kernel with 2-D arrays in
//!   Fortran order (gemm): `value_and_grad` against central finite differences of the
//!   module's own forward function in dot-product form, the forward against NumPy for the
//!   NumPy kernel, and the argument checks (dtype, shape, order, writeability);
//! * `examples/scipy/test_fit.py` with pytest: the gradient of decay.py against finite
//!   differences, and a BFGS fit with the adjoint's gradient against one with scipy's.
//!
//! Needs Python with NumPy (`$ADJC_PYTHON`, else `python3`), and scipy and pytest for the
//! second; skipped (saying so) without them unless `ADJC_REQUIRE_NUMPY` is set (CI).

mod common;

use std::path::Path;
use std::process::Command;

use common::{adjc, root, scratch, text};

fn python() -> String {
    std::env::var("ADJC_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Whether `$ADJC_PYTHON` imports `modules`; a failure when CI requires them.
fn have_python(modules: &str) -> bool {
    let ok =
        Command::new(python()).args(["-c", &format!("import {modules}")]).output().is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("ADJC_REQUIRE_NUMPY").is_none(),
            "Python with {modules} is required (ADJC_REQUIRE_NUMPY)"
        );
        eprintln!("SKIPPED: no Python with {modules} (set ADJC_PYTHON)");
    }
    ok
}

fn build(args: &[&str], dir: &Path) {
    let mut all = vec!["build"];
    all.extend(args);
    all.extend(["--python", "-o", dir.to_str().unwrap()]);
    let out = adjc(&all);
    assert!(out.status.success(), "adjc {}\n{}", all.join(" "), text(&out));
}

fn run_python(dir: &Path, script: &str) -> String {
    let out = Command::new(python())
        .current_dir(root())
        .env("PYTHONPATH", dir)
        .env("OMP_NUM_THREADS", "2")
        .args(["-c", script])
        .output()
        .expect("run python");
    let t = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{t}");
    t
}

/// Checks value_and_grad of `module` against central differences of its forward function
/// (in dot-product form over random directions), after the kernel-specific `setup` has
/// defined `args` (the forward's arguments), `seeds`, `wrt` and `outputs(args)`.
const DOT_CHECK: &str = r#"
import numpy as np
def perturbed(s, v):
    a = dict((k, (x.copy(order="K") if isinstance(x, np.ndarray) else x)) for k, x in args.items())
    for k in wrt:
        a[k] = a[k] + s * v[k] if isinstance(a[k], np.ndarray) else a[k] + s * v[k]
        if isinstance(a[k], np.ndarray):
            a[k] = np.asarray(a[k], order="F" if fortran else "C")
    return sum(float(np.sum(np.asarray(seeds[y]) * o)) for y, o in outputs(a).items())
before = {k: (x.copy() if isinstance(x, np.ndarray) else x) for k, x in args.items()}
value, grads = m.value_and_grad(**args, seeds=seeds)
for k, x in args.items():
    assert np.array_equal(x, before[k]), "value_and_grad modified " + k
assert abs(value - perturbed(0.0, {k: 0 for k in wrt})) <= 1e-12 * max(1.0, abs(value)), value
rng = np.random.default_rng(1)
for trial in range(3):
    v = {k: (rng.standard_normal(np.shape(args[k])) if isinstance(args[k], np.ndarray) else rng.standard_normal()) for k in wrt}
    h = 1e-6
    fd = (perturbed(h, v) - perturbed(-h, v)) / (2 * h)
    ad = sum(float(np.sum(grads[k] * v[k])) for k in wrt)
    assert abs(ad - fd) <= 1e-6 * max(1.0, abs(fd)), (ad, fd)
print("dot-product check passed")
"#;

#[test]
fn numpy_module_gradients_forward_and_checks() {
    if !have_python("numpy") {
        return;
    }
    let dir = scratch("python-softplus");
    build(&["examples/make/kernels/softplus.py"], &dir);
    let script = format!(
        r#"
import sys, numpy as np
import softplus_adjc as m
sys.path.insert(0, "examples/make/kernels")
import softplus as original
fortran = False
rng = np.random.default_rng(0)
args = {{"a": 1.3, "x": rng.standard_normal(17), "y": np.zeros(17)}}
seeds = {{"y": rng.standard_normal(17)}}
wrt = ["a", "x"]
def outputs(a):
    y = a["y"].copy()
    m.softplus(a["a"], a["x"], y)
    return {{"y": y}}
# The C forward equals NumPy's.
y = np.zeros(17); m.softplus(1.3, args["x"], y)
y0 = np.zeros(17); original.softplus(1.3, args["x"], y0)
assert np.allclose(y, y0, rtol=1e-14, atol=0), (y, y0)
{DOT_CHECK}
def raises(kind, text, f):
    try:
        f()
    except kind as e:
        assert text in str(e), str(e)
    else:
        raise AssertionError("no " + kind.__name__)
raises(TypeError, "`x` has dtype float32, expected float64", lambda: m.softplus(1.0, np.zeros(3, np.float32), np.zeros(3)))
raises(ValueError, "`y` has shape (4,), expected (3,)", lambda: m.softplus(1.0, np.zeros(3), np.zeros(4)))
raises(ValueError, "C-contiguous", lambda: m.softplus(1.0, np.zeros(6)[::2], np.zeros(3)))
ro = np.zeros(3); ro.setflags(write=False)
raises(ValueError, "`y` is written and must be writeable", lambda: m.softplus(1.0, np.zeros(3), ro))
raises(ValueError, "no seed for y", lambda: m.value_and_grad(1.0, np.zeros(3), np.zeros(3), seeds={{}}))
print("checks passed")
"#
    );
    let out = run_python(&dir, &script);
    assert!(out.contains("dot-product check passed") && out.contains("checks passed"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fortran_module_takes_fortran_ordered_arrays() {
    if !have_python("numpy") {
        return;
    }
    let dir = scratch("python-gemm");
    build(&["examples/fortran/gemm.f90"], &dir);
    let script = format!(
        r#"
import numpy as np
import gemm_adjc as m
fortran = True
rng = np.random.default_rng(0)
ni, nj, nk = 5, 4, 3
F = lambda a: np.asfortranarray(a)
args = {{"alpha": 0.7, "beta": 1.2, "c": F(rng.standard_normal((nj, ni))), "a": F(rng.standard_normal((nk, ni))), "b": F(rng.standard_normal((nj, nk)))}}
seeds = {{"c": F(rng.standard_normal((nj, ni)))}}
wrt = ["alpha", "beta", "c", "a", "b"]
def outputs(a):
    c = F(a["c"].copy())
    m.gemm(a["alpha"], a["beta"], c, F(a["a"]), F(a["b"]))
    return {{"c": c}}
# The sizes come from the shapes; the product is the one the Fortran computes.
c = args["c"].copy(order="F"); m.gemm(0.7, 1.2, c, args["a"], args["b"])
assert np.allclose(c, 1.2 * args["c"] + 0.7 * (args["b"] @ args["a"]), rtol=1e-13)
{DOT_CHECK}
try:
    m.gemm(0.7, 1.2, np.ascontiguousarray(args["c"]), args["a"], args["b"])
except ValueError as e:
    assert "must be in Fortran order (np.asfortranarray)" in str(e), str(e)
else:
    raise AssertionError("a C-ordered array was accepted")
print("checks passed")
"#
    );
    let out = run_python(&dir, &script);
    assert!(out.contains("dot-product check passed") && out.contains("checks passed"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scipy_example_fits_with_the_adjoint_gradient() {
    if !have_python("numpy, scipy, pytest") {
        return;
    }
    let dir = scratch("python-scipy");
    build(&["examples/scipy/decay.py", "--wrt", "p"], &dir);
    let out = Command::new(python())
        .current_dir(root())
        .env("ADJC_BUILD_DIR", &dir)
        .env("OMP_NUM_THREADS", "1")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "examples/scipy/test_fit.py"])
        .output()
        .expect("run pytest");
    let t = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && t.contains("4 passed"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_build_writes_no_module() {
    let dir = scratch("python-bad");
    let bad = dir.join("bad.py");
    std::fs::write(&bad, "def f(x: 'float64[N]'):\n    with x:\n        x[0] -= 1.0\n").unwrap();
    let out = adjc(&["build", bad.to_str().unwrap(), "--python", "-o", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out).contains("bad.py:2:5: error"), "{}", text(&out));
    assert!(!dir.join("bad_adjc.py").exists() && !dir.join("libbad_adjc.so").exists() && !dir.join("bad.c").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
