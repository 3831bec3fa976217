/* runner-plan-build.c: the one place a run's sandbox plan is made (see
 * runner-launch.h). Every field of RunnerSandboxPlan is set here, from the
 * request (network, memory, time) and the engine's config (mode,
 * Landlock, seccomp, caps). A layer the host lacks is waived by name
 * (_runner_host_waived); the sandbox refuses a plan that leaves one out
 * otherwise. Cold, warm and session launches share this and nothing else. */
#include <string.h>
#include <unistd.h>

#include "runner-base.h"
#include "runner-launch.h"

/* The config's read-only directories (held by the engine, with their
 * ids) and the run's own (an install step's, the runner's own
 * directories: unchecked, id 0). A compile step gets neither: what it
 * sees decides an output the cache hands to later runs (issue 37), and
 * a context path is the program's to read, not a build input whose
 * contents the cache key could hold. */
static void
read_only_dirs (RunnerHost *host, const RunnerLaunchInput *in, RunnerLaunchKind kind,
                RunnerLaunch *l)
{
  char *const *common = in->compiling ? NULL : host->ro_dirs;
  size_t a = sp_strv_length (common);
  size_t b = kind == RUNNER_LAUNCH_STEP && !in->compiling ? sp_strv_length (in->extra_ro) : 0;

  l->read_only = xcalloc (a + b + 1, sizeof *l->read_only);
  l->read_only_ids = xcalloc (a + b + 1, sizeof *l->read_only_ids);
  for (size_t i = 0; i < a; i++)
    {
      l->read_only[i] = xstrdup (common[i]);
      l->read_only_ids[i] = host->ro_ids[i];
    }
  for (size_t i = 0; i < b; i++)
    l->read_only[a + i] = xstrdup (in->extra_ro[i]);
}

void
_runner_plan_build (RunnerHost *host, const RunnerLaunchInput *in, RunnerLaunchKind kind,
                    const char *path, char **argv, char **envp, RunnerLaunch *l)
{
  const RunnerConfig *config = &host->config;
  bool step = kind == RUNNER_LAUNCH_STEP;

  memset (l, 0, sizeof *l);
  l->argv = argv;
  l->envp = envp;
  l->root_dir = xasprintf ("%s/root", in->dir);
  l->code_dir = xasprintf ("%s/code", in->dir);
  l->tmp_dir = xasprintf ("%s/tmp", in->dir);
  read_only_dirs (host, in, kind, l);

  int64_t step_timeout_ms = in->compiling ? config->compile_timeout_ms : in->timeout_ms;

  /* A named cwd at its own path too (namespace mode; fallback mode runs
   * at host paths anyway), unless that path would shadow a part of the
   * private root: then at /work only. Never a session's: its interpreter
   * outlives the run's cwd. */
  const char *why_not = NULL;
  bool at_host_path = step && host->namespaces && in->cwd_at_host_path && in->named_cwd
                      && !in->in_session && runner_sandbox_host_path_ok (in->cwd, &why_not);

  /* A compiled language's build directory takes the environment's place:
   * writable for the compile step only. The runner made it in the run's
   * own directory and holds it since (the run's build_fd); the sandbox binds
   * it only when the name still leads to that directory (build_id), as
   * it does an environment. A session's interpreter gets its first run's
   * environment, read-only, for its whole life, as a cold run does (the
   * session refuses a later run naming another one). */
  const char *env_dir = NULL;
  bool env_writable = false;
  RunnerDirId env_id = { 0, 0 };
  if (step && in->build_dir != NULL)
    {
      env_dir = in->build_dir;
      env_writable = in->compiling;
      env_id = in->build_id;
    }
  else
    {
      env_dir = in->env_dir;
      env_writable = step && in->env_writable;
      env_id = in->env_id;
    }

  /* The program starts in the cwd, or beneath it where the run was given
   * a whole workspace (in->cwd_sub, checked beneath the held cwd). */
  const char *cwd_base = host->namespaces && !at_host_path ? RUNNER_SANDBOX_WORK : in->cwd;
  l->cwd = step && in->cwd_sub != NULL ? xasprintf ("%s/%s", cwd_base, in->cwd_sub)
                                       : xstrdup (cwd_base);

  l->plan = (RunnerSandboxPlan){
    .namespaces = host->namespaces,
    .network = in->network,
    .landlock_abi = host->caps.landlock_abi,
    .seccomp = _runner_host_seccomp (host, in->network),
    .waived = _runner_host_waived (host, in->network),
    .drop_to_nobody = geteuid () == 0,
    /* The run's own cap. Fallback mode's RLIMIT_NPROC counts the uid's
     * tasks: the program adds the kernel's count of them to it itself,
     * right before it sets the limit (runner-nproc.h). A count taken here
     * was stale by the time the program started, and missed most of
     * what the kernel counts. */
    .max_processes = config->max_processes,
    .tmp_bytes = config->disk_limit,
    .root_dir = l->root_dir,
    .work_dir = in->cwd,
    /* The sandbox looks the working directory up again (it must, to bind
     * or enter it) and refuses any other directory than the one held. */
    .work_dev = in->cwd_dev,
    .work_ino = in->cwd_ino,
    .work_at_host_path = at_host_path,
    .code_dir = l->code_dir,
    .prelude_dir = host->namespaces ? in->prelude_dir : NULL,
    .tmp_dir = l->tmp_dir,
    .read_only_dirs = l->read_only,
    .read_only_ids = l->read_only_ids,
    .env_dir = env_dir,
    .env_writable = env_writable,
    .env_id = env_id,
    .limits = {
      .memory_bytes = in->memory_mib * 1024 * 1024,
      /* A step's CPU backstop is one second past the step's wall limit,
       * in case the timer cannot fire (a stopped runner); the wall limit
       * normally wins. A compile step has its own limit: with the
       * program's, a short timeout killed a Go compile (CPU past 1.5 s on
       * a loaded machine). A session's interpreter has none: it lives
       * across runs. */
      .cpu_seconds = step ? (step_timeout_ms + 999) / 1000 + 1 : 0,
      .file_size_bytes = config->disk_limit,
      .open_files = config->open_files,
      .cgroup_tasks = config->max_processes + 4,
    },
  };
  /* The run's cgroups, where the runner has them: its memory limit then
   * also holds what the kernel keeps for it, and the private /tmp's tmpfs
   * pages (bounded by the disk cap already) are charged there too. Made
   * from the plan's own figures, so the two cannot drift apart. */
  l->plan.limits.cgroup_memory_bytes = l->plan.limits.memory_bytes
                                       + (l->plan.namespaces ? l->plan.tmp_bytes : 0);
  l->spec = (RunnerSpawnSpec){
    .path = path,
    .argv = l->argv,
    .envp = l->envp,
    .cwd = l->cwd,
    .sandbox = &l->plan,
    .stdin_fd = -1,
    .stdout_fd = -1,
    .stderr_fd = -1,
    .control_fd = -1,
    .status_fd = -1,
  };
}

void
_runner_launch_clear (RunnerLaunch *l)
{
  sp_strv_free (l->argv);
  sp_strv_free (l->envp);
  free (l->root_dir);
  free (l->cwd);
  free (l->code_dir);
  free (l->tmp_dir);
  sp_strv_free (l->read_only);
  free (l->read_only_ids);
  memset (l, 0, sizeof *l);
}
