/* sandpad-run-install.c: `sandpad-run --install SPEC...`, packages into a
 * venv under the install policy (runner-install.h), from a shell; and a
 * script's declared dependencies (PEP 723, runner-pep723.h) the same way
 * before `sandpad-run FILE.py` runs it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "runner-engine.h"
#include "runner-install.h"
#include "runner-pep723.h"
#include "runner-base.h"
#include "runner-venv.h"
#include "sandpad-run-install.h"

#define EXIT_SANDPAD 125

typedef struct
{
  RunnerInstall *inst;
  bool verbose;
  Buf quiet_output; /* pip's words when not verbose, shown if it fails */
  char *message;    /* the outcome, malloc'd */
  char *log_path;   /* or NULL */
} InstallCli;

static void
install_usage (FILE *out)
{
  fputs ("Usage: sandpad-run --install [OPTION...] SPEC...\n"
         "   or: sandpad-run --install [OPTION...] --declared FILE\n"
         "Install packages (name, name==version) into a Python venv: pip downloads in the\n"
         "sandbox with the network on and the venv read-only; the files are checked against\n"
         "the policy; pip installs them in the sandbox with the network off.\n\n"
         "  --environment DIR    the venv (default: .venv or venv in the current directory)\n"
         "  --index-url URL      the package index (PEP 503 simple API)\n"
         "  --find-links DIR     a local directory of wheels (repeatable; without\n"
         "                       --index-url the install is offline: --no-index)\n"
         "  --allow PATTERN      only names matching a pattern may come in (repeatable)\n"
         "  --block PATTERN      names matching it are refused (repeatable)\n"
         "  --require-pins       every package must be requested as name==version\n"
         "  --max-mib N          size cap of one install (default 200)\n"
         "  --allow-sdist        accept source distributions (their setup.py runs code\n"
         "                       during the install, in the sandbox)\n"
         "  --log FILE           the install log (default $XDG_STATE_HOME/sandpad/installs.log)\n"
         "  --sandbox MODE       auto (default), namespaces or fallback\n"
         "  --strict             refuse to run when a sandbox layer is unavailable\n"
         "  --quiet              do not show pip's output\n"
         "  --declared FILE      install what a Python script's inline metadata (PEP 723)\n"
         "                       declares and the environment does not have yet (FILE -\n"
         "                       reads it from stdin)\n"
         "  --list               with --declared: print those specs, one a line, and\n"
         "                       install nothing (without --environment: every one)\n",
         out);
}

static void
on_install_event (void *data, const SpMessage *msg)
{
  InstallCli *cli = data;

  if (cli->inst != NULL)
    runner_install_event (cli->inst, msg);
}

static void
on_install_output (void *data, const char *id, SpStream stream, const char *bytes, size_t len)
{
  InstallCli *cli = data;

  /* pip's words go to stderr; stdout carries only the outcome. */
  if (cli->verbose)
    write_all (2, bytes, len);
  else if (cli->quiet_output.len < 64 * 1024)
    buf_append (&cli->quiet_output, bytes, len);
}

static void
on_install_quit (void *data, int signo)
{
  InstallCli *cli = data;

  /* Freeing the install cancels its step and removes its files. */
  runner_install_free (cli->inst);
  cli->inst = NULL;
  fprintf (stderr, "sandpad: install interrupted\n");
  exit (130);
}

/* One install with an engine of its own: 0 installed, 1 failed, 2 refused
 * at once, 3 refused after the download (the files' check, the venv
 * guard); cli->message says why. */
static int
install_run (RunnerConfig *config, RunnerLanguages *langs, const RunnerInstallRequest *req,
             InstallCli *cli)
{
  char msg[600];
  int status = 1;

  config->max_concurrent = 1;
  RunnerSink sink
    = { .event = on_install_event, .raw_output = on_install_output, .quit = on_install_quit };
  RunnerEngine *engine = runner_engine_new (config, langs, &sink, cli);
  cli->inst = runner_install_start (engine, req, msg, sizeof msg);
  if (cli->inst == NULL)
    {
      cli->message = xstrdup (msg);
      status = 2;
    }
  else
    {
      RunnerInstallState state;
      while ((state = runner_install_poll (cli->inst)) == RUNNER_INSTALL_RUNNING)
        if (runner_engine_iterate (engine, -1) < 0)
          break;
      cli->message = xstrdup (state == RUNNER_INSTALL_RUNNING ? "the event loop failed"
                                                              : runner_install_message (cli->inst));
      status = state == RUNNER_INSTALL_DONE ? 0 : state == RUNNER_INSTALL_REFUSED ? 3 : 1;
      if (runner_install_log_path (cli->inst) != NULL)
        cli->log_path = xstrdup (runner_install_log_path (cli->inst));
      runner_install_free (cli->inst);
      cli->inst = NULL;
    }
  runner_engine_free (engine);
  return status;
}

/* The whole of path ("-": stdin), NUL-terminated, at most 16 MiB; NULL
 * with errno set when it cannot be read. */
