//! # The adjc intermediate representation
//!
//! The IR is the contract between the stages of adjc:
//!
//! ```text
//!   frontend (Python, Fortran) ──► Module ──► autodiff ──► Module ──► emit (C + OpenMP)
//!                                     ▲                       ▲
//!                                validate()              validate()
//! ```
//!
//! A [`Module`] holds the [`Function`]s read from one source file, together with the
//! source text so that later stages can quote source lines in comments. Nothing in the IR
//! knows which language it came from: Python slices, NumPy broadcasting, Fortran sections
//! and `do` loops are all lowered to the same element-level statements.
//! What a statement is for its reader (a tape save, a restore, a recomputation, ...) is
//! its [`Note`] ([`note`]): data, worded in one place and printed by both printers.
//!
//! ## Central types
//!
//! * [`Function`]: a signature ([`Param`]s, in C order: extra size parameters first, then
//!   source parameters, then output parameters) and a body ([`Block`]). Every variable of
//!   the function — parameters, locals, loop indices, temporaries, tapes — lives in the
//!   function's variable arena `vars` and is named by a [`VarId`]. A `VarId` is only
//!   meaningful inside the function that owns it.
//! * [`Assumption`]s of a function: preconditions on the sizes only known at run time
//!   (`K == M` for `A @ x`, `m <= n` for `x[i + 1]` in `range(m)` with `x` of extent `n`),
//!   checked on entry by the generated code, which returns a shape error code before
//!   anything is written when one does not hold.
//! * [`Type`]: either a [`Scalar`] (`f32`, `f64`, `i64`, `bool`) or an array of scalars
//!   with a **symbolic shape**: one [`Dim`] per axis, each a lower bound and an extent, both
//!   integer [`Expr`]s over size parameters and integer parameters (never over loop
//!   indices or mutable locals). NumPy arrays have lower bound 0 and [`Layout::RowMajor`];
//!   Fortran arrays keep their declared lower bounds and use [`Layout::ColMajor`].
//!   Indices in the IR are always *source* indices: `a(i)` with `a(0:n)` is indexed by `i`,
//!   and the backend subtracts the lower bound.
//! * [`Expr`]: a scalar-valued expression tree with a result type and a [`Span`].
//!   Array-valued computation does not exist at this level: whole-array arithmetic is
//!   lowered by the frontend to a [`Map`] whose body computes one element.
//! * [`Stmt`]: structured statements.
//!   - [`StmtKind::Assign`] writes one scalar variable or one array element;
//!   - [`StmtKind::Accumulate`] combines into one place with `+`, `*`, `max` or `min`;
//!     `shared` says that other iterations of an enclosing [`Map`] may update the same
//!     place, so the backend must use a reduction or an atomic update;
//!   - [`StmtKind::Loop`] is a *sequential* loop with Python `range` semantics
//!     (`start`, `stop` exclusive, `step` of any sign, bounds evaluated once on entry);
//!   - [`StmtKind::While`] is a sequential loop whose trip count is only known at run time
//!     (`while`, `do while`, a `do` left by `exit`): its `bool` condition is evaluated
//!     before every iteration. `break` / `exit`, `continue` / `cycle` and `return` do not
//!     exist as statements: frontends lower them to `bool` flags with
//!     [`proc::jumps`] (the loop's condition tests `!brk`, the rest of a body runs under
//!     `if (!cont)`, a counted loop left early skips its remaining iterations under
//!     `if (!brk)`), so later stages see only loops, `while`s and `if`s;
//!   - [`StmtKind::Map`] is a *parallel* loop nest over a rectangular index space with unit
//!     steps: iterations are independent except for `shared` accumulations;
//!   - [`StmtKind::If`], [`StmtKind::Alloc`] / [`StmtKind::Free`] of local arrays,
//!     [`StmtKind::Call`] of BLAS-style library operations ([`LibCall`]: gemm, gemv, dot,
//!     ger on [`View`]s of arrays, so slices are passed without copies), stack tapes
//!     ([`StmtKind::Push`] / [`StmtKind::Pop`]), labelled [`StmtKind::Section`]s, and
//!     [`StmtKind::Fail`] (return an error code: a `--fixed-point` adjoint iteration that
//!     did not converge, a Fortran `stop`; never inside a map).
//!
//! ## Invariants (checked by [`validate::validate`])
//!
//! 1. Every `VarId` used in a function indexes its `vars` arena.
//! 2. `Expr::ty` is the type its operands produce (see [`ExprKind`] for the rules); indices,
//!    loop bounds and extents are `i64`; conditions are `bool`.
//! 3. An array is only used through [`ExprKind::Load`] / [`Place`] with exactly one index
//!    per dimension; a scalar only through [`ExprKind::Var`] / a place without indices.
//! 4. Loop and map index variables are bound by exactly one loop or map, are only used
//!    inside it, and are never assigned.
//! 5. A `Map` body does not read a location that another iteration of the same map
//!    writes (the frontend introduces a temporary when NumPy semantics require the old
//!    values, as in `A[1:] = A[:-1]`). Accumulations marked `shared` are exempt.
//! 6. Local arrays are `Alloc`ated before use; shapes only depend on parameters. The C
//!    backend hoists an `Alloc` / `Free` at the top level of a function body (allocated on
//!    entry, freed on return) and runs one inside a [`StmtKind::Section`] where it stands
//!    (memory plans give arrays their lifetimes this way; an array may then be allocated
//!    and freed more than once).
//! 7. Both sides of every [`Assumption`] are `i64` expressions over parameters; its guard,
//!    if any, a `bool` expression over parameters.
//!
//! 8. Every [`Loop`] and [`While`] of a function has its own [`LoopId`] (they share the
//!    numbering) and every [`Map`] its own [`MapId`] (none is [`LoopId::NEW`] /
//!    [`MapId::NEW`]); see "Identities".
//! 9. A [`While`]'s condition is `bool`. A `While` may stand inside a [`Map`] body (each
//!    iteration of the map runs its own data-dependent loop, as Newton's method per grid
//!    point); whatever it writes follows the map rules like any statement's.
//!
//! ## Identities
//!
//! Loops and maps are named by small typed ids, never by their addresses: `L3` is the loop
//! `--emit ir` prints as `L3: loop ...`, the one `--checkpoint L3=every:4` and the memory
//! plan's report name. The rule:
//!
//! * **Unique per function, per kind**: no two loops of one function share a `LoopId`, no
//!   two maps a `MapId` (a loop and a map may both be number 3). Ids mean nothing across
//!   functions.
//! * **Frontends assign** them in source order: every loop and map is built with
//!   [`LoopId::NEW`] / [`MapId::NEW`], and the finished function is numbered by
//!   [`proc::ids::settle`], which numbers in pre-order (program order, outer before inner)
//!   from 0. So `L0` is the first loop of the source (after inlining, calls included).
//! * **Passes keep what they keep**: an IR → IR pass that keeps a loop or map (rebuilt with
//!   `..l.clone()`, or moved) keeps its id; one it creates gets `NEW`; one it copies (a
//!   re-run of a body in the reverse sweep, a recomputation) keeps the id in the copy for
//!   the time being. Before returning, the pass calls [`proc::ids::settle`]: the first
//!   occurrence of an id in pre-order keeps it, every later copy and every `NEW` gets a
//!   fresh id above the largest in use. Hence the forward sweep of an adjoint keeps the
//!   primal's ids and the reversed loops get new ones, and a loop that `parallelize`
//!   leaves sequential is still `L3` in the function `reverse` sees.
//! * Analyses key tables by id, and may assume uniqueness of their *input* (valid IR); a
//!   pass must not key by id the IR it is building before settling it.
//!
//! ## Names
//!
//! [`Var::name`] is what a reviewer reads in the C, so it says what the variable holds:
//!
//! * **Frontends choose** it where the meaning is known, and make the names of a function
//!   unique (loop indices of loops never nested in each other may share one) before
//!   returning it: source names are kept; a temporary is named after the operation and the
//!   source expression's variables (`sum_A_x`, `xw2`), never like a source identifier; a
//!   helper's variables are qualified by their call when the name is wanted twice
//!   (`relu1_x`); a later value of a reassigned variable is named after the call that
//!   computed it (`relu2` for `x = relu(x @ w2 + b2)`); numbered `_k` suffixes are the last
//!   resort (Python: `frontend/src/python/var_names.rs`).
//! * **Passes derive** the names of what they add from the variable it belongs to
//!   (`relu2_b`, `relu2_tape`) through [`Function::fresh_name`], which keeps them unique.
//! * **The C backend** only fixes what C or C++ cannot take (reserved words and prefixes,
//!   non-ASCII letters), listed in the generated header (`emit/src/names.rs`).
//!
//! ## Who produces and consumes what
//!
//! * Frontends produce a `Module` with *primal* functions. They own all source syntax and
//!   report unsupported constructs as [`Diagnostic`]s with spans; they never panic.
//! * `autodiff` consumes a primal `Function` and produces a new `Function` (the adjoint,
//!   conventionally suffixed `_b`) in the same IR: adjoint variables are ordinary
//!   variables with [`VarRole::Adjoint`], tapes are ordinary local arrays (or stack tapes).
//! * IR → IR passes (in `autodiff`, run by the command line): `parallelize` turns loops
//!   with provably independent iterations into maps, `split` turns colliding adjoint
//!   updates into maps whose iterations own their writes, `shadow` keeps scalar outputs
//!   in locals inside loops. Each takes a valid function and returns an equivalent one.
//! * `emit` consumes any valid `Function` and renders C; it never sees source syntax, only
//!   spans (to quote source lines) and names.
//! * Every stage is a pure function of its input. [`print::print_module`] gives the stable
//!   text form used by `adjc transpile --emit ir` and by snapshot tests.

