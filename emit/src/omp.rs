//! OpenMP placement, and where each scalar local is declared.
//!
//! OpenMP costs a fork/join (a parallel region, ~0.3 µs at 1 thread, a few µs at 2) or a
//! barrier (worksharing inside a region) each time a parallel loop runs; gcc also stops
//! vectorising a `collapse`d nest. So placement is a cost decision, made per map from a
//! work estimate ([`crate::work`]: trip counts times the operations of the body, symbolic in
//! the sizes) compared with `ADJC_OMP_MIN_WORK` (`adjc_runtime.h`, [`MIN_WORK`] operations,
//! overridable with `-DADJC_OMP_MIN_WORK=...`):
//!
//! * **Hoisted regions.** A sequential loop (a time loop, forward or reversed) whose body
//!   holds maps gets one `parallel` region around the whole loop instead of one per map and
//!   iteration: every thread runs the loop (its variable is declared by the `for`, so
//!   private; its bounds read nothing the loop writes, so every thread runs the same
//!   iterations), each map in it is an `omp for` (its implicit barrier orders it with what
//!   follows; no `nowait`), and each run of other statements (scalars, tape reads, small or
//!   tape-popping maps, loops without maps) is one `omp single` (whose implicit barrier
//!   publishes the scalars it writes before any thread reads them). Inner sequential loops
//!   holding maps are run by every thread the same way. Not hoisted (per-map rules below)
//!   when the loop holds a stack push (its `goto` cannot leave a region), a library call
//!   (BLAS must not run inside a region: oversubscription), an allocation a memory plan
//!   places there (other arrays, a step's temporaries included, are allocated at the top of
//!   the function: their `Alloc` writes no code), or a map under an `if`; or when the
//!   average work per worksharing construct is a constant below the threshold. A loop whose
//!   `omp single` part loops over the arrays the worksharing loops share out, with work of
//!   the same order as theirs ([`migrates`]: durbin, seidel), is not hoisted and its maps
//!   stay sequential (it is emitted as the region's sequential copy). A worksharing
//!   loop that the next one does not depend on drops its barrier (`nowait`, with
//!   `schedule(static)` where both touch the same rows: [`crate::nowait`]).
//! * **Outermost maps** (not inside a sequential loop) are `parallel for` unless their work
//!   is a constant below the threshold (then they stay sequential and maps inside them are
//!   considered in turn, as inside a sequential loop).
//! * **Maps inside a sequential loop** (not hoisted): `parallel for` when the work is a
//!   constant above the threshold, sequential when below, and when it is only known at run
//!   time, two copies: `if (ADJC_OMP_PAYS(work)) { parallel } else { sequential }`. An
//!   `if` *clause* would not do: a region with `if(0)` still costs as much as a parallel one
//!   at 1 thread (measured 0.28 µs), which made cholesky's adjoint 7× slower.
//!   `ADJC_OMP_PAYS` is false at 1 thread and in builds without OpenMP, where the compiler
//!   drops the parallel copy. Hoisted regions with a run-time work estimate are guarded
//!   the same way.
//! * Maps inside a parallel map, or run by one thread (`omp single`), get nothing. A map
//!   whose body pushes or pops a stack tape stays sequential (the tape's order matters), and
//!   so does one that calls BLAS: no library call runs inside an adjc parallel region (a
//!   threaded BLAS there would oversubscribe the cores; see `runtime-c/adjc_blas.h`).
//! * **Clauses.** `collapse(2)` only when the outer trip count is a constant smaller than
//!   [`COLLAPSE_BELOW`] (too few iterations to share); `schedule(static, 1)` when inner
//!   bounds depend on an outer dimension of the map (triangular: balances the rows);
//!   `ADJC_OMP(simd)` on the innermost loop of a multi-dimensional parallel map when every
//!   access is unit-stride in it and the body has no inner loop, call, tape, shared update
//!   or scalar written outside the iteration — except accumulations into the map's own
//!   scalar reductions, which the inner loop carries as `simd reduction(op:x)` (a sum such
//!   as go_fast's `trace_b += ret_b[j, k]` is otherwise one scalar add chain per element).
//!   A sequential loop whose body is one sum into a scalar, or several updates of scalar sums
//!   and of array elements at the loop's own position (the reverse of a product's inner
//!   loop: syrk), carries `simd reduction` ([`reduction_loop_simd`]).
//!   A map kept sequential inside a parallel map gets `ADJC_OMP(simd)` on its innermost loop
//!   under the same conditions (lenet's convolution over channels): in the outlined
//!   function gcc no longer knows the arrays apart and versions the loop for aliasing.
//!   Scalars assigned only inside that map are named in a `private(...)` clause.
//! * Scalar locals written inside a map body are private to an iteration: they are declared
//!   at the top of the body of the parallel map around the write (or of the outermost map
//!   when none is parallel). A variable also used outside such maps is declared at the
//!   function's top as well (shared inside hoisted regions, written there only in `single`).
//! * `shared` accumulations into a scalar declared outside the parallel map become
//!   `reduction(op:x)` clauses; into array elements or `out` scalars, `omp atomic` (or
//!   `omp critical` for max/min, which `atomic` cannot express).

