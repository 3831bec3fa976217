/* runner-nproc.c: see runner-nproc.h. */
#include "runner-nproc.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The most tasks a count can be (the kernel's PID_MAX_LIMIT). */
#define PROBE_MAX ((rlim_t) 4 * 1024 * 1024)
/* The probe's stack: it makes one system call. */
#define PROBE_STACK_SIZE (16 * 1024)

/* The probe task: it only has to exist. A raw exit, not _exit(): it
 * shares our memory (CLONE_VM), and a sanitizer's _exit would run its
 * leak check here. */
static int
probe_task (void *arg)
{
  (void) arg;
  syscall (SYS_exit, 0);
  return 0;
}

/* Whether one more task of the uid starts under a soft limit of `limit`:
 * 1 it did (and is reaped), 0 the kernel refused it (EAGAIN), -1 another
 * error. The kernel refuses a task when the count, the new one included,
 * is past the limit: it starts exactly while the count is below it. A
 * vfork-like clone copies no page tables, so a warm interpreter's
 * process probes as cheaply as a small one. */
static int
task_fits (rlim_t limit, rlim_t hard)
{
  struct rlimit rl = { .rlim_cur = limit, .rlim_max = hard };
  _Alignas(16) char stack[PROBE_STACK_SIZE];

  if (setrlimit (RLIMIT_NPROC, &rl) != 0)
    return -1;
  pid_t pid = clone (probe_task, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
  if (pid < 0)
    return errno == EAGAIN ? 0 : -1;
  while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
    ;
  return 1;
}

int64_t
runner_nproc_count (void)
{
  struct rlimit old;

  if (getrlimit (RLIMIT_NPROC, &old) != 0)
    return -1;
  rlim_t top = old.rlim_max == RLIM_INFINITY || old.rlim_max > PROBE_MAX ? PROBE_MAX : old.rlim_max;
  /* lo is refused (0 always is: this task counts), hi is tried: doubling
   * first, so a uid with few tasks costs few probes, then halving. Other
   * tasks of the uid may start and end meanwhile: the answer is a count
   * the uid had during the search. */
  rlim_t lo = 0, hi = 64;
  for (;;)
    {
      if (hi > top)
        hi = top;
      int fits = task_fits (hi, old.rlim_max);
      if (fits < 0)
        return -1;
      if (fits)
        break;
      if (hi == top)
        return -1;
      lo = hi;
      hi *= 2;
    }
  while (hi - lo > 1)
    {
      rlim_t mid = lo + (hi - lo) / 2;
      int fits = task_fits (mid, old.rlim_max);
      if (fits < 0)
        return -1;
      if (fits)
        hi = mid;
      else
        lo = mid;
    }
  return (int64_t) hi - 1;
}

rlim_t
runner_nproc_limit (int64_t count, int64_t max_processes)
{
  /* The counting task is the run's (its program) or gone (a helper):
   * the others are the rest. */
  int64_t others = count > 0 ? count - 1 : 0;

  return (rlim_t) (others + max_processes + RUNNER_NPROC_HEADROOM (max_processes));
}

int
runner_nproc_apply (const RunnerSandboxPlan *plan)
{
  struct rlimit rl;

  if (plan->max_processes <= 0)
    return 0;
  if (plan->namespaces)
    {
      rl.rlim_cur = rl.rlim_max = (rlim_t) plan->max_processes;
      return setrlimit (RLIMIT_NPROC, &rl);
    }
  if (getrlimit (RLIMIT_NPROC, &rl) != 0)
    return -1;
  rlim_t want = runner_nproc_limit (runner_nproc_count (), plan->max_processes);
  rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
  /* Without the filter the program could raise a soft limit to its hard
   * one: then they are one. */
  if (plan->seccomp == NULL)
    rl.rlim_max = rl.rlim_cur;
  return setrlimit (RLIMIT_NPROC, &rl);
}
