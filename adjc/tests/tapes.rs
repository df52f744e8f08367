//! Tapes seen from the command line: `--report`, the memory formula in the header, and
//! the shape of the generated C (sizes are runtime parameters, loops are never unrolled).

mod common;

use common::{adjc, root, scratch, text};
use std::path::Path;

/// A nonlinear ping-pong stencil: both arrays need their overwritten regions taped.
const HEAT: &str = r#""""Nonlinear 1-D heat stencil, ping-ponging between A and B."""


def heat(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1] = 0.25 * (A[:-2] * A[2:]) + 0.5 * A[1:-1]
        A[1:-1] = 0.25 * (B[:-2] * B[2:]) + 0.5 * B[1:-1]
"#;

fn heat_file(name: &str) -> (std::path::PathBuf, String) {
    let dir = scratch(name);
    let py = dir.join("heat.py");
    std::fs::write(&py, HEAT).unwrap();
    (dir, py.display().to_string())
}

#[test]
fn report_says_what_each_tape_saves_why_and_how_big_it_is() {
    let (dir, py) = heat_file("report");
    let out = adjc(&["transpile", &py, "--report", "-o", dir.to_str().unwrap()]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("tapes of heat_b:"), "{t}");
    let line = t.lines().find(|l| l.trim_start().starts_with("B_tape")).unwrap_or_else(|| panic!("{t}"));
    let words: Vec<&str> = line.split("  ").map(str::trim).filter(|w| !w.is_empty()).collect();
    assert_eq!(words[..3], ["B_tape", "f64", "max(0, TSTEPS - 1) * max(0, A_n0 - 2) elements"], "{line}");
    assert!(
        words[3].starts_with("saves B[1:-1] before heat.py:6 overwrites it; read by the adjoint of line 7"),
        "{line}"
    );
    // The header documents the same formula in bytes.
    let h = std::fs::read_to_string(dir.join("heat.h")).unwrap();
    assert!(h.contains(" * extra memory: B_tape: 8 * max(0, TSTEPS - 1) * max(0, A_n0 - 2) bytes\n"), "{h}");
    assert!(h.contains(" * extra memory: A_tape: 8 * max(0, TSTEPS - 1) * max(0, A_n0 - 2) bytes\n"), "{h}");
    // A linear stencil saves nothing.
    let out = adjc(&["transpile", "examples/python/jacobi_1d.py", "--report", "--emit", "ir"]);
    assert!(
        text(&out).contains("tapes of jacobi_1d_b:\n  none: the reverse sweep needs no saved value\n"),
        "{}",
        text(&out)
    );
}

/// The generated C of `check` with `--sizes`, without the header line quoting the command.
fn c_for_sizes(file: &str, stem: &str, sizes: &str, keep: &Path) -> String {
    let out = adjc(&["check", file, "--sizes", sizes, "--no-python", "--keep", keep.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(keep.join(format!("{stem}.c"))).unwrap();
    // The banner names the output directory (its command line may be wrapped): leave it out.
    let banner_end = c.lines().position(|l| l == " */").map_or(0, |e| e + 1);
    // Comments the emitter wrapped over several lines are read as one line here.
    let mut out = String::new();
    let mut open = false;
    for l in c.lines().skip(banner_end) {
        if open {
            out.pop();
            out.push(' ');
            out.push_str(l.trim_start().trim_start_matches('*').trim_start());
        } else {
            out.push_str(l);
        }
        out.push('\n');
        let t = l.trim_start();
        if !open && t.starts_with("/*") && !t.contains("*/") {
            open = true;
        } else if open && t.contains("*/") {
            open = false;
        }
    }
    out
}

/// The lines of C function `name` (from its signature to the closing brace).
fn function<'a>(c: &'a str, name: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = c.lines().collect();
    let start = lines.iter().position(|l| l.starts_with(&format!("int {name}("))).expect("function found");
    let len = lines[start..].iter().position(|l| *l == "}").expect("function end");
    lines[start..start + len].to_vec()
}

/// Counts of the `for` loops of a function.
#[derive(Debug, Default, PartialEq)]
struct Loops {
    all: usize,
    /// Loops whose comment is a tape note (save, restore, give back).
    tape: usize,
    /// Other bookkeeping with a note (zeroing of local adjoints, snapshots).
    other: usize,
    /// Loops after the first of a map split into several (one loop of the adjoint).
    split: usize,
}

/// A loop's comment is the nearest comment above it, past pragmas and the heads of the
/// loops and `if`s it is nested in; source-line quotes (`heat.py:6 ...`) mark the loops of
/// source statements. Loops that follow a loop of a split map at the same depth belong to
/// that map.
/// The lines without the sequential copies of guarded OpenMP loops (`if (ADJC_OMP_PAYS(..))
/// { parallel } else { copy }`): the copy is the same loop, not another one.
fn without_serial_copies<'a>(f: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut guards: Vec<usize> = Vec::new();
    let mut skip: Option<usize> = None;
    for l in f {
        let depth = l.len() - l.trim_start().len();
        let t = l.trim();
        if let Some(d) = skip {
            if depth == d && t == "}" {
                skip = None;
            }
            continue;
        }
        if t.starts_with("if (ADJC_OMP_PAYS(") {
            guards.push(depth);
            continue;
        } else if t == "} else {" && guards.last() == Some(&depth) {
            guards.pop();
            skip = Some(depth);
            continue;
        }
        // Pragmas and their comments stand between a loop and its source quote.
        if t.starts_with("ADJC_OMP(")
            || t.starts_with("/* one parallel region")
            || t.starts_with("/* parallel only")
            || t.starts_with("/* sequential:")
        {
            continue;
        }
        out.push(*l);
    }
    out
}

