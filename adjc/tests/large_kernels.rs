//! Large kernels (issue 10, section 4): a 1,000-term sum and kernels of a few thousand
//! statements transpile, and their gradients pass `adjc check`. Not timed: the scaling
//! itself is measured by `benchmarks/bench_transpile.sh` (see
//! `benchmarks/transpile_scaling.md`).

mod common;

use common::{adjc, scratch, text, Example};

/// The terms `b * x[0] + x[1] + x[2] + a * x[3] + ...` (`x(0)` for Fortran).
fn terms(n: usize, fortran: bool) -> Vec<String> {
    (0..n)
        .map(|t| {
            let x = if fortran { format!("x({t})") } else { format!("x[{t}]") };
            match t % 6 {
                0 => format!("b * {x}"),
                3 => format!("a * {x}"),
                _ => x,
            }
        })
        .collect()
}

/// Statement `k` of a straight-line kernel over scalars `s0..s31` and elements of `x`, `y`:
/// each reads earlier results, many overwrite a scalar an adjoint still needs (tapes). The
/// coefficients keep values and derivatives of order one over thousands of statements, so
/// that finite differences stay accurate.
fn statement(k: usize, idx: &str) -> String {
    let at = |c: usize| if idx.is_empty() { format!("{c}") } else { format!("{idx} + {c}") };
    let j = (k * 7) % 16;
    let p = if k > 0 { format!("s{}", (k - 1) % 32) } else { "a".into() };
    let q = if k > 32 { format!("s{}", (k * 5 + 3) % 32) } else { "b".into() };
    let s = k % 32;
    match k % 5 {
        0 => format!("s{s} = 0.5 * {p} * x[{}] + 0.25 * {q} + 0.1 * b", at(j)),
        1 => format!("s{s} = np.sin({p}) + 0.5 * a * {q}"),
        2 => format!("y[{}] = y[{}] + 0.01 * {p} * x[{}]", at(j), at(j), at((j + 1) % 16)),
        3 => format!("s{s} = np.tanh({p} * {q}) - 0.1 * y[{}]", at((j + 3) % 16)),
        _ => format!("y[{}] += 0.01 * np.exp(0.1 * {p})", at((j + 5) % 16)),
    }
}

fn python_kernel(body: &[String]) -> String {
    let mut src = String::from(
        "import numpy as np\n\n\ndef kernel(x: \"float64[nn]\", y: \"float64[nn]\", a: float, b: float, n: int):\n",
    );
    for k in 0..32 {
        src += &format!("    s{k} = 0.0\n");
    }
    for line in body {
        src += &format!("    {line}\n");
    }
    src += &format!("    y[1] = y[1] + {}\n", (0..32).map(|k| format!("s{k}")).collect::<Vec<_>>().join(" + "));
    src
}

/// `adjc check` on `src` written to `name`: it passes with every gradient checked.
fn check(name: &str, src: &str, sizes: &str) -> String {
    let dir = scratch(name);
    let path = dir.join(name);
    std::fs::write(&path, src).unwrap();
    let ex = Example { path: path.display().to_string(), check_flags: vec!["--sizes".into(), sizes.into()] };
    let t = common::check_example(&ex, false).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(t.contains("d/dx") && t.contains("d/da") && t.contains("d/db"), "{t}");
    let _ = std::fs::remove_dir_all(&dir);
    t
}

#[test]
fn a_1000_term_python_sum_transpiles_and_its_gradient_checks() {
    let src = python_kernel(&[format!("y[0] = {}", terms(1000, false).join(" + "))]);
    check("sum_1000.py", &src, "nn=1000,n=2");
}

#[test]
fn a_1000_term_fortran_sum_transpiles_and_its_gradient_checks() {
    let mut src = String::from(
        "subroutine kernel(nn, x, y, a, b)\n  implicit none\n  integer, intent(in) :: nn\n  \
         real(8), intent(in) :: x(0:nn-1), a, b\n  real(8), intent(inout) :: y(0:nn-1)\n  y(0) = ",
    );
    // Continuation lines of at most ~100 columns.
    let ts = terms(1000, true);
    let mut line = 0;
    for (k, t) in ts.iter().enumerate() {
        if line > 90 {
            src += "&\n      & ";
            line = 0;
        }
        src += t;
        line += t.len();
        if k + 1 < ts.len() {
            src += " + ";
            line += 3;
        }
    }
    src += "\nend subroutine kernel\n";
    check("sum_1000.f90", &src, "nn=1000");
}

#[test]
fn a_sum_longer_than_the_chain_limit_is_an_error_not_a_crash() {
    let dir = scratch("sum_long");
    let path = dir.join("sum_long.py");
    std::fs::write(&path, python_kernel(&[format!("y[0] = {}", vec!["x[0]"; 6000].join(" + "))])).unwrap();
    let out = adjc(&["transpile", path.to_str().unwrap(), "-o", dir.join("out").to_str().unwrap()]);
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(t.contains("expression too long: more than 5000 chained operators"), "{t}");
    assert!(!dir.join("out").exists(), "partial output written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_3000_statement_kernel_and_many_loops_transpile_and_their_gradients_check() {
    let straight: Vec<String> = (0..3000).map(|k| statement(k, "")).collect();
    check("straight_3000.py", &python_kernel(&straight), "nn=40,n=3");
    // 400 small loops of 4 statements, one loop body of 400 statements.
    let mut loops = Vec::new();
    for b in 0..400 {
        loops.push("for i in range(n):".to_string());
        loops.extend((0..4).map(|k| format!("    {}", statement(b * 4 + k, "i"))));
    }
    loops.push("for i in range(n):".to_string());
    loops.extend((0..400).map(|k| format!("    {}", statement(k, "i"))));
    check("loops_2000.py", &python_kernel(&loops), "nn=40,n=3");
}
