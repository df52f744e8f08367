#!/usr/bin/env bash
# Creates the benchmark's Python environment, target/bench-venv, with NumPy, JAX (CPU) and
# matplotlib, for a fresh machine. Usage: benchmarks/setup_venv.sh [PYTHON]   (default python3)
# Prints the path of the environment's python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/bench-venv
py=${1:-python3}
if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv" >&2
fi
"$venv/bin/python" -m pip install -q --upgrade pip >&2
"$venv/bin/python" -m pip install -q numpy "jax[cpu]" matplotlib >&2
echo "$PWD/$venv/bin/python"
