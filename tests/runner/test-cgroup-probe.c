/* test-cgroup-probe.c: which cgroup the runner picks for its runs, from
 * what /proc/self/cgroup, /proc/self/mountinfo and the cgroup files say.
 * The kinds of machine it must tell apart (a desktop with a delegated v2
 * scope, a root runner on v1, both, neither, an app's own shared group)
 * cannot all be had on one machine, so each is a small tree of plain
 * files under a temporary root (runner_cgroup_probe_at), written as the
 * kernel writes them. What the probe wrote (moving itself into a leaf,
 * giving memory and pids to the children) is read back from the files.
 * The real kernel's side is tests/runner/test-memory.py's cgroup_v2_*.
 *
 * Prints TAP. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner-cgroup.h"
#include "runner-base.h"
#include "tap.h"

#define SCOPE "/user.slice/user-1000.slice/user@1000.service/app.slice/sandpad-runner-7.scope"

static char *
path_of (const char *root, const char *rel)
{
  return xasprintf ("%s/%s", root, rel);
}

/* mkdir -p of root/rel's directory, then the file with text. */
static void put (const char *root, const char *rel, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

static void
put (const char *root, const char *rel, const char *fmt, ...)
{
  char *path = path_of (root, rel);
  char *text = NULL;
  va_list args;
  FILE *f;

  for (char *p = path + strlen (root) + 1; (p = strchr (p, '/')) != NULL; p++)
    {
      *p = '\0';
      if (mkdir (path, 0755) != 0 && errno != EEXIST)
        die_with_error ("mkdir %s", path);
      *p = '/';
    }
  va_start (args, fmt);
  if (vasprintf (&text, fmt, args) < 0)
    die ("vasprintf");
  va_end (args);
  f = fopen (path, "we");
  if (f == NULL || fputs (text, f) < 0 || fclose (f) != 0)
    die_with_error ("write %s", path);
  free (text);
  free (path);
}

static char *
get (const char *root, const char *rel)
{
  char *path = path_of (root, rel);
  static char text[512];
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read (fd, text, sizeof text - 1) : -1;

  if (fd >= 0)
    close (fd);
  free (path);
  text[n > 0 ? n : 0] = '\0';
  return text;
}

static const char v1_cgroup[] = "9:name=systemd:/\n8:pids:/ci\n4:memory:/ci\n1:cpu:/\n";
static const char hybrid_mounts[]
  = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char v2_mounts[]
  = "30 23 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n";

/* A v1 memory and pids hierarchy where a root runner may make groups. */
static void
make_v1 (const char *root)
{
  put (root, "sys/fs/cgroup/memory/ci/memory.limit_in_bytes", "9223372036854771712\n");
  put (root, "sys/fs/cgroup/pids/ci/pids.max", "max\n");
}

static char *
new_root (void)
{
  char *root = xasprintf ("/tmp/sandpad-cgroup-probe-XXXXXX");

  if (mkdtemp (root) == NULL)
    die_with_error ("mkdtemp");
  return root;
}

static char *
expect_dir (const char *root, const char *group)
{
  return xasprintf ("%s/sys/fs/cgroup/%s/sandpad-%d", root, group, (int) getpid ());
}

int
main (void)
{
  char self[32];
  snprintf (self, sizeof self, "%d\n", (int) getpid ());
  plan (24);

  /* 1. A delegated v2 scope (pure v2), the runner alone in it: v2, the
   * runner moves into a leaf, memory and pids go to the children. */
  {
    char *root = new_root ();
    RunnerCgroups cg;
    put (root, "proc/self/mountinfo", "%s", v2_mounts);
    put (root, "proc/self/cgroup", "0::" SCOPE "\n");
    put (root, "sys/fs/cgroup" SCOPE "/cgroup.controllers", "cpu io memory pids\n");
    put (root, "sys/fs/cgroup" SCOPE "/cgroup.subtree_control", "%s", "");
    put (root, "sys/fs/cgroup" SCOPE "/cgroup.procs", "%s", self);
    put (root, "sys/fs/cgroup" SCOPE "/sandpad-runner/cgroup.procs", "%s", "");
    char *ours = xasprintf ("sys/fs/cgroup" SCOPE "/sandpad-%d/cgroup.subtree_control",
                            (int) getpid ());
    /* The files the kernel would make in the groups the probe creates
     * are there beforehand: a plain directory gets none by mkdir. */
    put (root, ours, "%s", "");
    runner_cgroup_probe_at (&cg, root);
    char *want = expect_dir (root, &SCOPE[1]);
    is_int (cg.version, 2, "delegated v2 scope: v2");
    is_str (cg.memory, want, "our group is sandpad-PID in the scope");
    ok (cg.pids == NULL, "v2 needs no separate pids group");
    is_str (get (root, "sys/fs/cgroup" SCOPE "/sandpad-runner/cgroup.procs"), "0",
            "the runner moved itself into a leaf first");
    is_str (get (root, "sys/fs/cgroup" SCOPE "/cgroup.subtree_control"), "+memory +pids",
            "then gave memory and pids to the scope's children");
    is_str (get (root, ours), "+memory +pids", "and to the runs' groups under ours");
    is_str (cg.seen, SCOPE "/sandpad-runner", "it knows where it is now");
    runner_cgroup_clear (&cg);
    free (ours);
    free (want);
    remove_tree (root);
    free (root);
  }

  /* 2. Hybrid: v1 memory usable, and a delegated v2 scope with memory and
   * pids too (a controller is in one hierarchy only, but the probe must
   * prefer v2 whatever v1 offers). */
  {
    char *root = new_root ();
    RunnerCgroups cg;
    put (root, "proc/self/mountinfo", "%s", hybrid_mounts);
    put (root, "proc/self/cgroup", "%s0::" SCOPE "\n", v1_cgroup);
    make_v1 (root);
    put (root, "sys/fs/cgroup/unified" SCOPE "/cgroup.controllers", "memory pids\n");
    put (root, "sys/fs/cgroup/unified" SCOPE "/cgroup.subtree_control", "%s", "");
    put (root, "sys/fs/cgroup/unified" SCOPE "/cgroup.procs", "%s", self);
    put (root, "sys/fs/cgroup/unified" SCOPE "/sandpad-runner/cgroup.procs", "%s", "");
    char *ours = xasprintf ("sys/fs/cgroup/unified" SCOPE "/sandpad-%d/cgroup.subtree_control",
                            (int) getpid ());
    put (root, ours, "%s", "");
    runner_cgroup_probe_at (&cg, root);
    char *want = expect_dir (root, "unified" SCOPE);
    is_int (cg.version, 2, "v1 and a delegated v2 (hybrid mount): v2 preferred");
    is_str (cg.memory, want, "in the unified hierarchy's scope");
    runner_cgroup_clear (&cg);
    free (ours);
    free (want);
    remove_tree (root);
    free (root);
  }

  /* 3. This CI machine's kind: v1 memory and pids, a v2 hierarchy with no
   * controllers: v1. */
  {
    char *root = new_root ();
    RunnerCgroups cg;
    put (root, "proc/self/mountinfo", "%s", hybrid_mounts);
    put (root, "proc/self/cgroup", "%s0::/\n", v1_cgroup);
    make_v1 (root);
    put (root, "sys/fs/cgroup/unified/cgroup.controllers", "\n");
    put (root, "sys/fs/cgroup/unified/cgroup.subtree_control", "%s", "");
    put (root, "sys/fs/cgroup/unified/cgroup.procs", "1\n%s", self);
    runner_cgroup_probe_at (&cg, root);
    char *mem = xasprintf ("%s/sys/fs/cgroup/memory/ci/sandpad-%d", root, (int) getpid ());
    char *pids = xasprintf ("%s/sys/fs/cgroup/pids/ci/sandpad-%d", root, (int) getpid ());
    is_int (cg.version, 1, "v1 memory, v2 without controllers: v1");
    is_str (cg.memory, mem, "the memory group under our own");
    is_str (cg.pids, pids, "and the pids group");
    runner_cgroup_clear (&cg);
    free (mem);
    free (pids);
    remove_tree (root);
    free (root);
  }

  /* 4. A v2 group with memory and pids that is not ours alone (the app's
   * own, the runner spawned into it): not touched, and with no v1, none. */
  {
    char *root = new_root ();
    RunnerCgroups cg;
    put (root, "proc/self/mountinfo", "%s", v2_mounts);
    put (root, "proc/self/cgroup", "0::" SCOPE "\n");
    put (root, "sys/fs/cgroup" SCOPE "/cgroup.controllers", "memory pids\n");
    put (root, "sys/fs/cgroup" SCOPE "/cgroup.subtree_control", "%s", "");
    put (root, "sys/fs/cgroup" SCOPE "/cgroup.procs", "4242\n%s", self);
    put (root, "sys/fs/cgroup" SCOPE "/sandpad-runner/cgroup.procs", "%s", "");
    runner_cgroup_probe_at (&cg, root);
    is_int (cg.version, 0, "a v2 group shared with another process: none");
    ok (cg.memory == NULL && cg.pids == NULL, "no group of ours");
    is_str (get (root, "sys/fs/cgroup" SCOPE "/sandpad-runner/cgroup.procs"), "",
            "the runner did not move itself");
    is_str (get (root, "sys/fs/cgroup" SCOPE "/cgroup.subtree_control"), "",
            "nor touch the group's controllers");
    runner_cgroup_clear (&cg);
    remove_tree (root);
    free (root);
  }

  /* 5. v2 without the memory controller delegated, and no v1: none. */
  {
    char *root = new_root ();
    RunnerCgroups cg;
    put (root, "proc/self/mountinfo", "%s", v2_mounts);
    put (root, "proc/self/cgroup", "0::" SCOPE "\n");
    put (root, "sys/fs/cgroup" SCOPE "/cgroup.controllers", "cpu pids\n");
    put (root, "sys/fs/cgroup" SCOPE "/cgroup.subtree_control", "%s", "");
    put (root, "sys/fs/cgroup" SCOPE "/cgroup.procs", "%s", self);
    runner_cgroup_probe_at (&cg, root);
    is_int (cg.version, 0, "v2 without memory, no v1: none");
    runner_cgroup_clear (&cg);
    remove_tree (root);
    free (root);
  }

  /* 6. Nothing mounted at all (a minimal container): none. */
  {
    char *root = new_root ();
    RunnerCgroups cg;
    put (root, "proc/self/mountinfo", "%s", "");
    put (root, "proc/self/cgroup", "0::/\n");
    runner_cgroup_probe_at (&cg, root);
    is_int (cg.version, 0, "no cgroup hierarchy: none");
    runner_cgroup_clear (&cg);
    remove_tree (root);
    free (root);
  }
  /* 7. Groups beside ours of runners that are gone (killed, they could
   * not remove them): removed with their empty runs' groups. Kept: a
   * live runner's (its pid is there), one held locked (a live runner in
   * another pid namespace), one with something in it (the kernel's
   * "populated": here a file, so rmdir fails as on cgroupfs). */
  {
    char *root = new_root ();
    RunnerCgroups cg;
    pid_t gone = fork ();
    if (gone == 0)
      _exit (0);
    waitpid (gone, NULL, 0);
    pid_t parent = getppid ();
    put (root, "proc/self/mountinfo", "%s", hybrid_mounts);
    put (root, "proc/self/cgroup", "%s0::/\n", v1_cgroup);
    make_v1 (root);
    char *dead_mem = xasprintf ("%s/sys/fs/cgroup/memory/ci/sandpad-%d", root, (int) gone);
    char *dead_run = xasprintf ("%s/run-1", dead_mem);
    char *dead_pids = xasprintf ("%s/sys/fs/cgroup/pids/ci/sandpad-%d", root, (int) gone);
    char *live = xasprintf ("%s/sys/fs/cgroup/memory/ci/sandpad-%d", root, (int) parent);
    char *locked = xasprintf ("%s/sys/fs/cgroup/memory/ci/sandpad-%d", root, (int) gone + 100000);
    char *busy_rel = xasprintf ("sys/fs/cgroup/memory/ci/sandpad-%d/run-2/tasks",
                                (int) gone + 200000);
    char *busy = xasprintf ("%s/sys/fs/cgroup/memory/ci/sandpad-%d", root, (int) gone + 200000);
    if (mkdir (dead_mem, 0700) != 0 || mkdir (dead_run, 0700) != 0 || mkdir (dead_pids, 0700) != 0
        || mkdir (live, 0700) != 0 || mkdir (locked, 0700) != 0)
      die_with_error ("mkdir");
    put (root, busy_rel, "%s", "");
    int hold = open (locked, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (hold < 0 || flock (hold, LOCK_EX) != 0)
      die_with_error ("flock %s", locked);
    runner_cgroup_probe_at (&cg, root);
    is_int (cg.version, 1, "v1, with other runners' groups beside ours");
    ok (access (dead_mem, F_OK) != 0 && access (dead_pids, F_OK) != 0,
        "a gone runner's groups are removed, memory and pids");
    ok (access (live, F_OK) == 0, "a live runner's group stays");
    ok (access (locked, F_OK) == 0, "a group held locked stays (a runner we cannot see)");
    ok (access (busy, F_OK) == 0, "a group that cannot be removed stays");
    /* Ours is held locked too: another runner would keep it. */
    int probe = open (cg.memory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ok (probe >= 0 && flock (probe, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK,
        "ours is held locked while we have it");
    if (probe >= 0)
      close (probe);
    close (hold);
    runner_cgroup_clear (&cg);
    free (dead_mem);
    free (dead_run);
    free (dead_pids);
    free (live);
    free (locked);
    free (busy_rel);
    free (busy);
    remove_tree (root);
    free (root);
  }
  return done_testing ();
}
