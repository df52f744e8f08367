//! The minijinja templates that lay out the generated files, all in one environment with
//! one set of whitespace rules: the `.c`/`.h` files and the Fortran interface rendered here,
//! and the check and bench drivers the command line renders through [`render_template`].
//! Rust renders statements and expressions; the templates own the file, function and sweep
//! structure (README: "Repository layout" says what lives where).

use crate::function::FnView;
use adjc_ir::{Diagnostic, Span};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::Value;
use minijinja::{context, Environment, UndefinedBehavior};

const TEMPLATES: &[(&str, &str)] = &[
    ("banner.j2", include_str!("../../templates/banner.j2")),
    ("source.c.j2", include_str!("../../templates/source.c.j2")),
    ("function.c.j2", include_str!("../../templates/function.c.j2")),
    ("header.h.j2", include_str!("../../templates/header.h.j2")),
    ("fortran_interface.f90.j2", include_str!("../../templates/fortran_interface.f90.j2")),
    ("python_module.py.j2", include_str!("../../templates/python_module.py.j2")),
    ("review.html.j2", include_str!("../../templates/review.html.j2")),
    // The harness files `adjc check` and `adjc bench` write (rendered by the command line).
    ("driver_calls.c.j2", include_str!("../../templates/driver_calls.c.j2")),
    ("check_driver.c.j2", include_str!("../../templates/check_driver.c.j2")),
    ("bench_driver.c.j2", include_str!("../../templates/bench_driver.c.j2")),
    ("check_numpy.py.j2", include_str!("../../templates/check_numpy.py.j2")),
    ("check_gfortran.f90.j2", include_str!("../../templates/check_gfortran.f90.j2")),
];

fn internal(e: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::internal(Span::NONE, format!("the C templates did not render: {e}"))
}

/// The one environment of every template, built (and every template parsed) on first use.
pub(crate) fn environment() -> Result<&'static Environment<'static>, Diagnostic> {
    static ENV: std::sync::OnceLock<Result<Environment<'static>, String>> = std::sync::OnceLock::new();
    ENV.get_or_init(|| build().map_err(|e| e.to_string())).as_ref().map_err(internal)
}

fn build() -> Result<Environment<'static>, minijinja::Error> {
    let mut env = Environment::new();
    let syntax = SyntaxConfig::builder().trim_blocks(true).lstrip_blocks(true).keep_trailing_newline(true).build()?;
    env.set_syntax(syntax);
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    for (name, source) in TEMPLATES {
        env.add_template(name, source)?;
    }
    Ok(env)
}

/// Renders one template of `templates/` (by file name, e.g. `check_driver.c.j2`) with `ctx`.
pub fn render_template(name: &str, ctx: Value) -> Result<String, Diagnostic> {
    let env = environment()?;
    env.get_template(name).and_then(|t| t.render(ctx)).map_err(internal)
}

fn function_value(f: &FnView) -> Value {
    let parts: Vec<Value> = f
        .parts
        .iter()
        .map(|p| context! { title => p.title.clone(), blank_before => p.blank_before, lines => p.lines.clone() })
        .collect();
    context! {
        signature => f.signature.clone(),
        macro_defs => f.macro_defs.clone(),
        macro_names => f.macro_names.clone(),
        prologue => f.prologue.clone(),
        parts => parts,
        epilogue => f.epilogue.clone(),
        doc => f.doc.clone(),
    }
}

/// Renders the `.c` and `.h` files.
pub(crate) fn render(
    c_banner: &[String],
    h_banner: &[String],
    stem: &str,
    guard: &str,
    renames: &[String],
    functions: &[FnView],
    uses_blas: bool,
) -> Result<(String, String), Diagnostic> {
    let env = environment()?;
    let fns: Vec<Value> = functions.iter().map(function_value).collect();
    let ctx = |banner: &[String]| {
        context! { banner => banner.to_vec(), stem => stem, guard => guard, renames => renames.to_vec(), functions => fns.clone(), uses_blas => uses_blas }
    };
    let c = env.get_template("source.c.j2").and_then(|t| t.render(ctx(c_banner))).map_err(internal)?;
    let h = env.get_template("header.h.j2").and_then(|t| t.render(ctx(h_banner))).map_err(internal)?;
    Ok((c, h))
}
