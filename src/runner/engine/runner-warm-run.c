/* runner-warm-run.c: a run handed to the warm pool instead of forked cold.
 *
 * Everything else about the run is the same: its directory, pipes, status
 * report, tree watch, limits and cancel. What differs is who forks its
 * supervisor (the warm parent, which the runner then cannot reap: it
 * watches a pidfd instead) and how the program learns its arguments and
 * environment (a file in its own code directory, read after every layer
 * is on, so nothing the run's user wrote passes through the warm parent). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>

#include "config.h"
#include "runner-run-private.h"
#include "runner-plan.h"

/* Variables that shape python3's start or the imports the parent already
 * made: a run naming one starts cold, as it asked. PYTHONPATH is not one;
 * the child applies it. */
static bool
env_needs_cold (char *const *env)
{
  static const char *const prefixes[] = { "PYTHON", "MPL", "OPENBLAS", "OMP_",  "MKL_",
                                          "GOTO",   "LD_", "MALLOC",   "GLIBC", NULL };

  for (size_t i = 0; env != NULL && env[i] != NULL; i++)
    {
      if (strncmp (env[i], "PYTHONPATH=", 11) == 0)
        continue;
      for (size_t j = 0; prefixes[j] != NULL; j++)
        if (strncmp (env[i], prefixes[j], strlen (prefixes[j])) == 0)
          return true;
    }
  return false;
}

/* Where a snippet's path is in runner_lang_argv's argv. */
#define WARM_ARGV_CODE 5

/* code/.sandpad/run.json: the program's arguments and environment, as
 * execve would have given them. */
static int
write_run_file (RunnerRun *run, char *const *argv, char *const *envp, const char *path)
{
  json_t *obj = json_object ();
  json_t *args = json_array (), *env = json_array ();
  size_t n_argv = sp_strv_length ((char **) argv);

  /* argv: python3 -u -B -c BOOTSTRAP CODE ARGS...; the run sees CODE
   * ARGS... (runner_lang_argv) */
  for (size_t i = WARM_ARGV_CODE + 1; i < n_argv; i++)
    json_array_append_new (args, json_string (argv[i]));
  for (size_t i = 0; envp[i] != NULL; i++)
    json_array_append_new (env, json_string (envp[i]));
  json_object_set_new (obj, "code", json_string (run->code_path));
  json_object_set_new (obj, "args", args);
  json_object_set_new (obj, "env", env);
  cleanup_free char *text = json_dumps (obj, JSON_COMPACT);
  json_decref (obj);
  cleanup_fd int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
  if (text == NULL || fd < 0 || write_all (fd, text, strlen (text)) != 0)
    return -1;
  if (geteuid () == 0 && fchown (fd, RUNNER_SANDBOX_NOBODY, RUNNER_SANDBOX_NOBODY) != 0)
    return -1;
  return 0;
}

static void
on_pidfd (void *data, int fd, uint32_t events)
{
  RunnerRun *run = data;

  runner_loop_unwatch (run->host->loop, run->pidfd_watch);
  run->pidfd_watch = NULL;
  if (!run->init_reaped)
    _runner_run_on_init_exit (run);
}

