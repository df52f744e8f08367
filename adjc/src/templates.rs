//! The templates the command line renders itself (the check and bench drivers, the NumPy
//! and gfortran comparison programs). They live in emit's one template environment, with the
//! same whitespace rules as the generated files.

use minijinja::Value;

use crate::cli_error::{CliError, CliResult};

/// Renders `templates/<name>` (e.g. `check_driver.c.j2`).
pub fn render(name: &str, ctx: Value) -> CliResult<String> {
    adjc_emit::render_template(name, ctx).map_err(|d| CliError::Internal(format!("template {name}: {}", d.message)))
}
