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
#include "runner-base.h"
#include "runner-cgroup.h"
#include "runner-compile-cache.h"
#include "runner-display.h"
#include "runner-engine.h"
#include "runner-environment.h"
#include "runner-files.h"
#include "runner-host.h"
#include "runner-input-wait.h"
#include "runner-launch.h"
#include "runner-session.h"
#include "runner-spawn.h"
#include "runner-venv.h"
#include "runner-warm.h"
#include "runner-font-cache.h"
#include "runner-run.h"
#include "runner-sockets.h"
#include "runner-seccomp.h"

/* The engine's state, its own: runs, sessions, the plan builder and the
 * launchers see only what it lends them (runner-host.h), installs and the
 * resident runner only its calls (runner-engine.h). */
typedef struct RunnerRun RunnerRun;

struct RunnerEngine
{
  /* What its runs and sessions see of it (runner-host.h): they reach the
   * engine only through this, and its ops. */
  RunnerHost host;
  int signal_fd;
  RunnerWatch *signal_watch;
  /* Run inits still killing their tree when their run or session was
   * freed: reaped from SIGCHLD like any other, their cgroups removed then;
   * never waited for in the loop (a fork bomb's tree takes its time). */
  struct RunnerLeftover
  {
    pid_t pid;
    RunnerRunCgroup cgroup;
  } * leftovers;
  size_t n_leftovers;
  int *ro_fds; /* host.ro_dirs, held open (O_PATH) while the engine lives */
  RunnerRun *runs;
  uint64_t next_seq;
  int running;
  /* matplotlib's font list (runner-font-cache.h): the build run is
   * submitted once per key the engine sees missing (font_key_tried), and
   * released by the engine once it has ended (font_build_ended). Its runs
   * reach this through the host's ops (font_key, font_build). */
  char font_key_tried[65];
  char font_key_wanted[65]; /* asked for while starting the queue: submitted next */
  bool font_build_ended;
  bool font_build_submitting; /* the run being submitted is that build run */
  /* The key last made (stat calls, runner-font-cache.c), for whom and
   * when: a long-lived runner remakes it every RUNNER_FONT_KEY_TTL_NS. */
  char font_key[65];
  const RunnerLanguage *font_key_lang;
  int64_t font_key_ns;
};

/* How long a leaving engine waits for run inits still killing their trees. */
#define LEFTOVER_WAIT_NS (INT64_C (10) * 1000000000)

static RunnerRun *
next_run (RunnerRun *run)
{
  return *_runner_run_next_link (run);
}

int64_t
runner_engine_clock_ms (RunnerEngine *engine)
{
  return _runner_host_clock_ms (&engine->host);
}

int64_t
runner_engine_clock_origin_realtime_ns (RunnerEngine *engine)
{
  return _runner_host_clock_origin_realtime_ns (&engine->host);
}

static RunnerRun *find_run (RunnerEngine *engine, const char *id);

/* The engine's side of what it lends its runs and sessions (RunnerHostOps). */
static void
font_build (void *data, const char *key)
{
  RunnerEngine *engine = data;

  /* One build per key: a failed one is not retried in this runner, so a
   * broken matplotlib costs each run what it costs today, no more. */
  if (strcmp (engine->font_key_tried, key) == 0 || find_run (engine, RUNNER_FONT_BUILD_ID) != NULL)
    return;
  memcpy (engine->font_key_wanted, key, 65);
}

static void
font_key (void *data, const RunnerLanguage *python, char key[65])
{
  RunnerEngine *engine = data;
  int64_t now = now_ns ();

  if (engine->font_key_lang != python || engine->font_key[0] == '\0'
      || now - engine->font_key_ns >= RUNNER_FONT_KEY_TTL_NS)
    {
      runner_font_cache_key (python, engine->font_key);
      engine->font_key_lang = python;
      engine->font_key_ns = now;
    }
  memcpy (key, engine->font_key, 65);
}

