//! Fixed-form (F77 column rules) to free form, line by line so that line numbers and the
//! columns of code are preserved for diagnostics: a `c`, `C`, `*`, `d`, `D` or `!` in
//! column 1 is a comment, columns 1–5 hold a label, a non-blank, non-zero column 6
//! continues the previous statement (converted to a trailing ` &` there), code is in
//! columns 7–72. Tokens split across a continuation (`12` + `34`) are not joined.

use adjc_ir::{Diagnostic, Span};

/// Fixed form ignores columns past 72; code there is almost always a mistake.
const LAST_COLUMN: usize = 72;

fn span(line: usize, col: usize, width: usize) -> Span {
    Span { line: line as u32 + 1, col: col as u32, start: 0, end: width as u32 }
}

/// Byte position of an inline `!` comment in `code` (outside string literals).
fn comment_start(code: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    for (i, c) in code.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '!' => return Some(i),
            None => {}
        }
    }
    None
}

pub fn to_free_form(src: &str) -> Result<String, Diagnostic> {
    let mut out: Vec<String> = Vec::new();
    // Index in `out` of the last line holding code (continuations attach to it).
    let mut last_code: Option<usize> = None;
    for (ln, raw) in src.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let chars: Vec<char> = line.chars().collect();
        let first = chars.first().copied();
        if chars.iter().all(|c| c.is_whitespace()) {
            out.push(String::new());
            continue;
        }
        if matches!(first, Some('c' | 'C' | '*' | 'd' | 'D' | '!')) {
            out.push(format!("!{}", chars[1..].iter().collect::<String>()));
            continue;
        }
        if first == Some('#') {
            return Err(Diagnostic::error(span(ln, 1, 1), "C preprocessor directives are not supported yet")
                .with_help("preprocess the file first, e.g. `gfortran -E -P file.F > file.f`"));
        }
        // DEC tab format: a tab in the label field starts the code; a digit right after
        // the tab marks a continuation.
        let (label, cont, code): (String, bool, String) = if let Some(tab) =
            chars.iter().take(6).position(|c| *c == '\t')
        {
            let rest: String = chars[tab + 1..].iter().collect();
            let is_cont = rest.starts_with(|c: char| c.is_ascii_digit() && c != '0');
            let label: String = chars[..tab].iter().collect();
            if is_cont {
                (label, true, rest[1..].to_string())
            } else {
                (label, false, rest)
            }
        } else {
            let label: String = chars.iter().take(5).collect();
            let c6 = chars.get(5).copied().unwrap_or(' ');
            let end = chars.len().min(LAST_COLUMN);
            if chars.len() > LAST_COLUMN {
                let extra: String = chars[LAST_COLUMN..].iter().collect();
                let code_part: String = chars.iter().take(LAST_COLUMN).skip(6).collect();
                let in_comment = comment_start(&code_part).is_some();
                if !extra.trim().is_empty() && !in_comment {
                    return Err(Diagnostic::error(
                        span(ln, LAST_COLUMN + 1, extra.trim_end().chars().count()),
                        "fixed-form code past column 72",
                    )
                    .with_help("fixed form ignores columns 73 and later: break the statement with a continuation line (any character in column 6)"));
                }
            }
            let code: String = if chars.len() > 6 { chars[6..end].iter().collect() } else { String::new() };
            (label, c6 != ' ' && c6 != '0', code)
        };
        if let Some(bad) = label.chars().position(|c| !(c.is_ascii_digit() || c.is_whitespace())) {
            return Err(Diagnostic::error(
                span(ln, bad + 1, 1),
                "columns 1-5 of a fixed-form line hold a statement label",
            )
            .with_help("start code in column 7 (comments: `c`, `*` or `!` in column 1)"));
        }
        if cont {
            let Some(prev) = last_code else {
                return Err(Diagnostic::error(span(ln, 6, 1), "continuation line without a statement to continue")
                    .with_help("column 6 marks a continuation; start a statement in column 7 with column 6 blank"));
            };
            if !label.trim().is_empty() {
                return Err(Diagnostic::error(span(ln, 1, 5), "a continuation line cannot have a label"));
            }
            // A space before the `&`: tree-sitter-fortran would otherwise lex `1&` + `&`
            // continuations into one number literal.
            let p = &mut out[prev];
            match comment_start(p) {
                Some(at) => p.insert_str(at, " &"),
                None => p.push_str(" &"),
            }
            out.push(format!("      {code}"));
        } else {
            out.push(format!("{label:<5} {code}"));
        }
        last_code = Some(out.len() - 1);
    }
    Ok(out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_comments_labels_and_continuations() {
        let src = "c comment\n      x = a +\n     +    b ! tail\n   10 continue\n*star\n      y = 1\n";
        let free = to_free_form(src).unwrap_or_default();
        assert_eq!(free, "! comment\n      x = a + &\n          b ! tail\n   10 continue\n!star\n      y = 1\n");
    }

    #[test]
    fn continuation_goes_before_an_inline_comment() {
        let src = "      x = a ! first\n     &  + b\n";
        assert_eq!(to_free_form(src).unwrap_or_default(), "      x = a  &! first\n        + b\n");
    }

    #[test]
    fn errors_with_columns() {
        let long = format!("      x = {}\n", "a + ".repeat(20));
        let d = to_free_form(&long).unwrap_err();
        assert_eq!((d.span.line, d.span.col), (1, 73));
        let d = to_free_form("     + x = 1\n").unwrap_err();
        assert!(d.message.contains("continuation line without"), "{}", d.message);
        assert_eq!((d.span.line, d.span.col), (1, 6));
        let d = to_free_form("   ab x = 1\n").unwrap_err();
        assert_eq!((d.span.line, d.span.col), (1, 4));
        let d = to_free_form("#define N 10\n").unwrap_err();
        assert!(d.message.contains("preprocessor"));
    }
}
