/* sandpad-run.c: run one file through the runner's engine, from a shell.
 *
 * The same engine as sandpad-runner, without the protocol in between:
 * output streams straight to our stdout and stderr (or, with --json, as
 * protocol events), our stdin feeds the program, and the exit status says
 * how the run ended. */
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>

#include "config.h"
#include "runner-engine.h"
#include "runner-event.h"
#include "runner-options.h"
#include "runner-pep723.h"
#include "runner-base.h"
#include "runner-venv.h"
#include "sandpad-run-daemon.h"
#include "sandpad-run-install.h"
#include "sandpad-run-venv.h"

#define EXIT_SANDPAD 125 /* our own errors, as timeout(1) and env(1) do */
#define EXIT_TIMEOUT 124

typedef struct
{
  RunnerEngine *engine;
  bool json;
  bool done;
  SpExited result;
  RunnerWatch *stdin_watch;
  int interrupts;
  char *cwd; /* the request's --cwd (a copy), or NULL */
} Cli;

typedef struct
{
  char *workspace; /* --workspace, canonical */
  bool none;       /* --no-environment */
} EnvOptions;

/* What decides between the resident runner and a cold run of our own. */
typedef struct
{
  bool no_daemon;     /* --no-daemon */
  bool custom_engine; /* an option that sets up the engine itself (--sandbox,
                       * --strict, --disk, --disk-files, --interpreter): the
                       * resident runner has its own, so the run goes cold */
  bool list;          /* --sessions */
  char *close;        /* --close-session NAME */
  char *session;      /* --session=NAME */
} DaemonOptions;

static void
usage (FILE *out)
{
  fputs (
    "Usage: sandpad-run [OPTION...] FILE|- [-- ARGS...]\n"
    "       sandpad-run --session [OPTION...] FILE...\n"
    "Run FILE (or standard input) with its interpreter, under Sandpad's limits.\n\n"
    "  --lang L              python, javascript, bash, c, cpp, rust, go, typescript,\n"
    "                        ruby, r or java (default: from FILE's extension); the compiled ones\n"
    "                        compile in the sandbox first, cached by content\n"
    "  --timeout SEC         wall-clock limit, fractions allowed (default 30, max 300)\n"
    "  --memory MIB          memory limit (default 512)\n"
    "  --output-limit BYTES  per stream, what is kept: past it the middle is left out\n"
    "                        and the run goes on (default 1048576)\n"
    "  --network             allow network access (off by default)\n"
    "  --cwd DIR             run in DIR instead of a fresh private directory\n"
    "  --env NAME=VALUE      pass a variable; nothing else is inherited (repeatable)\n"
    "  --interpreter L=PATH  use PATH for language L\n"
    "  --sandbox MODE        auto (default), namespaces or fallback\n"
    "  --strict              refuse to run when a sandbox layer is unavailable\n"
    "  --disk MIB            writable space: working directory and /tmp (default 256)\n"
    "  --disk-files N        entries (files, directories, links) a run may create there\n"
    "                        (default 20000)\n"
    "  --environment DIR     run in this environment: a Python venv, or a node_modules\n"
    "                        for JavaScript (read-only to the run)\n"
    "  --workspace DIR       look for .venv, venv or node_modules from FILE's directory\n"
    "                        up to DIR (default: --cwd, else the current directory\n"
    "                        when FILE is inside it, else FILE's directory)\n"
    "  --no-environment      do not look for one\n"
    "  --index-url URL       where a Python script's declared dependencies (PEP 723\n"
    "                        inline metadata) come from, installed into its\n"
    "                        environment before it runs, as --install does\n"
    "  --find-links DIR      a local directory of wheels for them (repeatable)\n"
    "  --install-allow PAT   only dependencies whose name matches may come in\n"
    "  --install-block PAT   dependencies whose name matches are refused\n"
    "  --require-pins        every dependency must be declared as name==version\n"
    "  --install SPEC...     install packages into a venv instead (first option;\n"
    "                        sandpad-run --install --help tells more)\n"
    "  --create-venv DIR     make DIR a Python environment --install accepts\n"
    "                        (first option; owned by nobody when run as root)\n"
    "  --session             run the FILEs one after another in one Python session,\n"
    "                        which keeps their variables and imports; stops at the\n"
    "                        first that fails; stdin is not passed on\n"
    "  --session=NAME        run FILE in the named session NAME of the resident\n"
    "                        runner, which keeps its state for the next\n"
    "                        sandpad-run --session=NAME (stdin is not passed on)\n"
    "  --sessions            list the resident runner's named sessions\n"
    "  --close-session NAME  end the named session NAME\n"
    "  --no-daemon           run cold in this process, not through the resident\n"
    "                        runner (also when SANDPAD_NO_DAEMON=1)\n"
    "  --json                print protocol events, one JSON object per line\n"
    "  --base64              with --json: image files in exited carry their bytes\n"
    "                        as base64 (files[].base64, up to 2 MiB in all)\n"
    "  --help                print this help\n\n"
    "Exit status: the program's own; 124 if the time limit stopped it; 128+N if\n"
    "signal N ended it; 125 if Sandpad itself failed.\n",
    out);
}

