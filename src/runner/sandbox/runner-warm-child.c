/* runner-warm-child.c: the warm path's way into the sandbox.
 *
 * Built into sandpad-warm.so, which the warm parent (a python3 that has
 * imported numpy and matplotlib and runs no user code, see
 * engine/runner-warm.c) loads with ctypes.PyDLL. The forks that make a
 * run's processes copy the page tables of the whole warm interpreter,
 * which costs more than the run of a small snippet; so they happen ahead
 * of the run, while the machine is idle: sp_warm_prefork() makes a spare
 *
 *   warm parent ──vfork──▶ supervisor ──clone──▶ run init ──fork──▶ program
 *                                        (pid 1 of new               (a copy of the
 *                                         namespaces)                 warm python)
 *
 * the same processes a cold run has (in fallback mode the supervisor is
 * the run init), where the supervisor and the init, both in the warm
 * parent's memory until then (vfork, and a clone with CLONE_VM |
 * CLONE_VFORK), then exec
 * sandpad-warm-init, a small binary (runner-warm-init.c), so that only the
 * program holds the warm interpreter's memory. They exec it through an fd
 * the warm parent opened as the runner's uid: by then the supervisor is
 * the run's uid (nobody under a root runner), which may not be able to
 * reach the folder the runner is installed or built in (a clone under
 * /root, a 0700 folder). Whether both execs happened comes back on a
 * socket of its own (sp_warm_spare_check()), so a spare that could not
 * start is never handed a run. The program waits in
 * sp_warm_enter() for the run: the init relays the plan and the run's
 * pipes to it, the program builds the private root (namespace mode), then
 * takes every step a cold program takes before exec, except that the last
 * one returns into the interpreter instead of execve'ing one.
 *
 * The plan is NUL-separated "key=value" text: paths, limits and switches,
 * nothing the run's user wrote (code, arguments and environment reach the
 * program through its own code directory, never the warm parent). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runner-cgroup.h"
#include "runner-plan.h"
#include "runner-sandbox.h"
#include "runner-seccomp.h"
#include "runner-spawn.h"
#include "runner-util.h"
#include "runner-warm-init.h"

/* The run's plan, decoded by the one strict decoder (runner-plan.c), and
 * the filter compiled for it. */
typedef struct
{
  RunnerPlanMsg m;
  RunnerSeccompFilter filter;
} WarmPlan;

pid_t sp_warm_prefork (const char *blob, size_t len, int helper_fd, const int *join, size_t n_join,
                       int out[3]);
int sp_warm_spare_check (int report, int timeout_ms, char *why, size_t size);
int sp_warm_enter (int channel, pid_t init_pid, char *buf, size_t size, const uint64_t *hot,
                   size_t n_hot, int idle_ms, int *copied);
int sp_warm_seat_limit (int version, int memory_dir, int pids_dir, const char *plan, size_t len);
void sp_warm_populate (const uint64_t *hot, size_t n_hot);
ssize_t sp_warm_written (int fd);

/* What the report socket carries when a spare's process cannot start: the
 * step (one of these) and errno, two int32. Nothing at all (EOF) when the
 * supervisor and the init have both exec'd sandpad-warm-init. */
enum
{
  SPARE_FAILED_SETUP = 1, /* before its exec: fds, namespaces, fork */
  SPARE_FAILED_EXEC_SUPERVISOR,
  SPARE_FAILED_EXEC_INIT,
};

/* In a spare's supervisor or init: tells the warm parent why it cannot go
 * on (errno as it was), then exits. The program-to-be dies with the init
 * (its parent-death signal). */
static void __attribute__ ((noreturn)) spare_fail (int report, int step)
{
  int32_t msg[2] = { step, errno };

  write_all (report, msg, sizeof msg);
  _exit (126);
}

/* Puts fds[i] at first + i and closes every fd above them. inherit[i]
 * says whether it stays open across exec; the others are close-on-exec,
 * so that sandpad-warm-init starts with its own fds only. On failure an fd
 * numbered 10 or above when called is still open as it was. */
