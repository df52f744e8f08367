//! Statements continued over several lines: a free-form line whose code ends in `&`
//! continues on the next line that holds code (comment and blank lines between are part
//! of the statement). Fixed form is already free form here (`fixed.rs` turns a column-6
//! continuation into a trailing `&` on the line before), so one scan serves both; the
//! lines are then moved to the file they came from. The generated C quotes such a
//! statement whole ([`adjc_ir::Module::continued`]).

use super::source::Assembled;

/// The continued statements of the assembled free-form `text`, as 1-based `(first, last)`
/// lines of that text.
fn continued_in_text(text: &str) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    // The first line of the statement being continued, and the quote open at its end
    // (a character literal may run on across `&`).
    let mut open: Option<u32> = None;
    let mut quote: Option<char> = None;
    for (k, line) in text.split('\n').enumerate() {
        let n = k as u32 + 1;
        let (code, q) = code_part(line, quote);
        let code = code.trim();
        if code.is_empty() && q.is_none() {
            continue; // blank or comment only: neither starts nor ends a statement
        }
        let first = *open.get_or_insert(n);
        if code.ends_with('&') {
            quote = q;
        } else {
            if n > first {
                out.push((first, n));
            }
            open = None;
            quote = None;
        }
    }
    out
}

/// The code of `line` before a `!` comment, with the quote still open at its end; `quote`
/// is the one open at its start (a continued character literal).
fn code_part(line: &str, mut quote: Option<char>) -> (&str, Option<char>) {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut chars = line.char_indices().peekable();
    // A continuation line of a character literal resumes after its leading `&`.
    if quote.is_some() {
        if let Some(at) = line.find('&').filter(|&at| line[..at].trim().is_empty()) {
            while chars.peek().is_some_and(|&(i, _)| i <= at) {
                chars.next();
            }
        }
    }
    while let Some((i, c)) = chars.next() {
        match quote {
            Some(q) if c == q => {
                // A doubled quote is a quote inside the literal.
                if chars.peek().is_some_and(|&(_, d)| d == q) {
                    chars.next();
                } else {
                    quote = None;
                }
            }
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '!' => return (&line[..i], None),
            None => {}
        }
    }
    (line, quote)
}

/// The continued statements of file `file` of `asm`, in that file's line numbers: those
/// whose every line came from it, in order.
pub fn continued(asm: &Assembled, file: usize) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (first, last) in continued_in_text(&asm.text) {
        let lines: Option<Vec<u32>> =
            (first..=last).map(|l| asm.origin(l).filter(|o| o.file == file).map(|o| o.line)).collect();
        let Some(lines) = lines else { continue };
        // Consecutive lines of the file (a preprocessor directive in between keeps them
        // apart in the assembled text only when it moved them: then quote nothing whole).
        let (a, b) = (lines[0], lines[lines.len() - 1]);
        if b > a && lines.windows(2).all(|w| w[1] > w[0]) && out.last().is_none_or(|&(_, l)| l < a) {
            out.push((a, b));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::continued_in_text;

    #[test]
    fn free_form_continuations() {
        let src = "x = a + &\n    b ! c &\ny = 1\nz = f(1, &  ! first\n! between\n\n  & 2)\n";
        assert_eq!(continued_in_text(src), vec![(1, 2), (4, 7)]);
        // `&` in a comment or a string does not continue; a literal continued with `&` does.
        assert_eq!(continued_in_text("s = 'a&' ! &\nt = 1\n"), vec![]);
        assert_eq!(continued_in_text("s = 'ab&\n  &cd'\nt = 1\n"), vec![(1, 2)]);
    }
}
