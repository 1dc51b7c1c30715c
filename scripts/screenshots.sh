#!/usr/bin/env bash
# Scripted screenshots of the GUI in both languages, with a passing and a
# failing check, a named mistake, the hints and solution tabs, the settings and help overlays,
# and every view (heatmaps, stages, shapes & memory, experiments, kernel), plus the Kernel view
# of a CUDA exercise (the learner's own launches, the per-block view, the resource panel).
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
  case "$src" in *.cu) cp "$src" "$home/workspace/$ex.cu" ;; esac  # a CUDA exercise's file, whichever name it has
  local size=1500x1000
  case "$name" in
    *-cuda-kernel-*) size=1800x1600 ;;  # a CUDA exercise's Kernel tab: blocks, threads, tensors, warp requests, resources
    *-kernel-*) size=1500x1500 ;;  # the Kernel tab: source, launch, both layouts
  esac
  xvfb-run -a -s "-screen 0 1800x1600x24" "$attnlab" --lang "$lang" --exercise "$ex" --screenshot "$out/$name.png" \
    --quit-after 3 --size "$size" "$@"
  echo "$out/$name.png"
}

ex=$root/exercises
# A wrong solution for the views: scales the scores by 1/sqrt(D) instead of 1/sqrt(hd).
wrong=$home/wrong-mhsa.cpp
sed 's/std::sqrt(static_cast<float>(hd))/std::sqrt(static_cast<float>(x.shape(1)))/' "$ex/causal-mhsa/solution.cpp" > "$wrong"
for lang in en id; do
  rm -f "$home/config/settings.json"  # default layout for the first shots
  shot "$lang-pass-solution" "$lang" split-heads "$ex/split-heads/solution.cpp" --run --tab solution
  shot "$lang-wrong-answer" "$lang" causal-mask "$ex/causal-mask/starter.cpp" --run --tab hints
  shot "$lang-mhsa-pass" "$lang" causal-mhsa "$ex/causal-mhsa/solution.cpp" --run
  shot "$lang-compile-error" "$lang" concat-project "$root/tests/fixtures/solutions/compile_error.cpp" --run
  # A failing check whose output matches a catalogued mistake: the verdict names it.
  shot "$lang-named-mistake" "$lang" causal-mhsa "$ex/causal-mhsa/wrong/scale_sqrt_d.cpp" --run
  shot "$lang-settings" "$lang" causal-mhsa "" --show settings
  shot "$lang-help" "$lang" causal-mhsa "" --show help
  # The views get a taller bottom panel (the Kernel tab needs the room).
  mkdir -p "$home/config"
  echo '{"results_height": 640}' > "$home/config/settings.json"
  for view in heatmaps stages memory experiments kernel; do
    [ "$view" = kernel ] && echo '{"results_height": 960}' > "$home/config/settings.json"
    shot "$lang-$view-pass" "$lang" causal-mhsa "$ex/causal-mhsa/solution.cpp" --run --view "$view"
    shot "$lang-$view-fail" "$lang" causal-mhsa "$wrong" --run --view "$view"
  done
  # A CUDA exercise (the fixture course): its Kernel tab after a pass and after an out-of-bounds fault.
  cuda=$root/tests/fixtures/cuda-course
  echo '{"results_height": 1100}' > "$home/config/settings.json"
  shot "$lang-cuda-kernel-pass" "$lang" fx-cuda-split "$cuda/fx-cuda-split/solution.cu" --course "$cuda" --run --view kernel
  shot "$lang-cuda-kernel-fault" "$lang" fx-cuda-split "$cuda/fx-cuda-split/wrong/no_bounds_check.cu" --course "$cuda" --run --view kernel
  # The course's own CUDA exercises: a shared-memory race named by racecheck, one block per (batch, head).
  shot "$lang-cuda-kernel-softmax-race" "$lang" cuda-causal-softmax "$ex/cuda-causal-softmax/wrong/missing_syncthreads.cu" --run --view kernel
  shot "$lang-cuda-kernel-attention" "$lang" cuda-attention "$ex/cuda-attention/solution.cu" --run --view kernel
  shot "$lang-cuda-uncoalesced" "$lang" cuda-coalescing "$ex/cuda-coalescing/wrong/naive_rows.cu" --run
  # Without NVRTC (its library forced to a missing path): the resource panel says so, the rest works.
  (export ATTNLAB_NVRTC_LIB=/nonexistent
   shot "$lang-cuda-kernel-no-nvrtc" "$lang" fx-cuda-split "$cuda/fx-cuda-split/solution.cu" --course "$cuda" --run --view kernel)
done
