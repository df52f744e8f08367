//! Reading the Fortran sources of a kernel, as gfortran would find them: the C preprocessor
//! for `.F90`/`.F` files and files with `#` directives, `include` files searched next to the
//! including file then in the `-I` directories, and modules a source `use`s that no given
//! file defines, looked up as `<module>.f90` (`.F90`, `.f`, `.F`) next to the first file
//! and in the `-I` directories.
//!
//! The loader reads files; it does not run programs. The preprocessor is injected as a
//! [`Preprocessor`] (the command line runs `cpp` in a subprocess; a test or an embedding
//! may run its own), the way [`super::IncludeResolver`] injects `include` lookup into the
//! parser, which itself never touches the file system.

use std::path::{Path, PathBuf};

use adjc_ir::{Diagnostic, Span};

use super::source::{FortranSource, SourceError};
use crate::source_file::{read_source, LoadError};

/// Where the loader looks and what it defines.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `-D NAME[=VALUE]` macros for the preprocessor.
    pub defines: Vec<String>,
    /// `-I DIR`: searched for `#include` and `include` files and for module files.
    pub include_dirs: Vec<PathBuf>,
}

impl LoadOptions {
    /// `-D NAME[=VALUE]` and `-I DIR` as the preprocessor and gfortran take them.
    pub fn cpp_flags(&self) -> Vec<String> {
        let mut out: Vec<String> = self.defines.iter().map(|d| format!("-D{d}")).collect();
        out.extend(self.include_dirs.iter().map(|d| format!("-I{}", d.display())));
        out
    }
}

/// Why a preprocessor run gave no text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreprocessFailure {
    /// The program does not exist.
    NotFound { program: String },
    /// The program exists but could not be started.
    NotRun { program: String, message: String },
    /// It ran and failed; its standard error (gcc's `file:line:col: error: message` lines).
    Failed { stderr: String },
    /// Its output is not UTF-8.
    NotUtf8,
}

/// Runs the C preprocessor on a file as gfortran does (`cpp -traditional`, line markers
/// kept so diagnostics point at the original lines), with the `-D`/`-I` flags given.
pub trait Preprocessor {
    fn preprocess(&self, path: &Path, flags: &[String]) -> Result<String, PreprocessFailure>;
}

/// Fixed form by extension, as gfortran decides it.
pub fn is_fixed_form(path: &Path) -> bool {
    let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
    matches!(ext.as_str(), "f" | "for" | "ftn" | "f77" | "fpp")
}

/// gfortran preprocesses files whose extension has a capital letter (`.F90`, `.F`, `.FOR`);
/// adjc also preprocesses any file with a `#` directive.
pub fn needs_cpp(path: &Path, text: &str) -> bool {
    let ext = path.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
    ext.chars().any(|c| c.is_ascii_uppercase())
        || ext.eq_ignore_ascii_case("fpp")
        || text.lines().any(|l| l.trim_start().starts_with('#'))
}

fn preprocess(path: &Path, opts: &LoadOptions, cpp: &dyn Preprocessor) -> Result<String, LoadError> {
    let file = path.display().to_string();
    match cpp.preprocess(path, &opts.cpp_flags()) {
        Ok(text) => Ok(text),
        Err(PreprocessFailure::NotFound { program }) => Err(LoadError::PreprocessorMissing { file, program }),
        Err(PreprocessFailure::NotRun { program, message }) => Err(LoadError::PreprocessorNotRun { program, message }),
        Err(PreprocessFailure::Failed { stderr }) => Err(located_cpp_error(&stderr, path)
            .unwrap_or_else(|| LoadError::PreprocessorFailed { file, stderr: stderr.trim_end().to_string() })),
        Err(PreprocessFailure::NotUtf8) => Err(LoadError::PreprocessorOutputNotUtf8 { file }),
    }
}

