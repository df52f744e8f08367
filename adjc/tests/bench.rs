//! `adjc bench` end to end on a tiny kernel: the report parses and its memory figures are
//! exact. Timings are only checked to parse (performance is measured by benchmarks/run.sh,
//! never asserted in tests).

mod common;

use common::{adjc, text};

/// The numeric fields of one report line, found by its leading words.
fn numbers(report: &str, key: &str) -> Vec<f64> {
    let line = report
        .lines()
        .find(|l| l.trim_start().starts_with(key))
        .unwrap_or_else(|| panic!("no `{key}` line in:\n{report}"));
    line.trim_start()[key.len()..]
        .split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')' || c == ';')
        .filter_map(|w| w.parse::<f64>().ok())
        .collect()
}

fn bench(extra: &[&str]) -> String {
    let mut args = vec!["bench", "tests/inputs/bench_tiny.py", "--sizes", "N=7,TSTEPS=5", "--repeat", "1"];
    args.extend_from_slice(extra);
    let out = adjc(&args);
    let t = text(&out);
    assert!(out.status.success(), "adjc {}\n{t}", args.join(" "));
    t
}

#[test]
fn bench_reports_exact_tape_work_and_argument_bytes() {
    for extra in [&[][..], &["--openmp", "--threads", "2"][..]] {
        let r = bench(extra);
        assert!(r.starts_with("adjc bench: bench_tiny (N=7, TSTEPS=5), seed 1, "), "{r}");
        assert!(r.contains("1 timed call each"), "{r}");
        for key in ["forward ms", "adjoint ms"] {
            let v = numbers(&r, key);
            assert_eq!(v.len(), 2, "median and min on `{key}`:\n{r}");
            assert!(v.iter().all(|t| t.is_finite() && *t >= 0.0), "{r}");
            assert_eq!(v[0], v[1], "one call: median = min\n{r}");
        }
        assert!(numbers(&r, "ratio")[0].is_finite(), "{r}");
        // x and y: 7 doubles each.
        assert_eq!(numbers(&r, "argument bytes"), vec![112.0, 56.0, 56.0], "{r}");
        assert!(r.contains("(x 56, y 56)"), "{r}");
        // y is overwritten nonlinearly TSTEPS times: 5 × 7 doubles saved (280). The final y
        // needs no copy of its own: the tape keeps it when the reverse sweep restores y.
        // Whether the 280 sit in a tape array or on a stack tape is the autodiff's choice;
        // the total is not.
        let tape = numbers(&r, "tape bytes");
        assert_eq!(tape.len(), 3, "{r}");
        assert_eq!(tape[0], 280.0, "{r}");
        assert_eq!(tape[1] + tape[2], tape[0], "arrays + stack peak = total\n{r}");
        // s = sin(x) and its adjoint s_b; the forward allocates s alone.
        assert_eq!(numbers(&r, "work bytes"), vec![112.0, 56.0], "{r}");
        assert!(!r.contains("warning"), "{r}");
    }
}

#[test]
fn bench_rejects_threads_without_openmp() {
    let out = adjc(&["bench", "tests/inputs/bench_tiny.py", "--sizes", "N=7,TSTEPS=5", "--threads", "2"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--threads needs --openmp"), "{}", text(&out));
}

#[test]
fn bench_reports_missing_sizes_as_usage_errors() {
    let out = adjc(&["bench", "tests/inputs/bench_tiny.py", "--sizes", "N=7"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("add --sizes TSTEPS=..."), "{}", text(&out));
}

/// The float64 array `name` of an .npz archive and its shape.
fn npz_array(path: &std::path::Path, name: &str) -> (Vec<u64>, Vec<f64>) {
    let mut archive = npyz::npz::NpzArchive::open(path).unwrap();
    let npy = archive.by_name(name).unwrap().unwrap_or_else(|| panic!("no `{name}` in the archive"));
    (npy.shape().to_vec(), npy.into_vec::<f64>().unwrap())
}

#[test]
fn bench_dump_holds_the_inputs_weights_outputs_and_exact_adjoints() {
    let dir = common::scratch("bench-dump");
    let npz = dir.join("values.npz");
    let out = adjc(&[
        "bench",
        "tests/inputs/bench_tiny.py",
        "--sizes",
        "N=7,TSTEPS=3",
        "--repeat",
        "1",
        "--dump",
        npz.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let (shape, x) = npz_array(&npz, "x");
    assert_eq!(shape, vec![7]);
    let (_, y0) = npz_array(&npz, "y");
    let (_, w) = npz_array(&npz, "weight.y");
    let (_, y) = npz_array(&npz, "forward.y");
    let (_, xb) = npz_array(&npz, "adjoint.x");
    let (_, yb) = npz_array(&npz, "adjoint.y");
    assert_eq!((w.len(), y.len(), xb.len(), yb.len()), (7, 7, 7, 7));
    // y ← sin(x)·y² three times, element by element; the derivatives by forward mode.
    for k in 0..7 {
        let s = x[k].sin();
        let (mut v, mut dv_dy0, mut dv_dx) = (y0[k], 1.0, 0.0);
        for _ in 0..3 {
            (dv_dy0, dv_dx) = (2.0 * s * v * dv_dy0, v * v * x[k].cos() + 2.0 * s * v * dv_dx);
            v = s * v * v;
        }
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-13 * (1.0 + b.abs());
        assert!(close(y[k], v), "forward.y[{k}] = {} != {v}", y[k]);
        assert!(close(yb[k], w[k] * dv_dy0), "adjoint.y[{k}] = {} != {}", yb[k], w[k] * dv_dy0);
        assert!(close(xb[k], w[k] * dv_dx), "adjoint.x[{k}] = {} != {}", xb[k], w[k] * dv_dx);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_keeps_a_relative_build_directory() {
    let dir = common::scratch("bench-keep");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjc"))
        .current_dir(&dir)
        .args(["bench"])
        .arg(common::root().join("tests/inputs/bench_tiny.py"))
        .args(["--sizes", "N=7,TSTEPS=2", "--repeat", "1", "--keep", "build"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(dir.join("build/bench_driver").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
