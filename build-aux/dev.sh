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
# The compiled languages and Ruby (issue 27): Debian's toolchains, never a
# rustup or a Go under a home, which the runs' user could not reach.
run_deps=(python3 python3-numpy python3-matplotlib python3-pandas python3-venv nodejs bash coreutils
  gcc g++ libc6-dev rustc golang-go esbuild ruby)
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
    tests/fuzz/fuzz-error tests/fuzz/fuzz-journal tests/fuzz/fuzz-table
}

# Counts meson's own test log (one JSON object per test) so the summary
# line reflects exactly what meson ran, skipped tests included as skipped.
summarize() {
  /usr/bin/python3 - "$@" <<'EOF'
import json, sys
passed = failed = skipped = 0
for log in sys.argv[1:]:
    try:
        lines = open(log).read().splitlines()
    except FileNotFoundError:
        failed += 1
        print(f"missing test log {log}", file=sys.stderr)
        continue
    for line in lines:
        if not line.strip():
            continue
        result = json.loads(line)["result"]
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
EOF
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

cmd_test() {
  install_deps "${build_deps[@]}" "${run_deps[@]}" "${test_deps[@]}"
  install_npm_deps
  build _build
  build _build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
  build_fuzzers _build-fuzz

  local status=0
  meson test -C _build --print-errorlogs || status=1
  # The sanitizer build covers the plain-C parts, where memory errors live.
  # The slow suite (the 2,000-run soak) runs once, in the plain build above.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson test -C _build-asan --suite protocol --suite runner --suite mcp-wire --no-suite slow \
    --print-errorlogs \
    || status=1

  local logs=(_build/meson-logs/testlog.json _build-asan/meson-logs/testlog.json)
  if [ "$(id -u)" -eq 0 ]; then
    # The desktop case, against the same build: every runner test, and the
    # escape suite in the two configurations users run (the app's: auto,
    # not strict; Flatpak's: a user namespace that cannot nest). The other
    # sandboxed modes already run as an ordinary uid (nobody) as root.
    ensure_desktop_user
    local as_user="'$top/build-aux/as-desktop-user' $desktop_user"
    meson test -C _build --no-rebuild --wrapper "$as_user" --logbase user-runner \
      --suite runner --no-suite slow --print-errorlogs || status=1
    meson test -C _build --no-rebuild --wrapper "$as_user" --logbase user-sandbox \
      sandbox-app sandbox-flatpak --print-errorlogs || status=1
    # meson names a wrapped run's log after the wrapper.
    logs+=(_build/meson-logs/user-runner-as-desktop-user.json
      _build/meson-logs/user-sandbox-as-desktop-user.json)
  fi

  # Each fuzzer for fuzz_seconds (20 s): seeds, past findings, then new inputs.
  meson test -C _build-fuzz --no-rebuild --suite fuzz --print-errorlogs || status=1

  # The second platform: Debian 13 (GTK 4.18, libadwaita 1.7, Python 3.13,
  # numpy 2) in a root cached under /var/cache/sandpad-ci. Its log holds its
  # tests as run, or each as skipped with the reason when the root cannot
  # be made (no archive, not root); a missing log counts as a failure.
  build-aux/trixie.sh test "${build_deps[@]}" "${run_deps[@]}" "${test_deps[@]}" || status=1
  logs+=(_build-trixie/meson-logs/testlog.json)

  summarize "${logs[@]}" _build-fuzz/meson-logs/testlog.json || status=1
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
