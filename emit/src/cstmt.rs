//! C statements, one indented line at a time, each group of statements from one source
//! line preceded by a comment quoting it.

use crate::cexpr::{self, c_type, negated, zero};
use crate::ctx::FnCtx;
use crate::layout::Access;
use crate::omp::{self, MapKey, MapPlan, Mode, Plan, Sync};
use crate::sizes::Arena;
use adjc_ir::{
    written_vars, AccOp, BinOp, Diagnostic, Expr, ExprKind, Failure, Intrinsic, Loop, Map, MapId, Module, Place,
    Scalar, Stmt, StmtKind, UnOp, VarId,
};
use std::collections::BTreeSet;

/// Quotes source lines in comments.
pub(crate) struct Quote<'a> {
    /// Source lines, split once (`Module::source_line` rescans the text on every call).
    lines: Vec<&'a str>,
    /// [`Module::continued`]: statements quoted whole.
    continued: &'a [(u32, u32)],
    file: String,
    /// With `--line-directives`: the source path as a C string literal (`"examples/a.py"`).
    directive_path: Option<String>,
}

/// The line that [`resolve_line_resets`] turns into a `#line` back to the C file itself.
pub(crate) const LINE_RESET: &str = "#line adjc-reset";

impl<'a> Quote<'a> {
    pub fn new(module: &'a Module, line_directives: bool) -> Quote<'a> {
        let file = module.file.rsplit(['/', '\\']).next().unwrap_or(&module.file).to_string();
        let directive_path = line_directives.then(|| c_string(&module.file));
        Quote { lines: module.source.lines().collect(), continued: &module.continued, file, directive_path }
    }

    /// `#line 7 "jacobi_1d.py"`, with `--line-directives`.
    pub fn directive(&self, line: u32) -> Option<String> {
        self.directive_path.as_ref().map(|p| format!("#line {line} {p}"))
    }

    pub fn directives(&self) -> bool {
        self.directive_path.is_some()
    }

    /// The first line of the statement that line `line` belongs to (what [`Quote::block`]
    /// quotes from).
    pub fn statement_start(&self, line: u32) -> u32 {
        adjc_ir::statement_lines(self.continued, line).0
    }

    fn text(&self, line: u32) -> &'a str {
        (line as usize).checked_sub(1).and_then(|k| self.lines.get(k)).copied().unwrap_or("")
    }

    /// `/* jacobi_1d.py:7   B[1:-1] = ... */`: line `line` alone, for a trailing comment
    /// (an entry check names the line of the index it checks, even inside a continued
    /// statement; the statement itself is quoted whole above its code, [`Quote::block`]).
    pub fn line(&self, line: u32) -> String {
        let text = self.text(line).trim();
        if text.is_empty() {
            format!("/* {}:{line} */", comment_text(&self.file))
        } else {
            format!("/* {}:{line}   {} */", comment_text(&self.file), comment_text(text))
        }
    }

    /// The comments above the statements of line `line`: [`Quote::line`] for a one-line
    /// statement; a continued one quoted line by line as written, one comment per line
    /// (each a one-line comment, as the wrapping expects), the continuation lines keeping
    /// their indentation relative to the first:
    ///
    /// ```text
    /// /* cont.f90:8    y(i) = 2.0d0 * x(i) & */
    /// /* cont.f90:9         + x(i) * x(i) & */
    /// /* cont.f90:10        - 1.0d0 */
    /// ```
    pub fn block(&self, line: u32) -> Vec<String> {
        let (first, last) = adjc_ir::statement_lines(self.continued, line);
        if first == last {
            return vec![self.line(line)];
        }
        let file = comment_text(&self.file);
        let width = format!("{file}:{last}").chars().count();
        let indent = |t: &str| t.len() - t.trim_start().len();
        let base = indent(self.text(first));
        let mut out = Vec::new();
        for l in first..=last {
            let raw = self.text(l);
            let text = comment_text(raw.trim());
            let label = format!("{file}:{l}");
            if text.is_empty() {
                out.push(format!("/* {label} */"));
                continue;
            }
            let extra = " ".repeat(indent(raw).saturating_sub(base));
            out.push(format!("/* {label:<width$}   {extra}{text} */"));
        }
        out
    }
}

/// `s` as a C string literal.
fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' | '\\' => {
                out.push('\\');
                out.push(ch);
            }
            c if c.is_control() => out.push('?'),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Each [`LINE_RESET`] line of the finished `.c` becomes `#line N "stem.c"`, `N` being the
