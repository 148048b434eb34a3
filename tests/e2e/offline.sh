#!/usr/bin/env bash
# Runs a command with no network but loopback, so an agent under test cannot reach anything
# outside this machine even if it tries (telemetry, updates, a mis-set base URL).
#
#   tests/e2e/offline.sh <cmd> [args...]
#
# The command gets a fresh network namespace (unshare -n) where only `lo` exists, brought up.
# Start the mock model server INSIDE the wrapped command: 127.0.0.1 outside the namespace is
# a different interface and cannot be reached from inside.
#
# When namespaces are not permitted, the command runs directly after a loud notice, unless
# AGENTRY_OFFLINE_STRICT=1 (then exit 4). AGENTRY_OFFLINE=0 skips the namespace on purpose.
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 <cmd> [args...]" >&2
  exit 64
fi

# Already inside a namespace made by this script (nested use): nothing more to do.
if [ "${AGENTRY_OFFLINE_ACTIVE:-}" = 1 ] || [ "${AGENTRY_OFFLINE:-1}" = 0 ]; then
  exec "$@"
fi

# Brings lo up inside the new namespace: with iproute2 if present, else with a stdlib ioctl.
# shellcheck disable=SC2016  # the inner script is expanded by the inner shell
inner='
if command -v ip >/dev/null 2>&1; then ip link set lo up
else python3 -c "
import fcntl, socket, struct
s = socket.socket(); req = struct.pack(\"16sH14x\", b\"lo\", 0x1 | 0x8)  # IFF_UP|IFF_LOOPBACK
fcntl.ioctl(s, 0x8914, req)  # SIOCSIFFLAGS
"
fi || { echo "offline.sh: could not bring up lo in the new namespace" >&2; exit 4; }
exec "$@"'

# Root can unshare directly; an unprivileged user may still map itself to root in a user namespace.
for flags in "-n" "--map-root-user -n"; do
  # shellcheck disable=SC2086  # $flags is a word list on purpose
  if unshare $flags true 2>/dev/null; then
    export AGENTRY_OFFLINE_ACTIVE=1
    # shellcheck disable=SC2086
    exec unshare $flags -- bash -c "$inner" offline "$@"
  fi
done

if [ "${AGENTRY_OFFLINE_STRICT:-0}" = 1 ]; then
  echo "offline.sh: cannot create a network namespace (unshare -n refused) and AGENTRY_OFFLINE_STRICT=1" >&2
  exit 4
fi
{
  echo "offline.sh: NOTICE: cannot create a network namespace here (unshare -n refused);"
  echo "offline.sh: NOTICE: running WITHOUT the loopback-only guarantee: $*"
} >&2
exec "$@"
