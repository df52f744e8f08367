//! Activity analysis. A variable is *varied* when its value depends on a `wrt` input
//! through differentiable data flow (assignments and accumulations, including across loop
//! iterations; control dependence does not count), and *useful* when its value influences
//! an `of` output the same way. Active = varied ∧ useful ∧ float. Only active variables get
//! adjoints. The analysis is flow-insensitive (per variable, not per statement), which is
//! conservative: it can only make more variables active, never fewer.

use crate::util::VarSet;
use adjc_ir::{walk_stmts, Block, Expr, ExprKind, Function, Intrinsic, StmtKind, VarId};
use std::collections::BTreeMap;

/// Float variables whose value flows differentiably into `e` (indices, conditions,
/// comparisons, integer parts and zero-derivative functions excluded).
pub(crate) fn diff_reads(e: &Expr, out: &mut VarSet) {
    if !e.ty.is_float() {
        return;
    }
    match &e.kind {
        ExprKind::Const(_) => {}
        ExprKind::Var(v) | ExprKind::Load(v, _) => {
            out.insert(*v);
        }
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => diff_reads(a, out),
        ExprKind::Binary(_, a, b) => {
            diff_reads(a, out);
            diff_reads(b, out);
        }
        ExprKind::Call(f, args) => match f {
            Intrinsic::Floor | Intrinsic::Ceil => {}
            Intrinsic::Sign => args.iter().take(1).for_each(|a| diff_reads(a, out)),
            _ => args.iter().for_each(|a| diff_reads(a, out)),
        },
        ExprKind::Select(_, a, b) => {
            diff_reads(a, out);
            diff_reads(b, out);
        }
    }
}

pub(crate) fn analyse(f: &Function, body: &Block, wrt: &[VarId], of: &[VarId]) -> VarSet {
    // target <- sources
    let mut deps: BTreeMap<VarId, VarSet> = BTreeMap::new();
    walk_stmts(body, &mut |s| match &s.kind {
        StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
            let mut src = VarSet::new();
            diff_reads(value, &mut src);
            deps.entry(target.var).or_default().extend(src);
        }
        StmtKind::Call(c) => {
            let src = deps.entry(c.out).or_default();
            src.extend(c.args.iter().copied());
            // A scale factor that varies (`alpha` of `alpha * A @ x`) makes the output vary.
            diff_reads(&c.alpha, src);
            diff_reads(&c.beta, src);
        }
        _ => {}
    });
    let is_float = |v: VarId| f.var(v).ty.elem().is_float();
    // Forward closure from wrt.
    let mut varied: VarSet = wrt.iter().copied().filter(|v| is_float(*v)).collect();
    loop {
        let before = varied.len();
        for (t, src) in &deps {
            if is_float(*t) && src.iter().any(|s| varied.contains(s)) {
                varied.insert(*t);
            }
        }
        if varied.len() == before {
            break;
        }
    }
    // Backward closure from of.
    let mut useful: VarSet = of.iter().copied().filter(|v| is_float(*v)).collect();
    loop {
        let before = useful.len();
        for (t, src) in &deps {
            if useful.contains(t) {
                useful.extend(src.iter().copied().filter(|v| is_float(*v)));
            }
        }
        if useful.len() == before {
            break;
        }
    }
    varied.intersection(&useful).copied().collect()
}
