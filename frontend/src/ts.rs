//! tree-sitter and source-text helpers shared by the Python and Fortran frontends.

use adjc_ir::{Diagnostic, Span};
use std::collections::BTreeSet;
use tree_sitter::Node;

/// The first ERROR or MISSING node below `root` in document order (`root` itself unless
/// `skip_root`). Pre-order search with an explicit stack: hostile input can nest deeply.
pub(crate) fn first_error_below(root: Node, skip_root: bool) -> Option<Node> {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let is_root = n.id() == root.id();
        if !(skip_root && is_root) && (n.is_error() || n.is_missing()) {
            return Some(n);
        }
        if !(n.has_error() || is_root) {
            continue;
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n.children(&mut c).collect();
        stack.extend(kids.into_iter().rev());
    }
    None
}

/// The diagnostic for an ERROR or MISSING node `n` at `span`. `text` starts at `n`; its
/// first line is quoted because the node alone may be a single token.
pub(crate) fn syntax_error(span: Span, n: Node, text: &str, help: &str) -> Diagnostic {
    if n.is_missing() {
        let what = if n.is_named() { n.kind().replace('_', " ") } else { format!("`{}`", n.kind()) };
        return Diagnostic::error(span, format!("syntax error: missing {what}")).with_help(help);
    }
    let line = text.lines().next().unwrap_or("").trim();
    let mut shown: String = line.chars().take(40).collect();
    if line.chars().count() > 40 {
        shown.push_str("...");
    }
    let msg =
        if shown.is_empty() { "syntax error".to_string() } else { format!("syntax error: cannot parse `{shown}`") };
    Diagnostic::error(span, msg).with_help(help)
}

/// Every identifier-like word of the source (generated names avoid them), lower case
/// when `fold_case` (Fortran names are case-insensitive).
pub(crate) fn identifiers(source: &str, fold_case: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut cur = String::new();
    for c in source.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() || c == '_' {
            cur.push(if fold_case { c.to_ascii_lowercase() } else { c });
        } else if !cur.is_empty() {
            if !cur.starts_with(|c: char| c.is_ascii_digit()) {
                out.insert(std::mem::take(&mut cur));
            } else {
                cur.clear();
            }
        }
    }
    out
}
