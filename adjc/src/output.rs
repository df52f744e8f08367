//! What one transpilation produces ([`Transpiled`]), before anything is written: the IR of
//! both functions, the C and the header, the reports, the notes; and writing them.

use std::path::{Path, PathBuf};

use adjc_autodiff::Adjoint;
use adjc_emit::{CFiles, EmitOptions};
pub use adjc_frontend::fortran::derived::Bindings as FortranBindings;
use adjc_ir::Module;

use crate::error::{Error, Stage};
use crate::memory::MemoryPlan;
pub use crate::write::Written;

/// The runtime header every generated `.c` includes; written next to it.
pub const RUNTIME_HEADER: &str = adjc_emit::RUNTIME_HEADER;
pub const RUNTIME_HEADER_NAME: &str = "adjc_runtime.h";
/// The BLAS selection header (`-DADJC_BLAS=cblas|mkl`, else adjc's fallback), included by
/// generated files with matrix products; written next to them like the runtime header.
pub const BLAS_HEADER: &str = adjc_emit::BLAS_HEADER;
pub const BLAS_HEADER_NAME: &str = "adjc_blas.h";

/// Format of the memory-plan report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Text,
    Json,
}

/// Everything one transpilation produces, before anything is written.
#[derive(Clone, Debug)]
pub struct Transpiled {
    /// The forward function as it is written (`functions[0]`), with the source's file name
    /// and text.
    pub module: Module,
    /// The adjoint, with what it saves and recomputes.
    pub adjoint: Adjoint,
    /// `<stem>.c` and `<stem>.h`.
    pub files: CFiles,
    /// Base name of the files.
    pub stem: String,
    /// The source files (Fortran: the files given, then the module files found for `use`).
    pub sources: Vec<PathBuf>,
    /// Every file read: `sources`, then the files the C preprocessor included and the
    /// Fortran `include` files; what [`Transpiled::depfile`] lists.
    pub dependencies: Vec<PathBuf>,
    /// `(sha256 in hex, path)` of every file read (of the source text given in memory),
    /// recorded in the generated files' header comment for `adjc check-stale`.
    pub input_hashes: Vec<(String, String)>,
    /// The memory plan applied to the adjoint ([`crate::MemoryOptions`]).
    pub memory: Option<MemoryPlan>,
    /// The command line quoted in the header comments.
    pub command_line: Option<String>,
    /// Fortran: how the routine's original dummy arguments reach the C parameters (a
    /// derived-type dummy is several); `None` for Python.
    pub fortran_bindings: Option<FortranBindings>,
    /// Fortran: the parameters that stand for COMMON members and module variables, and
    /// the COMMON layouts (empty for Python).
    pub fortran_state: adjc_frontend::fortran::FortranState,
    /// The entry function's name in the source (the C names carry `--prefix` before it).
    pub routine: String,
}

impl Transpiled {
    /// The C source: the forward function and its adjoint.
    pub fn c(&self) -> &str {
        &self.files.c
    }

    /// The header declaring both functions.
    pub fn h(&self) -> &str {
        &self.files.h
    }

    /// The forward function (as emitted).
    pub fn primal(&self) -> &adjc_ir::Function {
        &self.module.functions[0]
    }

    /// What the stages want the reader to know that is not an error (an input that does not
    /// influence the outputs, what each tape costs, the memory plan, a statement left out):
    /// the notes of both functions, in order.
    pub fn notes(&self) -> Vec<&str> {
        self.primal().notes.iter().chain(&self.adjoint.function.notes).map(String::as_str).collect()
    }

    /// The IR of the forward function and of its adjoint (`--emit ir`).
    pub fn ir_text(&self) -> String {
        let mut out = adjc_ir::print::print_module(&self.module);
        out.push('\n');
        out.push_str(&adjc_ir::print::print_function(&self.adjoint.function));
        out
    }

    /// The tape report (`--report`): one line per tape (name, element type, element count
    /// as a formula of the sizes, what it saves and why), then the values recomputed.
    pub fn tape_report(&self) -> String {
        crate::report::tapes(&self.module.file, &self.adjoint)
    }

