#!/usr/bin/env python3
"""Measure how much real-code-style Fortran adjc accepts (issue 13).

For every routine file of tests/fortran_corpus/ (top level, `.f .f90 .F90 .F`):

1. read its `! corpus: ARGS` header line (`c corpus:` in fixed form): extra
   files, `-I`/`-D` flags, `--function`, `--sizes`, `--wrt`/`--of`, `--init`,
   `--setup` — paths relative to tests/fortran_corpus/;
2. run `adjc transpile FILE ARGS` (without the check-only options): accepted
   (exit 0), refused (an `error:` message, exit 2) or crashed (exit 101, a
   signal, or `internal error`);
3. for an accepted file run `adjc check FILE ARGS`: finite differences
   against the adjoint, the C forward against gfortran; pass / fail / crash.

It writes tests/fortran_corpus/RESULTS.md (the share accepted, refusal reasons
grouped by category and counted, the check results) and, with
`--write-expected`, tests/fortran_corpus/expected.txt (the files that are
accepted and pass `adjc check`; adjc/tests/fortran_corpus.rs asserts they
still do). Only the standard library is used.

    python3 scripts/fortran_corpus.py [--adjc PATH] [--jobs N] [--write-expected] [FILE...]
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "fortran_corpus")
SOURCE_EXTS = (".f", ".f90", ".F90", ".F", ".for", ".f77")
# Options only `adjc check` takes (each with a value).
CHECK_ONLY = {"--init", "--setup", "--tol", "--step", "--seed", "--inputs", "--keep"}
HEADER = re.compile(r"^[!cC*]\s*corpus:\s*(.*)$")
STYLE = re.compile(r"In the style of ([^(]+?)(?:'s|\s*\(|$)")

# Refusal categories: (label, regex on the first error line). First match wins;
# an unmatched message is its own category (numbers and `names` blanked).
CATEGORIES = [
    ("assumed-size dummies `x(*)`", r"assumed-size"),
    ("array index not provable: an index variable assigned in the routine (upwind/donor, `k = ki1`)", r"stays inside the array: it depends on"),
    ("array index not provable: indirect or non-affine (sparse `colidx(k)`, bounds set under `present()`)", r"stays inside the array"),
    ("unknown name: `enum` enumerator or `iso_fortran_env` kind (`REAL64`)", r"has no type declaration"),
    ("module variable of derived type (pointer, allocatable array of types)", r"derived types are not supported"),
    ("module array of derived types (allocatable `chunks(:)`)", r"(array|allocatable) of derived type"),
    ("allocatable module variable", r"module variable"),
    ("elemental subroutine called on arrays", r"is a scalar in .*but the argument is an array|elemental"),
    ("generic interface (`interface scale; module procedure ...`)", r"`call \w+` is not supported|generic|interface"),
    ("internal procedure (`contains` inside a subroutine)", r"unknown function or array"),
    ("named `do` construct (`lp: do ... end do lp`)", r"cannot read this `do` loop"),
    ("backward `goto` (a loop written with goto)", r"backward .?goto"),
    ("computed / assigned `goto`", r"computed|assigned .?goto"),
    ("`goto` out of a loop or into a block", r"goto.*(out of|into)"),
    ("`do while`", r"do while"),
    ("`exit` / `cycle`", r"`(exit|cycle)`"),
    ("`return` inside a loop / select", r"return"),
    ("`mod` of reals", r"`mod` of real"),
    ("complex numbers", r"complex"),
    ("allocatable / pointer dummy", r"allocatable|pointer"),
    ("derived types (other)", r"derived|component|`%`"),
    ("`optional` / `present`", r"optional|present"),
    ("`forall`", r"forall"),
    ("array constructor outside an assignment (a `parameter` array)", r"constructor"),
    ("character / I/O", r"character|`write`|`read`|i/o"),
    ("integer argument or state assigned (integers are sizes)", r"integer"),
    ("COMMON blocks", r"common"),
    ("parameter / constant not evaluated", r"not a constant|parameter"),
]


def find_adjc(explicit):
    if explicit:
        return explicit
    if os.environ.get("ADJC"):
        return os.environ["ADJC"]
    for build in ("release", "debug"):
        path = os.path.join(ROOT, "target", build, "adjc")
        if os.path.exists(path):
            return path
    return "adjc"


def corpus_files():
    return sorted(
        f
        for f in os.listdir(CORPUS)
        if f.endswith(SOURCE_EXTS) and os.path.isfile(os.path.join(CORPUS, f))
    )


CODES = [
    ("NAS", "NAS Parallel Benchmarks"),
    ("CloverLeaf", "CloverLeaf"),
    ("ecRad", "ecRad"),
    ("cloudsc", "CLOUDSC"),
    ("miniWeather", "miniWeather"),
    ("OpenAD", "OpenAD regression suite"),
    ("PolyBench", "PolyBench/Fortran"),
    ("heat", "CSC heat equation"),
]


def code_of(style):
    for key, name in CODES:
        if key.lower() in style.lower():
            return name
    return style


def read_header(path):
    """The corpus arguments and the imitated code of a routine file."""
    args, style = [], "?"
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f):
            if n > 40:
                break
            m = HEADER.match(line.strip())
            if m:
                args = shlex.split(m.group(1))
            s = STYLE.search(line)
            if s and style == "?":
                style = code_of(s.group(1).strip())
    return args, style


def transpile_args(args):
    """The corpus arguments without the options only `adjc check` takes."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        name = a.split("=", 1)[0]
        if name in CHECK_ONLY:
            skip = "=" not in a
            continue
        out.append(a)
    return out


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, cwd=CORPUS, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", "timed out after %ds" % timeout