fn count_loops(f: &[&str], source: &str) -> Loops {
    let f = &without_serial_copies(f)[..];
    let mut n = Loops::default();
    let mut in_split: std::collections::BTreeMap<usize, bool> = Default::default();
    for (k, l) in f.iter().enumerate() {
        let depth = l.len() - l.trim_start().len();
        let t = l.trim();
        if !t.starts_with("for (") {
            if !(t.starts_with("ADJC_OMP(") || t == "}" || t == "{" || t.starts_with("/*")) {
                in_split.insert(depth, false);
            }
            continue;
        }
        n.all += 1;
        let mut above = f[..k].iter().rev().map(|l| l.trim()).filter(|l| !l.starts_with("ADJC_OMP("));
        if above.clone().next() == Some("}") && in_split.get(&depth) == Some(&true) {
            n.split += 1;
            continue;
        }
        let comment =
            above.find(|l| !(l.starts_with("for (") || l.starts_with("if ("))).and_then(|l| l.strip_prefix("/* "));
        let comment = comment.unwrap_or("");
        // A gather (the transposed form of a stencil's adjoint) is the statement's reversed
        // loop; its peeled boundary strips and the loops after it are parts of that loop.
        let gather = comment.starts_with("gather form");
        if comment.starts_with("boundary of the gather") {
            n.split += 1;
            continue;
        }
        in_split.insert(depth, comment.starts_with("split so that") || gather);
        if comment.is_empty()
            || comment.starts_with(&format!("{source}:"))
            || comment.starts_with("split so that")
            || gather
        {
            continue;
        }
        if ["tape:", "stack tape:", "restore ", "give "].iter().any(|p| comment.starts_with(p)) {
            n.tape += 1;
        } else {
            n.other += 1;
        }
    }
    n
}

#[test]
fn the_c_does_not_depend_on_the_sizes_and_no_loop_is_unrolled() {
    let (dir, py) = heat_file("unroll");
    let seidel = root().join("examples/python/seidel_2d.py").display().to_string();
    let cases = [
        (py.as_str(), "heat", ["A_n0=10,TSTEPS=3", "A_n0=23,TSTEPS=7"]),
        (seidel.as_str(), "seidel_2d", ["N=7,A_n0=7,A_n1=7,TSTEPS=3", "N=12,A_n0=12,A_n1=12,TSTEPS=5"]),
    ];
    for (file, stem, sizes) in cases {
        let c: Vec<String> = sizes
            .iter()
            .enumerate()
            .map(|(k, s)| c_for_sizes(file, stem, s, &dir.join(format!("{stem}{k}"))))
            .collect();
        assert_eq!(c[0], c[1], "{stem}: the C depends on the sizes");
        let source = format!("{stem}.py");
        let forward = count_loops(&function(&c[0], stem), &source);
        let adjoint = count_loops(&function(&c[0], &format!("{stem}_b")), &source);
        // Each forward loop runs once in each sweep; everything else is bookkeeping with a
        // note (or a map of the reverse sweep split to avoid atomics). A tape save fused into
        // the loop of the update it saves for (map_fusion) is one loop with the tape's note,
        // so the count is at most that, and never below one loop per forward loop and sweep.
        assert_eq!(forward.tape + forward.other + forward.split, 0, "{stem}: {forward:?}");
        let n = &adjoint;
        assert!(n.all <= 2 * forward.all + n.tape + n.other + n.split, "{stem}: {forward:?} {adjoint:?}\n{}", c[0]);
        assert!(n.all >= 2 * forward.all, "{stem}: {forward:?} {adjoint:?}\n{}", c[0]);
        if stem == "heat" {
            // Save and restore of B[1:-1] and A[1:-1], and the copies that give them back.
            assert_eq!((forward.all, n.tape, n.other), (3, 6, 0), "{}", c[0]);
        } else {
            // Linear: no tape.
            assert_eq!(n.tape, 0, "{}", c[0]);
        }
    }
}

