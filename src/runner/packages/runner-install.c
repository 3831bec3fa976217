/* runner-install.c: the install's steps as engine runs; see the header. */
#include "runner-install.h"

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runner-base.h"
#include "runner-engine.h"
#include "runner-sha256.h"
#include "runner-venv.h"

typedef enum
{
  STEP_DOWNLOAD,
  STEP_INSTALL,
  STEP_OVER,
} Step;

struct RunnerInstall
{
  RunnerEngine *engine;
  char *run_ids[2]; /* the download and install runs */
  bool live[2];     /* submitted and not yet released */
  bool exited[2];
  SpEnd end[2];
  int64_t exit_code[2];
  char *error[2];
  Step step;
  RunnerInstallState state;
  char *message;

  char *environment;      /* canonical venv */
  char *base_python;      /* its base, a system interpreter: the download's */
  RunnerVenvGuard *guard; /* what the install step may not change */
  char **warnings;
  char **names, **pins; /* parallel, n entries */
  size_t n;
  char **specs;
  RunnerInstallPolicy policy;
  char *index_url;
  char **find_links; /* canonical */
  char *log_path;

  char *dir;          /* <runner root>/install-N */
  char *download_dir; /* the download step's cwd: the run's to write */
  char *checked_dir;  /* the checked copies, read-only to the install step */
  char *scratch_dir;  /* the install step's cwd */
  RunnerInstallFile *files;
  size_t n_files;
};

/* The download step runs the system's pip by the venv's base interpreter
 * (-I, no venv); the install step runs pip as a module of the venv's
 * interpreter, the venv's own pip when it has one, else the system's
 * (system site packages), installing into the venv's prefix. pip's user agent describes the host
 * (distribution, libc, CPU) from files the sandbox does not show (in
 * fallback mode, reading them fails with EACCES, which pip does not
 * expect); the index gets a plain one instead. */
static const char pip_main[]
  = "import os, runpy, sys\n"
    "sys.argv[0] = 'pip'\n"
    /* -I (the download) left the prelude's directory, PYTHONPATH, off
     * sys.path; it is the runner's own file beside this one, and without
     * namespaces pip's chmod of what it saves needs its fd fallback. */
    "if sys.flags.isolated:\n"
    "    _d = os.path.join(os.path.dirname(os.path.abspath(__file__)), '.sandpad')\n"
    /* The runner's shared copy (namespace mode), else the run's own. */
    "    for _p in (os.path.join(_d, 'prelude', 'sitecustomize.py'),\n"
    "               os.path.join(_d, 'sitecustomize.py')):\n"
    "        if os.path.exists(_p):\n"
    "            runpy.run_path(_p, run_name='_sandpad_prelude')\n"
    "            break\n"
    "try:\n"
    "    import pip, pip._internal.network.session as _s\n"
    "    _s.user_agent = lambda: 'pip/' + pip.__version__\n"
    "except (ImportError, AttributeError):\n"
    "    pass\n"
    "runpy.run_module('pip', run_name='__main__', alter_sys=True)\n";

