//! What one run of the pipeline is asked to do: typed [`Options`], each field the value of
//! a command-line flag (named in its doc), already parsed. The command line converts its
//! flags into these; a library caller builds them directly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use adjc_autodiff::plan::Strategy;
pub use adjc_autodiff::Checkpointing;

pub use crate::checkpoint_flag::LoopRef;
use crate::error::Error;

/// The kernel's source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Files on disk (`FILE [MORE...]`): one Python file, or Fortran files, the first
    /// holding the entry and the others modules it uses. The first file's extension says
    /// the language.
    Files(Vec<PathBuf>),
    /// Source text in memory. `name` is what diagnostics and the generated comments call
    /// the file; its extension says the language (`kernel.py`, `kernel.f90`). Fortran text
    /// is not preprocessed (text that needs it is refused: give a file); its `include` lines are
    /// looked up in the `include_dirs`.
    Text { name: String, text: String },
}

impl Default for Input {
    fn default() -> Input {
        Input::Files(Vec::new())
    }
}

/// The source languages adjc reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Python,
    Fortran,
}

impl Language {
    /// The language of a file name, by extension (`None`: not a source adjc reads).
    pub fn of(path: &Path) -> Option<Language> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        match ext.as_str() {
            "py" => Some(Language::Python),
            "f90" | "f95" | "f03" | "f08" | "f18" | "f" | "for" | "ftn" | "f77" | "fpp" => Some(Language::Fortran),
            _ => None,
        }
    }
}

/// A memory plan for the adjoint (`--memory-limit`, `--strategy`): made for
/// [`Options::sizes`], the sizes the generated adjoint may then be called with at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryOptions {
    pub strategy: Strategy,
    /// Most bytes the adjoint may hold at once.
    pub limit: Option<u64>,
}

impl MemoryOptions {
    /// The command line's rule: `--strategy` if given, else the ILP with a limit; no plan
    /// without either.
    pub fn from_flags(strategy: Option<Strategy>, limit: Option<u64>) -> Option<MemoryOptions> {
        match (strategy, limit) {
            (None, None) => None,
            (Some(strategy), limit) => Some(MemoryOptions { strategy, limit }),
            (None, Some(limit)) => Some(MemoryOptions { strategy: Strategy::Ilp, limit: Some(limit) }),
        }
    }
}

/// Everything one transpilation needs. `Options::default()` with an [`Input`] is a plain
/// `adjc transpile FILE`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    pub input: Input,
    /// `--function`: the entry function (default: the only one, else the last).
    pub entry: Option<String>,
    /// `--wrt`: inputs to differentiate with respect to (default: every float input).
    pub wrt: Option<Vec<String>>,
    /// `--of`: outputs whose weighted sum is the loss (default: every output).
    pub of: Option<Vec<String>>,
    /// `--arg`: Python parameter types, e.g. `A: float64[N, M]` (override annotations).
    pub arg_types: Vec<String>,
    /// `-D NAME[=VALUE]`: Fortran preprocessor macros.
    pub defines: Vec<String>,
    /// `-I DIR`: Fortran `#include`/`include` and module search directories.
    pub include_dirs: Vec<PathBuf>,
    /// `--name`: base name of the generated files (default: the source's stem).
    pub name: Option<String>,
    /// `--checkpoint`: time loops checkpointed instead of taped.
    pub checkpoints: Vec<(LoopRef, Checkpointing)>,
    /// `--max-trips`: bounds on the trips of `while` loops (memory report and plans).
    pub max_trips: Vec<(LoopRef, u64)>,
    /// `--fixed-point`: `while` loops reversed as fixed-point iterations.
    pub fixed_points: Vec<(LoopRef, adjc_autodiff::FixedPoint)>,
    /// `--memory-limit` / `--strategy`: plan the adjoint's memory (`None`: store all).
    pub memory: Option<MemoryOptions>,
    /// `--fuse-sweeps` (experimental): element-wise forward maps run inside the reverse map
    /// over the same elements (`adjc_autodiff::fuse`).
    pub fuse_sweeps: bool,
    /// `--sizes`: values of the size parameters (a memory plan is made for them).
    pub sizes: BTreeMap<String, i64>,
    /// The command line quoted in the generated files' header comment (none when `None`).
    pub command_line: Option<String>,
    /// `--keep-case` (Fortran): keep the source's spelling of names in the C instead of
    /// lower case.
    pub keep_case: bool,
    /// `--prefix`: put before the C symbols (`ad_heat`, `ad_heat_b`), so they clash
    /// neither with other C code nor, in Fortran, with the original routine's name. The
    /// drop-in Fortran wrappers keep the source's names (`heat_b`).
    pub prefix: Option<String>,
    /// `--line-directives`: a `#line N "file.py"` before each block of generated statements,
    /// so that compiler diagnostics and debuggers point at the source line.
    pub line_directives: bool,
}

