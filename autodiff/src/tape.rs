//! Tapes: where the forward sweep saves values the reverse sweep needs back.
//!
//! * A scalar or a single element overwritten at top level or inside sequential loops is
//!   pushed on the variable's stack tape (`x_tape`, role Tape, scalar type) before the
//!   write and popped back right before the adjoint of the write.
//! * The region a top-level map overwrites is copied to a local array (`A_tape`,
//!   `A_tape_1`, … with the shape of `A`) by a map before it, and copied back by a map
//!   before the adjoint map. Only the elements the map writes are copied when its write is
//!   a single injective `A[f(i)]`; otherwise the whole array.
//! * Inside sequential loops the region is pushed element by element by a sequential loop
//!   nest before the map (pushes inside the parallel map would race) and popped by the
//!   reversed nest.
//!
//! Whether a value is taped at all is decided by the callers (to-be-recorded analysis in
//! `crate::reverse`).

use crate::reverse::{Ad, Env};
use crate::shared::injective;
use crate::util::{at_line, block_writes, write_places};
use adjc_ir::*;

impl Ad<'_> {
    /// The stack tape of primal variable `v` (created on first use).
    pub fn stack(&mut self, v: VarId) -> VarId {
        if let Some(t) = self.stacks.get(&v) {
            return *t;
        }
        let name = self.f.fresh_name(&format!("{}_tape", self.name(v)));
        let t = self.f.add_var(name, Type::Scalar(self.elem(v)), VarRole::Tape, Span::NONE);
        self.stacks.insert(v, t);
        t
    }

    pub fn branch_tape(&mut self) -> VarId {
        if let Some(t) = self.branch_tape {
            return t;
        }
        let name = self.f.fresh_name("branch_tape");
        let t = self.f.add_var(name, Type::Scalar(Scalar::Bool), VarRole::Tape, Span::NONE);
        self.branch_tape = Some(t);
        t
    }

    /// Push of `place` before the statement at `span` overwrites it, and the matching pop.
    pub fn save_place(&mut self, place: &Place, span: Span) -> (Stmt, Stmt) {
        let tape = self.stack(place.var);
        let ty = self.elem(place.var);
        let what = self.place_str(place);
        self.clobbered.insert(place.var);
        let push = Stmt::new(StmtKind::Push { tape, value: place.to_expr(ty) }, span)
            .with_note(format!("tape: {what} before the statement{} overwrites it", at_line(span)));
        let pop = Stmt::new(StmtKind::Pop { tape, target: place.clone() }, span)
            .with_note(format!("restore {what} from its tape"));
        (push, pop)
    }

    /// Index variable number `k` of whole-array copy nests (`i`, `j`, `k`, `l`, then `i4`…).
    pub fn copy_index(&mut self, k: usize) -> VarId {
        while self.copy_idx.len() <= k {
            let n = self.copy_idx.len();
            let base = ["i", "j", "k", "l"].get(n).map(|s| s.to_string()).unwrap_or_else(|| format!("i{n}"));
            let name = self.f.fresh_name(&base);
            let v = self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Index, Span::NONE);
            self.copy_idx.push(v);
        }
        self.copy_idx[k]
    }

    /// Map dims covering the whole index space of array `x`, and the index of one element.
    pub fn full_space(&mut self, x: VarId) -> (Vec<MapDim>, Vec<Expr>) {
        let dims = self.f.var(x).ty.dims().to_vec();
        let mut md = Vec::new();
        let mut idx = Vec::new();
        for (k, d) in dims.iter().enumerate() {
            let v = self.copy_index(k);
            md.push(MapDim { var: v, start: d.lower.clone(), stop: d.lower.clone().add(d.extent.clone()) });
            idx.push(Expr::var(v, Scalar::I64));
        }
        (md, idx)
    }

    /// `dst[idx] = src[idx]` over the whole of `src` (same shapes).
    pub fn copy_map(&mut self, dst: VarId, src: VarId, span: Span) -> Stmt {
        let (dims, idx) = self.full_space(src);
        let ty = self.elem(src);
        Stmt::new(
            StmtKind::Map(Map {
                dims,
                body: vec![Stmt::assign(Place::element(dst, idx.clone()), Expr::load(src, idx, ty), span)],
            }),
            span,
        )
    }

    /// `x[idx] = 0` over the whole array.
    pub fn zero_map(&mut self, x: VarId, span: Span) -> Stmt {
        let (dims, idx) = self.full_space(x);
        let ty = self.elem(x);
        Stmt::new(
            StmtKind::Map(Map { dims, body: vec![Stmt::assign(Place::element(x, idx), Expr::float(0.0, ty), span)] }),
            span,
        )
    }

    /// A local array with the type of `x`, allocated by the adjoint.
    pub fn local_like(&mut self, x: VarId, suffix: &str, role: VarRole) -> VarId {
        let var = self.f.var(x).clone();
        let name = self.f.fresh_name(&format!("{}{suffix}", var.name));
        let t = self.f.add_var(name, var.ty, role, var.span);
        self.ad_allocs.push(t);
        t
    }

    /// Forward-sweep save and reverse-sweep restore of what map `s` overwrites in `x`.
    pub fn region_tape(&mut self, x: VarId, s: &Stmt, m: &Map, env: Env) -> (Block, Block) {
        if !self.f.var(x).ty.is_array() {
            let (push, pop) = self.save_place(&Place::scalar(x), s.span);
            return (vec![push], vec![pop]);
        }
        self.clobbered.insert(x);
        let ty = self.elem(x);
        let map_vars: Vec<VarId> = m.dims.iter().map(|d| d.var).collect();
        let places = write_places(&m.body, x);
        let direct = match places.as_slice() {
            [(p, false)] if injective(&p.index, &map_vars, &block_writes(&m.body)) => Some(p.index.clone()),
            _ => None,
        };
        let name = self.name(x);
        let line = at_line(s.span);
        match env {
            Env::Top => {
                let tape = self.local_like(x, "_tape", VarRole::Tape);
                let (dims, idx, what) = match direct {
                    Some(w) => (m.dims.clone(), w, format!("the elements of {name} that the map{line} overwrites")),
                    None => {
                        let (d, i) = self.full_space(x);
                        (d, i, format!("{name} before the map{line} overwrites it"))
                    }
                };
                let save = Stmt::new(
                    StmtKind::Map(Map {
                        dims: dims.clone(),
                        body: vec![Stmt::assign(
                            Place::element(tape, idx.clone()),
                            Expr::load(x, idx.clone(), ty),
                            s.span,
                        )],
                    }),
                    s.span,
                )
                .with_note(format!("tape: {what}"));
                let restore = Stmt::new(
                    StmtKind::Map(Map {
                        dims,
                        body: vec![Stmt::assign(Place::element(x, idx.clone()), Expr::load(tape, idx, ty), s.span)],
                    }),
                    s.span,
                )
                .with_note(format!("restore {name} from its tape"));
                (vec![save], vec![restore])
            }
            Env::Loop => {
                let tape = self.stack(x);
                let (dims, idx, what) = match direct {
                    Some(w) => (m.dims.clone(), w, format!("the elements of {name} that the map{line} overwrites")),
                    None => {
                        let (d, i) = self.full_space(x);
                        (d, i, format!("{name} before the map{line} overwrites it"))
                    }
                };
                let push = Stmt::new(StmtKind::Push { tape, value: Expr::load(x, idx.clone(), ty) }, s.span);
                let pop = Stmt::new(StmtKind::Pop { tape, target: Place::element(x, idx) }, s.span);
                let nest = |dims: &[MapDim], inner: Stmt, reversed: bool| {
                    dims.iter().rev().fold(inner, |body, d| {
                        let (start, stop, step) = if reversed {
                            (d.stop.clone().sub(Expr::int(1)), d.start.clone().sub(Expr::int(1)), Expr::int(-1))
                        } else {
                            (d.start.clone(), d.stop.clone(), Expr::int(1))
                        };
                        Stmt::new(StmtKind::Loop(Loop { var: d.var, start, stop, step, body: vec![body] }), s.span)
                    })
                };
                let save = nest(&dims, push, false).with_note(format!("tape: {what} (sequential: pushes are ordered)"));
                let restore = nest(&dims, pop, true).with_note(format!("restore {name} from its tape"));
                (vec![save], vec![restore])
            }
        }
    }
}
