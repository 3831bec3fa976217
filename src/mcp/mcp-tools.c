/* mcp-tools.c: the tools an assistant sees, and tools/call.
 *
 * Arguments are checked strictly and each refusal names the field, as an
 * isError result the model can read and correct; a run is then one
 * request to the engine, answered when its exited event arrives. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mcp-server.h"
#include "runner-pep723.h"
#include "runner-sandbox.h"
#include "runner-venv.h"
#include "sp-json.h"

static const char execute_code_input[]
  = "{\"type\":\"object\",\"properties\":{"
    "\"language\":{\"type\":\"string\",\"enum\":[\"python\",\"javascript\",\"bash\",\"c\",\"cpp\","
    "\"rust\",\"go\",\"typescript\",\"ruby\",\"r\",\"java\"],"
    "\"description\":\"python (python3 with numpy and matplotlib), javascript (node), bash, c "
    "(gcc), "
    "cpp (g++), rust (rustc), go, typescript (esbuild, then node), ruby, r (Rscript; a "
    "top-level value is printed) or java (the JDK's source launcher: the file's first class's "
    "main); compiled languages "
    "compile in the sandbox first, and a compile error is the result's error\"},"
    "\"code\":{\"type\":\"string\",\"description\":\"the program text\"},"
    "\"timeout\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":300,"
    "\"description\":\"wall-clock limit in seconds (default 30)\"},"
    "\"memory_mib\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":16384,"
    "\"description\":\"memory limit of the whole run in MiB (default 512)\"},"
    "\"stdin\":{\"type\":\"string\",\"description\":\"text given to the program's standard "
    "input, which is then closed\"},"
    "\"env\":{\"type\":\"object\",\"propertyNames\":{\"pattern\":\"^[A-Za-z_][A-Za-z0-9_]*$\"},"
    "\"additionalProperties\":{\"type\":\"string\"},\"description\":\"environment variables "
    "added for this run (the sandbox's own environment is otherwise fixed)\"},"
    "\"files\":{\"type\":\"array\",\"maxItems\":64,\"items\":{\"type\":\"object\","
    "\"properties\":{\"path\":{\"type\":\"string\",\"description\":\"relative path in the run's "
    "directory, without . or .. parts\"},\"content\":{\"type\":\"string\",\"description\":"
    "\"the file's text\"},\"base64\":{\"type\":\"string\",\"contentEncoding\":\"base64\","
    "\"description\":\"the file's bytes, standard padded base64 (instead of content)\"}},"
    "\"required\":[\"path\"],\"oneOf\":[{\"required\":[\"content\"]},"
    "{\"required\":[\"base64\"]}],\"additionalProperties\":false},\"description\":\"files put "
    "in the run's directory (with session_id, the session's) as it starts, within the run's "
    "disk cap; a symlink or anything but the program's own regular file already at a path "
    "fails the call\"},"
    "\"working_directory\":{\"type\":\"string\",\"description\":\"directory to run in, "
    "relative to the workspace or an absolute path inside it (default: a fresh private "
    "directory); with session_id, where the session runs for its life: a later call may leave "
    "it out, another directory is refused until the session ends\"},"
    "\"session_id\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64,"
    "\"pattern\":\"^[!-~]+$\",\"description\":\"keep state between calls (python, javascript, r "
    "or java): "
    "calls with the same id run one after another in one sandboxed interpreter that keeps "
    "variables, imports and its working directory; a crash, a timeout the code ignores or "
    "a limit ends it, and the next call starts a new one (the result says so)\"},"
    "\"global_variables\":{\"type\":\"object\",\"propertyNames\":{\"pattern\":"
    "\"^[A-Za-z_][A-Za-z0-9_]*$\"},\"description\":\"python without session_id: JSON values "
    "that are the snippet's global variables before it runs (as JSON decodes them: dict, list, "
    "str, int, float, bool, None), at most 64 KiB as JSON\"}},"
    "\"required\":[\"language\",\"code\"],\"additionalProperties\":false}";

static const char execute_command_input[]
  = "{\"type\":\"object\",\"properties\":{"
    "\"command\":{\"type\":\"string\",\"description\":\"a bash command line\"},"
    "\"work_dir\":{\"type\":\"string\",\"description\":\"directory to run in, relative to "
    "the workspace or an absolute path inside it (default: the workspace itself); it may "
    "not lead out of it\"},"
    "\"timeout\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":300,"
    "\"description\":\"wall-clock limit in seconds (default 30)\"}},"
    "\"required\":[\"command\"],\"additionalProperties\":false}";

static const char edit_and_execute_input[]
  = "{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\",\"description\":\"a file in the workspace, relative to "
    "it; its extension says the language (.py, .js, .sh, .R, .java, ...)\"},"
    "\"file_path\":{\"type\":\"string\",\"description\":\"the same as path (the spec's "
    "name); give one of them\"},"
    "\"edits\":{\"type\":\"array\",\"minItems\":1,\"items\":{\"anyOf\":["
    "{\"type\":\"object\",\"properties\":{\"old_text\":{\"type\":\"string\","
    "\"description\":\"text that occurs exactly once in the file\"},"
    "\"new_text\":{\"type\":\"string\"}},"
    "\"required\":[\"old_text\",\"new_text\"],\"additionalProperties\":false},"
    "{\"type\":\"object\",\"properties\":{\"command\":{\"const\":\"str_replace\"},"
    "\"old_str\":{\"type\":\"string\",\"description\":\"occurs exactly once\"},"
    "\"new_str\":{\"type\":\"string\"}},"
    "\"required\":[\"command\",\"old_str\"],\"additionalProperties\":false},"
    "{\"type\":\"object\",\"properties\":{\"command\":{\"const\":\"insert\"},"
    "\"insert_line\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"the line "
    "after which new_str goes (0: at the top)\"},\"new_str\":{\"type\":\"string\"}},"
    "\"required\":[\"command\",\"insert_line\",\"new_str\"],\"additionalProperties\":false},"
    "{\"type\":\"object\",\"properties\":{\"command\":{\"const\":\"create\"},"
    "\"file_text\":{\"type\":\"string\"}},\"required\":[\"command\",\"file_text\"],"
    "\"additionalProperties\":false,\"description\":\"a new file (first edit only; never "
    "over an existing one)\"}]},"
    "\"description\":\"exact-text replacements or Anthropic text editor commands "
    "(str_replace, insert, create), applied in order\"},"
    "\"args\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"description\":\"arguments for the program\"},"
    "\"execution_config\":{\"type\":\"object\",\"description\":\"code_execution's input "
    "shape for the run of the edited file: timeout, working_directory, environment, "
    "capture_output, language (must match the file); its code is the file\","
    "\"properties\":{\"language\":{\"type\":\"string\"},\"code\":{\"type\":\"string\"},"
    "\"timeout\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":300},"
    "\"install_packages\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"working_directory\":{\"type\":\"string\"},"
    "\"environment\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
    "\"capture_output\":{\"type\":\"boolean\"},\"return_base64\":{\"type\":\"boolean\"}},"
    "\"additionalProperties\":false}},"
    "\"required\":[\"edits\"],\"additionalProperties\":false}";

static json_t *
parse_literal (const char *text)
{
  json_t *value = json_loads (text, 0, NULL);

  if (value == NULL)
    abort (); /* a typo in a literal of this file */
  return value;
}

