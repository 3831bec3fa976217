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
 * (build_fd, its id build_id): the runner reads, marks
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
#include <unistd.h>

#include "runner-base.h"
#include "runner-compile.h"
#include "runner-util.h"

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
_runner_compile_running (const RunnerCompileState *compile)
{
  return compile->compiling;
}

bool
_runner_compile_program_follows (const RunnerCompileState *compile, bool started_sent)
{
  return started_sent && compile->compiled && !compile->compiling;
}

void
_runner_compile_report (const RunnerCompileState *compile, SpExited *ev)
{
  ev->compiled = compile->compiled;
  ev->compile_cached = compile->compile_cached;
  ev->compile_failed = compile->compile_failed;
  ev->compile_wall_ms = compile->compile_wall_ms;
  ev->compile_cpu_ms = compile->compile_cpu_ms;
}

void
_runner_compile_plan_input (const RunnerCompileState *compile, bool *compiling,
                            const char **build_dir, RunnerDirId *build_id)
{
  *compiling = compile->compiling;
  *build_dir = compile->build_dir;
  *build_id = compile->build_id;
}

int
_runner_compile_prepare (RunnerCompileState *compile, const RunnerCompileInput *in)
{
  RunnerLanguage *lang = in->lang;
  const char *name = in->name != NULL ? in->name : lang->default_file;
  const char *output = lang->compiler->output;

  compile->in = *in;
  compile->compiled = true;
  compile->build_dir = xasprintf ("%s/build", in->dir);
  if (mkdir (compile->build_dir, 0700) != 0)
    return -1;
  compile->build_fd = open_no_symlinks (compile->build_dir, O_RDONLY | O_DIRECTORY);
  struct stat st;
  if (compile->build_fd < 0 || fstat (compile->build_fd, &st) != 0 || !S_ISDIR (st.st_mode))
    return -1;
  compile->build_id = (RunnerDirId){ st.st_dev, st.st_ino };
  if (geteuid () == 0
      && fchown (compile->build_fd, RUNNER_SANDBOX_NOBODY, RUNNER_SANDBOX_NOBODY) != 0)
    return -1;
  /* Fallback mode without Landlock lets the compile step read any file of
   * its uid: the caller says so in code_alone, and nothing is cached. */
  compile->compile_cacheable = in->code_alone;
  runner_compile_cache_key (lang, name, in->code, in->namespaces, in->network, compile->cache_key);
  if (compile->compile_cacheable
      && runner_compile_cache_fetch (in->cache, compile->cache_key, compile->build_fd, output))
    {
      compile->compile_cached = true;
      if (geteuid () == 0
          && fchownat (compile->build_fd, output, RUNNER_SANDBOX_NOBODY, RUNNER_SANDBOX_NOBODY,
                       AT_SYMLINK_NOFOLLOW)
               != 0)
        return -1;
      return 0;
    }
  compile->compiling = true;
  return 0;
}

/* One "NAME=VALUE" of the fixed lists, "{tmp}" at the value's start
 * made the run's /tmp as the step sees it. */
static char *
fill_env (const RunnerCompileState *compile, const char *var)
{
  const char *eq = strchr (var, '=');

  if (eq != NULL && strncmp (eq + 1, "{tmp}", 5) == 0)
    return xasprintf ("%.*s%s/tmp%s", (int) (eq + 1 - var), var,
                      compile->in.namespaces ? "" : compile->in.dir, eq + 6);
  return xstrdup (var);
}

char **
_runner_compile_env (const RunnerCompileState *compile)
{
  const char *const *own = compile->in.lang->compiler->env;
  size_t n_base = sp_strv_length ((char *const *) runner_compile_env_base);
  size_t n_own = sp_strv_length ((char *const *) own);
  char **envp = xcalloc (n_base + n_own + 1, sizeof *envp);
  size_t n = 0;

  for (size_t i = 0; i < n_base; i++)
    envp[n++] = fill_env (compile, runner_compile_env_base[i]);
  for (size_t i = 0; i < n_own; i++)
    envp[n++] = fill_env (compile, own[i]);
  envp[n] = NULL;
  return envp;
}

char **
_runner_compile_step_argv (const RunnerCompileState *compile, const char **path)
{
  const RunnerLanguage *lang = compile->in.lang;
  cleanup_free char *out = xasprintf ("%s/%s", compile->build_dir, lang->compiler->output);

  if (compile->compiling)
    {
      *path = lang->path;
      return runner_lang_compile_argv (lang, compile->in.code_path, out);
    }
  if (lang->compiler->runtime != NULL)
    {
      const RunnerLanguage *rt = compile->in.runtime;
      if (rt == NULL || rt->path == NULL)
        return NULL;
      *path = rt->path;
      return runner_lang_compiled_argv (lang, rt->path, out, compile->in.args);
    }
  char **argv = runner_lang_compiled_argv (lang, NULL, out, compile->in.args);
  *path = argv[0];
  return argv;
}

int
_runner_compile_step_done (RunnerCompileState *compile, const RunnerReport *r, bool ok,
                           SpLimit *limit, char **failure)
{
  const char *output = compile->in.lang->compiler->output;

  ok = ok && r != NULL && r->kind == RUNNER_REPORT_EXITED && WIFEXITED (r->wait_status)
       && WEXITSTATUS (r->wait_status) == 0;
  compile->compiling = false;
  if (r != NULL)
    {
      compile->compile_wall_ms = r->wall_ns / 1000000;
      compile->compile_cpu_ms = r->cpu_ns / 1000000;
    }
  if (!ok)
    {
      /* The run ends with the compile step: its status, its stderr's
       * first diagnostic, its own limit. */
      compile->compile_failed = true;
      if (*limit == SP_LIMIT_TIME)
        *limit = SP_LIMIT_COMPILE_TIME;
      return 0;
    }
  int dir_fd = compile->build_fd;
  /* The linker's chmod is refused in fallback mode (seccomp: metadata
   * calls reach any file the uid owns): the runner makes the output
   * executable, once it is known to be a regular file. */
  cleanup_fd int out_fd = dir_fd < 0 ? -1
                                     : openat (dir_fd, output, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (out_fd < 0 || fstat (out_fd, &st) != 0 || !S_ISREG (st.st_mode) || fchmod (out_fd, 0755) != 0)
    {
      compile->compile_failed = true;
      *failure = xasprintf ("the compiler left no program (%s)", output);
      return 0;
    }
  if (dir_fd >= 0 && compile->compile_cacheable)
    runner_compile_cache_store (compile->in.cache, compile->cache_key, dir_fd, output);

  /* The caller (runner-run.c) resets the run for the program step and
   * spawns it: this file never calls back up. */
  return 1;
}
