#!/usr/bin/env bash
# Installs the pinned real agent CLIs that agentry's end-to-end tests drive:
#   @openai/codex@0.171.0 and @anthropic-ai/claude-code@2.1.332 (the pair the pin names),
#   and beside them, each in its own directory under <dir>/more/, the agents the acp and pi
#   backends drive: @google/gemini-cli, @qwen-code/qwen-code, opencode-ai,
#   @zed-industries/claude-code-acp and @mariozechner/pi-coding-agent (versions below)
# into a cache directory outside the source tree, then writes <dir>/paths.env with the
# paths of their binaries (for codex, claude and opencode the NATIVE ones: a supervisor must
# exec those, not the npm JS wrappers, so that the pid it holds is the agent itself). One
# of the `more` agents that cannot be installed is left out of paths.env, loudly: its
# tests skip, the others run.
#
# Idempotent: an existing install at the pinned versions is reused without touching the
# network. The install happens in a scratch directory that is renamed into place only
# when complete, so an interrupted run never leaves a directory that looks installed.
#
# Usage: scripts/install-agents.sh [--print-dir]
#   Prints the lines of paths.env on stdout (KEY=value, ready to `source`/`eval`).
#   --print-dir prints only the install directory.
# Env:   AGENTRY_AGENTS_DIR   root of the cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/agentry/agents)
#        AGENTRY_SKIP_MORE_AGENTS=1  only the codex/claude pair
# Exit:  0 installed (or already present)
#        2 npm missing or the npm registry unreachable: callers should SKIP e2e tests, loudly
#        3 unsupported machine (not linux x86_64)
#        1 anything else (a real failure)
set -euo pipefail

readonly CODEX_VERSION=0.171.0
readonly CLAUDE_VERSION=2.1.332
readonly PIN="codex-${CODEX_VERSION}_claude-code-${CLAUDE_VERSION}"
# The agents of the acp and pi backends: name|package|version|binary inside its directory.
readonly MORE_AGENTS=(
  "gemini|@google/gemini-cli|0.61.0|node_modules/.bin/gemini"
  "qwen|@qwen-code/qwen-code|0.24.4|node_modules/.bin/qwen"
  "opencode|opencode-ai|1.18.33|node_modules/opencode-linux-x64/bin/opencode"
  "claude-acp|@zed-industries/claude-code-acp|0.16.2|node_modules/.bin/claude-code-acp"
  "pi|@mariozechner/pi-coding-agent|0.73.1|node_modules/.bin/pi"
)
readonly ROOT="${AGENTRY_AGENTS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agentry/agents}"
readonly DIR="$ROOT/$PIN"

# Paths inside node_modules of the per-platform packages that carry the native binaries.
readonly CODEX_REL=node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
readonly CLAUDE_REL=node_modules/@anthropic-ai/claude-code-linux-x64/claude

log() { echo "install-agents: $*" >&2; }

# A skip must never be silent: a CI log that only says "0 tests" hides a broken setup.
skip_loudly() {
  {
    echo "################################################################################"
    echo "# install-agents: CANNOT INSTALL THE REAL AGENT CLIs"
    echo "#   reason: $1"
    echo "#   needed: @openai/codex@${CODEX_VERSION} and @anthropic-ai/claude-code@${CLAUDE_VERSION}"
    echo "#   The end-to-end tests that drive real Codex/Claude Code will be SKIPPED."
    echo "#   Fix: install node+npm (scripts/install-deps.sh) and make the npm registry"
    echo "#   ($(npm config get registry 2>/dev/null || echo 'npm registry')) reachable, then rerun."
    echo "################################################################################"
  } >&2
  exit 2
}

if [ "$(uname -s)" != Linux ] || [ "$(uname -m)" != x86_64 ]; then
  log "unsupported machine $(uname -s) $(uname -m): the pinned native binaries used here are linux x86_64 only"
  log "(add the matching platform package paths to this script to support another arch)"
  exit 3
fi

# Reports whether $1 holds both pinned packages with their native binaries.
installed_at_pin() {
  local d=$1
  [ -x "$d/$CODEX_REL" ] && [ -x "$d/$CLAUDE_REL" ] || return 1
  grep -q "\"version\": *\"${CODEX_VERSION}\"" "$d/node_modules/@openai/codex/package.json" 2>/dev/null || return 1
  grep -q "\"version\": *\"${CLAUDE_VERSION}\"" "$d/node_modules/@anthropic-ai/claude-code/package.json" 2>/dev/null || return 1
}

write_paths_env() {
  cat >"$DIR/paths.env.tmp" <<EOF
AGENTRY_AGENTS_PIN_DIR=$DIR
AGENTRY_CODEX_BIN=$DIR/$CODEX_REL
AGENTRY_CLAUDE_BIN=$DIR/$CLAUDE_REL
AGENTRY_CODEX_SCHEMA_DIR=$DIR/codex-schema
AGENTRY_CODEX_VERSION=$CODEX_VERSION
AGENTRY_CLAUDE_VERSION=$CLAUDE_VERSION
EOF
  local entry name pkg version rel
  for entry in "${MORE_AGENTS[@]}"; do
    IFS='|' read -r name pkg version rel <<<"$entry"
    if more_installed "$name" "$pkg" "$version" "$rel"; then
      echo "$(more_key "$name")=$(more_dir "$name" "$version")/$rel" >>"$DIR/paths.env.tmp"
    fi
  done
  mv "$DIR/paths.env.tmp" "$DIR/paths.env"
}

