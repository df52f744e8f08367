//! The flags that compile and link generated C (`adjc config`), the pkg-config file
//! (`adjc.pc`, written by `adjc runtime`) and the make fragment (`adjc.mk`, printed by
//! `adjc makefile`).
//!
//! Where the runtime headers live: **next to the generated files.** Every `adjc transpile`
//! writes `adjc_runtime.h` and `adjc_blas.h` into its output directory (only when their
//! content changes, atomically: [`crate::write`]), and the generated `.c` includes them
//! with `#include "..."`, so compiling it needs no `-I`; a driver that includes `<stem>.h`
//! needs `-I<outdir>`, which `adjc config --cflags --runtime-dir <outdir>` prints. An
//! installed adjc carries the headers in its binary: `adjc runtime -o DIR` writes them (and
//! `adjc.pc`) for builds that want one shared copy. There is no system-wide include
//! directory to find or to get out of date.
//!
//! The compile flags are what generated code relies on (C11, `-fno-trapping-math` for
//! vectorised conditionals, see README "Building the generated C: recommended flags"),
//! OpenMP and the BLAS selection; the optimisation level (`-O3 -march=native` recommended)
//! stays the user's `CFLAGS`, as with pkg-config.

use std::path::Path;

/// Which BLAS the generated matrix products call (`-DADJC_BLAS=...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blas {
    /// adjc's own loops (no library).
    None,
    /// A CBLAS (`cblas.h`, OpenBLAS: `-lopenblas`).
    Cblas,
    /// Intel MKL (`mkl.h`, the single dynamic library `mkl_rt`).
    Mkl,
}

/// What `adjc config` is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildConfig {
    pub blas: Blas,
    pub openmp: bool,
    /// Where the runtime headers are (`-I`); `None`: next to the generated `.c` only.
    pub runtime_dir: Option<String>,
    /// `$MKLROOT`, for MKL's include and library directories.
    pub mkl_root: Option<String>,
}

/// Flags generated code is compiled with, whatever the build: C11 and
/// `-fno-trapping-math`.
pub const BASE_CFLAGS: &[&str] = &["-std=c11", "-fno-trapping-math"];

impl BuildConfig {
    /// `adjc config --cflags`.
    pub fn cflags(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(dir) = &self.runtime_dir {
            out.push(format!("-I{dir}"));
        }
        out.extend(BASE_CFLAGS.iter().map(|s| s.to_string()));
        if self.openmp {
            out.push("-fopenmp".into());
        }
        match self.blas {
            Blas::None => {}
            Blas::Cblas => out.push("-DADJC_BLAS=cblas".into()),
            Blas::Mkl => {
                out.push("-DADJC_BLAS=mkl".into());
                if let Some(root) = &self.mkl_root {
                    out.push(format!("-I{root}/include"));
                }
            }
        }
        out
    }

    /// `adjc config --libs`.
    pub fn libs(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.openmp {
            out.push("-fopenmp".into());
        }
        match self.blas {
            Blas::None => {}
            Blas::Cblas => out.push("-lopenblas".into()),
            Blas::Mkl => {
                // Intel's link line for the single dynamic library (Link Line Advisor).
                if let Some(root) = &self.mkl_root {
                    out.push(format!("-L{root}/lib/intel64"));
                    out.push(format!("-Wl,-rpath,{root}/lib/intel64"));
                }
                out.extend(["-Wl,--no-as-needed", "-lmkl_rt", "-lpthread", "-ldl"].map(String::from));
            }
        }
        out.push("-lm".into());
        out
    }
}

/// `adjc.pc` for the runtime headers in `dir` (absolute, so that `pkg-config` works from
/// any directory): `pkg-config --cflags adjc` gives `-I<dir>` and the base flags.
pub fn pkg_config(dir: &Path) -> String {
    format!(
        "# pkg-config file of adjc's runtime headers; written by `adjc runtime`.\n\
         # OpenMP and BLAS: `adjc config --cflags --libs --openmp --blas cblas`.\n\
         includedir={}\n\
         \n\
         Name: adjc\n\
         Description: runtime headers of the C that adjc generates\n\
         Version: {}\n\
         Cflags: -I${{includedir}} {}\n\
         Libs: -lm\n",
        dir.display(),
        env!("CARGO_PKG_VERSION"),
        BASE_CFLAGS.join(" ")
    )
}

/// `adjc.mk`, the make fragment `adjc makefile` prints (see its comments).
pub const MAKEFILE: &str = include_str!("adjc.mk");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_follow_the_options() {
        let c = BuildConfig { blas: Blas::Cblas, openmp: true, runtime_dir: Some("out".into()), mkl_root: None };
        assert_eq!(c.cflags().join(" "), "-Iout -std=c11 -fno-trapping-math -fopenmp -DADJC_BLAS=cblas");
        assert_eq!(c.libs().join(" "), "-fopenmp -lopenblas -lm");
        let plain = BuildConfig { blas: Blas::None, openmp: false, runtime_dir: None, mkl_root: None };
        assert_eq!(plain.cflags().join(" "), "-std=c11 -fno-trapping-math");
        assert_eq!(plain.libs().join(" "), "-lm");
    }
}
