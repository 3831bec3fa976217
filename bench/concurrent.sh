#!/usr/bin/env bash
# bench/concurrent.sh: do runs really run at once? Eight Python runs of
# `time.sleep(0.2)` handed to one sandpad-runner together, against one such
# run alone, measured side by side in a single hyperfine run so both see the
# same machine load.
#
#   bench/concurrent.sh [SANDPAD-RUNNER]   (default: _build/src/runner/sandpad-runner)
#
# Both go through the runner protocol in its batch mode (requests from a
# file, `sandpad-runner < requests.ndjson`: every run starts as soon as the
# runner may start it, and the runner exits once all have ended), with the
# runner's default --max-concurrent: what a client gets without tuning.
# Each figure therefore includes one runner start. BENCH_RUNS sets the
# number of runs (default 20). Prints both means, the eight runs' wall
# clock and its ratio to one run. Measurements, not assertions.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runner=${1:-$top/_build/src/runner/sandpad-runner}
runs=${BENCH_RUNS:-20}
n=8
[ -x "$runner" ] || { echo "no sandpad-runner at $runner; build first" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine is missing (apt-get install hyperfine)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
request() {
  printf '{"v":1,"type":"run","id":"r%d","language":"python","code":"import time\\ntime.sleep(0.2)\\n"}\n' "$1"
}
request 0 >"$work/one.ndjson"
for i in $(seq 1 $n); do request "$i"; done >"$work/eight.ndjson"

# A shell runs each command (for the redirections); hyperfine subtracts
# its cost. stdout is kept: a failed run must not go unnoticed.
for batch in one eight; do
  "$runner" <"$work/$batch.ndjson" >"$work/$batch.events"
  ended=$(/usr/bin/python3 -c 'import json, sys
print(sum(1 for line in open(sys.argv[1]) for e in [json.loads(line)]
          if e["type"] == "exited" and e.get("end") == "exited" and e.get("exit_code") == 0))' \
    "$work/$batch.events")
  want=$([ "$batch" = one ] && echo 1 || echo $n)
  [ "$ended" -eq "$want" ] || { echo "the $batch batch did not end cleanly:" >&2; cat "$work/$batch.events" >&2; exit 1; }
done

hyperfine --warmup 2 --runs "$runs" --export-json "$work/result.json" \
  -n "one run" "$(printf '%q <%q >/dev/null' "$runner" "$work/one.ndjson")" \
  -n "$n runs at once" "$(printf '%q <%q >/dev/null' "$runner" "$work/eight.ndjson")" >&2

/usr/bin/python3 - "$work/result.json" "$n" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
n = sys.argv[2]
one = results["one run"]["mean"]
many = results[f"{n} runs at once"]["mean"]
print(f"{n} concurrent time.sleep(0.2) runs: {many:.3f} s wall clock, {many / one:.2f}x one run "
      f"({many * 1000:.0f} ms vs {one * 1000:.0f} ms)")
PY
