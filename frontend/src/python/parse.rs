//! tree-sitter CST → [`ast`](super::ast). Syntax errors are reported here (the first ERROR
//! or MISSING node); constructs outside the supported subset are turned into diagnostics
//! that surface when the function containing them is used.

use super::ast::*;
use crate::ts::first_error_below;
use adjc_ir::{Diagnostic, Span};
use tree_sitter::{Node, Parser};

/// Deeper nesting than this is rejected rather than risking the stack.
const MAX_DEPTH: usize = 200;

/// Left operands of binary operators that are binary operators themselves (the left spine
/// of `x[0] + x[1] + ... + x[n]`) do not count as nesting for [`MAX_DEPTH`]: a long sum is
/// flat to its author. They are bounded on their own, along any path from the root, so
/// that the (left-deep) expression trees every later stage recurses on stay shallow
/// enough for the stack.
pub(crate) const MAX_CHAIN: usize = 5_000;

pub fn parse_module(source: &str) -> Result<ModuleAst, Diagnostic> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .map_err(|e| Diagnostic::error(Span::NONE, format!("cannot load the Python grammar: {e}")))?;
    let tree = parser
        .parse(source, None)
        .ok_or_else(|| Diagnostic::error(Span::NONE, "the Python parser gave up on this file"))?;
    let root = tree.root_node();
    let cx = Cx { src: source, chain: std::cell::Cell::new(0) };
    if let Some(bad) = first_error(root) {
        let d = cx.syntax_error(bad);
        // An indentation error usually derails the grammar further on: report it first.
        return Err(match super::syntax::check(source, root) {
            Some(e) if e.span.start < d.span.start => e,
            _ => d,
        });
    }
    if let Some(d) = super::syntax::check(source, root) {
        return Err(d);
    }
    cx.module(root)
}

pub fn span_of(src: &str, n: Node) -> Span {
    let start = n.start_byte();
    let pos = n.start_position();
    let line_start = start.saturating_sub(pos.column);
    let col = src.get(line_start..start).map(|s| s.chars().count()).unwrap_or(pos.column);
    Span { line: pos.row as u32 + 1, col: col as u32 + 1, start: start as u32, end: n.end_byte() as u32 }
}

/// The first ERROR or MISSING node in document order, preferring the innermost one (it
/// points at the offending token rather than at the start of the broken statement).
fn first_error(root: Node) -> Option<Node> {
    let outer = first_error_below(root, false)?;
    if outer.is_error() {
        if let Some(inner) = first_error_below(outer, true) {
            return Some(inner);
        }
    }
    Some(outer)
}

struct Cx<'s> {
    src: &'s str,
    /// Left-spine links on the path to the expression being read (see [`MAX_CHAIN`]).
    chain: std::cell::Cell<usize>,
}

fn children<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.children(&mut c).filter(|ch| !ch.is_extra()).collect()
}

fn named<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).filter(|ch| !ch.is_extra()).collect()
}

impl<'s> Cx<'s> {
    fn span(&self, n: Node) -> Span {
        span_of(self.src, n)
    }
    fn text(&self, n: Node) -> String {
        self.src.get(n.byte_range()).unwrap_or("").to_string()
    }
    fn err(&self, n: Node, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::error(self.span(n), msg)
    }

    fn syntax_error(&self, n: Node) -> Diagnostic {
        crate::ts::syntax_error(
            self.span(n),
            n,
            &self.text(n),
            "fix the Python syntax; the file must parse as Python 3",
        )
    }

