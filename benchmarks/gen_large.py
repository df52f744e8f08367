#!/usr/bin/env python3
"""Generates large kernels for the transpile-scaling benchmark (benchmarks/bench_transpile.sh).

    gen_large.py SHAPE N LANG > kernel.{py,f90}

SHAPE: straight   N straight-line statements (scalars and array elements, with data
                  dependencies: each statement reads earlier results, some overwrite)
       loop       the same N statements inside one `for i in range(n)` body
       loops      N/4 small loops of 4 statements each
       nested     N statements spread over loop nests 4 deep
       sum        one statement y = a*x[0] + x[1] + b*x[2] ... with N terms
LANG:  py | f90
Deterministic (no randomness): the same arguments give the same file.
"""
import sys


def stmt_py(k, idx):
    """Statement k; idx is the index expression for element accesses ('' = constant)."""
    j = (k * 7) % 16
    e = lambda c: f"x[{idx}{'+' if idx else ''}{c}]" if idx else f"x[{c}]"
    o = lambda c: f"y[{idx}{'+' if idx else ''}{c}]" if idx else f"y[{c}]"
    p, q = f"s{(k - 1) % 32}" if k else "a", f"s{(k * 5 + 3) % 32}" if k > 32 else "b"
    m = k % 5
    if m == 0:
        return f"s{k % 32} = {p} * {e(j)} + {q}"
    if m == 1:
        return f"s{k % 32} = np.sin({p}) + a * {q}"
    if m == 2:
        return f"{o(j)} = {o(j)} + {p} * {e((j + 1) % 16)}"
    if m == 3:
        return f"s{k % 32} = {p} * {q} - {o((j + 3) % 16)}"
    return f"{o((j + 5) % 16)} += np.exp(0.001 * {p})"


def stmt_f90(k, idx):
    s = stmt_py(k, idx)
    s = s.replace("np.", "").replace("[", "(").replace("]", ")").replace("0.001", "0.001d0")
    if "+=" in s:
        lhs, rhs = s.split(" += ")
        s = f"{lhs} = {lhs} + {rhs}"
    return s


def py(shape, n):
    out = ['import numpy as np', '', '', 'def kernel(x: "float64[nn]", y: "float64[nn]", a: float, b: float, n: int):']
    for k in range(32):
        out.append(f"    s{k} = 0.0")
    if shape == "straight":
        out += [f"    {stmt_py(k, '')}" for k in range(n)]
    elif shape == "loop":
        out.append("    for i in range(n):")
        out += [f"        {stmt_py(k, 'i')}" for k in range(n)]
    elif shape == "loops":
        for b in range(n // 4):
            out.append(f"    for i in range(n):")
            out += [f"        {stmt_py(b * 4 + k, 'i')}" for k in range(4)]
    elif shape == "nested":
        per = max(1, n // 64)
        k = 0
        while k < n:
            out += ["    for i in range(2):", "        for j in range(2):",
                    "            for l in range(2):", "                for m in range(n):"]
            for _ in range(per):
                out.append(f"                    {stmt_py(k, 'm')}")
                k += 1
    elif shape == "sum":
        terms = [f"x[{t}]" if t % 3 else ("a" if t % 2 else "b") + f" * x[{t}]" for t in range(n)]
        out.append("    y[0] = " + " + ".join(terms))
    out.append("    y[1] = y[1] + " + " + ".join(f"s{k}" for k in range(32)))
    return "\n".join(out) + "\n"


def wrap_f90(head, terms):
    """`head` followed by the sum of `terms`, continued with `&` every ~100 columns."""
    lines, cur = [], head
    for t, term in enumerate(terms):
        piece = term + (" + " if t + 1 < len(terms) else "")
        if len(cur) + len(piece) > 100:
            lines.append(cur + "&")
            cur = "      & "
        cur += piece
    return lines + [cur]


def f90(shape, n):
    # Fortran arrays are declared 0:N-1 so that indices match the Python kernel.
    out = ["subroutine kernel(nn, n, x, y, a, b)", "  implicit none", "  integer, intent(in) :: nn, n",
           "  real(8), intent(in) :: x(0:nn-1), a, b", "  real(8), intent(inout) :: y(0:nn-1)",
           "  real(8) :: " + ", ".join(f"s{k}" for k in range(16)),
           "  real(8) :: " + ", ".join(f"s{k}" for k in range(16, 32)), "  integer :: i, j, l, m"]
    for k in range(32):
        out.append(f"  s{k} = 0.0d0")
    if shape == "straight":
        out += [f"  {stmt_f90(k, '')}" for k in range(n)]
    elif shape == "loop":
        out.append("  do i = 0, n - 1")
        out += [f"    {stmt_f90(k, 'i')}" for k in range(n)]
        out.append("  end do")
    elif shape == "loops":
        for b in range(n // 4):
            out.append("  do i = 0, n - 1")
            out += [f"    {stmt_f90(b * 4 + k, 'i')}" for k in range(4)]
            out.append("  end do")
    elif shape == "nested":
        per = max(1, n // 64)
        k = 0
        while k < n:
            out += ["  do i = 0, 1", "  do j = 0, 1", "  do l = 0, 1", "  do m = 0, n - 1"]
            for _ in range(per):
                out.append(f"    {stmt_f90(k, 'm')}")
                k += 1
            out += ["  end do"] * 4
    elif shape == "sum":
        terms = [f"x({t})" if t % 3 else ("a" if t % 2 else "b") + f" * x({t})" for t in range(n)]
        out += wrap_f90("  y(0) = ", terms)
    out += wrap_f90("  y(1) = y(1) + ", [f"s{k}" for k in range(32)])
    out.append("end subroutine kernel")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    shape, n, lang = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    sys.stdout.write(py(shape, n) if lang == "py" else f90(shape, n))