/* 0 when the warm pool took the run, -1: run it cold. */
static int
try_warm (RunnerRun *run, const RunnerLaunch *l)
{
  RunnerHost *host = run->host;
  const RunnerSpawnSpec *spec = &l->spec;
  const RunnerSandboxPlan *plan = spec->sandbox;
  char *const *argv = l->argv;
  char *const *envp = l->envp;
  const char *why = NULL;
  Buf buf = { 0 };

  /* A run in an environment has its own interpreter and site-packages,
   * and an install step its own writable and read-only directories: the
   * warm parent (the system's python3 with the runner's plan) is neither. */
  if (strcmp (run->lang->name, "python") != 0 || run->env.dir != NULL || run->env_writable
      || run->extra_ro != NULL || run->isolated_python != NULL || plan->work_at_host_path
      || run->cwd_sub != NULL)
    return -1;
  if (host->warm == NULL)
    {
      if (host->warm_missing != NULL)
        run->cold_reason = xstrdup (host->warm_missing);
      return -1;
    }
  /* Warm runs are off for good here: the run says why it is cold. */
  if (runner_warm_broken (host->warm) != NULL)
    {
      run->cold_reason = xstrdup (runner_warm_broken (host->warm));
      return -1;
    }
  /* A policy that ran cold once gets a parent for its next runs. */
  runner_warm_start (host->warm, run->req.network, &host->cgroups);
  if (env_needs_cold (run->req.env) || sp_strv_length ((char **) argv) <= WARM_ARGV_CODE)
    return -1;
  /* RLIMIT_DATA and the tree watch count what the child inherits (the
   * parent's imports, ~40 MiB): by default go warm only when that leaves
   * the snippet at least 3/4 of its limit (all of it, if it imports numpy
   * or matplotlib itself, as a cold run would hold them too). */
  bool idle = true;
  for (RunnerRun *other = _runner_host_runs (host); other != NULL && idle; other = other->next)
    idle = !(other->warm && other->pidfd_watch != NULL && other->req.network == run->req.network);
  int64_t data = runner_warm_data_bytes (host->warm, run->req.network, idle);
  int64_t min_memory = host->config.warm_min_memory_mib >= 0
                         ? host->config.warm_min_memory_mib * 1024 * 1024
                         : 4 * data;
  if (data < 0 || plan->limits.memory_bytes < min_memory)
    return -1;

  cleanup_free char *host_file = xasprintf ("%s/code/.sandpad/run.json", run->dir);
  if (write_run_file (run, argv, envp, host_file) != 0)
    return -1;
  /* Its cgroups as a cold run's limits: the spare waits in its seat
   * (moved there ahead, see runner-warm-init.c), which the parent sets
   * these limits on before the run starts, through the plan's strict
   * decoder (sp_warm_seat_limit): the driver never parses them. */
  RunnerPlanWarm warm = {
    .run_file = host->namespaces ? RUNNER_SANDBOX_CODE "/.sandpad/run.json" : host_file,
    .cgroup = runner_cgroup_version (&host->cgroups) != 0,
  };
  /* The app may have moved this runner into a delegated v2 scope since
   * it started. */
  runner_cgroup_refresh (&host->cgroups);
  if (runner_plan_encode (&buf, plan, spec, &warm) != 0)
    {
      buf_clear (&buf);
      return -1;
    }

  int fds[5] = { spec->stdin_fd, spec->stdout_fd, spec->stderr_fd, spec->control_fd,
                 spec->status_fd };
  int pidfd = runner_warm_spawn (host->warm, run->req.network, &host->cgroups, buf.data, buf.len,
                                 fds, 5, &run->cgroup, &why);
  buf_clear (&buf);
  if (pidfd < 0)
    {
      /* The cold run makes its own. */
      runner_cgroup_remove (&run->cgroup);
      /* Said on stderr (the app's log): the run itself starts cold. */
      if (why != NULL)
        fprintf (stderr, "sandpad-runner: run %s goes cold: %s\n", run->req.id, why);
      /* This run found out that warm runs cannot work here. */
      if (runner_warm_broken (host->warm) != NULL)
        run->cold_reason = xstrdup (runner_warm_broken (host->warm));
      return -1;
    }

  /* The supervisor's pid, for the tree watch, from the pidfd itself. */
  cleanup_free char *info = xasprintf ("/proc/self/fdinfo/%d", pidfd);
  FILE *f = fopen (info, "re");
  char line[128];
  pid_t pid = 0;
  while (f != NULL && fgets (line, sizeof line, f) != NULL)
    if (sscanf (line, "Pid: %d", &pid) == 1)
      break;
  if (f != NULL)
    fclose (f);
  run->warm = true;
  run->pidfd = pidfd;
  /* -1: it has already exited (the pidfd says so at once). */
  run->init_pid = pid != 0 ? pid : -1;
  run->pidfd_watch = runner_loop_watch (host->loop, pidfd, EPOLLIN, on_pidfd, run);
  if (run->pidfd_watch == NULL)
    {
      /* Cannot watch it: _runner_run_spawn_step kills it, and the run ends
       * when its pipes close. */
      run->failure = xstrdup ("cannot watch the run's supervisor");
      run->init_reaped = true;
    }
  return 0;
}

/* The warm pool when it can serve the run; else the run is cold from now
 * on (its launcher too: its control, release and tree are a cold run's). */
