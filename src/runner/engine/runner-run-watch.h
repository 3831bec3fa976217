/* runner-run-watch.h: what the runner measures of a run while it runs:
 * the tree watch (the memory of all its processes summed, how many there
 * are, the disk held by files they deleted but keep open) and the space
 * it has written; and what those figures name when it ends.
 *
 * Owned by runner-run-watch.c: its state is a member of the run that only
 * that file reads or writes. It measures and says what it found; the run
 * (runner-run.c) decides: it names the limit and stops the program. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "sp-proto.h"

typedef struct RunnerRun RunnerRun;

typedef struct
{
  int64_t memory_check_ns;   /* next sum of the run's memory; 0: none */
  int64_t memory_peak;       /* largest sum seen: RssAnon + RssShmem */
  int64_t tasks_peak;        /* most processes and threads seen at once */
  int64_t deleted_bytes;     /* disk its processes hold in unlinked files */
  int64_t disk_check_ns;     /* next look at how much the run has written */
  int64_t disk_base;         /* bytes a named cwd held before the run */
  int64_t disk_base_entries; /* and entries */
  /* Without a memory cgroup the watch counts the run's UNIX socket queues
   * (runner-sockets.h), through diag_fd, sock_diag in its network
   * namespace, opened at its first look. */
  bool diag;
  int diag_fd;
} RunnerRunWatch;

void _runner_watch_init (RunnerRunWatch *watch);
void _runner_watch_clear (RunnerRunWatch *watch);

/* The step spawned: whether the watch counts socket queues (the run has
 * no memory cgroup). */
void _runner_watch_set_diag (RunnerRun *run, bool diag);
bool _runner_watch_diag (const RunnerRun *run);
/* What a named working directory held before the run: not the run's. */
void _runner_watch_set_disk_base (RunnerRun *run, int64_t bytes, int64_t entries);
/* The step started at now: the looks are armed (memory: the run's own
 * tree, which a session run's is not: the session watches its own). */
void _runner_watch_start (RunnerRun *run, int64_t now, bool memory);
/* The run init exited: nothing more to look at. */
void _runner_watch_stop (RunnerRun *run);
/* The program step after a compile step: the compile's figures were its
 * own. */
void _runner_watch_reset_peaks (RunnerRun *run);
/* A session run's figures, from the session's own watch of its tree. */
void _runner_watch_take_peaks (RunnerRun *run, int64_t memory_peak, int64_t tasks_peak);
void _runner_watch_set_deleted (RunnerRun *run, int64_t deleted_bytes);
/* The earlier of the next looks; 0: none. */
int64_t _runner_watch_next (const RunnerRun *run);

/* The looks due at now. Each returns true when the program must be
 * stopped: *limit is the limit it passed (SP_LIMIT_NONE when the watch
 * itself failed; *failure then says why, to be freed). */
bool _runner_watch_check_memory (RunnerRun *run, int64_t now, SpLimit *limit, char **failure);
bool _runner_watch_check_disk (RunnerRun *run, int64_t now, SpLimit *limit);

/* At the end. Whether the writable space is over its caps (what cannot
 * be measured counts as over). */
bool _runner_watch_disk_over (RunnerRun *run);
/* The peak the run reports (its cgroup's memory.peak too). */
int64_t _runner_watch_reported_peak (RunnerRun *run);
/* Which rlimit a program that failed on its own ran into, as the watch's
 * figures show it (tasks: processes still alive as it ended, and it). */
SpLimit _runner_watch_observed_limit (RunnerRun *run, int64_t tasks);
