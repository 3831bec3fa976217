/* runner-input-wait.c: whether a run's program waits for input, read from
 * what the kernel reports, and what follows from it: the input_wait event
 * and the time limit standing still while the program waits.
 *
 * The runner holds the write end of the program's stdin. A program that
 * wants a line is blocked in a system call on the read end: read(2) on an
 * fd that is that pipe (Python's input(), bash's read, a child process
 * that inherited it), or epoll_wait(2) with the pipe in its interest list
 * (node and anything else on an event loop). /proc/PID/task/TID/syscall
 * names the call a blocked thread is in and its arguments; the fd is
 * matched to our pipe by its inode (/proc/PID/fd/N), and an epoll set's
 * members are in /proc/PID/fdinfo/EPFD. Nothing the program prints is
 * looked at: a prompt proves nothing, and a program cannot fake the
 * kernel's report. What it can do is wait on purpose, which is why the
 * wait is only counted while every thread of the run is asleep (a thread
 * that computes while another waits keeps the clock going), and why a
 * wait has a cap of its own (RunnerConfig.input_idle_ms); CPU time,
 * memory and every other limit go on as before. poll(2) and select(2)
 * keep their fds in the program's memory, which we do not read: such a
 * program is not seen waiting and its time runs as it always did. */
#include "runner-input-wait.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runner-base.h"
#include "runner-spawn.h"

#define INPUT_POLL_NS (100 * INT64_C (1000000))
#define TREE_MAX 8192

typedef enum
{
  TASK_BUSY,    /* running, runnable, or unreadable: not a wait */
  TASK_ASLEEP,  /* blocked in a call that is not a read of our pipe */
  TASK_READING, /* blocked reading our pipe */
} TaskState;

static bool
fd_is_pipe (pid_t pid, long fd, dev_t dev, ino_t ino)
{
  char path[64];
  struct stat st;

  if (fd < 0 || fd > (1L << 20))
    return false;
  snprintf (path, sizeof path, "/proc/%d/fd/%ld", (int) pid, fd);
  return stat (path, &st) == 0 && S_ISFIFO (st.st_mode) && st.st_dev == dev && st.st_ino == ino;
}

/* Whether epoll fd epfd of pid watches our pipe for reading. Its fdinfo
 * has a line "tfd: N events: HEX data: ..." per member, written by the
 * kernel. */
static bool
epoll_watches_pipe (pid_t pid, long epfd, dev_t dev, ino_t ino)
{
  char path[64], line[256];
  bool found = false;

  if (epfd < 0 || epfd > (1L << 20))
    return false;
  snprintf (path, sizeof path, "/proc/%d/fdinfo/%ld", (int) pid, epfd);
  FILE *file = fopen (path, "re");
  if (file == NULL)
    return false;
  while (!found && fgets (line, sizeof line, file) != NULL)
    {
      long tfd;
      unsigned int events;

      if (sscanf (line, "tfd: %ld events: %x", &tfd, &events) == 2 && (events & 0x1) != 0)
        found = fd_is_pipe (pid, tfd, dev, ino);
    }
  fclose (file);
  return found;
}

/* One thread, from /proc/PID/task/TID/syscall: "running", or "-1 SP PC"
 * in user space, or "NR ARG1 ... SP PC" blocked in call NR. */
static TaskState
task_state (pid_t pid, const char *tid, dev_t dev, ino_t ino)
{
  char path[64 + 256], text[256];
  long nr;
  unsigned long arg1;

  snprintf (path, sizeof path, "/proc/%d/task/%s/syscall", (int) pid, tid);
  FILE *file = fopen (path, "re");
  if (file == NULL)
    return TASK_BUSY;
  bool have = fgets (text, sizeof text, file) != NULL;
  fclose (file);
  if (!have || sscanf (text, "%ld 0x%lx", &nr, &arg1) != 2 || nr < 0)
    return TASK_BUSY;
  if (nr == SYS_read || nr == SYS_readv)
    return fd_is_pipe (pid, (long) arg1, dev, ino) ? TASK_READING : TASK_ASLEEP;
  if (nr == SYS_epoll_wait || nr == SYS_epoll_pwait
#ifdef SYS_epoll_pwait2
      || nr == SYS_epoll_pwait2
#endif
  )
    return epoll_watches_pipe (pid, (long) arg1, dev, ino) ? TASK_READING : TASK_ASLEEP;
  return TASK_ASLEEP;
}