/// cpp's first `file:line:col: error: message` in `path`, as a diagnostic under the line.
fn located_cpp_error(stderr: &str, path: &Path) -> Option<LoadError> {
    let file = path.display().to_string();
    let line = stderr.lines().find(|l| l.starts_with(&format!("{file}:")) && l.contains("error: "))?;
    let mut parts = line[file.len() + 1..].splitn(3, ':');
    let ln: u32 = parts.next()?.parse().ok()?;
    let col: u32 = parts.next()?.parse().ok()?;
    let message = parts.next()?.split_once("error: ")?.1.trim().to_string();
    let source = std::fs::read_to_string(path).ok()?;
    let span = Span { line: ln, col, start: 0, end: 1 };
    let diag = Diagnostic::error(span, format!("the C preprocessor failed: {message}"))
        .with_help("adjc runs `cpp -traditional` on `.F90`/`.F` files and files with `#` directives, as gfortran does");
    Some(LoadError::Source(SourceError { file, source, diag }))
}

fn load(path: &Path, opts: &LoadOptions, cpp: &dyn Preprocessor) -> Result<FortranSource, LoadError> {
    let (name, text) = read_source(path)?;
    let fixed_form = is_fixed_form(path);
    if needs_cpp(path, &text) {
        let cpp_text = preprocess(path, opts, cpp)?;
        return Ok(FortranSource { name, text: cpp_text, preprocessed: true, fixed_form, original: Some(text) });
    }
    Ok(FortranSource { name, text, preprocessed: false, fixed_form, original: None })
}

/// Where `include 'name'` of file `from` is found: `from`'s directory, then `dirs` (the
/// `-I` directories). An [`super::IncludeResolver`] for the files on disk.
pub fn find_include(name: &str, from: &str, dirs: &[PathBuf]) -> Result<(String, String), String> {
    let own = Path::new(from).parent().map(Path::to_path_buf).unwrap_or_default();
    let mut searched = Vec::new();
    for dir in std::iter::once(&own).chain(dirs.iter()) {
        let path = dir.join(name);
        if path.is_file() {
            // Bounded like every source: an include file is read whole.
            return read_source(&path).map_err(|e| e.to_string());
        }
        searched.push(if dir.as_os_str().is_empty() { ".".to_string() } else { dir.display().to_string() });
    }
    Err(format!("searched {}; add the directory holding it with -I DIR", searched.join(", ")))
}

/// Lower-case names after `keyword` at the start of a statement (`module m`, `use m`).
fn names_after(text: &str, keyword: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let l = line.trim_start().to_ascii_lowercase();
        let Some(rest) = l.strip_prefix(keyword) else { continue };
        if !rest.starts_with([' ', '\t', ',']) {
            continue;
        }
        let rest = rest.trim_start_matches([' ', '\t', ',', ':']);
        let rest = rest.strip_prefix("intrinsic").map(|r| r.trim_start_matches([' ', ':'])).unwrap_or(rest);
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() && name != "procedure" && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The sources of a Fortran kernel and every path read for them.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub sources: Vec<FortranSource>,
    /// `files` followed by the module files found for `use`.
    pub paths: Vec<PathBuf>,
    /// The files the C preprocessor read for them (`#include`), from its line markers, in
    /// order, without the files of `paths`: with `paths`, what a build must watch.
    pub cpp_included: Vec<PathBuf>,
}

