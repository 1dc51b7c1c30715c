#!/usr/bin/env bash
# Scripted screenshots of the GUI in both languages, with a passing and a
# failing check, a named mistake, the hints and solution tabs, the settings and help overlays,
# and every view (heatmaps, stages, shapes & memory, experiments, kernel), plus the Kernel view
# of a CUDA exercise (the learner's own launches, the per-block view, the resource panel, the
# roofline), and the automatic stages of a solution without probe() at 1280x800 and 1920x1080.
#   scripts/screenshots.sh [OUT_DIR]     (default: build/screenshots)
# Needs a built attnlab and xvfb-run; the driven flows (clicks and keys in a real window:
# jump to an error line, a named stage's tensor, next exercise) also need Xvfb, xdotool and
# ImageMagick's import, and are skipped without them. Uses a throw-away ATTNLAB_HOME.
# ONLY=PATTERN limits the run to shots whose name matches (e.g. ONLY='*flow*').
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
  # shellcheck disable=SC2053
  [[ -z ${ONLY:-} || $name == $ONLY ]] || return 0
  [ -n "$src" ] && cp "$src" "$home/workspace/$ex.cpp"
  case "$src" in *.cu) cp "$src" "$home/workspace/$ex.cu" ;; esac  # a CUDA exercise's file, whichever name it has
  local size=1500x1000 prev= a
  case "$name" in
    *-cuda-kernel-*) size=1800x1600 ;;  # a CUDA exercise's Kernel tab: blocks, threads, tensors, warp requests, resources
    *-kernel-*) size=1500x1500 ;;  # the Kernel tab: source, launch, both layouts
  esac
  local args=()
  for a in "$@"; do  # a --size in the arguments wins
    if [ "$prev" = --size ]; then size=$a; elif [ "$a" != --size ]; then args+=("$a"); fi
    prev=$a
  done
  xvfb-run -a -s "-screen 0 1920x1600x24" "$attnlab" --lang "$lang" --exercise "$ex" --screenshot "$out/$name.png" \
    --quit-after 3 --size "$size" ${args[@]+"${args[@]}"}
  echo "$out/$name.png"
}

