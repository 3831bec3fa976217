/* runner-warm-init.c: sandpad-warm-init, what a warm spare's supervisor and
 * run init exec (see runner-warm-child.c), so that of a spare's three
 * processes only the program holds a copy of the warm interpreter: the
 * other two would otherwise make every run pay for tearing it down twice.
 *
 * "supervisor": waits for pid 1 of the run's namespaces, then exits; the
 * runner watches it through a pidfd, as it watches a cold run's.
 *
 * "init PID": the run init of the program PID, its child. Waits on fd 3
 * for the run (the plan and the run's stdin, stdout, stderr, control and
 * status pipes, from the warm parent, and the cgroup.procs files of the
 * run's cgroups if it has them, which the program is moved into), hands the plan, the program's
 * three pipes and an error pipe to the program on fd 4, then supervises it exactly as a cold run's
 * init supervises a program it forked (runner_spawn_adopt). EOF on fd 3 means no run will come: the
 * program is killed and the spare ends.
 *
 * Neither holds a capability after exec (its uid inside the user namespace
 * is not 0), and both make themselves undumpable, so the program cannot
 * ptrace them or read their memory. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

static int
init (pid_t program)
{
  char plan[RUNNER_WARM_MAX_PLAN];
  int fds[5 + RUNNER_CGROUP_MAX_FDS], errpipe[2];
  size_t n_fds = 0;
  sigset_t chld;

  /* Before the program can end: its SIGCHLD must wait for the signalfd. */
  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  sigprocmask (SIG_BLOCK, &chld, NULL);

  /* The run's plan and five pipes, then the cgroup.procs files of the
   * run's cgroups where it has them; EOF (retired) or garbage: no run. */
  ssize_t n = recv_with_some_fds (RUNNER_WARM_INIT_PARENT_FD, plan, sizeof plan, fds, 5,
                                  N_ELEMENTS (fds), &n_fds);
  if (n <= 0)
    {
      kill (program, SIGKILL);
      return 0;
    }
  close (RUNNER_WARM_INIT_PARENT_FD);
  /* The program joins the run's cgroups before it learns of the run, so
   * all it allocates and starts from its first step on is charged there
   * (what it copied from the warm parent as a spare is not the run's).
   * The runner says the run has them: one that cannot be joined is no
   * run at all. */
  char pid_text[24];
  snprintf (pid_text, sizeof pid_text, "%d", (int) program);
  for (size_t i = 5; i < n_fds; i++)
    {
      if (write_all (fds[i], pid_text, strlen (pid_text)) != 0)
        {
          kill (program, SIGKILL);
          _exit (126);
        }
      close (fds[i]);
    }
  if (pipe2 (errpipe, O_CLOEXEC) != 0)
    _exit (126);

  /* The program gets stdin, stdout, stderr and the error pipe's write end.
   * Not delivered (the program is gone): the adopted program's end is
   * reported like any other; its error pipe just says nothing. */
  int to_program[4] = { fds[0], fds[1], fds[2], errpipe[1] };
  send_with_fds (RUNNER_WARM_INIT_PROGRAM_FD, plan, (size_t) n, to_program, 4);
  for (int i = 0; i < 4; i++)
    close (to_program[i]);
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
  if (argc == 3 && strcmp (argv[1], RUNNER_WARM_INIT_ROLE_INIT) == 0)
    {
      char *end;
      long pid = strtol (argv[2], &end, 10);
      if (*end != '\0' || pid <= 0)
        return 126;
      return init ((pid_t) pid);
    }
  fprintf (stderr, "sandpad-warm-init: started by the runner's warm pool only\n");
  return 2;
}
