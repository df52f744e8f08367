//! tree-sitter-fortran tree → [`ast`](super::ast): the only module (with `syntax`, which
//! reports syntax errors on the tree first) that knows the grammar's node kinds. See
//! `ast` for what the conversion guarantees; in short, it never fails: what it cannot
//! represent becomes an `Unsupported` node carrying the diagnostic lowering will report.

use super::ast::*;
use super::syntax::{children, named, span_of, text};
use adjc_ir::{Diagnostic, Intent, Span};
use tree_sitter::Node;

/// Converts the (error-free) tree of the assembled source `src`.
pub fn parse_file(src: &str, root: Node) -> File {
    let mut p = Parser { src, next_id: 0, depth: 0 };
    let mut units = Vec::new();
    for n in named(root) {
        match n.kind() {
            "subroutine" | "function" => units.push(TopUnit::Procedure(p.procedure(n))),
            "module" | "program" => units.push(TopUnit::Module(p.module(n))),
            "submodule" | "interface" | "block_data" => units.push(TopUnit::Unsupported(
                Diagnostic::error(span_of(src, n), format!("`{}` is not supported", n.kind().replace('_', " ")))
                    .with_help("adjc reads subroutines and functions, at top level or in modules"),
            )),
            _ => {}
        }
    }
    File { units }
}

struct Parser<'s> {
    src: &'s str,
    next_id: ExprId,
    depth: usize,
}

fn unsupported(span: Span, msg: impl Into<String>, help: &str) -> Diagnostic {
    let d = Diagnostic::error(span, msg);
    if help.is_empty() {
        d
    } else {
        d.with_help(help.to_string())
    }
}

