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
            LoopRef::Line(l) => {
                let on_line: Vec<usize> = (0..lines.len()).filter(|k| lines[*k] == *l).collect();
                match on_line.as_slice() {
                    [k] => *k,
                    [] => {
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
                    // A helper inlined at several calls puts several loops on one line.
                    several => {
                        let ids: Vec<String> = several.iter().map(|k| format!("L{k}")).collect();
                        return Err(Diagnostic::error(
                            f.span,
                            format!("--checkpoint: {} sequential loops start on line {l}", several.len()),
                        )
                        .with_help(format!("name one by its loop id: {}", ids.join(", "))));
                    }
                }
            }
            LoopRef::Id(k) => {
                return Err(Diagnostic::error(
                    f.span,
                    format!("--checkpoint: there is no loop L{k}; `{}` has {} sequential loops", f.name, lines.len()),
                ))
            }
        };
        if out.insert(LoopId(id), c.clone()).is_some() {
            return Err(Diagnostic::error(
                f.span,
                format!("--checkpoint: loop L{id} (line {}) is given a schedule twice", lines[id]),
            )
            .with_help("give each loop one --checkpoint"));
        }
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

    /// Two loops on line 3 (a helper inlined twice) and one on line 5.
    fn three_loops() -> Function {
        use adjc_ir::{Expr, Loop, Scalar, Span, Stmt, Type, VarRole};
        let mut f = Function::empty("k", Span::NONE);
        let i = f.add_var("i", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
        let lp = |line: u32| {
            let span = Span { line, ..Span::NONE };
            let l = Loop { var: i, start: Expr::int(0), stop: Expr::int(4), step: Expr::int(1), body: vec![] };
            Stmt::new(StmtKind::Loop(l), span)
        };
        f.body = vec![lp(3), lp(3), lp(5)];
        f
    }

    #[test]
    fn ambiguous_or_repeated_loops_are_errors() {
        let f = three_loops();
        let every = |k| Checkpointing::Periodic { every: k };
        let ok = resolve(&f, &[(LoopRef::Line(5), every(2)), (LoopRef::Id(1), every(3))]).unwrap();
        assert_eq!(ok.into_iter().collect::<Vec<_>>(), vec![(LoopId(1), every(3)), (LoopId(2), every(2))]);
        let e = resolve(&f, &[(LoopRef::Line(3), every(2))]).unwrap_err();
        assert!(e.message.contains("2 sequential loops start on line 3"), "{}", e.message);
        let e = resolve(&f, &[(LoopRef::Line(5), every(2)), (LoopRef::Id(2), every(3))]).unwrap_err();
        assert!(e.message.contains("given a schedule twice"), "{}", e.message);
    }
}
