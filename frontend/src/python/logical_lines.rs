//! Python's logical lines: a statement continues onto the next physical line while a
//! bracket is open or the line ends in a backslash (and a triple-quoted string runs on).
//! The generated C quotes such a statement whole ([`adjc_ir::Module::continued`]).

/// The logical lines of `source` that span more than one physical line, as 1-based
/// `(first, last)` line numbers, in order. A lexical scan: strings (with their prefixes,
/// escapes and triple quotes) and `#` comments are skipped, brackets counted.
pub fn continued(source: &str) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let chars: Vec<char> = source.chars().collect();
    let (mut line, mut first) = (1u32, 1u32);
    let mut depth = 0usize;
    let mut k = 0;
    let mut backslash = false;
    while k < chars.len() {
        let c = chars[k];
        match c {
            '\n' => {
                if depth == 0 && !backslash {
                    if line > first {
                        out.push((first, line));
                    }
                    first = line + 1;
                }
                backslash = false;
                line += 1;
                k += 1;
                continue;
            }
            '\\' => {
                // A backslash ending the line joins it with the next.
                let next = chars.get(k + 1).copied();
                if next == Some('\n') || (next == Some('\r') && chars.get(k + 2) == Some(&'\n')) {
                    backslash = true;
                    k += if next == Some('\r') { 2 } else { 1 };
                    continue;
                }
            }
            '#' => {
                while k < chars.len() && chars[k] != '\n' {
                    k += 1;
                }
                continue;
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            '\'' | '"' => {
                let triple = chars.get(k + 1) == Some(&c) && chars.get(k + 2) == Some(&c);
                k += if triple { 3 } else { 1 };
                while k < chars.len() {
                    let d = chars[k];
                    if d == '\\' {
                        if chars.get(k + 1) == Some(&'\n') {
                            line += 1;
                        }
                        k += 2;
                        continue;
                    }
                    if d == '\n' {
                        if !triple {
                            break; // an unterminated string: the parser reports it
                        }
                        line += 1;
                    }
                    if d == c && (!triple || (chars.get(k + 1) == Some(&c) && chars.get(k + 2) == Some(&c))) {
                        k += if triple { 3 } else { 1 };
                        break;
                    }
                    k += 1;
                }
                continue;
            }
            _ => {}
        }
        backslash = false;
        k += 1;
    }
    if line > first && k > 0 {
        out.push((first, line));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::continued;

    #[test]
    fn brackets_backslashes_and_strings() {
        let src = "def f(x):\n    y = (x\n         + 1) \\\n        - 2\n    s = 'a(' # (\n    return y\n";
        assert_eq!(continued(src), vec![(2, 4)]);
        let src = "a = \"\"\"one\ntwo\"\"\"\nb = [1,\n     2]\nc = 3";
        assert_eq!(continued(src), vec![(1, 2), (3, 4)]);
        assert_eq!(continued("x = 1\ny = 2\n"), vec![]);
        // A last line without a newline still closes its statement.
        assert_eq!(continued("y = f(1,\n      2)"), vec![(1, 2)]);
    }
}
