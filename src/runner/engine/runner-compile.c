/* runner-compile.c: a compiled language's two steps in one run (issue 27).
 *
 * The compile step is a run of the compiler in the run's own sandbox:
 * the same plan (namespaces or fallback, seccomp, the network as the
 * request says, rlimits, the tree watch), with the run's build directory
 * bound writable as its environment directory, and a time limit of its
 * own (RunnerConfig.compile_timeout_ms), reported apart ("compile_time").
 * Its output goes to the runner's cache (runner-compile-cache.c) before
 * the program step runs it from the same directory, now read-only.
 *
 * The build directory is made once and held as an fd from then on
 * (run->compile.build_fd, its id in run->compile.build_id): the runner reads, marks
 * executable and caches the output through that fd, and each step's
 * sandbox binds the name only when it still leads to that directory. A
 * directory put in its place between the steps would otherwise have had
 * its "program" cached and run as the snippet's.
 *
 * What the compile step sees, and so what a cached output can depend on
 * (issue 37): a fixed environment (runner_compile_env_base and the
 * compiler's own variables, never the request's env), the snippet in the
 * run's code directory, the system's directories, its fresh /tmp, the
 * build directory, and the run's working directory. Nothing else: the
 * config's read-only directories (context paths) are not shown to it
 * (runner-plan-build.c). The working directory is the one part a request
 * fills, with a named cwd or input files; a snippet may name a header
 * there by path ("/work/util.h"), so such a compile still sees it, but
 * neither reads nor fills the cache. Everything a cacheable compile sees
 * is then in the key or the system's: one client's files, variables or
 * flags cannot become what a later run of the same code gets. */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "runner-run-private.h"

void
_runner_compile_init (RunnerCompileState *compile)
{
  memset (compile, 0, sizeof *compile);
  compile->build_fd = -1;
}

void
_runner_compile_clear (RunnerCompileState *compile)
{
  free (compile->build_dir);
  compile->build_dir = NULL;
  if (compile->build_fd >= 0)
    close (compile->build_fd);
  compile->build_fd = -1;
}

bool
_runner_compile_running (const RunnerRun *run)
{
  return run->compile.compiling;
}

bool
_runner_compile_program_follows (const RunnerRun *run, bool started_sent)
{
  return started_sent && run->compile.compiled && !run->compile.compiling;
}

void
_runner_compile_report (const RunnerRun *run, SpExited *ev)
{
  ev->compiled = run->compile.compiled;
  ev->compile_cached = run->compile.compile_cached;
  ev->compile_failed = run->compile.compile_failed;
  ev->compile_wall_ms = run->compile.compile_wall_ms;
  ev->compile_cpu_ms = run->compile.compile_cpu_ms;
}

void
_runner_compile_plan_input (const RunnerRun *run, bool *compiling, const char **build_dir,
                            RunnerDirId *build_id)
{
  *compiling = run->compile.compiling;
  *build_dir = run->compile.build_dir;
  *build_id = run->compile.build_id;
}

static RunnerLanguage *
mutable_lang (RunnerRun *run)
{
  /* The engine's table, which the version probe fills in. */
  return runner_langs_find (run->host->langs, run->lang->name);
}

/* Whether the compile step's inputs are the code alone (see above). Its
 * view is confined only by the namespaces or Landlock: fallback mode
 * without Landlock lets it read any file of its uid, so nothing is cached
 * there. */
static bool
cacheable (RunnerRun *run)
{
  const RunnerHost *host = run->host;

  return run->req.cwd == NULL && run->n_input == 0
         && (host->namespaces || host->caps.landlock_abi > 0);
}

int
_runner_compile_prepare (RunnerRun *run)
{
  RunnerLanguage *lang = mutable_lang (run);
  const char *name = run->req.name ? run->req.name : lang->default_file;
  const char *output = lang->compiler->output;

  run->compile.compiled = true;
  run->compile.build_dir = xasprintf ("%s/build", run->dir);
  if (mkdir (run->compile.build_dir, 0700) != 0)
    return -1;
  run->compile.build_fd = open_no_symlinks (run->compile.build_dir, O_RDONLY | O_DIRECTORY);
  struct stat st;
  if (run->compile.build_fd < 0 || fstat (run->compile.build_fd, &st) != 0 || !S_ISDIR (st.st_mode))
    return -1;
  run->compile.build_id = (RunnerDirId){ st.st_dev, st.st_ino };
  if (geteuid () == 0
      && fchown (run->compile.build_fd, RUNNER_SANDBOX_NOBODY, RUNNER_SANDBOX_NOBODY) != 0)
    return -1;
  run->compile.compile_cacheable = cacheable (run);
  runner_compile_cache_key (lang, name, run->req.code, run->host->namespaces, run->req.network,
                            run->compile.cache_key);
  if (run->compile.compile_cacheable
      && runner_compile_cache_fetch (&run->host->compile_cache, run->compile.cache_key,
                                     run->compile.build_fd, output))
    {
      run->compile.compile_cached = true;
      if (geteuid () == 0
          && fchownat (run->compile.build_fd, output, RUNNER_SANDBOX_NOBODY, RUNNER_SANDBOX_NOBODY,
                       AT_SYMLINK_NOFOLLOW)
               != 0)
        return -1;
      return 0;
    }
  run->compile.compiling = true;
  return 0;
}