static int
place_fds (int *fds, const bool *inherit, size_t n, int first)
{
  /* Above every target first, so no dup clobbers a later one. */
  for (size_t i = 0; i < n; i++)
    if ((fds[i] = fcntl (fds[i], F_DUPFD_CLOEXEC, 10)) < 0)
      return -1;
  for (size_t i = 0; i < n; i++)
    if (dup3 (fds[i], first + (int) i, inherit[i] ? 0 : O_CLOEXEC) != first + (int) i)
      return -1;
  return (int) syscall (SYS_close_range, first + (unsigned) n, ~0U, 0);
}

/* Execs sandpad-warm-init from the fd the warm parent opened, not by its
 * path: this process may already be the run's uid, which need not be able
 * to search the folder holding it. The fd is close-on-exec, which
 * execveat() allows for a binary (not for a script, which would need it
 * by name), so the helper does not inherit it. */
static void __attribute__ ((noreturn))
exec_helper (int helper_fd, int report, char **argv, int step)
{
  char *envp[] = { NULL };

  fexecve (helper_fd, argv, envp);
  spare_fail (report, step);
}

/* In the init-to-be (pid 1, or the supervisor in fallback mode): forks the
 * program, then becomes sandpad-warm-init with the warm parent's socket as
 * fd 3, the program's as fd 4 and the seat's cgroup.procs files (join,
 * n_join of them) from fd 5 on. Returns only in the program. */
