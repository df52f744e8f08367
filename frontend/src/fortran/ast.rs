//! The owned syntax tree of the Fortran subset adjc reads: program units, declarations
//! with their attributes, statements and expressions, every node with the [`Span`] of its
//! source text (the assembled text of all files; `source` maps it back to file:line).
//!
//! `parse` builds it once from the tree-sitter tree, and is the only module that knows
//! tree-sitter's node kinds (with `syntax`, which reports syntax errors on the tree
//! before). Lowering (`scan`, `decl`, `lower`, `stmt`, `expr`,
//! `intrinsics`, `blas`, `inline`) reads this tree only; an inlined call lowers the
//! callee's tree again at every call site, it never re-reads the parser's tree.
//!
//! What the parser guarantees:
//! - It never fails and never panics. A construct it cannot represent becomes an
//!   `Unsupported` node (expression, statement, declaration part, program unit) carrying
//!   the located diagnostic that lowering reports when, and only when, it reaches that
//!   node, so the first error reported is the one the lowering order meets first.
//! - Names are kept as spelled (Fortran is case-insensitive: lowering folds them);
//!   operators are typed (`MathOp`, `CmpOp`, ...). Source text that matters (a number's
//!   spelling, a statement quoted in a note) is read through the node's span.
//! - Statement lists are in source order, with a [`StmtKind::Label`] before a labelled
//!   statement (`10 continue`), the statements closing a labelled `do` inside its body.
//! - Nesting deeper than [`MAX_PARSE_DEPTH`] becomes an `Unsupported` node (lowering
//!   rejects much shallower nesting first, see `lower::MAX_DEPTH`).
//! - Expression nodes carry an [`ExprId`], unique in the file: lowering keys work values
//!   (hoisted calls of array-valued functions, library products) by it.
//!
//! Where the constructs of issue 13 go (most are parsed already; lowering still rejects
//! them with the diagnostics it always gave):
//! - derived types: [`TypeSpec::Derived`] in declarations, [`SpecKind::TypeDef`] and
//!   [`ModuleItem::TypeDef`] with the component declarations, [`ExprKind::Component`] for
//!   `a%b` (all rewritten away by `derived` before lowering);
//! - COMMON blocks: [`SpecKind::Common`] (block name and members; lowered by `state`);
//! - `optional`: [`AttrKind::Optional`]; `present(x)` is an ordinary call;
//! - `return`, `goto`, `exit`, `cycle`: [`StmtKind::Return`] (lowered by `returns`
//!   outside loops), [`StmtKind::Goto`] (with its target label; forward ones lowered by
//!   `returns`, a computed `goto` has none), [`StmtKind::Exit`],
//!   [`StmtKind::Cycle`]; labels are [`StmtKind::Label`] statements;
//! - `do while`: [`DoControl::While`] with its condition;
//! - array constructors: [`ExprKind::ArrayConstructor`], [`ExprKind::ImpliedDo`] (lowered
//!   by `constructor`);
//! - F77 `DATA`: [`SpecKind::Data`] (lowered by `data`); the F77 `PARAMETER (...)` statement:
//!   [`SpecKind::Parameter`] in a procedure's specification part (lowered: it gives the
//!   named variables their constant values), [`StmtKind::Parameter`] after the first
//!   executable statement (an error);
//! - statement functions (`f(x) = ...` before the first executable statement) parse as
//!   assignments to a call-like left-hand side; telling them apart needs the declarations
//!   (an undeclared `f` that is not an array), so it belongs to the start of lowering
//!   (`stmt_fn`).
//! - F77 `DIMENSION x(n)` statements, and the other attribute statements (`save x`,
//!   `intent(in) x`, ...): [`SpecKind::Attributes`], a [`Decl`] without a type whose bare
//!   `dimension` attribute (`AttrKind::Dimension(None)`) leaves the shapes to the names.
//!
//! To add a construct: its variant here, its conversion in `parse` (with a test in
//! `parse::tests` asserting the tree), its lowering in `stmt`, `expr` or `decl`, and an
//! example in `examples/fortran/` checked end to end.

