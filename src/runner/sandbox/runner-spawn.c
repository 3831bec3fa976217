/* runner-spawn.c: the run init and the program's last steps before exec.
 *
 * Everything after fork() here runs in a child of a single-threaded
 * process, so ordinary libc calls are safe; nothing touches the runner's
 * state, and both children leave only through exec or _exit. */
#include "runner-spawn.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "runner-nproc.h"
#include "runner-seccomp-notify.h"
#include "runner-util.h"

enum
{
  STEP_NONE,
  STEP_FORK,
  STEP_SESSION,
  STEP_PDEATHSIG,
  STEP_FDS,
  STEP_SIGNALS,
  STEP_RLIMITS,
  STEP_CHDIR,
  STEP_EXEC,
  STEP_LAST
};

static const char *const step_names[STEP_LAST] = {
  [STEP_NONE] = "setup",
  [STEP_FORK] = "fork",
  [STEP_SESSION] = "setsid",
  [STEP_PDEATHSIG] = "parent-death signal",
  [STEP_FDS] = "file descriptors",
  [STEP_SIGNALS] = "signal reset",
  [STEP_RLIMITS] = "resource limits",
  [STEP_CHDIR] = "working directory",
  [STEP_EXEC] = "execve",
};

const char *
runner_spawn_step_name (int step)
{
  const char *name = runner_sandbox_step_name (step);

  if (name != NULL)
    return name;
  if (step <= STEP_NONE || step >= STEP_LAST)
    return step_names[STEP_NONE];
  return step_names[step];
}

/* Closes every fd except those in keep[] (sorted ascending). */
static void
close_all_except (const int *keep, size_t n_keep)
{
  unsigned int from = 0;

  for (size_t i = 0; i <= n_keep; i++)
    {
      unsigned int to = i < n_keep ? (unsigned int) keep[i] : ~0U;

      if (to > from && syscall (SYS_close_range, from, to - 1, 0) != 0)
        {
          /* Kernels before 5.9: close one by one. */
          long max = sysconf (_SC_OPEN_MAX);
          for (long fd = from; fd < (long) to && fd < max; fd++)
            close ((int) fd);
        }
      from = to + 1;
    }
}

static int
cmp_int (const void *a, const void *b)
{
  return *(const int *) a - *(const int *) b;
}

