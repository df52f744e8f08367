#!/usr/bin/env bash
# Regenerates the three `adjc review` pages of README ("Reviewing an adjoint") and their
# screenshots in docs/review/: a Python BLAS kernel (gemm.py), a stencil whose time loop is
# checkpointed under a 4 KiB memory limit (reaction_diffusion.py) and a Fortran kernel
# (energy.f90), each with --check. The screenshots are taken in headless Chromium after the
# page's self-test (`#selftest` clicks a source line, which lights up its C lines).
#
#   scripts/review_screenshots.sh            # needs chromium, cc, gfortran; NumPy via ADJC_PYTHON
#
# ADJC=path/to/adjc uses that binary instead of building one (cargo build -p adjc).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${ADJC:-}" ]; then
  cargo build -q -p adjc
  ADJC=target/debug/adjc
fi
command -v chromium >/dev/null || { echo "review_screenshots.sh: chromium is needed (apt-get install chromium)" >&2; exit 2; }

out=docs/review
mkdir -p "$out"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

shot() {
  local name=$1
  shift
  "$ADJC" review "$@" --check -o "$out/$name.html"
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size=1400,1700 \
    --screenshot="$out/$name.png" "file://$PWD/$out/$name.html#selftest" 2>/dev/null
  echo "wrote $out/$name.png"
}

shot gemm examples/python/gemm.py --sizes NI=7,NJ=6,NK=5
shot reaction_diffusion examples/python/reaction_diffusion.py --sizes u_n0=24,TSTEPS=50 --memory-limit 4KiB
shot energy_f90 examples/fortran/energy.f90 --sizes n=9,m=5