/// The files named by cpp's line markers (`# 12 "dir/inc.h" 1`) of preprocessed text,
/// first occurrence order, without cpp's pseudo-files (`<built-in>`, `<command-line>`).
pub fn cpp_included_files(text: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix('#') else { continue };
        let rest = rest.trim_start();
        let rest = rest.strip_prefix("line").map(str::trim_start).unwrap_or(rest);
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            continue;
        }
        let Some(quoted) = rest[digits..].trim_start().strip_prefix('"') else { continue };
        let Some(end) = quoted.find('"') else { continue };
        let name = &quoted[..end];
        if name.is_empty() || name.starts_with('<') {
            continue;
        }
        let path = PathBuf::from(name);
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// Reads `files` (the first holds the entry), plus the files of modules they use that none
/// of them defines (found next to the first file or in an `-I` directory).
pub fn load_sources(files: &[PathBuf], opts: &LoadOptions, cpp: &dyn Preprocessor) -> Result<Loaded, LoadError> {
    let mut paths: Vec<PathBuf> = files.to_vec();
    let mut sources = Vec::new();
    for p in &paths {
        sources.push(load(p, opts, cpp)?);
    }
    let own = files.first().and_then(|f| f.parent()).map(Path::to_path_buf).unwrap_or_default();
    let dirs: Vec<PathBuf> = std::iter::once(own).chain(opts.include_dirs.iter().cloned()).collect();
    let mut k = 0;
    while k < sources.len() {
        let defined: Vec<String> = sources.iter().flat_map(|s| names_after(&s.text, "module")).collect();
        for m in names_after(&sources[k].text, "use") {
            if defined.contains(&m) {
                continue;
            }
            let found = dirs
                .iter()
                .flat_map(|d| ["f90", "F90", "f", "F"].map(|e| d.join(format!("{m}.{e}"))))
                .find(|p| p.is_file());
            if let Some(p) = found {
                if !paths.contains(&p) {
                    sources.push(load(&p, opts, cpp)?);
                    paths.push(p);
                }
            }
        }
        k += 1;
    }
    let mut cpp_included: Vec<PathBuf> = Vec::new();
    for s in sources.iter().filter(|s| s.preprocessed) {
        for p in cpp_included_files(&s.text) {
            if !paths.contains(&p) && !cpp_included.contains(&p) && p.is_file() {
                cpp_included.push(p);
            }
        }
    }
    Ok(Loaded { sources, paths, cpp_included })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A preprocessor that records its calls and returns the file with a line marker.
    struct Fake(std::cell::RefCell<Vec<Vec<String>>>);
    impl Preprocessor for Fake {
        fn preprocess(&self, path: &Path, flags: &[String]) -> Result<String, PreprocessFailure> {
            self.0.borrow_mut().push(flags.to_vec());
            let text = std::fs::read_to_string(path).map_err(|_| PreprocessFailure::NotUtf8)?;
            let kept: String = text.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect();
            Ok(format!("# 1 \"{}\"\n{kept}", path.display()))
        }
    }

    #[test]
    fn preprocessor_is_injected_and_modules_are_found() {
        let dir = std::env::temp_dir().join(format!("adjc-load-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let main = dir.join("main.F90");
        std::fs::write(&main, "subroutine f(x)\n  use consts\n  real(8) :: x\n  x = c * x\nend subroutine\n").unwrap();
        std::fs::write(dir.join("consts.f90"), "module consts\n  real(8), parameter :: c = 2d0\nend module\n").unwrap();
        let cpp = Fake(Default::default());
        let opts = LoadOptions { defines: vec!["N=3".into()], include_dirs: vec![] };
        let loaded = load_sources(&[main.clone()], &opts, &cpp).unwrap();
        assert_eq!(loaded.paths, vec![main, dir.join("consts.f90")]);
        assert!(loaded.sources[0].preprocessed && !loaded.sources[1].preprocessed);
        assert_eq!(*cpp.0.borrow(), vec![vec!["-DN=3".to_string()]]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn line_markers_name_the_included_files() {
        let text = "# 1 \"k.F90\"\n# 1 \"<built-in>\"\n# 1 \"<command-line>\"\n# 1 \"inc/c.h\" 1\nx\n# 3 \"k.F90\" 2\n#line 4 \"d e.h\"\n";
        assert_eq!(cpp_included_files(text), vec![PathBuf::from("k.F90"), "inc/c.h".into(), "d e.h".into()]);
    }

    #[test]
    fn a_missing_preprocessor_is_a_load_error() {
        struct Missing;
        impl Preprocessor for Missing {
            fn preprocess(&self, _: &Path, _: &[String]) -> Result<String, PreprocessFailure> {
                Err(PreprocessFailure::NotFound { program: "nocpp".into() })
            }
        }
        let dir = std::env::temp_dir().join(format!("adjc-load-missing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let main = dir.join("k.F90");
        std::fs::write(&main, "subroutine f(x)\n  real(8) :: x\nend subroutine\n").unwrap();
        let e = load_sources(&[main], &LoadOptions::default(), &Missing).unwrap_err();
        assert!(matches!(e, LoadError::PreprocessorMissing { .. }) && !e.is_io(), "{e:?}");
        assert!(e.to_string().contains("`nocpp` was not found"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
