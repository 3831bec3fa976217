/* mcp-edit-and-execute.c: the edit_and_execute tool, an edit of a workspace
 * file and then its run (a row of mcp-tool.h; offered with a workspace). */
#include <stdio.h>
#include <string.h>

#include "mcp-tool.h"
#include "sp-json.h"

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
describe (const McpOptions *options)
{
  return json_pack (
    "{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name", "edit_and_execute", "title",
    "Edit a workspace file and run it", "description",
    "Applies exact-text replacements to a file in the workspace (each old_text must "
    "occur exactly once, else nothing changes), writes it atomically, then runs it "
    "in the sandbox with the file's directory as the working directory. Returns "
    "the run's result plus a unified diff of the edit.",
    "inputSchema", mcp_tool_literal (edit_and_execute_input), "outputSchema",
    mcp_result_schema (true), "annotations", "readOnlyHint", 0, "destructiveHint", 1,
    "openWorldHint", 0);
}

static int
parse (const McpToolEnv *env, McpCall *call, json_t *args, SpRun *req,
       RunnerRunOptions *run_options, SpProtoError *err)
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
  RunnerLanguage *lang = runner_langs_for_file (env->langs, base);
  if (lang == NULL)
    return sp_proto_set_error (err, SP_ERR_UNSUPPORTED_LANGUAGE,
                               "field \"path\": cannot tell the language of \"%.200s\" from its "
                               "extension",
                               path);
  /* execution_config is checked before the file changes, too. */
  if (config != NULL
      && mcp_code_execution_config (env->options, call, config, lang->name, req, err) != 0)
    return -1;
  if (mcp_edit_file (env->options->workspace, path, edits, &req->code, &call->diff, err) != 0)
    return -1;
  req->language = xstrdup (lang->name);
  req->name = xstrdup (base);
  /* The file's directory is the run's cwd (the engine checks it is in the
   * workspace); Python also finds the modules beside it there. */
  if (req->cwd == NULL)
    req->cwd = slash ? xasprintf ("%s/%.*s", env->options->workspace, (int) (slash - path), path)
                     : xstrdup (env->options->workspace);
  if (strcmp (lang->name, "python") == 0)
    {
      size_t n = sp_strv_length (req->env);
      req->env = xrealloc (req->env, (n + 2) * sizeof *req->env);
      req->env[n] = xstrdup ("PYTHONPATH=.");
      req->env[n + 1] = NULL;
    }
  return 0;
}

const McpTool mcp_edit_and_execute_tool = {
  .name = "edit_and_execute",
  .offered = mcp_tool_with_workspace,
  .describe = describe,
  .parse = parse,
  .on_exited = mcp_tool_run_result,
  .directory_field = "path",
};
