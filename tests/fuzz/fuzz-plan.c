/* fuzz-plan.c: the warm spare's plan decoder (runner-plan.c) on arbitrary
 * bytes, the encoder as its oracle.
 *
 * The input is what reaches a spare as its plan. For each kind (a spare's,
 * a whole run's) a plan that decodes must:
 * - name only absolute paths, and have every key its kind requires;
 * - as a run's, have each layer present or waived by name, never both and
 *   never neither (a zero left in a field is never a waiver);
 * - encode again (the encoder refuses nothing a decoded plan can hold)
 *   and decode from that to the very same plan: no field is dropped or
 *   changed on the way, so a plan with every field set crosses whole. */
#include <string.h>

#include "fuzz-check.h"
#include "runner-plan.h"

static void
check_path (const char *path, bool required)
{
  FUZZ_REQUIRE (path != NULL || !required);
  FUZZ_REQUIRE (path == NULL || path[0] == '/');
}

static bool
same_str (const char *a, const char *b)
{
  return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp (a, b) == 0);
}

static void
check_same (const RunnerPlanMsg *a, const RunnerPlanMsg *b)
{
  const RunnerSandboxPlan *p = &a->plan, *q = &b->plan;

  FUZZ_REQUIRE (p->namespaces == q->namespaces && p->network == q->network);
  FUZZ_REQUIRE (p->drop_to_nobody == q->drop_to_nobody);
  FUZZ_REQUIRE (p->landlock_abi == q->landlock_abi && a->use_seccomp == b->use_seccomp);
  FUZZ_REQUIRE (p->waived == q->waived);
  FUZZ_REQUIRE (p->max_processes == q->max_processes && p->tmp_bytes == q->tmp_bytes);
  FUZZ_REQUIRE (p->work_dev == q->work_dev && p->work_ino == q->work_ino);
  FUZZ_REQUIRE (same_str (p->root_dir, q->root_dir) && same_str (p->work_dir, q->work_dir));
  FUZZ_REQUIRE (same_str (p->code_dir, q->code_dir) && same_str (p->tmp_dir, q->tmp_dir));
  FUZZ_REQUIRE (same_str (p->prelude_dir, q->prelude_dir));
  FUZZ_REQUIRE (same_str (a->spec.cwd, b->spec.cwd));
  FUZZ_REQUIRE (a->plan.limits.memory_bytes == b->plan.limits.memory_bytes);
  FUZZ_REQUIRE (a->plan.limits.cpu_seconds == b->plan.limits.cpu_seconds);
  FUZZ_REQUIRE (a->plan.limits.file_size_bytes == b->plan.limits.file_size_bytes);
  FUZZ_REQUIRE (a->plan.limits.open_files == b->plan.limits.open_files);
  FUZZ_REQUIRE (same_str (a->warm.run_file, b->warm.run_file));
  FUZZ_REQUIRE (a->warm.cgroup == b->warm.cgroup);
  FUZZ_REQUIRE (a->plan.limits.cgroup_memory_bytes == b->plan.limits.cgroup_memory_bytes);
  FUZZ_REQUIRE (a->plan.limits.cgroup_tasks == b->plan.limits.cgroup_tasks);
  FUZZ_REQUIRE (a->n_ro == b->n_ro);
  for (size_t i = 0; i < a->n_ro; i++)
    {
      FUZZ_REQUIRE (strcmp (a->ro[i], b->ro[i]) == 0);
      FUZZ_REQUIRE (a->ro_ids[i].dev == b->ro_ids[i].dev);
      FUZZ_REQUIRE (a->ro_ids[i].ino == b->ro_ids[i].ino);
    }
}

static void
check_run (const RunnerPlanMsg *m)
{
  static RunnerSeccompFilter filter;
  RunnerSandboxPlan plan = m->plan;
  RunnerPlanMsg back;
  Buf buf = { 0 };

  FUZZ_REQUIRE ((plan.landlock_abi > 0) != ((plan.waived & RUNNER_LAYER_LANDLOCK) != 0));
  FUZZ_REQUIRE (m->use_seccomp != ((plan.waived & RUNNER_LAYER_SECCOMP) != 0));
  FUZZ_REQUIRE ((plan.waived & ~RUNNER_LAYER_ALL) == 0);
  check_path (plan.root_dir, true);
  check_path (plan.work_dir, true);
  check_path (plan.code_dir, true);
  check_path (plan.tmp_dir, true);
  check_path (plan.prelude_dir, false);
  check_path (m->spec.cwd, true);
  check_path (m->warm.run_file, false);
  FUZZ_REQUIRE (plan.work_ino != 0);
  FUZZ_REQUIRE (m->n_ro <= RUNNER_PLAN_MAX_RO && m->ro[m->n_ro] == NULL);
  for (size_t i = 0; i < m->n_ro; i++)
    check_path (m->ro[i], true);

  /* The spare compiles the filter the plan asks for; here any stands in. */
  plan.seccomp = m->use_seccomp ? &filter : NULL;
  FUZZ_REQUIRE (runner_plan_encode (&buf, &plan, &m->spec, &m->warm) == 0);
  FUZZ_REQUIRE (runner_plan_decode (buf.data, buf.len, RUNNER_PLAN_RUN, &back) == 0);
  check_same (m, &back);
  free (buf.data);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* A copy of exactly size bytes: the decoder must not read past it. */
  char *blob = malloc (size > 0 ? size : 1);
  RunnerPlanMsg m;

  FUZZ_REQUIRE (blob != NULL);
  memcpy (blob, data, size);
  if (runner_plan_decode (blob, size, RUNNER_PLAN_SPARE, &m) == 0)
    {
      FUZZ_REQUIRE (size > 0 && blob[size - 1] == '\0');
      check_path (m.plan.root_dir, false);
    }
  if (runner_plan_decode (blob, size, RUNNER_PLAN_RUN, &m) == 0)
    check_run (&m);
  free (blob);
  return 0;
}
