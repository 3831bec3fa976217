/* test-mcp-wire.c: sandpad-mcp's framing and JSON-RPC error paths, in
 * process, so the sanitizer build watches every byte of it.
 *
 * The server is the real one (mcp_server_run with the real engine); only
 * the transport is a file or a pipe instead of a client. Each message
 * under test is followed by a ping with its own id, a sentinel: the
 * answers between two sentinels belong to that message, so a message
 * that must get no answer (a notification, a response) is checked as
 * strictly as one that must get an error. After every garbage line the
 * sentinel's answer shows the server is still serving. */
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../protocol/tap.h"
#include "mcp-server.h"

#define NO_ANSWER 1 /* no reply at all */
#define RESULT 0    /* a result, not an error */

typedef struct
{
  const char *what;
  const char *line; /* sent as is, then "\n" */
  size_t len;       /* 0: strlen (line) */
  int code;         /* JSON-RPC error code, RESULT or NO_ANSWER */
  const char *id;   /* the id the reply must carry, as JSON; NULL: null */
} Case;

static const Case cases[] = {
  { "unparseable JSON", "{not json", 0, MCP_PARSE_ERROR, NULL },
  { "truncated object", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", 0, MCP_PARSE_ERROR,
    NULL },
  { "duplicate keys", "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}", 0,
    MCP_PARSE_ERROR, NULL },
  { "invalid UTF-8 in a string", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"ping\"}", 0,
    MCP_PARSE_ERROR, NULL },
  { "NUL byte inside the line", "{\"jsonrpc\":\"2.0\",\0\"id\":1,\"method\":\"ping\"}", 42,
    MCP_PARSE_ERROR, NULL },
  { "a bare number", "42", 0, MCP_INVALID_REQUEST, NULL },
  { "a batch", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", 0, MCP_INVALID_REQUEST,
    NULL },
  { "id is a float", "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", 0, MCP_INVALID_REQUEST,
    NULL },
  { "id is an object", "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", 0,
    MCP_INVALID_REQUEST, NULL },
  { "no jsonrpc member", "{\"id\":3,\"method\":\"ping\"}", 0, MCP_INVALID_REQUEST, "3" },
  { "jsonrpc 1.0", "{\"jsonrpc\":\"1.0\",\"id\":\"v\",\"method\":\"ping\"}", 0, MCP_INVALID_REQUEST,
    "\"v\"" },
  { "method is a number", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":7}", 0, MCP_INVALID_REQUEST,
    "4" },
  { "unknown method", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/list\"}", 0,
    MCP_METHOD_NOT_FOUND, "5" },
  { "params is an array", "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":[]}", 0,
    MCP_INVALID_PARAMS, "6" },
  { "initialize without a version",
    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":{}}", 0, MCP_INVALID_PARAMS,
    "7" },
  { "tools/call without a name",
    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{}}", 0, MCP_INVALID_PARAMS,
    "8" },
  { "tools/call of an unknown tool",
    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"rm\"}}", 0,
    MCP_INVALID_PARAMS, "9" },
  { "execute_command without a workspace",
    "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":"
    "{\"name\":\"execute_command\",\"arguments\":{\"command\":\"true\"}}}",
    0, MCP_INVALID_PARAMS, "10" },
  { "arguments is a string",
    "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":"
    "{\"name\":\"execute_code\",\"arguments\":\"print(1)\"}}",
    0, MCP_INVALID_PARAMS, "11" },
  { "a notification gets no answer",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", 0, NO_ANSWER, NULL },
  { "an unknown notification gets no answer",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\",\"params\":[1]}", 0, NO_ANSWER,
    NULL },
  { "cancelling an unknown request gets no answer",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
    "{\"requestId\":\"nobody\"}}",
    0, NO_ANSWER, NULL },
  { "a response gets no answer", "{\"jsonrpc\":\"2.0\",\"id\":12,\"result\":{}}", 0, NO_ANSWER,
    NULL },
  { "a blank line gets no answer", "   \t", 0, NO_ANSWER, NULL },
  { "CRLF line ending", "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\"}\r", 0, RESULT, "13" },
  { "initialize 2025-06-18",
    "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"initialize\",\"params\":"
    "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
    "\"version\":\"1\"}}}",
    0, RESULT, "14" },
  { "tools/list", "{\"jsonrpc\":\"2.0\",\"id\":\"list\",\"method\":\"tools/list\"}", 0, RESULT,
    "\"list\"" },
  /* A run that cannot happen is a result with isError, checked below. */
  { "execute_code without code",
    "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"tools/call\",\"params\":"
    "{\"name\":\"execute_code\",\"arguments\":{\"language\":\"python\"}}}",
    0, RESULT, "15" },
};
#define N_CASES (sizeof cases / sizeof cases[0])