static void
become_init (int helper_fd, int report, int from_parent, int to_program, int program_end,
             const int *join, size_t n_join, int out[3])
{
  pid_t self = getpid ();
  pid_t program = fork ();

  if (program < 0)
    spare_fail (report, SPARE_FAILED_SETUP);
  if (program == 0)
    {
      /* The program-to-be keeps only its end of the channel: not the
       * helper's fd, not the report socket (whose EOF says its init exec'd). */
      int keep[1] = { program_end };
      if (runner_spawn_keep_fds (keep, 1) != 0)
        _exit (126);
      if (prctl (PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid () != self)
        _exit (126);
      out[0] = program_end;
      out[1] = self;
      return;
    }
  char pid_text[24], join_text[24];
  char *argv[] = { (char *) "sandpad-warm-init", (char *) RUNNER_WARM_INIT_ROLE_INIT, pid_text,
                   join_text, NULL };
  snprintf (pid_text, sizeof pid_text, "%d", (int) program);
  snprintf (join_text, sizeof join_text, "%zu", n_join);
  /* 3, 4 and the seat's from 5 on for sandpad-warm-init; the helper and
   * the report socket above them, closed by the exec. */
  int report_high = fcntl (report, F_DUPFD_CLOEXEC, 10); /* still itself if placing fails */
  if (report_high < 0 || n_join > RUNNER_CGROUP_MAX_FDS)
    spare_fail (report, SPARE_FAILED_SETUP);
  int fds[4 + RUNNER_CGROUP_MAX_FDS] = { from_parent, to_program };
  bool inherit[4 + RUNNER_CGROUP_MAX_FDS] = { true, true };
  size_t n = 2;
  for (size_t i = 0; i < n_join; i++, n++)
    {
      fds[n] = join[i];
      inherit[n] = true;
    }
  fds[n++] = helper_fd;
  fds[n++] = report_high;
  if (place_fds (fds, inherit, n, RUNNER_WARM_INIT_PARENT_FD) != 0)
    spare_fail (report_high, SPARE_FAILED_SETUP);
  exec_helper (RUNNER_WARM_INIT_PARENT_FD + (int) n - 2, RUNNER_WARM_INIT_PARENT_FD + (int) n - 1,
               argv, SPARE_FAILED_EXEC_INIT);
}

/* What the spare's pid 1 needs (namespace mode): the fds become_init()
 * takes, and where the program goes back to the interpreter from. */
typedef struct
{
  int helper_fd, report, a1, b0, b1;
  const int *join;
  size_t n_join;
  int *out;
  jmp_buf *back;
  uid_t uid; /* its ids outside the new user namespace */
  gid_t gid;
} Pid1Args;

/* pid 1 of the run's namespaces, cloned into them sharing the warm
 * parent's memory (vfork-like) on a stack of its own: forks the program
 * and execs sandpad-warm-init. The program, a copy of that memory, goes
 * back to sp_warm_prefork()'s frame, the one it has in its copy, and
 * returns from there into the interpreter. */
static int
pid1_main (void *data)
{
  Pid1Args *args = data;

  /* If the supervisor goes, so does the whole namespace. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) != 0)
    spare_fail (args->report, SPARE_FAILED_SETUP);
  /* The new user namespace's ids, as its creator maps them for itself
   * (a cold run's supervisor does the same after its unshare), before the
   * exec that makes it undumpable and its /proc files root's. */
  cleanup_fd int self = open ("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (self < 0 || runner_sandbox_map_ids (self, args->uid, args->gid) != 0)
    spare_fail (args->report, SPARE_FAILED_SETUP);
  become_init (args->helper_fd, args->report, args->a1, args->b0, args->b1, args->join,
               args->n_join, args->out);
  longjmp (*args->back, 1);
}

/* The stack pid 1 runs on until it execs, in the supervisor's frame (the
 * supervisor waits meanwhile); the program's copy leaves it at once. */
#define PID1_STACK_SIZE (256 * 1024)

/* The supervisor, namespace mode (itself vforked, in the warm parent's
 * memory): clones pid 1 into new namespaces, user namespace first, the
 * same ones a cold run's supervisor enters with unshare
 * (runner_sandbox_enter_namespaces()), and execs sandpad-warm-init to wait
 * for pid 1. Neither it nor pid 1 copies the warm interpreter's
 * page tables: only the program does, once (a fork of the whole warm
 * interpreter and the exec that tears the copy down cost a spare ~3 ms of
 * CPU, on every warm run's machine). Does not return. */
static void __attribute__ ((noreturn)) supervise_namespaces (WarmPlan *w, Pid1Args *args)
{
  if (runner_sandbox_leave_root (&w->m.plan) != 0)
    spare_fail (args->report, SPARE_FAILED_SETUP);
  args->uid = geteuid ();
  args->gid = getegid ();
  _Alignas(16) char stack[PID1_STACK_SIZE];
  pid_t pid1 = clone (pid1_main, stack + sizeof stack,
                      CLONE_VM | CLONE_VFORK | CLONE_NEWUSER | runner_sandbox_ns_flags (&w->m.plan)
                        | SIGCHLD,
                      args);
  if (pid1 < 0)
    spare_fail (args->report, SPARE_FAILED_SETUP);
  /* pid 1 has exec'd, or failed and said so. The supervisor joins its
   * namespaces but the pid namespace, as a cold run's supervisor is in
   * them after its unshare: the runner reaches the run's network
   * namespace through it (its socket queues, runner-sockets.c). */
  int flags = runner_sandbox_ns_flags (&w->m.plan) & ~CLONE_NEWPID;
  cleanup_fd int pidfd = (int) syscall (SYS_pidfd_open, pid1, 0);
  if (pidfd < 0 || setns (pidfd, CLONE_NEWUSER | flags) != 0)
    {
      int errsv = errno;
      kill (pid1, SIGKILL);
      errno = errsv;
      spare_fail (args->report, SPARE_FAILED_SETUP);
    }
  char *argv[] = { (char *) "sandpad-warm-init", (char *) RUNNER_WARM_INIT_ROLE_SUPERVISOR, NULL };
  int report_high = fcntl (args->report, F_DUPFD_CLOEXEC, 10); /* still itself if placing fails */
  if (report_high < 0)
    spare_fail (args->report, SPARE_FAILED_SETUP);
  int fds[2] = { args->helper_fd, report_high };
  static const bool inherit[2] = { false, false };
  if (place_fds (fds, inherit, 2, 3) != 0)
    spare_fail (report_high, SPARE_FAILED_SETUP);
  exec_helper (3, 4, argv, SPARE_FAILED_EXEC_SUPERVISOR);
}

/* Whether this process has one thread, from /proc/self/status. */
static bool
single_threaded (void)
{
  char buf[4096];
  cleanup_fd int fd = open ("/proc/self/status", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
  const char *line;

  if (n <= 0)
    return false;
  buf[n] = '\0';
  line = strstr (buf, "\nThreads:");
  return line != NULL && strtol (line + strlen ("\nThreads:"), NULL, 10) == 1;
}

/* In the warm parent: makes a spare run for plans like this one (its mode,
 * network setting and uid), its supervisor and init to exec helper_fd
 * (sandpad-warm-init, opened by the warm parent). Returns the supervisor's
 * pid with out[0] the socket to send the run's plan and pipes on and out[2]
 * the report socket for sp_warm_spare_check(); in the spare's program, 0
 * with out[0] its channel and out[1] its init's pid, to pass to
 * sp_warm_enter(); -1 with errno set. */
pid_t
sp_warm_prefork (const char *blob, size_t len, int helper_fd, const int *join, size_t n_join,
                 int out[3])
{
  WarmPlan w = { 0 };
  int a[2], b[2], r[2];

  if (runner_plan_decode (blob, len, RUNNER_PLAN_SPARE, &w.m) != 0 || helper_fd < 0
      || n_join > RUNNER_CGROUP_MAX_FDS || (n_join > 0 && join == NULL))
    {
      errno = EINVAL;
      return -1;
    }
  /* A socket rather than a pipe: any pipe the warm parent held would be a
   * run's, which it must never keep (test-warm.py looks). */
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, r) != 0)
    return -1;
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, a) != 0)
    {
      close (r[0]);
      close (r[1]);
      return -1;
    }
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, b) != 0)
    {
      close (r[0]);
      close (r[1]);
      close (a[0]);
      close (a[1]);
      return -1;
    }
  /* The spare's side calls malloc and opens files after this fork, which
   * is only safe in a child of a single-threaded process: another thread
   * may hold the allocator's lock at the fork. The warm parent starts with
   * its thread pools at one thread; a snippet cannot run here, but an
   * import that started a thread would show up now, so refuse to fork. */
  if (!single_threaded ())
    {
      close (r[0]);
      close (r[1]);
      close (a[0]);
      close (a[1]);
      close (b[0]);
      close (b[1]);
      errno = EDEADLK;
      return -1;
    }
  /* The program of a namespace-mode spare comes back here from its pid 1
   * (pid1_main()), in its own copy of this frame, and returns 0. */
  jmp_buf back;
  if (setjmp (back) != 0)
    return 0;
  /* The supervisor only forks or clones the spare's next process and
   * execs (in fallback mode it is the run init), so it is vforked, which
   * spares a copy of the interpreter's page tables. Vforked, it never
   * returns from here (only the program does), and the warm parent waits
   * until it has exec'd. */
  pid_t pid = vfork ();
  if (pid != 0)
    {
      int errsv = errno;
      close (a[1]);
      close (b[0]);
      close (b[1]);
      close (r[1]);
      if (pid < 0)
        {
          close (a[0]);
          close (r[0]);
        }
      out[0] = pid > 0 ? a[0] : -1;
      out[2] = pid > 0 ? r[0] : -1;
      errno = errsv;
      return pid;
    }

  /* The supervisor: nothing of the warm parent but these fds. */
  int keep[5 + RUNNER_CGROUP_MAX_FDS] = { a[1], b[0], b[1], helper_fd, r[1] };
  for (size_t i = 0; i < n_join; i++)
    keep[5 + i] = join[i];
  if (runner_spawn_keep_fds (keep, 5 + n_join) != 0)
    spare_fail (r[1], SPARE_FAILED_SETUP);
  setsid ();
  /* Every orphan of the run is ours (fallback mode), and the supervisor is
   * gone with the warm parent while it is only a spare: EOF on the socket
   * tells the init so, see runner-warm-init.c. */
  if (prctl (PR_SET_CHILD_SUBREAPER, 1) != 0)
    spare_fail (r[1], SPARE_FAILED_SETUP);
  if (w.m.plan.namespaces)
    {
      Pid1Args args = { helper_fd, r[1], a[1], b[0], b[1], join, n_join, out, &back, 0, 0 };
      supervise_namespaces (&w, &args);
    }
  become_init (helper_fd, r[1], a[1], b[0], b[1], join, n_join, out);
  return 0;
}

