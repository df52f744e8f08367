//! A small normaliser for integer index and extent expressions: a linear combination of
//! atoms (variables, or opaque non-linear sub-expressions) plus a constant. Frontends use
//! it to compare extents (`N - 1 - 1` equals `N - 2`), to solve `A_n0 - 2 = N - 2` for an
//! inferred extent, and to print indices in one canonical form.

use adjc_ir::{BinOp, Expr, ExprKind, Literal, Scalar, UnOp, VarId};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Atom {
    Var(VarId),
    /// A non-linear sub-expression, keyed by its structure (spans ignored).
    Opaque(String),
}

#[derive(Clone, Debug, Default)]
pub struct Lin {
    pub terms: BTreeMap<Atom, i64>,
    pub c: i64,
    opaque: BTreeMap<String, Expr>,
}

impl PartialEq for Lin {
    fn eq(&self, other: &Lin) -> bool {
        self.terms == other.terms && self.c == other.c
    }
}

/// A structural key of an expression that ignores spans (one definition for every stage).
pub use adjc_ir::proc::eq::key;

impl Lin {
    pub fn constant(c: i64) -> Lin {
        Lin { c, ..Lin::default() }
    }
    pub fn var(v: VarId) -> Lin {
        let mut l = Lin::default();
        l.terms.insert(Atom::Var(v), 1);
        l
    }
    fn opaque_atom(e: &Expr) -> Lin {
        let k = key(e);
        let mut l = Lin::default();
        l.terms.insert(Atom::Opaque(k.clone()), 1);
        l.opaque.insert(k, e.clone());
        l
    }

    /// Reads an `i64` expression. Never fails: what is not linear becomes an opaque atom.
    pub fn from_expr(e: &Expr) -> Lin {
        match &e.kind {
            ExprKind::Const(Literal::Int(v)) => Lin::constant(*v),
            ExprKind::Var(v) if e.ty == Scalar::I64 => Lin::var(*v),
            ExprKind::Unary(UnOp::Neg, a) => Lin::from_expr(a).scale(-1).unwrap_or_else(|| Lin::opaque_atom(e)),
            ExprKind::Binary(BinOp::Add, a, b) => {
                Lin::from_expr(a).add(&Lin::from_expr(b)).unwrap_or_else(|| Lin::opaque_atom(e))
            }
            ExprKind::Binary(BinOp::Sub, a, b) => {
                Lin::from_expr(a).sub(&Lin::from_expr(b)).unwrap_or_else(|| Lin::opaque_atom(e))
            }
            ExprKind::Binary(BinOp::Mul, a, b) => {
                let (la, lb) = (Lin::from_expr(a), Lin::from_expr(b));
                let r = match (la.as_const(), lb.as_const()) {
                    (Some(k), _) => lb.scale(k),
                    (_, Some(k)) => la.scale(k),
                    _ => None,
                };
                r.unwrap_or_else(|| Lin::opaque_atom(e))
            }
            _ => Lin::opaque_atom(e),
        }
    }

    pub fn as_const(&self) -> Option<i64> {
        if self.terms.is_empty() {
            Some(self.c)
        } else {
            None
        }
    }

    pub fn has_opaque(&self) -> bool {
        self.terms.keys().any(|a| matches!(a, Atom::Opaque(_)))
    }

    pub fn coeff(&self, v: VarId) -> i64 {
        self.terms.get(&Atom::Var(v)).copied().unwrap_or(0)
    }

    /// Variables with non-zero coefficients (not those inside opaque atoms).
    pub fn vars(&self) -> Vec<VarId> {
        self.terms
            .keys()
            .filter_map(|a| match a {
                Atom::Var(v) => Some(*v),
                Atom::Opaque(_) => None,
            })
            .collect()
    }

    pub fn add(&self, o: &Lin) -> Option<Lin> {
        let mut r = self.clone();
        r.c = r.c.checked_add(o.c)?;
        for (a, k) in &o.terms {
            let e = r.terms.entry(a.clone()).or_insert(0);
            *e = e.checked_add(*k)?;
        }
        for (k, e) in &o.opaque {
            r.opaque.entry(k.clone()).or_insert_with(|| e.clone());
        }
        r.terms.retain(|_, k| *k != 0);
        Some(r)
    }

    pub fn sub(&self, o: &Lin) -> Option<Lin> {
        self.add(&o.scale(-1)?)
    }