json_t *
mcp_tools_list (const McpOptions *options)
{
  json_t *tools = json_array ();

  json_array_append_new (
    tools,
    json_pack ("{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name", "execute_code", "title",
               "Run code in Sandpad's sandbox", "description",
               "Runs a Python, JavaScript or Bash snippet in a fresh private directory inside "
               "a kernel sandbox (no network, no view of the host's files), with time and "
               "memory limits. Returns the exit code, stdout and stderr, resource use, the "
               "files the run created, and every matplotlib figure the snippet shows or "
               "leaves open as a PNG image. A non-zero exit is a normal result.",
               "inputSchema", parse_literal (execute_code_input), "outputSchema",
               mcp_result_schema (false), "annotations", "readOnlyHint", 0, "destructiveHint", 0,
               "openWorldHint", 0));
  json_array_append_new (tools, mcp_code_execution_tool (options));
  mcp_sessions_tools (tools);
  if (options->workspace == NULL)
    return tools;
  /* The model has to know where the context is to use it. */
  Buf context = { 0 };
  for (size_t i = 0; options->context_paths != NULL && options->context_paths[i] != NULL; i++)
    {
      buf_append (&context, i == 0 ? " Read-only context directories: " : ", ",
                  i == 0 ? strlen (" Read-only context directories: ") : 2);
      buf_append (&context, options->context_paths[i], strlen (options->context_paths[i]));
    }
  buf_append (&context, context.len > 0 ? "." : "", context.len > 0 ? 2 : 1);
  /* Where the command sees the workspace: at its own path (namespace
   * mode binds it there too, unless that path would shadow a directory
   * of the sandbox's own), and as /work in namespace mode. */
  const char *why_not = NULL;
  char *where = runner_sandbox_host_path_ok (options->workspace, &why_not)
                  ? xasprintf ("%s (also /work in namespace mode)", options->workspace)
                  : xasprintf ("%s (seen as /work in namespace mode: %s)", options->workspace,
                               why_not);
  char *description = xasprintf (
    "Runs a bash command line with the workspace %s as its writable working directory, "
    "inside a kernel sandbox: nothing else of the "
    "host is visible or writable, no network, time and memory limits. Obviously "
    "dangerous commands (sudo, rm -rf /, ...) and those the server's configuration "
    "excludes are refused with a reason. Returns the same result as execute_code; "
    "files created or changed in the workspace are listed.%s",
    where, context.data);
  free (where);
  buf_clear (&context);
  json_array_append_new (tools, json_pack ("{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name",
                                           "execute_command", "title",
                                           "Run a shell command in the workspace", "description",
                                           description, "inputSchema",
                                           parse_literal (execute_command_input), "outputSchema",
                                           mcp_result_schema (false), "annotations", "readOnlyHint",
                                           0, "destructiveHint", 1, "openWorldHint", 0));
  free (description);
  json_array_append_new (
    tools,
    json_pack ("{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name", "edit_and_execute", "title",
               "Edit a workspace file and run it", "description",
               "Applies exact-text replacements to a file in the workspace (each old_text must "
               "occur exactly once, else nothing changes), writes it atomically, then runs it "
               "in the sandbox with the file's directory as the working directory. Returns "
               "the run's result plus a unified diff of the edit.",
               "inputSchema", parse_literal (edit_and_execute_input), "outputSchema",
               mcp_result_schema (true), "annotations", "readOnlyHint", 0, "destructiveHint", 1,
               "openWorldHint", 0));
  if (options->environment != NULL)
    json_array_append_new (tools, mcp_install_tool (options));
  return tools;
}

