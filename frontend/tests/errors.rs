//! Unsupported or wrong input gives one diagnostic with the right message and position.

mod common;
use common::*;

/// Asserts the message contains `msg` and the span starts at `line:col`.
fn expect(src: &str, msg: &str, line: u32, col: u32) -> adjc_ir::Diagnostic {
    let d = lower_err(src);
    assert!(d.message.contains(msg), "message `{}` does not contain `{msg}`", d.message);
    assert_eq!((d.span.line, d.span.col), (line, col), "position of `{}`", d.message);
    d
}

#[test]
fn syntax_errors_point_at_the_broken_statement() {
    expect("def f(x):\n    return x +* 2\n", "syntax error", 2, 5);
    expect("def f(x:\n    return x\n", "syntax error", 1, 1);
    expect("def f(x):\n    y = (x + 1\n", "syntax error", 2, 5);
}

/// What CPython rejects and tree-sitter recovers from or accepts: one stray space must not
/// drop a `return` or move a statement out of its loop.
#[test]
fn python_syntax_rules_cpython_enforces() {
    expect("def f(x):\n    y = 2.0 * x\n     return y\n", "unexpected indent", 3, 6);
    expect("def f(x):\n    y = 2.0 * x\n   return y\n", "unindent does not match any outer indentation level", 3, 4);
    expect(
        "def f(A):\n    for i in range(3):\n        A[i] = 1.0\n      A[0] = 2.0\n",
        "unindent does not match any outer indentation level",
        4,
        7,
    );
    expect("def f(A):\n    for i in range(3):\n    A[i] = 1.0\n", "expected an indented block after line 2", 3, 5);
    expect("def f(A):\n    if A:\n        x = 1\n\ty = 2\n", "inconsistent use of tabs and spaces", 4, 2);
    expect("def f(x, x):\n    return x\n", "duplicate argument 'x' in function definition", 1, 10);
    expect("def f(x, y=1, z):\n    return x\n", "parameter without a default follows parameter with a default", 1, 15);
    expect("def f(x, *):\n    return x\n", "named arguments must follow bare *", 1, 10);
    expect("def f(x):\n    return g(x, a=1, a=2)\n", "keyword argument repeated: a", 2, 22);
    expect("def f(x):\n    return g(a=1, x)\n", "positional argument follows keyword argument", 2, 19);
    expect("def f(x):\n    return x\nreturn 1\n", "'return' outside function", 3, 1);
    expect("def f(x):\n    return x\nyield 1\n", "'yield' outside function", 3, 1);
    expect("def f(x):\n    break\n", "'break' outside loop", 2, 5);
    expect("def f(x):\n    for i in range(3):\n        pass\n    else:\n        continue\n", "'continue' not", 5, 9);
    expect("def f(x):\n    await x\n", "'await' outside async function", 2, 5);
    expect("def f(x):\n    print x\n", "Python 2 `print` statement", 2, 5);
    expect("def f(x):\n    c = \n    d = 1.0\n", "the statement ends here, unfinished", 2, 9);
    expect("def f(x):\n    x[0] = np.sqrt:(x[0])\n", "an assignment inside an assignment", 2, 12);
    expect("def f(x):\n    a = b += 1\n", "an assignment inside an assignment", 2, 9);
    expect("def f(x):\n    a, b: int = 1\n", "only single target (not tuple) can be annotated", 2, 5);
    expect("def f(x):\n    (a, b) += 1\n", "illegal expression for augmented assignment", 2, 5);
    expect("import g() as np\ndef f(x):\n    return x\n", "syntax error", 1, 1);
    // In a helper that is never called, too.
    for (line, msg) in [
        ("del 1", "cannot delete this expression"),
        ("a, *b, *c = x", "multiple starred expressions in assignment"),
        ("return g(y for y in x, 1)", "must be parenthesised"),
        ("x := 1", "an unparenthesised `:=`"),
        ("return *x", "can't use starred expression here"),
        ("return x <> 1", "`<>` (Python 2)"),
        ("raise E, 'x'", "Python 2 `raise E, value`"),
        ("return ur'x'", "invalid string literal"),
        ("return 0777", "leading zeros in decimal integer literals"),
        ("global x", "name 'x' is parameter and global"),
        ("y = 1\n    global y", "name 'y' is used prior to global declaration"),
    ] {
        let src = format!("def h(x):\n    {line}\n\ndef f(z):\n    return 2.0 * z\n");
        let d = lower_err(&src);
        assert!(d.message.contains(msg), "{line}: {}", d.message);
        assert!((2..=3).contains(&d.span.line), "{line}: line {}", d.span.line);
    }
    // An error in a function that is not compiled is still an error (CPython compiles the
    // whole file).
    expect("def g(x, x):\n    return x\n\ndef f(x):\n    return x\n", "duplicate argument", 1, 10);
    // Valid layouts stay accepted.
    for ok in [
        "def f(x):\n    if x > 0: x = 1.0; x = 2.0\n    y = (x +\n         1.0)\n    z = x + \\\n1.0\n    return y + z\n",
        "def f(x):\n\ty = x\n\treturn y\n",
        "def f(x):\n  # a comment anywhere\n        # another\n    return x\n\n   \n",
        "def f(x):\n    s = '''\nnot indented\n'''\n    return x\n",
    ] {
        if let Err(d) = adjc_frontend::lower_python("k.py", ok, &Default::default()) {
            assert!(!d.message.contains("indent") && !d.message.contains("syntax"), "{ok}: {}", d.message);
        }
    }
}