# AGENTRY_GEMINI_BIN for gemini, AGENTRY_CLAUDE_ACP_BIN for claude-acp, ...
more_key() { local name=${1//-/_}; echo "AGENTRY_${name^^}_BIN"; }

more_dir() { echo "$DIR/more/$1-$2"; }

# Reports whether the `more` agent $1 is installed at its pinned version.
more_installed() {
  local d; d=$(more_dir "$1" "$3")
  [ -x "$d/$4" ] && grep -q "\"version\": *\"$3\"" "$d/node_modules/$2/package.json" 2>/dev/null
}

# Installs the `more` agents that are missing, in parallel, each through a scratch directory
# renamed into place when complete. A failure is reported and leaves that agent out.
install_more() {
  local entry name pkg version rel pids=() names=()
  mkdir -p "$DIR/more"
  for entry in "${MORE_AGENTS[@]}"; do
    IFS='|' read -r name pkg version rel <<<"$entry"
    more_installed "$name" "$pkg" "$version" "$rel" && continue
    (
      target=$(more_dir "$name" "$version")
      scratch_more="$DIR/more/.tmp-$name-$$"
      rm -rf "$scratch_more" && mkdir -p "$scratch_more"
      printf '{ "name": "agentry-e2e-%s", "private": true, "dependencies": { "%s": "%s" } }\n' \
        "$name" "$pkg" "$version" >"$scratch_more/package.json"
      if (cd "$scratch_more" && npm install --no-audit --no-fund --loglevel=error >&2) && [ -x "$scratch_more/$rel" ]; then
        rm -rf "$target" && mv "$scratch_more" "$target"
      else
        rm -rf "$scratch_more"
        exit 1
      fi
    ) &
    pids+=($!)
    names+=("$pkg@$version")
  done
  local i
  for i in "${!pids[@]}"; do
    if wait "${pids[$i]}"; then log "installed ${names[$i]}"
    else log "WARNING: could not install ${names[$i]}; its end-to-end tests will be SKIPPED"
    fi
  done
}

# The protocol is versioned with the binary, so the schema comes from the installed binary.
generate_codex_schema() {
  [ -f "$DIR/codex-schema/.complete" ] && return 0
  log "generating the codex app-server JSON schema into $DIR/codex-schema"
  rm -rf "$DIR/codex-schema.tmp"
  # CODEX_HOME points at a throwaway dir so generation never reads or writes ~/.codex; it
  # sits outside /tmp because codex warns about helper aliases under a temporary dir.
  local home="$DIR/.codex-home-schema"
  rm -rf "$home"; mkdir -p "$home"
  CODEX_HOME="$home" "$DIR/$CODEX_REL" app-server generate-json-schema --out "$DIR/codex-schema.tmp" >/dev/null
  rm -rf "$home"
  touch "$DIR/codex-schema.tmp/.complete"
  rm -rf "$DIR/codex-schema"
  mv "$DIR/codex-schema.tmp" "$DIR/codex-schema"
}

finish() {
  generate_codex_schema
  if [ "${AGENTRY_SKIP_MORE_AGENTS:-0}" != 1 ]; then
    if command -v npm >/dev/null 2>&1; then install_more
    else log "npm is missing: the acp and pi agents are not installed"
    fi
  fi
  write_paths_env
  if [ "${1:-}" = --print-dir ]; then echo "$DIR"; else cat "$DIR/paths.env"; fi
  exit 0
}

mkdir -p "$ROOT"
# Serialise concurrent callers (parallel test jobs) on one lock per cache root.
exec 9>"$ROOT/.install.lock"
flock 9

if installed_at_pin "$DIR"; then
  log "already installed in $DIR"
  finish "$@"
fi

command -v npm >/dev/null 2>&1 || skip_loudly "npm is not installed (command -v npm failed)"

# One cheap metadata request tells "registry unreachable" (skip) apart from a failed install (error).
if ! timeout 60 npm view "@openai/codex@${CODEX_VERSION}" version >/dev/null 2>&1; then
  skip_loudly "the npm registry did not answer 'npm view @openai/codex@${CODEX_VERSION}' within 60 s"
fi

scratch="$ROOT/.tmp-$PIN-$$"
rm -rf "$scratch"
mkdir -p "$scratch"
trap 'rm -rf "$scratch"' EXIT
# A private package.json keeps npm from walking up into some unrelated project.
# Explicit versions matter: an unpinned claude-code resolves to an old release on Node < 22
# because npm silently falls back to the newest version whose `engines` matches.
cat >"$scratch/package.json" <<EOF
{ "name": "agentry-e2e-agents", "private": true,
  "dependencies": { "@openai/codex": "${CODEX_VERSION}", "@anthropic-ai/claude-code": "${CLAUDE_VERSION}" } }
EOF
log "installing @openai/codex@${CODEX_VERSION} @anthropic-ai/claude-code@${CLAUDE_VERSION} (about 800 MB) into $DIR"
start=$(date +%s)
if ! (cd "$scratch" && npm install --no-audit --no-fund --loglevel=error >&2); then
  log "npm install failed; see the npm output above"
  exit 1
fi
installed_at_pin "$scratch" || {
  log "npm finished but the native binaries are missing:"
  log "  $scratch/$CODEX_REL"
  log "  $scratch/$CLAUDE_REL"
  exit 1
}
rm -rf "$DIR"
mv "$scratch" "$DIR"
trap - EXIT
log "installed in $(( $(date +%s) - start )) s"
finish "$@"
