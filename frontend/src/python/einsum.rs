//! `np.einsum` for the contractions of two operands that are matrix products, lowered to
//! the same products as `@` and `np.outer` (so to the same library calls):
//!
//! | subscripts | as |
//! |---|---|
//! | `i,i->` | `x @ y` (dot) |
//! | `i,j->ij` | `np.outer(x, y)` |
//! | `ij,j->i`, `ji,j->i`, `j,ji->i`, `j,ij->i` | `A @ x`, `A.T @ x`, `x @ A`, `A @ x` |
//! | `ik,kj->ij` with either operand transposed (`ki`, `jk`) and either output order | `A @ B` on transposed views; `->ji` is `B.T @ A.T` |
//! | `bik,kj->bij` (any leading batch letters on the first operand and the output; `jk` for `B.T`) | a stack of matrices times a matrix |
//!
//! Anything else (traces, more operands, implicit output, broadcasting `...`) is reported.

use super::ast::Ex;
use super::lower::{Lowerer, R};
use super::value::*;

/// `"ij,jk->ik"` as `(["ij", "jk"], "ik")`; `None` when not of that form.
fn parse(spec: &str) -> Option<(Vec<Vec<char>>, Vec<char>)> {
    let spec: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
    let (ins, out) = spec.split_once("->")?;
    let ins: Vec<Vec<char>> = ins.split(',').map(|s| s.chars().collect()).collect();
    let out: Vec<char> = out.chars().collect();
    let letters = |s: &[char]| s.iter().all(|c| c.is_ascii_alphabetic());
    let distinct = |s: &[char]| s.iter().enumerate().all(|(k, c)| !s[..k].contains(c));
    if !ins.iter().all(|s| letters(s) && distinct(s)) || !letters(&out) || !distinct(&out) {
        return None;
    }
    Some((ins, out))
}

/// What the product is, in terms of `@` and `np.outer` of possibly transposed operands.
#[derive(Debug, PartialEq)]
enum Plan {
    /// `op(a) @ op(b)` (true: transposed), or with `swap` `op(b) @ op(a)`.
    MatMul {
        ta: bool,
        tb: bool,
        swap: bool,
    },
    Outer {
        swap: bool,
    },
}

fn plan(a: &[char], b: &[char], o: &[char]) -> Option<Plan> {
    let shared: Vec<char> = a.iter().copied().filter(|c| b.contains(c)).collect();
    // Every letter is used once by an operand and once by the output, or contracted.
    let ok = o.iter().all(|c| a.contains(c) != b.contains(c))
        && a.iter().chain(b).all(|c| o.contains(c) || shared.contains(c))
        && shared.iter().all(|c| !o.contains(c));
    if !ok {
        return None;
    }
    let mm = |ta, tb, swap| Some(Plan::MatMul { ta, tb, swap });
    match (a.len(), b.len(), shared.as_slice()) {
        (1, 1, [_]) => mm(false, false, false),
        (1, 1, []) if o == [a[0], b[0]] => Some(Plan::Outer { swap: false }),
        (1, 1, []) => Some(Plan::Outer { swap: true }),
        // Matrix-vector: the contracted axis of the matrix meets the vector.
        (2, 1, [k]) => mm(a[0] == *k, false, false),
        (1, 2, [k]) => mm(false, b[1] == *k, false),
        (2, 2, [k]) => {
            let (i, j) = (if a[1] == *k { a[0] } else { a[1] }, if b[0] == *k { b[1] } else { b[0] });
            let (ta, tb) = (a[0] == *k, b[1] == *k);
            if o == [i, j] {
                mm(ta, tb, false)
            } else {
                // (A B)ᵀ = Bᵀ Aᵀ
                mm(!tb, !ta, true)
            }
        }
        // A stack times a matrix: batch letters lead the first operand and the output.
        (n, 2, [k]) if n > 2 && a[n - 1] == *k => {
            let batch = &a[..n - 2];
            let j = if b[0] == *k { b[1] } else { b[0] };
            let want: Vec<char> = batch.iter().copied().chain([a[n - 2], j]).collect();
            (o == want.as_slice()).then_some(Plan::MatMul { ta: false, tb: b[1] == *k, swap: false })
        }
        _ => None,
    }
}

