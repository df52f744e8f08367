//! Reading Fortran sources for the frontend: the C preprocessor (a subprocess, as gfortran
//! runs it) for `.F90`/`.F` files and files with `#` directives, `include` files searched
//! next to the including file then in the `-I` directories, and modules a source `use`s
//! that no given file defines, looked up as `<module>.f90` (`.F90`, `.f`, `.F`) next to
//! the first file and in the `-I` directories.

use std::path::{Path, PathBuf};
use std::process::Command;

use adjc_frontend::FortranSource;

use crate::cli::{CliError, CliResult, TranspileArgs};
use crate::pipeline::read_source;

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

/// `-D NAME[=VALUE]` and `-I DIR` as the preprocessor and gfortran take them.
pub fn cpp_flags(args: &TranspileArgs) -> Vec<String> {
    let mut out: Vec<String> = args.defines.iter().map(|d| format!("-D{d}")).collect();
    out.extend(args.include_dirs.iter().map(|d| format!("-I{}", d.display())));
    out
}

fn preprocess(path: &Path, args: &TranspileArgs) -> CliResult<String> {
    let cpp = std::env::var("ADJC_CPP").unwrap_or_else(|_| "cpp".into());
    // gfortran's preprocessing: traditional mode (Fortran's `//` and apostrophes in
    // comments are not C tokens), no system macros such as `unix` or `linux`, and line
    // markers kept (no -P) so diagnostics point at the original lines.
    let out = Command::new(&cpp)
        .args(["-traditional", "-undef", "-nostdinc", "-D__GFORTRAN__=1", "-D_LANGUAGE_FORTRAN=1"])
        .args(cpp_flags(args))
        .arg(path)
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CliError::Usage(format!(
                "{} needs the C preprocessor (a `.F90`/`.F` file or `#` directives), but `{cpp}` was not found; \
                 install it (e.g. `apt install cpp`) or set ADJC_CPP to its path",
                path.display()
            )))
        }
        Err(e) => return Err(CliError::Io(format!("cannot run the C preprocessor `{cpp}`: {e}"))),
    };
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        if let Some(e) = located_cpp_error(&stderr, path) {
            return Err(e);
        }
        return Err(CliError::Usage(format!(
            "the C preprocessor failed on {}:\n{}",
            path.display(),
            stderr.trim_end()
        )));
    }
    String::from_utf8(out.stdout)
        .map_err(|_| CliError::Usage(format!("the C preprocessor's output for {} is not UTF-8", path.display())))
}

/// cpp's first `file:line:col: error: message` in `path`, as a diagnostic under the line.
fn located_cpp_error(stderr: &str, path: &Path) -> Option<CliError> {
    let file = path.display().to_string();
    let line = stderr.lines().find(|l| l.starts_with(&format!("{file}:")) && l.contains("error: "))?;
    let mut parts = line[file.len() + 1..].splitn(3, ':');
    let ln: u32 = parts.next()?.parse().ok()?;
    let col: u32 = parts.next()?.parse().ok()?;
    let message = parts.next()?.split_once("error: ")?.1.trim().to_string();
    let source = std::fs::read_to_string(path).ok()?;
    let span = adjc_ir::Span { line: ln, col, start: 0, end: 1 };
    let diag = adjc_ir::Diagnostic::error(span, format!("the C preprocessor failed: {message}"))
        .with_help("adjc runs `cpp -traditional` on `.F90`/`.F` files and files with `#` directives, as gfortran does");
    Some(CliError::Source { file, source, diag })
}

fn load(path: &Path, args: &TranspileArgs) -> CliResult<FortranSource> {
    let (name, text) = read_source(path)?;
    let fixed_form = is_fixed_form(path);
    if needs_cpp(path, &text) {
        let cpp_text = preprocess(path, args)?;
        return Ok(FortranSource { name, text: cpp_text, preprocessed: true, fixed_form, original: Some(text) });
    }
    Ok(FortranSource { name, text, preprocessed: false, fixed_form, original: None })
}

/// Where `include 'name'` of file `from` is found: `from`'s directory, then the `-I`
/// directories.
pub fn find_include(name: &str, from: &str, dirs: &[PathBuf]) -> Result<(String, String), String> {
    let own = Path::new(from).parent().map(Path::to_path_buf).unwrap_or_default();
    let mut searched = Vec::new();
    for dir in std::iter::once(&own).chain(dirs.iter()) {
        let path = dir.join(name);
        if path.is_file() {
            // Bounded like every source: an include file is read whole.
            return read_source(&path).map_err(|e| match e {
                CliError::Source { file, diag, .. } => format!("{file}: {}", diag.message),
                CliError::Usage(m) | CliError::Io(m) | CliError::CheckFailed(m) => m,
            });
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

/// The files of the command line, plus the files of modules they use that none of them
/// defines (found next to the first file or in a `-I` directory): the frontend's sources
/// and every path read.
pub fn load_all(args: &TranspileArgs) -> CliResult<(Vec<FortranSource>, Vec<PathBuf>)> {
    let mut paths: Vec<PathBuf> = std::iter::once(args.file.clone()).chain(args.more.iter().cloned()).collect();
    let mut sources = Vec::new();
    for p in &paths {
        sources.push(load(p, args)?);
    }
    let own = args.file.parent().map(Path::to_path_buf).unwrap_or_default();
    let dirs: Vec<PathBuf> = std::iter::once(own).chain(args.include_dirs.iter().cloned()).collect();
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
                    sources.push(load(&p, args)?);
                    paths.push(p);
                }
            }
        }
        k += 1;
    }
    Ok((sources, paths))
}
