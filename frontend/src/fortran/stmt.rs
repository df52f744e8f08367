//! Statements: assignments (scalar, element, section and whole-array), `do` loops and
//! `if` constructs; everything else is a diagnostic.

use super::ast::{self, DoControl, ElseClause, ExprKind as AKind, StmtKind as S};
use super::expr::Sub;
use super::lower::{Binding, Lowerer, R};
use super::scan::ProcKind;
use crate::sym::{canon, key};
use adjc_ir::*;

type AExpr = ast::Expr;
type AStmt = ast::Stmt;
/// The masks of a `where` group (each maybe negated) and its statements.
type MaskedGroup<'t> = (Vec<(&'t AExpr, bool)>, Vec<&'t AStmt>);

impl<'s, 't> Lowerer<'s, 't> {
    pub fn stmt(&mut self, n: &'t AStmt) -> R<()> {
        self.depth += 1;
        let r = if self.depth > super::lower::MAX_DEPTH {
            Err(self.err(n, "statements nested too deeply"))
        } else {
            self.stmt_inner(n)
        };
        self.depth -= 1;
        r
    }

    fn stmt_inner(&mut self, n: &'t AStmt) -> R<()> {
        self.span = self.sp(n);
        let unsupported = |lw: &Self, what: &str, help: &str| {
            Err(lw.err(n, format!("{what} not supported")).with_help(help.to_string()))
        };
        match &n.kind {
            S::Assign { lhs, rhs } => {
                // Work values of this statement only: an inlined routine lowers the same
                // expressions again at its next call.
                let before = self.hoisted.clone();
                self.hoist_constructors(rhs)?;
                if self.product_assign(lhs, rhs)? {
                    self.hoisted = before;
                    return Ok(());
                }
                self.hoist_array_calls(rhs)?;
                self.hoist_products(rhs)?;
                let r = self.assign(lhs, rhs, &[]);
                self.hoisted = before;
                r
            }
            S::Do(d) => self.do_loop(d),
            // Labels only matter to `goto` (`returns`) and labelled `do` (handled there).
            S::Label(l) => {
                self.labels_seen.insert(l.clone());
                Ok(())
            }
            S::If(b) if only_hooks(b) => self.leave_out_guarded_hooks(n, b),
            S::If(b) => self.if_stmt(n, b),
            S::Call { name, args } => {
                // Hooks are left out even when the files define them (a `yomhook` stub).
                if TIMERS_AND_HOOKS.contains(&name.to_ascii_lowercase().as_str()) {
                    return self.leave_out(n, name, args);
                }
                if let Some(proc) = self.unit.find(name).filter(|p| p.kind == ProcKind::Subroutine) {
                    if proc.node.elemental {
                        return self.elemental_call(n.span, proc, args);
                    }
                    self.inline_call(n.span, proc, args, None)?;
                    return Ok(());
                }
                if let Some(proc) = self.resolve_generic(n.span, name, args)? {
                    if proc.kind == ProcKind::Subroutine {
                        self.inline_call(n.span, proc, args, None)?;
                        return Ok(());
                    }
                }
                let help = if self.unit.find(name).is_some() {
                    "inline the subroutine body into the kernel"
                } else {
                    "adjc differentiates one routine and cannot see this one; remove the call or inline it"
                };
                Err(self.err(n, format!("`call {name}` is not supported yet")).with_help(help))
            }
            S::Continue => Ok(()),
            S::Exit(target) => self.jump(n, true, target),
            S::Cycle(target) => self.jump(n, false, target),
            // `returns` lowers the others: a `return` that reaches here is inside a loop
            // (a flag, see `jumps`) or a `select case`.
            S::Return if self.in_flag_loop() => self.loop_return(n),
            S::Return => unsupported(
                self,
                "a `return` here (inside `select case` or `where`) is",
                "use an `if` block for the early return",
            ),
            S::Goto { label: Some(l) } if self.labels_seen.contains(l) => unsupported(
                self,
                &format!("a backward `goto {l}` (a loop) is"),
                "adjc turns a backward `goto` into a `do` loop when its label and the closing `goto` (or `if (c) goto`) \
                 stand in the same statement list and no other jump enters or leaves that region; otherwise write the \
                 loop as `do while` or a `do` left by `exit`",
            ),
            S::Goto { label: Some(l) } => unsupported(
                self,
                &format!("this `goto {l}` is"),
                "adjc lowers a forward `goto` to a label later in the same statement list (or an enclosing one, \
                 outside `do` loops); a jump out of a `do` loop, into a block or across another jump's label is not \
                 supported: restructure with `if` blocks",
            ),
            S::Goto { label: None } => {
                unsupported(self, "assigned `goto` is", "rewrite the control flow with `select case` and `if` blocks")
            }
            S::ComputedGoto { .. } => unsupported(
                self,
                "this computed `goto` is",
                "adjc lowers `go to (10, 20, ...) k` when its labels follow it in the same statement list, no \
                 other `goto` jumps to them and nothing before the last label changes `k`; else rewrite it with \
                 `select case`",
            ),
            // `stop` / `error stop` (an abort routine's, on bad input): the C function
            // returns ADJC_ERR_STOP there, its adjoint too, before any adjoint is computed.
            S::Stop => {
                if self.in_concurrent() {
                    return Err(self
                        .err(n, "a `stop` inside `do concurrent` or an array statement is not supported")
                        .with_help("write the enclosing loop as an ordinary `do` loop"));
                }
                self.f.notes.push(format!(
                    "line {}: `{}` returns ADJC_ERR_STOP (the stop code and message are left out)",
                    self.span.line,
                    self.text(n).trim()
                ));
                self.emit(StmtKind::Fail(Failure::Stopped));
                Ok(())
            }
            S::Io { kind, data } if output_only(*kind, &self.text(n)) => {
                let what = if data.is_empty() { "output of text only" } else { "output: it changes no value" };
                self.f.notes.push(format!(
                    "line {}: `{}` left out ({what})",
                    self.span.line,
                    self.text(n).lines().next().unwrap_or("").trim()
                ));
                Ok(())
            }
            S::Io { kind: ast::IoKind::Read, .. } => unsupported(
                self,
                "`read` statements are",
                "a `read` sets variables from a file: read the data in the caller and pass it as arguments",
            ),
            S::Io { .. } => unsupported(
                self,
                "this input/output statement is",
                "adjc leaves out output statements (`print`, `write`, `open`, `close`, `format`) that set no \
                 variable; move `inquire` and statements with `iostat=`, `newunit=` or `iomsg=` to the caller",
            ),
            S::Allocate(items) => self.allocate(items),
            // Local arrays are freed at the end of the function.
            S::Deallocate => Ok(()),
            S::Declaration(_) => Err(self
                .err(n, "a declaration after an executable statement")
                .with_help("move the declarations to the top of the procedure")),
            S::Where(w) => self.where_stmt(w),
            S::Forall(loops) => self.forall(loops),
            S::Select(c) => self.select_case(c),
            S::Parameter(_) => Err(self
                .err(n, "a `parameter` statement after an executable statement")
                .with_help("move it to the declarations at the top of the procedure")),
            S::Unsupported(d) => Err(d.clone()),
        }
    }

