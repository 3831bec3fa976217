/* mcp-sessions.c: the sessions an assistant can see and manage.
 *
 * The engine owns the interpreters; this file keeps what an assistant
 * needs to know about them, from the engine's own events: which ids have
 * a session, its language, how many calls ran in its current interpreter
 * (the execution count, Jupyter's In [n], which starts again at 1 in a
 * new interpreter), and why the last one ended. list_sessions reads it;
 * restart_session and close_session are the protocol's session_restart
 * and session_close. */
#include <stdio.h>
#include <string.h>

#include "mcp-tool.h"
#include "sp-json.h"

struct McpSession
{
  McpSession *next;
  char id[SP_PROTO_MAX_ID + 1];
  char language[16];
  int64_t count;      /* calls started in the current interpreter */
  bool alive;         /* an interpreter runs (or is starting) */
  SpSessionEnd ended; /* why the last one ended, while none runs */
};

static McpSession *
find (McpServer *server, const char *id)
{
  for (McpSession *s = server->sessions; s != NULL; s = s->next)
    if (strcmp (s->id, id) == 0)
      return s;
  return NULL;
}

void
mcp_sessions_started (McpServer *server, McpCall *call, const char *language, bool session_new)
{
  McpSession *s = find (server, call->session);

  if (s == NULL)
    {
      s = xcalloc (1, sizeof *s);
      snprintf (s->id, sizeof s->id, "%s", call->session);
      s->next = server->sessions;
      server->sessions = s;
    }
  snprintf (s->language, sizeof s->language, "%s", language ? language : "");
  /* The runner's count when it says it (a resident session another
   * server's calls ran in too), else ours. */
  if (call->execution_count > 0)
    s->count = call->execution_count;
  else
    s->count = session_new ? 1 : s->count + 1;
  s->alive = true;
  s->ended = SP_SESSION_END_NONE;
  call->execution_count = s->count;
}

void
mcp_sessions_ended (McpServer *server, const SpSessionRef *ref)
{
  McpSession *s = ref->session != NULL ? find (server, ref->session) : NULL;

  if (s == NULL)
    return;
  s->alive = false;
  s->ended = ref->reason;
}

void
mcp_sessions_free_all (McpServer *server)
{
  while (server->sessions != NULL)
    {
      McpSession *s = server->sessions;
      server->sessions = s->next;
      free (s);
    }
}

static bool
busy (McpServer *server, const char *id)
{
  for (McpCall *c = server->calls; c != NULL; c = c->next)
    if (strcmp (c->session, id) == 0)
      return true;
  return false;
}

static const char list_output[]
  = "{\"type\":\"object\",\"properties\":{\"sessions\":{\"type\":\"array\",\"items\":{"
    "\"type\":\"object\",\"properties\":{"
    "\"id\":{\"type\":\"string\"},"
    "\"language\":{\"type\":\"string\"},"
    "\"execution_count\":{\"type\":\"integer\",\"description\":\"calls run in its current "
    "interpreter (Jupyter's In [n]); 0 after a restart until the next call\"},"
    "\"alive\":{\"type\":\"boolean\",\"description\":\"its interpreter runs; when false the "
    "next call starts a new one\"},"
    "\"busy\":{\"type\":\"boolean\",\"description\":\"a call is running or queued in it\"},"
    "\"ended\":{\"type\":[\"string\",\"null\"],\"description\":\"why its last interpreter "
    "ended (exited, timeout, cancelled, limit, restart, idle, failed), null while alive\"}},"
    "\"required\":[\"id\",\"language\",\"execution_count\",\"alive\",\"busy\",\"ended\"]}}},"
    "\"required\":[\"sessions\"]}";

static const char end_output[]
  = "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\"},"
    "\"status\":{\"type\":\"string\",\"enum\":[\"restarted\",\"closed\"],\"description\":"
    "\"restarted: its interpreter is stopped and the next call starts a new one (execution "
    "count 1, no state); closed: the same, and the session is forgotten (calls queued for "
    "it end without running)\"}},\"required\":[\"session_id\",\"status\"]}";

static const char id_input[]
  = "{\"type\":\"object\",\"properties\":{\"session_id\":{\"type\":\"string\",\"minLength\":1,"
    "\"maxLength\":64,\"pattern\":\"^[!-~]+$\",\"description\":\"the execute_code "
    "session_id\"}},\"required\":[\"session_id\"],\"additionalProperties\":false}";

static json_t *
describe_list (const McpOptions *options)
{
  return json_pack ("{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name", "list_sessions",
                    "title", "List execute_code sessions", "description",
                    "Lists the sessions execute_code calls with a session_id have made: each "
                    "one's language, how many calls ran in its current interpreter (its execution "
                    "count), whether it is alive or busy, and why its last interpreter ended.",
                    "inputSchema",
                    mcp_tool_literal (
                      "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"),
                    "outputSchema", mcp_tool_literal (list_output), "annotations", "readOnlyHint",
                    1, "destructiveHint", 0, "openWorldHint", 0);
}

static json_t *
describe_restart (const McpOptions *options)
{
  return json_pack ("{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name", "restart_session",
                    "title", "Restart a session", "description",
                    "Stops a session's interpreter, losing its variables and imports; the next "
                    "execute_code call with its session_id starts a fresh one. A call running in "
                    "it ends (session.ended: restart).",
                    "inputSchema", mcp_tool_literal (id_input), "outputSchema",
                    mcp_tool_literal (end_output), "annotations", "readOnlyHint", 0,
                    "destructiveHint", 1, "openWorldHint", 0);
}

