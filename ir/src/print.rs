//! The stable text form of the IR (`adjc transpile --emit ir`, snapshot tests).
//!
//! ```text
//! fn jacobi_1d(TSTEPS: i64 in, A: f64[N] inout, B: f64[N] inout, size N: i64)
//!   local i: i64 index
//! {
//!   L0: loop t in range(1, TSTEPS, 1) {                      # 5
//!     M0: map i in [1, N - 1) {                              # 6
//!       B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])        # 6
//!     }
//!   }
//! }
//! ```

use crate::*;
use std::fmt::Write;

pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# module {}", m.file);
    for f in &m.functions {
        out.push('\n');
        out.push_str(&print_function(f));
    }
    out
}

pub fn type_str(f: &Function, ty: &Type) -> String {
    match ty {
        Type::Scalar(s) => s.name().to_string(),
        Type::Array { elem, dims, layout } => {
            let dims: Vec<String> = dims
                .iter()
                .map(|d| {
                    let ext = expr_str(f, &d.extent);
                    match d.lower.as_int() {
                        Some(0) => ext,
                        _ => format!("{}:{}", expr_str(f, &d.lower), ext),
                    }
                })
                .collect();
            let lay = if *layout == Layout::ColMajor { " colmajor" } else { "" };
            format!("{}[{}]{}", elem, dims.join(", "), lay)
        }
    }
}

fn role_str(f: &Function, r: &VarRole) -> String {
    match r {
        VarRole::Size => "size".into(),
        VarRole::Param => "param".into(),
        VarRole::Return => "return".into(),
        VarRole::Local => "local".into(),
        VarRole::Index => "index".into(),
        VarRole::Temp => "temp".into(),
        VarRole::Adjoint(v) => format!("adjoint of {}", f.var(*v).name),
        VarRole::Tape => "tape".into(),
    }
}

pub fn print_function(f: &Function) -> String {
    let mut out = String::new();
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            let v = f.var(p.var);
            format!("{}: {} {}", v.name, type_str(f, &v.ty), p.intent.name())
        })
        .collect();
    let _ = writeln!(out, "fn {}({})", f.name, params.join(", "));
    for note in &f.notes {
        let _ = writeln!(out, "  # {note}");
    }
    for a in &f.assumptions {
        let guard = a.guard.as_ref().map(|g| format!("if {}: ", expr_str(f, g))).unwrap_or_default();
        if let Some(v) = a.each {
            let _ = writeln!(
                out,
                "  assume {guard}every {} in [{}, {}]  # {}, line {}",
                f.var(v).name,
                expr_str(f, &a.lhs),
                expr_str(f, &a.rhs),
                a.what,
                a.span.line
            );
            continue;
        }
        let _ = writeln!(
            out,
            "  assume {guard}{} {} {}  # {}, line {}",
            expr_str(f, &a.lhs),
            a.rel.symbol(),
            expr_str(f, &a.rhs),
            a.what,
            a.span.line
        );
    }
    for (k, v) in f.vars.iter().enumerate() {
        if f.is_param(VarId(k as u32)) {
            continue;
        }
        let _ = writeln!(out, "  var {}: {} ({})", v.name, type_str(f, &v.ty), role_str(f, &v.role));
    }
    out.push_str("{\n");
    print_block(f, &f.body, 1, &mut out);
    out.push_str("}\n");
    out
}

fn line_tag(span: Span) -> String {
    if span.is_none() {
        String::new()
    } else {
        format!("  # {}", span.line)
    }
}

/// `C[0:N, 0:M] = 1.0 * gemm(A[0:N, 0:K], B[0:M, 0:K].T) + 0.0 * C[0:N, 0:M]`
pub fn call_str(f: &Function, c: &LibCall) -> String {
    let out = view_str(f, c.out, &c.out_view);
    let args: Vec<String> = c.args.iter().zip(&c.arg_views).map(|(a, v)| view_str(f, *a, v)).collect();
    format!(
        "{out} = {} * {}({}) + {} * {out}",
        expr_str(f, &c.alpha),
        c.op.name(),
        args.join(", "),
        expr_str(f, &c.beta)
    )
}

/// Signed terms of a sum (`a - (b + 1)` is `+a, -b, -1`).
fn terms(e: &Expr, sign: i64, out: &mut Vec<(i64, Expr)>) {
    match &e.kind {
        ExprKind::Binary(BinOp::Add, a, b) => {
            terms(a, sign, out);
            terms(b, sign, out);
        }
        ExprKind::Binary(BinOp::Sub, a, b) => {
            terms(a, sign, out);
            terms(b, -sign, out);
        }
        ExprKind::Unary(UnOp::Neg, a) => terms(a, -sign, out),
        _ => out.push((sign, e.clone())),
    }
}