pub mod diag;
pub mod eval;
pub mod note;
pub mod print;
pub mod proc;
#[cfg(feature = "testing")]
pub mod testing;
pub mod validate;
mod visit;

pub use diag::Diagnostic;
pub use note::{Line, Note, Overwriter, Reducer};
pub use proc::access::{read_vars, written_vars};
pub use visit::*;

use std::fmt;

/// A position in the source file: 1-based line and column of the first character, plus
/// the byte range. Spans are carried by every expression and statement so that every
/// stage can point back at the source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub line: u32,
    pub col: u32,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const NONE: Span = Span { line: 0, col: 0, start: 0, end: 0 };
    pub fn is_none(&self) -> bool {
        self.line == 0
    }
}

/// Element types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    Bool,
    I64,
    F32,
    F64,
}

impl Scalar {
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I64 => "i64",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Memory order of a multi-dimensional array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// C / NumPy order: the last index varies fastest.
    RowMajor,
    /// Fortran order: the first index varies fastest.
    ColMajor,
}

/// One axis of an array: valid indices are `lower ..= lower + extent - 1`.
#[derive(Clone, Debug, PartialEq)]
pub struct Dim {
    pub lower: Expr,
    pub extent: Expr,
}

impl Dim {
    /// A zero-based axis of the given extent (NumPy, C).
    pub fn zero_based(extent: Expr) -> Dim {
        Dim { lower: Expr::int(0), extent }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    Scalar(Scalar),
    Array { elem: Scalar, dims: Vec<Dim>, layout: Layout },
}

impl Type {
    pub fn elem(&self) -> Scalar {
        match self {
            Type::Scalar(s) => *s,
            Type::Array { elem, .. } => *elem,
        }
    }
    pub fn rank(&self) -> usize {
        match self {
            Type::Scalar(_) => 0,
            Type::Array { dims, .. } => dims.len(),
        }
    }
    pub fn is_array(&self) -> bool {
        matches!(self, Type::Array { .. })
    }
    pub fn dims(&self) -> &[Dim] {
        match self {
            Type::Scalar(_) => &[],
            Type::Array { dims, .. } => dims,
        }
    }
}

/// Index of a variable in [`Function::vars`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

impl VarId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The identity of a [`Loop`] inside its function, printed `L3` (see "Identities" in the
/// crate docs). [`LoopId::NEW`] marks a loop a stage has just built and not numbered yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub u32);

/// The identity of a [`Map`] inside its function, printed `M7` (see [`LoopId`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MapId(pub u32);

impl LoopId {
    /// Not numbered yet: [`proc::ids::settle`] gives it a fresh id.
    pub const NEW: LoopId = LoopId(u32::MAX);
    pub fn is_new(self) -> bool {
        self == LoopId::NEW
    }
}

impl MapId {
    /// Not numbered yet: [`proc::ids::settle`] gives it a fresh id.
    pub const NEW: MapId = MapId(u32::MAX);
    pub fn is_new(self) -> bool {
        self == MapId::NEW
    }
}

/// `L3` (`L?` when not numbered yet).
impl fmt::Display for LoopId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_new() {
            f.write_str("L?")
        } else {
            write!(f, "L{}", self.0)
        }
    }
}

