#!/bin/sh
# Runs a test program as the unprivileged user `nobody`, for suites that must
# hold for ordinary users too (the sandbox then works through user
# namespaces). Run as root by ctest; exit code 77 (skipped) when that is not
# possible here, with the reason.
#   tests/run_unprivileged.sh PROGRAM [ARGS...]
set -u
if [ "$(id -u)" != 0 ]; then
  echo "skipped: already unprivileged (uid $(id -u)); the plain test entry covers this user" >&2
  exit 77
fi
if ! command -v setpriv >/dev/null 2>&1; then
  echo "skipped: setpriv (util-linux) is not installed" >&2
  exit 77
fi
if ! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$1"; then
  echo "skipped: nobody cannot run $1 (a parent folder is private); build outside a private home to run this" >&2
  exit 77
fi
# A home and a temporary folder of nobody's own, as an ordinary user has.
home=$(mktemp -d /tmp/attnlab-nobody-XXXXXX) || exit 1
chown nobody:nogroup "$home"
trap 'rm -rf "$home"' EXIT
HOME="$home" TMPDIR=/tmp setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$@"