/// `start + extent` with equal terms cancelled and constants folded, so a view prints as
/// `A[i + 1:N, i]` rather than `A[i + 1:i + 1 + (N - i - 1), i]`.
fn sum_of(start: &Expr, extent: &Expr) -> Expr {
    let mut ts = Vec::new();
    terms(start, 1, &mut ts);
    terms(extent, 1, &mut ts);
    let mut konst = 0i64;
    let mut kept: Vec<(i64, Expr)> = Vec::new();
    for (sign, t) in ts {
        if let Some(c) = t.as_int() {
            konst = konst.wrapping_add(sign.wrapping_mul(c));
        } else if let Some(pos) = kept.iter().position(|(s2, t2)| *s2 == -sign && *t2 == t) {
            kept.remove(pos);
        } else {
            kept.push((sign, t));
        }
    }
    let mut acc: Option<Expr> = None;
    for (sign, t) in kept {
        acc = Some(match (acc, sign > 0) {
            (None, true) => t,
            (None, false) => t.neg(),
            (Some(a), true) => a.add(t),
            (Some(a), false) => a.sub(t),
        });
    }
    match acc {
        None => Expr::int(konst),
        Some(a) if konst >= 0 => a.add(Expr::int(konst)),
        Some(a) => a.sub(Expr::int(konst.wrapping_neg())),
    }
}

/// `A[i, 0:j]`, `B[0:K, 0:M].T`.
pub fn view_str(f: &Function, var: VarId, v: &View) -> String {
    let name = &f.var(var).name;
    if v.start.is_empty() {
        return name.clone();
    }
    let items: Vec<String> = v
        .start
        .iter()
        .enumerate()
        .map(|(d, s)| match v.axes.iter().position(|a| *a == d) {
            Some(k) => {
                let stop = v.extents.get(k).map(|e| sum_of(s, e)).unwrap_or_else(|| s.clone());
                format!("{}:{}", expr_str(f, s), expr_str(f, &stop))
            }
            None => expr_str(f, s),
        })
        .collect();
    let t = if v.axes.len() == 2 && v.axes[0] > v.axes[1] { ".T" } else { "" };
    format!("{name}[{}]{t}", items.join(", "))
}

fn place_str(f: &Function, p: &Place) -> String {
    let name = &f.var(p.var).name;
    if p.index.is_empty() {
        name.clone()
    } else {
        let idx: Vec<String> = p.index.iter().map(|e| expr_str(f, e)).collect();
        format!("{}[{}]", name, idx.join(", "))
    }
}