/// `M7` (`M?` when not numbered yet).
impl fmt::Display for MapId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_new() {
            f.write_str("M?")
        } else {
            write!(f, "M{}", self.0)
        }
    }
}

/// `L3` → `LoopId(3)`: how users name loops (`--checkpoint L3=every:4`).
impl std::str::FromStr for LoopId {
    type Err = String;
    fn from_str(s: &str) -> Result<LoopId, String> {
        let bad = || format!("`{s}` is not a loop id (L0, L1, ...)");
        let digits = s.strip_prefix('L').ok_or_else(bad)?;
        // Only the spelling `Display` writes: no sign, no leading zeros.
        let canonical = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'));
        match digits.parse::<u32>() {
            Ok(k) if canonical && k != u32::MAX => Ok(LoopId(k)),
            _ => Err(bad()),
        }
    }
}

/// What a variable is for. Backends use it to decide storage and naming; autodiff uses it
/// to tell user data from its own bookkeeping.
#[derive(Clone, Debug, PartialEq)]
pub enum VarRole {
    /// A size parameter that the source never declared as a parameter (an extent such as
    /// `N` in `float64[N]`, or an invented `A_n0`). Always `i64`, always a parameter.
    Size,
    /// A parameter of the source function.
    Param,
    /// A returned value turned into an output parameter (`ret`, `ret0`, ...).
    Return,
    /// A local scalar or array of the source.
    Local,
    /// A loop or map index.
    Index,
    /// A temporary introduced by a stage (the frontend's copy for overlapping slices, a
    /// reduction result, ...).
    Temp,
    /// The adjoint of another variable (autodiff only).
    Adjoint(VarId),
    /// Values saved by the forward sweep for the reverse sweep (autodiff only).
    Tape,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: String,
    pub ty: Type,
    pub role: VarRole,
    pub span: Span,
}

/// How a parameter is passed. Scalars with `In` are passed by value; everything else by
/// pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intent {
    In,
    Out,
    InOut,
}

