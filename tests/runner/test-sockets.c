/* test-sockets.c: the sock_diag socket of a run's network namespace
 * (runner_sockets_open_diag) when the run's supervisor is gone (issue 37,
 * 2): a short run ended between two looks of the tree watch, and the
 * runner failed it ("cannot count the run's socket queues: No such file
 * or directory"; "Permission denied" where the number had gone to another
 * uid's process). A process that is gone is nothing to count (ESRCH),
 * never a socket of whatever holds its number now; one that lives and
 * cannot be read still fails, with its own errno.
 *
 * The supervisor stands in as a child of the test in a network namespace
 * of its own (and a user namespace, when the test is not root); each
 * state is reached by waiting on the kernel (its pidfd, its pipe), never
 * on time. The window between a process releasing its namespaces and its
 * pidfd reporting the exit cannot be held open from here: that case is
 * given what the window shows, /proc's ENOENT beside a pidfd not ready. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../protocol/tap.h"
#include "runner-sockets.h"

typedef struct
{
  pid_t pid;
  int pidfd;
  int hold; /* our end of its pipe: closing it ends the child */
} Child;

/* A child in a network namespace of its own; pid -1 when none can be
 * made here (no user namespaces for an ordinary user). */
static Child
start_child (void)
{
  Child c = { -1, -1, -1 };
  int ready[2], hold[2];
  char byte = 0;

  if (pipe2 (ready, O_CLOEXEC) != 0 || pipe2 (hold, O_CLOEXEC) != 0)
    return c;
  pid_t pid = fork ();
  if (pid == 0)
    {
      /* Only its own two ends: a pipe end it kept, or another child's,
       * would keep it (or that child) from ever seeing EOF. */
      for (int fd = 3; fd < 1024; fd++)
        if (fd != ready[1] && fd != hold[0])
          close (fd);
      int flags = CLONE_NEWNET | (geteuid () == 0 ? 0 : CLONE_NEWUSER);
      byte = unshare (flags) == 0 ? 'y' : 'n';
      (void) !write (ready[1], &byte, 1);
      /* Until the test closes its end. */
      (void) !read (hold[0], &byte, 1);
      _exit (0);
    }
  close (ready[1]);
  close (hold[0]);
  if (pid < 0 || read (ready[0], &byte, 1) != 1 || byte != 'y')
    {
      if (pid > 0)
        {
          kill (pid, SIGKILL);
          waitpid (pid, NULL, 0);
        }
      close (ready[0]);
      close (hold[1]);
      return c;
    }
  close (ready[0]);
  c.pid = pid;
  c.hold = hold[1];
  c.pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  return c;
}

/* Ends the child and waits, on its pidfd, until the kernel reports the
 * exit; it stays unreaped (a zombie), as a run's supervisor is between
 * its exit and the runner's loop reaping it. */
static void
end_child (Child *c)
{
  struct pollfd pfd = { .fd = c->pidfd, .events = POLLIN };

  close (c->hold);
  c->hold = -1;
  while (poll (&pfd, 1, -1) < 0 && errno == EINTR)
    ;
}

static void
reap_child (Child *c)
{
  if (c->hold >= 0)
    close (c->hold);
  if (c->pid > 0)
    waitpid (c->pid, NULL, 0);
  if (c->pidfd >= 0)
    close (c->pidfd);
  *c = (Child){ -1, -1, -1 };
}

/* open_diag's answer: "open", or the errno's name for the ones that
 * matter here. */
static const char *
verdict (pid_t pid, int pidfd)
{
  static char other[32];
  int fd = runner_sockets_open_diag (pid, pidfd);

  if (fd >= 0)
    {
      close (fd);
      return "open";
    }
  if (errno == ESRCH)
    return "gone";
  if (errno == ENOENT)
    return "ENOENT";
  if (errno == EACCES)
    return "EACCES";
  if (errno == EMFILE)
    return "EMFILE";
  snprintf (other, sizeof other, "errno %d", errno);
  return other;
}

/* In a forked copy with no fd left to open: the opens of /proc fail
 * while the process lives, which must not pass for gone. */
static const char *
verdict_without_fds (pid_t pid, int pidfd)
{
  int out[2];
  char answer[32] = "";

  if (pipe2 (out, O_CLOEXEC) != 0)
    return "no pipe";
  pid_t child = fork ();
  if (child == 0)
    {
      close (out[0]);
      /* The lowest free fd as the limit: every fd below it is taken. */
      int lowest = dup (0);
      close (lowest);
      struct rlimit rl = { (rlim_t) lowest, (rlim_t) lowest };
      const char *v = setrlimit (RLIMIT_NOFILE, &rl) == 0 ? verdict (pid, pidfd) : "no rlimit";
      (void) !write (out[1], v, strlen (v));
      _exit (0);
    }
  close (out[1]);
  ssize_t n = child > 0 ? read (out[0], answer, sizeof answer - 1) : -1;
  answer[n > 0 ? n : 0] = '\0';
  close (out[0]);
  if (child > 0)
    waitpid (child, NULL, 0);
  static char copy[32];
  snprintf (copy, sizeof copy, "%s", answer);
  return copy;
}

int
main (void)
{
  Child a = start_child ();
  if (a.pid < 0 || a.pidfd < 0)
    {
      printf ("1..0 # SKIP no network namespace for a child here (user namespaces refused)\n");
      reap_child (&a);
      return 0;
    }
  plan (9);

  /* Controls: a live process's namespace opens, and its count reads. */
  is_str (verdict (a.pid, a.pidfd), "open", "control: a live process's namespace gives a socket");
  int fd = runner_sockets_open_diag (a.pid, a.pidfd);
  int64_t pipes = -1;
  is_int (fd >= 0 ? runner_sockets_bytes (fd, &a.pid, 1, &pipes) : -1, 0,
          "control: and its count reads (it holds no socket)");
  if (fd >= 0)
    close (fd);
  is_str (verdict (0, -1), "open", "control: the runner's own namespace gives a socket");

  /* Alive, and its namespace cannot be had: that fails, closed. */
  is_str (verdict_without_fds (a.pid, a.pidfd), "EMFILE",
          "a live process whose namespace cannot be opened fails with its own error");

  /* Its namespaces released, its exit not reported yet (the kernel's
   * window, given as it looks): the number is still ours, so ENOENT
   * there can only be the way out. A child reaped already stands in for
   * the number; a's pidfd is the one not ready. */
  Child b = start_child ();
  pid_t b_pid = b.pid;
  end_child (&b);
  reap_child (&b);
  is_str (verdict (b_pid, a.pidfd), "gone",
          "ENOENT at /proc while the pidfd shows no exit yet: its way out, counted as nothing");

  /* The run ends between two looks: exited, not reaped yet. */
  end_child (&a);
  is_str (verdict (a.pid, a.pidfd), "gone",
          "a process that exited (not reaped) is gone, not a failure (was ENOENT)");

  /* Its number taken by another process (here a live one in a namespace
   * of its own): nothing of the other is opened for it. */
  Child other = start_child ();
  is_str (verdict (other.pid, a.pidfd), "gone",
          "a number that names another process by now gives nothing of that process "
          "(was: its namespace, or EACCES for another uid's)");
  is_str (verdict (other.pid, other.pidfd), "open", "control: that process's own pidfd opens it");
  reap_child (&other);

  /* Reaped: /proc has nothing under its number. */
  pid_t a_pid = a.pid;
  waitpid (a.pid, NULL, 0);
  a.pid = -1;
  is_str (verdict (a_pid, a.pidfd), "gone", "a process reaped since is gone, not a failure");
  reap_child (&a);
  return done_testing ();
}
