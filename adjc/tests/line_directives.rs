//! `--line-directives`: a `#line N "file.py"` before each block of generated statements, so
//! that compiler diagnostics and debuggers point at the source line; after each function's
//! statements a `#line` back to the `.c` itself. The output must still compile warning-free
//! (`-Wall -Wextra -Werror`, with and without OpenMP), the preprocessor must see the
//! directives, and the gradient must be unchanged.

mod common;

use common::{adjc, have, root, scratch, text};
use std::process::Command;

#[test]
fn line_directives_point_at_the_source_and_compile_cleanly() {
    let dir = scratch("line-directives");
    let out_dir = dir.to_str().unwrap();
    let out = adjc(&["transpile", "examples/python/mlp.py", "-o", out_dir, "--line-directives"]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join("mlp.c")).unwrap();
    // Each quoted source line is followed by its directive (the forward and the adjoint).
    let quoted = "/* mlp.py:27   x = relu(input @ w1 + b1) */";
    let directive = "#line 27 \"examples/python/mlp.py\"";
    let lines: Vec<&str> = c.lines().collect();
    let pairs = lines.windows(2).filter(|w| w[0].trim() == quoted && w[1] == directive).count();
    assert!(pairs >= 2, "no `{directive}` after `{quoted}`:\n{c}");
    // Every directive back to the C file names the line that follows it.
    let resets: Vec<(usize, &str)> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("#line") && l.ends_with("\"mlp.c\""))
        .map(|(k, l)| (k, *l))
        .collect();
    assert_eq!(resets.len(), 3, "{c}"); // the forward function, each sweep of the adjoint
    for (k, l) in resets {
        assert_eq!(l, format!("#line {} \"mlp.c\"", k + 2));
    }
    assert!(!c.contains("adjc-reset"));
    // Without the flag, nothing changes but the directives.
    let plain_dir = scratch("line-directives-plain");
    let out = adjc(&["transpile", "examples/python/mlp.py", "-o", plain_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let plain = std::fs::read_to_string(plain_dir.join("mlp.c")).unwrap();
    let without: Vec<&str> = lines.iter().copied().filter(|l| !l.starts_with("#line ")).collect();
    // (The header comments differ by the command line.)
    let body = |s: &str| s[s.find("#include <math.h>").unwrap_or(0)..].trim_end().to_string();
    assert!(body(&without.join("\n")) == body(&plain), "the directives changed more than themselves");
    if !have("cc") {
        eprintln!("skipped the compilation: no cc");
        return;
    }
    for openmp in [false, true] {
        let mut cmd = Command::new("cc");
        cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-c", "mlp.c", "-o", "mlp.o"]).current_dir(&dir);
        if openmp {
            cmd.arg("-fopenmp");
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "openmp={openmp}: {}", text(&o));
    }
    // The preprocessor sees the directives: its line markers name the source.
    let o = Command::new("cc").args(["-std=c11", "-E", "mlp.c"]).current_dir(&dir).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let pre = String::from_utf8_lossy(&o.stdout);
    assert!(pre.contains("# 27 \"examples/python/mlp.py\""), "no line marker of the source");
    // And the gradient is the same.
    let out = adjc(&["check", "examples/python/logistic.py", "--sizes", "N=7,D=3", "--line-directives"]);
    assert!(out.status.success() && text(&out).contains("check passed"), "{}", text(&out));
    let _ = root();
}
