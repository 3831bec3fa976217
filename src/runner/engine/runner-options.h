/* runner-options.h: the engine options sandpad-runner, sandpad-run and
 * sandpad-mcp share, parsed in one place.
 *
 * Each command puts RUNNER_ENGINE_OPTIONS in its getopt_long table and
 * hands whatever option it does not know itself to runner_engine_option,
 * so --sandbox, --strict, --disk, --disk-files, --interpreter,
 * --max-concurrent and --no-warm mean the same, take the same values and
 * fail with the same words in all three. A command leaves out of its
 * table what it does not offer (runner_engine_option never sees it). */
#pragma once

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "runner-config.h"
#include "runner-langs.h"

/* getopt_long codes past any short option's. */
enum
{
  RUNNER_OPT_SANDBOX = 0x1000,
  RUNNER_OPT_STRICT,
  RUNNER_OPT_DISK,
  RUNNER_OPT_DISK_FILES,
  RUNNER_OPT_INTERPRETER,
  RUNNER_OPT_MAX_CONCURRENT,
  RUNNER_OPT_NO_WARM,
};

#define RUNNER_OPTION_SANDBOX                                                                      \
  {                                                                                                \
    "sandbox", required_argument, NULL, RUNNER_OPT_SANDBOX                                         \
  }
#define RUNNER_OPTION_STRICT                                                                       \
  {                                                                                                \
    "strict", no_argument, NULL, RUNNER_OPT_STRICT                                                 \
  }
#define RUNNER_OPTION_DISK                                                                         \
  {                                                                                                \
    "disk", required_argument, NULL, RUNNER_OPT_DISK                                               \
  }
#define RUNNER_OPTION_DISK_FILES                                                                   \
  {                                                                                                \
    "disk-files", required_argument, NULL, RUNNER_OPT_DISK_FILES                                   \
  }
#define RUNNER_OPTION_INTERPRETER                                                                  \
  {                                                                                                \
    "interpreter", required_argument, NULL, RUNNER_OPT_INTERPRETER                                 \
  }
#define RUNNER_OPTION_MAX_CONCURRENT                                                               \
  {                                                                                                \
    "max-concurrent", required_argument, NULL, RUNNER_OPT_MAX_CONCURRENT                           \
  }
#define RUNNER_OPTION_NO_WARM                                                                      \
  {                                                                                                \
    "no-warm", no_argument, NULL, RUNNER_OPT_NO_WARM                                               \
  }

/* Whether opt is one of the codes above. */
bool runner_engine_option_is (int opt);

/* Applies option opt (one of the codes above) with its argument arg to
 * config and langs. 0, or -1 with what is wrong with it in error (the
 * option named, as the command line spelled it). */
int runner_engine_option (int opt, const char *arg, RunnerConfig *config, RunnerLanguages *langs,
                          char *error, size_t size);
