#!/usr/bin/env bash
# An installed attnlab works on its own, from wherever its prefix is moved.
#   install_test.sh CMAKE BUILD_DIR SOURCE_DIR
# Installs BUILD_DIR with `cmake --install` into a temporary prefix, moves the
# prefix elsewhere, then from there (another working directory, a fresh
# ATTNLAB_HOME, a PATH without the build) runs `attnlab list`, shows where the
# course, the learner runtime and the sandbox come from (`attnlab solution`,
# `attnlab doctor`) and passes one check; then every exercise's own solution
# passes through the moved prefix and through the Debian package's files, as
# root and as an ordinary user. Where the kernel allows an
# unprivileged mount namespace, the check runs again with the source and build
# trees hidden under empty folders, which proves the prefix needs neither.
# Nothing is copied from the build tree by hand; the temporary folder goes away.
set -euo pipefail
cmake=$1
build_dir=$(cd "$2" && pwd -P)
source_dir=$(cd "$3" && pwd -P)

work=$(mktemp -d "${TMPDIR:-/tmp}/attnlab-install-test.XXXXXX")
work=$(cd "$work" && pwd -P)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "install_test: FAIL: $*" >&2
  exit 1
}
# Runs the installed attnlab, through RUNNER... when given, from $work with
# nothing from the caller's environment but a fresh ATTNLAB_HOME; output goes
# to $work/out. Fails the test unless attnlab exits 0.
run_attnlab() {  # run_attnlab HOME [RUNNER... --attnlab] ARGS...
  local home=$1 runner=()
  shift
  if [[ " $* " == *" --attnlab "* ]]; then
    while [ "$1" != "--attnlab" ]; do runner+=("$1"); shift; done
    shift
  fi
  local rc=0
  (cd "$work" && env -i HOME="$work/home" PATH=/usr/bin:/bin LANG=C.UTF-8 ATTNLAB_HOME="$home" ATTNLAB_LANG=en \
      ${ATTNLAB_ALLOW_WEAK_SANDBOX:+ATTNLAB_ALLOW_WEAK_SANDBOX=$ATTNLAB_ALLOW_WEAK_SANDBOX} \
    "${runner[@]}" "$prefix/bin/attnlab" "$@") >"$work/out" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || { cat "$work/out" >&2; fail "attnlab $* exited $rc"; }
}
expect_output() {  # expect_output TEXT WHAT
  grep -qF -- "$1" "$work/out" || { cat "$work/out" >&2; fail "$2: no \"$1\" in the output above"; }
}

# 1. Install, then move the prefix: nothing may point into the old place.
"$cmake" --install "$build_dir" --prefix "$work/staged" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "cmake --install failed"; }
mv "$work/staged" "$work/moved"
prefix=$work/moved
for f in bin/attnlab libexec/attnlab/attnlab-sandbox lib/attnlab/libattnlab_learner.a \
         lib/attnlab/include/attnlab/tensor.hpp lib/attnlab/include/attnlab/entry.hpp \
         share/attnlab/exercises/manifest.json share/attnlab/exercises/split-heads/solution.cpp \
         share/applications/attnlab.desktop share/icons/hicolor/scalable/apps/attnlab.svg \
         share/icons/hicolor/48x48/apps/attnlab.png share/icons/hicolor/128x128/apps/attnlab.png \
         share/icons/hicolor/256x256/apps/attnlab.png share/man/man1/attnlab.1; do
  [ -s "$prefix/$f" ] || fail "the install lacks $f"
done
for f in bin/attnlab libexec/attnlab/attnlab-sandbox; do
  [ -x "$prefix/$f" ] || fail "$f is not executable"
done
echo "install_test: installed and moved to $prefix"

# 2. The course is the moved prefix's, not the source tree's.
run_attnlab "$work/home1" list
expect_output "split-heads" "attnlab list"
run_attnlab "$work/home1" solution split-heads --force
expect_output "// $prefix/share/attnlab/exercises/split-heads/solution.cpp" "the course's location"
echo "install_test: attnlab list and the course come from the moved prefix"
# So do the learner runtime and the sandbox, as attnlab doctor reports them.
run_attnlab "$work/home1" doctor --json
expect_output "\"library\": \"$prefix/lib/attnlab/libattnlab_learner.a\"" "attnlab doctor's learner runtime"
expect_output "\"include\": \"$prefix/lib/attnlab/include\"" "attnlab doctor's learner headers"
expect_output "\"path\": \"$prefix/libexec/attnlab/attnlab-sandbox\"" "attnlab doctor's sandbox"
echo "install_test: attnlab doctor finds the learner runtime and the sandbox in the moved prefix"

# The man page covers every command and option the CLI's help names.
man_page=$prefix/share/man/man1/attnlab.1
run_attnlab "$work/home1" --help
commands=$(sed -n '/^commands:/,/^$/p' "$work/out" | awk 'NR > 1 && NF { print $1 }' | sort -u)
[ -n "$commands" ] || { cat "$work/out" >&2; fail "no commands found in attnlab --help"; }
options=$(grep -oE -- '--[a-z][a-z-]*' "$work/out" || true)
for command in $commands; do
  grep -qE "^\.(B|BI|BR) \"?$command( |\"|$)" "$man_page" || fail "attnlab.1 does not describe the command $command"
  run_attnlab "$work/home1" help "$command"
  options+=$'\n'$(grep -oE -- '--[a-z][a-z-]*' "$work/out" || true)