    /// The memory plan's report, when a plan was made.
    pub fn memory_report(&self, format: ReportFormat) -> Option<String> {
        let fname = &self.adjoint.function.name;
        self.memory.as_ref().map(|m| match format {
            ReportFormat::Text => crate::report::memory_text(fname, m),
            ReportFormat::Json => crate::report::memory_json(fname, m),
        })
    }

    /// Writes `<stem>.c`, `<stem>.h` and the runtime headers into `dir`; returns the paths.
    /// A file that already holds its content is not touched; others are replaced atomically
    /// ([`crate::write`]).
    pub fn write_files(&self, dir: &Path) -> Result<Vec<PathBuf>, Error> {
        Ok(self.write_files_noting(dir)?.into_iter().map(|(p, _)| p).collect())
    }

    /// [`Transpiled::write_files`], saying for each file whether it was written or already
    /// held its content.
    pub fn write_files_noting(&self, dir: &Path) -> Result<Vec<(PathBuf, Written)>, Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
        let outputs = [
            (dir.join(format!("{}.c", self.stem)), self.files.c.as_str()),
            (dir.join(format!("{}.h", self.stem)), self.files.h.as_str()),
            (dir.join(RUNTIME_HEADER_NAME), RUNTIME_HEADER),
            (dir.join(BLAS_HEADER_NAME), BLAS_HEADER),
        ];
        outputs.into_iter().map(|(path, text)| write_file(&path, text).map(|w| (path, w))).collect()
    }

    /// A make dependency file (`gcc -MD` style): `targets` (the files written) depend on
    /// every file read ([`Transpiled::dependencies`]), and each of those is an empty target
    /// of its own (like `-MP`) so that deleting an `include` file is not an error.
    pub fn depfile(&self, targets: &[PathBuf]) -> String {
        crate::depfile::render(targets, &self.dependencies)
    }

    /// Writes [`Transpiled::depfile`] to `path` (atomically, unless unchanged), with
    /// `path` itself among the targets, and gives it the time of the newest file read: a
    /// make rule that uses the depfile as its stamp (`adjc.mk`) is then up to date, and is
    /// never newer than the outputs written in the same run (see `adjc.mk`).
    pub fn write_depfile(&self, path: &Path, targets: &[PathBuf]) -> Result<Written, Error> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
        }
        let mut all = targets.to_vec();
        all.push(path.to_path_buf());
        let written = write_file(path, &self.depfile(&all))?;
        let newest =
            self.dependencies.iter().filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok()).max();
        if let Some(time) = newest {
            let set = std::fs::File::options().write(true).open(path).and_then(|f| f.set_modified(time));
            set.map_err(|e| Error::Io(format!("cannot set the time of {}: {e}", path.display())))?;
        }
        Ok(written)
    }

    /// `<stem>_adjc.f90`: a Fortran module with `bind(C)` interfaces to both functions.
    pub fn fortran_interface(&self) -> Result<String, Error> {
        let emit_opts = EmitOptions {
            stem: self.stem.clone(),
            header_comment: header_comment(&self.module.file, self.command_line.as_deref()),
            ..Default::default()
        };
        adjc_emit::emit_fortran_interface(&[self.primal(), &self.adjoint.function], &emit_opts)
            .map_err(|diag| Error::at(Stage::Emit, &self.module.file, &self.module.source, diag))
    }

    /// `<stem>_adjc_wrap.f90`, for a Fortran routine: the drop-in wrappers taking the
    /// routine's original arguments (see `adjc_emit::emit_fortran_wrappers`). `None` for
    /// Python; `Some(Err(why))` when the wrappers cannot pass some argument (an array of
    /// derived types of rank 2, an integer array, a type defined outside a module).
    pub fn fortran_wrappers(&self) -> Option<Result<String, NoWrappers>> {
        let bindings = self.fortran_bindings.as_ref()?;
        let spec = match wrap_spec(bindings, &self.fortran_state, &self.routine, &self.module.source) {
            Ok(spec) => spec,
            Err(why) => return Some(Err(why)),
        };
        let emit_opts = EmitOptions {
            stem: self.stem.clone(),
            header_comment: header_comment(&self.module.file, self.command_line.as_deref()),
            ..Default::default()
        };
        Some(
            adjc_emit::emit_fortran_wrappers(&[self.primal(), &self.adjoint.function], &spec, &emit_opts)
                .map_err(|diag| NoWrappers(diag.message.clone())),
        )
    }

    /// Writes [`Transpiled::fortran_interface`] into `dir` (after [`Transpiled::write_files`]).
    pub fn write_fortran_interface(&self, dir: &Path) -> Result<PathBuf, Error> {
        Ok(self.write_fortran_interface_noting(dir)?.0)
    }

    /// [`Transpiled::write_fortran_interface`], saying whether the file was written.
    pub fn write_fortran_interface_noting(&self, dir: &Path) -> Result<(PathBuf, Written), Error> {
        let text = self.fortran_interface()?;
        let path = dir.join(format!("{}_adjc.f90", self.stem));
        let written = write_file(&path, &text)?;
        Ok((path, written))
    }

    /// Writes [`Transpiled::fortran_wrappers`] into `dir` (Fortran sources only). When the
    /// wrappers cannot be made, the module is written without procedures, saying why in a
    /// comment (a build that compiles it keeps working), and the reason is returned too.
    pub fn write_fortran_wrappers_noting(
        &self,
        dir: &Path,
    ) -> Result<Option<(PathBuf, Written, Option<String>)>, Error> {
        let Some(result) = self.fortran_wrappers() else { return Ok(None) };
        let (text, why) = match result {
            Ok(text) => (text, None),
            Err(NoWrappers(why)) => (self.empty_wrappers(&why), Some(why)),
        };
        let path = dir.join(format!("{}_adjc_wrap.f90", self.stem));
        let written = write_file(&path, &text)?;
        Ok(Some((path, written, why)))
    }

    fn empty_wrappers(&self, why: &str) -> String {
        let stem = adjc_emit::fortran_module_stem(&self.stem);
        let mut out: Vec<String> = header_comment(&self.module.file, self.command_line.as_deref())
            .into_iter()
            .map(|l| if l.is_empty() { "!".to_string() } else { format!("! {l}") })
            .collect();
        out.push("!".into());
        out.push("! Generated by adjc: do not edit.".into());
        out.push("!".into());
        out.push(format!("! No drop-in wrappers for {}: {why}.", self.routine));
        out.push(format!("! Call the `bind(C)` interfaces of module {stem}_adjc instead."));
        out.push(format!("module {stem}_adjc_wrap"));
        out.push("  implicit none".into());
        out.push(format!("end module {stem}_adjc_wrap"));
        out.join("\n") + "\n"
    }
}

