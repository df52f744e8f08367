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

/// The OpenBLAS kernel set for a CPU with these `/proc/cpuinfo` flags (`SkylakeX` with
/// AVX-512, `Haswell` with AVX2), for `OPENBLAS_CORETYPE`: in a virtual machine that masks
/// the CPU model, Debian's OpenBLAS falls back to generic kernels (dgemm measured 5x slower).
pub fn openblas_coretype(cpuinfo: &str) -> Option<&'static str> {
    let flags: Vec<&str> = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, f)| f.split_whitespace().collect())
        .unwrap_or_default();
    if flags.contains(&"avx512f") {
        Some("SkylakeX")
    } else if flags.contains(&"avx2") {
        Some("Haswell")
    } else {
        None
    }
}

impl BuildConfig {
    /// `adjc config --notes`: how this build runs BLAS and OpenMP threads. The rule behind
    /// it (runtime-c/adjc_blas.h): generated code never calls BLAS inside one of its own
    /// OpenMP regions, so BLAS may use every core between them; only a caller's own parallel
    /// region needs BLAS on one thread. `coretype`: this machine's OpenBLAS kernel set.
    pub fn notes(&self, coretype: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        let omp = if self.openmp {
            "OpenMP: adjc's loops run on OMP_NUM_THREADS threads; no BLAS call is made inside \
             one of adjc's parallel regions, so BLAS and OpenMP take turns on the cores."
        } else {
            "OpenMP: off (add --openmp for -fopenmp); adjc's loops run on one thread."
        };
        out.push(omp.to_string());
        match self.blas {
            Blas::None => {
                out.push(
                    "BLAS: adjc's fallback (adjc_blas.h: blocked, packed gemm; gemv, ger, dot), \
                     nothing to link."
                        .into(),
                );
                out.push(if self.openmp {
                    "BLAS threads: the fallback opens its own region for large operations \
                     (OMP_NUM_THREADS threads) only outside any parallel region \
                     (omp_in_parallel); inside one, yours included, it runs on the calling thread."
                        .into()
                } else {
                    "BLAS threads: one (the fallback threads only under -fopenmp).".into()
                });
            }
            Blas::Cblas => {
                out.push(
                    "BLAS: a CBLAS, linked with -lopenblas (OpenBLAS; BLIS or netlib CBLAS \
                     link the same way)."
                        .into(),
                );
                out.push(
                    "BLAS threads: OPENBLAS_NUM_THREADS (default: every core) or \
                     openblas_set_num_threads(n). Debian's default OpenBLAS is the pthread \
                     build (libopenblas0-pthread): link it as it is."
                        .into(),
                );
                out.push(
                    "Inside your own parallel region: the pthread build does not know it is \
                     in one, so set OPENBLAS_NUM_THREADS=1 or call openblas_set_num_threads(1) \
                     (process-wide) before the region; OpenBLAS's OpenMP build \
                     (libopenblas0-openmp) runs single-threaded inside parallel regions by \
                     itself."
                        .into(),
                );
                let core = match coretype {
                    Some(c) => format!("this machine's instruction set gives OPENBLAS_CORETYPE={c}"),
                    None => "set OPENBLAS_CORETYPE to the CPU's family".into(),
                };
                out.push(format!(
                    "CPU detection: in a virtual machine that masks the CPU model OpenBLAS may \
                     pick generic kernels (dgemm 5x slower); OPENBLAS_VERBOSE=2 prints the \
                     kernel set it chose; {core}."
                ));
            }
            Blas::Mkl => {
                out.push("BLAS: Intel MKL (mkl_rt).".into());
                out.push(
                    "BLAS threads: MKL_NUM_THREADS or mkl_set_num_threads(n); inside your own \
                     parallel region call mkl_set_num_threads_local(1) in each thread (thread \
                     local), or keep MKL_DYNAMIC=TRUE (the default), which makes MKL run on one \
                     thread inside a parallel region."
                        .into(),
                );
            }
        }
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

    #[test]
    fn notes_name_the_thread_settings_of_each_blas() {
        let c = BuildConfig { blas: Blas::Cblas, openmp: true, runtime_dir: None, mkl_root: None };
        let notes = c.notes(Some("SkylakeX")).join("\n");
        assert!(notes.contains("OPENBLAS_NUM_THREADS") && notes.contains("openblas_set_num_threads(1)"), "{notes}");
        assert!(notes.contains("OPENBLAS_CORETYPE=SkylakeX"), "{notes}");
        let m = BuildConfig { blas: Blas::Mkl, ..c.clone() };
        assert!(m.notes(None).join("\n").contains("mkl_set_num_threads_local(1)"));
        let f = BuildConfig { blas: Blas::None, ..c };
        assert!(f.notes(None).join("\n").contains("omp_in_parallel"));
        assert_eq!(openblas_coretype("flags\t\t: fpu avx2 fma\n"), Some("Haswell"));
        assert_eq!(openblas_coretype("flags : avx2 avx512f\n"), Some("SkylakeX"));
        assert_eq!(openblas_coretype(""), None);
    }
}
