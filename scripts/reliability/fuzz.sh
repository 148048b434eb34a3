#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset: clang, ASan + UBSan) and runs each
# for a number of executions over a scratch copy of its committed corpus, so a run
# never changes the repository unless asked to.
#
#   scripts/reliability/fuzz.sh [--merge] [--no-build] [target|all] [runs] [-- libFuzzer flags]
#
#   target   http_request, jsonrpc, front_matter, yaml, template, interpolation, cron, or all
#            (default all; a target the build skipped is reported and skipped)
#   runs     executions per target (default 1000000)
#   libFuzzer flags  passed on as they are, e.g. -max_len=1024 -seed=1
#   --merge  afterwards, add to tests/fuzz/corpus/<target>/ new inputs that reach coverage
#            the corpus lacks: at most 24, none over 512 bytes, spread over their sizes
#
# A crash, leak, timeout or broken invariant leaves its input in tests/fuzz/findings/
# (not committed) and makes the script exit 1 after the other targets have run.
# One line per target: executions, exec/s, wall time, final cov/ft, result.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build="$root/build/fuzz/fuzz"
corpus_root="$root/tests/fuzz/corpus"
dict_root="$root/tests/fuzz/dict"
findings="$root/tests/fuzz/findings"
all_targets=(http_request jsonrpc front_matter yaml template interpolation cron)
max_new=24
max_new_bytes=512

merge=0
do_build=1
positional=()
extra=()
while [[ $# -gt 0 ]]; do
  arg=$1
  shift
  case "$arg" in
    --) extra=("$@"); break ;;
    --merge) merge=1 ;;
    --no-build) do_build=0 ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $arg" >&2; exit 2 ;;
    *) positional+=("$arg") ;;
  esac
done
which_target=${positional[0]:-all}
runs=${positional[1]:-1000000}
if [[ "$which_target" == all ]]; then
  targets=("${all_targets[@]}")
else
  targets=("$which_target")
fi

if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz.sh: needs clang and libFuzzer: apt-get install clang libclang-rt-dev" >&2
  exit 2
fi

if [[ $do_build == 1 ]]; then
  (cd "$root" && cmake --preset fuzz >/dev/null && nice -n 19 cmake --build --preset fuzz -j 2 >/dev/null) || {
    echo "fuzz.sh: the fuzz build failed; run: cmake --preset fuzz && cmake --build --preset fuzz" >&2
    exit 2
  }
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/agentry-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$findings"

# Copies into the corpus dir $2 inputs of $3 that reach coverage $2 lacks (libFuzzer's
# merge keeps a minimal covering set, named by SHA-1); prints how many.
merge_back() {
  local binary=$1 corpus=$2 found=$3
  local small="$scratch/small" merged="$scratch/merged"
  rm -rf "$small" "$merged" && mkdir -p "$small" "$merged"
  find "$found" -type f -size -$((max_new_bytes + 1))c -exec cp {} "$small/" \;
  nice -n 19 "$binary" -merge=1 "$merged" "$corpus" "$small" >"$scratch/merge.log" 2>&1 || true
  local known sum file fresh=()
  known=$(for f in "$corpus"/*; do sha1sum <"$f" | cut -c1-40; done)
  while IFS= read -r file; do
    sum=$(sha1sum <"$file" | cut -c1-40)
    grep -qxF "$sum" <<<"$known" || fresh+=("$file")
  done < <(find "$merged" -type f -printf '%s %p\n' | sort -n | cut -d' ' -f2-)
  # Spread the picks over the sizes: the smallest alone are mostly one-byte error paths.
  local n=${#fresh[@]} picks=$max_new i added=0
  ((n < picks)) && picks=$n
  for ((i = 0; i < picks; i++)); do
    file=${fresh[$((picks > 1 ? i * (n - 1) / (picks - 1) : 0))]}
    # What fails without AGENTRY_FUZZ_TOLERATE is a finding, never part of the corpus.
    env -u AGENTRY_FUZZ_TOLERATE "$binary" -artifact_prefix="$scratch/" "$file" >/dev/null 2>&1 || continue
    cp "$file" "$corpus/find-$(basename "$file" | cut -c1-12)"
    added=$((added + 1))
  done
  echo "$added"
}

status=0
printf '%-14s %10s %8s %7s %7s %7s %s\n' target execs exec/s wall_s cov ft result
for target in "${targets[@]}"; do
  binary="$build/fuzz_$target"
  if [[ ! -x "$binary" ]]; then
    printf '%-14s %s\n' "$target" "not built (see the warning of cmake --preset fuzz)"
    continue
  fi
  work="$scratch/$target"
  mkdir -p "$work"
  cp "$corpus_root/$target"/* "$work/"
  log="$findings/$target.log"
  dict=()
  [[ -f "$dict_root/$target.dict" ]] && dict=(-dict="$dict_root/$target.dict")
  start=$(date +%s.%N)
  set +e
  nice -n 19 "$binary" -runs="$runs" -timeout=10 -print_final_stats=1 "${dict[@]}" "${extra[@]}" \
    -artifact_prefix="$findings/$target-" "$work" >"$log" 2>&1
  rc=$?
  set -e
  wall=$(echo "$start $(date +%s.%N)" | awk '{printf "%.0f", $2 - $1}')
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
  if [[ $rc == 0 ]]; then
    result=ok
    if [[ $merge == 1 ]]; then
      result="ok, merged $(merge_back "$binary" "$corpus_root/$target" "$work") new inputs"
    fi
  else
    status=1
    artifact=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -1 | sed 's/Test unit written to //')
    result="FAILED (exit $rc): ${artifact:-see $log}"
  fi
  printf '%-14s %10s %8s %7s %7s %7s %s\n' "$target" "${execs:-?}" "${rate:-?}" "$wall" "${cov:-?}" "${ft:-?}" "$result"
done
exit $status
