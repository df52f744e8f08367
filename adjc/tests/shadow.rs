//! Scalar gradients passed by pointer are accumulated in a local inside loops and written
//! back once (a `(*alpha_b) +=` in a loop nest defeats register allocation and
//! vectorisation because the pointer may alias the arrays).

mod common;

use common::{adjc, root, text};

#[test]
fn pointer_scalar_gradients_are_accumulated_in_a_local() {
    let dir = "target/adjc-shadow";
    let _ = std::fs::remove_dir_all(root().join(dir));
    let out = adjc(&["transpile", "examples/python/syrk.py", "-o", dir]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(root().join(dir).join("syrk.c")).unwrap();
    let adjoint = &c[c.find("int syrk_b(").expect("adjoint")..];
    assert!(adjoint.contains("alpha_b_acc = (*alpha_b);"), "{adjoint}");
    assert!(adjoint.contains("alpha_b_acc += "), "{adjoint}");
    assert!(adjoint.contains("(*alpha_b) = alpha_b_acc;"), "{adjoint}");
    assert!(!adjoint.contains("(*alpha_b) +="), "{adjoint}");
    // And the gradient is still right, serial and parallel.
    for omp in [false, true] {
        let mut args = vec!["check", "examples/python/syrk.py", "--sizes", "C_n0=6,C_n1=6,A_n0=6,A_n1=5"];
        if omp {
            args.push("--openmp");
        }
        let out = adjc(&args);
        assert!(out.status.success() && text(&out).contains("d/dalpha"), "{}", text(&out));
    }
}
