/* runner-session.c: persistent sessions (see runner-session.h). */
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "runner-run-private.h"
#include "runner-session.h"
#include "runner-run.h"
#include "runner-launch.h"
#include "runner-nproc.h"
#include "runner-prelude.h"
#include "runner-tree.h"

/* How often a session's whole tree is summed (as a run's, runner-run.c),
 * while it runs something and while it waits. */
#define SESSION_MEMORY_POLL_NS (200 * INT64_C (1000000))
#define SESSION_IDLE_MEMORY_POLL_NS (500 * INT64_C (1000000))
/* The driver's answer is a few dozen bytes; anything longer is not it. */
#define SESSION_REPORT_MAX 512

struct RunnerSession
{
  RunnerHost *host;
  RunnerSession *next;
  char *id;
  bool closing; /* closed or idle: forgotten once its interpreter is gone */
  int64_t idle_since_ns;

  /* The interpreter, while one runs (init_pid > 0). */
  char *dir; /* session-N: code/, tmp/, work/, root/ */
  char *cwd;
  /* cwd is the directory the first run named (a folder of the person's,
   * never removed), not dir's work/: every run of this interpreter runs
   * there, and only while it is the directory checked then. */
  bool cwd_named;
  dev_t cwd_dev;
  ino_t cwd_ino;
  pid_t init_pid;
  int control_fd;
  int status_fd;
  int channel_fd; /* the driver's fd 3 */
  RunnerWatch *channel_watch;
  uint64_t n_runs;
  int64_t memory_mib; /* what it was started with: later runs must match */
  char language[16];  /* python or javascript */
  bool network;
  /* The environment it runs in (canonical path and the directory's
   * identity as checked), NULL for none: fixed like memory_mib. */
  char *env_dir;
  dev_t env_dev;
  ino_t env_ino;
  RunnerRun *current;
  SpSessionEnd ending; /* being stopped, and why */
  int64_t kill_at_ns;  /* an interrupted run's grace ends */
  int64_t memory_check_ns;
  int64_t memory_peak;
  int64_t tasks_peak;
  /* The interpreter's memory and pids cgroups, where the runner can have
   * them: they hold for the session's whole life, idle time included. */
  RunnerRunCgroup cgroup;
  /* While idle, the tree may spend at most idle_cpu_limit ns of CPU past
   * idle_cpu_base (its CPU when the last run ended): the last run's
   * timeout, as much as a run of it could spend. 0: no run ended yet. */
  int64_t cpu_ns;
  int64_t idle_cpu_base;
  int64_t idle_cpu_limit;
  bool diag;   /* without them: the tree watch counts its socket queues */
  int diag_fd; /* through this (runner-sockets.h), opened at its first look */
  /* The interpreter's SANDPAD_DISPLAY_TOKEN (its environment is fixed
   * when it starts): every run of it scans for this one. */
  char display_token[RUNNER_DISPLAY_TOKEN_LEN + 1];
};

static RunnerSession *
find_session (RunnerHost *host, const char *id)
{
  for (RunnerSession *s = host->sessions; s != NULL; s = s->next)
    if (!s->closing && strcmp (s->id, id) == 0)
      return s;
  return NULL;
}

static bool
alive (const RunnerSession *s)
{
  return s->init_pid > 0;
}

/* What a running interpreter was started with cannot change under it.
 * Its env can, for one run: the driver sets a run's variables over the
 * session's for that run and puts them back after (run.json's "env"). */
static const char *
settings_differ (const RunnerSession *s, const SpRun *req)
{
  if (req->memory_mib != s->memory_mib)
    return "memory_mib";
  if (strcmp (req->language, s->language) != 0)
    return "language";
  if (req->network != s->network)
    return "network";
  /* A later run may leave cwd out: it runs where the session does. */
  if (req->cwd != NULL && (!s->cwd_named || strcmp (req->cwd, s->cwd) != 0))
    return "cwd";
  return NULL;
}

/* The environment is the interpreter's: a venv's python runs the driver,
 * and its directory is bound for the session's life. */
static bool
environment_differs (const RunnerSession *s, const RunnerEnv *env)
{
  if (s->env_dir == NULL || env->dir == NULL)
    return s->env_dir != env->dir;
  return strcmp (s->env_dir, env->dir) != 0 || s->env_dev != env->dev || s->env_ino != env->ino;
}

int
_runner_session_check_environment (RunnerHost *host, const SpRun *req, const RunnerEnv *env,
                                   SpProtoError *err)
{
  RunnerSession *s = find_session (host, req->session);

  if (s != NULL && alive (s) && s->ending == SP_SESSION_END_NONE && environment_differs (s, env))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "session \"%.64s\" was started with another \"environment\"; "
                               "restart it to change that",
                               req->session);
  return 0;
}

int
_runner_session_validate (RunnerHost *host, const SpRun *req, SpProtoError *err)
{
  RunnerSession *s = find_session (host, req->session);
  int n = 0;

  /* The languages with a session driver. */
  bool relayed = strcmp (req->language, "javascript") == 0 || strcmp (req->language, "r") == 0
                 || strcmp (req->language, "java") == 0;
  if (strcmp (req->language, "python") != 0 && !relayed)
    return sp_proto_set_error (err, SP_ERR_UNSUPPORTED_LANGUAGE,
                               "sessions are for python, javascript, r and java only, not "
                               "\"%.64s\"",
                               req->language);
  if (relayed && runner_langs_find (host->langs, "python") == NULL)
    return sp_proto_set_error (err, SP_ERR_UNSUPPORTED_LANGUAGE,
                               "%s sessions need python3 for their relay, which this "
                               "runner does not have",
                               req->language);
  if (s != NULL && alive (s) && s->ending == SP_SESSION_END_NONE)
    {
      const char *field = settings_differ (s, req);
      if (field != NULL)
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                   "session \"%.64s\" was started with another \"%s\"; "
                                   "restart it to change that",
                                   req->session, field);
    }
  if (s != NULL)
    return 0;
  for (RunnerSession *it = host->sessions; it != NULL; it = it->next)
    n++;
  if (host->config.max_sessions == 0)
    return sp_proto_set_error (err, SP_ERR_LIMIT,
                               "this runner keeps no sessions (--max-sessions 0)");
  if (n >= host->config.max_sessions)
    return sp_proto_set_error (err, SP_ERR_LIMIT,
                               "%d sessions are open, the most this runner keeps; close one", n);
  return 0;
}

