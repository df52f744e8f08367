//! Generated-program testing (issue 10, section 4): a fixed-seed batch of random valid
//! kernels from `tests/gen/kernelgen.py`, in Python and in Fortran, each checked by
//! `tests/gen/run.py` at sizes 0, 1, 3 and a normal size (serial, ASan/UBSan) and at the normal
//! size with OpenMP: forward against NumPy/gfortran, adjoint against finite differences.
//!
//! Needs Python with NumPy (`ADJC_PYTHON`, else `python3`); skipped with a message without
//! it unless `ADJC_REQUIRE_NUMPY=1`. Fortran kernels need gfortran (skipped without it unless
//! `ADJC_REQUIRE_GFORTRAN=1`). Knobs, for running the batch after fixes land or for a longer
//! run: `ADJC_GEN_SEEDS=a,b,...` or `ADJC_GEN_FIRST`/`ADJC_GEN_COUNT` (kernels per
//! language), `ADJC_GEN_FEATURES` / `ADJC_GEN_EXCLUDE` (feature classes, see kernelgen.py),
//! `ADJC_GEN_LANG=py|f90|both`. Bugs are written to `target/gen-findings/`.

mod common;

use common::root;
use std::process::Command;

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn python_with_numpy() -> Option<String> {
    let py = var("ADJC_PYTHON").unwrap_or_else(|| "python3".into());
    let ok = Command::new(&py).args(["-c", "import numpy"]).output().is_ok_and(|o| o.status.success());
    ok.then_some(py)
}

fn has(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn fixed_seed_batch_of_generated_kernels_passes() {
    let required = var("ADJC_REQUIRE_NUMPY").as_deref() == Some("1");
    let Some(py) = python_with_numpy() else {
        assert!(!required, "ADJC_REQUIRE_NUMPY=1 but no python with NumPy (set ADJC_PYTHON)");
        eprintln!("skipped: generated-kernel batch needs Python with NumPy (set ADJC_PYTHON)");
        return;
    };
    let gfortran = var("ADJC_GFORTRAN").unwrap_or_else(|| "gfortran".into());
    let mut lang = var("ADJC_GEN_LANG").unwrap_or_else(|| "both".into());
    if lang != "py" && !has(&gfortran) {
        assert!(var("ADJC_REQUIRE_GFORTRAN").as_deref() != Some("1"), "ADJC_REQUIRE_GFORTRAN=1 but no gfortran");
        eprintln!("note: no gfortran, Fortran kernels skipped");
        lang = "py".into();
    }
    let findings = root().join("target/gen-findings");
    let json = root().join(format!("target/gen-batch-{}.json", std::process::id()));
    let mut cmd = Command::new(&py);
    cmd.current_dir(root())
        .arg("tests/gen/run.py")
        .args(["--lang", &lang, "--quick"])
        .arg("--findings")
        .arg(&findings)
        .arg("--json")
        .arg(&json)
        .env("ADJC_BIN", env!("CARGO_BIN_EXE_adjc"))
        .env("ADJC_PYTHON", &py);
    match var("ADJC_GEN_SEEDS") {
        Some(s) => cmd.args(["--seeds", &s]),
        None => cmd.args([
            "--first",
            &var("ADJC_GEN_FIRST").unwrap_or_else(|| "0".into()),
            "--count",
            &var("ADJC_GEN_COUNT").unwrap_or_else(|| "5".into()),
        ]),
    };
    if let Some(f) = var("ADJC_GEN_FEATURES") {
        cmd.args(["--features", &f]);
    }
    if let Some(f) = var("ADJC_GEN_EXCLUDE") {
        cmd.args(["--exclude", &f]);
    }
    let out = cmd.output().expect("run tests/gen/run.py");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{text}");
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_else(|_| panic!("no results:\n{text}")))
            .unwrap();
    let _ = std::fs::remove_file(&json);
    let all = results.as_array().unwrap();
    let count = |s: &str| all.iter().filter(|r| r["status"] == s).count();
    let (pass, bug, refused) = (count("pass"), count("bug"), count("refused"));
    // A generator whose kernels adjc mostly refuses tests nothing: keep it honest.
    assert!(!all.is_empty(), "no kernel ran:\n{text}");
    assert!(
        (pass + bug) * 4 >= all.len() * 3,
        "only {} of {} generated kernels were accepted ({refused} refused):\n{text}",
        pass + bug,
        all.len()
    );
    assert!(
        out.status.success() && bug == 0,
        "{bug} generated kernels found bugs (reduced reproducers in {}):\n{text}",
        findings.display()
    );
}

/// Every reproducer the generated-program tests found (`tests/gen/findings/*.py`) passes
/// now: the bugs stay fixed.
#[test]
fn saved_findings_stay_fixed() {
    let required = var("ADJC_REQUIRE_NUMPY").as_deref() == Some("1");
    let Some(py) = python_with_numpy() else {
        assert!(!required, "ADJC_REQUIRE_NUMPY=1 but no python with NumPy (set ADJC_PYTHON)");
        eprintln!("skipped: the saved findings need Python with NumPy (set ADJC_PYTHON)");
        return;
    };
    let mut files: Vec<String> = std::fs::read_dir(root().join("tests/gen/findings"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .map(|p| p.strip_prefix(root()).unwrap().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let json = root().join(format!("target/gen-findings-{}.json", std::process::id()));
    let out = Command::new(&py)
        .current_dir(root())
        .arg("tests/gen/run.py")
        .args(["--quick", "--json"])
        .arg(&json)
        .arg("--findings")
        .arg(root().join("target/gen-findings"))
        .arg("--files")
        .args(&files)
        .env("ADJC_BIN", env!("CARGO_BIN_EXE_adjc"))
        .env("ADJC_PYTHON", &py)
        .output()
        .expect("run tests/gen/run.py");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_else(|_| panic!("no results:\n{text}")))
            .unwrap();
    let _ = std::fs::remove_file(&json);
    let all = results.as_array().unwrap();
    assert_eq!(all.len(), files.len(), "{text}");
    assert!(all.iter().all(|r| r["status"] == "pass"), "a saved finding fails again:\n{text}");
}
