//! Hostile and broken input never panics, never produces invalid IR and never hits an
//! internal error: random bytes, every prefix of realistic kernels, and random
//! well-formed kernels built from the supported constructs.

mod common;
use adjc_frontend::{lower_python, PythonOptions};

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

/// Lowers and checks the outcome: valid IR, or a diagnostic that is not an internal error.
/// Lowers, validates and prints on a thread with a large stack, as `adjc` runs every stage
/// (long operator chains make deep, left-leaning expression trees).
fn check(src: &str, opts: &PythonOptions) {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn_scoped(s, || check_here(src, opts))
            .unwrap()
            .join()
            .unwrap()
    })
}

fn check_here(src: &str, opts: &PythonOptions) {
    match lower_python("fuzz.py", src, opts) {
        Ok(m) => {
            for f in &m.functions {
                if let Err(e) = adjc_ir::validate::validate(f) {
                    panic!("invalid IR for:\n{src}\n{e}");
                }
            }
            let _ = adjc_ir::print::print_module(&m);
        }
        Err(d) => {
            assert!(!d.internal, "internal error for:\n{src}\n{}", d.render("fuzz.py", src));
            let _ = d.render("fuzz.py", src);
        }
    }
}

fn examples() -> Vec<String> {
    let dir = format!("{}/../examples/python", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(&dir) {
        let mut paths: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if let Ok(s) = std::fs::read_to_string(&p) {
                out.push(s);
            }
        }
    }
    out.push(SNIPPET.to_string());
    out
}

const SNIPPET: &str = "import numpy as np
N0 = 3
def helper(u, k=2):
    u[1:-1] *= k
    return u.sum(), u[::-1].copy()

def kernel(A, B, x, alpha: float, N: int):
    n, m = A.shape
    s, r = helper(x)
    for i in range(N - 1, 0, -1):
        for j in range(i):
            A[i, :j] -= A[j, :j] * alpha
        x[i] = (x[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
        if s > 0:
            s = s - 1
    B[:] = np.exp(A - np.max(A, axis=-1, keepdims=True)) + r[:, None]
    B[B < 0.5] = 0.0
    return np.sum(B, axis=(0, 1)), B.T @ x
";

#[test]
fn random_bytes_do_not_panic() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for round in 0..400 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                // Mostly printable Python-ish characters, some raw bytes.
                if rng.below(4) == 0 {
                    rng.next() as u8
                } else {
                    let alphabet = b"def f(A, B):\n    []=+-*/@.,:0123456789 npsumx\n\t()#'\"";
                    alphabet[rng.below(alphabet.len())]
                }
            })
            .collect();
        let src = String::from_utf8_lossy(&bytes).into_owned();
        check(&src, &PythonOptions::default());
        if round % 50 == 0 {
            check(&src, &PythonOptions { entry: Some("f".into()), arg_specs: vec!["A: float64[N]".into()] });
        }
    }
}

#[test]
fn every_prefix_of_the_examples_is_handled() {
    for src in examples() {
        let chars: Vec<char> = src.chars().collect();
        for cut in 0..=chars.len() {
            let prefix: String = chars[..cut].iter().collect();
            check(&prefix, &PythonOptions::default());
        }
    }
}

#[test]
fn mutated_examples_are_handled() {
    let mut rng = Rng(12345);
    let pieces = [
        "[",
        "]",
        "(",
        ")",
        ":",
        ",",
        "-1",
        "None",
        "np.newaxis",
        "...",
        "@",
        "**",
        "+=",
        "A",
        "i",
        "0",
        "2.5",
        "\n",
        "    ",
        "np.sum(",
        "axis=",
        "keepdims=True",
        ".T",
        ".shape",
        "return ",
        "for i in range(3):\n        ",
        "if ",
        "else:",
        "x",
        "=",
        "1:",
        "::-1",
        "//",
        "%",
        ".reshape(",
        "np.std(",
        "np.eye(",
        ", -1)",
    ];
    for src in examples() {
        for _ in 0..150 {
            let mut s: Vec<char> = src.chars().collect();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(s.len() + 1);
                match rng.below(3) {
                    0 if at < s.len() => {
                        s.remove(at);
                    }
                    1 => {
                        let p: Vec<char> = rng.pick(&pieces).chars().collect();
                        for (k, c) in p.into_iter().enumerate() {
                            s.insert(at + k, c);
                        }
                    }
                    _ => {
                        if at < s.len() {
                            let c = s[at];
                            s.insert(at, c);
                        }
                    }
                }
            }
            check(&s.into_iter().collect::<String>(), &PythonOptions::default());
        }
    }
}