    pub(super) fn target_var(&mut self, n: &'t AExpr) -> R<VarId> {
        let key = self.text(n).to_ascii_lowercase();
        if self.loops.iter().any(|(x, _)| *x == key) {
            return Err(self.err(n, format!("the `do` variable `{}` is assigned inside its loop", self.text(n))));
        }
        match self.lookup(n)? {
            Binding::Var(v) => Ok(v),
            Binding::Const(_) => Err(self.err(n, format!("`{}` is a constant (`parameter`)", self.text(n)))),
        }
    }

    /// `lhs = rhs`; inside `where`, `mask` is the mask and whether it is negated
    /// (`elsewhere`).
    fn assign(&mut self, lhs: &'t AExpr, rhs: &'t AExpr, mask: &[(&'t AExpr, bool)]) -> R<()> {
        let (var, subs) = match &lhs.kind {
            AKind::Name(_) => (self.target_var(lhs)?, None),
            AKind::Call { callee, args } => {
                if callee.as_name().is_none() {
                    return Err(self.err(lhs, "cannot assign to this expression"));
                }
                let v = self.target_var(callee)?;
                if !self.f.var(v).ty.is_array() {
                    return Err(self.err(&**callee, format!("`{}` is not an array", self.text(&**callee))));
                }
                (v, Some(self.subscripts(lhs, v, args)?))
            }
            _ => return Err(self.err(lhs, "cannot assign to this expression")),
        };
        let ty = self.f.var(var).ty.clone();
        let subs = match (subs, ty.is_array()) {
            (Some(s), _) => s,
            (None, false) => {
                if let Some((m, _)) = mask.first() {
                    return Err(self
                        .err(*m, "a scalar is assigned inside `where`")
                        .with_help("assign arrays inside `where`"));
                }
                if self.shape_of(rhs)?.is_some() {
                    return Err(self
                        .err(rhs, "an array value is assigned to a scalar")
                        .with_help("reduce it with `sum`, or assign to an array"));
                }
                let value = self.expr(rhs, None)?;
                let value = self.convert(rhs, value, ty.elem())?;
                self.emit(StmtKind::Assign { target: Place::scalar(var), value });
                return Ok(());
            }
            (None, true) => ty
                .dims()
                .iter()
                .map(|d| Sub::Range {
                    lo: d.lower.clone(),
                    hi: canon(&d.lower.clone().add(d.extent.clone()).sub(Expr::int(1))),
                    st: 1,
                })
                .collect(),
        };
        let counts: Vec<Expr> = subs.iter().filter(|s| s.is_section()).map(Sub::count).collect();
        let rhs_shape = self.shape_of(rhs)?;
        for &(m, _) in mask {
            match self.shape_of(m)? {
                Some(ms) if ms.len() == counts.len() => self.conform(m, &counts, &ms)?,
                _ => {
                    return Err(self
                        .err(m, "the `where` mask must have the shape of the assigned array section")
                        .with_help("assign array sections of the mask's shape inside `where`"))
                }
            }
        }
        if counts.is_empty() {
            if rhs_shape.is_some() {
                return Err(self
                    .err(rhs, "an array value is assigned to one element")
                    .with_help("assign to a section of the same shape"));
            }
            let index: Vec<Expr> =
                subs.into_iter().map(|s| if let Sub::Index(e) = s { e } else { Expr::int(0) }).collect();
            let value = self.expr(rhs, None)?;
            let value = self.convert(rhs, value, ty.elem())?;
            let target = Place::element(var, index);
            if let Some(term) = scatter_term(&target, &value) {
                self.emit(StmtKind::Accumulate { target, op: AccOp::Add, value: term, shared: false });
                return Ok(());
            }
            self.emit(StmtKind::Assign { target, value });
            return Ok(());
        }
        if let Some(s) = &rhs_shape {
            if s.len() != counts.len() {
                return Err(self
                    .err(
                        rhs,
                        format!("the right-hand side has rank {}, the left-hand side rank {}", s.len(), counts.len()),
                    )
                    .with_help("the two sides of an array assignment must have the same shape"));
            }
            self.conform(rhs, &counts, s)?;
        }
        self.section_assign(var, &subs, rhs, mask)
    }

    pub fn convert(&self, n: &'t AExpr, value: Expr, to: Scalar) -> R<Expr> {
        if (value.ty == Scalar::Bool) != (to == Scalar::Bool) {
            return Err(self.err(n, format!("cannot assign a {} value to a {} variable", value.ty, to)));
        }
        Ok(value.cast(to))
    }

    /// `var(subs) = rhs` as one Map over the section; through a temporary when the
    /// right-hand side reads other elements of `var` (it must see the old values).
    pub(super) fn section_assign(
        &mut self,
        var: VarId,
        subs: &[Sub],
        rhs: &'t AExpr,
        mask: &[(&'t AExpr, bool)],
    ) -> R<()> {
        let span = self.span;
        if self.map_depth > 0 {
            return Err(Diagnostic::error(span, "an array assignment inside a function applied element by element")
                .with_help("write the function on scalars, or call it outside array expressions"));
        }
        let elem = self.f.var(var).ty.elem();
        let vector = subs.iter().any(|s| matches!(s, Sub::Vector { .. }));
        let mut dims = Vec::new();
        let mut offs = Vec::new();
        let mut index = Vec::new();
        let mut taken = Vec::new();
        for s in subs {
            match s {
                Sub::Index(e) => index.push(e.clone()),
                Sub::Vector { at, hole, count } => {
                    let name = self.index_name(&taken);
                    taken.push(name.clone());
                    let id = self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Index, span);
                    let iv = Expr::var(id, Scalar::I64);
                    dims.push(MapDim { var: id, start: Expr::int(0), stop: count.clone() });
                    offs.push(iv.clone());
                    index.push(Sub::vector_at(at, *hole, &iv));
                }
                Sub::Range { lo, hi, st } => {
                    let name = self.index_name(&taken);
                    taken.push(name.clone());
                    let id = self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Index, span);
                    let iv = Expr::var(id, Scalar::I64);
                    if *st == 1 {
                        dims.push(MapDim { var: id, start: lo.clone(), stop: canon(&hi.clone().add(Expr::int(1))) });
                        offs.push(canon(&iv.clone().sub(lo.clone())));
                        index.push(iv);
                    } else {
                        dims.push(MapDim { var: id, start: Expr::int(0), stop: s.strided_trips() });
                        offs.push(iv.clone());
                        index.push(canon(&lo.clone().add(iv.mul(Expr::int(*st)))));
                    }
                }
            }
        }
        let ids: Vec<VarId> = dims.iter().map(|d| d.var).collect();
        for (id, name) in ids.iter().zip(&taken) {
            self.loops.push((name.clone(), *id));
        }
        let place = Place::element(var, index.clone());
        self.map_depth += 1;
        let body = self.with_block(|lw| {
            let value = lw.expr(rhs, Some(&offs))?;
            let value = lw.convert(rhs, value, elem)?;
            if mask.is_empty() {
                lw.emit(StmtKind::Assign { target: place.clone(), value });
                return Ok(());
            }
            // `elsewhere (m2)` after `where (m1)`: `.not. m1 .and. m2`.
            let mut all: Option<Expr> = None;
            for &(m, negate) in mask {
                let cond = lw.expr(m, Some(&offs))?;
                if cond.ty != Scalar::Bool {
                    return Err(lw.err(m, "a `where` mask must be logical"));
                }
                let cond = if negate {
                    Expr::new(ExprKind::Unary(UnOp::Not, Box::new(cond)), Scalar::Bool, Span::NONE)
                } else {
                    cond
                };
                all = Some(match all {
                    None => cond,
                    Some(prev) => Expr::binary(BinOp::And, prev, cond),
                });
            }
            let Some(cond) = all else { return Ok(()) };
            let then_body = vec![Stmt::new(StmtKind::Assign { target: place.clone(), value }, lw.span)];
            lw.emit(StmtKind::If { cond, then_body, else_body: Vec::new() });
            Ok(())
        });
        self.map_depth -= 1;
        for _ in &ids {
            self.loops.pop();
        }
        let mut body = body?;
        let here: Vec<String> = index.iter().map(key).collect();
        let mut overlap = false;
        walk_exprs(&body, &mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Load(v, idx) = &x.kind {
                    if *v == var && idx.iter().map(key).collect::<Vec<_>>() != here {
                        overlap = true;
                    }
                }
            })
        });
        if !overlap {
            self.emit_section_nest(dims, body, vector);
            return Ok(());
        }
        // Fortran evaluates the whole right-hand side first: compute into a temporary of
        // the target's shape, then copy.
        let ty = self.f.var(var).ty.clone();
        let name = self.temp_name(&format!("{}_tmp", self.f.var(var).name));
        let tmp = self.f.add_var(name, ty, VarRole::Temp, span);
        self.alloc_at_top(tmp, span);
        match body.last_mut().map(|s| &mut s.kind) {
            Some(StmtKind::Assign { target, .. }) => target.var = tmp,
            // Masked: the temporary keeps the old value where the mask is false.
            Some(StmtKind::If { then_body, else_body, .. }) => {
                if let Some(Stmt { kind: StmtKind::Assign { target, .. }, .. }) = then_body.last_mut() {
                    target.var = tmp;
                }
                let keep = Expr::load(var, index.clone(), elem);
                else_body.push(Stmt::new(
                    StmtKind::Assign { target: Place::element(tmp, index.clone()), value: keep },
                    span,
                ));
            }
            _ => {}
        }
        self.emit_section_nest(dims.clone(), body, vector);
        let mut dims2 = Vec::new();
        let mut index2 = index.clone();
        for d in &dims {
            let name = self.f.var(d.var).name.clone();
            let id = self.f.add_var(name, Type::Scalar(Scalar::I64), VarRole::Index, span);
            let iv = Expr::var(id, Scalar::I64);
            index2 = index2.iter().map(|e| canon(&e.substitute(d.var, &iv))).collect();
            dims2.push(MapDim { var: id, start: d.start.clone(), stop: d.stop.clone() });
        }
        let copy = Stmt::new(
            StmtKind::Assign { target: Place::element(var, index2.clone()), value: Expr::load(tmp, index2, elem) },
            span,
        )
        .with_note(Note::CopyFromTemporary { var: self.f.var(var).name.clone() });
        self.emit_section_nest(dims2, vec![copy], vector);
        Ok(())
    }

    /// The loop nest of an array assignment: a map, or with a vector subscript on the left
    /// (`x(idx) = v`) sequential loops, since nothing proves the indices distinct (Fortran
    /// forbids repeated ones there, but a wrong program must not become a data race).
    fn emit_section_nest(&mut self, dims: Vec<MapDim>, body: Block, vector: bool) {
        if !vector {
            self.emit(StmtKind::Map(Map { id: MapId::NEW, dims, body }));
            return;
        }
        let span = self.span;
        let mut body = body;
        for d in dims.into_iter().rev() {
            let l = Loop { id: LoopId::NEW, var: d.var, start: d.start, stop: d.stop, step: Expr::int(1), body };
            body = vec![Stmt::new(StmtKind::Loop(l), span)];
        }
        for s in body {
            if let StmtKind::Loop(l) = s.kind {
                self.emit(StmtKind::Loop(l));
            }
        }
    }

    fn do_loop(&mut self, d: &'t ast::DoLoop) -> R<()> {
        let head = d.head;
        let span = head;
        self.span = span;
        let (var_node, start, last, step) = match &d.control {
            DoControl::Counted { var, start, last, step } => (var, start, last, step.as_ref()),
            DoControl::While { .. } | DoControl::Forever => return self.do_while(d),
            DoControl::Concurrent { span: conc, items } => return self.do_concurrent(d, *conc, items),
            DoControl::Malformed(at) => return Err(self.err(*at, "cannot read this loop control")),
        };
        let name = self.text(var_node).to_ascii_lowercase();
        if self.loops.iter().any(|(x, _)| *x == name) {
            return Err(self.err(
                var_node,
                format!("the `do` variable `{}` is already used by an enclosing loop", self.text(var_node)),
            ));
        }
        let declared = self.lookup(var_node)?;
        if let Binding::Var(v) = declared {
            self.do_vars.insert(v);
            if let Some(&(_, init, save)) = self.initialised.iter().find(|(x, _, _)| *x == v) {
                return Err(self.saved_error(v, init, save, self.sp(var_node)));
            }
        }
        match declared {
            Binding::Var(v)
                if self.f.var(v).ty == Type::Scalar(Scalar::I64)
                    && !self.f.is_param(v)
                    && self.f.var(v).role != VarRole::Param => {}
            _ => {
                return Err(
                    self.err(var_node, format!("the `do` variable `{}` must be a local integer", self.text(var_node)))
                )
            }
        }
        let start = self.int_expr(start)?;
        let last = self.int_expr(last)?;
        let step_value = match step {
            Some(s) => self.int_expr(s)?,
            None => Expr::int(1),
        };
        let step_at = step.map_or(head, |s| s.span);
        let stop = match step_value.as_int() {
            Some(0) => return Err(self.err(step_at, "the loop step cannot be zero")),
            Some(k) if k > 0 => canon(&last.add(Expr::int(1))),
            Some(_) => canon(&last.sub(Expr::int(1))),
            None => {
                return Err(self
                    .err(step_at, "the loop step must be an integer constant")
                    .with_help("adjc needs the direction of every loop at compile time"))
            }
        };
        let spelled = self.text(var_node).to_string();
        let iv = self.f.add_var(spelled, Type::Scalar(Scalar::I64), VarRole::Index, self.sp(var_node));
        self.loops.push((name, iv));
        let body = self.loop_body_with_jumps(&d.name, |lw| lw.block_stmts(&d.body));
        self.loops.pop();
        let (fin, brk) = body?;
        self.span = span;
        if let Some(b) = brk {
            self.emit(StmtKind::Assign { target: Place::scalar(b), value: Expr::boolean(false) });
        }
        let body = adjc_ir::proc::jumps::counted_body(fin.body, &fin.stop);
        self.emit(StmtKind::Loop(Loop { id: LoopId::NEW, var: iv, start, stop, step: step_value, body }));
        Ok(())
    }

    fn if_stmt(&mut self, n: &'t AStmt, b: &'t ast::IfBlock) -> R<()> {
        let span = self.sp(n);
        let cond = self.cond_expr(&b.cond)?;
        if b.one_line && b.then_body.len() != 1 {
            return Err(self.err(n, "cannot read this one-line `if`"));
        }
        // A condition known here (`present(x)` in an inlined callee): only its branch is
        // lowered (the other may use an absent argument).
        if let ExprKind::Const(Literal::Bool(known)) = cond.kind {
            if known {
                return self.block_stmts(&b.then_body);
            }
            let else_body = self.else_chain(&b.clauses)?;
            if let Some(block) = self.blocks.last_mut() {
                block.extend(else_body);
            }
            return Ok(());
        }
        let then_body = self.with_block(|lw| lw.block_stmts(&b.then_body))?;
        let else_body = self.else_chain(&b.clauses)?;
        self.span = span;
        self.emit(StmtKind::If { cond, then_body, else_body });
        Ok(())
    }

    /// Lowers `stmts` in order into the current block.
    fn block_stmts(&mut self, stmts: &'t [AStmt]) -> R<()> {
        // Forward `goto`s to labels of the list are structured exits (`returns`).
        self.stmts_with_gotos(stmts)
    }

    /// `where (mask) ... [elsewhere ...] end where` and the one-line form: every
    /// assignment inside is a masked array assignment. Fortran evaluates the mask once,
    /// before the assignments; adjc evaluates it per assignment, so a construct with
    /// several assignments may not assign what its mask reads.
    fn where_stmt(&mut self, w: &'t ast::WhereBlock) -> R<()> {
        let mask = &w.mask;
        // Each group's masks: `where (m1)` is `m1`; `elsewhere (m2)` after it `.not. m1
        // .and. m2`; a final `elsewhere` `.not.` of every mask before.
        let mut groups: Vec<MaskedGroup<'t>> = vec![(vec![(mask, false)], w.body.iter().collect())];
        let mut before: Vec<(&'t AExpr, bool)> = vec![(mask, true)];
        let mut mask_names = mask.names();
        for e in &w.elsewhere {
            let mut masks = before.clone();
            if let Some(m) = &e.mask {
                masks.push((m, false));
                before.push((m, true));
                mask_names.extend(m.names());
            }
            groups.push((masks, e.body.iter().collect()));
        }
        let assigns: Vec<(&[(&'t AExpr, bool)], &'t AStmt)> =
            groups.iter().flat_map(|(masks, stmts)| stmts.iter().map(move |s| (masks.as_slice(), *s))).collect();
        for (_, s) in &assigns {
            if !matches!(s.kind, S::Assign { .. }) {
                return Err(self.err(*s, "only array assignments are supported inside `where`"));
            }
        }
        if assigns.len() > 1 {
            for (_, s) in &assigns {
                let S::Assign { lhs: t, .. } = &s.kind else { continue };
                let base = match &t.kind {
                    AKind::Call { callee, .. } => &**callee,
                    _ => t,
                };
                let name = self.text(base).to_ascii_lowercase();
                if mask_names.contains(&name) {
                    return Err(self
                        .err(*s, format!("`{name}` is assigned inside a `where` whose mask reads it"))
                        .with_help("compute the mask into a logical array first, or split the `where`"));
                }
            }
        }
        for (masks, s) in assigns {
            self.span = self.sp(s);
            let S::Assign { lhs, rhs } = &s.kind else { continue };
            self.assign(lhs, rhs, masks)?;
        }
        Ok(())
    }

    /// `allocate(w(lo:hi, ...), ...)`: gives an allocatable local its shape (which may
    /// only depend on integer arguments: the array is allocated once, at the top).
    fn allocate(&mut self, items: &'t [ast::Allocation]) -> R<()> {
        for a in items {
            let (span, name, shape) = match a {
                ast::Allocation::Sized { span, name, shape } => (*span, name, shape),
                ast::Allocation::Unsupported(d) => return Err(d.clone()),
            };
            let v = match self.lookup(name)? {
                Binding::Var(v) if self.deferred.contains_key(&v) => v,
                _ => {
                    return Err(self
                        .err(name, format!("`{}` is not an allocatable local array", self.text(name)))
                        .with_help("declare it `real(8), allocatable :: name(:)`"))
                }
            };
            let rank = self.deferred.get(&v).copied().unwrap_or(0);
            let specs = super::decl::dim_specs(shape)?;
            if specs.len() != rank {
                return Err(self.err(shape.span, format!("`{}` is declared with rank {rank}", self.text(name))));
            }
            let sym = super::decl::Sym {
                dims: Some(specs),
                ..super::decl::Sym::bare(self.f.var(v).name.clone(), self.sp(name))
            };
            let dims = self.array_dims(&sym, None)?;
            let elem = self.f.var(v).ty.elem();
            self.f.var_mut(v).ty = Type::Array { elem, dims, layout: Layout::ColMajor };
            self.deferred.remove(&v);
            self.alloc_at_top(v, span);
        }
        Ok(())
    }

    /// A timer or profiling hook: not part of the math, left out of the kernel. The
    /// variables it sets must not be used by the math (checked at the end).
    fn leave_out(&mut self, n: &'t AStmt, name: &str, args: &'t [AExpr]) -> R<()> {
        for a in args {
            let target = match &a.kind {
                AKind::Keyword { value, .. } => &**value,
                _ => a,
            };
            let text = self.text_names.contains(&self.text(target).to_ascii_lowercase());
            if let (AKind::Name(_), false) = (&target.kind, text) {
                // Undeclared under `implicit none` is an error even here (as in gfortran).
                if let Binding::Var(v) = self.lookup(target)? {
                    self.left_out.push((v, name.to_string(), self.sp(n)));
                }
            }
        }
        self.f.notes.push(format!(
            "line {}: `{}` left out (timer or profiling hook, not part of the math)",
            self.span.line,
            self.text(n).trim()
        ));
        Ok(())
    }

    /// `if (lhook) call dr_hook(...)` (IFS/ecRad): an `if` whose branches only call timers
    /// or profiling hooks is left out whole; its condition (a module logical, whatever its
    /// declaration) is not evaluated.
    fn leave_out_guarded_hooks(&mut self, n: &'t AStmt, b: &'t ast::IfBlock) -> R<()> {
        let bodies = std::iter::once(&b.then_body).chain(b.clauses.iter().map(|c| match c {
            ast::ElseClause::ElseIf { body, .. } | ast::ElseClause::Else { body, .. } => body,
        }));
        for s in bodies.flatten() {
            if let S::Call { name, args } = &s.kind {
                for a in args {
                    let target = match &a.kind {
                        AKind::Keyword { value, .. } => &**value,
                        _ => a,
                    };
                    if let (AKind::Name(_), Ok(Binding::Var(v))) = (&target.kind, self.lookup(target)) {
                        self.left_out.push((v, name.to_string(), self.sp(s)));
                    }
                }
            }
        }
        self.f.notes.push(format!(
            "line {}: `{}` left out (profiling hook, not part of the math)",
            self.span.line,
            self.text(n).lines().next().unwrap_or("").trim()
        ));
        Ok(())
    }

    /// `do concurrent (i = a:b[:s], j = ...)`: a nest of loops, outermost first (the
    /// parallelizer turns independent ones into maps).
    fn do_concurrent(&mut self, d: &'t ast::DoLoop, conc: Span, items: &'t [ast::ConcurrentItem]) -> R<()> {
        let span = d.head;
        if items.is_empty() {
            return Err(self.err(conc, "cannot read this `do concurrent` header"));
        }
        let mut controls = Vec::new();
        let mut masks = Vec::new();
        for p in items {
            match p {
                ast::ConcurrentItem::Mask { cond, .. } => masks.push(cond),
                ast::ConcurrentItem::Other { span, mask: true } => {
                    return Err(self
                        .err(*span, "masks in `do concurrent` are not supported yet")
                        .with_help("put an `if` around the loop body"))
                }
                ast::ConcurrentItem::Other { span, mask: false } => {
                    return Err(self.err(*span, "cannot read this `do concurrent` index"))
                }
                ast::ConcurrentItem::Control { var, start, last, step, .. } => controls.push((var, start, last, step)),
            }
        }
        let mut loops = Vec::new();
        let mut failed = None;
        for c in &controls {
            let r = self.concurrent_index(c.0, c.1, c.2, c.3.as_ref());
            match r {
                Ok(l) => {
                    self.loops.push((self.text(c.0).to_ascii_lowercase(), l.0));
                    loops.push(l);
                }
                Err(d) => {
                    failed = Some(d);
                    break;
                }
            }
        }
        let body = match failed {
            Some(d) => Err(d),
            None => self.concurrent_body(|lw| {
                if masks.is_empty() {
                    return lw.block_stmts(&d.body);
                }
                // The mask: the body runs where it holds.
                let mut cond: Option<Expr> = None;
                for m in &masks {
                    let c = lw.cond_expr(m)?;
                    cond = Some(match cond {
                        None => c,
                        Some(prev) => Expr::binary(BinOp::And, prev, c),
                    });
                }
                let then_body = lw.with_block(|lw| lw.block_stmts(&d.body))?;
                if let Some(cond) = cond {
                    lw.span = span;
                    lw.emit(StmtKind::If { cond, then_body, else_body: Vec::new() });
                }
                Ok(())
            }),
        };
        for _ in &loops {
            self.loops.pop();
        }
        let mut body = body?;
        for (iv, start, stop, step) in loops.into_iter().rev() {
            body = vec![Stmt::new(
                StmtKind::Loop(Loop { id: LoopId::NEW, var: iv, start, stop, step: Expr::int(step), body }),
                span,
            )];
        }
        if let Some(b) = self.blocks.last_mut() {
            b.extend(body);
        }
        Ok(())
    }

    /// `forall`: each assignment is a `do concurrent` loop over the header's indices, under
    /// its mask. Fortran evaluates the right-hand side (and the mask) for every index before
    /// assigning; the loop does the same only when they read no element of the assigned
    /// array other than the one assigned (the same subscripts), which is required here.
    fn forall(&mut self, loops: &'t [ast::DoLoop]) -> R<()> {
        for d in loops {
            let [stmt] = d.body.as_slice() else { continue };
            let S::Assign { lhs, rhs } = &stmt.kind else {
                return Err(self
                    .err(stmt, "only assignments are supported inside `forall`")
                    .with_help("write the statement in a `do` loop"));
            };
            let (name, subs) = match &lhs.kind {
                AKind::Call { callee, .. } => (self.text(&**callee).to_ascii_lowercase(), self.text(lhs).to_string()),
                _ => (self.text(lhs).to_ascii_lowercase(), String::new()),
            };
            let strip = |t: &str| t.to_ascii_lowercase().chars().filter(|c| !c.is_whitespace()).collect::<String>();
            let own = strip(&subs);
            let mut reads: Vec<&'t AExpr> = vec![rhs];
            if let DoControl::Concurrent { items, .. } = &d.control {
                reads.extend(items.iter().filter_map(|i| match i {
                    ast::ConcurrentItem::Mask { cond, .. } => Some(cond),
                    _ => None,
                }));
            }
            let mut stack = reads;
            while let Some(x) = stack.pop() {
                let hit = match &x.kind {
                    AKind::Name(n) => n.eq_ignore_ascii_case(&name),
                    AKind::Call { callee, .. } => {
                        callee.as_name().is_some_and(|c| c.eq_ignore_ascii_case(&name)) && strip(&self.text(x)) != own
                    }
                    _ => false,
                };
                if hit {
                    return Err(self
                        .err(x, format!("this `forall` reads elements of `{name}` that it assigns"))
                        .with_help("Fortran evaluates every right-hand side first: copy the array, or write `do` loops in the order you need"));
                }
                if let AKind::Call { args, .. } = &x.kind {
                    stack.extend(args.iter());
                } else {
                    stack.extend(x.children());
                }
            }
            self.do_loop(d)?;
        }
        Ok(())
    }

    /// One `i = a:b[:s]` of a `do concurrent` header: the index variable and its range.
    fn concurrent_index(
        &mut self,
        var: &'t AExpr,
        start: &'t AExpr,
        last: &'t AExpr,
        step: Option<&'t AExpr>,
    ) -> R<(VarId, Expr, Expr, i64)> {
        let name = self.text(var).to_ascii_lowercase();
        if self.loops.iter().any(|(x, _)| *x == name) {
            return Err(self.err(var, format!("the index `{}` is already used by an enclosing loop", self.text(var))));
        }
        let start = self.int_expr(start)?;
        let last = self.int_expr(last)?;
        let step = match step {
            Some(s) => match self.int_expr(s)?.as_int() {
                Some(0) => return Err(self.err(s, "the loop step cannot be zero")),
                Some(k) => k,
                None => return Err(self.err(s, "the loop step must be an integer constant")),
            },
            None => 1,
        };
        let stop = if step > 0 { canon(&last.add(Expr::int(1))) } else { canon(&last.sub(Expr::int(1))) };
        let iv = self.f.add_var(self.text(var).to_string(), Type::Scalar(Scalar::I64), VarRole::Index, self.sp(var));
        Ok((iv, start, stop, step))
    }

    /// `select case` on an integer or logical: a chain of `if`s.
    fn select_case(&mut self, c: &'t ast::SelectCase) -> R<()> {
        let sel_expr = &c.selector;
        if self.shape_of(sel_expr)?.is_some() {
            return Err(self.err(sel_expr, "the selector of `select case` must be a scalar"));
        }
        let value = self.expr(sel_expr, None)?;
        if value.ty.is_float() {
            return Err(self.err(sel_expr, "`select case` needs an integer or logical selector"));
        }
        let mut arms: Vec<(Option<Expr>, Span, &'t [AStmt])> = Vec::new();
        for case in &c.cases {
            let mut cond: Option<Expr> = None;
            for v in &case.values {
                let c = self.case_test(v, &value)?;
                cond = Some(match cond {
                    None => c,
                    Some(prev) => Expr::binary(BinOp::Or, prev, c),
                });
            }
            if case.default && arms.iter().any(|a| a.0.is_none()) {
                return Err(self
                    .err(case.span, "a second `case default`")
                    .with_help("a `select case` has at most one `case default`"));
            }
            let cond = if case.default { None } else { Some(cond.unwrap_or_else(|| Expr::boolean(false))) };
            arms.push((cond, case.span, &case.body));
        }
        // The default arm runs when no other arm matches, wherever it is written.
        let default = arms.iter().position(|a| a.0.is_none()).map(|k| arms.remove(k));
        let mut else_body = match default {
            Some((_, _, body)) => self.with_block(|lw| lw.block_stmts(body))?,
            None => Vec::new(),
        };
        for (cond, case_span, body) in arms.into_iter().rev() {
            let then_body = self.with_block(|lw| lw.block_stmts(body))?;
            let cond = cond.unwrap_or_else(|| Expr::boolean(true));
            else_body = vec![Stmt::new(StmtKind::If { cond, then_body, else_body }, case_span)];
        }
        if let Some(b) = self.blocks.last_mut() {
            b.extend(else_body);
        }
        Ok(())
    }

    /// One case value (`3`) or range (`2:4`, `:0`, `5:`) as a condition on the selector.
    fn case_test(&mut self, v: &'t AExpr, value: &Expr) -> R<Expr> {
        let AKind::Range { lo, hi, .. } = &v.kind else {
            let x = self.case_value(v, value)?;
            return Ok(Expr::binary(BinOp::Eq, value.clone(), x));
        };
        let lo = match lo {
            Some(x) => Some(Expr::binary(BinOp::Ge, value.clone(), self.case_value(x, value)?)),
            None => None,
        };
        let hi = match hi {
            Some(x) => Some(Expr::binary(BinOp::Le, value.clone(), self.case_value(x, value)?)),
            None => None,
        };
        Ok(match (lo, hi) {
            (Some(a), Some(b)) => Expr::binary(BinOp::And, a, b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => Expr::boolean(true),
        })
    }

    fn case_value(&mut self, n: &'t AExpr, selector: &Expr) -> R<Expr> {
        let v = self.expr(n, None)?;
        if !v.vars().is_empty() || v.ty != selector.ty {
            return Err(self.err(n, format!("a case value must be a {} constant", selector.ty)));
        }
        Ok(v)
    }

    /// `else if ... else ...` as nested `If`s in the else branch.
    fn else_chain(&mut self, clauses: &'t [ElseClause]) -> R<Block> {
        let Some((first, rest)) = clauses.split_first() else { return Ok(Vec::new()) };
        let (span, cond, body) = match first {
            ElseClause::Else { body, .. } => return self.with_block(|lw| lw.block_stmts(body)),
            ElseClause::ElseIf { span, cond, body } => (*span, cond, body),
        };
        self.span = span;
        let cond = self.cond_expr(cond)?;
        if let ExprKind::Const(Literal::Bool(known)) = cond.kind {
            return if known { self.with_block(|lw| lw.block_stmts(body)) } else { self.else_chain(rest) };
        }
        let then_body = self.with_block(|lw| lw.block_stmts(body))?;
        let else_body = self.else_chain(rest)?;
        Ok(vec![Stmt::new(StmtKind::If { cond, then_body, else_body }, span)])
    }
}

/// Whether an input/output statement only writes out (changes no variable of the kernel):
/// `print`, `write`, `open`, `close`, `rewind`, `flush`, `format`, without the specifiers
/// that set a variable (`iostat=`, `newunit=`, `iomsg=`, `size=`). Leaving it out cannot
/// change a value or a derivative.
fn output_only(kind: ast::IoKind, text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    let sets = ["iostat", "newunit", "iomsg", "size"].iter().any(|k| {
        t.match_indices(k).any(|(i, _)| {
            let before = t[..i].chars().next_back().is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
            let after = t[i + k.len()..].trim_start();
            before && after.starts_with('=') && !after.starts_with("==")
        })
    });
    let word: String = t.trim_start().chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    match kind {
        ast::IoKind::Print | ast::IoKind::Write => !sets,
        ast::IoKind::Read => false,
        ast::IoKind::Other => !sets && matches!(word.as_str(), "open" | "close" | "rewind" | "flush" | "format"),
    }
}

/// Whether every branch of `b` holds only calls of timers and hooks (and labels or
/// `continue`), and at least one such call.
fn only_hooks(b: &ast::IfBlock) -> bool {
    let bodies: Vec<&Vec<AStmt>> = std::iter::once(&b.then_body)
        .chain(b.clauses.iter().map(|c| match c {
            ast::ElseClause::ElseIf { body, .. } | ast::ElseClause::Else { body, .. } => body,
        }))
        .collect();
    let hook = |s: &AStmt| matches!(&s.kind, S::Call { name, .. } if TIMERS_AND_HOOKS.contains(&name.to_ascii_lowercase().as_str()));
    let quiet = |s: &AStmt| hook(s) || matches!(s.kind, S::Continue | S::Label(_));
    bodies.iter().any(|b| b.iter().any(hook)) && bodies.iter().all(|b| b.iter().all(quiet))
}

/// Calls that measure or trace the run and do not change the math.
const TIMERS_AND_HOOKS: [&str; 8] =
    ["cpu_time", "system_clock", "date_and_time", "dr_hook", "timer_start", "timer_stop", "timer_clear", "timer_read"];

/// `r(cell(e, 1)) = r(cell(e, 1)) - f` through an index array: an accumulation of `-f` (as
/// Python's `-=`), so a loop of them may run in parallel with atomic updates and the adjoint
/// needs no old value of the target. The term added, when `value` is the target plus or
/// minus something that does not read the target's array.
fn scatter_term(target: &Place, value: &Expr) -> Option<Expr> {
    let mut indirect = false;
    for i in &target.index {
        i.walk(&mut |x| indirect |= matches!(x.kind, ExprKind::Load(..)));
    }
    if !indirect || !value.ty.is_float() {
        return None;
    }
    let ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) = &value.kind else { return None };
    let is_target = |e: &Expr| matches!(&e.kind, ExprKind::Load(v, idx) if *v == target.var && adjc_ir::proc::eq::same_index(idx, &target.index));
    let term = if is_target(a) {
        if *op == BinOp::Add {
            (**b).clone()
        } else {
            (**b).clone().neg()
        }
    } else if *op == BinOp::Add && is_target(b) {
        (**a).clone()
    } else {
        return None;
    };
    (!term.mentions(target.var)).then_some(term)
}
