/* runner-tree.c: the runner's view of a run's process tree, from /proc:
 * memory and threads summed over every process (the tree watch), the disk
 * its deleted files hold, and a fallback session's RLIMIT_NPROC. */
#include "runner-tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner-deleted.h"
#include "runner-sockets.h"
#include "runner-spawn.h"
#include "runner-base.h"

/* Sums the lines of a /proc file that start with either name ("RssAnon:
 * 123 kB"), in bytes; -1 if the file cannot be read or has neither. Only
 * the kernel writes these lines; the one part a process chose, its name,
 * comes first in status and is escaped, so it cannot fake a line. */
static int64_t
sum_kib_fields (const char *path, const char *a, const char *b, int64_t *threads)
{
  char line[256];
  int64_t sum = -1;
  size_t len_a = strlen (a), len_b = strlen (b);
  FILE *file = fopen (path, "re");

  if (file == NULL)
    return -1;
  while (fgets (line, sizeof line, file) != NULL)
    {
      if (strncmp (line, a, len_a) == 0 || strncmp (line, b, len_b) == 0)
        sum = (sum < 0 ? 0 : sum) + strtoll (strchr (line, ':') + 1, NULL, 10) * 1024;
      else if (threads != NULL && strncmp (line, "Threads:", 8) == 0)
        *threads += strtoll (line + 8, NULL, 10);
    }
  fclose (file);
  return sum;
}

/* One process's CPU time with that of the children it reaped (utime,
 * stime, cutime, cstime of /proc/PID/stat), in ns; 0 if gone. The name
 * in parentheses is the process's own choice: fields are read after its
 * last ')'. */
static int64_t
process_cpu_ns (pid_t pid)
{
  char path[64], buf[1024];
  unsigned long long utime, stime, cutime, cstime;

  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  cleanup_fd int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  const char *rest = strrchr (buf, ')');
  /* After ") ": state ppid pgrp session tty_nr tpgid flags minflt cminflt
   * majflt cmajflt utime stime cutime cstime. */
  if (rest == NULL
      || sscanf (rest + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
                 &utime, &stime, &cutime, &cstime)
           != 4)
    return 0;
  long hz = sysconf (_SC_CLK_TCK);
  return (int64_t) (utime + stime + cutime + cstime) * (INT64_C (1000000000) / (hz > 0 ? hz : 100));
}

/* Adds one process's anonymous and shared resident memory and its thread
 * count. RssAnon counts a page a fork shares copy-on-write with its parent
 * in both, so proportional asks for the kernel's shares instead
 * (Pss_Anon + Pss_Shmem: a page shared by n processes counts 1/n in each),
 * dearer to read, as it walks the page tables. */
static void
add_process_usage (pid_t pid, bool proportional, RunnerTreeUsage *usage)
{
  char path[64];
  int64_t bytes;

  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  bytes = sum_kib_fields (path, "RssAnon:", "RssShmem:", &usage->tasks);
  if (bytes < 0)
    return; /* gone, or a kernel thread */
  if (proportional)
    {
      snprintf (path, sizeof path, "/proc/%d/smaps_rollup", (int) pid);
      int64_t shares = sum_kib_fields (path, "Pss_Anon:", "Pss_Shmem:", NULL);
      if (shares >= 0)
        bytes = shares;
    }
  usage->bytes += bytes;
}

/* At most this many processes are looked at; RLIMIT_NPROC keeps a run
 * well below it. */
#define TREE_MAX 8192