/// Random well-formed kernels over the supported subset.
fn gen_expr(rng: &mut Rng, depth: usize, in_loop: bool) -> String {
    let atoms = [
        "A",
        "B",
        "x",
        "y",
        "alpha",
        "1",
        "2.0",
        "0.5",
        "N",
        "i",
        "A[1:-1]",
        "A[:-2]",
        "A[2:]",
        "A[i]",
        "A[i, :]",
        "A[:, 0]",
        "x[::2]",
        "x[::-1]",
        "x[1:]",
        "x[:i]",
        "A[i, :i]",
        "B.T",
        "A[None, :, 0]",
        "x[:, None]",
        "np.pi",
        "A.shape[0]",
        "x.sum()",
        "np.max(A, axis=0)",
        "np.sum(A, axis=-1, keepdims=True)",
        "A @ x",
        "x @ x",
        "np.zeros(N)",
        "np.ones((N, N))",
        "A.copy()",
        "np.mean(B)",
        "len(x)",
        "np.std(A, axis=0)",
        "B.var(ddof=1)",
        "np.eye(N)",
        "np.identity(N, dtype=np.float32)",
        "np.sign(x)",
        "A.reshape(-1)",
        "np.reshape(x, (N, 1))",
        "A.ravel()[::2]",
        "np.reshape(A, (1, N, N)) @ B",
        "A.reshape(N, 1, N) @ x",
    ];
    if depth == 0 || rng.below(3) == 0 {
        loop {
            let a = rng.pick(&atoms);
            if in_loop || !a.contains('i') || a.contains("sin") || a.contains("pi") {
                return a.to_string();
            }
        }
    }
    let a = gen_expr(rng, depth - 1, in_loop);
    let b = gen_expr(rng, depth - 1, in_loop);
    match rng.below(9) {
        0 => format!("({a} + {b})"),
        1 => format!("({a} - {b})"),
        2 => format!("({a} * {b})"),
        3 => format!("({a} / {b})"),
        4 => format!("({a} ** 2)"),
        5 => format!("np.{}({a})", rng.pick(&["exp", "sin", "sqrt", "abs", "tanh", "log"])),
        6 => format!("np.maximum({a}, {b})"),
        7 => format!("np.where({a} > {b}, {a}, {b})"),
        _ => format!("-{a}"),
    }
}

fn gen_stmt(rng: &mut Rng, depth: usize, indent: &str, out: &mut String) {
    let targets = ["A", "B", "x", "y", "A[1:-1]", "A[i]", "x[:]", "x[1:]", "A[i, :i]", "B[:, 0]", "s", "t", "y[::2]"];
    match rng.below(7) {
        0..=2 => {
            let mut t = rng.pick(&targets);
            while depth == 0 && t.contains('i') {
                t = rng.pick(&targets);
            }
            out.push_str(&format!("{indent}{t} = {}\n", gen_expr(rng, 2, depth > 0)));
        }
        3 => {
            let mut t = rng.pick(&targets);
            while depth == 0 && t.contains('i') {
                t = rng.pick(&targets);
            }
            let op = rng.pick(&["+=", "-=", "*=", "/="]);
            out.push_str(&format!("{indent}{t} {op} {}\n", gen_expr(rng, 1, depth > 0)));
        }
        4 if depth < 2 => {
            let bounds = rng.pick(&["N", "1, N - 1", "N - 1, -1, -1", "i", "0, N, 2"]);
            out.push_str(&format!("{indent}for i in range({bounds}):\n"));
            let inner = format!("{indent}    ");
            for _ in 0..1 + rng.below(2) {
                gen_stmt(rng, depth + 1, &inner, out);
            }
        }
        5 if depth < 2 => {
            out.push_str(&format!("{indent}if s > {}:\n", rng.below(3)));
            gen_stmt(rng, depth + 1, &format!("{indent}    "), out);
            out.push_str(&format!("{indent}else:\n"));
            gen_stmt(rng, depth + 1, &format!("{indent}    "), out);
        }
        _ => out.push_str(&format!("{indent}s = np.sum({})\n", gen_expr(rng, 1, depth > 0))),
    }
}

#[test]
fn random_kernels_lower_or_fail_cleanly() {
    let mut rng = Rng(0xdeadbeef);
    let mut ok = 0;
    for _ in 0..600 {
        let mut src =
            String::from("import numpy as np\n\ndef k(A, B, x, y, alpha: float, N: int):\n    s = 0.0\n    t = 1.0\n");
        if rng.below(2) == 0 {
            src.push_str("    for i in range(1, N):\n");
            src.push_str("        A[i, :i] = A[i - 1, :i] * 2\n");
        }
        for _ in 0..1 + rng.below(4) {
            gen_stmt(&mut rng, 0, "    ", &mut src);
        }
        if rng.below(2) == 0 {
            src.push_str(&format!("    return {}\n", gen_expr(&mut rng, 2, false)));
        }
        let opts = if rng.below(2) == 0 {
            PythonOptions {
                entry: None,
                arg_specs: vec![
                    "A: float64[N, N]".into(),
                    "B: float64[N, N]".into(),
                    "x: float64[N]".into(),
                    "y: float64[N]".into(),
                ],
            }
        } else {
            PythonOptions::default()
        };
        match lower_python("fuzz.py", &src, &opts) {
            Ok(_) => ok += 1,
            Err(d) if std::env::var("FUZZ_SHOW").is_ok() => eprintln!("{}", d.render("fuzz.py", &src)),
            Err(_) => {}
        }
        check(&src, &opts);
    }
    // The generator is meant to exercise lowering, not only error paths.
    assert!(ok > 100, "only {ok} random kernels lowered");
}

#[test]
fn deep_nesting_is_rejected_not_overflowed() {
    if std::env::var("SKIP_PARENS").is_err() {
        let deep = format!("def f(x):\n    return {}x{}\n", "(".repeat(5000), ")".repeat(5000));
        check(&deep, &PythonOptions::default());
    }
    if std::env::var("SKIP_CHAIN").is_err() {
        let chain = format!("def f(x):\n    return {}\n", vec!["x"; 3000].join(" + "));
        check(&chain, &PythonOptions::default());
        // Longer than the chain limit: an error, not an overflow.
        let chain = format!("def f(x):\n    return {}\n", vec!["x"; 6000].join(" * "));
        check(&chain, &PythonOptions::default());
    }
    let blocks: String = (0..300).map(|k| format!("{}if x > 0:\n", "    ".repeat(k + 1))).collect();
    check(&format!("def f(x):\n{blocks}{}x = 1\n", "    ".repeat(301)), &PythonOptions::default());
}
