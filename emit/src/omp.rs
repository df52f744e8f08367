//! OpenMP decisions, and where each scalar local is declared.
//!
//! * The outermost `Map` of a nest gets `#pragma omp parallel for` (through `ADJC_OMP`),
//!   with `collapse(k)` over its `k` dimensions. Maps inside it, even below a sequential
//!   loop, run inside that thread and get nothing. A map whose body pushes or pops a stack
//!   tape stays sequential (the tape's order matters); maps inside it may be parallel.
//! * Scalar locals written inside a map body are private to an iteration: they are declared
//!   at the top of the body of the parallel map around the write (or of the outermost map
//!   when none is parallel). A variable also used outside such maps is declared at the
//!   function's top as well.
//! * `shared` accumulations into a scalar declared outside the parallel map become
//!   `reduction(op:x)` clauses; into array elements or `out` scalars, `omp atomic` (or
//!   `omp critical` for max/min, which `atomic` cannot express).

use crate::ctx::FnCtx;
use adjc_ir::{walk_stmts, AccOp, Block, Function, Map, Place, Scalar, Stmt, StmtKind, VarId, VarRole};
use std::collections::{BTreeMap, BTreeSet};

/// Identifies a `Map` statement of the function being emitted (its address, stable while
/// the function is borrowed; only used for lookups, never iterated into the output).
pub(crate) type MapKey = usize;

pub(crate) fn key(m: &Map) -> MapKey {
    m as *const Map as usize
}

#[derive(Clone, Debug, Default)]
pub(crate) struct MapPlan {
    pub parallel: bool,
    /// Number of loops the pragma collapses (1: no clause).
    pub collapse: usize,
    /// Scalars combined across iterations by a reduction clause.
    pub reductions: BTreeMap<VarId, AccOp>,
    /// Scalars declared at the top of the body (iteration-private), in `VarId` order.
    pub private: Vec<VarId>,
    /// Why a map that could have been parallel is not.
    pub sequential_reason: Option<&'static str>,
}

/// How a `shared` accumulation is protected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sync {
    Plain,
    Atomic,
    Critical,
}

#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub maps: BTreeMap<MapKey, MapPlan>,
    /// Scalar locals declared at the top of the function, in `VarId` order.
    pub top: Vec<VarId>,
    /// Declarations (`None` = function top, `Some(map)` = that map's body) of variables that
    /// are never read there; they get `(void)x;` to keep `-Wunused-but-set-variable` quiet.
    pub unread: BTreeSet<(Option<MapKey>, VarId)>,
    owners: BTreeMap<VarId, BTreeSet<MapKey>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
    Shared(AccOp),
}

#[derive(Clone, Debug)]
struct Use {
    var: VarId,
    kind: Kind,
    /// Enclosing maps, outermost first.
    chain: Vec<MapKey>,
    parallel: Option<MapKey>,
}

struct Walker<'a> {
    f: &'a Function,
    stacks: &'a BTreeSet<VarId>,
    maps: BTreeMap<MapKey, MapPlan>,
    uses: Vec<Use>,
    chain: Vec<MapKey>,
    parallel: Option<MapKey>,
}

/// Whether `v` is a scalar local that the function declares itself.
pub(crate) fn is_scalar_local(f: &Function, stacks: &BTreeSet<VarId>, v: VarId) -> bool {
    let var = f.var(v);
    !var.ty.is_array() && var.role != VarRole::Index && !f.is_param(v) && !stacks.contains(&v)
}

fn uses_stack(b: &Block) -> bool {
    let mut found = false;
    walk_stmts(b, &mut |s| found |= matches!(s.kind, StmtKind::Push { .. } | StmtKind::Pop { .. }));
    found
}

impl Walker<'_> {
    fn record(&mut self, var: VarId, kind: Kind) {
        if is_scalar_local(self.f, self.stacks, var) {
            self.uses.push(Use { var, kind, chain: self.chain.clone(), parallel: self.parallel });
        }
    }

    fn block(&mut self, b: &[Stmt]) {
        for s in b {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        let mut reads = Vec::new();
        s.exprs(&mut |e| reads.extend(e.vars()));
        for v in reads {
            self.record(v, Kind::Read);
        }
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Pop { target, .. } if target.is_scalar() => {
                self.record(target.var, Kind::Write);
            }
            StmtKind::Accumulate { target, op, shared, .. } if target.is_scalar() => {
                self.record(target.var, if *shared { Kind::Shared(*op) } else { Kind::Write });
            }
            // A dot product into a scalar writes it (`s = cblas_ddot(...)`), and reads it
            // first unless `beta` is 0 (`s += ...`, `s = ... + beta * s`).
            StmtKind::Call(c) if !self.f.var(c.out).ty.is_array() => {
                if c.reads_out() {
                    self.record(c.out, Kind::Read);
                }
                self.record(c.out, Kind::Write);
            }
            StmtKind::Map(m) => {
                let k = key(m);
                let mut plan = MapPlan { collapse: 1, ..MapPlan::default() };
                if self.parallel.is_none() {
                    if uses_stack(&m.body) {
                        plan.sequential_reason = Some("its body uses a stack tape");
                    } else {
                        plan.parallel = true;
                        let own: Vec<VarId> = m.dims.iter().map(|d| d.var).collect();
                        let rectangular =
                            m.dims.iter().all(|d| own.iter().all(|v| !d.start.mentions(*v) && !d.stop.mentions(*v)));
                        if rectangular {
                            plan.collapse = m.dims.len();
                        }
                    }
                }
                let parallel = plan.parallel;
                self.maps.insert(k, plan);
                let saved = self.parallel;
                if parallel {
                    self.parallel = Some(k);
                }
                self.chain.push(k);
                self.block(&m.body);
                self.chain.pop();
                self.parallel = saved;
                return;
            }
            _ => {}
        }
        for b in s.blocks() {
            self.block(b);
        }
    }
}

