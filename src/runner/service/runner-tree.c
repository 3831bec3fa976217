/* runner-tree.c: the runner's view of a run's process tree, from /proc:
 * memory and threads summed over every process (the tree watch), the disk
 * its deleted files hold, and how many processes a uid already has. */
#include "runner-tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The kernel counts RLIMIT_NPROC per uid per user namespace; /proc may
 * show processes of the same uid in other user namespaces too (inside
 * Flatpak or bwrap without a pid namespace, the host's). Counting one the
 * kernel does not would raise the run's limit by it, so only processes
 * provably in our user namespace count: when in doubt, the run gets less. */
int64_t
runner_tree_count_processes (uid_t uid)
{
  DIR *dir = opendir ("/proc");
  struct dirent *entry;
  struct stat own_ns;
  int64_t n = 0;

  if (stat ("/proc/self/ns/user", &own_ns) != 0)
    own_ns.st_ino = 0;
  while (dir != NULL && (entry = readdir (dir)) != NULL)
    {
      char path[300];
      struct stat st, ns;

      if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
        continue;
      snprintf (path, sizeof path, "/proc/%s", entry->d_name);
      if (stat (path, &st) != 0 || st.st_uid != uid)
        continue;
      snprintf (path, sizeof path, "/proc/%s/ns/user", entry->d_name);
      if (own_ns.st_ino == 0 || (stat (path, &ns) == 0 && ns.st_ino == own_ns.st_ino))
        n++;
    }
  if (dir != NULL)
    closedir (dir);
  return n;
}
