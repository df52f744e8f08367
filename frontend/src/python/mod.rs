//! The Python/NumPy frontend: tree-sitter parse → small AST (`ast`, `parse`) →
//! parameter types (`types`: argument specs and annotations; `infer`: inference from
//! use) → lowering of the entry function to one IR function (`lower` statements,
//! `expr` expressions, `calls` NumPy functions and inlined helpers, `store`
//! assignments, `deferred` reductions and matrix products, `moments` std/var,
//! `reshape` reshapes, `finish` signature and clean-up). `value` holds the lazy array values that make one vectorised statement
//! one fused `Map`; `shapes` compares and unifies symbolic extents.
//!
//! Supported: one or more `def`s (helpers are inlined; they may mutate their array
//! arguments and return values or tuples), module-level numeric constants, `for ... in
//! range(...)`, `if`/`elif`/`else`, scalar locals, element/slice/whole-array
//! assignment and `+= -= *= /=`, basic indexing (integers, slices with any constant
//! step, negative literals, `None`/`np.newaxis`, `...`), NumPy broadcasting, boolean
//! masks as assignment targets (`s[s <= 0.1] = 1.0`), ufuncs and `math` functions,
//! `np.where`/`np.clip`/`np.sign`/`np.flip`/`.T`, reductions (`np.sum`, `mean`, `max`,
//! `min`, `prod`, `std`, `var`, with `axis`/`keepdims`, also as methods), array creation
//! (`np.zeros`, ..., `*_like`, `copy`, `np.eye`, `np.identity`), reshaping (`np.reshape`,
//! `.reshape`, `.ravel`, `.flatten`: index remapping, views of contiguous arrays), joins,
//! shifts, differences and triangles (`assemble`: `np.concatenate`, `stack`, `hstack`,
//! `vstack`, `roll`, `diff`, `triu`, `tril`), running sums and products (`scan`:
//! `np.cumsum`, `cumprod`), evenly spaced values and norms (`sequences`: `np.arange`,
//! `linspace`, `linalg.norm`), and
//! matrix products (`@`, `np.dot`, `np.matmul`, `np.outer`, `np.einsum` of products, see
//! `einsum`; `@` also on stacks of matrices): library calls (gemm, gemv, dot, ger on views,
//! see `blas`) where the whole pipeline takes them, loops otherwise.
//!
//! Integer-array (fancy) indexing `x[idx]`, `A[rows, cols]`, `A[:, idx]` is a gather in the
//! element template (`value::Item::Fancy`); stores through it (`x[idx] = v`, `x[idx] += v`,
//! `np.add.at`) are sequential loops with NumPy's order (`store::store_fancy`).
//!
//! Not supported (diagnosed): `while`, `break`, `continue`, comprehensions, lambdas,
//! classes, `*args`/`**kwargs`, `global`, `with`, `try`, indexing with float arrays,
//! boolean masks outside assignment targets and whole reductions (`mask_reduce`), shapes that
//! depend on loop variables (for arrays the source creates; temporaries use bounds).

mod assemble;
mod ast;
mod blas;
mod calls;
mod deferred;
mod einsum;
mod expr;
mod finish;
mod infer;
mod jumps;
mod linalg;
mod logical_lines;
mod loop_else;
mod lower;
mod mask_reduce;
mod moments;
mod names;
mod ops;
mod parse;
mod reshape;
mod scan;
mod sequences;
mod shapes;
mod store;
mod syntax;
mod types;
mod value;
mod var_names;

use adjc_ir::{Diagnostic, Module, Span};

/// Options of the Python frontend.
#[derive(Clone, Debug, Default)]
pub struct PythonOptions {
    /// The function to compile; default: the only `def`, else the last one.
    pub entry: Option<String>,
    /// Parameter types, e.g. `A: float64[N, M]`, `alpha: float64`, `N: int`; they take
    /// precedence over annotations and inference.
    pub arg_specs: Vec<String>,
}

/// How many times lowering restarts to widen scalar locals (one per widened local).
const MAX_ATTEMPTS: usize = 64;

/// Stack for the recursive descent over deeply nested (or hostile) input.
const STACK_SIZE: usize = 256 << 20;