use adjc_ir::{Diagnostic, Intent, Span};

/// Deeper nesting of expressions or statements is not represented (an `Unsupported`
/// node takes its place): the tree stays shallow enough to build, walk and drop
/// recursively on the frontend's thread. Lowering accepts at most `MAX_DEPTH` (400)
/// nested levels plus `MAX_CHAIN` (5,000) links of an operator chain, far less.
pub const MAX_PARSE_DEPTH: usize = 10_000;

/// Identifies an expression node within one parsed file.
pub type ExprId = u32;

/// What a diagnostic or a quoted text points at.
pub trait At {
    fn at(&self) -> Span;
    /// A name node's name. Lowering reads names through it, not through the span: the
    /// nodes `derived` creates name variables the source text does not spell there.
    fn name(&self) -> Option<&str> {
        None
    }
}
impl At for Span {
    fn at(&self) -> Span {
        *self
    }
}
impl<T: At + ?Sized> At for Box<T> {
    fn at(&self) -> Span {
        (**self).at()
    }
    fn name(&self) -> Option<&str> {
        (**self).name()
    }
}
impl<T: At + ?Sized> At for &T {
    fn at(&self) -> Span {
        (**self).at()
    }
    fn name(&self) -> Option<&str> {
        (**self).name()
    }
}

/// All files of one compilation (assembled into one text), their units in order.
#[derive(Clone, Debug, Default)]
pub struct File {
    pub units: Vec<TopUnit>,
}

// Built once per unit or loop: the size of the small variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum TopUnit {
    Procedure(Procedure),
    /// A `module` or a main `program`: its declarations and contained procedures.
    Module(ModuleUnit),
    /// `submodule`, `block data`, a top-level `interface`: rejected by `scan`.
    Unsupported(Diagnostic),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleKind {
    Module,
    Program,
}

#[derive(Clone, Debug)]
pub struct ModuleUnit {
    pub kind: ModuleKind,
    /// As spelled (`module` only).
    pub name: Option<String>,
    pub span: Span,
    /// What adjc reads of a module or program, in order: `implicit`, declarations and
    /// the `contains` section (a program's executable statements are not kept).
    pub items: Vec<ModuleItem>,
}

