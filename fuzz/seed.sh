#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with the seeds: every example and every error case, plus the
# saved regression inputs (fuzz/regressions/<target>/). Run from anywhere.
set -euo pipefail
cd "$(dirname "$0")"
root=..
mkdir -p corpus/python_frontend corpus/fortran_frontend corpus/cli_args
for f in "$root"/examples/python/*.py "$root"/tests/errors/*.py; do
  [ -f "$f" ] && cp "$f" "corpus/python_frontend/$(basename "$f")"
done
# Fortran: a flag byte (bit 0 fixed form, bit 1 cpp output, bit 2 two files) before the text.
for f in "$root"/examples/fortran/*.f* "$root"/examples/fortran/*.F* "$root"/examples/fortran/modules/*.f* "$root"/tests/errors/*.f*; do
  [ -f "$f" ] || continue
  case "$f" in
    *.f|*.for|*.f77) flag='\x01' ;;
    *) flag='\x00' ;;
  esac
  { printf "$flag"; cat "$f"; } >"corpus/fortran_frontend/$(basename "$f")"
done
# Preprocessed sources (cpp output with line markers), when cpp is installed.
if command -v cpp >/dev/null 2>&1; then
  for f in "$root"/examples/fortran/*.F90 "$root"/examples/fortran/*.F; do
    [ -f "$f" ] || continue
    case "$f" in *.F) flag='\x03' ;; *) flag='\x02' ;; esac
    { printf "$flag"; cpp -traditional -undef -nostdinc -D__GFORTRAN__ -DNI=7 -DNJ=6 -DNK=5 "$f" 2>/dev/null || true; } \
      >"corpus/fortran_frontend/cpp_$(basename "$f")"
  done
fi
# Two files: a module and its user.
if [ -f "$root/examples/fortran/heat_step.f90" ]; then
  for m in "$root"/examples/fortran/modules/*.f90; do
    { printf '\x04'; cat "$root/examples/fortran/heat_step.f90"; printf '\0'; cat "$m"; } \
      >"corpus/fortran_frontend/two_$(basename "$m")"
  done
fi
# Command lines: each `adjc check:` line of the examples, as NUL-separated argv.
i=0
for f in "$root"/examples/python/*.py "$root"/examples/fortran/*.f90; do
  line=$(grep -m1 -o 'adjc check:.*' "$f" 2>/dev/null | sed 's/^adjc check://') || continue
  i=$((i + 1))
  # shellcheck disable=SC2086
  printf '%s\0' check "$f" $line --openmp --keep /tmp/k --tol 1e-6 | head -c -1 >"corpus/cli_args/check_$i"
done
printf 'transpile\0k.py\0--checkpoint\0008=binomial:4\0--emit\0ir\0--report' >corpus/cli_args/transpile
printf 'plan\0k.py\0--sizes\0N=64\0--memory-limit\0005632\0--strategy\0ilp\0--report-format\0json' >corpus/cli_args/plan
printf 'bench\0k.f90\0m.f90\0-D\0NI=7\0-I\0inc\0--repeat\0003\0--threads\0002\0--openmp' >corpus/cli_args/bench
for t in python_frontend fortran_frontend cli_args; do
  [ -d "regressions/$t" ] && cp "regressions/$t"/* "corpus/$t/" 2>/dev/null || true
done
echo "seeded: $(ls corpus/python_frontend | wc -l) python, $(ls corpus/fortran_frontend | wc -l) fortran, $(ls corpus/cli_args | wc -l) cli"
