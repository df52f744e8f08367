//! Rules for groups of statements that an expert differentiates as one operation
//! ([`crate::softmax`], [`crate::batchnorm`]): recognised once on the primal's top-level
//! body, applied by `Ad::rev_block` where they start. The rules are a registry ([`find`]) of types
//! implementing [`ExpertRule`] (`crate::state`): the reversal knows no rule by name.

use crate::batchnorm::BatchNorm;
use crate::softmax::Softmax;
use crate::state::{Ad, ExpertRule};
use crate::util::{writes, VarSet};
use adjc_ir::{Block, Stmt};
use std::rc::Rc;

impl ExpertRule for Softmax {
    fn len(&self) -> usize {
        4
    }
    fn reverse(&self, ad: &mut Ad<'_>, stmts: &[Stmt]) -> Option<(Block, Block)> {
        ad.rev_softmax(self, stmts)
    }
}

impl ExpertRule for BatchNorm {
    fn len(&self) -> usize {
        5
    }
    fn reverse(&self, ad: &mut Ad<'_>, stmts: &[Stmt]) -> Option<(Block, Block)> {
        ad.rev_batchnorm(self, stmts)
    }
}

/// The registry: every rule that applies at the top level of `body`, by the position of
/// its first statement. A new rule is a type implementing [`ExpertRule`] and one line here.
pub(crate) fn find(body: &Block) -> Vec<(usize, Rc<dyn ExpertRule>)> {
    let mut out: Vec<(usize, Rc<dyn ExpertRule>)> = Vec::new();
    out.extend(crate::softmax::find(body).into_iter().map(|(i, r)| (i, Rc::new(r) as Rc<dyn ExpertRule>)));
    out.extend(crate::batchnorm::find(body).into_iter().map(|(i, r)| (i, Rc::new(r) as Rc<dyn ExpertRule>)));
    out.sort_by_key(|(i, _)| *i);
    out
}

impl Ad<'_> {
    /// Forward and reverse code of `rule` over the statements starting at `b[i]`, and how
    /// many statements it covers; `None` when it does not apply here.
    pub fn rev_expert(
        &mut self,
        rule: &dyn ExpertRule,
        b: &[Stmt],
        i: usize,
        live: &VarSet,
    ) -> Option<(usize, Block, Block)> {
        let stmts = b.get(i..i + rule.len())?;
        // The rules save nothing, and drop the adjoints of the intermediates (every target
        // but the last statement's): no target may hold a value an adjoint still needs,
        // and no intermediate may be a parameter, whose adjoint the caller can seed.
        let (last, inner) = stmts.split_last()?;
        let intermediates: VarSet = inner.iter().flat_map(writes).collect();
        if intermediates.iter().chain(&writes(last)).any(|t| live.contains(t))
            || intermediates.iter().any(|t| self.p.is_param(*t))
        {
            return None;
        }
        let (f, r) = rule.reverse(self, stmts)?;
        Some((stmts.len(), f, r))
    }
}