#[test]
fn unsupported_statements() {
    // `while`, `break`, `continue`, early `return` and `for/while ... else` are supported;
    // what is not says so.
    expect(
        "import numpy as np\ndef f(A: 'float64[N]'):\n    while np.sum(A * A) > 1.0:\n        A[:] = 0.5 * A\n",
        "needs statements of its own",
        3,
        11,
    );
    expect(
        "def f(A: 'float64[N]'):\n    for i in range(3):\n        if A[i] > 0:\n            return A\n    return A\n",
        "an early `return` of",
        4,
        20,
    );
    expect(
        "def f(A):\n    if A[0] > 0:\n        return 1.0\n    A[0] = 1.0\n",
        "returns a value early but not at its end",
        4,
        5,
    );
    expect("X = 1\ndef f(A):\n    global X\n", "`global` is not supported", 3, 5);
    expect("def f(A):\n    with g() as h:\n        pass\n", "`with` is not supported", 2, 5);
    expect("def f(A):\n    try:\n        pass\n    except E:\n        pass\n", "`try` is not supported", 2, 5);
    expect("class K:\n    pass\n\ndef f(A):\n    pass\n", "classes are not supported", 1, 1);
    expect("def f(A):\n    for i, j in g():\n        pass\n", "unsupported loop target", 2, 9);
    expect("def f(A):\n    for a in A:\n        pass\n", "unsupported loop over `A`", 2, 14);
}

#[test]
fn unsupported_expressions() {
    expect("def f(A):\n    return [a * 2 for a in A]\n", "comprehensions are not supported", 2, 12);
    expect("def f(A):\n    g = lambda x: x\n", "lambdas are not supported", 2, 9);
    expect("def f(A, *args):\n    pass\n", "`*args` parameters are not supported", 1, 10);
    expect("def f(A, **kw):\n    pass\n", "`**kw` parameters are not supported", 1, 10);
    let d = expect(
        "import numpy as np\ndef f(x: 'float64[N]'):\n    return np.fft.fft(x)\n",
        "`np.fft.fft` is not supported",
        3,
        12,
    );
    assert!(d.help.unwrap_or_default().contains("np.exp"));
    expect("def f(x: 'float64[N]'):\n    return x.foo\n", "the attribute `.foo` is not supported", 2, 12);
    expect("def f(x: 'float64[N]'):\n    return x.sort()\n", "the method `.sort()` is not supported", 2, 12);
    expect("def f(x: 'float64[N]'):\n    y = g(x)\n", "unknown function `g`", 2, 9);
}

