//! The pipeline: source → IR → adjoint IR → C, each stage validated. [`Pipeline::run`] is
//! the one place the stages are called, in the order of [`Stage::ALL`]:
//!
//! 1. **frontend**: read the sources (Fortran: preprocess, `include`, module files) and
//!    lower the entry function to IR (`adjc-frontend`); validate.
//! 2. **parallelize**: loops with independent iterations become parallel maps, in the
//!    forward function and, through `reverse`, in the adjoint; validate.
//! 3. **reverse**: the adjoint (`adjc_autodiff::reverse`), with `--checkpoint` schedules; a
//!    map it cannot reverse falls back to the sequential loops.
//! 4. **plan**: with [`crate::MemoryOptions`], choose what to store or recompute, rebuild
//!    around checkpointed loops, verify, apply ([`crate::memory`]).
//! 5. **split**: scatter updates of stencil sweeps become one map per neighbour.
//! 6. **fuse** (opt-in, `--fuse-sweeps`): element-wise forward maps run inside the reverse
//!    map over the same elements.
//! 7. **shadow**: a map's shared additions into one element become a scalar reduction
//!    (`shared_element`); scalar gradients updated in loops accumulate in a local.
//! 8. **simplify**: both functions as they are written (`x * x` for `x ** 2`), repeated calls
//!    of the derivative rules named once (`const double tanh_a = tanh(a[i]);`), reversed
//!    loops with independent iterations run forwards along rows (`loop_order`), loops of
//!    matrix-vector products of fixed matrices become one product (`product_loop`), maps over
//!    columns that walk the rows run in tiles of columns (`column_tiles`), a loop's sum into
//!    one array element accumulates in a local (`element_sum`); validate.
//! 9. **emit**: C source and header (`adjc-emit`).

use std::path::PathBuf;

use crate::output::FortranBindings;
use adjc_autodiff::{AdOptions, Adjoint};
use adjc_emit::EmitOptions;
use adjc_frontend::fortran::{FortranState, LoadOptions, Preprocessor};
use adjc_frontend::{FortranOptions, FortranSource, PythonOptions};
use adjc_ir::{validate, Diagnostic, Function, Module};

use crate::cpp::SystemCpp;
use crate::error::{Error, Stage};
use crate::memory::{plan_memory, MemoryPlan, Planning};
use crate::options::{Input, Language, Options};
use crate::output::{header_comment, inputs_comment, Transpiled};

/// One transpilation: [`Options`] and the C preprocessor to run on Fortran sources.
pub struct Pipeline {
    options: Options,
    cpp: Box<dyn Preprocessor>,
}

impl Pipeline {
    /// A pipeline that runs the system's `cpp` ([`SystemCpp::from_env`]) when a Fortran
    /// source needs preprocessing.
    pub fn new(options: Options) -> Pipeline {
        Pipeline { options, cpp: Box::new(SystemCpp::from_env()) }
    }

