#!/bin/sh
# Builds the local image container tests and benchmarks run (there is no registry on
# these machines): sh, the programs their agents use, and every library the given
# agentry binary links (so the agentry a managed container gets mounted at
# /usr/local/bin runs inside), imported with `podman import`. The tag is a hash of those
# files' paths and sizes, so it is built once per machine and again only when one changes.
# Prints the tag. Usage: make_container_image.sh AGENTRY_BINARY [PODMAN_OPTION...]
set -eu
agentry=$1
shift
programs="sh sleep cat ls echo touch kill id env mkdir rm true false hostname pwd sed grep printf test"

files=$(
  for p in $programs; do
    path=$(command -v "$p" 2>/dev/null) || continue
    case $path in /*) ;; *) continue ;; esac  # a shell builtin
    echo "$path"
    ldd "$path" 2>/dev/null | grep -o '/[^ ]*' || true
  done
  ldd "$agentry" | grep -o '/[^ ]*'
)
files=$(echo "$files" | sort -u)
hash=$(for f in $files; do echo "$f:$(stat -L -c %s "$f")"; done | sha256sum | cut -c1-16)
tag=localhost/agentry-test:$hash

if ! podman "$@" image exists "$tag"; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  root=$work/rootfs
  mkdir -p "$root/bin" "$root/usr/local/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/etc" \
    "$root/run" "$root/root"
  for f in $files; do
    mkdir -p "$root$(dirname "$f")"
    cp -L "$f" "$root$f"
  done
  # Debian's merged /usr: what `command -v` found under /usr/bin is /bin/... too.
  for p in $programs; do
    [ -e "$root/bin/$p" ] || [ ! -e "$root/usr/bin/$p" ] || ln -s "/usr/bin/$p" "$root/bin/$p"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
  echo 'root:x:0:' >"$root/etc/group"
  tar -C "$root" -cf "$work/rootfs.tar" .
  podman "$@" import --quiet "$work/rootfs.tar" "$tag" >/dev/null
fi
echo "$tag"