RunnerSession *
_runner_session_get (RunnerHost *host, const SpRun *req)
{
  RunnerSession *s = find_session (host, req->session);

  if (s != NULL)
    return s;
  s = xcalloc (1, sizeof *s);
  s->host = host;
  s->id = xstrdup (req->session);
  s->init_pid = -1;
  s->control_fd = s->status_fd = s->channel_fd = s->diag_fd = -1;
  s->idle_since_ns = now_ns ();
  s->next = host->sessions;
  host->sessions = s;
  return s;
}

bool
_runner_session_busy (RunnerSession *s)
{
  return s->current != NULL || s->ending != SP_SESSION_END_NONE;
}

static int
write_file (const char *path, const char *text, mode_t mode)
{
  cleanup_fd int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

  if (fd < 0 || write_all (fd, text, strlen (text)) != 0)
    return -1;
  return _runner_give_to_run (path);
}

/* The session's directory, as a run's: code (read-only to it: the
 * prelude, the driver, each run's snippet), tmp, work, root. */
static int
make_session_dir (RunnerSession *s)
{
  static const char *const subdirs[] = { "code", "tmp", "work", "root", "code/.sandpad" };
  RunnerHost *host = s->host;

  s->dir = xasprintf ("%s/session-%llu", host->root, (unsigned long long) host->next_session_seq++);
  if (mkdir (s->dir, 0700) != 0 || _runner_give_to_run (s->dir) != 0)
    return -1;
  for (size_t i = 0; i < N_ELEMENTS (subdirs); i++)
    {
      cleanup_free char *sub = xasprintf ("%s/%s", s->dir, subdirs[i]);
      if (mkdir (sub, strcmp (subdirs[i], "code/.sandpad") == 0 ? 0755 : 0700) != 0
          || _runner_give_to_run (sub) != 0)
        return -1;
    }
  s->cwd = xasprintf ("%s/work", s->dir);
  cleanup_free char *prelude = xasprintf ("%s/code/.sandpad/sitecustomize.py", s->dir);
  cleanup_free char *driver = xasprintf ("%s/code/.sandpad/sandpad_session.py", s->dir);
  cleanup_free char *sandpad = xasprintf ("%s/code/.sandpad", s->dir);
  cleanup_free char *node_relay = xasprintf ("%s/code/.sandpad/sandpad_session_node.py", s->dir);
  cleanup_free char *node_driver = xasprintf ("%s/code/.sandpad/sandpad_session.js", s->dir);
  cleanup_free char *r_driver = xasprintf ("%s/code/.sandpad/sandpad_session.R", s->dir);
  cleanup_free char *java_driver = xasprintf ("%s/code/.sandpad/sandpad_session.java", s->dir);
  if (write_file (prelude, runner_python_prelude, 0444) != 0
      || write_file (driver, runner_session_driver, 0444) != 0
      || write_file (node_relay, runner_session_node_relay, 0444) != 0
      || write_file (node_driver, runner_session_node_driver, 0444) != 0
      || write_file (r_driver, runner_r_driver, 0444) != 0
      || write_file (java_driver, runner_java_session_driver, 0444) != 0
      || runner_langs_write_python_alias (sandpad) != 0)
    return -1;
  return 0;
}

static void on_channel (void *data, int fd, uint32_t events);

/* Forgets the interpreter's directory; a run that is still reporting
 * takes it over and removes it on release. */
static void
drop_dir (RunnerSession *s, RunnerRun *heir)
{
  if (s->dir != NULL && heir != NULL)
    heir->keep_dir = false;
  else if (s->dir != NULL)
    remove_tree (s->dir);
  free (s->dir);
  free (s->cwd);
  s->dir = s->cwd = NULL;
  s->cwd_named = false;
}

/* The interpreter's process: the driver under runner_spawn, with the
 * layers of any run, /dev/null on 0-2 between runs and the channel as 3. */
