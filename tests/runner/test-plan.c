/* The warm spare's plan codec (src/runner/sandbox/runner-plan.c): what
 * the encoder writes decodes to the same plan, and the decoder refuses
 * every plan that is not exactly right, so no key left out can mean a
 * layer left out. */
#include <stdlib.h>
#include <string.h>

#include "../protocol/tap.h"
#include "runner-plan.h"
#include "runner-base.h"

#define N_REQUIRED 18

static char *const ro_dirs[] = { (char *) "/ctx/one", (char *) "/ctx/two", NULL };
static const RunnerDirId ro_ids[] = { { 2049, 5501 }, { 2050, 5502 } };

static void
sample (RunnerSandboxPlan *plan, RunnerSpawnSpec *spec)
{
  static RunnerSeccompFilter filter;

  *plan = (RunnerSandboxPlan){
    .namespaces = true,
    .network = false,
    .landlock_abi = 6,
    .seccomp = &filter,
    .drop_to_nobody = true,
    .max_processes = 300,
    .tmp_bytes = 256 << 20,
    .root_dir = "/r/root",
    .work_dir = "/w/work",
    .work_dev = 2049,
    .work_ino = 77,
    .code_dir = "/r/code",
    .prelude_dir = "/r/prelude",
    .tmp_dir = "/r/tmp",
    .read_only_dirs = ro_dirs,
    .read_only_ids = ro_ids,
  };
  *spec = (RunnerSpawnSpec){ .cwd = "/work",
                             .memory_bytes = 512 << 20,
                             .cpu_seconds = 31,
                             .file_size_bytes = 1 << 28,
                             .open_files = 256 };
}

static Buf
encoded (void)
{
  RunnerSandboxPlan plan;
  RunnerSpawnSpec spec;
  Buf buf = { 0 };

  sample (&plan, &spec);
  runner_plan_encode (&buf, &plan, &spec);
  return buf;
}

/* The encoded plan with the pair of key `key` replaced by `with` (NULL:
 * left out). */
static Buf
edited (const char *key, const char *with)
{
  Buf in = encoded (), out = { 0 };
  size_t klen = strlen (key);

  for (const char *p = in.data; p < in.data + in.len; p += strlen (p) + 1)
    {
      if (strncmp (p, key, klen) == 0 && p[klen] == '=')
        {
          if (with != NULL)
            buf_append (&out, with, strlen (with) + 1);
          continue;
        }
      buf_append (&out, p, strlen (p) + 1);
    }
  buf_clear (&in);
  return out;
}

static bool
refused (Buf buf, RunnerPlanKind kind)
{
  RunnerPlanMsg m;
  bool ok = runner_plan_decode (buf.data, buf.len, kind, &m) != 0;

  buf_clear (&buf);
  return ok;
}