fn print_block(f: &Function, b: &Block, depth: usize, out: &mut String) {
    let ind = "  ".repeat(depth);
    for s in b {
        if let Some(n) = &s.note {
            let _ = writeln!(out, "{ind}# {n}");
        }
        let tag = line_tag(s.span);
        match &s.kind {
            StmtKind::Assign { target, value } => {
                let _ = writeln!(out, "{ind}{} = {}{tag}", place_str(f, target), expr_str(f, value));
            }
            StmtKind::Accumulate { target, op, value, shared } => {
                let sh = if *shared { " shared" } else { "" };
                let _ = writeln!(out, "{ind}{} {} {}{sh}{tag}", place_str(f, target), op.name(), expr_str(f, value));
            }
            StmtKind::Loop(l) => {
                let _ = writeln!(
                    out,
                    "{ind}{}: loop {} in range({}, {}, {}) {{{tag}",
                    l.id,
                    f.var(l.var).name,
                    expr_str(f, &l.start),
                    expr_str(f, &l.stop),
                    expr_str(f, &l.step)
                );
                print_block(f, &l.body, depth + 1, out);
                let _ = writeln!(out, "{ind}}}");
            }
            StmtKind::While(w) => {
                let _ = writeln!(out, "{ind}{}: while {} {{{tag}", w.id, expr_str(f, &w.cond));
                print_block(f, &w.body, depth + 1, out);
                let _ = writeln!(out, "{ind}}}");
            }
            StmtKind::Map(m) => {
                let dims: Vec<String> = m
                    .dims
                    .iter()
                    .map(|d| format!("{} in [{}, {})", f.var(d.var).name, expr_str(f, &d.start), expr_str(f, &d.stop)))
                    .collect();
                let _ = writeln!(out, "{ind}{}: map {} {{{tag}", m.id, dims.join(", "));
                print_block(f, &m.body, depth + 1, out);
                let _ = writeln!(out, "{ind}}}");
            }
            StmtKind::If { cond, then_body, else_body } => {
                let _ = writeln!(out, "{ind}if {} {{{tag}", expr_str(f, cond));
                print_block(f, then_body, depth + 1, out);
                if !else_body.is_empty() {
                    let _ = writeln!(out, "{ind}}} else {{");
                    print_block(f, else_body, depth + 1, out);
                }
                let _ = writeln!(out, "{ind}}}");
            }
            StmtKind::Alloc(v) => {
                let var = f.var(*v);
                let _ = writeln!(out, "{ind}alloc {}: {}{tag}", var.name, type_str(f, &var.ty));
            }
            StmtKind::Free(v) => {
                let _ = writeln!(out, "{ind}free {}", f.var(*v).name);
            }
            StmtKind::Call(c) => {
                let _ = writeln!(out, "{ind}{}{tag}", call_str(f, c));
            }
            StmtKind::Push { tape, value } => {
                let _ = writeln!(out, "{ind}push {} <- {}{tag}", f.var(*tape).name, expr_str(f, value));
            }
            StmtKind::Pop { tape, target } => {
                let _ = writeln!(out, "{ind}pop {} -> {}{tag}", f.var(*tape).name, place_str(f, target));
            }
            StmtKind::Fail(why) => {
                let _ = writeln!(out, "{ind}fail {}{tag}", why.code());
            }
            StmtKind::Section { title, body } => {
                let _ = writeln!(out, "{ind}section \"{title}\" {{");
                print_block(f, body, depth + 1, out);
                let _ = writeln!(out, "{ind}}}");
            }
        }
    }
}

fn prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, _, _) => match op {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => 3,
            BinOp::Add | BinOp::Sub => 4,
            BinOp::Mul | BinOp::Div | BinOp::FloorDiv | BinOp::Mod => 5,
        },
        ExprKind::Select(..) => 0,
        ExprKind::Unary(..) => 6,
        _ => 7,
    }
}

/// Formats a float so that it reads back as the same value and always looks like a float.
pub fn float_str(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = format!("{v:?}");
    if s.contains('.') || s.contains('e') || s.contains("inf") {
        s
    } else {
        format!("{s}.0")
    }
}

pub fn expr_str(f: &Function, e: &Expr) -> String {
    let paren = |child: &Expr, min: u8| {
        let s = expr_str(f, child);
        if prec(child) < min {
            format!("({s})")
        } else {
            s
        }
    };
    match &e.kind {
        ExprKind::Const(Literal::Int(v)) => v.to_string(),
        ExprKind::Const(Literal::Float(v)) => {
            if e.ty == Scalar::F32 {
                // The shortest text of the single-precision value (`0.1f32`, not its double).
                let x = *v as f32;
                let s = if x.is_finite() {
                    let t = format!("{x:?}");
                    if t.contains(['.', 'e']) {
                        t
                    } else {
                        format!("{t}.0")
                    }
                } else {
                    float_str(*v)
                };
                format!("{s}f32")
            } else {
                float_str(*v)
            }
        }
        ExprKind::Const(Literal::Bool(b)) => b.to_string(),
        ExprKind::Var(v) => f.var(*v).name.clone(),
        ExprKind::Load(v, idx) => {
            let idx: Vec<String> = idx.iter().map(|i| expr_str(f, i)).collect();
            format!("{}[{}]", f.var(*v).name, idx.join(", "))
        }
        ExprKind::Unary(UnOp::Neg, a) => format!("-{}", paren(a, 6)),
        ExprKind::Unary(UnOp::Not, a) => format!("!{}", paren(a, 6)),
        ExprKind::Binary(op, a, b) => {
            let p = prec(e);
            // Left-associative: the right operand needs parentheses at equal precedence.
            format!("{} {} {}", paren(a, p), op.symbol(), paren(b, p + 1))
        }
        ExprKind::Call(i, args) => {
            let args: Vec<String> = args.iter().map(|a| expr_str(f, a)).collect();
            format!("{}({})", i.name(), args.join(", "))
        }
        ExprKind::Select(c, a, b) => {
            format!("select({}, {}, {})", expr_str(f, c), expr_str(f, a), expr_str(f, b))
        }
        ExprKind::Cast(a) => format!("{}({})", e.ty.name(), expr_str(f, a)),
    }
}
