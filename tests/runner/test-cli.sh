#!/usr/bin/env bash
# tests/runner/test-cli.sh: sandpad-run from a shell, with the real
# interpreters, checked against its exit-status contract (see
# src/runner/sandpad-run.c): the program's own status, 124 for the time
# limit, 128+N for signal N (an output-limit kill is SIGKILL, so 137), 125 for
# Sandpad's own errors.
#
#   bash tests/runner/test-cli.sh PATH-TO-SANDPAD-RUN
#
# Speaks TAP. Durations are never asserted, only outcomes.
set -u

SR=${1:?usage: test-cli.sh PATH-TO-SANDPAD-RUN}
# Debian's interpreter, not whatever python3 comes first on PATH.
PY=/usr/bin/python3

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# SANDPAD_TEST_DAEMON=1: the same table through the resident runner (issue
# 26), a private one, stopped at the end.
if [ "${SANDPAD_TEST_DAEMON-}" = 1 ]; then
  unset SANDPAD_NO_DAEMON
  export XDG_RUNTIME_DIR=$T/rt SANDPAD_RUNNER_IDLE_EXIT=120
  mkdir -m 700 "$XDG_RUNTIME_DIR"
  stop_runner ()
  {
    local lock pid
    for lock in "$XDG_RUNTIME_DIR"/sandpad/*.lock; do
      # The runner's lock is a record lock (flock(1) cannot see it): the pid
      # it wrote, while that is still a runner.
      pid=$(cat "$lock" 2>/dev/null)
      [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sandpad-runner ] \
        && kill -9 "$pid" 2>/dev/null
    done
    rm -rf "$T"
  }
  trap stop_runner EXIT
fi
# As root the runner runs programs as nobody: a --cwd directory must be
# reachable and writable by them (docs/security.md).
chmod 711 "$T"

plan=52

echo "1..$plan"

n=0
failed=0

# check DESC COMMAND...: one TAP line for whether COMMAND succeeds. On failure
# the last run's status, stdout and stderr go out as diagnostics.
check ()
{
  local desc=$1
  shift
  n=$((n + 1))
  if "$@"; then
    echo "ok $n - $desc"
  else
    failed=$((failed + 1))
    echo "not ok $n - $desc"
    echo "#   exit status: ${rc-unset}"
    [ -f "$T/out" ] && head -c 2000 "$T/out" | sed 's/^/#   stdout: /'
    [ -f "$T/err" ] && head -c 2000 "$T/err" | sed 's/^/#   stderr: /'
  fi
}

# run ARGS...: sandpad-run with stdin from /dev/null; sets rc, leaves the
# output in $T/out and $T/err.
run ()
{
  "$SR" "$@" <"/dev/null" >"$T/out" 2>"$T/err"
  rc=$?
}

# run_in INPUT ARGS...: the same, with INPUT on a pipe as stdin.
run_in ()
{
  local input=$1
  shift
  "$SR" "$@" < <(printf '%s' "$input") >"$T/out" 2>"$T/err"
  rc=$?
}

# snippet NAME TEXT: write a program file, return its path in $f.
snippet ()
{
  f=$T/$1
  printf '%s\n' "$2" >"$f"
}

status_is () { [ "$rc" -eq "$1" ]; }
stdout_is () { cmp -s "$T/out" <(printf '%s' "$1"); }
stderr_has () { grep -qF -- "$1" "$T/err"; }
stderr_has_line () { grep -qxF -- "$1" "$T/err"; }
stdout_has () { grep -qF -- "$1" "$T/out"; }

# --- hello in each language ------------------------------------------------

snippet hello.py 'print("hello")'
run "$f"
check "python: hello, exit 0" eval 'status_is 0 && stdout_is "hello
"'

snippet hello.js 'console.log("hello")'
run "$f"
check "javascript: hello, exit 0" eval 'status_is 0 && stdout_is "hello
"'

snippet hello.sh 'echo hello'
run "$f"
check "bash: hello, exit 0" eval 'status_is 0 && stdout_is "hello
"'

# --- exit status passthrough ---------------------------------------------

snippet exit3.py 'import sys; sys.exit(3)'
run "$f"
check "python: sys.exit(3) exits 3" status_is 3

snippet exit4.js 'process.exit(4)'
run "$f"
check "javascript: process.exit(4) exits 4" status_is 4

snippet exit5.sh 'exit 5'
run "$f"
check "bash: exit 5 exits 5" status_is 5

# --- a syntax error --------------------------------------------------------

snippet syntax.py 'x = 1
y = = 2'
run "$f"
check "python SyntaxError: exit 1" status_is 1
check "python SyntaxError: stderr names SyntaxError" stderr_has "SyntaxError"
check "python SyntaxError: stderr names line 2" stderr_has "line 2"

# --- time limit -------------------------------------------------------------

snippet spin.py 'while True: pass'
run --timeout 1 "$f"
check "--timeout 1 on an endless loop: exit 124" status_is 124
check "--timeout 1: stderr says the time limit of 1 s was exceeded" \
  stderr_has_line "sandpad: time limit of 1 s exceeded"

run --timeout 0.5 "$f"
check "--timeout 0.5: exit 124" status_is 124
check "--timeout 0.5: stderr says the time limit of 0.5 s was exceeded" \
  stderr_has_line "sandpad: time limit of 0.5 s exceeded"

# --- a signal ---------------------------------------------------------------

snippet term.sh 'kill -TERM $$'
run "$f"
check "bash kill -TERM \$\$: exit 143 (128+SIGTERM)" status_is 143

# --- output flood ----------------------------------------------------------

# Issue 38: the output limit bounds what is kept, not the run. A program
# that prints a lot runs to its end, its start and its end on stdout and
# a note on stderr of what was left out and where all of it is.
snippet prints.py 'for i in range(100000): print(i)'
mkdir -p "$T/keep"
chmod 777 "$T/keep"
run --output-limit 10000 --cwd "$T/keep" "$f"
check "output past the limit: the program runs to its end (exit 0)" status_is 0
check "output past the limit: stdout starts with the first line" eval '[ "$(head -n 1 "$T/out")" = 0 ]'
check "output past the limit: stdout ends with the last line" eval '[ "$(tail -n 1 "$T/out")" = 99999 ]'
check "output past the limit: about the limit is kept" eval '[ "$(wc -c <"$T/out")" -le 13524 ]'
check "output past the limit: stderr says what was left out and where all of it is" \
  stderr_has "of stdout left out here, past the output limit; the whole output is in $T/keep/sandpad-stdout.txt"
check "output past the limit: the file holds the whole output" \
  cmp -s "$T/keep/sandpad-stdout.txt" <(seq 0 99999)

# One that writes forever still meets its time limit.
snippet flood.py 'while True: print("y"*100)'
run --output-limit 10000 --timeout 2 "$f"
check "output flood: exit 124, the time limit" status_is 124
check "output flood: its start and end are kept" \
  eval '[ "$(wc -c <"$T/out")" -le 13524 ] && [ "$(tail -n 1 "$T/out")" = "$(printf "y%.0s" $(seq 100))" ]'
check "output flood: stderr names the time limit" stderr_has_line "sandpad: time limit of 2 s exceeded"
check "output flood: without --cwd, stderr says how to keep the whole output" \
  stderr_has "; --cwd DIR keeps the whole output in DIR/sandpad-stdout.txt"

# --- memory -------------------------------------------------------------------

snippet hog.py 'x = []
while True:
    x.append("a" * 10_000_000)'
run --memory 128 --timeout 30 "$f"
check "memory hog: stderr says the memory limit of 128 MiB was exceeded" \
  stderr_has_line "sandpad: memory limit of 128 MiB exceeded"
check "memory hog: exit status is not 0" eval '[ "$rc" -ne 0 ]'

# --- stdin -------------------------------------------------------------------

snippet ask.py 'name = input()
print("hi", name)'
run_in 'Ada
' "$f"
check "stdin is forwarded to the program" eval 'status_is 0 && stdout_is "hi Ada
"'

run_in 'print(6 * 7)
' --lang python -
check "- with --lang python runs code read from stdin" eval 'status_is 0 && stdout_is "42
"'

run_in 'print(6 * 7)
' -
check "- without --lang: exit 125" status_is 125
check "- without --lang: stderr asks for --lang" stderr_has "--lang"

# --- Sandpad's own errors ----------------------------------------------------

snippet notes.txt 'print("hi")'
run "$f"
check "unknown extension .txt: exit 125" status_is 125
check "unknown extension .txt: stderr names the file" stderr_has "notes.txt"
check "unknown extension: nothing ran" eval '[ ! -s "$T/out" ]'

run "$T/missing.py"
check "missing file: exit 125 and stderr names it" eval 'status_is 125 && stderr_has "missing.py"'

run --no-such-option "$T/hello.py"
check "bad option: exit 125" eval 'status_is 125 && [ ! -s "$T/out" ]'

run --lang cobol "$T/hello.py"
check "--lang cobol (no such language): exit 125 and stderr names it" eval 'status_is 125 && stderr_has "cobol"'

run --help
check "--help: exit 0, mentions --timeout" eval 'status_is 0 && stdout_has "--timeout"'

# --- arguments and environment --------------------------------------------

snippet argv.py 'import sys
print(sys.argv[1:])'
run "$f" -- a "b c" --flag
check "args after -- reach sys.argv" eval "status_is 0 && stdout_is \"['a', 'b c', '--flag']
\""

snippet env.py 'import os
print(os.environ.get("FOO"))
print(os.environ.get("SANDPAD_SECRET"))'
export SANDPAD_SECRET=hunter2
run --env FOO=bar "$f"
unset SANDPAD_SECRET
check "--env FOO=bar reaches os.environ" eval 'status_is 0 && [ "$(sed -n 1p "$T/out")" = bar ]'
check "the caller's own SANDPAD_SECRET does not reach the program" \
  eval '[ "$(sed -n 2p "$T/out")" = None ]'

# --- --json ----------------------------------------------------------------

run --json "$T/hello.py"
check "--json: exit 0" status_is 0
check "--json: every line is a JSON object" \
  eval '[ -s "$T/out" ] && "$PY" -c "import json,sys; [json.loads(l) for l in sys.stdin]" <"$T/out"'
check "--json: first event is queued" \
  "$PY" -c 'import json,sys; e=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(e[0]["type"] != "queued")' "$T/out"
check "--json: last event is exited with exit_code 0" \
  "$PY" -c 'import json,sys; e=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(not (e[-1]["type"] == "exited" and e[-1]["exit_code"] == 0))' "$T/out"
# The program's writes may arrive in more than one output event.
check "--json: the stdout output events carry hello" \
  "$PY" -c 'import json,sys; e=[json.loads(l) for l in open(sys.argv[1])]; sys.exit("".join(x["data"] for x in e if x["type"] == "output" and x["stream"] == "stdout") != "hello\n")' "$T/out"

# --- --cwd -----------------------------------------------------------------

mkdir "$T/work"
chmod 777 "$T/work"
snippet write.py 'open("out.txt", "w").write("made here\n")'
run --json --cwd "$T/work" "$f"
check "--cwd: the file the snippet wrote is left in DIR" \
  eval 'status_is 0 && [ "$(cat "$T/work/out.txt" 2>/dev/null)" = "made here" ]'
check "--cwd --json: exited lists out.txt as text/plain, created" \
  "$PY" -c '
import json, sys
e = [json.loads(l) for l in open(sys.argv[1])][-1]
files = [f for f in e.get("files", []) if f["path"] == "out.txt"]
sys.exit(not (e["type"] == "exited" and len(files) == 1
              and files[0]["mime"] == "text/plain" and files[0]["created"] is True))' "$T/out"

# --- entry cap -------------------------------------------------------------

snippet many.py 'import os, time
for i in range(300):
    os.mkdir(f"d{i}")
time.sleep(2)'
run --disk-files 100 "$f"
check "--disk-files 100: 300 directories stop the run with the disk limit" \
  eval 'status_is 137 && stderr_has "sandpad: disk limit of 256 MiB or 100 entries exceeded"'

# --- the program's error --------------------------------------------------

snippet fails.py 'def f(x):
    return 1 / x

print(f(0))'
run --json "$f"
check "--json: exited carries the program's error, its line the one in f" \
  "$PY" -c '
import json, sys
e = [json.loads(l) for l in open(sys.argv[1])][-1]
pe = e.get("program_error") or {}
sys.exit(not (e["type"] == "exited" and e.get("exit_code") == 1
              and pe.get("type") == "ZeroDivisionError" and pe.get("line") == 2
              and [f["line"] for f in pe.get("frames", [])] == [4, 2]))' "$T/out"

# --- images inline (--base64) ---------------------------------------------

snippet png.py 'import struct, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00\xff")) + chunk(b"IEND", b""))
open("dot.png", "wb").write(png)
open("dot.b64", "w").write(__import__("base64").b64encode(png).decode())'
run --json --base64 "$f"
check "--json --base64: the image in exited carries its bytes, and only the image" \
  "$PY" -c '
import json, sys
e = [json.loads(l) for l in open(sys.argv[1])][-1]
files = {f["path"]: f for f in e.get("files", [])}
png = files.get("dot.png", {})
sys.exit(not (e["type"] == "exited" and png.get("mime") == "image/png"
              and png.get("base64", "").startswith("iVBORw0KGgo")
              and "base64" not in files.get("dot.b64", {"base64": 1})))' "$T/out"
run --base64 "$f"
check "--base64 without --json is refused" eval 'status_is 125 && stderr_has "--base64 needs --json"'

# --- unicode ---------------------------------------------------------------

snippet uni.py 'print("héllo ✓")'
run "$f"
check "unicode output passes through byte-exact" \
  eval 'status_is 0 && cmp -s "$T/out" <(printf "h\303\251llo \342\234\223\n")'

# ---------------------------------------------------------------------------

if [ "$n" -ne "$plan" ]; then
  echo "# planned $plan tests but ran $n"
  exit 1
fi
[ "$failed" -eq 0 ] || exit 1
exit 0