ex=$root/exercises
# A learner who never calls probe(): the solution and a named mistake without their probe lines.
noprobe() { grep -v 'probe(' "$1"; }
# A wrong solution for the views: scales the scores by 1/sqrt(D) instead of 1/sqrt(hd).
wrong=$home/wrong-mhsa.cpp
noprobe "$ex/causal-mhsa/solution.cpp" > "$home/mhsa-noprobe.cpp"
noprobe "$ex/causal-mhsa/wrong/scale_sqrt_d.cpp" > "$home/mhsa-sqrt-d-noprobe.cpp"
sed 's/std::sqrt(static_cast<float>(hd))/std::sqrt(static_cast<float>(x.shape(1)))/' "$ex/causal-mhsa/solution.cpp" > "$wrong"
for lang in en id; do
  rm -f "$home/config/settings.json"  # default layout for the first shots
  shot "$lang-pass-solution" "$lang" split-heads "$ex/split-heads/solution.cpp" --run --tab solution
  shot "$lang-wrong-answer" "$lang" causal-mask "$ex/causal-mask/starter.cpp" --run --tab hints
  shot "$lang-mhsa-pass" "$lang" causal-mhsa "$ex/causal-mhsa/solution.cpp" --run
  shot "$lang-compile-error" "$lang" concat-project "$root/tests/fixtures/solutions/compile_error.cpp" --run
  # A failing check whose output matches a catalogued mistake: the verdict names it.
  shot "$lang-named-mistake" "$lang" causal-mhsa "$ex/causal-mhsa/wrong/scale_sqrt_d.cpp" --run
  # Without probe(): every stage recorded automatically, with the learner's lines; the
  # verdict's stage is the learner's tensor from its line.
  shot "$lang-noprobe-stages" "$lang" causal-mhsa "$home/mhsa-noprobe.cpp" --run --view stages
  shot "$lang-noprobe-named-stage" "$lang" causal-mhsa "$home/mhsa-sqrt-d-noprobe.cpp" --run
  for size in 1280x800 1920x1080; do
    shot "$lang-noprobe-stages-wrong-$size" "$lang" causal-mhsa "$home/mhsa-sqrt-d-noprobe.cpp" --run --view stages --size "$size"
    shot "$lang-noprobe-heatmaps-wrong-$size" "$lang" causal-mhsa "$home/mhsa-sqrt-d-noprobe.cpp" --run --view heatmaps --size "$size"
  done
  shot "$lang-softmax-heatmaps" "$lang" stable-softmax "$ex/stable-softmax/solution.cpp" --run --view heatmaps
  shot "$lang-settings" "$lang" causal-mhsa "" --show settings
  shot "$lang-help" "$lang" causal-mhsa "" --show help
  # The History window after two checks of the file (attnlab check keeps a version each time).
  cp "$ex/causal-mhsa/starter.cpp" "$home/workspace/causal-mhsa.cpp"
  "$attnlab" check causal-mhsa >/dev/null 2>&1 || true
  cp "$ex/causal-mhsa/solution.cpp" "$home/workspace/causal-mhsa.cpp"
  "$attnlab" check causal-mhsa >/dev/null 2>&1 || true
  for size in 1280x800 1920x1080; do
    shot "$lang-history-$size" "$lang" causal-mhsa "" --show history --size "$size"
    shot "$lang-editor-check-$size" "$lang" causal-mhsa "" --run --size "$size"
    # Readability at both sizes: wrapped titles and status, labelled combos, the Kernel tab's block labels.
    for view in heatmaps stages kernel; do
      shot "$lang-$view-$size" "$lang" causal-mhsa "$ex/causal-mhsa/solution.cpp" --run --view "$view" --size "$size"
    done
  done
  # The views get a taller bottom panel (the Kernel tab needs the room).
  mkdir -p "$home/config"
  echo '{"editor_fraction": 0.35}' > "$home/config/settings.json"
  for view in heatmaps stages memory experiments kernel; do
    [ "$view" = kernel ] && echo '{"editor_fraction": 0.2, "kernel_editor_fraction": 0.2}' > "$home/config/settings.json"
    shot "$lang-$view-pass" "$lang" causal-mhsa "$ex/causal-mhsa/solution.cpp" --run --view "$view"
    shot "$lang-$view-fail" "$lang" causal-mhsa "$wrong" --run --view "$view"
  done
  # A CUDA exercise (the fixture course): its Kernel tab after a pass and after an out-of-bounds fault.
  cuda=$root/tests/fixtures/cuda-course
  echo '{"editor_fraction": 0.15, "kernel_editor_fraction": 0.15}' > "$home/config/settings.json"
  shot "$lang-cuda-kernel-pass" "$lang" fx-cuda-split "$cuda/fx-cuda-split/solution.cu" --course "$cuda" --run --view kernel
  shot "$lang-cuda-kernel-fault" "$lang" fx-cuda-split "$cuda/fx-cuda-split/wrong/no_bounds_check.cu" --course "$cuda" --run --view kernel
  # The course's own CUDA exercises: a shared-memory race named by racecheck, one block per (batch, head).
  shot "$lang-cuda-kernel-softmax-race" "$lang" cuda-causal-softmax "$ex/cuda-causal-softmax/wrong/missing_syncthreads.cu" --run --view kernel
  shot "$lang-cuda-kernel-attention" "$lang" cuda-attention "$ex/cuda-attention/solution.cu" --run --view kernel
  shot "$lang-cuda-uncoalesced" "$lang" cuda-coalescing "$ex/cuda-coalescing/wrong/naive_rows.cu" --run
  # The four CUDA exercises of issue 19, solved: the verdict, then the Kernel view.
  for new_ex in cuda-first-kernel cuda-row-sum cuda-qkv-gemm cuda-tensor-core-qkv; do
    shot "$lang-new-$new_ex-pass" "$lang" "$new_ex" "$ex/$new_ex/solution.cu" --run
    shot "$lang-new-$new_ex-kernel" "$lang" "$new_ex" "$ex/$new_ex/solution.cu" --run --view kernel
  done
  # The online softmax's promise: a kernel that reloads its tiles every round is named.
  shot "$lang-cuda-online-reload" "$lang" cuda-online-softmax "$ex/cuda-online-softmax/wrong/rounds_reload_tiles.cu" --run
  # The Kernel view at the two sizes it must work at.
  shot "$lang-cuda-kernel-race-1280" "$lang" cuda-causal-softmax "$ex/cuda-causal-softmax/wrong/missing_syncthreads.cu" --run --view kernel --size 1280x800 --quit-after 20  # frames: the narrow tab bar scrolls to the Kernel tab
  shot "$lang-cuda-kernel-race-1920" "$lang" cuda-causal-softmax "$ex/cuda-causal-softmax/wrong/missing_syncthreads.cu" --run --view kernel --size 1920x1080
  # The Kernel tab with the room it gets by default (no settings), at the two sizes it must
  # work at: a large grid summarised (cuda-first-kernel: hundreds of blocks), blocks the access log did
  # not reach drawn as ? (cuda-tensor-core-qkv), and the roofline of a mask kernel (no arithmetic:
  # its bytes against the memory roof), a tiled GEMM and a WMMA GEMM.
  rm -f "$home/config/settings.json"
  for size in 1280x800 1920x1080; do
    shot "$lang-kernel-first-kernel-$size" "$lang" cuda-first-kernel "$ex/cuda-first-kernel/solution.cu" --run --view kernel --size "$size" --quit-after 20
    shot "$lang-kernel-tensor-core-$size" "$lang" cuda-tensor-core-qkv "$ex/cuda-tensor-core-qkv/solution.cu" --run --view kernel --size "$size" --quit-after 20
    shot "$lang-roofline-mask-$size" "$lang" cuda-first-kernel "$ex/cuda-first-kernel/solution.cu" --run --view roofline --size "$size" --quit-after 20
    # A tiled FP32 GEMM under the FP32 roof; a WMMA GEMM under the tensor cores' roof.
    shot "$lang-roofline-gemm-$size" "$lang" cuda-qkv-gemm "$ex/cuda-qkv-gemm/solution.cu" --run --view roofline --size "$size" --quit-after 20
    shot "$lang-roofline-tensor-core-$size" "$lang" cuda-tensor-core-qkv "$ex/cuda-tensor-core-qkv/solution.cu" --run --view roofline --size "$size" --quit-after 20
  done
  echo '{"editor_fraction": 0.15, "kernel_editor_fraction": 0.15}' > "$home/config/settings.json"
  # Without NVRTC (its library forced to a missing path): the resource panel says so, the rest works.
  (export ATTNLAB_NVRTC_LIB=/nonexistent
   shot "$lang-cuda-kernel-no-nvrtc" "$lang" fx-cuda-split "$cuda/fx-cuda-split/solution.cu" --course "$cuda" --run --view kernel)
