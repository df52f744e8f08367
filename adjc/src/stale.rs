//! Which generated files are out of date with their inputs (`adjc check-stale DIR`).
//!
//! Every generated `.c` (and Python module) lists in its first comment the SHA-256 of each
//! file adjc read to make it (the source, modules found by `use`, `include` and `#include`
//! files), as `sha256sum` prints them (hash, two spaces, path; a long path continues on the
//! next comment line, as the C is wrapped at 100 columns) under [`INPUTS_HEADING`]. A
//! reviewed adjoint stays valid while those inputs do: [`check_dir`] reads the list back
//! from every generated file of a directory and reports the files whose inputs changed or
//! disappeared. Paths are as adjc was given them (relative to the directory it ran in), as
//! in the dependency files.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::options::Input;

/// The header line above the hashes.
pub const INPUTS_HEADING: &str = "inputs (sha256):";

/// `(sha256, path)` of every file read, or of the text given in memory under its name.
pub(crate) fn input_hashes(dependencies: &[PathBuf], input: &Input) -> Vec<(String, String)> {
    if let Input::Text { name, text } = input {
        return vec![(hex(text.as_bytes()), name.clone())];
    }
    dependencies
        .iter()
        .filter_map(|p| std::fs::read(p).ok().map(|bytes| (hex(&bytes), p.display().to_string())))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// A generated file whose input is not what it was made from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stale {
    /// The generated file.
    pub file: PathBuf,
    /// The input, as recorded.
    pub input: String,
    /// `changed` or `missing`.
    pub why: &'static str,
}

/// The inputs a generated file records: `(sha256, path)`.
pub fn recorded_inputs(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut inside = false;
    // A hash whose path was wrapped onto the next line.
    let mut pending: Option<String> = None;
    for line in text.lines().take(400) {
        // The comment markers of C (` * `), Fortran (`! `) and Python (`# `).
        let body = line.trim_start().trim_start_matches(['*', '!', '#', '/']).trim_end();
        if body.trim() == INPUTS_HEADING {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        let entry = body.trim_start();
        if let Some(hash) = pending.take() {
            if entry.is_empty() {
                break;
            }
            out.push((hash, entry.to_string()));
            continue;
        }
        let is_hash = |h: &str| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit());
        match entry.split_once("  ") {
            Some((hash, path)) if is_hash(hash) => out.push((hash.to_string(), path.trim().to_string())),
            None if is_hash(entry) => pending = Some(entry.to_string()),
            _ => break,
        }
    }
    out
}

/// The stale files among the generated files of `dir` (`.c`, `.h`, `.f90`, `.py` with an
/// inputs list), in name order; paths of inputs are resolved from `base`.
pub fn check_dir(dir: &Path, base: &Path) -> std::io::Result<(usize, Vec<Stale>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| ["c", "h", "f90", "py"].iter().any(|x| e == *x)))
        .collect();
    files.sort();
    let mut checked = 0;
    let mut stale = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        let inputs = recorded_inputs(&text);
        if inputs.is_empty() {
            continue;
        }
        checked += 1;
        for (hash, path) in inputs {
            let why = match std::fs::read(base.join(&path)) {
                Ok(bytes) if hex(&bytes) == hash => continue,
                Ok(_) => "changed",
                Err(_) => "missing",
            };
            stale.push(Stale { file: file.clone(), input: path, why });
        }
    }
    Ok((checked, stale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_read_back_from_any_comment_style() {
        let h = "a".repeat(64);
        for prefix in [" * ", "! ", "# "] {
            let text = format!("/*\n{prefix}adjc 0.1.0\n{prefix}{INPUTS_HEADING}\n{prefix}  {h}  k.py\n{prefix}  {h}  m.f90\n{prefix}\n");
            assert_eq!(recorded_inputs(&text), vec![(h.clone(), "k.py".to_string()), (h.clone(), "m.f90".to_string())]);
        }
        assert!(recorded_inputs("int f(void);\n").is_empty());
        // A path wrapped onto the next line.
        let text = format!(" * {INPUTS_HEADING}\n *   {h}\n *     examples/python/a_long_name.py\n *\n");
        assert_eq!(recorded_inputs(&text), vec![(h.clone(), "examples/python/a_long_name.py".to_string())]);
    }
}