impl<'s> Parser<'s> {
    fn text(&self, n: Node) -> &'s str {
        text(self.src, n)
    }
    fn sp(&self, n: Node) -> Span {
        span_of(self.src, n)
    }

    fn module(&mut self, n: Node) -> ModuleUnit {
        let kind = if n.kind() == "module" { ModuleKind::Module } else { ModuleKind::Program };
        let mut name = None;
        let mut items = Vec::new();
        for c in named(n) {
            match c.kind() {
                "implicit_statement" => items.push(ModuleItem::Implicit(self.implicit(c))),
                "module_statement" => {
                    name = named(c).into_iter().find(|x| x.kind() == "name").map(|x| self.text(x).to_string());
                }
                "variable_declaration" => items.push(ModuleItem::Decl(self.decl(c))),
                "internal_procedures" => items.push(ModuleItem::Contains(self.contained(c))),
                "derived_type_definition" => items.push(ModuleItem::TypeDef(self.type_def(c))),
                "enum" => items.push(ModuleItem::Decl(self.enumerators(c))),
                "interface" => items.extend(self.generic(c)),
                _ => {}
            }
        }
        ModuleUnit { kind, name, span: self.sp(n), items }
    }

    /// `interface name; module procedure a, b; end interface`: a generic name and its
    /// specific procedures (an interface block of another form is not kept).
    fn generic(&mut self, n: Node) -> Option<ModuleItem> {
        let kids = named(n);
        let head = kids.iter().find(|c| c.kind() == "interface_statement")?;
        let name = named(*head).into_iter().find(|c| c.kind() == "name").map(|c| self.text(c).to_string())?;
        let mut procs = Vec::new();
        for p in kids.iter().filter(|c| c.kind() == "procedure_statement") {
            procs.extend(
                named(*p).into_iter().filter(|c| c.kind() == "method_name").map(|c| self.text(c).to_ascii_lowercase()),
            );
        }
        (!procs.is_empty()).then(|| ModuleItem::Generic { name, span: self.sp(n), procs })
    }

    fn contained(&mut self, n: Node) -> Vec<Procedure> {
        named(n)
            .into_iter()
            .filter(|p| matches!(p.kind(), "subroutine" | "function"))
            .map(|p| self.procedure(p))
            .collect()
    }

    fn implicit(&self, n: Node) -> Implicit {
        Implicit { span: self.sp(n), none: self.text(n).to_ascii_lowercase().contains("none") }
    }

    fn procedure(&mut self, n: Node) -> Procedure {
        let src = self.src;
        let kind = if n.kind() == "function" { ProcKind::Function } else { ProcKind::Subroutine };
        let items = named(n);
        let header = items.iter().copied().find(|c| matches!(c.kind(), "subroutine_statement" | "function_statement"));
        let name_node = header.and_then(|h| named(h).into_iter().find(|c| c.kind() == "name"));
        let (name, name_span) = match name_node {
            Some(nn) => (self.text(nn).to_string(), self.sp(nn)),
            None => ("kernel".to_string(), self.sp(n)),
        };
        let mut dummies = Vec::new();
        let mut result = None;
        let mut result_type = None;
        if let Some(h) = header {
            for c in named(h) {
                match c.kind() {
                    "parameters" => {
                        dummies.extend(named(c).into_iter().map(|p| (text(src, p).to_string(), self.sp(p))))
                    }
                    "function_result" => {
                        if let Some(r) = named(c).into_iter().find(|x| x.kind() == "identifier") {
                            result = Some(self.text(r).to_string());
                        }
                    }
                    "intrinsic_type" | "derived_type" => result_type = Some(self.type_spec(c)),
                    _ => {}
                }
            }
        }
        let pure = header.is_some_and(|h| {
            let words = self.text(h).to_ascii_lowercase();
            let prefix = words.split(['(', '!']).next().unwrap_or("").to_string();
            let prefix: Vec<&str> = prefix.split_whitespace().collect();
            (prefix.contains(&"pure") || prefix.contains(&"elemental")) && !prefix.contains(&"impure")
        });
        let elemental = header.is_some_and(|h| {
            let words = self.text(h).to_ascii_lowercase();
            let prefix = words.split(['(', '!']).next().unwrap_or("").to_string();
            prefix.split_whitespace().any(|w| w == "elemental")
        });
        let mut spec = Vec::new();
        let mut body = Vec::new();
        let mut contains = Vec::new();
        let mut in_spec = true;
        for c in items {
            let span = self.sp(c);
            let kind = match c.kind() {
                "subroutine_statement" | "function_statement" => continue,
                "internal_procedures" => {
                    contains.extend(self.contained(c));
                    continue;
                }
                k if k.starts_with("end_") && k.ends_with("_statement") => continue,
                "variable_declaration" if in_spec => SpecKind::Decl(self.decl(c)),
                "variable_modification" if in_spec => SpecKind::Attributes(self.decl(c)),
                "parameter_statement" if in_spec => SpecKind::Parameter(self.parameter_defs(c)),
                "implicit_statement" => SpecKind::Implicit(self.implicit(c)),
                "use_statement" => SpecKind::Use(self.use_stmt(c)),
                "common_statement" => SpecKind::Common(self.common(c)),
                "equivalence_statement" => SpecKind::Equivalence,
                "data_statement" => SpecKind::Data(self.data_sets(c)),
                "include_statement" => SpecKind::Include,
                "derived_type_definition" => SpecKind::TypeDef(self.type_def(c)),
                "enum" if in_spec => SpecKind::Decl(self.enumerators(c)),
                "interface" => SpecKind::Interface,
                _ => {
                    in_spec = false;
                    body.push(self.stmt(c));
                    continue;
                }
            };
            spec.push(SpecItem { span, kind });
        }
        Procedure {
            kind,
            name,
            name_span,
            span: self.sp(n),
            pure,
            elemental,
            dummies,
            result,
            result_type,
            spec,
            body,
            contains,
        }
    }

    /// `data a, b(2) /1.0, 3*0.0/, c /2.0/`: objects and values of each group; a value
    /// followed by `*` is the repeat count of the next.
    fn data_sets(&mut self, n: Node) -> Vec<DataSet> {
        let mut sets = Vec::new();
        for set in named(n).into_iter().filter(|c| c.kind() == "data_set") {
            let mut objects = Vec::new();
            let mut values = Vec::new();
            for c in named(set) {
                if c.kind() != "data_value" {
                    objects.push(self.expr(c));
                    continue;
                }
                let mut repeat = None;
                for v in named(c) {
                    let e = self.expr(v);
                    if v.next_sibling().is_some_and(|s| s.kind() == "*") {
                        repeat = Some(e);
                    } else {
                        values.push((repeat.take(), e));
                    }
                }
            }
            sets.push(DataSet { span: self.sp(set), objects, values });
        }
        sets
    }

    /// `parameter (n = 10, c = 2.0d0)`: the names as spelled and their values.
    fn parameter_defs(&mut self, n: Node) -> Vec<(String, Span, Expr)> {
        let mut defs = Vec::new();
        for a in named(n) {
            let kids = named(a);
            if let (Some(name), Some(value)) = (kids.first(), kids.get(1)) {
                defs.push((self.text(*name).to_string(), self.sp(*name), self.expr(*value)));
            }
        }
        defs
    }

    /// `enum, bind(c); enumerator :: a = 1, b; end enum`: C-style enumerators, read as
    /// `integer, parameter :: a = 1, b = a + 1` (the first is 0 unless given).
    fn enumerators(&mut self, n: Node) -> Decl {
        let span = self.sp(n);
        let mut entities = Vec::new();
        let mut previous: Option<(String, Span)> = None;
        for stmt in named(n).into_iter().filter(|c| c.kind() == "enumerator_statement") {
            for d in named(stmt) {
                let (name_node, value) = match d.kind() {
                    "identifier" => (d, None),
                    _ => {
                        let kids = named(d);
                        match (kids.first(), kids.get(1)) {
                            (Some(name), Some(value)) if name.kind() == "identifier" => (*name, Some(*value)),
                            _ => continue,
                        }
                    }
                };
                let name = self.text(name_node).to_string();
                let at = self.sp(name_node);
                let init = match (value, &previous) {
                    (Some(v), _) => self.expr(v),
                    (None, None) => self.new_expr(at, ExprKind::Number("0".into())),
                    (None, Some((prev, prev_at))) => {
                        let lhs = self.new_expr(*prev_at, ExprKind::Name(prev.clone()));
                        let rhs = self.new_expr(at, ExprKind::Number("1".into()));
                        self.new_expr(at, ExprKind::Math { op: MathOp::Add, lhs: Box::new(lhs), rhs: Box::new(rhs) })
                    }
                };
                previous = Some((name.clone(), at));
                entities.push(Entity { name, span: at, shape: None, init: Some(init) });
            }
        }
        Decl {
            span,
            parts: vec![
                DeclPart::Type(TypeSpec::Intrinsic { span, base: "integer".into(), kind: None }),
                DeclPart::Attr(Attr { span, kind: AttrKind::Parameter }),
            ],
            entities,
        }
    }

    fn use_stmt(&self, n: Node) -> Use {
        let module = named(n).into_iter().find(|c| c.kind() == "module_name");
        let module = module.map(|m| self.text(m).to_ascii_lowercase()).unwrap_or_default();
        let mut renames = Vec::new();
        let items = named(n).into_iter().flat_map(|c| if c.kind() == "included_items" { named(c) } else { vec![c] });
        for a in items.filter(|c| c.kind() == "use_alias") {
            let parts = named(a);
            if let (Some(l), Some(r)) = (parts.first(), parts.get(1)) {
                renames.push((self.text(*l).to_string(), self.text(*r).to_ascii_lowercase(), self.sp(a)));
            }
        }
        Use { module, renames }
    }

    /// `common /a/ x, y(n) /b/ z`: the members of each block.
    fn common(&mut self, n: Node) -> Vec<CommonBlock> {
        let mut blocks: Vec<CommonBlock> = Vec::new();
        let add = |p: &mut Self, blocks: &mut Vec<CommonBlock>, name: Option<String>, members: Vec<Node>| {
            let members = members.into_iter().filter_map(|m| p.entity(m)).collect();
            blocks.push(CommonBlock { name, members });
        };
        let mut blank = Vec::new();
        for c in named(n) {
            if c.kind() == "variable_group" {
                let kids = named(c);
                let name = kids.first().filter(|k| k.kind() == "name").map(|k| self.text(*k).to_string());
                let members = kids.into_iter().filter(|k| k.kind() != "name").collect();
                add(self, &mut blocks, name, members);
            } else {
                blank.push(c);
            }
        }
        if !blank.is_empty() {
            add(self, &mut blocks, None, blank);
        }
        blocks
    }

    fn type_def(&mut self, n: Node) -> TypeDef {
        let mut name = None;
        let mut parent = None;
        let mut components = Vec::new();
        for c in named(n) {
            match c.kind() {
                "derived_type_statement" => {
                    name = named(c)
                        .into_iter()
                        .find(|x| matches!(x.kind(), "type_name" | "name"))
                        .map(|x| self.text(x).to_string());
                    parent = named(c)
                        .into_iter()
                        .find(|x| x.kind() == "base_type_specifier")
                        .map(|x| (self.text(x).to_string(), self.sp(x)));
                }
                "variable_declaration" => components.push(self.decl(c)),
                _ => {}
            }
        }
        TypeDef { name, parent, span: self.sp(n), components }
    }

    /// A type declaration statement.
    pub(super) fn decl(&mut self, n: Node) -> Decl {
        let mut parts = Vec::new();
        let mut entities = Vec::new();
        for c in named(n) {
            match c.kind() {
                "intrinsic_type" | "derived_type" => parts.push(DeclPart::Type(self.type_spec(c))),
                "type_qualifier" => parts.push(DeclPart::Attr(self.attr(c))),
                "identifier" | "sized_declarator" | "init_declarator" => {
                    if let Some(e) = self.entity(c) {
                        entities.push(e);
                    }
                }
                // `p => null()`: the variable, without its initial association (derived-type
                // module variables read it as the pointer's target, see `derived`).
                "pointer_init_declarator"
                    if self.text(c).to_ascii_lowercase().replace(' ', "").ends_with("=>null()")
                        && named(c).first().is_some_and(|k| k.kind() == "identifier") =>
                {
                    if let Some(e) = named(c).first().and_then(|k| self.entity(*k)) {
                        entities.push(e);
                    }
                }
                _ => parts.push(DeclPart::Unsupported(unsupported(
                    self.sp(c),
                    format!("cannot read this declaration (`{}`)", self.text(c).trim()),
                    "adjc reads `real`, `double precision`, `integer` and `logical` declarations",
                ))),
            }
        }
        Decl { span: self.sp(n), parts, entities }
    }

    fn attr(&mut self, c: Node) -> Attr {
        let q: String = self.text(c).to_ascii_lowercase().chars().filter(|ch| !ch.is_whitespace()).collect();
        let kind = if let Some(rest) = q.strip_prefix("intent(") {
            AttrKind::Intent(match rest.trim_end_matches(')') {
                "in" => Intent::In,
                "out" => Intent::Out,
                _ => Intent::InOut,
            })
        } else if q == "parameter" {
            AttrKind::Parameter
        } else if q.starts_with("dimension") {
            let list = named(c).into_iter().find(|x| matches!(x.kind(), "argument_list" | "size"));
            AttrKind::Dimension(list.map(|l| self.shape(l)))
        } else if q == "pointer" {
            AttrKind::Pointer
        } else if q == "allocatable" {
            AttrKind::Allocatable
        } else if q == "save" {
            AttrKind::Save
        } else if q == "optional" {
            AttrKind::Optional
        } else {
            AttrKind::Other(q)
        };
        Attr { span: self.sp(c), kind }
    }

    /// `x`, `x(n)`, `x = 1`, `x(3) = (/ ... /)`, or a member of a `common` block.
    fn entity(&mut self, d: Node) -> Option<Entity> {
        let (target, init) = if d.kind() == "init_declarator" {
            let kids = named(d);
            (kids.first().copied().unwrap_or(d), kids.get(1).copied())
        } else {
            (d, None)
        };
        let (name_node, shape) = if target.kind() == "sized_declarator" {
            let kids = named(target);
            let name = kids.iter().copied().find(|k| k.kind() == "identifier").unwrap_or(target);
            (name, kids.iter().copied().find(|k| k.kind() == "size").map(|s| self.shape(s)))
        } else {
            (target, None)
        };
        let init = init.map(|i| self.expr(i));
        Some(Entity { name: self.text(name_node).to_string(), span: self.sp(name_node), shape, init })
    }

    /// The bounds in `list` (an argument list or `size` node).
    fn shape(&mut self, list: Node) -> Shape {
        let mut dims = Vec::new();
        for d in named(list) {
            if self.text(d).trim() == "*" || d.kind() == "assumed_size" {
                dims.push(DimSpec::AssumedSize { lower: None });
            } else if d.kind() == "extent_specifier" {
                let parts = colon_parts(d);
                match (parts.first().copied().flatten(), parts.get(1).copied().flatten()) {
                    (lower, Some(upper)) if parts.len() == 2 => {
                        if self.text(upper).trim() == "*" {
                            let lower = lower.map(|l| self.expr(l));
                            dims.push(DimSpec::AssumedSize { lower });
                        } else {
                            let lower = lower.map(|l| self.expr(l));
                            dims.push(DimSpec::Explicit { lower, upper: self.expr(upper) });
                        }
                    }
                    (lower, None) if parts.len() == 2 => {
                        dims.push(DimSpec::Assumed { lower: lower.map(|l| self.expr(l)) })
                    }
                    _ => dims.push(DimSpec::Malformed(self.sp(d))),
                }
            } else {
                dims.push(DimSpec::Explicit { lower: None, upper: self.expr(d) });
            }
        }
        Shape { span: self.sp(list), dims }
    }

    fn type_spec(&mut self, t: Node) -> TypeSpec {
        let span = self.sp(t);
        if t.kind() == "derived_type" {
            let name = named(t)
                .into_iter()
                .find(|c| c.kind() == "type_name")
                .map_or_else(|| self.text(t).trim().to_string(), |c| self.text(c).trim().to_string());
            let class = self.text(t).trim_start().to_ascii_lowercase().starts_with("class");
            return TypeSpec::Derived { span, name, class };
        }
        let full = self.text(t).to_ascii_lowercase();
        let base: String = full.chars().take_while(|c| c.is_ascii_alphabetic() || *c == ' ').collect();
        let base = base.split_whitespace().collect::<Vec<_>>().join(" ");
        let kind = named(t).into_iter().find(|c| c.kind() == "kind").map(|k| {
            let value = match named(k).first() {
                Some(x) if x.kind() == "keyword_argument" => named(*x).last().copied(),
                Some(x) => Some(*x),
                None => None,
            };
            KindSel { span: self.sp(k), value: value.map(|v| self.expr(v)) }
        });
        TypeSpec::Intrinsic { span, base, kind }
    }

    /// A statement list, in order.
    fn stmts<'t>(&mut self, nodes: impl IntoIterator<Item = Node<'t>>) -> Vec<Stmt> {
        nodes.into_iter().map(|n| self.stmt(n)).collect()
    }

    fn stmt(&mut self, n: Node) -> Stmt {
        let span = self.sp(n);
        self.depth += 1;
        let kind = if self.depth > MAX_PARSE_DEPTH {
            StmtKind::Unsupported(Diagnostic::error(span, "statements nested too deeply"))
        } else {
            self.stmt_kind(n, span)
        };
        self.depth -= 1;
        Stmt { span, kind }
    }

    fn stmt_kind(&mut self, n: Node, span: Span) -> StmtKind {
        let no =
            |what: &str, help: &str| StmtKind::Unsupported(unsupported(span, format!("{what} not supported"), help));
        match n.kind() {
            "assignment_statement" => {
                let kids = named(n);
                match (kids.first(), kids.get(1)) {
                    (Some(l), Some(r)) => StmtKind::Assign { lhs: self.expr(*l), rhs: self.expr(*r) },
                    _ => StmtKind::Unsupported(Diagnostic::error(span, "cannot read this assignment")),
                }
            }
            "do_loop" => self.do_loop(n, span),
            "statement_label" => StmtKind::Label(self.text(n).trim().to_string()),
            "if_statement" => self.if_stmt(n, span),
            "subroutine_call" => {
                let callee = named(n).into_iter().find(|c| c.kind() == "identifier");
                let name = callee.map(|c| self.text(c).to_string()).unwrap_or_default();
                let args = named(n).into_iter().find(|c| c.kind() == "argument_list").map(named).unwrap_or_default();
                StmtKind::Call { name, args: args.into_iter().map(|a| self.expr(a)).collect() }
            }
            "keyword_statement" => {
                let word = self.text(n).trim().to_ascii_lowercase();
                let word: String = word.chars().filter(|c| c.is_ascii_alphabetic()).collect();
                match word.as_str() {
                    "continue" => StmtKind::Continue,
                    w if w.starts_with("exit") || w.starts_with("cycle") => {
                        let target = named(n)
                            .into_iter()
                            .find(|c| c.kind() == "identifier")
                            .map(|c| self.text(c).to_ascii_lowercase());
                        if w.starts_with("exit") {
                            StmtKind::Exit(target)
                        } else {
                            StmtKind::Cycle(target)
                        }
                    }
                    "return" => StmtKind::Return,
                    // A computed `goto (10, 20, 30) k`: an `if` chain of plain `goto`s.
                    w if w.starts_with("goto") && self.text(n).contains('(') => self.computed_goto(n, span),
                    w if w.starts_with("goto") => {
                        let label = named(n)
                            .into_iter()
                            .find(|c| c.kind() == "statement_label_reference")
                            .map(|c| self.text(c).trim().to_string());
                        StmtKind::Goto { label }
                    }
                    _ => StmtKind::Unsupported(Diagnostic::error(
                        span,
                        format!("the statement `{}` is not supported", self.text(n).trim()),
                    )),
                }
            }
            "stop_statement" => StmtKind::Stop,
            k @ ("print_statement" | "write_statement" | "read_statement" | "open_statement" | "close_statement"
            | "format_statement" | "inquire_statement" | "rewind_statement") => {
                let kind = match k {
                    "print_statement" => IoKind::Print,
                    "write_statement" => IoKind::Write,
                    "read_statement" => IoKind::Read,
                    _ => IoKind::Other,
                };
                let mut data = Vec::new();
                if let Some(items) = named(n).into_iter().find(|c| c.kind() == "output_item_list") {
                    self.identifiers_in(items, &mut data);
                }
                StmtKind::Io { kind, data }
            }
            "pointer_association_statement" | "nullify_statement" => no("pointers are", "use ordinary arrays"),
            "allocate_statement" => StmtKind::Allocate(named(n).into_iter().map(|a| self.allocation(a)).collect()),
            "deallocate_statement" => StmtKind::Deallocate,
            "variable_declaration" => StmtKind::Declaration(self.decl(n)),
            "common_statement" => no("`common` blocks are", "pass the data as arguments"),
            "equivalence_statement" => no("`equivalence` is", "use separate variables"),
            "where_statement" => self.where_stmt(n, span),
            "select_case_statement" => self.select_case(n, span),
            "forall_statement" => self.forall(n, span),
            "associate_statement" | "block_construct" => no("this construct is", "write it without it"),
            "parameter_statement" => StmtKind::Parameter(self.parameter_defs(n)),
            "variable_modification" => StmtKind::Declaration(self.decl(n)),
            k => StmtKind::Unsupported(Diagnostic::error(
                span,
                format!("this statement is not supported (`{}`)", k.replace('_', " ")),
            )),
        }
    }

    fn allocation(&mut self, a: Node) -> Allocation {
        let span = self.sp(a);
        if a.kind() != "sized_allocation" {
            return Allocation::Unsupported(Diagnostic::error(
                span,
                "only `allocate(name(bounds))` is supported (no `stat=`, `source=`, ...)",
            ));
        }
        let kids = named(a);
        match (
            kids.iter().copied().find(|k| matches!(k.kind(), "identifier" | "derived_type_member_expression")),
            kids.iter().copied().find(|k| k.kind() == "size"),
        ) {
            (Some(name), Some(size)) => Allocation::Sized { span, name: self.expr(name), shape: self.shape(size) },
            _ => Allocation::Unsupported(Diagnostic::error(span, "cannot read this allocation")),
        }
    }

    /// The lower-case identifiers in a subtree.
    fn identifiers_in(&self, n: Node, out: &mut Vec<String>) {
        let mut stack = vec![n];
        while let Some(x) = stack.pop() {
            if x.kind() == "identifier" {
                out.push(self.text(x).to_ascii_lowercase());
            }
            stack.extend(named(x));
        }
    }

    /// `forall (i = a:b[:s], ..., mask) x(i) = ...` and the `forall ... end forall`
    /// construct: one loop per statement of the body (see [`StmtKind::Forall`]).
    fn forall(&mut self, n: Node, span: Span) -> StmtKind {
        let kids = named(n);
        let mut header: Vec<Node> = Vec::new();
        let mut body: Vec<Node> = Vec::new();
        for k in kids {
            match k.kind() {
                "comment" | "end_forall_statement" => {}
                "triplet_spec" if body.is_empty() => header.push(k),
                x if x.ends_with("_statement") || x == "statement_label" => body.push(k),
                _ if body.is_empty() => header.push(k),
                _ => body.push(k),
            }
        }
        let mut loops = Vec::new();
        for stmt in body {
            let mut items = Vec::new();
            for h in &header {
                let hspan = self.sp(*h);
                if h.kind() != "triplet_spec" {
                    items.push(ConcurrentItem::Mask { span: hspan, cond: self.expr(*h) });
                    continue;
                }
                let c = named(*h);
                if c.len() < 3 || c.len() > 4 || c[0].kind() != "identifier" {
                    items.push(ConcurrentItem::Other { span: hspan, mask: false });
                    continue;
                }
                items.push(ConcurrentItem::Control {
                    span: hspan,
                    var: self.expr(c[0]),
                    start: self.expr(c[1]),
                    last: self.expr(c[2]),
                    step: c.get(3).map(|s| self.expr(*s)),
                });
            }
            let body = vec![self.stmt(stmt)];
            loops.push(DoLoop { head: span, name: None, control: DoControl::Concurrent { span, items }, body });
        }
        StmtKind::Forall(loops)
    }

    fn do_loop(&mut self, n: Node, span: Span) -> StmtKind {
        let mut kids = named(n);
        // `outer: do ...`: the construct name comes first.
        let mut name = None;
        if kids.first().is_some_and(|k| k.kind() == "block_label_start_expression") {
            name = Some(self.text(kids[0]).trim_end_matches(':').trim().to_ascii_lowercase());
            kids.remove(0);
        }
        let Some(head) = kids.first().copied().filter(|k| k.kind() == "do_statement") else {
            return StmtKind::Unsupported(Diagnostic::error(span, "cannot read this `do` loop"));
        };
        let ctl = named(head);
        let control = if let Some(control) = ctl.iter().copied().find(|c| c.kind() == "loop_control_expression") {
            let parts = named(control);
            if parts.len() < 3 || parts.len() > 4 {
                DoControl::Malformed(self.sp(control))
            } else {
                DoControl::Counted {
                    var: self.expr(parts[0]),
                    start: self.expr(parts[1]),
                    last: self.expr(parts[2]),
                    step: parts.get(3).map(|s| self.expr(*s)),
                }
            }
        } else if let Some(w) = ctl.iter().copied().find(|c| c.kind() == "while_statement") {
            let cond = match named(w).into_iter().find(|c| c.kind() == "parenthesized_expression") {
                Some(c) => self.expr(c),
                None => self.unsupported_expr(self.sp(w), "cannot read this `do while` condition"),
            };
            DoControl::While { cond }
        } else if let Some(conc) = ctl.iter().copied().find(|c| c.kind() == "concurrent_statement") {
            let header = named(conc).into_iter().find(|c| c.kind() == "concurrent_header");
            let mut items = Vec::new();
            for p in header.map(named).unwrap_or_default() {
                let pspan = self.sp(p);
                if p.kind() != "concurrent_control" {
                    items.push(ConcurrentItem::Mask { span: pspan, cond: self.expr(p) });
                    continue;
                }
                let c = named(p);
                if c.len() < 3 || c.len() > 4 || c[0].kind() != "identifier" {
                    items.push(ConcurrentItem::Other { span: pspan, mask: false });
                    continue;
                }
                items.push(ConcurrentItem::Control {
                    span: pspan,
                    var: self.expr(c[0]),
                    start: self.expr(c[1]),
                    last: self.expr(c[2]),
                    step: c.get(3).map(|s| self.expr(*s)),
                });
            }
            DoControl::Concurrent { span: self.sp(conc), items }
        } else {
            DoControl::Forever
        };
        // The body, without the `do` and `end do` lines; `10 continue` closing a labelled
        // `do` is part of it.
        let mut body = Vec::new();
        for s in kids.iter().skip(1) {
            match s.kind() {
                "end_do_loop_statement" | "statement_label_reference" => {}
                // A label inside the body (`10 p(i) = ...`): a `goto 10` in the body jumps to it.
                "statement_label" => body.push(self.stmt(*s)),
                // `10 continue`: the label too (a `goto 10` in the body skips to it).
                "end_do_label_loop_statement" => {
                    for t in named(*s) {
                        body.push(self.stmt(t));
                    }
                }
                _ => body.push(self.stmt(*s)),
            }
        }
        StmtKind::Do(Box::new(DoLoop { head: self.sp(head), name, control, body }))
    }

    fn if_stmt(&mut self, n: Node, span: Span) -> StmtKind {
        let kids = children(n);
        let Some(cond_node) = kids.iter().copied().find(|k| k.kind() == "parenthesized_expression") else {
            return StmtKind::Unsupported(Diagnostic::error(span, "cannot read this `if`"));
        };
        let one_line = !kids.iter().any(|k| !k.is_named() && k.kind().eq_ignore_ascii_case("then"));
        let cond = self.expr(cond_node);
        let mut then_body = Vec::new();
        let mut clauses = Vec::new();
        let mut seen_cond = false;
        for k in kids.iter().copied().filter(|k| k.is_named()) {
            if !seen_cond {
                seen_cond = k.id() == cond_node.id();
                continue;
            }
            match k.kind() {
                "elseif_clause" => {
                    let inner = named(k);
                    let cspan = self.sp(k);
                    let c = inner.iter().copied().find(|x| x.kind() == "parenthesized_expression");
                    let cond = match c {
                        Some(c) => self.expr(c),
                        None => self.unsupported_expr(cspan, "cannot read this `else if`"),
                    };
                    let body = self.stmts(inner.into_iter().filter(|x| Some(x.id()) != c.map(|c| c.id())));
                    clauses.push(ElseClause::ElseIf { span: cspan, cond, body });
                }
                "else_clause" => {
                    let body = self.stmts(named(k));
                    clauses.push(ElseClause::Else { span: self.sp(k), body });
                }
                "end_if_statement" | "statement_label" | "block_label" => {}
                _ => then_body.push(self.stmt(k)),
            }
        }
        StmtKind::If(Box::new(IfBlock { cond, one_line, then_body, clauses }))
    }

    fn where_stmt(&mut self, n: Node, span: Span) -> StmtKind {
        let kids = named(n);
        let Some(mask_paren) = kids.first().copied().filter(|k| k.kind() == "parenthesized_expression") else {
            return StmtKind::Unsupported(Diagnostic::error(span, "cannot read this `where`"));
        };
        let mask = self.expr(named(mask_paren).into_iter().next().unwrap_or(mask_paren));
        let mut body = Vec::new();
        let mut elsewhere: Vec<ElseWhere> = Vec::new();
        for k in kids.iter().copied().skip(1) {
            match k.kind() {
                "end_where_statement" => {}
                "elsewhere_clause" => {
                    let inner = named(k);
                    let m = inner.iter().copied().find(|c| c.kind() == "parenthesized_expression");
                    let mask = m.map(|m| self.expr(m));
                    let body = self.stmts(inner.into_iter().filter(|c| Some(c.id()) != m.map(|m| m.id())));
                    elsewhere.push(ElseWhere { span: self.sp(k), mask, body });
                }
                _ => {
                    let s = self.stmt(k);
                    match elsewhere.last_mut() {
                        Some(e) => e.body.push(s),
                        None => body.push(s),
                    }
                }
            }
        }
        StmtKind::Where(Box::new(WhereBlock { mask, body, elsewhere }))
    }

    fn select_case(&mut self, n: Node, span: Span) -> StmtKind {
        let kids = named(n);
        let Some(sel) = kids.iter().copied().find(|k| k.kind() == "selector") else {
            return StmtKind::Unsupported(Diagnostic::error(span, "cannot read this `select case`"));
        };
        let Some(sel_expr) = named(sel).into_iter().next() else {
            return StmtKind::Unsupported(Diagnostic::error(self.sp(sel), "cannot read this selector"));
        };
        let selector = self.expr(sel_expr);
        let mut cases = Vec::new();
        for case in kids.iter().copied().filter(|k| k.kind() == "case_statement") {
            let mut c = Case { span: self.sp(case), default: false, values: Vec::new(), body: Vec::new() };
            for p in named(case) {
                match p.kind() {
                    "default" => c.default = true,
                    "case_value_range_list" => c.values.extend(named(p).into_iter().map(|v| self.expr(v))),
                    _ => c.body.push(self.stmt(p)),
                }
            }
            cases.push(c);
        }
        StmtKind::Select(Box::new(SelectCase { selector, cases }))
    }

    /// `go to (l1, l2, ..., ln) [,] e`: jumps to the k-th label when `e` is k, else goes
    /// on. Each test reads `e` again (an integer selector has no side effects).
    fn computed_goto(&mut self, n: Node, span: Span) -> StmtKind {
        let kids = named(n);
        let labels: Vec<String> = kids
            .iter()
            .filter(|c| c.kind() == "statement_label_reference")
            .map(|c| self.text(*c).trim().to_string())
            .collect();
        let selector = kids.iter().copied().rfind(|c| c.kind() != "statement_label_reference");
        let Some(selector) = selector.filter(|_| !labels.is_empty()) else {
            return StmtKind::Unsupported(
                Diagnostic::error(span, "assigned `goto` is not supported")
                    .with_help("rewrite the control flow with `select case` and `if` blocks"),
            );
        };
        let count = labels.len();
        let mut tests = Vec::new();
        for (k, label) in labels.into_iter().enumerate() {
            let cond = self.compare(selector, CmpOp::Eq, k + 1);
            tests.push((label, cond));
        }
        let below = self.compare(selector, CmpOp::Lt, 1);
        let above = self.compare(selector, CmpOp::Gt, count);
        let at = below.span;
        let out_of_range =
            self.new_expr(at, ExprKind::Logical { op: LogicalOp::Or, lhs: Box::new(below), rhs: Box::new(above) });
        StmtKind::ComputedGoto { tests, out_of_range }
    }

    /// `e op value`, with `e` parsed afresh from `n`.
    fn compare(&mut self, n: Node, op: CmpOp, value: usize) -> Expr {
        let lhs = self.expr(n);
        let at = lhs.span;
        let rhs = self.new_expr(at, ExprKind::Number(value.to_string()));
        self.new_expr(at, ExprKind::Compare { op, lhs: Box::new(lhs), rhs: Box::new(rhs) })
    }

    fn new_expr(&mut self, span: Span, kind: ExprKind) -> Expr {
        let id = self.next_id;
        self.next_id += 1;
        Expr { id, span, kind }
    }

    fn unsupported_expr(&mut self, span: Span, msg: &str) -> Expr {
        self.new_expr(span, ExprKind::Unsupported(Diagnostic::error(span, msg)))
    }

    fn expr(&mut self, n: Node) -> Expr {
        let span = self.sp(n);
        self.depth += 1;
        let kind = if self.depth > MAX_PARSE_DEPTH {
            ExprKind::Unsupported(Diagnostic::error(span, "expression nested too deeply"))
        } else {
            self.expr_kind(n, span)
        };
        self.depth -= 1;
        self.new_expr(span, kind)
    }

    fn expr_kind(&mut self, n: Node, span: Span) -> ExprKind {
        let err = |msg: String| ExprKind::Unsupported(Diagnostic::error(span, msg));
        match n.kind() {
            "number_literal" => ExprKind::Number(self.text(n).to_string()),
            "boolean_literal" => ExprKind::Bool(self.text(n).to_ascii_lowercase().contains("true")),
            "string_literal" => ExprKind::Str(self.text(n).to_string()),
            "identifier" => ExprKind::Name(self.text(n).to_string()),
            "parenthesized_expression" => match named(n).first() {
                Some(inner) => ExprKind::Paren(Box::new(self.expr(*inner))),
                None => err("empty parentheses".into()),
            },
            "math_expression" => {
                let kids = children(n);
                let (Some(a), Some(op), Some(b)) = (kids.first(), kids.get(1), kids.get(2)) else {
                    return err("cannot read this expression".into());
                };
                let op = match self.text(*op) {
                    "+" => MathOp::Add,
                    "-" => MathOp::Sub,
                    "*" => MathOp::Mul,
                    "/" => MathOp::Div,
                    "**" => MathOp::Pow,
                    o => MathOp::Other(o.to_string()),
                };
                ExprKind::Math { op, lhs: Box::new(self.expr(*a)), rhs: Box::new(self.expr(*b)) }
            }
            "unary_expression" => {
                let kids = children(n);
                let (Some(op), Some(a)) = (kids.first(), kids.get(1)) else {
                    return err("cannot read this expression".into());
                };
                let op = match self.text(*op).to_ascii_lowercase().as_str() {
                    "-" => UnaryOp::Neg,
                    "+" => UnaryOp::Pos,
                    ".not." => UnaryOp::Not,
                    o => UnaryOp::Other(o.to_string()),
                };
                ExprKind::Unary { op, operand: Box::new(self.expr(*a)) }
            }
            "relational_expression" => {
                let kids = children(n);
                let (Some(a), Some(op), Some(b)) = (kids.first(), kids.get(1), kids.get(2)) else {
                    return err("cannot read this comparison".into());
                };
                let op = match self.text(*op).to_ascii_lowercase().as_str() {
                    "<" | ".lt." => CmpOp::Lt,
                    "<=" | ".le." => CmpOp::Le,
                    ">" | ".gt." => CmpOp::Gt,
                    ">=" | ".ge." => CmpOp::Ge,
                    "==" | ".eq." => CmpOp::Eq,
                    "/=" | ".ne." => CmpOp::Ne,
                    o => {
                        return ExprKind::Unsupported(Diagnostic::error(
                            self.sp(*op),
                            format!("the operator `{o}` is not supported"),
                        ))
                    }
                };
                ExprKind::Compare { op, lhs: Box::new(self.expr(*a)), rhs: Box::new(self.expr(*b)) }
            }
            "logical_expression" => {
                let kids = children(n);
                if kids.len() == 2 {
                    return ExprKind::Not(Box::new(self.expr(kids[1])));
                }
                let (Some(a), Some(op), Some(b)) = (kids.first(), kids.get(1), kids.get(2)) else {
                    return err("cannot read this logical expression".into());
                };
                let op = match self.text(*op).to_ascii_lowercase().as_str() {
                    ".and." => LogicalOp::And,
                    ".or." => LogicalOp::Or,
                    ".eqv." => LogicalOp::Eqv,
                    ".neqv." => LogicalOp::Neqv,
                    o => LogicalOp::Other(o.to_string()),
                };
                ExprKind::Logical { op, lhs: Box::new(self.expr(*a)), rhs: Box::new(self.expr(*b)) }
            }
            "call_expression" => {
                let Some(callee) = named(n).into_iter().next() else { return err("cannot read this call".into()) };
                let args = named(n).into_iter().find(|c| c.kind() == "argument_list").map(named).unwrap_or_default();
                let callee = Box::new(self.expr(callee));
                ExprKind::Call { callee, args: args.into_iter().map(|a| self.expr(a)).collect() }
            }
            "complex_literal" => err("complex numbers are not supported".into()),
            "extent_specifier" => {
                let parts = colon_parts(n);
                let mut part = |k: usize| parts.get(k).copied().flatten().map(|x| Box::new(self.expr(x)));
                let (lo, hi, stride) = (part(0), part(1), part(2));
                ExprKind::Range { lo, hi, stride }
            }
            "keyword_argument" => {
                let kids = named(n);
                match (kids.first(), kids.get(1)) {
                    (Some(k), Some(v)) if kids.len() == 2 => {
                        ExprKind::Keyword { name: self.text(*k).to_string(), value: Box::new(self.expr(*v)) }
                    }
                    _ => err("this expression is not supported (`keyword argument`)".into()),
                }
            }
            "derived_type_member_expression" => {
                let kids = named(n);
                match (kids.first(), kids.get(1)) {
                    (Some(b), Some(m)) => {
                        ExprKind::Component { base: Box::new(self.expr(*b)), name: self.text(*m).trim().to_string() }
                    }
                    _ => err("this expression is not supported (`derived type member expression`)".into()),
                }
            }
            "array_literal" => ExprKind::ArrayConstructor(named(n).into_iter().map(|i| self.expr(i)).collect()),
            "implied_do_loop_expression" | "implied_do_loop" => self.implied_do(n),
            k => err(format!("this expression is not supported (`{}`)", k.replace('_', " "))),
        }
    }
}

