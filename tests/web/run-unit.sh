#!/usr/bin/env bash
# Runs the dashboard's Vitest suite once; exit 77 (skip) when it cannot run here.
set -euo pipefail
web=$1
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP web.unit: node is not installed (apt-get install npm)" >&2
  exit 77
fi
if [ ! -x "$web/node_modules/.bin/vitest" ]; then
  echo "SKIP web.unit: $web/node_modules is missing; run scripts/build-web.sh (make test does)" >&2
  exit 77
fi
cd "$web"
exec ./node_modules/.bin/vitest run