    fn module(&self, root: Node) -> Result<ModuleAst, Diagnostic> {
        let mut m = ModuleAst::default();
        for n in named(root) {
            match n.kind() {
                "import_statement" => self.import(n, &mut m),
                "import_from_statement" => self.import_from(n, &mut m),
                "function_definition" => m.funcs.push(self.function(n)),
                "decorated_definition" => match n.child_by_field_name("definition") {
                    Some(d) if d.kind() == "function_definition" => m.funcs.push(self.function(d)),
                    Some(d) => return Err(self.class_error(d)),
                    None => {}
                },
                "class_definition" => return Err(self.class_error(n)),
                "expression_statement" => {
                    if let Some(a) = named(n).into_iter().next() {
                        if a.kind() == "assignment" {
                            if let (Some(l), Some(r)) = (a.child_by_field_name("left"), a.child_by_field_name("right"))
                            {
                                if l.kind() == "identifier" {
                                    if let Ok(e) = self.expr(r, 0) {
                                        m.consts.push((self.text(l), e));
                                    }
                                }
                            }
                        }
                    }
                }
                // Anything else at module level (a `__main__` block, prints, ...) is not part
                // of a kernel and is ignored.
                _ => {}
            }
        }
        Ok(m)
    }

    fn class_error(&self, n: Node) -> Diagnostic {
        self.err(n, "classes are not supported").with_help("write the kernel as plain functions on NumPy arrays")
    }

    fn import(&self, n: Node, m: &mut ModuleAst) {
        let mut c = n.walk();
        for name in n.children_by_field_name("name", &mut c) {
            match name.kind() {
                "dotted_name" => {
                    let full = self.text(name);
                    let first = full.split('.').next().unwrap_or("").trim().to_string();
                    m.imports.push((first.clone(), first));
                }
                "aliased_import" => {
                    if let (Some(q), Some(a)) = (name.child_by_field_name("name"), name.child_by_field_name("alias")) {
                        m.imports.push((self.text(a), dotted_clean(&self.text(q))));
                    }
                }
                _ => {}
            }
        }
    }

    fn import_from(&self, n: Node, m: &mut ModuleAst) {
        let Some(module) = n.child_by_field_name("module_name") else { return };
        let module = dotted_clean(&self.text(module));
        let mut c = n.walk();
        for name in n.children_by_field_name("name", &mut c) {
            match name.kind() {
                "dotted_name" => {
                    let t = dotted_clean(&self.text(name));
                    m.imports.push((t.clone(), format!("{module}.{t}")));
                }
                "aliased_import" => {
                    if let (Some(q), Some(a)) = (name.child_by_field_name("name"), name.child_by_field_name("alias")) {
                        m.imports.push((self.text(a), format!("{module}.{}", dotted_clean(&self.text(q)))));
                    }
                }
                _ => {}
            }
        }
        if named(n).iter().any(|c| c.kind() == "wildcard_import") {
            m.imports.push(("*".into(), module));
        }
    }

    fn function(&self, n: Node) -> FuncDef {
        let name_node = n.child_by_field_name("name");
        let name = name_node.map(|x| self.text(x)).unwrap_or_default();
        let name_span = name_node.map(|x| self.span(x)).unwrap_or_else(|| self.span(n));
        let params = match n.child_by_field_name("parameters") {
            Some(p) => self.params(p),
            None => Ok(Vec::new()),
        };
        let body = match n.child_by_field_name("body") {
            Some(b) => self.block(b, 0),
            None => Ok(Vec::new()),
        };
        FuncDef { name, span: self.span(n), name_span, params, body }
    }

    fn params(&self, n: Node) -> Result<Vec<ParamAst>, Diagnostic> {
        let mut out = Vec::new();
        for p in named(n) {
            let span = self.span(p);
            match p.kind() {
                "identifier" => out.push(ParamAst { name: self.text(p), span, ann: None, default: None }),
                "typed_parameter" => {
                    let id = named(p).into_iter().find(|c| c.kind() == "identifier");
                    let Some(id) = id else {
                        return Err(self.splat_error(p));
                    };
                    let ann = match p.child_by_field_name("type") {
                        Some(t) => Some(self.type_expr(t)?),
                        None => None,
                    };
                    out.push(ParamAst { name: self.text(id), span, ann, default: None });
                }
                "default_parameter" | "typed_default_parameter" => {
                    let id = p.child_by_field_name("name").filter(|x| x.kind() == "identifier");
                    let Some(id) = id else {
                        return Err(self.err(p, "tuple parameters are not supported"));
                    };
                    let ann = match p.child_by_field_name("type") {
                        Some(t) => Some(self.type_expr(t)?),
                        None => None,
                    };
                    let default = match p.child_by_field_name("value") {
                        Some(v) => Some(self.expr(v, 0)?),
                        None => None,
                    };
                    out.push(ParamAst { name: self.text(id), span, ann, default });
                }
                "list_splat_pattern" | "dictionary_splat_pattern" => return Err(self.splat_error(p)),
                "keyword_separator" | "positional_separator" => {}
                _ => return Err(self.err(p, format!("unsupported parameter `{}`", self.text(p)))),
            }
        }
        Ok(out)
    }

