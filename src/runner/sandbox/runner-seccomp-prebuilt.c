/* runner-seccomp-prebuilt.c: the filters libseccomp built when the runner
 * was built (seccomp-gen.c), so a runner does not build them again at
 * every start: in a one-shot sandpad-run that was ~2 ms and ~70 page
 * faults, a tenth of what the sandbox added to a run.
 *
 * Used only when the libseccomp now loaded is the one they were built
 * with; otherwise runner_seccomp_compile() builds them as before. Built
 * without the table (a cross build: the generator must run where it is
 * built), it always builds them. */
#include "runner-seccomp.h"

#include <seccomp.h>
#include <string.h>

#include "runner-util.h"

#ifdef RUNNER_SECCOMP_PREBUILT
#include "runner-seccomp-table.h"

/* The table is indexed by these two fields alone: a policy that grows a
 * field must grow the table too (seccomp-gen.c, the index below), or
 * runs would get another policy's filter. */
_Static_assert(sizeof (RunnerSeccompPolicy) == 2 * sizeof (bool),
               "extend seccomp-gen.c and runner_seccomp_prebuilt() with the new field");

static struct sock_fprog
copy_program (const struct sock_filter *program, unsigned short len)
{
  struct sock_fprog prog = { .len = len, .filter = xmalloc (len * sizeof *program) };

  memcpy (prog.filter, program, len * sizeof *program);
  return prog;
}

int
runner_seccomp_prebuilt (const RunnerSeccompPolicy *policy, RunnerSeccompFilter *filter)
{
  static const unsigned int built[3] = { RUNNER_SECCOMP_TABLE_VERSION };
  const struct scmp_version *now = seccomp_version ();
  size_t i = (size_t) policy->fallback | (size_t) policy->network << 1;

  memset (filter, 0, sizeof *filter);
  if (now == NULL || now->major != built[0] || now->minor != built[1] || now->micro != built[2])
    return -1;
  filter->allow = copy_program (runner_seccomp_table[i].allow, runner_seccomp_table[i].n_allow);
  filter->rules = copy_program (runner_seccomp_table[i].rules, runner_seccomp_table[i].n_rules);
  return 0;
}
#endif

int
runner_seccomp_compile (const RunnerSeccompPolicy *policy, RunnerSeccompFilter *filter)
{
#ifdef RUNNER_SECCOMP_PREBUILT
  if (runner_seccomp_prebuilt (policy, filter) == 0)
    return 0;
#endif
  return runner_seccomp_compile_now (policy, filter);
}
