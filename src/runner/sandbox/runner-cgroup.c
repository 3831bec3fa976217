/* runner-cgroup.c: see runner-cgroup.h. */
#include "runner-cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner-util.h"

#define CGROUP_V1_ROOT "/sys/fs/cgroup"

/* The leaf of a delegated v2 group that the runner itself moves into. */
#define V2_RUNNER_LEAF "sandpad-runner"

/* This process's path in the v1 hierarchy that has controller, from
 * root's /proc/self/cgroup ("4:memory:/some/path"), or NULL. With
 * controller NULL: its path in the v2 hierarchy ("0::/some/path"). */
static char *
own_path (const char *root, const char *controller)
{
  cleanup_free char *self = xasprintf ("%s/proc/self/cgroup", root);
  FILE *f = fopen (self, "re");
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
      if (controller == NULL)
        {
          if (list == line + 1 && line[0] == '0' && list[1] == '\0' && path[0] == '/')
            found = xasprintf ("%s", path);
          continue;
        }
      for (char *save = NULL, *c = strtok_r (list + 1, ",", &save); c != NULL;
           c = strtok_r (NULL, ",", &save))
        if (strcmp (c, controller) == 0)
          found = xasprintf ("%s%s/%s%s", root, CGROUP_V1_ROOT, controller, path);
    }
  fclose (f);
  return found;
}

/* Where the v2 hierarchy is mounted (from root's mountinfo), whole: a
 * mount of a subtree (a container's) would need its root mapped, so it
 * counts as none. */
static char *
v2_mount (const char *root)
{
  cleanup_free char *self = xasprintf ("%s/proc/self/mountinfo", root);
  FILE *f = fopen (self, "re");
  char line[4096];
  char *found = NULL;

  if (f == NULL)
    return NULL;
  while (found == NULL && fgets (line, sizeof line, f) != NULL)
    {
      /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS...] - FSTYPE ..." */
      char mroot[1024], point[1024];
      const char *dash = strstr (line, " - ");
      if (dash == NULL || strncmp (dash + 3, "cgroup2 ", 8) != 0
          || sscanf (line, "%*s %*s %*s %1023s %1023s", mroot, point) != 2)
        continue;
      if (strcmp (mroot, "/") == 0 && strchr (point, '\\') == NULL)
        found = xasprintf ("%s%s", root, point);
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

/* A small cgroup file's text (NUL-terminated; "" when unreadable). */
static void
read_text_at (const char *dir, const char *file, char *text, size_t size)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, file);
  cleanup_fd int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read (fd, text, size - 1) : -1;

  text[n > 0 ? n : 0] = '\0';
}

/* Whether a whitespace-separated list names word. */
static bool
has_word (const char *list, const char *word)
{
  size_t len = strlen (word);

  for (const char *p = list; (p = strstr (p, word)) != NULL; p += len)
    if ((p == list || p[-1] == ' ' || p[-1] == '\n') && strchr (" \n", p[len]) != NULL)
      return true;
  return false;
}

/* Whether this process is the only one in the group (its cgroup.procs
 * lists our pid alone). */
static bool
alone_in (const char *dir)
{
  char procs[256];
  long pid;
  int used;

  read_text_at (dir, "cgroup.procs", procs, sizeof procs);
  return sscanf (procs, "%ld %n", &pid, &used) == 1 && pid == (long) getpid ()
         && procs[used] == '\0';
}

/* Removes the empty groups below the group open as fd, depth levels
 * down; a group with a process in it stays (rmdir says EBUSY). */
static void
remove_empty_below (int fd, int depth)
{
  DIR *dir = depth > 0 ? fdopendir (dup (fd)) : NULL;
  struct dirent *entry;

  while (dir != NULL && (entry = readdir (dir)) != NULL)
    {
      if (entry->d_type != DT_DIR || strcmp (entry->d_name, ".") == 0
          || strcmp (entry->d_name, "..") == 0)
        continue;
      cleanup_fd int child = openat (dirfd (dir), entry->d_name,
                                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child >= 0)
        remove_empty_below (child, depth - 1);
      unlinkat (dirfd (dir), entry->d_name, AT_REMOVEDIR);
    }
  if (dir != NULL)
    closedir (dir);
}

