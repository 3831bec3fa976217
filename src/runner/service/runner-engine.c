/* runner-engine.c: the queue of runs, dispatch of requests, timers and
 * signals. One run's process and pipes are runner-run.c's business. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "config.h"
#include "runner-run-private.h"
#include "runner-sockets.h"
#include "runner-seccomp.h"

/* Unread stdin held for one run, at most. */
#define RUNNER_MAX_STDIN_BUFFER (16 * 1024 * 1024)
/* How long a leaving engine waits for run inits still killing their trees. */
#define LEFTOVER_WAIT_NS (INT64_C (10) * 1000000000)

void
runner_config_init (RunnerConfig *config)
{
  *config = (RunnerConfig){
    .default_timeout_ms = 30 * 1000,
    .max_timeout_ms = 300 * 1000,
    .default_memory_mib = 512,
    .max_memory_mib = 16 * 1024,
    .default_output_limit = 1024 * 1024,
    .max_output_limit = 64 * 1024 * 1024,
    .disk_limit = 256 * 1024 * 1024,
    .disk_files = 20000,
    /* Low, as what a run can pin in kernel buffers grows with its fds:
     * python3 with numpy and matplotlib, node, bash and pip all start
     * and work with 32. */
    .open_files = 128,
    .max_processes = 256,
    .sandbox_mode = RUNNER_SANDBOX_AUTO,
    .strict = false,
    /* Runs mostly wait (for input, sleep, the network); eight at once
     * keep a two-core machine busy without queueing the ninth behind
     * short waits (bench/concurrent.sh). Limits are per run either way. */
    .max_concurrent = 8,
    .max_queued = 64,
    .cancel_grace_ms = 1000,
    .work_parent = NULL,
    .max_sessions = 8,
    .session_idle_ms = 10 * 60 * 1000,
    /* Long enough to come back from a coffee, short enough that a
     * forgotten prompt does not hold a run slot all day. */
    .input_idle_ms = 15 * 60 * 1000,
    /* Long enough for print()'s text and newline written apart, short
     * enough that a prompt or "\r50%" shows at once to the eye. */
    .line_hold_ms = 30,
    .warm = false,
    .warm_max_runs = 100,
    .warm_idle_ms = 10 * 60 * 1000,
    .warm_memory_mib = 512,
    .warm_min_memory_mib = -1,
    /* A compile step's own limit: rustc and go build take seconds, and a
     * short program limit should not starve them. */
    .compile_timeout_ms = 60 * 1000,
    .app_prefix = access ("/.flatpak-info", F_OK) == 0 ? "/app" : NULL,
  };
}

int64_t
runner_engine_clock_ms (RunnerEngine *engine)
{
  return (now_ns () - engine->t0_ns) / 1000000;
}

int64_t
runner_engine_clock_origin_realtime_ns (RunnerEngine *engine)
{
  struct timespec ts, tick = { 0 };

  /* Read now rather than kept from startup, so a wall clock that was set
   * since then is followed: file times are on the wall clock. The kernel
   * stamps files from its coarse clock, up to a tick behind the write, and
   * output is timed when read, a little after it was written: an origin a
   * tick earlier puts a file written just after a line after that line. */
  clock_gettime (CLOCK_REALTIME, &ts);
  clock_getres (CLOCK_REALTIME_COARSE, &tick);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec - (now_ns () - engine->t0_ns)
         - ((int64_t) tick.tv_sec * 1000000000 + tick.tv_nsec);
}

void
_runner_engine_emit (RunnerEngine *engine, const SpMessage *msg)
{
  engine->sink.event (engine->sink_data, msg);
}

void
_runner_engine_leave_init (RunnerEngine *engine, pid_t pid, RunnerRunCgroup *cgroup)
{
  engine->leftovers = xrealloc (engine->leftovers,
                                (engine->n_leftovers + 1) * sizeof *engine->leftovers);
  /* Its tree goes at once where the kernel can kill a whole group. */
  runner_cgroup_kill (cgroup);
  engine->leftovers[engine->n_leftovers++] = (struct RunnerLeftover){ pid, *cgroup };
  *cgroup = (RunnerRunCgroup){ 0 };
}

