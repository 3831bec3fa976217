/* The one plan builder (src/runner/engine/runner-plan-build.c): a run's
 * step and a session's interpreter get every layer from the same request
 * and config, and differ only where they must (the interpreter has no CPU
 * backstop, no environment directory and no install step's read-only
 * directories); a step's plan passes the warm path's strict decoder, so a
 * warm spare gets the same layers as a cold run. No process is started:
 * the host is filled by hand, as runner_engine_new() would fill it, and
 * each run goes through _runner_launch_build, so what a run gives the
 * builder (its RunnerLaunchInput: its cwd, and where a step starts beneath
 * a workspace given whole) is checked with it. */
#include <string.h>
#include <unistd.h>

#include "../protocol/tap.h"
#include "runner-plan.h"
#include "runner-run-private.h"

static char *ro_dirs[] = { (char *) "/ctx/one", (char *) "/ctx/two", NULL };
static RunnerDirId ro_ids[] = { { 2049, 5501 }, { 2050, 5502 } };
static char *extra_ro[] = { (char *) "/install/wheels", NULL };

static RunnerHost *
host_new (bool namespaces)
{
  RunnerHost *host = xcalloc (1, sizeof *host);

  runner_config_init (&host->config);
  host->namespaces = namespaces;
  host->caps.landlock_abi = 4;
  host->caps.seccomp = true;
  host->ro_dirs = ro_dirs;
  host->ro_ids = ro_ids;
  return host;
}

static void
host_free (RunnerHost *host)
{
  for (int i = 0; i < 2; i++)
    {
      free (host->seccomp[i].allow.filter);
      free (host->seccomp[i].rules.filter);
    }
  free (host);
}

static void
run_init (RunnerRun *run, RunnerHost *host)
{
  memset (run, 0, sizeof *run);
  run->host = host;
  run->dir = (char *) "/r/run-7";
  run->cwd = (char *) "/r/run-7/work";
  run->cwd_dev = 2049;
  run->cwd_ino = 77;
  run->req.network = false;
  run->req.memory_mib = 512;
  run->req.timeout_ms = 30000;
}

static char **
argv_new (void)
{
  char **argv = xcalloc (2, sizeof *argv);

  argv[0] = xstrdup ("python3");
  return argv;
}

/* Every layer the request and config decide, alike in both plans. */
static bool
same_layers (const RunnerLaunch *a, const RunnerLaunch *b)
{
  const RunnerSandboxPlan *p = &a->plan, *q = &b->plan;

  return p->namespaces == q->namespaces && p->network == q->network
         && p->landlock_abi == q->landlock_abi && p->seccomp == q->seccomp
         && p->drop_to_nobody == q->drop_to_nobody && p->max_processes == q->max_processes
         && p->tmp_bytes == q->tmp_bytes && strcmp (p->root_dir, q->root_dir) == 0
         && strcmp (p->work_dir, q->work_dir) == 0 && p->work_dev == q->work_dev
         && p->work_ino == q->work_ino && strcmp (p->code_dir, q->code_dir) == 0
         && strcmp (p->tmp_dir, q->tmp_dir) == 0 && strcmp (a->spec.cwd, b->spec.cwd) == 0
         && a->plan.limits.memory_bytes == b->plan.limits.memory_bytes
         && a->plan.limits.file_size_bytes == b->plan.limits.file_size_bytes
         && a->plan.limits.open_files == b->plan.limits.open_files;
}

static size_t
count (char *const *v)
{
  size_t n = 0;

  while (v != NULL && v[n] != NULL)
    n++;
  return n;
}