/* Seconds as a JSON number (fractions allowed) into milliseconds. */
static int
get_timeout (json_t *args, int64_t *timeout_ms, SpProtoError *err)
{
  json_t *value = json_object_get (args, "timeout");

  if (value == NULL || json_is_null (value))
    return 0;
  if (!json_is_number (value))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "field \"timeout\" must be a number");
  double sec = json_number_value (value);
  if (!(sec > 0) || !isfinite (sec) || sec > 300)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"timeout\" must be above 0 and at most 300 seconds");
  *timeout_ms = (int64_t) ceil (sec * 1000);
  return 0;
}

/* The longest global_variables, as compact JSON: it travels to the
 * prelude as one environment variable, which the kernel caps at 128 KiB. */
#define MAX_GLOBALS_BYTES (64 * 1024)

static bool
identifier_char (char c, bool first)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
         || (!first && c >= '0' && c <= '9');
}

/* An ASCII Python identifier (what a snippet can name without globals()). */
static bool
python_identifier (const char *name)
{
  if (!identifier_char (name[0], true))
    return false;
  for (const char *p = name + 1; *p != '\0'; p++)
    if (!identifier_char (*p, false))
      return false;
  return true;
}

/* mcp-run-python's global_variables: the values reach the snippet's
 * globals through the prelude (SANDPAD_GLOBALS, which it reads and takes
 * out of os.environ before the snippet runs), so the code itself and its
 * line numbers stay exactly what was sent. In a session a call's env is
 * that call's (the driver sets it for the run), so they become the
 * session's variables before that call's snippet, and stay as any
 * variable it assigns would. */