/* A runner killed (SIGKILL, the OOM killer, a crash) cannot remove its
 * group; nothing else would, and they pile up (1,500 on one test machine).
 * So a runner making its group in parent removes the groups of runners
 * that are gone: sandpad-N where no process N is, and whose directory no
 * runner holds locked (a runner in another pid namespace, Flatpak's, has
 * pids we cannot see: it holds its group locked for its whole life, and
 * a lock ends with its holder, however that ends). Only empty groups go:
 * the kernel refuses to remove one with a process in it. */
static void
sweep_gone (const char *parent)
{
  DIR *dir = opendir (parent);
  struct dirent *entry;

  while (dir != NULL && (entry = readdir (dir)) != NULL)
    {
      char *end;
      if (strncmp (entry->d_name, "sandpad-", 8) != 0 || entry->d_name[8] < '0'
          || entry->d_name[8] > '9')
        continue;
      long pid = strtol (entry->d_name + 8, &end, 10);
      if (*end != '\0' || pid <= 0 || pid > INT32_MAX || pid == (long) getpid ()
          || kill ((pid_t) pid, 0) == 0 || errno != ESRCH)
        continue;
      cleanup_fd int group = openat (dirfd (dir), entry->d_name,
                                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (group < 0 || flock (group, LOCK_EX | LOCK_NB) != 0)
        continue;
      /* Its runs' groups (and a v2 run group's own), then it. */
      remove_empty_below (group, 2);
      unlinkat (dirfd (dir), entry->d_name, AT_REMOVEDIR);
    }
  if (dir != NULL)
    closedir (dir);
}

/* Our group dir, made in parent, held locked on *lock for this runner's
 * life (sweep_gone); NULL when it cannot be made. */
static char *
make_locked (const char *parent, int *lock)
{
  char *dir = xasprintf ("%s/sandpad-%d", parent, (int) getpid ());

  sweep_gone (parent);
  if (mkdir (dir, 0700) != 0 && errno != EEXIST)
    {
      free (dir);
      return NULL;
    }
  if (*lock >= 0)
    close (*lock);
  *lock = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (*lock >= 0)
    flock (*lock, LOCK_EX | LOCK_NB);
  return dir;
}

/* Our group in a delegated v2 subtree, or NULL. The subtree is ours when
 * we may write its cgroup.procs and cgroup.subtree_control and it offers
 * memory and pids. A group with processes cannot give controllers to its
 * children, so unless they are given already (the root's), we move
 * ourselves into a leaf, which we do only when no other process is in the
 * group: an app's own group is left as it is. */
static char *
make_own_v2 (const char *root, char **seen, int *lock)
{
  cleanup_free char *mount = v2_mount (root);
  cleanup_free char *path = own_path (root, NULL);
  cleanup_free char *dir = NULL;
  cleanup_free char *leaf = NULL;
  char controllers[512], subtree[512];
  char *own;

  free (*seen);
  *seen = path != NULL ? xasprintf ("%s", path) : NULL;
  if (mount == NULL || path == NULL)
    return NULL;
  dir = xasprintf ("%s%s", mount, strcmp (path, "/") == 0 ? "" : path);
  read_text_at (dir, "cgroup.controllers", controllers, sizeof controllers);
  if (!has_word (controllers, "memory") || !has_word (controllers, "pids"))
    return NULL;
  cleanup_free char *procs = xasprintf ("%s/cgroup.procs", dir);
  cleanup_free char *control = xasprintf ("%s/cgroup.subtree_control", dir);
  if (access (procs, W_OK) != 0 || access (control, W_OK) != 0)
    return NULL;
  read_text_at (dir, "cgroup.subtree_control", subtree, sizeof subtree);
  if (!has_word (subtree, "memory") || !has_word (subtree, "pids"))
    {
      if (strcmp (path, "/") != 0)
        {
          if (!alone_in (dir))
            return NULL;
          leaf = xasprintf ("%s/" V2_RUNNER_LEAF, dir);
          if ((mkdir (leaf, 0700) != 0 && errno != EEXIST)
              || write_text_at (leaf, "cgroup.procs", "0") != 0)
            return NULL;
          /* Our new place; a later look finds us in our own leaf. */
          free (*seen);
          *seen = xasprintf ("%s/" V2_RUNNER_LEAF, path);
        }
      if (write_text_at (dir, "cgroup.subtree_control", "+memory +pids") != 0)
        {
          /* Back where we were, as if we had never looked. */
          if (leaf != NULL && write_text_at (dir, "cgroup.procs", "0") == 0)
            {
              rmdir (leaf);
              free (*seen);
              *seen = xasprintf ("%s", path);
            }
          return NULL;
        }
    }
  own = make_locked (dir, lock);
  if (own != NULL && write_text_at (own, "cgroup.subtree_control", "+memory +pids") != 0)
    {
      rmdir (own);
      free (own);
      return NULL;
    }
  return own;
}

/* Our group under one v1 controller: made only if the controller's file
 * we need is there to write (v2 has no "memory.limit_in_bytes"). */
static char *
make_own (const char *root, const char *controller, const char *needed, int *lock)
{
  cleanup_free char *parent = own_path (root, controller);
  cleanup_free char *probe = NULL;

  if (parent == NULL)
    return NULL;
  probe = xasprintf ("%s/%s", parent, needed);
  if (access (probe, F_OK) != 0)
    return NULL;
  return make_locked (parent, lock);
}

void
runner_cgroup_probe_at (RunnerCgroups *cg, const char *root)
{
  *cg = (RunnerCgroups){ .lock = { -1, -1 } };
  cg->memory = make_own_v2 (root, &cg->seen, &cg->lock[0]);
  if (cg->memory != NULL)
    {
      cg->version = 2;
      return;
    }
  cg->memory = make_own (root, "memory", "memory.limit_in_bytes", &cg->lock[0]);
  cg->pids = cg->memory != NULL ? make_own (root, "pids", "pids.max", &cg->lock[1]) : NULL;
  cg->version = cg->memory != NULL ? 1 : 0;
}

void
runner_cgroup_probe (RunnerCgroups *cg)
{
  runner_cgroup_probe_at (cg, "");
}

void
runner_cgroup_refresh (RunnerCgroups *cg)
{
  cleanup_free char *path = NULL;

  if (cg->version != 0)
    return;
  path = own_path ("", NULL);
  if (path == NULL || (cg->seen != NULL && strcmp (path, cg->seen) == 0))
    return;
  cg->memory = make_own_v2 ("", &cg->seen, &cg->lock[0]);
  cg->version = cg->memory != NULL ? 2 : 0;
}

void
runner_cgroup_clear (RunnerCgroups *cg)
{
  if (cg->memory != NULL)
    rmdir (cg->memory);
  if (cg->pids != NULL)
    rmdir (cg->pids);
  for (size_t i = 0; i < 2; i++)
    if (cg->lock[i] >= 0)
      close (cg->lock[i]);
  free (cg->memory);
  free (cg->pids);
  free (cg->seen);
  *cg = (RunnerCgroups){ .lock = { -1, -1 } };
}

int
runner_cgroup_limit_at (int version, int memory_dir, int pids_dir, int64_t memory_bytes,
                        int64_t max_tasks)
{
  char value[32], tasks[32];

  snprintf (value, sizeof value, "%lld", (long long) memory_bytes);
  snprintf (tasks, sizeof tasks, "%lld", (long long) max_tasks);
  if (version == 2)
    {
      /* One group, both controllers. memory.max counts what v1's
       * limit_in_bytes does, kernel memory included; swap is counted
       * apart and allowed none (where the kernel accounts it). */
      if (write_file_at (memory_dir, "memory.max", value) != 0
          || (write_file_at (memory_dir, "memory.swap.max", "0") != 0 && errno != ENOENT))
        return -1;
      return write_file_at (memory_dir, "pids.max", max_tasks > 0 ? tasks : "max");
    }
  if (version != 1)
    return errno = EINVAL, -1;
  /* memsw (memory + swap) only where swap is accounted; it must be set
   * after the plain limit, which it may not undercut. */
  if (write_file_at (memory_dir, "memory.limit_in_bytes", value) != 0
      || (write_file_at (memory_dir, "memory.memsw.limit_in_bytes", value) != 0 && errno != ENOENT))
    return -1;
  if (pids_dir >= 0 && max_tasks > 0)
    return write_file_at (pids_dir, "pids.max", tasks);
  return 0;
}

static int
open_dir (const char *path)
{
  return open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int
runner_cgroup_create (const RunnerCgroups *cg, const char *name, int64_t memory_bytes,
                      int64_t max_tasks, RunnerRunCgroup *run, int procs_fds[RUNNER_CGROUP_MAX_FDS])
{
  cleanup_fd int memory_dir = -1;
  cleanup_fd int pids_dir = -1;

  *run = (RunnerRunCgroup){ 0 };
  procs_fds[0] = procs_fds[1] = -1;
  if (cg->memory == NULL)
    return -1;
  run->version = cg->version;
  run->memory = xasprintf ("%s/%s", cg->memory, name);
  if (cg->version == 2)
    run->pids = xasprintf ("%s", run->memory);
  else if (cg->pids != NULL && max_tasks > 0)
    run->pids = xasprintf ("%s/%s", cg->pids, name);
  if (mkdir (run->memory, 0700) != 0 || (memory_dir = open_dir (run->memory)) < 0)
    goto fail;
  if (cg->version == 1 && run->pids != NULL
      && (mkdir (run->pids, 0700) != 0 || (pids_dir = open_dir (run->pids)) < 0))
    goto fail;
  if (runner_cgroup_limit_at (cg->version, memory_dir, pids_dir, memory_bytes, max_tasks) != 0
      || (procs_fds[0] = openat (memory_dir, "cgroup.procs", O_WRONLY | O_CLOEXEC)) < 0)
    goto fail;
  if (pids_dir >= 0 && (procs_fds[1] = openat (pids_dir, "cgroup.procs", O_WRONLY | O_CLOEXEC)) < 0)
    goto fail;
  return 0;

fail:
  for (int i = 0; i < RUNNER_CGROUP_MAX_FDS; i++)
    if (procs_fds[i] >= 0)
      close (procs_fds[i]);
  procs_fds[0] = procs_fds[1] = -1;
  runner_cgroup_remove (run);
  return -1;
}

int
runner_cgroup_seat_make (int version, int memory_parent, int pids_parent, const char *name,
                         int dirs[RUNNER_CGROUP_MAX_FDS], int procs_fds[RUNNER_CGROUP_MAX_FDS])
{
  int parents[RUNNER_CGROUP_MAX_FDS] = { memory_parent, version == 1 ? pids_parent : -1 };

  for (int i = 0; i < RUNNER_CGROUP_MAX_FDS; i++)
    dirs[i] = procs_fds[i] = -1;
  if ((version != 1 && version != 2) || memory_parent < 0 || strchr (name, '/') != NULL)
    return errno = EINVAL, -1;
  for (int i = 0; i < RUNNER_CGROUP_MAX_FDS; i++)
    {
      if (parents[i] < 0)
        continue;
      if (mkdirat (parents[i], name, 0700) != 0
          || (dirs[i] = openat (parents[i], name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0
          || (procs_fds[i] = openat (dirs[i], "cgroup.procs", O_WRONLY | O_CLOEXEC)) < 0)
        {
          int errsv = errno;
          for (int j = 0; j <= i; j++)
            {
              if (dirs[j] >= 0)
                close (dirs[j]);
              if (procs_fds[j] >= 0)
                close (procs_fds[j]);
              dirs[j] = procs_fds[j] = -1;
              if (parents[j] >= 0)
                unlinkat (parents[j], name, AT_REMOVEDIR);
            }
          return errno = errsv, -1;
        }
    }
  return 0;
}

int
runner_cgroup_seat_drop (int version, int memory_parent, int pids_parent, const char *name)
{
  int parents[RUNNER_CGROUP_MAX_FDS] = { memory_parent, version == 1 ? pids_parent : -1 };
  int rc = 0;

  if (strchr (name, '/') != NULL || memory_parent < 0)
    return errno = EINVAL, -1;
  if (version == 2)
    {
      /* A spare's processes go at once; the group is gone once empty. */
      cleanup_fd int dir = openat (memory_parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir >= 0)
        write_file_at (dir, "cgroup.kill", "1");
    }
  for (int i = 0; i < RUNNER_CGROUP_MAX_FDS; i++)
    if (parents[i] >= 0 && unlinkat (parents[i], name, AT_REMOVEDIR) != 0 && errno != ENOENT)
      rc = -1;
  return rc;
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
  /* v1: memory.oom_control's oom_kill; v2: memory.events' (this group's
   * own, as a run's group has no children). */
  path = xasprintf ("%s/%s", run->memory,
                    run->version == 2 ? "memory.events" : "memory.oom_control");
  f = fopen (path, "re");
  while (f != NULL && fscanf (f, "%63s %lld", key, &value) == 2)
    if (strcmp (key, "oom_kill") == 0)
      killed = value > 0;
  if (f != NULL)
    fclose (f);
  return killed;
}

int64_t
runner_cgroup_peak (const RunnerRunCgroup *run)
{
  char text[32];
  char *end;
  long long peak;

  if (run->version != 2 || run->memory == NULL)
    return -1;
  read_text_at (run->memory, "memory.peak", text, sizeof text);
  peak = strtoll (text, &end, 10);
  return end != text && (*end == '\n' || *end == '\0') && peak >= 0 ? peak : -1;
}

void
runner_cgroup_kill (const RunnerRunCgroup *run)
{
  if (run->version == 2 && run->memory != NULL)
    write_text_at (run->memory, "cgroup.kill", "1");
}

void
runner_cgroup_remove (RunnerRunCgroup *run)
{
  /* A v2 group is gone only once empty: anything left is killed first. */
  runner_cgroup_kill (run);
  if (run->memory != NULL)
    rmdir (run->memory);
  if (run->pids != NULL && (run->memory == NULL || strcmp (run->pids, run->memory) != 0))
    rmdir (run->pids);
  free (run->memory);
  free (run->pids);
  *run = (RunnerRunCgroup){ 0 };
}

int
runner_cgroup_join (const int procs_fds[RUNNER_CGROUP_MAX_FDS])
{
  for (int i = 0; i < RUNNER_CGROUP_MAX_FDS; i++)
    if (procs_fds[i] >= 0 && write_all (procs_fds[i], "0", 1) != 0)
      return -1;
  return 0;
}

int
runner_cgroup_version (const RunnerCgroups *cg)
{
  return cg != NULL ? cg->version : 0;
}

bool
runner_cgroup_has_memory (const RunnerRunCgroup *run)
{
  return run->memory != NULL;
}

bool
runner_cgroup_has_pids (const RunnerRunCgroup *run)
{
  return run->pids != NULL;
}

int
runner_cgroup_memory_version (const RunnerRunCgroup *run)
{
  return run->memory != NULL ? run->version : 0;
}
