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

use adjc::{MemoryOptions, MemoryPlan, Strategy, Transpiled};
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
    let split = c_lines.iter().skip(start).position(|l| l.text == "}").map_or(c_lines.len(), |k| start + k + 1);
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
        plan => planned.memory.as_ref().map(|m| plan_value(m, planned.memory_report(adjc::ReportFormat::Json).as_deref())),
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

fn bytes(b: u64) -> String {
    adjc::human(b)
}

/// The plan's table (from the JSON memory report, the same rows `adjc plan` prints) and
/// its timeline.
fn plan_value(m: &MemoryPlan, report: Option<&str>) -> Value {
    let sizes: Vec<String> = m.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let json: serde_json::Value = report.and_then(|r| serde_json::from_str(r).ok()).unwrap_or_default();
    let rows = json.get("candidates").and_then(|c| c.as_array()).cloned().unwrap_or_default();
    let candidates: Vec<Value> = rows
        .iter()
        .map(|c| {
            let s = |key: &str| c.get(key).and_then(|v| v.as_str()).unwrap_or("").to_string();
            context! {
                id => s("id"), kind => s("kind"), line => c.get("line").and_then(|v| v.as_u64()),
                formula => s("bytes_formula"), bytes => bytes(c.get("bytes").and_then(|v| v.as_u64()).unwrap_or(0)),
                decision => s("decision"), why => s("store_only"),
                flops => c.get("recompute_flops").and_then(|v| v.as_f64()).map(|f| format!("{f:.0}")).unwrap_or_default(),
            }
        })
        .collect();
    let loads = adjc_autodiff::plan::loads(&m.model, &m.plan.recompute, &m.plan.loops);
    let labels: Vec<&str> = m.model.points.iter().map(|p| p.label.as_str()).collect();
    context! {
        sizes => sizes.join(", "),
        strategy => match m.strategy {
            Strategy::StoreAll => "store-all",
            Strategy::RecomputeAll => "recompute-all",
            Strategy::Ilp => "ILP",
        },
        limit => m.limit.map(bytes),
        peak => bytes(m.plan.peak),
        store_all_peak => bytes(m.plan.store_all_peak),
        status => m.plan.status.clone(),
        candidates => candidates,
        svg => timeline_svg(&labels, &loads, m.limit),
    }
}

/// The memory timeline as an inline SVG bar chart (one bar per point, forward sweep then
/// reverse sweep, the limit as a dashed line).
fn timeline_svg(labels: &[&str], loads: &[i128], limit: Option<u64>) -> String {
    let (w, h, left, bottom, top) = (900.0, 240.0, 70.0, 30.0, 12.0);
    let max = loads.iter().copied().max().unwrap_or(0).max(limit.unwrap_or(0) as i128).max(1) as f64;
    let n = loads.len().max(1) as f64;
    let bar = (w - left - 10.0) / n;
    let y = |b: f64| top + (h - top - bottom) * (1.0 - b / max);
    let esc = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;");
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" \
         aria-label=\"memory over the two sweeps\">\n"
    );
    svg.push_str(&format!(
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>\n",
        h - bottom,
        w - 10.0,
        h - bottom
    ));
    for (k, (load, label)) in loads.iter().zip(labels).enumerate() {
        let x = left + bar * k as f64;
        let top_y = y(*load as f64);
        let reverse = label.starts_with("reverse");
        let fill = if reverse { "#d9822b" } else { "#2a5db0" };
        svg.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"{top_y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{fill}\"><title>{}: {}</title></rect>\n",
            (bar - 1.0).max(1.0),
            (h - bottom - top_y).max(0.0),
            esc(label),
            bytes(*load as u64)
        ));
    }
    if let Some(limit) = limit {
        let ly = y(limit as f64);
        svg.push_str(&format!(
            "<line x1=\"{left}\" y1=\"{ly:.1}\" x2=\"{}\" y2=\"{ly:.1}\" stroke=\"#c00\" stroke-dasharray=\"6 4\"/>\n",
            w - 10.0
        ));
        svg.push_str(&format!(
            "<text x=\"{}\" y=\"{:.1}\" font-size=\"11\" fill=\"#c00\" text-anchor=\"end\">limit {}</text>\n",
            w - 12.0,
            ly - 3.0,
            bytes(limit)
        ));
    }
    svg.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
        left - 4.0,
        top + 8.0,
        bytes(max as u64)
    ));
    svg.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">0</text>\n",
        left - 4.0,
        h - bottom
    ));
    svg.push_str(&format!(
        "<text x=\"{left}\" y=\"{}\" font-size=\"11\">forward sweep (blue), reverse sweep (orange): {} statements</text>\n",
        h - 8.0,
        loads.len()
    ));
    svg.push_str("</svg>");
    svg
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
