#!/usr/bin/env bash
# Installs agentry's build and test dependencies from Debian 12 (bookworm) packages.
# Idempotent: when every package is already installed it only checks and returns.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config ccache git
  # lld links the debug binaries several times faster than ld (cmake/linker.cmake).
  lld
  libboost1.81-dev libboost-json1.81-dev libboost-filesystem1.81-dev
  libsqlite3-dev libyaml-cpp-dev libgit2-dev libcli11-dev libssl-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  # Time zones for schedules (date/tz.h, libdate-tz) and the tz database it reads.
  libhowardhinnant-date-dev tzdata
  # The shared store (host/src/pg_store): libpq to build, and PostgreSQL 15's server, whose
  # initdb/pg_ctl the tests use to start a private cluster (tests/support/postgres_cluster).
  postgresql libpq-dev
  curl
  # End-to-end tests: the mock model server, and `ip` to bring up lo in tests/e2e/offline.sh.
  python3 iproute2
  # The dashboard's browser tests and the browser runner drive Debian's headless Chromium.
  chromium fonts-dejavu-core
  # The browser backend's https test makes its own certificate with the openssl command.
  openssl
  # Many desktops have bubblewrap (Flatpak needs it) and the real Codex uses it for its
  # sandbox when present: the tests run with it so they hold where users are.
  bubblewrap
  # Container environments: the tests run real Podman containers (runc: crun refuses some
  # kernels' cgroup layouts; docs/environments.md).
  podman runc
  # `make package` and its test: CPack's DEB generator computes Depends with dpkg-shlibdeps
  # (dpkg-dev) and needs `file`; systemd-analyze verifies the units (installing systemd in a
  # container starts nothing).
  dpkg-dev file systemd
)
# npm installs the pinned agent CLIs (scripts/install-agents.sh). Only when none is on PATH:
# Debian's npm would drag in its own older nodejs over a newer node installed some other way.
if ! command -v npm >/dev/null 2>&1; then
  packages+=(npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
