#!/usr/bin/env bash
# Plain-CUDA learner code on the emulator at ANDREA-120M's head shape
# (B = 1, H = 12, T = 128, hd = 64): the first (cold) and warm compiles, and the
# program's run time, from `attnlab check --json`, twice: every block
# checked (bench-attention), and the case sampled as the course's largest
# cases are (bench-attention-sampled: the first and last of the 12 blocks
# checked, the others run the kernel's unchecked copy; README "Sampled
# cases"). A benchmark: it prints figures and asserts nothing.
#   bench/learner_cuda.sh [BUILD_DIR] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-5}
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
src="$home/attention.cu"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for exercise in bench-attention bench-attention-sampled; do
    echo "== $exercise"
    cp "$here/learner-cuda/bench-attention/solution.cu" "$src"
    for i in $(seq 0 "$runs"); do
        echo "// run $i" >> "$src"  # a new source each time: compile + run, never the cache
        ATTNLAB_HOME=$home "$build/app/cli/attnlab" --course "$here/learner-cuda" check --json "$exercise" "$src" |
            python3 -c "import json,sys; r=json.load(sys.stdin); t=r.get('timing_ms', {}); print('run', $i, '(first)' if $i == 0 else '', 'verdict', r.get('verdict'), 'timing', t)"
    done
done
