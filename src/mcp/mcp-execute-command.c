/* mcp-execute-command.c: the execute_command tool, a bash command line in
 * the workspace, as one run (a row of mcp-tool.h; offered with a
 * workspace). */
#include <stdio.h>
#include <string.h>

#include "mcp-tool.h"
#include "runner-sandbox.h"
#include "runner-venv.h"
#include "sp-json.h"

static const char execute_command_input[]
  = "{\"type\":\"object\",\"properties\":{"
    "\"command\":{\"type\":\"string\",\"description\":\"a bash command line\"},"
    "\"work_dir\":{\"type\":\"string\",\"description\":\"directory to run in, relative to "
    "the workspace or an absolute path inside it (default: the workspace itself); it may "
    "not lead out of it\"},"
    "\"timeout\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":300,"
    "\"description\":\"wall-clock limit in seconds (default 30)\"}},"
    "\"required\":[\"command\"],\"additionalProperties\":false}";

static json_t *
describe (const McpOptions *options)
{
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
  json_t *tool = json_pack ("{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name",
                            "execute_command", "title", "Run a shell command in the workspace",
                            "description", description, "inputSchema",
                            mcp_tool_literal (execute_command_input), "outputSchema",
                            mcp_result_schema (false), "annotations", "readOnlyHint", 0,
                            "destructiveHint", 1, "openWorldHint", 0);
  free (description);
  return tool;
}

/* Reasons for refusing a command go back to the model as they are. */
static int
parse (const McpToolEnv *env, McpCall *call, json_t *args, SpRun *req,
       RunnerRunOptions *run_options, SpProtoError *err)
{
  static const char *const allowed[] = { "command", "work_dir", "timeout", NULL };
  cleanup_free char *work_dir = NULL;

  if (sp_json_check_fields (args, "arguments", allowed, err) != 0
      || sp_json_get_string (args, "command", true, &req->code, err) != 0
      || sp_json_get_string (args, "work_dir", false, &work_dir, err) != 0
      || mcp_tool_get_timeout (args, &req->timeout_ms, err) != 0)
    return -1;
  cleanup_free char *refusal = mcp_filters_check (&env->options->filters, req->code);
  if (refusal != NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "%s. (These filters are policy; "
                               "the sandbox is the boundary.)",
                               refusal);
  const char *ws = env->options->workspace;
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
  /* A command names workspace files by the path the model was told: the
   * workspace's own, at which namespace mode shows it too. And the whole
   * workspace, not only work_dir: a command in work_dir "sub" may name
   * "<workspace>/other.txt" (or ../other.txt) as well. The engine checks
   * work_dir beneath the workspace's fd and starts there. */
  run_options->cwd_at_host_path = true;
  run_options->cwd_root = ws;
  /* Commands get the workspace's environment activated (its bin/ first on
   * PATH, VIRTUAL_ENV), as after `source .venv/bin/activate`: `python -c
   * 'import pkg'` finds what install_packages put there. One inside the
   * workspace stays as writable to a command as the rest of it. */
  const char *environment = env->options->environment;
  if (environment != NULL)
    {
      req->environment = xstrdup (environment);
      run_options->environment_writable = runner_env_within (environment, ws);
    }
  return 0;
}

const McpTool mcp_execute_command_tool = {
  .name = "execute_command",
  .offered = mcp_tool_with_workspace,
  .describe = describe,
  .parse = parse,
  .on_exited = mcp_tool_run_result,
  .directory_field = "work_dir",
};
