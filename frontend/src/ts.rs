//! tree-sitter helpers shared by the Python and Fortran frontends.

use tree_sitter::Node;

/// The first ERROR or MISSING node below `root` in document order (`root` itself unless
/// `skip_root`). Pre-order search with an explicit stack: hostile input can nest deeply.
pub(crate) fn first_error_below(root: Node, skip_root: bool) -> Option<Node> {
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let is_root = n.id() == root.id();
        if !(skip_root && is_root) && (n.is_error() || n.is_missing()) {
            return Some(n);
        }
        if !(n.has_error() || is_root) {
            continue;
        }
        let mut c = n.walk();
        let kids: Vec<Node> = n.children(&mut c).collect();
        stack.extend(kids.into_iter().rev());
    }
    None
}
