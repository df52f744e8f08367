#!/usr/bin/env bash
# Runs the three fuzz targets one after another, SECONDS each (default 1800), single job,
# with the stable toolchain (`--sanitizer none`: Rust panics and aborts are what we look for;
# ASan needs nightly). Logs in fuzz/logs/<target>.log, crashes in fuzz/artifacts/<target>/.
#   fuzz/run_all.sh 1800            # the issue's 30 minutes per target
#   fuzz/run_all.sh 60 cli_args     # one target
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-1800}"
shift || true
targets=("${@:-python_frontend fortran_frontend cli_args}")
./seed.sh
mkdir -p logs
for t in ${targets[@]}; do
  echo "== $t: ${secs}s"
  cargo fuzz run --sanitizer none -O "$t" "corpus/$t" -- \
    -max_total_time="$secs" -max_len=8192 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    >"logs/$t.log" 2>&1 || echo "   $t stopped with a finding: see logs/$t.log and artifacts/$t/"
  grep -E '^stat::number_of_executed_units|^stat::peak_rss|Done [0-9]+ runs' "logs/$t.log" || tail -3 "logs/$t.log"
done