    fn splat_error(&self, p: Node) -> Diagnostic {
        self.err(p, format!("`{}` parameters are not supported", self.text(p)))
            .with_help("list every parameter explicitly (`*args` and `**kwargs` cannot be typed)")
    }

    fn type_expr(&self, t: Node) -> Result<Ex, Diagnostic> {
        // `type` wraps an expression.
        match named(t).into_iter().next() {
            Some(e) if t.kind() == "type" => self.expr(e, 0),
            _ => self.expr(t, 0),
        }
    }

    fn block(&self, n: Node, depth: usize) -> Result<Vec<St>, Diagnostic> {
        if depth > MAX_DEPTH {
            return Err(self.err(n, "statements nested too deeply"));
        }
        let mut out = Vec::new();
        for s in named(n) {
            let alt = matches!(s.kind(), "for_statement" | "while_statement")
                .then(|| s.child_by_field_name("alternative"))
                .flatten();
            let st = self.stmt(s, depth)?;
            match (st, alt) {
                // `for/while ... else`: a flag set by the loop's `break`s (`loop_else`).
                (Some(st), Some(alt)) => {
                    let else_body = match alt.child_by_field_name("body") {
                        Some(b) => self.block(b, depth + 1)?,
                        None => Vec::new(),
                    };
                    out.extend(super::loop_else::desugar(st, else_body, self.span(alt), self.src));
                }
                (Some(st), None) => out.push(st),
                (None, _) => {}
            }
        }
        Ok(out)
    }

    fn stmt(&self, n: Node, depth: usize) -> Result<Option<St>, Diagnostic> {
        let span = self.span(n);
        let kind = match n.kind() {
            "expression_statement" => {
                let parts = named(n);
                if parts.len() == 1 {
                    match parts[0].kind() {
                        "assignment" => self.assignment(parts[0], depth)?,
                        "augmented_assignment" => self.aug_assignment(parts[0], depth)?,
                        _ => StKind::Expr(self.expr(parts[0], depth)?),
                    }
                } else {
                    let items = parts.iter().map(|p| self.expr(*p, depth)).collect::<Result<Vec<_>, _>>()?;
                    StKind::Expr(Ex { kind: ExKind::Tuple(items), span, text: self.text(n) })
                }
            }
            "return_statement" => match named(n).into_iter().next() {
                Some(v) => StKind::Return(Some(self.expr(v, depth)?)),
                None => StKind::Return(None),
            },
            "pass_statement" => StKind::Pass,
            // Assertions do not change values; they are checks the caller's data satisfies.
            "assert_statement" => return Ok(None),
            "import_statement" | "import_from_statement" | "future_import_statement" => return Ok(None),
            "if_statement" => self.if_stmt(n, depth)?,
            "for_statement" => self.for_stmt(n, depth)?,
            "while_statement" => self.while_stmt(n, depth)?,
            "break_statement" => StKind::Break,
            "continue_statement" => StKind::Continue,
            "global_statement" | "nonlocal_statement" => {
                return Err(self
                    .err(n, format!("`{}` is not supported", n.kind().trim_end_matches("_statement")))
                    .with_help("pass the value as a parameter or use a module-level constant"))
            }
            "with_statement" => return Err(self.err(n, "`with` is not supported")),
            "try_statement" => return Err(self.err(n, "`try` is not supported")),
            "raise_statement" => return Err(self.err(n, "`raise` is not supported")),
            "delete_statement" => return Err(self.err(n, "`del` is not supported")),
            "class_definition" => return Err(self.class_error(n)),
            "function_definition" | "decorated_definition" => {
                return Err(self
                    .err(n, "nested functions are not supported")
                    .with_help("define helper functions at module level; they are inlined"))
            }
            "match_statement" => return Err(self.err(n, "`match` is not supported")),
            other => return Err(self.err(n, format!("unsupported statement ({})", other.replace('_', " ")))),
        };
        Ok(Some(St { kind, span }))
    }

