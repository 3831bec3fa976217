/* runner-warm-child.c: the warm path's way into the sandbox.
 *
 * Built into sandpad-warm.so, which the warm parent (a python3 that has
 * imported numpy and matplotlib and runs no user code, see
 * service/runner-warm.c) loads with ctypes.PyDLL. Per run it calls
 * sp_warm_spawn() with the plan the runner sent and the run's five pipes:
 * this is runner_spawn() itself, the same supervisor, run init and program
 * steps as a cold run, except that the program's last step returns 0 into
 * the interpreter instead of execve'ing one. In the warm parent it returns
 * the supervisor's pid; the supervisor and the run init never return.
 *
 * The plan is NUL-separated "key=value" text: paths, limits and switches,
 * nothing the run's user wrote (code, arguments and environment reach the
 * program through its own code directory, never the warm parent). */
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "runner-sandbox.h"
#include "runner-seccomp.h"
#include "runner-spawn.h"
#include "runner-util.h"

/* Read-only directories a plan may name. */
#define WARM_MAX_RO 64

typedef struct
{
  RunnerSpawnSpec spec;
  RunnerSandboxPlan plan;
  RunnerSeccompFilter filter;
  bool use_seccomp;
  char *ro[WARM_MAX_RO + 1];
  size_t n_ro;
} WarmPlan;

static int64_t
parse_int (const char *value)
{
  return strtoll (value, NULL, 10);
}

/* Returns 0, or -1 for an unknown key or a missing path. */
static int
parse_plan (const char *blob, size_t len, WarmPlan *w)
{
  const char *end = blob + len;

  for (const char *p = blob; p < end; p += strlen (p) + 1)
    {
      const char *eq = memchr (p, '=', (size_t) (end - p));
      if (eq == NULL || memchr (p, '\0', (size_t) (end - p)) == NULL)
        return -1;
      size_t klen = (size_t) (eq - p);
      const char *v = eq + 1;
#define KEY(name) (klen == strlen (name) && strncmp (p, name, klen) == 0)
      if (KEY ("namespaces"))
        w->plan.namespaces = parse_int (v) != 0;
      else if (KEY ("network"))
        w->plan.network = parse_int (v) != 0;
      else if (KEY ("landlock"))
        w->plan.landlock_abi = (int) parse_int (v);
      else if (KEY ("seccomp"))
        w->use_seccomp = parse_int (v) != 0;
      else if (KEY ("nobody"))
        w->plan.drop_to_nobody = parse_int (v) != 0;
      else if (KEY ("nproc"))
        w->plan.max_processes = parse_int (v);
      else if (KEY ("tmp_bytes"))
        w->plan.tmp_bytes = parse_int (v);
      else if (KEY ("root"))
        w->plan.root_dir = v;
      else if (KEY ("work"))
        w->plan.work_dir = v;
      else if (KEY ("code"))
        w->plan.code_dir = v;
      else if (KEY ("tmp"))
        w->plan.tmp_dir = v;
      else if (KEY ("ro"))
        {
          if (w->n_ro >= WARM_MAX_RO)
            return -1;
          w->ro[w->n_ro++] = (char *) v;
        }
      else if (KEY ("cwd"))
        w->spec.cwd = v;
      else if (KEY ("memory"))
        w->spec.memory_bytes = parse_int (v);
      else if (KEY ("cpu"))
        w->spec.cpu_seconds = parse_int (v);
      else if (KEY ("fsize"))
        w->spec.file_size_bytes = parse_int (v);
      else if (KEY ("nofile"))
        w->spec.open_files = parse_int (v);
      else if (klen > 3 && strncmp (p, "py.", 3) == 0)
        continue; /* the driver's, not the sandbox's */
      else
        return -1;
#undef KEY
    }
  if (w->plan.root_dir == NULL || w->plan.work_dir == NULL || w->plan.code_dir == NULL
      || w->plan.tmp_dir == NULL || w->spec.cwd == NULL)
    return -1;
  w->ro[w->n_ro] = NULL;
  w->plan.read_only_dirs = w->n_ro > 0 ? w->ro : NULL;
  return 0;
}

pid_t sp_warm_spawn (const char *blob, size_t len, int in, int out, int err, int control,
                     int status);

/* In the warm parent: > 0 the supervisor's pid, -1 with errno set. In the
 * program, after every layer: 0, with fds 0-2 the run's pipes and nothing
 * else open. */
pid_t
sp_warm_spawn (const char *blob, size_t len, int in, int out, int err, int control, int status)
{
  WarmPlan w = { 0 };
  jmp_buf resume;
  pid_t pid;

  if (blob == NULL || len == 0 || blob[len - 1] != '\0' || parse_plan (blob, len, &w) != 0)
    {
      errno = EINVAL;
      return -1;
    }
  /* Compiled here, before any fork, as the runner does for a cold run;
   * the run's mode and network setting decide it. */
  if (w.use_seccomp)
    {
      RunnerSeccompPolicy policy = { .fallback = !w.plan.namespaces,
                                     .network = w.plan.network };
      if (runner_seccomp_compile (&policy, &w.filter) != 0)
        return -1;
      w.plan.seccomp = &w.filter;
    }
  w.spec.sandbox = &w.plan;
  w.spec.stdin_fd = in;
  w.spec.stdout_fd = out;
  w.spec.stderr_fd = err;
  w.spec.control_fd = control;
  w.spec.status_fd = status;
  w.spec.resume = &resume;

  /* The program comes back here, in its own copy of this frame. */
  if (setjmp (resume) != 0)
    return 0;
  pid = runner_spawn (&w.spec);
  int errsv = errno;
  runner_seccomp_clear (&w.filter);
  errno = errsv;
  return pid;
}
