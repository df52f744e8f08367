//! Traversal helpers over statements and expressions. Every stage walks the IR the same
//! way through these, so a new statement kind is handled in one place.

use crate::{Block, Expr, ExprKind, Place, Stmt, StmtKind, VarId};

impl Expr {
    /// Calls `f` on this expression and every sub-expression (pre-order), including
    /// index expressions of loads.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Const(_) | ExprKind::Var(_) => {}
            ExprKind::Load(_, idx) => idx.iter().for_each(|e| e.walk(f)),
            ExprKind::Unary(_, a) | ExprKind::Cast(a) => a.walk(f),
            ExprKind::Binary(_, a, b) => {
                a.walk(f);
                b.walk(f);
            }
            ExprKind::Call(_, args) => args.iter().for_each(|e| e.walk(f)),
            ExprKind::Select(c, a, b) => {
                c.walk(f);
                a.walk(f);
                b.walk(f);
            }
        }
    }

    /// Rebuilds the expression bottom-up, giving `f` the chance to replace each node
    /// after its children have been rewritten.
    pub fn rewrite(&self, f: &mut dyn FnMut(Expr) -> Expr) -> Expr {
        let kind = match &self.kind {
            ExprKind::Const(_) | ExprKind::Var(_) => self.kind.clone(),
            ExprKind::Load(v, idx) => ExprKind::Load(*v, idx.iter().map(|e| e.rewrite(f)).collect()),
            ExprKind::Unary(op, a) => ExprKind::Unary(*op, Box::new(a.rewrite(f))),
            ExprKind::Cast(a) => ExprKind::Cast(Box::new(a.rewrite(f))),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(*op, Box::new(a.rewrite(f)), Box::new(b.rewrite(f))),
            ExprKind::Call(i, args) => ExprKind::Call(*i, args.iter().map(|e| e.rewrite(f)).collect()),
            ExprKind::Select(c, a, b) => {
                ExprKind::Select(Box::new(c.rewrite(f)), Box::new(a.rewrite(f)), Box::new(b.rewrite(f)))
            }
        };
        f(Expr { kind, ty: self.ty, span: self.span })
    }

    /// Replaces every use of scalar variable `var` by `with`.
    pub fn substitute(&self, var: VarId, with: &Expr) -> Expr {
        self.rewrite(&mut |e| match e.kind {
            ExprKind::Var(v) if v == var => with.clone(),
            _ => e,
        })
    }

    /// Whether the expression mentions `var` (as a scalar or as an array).
    pub fn mentions(&self, var: VarId) -> bool {
        let mut found = false;
        self.walk(&mut |e| match &e.kind {
            ExprKind::Var(v) | ExprKind::Load(v, _) if *v == var => found = true,
            _ => {}
        });
        found
    }

    /// All variables the expression reads, in first-use order, without repeats.
    pub fn vars(&self) -> Vec<VarId> {
        let mut out = Vec::new();
        self.walk(&mut |e| match &e.kind {
            ExprKind::Var(v) | ExprKind::Load(v, _) if !out.contains(v) => out.push(*v),
            _ => {}
        });
        out
    }
}

impl Stmt {
    /// Calls `f` on every expression directly held by this statement (not those of nested
    /// blocks): values, conditions, bounds, and the indices of target places.
    pub fn exprs(&self, f: &mut dyn FnMut(&Expr)) {
        let place = |p: &Place, f: &mut dyn FnMut(&Expr)| p.index.iter().for_each(|e| f(e));
        match &self.kind {
            StmtKind::Assign { target, value } | StmtKind::Accumulate { target, value, .. } => {
                place(target, f);
                f(value);
            }
            StmtKind::Loop(l) => {
                f(&l.start);
                f(&l.stop);
                f(&l.step);
            }
            StmtKind::While(w) => f(&w.cond),
            StmtKind::Map(m) => m.dims.iter().for_each(|d| {
                f(&d.start);
                f(&d.stop);
            }),
            StmtKind::If { cond, .. } => f(cond),
            StmtKind::Push { value, .. } => f(value),
            StmtKind::Pop { target, .. } => place(target, f),
            StmtKind::Fail(_) => {}
            StmtKind::Call(c) => {
                for v in std::iter::once(&c.out_view).chain(c.arg_views.iter()) {
                    v.start.iter().chain(v.extents.iter()).for_each(|e| f(e));
                }
                f(&c.alpha);
                f(&c.beta);
            }
            StmtKind::Alloc(_) | StmtKind::Free(_) | StmtKind::Section { .. } => {}
        }
    }

    /// The nested blocks of this statement.
    pub fn blocks(&self) -> Vec<&Block> {
        match &self.kind {
            StmtKind::Loop(l) => vec![&l.body],
            StmtKind::While(w) => vec![&w.body],
            StmtKind::Map(m) => vec![&m.body],
            StmtKind::If { then_body, else_body, .. } => vec![then_body, else_body],
            StmtKind::Section { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }

    pub fn blocks_mut(&mut self) -> Vec<&mut Block> {
        match &mut self.kind {
            StmtKind::Loop(l) => vec![&mut l.body],
            StmtKind::While(w) => vec![&mut w.body],
            StmtKind::Map(m) => vec![&mut m.body],
            StmtKind::If { then_body, else_body, .. } => vec![then_body, else_body],
            StmtKind::Section { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }

    /// The variable this statement writes directly (not counting nested blocks).
    pub fn written_var(&self) -> Option<VarId> {
        match &self.kind {
            StmtKind::Assign { target, .. } | StmtKind::Accumulate { target, .. } | StmtKind::Pop { target, .. } => {
                Some(target.var)
            }
            StmtKind::Call(c) => Some(c.out),
            _ => None,
        }
    }
}

/// Calls `f` on every statement of `block`, recursively, in program order (pre-order).
pub fn walk_stmts(block: &Block, f: &mut dyn FnMut(&Stmt)) {
    for s in block {
        f(s);
        for b in s.blocks() {
            walk_stmts(b, f);
        }
    }
}

/// Calls `f` on every expression of every statement of `block`, recursively.
pub fn walk_exprs(block: &Block, f: &mut dyn FnMut(&Expr)) {
    walk_stmts(block, &mut |s| s.exprs(&mut |e| e.walk(f)));
}