/* One "NAME=VALUE" of the fixed lists, "{tmp}" at the value's start
 * made the run's /tmp as the step sees it. */
static char *
fill_env (RunnerRun *run, const char *var)
{
  const char *eq = strchr (var, '=');

  if (eq != NULL && strncmp (eq + 1, "{tmp}", 5) == 0)
    return xasprintf ("%.*s%s/tmp%s", (int) (eq + 1 - var), var,
                      run->host->namespaces ? "" : run->dir, eq + 6);
  return xstrdup (var);
}

char **
_runner_compile_env (RunnerRun *run)
{
  const char *const *own = run->lang->compiler->env;
  size_t n_base = sp_strv_length ((char *const *) runner_compile_env_base);
  size_t n_own = sp_strv_length ((char *const *) own);
  char **envp = xcalloc (n_base + n_own + 1, sizeof *envp);
  size_t n = 0;

  for (size_t i = 0; i < n_base; i++)
    envp[n++] = fill_env (run, runner_compile_env_base[i]);
  for (size_t i = 0; i < n_own; i++)
    envp[n++] = fill_env (run, own[i]);
  envp[n] = NULL;
  return envp;
}

char **
_runner_compile_step_argv (RunnerRun *run, const char **path)
{
  const RunnerLanguage *lang = run->lang;
  cleanup_free char *out = xasprintf ("%s/%s", run->compile.build_dir, lang->compiler->output);

  if (run->compile.compiling)
    {
      *path = lang->path;
      return runner_lang_compile_argv (lang, run->code_path, out);
    }
  if (lang->compiler->runtime != NULL)
    {
      const RunnerLanguage *rt = runner_langs_find (run->host->langs, lang->compiler->runtime);
      if (rt == NULL || rt->path == NULL)
        return NULL;
      *path = rt->path;
      return runner_lang_compiled_argv (lang, rt->path, out, run->req.args);
    }
  char **argv = runner_lang_compiled_argv (lang, NULL, out, run->req.args);
  *path = argv[0];
  return argv;
}

int
_runner_compile_step_done (RunnerRun *run)
{
  const RunnerReport *r = &run->report;
  bool ok = run->have_report && r->kind == RUNNER_REPORT_EXITED && WIFEXITED (r->wait_status)
            && WEXITSTATUS (r->wait_status) == 0 && run->limit == SP_LIMIT_NONE
            && run->cancel_stage == SP_CANCEL_NONE && run->failure == NULL;

  run->compile.compiling = false;
  if (run->have_report)
    {
      run->compile.compile_wall_ms = r->wall_ns / 1000000;
      run->compile.compile_cpu_ms = r->cpu_ns / 1000000;
    }
  if (!ok)
    {
      /* The run ends with the compile step: its status, its stderr's
       * first diagnostic, its own limit. */
      run->compile.compile_failed = true;
      if (run->limit == SP_LIMIT_TIME)
        run->limit = SP_LIMIT_COMPILE_TIME;
      return 0;
    }
  int dir_fd = run->compile.build_fd;
  /* The linker's chmod is refused in fallback mode (seccomp: metadata
   * calls reach any file the uid owns): the runner makes the output
   * executable, once it is known to be a regular file. */
  cleanup_fd int out_fd = dir_fd < 0 ? -1
                                     : openat (dir_fd, run->lang->compiler->output,
                                               O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (out_fd < 0 || fstat (out_fd, &st) != 0 || !S_ISREG (st.st_mode) || fchmod (out_fd, 0755) != 0)
    {
      run->compile.compile_failed = true;
      run->failure = xasprintf ("the compiler left no program (%s)", run->lang->compiler->output);
      return 0;
    }
  if (dir_fd >= 0 && run->compile.compile_cacheable)
    runner_compile_cache_store (&run->host->compile_cache, run->compile.cache_key, dir_fd,
                                run->lang->compiler->output);

  /* The caller (runner-run.c) resets the run for the program step and
   * spawns it: this file never calls back up. */
  return 1;
}