static int
spawn_warm (RunnerRun *run, RunnerLaunch *l)
{
  if (try_warm (run, l) == 0)
    return 0;
  run->launcher = &_runner_launcher_cold;
  return run->launcher->spawn (run, l);
}

/* The run is released: its supervisor is not our child, so wait on the
 * pidfd (the control pipe is closed, so init is killing the tree). */
static void
release_warm (RunnerRun *run)
{
  if (!run->warm)
    return;
  runner_loop_unwatch (run->host->loop, run->pidfd_watch);
  run->pidfd_watch = NULL;
  if (!run->init_reaped)
    {
      struct pollfd pfd = { .fd = run->pidfd, .events = POLLIN };
      while (poll (&pfd, 1, 5000) < 0 && errno == EINTR)
        ;
    }
  close (run->pidfd);
  run->pidfd = -1;
}

const RunnerLauncher _runner_launcher_warm = {
  .name = "warm",
  .start = _runner_run_start_own,
  .spawn = spawn_warm,
  .control = _runner_init_control,
  .deadline = _runner_init_deadline,
  .tree_root = _runner_init_tree_root,
  .memory_layer = _runner_init_memory_layer,
  .release = release_warm,
};

/* Whether dir holds both the module and the helper. */
static bool
has_warm_files (const char *dir)
{
  cleanup_free char *module = xasprintf ("%s/sandpad-warm.so", dir);
  cleanup_free char *helper = xasprintf ("%s/sandpad-warm-init", dir);
  struct stat st;

  return stat (module, &st) == 0 && S_ISREG (st.st_mode) && stat (helper, &st) == 0
         && S_ISREG (st.st_mode);
}

/* Where sandpad-warm.so and sandpad-warm-init are: beside the running
 * program (sandpad-runner, in libexecdir or the build tree), else in the
 * installed libexecdir (sandpad-mcp, in bindir). The build tree's runner
 * directory only for a program that itself runs from the build tree: the
 * warm parent loads the module unsandboxed, so no path outside the
 * installation or the developer's own tree is ever tried. */
static char *
find_warm_dir (void)
{
  char exe[4096];
  ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);

  if (n <= 0)
    return NULL;
  exe[n] = '\0';
  char *slash = strrchr (exe, '/');
  if (slash == NULL)
    return NULL;
  *slash = '\0';
  if (has_warm_files (exe))
    return xstrdup (exe);
  if (has_warm_files (SANDPAD_LIBEXECDIR))
    return xstrdup (SANDPAD_LIBEXECDIR);
  size_t root = strlen (SANDPAD_BUILD_ROOT);
  if (strncmp (exe, SANDPAD_BUILD_ROOT, root) == 0 && exe[root] == '/'
      && has_warm_files (SANDPAD_BUILD_ROOT "/src/runner"))
    return xstrdup (SANDPAD_BUILD_ROOT "/src/runner");
  return NULL;
}

RunnerWarm *
_runner_warm_pool_new (RunnerHost *host)
{
  const RunnerConfig *c = &host->config;
  RunnerLanguage *python = runner_langs_find (host->langs, "python");

  if (!c->warm || python == NULL || python->path == NULL)
    return NULL;
  cleanup_free char *dir = find_warm_dir ();
  if (dir == NULL)
    {
      /* Only a runner started from somewhere odd (a copied binary, or a
       * build tree under a folder its user cannot enter): said once here
       * and in every Python run's exited, so nobody waits for a warm run
       * that cannot come. */
      host->warm_missing = "the warm helpers are not beside the runner nor installed "
                           "(or this user cannot read them)";
      fprintf (stderr, "sandpad-runner: every run starts cold: %s\n", host->warm_missing);
      return NULL;
    }
  cleanup_free char *module = xasprintf ("%s/sandpad-warm.so", dir);
  cleanup_free char *helper = xasprintf ("%s/sandpad-warm-init", dir);
  RunnerWarmConfig config = {
    .python = python->path,
    .module = module,
    .helper = helper,
    .namespaces = host->namespaces,
    .root = host->root,
    .max_runs = c->warm_max_runs,
    .idle_ms = c->warm_idle_ms,
    .start_ms = c->warm_start_ms,
    .memory_cap = c->warm_memory_mib * 1024 * 1024,
    .spares = RUNNER_WARM_SPARES,
  };
  return runner_warm_new (&config);
}
