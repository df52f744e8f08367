//! Fortran source(s) → IR → adjoint → C, through `lower_fortran_sources` as `adjc transpile`
//! calls it (include expansion, module lookup, fixed-form conversion, cpp line markers).
//!
//! Input: one flag byte, then the text. Flag bit 0: fixed form (the converter runs);
//! bit 1: the text is preprocessor output (its `# N "file"` line markers are read back, the
//! path `adjc` takes after running cpp); bit 2: the text holds two files separated by a NUL
//! byte (the second one, `mod.f90`, may define modules the first uses). `include 'x'` lines
//! resolve to a fixed small file, except `include 'missing'`, which is not found.
//! Seeds: examples/fortran and tests/errors/*.f* with a flag byte (`fuzz/seed.sh`).
#![no_main]
use adjc_frontend::{lower_fortran_sources, FortranOptions, FortranSource};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let fixed_form = flags & 1 != 0;
    let preprocessed = flags & 2 != 0;
    let parts: Vec<&str> = if flags & 4 != 0 { text.splitn(2, '\0').collect() } else { vec![text] };
    let names = ["fuzz.f90", "mod.f90"];
    let sources: Vec<FortranSource> = parts
        .iter()
        .zip(names)
        .map(|(t, n)| FortranSource {
            name: if fixed_form { n.replace(".f90", ".f") } else { n.to_string() },
            text: t.to_string(),
            preprocessed,
            original: None,
            fixed_form,
        })
        .collect();
    let resolve = |name: &str, _from: &str| -> Result<(String, String), String> {
        if name == "missing" {
            Err(format!("{name}: not found"))
        } else {
            Ok((format!("{name}.inc"), "      x = 1.0\n".to_string()))
        }
    };
    let opts = FortranOptions { fixed_form, ..Default::default() };
    match lower_fortran_sources(&sources, &opts, &resolve) {
        Ok(m) => adjc_fuzz::check_module(&m, &m.file.clone(), &m.source.clone()),
        Err(e) => adjc_fuzz::no_internal(&e.diag, &e.file, &e.source),
    }
});
