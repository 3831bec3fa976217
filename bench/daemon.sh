#!/usr/bin/env bash
# bench/daemon.sh: sandpad-run through the resident runner (issue 26)
# against bare python3 and against sandpad-run --no-daemon (cold), side by
# side in one hyperfine run per program, as ratios to bare:
#   print(1), and a matplotlib bar chart saved to PNG.
#
#   bench/daemon.sh [PATH-TO-SANDPAD-RUN]   (default: first _build*/src/runner/sandpad-run)
#   BENCH_RUNS=40 bench/daemon.sh           (default 20, after 3 warmups)
#   BENCH_BEFORE=OTHER/sandpad-run bench/daemon.sh   (adds that build's resident
#                                           runner, e.g. before a change, as a row)
#
# A row "bare python3, nice 10" runs bare python3 at the nice value every
# run of Sandpad gets (runner-sandbox.c): on a loaded machine a niced
# process gets less CPU, which that row shows apart from Sandpad's own cost.
#
# It uses a private resident runner (its own XDG_RUNTIME_DIR), stopped at
# the end. Measurements, not assertions: nothing here passes or fails.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sr=${1:-$(ls -d "$top"/_build*/src/runner/sandpad-run 2>/dev/null | head -1)}
[ -x "$sr" ] || { echo "no sandpad-run at '$sr'; build first" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "needs hyperfine" >&2; exit 2; }
runs=${BENCH_RUNS:-20}
T=$(mktemp -d)
export XDG_RUNTIME_DIR=$T/rt SANDPAD_RUNNER_IDLE_EXIT=600
unset SANDPAD_NO_DAEMON
mkdir -m 700 "$XDG_RUNTIME_DIR"
stop ()
{
  for lock in "$XDG_RUNTIME_DIR"/sandpad/*.lock; do
    # The runner's lock is a record lock (flock(1) cannot see it): the pid
    # it wrote, while that is still a runner.
    pid=$(cat "$lock" 2>/dev/null)
    [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sandpad-runner ] \
      && kill "$pid" 2>/dev/null
  done
  rm -rf "$T"
}
trap stop EXIT
chmod 755 "$T"
printf 'print(1)\n' >"$T/p.py"
cat >"$T/chart.py" <<'PY'
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots()
ax.bar(["a", "b", "c"], [3, 1, 2])
fig.savefig("chart.png")
PY
cd "$T" # bare python3 writes chart.png here
before=${BENCH_BEFORE:-}
"$sr" "$T/p.py" >/dev/null # start the resident runner
[ -z "$before" ] || "$before" "$T/p.py" >/dev/null # and the other build's

for prog in p.py chart.py; do
  extra=()
  [ -z "$before" ] || extra=(-n "sandpad-run (resident runner, BENCH_BEFORE)" "$before $T/$prog")
  hyperfine -N --warmup 3 --runs "$runs" --export-json "$T/$prog.json" \
    -n "bare python3" "/usr/bin/python3 $T/$prog" \
    -n "bare python3, nice 10" "nice -n 10 /usr/bin/python3 $T/$prog" \
    -n "sandpad-run (resident runner)" "$sr $T/$prog" \
    "${extra[@]}" \
    -n "sandpad-run --no-daemon" "$sr --no-daemon $T/$prog" >&2
  /usr/bin/python3 - "$T/$prog.json" "$prog" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
bare = r["bare python3"]
print(f"{sys.argv[2]}: " + ", ".join(
    f"{k} {v / bare:.2f}x ({v * 1000:.1f} ms)" for k, v in r.items() if k != "bare python3")
    + f" vs bare {bare * 1000:.1f} ms")
PY
done
