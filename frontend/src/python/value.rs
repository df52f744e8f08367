//! Values of Python expressions during lowering. An array value is *lazy*: a shape and an
//! element template, a scalar expression over placeholder indices `P0, P1, ...` (one per
//! axis of the value). Element-wise operations combine templates, indexing and
//! broadcasting substitute placeholders, and a statement finally substitutes the indices
//! of the loop nest it emits. This is what makes a vectorised statement one fused `Map`.

use super::ops::SVal;
use crate::sym::{self, Lin};
use adjc_ir::{Expr, ExprKind, Scalar, VarId};

/// Placeholders live at the top of the VarId range, far from any real variable.
const PH_TOP: u32 = u32::MAX;
const PH_COUNT: u32 = 64;

pub fn ph(d: usize) -> VarId {
    VarId(PH_TOP - d as u32)
}

pub fn ph_index(v: VarId) -> Option<usize> {
    if v.0 > PH_TOP - PH_COUNT {
        Some((PH_TOP - v.0) as usize)
    } else {
        None
    }
}

pub fn ph_expr(d: usize) -> Expr {
    Expr::var(ph(d), Scalar::I64)
}

pub const MAX_RANK: usize = 32;

#[derive(Clone, Debug, PartialEq)]
pub struct Arr {
    pub elem: Scalar,
    pub shape: Vec<Expr>,
    /// Per axis, an upper bound of the extent that depends only on parameters (the
    /// extent itself may depend on loop variables, as in `A[i, :j]`): temporaries
    /// holding the value are allocated with it.
    pub bounds: Vec<Expr>,
    /// The element at placeholder indices.
    pub tmpl: Expr,
    /// The template is a load of one variable through a NumPy view (basic indexing), so
    /// the value can be assigned to and aliases that variable.
    pub view: bool,
    pub text: String,
}

