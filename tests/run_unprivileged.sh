#!/bin/sh
# Runs a test program as an ordinary, unprivileged user, for suites that must
# hold for ordinary users too (the sandbox then works through user
# namespaces). Run as root by ctest.
#
# The user: `attnlab-test` when it exists; in CI (ATTNLAB_REQUIRE_ISOLATION=1)
# it is created when absent (a system user without a login shell), so the
# escape suite always runs as an ordinary user there; elsewhere `nobody`.
# Exit code 77 (skipped) when that is not possible here, with the reason; in
# CI such a skip is a failure (exit 1), never a silent pass.
#   tests/run_unprivileged.sh PROGRAM [ARGS...]
set -u
skip() {
  echo "skipped: $1" >&2
  if [ "${ATTNLAB_REQUIRE_ISOLATION:-}" = 1 ]; then
    echo "ATTNLAB_REQUIRE_ISOLATION=1: the escape suite must also run as an ordinary user here" >&2
    exit 1
  fi
  exit 77
}
if [ "$(id -u)" != 0 ]; then
  echo "skipped: already unprivileged (uid $(id -u)); the plain test entry covers this user" >&2
  exit 77
fi
command -v setpriv >/dev/null 2>&1 || skip "setpriv (util-linux) is not installed"
user=attnlab-test
if ! id "$user" >/dev/null 2>&1; then
  if [ "${ATTNLAB_REQUIRE_ISOLATION:-}" = 1 ] && command -v useradd >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$user" 2>/dev/null || true
  fi
  id "$user" >/dev/null 2>&1 || user=nobody
fi
uid=$(id -u "$user")
gid=$(id -g "$user")
if ! setpriv --reuid="$uid" --regid="$gid" --clear-groups test -x "$1"; then
  skip "$user cannot run $1 (a parent folder is private); build outside a private home to run this"
fi
# A home and a temporary folder of the user's own, as an ordinary user has.
home=$(mktemp -d /tmp/attnlab-unprivileged-XXXXXX) || exit 1
chown "$uid:$gid" "$home"
trap 'rm -rf "$home"' EXIT
echo "running as $user (uid $uid)" >&2
HOME="$home" TMPDIR=/tmp setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all "$@"
