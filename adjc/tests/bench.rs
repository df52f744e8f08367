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