    /// Another C preprocessor for Fortran sources.
    pub fn with_preprocessor(mut self, cpp: impl Preprocessor + 'static) -> Pipeline {
        self.cpp = Box::new(cpp);
        self
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Runs every stage. Pure apart from reading the source files (and, for preprocessed
    /// Fortran, running the preprocessor); nothing is written.
    pub fn run(&self) -> Result<Transpiled, Error> {
        let stem = self.options.stem()?;
        let (mut module, sources, dependencies, fortran_bindings, fortran_state) = self.frontend()?;
        // `--prefix` names the C symbols from here on (the adjoint is `<prefix><name>_b`);
        // what calls the source (the NumPy and gfortran references) uses `routine`.
        let prefix = self.options.symbol_prefix()?;
        let routine = module.functions.first().map(|f| f.name.clone()).unwrap_or_default();
        if let Some(f) = module.functions.first_mut() {
            f.name = format!("{prefix}{}", f.name);
        }
        let src = Source { file: module.file.clone(), text: module.source.clone() };
        let sequential = module.functions.first().cloned().ok_or_else(|| {
            src.internal(Stage::Frontend, Diagnostic::error(adjc_ir::Span::NONE, "no function to differentiate"))
        })?;
        let parallel = self.parallelize(&sequential, &src)?;
        let (primal, ad_opts, laid_out) = self.reverse(parallel, sequential, &src)?;
        let planning = Planning { primal: &primal, ad_opts: &ad_opts, laid_out, file: &src.file, text: &src.text };
        let sizes: std::collections::BTreeMap<String, i64> =
            self.options.sizes.iter().map(|(k, v)| (self.source_name(&primal, k), *v)).collect();
        let (mut adjoint, memory) = plan_memory(self.options.memory.as_ref(), &sizes, planning)?;
        // Local adjoints start at zero right before their first use, under the comment of
        // the statement that needs them; a memory plan's arena assumes the start of the
        // reverse sweep, so they stay there under a plan.
        if memory.is_none() {
            adjoint.function = adjc_autodiff::zero_place::place_zero_starts(&adjoint.function);
        }
        // Scatter updates of the adjoint's stencil sweeps become one map per neighbour,
        // without atomics (validated below).
        adjoint.function = adjc_autodiff::split::split_shared_maps(&adjoint.function);
        // Element-wise forward maps run in the reverse map over the same elements: one pass
        // (opt-in: on the 2-core test machine it gained nothing on compute and go_fast, and
        // the fused loop of arc_distance no longer vectorises).
        if self.options.fuse_sweeps {
            adjoint.function = adjc_autodiff::fuse::fuse_sweeps(&adjoint.function);
        }
        // Rank-1 updates of one adjoint matrix (atax's two `ger`s, gemver's fill and two
        // `ger`s) run as one map: one pass over the matrix instead of one per update.
        adjoint.function = adjc_autodiff::rank_update::merge_rank_updates(&adjoint.function);
        // A zero-filled local adjoint whose first update is a map adding into each element
        // once: the map assigns and the fill goes (one pass fewer over the array).
        adjoint.function = adjc_autodiff::fill_merge::merge_fills(&adjoint.function);
        // Shared additions of a map into one element (`R_b[k, j]` from every row) are a
        // scalar reduction, not one `omp atomic` per iteration.
        adjoint.function = adjc_autodiff::shared_element::reduce_shared_elements(&adjoint.function);
        // Scalar gradients updated in loops (`*alpha_b += ...`) accumulate in a
        // register-friendly local and are written back once.
        adjoint.function = adjc_autodiff::shadow::shadow_scalar_outputs(&adjoint.function);
        // Both functions as they are written: `x * x` for `x ** 2`, signs folded into sums.
        adjoint.function = adjc_autodiff::algebra::simplify_function(&adjoint.function);
        // Repeated calls of the derivative rules (`tanh(u)` twice in `1 - tanh(u)^2`) named once.
        adjoint.function = adjc_autodiff::cse::name_common_subexpressions(&adjoint.function);
        // Reversed loops whose iterations are independent run forwards, nests along rows.
        adjoint.function = adjc_autodiff::loop_order::order_loops(&adjoint.function);
        // Zero-filled reductions into rows (broadcast-sums: conv2d) run with the row's
        // unit-stride axis innermost, in the forward function and the adjoint's forward sweep.
        adjoint.function = adjc_autodiff::reduction_order::order_reductions(&adjoint.function);
        // Zero fills nobody reads (a local adjoint zeroed before it is freed) dropped; the
        // first addition into a zero-filled adjoint becomes an assignment (gemm: β = 0).
        adjoint.function = adjc_autodiff::zero_fill::drop_redundant_zeroing(&adjoint.function);
        // Scalings and copies next to a product done by the call itself: `tmp = alpha * A`,
        // `dot = tmp @ B`, `C = dot + beta * C` is one gemm with alpha and beta into C.
        adjoint.function = adjc_autodiff::product_fold::fold_products(&adjoint.function);
        module.functions[0] = adjc_autodiff::algebra::simplify_function(&primal);
        module.functions[0] = adjc_autodiff::reduction_order::order_reductions(&module.functions[0]);
        module.functions[0] = adjc_autodiff::rank_update::merge_rank_updates(&module.functions[0]);
        module.functions[0] = adjc_autodiff::fill_merge::merge_fills(&module.functions[0]);
        module.functions[0] = adjc_autodiff::product_fold::fold_products(&module.functions[0]);
        // Loops of matrix-vector products of fixed matrices become one matrix product before
        // the loop, in the forward function and in the adjoint's forward sweep (not under a
        // memory plan: it does not count the product's work array).
        module.functions[0] = adjc_autodiff::product_loop::batch_products(&module.functions[0]);
        if memory.is_none() {
            adjoint.function = adjc_autodiff::product_loop::batch_products(&adjoint.function);
        }
        // One-iteration loops (`keepdims` axes) are written as their body.
        module.functions[0] = adjc_autodiff::unit_loops::drop_unit_loops(&module.functions[0]);
        adjoint.function = adjc_autodiff::unit_loops::drop_unit_loops(&adjoint.function);
        // `s_b = 0; s_b += e` as `s_b = e`; a local scalar's zeroing after its last use dropped.
        adjoint.function = adjc_autodiff::zero_then_add::merge_zero_then_add(&adjoint.function);
        // Maps over columns that walk the rows (`np.mean(x, axis=0)` and its adjoint) run in
        // tiles of columns, along rows inside a tile.
        module.functions[0] = adjc_autodiff::column_tiles::tile_column_sweeps(&module.functions[0]);
        adjoint.function = adjc_autodiff::column_tiles::tile_column_sweeps(&adjoint.function);
        // A loop's sum into one array element (conv2d's adjoint: a dot over the output
        // channels into each input pixel) accumulates in a local: a vector reduction, not an
        // add chain through memory. After the
        // column tiles: a column sum in tiles runs along rows and needs no local.
        module.functions[0] = adjc_autodiff::element_sum::sum_in_locals(&module.functions[0]);
        adjoint.function = adjc_autodiff::element_sum::sum_in_locals(&adjoint.function);
        // Consecutive maps of one statement over the same elements (a tape save and the
        // update it saves for, a restore and the adjoints after it) run as one pass; last, so
        // that the passes above still see the single maps they recognise. Not under a memory
        // plan: its arena may lay two arrays of disjoint lifetimes over the same bytes, and
        // the pass tells arrays apart by their variables.
        if memory.is_none() {
            adjoint.function = adjc_autodiff::map_fusion::fuse_adjacent_maps(&adjoint.function);
        }
        validate::validate(&adjoint.function).map_err(|e| src.invalid(Stage::Simplify, e))?;
        validate::validate(&module.functions[0]).map_err(|e| src.invalid(Stage::Simplify, e))?;
        let input_hashes = crate::stale::input_hashes(&dependencies, &self.options.input);
        let files = self.emit(&module, &adjoint, memory.as_ref(), &stem, &src, &input_hashes)?;
        let command_line = self.options.command_line.clone();
        Ok(Transpiled {
            module,
            adjoint,
            files,
            stem,
            sources,
            dependencies,
            memory,
            command_line,
            fortran_bindings,
            fortran_state,
            input_hashes,
            routine,
        })
    }

    /// Stage 1: the entry function as IR (validated), the source files given or found for
    /// `use`, and every file read (those, `include` files, cpp `#include`s); for Fortran,
    /// how the original dummies reach the parameters, and the routine's COMMON and module
    /// state.
    #[allow(clippy::type_complexity)]
    fn frontend(&self) -> Result<(Module, Vec<PathBuf>, Vec<PathBuf>, Option<FortranBindings>, FortranState), Error> {
        let o = &self.options;
        let language = o.language()?;
        let mut state = FortranState::default();
        let (module, paths, read, bindings) = match language {
            Language::Python => {
                let several = matches!(&o.input, Input::Files(f) if f.len() > 1);
                if several || !o.defines.is_empty() || !o.include_dirs.is_empty() {
                    return Err(Error::Usage(
                        "several files, -D and -I are for Fortran sources; a Python kernel is one file".into(),
                    ));
                }
                let (file, text) = match &o.input {
                    Input::Files(paths) => adjc_frontend::read_source(&paths[0])?,
                    Input::Text { name, text } => (name.clone(), text.clone()),
                };
                let opts = PythonOptions { entry: o.entry.clone(), arg_specs: o.arg_types.clone() };
                let module = adjc_frontend::lower_python(&file, &text, &opts)
                    .map_err(|d| Error::at(Stage::Frontend, &file, &text, d))?;
                (module, self.paths(), self.paths(), None)
            }
            Language::Fortran => {
                if !o.arg_types.is_empty() {
                    return Err(Error::Usage(
                        "--arg is for Python sources; Fortran declarations give every type and shape".into(),
                    ));
                }
                let load = LoadOptions { defines: o.defines.clone(), include_dirs: o.include_dirs.clone() };
                let (inputs, paths, cpp_included) = match &o.input {
                    Input::Files(files) => {
                        let loaded = adjc_frontend::fortran::load_sources(files, &load, self.cpp.as_ref())?;
                        (loaded.sources, loaded.paths, loaded.cpp_included)
                    }
                    Input::Text { name, text } => {
                        let path = std::path::Path::new(name);
                        if adjc_frontend::fortran::needs_cpp(path, text) {
                            return Err(Error::Usage(format!(
                                "{name} needs the C preprocessor (a `.F90`/`.F` name or `#` directives): \
                                 give it as a file (Input::Files), which is preprocessed"
                            )));
                        }
                        let fixed_form = adjc_frontend::fortran::is_fixed_form(path);
                        let source = FortranSource {
                            name: name.clone(),
                            text: text.clone(),
                            preprocessed: false,
                            fixed_form,
                            original: None,
                        };
                        (vec![source], Vec::new(), Vec::new())
                    }
                };
                let opts = FortranOptions { entry: o.entry.clone(), fixed_form: false, keep_case: o.keep_case };
                let dirs = o.include_dirs.clone();
                // Every `include` file found, for the dependency list.
                let included = std::cell::RefCell::new(Vec::<PathBuf>::new());
                let resolve = |name: &str, from: &str| {
                    let found = adjc_frontend::fortran::find_include(name, from, &dirs)?;
                    included.borrow_mut().push(PathBuf::from(&found.0));
                    Ok(found)
                };
                let lowered = adjc_frontend::fortran::lower_fortran_full(&inputs, &opts, &resolve)
                    .map_err(|e| Error::at(Stage::Frontend, &e.file, &e.source, e.diag))?;
                let (module, bindings) = (lowered.module, lowered.bindings);
                state = lowered.state;
                let mut read = paths.clone();
                for p in cpp_included.into_iter().chain(included.into_inner()) {
                    if !read.contains(&p) {
                        read.push(p);
                    }
                }
                (module, paths, read, Some(bindings))
            }
        };
        validate::validate_module(&module).map_err(|e| {
            Source { file: module.file.clone(), text: module.source.clone() }.invalid(Stage::Frontend, e)
        })?;
        Ok((module, paths, read, bindings, state))
    }

    /// A name the user gave (`--wrt X`, `--sizes N=8`) as the function's variable it means:
    /// Fortran is case-insensitive, so `x` names `X` (and, as the C is lower case by
    /// default, `X` names `x`). Python names and names that match nothing stay as given.
    fn source_name(&self, f: &Function, given: &str) -> String {
        if self.options.language().ok() != Some(Language::Fortran) {
            return given.to_string();
        }
        crate::fortran_name(f, given)
    }

    fn source_names(&self, f: &Function, given: &[String]) -> Vec<String> {
        given.iter().map(|g| self.source_name(f, g)).collect()
    }

    /// The source files given (none for text).
    fn paths(&self) -> Vec<PathBuf> {
        match &self.options.input {
            Input::Files(paths) => paths.clone(),
            Input::Text { .. } => Vec::new(),
        }
    }

    /// Stage 2: loops with independent iterations become parallel maps.
    fn parallelize(&self, sequential: &Function, src: &Source) -> Result<Function, Error> {
        let parallel = adjc_autodiff::parallelize(sequential);
        validate::validate(&parallel).map_err(|e| src.invalid(Stage::Parallelize, e))?;
        Ok(parallel)
    }

    /// The options `reverse` differentiates `f` with: `--wrt`, `--of`, the `--checkpoint`
    /// loops resolved against `f`. Flag errors (an unknown `--wrt` name) have no span of
    /// their own: they point at the function.
    // Fields autodiff may add later keep their defaults.
    #[allow(clippy::needless_update)]
    fn ad_options(&self, f: &Function) -> Result<AdOptions, Diagnostic> {
        let o = &self.options;
        Ok(AdOptions {
            wrt: o.wrt.as_ref().map(|names| self.source_names(f, names)),
            of: o.of.as_ref().map(|names| self.source_names(f, names)),
            checkpoints: crate::checkpoint_flag::resolve(f, &o.checkpoints)?,
            max_trips: crate::max_trips_flag::resolve(f, &o.max_trips)?,
            fixed_points: crate::fixed_point_flag::resolve(f, &o.fixed_points)?,
            // A memory plan starts from the adjoint that tapes everything, loop arrays
            // included, and chooses which of them to recompute.
            loop_arrays: o.memory.is_some().then(Default::default),
            ..AdOptions::default()
        })
    }

    /// Stage 3: the adjoint of the parallel function, else of the sequential one: a
    /// parallel map the autodiff cannot reverse must not cost the user a gradient that the
    /// sequential loop gives. Returns the function differentiated, its options and adjoint.
    fn reverse(
        &self,
        parallel: Function,
        sequential: Function,
        src: &Source,
    ) -> Result<(Function, AdOptions, Adjoint), Error> {
        let differentiate = |f: &Function| -> Result<(AdOptions, Adjoint), Diagnostic> {
            let ad_opts = self.ad_options(f)?;
            let adjoint = adjc_autodiff::reverse(f, &ad_opts).map_err(|e| {
                let d = e.into_diagnostic();
                if d.span.is_none() {
                    Diagnostic { span: f.span, ..d }
                } else {
                    d
                }
            })?;
            Ok((ad_opts, adjoint))
        };
        let located = |d: Diagnostic| src.at(Stage::Reverse, d);
        match differentiate(&parallel) {
            Ok((opts, a)) => Ok((parallel, opts, a)),
            Err(d) if parallel == sequential => Err(located(d)),
            Err(_) => {
                let (opts, a) = differentiate(&sequential).map_err(located)?;
                Ok((sequential, opts, a))
            }
        }
    }

    /// Stage 8: both functions as C.
    fn emit(
        &self,
        module: &Module,
        adjoint: &Adjoint,
        memory: Option<&MemoryPlan>,
        stem: &str,
        src: &Source,
        input_hashes: &[(String, String)],
    ) -> Result<adjc_emit::CFiles, Error> {
        let emit_opts = EmitOptions {
            stem: stem.to_string(),
            header_comment: header_comment(&src.file, self.options.command_line.as_deref()),
            source_comment: inputs_comment(input_hashes),
            size_guards: memory.iter().map(|m| m.size_guard(&adjoint.function.name)).collect(),
            line_directives: self.options.line_directives,
        };
        adjc_emit::emit_c(module, &[&module.functions[0], &adjoint.function], &emit_opts)
            .map_err(|e| src.at(Stage::Emit, e.into_diagnostic()))
    }
}

/// The source file the module was lowered from: where diagnostics point.
struct Source {
    file: String,
    text: String,
}

impl Source {
    fn at(&self, stage: Stage, diag: Diagnostic) -> Error {
        Error::at(stage, &self.file, &self.text, diag)
    }
    fn internal(&self, stage: Stage, diag: Diagnostic) -> Error {
        Error::internal(stage, &self.file, &self.text, diag)
    }
    /// An invariant violated between stages is adjc's bug, never the user's: say so plainly.
    fn invalid(&self, stage: Stage, e: validate::ValidationError) -> Error {
        self.internal(stage, Diagnostic::error(e.span, e.to_string()))
    }
}
