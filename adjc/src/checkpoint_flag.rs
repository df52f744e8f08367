//! `--checkpoint LOOP=every:K|binomial:C`: which time loops the adjoint checkpoints.
//! LOOP is the source line of the loop or `L<k>`, its [`LoopId`] (pre-order index among
//! the loops of the function being differentiated).

use adjc_autodiff::{Checkpointing, LoopId};
use adjc_ir::{walk_stmts, Diagnostic, Function, StmtKind};
use std::collections::BTreeMap;

/// Which loop a flag names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopRef {
    Line(u32),
    Id(usize),
}

const FORM: &str = "expected LOOP=every:K or LOOP=binomial:C, LOOP a source line or L<k>";

pub fn parse(flags: &[String]) -> Result<Vec<(LoopRef, Checkpointing)>, String> {
    flags.iter().map(|f| parse_one(f).map_err(|e| format!("--checkpoint {f}: {e}"))).collect()
}

fn parse_one(flag: &str) -> Result<(LoopRef, Checkpointing), String> {
    let (lp, how) = flag.split_once('=').ok_or(FORM)?;
    let lp = lp.trim();
    let r = match lp.strip_prefix('L') {
        Some(k) => LoopRef::Id(k.parse().map_err(|_| FORM.to_string())?),
        None => LoopRef::Line(lp.parse().map_err(|_| FORM.to_string())?),
    };
    let (kind, n) = how.split_once(':').ok_or(FORM)?;
    let n: u64 = n.trim().parse().map_err(|_| format!("`{n}` is not a positive integer"))?;
    if n == 0 {
        return Err("the period and the number of snapshots must be at least 1".into());
    }
    let c = match kind.trim() {
        "every" => Checkpointing::Periodic { every: n },
        "binomial" => Checkpointing::Binomial { snapshots: n },
        _ => return Err(FORM.into()),
    };
    Ok((r, c))
}

/// The loop ids the flags name in `f` (the function given to `reverse`).
pub fn resolve(
    f: &Function,
    specs: &[(LoopRef, Checkpointing)],
) -> Result<BTreeMap<LoopId, Checkpointing>, Diagnostic> {
    let mut lines = Vec::new();
    walk_stmts(&f.body, &mut |s| {
        if matches!(s.kind, StmtKind::Loop(_)) {
            lines.push(s.span.line);
        }
    });
    let mut out = BTreeMap::new();
    for (r, c) in specs {
        let id = match r {
            LoopRef::Id(k) if *k < lines.len() => *k,
            LoopRef::Line(l) => match lines.iter().position(|x| x == l) {
                Some(k) => k,
                None => {
                    let have: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                    return Err(Diagnostic::error(
                        f.span,
                        format!("--checkpoint: no sequential loop starts on line {l}"),
                    )
                    .with_help(format!(
                        "the sequential loops of `{}` start on lines: {}",
                        f.name,
                        have.join(", ")
                    )));
                }
            },
            LoopRef::Id(k) => {
                return Err(Diagnostic::error(
                    f.span,
                    format!("--checkpoint: there is no loop L{k}; `{}` has {} sequential loops", f.name, lines.len()),
                ))
            }
        };
        out.insert(LoopId(id), c.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_parse() {
        assert_eq!(parse_one("8=every:3").unwrap(), (LoopRef::Line(8), Checkpointing::Periodic { every: 3 }));
        assert_eq!(parse_one("L0=binomial:2").unwrap(), (LoopRef::Id(0), Checkpointing::Binomial { snapshots: 2 }));
        assert!(parse_one("8=every:0").is_err());
        assert!(parse_one("8=often:3").is_err());
        assert!(parse_one("x=every:3").is_err());
    }
}
