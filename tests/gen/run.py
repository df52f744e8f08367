#!/usr/bin/env python3
"""Generated-program testing of adjc: random valid kernels (kernelgen.py) checked end to end.

For every kernel (Python and/or Fortran, seeds FIRST..FIRST+COUNT-1):

1. the kernel is confirmed valid at each size by its own language: NumPy runs it (errors and
   floating-point warnings raise; outputs must be finite), gfortran compiles it with
   `-fcheck=all` and runs it from a small driver; sizes it is not valid at are skipped;
2. `adjc transpile` (twice: the output must be byte-identical). A located diagnostic with exit
   code 2 is a *refusal* (counted; the generator is tuned to keep these rare); any other
   failure (panic, internal error) is a bug;
3. `adjc check` at sizes 0, 1, 2, 3 and a normal size, serially, and at the normal size with
   `--openmp`, each built with `-fsanitize=address,undefined` (through CFLAGS, which
   `adjc check` appends to its compiler flags) unless `--no-sanitize`. Exit 0 is a pass;
   anything else is a bug, classified as gradient / forward / sanitizer / build / crash /
   timeout / panic.

Bugs are reduced (`--reduce`) by deleting statement blocks while the same class of failure
persists, and saved with the command that shows them under `--findings` (default
tests/gen/findings/). Exit status: 0 when no bug was found, 1 otherwise.

    ADJC_PYTHON=/work/venv/bin/python tests/gen/run.py --count 20          # 20 per language
    tests/gen/run.py --lang py --features affine,computed,slices --count 50
    tests/gen/run.py --seeds 17,42 --lang f90 --reduce -v                   # re-run, reduce
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import kernelgen  # noqa: E402

SAN_FLAGS = "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
# (label, {size: value}, openmp)
SMALL = [(0, 0), (1, 1), (2, 3), (3, 2)]
NORMAL = (7, 5)


def size_configs(k, quick):
    small = SMALL if not quick else [(0, 0), (1, 1), (3, 2)]
    out = []
    for n, m in small:
        out.append((f"N={n},M={m}", n, m, 2, False))
    out.append((f"N={NORMAL[0]},M={NORMAL[1]}", NORMAL[0], NORMAL[1], 3, False))
    out.append((f"N={NORMAL[0]},M={NORMAL[1]} openmp", NORMAL[0], NORMAL[1], 3, True))
    return out


def sizes_flag(k, n, m, t):
    names = k.int_params
    vals = {"N": n, "M": m, "T": t, "n": n, "m": m, "tsteps": t}
    return ",".join(f"{p}={vals[p]}" for p in names)


# ------------------------------------------------------------------------ validity


def numpy_valid(src, n, m, t):
    """Runs the kernel with NumPy at these sizes; None when valid, else the reason."""
    import numpy as np

    ns = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            old = np.seterr(all="raise")
            try:
                exec(compile(src, "kernel.py", "exec"), ns)
                rng = np.random.default_rng(0)
                args = dict(
                    x=rng.uniform(-1, 1, n),
                    y=rng.uniform(-1, 1, n),
                    z=rng.uniform(-1, 1, m),
                    A=rng.uniform(-1, 1, (n, m)),
                    B=rng.uniform(-1, 1, (n, m)),
                    C=rng.uniform(-1, 1, (m, m)),
                    alpha=0.7,
                    T=t,
                )
                import inspect

                params = inspect.signature(ns["kernel"]).parameters
                call = {p: args[p] for p in params}
                ret = ns["kernel"](**call)
                vals = [v for v in call.values() if isinstance(v, np.ndarray)]
                if ret is not None:
                    vals += list(ret) if isinstance(ret, tuple) else [ret]
                for v in vals:
                    if not np.all(np.isfinite(np.asarray(v, dtype=float))):
                        return "non-finite output"
                    if np.max(np.abs(np.asarray(v, dtype=float)), initial=0.0) > 1e6:
                        return "output too large"
            finally:
                np.seterr(**old)
    except Exception as e:  # noqa: BLE001 - any failure means "not valid at this size"
        return f"{type(e).__name__}: {e}"
    return None


F_DRIVER = """program drv
  use kmod
  implicit none
  integer :: n, m, t
  character(len=16) :: arg
  real(8), allocatable :: x(:), y(:), z(:), a(:, :), b(:, :), c(:, :)
  real(8) :: res
  call get_command_argument(1, arg); read (arg, *) n
  call get_command_argument(2, arg); read (arg, *) m
  call get_command_argument(3, arg); read (arg, *) t
  allocate (x(n), y(n), z(m), a(n, m), b(n, m), c(m, m))
  call random_number(x); call random_number(y); call random_number(z)
  call random_number(a); call random_number(b); call random_number(c)
  x = x - 0.5d0; y = y - 0.5d0; z = z - 0.5d0; a = a - 0.5d0; b = b - 0.5d0; c = c - 0.5d0
  call kernel(CALL)
  if (.not. (abs(res) < 1d6)) stop 3
  if (any(.not. (abs(y) < 1d6)) .or. any(.not. (abs(a) < 1d6)) .or. any(.not. (abs(b) < 1d6))) stop 3