done
for option in $(echo "$options" | sort -u); do
  grep -qF -- "${option//-/\\-}" "$man_page" || fail "attnlab.1 does not describe the option $option"
done
echo "install_test: the man page describes every command and option of attnlab --help (${commands//$'\n'/, })"

# 3. One passing check, compiled afresh (a new ATTNLAB_HOME has an empty cache).
solution=$prefix/share/attnlab/exercises/split-heads/solution.cpp
check_passes() {  # check_passes HOME [RUNNER... --attnlab]
  run_attnlab "$@" check split-heads "$solution" --json
  expect_output '"verdict": "pass"' "attnlab check"
  expect_output '"compile_cached": false' "attnlab check (a fresh home compiles)"
}
check_passes "$work/home2"
echo "install_test: attnlab check split-heads passes from the moved prefix"

# 3b. Every exercise of the course, C++ and CUDA, passes with its own solution
# through an installed copy: as root (or whoever runs this) and as an ordinary
# user, from the moved prefix and from the Debian package's files.
ordinary_user() {  # the user run_unprivileged.sh uses; "" when none can be used
  [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 || return 0
  if id attnlab-test >/dev/null 2>&1; then echo attnlab-test; else echo nobody; fi
}
check_every_exercise() {  # check_every_exercise PREFIX LABEL [USER]
  local at=$1 label=$2 user=${3:-} home runner=() count=0
  home=$(mktemp -d "$work/home-XXXXXX")
  if [ -n "$user" ]; then
    chown "$(id -u "$user"):$(id -g "$user")" "$home"
    runner=(setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --clear-groups)
  fi
  for dir in "$at"/share/attnlab/exercises/*/; do
    local id solution rc=0
    id=$(basename "$dir")
    [ -f "$dir/exercise.json" ] || continue
    solution=""
    for candidate in "$dir"solution.cpp "$dir"solution.cu; do
      [ -f "$candidate" ] && { solution=$candidate; break; }
    done
    [ -n "$solution" ] || fail "$label: $id has no solution file"
    (cd "$work" && env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 ATTNLAB_HOME="$home" ATTNLAB_LANG=en ATTNLAB_NO_GPU=1 \
       "${runner[@]}" "$at/bin/attnlab" check "$id" "$solution" --json) >"$work/out" 2>&1 || rc=$?
    grep -qF '"verdict": "pass"' "$work/out" || { cat "$work/out" >&2; fail "$label: $id's own solution does not pass (exit $rc)"; }
    count=$((count + 1))
  done
  [ "$count" -ge 2 ] || fail "$label: only $count exercises found under $at/share/attnlab/exercises"
  echo "install_test: $label: all $count exercises pass with their solutions${user:+ (as $user)}"
}
chmod 755 "$work"
check_every_exercise "$prefix" "moved prefix"
user=$(ordinary_user)
if [ -n "$user" ]; then
  check_every_exercise "$prefix" "moved prefix" "$user"
else
  echo "install_test: not root (or no setpriv): the ordinary-user runs are this user's own"
fi
# The Debian package holds the same install: its files, unpacked, must do the same.
if command -v cpack >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1; then
  cpack_bin=$(dirname "$cmake")/cpack
  [ -x "$cpack_bin" ] || cpack_bin=cpack
  (cd "$build_dir" && "$cpack_bin" -G DEB -B "$work/deb") >"$work/cpack.log" 2>&1 || { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
  deb=$(ls "$work"/deb/attnlab_*.deb | head -n 1)
  [ -n "$deb" ] || fail "cpack made no .deb"
  dpkg-deb -x "$deb" "$work/debroot" || fail "dpkg-deb -x $deb failed"
  chmod -R go+rX "$work/debroot"
  check_every_exercise "$work/debroot/usr" "the .deb ($(basename "$deb"))"
  [ -z "$user" ] || check_every_exercise "$work/debroot/usr" "the .deb ($(basename "$deb"))" "$user"
else
  echo "install_test: cpack or dpkg-deb missing: the .deb run is skipped"
fi

# 4. The same with the source and build trees hidden (private mount namespace).
case "$prefix/" in
  "$source_dir"/* | "$build_dir"/*) echo "install_test: the temporary folder is inside the source or build tree: hidden-tree run skipped"; exit 0 ;;
esac
mkdir "$work/probe"
if ! unshare --user --map-root-user --mount mount -t tmpfs -o size=1m attnlab-probe "$work/probe" 2>/dev/null; then
  echo "install_test: no unprivileged mount namespace here: hidden-tree run skipped"
  exit 0
fi
cat >"$work/hide.sh" <<'EOF'
#!/bin/sh
# hide.sh DIR... -- COMMAND...: COMMAND with each DIR covered by an empty tmpfs.
while [ "$1" != "--" ]; do mount -t tmpfs -o size=1m attnlab-hidden "$1" || exit 97; shift; done
shift
exec "$@"
EOF
chmod +x "$work/hide.sh"
# The build folder first: it may lie inside the source tree. Inside this
# user namespace the sandbox cannot build its own private root (a nested
# namespace may not mount /proc), and attnlab fails closed: this run is about
# the hidden trees, so it takes the explicit two-part opt-in.
mkdir -p "$work/home3/config"
printf '{"allow_weak_sandbox": true}\n' >"$work/home3/config/settings.json"
ATTNLAB_ALLOW_WEAK_SANDBOX=1 check_passes "$work/home3" unshare --user --map-root-user --mount "$work/hide.sh" "$build_dir" "$source_dir" -- --attnlab
echo "install_test: attnlab check passes with $source_dir and $build_dir hidden"