#[test]
fn indexing_errors() {
    expect("def f(x: 'float64[N]', y: 'float64[N]'):\n    x[:] = x[y[:]]\n", "float array `y[:]`", 2, 14);
    expect(
        "def f(x: 'float64[N]', y: 'float64[N]'):\n    return x[y > 0]\n",
        "boolean mask indexing `[y > 0]` is only supported as an assignment target",
        2,
        14,
    );
    // Reductions over a mask selection are supported whole (mask_reduce.rs); these are not.
    expect("def f(x: 'float64[N]'):\n    return np.sum(x[x > 0], axis=0)\n", "takes no `axis` or `keepdims`", 2, 34);
    expect(
        "def f(x: 'float64[N]', y: 'float64[N]'):\n    return np.sum(x[x > 0] * y)\n",
        "`y` in a reduction over the boolean-mask selection `[x > 0]` is not supported",
        2,
        30,
    );
    expect(
        "def f(x: 'float64[N]', y: 'float64[N]'):\n    return np.sum(x[x > 0] * y[y > 0])\n",
        "a second mask `y > 0` in a reduction over `[x > 0]`",
        2,
        32,
    );
    expect("def f(A: 'float64[N]'):\n    return A[0, 1]\n", "too many indices", 2, 12);
    expect("def f(A: 'float64[N]'):\n    A[0.5] = 1\n", "an array index must be an integer", 2, 7);
    expect("def f(A: 'float64[N]', s: int):\n    A[::s] = 1\n", "slice steps must be integer constants", 2, 7);
}

#[test]
fn shape_mismatches_are_reported_with_extents() {
    let d = expect(
        "def f(A: 'float64[N]', B: 'float64[N]'):\n    return A[1:] + B\n",
        "shape mismatch: `A[1:]` has extent N - 1, `B` has extent N",
        2,
        12,
    );
    assert!(d.help.is_some());
    // Different size parameters may agree: checked on entry (NumPy would also broadcast an
    // extent that is 1 at run time; adjc asks for equality).
    let text = ir("def f(A: 'float64[N]', B: 'float64[M]'):\n    A[:] = B\n");
    assert!(text.contains("  assume N == M  # equal extents of `A[:]` and `B`, line 2\n"), "{text}");
    let text = ir("def f(A: 'float64[N]', B: 'float64[M]'):\n    return A[1:] + B[:-1]\n");
    assert!(text.contains("  assume N == M  # equal extents of `A[1:]` and `B[:-1]`, line 2\n"), "{text}");
    expect("def f(A: 'float64[4]', B: 'float64[5]'):\n    C = A * B\n", "`A` has extent 4, `B` has extent 5", 2, 9);
    expect("def f(A: 'float64[N, M]', x: 'float64[M + 1]'):\n    return A @ x\n", "shape mismatch in `A @ x`", 2, 12);
    expect(
        "def f(A: 'float64[N, 3]', x: 'float64[4]'):\n    return A @ x\n",
        "`A` has extent 3, `x` has extent 4",
        2,
        12,
    );
    // Different size parameters may agree: checked when the function is called.
    let text = ir("def f(A: 'float64[N, M]', x: 'float64[K]'):\n    return A @ x\n");
    assert!(text.contains("  assume M == K  # inner extents of `A @ x`, line 2\n"), "{text}");
    // Extents with a loop index cannot be compared on entry.
    expect(
        "def f(A: 'float64[N, N]', x: 'float64[N]', n: int):\n    for i in range(n):\n        x[i] = A[i, :i] @ x[:n - i]\n",
        "shape mismatch in `A[i, :i] @ x[:n - i]`",
        3,
        16,
    );
    expect(
        "def f(A: 'float64[N, M]', x: 'float64[N]'):\n    x[:] = A\n",
        "cannot assign `A` (2 dimensions) to `x[:]`",
        2,
        5,
    );
}

