/* runner-spawn.h: starting one run as a supervised process tree.
 *
 *   sandpad-runner ──fork──▶ run init ──fork──▶ program (execve)
 *
 * The "run init" is a small forked copy of the runner that does nothing but
 * supervise one run: it is a child subreaper, so every process the program
 * starts (even a double-forked daemon that called setsid) stays its
 * descendant; when the program exits, or the runner says so, it kills and
 * reaps all of them and reports the program's status, its wall time and
 * the CPU time and peak memory of the whole tree. The runner talks to it
 * through two pipes: control (runner → init, one byte per command) and
 * status (init → runner, one fixed-size report). If the runner dies, the
 * control pipe reports EOF and init kills the tree.
 *
 * In namespace mode one more process sits between: the supervisor enters
 * the new namespaces and forks the init, which is pid 1 of the new pid
 * namespace and builds the private root before forking the program; when
 * pid 1 exits, the kernel kills whatever is left in the namespace. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner-cgroup.h"
#include "runner-sandbox.h"

/* Commands on the control pipe. */
#define RUNNER_CTL_INTERRUPT 'I' /* SIGINT to the program's process group */
#define RUNNER_CTL_TERMINATE 'T' /* SIGTERM to every process of the run */
#define RUNNER_CTL_KILL 'K'      /* SIGKILL to every process of the run */

typedef enum
{
  RUNNER_REPORT_EXITED = 1,      /* wait_status is valid */
  RUNNER_REPORT_EXEC_FAILED = 2, /* error_errno says why execve failed */
  RUNNER_REPORT_SETUP_FAILED = 3 /* the child could not set itself up */
} RunnerReportKind;

/* Written once, atomically (it is well under PIPE_BUF). */
typedef struct
{
  int32_t kind;
  int32_t wait_status;
  int32_t error_errno;
  int32_t error_step; /* which setup step failed, see runner-spawn.c */
  int64_t wall_ns;    /* from just before fork to the program's exit */
  int64_t cpu_ns;     /* user + system of every reaped process of the run */
  int64_t maxrss_kib; /* largest resident set of any one of them (getrusage) */
  int64_t swept;      /* processes still alive when the program ended, killed */
} RunnerReport;

#define RUNNER_SPAWN_MAX_EXTRA_FDS 2

typedef struct
{
  const char *path; /* interpreter, absolute */
  char *const *argv;
  char *const *envp;
  const char *cwd;
  const RunnerSandboxPlan *sandbox; /* every layer and limit (its limits: the rlimits) */
  int stdin_fd;                     /* the program's 0, 1, 2 */
  int stdout_fd;
  int stderr_fd;
  /* NULL, or RUNNER_CGROUP_MAX_FDS fds of the run's cgroup.procs files
   * (-1 for none): the run init joins the run's cgroups before anything
   * else, so all it starts is charged there (runner-cgroup.h). */
  const int *cgroup_fds;
  int control_fd; /* read end, for init */
  int status_fd;  /* write end, for init */
  /* More fds for the program, as its 3, 4, ... (a session's channel to
   * the runner); every other fd of the runner is closed, as without. */
  int extra_fds[RUNNER_SPAWN_MAX_EXTRA_FDS];
  int n_extra_fds;
  /* NULL: the program execve's path. A jmp_buf (the warm path,
   * runner-warm-child.c): the program takes every step of a cold run, then
   * closes every fd but 0-2 and longjmp's here instead of exec. */
  void *resume;
} RunnerSpawnSpec;

/* Forks the run init; returns its pid, or -1 with errno set. The caller
 * closes its copies of the child's ends afterwards. */
pid_t runner_spawn (const RunnerSpawnSpec *spec);

/* In a freshly forked child: closes every fd but keep[0..n) (reordered)
 * and gives it /dev/null as 0, 1 and 2 (none of keep may be 0-2).
 * 0, or -1. */
int runner_spawn_keep_fds (int *keep, size_t n);

/* The warm path's pieces (runner-warm-child.c, runner-warm-init.c), for a
 * program forked ahead of its run from a warm interpreter:
 *
 * In the program, once the run's plan and pipes have arrived: every step a
 * cold program takes before exec (spec->resume must be set: it longjmp's
 * there instead), failures written to err_fd for the init. */
void runner_spawn_program (const RunnerSpawnSpec *spec, pid_t init_pid, int err_fd)
  __attribute__ ((noreturn));
/* In the program: err_fd gets why a step failed, then it exits. */
void runner_spawn_fail (int err_fd, int step) __attribute__ ((noreturn));
/* In its run init (the program's parent): supervise it as if forked here;
 * err_r is the program's error channel (a SOCK_SEQPACKET socket, as a
 * forked program's is, which may bring its seccomp listener), which first
 * carries the CPU time the program spent before its run (int64 ns). */
void runner_spawn_adopt (pid_t program, int control, int status_fd, int err_r)
  __attribute__ ((noreturn));

/* Children of any thread of parent (0: the caller), zombies included, from
 * procfs; at most max. The run init sweeps with it; the runner's tree
 * watch (watch/runner-tree.c) walks a run with it. */
size_t runner_spawn_list_children (pid_t parent, pid_t *out, size_t max);

/* Human-readable name of a failed setup step. */
const char *runner_spawn_step_name (int step);
