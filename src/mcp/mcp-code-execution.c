/* mcp-code-execution.c: the seed spec's `code_execution` tool, field for
 * field (its CodeExecutionRequest in, its CodeExecutionResult out), so an
 * app written to that spec plugs sandpad-mcp in without an adapter.
 *
 * One call is a pipeline: the advisory scan (mcp-scan.c; for Python a
 * sandboxed run of its own), the install of install_packages through
 * install_packages' own path and policy (mcp-install.c), then the run.
 * Every number in the result is measured at the step it names: none is
 * estimated, and a step that did not happen counts 0. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mcp-tool.h"
#include "sp-json.h"

static const char code_execution_input[]
  = "{\"type\":\"object\",\"properties\":{" MCP_TOOL_LANGUAGE_SCHEMA
    "\"code\":{\"type\":\"string\",\"description\":\"the program text\"},"
    "\"timeout\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":300,"
    "\"description\":\"wall-clock limit in seconds (default 30)\"},"
    "\"install_packages\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":64,"
    "\"description\":\"Python packages to install into the workspace's environment before the "
    "run, under the server's install policy (a refusal names the rule)\"},"
    "\"working_directory\":{\"type\":\"string\",\"description\":\"directory to run in: inside "
    "the workspace, relative to it or absolute (default: a fresh private directory)\"},"
    "\"environment\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"},"
    "\"description\":\"environment variables for the program\"},"
    "\"capture_output\":{\"type\":\"boolean\",\"description\":\"whether to keep stdout and "
    "stderr (default true)\"},"
    "\"return_base64\":{\"type\":\"boolean\",\"description\":\"whether base64_output carries "
    "the first image the run made (default false)\"}},"
    "\"required\":[\"language\",\"code\"],\"additionalProperties\":false}";

/* CodeExecutionResult; "end" is Sandpad's one addition, since exit_code
 * alone cannot say that a limit stopped the run or that it never ran. */
static const char code_execution_output[]
  = "{\"type\":\"object\",\"properties\":{"
    "\"exit_code\":{\"type\":\"integer\",\"description\":\"the exit status; minus the signal "
    "when one ended the program; -1 when it never ran\"},"
    "\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"},"
    "\"base64_output\":{\"type\":[\"string\",\"null\"],\"description\":\"the first image the run "
    "made, when return_base64\"},"
    "\"execution_time_ms\":{\"type\":\"integer\",\"minimum\":0},"
    "\"memory_usage_mb\":{\"type\":\"number\",\"minimum\":0,\"description\":\"peak memory of the "
    "run's whole process tree\"},"
    "\"cpu_usage_percent\":{\"type\":\"number\",\"minimum\":0,\"description\":\"CPU time over "
    "wall time, in percent (above 100 with several cores busy)\"},"
    "\"created_files\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":\"relative to the working directory\"},"
    "\"size_bytes\":{\"type\":\"integer\",\"minimum\":0},\"mime_type\":{\"type\":\"string\"},"
    "\"created_at\":{\"type\":\"string\",\"format\":\"date-time\",\"description\":\"RFC 3339, "
    "UTC: when the run last wrote it\"}},"
    "\"required\":[\"path\",\"size_bytes\",\"mime_type\",\"created_at\"]}},"
    "\"installed_packages\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"description\":\"name==version of each package installed for this call\"},"
    "\"security_validation\":{\"type\":\"object\",\"description\":\"an advisory scan: the "
    "kernel sandbox is the boundary, and code of any risk level runs in it\","
    "\"properties\":{"
    "\"allowed\":{\"type\":\"boolean\",\"description\":\"false only when policy refused "
    "something the call asked for (see blocked_operations)\"},"
    "\"risk_level\":{\"type\":\"string\",\"enum\":[\"Low\",\"Medium\",\"High\",\"Critical\"]},"
    "\"blocked_operations\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"warnings\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"scan_duration_ms\":{\"type\":\"integer\",\"minimum\":0}},"
    "\"required\":[\"allowed\",\"risk_level\",\"blocked_operations\",\"warnings\","
    "\"scan_duration_ms\"]},"
    "\"performance_metrics\":{\"type\":\"object\",\"properties\":{"
    "\"sandbox_setup_time_ms\":{\"type\":\"integer\",\"minimum\":0},"
    "\"code_validation_time_ms\":{\"type\":\"integer\",\"minimum\":0},"
    "\"execution_time_ms\":{\"type\":\"integer\",\"minimum\":0},"
    "\"result_processing_time_ms\":{\"type\":\"integer\",\"minimum\":0},"
    "\"total_time_ms\":{\"type\":\"integer\",\"minimum\":0}},"
    "\"required\":[\"sandbox_setup_time_ms\",\"code_validation_time_ms\",\"execution_time_ms\","
    "\"result_processing_time_ms\",\"total_time_ms\"]},"
    "\"end\":{\"type\":\"string\",\"enum\":[\"exited\",\"timeout\",\"memory\",\"output_limit\","
    "\"disk\",\"processes\",\"cancelled\",\"failed\",\"refused\"],\"description\":\"Sandpad's "
    "addition: how the run ended, or refused (policy refused the call; nothing ran)\"}},"
    "\"required\":[\"exit_code\",\"stdout\",\"stderr\",\"base64_output\",\"execution_time_ms\","
    "\"memory_usage_mb\",\"cpu_usage_percent\",\"created_files\",\"installed_packages\","
    "\"security_validation\",\"performance_metrics\",\"end\"]}";