    fn assignment(&self, n: Node, depth: usize) -> Result<StKind, Diagnostic> {
        let mut targets = Vec::new();
        let mut cur = n;
        loop {
            let Some(l) = cur.child_by_field_name("left") else {
                return Err(self.err(cur, "malformed assignment"));
            };
            targets.push(self.target(l, depth)?);
            match cur.child_by_field_name("right") {
                // Annotation only (`x: float`): declares nothing we need.
                None => return Ok(StKind::Pass),
                Some(r) if r.kind() == "assignment" => cur = r,
                Some(r) if r.kind() == "augmented_assignment" => {
                    return Err(self.err(r, "chained augmented assignment is not supported"))
                }
                Some(r) => {
                    let value = self.expr(r, depth)?;
                    return Ok(StKind::Assign { targets, value });
                }
            }
        }
    }

    fn target(&self, l: Node, depth: usize) -> Result<Ex, Diagnostic> {
        match l.kind() {
            "pattern_list" | "tuple_pattern" | "list_pattern" => {
                let items = named(l).into_iter().map(|c| self.target(c, depth)).collect::<Result<Vec<_>, _>>()?;
                Ok(Ex { kind: ExKind::Tuple(items), span: self.span(l), text: self.text(l) })
            }
            "list_splat_pattern" => Err(self.err(l, "starred assignment targets are not supported")),
            _ => self.expr(l, depth),
        }
    }

    fn aug_assignment(&self, n: Node, depth: usize) -> Result<StKind, Diagnostic> {
        let (Some(l), Some(o), Some(r)) =
            (n.child_by_field_name("left"), n.child_by_field_name("operator"), n.child_by_field_name("right"))
        else {
            return Err(self.err(n, "malformed augmented assignment"));
        };
        let op = match o.kind() {
            "+=" => BinOpAst::Add,
            "-=" => BinOpAst::Sub,
            "*=" => BinOpAst::Mul,
            "/=" => BinOpAst::Div,
            "//=" => BinOpAst::FloorDiv,
            "%=" => BinOpAst::Mod,
            "**=" => BinOpAst::Pow,
            "@=" => BinOpAst::MatMul,
            "&=" => BinOpAst::BitAnd,
            "|=" => BinOpAst::BitOr,
            "^=" => BinOpAst::BitXor,
            other => return Err(self.err(o, format!("`{other}` is not supported"))),
        };
        Ok(StKind::AugAssign { target: self.target(l, depth)?, op, value: self.expr(r, depth)? })
    }

    fn if_stmt(&self, n: Node, depth: usize) -> Result<StKind, Diagnostic> {
        let cond = match n.child_by_field_name("condition") {
            Some(c) => self.expr(c, depth)?,
            None => return Err(self.err(n, "malformed `if`")),
        };
        let then_body = match n.child_by_field_name("consequence") {
            Some(b) => self.block(b, depth + 1)?,
            None => Vec::new(),
        };
        let mut c = n.walk();
        let alts: Vec<Node> = n.children_by_field_name("alternative", &mut c).collect();
        let else_body = self.alternatives(&alts, depth)?;
        Ok(StKind::If { cond, then_body, else_body })
    }

    fn alternatives(&self, alts: &[Node], depth: usize) -> Result<Vec<St>, Diagnostic> {
        let Some((first, rest)) = alts.split_first() else { return Ok(Vec::new()) };
        match first.kind() {
            "else_clause" => match first.child_by_field_name("body") {
                Some(b) => self.block(b, depth + 1),
                None => Ok(Vec::new()),
            },
            "elif_clause" => {
                let cond = match first.child_by_field_name("condition") {
                    Some(c) => self.expr(c, depth)?,
                    None => return Err(self.err(*first, "malformed `elif`")),
                };
                let then_body = match first.child_by_field_name("consequence") {
                    Some(b) => self.block(b, depth + 1)?,
                    None => Vec::new(),
                };
                let else_body = self.alternatives(rest, depth + 1)?;
                Ok(vec![St { kind: StKind::If { cond, then_body, else_body }, span: self.span(*first) }])
            }
            _ => Err(self.err(*first, "unsupported `if` clause")),
        }
    }