impl Intent {
    pub fn name(self) -> &'static str {
        match self {
            Intent::In => "in",
            Intent::Out => "out",
            Intent::InOut => "inout",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub var: VarId,
    pub intent: Intent,
    /// Documentation for the generated header: what the parameter holds on entry and exit.
    pub doc: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    /// Parameters in signature order.
    pub params: Vec<Param>,
    /// The variable arena.
    pub vars: Vec<Var>,
    pub body: Block,
    pub span: Span,
    /// Human-readable remarks from the producing stage (e.g. inferred parameter types);
    /// printed by `--emit ir` and quoted in the generated header.
    pub notes: Vec<String>,
    /// Run-time preconditions on the sizes (see [`Assumption`]), checked on entry before
    /// anything is allocated or written. Stages that derive a function from another
    /// (the adjoint, the IR → IR passes) keep them.
    pub assumptions: Vec<Assumption>,
}

/// A precondition on the sizes that the source requires but the frontend cannot prove at
/// transpile time: the inner extents `K == M` of `A @ x` with `A: float64[N, K]`,
/// `x: float64[M]`, or the range of an index (`x[i + 1]` in `for i in range(m)` needs
/// `m <= n` for `x` of extent `n`, as NumPy raises `IndexError` otherwise). The generated
/// function returns a shape error code on entry when `guard` holds (or there is none) and
/// `lhs rel rhs` does not, so the body may assume it. All three are expressions over
/// parameters only (like extents): `lhs` and `rhs` are `i64`, `guard` is `bool` (an index
/// check is guarded by "the loops around the access run at least once"). `what` says which
/// source construct requires it (quoted in the C comment).
#[derive(Clone, Debug, PartialEq)]
pub struct Assumption {
    pub lhs: Expr,
    pub rel: Relation,
    pub rhs: Expr,
    pub guard: Option<Expr>,
    /// When set, the assumption is `lhs <= v <= rhs` for every element `v` of this integer
    /// array parameter (a gather `x[idx[i]]` needs every `idx` inside `x`'s axis), checked
    /// by a scan on entry; `rel` is then [`Relation::Le`].
    pub each: Option<VarId>,
    pub span: Span,
    pub what: String,
}

/// How the two sides of an [`Assumption`] compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Relation {
    Eq,
    Le,
    Lt,
}

impl Relation {
    pub fn symbol(self) -> &'static str {
        match self {
            Relation::Eq => "==",
            Relation::Le => "<=",
            Relation::Lt => "<",
        }
    }
    /// The C operator of the negation (the failing case).
    pub fn negated_symbol(self) -> &'static str {
        match self {
            Relation::Eq => "!=",
            Relation::Le => ">",
            Relation::Lt => ">=",
        }
    }
}

impl Assumption {
    /// `lhs == rhs`, unguarded.
    pub fn equal(lhs: Expr, rhs: Expr, span: Span, what: impl Into<String>) -> Assumption {
        Assumption { lhs, rel: Relation::Eq, rhs, guard: None, each: None, span, what: what.into() }
    }
    /// Every expression of the assumption (sides and guard).
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        [&self.lhs, &self.rhs].into_iter().chain(self.guard.as_ref())
    }
}

impl Function {
    /// A function with no parameters, variables, statements, notes or assumptions: the
    /// start of every function a stage (or a test) builds up with [`Function::add_var`].
    pub fn empty(name: impl Into<String>, span: Span) -> Function {
        Function {
            name: name.into(),
            params: vec![],
            vars: vec![],
            body: vec![],
            span,
            notes: vec![],
            assumptions: vec![],
        }
    }
    pub fn var(&self, id: VarId) -> &Var {
        &self.vars[id.index()]
    }
    pub fn var_mut(&mut self, id: VarId) -> &mut Var {
        &mut self.vars[id.index()]
    }
    pub fn add_var(&mut self, name: impl Into<String>, ty: Type, role: VarRole, span: Span) -> VarId {
        self.vars.push(Var { name: name.into(), ty, role, span });
        VarId(self.vars.len() as u32 - 1)
    }
    pub fn param(&self, id: VarId) -> Option<&Param> {
        self.params.iter().find(|p| p.var == id)
    }
    pub fn is_param(&self, id: VarId) -> bool {
        self.param(id).is_some()
    }
    /// A variable name not used yet in this function, derived from `base`.
    ///
    /// `base` itself if free, else `base_k` for the smallest `k >= 1` not taken. One pass
    /// over the variables (this is called once per variable the transform creates, so a
    /// probe per candidate `k` would make large kernels quadratic in the number of tapes).
    pub fn fresh_name(&self, base: &str) -> String {
        let mut base_taken = false;
        let mut taken: Vec<u64> = Vec::new();
        for v in &self.vars {
            let Some(rest) = v.name.strip_prefix(base) else { continue };
            if rest.is_empty() {
                base_taken = true;
            } else if let Some(k) = rest.strip_prefix('_') {
                // Only the canonical spelling of k (what `format!` writes) can collide.
                let canonical = !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) && !k.starts_with('0');
                if let (true, Ok(k)) = (canonical, k.parse::<u64>()) {
                    taken.push(k);
                }
            }
        }
        if !base_taken {
            return base.to_string();
        }
        taken.sort_unstable();
        taken.dedup();
        let mut k = 1;
        for t in taken {
            if t == k {
                k += 1;
            } else if t > k {
                break;
            }
        }
        format!("{base}_{k}")
    }
}

/// One source file's worth of functions.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// The source path as given by the user (used in comments).
    pub file: String,
    /// The full source text (for quoting lines); never parsed again after the frontend.
    pub source: String,
    pub functions: Vec<Function>,
    /// The source statements written over more than one line (a Fortran `&` or column-6
    /// continuation, a Python bracket or backslash continuation), as `(first, last)` 1-based
    /// line numbers, sorted and disjoint: the C quotes such a statement whole, whichever of
    /// its lines a span names. The frontend, which knows the syntax, finds them; one-line
    /// statements are not listed.
    pub continued: Vec<(u32, u32)>,
}

