//! Statement functions (`fdiv(a, b) = a / (b + eps)` before the first executable
//! statement, as IFS's `fcttre.func.h` include files define them): inlined at each use.
//!
//! The parser cannot tell them from assignments to array elements, so the rule lives here,
//! where the declarations are known: a leading assignment `f(x, y) = expr` whose left-hand
//! side names something that is not an array (undeclared, or declared as a scalar local)
//! and whose arguments are distinct names defines a statement function. A use `f(a, b)`
//! lowers `expr` with `x`, `y` bound to the values of `a`, `b` (converted to the types of
//! the dummies, which follow the declarations or the implicit rule) and converts the
//! result to the type of `f`. The body may use the routine's variables and constants and
//! earlier statement functions.

use super::ast::{ExprKind as AKind, Stmt as AStmt, StmtKind as S};
use super::lower::{Binding, Lowerer, Spec, R};
use adjc_ir::*;

type AExpr = super::ast::Expr;

/// A statement function: its dummies (lower case), body and result type.
#[derive(Clone)]
pub struct StmtFn<'t> {
    pub dummies: Vec<(String, Scalar)>,
    pub body: &'t AExpr,
    pub result: Scalar,
}

impl<'s, 't> Lowerer<'s, 't> {
    /// Takes the statement function definitions from the front of `stmts`; returns the
    /// executable statements after them.
    pub fn statement_functions(&mut self, spec: &Spec<'t>, stmts: &'t [AStmt]) -> R<&'t [AStmt]> {
        let mut k = 0;
        while let Some(s) = stmts.get(k) {
            let S::Assign { lhs, rhs } = &s.kind else { break };
            let AKind::Call { callee, args } = &lhs.kind else { break };
            if !matches!(callee.kind, AKind::Name(_)) {
                break;
            }
            let name = self.text(&**callee).to_ascii_lowercase();
            let not_array = match self.names.get(&name) {
                None => !spec.dummies.iter().any(|(d, _)| *d == name),
                Some(Binding::Var(v)) => {
                    let var = self.f.var(*v);
                    var.role == VarRole::Local && !var.ty.is_array()
                }
                Some(Binding::Const(_)) => false,
            };
            let mut dummies: Vec<String> = Vec::new();
            for a in args {
                match a.kind {
                    AKind::Name(_) => dummies.push(self.text(a).to_ascii_lowercase()),
                    _ => dummies.clear(),
                }
            }
            if !not_array || dummies.len() != args.len() || args.is_empty() {
                break;
            }
            if let Some(d) = dummies.iter().enumerate().find(|(i, d)| dummies[..*i].contains(d)) {
                return Err(self.err(lhs, format!("the statement function `{name}` names `{}` twice", d.1)));
            }
            let typed = |lw: &mut Self, n: &str, at: Span| -> R<Scalar> {
                match spec.local.get(n) {
                    Some(sym) if sym.dims.is_some() => Err(lw.err(at, format!("`{n}` is an array"))),
                    Some(sym) => lw.scalar_type(sym),
                    None => {
                        let sym = lw.implicit_sym(n, at)?;
                        lw.scalar_type(&sym)
                    }
                }
            };
            let mut typed_dummies = Vec::new();
            for (d, a) in dummies.iter().zip(args) {
                typed_dummies.push((d.clone(), typed(self, d, self.sp(a))?));
            }
            let result = typed(self, &name, self.sp(&**callee))?;
            // The name no longer means the scalar local the declarations made of it.
            self.names.remove(&name);
            self.stmt_fns.insert(name, StmtFn { dummies: typed_dummies, body: rhs, result });
            k += 1;
        }
        Ok(&stmts[k..])
    }

    /// `f(a, b)` for a statement function `f`: its body with the dummies bound to the
    /// arguments' values.
    pub fn call_stmt_fn(&mut self, n: &'t AExpr, sf: StmtFn<'t>, args: &'t [AExpr], el: Option<&[Expr]>) -> R<Expr> {
        if args.len() != sf.dummies.len() {
            return Err(self.err(
                n,
                format!("this statement function takes {} argument(s), {} are given", sf.dummies.len(), args.len()),
            ));
        }
        let name = self.text(n).split('(').next().unwrap_or("").trim().to_ascii_lowercase();
        if self.stmt_fns_active.contains(&name) {
            return Err(self.err(n, format!("the statement function `{name}` calls itself")));
        }
        let mut bound = Vec::new();
        for ((d, ty), a) in sf.dummies.iter().zip(args) {
            let e = self.expr(a, el)?;
            let e = self.convert(a, e, *ty)?;
            bound.push((d.clone(), Binding::Const(e)));
        }
        // The dummies shadow the routine's names (and enclosing `do` variables) in the body.
        let mut saved = Vec::new();
        for (d, b) in bound {
            saved.push((d.clone(), self.names.insert(d.clone(), b)));
        }
        let loops = std::mem::take(&mut self.loops);
        let shadowed: Vec<(String, VarId)> =
            loops.iter().filter(|(x, _)| !saved.iter().any(|(d, _)| d == x)).cloned().collect();
        self.loops = shadowed;
        self.stmt_fns_active.push(name);
        let r = self.expr(sf.body, el).and_then(|e| self.convert(sf.body, e, sf.result));
        self.stmt_fns_active.pop();
        self.loops = loops;
        for (d, old) in saved.into_iter().rev() {
            match old {
                Some(b) => self.names.insert(d, b),
                None => self.names.remove(&d),
            };
        }
        r
    }
}
