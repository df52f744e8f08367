//! What a statement's comment says, as data: [`Note`].
//!
//! The passes that build a statement (mostly the reversal in `adjc-autodiff`) say *what* it
//! is — a tape save, a restore, a zero-initialised adjoint, a library call's adjoint, a
//! recomputation, a checkpoint — with the names and numbers that go with it; the words are
//! chosen here, in one `Display` impl, and nowhere else. Both printers of the IR use it:
//! `adjc-emit` writes a note as a C comment above its statement (and a
//! [`Note::LibraryAdjoint`] of a product as its formula, which only emit can spell), the IR
//! printer ([`crate::print`]) as a `#` line.
//!
//! Names in a note are the source names as the pass that made the note saw them (strings,
//! not [`crate::VarId`]s): a note is a remark about the source, and stays readable when a
//! later pass renames or drops the variable.
//!
//! [`Note::Text`] is free text, for a remark no variant describes yet (`with_note(format!(..))`
//! still compiles: `String` and `&str` convert into it). Prefer a variant: passes can then
//! ask what a statement is ([`Note::is_restore`]) instead of parsing English.

use crate::{LibOp, LoopId, Span};
use std::fmt;

/// A source line in a note: ` (line 7)`, or nothing for a statement without one (line 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Line(pub u32);

impl From<Span> for Line {
    fn from(span: Span) -> Line {
        Line(span.line)
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            Ok(())
        } else {
            write!(f, " (line {})", self.0)
        }
    }
}

/// The statement whose overwrite a tape save precedes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overwriter {
    /// One statement (the save is one value).
    Statement,
    /// A map (the save copies the region it overwrites).
    Map,
}

/// What computed the extremum an adjoint routes to the winning element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reducer {
    /// A sequential loop (`line`: where it is; none for the expert rule's own loop).
    Loop(Line),
    /// A parallel map (a shared `max=` / `min=`).
    Map,
}

/// An explanatory remark for the readers of the generated code, carried by
/// [`crate::Stmt::note`]. Grouped by the concern that makes it.
#[derive(Clone, Debug, PartialEq)]
pub enum Note {
    /// Free text (see the module docs).
    Text(String),
    /// Several remarks on one statement, in order, joined by `; `.
    Joined(Vec<Note>),

    // ---- tapes and restores -------------------------------------------------------------
    /// `tape: A[i] before the statement (line 7) overwrites it; 1 slot per iteration`.
    Tape { what: String, before: Overwriter, line: Line, bound: Option<String> },
    /// A push on a stack tape (`why`: why a stack and not slots).
    StackTape { why: String, what: String, before: Overwriter, line: Line },
    /// `restore A[i]` from its slot tape (or from an iteration-private copy).
    Restore { what: String },
    /// `restore A[i] from its stack tape`.
    RestoreFromStack { what: String },
    /// A restore turned into a swap: the tape keeps the values it replaces.
    Swapped(Option<Box<Note>>),
    /// An iteration-private copy of a value a statement of a map overwrites.
    PrivateCopy { what: String, line: Line },
    /// The trip count of a `while` loop on a slot tape.
    TripsTape { line: Line },
    /// The trip count of a `while` loop pushed on a stack tape.
    TripsStackTape { why: String, line: Line },
    /// The trip count of a `while` loop restored from its tape.
    TripsRestore { line: Line },
    /// Which branch of an `if` ran, on a slot tape.
    BranchTape { line: Line },
    /// Which branch of an `if` ran, pushed on a stack tape.
    BranchStackTape { why: String, line: Line },
    /// The branch popped from its stack tape.
    BranchPopped,
    /// A local scalar given a value before its first save (so the save reads a set value).
    DefinedBeforeTape { var: String },

