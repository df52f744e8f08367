//! The kinds of a routine's integer dummies as declared (`integer(8)`, `integer*8`,
//! `integer(kind=int64)`, `integer(ik)` with `ik = selected_int_kind(12)`), read from the
//! source so that the gfortran driver passes integers of the kind the routine takes. The
//! IR has one integer type; a kind this cannot evaluate leaves the default `integer`.

use std::collections::BTreeMap;

/// The code of a line, lower case, without its comment.
fn code(line: &str) -> String {
    line.split('!').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// `integer<spec>` → the kind expression and the rest of the line.
fn integer_spec(line: &str) -> Option<(Option<String>, &str)> {
    let rest = line.strip_prefix("integer")?;
    let rest = rest.trim_start();
    if let Some(r) = rest.strip_prefix('*') {
        let digits: String = r.trim_start().chars().take_while(|c| c.is_ascii_digit()).collect();
        let after = r.trim_start().get(digits.len()..)?;
        return Some((Some(digits), after));
    }
    if let Some(r) = rest.strip_prefix('(') {
        let mut depth = 1;
        let end = r.char_indices().find_map(|(i, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        })?;
        let inner = r[..end].trim();
        let inner = inner.strip_prefix("kind").map(|k| k.trim_start().trim_start_matches('=').trim()).unwrap_or(inner);
        return Some((Some(inner.to_string()), &r[end + 1..]));
    }
    Some((None, rest))
}

/// The names a declaration declares (`a(n), b = 2` → `a`, `b`).
fn declared_names(rest: &str) -> Vec<String> {
    let list = match rest.split_once("::") {
        Some((_, l)) => l,
        None => rest,
    };
    let mut names = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in list.chars().chain(std::iter::once(',')) {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                let name: String = cur.trim().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                if !name.is_empty() {
                    names.push(name);
                }
                cur.clear();
                continue;
            }
            _ => {}
        }
        if depth == 0 {
            cur.push(c);
        }
    }
    names
}

/// `integer, parameter :: ik = selected_int_kind(12)` anywhere in the source.
fn integer_parameters(source: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in source.lines().map(code) {
        let Some((_, rest)) = integer_spec(&line) else { continue };
        let Some((attrs, list)) = rest.split_once("::") else { continue };
        if !attrs.contains("parameter") {
            continue;
        }
        for item in list.split(',') {
            if let Some((name, value)) = item.split_once('=') {
                out.insert(name.trim().to_string(), value.trim().to_string());
            }
        }
    }
    out
}

fn eval_kind(expr: &str, params: &BTreeMap<String, String>, depth: usize) -> Option<u32> {
    let e = expr.trim();
    if let Ok(k) = e.parse() {
        return Some(k);
    }
    match e {
        "int8" => return Some(1),
        "int16" => return Some(2),
        "int32" | "c_int" | "c_int32_t" => return Some(4),
        "int64" | "c_long" | "c_long_long" | "c_int64_t" | "c_size_t" => return Some(8),
        _ => {}
    }
    if let Some(r) = e.strip_prefix("selected_int_kind(").and_then(|r| r.strip_suffix(')')) {
        let range = eval_int(r, params, depth)?;
        return [(2, 1), (4, 2), (9, 4), (18, 8)].iter().find(|(max, _)| range <= *max).map(|(_, k)| *k);
    }
    if let Some(r) = e.strip_prefix("kind(").and_then(|r| r.strip_suffix(')')) {
        let r = r.trim();
        if let Some((_, k)) = r.split_once('_') {
            return eval_kind(k, params, depth + 1);
        }
        return r.chars().all(|c| c.is_ascii_digit() || c == '-').then_some(4);
    }
    if depth < 8 {
        return params.get(e).and_then(|v| eval_kind(v, params, depth + 1));
    }
    None
}

fn eval_int(expr: &str, params: &BTreeMap<String, String>, depth: usize) -> Option<u32> {
    let e = expr.trim();
    e.parse().ok().or_else(|| (depth < 8).then(|| params.get(e)).flatten().and_then(|v| eval_int(v, params, depth + 1)))
}

/// The kind of every integer declared with one in routine `routine` (lower-case names).
pub fn integer_kinds(source: &str, routine: &str) -> BTreeMap<String, u32> {
    let params = integer_parameters(source);
    let routine = routine.to_ascii_lowercase();
    let mut out = BTreeMap::new();
    let mut inside = false;
    for line in source.lines().map(code) {
        let words: Vec<&str> =
            line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        if !inside {
            let header = words
                .iter()
                .position(|w| *w == "subroutine" || *w == "function")
                .is_some_and(|k| words.get(k + 1) == Some(&routine.as_str()) && !words[..k].contains(&"end"));
            inside = header;
            continue;
        }
        let ends_routine = matches!(
            words.as_slice(),
            ["end"] | ["endsubroutine" | "endfunction" | "contains", ..] | ["end", "subroutine" | "function", ..]
        );
        if ends_routine {
            break;
        }
        let Some((Some(kind), rest)) = integer_spec(&line) else { continue };
        if let Some(k) = eval_kind(&kind, &params, 0) {
            for name in declared_names(rest) {
                out.insert(name, k);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_literal_named_and_star_kinds() {
        let src = "module m\n  use iso_fortran_env, only: int64\n  integer, parameter :: r = 12, ik = selected_int_kind(r)\ncontains\n  subroutine other(n)\n    integer(2) :: n\n  end subroutine\n  subroutine k(n, m, p, q, x)\n    integer(ik), intent(in) :: n\n    integer(kind=int64) :: m\n    integer*8 p\n    integer :: q\n    real(8) :: x(n)\n  end subroutine k\nend module\n";
        let kinds = integer_kinds(src, "k");
        assert_eq!(kinds.get("n"), Some(&8));
        assert_eq!(kinds.get("m"), Some(&8));
        assert_eq!(kinds.get("p"), Some(&8));
        assert_eq!(kinds.get("q"), None);
        assert_eq!(integer_kinds(src, "other").get("n"), Some(&2));
    }
}
