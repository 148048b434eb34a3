#!/usr/bin/env bash
# Runs every benchmark program of a build and prints its table.
#   scripts/run-benchmarks.sh [build-dir]   (default build/default)
set -euo pipefail
build=${1:-build/default}
for bench in "$build"/benchmarks/*_benchmark; do
  echo "== $(basename "$bench")"
  "$bench" --benchmark_counters_tabular=true
done
