/* runner-cgroup.h: a cgroup per run, where the runner can have one.
 *
 * RLIMIT_DATA and the tree watch count what processes map; neither sees
 * memory the kernel holds for the run: socket and pipe queues, page
 * tables, dentries. Ten processes filling 400 socketpairs each pinned
 * 945 MiB under a 128 MiB limit. A memory cgroup charges those to the run
 * and the kernel's OOM killer stops it at the limit.
 *
 * Two kinds, v2 preferred where both would do (started's layers say
 * which a run got: "memory:...,cgroup-v2" or ",cgroup-v1"):
 * - cgroup v2, where the runner's own group in the unified hierarchy is a
 *   subtree delegated to it (writable, memory and pids among its
 *   controllers): a systemd scope or service with Delegate=yes, which the
 *   app asks the user manager for (src/core/sp-runner-scope.c) and the
 *   resident runner's unit declares. The runner moves itself into a leaf
 *   of its group (v2 keeps processes out of a group whose controllers are
 *   given to children), enables memory and pids for the children, and
 *   each run gets memory.max, memory.swap.max 0, pids.max in one group;
 * - cgroup v1's memory (and pids) controller, where the runner may create
 *   groups under its own (a root runner without systemd, as on this
 *   project's CI machines).
 * Where no cgroup can be had (Flatpak, an ordinary user without
 * delegation) runs keep the other layers only. Cold runs and sessions'
 * interpreters join through runner_spawn (cgroup_fds); a warm run's spare
 * init moves its program into the spare's seat ahead of the run
 * (runner_cgroup_seat_make, runner-warm-init.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct
{
  int version;  /* 2, 1, or 0 for none */
  char *memory; /* our own group under the memory controller, or NULL */
  char *pids;   /* and under pids (v1), or NULL; in v2 memory's group has both */
  char *seen;   /* the v2 group we were in when we last looked */
  /* Our groups' directories, held flock'd for our life: a runner making
   * its group removes those of runners gone (killed before they could),
   * and a lock says one is not, where its pid cannot (another pid
   * namespace). -1 for none; only the prober's copy holds them. */
  int lock[2];
} RunnerCgroups;

/* Finds where this process sits, in a delegated cgroup v2 subtree first,
 * else in the v1 memory and pids hierarchies, and makes a group of ours
 * there (sandpad-PID) for the runs' groups, removing those of runners
 * that are gone beside it. Nothing usable: version 0. */
void runner_cgroup_probe (RunnerCgroups *cg);

/* The same with every path it reads or writes under root ("" for the
 * system's own /proc and /sys), for tests/runner/test-cgroup-probe.c. */
void runner_cgroup_probe_at (RunnerCgroups *cg, const char *root);

/* Without a group yet, looks again when this process was moved to another
 * v2 group since (the app moves its runner into a delegated scope while
 * the runner starts). Cheap otherwise: one read of /proc/self/cgroup. */
void runner_cgroup_refresh (RunnerCgroups *cg);

/* Removes our groups (each run's is gone by then). */
void runner_cgroup_clear (RunnerCgroups *cg);

/* One run's groups. */
typedef struct
{
  int version;
  char *memory;
  char *pids; /* in v2 the same group as memory: both controllers */
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

/* Sets the limits of a group made ahead (a warm spare's seat, below)
 * through its directories' fds: memory (and memory+swap) at most
 * memory_bytes, at most max_tasks processes and threads. pids_dir is v1's
 * pids group, -1 for none (v2: both controllers are memory_dir's). */
int runner_cgroup_limit_at (int version, int memory_dir, int pids_dir, int64_t memory_bytes,
                            int64_t max_tasks);
/* A warm spare's seat: a run's groups made ahead, without limits, named
 * name under the runner's groups (memory_parent, and pids_parent in v1,
 * as directory fds). The spare's init moves its program in while the
 * spare waits, so that the move, which waits for an RCU grace period in
 * the kernel (~10-15 ms), is not on any run's path; the limits are set
 * when a run takes the spare (runner_cgroup_limit_at), before the run
 * starts. dirs and procs_fds get fds of each group's directory and of
 * its cgroup.procs (-1 for none). Returns 0, or -1 with nothing made. */
int runner_cgroup_seat_make (int version, int memory_parent, int pids_parent, const char *name,
                             int dirs[RUNNER_CGROUP_MAX_FDS], int procs_fds[RUNNER_CGROUP_MAX_FDS]);
/* Removes a seat no run took (v2: its processes killed first). 0 once it
 * is gone, -1 while it still has processes (EBUSY): call again later. */
int runner_cgroup_seat_drop (int version, int memory_parent, int pids_parent, const char *name);
/* What the runner above reads of the groups, never their fields. */
int runner_cgroup_version (const RunnerCgroups *cg); /* 2, 1, or 0: none (or cg NULL) */
bool runner_cgroup_has_memory (const RunnerRunCgroup *run);
bool runner_cgroup_has_pids (const RunnerRunCgroup *run);
/* The version of the run's memory group; 0 when it has none. */
int runner_cgroup_memory_version (const RunnerRunCgroup *run);

/* The warm pool's seats (runner-cgroup-seat.c): a parent keeps a copy of
 * where the runner's groups were when it started (with v1's pids group
 * only where it could be opened), compares it with where they are now,
 * opens their directories to make seats in, and names a seat's groups. */
void runner_cgroup_copy (RunnerCgroups *dest, const RunnerCgroups *cg, bool with_pids);
void runner_cgroup_copy_clear (RunnerCgroups *copy);
bool runner_cgroup_same (const RunnerCgroups *a, const RunnerCgroups *b);
/* fds[0]: the memory group's directory, fds[1]: v1's pids group's, or
 * -1 each; 0 when the memory group's could be opened. */
int runner_cgroup_open_parents (const RunnerCgroups *cg, bool pids, int fds[2]);
/* The groups of the seat called name in cg's (made by the warm parent). */
void runner_cgroup_seat_groups (const RunnerCgroups *cg, const char *name, RunnerRunCgroup *out);

/* Whether the kernel killed a process of the run for its memory. */
bool runner_cgroup_oom_killed (const RunnerRunCgroup *run);

/* The most memory the run's group held (v2's memory.peak: kernel memory
 * and page cache included), or -1 where the kernel does not say. */
int64_t runner_cgroup_peak (const RunnerRunCgroup *run);

/* Kills every process in the run's group at once (v2's cgroup.kill, where
 * the kernel has it); the run init kills its tree anyway. */
void runner_cgroup_kill (const RunnerRunCgroup *run);

/* Removes the run's groups (once its processes are gone) and frees. */
void runner_cgroup_remove (RunnerRunCgroup *run);

/* In the run init, before anything else: joins the run's groups. */
int runner_cgroup_join (const int procs_fds[RUNNER_CGROUP_MAX_FDS]);