static int
get_globals (json_t *args, SpRun *req, SpProtoError *err)
{
  json_t *value = json_object_get (args, "global_variables");
  const char *name;
  json_t *item;

  if (value == NULL || json_is_null (value))
    return 0;
  if (!json_is_object (value))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE,
                               "field \"global_variables\" must be an object");
  if (json_object_size (value) == 0)
    return 0;
  if (strcmp (req->language, "python") != 0)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "\"global_variables\" is for python runs only");
  json_object_foreach (value, name, item)
    if (!python_identifier (name))
      return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                 "\"global_variables\" has a name that is not a Python "
                                 "identifier: \"%.64s\"",
                                 name);
  for (size_t i = 0; req->env != NULL && req->env[i] != NULL; i++)
    if (strncmp (req->env[i], "SANDPAD_GLOBALS=", 16) == 0)
      return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                 "\"env\" cannot name SANDPAD_GLOBALS beside "
                                 "\"global_variables\"");
  cleanup_free char *text = json_dumps (value, JSON_COMPACT | JSON_ENSURE_ASCII);
  if (text == NULL)
    abort ();
  if (strlen (text) > MAX_GLOBALS_BYTES)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "\"global_variables\" is %zu bytes as JSON, more than %d",
                               strlen (text), MAX_GLOBALS_BYTES);
  size_t n = sp_strv_length (req->env);
  char **env = realloc (req->env, (n + 2) * sizeof *env);
  if (env == NULL)
    abort ();
  env[n] = xasprintf ("SANDPAD_GLOBALS=%s", text);
  env[n + 1] = NULL;
  req->env = env;
  return 0;
}

static int
parse_execute_code (McpServer *server, McpCall *call, json_t *args, SpRun *req, SpProtoError *err)
{
  static const char *const allowed[]
    = { "language", "code",       "timeout",          "memory_mib",        "stdin", "env",
        "files",    "session_id", "global_variables", "working_directory", NULL };
  json_t *files = NULL;
  char *session = NULL;
  cleanup_free char *working_directory = NULL;

  if (sp_json_check_fields (args, "arguments", allowed, err) != 0
      || sp_json_get_string (args, "language", true, &req->language, err) != 0
      || sp_json_get_string (args, "code", true, &req->code, err) != 0
      || get_timeout (args, &req->timeout_ms, err) != 0
      || sp_json_get_int (args, "memory_mib", false, 1, INT32_MAX, &req->memory_mib, err) != 0
      || sp_json_get_string (args, "stdin", false, &req->stdin_data, err) != 0
      || sp_json_get_env (args, "env", &req->env, err) != 0
      || sp_json_get_array (args, "files", false, &files, err) != 0
      || sp_json_get_string (args, "session_id", false, &session, err) != 0
      || sp_json_get_string (args, "working_directory", false, &working_directory, err) != 0)
    return -1;
  if (working_directory != NULL)
    {
      cleanup_free char *why = NULL;
      req->cwd = mcp_working_directory (server, working_directory, &why);
      if (req->cwd == NULL)
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "%s", why);
    }
  if (session != NULL)
    {
      int rc = 0;
      if (!sp_proto_id_valid (session))
        rc = sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                 "\"session_id\" must be 1 to %d printable ASCII characters "
                                 "without spaces",
                                 SP_PROTO_MAX_ID);
      if (rc == 0)
        snprintf (call->session, sizeof call->session, "%s", session);
      req->session = session;
      if (rc != 0)
        return rc;
    }
  if (get_globals (args, req, err) != 0)
    return -1;
  /* They land in the run's own directory, or its session's, when it
   * starts (a queued session run's only then): the engine writes them. */
  if (files != NULL && json_array_size (files) > 0
      && mcp_files_input (server, call, files, err) != 0)
    return -1;
  return 0;
}

