/* runner-nproc.h: a run's process cap, RLIMIT_NPROC.
 *
 * In namespace mode the kernel counts the run's tasks in the run's own
 * user namespace, which starts empty: the limit is the cap itself.
 *
 * In fallback mode there is no such namespace. The kernel checks every
 * fork and thread against one count per uid: every task (threads too) of
 * the uid in the caller's user namespace and in each user namespace
 * beneath it that the uid made (a namespace-mode run of a runner of the
 * same uid, a browser's sandbox), whichever runner or program started
 * them. The run's limit must be that count plus the run's own room, and
 * the count must be the kernel's: a walk of /proc counted processes, not
 * threads, left out processes in the uid's user namespaces and the
 * undumpable ones (their /proc entries are root's), and cannot see what a
 * pid namespace hides; it came out hundreds short, and the program's
 * execve or first fork failed with EAGAIN. So the program's own process
 * measures the kernel's count right before it sets the limit (after it
 * changed uid and dropped its capabilities: a task that passes the check
 * cannot measure it), and the limit leaves headroom over it.
 *
 * The cap itself is the tree watch's (runner-run.c, runner-session.c: a
 * run or session whose tree passes max_processes is stopped, whatever
 * the uid runs); RLIMIT_NPROC is the backstop that stops a fork bomb
 * between two samples. Its headroom over the cap is what the uid's other
 * tasks may grow by during a run before they take room from it; it is
 * also how far past the cap a bomb gets before the watch's next sample
 * stops it, so it is a quarter of the cap, not more: a run never holds
 * 400 tasks under the default 256 (the escape suite's proc-07, proc-08).
 * A session, which lives across runs, has it measured again before each
 * run (runner-session.c). */
#define RUNNER_NPROC_HEADROOM(max_processes) ((max_processes) / 4)
#pragma once

#include <stdint.h>
#include <sys/resource.h>

#include "runner-sandbox.h"

/* How many tasks the kernel counts against the calling process's
 * RLIMIT_NPROC now, itself included: the least soft limit under which
 * one more task starts, less one, found by a binary search of short-lived
 * clones. -1 when none starts under any limit up to the hard one (the uid
 * is full, or the count of a user namespace above is), or on an error
 * other than EAGAIN. Only meaningful without CAP_SYS_RESOURCE and
 * CAP_SYS_ADMIN (a task with either is not checked) and outside a pids
 * cgroup that is full. Leaves the soft limit changed: set it next. */
int64_t runner_nproc_count (void);

/* The soft limit for a fallback run's process whose count (from
 * runner_nproc_count, in that process or a helper of the uid that has
 * ended since) was `count`: the tasks of others, the cap and the headroom. A count of -1 gives the
 * cap and headroom alone: then the uid's other tasks leave the run less room, never more. */
rlim_t runner_nproc_limit (int64_t count, int64_t max_processes);

/* Sets the calling process's RLIMIT_NPROC from plan: the cap in
 * namespace mode; in fallback mode runner_nproc_limit over the count
 * measured now, with the hard limit left as it was where the plan's
 * seccomp filter keeps the program from changing either (the runner can
 * then give a session's interpreter room again later), else the same as
 * the soft one. 0, or -1 with errno set. */
int runner_nproc_apply (const RunnerSandboxPlan *plan);
