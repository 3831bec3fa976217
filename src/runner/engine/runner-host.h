/* runner-host.h: what the engine lends its runs and sessions.
 *
 * The engine (runner-engine.c) owns the runs and the sessions; they, the
 * plan builder and the three launchers (runner-launch.h) sit below it and
 * never include the engine's headers or call its functions. What they
 * need of it is here: the state they read (the config, the loop, the
 * sandbox mode and the kernel's layers, the held read-only directories,
 * the warm pool, the sink events go to) with the helpers over that state,
 * and a small table of the engine's own functions they call back
 * (RunnerHostOps: a run ended, start what is queued, take over an init
 * still killing its tree, the list of runs, matplotlib's font list). This file includes nothing
 * of the engine, runs or sessions, so dependencies point one way:
 * engine -> runs and sessions -> host (tests/runner/test-service-layers.py). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner-cgroup.h"
#include "runner-compile-cache.h"
#include "runner-font-cache.h"
#include "runner-config.h"
#include "runner-langs.h"
#include "runner-loop.h"
#include "runner-sandbox.h"
#include "runner-seccomp.h"
#include "runner-spawn.h"
#include "runner-warm.h"

typedef struct RunnerRun RunnerRun;
typedef struct RunnerSession RunnerSession;
typedef struct RunnerHost RunnerHost;

/* What holds a run's memory, for its "memory:" layer: the per-process
 * rlimit and the tree watch always; then a cgroup (v2 or v1), or the
 * watch counting its UNIX socket and pipe queues. */
typedef enum
{
  RUNNER_MEMORY_TREE,
  RUNNER_MEMORY_SOCKETS,
  RUNNER_MEMORY_CGROUP_V1,
  RUNNER_MEMORY_CGROUP_V2,
} RunnerMemoryLayer;

/* The engine's functions its runs and sessions call back, each given the
 * host's ops_data (the engine). */
typedef struct
{
  /* A run ended: its slot and its session are free (before its exited
   * is emitted; start_queued after). */
  void (*run_finished) (void *data, RunnerRun *run);
  /* Starts queued runs while slots are free (a session's run waits while
   * its session is busy). */
  void (*start_queued) (void *data);
  /* Takes over an init that has not exited yet (its control pipe closed,
   * so it is killing its tree) and its cgroups: reaped with the others. */
  void (*leave_init) (void *data, pid_t pid, RunnerRunCgroup *cgroup);
  /* The engine's runs (queued, running, or ended and not released yet),
   * linked by their next. */
  RunnerRun *(*runs) (void *data);
  /* matplotlib's font list (runner-font-cache.h): its key for python now,
   * made again at most every RUNNER_FONT_KEY_TTL_NS; and a Python run
   * found no list under key: the engine submits its build run unless one
   * is under way or was made for this key already (never from inside the
   * queue's walk: it is submitted after). */
  void (*font_key) (void *data, const RunnerLanguage *python, char key[65]);
  void (*font_build) (void *data, const char *key);
} RunnerHostOps;

struct RunnerHost
{
  RunnerConfig config;
  RunnerLanguages *langs;
  RunnerLoop *loop;
  RunnerSink sink;
  void *sink_data;
  char *root; /* the runner's private directory of run directories */
  /* Namespace mode: the prelude's files (bin/python, sitecustomize.py and
   * its .pyc), written once into root/prelude by the first run that needs
   * them and bound read-only into every run (runner-run.c's
   * write_prelude()); NULL until then, and always in fallback mode. */
  char *prelude_dir;
  RunnerSandboxCaps caps;
  RunnerCgroups cgroups; /* where each cold run gets cgroups of its own */
  /* The config's read-only directories (sandpad-mcp's --context-path),
   * opened once when the engine starts (O_PATH, no symlink in any
   * component; the engine holds the fds): every run binds and grants
   * only what these were (their ids). One that could not be opened is
   * left out of every run. */
  char **ro_dirs;
  RunnerDirId *ro_ids;
  bool namespaces;                /* the mode every run gets */
  char *refusal;                  /* strict, and a layer is missing: why runs fail */
  RunnerSeccompFilter seccomp[2]; /* per run network setting; empty: none */
  bool throttled;                 /* program output is not read (runner_engine_throttle) */
  int64_t t0_ns;                  /* the origin of t_ms fields */
  RunnerWarm *warm;               /* the warm pool; NULL: every run is cold */
  /* Warm runs were asked for but their helpers (sandpad-warm.so and
   * sandpad-warm-init) are neither beside the runner nor installed, or
   * cannot be read by this user: why every Python run is cold (its
   * cold_reason), a static string; NULL otherwise. */
  const char *warm_missing;
  RunnerCompileCache compile_cache; /* compiled snippets (runner-compile-cache.h) */
  RunnerFontMemo font_memo;         /* the font list last copied (runner-font-cache.h) */
  RunnerSession *sessions;          /* runner-session.c's list */
  uint64_t next_session_seq;
  const RunnerHostOps *ops;
  void *ops_data;
};

