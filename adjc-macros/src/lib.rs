//! `include_kernel!`: the Rust bindings that `adjc-build` wrote for a kernel, included by
//! the name given to `Kernel::compile`, so a crate does not spell out the `OUT_DIR` path:
//!
//! ```ignore
//! pub mod diffusion {
//!     adjc_macros::include_kernel!("diffusion");
//! }
//! ```
//!
//! expands to `include!(concat!(env!("OUT_DIR"), "/diffusion.rs"));`. The name is checked
//! when the macro expands (letters, digits, `_`, `-` and `.`, as `Kernel::compile` accepts),
//! so a typo points at the macro call, not at a missing file deep in `OUT_DIR`.

use proc_macro::TokenStream;
use quote::quote;
use syn::{parse_macro_input, LitStr};

#[proc_macro]
pub fn include_kernel(input: TokenStream) -> TokenStream {
    let name = parse_macro_input!(input as LitStr);
    match expand(&name) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(name: &LitStr) -> syn::Result<proc_macro2::TokenStream> {
    let value = name.value();
    check_name(&value).map_err(|why| syn::Error::new(name.span(), why))?;
    let file = format!("/{value}.rs");
    Ok(quote! { include!(concat!(env!("OUT_DIR"), #file)); })
}

/// The rule of `adjc_build::Kernel::compile`'s names: a plain file stem.
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("include_kernel!: the kernel name is empty".into());
    }
    if name.starts_with('.') || name.starts_with('-') {
        return Err(format!("include_kernel!: `{name}` is not a kernel name (it starts with `{}`)", &name[..1]));
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || "_-.".contains(*c))) {
        return Err(format!(
            "include_kernel!: `{name}` contains `{c}`; give the name passed to `Kernel::compile` (no path)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_to_the_out_dir_file() {
        let lit = LitStr::new("diffusion", proc_macro2::Span::call_site());
        let text = expand(&lit).unwrap().to_string();
        assert_eq!(text, "include ! (concat ! (env ! (\"OUT_DIR\") , \"/diffusion.rs\")) ;");
    }

    #[test]
    fn refuses_paths_and_empty_names() {
        assert!(check_name("").is_err());
        assert!(check_name("../x").unwrap_err().contains("starts with `.`"));
        assert!(check_name("a/b").unwrap_err().contains("contains `/`"));
        assert!(check_name("jacobi_1d").is_ok());
        assert!(check_name("heat-2.v1").is_ok());
    }
}
