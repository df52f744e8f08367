//! The Fortran frontend: the text of one or more files is assembled (`source`: the C
//! preprocessor's output read back through its line markers, `include` lines expanded,
//! fixed form converted by `fixed`, every line keeping its file and line) →
//! tree-sitter-fortran parse and syntax errors (`syntax`) → an owned, spanned syntax tree
//! (`parse` builds the `ast` once; no other module knows tree-sitter's node kinds) →
//! derived types lowered to their components (`derived`, a rewrite of the tree) → program
//! units (`scan`) → declarations (`decl`) → one IR function for the entry
//! procedure (`lower` signature and variables, `stmt` statements, `expr` expressions and
//! array sections, `intrinsics` elemental and array intrinsics, `blas` `matmul`/
//! `dot_product` as library calls, `inline` calls of procedures of the same files, which
//! lower the callee's tree again at each call). Reading the files is `load`'s job (with the
//! preprocessor injected); the lowering itself stays pure: it takes the texts and an
//! `include` resolver.
//!
//! Supported: free-form and fixed-form source, case-insensitive; subroutines and
//! functions at top level, in modules (of any of the files) and after `contains`; `use`
//! with `only:` lists and renames of constants; `implicit none` (else the
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
//! array expressions, array-valued functions into a work array); array constructors with implied-do items
//! (`constructor`, a work array); derived types (`derived`: one variable per component).
//! Timers and profiling
//! hooks (`cpu_time`, `system_clock`, `dr_hook`, ...) and `print`/`write` of text only
//! are left out, with a note. Intrinsics: elemental math, `max`/`min` with
//! any number of arguments, `mod`, `sign`, conversions, `sum`, `product`, `maxval`,
//! `minval`, `dot_product`, `matmul` (library calls where `blas` can, else loops),
//! `transpose`, `size`, `merge`, `huge`, `tiny`, `epsilon`, `kind`, `selected_real_kind`.
//!
//! COMMON members and module variables the routine uses become extra parameters (`state`).
//! `if (lhook) call dr_hook(...)` is left out whole, output statements and `character`
//! variables too (text: any use in the computation is an error). Names are lower case
//! unless `keep_case`. Forward `goto`s are structured exits
//! (`returns`); computed `goto` a jump table of `if`s (`computed_goto`); a backward
//! `goto` closing a loop a `do` left by `exit` (`backward_goto`); `data`
//! statements (`data`), statement functions (`stmt_fn`). Internal procedures, generic
//! interfaces and `elemental` subroutines on arrays are inlined (`inline`); `forall` is
//! `do concurrent` per assignment (`stmt`).
//!
//! Integer scalar arguments are sizes (`i64`, by value). Loop indices are the source's
//! (1-based loops stay 1-based); names keep their spelling.
//!
//! Not supported (diagnosed with a location): calls to routines outside the files,
//! other backward and assigned `goto`s, `equivalence`, pointers,
//! allocatable arguments, assumed-size arrays, polymorphic and allocatable derived-type
//! variables, array-valued functions as the entry, allocatable module variables, `read`.

pub mod ast;
mod backward_goto;
mod blas;
mod computed_goto;
mod constructor;
mod continued;
mod data;
mod decl;
pub mod derived;
mod expr;
mod fixed;
mod inline;
mod intrinsics;
mod jumps;
mod keywords;
mod load;
mod lower;
mod parse;
mod returns;
mod scan;
mod source;
mod state;
mod stmt;
mod stmt_fn;
mod syntax;

use adjc_ir::{Diagnostic, Module, Span};
pub use load::{
    find_include, is_fixed_form, load_sources, needs_cpp, LoadOptions, Loaded, PreprocessFailure, Preprocessor,
};
use source::Assembled;
pub use source::{FortranSource, IncludeResolver, SourceError};
pub use state::{CommonLayout, CommonMember, FortranState, Origin, StateParam};

/// Options of the Fortran frontend.
#[derive(Clone, Debug, Default)]
pub struct FortranOptions {
    /// The procedure to compile (case-insensitive); default: the only one, else the last.
    pub entry: Option<String>,
    /// Fixed-form source (`.f`, `.for`): converted to free form before parsing.
    pub fixed_form: bool,
    /// Keep the source's spelling of names (`RELAX`) in the IR and the C; by default they
    /// are lower case (`relax`, `relax_b`), as gfortran names its symbols.
    pub keep_case: bool,
}

