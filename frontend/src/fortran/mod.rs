//! The Fortran frontend: tree-sitter-fortran parse (`syntax`; fixed form is first
//! converted by `fixed`, keeping line numbers and code columns) → program units
//! (`scan`) → declarations (`decl`) → one IR function for the entry procedure (`lower`
//! signature and variables, `stmt` statements, `expr` expressions and array sections,
//! `intrinsics` elemental and array intrinsics, `inline` calls of procedures of the
//! same file).
//!
//! Supported: free-form and fixed-form source, case-insensitive; subroutines and
//! functions at top level, in modules and after `contains`; `implicit none` (else the
//! implicit i-n rule); `real`, `real(4)`, `real(8)`, `real(kind=dp)`, `real*8`,
//! `double precision`, `integer`, `logical`; `parameter` constants (also from modules
//! in the same file, `kind(1.0d0)`, `selected_real_kind`); explicit-shape arrays with
//! lower bounds (`a(0:n+1, m)`), kept column-major with their declared bounds;
//! assumed-shape dummies (`a(:, 0:)`, extents become size parameters `a_n0`, `a_n1`);
//! allocatable locals (shaped by `allocate` from integer arguments, freed at the end);
//! `intent(in/out/inout)` or inferred from use. Statements: assignments to scalars,
//! elements, sections (`x(2:n-1)`, strides) and whole arrays, with Fortran's rule that
//! the right-hand side is evaluated before anything is stored; `do` loops with any
//! constant step (labelled `do 10 ... 10 continue` too); `do concurrent`; `if` /
//! `else if` / `else`; `select case`; `where` / `elsewhere`; calls of subroutines and
//! functions of the same file (inlined; scalar functions also element by element inside
//! array expressions, array-valued functions into a work array). Timers and profiling
//! hooks (`cpu_time`, `system_clock`, `dr_hook`, ...) and `print`/`write` of text only
//! are left out, with a note. Intrinsics: elemental math, `max`/`min` with
//! any number of arguments, `mod`, `sign`, conversions, `sum`, `product`, `maxval`,
//! `minval`, `dot_product`, `matmul` (as loops), `transpose`, `size`, `merge`, `huge`,
//! `tiny`, `epsilon`, `kind`, `selected_real_kind`.
//!
//! Integer scalar arguments are sizes (`i64`, by value). Loop indices are the source's
//! (1-based loops stay 1-based); names keep their spelling.
//!
//! Not supported (diagnosed with a location): the C preprocessor, calls to routines
//! outside the file, `goto`, `exit`, `cycle`, `do while`, `common`, `equivalence`,
//! pointers, allocatable arguments, assumed-size arrays, I/O of data, derived types,
//! array-valued functions as the entry, module variables (only their constants).

mod decl;
mod expr;
mod fixed;
mod inline;
mod intrinsics;
mod lower;
mod scan;
mod stmt;
mod syntax;

use adjc_ir::{Diagnostic, Module, Span};

/// Options of the Fortran frontend.
#[derive(Clone, Debug, Default)]
pub struct FortranOptions {
    /// The procedure to compile (case-insensitive); default: the only one, else the last.
    pub entry: Option<String>,
    /// Fixed-form source (`.f`, `.for`): converted to free form before parsing.
    pub fixed_form: bool,
}

const STACK_SIZE: usize = 256 << 20;

/// Lowers the entry procedure of a Fortran file to an IR module holding that one
/// function. Never panics: a crash of the worker becomes an internal-error diagnostic.
pub fn lower_fortran(file: &str, source: &str, opts: &FortranOptions) -> Result<Module, Diagnostic> {
    let (file_s, source_s, opts_c) = (file.to_string(), source.to_string(), opts.clone());
    let worker = std::thread::Builder::new()
        .name("adjc-fortran-frontend".into())
        .stack_size(STACK_SIZE)
        .spawn(move || lower_here(&file_s, &source_s, &opts_c));
    match worker {
        Ok(handle) => match handle.join() {
            Ok(r) => r,
            Err(_) => Err(Diagnostic::error(Span::NONE, "internal error: the Fortran frontend crashed on this input")
                .with_help("please report this together with the source file")),
        },
        Err(_) => lower_here(file, source, opts),
    }
}

fn lower_here(file: &str, original: &str, opts: &FortranOptions) -> Result<Module, Diagnostic> {
    // Lines (and the columns of code) are preserved by the conversion, so spans into the
    // converted text point at the original source too.
    let converted;
    let source = if opts.fixed_form {
        converted = fixed::to_free_form(original)?;
        converted.as_str()
    } else {
        if let Some((ln, _)) = original.lines().enumerate().find(|(_, l)| l.starts_with('#')) {
            return Err(Diagnostic::error(
                Span { line: ln as u32 + 1, col: 1, start: 0, end: 1 },
                "C preprocessor directives are not supported yet",
            )
            .with_help("preprocess the file first, e.g. `gfortran -E -P file.F90 > file.f90`"));
        }
        original
    };
    let tree = syntax::parse(source)?;
    let root = tree.root_node();
    if let Some(bad) = syntax::first_error(root) {
        return Err(syntax::syntax_error(source, bad));
    }
    let unit = scan::scan(source, root)?;
    if unit.procs.is_empty() {
        return Err(Diagnostic::error(Span::NONE, format!("no subroutine or function found in `{file}`"))
            .with_help("adjc compiles a Fortran file containing at least one subroutine or function"));
    }
    let entry = match &opts.entry {
        Some(name) => unit.find(name).ok_or_else(|| {
            let names: Vec<String> = unit.procs.iter().map(|p| format!("`{}`", p.name)).collect();
            Diagnostic::error(Span::NONE, format!("procedure `{name}` not found in `{file}`"))
                .with_help(format!("procedures in this file: {}", names.join(", ")))
        })?,
        None => unit.procs.last().ok_or_else(|| Diagnostic::error(Span::NONE, "no procedure"))?,
    };
    let f = lower::lower_proc(source, &unit, entry)?;
    if let Err(e) = adjc_ir::validate::validate(&f) {
        return Err(Diagnostic::error(
            e.span,
            format!("internal error: the Fortran frontend produced invalid IR: {}", e.message),
        )
        .with_help("please report this together with the source file"));
    }
    Ok(Module { file: file.to_string(), source: original.to_string(), functions: vec![f] })
}
