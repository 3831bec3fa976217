/* mcp-activity.c: what an assistant runs, live, for the app's Activity
 * view, and the way back from it (Stop).
 *
 * runs.jsonl gets one line per finished run; a person watching wants to
 * see a run while it goes. So live.jsonl, beside it, gets three kinds of
 * line per run, each one write() on an O_APPEND file like runs.jsonl's
 * (each also has "v", the journal's version; docs/journal.md has them key
 * for key):
 *   {"event":"start", "run", "time", "tool", "server_pid", "workspace", "input"}
 *   {"event":"output", "run", "stream":"stdout"|"stderr", "text"}
 *   {"event":"end", "run", ...the runs.jsonl entry...}
 * "run" is "<server pid>-<run id>", unique among the servers sharing the
 * journal. Output lines are bounded per run (SP_JOURNAL_OUTPUT_MAX; the
 * end line has the output's start and end anyway), and live.jsonl rotates like
 * runs.jsonl, so it stays under about twice --journal-max.
 *
 * Stop: the app creates the empty file <journal>/cancel/<run>. While this
 * server has runs going, its loop wakes every MCP_CANCEL_POLL_MS and looks for
 * its runs' names there; a run found is cancelled exactly as
 * notifications/cancelled would (the call still answers, end "cancelled")
 * and the file removed. A file beside the journal, not a socket: any
 * number of servers, started by any client, share one journal directory
 * (0700, the user's own), the app needs no connection to each, and a
 * server with no runs going never wakes for it. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mcp-server.h"
#include "sp-journal.h"

static char *
live_id (const McpCall *call)
{
  return xasprintf ("%ld-%s", (long) getpid (), call->run_id);
}

static json_t *
live_line (const char *event, const McpCall *call)
{
  cleanup_free char *id = live_id (call);

  return json_pack ("{s:i, s:s, s:s}", "v", SP_JOURNAL_VERSION, "event", event, "run", id);
}

static void
append_live (McpServer *server, json_t *line)
{
  if (line != NULL)
    mcp_journal_append (&server->journal, "live.jsonl", "live.1.jsonl", line);
  json_decref (line);
}

void
mcp_activity_started (McpServer *server, McpCall *call)
{
  json_t *line = live_line ("start", call);
  const char *workspace = server->options->workspace;
  char when[64];

  if (line == NULL || server->journal.dir == NULL || server->journal.max_bytes == 0)
    {
      json_decref (line);
      return;
    }
  mcp_journal_time (when);
  json_object_set_new (line, "time", json_string (when));
  json_object_set_new (line, "tool", json_string (call->tool ? call->tool : ""));
  json_object_set_new (line, "server_pid", json_integer (getpid ()));
  json_object_set_new (line, "workspace", workspace ? json_string (workspace) : json_null ());
  json_object_set_new (line, "input", mcp_journal_input (call->input));
  append_live (server, line);
}

void
mcp_activity_output (McpServer *server, McpCall *call, int stream, const char *text)
{
  size_t len = strlen (text);

  if (server->journal.dir == NULL || server->journal.max_bytes == 0 || len == 0
      || call->live_bytes >= SP_JOURNAL_OUTPUT_MAX)
    return;
  /* Cut at a character boundary (the engine's chunks are valid UTF-8). */
  size_t keep = len;
  if ((int64_t) keep > SP_JOURNAL_OUTPUT_MAX - call->live_bytes)
    {
      keep = (size_t) (SP_JOURNAL_OUTPUT_MAX - call->live_bytes);
      while (keep > 0 && ((unsigned char) text[keep] & 0xC0) == 0x80)
        keep--;
    }
  call->live_bytes += (int64_t) len;
  json_t *line = live_line ("output", call);
  json_t *chunk = json_stringn (text, keep);
  if (line == NULL || chunk == NULL)
    {
      json_decref (line);
      json_decref (chunk);
      return;
    }
  json_object_set_new (line, "stream", json_string (stream == 1 ? "stderr" : "stdout"));
  json_object_set_new (line, "text", chunk);
  if (keep < len)
    json_object_set_new (line, "cut", json_true ());
  append_live (server, line);
}

void
mcp_activity_ended (McpServer *server, McpCall *call, json_t *structured)
{
  const char *workspace = server->options->workspace;
  cleanup_free char *id = live_id (call);

  if (server->journal.dir == NULL || server->journal.max_bytes == 0 || structured == NULL)
    return;
  json_t *line = mcp_journal_entry (call->tool ? call->tool : "", call->input, structured);
  json_object_set_new (line, "event", json_string ("end"));
  json_object_set_new (line, "run", json_string (id));
  json_object_set_new (line, "workspace", workspace ? json_string (workspace) : json_null ());
  append_live (server, line);
  /* A request that came too late has nothing left to stop. */
  cleanup_free char *request = xasprintf ("%s/cancel/%s", server->journal.dir, id);
  (void) unlink (request);
}

char **
mcp_activity_take_cancels (McpServer *server)
{
  if (server->journal.dir == NULL || server->calls == NULL)
    return NULL;
  /* Ids, not calls: a cancel may end a queued run at once, and its
   * exited event frees the call while the server would still be walking
   * the list. */
  char **ids = NULL;
  size_t n = 0;
  for (McpCall *call = server->calls; call != NULL; call = call->next)
    {
      cleanup_free char *id = live_id (call);
      cleanup_free char *request = xasprintf ("%s/cancel/%s", server->journal.dir, id);

      if (access (request, F_OK) != 0)
        continue;
      (void) unlink (request);
      ids = xrealloc (ids, (n + 2) * sizeof *ids);
      ids[n++] = xstrdup (call->run_id);
      ids[n] = NULL;
    }
  return ids;
}
