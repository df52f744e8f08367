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
        put(&mut npz, name, shape, values);
    }
}

fn put<T: npyz::Serialize + npyz::AutoSerialize + Copy, W: std::io::Write + std::io::Seek>(
    npz: &mut npyz::npz::NpzWriter<W>,
    name: &str,
    shape: &[u64],
    values: &[T],
) {
    let mut w = npz.array::<T>(name, Default::default()).unwrap().default_dtype().shape(shape).begin_nd().unwrap();
    w.extend(values.iter().copied()).unwrap();
    w.finish().unwrap();
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

#[test]
fn check_rejects_an_archive_with_a_missing_misspelt_or_extra_name_or_no_arrays() {
    let dir = scratch("npz-names");
    type Arrays<'a> = &'a [(&'a str, &'a [u64], &'a [f64])];
    let cases: [(&str, Arrays, &str); 4] = [
        ("missing", &[("A", &[2, 3], &A)], "the archive has no `s` (it holds `A`)"),
        ("misspelt", &[("A", &[2, 3], &A), ("S", &[], &[S])], "`S` is not a parameter of `npz_kernel`"),
        ("extra", &[("A", &[2, 3], &A), ("s", &[], &[S]), ("t", &[], &[S])], "`t` is not a parameter"),
        ("empty", &[], "the archive holds no arrays"),
    ];
    for (name, arrays, message) in cases {
        let npz = dir.join(format!("{name}.npz"));
        write_npz(&npz, arrays);
        let out = check(&dir.join("build"), &npz);
        assert_eq!(out.status.code(), Some(2), "{name}: {}", text(&out));
        assert!(text(&out).contains(message), "{name}: {}", text(&out));
        assert!(!text(&out).contains("check passed"), "{name}: {}", text(&out));
    }
    // An input left out of the archive may take its values from --init instead.
    let npz = dir.join("missing.npz");
    let out = adjc(&[
        "check",
        "tests/inputs/npz_kernel.py",
        "--sizes",
        "N=2,M=3",
        "--inputs",
        npz.to_str().unwrap(),
        "--init",
        "s=const(4)",
    ]);
    assert!(out.status.success() && text(&out).contains("check passed"), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Integer arrays (the indices of a gather) are read from the archive, int64 or int32, and
/// passed to the C driver and to NumPy; without an archive they are drawn over the axis they
/// index, or from `--init`.
#[test]
fn check_runs_a_gather_kernel_on_integer_indices_from_the_archive() {
    let dir = scratch("npz-gather");
    let x = [0.5, -1.5, 2.0, 3.0, -0.25];
    for int32 in [false, true] {
        let npz = dir.join("gather.npz");
        {
            let mut w = npyz::npz::NpzWriter::create(&npz).unwrap();
            put(&mut w, "x", &[5], &x);
            if int32 {
                put(&mut w, "idx", &[3], &[4i32, 0, 3]);
            } else {
                put(&mut w, "idx", &[3], &[4i64, 0, 3]);
            }
        }
        let build = dir.join("build");
        let out = adjc(&[
            "check",
            "tests/inputs/gather_kernel.py",
            "--sizes",
            "M=5,N=3",
            "--inputs",
            npz.to_str().unwrap(),
            "--keep",
            build.to_str().unwrap(),
        ]);
        assert!(out.status.success() && text(&out).contains("check passed"), "{}", text(&out));
        // ret[i] = x[idx[i]]^2
        assert_eq!(f64s(&build.join("forward.bin")), vec![0.0625, 0.25, 9.0]);
    }
    // bench takes the same archive.
    let npz = dir.join("gather.npz");
    let args = ["bench", "tests/inputs/gather_kernel.py", "--sizes", "M=5,N=3", "--inputs", npz.to_str().unwrap()];
    let out = adjc(&[&args[..], &["--repeat", "2"]].concat());
    assert!(out.status.success() && text(&out).contains("adjc bench: gather_kernel"), "{}", text(&out));
    // Without an archive, the indices are drawn over the axis they index (randint(0, M)),
    // or given with --init; an integer array that indexes nothing needs one or the other.
    for extra in [&[][..], &["--init", "idx=permutation(M)"][..], &["--init", "idx=randint(2,5)"][..]] {
        let out = adjc(&[&["check", "tests/inputs/gather_kernel.py", "--sizes", "M=5,N=3"][..], extra].concat());
        assert!(out.status.success() && text(&out).contains("check passed"), "{extra:?}: {}", text(&out));
    }
    let out = adjc(&["check", "tests/inputs/int_unused.py", "--sizes", "N=3"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("integer array `k`") && text(&out).contains("--inputs"), "{}", text(&out));
    let out = adjc(&["check", "tests/inputs/gather_kernel.py", "--sizes", "M=5,N=3", "--init", "idx=uniform(0,1)"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("`idx` is an integer array: give randint"), "{}", text(&out));
    // Indices must be integers.
    let npz = dir.join("float_idx.npz");
    write_npz(&npz, &[("x", &[5], &x), ("idx", &[3], &[4.0, 0.5, 3.0])]);
    let out =
        adjc(&["check", "tests/inputs/gather_kernel.py", "--sizes", "M=5,N=3", "--inputs", npz.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("`idx` holds 0.5, which is not an integer"), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Fortran: integer indices from the archive reach the C driver and the gfortran-compiled
/// original (as `integer` of the declared kind), which agree.
#[test]
fn check_runs_a_fortran_gather_against_gfortran() {
    let dir = scratch("npz-fgather");
    let npz = dir.join("idx.npz");
    {
        let mut w = npyz::npz::NpzWriter::create(&npz).unwrap();
        put(&mut w, "x", &[5], &[0.5, -1.5, 2.0, 3.0, -0.25]);
        put(&mut w, "idx", &[3], &[5i64, 1, 4]);
    }
    let build = dir.join("build");
    let out = adjc(&[
        "check",
        "tests/inputs/fgather.f90",
        "--sizes",
        "n=3,m=5",
        "--inputs",
        npz.to_str().unwrap(),
        "--keep",
        build.to_str().unwrap(),
    ]);
    let t = text(&out);
    assert!(out.status.success() && t.contains("check passed"), "{t}");
    assert_eq!(f64s(&build.join("forward.bin")), vec![0.0625, 0.25, 9.0]);
    if std::env::var("ADJC_REQUIRE_GFORTRAN").is_ok_and(|v| v == "1") || !t.contains("gfortran not found") {
        assert!(t.lines().any(|l| l.contains("forward vs gfortran: y") && l.trim_end().ends_with("ok")), "{t}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
