/* runner-sandbox.c: probing, namespaces, and the program's last steps. */
#include "runner-sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "runner-landlock.h"
#include "runner-seccomp.h"
#include "runner-util.h"

/* The pieces of /etc interpreters need: the dynamic linker's cache, time
 * zone, certificates, fonts, Debian's python and matplotlib settings; and
 * the system's font cache, without which every plot rebuilds it (~1 s).
 * Not passwd, group, hostname or machine-id: those describe the host. */
const char *const runner_sandbox_etc[] = {
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/localtime",
  "/etc/timezone",
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/fonts",
  "/etc/matplotlibrc",
  /* Debian's per-version python settings (sitecustomize): 3.11 is Debian
   * 12's, 3.13 Debian 13's; the ones a host lacks are skipped. */
  "/etc/python3",
  "/etc/python3.11",
  "/etc/python3.12",
  "/etc/python3.13",
  "/etc/python3.14",
  "/etc/alternatives",
  /* R's Renviron and ldpaths (/usr/lib/R/etc links there), the JDK's
   * conf/ (security and logging properties): 17 is Debian 12's, 21
   * Debian 13's. */
  "/etc/R",
  "/etc/java-17-openjdk",
  "/etc/java-21-openjdk",
  "/etc/java-25-openjdk",
  "/etc/nsswitch.conf",
  "/etc/mime.types",
  "/etc/gai.conf",
  "/etc/host.conf",
  "/etc/protocols",
  "/etc/services",
  "/var/cache/fontconfig",
  NULL,
};

/* What of /proc a program may read: its own process's entries and the
 * system-wide files runtimes size themselves by. Not the directory itself
 * (listing it is the host's process list in fallback mode), no other
 * process (their command lines carry secrets: a root process's --token=
 * was read), and none of its own entries that describe the host:
 * mountinfo and mounts (host paths), net (the host's sockets), uid_map
 * (who runs the runner), cgroup, ns, root and cwd. Nor /proc/cmdline or
 * /proc/sys/kernel/random/boot_id. A process the program starts gets the
 * global files but not its own entries: Landlock rules name inodes, and a
 * child's /proc/<pid> does not exist yet when the rules are made. */
static const char *const proc_readable[] = {
  "/proc/self/stat",
  "/proc/self/statm",
  "/proc/self/status",
  "/proc/self/maps",
  "/proc/self/smaps",
  "/proc/self/smaps_rollup",
  "/proc/self/limits",
  "/proc/self/cmdline",
  "/proc/self/comm",
  "/proc/self/environ",
  "/proc/self/auxv",
  "/proc/self/io",
  "/proc/self/fd",
  "/proc/self/fdinfo",
  "/proc/self/task",
  "/proc/self/oom_score",
  "/proc/self/oom_score_adj",
  "/proc/self/sched",
  "/proc/self/schedstat",
  "/proc/cpuinfo",
  "/proc/meminfo",
  "/proc/stat",
  "/proc/loadavg",
  "/proc/uptime",
  "/proc/filesystems",
  "/proc/sys/vm/overcommit_memory",
  NULL,
};

