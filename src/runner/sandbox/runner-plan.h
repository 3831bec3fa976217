/* runner-plan.h: the one encoding of a run's sandbox plan that crosses a
 * process boundary: from the runner to a warm spare (runner-warm-run.c to
 * runner-warm-child.c), which applies it as a cold run's init would.
 *
 * key=value pairs, each NUL-terminated. Decoding is strict and fails
 * closed: an unknown key, a key given twice, a number that is not whole
 * or out of range, a path that is not absolute, or a key of the plan's
 * kind left out is an error, and the run fails. Before, a key left out
 * decoded as 0, and a missing "landlock" meant a run without Landlock;
 * now a layer is present or waived by name ("waive"), never neither.
 * There are no keys passed through for others: what the warm parent needs
 * (the seat's cgroup limits, the run's file) is decoded here too, and the
 * seat's limits are set by C (sp_warm_seat_limit), never parsed by the
 * driver. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "runner-sandbox.h"
#include "runner-spawn.h"
#include "runner-util.h"

/* Read-only directories a plan may name. */
#define RUNNER_PLAN_MAX_RO 64

typedef enum
{
  RUNNER_PLAN_SPARE, /* what a spare is made for: mode, network, uid */
  RUNNER_PLAN_RUN,   /* a whole run's plan: every key but "ro" */
} RunnerPlanKind;

/* What only a warm run's plan carries: the file with the run's argv and
 * environment (the path the program sees), and the limits the warm parent
 * sets on the spare's seat before the run starts (sp_warm_seat_limit in
 * runner-warm-child.c), where the runner has cgroups. */
typedef struct
{
  const char *run_file; /* NULL: none */
  bool cgroup;          /* the seat's cgroup limits (the plan's) are set */
} RunnerPlanWarm;

typedef struct
{
  RunnerSandboxPlan plan;
  RunnerSpawnSpec spec; /* its cwd; the caller adds the rest */
  bool use_seccomp;     /* the decoder compiles no filter: the caller does */
  char *ro[RUNNER_PLAN_MAX_RO + 1];
  RunnerDirId ro_ids[RUNNER_PLAN_MAX_RO];
  size_t n_ro;
  RunnerPlanWarm warm;
} RunnerPlanMsg;

/* Appends the plan, the spec's cwd and limits, and warm (or NULL) to out.
 * 0, or -1 with errno EINVAL when the plan has a field the codec cannot
 * carry (an environment, a cwd at its host path): refused, never left
 * out. */
int runner_plan_encode (Buf *out, const RunnerSandboxPlan *plan, const RunnerSpawnSpec *spec,
                        const RunnerPlanWarm *warm);

/* Decodes blob (len bytes, the last a NUL) into m, whose strings point
 * into blob. Returns 0, or -1 with errno EINVAL. */
int runner_plan_decode (const char *blob, size_t len, RunnerPlanKind kind, RunnerPlanMsg *m);
