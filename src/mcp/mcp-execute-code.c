/* mcp-execute-code.c: the execute_code tool, a snippet in a language the
 * runner knows, as one run (a row of mcp-tool.h). */
#include <stdio.h>
#include <string.h>

#include "mcp-tool.h"
#include "sp-json.h"

static const char execute_code_input[]
  = "{\"type\":\"object\",\"properties\":{" MCP_TOOL_LANGUAGE_SCHEMA
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

static json_t *
describe (const McpOptions *options)
{
  return json_pack ("{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name", "execute_code", "title",
                    "Run code in Sandpad's sandbox", "description",
                    "Runs a Python, JavaScript or Bash snippet in a fresh private directory inside "
                    "a kernel sandbox (no network, no view of the host's files), with time and "
                    "memory limits. Returns the exit code, stdout and stderr, resource use, the "
                    "files the run created, and every matplotlib figure the snippet shows or "
                    "leaves open as a PNG image. A non-zero exit is a normal result.",
                    "inputSchema", mcp_tool_literal (execute_code_input), "outputSchema",
                    mcp_result_schema (false), "annotations", "readOnlyHint", 0, "destructiveHint",
                    0, "openWorldHint", 0);
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
parse (const McpToolEnv *env, McpCall *call, json_t *args, SpRun *req,
       RunnerRunOptions *run_options, SpProtoError *err)
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
      || mcp_tool_get_timeout (args, &req->timeout_ms, err) != 0
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
      req->cwd = mcp_working_directory (env->options, working_directory, &why);
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
      && mcp_files_input (env->options, call, files, err) != 0)
    return -1;
  return 0;
}

const McpTool mcp_execute_code_tool = {
  .name = "execute_code",
  .offered = mcp_tool_always,
  .describe = describe,
  .parse = parse,
  .on_exited = mcp_tool_run_result,
  .installs_declared = true,
};
