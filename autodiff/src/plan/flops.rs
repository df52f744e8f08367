//! Static cost of recomputation: floating-point operations of a statement for concrete
//! sizes. Arithmetic counts one; an elementary function (`exp`, `sin`, `pow`, ...) counts
//! [`CALL_FLOPS`], roughly its cost relative to a multiply. Trip counts come from the
//! bounds evaluated at the sizes (a bound that cannot be evaluated counts one iteration).

use adjc_ir::{eval::eval_int, Expr, ExprKind, Intrinsic, Stmt, StmtKind, VarId};

pub const CALL_FLOPS: f64 = 10.0;

pub(crate) fn stmt(s: &Stmt, env: &dyn Fn(VarId) -> Option<i64>) -> f64 {
    let trips = |a: &Expr, b: &Expr| match (eval_int(a, env), eval_int(b, env)) {
        (Some(a), Some(b)) => (b - a).max(0) as f64,
        _ => 1.0,
    };
    let block = |b: &[Stmt]| b.iter().map(|t| stmt(t, env)).sum::<f64>();
    match &s.kind {
        StmtKind::Assign { value, .. } => expr(value),
        StmtKind::Accumulate { value, .. } => 1.0 + expr(value),
        StmtKind::Map(m) => m.dims.iter().map(|d| trips(&d.start, &d.stop)).product::<f64>() * block(&m.body),
        StmtKind::Loop(l) => {
            let step = eval_int(&l.step, env).filter(|s| *s != 0).unwrap_or(1).unsigned_abs() as f64;
            (trips(&l.start, &l.stop).abs() / step).ceil() * block(&l.body)
        }
        StmtKind::If { cond, then_body, else_body } => expr(cond) + block(then_body).max(block(else_body)),
        _ => s.blocks().iter().map(|b| block(b)).sum(),
    }
}

pub(crate) fn expr(e: &Expr) -> f64 {
    let float = e.ty.is_float();
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Var(_) | ExprKind::Load(..) => 0.0,
        ExprKind::Unary(_, a) | ExprKind::Cast(a) => expr(a) + if float { 1.0 } else { 0.0 },
        ExprKind::Binary(_, a, b) => expr(a) + expr(b) + if float { 1.0 } else { 0.0 },
        ExprKind::Call(f, args) => {
            let own = match f {
                Intrinsic::Abs
                | Intrinsic::Max
                | Intrinsic::Min
                | Intrinsic::Sign
                | Intrinsic::Floor
                | Intrinsic::Ceil => 1.0,
                _ => CALL_FLOPS,
            };
            own + args.iter().map(expr).sum::<f64>()
        }
        ExprKind::Select(c, a, b) => expr(c) + expr(a).max(expr(b)) + 1.0,
    }
}