/// Plans declarations and OpenMP clauses for `f`. `stacks` are its stack tapes.
pub(crate) fn analyse(f: &Function, stacks: &BTreeSet<VarId>) -> Plan {
    let mut w = Walker { f, stacks, maps: BTreeMap::new(), uses: Vec::new(), chain: Vec::new(), parallel: None };
    w.block(&f.body);
    let Walker { mut maps, uses, .. } = w;

    let mut owners: BTreeMap<VarId, BTreeSet<MapKey>> = BTreeMap::new();
    let mut top: BTreeSet<VarId> = BTreeSet::new();
    for u in uses.iter().filter(|u| u.kind == Kind::Write) {
        match u.parallel.or(u.chain.first().copied()) {
            Some(o) => {
                owners.entry(u.var).or_default().insert(o);
            }
            None => {
                top.insert(u.var);
            }
        }
    }
    let no_owner = BTreeSet::new();
    // The declaration a use refers to: the innermost owning map around it, or the top.
    let scope_of = |u: &Use| -> Option<MapKey> {
        let own = owners.get(&u.var).unwrap_or(&no_owner);
        u.chain.iter().rev().find(|m| own.contains(m)).copied()
    };
    let mut read_scopes: BTreeSet<(Option<MapKey>, VarId)> = BTreeSet::new();
    let mut clauses: BTreeMap<MapKey, BTreeMap<VarId, Option<AccOp>>> = BTreeMap::new();
    for u in &uses {
        let scope = scope_of(u);
        if scope.is_none() {
            top.insert(u.var);
        }
        match u.kind {
            Kind::Read => {
                read_scopes.insert((scope, u.var));
            }
            Kind::Shared(op) => {
                if let Some(p) = u.parallel {
                    let private_here = owners.get(&u.var).is_some_and(|o| o.contains(&p));
                    if !private_here {
                        let slot = clauses.entry(p).or_default().entry(u.var).or_insert(Some(op));
                        if *slot != Some(op) {
                            // Mixed operators cannot share one clause: fall back to atomics.
                            *slot = None;
                        }
                    }
                }
            }
            Kind::Write => {}
        }
    }
    for (p, vars) in clauses {
        if let Some(plan) = maps.get_mut(&p) {
            plan.reductions = vars.into_iter().filter_map(|(v, op)| Some((v, op?))).collect();
        }
    }
    let mut unread = BTreeSet::new();
    for (v, os) in &owners {
        for o in os {
            if let Some(plan) = maps.get_mut(o) {
                plan.private.push(*v);
            }
            if !read_scopes.contains(&(Some(*o), *v)) {
                unread.insert((Some(*o), *v));
            }
        }
    }
    for v in &top {
        if !read_scopes.contains(&(None, *v)) {
            unread.insert((None, *v));
        }
    }
    for plan in maps.values_mut() {
        plan.private.sort();
    }
    Plan { maps, top: top.into_iter().collect(), unread, owners }
}

impl Plan {
    pub fn map(&self, m: &Map) -> Option<&MapPlan> {
        self.maps.get(&key(m))
    }

    /// The protection a `shared` accumulation into `target` needs, inside the maps `chain`
    /// (outermost first) of which `parallel` carries the pragma.
    pub fn shared_update(
        &self,
        f: &Function,
        target: &Place,
        op: AccOp,
        chain: &[MapKey],
        parallel: Option<MapKey>,
    ) -> Sync {
        let Some(p) = parallel else { return Sync::Plain };
        if target.is_scalar() {
            let private = self.owners.get(&target.var).is_some_and(|o| chain.iter().any(|m| o.contains(m)));
            let reduced = self.maps.get(&p).is_some_and(|plan| plan.reductions.contains_key(&target.var));
            if private || reduced {
                return Sync::Plain;
            }
        }
        let ty = f.var(target.var).ty.elem();
        if matches!(op, AccOp::Add | AccOp::Mul) && ty != Scalar::Bool {
            Sync::Atomic
        } else {
            Sync::Critical
        }
    }

    /// The directive for a map, without `omp`: `parallel for collapse(2) reduction(+:s)`.
    pub fn pragma(&self, cx: &FnCtx, m: &Map) -> Option<String> {
        let plan = self.map(m)?;
        if !plan.parallel {
            return None;
        }
        let mut s = "parallel for".to_string();
        if plan.collapse > 1 {
            s.push_str(&format!(" collapse({})", plan.collapse));
        }
        let mut groups: BTreeMap<u8, (&str, Vec<&str>)> = BTreeMap::new();
        for (v, op) in &plan.reductions {
            let boolean = cx.f.var(*v).ty.elem() == Scalar::Bool;
            let (rank, sym) = match (op, boolean) {
                (AccOp::Add, _) => (0, "+"),
                (AccOp::Mul, _) => (1, "*"),
                (AccOp::Max, false) => (2, "max"),
                (AccOp::Min, false) => (3, "min"),
                (AccOp::Max, true) => (4, "||"),
                (AccOp::Min, true) => (5, "&&"),
            };
            groups.entry(rank).or_insert((sym, Vec::new())).1.push(cx.name(*v));
        }
        for (sym, vars) in groups.values() {
            s.push_str(&format!(" reduction({sym}:{})", vars.join(", ")));
        }
        Some(s)
    }
}
