//! What expression and statement rendering need to know about one function: C names, how
//! each variable is accessed, and which variables the generated code ends up mentioning
//! (to silence `-Wunused-parameter` for exactly the others).

use crate::layout::Access;
use crate::names::Names;
use adjc_ir::{Function, VarId};
use std::cell::RefCell;
use std::collections::BTreeSet;

pub(crate) struct FnCtx<'a> {
    pub f: &'a Function,
    pub names: &'a Names,
    pub access: Vec<Access>,
    /// Every variable whose name has been written into the generated code.
    used: RefCell<BTreeSet<VarId>>,
}

impl<'a> FnCtx<'a> {
    pub fn new(f: &'a Function, names: &'a Names) -> FnCtx<'a> {
        let access = crate::layout::access_table(f, names);
        FnCtx { f, names, access, used: RefCell::new(BTreeSet::new()) }
    }

    /// The C name of `v`, recording that the generated code mentions it.
    pub fn name(&self, v: VarId) -> &'a str {
        self.used.borrow_mut().insert(v);
        self.names.get(v)
    }

    pub fn access(&self, v: VarId) -> &Access {
        &self.access[v.index()]
    }

    pub fn used(&self) -> BTreeSet<VarId> {
        self.used.borrow().clone()
    }

    pub fn is_used(&self, v: VarId) -> bool {
        self.used.borrow().contains(&v)
    }
}
