//! `adjc review`: one self-contained HTML page per kernel for the scientist who reviews the
//! adjoint (issue 16): the source, the forward C and the adjoint C side by side, each C line
//! linked to the source line it was generated from (both ways); what the adjoint stores and
//! why (the memory plan's candidates, the tape report), the memory over the two sweeps as
//! an inline SVG, and with `--check` the output of `adjc check` as evidence.
//!
//! The link from C to source comes from the comments adjc writes above every block
//! (`/* file.py:12   statement */`): a C line belongs to the nearest such comment above it at
//! the same or a shallower indentation, so the lines of a loop body belong to the statement
//! inside it and the closing brace to the loop; a blank line ends the blocks at its
//! indentation (adjc separates statements with one).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use adjc::{MemoryOptions, Strategy, Transpiled};
use minijinja::{context, Value};

use crate::cli::ReviewArgs;
use crate::cli_error::{CliError, CliResult};
use crate::commands;

/// `adjc review`.
pub fn run_review(args: &ReviewArgs) -> CliResult<()> {
    let options = commands::options(&args.transpile)?;
    let t = adjc::Pipeline::new(options.clone()).run()?;
    // The page shows the C these flags give; with sizes but no memory flags, a store-all
    // plan made aside gives the bytes and the timeline (without changing the C shown).
    let planned = if !options.sizes.is_empty() && options.memory.is_none() {
        let with_plan =
            adjc::Options { memory: Some(MemoryOptions { strategy: Strategy::StoreAll, limit: None }), ..options };
        Some(adjc::Pipeline::new(with_plan).run()?)
    } else {
        None
    };
    let plan_source = planned.as_ref().unwrap_or(&t);
    let check = if args.check { Some(run_check()?) } else { None };
    let source_path = &args.transpile.file;
    let source = std::fs::read_to_string(source_path)
        .map_err(|e| CliError::Io(format!("cannot read {}: {e}", source_path.display())))?;
    let old_c = match &args.diff {
        Some(dir) => {
            let path = dir.join(format!("{}.c", t.stem));
            let text = std::fs::read_to_string(&path)
                .map_err(|e| CliError::Io(format!("--diff: cannot read the reviewed {}: {e}", path.display())))?;
            Some((path, text))
        }
        None => None,
    };
    let html = page(&t, plan_source, source_path, &source, check.as_deref(), old_c.as_ref())?;
    let out = output_path(&args.transpile.out_dir, &t.stem);
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| CliError::Io(format!("cannot create {}: {e}", dir.display())))?;
    }
    adjc::write::write_if_changed(&out, html.as_bytes())
        .map_err(|e| CliError::Io(format!("cannot write {}: {e}", out.display())))?;
    println!("wrote {}", out.display());
    Ok(())
}

/// `-o report.html` names the page; `-o DIR` (or the default `.`) writes `DIR/<stem>.review.html`.
fn output_path(out: &Path, stem: &str) -> PathBuf {
    if out.extension().is_some_and(|e| e == "html" || e == "htm") {
        out.to_path_buf()
    } else {
        out.join(format!("{stem}.review.html"))
    }
}

/// `adjc check` with this command's flags (but `--check` and `-o`), its output as text.
fn run_check() -> CliResult<String> {
    let mut args: Vec<String> = Vec::new();
    let mut skip = false;
    for a in std::env::args().skip(1) {
        if skip {
            skip = false;
            continue;
        }
        match a.as_str() {
            "review" if args.is_empty() => args.push("check".into()),
            "--check" => {}
            "-o" | "--out-dir" => skip = true,
            _ if a.starts_with("--out-dir=") || (a.starts_with("-o") && a.len() > 2 && !a.starts_with("--")) => {}
            _ => args.push(a),
        }
    }
    let exe = std::env::current_exe().map_err(|e| CliError::Io(format!("cannot find adjc itself: {e}")))?;
    let out = std::process::Command::new(exe)
        .args(&args)
        .output()
        .map_err(|e| CliError::Io(format!("cannot run adjc check: {e}")))?;
    let text = format!(
        "$ adjc {}\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(CliError::CheckFailed(format!("the review's check failed:\n{text}")));
    }
    Ok(text)
}

/// One C line and the source line it came from.
struct CLine {
    text: String,
    src: Option<u32>,
}

/// The source line each C line was generated from (see the module docs), for comments that
/// name `file_name`.
fn link_lines(c: &str, file_name: &str) -> Vec<CLine> {
    let marker = format!("/* {file_name}:");
    let mut stack: Vec<(usize, u32)> = Vec::new();
    let mut out = Vec::new();
    let mut after_blank = false;
    for text in c.lines() {
        let trimmed = text.trim_start();
        let indent = text.len() - trimmed.len();
        if trimmed.is_empty() {
            after_blank = true;
            out.push(CLine { text: text.to_string(), src: None });
            continue;
        }
        // adjc separates statements' blocks with blank lines: what follows one at the same
        // indentation (the work arrays' release, a sweep's banner) is not the last statement's.
        if std::mem::take(&mut after_blank) {
            while stack.last().is_some_and(|&(i, _)| i >= indent) {
                stack.pop();
            }
        }
        if indent == 0 {
            // A function's signature, its closing brace, a macro: outside every statement.
            stack.clear();
            out.push(CLine { text: text.to_string(), src: None });
            continue;
        }
        let quoted = trimmed.strip_prefix(&marker).and_then(|rest| {
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse::<u32>().ok()
        });
        if let Some(line) = quoted {
            while stack.last().is_some_and(|&(i, _)| i >= indent) {
                stack.pop();
            }
            stack.push((indent, line));
        } else {
            while stack.last().is_some_and(|&(i, _)| i > indent) {
                stack.pop();
            }
        }
        out.push(CLine { text: text.to_string(), src: stack.last().map(|&(_, l)| l) });
    }
    out
}

