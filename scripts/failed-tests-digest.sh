#!/bin/sh
# After a failed `make test`: the failed tests again, at the end of the output where a
# long log's reader looks first, each with its first failed expectations. The PostgreSQL
# pass's entries run many tests in one process, so for those the failed gtest names and
# expectations are read from their shard logs.
#   failed-tests-digest.sh <build dir>
build=${1:?usage: failed-tests-digest.sh <build dir>}
failed="$build/Testing/Temporary/LastTestsFailed.log"
[ -s "$failed" ] || exit 0
echo
echo "==== failed tests ($(wc -l < "$failed")) ===="
while IFS=: read -r _ name; do
  echo "-- $name"
  case "$name" in
    IntegrationOnPostgres.*)
      first=${name#IntegrationOnPostgres.}
      for shard in "$first" $((first + 1)); do
        log="$build/tests/integration/postgres-shards/shard-$shard.log"
        [ -f "$log" ] || continue
        grep -E '^\[  FAILED  \] [^ ]+ \(' "$log" | sed "s/^/   shard $shard: /"
        grep -E -A4 ': Failure$' "$log" | head -n 20 | sed 's/^/     /'
      done
      ;;
  esac
done < "$failed"