/* Submits the build run asked for while the queue was being started. */
static void
submit_font_build (RunnerEngine *engine)
{
  SpProtoError err = { 0 };

  if (engine->font_key_wanted[0] == '\0')
    return;
  memcpy (engine->font_key_tried, engine->font_key_wanted, 65);
  engine->font_key_wanted[0] = '\0';
  SpRun req = { 0 };
  req.id = xstrdup (RUNNER_FONT_BUILD_ID);
  req.language = xstrdup ("python");
  req.code = xstrdup (RUNNER_FONT_BUILD_CODE);
  req.timeout_ms = RUNNER_FONT_BUILD_TIMEOUT_MS;
  req.timeout_ms = engine->host.config.max_timeout_ms < req.timeout_ms
                     ? engine->host.config.max_timeout_ms
                     : req.timeout_ms;
  engine->font_build_submitting = true;
  int rc = runner_engine_submit_with (engine, &req, NULL, &err);
  engine->font_build_submitting = false;
  if (rc != 0)
    {
      SpMessage msg = { .type = SP_MSG_RUN };
      msg.u.run = req;
      sp_message_clear (&msg);
    }
}

/* The ended build run is released here, outside any walk of the runs. */
static void
release_font_build (RunnerEngine *engine)
{
  if (!engine->font_build_ended)
    return;
  engine->font_build_ended = false;
  runner_engine_release (engine, RUNNER_FONT_BUILD_ID, NULL);
}

bool
runner_engine_font_building (RunnerEngine *engine)
{
  RunnerRun *run = find_run (engine, RUNNER_FONT_BUILD_ID);

  return (run != NULL && _runner_run_state (run) != RUN_FINISHED)
         || engine->font_key_wanted[0] != '\0';
}

static void
leave_init (void *data, pid_t pid, RunnerRunCgroup *cgroup)
{
  RunnerEngine *engine = data;

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
          if (engine->host.sink.quit != NULL)
            engine->host.sink.quit (engine->host.sink_data, (int) si.ssi_signo);
          continue;
        }
      /* Reap every exited run init; SIGCHLDs coalesce, so loop. */
      for (;;)
        {
          pid_t pid = waitpid (-1, NULL, WNOHANG);
          if (pid <= 0)
            break;
          if (runner_warm_reaped (engine->host.warm, pid) || leftover_reaped (engine, pid))
            continue;
          bool known = false;
          for (RunnerRun *run = engine->runs; run != NULL && !known; run = next_run (run))
            known = _runner_run_reaped (run, pid);
          if (!known)
            _runner_session_reaped (&engine->host, pid);
        }
    }
}

/* Decides the mode from what was asked and what the kernel allows; with
 * strict, a missing layer refuses runs instead of running with less. */
static void
resolve_sandbox (RunnerEngine *engine)
{
  const RunnerConfig *c = &engine->host.config;
  const RunnerSandboxCaps *caps = &engine->host.caps;

  engine->host.namespaces = caps->userns && c->sandbox_mode != RUNNER_SANDBOX_FALLBACK;
  if (c->sandbox_mode == RUNNER_SANDBOX_NAMESPACES && !caps->userns && c->strict)
    engine->host.refusal = xstrdup ("namespace mode was asked for, but this system refuses a step "
                                    "of it: an unprivileged user namespace, its id maps, a mount "
                                    "or pivot_root (strict)");
  else if (caps->landlock_abi == 0 && c->strict)
    engine->host.refusal = xstrdup ("this kernel has no Landlock (strict)");

  if (!caps->seccomp && c->strict && engine->host.refusal == NULL)
    engine->host.refusal = xstrdup ("this kernel has no seccomp filters (strict)");
}

static void
hold_read_only_dirs (RunnerEngine *engine)
{
  char **wanted = runner_config_read_only_list (&engine->host.config);
  size_t n = sp_strv_length (wanted), kept = 0;

  engine->host.ro_dirs = xcalloc (n + 1, sizeof *engine->host.ro_dirs);
  engine->host.ro_ids = xcalloc (n + 1, sizeof *engine->host.ro_ids);
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
      engine->host.ro_dirs[kept] = xstrdup (dir);
      engine->host.ro_ids[kept] = (RunnerDirId){ st.st_dev, st.st_ino };
      engine->ro_fds[kept++] = fd;
    }
  sp_strv_free (wanted);
}

static RunnerRun *
host_runs (void *data)
{
  RunnerEngine *engine = data;

  return engine->runs;
}

static void run_finished (void *data, RunnerRun *run);
static void host_start_queued (void *data);