int
main (void)
{
  static const char *const keys[N_REQUIRED] = { "namespaces", "network",  "nobody",    "landlock",
                                                "seccomp",    "nproc",    "tmp_bytes", "root",
                                                "work",       "work_dev", "work_ino",  "code",
                                                "tmp",        "cwd",      "memory",    "cpu",
                                                "fsize",      "nofile" };
  static const char *const bad[][2] = {
    { "landlock", "landlock=" },
    { "landlock", "landlock=6x" },
    { "landlock", "landlock=-1" },
    { "seccomp", "seccomp=2" },
    { "nproc", "nproc=99999999999999999999" },
    { "work_ino", "work_ino=0" },
    { "work", "work=relative/dir" },
    { "cwd", "cwd=" },
    { "memory", "memory= 5" },
    { "nobody", "nobody" },
    /* A context path without the id it was checked as, or a broken one. */
    { "ro", "ro=/ctx/one" },
    { "ro", "ro=2049:x:/ctx/one" },
    { "ro", "ro=2049:5501:ctx/one" },
    { "ro", "ro=2049::/ctx/one" },
    { "prelude", "prelude=r/prelude" },
  };
  RunnerSandboxPlan want;
  RunnerSpawnSpec spec;
  RunnerPlanMsg m;
  Buf buf = encoded ();

  plan (4 + N_REQUIRED + (int) N_ELEMENTS (bad) + 5);

  sample (&want, &spec);
  ok (runner_plan_decode (buf.data, buf.len, RUNNER_PLAN_RUN, &m) == 0, "a run's plan decodes");
  ok (m.plan.namespaces && !m.plan.network && m.plan.landlock_abi == 6 && m.use_seccomp
        && m.plan.drop_to_nobody && m.plan.max_processes == 300
        && m.plan.tmp_bytes == want.tmp_bytes && m.plan.work_dev == 2049 && m.plan.work_ino == 77,
      "its numbers and flags round-trip");
  ok (strcmp (m.plan.root_dir, "/r/root") == 0 && strcmp (m.plan.work_dir, "/w/work") == 0
        && strcmp (m.plan.code_dir, "/r/code") == 0 && strcmp (m.plan.tmp_dir, "/r/tmp") == 0
        && m.plan.prelude_dir != NULL && strcmp (m.plan.prelude_dir, "/r/prelude") == 0
        && m.n_ro == 2 && strcmp (m.plan.read_only_dirs[1], "/ctx/two") == 0
        && m.plan.read_only_dirs[2] == NULL && m.plan.read_only_ids != NULL
        && m.plan.read_only_ids[0].dev == 2049 && m.plan.read_only_ids[0].ino == 5501
        && m.plan.read_only_ids[1].ino == 5502,
      "its paths round-trip, the read-only ones with their ids");
  ok (strcmp (m.spec.cwd, "/work") == 0 && m.spec.memory_bytes == spec.memory_bytes
        && m.spec.cpu_seconds == 31 && m.spec.file_size_bytes == spec.file_size_bytes
        && m.spec.open_files == 256,
      "its cwd and limits round-trip");
  buf_clear (&buf);

  /* Each key a run's plan needs, left out, fails the plan. */
  for (size_t i = 0; i < N_REQUIRED; i++)
    ok (refused (edited (keys[i], NULL), RUNNER_PLAN_RUN), "without \"%s\" a plan is refused",
        keys[i]);
  for (size_t i = 0; i < N_ELEMENTS (bad); i++)
    ok (refused (edited (bad[i][0], bad[i][1]), RUNNER_PLAN_RUN), "\"%s\" is refused", bad[i][1]);

  buf = edited ("landlock", "landlock=6");
  buf_append (&buf, "landlock=0", 11);
  ok (refused (buf, RUNNER_PLAN_RUN), "a key given twice is refused");
  buf = encoded ();
  buf_append (&buf, "unknown=1", 10);
  ok (refused (buf, RUNNER_PLAN_RUN), "an unknown key is refused");
  /* The runner's shared prelude is optional (fallback mode has none). */
  buf = edited ("prelude", NULL);
  ok (runner_plan_decode (buf.data, buf.len, RUNNER_PLAN_RUN, &m) == 0
        && m.plan.prelude_dir == NULL,
      "a plan without \"prelude\" decodes, with none to bind");
  buf_clear (&buf);

  /* A spare's plan: mode, network and uid; py.* keys are the driver's. */
  static const char spare[] = "namespaces=1\0network=0\0nobody=1\0py.run=/x";
  ok (runner_plan_decode (spare, sizeof spare, RUNNER_PLAN_SPARE, &m) == 0 && m.plan.namespaces
        && m.plan.drop_to_nobody,
      "a spare's plan decodes, with the driver's py.* keys passed over");
  static const char no_uid[] = "namespaces=1\0network=0";
  ok (runner_plan_decode (no_uid, sizeof no_uid, RUNNER_PLAN_SPARE, &m) != 0,
      "a spare's plan without \"nobody\" is refused");
  return done_testing ();
}
