#!/usr/bin/env bash
# Plain-CUDA learner code on the emulator at ANDREA-120M's head shape
# (B = 1, H = 12, T = 128, hd = 64), every check on: cold and warm compile,
# and the program's run time, from `attnlab check --json`. A benchmark: it
# prints figures and asserts nothing.
#   bench/learner_cuda.sh [BUILD_DIR] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-5}
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
src="$home/attention.cu"
cp "$here/learner-cuda/bench-attention/solution.cu" "$src"
for i in $(seq 0 "$runs"); do
    echo "// run $i" >> "$src"  # a new source each time: compile + run, never the cache
    ATTNLAB_HOME=$home "$build/app/cli/attnlab" --course "$here/learner-cuda" check --json bench-attention "$src" |
        python3 -c "import json,sys; r=json.load(sys.stdin); t=r.get('timing_ms', {}); print('run', $i, '(cold)' if $i == 0 else '', 'verdict', r.get('verdict'), 'timing', t)"
done