use crate::ctx::FnCtx;
use crate::work::{Estimator, Work};
use adjc_ir::{
    read_vars, walk_stmts, written_vars, AccOp, Block, Expr, ExprKind, Function, Layout, Loop, LoopId, Map, MapId,
    Place, Scalar, Stmt, StmtKind, Type, VarId, VarRole,
};
use std::collections::{BTreeMap, BTreeSet};

/// The default of `ADJC_OMP_MIN_WORK` (keep equal to `runtime-c/adjc_runtime.h`): the
/// operations a parallel loop must have to pay for its fork/join or barrier.
pub(crate) const MIN_WORK: f64 = 20000.0;

/// A map is collapsed when its outer trip count is a constant below this.
pub(crate) const COLLAPSE_BELOW: i64 = 16;

/// Identifies a `Map` of the function being emitted: its id (unique in a valid function).
pub(crate) type MapKey = MapId;

pub(crate) fn key(m: &Map) -> MapKey {
    m.id
}

pub(crate) fn loop_key(l: &Loop) -> LoopId {
    l.id
}

/// How a map runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Mode {
    #[default]
    Sequential,
    /// `parallel for`.
    Parallel,
    /// `parallel for` when `ADJC_OMP_PAYS(work)`, a sequential copy otherwise.
    Guarded,
    /// `for` inside a hoisted region.
    Workshare,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct MapPlan {
    pub mode: Mode,
    /// Number of loops the pragma collapses (1: no clause).
    pub collapse: usize,
    /// `ADJC_OMP(simd)` on the innermost loop.
    pub simd: bool,
    /// `schedule(static, 1)` for triangular maps.
    pub balanced: bool,
    /// A map decided inside a parallel map (it runs in the function OpenMP outlines).
    pub in_parallel: bool,
    /// `ADJC_OMP(simd)` on the innermost loop of such a map, sequential itself
    /// ([`nested_simd_safe`]).
    pub nested_simd: bool,
    /// Scalars that such a `simd` loop names `private`: assigned in every lane before they are
    /// read and used nowhere outside the map (declared by the enclosing parallel map).
    pub nested_private: Vec<VarId>,
    /// `nowait` on a worksharing loop the next one does not depend on ([`crate::nowait`]).
    pub nowait: bool,
    /// An explicit `schedule(static)`: the map shares its iterations with a neighbour in the
    /// same region exactly as that one does, which its `nowait` relies on ([`crate::nowait`]).
    pub same_schedule: bool,
    /// The work estimate (the guard of a `Guarded` map).
    pub work: Work,
    /// Scalars combined across iterations by a reduction clause.
    pub reductions: BTreeMap<VarId, AccOp>,
    /// Scalars declared at the top of the body (iteration-private), in `VarId` order.
    pub private: Vec<VarId>,
    /// Why a map that could have been parallel is not, or is guarded.
    pub note: Option<String>,
}

impl MapPlan {
    pub fn parallel(&self) -> bool {
        self.mode != Mode::Sequential
    }
}

/// A sequential loop with one parallel region around it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Region {
    /// Average work per worksharing construct, when only known at run time.
    pub guard: Option<Work>,
    /// Planned as a region but emitted as its sequential copy only, for this reason
    /// ([`migrates`]): the maps keep the clauses (`simd reduction`) that copy carries.
    pub sequential: Option<&'static str>,
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
    /// Hoisted loops (keyed by [`loop_key`]).
    pub regions: BTreeMap<LoopId, Region>,
    /// Sequential loops inside a hoisted region that every thread runs (they hold maps).
    pub region_loops: BTreeSet<LoopId>,
    /// Scalar locals declared at the top of the function, in `VarId` order.
    pub top: Vec<VarId>,
    /// Arrays a memory plan allocates in place (their `Alloc` writes code).
    pub placed: BTreeSet<VarId>,
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

/// Where the walk is.
#[derive(Clone, Copy, Debug, Default)]
struct At {
    /// Inside a sequential loop (or a map kept sequential).
    in_seq: bool,
    /// At the level of a hoisted region where maps are `omp for`.
    region: bool,
    /// Run by one thread (`omp single`) or inside a parallel map: no parallelism.
    serial: bool,
}

struct Walker<'a> {
    f: &'a Function,
    stacks: &'a BTreeSet<VarId>,
    /// Arrays a memory plan allocates where their `Alloc` stands (all others are allocated
    /// at the top of the function: their `Alloc` and `Free` write no code).
    placed: &'a BTreeSet<VarId>,
    maps: BTreeMap<MapKey, MapPlan>,
    regions: BTreeMap<LoopId, Region>,
    region_loops: BTreeSet<LoopId>,
    uses: Vec<Use>,
    chain: Vec<MapKey>,
    parallel: Option<MapKey>,
    at: At,
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