const STACK_SIZE: usize = 256 << 20;

/// Lowers the entry procedure of a Fortran file to an IR module holding that one
/// function. Never panics: a crash of the worker becomes an internal-error diagnostic.
/// `include` lines are not resolved here (see [`lower_fortran_sources`]).
pub fn lower_fortran(file: &str, source: &str, opts: &FortranOptions) -> Result<Module, Diagnostic> {
    let src = FortranSource {
        name: file.into(),
        text: source.into(),
        preprocessed: false,
        fixed_form: opts.fixed_form,
        original: None,
    };
    let no_include = |_: &str, _: &str| {
        Err("`lower_fortran` reads one file; `lower_fortran_sources` takes an include resolver".into())
    };
    lower_fortran_sources(&[src], opts, &no_include).map_err(|e| e.diag)
}

/// Lowers the entry procedure found in several files (modules may live in any of them) to
/// an IR module. `opts.fixed_form` is not used: each source says its form. The default
/// entry is the last procedure of the first file. Spans of the result point at the file
/// holding the entry (which becomes the module's `file` and `source`); errors carry the
/// file they point into.
pub fn lower_fortran_sources(
    sources: &[FortranSource],
    opts: &FortranOptions,
    include: &IncludeResolver,
) -> Result<Module, SourceError> {
    lower_fortran_full(sources, opts, include).map(|l| l.module)
}

/// What lowering the entry gives besides its IR: how the original dummy arguments reach
/// the function's parameters (a derived-type dummy becomes several, see [`derived`]) and
/// the routine's state (the parameters that stand for COMMON members and module variables,
/// and the layout of its COMMON blocks: what a Fortran program calling the original
/// routine must declare).
#[derive(Clone, Debug)]
pub struct Lowered {
    pub module: Module,
    pub bindings: derived::Bindings,
    pub state: FortranState,
}

/// [`lower_fortran_sources`], with the entry's [`derived::Bindings`].
pub fn lower_fortran_bound(
    sources: &[FortranSource],
    opts: &FortranOptions,
    include: &IncludeResolver,
) -> Result<(Module, derived::Bindings), SourceError> {
    lower_fortran_full(sources, opts, include).map(|l| (l.module, l.bindings))
}

/// [`lower_fortran_sources`], with the routine's [`FortranState`].
pub fn lower_fortran_sources_with_state(
    sources: &[FortranSource],
    opts: &FortranOptions,
    include: &IncludeResolver,
) -> Result<(Module, FortranState), SourceError> {
    lower_fortran_full(sources, opts, include).map(|l| (l.module, l.state))
}

/// [`lower_fortran_sources`], with everything lowering knows of the entry ([`Lowered`]).
pub fn lower_fortran_full(
    sources: &[FortranSource],
    opts: &FortranOptions,
    include: &IncludeResolver,
) -> Result<Lowered, SourceError> {
    let asm = std::sync::Arc::new(source::assemble(sources, include)?);
    let (asm_w, entry) = (asm.clone(), opts.entry.clone());
    let worker = std::thread::Builder::new()
        .name("adjc-fortran-frontend".into())
        .stack_size(STACK_SIZE)
        .spawn(move || lower_here(&asm_w, entry.as_deref()));
    let result = match worker {
        Ok(handle) => match handle.join() {
            Ok(r) => r,
            Err(_) => Err(Diagnostic::internal(Span::NONE, "the Fortran frontend crashed on this input")
                .with_help("please report this together with the source file")),
        },
        Err(_) => lower_here(&asm, opts.entry.as_deref()),
    };
    let (mut f, file, mut bindings, mut state) = result.map_err(|d| asm.locate(d))?;
    asm.remap_function(&mut f, file);
    if !opts.keep_case {
        lower_case_names(&mut f, &mut state, &mut bindings);
    }
    let given = asm.source_files.iter().position(|k| *k == file).and_then(|k| sources[k].original.clone());
    let source = given.unwrap_or_else(|| asm.files[file].text());
    let continued = continued::continued(&asm, file);
    let module = Module { file: asm.files[file].name.clone(), source, functions: vec![f], continued };
    Ok(Lowered { module, bindings, state })
}

