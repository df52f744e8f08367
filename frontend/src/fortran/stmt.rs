//! Statements: assignments (scalar, element, section and whole-array), `do` loops and
//! `if` constructs; everything else is a diagnostic.

use super::expr::Sub;
use super::lower::{Binding, Lowerer, R};
use super::scan::ProcKind;
use super::syntax::{children, named};
use crate::sym::{canon, key};
use adjc_ir::*;
use tree_sitter::Node;

impl<'s, 't> Lowerer<'s, 't> {
    pub fn stmt(&mut self, n: Node<'t>) -> R<()> {
        self.span = self.sp(n);
        let unsupported = |lw: &Self, what: &str, help: &str| {
            Err(lw.err(n, format!("{what} not supported")).with_help(help.to_string()))
        };
        match n.kind() {
            "assignment_statement" => {
                let kids = named(n);
                let (Some(lhs), Some(rhs)) = (kids.first(), kids.get(1)) else {
                    return Err(self.err(n, "cannot read this assignment"));
                };
                self.assign(*lhs, *rhs)
            }
            "do_loop" => self.do_loop(n),
            // Labels only matter to `goto` (unsupported) and labelled `do` (handled there).
            "statement_label" => Ok(()),
            "if_statement" => self.if_stmt(n),
            "subroutine_call" => {
                let callee = named(n).into_iter().find(|c| c.kind() == "identifier");
                let name = callee.map(|c| self.text(c).to_string()).unwrap_or_default();
                if let Some(proc) = self.unit.find(&name).filter(|p| p.kind == ProcKind::Subroutine) {
                    let args =
                        named(n).into_iter().find(|c| c.kind() == "argument_list").map(named).unwrap_or_default();
                    self.inline_call(n, proc, &args)?;
                    return Ok(());
                }
                let help = if self.unit.find(&name).is_some() {
                    "inline the subroutine body into the kernel"
                } else {
                    "adjc differentiates one routine and cannot see this one; remove the call or inline it"
                };
                Err(self.err(n, format!("`call {name}` is not supported yet")).with_help(help))
            }
            "keyword_statement" => {
                let word = self.text(n).trim().to_ascii_lowercase();
                let word: String = word.chars().filter(|c| c.is_ascii_alphabetic()).collect();
                match word.as_str() {
                    "continue" => Ok(()),
                    "exit" => unsupported(
                        self,
                        "`exit` is",
                        "loops with an early exit are not supported yet; compute the trip count first",
                    ),
                    "cycle" => unsupported(self, "`cycle` is", "wrap the rest of the loop body in an `if`"),
                    "return" => unsupported(self, "an early `return` is", "restructure the procedure with `if` blocks"),
                    w if w.starts_with("goto") => {
                        unsupported(self, "`goto` is", "rewrite the control flow with `do` loops and `if` blocks")
                    }
                    _ => Err(self.err(n, format!("the statement `{}` is not supported", self.text(n).trim()))),
                }
            }
            "stop_statement" => unsupported(self, "`stop` is", "a kernel must run to its end"),
            "print_statement" | "write_statement" | "read_statement" | "open_statement" | "close_statement"
            | "format_statement" | "inquire_statement" | "rewind_statement" => {
                unsupported(self, "input/output statements are", "remove I/O from the kernel (do it in the caller)")
            }
            "pointer_association_statement" => unsupported(self, "pointers are", "use ordinary arrays"),
            "nullify_statement" => unsupported(self, "pointers are", "use ordinary arrays"),
            "allocate_statement" | "deallocate_statement" => unsupported(
                self,
                "`allocate`/`deallocate` are",
                "declare local arrays with an explicit shape from the size arguments",
            ),
            "variable_declaration" => Err(self
                .err(n, "a declaration after an executable statement")
                .with_help("move the declarations to the top of the procedure")),
            "common_statement" => unsupported(self, "`common` blocks are", "pass the data as arguments"),
            "equivalence_statement" => unsupported(self, "`equivalence` is", "use separate variables"),
            "where_statement" | "where_construct" => unsupported(self, "`where` is", "write a `do` loop with an `if`"),
            "select_case_statement" => unsupported(self, "`select case` is", "use `if` / `else if`"),
            "forall_statement" => unsupported(self, "`forall` is", "write `do` loops"),
            "associate_statement" | "block_construct" => unsupported(self, "this construct is", "write it without it"),
            k => Err(self.err(n, format!("this statement is not supported (`{}`)", k.replace('_', " ")))),
        }
    }

    fn target_var(&mut self, n: Node<'t>) -> R<VarId> {
        let key = self.text(n).to_ascii_lowercase();
        if self.loops.iter().any(|(x, _)| *x == key) {
            return Err(self.err(n, format!("the `do` variable `{}` is assigned inside its loop", self.text(n))));
        }
        match self.lookup(n)? {
            Binding::Var(v) => Ok(v),
            Binding::Const(_) => Err(self.err(n, format!("`{}` is a constant (`parameter`)", self.text(n)))),
        }
    }

