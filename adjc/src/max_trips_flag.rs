//! `--max-trips LOOP=K`: a bound on the trips of one run of a `while` loop (Python
//! `while`, Fortran `do while` or a `do` left by `exit`). LOOP is the source line of the
//! loop or its id as `--emit ir` prints it (`L3: while ...`). The bound does not change the
//! generated code (the per-trip values still go to a stack that grows as needed, so a run
//! that exceeds it stays correct); it sizes those stacks in the memory report and lets
//! `--memory-limit` plan a function with data-dependent loops, which it otherwise refuses.

use crate::checkpoint_flag::LoopRef;
use crate::error::FlagError;
use adjc_autodiff::LoopId;
use adjc_ir::{walk_stmts, Diagnostic, Function, StmtKind};
use std::collections::BTreeMap;

const FORM: &str = "expected LOOP=K, LOOP a source line or a loop id L<k>, K a positive integer";

pub fn parse(flags: &[String]) -> Result<Vec<(LoopRef, u64)>, FlagError> {
    flags.iter().map(|f| parse_one(f).map_err(|e| FlagError(format!("--max-trips {f}: {e}")))).collect()
}

fn parse_one(flag: &str) -> Result<(LoopRef, u64), FlagError> {
    let (lp, k) = flag.split_once('=').ok_or(FORM)?;
    let lp = lp.trim();
    let r = if lp.starts_with('L') {
        LoopRef::Id(lp.parse().map_err(|_| FORM.to_string())?)
    } else {
        LoopRef::Line(lp.parse().map_err(|_| FORM.to_string())?)
    };
    let k: u64 = k.trim().parse().map_err(|_| format!("`{k}` is not a positive integer"))?;
    if k == 0 {
        return Err("the bound must be at least 1".into());
    }
    Ok((r, k))
}

/// The `while` loops the flags name in `f` (the function given to `reverse`), with their
/// bounds.
pub fn resolve(f: &Function, specs: &[(LoopRef, u64)]) -> Result<BTreeMap<LoopId, u64>, Diagnostic> {
    resolve_whiles(f, specs, "--max-trips", "a bound")
}

/// The `while` loops that the options of `flag` name in `f`, with their values (`what`
/// says what a value is, for the error on a loop named twice).
pub fn resolve_whiles<T: Clone>(
    f: &Function,
    specs: &[(LoopRef, T)],
    flag: &str,
    what: &str,
) -> Result<BTreeMap<LoopId, T>, Diagnostic> {
    let mut whiles: Vec<(LoopId, u32)> = Vec::new();
    walk_stmts(&f.body, &mut |s| {
        if let StmtKind::While(w) = &s.kind {
            whiles.push((w.id, s.span.line));
        }
    });
    let have = || {
        let h: Vec<String> = whiles.iter().map(|(id, l)| format!("{id} (line {l})")).collect();
        if h.is_empty() {
            format!("`{}` has no `while` loop", f.name)
        } else {
            format!("the `while` loops of `{}`: {}", f.name, h.join(", "))
        }
    };
    let mut out = BTreeMap::new();
    for (r, k) in specs {
        let found: Vec<LoopId> = whiles
            .iter()
            .filter(|(id, line)| match r {
                LoopRef::Id(x) => id == x,
                LoopRef::Line(l) => line == l,
            })
            .map(|(id, _)| *id)
            .collect();
        let id = match found.as_slice() {
            [id] => *id,
            [] => {
                let name = match r {
                    LoopRef::Id(x) => format!("{x}"),
                    LoopRef::Line(l) => format!("line {l}"),
                };
                return Err(Diagnostic::error(f.span, format!("{flag}: {name} is not a `while` loop"))
                    .with_help(format!("{}; a counted loop needs no bound", have())));
            }
            several => {
                let ids: Vec<String> = several.iter().map(|k| k.to_string()).collect();
                return Err(Diagnostic::error(f.span, format!("{flag}: several `while` loops start on that line"))
                    .with_help(format!("name one by its loop id (see --emit ir): {}", ids.join(", "))));
            }
        };
        if out.insert(id, k.clone()).is_some() {
            return Err(Diagnostic::error(f.span, format!("{flag}: loop {id} is given {what} twice")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse() {
        assert_eq!(parse_one("L1=60").unwrap(), (LoopRef::Id(LoopId(1)), 60));
        assert_eq!(parse_one("14=8").unwrap(), (LoopRef::Line(14), 8));
        assert!(parse_one("L1=0").is_err());
        assert!(parse_one("L1").is_err());
        assert!(parse_one("x=3").is_err());
    }
}
