#!/usr/bin/env bash
# The benchmarks of a build (benchmarks/README.md).
#   scripts/run-benchmarks.sh [build-dir]         the figures with goals, as one table
#                                                 (scripts/bench-table.py; BENCH_QUICK=1 for a quick look)
#   scripts/run-benchmarks.sh --all [build-dir]   every program in turn, each printing its own table
# build-dir defaults to build/default.
set -euo pipefail
all=false
if [[ ${1:-} == --all ]]; then
  all=true
  shift
fi
build=${1:-build/default}
if ! $all; then
  exec python3 "$(dirname "$0")/bench-table.py" "$build"
fi
for bench in "$build"/benchmarks/*_benchmark; do
  echo "== $(basename "$bench")"
  "$bench" --benchmark_counters_tabular=true
done
