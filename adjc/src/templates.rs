//! The minijinja set-up for the templates the command line renders itself (the check
//! driver and the NumPy comparison script), with the same whitespace rules as emit's.

use minijinja::syntax::SyntaxConfig;
use minijinja::{Environment, UndefinedBehavior, Value};

use crate::cli_error::{CliError, CliResult};

pub fn render(name: &str, source: &'static str, ctx: Value) -> CliResult<String> {
    let fail = |e: minijinja::Error| CliError::Internal(format!("template {name}: {e}"));
    let mut env = Environment::new();
    let syntax = SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()
        .map_err(fail)?;
    env.set_syntax(syntax);
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.add_template(name, source).map_err(fail)?;
    env.get_template(name).and_then(|t| t.render(ctx)).map_err(fail)
}
