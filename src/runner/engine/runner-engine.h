/* runner-engine.h: runs snippets and reports what happened.
 *
 * The engine is the runner's core, shared by the protocol server
 * (sandpad-runner) and the command line (sandpad-run). It queues runs,
 * starts up to max_concurrent of them, streams their output, enforces
 * their limits, and reports every step as protocol messages through a
 * sink. It never blocks on one run: everything goes through one epoll
 * loop, and exits are noticed through the run init's status pipe and
 * SIGCHLD, never by waiting for output pipes to close. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner-config.h"
#include "runner-input-files.h"
#include "runner-langs.h"
#include "runner-loop.h"
#include "runner-sandbox.h"

typedef struct RunnerEngine RunnerEngine;

RunnerEngine *runner_engine_new (const RunnerConfig *config, RunnerLanguages *langs,
                                 const RunnerSink *sink, void *sink_data);
void runner_engine_free (RunnerEngine *engine);

RunnerLoop *runner_engine_get_loop (RunnerEngine *engine);

/* A client said hello: makes the warm pool, unless warm runs are off, and
 * starts its parent for the default policy. Before that there is no pool
 * (a batch of requests from a file runs cold). */
void runner_engine_prewarm (RunnerEngine *engine);

/* Fills the ready event (languages, limits, sandbox) for a hello. */
void runner_engine_describe (RunnerEngine *engine, SpReady *ready);

/* Takes the request (its fields are moved out and *run zeroed). On
 * rejection returns -1 with *err set and emits nothing. */
int runner_engine_submit (RunnerEngine *engine, SpRun *run, SpProtoError *err);

/* What only the runner's own front ends may ask of a run, never a
 * request: runner-install.c's steps. */
typedef struct
{
  bool environment_writable;          /* the environment is bound read-write */
  char *const *read_only_dirs;        /* canonical host directories this run may
                                       * read, added to the config's; copied */
  const char *cwd;                    /* a directory the runner made for this run
                                       * (owned by the run's uid): its cwd, outside
                                       * the path policy; NULL: as the request says */
  const char *isolated_python;        /* a system interpreter (a checked venv's
                                       * base) to run instead of the language's,
                                       * in isolated mode (-I: no PYTHON* variables,
                                       * no user site, not the script's directory
                                       * on sys.path) and always cold; NULL: none */
  bool cwd_at_host_path;              /* a named cwd (sandpad-mcp's workspace) is
                                       * shown at its own path too in namespace
                                       * mode, and the program starts there, for
                                       * commands that name it by that path;
                                       * where runner_sandbox_host_path_ok says
                                       * no, at /work only */
  const char *cwd_root;               /* a directory (an assistant's workspace)
                                       * that holds the request's cwd: the run gets
                                       * it whole (at /work, its host path, its
                                       * disk accounting) and the program starts
                                       * in the cwd beneath it; checked like a cwd,
                                       * the cwd resolved beneath its fd. NULL: the
                                       * cwd alone */
  const RunnerInputFile *input_files; /* written into the run's working
                                       * directory (a cold run's own, or
                                       * its session's) as it starts,
                                       * before the file snapshot
                                       * (runner-input-files.h); copied */
  size_t n_input_files;
} RunnerRunOptions;

int runner_engine_submit_with (RunnerEngine *engine, SpRun *run, const RunnerRunOptions *options,
                               SpProtoError *err);
int runner_engine_cancel (RunnerEngine *engine, const char *id, SpProtoError *err);
int runner_engine_stdin (RunnerEngine *engine, const char *id, const char *data, size_t len,
                         bool eof, SpProtoError *err);
int runner_engine_release (RunnerEngine *engine, const char *id, SpProtoError *err);

/* The requests about a run or a session that every front end answers the
 * same way (cancel, stdin, release, session close and restart; any other
 * type is refused as not a request), for the run the engine calls id:
 * a front end that names runs its own way maps the id first. hello and
 * run are each front end's own. */
int runner_engine_request (RunnerEngine *engine, const SpMessage *msg, const char *id,
                           SpProtoError *err);

/* Cancels everything at once (kill, no grace): the client is gone. */
void runner_engine_kill_all (RunnerEngine *engine);

/* Stops (or resumes) reading program output, so a client that reads
 * slowly slows the programs down instead of growing our buffers. */
void runner_engine_throttle (RunnerEngine *engine, bool throttled);

/* The engine's own run that builds matplotlib's font list for later runs
 * (runner-font-cache.h) is wanted or under way: a one-shot front end
 * waits for it before it exits, or the next one-shot run would build it
 * again. */
bool runner_engine_font_building (RunnerEngine *engine);

/* Runs queued or running (not yet exited). */
int runner_engine_active (RunnerEngine *engine);

/* One loop iteration, waiting at most max_wait_ms (-1: until something
 * happens); returns -1 if the loop failed. */
int runner_engine_iterate (RunnerEngine *engine, int max_wait_ms);

/* What the rooms above the engine (packages/, resident/) may know of it,
 * instead of its struct. */
/* The engine's configuration (limits, the path policy it was given). */
RunnerConfig *runner_engine_config (RunnerEngine *engine);
/* A new directory's path under the engine's root, PREFIX-N with N never
 * used before by this engine; the caller makes it. */
char *runner_engine_new_dir_path (RunnerEngine *engine, const char *prefix);
/* Whether the run with this id has finished, or is not known. */
bool runner_engine_run_ended (RunnerEngine *engine, const char *id);
/* The names of the live sessions, NULL-terminated (sp_strv_free). */
char **runner_engine_session_names (RunnerEngine *engine);
/* Whether any session is alive. */
bool runner_engine_has_sessions (RunnerEngine *engine);
/* The uid runs run as (nobody, or ours where we cannot switch). */
uid_t runner_engine_run_uid (void);

/* Milliseconds since the engine started: the clock of t_ms fields. */
int64_t runner_engine_clock_ms (RunnerEngine *engine);
/* The wall-clock time (CLOCK_REALTIME, ns) of the clock's origin, to put
 * file modification times on the runner's clock. */
int64_t runner_engine_clock_origin_realtime_ns (RunnerEngine *engine);
