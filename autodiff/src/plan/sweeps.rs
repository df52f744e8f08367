//! The adjoint as the planner sees it: the top-level statements of its forward and reverse
//! sweeps as one sequence of timeline points, which local arrays may be allocated over
//! their lifetime, and which temporaries the reverse sweep can recompute.

use crate::util::{reads, stmt_mentions, writes, VarSet};
use adjc_ir::{Function, Stmt, StmtKind, VarId, VarRole};

/// Where the two sweeps sit in the adjoint body.
pub(crate) struct Sweeps<'f> {
    pub fwd_at: usize,
    pub rev_at: usize,
    pub fwd: &'f [Stmt],
    pub rev: &'f [Stmt],
}

impl<'f> Sweeps<'f> {
    pub fn find(f: &'f Function) -> Option<Sweeps<'f>> {
        let section = |title: &str| {
            f.body.iter().position(|s| matches!(&s.kind, StmtKind::Section { title: t, .. } if t == title))
        };
        let (fwd_at, rev_at) = (section("forward sweep")?, section("reverse sweep")?);
        let body = |k: usize| match &f.body[k].kind {
            StmtKind::Section { body, .. } => Some(body.as_slice()),
            _ => None,
        };
        Some(Sweeps { fwd_at, rev_at, fwd: body(fwd_at)?, rev: body(rev_at)? })
    }

    /// Timeline points: forward statements, then reverse statements.
    pub fn points(&self) -> usize {
        self.fwd.len() + self.rev.len()
    }

    pub fn stmt(&self, p: usize) -> &'f Stmt {
        if p < self.fwd.len() {
            &self.fwd[p]
        } else {
            &self.rev[p - self.fwd.len()]
        }
    }

    /// Points whose statement mentions `v`.
    pub fn mentions(&self, v: VarId) -> Vec<usize> {
        (0..self.points()).filter(|&p| stmt_mentions(self.stmt(p), v)).collect()
    }
}

/// Local arrays that live only while the sweeps use them: the primal's local arrays and the
/// adjoints of arrays. Tapes and output snapshots stay allocated for the whole call.
pub(crate) fn placeable(f: &Function, v: VarId) -> bool {
    let var = f.var(v);
    var.ty.is_array() && !f.is_param(v) && matches!(var.role, VarRole::Local | VarRole::Temp | VarRole::Adjoint(_))
}

/// A temporary array of the primal that the reverse sweep reads and could recompute.
#[derive(Clone, Debug)]
pub(crate) struct Temp {
    pub var: VarId,
    /// Forward points of the statements that write it (its definition).
    pub defs: Vec<usize>,
    pub last_fwd: usize,
    pub first_rev: usize,
    /// Other temporaries its definition reads: they must be stored for it to be recomputed.
    pub deps: Vec<VarId>,
    /// Why it cannot be recomputed (it is then a store-only candidate).
    pub store_only: Option<String>,
}

/// Every placeable primal array the reverse sweep reads, in order of definition.
pub(crate) fn temps(f: &Function, sw: &Sweeps) -> Vec<Temp> {
    let n = sw.fwd.len();
    // Written sets of every forward statement, computed once: each candidate asks them again.
    let fwd_writes: Vec<VarSet> = sw.fwd.iter().map(writes).collect();
    let rev_writes: VarSet = sw.rev.iter().flat_map(writes).collect();
    let all_writes = |v: VarId| rev_writes.contains(&v) || fwd_writes.iter().any(|w| w.contains(&v));
    let mut out = Vec::new();
    for v in 0..f.vars.len() {
        let v = VarId(v as u32);
        if !placeable(f, v) || matches!(f.var(v).role, VarRole::Adjoint(_)) {
            continue;
        }
        let at = sw.mentions(v);
        let (fwd_at, rev_at): (Vec<usize>, Vec<usize>) = at.iter().partition(|&&p| p < n);
        let (Some(&last_fwd), Some(&first_rev)) = (fwd_at.last(), rev_at.first()) else {
            continue;
        };
        let defs: Vec<usize> = fwd_at.iter().copied().filter(|&p| fwd_writes[p].contains(&v)).collect();
        let mut store_only = None;
        let mut deps = Vec::new();
        if rev_writes.contains(&v) {
            store_only = Some("the reverse sweep restores it".to_string());
        } else if defs.is_empty() {
            store_only = Some("no forward statement defines it".to_string());
        } else if let Some(&p) = defs.iter().find(|&&p| fwd_writes[p].iter().any(|w| *w != v && !is_index(f, *w))) {
            store_only = Some(format!("line {} also writes other variables", sw.fwd[p].span.line));
        } else if defs.iter().any(|&p| has_call(&sw.fwd[p])) {
            store_only = Some("its definition is a library call".to_string());
        } else if defs.iter().any(|&d| fwd_at.iter().any(|&u| u < d && !defs.contains(&u))) {
            store_only = Some("it is read before its definition ends".to_string());
        } else {
            for &d in &defs {
                for r in reads(&sw.fwd[d]) {
                    if r == v || is_index(f, r) || !all_writes(r) {
                        continue;
                    }
                    let first_def = defs[0];
                    let settled = !rev_writes.contains(&r) && (first_def..n).all(|p| !fwd_writes[p].contains(&r));
                    if placeable(f, r) && settled {
                        if !deps.contains(&r) {
                            deps.push(r);
                        }
                    } else if !deps.contains(&r) {
                        store_only = Some(format!("`{}`, which defines it, changes later", f.var(r).name));
                    }
                }
            }
        }
        out.push(Temp { var: v, defs, last_fwd, first_rev, deps, store_only });
    }
    out.sort_by_key(|t| t.defs.first().copied().unwrap_or(usize::MAX));
    out
}

fn is_index(f: &Function, v: VarId) -> bool {
    f.var(v).role == VarRole::Index
}

fn has_call(s: &Stmt) -> bool {
    matches!(s.kind, StmtKind::Call(_)) || s.blocks().iter().any(|b| b.iter().any(has_call))
}
