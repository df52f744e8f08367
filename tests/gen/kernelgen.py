"""Random valid kernels for adjc (Csmith-style), in NumPy-style Python and in Fortran.

`generate(lang, seed, features)` returns a `Kernel`: its source text, file name, entry
function, the integer parameters the checks must be given (`N`, `M`, `T`) and the feature
classes it exercises. The same seed always gives the same kernel.

Design: a kernel has a fixed set of parameters (vectors over `N` and `M`, matrices over
`N x M` and `M x M`, float scalars, a step count `T`). Its body is a sequence of statements,
each drawn from one feature class; every statement writes an in-out array or a scalar
accumulator and reads the others through a random expression tree of bounded depth. The
expression builder only composes operations whose domains are safe for any bounded input
(`exp` of a `tanh`, `sqrt` of `u*u + 1`, `log` of `1 + u*u`, division by `2 + sin u`), and
every statement keeps values bounded (time loops average), so outputs stay finite at every
size. Index expressions are built so that a loop reads only in range for all sizes >= 0 where
its language has no wrap-around; Python kernels also use NumPy's negative indices on purpose
(`x[i - 1]` at `i == 0` is the last element, `x[(i + 1) % N]`). The runner confirms each
kernel with NumPy (or gfortran) at every size before checking adjc against it.

Feature classes (select with `features=`): affine, computed, slices, broadcast, reduce,
ifdata, overwrite, helper, blas, math.
"""

import random
import re
from dataclasses import dataclass, field

FEATURES = ["affine", "computed", "slices", "broadcast", "reduce", "ifdata", "overwrite", "helper", "blas", "math"]


@dataclass
class Kernel:
    lang: str
    seed: int
    name: str
    source: str
    features: list
    int_params: list = field(default_factory=list)  # names given by --sizes

    @property
    def filename(self):
        return self.name + (".py" if self.lang == "py" else ".f90")


# --------------------------------------------------------------------------- Python


