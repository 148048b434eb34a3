#!/bin/sh
# Runs shards FIRST and FIRST+1 (of TOTAL) of the integration suite on PostgreSQL at once,
# each its own process with its own private cluster. They wait on daemons and the
# database far more than they use a core, so two at a time per ctest slot halve the
# wall time of this pass. Fails if either fails, showing that shard's output.
#   postgres_shards.sh <test binary> <total> <first> <log dir>
set -u
binary=$1 total=$2 first=$3 logs=$4
mkdir -p "$logs"
second=$((first + 1))
GTEST_TOTAL_SHARDS=$total GTEST_SHARD_INDEX=$first "$binary" > "$logs/shard-$first.log" 2>&1 &
a=$!
GTEST_TOTAL_SHARDS=$total GTEST_SHARD_INDEX=$second "$binary" > "$logs/shard-$second.log" 2>&1 &
b=$!
wait $a; ra=$?
wait $b; rb=$?
for shard in $first $second; do grep -E '^\[(  PASSED  |  FAILED  |  SKIPPED )\]|tests ran' "$logs/shard-$shard.log"; done
[ $ra -eq 0 ] || cat "$logs/shard-$first.log"
[ $rb -eq 0 ] || cat "$logs/shard-$second.log"
[ $ra -eq 0 ] && [ $rb -eq 0 ]
