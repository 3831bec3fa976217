# build-aux/test-stages.sh: which tests each stage of `dev.sh test` runs
# again after the plain Debian 12 build has run them all. Sourced by
# dev.sh and trixie.sh; `stage_tests STAGE BUILDDIR` prints the names.
#
# Every test runs once, in the plain build on Debian 12. A later stage
# spends its minutes only where it can find what that first pass cannot:
#
# debian-13  what the platform changes: GTK 4.18 and libadwaita 1.7 (ui,
#            core), Python 3.13 and numpy 2 (results, warm, sessions, the
#            prelude, pip in installs), Node 20 (JavaScript runs, the MCP
#            client), gcc 14, rustc and esbuild (compiled; esbuild 0.25's
#            defaults differ from 0.17's, so its cache-poison case too),
#            glibc 2.41 and libseccomp 2.6 against our filters (the runner's basics and
#            the escape suite in both modes and Flatpak's), the
#            validators of data/. Namespace mode for what is not about
#            the filters: the kernel is the host's, so what depends on it
#            alone (cgroups, memory, the path races, the resident
#            runner's socket) already ran against it.
# asan       our C under ASan + UBSan: the protocol's and the runner's
#            unit tests, the MCP wire, and the runs that drive the
#            runner's and sandpad-run's main paths (a run's life in both
#            modes, hostile output and names, sessions, warm, compile,
#            input, the resident runner).
# user       the runner as an ordinary account with a home (the desktop
#            case), where what differs from root is the uid: user
#            namespaces made without privilege, no cgroups to make (the
#            process, memory and pipe caps of that path), RLIMIT_NPROC
#            shared with the uid's other processes, the warm pool and
#            sessions as that uid, the resident runner's socket, and the
#            escape suite's app and Flatpak configurations.
#
# Patterns are extended regular expressions matched against whole test
# names; a slow-suite test (the soak, Go compiles) is never run again.

stage_patterns() {
  case $1 in
    debian-13)
      printf '%s\n' \
        'ui-.*' 'core-.*' 'data-.*' '[a-z-]*desktop.*' '.*metainfo.*' 'gschema.*' 'icons' 'ids' \
        'po-current' 'translation.*' 'flatpak-.*' \
        'message.*' 'frame' 'journal.*' 'fixtures' 'utf8' 'display-message' 'session-message' \
        'program-error' \
        'event' 'error-parse' 'sandbox-lib' 'seccomp-prebuilt' 'plan' 'plan-build' 'input-files' \
        'runner-(namespaces|fallback)-.*' 'sandbox-(control|namespaces|fallback|flatpak)' \
        'results-namespaces-.*' 'warm-namespaces-.*' 'session-namespaces-.*' \
        'input-wait-namespaces-.*' 'prelude-.*-namespaces' 'font-cache-namespaces' \
        'install-namespaces-.*' 'env-namespaces-.*' 'compiled-namespaces-(c|cpp|rust|typescript|ruby|r|java)' \
        'compiled-namespaces-typescript-poison' \
        'mcp-(handshake|python-run|plot|command|wire-c|jsonrpc)' 'mcp-session-.*namespaces' \
        'mcp-results-namespaces-.*' 'mcp-langs-namespaces-.*' 'mcp-code-execution-.*' \
        'mcp-install-namespaces' 'mcp-activity-.*'
      ;;
    asan)
      printf '%s\n' \
        'message.*' 'frame' 'journal.*' 'fixtures' 'utf8' 'display-message' 'session-message' \
        'program-error' \
        'event' 'error-parse' 'sandbox-lib' 'seccomp-prebuilt' 'plan' 'plan-build' 'input-files' \
        'cgroup-probe' 'mcp-wire-c' 'mcp-jsonrpc' \
        'runner-(namespaces|fallback)-.*' 'contract-(namespaces|fallback)-(hostile-.*|non-utf8-.*|cli-json-exited|file-input)' \
        'session-namespaces-.*' 'warm-(namespaces|fallback)-(same-results|limits|recycled)' \
        'compiled-namespaces-(c|build-swap)' 'input-wait-namespaces-(cold|warm|session)' \
        'results-namespaces-(lines|display-channel|table-form)' 'cli' 'cli-daemon' \
        'daemon-(table|sessions|two-clients|client-killed)' 'runner-namespaces-disk-.*'
      ;;
    user)
      printf '%s\n' \
        'runner-(namespaces|fallback)-.*' 'memory-(namespaces|fallback)-.*' \
        'forkbomb-(namespaces|fallback)-.*' 'policy-(namespaces|fallback|flatpak)-.*' \
        'session-fallback-.*' 'session-namespaces-(state-kept|isolation-.*|fds|memory)' \
        'warm-(namespaces|fallback)-(same-results|limits|parent-unreachable|parent-filtered|siblings-isolated|no-shared-writable-mappings|closed-folder|seats|memory-cap)' \
        'input-wait-(namespaces|fallback)-as-user' 'install-fallback-(wheelhouse|script-deps)' \
        'env-fallback-.*' 'daemon-.*' 'cli-daemon' 'prelude-shared-.*' \
        'sandbox-(app|flatpak)'
      ;;
    *)
      echo "test-stages.sh: no stage $1" >&2
      return 2
      ;;
  esac
}

# The names of BUILDDIR's tests that STAGE runs, one a line.
stage_tests() {
  local stage=$1 dir=$2 regex
  regex="^($(stage_patterns "$stage" | paste -sd'|'))$"
  meson test -C "$dir" --no-rebuild --no-suite slow --list 2>/dev/null \
    | sed -n 's|^[^ ]* / ||p' | grep -E "$regex"
}
