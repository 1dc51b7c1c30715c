#!/usr/bin/env bash
# Runs a test program on a virtual X display of its own (xvfb-run), for the
# suites that drive attnlab's real window. Exit 77 = skipped (no Xvfb), which
# ctest reports as skipped.
set -euo pipefail
command -v xvfb-run >/dev/null || { echo "xvfb-run not installed: skipping"; exit 77; }
exec xvfb-run -a -s "-screen 0 1920x1080x24" "$@"