static pid_t
fork_interpreter (RunnerSession *s, RunnerRun *run, int devnull, int channel, int control,
                  int status)
{
  RunnerHost *host = s->host;
  cleanup_free char *driver = host->namespaces
                                ? xstrdup (RUNNER_SANDBOX_CODE "/.sandpad/sandpad_session.py")
                                : xasprintf ("%s/code/.sandpad/sandpad_session.py", s->dir);
  RunnerLanguage lang = *run->lang;
  char **argv;
  bool is_r = strcmp (run->lang->name, "r") == 0;
  bool is_java = strcmp (run->lang->name, "java") == 0;
  if (strcmp (run->lang->name, "javascript") == 0 || is_r || is_java)
    {
      /* python3 RELAY KIND CHILD-ARGV: node (or the JVM) as a JavaScript
       * (Java) run would start, with the driver as its program; Rscript
       * with R's driver as its file (the relay adds --session and its
       * FIFOs for R and Java). */
      const char *seen = host->namespaces ? RUNNER_SANDBOX_CODE "/.sandpad" : NULL;
      cleanup_free char *on_host = xasprintf ("%s/code/.sandpad", s->dir);
      cleanup_free char *relay = xasprintf ("%s/sandpad_session_node.py", seen ? seen : on_host);
      cleanup_free char *child_driver = xasprintf ("%s/sandpad_session.%s", seen ? seen : on_host,
                                                   is_r      ? "R"
                                                   : is_java ? "java"
                                                             : "js");
      char **child_argv;
      if (is_r)
        {
          child_argv = xcalloc (5, sizeof *child_argv);
          child_argv[0] = xstrdup ("fifo");
          child_argv[1] = xstrdup (run->lang->path);
          child_argv[2] = xstrdup ("--vanilla");
          child_argv[3] = xstrdup (child_driver);
        }
      else
        {
          char **node_argv = runner_lang_argv (run->lang, child_driver, NULL, run->req.memory_mib,
                                               false);
          size_t n = sp_strv_length (node_argv);
          child_argv = xcalloc (n + 2, sizeof *child_argv);
          child_argv[0] = xstrdup (is_java ? "fifo" : "node");
          memcpy (child_argv + 1, node_argv, n * sizeof *node_argv);
          free (node_argv);
        }
      lang = *runner_langs_find (host->langs, "python");
      argv = runner_lang_argv (&lang, relay, child_argv, run->req.memory_mib, false);
      sp_strv_free (child_argv);
    }
  else
    {
      /* A venv's interpreter by the venv's path, as a cold run's: Python
       * finds pyvenv.cfg beside it and takes the venv's prefix. */
      if (run->env.python != NULL)
        lang.path = run->env.python;
      argv = runner_lang_argv (&lang, driver, NULL, run->req.memory_mib, false);
    }
  RunnerLaunch launch;
  _runner_launch_build (run, RUNNER_LAUNCH_INTERPRETER, lang.path, argv,
                        _runner_run_build_env (run), &launch);
  RunnerSpawnSpec *spec = &launch.spec;
  spec->stdin_fd = devnull;
  spec->stdout_fd = devnull;
  spec->stderr_fd = devnull;
  spec->control_fd = control;
  spec->status_fd = status;
  spec->extra_fds[0] = channel;
  spec->n_extra_fds = 1;

  /* Named for the interpreter's directory (session-N), new each start. */
  int cgroup_fds[RUNNER_CGROUP_MAX_FDS];
  const char *base = strrchr (s->dir, '/');
  if (_runner_host_cgroup_create (host, base != NULL ? base + 1 : s->dir, &launch.plan, &s->cgroup,
                                  cgroup_fds)
      == 0)
    spec->cgroup_fds = cgroup_fds;
  pid_t pid = runner_spawn (spec);
  int errsv = errno;
  for (int i = 0; spec->cgroup_fds != NULL && i < RUNNER_CGROUP_MAX_FDS; i++)
    if (cgroup_fds[i] >= 0)
      close (cgroup_fds[i]);
  if (pid < 0)
    runner_cgroup_remove (&s->cgroup);
  _runner_launch_clear (&launch);
  errno = errsv;
  return pid;
}

/* Starts the interpreter through runner_spawn, as any run: the run that
 * asked for it lends its request (environment, memory, network). */
static int
spawn (RunnerSession *s, RunnerRun *run)
{
  RunnerHost *host = s->host;
  int sv[2] = { -1, -1 }, ctl[2] = { -1, -1 }, status[2] = { -1, -1 };
  cleanup_fd int devnull = -1;

  drop_dir (s, NULL);
  if (make_session_dir (s) != 0)
    return -1;
  if (run->req.cwd != NULL)
    {
      /* Checked again and held by session_start: the interpreter gets
       * that directory for its life. */
      free (s->cwd);
      s->cwd = xstrdup (run->req.cwd);
      s->cwd_named = true;
    }
  run->dir = xstrdup (s->dir);
  run->cwd = xstrdup (s->cwd);
  run->keep_dir = true;
  if (_runner_run_hold_cwd (run) != 0)
    return -1;
  s->cwd_dev = run->cwd_dev;
  s->cwd_ino = run->cwd_ino;
  devnull = open ("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0 || socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0
      || pipe2 (ctl, O_CLOEXEC) != 0 || pipe2 (status, O_CLOEXEC) != 0)
    {
      int errsv = errno;
      int fds[] = { sv[0], sv[1], ctl[0], ctl[1], status[0], status[1] };
      for (size_t i = 0; i < N_ELEMENTS (fds); i++)
        if (fds[i] >= 0)
          close (fds[i]);
      errno = errsv;
      return -1;
    }

  s->init_pid = fork_interpreter (s, run, devnull, sv[1], ctl[0], status[1]);
  int errsv = errno;
  close (sv[1]);
  close (ctl[0]);
  close (status[1]);
  s->channel_fd = sv[0];
  s->control_fd = ctl[1];
  s->status_fd = status[0];
  if (s->init_pid < 0)
    {
      close (s->channel_fd);
      close (s->control_fd);
      close (s->status_fd);
      s->channel_fd = s->control_fd = s->status_fd = -1;
      errno = errsv;
      return -1;
    }
  s->diag = !runner_cgroup_has_memory (&s->cgroup);
  set_nonblocking (s->channel_fd, true);
  set_nonblocking (s->status_fd, true);
  s->channel_watch = runner_loop_watch (host->loop, s->channel_fd, EPOLLIN, on_channel, s);
  s->memory_mib = run->req.memory_mib;
  snprintf (s->language, sizeof s->language, "%s", run->req.language);
  s->network = run->req.network;
  free (s->env_dir);
  s->env_dir = run->env.dir != NULL ? xstrdup (run->env.dir) : NULL;
  s->env_dev = run->env.dev;
  s->env_ino = run->env.ino;
  s->n_runs = 0;
  s->memory_peak = s->tasks_peak = 0;
  s->idle_cpu_limit = 0;
  s->memory_check_ns = now_ns () + SESSION_MEMORY_POLL_NS;
  if (s->channel_watch == NULL)
    {
      /* Without the channel the session cannot be served: stop it. */
      s->ending = SP_SESSION_END_FAILED;
      close (s->control_fd);
      s->control_fd = -1;
    }
  return 0;
}

