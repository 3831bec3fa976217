/* test-host-diag.c: _runner_host_diag, the sock_diag socket a run without
 * a memory cgroup has its socket queues counted through, against a real
 * process in a network namespace of its own. A run that ends while its
 * queues are being counted is counted as nothing (0), never a failure
 * that ends a harmless run ("cannot count the run's socket queues: No
 * such file or directory"); a process that lives gets its socket (1).
 * Needs a new network namespace: as root, or in a user namespace. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../protocol/tap.h"
#include "runner-host.h"

/* A child in its own network namespace (and, unprivileged, its own user
 * namespace), that tells it got there through a pipe and then waits to
 * be killed; -1 where it cannot be made. */
static pid_t
start_in_netns (void)
{
  int ready[2];

  if (pipe2 (ready, O_CLOEXEC) != 0)
    return -1;
  pid_t pid = fork ();
  if (pid == 0)
    {
      int flags = CLONE_NEWNET | (geteuid () == 0 ? 0 : CLONE_NEWUSER);
      char byte = unshare (flags) == 0 ? 'y' : 'n';
      (void) !write (ready[1], &byte, 1);
      pause ();
      _exit (0);
    }
  close (ready[1]);
  char byte = 'n';
  if (pid < 0 || read (ready[0], &byte, 1) != 1 || byte != 'y')
    {
      if (pid > 0)
        {
          kill (pid, SIGKILL);
          waitpid (pid, NULL, 0);
        }
      pid = -1;
    }
  close (ready[0]);
  return pid;
}

int
main (void)
{
  RunnerHost host = { .namespaces = true };
  pid_t pid = start_in_netns ();

  if (pid < 0)
    {
      printf ("1..0 # SKIP no network namespace can be made here\n");
      return 77;
    }

  plan (5);
  /* Control: the living process's namespace is entered. */
  int fd = -1;
  is_int (_runner_host_diag (&host, false, pid, &fd), 1, "a living run's socket is opened");
  ok (fd >= 0, "and handed back");
  if (fd >= 0)
    close (fd);

  /* Exited, not yet reaped: its namespaces are gone already. */
  kill (pid, SIGKILL);
  siginfo_t info;
  waitid (P_PID, (id_t) pid, &info, WEXITED | WNOWAIT);
  fd = -1;
  is_int (_runner_host_diag (&host, false, pid, &fd), 0,
          "a run that has exited (a zombie) is counted as nothing, not a failure");
  ok (fd < 0, "no socket for it");

  /* Reaped: its /proc entry is gone (ENOENT before the change). */
  waitpid (pid, NULL, 0);
  fd = -1;
  is_int (_runner_host_diag (&host, false, pid, &fd), 0,
          "a run that is gone is counted as nothing, not a failure");
  return done_testing ();
}
