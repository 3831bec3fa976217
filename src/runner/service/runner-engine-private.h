/* runner-engine-private.h: the engine's state, shared by the service's
 * files (runner-engine.c: queue, dispatch, timers; installs, the resident
 * runner, environment checks). A run's own state is in
 * runner-run-private.h, for the files that own a run. */
#pragma once

#include <sys/types.h>

#include "runner-engine.h"
#include "runner-cgroup.h"
#include "runner-display.h"
#include "runner-compile-cache.h"
#include "runner-files.h"
#include "runner-input-wait.h"
#include "runner-launch.h"
#include "runner-session.h"
#include "runner-spawn.h"
#include "runner-base.h"
#include "runner-venv.h"
#include "runner-warm.h"

typedef struct RunnerRun RunnerRun;

struct RunnerEngine
{
  RunnerConfig config;
  RunnerLanguages *langs;
  RunnerSink sink;
  void *sink_data;
  RunnerLoop *loop;
  int signal_fd;
  RunnerWatch *signal_watch;
  char *root; /* the runner's private directory of run directories */
  RunnerSandboxCaps caps;
  RunnerCgroups cgroups; /* where each cold run gets cgroups of its own */
  /* Run inits still killing their tree when their run or session was
   * freed: reaped from SIGCHLD like any other, their cgroups removed then;
   * never waited for in the loop (a fork bomb's tree takes its time). */
  struct RunnerLeftover
  {
    pid_t pid;
    RunnerRunCgroup cgroup;
  } * leftovers;
  size_t n_leftovers;
  /* The config's read-only directories (sandpad-mcp's --context-path),
   * opened once when the engine starts (O_PATH, no symlink in any
   * component) and held: every run binds and grants only what these fds
   * are (their ids). One that cannot be opened is left out of every run. */
  char **ro_dirs;
  RunnerDirId *ro_ids;
  int *ro_fds;
  bool namespaces;                /* the mode every run gets */
  char *refusal;                  /* strict, and a layer is missing: why runs fail */
  RunnerSeccompFilter seccomp[2]; /* per run network setting; empty: none */
  RunnerRun *runs;
  uint64_t next_seq;
  int running;
  bool throttled;
  int64_t t0_ns;
  RunnerSession *sessions; /* runner-session.c */
  uint64_t next_session_seq;
  RunnerWarm *warm;                 /* the warm pool; NULL: every run is cold */
  RunnerCompileCache compile_cache; /* compiled snippets (runner-compile-cache.h) */
  /* matplotlib's font list (runner-font-cache.h): the build run is
   * submitted once per key the engine sees missing (font_key_tried), and
   * released by the engine once it has ended (font_build_ended). */
  char font_key_tried[65];
  char font_key_wanted[65]; /* asked for while starting the queue: submitted next */
  bool font_build_ended;
  bool font_build_submitting; /* the run being submitted is that build run */
  /* The key last made (stat calls, runner-font-cache.c), for whom and
   * when: a long-lived runner remakes it every RUNNER_FONT_KEY_TTL_NS. */
  char font_key[65];
  const RunnerLanguage *font_key_lang;
  int64_t font_key_ns;
};

/* runner-warm-run.c: the pool, when the config and this system allow it. */
RunnerWarm *_runner_engine_warm_new (RunnerEngine *engine);

/* runner-engine.c */
/* Opens into *fd, unless open already, the sock_diag socket for a run or
 * session without a memory cgroup whose supervisor is pid: in its network
 * namespace (namespace mode without network), else the runner's own.
 * 1: *fd is open; 0: not yet, the supervisor has not entered its
 * namespaces (so it runs nothing yet), ask again; -1: it cannot be had,
 * errno set (the run cannot be held to its memory: it is stopped). */
int _runner_engine_diag (RunnerEngine *engine, bool network, pid_t pid, int *fd);

void _runner_engine_sandbox_info (RunnerEngine *engine, bool network, RunnerMemoryLayer memory,
                                  SpSandboxInfo *info);
/* The filter for a run, or NULL when seccomp is unavailable here. */
const RunnerSeccompFilter *_runner_engine_seccomp (RunnerEngine *engine, bool network);
void _runner_engine_emit (RunnerEngine *engine, const SpMessage *msg);
/* runner-engine.c: a Python run found no font list under key (the
 * engine's python): submits the build run unless one is under way or was
 * made for this key already. Never from inside the queue's walk. */
void _runner_engine_font_build (RunnerEngine *engine, const char *key);
/* The font list's key for python now, made again at most every
 * RUNNER_FONT_KEY_TTL_NS. */
void _runner_engine_font_key (RunnerEngine *engine, const RunnerLanguage *python, char key[65]);
/* As root, chowns path to nobody, the uid the program runs as (runs and
 * sessions both); as a desktop user, does nothing. */
int _runner_give_to_run (const char *path);
/* A run ended: its slot and its session are free (before its exited is
 * emitted; _runner_engine_start_queued after). */
void _runner_engine_run_finished (RunnerEngine *engine, RunnerRun *run);
/* Starts queued runs while slots are free (a session's run waits while
 * its session is busy). */
void _runner_engine_start_queued (RunnerEngine *engine);
uid_t _runner_engine_run_uid (RunnerEngine *engine);

/* The directories every run may read, as the engine holds them: the
 * config's read_only_dirs, then its app_prefix (Flatpak's /app, where the
 * bundled Python packages are). NULL-terminated; sp_strv_free() it. */
char **_runner_engine_read_only_list (const RunnerConfig *config);
/* Whether the run with this id has ended (or is not the engine's any
 * more): an install waits for its steps so. */
bool _runner_engine_run_ended (RunnerEngine *engine, const char *id);
/* The policy's verdict on a cwd (see runner-policy.h), resolved. */
int _runner_engine_check_cwd (RunnerEngine *engine, const char *cwd, char **canonical, int *dir_fd,
                              SpProtoError *err);

/* runner-environment.c: checks req->environment (req->cwd already
 * canonical) for this engine; fills *env or returns -1 with err set. */
int _runner_engine_check_environment (RunnerEngine *engine, const SpRun *req, bool writable,
                                      RunnerEnv *env, SpProtoError *err);