/* Whether pid was a leftover init; its cgroups go with it. */
static bool
leftover_reaped (RunnerEngine *engine, pid_t pid)
{
  for (size_t i = 0; i < engine->n_leftovers; i++)
    if (engine->leftovers[i].pid == pid)
      {
        runner_cgroup_remove (&engine->leftovers[i].cgroup);
        engine->leftovers[i] = engine->leftovers[--engine->n_leftovers];
        return true;
      }
  return false;
}

static void
on_signal (void *data, int fd, uint32_t events)
{
  RunnerEngine *engine = data;
  struct signalfd_siginfo si;

  while (read (fd, &si, sizeof si) == (ssize_t) sizeof si)
    {
      if (si.ssi_signo != SIGCHLD)
        {
          if (engine->sink.quit != NULL)
            engine->sink.quit (engine->sink_data, (int) si.ssi_signo);
          continue;
        }
      /* Reap every exited run init; SIGCHLDs coalesce, so loop. */
      for (;;)
        {
          pid_t pid = waitpid (-1, NULL, WNOHANG);
          if (pid <= 0)
            break;
          if (runner_warm_reaped (engine->warm, pid) || leftover_reaped (engine, pid))
            continue;
          bool known = false;
          for (RunnerRun *run = engine->runs; run != NULL && !known; run = run->next)
            if (!run->warm && run->init_pid == pid && !run->init_reaped)
              {
                _runner_run_on_init_exit (run);
                known = true;
              }
          if (!known)
            _runner_session_reaped (engine, pid);
        }
    }
}

/* Decides the mode from what was asked and what the kernel allows; with
 * strict, a missing layer refuses runs instead of running with less. */
static void
resolve_sandbox (RunnerEngine *engine)
{
  const RunnerConfig *c = &engine->config;
  const RunnerSandboxCaps *caps = &engine->caps;

  engine->namespaces = caps->userns && c->sandbox_mode != RUNNER_SANDBOX_FALLBACK;
  if (c->sandbox_mode == RUNNER_SANDBOX_NAMESPACES && !caps->userns && c->strict)
    engine->refusal = xstrdup ("namespace mode was asked for, but this system refuses a step "
                               "of it: an unprivileged user namespace, its id maps, a mount "
                               "or pivot_root (strict)");
  else if (caps->landlock_abi == 0 && c->strict)
    engine->refusal = xstrdup ("this kernel has no Landlock (strict)");

  if (!caps->seccomp && c->strict && engine->refusal == NULL)
    engine->refusal = xstrdup ("this kernel has no seccomp filters (strict)");
}

