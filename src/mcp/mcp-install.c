/* mcp-install.c: the install_packages tool.
 *
 * An assistant names packages; which index, which wheelhouse and which
 * policy apply are sandpad-mcp's command line (the person who configured
 * the server), never the call's. The install is runner-install.c's: pip
 * downloads in the sandbox with the network on and the environment
 * read-only, the runner checks the files, pip installs them with the
 * network off. The call is answered when the install ends. */
#include <stdio.h>
#include <string.h>

#include "mcp-tool.h"
#include "runner-install.h"
#include "sp-json.h"

struct McpInstallCall
{
  McpInstallCall *next;
  json_t *request_id;
  RunnerInstall *inst;
  McpInstallDone done; /* NULL: answer request_id */
  void (*free_data) (void *data);
  void *data;
};

static const char install_input[]
  = "{\"type\":\"object\",\"properties\":{"
    "\"packages\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":64,"
    "\"items\":{\"type\":\"string\",\"maxLength\":200},"
    "\"description\":\"requirement specs: a name, name==version, or a version range "
    "(name>=1.2); no options, paths or URLs\"}},"
    "\"required\":[\"packages\"],\"additionalProperties\":false}";

/* The literal beside the code that fills it (install_result below). */
static const char install_output[]
  = "{\"type\":\"object\",\"properties\":{"
    "\"status\":{\"type\":\"string\",\"enum\":[\"installed\",\"refused\",\"failed\"]},"
    "\"message\":{\"type\":\"string\",\"description\":\"what was installed, or the rule "
    "that refused it, or the step that failed\"},"
    "\"environment\":{\"type\":\"string\"},"
    "\"packages\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},\"version\":{\"type\":\"string\"},"
    "\"file\":{\"type\":\"string\"},\"sha256\":{\"type\":\"string\"},"
    "\"size\":{\"type\":\"integer\"}},"
    "\"required\":[\"name\",\"version\",\"file\",\"sha256\",\"size\"]}},"
    "\"log\":{\"type\":\"string\",\"description\":\"the install log\"},"
    "\"warnings\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"description\":\"new commands in the environment's bin/ that shadow common ones\"}},"
    "\"required\":[\"status\",\"message\",\"environment\",\"packages\"]}";

static json_t *
describe (const McpOptions *options)
{
  cleanup_free char *description = xasprintf (
    "Installs Python packages into the workspace's environment (%s) so that later "
    "execute_code and edit_and_execute runs can import them. pip downloads them in the "
    "sandbox (wheels only unless the server allows source distributions), Sandpad checks "
    "each file against the server's policy (allowed and blocked names, required "
    "name==version pins, a size cap), then pip installs exactly those files with the "
    "network off. Nothing of your code runs during an install; runs never change the "
    "environment. A refusal names the rule.",
    options->environment);
  return json_pack ("{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name", "install_packages",
                    "title", "Install Python packages into the workspace's environment",
                    "description", description, "inputSchema", mcp_tool_literal (install_input),
                    "outputSchema", mcp_tool_literal (install_output), "annotations",
                    "readOnlyHint", 0, "destructiveHint", 0, "openWorldHint", 1);
}

static json_t *
install_result (McpServer *server, RunnerInstall *inst, RunnerInstallState state)
{
  const char *status = state == RUNNER_INSTALL_DONE      ? "installed"
                       : state == RUNNER_INSTALL_REFUSED ? "refused"
                                                         : "failed";
  json_t *packages = json_array ();
  size_t n = 0;
  const RunnerInstallFile *files = runner_install_files (inst, &n);

  for (size_t i = 0; state == RUNNER_INSTALL_DONE && i < n; i++)
    json_array_append_new (packages,
                           json_pack ("{s:s, s:s, s:s, s:s, s:I}", "name", files[i].name, "version",
                                      files[i].version, "file", files[i].file, "sha256",
                                      files[i].sha256, "size", (json_int_t) files[i].size));
  json_t *structured = json_pack ("{s:s, s:s, s:s, s:o}", "status", status, "message",
                                  runner_install_message (inst), "environment",
                                  server->options->environment, "packages", packages);
  if (runner_install_log_path (inst) != NULL)
    json_object_set_new (structured, "log", json_string (runner_install_log_path (inst)));
  char *const *warnings = runner_install_warnings (inst);
  if (warnings[0] != NULL)
    {
      json_t *list = json_array ();
      for (size_t i = 0; warnings[i] != NULL; i++)
        json_array_append_new (list, json_string (warnings[i]));
      json_object_set_new (structured, "warnings", list);
    }
  return structured;
}