/// number of the line after it: the code after a function's statements (frees, `#undef`s,
/// the next function's prologue) is reported at its own place again.
pub(crate) fn resolve_line_resets(text: &str, c_file: &str) -> String {
    if !text.contains(LINE_RESET) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for (k, line) in text.split_inclusive('\n').enumerate() {
        if line.trim_end() == LINE_RESET {
            out.push_str(&format!("#line {} {}\n", k + 2, c_string(c_file)));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Text that is safe inside a one-line `/* ... */` comment: no comment delimiters (a
/// nested `/*` also trips -Wcomment), no control characters or line breaks.
pub fn comment_text(s: &str) -> String {
    let flat: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let mut out = flat.replace("*/", "* /").replace("/*", "/ *");
    while out.contains("*/") || out.contains("/*") {
        out = out.replace("*/", "* /").replace("/*", "/ *");
    }
    out.trim_end().to_string()
}

/// `/* ===== forward sweep ===== */`
pub fn banner(title: &str) -> String {
    format!("/* ===== {} ===== */", comment_text(title))
}

pub(crate) struct Emitter<'a> {
    cx: &'a FnCtx<'a>,
    plan: &'a Plan,
    quote: &'a Quote<'a>,
    pub out: Vec<String>,
    depth: usize,
    chain: Vec<MapKey>,
    parallel: Option<MapKey>,
    /// Whether some statement jumps to the `out_of_memory` label.
    pub uses_goto: bool,
    /// The failures some statement jumps to (label [`fail_label`] each).
    pub fails: Vec<Failure>,
    /// At the level of a hoisted parallel region: maps are `omp for`, other statements are
    /// grouped into `omp single`.
    region_level: bool,
    /// Writing the sequential copy of a guarded map or region: no OpenMP at all.
    serial_copy: bool,
    /// The sequential code is the only copy (a loop kept sequential as a whole): it quotes
    /// the source and carries the notes, which a copy after `else` leaves to the first.
    sole_copy: bool,
    /// Arrays allocated where their `Alloc` stands (a memory plan), not at the top.
    placed: &'a BTreeSet<VarId>,
    /// Their places in the block reserved on entry, and how many have been taken so far.
    arena: &'a Arena,
    taken: usize,
    /// Iteration-private scalars declared `const` where they are assigned (see
    /// [`const_locals`]).
    consts: BTreeSet<VarId>,
    /// Iteration-private scalars declared at their first assignment (`double t = ...;`)
    /// instead of zero-initialised first (see [`assigned_first`]); removed once declared.
    declare_at: BTreeSet<VarId>,
    /// Inside a row sum written in tiles ([`crate::sum_tiles`]): the accumulating map,
    /// written as a loop over the tile's lanes into the local array.
    tile: Option<TileLanes>,
    /// Maps whose first iteration is a C variable (the remainder of a tiled row sum).
    start_at: Vec<(MapId, String)>,
}

/// The inner map of a tiled row sum and the C names its lane loop uses.
struct TileLanes {
    inner: MapId,
    /// The first element of the tile (`l_tile`).
    first: String,
    /// The local array of partial sums (`output_sum`).
    sums: String,
    /// How many (`ADJC_SUM_TILE`, `ADJC_SUM_TILE / 2`).
    width: String,
}

impl<'a> Emitter<'a> {
    pub fn new(
        cx: &'a FnCtx<'a>,
        plan: &'a Plan,
        quote: &'a Quote<'a>,
        placed: &'a BTreeSet<VarId>,
        arena: &'a Arena,
    ) -> Emitter<'a> {
        Emitter {
            cx,
            plan,
            quote,
            out: Vec::new(),
            depth: 1,
            chain: Vec::new(),
            parallel: None,
            uses_goto: false,
            fails: Vec::new(),
            region_level: false,
            serial_copy: false,
            sole_copy: false,
            consts: BTreeSet::new(),
            declare_at: BTreeSet::new(),
            tile: None,
            start_at: Vec::new(),
            placed,
            arena,
            taken: 0,
        }
    }

    /// The allocation or free of an array a memory plan places inside a sweep: it takes its
    /// place in the block reserved on entry (which cannot fail), and gives it back.
    fn placed_alloc(&mut self, s: &Stmt) -> Result<(), Diagnostic> {
        match s.kind {
            StmtKind::Alloc(v) | StmtKind::Free(v) if !self.placed.contains(&v) => {}
            StmtKind::Alloc(v) => {
                let text = self.arena.take(self.cx, self.taken, v).ok_or_else(|| {
                    Diagnostic::internal(
                        s.span,
                        format!("allocation of `{}` out of the plan's order", self.cx.f.var(v).name),
                    )
                })?;
                self.taken += 1;
                self.line(text);
            }
            StmtKind::Free(v) => {
                let name = self.cx.name(v);
                self.line(format!("{name} = NULL; /* its place in the arena goes to later arrays */"));
            }
            _ => {}
        }
        Ok(())
    }

    fn line(&mut self, text: impl AsRef<str>) {
        let text = text.as_ref();
        if text.is_empty() {
            self.out.push(String::new());
        } else {
            self.out.push(format!("{}{}", "    ".repeat(self.depth), text));
        }
    }

    fn expr(&self, e: &Expr) -> String {
        cexpr::expr(self.cx, e)
    }

    fn place(&self, p: &Place) -> String {
        if p.is_scalar() {
            let name = self.cx.name(p.var);
            match self.cx.access(p.var) {
                Access::Pointer => format!("(*{name})"),
                _ => name.to_string(),
            }
        } else {
            cexpr::element(self.cx, p.var, &p.index)
        }
    }

    /// Renders `block`. `last` is the source line already quoted just above (so a body from
    /// the same line as its loop does not repeat it); `spaced` separates statement groups
    /// by blank lines (at the top level of a function).
    pub fn block(&mut self, block: &[Stmt], mut last: u32, spaced: bool) -> Result<(), Diagnostic> {
        let mut first = true;
        let region = self.region_level;
        let mut in_single = false;
        let mut tiled_next = false;
        for (at, s) in block.iter().enumerate() {
            // The second statement of a row sum written in tiles was written with the first.
            if std::mem::take(&mut tiled_next) {
                continue;
            }
            // Hoisted (allocated at the top of the function, freed at the end) unless a
            // memory plan placed it: no code here, and no `omp single` around nothing.
            if omp::writes_no_code(s, self.placed) {
                continue;
            }
            if region {
                let shared = self.shared_construct(s);
                if !shared && !in_single {
                    self.line("ADJC_OMP(single)");
                    self.line("{");
                    self.depth += 1;
                    in_single = true;
                } else if shared && in_single {
                    self.depth -= 1;
                    self.line("}");
                    in_single = false;
                }
                self.region_level = shared;
            }
            if let StmtKind::Section { title, body } = &s.kind {
                if !first {
                    self.line("");
                }
                self.line(banner(title));
                if let Some(note) = &s.note {
                    self.line(format!("/* {} */", comment_text(&note.to_string())));
                }
                self.block(body, 0, spaced)?;
                last = 0;
                first = false;
                continue;
            }
            // Every line of a continued statement is quoted as the statement's first.
            let line = self.quote.statement_start(s.span.line);
            // The sequential copy of a guarded loop repeats no comment: the parallel copy
            // just above quotes every source line once.
            if line != 0 && line != last && !self.quiet() {
                if spaced && !first {
                    self.line("");
                }
                for text in self.quote.block(line) {
                    self.line(text);
                }
                if let Some(d) = self.quote.directive(line) {
                    // Preprocessor lines start in column 0; the next line is line `line`.
                    self.out.push(d);
                }
                last = line;
            }
            if let Some(note) = s.note.as_ref().filter(|_| !self.quiet()) {
                let note = crate::note::text(self.cx, s, note);
                self.line(format!("/* {} */", comment_text(&note)));
            }
            let tile = if region || self.tile.is_some() {
                None
            } else {
                crate::sum_tiles::find(self.cx, self.plan, s, block.get(at + 1))
            };
            match tile {
                Some(t) => {
                    // The nest's own source line, when it has one.
                    let next = self.quote.statement_start(block[at + 1].span.line);
                    if next != 0 && next != last && !self.quiet() {
                        for text in self.quote.block(next) {
                            self.line(text);
                        }
                        last = next;
                    }
                    self.sum_tile(&t, last)?;
                    tiled_next = true;
                }
                None => self.stmt(s, last)?,
            }
            first = false;
        }
        if in_single {
            self.depth -= 1;
            self.line("}");
        }
        self.region_level = region;
        Ok(())
    }

    /// Whether every thread of a hoisted region runs `s` (a worksharing map, or a loop
    /// holding them); other statements run in `omp single`.
    fn shared_construct(&self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Map(m) => self.plan.map(m).is_some_and(|p| p.mode == Mode::Workshare),
            StmtKind::Loop(l) => self.plan.region_loops.contains(&omp::loop_key(l)),
            _ => false,
        }
    }

    fn stmt(&mut self, s: &Stmt, line: u32) -> Result<(), Diagnostic> {
        match &s.kind {
            StmtKind::Assign { target, value } if target.is_scalar() && self.consts.contains(&target.var) => {
                let ty = c_type(self.cx.f.var(target.var).ty.elem());
                let text = format!("const {ty} {} = {};", self.place(target), self.expr(value));
                self.line(text);
            }
            StmtKind::Assign { target, value } if target.is_scalar() && self.declare_at.remove(&target.var) => {
                let ty = c_type(self.cx.f.var(target.var).ty.elem());
                let text = format!("{ty} {} = {};", self.place(target), self.expr(value));
                self.line(text);
            }
            StmtKind::Assign { target, value } => {
                let text = format!("{} = {};", self.place(target), self.expr(value));
                self.line(text);
            }
            StmtKind::Accumulate { target, op, value, shared } => self.accumulate(target, *op, value, *shared),
            StmtKind::Loop(l) => self.for_loop(l, line)?,
            StmtKind::While(w) => {
                let text = format!("while ({}) {{", self.expr(&w.cond));
                self.line(text);
                self.depth += 1;
                self.block(&w.body, line, false)?;
                self.depth -= 1;
                self.line("}");
            }
            StmtKind::Map(m) => self.map(m, line)?,
            StmtKind::If { cond, then_body, else_body } => self.if_stmt(cond, then_body, else_body, line)?,
            StmtKind::Alloc(_) | StmtKind::Free(_) => self.placed_alloc(s)?,
            StmtKind::Call(c) => {
                let out = self.place(&Place::scalar(c.out));
                let text = crate::blas::call(self.cx, c, s.span, &out)?;
                self.line(text);
            }
            StmtKind::Push { tape, value } => {
                let text = format!(
                    "if ({}(&{}, {}) != ADJC_OK) goto out_of_memory;",
                    stack_fn("push", value.ty),
                    self.cx.name(*tape),
                    self.expr(value)
                );
                self.uses_goto = true;
                self.line(text);
            }
            StmtKind::Fail(why) => {
                if self.parallel.is_some() || self.region_level {
                    return Err(Diagnostic::error(s.span, "internal error: a failure inside a parallel region"));
                }
                if !self.fails.contains(why) {
                    self.fails.push(*why);
                }
                self.line(format!("goto {};", fail_label(*why)));
            }
            StmtKind::Pop { tape, target } => {
                let ty = self.cx.f.var(target.var).ty.elem();
                let text = format!("{} = {}(&{});", self.place(target), stack_fn("pop", ty), self.cx.name(*tape));
                self.line(text);
            }
            StmtKind::Section { body, .. } => {
                // Sections are laid out by `block`; reaching here means one is used as a
                // plain statement list.
                self.block(body, 0, false)?;
            }
        }
        Ok(())
    }

    fn accumulate(&mut self, target: &Place, op: AccOp, value: &Expr, shared: bool) {
        let tgt = self.place(target);
        let ty = self.cx.f.var(target.var).ty.elem();
        let text = match op {
            AccOp::Add => match negated(value) {
                Some(pos) => format!("{tgt} -= {};", self.expr(&pos)),
                None => format!("{tgt} += {};", self.expr(value)),
            },
            AccOp::Mul => format!("{tgt} *= {};", self.expr(value)),
            AccOp::Max | AccOp::Min => {
                let old = target.to_expr(ty);
                let combined = if ty == Scalar::Bool {
                    let bop = if op == AccOp::Max { BinOp::Or } else { BinOp::And };
                    Expr::new(ExprKind::Binary(bop, Box::new(old), Box::new(value.clone())), ty, value.span)
                } else {
                    let f = if op == AccOp::Max { Intrinsic::Max } else { Intrinsic::Min };
                    Expr::call(f, vec![old, value.clone()], ty)
                };
                format!("{tgt} = {};", self.expr(&combined))
            }
        };
        let sync = if shared {
            self.plan.shared_update(self.cx.f, target, op, &self.chain, self.parallel)
        } else {
            Sync::Plain
        };
        match sync {
            Sync::Plain => self.line(text),
            Sync::Atomic => {
                // An update through an index array (a scatter-add, the adjoint of a gather):
                // nothing proves its indices distinct, so it stays atomic.
                let mut through: Vec<String> = Vec::new();
                for i in &target.index {
                    i.walk(&mut |x| {
                        if let ExprKind::Load(v, _) = &x.kind {
                            let n = format!("`{}`", self.cx.name(*v));
                            if !through.contains(&n) {
                                through.push(n);
                            }
                        }
                    });
                }
                if !through.is_empty() {
                    self.line(format!(
                        "/* atomic: the indices read from {} may repeat across iterations */",
                        through.join(", ")
                    ));
                }
                self.line("ADJC_OMP(atomic)");
                self.line(text);
            }
            Sync::Critical => {
                self.line("ADJC_OMP(critical)");
                self.line("{");
                self.depth += 1;
                self.line(text);
                self.depth -= 1;
                self.line("}");
            }
        }
    }

    /// `i < stop`, or `i <= stop - 1` when that reads simpler (`i <= N` for `range(1, N + 1)`).
    fn upper_cond(&self, var: &str, stop: &Expr) -> String {
        if !tame(stop) {
            return format!("{var} < {}", self.expr(stop));
        }
        let alt = stop.clone().sub(Expr::int(1));
        if size(&alt) < size(stop) {
            format!("{var} <= {}", self.expr(&alt))
        } else {
            format!("{var} < {}", self.expr(stop))
        }
    }

    /// `i >= stop + 1` when that reads no worse (`t >= 1` for a stop of 0), else `i > stop`.
    fn lower_cond(&self, var: &str, stop: &Expr) -> String {
        if !tame(stop) {
            return format!("{var} > {}", self.expr(stop));
        }
        let alt = stop.clone().add(Expr::int(1));
        if size(&alt) <= size(stop) {
            format!("{var} >= {}", self.expr(&alt))
        } else {
            format!("{var} > {}", self.expr(stop))
        }
    }

    /// Whether comments are left out here: in the sequential copy after `else`.
    fn quiet(&self) -> bool {
        self.serial_copy && !self.sole_copy
    }

    fn for_loop(&mut self, l: &Loop, line: u32) -> Result<(), Diagnostic> {
        if !self.region_level && !self.serial_copy && self.plan.region(l).is_none() {
            if let Some(pieces) = crate::slabs::split(self.cx, l) {
                return self.slab_loop(l, pieces, line);
            }
        }
        let region = if self.serial_copy || self.region_level { None } else { self.plan.region(l) };
        let Some(region) = region else { return self.plain_loop(l, line) };
        if let Some(note) = region.sequential {
            self.line(format!("/* {note} */"));
            self.serial_copy = true;
            self.sole_copy = true;
            let result = self.plain_loop(l, line);
            self.serial_copy = false;
            self.sole_copy = false;
            return result;
        }
        let mut note = "one parallel region around the loop: its maps share their iterations (omp for), the \
                        other statements run on one thread (omp single)"
            .to_string();
        if let Some(guard) = &region.guard {
            note.push_str(
                "; only when the work per construct pays for it (ADJC_OMP_PAYS), else the same loop, sequential, after `else`",
            );
            let text = format!("if (ADJC_OMP_PAYS({})) {{", guard.render(self.cx));
            self.line(format!("/* {note} */"));
            self.line(text);
            self.depth += 1;
        } else {
            self.line(format!("/* {note} */"));
        }
        self.line("ADJC_OMP(parallel)");
        self.region_level = true;
        let result = self.plain_loop(l, line);
        self.region_level = false;
        result?;
        if region.guard.is_some() {
            self.depth -= 1;
            self.line("} else {");
            self.depth += 1;
            self.serial_copy = true;
            let result = self.plain_loop(l, line);
            self.serial_copy = false;
            result?;
            self.depth -= 1;
            self.line("}");
        }
        Ok(())
    }

    /// A loop of gemms over consecutive slabs as one gemm per statement (`slabs.rs`).
    fn slab_loop(&mut self, l: &Loop, pieces: Vec<crate::slabs::Piece>, line: u32) -> Result<(), Diagnostic> {
        let var = self.cx.name(l.var).to_string();
        self.line(format!(
            "/* the loop over {var} of products of consecutive slabs: one product over all slabs per statement */"
        ));
        for piece in pieces {
            match piece {
                crate::slabs::Piece::Call { call, trips, stmt } => {
                    if let Some(note) = &stmt.note {
                        self.line(format!("/* {} */", comment_text(&note.to_string())));
                    }
                    let text = crate::blas::call(self.cx, &call, stmt.span, "")?;
                    let cond = format!("if ({} > 0) {{", self.expr(&trips));
                    self.line(cond);
                    self.depth += 1;
                    self.line(text);
                    self.depth -= 1;
                    self.line("}");
                }
                crate::slabs::Piece::Loop(s) => {
                    let one = Loop { body: vec![s.clone()], ..l.clone() };
                    self.plain_loop(&one, line)?;
                }
            }
        }
        Ok(())
    }

    fn plain_loop(&mut self, l: &Loop, line: u32) -> Result<(), Diagnostic> {
        let var = self.cx.name(l.var);
        // Python evaluates range() bounds once; C re-evaluates the condition. Copy a bound
        // the body changes.
        let written = written_vars(&l.body);
        let changes = |e: &Expr| e.vars().iter().any(|v| written.contains(v));
        let step_lit = l.step.as_int();
        let hoist_stop = changes(&l.stop);
        let hoist_step = step_lit.is_none() && changes(&l.step);
        if hoist_stop || hoist_step {
            self.line("{");
            self.depth += 1;
        }
        // Named after the loop variable so that nested hoists do not shadow each other.
        let stop_name = format!("adjc_stop_{var}");
        let step_name = format!("adjc_step_{var}");
        let stop = if hoist_stop {
            let text = format!("const int64_t {stop_name} = {};", self.expr(&l.stop));
            self.line(text);
            None
        } else {
            Some(&l.stop)
        };
        let step_text = if hoist_step {
            let text = format!("const int64_t {step_name} = {};", self.expr(&l.step));
            self.line(text);
            step_name
        } else {
            self.expr(&l.step)
        };
        let start = self.expr(&l.start);
        let (cond, incr) = match step_lit {
            Some(st) if st > 0 => {
                let cond = match stop {
                    Some(e) => self.upper_cond(var, e),
                    None => format!("{var} < {stop_name}"),
                };
                (cond, if st == 1 { format!("{var}++") } else { format!("{var} += {st}") })
            }
            Some(st) if st < 0 && st != i64::MIN => {
                let cond = match stop {
                    Some(e) => self.lower_cond(var, e),
                    None => format!("{var} > {stop_name}"),
                };
                (cond, if st == -1 { format!("{var}--") } else { format!("{var} -= {}", -st) })
            }
            _ => {
                let stop_text = stop.map(|e| self.expr(e)).unwrap_or(stop_name);
                (format!("adjc_in_range({var}, {stop_text}, {step_text})"), format!("{var} += {step_text}"))
            }
        };
        if let Some(simd) = omp::reduction_loop_simd(self.cx, l, self.parallel.is_some()) {
            self.line(format!("ADJC_OMP({simd})"));
        }
        self.line(format!("for (int64_t {var} = {start}; {cond}; {incr}) {{"));
        self.depth += 1;
        self.block(&l.body, line, false)?;
        self.depth -= 1;
        self.line("}");
        if hoist_stop || hoist_step {
            self.depth -= 1;
            self.line("}");
        }
        Ok(())
    }

    fn map(&mut self, m: &Map, line: u32) -> Result<(), Diagnostic> {
        if self.tile.as_ref().is_some_and(|t| t.inner == m.id) {
            return self.tile_lanes(m);
        }
        // A whole array zeroed at the top level of a sweep: one runtime call.
        if self.depth == 1 && self.chain.is_empty() && !self.region_level && !self.serial_copy {
            if let Some(call) = crate::zero::whole_array_zero(self.cx, m) {
                self.line(call);
                return Ok(());
            }
        }
        let plan = self.plan.map(m).cloned().unwrap_or_default();
        if self.serial_copy {
            return self.map_nest(m, line, &plan, None);
        }
        if let Some(note) = &plan.note {
            self.line(format!("/* {} */", comment_text(note)));
        }
        let pragma = self.plan.pragma(self.cx, m);
        if plan.mode != Mode::Guarded {
            return self.map_nest(m, line, &plan, pragma);
        }
        let text = format!("if (ADJC_OMP_PAYS({})) {{", plan.work.render(self.cx));
        self.line(text);
        self.depth += 1;
        self.map_nest(m, line, &plan, pragma)?;
        self.depth -= 1;
        self.line("} else {");
        self.depth += 1;
        self.serial_copy = true;
        let result = self.map_nest(m, line, &plan, None);
        self.serial_copy = false;
        result?;
        self.depth -= 1;
        self.line("}");
        Ok(())
    }

    /// The loops of a map, with `pragma` (parallel) or without (sequential).
    fn map_nest(&mut self, m: &Map, line: u32, plan: &MapPlan, pragma: Option<String>) -> Result<(), Diagnostic> {
        let k = omp::key(m);
        let parallel = pragma.is_some();
        if let Some(p) = pragma {
            self.line(format!("ADJC_OMP({p})"));
        }
        for (n, d) in m.dims.iter().enumerate() {
            // The innermost loop carries `simd` (with the reductions it accumulates) in the
            // parallel copy, where a 1-D map has it in `for simd` already. The sequential
            // copy of a guarded map or hoisted region (what runs at one thread) carries it
            // only for a reduction: gcc vectorises the other loops itself, but never a
            // strict left-to-right sum.
            if plan.simd && n + 1 == m.dims.len() {
                let simd = self.plan.simd_pragma(self.cx, m);
                let reduces = simd.contains("reduction");
                if (parallel && m.dims.len() > 1) || (self.serial_copy && reduces) {
                    self.line(format!("ADJC_OMP({simd})"));
                }
            }
            // A sequential map inside a parallel one: its innermost loop is `simd` in the
            // outlined code, where gcc cannot see that the arrays are distinct.
            if plan.nested_simd && !self.serial_copy && n + 1 == m.dims.len() {
                let private: Vec<&str> = plan.nested_private.iter().map(|v| self.cx.name(*v)).collect();
                match private.is_empty() {
                    true => self.line("ADJC_OMP(simd)"),
                    false => self.line(format!("ADJC_OMP(simd private({}))", private.join(", "))),
                }
            }
            let var = self.cx.name(d.var);
            let start = match self.start_at.iter().find(|(id, _)| *id == m.id && n == 0) {
                Some((_, first)) => first.clone(),
                None => self.expr(&d.start),
            };
            let text = format!("for (int64_t {var} = {start}; {}; {var}++) {{", self.upper_cond(var, &d.stop));
            self.line(text);
            self.depth += 1;
        }
        let saved = self.parallel;
        if parallel {
            self.parallel = Some(k);
        }
        let saved_region = self.region_level;
        self.region_level = false;
        self.chain.push(k);
        let consts = const_locals(&m.body, &plan.private, &self.plan.top);
        let unread = |v: &VarId| self.plan.unread.contains(&(Some(k), *v));
        let declare_at: BTreeSet<VarId> = assigned_first(&m.body, &plan.private, &self.plan.top)
            .into_iter()
            .filter(|v| !consts.contains(v) && !unread(v))
            .collect();
        for v in &plan.private {
            if consts.contains(v) || declare_at.contains(v) {
                continue;
            }
            let ty = self.cx.f.var(*v).ty.elem();
            let name = self.cx.name(*v);
            self.line(format!("{} {name} = {};", c_type(ty), zero(ty)));
            if self.plan.unread.contains(&(Some(k), *v)) {
                self.line(format!("(void){name};"));
            }
        }
        let saved_consts = std::mem::replace(&mut self.consts, consts);
        let saved_declare = std::mem::replace(&mut self.declare_at, declare_at);
        let result = self.block(&m.body, line, false);
        self.consts = saved_consts;
        self.declare_at = saved_declare;
        self.chain.pop();
        self.parallel = saved;
        self.region_level = saved_region;
        result?;
        for _ in &m.dims {
            self.depth -= 1;
            self.line("}");
        }
        Ok(())
    }

    /// A row sum in tiles of `ADJC_SUM_TILE` partial sums kept in a local array, then the
    /// elements past the last whole tile as written ([`crate::sum_tiles`]).
    fn sum_tile(&mut self, t: &crate::sum_tiles::SumTile, line: u32) -> Result<(), Diagnostic> {
        let dim = &t.init.dims[0];
        let lane = self.cx.name(dim.var).to_string();
        let array = self.cx.name(t.target.var).to_string();
        let first = self.cx.names.fresh(&format!("{lane}_tile"));
        let sums = self.cx.names.fresh(&format!("{array}_sum"));
        let counters =
            crate::sum_tiles::counters(t.nest).iter().map(|v| self.cx.name(*v).to_string()).collect::<Vec<_>>();
        let stop = self.expr(&dim.stop);
        self.line(format!(
            "/* the sums over {} into each {array}[..., {lane}] in a local array, kept in registers and \
             stored once: ADJC_SUM_TILE values of {lane} at a time, then half a tile, then the rest as written */",
            counters.join(", ")
        ));
        self.line("{");
        self.depth += 1;
        self.line(format!("int64_t {first} = {};", self.expr(&dim.start)));
        for (width, repeat) in [("ADJC_SUM_TILE", true), ("ADJC_SUM_TILE / 2", false)] {
            if repeat {
                self.line(format!("for (; {first} <= {stop} - {width}; {first} += {width}) {{"));
            } else {
                self.line(format!("if ({first} <= {stop} - {width}) {{"));
            }
            self.depth += 1;
            self.tile_pass(t, width, &first, &sums, line)?;
            if !repeat {
                self.line(format!("{first} += {width};"));
            }
            self.depth -= 1;
            self.line("}");
        }
        self.line(format!("if ({first} < {stop}) {{"));
        self.depth += 1;
        self.start_at.push((t.init.id, first.clone()));
        self.start_at.push((t.inner.id, first));
        let result = self.map(t.init, line).and_then(|_| self.plain_loop(t.nest, line));
        self.start_at.truncate(self.start_at.len() - 2);
        result?;
        self.depth -= 1;
        self.line("}");
        self.depth -= 1;
        self.line("}");
        Ok(())
    }

    /// One tile of `width` partial sums from element `first`: set, summed over the nest,
    /// stored.
    fn tile_pass(
        &mut self,
        t: &crate::sum_tiles::SumTile,
        width: &str,
        first: &str,
        sums: &str,
        line: u32,
    ) -> Result<(), Diagnostic> {
        let lane = self.cx.name(t.init.dims[0].var).to_string();
        let ty = self.cx.f.var(t.target.var).ty.elem();
        self.line(format!("{} {sums}[{width}];", c_type(ty)));
        let lanes = format!("for (int64_t {lane} = {first}; {lane} < {first} + {width}; {lane}++) {{");
        let init = format!("{sums}[{lane} - {first}] = {};", self.expr(t.init_value));
        self.simd_loop(&lanes, init);
        self.tile = Some(TileLanes {
            inner: t.inner.id,
            first: first.to_string(),
            sums: sums.to_string(),
            width: width.to_string(),
        });
        let result = self.plain_loop(t.nest, line);
        self.tile = None;
        result?;
        let store = format!("{} = {sums}[{lane} - {first}];", self.place(t.target));
        self.simd_loop(&lanes, store);
        Ok(())
    }

    /// `ADJC_OMP(simd)`, the loop header `header`, one statement, the closing brace.
    fn simd_loop(&mut self, header: &str, stmt: String) {
        self.line("ADJC_OMP(simd)");
        self.line(header);
        self.depth += 1;
        self.line(stmt);
        self.depth -= 1;
        self.line("}");
    }

    /// The accumulating map of a tiled row sum: one loop over the tile's lanes.
    fn tile_lanes(&mut self, m: &Map) -> Result<(), Diagnostic> {
        let Some(tile) = &self.tile else { return Ok(()) };
        let (first, sums, width) = (tile.first.clone(), tile.sums.clone(), tile.width.clone());
        let lane = self.cx.name(m.dims[0].var).to_string();
        let [Stmt { kind: StmtKind::Accumulate { value, .. }, .. }] = m.body.as_slice() else {
            return Err(Diagnostic::internal(adjc_ir::Span::NONE, "a tiled row sum without its accumulation"));
        };
        let text = match negated(value) {
            Some(pos) => format!("{sums}[{lane} - {first}] -= {};", self.expr(&pos)),
            None => format!("{sums}[{lane} - {first}] += {};", self.expr(value)),
        };
        self.simd_loop(&format!("for (int64_t {lane} = {first}; {lane} < {first} + {width}; {lane}++) {{"), text);
        Ok(())
    }

    fn if_stmt(&mut self, cond: &Expr, then_body: &[Stmt], else_body: &[Stmt], line: u32) -> Result<(), Diagnostic> {
        if then_body.is_empty() && !else_body.is_empty() {
            let not = Expr::new(ExprKind::Unary(UnOp::Not, Box::new(cond.clone())), Scalar::Bool, cond.span);
            return self.if_stmt(&not, else_body, then_body, line);
        }
        let text = format!("if ({}) {{", self.expr(cond));
        self.line(text);
        let mut then_body = then_body;
        let mut else_body = else_body;
        loop {
            self.depth += 1;
            self.block(then_body, line, false)?;
            self.depth -= 1;
            // `else if` when the nested `if` needs no comment of its own.
            if let [Stmt { kind: StmtKind::If { cond, then_body: t, else_body: e }, span, note: None }] = else_body {
                if (span.line == 0 || span.line == line) && !t.is_empty() {
                    let text = format!("}} else if ({}) {{", self.expr(cond));
                    self.line(text);
                    then_body = t;
                    else_body = e;
                    continue;
                }
            }
            if !else_body.is_empty() {
                self.line("} else {");
                self.depth += 1;
                self.block(else_body, line, false)?;
                self.depth -= 1;
            }
            self.line("}");
            return Ok(());
        }
    }
}

/// `adjc_push_f64`, `adjc_pop_i64`, ...
fn stack_fn(what: &str, ty: Scalar) -> String {
    let suffix = match ty {
        Scalar::F64 => "f64",
        Scalar::F32 => "f32",
        Scalar::I64 => "i64",
        Scalar::Bool => "bool",
    };
    format!("adjc_{what}_{suffix}")
}

/// Whether the IR's constant folding can rewrite `e` without overflowing.
pub(crate) fn tame(e: &Expr) -> bool {
    let mut ok = true;
    e.walk(&mut |x| {
        if let Some(v) = x.as_int() {
            ok &= v.unsigned_abs() < 1 << 40;
        }
    });
    ok
}

/// Number of nodes of an expression: a crude measure of how much there is to read.
fn size(e: &Expr) -> usize {
    let mut n = 0;
    e.walk(&mut |_| n += 1);
    n
}

/// The private scalars of a map body whose first mention is an assignment at the body's top
/// level that does not read them: declared there (`double s = 0.0;` rather than
/// `double s = 0.0; s = 0.0;`). Not those also declared at the function's top.
fn assigned_first(body: &[Stmt], private: &[VarId], top: &[VarId]) -> BTreeSet<VarId> {
    let mut out = BTreeSet::new();
    let mut mentioned = BTreeSet::new();
    for s in body {
        if let StmtKind::Assign { target, value } = &s.kind {
            let v = target.var;
            if target.is_scalar()
                && private.contains(&v)
                && !top.contains(&v)
                && !mentioned.contains(&v)
                && !value.mentions(v)
            {
                out.insert(v);
            }
        }
        let one = vec![s.clone()];
        mentioned.extend(adjc_ir::read_vars(&one));
        mentioned.extend(adjc_ir::written_vars(&one));
    }
    out
}

/// The private scalars of a map body that can be declared `const` at their assignment
/// (`const double tanh_s = tanh(...);`): assigned once, by a statement of the body itself
/// (not nested), read only by the statements after it, read at least once, and not also
/// declared at the function's top.
fn const_locals(body: &[Stmt], private: &[VarId], top: &[VarId]) -> BTreeSet<VarId> {
    let mut out = BTreeSet::new();
    for (k, s) in body.iter().enumerate() {
        let StmtKind::Assign { target, value } = &s.kind else { continue };
        let v = target.var;
        if !target.is_scalar() || !private.contains(&v) || top.contains(&v) || value.mentions(v) {
            continue;
        }
        let mut writes = 0;
        adjc_ir::walk_stmts(&body.to_vec(), &mut |t| writes += (t.written_var() == Some(v)) as usize);
        let before = body[..k].iter().any(|t| adjc_ir::read_vars(&vec![t.clone()]).contains(&v));
        let after = body[k + 1..].iter().any(|t| adjc_ir::read_vars(&vec![t.clone()]).contains(&v));
        if writes == 1 && !before && after {
            out.insert(v);
        }
    }
    out
}

/// The label the function's code jumps to on failure `f`: it frees what the function
/// allocated and returns `f`'s code.
pub(crate) fn fail_label(f: Failure) -> &'static str {
    match f {
        Failure::NotConverged => "not_converged",
        Failure::Stopped => "stopped",
    }
}