    fn for_stmt(&self, n: Node, depth: usize) -> Result<StKind, Diagnostic> {
        // An `else` block is desugared by `block` (`loop_else`).
        let (Some(l), Some(r)) = (n.child_by_field_name("left"), n.child_by_field_name("right")) else {
            return Err(self.err(n, "malformed `for`"));
        };
        if l.kind() != "identifier" {
            return Err(self
                .err(l, format!("unsupported loop target `{}`", self.text(l)))
                .with_help("loops must have the form `for i in range(...)`"));
        }
        let body = match n.child_by_field_name("body") {
            Some(b) => self.block(b, depth + 1)?,
            None => Vec::new(),
        };
        Ok(StKind::For { var: self.text(l), var_span: self.span(l), iter: self.expr(r, depth)?, body })
    }

    fn while_stmt(&self, n: Node, depth: usize) -> Result<StKind, Diagnostic> {
        let Some(c) = n.child_by_field_name("condition") else {
            return Err(self.err(n, "malformed `while`"));
        };
        let body = match n.child_by_field_name("body") {
            Some(b) => self.block(b, depth + 1)?,
            None => Vec::new(),
        };
        Ok(StKind::While { cond: self.expr(c, depth)?, body })
    }

    fn ex(&self, n: Node, kind: ExKind) -> Ex {
        Ex { kind, span: self.span(n), text: self.text(n) }
    }

    fn sub(&self, n: Option<Node>, parent: Node, depth: usize) -> Result<Box<Ex>, Diagnostic> {
        match n {
            Some(c) => Ok(Box::new(self.expr(c, depth + 1)?)),
            None => Err(self.err(parent, "malformed expression")),
        }
    }

    /// The left operand of binary operator `n` at nesting `depth`: a binary operator there
    /// continues the chain at the same depth (see [`MAX_CHAIN`]).
    fn left_operand(&self, n: Node, depth: usize) -> Result<Box<Ex>, Diagnostic> {
        match n.child_by_field_name("left") {
            Some(c) if c.kind() == "binary_operator" => {
                if self.chain.get() >= MAX_CHAIN {
                    return Err(self
                        .err(c, format!("expression too long: more than {MAX_CHAIN} chained operators"))
                        .with_help("split it into several statements (`s = ...` then `s += ...`)"));
                }
                self.chain.set(self.chain.get() + 1);
                let l = self.expr(c, depth);
                self.chain.set(self.chain.get() - 1);
                Ok(Box::new(l?))
            }
            c => self.sub(c, n, depth + 1),
        }
    }