#[derive(Clone, Debug)]
pub enum ModuleItem {
    Implicit(Implicit),
    Decl(Decl),
    /// `type name ... end type`.
    TypeDef(TypeDef),
    Contains(Vec<Procedure>),
    /// `interface name; module procedure a, b; end interface`: the generic name as spelled
    /// and its specific procedures (lower case).
    Generic {
        name: String,
        span: Span,
        procs: Vec<String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcKind {
    Subroutine,
    Function,
}

/// A subroutine or function.
#[derive(Clone, Debug)]
pub struct Procedure {
    pub kind: ProcKind,
    /// As spelled; `kernel` (at the unit's span) when the header has no name.
    pub name: String,
    pub name_span: Span,
    pub span: Span,
    /// `pure` or `elemental`, and not `impure`.
    pub pure: bool,
    /// `elemental` (also `impure elemental`): called on arrays, it runs element by element.
    pub elemental: bool,
    /// Dummy arguments as spelled, in order.
    pub dummies: Vec<(String, Span)>,
    /// `result(r)`, as spelled.
    pub result: Option<String>,
    /// The type prefix of a function (`real(8) function f(x)`).
    pub result_type: Option<TypeSpec>,
    /// The specification part: declarations, and `implicit`, `use`, `common`, ... wherever
    /// they appear (declarations after the first executable statement are statements).
    pub spec: Vec<SpecItem>,
    /// The executable statements.
    pub body: Vec<Stmt>,
    /// Internal procedures (after `contains`): inlined where called, with host association.
    pub contains: Vec<Procedure>,
}

#[derive(Clone, Debug)]
pub struct Implicit {
    pub span: Span,
    /// `implicit none` (anything else is an implicit typing rule).
    pub none: bool,
}

#[derive(Clone, Debug)]
pub struct SpecItem {
    pub span: Span,
    pub kind: SpecKind,
}

#[derive(Clone, Debug)]
pub enum SpecKind {
    Decl(Decl),
    /// An attribute statement (`dimension x(n), y(m)`, `save x`): a declaration without a
    /// type, adding to the declarations of names declared elsewhere (or implicitly typed).
    Attributes(Decl),
    /// F77 `parameter (n = 10, ...)`: names as spelled, where, and their values.
    Parameter(Vec<(String, Span, Expr)>),
    Implicit(Implicit),
    Use(Use),
    /// `common /name/ a, b(n)`: one entry per block (`None`: blank common).
    Common(Vec<CommonBlock>),
    Equivalence,
    /// F77 `data a, b(2) /1.0, 3*0.0/ ...`: one entry per object list and value list.
    Data(Vec<DataSet>),
    Include,
    /// `type name ... end type`.
    TypeDef(TypeDef),
    Interface,
}

/// One `objects /values/` group of a `data` statement.
#[derive(Clone, Debug)]
pub struct DataSet {
    pub span: Span,
    /// Names, elements (`w(2)`) and implied-do lists (kept as parsed; lowering rejects them).
    pub objects: Vec<Expr>,
    /// Values with their repeat count (`3*0.0`: `Some(3)`, `0.0`).
    pub values: Vec<(Option<Expr>, Expr)>,
}

#[derive(Clone, Debug)]
pub struct CommonBlock {
    pub name: Option<String>,
    pub members: Vec<Entity>,
}

#[derive(Clone, Debug)]
pub struct TypeDef {
    pub name: Option<String>,
    /// `extends(base)`: the text of the specifier and where.
    pub parent: Option<(String, Span)>,
    pub span: Span,
    pub components: Vec<Decl>,
}

#[derive(Clone, Debug)]
pub struct Use {
    /// Lower case; empty when the parser found no name.
    pub module: String,
    /// `only: local => remote` renames: (local as spelled, remote lower case, where).
    pub renames: Vec<(String, String, Span)>,
}

/// One type declaration statement: its parts (type and attributes) in source order, then
/// the names it declares.
#[derive(Clone, Debug)]
pub struct Decl {
    pub span: Span,
    pub parts: Vec<DeclPart>,
    pub entities: Vec<Entity>,
}

#[derive(Clone, Debug)]
pub enum DeclPart {
    Type(TypeSpec),
    Attr(Attr),
    /// A part adjc cannot read (`procedure(...)`, a coarray declarator, ...).
    Unsupported(Diagnostic),
}

#[derive(Clone, Debug)]
pub enum TypeSpec {
    /// `real(8)`, `real(kind=dp)`, `real*8`, `double precision`, `integer`, `logical`,
    /// `character(...)`, ...: `base` is the type's words in lower case, single-spaced.
    Intrinsic { span: Span, base: String, kind: Option<KindSel> },
    /// `type(name)` or `class(name)` (`class`).
    Derived { span: Span, name: String, class: bool },
}

impl TypeSpec {
    pub fn span(&self) -> Span {
        match self {
            TypeSpec::Intrinsic { span, .. } | TypeSpec::Derived { span, .. } => *span,
        }
    }
}

/// The kind selector of a type: `(8)`, `(kind=dp)`, `*8`.
#[derive(Clone, Debug)]
pub struct KindSel {
    pub span: Span,
    /// The value (of `kind=` if given as a keyword); `None` when unreadable.
    pub value: Option<Expr>,
}

#[derive(Clone, Debug)]
pub struct Attr {
    pub span: Span,
    pub kind: AttrKind,
}

#[derive(Clone, Debug)]
pub enum AttrKind {
    Intent(Intent),
    Parameter,
    /// `dimension(...)`; `None` when its bounds could not be read.
    Dimension(Option<Shape>),
    Pointer,
    Allocatable,
    Save,
    Optional,
    /// `target`, `value`, `contiguous`, ...: lower case, without blanks.
    Other(String),
}

/// A declared name: `x`, `a(n, 0:m)`, `c = 2.0`.
#[derive(Clone, Debug)]
pub struct Entity {
    /// As spelled.
    pub name: String,
    pub span: Span,
    pub shape: Option<Shape>,
    pub init: Option<Expr>,
}

/// The bounds of an array: `(n, 0:m, :, *)`.
#[derive(Clone, Debug)]
pub struct Shape {
    pub span: Span,
    pub dims: Vec<DimSpec>,
}

#[derive(Clone, Debug)]
pub enum DimSpec {
    /// `upper` or `lower:upper`.
    Explicit { lower: Option<Expr>, upper: Expr },
    /// `:` or `lower:` (assumed or deferred shape).
    Assumed { lower: Option<Expr> },
    /// `*` or `lower:*`.
    AssumedSize { lower: Option<Expr> },
    /// Bounds with more than one colon.
    Malformed(Span),
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub span: Span,
    pub kind: StmtKind,
}

impl Stmt {
    /// The statement lists nested directly in this statement (a `do` body, the branches of an
    /// `if`, `where` or `select case`), for the passes that walk every list of a routine.
    pub fn bodies(&self) -> Vec<&Vec<Stmt>> {
        match &self.kind {
            StmtKind::Do(d) => vec![&d.body],
            StmtKind::If(b) => std::iter::once(&b.then_body)
                .chain(b.clauses.iter().map(|c| match c {
                    ElseClause::ElseIf { body, .. } | ElseClause::Else { body, .. } => body,
                }))
                .collect(),
            StmtKind::Where(w) => std::iter::once(&w.body).chain(w.elsewhere.iter().map(|e| &e.body)).collect(),
            StmtKind::Select(c) => c.cases.iter().map(|c| &c.body).collect(),
            _ => Vec::new(),
        }
    }

    /// [`Stmt::bodies`], to rewrite them.
    pub fn bodies_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        match &mut self.kind {
            StmtKind::Do(d) => vec![&mut d.body],
            StmtKind::If(b) => std::iter::once(&mut b.then_body)
                .chain(b.clauses.iter_mut().map(|c| match c {
                    ElseClause::ElseIf { body, .. } | ElseClause::Else { body, .. } => body,
                }))
                .collect(),
            StmtKind::Where(w) => {
                std::iter::once(&mut w.body).chain(w.elsewhere.iter_mut().map(|e| &mut e.body)).collect()
            }
            StmtKind::Select(c) => c.cases.iter_mut().map(|c| &mut c.body).collect(),
            _ => Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Assign {
        lhs: Expr,
        rhs: Expr,
    },
    Do(Box<DoLoop>),
    If(Box<IfBlock>),
    Call {
        name: String,
        args: Vec<Expr>,
    },
    Continue,
    /// `exit [name]`, `cycle [name]` (the construct name, lower-case).
    Exit(Option<String>),
    Cycle(Option<String>),
    Return,
    /// `goto 10` (`label`), or an assigned goto (`None`).
    Goto {
        label: Option<String>,
    },
    /// `go to (10, 20, 30) k`: per position, its label and the test `k == position`, and
    /// the test `k < 1 .or. k > 3` (no jump). `computed_goto` rewrites it into `if`s
    /// before lowering; one it cannot rewrite stays and is an error.
    ComputedGoto {
        tests: Vec<(String, Expr)>,
        out_of_range: Expr,
    },
    Stop,
    /// Input/output; `data` holds the (lower-case) names its items mention.
    Io {
        kind: IoKind,
        data: Vec<String>,
    },
    Allocate(Vec<Allocation>),
    Deallocate,
    /// A declaration after the first executable statement.
    Declaration(Decl),
    Where(Box<WhereBlock>),
    /// `forall (i = a:b, j = ..., mask) stmt` or the construct: one `do concurrent`-style
    /// loop (control `Concurrent`, the mask among its items) per assignment of the body, in
    /// order (each assignment is done for every index before the next one starts).
    Forall(Vec<DoLoop>),
    Select(Box<SelectCase>),
    /// A statement label (`10` of `10 continue`).
    Label(String),
    /// F77 `parameter (n = 10, ...)`: names as spelled and their values.
    Parameter(Vec<(String, Span, Expr)>),
    Unsupported(Diagnostic),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoKind {
    Print,
    Write,
    Read,
    Other,
}

#[derive(Clone, Debug)]
pub struct DoLoop {
    /// The `do ...` line.
    pub head: Span,
    /// The construct name (`outer` of `outer: do ...`), lower-case.
    pub name: Option<String>,
    pub control: DoControl,
    pub body: Vec<Stmt>,
}

// Built once per unit or loop: the size of the small variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum DoControl {
    /// `do i = start, last[, step]`.
    Counted { var: Expr, start: Expr, last: Expr, step: Option<Expr> },
    /// `do while (cond)`.
    While { cond: Expr },
    /// `do concurrent (...)`.
    Concurrent { span: Span, items: Vec<ConcurrentItem> },
    /// `do` without control.
    Forever,
    /// A loop control of the wrong length (at its span).
    Malformed(Span),
}

// Built once per unit or loop: the size of the small variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum ConcurrentItem {
    /// `i = start:last[:step]` (`var` is a name).
    Control { span: Span, var: Expr, start: Expr, last: Expr, step: Option<Expr> },
    /// The mask (`forall (i = 1:n, x(i) > 0)`, `do concurrent (..., mask)`).
    Mask { span: Span, cond: Expr },
    /// An index adjc cannot read.
    Other { span: Span, mask: bool },
}

#[derive(Clone, Debug)]
pub struct IfBlock {
    /// The condition in its parentheses.
    pub cond: Expr,
    /// `if (c) stmt`: `then_body` should hold exactly one statement.
    pub one_line: bool,
    pub then_body: Vec<Stmt>,
    pub clauses: Vec<ElseClause>,
}

#[derive(Clone, Debug)]
pub enum ElseClause {
    /// `cond` is an `Unsupported` expression when the clause could not be read.
    ElseIf {
        span: Span,
        cond: Expr,
        body: Vec<Stmt>,
    },
    Else {
        span: Span,
        body: Vec<Stmt>,
    },
}

#[derive(Clone, Debug)]
pub struct WhereBlock {
    pub mask: Expr,
    pub body: Vec<Stmt>,
    pub elsewhere: Vec<ElseWhere>,
}

#[derive(Clone, Debug)]
pub struct ElseWhere {
    pub span: Span,
    pub mask: Option<Expr>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub struct SelectCase {
    pub selector: Expr,
    pub cases: Vec<Case>,
}

#[derive(Clone, Debug)]
pub struct Case {
    pub span: Span,
    pub default: bool,
    /// Values and ranges (`ExprKind::Range`), in order.
    pub values: Vec<Expr>,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub enum Allocation {
    /// `name(bounds)`.
    Sized {
        span: Span,
        name: Expr,
        shape: Shape,
    },
    Unsupported(Diagnostic),
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub id: ExprId,
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// As spelled (`1.5d0`, `2_8`, `1e-3_dp`).
    Number(String),
    Bool(bool),
    Str(String),
    /// As spelled.
    Name(String),
    Paren(Box<Expr>),
    /// `+ - * / **`.
    Math {
        op: MathOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Compare {
        op: CmpOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `.and.`, `.or.`, `.eqv.`, `.neqv.`.
    Logical {
        op: LogicalOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `.not. x` as a logical expression.
    Not(Box<Expr>),
    /// `f(args)` or `a(subscripts)`: which one depends on the declarations.
    Call {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    /// `lo:hi:stride` (an argument or case value): the parts given.
    Range {
        lo: Option<Box<Expr>>,
        hi: Option<Box<Expr>>,
        stride: Option<Box<Expr>>,
    },
    /// `name = value` (an argument).
    Keyword {
        name: String,
        value: Box<Expr>,
    },
    /// `base%name`.
    Component {
        base: Box<Expr>,
        name: String,
    },
    /// `(/ ... /)` or `[ ... ]`.
    ArrayConstructor(Vec<Expr>),
    /// `(item, ..., i = a, b[, step])` inside a constructor.
    ImpliedDo(Box<ImpliedDo>),
    Unsupported(Diagnostic),
}

/// `(items, var = start, last[, step])`.
#[derive(Clone, Debug)]
pub struct ImpliedDo {
    pub items: Vec<Expr>,
    /// The loop variable, as spelled.
    pub var: String,
    pub var_span: Span,
    pub start: Expr,
    pub last: Expr,
    pub step: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MathOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Other(String),
}

impl MathOp {
    pub fn symbol(&self) -> &str {
        match self {
            MathOp::Add => "+",
            MathOp::Sub => "-",
            MathOp::Mul => "*",
            MathOp::Div => "/",
            MathOp::Pow => "**",
            MathOp::Other(s) => s,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Pos,
    Not,
    /// Lower case.
    Other(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogicalOp {
    And,
    Or,
    Eqv,
    Neqv,
    /// Lower case.
    Other(String),
}

impl At for Expr {
    fn at(&self) -> Span {
        self.span
    }
    fn name(&self) -> Option<&str> {
        self.as_name()
    }
}
impl At for Stmt {
    fn at(&self) -> Span {
        self.span
    }
}

impl Expr {
    /// The direct subexpressions, in source order (a call's callee, then its arguments).
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Paren(x) | ExprKind::Not(x) | ExprKind::Unary { operand: x, .. } => vec![&**x],
            ExprKind::Math { lhs, rhs, .. }
            | ExprKind::Compare { lhs, rhs, .. }
            | ExprKind::Logical { lhs, rhs, .. } => vec![&**lhs, &**rhs],
            ExprKind::Call { callee, args } => std::iter::once(&**callee).chain(args).collect(),
            ExprKind::Range { lo, hi, stride } => [lo, hi, stride].into_iter().flatten().map(|b| &**b).collect(),
            ExprKind::Keyword { value, .. } => vec![&**value],
            ExprKind::Component { base, .. } => vec![&**base],
            ExprKind::ArrayConstructor(items) => items.iter().collect(),
            ExprKind::ImpliedDo(d) => d.items.iter().chain([&d.start, &d.last]).chain(d.step.iter()).collect(),
            _ => Vec::new(),
        }
    }

    /// Every name in the expression, lower case, in source order (callees and keywords
    /// included, component names not).
    pub fn names(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Name(n) => out.push(n.to_ascii_lowercase()),
                ExprKind::Keyword { name, .. } => out.push(name.to_ascii_lowercase()),
                _ => {}
            }
            let mut kids = e.children();
            kids.reverse();
            stack.extend(kids);
        }
        out
    }

    /// Whether a call (or array reference) appears anywhere in the expression.
    pub fn has_call(&self) -> bool {
        matches!(self.kind, ExprKind::Call { .. }) || self.children().into_iter().any(Expr::has_call)
    }

    /// The name, if this is one.
    pub fn as_name(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Name(n) => Some(n),
            _ => None,
        }
    }

    /// What the expression is, in the words of "this expression is not supported (...)".
    pub fn what(&self) -> &'static str {
        match &self.kind {
            ExprKind::Range { .. } => "extent specifier",
            ExprKind::Keyword { .. } => "keyword argument",
            ExprKind::Component { .. } => "derived type member expression",
            ExprKind::ArrayConstructor(_) => "array literal",
            ExprKind::ImpliedDo(_) => "implied do loop",
            ExprKind::Str(_) => "string literal",
            _ => "expression",
        }
    }
}

impl Decl {
    /// The declared type, if the statement has one adjc reads.
    pub fn type_spec(&self) -> Option<&TypeSpec> {
        self.parts.iter().find_map(|p| match p {
            DeclPart::Type(t) => Some(t),
            _ => None,
        })
    }
}
