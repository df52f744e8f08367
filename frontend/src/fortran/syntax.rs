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

/// What gfortran rejects and tree-sitter-fortran accepts: a bare `end` closing a `do`,
/// `if`, `select`, ... construct (only program units end with a bare `end`), an `end
/// subroutine` (function, module, program) naming another unit.
pub fn structure_error(src: &str, root: Node) -> Option<Diagnostic> {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let k = n.kind();
        if k.starts_with("end_")
            && k.ends_with("_statement")
            && !matches!(
                k,
                "end_subroutine_statement"
                    | "end_function_statement"
                    | "end_module_statement"
                    | "end_program_statement"
                    | "end_submodule_statement"
                    | "end_module_procedure_statement"
            )
            && text(src, n).trim().eq_ignore_ascii_case("end")
        {
            let what = k.trim_start_matches("end_").trim_end_matches("_statement").replace("_loop", "");
            let what = what.replace('_', " ");
            return Some(
                Diagnostic::error(span_of(src, n), format!("`end` alone cannot close a `{what}` construct"))
                    .with_help(format!("write `end {}`", what.split(' ').next().unwrap_or(&what))),
            );
        }
        if k == "statement_label" && n.child_count() > 0 {
            let next = src.as_bytes().get(n.end_byte()).copied().unwrap_or(b' ');
            if !next.is_ascii_whitespace() {
                return Some(
                    Diagnostic::error(span_of(src, n), "a statement label must be followed by a blank")
                        .with_help(format!("write `{} ` before the statement, or remove the label", text(src, n))),
                );
            }
        }
        if matches!(k, "subroutine" | "function" | "module" | "program") {
            let kids = named(n);
            let name_in = |s: Option<Node>| -> Option<(Span, String)> {
                let c = named(s?).into_iter().find(|c| c.kind() == "name")?;
                Some((span_of(src, c), text(src, c).to_ascii_lowercase()))
            };
            let begin = name_in(kids.iter().copied().find(|c| c.kind().ends_with("_statement")));
            let end = name_in(kids.iter().copied().rev().find(|c| c.kind().starts_with("end_")));
            if let (Some((_, b)), Some((e_node, e))) = (begin, end) {
                if b != e {
                    return Some(
                        Diagnostic::error(e_node, format!("the `end {k}` names `{e}`, not `{b}`"))
                            .with_help(format!("write `end {k} {b}`")),
                    );
                }
            }
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n.children(&mut c).collect();
        stack.extend(kids.into_iter().rev());
    }
    None
}
