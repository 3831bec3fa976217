/* runner-run.c: one run, from its private directory to its exited event. */
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner-run-private.h"
#include "runner-run.h"
#include "runner-error.h"
#include "runner-font-cache.h"
#include "runner-launch.h"
#include "runner-prelude.h"
#include "runner-prelude-cache.h"
#include "runner-tree.h"
#include "sp-utf8.h"

#define READ_CHUNK 65536
/* Output still arriving this long after the run's last process died comes
 * from nowhere we know of; stop waiting for it. */
#define DRAIN_GRACE_NS (500 * INT64_C (1000000))
/* Base64 bytes of images one exited event may carry (return_base64): well
 * under SP_PROTO_MAX_FRAME, leaving room for everything else in it. */
#define RUNNER_BASE64_BUDGET (2 * 1024 * 1024)
/* The exited event fits the frame by construction: every listed entry's
 * path and target are escaped and capped (JSON makes at most 6 bytes of
 * one shown byte), its name as hex (2 bytes a byte, none escaped) when
 * the path does not spell it, plus its fixed fields; then the inline images; then
 * the rest of the event (errors are short, ids at most 64 bytes).
 * runner_event_encode() repairs anything that would still not fit. */
#define RUNNER_ENTRY_JSON_MAX                                                                      \
  (6 * (RUNNER_FILES_MAX_SHOWN_PATH + 3) + 6 * (RUNNER_FILES_MAX_SHOWN_TARGET + 3)                 \
   + 2 * SP_FILE_MAX_NAME + 512)
/* The program's error: type, message, each frame's file and function,
 * capped strings escaped (6 bytes each at most), plus fixed fields. */
#define RUNNER_PROGRAM_ERROR_JSON_MAX                                                              \
  ((2 + 2 * SP_PROGRAM_ERROR_MAX_FRAMES) * 6 * (SP_PROGRAM_ERROR_MAX_TEXT + 3)                     \
   + 128 * (SP_PROGRAM_ERROR_MAX_FRAMES + 1))
_Static_assert(RUNNER_FILES_MAX_REPORT *RUNNER_ENTRY_JSON_MAX + RUNNER_BASE64_BUDGET
                   + RUNNER_PROGRAM_ERROR_JSON_MAX + 16384
                 <= SP_PROTO_MAX_FRAME,
               "the exited event must fit in one frame");
/* An output event holds what one read returned and at most a held partial
 * line (runner-lines.c), at most 6 bytes of JSON per byte (a control
 * character becomes \u00NN). */
_Static_assert((READ_CHUNK + 4 + RUNNER_LINE_HOLD_MAX) * 6 + 1024 <= SP_PROTO_MAX_FRAME,
               "an output event must fit in one frame");

/* What the run's watch (runner-run-watch.c) looks at, as the run holds it
 * now: its pid and pidfd change with each step, its report comes at the
 * end, its output files grow. */
static RunnerWatchTarget
watch_target (RunnerRun *run)
{
  return (RunnerWatchTarget){
    .host = run->host,
    .init_pid = run->init_pid,
    .pidfd = run->warm ? run->pidfd : -1,
    .network = run->req.network,
    .memory_limit = run->req.memory_mib * 1024 * 1024,
    .cwd_fd = run->cwd_fd,
    .dir = run->dir,
    .cgroup = &run->cgroup,
    .output_file_bytes = _runner_output_disk_bytes (&run->output),
    .maxrss_kib = run->report.maxrss_kib,
  };
}

static bool
watch_check_memory (RunnerRun *run, int64_t now, SpLimit *limit, char **why)
{
  RunnerWatchTarget t = watch_target (run);

  return _runner_watch_check_memory (&run->watch, &t, now, limit, why);
}

static bool
watch_check_disk (RunnerRun *run, int64_t now, SpLimit *limit)
{
  RunnerWatchTarget t = watch_target (run);

  return _runner_watch_check_disk (&run->watch, &t, now, limit);
}

static SpLimit
observed_limit (RunnerRun *run, int64_t tasks)
{
  RunnerWatchTarget t = watch_target (run);

  return _runner_watch_observed_limit (&run->watch, &t, tasks);
}

static int64_t
reported_peak (RunnerRun *run)
{
  RunnerWatchTarget t = watch_target (run);

  return _runner_watch_reported_peak (&run->watch, &t);
}

static bool
disk_over (RunnerRun *run)
{
  RunnerWatchTarget t = watch_target (run);

  return _runner_watch_disk_over (&run->watch, &t);
}

static void emit_failed (RunnerRun *run, const char *fmt, ...)
  __attribute__ ((format (printf, 2, 3)));
static void try_finish (RunnerRun *run);

