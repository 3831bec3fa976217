#!/usr/bin/env bash
# bench/startup.sh: what one `sandpad-run` of a trivial program costs next to
# the bare interpreter, measured side by side in a single hyperfine run so
# both see the same machine load.
#
#   bench/startup.sh [SANDPAD-RUN]   (default: the first _build*/src/runner/sandpad-run)
#
# Builds nothing. BENCH_RUNS sets the number of runs (default 50). Prints
# both means and the ratio sandpad-run / bare python3.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ $# -ge 1 ]; then
  run=$1
else
  run=
  for candidate in "$top"/_build/src/runner/sandpad-run "$top"/_build*/src/runner/sandpad-run; do
    if [ -x "$candidate" ]; then
      run=$candidate
      break
    fi
  done
fi
runs=${BENCH_RUNS:-50}
[ -n "$run" ] && [ -x "$run" ] || { echo "no sandpad-run found${run:+ at $run}; build first" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine is missing (apt-get install hyperfine)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'print(1)\n' >"$work/t.py"

# -N: no intermediate shell, so neither command pays for one.
hyperfine -N --warmup 5 --runs "$runs" --export-json "$work/result.json" \
  -n "bare python3" "/usr/bin/python3 -c 'print(1)'" \
  -n "sandpad-run" "$(printf '%q %q' "$run" "$work/t.py")" >&2

/usr/bin/python3 - "$work/result.json" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
bare = results["bare python3"]["mean"]
sandpad = results["sandpad-run"]["mean"]
print(f"sandpad-run / bare python3: {sandpad / bare:.2f}x "
      f"({sandpad * 1000:.1f} ms vs {bare * 1000:.1f} ms)")
PY
