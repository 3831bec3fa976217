/* runner-options.c: the engine options the three commands share (see
 * runner-options.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "runner-options.h"
#include "runner-sandbox.h"

bool
runner_engine_option_is (int opt)
{
  return opt >= RUNNER_OPT_SANDBOX && opt <= RUNNER_OPT_NO_WARM;
}

/* A whole decimal number from min to max, nothing before or after. */
static int
whole_number (const char *arg, const char *what, long long min, long long max, long long *out,
              char *error, size_t size)
{
  char *end = NULL;
  long long value;

  errno = 0;
  value = strtoll (arg, &end, 10);
  if (end == arg || *end != '\0' || errno != 0 || value < min || value > max)
    {
      snprintf (error, size, "%s must be a whole number from %lld to %lld", what, min, max);
      return -1;
    }
  *out = value;
  return 0;
}

int
runner_engine_option (int opt, const char *arg, RunnerConfig *config, RunnerLanguages *langs,
                      char *error, size_t size)
{
  long long n = 0;

  switch (opt)
    {
    case RUNNER_OPT_SANDBOX:
      if (runner_sandbox_mode_parse (arg, &config->sandbox_mode) == 0)
        return 0;
      snprintf (error, size, "--sandbox must be auto, namespaces or fallback");
      return -1;
    case RUNNER_OPT_STRICT:
      config->strict = true;
      return 0;
    case RUNNER_OPT_DISK:
      if (whole_number (arg, "--disk", 1, 1 << 20, &n, error, size) != 0)
        return -1;
      config->disk_limit = (int64_t) n * 1024 * 1024;
      return 0;
    case RUNNER_OPT_DISK_FILES:
      if (whole_number (arg, "--disk-files", 1, 1000000, &n, error, size) != 0)
        return -1;
      config->disk_files = n;
      return 0;
    case RUNNER_OPT_INTERPRETER:
      if (runner_langs_override (langs, arg) == 0)
        return 0;
      snprintf (error, size,
                "--interpreter %s: unknown language or not an executable absolute path", arg);
      return -1;
    case RUNNER_OPT_MAX_CONCURRENT:
      if (whole_number (arg, "--max-concurrent", 1, 64, &n, error, size) != 0)
        return -1;
      config->max_concurrent = (int) n;
      return 0;
    case RUNNER_OPT_NO_WARM:
      config->warm = false;
      return 0;
    default:
      snprintf (error, size, "not an engine option");
      return -1;
    }
}
