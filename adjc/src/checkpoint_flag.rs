//! `--checkpoint LOOP=every:K|binomial:C`: which time loops the adjoint checkpoints.
//! LOOP is the source line of the loop or its [`LoopId`] as `--emit ir` prints it (`L3`;
//! ids are given in source order and kept by the passes, see "Identities" in `adjc_ir`).

use crate::error::FlagError;
use adjc_autodiff::{Checkpointing, LoopId};
use adjc_ir::{Diagnostic, Function};
use std::collections::BTreeMap;

/// Which loop a flag names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopRef {
    Line(u32),
    Id(LoopId),
}

const FORM: &str = "expected LOOP=every:K or LOOP=binomial:C, LOOP a source line or a loop id L<k>";

pub fn parse(flags: &[String]) -> Result<Vec<(LoopRef, Checkpointing)>, FlagError> {
    flags.iter().map(|f| parse_one(f).map_err(|e| FlagError(format!("--checkpoint {f}: {e}")))).collect()
}

fn parse_one(flag: &str) -> Result<(LoopRef, Checkpointing), FlagError> {
    let (lp, how) = flag.split_once('=').ok_or(FORM)?;
    let lp = lp.trim();
    let r = if lp.starts_with('L') {
        LoopRef::Id(lp.parse().map_err(|_| FORM.to_string())?)
    } else {
        LoopRef::Line(lp.parse().map_err(|_| FORM.to_string())?)
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
    // The sequential loops of `f` in program order: (id, line).
    let loops: Vec<(LoopId, u32)> =
        adjc_ir::proc::ids::loops(&f.body).iter().map(|(s, l)| (l.id, s.span.line)).collect();
    let line_of = |id: LoopId| loops.iter().find(|(k, _)| *k == id).map_or(0, |(_, line)| *line);
    let mut out = BTreeMap::new();
    for (r, c) in specs {
        let id = match r {
            LoopRef::Id(k) if loops.iter().any(|(id, _)| id == k) => *k,
            LoopRef::Line(l) => {
                let on_line: Vec<LoopId> = loops.iter().filter(|(_, line)| line == l).map(|(id, _)| *id).collect();
                match on_line.as_slice() {
                    [k] => *k,
                    [] => {
                        let have: Vec<String> = loops.iter().map(|(id, l)| format!("{l} ({id})")).collect();
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
                        let ids: Vec<String> = several.iter().map(|k| k.to_string()).collect();
                        return Err(Diagnostic::error(
                            f.span,
                            format!("--checkpoint: {} sequential loops start on line {l}", several.len()),
                        )
                        .with_help(format!("name one by its loop id (see --emit ir): {}", ids.join(", "))));
                    }
                }
            }
            LoopRef::Id(k) => {
                let have: Vec<String> = loops.iter().map(|(id, _)| id.to_string()).collect();
                let have = if have.is_empty() { "none".to_string() } else { have.join(", ") };
                return Err(Diagnostic::error(
                    f.span,
                    format!("--checkpoint: there is no loop {k}; the sequential loops of `{}` are {have}", f.name),
                )
                .with_help("`adjc transpile --emit ir` prints every loop with its id"));
            }
        };
        if out.insert(id, c.clone()).is_some() {
            return Err(Diagnostic::error(
                f.span,
                format!("--checkpoint: loop {id} (line {}) is given a schedule twice", line_of(id)),
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
        assert_eq!(
            parse_one("L0=binomial:2").unwrap(),
            (LoopRef::Id(LoopId(0)), Checkpointing::Binomial { snapshots: 2 })
        );
        assert!(parse_one("L=every:3").is_err());
        assert!(parse_one("L01=every:3").is_err());
        assert!(parse_one("L-1=every:3").is_err());
        assert!(parse_one("8=every:0").is_err());
        assert!(parse_one("8=often:3").is_err());
        assert!(parse_one("x=every:3").is_err());
    }

    /// Two loops on line 3 (a helper inlined twice) and one on line 5, numbered L0, L1, L2.
    fn three_loops() -> Function {
        use adjc_ir::{Expr, Loop, Scalar, Span, Stmt, StmtKind, Type, VarRole};
        let mut f = Function::empty("k", Span::NONE);
        let i = f.add_var("i", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
        let lp = |line: u32| {
            let span = Span { line, ..Span::NONE };
            let l = Loop {
                id: LoopId::NEW,
                var: i,
                start: Expr::int(0),
                stop: Expr::int(4),
                step: Expr::int(1),
                body: vec![],
            };
            Stmt::new(StmtKind::Loop(l), span)
        };
        f.body = vec![lp(3), lp(3), lp(5)];
        adjc_ir::proc::ids::settle(&mut f.body);
        f
    }

    #[test]
    fn ambiguous_or_repeated_loops_are_errors() {
        let f = three_loops();
        let every = |k| Checkpointing::Periodic { every: k };
        let ok = resolve(&f, &[(LoopRef::Line(5), every(2)), (LoopRef::Id(LoopId(1)), every(3))]).unwrap();
        assert_eq!(ok.into_iter().collect::<Vec<_>>(), vec![(LoopId(1), every(3)), (LoopId(2), every(2))]);
        let e = resolve(&f, &[(LoopRef::Line(3), every(2))]).unwrap_err();
        assert!(e.message.contains("2 sequential loops start on line 3"), "{}", e.message);
        assert!(e.help.as_deref().unwrap_or("").contains("L0, L1"), "{:?}", e.help);
        let e = resolve(&f, &[(LoopRef::Id(LoopId(7)), every(2))]).unwrap_err();
        assert!(e.message.contains("no loop L7; the sequential loops of `k` are L0, L1, L2"), "{}", e.message);
        let e = resolve(&f, &[(LoopRef::Line(5), every(2)), (LoopRef::Id(LoopId(2)), every(3))]).unwrap_err();
        assert!(e.message.contains("given a schedule twice"), "{}", e.message);
    }
}
