//! Make dependency files, as `gcc -MD -MP` writes them: `targets: prerequisites`, then one
//! empty rule per prerequisite (so a deleted `include` file makes the targets out of date
//! instead of stopping make with "No rule to make target").
//!
//! Names are escaped for make: a space or a tab as `\ `, `#` as `\#`, `$` as `$$`, a
//! backslash before any of those doubled. Long lists continue on the next line (` \`).

use std::path::PathBuf;

/// The dependency file of `targets` on `prerequisites`.
pub fn render(targets: &[PathBuf], prerequisites: &[PathBuf]) -> String {
    let names = |ps: &[PathBuf]| ps.iter().map(|p| escape(&p.display().to_string())).collect::<Vec<_>>();
    let mut out = names(targets).join(" ");
    out.push(':');
    for p in names(prerequisites) {
        out.push_str(" \\\n  ");
        out.push_str(&p);
    }
    out.push('\n');
    for p in names(prerequisites) {
        out.push('\n');
        out.push_str(&p);
        out.push_str(":\n");
    }
    out
}

/// `name` as make reads it in a rule.
pub fn escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let chars: Vec<char> = name.chars().collect();
    for (k, &c) in chars.iter().enumerate() {
        match c {
            ' ' | '\t' => {
                // Backslashes just before a space are doubled, then the space escaped.
                let run = chars[..k].iter().rev().take_while(|&&b| b == '\\').count();
                for _ in 0..run {
                    out.push('\\');
                }
                out.push('\\');
                out.push(c);
            }
            '#' => out.push_str("\\#"),
            '$' => out.push_str("$$"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_make_reads() {
        assert_eq!(escape("a b.f90"), "a\\ b.f90");
        assert_eq!(escape("x#1$y"), "x\\#1$$y");
        assert_eq!(escape("plain/path.h"), "plain/path.h");
    }

    #[test]
    fn lists_targets_prerequisites_and_phony_rules() {
        let d = render(&["o/k.c".into(), "o/k.h".into()], &["k.f90".into(), "my inc.h".into()]);
        assert_eq!(d, "o/k.c o/k.h: \\\n  k.f90 \\\n  my\\ inc.h\n\nk.f90:\n\nmy\\ inc.h:\n");
    }
}
