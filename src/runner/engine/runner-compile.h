/* runner-compile.h: a compiled language's two steps in one run (issue
 * 27), owned by runner-compile.c: its state is a member of the run that
 * only that file reads or writes; the run asks it through the calls
 * below, and gives it what it needs (RunnerCompileInput) rather than
 * the run itself: this file knows nothing of RunnerRun. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "sp-proto.h"
#include "runner-compile-cache.h"
#include "runner-langs.h"
#include "runner-sandbox.h"
#include "runner-spawn.h"

/* What the steps are made from, given once by the run (runner-run.c)
 * and kept in the state: every pointer outlives the run's steps (the
 * engine's language table and cache, the run's own strings). */
typedef struct
{
  RunnerLanguage *lang;          /* the engine's entry (the version probe fills it in) */
  const RunnerLanguage *runtime; /* lang->compiler->runtime's entry, or NULL */
  RunnerCompileCache *cache;
  const char *dir;       /* the run's private directory: build/ is made in it */
  const char *name;      /* the snippet's file name, or NULL: the language's */
  const char *code;      /* the snippet, for the cache key */
  const char *code_path; /* the snippet as the compiler sees it */
  char **args;           /* the program's arguments */
  bool namespaces;
  bool network;
  /* What the compile step sees is the code alone (no named cwd, no
   * input files) and its view is confined (namespaces or Landlock):
   * the cache may serve it and keep its output. */
  bool code_alone;
} RunnerCompileInput;

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
  RunnerCompileInput in;
} RunnerCompileState;

/* A run's state before any step: nothing made, no fd. */
void _runner_compile_init (RunnerCompileState *compile);
/* Frees and closes what the steps made (the directory stays: it is in
 * the run's, removed with it). */
void _runner_compile_clear (RunnerCompileState *compile);

/* Prepares the build directory; fetches the program from the cache or
 * sets the compile step up. -1 with errno on failure. */
int _runner_compile_prepare (RunnerCompileState *compile, const RunnerCompileInput *in);
/* Whether the compile step is what runs now. */
bool _runner_compile_running (const RunnerCompileState *compile);
/* Whether the program step now runs after a compile step (not a program
 * from the cache alone, which has only its program step). */
bool _runner_compile_program_follows (const RunnerCompileState *compile, bool started_sent);
/* The argv (and its executable's path) of the step that runs now, or
 * NULL when the language's runtime is not installed. */
char **_runner_compile_step_argv (const RunnerCompileState *compile, const char **path);
/* The compile step's environment: runner_compile_env_base and the
 * compiler's own variables, nothing of the request's. */
char **_runner_compile_env (const RunnerCompileState *compile);
/* The compile step ended: report is its run init's report (NULL: none
 * came), ok whether the run saw it end well (no limit, cancel or
 * failure). 1 when the program step is to start (the caller resets the
 * run's step state and spawns it), 0 when the run ends here, with
 * *limit made the compile step's own and *failure set where the compiler
 * left no program. */
int _runner_compile_step_done (RunnerCompileState *compile, const RunnerReport *report, bool ok,
                               SpLimit *limit, char **failure);
/* What exited says of the steps. */
void _runner_compile_report (const RunnerCompileState *compile, SpExited *ev);
/* What the plan builder is told of the step: whether it compiles, the
 * build directory and its id. */
void _runner_compile_plan_input (const RunnerCompileState *compile, bool *compiling,
                                 const char **build_dir, RunnerDirId *build_id);