impl Module {
    /// The text of 1-based source line `line`, trimmed, or `""`.
    pub fn source_line(&self, line: u32) -> &str {
        if line == 0 {
            return "";
        }
        self.source.lines().nth(line as usize - 1).map(str::trim).unwrap_or("")
    }
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
    /// The lines `(first, last)` of the statement that line `line` belongs to (`(line, line)`
    /// unless it is in [`Module::continued`]).
    pub fn statement_lines(&self, line: u32) -> (u32, u32) {
        statement_lines(&self.continued, line)
    }
}

/// [`Module::statement_lines`] over a sorted, disjoint list of ranges.
pub fn statement_lines(continued: &[(u32, u32)], line: u32) -> (u32, u32) {
    let k = continued.partition_point(|&(first, _)| first <= line);
    match k.checked_sub(1).map(|k| continued[k]) {
        Some((first, last)) if line <= last => (first, last),
        _ => (line, line),
    }
}

// ---------------------------------------------------------------------------------------
// Expressions

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Literal {
    Bool(bool),
    Int(i64),
    Float(f64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// True division for floats; for `i64` operands, C division (truncating).
    Div,
    /// Floor division (Python `//`), integers only.
    FloorDiv,
    /// Remainder with the sign of the divisor (Python `%`), integers only.
    Mod,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(self, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne)
    }
    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or)
    }
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
}

/// Intrinsic scalar functions. Arguments and result share one float type unless noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Intrinsic {
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sinh,
    Cosh,
    Arcsin,
    Arccos,
    Arctan,
    /// `atan2(y, x)`.
    Arctan2,
    Sqrt,
    /// Absolute value; also valid on `i64`.
    Abs,
    /// `pow(x, y)`.
    Pow,
    /// Two-argument maximum; also valid on `i64`. Ties select the first argument.
    Max,
    /// Two-argument minimum; also valid on `i64`. Ties select the first argument.
    Min,
    /// Fortran `sign(a, b)`: `|a|` with the sign of `b`.
    Sign,
    Floor,
    Ceil,
}

impl Intrinsic {
    pub fn name(self) -> &'static str {
        match self {
            Intrinsic::Exp => "exp",
            Intrinsic::Log => "log",
            Intrinsic::Sin => "sin",
            Intrinsic::Cos => "cos",
            Intrinsic::Tan => "tan",
            Intrinsic::Tanh => "tanh",
            Intrinsic::Sinh => "sinh",
            Intrinsic::Cosh => "cosh",
            Intrinsic::Arcsin => "arcsin",
            Intrinsic::Arccos => "arccos",
            Intrinsic::Arctan => "arctan",
            Intrinsic::Arctan2 => "arctan2",
            Intrinsic::Sqrt => "sqrt",
            Intrinsic::Abs => "abs",
            Intrinsic::Pow => "pow",
            Intrinsic::Max => "max",
            Intrinsic::Min => "min",
            Intrinsic::Sign => "sign",
            Intrinsic::Floor => "floor",
            Intrinsic::Ceil => "ceil",
        }
    }
    pub fn arity(self) -> usize {
        match self {
            Intrinsic::Arctan2 | Intrinsic::Pow | Intrinsic::Max | Intrinsic::Min | Intrinsic::Sign => 2,
            _ => 1,
        }
    }
    /// Whether the intrinsic accepts `i64` operands (with an `i64` result).
    pub fn accepts_int(self) -> bool {
        matches!(self, Intrinsic::Abs | Intrinsic::Max | Intrinsic::Min)
    }
}

/// A scalar expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Scalar,
    pub span: Span,
}

/// Typing rules (enforced by the validator):
/// * `Binary` arithmetic: both operands of the result type (frontends insert `Cast`s);
///   comparisons: operands of one type, result `bool`; `And`/`Or`: `bool`.
/// * `Call`: arguments of the result type (float, or `i64` where
///   [`Intrinsic::accepts_int`]).
/// * `Select(c, a, b)`: `c` is `bool`, `a` and `b` of the result type.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Const(Literal),
    /// A scalar variable (parameter, local, loop index, size).
    Var(VarId),
    /// One element of an array; one index per dimension.
    Load(VarId, Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Call(Intrinsic, Vec<Expr>),
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    Cast(Box<Expr>),
}

