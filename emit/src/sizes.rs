//! Array sizes in the generated C, checked so that none can wrap around: every allocation
//! passes its extents to the runtime (`adjc_alloc(sizeof(double), ADJC_DIMS(T, n - 2))`),
//! which multiplies them with overflow checks, and every product *inside* an extent
//! (`n * (n + 1) / 2`) is checked on entry with `adjc_mul_fits`. Arrays a memory plan
//! allocates inside the sweeps share one block reserved on entry (the arena), so that no
//! allocation can fail once the caller's arrays are being written.

use crate::cexpr::{self, c_type};
use crate::ctx::FnCtx;
use adjc_ir::{walk_stmts, BinOp, Expr, ExprKind, Function, Scalar, Stmt, StmtKind, VarId, VarRole};
use std::collections::BTreeSet;

/// `sizeof(double), ADJC_DIMS(T, n - 2)`: the size arguments of `adjc_alloc` and `adjc_size`.
pub(crate) fn size_args(cx: &FnCtx, v: VarId) -> String {
    let var = cx.f.var(v);
    let ty = c_type(var.ty.elem());
    let dims: Vec<String> = var.ty.dims().iter().map(|d| cexpr::expr(cx, &d.extent)).collect();
    format!("sizeof({ty}), ADJC_DIMS({})", dims.join(", "))
}

/// `adjc_alloc` or, for a tape array, `adjc_alloc_tape` (counted apart with `ADJC_STATS`).
pub(crate) fn allocator(f: &Function, v: VarId) -> &'static str {
    if f.var(v).role == VarRole::Tape {
        "adjc_alloc_tape"
    } else {
        "adjc_alloc"
    }
}

/// `adjc_mul_fits(a, b)` for every product inside an extent of `arrays`, innermost first
/// (so that each operand is itself checked before it is computed), each once.
pub(crate) fn product_checks(cx: &FnCtx, arrays: &[VarId]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in arrays {
        for d in cx.f.var(*v).ty.dims() {
            products(cx, &d.extent, &mut out);
        }
    }
    out
}

fn products(cx: &FnCtx, e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Binary(op, a, b) => {
            products(cx, a, out);
            products(cx, b, out);
            if *op == BinOp::Mul && e.ty == Scalar::I64 {
                let text = format!("adjc_mul_fits({}, {})", cexpr::expr(cx, a), cexpr::expr(cx, b));
                if !out.contains(&text) {
                    out.push(text);
                }
            }
        }
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => products(cx, a, out),
        ExprKind::Call(_, args) => args.iter().for_each(|a| products(cx, a, out)),
        ExprKind::Select(c, a, b) => {
            products(cx, c, out);
            products(cx, a, out);
            products(cx, b, out);
        }
        ExprKind::Load(_, index) => index.iter().for_each(|a| products(cx, a, out)),
        ExprKind::Const(_) | ExprKind::Var(_) => {}
    }
}

/// The arrays a memory plan allocates inside the sweeps, in the order the code allocates
/// them, each with its life: the numbers of its allocation and of its free among all the
/// plan's allocations and frees in code order (`i32::MAX`: never freed before returning).
pub(crate) struct Arena {
    pub blocks: Vec<(VarId, [i32; 2])>,
}

impl Arena {
    pub fn new(f: &Function, placed: &BTreeSet<VarId>) -> Arena {
        let mut blocks: Vec<(VarId, [i32; 2])> = Vec::new();
        let mut event = 0i32;
        walk_stmts(&f.body, &mut |s: &Stmt| match s.kind {
            StmtKind::Alloc(v) if placed.contains(&v) => {
                blocks.push((v, [event, i32::MAX]));
                event += 1;
            }
            StmtKind::Free(v) if placed.contains(&v) => {
                if let Some(b) = blocks.iter_mut().rev().find(|b| b.0 == v && b.1[1] == i32::MAX) {
                    b.1[1] = event;
                }
                event += 1;
            }
            _ => {}
        });
        Arena { blocks }
    }

    /// The declarations reserving the block, after which `adjc_arena` is NULL on failure.
    pub fn reserve(&self, cx: &FnCtx) -> Vec<String> {
        let n = self.blocks.len();
        let mut out = vec![
            "    /* memory plan: the arrays it allocates inside the sweeps share one block (the arena), */".into(),
            "    /* reserved here before anything is written so that no allocation fails afterwards: */".into(),
            "    /* array k needs adjc_plan_bytes[k], lives from the plan's allocation or free number */".into(),
            "    /* adjc_plan_life[k][0] to adjc_plan_life[k][1] (in code order) and is aligned to */".into(),
            "    /* adjc_plan_life[k][2]; arrays alive at different times share bytes. Its place in */".into(),
            "    /* the arena: adjc_plan_at[k]. */".into(),
            format!("    static const int32_t adjc_plan_life[{n}][3] = {{"),
        ];
        for (v, [a, b]) in &self.blocks {
            let end = if *b == i32::MAX { "INT32_MAX".to_string() } else { b.to_string() };
            let ty = c_type(cx.f.var(*v).ty.elem());
            out.push(format!("        {{{a}, {end}, _Alignof({ty})}}, /* {} */", cx.name(*v)));
        }
        out.push("    };".into());
        out.push(format!("    size_t adjc_plan_bytes[{n}] = {{"));
        for (v, _) in &self.blocks {
            out.push(format!("        adjc_size({}), /* {} */", size_args(cx, *v), cx.name(*v)));
        }
        out.push("    };".into());
        out.push(format!("    size_t adjc_plan_at[{n}];"));
        out.push(format!(
            "    unsigned char *adjc_arena = adjc_arena_reserve({n}, adjc_plan_bytes, adjc_plan_life, adjc_plan_at);"
        ));
        out
    }

    /// The block number of the `nth` placed allocation in code order (it must be `v`).
    pub fn take(&self, cx: &FnCtx, nth: usize, v: VarId) -> Option<String> {
        let (w, _) = self.blocks.get(nth)?;
        if *w != v {
            return None;
        }
        let ty = c_type(cx.f.var(v).ty.elem());
        let tape = cx.f.var(v).role == VarRole::Tape;
        Some(format!(
            "{} = ({ty} *)adjc_arena_take(adjc_arena, adjc_plan_at[{nth}], adjc_plan_bytes[{nth}], {tape});",
            cx.name(v)
        ))
    }
}