done

# ---- flows driven in a real window: clicks and keys through xdotool ----------------------------
# The window writes its widgets' rectangles to $items (ATTNLAB_GUI_ITEMS); the script clicks them.
command -v Xvfb >/dev/null && command -v xdotool >/dev/null && command -v import >/dev/null || {
  echo "screenshots: flows skipped (need Xvfb, xdotool and ImageMagick's import)" >&2
  exit 0
}
items=$home/items.txt
display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb_pid=$!
trap 'kill "$xvfb_pid" 2>/dev/null; rm -rf "$home"' EXIT
sleep 1
export DISPLAY=$display

wait_item() {  # PATTERN [seconds]: until a widget matching ^PATTERN is on screen
  local i
  for ((i = 0; i < ${2:-120} * 10; i++)); do
    grep -q "^$1" "$items" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "screenshots: no $1 on screen" >&2
  return 1
}
result_generation() { sed -n 's/^state:result:\([0-9]*\) .*/\1/p' "$items" 2>/dev/null | head -1; }
wait_new_result() {  # until a result newer than generation $1 is on screen
  local i
  for ((i = 0; i < 2400; i++)); do
    local g
    g=$(result_generation)
    [ -n "$g" ] && [ "$g" != "$1" ] && return 0
    sleep 0.1
  done
  return 1
}
click() {  # widget name: click its centre
  wait_item "$1 " || return 1
  read -r x0 y0 x1 y1 < <(awk -v n="$1" '$1 == n { print $2, $3, $4, $5; exit }' "$items")
  xdotool mousemove --sync $(((x0 + x1) / 2)) $(((y0 + y1) / 2)) click 1
}
settle() { sleep 0.6; }
flow_start() {  # lang exercise source-file extra-args...
  local lang=$1 ex=$2 src=$3
  shift 3
  rm -f "$items" "$home/config/settings.json"
  [ -n "${FLOW_SETTINGS:-}" ] && echo "$FLOW_SETTINGS" > "$home/config/settings.json"
  [ -n "$src" ] && cp "$src" "$home/workspace/$ex.cpp"
  case "$src" in *.cu) cp "$src" "$home/workspace/$ex.cu" ;; esac
  ATTNLAB_GUI_ITEMS=$items "$attnlab" --lang "$lang" --exercise "$ex" --size 1600x1000 "$@" &
  app_pid=$!
  wait_item "state:result:" 240
}
flow_shot() { settle; import -display "$display" -window root "$out/$1.png"; echo "$out/$1.png"; }
# The same picture as a deuteranope sees it (Machado et al. 2009, severity 1.0): faults,
# blocks and sectors must still be told apart.
deuteranopia() {
  convert "$out/$1.png" -color-matrix "0.367 0.861 -0.228 0.280 0.673 0.047 -0.012 0.043 0.969" "$out/$1-deuteranopia.png"
  echo "$out/$1-deuteranopia.png"
}
flow_end() { kill "$app_pid" 2>/dev/null; wait "$app_pid" 2>/dev/null || true; }

