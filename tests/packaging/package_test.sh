#!/usr/bin/env bash
# Packaging.DebInstallsAndServes: cpack makes the .deb from the build directory $1
# (its agentry and plugins must be built: the package target's contents), dpkg -i
# installs it into a scratch root, and the installed /usr/bin/agentry serves on an
# ephemeral port with a scratch home and no AGENTRY_* variable: /api/daemon answers,
# /api/backends lists the bundled backends, / serves the dashboard (or, for a package
# built without web/dist, the page saying so). The unit is checked with
# systemd-analyze verify where it exists. Exit 77 (skipped) without dpkg-deb or cpack.
set -euo pipefail
build=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)

for tool in cpack dpkg-deb curl; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (apt-get install dpkg-dev cmake curl)"; exit 77; }
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/agentry-package-test.XXXXXX")
daemon_pid=
cleanup() {
  if [ -n "$daemon_pid" ]; then kill "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$scratch/serve.err" ] && sed 's/^/  serve: /' "$scratch/serve.err" >&2; exit 1; }

# 1. The package, from this build's CPack configuration.
started=$(date +%s)
(cd "$build" && cpack --config CPackConfig.cmake -B "$scratch/out" >"$scratch/cpack.log" 2>&1) ||
  { cat "$scratch/cpack.log" >&2; fail "cpack failed"; }
deb=$(ls "$scratch"/out/agentry_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { cat "$scratch/cpack.log" >&2; fail "cpack made no agentry_*.deb"; }
echo "built $(basename "$deb") in $(( $(date +%s) - started )) s"

# 2. Its control data: the version of the project, Depends from dpkg-shlibdeps.
version=$(sed -n 's/^project(agentry VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version is $(dpkg-deb -f "$deb" Version), not $version"
depends=$(dpkg-deb -f "$deb" Depends)
case "$depends" in *libc6*) ;; *) fail "Depends does not name libc6 (shlibdeps): '$depends'";; esac
case "$depends" in *libgit2*) ;; *) fail "Depends does not name libgit2: '$depends'";; esac
echo "Depends: $depends"
# libpq is opened only for a PostgreSQL store, so it is recommended, not depended on.
case "$(dpkg-deb -f "$deb" Recommends)" in *libpq5*) ;; *) fail "Recommends does not name libpq5";; esac

# 3. dpkg -i into a scratch root (its own empty dpkg database, so the libraries Depends
#    names are the host's, unknown there: --force-depends), and the files where the
#    binary looks for them.
root="$scratch/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-script-chrootless -i "$deb" >"$scratch/dpkg.log" 2>&1 ||
  { cat "$scratch/dpkg.log" >&2; fail "dpkg -i into the scratch root failed"; }
dpkg --root="$root" -s agentry | grep -q '^Status: install ok installed' || fail "dpkg does not say agentry is installed"
for f in usr/bin/agentry usr/bin/agent-runner usr/share/agentry/hook-host.mjs usr/lib/systemd/user/agentry.service \
         usr/share/agentry/config/agents/demo/agent.md; do
  [ -e "$root/$f" ] || fail "the package has no $f"
done
plugins=$(ls "$root"/usr/lib/agentry/plugins/*.so | wc -l)
[ "$plugins" -ge 8 ] || fail "the package has $plugins plugins in usr/lib/agentry/plugins, expected 8"

# 4. The unit, where systemd-analyze can judge it (ExecStart pointed at the extracted binary).
if command -v systemd-analyze >/dev/null; then
  sed "s|^ExecStart=/usr/bin/agentry|ExecStart=$root/usr/bin/agentry|" "$root/usr/lib/systemd/user/agentry.service" \
    >"$scratch/agentry.service"
  systemd-analyze --user verify "$scratch/agentry.service" >"$scratch/verify.log" 2>&1 ||
    systemd-analyze verify "$scratch/agentry.service" >"$scratch/verify.log" 2>&1 ||
    { cat "$scratch/verify.log" >&2; fail "systemd-analyze verify rejects the packaged unit"; }
  ! grep -E "Unknown|Failed" "$scratch/verify.log" || fail "systemd-analyze verify complains about the packaged unit"
  echo "systemd-analyze verify: ok"
else
  echo "note: systemd-analyze is not installed; the packaged unit is not verified"
fi

# 5. The installed binary serves, with nothing but a home: no AGENTRY_* variable.
mkdir -p "$scratch/home"
env -i HOME="$scratch/home" PATH=/usr/bin:/bin "$root/usr/bin/agentry" serve --listen ws://127.0.0.1:0/ --socket none \
  >"$scratch/serve.out" 2>"$scratch/serve.err" &
daemon_pid=$!
port=
for _ in $(seq 1 200); do
  port=$(sed -n 's|^http api on http://127.0.0.1:\([0-9]*\)/api/$|\1|p' "$scratch/serve.out")
  [ -n "$port" ] && break
  kill -0 "$daemon_pid" 2>/dev/null || fail "the installed agentry exited before serving"
  sleep 0.1
done
[ -n "$port" ] || fail "the installed agentry did not announce its port within 20 s"
base="http://127.0.0.1:$port"
curl -fsS "$base/api/daemon" | grep -q '"version":"'"$version"'"' || fail "/api/daemon does not say version $version"
backends=$(curl -fsS "$base/api/backends")
for id in codex claude subprocess browser mock acp cursor pi; do
  echo "$backends" | grep -q '"id":"'"$id"'"' || fail "/api/backends does not list $id: $backends"
done
echo "$backends" | grep -q '"path":"'"$root/usr/lib/agentry/plugins/" || fail "the plugins were not loaded from the scratch root: $backends"
page=$(curl -fsS "$base/")
if [ -f "$root/usr/share/agentry/web/index.html" ]; then
  [ "$page" = "$(cat "$root/usr/share/agentry/web/index.html")" ] || fail "/ is not the packaged dashboard's index.html"
  echo "dashboard: served from usr/share/agentry/web"
else
  echo "$page" | grep -q "dashboard has not been built" || fail "/ serves neither the dashboard nor the not-built page"
  echo "note: this package was built without web/dist; / serves the page saying so"
fi
kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=

# 6. dpkg -r takes every file away again.
dpkg --root="$root" --force-depends -r agentry >"$scratch/dpkg-r.log" 2>&1 ||
  { cat "$scratch/dpkg-r.log" >&2; fail "dpkg -r failed"; }
left=$(if [ -d "$root/usr" ]; then find "$root/usr" -type f -o -type l; fi)
[ -z "$left" ] || fail "dpkg -r left files behind: $left"
echo "ok: the installed package serves on $base with $plugins plugins, and dpkg -r removes it"
