/* runner-host.c: the helpers over what the engine lends its runs and
 * sessions (runner-host.h), and its callbacks. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner-host.h"
#include "runner-font-cache.h"
#include "runner-nproc.h"
#include "runner-sockets.h"
#include "runner-base.h"

void
_runner_host_run_finished (RunnerHost *host, RunnerRun *run)
{
  host->ops->run_finished (host->ops_data, run);
}

void
_runner_host_start_queued (RunnerHost *host)
{
  host->ops->start_queued (host->ops_data);
}

void
_runner_host_leave_init (RunnerHost *host, pid_t pid, RunnerRunCgroup *cgroup)
{
  host->ops->leave_init (host->ops_data, pid, cgroup);
}

RunnerRun *
_runner_host_runs (RunnerHost *host)
{
  return host->ops->runs (host->ops_data);
}

void
_runner_host_font_key (RunnerHost *host, const RunnerLanguage *python, char key[65])
{
  host->ops->font_key (host->ops_data, python, key);
}

void
_runner_host_font_build (RunnerHost *host, const char *key)
{
  host->ops->font_build (host->ops_data, key);
}

int64_t
_runner_host_clock_ms (RunnerHost *host)
{
  return (now_ns () - host->t0_ns) / 1000000;
}

int64_t
_runner_host_clock_origin_realtime_ns (RunnerHost *host)
{
  struct timespec ts, tick = { 0 };

  /* Read now rather than kept from startup, so a wall clock that was set
   * since then is followed: file times are on the wall clock. The kernel
   * stamps files from its coarse clock, up to a tick behind the write, and
   * output is timed when read, a little after it was written: an origin a
   * tick earlier puts a file written just after a line after that line. */
  clock_gettime (CLOCK_REALTIME, &ts);
  clock_getres (CLOCK_REALTIME_COARSE, &tick);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec - (now_ns () - host->t0_ns)
         - ((int64_t) tick.tv_sec * 1000000000 + tick.tv_nsec);
}

void
_runner_host_emit (RunnerHost *host, const SpMessage *msg)
{
  const char *id = sp_message_run_id (msg);

  /* The font list's build run is the engine's own: no client asked. */
  if (id != NULL && strcmp (id, RUNNER_FONT_BUILD_ID) == 0)
    return;
  host->sink.event (host->sink_data, msg);
}

const RunnerSeccompFilter *
_runner_host_seccomp (RunnerHost *host, bool network)
{
  RunnerSeccompFilter *filter = &host->seccomp[network];

  /* Compiled on first use, once per network setting: half a millisecond
   * that a one-shot sandpad-run with network off need not pay twice. */
  if (!runner_seccomp_compiled (filter) && host->caps.seccomp)
    {
      RunnerSeccompPolicy policy = { .fallback = !host->namespaces, .network = network };
      if (runner_seccomp_compile (&policy, filter) != 0)
        host->caps.seccomp = false;
    }
  return runner_seccomp_compiled (filter) ? filter : NULL;
}

unsigned
_runner_host_waived (RunnerHost *host, bool network)
{
  unsigned waived = 0;

  /* Only a host that lacks a layer waives it, and only outside strict
   * mode (the engine refuses every run then): named here, reported in
   * ready and started, and checked by the sandbox against the plan. */
  if (host->caps.landlock_abi <= 0)
    waived |= RUNNER_LAYER_LANDLOCK;
  if (_runner_host_seccomp (host, network) == NULL)
    waived |= RUNNER_LAYER_SECCOMP;
  return waived;
}

/* Whether pid's network namespace is the runner's own. */
static bool
same_netns (pid_t pid)
{
  char path[64];
  struct stat ours, theirs;

  snprintf (path, sizeof path, "/proc/%d/ns/net", (int) pid);
  return stat (path, &theirs) == 0 && stat ("/proc/self/ns/net", &ours) == 0
         && theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino;
}

