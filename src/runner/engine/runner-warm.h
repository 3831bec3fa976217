/* runner-warm.h: the warm pool, pre-started python3 parents that runs
 * fork from.
 *
 * A warm parent is python3 running the driver (runner-warm-driver.py) with
 * the environment a run gets but pointing into a directory of the runner's
 * own: it imports numpy and matplotlib, then waits on one socket. It keeps
 * the next runs' processes ready (spares, sandbox/runner-warm-child.c;
 * RUNNER_WARM_SPARES of them, one when over memory_cap),
 * making the next as soon as a run takes one and telling the runner how
 * many have started ("spares N"), so a run never waits for one:
 * per run the runner sends it the run's plan and pipes, which it hands to
 * the spare, whose program takes every step of a cold run
 * (sandbox/runner-spawn.c) and then runs the snippet instead of exec'ing
 * python3. The parent answers with a pidfd of the run's supervisor, which
 * the runner watches instead of reaping it. It never runs user code.
 *
 * One parent per policy that shapes the interpreter (the run's network
 * setting; the mode is the engine's), at most RUNNER_WARM_MAX_PARENTS;
 * recycled after max_runs runs, when idle for idle_ms, and when their
 * resident memory together with their spares' passes memory_cap. Whenever the warm path
 * cannot serve a run, the run goes cold: nothing fails because of it. A
 * parent hands a run only to a spare whose processes have started, and
 * says "broken" when they cannot (runner_warm_broken). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner-cgroup.h"

#define RUNNER_WARM_MAX_PARENTS 2
/* How often the engine looks at its parents when nothing else happens. */
#define RUNNER_WARM_TICK_MS 5000
/* Spare runs a parent keeps ready: two, so that a run that comes while
 * the next is being made (back to back) still finds one. */
#define RUNNER_WARM_SPARES 2

typedef struct
{
  const char *python; /* absolute path of python3 */
  const char *module; /* sandpad-warm.so */
  const char *helper; /* sandpad-warm-init */
  bool namespaces;    /* the runs' sandbox mode, for the spares made ahead */
  const char *root;   /* the runner's private directory */
  int max_runs;       /* recycle after this many */
  int64_t idle_ms;    /* recycle when unused this long */
  int64_t start_ms;   /* end one not ready this long after its start */
  int64_t memory_cap; /* bytes of RSS all parents may hold together */
  int spares;         /* started spare runs a parent keeps (fewer over the cap) */
} RunnerWarmConfig;

typedef struct RunnerWarm RunnerWarm;

RunnerWarm *runner_warm_new (const RunnerWarmConfig *config);
/* Ends every parent (runs already forked go on). */
void runner_warm_free (RunnerWarm *warm);

/* Starts the parent for this policy unless it runs or failed recently.
 * cg: the runs' cgroups now (NULL or version 0: none); its spares get
 * their seats there. */
void runner_warm_start (RunnerWarm *warm, bool network, const RunnerCgroups *cg);

/* The private memory (VmData) a ready parent for this policy holds, which
 * its children start with; -1 when none is ready to take a run now: no
 * parent, or every spare it said started is taken while another of its
 * runs is still under way (!idle: a burst; the run goes cold rather than
 * wait for a spare being made). idle: no warm run of this policy is under
 * way, so the run may wait for the spare being made. */
int64_t runner_warm_data_bytes (RunnerWarm *warm, bool network, bool idle);

/* Hands a run to the parent: plan (NUL-separated, ends with NUL; with
 * cgroups its cg_memory and cg_tasks are the run's limits, set on the
 * seat through sp_warm_seat_limit's strict decode) and the
 * pipes in, out, err, control (read end) and status (write end). With
 * cgroups (cg, the runs' groups now), the spare that takes it waits in its
 * seat, whose limits the parent sets before the run starts: *cgroup gets
 * the seat, the run's groups from then on. Returns a pidfd of the run's
 * supervisor, or -1: then the run goes cold, and *why says what failed
 * (static text), or is NULL when no parent was ready (nothing failed). */
int runner_warm_spawn (RunnerWarm *warm, bool network, const RunnerCgroups *cg, const char *plan,
                       size_t len, const int *fds, size_t n_fds, RunnerRunCgroup *cgroup,
                       const char **why);

/* The engine reaped pid; true when it was one of our parents. */
bool runner_warm_reaped (RunnerWarm *warm, pid_t pid);

/* Recycles idle and old parents and enforces the memory cap, which counts
 * each parent with the spare runs it made ahead (over it, a parent first
 * keeps one spare, then ends); busy[] are the
 * supervisors of warm runs under way (also the parents' children, but
 * runs: their memory is their own limit's). */
void runner_warm_tick (RunnerWarm *warm, int64_t now, const pid_t *busy, size_t n_busy);

/* Why warm runs cannot work here (a parent said a helper cannot be loaded
 * or executed), or NULL. Once set, no parent starts again and every run
 * goes cold until a new pool is made (a new runner). */
const char *runner_warm_broken (RunnerWarm *warm);

/* Pids of live parents, for tests and the memory figures; at most max. */
size_t runner_warm_pids (RunnerWarm *warm, pid_t *out, size_t max);
