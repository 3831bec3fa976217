/* mcp-tool.c: what the tools' rows (mcp-tool.h) share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcp-tool.h"

json_t *
mcp_tool_run_result (const McpReply *reply, McpCall *call, const SpExited *exited)
{
  return mcp_result_from_run (call, exited);
}

int
mcp_tool_get_timeout (json_t *args, int64_t *timeout_ms, SpProtoError *err)
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

json_t *
mcp_tool_literal (const char *text)
{
  json_t *value = json_loads (text, 0, NULL);

  if (value == NULL)
    abort (); /* a typo in a literal of a tool's file */
  return value;
}

bool
mcp_tool_always (const McpOptions *options)
{
  return true;
}

bool
mcp_tool_with_workspace (const McpOptions *options)
{
  return options->workspace != NULL;
}

bool
mcp_tool_with_environment (const McpOptions *options)
{
  return options->environment != NULL;
}

char *
mcp_working_directory (const McpOptions *options, const char *dir, char **why)
{
  const char *ws = options->workspace;

  if (ws == NULL)
    {
      *why = xstrdup ("working_directory: this server has no workspace (start it with "
                      "--workspace); runs get a fresh private directory");
      return NULL;
    }
  if (strlen (dir) > 1024)
    {
      *why = xstrdup ("working_directory: longer than 1024 bytes");
      return NULL;
    }
  if (dir[0] != '/')
    return dir[0] == '\0' ? xstrdup (ws) : xasprintf ("%s/%s", ws, dir);
  size_t n = strlen (ws);
  if (strncmp (dir, ws, n) == 0 && (dir[n] == '\0' || dir[n] == '/'))
    return xstrdup (dir);
  *why = xasprintf ("working_directory: \"%.200s\" is not inside the workspace %s", dir, ws);
  return NULL;
}
