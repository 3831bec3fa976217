/* runner-mounts.c: the private root of a namespace-mode run.
 *
 * Runs in pid 1 of the run's namespaces, which holds every capability in
 * its own user namespace and none outside. The root is an empty tmpfs; the
 * host contributes only read-only binds of /usr and a few /etc files, the
 * run's working directory (read-write, at /work, and for an assistant's
 * workspace at its own host path too) and its code (read-only, at /code).
 * No home, no /run, no session bus or display socket, no /sys: what is
 * not mounted cannot be reached. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>

#include "runner-sandbox.h"
#include "runner-util.h"

/* Keep the flags the source mount already has: a user namespace may not
 * clear them (they are locked), only add to them. */
static unsigned long
locked_flags (const char *path)
{
  struct statvfs sv;
  unsigned long flags = 0;

  if (statvfs (path, &sv) != 0)
    return 0;
  if (sv.f_flag & ST_NOSUID)
    flags |= MS_NOSUID;
  if (sv.f_flag & ST_NODEV)
    flags |= MS_NODEV;
  if (sv.f_flag & ST_NOEXEC)
    flags |= MS_NOEXEC;
  if (sv.f_flag & ST_NOATIME)
    flags |= MS_NOATIME;
  if (sv.f_flag & ST_NODIRATIME)
    flags |= MS_NODIRATIME;
  if (sv.f_flag & ST_RELATIME)
    flags |= MS_RELATIME;
  if (sv.f_flag & ST_RDONLY)
    flags |= MS_RDONLY;
  return flags;
}

/* Creates dst (relative to the new root) as a directory or an empty file,
 * whichever src is, and binds src onto it. */
