//! Rules for groups of statements that an expert differentiates as one operation
//! ([`crate::softmax`], [`crate::batchnorm`]): recognised once on the primal's top-level
//! body, applied by [`Ad::rev_block`](crate::reverse::Ad) where they start.

use crate::batchnorm::BatchNorm;
use crate::reverse::Ad;
use crate::softmax::Softmax;
use crate::util::{writes, VarSet};
use adjc_ir::{Block, Stmt};

#[derive(Clone, Debug)]
pub(crate) enum Rule {
    Softmax(Softmax),
    BatchNorm(BatchNorm),
}

impl Rule {
    /// How many statements the rule covers.
    fn len(&self) -> usize {
        match self {
            Rule::Softmax(_) => 4,
            Rule::BatchNorm(_) => 5,
        }
    }
}

/// Every rule that applies at the top level of `body`, by the position of its first
/// statement.
pub(crate) fn find(body: &Block) -> Vec<(usize, Rule)> {
    let mut out: Vec<(usize, Rule)> =
        crate::softmax::find(body).into_iter().map(|(i, r)| (i, Rule::Softmax(r))).collect();
    out.extend(crate::batchnorm::find(body).into_iter().map(|(i, r)| (i, Rule::BatchNorm(r))));
    out.sort_by_key(|(i, _)| *i);
    out
}

impl Ad<'_> {
    /// Forward and reverse code of `rule` over the statements starting at `b[i]`, and how
    /// many statements it covers; `None` when it does not apply here.
    pub fn rev_expert(&mut self, rule: &Rule, b: &[Stmt], i: usize, live: &VarSet) -> Option<(usize, Block, Block)> {
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
        let (f, r) = match rule {
            Rule::Softmax(sm) => self.rev_softmax(sm, stmts)?,
            Rule::BatchNorm(bn) => self.rev_batchnorm(bn, stmts)?,
        };
        Some((stmts.len(), f, r))
    }
}