const RunnerSeccompFilter *
_runner_engine_seccomp (RunnerEngine *engine, bool network)
{
  RunnerSeccompFilter *filter = &engine->seccomp[network];

  /* Compiled on first use, once per network setting: half a millisecond
   * that a one-shot sandpad-run with network off need not pay twice. */
  if (filter->allow.len == 0 && engine->caps.seccomp)
    {
      RunnerSeccompPolicy policy = { .fallback = !engine->namespaces, .network = network };
      if (runner_seccomp_compile (&policy, filter) != 0)
        engine->caps.seccomp = false;
    }
  return filter->allow.len > 0 ? filter : NULL;
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

int
_runner_engine_diag (RunnerEngine *engine, bool network, pid_t pid, int *fd)
{
  if (*fd >= 0)
    return 1;
  /* With network on, a namespace run shares the runner's network
   * namespace, as a fallback run always does. */
  if (!engine->namespaces || network)
    *fd = runner_sockets_open_diag (0);
  else if (pid <= 0)
    return -1;
  else if (same_netns (pid))
    return 0; /* not in its namespaces yet: it runs nothing so far */
  else
    *fd = runner_sockets_open_diag (pid);
  return *fd >= 0 ? 1 : -1;
}

RunnerMemoryLayer
_runner_engine_memory_layer (const RunnerRunCgroup *cgroup, bool diag)
{
  if (cgroup->memory != NULL)
    return cgroup->version == 2 ? RUNNER_MEMORY_CGROUP_V2 : RUNNER_MEMORY_CGROUP_V1;
  return diag ? RUNNER_MEMORY_SOCKETS : RUNNER_MEMORY_TREE;
}

void
_runner_engine_sandbox_info (RunnerEngine *engine, bool network, RunnerMemoryLayer memory,
                             SpSandboxInfo *info)
{
  char *layers[16];
  size_t n = 0;

  info->mode = xstrdup (engine->namespaces ? "namespaces" : "fallback");
  if (engine->namespaces)
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
  if (engine->caps.landlock_abi > 0)
    layers[n++] = xasprintf ("landlock:%d", engine->caps.landlock_abi);
  if (engine->caps.seccomp)
    layers[n++] = xstrdup ("seccomp");
  layers[n++] = xstrdup (network ? "network:on" : "network:off");
  layers[n] = NULL;
  info->layers = xcalloc (n + 1, sizeof *info->layers);
  memcpy (info->layers, layers, (n + 1) * sizeof *layers);
}

char **
_runner_engine_read_only_list (const RunnerConfig *config)
{
  size_t n = sp_strv_length (config->read_only_dirs);
  char **list = xcalloc (n + 2, sizeof *list);

  for (size_t i = 0; i < n; i++)
    list[i] = xstrdup (config->read_only_dirs[i]);
  if (config->app_prefix != NULL)
    list[n++] = xstrdup (config->app_prefix);
  list[n] = NULL;
  return list;
}

static void
hold_read_only_dirs (RunnerEngine *engine)
{
  char **wanted = _runner_engine_read_only_list (&engine->config);
  size_t n = sp_strv_length (wanted), kept = 0;

  engine->ro_dirs = xcalloc (n + 1, sizeof *engine->ro_dirs);
  engine->ro_ids = xcalloc (n + 1, sizeof *engine->ro_ids);
  engine->ro_fds = xcalloc (n + 1, sizeof *engine->ro_fds);
  for (size_t i = 0; i < n; i++)
    {
      const char *dir = wanted[i];
      int fd = open_no_symlinks (dir, O_PATH | O_DIRECTORY);
      struct stat st;
      if (fd < 0 || fstat (fd, &st) != 0)
        {
          fprintf (stderr, "sandpad-runner: %s is left out of every run: %s\n", dir,
                   strerror (errno));
          if (fd >= 0)
            close (fd);
          continue;
        }
      engine->ro_dirs[kept] = xstrdup (dir);
      engine->ro_ids[kept] = (RunnerDirId){ st.st_dev, st.st_ino };
      engine->ro_fds[kept++] = fd;
    }
  sp_strv_free (wanted);
}

RunnerEngine *
runner_engine_new (const RunnerConfig *config, RunnerLanguages *langs, const RunnerSink *sink,
                   void *sink_data)
{
  RunnerEngine *engine = xcalloc (1, sizeof *engine);
  sigset_t mask;

  engine->config = *config;
  engine->langs = langs;
  engine->sink = *sink;
  engine->sink_data = sink_data;
  engine->loop = runner_loop_new ();
  engine->t0_ns = now_ns ();

  /* A program closing its stdin, or a client vanishing, must not kill us. */
  signal (SIGPIPE, SIG_IGN);
  sigemptyset (&mask);
  sigaddset (&mask, SIGCHLD);
  sigaddset (&mask, SIGTERM);
  sigaddset (&mask, SIGINT);
  sigaddset (&mask, SIGHUP);
  if (sigprocmask (SIG_BLOCK, &mask, NULL) != 0)
    die_with_error ("sigprocmask");
  engine->signal_fd = signalfd (-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (engine->signal_fd < 0)
    die_with_error ("signalfd");
  engine->signal_watch = runner_loop_watch (engine->loop, engine->signal_fd, EPOLLIN, on_signal,
                                            engine);
  if (engine->signal_watch == NULL)
    die_with_error ("epoll_ctl signalfd");

  /* One private directory for all runs: removing it at exit leaves nothing
   * behind, whatever the runs wrote. */
  const char *parent = config->work_parent;
  if (parent == NULL)
    parent = getenv ("TMPDIR");
  if (parent == NULL || parent[0] != '/')
    parent = "/tmp";
  engine->root = xasprintf ("%s/sandpad-runner-XXXXXX", parent);
  if (mkdtemp (engine->root) == NULL)
    die_with_error ("cannot create a private directory in %s", parent);
  /* As root, runs are nobody's: they must be able to pass through (not
   * list) our directory to reach their own, which are 0700 and theirs. */
  if (geteuid () == 0 && chmod (engine->root, 0711) != 0)
    die_with_error ("chmod %s", engine->root);

  runner_compile_cache_open (&engine->compile_cache, config->compile_cache_dir);
  runner_sandbox_probe (&engine->caps);
  resolve_sandbox (engine);
  runner_cgroup_probe (&engine->cgroups);
  hold_read_only_dirs (engine);
  return engine;
}

void
runner_engine_free (RunnerEngine *engine)
{
  if (engine == NULL)
    return;
  _runner_session_free_all (engine);
  while (engine->runs != NULL)
    {
      RunnerRun *run = engine->runs;
      engine->runs = run->next;
      _runner_run_free (run);
    }
  runner_warm_free (engine->warm);
  /* Leaving: inits still killing their trees get a bounded while (their
   * cgroups cannot go before them), then are left to whoever reaps us. */
  int64_t give_up = now_ns () + LEFTOVER_WAIT_NS;
  while (engine->n_leftovers > 0 && now_ns () < give_up)
    {
      pid_t pid = waitpid (-1, NULL, WNOHANG);
      if (pid < 0 && errno != EINTR)
        break;
      if (pid <= 0 || !leftover_reaped (engine, pid))
        poll (NULL, 0, 20);
    }
  for (size_t i = 0; i < engine->n_leftovers; i++)
    runner_cgroup_remove (&engine->leftovers[i].cgroup);
  free (engine->leftovers);
  runner_cgroup_clear (&engine->cgroups);
  for (size_t i = 0; engine->ro_dirs != NULL && engine->ro_dirs[i] != NULL; i++)
    close (engine->ro_fds[i]);
  sp_strv_free (engine->ro_dirs);
  free (engine->ro_ids);
  free (engine->ro_fds);
  remove_tree (engine->root);
  free (engine->root);
  runner_compile_cache_close (&engine->compile_cache);
  free (engine->refusal);
  runner_seccomp_clear (&engine->seccomp[0]);
  runner_seccomp_clear (&engine->seccomp[1]);
  runner_loop_unwatch (engine->loop, engine->signal_watch);
  close (engine->signal_fd);
  runner_loop_free (engine->loop);
  free (engine);
}

RunnerLoop *
runner_engine_get_loop (RunnerEngine *engine)
{
  return engine->loop;
}

void
runner_engine_describe (RunnerEngine *engine, SpReady *ready)
{
  const RunnerConfig *c = &engine->config;

  ready->runner_version = xstrdup (PACKAGE_VERSION);
  ready->protocol = SP_PROTO_VERSION;
  runner_langs_describe (engine->langs, &ready->languages, &ready->n_languages,
                         &ready->unavailable);
  ready->timeout_ms = (SpLimitRange){ c->default_timeout_ms, c->max_timeout_ms };
  ready->memory_mib = (SpLimitRange){ c->default_memory_mib, c->max_memory_mib };
  ready->output_limit = (SpLimitRange){ c->default_output_limit, c->max_output_limit };
  ready->max_concurrent = c->max_concurrent;
  ready->max_frame = SP_PROTO_MAX_FRAME;
  _runner_engine_sandbox_info (engine, false,
                               engine->cgroups.version == 2   ? RUNNER_MEMORY_CGROUP_V2
                               : engine->cgroups.version == 1 ? RUNNER_MEMORY_CGROUP_V1
                                                              : RUNNER_MEMORY_SOCKETS,
                               &ready->sandbox);
}

static RunnerRun *
find_run (RunnerEngine *engine, const char *id)
{
  for (RunnerRun *run = engine->runs; run != NULL; run = run->next)
    if (strcmp (run->req.id, id) == 0)
      return run;
  return NULL;
}

static int
resolve_limit (int64_t *value, int64_t def, int64_t max, const char *what, SpProtoError *err)
{
  if (*value == 0)
    *value = def;
  if (*value > max)
    return sp_proto_set_error (err, SP_ERR_LIMIT, "%s %lld is above the maximum %lld", what,
                               (long long) *value, (long long) max);
  return 0;
}

/* The uid the program runs as: nobody under a root runner, else ours. */
uid_t
_runner_engine_run_uid (RunnerEngine *engine)
{
  return geteuid () == 0 ? RUNNER_SANDBOX_NOBODY : geteuid ();
}

bool
_runner_engine_run_ended (RunnerEngine *engine, const char *id)
{
  for (RunnerRun *run = engine->runs; run != NULL; run = run->next)
    if (strcmp (run->req.id, id) == 0)
      return run->state == RUN_FINISHED;
  return true;
}

int
_runner_engine_check_cwd (RunnerEngine *engine, const char *cwd, char **canonical, int *dir_fd,
                          SpProtoError *err)
{
  return runner_policy_check_cwd (&engine->config.paths, engine->root, cwd,
                                  _runner_engine_run_uid (engine), canonical, dir_fd, err);
}

/* Reads a request's "path" into its code, so the run never depends on the
 * file staying where it was; only under --allow-path, and only what the
 * run's own uid may read. */
static int
load_path (RunnerEngine *engine, SpRun *req, SpProtoError *err)
{
  cleanup_free char *canonical = NULL;

  if (runner_policy_read_path (&engine->config.paths, engine->root, req->path,
                               _runner_engine_run_uid (engine), SP_PROTO_MAX_FRAME, &req->code,
                               &canonical, err)
      != 0)
    return -1;
  if (req->name == NULL)
    req->name = xstrdup (strrchr (canonical, '/') + 1);
  return 0;
}

static int
validate (RunnerEngine *engine, SpRun *req, const RunnerLanguage **lang, SpProtoError *err)
{
  const RunnerConfig *c = &engine->config;

  if (find_run (engine, req->id) != NULL)
    return sp_proto_set_error (err, SP_ERR_DUPLICATE_RUN,
                               "run \"%s\" already exists; release it first", req->id);
  *lang = runner_langs_find (engine->langs, req->language);
  if (*lang == NULL)
    return sp_proto_set_error (err, SP_ERR_UNSUPPORTED_LANGUAGE,
                               "no interpreter for language \"%.64s\"", req->language);
  /* Known but not installed here: say what would provide it. */
  if ((*lang)->path == NULL)
    return sp_proto_set_error (err, SP_ERR_UNSUPPORTED_LANGUAGE,
                               "language \"%s\" is unavailable: its toolchain is not installed "
                               "(Debian package %s)",
                               (*lang)->name, (*lang)->package ? (*lang)->package : "unknown");
  if ((*lang)->compiler != NULL && (req->session != NULL || req->environment != NULL))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "language \"%s\" is compiled: it runs without a session or "
                               "an environment",
                               (*lang)->name);
  if (resolve_limit (&req->timeout_ms, c->default_timeout_ms, c->max_timeout_ms, "timeout_ms", err)
        != 0
      || resolve_limit (&req->memory_mib, c->default_memory_mib, c->max_memory_mib, "memory_mib",
                        err)
           != 0
      || resolve_limit (&req->output_limit, c->default_output_limit, c->max_output_limit,
                        "output_limit", err)
           != 0)
    return -1;
  if (req->cwd != NULL)
    {
      char *canonical = NULL;
      /* Checked again, and held as an fd from then on, when the run starts. */
      if (_runner_engine_check_cwd (engine, req->cwd, &canonical, NULL, err) != 0)
        {
          free (canonical);
          return -1;
        }
      free (req->cwd);
      req->cwd = canonical;
    }
  if (req->path != NULL && load_path (engine, req, err) != 0)
    return -1;
  if (req->session != NULL && _runner_session_validate (engine, req, err) != 0)
    return -1;

  int queued = 0;
  for (RunnerRun *run = engine->runs; run != NULL; run = run->next)
    queued += run->state == RUN_QUEUED;
  if (queued >= c->max_queued)
    return sp_proto_set_error (err, SP_ERR_LIMIT, "%d runs are already waiting", queued);
  return 0;
}

static void
start_queued (RunnerEngine *engine)
{
  for (RunnerRun *run = engine->runs; run != NULL; run = run->next)
    {
      if (engine->running >= engine->config.max_concurrent)
        return;
      /* One run at a time per session: the next waits for it. */
      if (run->state == RUN_QUEUED
          && (run->session == NULL || !_runner_session_busy (run->session)))
        _runner_run_start (run); /* a failure is reported as its exited event */
    }
}

void
_runner_engine_start_queued (RunnerEngine *engine)
{
  start_queued (engine);
}

/* The request's cwd (canonical: validate() resolved it) lies in root, or
 * is root: the run is given root, and starts in the rest (*sub, NULL when
 * it is root itself). root passes the same policy as a cwd. */
static int
cwd_beneath_root (RunnerEngine *engine, SpRun *req, const char *root, char **sub, SpProtoError *err)
{
  char *canonical = NULL;

  if (_runner_engine_check_cwd (engine, root, &canonical, NULL, err) != 0)
    {
      free (canonical);
      return -1;
    }
  size_t len = strlen (canonical);
  if (strncmp (req->cwd, canonical, len) != 0 || (req->cwd[len] != '\0' && req->cwd[len] != '/'))
    {
      free (canonical);
      return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                 "field \"cwd\" does not lie in the directory given with it");
    }
  *sub = req->cwd[len] == '/' && req->cwd[len + 1] != '\0' ? xstrdup (req->cwd + len + 1) : NULL;
  free (req->cwd);
  req->cwd = canonical;
  return 0;
}

