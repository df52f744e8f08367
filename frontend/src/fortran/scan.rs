//! The program units of the files: which procedures exist (at top level, in modules, in
//! `contains` sections) and which module-level declarations they can see.

use super::ast::{self, ModuleItem, ModuleKind, Procedure, TopUnit};
use super::decl;
use adjc_ir::{Diagnostic, Span};

pub use ast::ProcKind;

/// One subroutine or function of the files.
pub struct Proc<'t> {
    pub node: &'t Procedure,
    pub kind: ProcKind,
    /// As spelled in the source.
    pub name: String,
    pub name_span: Span,
    /// Declarations of the enclosing module or program (host association): only their
    /// `parameter` constants are usable.
    pub host_decls: Vec<&'t ast::Decl>,
    /// The enclosing module or program says `implicit none` (it applies to the
    /// procedures it contains).
    pub host_implicit_none: bool,
    /// The enclosing module (lower case): its variables are the procedure's state.
    pub host_module: Option<String>,
    /// For an internal procedure (`contains` inside a subroutine or function): its host
    /// procedure (lower case), whose variables it sees (host association, see `inline`).
    pub host_proc: Option<String>,
}

pub struct Unit<'t> {
    pub procs: Vec<Proc<'t>>,
    /// `parameter` declarations of every module in the files (visible through `use`).
    pub module_decls: Vec<&'t ast::Decl>,
    /// Names of the modules defined in the files (lower case).
    pub modules: Vec<String>,
    /// The declarations of each module (lower-case name), for its variables (`state`).
    pub module_decls_of: std::collections::BTreeMap<String, Vec<&'t ast::Decl>>,
    /// Generic names (lower case) of the modules' interfaces and their specific
    /// procedures, resolved at each call by the arguments (`inline::resolve_generic`).
    pub generics: std::collections::BTreeMap<String, Vec<String>>,
    /// The component variables of the modules' derived-type variables (`derived`).
    pub module_components: super::derived::ModuleComponents,
}

impl<'t> Unit<'t> {
    /// The procedure named `name`; an internal one only if no other has that name.
    pub fn find(&self, name: &str) -> Option<&Proc<'t>> {
        let mut named = self.procs.iter().filter(|p| p.name.eq_ignore_ascii_case(name));
        let first = named.next()?;
        if first.host_proc.is_none() {
            return Some(first);
        }
        named.find(|p| p.host_proc.is_none()).or(Some(first))
    }
}

pub fn scan(file: &ast::File) -> Result<Unit<'_>, Diagnostic> {
    let mut u = Unit {
        procs: Vec::new(),
        module_decls: Vec::new(),
        modules: Vec::new(),
        module_decls_of: Default::default(),
        module_components: Default::default(),
        generics: Default::default(),
    };
    for unit in &file.units {
        match unit {
            TopUnit::Procedure(p) => push_proc(p, Vec::new(), false, None, &mut u),
            TopUnit::Module(m) => {
                let mut decls = Vec::new();
                let mut implicit_none = false;
                let mut scope = decl::Table::new();
                let module = match (m.kind, &m.name) {
                    (ModuleKind::Module, Some(name)) => Some(name.to_ascii_lowercase()),
                    _ => None,
                };
                if let Some(name) = &module {
                    u.modules.push(name.clone());
                }
                for item in &m.items {
                    match item {
                        ModuleItem::Implicit(i) => {
                            if implicit_none || !decls.is_empty() {
                                let what =
                                    if implicit_none { "a second" } else { "an `implicit` after a declaration:" };
                                return Err(Diagnostic::error(i.span, format!("{what} `implicit` statement"))
                                    .with_help("keep one `implicit none`, before the declarations"));
                            }
                            implicit_none = i.none;
                        }
                        ModuleItem::Decl(d) => {
                            // One scope: a name declared twice is an error (as in gfortran).
                            decl::collect(d, &mut scope, true)?;
                            decls.push(d);
                        }
                        ModuleItem::TypeDef(_) => {}
                        ModuleItem::Generic { name, procs, .. } => {
                            u.generics.entry(name.to_ascii_lowercase()).or_default().extend(procs.iter().cloned());
                        }
                        ModuleItem::Contains(procs) => {
                            for p in procs {
                                push_proc(p, decls.clone(), implicit_none, module.clone(), &mut u);
                            }
                        }
                    }
                }
                if m.kind == ModuleKind::Module {
                    if let Some(name) = module {
                        u.module_decls_of.insert(name, decls.clone());
                    }
                    u.module_decls.extend(decls);
                }
            }
            TopUnit::Unsupported(d) => return Err(d.clone()),
        }
    }
    Ok(u)
}

fn push_proc<'t>(
    p: &'t Procedure,
    host_decls: Vec<&'t ast::Decl>,
    host_implicit_none: bool,
    host_module: Option<String>,
    u: &mut Unit<'t>,
) {
    u.procs.push(Proc {
        node: p,
        kind: p.kind,
        name: p.name.clone(),
        name_span: p.name_span,
        host_decls: host_decls.clone(),
        host_implicit_none,
        host_module: host_module.clone(),
        host_proc: None,
    });
    // Internal procedures: the host's `implicit none` holds in them.
    let implicit_none =
        host_implicit_none || p.spec.iter().any(|i| matches!(&i.kind, ast::SpecKind::Implicit(im) if im.none));
    for q in &p.contains {
        u.procs.push(Proc {
            node: q,
            kind: q.kind,
            name: q.name.clone(),
            name_span: q.name_span,
            host_decls: host_decls.clone(),
            host_implicit_none: implicit_none,
            host_module: host_module.clone(),
            host_proc: Some(p.name.to_ascii_lowercase()),
        });
    }
}