/// Lowers the entry function of a Python file to an IR module holding that one function
/// (helper functions are inlined).
///
/// Runs on a thread with a large stack, so that deeply nested input is reported rather
/// than overflowing, and so that a bug cannot unwind into the caller: it becomes an
/// internal-error diagnostic.
pub fn lower_python(file: &str, source: &str, opts: &PythonOptions) -> Result<Module, Diagnostic> {
    let (file_s, source_s, opts_c) = (file.to_string(), source.to_string(), opts.clone());
    let worker = std::thread::Builder::new()
        .name("adjc-python-frontend".into())
        .stack_size(STACK_SIZE)
        .spawn(move || lower_python_here(&file_s, &source_s, &opts_c));
    match worker {
        Ok(handle) => match handle.join() {
            Ok(r) => r,
            Err(_) => Err(Diagnostic::internal(Span::NONE, "the Python frontend crashed on this input")
                .with_help("please report this together with the source file")),
        },
        // No thread available: lower on the caller's stack.
        Err(_) => lower_python_here(file, source, opts),
    }
}

fn lower_python_here(file: &str, source: &str, opts: &PythonOptions) -> Result<Module, Diagnostic> {
    let m = parse::parse_module(source)?;
    if m.funcs.is_empty() {
        return Err(Diagnostic::error(Span::NONE, format!("no function definition found in `{file}`"))
            .with_help("adjc compiles a Python file containing at least one `def`"));
    }
    let entry = match &opts.entry {
        Some(name) => m.func(name).ok_or_else(|| {
            let names: Vec<String> = m.funcs.iter().map(|f| format!("`{}`", f.name)).collect();
            Diagnostic::error(Span::NONE, format!("function `{name}` not found in `{file}`"))
                .with_help(format!("functions in this file: {}", names.join(", ")))
        })?,
        None => m.funcs.last().ok_or_else(|| Diagnostic::error(Span::NONE, "no function"))?,
    };
    let mut specs = Vec::new();
    for s in &opts.arg_specs {
        let spec = types::parse_arg_spec(s)?;
        if specs.iter().any(|x: &types::ArgSpec| x.name == spec.name) {
            return Err(Diagnostic::error(
                Span::NONE,
                format!("the parameter `{}` is given two argument specs", spec.name),
            ));
        }
        specs.push(spec);
    }
    if let Ok(params) = &entry.params {
        for s in &specs {
            if !params.iter().any(|p| p.name == s.name) {
                let names: Vec<String> = params.iter().map(|p| format!("`{}`", p.name)).collect();
                return Err(Diagnostic::error(
                    entry.name_span,
                    format!(
                        "the argument spec `{}` names `{}`, but `{}` has no such parameter",
                        s.text, s.name, entry.name
                    ),
                )
                .with_help(format!("parameters of `{}`: {}", entry.name, names.join(", "))));
            }
        }
    }
    let reserved = crate::ts::identifiers(source, false);
    let body = entry.body.clone()?;
    let mut hints = lower::Hints::new();
    for _ in 0..MAX_ATTEMPTS {
        let (attempt, widen) = match lower::Lowerer::new(&m, entry, &specs, &hints, &reserved) {
            Ok(mut lw) => {
                let lowered = lw.lower_body(&body);
                let widen = std::mem::take(&mut lw.widen);
                (lowered.and_then(|()| lw.finish()), widen)
            }
            Err(d) => (Err(d), lower::Hints::new()),
        };
        // A local that needed a wider type: the attempt's result (IR or an error that may
        // follow from the narrow type) is dropped and the function lowered again.
        if !widen.is_empty() {
            hints.extend(widen);
            continue;
        }
        match attempt {
            Ok(mut f) => {
                // NumPy's negative indices, then the entry checks that keep every index
                // inside its array.
                let checks = crate::bounds::index_checks(&f)?;
                for c in checks {
                    if !f.assumptions.iter().any(|a| crate::bounds::same_check(a, &c)) {
                        f.assumptions.push(c);
                    }
                }
                crate::bounds::prune_checks(&mut f);
                crate::bounds::peel_negative_indices(&mut f);
                // Loops and maps are numbered in source order ("Identities" in adjc_ir).
                adjc_ir::proc::ids::settle(&mut f.body);
                if let Err(e) = adjc_ir::validate::validate(&f) {
                    return Err(Diagnostic::internal(
                        e.span,
                        format!("the Python frontend produced invalid IR: {}", e.message),
                    )
                    .with_help("please report this together with the source file"));
                }
                let continued = logical_lines::continued(source);
                return Ok(Module {
                    file: file.to_string(),
                    source: source.to_string(),
                    functions: vec![f],
                    continued,
                });
            }
            Err(d) => return Err(d),
        }
    }
    Err(Diagnostic::internal(entry.name_span, "the types of local variables did not settle"))
}
