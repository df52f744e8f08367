//! `adjc check --inputs FILE.npz`: the driver runs on the archive's values. The archive is
//! written here (no Python needed); the kept build directory shows the values went into
//! the data file and that the forward function computed with them.

mod common;

use std::path::Path;

use common::{adjc, scratch, text};
use npyz::WriterBuilder;

const A: [f64; 6] = [0.5, -1.5, 2.0, 3.0, -0.25, 1.0];
const S: f64 = 4.0;

/// An `.npz` archive with a float64 array per entry (shape `[]` for a 0-d array).
fn write_npz(path: &Path, arrays: &[(&str, &[u64], &[f64])]) {
    let mut npz = npyz::npz::NpzWriter::create(path).unwrap();
    for (name, shape, values) in arrays {
        let mut w =
            npz.array::<f64>(name, Default::default()).unwrap().default_dtype().shape(shape).begin_nd().unwrap();
        w.extend(values.iter().copied()).unwrap();
        w.finish().unwrap();
    }
}

fn f64s(path: &Path) -> Vec<f64> {
    let bytes = std::fs::read(path).unwrap();
    bytes.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
}

fn check(dir: &Path, npz: &Path) -> std::process::Output {
    adjc(&[
        "check",
        "tests/inputs/npz_kernel.py",
        "--sizes",
        "N=2,M=3",
        "--inputs",
        npz.to_str().unwrap(),
        "--keep",
        dir.to_str().unwrap(),
    ])
}

#[test]
fn check_runs_on_the_values_of_an_npz_archive() {
    let dir = scratch("npz");
    let npz = dir.join("inputs.npz");
    write_npz(&npz, &[("A", &[2, 3], &A), ("s", &[], &[S])]);
    let out = check(&dir.join("build"), &npz);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("check passed"), "{}", text(&out));
    // The data file starts with the inputs in parameter order: A, then s.
    let data = f64s(&dir.join("build/inputs.bin"));
    assert_eq!(data[..6], A);
    assert_eq!(data[6], S);
    // ret = A * A * s, exact in float64 for these values.
    let forward = f64s(&dir.join("build/forward.bin"));
    assert_eq!(forward, vec![1.0, 9.0, 16.0, 36.0, 0.25, 4.0]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_rejects_an_npz_array_of_the_wrong_shape() {
    let dir = scratch("npz-shape");
    let npz = dir.join("inputs.npz");
    write_npz(&npz, &[("A", &[3, 2], &A), ("s", &[], &[S])]);
    let out = check(&dir.join("build"), &npz);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("--inputs: `A` has shape [3, 2] in the file but [2, 3] for these sizes"),
        "{}",
        text(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
