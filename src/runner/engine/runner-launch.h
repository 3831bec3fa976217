/* runner-launch.h: how a run's program is started in its sandbox.
 *
 * Three launchers (RunnerLauncher below): cold (runner-launch-cold.c, the
 * run's own run init through runner_spawn), warm (runner-warm-run.c, a
 * spare of the warm pool; it hands a run the pool cannot take to cold)
 * and session (runner-session.c, the session's long-lived interpreter).
 * runner-run.c owns a run from its directory to its exited event and
 * reaches the program only through its launcher, so it calls none of
 * those files; they call runner-run.c's attach, fail and report.
 *
 * One plan builder (runner-plan-build.c) gathers what a run asks and
 * what the engine has, and the sandbox makes the RunnerSandboxPlan from
 * them (../sandbox/runner-plan-make.c); the builder adds the
 * RunnerSpawnSpec every launch uses: a cold run's init (runner_spawn), a
 * warm spare (the same plan through runner-plan.c's strict codec) and a
 * session's interpreter. A layer is chosen there once, so no launch can
 * leave one out. */
#pragma once

#include <stdbool.h>

#include "runner-cgroup.h"
#include "runner-host.h"
#include "runner-plan-make.h"
#include "runner-sandbox.h"
#include "runner-spawn.h"

typedef struct RunnerRun RunnerRun;

typedef enum
{
  /* One step of a run (its program, or a compiled language's compile
   * step): the run's own directory, read-only directories and
   * environment, and a CPU backstop past its time limit. */
  RUNNER_LAUNCH_STEP,
  /* A session's interpreter, which lives across runs: no CPU backstop
   * (each run has its wall limit, an idle session is reaped), and only the
   * config's read-only directories. */
  RUNNER_LAUNCH_INTERPRETER,
} RunnerLaunchKind;

typedef struct
{
  RunnerSandboxPlan plan;
  /* spec.sandbox is &plan: a RunnerLaunch is filled where it stays. The
   * pipes and fds are the launcher's to fill. */
  RunnerSpawnSpec spec;
  /* What plan and spec point into, owned. */
  char **argv;
  char **envp;
  RunnerPlanStrings strings;
} RunnerLaunch;

/* What the plan builder reads of a run, and nothing else of it: a run
 * fills it (_runner_launch_build), so runner-plan-build.c needs no run. It
 * hands this and the host's facts to the sandbox's runner_plan_make,
 * which decides the plan. */
typedef struct
{
  const char *dir; /* the run's own directory: root/, code/ and tmp/ */
  const char *cwd; /* its working directory, with the identity it is held as */
  dev_t cwd_dev;
  ino_t cwd_ino;
  const char *cwd_sub;   /* where a step starts beneath cwd (relative, canonical,
                          * RunnerRunOptions.cwd_root); NULL: cwd itself */
  bool named_cwd;        /* the request named cwd */
  bool cwd_at_host_path; /* RunnerRunOptions' */
  bool in_session;       /* the run is a session's */
  bool network;
  int64_t memory_mib;
  int64_t open_files;    /* the least the language starts with (RunnerLanguage's); 0: none */
  int64_t timeout_ms;    /* the program's; a compile step's is the config's */
  bool compiling;        /* the compile step is what runs now */
  const char *build_dir; /* a compiled language's, held as build_id; NULL: none */
  RunnerDirId build_id;
  const char *env_dir; /* the checked environment, as env_id; NULL: none */
  bool env_writable;
  RunnerDirId env_id;
  char *const *extra_ro;   /* more read-only directories for this run alone */
  const char *prelude_dir; /* the runner's shared prelude to bind; NULL: none */
} RunnerLaunchInput;

/* Fills l for a run (runner-plan-build.c) to run path with argv and envp,
 * which l takes. */
void _runner_plan_build (RunnerHost *host, const RunnerLaunchInput *in, RunnerLaunchKind kind,
                         const char *path, char **argv, char **envp, RunnerLaunch *l);
/* The same for run (its dir, cwd and held cwd identity set): its input,
 * then the plan (runner-run.c). */
void _runner_launch_build (RunnerRun *run, RunnerLaunchKind kind, const char *path, char **argv,
                           char **envp, RunnerLaunch *l);
void _runner_launch_clear (RunnerLaunch *l);

typedef struct RunnerLauncher
{
  const char *name;
  /* Starts a run (its state is RUN_RUNNING): its directory, then its
   * program. A failure is reported as its exited; then -1. */
  int (*start) (RunnerRun *run);
  /* Cold and warm: starts the step l describes, whose pipes and plan
   * runner-run.c made; 0, or -1 with errno. NULL for a session, whose
   * interpreter gets the run's pipes. */
  int (*spawn) (RunnerRun *run, RunnerLaunch *l);
  /* Interrupt, terminate or kill what runs the program. */
  void (*control) (RunnerRun *run, char cmd);
  /* The run's time is up (or its wait for input is too long). */
  void (*deadline) (RunnerRun *run);
  /* The root of the process tree that holds the program, or -1. */
  pid_t (*tree_root) (RunnerRun *run);
  RunnerMemoryLayer (*memory_layer) (RunnerRun *run);
  /* The run is freed: let go of what still runs of it (its tree is
   * being killed: the control pipe is closed). */
  void (*release) (RunnerRun *run);
} RunnerLauncher;

/* The run's own run init (runner-launch-cold.c). */
extern const RunnerLauncher _runner_launcher_cold;
/* A warm spare when the pool takes the run, else cold (runner-warm-run.c). */
extern const RunnerLauncher _runner_launcher_warm;
/* The pool for host->warm, when the config and this system allow it
 * (runner-warm-run.c); NULL: every run is cold. */
RunnerWarm *_runner_warm_pool_new (RunnerHost *host);
/* A session's interpreter (runner-session.c). */
extern const RunnerLauncher _runner_launcher_session;

/* What the cold and warm launchers share: a run init of the run's own,
 * told through the control pipe (runner-launch-cold.c). */
void _runner_init_control (RunnerRun *run, char cmd);
void _runner_init_deadline (RunnerRun *run);
pid_t _runner_init_tree_root (RunnerRun *run);
RunnerMemoryLayer _runner_init_memory_layer (RunnerRun *run);
