/* runner-compile.h: a compiled language's two steps in one run (issue
 * 27), owned by runner-compile.c: its state is a member of the run that
 * only that file reads or writes; the run asks it through the calls
 * below. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "sp-proto.h"
#include "runner-sandbox.h"

typedef struct RunnerRun RunnerRun;

typedef struct
{
  /* The compile step is what runs now. */
  bool compiling;
  /* The run had a compile step, or a program from the cache. */
  bool compiled;
  bool compile_cached;
  /* Its compile step sees the code alone: the cache may serve it and
   * keep its output. */
  bool compile_cacheable;
  bool compile_failed;
  int64_t compile_wall_ms;
  int64_t compile_cpu_ms;
  /* The build directory, made once and held as an fd from then on: every
   * later use goes through the fd or its id (device and inode, which the
   * sandbox checks when it binds build_dir and gives Landlock it). */
  char *build_dir;
  int build_fd;
  RunnerDirId build_id;
  char cache_key[65];
} RunnerCompileState;

/* A run's state before any step: nothing made, no fd. */
void _runner_compile_init (RunnerCompileState *compile);
/* Frees and closes what the steps made (the directory stays: it is in
 * the run's, removed with it). */
void _runner_compile_clear (RunnerCompileState *compile);

/* Prepares the build directory; fetches the program from the cache or
 * sets the compile step up. -1 with errno on failure. */
int _runner_compile_prepare (RunnerRun *run);
/* Whether the compile step is what runs now. */
bool _runner_compile_running (const RunnerRun *run);
/* Whether the program step now runs after a compile step (not a program
 * from the cache alone, which has only its program step). */
bool _runner_compile_program_follows (const RunnerRun *run, bool started_sent);
/* The argv (and its executable's path) of the step that runs now. */
char **_runner_compile_step_argv (RunnerRun *run, const char **path);
/* The compile step's environment: runner_compile_env_base and the
 * compiler's own variables, nothing of the request's. */
char **_runner_compile_env (RunnerRun *run);
/* The compile step ended with the run's report: 1 when the program step
 * is to start (the caller resets the run's step state and spawns it), 0
 * when the run ends here (the compile failed, timed out, was cancelled),
 * with the run's limit or failure set for exited. */
int _runner_compile_step_done (RunnerRun *run);
/* What exited says of the steps. */
void _runner_compile_report (const RunnerRun *run, SpExited *ev);
/* What the plan builder is told of the step: whether it compiles, the
 * build directory and its id. */
void _runner_compile_plan_input (const RunnerRun *run, bool *compiling, const char **build_dir,
                                 RunnerDirId *build_id);
