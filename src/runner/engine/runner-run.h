/* runner-run.h: a run as the engine sees it. The engine queues runs, finds
 * them by id, starts them and passes requests on; what a run is made of
 * (RunnerRun, runner-run-private.h) is for the files that own a run, and
 * the engine reaches it only through these. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner-host.h"
#include "runner-input-files.h"
#include "runner-langs.h"
#include "runner-run-state.h"
#include "runner-venv.h"
#include "sp-proto.h"

/* What a run is made with besides its request: what the engine's checks
 * found, and what only the runner's own front ends may ask for
 * (RunnerRunOptions). */
typedef struct
{
  uint64_t seq;
  const RunnerLanguage *lang;
  RunnerSession *session; /* the session a validated request names, or NULL */
  RunnerEnv env;          /* the checked environment, taken; env.dir NULL: none */
  bool env_writable;
  char *const *read_only_dirs; /* copied */
  const char *isolated_python; /* copied */
  bool cwd_at_host_path;
  const char *trusted_cwd; /* the runner made it: the cwd when the request names none */
  const char *cwd_sub;     /* copied: where the program starts beneath the
                            * request's cwd (RunnerRunOptions.cwd_root),
                            * canonical; NULL: the cwd itself */
  /* The engine's own run that builds matplotlib's font list
   * (runner-font-cache.h) for this key, copied; NULL: a client's run. */
  const char *font_build_key;
  /* RunnerRunOptions' input files, copied: written as the run starts. */
  const RunnerInputFile *input_files;
  size_t n_input_files;
} RunnerRunSetup;

/* A queued run; takes the request's fields (*req is zeroed). */
RunnerRun *_runner_run_new (RunnerHost *host, SpRun *req, const RunnerRunSetup *setup);
void _runner_run_free (RunnerRun *run);

const char *_runner_run_id (const RunnerRun *run);
RunState _runner_run_state (const RunnerRun *run);
RunnerSession *_runner_run_session (const RunnerRun *run);
/* The engine's own run that builds the font list: it takes no slot and
 * no client sees it. */
bool _runner_run_font_build (const RunnerRun *run);
/* The engine's list of runs is linked through this. */
RunnerRun **_runner_run_next_link (RunnerRun *run);

/* Starts a queued run (the engine counted its slot). A failure is
 * reported as its exited event; then -1. */
int _runner_run_start (RunnerRun *run);
/* cancel: a queued run ends at once; a running one is interrupted, then
 * terminated and killed after the grace (a second cancel skips ahead). */
void _runner_run_cancel (RunnerRun *run);
/* Kills a running run at once (the client is gone). */
void _runner_run_kill (RunnerRun *run);
/* stdin for the run: written as the program reads it, or kept for when a
 * queued run starts; -1 with *err set when its stdin is closed or too
 * much is unread. */
int _runner_run_stdin (RunnerRun *run, const char *data, size_t len, bool eof, SpProtoError *err);
void _runner_run_set_throttled (RunnerRun *run, bool throttled);

/* pid was reaped: true when it was this run's own init (not a warm
 * spare's supervisor, which is not our child). */
bool _runner_run_reaped (RunnerRun *run, pid_t pid);
/* The earliest of a running run's timers (CLOCK_MONOTONIC ns), 0: none. */
int64_t _runner_run_next_deadline (RunnerRun *run);
void _runner_run_check_timers (RunnerRun *run, int64_t now);
/* The supervisor of a warm run (a spare of the pool that is busy), or -1. */
pid_t _runner_run_warm_pid (const RunnerRun *run);
