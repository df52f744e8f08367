//! Column sweeps in tiles: a map over the columns of a matrix whose body walks the rows runs
//! tile by tile, along rows inside a tile.
//!
//! A reduction over the rows of every column (`np.mean(x, axis=0)`, `np.std`, the adjoint of
//! a broadcast row `x - mean`) lowers to a map over the columns `k`, each running a loop
//! over the rows `j`:
//!
//! ```text
//! map k { pre(k); loop j { body(j, k) }; post(k) }      # body reads x[j, k]
//! ```
//!
//! Each step of the row loop reads one element per row: a stride of a whole row, one cache
//! line used for one element (correlation's adjoint had nine such sweeps over its data and
//! ran 4× slower than covariance's). Since the iterations of a map are independent (IR
//! invariant 5) the columns may be interleaved in any way that keeps each column's own
//! order: `pre(k)`, then `body(j, k)` for every `j` in order, then `post(k)`. So the map
//! runs over tiles of [`TILE`] columns, and inside a tile every phase is a map over the
//! tile's columns, the body's below the row loop, where the columns are unit-stride:
//!
//! ```text
//! map t { map k in tile(t) { pre(k) }; loop j { map k in tile(t) { body(j, k) } };
//!         map k in tile(t) { post(k) } }
//! ```
//!
//! Tiles keep the parallel loop outermost (one per tile, no barrier per row) and the
//! per-column accumulators of a tile in L1. The map may have more dimensions than the
//! columns (batch norm over NHWC images: `map l, m, n { loop k over the batch }` with `n`,
//! the channels, unit-stride): the columns are its last one, and the others stay
//! dimensions of the map over tiles. Applies only when the body's every access that
//! reads the column counter has it alone (plus an invariant) in the unit-stride index and
//! one of them is strided by the row counter, when the statements are plain assignments,
//! unshared accumulations and `if`s of them, and when every scalar the map writes is
//! assigned before it is read within one phase (a scalar carried from `pre` to the body,
//! or across rows, would be shared by the columns of a tile). Every value is computed by
//! the same operations in the same order.
//!
//! The transposed shape — a sequential loop over rows whose body is maps over the same
//! columns, each touching only its own column (deriche's recursive filters, forwards and
//! reversed: `for i: map l { y[i, l] = a * x[i, l] + b * y[i - 1, l] }`) — carries its
//! recurrence along each column separately. When every access to an array the loop writes
//! has the column counter alone in its unit-stride index and nowhere else, no column reads
//! another's elements, so the columns may run concurrently, each in the loop's order: a
//! map over tiles of columns around the row loop, the maps inside over the tile. The row
//! loop then runs once per tile instead of opening a parallel region (or two barriers) per
//! row; it must write no scalar.

use adjc_ir::proc::affine::Affine;
use adjc_ir::{
    Block, Expr, ExprKind, Function, Intrinsic, Layout, Map, MapDim, MapId, Place, Scalar, Stmt, StmtKind, Type, VarId,
    VarRole,
};

/// Columns per tile: 32 doubles are four cache lines of every row the body reads.
pub const TILE: i64 = 32;

/// `f` with every column sweep of the shape above run in tiles. Pure; valid IR in, valid
/// IR out.
pub fn tile_column_sweeps(f: &Function) -> Function {
    let mut out = f.clone();
    let body = std::mem::take(&mut out.body);
    out.body = block(&mut out, body);
    adjc_ir::proc::ids::settle(&mut out.body);
    out
}

fn block(f: &mut Function, b: Block) -> Block {
    b.into_iter()
        .map(|mut s| {
            if let Some(t) = tile(f, &s).or_else(|| tile_recurrence(f, &s)) {
                return t;
            }
            // Maps inside a map are not the parallel loop: only outermost maps are tiled.
            if !matches!(s.kind, StmtKind::Map(_)) {
                for inner in s.blocks_mut() {
                    let taken = std::mem::take(inner);
                    *inner = block(f, taken);
                }
            }
            s
        })
        .collect()
}

