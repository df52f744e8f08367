//! Snapshot tests of the printed primal IR of every Fortran example (reviewed by hand).

#[path = "fortran_common/mod.rs"]
mod fortran_common;
use fortran_common::*;

fn example(name: &str) -> String {
    let dir = format!("{}/../examples/fortran", env!("CARGO_MANIFEST_DIR"));
    let free = format!("{dir}/{name}.f90");
    let (path, fixed_form) =
        if std::path::Path::new(&free).exists() { (free, false) } else { (format!("{dir}/{name}.f"), true) };
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut m = lower_with(&src, &adjc_frontend::FortranOptions { entry: None, fixed_form });
    m.file = path.rsplit('/').next().map(|f| format!("examples/fortran/{f}")).unwrap_or_default();
    adjc_ir::print::print_module(&m)
}

macro_rules! example_snapshot {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            insta::assert_snapshot!(concat!("example_", stringify!($name)), example(stringify!($name)));
        }
    )*};
}

example_snapshot!(
    advect_pure,
    atax,
    bicg,
    correlation,
    doitgen,
    fdtd_2d,
    k2mm,
    mvt,
    syr2k,
    bratu,
    speelpenning,
    cholesky,
    energy,
    gemm,
    gemm_matmul,
    jacobi_1d,
    jacobi_2d,
    seidel_2d,
    shift_sections,
    smooth_bounds,
    softnorm,
    upwind,
    with_helpers
);

#[test]
fn every_example_has_a_snapshot() {
    let dir = format!("{}/../examples/fortran", env!("CARGO_MANIFEST_DIR"));
    let n = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "f90" || x == "f")))
        .count();
    assert_eq!(n, 23, "add the new example to example_snapshot! above");
}