/// Why the drop-in wrappers of a Fortran routine cannot be made (an array of derived types of
/// rank 2, a type defined outside a module, ...): not a failure of the pipeline, the module is
/// written without procedures and the comment in their place says this.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NoWrappers(pub String);

/// The wrappers' view of the routine: its dummies (derived types with the components the C
/// takes, `character` dummies), the COMMON members and module variables among the C
/// parameters, and the integer kinds it declares. `Err(why)` for what the wrappers cannot
/// pass: derived-type dummies of rank 2 or more, arrays of types inside types, a type
/// defined outside a module.
fn wrap_spec(
    b: &FortranBindings,
    state: &adjc_frontend::fortran::FortranState,
    routine: &str,
    source: &str,
) -> Result<adjc_emit::WrapSpec, NoWrappers> {
    use adjc_emit::{WrapCommon, WrapDummy, WrapOrigin, WrapPart, WrapSpec, WrapState};
    use adjc_frontend::fortran::derived::{DummyBinding, PartKind};
    use adjc_frontend::fortran::Origin;
    let mut spec = WrapSpec {
        routine: routine.to_string(),
        int_kinds: crate::fortran_kinds::integer_kinds(source, routine),
        ..Default::default()
    };
    for (k, d) in b.dummies.iter().enumerate() {
        match d {
            DummyBinding::Plain(name) if state.text_dummies.contains(&k) => {
                spec.dummies.push(WrapDummy::Text(name.clone()))
            }
            DummyBinding::Plain(name) => spec.dummies.push(WrapDummy::Plain(name.clone())),
            DummyBinding::Derived(dd) => {
                if dd.rank > 1 || dd.parts.iter().any(|p| p.level_ranks.iter().skip(1).any(|r| *r > 0)) {
                    return Err(NoWrappers(format!(
                        "`{}` is an array of derived types of rank 2 or more, or holds one",
                        dd.name
                    )));
                }
                let Some(module) = dd.module.clone() else {
                    return Err(NoWrappers(format!("the type of `{}` is not defined in a module", dd.name)));
                };
                let pair = (module, dd.type_name.clone());
                if !spec.uses.contains(&pair) {
                    spec.uses.push(pair);
                }
                let parts = dd
                    .parts
                    .iter()
                    .map(|p| WrapPart {
                        param: p.param.clone(),
                        path: p.path.join("%"),
                        lower_axis: match p.kind {
                            PartKind::LowerBound { axis, .. } => Some(axis),
                            PartKind::Value => None,
                        },
                    })
                    .collect();
                spec.dummies.push(WrapDummy::Derived {
                    name: dd.name.clone(),
                    type_name: dd.type_name.clone(),
                    rank: dd.rank,
                    parts,
                });
            }
        }
    }
    for c in &state.commons {
        spec.commons.push(WrapCommon {
            block: c.block.clone(),
            members: c.members.iter().map(|m| (m.type_decl.clone(), m.bounds.clone())).collect(),
        });
    }
    for sp in &state.params {
        let origin = match &sp.origin {
            Origin::Module { module, var, .. } => WrapOrigin::Module { module: module.clone(), var: var.clone() },
            Origin::Common { block, member } => {
                let found = state.commons.iter().enumerate().find_map(|(b, c)| {
                    if c.block != *block {
                        return None;
                    }
                    c.members.iter().position(|m| m.param.as_deref() == Some(sp.name.as_str())).map(|m| (b, m))
                });
                let Some((block, m)) = found else {
                    return Err(NoWrappers(format!("no layout for the COMMON member `{member}`")));
                };
                WrapOrigin::Common { block, member: m }
            }
        };
        spec.state.push(WrapState { param: sp.name.clone(), origin });
    }
    Ok(spec)
}

