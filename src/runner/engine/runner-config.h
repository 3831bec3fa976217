/* runner-config.h: what the engine is told when it is made (RunnerConfig)
 * and where it reports (RunnerSink). Below the engine, so that what the
 * engine lends its runs and sessions (runner-host.h) can hold the config
 * without including the engine. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "runner-policy.h"
#include "runner-sandbox.h"
#include "sp-proto.h"

typedef struct
{
  int64_t default_timeout_ms, max_timeout_ms;
  int64_t default_memory_mib, max_memory_mib;
  int64_t default_output_limit, max_output_limit;
  int64_t disk_limit;    /* bytes a run may write (workdir + /tmp); also RLIMIT_FSIZE */
  int64_t disk_files;    /* entries (inodes) a run may create there */
  int64_t open_files;    /* RLIMIT_NOFILE */
  int64_t max_processes; /* processes and threads a run may have at once */
  RunnerSandboxMode sandbox_mode;
  bool strict; /* refuse to run with fewer layers than asked for */
  int max_concurrent;
  int max_queued;
  int64_t cancel_grace_ms;       /* between interrupt, terminate and kill */
  const char *work_parent;       /* where the runner's private directory goes */
  RunnerPathPolicy paths;        /* which "path" and "cwd" requests may name; the
                                  * caller owns the lists */
  int max_sessions;              /* sessions (persistent interpreters) at once */
  int64_t session_idle_ms;       /* an unused session's interpreter is stopped after this */
  int64_t input_idle_ms;         /* a run waiting for input this long is stopped
                                  * (limit input_idle); its time limit stands
                                  * still while it waits; 0: no cap */
  int64_t line_hold_ms;          /* a partial line waits this long for the rest
                                  * of its line (runner-lines.c) */
  char *const *read_only_dirs;   /* canonical host directories every run may read
                                  * (bound read-only at the same path in namespace
                                  * mode, Landlock read rules in both); NULL-
                                  * terminated, caller-owned; NULL: none */
  const char *app_prefix;        /* a Flatpak app's own prefix (/app), read by
                                  * every run as read_only_dirs are: the Python
                                  * packages runs import live there
                                  * (flatpak/python3-modules.json), and fallback
                                  * mode's Landlock rules allow only /usr and the
                                  * like otherwise; NULL: none. runner_config_init
                                  * sets it inside Flatpak (/.flatpak-info) only:
                                  * elsewhere /app may be anything */
  bool warm;                     /* keep warm Python parents (runner-warm.h) */
  int warm_max_runs;             /* recycle a parent after this many runs */
  int64_t warm_idle_ms;          /* and when unused this long */
  int64_t warm_start_ms;         /* end one not ready this long after its start */
  int64_t warm_memory_mib;       /* the parents' resident memory together */
  int64_t warm_min_memory_mib;   /* runs with a smaller limit go cold; -1: four
                                  * times what a warm parent holds */
  int64_t compile_timeout_ms;    /* a compiled language's compile step */
  const char *compile_cache_dir; /* NULL: $XDG_CACHE_HOME/sandpad/compiled */
} RunnerConfig;

void runner_config_init (RunnerConfig *config);

/* The directories every run may read, as the engine holds them: the
 * config's read_only_dirs, then its app_prefix (Flatpak's /app, where the
 * bundled Python packages are). NULL-terminated; sp_strv_free() it. */
char **runner_config_read_only_list (const RunnerConfig *config);

typedef struct
{
  /* Every event: queued, started, output, exited, released. Output
   * events carry text already made valid UTF-8. */
  void (*event) (void *data, const SpMessage *msg);
  /* When set, output goes here as raw bytes instead of through event(). */
  void (*raw_output) (void *data, const char *id, SpStream stream, const char *bytes, size_t len);
  /* When set, says per run whether raw_output takes its output (true) or
   * it goes as events (false); unset: raw_output takes every run's. */
  bool (*wants_raw) (void *data, const char *id);
  /* A terminating signal (SIGTERM, SIGINT, SIGHUP) reached the runner. */
  void (*quit) (void *data, int signo);
} RunnerSink;
