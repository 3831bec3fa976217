/* runner-session.h: persistent sessions, one long-lived sandboxed
 * interpreter that runs snippet after snippet and keeps its state.
 *
 * A session is started by the first run that names it, through the same
 * runner_spawn() as any run (namespaces, private root, rlimits, caps,
 * no_new_privs, Landlock, seccomp), running the session driver
 * (runner-session-driver.py) instead of a snippet. Each run then gets its
 * own stdin, stdout and stderr pipes, exactly as a cold run, and hands
 * them to the driver with the snippet over a private socket (the program's
 * fd 3); the driver answers when the snippet is done. The run's pipes end
 * when the driver puts them down, so output, limits and the exited event
 * are runner-run.c's as for any run, which reaches the session only
 * through the session launcher; this file owns the interpreter: its
 * directory, its process, its tree watch, the per-run time limit's
 * interrupt-then-kill, close, restart, the idle reaper and the cap. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner-host.h"
#include "runner-venv.h"

typedef struct RunnerSession RunnerSession;
typedef struct RunnerRun RunnerRun;

extern const char runner_session_driver[];
/* JavaScript sessions: a Python relay that takes each run's fds and keeps
 * one node, running the node driver, as its child. */
extern const char runner_session_node_relay[];
extern const char runner_session_node_driver[];

/* Checks a run request that names a session (language, fields a session
 * does not take, settings that must match the running interpreter's, the
 * cap on sessions); -1 with *err set when it is refused. */
int _runner_session_validate (RunnerHost *host, const SpRun *req, SpProtoError *err);
/* The request's environment (checked: env) against the one the session's
 * running interpreter started in; -1 with *err set when they differ. */
int _runner_session_check_environment (RunnerHost *host, const SpRun *req, const RunnerEnv *env,
                                       SpProtoError *err);
/* The session a validated request names, created when it has none. */
RunnerSession *_runner_session_get (RunnerHost *host, const SpRun *req);
/* A run of the session is executing (or its interpreter is being
 * stopped): the next one waits. */
bool _runner_session_busy (RunnerSession *session);

/* Its runs are started and stopped through _runner_launcher_session
 * (runner-launch.h). */
/* A run of a session ended; the session forgets it. */
void _runner_session_run_finished (RunnerRun *run);

/* The engine reaped pid; true when it was a session's. */
bool _runner_session_reaped (RunnerHost *host, pid_t pid);
void _runner_session_check_timers (RunnerHost *host, int64_t now);
int64_t _runner_session_next_deadline (RunnerHost *host);
/* Kills every session's interpreter and forgets them (the runner stops). */
void _runner_session_free_all (RunnerHost *host);
/* The ids of the sessions not closing (the resident runner lists them);
 * NULL-terminated, the caller frees it with sp_strv_free(). */
char **_runner_session_names (RunnerHost *host);
void _runner_session_kill_all (RunnerHost *host);

/* session_close and session_restart (runner_engine_request's). */
int _runner_session_end (RunnerHost *host, const char *id, bool restart, SpProtoError *err);
