//! A statement's [`Note`] as the text of its C comment.
//!
//! The wording of every note is `Note`'s `Display` (`ir/src/note.rs`, shared with the IR
//! printer); what only the C printer can do is here: the adjoint of a product (`gemm`,
//! `gemv`, `ger`, `dot`) reads as its formula in the source's notation (`x_b += y_b @ A.T`)
//! instead of "adjoint of gemm". The caller makes the text a comment (`cstmt::comment_text`).

use crate::ctx::FnCtx;
use adjc_ir::{Note, Stmt, StmtKind};

/// The comment text of `s`'s note `note`.
pub(crate) fn text(cx: &FnCtx, s: &Stmt, note: &Note) -> String {
    match &s.kind {
        StmtKind::Call(c) if is_product_adjoint(note) => crate::formula::formula(cx, c),
        _ => note.to_string(),
    }
}

/// Whether `note` marks a library call of an adjoint whose operation was a product (the call
/// may be another operation: gemv's adjoint is a ger). Free text in the old form ("adjoint
/// of gemm") counts too.
fn is_product_adjoint(note: &Note) -> bool {
    let product = |name: &str| matches!(name, "gemm" | "gemv" | "ger" | "dot");
    match note {
        Note::LibraryAdjoint { op } => product(op.name()),
        Note::Text(t) => t.strip_prefix("adjoint of ").is_some_and(product),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjc_ir::LibOp;

    #[test]
    fn products_and_only_products_read_as_formulas() {
        assert!(is_product_adjoint(&Note::LibraryAdjoint { op: LibOp::Gemm }));
        assert!(is_product_adjoint(&Note::LibraryAdjoint { op: LibOp::Dot }));
        assert!(!is_product_adjoint(&Note::LibraryAdjoint { op: LibOp::Cholesky }));
        assert!(is_product_adjoint(&Note::from("adjoint of ger")));
        assert!(!is_product_adjoint(&Note::from("adjoint of gemm, twice")));
        assert!(!is_product_adjoint(&Note::SolveRhs));
    }
}