static int
temp_file (void)
{
  char path[] = "/tmp/sandpad-mcp-wire-XXXXXX";
  int fd = mkstemp (path);

  if (fd >= 0)
    unlink (path);
  return fd;
}

/* Runs the real server over in_fd until EOF; its answers come back as an
 * array of parsed messages (a line that does not parse is a failure). */
static json_t *
serve (int in_fd)
{
  RunnerConfig config;
  RunnerLanguages langs;
  McpOptions options = { .journal_max = 0 };
  int out_fd = temp_file ();

  runner_config_init (&config);
  runner_langs_init (&langs);
  mcp_filters_init (&options.filters);
  int status = mcp_server_run (&config, &langs, &options, &mcp_tools_handlers, in_fd, out_fd);
  ok (status == 0, "the server ends cleanly at EOF");
  runner_langs_clear (&langs);
  mcp_filters_clear (&options.filters);

  json_t *answers = json_array ();
  off_t size = lseek (out_fd, 0, SEEK_END);
  char *text = xmalloc ((size_t) size + 1);
  bool all_parse = true;
  if (pread (out_fd, text, (size_t) size, 0) != size)
    size = 0;
  text[size] = '\0';
  close (out_fd);
  for (char *line = text, *nl; line < text + size; line = nl + 1)
    {
      json_error_t jerr;
      nl = strchr (line, '\n');
      if (nl == NULL)
        {
          all_parse = false; /* every answer ends with its newline */
          break;
        }
      json_t *msg = json_loadb (line, (size_t) (nl - line), JSON_REJECT_DUPLICATES, &jerr);
      json_t *version = json_object_get (msg, "jsonrpc");
      if (msg == NULL || !json_is_string (version)
          || strcmp (json_string_value (version), "2.0") != 0)
        all_parse = false;
      if (msg != NULL)
        json_array_append_new (answers, msg);
    }
  ok (all_parse, "every answer is one line of JSON-RPC 2.0");
  free (text);
  return answers;
}

static bool
has_id (json_t *msg, const char *id)
{
  json_t *got = json_object_get (msg, "id");
  if (id == NULL)
    return json_is_null (got);
  json_t *want = json_loads (id, JSON_DECODE_ANY, NULL);
  bool same = got != NULL && json_equal (got, want);
  json_decref (want);
  return same;
}

static bool
is_sentinel (json_t *msg, size_t i)
{
  char id[32];
  snprintf (id, sizeof id, "\"sentinel-%zu\"", i);
  return has_id (msg, id) && json_is_object (json_object_get (msg, "result"));
}

static void
check_case (const Case *c, json_t *answers, size_t *pos, size_t i)
{
  size_t start = *pos, n = json_array_size (answers);

  while (*pos < n && !is_sentinel (json_array_get (answers, *pos), i))
    (*pos)++;
  size_t got = *pos - start;
  bool sentinel = *pos < n;
  if (sentinel)
    (*pos)++;

  if (c->code == NO_ANSWER)
    {
      ok (got == 0 && sentinel, "%s (%zu answers)", c->what, got);
      return;
    }
  json_t *reply = got == 1 ? json_array_get (answers, start) : NULL;
  json_t *error = json_object_get (reply, "error");
  bool id_ok = reply != NULL && has_id (reply, c->id);
  if (c->code == RESULT)
    ok (sentinel && id_ok && json_is_object (json_object_get (reply, "result")) && error == NULL,
        "%s: a result", c->what);
  else
    {
      json_t *message = json_object_get (error, "message");
      ok (sentinel && id_ok && json_integer_value (json_object_get (error, "code")) == c->code
            && json_is_string (message) && json_string_length (message) > 0,
          "%s: error %d with a message", c->what, c->code);
    }
}

