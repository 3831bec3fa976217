/* runner-server.h: the protocol side of sandpad-runner.
 *
 * Reads request frames from in_fd, hands them to the engine, and writes
 * every event as a frame to out_fd. Bad input of any kind is answered
 * with an error frame and the server goes on serving; it stops when the
 * client closes its end or a terminating signal arrives, and then kills
 * every run it still has. */
#pragma once

#include "runner-engine.h"

/* Returns the process exit status: 0 after a clean shutdown. */
int runner_server_run (const RunnerConfig *config, RunnerLanguages *langs, int in_fd, int out_fd);
