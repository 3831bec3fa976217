/* runner-cgroup.c: see runner-cgroup.h. */
#include "runner-cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner-util.h"

#define CGROUP_V1_ROOT "/sys/fs/cgroup"

/* This process's path in the v1 hierarchy that has controller, from
 * /proc/self/cgroup ("4:memory:/some/path"), or NULL. */
static char *
own_path (const char *controller)
{
  FILE *f = fopen ("/proc/self/cgroup", "re");
  char line[4096];
  char *found = NULL;

  if (f == NULL)
    return NULL;
  while (found == NULL && fgets (line, sizeof line, f) != NULL)
    {
      char *list = strchr (line, ':');
      char *path = list ? strchr (list + 1, ':') : NULL;
      if (path == NULL)
        continue;
      *path++ = '\0';
      path[strcspn (path, "\n")] = '\0';
      for (char *save = NULL, *c = strtok_r (list + 1, ",", &save); c != NULL;
           c = strtok_r (NULL, ",", &save))
        if (strcmp (c, controller) == 0)
          found = xasprintf ("%s/%s%s", CGROUP_V1_ROOT, controller, path);
    }
  fclose (f);
  return found;
}

static int
write_text_at (const char *dir, const char *file, const char *text)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, file);
  cleanup_fd int fd = open (path, O_WRONLY | O_CLOEXEC);

  if (fd < 0)
    return -1;
  return write_all (fd, text, strlen (text));
}

/* Our group under one controller: made only if the controller's file we
 * need is there to write (v1 only: v2 has no "memory.limit_in_bytes"). */
static char *
make_own (const char *controller, const char *needed)
{
  cleanup_free char *parent = own_path (controller);
  cleanup_free char *probe = NULL;
  char *dir;

  if (parent == NULL)
    return NULL;
  probe = xasprintf ("%s/%s", parent, needed);
  if (access (probe, F_OK) != 0)
    return NULL;
  dir = xasprintf ("%s/sandpad-%d", parent, (int) getpid ());
  if (mkdir (dir, 0700) != 0 && errno != EEXIST)
    {
      free (dir);
      return NULL;
    }
  return dir;
}

void
runner_cgroup_probe (RunnerCgroups *cg)
{
  cg->memory = make_own ("memory", "memory.limit_in_bytes");
  cg->pids = cg->memory != NULL ? make_own ("pids", "pids.max") : NULL;
}

void
runner_cgroup_clear (RunnerCgroups *cg)
{
  if (cg->memory != NULL)
    rmdir (cg->memory);
  if (cg->pids != NULL)
    rmdir (cg->pids);
  free (cg->memory);
  free (cg->pids);
  cg->memory = cg->pids = NULL;
}

static int
open_procs (const char *dir)
{
  cleanup_free char *path = xasprintf ("%s/cgroup.procs", dir);

  return open (path, O_WRONLY | O_CLOEXEC);
}

int
runner_cgroup_create (const RunnerCgroups *cg, const char *name, int64_t memory_bytes,
                      int64_t max_tasks, RunnerRunCgroup *run,
                      int procs_fds[RUNNER_CGROUP_MAX_FDS])
{
  char value[32];

  *run = (RunnerRunCgroup){ 0 };
  procs_fds[0] = procs_fds[1] = -1;
  if (cg->memory == NULL)
    return -1;
  run->memory = xasprintf ("%s/%s", cg->memory, name);
  snprintf (value, sizeof value, "%lld", (long long) memory_bytes);
  /* memsw (memory + swap) only where swap is accounted; it must be set
   * after the plain limit, which it may not undercut. */
  if (mkdir (run->memory, 0700) != 0
      || write_text_at (run->memory, "memory.limit_in_bytes", value) != 0
      || (write_text_at (run->memory, "memory.memsw.limit_in_bytes", value) != 0 && errno != ENOENT)
      || (procs_fds[0] = open_procs (run->memory)) < 0)
    goto fail;
  if (cg->pids != NULL && max_tasks > 0)
    {
      run->pids = xasprintf ("%s/%s", cg->pids, name);
      snprintf (value, sizeof value, "%lld", (long long) max_tasks);
      if (mkdir (run->pids, 0700) != 0 || write_text_at (run->pids, "pids.max", value) != 0
          || (procs_fds[1] = open_procs (run->pids)) < 0)
        goto fail;
    }
  return 0;

fail:
  for (int i = 0; i < RUNNER_CGROUP_MAX_FDS; i++)
    if (procs_fds[i] >= 0)
      close (procs_fds[i]);
  procs_fds[0] = procs_fds[1] = -1;
  runner_cgroup_remove (run);
  return -1;
}

bool
runner_cgroup_oom_killed (const RunnerRunCgroup *run)
{
  cleanup_free char *path = NULL;
  FILE *f;
  char key[64];
  long long value;
  bool killed = false;

  if (run->memory == NULL)
    return false;
  path = xasprintf ("%s/memory.oom_control", run->memory);
  f = fopen (path, "re");
  while (f != NULL && fscanf (f, "%63s %lld", key, &value) == 2)
    if (strcmp (key, "oom_kill") == 0)
      killed = value > 0;
  if (f != NULL)
    fclose (f);
  return killed;
}

void
runner_cgroup_remove (RunnerRunCgroup *run)
{
  if (run->memory != NULL)
    rmdir (run->memory);
  if (run->pids != NULL)
    rmdir (run->pids);
  free (run->memory);
  free (run->pids);
  run->memory = run->pids = NULL;
}

int
runner_cgroup_join (const int procs_fds[RUNNER_CGROUP_MAX_FDS])
{
  for (int i = 0; i < RUNNER_CGROUP_MAX_FDS; i++)
    if (procs_fds[i] >= 0 && write_all (procs_fds[i], "0", 1) != 0)
      return -1;
  return 0;
}
