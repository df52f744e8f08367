//! Common subexpressions of the derivative rules, computed once into named locals.
//!
//! The rules compose: the adjoint of `ret = np.tanh(s * g)` reads `tanh(s[i] * g[i])` twice
//! in each of two updates, and the logistic's `exp(-x[i])` appears three times in one. A
//! reader wants (and a compiler without `-ffast-math` needs) each evaluated once:
//!
//! ```text
//! tanh_s = tanh(s[i] * g[i]);
//! s_b[i] += (1.0 - tanh_s * tanh_s) * g[i] * ret_b[i];
//! ```
//!
//! For every assignment or accumulation, a call of a transcendental function (`exp`, `log`,
//! `tanh`, `sin`, `cos`, `sqrt`, `pow`, ...) that occurs at least twice in its value becomes
//! a scalar temporary assigned just before it; the largest such call first, then again on
//! the rewritten value. Within one block, a later statement reuses what an earlier one holds:
//! the temporary, or the variable or element a statement assigned the call to (a fused
//! forward `ret[i] = tanh(u)` gives its adjoint `1.0 - ret[i] * ret[i]`), until something
//! writes a variable the call reads or the holder. Occurrences inside the branches of a conditional expression are not
//! counted or replaced (hoisting them would evaluate what the branch may skip). The
//! statement reads the same values as before, so this is exact: the functions are pure and
//! the temporary holds the same double. Names come from the source: the function, then the
//! first variable of its argument (`exp_x`, `tanh_softplus`), made unique in the function's
//! order of variables (never hash order).

use adjc_ir::proc::eq::strip;
use adjc_ir::*;

/// `f` with repeated calls of every statement named once (module docs).
pub fn name_common_subexpressions(f: &Function) -> Function {
    let mut out = f.clone();
    let mut body = std::mem::take(&mut out.body);
    block(&mut out, &mut body);
    out.body = body;
    out
}

fn block(f: &mut Function, b: &mut Block) {
    // Calls whose value a variable or element already holds here: (call, holder).
    let mut held: Vec<(Expr, Expr)> = Vec::new();
    let mut k = 0;
    while k < b.len() {
        for c in b[k].blocks_mut() {
            block(f, c);
        }
        let mut before = Vec::new();
        let span = b[k].span;
        if let StmtKind::Assign { value, .. } | StmtKind::Accumulate { value, .. } = &mut b[k].kind {
            for (call, holder) in &held {
                *value = replace(value, call, holder);
            }
            while let Some(common) = largest_repeated(value) {
                let name = f.fresh_name(&base_name(f, &common));
                let t = f.add_var(name, Type::Scalar(common.ty), VarRole::Temp, span);
                *value = replace(value, &common, &Expr::var(t, common.ty));
                held.push((common.clone(), Expr::var(t, common.ty)));
                before.push(Stmt::assign(Place::scalar(t), common, span));
            }
        }
        // What the statement writes ends every holding that reads it or is held by it.
        let written = crate::util::writes(&b[k]);
        held.retain(|(call, holder)| written.iter().all(|v| !call.mentions(*v) && !holder.mentions(*v)));
        // An assignment of a call holds it (`ret[i] = tanh(u)`: later `tanh(u)` reads `ret[i]`).
        if let StmtKind::Assign { target, value } = &b[k].kind {
            let ty = f.var(target.var).ty.elem();
            let call = matches!(&value.kind, ExprKind::Call(i, _) if costly(*i));
            if call && ty == value.ty && !value.mentions(target.var) {
                held.push((strip(value), target.to_expr(ty)));
            }
        }
        let n = before.len();
        b.splice(k..k, before);
        k += n + 1;
    }
}

fn costly(i: Intrinsic) -> bool {
    !matches!(
        i,
        Intrinsic::Abs | Intrinsic::Max | Intrinsic::Min | Intrinsic::Sign | Intrinsic::Floor | Intrinsic::Ceil
    )
}

/// Visits `e` and its subexpressions outside the branches of conditional expressions.
fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Select(c, _, _) => visit(c, f),
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => visit(a, f),
        ExprKind::Binary(_, a, b) => {
            visit(a, f);
            visit(b, f);
        }
        ExprKind::Call(_, args) => args.iter().for_each(|a| visit(a, f)),
        ExprKind::Load(_, idx) => idx.iter().for_each(|a| visit(a, f)),
        ExprKind::Const(_) | ExprKind::Var(_) => {}
    }
}

fn size(e: &Expr) -> usize {
    let mut n = 0;
    e.walk(&mut |_| n += 1);
    n
}

/// The largest costly call that occurs at least twice in `e` (first in visiting order
/// among equals).
fn largest_repeated(e: &Expr) -> Option<Expr> {
    let mut calls: Vec<(Expr, usize)> = Vec::new();
    visit(e, &mut |x| {
        if let ExprKind::Call(i, _) = &x.kind {
            if costly(*i) && x.ty.is_float() {
                let s = strip(x);
                match calls.iter_mut().find(|(c, _)| *c == s) {
                    Some((_, n)) => *n += 1,
                    None => calls.push((s, 1)),
                }
            }
        }
    });
    let mut best: Option<Expr> = None;
    for (c, n) in calls {
        if n >= 2 && best.as_ref().is_none_or(|b| size(&c) > size(b)) {
            best = Some(c);
        }
    }
    best
}

/// `e` with every occurrence of `what` outside conditional branches replaced by `with`.
fn replace(e: &Expr, what: &Expr, with: &Expr) -> Expr {
    if strip(e) == *what {
        return with.clone();
    }
    let r = |x: &Expr| Box::new(replace(x, what, with));
    let kind = match &e.kind {
        ExprKind::Select(c, a, b) => ExprKind::Select(r(c), a.clone(), b.clone()),
        ExprKind::Unary(op, a) => ExprKind::Unary(*op, r(a)),
        ExprKind::Cast(a) => ExprKind::Cast(r(a)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, r(a), r(b)),
        ExprKind::Call(i, args) => ExprKind::Call(*i, args.iter().map(|a| replace(a, what, with)).collect()),
        ExprKind::Load(v, idx) => ExprKind::Load(*v, idx.iter().map(|a| replace(a, what, with)).collect()),
        k => k.clone(),
    };
    Expr { kind, ..e.clone() }
}

/// `exp_x` for `exp(-x[i])`: the function, then the first float variable of the argument.
fn base_name(f: &Function, call: &Expr) -> String {
    let ExprKind::Call(i, args) = &call.kind else { return "t".into() };
    let mut var = None;
    for a in args {
        a.walk(&mut |x| {
            if var.is_none() {
                if let ExprKind::Var(v) | ExprKind::Load(v, _) = &x.kind {
                    if f.var(*v).ty.elem().is_float() {
                        var = Some(f.var(*v).name.clone());
                    }
                }
            }
        });
    }
    match var {
        Some(v) => format!("{}_{}", i.name(), v.trim_end_matches('_')),
        None => i.name().to_string(),
    }
}
