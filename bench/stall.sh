#!/usr/bin/env bash
# bench/stall.sh: the longest main-loop stall of the app while a run prints
# 10^4, 10^5 and 10^6 lines, measured by the app's own stall meter
# (SANDPAD_STALL_LOG) in a real window under Xvfb, against the real runner.
#
#   bench/stall.sh [BUILD-DIR] [LINES]   (default: _build; all cases)
#
# Builds nothing. Prints one line per case; the meter's log (every stall of
# 20 ms or more, with marks where each case starts) stays in
# $BUILD_DIR/bench/stall.log.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$top/_build}
bench=$build/bench/stall-bench
[ -x "$bench" ] || { echo "no $bench; build first (meson compile -C $build)" >&2; exit 2; }
command -v xvfb-run >/dev/null || { echo "xvfb-run is missing (apt-get install xvfb xauth)" >&2; exit 2; }

log=$build/bench/stall.log
rm -f "$log"
# The UI tests' environment: a private settings store, the build tree's
# runner and helper, no accessibility bus.
env SANDPAD_STALL_LOG="$log" \
  GSETTINGS_BACKEND=memory GSETTINGS_SCHEMA_DIR="$build/data" \
  SANDPAD_RUNNER="$build/src/runner/sandpad-runner" \
  SANDPAD_IMAGEDECODE="$build/src/imagedecode/sandpad-imagedecode" \
  NO_AT_BRIDGE=1 GSK_RENDERER=cairo LANG=C.UTF-8 \
  xvfb-run -a -s '-screen 0 1280x800x24' "$bench" ${2:+"$2"}
