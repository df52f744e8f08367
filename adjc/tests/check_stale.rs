//! `adjc check-stale DIR` (issue 16 part 3): the generated files record the SHA-256 of every
//! input (the source, an `include`d file, a module found by `use`); the command lists the
//! files whose inputs changed since, and fails then.

mod common;

use std::process::Command;

use common::{copy_dir, root, scratch, text};

fn adjc_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_adjc")).current_dir(dir).args(args).output().expect("run adjc")
}

#[test]
fn check_stale_lists_generated_files_whose_inputs_changed() {
    let dir = scratch("check-stale");
    copy_dir(&root().join("examples/make/kernels"), &dir);
    for src in ["heat.f90", "smooth.py"] {
        let out = adjc_in(&dir, &["transpile", src, "-o", "gen", "--fortran-interface"]);
        assert!(out.status.success(), "{}", text(&out));
    }
    let header = std::fs::read_to_string(dir.join("gen/heat.c")).unwrap();
    // The include file and the module file are inputs too, in sha256sum's format.
    for input in ["heat.f90", "params.f90", "stencil.inc"] {
        assert!(
            header.lines().any(|l| l.ends_with(&format!("  {input}")) && l.contains(" *   ")),
            "{input}:\n{header}"
        );
    }
    let ok = adjc_in(&dir, &["check-stale", "gen"]);
    assert!(ok.status.success() && text(&ok).contains("up to date: 2 generated files"), "{}", text(&ok));
    // The interfaces (.h, the Fortran module) carry no hashes: an edit that changes no
    // declaration must not make every object that includes them out of date.
    let h = std::fs::read_to_string(dir.join("gen/heat.h")).unwrap();
    assert!(!h.contains(adjc::stale::INPUTS_HEADING));
    // An edit of the include file: heat's C is stale, smooth's not.
    let inc = dir.join("stencil.inc");
    std::fs::write(&inc, std::fs::read_to_string(&inc).unwrap() + "! edited\n").unwrap();
    let out = adjc_in(&dir, &["check-stale", "gen"]);
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(t.contains("stale: gen/heat.c (stencil.inc changed)"), "{t}");
    assert!(!t.contains("smooth"), "{t}");
    // A removed input is reported as missing.
    std::fs::remove_file(dir.join("smooth.py")).unwrap();
    let t = text(&adjc_in(&dir, &["check-stale", "gen"]));
    assert!(t.contains("stale: gen/smooth.c (smooth.py missing)"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}