/* A pidfd of the supervisor: pidfd itself, or one opened now from pid
 * into *own (the runner's unreaped child: its number is still it). */
static int
supervisor_pidfd (pid_t pid, int pidfd, int *own)
{
  if (pidfd >= 0)
    return pidfd;
  *own = pid > 0 ? (int) syscall (SYS_pidfd_open, pid, 0) : -1;
  return *own;
}

bool
_runner_host_supervisor_exited (pid_t pid, int pidfd)
{
  cleanup_fd int own = -1;
  int fd = supervisor_pidfd (pid, pidfd, &own);

  /* No pidfd for it: it was reaped (ESRCH), or cannot be told. */
  if (fd < 0)
    return errno == ESRCH;
  return runner_sockets_pidfd_exited (fd);
}

RunnerDiag
_runner_host_diag (RunnerHost *host, bool network, pid_t pid, int pidfd, int *fd)
{
  if (*fd >= 0)
    return RUNNER_DIAG_OPEN;
  /* With network on, a namespace run shares the runner's network
   * namespace, as a fallback run always does. */
  if (!host->namespaces || network)
    {
      *fd = runner_sockets_open_diag (0, -1);
      return *fd >= 0 ? RUNNER_DIAG_OPEN : RUNNER_DIAG_FAILED;
    }
  if (pid <= 0)
    return RUNNER_DIAG_FAILED;
  cleanup_fd int own = -1;
  int supervisor = supervisor_pidfd (pid, pidfd, &own);
  if (supervisor < 0)
    return errno == ESRCH ? RUNNER_DIAG_GONE : RUNNER_DIAG_FAILED;
  if (same_netns (pid))
    return RUNNER_DIAG_NOT_YET;
  *fd = runner_sockets_open_diag (pid, supervisor);
  if (*fd >= 0)
    return RUNNER_DIAG_OPEN;
  return errno == ESRCH ? RUNNER_DIAG_GONE : RUNNER_DIAG_FAILED;
}

RunnerMemoryLayer
_runner_host_memory_layer (const RunnerRunCgroup *cgroup, bool diag)
{
  int version = runner_cgroup_memory_version (cgroup);

  if (version != 0)
    return version == 2 ? RUNNER_MEMORY_CGROUP_V2 : RUNNER_MEMORY_CGROUP_V1;
  return diag ? RUNNER_MEMORY_SOCKETS : RUNNER_MEMORY_TREE;
}

void
_runner_host_sandbox_info (RunnerHost *host, bool network, RunnerMemoryLayer memory,
                           SpSandboxInfo *info)
{
  char *layers[16];
  size_t n = 0;

  unsigned waived = _runner_host_waived (host, network);

  info->mode = xstrdup (host->namespaces ? "namespaces" : "fallback");
  if (host->namespaces)
    {
      layers[n++] = xstrdup (network ? "namespaces:user,pid,mount,ipc,uts,cgroup"
                                     : "namespaces:user,pid,mount,net,ipc,uts,cgroup");
      layers[n++] = xstrdup ("private-root");
      layers[n++] = xasprintf ("uid:%d", RUNNER_SANDBOX_INNER_ID);
    }
  else
    {
      layers[n++] = xstrdup ("subreaper");
      layers[n++] = xasprintf ("uid:%d",
                               geteuid () == 0 ? RUNNER_SANDBOX_NOBODY : (int) geteuid ());
    }
  layers[n++] = xstrdup ("rlimits");
  /* RLIMIT_DATA per process, and the runner's sum over the whole tree. */
  /* With a cgroup, also what the kernel holds for the run (socket and
   * pipe queues, page tables), which the other two cannot see; without
   * one, the tree watch counts the run's UNIX socket queues and what its
   * pipes can hold itself. */
  layers[n++] = xstrdup (
    memory == RUNNER_MEMORY_CGROUP_V2   ? "memory:rlimit-data,tree-watch,cgroup-v2"
    : memory == RUNNER_MEMORY_CGROUP_V1 ? "memory:rlimit-data,tree-watch,cgroup-v1"
    : memory == RUNNER_MEMORY_SOCKETS   ? "memory:rlimit-data,tree-watch,socket-queues,pipe-queues"
                                        : "memory:rlimit-data,tree-watch");
  layers[n++] = xstrdup ("clean-env");
  layers[n++] = xstrdup ("caps-dropped");
  layers[n++] = xstrdup ("no-new-privs");
  if (!(waived & RUNNER_LAYER_LANDLOCK))
    layers[n++] = xasprintf ("landlock:%d", host->caps.landlock_abi);
  if (!(waived & RUNNER_LAYER_SECCOMP))
    layers[n++] = xstrdup ("seccomp");
  layers[n++] = xstrdup (network ? "network:on" : "network:off");
  layers[n] = NULL;
  info->layers = xcalloc (n + 1, sizeof *info->layers);
  memcpy (info->layers, layers, (n + 1) * sizeof *layers);

  size_t w = 0;
  info->waived = xcalloc (3, sizeof *info->waived);
  if (waived & RUNNER_LAYER_LANDLOCK)
    info->waived[w++] = xstrdup ("landlock: this kernel has no Landlock");
  if (waived & RUNNER_LAYER_SECCOMP)
    info->waived[w++] = xstrdup ("seccomp: no seccomp filter can be loaded here");
}

