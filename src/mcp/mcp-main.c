/* mcp-main.c: sandpad-mcp's command line.
 *
 * What the assistant may do is decided here, by whoever configured the
 * MCP client, never by the assistant's requests: limits, network, the
 * sandbox mode. Diagnostics go to stderr; stdout belongs to JSON-RPC. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "mcp-server.h"
#include "runner-options.h"
#include "runner-venv.h"

static void
usage (FILE *out)
{
  fputs ("Usage: sandpad-mcp [OPTION...]\n"
         "Serve Sandpad's sandboxed runs to an AI assistant over MCP (JSON-RPC 2.0 on\n"
         "stdin/stdout, one message per line).\n\n"
         "  --workspace DIR        offer execute_command, with DIR as its writable directory\n"
         "  --context-path DIR     let every run read DIR, read-only, at its own path\n"
         "                         (repeatable)\n"
         "  --block-command REGEX  refuse commands matching REGEX whole (repeatable)\n"
         "  --allow-command REGEX  run only commands matching one REGEX whole (repeatable)\n"
         "  --journal-dir DIR      where the run journal goes (default\n"
         "                         $XDG_STATE_HOME/sandpad/journal)\n"
         "  --journal-max BYTES    size of runs.jsonl before it rotates (default 4194304;\n"
         "                         0: keep no journal)\n"
         "  --timeout SEC          default time limit of a run (default 30, max 300)\n"
         "  --memory MIB           default memory limit of a run (default 512)\n"
         "  --disk MIB             writable space of a run, input files included (default 256)\n"
         "  --allow-network        let runs use the network (off by default)\n"
         "  --max-concurrent N     runs at once; the rest queue (default 8)\n"
         "  --sandbox MODE         auto (default), namespaces or fallback\n"
         "  --strict               refuse to run when a sandbox layer is unavailable\n"
         "  --interpreter L=PATH   use PATH for language L\n"
         "  --env NAME=VALUE       a variable every run gets (repeatable); a call's own\n"
         "                         env (execute_code) wins over it\n"
         "  --environment DIR      the Python venv runs use and install_packages installs\n"
         "                         into (default: .venv or venv in the workspace)\n"
         "  --no-environment       no venv, no install_packages\n"
         "  --resident-sessions    run execute_code's sessions in the user's resident runner\n"
         "                         (started if need be), where they outlive this server:\n"
         "                         another sandpad-mcp of the same user continues one by\n"
         "                         its session_id\n"
         "  --no-warm              start every Python run cold (no warm interpreter, which\n"
         "                         otherwise holds about 120 MiB while the server lives)\n"
         "  --index-url URL        install_packages' package index (PEP 503 simple API)\n"
         "  --find-links DIR       a local directory of wheels (repeatable; without\n"
         "                         --index-url installs are offline)\n"
         "  --allow-package PAT    only names matching a pattern may be installed (repeatable)\n"
         "  --block-package PAT    names matching it are refused (repeatable)\n"
         "  --require-pins         every package must be requested as name==version\n"
         "  --install-max-mib N    size cap of one install (default 200)\n"
         "  --allow-sdist          accept source distributions (their setup.py runs)\n"
         "  --version              print the version\n"
         "  --help                 print this help\n",
         out);
}

/* Setup errors, named as ours (the runner's die() says sandpad-runner);
 * with_errno appends the saved errno's text. */
static void __attribute__ ((noreturn, format (printf, 2, 3)))
fail (bool with_errno, const char *fmt, ...)
{
  int errsv = errno;
  va_list args;

  fputs ("sandpad-mcp: ", stderr);
  va_start (args, fmt);
  vfprintf (stderr, fmt, args);
  va_end (args);
  if (with_errno)
    fprintf (stderr, ": %s", strerror (errsv));
  fputc ('\n', stderr);
  exit (2);
}

static int64_t
parse_int (const char *arg, const char *what, int64_t min, int64_t max)
{
  char *end = NULL;
  long long value = strtoll (arg, &end, 10);

  if (end == arg || *end != '\0' || value < min || value > max)
    fail (false, "%s must be a whole number from %lld to %lld", what, (long long) min,
          (long long) max);
  return value;
}

/* A context path is bound at its own path in the private root, so it may
 * not land on a name the root already uses (mounting over /usr, or
 * through the /lib symlink into it, would fail every run). */
static void
add_context_path (McpOptions *options, const char *dir)
{
  static const char *const taken[] = { "usr",    "etc", "bin",  "sbin", "lib",  "lib32", "lib64",
                                       "libx32", "dev", "proc", "work", "code", NULL };
  if (runner_policy_allow (&options->context_paths, dir) != 0)
    fail (true, "--context-path %s: not a directory other than /", dir);
  const char *added = options->context_paths[sp_strv_length (options->context_paths) - 1];
  size_t first = strcspn (added + 1, "/");
  for (size_t i = 0; taken[i] != NULL; i++)
    if (strlen (taken[i]) == first && strncmp (added + 1, taken[i], first) == 0)
      fail (false, "--context-path %s: runs already see /%s as part of their system", dir,
            taken[i]);
}