static json_t *
describe_close (const McpOptions *options)
{
  return json_pack ("{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b}}", "name", "close_session",
                    "title", "Close a session", "description",
                    "Stops a session's interpreter and forgets the session; calls queued for it "
                    "end without running. Its directory and state are gone.",
                    "inputSchema", mcp_tool_literal (id_input), "outputSchema",
                    mcp_tool_literal (end_output), "annotations", "readOnlyHint", 0,
                    "destructiveHint", 1, "openWorldHint", 0);
}

static json_t *
list_result (McpServer *server)
{
  json_t *sessions = json_array ();
  Buf text = { 0 };

  for (McpSession *s = server->sessions; s != NULL; s = s->next)
    {
      bool is_busy = busy (server, s->id);
      json_array_append_new (sessions,
                             json_pack ("{s:s, s:s, s:I, s:b, s:b, s:o}", "id", s->id, "language",
                                        s->language, "execution_count", (json_int_t) s->count,
                                        "alive", s->alive, "busy", is_busy, "ended",
                                        s->ended != SP_SESSION_END_NONE
                                          ? json_string (sp_session_end_to_string (s->ended))
                                          : json_null ()));
      char *line = xasprintf ("%s: %s, %s, execution count %lld%s%s\n", s->id, s->language,
                              s->alive ? "alive" : "no interpreter", (long long) s->count,
                              is_busy ? ", busy" : "",
                              s->ended != SP_SESSION_END_NONE ? ", last ended: " : "");
      buf_append (&text, line, strlen (line));
      if (s->ended != SP_SESSION_END_NONE)
        {
          const char *why = sp_session_end_to_string (s->ended);
          text.len--; /* before the newline */
          buf_append (&text, why, strlen (why));
          buf_append (&text, "\n", 1);
        }
      free (line);
    }
  if (text.len == 0)
    buf_append (&text, "No sessions.\n", strlen ("No sessions.\n"));
  buf_append (&text, "", 1);
  json_t *result = json_pack ("{s:[{s:s, s:s}], s:{s:o}, s:b}", "content", "type", "text", "text",
                              text.data, "structuredContent", "sessions", sessions, "isError", 0);
  buf_clear (&text);
  return result;
}

static void
answer_list (const McpReply *reply, const char *tool, json_t *args)
{
  static const char *const none[] = { NULL };
  SpProtoError err = { 0 };

  if (sp_json_check_fields (args, "arguments", none, &err) != 0)
    mcp_reply (reply, mcp_result_tool_error ("%s: %s", tool, err.message));
  else
    mcp_reply (reply, list_result (reply->server));
}

/* restart_session's and close_session's answer (the row's name says
 * which). */
static void
answer_end (const McpReply *reply, const char *tool, json_t *args)
{
  McpServer *server = reply->server;
  bool restart = strcmp (tool, "restart_session") == 0;
  SpProtoError err = { 0 };
  static const char *const with_id[] = { "session_id", NULL };
  cleanup_free char *session = NULL;
  if (sp_json_check_fields (args, "arguments", with_id, &err) != 0
      || sp_json_get_string (args, "session_id", true, &session, &err) != 0)
    {
      mcp_reply (reply, mcp_result_tool_error ("%s: %s", tool, err.message));
      return;
    }
  McpSession *s = find (server, session);
  if (s == NULL)
    {
      mcp_reply (reply, mcp_result_tool_error ("%s: no session \"%.64s\" (list_sessions shows "
                                               "them)",
                                               tool, session));
      return;
    }
  /* The engine may already have forgotten an ended one; ours is what the
   * assistant sees, and it is reset either way. */
  SpMessage msg = { .type = restart ? SP_MSG_SESSION_RESTART : SP_MSG_SESSION_CLOSE,
                    .u.session = { .session = session } };
  /* A resident session is the resident runner's to end (its answer,
   * session_ended, comes as an event). */
  if (server->resident != NULL)
    {
      if (!mcp_resident_send (server->resident, &msg))
        {
          mcp_reply (reply, mcp_result_tool_error ("%s: the resident runner is not connected; "
                                                   "its sessions ended with it",
                                                   tool));
          return;
        }
    }
  else if (runner_engine_request (server->engine, &msg, session, &err) != 0
           && err.code != SP_ERR_UNKNOWN_SESSION)
    {
      mcp_reply (reply, mcp_result_tool_error ("%s: %s", tool, err.message));
      return;
    }
  const char *status = restart ? "restarted" : "closed";
  char *line = xasprintf ("Session %s %s: its state is gone; %s\n", session, status,
                          restart ? "the next call with it starts a new interpreter."
                                  : "a call with its id starts a new session.");
  mcp_reply (reply, json_pack ("{s:[{s:s, s:s}], s:{s:s, s:s}, s:b}", "content", "type", "text",
                               "text", line, "structuredContent", "session_id", session, "status",
                               status, "isError", 0));
  free (line);
  if (restart)
    {
      s->count = 0;
      s->alive = false;
      s->ended = SP_SESSION_END_RESTART;
    }
  else
    for (McpSession **link = &server->sessions; *link != NULL; link = &(*link)->next)
      if (*link == s)
        {
          *link = s->next;
          free (s);
          break;
        }
}

const McpTool mcp_list_sessions_tool = {
  .name = "list_sessions",
  .offered = mcp_tool_always,
  .describe = describe_list,
  .answer = answer_list,
};

const McpTool mcp_restart_session_tool = {
  .name = "restart_session",
  .offered = mcp_tool_always,
  .describe = describe_restart,
  .answer = answer_end,
};

const McpTool mcp_close_session_tool = {
  .name = "close_session",
  .offered = mcp_tool_always,
  .describe = describe_close,
  .answer = answer_end,
};
