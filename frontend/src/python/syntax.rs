//! What CPython rejects and tree-sitter-python accepts. tree-sitter recovers from errors
//! and its indentation scanner is lenient: an unexpected indent is read as a continuation
//! of the block, so one stray space could silently move or drop statements. This module
//! checks, on an error-free tree, the rules CPython's tokenizer and compiler enforce:
//!
//! * the layout of logical lines (`layout`): unexpected indents, dedents to no outer
//!   level, a missing indented block after a line ending in `:`, tabs and spaces mixed
//!   ambiguously (TabError);
//! * statements on one line without `;`;
//! * `return`/`yield`/`await` outside a function, `break`/`continue` outside a loop,
//!   `nonlocal` at module level, Python 2 `print`/`exec` statements, `as` outside
//!   `with`/`except`/`case`;
//! * parameters: duplicate names, a parameter without default after one with a default,
//!   a bare `*` with no named parameter after it;
//! * call arguments: a keyword repeated, a positional argument after a keyword argument
//!   or after `**`, `*` after `**`.
//!
//! Errors in any function of the file are reported (CPython compiles the whole file).

use super::parse::span_of;
use adjc_ir::{Diagnostic, Span};
use std::collections::BTreeSet;
use tree_sitter::Node;

const HELP: &str = "fix the Python syntax; the file must compile with Python 3";

/// The first violation (lowest position) of the rules above, if any.
pub(super) fn check(src: &str, root: Node) -> Option<Diagnostic> {
    let mut newlines = Vec::new();
    let a = layout(src, root, &mut newlines);
    let b = rules(src, root, &newlines);
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.span.start < a.span.start { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The span of bytes `start..end` of `src`.
fn span_at(src: &str, start: usize, end: usize) -> Span {
    let start = start.min(src.len());
    let before = src.get(..start).unwrap_or("");
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = before[line_start..].chars().count() as u32 + 1;
    Span { line, col, start: start as u32, end: end.max(start) as u32 }
}

/// The end of the physical line at `i` (the index of its `\n` or `\r`, or the length).
fn line_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
        i += 1;
    }
    i
}

/// String literals (f-strings with their nested expressions included) as byte ranges.
fn string_ranges(root: Node) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "string" {
            out.push((n.start_byte(), n.end_byte()));
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    out.sort();
    out
}