    fn expr(&self, n: Node, depth: usize) -> Result<Ex, Diagnostic> {
        if depth > MAX_DEPTH {
            return Err(self.err(n, "expression nested too deeply"));
        }
        let d = depth + 1;
        let kind = match n.kind() {
            "identifier" => ExKind::Name(self.text(n)),
            "integer" => return self.integer(n),
            "float" => {
                let t = self.text(n).replace('_', "");
                if t.ends_with('j') || t.ends_with('J') {
                    return Err(self.err(n, "complex numbers are not supported"));
                }
                match t.parse::<f64>() {
                    Ok(v) => ExKind::Float(v),
                    Err(_) => return Err(self.err(n, format!("cannot read the number `{t}`"))),
                }
            }
            "true" => ExKind::Bool(true),
            "false" => ExKind::Bool(false),
            "none" => ExKind::NoneLit,
            "ellipsis" => ExKind::Ellipsis,
            "string" | "concatenated_string" => ExKind::Str(self.string_content(n)),
            "attribute" => {
                let obj = self.sub(n.child_by_field_name("object"), n, d)?;
                let attr = n.child_by_field_name("attribute").map(|a| self.text(a)).unwrap_or_default();
                ExKind::Attr(obj, attr)
            }
            "call" => {
                let func = self.sub(n.child_by_field_name("function"), n, d)?;
                let Some(args_node) = n.child_by_field_name("arguments") else {
                    return Err(self.err(n, "malformed call"));
                };
                if args_node.kind() == "generator_expression" {
                    return Err(self.comprehension_error(args_node));
                }
                let mut args = Vec::new();
                let mut kwargs = Vec::new();
                for a in named(args_node) {
                    match a.kind() {
                        "keyword_argument" => {
                            let name = a.child_by_field_name("name").map(|x| self.text(x)).unwrap_or_default();
                            let value = self.sub(a.child_by_field_name("value"), a, d)?;
                            kwargs.push((name, *value));
                        }
                        "list_splat" | "dictionary_splat" => {
                            return Err(self.err(a, "`*`/`**` arguments are not supported"))
                        }
                        _ => args.push(self.expr(a, d)?),
                    }
                }
                ExKind::Call { func, args, kwargs }
            }
            "subscript" => {
                let value = self.sub(n.child_by_field_name("value"), n, d)?;
                let mut c = n.walk();
                let items: Vec<Node> = n.children_by_field_name("subscript", &mut c).collect();
                let items = items.into_iter().map(|i| self.expr(i, d)).collect::<Result<Vec<_>, _>>()?;
                ExKind::Subscript(value, items)
            }
            "slice" => {
                let mut parts: [Option<Box<Ex>>; 3] = [None, None, None];
                let mut k = 0usize;
                for c in children(n) {
                    if c.kind() == ":" {
                        k += 1;
                    } else if c.is_named() && k < 3 {
                        parts[k] = Some(Box::new(self.expr(c, d)?));
                    }
                }
                let [a, b, s] = parts;
                ExKind::Slice(a, b, s)
            }
            "binary_operator" => {
                let op = n.child_by_field_name("operator").map(|o| o.kind()).unwrap_or("");
                let op = match op {
                    "+" => BinOpAst::Add,
                    "-" => BinOpAst::Sub,
                    "*" => BinOpAst::Mul,
                    "/" => BinOpAst::Div,
                    "//" => BinOpAst::FloorDiv,
                    "%" => BinOpAst::Mod,
                    "**" => BinOpAst::Pow,
                    "@" => BinOpAst::MatMul,
                    "&" => BinOpAst::BitAnd,
                    "|" => BinOpAst::BitOr,
                    "^" => BinOpAst::BitXor,
                    other => return Err(self.err(n, format!("the operator `{other}` is not supported"))),
                };
                let l = self.left_operand(n, depth)?;
                let r = self.sub(n.child_by_field_name("right"), n, d)?;
                ExKind::Bin(op, l, r)
            }
            "unary_operator" => {
                let op = match n.child_by_field_name("operator").map(|o| o.kind()).unwrap_or("") {
                    "-" => UnOpAst::Neg,
                    "+" => UnOpAst::Pos,
                    _ => UnOpAst::Invert,
                };
                ExKind::Unary(op, self.sub(n.child_by_field_name("argument"), n, d)?)
            }
            "not_operator" => ExKind::Unary(UnOpAst::Not, self.sub(n.child_by_field_name("argument"), n, d)?),
            "boolean_operator" => {
                let and = n.child_by_field_name("operator").map(|o| o.kind() == "and").unwrap_or(true);
                let l = self.sub(n.child_by_field_name("left"), n, d)?;
                let r = self.sub(n.child_by_field_name("right"), n, d)?;
                ExKind::BoolOp(and, l, r)
            }
            "comparison_operator" => {
                let mut operands = Vec::new();
                let mut ops = Vec::new();
                for c in children(n) {
                    if c.is_named() {
                        operands.push(self.expr(c, d)?);
                    } else {
                        let op = match c.kind() {
                            "<" => CmpOp::Lt,
                            "<=" => CmpOp::Le,
                            ">" => CmpOp::Gt,
                            ">=" => CmpOp::Ge,
                            "==" => CmpOp::Eq,
                            "!=" | "<>" => CmpOp::Ne,
                            other => return Err(self.err(c, format!("the comparison `{other}` is not supported"))),
                        };
                        ops.push(op);
                    }
                }
                if operands.len() != ops.len() + 1 || ops.is_empty() {
                    return Err(self.err(n, format!("unsupported comparison `{}`", self.text(n))));
                }
                let mut it = operands.into_iter();
                let first = it.next().map(Box::new).ok_or_else(|| self.err(n, "malformed comparison"))?;
                ExKind::Compare(first, ops.into_iter().zip(it).collect())
            }
            "conditional_expression" => {
                let parts = named(n);
                if parts.len() != 3 {
                    return Err(self.err(n, "malformed conditional expression"));
                }
                let a = self.expr(parts[0], d)?;
                let c = self.expr(parts[1], d)?;
                let b = self.expr(parts[2], d)?;
                ExKind::IfExp(Box::new(c), Box::new(a), Box::new(b))
            }
            "parenthesized_expression" => match named(n).into_iter().next() {
                Some(inner) => {
                    let mut e = self.expr(inner, d)?;
                    e.span = self.span(n);
                    e.text = self.text(n);
                    return Ok(e);
                }
                None => return Err(self.err(n, "empty parentheses")),
            },
            "tuple" | "expression_list" | "pattern_list" => {
                ExKind::Tuple(named(n).into_iter().map(|c| self.expr(c, d)).collect::<Result<Vec<_>, _>>()?)
            }
            "list" => ExKind::List(named(n).into_iter().map(|c| self.expr(c, d)).collect::<Result<Vec<_>, _>>()?),
            "lambda" => {
                return Err(self.err(n, "lambdas are not supported").with_help("define a helper function with `def`"))
            }
            "list_comprehension" | "set_comprehension" | "dictionary_comprehension" | "generator_expression" => {
                return Err(self.comprehension_error(n))
            }
            "dictionary" | "set" => return Err(self.err(n, "dictionaries and sets are not supported")),
            "named_expression" => return Err(self.err(n, "`:=` is not supported")),
            "await" | "yield" => return Err(self.err(n, format!("`{}` is not supported", n.kind()))),
            "list_splat" => return Err(self.err(n, "`*` unpacking is not supported")),
            other => {
                return Err(
                    self.err(n, format!("unsupported expression `{}` ({})", self.text(n), other.replace('_', " ")))
                )
            }
        };
        Ok(self.ex(n, kind))
    }

