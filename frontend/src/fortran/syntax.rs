//! tree-sitter-fortran plumbing: parsing, spans, child access and syntax errors.

use crate::ts::first_error_below;
use adjc_ir::{Diagnostic, Span};
use tree_sitter::{Node, Parser, Tree};

pub fn parse(source: &str) -> Result<Tree, Diagnostic> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_fortran::LANGUAGE.into())
        .map_err(|e| Diagnostic::error(Span::NONE, format!("cannot load the Fortran grammar: {e}")))?;
    parser.parse(source, None).ok_or_else(|| Diagnostic::error(Span::NONE, "the Fortran parser gave up on this file"))
}

pub fn span_of(src: &str, n: Node) -> Span {
    let start = n.start_byte();
    let pos = n.start_position();
    let line_start = start.saturating_sub(pos.column);
    let col = src.get(line_start..start).map(|s| s.chars().count()).unwrap_or(pos.column);
    Span { line: pos.row as u32 + 1, col: col as u32 + 1, start: start as u32, end: n.end_byte() as u32 }
}

/// All children, anonymous tokens included, comments excluded.
pub fn children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.children(&mut c).filter(|ch| !ch.is_extra() && ch.kind() != "comment").collect()
}

/// Named children, comments excluded.
pub fn named<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).filter(|ch| !ch.is_extra() && ch.kind() != "comment").collect()
}

pub fn text<'s>(src: &'s str, n: Node) -> &'s str {
    src.get(n.byte_range()).unwrap_or("")
}

/// The first ERROR or MISSING node in document order, preferring the innermost one.
pub fn first_error(root: Node) -> Option<Node> {
    let outer = first_error_below(root, false)?;
    if outer.is_error() {
        if let Some(inner) = first_error_below(outer, true) {
            return Some(inner);
        }
        // Error recovery often swallows a whole procedure into one ERROR node whose
        // first children are intact statements: point at the first piece that is not.
        let mut c = outer.walk();
        let kids: Vec<Node> = outer.children(&mut c).collect();
        let intact = |k: &str| {
            k.ends_with("_statement")
                || k.ends_with("_declaration")
                || matches!(k, "comment" | "do_loop" | "subroutine" | "function" | "module" | "program")
        };
        if let Some(first_bad) = kids.into_iter().find(|k| !intact(k.kind())) {
            return Some(first_bad);
        }
    }
    Some(outer)
}

pub fn syntax_error(src: &str, n: Node) -> Diagnostic {
    let help = "fix the Fortran syntax (adjc reads free-form Fortran 90 and later, and fixed-form `.f` files)";
    // The rest of the source line from the offending node.
    crate::ts::syntax_error(span_of(src, n), n, src.get(n.start_byte()..).unwrap_or(""), help)
}