static void
send_control (RunnerSession *s, char cmd)
{
  if (s->control_fd >= 0 && write (s->control_fd, &cmd, 1) < 0 && errno == EPIPE)
    {
      close (s->control_fd);
      s->control_fd = -1;
    }
}

/* Stops the interpreter; the rest happens when its run init is reaped. */
static void
kill_session (RunnerSession *s, SpSessionEnd reason)
{
  if (!alive (s) || s->ending != SP_SESSION_END_NONE)
    return;
  s->ending = reason;
  s->kill_at_ns = 0;
  send_control (s, RUNNER_CTL_KILL);
}

/* The run's snippet and its run.json (the file to run, its arguments),
 * in code/rN/, read-only to the run like a cold run's /code. */
static int
write_run_files (RunnerSession *s, RunnerRun *run, char **dir_for_driver)
{
  const char *name = run->req.name ? run->req.name : run->lang->default_file;
  cleanup_free char *host_dir = xasprintf ("%s/code/r%llu", s->dir, (unsigned long long) s->n_runs);
  cleanup_free char *host_code = xasprintf ("%s/%s", host_dir, name);
  cleanup_free char *host_json = xasprintf ("%s/run.json", host_dir);
  cleanup_free char *seen_dir = s->host->namespaces ? xasprintf (RUNNER_SANDBOX_CODE "/r%llu",
                                                                 (unsigned long long) s->n_runs)
                                                    : xstrdup (host_dir);

  if (mkdir (host_dir, 0755) != 0 || _runner_give_to_run (host_dir) != 0)
    return -1;
  if (write_file (host_code, run->req.code, 0400) != 0)
    return -1;
  run->code_path = xasprintf ("%s/%s", seen_dir, name);

  json_t *req = json_object ();
  json_t *args = json_array ();
  for (size_t i = 0; run->req.args != NULL && run->req.args[i] != NULL; i++)
    json_array_append_new (args, json_string (run->req.args[i]));
  json_object_set_new (req, "file", json_string (run->code_path));
  json_object_set_new (req, "args", args);
  /* This run's variables, over the session's for its length (the
   * drivers). The display token stays the runner's, as in a cold run, and
   * PYTHONPATH the session's: the interpreter's has the prelude's
   * directory first (a cold run's merge), which a child python needs. */
  json_t *env = json_object ();
  for (size_t i = 0; run->req.env != NULL && run->req.env[i] != NULL; i++)
    {
      const char *eq = strchr (run->req.env[i], '=');
      if (eq == NULL || strncmp (run->req.env[i], "SANDPAD_DISPLAY_TOKEN=", 22) == 0
          || strncmp (run->req.env[i], "PYTHONPATH=", 11) == 0)
        continue;
      json_object_setn_new (env, run->req.env[i], (size_t) (eq - run->req.env[i]),
                            json_string (eq + 1));
    }
  json_object_set_new (req, "env", env);
  char *text = json_dumps (req, JSON_COMPACT);
  json_decref (req);
  if (text == NULL)
    return -1;
  int rc = write_file (host_json, text, 0400);
  free (text);
  if (rc != 0)
    return -1;
  *dir_for_driver = steal_pointer (&seen_dir);
  return 0;
}

/* Hands the run's stdin, stdout and stderr to the driver with the name
 * of its directory. The socket is the driver's alone and it waits idle,
 * so one small message always fits. */
static int
send_run (RunnerSession *s, const char *dir, int in, int out, int err)
{
  int fds[3] = { in, out, err };

  return send_with_fds (s->channel_fd, dir, strlen (dir), fds, 3);
}

/* Fallback mode: the interpreter's RLIMIT_NPROC is the uid's count when
 * it started plus its room (runner-nproc.h), and the uid's other tasks
 * come and go over a session's life: a browser's hundred threads since
 * then left a run none. Each run measures the count again and gives the
 * interpreter (and its children: node) room over it, before the run can
 * fork. The session's own tasks are in the count: the tree watch, not
 * this limit, holds the session to its cap. A count that cannot be had
 * leaves the limit as it was. */
static void
refresh_nproc (RunnerSession *s)
{
  if (s->host->namespaces)
    return;
  int64_t count = _runner_host_run_uid_tasks ();
  if (count >= 0)
    runner_tree_set_nproc (s->init_pid, _runner_host_run_uid (),
                           runner_nproc_limit (count, s->host->config.max_processes));
}

/* The session launcher's start: the interpreter if none runs (built by
 * the same plan builder as any run), then the snippet. */