    fn comprehension_error(&self, n: Node) -> Diagnostic {
        self.err(n, "comprehensions are not supported")
            .with_help("write the computation with NumPy array operations or a `for` loop")
    }

    fn integer(&self, n: Node) -> Result<Ex, Diagnostic> {
        let t = self.text(n).replace('_', "");
        let lower = t.to_ascii_lowercase();
        if lower.ends_with('j') {
            return Err(self.err(n, "complex numbers are not supported"));
        }
        let parsed = if let Some(h) = lower.strip_prefix("0x") {
            i64::from_str_radix(h, 16)
        } else if let Some(o) = lower.strip_prefix("0o") {
            i64::from_str_radix(o, 8)
        } else if let Some(b) = lower.strip_prefix("0b") {
            i64::from_str_radix(b, 2)
        } else {
            lower.trim_end_matches('l').parse::<i64>()
        };
        match parsed {
            Ok(v) => Ok(self.ex(n, ExKind::Int(v))),
            Err(_) => Err(self.err(n, format!("the integer `{t}` does not fit in 64 bits"))),
        }
    }

    fn string_content(&self, n: Node) -> String {
        let mut out = String::new();
        let mut stack = vec![n];
        // Collect string_content pieces in document order.
        let mut pieces: Vec<(usize, String)> = Vec::new();
        while let Some(x) = stack.pop() {
            if x.kind() == "string_content" {
                pieces.push((x.start_byte(), self.text(x)));
                continue;
            }
            stack.extend(children(x));
        }
        pieces.sort_by_key(|p| p.0);
        for (_, p) in pieces {
            out.push_str(&p);
        }
        out
    }
}

