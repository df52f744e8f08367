//! Line wrapping of the generated C: no line longer than [`MAX_COLUMNS`].
//!
//! The statement builders write each statement on one line, however long (a `== NULL` test of
//! thirty work arrays, a derivative of twenty terms, a work estimate). A reviewer reads the
//! file in an editor or a diff, so the last step of emission breaks such lines the way a person
//! would, and never anything else: a line that fits is left exactly as it is.
//!
//! - **Code** breaks between tokens, at the place of least nesting and, at equal nesting, of
//!   lowest precedence (after `=`, before `||`, before `+`/`-`, after `,`, then before `*`),
//!   taking the rightmost such place that fits so that lines are filled. Continuation lines
//!   are indented 8 columns deeper than the statement, so they cannot be mistaken for the body
//!   of a block. A trailing comment of a code line that does not fit moves above it.
//! - **Preprocessor lines** (`#define`) break the same way, each broken line ending in ` \`.
//! - **Comments** break between words: a one-line `/* ... */` becomes a block whose continued
//!   lines start with ` *`, aligned under the text; lines inside a block comment keep their
//!   ` * ` prefix. A word longer than a whole line is cut, which only a comment can afford.
//!
//! Only whitespace between tokens changes, so the compiler sees the same program (a unit test
//! checks that the tokens of every wrapped line are those of the original). Widths are counted
//! in characters, so the `·` and `ᵀ` of formula comments count as one column each.

/// The longest line the emitter writes.
pub const MAX_COLUMNS: usize = 100;

/// How much deeper continuation lines of a statement are indented.
const CONTINUATION: usize = 8;

/// Wraps every line of a generated C file (`.c` or `.h`) to [`MAX_COLUMNS`].
pub fn wrap_c(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut in_block_comment = false;
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let starts_block = !in_block_comment && opens_block_comment(body);
        if width(body) <= MAX_COLUMNS {
            out.push_str(body);
        } else if in_block_comment || starts_block || is_one_line_comment(body) {
            wrap_comment_line(body, &mut out);
        } else {
            wrap_code_line(body, &mut out);
        }
        out.push_str(newline);
        if starts_block {
            in_block_comment = true;
        }
        if in_block_comment && body.contains("*/") {
            in_block_comment = false;
        }
    }
    out
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// A line that starts a comment continued on the next lines (`/*` with no `*/` after it).
fn opens_block_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("/*") && !t.contains("*/")
}