int
runner_engine_submit (RunnerEngine *engine, SpRun *req, SpProtoError *err)
{
  return runner_engine_submit_with (engine, req, NULL, err);
}

int
runner_engine_submit_with (RunnerEngine *engine, SpRun *req, const RunnerRunOptions *options,
                           SpProtoError *err)
{
  const RunnerLanguage *lang = NULL;
  RunnerRun **tail = &engine->runs;
  int position = 0;
  RunnerEnv env = { 0 };
  char *cwd_sub = NULL;

  if (validate (engine, req, &lang, err) != 0)
    return -1;
  if (options != NULL && options->cwd_root != NULL && req->cwd != NULL
      && cwd_beneath_root (engine, req, options->cwd_root, &cwd_sub, err) != 0)
    return -1;
  /* Checked here, so a call is refused before it queues; written as it
   * starts, into the directory it then has. */
  if (options != NULL && options->n_input_files > 0
      && runner_input_files_check (options->input_files, options->n_input_files,
                                   engine->config.disk_limit, err)
           != 0)
    {
      free (cwd_sub);
      return -1;
    }
  if (options != NULL && options->n_input_files > 0 && cwd_sub != NULL)
    {
      free (cwd_sub);
      return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                 "input files go to the directory the run is given whole: "
                                 "not with a cwd beneath it");
    }
  if (req->environment != NULL
      && _runner_engine_check_environment (engine, req,
                                           options != NULL && options->environment_writable, &env,
                                           err)
           != 0)
    return -1;

  RunnerRun *run = xcalloc (1, sizeof *run);
  run->engine = engine;
  run->seq = engine->next_seq++;
  run->req = *req;
  memset (req, 0, sizeof *req);
  run->lang = lang;
  if (run->req.session != NULL)
    run->session = _runner_session_get (engine, &run->req);
  run->launcher = run->session != NULL ? &_runner_launcher_session : &_runner_launcher_warm;
  run->init_pid = -1;
  run->control_fd = run->status_fd = run->stdin_fd = run->cwd_fd = run->diag_fd = -1;
  run->build_fd = -1;
  run->streams[0].fd = run->streams[1].fd = -1;
  run->env = env;
  run->env_writable = options != NULL && options->environment_writable;
  runner_display_new_token (run->display_token);
  runner_display_scan_init (&run->display_scan, run->display_token);
  if (options != NULL && options->read_only_dirs != NULL)
    run->extra_ro = sp_strv_copy (options->read_only_dirs);
  if (options != NULL && options->isolated_python != NULL)
    run->isolated_python = xstrdup (options->isolated_python);
  run->cwd_at_host_path = options != NULL && options->cwd_at_host_path;
  run->cwd_sub = cwd_sub;
  if (options != NULL && options->n_input_files > 0)
    {
      run->input = runner_input_files_copy (options->input_files, options->n_input_files);
      run->n_input = options->n_input_files;
    }
  if (options != NULL && options->cwd != NULL && run->req.cwd == NULL)
    {
      run->req.cwd = xstrdup (options->cwd);
      run->cwd_trusted = true;
    }

  /* Runs start in submission order. */
  for (; *tail != NULL; tail = &(*tail)->next)
    position += (*tail)->state == RUN_QUEUED;
  *tail = run;

  SpMessage msg = { .type = SP_MSG_QUEUED };
  msg.u.queued.id = run->req.id;
  msg.u.queued.position = position;
  _runner_engine_emit (engine, &msg);
  start_queued (engine);
  return 0;
}