    // ---- recomputation ------------------------------------------------------------------
    /// A statement run again in the reverse sweep of a map body.
    Recomputed,
    /// A map body's branch condition, evaluated again.
    RecomputedBranch,
    /// A cheap map recomputed instead of taped.
    RecomputedCheapMap { name: String, line: Line },
    /// A loop-invariant value recomputed instead of taped.
    RecomputedInvariant { name: String, line: Line },
    /// A temporary the memory plan frees early and recomputes (always names its line).
    RecomputedUnderLimit { name: String, line: u32 },
    /// An `if` of the reverse sweep that tests its condition again.
    ConditionAgain,

    // ---- adjoint initialisation and the primal's results --------------------------------
    /// `working copy of the seed ret_b`.
    SeedCopy { seed: String },
    /// A local array's adjoint set to zero before the reverse sweep.
    ZeroInit { var: String },
    /// The adjoint of an output that is not differentiated.
    NotDifferentiated { var: String },
    /// The adjoint of an output-only argument, zeroed on exit.
    OutputOnlyZero { var: String },
    /// A snapshot of a primal result before the reverse sweep changes it.
    ForwardResult { var: String },
    /// The snapshot copied back at the end of the adjoint.
    ForwardResultBack { var: String },
    /// The copy-back from a tape that kept the forward result (`tape`: its name).
    ForwardResultKeptBy { var: String, tape: String },

    // ---- loop checkpointing ---------------------------------------------------------------
    /// Values before a checkpointed loop that the adjoint of earlier code needs.
    CheckpointBeforeLoop { counter: String },
    /// Their restore.
    CheckpointRestoreBeforeLoop,
    /// The state at the start of a segment of `every` iterations.
    CheckpointSegmentStart { counter: String, every: u64 },
    /// The forward run of a loop checkpointed every `every` iterations.
    CheckpointedPeriodic { every: u64 },
    /// Back to the state at the start of a segment.
    CheckpointSegmentRestore { segment: String },
    /// The forward run of a segment again, taped.
    SegmentRetaped,
    /// The forward run of one step again, taped (binomial schedule).
    StepRetaped,
    /// The reversed loop over segments.
    ReversedBySegment { counter: String, line: Line },
    /// Revolve's advance rule.
    RevolveAdvanceRule,
    /// The state before a binomially checkpointed loop's first step.
    CheckpointFirstStep { counter: String },
    /// The forward run of a loop checkpointed on a binomial schedule.
    CheckpointedBinomial { snapshots: u64 },
    /// A snapshot slot is free: take it.
    FreeSnapshot,
    /// Steps and snapshots left before the turn.
    StepsToTurn,
    /// Advance without taping from a snapshot.
    AdvanceToStep { step: String },
    /// Back to the latest snapshot.
    CheckpointLatestSnapshot,
    /// A snapshot dropped.
    SnapshotDone,
    /// The reversed loop on Revolve's schedule.
    ReversedByRevolve { counter: String, line: Line },
    /// The first snapshot.
    FirstSnapshot,

    // ---- maps, reductions and parallel loops ----------------------------------------------
    /// A map run as a sequential nest because its adjoint needs per-iteration saves.
    RunSequentially,
    /// A loop the parallelizer made a map (`shared`: names accumulated across iterations).
    Parallel { shared: Vec<String> },
    /// A nest reordered so that iterations own their accumulations.
    OwnedReorder,
    /// A map split so that iterations own their updates.
    OwnedSplit,
    /// A broadcast operand's adjoint as an owned reduction.
    OwnedReduction,
    /// The gather form of an adjoint (`fused_zero`: the zeroing before it fused in).
    Gather { target: String, fused_zero: bool },
    /// The boundary pieces of a gather.
    GatherBoundary { target: String },
    /// A sum into one element accumulated in a local.
    LocalSum { target: String },
    /// A scalar updated in loops, worked on in a local copy.
    LocalCopy { var: String },
    /// The local copy written back.
    WriteBack { var: String },
    /// A forward map fused into its reverse map.
    Fused,
    /// Every forward map fused into the reverse sweep.
    FusedSweeps,
    /// Part of a Python loop split where a computed index changes sign.
    NegativeIndexPart { part: usize, of: usize },
    /// A Fortran assignment through a temporary: the copy back.
    CopyFromTemporary { var: String },

