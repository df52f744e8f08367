//! The modules of the `adjc`, `adjc-emit` and `adjc-autodiff` crates import each other
//! without circles: for each crate root (the library `src/lib.rs`, the command line
//! `src/main.rs`), the graph "module A names module B" (`use crate::b`, `crate::b::f(...)`,
//! `super::b` from a top-level module, `super::super::b` one directory down) between its
//! top-level modules is a DAG. A circle means two modules that cannot be understood, tested
//! or moved one without the other; the pipeline library and the check harness had one, and
//! emit's expression printer and access table another.
//!
//! autodiff had a circle of eight around the reversal context `Ad`: it lives in the leaf
//! module `state` now, with the types of its fields.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules declared by a crate root (`mod x;` / `pub mod x;`).
fn declared_modules(root_file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(root_file).unwrap();
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_prefix("pub ").or_else(|| l.strip_prefix("pub(crate) ")).unwrap_or(l);
            let name = l.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_string())
        })
        .collect()
}

/// Every `.rs` file of module `name` under `src` (the file, or the directory's files), with
/// how many `super::` lead from its code to the crate root (1 for `src/m.rs` and
/// `src/m/mod.rs`, 2 for `src/m/a.rs`).
fn module_files(src: &Path, name: &str) -> Vec<(PathBuf, usize)> {
    let file = src.join(format!("{name}.rs"));
    let dir = src.join(name);
    let mut out = Vec::new();
    if file.is_file() {
        out.push((file, 1));
    }
    if dir.is_dir() {
        let mut stack = vec![(dir, 1)];
        while let Some((d, depth)) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push((p, depth + 1));
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let up = if p.file_name().is_some_and(|n| n == "mod.rs") { depth } else { depth + 1 };
                    out.push((p, up));
                }
            }
        }
    }
    out
}

/// The code of a file without comments (`//` to the end of the line) and string literals.
fn code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut kept = String::new();
        let chars: Vec<char> = line.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            if !in_str && c == '/' && chars.get(k + 1) == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' {
                in_str = !in_str;
            } else if !in_str {
                kept.push(c);
            }
            prev = c;
            k += 1;
        }
        out.push_str(&kept);
        out.push('\n');
    }
    out
}

/// The top-level modules a file names through `crate::` (also inside `use crate::{a, b}`).
fn named_modules(text: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    named_after(&code(text), "crate::", modules)
}

/// The top-level modules a file `up` levels below the crate root names through `crate::` or
/// through `super::` repeated `up` times.
fn named_modules_at(text: &str, up: usize, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code = code(text);
    let mut out = named_after(&code, "crate::", modules);
    let root = "super::".repeat(up);
    // Only where the chain is exactly `up` long: `super::super::x` in `src/m.rs` is no module.
    let mut from = 0;
    while let Some(at) = code[from..].find(&root).map(|k| from + k) {
        let (before, after) = (&code[..at], &code[at + root.len()..]);
        from = at + root.len();
        if before.ends_with("super::") || after.starts_with("super::") {
            // Part of a longer chain: skip the whole chain.
            from = at + root.len() + after.len() - after.trim_start_matches("super::").len();
            continue;
        }
        out.extend(first_names(after).into_iter().filter(|n| modules.contains(n)));
    }
    out
}

/// The names a path continues with: `x` of `x::f`, `a` and `b` of `{a, b::B}`.
fn first_names(rest: &str) -> Vec<String> {
    if let Some(group) = rest.strip_prefix('{') {
        let end = group.find('}').unwrap_or(group.len());
        group[..end].split(',').map(|s| s.trim().split("::").next().unwrap_or("").to_string()).collect()
    } else {
        vec![rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()]
    }
}

/// The top-level modules named right after each `prefix` in `code`.
fn named_after(code: &str, prefix: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        rest = &rest[at + prefix.len()..];
        out.extend(first_names(rest).into_iter().filter(|n| modules.contains(n)));
    }
    out
}

