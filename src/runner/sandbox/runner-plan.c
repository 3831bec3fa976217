/* runner-plan.c: see runner-plan.h. */
#include "runner-plan.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum
{
  K_NAMESPACES,
  K_NETWORK,
  K_NOBODY,
  K_LANDLOCK,
  K_SECCOMP,
  K_NPROC,
  K_TMP_BYTES,
  K_ROOT,
  K_WORK,
  K_WORK_DEV,
  K_WORK_INO,
  K_CODE,
  K_PRELUDE,
  K_TMP,
  K_RO,
  K_CWD,
  K_MEMORY,
  K_CPU,
  K_FSIZE,
  K_NOFILE,
  K_WAIVE,
  K_RUN_FILE,
  K_CG_MEMORY,
  K_CG_TASKS,
  N_KEYS
} Key;

static const char *const key_names[N_KEYS] = {
  [K_NAMESPACES] = "namespaces",
  [K_NETWORK] = "network",
  [K_NOBODY] = "nobody",
  [K_LANDLOCK] = "landlock",
  [K_SECCOMP] = "seccomp",
  [K_NPROC] = "nproc",
  [K_TMP_BYTES] = "tmp_bytes",
  [K_ROOT] = "root",
  [K_WORK] = "work",
  [K_WORK_DEV] = "work_dev",
  [K_WORK_INO] = "work_ino",
  [K_CODE] = "code",
  [K_PRELUDE] = "prelude",
  [K_TMP] = "tmp",
  [K_RO] = "ro",
  [K_CWD] = "cwd",
  [K_MEMORY] = "memory",
  [K_CPU] = "cpu",
  [K_FSIZE] = "fsize",
  [K_NOFILE] = "nofile",
  [K_WAIVE] = "waive",
  [K_RUN_FILE] = "run_file",
  [K_CG_MEMORY] = "cg_memory",
  [K_CG_TASKS] = "cg_tasks",
};

static void
put (Buf *buf, Key key, const char *value)
{
  buf_append (buf, key_names[key], strlen (key_names[key]));
  buf_append (buf, "=", 1);
  buf_append (buf, value, strlen (value));
  buf_append (buf, "", 1);
}

static void
put_int (Buf *buf, Key key, int64_t value)
{
  char text[32];

  snprintf (text, sizeof text, "%lld", (long long) value);
  put (buf, key, text);
}

/* A waivable layer's name in "waive": "landlock", "seccomp"; NULL for
 * anything else. */
static const char *
layer_name (unsigned layer)
{
  switch (layer)
    {
    case RUNNER_LAYER_LANDLOCK:
      return "landlock";
    case RUNNER_LAYER_SECCOMP:
      return "seccomp";
    default:
      return NULL;
    }
}

/* "none", or the waived layers' names joined by commas. */
static void
put_waived (Buf *out, unsigned waived)
{
  char text[64] = "";

  for (unsigned bit = 1; bit <= RUNNER_LAYER_ALL; bit <<= 1)
    if (waived & bit)
      {
        if (text[0] != '\0')
          strcat (text, ",");
        strcat (text, layer_name (bit));
      }
  put (out, K_WAIVE, text[0] != '\0' ? text : "none");
}

int
runner_plan_encode (Buf *out, const RunnerSandboxPlan *plan, const RunnerSpawnSpec *spec,
                    const RunnerPlanWarm *warm)
{
  /* What the codec has no key for is refused, never left out: a spare
   * that got this plan without them would run with less than asked (an
   * environment not bound, a cwd not at its host path). */
  if (plan->env_dir != NULL || plan->env_writable || plan->env_id.ino != 0
      || plan->work_at_host_path || (plan->waived & ~RUNNER_LAYER_ALL) != 0
      || (warm != NULL && warm->run_file != NULL && warm->run_file[0] != '/'))
    return errno = EINVAL, -1;
  put_int (out, K_NAMESPACES, plan->namespaces);
  put_int (out, K_NETWORK, plan->network);
  put_int (out, K_NOBODY, plan->drop_to_nobody);
  put_int (out, K_LANDLOCK, plan->landlock_abi);
  put_int (out, K_SECCOMP, plan->seccomp != NULL);
  put_int (out, K_NPROC, plan->max_processes);
  put_int (out, K_TMP_BYTES, plan->tmp_bytes);
  put (out, K_ROOT, plan->root_dir);
  put (out, K_WORK, plan->work_dir);
  put_int (out, K_WORK_DEV, (int64_t) plan->work_dev);
  put_int (out, K_WORK_INO, (int64_t) plan->work_ino);
  put (out, K_CODE, plan->code_dir);
  if (plan->prelude_dir != NULL)
    put (out, K_PRELUDE, plan->prelude_dir);
  put (out, K_TMP, plan->tmp_dir);
  /* "ro=DEV:INO:/path": each with its id as checked (0:0: unchecked). */
  for (size_t i = 0; plan->read_only_dirs != NULL && plan->read_only_dirs[i] != NULL; i++)
    {
      RunnerDirId id = plan->read_only_ids ? plan->read_only_ids[i] : (RunnerDirId){ 0 };
      char head[48];
      snprintf (head, sizeof head, "%lld:%lld:", (long long) id.dev, (long long) id.ino);
      buf_append (out, key_names[K_RO], strlen (key_names[K_RO]));
      buf_append (out, "=", 1);
      buf_append (out, head, strlen (head));
      buf_append (out, plan->read_only_dirs[i], strlen (plan->read_only_dirs[i]));
      buf_append (out, "", 1);
    }
  put (out, K_CWD, spec->cwd);
  put_int (out, K_MEMORY, plan->limits.memory_bytes);
  put_int (out, K_CPU, plan->limits.cpu_seconds);
  put_int (out, K_FSIZE, plan->limits.file_size_bytes);
  put_int (out, K_NOFILE, plan->limits.open_files);
  put_waived (out, plan->waived);
  if (warm != NULL && warm->run_file != NULL)
    put (out, K_RUN_FILE, warm->run_file);
  if (warm != NULL && warm->cgroup)
    {
      put_int (out, K_CG_MEMORY, plan->limits.cgroup_memory_bytes);
      put_int (out, K_CG_TASKS, plan->limits.cgroup_tasks);
    }
  return 0;
}

