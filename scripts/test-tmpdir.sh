#!/bin/sh
# Prints the directory the tests make their scratch files in (TMPDIR for ctest).
#
# The tests create and delete hundreds of thousands of files: daemon homes, SQLite
# stores, git repositories, a PostgreSQL database per test. On ext4 every new inode then
# scans the recently deleted ones (ext4_create -> recently_deleted), which was most of the
# CPU of the PostgreSQL store tests and a third of the rest's system time. A tmpfs has no
# such cost, and nothing the tests check depends on the disk: they kill processes, never
# the machine, so what a commit wrote is in the kernel either way.
#
# An explicit TMPDIR wins. Otherwise /dev/shm when it is a tmpfs with room to spare
# (containers often give it 64 MB), else /tmp.
set -eu
if [ -n "${TMPDIR:-}" ]; then
  echo "$TMPDIR"
  exit 0
fi
need_kib=$((4 * 1024 * 1024))
if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
  free_kib=$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')
  if [ "${free_kib:-0}" -ge "$need_kib" ]; then
    echo /dev/shm
    exit 0
  fi
fi
echo /tmp