impl Expr {
    pub fn new(kind: ExprKind, ty: Scalar, span: Span) -> Expr {
        Expr { kind, ty, span }
    }
    pub fn int(v: i64) -> Expr {
        Expr::new(ExprKind::Const(Literal::Int(v)), Scalar::I64, Span::NONE)
    }
    pub fn float(v: f64, ty: Scalar) -> Expr {
        Expr::new(ExprKind::Const(Literal::Float(v)), ty, Span::NONE)
    }
    pub fn boolean(v: bool) -> Expr {
        Expr::new(ExprKind::Const(Literal::Bool(v)), Scalar::Bool, Span::NONE)
    }
    pub fn var(id: VarId, ty: Scalar) -> Expr {
        Expr::new(ExprKind::Var(id), ty, Span::NONE)
    }
    pub fn load(id: VarId, index: Vec<Expr>, ty: Scalar) -> Expr {
        Expr::new(ExprKind::Load(id, index), ty, Span::NONE)
    }
    pub fn with_span(mut self, span: Span) -> Expr {
        self.span = span;
        self
    }
    /// `lhs op rhs` with the obvious constant folding for integer and float literals and
    /// the identities `x + 0`, `x - 0`, `x * 1`, `x * 0` (integers only for `* 0`),
    /// `x / 1`. The result type is `lhs.ty` (or `bool` for comparisons).
    pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        simplify::binary(op, lhs, rhs)
    }
    pub fn add(self, rhs: Expr) -> Expr {
        Expr::binary(BinOp::Add, self, rhs)
    }
    pub fn sub(self, rhs: Expr) -> Expr {
        Expr::binary(BinOp::Sub, self, rhs)
    }
    pub fn mul(self, rhs: Expr) -> Expr {
        Expr::binary(BinOp::Mul, self, rhs)
    }
    pub fn div(self, rhs: Expr) -> Expr {
        Expr::binary(BinOp::Div, self, rhs)
    }
    pub fn neg(self) -> Expr {
        simplify::neg(self)
    }
    pub fn call(f: Intrinsic, args: Vec<Expr>, ty: Scalar) -> Expr {
        Expr::new(ExprKind::Call(f, args), ty, Span::NONE)
    }
    pub fn select(c: Expr, a: Expr, b: Expr) -> Expr {
        let ty = a.ty;
        Expr::new(ExprKind::Select(Box::new(c), Box::new(a), Box::new(b)), ty, Span::NONE)
    }
    pub fn cast(self, ty: Scalar) -> Expr {
        if self.ty == ty {
            return self;
        }
        if let ExprKind::Const(l) = self.kind {
            let lit = match (l, ty) {
                (Literal::Int(v), Scalar::F32) => Some(Literal::Float(v as f32 as f64)),
                (Literal::Int(v), t) if t.is_float() => Some(Literal::Float(v as f64)),
                // A constant cast to single precision is rounded, as `(float)` does in C.
                (Literal::Float(v), Scalar::F32) => Some(Literal::Float(v as f32 as f64)),
                (Literal::Float(v), Scalar::F64) => Some(Literal::Float(v)),
                _ => None,
            };
            if let Some(lit) = lit {
                return Expr::new(ExprKind::Const(lit), ty, self.span);
            }
        }
        let span = self.span;
        Expr::new(ExprKind::Cast(Box::new(self)), ty, span)
    }
    pub fn as_int(&self) -> Option<i64> {
        match self.kind {
            ExprKind::Const(Literal::Int(v)) => Some(v),
            _ => None,
        }
    }
    pub fn as_float(&self) -> Option<f64> {
        match self.kind {
            ExprKind::Const(Literal::Float(v)) => Some(v),
            ExprKind::Const(Literal::Int(v)) => Some(v as f64),
            _ => None,
        }
    }
    pub fn is_const(&self) -> bool {
        matches!(self.kind, ExprKind::Const(_))
    }
}

pub mod simplify;

// ---------------------------------------------------------------------------------------
// Statements

/// A scalar variable (no indices) or one element of an array.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    pub var: VarId,
    pub index: Vec<Expr>,
}

impl Place {
    pub fn scalar(var: VarId) -> Place {
        Place { var, index: Vec::new() }
    }
    pub fn element(var: VarId, index: Vec<Expr>) -> Place {
        Place { var, index }
    }
    pub fn is_scalar(&self) -> bool {
        self.index.is_empty()
    }
    /// The place read as an expression of element type `ty`.
    pub fn to_expr(&self, ty: Scalar) -> Expr {
        if self.index.is_empty() {
            Expr::var(self.var, ty)
        } else {
            Expr::load(self.var, self.index.clone(), ty)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccOp {
    Add,
    Mul,
    Max,
    Min,
}

impl AccOp {
    pub fn name(self) -> &'static str {
        match self {
            AccOp::Add => "+=",
            AccOp::Mul => "*=",
            AccOp::Max => "max=",
            AccOp::Min => "min=",
        }
    }
}

/// A sequential counted loop with Python `range(start, stop, step)` semantics: `var` takes
/// `start, start+step, ...` while `< stop` (step > 0) or `> stop` (step < 0). The bounds
/// are evaluated once, on entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    /// The loop's identity (see "Identities" in the crate docs).
    pub id: LoopId,
    pub var: VarId,
    pub start: Expr,
    pub stop: Expr,
    pub step: Expr,
    pub body: Block,
}

/// A sequential loop whose trip count is only known at run time: `while (cond) body`.
/// `cond` is evaluated before every iteration (and once more when it fails). Frontends
/// lower `break`, `continue` and `return` to `bool` flags (see [`proc::jumps`]): a
/// `break` sets a flag that `cond` tests (`!brk && err > tol`), a `continue` sets a flag
/// that guards the rest of the body. A `while` never appears inside a [`Map`] body.
#[derive(Clone, Debug, PartialEq)]
pub struct While {
    /// The loop's identity, numbered with the [`Loop`]s (see "Identities").
    pub id: LoopId,
    pub cond: Expr,
    pub body: Block,
}

/// One dimension of a [`Map`]'s index space: `var` in `start .. stop` (exclusive), unit step.
#[derive(Clone, Debug, PartialEq)]
pub struct MapDim {
    pub var: VarId,
    pub start: Expr,
    pub stop: Expr,
}

/// A parallel loop nest. Iterations may run in any order and concurrently; the only
/// interaction allowed between them is `shared` accumulation.
#[derive(Clone, Debug, PartialEq)]
pub struct Map {
    /// The map's identity (see "Identities" in the crate docs).
    pub id: MapId,
    pub dims: Vec<MapDim>,
    pub body: Block,
}

/// A rectangular window of an array, passed to a library operation without a copy.
/// Operand axis `k` runs along axis `axes[k]` of the variable, from source index
/// `start[axes[k]]`, for `extents[k]` elements with unit step; the variable's other axes
/// stay at their `start` index (`A[i, 0:j]` is `start = [i, 0]`, `axes = [1]`,
/// `extents = [j]`). A 2-D view whose `axes` are decreasing is the transpose (`B.T`).
/// `start` has one index per axis of the variable (empty for a scalar operand).
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub start: Vec<Expr>,
    pub axes: Vec<usize>,
    pub extents: Vec<Expr>,
}