fn calls_library(b: &Block) -> bool {
    let mut found = false;
    walk_stmts(b, &mut |s| found |= matches!(s.kind, StmtKind::Call(_)));
    found
}

fn has_map(b: &Block) -> bool {
    let mut found = false;
    walk_stmts(b, &mut |s| found |= matches!(s.kind, StmtKind::Map(_)));
    found
}

fn stmt_has_map(s: &Stmt) -> bool {
    matches!(s.kind, StmtKind::Map(_)) || s.blocks().into_iter().any(has_map)
}

/// Whether a map's work needs no parallel region: a constant below the threshold.
fn too_small(w: &Work) -> bool {
    w.as_const().is_some_and(|c| c < MIN_WORK)
}

fn ops_note(w: &Work) -> String {
    format!(
        "sequential: too little work for a parallel region (about {} operations)",
        w.as_const().unwrap_or(0.0).round() as i64
    )
}

/// Whether `s` writes no code: the `Alloc` or `Free` of an array allocated at the top of the
/// function (every array a memory plan does not place). A temporary of a time-loop step
/// (vadv's `gav`, `acol`) is such an array: it must not keep the loop from being hoisted,
/// nor open an `omp single` of its own.
pub(crate) fn writes_no_code(s: &Stmt, placed: &BTreeSet<VarId>) -> bool {
    matches!(s.kind, StmtKind::Alloc(v) | StmtKind::Free(v) if !placed.contains(&v))
}

/// Checks a loop for a hoisted region (module docs): the loops inside that every thread
/// runs, and the work and number of worksharing / single constructs per iteration.
struct RegionCheck<'a> {
    f: &'a Function,
    placed: &'a BTreeSet<VarId>,
    written: BTreeSet<VarId>,
    est: Estimator,
    loops: Vec<LoopId>,
    total: Work,
    constructs: usize,
    maps: usize,
    /// Arrays the worksharing loops touch (each thread its own share of them).
    map_arrays: BTreeSet<VarId>,
    /// The work of the `omp single` runs, and the arrays their loops touch.
    single: Work,
    single_arrays: BTreeSet<VarId>,
    /// Arrays written anywhere in the loop (read-only sharing moves no cache line).
    written_arrays: BTreeSet<VarId>,
}

impl RegionCheck<'_> {
    fn level(&mut self, l: &Loop) -> bool {
        let bounds = [&l.start, &l.stop, &l.step];
        if bounds.iter().any(|e| e.vars().iter().any(|v| self.written.contains(v))) {
            return false;
        }
        let Some(step) = l.step.as_int() else { return false };
        // Trip counts inside are estimated over the range of the loop's variable.
        self.est.bind_loop(l.var, &l.start, &l.stop, step);
        let mut in_single = false;
        for s in &l.body {
            if writes_no_code(s, self.placed) {
                continue;
            }
            match &s.kind {
                StmtKind::Map(m) if !uses_stack(&m.body) => {
                    self.total.add(self.est.map(m));
                    self.constructs += 1;
                    self.maps += 1;
                    in_single = false;
                    let arrays = self.arrays(&m.body);
                    self.map_arrays.extend(arrays);
                    self.written_arrays.extend(written_vars(&m.body));
                }
                StmtKind::Loop(inner) if has_map(&inner.body) => {
                    if !self.level(inner) {
                        return false;
                    }
                    self.loops.push(loop_key(inner));
                    in_single = false;
                }
                _ => {
                    if !matches!(s.kind, StmtKind::Map(_)) && stmt_has_map(s) {
                        return false;
                    }
                    if !in_single {
                        self.constructs += 1;
                        in_single = true;
                    }
                    let one: Block = vec![s.clone()];
                    self.single.add(self.est.block(&one));
                    let mut loops = false;
                    walk_stmts(&one, &mut |x| loops |= matches!(x.kind, StmtKind::Loop(_)));
                    if loops {
                        let arrays = self.arrays(&one);
                        self.single_arrays.extend(arrays);
                    }
                    self.written_arrays.extend(written_vars(&one));
                }
            }
        }
        true
    }

    fn arrays(&self, b: &Block) -> Vec<VarId> {
        let mut all = read_vars(b);
        all.extend(written_vars(b));
        all.retain(|v| self.f.var(*v).ty.is_array());
        all
    }
}