void
_runner_engine_run_finished (RunnerEngine *engine, RunnerRun *run)
{
  if (run->session != NULL)
    _runner_session_run_finished (run);
  engine->running--;
}

static int
find_live (RunnerEngine *engine, const char *id, RunnerRun **out, SpProtoError *err)
{
  *out = find_run (engine, id);
  if (*out == NULL)
    return sp_proto_set_error (err, SP_ERR_UNKNOWN_RUN, "no run \"%.64s\"", id);
  if ((*out)->state == RUN_FINISHED)
    return sp_proto_set_error (err, SP_ERR_RUN_STATE, "run \"%.64s\" has already exited", id);
  return 0;
}

int
runner_engine_request (RunnerEngine *engine, const SpMessage *msg, const char *id,
                       SpProtoError *err)
{
  switch (msg->type)
    {
    case SP_MSG_CANCEL:
      return runner_engine_cancel (engine, id, err);
    case SP_MSG_STDIN:
      return runner_engine_stdin (engine, id, msg->u.stdin_.data ? msg->u.stdin_.data : "",
                                  msg->u.stdin_.data ? strlen (msg->u.stdin_.data) : 0,
                                  msg->u.stdin_.eof, err);
    case SP_MSG_RELEASE:
      return runner_engine_release (engine, id, err);
    case SP_MSG_SESSION_CLOSE:
    case SP_MSG_SESSION_RESTART:
      return runner_engine_session_end (engine, msg->u.session.session,
                                        msg->type == SP_MSG_SESSION_RESTART, err);
    default:
      return sp_proto_set_error (err, SP_ERR_UNKNOWN_TYPE, "not a request");
    }
}