/// The tiled form of the map `s`, when it has the shape in the module docs.
fn tile(f: &mut Function, s: &Stmt) -> Option<Stmt> {
    let StmtKind::Map(m) = &s.kind else { return None };
    // The columns are the map's last dimension; the others (batch norm's pixels over
    // `map l, m, n`) stay dimensions of the map over tiles.
    let (dim, outer) = m.dims.split_last()?;
    let k = dim.var;
    if outer.iter().any(|d| dim.start.mentions(d.var) || dim.stop.mentions(d.var)) {
        return None;
    }
    // A constant number of columns below two tiles gains nothing.
    let n = |e: &Expr| adjc_ir::eval::eval_int(e, &|_| None);
    if let (Some(a), Some(b)) = (n(&dim.start), n(&dim.stop)) {
        if b - a < 2 * TILE {
            return None;
        }
    }
    let rows = m.body.iter().position(|s| matches!(s.kind, StmtKind::Loop(_)))?;
    let (pre, rest) = m.body.split_at(rows);
    let (row_stmt, post) = rest.split_first()?;
    let StmtKind::Loop(row) = &row_stmt.kind else { return None };
    let j = row.var;
    let written = adjc_ir::written_vars(&m.body);
    let bounds = [&row.start, &row.stop, &row.step];
    if bounds.iter().any(|e| e.mentions(k) || written.iter().any(|w| e.mentions(*w))) {
        return None;
    }
    if row.step.as_int() != Some(1) && row.step.as_int() != Some(-1) {
        return None;
    }
    if ![pre, &row.body[..], post].iter().all(|b| b.iter().all(plain)) {
        return None;
    }
    // Scalars: private to one phase, assigned at its top level before any read.
    let scalars: Vec<VarId> = written.iter().copied().filter(|v| !f.var(*v).ty.is_array()).collect();
    for v in scalars {
        let phases = [pre, &row.body[..], post];
        let used: Vec<&[Stmt]> = phases.into_iter().filter(|b| mentions(b, v)).collect();
        let [phase] = used.as_slice() else { return None };
        if !assigned_first(phase, v) {
            return None;
        }
    }
    // Accesses in the row body: the column counter only in the unit-stride index, as
    // `k + c`; at least one strided by the row counter.
    let mut strided = false;
    let mut ok = true;
    accesses(&row.body, &mut |var, idx| {
        let Type::Array { layout, .. } = &f.var(var).ty else { return };
        let (unit, others): (&Expr, Vec<&Expr>) = match layout {
            Layout::RowMajor => match idx.split_last() {
                Some((u, o)) => (u, o.iter().collect()),
                None => return,
            },
            Layout::ColMajor => match idx.split_first() {
                Some((u, o)) => (u, o.iter().collect()),
                None => return,
            },
        };
        if others.iter().any(|e| e.mentions(k)) {
            ok = false;
        }
        if unit.mentions(k) {
            let lin = Affine::linear(unit);
            if lin.is_none_or(|a| a.coeff(k) != 1) || unit.mentions(j) {
                ok = false;
            }
            if others.iter().any(|e| e.mentions(j)) {
                strided = true;
            }
        }
    });
    if !ok || !strided {
        return None;
    }
    // The tiles: t over [0, ceil((stop - start) / TILE)), columns from start + t*TILE up to
    // min(start + t*TILE + TILE, stop).
    let old = f.var(k).clone();
    let t = f.add_var(format!("{}_tile", old.name), Type::Scalar(Scalar::I64), VarRole::Index, old.span);
    let tiles = dim.stop.clone().sub(dim.start.clone()).add(Expr::int(TILE - 1)).div(Expr::int(TILE));
    let first = dim.start.clone().add(Expr::var(t, Scalar::I64).mul(Expr::int(TILE)));
    let last = Expr::call(Intrinsic::Min, vec![first.clone().add(Expr::int(TILE)), dim.stop.clone()], Scalar::I64);
    let phase = |f: &mut Function, body: &[Stmt], span| -> Stmt {
        let c = f.add_var(old.name.clone(), old.ty.clone(), VarRole::Index, old.span);
        let mut body = body.to_vec();
        adjc_ir::proc::access::rename(&mut body, k, c);
        let d = MapDim { var: c, start: first.clone(), stop: last.clone() };
        Stmt::new(StmtKind::Map(Map { id: MapId::NEW, dims: vec![d], body }), span)
    };
    let mut out = Vec::new();
    if !pre.is_empty() {
        out.push(phase(f, pre, pre[0].span));
    }
    let mut row = row.clone();
    row.body = vec![phase(f, &row.body, row_stmt.span)];
    out.push(Stmt { kind: StmtKind::Loop(row), ..row_stmt.clone() });
    if !post.is_empty() {
        out.push(phase(f, post, post[0].span));
    }
    let mut dims = outer.to_vec();
    dims.push(MapDim { var: t, start: Expr::int(0), stop: tiles });
    Some(Stmt { kind: StmtKind::Map(Map { id: m.id, dims, body: out }), ..s.clone() })
}

/// Assignments, unshared accumulations and `if`s of them.
fn plain(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Assign { .. } | StmtKind::Accumulate { shared: false, .. } => true,
        StmtKind::If { then_body, else_body, .. } => then_body.iter().chain(else_body).all(plain),
        _ => false,
    }
}

fn mentions(b: &[Stmt], v: VarId) -> bool {
    let mut found = false;
    adjc_ir::walk_stmts(&b.to_vec(), &mut |s| {
        let place = |p: &Place| p.var == v;
        match &s.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } => found |= place(target),
            _ => {}
        }
        s.exprs(&mut |e| found |= e.mentions(v));
    });
    found
}

/// Whether the first statement of `b` that mentions `v` is a top-level assignment to it
/// whose value does not read it.
fn assigned_first(b: &[Stmt], v: VarId) -> bool {
    for s in b {
        if !mentions(std::slice::from_ref(s), v) {
            continue;
        }
        return matches!(&s.kind, StmtKind::Assign { target, value }
            if target.var == v && target.index.is_empty() && !value.mentions(v));
    }
    false
}