end program drv
"""


def fortran_build(src, work):
    """Compiles the kernel with run-time checks and a driver; the executable or the error."""
    gf = os.environ.get("ADJC_GFORTRAN", "gfortran")
    m = re.search(r"subroutine kernel\(([^)]*)\)", src)
    params = [p.strip() for p in m.group(1).split(",")]
    call = ", ".join({"tsteps": "t", "alpha": "0.7d0"}.get(p, p) for p in params)
    d = os.path.join(work, "fcheck")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "k.f90"), "w") as f:
        f.write(src)
    with open(os.path.join(d, "drv.f90"), "w") as f:
        f.write(F_DRIVER.replace("CALL", call))
    p = subprocess.run(
        [gf, "-fcheck=all", "-ffpe-trap=invalid,zero,overflow", "-g", "-O0", "k.f90", "drv.f90", "-o", "drv"],
        cwd=d,
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        return None, p.stderr[-2000:]
    return os.path.join(d, "drv"), None


def fortran_valid(exe, n, m, t):
    try:
        p = subprocess.run([exe, str(n), str(m), str(t)], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "timeout"
    if p.returncode != 0:
        return (p.stderr or p.stdout)[-300:].strip() or f"exit {p.returncode}"
    return None


# ------------------------------------------------------------------------ adjc


def adjc_bin():
    b = os.environ.get("ADJC_BIN")
    if b:
        return b
    for prof in ["release", "debug"]:
        p = os.path.join(ROOT, "target", prof, "adjc")
        if os.path.exists(p):
            return p
    sys.exit("no adjc binary: build with `cargo build --release` or set ADJC_BIN")


def run(cmd, env=None, timeout=180, cwd=None):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout, p.stderr, time.time() - t0
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), "", timeout


LOCATED = re.compile(r"(^|\n)\s*(-->|┌─)?\s*\S+\.(py|f90):\d+:\d+")


def classify_transpile(rc, out, err):
    text = out + err
    if rc == 0:
        return "ok"
    if rc == "timeout":
        return "bug:timeout"
    if "panicked" in text or rc == 101 or (isinstance(rc, int) and rc < 0):
        return "bug:panic"
    if "internal" in text:
        return "bug:internal"
    if rc == 2 and LOCATED.search(text):
        return "refused"
    if rc == 2:
        return "bug:unlocated-diagnostic"
    return f"bug:exit{rc}"


def classify_check(rc, out, err):
    text = out + err
    if rc == 0 and "check passed" in out:
        return "pass"
    if rc == "timeout":
        return "bug:timeout"
    if "panicked" in text or rc == 101:
        return "bug:panic"
    if "AddressSanitizer" in text or "LeakSanitizer" in text:
        return "bug:asan"
    if "runtime error:" in text:
        return "bug:ubsan"
    if "internal" in text:
        return "bug:internal"
    if rc == 2:
        # refused at check time (after transpile accepted it): e.g. a shape rule, or flags
        return "bug:check-refused"
    if re.search(r"\.[ch]:\d+:\d+: error:", text) or "C compiler" in text or "could not build" in text:
        return "bug:c-build"
    bad = [ln for ln in out.splitlines() if ln.rstrip().endswith(("FAIL", "FAILED", "MISMATCH")) or " FAIL" in ln]
    if any(ln.strip().startswith("d/d") for ln in bad):
        return "bug:gradient"
    if any("forward vs" in ln for ln in bad):
        return "bug:forward"
    if any("primal outputs" in ln for ln in bad):
        return "bug:primal-after-adjoint"
    if re.search(r"signal|Segmentation|core dumped|exited with", text):
        return "bug:crash"
    return "bug:check-failed"


class Runner:
    def __init__(self, args):
        self.a = args
        self.adjc = adjc_bin()
        self.env = dict(os.environ)
        if args.python:
            self.env["ADJC_PYTHON"] = args.python
        self.env.setdefault("ADJC_PYTHON", sys.executable)
        self.san_env = dict(self.env)
        if not args.no_sanitize:
            self.san_env["CFLAGS"] = (self.env.get("CFLAGS", "") + " " + SAN_FLAGS).strip()
            self.san_env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
            self.san_env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")

    def valid_sizes(self, k, work, configs):
        """For each config: None if valid, else why not."""
        out = {}
        if k.lang == "py":
            for lab, n, m, t, _ in configs:
                out[lab] = numpy_valid(k.source, n, m, t)
        else:
            exe, err = fortran_build(k.source, work)
            for lab, n, m, t, _ in configs:
                out[lab] = f"gfortran: {err[:300]}" if exe is None else fortran_valid(exe, n, m, t)
        return out

    def transpile(self, path, work):
        outs = []
        for i in range(2):
            d = os.path.join(work, "t")  # same directory: the command line is in the header
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            rc, out, err, _ = run([self.adjc, "transpile", path, "-o", d], env=self.env, timeout=120)
            cls = classify_transpile(rc, out, err)
            if cls != "ok":
                return cls, (out + err)
            outs.append({f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))})
        if outs[0] != outs[1]:
            return "bug:nondeterministic", "two runs of adjc transpile wrote different files"
        return "ok", ""

    def check(self, k, path, n, m, t, openmp):
        cmd = [self.adjc, "check", path, "--sizes", sizes_flag(k, n, m, t)]
        if openmp:
            cmd.append("--openmp")
        env = self.san_env
        rc, out, err, dt = run(cmd, env=env, timeout=self.a.timeout)
        cls = classify_check(rc, out, err)
        if cls == "bug:gradient":
            # central differences have an O(h^2) error: a kernel with large curvature can
            # miss the tolerance at the default step. A gradient that agrees at a 10x
            # smaller step is not a bug (the adjoint is exact up to rounding).
            rc2, out2, err2, dt2 = run(cmd + ["--step", "1e-7"], env=env, timeout=self.a.timeout)
            if classify_check(rc2, out2, err2) == "pass":
                return "pass", out + err + "\n(passes with --step 1e-7)\n" + out2, cmd, dt + dt2
        return cls, out + err, cmd, dt

    def command_text(self, cmd):
        env = ""
        if not self.a.no_sanitize:
            env = f"CFLAGS='{SAN_FLAGS}' "
        rel = [os.path.basename(c) if c.endswith((".py", ".f90")) else c for c in cmd]
        rel[0] = "adjc"
        return env + "ADJC_PYTHON=/path/to/python-with-numpy " + " ".join(rel)

    # ---------------------------------------------------------------- reduction
    def reproduces(self, k, src, cfg, cls, work):
        lab, n, m, t, openmp = cfg
        kk = kernelgen.Kernel(k.lang, k.seed, k.name, src, k.features, k.int_params)
        # keep only the integer params still used
        if k.lang == "py":
            if numpy_valid(src, n, m, t) is not None:
                return False
        else:
            if not re.search(r"subroutine kernel\(", src):
                return False
            exe, _ = fortran_build(src, work)
            if exe is None or fortran_valid(exe, n, m, t) is not None:
                return False
        path = os.path.join(work, kk.filename)
        with open(path, "w") as f:
            f.write(src)
        if cls.startswith("transpile:"):
            rc, out, err, _ = run([self.adjc, "transpile", path, "-o", os.path.join(work, "rt")], env=self.env)
            return "transpile:" + classify_transpile(rc, out, err) == cls
        got, _, _, _ = self.check(kk, path, n, m, t, openmp)
        return got == cls

    def reduce(self, k, cfg, cls, work):
        lines = k.source.split("\n")
        changed = True
        tries = 0
        while changed and tries < self.a.reduce_budget:
            changed = False
            blocks = blocks_of(lines)
            # biggest first
            blocks.sort(key=lambda b: -(b[1] - b[0]))
            for a, b in blocks:
                cand = lines[:a] + lines[b:]
                tries += 1
                if self.reproduces(k, "\n".join(cand), cfg, cls, work):
                    lines = cand
                    changed = True
                    break
                if tries >= self.a.reduce_budget:
                    break
        # then expressions: a call by its (first) argument, a parenthesised operation by
        # one of its operands, as long as the failure stays
        changed = True
        while changed and tries < self.a.reduce_budget:
            changed = False
            for i, ln in enumerate(lines):
                if "=" not in ln or "::" in ln or ln.strip().startswith(("def ", "for ", "do ", "if ", '"""', "!")):
                    continue
                for cand_ln in simplifications(ln):
                    tries += 1
                    cand = lines[:i] + [cand_ln] + lines[i + 1 :]
                    if self.reproduces(k, "\n".join(cand), cfg, cls, work):
                        lines = cand
                        changed = True
                        break
                    if tries >= self.a.reduce_budget:
                        break
                if changed or tries >= self.a.reduce_budget:
                    break
        return "\n".join(lines)

    # ---------------------------------------------------------------- one kernel
    def one(self, lang, seed, features, k=None):
        k = k or kernelgen.generate(lang, seed, features)
        work = tempfile.mkdtemp(prefix=f"adjcgen_{lang}{seed}_")
        rec = {"lang": lang, "seed": seed, "features": k.features, "runs": {}, "bugs": []}
        try:
            path = os.path.join(work, k.filename)
            with open(path, "w") as f:
                f.write(k.source)
            configs = size_configs(k, self.a.quick)
            valid = self.valid_sizes(k, work, configs)
            rec["invalid_sizes"] = {lab: why for lab, why in valid.items() if why}
            if all(valid.values()):
                rec["status"] = "invalid"
                return rec, k
            cls, msg = self.transpile(path, work)
            if cls == "refused":
                rec["status"] = "refused"
                first = next((ln for ln in msg.splitlines() if "error" in ln), msg.splitlines()[0] if msg else "")
                rec["refusal"] = first.strip()
                return rec, k
            if cls != "ok":
                rec["status"] = "bug"
                rec["bugs"].append({"class": "transpile:" + cls, "config": None, "output": msg[-3000:]})
                self.save(k, None, "transpile:" + cls, msg, work)
                return rec, k
            rec["status"] = "pass"
            for cfg in configs:
                lab, n, m, t, openmp = cfg
                if valid[lab]:
                    continue
                got, text, cmd, dt = self.check(k, path, n, m, t, openmp)
                rec["runs"][lab] = got
                if got != "pass":
                    rec["status"] = "bug"
                    rec["bugs"].append({"class": got, "config": lab, "output": text[-3000:]})
                    if self.a.verbose:
                        print(f"  {lang} seed {seed} {lab}: {got}\n" + indent(text[-1500:]), flush=True)
                    self.save(k, cfg, got, text, work)
                    if not self.a.all_sizes:
                        break
            return rec, k
        finally:
            if not self.a.keep:
                shutil.rmtree(work, ignore_errors=True)

    def save(self, k, cfg, cls, text, work):
        if not self.a.findings:
            return
        os.makedirs(self.a.findings, exist_ok=True)
        src = k.source
        if self.a.reduce:
            src = self.reduce(k, cfg, cls, work) if cfg or cls.startswith("transpile:") else src
        tag = re.sub(r"[^a-z0-9]+", "-", cls.split(":")[-1])
        stem = f"{tag}_{k.lang}_{k.seed}"
        fname = stem + (".py" if k.lang == "py" else ".f90")
        with open(os.path.join(self.a.findings, fname), "w") as f:
            f.write(src if src.endswith("\n") else src + "\n")
        if cfg:
            lab, n, m, t, openmp = cfg
            kk = kernelgen.Kernel(k.lang, k.seed, k.name, src, k.features, k.int_params)
            cmd = [self.adjc, "check", fname, "--sizes", sizes_flag(kk, n, m, t)] + (["--openmp"] if openmp else [])
        else:
            cmd = [self.adjc, "transpile", fname, "-o", "out/"]
        # what the reduced kernel gives now
        path = os.path.join(work, fname)
        with open(path, "w") as f:
            f.write(src)
        if cfg:
            got, now, _, _ = self.check(kernelgen.Kernel(k.lang, k.seed, k.name, src, k.features, k.int_params), path, n, m, t, openmp)
        else:
            rc, o, e, _ = run([self.adjc, "transpile", path, "-o", os.path.join(work, "rt")], env=self.env)
            got, now = "transpile:" + classify_transpile(rc, o, e), o + e
        with open(os.path.join(self.a.findings, stem + ".txt"), "w") as f:
            f.write(f"class: {cls} (reduced kernel: {got})\nfeatures: {','.join(k.features)}\n")
            if not k.features[0].startswith("file:"):
                f.write(f"regenerate: tests/gen/run.py --lang {k.lang} --seeds {k.seed} --reduce -v\n")
            f.write(f"show: {self.command_text(cmd)}\n\n")
            f.write(now[-4000:])