int
runner_engine_cancel (RunnerEngine *engine, const char *id, SpProtoError *err)
{
  RunnerRun *run;

  if (find_live (engine, id, &run, err) != 0)
    return -1;
  if (run->state == RUN_QUEUED)
    {
      SpMessage msg = { .type = SP_MSG_EXITED };
      msg.u.exited.id = run->req.id;
      msg.u.exited.end = SP_END_FAILED;
      msg.u.exited.error = (char *) "cancelled before it started";
      msg.u.exited.cancelled = SP_CANCEL_INTERRUPT;
      msg.u.exited.t_ms = runner_engine_clock_ms (engine);
      run->state = RUN_FINISHED;
      run->session = NULL;
      _runner_engine_emit (engine, &msg);
      return 0;
    }
  if (run->cancel_stage >= SP_CANCEL_KILL)
    return 0;
  /* Interrupt first, so Python can print its KeyboardInterrupt traceback;
   * a second cancel skips ahead to the next step at once. */
  if (run->cancel_stage == SP_CANCEL_NONE)
    {
      run->cancel_stage = SP_CANCEL_INTERRUPT;
      _runner_run_send_control (run, RUNNER_CTL_INTERRUPT);
      run->cancel_next_ns = now_ns () + engine->config.cancel_grace_ms * INT64_C (1000000);
    }
  else
    run->cancel_next_ns = now_ns ();
  return 0;
}