class PyGen:
    def __init__(self, rng, features):
        self.r = rng
        self.f = set(features)
        self.helpers = []  # (name, source)
        self.uses_T = False
        self.scalars_defined = []  # local scalars usable after definition
        self.lines = []
        self.ns = 0

    # ---- expressions -------------------------------------------------------------
    def leaf(self, leaves):
        r = self.r
        x = r.random()
        if x < 0.12:
            return r.choice(["0.5", "1.5", "0.25", "2.0", "0.75"])
        if x < 0.2 and self.scalar_leaves:
            return r.choice(self.scalar_leaves)
        return r.choice(leaves)

    def expr(self, leaves, depth=2, vector=True):
        """A random bounded expression over `leaves` (strings of one common shape)."""
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(leaves)
        k = r.random()
        a = self.expr(leaves, depth - 1, vector)
        if k < 0.45:
            b = self.expr(leaves, depth - 1, vector)
            op = r.choice(["+", "-", "*", "+", "*"])
            return f"({a} {op} {b})"
        if k < 0.55:
            return f"{r.choice(['0.5', '0.3', '1.2'])} * {a}"
        if "math" not in self.f:
            b = self.expr(leaves, depth - 1, vector)
            return f"({a} + {b})"
        fns = [
            f"np.sin({a})",
            f"np.cos({a})",
            f"np.tanh({a})",
            f"np.exp(np.tanh({a}))",
            f"np.sqrt({a} * {a} + 1.0)",
            f"np.log(1.0 + {a} * {a})",
            f"1.0 / (2.0 + np.sin({a}))",
            f"({a}) ** 2",
            f"np.maximum({a}, 0.5 * {a})",
            f"np.arctan2({a}, 2.0)",
            f"np.where({a} > 0.0, {a}, 0.1 * {a})",
            f"np.clip({a}, -0.8, 0.8)",
            f"np.abs({a})",
            f"np.minimum({a}, {self.expr(leaves, 0, vector)})",
        ]
        if not vector:
            fns.append(f"({a} if {self.leaf(leaves)} > 0.0 else 0.5 * {a})")
        return r.choice(fns)

    # ---- statements --------------------------------------------------------------
    def emit(self, text, indent=1):
        for ln in text.split("\n"):
            self.lines.append("    " * indent + ln)

    def new_scalar(self):
        self.ns += 1
        return f"s{self.ns}"

    def st_affine(self):
        r = self.r
        if r.random() < 0.6:
            lo, hi = r.randint(0, 2), r.randint(0, 2)
            offs = list(range(-lo, hi + 1))
            leaves = [f"x[i{'+' if o >= 0 else '-'}{abs(o)}]".replace("+0]", "]") for o in offs]
            leaves = [lf.replace("[i+", "[i + ").replace("[i-", "[i - ") for lf in leaves]
            leaves += ["y[i]"] if r.random() < 0.5 else []
            tgt = r.choice(["y", "x"]) if "overwrite" in self.f else "y"
            hi_s = f"N - {hi}" if hi else "N"
            op = r.choice(["=", "+="])
            self.emit(f"for i in range({lo}, {hi_s}):\n    {tgt}[i] {op} {self.expr(leaves, 2, False)}")
        else:
            leaves = ["A[i, j]", "B[i, j]", "x[i]", "z[j]"]
            if r.random() < 0.5:
                leaves.append("A[i, j - 1]")
                self.emit(
                    f"for i in range(N):\n    for j in range(1, M):\n        A[i, j] = 0.5 * A[i, j - 1] + 0.5 * np.tanh({self.expr(leaves, 2, False)})"
                )
            else:
                self.emit(f"for i in range(N):\n    for j in range(M):\n        B[i, j] += {self.expr(leaves, 2, False)}")

    def st_computed(self):
        r = self.r
        k = r.randint(0, 5)
        if k == 4:
            # triangular slices read values updated by earlier iterations; index from the end
            self.emit(f"for i in range(N):\n    y[i] = 0.1 * np.sum(x[:i] * y[:i]) + {self.expr(['x[-i - 1]', 'y[i]'], 1, False)}")
            return
        if k == 5:
            # a loop running backwards with a negative step, reading ahead
            self.emit(f"for i in range(N - 2, -1, -1):\n    y[i] = 0.5 * y[i + 1] + {self.expr(['x[i]', 'y[i]', 'x[i - N]'], 1, False)}")
            return
        if k == 0:
            leaves = ["x[i - 1]", "x[(i + 1) % N]", "x[N - 1 - i]", "y[i]"]
            self.emit(f"for i in range(N):\n    y[i] = {self.expr(leaves, 2, False)}")
        elif k == 1:
            leaves = ["x[i - 2]", "x[i]", "x[-1]", "x[-i]"]
            self.emit(f"for i in range(1, N):\n    y[i - 1] += {self.expr(leaves, 2, False)}")
        elif k == 2:
            leaves = ["A[i - 1, j]", "A[i, (j + 1) % M]", "B[-1, j]", "B[i, j - 1]"]
            self.emit(f"for i in range(N):\n    for j in range(M):\n        B[i, j] = {self.expr(leaves, 2, False)}")
        else:
            leaves = ["x[i]", "x[i - 1]", "y[N - 1 - i]"]
            self.emit(f"for i in range(N - 1, -1, -1):\n    x[i] = 0.5 * x[i] + 0.25 * {self.expr(leaves, 1, False)}")

    SL1 = [["[:]", ""], ["[1:]", "[:-1]"], ["[1:-1]", "[:-2]", "[2:]"], ["[::2]", "[::-2]"], ["[::-1]", "[:]"]]

    def st_slices(self):
        r = self.r
        if r.random() < 0.15:
            self.emit(r.choice([
                f"y[:] = np.flip({self.expr(['x', 'y'], 1)}) * 0.5",
                "y[y > 0.5] = 0.5",
                f"y[x < 0.0] = {self.expr(['0.5', 'alpha'], 1)}",
                f"x[:], y[:] = {self.expr(['y'], 1)}, {self.expr(['x'], 1)}",
            ]))
            return
        if r.random() < 0.65:
            grp = r.choice(self.SL1)
            leaves = [f"{a}{s}" for a in ["x", "y"] for s in grp]
            tgt = "y" + r.choice(grp)
            if tgt == "y":
                tgt = "y[:]"
            self.emit(f"{tgt} {r.choice(['=', '+=', '*='])} {self.expr(leaves, 2)}")
        else:
            grp = r.choice(
                [
                    ["[1:-1, :]", "[:-2, :]", "[2:, :]"],
                    ["[:, 1:]", "[:, :-1]"],
                    ["[1:, 1:]", "[:-1, :-1]", "[1:, :-1]"],
                    ["[::2, :]", "[::-2, :]"],
                    ["[:, ::-1]", "[:, :]"],
                ]
            )
            leaves = [f"{a}{s}" for a in ["A", "B"] for s in grp]
            self.emit(f"B{r.choice(grp)} = {self.expr(leaves, 2)}")

    def st_broadcast(self):
        r = self.r
        k = r.randint(0, 3)
        if k == 0:
            leaves = ["A", "x[:, None]", "z[None, :]", "z", "B"]
            self.emit(f"B[:, :] = {self.expr(leaves, 2)}")
        elif k == 1:
            self.emit(f"A += x[:, np.newaxis] * {r.choice(['z', 'np.tanh(z)', '0.5 * z[np.newaxis, :]'])}")
        elif k == 2:
            s = r.choice(self.scalar_leaves or ["0.5"])
            self.emit(f"y[:] = {self.expr(['x', 'y', s], 2)} + {s}")
        else:
            self.emit(f"for i in range(N):\n    B[i, :] = {self.expr(['A[i, :]', 'z', 'x[i]'], 2)}")

    def st_reduce(self):
        r = self.r
        k = r.randint(0, 5)
        if k == 0:
            s = self.new_scalar()
            self.emit(f"{s} = np.sum({self.expr(['x', 'y'], 2)})")
            self.scalar_leaves.append(s)
        elif k == 1:
            self.emit(f"y[:] = {self.expr(['y', 'np.sum(A, axis=1)', 'np.sum(A * B, axis=1)'], 2)}")
        elif k == 2:
            self.emit(f"z[:] = {self.expr(['z', 'np.sum(A, axis=0)', 'B.sum(axis=0)'], 2)}")
        elif k == 3:
            self.emit(f"A[:, :] = A - 0.5 * np.sum(A, axis=1, keepdims=True)")
        elif k == 4:
            s = self.new_scalar()
            self.emit(f"{s} = 0.0\nfor i in range(N):\n    {s} += {self.expr(['x[i]', 'y[i]'], 2, False)}")
            self.scalar_leaves.append(s)
        else:
            s = self.new_scalar()
            fn = r.choice(["np.mean(x)", "np.max(y)", "np.min(A, axis=0).sum()", "x.mean()", "np.sum(A)"])
            self.emit(f"{s} = {fn}")
            self.scalar_leaves.append(s)

    def st_ifdata(self):
        r = self.r
        if r.random() < 0.6:
            c = r.choice(["x[i] > 0.0", "y[i] < x[i]", "x[i] * y[i] > 0.1"])
            body = f"for i in range(N):\n    if {c}:\n        y[i] = {self.expr(['x[i]', 'y[i]'], 2, False)}\n"
            if r.random() < 0.4:
                body += f"    elif x[i] > -0.5:\n        y[i] = {self.expr(['x[i]', 'y[i]'], 1, False)}\n"
            body += f"    else:\n        y[i] = {self.expr(['x[i]', 'y[i]'], 2, False)}"
            self.emit(body)
        else:
            self.emit(
                f"if np.sum(x) > 0.0:\n    y[:] = {self.expr(['x', 'y'], 2)}\nelse:\n    y[:] = {self.expr(['x', 'y'], 1)}"
            )

    def st_overwrite(self):
        r = self.r
        k = r.randint(0, 3)
        if k == 0:
            self.uses_T = True
            self.emit(
                f"for t in range(T):\n    y[1:-1] = 0.5 * y[1:-1] + 0.25 * {self.expr(['y[:-2]', 'y[2:]', 'x[1:-1]'], 2)}"
            )
        elif k == 1:
            self.emit(r.choice(["x *= 0.9", "x[:] = np.tanh(x)", "y -= 0.5 * x", "A[1:, :] = A[1:, :] - 0.5 * A[:-1, :]"]))
        elif k == 2:
            self.emit(f"for i in range(1, N):\n    y[i] = 0.5 * y[i] + {self.expr(['y[i - 1]', 'x[i]'], 2, False)}")
        else:
            self.uses_T = True
            self.emit(
                f"for t in range(T):\n    for i in range(N):\n        x[i] = 0.5 * x[i] + 0.3 * {self.expr(['y[i]', 'x[i - 1]'], 1, False)}"
            )

    def st_helper(self):
        r = self.r
        n = len(self.helpers)
        if r.random() < 0.6:
            name = f"h{n}"
            saved, self.scalar_leaves = self.scalar_leaves, []
            self.helpers.append(f"def {name}(u, v):\n    return {self.expr(['u', 'v'], 2)}")
            self.scalar_leaves = saved
            if r.random() < 0.5:
                self.emit(f"y[:] = {name}(x, y)")
            else:
                self.emit(f"for i in range(N):\n    y[i] = {name}(x[i], y[i])")
        else:
            name = f"upd{n}"
            saved, self.scalar_leaves = self.scalar_leaves, []
            self.helpers.append(f"def {name}(u, c):\n    u[1:-1] += c * {self.expr(['u[:-2]', 'u[2:]'], 1)}")
            self.scalar_leaves = saved
            self.emit(f"{name}({r.choice(['x', 'y'])}, {r.choice(['0.5', 'alpha'])})")

    def st_blas(self):
        r = self.r
        k = r.randint(0, 5)
        if k == 0:
            self.emit(f"y[:] = A @ {r.choice(['z', 'np.tanh(z)'])}")
        elif k == 1:
            self.emit(f"y += alpha * (A @ z)")
        elif k == 2:
            s = self.new_scalar()
            self.emit(f"{s} = np.dot(x, {r.choice(['y', 'x'])})")
            self.scalar_leaves.append(s)
        elif k == 3:
            self.emit(f"z[:] = {r.choice(['A.T @ x', 'x @ A', 'np.dot(x, B)'])}")
        elif k == 4:
            self.emit(f"B[:, :] = {r.choice(['A @ C', 'A @ C.T', '0.5 * (B @ C)'])}")
        else:
            self.emit(f"B[:, :] = np.outer(x, z)")

    def build(self):
        r = self.r
        self.scalar_leaves = ["alpha"]
        kinds = [k for k in FEATURES if k in self.f and k != "math"] or ["affine"]
        nst = r.randint(2, 5)
        for _ in range(nst):
            getattr(self, "st_" + r.choice(kinds))()
        ret = None
        if r.random() < 0.5:
            ret = r.choice([s for s in self.scalar_leaves if s != "alpha"] or ["np.sum(y * y)"])
            if r.random() < 0.3:
                ret = f"y, {ret}"
        body = "\n".join(self.lines)
        params = [
            'x: "float64[N]"',
            'y: "float64[N]"',
            'z: "float64[M]"',
            'A: "float64[N, M]"',
            'B: "float64[N, M]"',
        ]
        if "A @ C" in body or "B @ C" in body:
            params.append('C: "float64[M, M]"')
        params.append("alpha: float")
        if self.uses_T:
            params.append("T: int")
        head = "    N, M = A.shape"
        src = "import numpy as np\n\n\n"
        for h in self.helpers:
            src += h + "\n\n\n"
        src += f"def kernel({', '.join(params)}):\n{head}\n{body}\n"
        if ret:
            src += f"    return {ret}\n"
        return src, (["N", "M"] + (["T"] if self.uses_T else []))


