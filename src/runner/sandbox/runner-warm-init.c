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
 * status pipes, from the warm parent), hands the plan, the program's three
 * pipes and an error pipe to the program on fd 4, then supervises it
 * exactly as a cold run's init supervises a program it forked
 * (runner_spawn_adopt). EOF on fd 3 means no run will come: the program is
 * killed and the spare ends.
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
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* The run's plan and five pipes, or -1 (EOF: retired, or garbage). */
static ssize_t
receive_run (char *plan, size_t size, int fds[5])
{
  union
  {
    struct cmsghdr hdr;
    char space[CMSG_SPACE (5 * sizeof (int))];
  } control;
  struct iovec iov = { .iov_base = plan, .iov_len = size };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = control.space, .msg_controllen = sizeof control.space };
  ssize_t n;

  do
    n = recvmsg (RUNNER_WARM_INIT_PARENT_FD, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR (&msg) : NULL;
  if (c == NULL || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0
      || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS
      || c->cmsg_len != CMSG_LEN (5 * sizeof (int)))
    return -1;
  memcpy (fds, CMSG_DATA (c), 5 * sizeof (int));
  return n;
}

static int
init (pid_t program)
{
  char plan[RUNNER_WARM_MAX_PLAN];
  int fds[5], errpipe[2];
  sigset_t chld;

  /* Before the program can end: its SIGCHLD must wait for the signalfd. */
  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  sigprocmask (SIG_BLOCK, &chld, NULL);

  ssize_t n = receive_run (plan, sizeof plan, fds);
  if (n < 0)
    {
      kill (program, SIGKILL);
      return 0;
    }
  close (RUNNER_WARM_INIT_PARENT_FD);
  if (pipe2 (errpipe, O_CLOEXEC) != 0)
    _exit (126);

  /* The program gets stdin, stdout, stderr and the error pipe's write end. */
  int to_program[4] = { fds[0], fds[1], fds[2], errpipe[1] };
  union
  {
    struct cmsghdr hdr;
    char space[CMSG_SPACE (sizeof to_program)];
  } control;
  struct iovec iov = { .iov_base = plan, .iov_len = (size_t) n };
  struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = control.space, .msg_controllen = sizeof control.space };
  struct cmsghdr *c = CMSG_FIRSTHDR (&msg);
  memset (&control, 0, sizeof control);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (sizeof to_program);
  memcpy (CMSG_DATA (c), to_program, sizeof to_program);
  ssize_t sent;
  do
    sent = sendmsg (RUNNER_WARM_INIT_PROGRAM_FD, &msg, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  /* Not delivered (the program is gone): the adopted program's end is
   * reported like any other; its error pipe just says nothing. */
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
