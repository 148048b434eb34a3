#!/usr/bin/env bash
# Writes tests/ctest-costs.txt from what ctest measured in a build tree: the seconds each
# test of a second or more took, in ctest's own cost-data format. A fresh build tree
# starts from that file (tests/CMakeLists.txt), so its first ctest starts the longest
# tests first instead of last. Run after a full `make test` when tests were added or
# their times moved a lot.
#   scripts/update-test-costs.sh [build/debug]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/debug}"
costs="$build/Testing/Temporary/CTestCostData.txt"
[ -f "$costs" ] || { echo "update-test-costs: no $costs (run the tests in $build first)" >&2; exit 1; }
ctest --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: //p' > "$build/Testing/Temporary/test-names.txt"
python3 - "$costs" "$build/Testing/Temporary/test-names.txt" tests/ctest-costs.txt <<'PY'
import re
import sys
costs, names_file, out = sys.argv[1:]
names = {line.rstrip('\n') for line in open(names_file)}
rows = []
for line in open(costs):
    line = line.rstrip('\n')
    if line == '---':
        break  # what follows lists the tests that failed last time
    name, _count, cost = line.rsplit(' ', 2)
    name = re.sub(r' +#.*', '', name)  # as named before NO_PRETTY_VALUES (tests/CMakeLists.txt)
    if name in names and float(cost) >= 1.0:
        rows.append((float(cost), name))
rows.sort(reverse=True)
with open(out, 'w') as f:
    for cost, name in rows:
        f.write(f'{name} 1 {cost:.1f}\n')
print(f'update-test-costs: {len(rows)} tests of a second or more -> {out}')
PY