for lang in en id; do
  [[ -z ${ONLY:-} || $lang-flow == $ONLY ]] || continue
  # 1. A compile error: its line is marked in the gutter; clicking the error jumps there.
  flow_start "$lang" concat-project "$root/tests/fixtures/solutions/compile_error.cpp" --run
  click "diag:0" && flow_shot "$lang-flow-jump-to-error"
  flow_end
  # 2. A named mistake without probes: the verdict names the line of the learner's scores
  #    (recorded automatically); one click shows them in Stages, and the heatmaps beside the reference's.
  flow_start "$lang" causal-mhsa "$home/mhsa-sqrt-d-noprobe.cpp" --run
  flow_shot "$lang-flow-named-stage"
  click probe_show && flow_shot "$lang-flow-named-stage-stages"
  click "tab:gui.tab.heatmaps" && flow_shot "$lang-flow-named-stage-heatmaps" && deuteranopia "$lang-flow-named-stage-heatmaps"
  flow_end
  # 3. A pass: "Next exercise" opens the next one on its task.
  flow_start "$lang" split-heads "$ex/split-heads/solution.cpp" --run
  flow_shot "$lang-flow-pass"
  click next_exercise && flow_shot "$lang-flow-next-exercise"
  flow_end
  # 4. A CUDA race: drawn on the shared array, both threads ringed.
  FLOW_SETTINGS='{"editor_fraction": 0.2, "kernel_editor_fraction": 0.2}' flow_start "$lang" cuda-causal-softmax "$ex/cuda-causal-softmax/wrong/missing_syncthreads.cu" --run
  click "tab:gui.tab.kernel" && flow_shot "$lang-flow-cuda-race" && deuteranopia "$lang-flow-cuda-race"
  flow_end
  # 5. Experiments: a measurement, and why the fused projection's gain does (not) show at that size.
  FLOW_SETTINGS='{"editor_fraction": 0.3}' flow_start "$lang" causal-mhsa "$ex/causal-mhsa/solution.cpp" --run --view experiments
  click exp_measure && wait_item exp_why 120 && flow_shot "$lang-flow-experiments-why"
  flow_end
  # 6. Settings: the GPU architecture by its GPUs' names.
  flow_start "$lang" cuda-causal-softmax "" --run --show settings
  click settings_arch && flow_shot "$lang-flow-settings-arch"
  flow_end
  # 7. A block the check's access log did not reach (fx-cuda-attention's solution, T = 70,
  #    hd = 64: block 0 alone fills it): drawn as ?, then recorded on its own by a re-run.
  FLOW_SETTINGS='{"editor_fraction": 0.15, "kernel_editor_fraction": 0.15}' flow_start "$lang" fx-cuda-attention "$root/tests/fixtures/cuda-course/fx-cuda-attention/solution.cu" --course "$root/tests/fixtures/cuda-course" --run --view kernel
  if wait_item "kview_grid " 60; then
    read -r x0 y0 x1 y1 < <(awk '$1 == "kview_grid" { print $2, $3, $4, $5; exit }' "$items")
    xdotool mousemove --sync $((x0 + (x1 - x0) * 3 / 4)) $((y0 + (y1 - y0) / 6)) click 1  # block 1: column 2 of 2, row 1 of 3
    wait_item "kview_record_block " 30 && flow_shot "$lang-flow-cuda-unrecorded-block"
    click kview_record_block && wait_item "kview_block_recorded " 120 && flow_shot "$lang-flow-cuda-recorded-block"
  fi
  flow_end
done
