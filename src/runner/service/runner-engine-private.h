/* runner-engine-private.h: state shared by runner-engine.c (queue,
 * dispatch, timers), runner-run.c (one run's directory, pipes and
 * result) and the launchers that start its program (runner-launch.h). */
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

typedef enum
{
  RUN_QUEUED,
  RUN_RUNNING,
  RUN_FINISHED,
} RunState;

typedef struct RunnerRun RunnerRun;

typedef struct
{
  int fd;
  RunnerWatch *watch;
  int64_t bytes;   /* everything the program wrote */
  bool truncated;  /* bytes beyond the output limit were dropped */
  bool eof;
  char carry[4];   /* an incomplete UTF-8 character held for the next read */
  size_t carry_len;
  Buf line;          /* a partial line not sent yet (runner-lines.c) */
  int64_t line_t_ms; /* when its first byte was read */
} RunStream;

/* runner-lines.c: a partial line waits at most this long, and this much. */
#define RUNNER_LINE_HOLD_NS (30 * INT64_C (1000000))
#define RUNNER_LINE_HOLD_MAX 4096

struct RunnerRun
{
  RunnerEngine *engine;
  RunnerRun *next;
  uint64_t seq;
  RunState state;
  SpRun req; /* owned; limits are resolved to concrete values */
  const RunnerLanguage *lang;

  char *dir;       /* private, removed on release: holds work/, code/, tmp/ */
  char *cwd;       /* dir/work, or the directory the request named */
  int cwd_fd;      /* O_PATH fd of that directory from its check on: the
                    * runner's walks and the sandbox use it, not the name */
  dev_t cwd_dev;   /* and its identity, which the sandbox checks again */
  ino_t cwd_ino;
  char *code_path; /* the snippet as the interpreter sees it */
  RunnerFileSnap before;

  pid_t init_pid;
  bool init_reaped;
  int control_fd;
  int status_fd;
  RunnerWatch *status_watch;
  bool have_report;
  RunnerReport report;

  int stdin_fd;
  RunnerWatch *stdin_watch;
  Buf stdin_buf;
  bool stdin_close; /* close once stdin_buf drains */

  RunStream streams[2];
  int64_t line_flush_ns; /* a partial line is sent then; 0: none held */
  Buf stderr_tail; /* the last of stderr, for exited's program_error */
  /* The program's displays, taken out of its stdout (runner-display.h):
   * its token (a session's, for a session run) and the scan of stdout. */
  char display_token[RUNNER_DISPLAY_TOKEN_LEN + 1];
  RunnerDisplayScan display_scan;

  int64_t t_start_ns;
  int64_t deadline_ns;      /* time limit */
  int64_t cancel_next_ns;   /* next cancel escalation, 0: none */
  int64_t drain_deadline_ns; /* stop waiting for output after init exits */
  int64_t disk_check_ns;     /* next look at how much the run has written */
  int64_t disk_base;         /* bytes a named cwd held before the run */
  int64_t disk_base_entries; /* and entries */
  int64_t memory_check_ns;   /* next sum of the run's memory (tree watch) */
  int64_t memory_peak;       /* largest sum seen: RssAnon + RssShmem */
  int64_t tasks_peak;        /* most processes and threads seen at once */
  int64_t deleted_bytes;     /* disk its processes hold in unlinked files */
  int64_t input_check_ns;    /* next look for a wait on stdin (runner-input-wait.c) */
  int64_t input_wait_since_ns; /* the program waits for input since; 0: it does not */
  int64_t input_clock_ns;    /* last time the paused deadline was moved on */
  SpCancelStage cancel_stage;
  SpLimit limit;
  char *failure; /* the runner failed the run after it started (end "failed") */
  RunnerEnv env;     /* the request's "environment", checked; env.dir NULL: none */
  bool env_writable; /* an install's last step (runner_engine_submit_with) */
  char **extra_ro;   /* more read-only directories for this run alone */
  bool cwd_trusted;  /* the runner made req.cwd (an install step's) */
  char *isolated_python; /* RunnerRunOptions' (an install's download step) */
  /* Runs in a session (runner-session.c): the session while the run is
   * queued or running; its directory is the session's, not removed with
   * the run (keep_dir); whether this run started a fresh interpreter, and
   * why that interpreter ended with the run, if it did. */
  RunnerSession *session;
  /* What starts and stops its program (runner-launch.h): the session's
   * launcher for a session run, else warm, which becomes cold when the
   * pool does not take the run. */
  const RunnerLauncher *launcher;
  bool keep_dir;
  bool session_new;
  SpSessionEnd session_ended;
  bool warm;     /* forked by a warm parent: init_pid is not our child */
  char *cold_reason; /* started cold because warm runs are off: why */
  int pidfd;     /* warm: the supervisor's, watched instead of reaped */
  RunnerRunCgroup cgroup; /* its memory and pids groups, if it has them */
  bool diag;   /* without them: the tree watch counts its UNIX socket
                * queues (runner-sockets.h), through diag_fd, sock_diag in
                * its network namespace, opened at its first look */
  int diag_fd;
  RunnerWatch *pidfd_watch;
  /* A compiled language (runner-compile.c): the compile step runs first,
   * in the same sandbox, writing into build_dir (bound as the run's
   * environment directory, writable only then); the program step runs
   * its output. */
  bool compiling;      /* the compile step is what runs now */
  bool compiled;       /* the run had a compile step (or a cache hit) */
  bool compile_cached;
  bool compile_failed;
  bool started_sent;   /* "started" went out (once, for both steps) */
  int64_t compile_wall_ms;
  int64_t compile_cpu_ms;
  char *build_dir;
  char cache_key[65];
};

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
  } *leftovers;
  size_t n_leftovers;
  /* The config's read-only directories (sandpad-mcp's --context-path),
   * opened once when the engine starts (O_PATH, no symlink in any
   * component) and held: every run binds and grants only what these fds
   * are (their ids). One that cannot be opened is left out of every run. */
  char **ro_dirs;
  RunnerDirId *ro_ids;
  int *ro_fds;
  bool namespaces;          /* the mode every run gets */
  char *refusal;            /* strict, and a layer is missing: why runs fail */
  RunnerSeccompFilter seccomp[2]; /* per run network setting; empty: none */
  RunnerRun *runs;
  uint64_t next_seq;
  int running;
  bool throttled;
  int64_t t0_ns;
  RunnerSession *sessions; /* runner-session.c */
  uint64_t next_session_seq;
  RunnerWarm *warm; /* the warm pool; NULL: every run is cold */
  RunnerCompileCache compile_cache; /* compiled snippets (runner-compile-cache.h) */
};