static char *
read_code (const char *path)
{
  FILE *f = strcmp (path, "-") == 0 ? stdin : fopen (path, "re");
  Buf code = { 0 };
  char chunk[65536];
  size_t n;

  if (f == NULL)
    return NULL;
  errno = 0;
  while ((n = fread (chunk, 1, sizeof chunk, f)) > 0 && code.len < 16 * 1024 * 1024)
    buf_append (&code, chunk, n);
  /* fread leaves errno set on a read error; past the cap it is EFBIG. */
  int why = ferror (f) ? (errno != 0 ? errno : EIO) : code.len >= 16 * 1024 * 1024 ? EFBIG : 0;
  if (f != stdin)
    fclose (f);
  if (why != 0)
    {
      buf_clear (&code);
      errno = why;
      return NULL;
    }
  buf_append (&code, "", 1);
  return code.data;
}

/* --declared FILE: the specs of FILE's PEP 723 block that environment
 * lacks into *deps and -1 to go on and install them; or the exit status
 * when nothing is to be installed (0, --list printed them) or the block
 * is refused (125, why on stderr). */
static int
declared_specs (const char *path, const char *environment, bool list, char ***deps)
{
  cleanup_free char *code = read_code (path);
  char **declared = NULL;
  char msg[600];

  *deps = NULL;
  if (code == NULL)
    {
      fprintf (stderr, "sandpad: %s: %s\n", path, strerror (errno));
      return EXIT_SANDPAD;
    }
  switch (runner_pep723_declared (code, environment, &declared, msg, sizeof msg))
    {
    case RUNNER_PEP723_INVALID:
      fprintf (stderr, "sandpad: %s\n", msg);
      return EXIT_SANDPAD;
    case RUNNER_PEP723_NONE:
      break;
    case RUNNER_PEP723_NO_ENVIRONMENT:
      if (!list)
        {
          fprintf (stderr, "sandpad: the script declares dependencies (PEP 723) but no Python "
                           "environment was found to install them into: name one with "
                           "--environment\n");
          sp_strv_free (declared);
          return EXIT_SANDPAD;
        }
      break;
    case RUNNER_PEP723_INSTALL:
      break;
    }
  /* With an environment, declared holds only what it lacks (the same
   * rule as sandpad-run FILE.py and sandpad-mcp: runner_pep723_declared). */
  if (list || declared == NULL || declared[0] == NULL)
    {
      for (size_t i = 0; list && declared != NULL && declared[i] != NULL; i++)
        printf ("%s\n", declared[i]);
      if (!list)
        printf ("nothing to install: the environment has what the script declares\n");
      sp_strv_free (declared);
      return 0;
    }
  *deps = declared;
  return -1;
}

