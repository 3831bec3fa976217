/* runner-launch.h: how a run's program is started in its sandbox.
 *
 * One plan builder (runner-plan-build.c) turns a run's request and the
 * engine's config into the RunnerSandboxPlan and RunnerSpawnSpec every
 * launch uses: a cold run's init (runner_spawn), a warm spare (the same
 * plan through runner-plan.c's strict codec) and a session's interpreter.
 * A layer is chosen there once, so no launch can leave one out. */
#pragma once

#include <stdbool.h>

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
  char *root_dir;
  char *code_dir;
  char *tmp_dir;
  char **read_only;
  RunnerDirId *read_only_ids;
} RunnerLaunch;

/* Fills l for run (its dir, cwd and held cwd identity set) to run path
 * with argv and envp, which l takes. */
void _runner_launch_build (RunnerRun *run, RunnerLaunchKind kind, const char *path, char **argv,
                           char **envp, RunnerLaunch *l);
void _runner_launch_clear (RunnerLaunch *l);
