/* runner-plan-make.c: a run's sandbox plan from the facts the runner
 * gathers (see runner-plan-make.h). A layer the host lacks is waived by
 * name in the facts; runner_sandbox_plan_check refuses a plan that leaves
 * one out otherwise. */
#include "runner-plan-make.h"

#include <string.h>
#include <unistd.h>

static size_t
strv_length (char *const *strv)
{
  size_t n = 0;

  while (strv != NULL && strv[n] != NULL)
    n++;
  return n;
}

static char *
copy (const char *s)
{
  return xasprintf ("%s", s);
}

/* The context directories (held by the runner, with their ids) and the
 * run's own (an install step's, the runner's own directories: unchecked,
 * id 0). A compile step gets neither: what it sees decides an output the
 * cache hands to later runs (issue 37), and a context path is the
 * program's to read, not a build input whose contents the cache key could
 * hold. A session's interpreter gets the context directories only. */
static void
read_only_dirs (const RunnerPlanFacts *f, RunnerPlanStrings *s)
{
  char *const *common = f->compiling ? NULL : f->context_dirs;
  size_t a = strv_length (common);
  size_t b = !f->interpreter && !f->compiling ? strv_length (f->extra_ro) : 0;

  s->read_only = xmalloc ((a + b + 1) * sizeof *s->read_only);
  s->read_only_ids = xmalloc ((a + b + 1) * sizeof *s->read_only_ids);
  memset (s->read_only_ids, 0, (a + b + 1) * sizeof *s->read_only_ids);
  for (size_t i = 0; i < a; i++)
    {
      s->read_only[i] = copy (common[i]);
      s->read_only_ids[i] = f->context_ids[i];
    }
  for (size_t i = 0; i < b; i++)
    s->read_only[a + i] = copy (f->extra_ro[i]);
  s->read_only[a + b] = NULL;
}

void
runner_plan_make (const RunnerPlanFacts *f, RunnerSandboxPlan *plan, RunnerPlanStrings *s)
{
  bool step = !f->interpreter;

  memset (s, 0, sizeof *s);
  s->root_dir = xasprintf ("%s/root", f->dir);
  s->code_dir = xasprintf ("%s/code", f->dir);
  s->tmp_dir = xasprintf ("%s/tmp", f->dir);
  read_only_dirs (f, s);

  /* A named cwd at its own path too (namespace mode; fallback mode runs
   * at host paths anyway), unless that path would shadow a part of the
   * private root: then at /work only. Never a session's: its interpreter
   * outlives the run's cwd. */
  const char *why_not = NULL;
  bool at_host_path = step && f->namespaces && f->cwd_at_host_path && f->named_cwd && !f->in_session
                      && runner_sandbox_host_path_ok (f->cwd, &why_not);

  /* A compiled language's build directory takes the environment's place:
   * writable for the compile step only. The runner made it in the run's
   * own directory and holds it since (build_id); the sandbox binds it
   * only when the name still leads to that directory, as it does an
   * environment. A session's interpreter gets its first run's
   * environment, read-only, for its whole life, as a cold run does. */
  const char *env_dir = f->env_dir;
  bool env_writable = step && f->env_writable;
  RunnerDirId env_id = f->env_id;
  if (step && f->build_dir != NULL)
    {
      env_dir = f->build_dir;
      env_writable = f->compiling;
      env_id = f->build_id;
    }

  /* The program starts in the cwd, or beneath it where the run was given
   * a whole workspace (cwd_sub, checked beneath the held cwd). */
  const char *cwd_base = f->namespaces && !at_host_path ? RUNNER_SANDBOX_WORK : f->cwd;
  s->start_dir = step && f->cwd_sub != NULL ? xasprintf ("%s/%s", cwd_base, f->cwd_sub)
                                            : copy (cwd_base);

  *plan = (RunnerSandboxPlan){
    .namespaces = f->namespaces,
    .network = f->network,
    .landlock_abi = f->landlock_abi,
    .seccomp = f->seccomp,
    .waived = f->waived,
    .drop_to_nobody = geteuid () == 0,
    /* The run's own cap. Fallback mode's RLIMIT_NPROC counts the uid's
     * tasks: the program adds the kernel's count of them to it itself,
     * right before it sets the limit (runner-nproc.h). A count taken here
     * was stale by the time the program started, and missed most of
     * what the kernel counts. */
    .max_processes = f->max_processes,
    .tmp_bytes = f->disk_limit,
    .root_dir = s->root_dir,
    .work_dir = f->cwd,
    /* The sandbox looks the working directory up again (it must, to bind
     * or enter it) and refuses any other directory than the one held. */
    .work_dev = f->cwd_dev,
    .work_ino = f->cwd_ino,
    .work_at_host_path = at_host_path,
    .code_dir = s->code_dir,
    .prelude_dir = f->namespaces ? f->prelude_dir : NULL,
    .tmp_dir = s->tmp_dir,
    .read_only_dirs = s->read_only,
    .read_only_ids = s->read_only_ids,
    .env_dir = env_dir,
    .env_writable = env_writable,
    .env_id = env_id,
    .limits = {
      .memory_bytes = f->memory_mib * 1024 * 1024,
      /* A step's CPU backstop is one second past its wall limit, in case
       * the timer cannot fire (a stopped runner); the wall limit normally
       * wins. A compile step has its own limit: with the program's, a
       * short timeout killed a Go compile (CPU past 1.5 s on a loaded
       * machine). A session's interpreter has none: it lives across
       * runs. */
      .cpu_seconds = step ? (f->timeout_ms + 999) / 1000 + 1 : 0,
      .file_size_bytes = f->disk_limit,
      .open_files = f->open_files,
      .cgroup_tasks = f->max_processes + 4,
    },
  };
  /* The run's cgroups, where the runner has them: its memory limit then
   * also holds what the kernel keeps for it, and the private /tmp's tmpfs
   * pages (bounded by the disk cap already) are charged there too. Made
   * from the plan's own figures, so the two cannot drift apart. */
  plan->limits.cgroup_memory_bytes = plan->limits.memory_bytes
                                     + (plan->namespaces ? plan->tmp_bytes : 0);
}

void
runner_plan_strings_clear (RunnerPlanStrings *s)
{
  free (s->root_dir);
  free (s->code_dir);
  free (s->tmp_dir);
  free (s->start_dir);
  for (size_t i = 0; s->read_only != NULL && s->read_only[i] != NULL; i++)
    free (s->read_only[i]);
  free (s->read_only);
  free (s->read_only_ids);
  memset (s, 0, sizeof *s);
}