int
sandpad_run_install (int argc, char **argv, RunnerConfig *config, RunnerLanguages *langs)
{
  static const struct option options[] = {
    { "install", no_argument, NULL, 'I' },
    { "environment", required_argument, NULL, 'E' },
    { "index-url", required_argument, NULL, 'u' },
    { "find-links", required_argument, NULL, 'f' },
    { "allow", required_argument, NULL, 'a' },
    { "block", required_argument, NULL, 'b' },
    { "require-pins", no_argument, NULL, 'p' },
    { "max-mib", required_argument, NULL, 'm' },
    { "allow-sdist", no_argument, NULL, 'S' },
    { "log", required_argument, NULL, 'L' },
    { "sandbox", required_argument, NULL, 's' },
    { "strict", no_argument, NULL, 'T' },
    { "quiet", no_argument, NULL, 'q' },
    { "declared", required_argument, NULL, 'D' },
    { "list", no_argument, NULL, 'l' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  RunnerInstallRequest req = { .id = "install" };
  const char *declared = NULL;
  bool list = false;
  char **deps = NULL;
  char **find_links = NULL;
  char *environment = NULL;
  InstallCli cli = { .verbose = true };
  int opt;

  while ((opt = getopt_long (argc, argv, "+", options, NULL)) != -1)
    switch (opt)
      {
      case 'I':
        break;
      case 'E':
        free (environment);
        environment = xstrdup (optarg);
        break;
      case 'u':
        req.index_url = optarg;
        break;
      case 'f':
        find_links = strv_add (find_links, optarg);
        break;
      case 'a':
        req.policy.allow = strv_add (req.policy.allow, optarg);
        break;
      case 'b':
        req.policy.block = strv_add (req.policy.block, optarg);
        break;
      case 'p':
        req.policy.require_pins = true;
        break;
      case 'm':
        {
          char *end = NULL;
          long long mib = strtoll (optarg, &end, 10);
          if (end == optarg || *end != '\0' || mib < 1 || mib > 1 << 20)
            {
              fprintf (stderr, "sandpad: --max-mib must be a whole number from 1 to %d\n", 1 << 20);
              return EXIT_SANDPAD;
            }
          req.policy.max_bytes = mib * 1024 * 1024;
        }
        break;
      case 'S':
        req.policy.allow_sdist = true;
        break;
      case 'L':
        req.log_path = optarg;
        break;
      case 's':
        if (runner_sandbox_mode_parse (optarg, &config->sandbox_mode) != 0)
          {
            fprintf (stderr, "sandpad: --sandbox must be auto, namespaces or fallback\n");
            return EXIT_SANDPAD;
          }
        break;
      case 'T':
        config->strict = true;
        break;
      case 'q':
        cli.verbose = false;
        break;
      case 'D':
        declared = optarg;
        break;
      case 'l':
        list = true;
        break;
      case 'h':
        install_usage (stdout);
        return 0;
      default:
        install_usage (stderr);
        return EXIT_SANDPAD;
      }
  if (optind < argc && strcmp (argv[optind], "--") == 0)
    optind++;
  if ((declared == NULL) == (optind >= argc) || (list && declared == NULL))
    {
      install_usage (stderr);
      return EXIT_SANDPAD;
    }
  /* --list without --environment says what the script declares, for a
   * front end with no environment chosen: nothing is looked for. */
  if (environment == NULL && !list)
    environment = runner_venv_find (".", ".");
  if (declared != NULL)
    {
      int status = declared_specs (declared, environment, list, &deps);
      if (status >= 0)
        {
          sp_strv_free (find_links);
          sp_strv_free (req.policy.allow);
          sp_strv_free (req.policy.block);
          free (environment);
          return status;
        }
    }
  if (environment == NULL)
    {
      fprintf (stderr, "sandpad: no environment: name one with --environment, or create one "
                       "with /usr/bin/python3 -m venv --system-site-packages .venv\n");
      return EXIT_SANDPAD;
    }
  /* The person at the shell named it (or ran us in it): exactly it is
   * allowed; the engine still checks it like any run's. */
  if (runner_policy_allow (&config->paths.environments, environment) != 0)
    {
      fprintf (stderr, "sandpad: environment %s: not a directory other than /\n", environment);
      return EXIT_SANDPAD;
    }
  req.environment = environment;
  req.find_links = find_links;
  req.packages = deps != NULL ? deps : argv + optind;

  int status = install_run (config, langs, &req, &cli);
  if (status == 0)
    {
      printf ("%s\n", cli.message);
      if (cli.log_path != NULL)
        printf ("logged in %s\n", cli.log_path);
    }
  else
    {
      /* --quiet keeps pip's words for a failure: they say why. */
      write_all (2, cli.quiet_output.data, cli.quiet_output.len);
      fprintf (stderr, "sandpad: %s%s\n", status == 2 ? "refused: " : "", cli.message);
    }
  buf_clear (&cli.quiet_output);
  free (cli.message);
  free (cli.log_path);
  status = status != 0;
  runner_policy_clear (&config->paths);
  sp_strv_free (find_links);
  sp_strv_free (req.policy.allow);
  sp_strv_free (req.policy.block);
  sp_strv_free (deps);
  free (environment);
  return status;
}

int
sandpad_run_install_declared (RunnerConfig *config, RunnerLanguages *langs, const SpRun *run,
                              const RunnerInstallRequest *source)
{
  char **deps = NULL;
  char msg[600];

  if (run->code == NULL || run->language == NULL || strcmp (run->language, "python") != 0)
    return 0;
  switch (runner_pep723_declared (run->code, run->environment, &deps, msg, sizeof msg))
    {
    case RUNNER_PEP723_NONE:
      return 0;
    case RUNNER_PEP723_INVALID:
      fprintf (stderr, "sandpad: %s\n", msg);
      return EXIT_SANDPAD;
    case RUNNER_PEP723_NO_ENVIRONMENT:
      /* Never into the user's site-packages or the system's: a declared
       * dependency goes into a venv the person chose, or nowhere. */
      fprintf (stderr, "sandpad: the script declares dependencies (PEP 723) but no Python "
                       "environment was found to install them into: name one with "
                       "--environment, or create one with /usr/bin/python3 -m venv "
                       "--system-site-packages .venv beside it; nothing was run\n");
      sp_strv_free (deps);
      return EXIT_SANDPAD;
    case RUNNER_PEP723_INSTALL:
      break;
    }
  RunnerInstallRequest req = *source;
  req.id = "script-deps";
  req.environment = run->environment;
  req.packages = deps;
  InstallCli cli = { .verbose = false };
  int status = install_run (config, langs, &req, &cli);
  if (status != 0)
    {
      write_all (2, cli.quiet_output.data, cli.quiet_output.len);
      fprintf (stderr,
               "sandpad: the dependencies in the script's metadata (PEP 723) were %s, so it "
               "did not run: %s\n",
               status == 1 ? "not installed" : "refused", cli.message);
    }
  buf_clear (&cli.quiet_output);
  free (cli.message);
  free (cli.log_path);
  sp_strv_free (deps);
  return status != 0 ? EXIT_SANDPAD : 0;
}