static int
session_start (RunnerRun *run)
{
  RunnerSession *s = run->session;
  int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
  cleanup_free char *dir = NULL;

  if (!alive (s))
    {
      /* The policy's check of a named cwd again, now (the request may
       * have waited), its fd held from then on; failed, the run says why. */
      if (run->req.cwd != NULL && _runner_run_recheck_cwd (run) != 0)
        return -1;
      if (spawn (s, run) != 0)
        {
          char *why = xasprintf ("cannot start the session's interpreter: %s", strerror (errno));
          run->session_ended = SP_SESSION_END_FAILED;
          _runner_run_fail (run, why);
          free (why);
          return -1;
        }
      run->session_new = true;
      snprintf (s->display_token, sizeof s->display_token, "%s",
                _runner_output_token (&run->output));
    }
  else
    {
      const char *field = settings_differ (s, &run->req);
      if (field == NULL && environment_differs (s, &run->env))
        field = "environment";
      if (field != NULL)
        {
          char *why = xasprintf ("the session was started with another \"%s\" while this run "
                                 "waited; restart it to change that",
                                 field);
          _runner_run_fail (run, why);
          free (why);
          return -1;
        }
      refresh_nproc (s);
      run->dir = xstrdup (s->dir);
      run->cwd = xstrdup (s->cwd);
      run->keep_dir = true;
      _runner_output_set_token (&run->output, s->display_token);
      if (_runner_run_hold_cwd (run) != 0)
        {
          _runner_run_fail (run, "cannot open the session's directory");
          return -1;
        }
      /* By path, without symlinks: the directory the session was given,
       * or another put in its place since, which this run must not get. */
      if (s->cwd_named && (run->cwd_dev != s->cwd_dev || run->cwd_ino != s->cwd_ino))
        {
          _runner_run_fail (run, "the session's working directory was replaced since it "
                                 "started; restart the session");
          return -1;
        }
    }
  /* Its files land now, when it starts, not when it was asked for: a run
   * before it in the session may still use the same names. Before the
   * snapshot, so they are reported only if the run changes them. */
  if (_runner_run_write_input (run) != 0)
    return -1;
  s->n_runs++;
  run->session_count = (int64_t) s->n_runs;
  s->current = run;
  s->idle_cpu_limit = 0;
  s->kill_at_ns = 0;
  /* The files this run creates or changes are reported, not the
   * session's earlier ones. */
  runner_files_snapshot (run->cwd_fd, &run->before);
  /* A named directory's own files, and what earlier runs left there, are
   * not this run's disk use: measured now, as a cold run's cwd is. */
  if (s->cwd_named && _runner_run_disk_base (run) != 0)
    return -1;

  /* node cannot take an fd over the channel, so a JavaScript session's
   * node opens the run's stdin through /proc/<relay>/fd/N
   * (runner-session-node.js), which the kernel allows only to the pipe's
   * owner: a root runner gives the pipe to the uid the program runs as.
   * That uid can do no more with it than read or write its own stdin,
   * which it holds already. */
  uid_t run_uid = _runner_host_run_uid ();
  bool give_stdin = strcmp (s->language, "javascript") == 0 && run_uid != geteuid ();
  if (write_run_files (s, run, &dir) != 0 || pipe2 (in, O_CLOEXEC) != 0
      || (give_stdin && fchown (in[0], run_uid, run_uid) != 0) || pipe2 (out, O_CLOEXEC) != 0
      || pipe2 (err, O_CLOEXEC) != 0)
    {
      char *why = xasprintf ("cannot prepare the run: %s", strerror (errno));
      int fds[] = { in[0], in[1], out[0], out[1], err[0], err[1] };
      for (size_t i = 0; i < N_ELEMENTS (fds); i++)
        if (fds[i] >= 0)
          close (fds[i]);
      _runner_run_fail (run, why);
      free (why);
      return -1;
    }
  int sent = send_run (s, dir, in[0], out[1], err[1]);
  int errsv = errno;
  close (in[0]);
  close (out[1]);
  close (err[1]);
  run->stdin_fd = in[1];
  run->streams[SP_STREAM_STDOUT].fd = out[0];
  run->streams[SP_STREAM_STDERR].fd = err[0];
  run->t_start_ns = now_ns ();
  if (sent != 0)
    {
      /* The driver is gone or wedged: the run ends when the session does. */
      char *why = xasprintf ("cannot reach the session's interpreter: %s", strerror (errsv));
      run->failure = why;
      kill_session (s, SP_SESSION_END_FAILED);
    }
  return _runner_run_attach (run);
}

static void
session_control (RunnerRun *run, char cmd)
{
  RunnerSession *s = run->session;

  if (s == NULL || s->current != run)
    return;
  if (cmd == RUNNER_CTL_INTERRUPT)
    {
      send_control (s, RUNNER_CTL_INTERRUPT);
      return;
    }
  /* Terminate or kill: whatever the run started lives in the session, so
   * the session goes. */
  kill_session (s, run->limit == SP_LIMIT_TIME           ? SP_SESSION_END_TIMEOUT
                   : run->limit != SP_LIMIT_NONE         ? SP_SESSION_END_LIMIT
                   : run->cancel_stage != SP_CANCEL_NONE ? SP_SESSION_END_CANCELLED
                                                         : SP_SESSION_END_EXITED);
}

/* The run passed its time: interrupt it, kill the session after the
 * cancel grace if the driver does not answer. */
static void
session_deadline (RunnerRun *run)
{
  RunnerSession *s = run->session;

  if (s == NULL || s->current != run || s->kill_at_ns > 0)
    return;
  send_control (s, RUNNER_CTL_INTERRUPT);
  s->kill_at_ns = now_ns () + s->host->config.cancel_grace_ms * INT64_C (1000000);
}

/* The session's tree root (its run init), or -1 when no interpreter runs. */
static pid_t
session_tree_root (RunnerRun *run)
{
  return run->session != NULL && alive (run->session) ? run->session->init_pid : -1;
}

