/* runner-plan-build.c: what a run's sandbox plan is made from (see
 * runner-launch.h): the request (network, memory, time, directories) and
 * the engine's config and host (mode, Landlock, seccomp, caps), gathered
 * as the sandbox's RunnerPlanFacts. The sandbox makes the plan
 * (runner_plan_make, ../sandbox/runner-plan-make.c): every layer and
 * limit is decided there. A layer the host lacks is waived by name
 * (_runner_host_waived); the sandbox refuses a plan that leaves one out
 * otherwise. Cold, warm and session launches share this and nothing else. */
#include <string.h>
#include <unistd.h>

#include "runner-base.h"
#include "runner-launch.h"

void
_runner_plan_build (RunnerHost *host, const RunnerLaunchInput *in, RunnerLaunchKind kind,
                    const char *path, char **argv, char **envp, RunnerLaunch *l)
{
  const RunnerConfig *config = &host->config;
  RunnerPlanFacts facts = {
    .namespaces = host->namespaces,
    .landlock_abi = host->caps.landlock_abi,
    .seccomp = _runner_host_seccomp (host, in->network),
    .waived = _runner_host_waived (host, in->network),
    .max_processes = config->max_processes,
    .disk_limit = config->disk_limit,
    .open_files = in->open_files > config->open_files ? in->open_files : config->open_files,
    .context_dirs = host->ro_dirs,
    .context_ids = host->ro_ids,
    .interpreter = kind == RUNNER_LAUNCH_INTERPRETER,
    .compiling = in->compiling,
    .dir = in->dir,
    .cwd = in->cwd,
    .cwd_dev = in->cwd_dev,
    .cwd_ino = in->cwd_ino,
    .cwd_sub = in->cwd_sub,
    .named_cwd = in->named_cwd,
    .cwd_at_host_path = in->cwd_at_host_path,
    .in_session = in->in_session,
    .network = in->network,
    .memory_mib = in->memory_mib,
    .timeout_ms = in->compiling ? config->compile_timeout_ms : in->timeout_ms,
    .build_dir = in->build_dir,
    .build_id = in->build_id,
    .env_dir = in->env_dir,
    .env_writable = in->env_writable,
    .env_id = in->env_id,
    .extra_ro = in->extra_ro,
    .prelude_dir = in->prelude_dir,
  };

  memset (l, 0, sizeof *l);
  l->argv = argv;
  l->envp = envp;
  runner_plan_make (&facts, &l->plan, &l->strings);
  l->spec = (RunnerSpawnSpec){
    .path = path,
    .argv = l->argv,
    .envp = l->envp,
    .cwd = l->strings.start_dir,
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
  runner_plan_strings_clear (&l->strings);
  memset (l, 0, sizeof *l);
}