/// Why a loop that could hold a parallel region is better run by one thread altogether.
///
/// Its `omp single` runs loop over arrays that the worksharing loops split between the
/// threads, with work of the same order as theirs: every iteration of the loop, the lines of
/// those arrays move to the core that runs the `single` and back (durbin's dot products over
/// the whole of `y`, seidel's row recurrence). Measured on durbin (N = 3160 to 9000): twice
/// slower at 2 threads than at 1, and no size where the region paid. Compared at sizes of
/// 2^16, where a `single` loop over a boundary row of a 2-D stencil is 1/65536 of the work.
/// The threshold, 1/32, is the cost of moving a cache line (~100 ns, 8 doubles) against the
/// operations a thread saves (~0.3 ns each): a `single` loop that touches a shared element
/// per 32 operations of the maps costs more in transfers than the second thread saves. That
/// holds while the arrays stay in the caches; a norm beside a stencil over arrays far larger
/// than the caches (memory-bound either way) would lose a little of its scaling.
fn migrates(check: &RegionCheck) -> bool {
    let n = 1 << 16;
    let (single, maps) = (check.single.at_size(n), check.total.at_size(n));
    let shared_written =
        check.single_arrays.iter().any(|v| check.map_arrays.contains(v) && check.written_arrays.contains(v));
    shared_written && maps > 0.0 && single * 32.0 >= maps
}

/// What a sequential loop holding maps gets.
enum RegionChoice {
    /// One region around the loop; the inner loops every thread runs.
    Hoisted(Region, Vec<LoopId>),
    /// No region: the per-map rules decide.
    PerMap,
    /// Everything in it sequential, for the reason given ([`migrates`]), planned as the
    /// sequential copy of a region.
    Sequential(&'static str, Vec<LoopId>),
}

/// The region around `l`, if it gets one, and the inner loops every thread runs.
fn region_of(f: &Function, l: &Loop, placed: &BTreeSet<VarId>) -> RegionChoice {
    let mut refused = false;
    walk_stmts(&l.body, &mut |s| {
        refused |= !writes_no_code(s, placed)
            && matches!(
                s.kind,
                StmtKind::Push { .. }
                    | StmtKind::Fail(_)
                    | StmtKind::Call(_)
                    | StmtKind::Alloc(_)
                    | StmtKind::Free(_)
                    | StmtKind::Section { .. }
            )
    });
    if refused {
        return RegionChoice::PerMap;
    }
    let written: BTreeSet<VarId> = written_vars(&l.body).into_iter().collect();
    let mut check = RegionCheck {
        f,
        placed,
        est: Estimator::new(written.iter().copied()),
        written,
        loops: Vec::new(),
        total: Work::default(),
        constructs: 0,
        maps: 0,
        map_arrays: BTreeSet::new(),
        single: Work::default(),
        single_arrays: BTreeSet::new(),
        written_arrays: BTreeSet::new(),
    };
    if !check.level(l) || check.maps == 0 {
        return RegionChoice::PerMap;
    }
    if migrates(&check) {
        return RegionChoice::Sequential(
            "sequential: each iteration runs a loop on one thread over the arrays its parallel loops would \
             share out, so their cache lines would move between the cores every iteration",
            check.loops,
        );
    }
    let avg = check.total.scaled(1.0 / check.constructs as f64);
    if too_small(&avg) {
        return RegionChoice::PerMap;
    }
    let guard = if avg.as_const().is_some() { None } else { Some(avg) };
    RegionChoice::Hoisted(Region { guard, sequential: None }, check.loops)
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

    fn with<R>(&mut self, at: At, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.at;
        self.at = at;
        let r = f(self);
        self.at = saved;
        r
    }

    /// The mode of a map met outside any parallel map.
    fn decide(&mut self, m: &Map) -> MapPlan {
        let mut plan = MapPlan { collapse: 1, in_parallel: self.parallel.is_some(), ..MapPlan::default() };
        if self.parallel.is_some() || self.at.serial {
            return plan;
        }
        if uses_stack(&m.body) {
            plan.note = Some("sequential: its body uses a stack tape".into());
            return plan;
        }
        if calls_library(&m.body) {
            // A multithreaded BLAS inside a parallel loop would oversubscribe the cores.
            plan.note = Some("sequential: its body calls BLAS, which has threads of its own".into());
            return plan;
        }
        let written = written_vars(&m.body);
        plan.work = Estimator::new(written).map(m);
        if self.at.region {
            plan.mode = Mode::Workshare;
        } else if too_small(&plan.work) {
            plan.note = Some(ops_note(&plan.work));
        } else if !self.at.in_seq || plan.work.as_const().is_some() {
            plan.mode = Mode::Parallel;
        } else {
            plan.mode = Mode::Guarded;
            plan.note = Some(
                "parallel only when its work pays for a parallel region (ADJC_OMP_PAYS); the copy after `else` is the same loop, sequential"
                    .into(),
            );
        }
        if plan.parallel() {
            let own: Vec<VarId> = m.dims.iter().map(|d| d.var).collect();
            let rectangular = m.dims.iter().all(|d| own.iter().all(|v| !d.start.mentions(*v) && !d.stop.mentions(*v)));
            plan.balanced = !rectangular;
            let outer_trip = m.dims.first().and_then(|d| d.stop.clone().sub(d.start.clone()).as_int());
            if rectangular && m.dims.len() >= 2 && outer_trip.is_some_and(|n| n < COLLAPSE_BELOW) {
                plan.collapse = 2;
            }
        }
        plan
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
                let plan = self.decide(m);
                let parallel = plan.parallel();
                let sequential_here = plan.mode == Mode::Sequential && self.parallel.is_none();
                self.maps.insert(k, plan);
                let saved = self.parallel;
                if parallel {
                    self.parallel = Some(k);
                }
                self.chain.push(k);
                let at = if self.at.region && !parallel {
                    // A tape-popping map of a hoisted region runs in `omp single`.
                    At { serial: true, ..self.at }
                } else if sequential_here {
                    At { in_seq: true, region: false, ..self.at }
                } else {
                    At { region: false, ..self.at }
                };
                self.with(at, |w| w.block(&m.body));
                self.chain.pop();
                self.parallel = saved;
                return;
            }
            StmtKind::Loop(l) => {
                let k = loop_key(l);
                if self.at.region && self.region_loops.contains(&k) {
                    self.block(&l.body);
                    return;
                }
                if self.at.region {
                    // A loop without maps inside a hoisted region: one thread runs it.
                    self.with(At { serial: true, region: false, ..self.at }, |w| w.block(&l.body));
                    return;
                }
                if self.parallel.is_none() && !self.at.serial {
                    match region_of(self.f, l, self.placed) {
                        RegionChoice::Hoisted(region, loops) => {
                            self.regions.insert(k, region);
                            self.region_loops.extend(loops);
                            self.with(At { in_seq: true, region: true, serial: false }, |w| w.block(&l.body));
                            return;
                        }
                        RegionChoice::Sequential(why, loops) => {
                            self.regions.insert(k, Region { guard: None, sequential: Some(why) });
                            self.region_loops.extend(loops);
                            self.with(At { in_seq: true, region: true, serial: false }, |w| w.block(&l.body));
                            return;
                        }
                        RegionChoice::PerMap => {}
                    }
                }
                self.with(At { in_seq: true, ..self.at }, |w| w.block(&l.body));
                return;
            }
            _ => {}
        }
        if self.at.region {
            // Other statements of a hoisted region run in `omp single`.
            self.with(At { serial: true, region: false, ..self.at }, |w| {
                for b in s.blocks() {
                    w.block(b);
                }
            });
            return;
        }
        for b in s.blocks() {
            self.block(b);
        }
    }
}