fn column(class: &str, id: &str, title: &str, lines: &[CLine]) -> Value {
    column_marked(class, id, title, lines, None)
}

/// A column whose lines numbered in `changed` (1-based) are marked as changed.
fn column_marked(class: &str, id: &str, title: &str, lines: &[CLine], changed: Option<&[u32]>) -> Value {
    let lines: Vec<Value> = lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let mark = changed.is_some_and(|c| c.contains(&(k as u32 + 1)));
            context! { text => l.text.clone(), src => l.src, changed => mark }
        })
        .collect();
    context! { class => class, id => id, title => title, lines => lines }
}

/// The source lines whose generated C lines (their text, in order, in either function)
/// differ between `old` (the whole reviewed `.c`) and the new forward and adjoint.
fn changed_lines(old: &[CLine], forward: &[CLine], adjoint: &[CLine]) -> Vec<u32> {
    let group = |lines: &mut dyn Iterator<Item = &CLine>| {
        let mut by_line: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        for l in lines {
            if let Some(n) = l.src {
                by_line.entry(n).or_default().push(l.text.trim().to_string());
            }
        }
        by_line
    };
    let before = group(&mut old.iter());
    let after = group(&mut forward.iter().chain(adjoint));
    let mut lines: Vec<u32> = before.keys().chain(after.keys()).copied().collect();
    lines.sort_unstable();
    lines.dedup();
    lines.retain(|n| before.get(n) != after.get(n));
    lines
}

/// The page of `t`, with the memory plan of `planned` (`t` itself, or `t` planned store-all).
fn page(
    t: &Transpiled,
    planned: &Transpiled,
    source_path: &Path,
    source: &str,
    check: Option<&str>,
    old_c: Option<&(PathBuf, String)>,
) -> CliResult<String> {
    let file_name = Path::new(&t.module.file).file_name().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
    let c = t.c();
    let mut c_lines = link_lines(c, &file_name);
    // The forward function ends at the first closing brace in column 0 after its signature.
    let forward_name = format!("int {}(", t.files.prototypes.first().map_or("", |p| p.name.as_str()));
    let start = c_lines.iter().position(|l| l.text.starts_with(&forward_name)).unwrap_or(0);
    let mut split = c_lines.iter().skip(start).position(|l| l.text == "}").map_or(c_lines.len(), |k| start + k + 1);
    // The forward's own `#undef`s of its index macros (and the blank lines around them) close it.
    while c_lines.get(split).is_some_and(|l| l.text.is_empty() || l.text.starts_with("#undef ")) {
        split += 1;
    }
    let adjoint = c_lines.split_off(split);
    let forward = c_lines;

    // Source lines some C line links to, and the first of them the self-test clicks: one
    // with lines in both functions.
    let count = |lines: &[CLine], n: u32| lines.iter().filter(|l| l.src == Some(n)).count();
    let linked: BTreeMap<u32, (usize, usize)> = forward
        .iter()
        .chain(&adjoint)
        .filter_map(|l| l.src)
        .map(|n| (n, (count(&forward, n), count(&adjoint, n))))
        .collect();
    let selftest = linked.iter().find(|(_, (f, a))| *f > 0 && *a > 0).or_else(|| linked.iter().next());
    let selftest = match selftest {
        Some((n, (f, a))) => context! { line => n, fwd => f, adj => a },
        None => context! { line => 0, fwd => 0, adj => 0 },
    };
    // Source lines whose C differs from the reviewed version's (in either function).
    let changed: Option<Vec<u32>> =
        old_c.map(|(_, old)| changed_lines(&link_lines(old, &file_name), &forward, &adjoint));
    let src_lines: Vec<CLine> = source
        .lines()
        .enumerate()
        .map(|(k, text)| {
            let n = k as u32 + 1;
            CLine { text: text.to_string(), src: linked.contains_key(&n).then_some(n) }
        })
        .collect();
    let columns = vec![
        column_marked("src", "src", &format!("Source: {}", source_path.display()), &src_lines, changed.as_deref()),
        column("c", "fwd", &format!("Forward C: {}", t.primal().name), &forward),
        column("c", "adj", &format!("Adjoint C: {}", t.adjoint.function.name), &adjoint),
    ];
    let ctx = context! {
        version => adjc::VERSION,
        stem => t.stem.clone(),
        source_name => source_path.display().to_string(),
        command => commands::command_line(),
        columns => columns,
        plan => planned.memory.as_ref().map(|m| crate::review_plan::plan_value(m, planned)),
        tape_report => t.tape_report(),
        check => check,
        selftest => selftest,
        diff => old_c.map(|(path, _)| context! {
            old => path.display().to_string(),
            lines => changed.clone().unwrap_or_default(),
        }),
    };
    crate::templates::render("review.html.j2", ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_lines_link_to_the_nearest_enclosing_source_comment() {
        let c = "int f(int64_t n)\n{\n    /* k.py:3   for i in range(n): */\n    for (i = 0; i < n; i++) {\n        \
                 /* k.py:4   y[i] = x[i] */\n        y[i] = x[i];\n    }\n    ret = 0.0;\n    /* k.py:6   s = 1 */\n    s = 1;\n\n    free(w);\n}\n";
        let links: Vec<Option<u32>> = link_lines(c, "k.py").iter().map(|l| l.src).collect();
        let expected =
            [None, None, Some(3), Some(3), Some(4), Some(4), Some(3), Some(3), Some(6), Some(6), None, None, None];
        assert_eq!(links, expected);
    }
}