impl Lowerer<'_> {
    /// `np.einsum(spec, a, b)`.
    pub fn einsum(&mut self, e: &Ex, args: &[Ex]) -> R<Val> {
        let help = "supported: two operands with explicit `->`, contracting one index as a matrix product \
                    (`ij,jk->ik`, `ij,j->i`, `i,i->`, `i,j->ij`, transposed variants, `bij,jk->bik`)";
        let [spec, ea, eb] = args else {
            return Err(self.err_help(e.span, "`np.einsum` with other than two operands is not supported", help));
        };
        let super::ast::ExKind::Str(s) = &spec.kind else {
            return Err(self.err_help(spec.span, "the subscripts of `np.einsum` must be a string literal", help));
        };
        let unsupported =
            |me: &Self| me.err_help(spec.span, format!("`np.einsum` subscripts `{s}` are not supported"), help);
        let Some((ins, out)) = parse(s) else { return Err(unsupported(self)) };
        let [a_sub, b_sub] = ins.as_slice() else { return Err(unsupported(self)) };
        let Some(p) = plan(a_sub, b_sub, &out) else { return Err(unsupported(self)) };
        let va = self.eval(ea)?;
        let vb = self.eval(eb)?;
        let (a, b) = self.arrays_for_product(va, vb, ea, eb)?;
        for (arr, sub, ex) in [(&a, a_sub, ea), (&b, b_sub, eb)] {
            if arr.rank() != sub.len() {
                return Err(self.err_help(
                    ex.span,
                    format!(
                        "`{}` has {} dimensions but its subscripts `{}` name {}",
                        ex.text,
                        arr.rank(),
                        sub.iter().collect::<String>(),
                        sub.len()
                    ),
                    help,
                ));
            }
        }
        let t = |x: Arr, yes: bool| if yes { x.transpose() } else { x };
        match p {
            Plan::Outer { swap: false } => self.outer(Val::Array(a), Val::Array(b), ea, eb, e),
            Plan::Outer { swap: true } => self.outer(Val::Array(b), Val::Array(a), eb, ea, e),
            Plan::MatMul { ta, tb, swap: false } => {
                self.matmul(Val::Array(t(a, ta)), Val::Array(t(b, tb)), ea, eb, e, true)
            }
            Plan::MatMul { ta, tb, swap: true } => {
                self.matmul(Val::Array(t(b, ta)), Val::Array(t(a, tb)), eb, ea, e, true)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<Plan> {
        let (ins, out) = parse(s)?;
        plan(&ins[0], &ins[1], &out)
    }

    #[test]
    fn contraction_patterns() {
        let mm = |ta, tb, swap| Some(Plan::MatMul { ta, tb, swap });
        assert_eq!(p("ij,jk->ik"), mm(false, false, false));
        assert_eq!(p("ji,jk->ik"), mm(true, false, false));
        assert_eq!(p("ij,kj->ik"), mm(false, true, false));
        // (A B)ᵀ = Bᵀ Aᵀ: the first operand of the product is B, transposed.
        assert_eq!(p("ij,jk->ki"), mm(true, true, true));
        assert_eq!(p("ij,kj->ki"), mm(false, true, true));
        assert_eq!(p("ij,j->i"), mm(false, false, false));
        assert_eq!(p("ji,j->i"), mm(true, false, false));
        assert_eq!(p("j,ji->i"), mm(false, false, false));
        assert_eq!(p("j,ij->i"), mm(false, true, false));
        assert_eq!(p("i,i->"), mm(false, false, false));
        assert_eq!(p("i,j->ij"), Some(Plan::Outer { swap: false }));
        assert_eq!(p("i,j->ji"), Some(Plan::Outer { swap: true }));
        assert_eq!(p("bij,jk->bik"), mm(false, false, false));
        assert_eq!(p(" bij , kj -> bik "), mm(false, true, false));
        // Traces, sums over a free index, diagonals, broadcasting: not products.
        for bad in ["ii,i->i", "ij,jk->ijk", "ij,jk->i", "ij,jk", "i,i->i", "ij,ij->", "...i,i->...", "bij,jk->ibk"] {
            assert_eq!(p(bad), None, "{bad}");
        }
    }
}
