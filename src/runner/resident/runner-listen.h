/* runner-listen.h: the per-user resident runner (sandpad-runner --listen).
 *
 * One engine, and so one warm pool and one set of named sessions, serves
 * every client that connects to a Unix socket of the user's own: each
 * connection speaks the protocol (docs/protocol.md) with run ids of its
 * own, which the listener maps onto the engine's; a client that leaves
 * has its runs cancelled and released. Only a peer of our own uid is
 * served (SO_PEERCRED), and not one inside a sandbox (a seccomp filter):
 * a run must not reach a runner that would start runs for it. Names of
 * directories (cwd, environment) come with an fd of the directory the
 * client opened, so the runner never trusts a name more than the client
 * could. docs/security.md says what else it trusts. */
#pragma once

#include <stdint.h>

#include "runner-engine.h"

typedef struct
{
  const char *socket_path; /* NULL: runner_daemon_dir() and the default name */
  int64_t idle_exit_ms;    /* exit after this long with no client, run or session */
} RunnerListenOptions;

/* Serves until idle or a terminating signal; returns the exit status.
 * Another runner already listening on the socket is not an error: this
 * one exits 0 at once. The config's path lists are the listener's to
 * grow (fd-checked names are added to them). */
int runner_listen_run (RunnerConfig *config, RunnerLanguages *langs,
                       const RunnerListenOptions *options);
