//! Python source → IR → adjoint → C. The input is the source text (UTF-8; other inputs are
//! skipped). Seeds: examples/python and tests/errors/*.py (`fuzz/seed.sh`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    match adjc_frontend::lower_python("fuzz.py", src, &adjc_frontend::PythonOptions::default()) {
        Ok(m) => adjc_fuzz::check_module(&m, "fuzz.py", src),
        Err(d) => adjc_fuzz::no_internal(&d, "fuzz.py", src),
    }
});
