#!/usr/bin/env bash
# Issue 33's three figures, on whatever machine runs it (asserts nothing):
#   - warm edit -> verdict of cuda-flash-attention's solution, with its
#     1 x 12 x 1024 x 64 case (asked: <= 2 s on the 2-core machine);
#   - the same for cuda-qkv-gemm, with its D = 768 case (asked: <= 1.5 s);
#   - the program run of a learner's naive attention at B = 1, H = 12,
#     T = 128, hd = 64, every block checked and sampled (asked: <= 0.2 s).
# On a shared machine the figures only compare within one run: each part
# prints the load average first.
#   bench/depth_figures.sh [BUILD_DIR] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
runs=${2:-5}
"$build/bench/attnlab-bench-latency" --course "$here/../exercises" --runs "$runs" --cold-runs 0 --eigen-runs 0 \
    --exercise cuda-flash-attention --exercise cuda-qkv-gemm
"$here/learner_cuda.sh" "$build" "$runs"