/// Whether `v` appears in `e` only as `v`, `v + c` or `v - c` (`c` free of `v`).
fn unit_in(e: &Expr, v: VarId) -> bool {
    use adjc_ir::BinOp;
    match &e.kind {
        ExprKind::Var(x) => *x == v,
        ExprKind::Binary(BinOp::Add, a, b) => (unit_in(a, v) && !b.mentions(v)) || (unit_in(b, v) && !a.mentions(v)),
        ExprKind::Binary(BinOp::Sub, a, b) => unit_in(a, v) && !b.mentions(v),
        _ => false,
    }
}

/// Whether `v` appears in `e` only as `c - v` (`c` free of `v`), plus or minus terms free of
/// `v`: a reversed unit-stride access such as durbin's `y[k - i - 1]`, which vectorises
/// with a lane permutation.
fn reversed_in(e: &Expr, v: VarId) -> bool {
    use adjc_ir::BinOp;
    match &e.kind {
        ExprKind::Binary(BinOp::Sub, a, b) => {
            (!a.mentions(v) && unit_in(b, v)) || (reversed_in(a, v) && !b.mentions(v))
        }
        ExprKind::Binary(BinOp::Add, a, b) => {
            (reversed_in(a, v) && !b.mentions(v)) || (reversed_in(b, v) && !a.mentions(v))
        }
        _ => false,
    }
}

/// `simd reduction(op:x)` for a sequential loop whose whole body is one accumulation into a
/// scalar local `x` (several statements: [`updates_loop_simd`]) (`dot += r[k - i - 1] * y[i]`, a frontend `np.dot` or `sum`): without
/// it the sum is one add chain, 4 cycles an element (durbin's forward spends a third of its
/// time there). Safe because the loop writes nothing but `x` and the value does not read
/// `x`: the iterations differ only in the order of the sum, which `simd` may reassociate
/// (NumPy's own sums are pairwise or blocked, never left to right). Not for a `shared`
/// accumulation inside a parallel map (that one needs an atomic), a product, max or min (only
/// sums: the chains measured), a boolean, an `out` scalar (`(*x)` cannot be a clause's list item) or a loop whose step is not ±1.
pub(crate) fn reduction_loop_simd(cx: &FnCtx, l: &Loop, in_parallel: bool) -> Option<String> {
    if l.body.len() > 1 {
        return updates_loop_simd(cx, l, in_parallel);
    }
    let [stmt] = l.body.as_slice() else { return None };
    let StmtKind::Accumulate { target, op, value, shared } = &stmt.kind else { return None };
    let scalar_local = target.is_scalar()
        && matches!(cx.access(target.var), crate::layout::Access::Value)
        && cx.f.var(target.var).ty.elem() != Scalar::Bool;
    let step_one = matches!(l.step.as_int(), Some(1) | Some(-1));
    let reads_self = value.mentions(target.var) || l.stop.mentions(target.var) || l.start.mentions(target.var);
    if *op != AccOp::Add || !scalar_local || !step_one || reads_self || (*shared && in_parallel) {
        return None;
    }
    let one = BTreeMap::from([(target.var, *op)]);
    Some(format!("simd{}", reduction_clauses(cx, &one)))
}

