/* mcp-tools.c: the tools an assistant sees, and tools/call.
 *
 * Every tool is a row (mcp-tool.h) defined beside its code; this file is
 * their table, in the order tools/list shows them, and what a call goes
 * through: found by name in the table, then either answered by the row's
 * own answer(), or, for a tool that is one run, its arguments parsed into
 * a request by the row (each refusal names the field, as an isError
 * result the model can read and correct), a Python snippet's declared
 * dependencies installed, and the request handed to the engine; the
 * call's row turns the run's exited event into the result. */
#include <stdio.h>
#include <string.h>

#include "mcp-tool.h"
#include "runner-pep723.h"

/* In the order tools/list shows them; a row not offered by this server
 * (no workspace, no environment) is neither listed nor answered. */
static const McpTool *const tool_table[] = {
  &mcp_execute_code_tool,     /* mcp-execute-code.c */
  &mcp_code_execution_tool,   /* mcp-code-execution.c */
  &mcp_list_sessions_tool,    /* mcp-sessions.c */
  &mcp_restart_session_tool,  /* mcp-sessions.c */
  &mcp_close_session_tool,    /* mcp-sessions.c */
  &mcp_execute_command_tool,  /* mcp-execute-command.c */
  &mcp_edit_and_execute_tool, /* mcp-edit-and-execute.c */
  &mcp_install_tool,          /* mcp-install.c */
};

static json_t *
tools_list (const McpOptions *options)
{
  json_t *tools = json_array ();

  for (size_t i = 0; i < N_ELEMENTS (tool_table); i++)
    if (tool_table[i]->offered (options))
      json_array_append_new (tools, tool_table[i]->describe (options));
  return tools;
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
submit_call (McpServer *server, const McpTool *tool, McpCall *call, SpRun *req,
             RunnerRunOptions *options)
{
  SpProtoError err = { 0 };

  req->id = xstrdup (call->run_id);
  snprintf (call->language, sizeof call->language, "%s", req->language ? req->language : "");
  req->network = server->options->allow_network;
  add_server_env (server->options, req);
  req->return_base64 = true; /* plots travel inline: the directory goes away */
  req->return_files = true;  /* and the files it made, as resources */
  if (req->cwd != NULL)
    call->workspace_dir = xstrdup (req->cwd);
  /* Python runs import the workspace's environment, read-only (a
   * command's row has set its own). */
  const char *environment = server->options->environment;
  if (environment != NULL && req->environment == NULL && req->language != NULL
      && strcmp (req->language, "python") == 0)
    req->environment = xstrdup (environment);
  options->input_files = call->input_files;
  options->n_input_files = call->n_input_files;
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
  if (runner_engine_submit_with (server->engine, req, options, &err) == 0)
    return; /* answered from the exited event; call may be gone already */
  server->calls = call->next;
  /* The engine speaks of its "cwd" and its --allow-cwd; the model
   * asked for a work_dir (or a file) in the workspace. */
  if (tool->directory_field != NULL && strstr (err.message, "\"cwd\"") != NULL)
    sp_proto_set_error (&err, SP_ERR_INVALID_VALUE,
                        "field \"%s\" must name a directory inside the workspace, owned "
                        "by the runs' uid (symlinks and \"..\" are resolved first)",
                        tool->directory_field);
  fail_call (server, call, req, &err);
}

/* A call waiting for its snippet's declared dependencies. */
typedef struct
{
  const McpTool *tool;
  McpCall *call;
  SpRun req;
  RunnerRunOptions options;
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
  RunnerRunOptions options = wait->options;
  const McpTool *tool = wait->tool;
  free (wait);
  submit_call (server, tool, call, &req, &options);
}

/* 0: nothing declared, run now; 1: an install started, the run follows
 * it; -1 with *err: refused, nothing installed. */
static int
install_declared (McpServer *server, const McpTool *tool, McpCall *call, SpRun *req,
                  const RunnerRunOptions *options, SpProtoError *err)
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
  wait->tool = tool;
  wait->call = call;
  wait->req = *req;
  wait->options = *options;
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

/* A call of a tool that is one run: parsed by its row, then run. */
static void
call_run (McpServer *server, const McpTool *tool, json_t *id, json_t *args, json_t *token)
{
  McpCall *call = xcalloc (1, sizeof *call);
  McpToolEnv env = { .options = server->options, .langs = server->langs };
  RunnerRunOptions options = { 0 };
  SpProtoError err = { 0 };
  SpRun req = { 0 };

  call->request_id = json_incref (id);
  if (json_is_string (token) || json_is_integer (token))
    call->progress_token = json_incref (token);
  snprintf (call->run_id, sizeof call->run_id, "mcp-%llu", (unsigned long long) ++server->next_run);
  /* The journal keeps what was asked (mcp_journal_input leaves out what
   * it must not keep: file contents, variables' values). */
  call->tool = tool->name;
  call->input = json_deep_copy (args);
  call->on_exited = tool->on_exited;
  if (tool->parse (&env, call, args, &req, &options, &err) != 0)
    {
      fail_call (server, call, &req, &err);
      return;
    }
  /* A snippet's declared dependencies go in first (runner-pep723.c). */
  if (tool->installs_declared && strcmp (req.language, "python") == 0)
    {
      int declared = install_declared (server, tool, call, &req, &options, &err);
      if (declared < 0)
        fail_call (server, call, &req, &err);
      if (declared != 0)
        return;
    }
  submit_call (server, tool, call, &req, &options);
}

static void
tools_call (McpServer *server, json_t *id, json_t *params)
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
    if (strcmp (json_string_value (name), tool_table[i]->name) == 0
        && tool_table[i]->offered (server->options))
      tool = tool_table[i];
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
  if (tool->answer != NULL)
    {
      McpReply reply = { .server = server, .id = id, .progress_token = token };
      tool->answer (&reply, tool->name, given);
    }
  else
    call_run (server, tool, id, given, token);
  json_decref (given);
}

const McpHandlers mcp_tools_handlers = {
  .tools_list = tools_list,
  .tools_call = tools_call,
  .install_event = mcp_install_event,
  .install_poll = mcp_install_poll,
  .install_free_all = mcp_install_free_all,
  .session_started = mcp_sessions_started,
  .session_ended = mcp_sessions_ended,
  .sessions_free_all = mcp_sessions_free_all,
};