def is_crash(rc, out, err):
    return rc == 101 or (isinstance(rc, int) and rc < 0) or "internal error" in (out + err) or "panicked" in err


def first_error(err):
    for line in err.splitlines():
        if "error" in line:
            return line.strip()
    lines = [l for l in err.splitlines() if l.strip()]
    return lines[0].strip() if lines else "(no message)"


def categorize(message):
    text = message.split("error:", 1)[-1].strip()
    low = text.lower()
    for label, pattern in CATEGORIES:
        if re.search(pattern, low):
            return label
    generic = re.sub(r"`[^`]*`", "`…`", text)
    return re.sub(r"\b\d+\b", "N", generic)


def check_summary(out, err):
    """The first failing line of a check and the gfortran comparison's outcome."""
    lines = [l.strip() for l in (out + "\n" + err).splitlines() if l.strip()]
    gf = [l for l in lines if l.startswith("forward vs gfortran")]
    if not gf:
        gfortran = ""
    elif any("skipped" in l for l in gf):
        gfortran = gf[0].split(":", 1)[1].strip()
    elif all(l.endswith("ok") for l in gf):
        gfortran = "ok (%d outputs)" % len(gf)
    else:
        gfortran = "MISMATCH: " + next(l for l in gf if not l.endswith("ok"))
    measured = [
        l for l in lines
        if l.startswith(("d/d", "primal", "forward vs", "drop-in", "adjc check:")) is False
        and ("error" in l.lower() or "fail" in l.lower())
    ]
    bad = [
        l for l in lines
        if l.startswith(("d/d", "primal", "forward vs", "drop-in")) and not l.endswith("ok") and "skipped" not in l
    ]
    fail = (bad + measured)[:1]
    return (fail[0] if fail else ""), gfortran


def measure(adjc, name, do_check):
    path = os.path.join(CORPUS, name)
    args, style = read_header(path)
    r = {"file": name, "style": style, "args": args}
    with tempfile.TemporaryDirectory(prefix="adjc_corpus_") as tmp:
        rc, out, err = run([adjc, "transpile", name] + transpile_args(args) + ["-o", tmp], 300)
        if is_crash(rc, out, err):
            r["transpile"] = "crash"
            r["reason"] = first_error(err) if err else str(rc)
            return r
        if rc != 0:
            r["transpile"] = "refused"
            r["reason"] = first_error(err)
            r["category"] = categorize(r["reason"])
            return r
        r["transpile"] = "accepted"
        if not do_check:
            return r
        rc, out, err = run([adjc, "check", name] + args + ["-o", tmp, "--keep", os.path.join(tmp, "k")], 600)
        fail, gf = check_summary(out, err)
        r["gfortran"] = gf
        if is_crash(rc, out, err):
            r["check"] = "crash"
            r["check_reason"] = first_error(err)
        elif rc == 0:
            r["check"] = "pass"
        else:
            r["check"] = "fail"
            r["check_reason"] = fail or first_error(err)
    return r


def md_escape(s):
    return s.replace("|", "\\|").replace("\n", " ")