/* In the warm parent: whether a spare's supervisor and init both exec'd
 * sandpad-warm-init, waiting up to timeout_ms for them. 1 when they did;
 * 0 when they have not yet; -2 when one could not for want of a resource
 * that may come back (a process, memory, a namespace or an fd under a
 * limit others share: that spare is dropped, a later one may start); -1
 * when one could not otherwise, with why said in why (the warm pool is
 * then of no use: the runner turns it off). */
int
sp_warm_spare_check (int report, int timeout_ms, char *why, size_t size)
{
  struct pollfd pfd = { .fd = report, .events = POLLIN };
  int32_t msg[2];
  int rc;

  if (why == NULL || size == 0)
    return -1;
  do
    rc = poll (&pfd, 1, timeout_ms);
  while (rc < 0 && errno == EINTR);
  if (rc == 0)
    return 0;
  ssize_t n = rc > 0 ? read (report, msg, sizeof msg) : -1;
  if (n == 0)
    return 1; /* every write end closed by exec (or exit: its pidfd says) */
  if (n != (ssize_t) sizeof msg)
    {
      snprintf (why, size, "cannot read the warm spare's start report");
      return -1;
    }
  if (msg[0] == SPARE_FAILED_SETUP
      && (msg[1] == EAGAIN || msg[1] == ENOMEM || msg[1] == ENOSPC || msg[1] == EMFILE
          || msg[1] == ENFILE || msg[1] == EUSERS || msg[1] == EINTR))
    return -2;
  if (msg[0] == SPARE_FAILED_EXEC_SUPERVISOR || msg[0] == SPARE_FAILED_EXEC_INIT)
    snprintf (why, size, "the warm spare's %s cannot execute sandpad-warm-init: %s",
              msg[0] == SPARE_FAILED_EXEC_INIT ? "run init" : "supervisor", strerror (msg[1]));
  else
    snprintf (why, size, "the warm spare cannot set up its processes: %s", strerror (msg[1]));
  return -1;
}

