#!/usr/bin/env bash
# bench/daemon-concurrent.sh: eight `sandpad-run` calls of time.sleep(0.2)
# at once through the resident runner (issue 26), against eight bare
# python3 doing the same at once and eight `sandpad-run --no-daemon`,
# side by side in one hyperfine run; the wall clock of each set of eight,
# as ratios to the bare set.
#
#   bench/daemon-concurrent.sh [PATH-TO-SANDPAD-RUN]  (default: first _build*/src/runner/sandpad-run)
#   BENCH_RUNS=20 bench/daemon-concurrent.sh          (default 10, after 2 warmups)
#   BENCH_BEFORE=OTHER/sandpad-run bench/daemon-concurrent.sh  (that build's resident
#                                                     runner as one more row)
#
# Each set is one `bash` script that starts the eight and waits for them
# (the same shell cost in every row). A private resident runner (its own
# XDG_RUNTIME_DIR), stopped at the end. Before timing it checks that every
# call of a set exits 0. Measurements, not assertions.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sr=${1:-$(ls -d "$top"/_build*/src/runner/sandpad-run 2>/dev/null | head -1)}
[ -x "$sr" ] || { echo "no sandpad-run at '$sr'; build first" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "needs hyperfine" >&2; exit 2; }
runs=${BENCH_RUNS:-10}
n=${BENCH_CLIENTS:-8}
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
printf 'import time\ntime.sleep(0.2)\n' >"$T/s.py"
set_of ()  # set_of NAME COMMAND...: a script that runs COMMAND n times at once
{
  local name=$1
  shift
  {
    echo 'fail=0; pids=""'
    for _ in $(seq "$n"); do echo "$* >/dev/null & pids=\"\$pids \$!\""; done
    echo 'for p in $pids; do wait $p || fail=1; done; exit $fail'
  } >"$T/$name.sh"
}
set_of bare /usr/bin/python3 "$T/s.py"
set_of resident "$sr" "$T/s.py"
set_of cold "$sr" --no-daemon "$T/s.py"
sets="bare resident cold"
extra=()
if [ -n "${BENCH_BEFORE:-}" ]; then
  set_of before "$BENCH_BEFORE" "$T/s.py"
  "$BENCH_BEFORE" "$T/s.py" >/dev/null
  sets="$sets before"
  extra=(-n "$n x sandpad-run (resident runner, BENCH_BEFORE)" "bash $T/before.sh")
fi
"$sr" "$T/s.py" >/dev/null # start the resident runner
for s in $sets; do
  bash "$T/$s.sh" || { echo "a call of the '$s' set failed" >&2; exit 1; }
done

hyperfine -N --warmup 2 --runs "$runs" --export-json "$T/r.json" \
  -n "$n x bare python3" "bash $T/bare.sh" \
  -n "$n x sandpad-run (resident runner)" "bash $T/resident.sh" \
  "${extra[@]}" \
  -n "$n x sandpad-run --no-daemon" "bash $T/cold.sh" >&2
/usr/bin/python3 - "$T/r.json" "$n" <<'PY'
import json, sys
r = {x["command"]: x["mean"] for x in json.load(open(sys.argv[1]))["results"]}
bare = r[f"{sys.argv[2]} x bare python3"]
for k, v in r.items():
    if "bare" not in k:
        print(f"{k}: {v:.3f} s wall, {v / bare:.2f}x bare ({bare:.3f} s)")
PY
