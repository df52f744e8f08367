//! The program units of a file: which procedures exist (at top level, in modules, in
//! `contains` sections) and which module-level declarations they can see.

use super::decl;
use super::syntax::{named, span_of, text};
use adjc_ir::{Diagnostic, Span};
use tree_sitter::Node;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcKind {
    Subroutine,
    Function,
}

/// One subroutine or function of the file.
pub struct Proc<'t> {
    pub node: Node<'t>,
    pub kind: ProcKind,
    /// As spelled in the source.
    pub name: String,
    pub name_span: Span,
    /// Declarations of the enclosing module or program (host association): only their
    /// `parameter` constants are usable.
    pub host_decls: Vec<Node<'t>>,
    /// The enclosing module or program says `implicit none` (it applies to the
    /// procedures it contains).
    pub host_implicit_none: bool,
}

pub struct Unit<'t> {
    pub procs: Vec<Proc<'t>>,
    /// `parameter` declarations of every module in the file (visible through `use`).
    pub module_decls: Vec<Node<'t>>,
    /// Names of the modules defined in the file (lower case).
    pub modules: Vec<String>,
}

impl<'t> Unit<'t> {
    pub fn find(&self, name: &str) -> Option<&Proc<'t>> {
        self.procs.iter().find(|p| p.name.eq_ignore_ascii_case(name))
    }
}

pub fn scan<'t>(src: &str, root: Node<'t>) -> Result<Unit<'t>, Diagnostic> {
    let mut u = Unit { procs: Vec::new(), module_decls: Vec::new(), modules: Vec::new() };
    for n in named(root) {
        match n.kind() {
            "subroutine" | "function" => push_proc(src, n, Vec::new(), false, &mut u),
            "module" | "program" => {
                let mut decls = Vec::new();
                let mut implicit_none = false;
                let mut scope = decl::Table::new();
                for c in named(n) {
                    match c.kind() {
                        "implicit_statement" => {
                            if implicit_none || !decls.is_empty() {
                                let what =
                                    if implicit_none { "a second" } else { "an `implicit` after a declaration:" };
                                return Err(Diagnostic::error(span_of(src, c), format!("{what} `implicit` statement"))
                                    .with_help("keep one `implicit none`, before the declarations"));
                            }
                            implicit_none = text(src, c).to_ascii_lowercase().contains("none");
                        }
                        "module_statement" => {
                            if let Some(name) = named(c).into_iter().find(|x| x.kind() == "name") {
                                u.modules.push(text(src, name).to_ascii_lowercase());
                            }
                        }
                        "variable_declaration" => {
                            // One scope: a name declared twice is an error (as in gfortran).
                            decl::collect(src, c, &mut scope, true)?;
                            decls.push(c);
                        }
                        "internal_procedures" => {
                            for p in named(c) {
                                if matches!(p.kind(), "subroutine" | "function") {
                                    push_proc(src, p, decls.clone(), implicit_none, &mut u);
                                }
                            }
                        }
                        _ => {}
                    }
                }
                if n.kind() == "module" {
                    u.module_decls.extend(decls);
                }
            }
            "submodule" | "interface" | "block_data" => {
                return Err(Diagnostic::error(
                    span_of(src, n),
                    format!("`{}` is not supported", n.kind().replace('_', " ")),
                )
                .with_help("adjc reads subroutines and functions, at top level or in modules"));
            }
            _ => {}
        }
    }
    Ok(u)
}

fn push_proc<'t>(src: &str, n: Node<'t>, host_decls: Vec<Node<'t>>, host_implicit_none: bool, u: &mut Unit<'t>) {
    let kind = if n.kind() == "function" { ProcKind::Function } else { ProcKind::Subroutine };
    let header = named(n).into_iter().find(|c| matches!(c.kind(), "subroutine_statement" | "function_statement"));
    let name_node = header.and_then(|h| named(h).into_iter().find(|c| c.kind() == "name"));
    let (name, name_span) = match name_node {
        Some(nn) => (text(src, nn).to_string(), span_of(src, nn)),
        None => ("kernel".to_string(), span_of(src, n)),
    };
    u.procs.push(Proc { node: n, kind, name, name_span, host_decls, host_implicit_none });
}
