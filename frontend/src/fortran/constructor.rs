//! Array constructors (`(/ 1.0, 2.0 /)`, `[ x(1), 2 * y ]`, implied-do items
//! `[(w(i) * i, i = 1, n)]`): each becomes a rank-1 work array, filled before the
//! statement that reads it (item by item, an implied do as one loop), which the statement
//! then reads like any array (the expression's id keys it in `hoisted`, as the results of
//! array-valued functions are).
//!
//! The element type is the widest of the items' (Fortran requires them to agree; mixing
//! integers into reals is what gfortran does for `[1, 2.5]` with a warning). The number of
//! elements must be known on entry: implied-do bounds are constants or integer arguments,
//! steps are 1. Array-valued items (`[x, y]` with arrays `x`, `y`) are not supported yet.

use super::ast::{self, ExprKind as AKind};
use super::lower::{Lowerer, R};
use crate::sym::canon;
use adjc_ir::*;

/// One item, lowered: a value at a position, or a loop over the implied-do variable.
enum Item {
    Value(Expr),
    Loop { iv: VarId, start: Expr, count: Expr, items: Vec<Item>, per: Expr },
}

impl<'s, 't> Lowerer<'s, 't> {
    /// Fills a work array for every array constructor in `n` (not inside another).
    pub fn hoist_constructors(&mut self, n: &'t ast::Expr) -> R<()> {
        let mut found = Vec::new();
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if let AKind::ArrayConstructor(items) = &x.kind {
                found.push((x, items));
                continue;
            }
            let mut kids = x.children();
            kids.reverse();
            stack.extend(kids);
        }
        for (x, items) in found {
            if self.hoisted.contains_key(&x.id) {
                continue;
            }
            let v = self.constructor(x, items)?;
            self.hoisted.insert(x.id, v);
        }
        Ok(())
    }

    fn constructor(&mut self, x: &'t ast::Expr, items: &'t [ast::Expr]) -> R<VarId> {
        if items.is_empty() {
            return Err(self.err(x, "an empty array constructor is not supported").with_help("give at least one item"));
        }
        let lowered = self.items(items)?;
        let mut elem = None;
        Self::elem_type(&lowered, &mut elem);
        let elem = elem.unwrap_or(Scalar::F64);
        let count = canon(&lowered.iter().fold(Expr::int(0), |a, i| a.add(Self::count(i))));
        for v in count.vars() {
            let var = self.f.var(v);
            if !matches!(var.role, VarRole::Param | VarRole::Size) || var.ty.is_array() {
                return Err(self
                    .err(x, "the number of elements of this array constructor is not known on entry")
                    .with_help("implied-do bounds must be constants or integer arguments"));
            }
        }
        let name = self.temp_name("ctor");
        let dims = vec![Dim { lower: Expr::int(1), extent: count }];
        let tmp = self.f.add_var(name, Type::Array { elem, dims, layout: Layout::ColMajor }, VarRole::Temp, x.span);
        self.alloc_at_top(tmp, x.span);
        let mut pos = Expr::int(1);
        for it in lowered {
            let n = Self::count(&it);
            self.fill(tmp, elem, pos.clone(), it);
            pos = canon(&pos.add(n));
        }
        Ok(tmp)
    }

    fn items(&mut self, items: &'t [ast::Expr]) -> R<Vec<Item>> {
        let mut out = Vec::new();
        for it in items {
            match &it.kind {
                AKind::ImpliedDo(d) => out.push(self.implied_do(it, d)?),
                AKind::ArrayConstructor(inner) => out.extend(self.items(inner)?),
                _ => {
                    if self.shape_of(it)?.is_some() {
                        return Err(self
                            .err(it, "array-valued items in an array constructor are not supported yet")
                            .with_help("list the elements, or use an implied do: `[(x(i), i = 1, n)]`"));
                    }
                    out.push(Item::Value(self.expr(it, None)?));
                }
            }
        }
        Ok(out)
    }

    fn implied_do(&mut self, at: &'t ast::Expr, d: &'t ast::ImpliedDo) -> R<Item> {
        if let Some(s) = &d.step {
            if self.int_expr(s)?.as_int() != Some(1) {
                return Err(self
                    .err(s, "implied do loops with a step other than 1 are not supported")
                    .with_help("write the loop with step 1 and scale the index in the item"));
            }
        }
        let key = d.var.to_ascii_lowercase();
        if self.loops.iter().any(|(x, _)| *x == key) {
            return Err(
                self.err(d.var_span, format!("the implied-do variable `{}` is used by an enclosing loop", d.var))
            );
        }
        let start = self.int_expr(&d.start)?;
        let last = self.int_expr(&d.last)?;
        let count = canon(&Expr::call(
            Intrinsic::Max,
            vec![Expr::int(0), last.sub(start.clone()).add(Expr::int(1))],
            Scalar::I64,
        ));
        let iv = self.f.add_var(d.var.clone(), Type::Scalar(Scalar::I64), VarRole::Index, d.var_span);
        self.loops.push((key, iv));
        let items = self.items(&d.items);
        self.loops.pop();
        let items = items?;
        let per = canon(&items.iter().fold(Expr::int(0), |a, i| a.add(Self::count(i))));
        if per.vars().contains(&iv) || count.vars().iter().any(|v| self.f.var(*v).role == VarRole::Index) {
            return Err(self
                .err(at, "nested implied do loops whose bounds depend on each other are not supported")
                .with_help("give every implied do constant bounds or integer arguments"));
        }
        Ok(Item::Loop { iv, start, count, items, per })
    }

    fn count(i: &Item) -> Expr {
        match i {
            Item::Value(_) => Expr::int(1),
            Item::Loop { count, per, .. } => canon(&count.clone().mul(per.clone())),
        }
    }

    fn elem_type(items: &[Item], acc: &mut Option<Scalar>) {
        for i in items {
            match i {
                Item::Value(e) => {
                    let t = e.ty;
                    *acc = Some(match (*acc, t) {
                        (None, t) => t,
                        (Some(Scalar::F64), _) | (_, Scalar::F64) => Scalar::F64,
                        (Some(Scalar::F32), _) | (_, Scalar::F32) => Scalar::F32,
                        (Some(a), _) => a,
                    });
                }
                Item::Loop { items, .. } => Self::elem_type(items, acc),
            }
        }
    }

    /// Emits the assignments of item `it` to `tmp` from position `pos` on.
    fn fill(&mut self, tmp: VarId, elem: Scalar, pos: Expr, it: Item) {
        match it {
            Item::Value(v) => {
                let span = self.span;
                let value = if v.ty == elem { v } else { v.cast(elem) };
                if let Some(b) = self.blocks.last_mut() {
                    b.push(Stmt::assign(Place::element(tmp, vec![pos]), value, span));
                }
            }
            Item::Loop { iv, start, count, items, per } => {
                // Position of the k-th item of iteration `iv`: pos + (iv - start) * per + k.
                let base = canon(&pos.add(Expr::var(iv, Scalar::I64).sub(start.clone()).mul(per)));
                self.blocks.push(Vec::new());
                let mut at = base;
                for sub in items {
                    let n = Self::count(&sub);
                    self.fill(tmp, elem, at.clone(), sub);
                    at = canon(&at.add(n));
                }
                let body = self.blocks.pop().unwrap_or_default();
                let stop = canon(&start.clone().add(count));
                self.emit(StmtKind::Loop(Loop { id: LoopId::NEW, var: iv, start, stop, step: Expr::int(1), body }));
            }
        }
    }
}
