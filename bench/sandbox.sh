#!/usr/bin/env bash
# bench/sandbox.sh: what the sandbox costs a run, measured against the bare
# interpreter in one hyperfine run, so all three see the same machine load.
#
#   bench/sandbox.sh [SANDPAD-RUN]        (default: _build/src/runner/sandpad-run)
#
# Prints each command's mean and the ratios to bare python3. BENCH_RUNS sets
# the number of runs (default 50). A cold `sandpad-run` also pays for its own
# exec, probing the kernel and compiling the seccomp filter; bench/warm.py
# measures the per-run cost inside a long-lived runner, as the app sees it.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
run=${1:-$top/_build/src/runner/sandpad-run}
runs=${BENCH_RUNS:-50}
[ -x "$run" ] || { echo "no sandpad-run at $run; build first" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine is missing (apt-get install hyperfine)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'print(1)\n' > "$work/one.py"

hyperfine -N --warmup 5 --runs "$runs" --export-json "$work/result.json" \
  -n "bare python3" "/usr/bin/python3 -c 'print(1)'" \
  -n "namespaces" "$run --sandbox namespaces --strict $work/one.py" \
  -n "fallback" "$run --sandbox fallback --strict $work/one.py" >&2

/usr/bin/python3 - "$work/result.json" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
bare = results["bare python3"]["mean"]
for name in ("namespaces", "fallback"):
    mean = results[name]["mean"]
    print(f"sandpad-run --sandbox {name} / bare python3: {mean / bare:.2f}x "
          f"({mean * 1000:.1f} ms vs {bare * 1000:.1f} ms, +{(mean - bare) * 1000:.1f} ms)")
PY