static const RunnerHostOps host_ops = {
  .run_finished = run_finished,
  .start_queued = host_start_queued,
  .leave_init = leave_init,
  .runs = host_runs,
  .font_key = font_key,
  .font_build = font_build,
};

RunnerEngine *
runner_engine_new (const RunnerConfig *config, RunnerLanguages *langs, const RunnerSink *sink,
                   void *sink_data)
{
  RunnerEngine *engine = xcalloc (1, sizeof *engine);
  sigset_t mask;

  engine->host.config = *config;
  engine->host.langs = langs;
  engine->host.sink = *sink;
  engine->host.sink_data = sink_data;
  engine->host.loop = runner_loop_new ();
  engine->host.t0_ns = now_ns ();
  engine->host.ops = &host_ops;
  engine->host.ops_data = engine;

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
  engine->signal_watch = runner_loop_watch (engine->host.loop, engine->signal_fd, EPOLLIN,
                                            on_signal, engine);
  if (engine->signal_watch == NULL)
    die_with_error ("epoll_ctl signalfd");

  /* One private directory for all runs: removing it at exit leaves nothing
   * behind, whatever the runs wrote. */
  const char *parent = config->work_parent;
  if (parent == NULL)
    parent = getenv ("TMPDIR");
  if (parent == NULL || parent[0] != '/')
    parent = "/tmp";
  engine->host.root = xasprintf ("%s/sandpad-runner-XXXXXX", parent);
  if (mkdtemp (engine->host.root) == NULL)
    die_with_error ("cannot create a private directory in %s", parent);
  /* As root, runs are nobody's: they must be able to pass through (not
   * list) our directory to reach their own, which are 0700 and theirs. */
  if (geteuid () == 0 && chmod (engine->host.root, 0711) != 0)
    die_with_error ("chmod %s", engine->host.root);

  runner_compile_cache_open (&engine->host.compile_cache, config->compile_cache_dir);
  runner_sandbox_probe (&engine->host.caps);
  resolve_sandbox (engine);
  runner_cgroup_probe (&engine->host.cgroups);
  hold_read_only_dirs (engine);
  return engine;
}

void
runner_engine_free (RunnerEngine *engine)
{
  if (engine == NULL)
    return;
  _runner_session_free_all (&engine->host);
  while (engine->runs != NULL)
    {
      RunnerRun *run = engine->runs;
      engine->runs = next_run (run);
      _runner_run_free (run);
    }
  runner_warm_free (engine->host.warm);
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
  runner_cgroup_clear (&engine->host.cgroups);
  for (size_t i = 0; engine->host.ro_dirs != NULL && engine->host.ro_dirs[i] != NULL; i++)
    close (engine->ro_fds[i]);
  sp_strv_free (engine->host.ro_dirs);
  free (engine->host.ro_ids);
  free (engine->ro_fds);
  remove_tree (engine->host.root);
  free (engine->host.root);
  free (engine->host.prelude_dir);
  runner_compile_cache_close (&engine->host.compile_cache);
  runner_font_memo_clear (&engine->host.font_memo);
  free (engine->host.refusal);
  runner_seccomp_clear (&engine->host.seccomp[0]);
  runner_seccomp_clear (&engine->host.seccomp[1]);
  runner_loop_unwatch (engine->host.loop, engine->signal_watch);
  close (engine->signal_fd);
  runner_loop_free (engine->host.loop);
  free (engine);
}

RunnerLoop *
runner_engine_get_loop (RunnerEngine *engine)
{
  return engine->host.loop;
}

void
runner_engine_describe (RunnerEngine *engine, SpReady *ready)
{
  const RunnerConfig *c = &engine->host.config;

  ready->runner_version = xstrdup (PACKAGE_VERSION);
  ready->protocol = SP_PROTO_VERSION;
  runner_langs_describe (engine->host.langs, &ready->languages, &ready->n_languages,
                         &ready->unavailable);
  ready->timeout_ms = (SpLimitRange){ c->default_timeout_ms, c->max_timeout_ms };
  ready->memory_mib = (SpLimitRange){ c->default_memory_mib, c->max_memory_mib };
  ready->output_limit = (SpLimitRange){ c->default_output_limit, c->max_output_limit };
  ready->max_concurrent = c->max_concurrent;
  ready->max_frame = SP_PROTO_MAX_FRAME;
  _runner_host_sandbox_info (&engine->host, false,
                             runner_cgroup_version (&engine->host.cgroups) == 2
                               ? RUNNER_MEMORY_CGROUP_V2
                             : runner_cgroup_version (&engine->host.cgroups) == 1
                               ? RUNNER_MEMORY_CGROUP_V1
                               : RUNNER_MEMORY_SOCKETS,
                             &ready->sandbox);
}

