/* runner-run-watch.c: what the runner measures of a run while it runs,
 * and what the figures name at its end; see the header. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "runner-files.h"
#include "runner-run-watch.h"
#include "runner-tree.h"
#include "runner-util.h"

/* How often a run's writable space is measured. RLIMIT_FSIZE stops any one
 * file at the cap at once; many files are caught within this period. */
#define DISK_POLL_NS (200 * INT64_C (1000000))
/* How often the memory of a run's whole tree is summed (the tree watch).
 * RLIMIT_DATA stops any one process at the limit at once; several
 * processes together are stopped within this period. */
#define MEMORY_POLL_NS (200 * INT64_C (1000000))
#define PRECISE_POLL_NS (1000 * INT64_C (1000000))

void
_runner_watch_init (RunnerRunWatch *watch)
{
  memset (watch, 0, sizeof *watch);
  watch->diag_fd = -1;
}

void
_runner_watch_clear (RunnerRunWatch *watch)
{
  if (watch->diag_fd >= 0)
    close (watch->diag_fd);
  watch->diag_fd = -1;
}

void
_runner_watch_set_diag (RunnerRunWatch *watch, bool diag)
{
  watch->diag = diag;
}

bool
_runner_watch_diag (const RunnerRunWatch *watch)
{
  return watch->diag;
}

void
_runner_watch_set_disk_base (RunnerRunWatch *watch, int64_t bytes, int64_t entries)
{
  watch->disk_base = bytes;
  watch->disk_base_entries = entries;
}

void
_runner_watch_start (RunnerRunWatch *watch, int64_t now, bool memory)
{
  watch->disk_check_ns = now + DISK_POLL_NS;
  watch->memory_check_ns = memory ? now + MEMORY_POLL_NS : 0;
}

void
_runner_watch_stop (RunnerRunWatch *watch)
{
  watch->memory_check_ns = 0;
  watch->disk_check_ns = 0;
}

void
_runner_watch_reset_peaks (RunnerRunWatch *watch)
{
  watch->memory_peak = 0;
  watch->tasks_peak = 0;
  watch->deleted_bytes = 0;
}

void
_runner_watch_take_peaks (RunnerRunWatch *watch, int64_t memory_peak, int64_t tasks_peak)
{
  watch->memory_peak = memory_peak;
  watch->tasks_peak = tasks_peak;
}

void
_runner_watch_set_deleted (RunnerRunWatch *watch, int64_t deleted_bytes)
{
  watch->deleted_bytes = deleted_bytes;
}

int64_t
_runner_watch_next (const RunnerRunWatch *watch)
{
  int64_t a = watch->disk_check_ns, b = watch->memory_check_ns;

  return a > 0 && (b == 0 || a < b) ? a : b;
}

/* What the run has written: bytes on disk (blocks, so sparse files count
 * for what they use, and every entry at least a minimum) and entries, in
 * the working directory and, without namespaces, the run's tmp (with
 * namespaces /tmp is a size-capped tmpfs). Returns false when the space
 * cannot be measured in full: a tree too deep or too large to walk is
 * exactly what a run would build to hide its use. */
static bool
disk_usage (RunnerRunWatch *watch, const RunnerWatchTarget *t, int64_t *bytes, int64_t *entries)
{
  const RunnerConfig *config = &t->host->config;
  cleanup_free char *tmp = xasprintf ("%s/tmp", t->dir);
  cleanup_fd int tmp_fd = t->host->namespaces ? -1 : open_no_symlinks (tmp, O_PATH | O_DIRECTORY);
  RunnerUsage space;

  runner_files_space_usage (t->cwd_fd, tmp_fd, watch->disk_base_entries + config->disk_files + 1,
                            &space);
  /* Files it deleted but keeps open hold blocks no walk sees (as of the
   * last tree watch). */
  *bytes = space.bytes - watch->disk_base + watch->deleted_bytes - t->output_file_bytes;
  *entries = space.entries - watch->disk_base_entries;
  /* A tmp that cannot be opened cannot be measured: over, as any other. */
  return space.complete && (t->host->namespaces || tmp_fd >= 0);
}

/* Whether the run's writable space is over its caps; what cannot be
 * measured counts as over. */
bool
_runner_watch_disk_over (RunnerRunWatch *watch, const RunnerWatchTarget *t)
{
  const RunnerConfig *config = &t->host->config;
  int64_t bytes, entries;

  return !disk_usage (watch, t, &bytes, &entries) || bytes > config->disk_limit
         || entries > config->disk_files;
}

/* Within this share of a limit counts as having reached it: the
 * interpreter's own ceiling sits below the rlimit (V8's heap is set to 3/4
 * of the memory limit) and the allocation or fork that failed never
 * happened. */
#define NEAR_PERCENT 85

static bool
near (int64_t value, int64_t limit)
{
  return value >= limit / 100 * NEAR_PERCENT;
}

/* The tree watch: RLIMIT_DATA binds each process alone, so several
 * processes (or memory shared between them) could together hold many
 * times the limit; this sums what every process of the run holds and
 * stops the run when the sum passes the limit. The cheap sum (RssAnon +
 * RssShmem) counts pages that forks share copy-on-write once per process,
 * so a fork-heavy program would be stopped for memory it does not use;
 * only when that sum comes near the limit are the proportional shares
 * read (dearer: the page tables are walked), and they decide, and count
 * as the peak. When they show
 * the sum was mostly shared pages, the next look waits PRECISE_POLL_NS, so
 * a run cannot keep the runner walking page tables for nothing. */
