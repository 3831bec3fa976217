/* runner-warm-init.c: sandpad-warm-init, what a warm spare's supervisor and
 * run init exec (see runner-warm-child.c), so that of a spare's three
 * processes only the program holds a copy of the warm interpreter: the
 * other two would otherwise make every run pay for tearing it down twice.
 *
 * "supervisor": waits for pid 1 of the run's namespaces, then exits; the
 * runner watches it through a pidfd, as it watches a cold run's.
 *
 * "init PID N": the run init of the program PID, its child, with the
 * cgroup.procs files of the spare's seat (runner_cgroup_seat_make) as fds
 * 5 to 5+N-1. It moves the program into the seat as soon as the program
 * says it is ready (its copies made) or the run comes, whichever is first:
 * the move waits for an RCU grace period in the kernel, which this way a
 * run only waits for when it comes right after its spare was made. Waits
 * on fd 3 for the run (the plan and the run's stdin, stdout, stderr,
 * control and status pipes, from the warm parent, which has set the
 * seat's limits by then), hands the plan, the program's three pipes and an
 * error channel to the program on fd 4, then supervises it exactly as a cold
 * run's init supervises a program it forked (runner_spawn_adopt). EOF on
 * fd 3 means no run will come: the program is killed and the spare ends.
 *
 * Neither holds a capability after exec (its uid inside the user namespace
 * is not 0), and both make themselves undumpable, so the program cannot
 * ptrace them or read their memory. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner-cgroup.h"
#include "runner-spawn.h"
#include "runner-util.h"
#include "runner-warm-init.h"

static int
supervise (void)
{
  /* pid 1 is our only child; when it goes, so does the namespace. */
  for (;;)
    {
      pid_t pid = waitpid (-1, NULL, 0);
      if (pid < 0 && errno != EINTR)
        return 0;
    }
}

/* Moves the program into its seat: its pid into each cgroup.procs. */
static int
join_seat (pid_t program, size_t n_join)
{
  char pid_text[24];

  snprintf (pid_text, sizeof pid_text, "%d", (int) program);
  for (size_t i = 0; i < n_join; i++)
    {
      int fd = RUNNER_WARM_INIT_SEAT_FD + (int) i;
      if (write_all (fd, pid_text, strlen (pid_text)) != 0)
        return -1;
      close (fd);
    }
  return 0;
}

/* Until the run comes (1) or never will (0): moves the program into its
 * seat when it says it is ready, or when the run comes first. *ready: its
 * "ready" was read. */
static int
wait_for_run (pid_t program, size_t n_join, bool *ready)
{
  struct pollfd pfd[2] = {
    { .fd = RUNNER_WARM_INIT_PARENT_FD, .events = POLLIN },
    { .fd = RUNNER_WARM_INIT_PROGRAM_FD, .events = POLLIN },
  };
  bool joined = n_join == 0;

  for (;;)
    {
      int rc = poll (pfd, joined ? 1 : 2, -1);
      if (rc < 0 && errno == EINTR)
        continue;
      if (rc < 0)
        return 0;
      /* Retired before it had a run: no need to join. */
      if (pfd[0].revents != 0 && !(pfd[0].revents & POLLIN))
        return 0;
      if (pfd[0].revents != 0)
        break;
      /* The program's "ready" (or its end, which the run will find). */
      char byte;
      if (recv (RUNNER_WARM_INIT_PROGRAM_FD, &byte, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN)
        continue;
      *ready = true;
      if (join_seat (program, n_join) != 0)
        return -1;
      joined = true;
    }
  if (!joined && join_seat (program, n_join) != 0)
    return -1;
  return 1;
}

static int
init (pid_t program, size_t n_join)
{
  char plan[RUNNER_WARM_MAX_PLAN];
  int fds[5], errpipe[2];
  size_t n_fds = 0;
  sigset_t chld;

  /* Before the program can end: its SIGCHLD must wait for the signalfd. */
  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  sigprocmask (SIG_BLOCK, &chld, NULL);

  /* A seat that cannot be joined is no spare at all: it ends, which the
   * warm parent sees before it hands it a run. */
  bool ready = false;
  int rc = wait_for_run (program, n_join, &ready);
  if (rc <= 0)
    {
      kill (program, SIGKILL);
      _exit (rc < 0 ? 126 : 0);
    }
  /* The run's plan and five pipes; EOF (retired) or garbage: no run. */
  ssize_t n = recv_with_some_fds (RUNNER_WARM_INIT_PARENT_FD, plan, sizeof plan, fds, 5,
                                  N_ELEMENTS (fds), &n_fds);
  if (n <= 0)
    {
      kill (program, SIGKILL);
      return 0;
    }
  close (RUNNER_WARM_INIT_PARENT_FD);
  /* A socket, not a pipe: in fallback mode it brings the program's seccomp
   * listener too (runner-seccomp-notify.h). */
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, errpipe) != 0)
    _exit (126);

  /* The program gets stdin, stdout, stderr and the error channel's end.
   * Not delivered (the program is gone): the adopted program's end is
   * reported like any other; its error channel just says nothing. */
  int to_program[4] = { fds[0], fds[1], fds[2], errpipe[1] };
  send_with_fds (RUNNER_WARM_INIT_PROGRAM_FD, plan, (size_t) n, to_program, 4);
  for (int i = 0; i < 4; i++)
    close (to_program[i]);
  /* Its "ready" comes before it reads the plan, if not read yet: closing
   * the socket with it unread would make the program's read of the plan
   * fail (ECONNRESET). EOF: it is gone, which the adoption reports. */
  if (!ready)
    {
      char byte;
      while (recv (RUNNER_WARM_INIT_PROGRAM_FD, &byte, 1, 0) < 0 && errno == EINTR)
        ;
    }
  close (RUNNER_WARM_INIT_PROGRAM_FD);
  runner_spawn_adopt (program, fds[3], fds[4], errpipe[0]);
}

int
main (int argc, char **argv)
{
  /* Not ptrace-able, its /proc entries not readable, by the program. */
  if (prctl (PR_SET_DUMPABLE, 0) != 0 || chdir ("/") != 0)
    return 126;
  if (argc == 2 && strcmp (argv[1], RUNNER_WARM_INIT_ROLE_SUPERVISOR) == 0)
    return supervise ();
  if (argc == 4 && strcmp (argv[1], RUNNER_WARM_INIT_ROLE_INIT) == 0)
    {
      char *end, *end_join;
      long pid = strtol (argv[2], &end, 10);
      unsigned long n_join = strtoul (argv[3], &end_join, 10);
      if (*end != '\0' || pid <= 0 || *end_join != '\0' || n_join > RUNNER_CGROUP_MAX_FDS)
        return 126;
      return init ((pid_t) pid, n_join);
    }
  fprintf (stderr, "sandpad-warm-init: started by the runner's warm pool only\n");
  return 2;
}
