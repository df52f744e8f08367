//! The forward check against the original: runs the user's Python function with NumPy on
//! the same inputs as the C driver and compares every output.

use std::path::Path;
use std::process::Command;

use adjc_ir::{Intent, Scalar, VarRole};
use minijinja::{context, Value};

use crate::cli_error::{CliError, CliResult};
use crate::harness::Plan;
use adjc::Transpiled;

pub enum Outcome {
    Skipped(String),
    /// (output name, max relative error)
    Compared(Vec<(String, f64)>),
}

/// `$ADJC_PYTHON`, else `python3`; `None` when it is missing or has no NumPy.
fn python() -> Option<String> {
    let exe = std::env::var("ADJC_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&exe).args(["-c", "import numpy"]).output().map(|o| o.status.success()).unwrap_or(false);
    ok.then_some(exe)
}

fn py_str(s: &str) -> String {
    let escaped: String = s.chars().flat_map(|c| if c == '\\' || c == '"' { vec!['\\', c] } else { vec![c] }).collect();
    format!("\"{escaped}\"")
}

pub fn compare(t: &Transpiled, plan: &Plan, dir: &Path, source: &Path) -> CliResult<Outcome> {
    let Some(python) = python() else {
        return Ok(Outcome::Skipped("python3 with NumPy not found: install numpy or set ADJC_PYTHON".into()));
    };
    let source = std::fs::canonicalize(source).map_err(|e| CliError::Io(format!("{}: {e}", source.display())))?;
    let mut args = Vec::new();
    let mut outputs = Vec::new();
    let mut c_off = 0usize;
    let mut ret_index = 0usize;
    for p in &plan.params {
        if p.is_output() {
            let mut o = std::collections::BTreeMap::new();
            o.insert("name", Value::from(py_str(&p.name)));
            o.insert("off", Value::from(c_off));
            o.insert("count", Value::from(p.count()));
            if p.role == VarRole::Return {
                o.insert("ret", Value::from(ret_index));
                ret_index += 1;
            } else {
                o.insert("ret", Value::from(()));
                o.insert("arg", Value::from(args.len()));
            }
            outputs.push(Value::from(o));
            c_off += p.count();
        }
        if p.role != VarRole::Param {
            continue;
        }
        let mut a = std::collections::BTreeMap::new();
        match (p.int_value, &p.shape) {
            (Some(v), _) => {
                a.insert("kind", Value::from("int"));
                a.insert("value", Value::from(v));
            }
            (None, None) => {
                a.insert("kind", Value::from("scalar"));
                a.insert("pytype", Value::from(if p.elem == Scalar::F32 { "np.float32" } else { "float" }));
                a.insert("off", Value::from(p.x_off.unwrap_or(0)));
            }
            (None, Some(shape)) => {
                if p.intent == Intent::Out {
                    return Ok(Outcome::Skipped(format!("`{}` is written before it is read", p.name)));
                }
                a.insert("kind", Value::from("array"));
                a.insert("off", Value::from(p.x_off.unwrap_or(0)));
                a.insert("count", Value::from(p.count()));
                let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
                a.insert("shape", Value::from(format!("({},)", dims.join(", "))));
                let dtype = match p.elem {
                    Scalar::F32 => "float32",
                    Scalar::F64 => "float64",
                    Scalar::I64 => "int64",
                    Scalar::Bool => "bool_",
                };
                a.insert("dtype", Value::from(dtype));
            }
        }
        args.push(Value::from(a));
    }
    let script = crate::templates::render(
        "check_numpy.py.j2",
        context! {
            source_path => py_str(&source.to_string_lossy()),
            fname => py_str(&t.routine),
            args => args,
            outputs => outputs,
        },
    )?;
    std::fs::write(dir.join("check_numpy.py"), script)
        .map_err(|e| CliError::Io(format!("cannot write script: {e}")))?;
    let out = Command::new(&python)
        .current_dir(dir)
        .args(["check_numpy.py", "inputs.bin", "forward.bin"])
        .output()
        .map_err(|e| CliError::Io(format!("cannot run {python}: {e}")))?;
    if !out.status.success() {
        return Err(CliError::CheckFailed(format!(
            "the original Python function failed on the check inputs:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let mut rows = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let ["numpy", name, err] = words.as_slice() {
            rows.push((name.to_string(), err.parse().unwrap_or(f64::INFINITY)));
        }
    }
    Ok(Outcome::Compared(rows))
}
