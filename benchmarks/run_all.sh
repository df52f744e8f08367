#!/usr/bin/env bash
# The whole benchmark in one command: builds adjc (release), finds a Python with NumPy, JAX and
# matplotlib ($BENCH_PYTHON, else target/bench-venv, created by benchmarks/setup_venv.sh when
# missing) and runs benchmarks/bench.py with the given flags; results in benchmarks/results/.
#
#   benchmarks/run_all.sh                      # preset S, every kernel, 5 repetitions
#   benchmarks/run_all.sh --preset M           # NPBench preset M (~100 ms of NumPy)
#   benchmarks/run_all.sh --quick              # smoke run: 2 kernels, 1 repetition
#   benchmarks/run_all.sh --kernels gemm,lu --repeat 9
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p adjc
py=${BENCH_PYTHON:-}
if [ -z "$py" ]; then
    if [ -x target/bench-venv/bin/python ]; then
        py=target/bench-venv/bin/python
    else
        py=$(benchmarks/setup_venv.sh)
    fi
fi
exec "$py" benchmarks/bench.py --adjc target/release/adjc --python "$py" "$@"
