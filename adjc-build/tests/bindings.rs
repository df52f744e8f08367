//! The bindings adjc-build writes, read as text: Rust names for C names that are Rust
//! keywords, sizes as `usize`, read-only arrays as `&[T]`, extents that are formulas of the
//! sizes evaluated with checked arithmetic, and the header's documentation. (That they
//! compile, link and compute the right gradients is `examples/rust`'s test.)

/// Whether `text` holds `code`, whitespace ignored (prettyplease decides the line breaks).
fn has(text: &str, code: &str) -> bool {
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    squeeze(text).contains(&squeeze(code))
}

fn bindings(name: &str, source: &str) -> String {
    let out = adjc::Pipeline::new(adjc::Options::source(name, source)).run().map_err(|e| e.render()).unwrap();
    let pairs: Vec<_> = [out.primal(), &out.adjoint.function].into_iter().zip(&out.files.prototypes).collect();
    adjc_build::bindings::render("test", &pairs).unwrap()
}

#[test]
fn keywords_sizes_and_extent_formulas() {
    let text = bindings(
        "edges.py",
        "def edges(loop: 'float64[N + 2, M]', type: 'float64[N, M]'):\n    type[:, :] = loop[2:, :] - loop[:-2, :]\n",
    );
    // `loop` and `type` are Rust keywords: `loop_`, `type_`; the C names stay in messages.
    assert!(has(&text, "pub fn edges(N: usize, M: usize, loop_: &[f64], type_: &mut [f64]"), "{text}");
    assert!(has(&text, "let N: i64 = adjc_rt::size(\"edges\", \"N\", N)?;"), "{text}");
    let check = "adjc_rt::check_slice(\"edges\", \"loop\", \
                 &[(|| Some((i128::from(N)).checked_add(2i128)?))(), Some(i128::from(M))], loop_.len()";
    assert!(has(&text, check), "{text}");
    // The adjoint takes the adjoint of the read-only input as `&mut`, and its seed.
    assert!(text.contains("loop_b: &mut [f64]") && text.contains("type_b: &mut [f64]"), "{text}");
    // The C declarations and the header's documentation.
    assert!(text.contains("pub fn edges_b(") && text.contains("-> ::core::ffi::c_int;"), "{text}");
    assert!(text.contains("/// Returns ADJC_OK (0) on success."), "{text}");
    assert!(text.contains("const f64"), "{text}");
}