/* Reasons for refusing a command go back to the model as they are. */
static int
parse_execute_command (McpServer *server, json_t *args, SpRun *req, SpProtoError *err)
{
  static const char *const allowed[] = { "command", "work_dir", "timeout", NULL };
  cleanup_free char *work_dir = NULL;

  if (sp_json_check_fields (args, "arguments", allowed, err) != 0
      || sp_json_get_string (args, "command", true, &req->code, err) != 0
      || sp_json_get_string (args, "work_dir", false, &work_dir, err) != 0
      || get_timeout (args, &req->timeout_ms, err) != 0)
    return -1;
  cleanup_free char *refusal = mcp_filters_check (&server->options->filters, req->code);
  if (refusal != NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "%s. (These filters are policy; "
                               "the sandbox is the boundary.)",
                               refusal);
  const char *ws = server->options->workspace;
  size_t ws_len = strlen (ws);
  if (work_dir != NULL && strlen (work_dir) > 1024)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"work_dir\" is longer than 1024 bytes");
  /* Absolute is fine when it names the workspace or a directory in it,
   * as a model told the workspace's path writes it; the engine's check
   * is the real one, this only gives the clearer message. */
  if (work_dir != NULL && work_dir[0] == '/'
      && !(strncmp (work_dir, ws, ws_len) == 0
           && (work_dir[ws_len] == '\0' || work_dir[ws_len] == '/')))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"work_dir\": %.200s is not inside the workspace %s",
                               work_dir, ws);
  /* The engine resolves it (symlinks, "..") and refuses anything that
   * is not under the workspace, its only allowed cwd, then holds the
   * directory it checked as an fd. */
  req->cwd = work_dir == NULL || work_dir[0] == '\0' ? xstrdup (ws)
             : work_dir[0] == '/'                    ? xstrdup (work_dir)
                                                     : xasprintf ("%s/%s", ws, work_dir);
  req->language = xstrdup ("bash");
  req->name = xstrdup ("command.sh");
  return 0;
}

static int
parse_edit_and_execute (McpServer *server, McpCall *call, json_t *args, SpRun *req,
                        SpProtoError *err)
{
  static const char *const allowed[] = { "path", "file_path",        "edits",
                                         "args", "execution_config", NULL };
  cleanup_free char *path = NULL;
  cleanup_free char *file_path = NULL;
  json_t *edits = NULL;
  json_t *config = NULL;

  if (sp_json_check_fields (args, "arguments", allowed, err) != 0
      || sp_json_get_string (args, "path", false, &path, err) != 0
      || sp_json_get_string (args, "file_path", false, &file_path, err) != 0
      || sp_json_get_array (args, "edits", true, &edits, err) != 0
      || sp_json_get_strv (args, "args", false, &req->args, err) != 0
      || sp_json_get_object (args, "execution_config", false, &config, err) != 0)
    return -1;
  if ((path == NULL) == (file_path == NULL))
    return sp_proto_set_error (err, path == NULL ? SP_ERR_MISSING_FIELD : SP_ERR_INVALID_VALUE,
                               "give the file as \"path\" or \"file_path\", once");
  if (path == NULL)
    path = steal_pointer (&file_path);
  /* Everything that can be refused is refused before the file changes. */
  const char *slash = strrchr (path, '/');
  const char *base = slash ? slash + 1 : path;
  RunnerLanguage *lang = runner_langs_for_file (server->langs, base);
  if (lang == NULL)
    return sp_proto_set_error (err, SP_ERR_UNSUPPORTED_LANGUAGE,
                               "field \"path\": cannot tell the language of \"%.200s\" from its "
                               "extension",
                               path);
  /* execution_config is checked before the file changes, too. */
  if (config != NULL && mcp_code_execution_config (server, call, config, lang->name, req, err) != 0)
    return -1;
  if (mcp_edit_file (server->options->workspace, path, edits, &req->code, &call->diff, err) != 0)
    return -1;
  req->language = xstrdup (lang->name);
  req->name = xstrdup (base);
  /* The file's directory is the run's cwd (the engine checks it is in the
   * workspace); Python also finds the modules beside it there. */
  if (req->cwd == NULL)
    req->cwd = slash ? xasprintf ("%s/%.*s", server->options->workspace, (int) (slash - path), path)
                     : xstrdup (server->options->workspace);
  if (strcmp (lang->name, "python") == 0)
    {
      size_t n = sp_strv_length (req->env);
      req->env = xrealloc (req->env, (n + 2) * sizeof *req->env);
      req->env[n] = xstrdup ("PYTHONPATH=.");
      req->env[n + 1] = NULL;
    }
  return 0;
}

/* The server's --env under the call's own: a name the call sets is the
 * call's. */
static void
add_server_env (const McpOptions *options, SpRun *req)
{
  size_t n = sp_strv_length (req->env), n_server = sp_strv_length (options->env);

  if (n_server == 0)
    return;
  req->env = xrealloc (req->env, (n + n_server + 1) * sizeof *req->env);
  for (size_t i = 0; i < n_server; i++)
    {
      size_t name_len = strcspn (options->env[i], "=") + 1;
      bool taken = false;
      for (size_t j = 0; j < n && !taken; j++)
        taken = strncmp (req->env[j], options->env[i], name_len) == 0;
      if (!taken)
        req->env[n++] = xstrdup (options->env[i]);
    }
  req->env[n] = NULL;
}

