/* runner-cgroup.h: a cgroup per run, where the runner can have one.
 *
 * RLIMIT_DATA and the tree watch count what processes map; neither sees
 * memory the kernel holds for the run: socket and pipe queues, page
 * tables, dentries. Ten processes filling 400 socketpairs each pinned
 * 945 MiB under a 128 MiB limit. A memory cgroup charges those to the run
 * and the kernel's OOM killer stops it at the limit.
 *
 * Only cgroup v1's memory (and pids) controller is used, where the runner
 * may create groups under its own (a root runner without systemd, as on
 * this project's CI machines). A cgroup v2 tree needs delegation from a
 * systemd user manager (a transient scope with Delegate=yes); that path is
 * not built yet, and where no cgroup can be had (Flatpak, an ordinary user
 * without delegation) runs keep the other layers only. started's layers
 * say which a run got ("memory:...,cgroup-v1"). Cold runs and sessions'
 * interpreters join through runner_spawn (cgroup_fds); a warm run's
 * spare init moves its program in (runner-warm-init.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct
{
  char *memory; /* our own group under the memory controller, or NULL */
  char *pids;   /* and under pids, or NULL */
} RunnerCgroups;

/* Finds where this process sits in the v1 memory and pids hierarchies and
 * makes a group of ours there (sandpad-PID). Nothing usable: both NULL. */
void runner_cgroup_probe (RunnerCgroups *cg);

/* Removes our groups (each run's is gone by then). */
void runner_cgroup_clear (RunnerCgroups *cg);

/* One run's groups. */
typedef struct
{
  char *memory;
  char *pids;
} RunnerRunCgroup;

#define RUNNER_CGROUP_MAX_FDS 2

/* Makes the run's groups: memory (and memory+swap) at most memory_bytes,
 * at most max_tasks processes and threads. procs_fds gets an fd of each
 * group's cgroup.procs (-1 for none): the run init writes "0" to them
 * first thing, so it and everything it starts are charged to the run.
 * Returns 0, or -1 (nothing made) when the groups cannot be had. */
int runner_cgroup_create (const RunnerCgroups *cg, const char *name, int64_t memory_bytes,
                          int64_t max_tasks, RunnerRunCgroup *run,
                          int procs_fds[RUNNER_CGROUP_MAX_FDS]);

/* Whether the kernel killed a process of the run for its memory. */
bool runner_cgroup_oom_killed (const RunnerRunCgroup *run);

/* Removes the run's groups (once its processes are gone) and frees. */
void runner_cgroup_remove (RunnerRunCgroup *run);

/* In the run init, before anything else: joins the run's groups. */
int runner_cgroup_join (const int procs_fds[RUNNER_CGROUP_MAX_FDS]);