void
runner_tree_usage (pid_t init_pid, int skip, bool proportional, int diag_fd, RunnerTreeUsage *usage)
{
  pid_t *pids = xcalloc (TREE_MAX, sizeof *pids);
  int *depth = xcalloc (TREE_MAX, sizeof *depth);
  size_t n = 1;

  *usage = (RunnerTreeUsage){ 0 };
  pids[0] = init_pid;
  /* Breadth first: the list grows behind the cursor. Orphans were handed
   * to the run init (a subreaper), so nothing of the run hangs elsewhere. */
  for (size_t i = 0; i < n; i++)
    {
      if (depth[i] >= skip)
        add_process_usage (pids[i], proportional, usage);
      /* Every level: what the inits reaped (orphans) is in their cutime. */
      usage->cpu_ns += process_cpu_ns (pids[i]);
      size_t found = runner_spawn_list_children (pids[i], pids + n, TREE_MAX - n);
      for (size_t j = n; j < n + found; j++)
        depth[j] = depth[i] + 1;
      n += found;
    }
  usage->deleted_bytes = runner_deleted_bytes (pids, n);
  if (diag_fd >= 0)
    {
      int64_t pipes = 0;
      int64_t queued = runner_sockets_bytes (diag_fd, pids, n, &pipes);
      usage->socket_bytes = queued;
      usage->pipe_bytes = pipes;
      if (queued > 0)
        usage->bytes += queued;
      usage->bytes += pipes;
    }
  free (pids);
  free (depth);
}

/* A process's parent and real uid (/proc/PID/status, readable whatever
 * the process is) and its start time (/proc/PID/stat, after the name);
 * false if it is gone. */
static bool
process_identity (pid_t pid, pid_t *ppid, uid_t *uid, unsigned long long *start)
{
  char path[64], line[256], buf[1024];
  int found = 0;

  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  FILE *file = fopen (path, "re");
  if (file == NULL)
    return false;
  while (fgets (line, sizeof line, file) != NULL)
    {
      int value;
      if (sscanf (line, "PPid: %d", &value) == 1)
        *ppid = value, found++;
      else if (sscanf (line, "Uid: %d", &value) == 1)
        *uid = (uid_t) value, found++;
    }
  fclose (file);
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  cleanup_fd int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
  if (n <= 0 || found != 2)
    return false;
  buf[n] = '\0';
  /* After ") ": state, then 18 fields, then starttime. */
  static const char fields[] = " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u"
                               " %*u %*u %*d %*d %*d %*d %*d %*d %llu";
  const char *rest = strrchr (buf, ')');
  return rest != NULL && sscanf (rest + 1, fields, start) == 1;
}

/* Sets pid's soft RLIMIT_NPROC if it is still parent's child of uid. A
 * process number is handed out again only after every other one up to
 * pid_max was, which cannot happen between the check and prlimit: what
 * prlimit reaches is the process checked, or nothing if it ended. The
 * hard limit is left (the program can change neither, runner-seccomp.c),
 * unless the soft limit must pass it and the runner may raise it (root). */
static void
set_nproc (pid_t pid, pid_t parent, uid_t uid, rlim_t soft)
{
  pid_t ppid = 0;
  uid_t owner = 0;
  unsigned long long start;
  struct rlimit rl;

  if (!process_identity (pid, &ppid, &owner, &start) || ppid != parent || owner != uid
      || prlimit (pid, RLIMIT_NPROC, NULL, &rl) != 0)
    return;
  if (soft > rl.rlim_max && geteuid () == 0)
    rl.rlim_max = soft;
  rl.rlim_cur = soft < rl.rlim_max ? soft : rl.rlim_max;
  prlimit (pid, RLIMIT_NPROC, &rl, NULL);
}

void
runner_tree_set_nproc (pid_t init_pid, uid_t uid, rlim_t soft)
{
  pid_t children[256];
  pid_t program = 0;
  unsigned long long first = 0;

  /* The program is the first child of its init: whatever else is the
   * init's child now was started later, below the program, and came to
   * the init (a subreaper) when its parent ended. */
  size_t n = runner_spawn_list_children (init_pid, children, N_ELEMENTS (children));
  for (size_t i = 0; i < n; i++)
    {
      pid_t ppid;
      uid_t owner;
      unsigned long long start;
      if (process_identity (children[i], &ppid, &owner, &start) && owner == uid
          && (program == 0 || start < first))
        program = children[i], first = start;
    }
  if (program == 0)
    return;
  set_nproc (program, init_pid, uid, soft);
  /* Its children too: a JavaScript session's node is the relay's, and
   * the processes a run starts are node's. */
  n = runner_spawn_list_children (program, children, N_ELEMENTS (children));
  for (size_t i = 0; i < n; i++)
    set_nproc (children[i], program, uid, soft);
}