/* Answers a call that cannot run with the reason, and forgets it. */
static void
fail_call (McpServer *server, McpCall *call, SpRun *req, SpProtoError *err)
{
  SpMessage leftover = { .type = SP_MSG_RUN, .u.run = *req };

  sp_message_clear (&leftover);
  *req = (SpRun){ 0 };
  mcp_send_result (server, call->request_id,
                   mcp_result_tool_error ("%s: %s%s", call->tool, err->message,
                                          call->diff != NULL ? " (the edit was applied)" : ""));
  mcp_call_free (call);
}

/* Hands a parsed call's run to the engine; answered from its exited
 * event, or at once when the engine refuses it. Takes req's contents. */
static void
submit_call (McpServer *server, McpCall *call, SpRun *req)
{
  SpProtoError err = { 0 };
  bool is_command = call->is_command, is_edit = call->is_edit;

  req->id = xstrdup (call->run_id);
  snprintf (call->language, sizeof call->language, "%s", req->language ? req->language : "");
  req->network = server->options->allow_network;
  add_server_env (server->options, req);
  req->return_base64 = true; /* plots travel inline: the directory goes away */
  req->return_files = true;  /* and the files it made, as resources */
  if (req->cwd != NULL)
    call->workspace_dir = xstrdup (req->cwd);
  /* Python runs import the workspace's environment, read-only.
   * Commands get it activated (its bin/ first on PATH, VIRTUAL_ENV),
   * as after `source .venv/bin/activate`: `python -c 'import pkg'`
   * finds what install_packages put there. One inside the workspace
   * stays as writable to a command as the rest of the workspace. */
  const char *environment = server->options->environment;
  RunnerRunOptions options = { 0 };
  if (environment != NULL && req->language != NULL
      && (strcmp (req->language, "python") == 0 || is_command))
    req->environment = xstrdup (environment);
  if (environment != NULL && is_command
      && runner_env_within (environment, server->options->workspace))
    options.environment_writable = true;
  /* A command names workspace files by the path the model was told:
   * the workspace's own, at which namespace mode shows it too. */
  options.cwd_at_host_path = is_command;
  /* And the whole workspace, not only work_dir: a command in work_dir
   * "sub" may name "<workspace>/other.txt" (or ../other.txt) as well. The
   * engine checks work_dir beneath the workspace's fd and starts there. */
  options.cwd_root = is_command ? server->options->workspace : NULL;
  options.input_files = call->input_files;
  options.n_input_files = call->n_input_files;
  /* A session of the resident runner's (--resident-sessions): the run
   * goes there. Its input files would be written by this server's engine
   * into a session directory the runner holds, so they cannot go. */
  if (server->resident != NULL && req->session != NULL)
    {
      if (call->n_input_files > 0)
        {
          sp_proto_set_error (&err, SP_ERR_INVALID_VALUE,
                              "field \"files\" cannot go to a session of the resident runner "
                              "(--resident-sessions): write them into the workspace and name "
                              "it with working_directory, or leave out session_id");
          fail_call (server, call, req, &err);
          return;
        }
      call->resident = true;
      call->next = server->calls;
      server->calls = call;
      if (mcp_resident_submit (server->resident, req, &err) == 0)
        {
          SpMessage sent = { .type = SP_MSG_RUN, .u.run = *req };
          sp_message_clear (&sent);
          *req = (SpRun){ 0 };
          return; /* answered from the exited event */
        }
      server->calls = call->next;
      fail_call (server, call, req, &err);
      return;
    }
  /* Listed first: the engine may report the run's end before submit
   * returns (a run that cannot start), and that report finds it here. */
  call->next = server->calls;
  server->calls = call;
  if (runner_engine_submit_with (server->engine, req, &options, &err) == 0)
    return; /* answered from the exited event; call may be gone already */
  server->calls = call->next;
  /* The engine speaks of its "cwd" and its --allow-cwd; the model
   * asked for a work_dir (or a file) in the workspace. */
  if ((is_command || is_edit) && strstr (err.message, "\"cwd\"") != NULL)
    sp_proto_set_error (&err, SP_ERR_INVALID_VALUE,
                        "field \"%s\" must name a directory inside the workspace, owned "
                        "by the runs' uid (symlinks and \"..\" are resolved first)",
                        is_command ? "work_dir" : "path");
  fail_call (server, call, req, &err);
}

