/* runner-run-private.h: one run's state (RunnerRun), private to the
 * files that own a run: runner-run.c (its directory, pipes, stdin, limits
 * and exited), the three launchers (runner-launch.h) and the session a
 * run runs in. Four members have owners of their own, which know nothing
 * of RunnerRun: output (runner-run-output.h's three files), compile
 * (runner-compile.c), watch (runner-run-watch.c) and input_wait
 * (runner-input-wait.c); the other files ask them through their headers. The engine sees a run
 * through runner-run.h alone; installs and the resident runner see only the engine's public calls.
 * Nothing here includes the engine: a run reaches it through run->host (runner-host.h). */
#pragma once

#include "runner-base.h"
#include "runner-compile.h"
#include "runner-display.h"
#include "runner-files.h"
#include "runner-host.h"
#include "runner-input-files.h"
#include "runner-input-wait.h"
#include "runner-launch.h"
#include "runner-run-state.h"
#include "runner-run-output.h"
#include "runner-run-watch.h"
#include "runner-venv.h"

/* runner-session.h's, which includes this file's view of a run. */
typedef struct RunnerSession RunnerSession;

/* A stream's pipe, runner-run.c's: what the program writes is handed to
 * the run's output (runner-run-output.h). */
typedef struct
{
  int fd;
  RunnerWatch *watch;
  bool eof;
} RunPipe;

struct RunnerRun
{
  RunnerHost *host; /* the engine that owns the run, as it lends itself */
  RunnerRun *next;
  uint64_t seq;
  RunState state;
  SpRun req; /* owned; limits are resolved to concrete values */
  const RunnerLanguage *lang;

  char *dir;     /* private, removed on release: holds work/, code/, tmp/ */
  char *cwd;     /* dir/work, or the directory the request named */
  int cwd_fd;    /* O_PATH fd of that directory from its check on: the
                  * runner's walks and the sandbox use it, not the name */
  dev_t cwd_dev; /* and its identity, which the sandbox checks again */
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

  RunPipe streams[2];
  Buf stderr_tail; /* the last of stderr, for exited's program_error */
  /* Its output from the pipes to the events: the output files' alone
   * (runner-run-output.h). */
  RunnerRunOutput output;

  int64_t t_start_ns;
  int64_t deadline_ns;       /* time limit */
  int64_t cancel_next_ns;    /* next cancel escalation, 0: none */
  int64_t drain_deadline_ns; /* stop waiting for output after init exits */
  /* Its memory, processes and disk, as measured: runner-run-watch.c's
   * alone (others ask it through runner-run-watch.h). */
  RunnerRunWatch watch;
  int64_t out_file_bytes;     /* in its whole-output files (runner-output-limit.c) */
  RunnerInputWait input_wait; /* runner-input-wait.c's alone */
  SpCancelStage cancel_stage;
  SpLimit limit;
  char *failure;          /* the runner failed the run after it started (end "failed") */
  RunnerEnv env;          /* the request's "environment", checked; env.dir NULL: none */
  bool env_writable;      /* an install's last step (runner_engine_submit_with) */
  char **extra_ro;        /* more read-only directories for this run alone */
  bool cwd_trusted;       /* the runner made req.cwd (an install step's) */
  char *isolated_python;  /* RunnerRunOptions' (an install's download step) */
  bool cwd_at_host_path;  /* RunnerRunOptions' (sandpad-mcp's execute_command) */
  RunnerInputFile *input; /* RunnerRunOptions' input files, written as it starts */
  size_t n_input;
  char *cwd_sub;          /* where the program starts, relative to cwd
                           * (canonical, no symlink), or NULL: cwd itself */
  bool work_at_host_path; /* and the sandbox got it: started says "host-path" */
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
  int64_t session_count; /* its number among its interpreter's runs, from 1 */
  SpSessionEnd session_ended;
  bool warm;               /* forked by a warm parent: init_pid is not our child */
  bool shared_prelude;     /* its prelude is host->prelude_dir, bound read-only at
                            * code/.sandpad/prelude (namespace mode) */
  bool font_build;         /* the engine's own run that builds matplotlib's font list
                            * (runner-font-cache.h): no client sees it */
  char font_build_key[65]; /* the build run's: the key its list is kept under */
  char *cold_reason;       /* started cold because warm runs are off: why */
  int pidfd;               /* warm: the supervisor's, watched instead of reaped */
  RunnerRunCgroup cgroup;  /* its memory and pids groups, if it has them */
  RunnerWatch *pidfd_watch;
  /* A compiled language's steps: runner-compile.c's alone (others ask it
   * through runner-compile.h). */
  RunnerCompileState compile;
  bool started_sent; /* "started" went out (once, for both steps) */
};

/* runner-run.c */
void _runner_run_send_control (RunnerRun *run, char cmd);
void _runner_run_on_init_exit (RunnerRun *run);

void _runner_run_feed_stdin (RunnerRun *run);
/* The program's environment (fixed, plus the request's env). */
char **_runner_run_build_env (RunnerRun *run);
/* Watches the run's pipes (stdin, stdout, stderr, and the run init's
 * status pipe when it has one), arms its timers and says "started". */
int _runner_run_attach (RunnerRun *run);
/* Ends a run that never got going with end "failed". */
void _runner_run_fail (RunnerRun *run, const char *message);

/* Starts the run's current step in the sandbox. */
int _runner_run_spawn_step (RunnerRun *run);

/* Cold and warm runs' start (their launchers'): the run's own directory
 * (or the one it named, checked again), its snippet, then its first step. */
int _runner_run_start_own (RunnerRun *run);
/* Opens run->cwd as run->cwd_fd unless the check already did, and keeps
 * its identity for the sandbox to check again. */
int _runner_run_hold_cwd (RunnerRun *run);
/* The named cwd (run->req.cwd) through the policy's check again, its fd
 * held as run->cwd_fd; on failure the run has failed, saying why. */
int _runner_run_recheck_cwd (RunnerRun *run);
/* What the held cwd holds now, as the base of the run's disk use; on
 * failure (too many entries to measure) the run has failed. */
int _runner_run_disk_base (RunnerRun *run);
/* Writes the run's input files (RunnerRunOptions') beneath its held cwd;
 * on failure the run has failed, its message naming the file. */
int _runner_run_write_input (RunnerRun *run);