static json_t *
tool_result (json_t *structured, bool is_error)
{
  json_t *text = json_pack ("{s:s, s:s}", "type", "text", "text",
                            json_string_value (json_object_get (structured, "message")));

  return json_pack ("{s:[o], s:o, s:b}", "content", text, "structuredContent", structured,
                    "isError", is_error);
}

static void
answer (const McpReply *reply, const char *name, json_t *args)
{
  static const char *const allowed[] = { "packages", NULL };
  McpServer *server = reply->server;
  json_t *id = reply->id;
  const McpOptions *o = server->options;
  SpProtoError err = { 0 };
  char **packages = NULL;
  char msg[600];

  if (sp_json_check_fields (args, "arguments", allowed, &err) != 0
      || sp_json_get_strv (args, "packages", true, &packages, &err) != 0)
    {
      mcp_reply (reply, mcp_result_tool_error ("install_packages: %s", err.message));
      return;
    }
  if (packages == NULL || packages[0] == NULL || sp_strv_length (packages) > 64)
    {
      sp_strv_free (packages);
      mcp_reply (reply,
                 mcp_result_tool_error ("install_packages: field \"packages\" must hold 1 to 64 "
                                        "requirement specs"));
      return;
    }
  McpInstallCall *call = xcalloc (1, sizeof *call);
  char id_text[32];
  snprintf (id_text, sizeof id_text, "mcp-install-%llu", (unsigned long long) ++server->next_run);
  RunnerInstallRequest req = {
    .id = id_text,
    .environment = o->environment,
    .packages = packages,
    .index_url = o->index_url,
    .find_links = o->find_links,
    .policy = o->install_policy,
  };
  call->inst = runner_install_start (server->engine, &req, msg, sizeof msg);
  sp_strv_free (packages);
  if (call->inst == NULL)
    {
      json_t *structured = json_pack ("{s:s, s:s, s:s, s:[]}", "status", "refused", "message", msg,
                                      "environment", o->environment, "packages");
      mcp_reply (reply, tool_result (structured, true));
      free (call);
      return;
    }
  call->request_id = json_incref (id);
  call->next = server->installs;
  server->installs = call;
}

const McpTool mcp_install_tool = {
  .name = "install_packages",
  .offered = mcp_tool_with_environment,
  .describe = describe,
  .answer = answer,
};

bool
mcp_install_start_for (McpServer *server, char **packages, McpInstallDone done,
                       void (*free_data) (void *data), void *data, char *msg, size_t msg_len)
{
  const McpOptions *o = server->options;
  char id_text[32];

  snprintf (id_text, sizeof id_text, "mcp-install-%llu", (unsigned long long) ++server->next_run);
  RunnerInstallRequest req = {
    .id = id_text,
    .environment = o->environment,
    .packages = packages,
    .index_url = o->index_url,
    .find_links = o->find_links,
    .policy = o->install_policy,
  };
  RunnerInstall *inst = runner_install_start (server->engine, &req, msg, msg_len);
  if (inst == NULL)
    return false;
  McpInstallCall *call = xcalloc (1, sizeof *call);
  call->inst = inst;
  call->done = done;
  call->free_data = free_data;
  call->data = data;
  call->next = server->installs;
  server->installs = call;
  return true;
}

static void install_call_free (McpInstallCall *call);

bool
mcp_install_event (McpServer *server, const SpMessage *msg)
{
  for (McpInstallCall *call = server->installs; call != NULL; call = call->next)
    if (runner_install_event (call->inst, msg))
      return true;
  return false;
}

void
mcp_install_poll (McpServer *server)
{
  McpInstallCall **link = &server->installs;

  while (*link != NULL)
    {
      McpInstallCall *call = *link;
      RunnerInstallState state = runner_install_poll (call->inst);
      if (state == RUNNER_INSTALL_RUNNING)
        {
          link = &call->next;
          continue;
        }
      *link = call->next;
      if (call->done != NULL)
        {
          call->done (server, call->data, call->inst, state);
          call->data = NULL;
          install_call_free (call);
          continue;
        }
      json_t *structured = install_result (server, call->inst, state);
      mcp_send_result (server, call->request_id,
                       tool_result (structured, state != RUNNER_INSTALL_DONE));
      install_call_free (call);
    }
}

void
mcp_install_free_all (McpServer *server)
{
  while (server->installs != NULL)
    {
      McpInstallCall *call = server->installs;
      server->installs = call->next;
      install_call_free (call);
    }
}

static void
install_call_free (McpInstallCall *call)
{
  runner_install_free (call->inst);
  if (call->data != NULL && call->free_data != NULL)
    call->free_data (call->data);
  json_decref (call->request_id);
  free (call);
}
