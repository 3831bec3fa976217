#!/usr/bin/env bash
# build-aux/dev.sh: the two Quick start commands of the README.
#
#   build-aux/dev.sh run    install what is missing, build what running needs (not the
#                           tests), start the app with a sample snippet
#   build-aux/dev.sh test   install what is missing (apt, and npm ci for the MCP
#                           tests' client), build, run every test (plain build,
#                           then a sanitizer build of protocol, runner and
#                           sandpad-mcp's wire, then the protocol fuzzers for a
#                           short fixed time; as root, then build-aux/trixie.sh: the
#                           same build and suites again in a cached Debian 13 root),
#                           and print "N passed, N failed, N skipped" over both
#
# Works on a fresh Debian 12 as root, or as a user with sudo (only apt-get
# runs through sudo). Build directories: _build, _build-asan and
# _build-fuzz (clang, -Dfuzzing=true: only the fuzzers are compiled there).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

# Debian 12 package names. Keep this list the one place dependencies live:
# build-aux/trixie.sh installs the same list in its Debian 13 root, renaming
# or dropping there the few names trixie does not have.
build_deps=(meson ninja-build pkg-config gcc libc6-dev libjansson-dev libseccomp-dev
  libglib2.0-dev libglib2.0-bin gettext libgtk-4-dev libadwaita-1-dev libgtksourceview-5-dev)
# The compiled languages and Ruby (issue 27), R and Java (issue 42): Debian's
# toolchains, never a rustup or a Go under a home, which the runs' user
# could not reach.
run_deps=(python3 python3-numpy python3-matplotlib python3-pandas python3-venv nodejs bash coreutils
  gcc g++ libc6-dev rustc golang-go esbuild ruby r-base-core default-jdk-headless)
test_deps=(hyperfine desktop-file-utils appstream librsvg2-bin xvfb xauth dbus bubblewrap util-linux
  fonts-dejavu-core libxtst-dev clang-14 libclang-rt-14-dev clang-format-14 passwd acl
  python3-pip python3-setuptools python3-wheel debootstrap)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "dev.sh: need root (or sudo) to install: ${*: -1}" >&2
    exit 1
  fi
}

install_deps() {
  local missing=()
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}" >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}"
}

# The MCP tests' client, the official TypeScript SDK, pinned by
# tests/mcp/package-lock.json. Debian's nodejs may ship npm separately.
install_npm_deps() {
  command -v npm >/dev/null 2>&1 || install_deps npm
  (cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)
}

build() {
  local dir=$1
  shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@"
  fi
  meson compile -C "$dir"
}

# What `run` needs, and only that: the app, every program it starts (the
# runner with its warm helpers, sandpad-run for installs, sandpad-mcp, the
# image decoder) and the schema. Not the tests and fuzzers: a newcomer's
# first window comes without compiling all ~260 targets.
run_targets=(src/app/sandpad src/runner/sandpad-runner src/runner/sandpad-warm-init
  src/runner/sandpad-warm src/runner/sandpad-run src/mcp/sandpad-mcp
  src/imagedecode/sandpad-imagedecode data/gsettings-compile-data)

build_for_run() {
  local dir=$1
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir"
  fi
  meson compile -C "$dir" "${run_targets[@]}"
}

# The desktop case: as root, the runner and escape suites run again as an
# ordinary account, so the runner runs as that user's uid (a real account
# with a home, not nobody) as on a desktop. Created here when missing.
desktop_user=sandpad-ci

ensure_desktop_user() {
  if ! id -u "$desktop_user" >/dev/null 2>&1; then
    echo "dev.sh: creating the account $desktop_user for the desktop-case tests" >&2
    useradd --create-home --shell /bin/bash --comment "Sandpad CI, the desktop case" "$desktop_user"
  fi
  # It must reach the tree it tests: where a directory above the tree bars
  # it (a clone under /root), give this account alone search permission.
  local dir=""
  local part
  IFS=/ read -ra parts <<<"${top#/}"
  for part in "${parts[@]}"; do
    dir="$dir/$part"
    if ! runuser -u "$desktop_user" -- test -x "$dir"; then
      echo "dev.sh: letting $desktop_user pass through $dir (ACL u:$desktop_user:x)" >&2
      setfacl -m "u:$desktop_user:x" "$dir"
    fi
  done
}

# The libFuzzer harnesses need clang; the rest of the project is built by
# gcc in _build, so only the fuzz targets are compiled here.
build_fuzzers() {
  local dir=$1
  if [ ! -f "$dir/build.ninja" ]; then
    CC=clang-14 meson setup "$dir" -Dfuzzing=true
  fi
  meson compile -C "$dir" tests/fuzz/fuzz-decode tests/fuzz/fuzz-frame tests/fuzz/fuzz-utf8 \
    tests/fuzz/fuzz-error tests/fuzz/fuzz-journal tests/fuzz/fuzz-table tests/fuzz/fuzz-plan
}

# The run's budget: each stage's wall time, one "SECONDS<TAB>NAME" line in
# $stages_file, printed at the end by build-aux/test-report.py beside the
# ten slowest tests and the count.
stages_file=""

# Runs COMMAND... as the stage NAME and records its wall time. Returns
# COMMAND's status (a build stage's caller lets set -e stop the run).
stage() {
  local name=$1 start=$SECONDS rc=0
  shift
  echo "dev.sh: stage: $name" >&2
  "$@" || rc=$?
  printf '%s\t%s\n' "$((SECONDS - start))" "$name" >>"$stages_file"
  echo "dev.sh: stage done: $name, $((SECONDS - start)) s" >&2
  return $rc
}