    fn assign(&mut self, lhs: Node<'t>, rhs: Node<'t>) -> R<()> {
        let (var, subs) = match lhs.kind() {
            "identifier" => (self.target_var(lhs)?, None),
            "call_expression" => {
                let Some(callee) = named(lhs).into_iter().next().filter(|c| c.kind() == "identifier") else {
                    return Err(self.err(lhs, "cannot assign to this expression"));
                };
                let v = self.target_var(callee)?;
                if !self.f.var(v).ty.is_array() {
                    return Err(self.err(callee, format!("`{}` is not an array", self.text(callee))));
                }
                let args = self.call_args(lhs);
                (v, Some(self.subscripts(lhs, v, &args)?))
            }
            _ => return Err(self.err(lhs, "cannot assign to this expression")),
        };
        let ty = self.f.var(var).ty.clone();
        let subs = match (subs, ty.is_array()) {
            (Some(s), _) => s,
            (None, false) => {
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
        let counts: Vec<Expr> = subs.iter().filter(|s| matches!(s, Sub::Range { .. })).map(Sub::count).collect();
        let rhs_shape = self.shape_of(rhs)?;
        if counts.is_empty() {
            if rhs_shape.is_some() {
                return Err(self
                    .err(rhs, "an array value is assigned to one element")
                    .with_help("assign to a section of the same shape"));
            }
            let index = subs.into_iter().map(|s| if let Sub::Index(e) = s { e } else { Expr::int(0) }).collect();
            let value = self.expr(rhs, None)?;
            let value = self.convert(rhs, value, ty.elem())?;
            self.emit(StmtKind::Assign { target: Place::element(var, index), value });
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
        self.section_assign(var, &subs, rhs)
    }

    fn convert(&self, n: Node<'t>, value: Expr, to: Scalar) -> R<Expr> {
        if (value.ty == Scalar::Bool) != (to == Scalar::Bool) {
            return Err(self.err(n, format!("cannot assign a {} value to a {} variable", value.ty, to)));
        }
        Ok(value.cast(to))
    }

    /// `var(subs) = rhs` as one Map over the section; through a temporary when the
    /// right-hand side reads other elements of `var` (it must see the old values).
    fn section_assign(&mut self, var: VarId, subs: &[Sub], rhs: Node<'t>) -> R<()> {
        let span = self.span;
        let elem = self.f.var(var).ty.elem();
        let mut dims = Vec::new();
        let mut offs = Vec::new();
        let mut index = Vec::new();
        let mut taken = Vec::new();
        for s in subs {
            match s {
                Sub::Index(e) => index.push(e.clone()),
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
                        dims.push(MapDim { var: id, start: Expr::int(0), stop: s.count() });
                        offs.push(iv.clone());
                        index.push(canon(&lo.clone().add(iv.mul(Expr::int(*st)))));
                    }
                }
            }
        }
        let ids: Vec<VarId> = dims.iter().map(|d| d.var).collect();
        for (id, name) in ids.iter().zip(&taken) {
            self.loops.push((name.clone(), *id));
            self.generated.push(*id);
        }
        let place = Place::element(var, index.clone());
        let body = self.with_block(|lw| {
            let value = lw.expr(rhs, Some(&offs))?;
            let value = lw.convert(rhs, value, elem)?;
            lw.emit(StmtKind::Assign { target: place.clone(), value });
            Ok(())
        });
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
            self.emit(StmtKind::Map(Map { dims, body }));
            return Ok(());
        }
        // Fortran evaluates the whole right-hand side first: compute into a temporary of
        // the target's shape, then copy.
        let ty = self.f.var(var).ty.clone();
        let name = self.temp_name(&format!("{}_tmp", self.f.var(var).name));
        let tmp = self.f.add_var(name, ty, VarRole::Temp, span);
        self.alloc_at_top(tmp, span);
        if let Some(Stmt { kind: StmtKind::Assign { target, .. }, .. }) = body.last_mut() {
            target.var = tmp;
        }
        self.emit(StmtKind::Map(Map { dims: dims.clone(), body }));
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
        .with_note(format!("copy from the temporary (the right-hand side reads `{}`)", self.f.var(var).name));
        self.emit(StmtKind::Map(Map { dims: dims2, body: vec![copy] }));
        Ok(())
    }