    pub fn scale(&self, k: i64) -> Option<Lin> {
        let mut r = self.clone();
        r.c = r.c.checked_mul(k)?;
        for v in r.terms.values_mut() {
            *v = v.checked_mul(k)?;
        }
        r.terms.retain(|_, k| *k != 0);
        Some(r)
    }

    /// The non-linear atoms with their coefficients.
    pub fn opaque_terms(&self) -> Vec<(Expr, i64)> {
        self.terms
            .iter()
            .filter_map(|(a, k)| match a {
                Atom::Opaque(key) => self.opaque.get(key).map(|e| (e.clone(), *k)),
                Atom::Var(_) => None,
            })
            .collect()
    }

    /// Removes the non-linear atoms (see [`Lin::opaque_terms`]).
    pub fn drop_opaque(&mut self) {
        self.terms.retain(|a, _| matches!(a, Atom::Var(_)));
        self.opaque.clear();
    }

    /// Removes variable `v` and returns its coefficient.
    pub fn take(&mut self, v: VarId) -> i64 {
        self.terms.remove(&Atom::Var(v)).unwrap_or(0)
    }

    /// The canonical expression: positive terms first (in atom order), then negative
    /// terms, then the constant: `N - M - 2`, `5 - N`, `2 * i + 1`.
    pub fn to_expr(&self) -> Expr {
        let atom_expr = |a: &Atom| match a {
            Atom::Var(v) => Expr::var(*v, Scalar::I64),
            Atom::Opaque(k) => self.opaque.get(k).cloned().unwrap_or_else(|| Expr::int(0)),
        };
        let term = |a: &Atom, k: i64| {
            let x = atom_expr(a);
            if k == 1 {
                x
            } else {
                Expr::int(k).mul(x)
            }
        };
        let mut acc: Option<Expr> = None;
        for (a, k) in self.terms.iter().filter(|(_, k)| **k > 0) {
            let t = term(a, *k);
            acc = Some(match acc {
                None => t,
                Some(e) => raw(BinOp::Add, e, t),
            });
        }
        for (a, k) in self.terms.iter().filter(|(_, k)| **k < 0) {
            let t = term(a, k.saturating_neg());
            acc = Some(match acc {
                None if self.c != 0 && self.c > 0 => raw(BinOp::Sub, Expr::int(self.c), t),
                None => t.neg(),
                Some(e) => raw(BinOp::Sub, e, t),
            });
        }
        let only_negative_with_pos_const = self.terms.values().all(|k| *k < 0) && self.c > 0 && !self.terms.is_empty();
        match acc {
            None => Expr::int(self.c),
            Some(e) if self.c == 0 || only_negative_with_pos_const => e,
            Some(e) if self.c > 0 => raw(BinOp::Add, e, Expr::int(self.c)),
            Some(e) => raw(BinOp::Sub, e, Expr::int(self.c.saturating_neg())),
        }
    }
}

fn raw(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::new(ExprKind::Binary(op, Box::new(a), Box::new(b)), Scalar::I64, adjc_ir::Span::NONE)
}

/// Rebuilds `e` bottom-up through the simplifying constructors, replacing variables with
/// `f(var)` where it returns `Some`.
pub fn substitute(e: &Expr, f: &dyn Fn(VarId) -> Option<Expr>) -> Expr {
    e.rewrite(&mut |x| match x.kind {
        ExprKind::Var(v) => match f(v) {
            Some(r) => r,
            None => x,
        },
        ExprKind::Binary(op, a, b) => {
            let span = x.span;
            let r = Expr::binary(op, *a, *b);
            if r.span.is_none() {
                r.with_span(span)
            } else {
                r
            }
        }
        ExprKind::Unary(UnOp::Neg, a) => a.neg(),
        _ => x,
    })
}

/// Rewrites every product of non-constant `i64` factors with its factors in one order, so
/// that extents written in different orders (`C * H * W` from `--arg`, `H * W * C` from a
/// reshape) read as the same opaque atom when compared.
pub fn sort_products(e: &Expr) -> Expr {
    e.rewrite(&mut |x| {
        if x.ty != Scalar::I64 || !matches!(x.kind, ExprKind::Binary(BinOp::Mul, _, _)) {
            return x;
        }
        let mut factors = Vec::new();
        flatten_mul(&x, &mut factors);
        factors.sort_by_cached_key(key);
        let span = x.span;
        let mut it = factors.into_iter();
        match it.next() {
            Some(first) => it.fold(first, |acc, f| raw(BinOp::Mul, acc, f)).with_span(span),
            None => x,
        }
    })
}

