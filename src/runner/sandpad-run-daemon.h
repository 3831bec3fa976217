/* sandpad-run-daemon.h: sandpad-run through the user's resident runner.
 *
 * The resident runner (`sandpad-runner --listen`, runner-listen.h) keeps
 * warm interpreters and named sessions between invocations. sandpad-run
 * connects to it, starting it when there is none (detached: a double
 * fork, setsid, no fd of ours), and hands it one run: the request as a
 * protocol frame, with the directories it names and the run's stdio as
 * fds (SCM_RIGHTS), so output bytes pass untouched and the runner uses
 * exactly the directories we opened. Whatever keeps the runner from
 * taking the run, the caller runs it cold instead, with the same result. */
#pragma once

#include <stdbool.h>

#include "sp-proto.h"

/* The run was not taken (nothing ran): run it cold. */
#define SANDPAD_DAEMON_UNREACHED (-1)

/* Whether the resident runner may be used at all: not with --no-daemon
 * or SANDPAD_NO_DAEMON set (to anything but "" or "0"). */
bool sandpad_daemon_enabled (bool no_daemon_option);

/* Runs req (its id "cli") through the resident runner. forward_stdin: our
 * stdin goes to the program as it comes. Returns 0 with *result set (its
 * error malloc'd) once the run exited; SANDPAD_DAEMON_UNREACHED when it
 * was not taken; 125 after saying why the runner failed mid-run. */
int sandpad_daemon_run (const SpRun *req, bool json, bool forward_stdin, SpExited *result);

/* A display event as a terminal shows it: its text/plain, on stdout. */
void sandpad_show_display (const SpDisplay *display);
/* An output_omitted event as a terminal shows it: a note on stderr, with
 * where the whole stream is (cwd: the run's --cwd, where the file stays;
 * NULL: a private directory, removed with the run). */
void sandpad_show_omitted (const SpOutputOmitted *omitted, const char *cwd);

/* A connection to the resident runner, started if need be; -1 if none. */
int sandpad_daemon_connect (void);
/* Sends msg on sock (a connection to the resident runner), with fds when
 * n_fds > 0 (SCM_RIGHTS); 0, or -1. */
int sandpad_daemon_send (int sock, const SpMessage *msg, const int *fds, size_t n_fds);

/* --sessions and --close-session NAME: exit statuses. */
int sandpad_daemon_list_sessions (void);
int sandpad_daemon_close_session (const char *name);