/// Slices and products whose lengths disagree for some iteration: NumPy raises, so adjc must
/// neither infer an extent from them nor emit C that reads past an axis.
#[test]
fn slice_lengths_that_differ_are_errors_or_entry_checks() {
    // Lengths that provably differ: the error names both.
    expect(
        "def f(A: 'float64[N, N]', x: 'float64[N]', y: 'float64[N]'):\n    n = A.shape[0]\n    for i in range(n):\n        y[i] = A[i, i+1:] @ x[i:]\n",
        "`A[i, i+1:]` has extent N - i - 1, `x[i:]` has extent N - i",
        4,
        16,
    );
    // A difference that depends on the loop variable: never equal for every iteration.
    expect(
        "import numpy as np\ndef f(x: 'float64[N]', y: 'float64[N]', z: 'float64[N]'):\n    n = x.shape[0]\n    for i in range(n):\n        z[i] = np.sum(x[i:] * y[:i])\n",
        "shape mismatch: `x[i:]` has extent N - i, `y[:i]` has extent i",
        5,
        23,
    );
    expect(
        "def f(x: 'float64[N]', y: 'float64[M]'):\n    n = x.shape[0]\n    for i in range(n):\n        x[i:] = y[:i]\n",
        "shape mismatch: `x[i:]` has extent N - i, `y[:i]` has extent i",
        4,
        9,
    );
    // A difference over parameters only: one check on entry (`N - i - 1 == M - i`).
    let text = ir("def f(A: 'float64[N, N]', x: 'float64[M]', y: 'float64[N]'):\n    n = A.shape[0]\n    for i in range(n):\n        y[i] = A[i, i+1:] @ x[i:]\n");
    assert!(text.contains("  assume N == M + 1  # inner extents of `A[i, i+1:] @ x[i:]`, line 4\n"), "{text}");
    let text = ir("import numpy as np\ndef f(x: 'float64[N]', y: 'float64[M]', z: 'float64[N]'):\n    n = x.shape[0]\n    for i in range(n):\n        z[i] = np.sum(x[i:] * y[i:])\n");
    assert!(text.contains("  assume N == M  # equal extents of `x[i:]` and `y[i:]`, line 5\n"), "{text}");
}

/// Slice bounds NumPy would clip or count from the end: proved inside the axis from the
/// loop ranges, checked on entry, or refused (never a read past the axis).
#[test]
fn slice_bounds_outside_the_axis() {
    // A computed start that is negative in the first iteration: NumPy counts it from the end.
    let d = expect(
        "import numpy as np\ndef f(x: 'float64[N]', y: 'float64[N]'):\n    n = x.shape[0]\n    for i in range(n):\n        y[i] = np.sum(x[i-1:i+2])\n",
        "the slice start may fall outside the axis (0 <= i - 1 does not always hold)",
        5,
        23,
    );
    assert!(d.message.contains("NumPy would count a negative bound from the end"), "{}", d.message);
    // A stop past the end in the last iteration: NumPy clips it.
    expect(
        "import numpy as np\ndef f(x: 'float64[N]', y: 'float64[N]'):\n    n = x.shape[0]\n    for i in range(n):\n        y[i] = np.sum(x[i:i+3])\n",
        "the slice stop may fall outside the axis (i + 3 <= N does not always hold)",
        5,
        23,
    );
    // Inside the axis for every iteration of the loop: no check at all.
    let text = ir("import numpy as np\ndef f(x: 'float64[N]', y: 'float64[N]'):\n    n = x.shape[0]\n    for i in range(1, n - 2):\n        y[i] = np.sum(x[i-1:i+3])\n");
    assert!(!text.contains("assume"), "{text}");
    // Bounds over parameters only: checked on entry.
    let text = ir("import numpy as np\ndef f(x: 'float64[N]', y: 'float64[M]', z: 'float64[N]'):\n    n = x.shape[0]\n    for i in range(n):\n        z[i] = np.sum(x[i:] * y[:n - i])\n");
    assert!(
        text.contains("  assume if 0 <= N - 1: N <= M  # slice stop inside the axis: N - i <= M, line 5\n"),
        "{text}"
    );
    let text = ir("def f(x: 'float64[N]'):\n    return x[:5] + x[-3:].sum()\n");
    assert!(text.contains("  assume 5 <= N  # slice stop inside the axis: 5 <= N, line 2\n"), "{text}");
    // ... and `3 <= N` is implied by `5 <= N`: one check.
    assert_eq!(text.matches("assume").count(), 1, "{text}");
    let text = ir("def f(x: 'float64[N]'):\n    return x[-3:] * 2.0\n");
    assert!(text.contains("  assume 3 <= N  # slice start inside the axis: 0 <= N - 3, line 2\n"), "{text}");
    // A start past the end only empties the slice (NumPy clips it): no check, and the
    // returned array has max(0, N - 2) elements.
    let text = ir("def f(x: 'float64[N]'):\n    return x[1:-1] * 2.0\n");
    assert!(!text.contains("assume"), "{text}");
    assert!(text.contains("ret: f64[max(0, N - 2)] out"), "{text}");
    let text = ir("import numpy as np\ndef f(x: 'float64[N]'):\n    return np.mean(x[2:])\n");
    assert!(text.contains("/ f64(max(0, N - 2))"), "{text}");
}

