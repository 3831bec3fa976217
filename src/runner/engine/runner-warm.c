/* runner-warm.c: the warm pool (see runner-warm.h). */
#include "runner-warm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>

#include "runner-cgroup.h"
#include "runner-spawn.h"
#include "runner-base.h"
#include "runner-prelude.h"
#include "runner-sandbox.h"

/* runner-warm-driver.c, generated from runner-warm-driver.py. */
extern const char runner_warm_driver[];

/* How long a parent may take to fork a run before it counts as broken. */
#define SPAWN_TIMEOUT_MS 2000
/* After a parent died or misbehaved, runs of its policy stay cold this long. */
#define RESTART_BACKOFF_NS (5 * INT64_C (1000000000))
/* How often the parents' memory is read from /proc. */
#define MEMORY_POLL_NS (2 * INT64_C (1000000000))
/* How long the seats a retired parent's spares left are looked for. */
#define SWEEP_NS (60 * INT64_C (1000000000))

typedef enum
{
  PARENT_NONE,
  PARENT_STARTING, /* importing; runs go cold until it says ready */
  PARENT_READY,
} ParentState;

typedef struct
{
  ParentState state;
  pid_t pid;
  int sock;
  int runs;
  int64_t data_bytes; /* VmData when it became ready */
  /* Spare runs it has made and started, as it last said ("spares N"),
   * less those handed since: a run goes warm only when there is one, so
   * it never waits for one being made. It makes the next as soon as one
   * is taken, up to want. */
  int spares;
  int want;
  int64_t last_used_ns;
  int64_t started_ns; /* when it was started: it has start_ms to say ready */
  int64_t retry_ns;   /* no restart before this */
  char *dir;
  /* The runs' cgroups it was started with (version 0: none): each spare
   * gets a seat there, "seat-PID-N", which a run that takes the spare
   * keeps; taken[] are those N. */
  RunnerCgroups cgroups;
  pid_t seat_pid; /* its pid, which names its seats */
  uint64_t *taken;
  size_t n_taken;
} Parent;

/* The seats a retired parent may have left (its spares' that no run
 * took), removed once their processes are gone. */
typedef struct
{
  RunnerCgroups cgroups;
  char *prefix; /* "seat-PID-" */
  uint64_t *taken;
  size_t n_taken;
  int64_t until_ns;
} Sweep;

struct RunnerWarm
{
  RunnerWarmConfig config;
  Parent parents[RUNNER_WARM_MAX_PARENTS]; /* indexed by the network setting */
  uint64_t generation;
  int64_t memory_check_ns;
  /* Why warm runs cannot work here, once a parent said so: no parent is
   * started again and every run goes cold, for this pool's lifetime. */
  char *broken;
  Sweep *sweeps;
  size_t n_sweeps;
};

RunnerWarm *
runner_warm_new (const RunnerWarmConfig *config)
{
  RunnerWarm *warm = xcalloc (1, sizeof *warm);

  warm->config = *config;
  warm->config.python = xstrdup (config->python);
  warm->config.module = xstrdup (config->module);
  warm->config.helper = xstrdup (config->helper);
  warm->config.root = xstrdup (config->root);
  for (size_t i = 0; i < N_ELEMENTS (warm->parents); i++)
    warm->parents[i].sock = -1;
  return warm;
}

/* Removes what is left of a sweep's seats; true once none is. */
static bool
sweep_seats (Sweep *sw)
{
  int fds[2];
  runner_cgroup_open_parents (&sw->cgroups, true, fds);
  cleanup_fd int memory = fds[0];
  cleanup_fd int pids = fds[1];
  size_t prefix = strlen (sw->prefix);
  bool done = true;

  if (memory < 0)
    return true;
  DIR *dir = fdopendir (dup (memory));
  struct dirent *e;
  while (dir != NULL && (e = readdir (dir)) != NULL)
    {
      char *end;
      if (strncmp (e->d_name, sw->prefix, prefix) != 0)
        continue;
      uint64_t n = strtoull (e->d_name + prefix, &end, 10);
      bool taken = *end != '\0';
      for (size_t i = 0; i < sw->n_taken && !taken; i++)
        taken = sw->taken[i] == n;
      /* A run's: the run removes it at its end. */
      if (taken)
        continue;
      if (runner_cgroup_seat_drop (runner_cgroup_version (&sw->cgroups), memory, pids, e->d_name)
          != 0)
        done = false;
    }
  if (dir != NULL)
    closedir (dir);
  return done;
}