fn flatten_mul(e: &Expr, out: &mut Vec<Expr>) {
    match &e.kind {
        ExprKind::Binary(BinOp::Mul, a, b) if e.ty == Scalar::I64 => {
            flatten_mul(a, out);
            flatten_mul(b, out);
        }
        _ => out.push(e.clone()),
    }
}

/// `max(0, e)`: an extent taken as a number of elements. Slices can have negative extents
/// (`x[1:-1]` of one element: `N - 2`), which mean empty; array shapes, `len` and `np.mean`
/// take them through this clamp.
pub fn clamp0(e: Expr) -> Expr {
    Expr::call(adjc_ir::Intrinsic::Max, vec![Expr::int(0), e], Scalar::I64)
}

/// The extent inside [`clamp0`]: the same length (loops over either run the same).
pub fn unclamp(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Call(adjc_ir::Intrinsic::Max, args) if args.len() == 2 && args[0].as_int() == Some(0) => &args[1],
        _ => e,
    }
}

/// Puts a linear `i64` expression into canonical form; leaves anything with opaque parts
/// as it is.
pub fn canon(e: &Expr) -> Expr {
    if e.ty != Scalar::I64 {
        return e.clone();
    }
    let l = Lin::from_expr(e);
    if l.has_opaque() {
        e.clone()
    } else {
        l.to_expr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjc_ir::{Function, Span, Type, VarRole};

    fn f() -> (Function, Expr, Expr) {
        let mut f = Function::empty("f", Span::NONE);
        let n = f.add_var("N", Type::Scalar(Scalar::I64), VarRole::Size, Span::NONE);
        let i = f.add_var("i", Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
        (f, Expr::var(n, Scalar::I64), Expr::var(i, Scalar::I64))
    }

    #[test]
    fn products_compare_equal_in_any_factor_order() {
        let mut f = Function::empty("f", Span::NONE);
        let [c, h, w] = ["C", "H", "W"]
            .map(|n| Expr::var(f.add_var(n, Type::Scalar(Scalar::I64), VarRole::Size, Span::NONE), Scalar::I64));
        let hh = Expr::binary(BinOp::FloorDiv, h.clone().sub(Expr::int(2)), Expr::int(2));
        let a = c.clone().mul(hh.clone()).mul(w.clone());
        let b = hh.clone().mul(w.clone().mul(c.clone()));
        assert_ne!(Lin::from_expr(&a), Lin::from_expr(&b));
        assert_eq!(Lin::from_expr(&sort_products(&a)), Lin::from_expr(&sort_products(&b)));
        // Sorting keeps the value: a different product stays different.
        let d = hh.mul(w).mul(h);
        assert_ne!(Lin::from_expr(&sort_products(&a)), Lin::from_expr(&sort_products(&d)));
        // Constant factors still scale the linear form.
        assert_eq!(
            Lin::from_expr(&sort_products(&raw(BinOp::Mul, c.clone(), Expr::int(3)))),
            Lin::from_expr(&c).scale(3).unwrap()
        );
    }

    #[test]
    fn folds_and_prints_canonically() {
        let (f, n, i) = f();
        let e = n.clone().sub(Expr::int(1)).sub(Expr::int(1));
        assert_eq!(adjc_ir::print::expr_str(&f, &Lin::from_expr(&e).to_expr()), "N - 2");
        let e = Expr::int(5).sub(n.clone());
        assert_eq!(adjc_ir::print::expr_str(&f, &canon(&e)), "5 - N");
        let e = n.clone().sub(Expr::int(1)).sub(i.clone());
        assert_eq!(adjc_ir::print::expr_str(&f, &canon(&e)), "N - i - 1");
        let e = i.clone().sub(Expr::int(1)).add(Expr::int(1));
        assert_eq!(canon(&e), i);
        let e = i.clone().mul(Expr::int(2)).add(Expr::int(1));
        assert_eq!(adjc_ir::print::expr_str(&f, &canon(&e)), "2 * i + 1");
        let e = Expr::int(0).sub(i.clone());
        assert_eq!(adjc_ir::print::expr_str(&f, &canon(&e)), "-i");
    }

    #[test]
    fn compares_ignoring_spans() {
        let (_, n, _) = f();
        let a = n.clone().with_span(Span { line: 3, col: 1, start: 0, end: 1 }).sub(Expr::int(2));
        let b = n.sub(Expr::int(1)).sub(Expr::int(1));
        assert_eq!(Lin::from_expr(&a), Lin::from_expr(&b));
    }
}
