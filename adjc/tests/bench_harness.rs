//! benchmarks/bench.py (the adjc vs NumPy vs JAX benchmark) runs in its smoke mode and writes a
//! table that parses: every kernel row has a number in every timing column it should have.
//! No timing is asserted. Needs Python with NumPy (`$ADJC_PYTHON`, else `python3`); without it
//! the test is skipped with a message, and without JAX it runs the benchmark with `--no-jax`.

mod common;

use std::process::Command;

use common::{root, scratch};

fn python() -> Option<String> {
    let exe = std::env::var("ADJC_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&exe).args(["-c", "import numpy"]).output().map(|o| o.status.success()).unwrap_or(false);
    ok.then_some(exe)
}

fn has(py: &str, module: &str) -> bool {
    Command::new(py).args(["-c", &format!("import {module}")]).output().map(|o| o.status.success()).unwrap_or(false)
}

/// The cells of the table that follows the heading `## {title}`, one row per kernel.
fn table(md: &str, title: &str) -> Vec<Vec<String>> {
    let start = md.find(&format!("## {title}")).unwrap_or_else(|| panic!("no `## {title}` in:\n{md}"));
    md[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

/// `12.3 ±4%` -> 12.3
fn ms(cell: &str) -> Option<f64> {
    cell.split_whitespace().next()?.parse().ok()
}

#[test]
fn bench_py_quick_writes_a_table_that_parses() {
    let Some(py) = python() else {
        eprintln!("SKIPPED: no Python with NumPy (set ADJC_PYTHON): benchmarks/bench.py not run");
        return;
    };
    let jax = has(&py, "jax");
    if !jax {
        eprintln!("note: JAX is absent from {py}: running bench.py --no-jax (JAX columns empty)");
    }
    let dir = scratch("bench-py");
    let out = dir.join("results");
    let mut cmd = Command::new(&py);
    cmd.current_dir(root())
        .arg("benchmarks/bench.py")
        .args(["--quick", "--no-plots", "--no-openblas", "--threads", "1"])
        .args(["--adjc", env!("CARGO_BIN_EXE_adjc"), "--python", &py])
        .arg("--out")
        .arg(&out)
        .arg("--workdir")
        .arg(dir.join("work"));
    if !jax {
        cmd.arg("--no-jax");
    }
    let run = cmd.output().expect("run bench.py");
    let log = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "bench.py --quick failed:\n{log}");
    let md = std::fs::read_to_string(out.join("results.md")).expect("results.md");
    assert!(out.join("results.json").exists());
    let rows = table(&md, "One thread");
    assert_eq!(rows.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(), ["jacobi_1d", "gesummv"], "{md}");
    for r in &rows {
        assert_eq!(r.len(), 16, "{md}");
        // NumPy forward, adjc forward and adjoint, adj/fwd.
        for c in [1, 2, 3] {
            assert!(ms(&r[c]).is_some_and(|v| v >= 0.0), "column {c} of {r:?}");
        }
        assert!(r[4].parse::<f64>().is_ok(), "{r:?}");
        // The C forward agrees with NumPy on the same inputs.
        let c_vs_numpy: f64 = r[14].parse().unwrap_or_else(|_| panic!("{r:?}"));
        assert!(c_vs_numpy < 1e-10, "{r:?}");
        if jax {
            // JAX forward, vjp (values and gradient), grad only.
            for c in [5, 6, 7] {
                assert!(ms(&r[c]).is_some(), "JAX column {c} of {r:?}");
            }
            let grad: f64 = r[13].parse().unwrap_or_else(|_| panic!("{r:?}"));
            assert!(grad < 1e-10, "adjc and JAX gradients differ: {r:?}");
        }
    }
    let threads = table(&md, "Threads");
    assert_eq!(threads.len(), 2, "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}
