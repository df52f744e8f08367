//! The C preprocessor the command line runs on Fortran sources: a `cpp` subprocess
//! (`$ADJC_CPP`, else `cpp` on the `PATH`) in gfortran's mode. The frontend's loader
//! takes any [`Preprocessor`]; this is the one that runs a program.

use std::path::Path;
use std::process::Command;

use adjc_frontend::fortran::{PreprocessFailure, Preprocessor};

/// `cpp -traditional -undef -nostdinc` as gfortran runs it.
#[derive(Clone, Debug)]
pub struct SystemCpp {
    pub program: String,
}

impl SystemCpp {
    /// `$ADJC_CPP`, else `cpp`.
    pub fn from_env() -> SystemCpp {
        SystemCpp { program: std::env::var("ADJC_CPP").unwrap_or_else(|_| "cpp".into()) }
    }
}

impl Preprocessor for SystemCpp {
    fn preprocess(&self, path: &Path, flags: &[String]) -> Result<String, PreprocessFailure> {
        // gfortran's preprocessing: traditional mode (Fortran's `//` and apostrophes in
        // comments are not C tokens), no system macros such as `unix` or `linux`, and line
        // markers kept (no -P) so diagnostics point at the original lines.
        let out = Command::new(&self.program)
            .args(["-traditional", "-undef", "-nostdinc", "-D__GFORTRAN__=1", "-D_LANGUAGE_FORTRAN=1"])
            .args(flags)
            .arg(path)
            .output();
        let out = match out {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(PreprocessFailure::NotFound { program: self.program.clone() })
            }
            Err(e) => return Err(PreprocessFailure::NotRun { program: self.program.clone(), message: e.to_string() }),
        };
        if !out.status.success() {
            return Err(PreprocessFailure::Failed { stderr: String::from_utf8_lossy(&out.stderr).into_owned() });
        }
        String::from_utf8(out.stdout).map_err(|_| PreprocessFailure::NotUtf8)
    }
}