struct McpCodeExec
{
  McpCall *main; /* the call answered at the end (never the scan's) */
  SpRun req;     /* submitted once the scan and the install are done */
  char **packages;
  bool return_base64;
  McpScan scan;
  json_t *blocked;   /* what policy refused */
  json_t *installed; /* "name==version" */
  int64_t t_call_ns; /* tools/call arrived */
  int64_t scan_start_ns;
  int64_t scan_ms;
  int64_t submit_clock_ms; /* the runner's clock when the run was submitted */
};

static json_t *exited_step (const McpReply *reply, McpCall *call, const SpExited *exited);

static int64_t
ms_since (int64_t start_ns)
{
  int64_t d = now_ns () - start_ns;
  return d > 0 ? d / 1000000 : 0;
}

static json_t *
describe (const McpOptions *options)
{
  cleanup_free char *description = xasprintf (
    "The code_execution tool of Anthropic's code_execution_20250522 shape: runs Python, "
    "JavaScript or Bash in a kernel sandbox (no network, no view of the host's files), "
    "in a fresh private directory or a working_directory inside the workspace%s, after "
    "installing install_packages%s. Returns a CodeExecutionResult: exit code, output, "
    "measured time, memory and CPU use, created files, an advisory security scan (code of "
    "any risk level still runs, sandboxed) and per-phase timings; images also come as "
    "image blocks.",
    options->workspace != NULL ? "" : " (this server has none)",
    options->environment != NULL ? " into the workspace's Python environment"
                                 : " (this server has no environment, so none can be)");
  return json_pack ("{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name", "code_execution",
                    "title", "Execute code (code_execution)", "description", description,
                    "inputSchema", mcp_tool_literal (code_execution_input), "outputSchema",
                    mcp_tool_literal (code_execution_output), "annotations", "readOnlyHint", 0,
                    "destructiveHint", options->workspace != NULL, "openWorldHint", 0);
}

void
mcp_code_execution_free (McpCodeExec *cx)
{
  if (cx == NULL)
    return;
  SpMessage leftover = { .type = SP_MSG_RUN, .u.run = cx->req };
  sp_message_clear (&leftover);
  sp_strv_free (cx->packages);
  mcp_scan_clear (&cx->scan);
  json_decref (cx->blocked);
  json_decref (cx->installed);
  free (cx);
}

static void
unlink_call (McpServer *server, McpCall *call)
{
  for (McpCall **link = &server->calls; *link != NULL; link = &(*link)->next)
    if (*link == call)
      {
        *link = call->next;
        return;
      }
}

