//! Applies a memory plan to an adjoint built store-all: the chosen temporaries are freed
//! after their last forward use and computed again right before the reverse sweep reads
//! them, and every local array is allocated right before its first use and freed after its
//! last (instead of living for the whole call).

use super::sweeps::{placeable, temps, Sweeps};
use super::PlanError::{self, Internal};
use crate::util::stmt_mentions;
use adjc_ir::{Block, Function, Note, Stmt, StmtKind, VarId};
use std::collections::BTreeSet;

/// The body of `f` under the plan that recomputes the candidates named in `recompute`.
pub fn apply(f: &Function, recompute: &BTreeSet<String>) -> Result<Block, PlanError> {
    let sw = Sweeps::find(f).ok_or(Internal("the adjoint has no forward and reverse sweep sections".into()))?;
    let temps = temps(f, &sw);
    let mut chosen = Vec::new();
    for id in recompute {
        let t = temps
            .iter()
            .find(|t| &super::model::temp_id(f, t.var) == id)
            .ok_or_else(|| Internal(format!("`{id}` is not an array the reverse sweep can recompute")))?;
        if let Some(why) = &t.store_only {
            return Err(Internal(format!("`{id}` cannot be recomputed: {why}")));
        }
        if let Some(d) = t.deps.iter().find(|d| recompute.contains(&super::model::temp_id(f, **d))) {
            return Err(Internal(format!("`{id}` is recomputed from `{}`, which must then be stored", f.var(*d).name)));
        }
        chosen.push(t.clone());
    }
    let (fwd, mut rev) = (sw.fwd.to_vec(), sw.rev.to_vec());
    // Recomputations go in right before the first reverse statement that reads the array,
    // the latest point that still precedes every reverse use.
    chosen.sort_by_key(|t| (std::cmp::Reverse(t.first_rev), std::cmp::Reverse(t.defs[0])));
    let n = fwd.len();
    for t in &chosen {
        let name = &f.var(t.var).name;
        let mut block: Block = t.defs.iter().map(|&d| fwd[d].clone()).collect();
        let line = block[0].span.line;
        block[0].note = Some(Note::RecomputedUnderLimit { name: name.clone(), line });
        let at = t.first_rev - n;
        rev.splice(at..at, block);
    }
    let recomputed: BTreeSet<VarId> = chosen.iter().map(|t| t.var).collect();
    let (fwd, rev) = place(f, fwd, rev, &recomputed);
    let mut body = Vec::new();
    for (k, s) in f.body.iter().enumerate() {
        let placed = |v: &VarId| placeable(f, *v) && (fwd.1.contains(v) || rev.1.contains(v));
        match &s.kind {
            StmtKind::Alloc(v) | StmtKind::Free(v) if placed(v) => {}
            StmtKind::Section { title, .. } if k == sw.fwd_at || k == sw.rev_at => {
                let inner = if k == sw.fwd_at { fwd.0.clone() } else { rev.0.clone() };
                body.push(Stmt { kind: StmtKind::Section { title: title.clone(), body: inner }, ..s.clone() });
            }
            _ => body.push(s.clone()),
        }
    }
    // Recomputations copy forward loops: the copies get fresh ids.
    adjc_ir::proc::ids::settle(&mut body);
    Ok(body)
}

/// Allocations and frees around each placeable array's uses; returns both sweeps with the
/// arrays each now allocates.
#[allow(clippy::type_complexity)]
fn place(
    f: &Function,
    fwd: Block,
    rev: Block,
    recomputed: &BTreeSet<VarId>,
) -> ((Block, BTreeSet<VarId>), (Block, BTreeSet<VarId>)) {
    let outside: Vec<&Stmt> = f
        .body
        .iter()
        .filter(|s| !matches!(s.kind, StmtKind::Section { .. } | StmtKind::Alloc(_) | StmtKind::Free(_)))
        .collect();
    let n = fwd.len();
    let all: Vec<&Stmt> = fwd.iter().chain(rev.iter()).collect();
    // before[p] / after[p]: allocations before and frees after point p.
    let mut before: Vec<Vec<VarId>> = vec![Vec::new(); all.len()];
    let mut after: Vec<Vec<VarId>> = vec![Vec::new(); all.len()];
    let (mut in_fwd, mut in_rev) = (BTreeSet::new(), BTreeSet::new());
    let allocated: Vec<VarId> = f
        .body
        .iter()
        .filter_map(|s| match s.kind {
            StmtKind::Alloc(v) => Some(v),
            _ => None,
        })
        .collect();
    for v in allocated {
        if !placeable(f, v) || outside.iter().any(|s| stmt_mentions(s, v)) {
            continue;
        }
        let at: Vec<usize> = (0..all.len()).filter(|&p| stmt_mentions(all[p], v)).collect();
        let (Some(&first), Some(&last)) = (at.first(), at.last()) else { continue };
        let mut spans = vec![(first, last)];
        if recomputed.contains(&v) {
            let last_fwd = at.iter().copied().filter(|&p| p < n).max().unwrap_or(first);
            let first_rev = at.iter().copied().find(|&p| p >= n).unwrap_or(last);
            spans = vec![(first, last_fwd), (first_rev, last)];
        }
        for (a, b) in spans {
            before[a].push(v);
            after[b].push(v);
            if a < n {
                in_fwd.insert(v);
            } else {
                in_rev.insert(v);
            }
        }
    }
    let mut out = (Vec::new(), Vec::new());
    for (p, s) in all.into_iter().enumerate() {
        let side = if p < n { &mut out.0 } else { &mut out.1 };
        // The statement's span puts an allocation under the source line it is for.
        side.extend(before[p].iter().map(|v| Stmt::new(StmtKind::Alloc(*v), s.span)));
        side.push(s.clone());
        side.extend(after[p].iter().rev().map(|v| Stmt::new(StmtKind::Free(*v), s.span)));
    }
    ((out.0, in_fwd), (out.1, in_rev))
}