impl View {
    /// The whole of an array with these dims (`A[0:N, 0:M]`).
    pub fn whole(dims: &[Dim]) -> View {
        View {
            start: dims.iter().map(|d| d.lower.clone()).collect(),
            axes: (0..dims.len()).collect(),
            extents: dims.iter().map(|d| d.extent.clone()).collect(),
        }
    }
    /// A scalar operand (the output of `dot`).
    pub fn scalar() -> View {
        View { start: Vec::new(), axes: Vec::new(), extents: Vec::new() }
    }
    /// The transposed view (reversed operand axes).
    pub fn t(&self) -> View {
        let mut v = self.clone();
        v.axes.reverse();
        v.extents.reverse();
        v
    }
    pub fn rank(&self) -> usize {
        self.axes.len()
    }
    /// The variable's source index of element `idx` (one index per operand axis).
    pub fn index_of(&self, idx: &[Expr]) -> Vec<Expr> {
        let mut out = self.start.clone();
        for (k, a) in self.axes.iter().enumerate() {
            if let (Some(slot), Some(i)) = (out.get_mut(*a), idx.get(k)) {
                *slot = slot.clone().add(i.clone());
            }
        }
        out
    }
}

/// A BLAS-style library operation: `out = alpha * op(args) + beta * out` on views.
/// `alpha` and `beta` are scalar expressions of the output's element type; `beta = 0`
/// overwrites the output region (its old value is not read), `beta = 1` accumulates.
/// The output never shares its variable with an argument. Shapes by [`LibOp`]:
///
/// | op | out | args | meaning |
/// |---|---|---|---|
/// | `Gemm` | m×n | a: m×k, b: k×n | `out = alpha * a @ b + beta * out` |
/// | `Gemv` | m | a: m×k, x: k | `out = alpha * a @ x + beta * out` |
/// | `Dot` | scalar | x: k, y: k | `out = alpha * x · y + beta * out` |
/// | `Ger` | m×n | x: m, y: n | `out = alpha * outer(x, y) + out` (`beta` is 1) |
/// | `Solve` | n or n×k | a: n×n, b: n or n×k | `out = a⁻¹ b` (LU with partial pivoting; `alpha` 1, `beta` 0) |
/// | `Cholesky` | n×n | a: n×n | `out = L`, `L Lᵀ = a` from `a`'s lower triangle, zeros above (`alpha` 1, `beta` 0) |
/// | `CholeskyAdjoint` | n×n | l: n×n, l_b: n×n | `out += ` the adjoint of `a` in `l = cholesky(a)` given `l_b`, on the lower triangle (`alpha` 1, `beta` 1 or 0) |
///
/// Transposes are views with reversed axes, so `A.T @ B` needs no flag of its own. `Solve`,
/// `Cholesky` and `CholeskyAdjoint` are LAPACK-style calls (`runtime-c/adjc_blas.h`):
/// `Cholesky` has one argument, the others two.
#[derive(Clone, Debug, PartialEq)]
pub struct LibCall {
    pub op: LibOp,
    pub out: VarId,
    pub out_view: View,
    pub args: Vec<VarId>,
    /// One view per argument.
    pub arg_views: Vec<View>,
    pub alpha: Expr,
    pub beta: Expr,
}