int
runner_engine_stdin (RunnerEngine *engine, const char *id, const char *data, size_t len, bool eof,
                     SpProtoError *err)
{
  RunnerRun *run;

  if (find_live (engine, id, &run, err) != 0)
    return -1;
  bool closed = run->state == RUN_QUEUED ? !run->req.stdin_open
                                         : run->stdin_close || run->stdin_fd < 0;
  if (closed)
    return sp_proto_set_error (err, SP_ERR_RUN_STATE, "stdin of run \"%.64s\" is closed", id);
  /* A program that never reads must not make us buffer without end. */
  size_t unread = run->stdin_buf.len + (run->req.stdin_data ? strlen (run->req.stdin_data) : 0);
  if (unread + len > RUNNER_MAX_STDIN_BUFFER)
    return sp_proto_set_error (err, SP_ERR_LIMIT,
                               "run \"%.64s\" already has %zu bytes of unread stdin", id, unread);
  if (run->state == RUN_RUNNING)
    {
      buf_append (&run->stdin_buf, data, len);
      run->stdin_close = eof;
      _runner_run_feed_stdin (run);
    }
  else
    {
      /* Queued: keep it for when the run starts. */
      Buf pending = { 0 };
      if (run->req.stdin_data != NULL)
        buf_append (&pending, run->req.stdin_data, strlen (run->req.stdin_data));
      buf_append (&pending, data, len);
      buf_append (&pending, "", 1);
      free (run->req.stdin_data);
      run->req.stdin_data = steal_pointer (&pending.data);
      run->req.stdin_open = !eof;
    }
  return 0;
}

