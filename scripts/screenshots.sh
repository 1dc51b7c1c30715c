#!/usr/bin/env bash
# Scripted screenshots of the GUI in both languages, with a passing and a
# failing check, the hints and solution tabs, the settings and help overlays.
#   scripts/screenshots.sh [OUT_DIR]     (default: build/screenshots)
# Needs a built attnlab and xvfb-run. Uses a throw-away ATTNLAB_HOME.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
attnlab=${ATTNLAB_BIN:-$root/build/app/cli/attnlab}
out=${1:-$root/build/screenshots}
mkdir -p "$out"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
export ATTNLAB_HOME=$home
mkdir -p "$home/workspace"

shot() {  # name lang exercise source-file extra-args...
  local name=$1 lang=$2 ex=$3 src=$4
  shift 4
  [ -n "$src" ] && cp "$src" "$home/workspace/$ex.cpp"
  xvfb-run -a -s "-screen 0 1400x860x24" "$attnlab" --lang "$lang" --exercise "$ex" --screenshot "$out/$name.png" \
    --quit-after 3 --size 1400x860 "$@"
  echo "$out/$name.png"
}

ex=$root/exercises
for lang in en id; do
  shot "$lang-pass-solution" "$lang" split-heads "$ex/split-heads/solution.cpp" --run --tab solution
  shot "$lang-wrong-answer" "$lang" causal-mask "$ex/causal-mask/starter.cpp" --run --tab hints
  shot "$lang-mhsa-pass" "$lang" causal-mhsa "$ex/causal-mhsa/solution.cpp" --run
  shot "$lang-compile-error" "$lang" concat-project "$root/tests/fixtures/solutions/compile_error.cpp" --run
  shot "$lang-settings" "$lang" causal-mhsa "" --show settings
  shot "$lang-help" "$lang" causal-mhsa "" --show help
done