impl LibCall {
    /// Whether the old value of the output region is read (`beta` is not the constant 0).
    pub fn reads_out(&self) -> bool {
        self.beta.as_float() != Some(0.0)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LibOp {
    Gemm,
    Gemv,
    Dot,
    Ger,
    Solve,
    Cholesky,
    CholeskyAdjoint,
}

impl LibOp {
    pub fn name(self) -> &'static str {
        match self {
            LibOp::Gemm => "gemm",
            LibOp::Gemv => "gemv",
            LibOp::Dot => "dot",
            LibOp::Ger => "ger",
            LibOp::Solve => "solve",
            LibOp::Cholesky => "cholesky",
            LibOp::CholeskyAdjoint => "cholesky_adjoint",
        }
    }
    /// Ranks of the output and of each argument. `Solve` of a vector; its matrix form
    /// (rank 2 output and right-hand side) is [`LibOp::ranks_for`].
    pub fn ranks(self) -> (usize, &'static [usize]) {
        match self {
            LibOp::Gemm => (2, &[2, 2]),
            LibOp::Gemv => (1, &[2, 1]),
            LibOp::Dot => (0, &[1, 1]),
            LibOp::Ger => (2, &[1, 1]),
            LibOp::Solve => (1, &[2, 1]),
            LibOp::Cholesky => (2, &[2]),
            LibOp::CholeskyAdjoint => (2, &[2, 2]),
        }
    }
    /// The ranks of a call whose output view has rank `out` (`Solve` has two forms).
    pub fn ranks_for(self, out: usize) -> (usize, &'static [usize]) {
        match self {
            LibOp::Solve if out == 2 => (2, &[2, 2]),
            _ => self.ranks(),
        }
    }
    /// The LAPACK-style operations: no `alpha`/`beta` scaling (`alpha` is 1; `beta` 0,
    /// or 0 or 1 for `CholeskyAdjoint`), square matrix arguments.
    pub fn is_lapack(self) -> bool {
        matches!(self, LibOp::Solve | LibOp::Cholesky | LibOp::CholeskyAdjoint)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Assign {
        target: Place,
        value: Expr,
    },
    Accumulate {
        target: Place,
        op: AccOp,
        value: Expr,
        shared: bool,
    },
    Loop(Loop),
    /// A data-dependent loop (see [`While`]).
    While(While),
    Map(Map),
    If {
        cond: Expr,
        then_body: Block,
        else_body: Block,
    },
    /// Allocate a local array (its shape is in its type). Contents are undefined.
    Alloc(VarId),
    Free(VarId),
    Call(LibCall),
    /// Push a value on the stack tape `tape` (used only where a tape has no closed-form size).
    Push {
        tape: VarId,
        value: Expr,
    },
    /// Pop the top of the stack tape into `target`.
    Pop {
        tape: VarId,
        target: Place,
    },
    /// A labelled group of statements (e.g. "forward sweep").
    Section {
        title: String,
        body: Block,
    },
    /// Stop: the function frees what it allocated and returns the error `code`, in
    /// sequential code only (never inside a [`Map`]): a `--fixed-point` adjoint iteration
    /// that did not converge (autodiff), a Fortran `stop` / `error stop` (frontend).
    Fail(Failure),
}

/// Why generated code stops with an error (one `ADJC_ERR_*` code each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// `ADJC_ERR_CONVERGE`: an adjoint fixed-point iteration (`--fixed-point`) did not
    /// converge within its passes.
    NotConverged,
    /// `ADJC_ERR_STOP`: the source stopped the program (a Fortran `stop` or `error stop`,
    /// typically in an abort routine called on bad input); what the function wrote before
    /// stays written, as the original leaves it when it stops.
    Stopped,
}

impl Failure {
    /// The C constant returned.
    pub fn code(self) -> &'static str {
        match self {
            Failure::NotConverged => "ADJC_ERR_CONVERGE",
            Failure::Stopped => "ADJC_ERR_STOP",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    /// An explanatory remark for readers of the generated code (a tape save, a restore, a
    /// recomputation, ...): what the statement is, worded by [`Note`]'s `Display`.
    pub note: Option<Note>,
}

impl Stmt {
    pub fn new(kind: StmtKind, span: Span) -> Stmt {
        Stmt { kind, span, note: None }
    }
    pub fn with_note(mut self, note: impl Into<Note>) -> Stmt {
        self.note = Some(note.into());
        self
    }
    pub fn assign(target: Place, value: Expr, span: Span) -> Stmt {
        Stmt::new(StmtKind::Assign { target, value }, span)
    }
    pub fn accumulate(target: Place, value: Expr, span: Span) -> Stmt {
        Stmt::new(StmtKind::Accumulate { target, op: AccOp::Add, value, shared: false }, span)
    }
}

pub type Block = Vec<Stmt>;

#[cfg(test)]
mod fresh_name_tests {
    use super::*;

    fn with(names: &[&str]) -> Function {
        let mut f = Function::empty("k", Span::NONE);
        for n in names {
            f.add_var(*n, Type::Scalar(Scalar::F64), VarRole::Local, Span::NONE);
        }
        f
    }

    #[test]
    fn fresh_name_takes_the_smallest_free_suffix() {
        assert_eq!(with(&[]).fresh_name("x"), "x");
        assert_eq!(with(&["x_1", "xy"]).fresh_name("x"), "x");
        assert_eq!(with(&["x"]).fresh_name("x"), "x_1");
        assert_eq!(with(&["x", "x_1", "x_2", "x_4"]).fresh_name("x"), "x_3");
        assert_eq!(with(&["x_2", "x", "x_1", "x_3"]).fresh_name("x"), "x_4");
        // Names that only look like a suffix do not take one.
        assert_eq!(with(&["x", "x_01", "x_1a", "x__1", "x_"]).fresh_name("x"), "x_1");
        assert_eq!(with(&["x", "x_1", "x_1_1"]).fresh_name("x_1"), "x_1_2");
        assert_eq!(with(&["x_b", "x_b_1", "x_b_b"]).fresh_name("x_b"), "x_b_2");
    }
}
