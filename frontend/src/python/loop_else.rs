//! `for ... else` and `while ... else`: the `else` block runs when the loop ends without
//! `break`. Desugared on the tree, right after parsing, into a flag:
//!
//! ```text
//! for i in range(n):           no_break_L = True
//!     if c:                    for i in range(n):
//!         break          →         if c:
//! else:                                no_break_L = False
//!     S                                break
//!                              if no_break_L:
//!                                  S
//! ```
//!
//! Only the `break`s of this loop set the flag (not those of loops nested in it). A
//! `return` inside the loop leaves the function, so the `else` block does not run either,
//! as in Python. The flag's name (`no_break_<line>`) is made unique against every name in
//! the source text, so it can never be a variable of the program.

use super::ast::{Ex, ExKind, St, StKind};
use adjc_ir::Span;

/// The statements replacing `loop_st` (a `for` or `while`) with its `else` block.
pub fn desugar(loop_st: St, else_body: Vec<St>, else_span: Span, src: &str) -> Vec<St> {
    let mut flag = format!("no_break_{}", loop_st.span.line);
    while src.contains(flag.as_str()) {
        flag.push('_');
    }
    let name = |span: Span| Ex { kind: ExKind::Name(flag.clone()), span, text: flag.clone() };
    let set = |value: bool, span: Span| St {
        kind: StKind::Assign {
            targets: vec![name(span)],
            value: Ex { kind: ExKind::Bool(value), span, text: if value { "True" } else { "False" }.into() },
        },
        span,
    };
    let mut st = loop_st;
    if let StKind::For { body, .. } | StKind::While { body, .. } = &mut st.kind {
        mark_breaks(body, &|span| set(false, span));
    }
    let init = set(true, st.span);
    let test =
        St { kind: StKind::If { cond: name(else_span), then_body: else_body, else_body: Vec::new() }, span: else_span };
    vec![init, st, test]
}

/// Puts `clear` before every `break` of this loop (inside `if`s, not inside nested loops).
fn mark_breaks(body: &mut Vec<St>, clear: &dyn Fn(Span) -> St) {
    let mut out = Vec::with_capacity(body.len());
    for mut s in std::mem::take(body) {
        match &mut s.kind {
            StKind::Break => out.push(clear(s.span)),
            StKind::If { then_body, else_body, .. } => {
                mark_breaks(then_body, clear);
                mark_breaks(else_body, clear);
            }
            _ => {}
        }
        out.push(s);
    }
    *body = out;
}