static RunnerRun *
find_run (RunnerEngine *engine, const char *id)
{
  for (RunnerRun *run = engine->runs; run != NULL; run = next_run (run))
    if (strcmp (_runner_run_id (run), id) == 0)
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

bool
runner_engine_run_ended (RunnerEngine *engine, const char *id)
{
  RunnerRun *run = find_run (engine, id);

  return run == NULL || _runner_run_state (run) == RUN_FINISHED;
}

RunnerConfig *
runner_engine_config (RunnerEngine *engine)
{
  return &engine->host.config;
}

char *
runner_engine_new_dir_path (RunnerEngine *engine, const char *prefix)
{
  return xasprintf ("%s/%s-%llu", engine->host.root, prefix,
                    (unsigned long long) engine->next_seq++);
}

char **
runner_engine_session_names (RunnerEngine *engine)
{
  return _runner_session_names (&engine->host);
}

bool
runner_engine_has_sessions (RunnerEngine *engine)
{
  return engine->host.sessions != NULL;
}

uid_t
runner_engine_run_uid (void)
{
  return _runner_host_run_uid ();
}

/* Reads a request's "path" into its code, so the run never depends on the
 * file staying where it was; only under --allow-path, and only what the
 * run's own uid may read. */
static int
load_path (RunnerEngine *engine, SpRun *req, SpProtoError *err)
{
  cleanup_free char *canonical = NULL;

  if (runner_policy_read_path (&engine->host.config.paths, engine->host.root, req->path,
                               _runner_host_run_uid (), SP_PROTO_MAX_FRAME, &req->code, &canonical,
                               err)
      != 0)
    return -1;
  if (req->name == NULL)
    req->name = xstrdup (strrchr (canonical, '/') + 1);
  return 0;
}

static int
validate (RunnerEngine *engine, SpRun *req, const RunnerLanguage **lang, SpProtoError *err)
{
  const RunnerConfig *c = &engine->host.config;

  /* The engine's own run's id: a client's run under it would be taken
   * for the font list's build and its output dropped. */
  if (!engine->font_build_submitting && strcmp (req->id, RUNNER_FONT_BUILD_ID) == 0)
    return sp_proto_set_error (err, SP_ERR_DUPLICATE_RUN,
                               "this run id is the runner's own (its font-list build)");
  if (find_run (engine, req->id) != NULL)
    return sp_proto_set_error (err, SP_ERR_DUPLICATE_RUN,
                               "run \"%s\" already exists; release it first", req->id);
  *lang = runner_langs_find (engine->host.langs, req->language);
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
      if (_runner_host_check_cwd (&engine->host, req->cwd, &canonical, NULL, err) != 0)
        {
          free (canonical);
          return -1;
        }
      free (req->cwd);
      req->cwd = canonical;
    }
  if (req->path != NULL && load_path (engine, req, err) != 0)
    return -1;
  if (req->session != NULL && _runner_session_validate (&engine->host, req, err) != 0)
    return -1;

  int queued = 0;
  for (RunnerRun *run = engine->runs; run != NULL; run = next_run (run))
    queued += _runner_run_state (run) == RUN_QUEUED;
  if (queued >= c->max_queued)
    return sp_proto_set_error (err, SP_ERR_LIMIT, "%d runs are already waiting", queued);
  return 0;
}

static void
start_queued (RunnerEngine *engine)
{
  for (RunnerRun *run = engine->runs; run != NULL; run = next_run (run))
    {
      if (_runner_run_state (run) != RUN_QUEUED)
        continue;
      /* The font list's build run takes no slot: it starts at once, at
       * the lowest priority, and is not counted in running, so it never
       * keeps a client's run waiting (runner-font-cache.h). */
      if (_runner_run_font_build (run))
        {
          _runner_run_start (run);
          continue;
        }
      if (engine->running >= engine->host.config.max_concurrent)
        continue;
      /* One run at a time per session: the next waits for it. */
      RunnerSession *session = _runner_run_session (run);
      if (_runner_run_state (run) == RUN_QUEUED
          && (session == NULL || !_runner_session_busy (session)))
        {
          engine->running++;
          _runner_run_start (run); /* a failure is reported as its exited event */
        }
    }
}

