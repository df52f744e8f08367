#!/usr/bin/env bash
# Runs `adjc bench` on every kernel of benchmarks/kernels.txt and prints a markdown table
# (also written to benchmarks/results.md).
#
# Usage: benchmarks/run.sh [ADJC BENCH FLAGS...]     e.g. --repeat 20 --openmp --threads 2
# Flags are passed to every `adjc bench` call (default: --repeat 10). $ADJC names the adjc
# binary (default: target/debug/adjc, built first; its speed does not matter, the timed
# code is the generated C built with -O3 -march=native). $KERNELS names another list,
# $RESULTS another output file. $CFLAGS and $LDLIBS reach the C build of every kernel:
# `CFLAGS=-DADJC_BLAS=cblas LDLIBS=-lopenblas benchmarks/run.sh` times the matrix products with
# OpenBLAS instead of adjc's portable fallback (recorded in the results).
set -uo pipefail
cd "$(dirname "$0")/.."

kernels=${KERNELS:-benchmarks/kernels.txt}
out=${RESULTS:-benchmarks/results.md}
if [ $# -eq 0 ]; then
    set -- --repeat 10
fi
if [ -z "${ADJC:-}" ]; then
    cargo build -q -p adjc || exit 3
    ADJC=target/debug/adjc
fi

trim() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' <<<"$1"; }

# The command as a user would type it: `adjc` for the binary, shell quotes where needed.
show() {
    local out="adjc" w
    for w in "${@:2}"; do
        if [[ $w =~ ^[A-Za-z0-9_=./,:+-]+$ ]]; then
            out+=" $w"
        else
            out+=" '${w//\'/\'\\\'\'}'"
        fi
    done
    echo "$out"
}

# "1234567" -> "1.235" (MB = 10^6 bytes).
mb() { awk -v b="$1" 'BEGIN { printf "%.3f", b / 1e6 }'; }

table="| kernel | sizes | forward ms | adjoint ms | ratio | tape MB | args MB | work MB |
|---|---|---:|---:|---:|---:|---:|---:|"
commands=""
failures=0
while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}
    [ -z "$(trim "$line")" ] && continue
    IFS='|' read -r file sizes other <<<"$line"
    file=$(trim "$file")
    sizes=$(trim "$sizes")
    other=$(trim "${other:-}")
    kernel=$(basename "$file" .py)
    # Word splitting of the flag fields is intended: they hold several flags.
    # shellcheck disable=SC2086
    cmd=("$ADJC" bench "$file" $sizes $other "$@")
    commands+="    $(show "${cmd[@]}")"$'\n'
    echo "running: $(show "${cmd[@]}")" >&2
    if ! report=$("${cmd[@]}" 2>&1); then
        failures=$((failures + 1))
        reason=$(head -n 1 <<<"$report" | tr '|' '/')
        table+=$'\n'"| $kernel | ${sizes#--sizes } | FAILED: $reason | | | | | |"
        echo "$report" >&2
        continue
    fi
    echo "$report" >&2
    field() { awk -v a="$1" -v b="$2" -v k="$3" '$1 == a && $2 == b { print $k; exit }' <<<"$report"; }
    fwd=$(field forward ms 4)
    adj=$(field adjoint ms 4)
    ratio=$(awk '$1 == "ratio" { print $2; exit }' <<<"$report")
    tape=$(field tape bytes 3)
    args=$(field argument bytes 3)
    work=$(field work bytes 3)
    warn=""
    grep -q "warning:" <<<"$report" && warn=" (non-finite outputs)"
    table+=$'\n'"| $kernel$warn | ${sizes#--sizes } | $(printf '%.3f' "$fwd") | $(printf '%.3f' "$adj") | $(printf '%.2f' "$ratio") | $(mb "$tape") | $(mb "$args") | $(mb "$work") |"
done <"$kernels"

cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
cc_version=$(${CC:-cc} --version 2>/dev/null | head -n 1)
build="CFLAGS=${CFLAGS:-} LDLIBS=${LDLIBS:-}"
[ -z "${CFLAGS:-}${LDLIBS:-}" ] && build="no CFLAGS/LDLIBS: BLAS calls use adjc's fallback"
result="# adjc bench results

Produced by \`benchmarks/run.sh $*\` on $(date -u +%Y-%m-%d) ($(uname -sm), ${cpu:-unknown CPU}, $(nproc 2>/dev/null || echo '?') cores, ${cc_version:-cc}).
Forward and adjoint times are medians of the timed calls of the generated C built with
\`-O3 -march=native\` ($build); ratio = adjoint / forward; tape = peak bytes of values saved by the forward
sweep (tape arrays + stack tapes); args = bytes of all array arguments; work = the adjoint's other
local arrays. MB = 10^6 bytes.

$table

Commands:

$commands"
echo "$result"
echo "$result" >"$out"
echo "wrote $out" >&2
[ "$failures" -eq 0 ] || { echo "$failures kernel(s) failed" >&2; exit 1; }