/// `simd reduction(+:x, ...)` for a sequential loop of several updates, each a sum into a
/// scalar local or an update of an array element at the loop's own position: the reverse
/// of a product's inner loop, `alpha_b += A[j, k] * A[i, k] * C_b[i, j]; A_b[i, k] += ...;
/// A_b[j, k] += ...` (syrk, syr2k). Without the pragma the scalar sum keeps the whole loop
/// scalar. Safe when no two iterations touch the same element: every access of an array the
/// loop writes has the same index along the array's contiguous axis, `k` or `k + c` (or
/// reversed), and leaves `k` out of the other axes; the scalar sums are read nowhere in the
/// loop. Within an iteration `simd` keeps the statements' order (`A_b[i, k]` and
/// `A_b[j, k]` may be one element when `i == j`: both updates land, in order).
fn updates_loop_simd(cx: &FnCtx, l: &Loop, in_parallel: bool) -> Option<String> {
    let f = cx.f;
    let v = l.var;
    if !matches!(l.step.as_int(), Some(1) | Some(-1))
        || trip_literal(&l.start, &l.stop).is_some_and(|n| n.checked_abs().is_some_and(|n| n < 4))
    {
        return None;
    }
    let fast = |var: VarId, index: &[Expr]| -> Option<usize> {
        let Type::Array { layout, .. } = &f.var(var).ty else { return None };
        Some(match layout {
            Layout::RowMajor => index.len().checked_sub(1)?,
            Layout::ColMajor => 0,
        })
    };
    let mut sums: BTreeMap<VarId, AccOp> = BTreeMap::new();
    let mut written: BTreeSet<VarId> = BTreeSet::new();
    for s in &l.body {
        match &s.kind {
            StmtKind::Accumulate { target, op: AccOp::Add, shared, .. } if target.is_scalar() => {
                let local = matches!(cx.access(target.var), crate::layout::Access::Value)
                    && f.var(target.var).ty.elem() != Scalar::Bool;
                if !local || (*shared && in_parallel) {
                    return None;
                }
                sums.insert(target.var, AccOp::Add);
            }
            StmtKind::Accumulate { target, shared: false, .. } | StmtKind::Assign { target, .. }
                if !target.is_scalar() =>
            {
                written.insert(target.var);
            }
            _ => return None,
        }
    }
    // The one index along the contiguous axis of each written array, checked on every access.
    let mut position: BTreeMap<VarId, adjc_ir::proc::affine::Affine> = BTreeMap::new();
    let mut access = |var: VarId, index: &[Expr]| -> bool {
        if sums.contains_key(&var) {
            return false;
        }
        let Some(axis) = fast(var, index) else { return true };
        let along = &index[axis];
        let others_free = index.iter().enumerate().all(|(k, e)| k == axis || !e.mentions(v));
        if !written.contains(&var) {
            return others_free && (unit_in(along, v) || reversed_in(along, v) || !along.mentions(v));
        }
        if !others_free || !(unit_in(along, v) || reversed_in(along, v)) {
            return false;
        }
        let Some(along) = adjc_ir::proc::affine::Affine::linear(along) else { return false };
        match position.get(&var) {
            Some(p) => p.same_value(&along),
            None => {
                position.insert(var, along);
                true
            }
        }
    };
    let mut ok = true;
    for s in &l.body {
        if let StmtKind::Accumulate { target, .. } | StmtKind::Assign { target, .. } = &s.kind {
            if !target.is_scalar() {
                ok &= access(target.var, &target.index);
            }
        }
        let mut loads = Vec::new();
        s.exprs(&mut |e| {
            e.walk(&mut |x| match &x.kind {
                ExprKind::Load(a, idx) => loads.push((*a, idx.clone())),
                ExprKind::Var(u) => ok &= !sums.contains_key(u),
                _ => {}
            })
        });
        for (a, idx) in loads {
            ok &= access(a, &idx);
        }
    }
    let bounds_read_sums = sums.keys().any(|x| l.start.mentions(*x) || l.stop.mentions(*x));
    if !ok || bounds_read_sums || sums.is_empty() {
        return None;
    }
    Some(format!("simd{}", reduction_clauses(cx, &sums)))
}

/// Whether the innermost loop of `m` can carry `omp simd` (module docs). `private` are the
/// scalars declared in its body; `reductions` the map's reduction clauses: a shared `+=`,
/// `*=`, `max=` or `min=` into one of them (not boolean) becomes a `simd reduction` too.
fn simd_safe(f: &Function, m: &Map, private: &[VarId], reductions: &BTreeMap<VarId, AccOp>) -> bool {
    // A one-dimensional map is vectorised by gcc anyway, except for a scalar reduction:
    // without `simd reduction` its strict left-to-right sum is one add chain (shallow_water's
    // `dt_b += ...`: 4 cycles an element). So 1-D maps carry `simd` only with reductions.
    if m.dims.len() < 2 && reductions.is_empty() {
        return false;
    }
    lanes_independent(f, m, private, reductions)
}