static void
host_start_queued (void *data)
{
  start_queued (data);
}

/* The request's cwd (canonical: validate() resolved it) lies in root, or
 * is root: the run is given root, and starts in the rest (*sub, NULL when
 * it is root itself). root passes the same policy as a cwd. */
static int
cwd_beneath_root (RunnerEngine *engine, SpRun *req, const char *root, char **sub, SpProtoError *err)
{
  char *canonical = NULL;

  if (_runner_host_check_cwd (&engine->host, root, &canonical, NULL, err) != 0)
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
                                   engine->host.config.disk_limit, err)
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
      && _runner_environment_check (&engine->host, req,
                                    options != NULL && options->environment_writable, &env, err)
           != 0)
    {
      free (cwd_sub);
      return -1;
    }
  if (req->session != NULL
      && _runner_session_check_environment (&engine->host, req, &env, err) != 0)
    {
      runner_env_clear (&env);
      free (cwd_sub);
      return -1;
    }

  RunnerRunSetup setup = {
    .seq = engine->next_seq++,
    .lang = lang,
    .session = req->session != NULL ? _runner_session_get (&engine->host, req) : NULL,
    .env = env,
    .env_writable = options != NULL && options->environment_writable,
    .read_only_dirs = options != NULL ? options->read_only_dirs : NULL,
    .isolated_python = options != NULL ? options->isolated_python : NULL,
    .cwd_at_host_path = options != NULL && options->cwd_at_host_path,
    .trusted_cwd = options != NULL ? options->cwd : NULL,
    .cwd_sub = cwd_sub,
    .font_build_key = engine->font_build_submitting ? engine->font_key_tried : NULL,
    .input_files = options != NULL ? options->input_files : NULL,
    .n_input_files = options != NULL ? options->n_input_files : 0,
  };
  RunnerRun *run = _runner_run_new (&engine->host, req, &setup);
  free (cwd_sub);

  /* Runs start in submission order. */
  for (; *tail != NULL; tail = _runner_run_next_link (*tail))
    position += _runner_run_state (*tail) == RUN_QUEUED;
  *tail = run;

  SpMessage msg = { .type = SP_MSG_QUEUED };
  msg.u.queued.id = (char *) _runner_run_id (run);
  msg.u.queued.position = position;
  _runner_host_emit (&engine->host, &msg);
  start_queued (engine);
  submit_font_build (engine);
  return 0;
}

static void
run_finished (void *data, RunnerRun *run)
{
  RunnerEngine *engine = data;

  if (_runner_run_session (run) != NULL)
    _runner_session_run_finished (run);
  /* The font list's build run took no slot; the engine releases it once
   * it has ended, outside any walk of the runs. */
  if (_runner_run_font_build (run))
    engine->font_build_ended = true;
  else
    engine->running--;
}

