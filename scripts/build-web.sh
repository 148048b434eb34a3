#!/usr/bin/env bash
# Builds the web dashboard (web/ -> web/dist) and, with --tests, installs the browser
# tests' packages (tests/browser). Called by `make run` and `make test`.
#
# npm ci runs only when a package-lock.json changed since the last install (a stamp in
# node_modules), so a rebuild costs only Vite's few seconds.
# Without node/npm, or when the npm registry cannot be reached for a first install, it
# says so loudly and exits 0: the daemon still builds and serves a page that says how
# to build the dashboard, and the browser tests skip, each saying why.
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
[ "${1:-}" = "--tests" ] && with_tests=1

log() { echo "build-web: $*" >&2; }
banner() {
  echo "################################################################################" >&2
  echo "# build-web: $1" >&2
  echo "#   the daemon still builds and runs; its page says how to build the dashboard" >&2
  echo "################################################################################" >&2
}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  banner "node/npm not found: the dashboard is not built (apt-get install npm)"
  exit 0
fi

# npm ci in $1 unless its node_modules was installed from this very package-lock.json.
install_packages() {
  local dir=$1 stamp="$1/node_modules/.agentry-lock.sha256" want
  [ -f "$dir/package-lock.json" ] || { log "$dir has no package-lock.json"; return 1; }
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  log "npm ci in $dir"
  if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error); then
    return 1
  fi
  echo "$want" >"$stamp"
}

if ! install_packages web; then
  banner "npm ci in web/ failed (is the npm registry reachable?): the dashboard is not built"
  exit 0
fi
log "vite build -> web/dist"
(cd web && npm run --silent build)

if [ "$with_tests" = 1 ] && ! install_packages tests/browser; then
  banner "npm ci in tests/browser failed: the browser tests will skip"
fi
exit 0