/* Folds one process's threads into *reading; false when one is busy. */
static bool
process_asleep (pid_t pid, dev_t dev, ino_t ino, bool *reading)
{
  char path[64];
  struct dirent *entry;
  bool asleep = true;

  snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  DIR *tasks = opendir (path);
  if (tasks == NULL)
    return true; /* gone since it was listed */
  while (asleep && (entry = readdir (tasks)) != NULL)
    {
      if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
        continue;
      TaskState state = task_state (pid, entry->d_name, dev, ino);
      asleep = state != TASK_BUSY;
      *reading |= state == TASK_READING;
    }
  closedir (tasks);
  return asleep;
}

bool
runner_tree_waits_on_pipe (pid_t root, int skip, dev_t dev, ino_t ino)
{
  pid_t *pids = xcalloc (TREE_MAX, sizeof *pids);
  int *depth = xcalloc (TREE_MAX, sizeof *depth);
  size_t n = 1;
  bool reading = false, asleep = true;

  /* The first `skip` levels are the runner's own code, asleep in their
   * loops: the run init, and pid 1 of the run's namespaces (orphans go to
   * it, so nothing of the program's is ever that high). They are not
   * read, and need not be readable: a warm run's are sandpad-warm-init,
   * made undumpable so that the program cannot look at them, which also
   * makes their /proc/PID/syscall root's, closed to a runner that is an
   * ordinary user. Below them, a process we cannot read counts as busy. */
  pids[0] = root;
  for (size_t i = 0; i < n && asleep; i++)
    {
      if (depth[i] >= skip)
        asleep = process_asleep (pids[i], dev, ino, &reading);
      size_t found = runner_spawn_list_children (pids[i], pids + n, TREE_MAX - n);
      for (size_t j = n; j < n + found; j++)
        depth[j] = depth[i] + 1;
      n += found;
    }
  free (pids);
  free (depth);
  return asleep && reading;
}

void
_runner_input_wait_start (RunnerInputWait *w, int64_t now)
{
  w->clock_ns = now;
  w->check_ns = now + INPUT_POLL_NS;
}

bool
_runner_input_waiting (const RunnerInputWait *w)
{
  return w->since_ns > 0;
}

void
_runner_input_wait_set (RunnerInputWait *w, bool waiting, int64_t now)
{
  w->since_ns = waiting ? now : 0;
}

int64_t
_runner_input_wait_next (const RunnerInputWait *w, int64_t idle_ms)
{
  if (w->since_ns > 0 && idle_ms > 0)
    {
      int64_t cap = w->since_ns + idle_ms * INT64_C (1000000);
      return cap < w->check_ns ? cap : w->check_ns;
    }
  return w->check_ns;
}

RunnerInputDue
_runner_input_wait_due (RunnerInputWait *w, int64_t now, int64_t idle_ms, int64_t *deadline_ns)
{
  /* The time limit stands still while the program waits: its deadline
   * moves on with the clock, so it is where it was when the wait ends. */
  if (w->since_ns > 0 && *deadline_ns > 0)
    *deadline_ns += now - w->clock_ns;
  w->clock_ns = now;
  if (w->since_ns > 0 && idle_ms > 0 && now - w->since_ns >= idle_ms * INT64_C (1000000))
    {
      w->check_ns = 0;
      return RUNNER_INPUT_IDLE;
    }
  if (w->check_ns == 0 || now < w->check_ns)
    return RUNNER_INPUT_NOT_YET;
  w->check_ns = now + INPUT_POLL_NS;
  return RUNNER_INPUT_LOOK;
}

bool
_runner_input_wait_look (pid_t root, int skip, int stdin_fd)
{
  struct stat st;

  return root > 0 && stdin_fd >= 0 && fstat (stdin_fd, &st) == 0
         && runner_tree_waits_on_pipe (root, skip, st.st_dev, st.st_ino);
}
