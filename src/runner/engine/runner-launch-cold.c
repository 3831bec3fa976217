/* runner-launch-cold.c: the cold launcher, a run init of the run's own
 * forked by runner_spawn (sandbox/runner-spawn.c) in the run's cgroups
 * where it can have them; and what the warm launcher shares with it: a
 * run init told through the control pipe, the root of the run's tree. */
#include <errno.h>
#include <unistd.h>

#include "runner-run-private.h"
#include "runner-launch.h"

static int
spawn_cold (RunnerRun *run, RunnerLaunch *l)
{
  RunnerSpawnSpec *spec = &l->spec;
  cleanup_free char *name = xasprintf ("run-%llu", (unsigned long long) run->seq);
  int fds[RUNNER_CGROUP_MAX_FDS];

  if (_runner_host_cgroup_create (run->host, name, &l->plan, &run->cgroup, fds) == 0)
    spec->cgroup_fds = fds;
  run->init_pid = runner_spawn (spec);
  int errsv = errno;
  for (int i = 0; i < RUNNER_CGROUP_MAX_FDS; i++)
    if (spec->cgroup_fds != NULL && fds[i] >= 0)
      close (fds[i]);
  spec->cgroup_fds = NULL;
  errno = errsv;
  return run->init_pid < 0 ? -1 : 0;
}

void
_runner_init_control (RunnerRun *run, char cmd)
{
  /* A full or closed pipe means init is already finishing; either way
   * there is nothing more to tell it. */
  if (run->control_fd >= 0 && write (run->control_fd, &cmd, 1) < 0 && errno == EPIPE)
    {
      close (run->control_fd);
      run->control_fd = -1;
    }
}

void
_runner_init_deadline (RunnerRun *run)
{
  _runner_init_control (run, RUNNER_CTL_KILL);
}

pid_t
_runner_init_tree_root (RunnerRun *run)
{
  return run->init_pid;
}

RunnerMemoryLayer
_runner_init_memory_layer (RunnerRun *run)
{
  return _runner_host_memory_layer (&run->cgroup, _runner_watch_diag (&run->watch));
}

/* Without the control pipe (closed by now) the run init kills the tree
 * and exits; the engine reaps it later. */
static void
release_cold (RunnerRun *run)
{
  if (run->init_pid > 0 && !run->init_reaped)
    _runner_host_leave_init (run->host, run->init_pid, &run->cgroup);
}

const RunnerLauncher _runner_launcher_cold = {
  .name = "cold",
  .start = _runner_run_start_own,
  .spawn = spawn_cold,
  .control = _runner_init_control,
  .deadline = _runner_init_deadline,
  .tree_root = _runner_init_tree_root,
  .memory_layer = _runner_init_memory_layer,
  .release = release_cold,
};