static int
find_live (RunnerEngine *engine, const char *id, RunnerRun **out, SpProtoError *err)
{
  *out = find_run (engine, id);
  if (*out == NULL)
    return sp_proto_set_error (err, SP_ERR_UNKNOWN_RUN, "no run \"%.64s\"", id);
  if (_runner_run_state (*out) == RUN_FINISHED)
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
      return _runner_session_end (&engine->host, msg->u.session.session,
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
  _runner_run_cancel (run);
  return 0;
}

int
runner_engine_stdin (RunnerEngine *engine, const char *id, const char *data, size_t len, bool eof,
                     SpProtoError *err)
{
  RunnerRun *run;

  if (find_live (engine, id, &run, err) != 0)
    return -1;
  return _runner_run_stdin (run, data, len, eof, err);
}

int
runner_engine_release (RunnerEngine *engine, const char *id, SpProtoError *err)
{
  RunnerRun **link = &engine->runs;

  while (*link != NULL && strcmp (_runner_run_id (*link), id) != 0)
    link = _runner_run_next_link (*link);
  if (*link == NULL)
    return sp_proto_set_error (err, SP_ERR_UNKNOWN_RUN, "no run \"%.64s\"", id);
  if (_runner_run_state (*link) != RUN_FINISHED)
    return sp_proto_set_error (err, SP_ERR_RUN_STATE,
                               "run \"%.64s\" has not exited; cancel it first", id);

  RunnerRun *run = *link;
  *link = next_run (run);
  SpMessage msg = { .type = SP_MSG_RELEASED };
  msg.u.ref.id = xstrdup (id);
  _runner_run_free (run);
  _runner_host_emit (&engine->host, &msg);
  sp_message_clear (&msg);
  return 0;
}

void
runner_engine_kill_all (RunnerEngine *engine)
{
  for (RunnerRun *run = engine->runs; run != NULL; run = next_run (run))
    {
      if (_runner_run_state (run) == RUN_QUEUED)
        runner_engine_cancel (engine, _runner_run_id (run), NULL);
      else if (_runner_run_state (run) == RUN_RUNNING)
        _runner_run_kill (run);
    }
  _runner_session_kill_all (&engine->host);
}

void
runner_engine_throttle (RunnerEngine *engine, bool throttled)
{
  if (engine->host.throttled == throttled)
    return;
  engine->host.throttled = throttled;
  for (RunnerRun *run = engine->runs; run != NULL; run = next_run (run))
    _runner_run_set_throttled (run, throttled);
}

int
runner_engine_active (RunnerEngine *engine)
{
  int n = 0;

  /* The font list's build run is the engine's own, not a client's. */
  for (RunnerRun *run = engine->runs; run != NULL; run = next_run (run))
    n += _runner_run_state (run) != RUN_FINISHED && !_runner_run_font_build (run);
  return n;
}

static int64_t
next_deadline (RunnerEngine *engine)
{
  int64_t next = 0;

  for (RunnerRun *run = engine->runs; run != NULL; run = next_run (run))
    {
      int64_t at = _runner_run_next_deadline (run);
      if (at > 0 && (next == 0 || at < next))
        next = at;
    }
  int64_t sessions = _runner_session_next_deadline (&engine->host);
  if (sessions > 0 && (next == 0 || sessions < next))
    next = sessions;
  return next;
}

int
runner_engine_iterate (RunnerEngine *engine, int max_wait_ms)
{
  int64_t deadline = next_deadline (engine);
  int wait = max_wait_ms;

  release_font_build (engine);
  submit_font_build (engine);

  if (deadline > 0)
    {
      int64_t until = (deadline - now_ns () + 999999) / 1000000;
      if (until < 0)
        until = 0;
      if (wait < 0 || until < wait)
        wait = (int) until;
    }
  /* Idle warm parents are recycled even when nothing else happens. */
  if (engine->host.warm != NULL && (wait < 0 || wait > RUNNER_WARM_TICK_MS))
    wait = RUNNER_WARM_TICK_MS;
  if (runner_loop_iterate (engine->host.loop, wait) < 0)
    return -1;

  int64_t now = now_ns ();
  for (RunnerRun *run = engine->runs; run != NULL; run = next_run (run))
    _runner_run_check_timers (run, now);
  _runner_session_check_timers (&engine->host, now);
  pid_t busy[256];
  size_t n_busy = 0;
  for (RunnerRun *run = engine->runs; run != NULL && n_busy < N_ELEMENTS (busy);
       run = next_run (run))
    if (_runner_run_warm_pid (run) > 0)
      busy[n_busy++] = _runner_run_warm_pid (run);
  runner_warm_tick (engine->host.warm, now, busy, n_busy);
  return 0;
}

/* The pool exists from the first hello on: a client that never says hello
 * (a batch of requests from a file) is gone when its runs end, so a warm
 * parent would only take their CPU. */
void
runner_engine_prewarm (RunnerEngine *engine)
{
  if (engine->host.refusal != NULL)
    return;
  if (engine->host.warm == NULL && engine->host.warm_missing == NULL)
    engine->host.warm = _runner_warm_pool_new (&engine->host);
  if (engine->host.warm != NULL)
    runner_warm_start (engine->host.warm, false, &engine->host.cgroups);
}