/// Fortran names are case-insensitive: the function and its variables are named in lower
/// case (what gfortran's users expect of symbols: `relax_b`, not `RELAX_b`). No two
/// variables differ only in case (all spellings of a Fortran name are one variable, and
/// generated names avoid every source name whatever its case); variables with one name
/// (the index variables of separate loops) keep sharing it. The bindings and the state
/// name the same variables.
fn lower_case_names(f: &mut adjc_ir::Function, state: &mut FortranState, bindings: &mut derived::Bindings) {
    f.name = f.name.to_ascii_lowercase();
    for v in f.vars.iter_mut() {
        v.name = v.name.to_ascii_lowercase();
    }
    for p in state.params.iter_mut() {
        p.name = p.name.to_ascii_lowercase();
    }
    for m in state.commons.iter_mut().flat_map(|c| c.members.iter_mut()) {
        m.param = m.param.as_ref().map(|p| p.to_ascii_lowercase());
    }
    for d in bindings.dummies.iter_mut() {
        match d {
            derived::DummyBinding::Plain(name) => *name = name.to_ascii_lowercase(),
            derived::DummyBinding::Derived(dd) => {
                for part in dd.parts.iter_mut() {
                    part.param = part.param.to_ascii_lowercase();
                }
            }
        }
    }
}

/// The entry's function (spans into the assembled text), the index of its file, its
/// bindings and its state.
type LoweredHere = (adjc_ir::Function, usize, derived::Bindings, FortranState);

fn lower_here(asm: &Assembled, entry: Option<&str>) -> Result<LoweredHere, Diagnostic> {
    let source = asm.text.as_str();
    let main = asm.source_files.first().copied().unwrap_or(0);
    let main_name = asm.files.get(main).map(|f| f.name.as_str()).unwrap_or("");
    let tree = syntax::parse(source)?;
    let root = tree.root_node();
    if let Some(bad) = syntax::first_error(root) {
        return Err(syntax::syntax_error(source, bad));
    }
    if let Some(d) = syntax::structure_error(source, root) {
        return Err(d);
    }
    let mut file = parse::parse_file(source, root);
    computed_goto::rewrite(&mut file);
    backward_goto::rewrite(&mut file);
    keywords::positional(&mut file);
    let (bindings, derived_errors, components) = derived::lower_file(&mut file);
    let mut unit = scan::scan(&file)?;
    unit.module_components = components;
    let file_of = |p: &scan::Proc| asm.origin(p.name_span.line).map(|o| o.file);
    if unit.procs.is_empty() {
        return Err(Diagnostic::error(Span::NONE, format!("no subroutine or function found in `{main_name}`"))
            .with_help("adjc compiles a Fortran file containing at least one subroutine or function"));
    }
    let entry = match entry {
        Some(name) => unit.find(name).ok_or_else(|| {
            let names: Vec<String> = unit.procs.iter().map(|p| format!("`{}`", p.name)).collect();
            let files = if asm.source_files.len() > 1 { "these files" } else { "this file" };
            Diagnostic::error(Span::NONE, format!("procedure `{name}` not found in `{main_name}`"))
                .with_help(format!("procedures in {files}: {}", names.join(", ")))
        })?,
        None => unit
            .procs
            .iter()
            .rev()
            .find(|p| file_of(p) == Some(main) && p.host_proc.is_none())
            .or(unit.procs.last())
            .ok_or_else(|| Diagnostic::error(Span::NONE, "no procedure"))?,
    };
    let entry_key = entry.name.to_ascii_lowercase();
    if let Some(d) = derived_errors.get(&entry_key) {
        return Err(d.clone());
    }
    let bindings = bindings.get(&entry_key).cloned().unwrap_or_default();
    let (mut f, state) = lower::lower_proc(source, &unit, entry)?;
    // Every index inside its declared bounds: checked on entry, or an error when it never is.
    let checks = crate::bounds::index_checks(&f)?;
    for c in checks {
        if !f.assumptions.iter().any(|a| crate::bounds::same_check(a, &c)) {
            f.assumptions.push(c);
        }
    }
    crate::bounds::prune_checks(&mut f);
    // Loops and maps are numbered in source order ("Identities" in adjc_ir).
    adjc_ir::proc::ids::settle(&mut f.body);
    if let Err(e) = adjc_ir::validate::validate(&f) {
        return Err(Diagnostic::internal(e.span, format!("the Fortran frontend produced invalid IR: {}", e.message))
            .with_help("please report this together with the source file"));
    }
    Ok((f, file_of(entry).unwrap_or(main), bindings, state))
}