/* --env NAME=VALUE, with the name checked as the protocol checks a
 * run's "env". */
static void
add_env (McpOptions *options, const char *spec)
{
  const char *eq = strchr (spec, '=');
  size_t n = sp_strv_length (options->env);

  if (eq == NULL || !sp_proto_env_name_valid (spec, (size_t) (eq - spec)))
    fail (false,
          "--env %s: needs NAME=VALUE, NAME of letters, digits and _ (not first a "
          "digit)",
          spec);
  options->env = xrealloc (options->env, (n + 2) * sizeof *options->env);
  options->env[n] = xstrdup (spec);
  options->env[n + 1] = NULL;
}

static void
parse_args (int argc, char **argv, RunnerConfig *config, RunnerLanguages *langs,
            McpOptions *options)
{
  static const struct option longopts[] = {
    { "workspace", required_argument, NULL, 'W' },
    { "context-path", required_argument, NULL, 'C' },
    { "block-command", required_argument, NULL, 'B' },
    { "allow-command", required_argument, NULL, 'A' },
    { "journal-dir", required_argument, NULL, 'J' },
    { "journal-max", required_argument, NULL, 'j' },
    { "timeout", required_argument, NULL, 't' },
    { "memory", required_argument, NULL, 'm' },
    RUNNER_OPTION_DISK,
    { "allow-network", no_argument, NULL, 'n' },
    RUNNER_OPTION_MAX_CONCURRENT,
    RUNNER_OPTION_SANDBOX,
    RUNNER_OPTION_STRICT,
    RUNNER_OPTION_INTERPRETER,
    { "env", required_argument, NULL, 'e' },
    { "environment", required_argument, NULL, 'E' },
    { "no-environment", no_argument, NULL, 'N' },
    { "resident-sessions", no_argument, NULL, 'R' },
    RUNNER_OPTION_NO_WARM,
    { "index-url", required_argument, NULL, 'u' },
    { "find-links", required_argument, NULL, 'f' },
    { "allow-package", required_argument, NULL, 'a' },
    { "block-package", required_argument, NULL, 'b' },
    { "require-pins", no_argument, NULL, 'p' },
    { "install-max-mib", required_argument, NULL, 'M' },
    { "allow-sdist", no_argument, NULL, 'D' },
    { "version", no_argument, NULL, 'V' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  int opt;

  while ((opt = getopt_long (argc, argv, "", longopts, NULL)) != -1)
    switch (opt)
      {
      case 'R':
        options->resident_sessions = true;
        break;
      case 'W':
        options->workspace = optarg;
        break;
      case 'e':
        add_env (options, optarg);
        break;
      case 'C':
        add_context_path (options, optarg);
        break;
      case 'B':
      case 'A':
        {
          char error[256];
          if (mcp_filters_add (&options->filters, opt == 'A', optarg, error, sizeof error) != 0)
            fail (false, "--%s-command %s: %s", opt == 'A' ? "allow" : "block", optarg, error);
        }
        break;
      case 'J':
        if (optarg[0] != '/')
          fail (false, "--journal-dir must be an absolute path");
        options->journal_dir = optarg;
        break;
      case 'j':
        options->journal_max = parse_int (optarg, "--journal-max", 0, INT64_C (1) << 40);
        break;
      case 't':
        {
          char *end = NULL;
          double sec = strtod (optarg, &end);
          if (end == optarg || *end != '\0' || !(sec > 0) || !isfinite (sec)
              || sec * 1000 > (double) config->max_timeout_ms)
            fail (false, "--timeout must be a number of seconds above 0 and at most %lld",
                  (long long) config->max_timeout_ms / 1000);
          config->default_timeout_ms = (int64_t) ceil (sec * 1000);
        }
        break;
      case 'm':
        config->default_memory_mib = parse_int (optarg, "--memory", 1, config->max_memory_mib);
        break;
      case 'n':
        options->allow_network = true;
        break;
      case 'E':
        options->environment = optarg;
        break;
      case 'N':
        options->no_environment = true;
        break;
      case 'u':
        if (strncmp (optarg, "https://", 8) != 0 && strncmp (optarg, "http://", 7) != 0)
          fail (false, "--index-url must start with https:// or http://");
        options->index_url = optarg;
        break;
      case 'f':
        if (runner_policy_allow (&options->find_links, optarg) != 0)
          fail (true, "--find-links %s: not a directory other than /", optarg);
        break;
      case 'a':
      case 'b':
        {
          char ***list = opt == 'a' ? &options->install_policy.allow
                                    : &options->install_policy.block;
          size_t n = sp_strv_length (*list);
          *list = xrealloc (*list, (n + 2) * sizeof **list);
          (*list)[n] = xstrdup (optarg);
          (*list)[n + 1] = NULL;
        }
        break;
      case 'p':
        options->install_policy.require_pins = true;
        break;
      case 'M':
        options->install_policy.max_bytes = parse_int (optarg, "--install-max-mib", 1, 1 << 20)
                                            * 1024 * 1024;
        break;
      case 'D':
        options->install_policy.allow_sdist = true;
        break;
      case 'V':
        printf ("sandpad-mcp %s\n", PACKAGE_VERSION);
        exit (0);
      case 'h':
        usage (stdout);
        exit (0);
      default:
        if (runner_engine_option_is (opt))
          {
            char error[512];
            if (runner_engine_option (opt, optarg, config, langs, error, sizeof error) != 0)
              fail (false, "%s", error);
            break;
          }
        usage (stderr);
        exit (2);
      }
  if (optind != argc)
    fail (false, "unexpected argument %s", argv[optind]);
}

/* The workspace's venv, or the one named: checked now so a bad one is a
 * startup error, not a refusal on every call; the engine allows exactly
 * it. */
static void
choose_environment (RunnerConfig *config, McpOptions *options)
{
  char msg[512];
  RunnerEnv env;

  if (options->no_environment)
    {
      options->environment = NULL;
      return;
    }
  if (options->environment == NULL && options->workspace != NULL)
    options->environment_owned = runner_venv_find (options->workspace, options->workspace);
  else if (options->environment != NULL)
    options->environment_owned = realpath (options->environment, NULL);
  options->environment = options->environment_owned;
  if (options->environment == NULL)
    return;
  if (runner_env_check ("python", options->environment, &env, msg, sizeof msg) != 0)
    fail (false, "%s", msg);
  runner_env_clear (&env);
  if (runner_policy_allow (&config->paths.environments, options->environment) != 0)
    fail (true, "--environment %s: not a directory other than /", options->environment);
}

int
main (int argc, char **argv)
{
  RunnerConfig config;
  RunnerLanguages langs;
  McpOptions options = { .journal_max = 4 * 1024 * 1024 };

  runner_config_init (&config);
  /* A cancelled call must end within a second: interrupt, then terminate
   * and kill 300 ms apart, even for a program that ignores SIGINT. */
  config.cancel_grace_ms = 300;
  /* An assistant's session makes many runs: Python ones start from a warm
   * interpreter (runner-warm.h), as the app's do. */
  config.warm = true;
  runner_langs_init (&langs);
  mcp_filters_init (&options.filters);
  parse_args (argc, argv, &config, &langs, &options);
  config.read_only_dirs = options.context_paths;
  options.disk_limit = config.disk_limit;
  if (options.filters.n_block + options.filters.n_allow > 0 && options.workspace == NULL)
    fail (false,
          "--block-command and --allow-command need --workspace (they filter execute_command)");

  if (options.workspace != NULL)
    {
      /* The workspace becomes the runs' writable cwd: the engine allows it
       * (and directories under it) and nothing else the client names. */
      uid_t run_uid = geteuid () == 0 ? RUNNER_SANDBOX_NOBODY : geteuid ();
      struct stat st;
      if (runner_policy_allow (&config.paths.cwds, options.workspace) != 0)
        fail (true, "--workspace %s: not a directory other than /", options.workspace);
      options.workspace = config.paths.cwds[0];
      for (size_t i = 0; config.read_only_dirs != NULL && config.read_only_dirs[i] != NULL; i++)
        {
          size_t a = strlen (config.read_only_dirs[i]), b = strlen (options.workspace);
          size_t m = a < b ? a : b;
          /* Nested either way, one would be both writable and read-only. */
          if (strncmp (config.read_only_dirs[i], options.workspace, m) == 0
              && (config.read_only_dirs[i][m] == '\0' || config.read_only_dirs[i][m] == '/')
              && (options.workspace[m] == '\0' || options.workspace[m] == '/'))
            fail (false, "--context-path %s overlaps the workspace", config.read_only_dirs[i]);
        }
      if (stat (options.workspace, &st) != 0 || st.st_uid != run_uid)
        fail (false, "--workspace %s must belong to uid %d, the uid that runs programs%s",
              options.workspace, (int) run_uid,
              run_uid == RUNNER_SANDBOX_NOBODY ? " (nobody, as sandpad-mcp runs as root)" : "");
    }

  choose_environment (&config, &options);

  runner_langs_probe_versions (&langs);
  int status = mcp_server_run (&config, &langs, &options, &mcp_tools_handlers, 0, 1);
  runner_langs_clear (&langs);
  mcp_filters_clear (&options.filters);
  runner_policy_clear (&config.paths);
  sp_strv_free (options.context_paths);
  sp_strv_free (options.find_links);
  sp_strv_free (options.install_policy.allow);
  sp_strv_free (options.install_policy.block);
  free (options.environment_owned);
  sp_strv_free (options.env);
  return status;
}
