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
    let logical = logical_lines(src);
    let line_of = |row: usize| logical.get(row).copied().unwrap_or(row);
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let k = n.kind();
        // A statement ends at the end of its line unless the line ends with `&`:
        // tree-sitter may run on into the next line (`real(8) ::` then `integer :: n`).
        if is_statement(k) && !named(n).iter().any(|c| is_statement(c.kind()) || c.kind().ends_with("_loop")) {
            let end = n.end_position();
            let last_row = if end.column == 0 && end.row > n.start_position().row { end.row - 1 } else { end.row };
            if line_of(n.start_position().row) != line_of(last_row) {
                let line_end = src[n.start_byte()..].find('\n').map_or(src.len(), |i| n.start_byte() + i);
                let span = span_of(src, n);
                return Some(
                    Diagnostic::error(
                        adjc_ir::Span {
                            start: line_end as u32,
                            end: line_end as u32 + 1,
                            col: span.col + (line_end - n.start_byte()) as u32,
                            ..span
                        },
                        "syntax error: the statement is incomplete at the end of the line",
                    )
                    .with_help("complete the statement, or continue it on the next line with `&`"),
                );
            }
        }
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
        if (k == "statement_label" && n.child_count() > 0) || k == "statement_label_reference" {
            let next = src.as_bytes().get(n.end_byte()).copied().unwrap_or(b' ');
            if next.is_ascii_alphanumeric() || next == b'_' || (k == "statement_label" && !next.is_ascii_whitespace()) {
                return Some(
                    Diagnostic::error(span_of(src, n), "a statement label must be followed by a blank")
                        .with_help(format!("write `{} ` before the statement, or remove the label", text(src, n))),
                );
            }
        }
        // A construct's end names the construct's label, if it has one, and nothing else.
        if let Some(end) =
            named(n).into_iter().rev().find(|c| c.kind().starts_with("end_") && c.kind() != "end_subroutine_statement")
        {
            let start = named(n)
                .into_iter()
                .find(|c| c.kind() == "block_label_start_expression")
                .map(|b| text(src, b).trim_end().trim_end_matches(':').trim().to_ascii_lowercase());
            let end_label = named(end).into_iter().find(|c| c.kind() == "block_label");
            let end_text = end_label.map(|l| text(src, l).to_ascii_lowercase());
            if end_text.is_some() && end_text != start {
                let l = end_label.map_or(span_of(src, end), |l| span_of(src, l));
                let msg = match &start {
                    Some(s) => {
                        format!("this `end` names `{}`, but the construct is `{s}`", end_text.unwrap_or_default())
                    }
                    None => {
                        format!("this `end` names `{}`, but the construct has no name", end_text.unwrap_or_default())
                    }
                };
                return Some(Diagnostic::error(l, msg).with_help(
                    "name the construct's end as its start (`name: do` ... `end do name`), or drop the name",
                ));
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

fn is_statement(k: &str) -> bool {
    (k.ends_with("_statement") && !matches!(k, "if_statement" | "where_statement" | "select_case_statement"))
        || k == "variable_declaration"
}

/// For each physical line, the index of the logical line it belongs to (free form: a line
/// ending in `&`, before any `!` comment, continues on the next).
fn logical_lines(src: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut logical = 0;
    let mut continuing = false;
    for line in src.split('\n') {
        out.push(logical);
        let mut code = String::new();
        let mut quote: Option<char> = None;
        for c in line.chars() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == '\'' || c == '"' => quote = Some(c),
                None if c == '!' => break,
                None => {}
            }
            code.push(c);
        }
        // A comment or blank line inside a continued statement does not end it (gfortran
        // accepts comment lines between continuation lines, as the standard does).
        let code = code.trim();
        if code.is_empty() && continuing {
            continue;
        }
        continuing = code.ends_with('&');
        if !continuing {
            logical += 1;
        }
    }
    out
}