int
runner_spawn_keep_fds (int *keep, size_t n)
{
  qsort (keep, n, sizeof keep[0], cmp_int);
  close_all_except (keep, n);
  int devnull = open ("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull != 0 || dup2 (0, 1) != 1 || dup2 (0, 2) != 2)
    return -1;
  return 0;
}

/* Moves fds to 10 and above, so that dup2 onto 0..2 cannot clobber one of
 * them, whatever numbers the runner happened to hold them under. */
static int
lift_fd (int fd)
{
  int lifted = fcntl (fd, F_DUPFD_CLOEXEC, 10);

  if (lifted < 0)
    _exit (126);
  return lifted;
}

/* On the error channel, before EOF: the seccomp listener (SCM_RIGHTS),
 * not a failed step. */
#define LISTENER_MESSAGE 0x4c495354

static void __attribute__ ((noreturn)) child_fail (int err_fd, int step)
{
  int32_t msg[2] = { step, errno };

  write_all (err_fd, msg, sizeof msg);
  _exit (127);
}

void
runner_spawn_fail (int err_fd, int step)
{
  child_fail (err_fd, step);
}

static void
set_limit (int resource, int64_t value, int err_fd)
{
  struct rlimit rl = { .rlim_cur = (rlim_t) value, .rlim_max = (rlim_t) value };

  if (value > 0 && setrlimit (resource, &rl) != 0)
    child_fail (err_fd, STEP_RLIMITS);
}

/* In fallback mode the working directory is the host's: entered through
 * a lookup checked against the directory the runner checked, so a symlink
 * swapped into its name since then gives the run nothing (namespace mode
 * checks it the same way when it binds it at /work). */
static int
enter_cwd (const RunnerSpawnSpec *spec)
{
  const RunnerSandboxPlan *plan = spec->sandbox;

  size_t len = plan != NULL ? strlen (plan->work_dir) : 0;

  if (plan == NULL || plan->namespaces || plan->work_ino == 0
      || strncmp (spec->cwd, plan->work_dir, len) != 0
      || (spec->cwd[len] != '\0' && spec->cwd[len] != '/'))
    return chdir (spec->cwd);
  cleanup_fd int fd = runner_sandbox_open_work (plan);
  if (fd < 0 || spec->cwd[len] == '\0')
    return fd < 0 ? -1 : fchdir (fd);
  /* A directory beneath it (the runner resolved its name): looked up
   * beneath the checked fd, so a symlink swapped in since leads nowhere. */
  struct open_how how = {
    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
  };
  cleanup_fd int sub = (int) syscall (SYS_openat2, fd, spec->cwd + len + 1, &how, sizeof how);
  return sub < 0 ? -1 : fchdir (sub);
}

/* The program's side: from a fresh fork of init to execve. */
static void __attribute__ ((noreturn))
exec_program (const RunnerSpawnSpec *spec, pid_t init_pid, int in, int out, int err,
              const int *extra, int err_fd)
{
  sigset_t all;

  /* Its own session and process group: cancel can signal the whole group,
   * and it cannot reach the terminal the runner may have been started on. */
  if (setsid () < 0)
    child_fail (err_fd, STEP_SESSION);
  /* If init dies, the program dies with it instead of running unsupervised. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) != 0)
    child_fail (err_fd, STEP_PDEATHSIG);
  if (getppid () != init_pid)
    _exit (127);

  /* Exactly 0, 1 and 2 survive exec (and the extra fds the spec hands
   * over, as 3, 4, ...); everything else is close-on-exec. The extra fds
   * were lifted to 10 and above, so these dup2s clobber none of them. */
  if (spec->n_extra_fds > 0)
    err_fd = lift_fd (err_fd); /* the error channel may be 3 or 4 */
  if (dup2 (in, 0) < 0 || dup2 (out, 1) < 0 || dup2 (err, 2) < 0)
    child_fail (err_fd, STEP_FDS);
  for (int i = 0; i < spec->n_extra_fds; i++)
    if (dup2 (extra[i], 3 + i) < 0)
      child_fail (err_fd, STEP_FDS);
  int first_closed = 3 + spec->n_extra_fds;
  if (syscall (SYS_close_range, first_closed, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
    {
      long max = sysconf (_SC_OPEN_MAX);
      for (int fd = first_closed; fd < max; fd++)
        if (fd != err_fd)
          close (fd);
      fcntl (err_fd, F_SETFD, FD_CLOEXEC);
    }

  /* init blocks SIGCHLD and the runner ignores SIGPIPE; the program gets
   * the defaults a shell would give it. */
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP)
      signal (sig, SIG_DFL);
  sigemptyset (&all);
  if (sigprocmask (SIG_SETMASK, &all, NULL) != 0)
    child_fail (err_fd, STEP_SIGNALS);

  /* No core dumps: they would write the program's memory to disk. */
  struct rlimit no_core = { 0, 0 };
  if (setrlimit (RLIMIT_CORE, &no_core) != 0)
    child_fail (err_fd, STEP_RLIMITS);
  set_limit (RLIMIT_DATA, spec->sandbox->limits.memory_bytes, err_fd);
  set_limit (RLIMIT_CPU, spec->sandbox->limits.cpu_seconds, err_fd);
  set_limit (RLIMIT_FSIZE, spec->sandbox->limits.file_size_bytes, err_fd);
  set_limit (RLIMIT_NOFILE, spec->sandbox->limits.open_files, err_fd);

  if (enter_cwd (spec) != 0)
    child_fail (err_fd, STEP_CHDIR);
  umask (022);
  /* No exec will close what is close-on-exec: close it now (the warm
   * parent's control socket above all), while close_range is allowed. */
  if (spec->resume != NULL)
    {
      int keep[4] = { 0, 1, 2, err_fd };
      close_all_except (keep, N_ELEMENTS (keep));
    }

  int step = runner_sandbox_restrict (spec->sandbox);
  if (step != 0)
    child_fail (err_fd, step);
  /* Fork and thread bombs (runner-nproc.h): counted per user namespace in
   * namespace mode, per uid in fallback mode, over the count the kernel
   * keeps for the uid now. After the uid change above: a change of uid
   * while the new uid's count is past the limit marks the process, and
   * its execve then fails with EAGAIN ("cannot execute ...: Resource
   * temporarily unavailable") whatever the program would do; and a task
   * that may still pass the check (root, capabilities) cannot measure it. */
  if (runner_nproc_apply (spec->sandbox) != 0)
    child_fail (err_fd, STEP_RLIMITS);
  /* Fallback mode: the directories the run may write beneath, for the run
   * init's answer to futimens through an fd not open for writing (a
   * directory's, which cannot be). */
  int handed[1 + RUNNER_SANDBOX_MAX_WRITABLE];
  int n_dirs = 0;
  if (spec->sandbox != NULL && !spec->sandbox->namespaces && spec->sandbox->seccomp != NULL
      && (n_dirs = runner_sandbox_writable_dirs (spec->sandbox, handed + 1)) < 0)
    child_fail (err_fd, RUNNER_STEP_SECCOMP);
  /* Last: the filter also forbids some of the steps above. */
  step = runner_sandbox_seccomp (spec->sandbox, &handed[0]);
  if (step != 0)
    child_fail (err_fd, step);
  /* The calls the filter hands over (fallback mode's futimens) are the
   * run init's to answer: it gets the listener and the directories, the
   * program keeps none of them. */
  if (handed[0] >= 0)
    {
      int32_t msg[2] = { LISTENER_MESSAGE, 0 };
      if (send_with_fds (err_fd, msg, sizeof msg, handed, 1 + (size_t) n_dirs) != 0)
        child_fail (err_fd, RUNNER_STEP_SECCOMP);
      close (handed[0]);
    }
  for (int i = 1; i <= n_dirs; i++)
    close (handed[i]);

  if (spec->resume != NULL)
    {
      /* EOF on the error channel tells init the program runs, as exec would. */
      close (err_fd);
      longjmp (*(jmp_buf *) spec->resume, 1);
    }
  execve (spec->path, spec->argv, spec->envp);
  child_fail (err_fd, STEP_EXEC);
}

/* Children of any thread of `parent`, zombies included, from procfs; 0 is
 * the calling process, through /proc/self, so the run init finds its own
 * whichever pid namespace numbers it. */
size_t
runner_spawn_list_children (pid_t parent, pid_t *out, size_t max)
{
  char path[64], proc[32];
  size_t n = 0;

  if (parent == 0)
    snprintf (proc, sizeof proc, "/proc/self");
  else
    snprintf (proc, sizeof proc, "/proc/%d", (int) parent);
  if (parent == 0)
    parent = getpid ();
  snprintf (path, sizeof path, "%s/task", proc);
  DIR *tasks = opendir (path);
  struct dirent *entry;
  bool have_children_files = false;
  while (tasks != NULL && (entry = readdir (tasks)) != NULL)
    {
      char children[64 + sizeof entry->d_name];
      int pid;

      if (atoi (entry->d_name) <= 0)
        continue;
      snprintf (children, sizeof children, "%s/task/%s/children", proc, entry->d_name);
      FILE *file = fopen (children, "re");
      if (file == NULL)
        continue;
      have_children_files = true;
      while (n < max && fscanf (file, "%d", &pid) == 1)
        out[n++] = pid;
      fclose (file);
    }
  if (tasks != NULL)
    closedir (tasks);
  if (have_children_files)
    return n;

  /* No CONFIG_PROC_CHILDREN: scan every process for parent as its parent. */
  DIR *dir = opendir ("/proc");
  while (dir != NULL && n < max && (entry = readdir (dir)) != NULL)
    {
      char stat_path[300], line[512];
      int pid = atoi (entry->d_name);

      if (pid <= 0)
        continue;
      snprintf (stat_path, sizeof stat_path, "/proc/%d/stat", pid);
      FILE *stat_file = fopen (stat_path, "re");
      if (stat_file == NULL)
        continue;
      if (fgets (line, sizeof line, stat_file) != NULL)
        {
          char *close_paren = strrchr (line, ')');
          int ppid = 0;
          if (close_paren && sscanf (close_paren + 2, "%*c %d", &ppid) == 1 && ppid == parent)
            out[n++] = pid;
        }
      fclose (stat_file);
    }
  if (dir != NULL)
    closedir (dir);
  return n;
}

typedef struct
{
  pid_t self;
  pid_t program;
  bool program_done;
  int program_status;
  int64_t t_start;
  int64_t t_end;
  int64_t swept;       /* processes reaped after the program ended */
  int64_t cpu_base_ns; /* what an adopted program spent before its run */
} InitState;

static void
note_reaped (InitState *st, pid_t pid, int status)
{
  if (pid == st->program && !st->program_done)
    {
      st->program_done = true;
      st->program_status = status;
      st->t_end = now_ns ();
    }
}

static void
signal_all (InitState *st, int sig)
{
  pid_t children[1024];
  size_t n = runner_spawn_list_children (0, children, N_ELEMENTS (children));

  for (size_t i = 0; i < n; i++)
    kill (children[i], sig);
}

#define TREE_MAX 4096

/* Every descendant of ours, as far as procfs shows them (at most max). */
static size_t
list_tree (pid_t *out, size_t max)
{
  size_t n = runner_spawn_list_children (0, out, max);

  for (size_t i = 0; i < n && n < max; i++)
    n += runner_spawn_list_children (out[i], out + n, max - n);
  return n;
}

static bool
contains (const pid_t *pids, size_t n, pid_t pid)
{
  for (size_t i = 0; i < n; i++)
    if (pids[i] == pid)
      return true;
  return false;
}

/* SIGKILL to every process of the run at once. Killing only our own
 * children, one level at a time, loses to a fork bomb: each killed parent
 * takes long to exit (its anon_vma chains grow with every generation),
 * hands its children to us only then, and meanwhile the descendants not
 * yet reached fork into every slot the dying ones free.
 *
 * As pid 1 of the run's pid namespace, kill (-1) reaches every process
 * in it under one lock, and fork () fails in a process with SIGKILL
 * pending, so nothing escapes. Without a namespace the tree is walked:
 * first SIGSTOP to every descendant, pass after pass until a pass finds
 * none it has not stopped (a process with a stop pending cannot fork
 * either, and a stopped one frees no slot for another to fork into),
 * then SIGKILL to all of them. */
static void
kill_tree (InitState *st)
{
  if (st->self == 1)
    {
      kill (-1, SIGKILL);
      return;
    }

  pid_t *stopped = malloc (TREE_MAX * sizeof *stopped);
  pid_t *found = malloc (TREE_MAX * sizeof *found);
  size_t n_stopped = 0;

  if (stopped == NULL || found == NULL)
    {
      free (stopped);
      free (found);
      signal_all (st, SIGKILL);
      return;
    }
  for (;;)
    {
      size_t n = list_tree (found, TREE_MAX), fresh = 0;

      for (size_t i = 0; i < n; i++)
        if (!contains (stopped, n_stopped, found[i]))
          {
            kill (found[i], SIGSTOP);
            fresh++;
            if (n_stopped < TREE_MAX)
              stopped[n_stopped++] = found[i];
          }
      if (fresh == 0 || n_stopped == TREE_MAX)
        break;
    }
  for (size_t i = 0; i < n_stopped; i++)
    kill (stopped[i], SIGKILL);
  free (stopped);
  free (found);
}

/* Kills and reaps every descendant. A process the kill missed (a pid
 * reused between two passes) comes to us, the subreaper, when its parent
 * dies: each time nothing is left to reap at once, kill again. */
static void
sweep (InitState *st)
{
  if (!st->program_done)
    kill (-st->program, SIGKILL);
  kill_tree (st);
  for (;;)
    {
      int status;
      pid_t pid = waitpid (-1, &status, __WALL | WNOHANG);
      if (pid == 0)
        {
          kill_tree (st);
          pid = waitpid (-1, &status, __WALL);
        }
      if (pid < 0)
        {
          if (errno == EINTR)
            continue;
          break; /* ECHILD: nothing left */
        }
      /* How many outlived the program tells a fork bomb's size. */
      if (pid != st->program)
        st->swept++;
      note_reaped (st, pid, status);
    }
}

static void __attribute__ ((noreturn))
report_and_exit (InitState *st, int status_fd, int kind, int err_step, int err_errno)
{
  struct rusage ru;
  RunnerReport report = { 0 };

  getrusage (RUSAGE_CHILDREN, &ru);
  report.kind = kind;
  report.wait_status = st->program_status;
  report.error_step = err_step;
  report.error_errno = err_errno;
  report.wall_ns = (st->t_end ? st->t_end : now_ns ()) - st->t_start;
  report.cpu_ns = ((int64_t) ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000
                  + ((int64_t) ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000 - st->cpu_base_ns;
  if (report.cpu_ns < 0)
    report.cpu_ns = 0;
  report.maxrss_kib = ru.ru_maxrss;
  report.swept = st->swept;
  write_all (status_fd, &report, sizeof report);
  _exit (0);
}

typedef struct
{
  int in, out, err, control, status;
  int extra[RUNNER_SPAWN_MAX_EXTRA_FDS];
} InitFds;

static void __attribute__ ((noreturn)) report_setup_failure (int status_fd, int step, int errnum)
{
  RunnerReport report
    = { .kind = RUNNER_REPORT_SETUP_FAILED, .error_step = step, .error_errno = errnum };

  write_all (status_fd, &report, sizeof report);
  _exit (0);
}

static void __attribute__ ((noreturn))
init_watch (InitState *st, int control, int status_fd, int err_r, int sigfd);

static void __attribute__ ((noreturn)) init_loop (const RunnerSpawnSpec *spec, InitFds fds)
{
  int in = fds.in, out = fds.out, err = fds.err, control = fds.control;
  int status_fd = fds.status;
  int errpipe[2];
  sigset_t chld;
  InitState st = { .self = getpid () };

  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  sigprocmask (SIG_BLOCK, &chld, NULL);
  int sigfd = signalfd (-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  /* A socket, not a pipe: it may carry the seccomp listener too. */
  if (sigfd < 0 || socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, errpipe) != 0)
    _exit (126);

  st.t_start = now_ns ();
  st.program = fork ();
  if (st.program < 0)
    report_and_exit (&st, status_fd, RUNNER_REPORT_SETUP_FAILED, STEP_FORK, errno);
  if (st.program == 0)
    {
      close (errpipe[0]);
      exec_program (spec, st.self, in, out, err, fds.extra, errpipe[1]);
    }
  close (errpipe[1]);
  close (in);
  close (out);
  close (err);
  for (int i = 0; i < spec->n_extra_fds; i++)
    close (fds.extra[i]);
  init_watch (&st, control, status_fd, errpipe[0], sigfd);
}

/* The run init once its program exists, until the run is over. */
static void __attribute__ ((noreturn))
init_watch (InitState *st_, int control, int status_fd, int err_r, int sigfd)
{
  InitState st = *st_;

  /* execve closes the channel (EOF: the program runs) or the child writes
   * why it failed before exec; first, in fallback mode, it hands over its
   * seccomp listener. */
  int32_t failure[2];
  ssize_t n;
  int listener = -1;
  RunnerDirId dirs[RUNNER_SANDBOX_MAX_WRITABLE];
  size_t n_dirs = 0;
  for (;;)
    {
      int fds[1 + RUNNER_SANDBOX_MAX_WRITABLE];
      size_t n_fds = 0;
      n = recv_with_some_fds (err_r, failure, sizeof failure, fds, 0, N_ELEMENTS (fds), &n_fds);
      bool take = n == (ssize_t) sizeof failure && n_fds >= 1 && failure[0] == LISTENER_MESSAGE
                  && listener < 0;
      /* The directories by what they are, not held open. */
      for (size_t i = 1; take && i < n_fds; i++)
        {
          struct stat dir_st;
          if (fstat (fds[i], &dir_st) == 0)
            dirs[n_dirs++] = (RunnerDirId){ dir_st.st_dev, dir_st.st_ino };
        }
      if (take)
        listener = fds[0];
      for (size_t i = take ? 1 : 0; i < n_fds; i++)
        close (fds[i]);
      if (!take)
        break;
    }
  close (err_r);
  if (n == (ssize_t) sizeof failure)
    {
      sweep (&st);
      report_and_exit (&st, status_fd,
                       failure[0] == STEP_EXEC ? RUNNER_REPORT_EXEC_FAILED
                                               : RUNNER_REPORT_SETUP_FAILED,
                       failure[0], failure[1]);
    }

  for (;;)
    {
      struct pollfd pfds[3] = { { .fd = control, .events = POLLIN },
                                { .fd = sigfd, .events = POLLIN },
                                { .fd = listener, .events = POLLIN } };

      if (poll (pfds, 3, -1) < 0)
        continue;

      /* A call the program's filter handed over; once no process of the
       * run is under the filter, the listener hangs up. */
      if (pfds[2].revents != 0
          && (!(pfds[2].revents & POLLIN)
              || runner_seccomp_notify_answer (listener, dirs, n_dirs) != 0))
        {
          close (listener);
          listener = -1;
        }

      if (pfds[1].revents & POLLIN)
        {
          struct signalfd_siginfo si;
          int status;
          pid_t pid;

          while (read (sigfd, &si, sizeof si) > 0)
            ;
          while ((pid = waitpid (-1, &status, WNOHANG | __WALL)) > 0)
            note_reaped (&st, pid, status);
          if (st.program_done)
            {
              /* The run is over when its program is: whatever it left
               * running in the background goes too. */
              sweep (&st);
              report_and_exit (&st, status_fd, RUNNER_REPORT_EXITED, 0, 0);
            }
        }

      if (pfds[0].revents & (POLLIN | POLLHUP | POLLERR))
        {
          char cmd = 0;
          n = read (control, &cmd, 1);
          if (n < 0 && errno == EINTR)
            continue;
          if (n <= 0 || cmd == RUNNER_CTL_KILL)
            {
              /* EOF: the runner is gone; leave nothing behind. */
              sweep (&st);
              report_and_exit (&st, status_fd, RUNNER_REPORT_EXITED, 0, 0);
            }
          if (cmd == RUNNER_CTL_INTERRUPT)
            kill (-st.program, SIGINT);
          else if (cmd == RUNNER_CTL_TERMINATE)
            {
              kill (-st.program, SIGTERM);
              signal_all (&st, SIGTERM);
            }
        }
    }
}

void
runner_spawn_adopt (pid_t program, int control, int status_fd, int err_r)
{
  sigset_t chld;
  InitState st = { .self = getpid (), .program = program };
  int64_t base = 0;

  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  sigprocmask (SIG_BLOCK, &chld, NULL);
  int sigfd = signalfd (-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sigfd < 0)
    _exit (126);
  st.t_start = now_ns ();
  /* First the program's CPU time so far (its time as a spare is not the
   * run's), then EOF or why it failed, as from a forked program. */
  ssize_t n;
  do
    n = read (err_r, &base, sizeof base);
  while (n < 0 && errno == EINTR);
  if (n == (ssize_t) sizeof base && base > 0)
    st.cpu_base_ns = base;
  /* It may have died before SIGCHLD was blocked: look once. */
  int status;
  pid_t pid;
  while ((pid = waitpid (-1, &status, WNOHANG | __WALL)) > 0)
    note_reaped (&st, pid, status);
  if (st.program_done)
    {
      close (err_r);
      sweep (&st);
      report_and_exit (&st, status_fd, RUNNER_REPORT_EXITED, 0, 0);
    }
  init_watch (&st, control, status_fd, err_r, sigfd);
}

void
runner_spawn_program (const RunnerSpawnSpec *spec, pid_t init_pid, int err_fd)
{
  exec_program (spec, init_pid, spec->stdin_fd, spec->stdout_fd, spec->stderr_fd, spec->extra_fds,
                err_fd);
}

static void __attribute__ ((noreturn)) supervisor_main (const RunnerSpawnSpec *spec)
{
  /* First, while nothing else runs: whatever the run starts from here on
   * is charged to its cgroups. */
  if (spec->cgroup_fds != NULL && runner_cgroup_join (spec->cgroup_fds) != 0)
    report_setup_failure (spec->status_fd, STEP_NONE, errno);

  InitFds fds = {
    .in = lift_fd (spec->stdin_fd),
    .out = lift_fd (spec->stdout_fd),
    .err = lift_fd (spec->stderr_fd),
    .control = lift_fd (spec->control_fd),
    .status = lift_fd (spec->status_fd),
  };
  int keep[5 + RUNNER_SPAWN_MAX_EXTRA_FDS] = { fds.in, fds.out, fds.err, fds.control, fds.status };
  size_t n_keep = 5;

  if (spec->n_extra_fds < 0 || spec->n_extra_fds > RUNNER_SPAWN_MAX_EXTRA_FDS)
    _exit (126);
  for (int i = 0; i < spec->n_extra_fds; i++)
    keep[n_keep++] = fds.extra[i] = lift_fd (spec->extra_fds[i]);

  /* Nothing of the runner reaches the run: not the client's socket, not
   * other runs' pipes, not the runner's stdio (the protocol channel). */
  if (runner_spawn_keep_fds (keep, n_keep) != 0)
    _exit (126);

  /* Out of the runner's session, and the reaper of every orphan of the
   * run, so that setsid + double fork does not escape supervision. */
  setsid ();
  if (prctl (PR_SET_CHILD_SUBREAPER, 1) != 0)
    report_setup_failure (fds.status, STEP_NONE, errno);

  if (!spec->sandbox->namespaces)
    init_loop (spec, fds);

  int step = runner_sandbox_enter_namespaces (spec->sandbox);
  if (step != 0)
    report_setup_failure (fds.status, step, errno);
  pid_t pid1 = fork ();
  if (pid1 < 0)
    report_setup_failure (fds.status, STEP_FORK, errno);
  if (pid1 == 0)
    {
      /* pid 1 of the new namespaces: if the supervisor goes, so does the
       * whole namespace. */
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      step = runner_sandbox_build_root (spec->sandbox);
      if (step != 0)
        report_setup_failure (fds.status, step, errno);
      init_loop (spec, fds);
    }
  /* pid 1 reports and reaps; we only wait, holding no pipe open. */
  close (fds.in);
  close (fds.out);
  close (fds.err);
  close (fds.control);
  close (fds.status);
  for (int i = 0; i < spec->n_extra_fds; i++)
    close (fds.extra[i]);
  while (waitpid (pid1, NULL, 0) < 0 && errno == EINTR)
    ;
  _exit (0);
}

pid_t
runner_spawn (const RunnerSpawnSpec *spec)
{
  pid_t pid;

  /* A plan with a layer neither present nor waived is refused here, with
   * EINVAL, before anything is forked. */
  if (runner_sandbox_plan_check (spec->sandbox, NULL) != 0)
    return -1;
  pid = fork ();

  if (pid == 0)
    supervisor_main (spec);
  return pid;
}
