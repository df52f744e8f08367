//! Differential test against CPython: mutants of the example kernels (a space more or less
//! at the start of a line, a line duplicated or dropped, tokens swapped, a colon or bracket
//! dropped, a name replaced by another or by a literal, ...) made with a fixed seed. Every
//! mutant CPython's `compile()` rejects must be rejected by adjc's Python frontend, and no
//! mutant may crash it. Runs with `$ADJC_PYTHON`, else `python3`, when there is one.

use adjc_frontend::{lower_python, PythonOptions};
use std::io::Write;
use std::process::{Command, Stdio};

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

const MUTANTS_PER_EXAMPLE: usize = 24;

fn examples() -> Vec<(String, String)> {
    let dir = format!("{}/../examples/python", env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

/// Splits a line into rough tokens: words and single punctuation characters.
fn tokens(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b' ' {
            i += 1;
        } else if b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            out.push((s, i));
        } else {
            out.push((i, i + 1));
            i += 1;
        }
    }
    out
}

fn is_word(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// One random mutation of `src`.
fn mutate(src: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    let code: Vec<usize> =
        (0..lines.len()).filter(|&i| !lines[i].trim().is_empty() && !lines[i].trim().starts_with('#')).collect();
    if code.is_empty() {
        return src.to_string();
    }
    let li = code[rng.below(code.len())];
    let line = lines[li].clone();
    let toks = tokens(&line);
    match rng.below(12) {
        0 => {
            if let Some(rest) = line.strip_prefix(' ') {
                lines[li] = rest.to_string();
            }
        }
        1 => lines[li] = format!(" {line}"),
        2 => lines.insert(li, line.clone()),
        3 => {
            lines.remove(li);
        }
        4 if toks.len() >= 2 => {
            let k = rng.below(toks.len() - 1);
            let (a, b) = (toks[k], toks[k + 1]);
            lines[li] =
                format!("{}{}{}{}{}", &line[..a.0], &line[b.0..b.1], &line[a.1..b.0], &line[a.0..a.1], &line[b.1..]);
        }
        5 => {
            // Drop one bracket, colon or comma.
            let cands: Vec<usize> = line.match_indices(['(', ')', '[', ']', ':', ',']).map(|(i, _)| i).collect();
            if !cands.is_empty() {
                let i = cands[rng.below(cands.len())];
                lines[li] = format!("{}{}", &line[..i], &line[i + 1..]);
            }
        }
        6 if !toks.is_empty() => {
            // Replace a name by another name of the line (duplicate parameters, keyword
            // arguments, ...) or by a literal or a call (assignment to a literal).
            let words: Vec<&(usize, usize)> = toks.iter().filter(|t| is_word(&line[t.0..t.1])).collect();
            if !words.is_empty() {
                let t = words[rng.below(words.len())];
                let by = match rng.below(3) {
                    0 => {
                        let w = words[rng.below(words.len())];
                        line[w.0..w.1].to_string()
                    }
                    1 => "1".to_string(),
                    _ => "g()".to_string(),
                };
                if !by.is_empty() && !by.contains(' ') {
                    lines[li] = format!("{}{}{}", &line[..t.0], by, &line[t.1..]);
                }
            }
        }
        7 => {
            // A statement at the indentation of this line.
            let ind = line.len() - line.trim_start().len();
            let stmt = rng.pick(&["break", "continue", "return x", "yield x", "pass", "else:", "x = 1", "elif x:"]);
            lines.insert(li, format!("{}{stmt}", " ".repeat(ind)));
        }
        8 if !toks.is_empty() => {
            // Delete one token.
            let t = toks[rng.below(toks.len())];
            lines[li] = format!("{}{}", &line[..t.0], &line[t.1..]);
        }
        9 if !toks.is_empty() => {
            // Insert a punctuation or keyword before a token.
            let t = toks[rng.below(toks.len())];
            let ins = rng.pick(&[
                ",", ":", "(", ")", "=", "*", "**", ".", "lambda ", "not ", "and ", "in ", "= 1,", "x=", "0", "<> ",
                ":= ", "u", "del ", "global ",
            ]);
            lines[li] = format!("{}{}{}", &line[..t.0], ins, &line[t.0..]);
        }
        10 => {
            // Re-indent the line by a tab or by the indentation of another line.
            let other = &lines[code[rng.below(code.len())]];
            let ind = if rng.below(4) == 0 {
                "\t".to_string()
            } else {
                other[..other.len() - other.trim_start().len()].to_string()
            };
            lines[li] = format!("{ind}{}", line.trim_start());
        }
        _ => {
            // Move the line after the next code line.
            if li + 1 < lines.len() {
                lines.swap(li, li + 1);
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// CPython's verdict on each source: `None` when `compile()` accepts it, else its message.
fn cpython_verdicts(python: &str, sources: &[String]) -> Vec<Option<String>> {
    let script = r#"
import sys, warnings
warnings.simplefilter("ignore")
data = sys.stdin.buffer.read()
i = 0
out = []
while i < len(data):
    nl = data.index(b"\n", i)
    n = int(data[i:nl]); i = nl + 1
    src = data[i:i + n]; i += n
    try:
        compile(src, "m.py", "exec")
        out.append("ok")
    except (SyntaxError, ValueError) as e:
        out.append("err %s: %s" % (getattr(e, "lineno", "?"), str(e).replace("\n", " ")))
sys.stdout.write("\n".join(out) + "\n")
"#;
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cannot run ADJC_PYTHON");
    let mut input = Vec::new();
    for s in sources {
        input.extend_from_slice(format!("{}\n", s.len()).as_bytes());
        input.extend_from_slice(s.as_bytes());
    }
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let v: Vec<Option<String>> =
        text.lines().map(|l| if l == "ok" { None } else { Some(l.trim_start_matches("err ").to_string()) }).collect();
    assert_eq!(v.len(), sources.len());
    v
}

#[test]
fn every_mutant_cpython_rejects_is_rejected() {
    // `$ADJC_PYTHON`, else `python3` (compile() needs no NumPy).
    let python = std::env::var("ADJC_PYTHON").unwrap_or_else(|_| "python3".into());
    let works = Command::new(&python)
        .args(["-c", "import sys; assert sys.version_info >= (3, 8)"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !works {
        let required = std::env::var("ADJC_REQUIRE_NUMPY").is_ok_and(|v| v == "1");
        assert!(!required, "ADJC_REQUIRE_NUMPY=1 but there is no Python 3 (`{python}`)");
        eprintln!("no Python 3 (`{python}`): skipping the CPython differential test");
        return;
    }
    let mut rng = Rng(std::env::var("ADJC_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_ad1c_0001));
    let mut mutants = Vec::new();
    for (name, src) in examples() {
        for k in 0..MUTANTS_PER_EXAMPLE {
            let mut m = mutate(&src, &mut rng);
            if k % 4 == 3 {
                m = mutate(&m, &mut rng);
            }
            if m != src {
                mutants.push((format!("{name} mutant {k}"), m));
            }
        }
    }
    let srcs: Vec<String> = mutants.iter().map(|m| m.1.clone()).collect();
    let verdicts = cpython_verdicts(&python, &srcs);
    let mut missed = Vec::new();
    let mut rejected = 0;
    for (k, ((what, src), verdict)) in mutants.iter().zip(&verdicts).enumerate() {
        // Lowering a valid kernel takes long; a sample of the valid mutants checks that
        // nothing crashes on them.
        if verdict.is_none() && k % 8 != 0 {
            continue;
        }
        let r = lower_python("m.py", src, &PythonOptions::default());
        if let Err(d) = &r {
            assert!(!d.internal, "{what}: internal error\n{src}\n{}", d.render("m.py", src));
        }
        if let Some(why) = verdict {
            rejected += 1;
            if r.is_ok() {
                missed.push(format!("--- {what}: CPython says {why}\n{src}"));
            }
        }
    }
    eprintln!("{} mutants, {rejected} rejected by CPython, {} of those accepted by adjc", mutants.len(), missed.len());
    assert!(rejected > mutants.len() / 4, "too few invalid mutants ({rejected}): the mutations are too weak");
    assert!(missed.is_empty(), "adjc accepts {} mutants CPython rejects:\n{}", missed.len(), missed.join("\n"));
}