fn dotted_clean(s: &str) -> String {
    s.split('.').map(str::trim).collect::<Vec<_>>().join(".")
}

/// Parses one expression given as text (argument specs, string annotations).
pub fn parse_expr_text(text: &str) -> Result<Ex, String> {
    let src = format!("_ = {text}\n");
    let m = {
        let mut parser = Parser::new();
        parser.set_language(&tree_sitter_python::LANGUAGE.into()).map_err(|e| e.to_string())?;
        let tree = parser.parse(&src, None).ok_or("the parser gave up")?;
        let root = tree.root_node();
        if first_error(root).is_some() {
            return Err(format!("cannot parse `{text}`"));
        }
        let cx = Cx { src: &src, chain: std::cell::Cell::new(0) };
        let stmt = named(root).into_iter().next().ok_or("empty")?;
        let assign = named(stmt).into_iter().next().ok_or("empty")?;
        let right = assign.child_by_field_name("right").ok_or_else(|| format!("cannot parse `{text}`"))?;
        cx.expr(right, 0).map_err(|d| d.message)?
    };
    Ok(strip_spans(m))
}

/// Expressions parsed from option strings have no place in the source file.
fn strip_spans(mut e: Ex) -> Ex {
    e.span = Span::NONE;
    e.kind = match e.kind {
        ExKind::Attr(o, a) => ExKind::Attr(Box::new(strip_spans(*o)), a),
        ExKind::Subscript(v, items) => {
            ExKind::Subscript(Box::new(strip_spans(*v)), items.into_iter().map(strip_spans).collect())
        }
        ExKind::Bin(op, a, b) => ExKind::Bin(op, Box::new(strip_spans(*a)), Box::new(strip_spans(*b))),
        ExKind::Unary(op, a) => ExKind::Unary(op, Box::new(strip_spans(*a))),
        ExKind::Tuple(v) => ExKind::Tuple(v.into_iter().map(strip_spans).collect()),
        ExKind::Call { func, args, kwargs } => ExKind::Call {
            func: Box::new(strip_spans(*func)),
            args: args.into_iter().map(strip_spans).collect(),
            kwargs: kwargs.into_iter().map(|(k, v)| (k, strip_spans(v))).collect(),
        },
        other => other,
    };
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_first_syntax_error_with_position() {
        let e = parse_module("def f(x):\n    return x +\n").unwrap_err();
        assert!(e.message.starts_with("syntax error"), "{}", e.message);
        assert_eq!(e.span.line, 2);
    }

    #[test]
    fn reads_imports_and_constants() {
        let m =
            parse_module("import numpy as np\nfrom math import sqrt as s\nC = 3.0\ndef f(x):\n    return x\n").unwrap();
        assert_eq!(m.import("np"), Some("numpy"));
        assert_eq!(m.import("s"), Some("math.sqrt"));
        assert!(matches!(m.constant("C").map(|e| &e.kind), Some(ExKind::Float(v)) if *v == 3.0));
        assert_eq!(m.funcs.len(), 1);
    }

    #[test]
    fn slices_keep_their_parts() {
        let m = parse_module("def f(A):\n    A[1:-1, ::2, :] = 0\n").unwrap();
        let body = m.funcs[0].body.as_ref().unwrap();
        let StKind::Assign { targets, .. } = &body[0].kind else { panic!() };
        let ExKind::Subscript(_, items) = &targets[0].kind else { panic!() };
        assert_eq!(items.len(), 3);
        assert!(matches!(&items[0].kind, ExKind::Slice(Some(_), Some(_), None)));
        assert!(matches!(&items[1].kind, ExKind::Slice(None, None, Some(_))));
        assert!(matches!(&items[2].kind, ExKind::Slice(None, None, None)));
    }

    #[test]
    fn spec_text_parses() {
        let e = parse_expr_text("float64[I + 4, J + 4, K]").unwrap();
        assert!(matches!(e.kind, ExKind::Subscript(_, ref items) if items.len() == 3));
    }
}