/// Kernels whose cheap map `a = h * u` (or `b`) must be taped, not recomputed, because the
/// reverse sweep does not have its inputs back where it would evaluate it again; and kernels
/// where it is recomputed. `(name, source, recomputed, taped)`: the arrays the report must
/// list as recomputed and as taped. Every one must pass the gradient check: a recomputation
/// that read an overwritten value would give a wrong gradient.
const RECOMPUTE_CASES: &[(&str, &str, &[&str], &[&str])] = &[
    (
        // `h` is written twice between the map and the adjoint that reads `a`.
        "two_writes",
        r#"
def two_writes(T, h, u):
    for t in range(T):
        a = h * u
        h[1:-1] = h[1:-1] + 0.1 * u[1:-1]
        h[1:-1] = h[1:-1] * h[1:-1]
        u[1:-1] = u[1:-1] * (a[2:] - a[:-2])
"#,
        &[],
        &["a"],
    ),
    (
        // The adjoint of the reader needs `h` after its update: `h`'s restore cannot move
        // up to the recomputation.
        "reader_needs_new_h",
        r#"
def reader_needs_new_h(T, h, u):
    for t in range(T):
        a = h * u
        h[1:-1] = h[1:-1] + 0.1 * u[1:-1]
        u[1:-1] = u[1:-1] * h[1:-1] * (a[2:] - a[:-2])
"#,
        &[],
        &["a"],
    ),
    (
        // `h` is updated by a sequential loop: its restore is inside the reversed loop.
        "nested_update",
        r#"
def nested_update(T, h, u):
    for t in range(T):
        a = h * u
        for i in range(1, h.shape[0]):
            h[i] = 0.5 * h[i] + 0.25 * h[i - 1] * h[i - 1]
        u[1:-1] = u[1:-1] * (a[2:] - a[:-2])
"#,
        &[],
        &["a"],
    ),
    (
        // `b` reads `h` after the update that `a` would need undone first: `b` is
        // recomputed, `a` taped.
        "restore_would_pass_b",
        r#"
def restore_would_pass_b(T, h, u, v):
    for t in range(T):
        a = h * u
        h[1:-1] = 0.9 * h[1:-1] + 0.1 * u[1:-1]
        b = h + 1.0
        v[1:-1] = v[1:-1] * (a[2:] - a[:-2]) * (b[2:] - b[:-2])
"#,
        &["b"],
        &["a"],
    ),
    (
        // An elementary function is not cheap: taped.
        "not_cheap",
        r#"
import numpy as np


def not_cheap(T, h, u):
    for t in range(T):
        a = np.exp(h) * u
        u[1:-1] = u[1:-1] * (a[2:] - a[:-2])
"#,
        &[],
        &["a"],
    ),
    (
        // Both flux arrays of a shallow-water step: `fu` needs `h` from before its update,
        // whose restore moves up (the reader of `fu` does not read `h`).
        "fluxes",
        r#"
def fluxes(T, g, h, u):
    for t in range(T):
        hu = h * u
        fu = 0.5 * u**2 + g * h
        h[1:-1] -= 0.01 * (hu[2:] - hu[:-2]) * (hu[2:] + hu[:-2])
        u[1:-1] -= 0.01 * (fu[2:] - fu[:-2]) * (fu[2:] + fu[:-2])
"#,
        &["hu", "fu"],
        &[],
    ),
];

#[test]
fn cheap_maps_are_recomputed_only_where_their_inputs_are_back() {
    let mut failures = Vec::new();
    for (name, src, recomputed, taped) in RECOMPUTE_CASES {
        let dir = scratch(&format!("recompute-{name}"));
        let py = dir.join(format!("{name}.py"));
        std::fs::write(&py, src).unwrap();
        let py = py.display().to_string();
        let out = adjc(&["transpile", &py, "--report", "-o", dir.to_str().unwrap()]);
        let t = text(&out);
        assert!(out.status.success(), "{name}: {t}");
        for a in *recomputed {
            if !t.contains(&format!("  {a} recomputed in the reverse sweep")) || t.contains(&format!("  {a}_tape ")) {
                failures.push(format!("{name}: `{a}` should be recomputed:\n{t}"));
            }
        }
        for a in *taped {
            if !t.contains(&format!("  {a}_tape ")) || t.contains(&format!("  {a} recomputed")) {
                failures.push(format!("{name}: `{a}` should be taped:\n{t}"));
            }
        }
        let sizes = if *name == "not_cheap" { "u_n0=9,T=3" } else { "h_n0=9,T=3" };
        for omp in [false, true] {
            let mut args = vec!["check", &py, "--sizes", sizes, "--no-python", "--init", "h=uniform(0.5,1.5)"];
            if omp {
                args.push("--openmp");
            }
            let out = adjc(&args);
            if !out.status.success() {
                failures.push(format!("{name} (openmp {omp}): gradient check failed:\n{}", text(&out)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