void
_runner_session_run_finished (RunnerRun *run)
{
  RunnerSession *s = run->session;

  if (s->current == run)
    s->current = NULL;
  s->idle_since_ns = now_ns ();
  run->session = NULL;
}

/* The tree watch over the whole session, as runner-run.c does for a run:
 * memory_mib holds for everything the session's processes hold. */
static void
sample_memory (RunnerSession *s)
{
  int64_t limit = s->memory_mib * 1024 * 1024;
  RunnerTreeUsage usage;

  if (!alive (s) || s->ending != SP_SESSION_END_NONE)
    return;
  /* As a run's (runner-run.c): an interpreter that is ending is counted
   * as nothing; one that lives and cannot be counted is stopped. */
  RunnerDiag diag = s->diag ? _runner_host_diag (s->host, s->network, s->init_pid, -1, &s->diag_fd)
                            : RUNNER_DIAG_OPEN;
  if (diag == RUNNER_DIAG_GONE)
    return;
  if (diag == RUNNER_DIAG_FAILED)
    {
      if (s->current != NULL && s->current->failure == NULL)
        s->current->failure = xasprintf ("cannot count the session's socket queues: %s",
                                         strerror (errno));
      kill_session (s, SP_SESSION_END_FAILED);
      return;
    }
  runner_tree_usage (s->init_pid, s->host->namespaces ? 2 : 1, false, s->diag_fd, &usage);
  if (usage.bytes >= limit / 100 * 85)
    runner_tree_usage (s->init_pid, s->host->namespaces ? 2 : 1, true, s->diag_fd, &usage);
  s->cpu_ns = usage.cpu_ns;
  if (usage.bytes > s->memory_peak)
    s->memory_peak = usage.bytes;
  if (usage.tasks > s->tasks_peak)
    s->tasks_peak = usage.tasks;
  if (s->current != NULL)
    _runner_watch_set_deleted (&s->current->watch, usage.deleted_bytes);
  if (usage.socket_bytes < 0 && _runner_host_supervisor_exited (s->init_pid, -1))
    return;
  /* Over the limit, or the kernel's OOM killer acted in the session's
   * cgroup (what it holds in kernel buffers counts there): whatever it
   * killed, the session's state is not whole any more. */
  if (usage.bytes > limit || usage.socket_bytes < 0 || runner_cgroup_oom_killed (&s->cgroup))
    {
      if (s->current != NULL && s->current->limit == SP_LIMIT_NONE)
        s->current->limit = SP_LIMIT_MEMORY;
      kill_session (s, SP_SESSION_END_LIMIT);
    }
  /* A thread or process a run left working while the session waits: it
   * may not spend more CPU than the run itself could have. */
  else if (s->current == NULL && s->idle_cpu_limit > 0
           && usage.cpu_ns - s->idle_cpu_base > s->idle_cpu_limit)
    kill_session (s, SP_SESSION_END_LIMIT);
  /* The process cap for the session's tree, where no pids cgroup holds it
   * (fallback mode's RLIMIT_NPROC is the uid's, not the session's). */
  else if (!runner_cgroup_has_pids (&s->cgroup) && usage.tasks > s->host->config.max_processes)
    {
      if (s->current != NULL && s->current->limit == SP_LIMIT_NONE)
        s->current->limit = SP_LIMIT_PROCESSES;
      kill_session (s, SP_SESSION_END_LIMIT);
    }
}

/* The session's writable space, measured as a run's is (its directory
 * and, without namespaces, its tmp; with them /tmp is a capped tmpfs),
 * through fds of the session's own directories. */
static bool
disk_over (RunnerSession *s)
{
  const RunnerConfig *c = &s->host->config;
  cleanup_free char *tmp = xasprintf ("%s/tmp", s->dir);
  cleanup_fd int work_fd = open_no_symlinks (s->cwd, O_PATH | O_DIRECTORY);
  cleanup_fd int tmp_fd = s->host->namespaces ? -1 : open_no_symlinks (tmp, O_PATH | O_DIRECTORY);
  RunnerUsage space;

  runner_files_space_usage (work_fd, tmp_fd, c->disk_files + 1, &space);
  return !space.complete || (!s->host->namespaces && tmp_fd < 0) || space.bytes > c->disk_limit
         || space.entries > c->disk_files;
}

/* While no run goes, the interpreter may still work: a thread a run left
 * writing, or a run that told the driver it was done ({"exit":0} on fd 3)
 * and went on. The session's whole life is held to its caps, so an idle
 * session is watched for disk and entries as well as memory, and ended
 * when it passes one. */
static void
check_idle_disk (RunnerSession *s)
{
  if (s->current != NULL || !alive (s) || s->ending != SP_SESSION_END_NONE)
    return;
  if (disk_over (s))
    kill_session (s, SP_SESSION_END_LIMIT);
}

static void
check_memory (RunnerSession *s, int64_t now)
{
  if (!alive (s) || now < s->memory_check_ns)
    return;
  s->memory_check_ns
    = now + (s->current != NULL ? SESSION_MEMORY_POLL_NS : SESSION_IDLE_MEMORY_POLL_NS);
  sample_memory (s);
  check_idle_disk (s);
}

/* The run's result from the driver's answer; the runner measured the
 * wall time, and the memory is the session's tree watch. */
