/* The warm spare's plan codec (src/runner/sandbox/runner-plan.c): what
 * the encoder writes decodes to the same plan, and the decoder refuses
 * every plan that is not exactly right, so no key left out can mean a
 * layer left out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/tap.h"
#include "runner-plan.h"
#include "runner-base.h"

#define N_REQUIRED 19

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
    .limits = {
      .memory_bytes = 512 << 20,
      .cpu_seconds = 31,
      .file_size_bytes = 1 << 28,
      .open_files = 256,
      .cgroup_memory_bytes = 600 << 20,
      .cgroup_tasks = 310,
    },
  };
  *spec = (RunnerSpawnSpec){ .cwd = "/work" };
}

static Buf
encoded (void)
{
  RunnerSandboxPlan plan;
  RunnerSpawnSpec spec;
  Buf buf = { 0 };

  sample (&plan, &spec);
  runner_plan_encode (&buf, &plan, &spec, NULL);
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
                                                "fsize",      "nofile",   "waive" };
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
    /* A layer is there or waived by name, never both, never neither. */
    { "waive", "waive=landlock" },
    { "waive", "waive=seccomp" },
    { "waive", "waive=" },
    { "waive", "waive=bpf" },
    { "waive", "waive=landlock,landlock" },
    { "landlock", "landlock=0" },
    { "seccomp", "seccomp=0" },
  };
  RunnerSandboxPlan want;
  RunnerSpawnSpec spec;
  RunnerPlanMsg m;
  Buf buf = encoded ();

  plan (4 + N_REQUIRED + (int) N_ELEMENTS (bad) + 5 + 12 + 4 + 2);

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
  ok (strcmp (m.spec.cwd, "/work") == 0 && m.plan.limits.memory_bytes == want.limits.memory_bytes
        && m.plan.limits.cpu_seconds == 31
        && m.plan.limits.file_size_bytes == want.limits.file_size_bytes
        && m.plan.limits.open_files == 256,
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

  /* A spare's plan: mode, network and uid. No key is passed over for the
   * warm driver any more (it once read "py.*" keys itself). */
  static const char spare[] = "namespaces=1\0network=0\0nobody=1\0run_file=/x";
  ok (runner_plan_decode (spare, sizeof spare, RUNNER_PLAN_SPARE, &m) == 0 && m.plan.namespaces
        && m.plan.drop_to_nobody,
      "a spare's plan decodes");
  static const char driver_key[] = "namespaces=1\0network=0\0nobody=1\0py.cg_memory=1";
  ok (runner_plan_decode (driver_key, sizeof driver_key, RUNNER_PLAN_SPARE, &m) != 0,
      "a \"py.*\" key is refused like any unknown key");

  /* A warm run's own keys: its file and its seat's limits, together. */
  {
    RunnerSandboxPlan p;
    RunnerSpawnSpec s;
    RunnerPlanWarm warm = { .run_file = "/code/.sandpad/run.json", .cgroup = true };
    Buf out = { 0 };
    sample (&p, &s);
    ok (runner_plan_encode (&out, &p, &s, &warm) == 0
          && runner_plan_decode (out.data, out.len, RUNNER_PLAN_RUN, &m) == 0
          && m.warm.run_file != NULL && strcmp (m.warm.run_file, warm.run_file) == 0
          && m.warm.cgroup && m.plan.limits.cgroup_memory_bytes == p.limits.cgroup_memory_bytes
          && m.plan.limits.cgroup_tasks == 310,
        "a warm run's file and seat limits round-trip");
    buf_clear (&out);
    warm.run_file = "relative.json";
    ok (runner_plan_encode (&out, &p, &s, &warm) == -1, "a relative run file is refused");
    buf_clear (&out);
    buf = edited ("nofile", "nofile=256");
    buf_append (&buf, "cg_memory=5", 12);
    ok (refused (buf, RUNNER_PLAN_RUN), "one seat limit without the other is refused");
  }
  static const char no_uid[] = "namespaces=1\0network=0";
  ok (runner_plan_decode (no_uid, sizeof no_uid, RUNNER_PLAN_SPARE, &m) != 0,
      "a spare's plan without \"nobody\" is refused");

  /* A host without Landlock and seccomp waives both, by name. */
  buf = edited ("landlock", "landlock=0");
  {
    Buf b2 = { 0 };
    for (const char *p = buf.data; p < buf.data + buf.len; p += strlen (p) + 1)
      {
        const char *item = strncmp (p, "seccomp=", 8) == 0 ? "seccomp=0"
                           : strncmp (p, "waive=", 6) == 0 ? "waive=seccomp,landlock"
                                                           : p;
        buf_append (&b2, item, strlen (item) + 1);
      }
    buf_clear (&buf);
    buf = b2;
  }
  ok (runner_plan_decode (buf.data, buf.len, RUNNER_PLAN_RUN, &m) == 0
        && m.plan.waived == (RUNNER_LAYER_LANDLOCK | RUNNER_LAYER_SECCOMP)
        && m.plan.landlock_abi == 0 && !m.use_seccomp,
      "a plan waiving Landlock and seccomp by name decodes, with both waived");
  buf_clear (&buf);
  {
    RunnerSandboxPlan waived;
    RunnerSpawnSpec wspec;
    Buf out = { 0 };
    sample (&waived, &wspec);
    waived.landlock_abi = 0;
    waived.seccomp = NULL;
    waived.waived = RUNNER_LAYER_LANDLOCK | RUNNER_LAYER_SECCOMP;
    ok (runner_plan_encode (&out, &waived, &wspec, NULL) == 0
          && runner_plan_decode (out.data, out.len, RUNNER_PLAN_RUN, &m) == 0
          && m.plan.waived == waived.waived,
        "the encoder writes the waivers, and they round-trip");
    buf_clear (&out);
  }

  /* What the codec has no key for is refused by the encoder, never left
   * out: a spare would run without it. */
  {
    static const char *const what[] = { "an environment", "a writable environment",
                                        "an environment's id", "a cwd at its host path",
                                        "an unnamed waiver" };
    for (int i = 0; i < 5; i++)
      {
        RunnerSandboxPlan p;
        RunnerSpawnSpec s;
        Buf out = { 0 };
        sample (&p, &s);
        if (i == 0)
          p.env_dir = "/venv";
        else if (i == 1)
          p.env_writable = true;
        else if (i == 2)
          p.env_id = (RunnerDirId){ 1, 2 };
        else if (i == 3)
          p.work_at_host_path = true;
        else
          p.waived = 1u << 7;
        errno = 0;
        ok (runner_plan_encode (&out, &p, &s, NULL) == -1 && errno == EINVAL,
            "a plan with %s is refused by the encoder", what[i]);
        buf_clear (&out);
      }
  }

  /* The sandbox refuses a zeroed plan, and a layer left at zero without
   * its waiver, before anything runs: not a run with fewer layers. */
  {
    RunnerSandboxPlan zero = { 0 }, p;
    RunnerSpawnSpec s = { .sandbox = &zero };
    const char *why = NULL;
    bool refused_now;
    errno = 0;
    ok (runner_spawn (&s) == -1 && errno == EINVAL, "runner_spawn refuses a zeroed plan (EINVAL)");
    refused_now = runner_sandbox_plan_check (&zero, &why) == -1 && why != NULL
                  && runner_sandbox_restrict (&zero) == RUNNER_STEP_PLAN;
    ok (refused_now, "the program's own restrict step refuses it too: %s", why ? why : "?");
    sample (&p, &s);
    p.landlock_abi = 0;
    refused_now = runner_sandbox_plan_check (&p, &why) == -1;
    ok (refused_now, "a plan without Landlock or its waiver: %s", why ? why : "?");
    sample (&p, &s);
    p.seccomp = NULL;
    refused_now = runner_sandbox_plan_check (&p, &why) == -1;
    ok (refused_now, "a plan without seccomp or its waiver: %s", why ? why : "?");
    p.waived = RUNNER_LAYER_SECCOMP;
    ok (runner_sandbox_plan_check (&p, NULL) == 0
          && (sample (&p, &s), runner_sandbox_plan_check (&p, NULL) == 0),
        "with its waiver it passes, as does the whole sample plan");
    /* Its limits are in the plan too, and one at zero is no limit. */
    sample (&p, &s);
    p.limits.memory_bytes = 0;
    refused_now = runner_sandbox_plan_check (&p, &why) == -1;
    ok (refused_now, "a plan without a memory limit: %s", why ? why : "?");
    sample (&p, &s);
    p.limits.open_files = 0;
    refused_now = runner_sandbox_plan_check (&p, &why) == -1;
    ok (refused_now, "a plan without an open files limit: %s", why ? why : "?");
  }
  return done_testing ();
}
