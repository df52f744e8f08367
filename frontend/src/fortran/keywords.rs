//! Keyword arguments of intrinsic functions (`selected_real_kind(p=13, r=300)`,
//! `int(3, kind=ip)`, `size(x, dim=1)`), put in their positions before lowering, which
//! reads intrinsic arguments by position. A call whose keywords leave a position empty
//! (`sum(x, mask=m)`), repeat one, or name no argument of the intrinsic is left as it is
//! (lowering reports it); so is a call of a procedure of the files that has an intrinsic's
//! name.

use super::ast::*;
use std::collections::BTreeSet;

/// The argument names of the intrinsics lowering reads, in order.
fn argument_names(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "selected_real_kind" => &["p", "r", "radix"],
        "selected_int_kind" => &["r"],
        "real" | "int" | "nint" | "floor" | "ceiling" | "aint" | "anint" | "logical" => &["a", "kind"],
        "dble" | "abs" | "sqrt" | "exp" | "log" | "log10" | "sin" | "cos" | "tan" | "tanh" | "sinh" | "cosh"
        | "asin" | "acos" | "atan" => &["x"],
        "atan2" => &["y", "x"],
        "mod" | "modulo" => &["a", "p"],
        "sign" => &["a", "b"],
        "sum" | "product" | "maxval" | "minval" => &["array", "dim", "mask"],
        "size" | "lbound" | "ubound" => &["array", "dim", "kind"],
        "merge" => &["tsource", "fsource", "mask"],
        "dot_product" => &["vector_a", "vector_b"],
        "matmul" => &["matrix_a", "matrix_b"],
        "transpose" => &["matrix"],
        "present" => &["a"],
        "kind" | "huge" | "tiny" | "epsilon" => &["x"],
        _ => return None,
    })
}

/// Reorders the keyword arguments of intrinsic calls everywhere in `file`.
pub fn positional(file: &mut File) {
    let mut procs = BTreeSet::new();
    for u in &file.units {
        match u {
            TopUnit::Procedure(p) => collect(p, &mut procs),
            TopUnit::Module(m) => {
                for item in &m.items {
                    match item {
                        ModuleItem::Contains(ps) => ps.iter().for_each(|p| collect(p, &mut procs)),
                        // A generic name (`scale`) shadows the intrinsic of that name.
                        ModuleItem::Generic { name, .. } => {
                            procs.insert(name.to_ascii_lowercase());
                        }
                        _ => {}
                    }
                }
            }
            TopUnit::Unsupported(_) => {}
        }
    }
    let fix = &mut |e: &mut Expr| expr(e, &procs);
    for u in &mut file.units {
        match u {
            TopUnit::Procedure(p) => proc(p, fix),
            TopUnit::Module(m) => {
                for item in &mut m.items {
                    match item {
                        ModuleItem::Decl(d) => decl(d, fix),
                        ModuleItem::TypeDef(t) => t.components.iter_mut().for_each(|d| decl(d, fix)),
                        ModuleItem::Contains(ps) => ps.iter_mut().for_each(|p| proc(p, fix)),
                        ModuleItem::Implicit(_) | ModuleItem::Generic { .. } => {}
                    }
                }
            }
            TopUnit::Unsupported(_) => {}
        }
    }
}

fn collect(p: &Procedure, out: &mut BTreeSet<String>) {
    out.insert(p.name.to_ascii_lowercase());
    p.contains.iter().for_each(|c| collect(c, out));
}

fn expr(e: &mut Expr, procs: &BTreeSet<String>) {
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        if let ExprKind::Call { callee, args } = &mut x.kind {
            if let Some(name) = callee.as_name().map(str::to_ascii_lowercase) {
                if !procs.contains(&name) {
                    if let Some(names) = argument_names(&name) {
                        reorder(args, names);
                    }
                }
            }
        }
        stack.extend(children_mut(x));
    }
}

/// Puts `name = value` arguments at their positions when that leaves no gap.
fn reorder(args: &mut Vec<Expr>, names: &[&str]) {
    if !args.iter().any(|a| matches!(a.kind, ExprKind::Keyword { .. })) {
        return;
    }
    let mut slots: Vec<Option<Expr>> = vec![None; names.len().max(args.len())];
    for (k, a) in args.iter().enumerate() {
        match &a.kind {
            ExprKind::Keyword { name, value } => {
                let Some(pos) = names.iter().position(|n| n.eq_ignore_ascii_case(name)) else { return };
                if slots[pos].is_some() {
                    return;
                }
                slots[pos] = Some((**value).clone());
            }
            _ => {
                if slots[k].is_some() {
                    return;
                }
                slots[k] = Some(a.clone());
            }
        }
    }
    let given = slots.iter().rposition(Option::is_some).map_or(0, |k| k + 1);
    if slots[..given].iter().any(Option::is_none) {
        return;
    }
    *args = slots.into_iter().take(given).flatten().collect();
}

fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match &mut e.kind {
        ExprKind::Paren(x) | ExprKind::Not(x) | ExprKind::Unary { operand: x, .. } => vec![&mut **x],
        ExprKind::Math { lhs, rhs, .. } | ExprKind::Compare { lhs, rhs, .. } | ExprKind::Logical { lhs, rhs, .. } => {
            vec![&mut **lhs, &mut **rhs]
        }
        ExprKind::Call { callee, args } => std::iter::once(&mut **callee).chain(args.iter_mut()).collect(),
        ExprKind::Range { lo, hi, stride } => [lo, hi, stride].into_iter().flatten().map(|b| &mut **b).collect(),
        ExprKind::Keyword { value, .. } => vec![&mut **value],
        ExprKind::Component { base, .. } => vec![&mut **base],
        ExprKind::ArrayConstructor(items) => items.iter_mut().collect(),
        ExprKind::ImpliedDo(d) => {
            let ImpliedDo { items, start, last, step, .. } = &mut **d;
            let mut v: Vec<&mut Expr> = items.iter_mut().collect();
            v.push(start);
            v.push(last);
            if let Some(s) = step {
                v.push(s);
            }
            v
        }
        _ => Vec::new(),
    }
}

fn decl(d: &mut Decl, f: &mut dyn FnMut(&mut Expr)) {
    for part in &mut d.parts {
        match part {
            DeclPart::Type(TypeSpec::Intrinsic { kind: Some(KindSel { value: Some(v), .. }), .. }) => f(v),
            DeclPart::Attr(Attr { kind: AttrKind::Dimension(Some(s)), .. }) => shape(s, f),
            _ => {}
        }
    }
    for e in &mut d.entities {
        if let Some(i) = &mut e.init {
            f(i);
        }
        if let Some(s) = &mut e.shape {
            shape(s, f);
        }
    }
}

fn shape(s: &mut Shape, f: &mut dyn FnMut(&mut Expr)) {
    for d in &mut s.dims {
        match d {
            DimSpec::Explicit { lower, upper } => {
                if let Some(l) = lower {
                    f(l);
                }
                f(upper);
            }
            DimSpec::Assumed { lower: Some(l) } => f(l),
            _ => {}
        }
    }
}

fn proc(p: &mut Procedure, f: &mut dyn FnMut(&mut Expr)) {
    for s in &mut p.spec {
        match &mut s.kind {
            SpecKind::Decl(d) | SpecKind::Attributes(d) => decl(d, f),
            SpecKind::Parameter(defs) => defs.iter_mut().for_each(|(_, _, e)| f(e)),
            SpecKind::TypeDef(t) => t.components.iter_mut().for_each(|d| decl(d, f)),
            _ => {}
        }
    }
    stmts(&mut p.body, f);
    p.contains.iter_mut().for_each(|c| proc(c, f));
}

fn stmts(ss: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    for s in ss {
        match &mut s.kind {
            StmtKind::Assign { lhs, rhs } => {
                f(lhs);
                f(rhs);
            }
            StmtKind::Do(l) => {
                match &mut l.control {
                    DoControl::Counted { var, start, last, step } => {
                        for e in [var, start, last] {
                            f(e);
                        }
                        if let Some(e) = step {
                            f(e);
                        }
                    }
                    DoControl::While { cond } => f(cond),
                    DoControl::Concurrent { items, .. } => {
                        for it in items {
                            if let ConcurrentItem::Control { var, start, last, step, .. } = it {
                                for e in [var, start, last] {
                                    f(e);
                                }
                                if let Some(e) = step {
                                    f(e);
                                }
                            }
                        }
                    }
                    _ => {}
                }
                stmts(&mut l.body, f);
            }
            StmtKind::If(b) => {
                f(&mut b.cond);
                stmts(&mut b.then_body, f);
                for c in &mut b.clauses {
                    match c {
                        ElseClause::ElseIf { cond, body, .. } => {
                            f(cond);
                            stmts(body, f);
                        }
                        ElseClause::Else { body, .. } => stmts(body, f),
                    }
                }
            }
            StmtKind::Call { args, .. } => args.iter_mut().for_each(&mut *f),
            StmtKind::Where(w) => {
                f(&mut w.mask);
                stmts(&mut w.body, f);
                for e in &mut w.elsewhere {
                    if let Some(m) = &mut e.mask {
                        f(m);
                    }
                    stmts(&mut e.body, f);
                }
            }
            StmtKind::Select(sc) => {
                f(&mut sc.selector);
                for c in &mut sc.cases {
                    c.values.iter_mut().for_each(&mut *f);
                    stmts(&mut c.body, f);
                }
            }
            StmtKind::Allocate(items) => {
                for a in items {
                    if let Allocation::Sized { name, shape: sh, .. } = a {
                        f(name);
                        shape(sh, f);
                    }
                }
            }
            StmtKind::Declaration(d) => decl(d, f),
            StmtKind::Parameter(defs) => defs.iter_mut().for_each(|(_, _, e)| f(e)),
            _ => {}
        }
    }
}