/* The spare program's CPU time so far, for its init to leave out. */
static int64_t
cpu_so_far (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return 0;
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Pages copied between two looks at the channel: ~0.1 ms of copying, so a
 * run that arrives meanwhile waits no longer than that. */
#define IDLE_COPY_PAGES 32

/* Whether a processor is free: fewer tasks ready to run, this one aside,
 * than processors online (/proc/loadavg's fourth field counts every task
 * on the machine's run queues now, whatever our namespaces). When it
 * cannot tell, no: the copy is only a speed-up. */
static bool
cpu_to_spare (void)
{
  char text[128];
  int fd = open ("/proc/loadavg", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return false;
  ssize_t n = read (fd, text, sizeof text - 1);
  close (fd);
  if (n <= 0)
    return false;
  text[n] = '\0';
  long running = 0;
  if (sscanf (text, "%*s %*s %*s %ld/", &running) != 1)
    return false;
  return running - 1 < sysconf (_SC_NPROCESSORS_ONLN);
}

static bool
channel_ready (int channel, int timeout_ms)
{
  struct pollfd pfd = { .fd = channel, .events = POLLIN };

  return poll (&pfd, 1, timeout_ms) != 0;
}

/* In a spare's program that is ready (it said so: its copies are the
 * seat's from now on), before it takes its run: once no run has come
 * for idle_ms, and while a processor is free (nothing else waits for the
 * CPU: on a busy machine a run pays its own faults, as it did), copies
 * the pages a chart writes (as sp_warm_populate()), a few at a time, and
 * stops as soon as a run arrives. Calls that come back to back take
 * their spare before idle_ms and copy nothing ahead (the copy in every
 * spare was most of a small run's CPU); a run after a pause finds them
 * copied, off its path, when the machine had time to spare. The copies
 * are charged to the seat, as the run's own would be. Returns 1 when
 * every range was copied, else 0. */
/* Waits idle_ms at least, then until a processor is free (a busy machine
 * may be idle a moment later: looked at again each idle_ms); false as
 * soon as the run arrives. */
static bool
wait_for_cpu (int channel, int idle_ms)
{
  do
    if (channel_ready (channel, idle_ms))
      return false;
  while (!cpu_to_spare ());
  return true;
}

static int
idle_copy (int channel, const uint64_t *hot, size_t n_hot, int idle_ms)
{
  size_t page = (size_t) sysconf (_SC_PAGESIZE);

  if (hot == NULL || n_hot == 0 || !wait_for_cpu (channel, idle_ms))
    return 0;
  /* Most ranges are a few pages: the channel is looked at once enough
   * pages were copied, not after each range. */
  size_t since_look = 0, looks = 0;
  for (size_t i = 0; i < n_hot; i++)
    {
      uintptr_t at = (uintptr_t) hot[2 * i], end = (uintptr_t) hot[2 * i + 1];
      while (at < end)
        {
          size_t len = end - at < IDLE_COPY_PAGES * page ? end - at : IDLE_COPY_PAGES * page;
          madvise ((void *) at, len, MADV_POPULATE_WRITE);
          at += len;
          since_look += len / page;
          if (since_look >= IDLE_COPY_PAGES)
            {
              since_look = 0;
              if (channel_ready (channel, 0))
                return 0;
              /* Now and then: whether the machine got busy meanwhile
               * (then wait until it is not, or the run comes). */
              if (++looks % 16 == 0 && !cpu_to_spare () && !wait_for_cpu (channel, idle_ms))
                return 0;
            }
        }
    }
  return 1;
}

/* In the spare's program: waits for the run, then applies every layer.
 * Returns the length of the run's file name (RunnerPlanWarm.run_file),
 * which it leaves in buf, NUL-terminated, with fds
 * 0-2 the run's pipes and nothing else open; exits when there will be no run
 * or a step fails (the init reports which). */
int
sp_warm_enter (int channel, pid_t init_pid, char *buf, size_t size, const uint64_t *hot,
               size_t n_hot, int idle_ms, int *copied)
{
  WarmPlan w = { 0 };
  jmp_buf resume;
  int fds[4] = { -1, -1, -1, -1 };

  if (buf == NULL || size < 2)
    _exit (126);
  /* Ready: the init may move it into its seat now. No init to hear it
   * (its run came first and it went on): no matter. */
  send (channel, "r", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
  /* Waiting, after a pause, while a processor is free: a chart's pages. */
  *copied = idle_copy (channel, hot, n_hot, idle_ms);
  ssize_t n = recv_with_fds (channel, buf, size - 1, fds, 4);
  if (n == 0)
    _exit (0); /* no run will come: the warm parent retired us */
  if (n < 0)
    _exit (126);
  close (channel);
  int err_fd = fds[3];
  int64_t spent = cpu_so_far ();
  if (write_all (err_fd, &spent, sizeof spent) != 0)
    _exit (126);
  buf[n] = '\0';
  if (runner_plan_decode (buf, (size_t) n, RUNNER_PLAN_RUN, &w.m) != 0)
    {
      errno = EINVAL;
      runner_spawn_fail (err_fd, 0);
    }
  if (w.m.use_seccomp)
    {
      RunnerSeccompPolicy policy = { .fallback = !w.m.plan.namespaces,
                                     .network = w.m.plan.network };
      if (runner_seccomp_compile (&policy, &w.filter) != 0)
        runner_spawn_fail (err_fd, RUNNER_STEP_SECCOMP);
      w.m.plan.seccomp = &w.filter;
    }
  /* The namespaces were entered ahead; the root is this run's. */
  if (w.m.plan.namespaces)
    {
      int step = runner_sandbox_build_root (&w.m.plan);
      if (step != 0)
        runner_spawn_fail (err_fd, step);
    }
  w.m.spec.sandbox = &w.m.plan;
  w.m.spec.stdin_fd = fds[0];
  w.m.spec.stdout_fd = fds[1];
  w.m.spec.stderr_fd = fds[2];
  w.m.spec.resume = &resume;
  /* A warm run's plan names the file with its argv and environment. */
  if (w.m.warm.run_file == NULL)
    {
      errno = EINVAL;
      runner_spawn_fail (err_fd, 0);
    }
  /* The program's last step comes back here instead of exec: the run's
   * file name, which points into buf, moved to its start. */
  if (setjmp (resume) != 0)
    {
      size_t name_len = strlen (w.m.warm.run_file);
      memmove (buf, w.m.warm.run_file, name_len + 1);
      return (int) name_len;
    }
  runner_spawn_program (&w.m.spec, init_pid, err_fd);
}

/* Whether a line of /proc/self/maps is a private writable mapping (the
 * heap and the stack among them), not the kernel's [vvar] and friends:
 * what a fork shares copy-on-write. Its bounds in start and end. */
static bool
private_writable (const char *line, unsigned long *start, unsigned long *end)
{
  char perms[8] = "";
  int name_at = 0;

  if (sscanf (line, "%lx-%lx %7s %*s %*s %*s %n", start, end, perms, &name_at) < 3)
    return false;
  const char *name = name_at > 0 ? line + name_at : "";
  return perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p' && strncmp (name, "[v", 2) != 0;
}

/* In a warm run's program that draws a chart, before the snippet: makes
 * its own copy of the private pages it shares with the warm parent that a
 * chart writes (n_hot [start, end) pairs, learnt by the parent's probe,
 * sp_warm_written()), one madvise a range instead of a page fault each
 * while drawing (a fault costs ~50 us on a VM). A chart writes ~1,300
 * ranges of a few pages each: one madvise a range and nothing more, or
 * the system calls cost as much as the copies. A range the parent has
 * unmapped since fails alone. */
void
sp_warm_populate (const uint64_t *hot, size_t n_hot)
{
  for (size_t i = 0; hot != NULL && i < n_hot; i++)
    if (hot[2 * i] < hot[2 * i + 1])
      madvise ((void *) (uintptr_t) hot[2 * i], (size_t) (hot[2 * i + 1] - hot[2 * i]),
               MADV_POPULATE_WRITE);
}

/* /proc/self/pagemap's bits: the page is present, and mapped by this
 * process only (for an anonymous page of a fork: written since, copied). */
#define PAGEMAP_PRESENT (1ULL << 63)
#define PAGEMAP_EXCLUSIVE (1ULL << 56)

/* In the warm parent's probe, a fork of it that has drawn a chart: writes
 * to fd, as [start, end) pairs of uint64, the ranges of its private
 * writable pages it has its own copy of now, the pages a run like that
 * writes (what a chart run copies first, sp_warm_populate()). Returns how many pairs,
 * or -1 (no pagemap here: the spares then copy everything). */
ssize_t
sp_warm_written (int fd)
{
  FILE *maps = fopen ("/proc/self/maps", "re");
  cleanup_fd int pagemap = open ("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  size_t page = (size_t) sysconf (_SC_PAGESIZE);
  char line[512];
  uint64_t entries[512];
  ssize_t pairs = 0;

  if (maps == NULL || pagemap < 0)
    {
      if (maps != NULL)
        fclose (maps);
      return -1;
    }
  while (fgets (line, sizeof line, maps) != NULL)
    {
      unsigned long start, end;
      uint64_t run_start = 0;

      if (!private_writable (line, &start, &end))
        continue;
      unsigned long at = start;
      while (at < end)
        {
          size_t want = (end - at) / page;
          if (want > N_ELEMENTS (entries))
            want = N_ELEMENTS (entries);
          ssize_t n = pread (pagemap, entries, want * sizeof *entries,
                             (off_t) (at / page * sizeof *entries));
          if (n <= 0 || n % (ssize_t) sizeof *entries != 0)
            break;
          for (size_t i = 0; i < (size_t) n / sizeof *entries; i++, at += page)
            {
              bool written = (entries[i] & (PAGEMAP_PRESENT | PAGEMAP_EXCLUSIVE))
                             == (PAGEMAP_PRESENT | PAGEMAP_EXCLUSIVE);
              if (written && run_start == 0)
                run_start = at;
              if (!written && run_start != 0)
                {
                  uint64_t pair[2] = { run_start, at };
                  if (write_all (fd, pair, sizeof pair) != 0)
                    goto fail;
                  pairs++;
                  run_start = 0;
                }
            }
        }
      if (run_start != 0)
        {
          uint64_t pair[2] = { run_start, at };
          if (write_all (fd, pair, sizeof pair) != 0)
            goto fail;
          pairs++;
        }
    }
  fclose (maps);
  return pairs;
fail:
  fclose (maps);
  return -1;
}

/* In the warm parent, when a spare with a seat takes a run: the run's
 * cgroup limits set on the seat (its directories' fds), read from the
 * run's plan by the one strict decoder. The driver passes the plan's
 * bytes and the fds and reads nothing of it. 0, or -1 with errno set (a
 * plan that does not decode, or has no limits). */
int
sp_warm_seat_limit (int version, int memory_dir, int pids_dir, const char *plan, size_t len)
{
  RunnerPlanMsg m;

  if (runner_plan_decode (plan, len, RUNNER_PLAN_RUN, &m) != 0)
    return -1;
  if (!m.warm.cgroup)
    return errno = EINVAL, -1;
  return runner_cgroup_limit_at (version, memory_dir, pids_dir, m.plan.limits.cgroup_memory_bytes,
                                 m.plan.limits.cgroup_tasks);
}
