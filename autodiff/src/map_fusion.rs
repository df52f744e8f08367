//! Adjacent maps of one statement fused into one pass.
//!
//! Reversing a statement leaves several maps over the same index space next to each other:
//! the tape save and the update of the forward sweep (`h_tape[t, i] = h[i]`, then
//! `h[i] = h[i] - ...`), the restore, the adjoint of a copy and the adjoint of the map that
//! filled the copy in the reverse sweep (durbin: `y[i] = y_tape[...]`, `y_tmp_b[i] += y_b[i]`,
//! `y_b[i] += y_tmp_b[i]`), the maps `split` leaves so that each owns its writes. Each is one
//! pass over memory; one loop running their bodies in turn is one pass.
//!
//! ## The rule
//!
//! Two consecutive maps `m1; m2` become `map { body1; body2 }` when:
//!
//! * they come from the same source line (the fused loop keeps one source comment) and have
//!   the same dimensions (the same bounds, in the same order; `m2`'s indices are renamed to
//!   `m1`'s);
//! * their bodies are plain assignments and accumulations (no nested loops, conditions or
//!   calls); `shared` accumulations only into scalars (reductions);
//! * every array one of them writes and both mention is accessed, in both bodies, at one
//!   and the same index, and that index is injective (each map variable can be read back
//!   from one position: a nonzero coefficient there and no other map variable): iteration
//!   `i` of `m2` then touches only the element iteration `i` of `m1` touched, so running
//!   `m2`'s iteration right after `m1`'s reads and writes the same values as running all of
//!   `m1` first;
//! * no scalar written by one is mentioned by the other (a map-local temporary or a
//!   reduction of `m1` must not be read by `m2` before `m1` has finished it).
//!
//! Arrays only read by both, or mentioned by one only, need nothing: the fused map still
//! satisfies the IR's map invariant (no iteration reads what another writes). The fused
//! body keeps the statements' order, so every element sees the same operations in the same
//! order: values are bit for bit those of the separate maps.
//!
//! The pass runs last on the adjoint, after the passes that recognise single maps (zero
//! fills, rank updates, products, element sums), so it changes none of their patterns, and
//! not under a memory plan: the plan's arena may lay two arrays of disjoint lifetimes over
//! the same bytes, and this rule tells arrays apart by their variables (with it, three
//! examples gave wrong gradients under `--strategy recompute-all`).

use adjc_ir::proc::eq::{same, same_index};
use adjc_ir::proc::ids;
use adjc_ir::*;

use crate::affine::Affine;

/// `f` with consecutive fusable maps of one statement fused, in every block.
pub fn fuse_adjacent_maps(f: &Function) -> Function {
    let mut out = f.clone();
    let mut changed = false;
    out.body = block(std::mem::take(&mut out.body), &mut changed);
    if changed {
        ids::settle(&mut out.body);
    }
    out
}

fn block(b: Block, changed: &mut bool) -> Block {
    let mut out: Block = Vec::with_capacity(b.len());
    for mut s in b {
        for inner in s.blocks_mut() {
            *inner = block(std::mem::take(inner), changed);
        }
        if let Some(prev) = out.last_mut() {
            if let Some(fused) = fuse(prev, &s) {
                *prev = fused;
                *changed = true;
                continue;
            }
        }
        out.push(s);
    }
    out
}

/// One access of a variable in a map body.
struct Access {
    var: VarId,
    index: Vec<Expr>,
    write: bool,
}

/// The accesses of a body of plain assignments and accumulations; `None` for anything else.
fn accesses(body: &Block) -> Option<Vec<Access>> {
    let mut out = Vec::new();
    for s in body {
        let (target, value) = match &s.kind {
            StmtKind::Assign { target, value } => (target, value),
            // A shared scalar accumulation is the map's reduction (the other map may not
            // mention the scalar); shared additions into elements are left alone.
            StmtKind::Accumulate { target, value, shared, .. } if !*shared || target.index.is_empty() => {
                (target, value)
            }
            _ => return None,
        };
        let accumulate = matches!(s.kind, StmtKind::Accumulate { .. });
        if accumulate {
            out.push(Access { var: target.var, index: target.index.clone(), write: false });
        }
        out.push(Access { var: target.var, index: target.index.clone(), write: true });
        for e in target.index.iter().chain(std::iter::once(value)) {
            e.walk(&mut |x| match &x.kind {
                ExprKind::Var(v) => out.push(Access { var: *v, index: Vec::new(), write: false }),
                ExprKind::Load(v, idx) => out.push(Access { var: *v, index: idx.clone(), write: false }),
                _ => {}
            });
        }
    }
    Some(out)
}