def write_results(results, path, command):
    n = len(results)
    acc = [r for r in results if r["transpile"] == "accepted"]
    ref = [r for r in results if r["transpile"] == "refused"]
    crash = [r for r in results if r["transpile"] == "crash" or r.get("check") == "crash"]
    passed = [r for r in acc if r.get("check") == "pass"]
    failed = [r for r in acc if r.get("check") == "fail"]
    cats = {}
    for r in ref:
        cats.setdefault(r["category"], []).append(r)
    styles = {}
    for r in results:
        styles.setdefault(r["style"], [0, 0])
        styles[r["style"]][0] += 1
        styles[r["style"]][1] += r["transpile"] == "accepted"

    L = []
    L.append("# Fortran corpus: what adjc accepts of real-code-style routines")
    L.append("")
    L.append("Generated by `%s` (do not edit by hand; the notes below the tables are kept in" % command)
    L.append("`tests/fortran_corpus/NOTES.md`). The routines are written *in the style of* NAS")
    L.append("Parallel Benchmarks, CloverLeaf, ecRad, CLOUDSC, miniWeather, the OpenAD regression suite,")
    L.append("PolyBench/Fortran and the CSC heat equation (each file's header says which and what it")
    L.append("exercises); they are not copies.")
    L.append("")
    L.append("**Accepted: %d of %d routines (%.0f%%).** Of the accepted, `adjc check` (finite" % (len(acc), n, 100.0 * len(acc) / max(n, 1)))
    L.append("differences against the adjoint; the C forward against gfortran) passes for %d," % len(passed))
    L.append("fails for %d. Crashes (exit 101 / internal error): %d." % (len(failed), len(crash)))
    L.append("")
    L.append("## By code")
    L.append("")
    L.append("| imitated code | routines | accepted |")
    L.append("|---|---|---|")
    for s in sorted(styles):
        L.append("| %s | %d | %d |" % (md_escape(s), styles[s][0], styles[s][1]))
    L.append("")
    L.append("## Refusal reasons by frequency (the to-do list of issues 13/15)")
    L.append("")
    L.append("The first error of each refused routine (adjc stops at the first), grouped.")
    L.append("")
    L.append("| reason | routines | files | first message (example) |")
    L.append("|---|---|---|---|")
    for label, rs in sorted(cats.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        L.append(
            "| %s | %d | %s | %s |"
            % (md_escape(label), len(rs), ", ".join("`%s`" % r["file"] for r in rs), md_escape(rs[0]["reason"]))
        )
    L.append("")
    L.append("## Every routine")
    L.append("")
    L.append("| file | imitates | transpile | check | gfortran forward | reason |")
    L.append("|---|---|---|---|---|---|")
    for r in results:
        reason = r.get("reason") or r.get("check_reason") or ""
        L.append(
            "| `%s` | %s | %s | %s | %s | %s |"
            % (
                r["file"],
                md_escape(r["style"]),
                r["transpile"],
                r.get("check", "-"),
                md_escape(r.get("gfortran", "") or "-"),
                md_escape(reason),
            )
        )
    L.append("")
    notes = os.path.join(CORPUS, "NOTES.md")
    if os.path.exists(notes):
        with open(notes, encoding="utf-8") as f:
            L.append(f.read().rstrip())
        L.append("")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(L))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="corpus files (default: all)")
    ap.add_argument("--adjc", help="the adjc binary (default: $ADJC, target/release/adjc, adjc)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--no-check", action="store_true", help="transpile only")
    ap.add_argument("--write-expected", action="store_true", help="also write expected.txt")
    ap.add_argument("--results", default=os.path.join(CORPUS, "RESULTS.md"))
    a = ap.parse_args()
    adjc = find_adjc(a.adjc)
    if os.sep in adjc:
        adjc = os.path.abspath(adjc)  # the commands run in the corpus directory
    files = [os.path.basename(f) for f in a.files] or corpus_files()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(lambda f: measure(adjc, f, not a.no_check), files))
    for r in results:
        print(
            "%-40s %-9s %-6s %s"
            % (r["file"], r["transpile"], r.get("check", "-"), r.get("reason") or r.get("check_reason") or "")
        )
    if not a.files:
        write_results(results, a.results, "python3 scripts/fortran_corpus.py --write-expected")
        print("wrote", os.path.relpath(a.results, ROOT))
    if a.write_expected:
        with open(os.path.join(CORPUS, "expected.txt"), "w", encoding="utf-8") as f:
            f.write("# Corpus routines that adjc accepts and whose `adjc check` passes\n")
            f.write("# (written by scripts/fortran_corpus.py --write-expected; asserted by\n")
            f.write("# adjc/tests/fortran_corpus.rs). One file name per line.\n")
            for r in results:
                if r["transpile"] == "accepted" and r.get("check") == "pass":
                    f.write(r["file"] + "\n")
    crashes = [r for r in results if r["transpile"] == "crash" or r.get("check") == "crash"]
    return 3 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