/// A computation that is not element-wise (a reduction, a matrix product, a fresh array
/// from `np.zeros`): it is computed straight into the destination when it is the whole
/// right-hand side of an assignment, else into a temporary first.
#[derive(Clone, Debug, PartialEq)]
pub struct Deferred {
    pub op: DefOp,
    pub elem: Scalar,
    pub shape: Vec<Expr>,
    pub bounds: Vec<Expr>,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedOp {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
}

impl RedOp {
    pub fn name(self) -> &'static str {
        match self {
            RedOp::Sum => "sum",
            RedOp::Mean => "mean",
            RedOp::Max => "max",
            RedOp::Min => "min",
            RedOp::Prod => "prod",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum DefOp {
    /// Reduce `arg` over `axes` (sorted); the result keeps size-1 axes when `keepdims`.
    Reduce { op: RedOp, arg: Arr, axes: Vec<usize>, keepdims: bool },
    /// `a @ b`; ranks above 2 are stacks of matrices (NumPy's `matmul`).
    MatMul { a: Arr, b: Arr },
    /// `np.outer(a, b)` of 1-D `a` and `b`; `elementwise` is the same value as an
    /// element-wise array (`a[i] * b[j]`), which every use but a plain store takes.
    Outer { a: Arr, b: Arr, elementwise: Arr },
    /// A new array, filled with `init` unless `None` (`np.empty`).
    Fresh { init: Option<Expr> },
    /// The parts side by side along `axis` (`np.concatenate`, `np.stack`, `np.roll`): one
    /// store map per part into its slab of the destination.
    Join { parts: Vec<Arr>, axis: usize },
    /// The running sum (`prod` false) or product of `arg` along `axis` (`np.cumsum`,
    /// `np.cumprod`): a sequential loop over the axis, a recurrence on the destination.
    Scan { prod: bool, arg: Arr, axis: usize },
    /// `np.linalg.cholesky(args[0])` or `np.linalg.solve(args[0], args[1])`: a library call.
    Linalg { cholesky: bool, args: Vec<Arr> },
}

impl Deferred {
    /// Whether computing it reads variable `v`.
    pub fn reads(&self, v: VarId) -> bool {
        match &self.op {
            DefOp::Reduce { arg, .. } => arg.tmpl.mentions(v),
            DefOp::MatMul { a, b } | DefOp::Outer { a, b, .. } => a.tmpl.mentions(v) || b.tmpl.mentions(v),
            DefOp::Fresh { init } => init.as_ref().is_some_and(|e| e.mentions(v)),
            DefOp::Join { parts, .. } => parts.iter().any(|p| p.tmpl.mentions(v)),
            DefOp::Scan { arg, .. } => arg.tmpl.mentions(v),
            DefOp::Linalg { args, .. } => args.iter().any(|p| p.tmpl.mentions(v)),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    Scalar(SVal),
    Array(Arr),
    Deferred(Box<Deferred>),
    Tuple(Vec<Val>),
    None,
}

impl Val {
    pub fn kind_name(&self) -> &'static str {
        match self {
            Val::Scalar(_) => "a scalar",
            Val::Array(_) | Val::Deferred(_) => "an array",
            Val::Tuple(_) => "a tuple",
            Val::None => "`None`",
        }
    }
}

/// Substitutes placeholders by `f(d)` and re-simplifies, leaving indices canonical.
pub fn subst_ph(e: &Expr, f: &dyn Fn(usize) -> Expr) -> Expr {
    let r = sym::substitute(e, &|v| ph_index(v).map(f));
    canon_loads(&r)
}

/// Canonical (linear-normalised) index expressions in every load.
pub fn canon_loads(e: &Expr) -> Expr {
    e.rewrite(&mut |x| match x.kind {
        ExprKind::Load(v, idx) => {
            Expr { kind: ExprKind::Load(v, idx.iter().map(sym::canon).collect()), ty: x.ty, span: x.span }
        }
        _ => x,
    })
}

impl Arr {
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The element at the given indices (one per axis).
    pub fn at(&self, idx: &[Expr]) -> Expr {
        subst_ph(&self.tmpl, &|d| idx.get(d).cloned().unwrap_or_else(|| Expr::int(0)))
    }

    /// The viewed variable, if the value is a view.
    pub fn view_var(&self) -> Option<VarId> {
        match (&self.tmpl.kind, self.view) {
            (ExprKind::Load(v, _), true) => Some(*v),
            _ => None,
        }
    }

    /// A whole variable of array type.
    pub fn whole(var: VarId, elem: Scalar, shape: Vec<Expr>, text: impl Into<String>) -> Arr {
        let idx = (0..shape.len()).map(ph_expr).collect();
        Arr { elem, bounds: shape.clone(), shape, tmpl: Expr::load(var, idx, elem), view: true, text: text.into() }
    }

    pub fn transpose(&self) -> Arr {
        let r = self.rank();
        let tmpl = subst_ph(&self.tmpl, &|d| ph_expr(r - 1 - d));
        let mut shape = self.shape.clone();
        shape.reverse();
        let mut bounds = self.bounds.clone();
        bounds.reverse();
        Arr { elem: self.elem, shape, bounds, tmpl, view: self.view, text: format!("{}.T", self.text) }
    }

    /// For axis `d`, the offset `r` when some load indexes with `P_d + r` (unit stride):
    /// loops over this axis can then run over the array's own indices.
    pub fn unit_offset(&self, d: usize) -> Option<Expr> {
        let mut found = None;
        self.tmpl.walk(&mut |x| {
            if found.is_some() {
                return;
            }
            if let ExprKind::Load(_, idx) = &x.kind {
                for i in idx {
                    let mut l = Lin::from_expr(i);
                    if l.coeff(ph(d)) != 1 || l.has_opaque() {
                        continue;
                    }
                    l.take(ph(d));
                    if l.vars().iter().all(|v| ph_index(*v).is_none()) {
                        found = Some(l.to_expr());
                        return;
                    }
                }
            }
        });
        found
    }
}

/// One item of a subscript after evaluation.
#[derive(Clone, Debug)]
pub enum Item {
    Index(Expr),
    /// A computed index that may be negative (`x[i - 1]` with `i` from 0): NumPy counts it
    /// from the end of the axis, so it is lowered to a wrapped index (`bounds::wrap_index`).
    Computed(Expr),
    Slice {
        start: Option<Expr>,
        stop: Option<Expr>,
        step: i64,
    },
    NewAxis,
    Ellipsis,
    /// A boolean array selecting elements (assignment targets only).
    Mask(Arr),
    /// An integer array of indices (NumPy's advanced indexing, `x[idx]`): its axes become
    /// axes of the result, and element `k` reads the axis at `idx[k]` (negative counting
    /// from the end). Reading one copies in NumPy: the result is not a view.
    Fancy(Arr),
}

/// `v` if non-negative, else `extent + v` (Python's negative indices, literals only).
fn wrap(v: Expr, extent: &Expr) -> Expr {
    match v.as_int() {
        Some(k) if k < 0 => sym::canon(&extent.clone().add(Expr::int(k))),
        _ => v,
    }
}

/// NumPy basic indexing of a lazy array (the result has rank 0 when every axis is
/// indexed by an integer).
pub fn index(arr: &Arr, items: &[Item], fit: &mut dyn Fit) -> Result<Arr, String> {
    let consuming = items
        .iter()
        .filter(|i| matches!(i, Item::Index(_) | Item::Computed(_) | Item::Slice { .. } | Item::Fancy(_)))
        .count();
    let ellipses = items.iter().filter(|i| matches!(i, Item::Ellipsis)).count();
    if ellipses > 1 {
        return Err("an index can only have a single ellipsis (`...`)".into());
    }
    if consuming > arr.rank() {
        return Err(format!(
            "too many indices: `{}` has {} dimension{} but is indexed with {}",
            arr.text,
            arr.rank(),
            if arr.rank() == 1 { "" } else { "s" },
            consuming
        ));
    }
    let mut expanded: Vec<Item> = Vec::new();
    for it in items {
        if let Item::Ellipsis = it {
            for _ in 0..arr.rank() - consuming {
                expanded.push(Item::Slice { start: None, stop: None, step: 1 });
            }
        } else {
            expanded.push(it.clone());
        }
    }
    let mut used = expanded
        .iter()
        .filter(|i| matches!(i, Item::Index(_) | Item::Computed(_) | Item::Slice { .. } | Item::Fancy(_)))
        .count();
    while used < arr.rank() {
        expanded.push(Item::Slice { start: None, stop: None, step: 1 });
        used += 1;
    }
    if expanded.len() > MAX_RANK {
        return Err("too many dimensions".into());
    }
    // Advanced indices: their common shape goes where the first one stands when they are
    // next to each other, else in front (NumPy's rule).
    let fancy: Vec<usize> =
        expanded.iter().enumerate().filter(|(_, i)| matches!(i, Item::Fancy(_))).map(|(k, _)| k).collect();
    let fancy_shape: Option<Arr> = fancy.first().and_then(|k| match &expanded[*k] {
        Item::Fancy(a) => Some(a.clone()),
        _ => None,
    });
    if let Some(first) = &fancy_shape {
        for k in &fancy {
            if let Item::Fancy(a) = &expanded[*k] {
                if a.rank() != first.rank() || a.shape.iter().zip(&first.shape).any(|(x, y)| !same_extent(x, y)) {
                    return Err(format!(
                        "the index arrays `{}` and `{}` must have the same shape (broadcasting index arrays \
                         against each other is not supported)",
                        first.text, a.text
                    ));
                }
            }
        }
    }
    let adjacent = fancy.windows(2).all(|w| w[1] == w[0] + 1);
    let mut old_map: Vec<Expr> = Vec::new();
    let mut shape: Vec<Expr> = Vec::new();
    let mut bounds: Vec<Expr> = Vec::new();
    let mut fancy_base: Option<usize> = None;
    let place_fancy = |shape: &mut Vec<Expr>, bounds: &mut Vec<Expr>, base: &mut Option<usize>| {
        if let (None, Some(f)) = (*base, &fancy_shape) {
            *base = Some(shape.len());
            shape.extend(f.shape.iter().cloned());
            bounds.extend(f.bounds.iter().cloned());
        }
    };
    if !adjacent {
        place_fancy(&mut shape, &mut bounds, &mut fancy_base);
    }
    let mut d = 0usize;
    for it in expanded {
        match it {
            Item::Fancy(a) => {
                place_fancy(&mut shape, &mut bounds, &mut fancy_base);
                let base = fancy_base.unwrap_or(0);
                let at = subst_ph(&a.tmpl, &|k| ph_expr(base + k));
                old_map.push(crate::bounds::wrap_index(at, &arr.shape[d]));
                d += 1;
            }
            Item::NewAxis => {
                shape.push(Expr::int(1));
                bounds.push(Expr::int(1));
            }
            Item::Ellipsis => {}
            Item::Mask(_) => return Err("boolean masks are only supported as assignment targets".into()),
            Item::Index(e) => {
                old_map.push(wrap(e, &arr.shape[d]));
                d += 1;
            }
            Item::Computed(e) => {
                old_map.push(crate::bounds::wrap_index(e, &arr.shape[d]));
                d += 1;
            }
            Item::Slice { start, stop, step } => {
                let ext = &arr.shape[d];
                let nd = ph_expr(shape.len());
                let (s, len) = slice_bounds(start, stop, step, ext, fit)?;
                let idx = match step {
                    1 => nd.add(s),
                    -1 => s.sub(nd),
                    st if st > 0 => nd.mul(Expr::int(st)).add(s),
                    st => s.sub(nd.mul(Expr::int(-st))),
                };
                old_map.push(idx);
                shape.push(len);
                bounds.push(arr.bounds.get(d).cloned().unwrap_or_else(|| ext.clone()));
                d += 1;
            }
        }
    }
    let tmpl = subst_ph(&arr.tmpl, &|k| old_map.get(k).cloned().unwrap_or_else(|| Expr::int(0)));
    let view = arr.view && fancy.is_empty();
    Ok(Arr { elem: arr.elem, shape, bounds, tmpl, view, text: arr.text.clone() })
}

/// Whether two extents are the same expression (the same size parameter, the same constant).
fn same_extent(a: &Expr, b: &Expr) -> bool {
    Lin::from_expr(&sym::canon(&a.clone().sub(b.clone()))).as_const() == Some(0)
}

/// What slicing needs from the lowerer about integer bounds.
pub trait Fit {
    /// Whether `a <= b` holds wherever the slice is evaluated.
    fn le(&self, a: &Expr, b: &Expr) -> bool;
    /// Makes sure `a <= b` (a slice bound inside its axis) by a check on entry; an error
    /// message when it cannot be checked there. `role` is `start` or `stop`, `why` what
    /// NumPy would do otherwise.
    fn need(&mut self, a: &Expr, b: &Expr, role: &str, why: &str) -> Result<(), String>;
}

/// Constant bounds only (tests): proves what constant folding proves, checks nothing.
#[cfg(test)]
pub struct ConstFit;

#[cfg(test)]
impl Fit for ConstFit {
    fn le(&self, a: &Expr, b: &Expr) -> bool {
        Lin::from_expr(&sym::canon(&b.clone().sub(a.clone()))).as_const().is_some_and(|d| d >= 0)
    }
    fn need(&mut self, a: &Expr, b: &Expr, role: &str, why: &str) -> Result<(), String> {
        if self.le(a, b) {
            Ok(())
        } else {
            Err(format!("slice {role} out of range: {why}"))
        }
    }
}

/// The first index and the extent of `start:stop:step` on an axis of extent `ext`, with
/// NumPy's meaning where it can be had without clipping: a negative literal counts from the
/// end, and a bound past the other end only makes the slice empty, which a negative extent
/// means (`x[2:]` of one element has extent `N - 2`; whoever takes an extent as a number
/// clamps it at 0). A bound that NumPy would clip into a non-empty slice (`x[:5]` of 3
/// elements, `x[-3:]` of 2) or count from the end (a computed negative start) must not
/// happen: `fit` proves it from the loop ranges, checks it on entry, or refuses it.
fn slice_bounds(
    start: Option<Expr>,
    stop: Option<Expr>,
    step: i64,
    ext: &Expr,
    fit: &mut dyn Fit,
) -> Result<(Expr, Expr), String> {
    if step == 0 {
        return Err("slice step cannot be zero".into());
    }
    let last = sym::canon(&ext.clone().sub(Expr::int(1)));
    const CLIP: &str = "NumPy would clip it to the axis";
    const WRAP: &str = "NumPy would count a negative bound from the end of the axis";
    // A bound's value, made sure to be at least `lo` (a start; a stop of a reversed
    // slice) or at most `hi` where NumPy would clip or wrap it.
    let mut bound = |b: Option<Expr>, dflt: Expr, lo: Option<Expr>, hi: Option<&Expr>, role: &str| {
        let Some(b) = b else { return Ok::<Expr, String>(dflt) };
        let literal = b.as_int();
        let w = match literal {
            Some(k) if k < 0 => sym::canon(&ext.clone().add(Expr::int(k))),
            _ => sym::canon(&b),
        };
        if literal.is_none() {
            if !fit.le(&Expr::int(0), &w) {
                fit.need(&Expr::int(0), &w, role, WRAP)?;
            }
        } else if let Some(lo) = lo {
            if !fit.le(&lo, &w) {
                fit.need(&lo, &w, role, CLIP)?;
            }
        }
        if let Some(hi) = hi {
            if !fit.le(&w, hi) {
                fit.need(&w, hi, role, CLIP)?;
            }
        }
        Ok(w)
    };
    if step > 0 {
        // A start past the end or a stop before the start only empties the slice.
        let s = bound(start, Expr::int(0), Some(Expr::int(0)), None, "start")?;
        let e = bound(stop, ext.clone(), None, Some(ext), "stop")?;
        let span = sym::canon(&e.sub(s.clone()));
        let len = if step == 1 {
            span
        } else {
            sym::canon(&Expr::binary(
                adjc_ir::BinOp::FloorDiv,
                sym::canon(&span.add(Expr::int(step - 1))),
                Expr::int(step),
            ))
        };
        Ok((sym::canon(&s), len))
    } else {
        let s = bound(start, last.clone(), None, Some(&last), "start")?;
        let e = bound(stop, Expr::int(-1), Some(Expr::int(-1)), None, "stop")?;
        let span = sym::canon(&s.clone().sub(e));
        let st = -step;
        let len = if st == 1 {
            span
        } else {
            sym::canon(&Expr::binary(adjc_ir::BinOp::FloorDiv, sym::canon(&span.add(Expr::int(st - 1))), Expr::int(st)))
        };
        Ok((sym::canon(&s), len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index_c(a: &Arr, items: &[Item]) -> Result<Arr, String> {
        index(a, items, &mut ConstFit)
    }

    fn arr1(n: i64) -> Arr {
        Arr::whole(VarId(0), Scalar::F64, vec![Expr::int(n)], "A")
    }

    #[test]
    fn slices_compose_offsets_and_extents() {
        let a = arr1(10);
        let Arr { shape, tmpl, .. } =
            index_c(&a, &[Item::Slice { start: Some(Expr::int(1)), stop: Some(Expr::int(-1)), step: 1 }]).unwrap();
        assert_eq!(shape[0].as_int(), Some(8));
        let at = subst_ph(&tmpl, &|_| Expr::int(0));
        assert!(matches!(&at.kind, ExprKind::Load(_, i) if i[0].as_int() == Some(1)));
        let Arr { shape, tmpl, .. } = index_c(&a, &[Item::Slice { start: None, stop: None, step: -1 }]).unwrap();
        assert_eq!(shape[0].as_int(), Some(10));
        let at = subst_ph(&tmpl, &|_| Expr::int(0));
        assert!(matches!(&at.kind, ExprKind::Load(_, i) if i[0].as_int() == Some(9)));
        let r = index_c(&a, &[Item::Slice { start: None, stop: None, step: 3 }]).unwrap();
        assert_eq!(r.shape[0].as_int(), Some(4));
        let r = index_c(&a, &[Item::Slice { start: None, stop: None, step: -3 }]).unwrap();
        assert_eq!(r.shape[0].as_int(), Some(4));
        assert!(index_c(&a, &[Item::Index(Expr::int(0)), Item::Index(Expr::int(0))]).is_err());
    }

    #[test]
    fn unit_offset_finds_shifted_axes() {
        let a = arr1(10);
        let v = index_c(&a, &[Item::Slice { start: Some(Expr::int(2)), stop: None, step: 1 }]).unwrap();
        assert_eq!(v.unit_offset(0).and_then(|e| e.as_int()), Some(2));
        assert_eq!(v.bounds[0].as_int(), Some(10));
    }
}