static void
format_rfc3339 (int64_t unix_ms, char out[40])
{
  time_t sec = (time_t) (unix_ms / 1000);
  struct tm tm;

  gmtime_r (&sec, &tm);
  size_t n = strftime (out, 40, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf (out + n, 40 - n, ".%03dZ", (int) (unix_ms % 1000));
}

static json_t *
security_json (McpCodeExec *cx)
{
  return json_pack ("{s:b, s:s, s:O, s:O, s:I}", "allowed", json_array_size (cx->blocked) == 0,
                    "risk_level", mcp_scan_level_name (cx->scan.level), "blocked_operations",
                    cx->blocked, "warnings", cx->scan.warnings, "scan_duration_ms",
                    (json_int_t) cx->scan_ms);
}

static void
append_text (Buf *text, const char *s)
{
  buf_append (text, s, strlen (s));
}

/* The scan's outcome for the model's text block, after the run's own. */
static void
describe_security (Buf *text, McpCodeExec *cx)
{
  size_t i;
  json_t *item;

  char *line = xasprintf ("Advisory scan: %s risk%s\n", mcp_scan_level_name (cx->scan.level),
                          cx->scan.level >= 2 ? " (it ran anyway, inside the sandbox)" : "");
  append_text (text, line);
  free (line);
  json_array_foreach (cx->scan.warnings, i, item)
    {
      append_text (text, "  warning: ");
      append_text (text, json_string_value (item));
      append_text (text, "\n");
    }
  json_array_foreach (cx->blocked, i, item)
    {
      append_text (text, "Refused: ");
      append_text (text, json_string_value (item));
      append_text (text, "\n");
    }
  if (json_array_size (cx->installed) > 0)
    {
      append_text (text, "Installed:");
      json_array_foreach (cx->installed, i, item)
        {
          append_text (text, " ");
          append_text (text, json_string_value (item));
        }
      append_text (text, "\n");
    }
}

/* The answer when nothing ran (a refusal, a failed install, a cancelled
 * scan): the run's numbers are 0 because there was no run. */
static void
answer_without_run (McpServer *server, McpCall *main, const char *end, const char *why)
{
  McpCodeExec *cx = main->cx;
  int64_t processing_start = now_ns ();
  json_t *structured = json_pack ("{s:i, s:s, s:s, s:n, s:i, s:f, s:f, s:[], s:O, s:o, s:s}",
                                  "exit_code", -1, "stdout", "", "stderr", "", "base64_output",
                                  "execution_time_ms", 0, "memory_usage_mb", 0.0,
                                  "cpu_usage_percent", 0.0, "created_files", "installed_packages",
                                  cx->installed, "security_validation", security_json (cx), "end",
                                  end);
  json_object_set_new (structured, "performance_metrics",
                       json_pack ("{s:i, s:I, s:i, s:I, s:I}", "sandbox_setup_time_ms", 0,
                                  "code_validation_time_ms", (json_int_t) cx->scan_ms,
                                  "execution_time_ms", 0, "result_processing_time_ms",
                                  (json_int_t) ms_since (processing_start), "total_time_ms",
                                  (json_int_t) ms_since (cx->t_call_ns)));
  Buf text = { 0 };
  char *line = xasprintf ("The code did not run: %s\n", why);
  append_text (&text, line);
  free (line);
  describe_security (&text, cx);
  buf_append (&text, "", 1);
  json_t *result = json_pack ("{s:[{s:s, s:s}], s:o, s:b}", "content", "type", "text", "text",
                              text.data, "structuredContent", structured, "isError", 1);
  buf_clear (&text);
  mcp_journal_record (&server->journal, main->tool, main->input,
                      json_object_get (result, "structuredContent"));
  mcp_send_result (server, main->request_id, result);
  mcp_call_free (main);
}

static void
refuse (McpServer *server, McpCall *main, const char *what)
{
  json_array_append_new (main->cx->blocked, json_string (what));
  answer_without_run (server, main, "refused", what);
}

/* The last step: the run itself. */
static void
submit_run (McpServer *server, McpCall *main)
{
  McpCodeExec *cx = main->cx;
  SpProtoError err = { 0 };
  SpRun req = cx->req;

  memset (&cx->req, 0, sizeof cx->req);
  main->next = server->calls;
  server->calls = main;
  cx->submit_clock_ms = runner_engine_clock_ms (server->engine);
  if (runner_engine_submit (server->engine, &req, &err) == 0)
    return; /* answered from the exited event */
  unlink_call (server, main);
  SpMessage leftover = { .type = SP_MSG_RUN, .u.run = req };
  sp_message_clear (&leftover);
  if (strstr (err.message, "\"cwd\"") != NULL)
    {
      /* The engine resolved it beneath the workspace and said no. */
      char *why = xasprintf ("working_directory: must name a directory inside the workspace, "
                             "owned by the runs' uid (symlinks and \"..\" are resolved first): "
                             "%s",
                             err.message);
      refuse (server, main, why);
      free (why);
      return;
    }
  mcp_send_result (server, main->request_id,
                   mcp_result_tool_error ("code_execution: %s", err.message));
  mcp_call_free (main);
}

static void
installed (McpServer *server, void *data, RunnerInstall *inst, RunnerInstallState state)
{
  McpCall *main = data;
  McpCodeExec *cx = main->cx;

  if (state == RUNNER_INSTALL_REFUSED)
    {
      char *why = xasprintf ("install_packages: %s", runner_install_message (inst));
      refuse (server, main, why);
      free (why);
      return;
    }
  if (state != RUNNER_INSTALL_DONE)
    {
      char *why = xasprintf ("install_packages failed: %s", runner_install_message (inst));
      answer_without_run (server, main, "failed", why);
      free (why);
      return;
    }
  size_t n = 0;
  const RunnerInstallFile *files = runner_install_files (inst, &n);
  for (size_t i = 0; i < n; i++)
    {
      char *spec = xasprintf ("%s==%s", files[i].name, files[i].version);
      json_array_append_new (cx->installed, json_string (spec));
      free (spec);
    }
  submit_run (server, main);
}

static void
free_pending (void *data)
{
  mcp_call_free (data);
}

/* After the scan: the install, if any, then the run. */
static void
scanned (McpServer *server, McpCall *main)
{
  McpCodeExec *cx = main->cx;
  char msg[600];

  cx->scan_ms = ms_since (cx->scan_start_ns);
  if (server->stopping)
    {
      answer_without_run (server, main, "cancelled", "the server is stopping");
      return;
    }
  if (cx->packages == NULL || cx->packages[0] == NULL)
    {
      submit_run (server, main);
      return;
    }
  if (server->options->environment == NULL)
    {
      refuse (server, main,
              "install_packages: this server has no Python environment to install into "
              "(start it with --environment or a workspace that has a venv)");
      return;
    }
  if (!mcp_install_start_for (server, cx->packages, installed, free_pending, main, msg, sizeof msg))
    {
      char *why = xasprintf ("install_packages: %s", msg);
      refuse (server, main, why);
      free (why);
    }
}

/* The scan's own run, for Python: the system python3 in the same
 * sandbox, the code on its stdin. */
static int
start_python_scan (McpServer *server, McpCall *main, const char *code, SpProtoError *err)
{
  McpCall *scan = xcalloc (1, sizeof *scan);
  SpRun req = { 0 };

  scan->internal = true;
  scan->on_exited = exited_step;
  scan->cx = NULL;
  scan->request_id = json_incref (main->request_id); /* a cancel stops the scan too */
  scan->tool = "code_execution";
  snprintf (scan->run_id, sizeof scan->run_id, "%.20s-scan", main->run_id);
  /* The scan names its call by the run id (exited_step). */
  scan->input = json_pack ("{s:s}", "for", main->run_id);
  req.id = xstrdup (scan->run_id);
  req.language = xstrdup ("python");
  req.code = xstrdup (mcp_scan_python_program ());
  req.name = xstrdup ("sandpad-scan.py");
  req.stdin_data = xstrdup (code);
  req.timeout_ms = 20000;
  scan->next = server->calls;
  server->calls = scan;
  if (runner_engine_submit (server->engine, &req, err) != 0)
    {
      unlink_call (server, scan);
      SpMessage leftover = { .type = SP_MSG_RUN, .u.run = req };
      sp_message_clear (&leftover);
      mcp_call_free (scan);
      return -1;
    }
  /* Parked until the scan ends: not in server->calls, so nothing else
   * finds it by its run id; the scan's call does, by "for". */
  main->next = server->pending_code;
  server->pending_code = main;
  return 0;
}

static McpCall *
take_pending (McpServer *server, const char *run_id)
{
  for (McpCall **link = &server->pending_code; *link != NULL; link = &(*link)->next)
    if (strcmp ((*link)->run_id, run_id) == 0)
      {
        McpCall *main = *link;
        *link = main->next;
        main->next = NULL;
        return main;
      }
  return NULL;
}

/* A run's numbers into the spec's result; content comes from the same
 * builder as execute_code's (text and image blocks). */
static void
answer_run (McpServer *server, McpCall *main, const SpExited *exited)
{
  McpCodeExec *cx = main->cx;
  int64_t processing_start = now_ns ();
  json_t *result = mcp_result_from_run (main, exited);
  json_t *old = json_object_get (result, "structuredContent");
  const char *first_image = NULL;
  json_t *created = json_array ();
  int64_t origin_ms = runner_engine_clock_origin_realtime_ns (server->engine) / 1000000;

  for (size_t i = 0; i < exited->n_files; i++)
    {
      const SpFileInfo *f = &exited->files[i];
      if (first_image == NULL && f->base64 != NULL && f->mime != NULL
          && strncmp (f->mime, "image/", 6) == 0)
        first_image = f->base64;
      if (!f->created || f->kind != SP_FILE_REGULAR)
        continue;
      char when[40];
      /* Its modification time, put back on the wall clock; the exit's
       * time for a runner that sends none. */
      format_rfc3339 (origin_ms + (f->t_ms >= 0 ? f->t_ms : exited->t_ms), when);
      json_array_append_new (created, json_pack ("{s:s, s:I, s:s, s:s}", "path", f->path,
                                                 "size_bytes", (json_int_t) f->size, "mime_type",
                                                 f->mime ? f->mime : "application/octet-stream",
                                                 "created_at", when));
    }
  int64_t exit_code = exited->end == SP_END_EXITED     ? exited->exit_code
                      : exited->end == SP_END_SIGNALED ? -exited->signal
                                                       : -1;
  double cpu_percent = exited->wall_ms > 0
                         ? 100.0 * (double) exited->cpu_ms / (double) exited->wall_ms
                         : 0.0;
  int64_t setup_ms = main->started_t_ms - cx->submit_clock_ms;
  json_t *structured = json_pack (
    "{s:I, s:O, s:O, s:o, s:I, s:f, s:f, s:o, s:O, s:o, s:O}", "exit_code", (json_int_t) exit_code,
    "stdout", json_object_get (old, "stdout"), "stderr", json_object_get (old, "stderr"),
    "base64_output",
    cx->return_base64 && first_image != NULL ? json_string (first_image) : json_null (),
    "execution_time_ms", (json_int_t) exited->wall_ms, "memory_usage_mb",
    (double) exited->peak_memory_bytes / (1024.0 * 1024.0), "cpu_usage_percent",
    round (cpu_percent * 10) / 10, "created_files", created, "installed_packages", cx->installed,
    "security_validation", security_json (cx), "end", json_object_get (old, "end"));
  if (structured == NULL)
    abort ();
  /* The content blocks: the run's text with the scan after it. */
  json_t *content = json_object_get (result, "content");
  json_t *block = json_array_get (content, 0);
  Buf text = { 0 };
  append_text (&text, json_string_value (json_object_get (block, "text")));
  describe_security (&text, cx);
  buf_append (&text, "", 1);
  json_object_set_new (block, "text", json_string (text.data));
  buf_clear (&text);
  json_object_set_new (structured, "performance_metrics",
                       json_pack ("{s:I, s:I, s:I, s:I, s:I}", "sandbox_setup_time_ms",
                                  (json_int_t) (setup_ms > 0 ? setup_ms : 0),
                                  "code_validation_time_ms", (json_int_t) cx->scan_ms,
                                  "execution_time_ms", (json_int_t) exited->wall_ms,
                                  "result_processing_time_ms",
                                  (json_int_t) ms_since (processing_start), "total_time_ms",
                                  (json_int_t) ms_since (cx->t_call_ns)));
  json_object_set_new (result, "structuredContent", structured);
  mcp_journal_record (&server->journal, main->tool, main->input, structured);
  mcp_activity_ended (server, main, structured);
  mcp_send_result (server, main->request_id, result);
  mcp_call_free (main);
}

/* Its calls' on_exited, the main run's and the scan's: answers (it
 * unlinks the call itself), or goes on from the scan; never a result for
 * the server to send. */
static json_t *
exited_step (const McpReply *reply, McpCall *call, const SpExited *exited)
{
  McpServer *server = reply->server;

  unlink_call (server, call);
  if (!call->internal)
    {
      answer_run (server, call, exited);
      return NULL;
    }
  McpCall *main = take_pending (server, json_string_value (json_object_get (call->input, "for")));
  if (main != NULL)
    {
      if (exited->cancelled != SP_CANCEL_NONE)
        {
          main->cx->scan_ms = ms_since (main->cx->scan_start_ns);
          answer_without_run (server, main, "cancelled", "cancelled during the scan");
        }
      else
        {
          int64_t cut = 0;
          cleanup_free char *out = mcp_capture_text (&call->out[0], &cut);
          cleanup_free char *why = NULL;
          if (exited->end != SP_END_EXITED || exited->exit_code != 0)
            why = exited->error != NULL
                    ? xstrdup (exited->error)
                    : xasprintf ("the scanner ended with %s",
                                 exited->end == SP_END_EXITED ? "an error" : "a signal");
          mcp_scan_python_output (out, why, &main->cx->scan);
          scanned (server, main);
        }
    }
  mcp_call_free (call);
  return NULL;
}

int
mcp_code_execution_config (const McpOptions *options, McpCall *call, json_t *config,
                           const char *lang, SpRun *req, SpProtoError *err)
{
  static const char *const allowed[] = { "language",
                                         "code",
                                         "timeout",
                                         "install_packages",
                                         "working_directory",
                                         "environment",
                                         "capture_output",
                                         "return_base64",
                                         NULL };
  cleanup_free char *language = NULL;
  cleanup_free char *code = NULL;
  cleanup_free char *dir = NULL;
  char **packages = NULL;
  int64_t timeout_s = 0;
  bool capture = true, base64 = false;

  if (sp_json_check_fields (config, "execution_config", allowed, err) != 0
      || sp_json_get_string (config, "language", false, &language, err) != 0
      || sp_json_get_string (config, "code", false, &code, err) != 0
      || sp_json_get_int (config, "timeout", false, 1, 300, &timeout_s, err) != 0
      || sp_json_get_strv (config, "install_packages", false, &packages, err) != 0
      || sp_json_get_string (config, "working_directory", false, &dir, err) != 0
      || sp_json_get_env (config, "environment", &req->env, err) != 0
      || sp_json_get_bool (config, "capture_output", false, &capture, err) != 0
      || sp_json_get_bool (config, "return_base64", false, &base64, err) != 0)
    {
      sp_strv_free (packages);
      return -1;
    }
  bool want_install = packages != NULL && packages[0] != NULL;
  sp_strv_free (packages);
  if (language != NULL && strcmp (language, lang) != 0)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "execution_config: language \"%.32s\" is not the file's (%s)",
                               language, lang);
  /* The spec's command would run the config's code instead of the edit:
   * that is code_execution's job. */
  if (code != NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "execution_config: \"code\" cannot be given: the edited file "
                               "is what runs (use code_execution for other code)");
  if (want_install)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "execution_config: \"install_packages\": install them with "
                               "install_packages or code_execution first");
  if (timeout_s > 0)
    req->timeout_ms = timeout_s * 1000;
  call->drop_output = !capture;
  if (dir != NULL)
    {
      char *why = NULL;
      req->cwd = mcp_working_directory (options, dir, &why);
      if (req->cwd == NULL)
        {
          sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "execution_config: %s", why);
          free (why);
          return -1;
        }
    }
  return 0;
}

