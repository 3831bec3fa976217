/* runner-cgroup-seat.c: the runner's groups as the warm pool uses them
 * (see runner-cgroup.h): a parent's copy of where they were, its seats'
 * directories and names. The pool decides when; this file alone reads the
 * groups' paths. */
#include <fcntl.h>
#include <string.h>

#include "runner-cgroup.h"
#include "runner-util.h"

void
runner_cgroup_copy (RunnerCgroups *dest, const RunnerCgroups *cg, bool with_pids)
{
  *dest = (RunnerCgroups){
    .version = cg->version,
    .memory = cg->memory != NULL ? xasprintf ("%s", cg->memory) : NULL,
    .pids = cg->version == 1 && with_pids && cg->pids != NULL ? xasprintf ("%s", cg->pids) : NULL,
    .lock = { -1, -1 },
  };
}

void
runner_cgroup_copy_clear (RunnerCgroups *copy)
{
  free (copy->memory);
  free (copy->pids);
  *copy = (RunnerCgroups){ 0 };
}

/* Whether a parent's seats are where the runner's runs' groups are now
 * (the app may move its runner into a delegated scope after it started). */
bool
runner_cgroup_same (const RunnerCgroups *a, const RunnerCgroups *b)
{
  if (runner_cgroup_version (a) != runner_cgroup_version (b))
    return false;
  if (runner_cgroup_version (a) == 0)
    return true;
  return a->memory != NULL && b->memory != NULL && strcmp (a->memory, b->memory) == 0
         && (a->version == 2 || (a->pids == NULL) == (b->pids == NULL));
}

int
runner_cgroup_open_parents (const RunnerCgroups *cg, bool pids, int fds[2])
{
  fds[0] = fds[1] = -1;
  if (cg == NULL || cg->version == 0 || cg->memory == NULL)
    return -1;
  fds[0] = open (cg->memory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fds[0] < 0)
    return -1;
  if (pids && cg->version == 1 && cg->pids != NULL)
    fds[1] = open (cg->pids, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return 0;
}

void
runner_cgroup_seat_groups (const RunnerCgroups *cg, const char *name, RunnerRunCgroup *out)
{
  *out = (RunnerRunCgroup){
    .version = cg->version,
    .memory = xasprintf ("%s/%s", cg->memory, name),
    .pids = cg->version == 2   ? xasprintf ("%s/%s", cg->memory, name)
            : cg->pids != NULL ? xasprintf ("%s/%s", cg->pids, name)
                               : NULL,
  };
}
