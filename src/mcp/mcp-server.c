/* mcp-server.c: JSON-RPC 2.0 over stdio in front of the runner's engine.
 *
 * Framing is the runner's own reader (one message per line, a hard cap
 * that never buffers an oversize line, NUL bytes refused). Each line is
 * parsed on its own, so a bad one gets its error and the next one is
 * served as if nothing happened. */
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "config.h"
#include "mcp-server.h"
#include "sp-frame.h"

/* A tools/call carries the code, as the runner's run request does: the
 * same cap, plus room for the JSON-RPC envelope. */
#define MCP_MAX_LINE (SP_PROTO_MAX_FRAME + 64 * 1024)
/* After the client leaves, how long runs get to die before we give up. */
#define SHUTDOWN_NS (5 * INT64_C (1000000000))

static void
flush_out (McpServer *server)
{
  /* As sandpad-runner does: a client that reads slowly slows the runs. */
  if (runner_outbox_flush (&server->out, server->engine))
    server->stopping = true;
}

void
mcp_send (McpServer *server, json_t *message)
{
  /* Compact JSON escapes every newline inside strings, so this is one
   * line; strings we put in are valid UTF-8 (the engine sanitizes output). */
  char *line = json_dumps (message, JSON_COMPACT);

  json_decref (message);
  if (line == NULL)
    {
      line = xstrdup ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
                      "\"params\":{\"level\":\"error\",\"data\":\"sandpad-mcp could not "
                      "encode a message\"}}");
    }
  buf_append (&server->out.buf, line, strlen (line));
  buf_append (&server->out.buf, "\n", 1);
  free (line);
  flush_out (server);
}

