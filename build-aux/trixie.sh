#!/usr/bin/env bash
# build-aux/trixie.sh: the Debian 13 (trixie) stage of `dev.sh test`.
#
#   build-aux/trixie.sh test PACKAGE...   make or reuse the trixie root with
#       PACKAGE... (Debian 12 names, dev.sh's one list; renamed or dropped
#       below where trixie differs), then build this tree inside it into
#       _build-trixie and run its suites there. Prints the meson test logs
#       to count, one per line, on fd 3; exits 0 when the root could not be
#       made (the caller reports that as skipped, with the reason printed).
#   build-aux/trixie.sh root PACKAGE...   only make or refresh the root.
#   build-aux/trixie.sh enter COMMAND...  run COMMAND inside the root (for a
#       person looking into a failure).
#
# Debian 12 gives GTK 4.8, libadwaita 1.2 and Python 3.11; trixie gives GTK
# 4.18, libadwaita 1.7, Python 3.13 and numpy 2, what most people who install
# Sandpad run. The root is made by debootstrap from Debian's archive and kept
# in /var/cache/sandpad-ci/trixie between runs; it is made again when missing
# or when its package list (or this script's way of making it) changes.
#
# The root is entered with a new mount namespace and pivot_root, never
# chroot: the kernel refuses CLONE_NEWUSER to a chrooted process, and the
# sandbox under test needs user namespaces. Needs root.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${SANDPAD_CI_CACHE:-/var/cache/sandpad-ci}
root=$cache/trixie
mirror=${SANDPAD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Bump when the way the root is made changes, so cached roots are remade.
root_format=1

log() { echo "trixie.sh: $*" >&2; }

# Why the root could not be made, for the skip line.
why=""

# Debian 12 names that trixie spells otherwise or does not need. The
# fuzzers (clang) run once, on the host; debootstrap makes this root; the
# format check is pinned to Debian 12's clang-format (it skips here).
trixie_name() {
  case $1 in
    clang-14 | libclang-rt-14-dev | clang-format-14 | debootstrap) ;;
    *) echo "$1" ;;
  esac
}

packages_for_trixie() {
  local pkg name
  for pkg in "$@"; do
    name=$(trixie_name "$pkg")
    # An if, not [ ] &&: a dropped last name would end the loop with 1.
    if [ -n "$name" ]; then echo "$name"; fi
  done | sort -u
}

# The cache key: what the root holds and how it was made.
root_key() {
  { echo "format $root_format"; echo "mirror $mirror"; packages_for_trixie "$@"; } \
    | sha256sum | cut -d' ' -f1
}

