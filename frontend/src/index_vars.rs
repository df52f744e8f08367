//! Integer locals the routine assigns and then indexes with: upwind/donor cells
//! (CloverLeaf's `donor = j - 1` or `donor = j` chosen by the sign of a flux), a face
//! picked before a loop (NAS LU's `k = ki1`).
//!
//! Such an index is not a function of the loop variables, so the range rules of
//! [`crate::ranges`] cannot bound it directly. It is bounded by what may be stored in it:
//! when every write of the local is a plain assignment of a value that *can* be bounded
//! (over the loops around that assignment and the parameters, possibly through other such
//! locals), the local only ever holds a value between the smallest lower bound and the
//! largest upper bound of its assignments. [`index_local_ranges`] computes that range as a
//! pseudo loop range over parameters; the entry checks of `bounds` then treat the local as
//! a loop variable with that range.
//!
//! The range only covers values the routine stored, so it holds at a read only if some
//! assignment ran before it: `bounds` uses it where the local is *definitely assigned*
//! (assigned on every path from the start of the innermost loop body or block around the
//! read, see [`Assigned`]); before that (the C's zero-initialised local, or a value left
//! from an earlier iteration only) the index stays unprovable and is refused as before.
//! A local also written otherwise (an accumulation `k += 1`, a value that cannot be bounded,
//! a cycle `k = k + 1`) gets no range.

use crate::ranges::{bound, min_max, LoopRange};
use adjc_ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// The range of every integer local whose assignments can all be bounded.
pub fn index_local_ranges(f: &Function) -> BTreeMap<VarId, LoopRange> {
    let candidate = |v: VarId| {
        let var = f.var(v);
        var.ty == Type::Scalar(Scalar::I64) && !f.is_param(v) && var.role != VarRole::Index
    };
    let mut writes: BTreeMap<VarId, Vec<(Expr, Vec<LoopRange>)>> = BTreeMap::new();
    let mut bad: BTreeSet<VarId> = BTreeSet::new();
    collect(&f.body, &mut Vec::new(), &candidate, &mut writes, &mut bad);
    for b in &bad {
        writes.remove(b);
    }
    let fixed = |v: VarId| f.is_param(v);
    let mut ranges: BTreeMap<VarId, LoopRange> = BTreeMap::new();
    // Locals defined through other locals (`dif = donor`) are resolved after them.
    for _ in 0..=writes.len() {
        let mut progress = false;
        for (v, ws) in &writes {
            if ranges.contains_key(v) || bad.contains(v) {
                continue;
            }
            let mut lo: Option<Expr> = None;
            let mut hi: Option<Expr> = None;
            let mut waiting = false;
            let mut failed = false;
            for (value, loops) in ws {
                let mut ctx = loops.clone();
                for u in value.vars() {
                    if let Some(r) = ranges.get(&u) {
                        ctx.push(r.clone());
                    } else if writes.contains_key(&u) && !bad.contains(&u) {
                        waiting = true;
                    }
                }
                if waiting {
                    break;
                }
                match (bound(value, &ctx, false, &fixed), bound(value, &ctx, true, &fixed)) {
                    (Some(l), Some(h)) => {
                        lo = Some(match lo {
                            Some(x) => min_max(Intrinsic::Min, x, l),
                            None => l,
                        });
                        hi = Some(match hi {
                            Some(x) => min_max(Intrinsic::Max, x, h),
                            None => h,
                        });
                    }
                    _ => {
                        failed = true;
                        break;
                    }
                }
            }
            if waiting && !failed {
                continue;
            }
            progress = true;
            match (failed, lo, hi) {
                (false, Some(lo), Some(hi)) => {
                    ranges.insert(*v, LoopRange { var: *v, lo, hi });
                }
                _ => {
                    bad.insert(*v);
                }
            }
        }
        if !progress {
            break;
        }
    }
    ranges
}

fn collect(
    b: &Block,
    loops: &mut Vec<LoopRange>,
    candidate: &dyn Fn(VarId) -> bool,
    writes: &mut BTreeMap<VarId, Vec<(Expr, Vec<LoopRange>)>>,
    bad: &mut BTreeSet<VarId>,
) {
    for s in b {
        match &s.kind {
            StmtKind::Assign { target, value } if target.index.is_empty() && candidate(target.var) => {
                writes.entry(target.var).or_default().push((value.clone(), loops.clone()));
            }
            StmtKind::Loop(l) => {
                let r = LoopRange::of_loop(l);
                let pushed = r.is_some();
                loops.extend(r);
                collect(&l.body, loops, candidate, writes, bad);
                if pushed {
                    loops.pop();
                }
                continue;
            }
            StmtKind::Map(m) => {
                loops.extend(m.dims.iter().map(LoopRange::of_map_dim));
                collect(&m.body, loops, candidate, writes, bad);
                for _ in &m.dims {
                    loops.pop();
                }
                continue;
            }
            _ => {
                if let Some(v) = s.written_var().filter(|v| candidate(*v)) {
                    bad.insert(v);
                }
            }
        }
        for inner in s.blocks() {
            collect(inner, loops, candidate, writes, bad);
        }
    }
}

/// The index locals definitely assigned at the current point of a walk in program order:
/// an assignment adds its local; both branches of an `if` must assign it; what a loop body
/// assigns does not count after the loop (it may run no iteration).
#[derive(Clone, Debug, Default)]
pub struct Assigned(pub BTreeSet<VarId>);

impl Assigned {
    /// After both branches of an `if`, starting from `self`, gave `a` and `b`.
    pub fn join(a: Assigned, b: Assigned) -> Assigned {
        Assigned(a.0.intersection(&b.0).copied().collect())
    }
}
