//! Structural equality of expressions that ignores spans.
//!
//! Two expressions are *the same* when they have the same shape, operators, constants,
//! variables and types, wherever in the source they were written: `N - 2` on line 3 is the
//! same as `N - 2` on line 9. Every stage that compares indices, bounds or extents asks this
//! module, so that "equal up to spans" means one thing. Equality up to algebra (`N - 1 - 1`
//! against `N - 2`) is [`super::affine`]'s business.

use crate::{Expr, ExprKind, Literal, Span};
use std::fmt::Write;

/// Whether `a` and `b` are equal up to spans: the same as `strip(a) == strip(b)`, without
/// building the copies.
pub fn same(a: &Expr, b: &Expr) -> bool {
    if a.ty != b.ty {
        return false;
    }
    match (&a.kind, &b.kind) {
        (ExprKind::Const(x), ExprKind::Const(y)) => x == y,
        (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
        (ExprKind::Load(v, i), ExprKind::Load(w, j)) => v == w && same_index(i, j),
        (ExprKind::Unary(o, x), ExprKind::Unary(p, y)) => o == p && same(x, y),
        (ExprKind::Binary(o, x1, x2), ExprKind::Binary(p, y1, y2)) => o == p && same(x1, y1) && same(x2, y2),
        (ExprKind::Call(f, xs), ExprKind::Call(g, ys)) => f == g && same_index(xs, ys),
        (ExprKind::Select(c, x1, x2), ExprKind::Select(d, y1, y2)) => same(c, d) && same(x1, y1) && same(x2, y2),
        (ExprKind::Cast(x), ExprKind::Cast(y)) => same(x, y),
        _ => false,
    }
}

/// Element-wise [`same`] of two index lists (or argument lists) of equal length.
pub fn same_index(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

/// The expression with every span cleared (for keys and comparisons that need a value).
pub fn strip(e: &Expr) -> Expr {
    e.rewrite(&mut |mut x| {
        x.span = Span::NONE;
        x
    })
}

/// A text key of the expression's structure that ignores spans: equal expressions (in the
/// sense of [`same`], for integer expressions) have equal keys, and sorting by key gives one
/// deterministic order of sub-expressions (the frontends' canonical forms use it).
pub fn key(e: &Expr) -> String {
    let mut s = String::new();
    write_key(e, &mut s);
    s
}

fn write_key(e: &Expr, s: &mut String) {
    match &e.kind {
        ExprKind::Const(Literal::Int(v)) => {
            let _ = write!(s, "{v}");
        }
        ExprKind::Const(Literal::Float(v)) => {
            let _ = write!(s, "{v:?}{}", e.ty);
        }
        ExprKind::Const(Literal::Bool(b)) => {
            let _ = write!(s, "{b}");
        }
        ExprKind::Var(v) => {
            let _ = write!(s, "v{}", v.0);
        }
        ExprKind::Load(v, idx) => {
            let _ = write!(s, "v{}[", v.0);
            for i in idx {
                write_key(i, s);
                s.push(',');
            }
            s.push(']');
        }
        ExprKind::Unary(op, a) => {
            let _ = write!(s, "({op:?} ");
            write_key(a, s);
            s.push(')');
        }
        ExprKind::Binary(op, a, b) => {
            let _ = write!(s, "({op:?} ");
            write_key(a, s);
            s.push(' ');
            write_key(b, s);
            s.push(')');
        }
        ExprKind::Call(f, args) => {
            let _ = write!(s, "({}", f.name());
            for a in args {
                s.push(' ');
                write_key(a, s);
            }
            s.push(')');
        }
        ExprKind::Select(c, a, b) => {
            s.push_str("(sel ");
            for x in [c, a, b] {
                write_key(x, s);
                s.push(' ');
            }
            s.push(')');
        }
        ExprKind::Cast(a) => {
            let _ = write!(s, "({} ", e.ty);
            write_key(a, s);
            s.push(')');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Scalar, VarId};

    #[test]
    fn spans_do_not_matter_types_do() {
        let n = Expr::var(VarId(0), Scalar::I64);
        let at = |line| Span { line, col: 1, start: 0, end: 1 };
        let a = n.clone().with_span(at(3)).sub(Expr::int(2)).with_span(at(3));
        let b = n.clone().sub(Expr::int(2));
        assert!(same(&a, &b) && strip(&a) == strip(&b) && key(&a) == key(&b));
        assert_ne!(a, b, "derived equality sees the spans");
        assert!(!same(&Expr::float(1.0, Scalar::F32), &Expr::float(1.0, Scalar::F64)));
        let raw = |op, x: Expr, y: Expr| {
            Expr::new(crate::ExprKind::Binary(op, Box::new(x), Box::new(y)), Scalar::I64, Span::NONE)
        };
        let twice = raw(crate::BinOp::Sub, raw(crate::BinOp::Sub, n, Expr::int(1)), Expr::int(1));
        assert!(!same(&b, &twice), "structure, not algebra");
    }
}