/// CPython's tokenizer on indentation: each logical line's indentation is compared with the
/// stack of open blocks (tabs to multiples of 8, and again with tabs as one column, which
/// must agree).
/// The byte offsets of the logical line ends go to `newlines`.
fn layout(src: &str, root: Node, newlines: &mut Vec<usize>) -> Option<Diagnostic> {
    let b = src.as_bytes();
    let strings = string_ranges(root);
    let mut next_string = 0;
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    let mut depth = 0usize;
    // The last logical line ended with `:` (the offset of its end, for the message).
    let mut open_header: Option<usize> = None;
    let mut i = 0;
    let mut at_line_start = true;
    let mut last_sig = 0u8;
    let mut line_has_tokens = false;
    while i < b.len() {
        if at_line_start && depth == 0 {
            at_line_start = false;
            let (mut col, mut alt) = (0usize, 0usize);
            while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\x0c') {
                match b[i] {
                    b' ' => {
                        col += 1;
                        alt += 1;
                    }
                    b'\t' => {
                        col = (col / 8 + 1) * 8;
                        alt += 1;
                    }
                    _ => {
                        col = 0;
                        alt = 0;
                    }
                }
                i += 1;
            }
            if i >= b.len() || matches!(b[i], b'#' | b'\n' | b'\r') || (b[i] == b'\\' && i + 1 == b.len()) {
                // A blank or comment-only line takes no part in the indentation.
                continue;
            }
            let tok_at = i;
            let tok = || span_at(src, tok_at, line_end(b, tok_at).max(tok_at + 1));
            let &(top, top_alt) = stack.last().unwrap_or(&(0, 0));
            let tab_error = || {
                Some(Diagnostic::error(tok(), "inconsistent use of tabs and spaces in indentation").with_help(
                    "indent with spaces only (or tabs only); tabs count as up to 8 columns, which makes this line's block ambiguous",
                ))
            };
            if col > top {
                if alt <= top_alt {
                    return tab_error();
                }
                if open_header.is_none() {
                    return Some(Diagnostic::error(tok(), "unexpected indent").with_help(
                        "indent this line like the statements before it; a deeper indentation only follows a line ending in `:`",
                    ));
                }
                stack.push((col, alt));
            } else {
                if let Some(h) = open_header.map(|h| span_at(src, h, h).line) {
                    return Some(
                        Diagnostic::error(tok(), format!("expected an indented block after line {h}")).with_help(
                            format!("indent the body of the statement on line {h} (use `pass` for an empty body)"),
                        ),
                    );
                }
                while stack.last().is_some_and(|&(c, _)| col < c) {
                    stack.pop();
                }
                let &(top, top_alt) = stack.last().unwrap_or(&(0, 0));
                if col != top {
                    return Some(
                        Diagnostic::error(tok(), "unindent does not match any outer indentation level")
                            .with_help("indent this line exactly like the block it belongs to"),
                    );
                }
                if alt != top_alt {
                    return tab_error();
                }
            }
            open_header = None;
            continue;
        }
        if next_string < strings.len() && strings[next_string].0 <= i {
            let (s, e) = strings[next_string];
            next_string += 1;
            if s == i {
                i = e.max(i + 1);
                last_sig = b'"';
                line_has_tokens = true;
                continue;
            }
        }
        match b[i] {
            b'#' => {
                i = line_end(b, i);
                continue;
            }
            b'\\' if i + 1 < b.len() && matches!(b[i + 1], b'\n' | b'\r') => {
                i += 1;
                if b[i] == b'\r' && i + 1 < b.len() && b[i + 1] == b'\n' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            b'\n' | b'\r' => {
                if b[i] == b'\r' && i + 1 < b.len() && b[i + 1] == b'\n' {
                    i += 1;
                }
                i += 1;
                if depth == 0 {
                    if line_has_tokens {
                        newlines.push(i - 1);
                        open_header = (last_sig == b':').then_some(i - 1);
                    }
                    line_has_tokens = false;
                    at_line_start = true;
                }
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !b[i].is_ascii_whitespace() {
            last_sig = b[i];
            line_has_tokens = true;
        }
        i += 1;
    }
    if (line_has_tokens && last_sig == b':' && depth == 0) || open_header.is_some() {
        let h = span_at(src, open_header.unwrap_or(src.len()), src.len()).line;
        return Some(
            Diagnostic::error(span_at(src, src.len(), src.len()), format!("expected an indented block after line {h}"))
                .with_help(format!("indent the body of the statement on line {h} (use `pass` for an empty body)")),
        );
    }
    None
}

const COMPOUND: &[&str] = &[
    "if_statement",
    "for_statement",
    "while_statement",
    "try_statement",
    "with_statement",
    "function_definition",
    "class_definition",
    "decorated_definition",
    "match_statement",
];
const CLAUSES: &[&str] =
    &["elif_clause", "else_clause", "except_clause", "except_group_clause", "finally_clause", "case_clause"];

#[derive(Clone, Copy, Default)]
struct Ctx {
    in_func: bool,
    is_async: bool,
    in_loop: bool,
}

fn kids(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.children(&mut c).filter(|k| !k.is_extra()).collect()
}

/// The statement-level and expression-level rules, with an explicit stack (hostile input
/// can nest deeply).
fn rules(src: &str, root: Node, newlines: &[usize]) -> Option<Diagnostic> {
    let logical = |byte: usize| newlines.partition_point(|&nl| nl < byte);
    // A statement (or a compound statement's header, up to its `:`) spans one logical line.
    let one_line = |n: Node, end: usize| {
        let (a, b) = (logical(n.start_byte()), logical(end.saturating_sub(1).max(n.start_byte())));
        (a != b).then(|| {
            let nl = newlines[a];
            Diagnostic::error(span_at(src, nl, nl + 1), "invalid syntax: the statement ends here, unfinished")
                .with_help("complete the statement on this line, or continue it inside brackets or after a `\\`")
        })
    };
    let err = |n: Node, msg: String| Some(Diagnostic::error(span_of(src, n), msg).with_help(HELP));
    let mut found: Option<Diagnostic> = None;
    let keep = |found: &mut Option<Diagnostic>, d: Option<Diagnostic>| {
        if let Some(d) = d {
            if found.as_ref().map_or(true, |f| d.span.start < f.span.start) {
                *found = Some(d);
            }
        }
    };
    let mut stack = vec![(root, Ctx::default())];
    while let Some((n, cx)) = stack.pop() {
        // Pre-order: later nodes start (and report) after an error already found.
        if found.as_ref().is_some_and(|f| n.start_byte() > f.span.start as usize) {
            continue;
        }
        let ks = kids(n);
        match n.kind() {
            "module" | "block" => {
                for &k in &ks {
                    if COMPOUND.contains(&k.kind()) {
                        continue;
                    }
                    keep(&mut found, one_line(k, k.end_byte()));
                }
                let stmts: Vec<Node> = ks.iter().copied().filter(|k| k.is_named()).collect();
                for w in stmts.windows(2) {
                    let gap = src.get(w[0].end_byte()..w[1].start_byte()).unwrap_or("");
                    if !gap.contains(['\n', '\r', ';']) {
                        keep(
                            &mut found,
                            err(w[1], "invalid syntax: two statements on one line".into())
                                .map(|d| d.with_help("put each statement on its own line (or separate them with `;`)")),
                        );
                    }
                }
            }
            k if COMPOUND.contains(&k) || CLAUSES.contains(&k) => {
                if let Some(colon) = ks.iter().find(|c| c.kind() == ":") {
                    keep(&mut found, one_line(n, colon.end_byte()));
                }
            }
            "assignment" | "augmented_assignment" => {
                let parent = n.parent().map(|p| p.kind()).unwrap_or("");
                let annotated = n.child_by_field_name("type").is_some();
                let nested = matches!(parent, "assignment" | "augmented_assignment");
                if nested && (annotated || n.kind() == "augmented_assignment" || parent == "augmented_assignment") {
                    keep(&mut found, err(n, "invalid syntax: an assignment inside an assignment".into()));
                }
                let mut left_node = n.child_by_field_name("left");
                // `(a)` is a parenthesised name (tree-sitter reads a tuple pattern).
                let parenthesised = |l: &Node| {
                    l.kind() == "parenthesized_expression"
                        || (l.kind() == "tuple_pattern"
                            && l.named_child_count() == 1
                            && !kids(*l).iter().any(|k| k.kind() == ","))
                };
                while let Some(l) = left_node.filter(parenthesised) {
                    left_node = l.named_child(0);
                }
                let left = left_node.map(|l| l.kind()).unwrap_or("");
                if annotated && matches!(left, "pattern_list" | "tuple_pattern" | "list_pattern") {
                    keep(&mut found, err(n, "only single target (not tuple) can be annotated".into()));
                }
                if n.kind() == "augmented_assignment" && !matches!(left, "identifier" | "attribute" | "subscript") {
                    keep(&mut found, err(n, "illegal expression for augmented assignment".into()));
                }
            }
            "return_statement" if !cx.in_func => keep(&mut found, err(n, "'return' outside function".into())),
            "yield" if !cx.in_func => keep(&mut found, err(n, "'yield' outside function".into())),
            "await" if !cx.in_func => keep(&mut found, err(n, "'await' outside function".into())),
            "await" if !cx.is_async => keep(&mut found, err(n, "'await' outside async function".into())),
            "break_statement" if !cx.in_loop => keep(&mut found, err(n, "'break' outside loop".into())),
            "continue_statement" if !cx.in_loop => keep(&mut found, err(n, "'continue' not properly in loop".into())),
            "nonlocal_statement" if !cx.in_func => {
                keep(&mut found, err(n, "nonlocal declaration not allowed at module level".into()))
            }
            "print_statement" => keep(
                &mut found,
                err(n, "Python 2 `print` statement".into())
                    .map(|d| d.with_help("write `print(...)`: the file must be Python 3")),
            ),
            "exec_statement" => keep(
                &mut found,
                err(n, "Python 2 `exec` statement".into())
                    .map(|d| d.with_help("write `exec(...)`: the file must be Python 3")),
            ),
            "as_pattern" => {
                let ok = n.parent().is_some_and(|p| {
                    matches!(p.kind(), "with_item" | "except_clause" | "case_clause" | "case_pattern")
                        || p.kind().ends_with("_pattern")
                });
                if !ok {
                    keep(&mut found, err(n, "invalid syntax: `as` outside `with`, `except` or `case`".into()));
                }
            }
            "parameters" | "lambda_parameters" => keep(&mut found, params(src, n, &ks)),
            "delete_statement" => {
                for t in ks.iter().copied().filter(|k| k.is_named()) {
                    let targets =
                        if matches!(t.kind(), "expression_list" | "tuple" | "list") { kids(t) } else { vec![t] };
                    for t in targets.into_iter().filter(|k| k.is_named()) {
                        if !deletable(t) {
                            keep(&mut found, err(t, "cannot delete this expression".into()));
                        }
                    }
                }
            }
            "pattern_list" | "tuple_pattern" | "list_pattern" => {
                let stars = ks.iter().filter(|k| k.kind() == "list_splat_pattern").count();
                if stars > 1 {
                    keep(&mut found, err(n, "multiple starred expressions in assignment".into()));
                }
            }
            "for_in_clause" => {
                if let Some(comma) = ks.iter().skip_while(|k| k.kind() != "in").find(|k| k.kind() == ",") {
                    keep(
                        &mut found,
                        err(
                            *comma,
                            "invalid syntax: a comprehension's iterable must be parenthesised when it is a tuple"
                                .into(),
                        ),
                    );
                }
            }
            "named_expression" => {
                let parent = n.parent().map(|p| p.kind()).unwrap_or("");
                if matches!(
                    parent,
                    "expression_statement"
                        | "assignment"
                        | "augmented_assignment"
                        | "return_statement"
                        | "keyword_argument"
                ) {
                    keep(
                        &mut found,
                        err(n, "invalid syntax: an unparenthesised `:=`".into())
                            .map(|d| d.with_help("write `(name := value)`")),
                    );
                }
            }
            "list_splat" => {
                let parent = n.parent().map(|p| p.kind()).unwrap_or("");
                if matches!(parent, "return_statement" | "assignment" | "augmented_assignment" | "expression_statement")
                {
                    keep(&mut found, err(n, "can't use starred expression here".into()));
                }
            }
            "<>" => {
                keep(&mut found, err(n, "invalid syntax: `<>` (Python 2)".into()).map(|d| d.with_help("write `!=`")))
            }
            "raise_statement" if ks.iter().any(|k| k.kind() == "expression_list") => keep(
                &mut found,
                err(n, "invalid syntax: Python 2 `raise E, value`".into())
                    .map(|d| d.with_help("write `raise E(value)`")),
            ),
            "string_start" => {
                let t = src.get(n.byte_range()).unwrap_or("");
                let prefix: String =
                    t.chars().take_while(|c| c.is_ascii_alphabetic()).collect::<String>().to_ascii_lowercase();
                let quote_ok = t[prefix.len()..].starts_with(['"', '\'']);
                let prefix_ok = matches!(prefix.as_str(), "" | "r" | "u" | "f" | "b" | "br" | "rb" | "fr" | "rf");
                if !quote_ok || !prefix_ok {
                    keep(&mut found, err(n, format!("invalid string literal `{t}`")));
                }
            }
            "integer" => {
                let t = src.get(n.byte_range()).unwrap_or("");
                let digits = t.trim_end_matches(['j', 'J', 'l', 'L']);
                if t.ends_with(['l', 'L']) {
                    keep(&mut found, err(n, "invalid syntax: Python 2 long integer `L` suffix".into()));
                } else if digits.len() > 1
                    && digits.starts_with('0')
                    && digits.chars().all(|c| c.is_ascii_digit() || c == '_')
                    && digits.chars().any(|c| c.is_ascii_digit() && c != '0')
                {
                    keep(
                        &mut found,
                        err(n, "leading zeros in decimal integer literals are not permitted".into())
                            .map(|d| d.with_help("use an 0o prefix for octal integers")),
                    );
                }
            }
            "global_statement" | "nonlocal_statement" => keep(&mut found, global(src, n, &ks)),
            "argument_list" => keep(&mut found, arguments(src, &ks)),
            _ => {}
        }
        // Children with their context.
        let body = n.child_by_field_name("body").map(|b| b.id());
        let inner = match n.kind() {
            "function_definition" => {
                Some(Ctx { in_func: true, is_async: ks.iter().any(|k| k.kind() == "async"), in_loop: false })
            }
            "lambda" => Some(Ctx { in_func: true, is_async: cx.is_async, in_loop: false }),
            "class_definition" => Some(Ctx::default()),
            "for_statement" | "while_statement" => Some(Ctx { in_loop: true, ..cx }),
            _ => None,
        };
        for k in ks.into_iter().rev() {
            let c = match inner {
                Some(inner) if Some(k.id()) == body => inner,
                _ => cx,
            };
            stack.push((k, c));
        }
    }
    found
}

/// The name a parameter node binds, if any.
fn param_name<'t>(p: Node<'t>) -> Option<Node<'t>> {
    match p.kind() {
        "identifier" => Some(p),
        "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
        "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
            let mut c = p.walk();
            let found = p
                .named_children(&mut c)
                .find(|k| matches!(k.kind(), "identifier" | "list_splat_pattern" | "dictionary_splat_pattern"));
            found.and_then(param_name)
        }
        _ => None,
    }
}