/// Whether the innermost loop of `m`, a map kept sequential inside a parallel map, can carry
/// `omp simd`. Inside the function OpenMP outlines, gcc sees the arrays as pointers loaded
/// from a struct, no longer as distinct allocations, and versions a short inner loop with
/// run-time alias checks on every entry (lenet's convolution: `out[k, i, j, l] += in[...] *
/// w[..., l]` over 6 channels, entered 25 times per output pixel, made the `-fopenmp` build
/// at one thread 40% slower than the serial one). A map's iterations are independent by
/// construction, so the pragma states what adjc knows and gcc cannot prove. `private`: the
/// scalars assigned only inside `m` ([`confined_scalars`]).
fn nested_simd_safe(f: &Function, m: &Map, private: &[VarId]) -> bool {
    lanes_independent(f, m, private, &BTreeMap::new())
}

/// Scalars every use of which lies inside one map, keyed by the maps that hold all their
/// uses. Such a scalar is private to an iteration of each of those maps: an iteration cannot
/// read a value another wrote (a map's iterations are independent by construction), so it
/// assigns the scalar before reading it.
fn confined_scalars(f: &Function, uses: &[Use]) -> BTreeMap<MapKey, Vec<VarId>> {
    let mut common: BTreeMap<VarId, BTreeSet<MapKey>> = BTreeMap::new();
    let mut written: BTreeSet<VarId> = BTreeSet::new();
    let mut accumulated: BTreeSet<VarId> = BTreeSet::new();
    for u in uses {
        if !matches!(f.var(u.var).ty, Type::Scalar(_)) {
            continue;
        }
        match u.kind {
            Kind::Write => {
                written.insert(u.var);
            }
            Kind::Shared(_) => {
                accumulated.insert(u.var);
            }
            Kind::Read => {}
        }
        let chain: BTreeSet<MapKey> = u.chain.iter().copied().collect();
        match common.get_mut(&u.var) {
            Some(c) => c.retain(|k| chain.contains(k)),
            None => {
                common.insert(u.var, chain);
            }
        }
    }
    let mut out: BTreeMap<MapKey, Vec<VarId>> = BTreeMap::new();
    for (v, maps) in common {
        if written.contains(&v) && !accumulated.contains(&v) {
            for k in maps {
                out.entry(k).or_default().push(v);
            }
        }
    }
    out
}

/// Whether the innermost loop of `m` vectorises lane by lane: unit-stride writes (forwards or
/// reversed), reads unit-stride or free of its variable, no inner loop, call or tape, and no
/// scalar written but the `private` ones and the `reductions`.
fn lanes_independent(f: &Function, m: &Map, private: &[VarId], reductions: &BTreeMap<VarId, AccOp>) -> bool {
    let Some(inner) = m.dims.last() else { return false };
    let v = inner.var;
    if m.dims.iter().any(|d| d.var != v && (d.start.mentions(v) || d.stop.mentions(v))) {
        return false;
    }
    // An inner loop of fewer iterations than a vector has lanes, known at compile time (a
    // halo of two columns, `j = N - 2; j < N`), gains nothing from a vector loop: no pragma.
    if trip_literal(&inner.start, &inner.stop).is_some_and(|n| n < 4) {
        return false;
    }
    // Reads may leave `v` out of the index (a value broadcast along the loop); writes must
    // follow it (each lane its own element), forwards or reversed (`y_b[k - i - 1]`: each
    // lane still its own element, stored with a lane permutation).
    let contiguous_ok = |var: VarId, index: &[Expr], write: bool| -> bool {
        let Type::Array { layout, .. } = &f.var(var).ty else { return true };
        let fast = match layout {
            Layout::RowMajor => index.len().saturating_sub(1),
            Layout::ColMajor => 0,
        };
        index.iter().enumerate().all(|(k, e)| {
            if k == fast {
                unit_in(e, v) || reversed_in(e, v) || (!write && !e.mentions(v))
            } else {
                !e.mentions(v)
            }
        })
    };
    let mut ok = true;
    walk_stmts(&m.body, &mut |s| {
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, shared: false, .. } => {
                if target.is_scalar() {
                    ok &= private.contains(&target.var);
                } else {
                    ok &= contiguous_ok(target.var, &target.index, true);
                }
            }
            StmtKind::Accumulate { target, shared: true, op, .. } => {
                ok &= target.is_scalar()
                    && reductions.get(&target.var) == Some(op)
                    && f.var(target.var).ty.elem() != Scalar::Bool;
            }
            StmtKind::If { .. } => {}
            _ => ok = false,
        }
        s.exprs(&mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Load(a, idx) = &x.kind {
                    ok &= contiguous_ok(*a, idx, false);
                }
            })
        });
    });
    ok
}

