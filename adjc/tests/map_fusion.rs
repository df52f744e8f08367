//! Consecutive maps of one statement fused into one pass (autodiff/src/map_fusion.rs):
//! durbin's restore, copy adjoint and update of `y_b` in one loop, and its flipped update
//! with the `alpha_b` reduction in another; shallow_water's tape saves in the loops of the
//! updates they save for; the gradients still pass `adjc check`, serial and OpenMP. Maps
//! whose iterations would meet other elements (`y_b[k - i - 1]` after `y_b[i]`) stay apart.

mod common;

use common::{adjc, adjc_parallel_copies, scratch, text};

fn adjoint_c(file: &str, name: &str) -> String {
    let dir = scratch(&format!("map-fusion-{name}"));
    let out = adjc(&["transpile", file, "-o", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    let c = std::fs::read_to_string(dir.join(format!("{name}.c"))).unwrap();
    let start = c.find(&format!("\nint {name}_b(")).unwrap_or_else(|| panic!("no {name}_b in\n{c}"));
    c[start..].to_string()
}

/// The body of the loop (`for` line to its closing brace) that contains `line`, per
/// occurrence (the parallel copy and the sequential one).
fn loops_with(c: &str, line: &str) -> Vec<String> {
    let lines: Vec<&str> = c.lines().collect();
    let mut out = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        if l.trim() != line {
            continue;
        }
        let indent = l.len() - l.trim_start().len();
        let start = (0..k).rev().find(|j| {
            let t = lines[*j];
            t.trim_start().starts_with("for (") && t.len() - t.trim_start().len() + 4 == indent
        });
        let Some(start) = start else { continue };
        let end = (k..lines.len()).find(|j| lines[*j].trim() == "}" && lines[*j].len() - 1 + 4 == indent);
        out.push(lines[start..=end.unwrap_or(k)].join("\n"));
    }
    out
}

fn check(file: &str, flags: &[&str]) {
    for openmp in [false, true] {
        let mut args = vec!["check", file];
        args.extend(flags);
        if openmp {
            args.push("--openmp");
        }
        let out = if openmp { adjc_parallel_copies(&args) } else { adjc(&args) };
        let t = text(&out);
        assert!(out.status.success() && t.contains("check passed"), "adjc {}\n{t}", args.join(" "));
    }
}

#[test]
fn durbin_restores_and_updates_y_b_in_one_pass() {
    let c = adjoint_c("examples/python/durbin.py", "durbin");
    let restore = loops_with(&c, "y[i] = y_tape[(k - 1) * k / 2 + i];");
    // One copy: the step loop is sequential as a whole (omp_placement.rs).
    assert_eq!(restore.len(), 1, "{c}");
    for l in &restore {
        assert!(l.contains("y_tmp_b[i] += y_b[i];") && l.contains("y_b[i] += y_tmp_b[i];"), "{l}");
        assert!(!l.contains("y_b[k - i - 1]"), "the flipped update met other elements of y_b:\n{l}");
    }
    let flipped = loops_with(&c, "y_b[k - i - 1] += alpha * y_tmp_b[i];");
    assert_eq!(flipped.len(), 1, "{c}");
    for l in &flipped {
        assert!(l.contains("alpha_b += y[k - i - 1] * y_tmp_b[i];") && l.contains("y_tmp_b[i] = 0.0;"), "{l}");
    }
    // Forward sweep: the tape of y[:k] is saved in the loop that computes y_tmp.
    for l in loops_with(&c, "y_tape[(k - 1) * k / 2 + i] = y[i];") {
        assert!(l.contains("y_tmp[i] = y[i] + alpha * y[k - i - 1];"), "{l}");
    }
    check("examples/python/durbin.py", &["--sizes", "r_n0=9", "--init", "r=uniform(-0.3,0.3)"]);
}

#[test]
fn shallow_water_saves_its_tapes_in_the_update_loops() {
    let c = adjoint_c("examples/python/shallow_water.py", "shallow_water");
    for (save, update) in [
        ("h_tape_(t, i - 1) = h[i];", "h[i] = h[i] - dt / (2.0 * dx) * (hu[i + 1] - hu[i - 1]);"),
        ("u_tape_(t, i - 1) = u[i];", "u[i] = u[i] - dt / (2.0 * dx) * (fu[i + 1] - fu[i - 1]);"),
    ] {
        let loops = loops_with(&c, save);
        assert_eq!(loops.len(), 2, "{c}");
        for l in loops {
            assert!(l.contains(update), "{l}");
        }
    }
    // The zero fills of the local adjoints stay one `adjc_zero` each.
    assert!(c.contains("adjc_zero(hu_b, ") && c.contains("adjc_zero(fu_b, "), "{c}");
    check(
        "examples/python/shallow_water.py",
        &[
            "--sizes",
            "h_n0=24,T=5",
            "--init",
            "g=const(9.81)",
            "--init",
            "dt=const(0.001)",
            "--init",
            "dx=const(0.1)",
            "--init",
            "h=uniform(1,2)",
            "--init",
            "u=uniform(-0.5,0.5)",
        ],
    );
}