fn params(src: &str, n: Node, ks: &[Node]) -> Option<Diagnostic> {
    let text = |n: Node| src.get(n.byte_range()).unwrap_or("").to_string();
    let err = |n: Node, msg: String| Some(Diagnostic::error(span_of(src, n), msg).with_help(HELP));
    let mut seen = BTreeSet::new();
    let mut seen_default = false;
    let mut after_star = false;
    let mut bare_star: Option<Node> = None;
    for p in ks.iter().copied().filter(|k| k.is_named()) {
        let splat_text = text(p);
        let is_star =
            p.kind() == "list_splat_pattern" || (p.kind() == "typed_parameter" && splat_text.starts_with('*'));
        let is_dstar = p.kind() == "dictionary_splat_pattern" || splat_text.starts_with("**");
        if p.kind() == "keyword_separator" {
            after_star = true;
            bare_star = Some(p);
            continue;
        }
        if p.kind() == "positional_separator" {
            continue;
        }
        if let Some(name) = param_name(p) {
            let s = text(name);
            if !seen.insert(s.clone()) {
                let what = if n.kind() == "lambda_parameters" { "lambda" } else { "function definition" };
                return err(name, format!("duplicate argument '{s}' in {what}"));
            }
        }
        if is_dstar {
            continue;
        }
        if is_star {
            after_star = true;
            bare_star = None;
            continue;
        }
        bare_star = None;
        let has_default = matches!(p.kind(), "default_parameter" | "typed_default_parameter");
        if has_default {
            seen_default = true;
        } else if seen_default && !after_star {
            return err(p, "parameter without a default follows parameter with a default".into());
        }
    }
    if let Some(s) = bare_star {
        return err(s, "named arguments must follow bare *".into());
    }
    None
}

