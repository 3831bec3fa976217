/* runner-environment.c: the engine's verdict on a request's "environment".
 *
 * runner-venv.c says whether a directory is a usable environment; this
 * says whether this request may have it: under a directory the runner's
 * command line allows (as for "path" and "cwd": whoever writes requests
 * is not trusted to pick host paths), clear of the runner's own run
 * directories, and such that the run cannot write into it. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runner-environment.h"

static bool
within_any (const char *path, char *const *dirs)
{
  for (size_t i = 0; dirs != NULL && dirs[i] != NULL; i++)
    if (runner_env_within (path, dirs[i]))
      return true;
  return false;
}

static int refuse (SpProtoError *err, RunnerEnv *env, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

/* Fills err with "field environment: " and the sentence, naming the
 * environment; drops it. */
static int
refuse (SpProtoError *err, RunnerEnv *env, const char *fmt, ...)
{
  char sentence[400];
  va_list args;

  va_start (args, fmt);
  vsnprintf (sentence, sizeof sentence, fmt, args);
  va_end (args);
  runner_env_clear (env);
  return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"environment\": %s", sentence);
}

int
_runner_environment_check (const RunnerHost *host, const SpRun *req, bool writable, RunnerEnv *env,
                           SpProtoError *err)
{
  const RunnerPathPolicy *paths = &host->config.paths;
  char msg[512];

  if (runner_env_check (req->language, req->environment, env, msg, sizeof msg) != 0)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"environment\": %s", msg);
  if (!paths->environments_anywhere && !within_any (env->dir, paths->environments)
      && !within_any (env->dir, paths->paths) && !within_any (env->dir, paths->cwds))
    return refuse (err, env,
                   "%.200s is outside the directories this runner allows "
                   "(--allow-environment, --allow-cwd, --allow-path)",
                   env->dir);
  if (runner_env_within (env->dir, host->root) || runner_env_within (host->root, env->dir))
    return refuse (err, env, "%.200s overlaps the runner's own run directories", env->dir);
  /* A run whose working directory is inside its environment could write
   * into it through the writable cwd. */
  if (req->cwd != NULL && runner_env_within (req->cwd, env->dir))
    return refuse (err, env, "the working directory lies inside the environment %.200s", env->dir);
  /* Landlock only adds rights: without a private root nothing can take
   * write access back from a part of the writable working directory. */
  if (req->cwd != NULL && runner_env_within (env->dir, req->cwd) && !host->namespaces && !writable)
    return refuse (err, env,
                   "the environment %.200s lies inside the working directory, "
                   "and in fallback mode (no namespaces) the sandbox cannot keep "
                   "it read-only there; run in another directory",
                   env->dir);
  return 0;
}