/// A line holding one `/* ... */` comment and nothing else.
fn is_one_line_comment(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("/*") && t.ends_with("*/") && t.find("*/") == Some(t.len() - 2)
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Breaks a line of comment text between words. Handles three shapes: a one-line
/// `/* text */`, the first line of a block (`/* text`), and a line inside one (` * text`).
fn wrap_comment_line(line: &str, out: &mut String) {
    let indent = indent_of(line);
    let rest = &line[indent..];
    let pad = " ".repeat(indent);
    // The prefix of the first line, the prefix of continued lines, the text and the closer.
    let (first, cont, text, close) = if let Some(inner) = rest.strip_prefix("/*") {
        let (inner, close) = match inner.strip_suffix("*/") {
            Some(i) => (i.trim_end(), " */"),
            None => (inner.trim_end(), ""),
        };
        let inner = inner.strip_prefix(' ').unwrap_or(inner);
        (format!("{pad}/* "), format!("{pad} *   "), inner, close)
    } else if let Some(inner) = rest.strip_prefix('*') {
        // ` * text` or ` *   text`: keep the author's alignment after the star.
        let spaces = inner.len() - inner.trim_start_matches(' ').len();
        let (inner, close) = match inner.trim_start_matches(' ').strip_suffix("*/") {
            Some(i) => (i.trim_end(), " */"),
            None => (inner.trim_start_matches(' '), ""),
        };
        let first = format!("{pad}*{}", " ".repeat(spaces));
        let cont = format!("{pad}*{}", " ".repeat(spaces + 2));
        (first, cont, inner, close)
    } else {
        // Not a comment after all (a long string, say): leave it alone.
        out.push_str(line);
        return;
    };
    let mut prefix = first;
    let mut remaining = text;
    loop {
        let room = MAX_COLUMNS.saturating_sub(width(&prefix)).max(20);
        if width(remaining) + width(close) <= room {
            out.push_str(&prefix);
            out.push_str(remaining);
            out.push_str(close);
            return;
        }
        let cut = comment_break(remaining, room);
        out.push_str(&prefix);
        out.push_str(remaining[..cut].trim_end());
        out.push('\n');
        remaining = remaining[cut..].trim_start();
        prefix = cont.clone();
        if remaining.is_empty() {
            // Only the closer was left over.
            let last = out.trim_end_matches('\n').len();
            out.truncate(last);
            out.push_str(close);
            return;
        }
    }
}

/// The byte offset at which to cut comment text so that its first part fits in `room`
/// characters: the last space that fits, else a hard cut at `room` characters.
fn comment_break(text: &str, room: usize) -> usize {
    let mut last_space = None;
    for (count, (at, ch)) in text.char_indices().enumerate() {
        if count > room {
            break;
        }
        if ch == ' ' && count > 0 {
            last_space = Some(at);
        }
    }
    match last_space {
        Some(at) => at,
        None => text.char_indices().nth(room).map(|(at, _)| at).unwrap_or(text.len()),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TokenKind {
    /// Identifiers, numbers, string and character literals: anything that is a value.
    Operand,
    Open,
    Close,
    /// `,` or `;`
    Separator,
    Operator,
    Comment,
}

#[derive(Clone, Debug)]
struct Token<'a> {
    text: &'a str,
    kind: TokenKind,
    /// Whether whitespace separated it from the previous token in the original line.
    space_before: bool,
}

/// Splits a C line into tokens. Operators are matched longest first; anything unknown is a
/// one-character operator, so no input is lost.
fn tokenize(line: &str) -> Vec<Token<'_>> {
    const OPERATORS: [&str; 40] = [
        "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=",
        "%=", "&=", "|=", "^=", "+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "|", "^", "?", ":", ".", "#",
        "\\",
    ];
    let bytes = line.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut space = false;
    while i < bytes.len() {
        let c = bytes[i];
        if c == b' ' || c == b'\t' {
            space = true;
            i += 1;
            continue;
        }
        let start = i;
        let kind = if line[i..].starts_with("/*") {
            i = line[i + 2..].find("*/").map(|e| i + 2 + e + 2).unwrap_or(bytes.len());
            TokenKind::Comment
        } else if line[i..].starts_with("//") {
            i = bytes.len();
            TokenKind::Comment
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != c {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
            TokenKind::Operand
        } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            // Identifiers and numbers, including `1.0e-8`, `0x1p-3` and `1.5f`.
            while i < bytes.len() {
                let b = bytes[i];
                let exponent_sign = (b == b'+' || b == b'-')
                    && i > start
                    && matches!(bytes[i - 1], b'e' | b'E' | b'p' | b'P')
                    && bytes[start].is_ascii_digit();
                if b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80 || exponent_sign {
                    i += 1;
                } else if b == b'.' && bytes[start].is_ascii_digit() {
                    i += 1;
                } else {
                    break;
                }
            }
            TokenKind::Operand
        } else if c == b'.' && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit()) {
            i += 1;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            TokenKind::Operand
        } else if matches!(c, b'(' | b'[' | b'{') {
            i += 1;
            TokenKind::Open
        } else if matches!(c, b')' | b']' | b'}') {
            i += 1;
            TokenKind::Close
        } else if matches!(c, b',' | b';') {
            i += 1;
            TokenKind::Separator
        } else {
            let op = OPERATORS.iter().find(|op| line[i..].starts_with(*op));
            i += op.map(|op| op.len()).unwrap_or_else(|| line[i..].chars().next().map_or(1, char::len_utf8));
            TokenKind::Operator
        };
        tokens.push(Token { text: &line[start..i], kind, space_before: space });
        space = false;
    }
    tokens
}

/// Precedence rank of a binary operator as a break point: lower breaks first. `None` for
/// tokens that are not binary operators here (unary minus, `*` of a pointer declaration
/// after a type name is treated as binary, which is harmless: it only allows a break).
fn break_rank(op: &str) -> Option<u8> {
    Some(match op {
        "=" | "+=" | "-=" | "*=" | "/=" | "%=" | "&=" | "|=" | "^=" | "<<=" | ">>=" => 1,
        "?" | ":" => 2,
        "||" => 3,
        "&&" => 4,
        "|" => 5,
        "^" => 6,
        "&" => 7,
        "==" | "!=" => 8,
        "<" | ">" | "<=" | ">=" => 9,
        "<<" | ">>" => 10,
        "+" | "-" => 11,
        "*" | "/" | "%" => 12,
        _ => return None,
    })
}