static void __attribute__ ((noreturn, format (printf, 1, 2))) fail (const char *fmt, ...)
{
  va_list args;

  fputs ("sandpad: ", stderr);
  va_start (args, fmt);
  vfprintf (stderr, fmt, args);
  va_end (args);
  fputc ('\n', stderr);
  exit (EXIT_SANDPAD);
}

static void
on_event (void *data, const SpMessage *msg)
{
  Cli *cli = data;

  if (cli->json)
    {
      size_t len;
      /* Repaired rather than dropped: --json always ends with exited. */
      cleanup_free char *line = runner_event_encode (msg, &len);
      if (line != NULL)
        write_all (1, line, len);
    }
  /* A display shows as its text in a terminal (an image as its text too:
   * "<Figure ...>", or the repr the program gave). */
  if (!cli->json && msg->type == SP_MSG_DISPLAY)
    sandpad_show_display (&msg->u.display);
  if (!cli->json && msg->type == SP_MSG_OUTPUT_OMITTED)
    sandpad_show_omitted (&msg->u.omitted, cli->cwd);
  if (msg->type == SP_MSG_EXITED)
    {
      /* Keep a copy of what we need for the exit status. */
      cli->result = msg->u.exited;
      cli->result.id = NULL;
      cli->result.error = xstrdup (msg->u.exited.error);
      cli->result.files = NULL;
      cli->result.n_files = 0;
      cli->done = true;
    }
}

static void
on_raw_output (void *data, const char *id, SpStream stream, const char *bytes, size_t len)
{
  write_all (stream == SP_STREAM_STDERR ? 2 : 1, bytes, len);
}

static void
on_quit (void *data, int signo)
{
  Cli *cli = data;

  /* Ctrl+C reaches the program as an interrupt (Python prints its
   * KeyboardInterrupt); pressing it again moves on to terminate and kill. */
  cli->interrupts++;
  runner_engine_cancel (cli->engine, "cli", NULL);
}

static void
on_stdin (void *data, int fd, uint32_t events)
{
  Cli *cli = data;
  char buf[65536];
  ssize_t n = read (fd, buf, sizeof buf);

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n <= 0)
    {
      runner_loop_unwatch (runner_engine_get_loop (cli->engine), cli->stdin_watch);
      cli->stdin_watch = NULL;
      runner_engine_stdin (cli->engine, "cli", "", 0, true, NULL);
      return;
    }
  /* The protocol carries text; the engine takes bytes either way. */
  runner_engine_stdin (cli->engine, "cli", buf, (size_t) n, false, NULL);
}

/* Reads fd to its end; *len (when not NULL) is the byte count, which a
 * NUL byte in the data makes differ from strlen(). */
