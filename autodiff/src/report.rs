//! The tape report: what the adjoint saves, why, and how much memory it takes, as
//! formulas of the size parameters (for `adjc transpile --report` and the header).

use adjc_ir::{BinOp, Expr, ExprKind, Function, Scalar, VarId};

/// How a tape stores its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TapeKind {
    /// One value in a local scalar: the save runs once (outside every loop).
    Value,
    /// A local array allocated before the forward sweep, one slot per loop iteration,
    /// indexed by the loop counters.
    Array,
    /// A stack (push/pop): the number of saves has no closed form.
    Stack,
}

impl TapeKind {
    pub fn name(self) -> &'static str {
        match self {
            TapeKind::Value => "value",
            TapeKind::Array => "array",
            TapeKind::Stack => "stack",
        }
    }
}

/// One tape of the adjoint.
#[derive(Clone, Debug, PartialEq)]
pub struct TapeInfo {
    /// The tape variable in the adjoint function.
    pub var: VarId,
    pub name: String,
    /// What it saves: `B[1:-1]`, `p`, `A[i, j]`, `the branch taken`, `A (forward result)`.
    pub what: String,
    /// Source line of the statement whose overwrite makes the save necessary (0: none).
    pub line: u32,
    /// Why the reverse sweep needs the saved values.
    pub why: String,
    /// Number of elements, a formula of the parameters: exact, or an upper bound when
    /// `exact` is false; `None` for a stack without a closed-form bound.
    pub elems: Option<Expr>,
    pub exact: bool,
    pub elem: Scalar,
    pub kind: TapeKind,
}

/// What the adjoint records for one data-dependent (`while`) loop, for the report.
#[derive(Clone, Debug, PartialEq)]
pub struct DataLoop {
    pub id: adjc_ir::LoopId,
    /// Source line of the loop.
    pub line: u32,
    /// Reversed as a fixed point (`--fixed-point`): nothing per trip.
    pub fixed_point: bool,
    /// Stack tapes that take one entry per trip (per save site run): names and bytes per entry.
    pub per_trip: Vec<(String, i64)>,
    /// Tapes with one entry per run of the loop (its trip count).
    pub per_run: Vec<String>,
    /// `--fixed-point`: the tapes of the body's one run at the converged state.
    pub once: Vec<String>,
}

/// A value the reverse sweep computes again instead of saving it.
#[derive(Clone, Debug, PartialEq)]
pub struct Recomputed {
    /// The recomputed variable (a primal VarId).
    pub var: VarId,
    pub name: String,
    /// The line of its assignment.
    pub line: u32,
}

pub(crate) fn elem_bytes(s: Scalar) -> i64 {
    match s {
        Scalar::Bool => 1,
        Scalar::F32 => 4,
        Scalar::I64 | Scalar::F64 => 8,
    }
}

impl TapeInfo {
    /// `elems × sizeof(elem)` as a formula (`8 * N * M`).
    pub fn bytes(&self) -> Option<Expr> {
        fn factors(e: &Expr, out: &mut Vec<Expr>) {
            match &e.kind {
                ExprKind::Binary(BinOp::Mul, a, b) => {
                    factors(a, out);
                    factors(b, out);
                }
                _ => out.push(e.clone()),
            }
        }
        let mut fs = Vec::new();
        let mut size = elem_bytes(self.elem);
        match &self.elems.as_ref()?.kind {
            // A triangle `n (n + 1) / 2` of 8-byte values is `4 n (n + 1)` bytes.
            ExprKind::Binary(BinOp::Div, num, two) if two.as_int() == Some(2) && size % 2 == 0 => {
                size /= 2;
                factors(num, &mut fs);
            }
            _ => factors(self.elems.as_ref()?, &mut fs),
        }
        Some(fs.into_iter().fold(Expr::int(size), |a, f| a.mul(f)))
    }

    /// The element count as text (`max(0, TSTEPS - 1) * (A_n0 - 2)`; `unbounded` for a
    /// stack without a formula); `f` is the adjoint function.
    pub fn elems_text(&self, f: &Function) -> String {
        match &self.elems {
            Some(e) if self.exact => adjc_ir::print::expr_str(f, e),
            Some(e) => format!("at most {}", adjc_ir::print::expr_str(f, e)),
            None => "grows with the iterations".into(),
        }
    }
}

/// The `extra memory: ...` note of the adjoint function for one tape.
pub(crate) fn memory_note(f: &Function, t: &TapeInfo) -> String {
    let kind = match t.kind {
        TapeKind::Stack => " (stack)",
        _ => "",
    };
    match t.bytes() {
        Some(b) if t.exact => format!("extra memory: {}{kind}: {} bytes", t.name, adjc_ir::print::expr_str(f, &b)),
        Some(b) => format!("extra memory: {}{kind}: at most {} bytes", t.name, adjc_ir::print::expr_str(f, &b)),
        None => format!("extra memory: {}{kind}: grows by {} bytes per saved value", t.name, elem_bytes(t.elem)),
    }
}