bool
_runner_watch_check_memory (RunnerRunWatch *watch, const RunnerWatchTarget *t, int64_t now,
                            SpLimit *limit_hit, char **failure)
{
  int64_t limit = t->memory_limit;

  *limit_hit = SP_LIMIT_NONE;
  *failure = NULL;
  int skip = t->host->namespaces ? 2 : 1;
  RunnerTreeUsage usage;

  if (watch->memory_check_ns == 0 || now < watch->memory_check_ns)
    return false;
  watch->memory_check_ns = now + MEMORY_POLL_NS;
  /* A short run may end between two looks: its supervisor gone is
   * nothing to count, while a socket that cannot be had from a run that
   * lives still stops it (runner-sockets.h says how the two differ). */
  int pidfd = t->pidfd;
  RunnerDiag diag = watch->diag
                      ? _runner_host_diag (t->host, t->network, t->init_pid, pidfd, &watch->diag_fd)
                      : RUNNER_DIAG_OPEN;
  if (diag == RUNNER_DIAG_GONE)
    return false;
  if (diag == RUNNER_DIAG_FAILED)
    {
      *failure = xasprintf ("cannot count the run's socket queues: %s", strerror (errno));
      watch->memory_check_ns = 0;
      return true;
    }
  runner_tree_usage (t->init_pid, skip, false, watch->diag_fd, &usage);
  if (near (usage.bytes, limit))
    {
      runner_tree_usage (t->init_pid, skip, true, watch->diag_fd, &usage);
      if (!near (usage.bytes, limit))
        watch->memory_check_ns = now + PRECISE_POLL_NS;
    }
  if (usage.bytes > watch->memory_peak)
    watch->memory_peak = usage.bytes;
  if (usage.tasks > watch->tasks_peak)
    watch->tasks_peak = usage.tasks;
  watch->deleted_bytes = usage.deleted_bytes;
  /* A dump that failed counts as over, unless the run was gone by then. */
  if (usage.socket_bytes < 0 && _runner_host_supervisor_exited (t->init_pid, pidfd))
    return false;
  /* The kernel killed a process of the run at its cgroup's cap: the run
   * is over its limit, and is stopped whole, as the sum stops it. */
  if (usage.bytes > limit || usage.socket_bytes < 0 || runner_cgroup_oom_killed (t->cgroup))
    {
      *limit_hit = SP_LIMIT_MEMORY;
      watch->memory_check_ns = 0;
      return true;
    }
  /* Without a pids cgroup, fallback mode's RLIMIT_NPROC counts the uid's
   * processes, so a run gets more room as others of the uid end: the
   * watch holds each run to the process cap itself. */
  if (!runner_cgroup_has_pids (t->cgroup) && usage.tasks > t->host->config.max_processes)
    {
      *limit_hit = SP_LIMIT_PROCESSES;
      watch->memory_check_ns = 0;
      return true;
    }
  return false;
}

/* The largest memory the run was seen to hold: the tree watch's sum, or
 * the kernel's high-water mark of its largest process (getrusage), which
 * catches a run too short for the watch to sample. */
static int64_t
peak_memory (RunnerRunWatch *watch, const RunnerWatchTarget *t)
{
  int64_t single = t->maxrss_kib * 1024;

  return watch->memory_peak > single ? watch->memory_peak : single;
}

/* The peak the run reports: also its v2 cgroup's own (memory.peak), which
 * counts what the kernel held for it. Not used to name a limit: it counts
 * page cache too, which the kernel reclaims rather than fail the run; the
 * cgroup's OOM kill names that limit. */
int64_t
_runner_watch_reported_peak (RunnerRunWatch *watch, const RunnerWatchTarget *t)
{
  int64_t peak = peak_memory (watch, t);
  int64_t group = runner_cgroup_peak (t->cgroup);

  return group > peak ? group : peak;
}

bool
_runner_watch_check_disk (RunnerRunWatch *watch, const RunnerWatchTarget *t, int64_t now,
                          SpLimit *limit)
{
  *limit = SP_LIMIT_NONE;
  if (watch->disk_check_ns == 0 || now < watch->disk_check_ns)
    return false;
  watch->disk_check_ns = now + DISK_POLL_NS;
  if (!_runner_watch_disk_over (watch, t))
    return false;
  *limit = SP_LIMIT_DISK;
  watch->disk_check_ns = 0;
  return true;
}

SpLimit
_runner_watch_observed_limit (RunnerRunWatch *watch, const RunnerWatchTarget *t, int64_t tasks)
{
  const RunnerConfig *c = &t->host->config;
  int64_t bytes, entries;

  if (near (peak_memory (watch, t), t->memory_limit))
    return SP_LIMIT_MEMORY;
  if (watch->tasks_peak > tasks)
    tasks = watch->tasks_peak;
  if (near (tasks, c->max_processes))
    return SP_LIMIT_PROCESSES;
  if (!disk_usage (watch, t, &bytes, &entries) || near (bytes, c->disk_limit)
      || near (entries, c->disk_files))
    return SP_LIMIT_DISK;
  return SP_LIMIT_NONE;
}