impl Parser<'_> {
    /// `(items, i = a, b[, c])`.
    fn implied_do(&mut self, n: Node) -> ExprKind {
        let kids = named(n);
        let control = kids.iter().copied().find(|k| k.kind() == "loop_control_expression");
        let bad = || {
            ExprKind::Unsupported(
                Diagnostic::error(span_of(self.src, n), "cannot read this implied do loop")
                    .with_help("write it as `(item, i = first, last)`"),
            )
        };
        let Some(control) = control else { return bad() };
        let parts = named(control);
        let (Some(var), Some(start), Some(last)) = (parts.first(), parts.get(1), parts.get(2)) else { return bad() };
        if var.kind() != "identifier" || parts.len() > 4 {
            return bad();
        }
        let items =
            kids.iter().copied().filter(|k| k.kind() != "loop_control_expression").map(|i| self.expr(i)).collect();
        ExprKind::ImpliedDo(Box::new(ImpliedDo {
            items,
            var: self.text(*var).to_string(),
            var_span: self.sp(*var),
            start: self.expr(*start),
            last: self.expr(*last),
            step: parts.get(3).map(|s| self.expr(*s)),
        }))
    }
}

/// The parts of `a:b:c` between colons (`None` where a part is omitted).
fn colon_parts(n: Node) -> Vec<Option<Node>> {
    let mut parts = vec![None];
    for c in children(n) {
        if !c.is_named() && c.kind() == ":" {
            parts.push(None);
        } else if c.is_named() {
            if let Some(last) = parts.last_mut() {
                *last = Some(c);
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> File {
        let tree = super::super::syntax::parse(src).expect("the grammar loads");
        let root = tree.root_node();
        assert!(super::super::syntax::first_error(root).is_none(), "syntax error in:\n{src}");
        parse_file(src, root)
    }

    fn only_procedure(f: &File) -> &Procedure {
        match f.units.as_slice() {
            [TopUnit::Procedure(p)] => p,
            other => panic!("expected one procedure, got {other:?}"),
        }
    }

    #[test]
    fn a_small_routine() {
        let src = "subroutine saxpy(n, a, x, y)\n  implicit none\n  integer, intent(in) :: n\n  \
                   real(8), intent(in) :: a, x(n)\n  real(8), intent(inout) :: y(0:n-1)\n  integer :: i\n  \
                   do i = 1, n\n    if (x(i) > 0d0) then\n      y(i-1) = y(i-1) + a * x(i)\n    else\n      \
                   y(i-1) = -y(i-1)\n    end if\n  end do\nend subroutine saxpy\n";
        let f = parse(src);
        let p = only_procedure(&f);
        assert_eq!(
            (p.kind, p.name.as_str(), p.name_span.line, p.name_span.col),
            (ProcKind::Subroutine, "saxpy", 1, 12)
        );
        let dummies: Vec<&str> = p.dummies.iter().map(|(d, _)| d.as_str()).collect();
        assert_eq!(dummies, ["n", "a", "x", "y"]);
        assert!(matches!(&p.spec[0].kind, SpecKind::Implicit(Implicit { none: true, .. })));
        let SpecKind::Decl(d) = &p.spec[2].kind else { panic!("a declaration: {:?}", p.spec[2]) };
        assert!(matches!(d.type_spec(), Some(TypeSpec::Intrinsic { base, kind: Some(_), .. }) if base == "real"));
        assert!(d.parts.iter().any(|x| matches!(x, DeclPart::Attr(Attr { kind: AttrKind::Intent(Intent::In), .. }))));
        let names: Vec<&str> = d.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["a", "x"]);
        let x_shape = d.entities[1].shape.as_ref().expect("x(n) has a shape");
        assert!(matches!(x_shape.dims.as_slice(), [DimSpec::Explicit { lower: None, .. }]));
        let SpecKind::Decl(dy) = &p.spec[3].kind else { panic!() };
        let y_shape = dy.entities[0].shape.as_ref().expect("y has a shape");
        assert!(matches!(y_shape.dims.as_slice(), [DimSpec::Explicit { lower: Some(_), .. }]));
        // One statement: the loop, holding the `if` with its `else`.
        let [Stmt { kind: StmtKind::Do(l), span }] = p.body.as_slice() else { panic!("one loop: {:?}", p.body) };
        assert_eq!((span.line, l.head.line), (7, 7));
        let DoControl::Counted { var, step: None, .. } = &l.control else { panic!("a counted loop") };
        assert_eq!(var.as_name(), Some("i"));
        let [Stmt { kind: StmtKind::If(b), .. }] = l.body.as_slice() else { panic!("an if: {:?}", l.body) };
        assert!(!b.one_line);
        assert!(
            matches!(&b.cond.kind, ExprKind::Paren(c) if matches!(c.kind, ExprKind::Compare { op: CmpOp::Gt, .. }))
        );
        let [Stmt { kind: StmtKind::Assign { lhs, rhs }, .. }] = b.then_body.as_slice() else { panic!() };
        assert!(
            matches!(&lhs.kind, ExprKind::Call { callee, args } if callee.as_name() == Some("y") && args.len() == 1)
        );
        let ExprKind::Math { op: MathOp::Add, rhs: prod, .. } = &rhs.kind else { panic!("a sum: {rhs:?}") };
        assert!(matches!(prod.kind, ExprKind::Math { op: MathOp::Mul, .. }));
        assert!(matches!(b.clauses.as_slice(), [ElseClause::Else { body, .. }] if body.len() == 1));
        // Every expression has its own id.
        let mut ids = Vec::new();
        let mut stack: Vec<&Expr> = vec![lhs, rhs, &b.cond];
        while let Some(e) = stack.pop() {
            ids.push(e.id);
            stack.extend(e.children());
        }
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n);
    }

    #[test]
    fn unknown_constructs_become_located_errors() {
        let src =
            "subroutine k(x)\n  real(8) :: x(4)\n  block\n    x(2) = 0d0\n  end block\n  x(1) = (1.0, 2.0)\nend subroutine\n";
        let f = parse(src);
        let p = only_procedure(&f);
        let StmtKind::Unsupported(d) = &p.body[0].kind else { panic!("unsupported: {:?}", p.body[0]) };
        assert_eq!((d.span.line, d.span.col), (3, 3));
        assert_eq!(d.message, "this construct is not supported");
        let StmtKind::Assign { rhs, .. } = &p.body[1].kind else { panic!() };
        let ExprKind::Unsupported(d) = &rhs.kind else { panic!("unsupported: {rhs:?}") };
        assert_eq!((d.span.line, d.span.col, d.message.as_str()), (6, 10, "complex numbers are not supported"));
        // Through the frontend: the same error, rendered with its location and a caret.
        let e = crate::lower_fortran("k.f90", src, &Default::default()).expect_err("block is rejected");
        let shown = e.render("k.f90", src);
        assert!(shown.contains("k.f90:3:3"), "{shown}");
        assert!(shown.contains('^'), "{shown}");
    }

    /// F77 `parameter (...)` and `dimension x(n)` statements belong to the specification
    /// part wherever they stand in it; after an executable statement they are statements.
    #[test]
    fn f77_parameter_and_dimension_statements_are_declarations() {
        let src = "subroutine k(n, x)\n  integer n\n  parameter (m = 3, c = 2)\n  real(8) x\n  \
                   dimension x(n), w(m)\n  x(1) = c\n  parameter (z = 1)\n  dimension y(2)\nend subroutine\n";
        let f = parse(src);
        let p = only_procedure(&f);
        let SpecKind::Parameter(defs) = &p.spec[1].kind else { panic!("parameter: {:?}", p.spec[1]) };
        let names: Vec<&str> = defs.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["m", "c"]);
        let SpecKind::Attributes(d) = &p.spec[3].kind else { panic!("dimension: {:?}", p.spec[3]) };
        assert!(d.type_spec().is_none());
        assert!(d.parts.iter().any(|x| matches!(x, DeclPart::Attr(Attr { kind: AttrKind::Dimension(None), .. }))));
        let names: Vec<&str> = d.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["x", "w"]);
        assert!(d.entities.iter().all(|e| e.shape.is_some()));
        assert!(matches!(p.body[1].kind, StmtKind::Parameter(_)));
        assert!(matches!(p.body[2].kind, StmtKind::Declaration(_)));
    }

    /// The constructs of issue 13 have their place in the tree (lowering still rejects them).
    #[test]
    fn constructs_of_issue_13_are_represented() {
        let src = "subroutine k(curr, a, b, opt)\n  type(field), intent(inout) :: curr\n  \
                   real(8) :: a(2), b\n  real(8), optional :: opt\n  common /blk/ c, d(10)\n  \
                   a = (/ 1d0, 2d0 /)\n  curr%data(1) = b\n  do while (b > 0d0)\n    b = b - 1d0\n  end do\n  \
                   if (b < 0d0) goto 10\n  return\n10 continue\nend subroutine\n";
        let f = parse(src);
        let p = only_procedure(&f);
        let SpecKind::Decl(d) = &p.spec[0].kind else { panic!() };
        assert!(matches!(d.type_spec(), Some(TypeSpec::Derived { name, .. }) if name == "field"));
        let SpecKind::Decl(d) = &p.spec[2].kind else { panic!() };
        assert!(d.parts.iter().any(|x| matches!(x, DeclPart::Attr(Attr { kind: AttrKind::Optional, .. }))));
        let SpecKind::Common(blocks) = &p.spec[3].kind else { panic!("common: {:?}", p.spec[3]) };
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].name.as_deref(), Some("blk"));
        let members: Vec<&str> = blocks[0].members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(members, ["c", "d"]);
        assert!(blocks[0].members[1].shape.is_some());
        let kinds: Vec<&StmtKind> = p.body.iter().map(|s| &s.kind).collect();
        assert!(
            matches!(kinds[0], StmtKind::Assign { rhs: Expr { kind: ExprKind::ArrayConstructor(items), .. }, .. } if items.len() == 2)
        );
        assert!(matches!(kinds[1], StmtKind::Assign { lhs: Expr { kind: ExprKind::Call { callee, .. }, .. }, .. }
                if matches!(&callee.kind, ExprKind::Component { name, .. } if name == "data")));
        assert!(
            matches!(kinds[2], StmtKind::Do(l) if matches!(l.control, DoControl::While { .. }) && l.body.len() == 1)
        );
        let StmtKind::If(b) = kinds[3] else { panic!("if: {:?}", kinds[3]) };
        assert!(b.one_line);
        assert!(matches!(&b.then_body[0].kind, StmtKind::Goto { label: Some(l) } if l == "10"));
        assert!(matches!(kinds[4], StmtKind::Return));
        assert!(matches!(kinds[5], StmtKind::Label(l) if l == "10"));
        assert!(matches!(kinds[6], StmtKind::Continue));
    }

    /// Nesting deeper than `MAX_PARSE_DEPTH` is cut off with a located error, not a stack
    /// overflow (on a thread with the frontend's stack).
    #[test]
    fn very_deep_nesting_is_cut_off() {
        let depth = MAX_PARSE_DEPTH + 2_000;
        let src = format!(
            "subroutine k(x)\n  real(8) :: x\n  x = {}x{}\nend subroutine\n",
            "(".repeat(depth),
            ")".repeat(depth)
        );
        let run = move || {
            let f = parse(&src);
            let p = only_procedure(&f);
            let StmtKind::Assign { rhs, .. } = &p.body[0].kind else { panic!("an assignment") };
            let mut e = rhs;
            let mut levels = 0;
            while let ExprKind::Paren(inner) = &e.kind {
                e = inner;
                levels += 1;
            }
            assert!(levels < MAX_PARSE_DEPTH, "{levels}");
            assert!(
                matches!(&e.kind, ExprKind::Unsupported(d) if d.message == "expression nested too deeply" && d.span.line == 3)
            );
            // Dropping the tree is recursive too: here, on the big stack.
            drop(f);
        };
        std::thread::Builder::new().stack_size(super::super::STACK_SIZE).spawn(run).unwrap().join().unwrap();
    }
}
