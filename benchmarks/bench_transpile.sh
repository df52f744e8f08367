#!/usr/bin/env bash
# Transpile-time scaling benchmark: generates large kernels (benchmarks/gen_large.py) and prints
# the CPU time (user + system, which a loaded machine does not inflate the way it does wall
# time) of `adjc transpile` for each shape, language and size. Needs python3 and GNU time
# (/usr/bin/time). Results and history: benchmarks/transpile_scaling.md.
#
#   benchmarks/bench_transpile.sh                      # sizes 1000 3000 10000 30000
#   SIZES="1000 3000" SHAPES="straight sum" LANGS=py benchmarks/bench_transpile.sh
#   ADJC=target/release/adjc TIMEOUT=600 benchmarks/bench_transpile.sh
#
# Shapes: straight (straight-line statements), loop (all in one loop body), loops (many small
# loops), nested (loop nests 4 deep), sum (one sum of N terms). A run over TIMEOUT seconds
# (default 300, wall time) prints `>TIMEOUT`; larger sizes of that shape and language are then
# skipped, as they are after an error.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
ADJC="${ADJC:-$root/target/release/adjc}"
SIZES="${SIZES:-1000 3000 10000 30000}"
SHAPES="${SHAPES:-straight loop loops nested sum}"
LANGS="${LANGS:-py f90}"
TIMEOUT="${TIMEOUT:-300}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$ADJC" ]; then
    (cd "$root" && cargo build --release -q -p adjc) || exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf '| shape | lang |'
for n in $SIZES; do printf ' %s |' "$n"; done
printf '\n|---|---|'
for n in $SIZES; do printf -- '---:|'; done
printf '\n'
for shape in $SHAPES; do
    for lang in $LANGS; do
        printf '| %s | %s |' "$shape" "$lang"
        skip=0
        for n in $SIZES; do
            if [ "$skip" = 1 ]; then printf ' - |'; continue; fi
            src="$work/k_${shape}_$n.$lang"
            "$PYTHON" "$here/gen_large.py" "$shape" "$n" "$lang" >"$src"
            timeout "$TIMEOUT" /usr/bin/time -f '%U %S' -o "$work/time" \
                "$ADJC" transpile "$src" -o "$work/out" >/dev/null 2>"$work/err"
            rc=$?
            if [ $rc = 124 ]; then
                printf ' >%ss |' "$TIMEOUT"; skip=1
            elif [ $rc != 0 ]; then
                printf ' error: %s |' "$(grep -m1 'error' "$work/err" | cut -c1-60)"; skip=1
            else
                printf ' %.2fs |' "$(awk '{print $1 + $2}' "$work/time")"
            fi
        done
        printf '\n'
    done
done