int
runner_engine_release (RunnerEngine *engine, const char *id, SpProtoError *err)
{
  RunnerRun **link = &engine->runs;

  while (*link != NULL && strcmp ((*link)->req.id, id) != 0)
    link = &(*link)->next;
  if (*link == NULL)
    return sp_proto_set_error (err, SP_ERR_UNKNOWN_RUN, "no run \"%.64s\"", id);
  if ((*link)->state != RUN_FINISHED)
    return sp_proto_set_error (err, SP_ERR_RUN_STATE,
                               "run \"%.64s\" has not exited; cancel it first", id);

  RunnerRun *run = *link;
  *link = run->next;
  SpMessage msg = { .type = SP_MSG_RELEASED };
  msg.u.ref.id = xstrdup (id);
  _runner_run_free (run);
  _runner_engine_emit (engine, &msg);
  sp_message_clear (&msg);
  return 0;
}

void
runner_engine_kill_all (RunnerEngine *engine)
{
  for (RunnerRun *run = engine->runs; run != NULL; run = run->next)
    {
      if (run->state == RUN_QUEUED)
        runner_engine_cancel (engine, run->req.id, NULL);
      else if (run->state == RUN_RUNNING)
        {
          run->cancel_stage = SP_CANCEL_KILL;
          run->cancel_next_ns = 0;
          _runner_run_send_control (run, RUNNER_CTL_KILL);
        }
    }
  _runner_session_kill_all (engine);
}

void
runner_engine_throttle (RunnerEngine *engine, bool throttled)
{
  if (engine->throttled == throttled)
    return;
  engine->throttled = throttled;
  for (RunnerRun *run = engine->runs; run != NULL; run = run->next)
    _runner_run_set_throttled (run, throttled);
}

int
runner_engine_active (RunnerEngine *engine)
{
  int n = 0;

  for (RunnerRun *run = engine->runs; run != NULL; run = run->next)
    n += run->state != RUN_FINISHED;
  return n;
}

static int64_t
next_deadline (RunnerEngine *engine)
{
  int64_t next = 0;

  for (RunnerRun *run = engine->runs; run != NULL; run = run->next)
    {
      int64_t times[] = { run->deadline_ns,   run->cancel_next_ns,  run->drain_deadline_ns,
                          run->disk_check_ns, run->memory_check_ns, _runner_run_input_next (run),
                          run->line_flush_ns };

      if (run->state != RUN_RUNNING)
        continue;
      for (size_t i = 0; i < N_ELEMENTS (times); i++)
        if (times[i] > 0 && (next == 0 || times[i] < next))
          next = times[i];
    }
  int64_t sessions = _runner_session_next_deadline (engine);
  if (sessions > 0 && (next == 0 || sessions < next))
    next = sessions;
  return next;
}

int
runner_engine_iterate (RunnerEngine *engine, int max_wait_ms)
{
  int64_t deadline = next_deadline (engine);
  int wait = max_wait_ms;

  if (deadline > 0)
    {
      int64_t until = (deadline - now_ns () + 999999) / 1000000;
      if (until < 0)
        until = 0;
      if (wait < 0 || until < wait)
        wait = (int) until;
    }
  /* Idle warm parents are recycled even when nothing else happens. */
  if (engine->warm != NULL && (wait < 0 || wait > RUNNER_WARM_TICK_MS))
    wait = RUNNER_WARM_TICK_MS;
  if (runner_loop_iterate (engine->loop, wait) < 0)
    return -1;

  int64_t now = now_ns ();
  for (RunnerRun *run = engine->runs; run != NULL; run = run->next)
    _runner_run_check_timers (run, now);
  _runner_session_check_timers (engine, now);
  pid_t busy[256];
  size_t n_busy = 0;
  for (RunnerRun *run = engine->runs; run != NULL && n_busy < N_ELEMENTS (busy); run = run->next)
    if (run->warm && run->init_pid > 0)
      busy[n_busy++] = run->init_pid;
  runner_warm_tick (engine->warm, now, busy, n_busy);
  return 0;
}