static void set_message (RunnerInstall *inst, RunnerInstallState state, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

static void
set_message (RunnerInstall *inst, RunnerInstallState state, const char *fmt, ...)
{
  va_list args;
  char *text = NULL;

  va_start (args, fmt);
  if (vasprintf (&text, fmt, args) < 0)
    text = NULL;
  va_end (args);
  free (inst->message);
  inst->message = text ? text : xstrdup ("install failed");
  inst->state = state;
}

/* A directory of the install's, owned by the uid programs run as (a root
 * runner's are nobody's), or by us when owner is false. */
static char *
make_subdir (RunnerInstall *inst, const char *name, bool owner, mode_t mode)
{
  char *path = xasprintf ("%s/%s", inst->dir, name);
  uid_t uid = runner_engine_run_uid ();

  if (mkdir (path, mode) != 0 || chmod (path, mode) != 0
      || (owner && geteuid () == 0 && chown (path, uid, uid) != 0))
    {
      free (path);
      return NULL;
    }
  return path;
}

static int
check_request (RunnerInstall *inst, const RunnerInstallRequest *req, char *msg, size_t msg_len)
{
  RunnerEnv env;

  if (req->packages == NULL || req->packages[0] == NULL)
    return snprintf (msg, msg_len, "no packages to install"), -1;
  if (runner_env_check ("python", req->environment, &env, msg, msg_len) != 0)
    return -1;
  inst->environment = xstrdup (env.dir);
  inst->base_python = xstrdup (env.base);
  runner_env_clear (&env);
  /* pip writes as the uid programs run as; say so now rather than let it
   * fail half-way with EACCES. */
  struct stat st;
  uid_t uid = runner_engine_run_uid ();
  if (stat (inst->environment, &st) != 0 || st.st_uid != uid)
    return snprintf (msg, msg_len,
                     "the environment %.200s must belong to uid %d, which runs the install",
                     inst->environment, (int) uid),
           -1;
  inst->n = sp_strv_length (req->packages);
  inst->names = xcalloc (inst->n + 1, sizeof *inst->names);
  inst->pins = xcalloc (inst->n + 1, sizeof *inst->pins);
  for (size_t i = 0; i < inst->n; i++)
    {
      if (runner_install_parse_spec (req->packages[i], &inst->names[i], &inst->pins[i], msg,
                                     msg_len)
          != 0)
        return -1;
      if (runner_install_check_name (&req->policy, inst->names[i], msg, msg_len) != 0)
        return -1;
      if (req->policy.require_pins && inst->pins[i] == NULL)
        return snprintf (msg, msg_len, "%s is not pinned: the policy requires name==version",
                         inst->names[i]),
               -1;
    }
  /* No index is offline (--no-index), never pip's default: without a
   * wheelhouse either there is nowhere to look, which pip would only say
   * after retrying an index nobody configured. */
  if (req->index_url == NULL && (req->find_links == NULL || req->find_links[0] == NULL))
    return snprintf (msg, msg_len,
                     "no package source: no index URL is configured, so the install is "
                     "offline (--no-index), and no find-links directory of wheels is given; "
                     "set an index URL or a find-links directory"),
           -1;
  if (req->index_url != NULL && strncmp (req->index_url, "https://", 8) != 0
      && strncmp (req->index_url, "http://", 7) != 0)
    return snprintf (msg, msg_len, "the index URL must start with https:// or http://"), -1;
  for (size_t i = 0; req->find_links != NULL && req->find_links[i] != NULL; i++)
    {
      cleanup_free char *dir = realpath (req->find_links[i], NULL);
      if (dir == NULL || stat (dir, &st) != 0 || !S_ISDIR (st.st_mode) || strcmp (dir, "/") == 0)
        return snprintf (msg, msg_len, "find-links %.200s is not a directory other than /",
                         req->find_links[i]),
               -1;
      inst->find_links = strv_add (inst->find_links, dir);
    }
  return 0;
}

static int
submit_step (RunnerInstall *inst, Step step, char **args, char *msg, size_t msg_len)
{
  const RunnerConfig *c = runner_engine_config (inst->engine);
  char *const install_ro[] = { inst->checked_dir, NULL };
  RunnerRunOptions options = {
    .environment_writable = step == STEP_INSTALL,
    .read_only_dirs = step == STEP_INSTALL ? install_ro : inst->find_links,
    .cwd = step == STEP_INSTALL ? inst->scratch_dir : inst->download_dir,
    /* The download has the network: not the venv's interpreter, whose
     * site-packages hold what earlier installs brought (a .pth file runs
     * at every start), and -I so no variable or directory adds to
     * sys.path. The venv is not even visible to it. */
    .isolated_python = step == STEP_DOWNLOAD ? inst->base_python : NULL,
  };
  static const char *const env[] = { "PIP_CONFIG_FILE=/dev/null", "PIP_NO_INPUT=1",
                                     "PIP_DISABLE_PIP_VERSION_CHECK=1", NULL };
  SpRun req = {
    .id = xstrdup (inst->run_ids[step]),
    .language = xstrdup ("python"),
    .code = xstrdup (pip_main),
    .name = xstrdup ("pip-step.py"),
    .args = args,
    .env = sp_strv_copy ((char *const *) env),
    .timeout_ms = c->max_timeout_ms,
    .memory_mib = c->default_memory_mib,
    /* The download needs the index; the install never has a network. */
    .network = step == STEP_DOWNLOAD,
    .environment = step == STEP_INSTALL ? xstrdup (inst->environment) : NULL,
  };
  SpProtoError err = { 0 };
  int rc = runner_engine_submit_with (inst->engine, &req, &options, &err);

  if (rc != 0)
    snprintf (msg, msg_len, "%s", err.message);
  else
    inst->live[step] = true;
  SpMessage leftover = { .type = SP_MSG_RUN, .u.run = req };
  sp_message_clear (&leftover);
  return rc;
}

static char **
download_args (RunnerInstall *inst)
{
  char **a = NULL;

  a = strv_add (a, "download");
  a = strv_add (a, "--no-cache-dir");
  a = strv_add (a, "--progress-bar");
  a = strv_add (a, "off");
  if (!inst->policy.allow_sdist)
    {
      a = strv_add (a, "--only-binary");
      a = strv_add (a, ":all:");
    }
  a = strv_add (a, "--dest");
  a = strv_add (a, ".");
  if (inst->index_url != NULL)
    {
      a = strv_add (a, "--index-url");
      a = strv_add (a, inst->index_url);
    }
  else
    a = strv_add (a, "--no-index"); /* no index: offline, a wheelhouse alone */
  for (size_t i = 0; inst->find_links != NULL && inst->find_links[i] != NULL; i++)
    {
      a = strv_add (a, "--find-links");
      a = strv_add (a, inst->find_links[i]);
    }
  a = strv_add (a, "--");
  for (size_t i = 0; inst->specs[i] != NULL; i++)
    a = strv_add (a, inst->specs[i]);
  return a;
}

RunnerInstall *
runner_install_start (RunnerEngine *engine, const RunnerInstallRequest *req, char *msg,
                      size_t msg_len)
{
  RunnerInstall *inst = xcalloc (1, sizeof *inst);
  inst->engine = engine;
  inst->state = RUNNER_INSTALL_RUNNING;
  inst->run_ids[STEP_DOWNLOAD] = xasprintf ("%s.download", req->id);
  inst->run_ids[STEP_INSTALL] = xasprintf ("%s.install", req->id);
  inst->specs = sp_strv_copy (req->packages);
  inst->policy = req->policy;
  inst->policy.allow = sp_strv_copy (req->policy.allow);
  inst->policy.block = sp_strv_copy (req->policy.block);
  inst->index_url = req->index_url ? xstrdup (req->index_url) : NULL;
  inst->log_path = req->log_path ? xstrdup (req->log_path) : runner_install_default_log ();
  if (!sp_proto_id_valid (inst->run_ids[STEP_DOWNLOAD]) || strlen (req->id) > 48)
    {
      snprintf (msg, msg_len, "the install's id must be 1 to 48 printable characters");
      runner_install_free (inst);
      return NULL;
    }
  if (check_request (inst, req, msg, msg_len) != 0)
    {
      runner_install_free (inst);
      return NULL;
    }
  inst->dir = runner_engine_new_dir_path (engine, "install");
  if (mkdir (inst->dir, 0711) != 0 || chmod (inst->dir, 0711) != 0
      || (inst->download_dir = make_subdir (inst, "download", true, 0700)) == NULL
      || (inst->checked_dir = make_subdir (inst, "checked", false, 0755)) == NULL
      || (inst->scratch_dir = make_subdir (inst, "scratch", true, 0700)) == NULL)
    {
      snprintf (msg, msg_len, "cannot prepare the install's directory: %s", strerror (errno));
      runner_install_free (inst);
      return NULL;
    }
  if (submit_step (inst, STEP_DOWNLOAD, download_args (inst), msg, msg_len) != 0)
    {
      runner_install_free (inst);
      return NULL;
    }
  return inst;
}

bool
runner_install_event (RunnerInstall *inst, const SpMessage *msg)
{
  const char *id = NULL;

  if (msg->type == SP_MSG_EXITED)
    id = msg->u.exited.id;
  else if (msg->type == SP_MSG_OUTPUT)
    id = msg->u.output.id;
  else if (msg->type == SP_MSG_OUTPUT_OMITTED)
    id = msg->u.omitted.id;
  else if (msg->type == SP_MSG_STARTED)
    id = msg->u.started.id;
  else if (msg->type == SP_MSG_QUEUED)
    id = msg->u.queued.id;
  else if (msg->type == SP_MSG_RELEASED)
    id = msg->u.ref.id;
  for (int s = 0; id != NULL && s < 2; s++)
    if (strcmp (id, inst->run_ids[s]) == 0)
      {
        if (msg->type == SP_MSG_EXITED)
          {
            inst->exited[s] = true;
            inst->end[s] = msg->u.exited.end;
            inst->exit_code[s] = msg->u.exited.exit_code;
            free (inst->error[s]);
            inst->error[s] = msg->u.exited.error ? xstrdup (msg->u.exited.error) : NULL;
          }
        return true;
      }
  return false;
}

/* Copies one downloaded file into the checked directory, hashing the
 * bytes it copies; at most `room` bytes (more counts as over the cap). */
static int
take_file (RunnerInstall *inst, int dir_fd, const char *name, int64_t room, RunnerInstallFile *file,
           char *msg, size_t msg_len)
{
  cleanup_fd int in = openat (dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  cleanup_free char *dst = xasprintf ("%s/%s", inst->checked_dir, name);
  cleanup_fd int out = -1;
  struct stat st;
  RunnerSha256 sha;
  char buf[65536];
  ssize_t n;

  if (in < 0 || fstat (in, &st) != 0 || !S_ISREG (st.st_mode))
    return snprintf (msg, msg_len, "the download left %.100s, which is not a regular file", name),
           -1;
  out = open (dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (out < 0)
    return snprintf (msg, msg_len, "cannot copy %.100s: %s", name, strerror (errno)), -1;
  runner_sha256_init (&sha);
  file->size = 0;
  while ((n = read (in, buf, sizeof buf)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 || write_all (out, buf, (size_t) n) != 0)
        return snprintf (msg, msg_len, "cannot copy %.100s: %s", name, strerror (errno)), -1;
      runner_sha256_update (&sha, buf, (size_t) n);
      file->size += n;
      if (file->size > room)
        break; /* over the cap: the check says so */
    }
  runner_sha256_hex (&sha, file->sha256);
  return 0;
}

/* Step 2: what the download brought, against the policy. */
static int
check_download (RunnerInstall *inst, char *msg, size_t msg_len)
{
  int64_t cap = inst->policy.max_bytes > 0 ? inst->policy.max_bytes
                                           : RUNNER_INSTALL_DEFAULT_MAX_BYTES;
  int64_t total = 0;
  DIR *dir = opendir (inst->download_dir);
  struct dirent *e;
  int rc = 0;

  if (dir == NULL)
    return snprintf (msg, msg_len, "cannot read the download: %s", strerror (errno)), -1;
  while (rc == 0 && (e = readdir (dir)) != NULL)
    {
      RunnerInstallFile file;
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      if (runner_install_parse_file (e->d_name, &file) != 0)
        {
          /* pip's own droppings (a .cache) are not packages; anything
           * else unexpected is refused rather than ignored. */
          snprintf (msg, msg_len, "the download left %.100s, which is not a wheel or an sdist",
                    e->d_name);
          rc = -1;
          break;
        }
      rc = take_file (inst, dirfd (dir), e->d_name, cap - total + 1, &file, msg, msg_len);
      total += file.size;
      inst->files = xrealloc (inst->files, (inst->n_files + 1) * sizeof *inst->files);
      inst->files[inst->n_files++] = file;
    }
  closedir (dir);
  if (rc != 0)
    return -1;
  return runner_install_check_files (&inst->policy, inst->names, inst->pins, inst->n, inst->files,
                                     inst->n_files, msg, msg_len);
}

static char **
install_args (RunnerInstall *inst)
{
  char **a = NULL;
  static const char *const fixed[] = {
    "install", "--no-index", "--no-deps", "--no-cache-dir", "--progress-bar", "off", "--", NULL
  };

  for (size_t i = 0; fixed[i] != NULL; i++)
    a = strv_add (a, fixed[i]);
  for (size_t i = 0; i < inst->n_files; i++)
    {
      cleanup_free char *path = xasprintf ("%s/%s", inst->checked_dir, inst->files[i].file);
      a = strv_add (a, path);
    }
  return a;
}

static void
release (RunnerInstall *inst, Step step)
{
  if (inst->live[step])
    runner_engine_release (inst->engine, inst->run_ids[step], NULL);
  inst->live[step] = false;
}

static bool
step_failed (RunnerInstall *inst, Step step, const char *what)
{
  if (inst->end[step] == SP_END_EXITED && inst->exit_code[step] == 0)
    return false;
  if (inst->end[step] == SP_END_FAILED)
    set_message (inst, RUNNER_INSTALL_FAILED, "the %s step could not run: %s", what,
                 inst->error[step] ? inst->error[step] : "unknown error");
  else
    set_message (inst, RUNNER_INSTALL_FAILED, "the %s step failed (pip exited with %lld%s)", what,
                 (long long) inst->exit_code[step],
                 inst->end[step] == SP_END_SIGNALED ? ", by a signal" : "");
  return true;
}

static void write_log (RunnerInstall *inst);

/* After the install step: the venv's own files as they were before it.
 * false when one had changed (put back, the install refused) or could not
 * be put back (failed). New common commands in bin/ become warnings. */
static bool
guard_check (RunnerInstall *inst)
{
  char msg[512];
  char *changed = NULL;
  char **shadowing = NULL;

  if (runner_venv_guard_check (inst->guard, &changed, &shadowing, msg, sizeof msg) != 0)
    {
      set_message (inst, RUNNER_INSTALL_FAILED, "%s", msg);
      return false;
    }
  for (size_t i = 0; shadowing[i] != NULL; i++)
    {
      cleanup_free char *w = xasprintf ("the install added bin/%s, which shadows the system's "
                                        "%s in a shell where the environment is activated",
                                        shadowing[i], shadowing[i]);
      inst->warnings = strv_add (inst->warnings, w);
    }
  sp_strv_free (shadowing);
  if (changed == NULL)
    return true;
  set_message (inst, RUNNER_INSTALL_REFUSED,
               "refused: the install changed %s in %s, which only python3 -m venv may write "
               "(bin/activate is sourced outside the sandbox); they were put back as they "
               "were; the package's other files stay installed",
               changed, inst->environment);
  free (changed);
  return false;
}

RunnerInstallState
runner_install_poll (RunnerInstall *inst)
{
  char msg[512];

  if (inst->state != RUNNER_INSTALL_RUNNING)
    return inst->state;
  if (inst->step == STEP_DOWNLOAD && inst->exited[STEP_DOWNLOAD])
    {
      release (inst, STEP_DOWNLOAD);
      if (step_failed (inst, STEP_DOWNLOAD, "download"))
        {
          /* --only-binary makes pip report an sdist-only package as not
           * found; say that this rule may be why, not that it is: an index
           * that cannot be reached or a name it lacks fail the same way,
           * and pip's own output says which. */
          if (!inst->policy.allow_sdist && inst->end[STEP_DOWNLOAD] == SP_END_EXITED)
            {
              char *was = inst->message;
              inst->message = xasprintf ("%s; pip's output says why (from %s). If it found no "
                                         "matching distribution: the policy accepts wheels "
                                         "only, so a package published only as a source "
                                         "distribution (sdist) is not found (allowing sdists "
                                         "lets their setup.py run code during the install)",
                                         was,
                                         inst->index_url != NULL
                                           ? inst->index_url
                                           : "the find-links directory, offline");
              free (was);
            }
          return inst->state;
        }
      if (check_download (inst, msg, sizeof msg) != 0)
        {
          set_message (inst, RUNNER_INSTALL_REFUSED, "refused: %s", msg);
          return inst->state;
        }
      inst->step = STEP_INSTALL;
      inst->guard = runner_venv_guard_new (inst->environment, msg, sizeof msg);
      if (inst->guard == NULL)
        {
          set_message (inst, RUNNER_INSTALL_FAILED,
                       "cannot keep the environment's own files before the install: %s", msg);
          return inst->state;
        }
      if (submit_step (inst, STEP_INSTALL, install_args (inst), msg, sizeof msg) != 0)
        set_message (inst, RUNNER_INSTALL_FAILED, "the install step was refused: %s", msg);
      return inst->state;
    }
  if (inst->step == STEP_INSTALL && inst->exited[STEP_INSTALL])
    {
      release (inst, STEP_INSTALL);
      inst->step = STEP_OVER;
      /* Whatever pip's status, the kept files are checked and put back. */
      if (!guard_check (inst) || step_failed (inst, STEP_INSTALL, "install"))
        return inst->state;
      write_log (inst);
      Buf words = { 0 };
      for (size_t i = 0; i < inst->n_files; i++)
        {
          cleanup_free char *one = xasprintf ("%s%s %s", i ? ", " : "", inst->files[i].name,
                                              inst->files[i].version);
          buf_append (&words, one, strlen (one));
        }
      buf_append (&words, "", 1);
      set_message (inst, RUNNER_INSTALL_DONE, "installed %s into %s", words.data,
                   inst->environment);
      buf_clear (&words);
      for (size_t i = 0; inst->warnings != NULL && inst->warnings[i] != NULL; i++)
        {
          char *was = inst->message;
          inst->message = xasprintf ("%s; warning: %s", was, inst->warnings[i]);
          free (was);
        }
    }
  return inst->state;
}

char *
runner_install_default_log (void)
{
  const char *state = getenv ("XDG_STATE_HOME");
  const char *home = getenv ("HOME");

  if (state != NULL && state[0] == '/')
    return xasprintf ("%s/sandpad/installs.log", state);
  if (home != NULL && home[0] == '/')
    return xasprintf ("%s/.local/state/sandpad/installs.log", home);
  return NULL;
}

static void
make_parents (const char *path)
{
  cleanup_free char *dir = xstrdup (path);

  for (char *slash = strchr (dir + 1, '/'); slash != NULL; slash = strchr (slash + 1, '/'))
    {
      *slash = '\0';
      mkdir (dir, 0700);
      *slash = '/';
    }
}

/* Step 4: one line per file, one write() each on an O_APPEND fd; the log
 * moves to .1 past its size, so it stays bounded. */
static void
write_log (RunnerInstall *inst)
{
  struct stat st;
  char when[32];
  time_t now = time (NULL);
  struct tm tm;

  if (inst->log_path == NULL)
    return;
  make_parents (inst->log_path);
  if (stat (inst->log_path, &st) == 0 && st.st_size > RUNNER_INSTALL_LOG_MAX_BYTES)
    {
      cleanup_free char *old = xasprintf ("%s.1", inst->log_path);
      rename (inst->log_path, old);
    }
  cleanup_fd int fd = open (inst->log_path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
                            0600);
  if (fd < 0)
    return;
  gmtime_r (&now, &tm);
  strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  for (size_t i = 0; i < inst->n_files; i++)
    {
      const RunnerInstallFile *f = &inst->files[i];
      json_t *line = json_pack ("{s:s, s:s, s:s, s:s, s:s, s:s, s:I}", "time", when, "environment",
                                inst->environment, "name", f->name, "version", f->version, "file",
                                f->file, "sha256", f->sha256, "size", (json_int_t) f->size);
      if (line == NULL)
        continue;
      if (inst->index_url != NULL)
        json_object_set_new (line, "index_url", json_string (inst->index_url));
      if (inst->find_links != NULL)
        {
          json_t *links = json_array ();
          for (size_t j = 0; inst->find_links[j] != NULL; j++)
            json_array_append_new (links, json_string (inst->find_links[j]));
          json_object_set_new (line, "find_links", links);
        }
      char *text = json_dumps (line, JSON_COMPACT);
      json_decref (line);
      if (text == NULL)
        continue;
      cleanup_free char *with_newline = xasprintf ("%s\n", text);
      free (text);
      write_all (fd, with_newline, strlen (with_newline));
    }
}

const char *
runner_install_message (RunnerInstall *inst)
{
  return inst->message ? inst->message : "installing";
}

const RunnerInstallFile *
runner_install_files (RunnerInstall *inst, size_t *n)
{
  *n = inst->n_files;
  return inst->files;
}

const char *
runner_install_log_path (RunnerInstall *inst)
{
  return inst->log_path;
}

char *const *
runner_install_warnings (RunnerInstall *inst)
{
  static char *const none[] = { NULL };

  return inst->warnings != NULL ? inst->warnings : none;
}

static bool
step_finished (RunnerInstall *inst, int step)
{
  return runner_engine_run_ended (inst->engine, inst->run_ids[step]);
}

void
runner_install_free (RunnerInstall *inst)
{
  if (inst == NULL)
    return;
  for (int s = 0; s < 2; s++)
    {
      if (inst->live[s])
        {
          /* Still running: cancel, wait for its exit, release. */
          runner_engine_cancel (inst->engine, inst->run_ids[s], NULL);
          while (!step_finished (inst, s) && runner_engine_iterate (inst->engine, 100) >= 0)
            ;
          release (inst, s);
          /* A stopped install step may have changed them too. */
          if (s == STEP_INSTALL && inst->guard != NULL)
            guard_check (inst);
        }
      free (inst->run_ids[s]);
      free (inst->error[s]);
    }
  if (inst->dir != NULL)
    remove_tree (inst->dir);
  for (size_t i = 0; i < inst->n_files; i++)
    runner_install_file_clear (&inst->files[i]);
  free (inst->files);
  free (inst->message);
  free (inst->environment);
  free (inst->base_python);
  runner_venv_guard_free (inst->guard);
  sp_strv_free (inst->warnings);
  sp_strv_free (inst->names);
  for (size_t i = 0; inst->pins != NULL && i < inst->n; i++)
    free (inst->pins[i]);
  free (inst->pins);
  sp_strv_free (inst->specs);
  sp_strv_free (inst->policy.allow);
  sp_strv_free (inst->policy.block);
  free (inst->index_url);
  sp_strv_free (inst->find_links);
  free (inst->log_path);
  free (inst->dir);
  free (inst->download_dir);
  free (inst->checked_dir);
  free (inst->scratch_dir);
  free (inst);
}
