/* runner-main.c: sandpad-runner, the helper that clients talk to.
 *
 * It speaks the protocol on stdin/stdout, or on one socket handed over as
 * --fd N (how the app starts it). Diagnostics go to stderr. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "config.h"
#include "runner-listen.h"
#include "runner-options.h"
#include "runner-server.h"
#include "runner-base.h"

static void
usage (FILE *out)
{
  fputs ("Usage: sandpad-runner [OPTION...]\n"
         "Serve the Sandpad runner protocol (docs/protocol.md) on stdin/stdout.\n\n"
         "  --fd N                 speak the protocol on fd N instead (a socket)\n"
         "  --listen[=PATH]        be the user's resident runner: serve every client of\n"
         "                         this uid on a Unix socket (default: in\n"
         "                         $XDG_RUNTIME_DIR/sandpad, or fd 3 from systemd)\n"
         "  --idle-exit SEC        with --listen: exit after SEC seconds with no client,\n"
         "                         run or session (default 300)\n"
         "  --max-concurrent N     runs at once; the rest queue (default 8)\n"
         "  --cancel-grace-ms N    wait between interrupt, terminate, kill (default 1000)\n"
         "  --compile-timeout-ms N a compiled language's compile step (default 60000)\n"
         "  --compile-cache DIR    compiled snippets (default $XDG_CACHE_HOME/sandpad/compiled)\n"
         "  --interpreter L=PATH   use PATH for language L\n"
         "  --work-parent DIR      where run directories go (default $TMPDIR or /tmp)\n"
         "  --sandbox MODE         auto (default), namespaces or fallback\n"
         "  --strict               refuse to run when a sandbox layer is unavailable\n"
         "  --disk MIB             writable space per run (default 256)\n"
         "  --disk-files N         files, directories and links a run may create (default 20000)\n"
         "  --allow-path DIR       requests may name files under DIR as \"path\" (repeatable;\n"
         "                         without it, \"path\" is refused)\n"
         "  --allow-cwd DIR        requests may name DIR and directories under it as \"cwd\"\n"
         "                         (repeatable; without it, \"cwd\" is refused)\n"
         "  --allow-environment DIR  requests may name an \"environment\" (a venv or\n"
         "                         node_modules) under DIR (repeatable; also allowed\n"
         "                         under --allow-path and --allow-cwd directories)\n"
         "  --max-sessions N       sessions (persistent interpreters) at once (default 8)\n"
         "  --session-idle-ms N    stop a session unused this long (default 600000)\n"
         "  --input-idle-ms N      stop a run waiting for input this long (default 900000;\n"
         "                         0: never); its time limit stands still while it waits\n"
         "  --line-hold-ms N       a partial line waits this long for the rest of its\n"
         "                         line before it is sent alone (default 30)\n"
         "  --no-warm              start every Python run cold (no warm interpreters)\n"
         "  --warm-max-runs N      recycle a warm interpreter after N runs (default 100)\n"
         "  --warm-start-ms N      end a warm interpreter not ready N ms after its start\n"
         "                         and start another (default 60000)\n"
         "  --warm-memory MIB      memory all warm interpreters and their spare runs may\n"
         "                         hold (default 512)\n"
         "  --warm-min-memory MIB  runs with a smaller memory limit start cold (default:\n"
         "                         four times what a warm interpreter holds)\n"
         "  --allow-any-environment  requests may name an environment anywhere (the app,\n"
         "                         whose user opened the file; still checked, read-only)\n"
         "  --version              print the version\n"
         "  --help                 print this help\n",
         out);
}

static long
parse_number (const char *arg, const char *what, long min, long max)
{
  char *end = NULL;
  long value = strtol (arg, &end, 10);

  if (end == arg || *end != '\0' || value < min || value > max)
    die ("%s must be a number from %ld to %ld", what, min, max);
  return value;
}

int
main (int argc, char **argv)
{
  static const struct option options[] = {
    { "fd", required_argument, NULL, 'f' },
    { "listen", optional_argument, NULL, 'L' },
    { "idle-exit", required_argument, NULL, 'x' },
    RUNNER_OPTION_MAX_CONCURRENT,
    { "cancel-grace-ms", required_argument, NULL, 'g' },
    { "compile-timeout-ms", required_argument, NULL, 'T' },
    { "compile-cache", required_argument, NULL, 'K' },
    RUNNER_OPTION_INTERPRETER,
    { "work-parent", required_argument, NULL, 'w' },
    RUNNER_OPTION_SANDBOX,
    RUNNER_OPTION_STRICT,
    RUNNER_OPTION_DISK,
    RUNNER_OPTION_DISK_FILES,
    { "allow-path", required_argument, NULL, 'P' },
    { "allow-cwd", required_argument, NULL, 'C' },
    { "allow-environment", required_argument, NULL, 'E' },
    { "max-sessions", required_argument, NULL, 'm' },
    { "session-idle-ms", required_argument, NULL, 'I' },
    { "input-idle-ms", required_argument, NULL, 'N' },
    { "line-hold-ms", required_argument, NULL, 'H' },
    RUNNER_OPTION_NO_WARM,
    { "warm-max-runs", required_argument, NULL, 'R' },
    { "warm-memory", required_argument, NULL, 'M' },
    { "warm-start-ms", required_argument, NULL, 'r' },
    { "warm-min-memory", required_argument, NULL, 'n' },
    { "allow-any-environment", no_argument, NULL, 'Y' },
    { "version", no_argument, NULL, 'V' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  RunnerConfig config;
  RunnerLanguages langs;
  int fd = -1, opt, status;
  bool listen = false;
  RunnerListenOptions listen_options = { .idle_exit_ms = 300 * 1000 };

  runner_config_init (&config);
  /* A long-lived runner keeps warm interpreters (runner-warm.h). */
  config.warm = true;
  runner_langs_init (&langs);
  while ((opt = getopt_long (argc, argv, "", options, NULL)) != -1)
    switch (opt)
      {
      case 'f':
        fd = (int) parse_number (optarg, "--fd", 3, 1 << 20);
        break;
      case 'L':
        listen = true;
        listen_options.socket_path = optarg;
        break;
      case 'x':
        listen_options.idle_exit_ms = parse_number (optarg, "--idle-exit", 1, 86400) * 1000;
        break;
      case 'g':
        config.cancel_grace_ms = parse_number (optarg, "--cancel-grace-ms", 0, 60000);
        break;
      case 'T':
        config.compile_timeout_ms = parse_number (optarg, "--compile-timeout-ms", 1,
                                                  30 * 60 * 1000);
        break;
      case 'K':
        config.compile_cache_dir = optarg;
        break;
      case 'm':
        config.max_sessions = (int) parse_number (optarg, "--max-sessions", 0, 64);
        break;
      case 'I':
        config.session_idle_ms = parse_number (optarg, "--session-idle-ms", 1, 86400000);
        break;
      case 'N':
        config.input_idle_ms = parse_number (optarg, "--input-idle-ms", 0, 86400000);
        break;
      case 'H':
        config.line_hold_ms = parse_number (optarg, "--line-hold-ms", 0, 60000);
        break;
      case 'w':
        config.work_parent = optarg;
        break;
      case 'P':
        if (runner_policy_allow (&config.paths.paths, optarg) != 0)
          die_with_error ("--allow-path %s: not a directory other than /", optarg);
        break;
      case 'C':
        if (runner_policy_allow (&config.paths.cwds, optarg) != 0)
          die_with_error ("--allow-cwd %s: not a directory other than /", optarg);
        break;
      case 'E':
        if (runner_policy_allow (&config.paths.environments, optarg) != 0)
          die_with_error ("--allow-environment %s: not a directory other than /", optarg);
        break;
      case 'R':
        config.warm_max_runs = (int) parse_number (optarg, "--warm-max-runs", 1, 1000000);
        break;
      case 'r':
        config.warm_start_ms = parse_number (optarg, "--warm-start-ms", 100, 3600 * 1000);
        break;
      case 'M':
        config.warm_memory_mib = parse_number (optarg, "--warm-memory", 1, 1 << 20);
        break;
      case 'n':
        config.warm_min_memory_mib = parse_number (optarg, "--warm-min-memory", 0, 1 << 20);
        break;
      case 'Y':
        config.paths.environments_anywhere = true;
        break;
      case 'V':
        printf ("sandpad-runner %s\n", PACKAGE_VERSION);
        return 0;
      case 'h':
        usage (stdout);
        return 0;
      default:
        if (runner_engine_option_is (opt))
          {
            char error[512];
            if (runner_engine_option (opt, optarg, &config, &langs, error, sizeof error) != 0)
              die ("%s", error);
            break;
          }
        usage (stderr);
        return 125;
      }
  if (optind != argc)
    die ("unexpected argument %s", argv[optind]);

  if (listen && fd >= 0)
    die ("--listen and --fd are two ways to serve: choose one");
  if (listen_options.socket_path != NULL && listen_options.socket_path[0] != '/')
    die ("--listen=PATH needs an absolute path");

  struct stat st;
  if (fd >= 0 && fstat (fd, &st) != 0)
    die_with_error ("--fd %d", fd);
  /* Whatever fds our caller left open, and the protocol socket itself,
   * are ours alone: no child (the version probe at the first hello, a run)
   * may inherit one. */
  if (syscall (SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
    for (long i = 3, max = sysconf (_SC_OPEN_MAX); i < max; i++)
      fcntl ((int) i, F_SETFD, FD_CLOEXEC);

  if (listen)
    status = runner_listen_run (&config, &langs, &listen_options);
  else
    status = fd >= 0 ? runner_server_run (&config, &langs, fd, fd)
                     : runner_server_run (&config, &langs, 0, 1);
  runner_langs_clear (&langs);
  runner_policy_clear (&config.paths);
  return status;
}
