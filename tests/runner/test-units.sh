#!/usr/bin/env bash
# tests/runner/test-units.sh: the resident runner's systemd user units
# (issue 26) pass systemd-analyze verify (skipped without it), the service
# pointing at this build's runner and delegating its cgroup to it.
#
#   bash tests/runner/test-units.sh SOCKET-UNIT SERVICE-UNIT-FOR-TEST
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cp "$1" "$T/sandpad-runner.socket"
cp "$2" "$T/sandpad-runner.service"
echo "1..3"
if ! command -v systemd-analyze >/dev/null; then
  echo "ok 1 # SKIP no systemd-analyze on this machine"
elif out=$(cd "$T" && SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no \
           "$T/sandpad-runner.socket" "$T/sandpad-runner.service" 2>&1) && [ -z "$out" ]; then
  echo "ok 1 - sandpad-runner.socket and .service verify cleanly"
else
  echo "not ok 1 - systemd-analyze verify"
  printf '%s\n' "$out" | sed 's/^/#   /'
fi
if grep -q -- '--listen' "$T/sandpad-runner.service" \
   && grep -q '^ListenStream=%t/sandpad/runner.sock$' "$T/sandpad-runner.socket"; then
  echo "ok 2 - the service runs the runner with --listen on the socket sandpad-run looks for"
else
  echo "not ok 2 - units do not match sandpad-run's socket"
fi
if grep -q '^Delegate=yes$' "$T/sandpad-runner.service"; then
  echo "ok 3 - the service's cgroup is delegated to the runner (cgroup v2 per run)"
else
  echo "not ok 3 - the service does not delegate its cgroup (Delegate=yes)"
fi