static int
bind (const char *src, const char *dst, bool writable, bool devices)
{
  struct stat st;

  if (stat (src, &st) != 0)
    return errno == ENOENT ? 0 : -1; /* absent on this host: nothing to hide */
  if (S_ISDIR (st.st_mode))
    {
      if (mkdir (dst, 0755) != 0 && errno != EEXIST)
        return -1;
    }
  else
    {
      int fd = open (dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd < 0)
        return -1;
      close (fd);
    }
  if (mount (src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
    return -1;
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | locked_flags (dst);
  if (!devices)
    flags |= MS_NODEV;
  if (!writable)
    flags |= MS_RDONLY;
  return mount (NULL, dst, NULL, flags, NULL);
}

/* The working directory, read-write at /work: looked up by name again here
 * (an fd the runner holds belongs to the host's mount namespace, which
 * mount(2) refuses as a source in this one), checked to be the directory
 * the runner checked, and bound through that fd's /proc link, so a swap
 * of the name after the check cannot put another directory at /work. */
static int
bind_work (const RunnerSandboxPlan *plan)
{
  const char *dst = RUNNER_SANDBOX_WORK + 1;
  char src[64];
  cleanup_fd int fd = runner_sandbox_open_work (plan);

  if (fd < 0)
    return -1;
  if (mkdir (dst, 0755) != 0 && errno != EEXIST)
    return -1;
  snprintf (src, sizeof src, "/proc/self/fd/%d", fd);
  if (mount (src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
    return -1;
  return mount (NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | locked_flags (dst),
                NULL);
}

/* The names the private root is made of, and pivot_root's mount point. */
static const char *const root_names[] = { "usr",   "etc",   "bin",      "sbin", "lib",
                                          "lib32", "lib64", "libx32",   "dev",  "proc",
                                          "work",  "code",  ".oldroot", NULL };

bool
runner_sandbox_host_path_ok (const char *path, const char **why)
{
  if (path == NULL || path[0] != '/' || path[1] == '\0' || strlen (path) >= 4096)
    return *why = "it is not an absolute path below /", false;
  for (const char *p = path + 1; *p != '\0';)
    {
      size_t len = strcspn (p, "/");
      if (len == 0 || len > 255 || (len == 1 && p[0] == '.')
          || (len == 2 && p[0] == '.' && p[1] == '.'))
        return *why = "it is not a canonical path", false;
      p += len + (p[len] == '/');
    }
  size_t first = strcspn (path + 1, "/");
  for (size_t i = 0; root_names[i] != NULL; i++)
    if (strlen (root_names[i]) == first && strncmp (path + 1, root_names[i], first) == 0)
      return *why = "it lies under a directory the sandbox provides itself", false;
  if (strcmp (path, "/tmp") == 0)
    return *why = "it is /tmp, which the sandbox provides itself", false;
  return true;
}

/* The working directory at its own host path as well as at /work, for a
 * program told that path (an assistant's workspace). The same checked fd
 * as /work, as writable. The directories above it are made here, in the
 * root's tmpfs (or, for a path under /tmp, the private /tmp), one
 * component at a time beneath an fd of the one above, never following a
 * symlink and never entering anything else (a bind of the host's), so
 * they are empty directories of the sandbox's own, read-only once the
 * root is. */
static int
bind_work_at_host (const RunnerSandboxPlan *plan)
{
  const char *why = NULL;
  struct stat root_st, tmp_st, st;
  char name[256], src[32], dst[32];

  if (!runner_sandbox_host_path_ok (plan->work_dir, &why))
    return errno = EINVAL, -1;
  cleanup_fd int work = runner_sandbox_open_work (plan);
  cleanup_fd int parent = -1;
  cleanup_fd int dir = open (".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (work < 0 || dir < 0 || fstat (dir, &root_st) != 0 || stat ("tmp", &tmp_st) != 0)
    return -1;
  for (const char *p = plan->work_dir + 1; *p != '\0';)
    {
      size_t len = strcspn (p, "/");
      if (fstat (dir, &st) != 0)
        return -1;
      if (st.st_dev != root_st.st_dev && st.st_dev != tmp_st.st_dev)
        return errno = EXDEV, -1;
      memcpy (name, p, len);
      name[len] = '\0';
      if (mkdirat (dir, name, 0755) != 0 && errno != EEXIST)
        return -1;
      int next = openat (dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0)
        return -1;
      if (parent >= 0)
        close (parent);
      parent = dir;
      dir = next;
      p += len + (p[len] == '/');
    }
  if (fstat (dir, &st) != 0)
    return -1;
  if (st.st_dev != root_st.st_dev && st.st_dev != tmp_st.st_dev)
    return errno = EXDEV, -1;
  snprintf (src, sizeof src, "/proc/self/fd/%d", work);
  snprintf (dst, sizeof dst, "/proc/self/fd/%d", dir);
  if (mount (src, dst, NULL, MS_BIND | MS_REC, NULL) != 0)
    return -1;
  /* The mount's own root, to remount it: the name, looked up again
   * beneath its parent, now crosses into it. */
  cleanup_fd int top = openat (parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat work_st;
  if (top < 0 || fstat (top, &st) != 0 || fstat (work, &work_st) != 0)
    return -1;
  if (st.st_dev != work_st.st_dev || st.st_ino != work_st.st_ino)
    return errno = ESTALE, -1;
  snprintf (dst, sizeof dst, "/proc/self/fd/%d", top);
  return mount (NULL, dst, NULL, MS_BIND | MS_REMOUNT | MS_NOSUID | MS_NODEV | locked_flags (dst),
                NULL);
}

static int
write_text (const char *path, const char *text)
{
  cleanup_fd int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  if (fd < 0)
    return -1;
  return write_all (fd, text, strlen (text));
}

/* /bin, /lib and friends are symlinks into /usr on merged-/usr systems and
 * directories elsewhere; mirror whichever the host has. */
static int
mirror_toplevel (void)
{
  static const char *const names[] = { "bin", "sbin", "lib", "lib64", "lib32", "libx32" };

  for (size_t i = 0; i < N_ELEMENTS (names); i++)
    {
      char host[32], target[256];
      ssize_t n;

      snprintf (host, sizeof host, "/%s", names[i]);
      n = readlink (host, target, sizeof target - 1);
      if (n > 0)
        {
          target[n] = '\0';
          if (symlink (target, names[i]) != 0)
            return -1;
        }
      else if (bind (host, names[i], false, false) != 0)
        return -1;
    }
  return 0;
}

/* mkdir -p of the directories above a relative path. */
static int
make_parents (const char *path)
{
  char buf[4096];

  if (strlen (path) >= sizeof buf)
    return errno = ENAMETOOLONG, -1;
  snprintf (buf, sizeof buf, "%s", path);
  for (char *slash = strchr (buf, '/'); slash != NULL; slash = strchr (slash + 1, '/'))
    {
      *slash = '\0';
      if (mkdir (buf, 0755) != 0 && errno != EEXIST)
        return -1;
      *slash = '/';
    }
  return 0;
}

static int
build_etc (const RunnerSandboxPlan *plan)
{
  if (mkdir ("etc", 0755) != 0)
    return -1;
  for (size_t i = 0; runner_sandbox_etc[i] != NULL; i++)
    {
      const char *dst = runner_sandbox_etc[i] + 1;
      if (access (runner_sandbox_etc[i], F_OK) == 0
          && (make_parents (dst) != 0 || bind (runner_sandbox_etc[i], dst, false, false) != 0))
        return -1;
    }
  /* Name servers, for a run that may use the network (without it there is
   * none to ask, and the file would only tell the host's). A symlink (to
   * systemd-resolved's stub, or Flatpak's copy) is followed by the bind. */
  if (plan->network
      && bind (RUNNER_SANDBOX_RESOLV_CONF, RUNNER_SANDBOX_RESOLV_CONF + 1, false, false) != 0)
    return -1;

  /* A synthesized user database: the program's own user and nothing of
   * the host's accounts. */
  char passwd[256], group[256];
  snprintf (passwd, sizeof passwd,
            "root:x:0:0:root:/root:/usr/sbin/nologin\n"
            "sandbox:x:%d:%d:Sandpad:" RUNNER_SANDBOX_WORK ":/bin/sh\n"
            "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
            RUNNER_SANDBOX_INNER_ID, RUNNER_SANDBOX_INNER_ID);
  snprintf (group, sizeof group, "root:x:0:\nsandbox:x:%d:\nnogroup:x:65534:\n",
            RUNNER_SANDBOX_INNER_ID);
  if (write_text ("etc/passwd", passwd) != 0 || write_text ("etc/group", group) != 0
      || write_text ("etc/hostname", "sandpad\n") != 0
      || write_text ("etc/hosts", "127.0.0.1 localhost sandpad\n::1 localhost\n") != 0)
    return -1;
  return 0;
}

static int
build_dev (void)
{
  static const char *const nodes[] = { "null", "zero", "full", "random", "urandom" };

  if (mkdir ("dev", 0755) != 0
      || mount ("tmpfs", "dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k") != 0)
    return -1;
  for (size_t i = 0; i < N_ELEMENTS (nodes); i++)
    {
      char src[32], dst[32];
      snprintf (src, sizeof src, "/dev/%s", nodes[i]);
      snprintf (dst, sizeof dst, "dev/%s", nodes[i]);
      if (bind (src, dst, true, true) != 0)
        return -1;
    }
  if (symlink ("/proc/self/fd", "dev/fd") != 0 || symlink ("/proc/self/fd/0", "dev/stdin") != 0
      || symlink ("/proc/self/fd/1", "dev/stdout") != 0
      || symlink ("/proc/self/fd/2", "dev/stderr") != 0)
    return -1;
  /* POSIX shared memory and semaphores (multiprocessing) live here. */
  if (mkdir ("dev/shm", 01777) != 0
      || mount ("tmpfs", "dev/shm", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                "mode=1777,size=64m,nr_inodes=1024")
           != 0)
    return -1;
  return 0;
}

/* The run's environment (a venv or node_modules) at its own path, where
 * its interpreter and pyvenv.cfg expect it; and, when it lies inside the
 * working directory (a workspace run in place), bound again over its
 * place under /work, or the writable /work bind would let the run change
 * it. Read-only except during an install's last step. */
static int
bind_environment (const RunnerSandboxPlan *plan)
{
  const char *env = plan->env_dir;
  size_t work_len = strlen (plan->work_dir);
  char src[32];
  /* Through an fd found to be what the runner checked, as /work is. */
  cleanup_fd int fd = runner_sandbox_open_checked (env, plan->env_id);

  if (fd < 0)
    return -1;
  snprintf (src, sizeof src, "/proc/self/fd/%d", fd);
  if (make_parents (env + 1) != 0 || bind (src, env + 1, plan->env_writable, false) != 0)
    return -1;
  if (strncmp (env, plan->work_dir, work_len) == 0 && env[work_len] == '/')
    {
      char inner[4096];
      if (snprintf (inner, sizeof inner, "%s%s", RUNNER_SANDBOX_WORK + 1, env + work_len)
          >= (int) sizeof inner)
        return errno = ENAMETOOLONG, -1;
      if (bind (src, inner, plan->env_writable, false) != 0)
        return -1;
    }
  return 0;
}

int
runner_sandbox_build_root (const RunnerSandboxPlan *plan)
{
  char opts[96];

  /* Nothing we mount may propagate back to the host. */
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return RUNNER_STEP_ROOT;
  if (mount ("tmpfs", plan->root_dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m") != 0
      || chdir (plan->root_dir) != 0)
    return RUNNER_STEP_ROOT;

  if (bind ("/usr", "usr", false, false) != 0 || mirror_toplevel () != 0 || build_etc (plan) != 0
      || bind_work (plan) != 0 || bind (plan->code_dir, RUNNER_SANDBOX_CODE + 1, false, false) != 0
      || build_dev () != 0)
    return RUNNER_STEP_ROOT;
  /* The prelude's files, the runner's for all its runs: read-only, so
   * that whoever owns them (the run's own uid under an unprivileged
   * runner), no run can write, replace or chmod them for the next. The
   * mount point is the run's empty code/.sandpad/prelude (mkdir finds it
   * there: the code bind is read-only already, so nothing else could be
   * made in its place). */
  struct stat prelude_st;
  if (plan->prelude_dir != NULL
      && (stat (plan->prelude_dir, &prelude_st) != 0 || !S_ISDIR (prelude_st.st_mode)
          || bind (plan->prelude_dir, RUNNER_SANDBOX_CODE_PRELUDE + 1, false, false) != 0))
    return RUNNER_STEP_ROOT; /* bind() would skip one that is not there */

  /* Size and inodes: a tmpfs full of empty files costs memory too. One
   * inode per 4 KiB of the cap, within sane bounds. */
  long long inodes = plan->tmp_bytes / 4096;
  inodes = inodes < 1024 ? 1024 : inodes > (1 << 20) ? (1 << 20) : inodes;
  snprintf (opts, sizeof opts, "mode=1777,size=%lld,nr_inodes=%lld", (long long) plan->tmp_bytes,
            inodes);
  if (mkdir ("tmp", 01777) != 0 || mount ("tmpfs", "tmp", "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
    return RUNNER_STEP_ROOT;

  /* A /proc of this pid namespace only: the host's processes are not in
   * it. hidepid=invisible also hides the processes the program may not
   * inspect, pid 1 among them (it holds capabilities the program lacks),
   * should Landlock, which narrows /proc further, be missing. */
  if (mkdir ("proc", 0555) != 0
      || mount ("proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible") != 0)
    return RUNNER_STEP_ROOT;

  /* After /tmp (a workspace under it lands inside the private /tmp), and
   * before the context paths and the environment, which may be bound over
   * parts of it. */
  if (plan->work_at_host_path && bind_work_at_host (plan) != 0)
    return RUNNER_STEP_ROOT;

  /* Directories the client chose to show every run (sandpad-mcp's
   * --context-path), read-only at their own paths; last, so no mount
   * above (/tmp) hides them. The client keeps them off our own names. */
  for (size_t i = 0; plan->read_only_dirs != NULL && plan->read_only_dirs[i] != NULL; i++)
    {
      const char *dst = plan->read_only_dirs[i] + 1;
      RunnerDirId id = plan->read_only_ids ? plan->read_only_ids[i] : (RunnerDirId){ 0 };
      char src[32];
      if (id.ino == 0)
        {
          /* The runner's own (an install step's): by name. */
          if (make_parents (dst) != 0 || bind (plan->read_only_dirs[i], dst, false, false) != 0)
            return RUNNER_STEP_ROOT;
          continue;
        }
      /* A context path: bound through an fd found to be the directory the
       * runner checked, so a swap of its name cannot bind another. */
      cleanup_fd int fd = runner_sandbox_open_checked (plan->read_only_dirs[i], id);
      if (fd < 0)
        return RUNNER_STEP_ROOT;
      snprintf (src, sizeof src, "/proc/self/fd/%d", fd);
      if (make_parents (dst) != 0 || bind (src, dst, false, false) != 0)
        return RUNNER_STEP_ROOT;
    }
  if (plan->env_dir != NULL && bind_environment (plan) != 0)
    return RUNNER_STEP_ROOT;

  if (mkdir (".oldroot", 0700) != 0 || syscall (SYS_pivot_root, ".", ".oldroot") != 0
      || chdir ("/") != 0 || umount2 ("/.oldroot", MNT_DETACH) != 0 || rmdir ("/.oldroot") != 0)
    return RUNNER_STEP_ROOT;
  if (mount (NULL, "/", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
    return RUNNER_STEP_ROOT;

  /* The host's name is a fingerprint; the sandbox has its own. */
  if (sethostname ("sandpad", 7) != 0)
    return RUNNER_STEP_ROOT;
  return 0;
}
