//! Rust bindings of a generated kernel: the `extern "C"` declarations of the header, and
//! safe wrappers that take slices.
//!
//! The code is built as tokens with `quote` and printed through `syn` + `prettyplease`, so
//! it is valid Rust by construction and reads like hand-written code. A wrapper checks what
//! the C cannot: each slice's length against the shape the source gives it (the extents
//! are formulas over the size parameters, evaluated with checked arithmetic), and the sizes
//! against `int64_t`; the C checks the source's shape rules itself and returns a status,
//! which becomes `Result<(), adjc_rt::Error>`. The header's comment (what each argument
//! holds on entry and on exit) becomes the doc comment of both.

use adjc_emit::Prototype;
use adjc_ir::{BinOp, Expr, ExprKind, Function, Intent, Intrinsic, Literal, Scalar, Type, UnOp, VarId, VarRole};
use proc_macro2::{Ident, Literal as TokenLiteral, Span, TokenStream};
use quote::{format_ident, quote};

/// The bindings of `functions` (each with the prototype emit wrote for it), as Rust source.
pub fn render(title: &str, functions: &[(&Function, &Prototype)]) -> Result<String, crate::Error> {
    let mut externs = Vec::new();
    let mut wrappers = Vec::new();
    for (f, proto) in functions {
        let binding = Binding::new(f, proto)?;
        externs.push(binding.extern_decl());
        wrappers.push(binding.wrapper());
    }
    let tokens = quote! {
        /// The C functions as the header declares them.
        #[allow(non_snake_case, clippy::too_many_arguments)]
        pub mod ffi {
            unsafe extern "C" {
                #(#externs)*
            }
        }

        #(#wrappers)*
    };
    let file: syn::File = syn::parse2(tokens).map_err(|e| crate::Error::Internal(format!("invalid bindings: {e}")))?;
    // A plain comment: `include!`d files cannot carry inner attributes.
    let text = prettyplease::unparse(&file).replace("\n}\n///", "\n}\n\n///");
    Ok(format!("// Rust bindings of {title}, written by adjc-build: do not edit.\n\n{text}"))
}

/// One function: its parameters in Rust terms.
struct Binding<'a> {
    f: &'a Function,
    name: Ident,
    c_name: String,
    doc: Vec<String>,
    params: Vec<Param>,
}

struct Param {
    var: VarId,
    ident: Ident,
    c_name: String,
    elem: TokenStream,
    kind: Kind,
}

enum Kind {
    /// A size of the source's shapes: `usize` in the wrapper, `int64_t` in C.
    Size,
    /// A scalar passed by value.
    Value,
    /// A scalar the function writes: `&mut T`.
    ScalarOut,
    /// An array: a slice, `&[T]` when only read.
    Array { mutable: bool },
}