/// Whether every map variable can be read back from one position of `index`.
fn injective(index: &[Expr], vars: &[VarId]) -> bool {
    // Opaque parts (`(k - 1) * k / 2`) may not hide a map variable.
    let not_map = |u: VarId| !vars.contains(&u);
    let forms: Option<Vec<Affine>> = index.iter().map(|e| Affine::parse(e, &|_| true, &not_map)).collect();
    let Some(forms) = forms else { return false };
    vars.iter().all(|v| {
        forms.iter().zip(index).any(|(a, e)| a.coeff(*v) != 0 && vars.iter().all(|w| w == v || !e.mentions(*w)))
    })
}

/// Whether every statement of `body` assigns zero.
fn zero_fill(body: &Block) -> bool {
    body.iter().all(|s| matches!(&s.kind, StmtKind::Assign { value, .. } if value.as_float() == Some(0.0)))
}

/// `m1; m2` as one map, when the module's rule allows it.
fn fuse(s1: &Stmt, s2: &Stmt) -> Option<Stmt> {
    let (StmtKind::Map(m1), StmtKind::Map(m2)) = (&s1.kind, &s2.kind) else { return None };
    if s1.span.line == 0 || s1.span.line != s2.span.line || m1.dims.len() != m2.dims.len() {
        return None;
    }
    if !m1.dims.iter().zip(&m2.dims).all(|(a, b)| same(&a.start, &b.start) && same(&a.stop, &b.stop)) {
        return None;
    }
    // Zero fills stay on their own: the C writes them as one `memset` each.
    if zero_fill(&m1.body) || zero_fill(&m2.body) {
        return None;
    }
    // m2 in m1's indices.
    let mut body2 = m2.body.clone();
    for (a, b) in m1.dims.iter().zip(&m2.dims) {
        let to = Expr::var(a.var, Scalar::I64);
        adjc_ir::proc::access::rewrite_block(&mut body2, &|e| e.substitute(b.var, &to), &|v| v);
    }
    let vars: Vec<VarId> = m1.dims.iter().map(|d| d.var).collect();
    let acc1 = accesses(&m1.body)?;
    let acc2 = accesses(&body2)?;
    let written = |acc: &[Access], v: VarId| acc.iter().any(|a| a.write && a.var == v);
    let mut seen: Vec<VarId> = Vec::new();
    for a in acc1.iter().chain(&acc2) {
        let v = a.var;
        if vars.contains(&v) || seen.contains(&v) {
            continue;
        }
        seen.push(v);
        let in1 = acc1.iter().any(|x| x.var == v);
        let in2 = acc2.iter().any(|x| x.var == v);
        if !(in1 && in2) || !(written(&acc1, v) || written(&acc2, v)) {
            continue;
        }
        // Written by one, mentioned by both.
        if a.index.is_empty() {
            return None;
        }
        let all: Vec<&Access> = acc1.iter().chain(&acc2).filter(|x| x.var == v).collect();
        if !all.iter().all(|x| same_index(&x.index, &a.index)) || !injective(&a.index, &vars) {
            return None;
        }
    }
    let mut body = m1.body.clone();
    body.extend(body2);
    let note = match (&s1.note, &s2.note) {
        (Some(a), Some(b)) if a != b => Some(a.clone().and(b.clone())),
        (Some(a), _) => Some(a.clone()),
        (None, b) => b.clone(),
    };
    let map = Map { id: m1.id, dims: m1.dims.clone(), body };
    Some(Stmt { kind: StmtKind::Map(map), span: s1.span, note })
}