/* A call waiting for its snippet's declared dependencies. */
typedef struct
{
  McpCall *call;
  SpRun req;
} DeclaredRun;

static void
declared_free (void *data)
{
  DeclaredRun *wait = data;
  SpMessage leftover = { .type = SP_MSG_RUN, .u.run = wait->req };

  sp_message_clear (&leftover);
  mcp_call_free (wait->call);
  free (wait);
}

static void
declared_installed (McpServer *server, void *data, RunnerInstall *inst, RunnerInstallState state)
{
  DeclaredRun *wait = data;
  McpCall *call = wait->call;
  SpProtoError err = { 0 };

  if (state != RUNNER_INSTALL_DONE)
    {
      sp_proto_set_error (&err, SP_ERR_INVALID_VALUE,
                          "the dependencies in the script's metadata (PEP 723) were %s, so "
                          "it did not run: %s",
                          state == RUNNER_INSTALL_REFUSED ? "refused" : "not installed",
                          runner_install_message (inst));
      fail_call (server, call, &wait->req, &err);
      free (wait);
      return;
    }
  size_t n = 0;
  const RunnerInstallFile *files = runner_install_files (inst, &n);
  call->installed = json_array ();
  for (size_t i = 0; i < n; i++)
    {
      char *spec = xasprintf ("%s==%s", files[i].name, files[i].version);
      json_array_append_new (call->installed, json_string (spec));
      free (spec);
    }
  SpRun req = wait->req;
  free (wait);
  submit_call (server, call, &req);
}

/* 0: nothing declared, run now; 1: an install started, the run follows
 * it; -1 with *err: refused, nothing installed. */
static int
install_declared (McpServer *server, McpCall *call, SpRun *req, SpProtoError *err)
{
  const char *environment = server->options->environment;
  char **deps = NULL;
  char msg[600];

  switch (runner_pep723_declared (req->code, environment, &deps, msg, sizeof msg))
    {
    case RUNNER_PEP723_NONE:
      return 0;
    case RUNNER_PEP723_INVALID:
      return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "%s", msg);
    case RUNNER_PEP723_NO_ENVIRONMENT:
      sp_strv_free (deps);
      return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                 "the script declares dependencies (PEP 723) but this server "
                                 "has no Python environment to install them into (start it "
                                 "with --environment or a workspace that has a venv)");
    case RUNNER_PEP723_INSTALL:
      break;
    }
  DeclaredRun *wait = xcalloc (1, sizeof *wait);
  wait->call = call;
  wait->req = *req;
  bool started = mcp_install_start_for (server, deps, declared_installed, declared_free, wait, msg,
                                        sizeof msg);
  sp_strv_free (deps);
  if (!started)
    {
      free (wait);
      return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                 "the dependencies in the script's metadata (PEP 723) were "
                                 "refused, so it did not run: %s",
                                 msg);
    }
  *req = (SpRun){ 0 };
  return 1;
}

/* The three tools that are one run each, told apart by how their
 * arguments become a request. */
typedef enum
{
  RUN_CODE,
  RUN_COMMAND,
  RUN_EDIT,
} RunKind;

static void
call_run (McpServer *server, json_t *id, json_t *args, json_t *token, RunKind kind)
{
  static const char *const names[] = { "execute_code", "execute_command", "edit_and_execute" };
  McpCall *call = xcalloc (1, sizeof *call);
  SpProtoError err = { 0 };
  SpRun req = { 0 };
  int rc;

  call->request_id = json_incref (id);
  if (json_is_string (token) || json_is_integer (token))
    call->progress_token = json_incref (token);
  snprintf (call->run_id, sizeof call->run_id, "mcp-%llu", (unsigned long long) ++server->next_run);
  /* The journal keeps what was asked (mcp_journal_input leaves out what
   * it must not keep: file contents, variables' values). */
  call->tool = names[kind];
  call->input = json_deep_copy (args);
  call->is_command = kind == RUN_COMMAND;
  call->is_edit = kind == RUN_EDIT;
  rc = kind == RUN_COMMAND ? parse_execute_command (server, args, &req, &err)
       : kind == RUN_EDIT  ? parse_edit_and_execute (server, call, args, &req, &err)
                           : parse_execute_code (server, call, args, &req, &err);
  if (rc != 0)
    {
      fail_call (server, call, &req, &err);
      return;
    }
  if (kind == RUN_CODE && strcmp (req.language, "python") == 0)
    {
      /* A snippet's declared dependencies go in first (runner-pep723.c). */
      int declared = install_declared (server, call, &req, &err);
      if (declared < 0)
        fail_call (server, call, &req, &err);
      if (declared != 0)
        return;
    }
  submit_call (server, call, &req);
}