static void
finish_current (RunnerSession *s, int wait_status, int64_t cpu_ns)
{
  RunnerRun *run = s->current;

  /* A run shorter than the watch's period is still measured once. */
  sample_memory (s);
  /* It passed the session's memory (or the kernel killed one of its
   * processes at the cgroup's cap): the run ends with the session, as one
   * stopped while it ran. */
  if (s->ending != SP_SESSION_END_NONE)
    return;
  s->idle_cpu_base = s->cpu_ns;
  s->idle_cpu_limit = (run->req.timeout_ms + 1000) * INT64_C (1000000);
  s->current = NULL;
  s->kill_at_ns = 0;
  s->idle_since_ns = now_ns ();
  run->report = (RunnerReport){ .kind = RUNNER_REPORT_EXITED,
                                .wait_status = wait_status,
                                .wall_ns = now_ns () - run->t_start_ns,
                                .cpu_ns = cpu_ns };
  run->have_report = true;
  _runner_watch_take_peaks (&run->watch, s->memory_peak, s->tasks_peak);
  _runner_run_on_init_exit (run);
}

/* {"exit": N} or {"signal": N}, and "cpu_ns": as the driver writes it;
 * anything else is refused. */
static int
parse_report (const char *buf, size_t len, int *wait_status, int64_t *cpu_ns)
{
  json_t *obj = json_loadb (buf, len, JSON_REJECT_DUPLICATES, NULL);
  json_t *code = obj ? json_object_get (obj, "exit") : NULL;
  json_t *sig = obj ? json_object_get (obj, "signal") : NULL;
  json_t *cpu = obj ? json_object_get (obj, "cpu_ns") : NULL;
  int rc = -1;

  if (json_is_integer (code) && sig == NULL && json_integer_value (code) >= 0
      && json_integer_value (code) <= 255)
    {
      *wait_status = (int) json_integer_value (code) << 8;
      rc = 0;
    }
  else if (json_is_integer (sig) && code == NULL && json_integer_value (sig) >= 1
           && json_integer_value (sig) < 64)
    {
      *wait_status = (int) json_integer_value (sig);
      rc = 0;
    }
  *cpu_ns = json_is_integer (cpu) && json_integer_value (cpu) >= 0 ? json_integer_value (cpu) : 0;
  json_decref (obj);
  return rc;
}

static void
on_channel (void *data, int fd, uint32_t events)
{
  RunnerSession *s = data;
  char buf[SESSION_REPORT_MAX];
  ssize_t n = recv (fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC);
  int wait_status;
  int64_t cpu_ns;

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n <= 0)
    {
      /* The driver is gone; its run init's exit tells the rest. */
      runner_loop_unwatch (s->host->loop, s->channel_watch);
      s->channel_watch = NULL;
      return;
    }
  if (s->current == NULL || s->ending != SP_SESSION_END_NONE)
    return;
  if ((size_t) n > sizeof buf || parse_report (buf, (size_t) n, &wait_status, &cpu_ns) != 0)
    {
      s->current->failure = xstrdup ("the session's interpreter sent a malformed report");
      kill_session (s, SP_SESSION_END_FAILED);
      return;
    }
  finish_current (s, wait_status, cpu_ns);
}

static void
emit_ended (RunnerSession *s, SpSessionEnd reason)
{
  SpMessage msg = { .type = SP_MSG_SESSION_ENDED };

  msg.u.session.session = s->id;
  msg.u.session.reason = reason;
  _runner_host_emit (s->host, &msg);
}

static void
free_session (RunnerSession *s)
{
  RunnerHost *host = s->host;

  for (RunnerSession **link = &host->sessions; *link != NULL; link = &(*link)->next)
    if (*link == s)
      {
        *link = s->next;
        break;
      }
  drop_dir (s, NULL);
  free (s->env_dir);
  free (s->id);
  free (s);
}

bool
_runner_session_reaped (RunnerHost *host, pid_t pid)
{
  RunnerSession *s = host->sessions;

  while (s != NULL && s->init_pid != pid)
    s = s->next;
  if (s == NULL)
    return false;

  RunnerReport report;
  bool have_report = read (s->status_fd, &report, sizeof report) == (ssize_t) sizeof report;
  RunnerRun *run = s->current;
  /* The kernel ended the interpreter at its cgroup's memory cap before
   * the watch saw it. */
  if (s->ending == SP_SESSION_END_NONE && runner_cgroup_oom_killed (&s->cgroup))
    {
      s->ending = SP_SESSION_END_LIMIT;
      if (run != NULL && run->limit == SP_LIMIT_NONE)
        run->limit = SP_LIMIT_MEMORY;
    }
  SpSessionEnd reason = s->ending != SP_SESSION_END_NONE ? s->ending : SP_SESSION_END_EXITED;
  runner_cgroup_remove (&s->cgroup);
  if (s->diag_fd >= 0)
    close (s->diag_fd);
  s->diag_fd = -1;

  /* Reset first: finishing the run may start the next one, which then
   * finds no interpreter and starts a fresh one. */
  runner_loop_unwatch (host->loop, s->channel_watch);
  s->channel_watch = NULL;
  close (s->channel_fd);
  close (s->control_fd);
  close (s->status_fd);
  s->channel_fd = s->control_fd = s->status_fd = -1;
  s->init_pid = -1;
  s->current = NULL;
  s->ending = SP_SESSION_END_NONE;
  s->kill_at_ns = 0;
  s->idle_since_ns = now_ns ();
  drop_dir (s, run);
  emit_ended (s, reason);

  if (run != NULL)
    {
      run->report = have_report ? report : (RunnerReport){ 0 };
      run->have_report = have_report;
      run->report.wall_ns = now_ns () - run->t_start_ns;
      _runner_watch_take_peaks (&run->watch, s->memory_peak, s->tasks_peak);
      run->session_ended = reason;
    }
  if (s->closing)
    {
      if (run != NULL)
        run->session = NULL;
      free_session (s);
    }
  if (run != NULL)
    _runner_run_on_init_exit (run);
  _runner_host_start_queued (host);
  return true;
}

