#!/usr/bin/env python3
"""adjc vs NumPy vs JAX, one command: benchmarks/run_all.sh (or this file) measures, for every
kernel of a preset list, on identical inputs:

* NumPy forward (the source adjc transpiles, examples/python/<k>.py);
* adjc's generated C, forward and adjoint, in every build configuration: serial, OpenMP at 1
  thread, OpenMP at 2 threads; with adjc's fallback BLAS and, for kernels that call BLAS, with
  OpenBLAS (`-DADJC_BLAS=cblas -lopenblas`);
* JAX forward and `jax.jit` of `jax.vjp` (random cotangent = adjc's weights, not grad of a
  sum) at the same thread counts (benchmarks/jax/<k>.py, written for this benchmark);
* memory: adjc's tape and peak bytes (`adjc bench`'s ADJC_STATS build), JAX's compiled memory
  analysis of the jitted vjp (temporaries + outputs);
* agreement: adjc's C forward vs NumPy, JAX forward vs NumPy, and the relative error between
  adjc's adjoint and JAX's vjp for the same cotangent.

How the data is shared: `adjc bench --dump values.npz` writes the inputs, the weights (the
cotangent), the C forward outputs and the C adjoints; NumPy and JAX run on that archive.
How repetitions are interleaved: every build configuration is compiled once (`adjc bench
--keep DIR`), then each repetition runs, in turn, every C driver (`DIR/bench_driver inputs.bin
2`: two calls, the first a warm-up, the second recorded) and one NumPy/JAX round in long-lived
worker processes (one per thread count, started with the thread settings JAX needs before it is
imported). Medians over the repetitions and their spread are reported.

Thread control (what works, checked by the CPU-time/wall-time ratio each worker reports):
1-thread runs are pinned with `taskset -c 0` and get OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1
and XLA_FLAGS=--xla_cpu_multi_thread_eigen=false; 2-thread runs `taskset -c 0,1` and the
thread counts set to 2.

Usage: benchmarks/bench.py [--preset S|M] [--kernels a,b] [--repeat 5] [--threads 1,2]
                           [--quick] [--no-jax] [--no-openblas] [--out DIR] [--note TEXT]
"""
import argparse
import datetime
import importlib.util
import inspect
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LISTS = {"S": os.path.join(HERE, "kernels.txt"), "M": os.path.join(HERE, "kernels_M.txt")}
QUICK_KERNELS = ["jacobi_1d", "gesummv"]


# ----------------------------------------------------------------------------------------------
# Kernel lists


