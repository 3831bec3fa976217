#!/usr/bin/env bash
# bench/compiled.sh: the compiled languages (issue 27) through sandpad-run,
# as ratios against the toolchain run bare (compile + run, no sandbox).
#
#   bench/compiled.sh [BUILD-DIR]     (default _build)
#
# Per language: "first" is a run whose compile is not cached (a fresh
# cache directory each time), "cached" the same snippet again; both are
# divided by the bare toolchain's compile-and-run of the same snippet.
# Needs hyperfine; a language whose toolchain is missing is skipped.
set -euo pipefail
build=${1:-_build}
run="$PWD/$build/src/runner/sandpad-run"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/main.c" <<'SRC'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
SRC
cat > "$work/main.cpp" <<'SRC'
#include <iostream>
int main() { std::cout << "hello" << std::endl; }
SRC
cat > "$work/main.rs" <<'SRC'
fn main() { println!("hello"); }
SRC
cat > "$work/main.go" <<'SRC'
package main

import "fmt"

func main() { fmt.Println("hello") }
SRC
cat > "$work/main.ts" <<'SRC'
const s: string = "hello";
console.log(s);
SRC

declare -A bare=(
  [c]="gcc -O2 -o $work/bin-c $work/main.c && $work/bin-c"
  [cpp]="g++ -O2 -o $work/bin-cpp $work/main.cpp && $work/bin-cpp"
  [rs]="rustc -C opt-level=1 -o $work/bin-rs $work/main.rs && $work/bin-rs"
  [go]="GOCACHE=$work/gocache-\$RANDOM go build -o $work/bin-go $work/main.go && $work/bin-go"
  [ts]="esbuild $work/main.ts --outfile=$work/out.js --log-level=warning && node $work/out.js"
)
declare -A tool=([c]=/usr/bin/gcc [cpp]=/usr/bin/g++ [rs]=/usr/bin/rustc [go]=/usr/bin/go
  [ts]=/usr/bin/esbuild)

printf '%-4s %10s %10s %10s %8s %8s\n' lang bare_ms first_ms cached_ms first/x cached/x
for ext in c cpp rs go ts; do
  if [ ! -x "${tool[$ext]}" ]; then
    echo "$ext: ${tool[$ext]} missing, skipped"
    continue
  fi
  json="$work/$ext.json"
  runs=5
  [ "$ext" = go ] && runs=2
  hyperfine -S bash --warmup 1 --runs "$runs" --export-json "$json" \
    --prepare "rm -rf $work/cache-first" \
    "${bare[$ext]}" \
    "XDG_CACHE_HOME=$work/cache-first $run $work/main.$ext" \
    "XDG_CACHE_HOME=$work/cache-warm $run $work/main.$ext" >/dev/null 2>&1 || {
    echo "$ext: hyperfine failed"; continue; }
  python3 - "$json" "$ext" <<'PY'
import json, sys
r = [x["mean"] * 1000 for x in json.load(open(sys.argv[1]))["results"]]
print(f"{sys.argv[2]:<4} {r[0]:10.0f} {r[1]:10.0f} {r[2]:10.0f} {r[1]/r[0]:8.2f} {r[2]/r[0]:8.2f}")
PY
done
