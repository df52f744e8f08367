//! Differential test against gfortran: seeded mutants of the Fortran examples (a line
//! duplicated, dropped or moved, tokens swapped, a bracket, colon, comma or `=` dropped, a
//! token deleted or inserted, a name replaced by another, a construct line inserted). Every
//! mutant `gfortran -fsyntax-only` rejects must be rejected by adjc's Fortran frontend, and
//! no mutant may crash it. gfortran accepts things adjc refuses on purpose, so only that
//! direction is asserted. Runs when gfortran is installed (one gfortran run for all).

use adjc_frontend::{lower_fortran, FortranOptions};
use std::collections::BTreeSet;
use std::process::Command;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

const MUTANTS_PER_EXAMPLE: usize = 3;

/// Self-contained free-form examples (no `use` of another file, no `include`).
fn examples() -> Vec<(String, String)> {
    let dir = format!("{}/../examples/fortran", env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()).map(|e| e.path()).collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "f90"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .filter(|(_, s)| {
            let l = s.to_ascii_lowercase();
            !l.contains("include") && !l.lines().any(|x| x.trim_start().starts_with("use ") && !x.contains("iso_"))
        })
        .collect()
}

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

fn mutate(src: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    let code: Vec<usize> = (0..lines.len())
        .filter(|&i| !lines[i].trim().is_empty() && !lines[i].trim().starts_with('!') && lines[i].is_ascii())
        .collect();
    if code.is_empty() {
        return src.to_string();
    }
    let li = code[rng.below(code.len())];
    let line = lines[li].clone();
    let toks = tokens(&line);
    match rng.below(9) {
        0 => lines.insert(li, line.clone()),
        1 => {
            lines.remove(li);
        }
        2 if toks.len() >= 2 => {
            let k = rng.below(toks.len() - 1);
            let (a, b) = (toks[k], toks[k + 1]);
            lines[li] =
                format!("{}{}{}{}{}", &line[..a.0], &line[b.0..b.1], &line[a.1..b.0], &line[a.0..a.1], &line[b.1..]);
        }
        3 => {
            let cands: Vec<usize> = line.match_indices(['(', ')', ',', ':', '=']).map(|(i, _)| i).collect();
            if !cands.is_empty() {
                let i = cands[rng.below(cands.len())];
                lines[li] = format!("{}{}", &line[..i], &line[i + 1..]);
            }
        }
        4 if !toks.is_empty() => {
            let t = toks[rng.below(toks.len())];
            lines[li] = format!("{}{}", &line[..t.0], &line[t.1..]);
        }
        5 if !toks.is_empty() => {
            let t = toks[rng.below(toks.len())];
            let ins = rng.pick(&[",", ":", "(", ")", "=", "*", "::", "end ", "do ", "if ", "then", "1"]);
            lines[li] = format!("{}{}{}", &line[..t.0], ins, &line[t.0..]);
        }
        6 => {
            let ins = rng.pick(&["end do", "end if", "else", "end subroutine", "contains", "x = ", "do i = 1, n"]);
            lines.insert(li, ins.to_string());
        }
        7 => {
            let words: Vec<(usize, usize)> =
                toks.iter().copied().filter(|t| line.as_bytes()[t.0].is_ascii_alphabetic()).collect();
            if !words.is_empty() {
                let t = words[rng.below(words.len())];
                let w = words[rng.below(words.len())];
                lines[li] = format!("{}{}{}", &line[..t.0], &line[w.0..w.1], &line[t.1..]);
            }
        }
        _ => {
            let j = code[rng.below(code.len())];
            lines.swap(li, j);
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

#[test]
fn every_mutant_gfortran_rejects_is_rejected() {
    if !Command::new("gfortran").arg("--version").output().is_ok_and(|o| o.status.success()) {
        assert!(std::env::var_os("ADJC_REQUIRE_GFORTRAN").is_none(), "gfortran is required but not installed");
        eprintln!("gfortran not installed: skipping the gfortran differential test");
        return;
    }
    let dir = std::env::temp_dir().join(format!("adjc-fvsg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let seed = std::env::var("ADJC_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_f0f0_0001);
    let mut rng = Rng(seed);
    // Originals first: only examples gfortran accepts on their own are mutated.
    let mut files: Vec<(String, String, Option<usize>)> = Vec::new();
    let exs = examples();
    for (k, (_, src)) in exs.iter().enumerate() {
        files.push((format!("o{k}.f90"), src.clone(), None));
        for j in 0..MUTANTS_PER_EXAMPLE {
            let m = mutate(src, &mut rng);
            if m != *src {
                files.push((format!("m{k}_{j}.f90"), m, Some(k)));
            }
        }
    }
    for (name, text, _) in &files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let out = Command::new("gfortran")
        .current_dir(&dir)
        .args(["-fsyntax-only", "-J", "."])
        .args(files.iter().map(|f| f.0.as_str()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Messages start with `file:line:col:`; warnings do not count.
    let mut rejected = BTreeSet::new();
    let mut current = String::new();
    for l in stderr.lines() {
        if let Some((f, _)) = l.split_once(':').filter(|(f, _)| f.ends_with(".f90")) {
            current = f.to_string();
        }
        if l.contains("Error:") {
            match l.split_once('‘').and_then(|(_, r)| r.split_once('’')).filter(|(f, _)| f.ends_with(".f90")) {
                Some((f, _)) if l.starts_with("f951") => rejected.insert(f.to_string()),
                _ => rejected.insert(current.clone()),
            };
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut missed = Vec::new();
    let (mut n, mut n_rejected) = (0, 0);
    for (name, text, origin) in &files {
        let Some(k) = origin else { continue };
        if rejected.contains(&format!("o{k}.f90")) {
            continue;
        }
        n += 1;
        let r = lower_fortran(name, text, &FortranOptions::default());
        if let Err(d) = &r {
            assert!(!d.internal, "{name} ({}): internal error\n{text}\n{}", exs[*k].0, d.message);
        }
        if rejected.contains(name) {
            n_rejected += 1;
            if r.is_ok() {
                let lines: Vec<&str> = stderr.lines().collect();
                let at = lines.iter().position(|l| l.starts_with(name.as_str())).unwrap_or(0);
                let why: Vec<&str> = lines[at..].iter().take(14).copied().filter(|l| !l.trim().is_empty()).collect();
                missed.push(format!("--- {name} (from {}): gfortran says {}\n{text}", exs[*k].0, why.join(" | ")));
            }
        }
    }
    eprintln!("{n} mutants, {n_rejected} rejected by gfortran, {} of those accepted by adjc", missed.len());
    assert!(n > 40 && n_rejected > n / 4, "too few mutants ({n}) or invalid ones ({n_rejected})");
    assert!(missed.is_empty(), "adjc accepts {} mutants gfortran rejects:\n{}", missed.len(), missed.join("\n"));
}