static void
sweep_free (Sweep *sw)
{
  runner_cgroup_copy_clear (&sw->cgroups);
  free (sw->prefix);
  free (sw->taken);
}

/* Looks at the sweeps under way; the finished and the expired go. */
static void
sweep_all (RunnerWarm *warm, int64_t now)
{
  for (size_t i = 0; i < warm->n_sweeps;)
    {
      Sweep *sw = &warm->sweeps[i];
      if (sweep_seats (sw) || now > sw->until_ns)
        {
          sweep_free (sw);
          warm->sweeps[i] = warm->sweeps[--warm->n_sweeps];
        }
      else
        i++;
    }
}

/* Ends a parent: closing its socket ends its loop; SIGKILL in case it is
 * stuck. The engine reaps it. The runs it forked do not depend on it; the
 * seats of its spares are swept once the spares are gone. */
static void
retire (RunnerWarm *warm, Parent *p, bool failed)
{
  if (p->sock >= 0)
    close (p->sock);
  p->sock = -1;
  if (p->pid > 0)
    kill (p->pid, SIGKILL);
  if (p->dir != NULL)
    remove_tree (p->dir);
  free (p->dir);
  p->dir = NULL;
  if (runner_cgroup_version (&p->cgroups) != 0 && p->seat_pid > 0)
    {
      warm->sweeps = xrealloc (warm->sweeps, (warm->n_sweeps + 1) * sizeof *warm->sweeps);
      warm->sweeps[warm->n_sweeps++] = (Sweep){
        .cgroups = p->cgroups,
        .prefix = xasprintf ("seat-%d-", (int) p->seat_pid),
        .taken = p->taken,
        .n_taken = p->n_taken,
        .until_ns = now_ns () + SWEEP_NS,
      };
      p->cgroups = (RunnerCgroups){ 0 };
      p->taken = NULL;
    }
  runner_cgroup_copy_clear (&p->cgroups);
  free (p->taken);
  p->taken = NULL;
  p->n_taken = 0;
  p->seat_pid = 0;
  p->state = PARENT_NONE;
  p->runs = 0;
  p->data_bytes = 0;
  p->spares = 0;
  if (failed)
    p->retry_ns = now_ns () + RESTART_BACKOFF_NS;
}

void
runner_warm_free (RunnerWarm *warm)
{
  if (warm == NULL)
    return;
  for (size_t i = 0; i < N_ELEMENTS (warm->parents); i++)
    {
      Parent *p = &warm->parents[i];
      pid_t pid = p->pid;
      retire (warm, p, false);
      if (pid > 0)
        waitpid (pid, NULL, 0);
    }
  /* The spares end with their parents (their inits read EOF); their seats
   * can go once they have. */
  for (int tries = 0; warm->n_sweeps > 0 && tries < 50; tries++)
    {
      sweep_all (warm, 0);
      if (warm->n_sweeps > 0)
        nanosleep (&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
    }
  for (size_t i = 0; i < warm->n_sweeps; i++)
    sweep_free (&warm->sweeps[i]);
  free (warm->sweeps);
  free ((char *) warm->config.python);
  free ((char *) warm->config.module);
  free ((char *) warm->config.helper);
  free ((char *) warm->config.root);
  free (warm->broken);
  free (warm);
}

/* A parent said "broken TEXT": a helper cannot be loaded or executed, so
 * no parent would ever serve a run. Every parent ends (a runner that has
 * one per network setting would hear the same from the other). */
static void
set_broken (RunnerWarm *warm, const char *text, size_t len)
{
  if (warm->broken == NULL)
    {
      warm->broken = xasprintf ("%.*s", (int) len, text);
      /* ASCII only: control characters from a path or strerror stay off
       * the log line, and exited's cold_reason is valid UTF-8 as sent. */
      for (char *c = warm->broken; *c != '\0'; c++)
        if ((unsigned char) *c < 0x20 || (unsigned char) *c >= 0x7f)
          *c = '?';
      fprintf (stderr, "sandpad-runner: warm runs are off, runs start cold: %s\n", warm->broken);
    }
  for (size_t i = 0; i < N_ELEMENTS (warm->parents); i++)
    if (warm->parents[i].state != PARENT_NONE)
      retire (warm, &warm->parents[i], false);
}

/* Whether buf (len bytes) is "broken TEXT"; sets the pool broken if so. */
static bool
check_broken (RunnerWarm *warm, const char *buf, size_t len)
{
  static const char prefix[] = "broken ";

  if (len < sizeof prefix - 1 || memcmp (buf, prefix, sizeof prefix - 1) != 0)
    return false;
  set_broken (warm, buf + sizeof prefix - 1, len - (sizeof prefix - 1));
  return true;
}

const char *
runner_warm_broken (RunnerWarm *warm)
{
  return warm != NULL ? warm->broken : NULL;
}

static int
write_file (const char *path, const char *text)
{
  cleanup_fd int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);

  if (fd < 0 || write_all (fd, text, strlen (text)) != 0)
    return -1;
  return 0;
}