impl Options {
    /// [`Options::prefix`], checked: a letter, then letters, digits and `_` (a prefix of C
    /// and Fortran identifiers alike); empty when none.
    pub fn symbol_prefix(&self) -> Result<String, Error> {
        let Some(p) = &self.prefix else { return Ok(String::new()) };
        let ok = p.starts_with(|c: char| c.is_ascii_alphabetic())
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ok {
            return Err(Error::Usage(format!(
                "--prefix `{p}`: a prefix of C and Fortran names is a letter, then letters, digits and `_`"
            )));
        }
        if p.to_ascii_lowercase().starts_with("adjc") {
            return Err(Error::Usage(format!(
                "--prefix `{p}`: names starting with `adjc` are adjc's own (runtime, drivers); choose another, e.g. `ad_`"
            )));
        }
        Ok(p.clone())
    }

    /// Options for source text in memory (see [`Input::Text`]), everything else default.
    pub fn source(name: &str, text: &str) -> Options {
        Options { input: Input::Text { name: name.into(), text: text.into() }, ..Options::default() }
    }

    /// Options for source files (see [`Input::Files`]), everything else default.
    pub fn files(paths: impl IntoIterator<Item = PathBuf>) -> Options {
        Options { input: Input::Files(paths.into_iter().collect()), ..Options::default() }
    }

    /// The first source's name as given (a path or the text's name).
    pub fn main_name(&self) -> PathBuf {
        match &self.input {
            Input::Files(paths) => paths.first().cloned().unwrap_or_default(),
            Input::Text { name, .. } => PathBuf::from(name),
        }
    }

    /// The base name of the written files: [`Options::name`], else the source's stem. It
    /// must be a plain file stem (letters, digits, `_`, `-`, `.`; not starting with `.` or
    /// `-`; at most 200 characters) and not one of the names adjc writes itself.
    pub fn stem(&self) -> Result<String, Error> {
        let (stem, origin) = match &self.name {
            Some(n) => (n.clone(), format!("--name `{n}`")),
            None => {
                let main = self.main_name();
                let s = main.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let origin = format!("the output name `{s}` (from {})", main.display());
                (s, origin)
            }
        };
        let fix = if self.name.is_some() { "choose another --name" } else { "give the outputs a name with --name" };
        let bad = |why: &str| Err(Error::Usage(format!("{origin} {why}; {fix}")));
        let lower = stem.to_lowercase();
        if stem.is_empty() {
            bad("is empty")
        } else if stem.chars().count() > 200 {
            bad("is longer than 200 characters")
        } else if stem.starts_with(['.', '-']) {
            bad("starts with `.` or `-`")
        } else if let Some(c) = stem.chars().find(|c| !(c.is_alphanumeric() || "_-.".contains(*c))) {
            bad(&format!(
                "contains `{}`: a name is a file stem of letters, digits, `_`, `-` and `.` (no directory: -o sets it)",
                c.escape_default()
            ))
        } else if lower.starts_with("adjc_") {
            bad("starts with `adjc_`, the prefix of adjc's own files (adjc_runtime.h, adjc_blas.h)")
        } else if HARNESS_STEMS.contains(&lower.as_str()) {
            bad("is the name of a file the check/bench harness writes")
        } else {
            Ok(stem)
        }
    }

    /// The source language, from the first source's extension.
    pub fn language(&self) -> Result<Language, Error> {
        let main = self.main_name();
        Language::of(&main).ok_or_else(|| {
            let ext = main.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
            let what = if ext.is_empty() { "no file extension".to_string() } else { format!("`.{ext}`") };
            Error::Usage(format!(
                "{}: unsupported source language ({what}); adjc reads Python (`.py`) and Fortran (`.f90`, fixed-form `.f`) files",
                main.display()
            ))
        })
    }
}

/// Stems of the files the check and bench harness writes next to `<stem>.c` in its build
/// directory (besides the runtime headers, `adjc_*`): an output called so would overwrite
/// one of them or be overwritten.
const HARNESS_STEMS: &[&str] = &["check_driver", "bench_driver", "bench_stats", "check_gfortran", "check_numpy"];