# --------------------------------------------------------------------------- Fortran


class FGen:
    def __init__(self, rng, features):
        self.r = rng
        self.f = set(features)
        self.lines = []
        self.helpers = []
        self.uses_t = False
        self.ns = 0
        self.scalar_leaves = ["alpha"]
        self.needs_c = False

    def leaf(self, leaves):
        r = self.r
        x = r.random()
        if x < 0.12:
            return r.choice(["0.5d0", "1.5d0", "0.25d0", "2.0d0"])
        if x < 0.2:
            return r.choice(self.scalar_leaves)
        return r.choice(leaves)

    def expr(self, leaves, depth=2):
        r = self.r
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(leaves)
        a = self.expr(leaves, depth - 1)
        k = r.random()
        if k < 0.45:
            return f"({a} {r.choice(['+', '-', '*', '+', '*'])} {self.expr(leaves, depth - 1)})"
        if k < 0.55:
            return f"{r.choice(['0.5d0', '0.3d0', '1.2d0'])} * {a}"
        if "math" not in self.f:
            return f"({a} + {self.expr(leaves, depth - 1)})"
        return r.choice(
            [
                f"sin({a})",
                f"cos({a})",
                f"tanh({a})",
                f"exp(tanh({a}))",
                f"sqrt({a} * {a} + 1.0d0)",
                f"log(1.0d0 + {a} * {a})",
                f"1.0d0 / (2.0d0 + sin({a}))",
                f"({a})**2",
                f"max({a}, 0.5d0 * {a})",
                f"min({a}, {self.leaf(leaves)})",
                f"abs({a})",
                f"atan({a})",
            ]
        )

    def emit(self, text, indent=2):
        for ln in text.split("\n"):
            ln = "  " * indent + ln
            # free form allows 132 columns: continue long statements with `&`
            while len(ln) > 100:
                cut = ln.rfind(" ", 40, 100)
                if cut < 0:
                    break
                self.lines.append(ln[:cut] + " &")
                ln = " " * (len(ln) - len(ln.lstrip()) + 4) + "& " + ln[cut + 1 :]
            self.lines.append(ln)

    def new_scalar(self):
        self.ns += 1
        s = f"s{self.ns}"
        return s

    def st_affine(self):
        r = self.r
        if r.random() < 0.6:
            lo, hi = r.randint(0, 2), r.randint(0, 2)
            leaves = [f"x(i{'+' if o >= 0 else '-'}{abs(o)})".replace("+0)", ")") for o in range(-lo, hi + 1)]
            leaves = [lf.replace("(i+", "(i + ").replace("(i-", "(i - ") for lf in leaves] + ["y(i)"]
            tgt = r.choice(["y", "x"]) if "overwrite" in self.f else "y"
            ub = f"n - {hi}" if hi else "n"
            self.emit(f"do i = {1 + lo}, {ub}\n  {tgt}(i) = {tgt}(i) + {self.expr(leaves)}\nend do")
        else:
            leaves = ["a(i, j)", "b(i, j)", "x(i)", "z(j)", "a(i, j - 1)"]
            self.emit(
                f"do i = 1, n\n  do j = 2, m\n    a(i, j) = 0.5d0 * a(i, j - 1) + 0.5d0 * tanh({self.expr(leaves)})\n  end do\nend do"
            )

    def st_computed(self):
        r = self.r
        if r.random() < 0.5:
            leaves = ["x(mod(i, n) + 1)", "x(n + 1 - i)", "y(i)", "x(max(i - 1, 1))"]
            self.emit(f"do i = 1, n\n  y(i) = {self.expr(leaves)}\nend do")
        else:
            leaves = ["a(i, mod(j, m) + 1)", "b(n + 1 - i, j)", "a(i, j)"]
            self.emit(f"do j = 1, m\n  do i = 1, n\n    b(i, j) = {self.expr(leaves)}\n  end do\nend do")

    def st_slices(self):
        r = self.r
        if r.random() < 0.65:
            grp = r.choice(
                [["(:)", ""], ["(2:n)", "(1:n - 1)"], ["(2:n - 1)", "(1:n - 2)", "(3:n)"], ["(1:n:2)", "(n:1:-2)"], ["(n:1:-1)", "(1:n)"]]
            )
            leaves = [f"{a}{s}" for a in ["x", "y"] for s in grp]
            tgt = "y" + r.choice(grp)
            self.emit(f"{tgt} = {self.expr(leaves)}")
        else:
            grp = r.choice([["(2:n - 1, :)", "(1:n - 2, :)", "(3:n, :)"], ["(:, 2:m)", "(:, 1:m - 1)"], ["(:, :)", "(n:1:-1, :)"]])
            leaves = [f"{a}{s}" for a in ["a", "b"] for s in grp]
            self.emit(f"b{r.choice(grp)} = {self.expr(leaves)}")

    def st_broadcast(self):
        r = self.r
        k = r.randint(0, 2)
        if k == 0:
            self.emit(f"do i = 1, n\n  b(i, :) = {self.expr(['a(i, :)', 'z', 'x(i)'])}\nend do")
        elif k == 1:
            self.emit(f"do j = 1, m\n  a(:, j) = a(:, j) + z(j) * {self.expr(['x', 'y'], 1)}\nend do")
        else:
            self.emit(f"y = {self.expr(['x', 'y'])} + {r.choice(self.scalar_leaves)}")

    def st_reduce(self):
        r = self.r
        k = r.randint(0, 4)
        if k == 0:
            s = self.new_scalar()
            e = self.expr(["x", "y"])
            if not re.search(r"\b[xy]\b", e):
                e = f"x * {e}"  # sum() of a scalar is not Fortran
            self.emit(f"{s} = sum({e})")
            self.scalar_leaves.append(s)
        elif k == 1:
            if r.random() < 0.1:
                # sum(array, dim): adjc refuses it today ("`sum` takes 1 argument(s)"): kept rare
                self.emit(f"y = {self.expr(['y', 'sum(a, 2)', 'sum(a * b, 2)'])}")
            else:
                self.emit(f"do i = 1, n\n  y(i) = {self.expr(['y(i)', 'sum(a(i, :))', 'sum(a(i, :) * b(i, :))'])}\nend do")
        elif k == 2:
            self.emit(f"do j = 1, m\n  z(j) = {self.expr(['z(j)', 'sum(a(:, j))', 'maxval(b(:, j))'])}\nend do")
        elif k == 3:
            s = self.new_scalar()
            self.emit(f"{s} = 0.0d0\ndo i = 1, n\n  {s} = {s} + {self.expr(['x(i)', 'y(i)'])}\nend do")
            self.scalar_leaves.append(s)
        else:
            s = self.new_scalar()
            self.emit(f"{s} = {r.choice(['maxval(x)', 'minval(y)', 'product(0.9d0 + 0.1d0 * x)', 'sum(a)'])}")
            self.scalar_leaves.append(s)

    def st_ifdata(self):
        r = self.r
        k = r.randint(0, 2)
        if k == 0:
            self.emit(
                f"do i = 1, n\n  if (x(i) > 0.0d0) then\n    y(i) = {self.expr(['x(i)', 'y(i)'])}\n"
                f"  else if (x(i) > -0.5d0) then\n    y(i) = {self.expr(['x(i)', 'y(i)'], 1)}\n"
                f"  else\n    y(i) = {self.expr(['x(i)', 'y(i)'])}\n  end if\nend do"
            )
        elif k == 1:
            self.emit(f"where (x > 0.0d0)\n  y = {self.expr(['x', 'y'])}\nelsewhere\n  y = {self.expr(['x', 'y'], 1)}\nend where")
        else:
            self.emit(f"y = merge({self.expr(['x', 'y'], 1)}, {self.expr(['x', 'y'], 1)}, x > y)")

    def st_overwrite(self):
        r = self.r
        k = r.randint(0, 2)
        if k == 0:
            self.uses_t = True
            self.emit(
                f"do t = 1, tsteps\n  y(2:n - 1) = 0.5d0 * y(2:n - 1) + 0.25d0 * {self.expr(['y(1:n - 2)', 'y(3:n)', 'x(2:n - 1)'])}\nend do"
            )
        elif k == 1:
            self.emit(r.choice(["x = 0.9d0 * x", "x = tanh(x)", "y = y - 0.5d0 * x", "a(2:n, :) = a(2:n, :) - 0.5d0 * a(1:n - 1, :)"]))
        else:
            self.emit(f"do i = 2, n\n  y(i) = 0.5d0 * y(i) + {self.expr(['y(i - 1)', 'x(i)'])}\nend do")

    def st_helper(self):
        r = self.r
        n = len(self.helpers)
        if r.random() < 0.5:
            name = f"h{n}"
            saved, self.scalar_leaves = self.scalar_leaves, ["0.5d0"]
            self.helpers.append(
                f"  elemental function {name}(u, v) result(w)\n    real(8), intent(in) :: u, v\n    real(8) :: w\n"
                f"    w = {self.expr(['u', 'v'])}\n  end function {name}\n"
            )
            self.scalar_leaves = saved
            if r.random() < 0.5:
                self.emit(f"y = {name}(x, y)")
            else:
                self.emit(f"do i = 1, n\n  y(i) = {name}(x(i), y(i))\nend do")
        else:
            name = f"upd{n}"
            saved, self.scalar_leaves = self.scalar_leaves, ["0.5d0"]
            self.helpers.append(
                f"  subroutine {name}(n, u, c)\n    integer, intent(in) :: n\n    real(8), intent(inout) :: u(n)\n"
                f"    real(8), intent(in) :: c\n    integer :: i\n    do i = 2, n - 1\n"
                f"      u(i) = u(i) + c * {self.expr(['u(i - 1)', 'u(i + 1)'], 1)}\n    end do\n  end subroutine {name}\n"
            )
            self.scalar_leaves = saved
            self.emit(f"call {name}(n, {r.choice(['x', 'y'])}, {r.choice(['0.5d0', 'alpha'])})")

    def st_blas(self):
        r = self.r
        k = r.randint(0, 4)
        if k == 0:
            self.emit("y = matmul(a, z)")
        elif k == 1:
            self.emit("y = y + alpha * matmul(a, z)")
        elif k == 2:
            s = self.new_scalar()
            self.emit(f"{s} = dot_product(x, {r.choice(['x', 'y'])})")
            self.scalar_leaves.append(s)
        elif k == 3:
            self.emit(f"z = {r.choice(['matmul(transpose(a), x)', 'matmul(x, b)'])}")
        else:
            self.needs_c = True
            self.emit(f"b = {r.choice(['matmul(a, c)', 'matmul(a, transpose(c))', '0.5d0 * matmul(b, c)'])}")

    def build(self):
        r = self.r
        kinds = [k for k in FEATURES if k in self.f and k != "math"] or ["affine"]
        for _ in range(r.randint(2, 5)):
            getattr(self, "st_" + r.choice(kinds))()
        # the scalars computed feed the output (else they would be dead code)
        extra = [s for s in self.scalar_leaves if s != "alpha"]
        if extra:
            self.emit(f"res = {' + '.join(extra)}")
        else:
            self.emit("res = sum(y * y)")
        body = "\n".join(self.lines)
        params = ["n", "m"] + (["tsteps"] if self.uses_t else []) + ["alpha", "x", "y", "z", "a", "b"]
        params += ["c"] if self.needs_c else []
        params.append("res")
        decl = "    integer, intent(in) :: n, m" + (", tsteps" if self.uses_t else "") + "\n"
        decl += "    real(8), intent(in) :: alpha\n"
        decl += "    real(8), intent(inout) :: x(n), y(n), z(m), a(n, m), b(n, m)\n"
        if self.needs_c:
            decl += "    real(8), intent(in) :: c(m, m)\n"
        decl += "    real(8), intent(out) :: res\n    integer :: i, j, t\n"
        if self.ns:
            decl += "    real(8) :: " + ", ".join(f"s{k + 1}" for k in range(self.ns)) + "\n"
        src = "module kmod\n  implicit none\ncontains\n"
        for h in self.helpers:
            src += h + "\n"
        src += f"  subroutine kernel({', '.join(params)})\n{decl}{body}\n  end subroutine kernel\nend module kmod\n"
        return src, (["n", "m"] + (["tsteps"] if self.uses_t else []))


def generate(lang, seed, features=None):
    rng = random.Random(f"{lang}:{seed}")
    feats = list(features) if features else FEATURES
    if not features:
        # each kernel draws a random subset (always at least 2 classes, math mostly on)
        feats = [f for f in FEATURES if rng.random() < 0.45]
        if rng.random() < 0.8 and "math" not in feats:
            feats.append("math")
        while len([f for f in feats if f != "math"]) < 2:
            feats.append(rng.choice([f for f in FEATURES if f != "math"]))
        feats = sorted(set(feats), key=FEATURES.index)
    g = PyGen(rng, feats) if lang == "py" else FGen(rng, feats)
    src, ints = g.build()
    header = f"generated by tests/gen/kernelgen.py: lang={lang} seed={seed} features={','.join(feats)}"
    if lang == "py":
        src = f'"""{header}"""\n' + src
    else:
        src = f"! {header}\n" + src
    return Kernel(lang, seed, f"k_{lang}_{seed}", src, feats, ints)


if __name__ == "__main__":
    import sys

    lang = sys.argv[1] if len(sys.argv) > 1 else "py"
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    print(generate(lang, seed).source)