impl Transpiled {
    /// `<stem>_adjc.py`: a Python module (ctypes and NumPy) calling both functions from
    /// `lib<stem>_adjc.so` next to it (see `adjc build --python`).
    pub fn python_module(&self) -> Result<String, Error> {
        let names: Vec<String> = self.files.prototypes.iter().map(|p| p.name.clone()).collect();
        let mut banner = header_comment(&self.module.file, self.command_line.as_deref());
        banner.extend(inputs_comment(&self.input_hashes));
        adjc_emit::emit_python_module(&[self.primal(), &self.adjoint.function], &names, &self.stem, &banner)
            .map_err(|diag| Error::at(Stage::Emit, &self.module.file, &self.module.source, diag))
    }

    /// Writes [`Transpiled::python_module`] into `dir`, saying whether the file was written.
    pub fn write_python_module(&self, dir: &Path) -> Result<(PathBuf, Written), Error> {
        let text = self.python_module()?;
        let path = dir.join(format!("{}_adjc.py", self.stem));
        let written = write_file(&path, &text)?;
        Ok((path, written))
    }
}

/// Writes `text` to `path` if it changed, atomically ([`crate::write::write_if_changed`]).
pub(crate) fn write_file(path: &Path, text: &str) -> Result<Written, Error> {
    crate::write::write_if_changed(path, text.as_bytes())
        .map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))
}

/// The header comment of the generated files: adjc's version, the source, the command.
pub(crate) fn header_comment(file: &str, command_line: Option<&str>) -> Vec<String> {
    let mut lines = vec![format!("adjc {}", env!("CARGO_PKG_VERSION")), format!("source: {file}")];
    lines.extend(command_line.map(|c| format!("command: {c}")));
    lines
}

/// The SHA-256 of every input in `sha256sum`'s format (read by `adjc check-stale`): in the
/// implementation files only (`.c`, the Python module), so that interfaces (`.h`, the
/// Fortran module) keep their time when an edit changes no declaration.
pub(crate) fn inputs_comment(inputs: &[(String, String)]) -> Vec<String> {
    if inputs.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![crate::stale::INPUTS_HEADING.to_string()];
    lines.extend(inputs.iter().map(|(hash, path)| format!("  {hash}  {path}")));
    lines
}
