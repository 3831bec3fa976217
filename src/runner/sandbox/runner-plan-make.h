/* runner-plan-make.h: the one place a run's sandbox plan is made
 * (runner-plan-make.c), from facts the runner gathers: what this runner
 * has (namespaces or not, Landlock's ABI, the seccomp filter for the
 * run's network, the layers it must waive and why, its caps and
 * context directories) and what the run asks (its directories, the held
 * working directory, its environment, memory and time). Every layer and
 * every limit is decided here, in the folder an auditor reads, for the
 * three launches alike: a cold run's init (runner_spawn), a warm spare
 * (the same plan through runner-plan.c's strict codec) and a session's
 * interpreter. The engine gathers the facts (engine/runner-plan-build.c)
 * and decides nothing of the plan. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner-sandbox.h"
#include "runner-seccomp.h"
#include "runner-util.h"

typedef struct
{
  /* This runner's, the same for every run. */
  bool namespaces;
  int landlock_abi;                   /* 0: none (then waived) */
  const RunnerSeccompFilter *seccomp; /* for the run's network; NULL: waived */
  unsigned waived;                    /* RUNNER_LAYER_* the host lacks */
  int64_t max_processes;
  int64_t disk_limit; /* bytes: the private /tmp and the file size limit */
  int64_t open_files;
  char *const *context_dirs; /* read-only for every run but a compile step */
  const RunnerDirId *context_ids;

  /* The run's. */
  bool interpreter; /* a session's interpreter, which lives across runs;
                     * else one step of a run */
  bool compiling;   /* the step is a compiled language's compile step */
  const char *dir;  /* the run's own directory: root/, code/ and tmp/ */
  const char *cwd;  /* its working directory, held as (cwd_dev, cwd_ino) */
  dev_t cwd_dev;
  ino_t cwd_ino;
  const char *cwd_sub;   /* where a step starts beneath cwd; NULL: cwd */
  bool named_cwd;        /* the request named cwd */
  bool cwd_at_host_path; /* and asked for it at its own path */
  bool in_session;
  bool network;
  int64_t memory_mib;
  int64_t timeout_ms;    /* the step's wall limit (a compile step's own) */
  const char *build_dir; /* a compiled language's, held as build_id; NULL: none */
  RunnerDirId build_id;
  const char *env_dir; /* the checked environment, as env_id; NULL: none */
  bool env_writable;   /* an install's step writes it */
  RunnerDirId env_id;
  char *const *extra_ro;   /* more read-only directories for this run alone */
  const char *prelude_dir; /* the runner's shared prelude; NULL: none */
} RunnerPlanFacts;

/* What a made plan points into, and the directory the program starts in
 * (the spawn's cwd), owned. */
typedef struct
{
  char *root_dir;
  char *code_dir;
  char *tmp_dir;
  char *start_dir;
  char **read_only;
  RunnerDirId *read_only_ids;
} RunnerPlanStrings;

/* Fills *plan, every field, and *strings, which it points into. The plan
 * is complete: runner_sandbox_plan_check takes it. */
void runner_plan_make (const RunnerPlanFacts *f, RunnerSandboxPlan *plan,
                       RunnerPlanStrings *strings);
void runner_plan_strings_clear (RunnerPlanStrings *strings);