    // ---- extrema (max/min reductions) -------------------------------------------------------
    /// The extremum the reduction computed (`op`: `maximum` or `minimum`).
    ExtremumValue { op: String, by: Reducer },
    /// The search for the first iteration that reached it (`row_major`: of a map).
    FirstWinner { op: String, row_major: bool },
    /// The adjoint routed to the winner of a loop.
    AdjointToWinner { op: String },
    /// The adjoint routed to the values of a map.
    AdjointToMapValues { op: String },

    // ---- library calls ----------------------------------------------------------------------
    /// A library call of an adjoint (`op`: the primal's operation); emit writes a product's
    /// formula (`x_b += y_b @ A.T`) instead.
    LibraryAdjoint { op: LibOp },
    /// The adjoint of a call's scale factor.
    ScaleFactorAdjoint { op: LibOp, product: String },
    /// A `dot`'s adjoint as an element-wise loop: `target += coef alpha seed * other`.
    DotAdjoint { target: String, square: bool, alpha: Option<String>, seed: String, other: String },
    /// `solve`'s adjoint: the seed solved with the transposed matrix.
    SolveSeed { out: String, matrix: String },
    /// `solve`'s adjoint into the right-hand side.
    SolveRhs,
    /// `solve`'s result computed again.
    SolveAgain { out: String },
    /// `solve`'s adjoint into the matrix.
    SolveMatrix,
    /// `cholesky`'s factor computed again.
    CholeskyAgain { out: String },
    /// A loop's gemv/ger updates gathered into one product: the zeroed work array.
    UpdatesGathered { var: String },
    /// One of those updates, recorded in the work array (`ger`: a ger, else a gemv).
    UpdateRecorded { ger: bool, var: String, work: String },
    /// The product of the work array after the loop.
    UpdatesAsOneProduct { var: String },
    /// Consecutive rank-1 updates of one matrix in one map.
    RankUpdates { count: usize, var: String, from_zero: bool },
    /// A loop's matrix-vector products as one product before it (`upper_block`: upper
    /// triangle only, in blocks of that many rows).
    LoopProducts { name: String, form: String, read: String, upper_block: Option<i64> },

    // ---- expert rules -------------------------------------------------------------------------
    /// The softmax rule's reverse map.
    SoftmaxBackward { x: String, y: String, e: String, s: String },
    /// The batch-norm rule's reverse map.
    BatchNormBackward { x: String, y: String, var: String, mean: String },

    // ---- `while` loops and fixed points ---------------------------------------------------
    /// The iteration counter of a `while` loop.
    CountIterations,
    /// The counter's initialisation.
    TripCount { line: Line },
    /// The reversed `while` loop.
    WhileReversed { line: Line },
    /// A `while` loop differentiated as a fixed point.
    FixedPointLoop { id: LoopId },
    /// The body once more at the converged state.
    FixedPointBodyOnce { line: Line },
    /// The adjoint fixed point's series.
    FixedPointSeries { id: LoopId, tol: f64 },
    /// The series' loop.
    SeriesTerms { max_passes: u64 },
    /// The series did not converge.
    NoConvergence { max_passes: u64 },
    /// The series' sum.
    SeriesSum,
    /// The adjoint body once with the sum.
    AdjointBodyWithSum,
    /// The fixed point's independence of the initial state.
    FixedPointIndependent,
}

impl Note {
    /// `self` followed by `next` (`a; b`), flattening joins.
    pub fn and(self, next: impl Into<Note>) -> Note {
        let mut parts = match self {
            Note::Joined(v) => v,
            n => vec![n],
        };
        match next.into() {
            Note::Joined(v) => parts.extend(v),
            n => parts.push(n),
        }
        Note::Joined(parts)
    }

