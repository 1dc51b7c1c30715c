#!/usr/bin/env bash
# attnlab set-up: install what is missing (Debian 12 packages), build, then
#   ./setup.sh [ATTNLAB ARGS]   start attnlab (its window; with a command, the CLI)
#   ./setup.sh test             run every test through ctest
# Safe to run again: installed packages are skipped and the build is incremental.
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(
  g++ cmake ninja-build pkg-config       # toolchain
  libeigen3-dev                          # the reference implementation
  nlohmann-json3-dev                     # course data, progress, --json
  doctest-dev                            # tests
  libimgui-dev libglfw3-dev libgl-dev    # the desktop GUI (Dear ImGui 1.86 with its GLFW/OpenGL3 backends)
  libmd4c-dev libmd4c-html0-dev          # Markdown (md4c's CMake config needs the html part too)
  libstb-dev fonts-dejavu-core           # PNG screenshots; a font with √ · × ≤ →
  xvfb xauth imagemagick                 # the GUI smoke test: a virtual display, and colours counted in its PNG
  libxtst-dev                            # the window tests type and click through the X server (XTest)
  libboost-context-dev                   # fibers for the CPU emulator of the CUDA execution model
  dpkg-dev file                          # cpack -G DEB: dpkg-shlibdeps works out the package's Depends
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "attnlab setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "attnlab setup: please install as root: apt-get install ${missing[*]}" >&2; exit 2; }
    SUDO="sudo"
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

BUILD_DIR=${ATTNLAB_BUILD_DIR:-build}
GENERATOR=(-G Ninja)
# A build folder made earlier keeps its own generator (CMake refuses to switch).
[ -f "$BUILD_DIR/CMakeCache.txt" ] && GENERATOR=()
cmake -S . -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"

if [ "${1:-}" = "test" ]; then
  # Serial on purpose: the runner's tests measure CPU and wall-time limits.
  exec ctest --test-dir "$BUILD_DIR" --output-on-failure
fi
exec "$BUILD_DIR/app/cli/attnlab" "$@"