def indent(s):
    return "\n".join("    | " + ln for ln in s.splitlines())


def simplifications(line):
    """Smaller variants of one statement's right-hand side, shortest first."""
    eq = line.find("= ")
    if eq < 0:
        return []
    head, rhs = line[: eq + 2], line[eq + 2 :]
    out = []
    for i, ch in enumerate(rhs):
        if ch != "(":
            continue
        depth, j = 0, i
        while j < len(rhs):
            depth += {"(": 1, ")": -1}.get(rhs[j], 0)
            if depth == 0:
                break
            j += 1
        if j >= len(rhs):
            continue
        inner = rhs[i + 1 : j]
        m = re.search(r"[\w.]+$", rhs[:i])
        parts = split_top(inner, [","])
        if m:  # a call: keep its first argument
            start = m.start()
            out.append(rhs[:start] + "(" + parts[0].strip() + ")" + rhs[j + 1 :])
        else:
            for op in [" + ", " - ", " * "]:
                ops = split_top(inner, [op])
                if len(ops) > 1:
                    for o in ops:
                        out.append(rhs[:i] + "(" + o.strip() + ")" + rhs[j + 1 :])
                    break
    out.sort(key=len)
    return [head + o for o in out if o != rhs]


def split_top(text, seps):
    parts, depth, cur, i = [], 0, "", 0
    while i < len(text):
        c = text[i]
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(c, 0)
        sep = next((s for s in seps if depth == 0 and text.startswith(s, i)), None)
        if sep:
            parts.append(cur)
            cur = ""
            i += len(sep)
            continue
        cur += c
        i += 1
    parts.append(cur)
    return parts


