/* runner-engine-private.h: the engine's state, shared by the service's
 * files above it (runner-engine.c: queue, dispatch, timers; installs, the
 * resident runner, environment checks). Runs, sessions, the plan builder
 * and the launchers are below it and never include this: they see only
 * what the engine lends them (runner-host.h). A run's own state is in
 * runner-run-private.h, for the files that own a run. */
#pragma once

#include <sys/types.h>

#include "runner-engine.h"
#include "runner-cgroup.h"
#include "runner-display.h"
#include "runner-compile-cache.h"
#include "runner-files.h"
#include "runner-host.h"
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
  /* What its runs and sessions see of it (runner-host.h): they reach the
   * engine only through this, and its ops. */
  RunnerHost host;
  int signal_fd;
  RunnerWatch *signal_watch;
  /* Run inits still killing their tree when their run or session was
   * freed: reaped from SIGCHLD like any other, their cgroups removed then;
   * never waited for in the loop (a fork bomb's tree takes its time). */
  struct RunnerLeftover
  {
    pid_t pid;
    RunnerRunCgroup cgroup;
  } * leftovers;
  size_t n_leftovers;
  int *ro_fds; /* host.ro_dirs, held open (O_PATH) while the engine lives */
  RunnerRun *runs;
  uint64_t next_seq;
  int running;
  /* matplotlib's font list (runner-font-cache.h): the build run is
   * submitted once per key the engine sees missing (font_key_tried), and
   * released by the engine once it has ended (font_build_ended). Its runs
   * reach this through the host's ops (font_key, font_build). */
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

/* runner-engine.c */
/* Whether the run with this id has ended (or is not the engine's any
 * more): an install waits for its steps so. */

/* runner-environment.c: checks req->environment (req->cwd already
 * canonical) for this engine; fills *env or returns -1 with err set. */
int _runner_engine_check_environment (RunnerEngine *engine, const SpRun *req, bool writable,
                                      RunnerEnv *env, SpProtoError *err);