/* The engine's callbacks (RunnerHostOps). */
void _runner_host_run_finished (RunnerHost *host, RunnerRun *run);
void _runner_host_start_queued (RunnerHost *host);
void _runner_host_leave_init (RunnerHost *host, pid_t pid, RunnerRunCgroup *cgroup);
RunnerRun *_runner_host_runs (RunnerHost *host);
void _runner_host_font_key (RunnerHost *host, const RunnerLanguage *python, char key[65]);
void _runner_host_font_build (RunnerHost *host, const char *key);

/* An event to the sink; none about the font list's build run, which is
 * the engine's own (no client asked for it). */
void _runner_host_emit (RunnerHost *host, const SpMessage *msg);
/* Milliseconds since the engine started: the clock of t_ms fields. */
int64_t _runner_host_clock_ms (RunnerHost *host);
/* The wall-clock time (CLOCK_REALTIME, ns) of the clock's origin. */
int64_t _runner_host_clock_origin_realtime_ns (RunnerHost *host);

/* The filter for a run, or NULL when seccomp is unavailable here. */
const RunnerSeccompFilter *_runner_host_seccomp (RunnerHost *host, bool network);
/* The layers a run's plan waives on this host (RunnerSandboxLayer bits):
 * those it lacks. */
unsigned _runner_host_waived (RunnerHost *host, bool network);
/* What _runner_host_diag found. */
typedef enum
{
  RUNNER_DIAG_FAILED = -1, /* it cannot be had while the run lives, errno set:
                            * the run cannot be held to its memory (stopped) */
  RUNNER_DIAG_NOT_YET = 0, /* the supervisor has not entered its namespaces
                            * (so it runs nothing yet): ask again */
  RUNNER_DIAG_OPEN = 1,    /* *fd is open */
  RUNNER_DIAG_GONE = 2,    /* the supervisor has exited or is exiting: nothing
                            * of the run is left to count, and its end is on
                            * its way to the loop */
} RunnerDiag;

/* Opens into *fd, unless open already, the sock_diag socket for a run or
 * session without a memory cgroup whose supervisor is pid: in its network
 * namespace (namespace mode without network), else the runner's own.
 * pidfd is the supervisor's (a warm run's, not the runner's child), or -1
 * for the runner's own child not yet reaped (a cold run's, a session's),
 * whose number cannot name another process meanwhile. */
RunnerDiag _runner_host_diag (RunnerHost *host, bool network, pid_t pid, int pidfd, int *fd);
/* Whether that supervisor (pid, pidfd as above) has exited. In namespace
 * mode its exit ends pid 1 and the run's whole pid namespace with it. */
bool _runner_host_supervisor_exited (pid_t pid, int pidfd);
/* The layer of a run (or session) whose cgroups are these, where it has
 * them; otherwise the watch's, socket queues or not. */
RunnerMemoryLayer _runner_host_memory_layer (const RunnerRunCgroup *cgroup, bool diag);
void _runner_host_sandbox_info (RunnerHost *host, bool network, RunnerMemoryLayer memory,
                                SpSandboxInfo *info);
/* The cgroups of a launch (a run's own, or a session's interpreter's)
 * where the runner can have them, with its plan's limits (the host's
 * cgroups looked at again first: runner_cgroup_refresh); name is the
 * group's. 0 with fds (cgroup.procs) to pass on, or -1: none. */
int _runner_host_cgroup_create (RunnerHost *host, const char *name, const RunnerSandboxPlan *plan,
                                RunnerRunCgroup *cgroup, int fds[RUNNER_CGROUP_MAX_FDS]);
/* The uid the program runs as: nobody under a root runner, else ours. */
uid_t _runner_host_run_uid (void);
/* How many tasks the kernel counts against that uid's RLIMIT_NPROC now,
 * measured as that uid (runner-nproc.h) by a helper process that has
 * given up root; -1 if it cannot be told. */
int64_t _runner_host_run_uid_tasks (void);
/* As root, chowns path to nobody, the uid the program runs as (runs and
 * sessions both); as a desktop user, does nothing. */
int _runner_give_to_run (const char *path);
/* The policy's verdict on a cwd (see runner-policy.h), resolved. */
int _runner_host_check_cwd (RunnerHost *host, const char *cwd, char **canonical, int *dir_fd,
                            SpProtoError *err);