/* The child side of starting a parent: fd 3 the socket, 0-2 /dev/null,
 * the environment a run gets, pointed at the parent's own directory. */
static void __attribute__ ((noreturn))
exec_parent (const RunnerWarm *warm, const char *dir, int sock, bool network,
             const RunnerCgroups *cg, int cg_fds[2])
{
  cleanup_free char *driver = xasprintf ("%s/driver.py", dir);
  /* What every run of this parent shares, for the spare it makes before
   * the first run arrives. */
  cleanup_free char *key = xasprintf ("namespaces=%d,network=%d,nobody=%d",
                                      warm->config.namespaces ? 1 : 0, network ? 1 : 0,
                                      geteuid () == 0 ? 1 : 0);
  cleanup_free char *spares = xasprintf ("%d", warm->config.spares > 0 ? warm->config.spares : 1);
  /* The runs' cgroups, fds 4 (memory) and 5 (v1's pids) when it has them. */
  cleanup_free char *cgroups = xasprintf ("%d:%d", cg_fds[0] >= 0 ? runner_cgroup_version (cg) : 0,
                                          cg_fds[0] >= 0 && cg_fds[1] >= 0 ? 1 : 0);
  /* Where a run finds the prelude: one path for every run in namespace
   * mode, which the parent compiles it under once, so a run renames
   * nothing in its code objects; a fallback run's differs by run. */
  const char *prelude = warm->config.namespaces ? RUNNER_SANDBOX_CODE_PRELUDE "/sitecustomize.py"
                                                : "";
  char *argv[] = { (char *) warm->config.python,
                   (char *) "-u",
                   (char *) "-B",
                   driver,
                   (char *) warm->config.module,
                   (char *) warm->config.helper,
                   key,
                   spares,
                   cgroups,
                   (char *) prelude,
                   NULL };
  char *envp[] = {
    (char *) "PATH=/usr/local/bin:/usr/bin:/bin",
    xasprintf ("HOME=%s", dir),
    xasprintf ("TMPDIR=%s/tmp", dir),
    (char *) "LANG=C.UTF-8",
    (char *) "TERM=dumb",
    (char *) "PYTHONUNBUFFERED=1",
    (char *) "PYTHONDONTWRITEBYTECODE=1",
    /* The parent forks a spare for every run, which is only sound while
     * it has one thread (sp_warm_prefork checks): the BLAS and OpenMP
     * pools numpy starts at import would be threads of their own. Warm
     * runs therefore compute with one BLAS thread. */
    (char *) "OPENBLAS_NUM_THREADS=1",
    (char *) "OMP_NUM_THREADS=1",
    (char *) "MKL_NUM_THREADS=1",
    (char *) "PYTHONUTF8=1",
    (char *) "MPLBACKEND=Agg",
    xasprintf ("XDG_CACHE_HOME=%s/tmp/.cache", dir),
    xasprintf ("MPLCONFIGDIR=%s/tmp/.matplotlib", dir),
    (char *) "SANDPAD=1",
    NULL,
  };
  int devnull = open ("/dev/null", O_RDWR);

  /* Above every target first, so no dup clobbers a later one. */
  int high[3] = { fcntl (sock, F_DUPFD_CLOEXEC, 10), -1, -1 };
  for (int i = 0; i < 2; i++)
    if (cg_fds[0] >= 0 && cg_fds[i] >= 0)
      high[1 + i] = fcntl (cg_fds[i], F_DUPFD_CLOEXEC, 10);
  if (devnull < 0 || high[0] < 0 || dup2 (high[0], 3) != 3 || dup2 (devnull, 0) != 0
      || dup2 (devnull, 1) != 1 || dup2 (devnull, 2) != 2)
    _exit (126);
  int last = 3;
  for (int i = 1; i < 3; i++)
    if (high[i] >= 0)
      {
        if (dup2 (high[i], 3 + i) != 3 + i)
          _exit (126);
        last = 3 + i;
      }
  syscall (SYS_close_range, (unsigned) last + 1, ~0U, 0);
  /* Its own session, and gone with the runner. */
  setsid ();
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  if (chdir (dir) != 0)
    _exit (126);
  for (int sig = 1; sig < NSIG; sig++)
    signal (sig, SIG_DFL);
  sigset_t none;
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  execve (argv[0], argv, envp);
  _exit (127);
}