# Runs COMMAND... with DIR as / in a new mount (and pid) namespace, entered
# by pivot_root. The host's old root is detached before COMMAND starts, so
# the only proc and sysfs left are the ones mounted for the root, fully
# visible, as the sandbox's own proc mount requires.
in_root() {
  local dir=$1
  shift
  unshare --mount --propagation private --pid --fork -- /bin/sh -eu -c '
    dir=$1 top=$2
    shift 2
    mount --rbind "$dir" "$dir"
    mount -t proc proc "$dir/proc"
    mount --rbind /sys "$dir/sys"
    mount --rbind /dev "$dir/dev"
    mount -t tmpfs -o mode=1777 tmpfs "$dir/tmp"
    mount -t tmpfs -o mode=755 tmpfs "$dir/run"
    if [ -e /etc/resolv.conf ]; then
      touch "$dir/etc/resolv.conf" 2>/dev/null || true
      mount --bind "$(readlink -f /etc/resolv.conf)" "$dir/etc/resolv.conf" || true
    fi
    # The tree under test, at the same path, so logs and paths read alike,
    # and reachable as on the host: each directory above it takes the
    # host'"'"'s mode and ACL (the escape suite runs parts as nobody).
    mkdir -p "$dir$top"
    path=""
    set -f
    IFS=/
    for part in ${top#/}; do
      path="$path/$part"
      chmod --reference="$path" "$dir$path"
      getfacl -n -p "$path" 2>/dev/null | setfacl --set-file=- "$dir$path" 2>/dev/null || true
    done
    unset IFS
    set +f
    mount --bind "$top" "$dir$top"
    mkdir -p "$dir/.oldroot"
    cd "$dir"
    pivot_root . .oldroot
    cd /
    export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    umount -l /.oldroot
    rmdir /.oldroot
    exec "$@"
  ' sh "$dir" "$top" "$@"
}

# Makes the root into $root.new and moves it into place only when whole, so
# an interrupted build never leaves a root that looks ready.
build_root() {
  local key=$1
  shift
  local new=$root.new
  local pkgs
  mapfile -t pkgs < <(packages_for_trixie "$@")
  rm -rf "$new"
  mkdir -p "$cache"
  log "debootstrap trixie from $mirror into $new (several minutes)"
  if ! debootstrap --variant=minbase --components=main trixie "$new" "$mirror" \
    >"$cache/debootstrap.log" 2>&1; then
    log "debootstrap failed; the last lines of $cache/debootstrap.log:"
    tail -n 15 "$cache/debootstrap.log" >&2
    why="debootstrap from $mirror failed: $(grep -m1 '^E:' "$cache/debootstrap.log" || tail -n 1 "$cache/debootstrap.log")"
    return 1
  fi
  log "installing ${#pkgs[@]} packages in the root"
  if ! in_root "$new" env DEBIAN_FRONTEND=noninteractive sh -eu -c '
      apt-get update -q
      apt-get install -y -q --no-install-recommends "$@"
      apt-get clean
    ' sh "${pkgs[@]}" >"$cache/apt.log" 2>&1; then
    log "installing packages failed; the last lines of $cache/apt.log:"
    tail -n 15 "$cache/apt.log" >&2
    why="installing packages in the root failed: $(grep -m1 '^E:' "$cache/apt.log" || tail -n 1 "$cache/apt.log")"
    return 1
  fi
  echo "$key" >"$new/.sandpad-ci-key"
  rm -rf "$root"
  mv "$new" "$root"
  log "root ready: $root"
}

# Makes sure a current root is in place; one builder at a time on a machine.
ensure_root() {
  local key
  key=$(root_key "$@")
  mkdir -p "$cache"
  exec 9>"$cache/trixie.lock"
  flock 9
  if [ -f "$root/.sandpad-ci-key" ] && [ "$(cat "$root/.sandpad-ci-key")" = "$key" ]; then
    log "reusing $root"
    return 0
  fi
  command -v debootstrap >/dev/null 2>&1 || {
    why="debootstrap is not installed"
    return 1
  }
  build_root "$key" "$@"
}

build=$top/_build-trixie
testlog=$build/meson-logs/testlog.json

# Inside the root: build with every warning an error (no warnings on the
# newer compiler and headers either), then the tests of the stage
# "debian-13": what the platform changes (build-aux/test-stages.sh says
# which and why). Everything else ran on the host, against the same kernel.
inside() {
  local key names
  cd "$top"
  key=$(cat /.sandpad-ci-key)
  # A build dir configured against another root (its compiler, its
  # headers) starts over.
  if [ -f "$build/build.ninja" ] && [ "$(cat "$build/.root-key" 2>/dev/null)" != "$key" ]; then
    rm -rf "$build"
  fi
  if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" -Dwerror=true
    echo "$key" >"$build/.root-key"
  fi
  local start=$SECONDS
  meson compile -C "$build"
  log "build: $((SECONDS - start)) s"
  . "$top/build-aux/test-stages.sh"
  mapfile -t names < <(stage_tests debian-13 "$build")
  [ ${#names[@]} -gt 0 ] || { log "no tests listed for the stage"; return 1; }
  meson test -C "$build" --no-rebuild --print-errorlogs "${names[@]}"
}

# The stage's tests as skipped, each with REASON, in meson's log format:
# the summary counts them as skipped, never as passed. Named from the
# host's build, which lists the same tests.
write_skipped() {
  local reason=$1
  mkdir -p "$(dirname "$testlog")"
  . "$top/build-aux/test-stages.sh"
  stage_tests debian-13 "$top/_build" \
    | /usr/bin/python3 -c '
import json, sys
reason = sys.argv[1]
for name in sys.stdin.read().splitlines():
    if not name.strip():
        continue
    print(json.dumps({"name": "debian-13 " + name, "result": "SKIP",
                      "stdout": "skipped: " + reason}))
' "$reason" >"$testlog"
  # Without a host build to name them, the stage still counts as one skip.
  if [ ! -s "$testlog" ]; then
    /usr/bin/python3 -c 'import json, sys; print(json.dumps({"name": "debian-13", "result": "SKIP", "stdout": "skipped: " + sys.argv[1]}))' \
      "$reason" >"$testlog"
  fi
  log "SKIP the Debian 13 stage ($(wc -l <"$testlog") tests): $reason"
}

# Host side: the root, then the build and tests inside it, as root with a
# clean environment (nothing of the host's PATH, pyenv or session).
cmd_test() {
  rm -f "$testlog"
  if [ "$(id -u)" -ne 0 ]; then
    write_skipped "making and entering the Debian 13 root needs root"
    return 0
  fi
  if ! ensure_root "$@"; then
    write_skipped "the Debian 13 root could not be made: $why"
    return 0
  fi
  local start=$SECONDS status=0
  log "building and testing in Debian 13 ($build)"
  in_root "$root" env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" CI="${CI:-}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    "$top/build-aux/trixie.sh" inside || status=1
  log "Debian 13 stage: $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
  return $status
}

case "${1:-}" in
  test)
    shift
    cmd_test "$@"
    ;;
  inside)
    inside
    ;;
  root)
    shift
    ensure_root "$@"
    ;;
  enter)
    shift
    in_root "$root" "${@:-/bin/bash}"
    ;;
  *)
    echo "usage: build-aux/trixie.sh root|test PACKAGE... | enter [COMMAND...]" >&2
    exit 2
    ;;
esac