fn arguments(src: &str, ks: &[Node]) -> Option<Diagnostic> {
    let text = |n: Node| src.get(n.byte_range()).unwrap_or("").to_string();
    let err = |n: Node, msg: String| Some(Diagnostic::error(span_of(src, n), msg).with_help(HELP));
    let mut seen = BTreeSet::new();
    let (mut keyword, mut dstar) = (false, false);
    for a in ks.iter().copied().filter(|k| k.is_named()) {
        match a.kind() {
            "keyword_argument" => {
                keyword = true;
                if let Some(name) = a.child_by_field_name("name") {
                    let s = text(name);
                    if !seen.insert(s.clone()) {
                        return err(name, format!("keyword argument repeated: {s}"));
                    }
                }
            }
            "dictionary_splat" => dstar = true,
            "list_splat" if dstar => {
                return err(a, "iterable argument unpacking follows keyword argument unpacking".into())
            }
            "list_splat" => {}
            _ if dstar => return err(a, "positional argument follows keyword argument unpacking".into()),
            _ if keyword => return err(a, "positional argument follows keyword argument".into()),
            _ => {}
        }
    }
    None
}

/// `del` targets: names, attributes, subscripts, and tuples or lists of them.
fn deletable(n: Node) -> bool {
    match n.kind() {
        "identifier" | "attribute" | "subscript" => true,
        "parenthesized_expression" | "tuple" | "list" | "expression_list" => {
            kids(n).into_iter().filter(|k| k.is_named()).all(deletable)
        }
        _ => false,
    }
}

