#!/usr/bin/env bash
# `make run`'s last step: `agentry serve` in the foreground. With the example config
# (no definitions of the user's own yet) and a store without runs, it starts the demo
# agent's run as soon as the daemon answers, so the dashboard shows a live run at once.
# AGENTRY_DEMO=0 skips that. Ctrl-C stops the daemon as `kill -TERM` would.
#
#   run-daemon.sh <agentry binary> <listen url> <config dir> <example config dir>
set -uo pipefail
bin=$1 listen=$2 config=$3 example=$4

"$bin" serve --listen "$listen" &
daemon=$!
trap 'kill -TERM "$daemon" 2>/dev/null' INT TERM

start_demo() {
  local base=${listen/#ws:/http:}
  base=${base/#wss:/https:}
  base=${base%/}
  local auth=()
  [ -n "${AGENTRY_DAEMON_TOKEN:-}" ] && auth=(-H "Authorization: Bearer ${AGENTRY_DAEMON_TOKEN// /}")
  for _ in $(seq 100); do
    curl -sf "${auth[@]}" "$base/api/daemon" >/dev/null 2>&1 && break
    kill -0 "$daemon" 2>/dev/null || return 0
    sleep 0.1
  done
  # Only on a store without runs: a user's own runs are never joined by a demo.
  curl -sf "${auth[@]}" "$base/api/runs?global=true&limit=1" | grep -q '"runs":\[\]' || return 0
  local body='{"agent":"demo","assignment":"implement-feature","name":"demo: dark mode","callerCwd":"'"$PWD"'","cliVars":{"feature":"dark mode"}}'
  if curl -sf "${auth[@]}" -X POST "$base/api/runs" -H 'Content-Type: application/json' -d "$body" >/dev/null; then
    echo "agentry: started the demo run (AGENTRY_DEMO=0 skips it); watch it at $base/"
  else
    echo "agentry: could not start the demo run; start one from the dashboard at $base/" >&2
  fi
}

if [ "${AGENTRY_DEMO:-1}" != 0 ] && [ "$config" = "$example" ] && command -v curl >/dev/null; then
  start_demo
fi

wait "$daemon"
status=$?
# A trapped Ctrl-C ends the first wait early; the second waits for the daemon's own stop.
if kill -0 "$daemon" 2>/dev/null; then
  wait "$daemon"
  status=$?
fi
exit "$status"