/* The uid the program runs as: nobody under a root runner, else ours. */
uid_t
_runner_host_run_uid (void)
{
  return geteuid () == 0 ? RUNNER_SANDBOX_NOBODY : geteuid ();
}

int
_runner_host_check_cwd (RunnerHost *host, const char *cwd, char **canonical, int *dir_fd,
                        SpProtoError *err)
{
  return runner_policy_check_cwd (&host->config.paths, host->root, cwd, _runner_host_run_uid (),
                                  canonical, dir_fd, err);
}

int64_t
_runner_host_run_uid_tasks (void)
{
  int pipefd[2];
  int64_t count = -1;

  if (pipe2 (pipefd, O_CLOEXEC) != 0)
    return -1;
  pid_t child = fork ();
  if (child == 0)
    {
      uid_t uid = _runner_host_run_uid ();
      /* As that uid, since the kernel counts per uid; and no longer root
       * (a change of every uid clears the capabilities), since a task
       * that may pass the check cannot measure it. */
      if (geteuid () == uid
          || (setgroups (0, NULL) == 0 && setresgid (uid, uid, uid) == 0
              && setresuid (uid, uid, uid) == 0))
        count = runner_nproc_count ();
      _exit (write_all (pipefd[1], &count, sizeof count) == 0 ? 0 : 1);
    }
  close (pipefd[1]);
  if (child < 0 || read (pipefd[0], &count, sizeof count) != (ssize_t) sizeof count)
    count = -1;
  close (pipefd[0]);
  if (child > 0)
    while (waitpid (child, NULL, 0) < 0 && errno == EINTR)
      ;
  return count;
}

int
_runner_give_to_run (const char *path)
{
  if (geteuid () != 0)
    return 0;
  return chown (path, RUNNER_SANDBOX_NOBODY, RUNNER_SANDBOX_NOBODY);
}

/* Cgroups of a run's own (or a session's) where the runner can have
 * them, with the plan's limits (runner-plan-build.c). */
int
_runner_host_cgroup_create (RunnerHost *host, const char *name, const RunnerSandboxPlan *plan,
                            RunnerRunCgroup *cgroup, int fds[RUNNER_CGROUP_MAX_FDS])
{
  /* The app may have moved this runner into a delegated v2 scope since
   * it started. */
  runner_cgroup_refresh (&host->cgroups);
  return runner_cgroup_create (&host->cgroups, name, plan->limits.cgroup_memory_bytes,
                               plan->limits.cgroup_tasks, cgroup, fds);
}
