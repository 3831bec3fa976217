/* runner-tree.h: what a run's processes hold, read from /proc by the
 * runner (the service side: nothing here runs in the sandbox). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

/* What a run's processes hold now, read from /proc by the runner. */
typedef struct
{
  int64_t bytes;         /* RssAnon + RssShmem, summed over the processes */
  int64_t tasks;         /* processes and threads */
  int64_t deleted_bytes; /* disk held by files they deleted but keep open */
  int64_t cpu_ns;        /* CPU time of the whole tree so far, the processes
                          * it reaped included (clock ticks) */
  int64_t socket_bytes;  /* in bytes too: what their UNIX sockets hold in the
                          * kernel (runner-sockets.h); -1 when that could
                          * not be read (the watch counts it as over); 0
                          * without diag_fd */
  int64_t pipe_bytes;    /* what their pipes and FIFOs can pin, each counted
                          * full (runner-sockets.h); 0 without diag_fd */
} RunnerTreeUsage;

/* Sums the descendants of init_pid that lie at least `skip` levels below
 * it (1: not the run init itself; 2 in namespace mode: nor pid 1 of the
 * namespace). Processes that vanish while being read are left out.
 * bytes is RssAnon + RssShmem, which counts a page shared copy-on-write
 * after fork in every process; proportional reads the kernel's
 * proportional shares instead (Pss_Anon + Pss_Shmem, where readable), about
 * a millisecond per process. With diag_fd (>= 0, runner_sockets_open_diag),
 * the bytes queued on the run's UNIX sockets count too, and what its
 * pipes can hold: the tree watch's stand-in for a memory cgroup where the
 * run has none. */
void runner_tree_usage (pid_t init_pid, int skip, bool proportional, int diag_fd,
                        RunnerTreeUsage *usage);

/* Sets the soft RLIMIT_NPROC (fallback mode: the uid's count, taken
 * now, and the cap with its headroom, runner-nproc.h) of the program of
 * the run init init_pid (a session's interpreter) and of that program's
 * children, each only while it is still there, of uid. A session lives
 * across runs; the uid's other tasks come and go meanwhile. */
void runner_tree_set_nproc (pid_t init_pid, uid_t uid, rlim_t soft);