#define NS_FLAGS                                                                                   \
  (CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

int
runner_sandbox_mode_parse (const char *name, RunnerSandboxMode *mode)
{
  if (strcmp (name, "auto") == 0)
    *mode = RUNNER_SANDBOX_AUTO;
  else if (strcmp (name, "namespaces") == 0)
    *mode = RUNNER_SANDBOX_NAMESPACES;
  else if (strcmp (name, "fallback") == 0)
    *mode = RUNNER_SANDBOX_FALLBACK;
  else
    return -1;
  return 0;
}

const char *
runner_sandbox_step_name (int step)
{
  switch (step)
    {
    case RUNNER_STEP_UID:
      return "dropping root";
    case RUNNER_STEP_USERNS:
      return "user namespace";
    case RUNNER_STEP_NAMESPACES:
      return "namespaces";
    case RUNNER_STEP_ROOT:
      return "private root";
    case RUNNER_STEP_CAPS:
      return "dropping capabilities";
    case RUNNER_STEP_NO_NEW_PRIVS:
      return "no_new_privs";
    case RUNNER_STEP_LANDLOCK:
      return "Landlock";
    case RUNNER_STEP_SECCOMP:
      return "seccomp";
    case RUNNER_STEP_PLAN:
      return "sandbox plan";
    default:
      return NULL;
    }
}

int
runner_sandbox_plan_check (const RunnerSandboxPlan *plan, const char **why)
{
  const char *wrong = NULL;

  if (plan == NULL)
    wrong = "no sandbox plan";
  else if ((plan->waived & ~RUNNER_LAYER_ALL) != 0)
    wrong = "the plan waives a layer that has no name";
  else if (plan->landlock_abi <= 0 && !(plan->waived & RUNNER_LAYER_LANDLOCK))
    wrong = "the plan has no Landlock and does not waive it";
  else if (plan->landlock_abi > 0 && (plan->waived & RUNNER_LAYER_LANDLOCK))
    wrong = "the plan both has and waives Landlock";
  else if (plan->seccomp == NULL && !(plan->waived & RUNNER_LAYER_SECCOMP))
    wrong = "the plan has no seccomp filter and does not waive it";
  else if (plan->seccomp != NULL && (plan->waived & RUNNER_LAYER_SECCOMP))
    wrong = "the plan both has and waives seccomp";
  else if (plan->root_dir == NULL || plan->work_dir == NULL || plan->code_dir == NULL
           || plan->tmp_dir == NULL)
    wrong = "the plan leaves out a directory the run is made of";
  else if (plan->max_processes <= 0)
    wrong = "the plan has no process cap";
  else if (plan->namespaces && plan->tmp_bytes <= 0)
    wrong = "the plan has no size for the private /tmp";
  /* A limit at zero would be left unset (set_limit): refused instead.
   * Only the CPU backstop may be none: a session's interpreter lives
   * across runs, each held to its time limit by the runner's timer. */
  else if (plan->limits.memory_bytes <= 0 || plan->limits.file_size_bytes <= 0
           || plan->limits.open_files <= 0)
    wrong = "the plan has no memory, file size or open files limit";
  else if (plan->limits.cpu_seconds < 0)
    wrong = "the plan's CPU limit is negative";
  if (why != NULL)
    *why = wrong;
  if (wrong == NULL)
    return 0;
  errno = EINVAL;
  return -1;
}

/* Root gives up root before anything else: no program ever runs as root,
 * and an unprivileged uid is what the user namespace maps. */
static int
drop_to_nobody (void)
{
  if (setgroups (0, NULL) != 0
      || setresgid (RUNNER_SANDBOX_NOBODY, RUNNER_SANDBOX_NOBODY, RUNNER_SANDBOX_NOBODY) != 0
      || setresuid (RUNNER_SANDBOX_NOBODY, RUNNER_SANDBOX_NOBODY, RUNNER_SANDBOX_NOBODY) != 0)
    return -1;
  /* Changing uid made us non-dumpable, which hands /proc/self (uid_map
   * included) to root. We hold nothing worth protecting from nobody. */
  return prctl (PR_SET_DUMPABLE, 1, 0, 0, 0);
}

int
runner_sandbox_leave_root (const RunnerSandboxPlan *plan)
{
  return plan->drop_to_nobody && drop_to_nobody () != 0 ? RUNNER_STEP_UID : 0;
}

int
runner_sandbox_map_ids (int proc_dir, uid_t uid, gid_t gid)
{
  char map[64];

  /* One id each, ours, seen inside as 1000: the program is not root in
   * its namespace either, so execve leaves it without capabilities. */
  if (write_file_at (proc_dir, "setgroups", "deny") != 0)
    return -1;
  snprintf (map, sizeof map, "%d %d 1\n", RUNNER_SANDBOX_INNER_ID, (int) uid);
  if (write_file_at (proc_dir, "uid_map", map) != 0)
    return -1;
  snprintf (map, sizeof map, "%d %d 1\n", RUNNER_SANDBOX_INNER_ID, (int) gid);
  return write_file_at (proc_dir, "gid_map", map);
}

int
runner_sandbox_ns_flags (const RunnerSandboxPlan *plan)
{
  /* A network namespace with only a loopback that stays down: no network
   * at all unless the run asked for it. */
  int flags = NS_FLAGS;
  if (plan->network)
    flags &= ~CLONE_NEWNET;
  return flags;
}

int
runner_sandbox_enter_namespaces (const RunnerSandboxPlan *plan)
{
  int step = runner_sandbox_leave_root (plan);
  uid_t uid;
  gid_t gid;

  if (step != 0)
    return step;
  uid = geteuid ();
  gid = getegid ();
  if (unshare (CLONE_NEWUSER) != 0)
    return RUNNER_STEP_USERNS;
  cleanup_fd int self = open ("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (self < 0 || runner_sandbox_map_ids (self, uid, gid) != 0)
    return RUNNER_STEP_USERNS;
  if (unshare (runner_sandbox_ns_flags (plan)) != 0)
    return RUNNER_STEP_NAMESPACES;
  return 0;
}

/* The bounding set, so nothing can be regained by exec. This needs
 * CAP_SETPCAP: we have it as root or inside our user namespace; an
 * unprivileged runner in fallback mode has no capabilities to lose. */
static int
drop_bounding_set (bool must)
{
  for (int cap = 0; cap <= CAP_LAST_CAP; cap++)
    if (prctl (PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL && must)
      return -1;
  return 0;
}

static int
drop_capabilities (void)
{
  struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
  struct __user_cap_data_struct data[2] = { { 0 } };

  prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  return (int) syscall (SYS_capset, &header, data);
}

int
runner_sandbox_open_checked (const char *path, RunnerDirId id)
{
  struct stat st;
  int fd = open_no_symlinks (path, O_PATH | O_DIRECTORY);

  if (fd < 0 || id.ino == 0)
    return fd;
  if (fstat (fd, &st) != 0 || st.st_dev != id.dev || st.st_ino != id.ino)
    {
      close (fd);
      errno = ESTALE;
      return -1;
    }
  return fd;
}

int
runner_sandbox_open_work (const RunnerSandboxPlan *plan)
{
  return runner_sandbox_open_checked (plan->work_dir,
                                      (RunnerDirId){ plan->work_dev, plan->work_ino });
}

/* For Landlock, a checked directory by its fd's /proc link (which Landlock
 * opens to the very inode): into link, with the fd in *fd (closed by the
 * caller). A checked one that is not what was checked fails (ESTALE); an
 * unchecked one is passed by name. */
static const char *
checked_for_landlock (const char *path, RunnerDirId id, int *fd, char link[32])
{
  if (id.ino == 0)
    return path;
  *fd = runner_sandbox_open_checked (path, id);
  if (*fd < 0)
    return NULL;
  snprintf (link, 32, "/proc/self/fd/%d", *fd);
  return link;
}

/* Fallback mode's working directory, for its Landlock rule: the one
 * exec_program entered through runner_sandbox_open_work, checked once
 * more, so the rule lands on that directory and not on whatever the name
 * means now; where the program starts beneath it (a workspace given
 * whole), the directory itself through a checked fd. */
static const char *
work_for_landlock (const RunnerSandboxPlan *plan, int *fd, char link[32])
{
  struct stat st;

  if (plan->work_ino == 0)
    return plan->work_dir;
  if (stat (".", &st) == 0 && st.st_dev == plan->work_dev && st.st_ino == plan->work_ino)
    return ".";
  return checked_for_landlock (plan->work_dir, (RunnerDirId){ plan->work_dev, plan->work_ino }, fd,
                               link);
}

int
runner_sandbox_restrict (const RunnerSandboxPlan *plan)
{
  /* Again here, in the program: the warm path's plan was decoded in a
   * spare, not checked by runner_spawn. */
  if (runner_sandbox_plan_check (plan, NULL) != 0)
    return RUNNER_STEP_PLAN;
  /* Lower priority and first in line for the OOM killer: a runaway snippet
   * should hurt the desktop as little as possible. */
  setpriority (PRIO_PROCESS, 0, 10);
  write_file_at (AT_FDCWD, "/proc/self/oom_score_adj", "500");

  if (drop_bounding_set (plan->namespaces || plan->drop_to_nobody) != 0)
    return RUNNER_STEP_CAPS;
  if (!plan->namespaces && plan->drop_to_nobody && drop_to_nobody () != 0)
    return RUNNER_STEP_UID;
  if (drop_capabilities () != 0)
    return RUNNER_STEP_CAPS;
  /* Before Landlock and seccomp: both require it, and it makes setuid
   * binaries harmless. */
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return RUNNER_STEP_NO_NEW_PRIVS;

  if (plan->landlock_abi > 0)
    {
      static const char *const devices[] = { "/dev/null",   "/dev/zero",    "/dev/full",
                                             "/dev/random", "/dev/urandom", NULL };
      static const char *const system[] = { "/usr",   "/bin",   "/sbin",   "/lib",
                                            "/lib64", "/lib32", "/libx32", NULL };
      static const char *const synthesized[] = { "/etc/passwd", "/etc/group", "/etc/hostname",
                                                 "/etc/hosts", NULL };
      /* In namespace mode these are the private root's paths, where
       * /etc/passwd and friends are synthesized; in fallback mode the
       * host's, whose passwd, group and hostname are left out. */
      size_t n_extra = 0;
      while (plan->read_only_dirs != NULL && plan->read_only_dirs[n_extra] != NULL)
        n_extra++;
      const char *read_only[N_ELEMENTS (runner_sandbox_etc) + N_ELEMENTS (synthesized)
                            + N_ELEMENTS (proc_readable) + 6 + n_extra];
      const char *read_write[5] = { NULL };
      size_t n = 0;
      /* The checked directories' fds, for their /proc links: the context
       * paths and the environment get rules on what the runner checked,
       * not on whatever their names mean now. */
      int held[n_extra + 1];
      char links[n_extra + 1][32];
      cleanup_fd int work_fd = -1;
      char work_link[32];
      int step = 0;
      for (size_t i = 0; i <= n_extra; i++)
        held[i] = -1;

      for (size_t i = 0; proc_readable[i] != NULL; i++)
        read_only[n++] = proc_readable[i];
      read_only[n++] = "/sys/devices/system/cpu";
      read_only[n++] = plan->namespaces ? RUNNER_SANDBOX_CODE : plan->code_dir;
      for (size_t i = 0; runner_sandbox_etc[i] != NULL; i++)
        read_only[n++] = runner_sandbox_etc[i];
      for (size_t i = 0; plan->namespaces && synthesized[i] != NULL; i++)
        read_only[n++] = synthesized[i];
      /* A run with the network resolves names: its name servers (bound in
       * namespace mode only then) and, in fallback mode, the host's hosts
       * file, which has localhost (namespace mode writes its own). */
      if (plan->network)
        read_only[n++] = RUNNER_SANDBOX_RESOLV_CONF;
      if (plan->network && !plan->namespaces)
        read_only[n++] = "/etc/hosts";
      /* The same path in both modes: namespace mode binds them there. */
      for (size_t i = 0; i < n_extra && step == 0; i++)
        {
          RunnerDirId id = plan->read_only_ids ? plan->read_only_ids[i] : (RunnerDirId){ 0 };
          const char *path = checked_for_landlock (plan->read_only_dirs[i], id, &held[i], links[i]);
          if (path == NULL && errno == ENOENT && id.ino == 0)
            continue; /* absent on this host: nothing to allow */
          if (path == NULL)
            step = RUNNER_STEP_LANDLOCK;
          else
            read_only[n++] = path;
        }
      const char *env = NULL;
      if (plan->env_dir != NULL && step == 0)
        {
          env = checked_for_landlock (plan->env_dir, plan->env_id, &held[n_extra], links[n_extra]);
          if (env == NULL)
            step = RUNNER_STEP_LANDLOCK;
        }
      /* The environment, at its own path in both modes. Landlock only adds
       * rights, so one inside the writable working directory cannot be
       * made read-only here: the engine refuses that in fallback mode, and
       * namespace mode binds it read-only over its place in /work. */
      read_only[n] = NULL;
      /* A read-only environment holds programs to run: a venv's scripts,
       * a compiled language's build (issue 27). Read and execute there,
       * never write. */
      const char *read_exec[N_ELEMENTS (system) + 1];
      size_t n_exec = 0;
      for (size_t i = 0; system[i] != NULL; i++)
        read_exec[n_exec++] = system[i];
      if (env != NULL && !plan->env_writable)
        read_exec[n_exec++] = env;
      read_exec[n_exec] = NULL;
      if (plan->namespaces)
        {
          read_write[0] = RUNNER_SANDBOX_WORK;
          read_write[1] = "/tmp";
          read_write[2] = "/dev/shm";
        }
      else
        {
          read_write[0] = work_for_landlock (plan, &work_fd, work_link);
          if (read_write[0] == NULL)
            return errno = ESTALE, RUNNER_STEP_LANDLOCK;
          read_write[1] = plan->tmp_dir;
        }
      if (env != NULL && plan->env_writable)
        read_write[plan->namespaces ? 3 : 2] = env;

      RunnerLandlockRules rules = {
        .read_exec = read_exec,
        .read_only = read_only,
        .read_write = read_write,
        .devices = devices,
        .network = plan->network,
      };
      if (step == 0 && runner_landlock_apply (plan->landlock_abi, &rules) != 0)
        step = RUNNER_STEP_LANDLOCK;
      int errsv = errno;
      for (size_t i = 0; i <= n_extra; i++)
        if (held[i] >= 0)
          close (held[i]);
      errno = errsv;
      if (step != 0)
        return step;
    }
  return 0;
}

int
runner_sandbox_writable_dirs (const RunnerSandboxPlan *plan, int fds[RUNNER_SANDBOX_MAX_WRITABLE])
{
  int n = 0, failed = 0;

  /* What runner_sandbox_restrict() gives Landlock's read_write list in
   * fallback mode, through the same checks: the working directory, the
   * run's tmp, a writable environment. */
  fds[n++] = runner_sandbox_open_work (plan);
  failed = fds[n - 1] < 0 ? errno : 0;
  fds[n++] = open_no_symlinks (plan->tmp_dir, O_PATH | O_DIRECTORY);
  failed = failed == 0 && fds[n - 1] < 0 ? errno : failed;
  if (plan->env_dir != NULL && plan->env_writable)
    {
      fds[n++] = runner_sandbox_open_checked (plan->env_dir, plan->env_id);
      failed = failed == 0 && fds[n - 1] < 0 ? errno : failed;
    }
  if (failed == 0)
    return n;
  for (int i = 0; i < n; i++)
    if (fds[i] >= 0)
      close (fds[i]);
  errno = failed;
  return -1;
}

int
runner_sandbox_seccomp (const RunnerSandboxPlan *plan, int *listener)
{
  *listener = -1;
  if (plan->seccomp == NULL && !(plan->waived & RUNNER_LAYER_SECCOMP))
    return errno = EINVAL, RUNNER_STEP_PLAN;
  if (plan->seccomp != NULL && runner_seccomp_load (plan->seccomp, listener) != 0)
    return RUNNER_STEP_SECCOMP;
  return 0;
}

/* Tries, in a throwaway child, each step namespace mode takes before the
 * program: leaving root (if we are root), a user namespace with our ids
 * mapped, the other namespaces, a tmpfs and a pivot into it. A user
 * namespace alone proves little: Ubuntu's AppArmor restriction
 * (apparmor_restrict_unprivileged_userns) lets unshare(CLONE_NEWUSER)
 * succeed and then refuses the mounts, and every run would fail; auto
 * mode must pick fallback there. Only the network namespace is left out,
 * as it costs about 1 ms and nothing refuses it alone. */
static bool
probe_namespaces (void)
{
  pid_t pid = fork ();
  int status;

  if (pid == 0)
    {
      RunnerSandboxPlan plan = { .drop_to_nobody = geteuid () == 0, .network = true };

      if (runner_sandbox_enter_namespaces (&plan) != 0
          || mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0
          || mount ("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") != 0
          || chdir ("/tmp") != 0 || mkdir (".oldroot", 0700) != 0
          || syscall (SYS_pivot_root, ".", ".oldroot") != 0)
        _exit (1);
      _exit (0);
    }
  if (pid < 0 || waitpid (pid, &status, 0) != pid)
    return false;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

void
runner_sandbox_probe (RunnerSandboxCaps *caps)
{
  caps->userns = probe_namespaces ();
  caps->landlock_abi = runner_landlock_abi ();
  caps->seccomp = prctl (PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}
