//! The last step of lowering: frees, unified extents substituted everywhere, dead size
//! parameters dropped, intents, documentation and inference notes.

use super::lower::{Lowerer, R};
use crate::irutil;
use adjc_ir::*;
use std::collections::BTreeSet;

impl Lowerer<'_> {
    pub fn finish(mut self) -> R<Function> {
        self.settle_names();
        let mut body = self.blocks.pop().unwrap_or_default();
        for (v, span) in &self.allocs {
            body.push(Stmt::new(StmtKind::Free(*v), *span));
        }
        let shapes = &self.shapes;
        let fe = |e: &Expr| {
            let r = shapes.apply(e);
            if r.ty == Scalar::I64 {
                crate::sym::canon(&r)
            } else {
                super::value::canon_loads(&r)
            }
        };
        irutil::rewrite_block(&mut body, &fe, &|v| v);
        self.f.body = body;
        // Unification may have made a run-time check trivially true.
        let mut assumptions = Vec::new();
        for mut a in std::mem::take(&mut self.f.assumptions) {
            a.lhs = fe(&a.lhs);
            a.rhs = fe(&a.rhs);
            a.guard = a.guard.as_ref().map(&fe);
            let trivial = a.rel == Relation::Eq && a.guard.is_none() && shapes.same_ext(&a.lhs, &a.rhs);
            if !trivial
                && !assumptions
                    .iter()
                    .any(|b: &Assumption| b.lhs == a.lhs && b.rhs == a.rhs && b.rel == a.rel && b.guard == a.guard)
            {
                assumptions.push(a);
            }
        }
        super::deferred::prune_implied(&mut assumptions, shapes);
        self.f.assumptions = assumptions;
        for var in self.f.vars.iter_mut() {
            if let Type::Array { dims, .. } = &mut var.ty {
                for d in dims.iter_mut() {
                    d.extent = fe(&d.extent);
                    d.lower = fe(&d.lower);
                }
            }
        }
        // Which variables are still referenced.
        let mut used = BTreeSet::new();
        irutil::block_vars(&self.f.body, &mut used);
        used.extend(self.src_params.iter().copied());
        used.extend(self.rets.iter().copied());
        for a in &self.f.assumptions {
            for e in a.exprs() {
                used.extend(e.vars());
            }
            used.extend(a.each);
        }
        let typed: Vec<VarId> = used.iter().copied().collect();
        for v in typed {
            for d in self.f.var(v).ty.dims() {
                used.extend(d.extent.vars());
                used.extend(d.lower.vars());
            }
        }
        let written = written_vars(&self.f.body);
        let mut params = Vec::new();
        for v in &self.sizes {
            if used.contains(v) && !self.shapes.is_solved(*v) {
                params.push(Param { var: *v, intent: Intent::In, doc: self.docs.get(v).cloned().unwrap_or_default() });
            }
        }
        for v in &self.src_params {
            let var = self.f.var(*v);
            let (intent, doc) = if var.ty.is_array() {
                if written.contains(v) {
                    (Intent::InOut, "input, updated in place")
                } else {
                    (Intent::In, "input")
                }
            } else {
                (Intent::In, "input")
            };
            params.push(Param { var: *v, intent, doc: doc.to_string() });
        }
        for v in &self.rets {
            params.push(Param { var: *v, intent: Intent::Out, doc: self.docs.get(v).cloned().unwrap_or_default() });
        }
        self.f.params = params;
        let keep: BTreeSet<VarId> = used.iter().copied().filter(|v| v.index() < self.f.vars.len()).collect();
        let mut notes = Vec::new();
        for (v, reason) in &self.inferred_notes {
            let var = self.f.var(*v);
            notes.push(format!("inferred {}: {} ({reason})", var.name, print::type_str(&self.f, &var.ty)));
        }
        self.f.notes = notes;
        let params: BTreeSet<VarId> = self.f.params.iter().map(|p| p.var).collect();
        irutil::compact_vars(&mut self.f, &|v| keep.contains(&v) || params.contains(&v));
        Ok(self.f)
    }
}