def parse_list(path):
    """`FILE | --sizes A=1,B=2 | OTHER FLAGS` lines; the first line of a kernel wins."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = [p.strip() for p in line.split("|")]
            file = parts[0]
            sizes = parts[1] if len(parts) > 1 else ""
            other = parts[2] if len(parts) > 2 else ""
            kernel = os.path.splitext(os.path.basename(file))[0]
            if kernel in out:
                continue
            size_map = {}
            m = re.match(r"--sizes\s+(\S+)", sizes)
            if m:
                for kv in m.group(1).split(","):
                    if kv:
                        k, v = kv.split("=")
                        size_map[k] = int(v)
            out[kernel] = {
                "kernel": kernel,
                "file": file,
                "sizes": size_map,
                "flags": sizes.split() + other.split(),
            }
    return out


# ----------------------------------------------------------------------------------------------
# adjc bench


def parse_report(text):
    """The numbers of an `adjc bench` report."""
    r = {}
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"(forward|adjoint) ms\s+median (\S+)\s+min (\S+)", s)
        if m:
            r[m.group(1) + "_ms"] = float(m.group(2))
            continue
        for key in ["argument bytes", "tape bytes", "work bytes", "peak bytes", "process peak RSS"]:
            if s.startswith(key):
                r[key.replace(" ", "_")] = int(s[len(key):].split()[0])
        if s.startswith("warning:"):
            r["warning"] = s
    return r


def c_configs(threads, blas):
    """(name, openmp, threads, openblas) of every C build to time."""
    out = [("serial", False, 1, False)]
    out += [(f"omp{t}", True, t, False) for t in threads]
    if blas:
        out += [("serial+openblas", False, 1, True)]
        out += [(f"omp{t}+openblas", True, t, True) for t in threads]
    return out


def pin(threads):
    """`taskset -c 0..T-1` when the machine has the cores and taskset exists."""
    if shutil.which("taskset") and (os.cpu_count() or 1) >= threads:
        return ["taskset", "-c", ",".join(str(c) for c in range(threads))]
    return []


def openblas_coretype():
    """The OpenBLAS kernel set for this CPU, from /proc/cpuinfo's flags, or None.

    OpenBLAS picks its kernels from the CPU model that `cpuid` reports. In virtual machines
    that mask the model (this benchmark's machine says "Intel(R) Xeon(R) Processor"),
    Debian's OpenBLAS falls back to its generic "Prescott" kernels, 5x slower on dgemm
    (measured: 247 ms vs 50 ms for a 1000^3 product). The instruction-set flags are still
    right, so the kernels are chosen from them unless OPENBLAS_CORETYPE is already set."""
    if "OPENBLAS_CORETYPE" in os.environ:
        return os.environ["OPENBLAS_CORETYPE"]
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    except OSError:
        return None
    if "avx512f" in flags:
        return "SkylakeX"
    if "avx2" in flags:
        return "Haswell"
    return None


def thread_env(threads, openblas=False):
    env = dict(os.environ)
    t = str(threads)
    env.update(OMP_NUM_THREADS=t, OPENBLAS_NUM_THREADS=t, MKL_NUM_THREADS=t)
    core = openblas_coretype()
    if core:
        env["OPENBLAS_CORETYPE"] = core
    if openblas:
        env["CFLAGS"] = (env.get("CFLAGS", "") + " -DADJC_BLAS=cblas").strip()
        env["LDLIBS"] = (env.get("LDLIBS", "") + " -lopenblas").strip()
    return env


def build_c(adjc, k, cfg, workdir, dump):
    """Compile one configuration with `adjc bench --keep` (one timed call); its report."""
    name, openmp, threads, openblas = cfg
    keep = os.path.join(workdir, name)
    cmd = [adjc, "bench", os.path.join(ROOT, k["file"])] + k["flags"] + ["--repeat", "1", "--keep", keep]
    if openmp:
        cmd += ["--openmp", "--threads", str(threads)]
    if dump:
        cmd += ["--dump", dump]
    p = subprocess.run(pin(threads) + cmd, env=thread_env(threads, openblas), capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stdout}{p.stderr}")
    return keep, parse_report(p.stdout)


def uses_blas(keep, kernel):
    for f in os.listdir(keep):
        if f.endswith(".c") and f != "bench_driver.c":
            with open(os.path.join(keep, f)) as fh:
                if re.search(r"\bcblas_\w+\s*\(", fh.read()):
                    return True
    return False


def run_driver(keep, cfg):
    """One repetition of a C build: two calls of each function, the second recorded."""
    name, openmp, threads, openblas = cfg
    p = subprocess.run(
        pin(threads) + [os.path.join(keep, "bench_driver"), "inputs.bin", "2"],
        cwd=keep,
        env=thread_env(threads, openblas),
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        raise RuntimeError(f"{keep}/bench_driver failed:\n{p.stdout}{p.stderr}")
    t = {"forward": [], "adjoint": []}
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) == 2 and w[0] in t:
            t[w[0]].append(float(w[1]) * 1e3)
    return t["forward"][-1], t["adjoint"][-1]


# ----------------------------------------------------------------------------------------------
# The NumPy/JAX worker (a separate process per thread count: JAX reads its flags at import)


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def numpy_function(mod, kernel):
    """The kernel's entry: the function named after the file, else the last one defined."""
    if hasattr(mod, kernel):
        return getattr(mod, kernel)
    fns = [v for v in vars(mod).values() if inspect.isfunction(v) and v.__module__ == mod.__name__]
    return fns[-1]


def rel_err(a, b):
    """max |a - b| / max |b| (a scale-aware, one-number difference of two arrays)."""
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    scale = float(np.max(np.abs(b))) if b.size else 0.0
    diff = float(np.max(np.abs(a - b))) if b.size else 0.0
    if not math.isfinite(diff):
        return float("inf")
    return diff / scale if scale > 0 else diff


def setup_jax(jax, jnp, jax_path, k, inputs, weights, c_adjoint, np_out, sizes, info):
    """Compiles the port's forward and vjp, checks them, records XLA's memory analysis."""
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    port = load_module(jax_path, "jax_" + k["kernel"])
    jparams = list(inspect.signature(port.kernel).parameters)
    static = {p: sizes[p] for p in jparams if p in sizes and p not in inputs}
    floats = [p for p in jparams if p in inputs]
    wrt = [p for p in floats if p in c_adjoint]
    rest = [p for p in floats if p not in c_adjoint]
    of = sorted(weights)

    def fwd(*vals):
        return port.kernel(**static, **dict(zip(floats, vals)))

    def loss_outputs(wrt_vals, rest_vals):
        outs = port.kernel(**static, **dict(zip(wrt, wrt_vals)), **dict(zip(rest, rest_vals)))
        return tuple(outs[n] for n in of)

    # What adjc's adjoint returns: the primal outputs and the gradient (one call gives both).
    # Without the outputs XLA drops every forward operation the pullback does not read: for a
    # function linear in the differentiated inputs (gemm, k2mm, doitgen, a convolution w.r.t.
    # its input) that is the whole forward pass, so the gradient alone is timed separately.
    def vjp(wrt_vals, rest_vals, cot):
        outs, pull = jax.vjp(lambda *w: loss_outputs(w, rest_vals), *wrt_vals)
        return outs, pull(cot)

    def grad_only(wrt_vals, rest_vals, cot):
        _, pull = jax.vjp(lambda *w: loss_outputs(w, rest_vals), *wrt_vals)
        return pull(cot)

    jfwd = jax.jit(fwd)
    jvjp = jax.jit(vjp)
    jgrad = jax.jit(grad_only)
    fargs = [jnp.asarray(inputs[p]) for p in floats]
    wv = tuple(jnp.asarray(inputs[p]) for p in wrt)
    rv = tuple(jnp.asarray(inputs[p]) for p in rest)
    cot = tuple(jnp.asarray(weights[n]) for n in of)
    t0 = time.perf_counter()
    jout = jax.block_until_ready(jfwd(*fargs))
    info["jax_forward_compile_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    _, grads = jax.block_until_ready(jvjp(wv, rv, cot))
    info["jax_vjp_compile_s"] = time.perf_counter() - t0
    jax.block_until_ready(jgrad(wv, rv, cot))
    info["jax_vs_numpy"] = max((rel_err(jout[n], np_out[n]) for n in jout if n in np_out), default=None)
    info["grad_rel_err"] = {p: rel_err(c_adjoint[p], g) for p, g in zip(wrt, grads)}
    try:
        m = jvjp.lower(wv, rv, cot).compile().memory_analysis()
        info["jax_vjp_temp_bytes"] = int(m.temp_size_in_bytes)
        info["jax_vjp_output_bytes"] = int(m.output_size_in_bytes)
        info["jax_vjp_argument_bytes"] = int(m.argument_size_in_bytes)
    except Exception as e:  # not every backend/version has it
        info["jax_memory_error"] = str(e)
    return True, jfwd, (jvjp, jgrad), fargs, wv, rv, cot


def worker(args):
    """Loads the kernel and the archive, answers `rep` with one NumPy/JAX timing round."""
    import numpy as np

    k = json.loads(args.worker)
    data = dict(np.load(k["dump"]))
    inputs = {n: v for n, v in data.items() if "." not in n}
    weights = {n[len("weight."):]: v for n, v in data.items() if n.startswith("weight.")}
    c_forward = {n[len("forward."):]: v for n, v in data.items() if n.startswith("forward.")}
    c_adjoint = {n[len("adjoint."):]: v for n, v in data.items() if n.startswith("adjoint.")}
    sizes = k["sizes"]

    np_fn = numpy_function(load_module(os.path.join(ROOT, k["file"]), "np_" + k["kernel"]), k["kernel"])
    params = list(inspect.signature(np_fn).parameters)

    def np_args():
        out = {}
        for p in params:
            if p in inputs:
                v = inputs[p]
                out[p] = v.copy() if v.ndim else v[()]
            elif p in sizes:
                out[p] = sizes[p]
        return out

    def np_outputs(a, ret):
        outs = {p: a[p] for p in c_forward if p in a}
        if isinstance(ret, tuple):
            outs.update({f"ret{i}": r for i, r in enumerate(ret)})
        elif ret is not None:
            outs["ret"] = ret
        return outs

    info = {"threads": k["threads"], "cpu_count_affinity": len(os.sched_getaffinity(0))}
    a = np_args()
    np_out = np_outputs(a, np_fn(**a))
    info["c_vs_numpy"] = max((rel_err(c_forward[n], np_out[n]) for n in c_forward if n in np_out), default=None)

    jax_path = os.path.join(HERE, "jax", k["kernel"] + ".py")
    have_jax = k["jax"] and os.path.exists(jax_path)
    if have_jax:
        try:
            import jax
            import jax.numpy as jnp
        except ImportError:
            have_jax = False
            info["jax_missing"] = "jax is not installed"
    if have_jax:
        try:
            have_jax, jfwd, (jvjp, jgrad), fargs, wv, rv, cot = setup_jax(jax, jnp, jax_path, k, inputs, weights, c_adjoint, np_out, sizes, info)
        except Exception as e:  # a broken port costs its JAX columns, not the kernel's row
            have_jax = False
            info["jax_error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    elif k["jax"] and "jax_missing" not in info:
        info["jax_missing"] = f"no port benchmarks/jax/{k['kernel']}.py"
    print(json.dumps({"ready": info}), flush=True)

    def cpu():
        t = os.times()
        return t.user + t.system

    for line in sys.stdin:
        if line.strip() != "rep":
            break
        r = {}
        a = np_args()
        t0 = time.perf_counter()
        np_fn(**a)
        r["numpy_forward"] = (time.perf_counter() - t0) * 1e3
        if have_jax:
            t0 = time.perf_counter()
            jax.block_until_ready(jfwd(*fargs))
            r["jax_forward"] = (time.perf_counter() - t0) * 1e3
            c0, t0 = cpu(), time.perf_counter()
            jax.block_until_ready(jvjp(wv, rv, cot))
            wall = time.perf_counter() - t0
            r["jax_vjp"] = wall * 1e3
            r["jax_vjp_cpu_per_wall"] = (cpu() - c0) / wall if wall > 0 else None
            t0 = time.perf_counter()
            jax.block_until_ready(jgrad(wv, rv, cot))
            r["jax_grad"] = (time.perf_counter() - t0) * 1e3
        print(json.dumps(r), flush=True)


class Worker:
    def __init__(self, python, k, dump, threads, jax_on):
        spec = dict(kernel=k["kernel"], file=k["file"], sizes=k["sizes"], dump=dump, threads=threads, jax=jax_on)
        env = thread_env(threads)
        if threads == 1:
            env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false").strip()
        env["JAX_PLATFORMS"] = "cpu"
        env["TF_CPP_MIN_LOG_LEVEL"] = "2"
        cmd = pin(threads) + [python, os.path.abspath(__file__), "--worker", json.dumps(spec)]
        self.p = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"the NumPy/JAX worker for {k['kernel']} ({threads} threads) died")
        self.info = json.loads(line)["ready"]

    def rep(self):
        self.p.stdin.write("rep\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("the NumPy/JAX worker died")
        return json.loads(line)

    def close(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        self.p.wait()


# ----------------------------------------------------------------------------------------------
# Statistics and the scaling model


def stats(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    n = len(xs)
    med = xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])
    return {"median": med, "min": xs[0], "max": xs[-1], "n": n, "samples": xs}


def amdahl(t1, t2):
    """Parallel fraction p from T1/T2 = 1/((1-p) + p/2), clamped to [0, 1]; speedups at 16, 64."""
    if not t1 or not t2:
        return None
    s2 = t1 / t2
    p = min(1.0, max(0.0, 2.0 * (1.0 - 1.0 / s2)))
    pred = {n: 1.0 / ((1.0 - p) + p / n) for n in (16, 64)}
    return {"speedup2": s2, "p": p, "speedup16": pred[16], "speedup64": pred[64]}


# ----------------------------------------------------------------------------------------------
# One kernel


def bench_kernel(k, args, log):
    workdir = os.path.join(args.workdir, args.preset, k["kernel"])
    if os.path.isdir(workdir):
        shutil.rmtree(workdir)
    os.makedirs(workdir)
    dump = os.path.join(workdir, "values.npz")
    res = {"kernel": k["kernel"], "sizes": k["sizes"], "flags": " ".join(k["flags"])}
    cfgs = c_configs(args.threads, False)[: 1 if args.verify else None]
    builds = {}
    for i, cfg in enumerate(cfgs):
        log(f"  build {cfg[0]}")
        keep, rep = build_c(args.adjc, k, cfg, workdir, dump if i == 0 else None)
        builds[cfg[0]] = (keep, cfg)
        if i == 0:
            res["memory"] = {key: rep.get(key) for key in ["argument_bytes", "tape_bytes", "work_bytes", "peak_bytes"]}
            if "warning" in rep:
                res["warning"] = rep["warning"]
            res["blas"] = uses_blas(keep, k["kernel"])
    if res["blas"] and args.openblas and not args.verify:
        for cfg in c_configs(args.threads, True)[len(cfgs):]:
            log(f"  build {cfg[0]}")
            keep, _ = build_c(args.adjc, k, cfg, workdir, None)
            builds[cfg[0]] = (keep, cfg)
    workers = {}
    try:
        for t in args.threads:
            log(f"  worker {t} thread(s)")
            workers[t] = Worker(args.python, k, dump, t, args.jax)
        res["checks"] = {t: w.info for t, w in workers.items()}
        samples = {}
        for r in range(args.repeat):
            for name, (keep, cfg) in builds.items():
                f, a = run_driver(keep, cfg)
                samples.setdefault(f"adjc_{name}_forward", []).append(f)
                samples.setdefault(f"adjc_{name}_adjoint", []).append(a)
            for t, w in workers.items():
                for key, v in w.rep().items():
                    samples.setdefault(f"{key}_{t}", []).append(v)
            log(f"  repetition {r + 1}/{args.repeat}")
    finally:
        for w in workers.values():
            w.close()
    res["times"] = {key: stats(v) for key, v in samples.items()}
    med = lambda key: (res["times"].get(key) or {}).get("median")  # noqa: E731
    res["scaling"] = {}
    if 1 in args.threads and 2 in args.threads:
        for fa in ["forward", "adjoint"]:
            res["scaling"][fa] = amdahl(med(f"adjc_omp1_{fa}"), med(f"adjc_omp2_{fa}"))
        res["scaling"]["jax_vjp"] = amdahl(med("jax_vjp_1"), med("jax_vjp_2"))
    return res


# ----------------------------------------------------------------------------------------------
# Output


def machine():
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cc = subprocess.run([os.environ.get("CC", "cc"), "--version"], capture_output=True, text=True).stdout
    versions = {}
    try:
        out = subprocess.run(
            [sys.executable if not ARGS else ARGS.python, "-c",
             "import numpy; print('numpy', numpy.__version__)\ntry:\n import jax; print('jax', jax.__version__)\nexcept ImportError: pass"],
            capture_output=True, text=True).stdout
        for line in out.splitlines():
            n, v = line.split()
            versions[n] = v
    except Exception:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.machine()}",
        "cc": cc.splitlines()[0] if cc else "cc",
        "openblas_coretype": openblas_coretype() or "OpenBLAS's own detection",
        **versions,
    }


def loadavg():
    try:
        return [float(x) for x in open("/proc/loadavg").read().split()[:3]]
    except OSError:
        return None


def fmt_ms(s):
    if not s:
        return "–"
    m = s["median"]
    spread = (s["max"] - s["min"]) / (2 * m) * 100 if m > 0 else 0
    digits = 3 if m < 1 else (2 if m < 100 else 1)
    return f"{m:.{digits}f} ±{spread:.0f}%"


def fmt(x, spec=".2f", none="–"):
    return none if x is None else format(x, spec)


def mb(b):
    return "–" if b is None else f"{b / 1e6:.2f}"


def markdown(run, results):
    t = run["threads"]
    lines = [f"# adjc vs NumPy vs JAX, preset {run['preset']}", ""]
    if run.get("note"):
        lines += [f"**{run['note']}**", ""]
    m = run["machine"]
    lines += [
        f"Produced by `{run['command']}` on {run['date']} — {m['cpu']}, {m['cores']} cores, {m['system']}, "
        f"{m['cc']}, OpenBLAS kernels {m.get('openblas_coretype', '?')}, NumPy {m.get('numpy', '?')}, JAX {m.get('jax', 'absent')}. Load average (1, 5, 15 min) "
        f"before {run['load_before']}, after {run['load_after']}.",
        "",
        f"Times in ms: median of {run['repeat']} interleaved repetitions, ±half the range (max−min)/2 over "
        "the median. adjc = the generated C (`-O3 -march=native`, OpenMP builds with `-fopenmp`), one call "
        "after a warm-up call in the same process; its adjoint runs the forward sweep too, as JAX's vjp does. "
        "JAX = `jax.jit` of the forward and of `jax.vjp` returning, as adjc's adjoint does, the outputs and the "
        "pullback applied to adjc's weights (x64, CPU); JAX grad only = the pullback alone, where XLA drops the "
        "forward operations the gradient does not read (all of them for a function linear in the differentiated "
        "inputs: gemm, k2mm, k3mm, doitgen, conv2d_bias). "
        "Speedup = JAX vjp time / adjc OpenMP adjoint time at the same thread count (>1: adjc faster).",
        "",
        "## One thread",
        "",
        "| kernel | NumPy fwd | adjc fwd | adjc adj | adj/fwd | JAX fwd | JAX vjp | JAX grad only | speedup vs JAX | "
        "OpenBLAS adj | tape MB | adjc peak MB | JAX vjp temp MB | grad rel err | C/NumPy | JAX/NumPy |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['kernel']} | FAILED: {r['error'][:120]} |" + " |" * 15)
            continue
        T = r["times"]
        g = lambda key: (T.get(key) or {}).get("median")  # noqa: E731
        ck = r["checks"].get(1) or next(iter(r["checks"].values()))
        fwd, adj = g("adjc_omp1_forward"), g("adjc_omp1_adjoint")
        sp = g("jax_vjp_1") / adj if g("jax_vjp_1") and adj else None
        grad = ck.get("grad_rel_err")
        grad_txt = fmt(max(grad.values()), ".1e") if grad else (
            "no port" if ck.get("jax_missing") else ("JAX error" if ck.get("jax_error") else "–")
        )
        name = r["kernel"] + (" (non-finite)" if r.get("warning") else "")
        lines.append(
            f"| {name} | {fmt_ms(T.get('numpy_forward_1'))} | {fmt_ms(T.get('adjc_omp1_forward'))} | "
            f"{fmt_ms(T.get('adjc_omp1_adjoint'))} | {fmt(adj / fwd if fwd and adj else None)} | "
            f"{fmt_ms(T.get('jax_forward_1'))} | {fmt_ms(T.get('jax_vjp_1'))} | {fmt_ms(T.get('jax_grad_1'))} | {fmt(sp)} | "
            f"{fmt_ms(T.get('adjc_omp1+openblas_adjoint'))} | {mb(r['memory']['tape_bytes'])} | "
            f"{mb(r['memory']['peak_bytes'])} | {mb(ck.get('jax_vjp_temp_bytes'))} | {grad_txt} | "
            f"{fmt(ck.get('c_vs_numpy'), '.1e')} | {fmt(ck.get('jax_vs_numpy'), '.1e')} |"
        )
    lines += [
        "",
        "adj/fwd = adjc adjoint / adjc forward (OpenMP build, 1 thread). OpenBLAS adj: the adjoint built with "
        "`-DADJC_BLAS=cblas -lopenblas` (kernels with BLAS calls only). tape = values the forward sweep saves; "
        "adjc peak = most memory the adjoint's code held at once (ADJC_STATS build); JAX vjp temp = XLA's "
        "compiled memory analysis of the jitted vjp (temporary buffers, outputs and arguments excluded). "
        "grad rel err = max|g_adjc − g_JAX| / max|g_JAX| over the differentiated inputs; C/NumPy and "
        "JAX/NumPy: the same for the forward outputs.",
        "",
        "## Threads",
        "",
    ]
    hdr = ["kernel"]
    for cfg in ["serial"] + [f"omp{x}" for x in t]:
        hdr += [f"{cfg} fwd", f"{cfg} adj"]
    hdr += [f"JAX vjp {x}T" for x in t]
    if 1 in t and 2 in t:
        hdr += ["speedup vs JAX 2T", "p fwd", "p adj", "adj ×16", "adj ×64"]
    lines += ["| " + " | ".join(hdr) + " |", "|---" + "|---:" * (len(hdr) - 1) + "|"]
    for r in results:
        if "error" in r:
            continue
        T = r["times"]
        g = lambda key: (T.get(key) or {}).get("median")  # noqa: E731
        row = [r["kernel"]]
        for cfg in ["serial"] + [f"omp{x}" for x in t]:
            row += [fmt_ms(T.get(f"adjc_{cfg}_forward")), fmt_ms(T.get(f"adjc_{cfg}_adjoint"))]
        row += [fmt_ms(T.get(f"jax_vjp_{x}")) for x in t]
        if 1 in t and 2 in t:
            s = r["scaling"]
            sp2 = g("jax_vjp_2") / g("adjc_omp2_adjoint") if g("jax_vjp_2") and g("adjc_omp2_adjoint") else None
            row += [
                fmt(sp2),
                fmt((s.get("forward") or {}).get("p")),
                fmt((s.get("adjoint") or {}).get("p")),
                fmt((s.get("adjoint") or {}).get("speedup16"), ".1f"),
                fmt((s.get("adjoint") or {}).get("speedup64"), ".1f"),
            ]
        lines.append("| " + " | ".join(row) + " |")
    lines += [
        "",
        "p = Amdahl parallel fraction fitted to the OpenMP 1- and 2-thread medians (T1/T2 = 1/((1−p)+p/2)); "
        "adj ×16, ×64 = the adjoint speedups it predicts at 16 and 64 threads. Two cores and a loaded machine "
        "make p a rough estimate (see benchmarks/README.md: Scaling).",
        "",
    ]
    cpu_ratio = []
    for r in results:
        for x in t:
            s = (r.get("times") or {}).get(f"jax_vjp_cpu_per_wall_{x}")
            if s:
                cpu_ratio.append((r["kernel"], x, s["median"]))
    if cpu_ratio:
        by_t = {}
        for _, x, v in cpu_ratio:
            by_t.setdefault(x, []).append(v)
        lines += [
            "JAX threads actually used (CPU time / wall time of the vjp, median over kernels): "
            + ", ".join(f"{x} thread(s): {sorted(v)[len(v) // 2]:.2f}" for x, v in sorted(by_t.items())),
            "",
        ]
    lines += ["Plots: `speedup.svg`, `adjoint_ratio.svg`, `scaling.svg` (and .png) in this directory.", ""]
    return "\n".join(lines)


def plots(results, out, threads):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is absent: no plots", file=sys.stderr)
        return
    ok = [r for r in results if "error" not in r]

    def med(r, key):
        return ((r["times"].get(key)) or {}).get("median")

    names = [r["kernel"] for r in ok]
    x = list(range(len(ok)))

    def save(fig, name):
        fig.tight_layout()
        for ext in ("svg", "png"):
            fig.savefig(os.path.join(out, f"{name}.{ext}"), dpi=120)
        plt.close(fig)

    # Speedup over JAX (vjp/adjoint) per kernel, log axis.
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(ok) + 2), 4))
    width = 0.8 / max(1, len(threads))
    for i, t in enumerate(threads):
        ys = [
            (med(r, f"jax_vjp_{t}") / med(r, f"adjc_omp{t}_adjoint"))
            if med(r, f"jax_vjp_{t}") and med(r, f"adjc_omp{t}_adjoint")
            else float("nan")
            for r in ok
        ]
        ax.bar([xi + i * width for xi in x], ys, width, label=f"{t} thread(s)")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_yscale("log")
    ax.set_xticks([xi + width * (len(threads) - 1) / 2 for xi in x])
    ax.set_xticklabels(names, rotation=60, ha="right")
    ax.set_ylabel("JAX vjp time / adjc adjoint time")
    ax.set_title("Speedup of adjc's adjoint over jax.vjp (>1: adjc faster)")
    ax.legend()
    save(fig, "speedup")

    # Adjoint / forward per kernel.
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(ok) + 2), 4))
    ya = [
        med(r, "adjc_omp1_adjoint") / med(r, "adjc_omp1_forward") if med(r, "adjc_omp1_forward") else float("nan")
        for r in ok
    ]
    yj = [med(r, "jax_vjp_1") / med(r, "jax_forward_1") if med(r, "jax_forward_1") else float("nan") for r in ok]
    ax.bar([xi - 0.2 for xi in x], ya, 0.4, label="adjc (1 thread)")
    ax.bar([xi + 0.2 for xi in x], yj, 0.4, label="JAX (1 thread)")
    ax.axhline(3.0, color="r", lw=0.8, ls="--", label="goal: 3")
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.set_xticklabels(names, rotation=60, ha="right")
    ax.set_ylabel("adjoint time / forward time")
    ax.legend()
    save(fig, "adjoint_ratio")

    # Thread scaling: T1/T2 of the OpenMP build and of JAX.
    if 1 in threads and 2 in threads:
        fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(ok) + 2), 4))
        series = [
            ("adjc forward", "adjc_omp1_forward", "adjc_omp2_forward"),
            ("adjc adjoint", "adjc_omp1_adjoint", "adjc_omp2_adjoint"),
            ("JAX vjp", "jax_vjp_1", "jax_vjp_2"),
        ]
        for i, (label, k1, k2) in enumerate(series):
            ys = [med(r, k1) / med(r, k2) if med(r, k1) and med(r, k2) else float("nan") for r in ok]
            ax.bar([xi + (i - 1) * 0.27 for xi in x], ys, 0.27, label=label)
        ax.axhline(1.6, color="r", lw=0.8, ls="--", label="goal: 1.6")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_yscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels(names, rotation=60, ha="right")
        ax.set_ylabel("speedup, 1 → 2 threads (T1/T2)")
        ax.legend()
        save(fig, "scaling")


