/* runner-run-watch.h: what the runner measures of a run while it runs:
 * the tree watch (the memory of all its processes summed, how many there
 * are, the disk held by files they deleted but keep open) and the space
 * it has written; and what those figures name when it ends.
 *
 * Owned by runner-run-watch.c: its state is a member of the run that only
 * that file reads or writes. It measures and says what it found; the run
 * (runner-run.c) decides: it names the limit and stops the program. The
 * run tells it what to look at (RunnerWatchTarget) at each look; this
 * file knows nothing of RunnerRun. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "sp-proto.h"
#include "runner-cgroup.h"
#include "runner-host.h"

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

/* What a look measures, as the run holds it at that moment. */
typedef struct
{
  RunnerHost *host;              /* its config's caps, its socket count */
  pid_t init_pid;                /* the run init: its tree is the run's */
  int pidfd;                     /* a warm run's supervisor, or -1 */
  bool network;                  /* the run's network namespace is the host's */
  int64_t memory_limit;          /* bytes */
  int cwd_fd;                    /* the held working directory */
  const char *dir;               /* the run's own: its tmp/ (fallback mode) */
  const RunnerRunCgroup *cgroup; /* its groups, where it has them */
  int64_t output_file_bytes;     /* the runner's own whole-output files there */
  int64_t maxrss_kib;            /* the run init's report's, 0 before it */
} RunnerWatchTarget;

void _runner_watch_init (RunnerRunWatch *watch);
void _runner_watch_clear (RunnerRunWatch *watch);

/* The step spawned: whether the watch counts socket queues (the run has
 * no memory cgroup). */
void _runner_watch_set_diag (RunnerRunWatch *watch, bool diag);
bool _runner_watch_diag (const RunnerRunWatch *watch);
/* What a named working directory held before the run: not the run's. */
void _runner_watch_set_disk_base (RunnerRunWatch *watch, int64_t bytes, int64_t entries);
/* The step started at now: the looks are armed (memory: the run's own
 * tree, which a session run's is not: the session watches its own). */
void _runner_watch_start (RunnerRunWatch *watch, int64_t now, bool memory);
/* The run init exited: nothing more to look at. */
void _runner_watch_stop (RunnerRunWatch *watch);
/* The program step after a compile step: the compile's figures were its
 * own. */
void _runner_watch_reset_peaks (RunnerRunWatch *watch);
/* A session run's figures, from the session's own watch of its tree. */
void _runner_watch_take_peaks (RunnerRunWatch *watch, int64_t memory_peak, int64_t tasks_peak);
void _runner_watch_set_deleted (RunnerRunWatch *watch, int64_t deleted_bytes);
/* The earlier of the next looks; 0: none. */
int64_t _runner_watch_next (const RunnerRunWatch *watch);

/* The looks due at now. Each returns true when the program must be
 * stopped: *limit is the limit it passed (SP_LIMIT_NONE when the watch
 * itself failed; *failure then says why, to be freed). */
bool _runner_watch_check_memory (RunnerRunWatch *watch, const RunnerWatchTarget *t, int64_t now,
                                 SpLimit *limit, char **failure);
bool _runner_watch_check_disk (RunnerRunWatch *watch, const RunnerWatchTarget *t, int64_t now,
                               SpLimit *limit);

/* At the end. Whether the writable space is over its caps (what cannot
 * be measured counts as over). */
bool _runner_watch_disk_over (RunnerRunWatch *watch, const RunnerWatchTarget *t);
/* The peak the run reports (its cgroup's memory.peak too). */
int64_t _runner_watch_reported_peak (RunnerRunWatch *watch, const RunnerWatchTarget *t);
/* Which rlimit a program that failed on its own ran into, as the watch's
 * figures show it (tasks: processes still alive as it ended, and it). */
SpLimit _runner_watch_observed_limit (RunnerRunWatch *watch, const RunnerWatchTarget *t,
                                      int64_t tasks);
