//! `adjc bench --dump FILE.npz`: the values of a bench run as a NumPy archive, so that
//! another implementation of the kernel can run on exactly the same inputs and seeds and its
//! gradient can be compared with adjc's (benchmarks/bench.py does this with NumPy and JAX).
//!
//! Names in the archive (parameter names contain no `.`, so the prefixes cannot collide):
//! * `NAME`: the initial value of every input (float, or integer array), in its own dtype
//!   (float32 parameters as float32, integer arrays as int64; 0-d arrays for scalars);
//! * `weight.NAME`: the weight of every output in the loss (the adjoint's seed);
//! * `forward.NAME`: every float output after one forward call from the inputs;
//! * `adjoint.NAME`: the adjoint of every differentiated input after one adjoint call
//!   seeded with the weights (the gradient of Σ weight·output with respect to NAME).
//!
//! The forward outputs and adjoints come from the timing driver (`values.bin`, float64 in
//! parameter order), the inputs and weights from the plan's data file.

use std::path::Path;

use adjc_ir::Scalar;
use npyz::WriterBuilder;

use crate::cli_error::{CliError, CliResult};
use crate::harness::{Plan, PlanParam};

fn shape(p: &PlanParam) -> Vec<u64> {
    p.shape.as_ref().map(|s| s.iter().map(|&d| d as u64).collect()).unwrap_or_default()
}

/// One array named `name`, in the parameter's own dtype.
fn put<W: std::io::Write + std::io::Seek>(
    npz: &mut npyz::npz::NpzWriter<W>,
    name: &str,
    p: &PlanParam,
    values: &[f64],
) -> std::io::Result<()> {
    let shape = shape(p);
    match p.elem {
        Scalar::F32 => {
            let mut w = npz.array::<f32>(name, Default::default())?.default_dtype().shape(&shape).begin_nd()?;
            w.extend(values.iter().map(|&v| v as f32))?;
            w.finish()
        }
        Scalar::F64 => {
            let mut w = npz.array::<f64>(name, Default::default())?.default_dtype().shape(&shape).begin_nd()?;
            w.extend(values.iter().copied())?;
            w.finish()
        }
        Scalar::I64 | Scalar::Bool => {
            let mut w = npz.array::<i64>(name, Default::default())?.default_dtype().shape(&shape).begin_nd()?;
            w.extend(values.iter().map(|&v| v as i64))?;
            w.finish()
        }
    }
}

pub fn write(path: &Path, plan: &Plan, values_file: &Path) -> CliResult<()> {
    let bytes = std::fs::read(values_file)
        .map_err(|e| CliError::Io(format!("cannot read the values of the bench driver: {e}")))?;
    let values: Vec<f64> =
        bytes.chunks_exact(8).map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])).collect();
    let outputs: Vec<&PlanParam> = plan.params.iter().filter(|p| p.is_output()).collect();
    let wrt: Vec<&PlanParam> = plan.params.iter().filter(|p| p.wrt).collect();
    let expected: usize = outputs.iter().chain(&wrt).map(|p| p.count()).sum();
    if values.len() != expected || bytes.len() % 8 != 0 {
        return Err(CliError::CheckFailed(format!(
            "the bench driver wrote {} values, expected {expected}",
            values.len()
        )));
    }
    let io = |e: std::io::Error| CliError::Io(format!("cannot write {}: {e}", path.display()));
    let mut npz = npyz::npz::NpzWriter::create(path).map_err(io)?;
    for p in &plan.params {
        if let Some(off) = p.x_off {
            put(&mut npz, &p.name, p, &plan.data[off..off + p.count()]).map_err(io)?;
        }
        if let Some(off) = p.w_off {
            put(&mut npz, &format!("weight.{}", p.name), p, &plan.data[off..off + p.count()]).map_err(io)?;
        }
    }
    let mut at = 0;
    for (prefix, list) in [("forward", &outputs), ("adjoint", &wrt)] {
        for p in list.iter() {
            put(&mut npz, &format!("{prefix}.{}", p.name), p, &values[at..at + p.count()]).map_err(io)?;
            at += p.count();
        }
    }
    Ok(())
}
