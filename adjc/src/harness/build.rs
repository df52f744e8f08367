//! The build directory of a generated driver, the data file it reads, and running the C
//! compiler and the driver.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli_error::{CliError, CliResult};

/// `keep`, created if needed, or a fresh temporary directory removed with the guard.
pub fn build_dir(keep: Option<&Path>) -> CliResult<(PathBuf, Option<TempDir>)> {
    if let Some(dir) = keep {
        std::fs::create_dir_all(dir).map_err(|e| CliError::Io(format!("cannot create {}: {e}", dir.display())))?;
        // Absolute: the drivers run with the build directory as their working directory,
        // where a relative `--keep k` would name `k/k/...`.
        let dir =
            std::fs::canonicalize(dir).map_err(|e| CliError::Io(format!("cannot resolve {}: {e}", dir.display())))?;
        return Ok((dir, None));
    }
    let tmp = TempDir::new()?;
    Ok((tmp.0.clone(), Some(tmp)))
}

/// A build directory removed when the run is over.
pub struct TempDir(PathBuf);

impl TempDir {
    fn new() -> CliResult<TempDir> {
        let base = std::env::temp_dir();
        for k in 0..1000u32 {
            let dir = base.join(format!("adjc-build-{}-{k}", std::process::id()));
            if std::fs::create_dir(&dir).is_ok() {
                return Ok(TempDir(dir));
            }
        }
        Err(CliError::Io("cannot create a temporary build directory".into()))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Little-endian float64 values, the format of the drivers' `inputs.bin`.
pub fn write_f64s(path: &Path, values: &[f64]) -> CliResult<()> {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).map_err(|e| CliError::Io(format!("cannot write {}: {e}", path.display())))
}

/// Runs `cmd` to completion; its standard output, or a failure naming `what`.
pub fn run(cmd: &mut Command, what: &str) -> CliResult<String> {
    let out = cmd.output().map_err(|e| CliError::CheckFailed(format!("cannot run {what}: {e}")))?;
    if !out.status.success() {
        return Err(CliError::CheckFailed(format!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `cc` (or `$CC`) with `flags`, `-fopenmp` when asked, then `$CFLAGS`; libraries in
/// `$LDLIBS` (`-lopenblas` with `CFLAGS=-DADJC_BLAS=cblas`) come after the sources.
/// Compiles one C source of `dir` into an object (`-O1`, `$CFLAGS`), for a link by another
/// compiler (the gfortran program of `adjc check`'s wrapper comparison).
pub fn compile_object(dir: &Path, source: &str, object: &str, openmp: bool) -> CliResult<()> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut cmd = Command::new(&cc);
    cmd.current_dir(dir).args(["-std=c11", "-O1", "-I.", "-c"]);
    if openmp {
        cmd.arg("-fopenmp");
    }
    if let Ok(flags) = std::env::var("CFLAGS") {
        cmd.args(flags.split_whitespace());
    }
    cmd.args([source, "-o", object]);
    run(&mut cmd, &format!("the C compiler (`{cc}`)")).map(|_| ())
}

pub fn compile(dir: &Path, flags: &[&str], sources: &[&str], exe: &str, openmp: bool) -> CliResult<()> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let mut cmd = Command::new(&cc);
    cmd.current_dir(dir).args(flags).arg("-I.");
    if openmp {
        cmd.arg("-fopenmp");
    }
    if let Ok(flags) = std::env::var("CFLAGS") {
        cmd.args(flags.split_whitespace());
    }
    cmd.args(sources).args(["-o", exe]);
    if let Ok(libs) = std::env::var("LDLIBS") {
        cmd.args(libs.split_whitespace());
    }
    cmd.arg("-lm");
    run(&mut cmd, &format!("the C compiler (`{cc}`)")).map(|_| ())
}