def write_results(out, run, results):
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"run": run, "results": results}, f, indent=1, default=str)
    md = markdown(run, results)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(md)
    return md


# ----------------------------------------------------------------------------------------------

ARGS = None


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--preset", choices=["S", "M"], default="S")
    ap.add_argument("--kernels", help="comma-separated kernel names (default: every kernel of the preset list)")
    ap.add_argument("--list", help="a kernel list file instead of the preset's")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--quick", action="store_true", help=f"smoke run: {', '.join(QUICK_KERNELS)}, 1 repetition, preset S")
    ap.add_argument("--no-jax", dest="jax", action="store_false")
    ap.add_argument("--no-openblas", dest="openblas", action="store_false")
    ap.add_argument("--out", help="results directory (default benchmarks/results/<preset>)")
    ap.add_argument("--workdir", default=os.path.join(ROOT, "target", "bench"))
    ap.add_argument("--adjc", default=os.environ.get("ADJC", os.path.join(ROOT, "target", "release", "adjc")))
    ap.add_argument("--python", default=sys.executable, help="the Python of the NumPy/JAX workers")
    ap.add_argument("--note", help="a line printed at the top of the results (e.g. 'loaded machine')")
    ap.add_argument("--no-plots", dest="plots", action="store_false")
    ap.add_argument("--verify", action="store_true", help="no timings: check the ports (serial build, 1 thread)")
    ap.add_argument("--replot", metavar="DIR", help="rewrite DIR/results.md and the plots from DIR/results.json")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    if args.replot:
        with open(os.path.join(args.replot, "results.json")) as f:
            saved = json.load(f)
        run, results = saved["run"], saved["results"]
        for r in results:  # JSON turned the thread-count keys into strings
            r["checks"] = {int(t): v for t, v in (r.get("checks") or {}).items()}
        write_results(args.replot, run, results)
        plots(results, args.replot, run["threads"])
        return 0
    if args.quick:
        args.preset, args.repeat = "S", 1
        args.kernels = args.kernels or ",".join(QUICK_KERNELS)
    args.threads = [int(x) for x in args.threads.split(",") if x]
    if args.verify:
        args.threads, args.repeat, args.plots = [1], 0, False
    ARGS = args
    if not os.path.exists(args.adjc):
        sys.exit(f"bench.py: no adjc binary at {args.adjc} (cargo build --release -p adjc, or --adjc)")
    klist = parse_list(args.list or LISTS[args.preset])
    names = args.kernels.split(",") if args.kernels else list(klist)
    unknown = [n for n in names if n not in klist]
    if unknown:
        sys.exit(f"bench.py: not in {args.list or LISTS[args.preset]}: {', '.join(unknown)}")
    out = args.out or os.path.join(HERE, "results", args.preset)
    os.makedirs(out, exist_ok=True)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    run = {
        "preset": args.preset,
        "repeat": args.repeat,
        "threads": args.threads,
        "command": "benchmarks/bench.py " + " ".join(sys.argv[1:]),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load_before": loadavg(),
        "note": args.note,
    }
    results = []
    for n in names:
        log(f"{n}:")
        try:
            results.append(bench_kernel(klist[n], args, log))
        except Exception as e:  # one kernel's failure is a row of the table, not the end of the run
            log(f"  FAILED: {e}")
            results.append({"kernel": n, "error": str(e).strip().splitlines()[0] if str(e).strip() else repr(e)})
        # After every kernel: a long run that is stopped still leaves its table.
        run["load_after"] = loadavg()
        md = write_results(out, run, results)
    if args.plots:
        plots(results, out, args.threads)
    print(md)
    log(f"wrote {out}/results.md, results.json" + (", plots" if args.plots else ""))
    return 1 if any("error" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
