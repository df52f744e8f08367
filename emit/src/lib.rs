//! # adjc-emit: the C11 + OpenMP backend
//!
//! Turns IR functions into one `.c` file and one `.h` file following the conventions of
//! README.md ("What the generated code looks like"): source names, a comment quoting the source
//! line above each statement group, OpenMP where the work pays for it (`omp`: through the
//! runtime's `ADJC_OMP` macro, so the code also builds warning-free without OpenMP; work
//! estimates in `work`), work arrays allocated up front, `int` status returns, and no line
//! wider than 100 columns (`wrap`).
//!
//! Modules: [`names`] (C identifiers), `cexpr` (expressions), `cstmt` (statements), `omp`
//! (OpenMP placement and declaration scopes), `work` (work estimates), `layout` (index macros), `doc` (header
//! comments), `function` (one function's pieces), `templates` (file layout).

mod blas;
mod cexpr;
mod cstmt;
mod ctx;
mod doc;
mod error;
mod formula;
mod fortran_iface;
mod fortran_wrap;
mod function;
mod layout;
pub mod names;
mod note;
mod nowait;
mod omp;
mod python_module;
mod reserved;
mod sizes;
mod slabs;
mod sum_tiles;
mod templates;
mod work;
pub mod wrap;
mod zero;

pub use cexpr::{float_literal, int_literal};
pub use error::EmitError;
pub use fortran_iface::emit_fortran_interface;
pub use fortran_iface::fortran_stem as fortran_module_stem;
pub use fortran_wrap::{emit_fortran_wrappers, WrapCommon, WrapDummy, WrapOrigin, WrapPart, WrapSpec, WrapState};
pub use python_module::emit_python_module;
pub use templates::render_template;

use adjc_ir::{Diagnostic, Function, Module};

/// `runtime-c/adjc_runtime.h`, which every generated `.c` file includes; the command line
/// writes it next to the generated files (or the build adds `-I runtime-c`).
pub const RUNTIME_HEADER: &str = include_str!("../../runtime-c/adjc_runtime.h");

/// `runtime-c/adjc_blas.h`, included by generated files that call BLAS (matrix products):
/// it maps the `cblas_*` calls to `<cblas.h>` (`-DADJC_BLAS=cblas`), `<mkl.h>`
/// (`-DADJC_BLAS=mkl`) or adjc's portable fallback (default). Written next to the
/// generated files like [`RUNTIME_HEADER`].
pub const BLAS_HEADER: &str = include_str!("../../runtime-c/adjc_blas.h");

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EmitOptions {
    /// Stem of the file names: `<stem>.c`, `<stem>.h`.
    pub stem: String,
    /// First lines of both files (adjc version, source, command line).
    pub header_comment: Vec<String>,
    /// More lines of the `.c`'s first comment only (the inputs' hashes): an edit of the
    /// source that changes no declaration leaves the `.h` untouched.
    pub source_comment: Vec<String>,
    /// Functions made for a memory plan: they return `ADJC_ERR_PLAN` when called with
    /// sizes beyond those the plan was made for.
    pub size_guards: Vec<SizeGuard>,
    /// `#line N "file.py"` before each block of statements (see [`cstmt::Quote`]).
    pub line_directives: bool,
}

/// The sizes a memory plan was made for: memory grows with every size, so the plan's peak
/// holds for any call whose sizes are at most these.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SizeGuard {
    /// The IR name of the guarded function.
    pub function: String,
    /// Integer parameters and their planned values.
    pub max: Vec<(String, i64)>,
    /// What the plan promises (`peak 12 KiB under a limit of 16 KiB`), for the comment.
    pub plan: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CFiles {
    pub c: String,
    pub h: String,
    /// The functions the header declares, in order: what bindings for another language
    /// (adjc-build's Rust bindings) need besides the IR.
    pub prototypes: Vec<Prototype>,
}

/// One function of the header: its C name, its parameters in order, and the comment above
/// it (without the comment markers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prototype {
    pub name: String,
    pub params: Vec<PrototypeParam>,
    pub doc: Vec<String>,
}

/// A parameter of a [`Prototype`]: its C name and C type (`int64_t`, `double`, `double *`,
/// `const float *`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrototypeParam {
    pub name: String,
    pub c_type: String,
}

/// Writes `functions` (all from `module`) as one C source file and its header.
pub fn emit_c(module: &Module, functions: &[&Function], opts: &EmitOptions) -> Result<CFiles, EmitError> {
    let quote = cstmt::Quote::new(module, opts.line_directives);
    let mut views = Vec::new();
    let mut renames: Vec<String> = Vec::new();
    let mut fn_names: Vec<String> = Vec::new();
    for f in functions {
        let (cname, why) = names::c_identifier(&f.name);
        if fn_names.contains(&cname) {
            return Err(Diagnostic::error(f.span, format!("two functions would both be called `{cname}` in C"))
                .with_help("rename one of them")
                .into());
        }
        if let Some(why) = why {
            renames.push(names::Rename { from: f.name.clone(), to: cname.clone(), why }.describe());
        }
        let guard = opts.size_guards.iter().find(|g| g.function == f.name);
        let view = function::build(&quote, f, &cname, guard)?;
        for r in &view.renames {
            let text = r.describe();
            if !renames.contains(&text) {
                renames.push(text);
            }
        }
        fn_names.push(cname);
        views.push(view);
    }
    let banner_of = |lines: &mut dyn Iterator<Item = &String>| {
        let mut banner: Vec<String> = lines.map(|l| comment_line(l)).collect();
        if !banner.is_empty() {
            banner.push(" *".into());
        }
        banner.push(" * Generated by adjc: do not edit.".into());
        banner
    };
    let h_banner = banner_of(&mut opts.header_comment.iter());
    let c_banner = banner_of(&mut opts.header_comment.iter().chain(&opts.source_comment));
    let guard = format!("ADJC_{}_H", guard_part(&opts.stem));
    let uses_blas = functions.iter().any(|f| {
        let mut any = false;
        adjc_ir::walk_stmts(&f.body, &mut |s| any |= matches!(s.kind, adjc_ir::StmtKind::Call(_)));
        any
    });
    let (c, h) = templates::render(&c_banner, &h_banner, &opts.stem, &guard, &renames, &views, uses_blas)?;
    let prototypes = views.iter().map(|v| v.prototype.clone()).collect();
    let c = cstmt::resolve_line_resets(&wrap::wrap_c(&c), &format!("{}.c", opts.stem));
    Ok(CFiles { c, h: wrap::wrap_c(&h), prototypes })
}

/// The C identifier of every variable of `f` (index = `VarId`), after renaming collisions
/// with C keywords, library names and the runtime's `adjc_` prefix.
pub fn c_names(f: &Function) -> Vec<String> {
    names::assign(f).vars
}

fn comment_line(text: &str) -> String {
    let t = cstmt::comment_text(text);
    if t.trim().is_empty() {
        " *".into()
    } else {
        format!(" * {t}")
    }
}

/// `jacobi-1d.v2` → `JACOBI_1D_V2`.
fn guard_part(stem: &str) -> String {
    let s: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    if s.is_empty() {
        "OUT".into()
    } else {
        s
    }
}
