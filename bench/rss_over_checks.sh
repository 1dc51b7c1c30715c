#!/usr/bin/env bash
# The window's resident set over many checks: opens attnlab's real window under
# Xvfb and, N times (default 50), opens the next of four exercises (causal-mhsa
# with a named mistake, stable-softmax solved, a CUDA softmax with a shared-memory
# race, split-heads solved), clicks Run, shows the next of the heatmaps, stages
# and kernel views, and prints VmRSS after each check. A benchmark: it prints
# figures, asserts nothing.
#   bench/rss_over_checks.sh [N]          (ATTNLAB_BIN: the attnlab to run)
#   RSS_WRAP="heaptrack -o /tmp/attnlab" bench/rss_over_checks.sh 20   (the window under a profiler)
# Needs Xvfb and xdotool; uses a throw-away ATTNLAB_HOME.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
attnlab=${ATTNLAB_BIN:-$root/build/app/cli/attnlab}
checks=${1:-50}
command -v Xvfb >/dev/null && command -v xdotool >/dev/null || { echo "rss_over_checks: needs Xvfb and xdotool" >&2; exit 2; }
home=$(mktemp -d)
export ATTNLAB_HOME=$home
mkdir -p "$home/workspace" "$home/config"
echo '{"editor_fraction": 0.35}' > "$home/config/settings.json"
ex=$root/exercises
cp "$ex/causal-mhsa/wrong/scale_sqrt_d.cpp" "$home/workspace/causal-mhsa.cpp"
cp "$ex/stable-softmax/solution.cpp" "$home/workspace/stable-softmax.cpp"
cp "$ex/cuda-causal-softmax/wrong/missing_syncthreads.cu" "$home/workspace/cuda-causal-softmax.cu"
cp "$ex/split-heads/solution.cpp" "$home/workspace/split-heads.cpp"
exercises=(causal-mhsa stable-softmax cuda-causal-softmax split-heads)
views=(heatmaps stages kernel)
items=$home/items.txt
display=:$((190 + RANDOM % 100))
Xvfb "$display" -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb_pid=$!
app_pid=
wrapper_pid=
trap '[ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null; [ -n "$wrapper_pid" ] && wait "$wrapper_pid" 2>/dev/null; kill "$xvfb_pid" 2>/dev/null; rm -rf "$home"' EXIT
for _ in $(seq 50); do xdotool -display "$display" getmouselocation >/dev/null 2>&1 && break; sleep 0.1; done
export DISPLAY=$display

generation() { sed -n 's/^state:result:\([0-9]*\) .*/\1/p' "$items" 2>/dev/null | head -1; }
wait_generation_after() {  # until the result generation differs from $1
  local i g
  for ((i = 0; i < 3000; i++)); do
    g=$(generation)
    [ -n "$g" ] && [ "$g" != "$1" ] && return 0
    sleep 0.1
  done
  echo "rss_over_checks: no new result" >&2
  return 1
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$app_pid/status"; }
click() {
  local x0 y0 x1 y1
  read -r x0 y0 x1 y1 < <(awk -v n="$1" '$1 == n { print $2, $3, $4, $5; exit }' "$items")
  xdotool mousemove $(((x0 + x1) / 2)) $(((y0 + y1) / 2)) sleep 0.1 click 1  # no --sync: it waits forever when the pointer is already there
}

# The course list scrolls: wheel over it until the exercise is on screen, then click it.
open_exercise() {
  local i x0 y0 x1 y1
  for ((i = 0; i < 40; i++)); do
    read -r x0 y0 x1 y1 < <(awk -v n="exercise:$1" '$1 == n { print $2, $3, $4, $5; exit }' "$items")
    if ((y1 > 980)); then xdotool mousemove $(((x0 + x1) / 2)) 500 click 5
    elif ((y0 < 80)); then xdotool mousemove $(((x0 + x1) / 2)) 500 click 4
    else break
    fi
    sleep 0.15
  done
  click "exercise:$1"
  sleep 0.3
}

# shellcheck disable=SC2086
ATTNLAB_GUI_ITEMS=$items ${RSS_WRAP:-} "$attnlab" --exercise causal-mhsa --size 1600x1000 &
app_pid=$!
if [ -n "${RSS_WRAP:-}" ]; then  # the profiler's child is the window
  for ((i = 0; i < 100; i++)); do c=$(pgrep -P "$app_pid" -x "$(basename "$attnlab")" | head -1 || true); [ -n "$c" ] && break; sleep 0.1; done
  wrapper_pid=$app_pid
  app_pid=${c:-$app_pid}
fi
for ((i = 0; i < 600; i++)); do grep -q "^run " "$items" 2>/dev/null && break; sleep 0.1; done
sleep 1
fresh=$(rss_kb)
echo "window: causal-mhsa, heatmaps view; fresh: $((fresh / 1024)) MB"
first=
for ((n = 1; n <= checks; n++)); do
  e=${exercises[$(((n - 1) % 4))]}
  v=${views[$(((n - 1) % 3))]}
  open_exercise "$e"
  g=$(generation)
  t0=$(date +%s.%N)
  click run
  wait_generation_after "${g:-none}"
  click "tab:gui.tab.$v"
  sleep 0.5  # a few frames: the view builds and uploads for the new result
  kb=$(rss_kb)
  [ -n "${RSS_DEBUG:-}" ] && grep -E "^(exercise:$e|state:|verdict|run )" "$items" >&2
  [ -z "$first" ] && first=$kb
  printf 'check %2d (%s, %s view, %.1f s): VmRSS %d MB\n' "$n" "$e" "$v" "$(echo "$(date +%s.%N) - $t0" | bc)" $((kb / 1024))
done
last=$(rss_kb)
echo "fresh $((fresh / 1024)) MB, after check 1 $((first / 1024)) MB, after check $checks $((last / 1024)) MB (growth after the first check: $(((last - first) / 1024)) MB)"