void
mcp_send_result (McpServer *server, json_t *id, json_t *result)
{
  mcp_send (server, json_pack ("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result));
}

void
mcp_send_error (McpServer *server, json_t *id, int code, const char *fmt, ...)
{
  char message[512];
  va_list args;

  va_start (args, fmt);
  vsnprintf (message, sizeof message, fmt, args);
  va_end (args);
  /* A message cut inside a character would not be valid UTF-8. */
  json_t *text = json_string (message);
  if (text == NULL)
    text = json_string ("invalid request");
  mcp_send (server,
            json_pack ("{s:s, s:O, s:{s:i, s:o}}", "jsonrpc", "2.0", "id",
                       id != NULL ? id : json_null (), "error", "code", code, "message", text));
}

static void
handle_initialize (McpServer *server, json_t *id, json_t *params)
{
  json_t *version = params ? json_object_get (params, "protocolVersion") : NULL;

  if (!json_is_string (version))
    {
      mcp_send_error (server, id, MCP_INVALID_PARAMS,
                      "initialize needs params.protocolVersion (a string)");
      return;
    }
  /* Version negotiation: echo a revision we speak, else offer our newest
   * and let the client decide whether it can use it. */
  const char *asked = json_string_value (version);
  const char *chosen = strcmp (asked, MCP_PROTOCOL_OLDER) == 0 ? MCP_PROTOCOL_OLDER
                                                               : MCP_PROTOCOL_LATEST;
  free (server->protocol);
  server->protocol = xstrdup (chosen);

  /* A client is here: the warm interpreter starts importing now, as the
   * runner's does on hello, so a server only listed costs nothing. */
  runner_engine_prewarm (server->engine);
  SpReady ready = { 0 };
  runner_engine_describe (server->engine, &ready);
  char *instructions = xasprintf (
    "Runs code in Sandpad's kernel sandbox (%s mode): %s, no view of the host "
    "beyond what each tool describes, time and memory limits. A non-zero exit is a normal "
    "result; read structuredContent.end for how the run ended.",
    ready.sandbox.mode,
    server->options->allow_network ? "network allowed by this server" : "no network");
  SpMessage clear = { .type = SP_MSG_READY, .u.ready = ready };
  sp_message_clear (&clear);

  mcp_send_result (server, id,
                   json_pack ("{s:s, s:{s:{s:b}}, s:{s:s, s:s, s:s}, s:s}", "protocolVersion",
                              chosen, "capabilities", "tools", "listChanged", 0, "serverInfo",
                              "name", "sandpad-mcp", "title", "Sandpad", "version", PACKAGE_VERSION,
                              "instructions", instructions));
  free (instructions);
}

static void
handle_cancelled (McpServer *server, json_t *params)
{
  json_t *request = params ? json_object_get (params, "requestId") : NULL;

  if (request == NULL)
    return; /* a notification gets no answer, not even an error */
  /* Run ids first: cancelling a queued run ends it at once, and its
   * exited event frees the call while we would still be walking the list. */
  char **ids = NULL;
  size_t n = 0;
  for (McpCall *call = server->calls; call != NULL; call = call->next)
    if (json_equal (call->request_id, request))
      {
        ids = xrealloc (ids, (n + 1) * sizeof *ids);
        ids[n++] = xstrdup (call->run_id);
      }
  /* Interrupt, then terminate and kill after the engine's grace, which
   * sandpad-mcp keeps short; the call still answers, with end
   * "cancelled", when the run has exited. */
  for (size_t i = 0; i < n; i++)
    {
      mcp_server_cancel (server, ids[i]);
      free (ids[i]);
    }
  free (ids);
}

static void
handle_request (McpServer *server, json_t *id, const char *method, json_t *params)
{
  if (params != NULL && !json_is_object (params))
    {
      mcp_send_error (server, id, MCP_INVALID_PARAMS, "params must be an object");
      return;
    }
  if (strcmp (method, "initialize") == 0)
    handle_initialize (server, id, params);
  else if (strcmp (method, "ping") == 0)
    mcp_send_result (server, id, json_object ());
  else if (strcmp (method, "tools/list") == 0)
    mcp_send_result (server, id,
                     json_pack ("{s:o}", "tools", server->handlers->tools_list (server->options)));
  else if (strcmp (method, "tools/call") == 0)
    server->handlers->tools_call (server, id, params);
  else
    mcp_send_error (server, id, MCP_METHOD_NOT_FOUND, "method \"%.64s\" not found", method);
}

static void
handle_notification (McpServer *server, const char *method, json_t *params)
{
  if (params != NULL && !json_is_object (params))
    return;
  if (strcmp (method, "notifications/cancelled") == 0)
    handle_cancelled (server, params);
  /* notifications/initialized and anything else need nothing from us. */
}

static void
handle_line (McpServer *server, const char *line, size_t len)
{
  json_error_t jerr;
  size_t blank = 0;

  while (blank < len && (line[blank] == ' ' || line[blank] == '\t' || line[blank] == '\r'))
    blank++;
  if (blank == len)
    return; /* a blank line is no message */
  /* Duplicate keys are refused: two "id"s must not mean the last one.
   * Any JSON value parses, so a bare 42 is an invalid request, not
   * unparseable. */
  json_t *msg = json_loadb (line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);

  if (msg == NULL)
    {
      mcp_send_error (server, NULL, MCP_PARSE_ERROR, "parse error: %s", jerr.text);
      return;
    }
  if (!json_is_object (msg))
    {
      /* Batches left JSON-RPC over MCP in 2025-06-18. */
      mcp_send_error (server, NULL, MCP_INVALID_REQUEST, "a message must be a JSON object");
      json_decref (msg);
      return;
    }

  json_t *id = json_object_get (msg, "id");
  json_t *method = json_object_get (msg, "method");
  json_t *version = json_object_get (msg, "jsonrpc");
  bool id_ok = id == NULL || json_is_string (id) || json_is_integer (id);

  if (!id_ok)
    mcp_send_error (server, NULL, MCP_INVALID_REQUEST, "id must be a string or an integer");
  else if (!json_is_string (version) || strcmp (json_string_value (version), "2.0") != 0)
    mcp_send_error (server, id, MCP_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
  else if (method == NULL && id != NULL
           && (json_object_get (msg, "result") != NULL || json_object_get (msg, "error") != NULL))
    ; /* a response; we send no requests, so there is nothing to match */
  else if (!json_is_string (method))
    mcp_send_error (server, id, MCP_INVALID_REQUEST, "method must be a string");
  else if (id == NULL)
    handle_notification (server, json_string_value (method), json_object_get (msg, "params"));
  else
    handle_request (server, id, json_string_value (method), json_object_get (msg, "params"));
  json_decref (msg);
}

static void
on_input (void *data, int fd, uint32_t events)
{
  McpServer *server = data;
  char buf[65536];
  ssize_t n = read (fd, buf, sizeof buf);

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n <= 0)
    {
      /* The client is done sending; calls already made still run to
       * their end and are answered (SIGTERM stops them sooner). */
      server->input_closed = true;
      runner_loop_unwatch (runner_engine_get_loop (server->engine), server->in_watch);
      server->in_watch = NULL;
      return;
    }
  sp_frame_reader_feed (server->reader, buf, (size_t) n);
  for (;;)
    {
      const char *frame;
      size_t len;
      SpProtoError err = { 0 };
      int rc = sp_frame_reader_next (server->reader, &frame, &len, &err);

      if (rc == 0)
        break;
      if (rc < 0)
        mcp_send_error (server, NULL, MCP_PARSE_ERROR, "%s", err.message);
      else
        handle_line (server, frame, len);
    }
}

static void
on_output_ready (void *data, int fd, uint32_t events)
{
  McpServer *server = data;

  if (events & EPOLLERR)
    {
      server->out.broken = true;
      server->stopping = true;
      buf_clear (&server->out.buf);
    }
  flush_out (server);
}

static McpCall *
find_call (McpServer *server, const char *run_id)
{
  for (McpCall *call = server->calls; call != NULL; call = call->next)
    if (strcmp (call->run_id, run_id) == 0)
      return call;
  return NULL;
}

/* Progress carries the output itself, so a client can show it as it
 * comes; capped per call, since the final result has it anyway. */
#define PROGRESS_MAX_BYTES (256 * 1024)

static void
send_progress (McpServer *server, McpCall *call, SpStream stream, const char *data)
{
  size_t len = strlen (data);

  call->progress += (int64_t) len;
  if (call->progress_token == NULL || len == 0 || call->progress_sent >= PROGRESS_MAX_BYTES)
    return;
  call->progress_sent += (int64_t) len;
  json_t *text = json_string (data);
  if (text == NULL)
    return;
  /* Which stream it is, under _meta with our prefix (the MCP spec's rule
   * for a vendor's keys): clients that do not know it ignore it. */
  mcp_send (server, json_pack ("{s:s, s:s, s:{s:O, s:I, s:o, s:{s:s}}}", "jsonrpc", "2.0", "method",
                               "notifications/progress", "params", "progressToken",
                               call->progress_token, "progress", (json_int_t) call->progress,
                               "message", text, "_meta", "io.github.sandpad/stream",
                               stream == SP_STREAM_STDERR ? "stderr" : "stdout"));
}

void
mcp_call_free (McpCall *call)
{
  if (call == NULL)
    return;
  json_decref (call->request_id);
  json_decref (call->progress_token);
  mcp_capture_clear (&call->out[0]);
  mcp_capture_clear (&call->out[1]);
  sp_sandbox_info_clear (&call->sandbox);
  free (call->diff);
  json_decref (call->input);
  json_decref (call->displays);
  runner_input_files_free (call->input_files, call->n_input_files);
  free (call->workspace_dir);
  json_decref (call->installed);
  if (call->cx != NULL && call->cx_free != NULL)
    call->cx_free (call->cx);
  free (call);
}

static void
finish_call (McpServer *server, McpCall *call, const SpExited *exited)
{
  McpCall **link = &server->calls;

  while (*link != call)
    link = &(*link)->next;
  if (call->resident)
    {
      /* The runner keeps an exited run until it is released. */
      SpMessage release = { .type = SP_MSG_RELEASE, .u.ref = { .id = (char *) exited->id } };
      mcp_resident_send (server->resident, &release);
    }
  /* The call's tool makes its result; a tool with a pipeline of its own
   * (code_execution) answers, or goes on, by itself and gives none. */
  McpReply reply
    = { .server = server, .id = call->request_id, .progress_token = call->progress_token };
  bool resident = call->resident;
  json_t *result = call->on_exited (&reply, call, exited);
  if (result == NULL)
    {
      server->to_release = xrealloc (server->to_release,
                                     (server->n_release + 1) * sizeof *server->to_release);
      server->to_release[server->n_release++] = xstrdup (exited->id);
      return;
    }
  *link = call->next;
  mcp_journal_record (&server->journal, call->tool, call->input,
                      json_object_get (result, "structuredContent"));
  mcp_activity_ended (server, call, json_object_get (result, "structuredContent"));
  mcp_send_result (server, call->request_id, result);
  /* The engine is inside its own bookkeeping for this run: release it
   * once it returns to us, not from here. */
  if (!resident)
    {
      server->to_release = xrealloc (server->to_release,
                                     (server->n_release + 1) * sizeof *server->to_release);
      server->to_release[server->n_release++] = xstrdup (call->run_id);
    }
  mcp_call_free (call);
}

void
mcp_reply (const McpReply *reply, json_t *result)
{
  mcp_send_result (reply->server, reply->id, result);
}

void
mcp_server_cancel (McpServer *server, const char *run_id)
{
  if (server->resident != NULL && mcp_resident_has_run (server->resident, run_id))
    {
      SpMessage cancel = { .type = SP_MSG_CANCEL, .u.ref = { .id = (char *) run_id } };
      mcp_resident_send (server->resident, &cancel);
      return;
    }
  runner_engine_cancel (server->engine, run_id, NULL);
}

static void
on_event (void *data, const SpMessage *msg)
{
  McpServer *server = data;
  McpCall *call;

  if (server->handlers->install_event (server, msg))
    return;
  switch (msg->type)
    {
    case SP_MSG_STARTED:
      if ((call = find_call (server, msg->u.started.id)) != NULL)
        {
          sp_sandbox_info_copy (&call->sandbox, &msg->u.started.sandbox);
          call->timeout_ms = msg->u.started.timeout_ms;
          call->memory_mib = msg->u.started.memory_mib;
          call->output_limit = msg->u.started.output_limit;
          call->started_t_ms = msg->u.started.t_ms;
          if (!call->internal)
            mcp_activity_started (server, call);
          call->session_new = msg->u.started.session_new;
          call->execution_count = msg->u.started.execution_count;
          if (call->session[0] != '\0')
            server->handlers->session_started (server, call, call->language, call->session_new);
        }
      break;
    case SP_MSG_OUTPUT:
      if ((call = find_call (server, msg->u.output.id)) != NULL)
        {
          const char *chunk = msg->u.output.data ? msg->u.output.data : "";
          if (call->drop_output)
            break;
          mcp_capture_append (&call->out[msg->u.output.stream], chunk, strlen (chunk));
          if (call->internal)
            break;
          send_progress (server, call, msg->u.output.stream, chunk);
          mcp_activity_output (server, call, msg->u.output.stream, chunk);
        }
      break;
    case SP_MSG_DISPLAY:
      if ((call = find_call (server, msg->u.display.id)) != NULL)
        mcp_result_add_display (call, &msg->u.display);
      break;
    case SP_MSG_OUTPUT_OMITTED:
      if ((call = find_call (server, msg->u.omitted.id)) != NULL && !call->drop_output)
        mcp_capture_omitted (&call->out[msg->u.omitted.stream], &msg->u.omitted);
      break;
    case SP_MSG_SESSION_ENDED:
      server->handlers->session_ended (server, &msg->u.session);
      break;
    case SP_MSG_EXITED:
      if ((call = find_call (server, msg->u.exited.id)) != NULL)
        finish_call (server, call, &msg->u.exited);
      break;
    default:
      break;
    }
}

static void
on_quit (void *data, int signo)
{
  McpServer *server = data;
  server->stopping = true;
}

static void
release_finished (McpServer *server)
{
  for (size_t i = 0; i < server->n_release; i++)
    {
      runner_engine_release (server->engine, server->to_release[i], NULL);
      free (server->to_release[i]);
    }
  server->n_release = 0;
}

int
mcp_server_run (const RunnerConfig *config, RunnerLanguages *langs, const McpOptions *options,
                const McpHandlers *handlers, int in_fd, int out_fd)
{
  McpServer server = { .in_fd = in_fd,
                       .out = { .fd = out_fd },
                       .options = options,
                       .langs = langs,
                       .handlers = handlers };
  RunnerSink sink = { .event = on_event, .quit = on_quit };

  set_nonblocking (in_fd, true);
  set_nonblocking (out_fd, true);
  server.reader = sp_frame_reader_new (MCP_MAX_LINE);
  mcp_journal_init (&server.journal, options->journal_dir, options->journal_max);
  server.engine = runner_engine_new (config, langs, &sink, &server);

  RunnerLoop *loop = runner_engine_get_loop (server.engine);
  if (options->resident_sessions)
    server.resident = mcp_resident_new (loop, on_event, &server);
  server.in_watch = runner_loop_watch (loop, in_fd, EPOLLIN, on_input, &server);
  server.out.watch = runner_loop_watch (loop, out_fd, 0, on_output_ready, &server);
  /* A regular file cannot be watched: read it whole now, and write to
   * one with blocking writes (flush_out copes with both). */
  if (server.in_watch == NULL)
    {
      set_nonblocking (in_fd, false);
      while (!server.input_closed)
        on_input (&server, in_fd, EPOLLIN);
    }

  while (!server.stopping
         && !(server.input_closed && server.calls == NULL && server.installs == NULL
              && server.pending_code == NULL))
    {
      /* While runs go, wake now and then for the app's Stop requests
       * (mcp-activity.c); idle, sleep until something happens. */
      if (runner_engine_iterate (server.engine, server.calls != NULL ? MCP_CANCEL_POLL_MS : -1)
          != 0)
        break;
      release_finished (&server);
      char **stops = mcp_activity_take_cancels (&server);
      for (size_t i = 0; stops != NULL && stops[i] != NULL; i++)
        mcp_server_cancel (&server, stops[i]);
      sp_strv_free (stops);
      server.handlers->install_poll (&server);
    }

  /* The client left: stop every run and let their answers go out while
   * it may still read, then clean up. */
  runner_engine_kill_all (server.engine);
  int64_t give_up = now_ns () + SHUTDOWN_NS;
  while (
    (runner_engine_active (server.engine) > 0 || (server.out.buf.len > 0 && !server.out.broken))
    && now_ns () < give_up)
    {
      if (runner_engine_iterate (server.engine, 100) != 0)
        break;
      release_finished (&server);
    }

  /* An install still going is cancelled and its files removed. */
  server.handlers->install_free_all (&server);
  server.handlers->sessions_free_all (&server);
  runner_loop_unwatch (loop, server.in_watch);
  runner_loop_unwatch (loop, server.out.watch);
  server.out.watch = NULL;
  while (server.calls != NULL)
    {
      McpCall *call = server.calls;
      server.calls = call->next;
      mcp_call_free (call);
    }
  while (server.pending_code != NULL)
    {
      McpCall *call = server.pending_code;
      server.pending_code = call->next;
      mcp_call_free (call);
    }
  mcp_resident_free (server.resident);
  runner_engine_free (server.engine);
  free (server.to_release);
  mcp_journal_clear (&server.journal);
  free (server.protocol);
  sp_frame_reader_free (server.reader);
  buf_clear (&server.out.buf);
  return 0;
}