/* A whole decimal number within [min, max], nothing before or after. */
static int
parse_int (const char *text, int64_t min, int64_t max, int64_t *out)
{
  char *end = NULL;
  long long value;

  /* strtoll would skip leading spaces and take a '+'. */
  if (!((text[0] >= '0' && text[0] <= '9') || (text[0] == '-' && min < 0)))
    return -1;
  errno = 0;
  value = strtoll (text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < min || value > max)
    return -1;
  *out = value;
  return 0;
}

/* "DEV:INO:/path", each number whole (as parse_int), the path absolute. */
static int
parse_ro (RunnerPlanMsg *m, const char *v)
{
  const char *c1 = strchr (v, ':');
  const char *c2 = c1 ? strchr (c1 + 1, ':') : NULL;
  char num[32];
  int64_t dev, ino;

  if (c1 == NULL || c2 == NULL || c2[1] != '/' || m->n_ro >= RUNNER_PLAN_MAX_RO
      || (size_t) (c1 - v) >= sizeof num || (size_t) (c2 - c1 - 1) >= sizeof num)
    return -1;
  memcpy (num, v, (size_t) (c1 - v));
  num[c1 - v] = '\0';
  if (parse_int (num, INT64_MIN, INT64_MAX, &dev) != 0)
    return -1;
  memcpy (num, c1 + 1, (size_t) (c2 - c1 - 1));
  num[c2 - c1 - 1] = '\0';
  if (parse_int (num, INT64_MIN, INT64_MAX, &ino) != 0)
    return -1;
  m->ro_ids[m->n_ro] = (RunnerDirId){ (dev_t) dev, (ino_t) ino };
  m->ro[m->n_ro++] = (char *) c2 + 1;
  return 0;
}

/* "none", or layer names joined by commas, each at most once. */
static int
parse_waived (const char *v, unsigned *waived)
{
  *waived = 0;
  if (strcmp (v, "none") == 0)
    return 0;
  for (const char *p = v;;)
    {
      const char *comma = strchr (p, ',');
      size_t len = comma != NULL ? (size_t) (comma - p) : strlen (p);
      unsigned found = 0;

      for (unsigned bit = 1; bit <= RUNNER_LAYER_ALL; bit <<= 1)
        if (strlen (layer_name (bit)) == len && strncmp (p, layer_name (bit), len) == 0)
          found = bit;
      if (found == 0 || (*waived & found) != 0)
        return -1;
      *waived |= found;
      if (comma == NULL)
        return 0;
      p = comma + 1;
    }
}