static void
test_cases (void)
{
  Buf in = { 0 };
  int fd = temp_file ();

  for (size_t i = 0; i < N_CASES; i++)
    {
      char sentinel[64];
      buf_append (&in, cases[i].line, cases[i].len ? cases[i].len : strlen (cases[i].line));
      snprintf (sentinel, sizeof sentinel,
                "\n{\"jsonrpc\":\"2.0\",\"id\":\"sentinel-%zu\",\"method\":\"ping\"}\n", i);
      buf_append (&in, sentinel, strlen (sentinel));
    }
  ok (write (fd, in.data, in.len) == (ssize_t) in.len, "the input is written");
  lseek (fd, 0, SEEK_SET);
  buf_clear (&in);

  json_t *answers = serve (fd);
  close (fd);
  size_t pos = 0;
  for (size_t i = 0; i < N_CASES; i++)
    check_case (&cases[i], answers, &pos, i);
  ok (pos == json_array_size (answers), "no answer beyond the cases (%zu of %zu)", pos,
      json_array_size (answers));

  /* The answers the table cannot express. */
  for (size_t i = 0; i < json_array_size (answers); i++)
    {
      json_t *msg = json_array_get (answers, i), *result = json_object_get (msg, "result");
      if (has_id (msg, "14"))
        ok (strcmp (json_string_value (json_object_get (result, "protocolVersion")),
                    MCP_PROTOCOL_OLDER)
              == 0,
            "initialize keeps the older revision the client asked for");
      if (has_id (msg, "\"list\""))
        ok (json_array_size (json_object_get (result, "tools")) == 5,
            "without a workspace, tools/list offers execute_code, code_execution and the "
            "three session tools alone");
      if (has_id (msg, "15"))
        {
          json_t *content = json_array_get (json_object_get (result, "content"), 0);
          const char *text = json_string_value (json_object_get (content, "text"));
          ok (json_is_true (json_object_get (result, "isError")) && text != NULL
                && strstr (text, "\"code\"") != NULL,
              "a run that cannot happen is an isError result naming the field: %s",
              text ? text : "(none)");
        }
    }
  json_decref (answers);
}

/* A pipe delivers whatever the writer's write() calls carved: a message
 * one byte at a time (a UTF-8 character split between reads), a line
 * past the cap in pieces, and a last line the client never finished. */
static void
test_pipe (void)
{
  int fds[2];
  if (pipe (fds) != 0)
    abort ();
  pid_t writer = fork ();
  if (writer == 0)
    {
      const char *slow = "{\"jsonrpc\":\"2.0\",\"id\":\"caf\xc3\xa9\",\"method\":\"ping\"}\n";
      char chunk[65536];
      close (fds[0]);
      for (const char *p = slow; *p; p++)
        if (write (fds[1], p, 1) != 1)
          _exit (1);
      memset (chunk, 'a', sizeof chunk);
      for (size_t sent = 0; sent <= SP_PROTO_MAX_FRAME + 128 * 1024; sent += sizeof chunk)
        if (write (fds[1], chunk, sizeof chunk) != (ssize_t) sizeof chunk)
          _exit (1);
      const char *after = "\n{\"jsonrpc\":\"2.0\",\"id\":\"after\",\"method\":\"ping\"}\n"
                          "{\"jsonrpc\":\"2.0\",\"id\":\"unfinished\",\"method\":\"pi";
      if (write (fds[1], after, strlen (after)) != (ssize_t) strlen (after))
        _exit (1);
      _exit (0);
    }
  close (fds[1]);
  json_t *answers = serve (fds[0]);
  close (fds[0]);
  int status = 0;
  waitpid (writer, &status, 0);
  ok (WIFEXITED (status) && WEXITSTATUS (status) == 0, "the writer wrote everything");

  json_t *first = json_array_get (answers, 0), *second = json_array_get (answers, 1);
  json_t *third = json_array_get (answers, 2);
  ok (has_id (first, "\"caf\xc3\xa9\"") && json_is_object (json_object_get (first, "result")),
      "a message fed one byte at a time is answered, its UTF-8 id intact");
  ok (json_integer_value (json_object_get (json_object_get (second, "error"), "code"))
        == MCP_PARSE_ERROR,
      "a line past the cap is a parse error");
  ok (has_id (third, "\"after\""), "the line after it is served");
  ok (json_array_size (answers) == 3, "an unfinished last line gets no answer (%zu answers)",
      json_array_size (answers));
  json_decref (answers);
}

int
main (void)
{
  plan ((int) N_CASES + 5 + 3 + 6);
  test_cases ();
  test_pipe ();
  return done_testing ();
}