/// Every array access (loads, and the places written) in `b`, with its indices.
fn accesses(b: &Block, hit: &mut dyn FnMut(VarId, &[Expr])) {
    adjc_ir::walk_stmts(b, &mut |s| {
        if let StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } = &s.kind {
            if !target.index.is_empty() {
                hit(target.var, &target.index);
            }
        }
        s.exprs(&mut |e| loads(e, hit));
    });
}

fn loads(e: &Expr, hit: &mut dyn FnMut(VarId, &[Expr])) {
    e.walk(&mut |x| {
        if let ExprKind::Load(v, idx) = &x.kind {
            hit(*v, idx);
        }
    });
}

/// The tiled form of the sequential loop `s` when it is a row recurrence over independent
/// columns (module docs: the transposed shape).
fn tile_recurrence(f: &mut Function, s: &Stmt) -> Option<Stmt> {
    let StmtKind::Loop(row) = &s.kind else { return None };
    if row.step.as_int() != Some(1) && row.step.as_int() != Some(-1) {
        return None;
    }
    let mut maps = Vec::new();
    for st in &row.body {
        let StmtKind::Map(m) = &st.kind else { return None };
        let [d] = m.dims.as_slice() else { return None };
        if !m.body.iter().all(plain) {
            return None;
        }
        maps.push((st, m, d));
    }
    let (_, _, d0) = *maps.first()?;
    if maps.iter().any(|(_, _, d)| !crate::util::same(&d.start, &d0.start) || !crate::util::same(&d.stop, &d0.stop)) {
        return None;
    }
    let written = adjc_ir::written_vars(&row.body);
    if written.iter().any(|v| !f.var(*v).ty.is_array()) {
        return None;
    }
    // Trip counts fixed by the loop's entry: bounds read nothing the loop writes, and the
    // columns do not depend on the row.
    let bounds = [&row.start, &row.stop, &d0.start, &d0.stop];
    if bounds.iter().any(|e| written.iter().any(|w| e.mentions(*w)))
        || d0.start.mentions(row.var)
        || d0.stop.mentions(row.var)
    {
        return None;
    }
    let n = |e: &Expr| adjc_ir::eval::eval_int(e, &|_| None);
    if let (Some(a), Some(b)) = (n(&d0.start), n(&d0.stop)) {
        if b - a < 2 * TILE {
            return None;
        }
    }
    // Every access: the column counter only in the unit-stride index; exactly the counter
    // there for arrays the loop writes.
    for (_, m, d) in &maps {
        let l = d.var;
        let mut ok = true;
        accesses(&m.body, &mut |var, idx| {
            let Type::Array { layout, .. } = &f.var(var).ty else { return };
            let split = match layout {
                Layout::RowMajor => idx.split_last(),
                Layout::ColMajor => idx.split_first(),
            };
            let Some((unit, others)) = split else { return };
            if others.iter().any(|e| e.mentions(l)) {
                ok = false;
            }
            let exactly = matches!(unit.kind, ExprKind::Var(v) if v == l);
            if written.contains(&var) && !exactly {
                ok = false;
            }
            if unit.mentions(l) && Affine::linear(unit).is_none_or(|a| a.coeff(l) != 1) {
                ok = false;
            }
        });
        if !ok {
            return None;
        }
    }
    let old = f.var(d0.var).clone();
    let t = f.add_var(format!("{}_tile", old.name), Type::Scalar(Scalar::I64), VarRole::Index, old.span);
    let tiles = d0.stop.clone().sub(d0.start.clone()).add(Expr::int(TILE - 1)).div(Expr::int(TILE));
    let first = d0.start.clone().add(Expr::var(t, Scalar::I64).mul(Expr::int(TILE)));
    let last = Expr::call(Intrinsic::Min, vec![first.clone().add(Expr::int(TILE)), d0.stop.clone()], Scalar::I64);
    let mut body = Vec::new();
    for (st, m, d) in &maps {
        let c = f.add_var(f.var(d.var).name.clone(), f.var(d.var).ty.clone(), VarRole::Index, f.var(d.var).span);
        let mut inner = m.body.clone();
        adjc_ir::proc::access::rename(&mut inner, d.var, c);
        let dim = MapDim { var: c, start: first.clone(), stop: last.clone() };
        body.push(Stmt { kind: StmtKind::Map(Map { id: MapId::NEW, dims: vec![dim], body: inner }), ..(*st).clone() });
    }
    let mut row = row.clone();
    row.body = body;
    let inner = Stmt { kind: StmtKind::Loop(row), ..s.clone() };
    let d = MapDim { var: t, start: Expr::int(0), stop: tiles };
    Some(Stmt { kind: StmtKind::Map(Map { id: MapId::NEW, dims: vec![d], body: vec![inner] }), ..s.clone() })
}