static int
set (RunnerPlanMsg *m, Key key, const char *v)
{
  RunnerSandboxPlan *p = &m->plan;
  int64_t n = 0;

  switch (key)
    {
    case K_WAIVE:
      return parse_waived (v, &p->waived);
    case K_RO:
      return parse_ro (m, v);
    case K_ROOT:
    case K_WORK:
    case K_CODE:
    case K_PRELUDE:
    case K_TMP:
    case K_CWD:
    case K_RUN_FILE:
      if (v[0] != '/')
        return -1;
      if (key == K_ROOT)
        p->root_dir = v;
      else if (key == K_WORK)
        p->work_dir = v;
      else if (key == K_CODE)
        p->code_dir = v;
      else if (key == K_PRELUDE)
        p->prelude_dir = v;
      else if (key == K_TMP)
        p->tmp_dir = v;
      else if (key == K_RUN_FILE)
        m->warm.run_file = v;
      else
        m->spec.cwd = v;
      return 0;
    case K_NAMESPACES:
    case K_NETWORK:
    case K_NOBODY:
    case K_SECCOMP:
      if (parse_int (v, 0, 1, &n) != 0)
        return -1;
      if (key == K_NAMESPACES)
        p->namespaces = n;
      else if (key == K_NETWORK)
        p->network = n;
      else if (key == K_NOBODY)
        p->drop_to_nobody = n;
      else
        m->use_seccomp = n;
      return 0;
    case K_LANDLOCK:
      if (parse_int (v, 0, 255, &n) != 0)
        return -1;
      p->landlock_abi = (int) n;
      return 0;
    case K_WORK_DEV:
      /* dev_t is unsigned; the encoder wrote it as int64. */
      if (parse_int (v, INT64_MIN, INT64_MAX, &n) != 0)
        return -1;
      p->work_dev = (dev_t) n;
      return 0;
    case K_WORK_INO:
      /* 0 would mean "not checked": a run's plan always has it. */
      if (parse_int (v, INT64_MIN, INT64_MAX, &n) != 0 || n == 0)
        return -1;
      p->work_ino = (ino_t) n;
      return 0;
    case K_NPROC:
    case K_TMP_BYTES:
    case K_MEMORY:
    case K_CPU:
    case K_FSIZE:
    case K_NOFILE:
    case K_CG_MEMORY:
    case K_CG_TASKS:
      if (parse_int (v, 0, INT64_MAX, &n) != 0)
        return -1;
      if (key == K_NPROC)
        p->max_processes = n;
      else if (key == K_TMP_BYTES)
        p->tmp_bytes = n;
      else if (key == K_MEMORY)
        p->limits.memory_bytes = n;
      else if (key == K_CPU)
        p->limits.cpu_seconds = n;
      else if (key == K_FSIZE)
        p->limits.file_size_bytes = n;
      else if (key == K_CG_MEMORY)
        p->limits.cgroup_memory_bytes = n;
      else if (key == K_CG_TASKS)
        p->limits.cgroup_tasks = n;
      else
        p->limits.open_files = n;
      return 0;
    case N_KEYS:
      break;
    }
  return -1;
}

static bool
required (Key key, RunnerPlanKind kind)
{
  if (key == K_RO || key == K_PRELUDE || key == K_RUN_FILE || key == K_CG_MEMORY
      || key == K_CG_TASKS)
    return false;
  if (kind == RUNNER_PLAN_SPARE)
    return key == K_NAMESPACES || key == K_NETWORK || key == K_NOBODY;
  return true;
}

int
runner_plan_decode (const char *blob, size_t len, RunnerPlanKind kind, RunnerPlanMsg *m)
{
  const char *end = blob + len;
  bool seen[N_KEYS] = { false };

  memset (m, 0, sizeof *m);
  if (blob == NULL || len == 0 || blob[len - 1] != '\0')
    return errno = EINVAL, -1;
  for (const char *p = blob; p < end; p += strlen (p) + 1)
    {
      const char *eq = strchr (p, '=');
      size_t klen;
      Key key;

      if (eq == NULL)
        return errno = EINVAL, -1;
      klen = (size_t) (eq - p);
      for (key = 0; key < N_KEYS; key++)
        if (strlen (key_names[key]) == klen && strncmp (p, key_names[key], klen) == 0)
          break;
      if (key == N_KEYS || (seen[key] && key != K_RO) || set (m, key, eq + 1) != 0)
        return errno = EINVAL, -1;
      seen[key] = true;
    }
  for (Key key = 0; key < N_KEYS; key++)
    if (required (key, kind) && !seen[key])
      return errno = EINVAL, -1;
  /* The seat's two limits come together or not at all. */
  if (seen[K_CG_MEMORY] != seen[K_CG_TASKS])
    return errno = EINVAL, -1;
  m->warm.cgroup = seen[K_CG_MEMORY];
  /* A layer is there or waived by name, never both, never neither (the
   * filter itself the caller compiles: use_seccomp stands for it). */
  if (kind == RUNNER_PLAN_RUN
      && ((m->plan.landlock_abi > 0) == ((m->plan.waived & RUNNER_LAYER_LANDLOCK) != 0)
          || m->use_seccomp == ((m->plan.waived & RUNNER_LAYER_SECCOMP) != 0)))
    return errno = EINVAL, -1;
  m->ro[m->n_ro] = NULL;
  m->plan.read_only_dirs = m->n_ro > 0 ? m->ro : NULL;
  m->plan.read_only_ids = m->n_ro > 0 ? m->ro_ids : NULL;
  return 0;
}