/* runner-run.c */
int _runner_run_start (RunnerRun *run);
void _runner_run_send_control (RunnerRun *run, char cmd);
void _runner_run_on_init_exit (RunnerRun *run);
void _runner_run_check_timers (RunnerRun *run, int64_t now);
/* runner-lines.c: sanitized output text of stream s, sent by lines;
 * final: the stream ends (send what is held). */
void _runner_run_lines (RunnerRun *run, SpStream s, const char *text, size_t len, bool final);
/* Sends what both streams hold (before a display, an exit). */
void _runner_run_flush_lines (RunnerRun *run);
void _runner_run_set_throttled (RunnerRun *run, bool throttled);
void _runner_run_feed_stdin (RunnerRun *run);
void _runner_run_free (RunnerRun *run);
/* Hands over an init that has not exited yet (its control pipe closed, so
 * it is killing its tree) and its cgroups: see RunnerEngine.leftovers. */
void _runner_engine_leave_init (RunnerEngine *engine, pid_t pid, RunnerRunCgroup *cgroup);
/* The program's environment (fixed, plus the request's env). */
char **_runner_run_build_env (RunnerRun *run);
/* Watches the run's pipes (stdin, stdout, stderr, and the run init's
 * status pipe when it has one), arms its timers and says "started". */
int _runner_run_attach (RunnerRun *run);
/* Ends a run that never got going with end "failed". */
void _runner_run_fail (RunnerRun *run, const char *message);

/* runner-compile.c: a compiled language's steps. */
/* Prepares the build directory; fetches the program from the cache
 * (run->compile_cached) or sets the compile step up (run->compiling).
 * -1 with errno on failure. */
int _runner_compile_prepare (RunnerRun *run);
/* The argv (and its executable's path) of the step that runs now. */
char **_runner_compile_step_argv (RunnerRun *run, const char **path);
/* The compile step ended with the run's report: 1 when the program step
 * has started, 0 when the run ends here (the compile failed, timed out,
 * was cancelled), with the run's fields set for exited. */
int _runner_compile_step_done (RunnerRun *run);
/* Starts the run's current step in the sandbox (runner-run.c). */
int _runner_run_spawn_step (RunnerRun *run);

/* Cold and warm runs' start (their launchers'): the run's own directory
 * (or the one it named, checked again), its snippet, then its first step. */
int _runner_run_start_own (RunnerRun *run);

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
/* Opens run->cwd as run->cwd_fd unless the check already did, and keeps
 * its identity for the sandbox to check again. */
int _runner_run_hold_cwd (RunnerRun *run);
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
/* The policy's verdict on a cwd (see runner-policy.h), resolved. */
int _runner_engine_check_cwd (RunnerEngine *engine, const char *cwd, char **canonical, int *dir_fd,
                              SpProtoError *err);

/* runner-environment.c: checks req->environment (req->cwd already
 * canonical) for this engine; fills *env or returns -1 with err set. */
int _runner_engine_check_environment (RunnerEngine *engine, const SpRun *req, bool writable,
                                      RunnerEnv *env, SpProtoError *err);