/// A place where a line may break: before token `at`, costing `(depth, rank)`.
#[derive(Clone, Copy, Debug)]
struct BreakPoint {
    at: usize,
    depth: usize,
    rank: u8,
}

fn break_points(tokens: &[Token<'_>]) -> Vec<BreakPoint> {
    let mut points = Vec::new();
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate() {
        let prev = k.checked_sub(1).map(|p| tokens[p].kind);
        match t.kind {
            TokenKind::Open => {
                depth += 1;
            }
            TokenKind::Close => depth = depth.saturating_sub(1),
            TokenKind::Separator if k + 1 < tokens.len() => {
                // After a comma: the lowest-precedence place inside its parentheses.
                points.push(BreakPoint { at: k + 1, depth, rank: 0 });
            }
            TokenKind::Operator => {
                let binary = matches!(prev, Some(TokenKind::Operand | TokenKind::Close));
                if let (true, Some(rank)) = (binary, break_rank(t.text)) {
                    if rank == 1 {
                        // Assignments break after the operator, keeping `x +=` with its target.
                        if k + 1 < tokens.len() {
                            points.push(BreakPoint { at: k + 1, depth, rank });
                        }
                    } else if k > 0 {
                        points.push(BreakPoint { at: k, depth, rank });
                    }
                }
            }
            TokenKind::Comment if k > 0 => points.push(BreakPoint { at: k, depth, rank: 0 }),
            _ => {}
        }
    }
    points
}

/// Joins `tokens[from..to]` with the spacing they had.
fn join(tokens: &[Token<'_>], from: usize, to: usize) -> String {
    let mut s = String::new();
    for (k, t) in tokens[from..to].iter().enumerate() {
        if k > 0 && t.space_before {
            s.push(' ');
        }
        s.push_str(t.text);
    }
    s
}

fn wrap_code_line(line: &str, out: &mut String) {
    let indent = indent_of(line);
    let pad = " ".repeat(indent);
    let content = &line[indent..];
    let preprocessor = content.starts_with('#');
    let tokens = tokenize(content);
    // A trailing comment that does not fit goes on its own line above the code.
    if !preprocessor && tokens.len() > 1 && tokens.last().is_some_and(|t| t.kind == TokenKind::Comment) {
        let comment = tokens[tokens.len() - 1].text;
        let code = join(&tokens, 0, tokens.len() - 1);
        let above = format!("{pad}{comment}");
        if width(&above) <= MAX_COLUMNS {
            out.push_str(&above);
        } else {
            wrap_comment_line(&above, out);
        }
        out.push('\n');
        let code_line = format!("{pad}{code}");
        if width(&code_line) <= MAX_COLUMNS {
            out.push_str(&code_line);
        } else {
            wrap_code_line(&code_line, out);
        }
        return;
    }
    let points = break_points(&tokens);
    let continuation = " ".repeat(indent + CONTINUATION);
    // Room for the ` \` of a continued preprocessor line.
    let reserve = if preprocessor { 2 } else { 0 };
    let mut start = 0usize;
    let mut prefix = pad.clone();
    let mut lines: Vec<String> = Vec::new();
    loop {
        let rest = join(&tokens, start, tokens.len());
        if width(&prefix) + width(&rest) <= MAX_COLUMNS || start >= tokens.len() {
            lines.push(format!("{prefix}{rest}"));
            break;
        }
        let room = MAX_COLUMNS.saturating_sub(width(&prefix) + reserve);
        // Among the break points after `start` whose first part fits, the cheapest, rightmost;
        // a break that would leave a stub (under a third of the room: `- 2.0` alone) is taken
        // only when no other fits.
        let mut best: Option<BreakPoint> = None;
        let mut best_stub: Option<BreakPoint> = None;
        let mut first_after: Option<BreakPoint> = None;
        let cheaper = |p: &BreakPoint, b: Option<BreakPoint>| match b {
            None => true,
            Some(b) => (p.depth, p.rank) <= (b.depth, b.rank),
        };
        for p in points.iter().filter(|p| p.at > start) {
            if first_after.is_none() {
                first_after = Some(*p);
            }
            let used = width(&join(&tokens, start, p.at));
            if used > room {
                break;
            }
            if used * 3 < room {
                if cheaper(p, best_stub) {
                    best_stub = Some(*p);
                }
            } else if cheaper(p, best) {
                best = Some(*p);
            }
        }
        let best = best.or(best_stub);
        // Nothing fits: break at the first place possible and let that line be long.
        let Some(point) = best.or(first_after) else {
            lines.push(format!("{prefix}{rest}"));
            break;
        };
        lines.push(format!("{prefix}{}", join(&tokens, start, point.at)));
        start = point.at;
        prefix = continuation.clone();
    }
    let last = lines.len() - 1;
    for (k, l) in lines.iter().enumerate() {
        out.push_str(l);
        if k < last {
            out.push_str(if preprocessor { " \\\n" } else { "\n" });
        }
    }
}

/// Undoes [`wrap_c`]: joins the continuation lines of statements, `#define`s and one-line
/// comments that were broken. Tests that look for a generated statement use it, so they
/// do not depend on where a line happened to break. (A trailing comment that moved above its
/// statement stays there; block comments of the header are left as they are.)
pub fn unwrap_c(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    // Indent of the statement the last code line belongs to, and whether it is finished.
    let mut statement: Option<(usize, bool)> = None;
    let mut open_comment = false;
    let mut define_continues = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = indent_of(line);
        if open_comment {
            let last = out.last_mut().expect("an open comment has a first line");
            last.push(' ');
            last.push_str(trimmed.trim_start_matches('*').trim_start());
            open_comment = !trimmed.contains("*/");
            continue;
        }
        if define_continues {
            let last = out.last_mut().expect("a continued define has a first line");
            last.push(' ');
            last.push_str(trimmed.strip_suffix(" \\").unwrap_or(trimmed));
            define_continues = trimmed.ends_with(" \\");
            continue;
        }
        if trimmed.starts_with("/*") && !trimmed.contains("*/") && trimmed.len() > 2 {
            // A one-line comment the emitter made a block of (`/* text` with text).
            out.push(line.to_string());
            open_comment = true;
            continue;
        }
        if trimmed.starts_with('#') {
            define_continues = trimmed.ends_with(" \\");
            out.push(line.strip_suffix(" \\").unwrap_or(line).to_string());
            statement = None;
            continue;
        }
        let continues = match statement {
            Some((at, finished)) if indent == at + CONTINUATION && !trimmed.starts_with("/*") => {
                !finished || starts_with_binary_operator(trimmed)
            }
            _ => false,
        };
        if continues {
            let last = out.last_mut().expect("a continuation has a first line");
            last.push(' ');
            last.push_str(trimmed);
        } else {
            out.push(line.to_string());
            if trimmed.is_empty() || trimmed.starts_with("/*") || trimmed.starts_with('*') {
                statement = None;
                continue;
            }
            statement = Some((indent, false));
        }
        let last = out.last().map(|l| l.trim_end()).unwrap_or("");
        let finished = [";", "{", "}", ")", "*/"].iter().any(|end| last.ends_with(end));
        statement = statement.map(|(at, _)| (at, finished));
    }
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

fn starts_with_binary_operator(line: &str) -> bool {
    let tokens = tokenize(line);
    matches!(tokens.first(), Some(t) if t.kind == TokenKind::Operator && break_rank(t.text).is_some_and(|r| r > 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens_of(text: &str) -> Vec<String> {
        text.lines()
            .map(|l| l.trim_end_matches('\\'))
            .flat_map(|l| tokenize(l).into_iter().map(|t| t.text.to_string()).collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn short_lines_are_untouched() {
        let text = "int f(void)\n{\n    return 0;   \n}\n";
        assert_eq!(wrap_c(text), text);
    }

    #[test]
    fn a_null_test_breaks_before_or_and_keeps_every_token() {
        let names: Vec<String> = (0..30).map(|k| format!("work_array_{k} == NULL")).collect();
        let line = format!("    if ({}) {{", names.join(" || "));
        let wrapped = wrap_c(&line);
        assert!(wrapped.lines().count() > 3, "{wrapped}");
        for l in wrapped.lines() {
            assert!(width(l) <= MAX_COLUMNS, "{l}");
        }
        for l in wrapped.lines().skip(1) {
            assert!(l.starts_with("            || work_array_"), "{l}");
        }
        assert_eq!(tokens_of(&wrapped), tokens_of(&line));
    }

    #[test]
    fn sums_break_before_plus_at_the_outer_level() {
        let term = "a_long_name_(i, j + 1) * (b_long_name_(i, j) - c_long_name_(i - 1, j))";
        let line = format!("        x_b_(i, j) += {term} + {term} - {term};");
        let wrapped = wrap_c(&line);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines.len() >= 2);
        assert!(lines[1].trim_start().starts_with("+ ") || lines[1].trim_start().starts_with("a_long"), "{wrapped}");
        for l in &lines {
            assert!(width(l) <= MAX_COLUMNS, "{l}");
        }
        assert_eq!(tokens_of(&wrapped), tokens_of(&line));
    }

    #[test]
    fn unary_minus_is_not_a_break_point() {
        let tokens = tokenize("x = -y * -1.0e-8;");
        let points = break_points(&tokens);
        let before: Vec<&str> = points.iter().map(|p| tokens[p.at].text).collect();
        assert_eq!(before, vec!["-", "*"]);
        assert!(tokens.iter().any(|t| t.text == "1.0e-8"));
    }

    #[test]
    fn a_long_comment_becomes_a_block() {
        let words = "word ".repeat(40);
        let line = format!("    /* demo.py:3   {} */", words.trim_end());
        let wrapped = wrap_c(&line);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines[0].starts_with("    /* demo.py:3   word"));
        assert!(lines[1].starts_with("     *   word"), "{wrapped}");
        assert!(lines.last().is_some_and(|l| l.ends_with("word */")));
        for l in &lines {
            assert!(width(l) <= MAX_COLUMNS, "{l}");
        }
    }

    #[test]
    fn lines_inside_a_block_comment_keep_their_prefix() {
        let long = format!(" *   {}", "alpha beta ".repeat(15).trim_end());
        let text = format!("/*\n{long}\n */\n");
        let wrapped = wrap_c(&text);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines[1].starts_with(" *   alpha"));
        assert!(lines[2].starts_with(" *     "), "{wrapped}");
        assert_eq!(lines.last(), Some(&" */"));
    }

    #[test]
    fn trailing_comment_moves_above_the_code() {
        let line = format!("    if (K != M) return ADJC_ERR_SHAPE; /* {} */", "x ".repeat(45).trim_end());
        let wrapped = wrap_c(&line);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines[0].trim_start().starts_with("/*"));
        assert!(wrapped.contains("    if (K != M) return ADJC_ERR_SHAPE;"));
    }

    #[test]
    fn defines_continue_with_backslashes() {
        let body = (0..12).map(|k| format!("(i{k}) * stride_{k}")).collect::<Vec<_>>().join(" + ");
        let line = format!("#define A_(i0, i1) A[{body}]");
        let wrapped = wrap_c(&line);
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines.len() >= 2);
        for l in &lines[..lines.len() - 1] {
            assert!(l.ends_with(" \\"), "{l}");
        }
        for l in &lines {
            assert!(width(l) <= MAX_COLUMNS, "{l}");
        }
        assert_eq!(tokens_of(&wrapped), tokens_of(&line));
    }

    #[test]
    fn wrapping_is_idempotent() {
        let names: Vec<String> = (0..30).map(|k| format!("w{k} == NULL")).collect();
        let text = format!("    if ({}) {{\n    /* {} */\n", names.join(" || "), "z ".repeat(70));
        let once = wrap_c(&text);
        assert_eq!(wrap_c(&once), once);
    }

    #[test]
    fn unwrap_undoes_wrap() {
        let names: Vec<String> = (0..30).map(|k| format!("work_array_{k} == NULL")).collect();
        let term = "a_long_name_(i, j + 1) * (b_long_name_(i, j) - c_long_name_(i - 1, j))";
        let body = (0..12).map(|k| format!("(i{k}) * stride_{k}")).collect::<Vec<_>>().join(" + ");
        let text = format!(
            "int f(void)\n{{\n    if ({}) {{\n        return 1;\n    }}\n    /* {} */\n    x_b_(i, j) += {term} + {term} - {term};\n    y = *p;\n}}\n#define A_(i0, i1) A[{body}]\n",
            names.join(" || "),
            "word ".repeat(40).trim_end()
        );
        let wrapped = wrap_c(&text);
        assert_ne!(wrapped, text);
        assert_eq!(unwrap_c(&wrapped), text);
    }
}