#[test]
fn control_flow_errors() {
    expect(
        "def f(A: 'float64[N]'):\n    for i in range(3):\n        return A[i]\n",
        "returns a value early but not",
        2,
        5,
    );
    expect("def f(A: 'float64[N]'):\n    return A\n    A[0] = 1\n", "`return` must be the last statement", 2, 5);
    expect(
        "def f(A: 'float64[N]'):\n    for i in range(3):\n        i = 2\n",
        "the loop variable `i` is assigned inside its loop",
        3,
        9,
    );
    expect(
        "def f(A: 'float64[N]'):\n    for i in range(3):\n        pass\n    return A[i]\n",
        "not available after its loop",
        4,
        14,
    );
    expect(
        "def f(A: 'float64[N]'):\n    for i in range(0, 3, 0):\n        pass\n",
        "`range` step cannot be zero",
        2,
        14,
    );
    expect("def f(A: 'float64[N]'):\n    if A > 0:\n        pass\n", "the condition of an `if` must be a scalar", 2, 8);
    expect(
        "def f(A: 'float64[N]'):\n    u = A\n    for i in range(3):\n        v = u * 2\n        u = v\n",
        "`u` refers to a different array in each iteration",
        3,
        5,
    );
    expect("def g(x):\n    return g(x)\n\ndef f(A: 'float64[N]'):\n    return g(A)\n", "recursive call of `g`", 2, 12);
    expect(
        "def f(A: 'float64[N]'):\n    for i in range(3):\n        t = np.zeros(i)\n",
        "depends on loop variables",
        3,
        9,
    );
    expect("def f(A: 'float64[N]'):\n    return undefined_thing + 1\n", "undefined name `undefined_thing`", 2, 12);
}

#[test]
fn file_and_option_errors() {
    let d = lower_err("");
    assert!(d.message.contains("no function definition found"), "{}", d.message);
    assert!(lower_err("# only a comment\nX = 1\n").message.contains("no function definition"));
    let d = lower_err_with("def f(A):\n    A[0] = 1\n", &specs(&["B: float64[N]"]));
    assert!(d.message.contains("names `B`, but `f` has no such parameter"), "{}", d.message);
    assert_eq!((d.span.line, d.span.col), (1, 5));
    let d = lower_err_with("def f(A):\n    A[0] = 1\n", &specs(&["A float64"]));
    assert!(d.message.contains("cannot read the argument spec"), "{}", d.message);
    let d = lower_err_with(
        "def f(A):\n    A[0] = 1\n",
        &adjc_frontend::PythonOptions { entry: Some("g".into()), arg_specs: vec![] },
    );
    assert!(d.message.contains("function `g` not found"), "{}", d.message);
    let d = lower_err("def f(A, B):\n    C = A @ B\n");
    assert!(d.message.contains("cannot infer the number of dimensions of `A`"), "{}", d.message);
    assert_eq!((d.span.line, d.span.col), (1, 7));
}