impl<'a> Binding<'a> {
    fn new(f: &'a Function, proto: &Prototype) -> Result<Binding<'a>, crate::Error> {
        if proto.params.len() != f.params.len() {
            return Err(crate::Error::Internal(format!(
                "`{}` has {} C parameters for {}",
                proto.name,
                proto.params.len(),
                f.params.len()
            )));
        }
        let mut params = Vec::new();
        for (p, c) in f.params.iter().zip(&proto.params) {
            let var = f.var(p.var);
            let elem = rust_scalar(var.ty.elem());
            let kind = match (&var.ty, p.intent) {
                (Type::Array { .. }, intent) => Kind::Array { mutable: intent != Intent::In },
                (Type::Scalar(_), Intent::In) if var.role == VarRole::Size => Kind::Size,
                (Type::Scalar(_), Intent::In) => Kind::Value,
                (Type::Scalar(_), _) => Kind::ScalarOut,
            };
            params.push(Param { var: p.var, ident: rust_ident(&c.name), c_name: c.name.clone(), elem, kind });
        }
        Ok(Binding { f, name: rust_ident(&proto.name), c_name: proto.name.clone(), doc: proto.doc.clone(), params })
    }

    fn doc_attrs(&self) -> Vec<TokenStream> {
        self.doc.iter().map(|l| format!(" {l}")).map(|l| quote! { #[doc = #l] }).collect()
    }

    fn extern_decl(&self) -> TokenStream {
        let name = &self.name;
        let doc = self.doc_attrs();
        let args = self.params.iter().map(|p| {
            let (ident, elem) = (&p.ident, &p.elem);
            match p.kind {
                Kind::Size | Kind::Value => quote! { #ident: #elem },
                Kind::ScalarOut | Kind::Array { mutable: true } => quote! { #ident: *mut #elem },
                Kind::Array { mutable: false } => quote! { #ident: *const #elem },
            }
        });
        quote! {
            #(#doc)*
            pub fn #name(#(#args),*) -> ::core::ffi::c_int;
        }
    }

    /// The safe wrapper, or only a note when an extent has no Rust formula.
    fn wrapper(&self) -> TokenStream {
        let name = &self.name;
        let c_name = &self.c_name;
        let doc = self.doc_attrs();
        let mut args = Vec::new();
        // Sizes are converted first: the extents use them.
        let mut sizes = Vec::new();
        let mut checks = Vec::new();
        let mut call = Vec::new();
        for p in &self.params {
            let (ident, elem, arg) = (&p.ident, &p.elem, &p.c_name);
            match p.kind {
                Kind::Size => {
                    args.push(quote! { #ident: usize });
                    sizes.push(quote! { let #ident: i64 = adjc_rt::size(#c_name, #arg, #ident)?; });
                    call.push(quote! { #ident });
                }
                Kind::Value => {
                    args.push(quote! { #ident: #elem });
                    call.push(quote! { #ident });
                }
                Kind::ScalarOut => {
                    args.push(quote! { #ident: &mut #elem });
                    call.push(quote! { #ident as *mut #elem });
                }
                Kind::Array { mutable } => {
                    let extents: Option<Vec<TokenStream>> =
                        self.f.var(p.var).ty.dims().iter().map(|d| self.extent(&d.extent)).collect();
                    let Some(extents) = extents else {
                        let note = format!(
                            " No safe wrapper: an extent of `{arg}` is not a formula of the sizes that \
                             adjc-build can evaluate; call `ffi::{c_name}`."
                        );
                        return quote! { #[doc = #note] const _: () = (); };
                    };
                    if mutable {
                        args.push(quote! { #ident: &mut [#elem] });
                        call.push(quote! { #ident.as_mut_ptr() });
                    } else {
                        args.push(quote! { #ident: &[#elem] });
                        call.push(quote! { #ident.as_ptr() });
                    }
                    checks.push(quote! { adjc_rt::check_slice(#c_name, #arg, &[#(#extents),*], #ident.len())?; });
                }
            }
        }
        quote! {
            #(#doc)*
            #[allow(non_snake_case, clippy::too_many_arguments)]
            pub fn #name(#(#args),*) -> Result<(), adjc_rt::Error> {
                #(#sizes)*
                #(#checks)*
                // SAFETY: every slice holds exactly the elements the C function reads or
                // writes (checked above), and Rust's borrows keep them from overlapping.
                adjc_rt::status(#c_name, unsafe { ffi::#name(#(#call),*) })
            }
        }
    }

    /// An extent as an `Option<i128>` expression (checked arithmetic: `None` when it
    /// overflows or divides by zero), or `None` when it uses what is not a size or integer
    /// parameter.
    fn extent(&self, e: &Expr) -> Option<TokenStream> {
        let body = self.int_expr(e)?;
        // `?` inside the formula needs a closure of its own.
        if body.to_string().contains('?') {
            Some(quote! { (|| Some(#body))() })
        } else {
            Some(quote! { Some(#body) })
        }
    }

    fn int_expr(&self, e: &Expr) -> Option<TokenStream> {
        Some(match &e.kind {
            ExprKind::Const(Literal::Int(v)) => {
                let lit = TokenLiteral::i128_suffixed(i128::from(*v));
                quote! { #lit }
            }
            ExprKind::Var(v) => {
                let p = self.params.iter().find(|p| p.var == *v)?;
                if !matches!(p.kind, Kind::Size | Kind::Value) || self.f.var(*v).ty != Type::Scalar(Scalar::I64) {
                    return None;
                }
                let ident = &p.ident;
                quote! { i128::from(#ident) }
            }
            ExprKind::Unary(UnOp::Neg, a) => {
                let a = self.int_expr(a)?;
                quote! { (#a).checked_neg()? }
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.int_expr(a)?, self.int_expr(b)?);
                match op {
                    BinOp::Add => quote! { (#a).checked_add(#b)? },
                    BinOp::Sub => quote! { (#a).checked_sub(#b)? },
                    BinOp::Mul => quote! { (#a).checked_mul(#b)? },
                    BinOp::Div => quote! { (#a).checked_div(#b)? },
                    BinOp::FloorDiv => quote! { adjc_rt::floor_div(#a, #b)? },
                    BinOp::Mod => quote! { adjc_rt::py_mod(#a, #b)? },
                    _ => return None,
                }
            }
            ExprKind::Call(Intrinsic::Max, args) if args.len() == 2 => {
                let (a, b) = (self.int_expr(&args[0])?, self.int_expr(&args[1])?);
                quote! { (#a).max(#b) }
            }
            ExprKind::Call(Intrinsic::Min, args) if args.len() == 2 => {
                let (a, b) = (self.int_expr(&args[0])?, self.int_expr(&args[1])?);
                quote! { (#a).min(#b) }
            }
            _ => return None,
        })
    }
}

fn rust_scalar(s: Scalar) -> TokenStream {
    match s {
        Scalar::Bool => quote! { bool },
        Scalar::I64 => quote! { i64 },
        Scalar::F32 => quote! { f32 },
        Scalar::F64 => quote! { f64 },
    }
}

/// Rust's keywords (strict, reserved and edition-dependent): a C name that is one gets `_`.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do", "dyn", "else",
    "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod",
    "move", "mut", "override", "priv", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
    "true", "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// A C identifier as a Rust one (C names are already `[A-Za-z_][A-Za-z0-9_]*`).
fn rust_ident(c_name: &str) -> Ident {
    if KEYWORDS.contains(&c_name) || c_name == "_" {
        format_ident!("{}_", c_name)
    } else {
        Ident::new(c_name, Span::call_site())
    }
}