/// Plans declarations and OpenMP placement for `f`. `stacks` are its stack tapes.
/// `placed` are the arrays a memory plan allocates in place.
pub(crate) fn analyse(f: &Function, stacks: &BTreeSet<VarId>, placed: &BTreeSet<VarId>) -> Plan {
    let mut w = Walker {
        f,
        stacks,
        placed,
        maps: BTreeMap::new(),
        regions: BTreeMap::new(),
        region_loops: BTreeSet::new(),
        uses: Vec::new(),
        chain: Vec::new(),
        parallel: None,
        at: At::default(),
    };
    w.block(&f.body);
    let Walker { mut maps, uses, regions, region_loops, .. } = w;

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
    // `simd` needs the private scalars: decided last, on the maps themselves.
    let confined = confined_scalars(f, &uses);
    let none: Vec<VarId> = Vec::new();
    let mut simd = BTreeSet::new();
    let mut nested: BTreeMap<MapKey, Vec<VarId>> = BTreeMap::new();
    walk_stmts(&f.body, &mut |s| {
        if let StmtKind::Map(m) = &s.kind {
            if let Some(plan) = maps.get(&key(m)) {
                if plan.parallel() && plan.collapse == 1 && simd_safe(f, m, &plan.private, &plan.reductions) {
                    simd.insert(key(m));
                }
                let private = confined.get(&key(m)).unwrap_or(&none);
                if !plan.parallel() && plan.in_parallel && nested_simd_safe(f, m, private) {
                    nested.insert(key(m), private.clone());
                }
            }
        }
    });
    for k in simd {
        if let Some(plan) = maps.get_mut(&k) {
            plan.simd = true;
        }
    }
    for (k, private) in nested {
        if let Some(plan) = maps.get_mut(&k) {
            plan.nested_simd = true;
            plan.nested_private = private;
        }
    }
    Plan { maps, regions, region_loops, top: top.into_iter().collect(), placed: placed.clone(), unread, owners }
}

impl Plan {
    pub fn map(&self, m: &Map) -> Option<&MapPlan> {
        self.maps.get(&key(m))
    }

    pub fn region(&self, l: &Loop) -> Option<&Region> {
        self.regions.get(&loop_key(l))
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

    /// The directive for a map, without `omp`: `parallel for reduction(+:s)`, or `for ...`
    /// inside a hoisted region.
    pub fn pragma(&self, cx: &FnCtx, m: &Map) -> Option<String> {
        let plan = self.map(m)?;
        let mut s = match plan.mode {
            Mode::Sequential => return None,
            Mode::Parallel | Mode::Guarded => "parallel for".to_string(),
            Mode::Workshare => "for".to_string(),
        };
        if plan.collapse > 1 {
            s.push_str(&format!(" collapse({})", plan.collapse));
        }
        if plan.balanced {
            s.push_str(" schedule(static, 1)");
        } else if plan.same_schedule {
            s.push_str(" schedule(static)");
        }
        if plan.simd && m.dims.len() == 1 {
            // One loop: the worksharing loop is also the vector loop (`for simd`), whose
            // reduction clause covers both the threads and the lanes.
            s.push_str(" simd");
        }
        s.push_str(&reduction_clauses(cx, &plan.reductions));
        if plan.nowait {
            s.push_str(" nowait");
        }
        Some(s)
    }

    /// The directive on the innermost loop of a map that carries `simd`: `simd`, with the
    /// map's reductions when its body accumulates into them (each lane its own partial sum).
    pub fn simd_pragma(&self, cx: &FnCtx, m: &Map) -> String {
        let Some(plan) = self.map(m) else { return "simd".into() };
        let mut inner: BTreeMap<VarId, AccOp> = BTreeMap::new();
        walk_stmts(&m.body, &mut |s| {
            if let StmtKind::Accumulate { target, shared: true, .. } = &s.kind {
                if let Some(op) = plan.reductions.get(&target.var) {
                    inner.insert(target.var, *op);
                }
            }
        });
        format!("simd{}", reduction_clauses(cx, &inner))
    }
}

/// ` reduction(+:s, t) reduction(max:m)` for the reductions of a map, grouped by operator in
/// a fixed order.
fn reduction_clauses(cx: &FnCtx, reductions: &BTreeMap<VarId, AccOp>) -> String {
    let mut s = String::new();
    {
        let mut groups: BTreeMap<u8, (&str, Vec<&str>)> = BTreeMap::new();
        for (v, op) in reductions {
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
    }
    s
}

/// The trip count `stop - start` of a unit-step loop when it is the same at every size
/// (`N - (N - 2)` is 2).
fn trip_literal(start: &Expr, stop: &Expr) -> Option<i64> {
    use adjc_ir::proc::affine::Affine;
    Affine::linear(stop)?.checked_add(&Affine::linear(start)?.checked_scale(-1)?)?.as_const()
}