def blocks_of(lines):
    """Deletable blocks: a statement line with the lines indented below it, plus its
    `else`/`elif`/`elsewhere` parts and a closing `end ...` line at its own indentation.
    Only lines inside a function body (indented) are candidates; declarations stay."""
    out = []
    n = len(lines)

    def ind(s):
        return len(s) - len(s.lstrip(" "))

    for i, ln in enumerate(lines):
        s = ln.strip()
        if not s or ind(ln) == 0:
            continue
        low = s.lower()
        if low.startswith(("def ", "end", "else", "elif", "contains", "implicit", "module", "subroutine", "elemental", "function")):
            continue
        if "::" in low or low.startswith(('"""', "import", "n, m = ")) or low.startswith("return") and False:
            continue
        j = i + 1
        base = ind(ln)
        while True:
            while j < n and (not lines[j].strip() or ind(lines[j]) > base):
                j += 1
            if j < n and ind(lines[j]) == base and lines[j].strip().lower().startswith(("else", "elif", "elsewhere")):
                j += 1
                continue
            break
        if j < n and ind(lines[j]) == base and lines[j].strip().lower().startswith("end") and not lines[j].strip().lower().startswith(("end subroutine", "end function", "end module")):
            j += 1
        out.append((i, j))
    # whole helper definitions (Python `def` blocks that are not the kernel; Fortran
    # procedures before the kernel)
    for i, ln in enumerate(lines):
        low = ln.strip().lower()
        if (low.startswith("def ") and not low.startswith("def kernel")) or (
            low.startswith(("elemental function", "subroutine upd")) and ind(ln) > 0
        ):
            j = i + 1
            while j < n and (not lines[j].strip() or ind(lines[j]) > ind(ln)):
                j += 1
            if j < n and lines[j].strip().lower().startswith("end"):
                j += 1
            out.append((i, j))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", default="both", choices=["py", "f90", "both"])
    ap.add_argument("--first", type=int, default=0, help="first seed")
    ap.add_argument("--count", type=int, default=10, help="kernels per language")
    ap.add_argument("--seeds", help="comma-separated seeds (instead of --first/--count)")
    ap.add_argument("--files", nargs="+", help="check these kernel files (e.g. saved findings) instead of generated ones")
    ap.add_argument("--features", help="comma-separated feature classes each kernel draws from: " + ",".join(kernelgen.FEATURES))
    ap.add_argument("--exclude", help="feature classes to leave out")
    ap.add_argument("--quick", action="store_true", help="sizes 0, 1, 3 and normal only (CI)")
    ap.add_argument("--all-sizes", action="store_true", help="go on after the first failing size")
    ap.add_argument("--no-sanitize", action="store_true", help="build without ASan/UBSan")
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--reduce", action="store_true", help="reduce each bug to a minimal kernel")
    ap.add_argument("--reduce-budget", type=int, default=60, help="most candidate kernels tried per reduction")
    ap.add_argument("--findings", default=os.path.join(HERE, "findings"), help="where bugs are saved ('' for nowhere)")
    ap.add_argument("--json", help="write every result here")
    ap.add_argument("--python", help="python with NumPy for adjc check (default: ADJC_PYTHON or this one)")
    ap.add_argument("--keep", action="store_true", help="keep the work directories")
    ap.add_argument("--time-budget", type=float, default=0, help="stop starting kernels after this many seconds")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    try:
        import numpy  # noqa: F401
    except ImportError:
        sys.exit("tests/gen/run.py needs NumPy (run it with a python that has it, e.g. /work/venv/bin/python)")
    feats = a.features.split(",") if a.features else None
    if a.exclude:
        feats = [f for f in (feats or kernelgen.FEATURES) if f not in a.exclude.split(",")]
    if feats:
        bad = [f for f in feats if f not in kernelgen.FEATURES]
        if bad:
            sys.exit(f"unknown feature classes {bad}; known: {kernelgen.FEATURES}")
    seeds = [int(s) for s in a.seeds.split(",")] if a.seeds else list(range(a.first, a.first + a.count))
    files = {}
    if a.files:
        # kernels written by hand or saved findings, in the generator's signature convention
        seeds = []
        for i, path in enumerate(a.files):
            src = open(path).read()
            lang = "py" if path.endswith(".py") else "f90"
            sig = re.search(r"def kernel\(([^)]*)\)|subroutine kernel\(([^)]*)\)", src)
            params = [p.split(":")[0].strip() for p in (sig.group(1) or sig.group(2)).split(",")] if sig else []
            # only the sizes the kernel names (a reduced kernel may have lost `M`)
            used = lambda x: re.search(r"\b" + x + r"\b", src) is not None
            ints = ([x for x in ("N", "M") if used(x)] + [p for p in params if p == "T"]) if lang == "py" else [p for p in params if p in ("n", "m", "tsteps")]
            name = os.path.splitext(os.path.basename(path))[0]
            files[(lang, i)] = kernelgen.Kernel(lang, i, name, src, ["file:" + path], ints)
            seeds.append(i)
    langs = ["py", "f90"] if a.lang == "both" else [a.lang]
    r = Runner(a)
    results = []
    t0 = time.time()
    stats = {}
    for seed in seeds:
        for lang in langs:
            if a.time_budget and time.time() - t0 > a.time_budget:
                break
            if files and (lang, seed) not in files:
                continue
            t1 = time.time()
            rec, k = r.one(lang, seed, feats, files.get((lang, seed)))
            rec["seconds"] = round(time.time() - t1, 1)
            results.append(rec)
            st = stats.setdefault(lang, {})
            st[rec["status"]] = st.get(rec["status"], 0) + 1
            extra = ""
            if rec["status"] == "refused":
                extra = rec["refusal"]
            elif rec["status"] == "bug":
                extra = "; ".join(f"{b['class']} at {b['config']}" for b in rec["bugs"])
            elif rec["status"] == "invalid":
                extra = next(iter(rec["invalid_sizes"].values()))[:120]
            print(f"{lang:3} seed {seed:5} {rec['status']:8} {rec['seconds']:5.1f}s [{','.join(k.features)}] {extra}", flush=True)
    dt = time.time() - t0
    n = len(results)
    print(f"\n{n} kernels in {dt:.0f}s ({60 * n / max(dt, 1e-9):.1f}/min)")
    for lang, st in stats.items():
        tot = sum(st.values())
        acc = st.get("pass", 0) + st.get("bug", 0)
        print(f"  {lang}: " + ", ".join(f"{v} {k}" for k, v in sorted(st.items())) + f"; accepted {acc}/{tot}")
    bugs = [x for x in results if x["status"] == "bug"]
    if bugs:
        print("bugs:")
        for b in bugs:
            for x in b["bugs"]:
                print(f"  {b['lang']} seed {b['seed']}: {x['class']} at {x['config']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