int
main (void)
{
  RunnerHost *host = host_new (true);
  RunnerRun run;
  RunnerLaunch step, interp;

  plan (25);

  run_init (&run, host);
  run.extra_ro = extra_ro;
  run.env.dir = (char *) "/home/u/.venv";
  run.env.dev = 2051;
  run.env.ino = 88;
  _runner_launch_build (&run, RUNNER_LAUNCH_STEP, "/usr/bin/python3", argv_new (), NULL, &step);
  _runner_launch_build (&run, RUNNER_LAUNCH_INTERPRETER, "/usr/bin/python3", argv_new (), NULL,
                        &interp);

  const RunnerSandboxPlan *p = &step.plan;
  ok (p->namespaces && !p->network && p->landlock_abi == 4 && p->seccomp != NULL
        && p->drop_to_nobody == (geteuid () == 0) && p->max_processes == host->config.max_processes
        && p->tmp_bytes == host->config.disk_limit,
      "a step's plan has every layer the config allows");
  ok (strcmp (p->root_dir, "/r/run-7/root") == 0 && strcmp (p->code_dir, "/r/run-7/code") == 0
        && strcmp (p->tmp_dir, "/r/run-7/tmp") == 0 && strcmp (p->work_dir, run.cwd) == 0
        && p->work_dev == 2049 && p->work_ino == 77,
      "its directories are the run's, the working directory as held");
  ok (step.spec.sandbox == &step.plan && strcmp (step.spec.cwd, RUNNER_SANDBOX_WORK) == 0
        && step.plan.limits.memory_bytes == 512 << 20 && step.plan.limits.cpu_seconds == 31
        && step.plan.limits.file_size_bytes == host->config.disk_limit
        && step.plan.limits.open_files == host->config.open_files,
      "its limits: memory, a CPU backstop a second past the time limit, file size, files");
  ok (step.plan.limits.cgroup_memory_bytes == (512 << 20) + host->config.disk_limit
        && step.plan.limits.cgroup_tasks == host->config.max_processes + 4,
      "and its cgroups': the memory limit and the private /tmp, the process cap and a margin");
  ok (count (p->read_only_dirs) == 3 && strcmp (p->read_only_dirs[2], "/install/wheels") == 0
        && p->read_only_ids[1].ino == 5502 && p->read_only_ids[2].ino == 0,
      "its read-only directories: the config's with their ids, then the run's own");
  ok (p->env_dir != NULL && strcmp (p->env_dir, "/home/u/.venv") == 0 && !p->env_writable
        && p->env_id.dev == 2051 && p->env_id.ino == 88,
      "its environment directory, read-only, with the id it was checked as");
  ok (step.spec.stdin_fd == -1 && step.spec.control_fd == -1 && step.spec.n_extra_fds == 0
        && step.spec.cgroup_fds == NULL,
      "no fd is given before the launcher gives it");

  ok (same_layers (&step, &interp), "a session's interpreter gets the same layers as a step");
  ok (interp.plan.limits.cpu_seconds == 0, "but no CPU backstop: it lives across runs");
  ok (interp.plan.env_dir != NULL && strcmp (interp.plan.env_dir, "/home/u/.venv") == 0
        && !interp.plan.env_writable && interp.plan.env_id.ino == 88,
      "the run's environment directory, read-only, with its id, for the session's life");
  ok (count (interp.plan.read_only_dirs) == 2, "but not an install's read-only directories");
  _runner_launch_clear (&step);
  _runner_launch_clear (&interp);

  /* A compiled language: the build directory takes the environment's
   * place, writable for the compile step only, bound only as the
   * directory the runner made and holds (its id). */
  run_init (&run, host);
  run.compile.build_dir = (char *) "/r/run-7/build";
  run.compile.build_id = (RunnerDirId){ 2049, 4242 };
  run.compile.compiling = true;
  _runner_launch_build (&run, RUNNER_LAUNCH_STEP, "/usr/bin/go", argv_new (), NULL, &step);
  bool compile_ok = step.plan.env_writable
                    && strcmp (step.plan.env_dir, run.compile.build_dir) == 0;
  bool compile_id = step.plan.env_id.dev == 2049 && step.plan.env_id.ino == 4242;
  int64_t compile_cpu = step.plan.limits.cpu_seconds;
  size_t compile_ro = count (step.plan.read_only_dirs);
  _runner_launch_clear (&step);
  run.compile.compiling = false;
  _runner_launch_build (&run, RUNNER_LAUNCH_STEP, "/r/run-7/build/a.out", argv_new (), NULL, &step);
  /* What the compile step sees decides what the cache hands later runs
   * (issue 37): the context paths are the program's to read only. */
  ok (compile_ro == 0 && count (step.plan.read_only_dirs) == 2,
      "the compile step is shown no context path, the program step both");
  ok (compile_ok && !step.plan.env_writable, "a build directory is writable while compiling only");
  ok (compile_id && step.plan.env_id.ino == 4242, "and bound by the id it is held as");
  ok (compile_cpu == (host->config.compile_timeout_ms + 999) / 1000 + 1
        && step.plan.limits.cpu_seconds == 31,
      "the compile step's CPU backstop follows the compile's limit, the program's its own");
  _runner_launch_clear (&step);

  /* An assistant's workspace at its own host path too (namespace mode),
   * the program started there; never a session's, nor a path that would
   * shadow a part of the private root. */
  run_init (&run, host);
  run.cwd = (char *) "/home/u/project";
  run.req.cwd = run.cwd;
  run.cwd_at_host_path = true;
  _runner_launch_build (&run, RUNNER_LAUNCH_STEP, "/bin/bash", argv_new (), NULL, &step);
  _runner_launch_build (&run, RUNNER_LAUNCH_INTERPRETER, "/usr/bin/python3", argv_new (), NULL,
                        &interp);
  bool host_ok = step.plan.work_at_host_path && strcmp (step.spec.cwd, run.cwd) == 0
                 && !interp.plan.work_at_host_path
                 && strcmp (interp.spec.cwd, RUNNER_SANDBOX_WORK) == 0;
  _runner_launch_clear (&step);
  _runner_launch_clear (&interp);
  run.cwd = (char *) "/usr/share/project";
  run.req.cwd = run.cwd;
  _runner_launch_build (&run, RUNNER_LAUNCH_STEP, "/bin/bash", argv_new (), NULL, &step);
  host_ok = host_ok && !step.plan.work_at_host_path
            && strcmp (step.spec.cwd, RUNNER_SANDBOX_WORK) == 0;
  _runner_launch_clear (&step);
  ok (host_ok, "a workspace at its own host path where allowed, at /work only otherwise");
  run.req.cwd = NULL;

  /* execute_command's work_dir with the whole workspace in view
   * (RunnerRunOptions.cwd_root): the plan binds and grants the workspace,
   * and the program starts beneath it, by /work or by its host path; a
   * session's interpreter starts at the workspace itself. */
  run_init (&run, host);
  run.cwd = (char *) "/home/u/project";
  run.req.cwd = run.cwd;
  run.cwd_sub = (char *) "src/lib";
  _runner_launch_build (&run, RUNNER_LAUNCH_STEP, "/bin/bash", argv_new (), NULL, &step);
  _runner_launch_build (&run, RUNNER_LAUNCH_INTERPRETER, "/usr/bin/python3", argv_new (), NULL,
                        &interp);
  bool sub_ok = strcmp (step.plan.work_dir, "/home/u/project") == 0
                && strcmp (step.spec.cwd, RUNNER_SANDBOX_WORK "/src/lib") == 0
                && strcmp (interp.spec.cwd, RUNNER_SANDBOX_WORK) == 0;
  _runner_launch_clear (&step);
  _runner_launch_clear (&interp);
  run.cwd_at_host_path = true;
  _runner_launch_build (&run, RUNNER_LAUNCH_STEP, "/bin/bash", argv_new (), NULL, &step);
  sub_ok = sub_ok && step.plan.work_at_host_path
           && strcmp (step.spec.cwd, "/home/u/project/src/lib") == 0;
  _runner_launch_clear (&step);
  ok (sub_ok, "a workspace given whole: the plan holds it, the program starts beneath it");
  run.req.cwd = NULL;
  run.cwd_sub = NULL;

  /* What the warm path sends is this plan, and it passes the strict
   * decoder whole: no layer is left out on the way to a spare. */
  run_init (&run, host);
  _runner_launch_build (&run, RUNNER_LAUNCH_STEP, "/usr/bin/python3", argv_new (), NULL, &step);
  Buf buf = { 0 };
  RunnerPlanMsg m;
  runner_plan_encode (&buf, &step.plan, &step.spec, NULL);
  ok (runner_plan_decode (buf.data, buf.len, RUNNER_PLAN_RUN, &m) == 0 && m.plan.namespaces
        && m.plan.landlock_abi == 4 && m.use_seccomp
        && m.plan.max_processes == step.plan.max_processes && m.n_ro == 2
        && m.plan.limits.cpu_seconds == 31
        && m.plan.limits.memory_bytes == step.plan.limits.memory_bytes,
      "a step's plan passes the warm path's strict decoder with every layer");
  buf_clear (&buf);
  _runner_launch_clear (&step);
  host_free (host);

  /* Fallback mode: the program runs in the run's own directory, under
   * the fallback seccomp filter; the plan holds the run's own process cap,
   * over which the program sets RLIMIT_NPROC from the kernel's count of
   * its uid's tasks itself (runner-nproc.h). */
  host = host_new (false);
  run_init (&run, host);
  _runner_launch_build (&run, RUNNER_LAUNCH_STEP, "/usr/bin/python3", argv_new (), NULL, &step);
  _runner_launch_build (&run, RUNNER_LAUNCH_INTERPRETER, "/usr/bin/python3", argv_new (), NULL,
                        &interp);
  ok (!step.plan.namespaces && strcmp (step.spec.cwd, run.cwd) == 0
        && step.plan.seccomp == &host->seccomp[0],
      "fallback: the run's own cwd, the fallback filter");
  ok (step.plan.max_processes == host->config.max_processes,
      "fallback: the plan's process cap is the run's own (the program adds its uid's count)");
  ok (!interp.plan.namespaces && interp.plan.seccomp == step.plan.seccomp
        && interp.plan.landlock_abi == 4 && strcmp (interp.spec.cwd, run.cwd) == 0
        && interp.plan.max_processes == host->config.max_processes,
      "fallback: the interpreter gets the same mode, filter, Landlock and cap");
  _runner_launch_clear (&step);
  _runner_launch_clear (&interp);
  host_free (host);

  /* Inside Flatpak the bundled Python packages (numpy, matplotlib,
   * pandas: flatpak/python3-modules.json) live under /app, which fallback
   * mode's Landlock rules leave out unless the plan lists it: every run
   * and every session's interpreter must get it, and only inside Flatpak. */
  RunnerConfig config;
  runner_config_init (&config);
  ok ((config.app_prefix != NULL) == (access ("/.flatpak-info", F_OK) == 0)
        && (config.app_prefix == NULL || strcmp (config.app_prefix, "/app") == 0),
      "the config names /app for runs inside Flatpak only (/.flatpak-info)");
  char *ctx[] = { (char *) "/ctx/one", NULL };
  config.read_only_dirs = ctx;
  config.app_prefix = NULL;
  char **without = runner_config_read_only_list (&config);
  config.app_prefix = "/app";
  char **with = runner_config_read_only_list (&config);
  ok (count (without) == 1 && count (with) == 2 && strcmp (with[0], "/ctx/one") == 0
        && strcmp (with[1], "/app") == 0,
      "the engine holds the app prefix after the config's read-only directories");
  sp_strv_free (without);

  host = host_new (false);
  RunnerDirId app_ids[] = { { 2049, 5501 }, { 2052, 6001 } };
  host->ro_dirs = with;
  host->ro_ids = app_ids;
  run_init (&run, host);
  _runner_launch_build (&run, RUNNER_LAUNCH_STEP, "/usr/bin/python3", argv_new (), NULL, &step);
  _runner_launch_build (&run, RUNNER_LAUNCH_INTERPRETER, "/usr/bin/python3", argv_new (), NULL,
                        &interp);
  ok (count (step.plan.read_only_dirs) == 2 && strcmp (step.plan.read_only_dirs[1], "/app") == 0
        && step.plan.read_only_ids[1].ino == 6001 && count (interp.plan.read_only_dirs) == 2
        && strcmp (interp.plan.read_only_dirs[1], "/app") == 0,
      "Flatpak: a run's and an interpreter's plans let them read /app, as held");
  runner_plan_encode (&buf, &step.plan, &step.spec, NULL);
  ok (runner_plan_decode (buf.data, buf.len, RUNNER_PLAN_RUN, &m) == 0 && m.n_ro == 2
        && strcmp (m.plan.read_only_dirs[1], "/app") == 0 && m.ro_ids[1].ino == 6001,
      "and a warm spare gets /app too");
  buf_clear (&buf);
  _runner_launch_clear (&step);
  _runner_launch_clear (&interp);
  host_free (host);
  sp_strv_free (with);
  return done_testing ();
}