void
runner_warm_start (RunnerWarm *warm, bool network, const RunnerCgroups *cg)
{
  Parent *p = &warm->parents[network ? 1 : 0];
  int sv[2];
  cleanup_fd int memory = -1;
  cleanup_fd int pids = -1;

  if (p->state != PARENT_NONE || now_ns () < p->retry_ns || warm->broken != NULL)
    return;
  p->dir = xasprintf ("%s/warm-%llu", warm->config.root, (unsigned long long) ++warm->generation);
  cleanup_free char *tmp = xasprintf ("%s/tmp", p->dir);
  cleanup_free char *driver = xasprintf ("%s/driver.py", p->dir);
  /* The runs' prelude, for the parent to compile once (run_child). */
  cleanup_free char *prelude = xasprintf ("%s/prelude.py", p->dir);
  if (mkdir (p->dir, 0700) != 0 || mkdir (tmp, 0700) != 0
      || write_file (driver, runner_warm_driver) != 0
      || write_file (prelude, runner_python_prelude) != 0
      || socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    {
      fprintf (stderr, "sandpad-runner: cannot start a warm interpreter: %s\n", strerror (errno));
      retire (warm, p, true);
      return;
    }
  /* Where each spare gets its seat: the runner's groups, as directories
   * the parent makes them in. */
  int parents[2];
  if (runner_cgroup_open_parents (cg, true, parents) == 0)
    {
      memory = parents[0];
      pids = parents[1];
      runner_cgroup_copy (&p->cgroups, cg, pids >= 0);
    }
  p->pid = fork ();
  if (p->pid == 0)
    exec_parent (warm, p->dir, sv[1], network, cg, (int[2]){ memory, pids });
  p->seat_pid = p->pid > 0 ? p->pid : 0;
  close (sv[1]);
  p->sock = sv[0];
  if (p->pid < 0)
    {
      fprintf (stderr, "sandpad-runner: cannot start a warm interpreter: %s\n", strerror (errno));
      p->pid = 0;
      retire (warm, p, true);
      return;
    }
  set_nonblocking (p->sock, true);
  p->state = PARENT_STARTING;
  p->want = warm->config.spares > 0 ? warm->config.spares : 1;
  p->last_used_ns = now_ns ();
  p->started_ns = p->last_used_ns;
  /* Its memory is judged a full interval after it started, not in the
   * middle of its first imports (and, in tests, not before it is seen). */
  if (warm->memory_check_ns < p->last_used_ns + MEMORY_POLL_NS)
    warm->memory_check_ns = p->last_used_ns + MEMORY_POLL_NS;
}

/* "spares N" from a ready parent: how many started spares it holds. */
static bool
take_spares (Parent *p, const char *buf, size_t len)
{
  static const char prefix[] = "spares ";
  char text[32];
  int n;

  if (len < sizeof prefix - 1 || len >= sizeof text || memcmp (buf, prefix, sizeof prefix - 1) != 0)
    return false;
  memcpy (text, buf, len);
  text[len] = '\0';
  if (sscanf (text + sizeof prefix - 1, "%d", &n) == 1 && n >= 0)
    p->spares = n;
  return true;
}

/* What a parent said since we last looked, without waiting: a starting
 * parent "ready VMDATA" once it has imported and its first spare has
 * started, a ready one "spares N" as it makes more; "broken TEXT". */
static void
check_ready (RunnerWarm *warm, Parent *p)
{
  char buf[256];
  long long data = 0;

  while (p->state != PARENT_NONE)
    {
      ssize_t n = recv (p->sock, buf, sizeof buf - 1, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
      if (n <= 0)
        {
          retire (warm, p, true);
          return;
        }
      if (check_broken (warm, buf, (size_t) n))
        return;
      buf[n] = '\0';
      if (p->state == PARENT_READY && take_spares (p, buf, (size_t) n))
        continue;
      if (p->state != PARENT_STARTING || sscanf (buf, "ready %lld", &data) != 1)
        {
          retire (warm, p, true);
          return;
        }
      p->data_bytes = data;
      /* Its first spare is made before it says ready. */
      p->spares = 1;
      p->state = PARENT_READY;
    }
}

int64_t
runner_warm_data_bytes (RunnerWarm *warm, bool network, bool idle)
{
  Parent *p = &warm->parents[network ? 1 : 0];

  check_ready (warm, p);
  if (p->state != PARENT_READY)
    return -1;
  /* A run while every spare is taken by runs under way (a burst) goes
   * cold: the parent would have to fork one on demand, three forks of its
   * whole memory before the run may start, which on two cores made eight
   * runs at once slower warm than cold. With none under way the parent is
   * making the next (it refills as soon as one is taken): the run waits
   * for it (bounded, SPAWN_TIMEOUT_MS), as a run right after another
   * always could. */
  return p->spares > 0 || idle ? p->data_bytes : -1;
}

/* The run's groups from "ok seat-PID-N": the seat p made for the spare
 * that took the run. -1 for anything else. */
static int
take_seat (Parent *p, const char *text, size_t len, RunnerRunCgroup *cgroup)
{
  char name[64], *end;
  int prefix;

  if (len >= sizeof name)
    return -1;
  memcpy (name, text, len);
  name[len] = '\0';
  prefix = snprintf (NULL, 0, "seat-%d-", (int) p->seat_pid);
  if (strncmp (name, "seat-", 5) != 0 || atoi (name + 5) != (int) p->seat_pid
      || name[prefix - 1] != '-' || !isdigit ((unsigned char) name[prefix]))
    return -1;
  uint64_t n = strtoull (name + prefix, &end, 10);
  if (*end != '\0')
    return -1;
  p->taken = xrealloc (p->taken, (p->n_taken + 1) * sizeof *p->taken);
  p->taken[p->n_taken++] = n;
  runner_cgroup_seat_groups (&p->cgroups, name, cgroup);
  return 0;
}

/* The answer to one spawn: "ok" (or "ok SEAT", with cgroups) with a
 * pidfd, "error ..." or "broken ...". */
static int
read_answer (RunnerWarm *warm, Parent *p, RunnerRunCgroup *cgroup, const char **why)
{
  struct pollfd pfd = { .fd = p->sock, .events = POLLIN };
  int64_t deadline = now_ns () + SPAWN_TIMEOUT_MS * INT64_C (1000000);
  char buf[256];
  int pidfd = -1;
  ssize_t n;

  /* A "spares N" it sent before it read the plan comes first. */
  for (;;)
    {
      int64_t left_ms = (deadline - now_ns ()) / 1000000;
      int rc = left_ms > 0 ? poll (&pfd, 1, (int) left_ms) : 0;
      if (rc < 0 && errno == EINTR)
        continue;
      if (rc <= 0)
        {
          *why = "the warm parent did not answer";
          return -1;
        }
      /* No fd or one: "spares N" and "error ..." come without. */
      size_t n_fds = 0;
      pidfd = -1;
      n = recv_with_some_fds (p->sock, buf, sizeof buf, &pidfd, 0, 1, &n_fds);
      if (n > 0 && n_fds == 0 && take_spares (p, buf, (size_t) n))
        continue;
      if (n > 0 && n_fds == 0)
        pidfd = -1;
      break;
    }
  if (n < 0 && errno == EBADMSG)
    {
      *why = "the warm parent could not fork the run";
      return -1;
    }
  if (n <= 0)
    {
      *why = "the warm parent is gone";
      return -1;
    }
  bool ok = runner_cgroup_version (&p->cgroups) == 0
              ? n == 2 && memcmp (buf, "ok", 2) == 0
              : n > 3 && memcmp (buf, "ok ", 3) == 0
                  && take_seat (p, buf + 3, (size_t) n - 3, cgroup) == 0;
  if (!ok || pidfd < 0)
    {
      if (pidfd >= 0)
        close (pidfd);
      /* Its seat, if it said one, is the run's anyway: removed with it. */
      *why = check_broken (warm, buf, (size_t) n) ? warm->broken
                                                  : "the warm parent could not fork the run";
      return -1;
    }
  return pidfd;
}

int
runner_warm_spawn (RunnerWarm *warm, bool network, const RunnerCgroups *cg, const char *plan,
                   size_t len, const int *fds, size_t n_fds, RunnerRunCgroup *cgroup,
                   const char **why)
{
  Parent *p = &warm->parents[network ? 1 : 0];

  *cgroup = (RunnerRunCgroup){ 0 };
  check_ready (warm, p);
  if (p->state != PARENT_READY)
    {
      /* Not a failure: the run simply starts cold, as it would have. */
      *why = NULL;
      return -1;
    }
  if (!runner_cgroup_same (&p->cgroups, cg))
    {
      /* Its seats are not where runs' groups are now: a new parent makes
       * them there; this run starts cold. */
      *why = NULL;
      retire (warm, p, false);
      return -1;
    }
  if (send_with_fds (p->sock, plan, len, fds, n_fds) != 0)
    {
      *why = "the warm parent is gone";
      retire (warm, p, true);
      return -1;
    }
  int pidfd = read_answer (warm, p, cgroup, why);
  if (pidfd < 0)
    {
      if (p->state != PARENT_NONE)
        retire (warm, p, true);
      return -1;
    }
  p->last_used_ns = now_ns ();
  /* Taken; its "spares N" after the answer says how many are left. */
  if (p->spares > 0)
    p->spares--;
  if (++p->runs >= warm->config.max_runs)
    retire (warm, p, false);
  return pidfd;
}

bool
runner_warm_reaped (RunnerWarm *warm, pid_t pid)
{
  if (warm == NULL || pid <= 0)
    return false;
  for (size_t i = 0; i < N_ELEMENTS (warm->parents); i++)
    {
      Parent *p = &warm->parents[i];
      if (p->pid != pid)
        continue;
      p->pid = 0;
      /* What it said before it went: "broken" ends the pool. */
      check_ready (warm, p);
      /* Died on its own (not retired by us): misbehaving, wait a while. */
      if (p->state != PARENT_NONE)
        {
          if (warm->broken == NULL)
            fprintf (stderr,
                     "sandpad-runner: the warm interpreter ended by itself; another "
                     "starts in %lld s\n",
                     (long long) (RESTART_BACKOFF_NS / 1000000000));
          retire (warm, p, true);
        }
      return true;
    }
  return false;
}

/* Resident memory of one process from /proc, in bytes; 0 if gone. */
static int64_t
rss_bytes (pid_t pid)
{
  char path[64], line[256];
  long long kib = 0;

  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return 0;
  while (fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "VmRSS: %lld", &kib) == 1)
      break;
  fclose (f);
  return (int64_t) kib * 1024;
}

/* Resident memory of pid and its descendants, depth levels down. */
static int64_t
tree_rss (pid_t pid, int depth)
{
  pid_t children[64];
  int64_t total = rss_bytes (pid);
  size_t n = depth > 0 ? runner_spawn_list_children (pid, children, N_ELEMENTS (children)) : 0;

  for (size_t i = 0; i < n; i++)
    total += tree_rss (children[i], depth - 1);
  return total;
}

/* A parent's resident memory with its spare's: every child that is not a
 * run under way, with the spare's init and program below it. */
static int64_t
pool_rss (pid_t parent, const pid_t *busy, size_t n_busy)
{
  pid_t children[64];
  int64_t total = rss_bytes (parent);
  size_t n = runner_spawn_list_children (parent, children, N_ELEMENTS (children));

  for (size_t i = 0; i < n; i++)
    {
      bool is_run = false;
      for (size_t j = 0; j < n_busy && !is_run; j++)
        is_run = busy[j] == children[i];
      if (!is_run)
        total += tree_rss (children[i], 2);
    }
  return total;
}

void
runner_warm_tick (RunnerWarm *warm, int64_t now, const pid_t *busy, size_t n_busy)
{
  if (warm == NULL)
    return;
  for (size_t i = 0; i < N_ELEMENTS (warm->parents); i++)
    {
      Parent *p = &warm->parents[i];
      check_ready (warm, p);
      if (p->state == PARENT_READY && now - p->last_used_ns > warm->config.idle_ms * 1000000)
        retire (warm, p, false);
      /* One that never says ready (stuck in an import, stopped, a hang
       * in its first spare) would keep every run of its policy cold,
       * silently, for the runner's life: it is ended and, after the
       * backoff, another is started. */
      if (p->state == PARENT_STARTING && now - p->started_ns > warm->config.start_ms * 1000000)
        {
          fprintf (stderr,
                   "sandpad-runner: the warm interpreter was not ready after %lld ms; "
                   "ended, another starts in %lld s\n",
                   (long long) warm->config.start_ms,
                   (long long) (RESTART_BACKOFF_NS / 1000000000));
          retire (warm, p, true);
        }
    }
  sweep_all (warm, now);
  if (now < warm->memory_check_ns)
    return;
  warm->memory_check_ns = now + MEMORY_POLL_NS;
  /* Over the cap: the largest parents go first, until it fits. */
  for (;;)
    {
      int64_t total = 0, largest = 0;
      Parent *victim = NULL;
      for (size_t i = 0; i < N_ELEMENTS (warm->parents); i++)
        {
          Parent *p = &warm->parents[i];
          int64_t rss = p->pid > 0 && p->state != PARENT_NONE ? pool_rss (p->pid, busy, n_busy) : 0;
          total += rss;
          if (rss > largest)
            largest = rss, victim = p;
        }
      if (total <= warm->config.memory_cap || victim == NULL)
        return;
      /* First it keeps one spare instead of several; judged again at the
       * next look, once the others are gone. */
      if (victim->state == PARENT_READY && victim->want > 1)
        {
          static const char msg[] = "want 1";
          victim->want = 1;
          if (victim->spares > 1)
            victim->spares = 1;
          send (victim->sock, msg, sizeof msg - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
          return;
        }
      fprintf (stderr,
               "sandpad-runner: the warm interpreters hold %lld MiB, over --warm-memory "
               "(%lld MiB); one is ended\n",
               (long long) (total >> 20), (long long) (warm->config.memory_cap >> 20));
      retire (warm, victim, true);
    }
}

size_t
runner_warm_pids (RunnerWarm *warm, pid_t *out, size_t max)
{
  size_t n = 0;

  for (size_t i = 0; warm != NULL && i < N_ELEMENTS (warm->parents) && n < max; i++)
    if (warm->parents[i].pid > 0 && warm->parents[i].state != PARENT_NONE)
      out[n++] = warm->parents[i].pid;
  return n;
}