/// A circle in `graph`, if any (the modules on it, in order).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            match state.get(m).copied().unwrap_or(0) {
                1 => {
                    let from = path.iter().position(|p| p == m).unwrap();
                    let mut cycle = path[from..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(m, graph, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

/// The module graph of the crate root `root_file` (in `src`).
pub fn module_graph(src: &Path, root_file: &str) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = declared_modules(&src.join(root_file)).into_iter().collect();
    let mut graph = BTreeMap::new();
    for m in &modules {
        let files = module_files(src, m);
        assert!(!files.is_empty(), "module `{m}` of {root_file} has no file");
        let mut uses = BTreeSet::new();
        for (f, up) in files {
            uses.extend(named_modules_at(&std::fs::read_to_string(&f).unwrap(), up, &modules));
        }
        uses.remove(m);
        graph.insert(m.clone(), uses);
    }
    graph
}

#[test]
fn the_modules_of_adjc_form_a_dag() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = module_graph(&src, "lib.rs");
    let bin = module_graph(&src, "main.rs");
    // No file belongs to both roots.
    let shared: Vec<&String> = lib.keys().filter(|m| bin.contains_key(*m)).collect();
    assert!(shared.is_empty(), "modules compiled into both the library and the binary: {shared:?}");
    for (root, graph) in [("lib.rs", &lib), ("main.rs", &bin)] {
        if let Some(cycle) = find_cycle(graph) {
            panic!("the modules of {root} import each other in a circle: {}\n{graph:#?}", cycle.join(" -> "));
        }
    }
    // The check is not vacuous: the pipeline names the memory stage, the harness the library's
    // types only through `adjc::`.
    assert!(lib["pipeline"].contains("memory"), "{lib:#?}");
    assert!(bin["check"].contains("harness"), "{bin:#?}");
}

#[test]
fn a_circle_is_found() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.insert("a".into(), ["b".to_string()].into());
    g.insert("b".into(), ["c".to_string()].into());
    g.insert("c".into(), ["a".to_string()].into());
    assert_eq!(find_cycle(&g), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    g.insert("c".into(), BTreeSet::new());
    assert_eq!(find_cycle(&g), None);
    let mods: BTreeSet<String> = ["x", "y", "z"].iter().map(|s| s.to_string()).collect();
    let named = named_modules("use crate::{x, y::Y};\n// crate::z\nfn f() { crate::z::g(); \"crate::q\"; }", &mods);
    assert_eq!(named, mods);
}

/// The modules on circles of `graph`, one set per strongly connected component of more
/// than one module.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    // Reachability by a fixpoint: small graphs (tens of modules).
    let mut reach: BTreeMap<&String, BTreeSet<&String>> =
        graph.iter().map(|(k, v)| (k, v.iter().filter(|m| graph.contains_key(*m)).collect())).collect();
    loop {
        let mut changed = false;
        for k in graph.keys() {
            let next: BTreeSet<&String> = reach[k].iter().flat_map(|m| reach[m].iter().copied()).collect();
            let r = reach.get_mut(k).unwrap();
            let before = r.len();
            r.extend(next);
            changed |= r.len() != before;
        }
        if !changed {
            break;
        }
    }
    let mut out: Vec<BTreeSet<String>> = Vec::new();
    for k in graph.keys() {
        let comp: BTreeSet<String> =
            graph.keys().filter(|m| *m == k || (reach[k].contains(m) && reach[*m].contains(k))).cloned().collect();
        if comp.len() > 1 && !out.contains(&comp) {
            out.push(comp);
        }
    }
    out
}

fn crate_src(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir).join("src")
}

#[test]
fn the_modules_of_emit_form_a_dag() {
    let graph = module_graph(&crate_src("emit"), "lib.rs");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("the modules of adjc-emit import each other in a circle: {}\n{graph:#?}", cycle.join(" -> "));
    }
    // Not vacuous: the statement printer names the expression printer, which names the
    // access table.
    assert!(graph["cstmt"].contains("cexpr") && graph["cexpr"].contains("layout"), "{graph:#?}");
}

#[test]
fn the_modules_of_autodiff_form_a_dag() {
    let graph = module_graph(&crate_src("autodiff"), "lib.rs");
    assert_eq!(circles(&graph), Vec::<BTreeSet<String>>::new(), "{graph:#?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("the modules of adjc-autodiff import each other in a circle: {}\n{graph:#?}", cycle.join(" -> "));
    }
    // Not vacuous: the rules name the reversal context, which names none of them.
    assert!(graph["reverse"].contains("state") && graph["checkpoint"].contains("state"), "{graph:#?}");
    assert!(graph["expert"].contains("softmax") && !graph["state"].contains("expert"), "{graph:#?}");
}

#[test]
fn super_paths_name_modules_at_their_depth() {
    let mods: BTreeSet<String> = ["x", "y", "z"].iter().map(|s| s.to_string()).collect();
    let text = "use super::x::X;\nuse super::super::y;\nfn f() { super::{z, q}; }";
    let top: BTreeSet<String> = ["x", "z"].iter().map(|s| s.to_string()).collect();
    assert_eq!(named_modules_at(text, 1, &mods), top);
    assert_eq!(named_modules_at(text, 2, &mods), ["y".to_string()].into());
    let comps = circles(
        &[("a", vec!["b"]), ("b", vec!["a", "c"]), ("c", vec![])]
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect(),
    );
    assert_eq!(comps, vec![["a".to_string(), "b".to_string()].into()]);
}
