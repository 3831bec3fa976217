/* runner-config.c: the engine's defaults (runner-config.h). */
#include <unistd.h>

#include "runner-config.h"
#include "runner-base.h"

void
runner_config_init (RunnerConfig *config)
{
  *config = (RunnerConfig){
    .default_timeout_ms = 30 * 1000,
    .max_timeout_ms = 300 * 1000,
    .default_memory_mib = 512,
    .max_memory_mib = 16 * 1024,
    .default_output_limit = 1024 * 1024,
    .max_output_limit = 64 * 1024 * 1024,
    .disk_limit = 256 * 1024 * 1024,
    .disk_files = 20000,
    /* Low, as what a run can pin in kernel buffers grows with its fds:
     * python3 with numpy and matplotlib, node, bash and pip all start
     * and work with 32. */
    .open_files = 128,
    .max_processes = 256,
    .sandbox_mode = RUNNER_SANDBOX_AUTO,
    .strict = false,
    /* Runs mostly wait (for input, sleep, the network); eight at once
     * keep a two-core machine busy without queueing the ninth behind
     * short waits (bench/concurrent.sh). Limits are per run either way. */
    .max_concurrent = 8,
    .max_queued = 64,
    .cancel_grace_ms = 1000,
    .work_parent = NULL,
    .max_sessions = 8,
    .session_idle_ms = 10 * 60 * 1000,
    /* Long enough to come back from a coffee, short enough that a
     * forgotten prompt does not hold a run slot all day. */
    .input_idle_ms = 15 * 60 * 1000,
    /* Long enough for print()'s text and newline written apart, short
     * enough that a prompt or "\r50%" shows at once to the eye. */
    .line_hold_ms = 30,
    .warm = false,
    .warm_max_runs = 100,
    .warm_idle_ms = 10 * 60 * 1000,
    .warm_start_ms = 60 * 1000,
    .warm_memory_mib = 512,
    .warm_min_memory_mib = -1,
    /* A compile step's own limit: rustc and go build take seconds, and a
     * short program limit should not starve them. */
    .compile_timeout_ms = 60 * 1000,
    .app_prefix = access ("/.flatpak-info", F_OK) == 0 ? "/app" : NULL,
  };
}

char **
runner_config_read_only_list (const RunnerConfig *config)
{
  size_t n = sp_strv_length (config->read_only_dirs);
  char **list = xcalloc (n + 2, sizeof *list);

  for (size_t i = 0; i < n; i++)
    list[i] = xstrdup (config->read_only_dirs[i]);
  if (config->app_prefix != NULL)
    list[n++] = xstrdup (config->app_prefix);
  list[n] = NULL;
  return list;
}