static bool
has_waiting_runs (RunnerSession *s)
{
  for (RunnerRun *run = _runner_host_runs (s->host); run != NULL; run = run->next)
    if (run->session == s && run->state != RUN_FINISHED)
      return true;
  return false;
}

void
_runner_session_check_timers (RunnerHost *host, int64_t now)
{
  int64_t idle_ns = host->config.session_idle_ms * INT64_C (1000000);
  RunnerSession *next;

  for (RunnerSession *s = host->sessions; s != NULL; s = next)
    {
      next = s->next;
      if (s->kill_at_ns > 0 && now >= s->kill_at_ns)
        kill_session (s, SP_SESSION_END_TIMEOUT);
      check_memory (s, now);
      if (s->closing || _runner_session_busy (s) || now - s->idle_since_ns < idle_ns
          || has_waiting_runs (s))
        continue;
      /* Unused for long: stop it and forget it. */
      s->closing = true;
      if (alive (s))
        kill_session (s, SP_SESSION_END_IDLE);
      else
        free_session (s);
    }
}

int64_t
_runner_session_next_deadline (RunnerHost *host)
{
  int64_t idle_ns = host->config.session_idle_ms * INT64_C (1000000);
  int64_t next = 0;

  for (RunnerSession *s = host->sessions; s != NULL; s = s->next)
    {
      int64_t times[] = { s->kill_at_ns, alive (s) ? s->memory_check_ns : 0,
                          s->closing || _runner_session_busy (s) ? 0 : s->idle_since_ns + idle_ns };
      for (size_t i = 0; i < N_ELEMENTS (times); i++)
        if (times[i] > 0 && (next == 0 || times[i] < next))
          next = times[i];
    }
  return next;
}

/* Queued runs of a closed session end without running. */
static void
fail_waiting (RunnerSession *s)
{
  for (RunnerRun *run = _runner_host_runs (s->host); run != NULL; run = run->next)
    if (run->session == s && run->state == RUN_QUEUED)
      {
        SpMessage msg = { .type = SP_MSG_EXITED };
        msg.u.exited.id = run->req.id;
        msg.u.exited.end = SP_END_FAILED;
        msg.u.exited.error = (char *) "the session was closed before the run started";
        msg.u.exited.t_ms = _runner_host_clock_ms (s->host);
        run->state = RUN_FINISHED;
        run->session = NULL;
        _runner_host_emit (s->host, &msg);
      }
}

int
_runner_session_end (RunnerHost *host, const char *id, bool restart, SpProtoError *err)
{
  RunnerSession *s = find_session (host, id);
  SpSessionEnd reason = restart ? SP_SESSION_END_RESTART : SP_SESSION_END_CLOSED;

  if (s == NULL)
    return sp_proto_set_error (err, SP_ERR_UNKNOWN_SESSION, "no session \"%.64s\"", id);
  if (!restart)
    {
      fail_waiting (s);
      s->closing = true;
    }
  if (alive (s) && s->ending == SP_SESSION_END_NONE)
    {
      kill_session (s, reason); /* session_ended follows when it is gone */
      return 0;
    }
  if (!alive (s))
    {
      emit_ended (s, reason);
      if (!restart)
        free_session (s);
    }
  return 0;
}

void
_runner_session_kill_all (RunnerHost *host)
{
  for (RunnerSession *s = host->sessions; s != NULL; s = s->next)
    {
      fail_waiting (s);
      s->closing = true;
      kill_session (s, SP_SESSION_END_CLOSED);
    }
}

void
_runner_session_free_all (RunnerHost *host)
{
  while (host->sessions != NULL)
    {
      RunnerSession *s = host->sessions;

      runner_loop_unwatch (host->loop, s->channel_watch);
      s->channel_watch = NULL;
      if (s->channel_fd >= 0)
        close (s->channel_fd);
      if (s->status_fd >= 0)
        close (s->status_fd);
      /* Without its control pipe the run init kills the tree and exits. */
      if (s->control_fd >= 0)
        close (s->control_fd);
      if (s->init_pid > 0)
        _runner_host_leave_init (host, s->init_pid, &s->cgroup);
      runner_cgroup_remove (&s->cgroup);
      if (s->diag_fd >= 0)
        close (s->diag_fd);
      s->diag_fd = -1;
      for (RunnerRun *run = _runner_host_runs (host); run != NULL; run = run->next)
        if (run->session == s)
          run->session = NULL;
      s->init_pid = -1;
      free_session (s);
    }
}

/* What holds the interpreter's memory (a run of it has the same). */
static RunnerMemoryLayer
session_memory_layer (RunnerRun *run)
{
  RunnerSession *s = run->session;

  if (s == NULL)
    return RUNNER_MEMORY_TREE;
  return _runner_host_memory_layer (&s->cgroup, s->diag);
}

/* A run of a session holds nothing of the interpreter's: the session
 * outlives it. */
static void
session_release (RunnerRun *run)
{
  (void) run;
}

const RunnerLauncher _runner_launcher_session = {
  .name = "session",
  .start = session_start,
  .spawn = NULL,
  .control = session_control,
  .deadline = session_deadline,
  .tree_root = session_tree_root,
  .memory_layer = session_memory_layer,
  .release = session_release,
};

char **
_runner_session_names (RunnerHost *host)
{
  size_t n = 0;
  char **names = xcalloc (1, sizeof *names);

  for (RunnerSession *s = host->sessions; s != NULL; s = s->next)
    if (!s->closing)
      {
        names = xrealloc (names, (n + 2) * sizeof *names);
        names[n++] = xstrdup (s->id);
        names[n] = NULL;
      }
  return names;
}