static char *
read_all (int fd, const char *what, size_t *len)
{
  Buf buf = { 0 };
  char chunk[65536];
  ssize_t n;

  while ((n = read (fd, chunk, sizeof chunk)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        fail ("cannot read %s: %s", what, strerror (errno));
      if (buf.len + (size_t) n > SP_PROTO_MAX_FRAME)
        fail ("%s is larger than %d bytes", what, SP_PROTO_MAX_FRAME);
      buf_append (&buf, chunk, (size_t) n);
    }
  if (len != NULL)
    *len = buf.len;
  buf_append (&buf, "", 1);
  return buf.data;
}

static int64_t
parse_int (const char *arg, const char *what, int64_t min, int64_t max)
{
  char *end = NULL;
  long long value = strtoll (arg, &end, 10);

  if (end == arg || *end != '\0' || value < min || value > max)
    fail ("%s must be a whole number from %lld to %lld", what, (long long) min, (long long) max);
  return value;
}

/* The limits in force, for the messages after the run. */
typedef struct
{
  int64_t timeout_ms;
  int64_t memory_mib;
  int64_t output_limit;
  int64_t disk_mib;
  int64_t disk_files;
} Limits;

static void
describe_limit (const SpExited *r, const Limits *req)
{
  switch (r->limit)
    {
    case SP_LIMIT_TIME:
      if (req->timeout_ms % 1000 == 0)
        fprintf (stderr, "sandpad: time limit of %lld s exceeded\n",
                 (long long) req->timeout_ms / 1000);
      else
        fprintf (stderr, "sandpad: time limit of %.10g s exceeded\n", req->timeout_ms / 1000.0);
      break;
    case SP_LIMIT_CPU:
      fputs ("sandpad: CPU time limit exceeded\n", stderr);
      break;
    case SP_LIMIT_MEMORY:
      fprintf (stderr, "sandpad: memory limit of %lld MiB exceeded\n", (long long) req->memory_mib);
      break;
    case SP_LIMIT_OUTPUT:
      fprintf (stderr, "sandpad: output limit of %lld bytes exceeded on %s\n",
               (long long) req->output_limit, r->stdout_truncated ? "stdout" : "stderr");
      break;
    case SP_LIMIT_DISK:
      fprintf (stderr, "sandpad: disk limit of %lld MiB or %lld entries exceeded\n",
               (long long) req->disk_mib, (long long) req->disk_files);
      break;
    case SP_LIMIT_PROCESSES:
      fputs ("sandpad: process limit exceeded\n", stderr);
      break;
    case SP_LIMIT_INPUT_IDLE:
      fputs ("sandpad: waited too long for input\n", stderr);
      break;
    case SP_LIMIT_COMPILE_TIME:
      fputs ("sandpad: the compile step's time limit was exceeded\n", stderr);
      break;
    case SP_LIMIT_NONE:
    case SP_LIMIT_LAST:
    default:
      break;
    }
}

/* Parses options into req and config; returns the FILE argument. */
static const char *
parse_args (int argc, char **argv, SpRun *req, RunnerConfig *config, RunnerLanguages *langs,
            bool *json, EnvOptions *envopts, DaemonOptions *d, RunnerInstallRequest *source)
{
  static const struct option options[] = {
    { "lang", required_argument, NULL, 'l' },
    { "timeout", required_argument, NULL, 't' },
    { "memory", required_argument, NULL, 'm' },
    { "output-limit", required_argument, NULL, 'o' },
    { "network", no_argument, NULL, 'n' },
    { "cwd", required_argument, NULL, 'C' },
    { "env", required_argument, NULL, 'e' },
    RUNNER_OPTION_INTERPRETER,
    { "json", no_argument, NULL, 'j' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    RUNNER_OPTION_SANDBOX,
    RUNNER_OPTION_STRICT,
    RUNNER_OPTION_DISK,
    RUNNER_OPTION_DISK_FILES,
    { "base64", no_argument, NULL, 'B' },
    { "environment", required_argument, NULL, 'E' },
    { "workspace", required_argument, NULL, 'W' },
    { "no-environment", no_argument, NULL, 'N' },
    { "session", optional_argument, NULL, 'Z' },
    { "sessions", no_argument, NULL, 'L' },
    { "close-session", required_argument, NULL, 'X' },
    { "no-daemon", no_argument, NULL, 'D' },
    { "index-url", required_argument, NULL, 'u' },
    { "find-links", required_argument, NULL, 'k' },
    { "install-allow", required_argument, NULL, 'A' },
    { "install-block", required_argument, NULL, 'K' },
    { "require-pins", no_argument, NULL, 'P' },
    { NULL, 0, NULL, 0 },
  };
  size_t n_env = 0;
  int opt;

  /* "+": options stop at FILE, so the program's own options pass through. */
  while ((opt = getopt_long (argc, argv, "+", options, NULL)) != -1)
    switch (opt)
      {
      case 'l':
        free (req->language);
        req->language = xstrdup (optarg);
        break;
      case 't':
        {
          char *end = NULL;
          double sec = strtod (optarg, &end);
          if (end == optarg || *end != '\0' || !(sec > 0) || !isfinite (sec)
              || sec * 1000 > (double) config->max_timeout_ms)
            fail ("--timeout must be a number of seconds above 0 and at most %lld",
                  (long long) config->max_timeout_ms / 1000);
          /* Rounded up to a whole ms, as ceil() would (the value is
           * positive and at most max_timeout_ms): without libm, which
           * every call would map and relocate for this alone. */
          double ms = sec * 1000;
          req->timeout_ms = (int64_t) ms;
          if ((double) req->timeout_ms < ms)
            req->timeout_ms++;
        }
        break;
      case 'm':
        req->memory_mib = parse_int (optarg, "--memory", 1, config->max_memory_mib);
        break;
      case 'o':
        req->output_limit = parse_int (optarg, "--output-limit", 1, config->max_output_limit);
        break;
      case 'n':
        req->network = true;
        break;
      case 'C':
        {
          /* The person at the shell named this directory: exactly it is
           * allowed, whoever owns it; the engine still resolves it and
           * refuses "/" and its own run directories. */
          char *abs = realpath (optarg, NULL);
          if (abs == NULL)
            fail ("--cwd %s: %s", optarg, strerror (errno));
          if (runner_policy_allow (&config->paths.cwds, abs) != 0)
            fail ("--cwd %s: not a directory other than /", optarg);
          config->paths.cwd_any_owner = true;
          free (req->cwd);
          req->cwd = abs;
        }
        break;
      case 'e':
        if (strchr (optarg, '=') == NULL
            || !sp_proto_env_name_valid (optarg, (size_t) (strchr (optarg, '=') - optarg)))
          fail ("--env needs NAME=VALUE, NAME of letters, digits and _ (not first a digit)");
        req->env = xrealloc (req->env, (n_env + 2) * sizeof *req->env);
        req->env[n_env++] = xstrdup (optarg);
        req->env[n_env] = NULL;
        break;
      case 'j':
        *json = true;
        break;
      case 'Z':
        if (optarg != NULL)
          {
            /* A named session: the resident runner's, across invocations. */
            if (!sp_proto_id_valid (optarg))
              fail ("--session=%s: not a valid session name", optarg);
            free (d->session);
            d->session = xstrdup (optarg);
            break;
          }
        /* A session id marks the request; main() runs each FILE in it. */
        free (req->session);
        req->session = xstrdup ("cli");
        break;
      case 'L':
        d->list = true;
        break;
      case 'X':
        free (d->close);
        d->close = xstrdup (optarg);
        break;
      case 'D':
        d->no_daemon = true;
        break;
      case 'B':
        /* The engine's return_base64: images inline in exited, so a script
         * keeps a plot after the private directory is gone. */
        req->return_base64 = true;
        break;
      case 'E':
        free (req->environment);
        req->environment = realpath (optarg, NULL);
        if (req->environment == NULL)
          fail ("--environment %s: %s", optarg, strerror (errno));
        break;
      case 'W':
        free (envopts->workspace);
        envopts->workspace = realpath (optarg, NULL);
        if (envopts->workspace == NULL)
          fail ("--workspace %s: %s", optarg, strerror (errno));
        break;
      case 'N':
        envopts->none = true;
        break;
      case 'u':
        source->index_url = optarg;
        break;
      case 'k':
        source->find_links = strv_add ((char **) source->find_links, optarg);
        break;
      case 'A':
        source->policy.allow = strv_add (source->policy.allow, optarg);
        break;
      case 'K':
        source->policy.block = strv_add (source->policy.block, optarg);
        break;
      case 'P':
        source->policy.require_pins = true;
        break;
      case 'h':
        usage (stdout);
        exit (0);
      case 'V':
        printf ("sandpad-run %s\n", PACKAGE_VERSION);
        exit (0);
      default:
        if (runner_engine_option_is (opt))
          {
            /* Its own engine, not the resident runner's. */
            char error[512];
            d->custom_engine = true;
            if (runner_engine_option (opt, optarg, config, langs, error, sizeof error) != 0)
              fail ("%s", error);
            break;
          }
        usage (stderr);
        exit (EXIT_SANDPAD);
      }

  if ((d->list || d->close != NULL) && optind == argc)
    return NULL;
  if (optind >= argc)
    {
      usage (stderr);
      exit (EXIT_SANDPAD);
    }
  const char *file = argv[optind++];
  if (optind < argc && strcmp (argv[optind], "--") == 0)
    optind++;
  req->args = sp_strv_copy (argv + optind);
  return file;
}

/* The run's environment: the one named, else one found from FILE's
 * directory up to the workspace. Either way the person at the shell chose
 * it, so exactly it is allowed; the engine still checks it (a venv based
 * on a system interpreter; never writable by the run). */
static void
choose_environment (SpRun *req, RunnerConfig *config, const char *file, EnvOptions *o)
{
  if (req->environment == NULL && !o->none && strcmp (file, "-") != 0
      && (strcmp (req->language, "python") == 0 || strcmp (req->language, "javascript") == 0))
    {
      cleanup_free char *abs = realpath (file, NULL);
      cleanup_free char *cwd = getcwd (NULL, 0);
      if (abs != NULL)
        {
          *strrchr (abs, '/') = '\0';
          const char *stop = o->workspace                                  ? o->workspace
                             : req->cwd                                    ? req->cwd
                             : cwd != NULL && runner_env_within (abs, cwd) ? cwd
                                                                           : abs;
          req->environment = strcmp (req->language, "python") == 0
                               ? runner_venv_find (abs[0] ? abs : "/", stop)
                               : runner_node_modules_find (abs[0] ? abs : "/", stop);
        }
    }
  free (o->workspace);
  o->workspace = NULL;
  if (req->environment != NULL
      && runner_policy_allow (&config->paths.environments, req->environment) != 0)
    fail ("environment %s: not a directory other than /", req->environment);
}

static void
prepare_request (SpRun *req, const char *file, RunnerLanguages *langs, bool *forward_stdin)
{
  req->id = xstrdup ("cli");
  if (strcmp (file, "-") == 0)
    {
      if (req->language == NULL)
        fail ("cannot tell the language of standard input; use --lang");
      req->code = read_all (0, "standard input", NULL);
      *forward_stdin = false;
      return;
    }

  if (req->language == NULL)
    {
      RunnerLanguage *lang = runner_langs_for_file (langs, file);
      if (lang == NULL)
        fail ("cannot tell the language of %s from its extension; use --lang", file);
      req->language = xstrdup (lang->name);
    }
  /* The person at the shell named FILE: we read it with their rights and
   * hand the engine its text, so no "path" policy is involved. */
  cleanup_fd int fd = open (file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0)
    fail ("%s: %s", file, strerror (errno));
  if (!S_ISREG (st.st_mode))
    fail ("%s is not a regular file", file);
  size_t len = 0;
  req->code = read_all (fd, file, &len);
  if (strlen (req->code) != len)
    fail ("%s is not text (it holds a NUL byte)", file);
  const char *slash = strrchr (file, '/');
  req->name = xstrdup (slash != NULL ? slash + 1 : file);

  /* A regular file cannot be watched with epoll: hand it over whole. */
  *forward_stdin = fstat (0, &st) == 0 && !S_ISREG (st.st_mode);
  if (fstat (0, &st) == 0 && S_ISREG (st.st_mode))
    req->stdin_data = read_all (0, "standard input", NULL);
  req->stdin_open = *forward_stdin;
}

static int exit_status (const SpExited *r, const Limits *req);

/* The font list the runner builds for the next run (runner-font-cache.h),
 * if this run started it: finished before the one-shot runner exits,
 * or every cold run would start it again. Bounded by its own time limit;
 * a failure only means the next run builds it. */
static void
wait_for_font_build (Cli *cli)
{
  while (runner_engine_font_building (cli->engine))
    if (runner_engine_iterate (cli->engine, -1) < 0)
      return;
}

/* The loop of one run: until its exited event. */
static void
wait_for_exit (Cli *cli)
{
  while (!cli->done)
    if (runner_engine_iterate (cli->engine, -1) < 0)
      fail ("event loop failed: %s", strerror (errno));
  wait_for_font_build (cli);
}

/* sandpad-run --session A.py B.py: each file is one run of the session
 * "cli", in order, so B sees what A defined; the first that fails ends
 * it. No stdin is passed on: each run reads EOF. */
static int
run_session (Cli *cli, const SpRun *options, char *const *files, RunnerLanguages *langs,
             const Limits *shown)
{
  int status = 0;

  for (size_t i = 0; files[i] != NULL && status == 0; i++)
    {
      SpRun req = { 0 };
      SpProtoError err = { 0 };
      bool forward_stdin = false;

      req.language = options->language ? xstrdup (options->language) : NULL;
      prepare_request (&req, files[i], langs, &forward_stdin);
      char **deps = NULL;
      char msg[600];
      RunnerPep723Verdict declared = runner_pep723_declared (req.code, NULL, &deps, msg,
                                                             sizeof msg);
      sp_strv_free (deps);
      if (declared == RUNNER_PEP723_INVALID)
        fail ("%s: %s", files[i], msg);
      if (declared == RUNNER_PEP723_NO_ENVIRONMENT)
        fail ("%s declares dependencies (PEP 723), and a --session runs without an environment "
              "to install them into; run it alone (sandpad-run FILE); nothing was run",
              files[i]);
      free (req.stdin_data);
      req.stdin_data = NULL;
      req.stdin_open = false;
      req.session = xstrdup (options->session);
      req.cwd = options->cwd != NULL ? xstrdup (options->cwd) : NULL;
      req.env = sp_strv_copy (options->env);
      req.timeout_ms = options->timeout_ms;
      req.memory_mib = options->memory_mib;
      req.output_limit = options->output_limit;
      req.network = options->network;
      req.return_base64 = options->return_base64;
      cli->done = false;
      if (runner_engine_submit (cli->engine, &req, &err) != 0)
        fail ("%s: %s", files[i], err.message);
      wait_for_exit (cli);
      status = exit_status (&cli->result, shown);
      free (cli->result.error);
      cli->result.error = NULL;
      runner_engine_release (cli->engine, "cli", NULL);
    }
  return status;
}

static int
exit_status (const SpExited *r, const Limits *req)
{
  describe_limit (r, req);
  if (r->end == SP_END_FAILED)
    {
      fprintf (stderr, "sandpad: %s\n", r->error ? r->error : "the run failed");
      return EXIT_SANDPAD;
    }
  if (r->limit == SP_LIMIT_TIME || r->limit == SP_LIMIT_COMPILE_TIME)
    return EXIT_TIMEOUT;
  if (r->end == SP_END_SIGNALED)
    return 128 + (int) r->signal;
  return (int) r->exit_code;
}

int
main (int argc, char **argv)
{
  RunnerConfig config;
  RunnerLanguages langs;
  SpRun req = { 0 };
  SpProtoError err = { 0 };
  Cli cli = { 0 };
  bool forward_stdin = false;

  runner_config_init (&config);
  config.max_concurrent = 1;
  /* The grace between a cancel's steps (interrupt, terminate, kill), as
   * sandpad-runner --cancel-grace-ms: here for a cold run, and passed to a
   * resident runner this starts (sandpad-run-daemon.c). */
  const char *grace = getenv ("SANDPAD_RUNNER_CANCEL_GRACE_MS");
  if (grace != NULL && grace[0])
    config.cancel_grace_ms = parse_int (grace, "SANDPAD_RUNNER_CANCEL_GRACE_MS", 0, 60000);
  runner_langs_init (&langs);
  if (argc > 1 && strcmp (argv[1], "--create-venv") == 0)
    {
      runner_langs_clear (&langs);
      return sandpad_run_create_venv (argc, argv);
    }
  if (argc > 1 && strcmp (argv[1], "--install") == 0)
    {
      int status = sandpad_run_install (argc, argv, &config, &langs);
      runner_langs_clear (&langs);
      return status;
    }
  EnvOptions envopts = { 0 };
  DaemonOptions daemon = { 0 };
  RunnerInstallRequest source = { 0 };
  const char *file = parse_args (argc, argv, &req, &config, &langs, &cli.json, &envopts, &daemon,
                                 &source);
  if (daemon.list || daemon.close != NULL)
    {
      int status = daemon.list ? sandpad_daemon_list_sessions ()
                               : sandpad_daemon_close_session (daemon.close);
      free (daemon.close);
      runner_langs_clear (&langs);
      return status;
    }
  if (req.return_base64 && !cli.json)
    fail ("--base64 needs --json: the images are inlined in the exited event");
  if (daemon.session != NULL && req.session != NULL)
    fail ("--session and --session=NAME: choose one");
  if (req.session == NULL)
    {
      prepare_request (&req, file, &langs, &forward_stdin);
      choose_environment (&req, &config, file, &envopts);
      /* Declared dependencies go into the environment before the run,
       * with an engine of our own: the resident runner only runs. */
      int declared = sandpad_run_install_declared (&config, &langs, &req, &source);
      if (declared != 0)
        exit (declared);
    }
  sp_strv_free ((char **) source.find_links);
  sp_strv_free (source.policy.allow);
  sp_strv_free (source.policy.block);

  /* Kept for the messages after the run; the engine takes req. */
  Limits shown = {
    .timeout_ms = req.timeout_ms ? req.timeout_ms : config.default_timeout_ms,
    .memory_mib = req.memory_mib ? req.memory_mib : config.default_memory_mib,
    .output_limit = req.output_limit ? req.output_limit : config.default_output_limit,
    .disk_mib = config.disk_limit / (1024 * 1024),
    .disk_files = config.disk_files,
  };

  if (daemon.session != NULL)
    {
      /* A named session lives in the resident runner; as with --session,
       * stdin is not passed on. */
      if (daemon.custom_engine || !sandpad_daemon_enabled (daemon.no_daemon))
        fail ("--session=NAME runs in the resident runner: not with --no-daemon, "
              "SANDPAD_NO_DAEMON, --sandbox, --strict, --disk, --disk-files or --interpreter");
      free (req.stdin_data);
      req.stdin_data = NULL;
      req.stdin_open = false;
      forward_stdin = false;
      req.session = daemon.session;
      daemon.session = NULL;
    }
  if (!daemon.custom_engine && (req.session == NULL || strcmp (req.session, "cli") != 0)
      && sandpad_daemon_enabled (daemon.no_daemon))
    {
      SpExited result = { 0 };
      int rc = sandpad_daemon_run (&req, cli.json, forward_stdin, &result);
      if (rc == SANDPAD_DAEMON_UNREACHED && req.session != NULL)
        fail ("session %s: nothing was run (the resident runner refused the run, or could "
              "not be reached)",
              req.session);
      if (rc != SANDPAD_DAEMON_UNREACHED)
        {
          int status = rc == 0 ? exit_status (&result, &shown) : rc;
          free (result.error);
          runner_langs_clear (&langs);
          runner_policy_clear (&config.paths);
          SpMessage done = { .type = SP_MSG_RUN, .u.run = req };
          sp_message_clear (&done);
          return status;
        }
      /* Not taken, nothing ran: the same run, cold, here. */
    }

  RunnerSink sink = { .event = on_event, .quit = on_quit };
  if (!cli.json)
    sink.raw_output = on_raw_output;
  /* The engine takes the request's strings when it takes the run. */
  cli.cwd = req.cwd != NULL ? xstrdup (req.cwd) : NULL;
  cli.engine = runner_engine_new (&config, &langs, &sink, &cli);

  if (req.session != NULL)
    {
      /* FILE and what followed it are the session's files, in order; with
       * --cwd, the session runs there (the runner holds that folder). */
      char **files = xcalloc (sp_strv_length (req.args) + 2, sizeof *files);
      files[0] = (char *) file;
      memcpy (files + 1, req.args, sp_strv_length (req.args) * sizeof *files);
      int session_status = run_session (&cli, &req, files, &langs, &shown);
      free (files);
      free (cli.cwd);
      runner_engine_free (cli.engine);
      runner_langs_clear (&langs);
      runner_policy_clear (&config.paths);
      SpMessage options = { .type = SP_MSG_RUN, .u.run = req };
      sp_message_clear (&options);
      return session_status;
    }
  if (runner_engine_submit (cli.engine, &req, &err) != 0)
    fail ("%s", err.message);
  if (forward_stdin)
    {
      /* Not made non-blocking: that would change the terminal's file
       * description for other processes too; one read per readiness
       * report cannot block. */
      cli.stdin_watch = runner_loop_watch (runner_engine_get_loop (cli.engine), 0, EPOLLIN,
                                           on_stdin, &cli);
      if (cli.stdin_watch == NULL) /* /dev/null and the like: nothing to send */
        runner_engine_stdin (cli.engine, "cli", "", 0, true, NULL);
    }

  while (!cli.done)
    if (runner_engine_iterate (cli.engine, -1) < 0)
      {
        int errsv = errno;
        if (cli.json)
          {
            /* The run was accepted: --json still ends with its exited. */
            SpMessage msg = { .type = SP_MSG_EXITED };
            msg.u.exited.id = (char *) "cli";
            msg.u.exited.end = SP_END_FAILED;
            msg.u.exited.error = (char *) "sandpad-run's event loop failed";
            on_event (&cli, &msg);
            free (cli.result.error);
          }
        fail ("event loop failed: %s", strerror (errsv));
      }

  runner_loop_unwatch (runner_engine_get_loop (cli.engine), cli.stdin_watch);
  cli.stdin_watch = NULL;
  wait_for_font_build (&cli);
  int status = exit_status (&cli.result, &shown);
  free (cli.result.error);
  free (cli.cwd);
  runner_engine_free (cli.engine);
  runner_langs_clear (&langs);
  runner_policy_clear (&config.paths);
  SpMessage leftover = { .type = SP_MSG_RUN, .u.run = req };
  sp_message_clear (&leftover);
  return status;
}