#[test]
fn errors_in_unused_functions_do_not_matter() {
    let src = "def unused(x):\n    with x:\n        pass\n\ndef f(A):\n    A[0] = 1.0\n";
    let m = lower(src);
    assert_eq!(m.functions[0].name, "f");
}

#[test]
fn diagnostics_render_with_source_line() {
    // (`while ... else`, this test's first subject, is supported now: loop_else.rs.)
    let src = "def f(A):\n    while A[0] > 0:\n        A[0] -= 1\n    global B\n";
    let d = lower_err(src);
    let text = d.render("k.py", src);
    assert!(text.starts_with("k.py:4:5: error: `global` is not supported\n"), "{text}");
    assert!(text.contains("help: pass the value as a parameter"), "{text}");
}

#[test]
fn reshape_and_product_errors() {
    expect(
        "import numpy as np\ndef f(A: 'float64[3, 2]'):\n    return np.reshape(A, (4, 2))\n",
        "cannot reshape `A` of shape (3, 2) to (4, 2)",
        3,
        12,
    );
    // Element counts of parameters: checked on entry (NPBench's LeNet passes the flattened
    // extent as a parameter).
    let text = ir("import numpy as np\ndef f(A: 'float64[N, M]', K: int):\n    return np.reshape(A, (K, 2))\n");
    assert!(
        text.contains("  assume N * M == 2 * K  # equal element counts in `np.reshape(A, (K, 2))`, line 3\n"),
        "{text}"
    );
    expect(
        "def f(A: 'float64[N, M]'):\n    return A.reshape(-1, -1)\n",
        "only one extent of a new shape can be -1",
        2,
        12,
    );
    expect("def f(A: 'float64[N, M]', K: int):\n    return A.reshape(K, -1)\n", "cannot infer the `-1` extent", 2, 12);
    expect(
        "import numpy as np\ndef f(A: 'float64[B, N, K]', C: 'float64[K, M]'):\n    return np.dot(A, C)\n",
        "`np.dot` of arrays with more than 2 dimensions is not supported",
        3,
        12,
    );
    expect(
        "import numpy as np\ndef f(A: 'float64[N, M]', d: int):\n    return np.std(A, ddof=d)\n",
        "`ddof` must be an integer constant",
        3,
        27,
    );
    expect("def f(A: 'float64[N]'):\n    return A.reshape(2, 3, order='F')\n", "only C order", 2, 34);
}

#[test]
fn indices_that_leave_their_array() {
    // Past the end on every call that runs the loop: NumPy raises IndexError.
    let d = expect(
        "def f(x):\n    s = 0.0\n    for i in range(x.shape[0]):\n        s += x[i + 1]\n    return s\n",
        "index out of bounds",
        4,
        14,
    );
    assert!(d.help.unwrap_or_default().contains("IndexError"));
    // Below -n: `x[i - 5]` with `i < n` reaches `-5 - ...`, but NumPy only allows -n.
    expect(
        "def f(x: 'float64[4]'):\n    s = 0.0\n    for i in range(4):\n        s += x[i - 5]\n    return s\n",
        "index out of bounds",
        4,
        14,
    );
    // An index computed from a variable the loop changes cannot be checked on entry.
    expect(
        "def f(x, y):\n    k = 0\n    for i in range(x.shape[0]):\n        y[k] = x[i]\n        k = k + 2\n    return y\n",
        "cannot prove that this index of `y` stays inside the array: it depends on `k`",
        4,
        9,
    );
}