static void
answer (const McpReply *reply, const char *name, json_t *args)
{
  McpServer *server = reply->server;
  json_t *id = reply->id, *token = reply->progress_token;
  static const char *const allowed[] = { "language",
                                         "code",
                                         "timeout",
                                         "install_packages",
                                         "working_directory",
                                         "environment",
                                         "capture_output",
                                         "return_base64",
                                         NULL };
  SpProtoError err = { 0 };
  McpCall *main = xcalloc (1, sizeof *main);
  McpCodeExec *cx = xcalloc (1, sizeof *cx);
  cleanup_free char *working_directory = NULL;
  int64_t timeout_s = 0;
  bool capture = true;

  cx->t_call_ns = now_ns ();
  cx->main = main;
  cx->blocked = json_array ();
  cx->installed = json_array ();
  mcp_scan_init (&cx->scan);
  main->cx = cx;
  main->cx_free = mcp_code_execution_free;
  main->on_exited = exited_step;
  main->request_id = json_incref (id);
  if (json_is_string (token) || json_is_integer (token))
    main->progress_token = json_incref (token);
  main->tool = "code_execution";
  main->input = json_deep_copy (args);
  snprintf (main->run_id, sizeof main->run_id, "mcp-%llu", (unsigned long long) ++server->next_run);

  SpRun *req = &cx->req;
  if (sp_json_check_fields (args, "arguments", allowed, &err) != 0
      || sp_json_get_string (args, "language", true, &req->language, &err) != 0
      || sp_json_get_string (args, "code", true, &req->code, &err) != 0
      || sp_json_get_int (args, "timeout", false, 1, 300, &timeout_s, &err) != 0
      || sp_json_get_strv (args, "install_packages", false, &cx->packages, &err) != 0
      || sp_json_get_string (args, "working_directory", false, &working_directory, &err) != 0
      || sp_json_get_env (args, "environment", &req->env, &err) != 0
      || sp_json_get_bool (args, "capture_output", false, &capture, &err) != 0
      || sp_json_get_bool (args, "return_base64", false, &cx->return_base64, &err) != 0)
    goto invalid;
  static const char *const languages[] = { "python", "javascript", "bash", "c", "cpp",  "rust",
                                           "go",     "typescript", "ruby", "r", "java", NULL };
  bool known = false;
  for (size_t i = 0; languages[i] != NULL; i++)
    known = known || strcmp (req->language, languages[i]) == 0;
  if (!known)
    {
      sp_proto_set_error (&err, SP_ERR_UNSUPPORTED_LANGUAGE,
                          "field \"language\" must be python, javascript, bash, c, cpp, rust, "
                          "go, typescript, ruby, r or java");
      goto invalid;
    }
  if (sp_strv_length (cx->packages) > 64)
    {
      sp_proto_set_error (&err, SP_ERR_LIMIT,
                          "field \"install_packages\" has more than 64 "
                          "entries");
      goto invalid;
    }
  if (cx->packages != NULL && cx->packages[0] != NULL && strcmp (req->language, "python") != 0)
    {
      sp_proto_set_error (&err, SP_ERR_INVALID_VALUE,
                          "field \"install_packages\" is for python runs");
      goto invalid;
    }
  main->drop_output = !capture;
  req->id = xstrdup (main->run_id);
  req->timeout_ms = timeout_s * 1000;
  req->network = server->options->allow_network;
  req->return_base64 = true; /* image blocks, and base64_output when asked */
  if (server->options->environment != NULL && strcmp (req->language, "python") == 0)
    req->environment = xstrdup (server->options->environment);

  /* The scan comes first and always: its warnings are part of every
   * answer, refusals included. */
  cx->scan_start_ns = now_ns ();
  if (strcmp (req->language, "python") != 0)
    mcp_scan_patterns (req->language, req->code, &cx->scan);
  if (working_directory != NULL)
    {
      char *why = NULL;
      req->cwd = mcp_working_directory (server->options, working_directory, &why);
      if (req->cwd == NULL)
        {
          cx->scan_ms = ms_since (cx->scan_start_ns);
          refuse (server, main, why);
          free (why);
          return;
        }
    }
  if (strcmp (req->language, "python") == 0)
    {
      if (start_python_scan (server, main, req->code, &err) == 0)
        return;
      mcp_scan_python_output ("", err.message, &cx->scan);
    }
  scanned (server, main);
  return;

invalid:
  mcp_send_result (server, id, mcp_result_tool_error ("code_execution: %s", err.message));
  mcp_call_free (main);
}

const McpTool mcp_code_execution_tool = {
  .name = "code_execution",
  .offered = mcp_tool_always,
  .describe = describe,
  .answer = answer,
};