static void
close_watched (RunnerRun *run, int *fd, RunnerWatch **watch)
{
  /* Unwatch before close: a just-forked run init may briefly share the fd,
   * and epoll would keep reporting it to a freed watch. */
  runner_loop_unwatch (run->host->loop, *watch);
  *watch = NULL;
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

/* A venv's scripts come first on PATH, as `activate` would put them;
 * node finds a workspace's packages through NODE_PATH (the snippet itself
 * lies elsewhere, so node's walk up from it would not). */
static size_t
add_environment_vars (RunnerRun *run, char **env, size_t n)
{
  if (run->env.dir == NULL)
    return n;
  if (run->env.kind == RUNNER_ENV_PYTHON_VENV)
    {
      for (size_t i = 0; i < n; i++)
        if (strncmp (env[i], "PATH=", 5) == 0)
          {
            char *path = env[i];
            env[i] = xasprintf ("PATH=%s/bin:%s", run->env.dir, path + 5);
            free (path);
          }
      env[n++] = xasprintf ("VIRTUAL_ENV=%s", run->env.dir);
    }
  else
    env[n++] = xasprintf ("NODE_PATH=%s", run->env.dir);
  return n;
}

/* "-I" after the interpreter: nothing of the environment (PYTHON*
 * variables, the user's site, the script's directory) shapes sys.path, so
 * a .pth file or module an earlier install put in a venv cannot run in a
 * step that has the network (an install's download). */
static char **
add_isolated_flag (char **argv)
{
  size_t n = sp_strv_length (argv);

  argv = xrealloc (argv, (n + 2) * sizeof *argv);
  memmove (argv + 2, argv + 1, n * sizeof *argv); /* with the NULL */
  argv[1] = xstrdup ("-I");
  return argv;
}

/* The environment is fixed; only what the request names is added. Nothing
 * of the runner's own environment reaches the program. */
char **
_runner_run_build_env (RunnerRun *run)
{
  size_t n_extra = sp_strv_length (run->req.env);
  char **env = xcalloc (n_extra + 22, sizeof *env);
  cleanup_free char *tmp = xasprintf ("%s/tmp", run->dir);
  cleanup_free char *code_dir = xasprintf ("%s/code", run->dir);
  bool is_python = strcmp (run->lang->name, "python") == 0;
  size_t n = 0;

  /* The prelude's files: the runner's shared ones, or the run's own. */
  const char *prelude = run->shared_prelude ? "/prelude" : "";

  env[n++] = xasprintf ("PATH=%s/.sandpad%s/bin:/usr/local/bin:/usr/bin:/bin",
                        run->host->namespaces ? RUNNER_SANDBOX_CODE : code_dir, prelude);
  if (run->host->namespaces)
    {
      env[n++] = xstrdup ("HOME=" RUNNER_SANDBOX_WORK);
      env[n++] = xstrdup ("TMPDIR=/tmp");
    }
  else
    {
      env[n++] = xasprintf ("HOME=%s", run->cwd);
      env[n++] = xasprintf ("TMPDIR=%s", tmp);
    }
  env[n++] = xstrdup ("LANG=C.UTF-8");
  env[n++] = xstrdup ("TERM=dumb");
  env[n++] = xstrdup ("PYTHONUNBUFFERED=1");
  env[n++] = xstrdup ("PYTHONDONTWRITEBYTECODE=1");
  env[n++] = xstrdup ("PYTHONUTF8=1");
  /* Plots render to files, never to a display the run cannot reach. */
  env[n++] = xstrdup ("MPLBACKEND=Agg");
  if (is_python)
    {
      /* The prelude first; a PYTHONPATH the request names follows it. */
      const char *theirs = NULL;
      for (size_t i = 0; i < n_extra; i++)
        if (strncmp (run->req.env[i], "PYTHONPATH=", 11) == 0)
          theirs = run->req.env[i] + 11;
      env[n++] = xasprintf ("PYTHONPATH=%s/.sandpad%s%s%s",
                            run->host->namespaces ? RUNNER_SANDBOX_CODE : code_dir, prelude,
                            theirs && theirs[0] ? ":" : "", theirs ? theirs : "");
    }
  /* Caches go to the run's /tmp, not among its results. */
  env[n++] = xasprintf ("XDG_CACHE_HOME=%s/.cache", run->host->namespaces ? "/tmp" : tmp);
  /* The font list's build run leaves its list where the runner can take
   * it after the run: its work directory (namespace mode's /tmp is a
   * tmpfs that ends with the run). */
  if (run->font_build)
    env[n++] = xasprintf ("MPLCONFIGDIR=%s/.matplotlib",
                          run->host->namespaces ? RUNNER_SANDBOX_WORK : run->cwd);
  else
    env[n++] = xasprintf ("MPLCONFIGDIR=%s/.matplotlib", run->host->namespaces ? "/tmp" : tmp);
  env[n++] = xstrdup ("SANDPAD=1");
  /* How the program shows a rich result (runner-display.h). */
  env[n++] = xasprintf ("SANDPAD_DISPLAY_TOKEN=%s", _runner_output_token (&run->output));
  n = add_environment_vars (run, env, n);
  for (size_t i = 0; i < n_extra; i++)
    {
      size_t name_len = strcspn (run->req.env[i], "=") + 1;

      /* The runner's own: another would only turn displays into text. */
      if (strncmp (run->req.env[i], "SANDPAD_DISPLAY_TOKEN=", 22) == 0)
        continue;

      /* Already merged behind the prelude's directory. */
      if (is_python && strncmp (run->req.env[i], "PYTHONPATH=", 11) == 0)
        continue;
      /* A request's value replaces a fixed one of the same name. */
      for (size_t j = 0; j < n; j++)
        if (strncmp (env[j], run->req.env[i], name_len) == 0)
          {
            free (env[j]);
            env[j] = env[--n];
            break;
          }
      env[n++] = xstrdup (run->req.env[i]);
    }
  env[n] = NULL;
  return env;
}

/* As root, everything the run may touch belongs to nobody, the uid the
 * program runs as; a desktop runner and its runs share the user's uid. */
static int
make_dirs (RunnerRun *run)
{
  /* code: the snippet (read-only to the run); tmp: its TMPDIR without
   * namespaces; work: its working directory unless the request named
   * one; root: where the private root is mounted in namespace mode. Each
   * only where it is used: a new inode costs every run's start, and on an
   * ext4 without a journal it scans past the inodes of the runs before
   * (bench/README.md, daemon.sh). */
  static const char *const subdirs[] = { "code", "tmp", "work", "root" };
  bool namespaces = run->host->namespaces;

  run->dir = xasprintf ("%s/run-%llu", run->host->root, (unsigned long long) run->seq);
  if (mkdir (run->dir, 0700) != 0 || _runner_give_to_run (run->dir) != 0)
    return -1;
  for (size_t i = 0; i < N_ELEMENTS (subdirs); i++)
    {
      cleanup_free char *sub = xasprintf ("%s/%s", run->dir, subdirs[i]);
      if ((strcmp (subdirs[i], "work") == 0 && run->req.cwd != NULL)
          || (strcmp (subdirs[i], "tmp") == 0 && namespaces)
          || (strcmp (subdirs[i], "root") == 0 && !namespaces))
        continue;
      if (mkdir (sub, 0700) != 0 || _runner_give_to_run (sub) != 0)
        return -1;
    }
  run->cwd = run->req.cwd ? xstrdup (run->req.cwd) : xasprintf ("%s/work", run->dir);
  return 0;
}

/* The cwd passed the policy when the request came; a queued run may have
 * waited since, and a directory on the way may have been swapped for a
 * symlink by another run. */
int
_runner_run_recheck_cwd (RunnerRun *run)
{
  SpProtoError err = { 0 };
  char *canonical = NULL;

  if (_runner_host_check_cwd (run->host, run->req.cwd, &canonical, &run->cwd_fd, &err) != 0
      || strcmp (canonical, run->req.cwd) != 0)
    {
      free (canonical);
      emit_failed (run, "the working directory changed while the run waited: %s",
                   err.message[0] ? err.message : "it resolves elsewhere now");
      return -1;
    }
  free (canonical);
  return 0;
}

int
_runner_run_disk_base (RunnerRun *run)
{
  /* What a named directory holds already is not the run's; but the cap
   * can only be kept if that much can be measured each time. */
  RunnerUsage base;

  runner_files_usage (run->cwd_fd, run->host->config.disk_files, &base);
  if (!base.complete)
    {
      emit_failed (run,
                   "the working directory holds more than %lld entries or is deeper than "
                   "%d levels, or cannot be read in full; its disk use cannot be measured",
                   (long long) run->host->config.disk_files, RUNNER_FILES_USAGE_MAX_DEPTH);
      return -1;
    }
  _runner_watch_set_disk_base (&run->watch, base.bytes, base.entries);
  return 0;
}

/* The directory the program starts in, beneath the held cwd: looked up
 * beneath that fd, no symlink, no "..", no other mount (its name was
 * resolved when the request came; a symlink found now was put there since).
 * The program's chdir goes by name inside what the run was given (the
 * cwd's fd, bound or granted to Landlock), so a later swap can move it
 * within that, never out of it. */
static int
check_cwd_sub (RunnerRun *run)
{
  struct open_how how = {
    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
  };
  int fd = (int) syscall (SYS_openat2, run->cwd_fd, run->cwd_sub, &how, sizeof how);

  if (fd < 0)
    {
      emit_failed (run, "the working directory %s/%s changed while the run waited: %s", run->cwd,
                   run->cwd_sub, strerror (errno));
      return -1;
    }
  close (fd);
  return 0;
}

/* The input files a front end gave the run, into its held working
 * directory as it starts (a session's may hold anything its code left
 * there: runner-input-files.c writes nothing through a symlink, nor over
 * what is not plainly the program's file). */
int
_runner_run_write_input (RunnerRun *run)
{
  SpProtoError err = { 0 };

  if (run->n_input == 0)
    return 0;
  if (runner_input_files_write (run->cwd_fd, run->input, run->n_input, _runner_host_run_uid (),
                                &err)
      != 0)
    {
      _runner_run_fail (run, err.message);
      return -1;
    }
  return 0;
}

/* Holds the run's working directory as an fd, unless the check already
 * does (a named cwd): the runner's own (private, or an install step's,
 * which the runner made) is opened without following any symlink. */
int
_runner_run_hold_cwd (RunnerRun *run)
{
  struct stat st;

  if (run->cwd_fd < 0)
    run->cwd_fd = open_no_symlinks (run->cwd, O_PATH | O_DIRECTORY);
  if (run->cwd_fd < 0 || fstat (run->cwd_fd, &st) != 0)
    return -1;
  run->cwd_dev = st.st_dev;
  run->cwd_ino = st.st_ino;
  _runner_output_set_dir (&run->output, run->cwd_fd);
  return 0;
}

/* One of the run's private directories (tmp), for a walk. */
static int
open_subdir (RunnerRun *run, const char *name)
{
  cleanup_free char *path = xasprintf ("%s/%s", run->dir, name);

  return open_no_symlinks (path, O_PATH | O_DIRECTORY);
}

/* The prelude's files into dir: bin/python (every run has `python` on its
 * PATH), and for Python sitecustomize.py with its .pyc, compiled when the
 * runner was built (Python checks it against the source and compiles the
 * source when it does not match). */
static int
write_prelude_files (const char *dir, bool python)
{
  cleanup_free char *path = xasprintf ("%s/sitecustomize.py", dir);
  cleanup_fd int fd = -1;

  if (runner_langs_write_python_alias (dir) != 0)
    return -1;
  if (!python)
    return 0;
  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
  if (fd < 0 || write_all (fd, runner_python_prelude, strlen (runner_python_prelude)) != 0)
    return -1;
  return runner_prelude_write_cache (dir);
}

/* Namespace mode: root/prelude, written by the first run that needs it,
 * the same for every run after (the prelude is compiled into the runner). */
static const char *
shared_prelude_dir (RunnerHost *host)
{
  if (host->prelude_dir != NULL)
    return host->prelude_dir;
  cleanup_free char *dir = xasprintf ("%s/prelude", host->root);
  if (mkdir (dir, 0755) != 0 || write_prelude_files (dir, true) != 0)
    {
      int errsv = errno;
      remove_tree (dir); /* the next run tries again */
      errno = errsv;
      return NULL;
    }
  return host->prelude_dir = steal_pointer (&dir);
}

/* Every run gets code/.sandpad (run.json of a warm run, the font list
 * beside the prelude) with the prelude's files in it. In namespace mode
 * those are the runner's, made once and bound read-only over
 * code/.sandpad/prelude (runner-mounts.c), so a run neither pays for
 * making them (inodes are what a run directory costs most) nor can
 * change them for a later run: the bind is read-only whoever owns the
 * files. Fallback mode writes a copy per run: a run there may be the
 * runner's own uid, and Landlock governs no chmod, so a shared file
 * would be its to chmod for the next run. */
static int
write_prelude (RunnerRun *run)
{
  cleanup_free char *dir = xasprintf ("%s/code/.sandpad", run->dir);
  bool python = strcmp (run->lang->name, "python") == 0;

  if (mkdir (dir, 0755) != 0 || _runner_give_to_run (dir) != 0)
    return -1;
  if (run->host->namespaces)
    {
      cleanup_free char *mount_point = xasprintf ("%s/prelude", dir);
      if (shared_prelude_dir (run->host) == NULL || mkdir (mount_point, 0755) != 0)
        return -1;
      run->shared_prelude = true;
      return 0;
    }
  return write_prelude_files (dir, python);
}

/* A Python run of the system's interpreter starts with matplotlib's font
 * list already in its MPLCONFIGDIR, a copy of the runner's
 * (runner-font-cache.h); without one, the engine is asked to build it
 * for the next runs, and this run builds its own as before. */
static int
write_font_list (RunnerRun *run)
{
  RunnerHost *host = run->host;
  char key[65];

  if (strcmp (run->lang->name, "python") != 0 || run->env.dir != NULL
      || run->isolated_python != NULL || run->font_build
      || !runner_compile_cache_ready (&host->compile_cache))
    return 0;
  /* Beside the prelude, read-only: the prelude copies it into the run's
   * MPLCONFIGDIR, which in namespace mode is on the run's own tmpfs. */
  cleanup_free char *dir = xasprintf ("%s/code/.sandpad", run->dir);
  _runner_host_font_key (host, run->lang, key);
  cleanup_fd int dir_fd = open_no_symlinks (dir, O_RDONLY | O_DIRECTORY);
  if (dir_fd < 0)
    return -1;
  if (runner_font_cache_fetch (&host->compile_cache, &host->font_memo, key, dir_fd) != 0)
    _runner_host_font_build (host, key);
  return 0;
}

/* The build run has ended: its list, if it made one, is kept. */
static void
harvest_fonts (RunnerRun *run)
{
  const RunnerReport *r = &run->report;

  if (!run->have_report || r->kind != RUNNER_REPORT_EXITED || !WIFEXITED (r->wait_status)
      || WEXITSTATUS (r->wait_status) != 0 || run->dir == NULL)
    return;
  /* The run's tmp was the sandbox's to change: each step is opened
   * without following a symlink. */
  cleanup_fd int dir_fd = open_no_symlinks (run->dir, O_RDONLY | O_DIRECTORY);
  cleanup_fd int work_fd
    = dir_fd < 0 ? -1 : openat (dir_fd, "work", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_fd int mpl_fd = work_fd < 0 ? -1
                                      : openat (work_fd, ".matplotlib",
                                                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (mpl_fd >= 0)
    runner_font_cache_harvest (&run->host->compile_cache, run->font_build_key, mpl_fd);
}

static int
write_code (RunnerRun *run)
{
  const char *name = run->req.name ? run->req.name : run->lang->default_file;
  size_t len = strlen (run->req.code);

  cleanup_free char *host_path = xasprintf ("%s/code/%s", run->dir, name);
  cleanup_fd int fd = open (host_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
  if (fd < 0 || write_all (fd, run->req.code, len) != 0 || _runner_give_to_run (host_path) != 0)
    return -1;
  /* The interpreter sees the snippet where the sandbox puts it. */
  run->code_path = run->host->namespaces ? xasprintf (RUNNER_SANDBOX_CODE "/%s", name)
                                         : steal_pointer (&host_path);
  return 0;
}

static void on_stream (void *data, int fd, uint32_t events);
static void on_status (void *data, int fd, uint32_t events);
static void on_stdin (void *data, int fd, uint32_t events);

static void
emit_phase (RunnerRun *run, SpPhaseKind phase, int64_t timeout_ms)
{
  SpMessage msg = { .type = SP_MSG_PHASE };

  msg.u.phase.id = run->req.id;
  msg.u.phase.phase = phase;
  msg.u.phase.timeout_ms = timeout_ms;
  msg.u.phase.t_ms = _runner_host_clock_ms (run->host);
  _runner_host_emit (run->host, &msg);
}

static void
emit_started (RunnerRun *run)
{
  SpMessage msg = { .type = SP_MSG_STARTED };
  SpStarted *ev = &msg.u.started;

  /* Where the program starts: beneath the directory given whole. */
  cleanup_free char *cwd = run->cwd_sub ? xasprintf ("%s/%s", run->cwd, run->cwd_sub) : NULL;
  ev->id = run->req.id;
  ev->cwd = cwd != NULL ? cwd : run->cwd;
  ev->t_ms = _runner_host_clock_ms (run->host);
  ev->timeout_ms = run->req.timeout_ms;
  ev->memory_mib = run->req.memory_mib;
  ev->output_limit = run->req.output_limit;
  ev->network = run->req.network;
  ev->environment = run->env.dir;
  ev->session = run->req.session;
  ev->session_new = run->session_new;
  ev->execution_count = run->session_count;
  ev->warm = run->warm;
  _runner_host_sandbox_info (run->host, run->req.network, run->launcher->memory_layer (run),
                             &ev->sandbox);
  if (run->work_at_host_path)
    {
      /* After "private-root": the working directory is also at its own
       * host path in it. */
      size_t n = sp_strv_length (ev->sandbox.layers);
      ev->sandbox.layers = xrealloc (ev->sandbox.layers, (n + 2) * sizeof *ev->sandbox.layers);
      memmove (ev->sandbox.layers + 3, ev->sandbox.layers + 2,
               (n - 1) * sizeof *ev->sandbox.layers);
      ev->sandbox.layers[2] = xstrdup ("host-path");
    }
  _runner_host_emit (run->host, &msg);
  sp_sandbox_info_clear (&ev->sandbox);
}

/* epoll refused to watch the run's pipes (ENOMEM, ENOSPC): the run
 * cannot be served, the runner can. Closing the control pipe makes init
 * kill the tree and exit; its exit, reaped as usual, ends the run with
 * end "failed". */
static void
abandon (RunnerRun *run, int errsv)
{
  run->failure = xasprintf ("cannot watch the run's pipes: %s", strerror (errsv));
  for (int s = 0; s < 2; s++)
    {
      close_watched (run, &run->streams[s].fd, &run->streams[s].watch);
      run->streams[s].eof = true;
    }
  close_watched (run, &run->status_fd, &run->status_watch);
  close_watched (run, &run->stdin_fd, &run->stdin_watch);
  if (run->control_fd >= 0)
    close (run->control_fd);
  run->control_fd = -1;
}

int
_runner_run_start (RunnerRun *run)
{
  RunnerHost *host = run->host;

  run->state = RUN_RUNNING;
  if (host->refusal == NULL && host->config.strict
      && _runner_host_seccomp (host, run->req.network) == NULL)
    host->refusal = xstrdup ("the seccomp filter could not be built (strict)");
  if (host->refusal != NULL)
    {
      emit_failed (run, "%s", host->refusal);
      return -1;
    }
  return run->launcher->start (run);
}

/* A compiled language's build directory and cache (runner-compile.c),
 * from what the run holds: the engine's entries for the language and its
 * runtime (the version probe fills them in), and whether the compile
 * step sees the code alone. Its view is confined only by the namespaces
 * or Landlock: fallback mode without Landlock lets it read any file of
 * its uid, so nothing is cached there. */
static int
prepare_compile (RunnerRun *run)
{
  RunnerHost *host = run->host;
  RunnerLanguage *lang = runner_langs_find (host->langs, run->lang->name);
  const char *runtime = lang->compiler->runtime;
  RunnerCompileInput in = {
    .lang = lang,
    .runtime = runtime != NULL ? runner_langs_find (host->langs, runtime) : NULL,
    .cache = &host->compile_cache,
    .dir = run->dir,
    .name = run->req.name,
    .code = run->req.code,
    .code_path = run->code_path,
    .args = run->req.args,
    .namespaces = host->namespaces,
    .network = run->req.network,
    .code_alone = run->req.cwd == NULL && run->n_input == 0
                  && (host->namespaces || host->caps.landlock_abi > 0),
  };

  return _runner_compile_prepare (&run->compile, &in);
}

int
_runner_run_start_own (RunnerRun *run)
{
  if (run->req.cwd != NULL && !run->cwd_trusted && _runner_run_recheck_cwd (run) != 0)
    return -1;
  if (run->cwd_sub != NULL && check_cwd_sub (run) != 0)
    return -1;
  if (make_dirs (run) != 0 || _runner_run_hold_cwd (run) != 0 || write_code (run) != 0
      || write_prelude (run) != 0 || write_font_list (run) != 0
      || (run->lang->compiler != NULL && prepare_compile (run) != 0))
    {
      emit_failed (run, "cannot prepare the run's directory: %s", strerror (errno));
      return -1;
    }
  if (_runner_run_write_input (run) != 0)
    return -1;
  if (run->req.cwd == NULL && run->n_input > 0)
    runner_files_snapshot (run->cwd_fd, &run->before);
  else if (run->req.cwd != NULL)
    {
      runner_files_snapshot (run->cwd_fd, &run->before);
      if (_runner_run_disk_base (run) != 0)
        return -1;
    }
  return _runner_run_spawn_step (run);
}

/* Starts the run's step in its sandbox: the program, or for a compiled
 * language the compile step, then (runner-compile.c) the program. */
int
_runner_run_spawn_step (RunnerRun *run)
{
  int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
  int ctl[2] = { -1, -1 }, status[2] = { -1, -1 };

  /* The compile step's stdin: never read, what the request sends waits
   * in stdin_buf for the program. */
  close_watched (run, &run->stdin_fd, &run->stdin_watch);
  if (pipe2 (in, O_CLOEXEC) != 0 || pipe2 (out, O_CLOEXEC) != 0 || pipe2 (err, O_CLOEXEC) != 0
      || pipe2 (ctl, O_CLOEXEC) != 0 || pipe2 (status, O_CLOEXEC) != 0)
    {
      int errsv = errno;
      int *all[] = { in, out, err, ctl, status };
      for (size_t i = 0; i < N_ELEMENTS (all); i++)
        for (int j = 0; j < 2; j++)
          if (all[i][j] >= 0)
            close (all[i][j]);
      emit_failed (run, "cannot create pipes: %s", strerror (errsv));
      return -1;
    }

  /* A venv's interpreter by the venv's path, so Python finds pyvenv.cfg
   * beside it and takes the venv's prefix. */
  RunnerLanguage lang = *run->lang;
  if (run->env.python != NULL && strcmp (run->lang->name, "python") == 0)
    lang.path = run->env.python;
  if (run->isolated_python != NULL)
    lang.path = run->isolated_python;
  char **argv = NULL;
  if (run->lang->compiler != NULL)
    argv = _runner_compile_step_argv (&run->compile, (const char **) &lang.path);
  else
    argv = runner_lang_argv (&lang, run->code_path, run->req.args, run->req.memory_mib,
                             run->isolated_python == NULL);
  if (argv == NULL)
    {
      int *all[] = { in, out, err, ctl, status };
      for (size_t i = 0; i < N_ELEMENTS (all); i++)
        for (int j = 0; j < 2; j++)
          close (all[i][j]);
      emit_failed (run, "language \"%s\" needs %s to run, which is not installed", run->lang->name,
                   run->lang->compiler->runtime);
      return -1;
    }
  if (run->isolated_python != NULL)
    argv = add_isolated_flag (argv);
  /* A compile step gets a fixed environment, never the request's
   * (runner-compile.c): the program is decided by its code alone. */
  char **envp = _runner_compile_running (&run->compile) ? _runner_compile_env (&run->compile)
                                                        : _runner_run_build_env (run);
  RunnerLaunch launch;
  _runner_launch_build (run, RUNNER_LAUNCH_STEP, lang.path, argv, envp, &launch);
  RunnerSpawnSpec *spec = &launch.spec;
  spec->stdin_fd = in[0];
  spec->stdout_fd = out[1];
  spec->stderr_fd = err[1];
  spec->control_fd = ctl[0];
  spec->status_fd = status[1];
  run->work_at_host_path = launch.plan.work_at_host_path;

  run->t_start_ns = now_ns ();
  /* The warm pool when it can serve the run, else cold (the warm
   * launcher hands the run to the cold one). */
  int rc = run->launcher->spawn (run, &launch);
  int errsv = errno;
  _runner_launch_clear (&launch);
  close (in[0]);
  close (out[1]);
  close (err[1]);
  close (ctl[0]);
  close (status[1]);
  run->stdin_fd = in[1];
  run->streams[SP_STREAM_STDOUT].fd = out[0];
  run->streams[SP_STREAM_STDERR].fd = err[0];
  run->control_fd = ctl[1];
  run->status_fd = status[0];
  if (run->warm && run->pidfd_watch == NULL)
    _runner_run_send_control (run, RUNNER_CTL_KILL);

  if (rc != 0)
    {
      emit_failed (run, "cannot fork: %s", strerror (errsv));
      return -1;
    }
  _runner_watch_set_diag (&run->watch, !runner_cgroup_has_memory (&run->cgroup));
  return _runner_run_attach (run);
}

int
_runner_run_attach (RunnerRun *run)
{
  RunnerHost *host = run->host;

  for (int s = 0; s < 2; s++)
    {
      set_nonblocking (run->streams[s].fd, true);
      run->streams[s].watch = runner_loop_watch (host->loop, run->streams[s].fd,
                                                 host->throttled ? 0 : EPOLLIN, on_stream, run);
    }
  /* A session's run has no run init of its own: the session watches it. */
  if (run->status_fd >= 0)
    {
      set_nonblocking (run->status_fd, true);
      run->status_watch = runner_loop_watch (host->loop, run->status_fd, EPOLLIN, on_status, run);
    }
  set_nonblocking (run->stdin_fd, true);
  run->stdin_watch = runner_loop_watch (host->loop, run->stdin_fd, 0, on_stdin, run);
  if (run->streams[0].watch == NULL || run->streams[1].watch == NULL
      || (run->status_fd >= 0 && run->status_watch == NULL) || run->stdin_watch == NULL)
    {
      abandon (run, errno);
      return 0;
    }

  /* Once a run: a compiled language's program step keeps what came in
   * while it compiled. */
  if (!run->started_sent)
    {
      if (run->req.stdin_data != NULL)
        buf_append (&run->stdin_buf, run->req.stdin_data, strlen (run->req.stdin_data));
      run->stdin_close = !run->req.stdin_open;
    }
  run->deadline_ns = run->t_start_ns
                     + (_runner_compile_running (&run->compile) ? host->config.compile_timeout_ms
                                                                : run->req.timeout_ms)
                         * INT64_C (1000000);
  /* A session's tree is watched by the session, across its runs. */
  _runner_watch_start (&run->watch, run->t_start_ns, run->session == NULL);
  _runner_input_wait_start (&run->input_wait, run->t_start_ns);

  /* A compiled language's steps, each with its own limit, said as they
   * start: a client shows "Compiling…" against the compile step's limit
   * rather than the run's, then the program's time from its own start.
   * The compile step's comes just before started, so a client never
   * reads the run as the program's until it is. A program from the cache
   * has only its program step: nothing is said. */
  bool program_after_compile = _runner_compile_program_follows (&run->compile, run->started_sent);
  if (_runner_compile_running (&run->compile))
    emit_phase (run, SP_PHASE_COMPILE, host->config.compile_timeout_ms);
  if (!run->started_sent)
    emit_started (run);
  run->started_sent = true;
  if (program_after_compile)
    emit_phase (run, SP_PHASE_RUN, run->req.timeout_ms);
  _runner_run_feed_stdin (run);
  return 0;
}

void
_runner_run_send_control (RunnerRun *run, char cmd)
{
  run->launcher->control (run, cmd);
}

/* input_wait: the program waits on its stdin, or has stopped waiting. A
 * prompt is a partial line the output may still hold back to make whole
 * lines (and past the output limit, in the end held back): it goes
 * before the wait it asks for. */
static void
emit_input_wait (RunnerRun *run, bool waiting, int64_t now)
{
  SpMessage msg = { .type = SP_MSG_INPUT_WAIT };

  if (waiting)
    _runner_output_flush_all (&run->output, false);
  msg.u.input_wait.id = run->req.id;
  msg.u.input_wait.waiting = waiting;
  msg.u.input_wait.t_ms = _runner_host_clock_ms (run->host);
  _runner_input_wait_set (&run->input_wait, waiting, now);
  _runner_host_emit (run->host, &msg);
}

/* Looks for a wait on stdin when due (runner-input-wait.c), says a change,
 * and stops a run waiting past the idle cap. */
static void
check_input (RunnerRun *run, int64_t now)
{
  switch (_runner_input_wait_due (&run->input_wait, now, run->host->config.input_idle_ms,
                                  &run->deadline_ns))
    {
    case RUNNER_INPUT_NOT_YET:
      return;
    case RUNNER_INPUT_IDLE:
      if (run->limit == SP_LIMIT_NONE)
        run->limit = SP_LIMIT_INPUT_IDLE;
      /* A session's input() is interrupted first, as at its time limit,
       * so what the session holds may be kept. */
      run->launcher->deadline (run);
      return;
    case RUNNER_INPUT_LOOK:
      break;
    }
  /* With its stdin closed or input still to deliver, a read returns at
   * once: not a wait. Nor once the run is being stopped. */
  bool waiting = run->stdin_buf.len == 0 && run->cancel_stage == SP_CANCEL_NONE
                 && run->limit == SP_LIMIT_NONE
                 && _runner_input_wait_look (run->launcher->tree_root (run),
                                             run->host->namespaces ? 2 : 1, run->stdin_fd);
  if (waiting != _runner_input_waiting (&run->input_wait))
    emit_input_wait (run, waiting, now);
}

void
_runner_run_feed_stdin (RunnerRun *run)
{
  if (_runner_compile_running (&run->compile))
    return;
  while (run->stdin_fd >= 0 && run->stdin_buf.len > 0)
    {
      ssize_t n = write (run->stdin_fd, run->stdin_buf.data, run->stdin_buf.len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        break;
      if (n < 0)
        {
          /* EPIPE: the program closed its stdin; what is left is moot. */
          buf_clear (&run->stdin_buf);
          close_watched (run, &run->stdin_fd, &run->stdin_watch);
          return;
        }
      buf_consume (&run->stdin_buf, (size_t) n);
      if (_runner_input_waiting (&run->input_wait))
        emit_input_wait (run, false, now_ns ());
    }
  if (run->stdin_fd < 0)
    return;
  if (run->stdin_buf.len == 0 && run->stdin_close)
    close_watched (run, &run->stdin_fd, &run->stdin_watch);
  else
    runner_loop_set_events (run->host->loop, run->stdin_watch,
                            run->stdin_buf.len > 0 ? EPOLLOUT : 0);
}

static void
on_stdin (void *data, int fd, uint32_t events)
{
  RunnerRun *run = data;

  if (events & EPOLLERR)
    {
      buf_clear (&run->stdin_buf);
      close_watched (run, &run->stdin_fd, &run->stdin_watch);
      return;
    }
  _runner_run_feed_stdin (run);
}

/* The last RUNNER_ERROR_TAIL bytes of stderr, where an interpreter puts
 * the traceback exited's program_error is read from; bounded whatever
 * the program writes (trimmed once it holds twice that). */
static void
keep_stderr_tail (RunnerRun *run, const char *bytes, size_t len)
{
  Buf *tail = &run->stderr_tail;

  if (len > RUNNER_ERROR_TAIL)
    {
      bytes += len - RUNNER_ERROR_TAIL;
      len = RUNNER_ERROR_TAIL;
    }
  buf_append (tail, bytes, len);
  if (tail->len > 2 * RUNNER_ERROR_TAIL)
    {
      memmove (tail->data, tail->data + tail->len - RUNNER_ERROR_TAIL, RUNNER_ERROR_TAIL);
      tail->len = RUNNER_ERROR_TAIL;
    }
}

/* A program that failed (non-zero exit or a signal) gets the error its
 * stderr names, read as valid UTF-8 (the tail may start mid-character). */
static void
read_program_error (RunnerRun *run, SpExited *ev)
{
  Buf *tail = &run->stderr_tail;
  size_t start = tail->len > RUNNER_ERROR_TAIL ? tail->len - RUNNER_ERROR_TAIL : 0;
  size_t consumed = 0, out_len = 0;

  if (!(ev->end == SP_END_SIGNALED || (ev->end == SP_END_EXITED && ev->exit_code != 0))
      || tail->len == 0)
    return;
  char *text = sp_utf8_sanitize (tail->data + start, tail->len - start, true, &consumed, &out_len);
  if (text == NULL)
    return;
  ev->program_error = runner_error_parse (run->lang->name, text,
                                          run->req.name ? run->req.name : run->lang->default_file);
  free (text);
}

static void
handle_output (RunnerRun *run, SpStream s, const char *bytes, size_t len)
{
  if (s == SP_STREAM_STDERR)
    keep_stderr_tail (run, bytes, len);
  _runner_output_take (&run->output, s, bytes, len);
}

static void
on_stream (void *data, int fd, uint32_t events)
{
  RunnerRun *run = data;
  SpStream s = fd == run->streams[SP_STREAM_STDOUT].fd ? SP_STREAM_STDOUT : SP_STREAM_STDERR;
  RunPipe *stream = &run->streams[s];
  char buf[READ_CHUNK];
  ssize_t n = read (fd, buf, sizeof buf);

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n > 0)
    {
      handle_output (run, s, buf, (size_t) n);
      return;
    }
  /* EOF (or an error, treated alike): what the output held back goes. */
  _runner_output_end (&run->output, s);
  stream->eof = true;
  close_watched (run, &stream->fd, &stream->watch);
  try_finish (run);
}

static void
on_status (void *data, int fd, uint32_t events)
{
  RunnerRun *run = data;
  RunnerReport report;
  ssize_t n = read (fd, &report, sizeof report);

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n == (ssize_t) sizeof report && !run->have_report)
    {
      run->report = report;
      run->have_report = true;
      return;
    }
  close_watched (run, &run->status_fd, &run->status_watch);
  try_finish (run);
}

void
_runner_run_on_init_exit (RunnerRun *run)
{
  run->init_reaped = true;
  _runner_watch_stop (&run->watch);
  run->drain_deadline_ns = now_ns () + DRAIN_GRACE_NS;
  try_finish (run);
}

void
_runner_run_set_throttled (RunnerRun *run, bool throttled)
{
  for (int s = 0; s < 2; s++)
    if (run->streams[s].watch != NULL)
      runner_loop_set_events (run->host->loop, run->streams[s].watch, throttled ? 0 : EPOLLIN);
}

/* The watch found the run over a limit (or could not watch it): the
 * first limit named stays, and so does the first failure. */
static void
stop_at (RunnerRun *run, SpLimit limit, char **failure)
{
  if (limit != SP_LIMIT_NONE && run->limit == SP_LIMIT_NONE)
    run->limit = limit;
  if (failure != NULL && *failure != NULL && run->failure == NULL)
    {
      run->failure = *failure;
      *failure = NULL;
    }
  _runner_run_send_control (run, RUNNER_CTL_KILL);
}

void
_runner_run_check_timers (RunnerRun *run, int64_t now)
{
  if (run->state != RUN_RUNNING)
    return;
  check_input (run, now);
  if (run->deadline_ns > 0 && now >= run->deadline_ns)
    {
      run->deadline_ns = 0;
      if (run->limit == SP_LIMIT_NONE)
        run->limit = SP_LIMIT_TIME;
      /* Killed; a session's is interrupted first: its state may be
       * worth keeping. */
      run->launcher->deadline (run);
    }
  SpLimit limit;
  cleanup_free char *why = NULL;
  if (watch_check_memory (run, now, &limit, &why))
    stop_at (run, limit, &why);
  if (run->cancel_next_ns > 0 && now >= run->cancel_next_ns)
    {
      run->cancel_stage++;
      _runner_run_send_control (run, run->cancel_stage == SP_CANCEL_TERMINATE ? RUNNER_CTL_TERMINATE
                                                                              : RUNNER_CTL_KILL);
      run->cancel_next_ns = run->cancel_stage < SP_CANCEL_KILL
                              ? now + run->host->config.cancel_grace_ms * INT64_C (1000000)
                              : 0;
    }
  if (watch_check_disk (run, now, &limit))
    stop_at (run, limit, NULL);
  _runner_output_check (&run->output, now);
  if (run->drain_deadline_ns > 0 && now >= run->drain_deadline_ns)
    {
      for (int s = 0; s < 2; s++)
        if (!run->streams[s].eof)
          {
            run->streams[s].eof = true;
            close_watched (run, &run->streams[s].fd, &run->streams[s].watch);
          }
      try_finish (run);
    }
}

/* The run's end: the engine's books first (its slot, its session), then
 * exited, then the queue. The sink may release the run while it handles
 * exited (the resident runner does when the run's client is gone), so
 * nothing touches run after the emit. */
static void
finish_and_emit (RunnerRun *run, SpMessage *msg)
{
  RunnerHost *host = run->host;

  run->state = RUN_FINISHED;
  if (run->font_build)
    harvest_fonts (run);
  _runner_host_run_finished (host, run);
  _runner_host_emit (host, msg);
  sp_message_clear (msg);
  _runner_host_start_queued (host);
}

/* Which rlimit a program that failed on its own ran into. The kernel only
 * refuses the allocation, fork or write; the program then ends with an
 * error of its own, and what it prints proves nothing (any program can
 * print "MemoryError"). So a limit is named only when the runner's own
 * numbers show the run reached it: its memory, the processes it had at
 * once (sampled, or still alive when the program ended), the bytes it
 * left in its writable space (EFBIG leaves a file at RLIMIT_FSIZE). */
static SpLimit
observed_rlimit (RunnerRun *run, int wait_status)
{
  int64_t tasks = run->report.swept + 1;

  /* The kernel's OOM killer acted in the run's memory cgroup: whatever
   * filled it (kernel buffers included), the limit was reached, even if
   * what it killed was a child the program then did without. */
  if (runner_cgroup_oom_killed (&run->cgroup))
    return SP_LIMIT_MEMORY;
  if (WIFEXITED (wait_status) && WEXITSTATUS (wait_status) == 0)
    return SP_LIMIT_NONE;
  return observed_limit (run, tasks);
}

static void
fill_result (RunnerRun *run, SpExited *ev)
{
  const RunnerReport *r = &run->report;

  if (run->failure != NULL)
    {
      ev->end = SP_END_FAILED;
      ev->error = xstrdup (run->failure);
      return;
    }
  if (!run->have_report)
    {
      ev->end = SP_END_FAILED;
      ev->error = xstrdup ("the run's supervisor process died unexpectedly");
      return;
    }
  if (r->kind == RUNNER_REPORT_EXEC_FAILED)
    {
      ev->end = SP_END_FAILED;
      ev->error = xasprintf ("cannot execute %s: %s", run->lang->path, strerror (r->error_errno));
      return;
    }
  if (r->kind == RUNNER_REPORT_SETUP_FAILED)
    {
      ev->end = SP_END_FAILED;
      ev->error = xasprintf ("setting up the run failed at step \"%s\": %s%s",
                             runner_spawn_step_name (r->error_step), strerror (r->error_errno),
                             r->error_errno == EACCES && run->req.cwd != NULL
                               ? " (can the run's user reach its working directory?)"
                               : "");
      return;
    }
  if (WIFSIGNALED (r->wait_status))
    {
      ev->end = SP_END_SIGNALED;
      ev->signal = WTERMSIG (r->wait_status);
    }
  else
    {
      ev->end = SP_END_EXITED;
      ev->exit_code = WEXITSTATUS (r->wait_status);
    }

  if (run->limit == SP_LIMIT_NONE && ev->end == SP_END_SIGNALED && ev->signal == SIGXCPU)
    run->limit = SP_LIMIT_CPU;
  if (run->limit == SP_LIMIT_NONE && ev->end == SP_END_SIGNALED && ev->signal == SIGXFSZ)
    run->limit = SP_LIMIT_DISK;
  if (run->limit == SP_LIMIT_NONE && run->cancel_stage == SP_CANCEL_NONE)
    run->limit = observed_rlimit (run, r->wait_status);

  ev->wall_ms = r->wall_ns / 1000000;
  /* The supervisor starts its clock once it runs (a cold run's after its
   * fork and namespaces, a warm one's after the hand-over), later than the
   * time limit's, which runs from when we started the run: the wall time
   * reported is ours, as the limit saw it, so a run the limit stopped
   * never reports less than the limit. */
  if (now_ns () - run->t_start_ns > r->wall_ns)
    ev->wall_ms = (now_ns () - run->t_start_ns) / 1000000;
  ev->cpu_ms = r->cpu_ns / 1000000;
  ev->peak_memory_bytes = reported_peak (run);
}

/* What the run left in its directories, now that nothing of it runs.
 * Setuid and setgid bits go first, in a named directory and the private
 * one alike, so no file the run made can later run as its owner; then the
 * report, which lists symlinks, FIFOs and sockets too. */
static void
finish_files (RunnerRun *run, SpExited *ev)
{
  /* A named directory or a session's holds more than this run made. */
  const RunnerFileSnap *before = run->req.cwd || run->keep_dir || run->n_input > 0 ? &run->before
                                                                                   : NULL;

  runner_files_strip_setid (run->cwd_fd, before);
  if (!run->host->namespaces)
    {
      cleanup_fd int tmp_fd = open_subdir (run, "tmp");
      runner_files_strip_setid (tmp_fd, NULL);
    }
  if (ev->end == SP_END_FAILED)
    return;
  /* A run that filled its space and ended between two looks is still
   * measured, so the limit is named even with nothing left to stop. */
  if (run->limit == SP_LIMIT_NONE && disk_over (run))
    ev->limit = run->limit = SP_LIMIT_DISK;
  runner_files_changes (run->cwd_fd, before, run->req.return_base64 ? RUNNER_BASE64_BUDGET : 0,
                        run->req.return_files, _runner_host_clock_origin_realtime_ns (run->host),
                        &ev->files, &ev->n_files, &ev->files_truncated);
}

/* The program step after a compile step starts afresh: a new run init,
 * cgroups, pipes, report and watch figures (the compile's were its own;
 * exited reports the program's). */
static void
reset_for_program_step (RunnerRun *run)
{
  if (run->control_fd >= 0)
    close (run->control_fd);
  run->control_fd = -1;
  runner_cgroup_remove (&run->cgroup);
  run->have_report = false;
  memset (&run->report, 0, sizeof run->report);
  run->init_reaped = false;
  run->init_pid = -1;
  run->drain_deadline_ns = 0;
  _runner_watch_reset_peaks (&run->watch);
  buf_clear (&run->stderr_tail);
  for (int s = 0; s < 2; s++)
    run->streams[s].eof = false;
  _runner_output_restart (&run->output);
}

static void
try_finish (RunnerRun *run)
{
  bool status_done = run->status_fd < 0;

  if (run->state != RUN_RUNNING || !run->init_reaped || !status_done || !run->streams[0].eof
      || !run->streams[1].eof)
    return;
  /* A compile step that succeeded goes on to the program step (a spawn
   * that fails has emitted exited already). */
  if (_runner_compile_running (&run->compile)
      && _runner_compile_step_done (&run->compile, run->have_report ? &run->report : NULL,
                                    run->limit == SP_LIMIT_NONE
                                      && run->cancel_stage == SP_CANCEL_NONE
                                      && run->failure == NULL,
                                    &run->limit, &run->failure)
           != 0)
    {
      reset_for_program_step (run);
      _runner_run_spawn_step (run);
      return;
    }

  SpMessage msg = { .type = SP_MSG_EXITED };
  SpExited *ev = &msg.u.exited;

  /* Streams the drain deadline closed still send the end they held. */
  _runner_output_flush_all (&run->output, true);
  fill_result (run, ev);
  ev->id = xstrdup (run->req.id);
  ev->limit = run->limit;
  ev->warm = run->warm;
  ev->cold_reason = run->cold_reason != NULL ? xstrdup (run->cold_reason) : NULL;
  ev->cancelled = run->cancel_stage;
  ev->t_ms = _runner_host_clock_ms (run->host);
  ev->stdout_bytes = _runner_output_bytes (&run->output, SP_STREAM_STDOUT);
  ev->stderr_bytes = _runner_output_bytes (&run->output, SP_STREAM_STDERR);
  ev->stdout_truncated = _runner_output_truncated (&run->output, SP_STREAM_STDOUT);
  ev->stderr_truncated = _runner_output_truncated (&run->output, SP_STREAM_STDERR);
  ev->session_ended = run->session_ended;
  _runner_compile_report (&run->compile, ev);
  finish_files (run, ev);
  read_program_error (run, ev);

  close_watched (run, &run->stdin_fd, &run->stdin_watch);
  if (run->control_fd >= 0)
    close (run->control_fd);
  run->control_fd = -1;
  buf_clear (&run->stdin_buf);

  finish_and_emit (run, &msg);
}

static void
emit_failed (RunnerRun *run, const char *fmt, ...)
{
  SpMessage msg = { .type = SP_MSG_EXITED };
  va_list args;
  char *error = NULL;

  va_start (args, fmt);
  if (vasprintf (&error, fmt, args) < 0)
    error = NULL;
  va_end (args);

  msg.u.exited.id = xstrdup (run->req.id);
  msg.u.exited.end = SP_END_FAILED;
  msg.u.exited.error = error ? error : xstrdup ("run failed");
  msg.u.exited.cancelled = run->cancel_stage;
  msg.u.exited.session_ended = run->session_ended;
  msg.u.exited.t_ms = _runner_host_clock_ms (run->host);
  finish_and_emit (run, &msg);
}

void
_runner_run_fail (RunnerRun *run, const char *message)
{
  emit_failed (run, "%s", message);
}

void
_runner_run_free (RunnerRun *run)
{
  for (int s = 0; s < 2; s++)
    close_watched (run, &run->streams[s].fd, &run->streams[s].watch);
  close_watched (run, &run->status_fd, &run->status_watch);
  close_watched (run, &run->stdin_fd, &run->stdin_watch);
  if (run->control_fd >= 0)
    close (run->control_fd);
  /* Without the control pipe the run init kills the tree and exits. */
  run->launcher->release (run);
  if (run->dir != NULL && !run->keep_dir)
    remove_tree (run->dir);
  buf_clear (&run->stdin_buf);
  buf_clear (&run->stderr_tail);
  runner_files_snap_clear (&run->before);
  runner_input_files_free (run->input, run->n_input);
  free (run->dir);
  runner_cgroup_remove (&run->cgroup);
  _runner_output_clear (&run->output);
  free (run->cwd);
  free (run->cwd_sub);
  if (run->cwd_fd >= 0)
    close (run->cwd_fd);
  _runner_watch_clear (&run->watch);
  free (run->code_path);
  free (run->failure);
  free (run->cold_reason);
  runner_env_clear (&run->env);
  sp_strv_free (run->extra_ro);
  free (run->isolated_python);
  _runner_compile_clear (&run->compile);
  SpMessage req = { .type = SP_MSG_RUN, .u.run = run->req };
  sp_message_clear (&req);
  free (run);
}

/* Unread stdin held for one run, at most. */
#define RUNNER_MAX_STDIN_BUFFER (16 * 1024 * 1024)

RunnerRun *
_runner_run_new (RunnerHost *host, SpRun *req, const RunnerRunSetup *setup)
{
  RunnerRun *run = xcalloc (1, sizeof *run);

  run->host = host;
  run->seq = setup->seq;
  run->req = *req;
  memset (req, 0, sizeof *req);
  run->lang = setup->lang;
  run->session = setup->session;
  run->launcher = run->session != NULL ? &_runner_launcher_session : &_runner_launcher_warm;
  if (setup->font_build_key != NULL)
    {
      run->font_build = true;
      snprintf (run->font_build_key, sizeof run->font_build_key, "%s", setup->font_build_key);
      /* A warm parent has matplotlib loaded already and would write no list. */
      run->launcher = &_runner_launcher_cold;
    }
  if (setup->n_input_files > 0)
    {
      run->input = runner_input_files_copy (setup->input_files, setup->n_input_files);
      run->n_input = setup->n_input_files;
    }
  run->init_pid = -1;
  run->control_fd = run->status_fd = run->stdin_fd = run->cwd_fd = -1;
  _runner_output_init (&run->output, host, run->req.id, run->font_build, run->req.output_limit);
  _runner_watch_init (&run->watch);
  run->pidfd = -1;
  _runner_compile_init (&run->compile);
  run->streams[0].fd = run->streams[1].fd = -1;
  run->env = setup->env;
  run->env_writable = setup->env_writable;
  if (setup->read_only_dirs != NULL)
    run->extra_ro = sp_strv_copy (setup->read_only_dirs);
  if (setup->isolated_python != NULL)
    run->isolated_python = xstrdup (setup->isolated_python);
  run->cwd_at_host_path = setup->cwd_at_host_path;
  if (setup->cwd_sub != NULL)
    run->cwd_sub = xstrdup (setup->cwd_sub);
  if (setup->trusted_cwd != NULL && run->req.cwd == NULL)
    {
      run->req.cwd = xstrdup (setup->trusted_cwd);
      run->cwd_trusted = true;
    }
  return run;
}

const char *
_runner_run_id (const RunnerRun *run)
{
  return run->req.id;
}

RunState
_runner_run_state (const RunnerRun *run)
{
  return run->state;
}

RunnerSession *
_runner_run_session (const RunnerRun *run)
{
  return run->session;
}

bool
_runner_run_font_build (const RunnerRun *run)
{
  return run->font_build;
}

RunnerRun **
_runner_run_next_link (RunnerRun *run)
{
  return &run->next;
}

void
_runner_run_cancel (RunnerRun *run)
{
  if (run->state == RUN_QUEUED)
    {
      SpMessage msg = { .type = SP_MSG_EXITED };
      msg.u.exited.id = run->req.id;
      msg.u.exited.end = SP_END_FAILED;
      msg.u.exited.error = (char *) "cancelled before it started";
      msg.u.exited.cancelled = SP_CANCEL_INTERRUPT;
      msg.u.exited.t_ms = _runner_host_clock_ms (run->host);
      run->state = RUN_FINISHED;
      run->session = NULL;
      _runner_host_emit (run->host, &msg);
      return;
    }
  if (run->cancel_stage >= SP_CANCEL_KILL)
    return;
  /* Interrupt first, so Python can print its KeyboardInterrupt traceback;
   * a second cancel skips ahead to the next step at once. */
  if (run->cancel_stage == SP_CANCEL_NONE)
    {
      run->cancel_stage = SP_CANCEL_INTERRUPT;
      _runner_run_send_control (run, RUNNER_CTL_INTERRUPT);
      run->cancel_next_ns = now_ns () + run->host->config.cancel_grace_ms * INT64_C (1000000);
    }
  else
    run->cancel_next_ns = now_ns ();
}

void
_runner_run_kill (RunnerRun *run)
{
  run->cancel_stage = SP_CANCEL_KILL;
  run->cancel_next_ns = 0;
  _runner_run_send_control (run, RUNNER_CTL_KILL);
}

int
_runner_run_stdin (RunnerRun *run, const char *data, size_t len, bool eof, SpProtoError *err)
{
  const char *id = run->req.id;
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

bool
_runner_run_reaped (RunnerRun *run, pid_t pid)
{
  if (run->warm || run->init_pid != pid || run->init_reaped)
    return false;
  _runner_run_on_init_exit (run);
  return true;
}

int64_t
_runner_run_next_deadline (RunnerRun *run)
{
  int64_t next = 0;

  if (run->state != RUN_RUNNING)
    return 0;
  int64_t times[] = { run->deadline_ns,
                      run->cancel_next_ns,
                      run->drain_deadline_ns,
                      _runner_watch_next (&run->watch),
                      _runner_input_wait_next (&run->input_wait, run->host->config.input_idle_ms),
                      _runner_output_next (&run->output) };
  for (size_t i = 0; i < N_ELEMENTS (times); i++)
    if (times[i] > 0 && (next == 0 || times[i] < next))
      next = times[i];
  return next;
}

pid_t
_runner_run_warm_pid (const RunnerRun *run)
{
  return run->warm && run->init_pid > 0 ? run->init_pid : -1;
}

void
_runner_launch_build (RunnerRun *run, RunnerLaunchKind kind, const char *path, char **argv,
                      char **envp, RunnerLaunch *l)
{
  RunnerLaunchInput in = {
    .dir = run->dir,
    .cwd = run->cwd,
    .cwd_dev = run->cwd_dev,
    .cwd_ino = run->cwd_ino,
    .cwd_sub = run->cwd_sub,
    .named_cwd = run->req.cwd != NULL,
    .cwd_at_host_path = run->cwd_at_host_path,
    .in_session = run->session != NULL,
    .network = run->req.network,
    .memory_mib = run->req.memory_mib,
    .open_files = run->lang != NULL ? run->lang->open_files : 0,
    .timeout_ms = run->req.timeout_ms,
    .env_dir = run->env.dir,
    .env_writable = run->env_writable,
    .env_id = { run->env.dev, run->env.ino },
    .extra_ro = run->extra_ro,
    .prelude_dir = run->shared_prelude ? run->host->prelude_dir : NULL,
  };

  _runner_compile_plan_input (&run->compile, &in.compiling, &in.build_dir, &in.build_id);
  _runner_plan_build (run->host, &in, kind, path, argv, envp, l);
}
