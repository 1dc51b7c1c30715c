#!/usr/bin/env bash
# Opens attnlab's window in a virtual X display, runs a check of a fixture
# exercise, writes a screenshot and checks it is a real picture (not blank).
# Exit 77 = skipped (no Xvfb), which ctest reports as skipped.
set -euo pipefail
attnlab=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
command -v xvfb-run >/dev/null || { echo "xvfb-run not installed: skipping"; exit 77; }
rm -rf "$out" && mkdir -p "$out"
export ATTNLAB_HOME="$out/home"
png="$out/smoke.png"
xvfb-run -a -s "-screen 0 1280x800x24" \
  "$attnlab" --course "$here/fixtures/course" --exercise fx-split --run --screenshot "$png" --quit-after 3 --size 1280x800 --timing
test -s "$png" || { echo "no screenshot written"; exit 1; }
# A blank window is one colour; a rendered UI has many. A one-colour 1280×800
# PNG is a few KB, a rendered UI far larger; with ImageMagick we also count colours.
size=$(stat -c %s "$png")
echo "screenshot: $png ($size bytes)"
[ "$size" -gt 30000 ] || { echo "screenshot looks blank"; exit 1; }
if command -v identify >/dev/null && identify -version 2>/dev/null | grep -q ImageMagick; then
  colours=$(identify -format %k "$png")
  echo "distinct colours: $colours"
  [ "$colours" -gt 20 ] || { echo "screenshot looks blank"; exit 1; }
fi
# The check ran: the progress file records an attempt at fx-split.
grep -q '"fx-split"' "$ATTNLAB_HOME/progress.json" || { echo "the --run check did not record progress"; exit 1; }
echo "gui smoke: ok"