    /// `note` after an existing remark, or alone.
    pub fn after(old: Option<Note>, note: impl Into<Note>) -> Note {
        match old {
            Some(o) => o.and(note),
            None => note.into(),
        }
    }

    /// Whether any part of the note is `part`.
    pub fn contains(&self, part: &Note) -> bool {
        self.any(|n| n == part)
    }

    /// Whether any part of the note (itself, or one of a join) satisfies `pred`.
    pub fn any(&self, pred: impl Fn(&Note) -> bool + Copy) -> bool {
        match self {
            Note::Joined(v) => v.iter().any(|n| n.any(pred)),
            n => pred(n),
        }
    }

    /// Whether the statement restores a value the forward sweep saved (a slot, stack or
    /// trip-count restore; free text starting with `restore `).
    pub fn is_restore(&self) -> bool {
        match self {
            Note::Restore { .. } | Note::RestoreFromStack { .. } | Note::TripsRestore { .. } => true,
            Note::Text(t) => t.starts_with("restore "),
            _ => false,
        }
    }
}

impl From<String> for Note {
    fn from(s: String) -> Note {
        Note::Text(s)
    }
}

impl From<&str> for Note {
    fn from(s: &str) -> Note {
        Note::Text(s.to_string())
    }
}

impl fmt::Display for Overwriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Overwriter::Statement => "statement",
            Overwriter::Map => "map",
        })
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Note::*;
        match self {
            Text(t) => f.write_str(t),
            Joined(parts) => {
                for (k, p) in parts.iter().enumerate() {
                    if k > 0 {
                        f.write_str("; ")?;
                    }
                    write!(f, "{p}")?;
                }
                Ok(())
            }

            Tape { what, before, line, bound } => {
                write!(f, "tape: {what} before the {before}{line} overwrites it")?;
                match bound {
                    Some(b) => write!(f, "; {b}"),
                    None => Ok(()),
                }
            }
            StackTape { why, what, before: Overwriter::Statement, line } => {
                write!(f, "stack tape: {why}; saves {what} before the statement{line} overwrites it")
            }
            StackTape { why, what, before: Overwriter::Map, line } => write!(
                f,
                "stack tape: {why}; saves {what} before the map{line} overwrites it (sequential: pushes are ordered)"
            ),
            Restore { what } => write!(f, "restore {what}"),
            RestoreFromStack { what } => write!(f, "restore {what} from its stack tape"),
            Swapped(of) => match of {
                Some(n) => write!(f, "{n} (swapped: the tape keeps the values it replaces)"),
                None => f.write_str("(swapped: the tape keeps the values it replaces)"),
            },
            PrivateCopy { what, line } => {
                write!(f, "iteration-private copy of {what}: the statement{line} overwrites it")
            }
            TripsTape { line } => write!(f, "tape: how many iterations the `while`{line} ran"),
            TripsStackTape { why, line } => {
                write!(f, "stack tape: {why}; saves how many iterations the `while`{line} ran")
            }
            TripsRestore { line } => write!(f, "restore the trip count of the `while`{line}"),
            BranchTape { line } => write!(f, "tape: which branch of the `if`{line} ran"),
            BranchStackTape { why, line } => write!(f, "stack tape: {why}; saves which branch of the `if`{line} ran"),
            BranchPopped => f.write_str("the branch the forward sweep took"),
            DefinedBeforeTape { var } => write!(f, "{var} gets a value before it is first saved on its tape"),

            Recomputed => f.write_str("recomputed"),
            RecomputedBranch => f.write_str("recomputed: which branch this iteration took"),
            RecomputedCheapMap { name, line } => write!(
                f,
                "recomputed: `{name}`{line} is not taped, it is a cheap map of values the reverse sweep has back here"
            ),
            RecomputedInvariant { name, line } => {
                write!(f, "recomputed: `{name}`{line} is not taped, it depends on nothing the loop changes")
            }
            RecomputedUnderLimit { name, line } => write!(
                f,
                "recomputed: `{name}` (line {line}) is freed after its last forward use and computed again here, \
                 right before the reverse sweep reads it, to keep the adjoint under its memory limit"
            ),
            ConditionAgain => f.write_str("condition evaluated again: its operands are never modified"),

            SeedCopy { seed } => write!(f, "working copy of the seed {seed}"),
            ZeroInit { var } => write!(f, "adjoint of {var} starts at zero"),
            NotDifferentiated { var } => write!(f, "{var} is not differentiated: its seed is zero"),
            OutputOnlyZero { var } => write!(f, "{var} is output-only: its adjoint is zero on exit"),
            ForwardResult { var } => write!(f, "{var} as the forward function leaves it"),
            ForwardResultBack { var } => write!(f, "give {var} its forward result back"),
            ForwardResultKeptBy { var, tape } => write!(f, "give {var} its forward result back: {tape} kept it"),

            CheckpointBeforeLoop { counter } => {
                write!(f, "checkpoint: values before loop `{counter}` that the adjoint of earlier code needs")
            }
            CheckpointRestoreBeforeLoop => {
                f.write_str("checkpoint: the values from before the loop, for the adjoint of earlier code")
            }
            CheckpointSegmentStart { counter, every } => {
                write!(f, "checkpoint: the state of loop `{counter}` at the start of a segment of {every}")
            }
            CheckpointedPeriodic { every } => write!(
                f,
                "checkpointed every {every} iterations: runs untaped, the reverse sweep runs each segment again"
            ),
            CheckpointSegmentRestore { segment } => {
                write!(f, "checkpoint: back to the state at the start of segment `{segment}`")
            }
            SegmentRetaped => f.write_str("the segment again, taping what its adjoint needs"),
            StepRetaped => f.write_str("the step again, taped"),
            ReversedBySegment { counter, line } => {
                write!(f, "loop `{counter}`{line} reversed segment by segment, last first")
            }
            RevolveAdvanceRule => f.write_str(
                "Revolve's advance rule (Griewank & Walther, ACM TOMS 2000): reps is the smallest with C(ds + reps, ds) >= m",
            ),
            CheckpointFirstStep { counter } => write!(f, "checkpoint: the state of loop `{counter}` before its first step"),
            CheckpointedBinomial { snapshots } => write!(
                f,
                "checkpointed on a binomial schedule ({snapshots} snapshots): runs untaped, the reverse sweep runs it again"
            ),
            FreeSnapshot => f.write_str("a free snapshot: take it here"),
            StepsToTurn => f.write_str("steps from here to the turn, and snapshots for them (this one included)"),
            AdvanceToStep { step } => write!(f, "advance untaped from the snapshot to step `{step}`"),
            CheckpointLatestSnapshot => f.write_str("checkpoint: back to the state of the latest snapshot"),
            SnapshotDone => f.write_str("the snapshot at this step is no longer needed"),
            ReversedByRevolve { counter, line } => {
                write!(f, "loop `{counter}`{line} reversed step by step, last first, on Revolve's schedule")
            }
            FirstSnapshot => f.write_str("the one snapshot so far: the state before step 0"),

            RunSequentially => f.write_str("run sequentially: its adjoint needs values saved in every iteration"),
            Parallel { shared } => {
                f.write_str("iterations are independent: runs in parallel")?;
                if !shared.is_empty() {
                    let names: Vec<String> = shared.iter().map(|n| format!("`{n}`")).collect();
                    write!(f, " ({} accumulated across iterations)", names.join(", "))?;
                }
                Ok(())
            }
            OwnedReorder => f.write_str(
                "reordered so that every iteration of the parallel loops owns the elements it accumulates into (no atomics)",
            ),
            OwnedSplit => f.write_str("split so that in each loop every iteration owns the elements it updates (no atomics)"),
            OwnedReduction => f.write_str(
                "a broadcast operand's adjoint: a reduction in which every iteration owns its element (no atomics)",
            ),
            Gather { target, fused_zero } => {
                write!(
                    f,
                    "gather form of this statement's adjoint into {target}: each iteration sums the terms that land on its own element (one pass, no atomics)"
                )?;
                if *fused_zero {
                    f.write_str("; the zeroing of it just before is fused in (= where it zeroed)")?;
                }
                Ok(())
            }
            GatherBoundary { target } => write!(f, "boundary of the gather into {target}: only the terms that exist there"),
            LocalSum { target } => {
                write!(f, "the sum into one element of `{target}` is accumulated in a local (a vector reduction)")
            }
            LocalCopy { var } => write!(f, "`{var}` is updated in loops: work on a local copy"),
            WriteBack { var } => write!(f, "write `{var}` back"),
            Fused => f.write_str("forward and adjoint in one pass (fused)"),
            FusedSweeps => f.write_str(
                "every forward map is fused into the reverse sweep, which computes the forward values in the same pass",
            ),
            NegativeIndexPart { part, of } => write!(
                f,
                "part {part} of {of} of this loop: it is split where a computed index changes sign (NumPy counts negative indices from the end)"
            ),
            CopyFromTemporary { var } => write!(f, "copy from the temporary (the right-hand side reads `{var}`)"),

            ExtremumValue { op, by: Reducer::Loop(line) } => write!(f, "the {op} the loop{line} computed"),
            ExtremumValue { op, by: Reducer::Map } => write!(f, "the {op} the map computed"),
            FirstWinner { op, row_major: false } => write!(f, "the first iteration that reached the {op}"),
            FirstWinner { op, row_major: true } => write!(f, "first iteration (row-major) that reached the {op}"),
            AdjointToWinner { op } => write!(
                f,
                "the adjoint goes to the winning value unless the value before the loop was already the {op}"
            ),
            AdjointToMapValues { op } => write!(
                f,
                "the adjoint goes to the map's values unless the value before the map was already the {op}"
            ),

            LibraryAdjoint { op } => write!(f, "adjoint of {}", op.name()),
            ScaleFactorAdjoint { op, product } => {
                write!(f, "adjoint of the scale factor of {}: ⟨{product}, the product⟩", op.name())
            }
            DotAdjoint { target, square, alpha, seed, other } => {
                write!(f, "{target} += ")?;
                if *square {
                    f.write_str("2.0 * ")?;
                }
                if let Some(a) = alpha {
                    write!(f, "({a}) * ")?;
                }
                write!(f, "{seed} * {other}")
            }
            SolveSeed { out, matrix } => write!(f, "adjoint of solve: {out}_b_solved = {matrix}⁻ᵀ {out}_b"),
            SolveRhs => f.write_str("adjoint of solve: the right-hand side"),
            SolveAgain { out } => write!(f, "adjoint of solve: {out} solved again"),
            SolveMatrix => f.write_str("adjoint of solve: the matrix"),
            CholeskyAgain { out } => write!(f, "adjoint of cholesky: {out} factored again"),
            UpdatesGathered { var } => {
                write!(f, "the updates of `{var}` in this loop are gathered into one product")
            }
            UpdateRecorded { ger, var, work } => write!(
                f,
                "adjoint of gemv: the {} update of `{var}`, recorded in `{work}`",
                if *ger { "ger" } else { "gemv" }
            ),
            UpdatesAsOneProduct { var } => write!(f, "the loop's updates of `{var}`, as one product"),
            RankUpdates { count, var, from_zero } => write!(
                f,
                "{count} rank-1 update{} of `{var}`{} in one pass",
                if *count == 1 { "" } else { "s" },
                if *from_zero { " (from zero)" } else { "" }
            ),
            LoopProducts { name, form, read, upper_block: Some(block) } => write!(
                f,
                "the loop's matrix-vector products, as products before it: {name} = {form}, its upper triangle \
                 only, in blocks of {block} rows (each iteration's product is {read}, on or right of the diagonal)"
            ),
            LoopProducts { name, form, read, upper_block: None } => write!(
                f,
                "the loop's matrix-vector products, as one product before it: {name} = {form}; each iteration's product is {read}"
            ),

            SoftmaxBackward { x, y, e, s } => write!(
                f,
                "softmax backward, row by row: {x}_b += {y} * ({y}_b - sum({y} * {y}_b)) with {y} = {e} / {s}; the max subtracted for range contributes nothing"
            ),
            BatchNormBackward { x, y, var, mean } => write!(
                f,
                "batch-norm backward, per feature: {x}_b += r / N * (N * {y}_b - sum({y}_b) - xhat * sum({y}_b * xhat)) with r = 1 / sqrt({var} + eps), xhat = ({x} - {mean}) * r"
            ),

            CountIterations => f.write_str("count the iterations for the reverse sweep"),
            TripCount { line } => write!(f, "trip count of the `while` loop{line}"),
            WhileReversed { line } => write!(f, "the iterations of the `while`{line}, in reverse"),
            FixedPointLoop { id } => write!(f, "fixed-point loop {id}: nothing is taped per trip (--fixed-point)"),
            FixedPointBodyOnce { line } => {
                write!(f, "the body of the fixed-point loop{line} once more, at the converged state")
            }
            FixedPointSeries { id, tol } => write!(
                f,
                "adjoint fixed point w = x_b + (dg/dx)^T w of loop {id}: w = sum_k ((dg/dx)^T)^k x_b, summed until a term's largest element is below {tol} of x_b's"
            ),
            SeriesTerms { max_passes } => write!(f, "terms of the series (phase 1), at most {max_passes} passes"),
            NoConvergence { max_passes } => write!(f, "no convergence in {max_passes} passes: ADJC_ERR_CONVERGE"),
            SeriesSum => f.write_str("w: the last term plus the sum of the others"),
            AdjointBodyWithSum => f.write_str(
                "the adjoint body once with w (phase 2): adds (dg/dp)^T w to the parameters' adjoints",
            ),
            FixedPointIndependent => {
                f.write_str("the fixed point does not depend on the initial state: its adjoint is zero")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_joins_read_as_before() {
        let tape = Note::Tape {
            what: "A[i]".into(),
            before: Overwriter::Statement,
            line: Line(7),
            bound: Some("1 slot per iteration".into()),
        };
        assert_eq!(tape.to_string(), "tape: A[i] before the statement (line 7) overwrites it; 1 slot per iteration");
        let no_line = Note::TripsRestore { line: Line(0) };
        assert_eq!(no_line.to_string(), "restore the trip count of the `while`");
        let joined = Note::from("old").and(Note::Fused).and(Note::Parallel { shared: vec!["s".into(), "t".into()] });
        assert_eq!(
            joined.to_string(),
            "old; forward and adjoint in one pass (fused); iterations are independent: runs in parallel \
             (`s`, `t` accumulated across iterations)"
        );
        assert!(joined.contains(&Note::Fused));
        assert!(Note::Restore { what: "x".into() }.is_restore());
        assert!(Note::from("restore x from somewhere").is_restore());
        assert!(!Note::Recomputed.is_restore());
    }

    #[test]
    fn swapped_without_a_note_starts_with_the_parenthesis() {
        assert_eq!(Note::Swapped(None).to_string(), "(swapped: the tape keeps the values it replaces)");
        let of = Some(Box::new(Note::Restore { what: "x".into() }));
        assert_eq!(Note::Swapped(of).to_string(), "restore x (swapped: the tape keeps the values it replaces)");
    }
}