    fn do_loop(&mut self, n: Node<'t>) -> R<()> {
        let kids = named(n);
        let Some(head) = kids.first().copied().filter(|k| k.kind() == "do_statement") else {
            return Err(self.err(n, "cannot read this `do` loop"));
        };
        let span = self.sp(head);
        self.span = span;
        let ctl = named(head);
        let Some(control) = ctl.iter().copied().find(|c| c.kind() == "loop_control_expression") else {
            if ctl.iter().any(|c| c.kind() == "while_statement") {
                return Err(self
                    .err(head, "`do while` loops are not supported yet")
                    .with_help("adjc needs loops with a trip count known on entry: `do i = 1, n`"));
            }
            if ctl.iter().any(|c| c.kind() == "concurrent_statement")
                || self.text(head).to_ascii_lowercase().contains("concurrent")
            {
                return Err(self
                    .err(head, "`do concurrent` is not supported yet")
                    .with_help("write nested `do` loops"));
            }
            return Err(self
                .err(head, "a `do` loop without a loop control is not supported")
                .with_help("adjc needs loops with a trip count known on entry: `do i = 1, n`"));
        };
        let parts = named(control);
        if parts.len() < 3 || parts.len() > 4 {
            return Err(self.err(control, "cannot read this loop control"));
        }
        let var_node = parts[0];
        let name = self.text(var_node).to_ascii_lowercase();
        if self.loops.iter().any(|(x, _)| *x == name) {
            return Err(self.err(
                var_node,
                format!("the `do` variable `{}` is already used by an enclosing loop", self.text(var_node)),
            ));
        }
        match self.lookup(var_node)? {
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
        let start = self.int_expr(parts[1])?;
        let last = self.int_expr(parts[2])?;
        let step = match parts.get(3) {
            Some(s) => self.int_expr(*s)?,
            None => Expr::int(1),
        };
        let stop = match step.as_int() {
            Some(0) => return Err(self.err(parts[3], "the loop step cannot be zero")),
            Some(k) if k > 0 => canon(&last.add(Expr::int(1))),
            Some(_) => canon(&last.sub(Expr::int(1))),
            None => {
                return Err(self
                    .err(parts[3], "the loop step must be an integer constant")
                    .with_help("adjc needs the direction of every loop at compile time"))
            }
        };
        let spelled = self.text(var_node).to_string();
        let iv = self.f.add_var(spelled, Type::Scalar(Scalar::I64), VarRole::Index, self.sp(var_node));
        self.loops.push((name, iv));
        let body = self.with_block(|lw| {
            for s in kids.iter().skip(1) {
                match s.kind() {
                    "end_do_loop_statement" | "statement_label" | "statement_label_reference" => {}
                    // `10 continue` (or `10 x = ...`) closing a labelled `do`.
                    "end_do_label_loop_statement" => {
                        for t in named(*s).into_iter().filter(|t| t.kind() != "statement_label") {
                            lw.stmt(t)?;
                        }
                    }
                    _ => lw.stmt(*s)?,
                }
            }
            Ok(())
        });
        self.loops.pop();
        let body = body?;
        self.span = span;
        self.emit(StmtKind::Loop(Loop { var: iv, start, stop, step, body }));
        Ok(())
    }

    fn if_stmt(&mut self, n: Node<'t>) -> R<()> {
        let kids = children(n);
        let span = self.sp(n);
        let Some(cond_node) = kids.iter().copied().find(|k| k.kind() == "parenthesized_expression") else {
            return Err(self.err(n, "cannot read this `if`"));
        };
        let block_form = kids.iter().any(|k| !k.is_named() && k.kind().eq_ignore_ascii_case("then"));
        let cond = self.cond_expr(cond_node)?;
        let mut then_nodes = Vec::new();
        let mut clauses = Vec::new();
        let mut seen_cond = false;
        for k in kids.iter().copied().filter(|k| k.is_named()) {
            if !seen_cond {
                seen_cond = k.id() == cond_node.id();
                continue;
            }
            match k.kind() {
                "elseif_clause" | "else_clause" => clauses.push(k),
                "end_if_statement" | "statement_label" | "block_label" => {}
                _ => then_nodes.push(k),
            }
        }
        if !block_form && then_nodes.len() != 1 {
            return Err(self.err(n, "cannot read this one-line `if`"));
        }
        let then_body = self.with_block(|lw| {
            for s in &then_nodes {
                lw.stmt(*s)?;
            }
            Ok(())
        })?;
        let else_body = self.else_chain(&clauses)?;
        self.span = span;
        self.emit(StmtKind::If { cond, then_body, else_body });
        Ok(())
    }

    /// `else if ... else ...` as nested `If`s in the else branch.
    fn else_chain(&mut self, clauses: &[Node<'t>]) -> R<Block> {
        let Some((first, rest)) = clauses.split_first() else { return Ok(Vec::new()) };
        let kids = named(*first);
        if first.kind() == "else_clause" {
            return self.with_block(|lw| {
                for s in kids {
                    lw.stmt(s)?;
                }
                Ok(())
            });
        }
        let Some(cond_node) = kids.iter().copied().find(|k| k.kind() == "parenthesized_expression") else {
            return Err(self.err(*first, "cannot read this `else if`"));
        };
        let span = self.sp(*first);
        self.span = span;
        let cond = self.cond_expr(cond_node)?;
        let then_body = self.with_block(|lw| {
            for s in kids.iter().copied().filter(|k| k.id() != cond_node.id()) {
                lw.stmt(s)?;
            }
            Ok(())
        })?;
        let else_body = self.else_chain(rest)?;
        Ok(vec![Stmt::new(StmtKind::If { cond, then_body, else_body }, span)])
    }
}