static void
call_execute_code (McpServer *server, json_t *id, const char *name, json_t *args, json_t *token)
{
  call_run (server, id, args, token, RUN_CODE);
}

static void
call_execute_command (McpServer *server, json_t *id, const char *name, json_t *args, json_t *token)
{
  call_run (server, id, args, token, RUN_COMMAND);
}

static void
call_edit_and_execute (McpServer *server, json_t *id, const char *name, json_t *args, json_t *token)
{
  call_run (server, id, args, token, RUN_EDIT);
}

static void
call_code_execution (McpServer *server, json_t *id, const char *name, json_t *args, json_t *token)
{
  mcp_code_execution_call (server, id, args, token);
}

static void
call_install (McpServer *server, json_t *id, const char *name, json_t *args, json_t *token)
{
  mcp_install_call (server, id, args);
}

static void
call_session (McpServer *server, json_t *id, const char *name, json_t *args, json_t *token)
{
  /* The table names only the sessions' own tools: always handled. */
  mcp_sessions_call (server, id, name, args);
}

static bool
always (const McpOptions *options)
{
  return true;
}

static bool
with_workspace (const McpOptions *options)
{
  return options->workspace != NULL;
}

static bool
with_environment (const McpOptions *options)
{
  return options->environment != NULL;
}

/* Every tool a call may name: whether this server offers it (as
 * mcp_tools_list does), and what answers it. One place to add a tool. */
typedef struct
{
  const char *name;
  bool (*offered) (const McpOptions *options);
  void (*call) (McpServer *server, json_t *id, const char *name, json_t *args, json_t *token);
} McpTool;

static const McpTool tool_table[] = {
  { "execute_code", always, call_execute_code },
  { "code_execution", always, call_code_execution },
  { "list_sessions", always, call_session },
  { "restart_session", always, call_session },
  { "close_session", always, call_session },
  { "execute_command", with_workspace, call_execute_command },
  { "edit_and_execute", with_workspace, call_edit_and_execute },
  { "install_packages", with_environment, call_install },
};

void
mcp_tools_call (McpServer *server, json_t *id, json_t *params)
{
  json_t *name = params ? json_object_get (params, "name") : NULL;
  json_t *args = params ? json_object_get (params, "arguments") : NULL;
  json_t *meta = params ? json_object_get (params, "_meta") : NULL;
  json_t *token = json_is_object (meta) ? json_object_get (meta, "progressToken") : NULL;
  const McpTool *tool = NULL;

  if (!json_is_string (name))
    {
      mcp_send_error (server, id, MCP_INVALID_PARAMS, "tools/call needs params.name (a string)");
      return;
    }
  for (size_t i = 0; i < N_ELEMENTS (tool_table) && tool == NULL; i++)
    if (strcmp (json_string_value (name), tool_table[i].name) == 0
        && tool_table[i].offered (server->options))
      tool = &tool_table[i];
  if (tool == NULL)
    {
      mcp_send_error (server, id, MCP_INVALID_PARAMS, "unknown tool \"%.64s\"",
                      json_string_value (name));
      return;
    }
  if (args != NULL && !json_is_null (args) && !json_is_object (args))
    {
      mcp_send_error (server, id, MCP_INVALID_PARAMS, "params.arguments must be an object");
      return;
    }
  json_t *given = json_is_object (args) ? json_incref (args) : json_object ();
  tool->call (server, id, tool->name, given, token);
  json_decref (given);
}

const McpHandlers mcp_tools_handlers = {
  .tools_list = mcp_tools_list,
  .tools_call = mcp_tools_call,
  .pipeline_exited = mcp_code_execution_exited,
  .install_event = mcp_install_event,
  .install_poll = mcp_install_poll,
  .install_free_all = mcp_install_free_all,
  .session_started = mcp_sessions_started,
  .session_ended = mcp_sessions_ended,
  .sessions_free_all = mcp_sessions_free_all,
};
