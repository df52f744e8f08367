//! Diagnostics shared by all stages: an error with a source span, a message saying what
//! is wrong and a help line saying what to do.
//!
//! A diagnostic made by [`Diagnostic::internal`] is adjc's bug, not the user's (an invariant
//! broken between stages): each stage's error type turns it into its `Internal` variant, and
//! it renders as `internal error: ...` with a request to report it with the input.

use crate::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Span,
    /// What is wrong, e.g. "`while` loops are not supported".
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
    /// A broken invariant of adjc (see [`Diagnostic::internal`]), not a problem of the input.
    pub internal: bool,
}

/// The help line of an internal error that has none of its own.
pub const REPORT_BUG: &str = "this is a bug in adjc; please report it with this source file";

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { span, message: message.into(), help: None, internal: false }
    }
    /// A bug of adjc found at `span` of the input: `message` says which invariant broke
    /// (without an "internal error" prefix, which rendering adds).
    pub fn internal(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { internal: true, ..Diagnostic::error(span, message) }
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Renders the diagnostic in the compiler style
    /// `file:line:col: error: message`, followed by the source line, a caret under the
    /// offending column and the help line.
    pub fn render(&self, file: &str, source: &str) -> String {
        if self.internal {
            let plain = Diagnostic {
                message: format!("internal error: {}", self.message),
                help: Some(self.help.clone().unwrap_or_else(|| REPORT_BUG.to_string())),
                internal: false,
                ..self.clone()
            };
            return plain.render(file, source);
        }
        let mut out = String::new();
        if self.span.is_none() {
            out.push_str(&format!("{file}: error: {}\n", self.message));
        } else {
            out.push_str(&format!("{file}:{}:{}: error: {}\n", self.span.line, self.span.col, self.message));
            if let Some(text) = source.lines().nth(self.span.line as usize - 1) {
                let text: String = text.chars().map(|c| if c == '\t' { ' ' } else { c }).collect();
                let gutter = format!("{}", self.span.line);
                out.push_str(&format!(" {gutter} | {text}\n"));
                let col = (self.span.col as usize).saturating_sub(1).min(text.chars().count());
                let width = if self.span.end > self.span.start {
                    let len = (self.span.end - self.span.start) as usize;
                    len.min(text.chars().count().saturating_sub(col)).max(1)
                } else {
                    1
                };
                out.push_str(&format!(" {} | {}{}\n", " ".repeat(gutter.len()), " ".repeat(col), "^".repeat(width)));
            }
        }
        if let Some(help) = &self.help {
            out.push_str(&format!("  = help: {help}\n"));
        }
        out
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let internal = if self.internal { "internal error: " } else { "" };
        write!(f, "{}:{}: {internal}{}", self.span.line, self.span.col, self.message)
    }
}

impl std::error::Error for Diagnostic {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_caret_under_column() {
        let d = Diagnostic::error(Span { line: 2, col: 5, start: 10, end: 15 }, "`while` is not supported")
            .with_help("rewrite as a `for` loop");
        let text = d.render("k.py", "def f(x):\n    while x:\n        pass\n");
        assert_eq!(
            text,
            "k.py:2:5: error: `while` is not supported\n 2 |     while x:\n   |     ^^^^^\n  = help: rewrite as a `for` loop\n"
        );
    }

    #[test]
    fn internal_errors_say_they_are_bugs() {
        let d = Diagnostic::internal(Span { line: 1, col: 5, start: 4, end: 5 }, "lost");
        assert_eq!(
            d.render("k.py", "def f(x):\n"),
            "k.py:1:5: error: internal error: lost\n 1 | def f(x):\n   |     ^\n  = help: this is a bug in adjc; \
             please report it with this source file\n"
        );
        assert_eq!(d.to_string(), "1:5: internal error: lost");
    }
}