/// `global x` / `nonlocal x` in a function: `x` is not a parameter and not used before.
fn global(src: &str, n: Node, ks: &[Node]) -> Option<Diagnostic> {
    let mut f = n.parent();
    while let Some(p) = f.filter(|p| !matches!(p.kind(), "function_definition" | "module" | "class_definition")) {
        f = p.parent();
    }
    let f = f.filter(|f| f.kind() == "function_definition")?;
    let text = |n: Node| src.get(n.byte_range()).unwrap_or("").to_string();
    let kw = if n.kind() == "global_statement" { "global" } else { "nonlocal" };
    let params: Vec<String> = f
        .child_by_field_name("parameters")
        .map(|p| kids(p).into_iter().filter_map(param_name).map(text).collect())
        .unwrap_or_default();
    let body = f.child_by_field_name("body")?;
    for name in ks.iter().copied().filter(|k| k.kind() == "identifier") {
        let s = text(name);
        if params.contains(&s) {
            return Some(
                Diagnostic::error(span_of(src, name), format!("name '{s}' is parameter and {kw}")).with_help(HELP),
            );
        }
        // A use earlier in the function (nested functions and classes have their own names).
        let mut stack = vec![body];
        while let Some(m) = stack.pop() {
            if m.start_byte() >= n.start_byte() {
                continue;
            }
            if m.kind() == "identifier" && text(m) == s {
                return Some(
                    Diagnostic::error(span_of(src, name), format!("name '{s}' is used prior to {kw} declaration"))
                        .with_help(HELP),
                );
            }
            if !matches!(m.kind(), "function_definition" | "class_definition" | "lambda") {
                stack.extend(kids(m));
            }
        }
    }
    None
}