cmd_run() {
  install_deps "${build_deps[@]}" "${run_deps[@]}"
  build_for_run _build
  if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    # No desktop session (a server, a container): show the sample running
    # in the same sandbox from the command line instead of failing.
    echo "dev.sh: no display; running examples/hello.py through sandpad-run" >&2
    exec _build/src/runner/sandpad-run examples/hello.py
  fi
  echo "dev.sh: starting Sandpad (uninstalled) with examples/hello.py" >&2
  # Uninstalled: the schema comes from the build tree; the app finds the
  # runner there by itself.
  GSETTINGS_SCHEMA_DIR="$top/_build/data" exec _build/src/app/sandpad examples/hello.py
}

# Builds the three build directories: plain, sanitizer, fuzzers.
build_all() {
  build _build
  build _build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
  build_fuzzers _build-fuzz
}

# Runs the tests of STAGE (build-aux/test-stages.sh says which and why) in
# BUILDDIR with meson's log named LOGBASE, and meson's other OPTIONS.
run_stage_tests() {
  local stage=$1 dir=$2 logbase=$3
  shift 3
  local names
  mapfile -t names < <(stage_tests "$stage" "$dir")
  if [ ${#names[@]} -eq 0 ]; then
    echo "dev.sh: no tests listed for the stage $stage" >&2
    return 1
  fi
  meson test -C "$dir" --no-rebuild --logbase "$logbase" --print-errorlogs "$@" "${names[@]}"
}

cmd_test() {
  local run_start=$SECONDS
  stages_file=$(mktemp)
  # shellcheck source=build-aux/test-stages.sh
  . "$top/build-aux/test-stages.sh"

  stage "packages (apt)" install_deps "${build_deps[@]}" "${run_deps[@]}" "${test_deps[@]}"
  stage "the MCP tests' client (npm ci)" install_npm_deps

  # The Debian 13 root (debootstrap, apt in the root) is made beside the
  # builds and the first suites: it waits mostly on the archive and on
  # dpkg, and on a new machine it is ~5 minutes that would otherwise
  # stand alone. Its log says why if it could not be made; the stage
  # below then reports its tests as skipped.
  local root_pid="" root_log
  root_log=$(mktemp)
  if [ "$(id -u)" -eq 0 ]; then
    build-aux/trixie.sh root "${build_deps[@]}" "${run_deps[@]}" "${test_deps[@]}" \
      >"$root_log" 2>&1 &
    root_pid=$!
  fi

  # Made before the first suite, not the desktop-user stage: the Debian 12
  # suite's tests that run something as this account (test-daemon's other
  # uid) must reach the tree too, a clone under a 0700 folder included.
  if [ "$(id -u)" -eq 0 ]; then
    ensure_desktop_user
  fi

  stage "builds (plain, ASan + UBSan, fuzzers)" build_all

  local status=0
  stage "Debian 12: every suite" meson test -C _build --no-rebuild --print-errorlogs || status=1
  local logs=(debian-12=_build/meson-logs/testlog.json)

  # The sanitizer build covers the plain-C parts, where memory errors live.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    stage "ASan + UBSan: our C's paths" run_stage_tests asan _build-asan testlog || status=1
  logs+=(asan=_build-asan/meson-logs/testlog.json)

  if [ "$(id -u)" -eq 0 ]; then
    # The desktop case, against the same build: the runner as an ordinary
    # account with a home (test-stages.sh lists what the uid changes).
    local as_user="'$top/build-aux/as-desktop-user' $desktop_user"
    stage "as the desktop user ($desktop_user)" \
      run_stage_tests user _build user --wrapper "$as_user" || status=1
    # meson names a wrapped run's log after the wrapper.
    logs+=(desktop-user=_build/meson-logs/user-as-desktop-user.json)
  fi

  # Each fuzzer for fuzz_seconds (20 s): seeds, past findings, then new inputs.
  stage "fuzzers (20 s each)" meson test -C _build-fuzz --no-rebuild --suite fuzz --print-errorlogs \
    || status=1
  logs+=(fuzz=_build-fuzz/meson-logs/testlog.json)

  # The second platform: Debian 13 (GTK 4.18, libadwaita 1.7, Python 3.13,
  # numpy 2) in a root cached under /var/cache/sandpad-ci. Its log holds its
  # tests as run, or each as skipped with the reason when the root cannot
  # be made (no archive, not root); a missing log counts as a failure.
  if [ -n "$root_pid" ]; then
    stage "Debian 13 root (waited for; made beside the stages above)" wait "$root_pid" || true
    sed 's/^/  /' "$root_log" >&2
  fi
  stage "Debian 13: what the platform changes" \
    build-aux/trixie.sh test "${build_deps[@]}" "${run_deps[@]}" "${test_deps[@]}" || status=1
  logs+=(debian-13=_build-trixie/meson-logs/testlog.json)

  printf '%s\t%s\n' "$((SECONDS - run_start))" "total" >>"$stages_file"
  /usr/bin/python3 build-aux/test-report.py "$stages_file" "${logs[@]}" || status=1
  rm -f "$stages_file" "$root_log"
  return $status
}

case "${1:-}" in
  run) cmd_run ;;
  test) cmd_test ;;
  *)
    echo "usage: build-aux/dev.sh run|test" >&2
    exit 2
    ;;
esac
