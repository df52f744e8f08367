//! The same algorithm written in NumPy and in Fortran computes the same values: the
//! Python and Fortran examples are lowered and run by the reference interpreters on the
//! same data (1-D data has the same order in both layouts; 2-D data is transposed, as
//! the Fortran examples index `a(j, i)` for row i, column j).

mod common;
#[path = "fortran_common/mod.rs"]
mod fortran_common;

fn read(rel: &str) -> String {
    let path = format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn data(n: usize, seed: u64) -> Vec<f64> {
    common::data(n, seed)
}

#[test]
fn jacobi_1d_matches() {
    let n = 12;
    let (a, b) = (data(n, 1), data(n, 2));
    let py = common::lower(&read("examples/python/jacobi_1d.py"));
    let out_py = common::run(
        &py.functions[0],
        &[
            ("A_n0", common::Data::i(n as i64)),
            ("TSTEPS", common::Data::i(4)),
            ("A", common::Data::arr(&[n], a.clone())),
            ("B", common::Data::arr(&[n], b.clone())),
        ],
    );
    let f90 = fortran_common::lower(&read("examples/fortran/jacobi_1d.f90"));
    // range(1, TSTEPS) runs TSTEPS - 1 steps; `do t = 1, tsteps` runs tsteps.
    let out_f = fortran_common::run(
        &f90.functions[0],
        &[
            ("n", fortran_common::Data::i(n as i64)),
            ("tsteps", fortran_common::Data::i(3)),
            ("a", fortran_common::Data::arr(&[n], a)),
            ("b", fortran_common::Data::arr(&[n], b)),
        ],
    );
    common::assert_close(&out_f["a"].floats(), &out_py["A"].floats());
    common::assert_close(&out_f["b"].floats(), &out_py["B"].floats());
}

#[test]
fn jacobi_2d_matches() {
    let n = 7;
    let (a, b) = (data(n * n, 3), data(n * n, 4));
    let py = common::lower(&read("examples/python/jacobi_2d.py"));
    let sizes: Vec<(String, i64)> = py.functions[0]
        .params
        .iter()
        .map(|p| py.functions[0].var(p.var))
        .filter(|v| v.role == adjc_ir::VarRole::Size)
        .map(|v| (v.name.clone(), n as i64))
        .collect();
    let mut inputs: Vec<(&str, common::Data)> =
        sizes.iter().map(|(name, v)| (name.as_str(), common::Data::i(*v))).collect();
    inputs.push(("TSTEPS", common::Data::i(3)));
    inputs.push(("A", common::Data::arr(&[n, n], a.clone())));
    inputs.push(("B", common::Data::arr(&[n, n], b.clone())));
    let out_py = common::run(&py.functions[0], &inputs);
    // Row-major A[i, j] is column-major a(j, i): the same memory.
    let f90 = fortran_common::lower(&read("examples/fortran/jacobi_2d.f90"));
    let out_f = fortran_common::run(
        &f90.functions[0],
        &[
            ("n", fortran_common::Data::i(n as i64)),
            ("tsteps", fortran_common::Data::i(2)),
            ("a", fortran_common::Data::arr(&[n, n], a)),
            ("b", fortran_common::Data::arr(&[n, n], b)),
        ],
    );
    common::assert_close(&out_f["a"].floats(), &out_py["A"].floats());
    common::assert_close(&out_f["b"].floats(), &out_py["B"].floats());
}
