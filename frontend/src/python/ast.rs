//! A small owned syntax tree for the Python subset adjc accepts. The tree-sitter CST is
//! converted once (in `parse`), so that inlining, inference and lowering work on plain
//! data with spans instead of borrowing the parser's tree.

use adjc_ir::{Diagnostic, Span};

#[derive(Clone, Debug)]
pub struct Ex {
    pub kind: ExKind,
    pub span: Span,
    /// The source text of the expression, quoted in diagnostics.
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOpAst {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    MatMul,
    BitAnd,
    BitOr,
    BitXor,
}

impl BinOpAst {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOpAst::Add => "+",
            BinOpAst::Sub => "-",
            BinOpAst::Mul => "*",
            BinOpAst::Div => "/",
            BinOpAst::FloorDiv => "//",
            BinOpAst::Mod => "%",
            BinOpAst::Pow => "**",
            BinOpAst::MatMul => "@",
            BinOpAst::BitAnd => "&",
            BinOpAst::BitOr => "|",
            BinOpAst::BitXor => "^",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOpAst {
    Neg,
    Pos,
    Not,
    Invert,
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

#[derive(Clone, Debug)]
pub enum ExKind {
    Name(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    NoneLit,
    Str(String),
    Ellipsis,
    Attr(Box<Ex>, String),
    Call {
        func: Box<Ex>,
        args: Vec<Ex>,
        kwargs: Vec<(String, Ex)>,
    },
    /// `value[items]`; slices appear as [`ExKind::Slice`] items.
    Subscript(Box<Ex>, Vec<Ex>),
    Slice(Option<Box<Ex>>, Option<Box<Ex>>, Option<Box<Ex>>),
    Bin(BinOpAst, Box<Ex>, Box<Ex>),
    Unary(UnOpAst, Box<Ex>),
    /// `a < b <= c`: the first operand and the chain of (operator, operand).
    Compare(Box<Ex>, Vec<(CmpOp, Ex)>),
    /// `and` (true) / `or` (false).
    BoolOp(bool, Box<Ex>, Box<Ex>),
    /// `a if cond else b`: (cond, a, b).
    IfExp(Box<Ex>, Box<Ex>, Box<Ex>),
    Tuple(Vec<Ex>),
    List(Vec<Ex>),
}

impl Ex {
    /// `np.linalg.norm` as ["np", "linalg", "norm"] when the expression is a dotted name.
    pub fn dotted(&self) -> Option<Vec<String>> {
        match &self.kind {
            ExKind::Name(n) => Some(vec![n.clone()]),
            ExKind::Attr(obj, a) => {
                let mut v = obj.dotted()?;
                v.push(a.clone());
                Some(v)
            }
            _ => None,
        }
    }
    /// The direct sub-expressions.
    pub fn children(&self) -> Vec<&Ex> {
        match &self.kind {
            ExKind::Attr(a, _) | ExKind::Unary(_, a) => vec![a],
            ExKind::Call { func, args, kwargs } => {
                let mut v: Vec<&Ex> = vec![func];
                v.extend(args.iter());
                v.extend(kwargs.iter().map(|(_, x)| x));
                v
            }
            ExKind::Subscript(b, items) => std::iter::once(&**b).chain(items.iter()).collect(),
            ExKind::Slice(a, b, c) => [a, b, c].into_iter().flatten().map(|x| &**x).collect(),
            ExKind::Bin(_, a, b) | ExKind::BoolOp(_, a, b) => vec![a, b],
            ExKind::Compare(a, rest) => std::iter::once(&**a).chain(rest.iter().map(|(_, x)| x)).collect(),
            ExKind::IfExp(c, a, b) => vec![c, a, b],
            ExKind::Tuple(items) | ExKind::List(items) => items.iter().collect(),
            ExKind::Name(_)
            | ExKind::Int(_)
            | ExKind::Float(_)
            | ExKind::Bool(_)
            | ExKind::NoneLit
            | ExKind::Str(_)
            | ExKind::Ellipsis => Vec::new(),
        }
    }
    pub fn as_name(&self) -> Option<&str> {
        match &self.kind {
            ExKind::Name(n) => Some(n),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct St {
    pub kind: StKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StKind {
    /// `t1 = t2 = value` (one or more targets).
    Assign {
        targets: Vec<Ex>,
        value: Ex,
    },
    AugAssign {
        target: Ex,
        op: BinOpAst,
        value: Ex,
    },
    Expr(Ex),
    For {
        var: String,
        var_span: Span,
        iter: Ex,
        body: Vec<St>,
    },
    If {
        cond: Ex,
        then_body: Vec<St>,
        else_body: Vec<St>,
    },
    While {
        cond: Ex,
        body: Vec<St>,
    },
    Break,
    Continue,
    Return(Option<Ex>),
    Pass,
}

#[derive(Clone, Debug)]
pub struct ParamAst {
    pub name: String,
    pub span: Span,
    pub ann: Option<Ex>,
    pub default: Option<Ex>,
}

#[derive(Clone, Debug)]
pub struct FuncDef {
    pub name: String,
    pub span: Span,
    pub name_span: Span,
    /// Unsupported parameter syntax (`*args`, `**kwargs`) or body syntax is reported only
    /// when the function is actually used, so that unrelated code in the file does not
    /// stop the kernel from compiling.
    pub params: Result<Vec<ParamAst>, Diagnostic>,
    pub body: Result<Vec<St>, Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct ModuleAst {
    pub funcs: Vec<FuncDef>,
    /// Module-level `NAME = value` (last assignment wins), in source order.
    pub consts: Vec<(String, Ex)>,
    /// Local name → what it refers to: "numpy", "numpy.exp", "math", "math.sqrt".
    pub imports: Vec<(String, String)>,
}

impl ModuleAst {
    pub fn func(&self, name: &str) -> Option<&FuncDef> {
        self.funcs.iter().rev().find(|f| f.name == name)
    }
    pub fn import(&self, name: &str) -> Option<&str> {
        self.imports.iter().rev().find(|(n, _)| n == name).map(|(_, q)| q.as_str())
    }
    pub fn constant(&self, name: &str) -> Option<&Ex> {
        self.consts.iter().rev().find(|(n, _)| n == name).map(|(_, e)| e)
    }
}
