//! `np.reshape` / `.reshape()` / `.ravel()` / `.flatten()` as index remapping: the
//! reshaped value reads the original elements in C order, so no data moves. Axes are
//! matched in groups whose extents have equal products (`(N, M*K) -> (N, M, K)`); within a
//! group the new indices form a flat offset that `//` and `%` split into old indices.
//! Reshapes that only add or drop unit axes, or keep extents, need neither.

use super::ast::*;
use super::lower::{Lowerer, R};
use super::value::*;
use crate::sym;
use adjc_ir::*;

/// A product of extents: a constant times symbolic factors.
#[derive(Clone, Debug)]
struct Fac {
    c: i64,
    syms: Vec<Expr>,
}

impl Lowerer<'_> {
    fn factors(&self, e: &Expr) -> Fac {
        let e = self.shapes.norm(e);
        if let Some(k) = e.as_int() {
            return Fac { c: k, syms: Vec::new() };
        }
        if let ExprKind::Binary(BinOp::Mul, a, b) = &e.kind {
            let (fa, fb) = (self.factors(a), self.factors(b));
            return fac_mul(&fa, &fb);
        }
        Fac { c: 1, syms: vec![e] }
    }

    /// The factors of `b` left after removing those of `a`, if `a` divides `b`.
    fn fac_div(&self, a: &Fac, b: &Fac) -> Option<Fac> {
        if a.c == 0 || b.c % a.c != 0 {
            return None;
        }
        let mut rest = b.syms.clone();
        for s in &a.syms {
            let k = rest.iter().position(|r| self.shapes.same_ext(r, s))?;
            rest.remove(k);
        }
        Some(Fac { c: b.c / a.c, syms: rest })
    }

    fn fac_eq(&self, a: &Fac, b: &Fac) -> bool {
        a.syms.len() == b.syms.len() && self.fac_div(a, b).is_some_and(|r| r.c == 1 && r.syms.is_empty())
    }

    /// `arr` reshaped to `new` (one entry may be `None`, NumPy's `-1`).
    pub fn reshape(&mut self, arr: Arr, new: Vec<Option<Expr>>, e: &Ex) -> R<Val> {
        if new.iter().filter(|x| x.is_none()).count() > 1 {
            return Err(self.err(e.span, "only one extent of a new shape can be -1"));
        }
        if new.is_empty() || new.len() > MAX_RANK {
            return Err(self.err(e.span, "unsupported shape in a reshape (0-dimensional or too many dimensions)"));
        }
        let old: Vec<Expr> = arr.shape.iter().map(|x| self.shapes.norm(x)).collect();
        let new = self.resolve_new_shape(&old, new, e)?;
        let unit = |lw: &Self, x: &Expr| lw.shapes.is_one(x);
        let old_axes: Vec<usize> = (0..old.len()).filter(|d| !unit(self, &old[*d])).collect();
        let new_axes: Vec<usize> = (0..new.len()).filter(|d| !unit(self, &new[*d])).collect();
        // Equally many non-unit axes: match them one to one, unifying inferred extents
        // (`np.reshape(A, (NR, NQ, 1, NP))` of an unannotated 3-D `A`).
        let mut groups: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
        if old_axes.len() == new_axes.len() {
            let saved = self.shapes.clone();
            for (o, n) in old_axes.iter().zip(&new_axes) {
                // An extent of the old shape in another place is a permutation
                // (`(N, M) -> (M, N)`), not a sign that the two are equal.
                let permuted = || old.iter().any(|x| self.shapes.same_ext(x, &new[*n]));
                let f = &self.f;
                let equal = self.shapes.same_ext(&old[*o], &new[*n])
                    || !permuted() && self.shapes.equate(&old[*o], &new[*n], &|v| f.is_param(v));
                if !equal {
                    self.shapes = saved;
                    groups.clear();
                    break;
                }
                groups.push((vec![*o], vec![*n]));
            }
        }
        if groups.len() != old_axes.len() || old_axes.len() != new_axes.len() {
            groups = match self.group_axes(&old, &new, &old_axes, &new_axes) {
                Some(g) => g,
                // Element counts only the call can compare (`(N, C)` of an `(A, B)` array
                // with `C` a parameter): one group, checked on entry.
                None if !old_axes.is_empty() && !new_axes.is_empty() && {
                    let count = |s: &[Expr]| sym::canon(&s.iter().fold(Expr::int(1), |acc, x| acc.mul(x.clone())));
                    let (a, b) = (count(&old), count(&new));
                    let what = format!("equal element counts in `{}`", e.text);
                    self.require_equal(&a, &b, e.span, what)
                } =>
                {
                    vec![(old_axes.clone(), new_axes.clone())]
                }
                None => {
                    return Err(self.err_help(
                        e.span,
                        format!(
                            "cannot reshape `{}` of shape ({}) to ({}): the extents do not match",
                            arr.text,
                            self.shape_str(&old),
                            self.shape_str(&new)
                        ),
                        "the element counts must be equal; a run-time check is made only when both depend on \
                         parameters alone",
                    ))
                }
            };
        }
        let mut old_idx: Vec<Expr> = vec![Expr::int(0); old.len()];
        for (go, gn) in &groups {
            // The flat offset within the group, in the new indices.
            let mut flat = Expr::int(0);
            for (t, n) in gn.iter().enumerate() {
                let stride = gn[t + 1..].iter().fold(Expr::int(1), |acc, u| acc.mul(new[*u].clone()));
                flat = flat.add(ph_expr(*n).mul(stride));
            }
            let flat = sym::canon(&flat);
            for (s, o) in go.iter().enumerate() {
                let stride = go[s + 1..].iter().fold(Expr::int(1), |acc, u| acc.mul(old[*u].clone()));
                let stride = sym::canon(&stride);
                let mut x = flat.clone();
                if stride.as_int() != Some(1) {
                    x = Expr::binary(BinOp::FloorDiv, x, stride);
                }
                if s > 0 {
                    x = Expr::binary(BinOp::Mod, x, old[*o].clone());
                }
                old_idx[*o] = x;
            }
        }
        let mut bounds = Vec::new();
        for (d, ext) in new.iter().enumerate() {
            let matched = groups.iter().find(|(go, gn)| go.len() == 1 && gn.len() == 1 && gn[0] == d);
            let b = match matched {
                Some((go, _)) => arr.bounds.get(go[0]).cloned().unwrap_or_else(|| ext.clone()),
                None => ext.clone(),
            };
            if !self.is_param_expr(&b) {
                return Err(self.err_help(
                    e.span,
                    format!("cannot reshape `{}`: its extents change inside a loop", arr.text),
                    "reshape whole arrays (or slices of fixed extent)",
                ));
            }
            bounds.push(b);
        }
        let view = arr.view && self.c_contiguous(&arr);
        let tmpl = subst_ph(&arr.tmpl, &|d| old_idx.get(d).cloned().unwrap_or_else(|| Expr::int(0)));
        Ok(Val::Array(Arr { elem: arr.elem, shape: new, bounds, tmpl, view, text: e.text.clone() }))
    }

    /// The new shape with its `-1` entry solved from the element count.
    fn resolve_new_shape(&mut self, old: &[Expr], new: Vec<Option<Expr>>, e: &Ex) -> R<Vec<Expr>> {
        let Some(hole) = new.iter().position(|x| x.is_none()) else {
            return Ok(new.into_iter().flatten().map(|x| self.shapes.norm(&x)).collect());
        };
        let total = old.iter().fold(Fac { c: 1, syms: Vec::new() }, |acc, x| fac_mul(&acc, &self.factors(x)));
        let mut rest = total;
        for x in new.iter().flatten() {
            let fx = self.factors(x);
            rest = self.fac_div(&fx, &rest).ok_or_else(|| {
                self.err_help(
                    e.span,
                    format!("cannot infer the `-1` extent: `{}` does not divide the element count", self.ext_str(x)),
                    "give every extent of the new shape explicitly",
                )
            })?;
        }
        let solved = rest.syms.into_iter().fold(Expr::int(rest.c), |acc, s| acc.mul(s));
        let mut out: Vec<Expr> =
            new.into_iter().map(|x| x.map(|x| self.shapes.norm(&x)).unwrap_or(Expr::int(0))).collect();
        out[hole] = sym::canon(&solved);
        Ok(out)
    }

    /// Groups of consecutive non-unit axes (old, new) whose extents have equal products.
    fn group_axes(
        &self,
        old: &[Expr],
        new: &[Expr],
        old_axes: &[usize],
        new_axes: &[usize],
    ) -> Option<Vec<(Vec<usize>, Vec<usize>)>> {
        let (mut i, mut j) = (0usize, 0usize);
        let mut groups = Vec::new();
        while i < old_axes.len() && j < new_axes.len() {
            let mut go = vec![old_axes[i]];
            let mut gn = vec![new_axes[j]];
            let mut fo = self.factors(&old[old_axes[i]]);
            let mut fnw = self.factors(&new[new_axes[j]]);
            i += 1;
            j += 1;
            while !self.fac_eq(&fo, &fnw) {
                if self.fac_div(&fo, &fnw).is_some() && i < old_axes.len() {
                    fo = fac_mul(&fo, &self.factors(&old[old_axes[i]]));
                    go.push(old_axes[i]);
                    i += 1;
                } else if self.fac_div(&fnw, &fo).is_some() && j < new_axes.len() {
                    fnw = fac_mul(&fnw, &self.factors(&new[new_axes[j]]));
                    gn.push(new_axes[j]);
                    j += 1;
                } else {
                    return self.one_group(old, new, old_axes, new_axes);
                }
            }
            groups.push((go, gn));
        }
        if i < old_axes.len() || j < new_axes.len() {
            return self.one_group(old, new, old_axes, new_axes);
        }
        Some(groups)
    }

    /// All non-unit axes in one group, when only the total element counts agree.
    fn one_group(
        &self,
        old: &[Expr],
        new: &[Expr],
        old_axes: &[usize],
        new_axes: &[usize],
    ) -> Option<Vec<(Vec<usize>, Vec<usize>)>> {
        let total = |shape: &[Expr], axes: &[usize]| {
            axes.iter().fold(Fac { c: 1, syms: Vec::new() }, |acc, d| fac_mul(&acc, &self.factors(&shape[*d])))
        };
        if old_axes.is_empty() || !self.fac_eq(&total(old, old_axes), &total(new, new_axes)) {
            return None;
        }
        Some(vec![(old_axes.to_vec(), new_axes.to_vec())])
    }

    /// Whether the value is a C-contiguous block of the variable it views (whole
    /// trailing axes, the first one possibly a sub-range): NumPy's reshape of it is a
    /// view, so writes through the result reach the variable.
    fn c_contiguous(&self, arr: &Arr) -> bool {
        let ExprKind::Load(v, idx) = &arr.tmpl.kind else { return false };
        let dims = self.f.var(*v).ty.dims().to_vec();
        let (n, r) = (idx.len(), arr.rank());
        if r > n || dims.len() != n {
            return false;
        }
        for (k, ix) in idx.iter().enumerate() {
            let l = sym::Lin::from_expr(ix);
            let phs: Vec<usize> = l.vars().into_iter().filter_map(ph_index).collect();
            if k < n - r {
                if !phs.is_empty() {
                    return false;
                }
                continue;
            }
            let d = k - (n - r);
            if phs != [d] || l.coeff(ph(d)) != 1 || l.has_opaque() {
                return false;
            }
            let mut offset = l.clone();
            offset.take(ph(d));
            if d > 0 && (offset.as_const() != Some(0) || !self.shapes.same_ext(&arr.shape[d], &dims[k].extent)) {
                return false;
            }
        }
        true
    }

    fn shape_str(&self, s: &[Expr]) -> String {
        let parts: Vec<String> = s.iter().map(|x| self.ext_str(x)).collect();
        if parts.len() == 1 {
            format!("{},", parts[0])
        } else {
            parts.join(", ")
        }
    }

    /// The new shape of `np.reshape(a, shape)` / `a.reshape(...)`: integers, `-1` as
    /// `None`.
    pub fn new_shape(&mut self, items: &[Ex]) -> R<Vec<Option<Expr>>> {
        let mut exs: Vec<Ex> = Vec::new();
        for it in items {
            match &it.kind {
                ExKind::Tuple(t) | ExKind::List(t) if items.len() == 1 => exs.extend(t.iter().cloned()),
                _ => exs.push(it.clone()),
            }
        }
        let mut out = Vec::new();
        for x in &exs {
            let v = self.eval(x)?;
            let v = match v {
                Val::Tuple(t) => {
                    // A shape tuple held in a variable (`s = A.shape`).
                    for it in t {
                        let k = self.int_value(it, x, "an array extent")?;
                        out.push(if k.as_int() == Some(-1) { None } else { Some(k) });
                    }
                    continue;
                }
                other => other,
            };
            let k = self.int_value(v, x, "an array extent")?;
            out.push(if k.as_int() == Some(-1) { None } else { Some(k) });
        }
        let given: Vec<Expr> = out.iter().flatten().cloned().collect();
        self.note_extents(&given);
        Ok(out)
    }
}

fn fac_mul(a: &Fac, b: &Fac) -> Fac {
    let mut syms = a.syms.clone();
    syms.extend(b.syms.iter().cloned());
    Fac { c: a.c.saturating_mul(b.c), syms }
}
