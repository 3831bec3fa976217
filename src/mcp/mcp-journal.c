/* mcp-journal.c: the run journal, a record of every run sandpad-mcp makes.
 *
 * Whatever an assistant runs on your machine should leave a trace you can
 * read afterwards, and that the app can follow live. One JSON object per
 * line is appended to $XDG_STATE_HOME/sandpad/journal/runs.jsonl (default
 * ~/.local/state/sandpad/...), each with a single write() on an O_APPEND
 * fd, so several servers can share it and a reader never sees half a line.
 * Bounded: past max_bytes the file becomes runs.1.jsonl (replacing the
 * previous one) and a new one starts, so the journal holds at most about
 * twice max_bytes. A journal that cannot be written is reported once on
 * stderr and never stops a run. docs/journal.md is the format, and
 * src/protocol/sp-journal.c its strict reader. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "mcp-server.h"
#include "sp-journal.h"

static int
make_dirs (const char *path)
{
  cleanup_free char *copy = xstrdup (path);

  for (char *p = copy + 1; *p != '\0'; p++)
    if (*p == '/')
      {
        *p = '\0';
        if (mkdir (copy, 0700) != 0 && errno != EEXIST)
          return -1;
        *p = '/';
      }
  return mkdir (copy, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

void
mcp_journal_init (McpJournal *journal, const char *dir, int64_t max_bytes)
{
  const char *state = getenv ("XDG_STATE_HOME");
  const char *home = getenv ("HOME");

  *journal = (McpJournal){ .max_bytes = max_bytes };
  if (dir != NULL)
    journal->dir = xstrdup (dir);
  else if (state != NULL && state[0] == '/')
    journal->dir = xasprintf ("%s/sandpad/journal", state);
  else if (home != NULL && home[0] == '/')
    journal->dir = xasprintf ("%s/.local/state/sandpad/journal", home);
}

void
mcp_journal_clear (McpJournal *journal)
{
  free (journal->dir);
  journal->dir = NULL;
}

static void
warn_once (McpJournal *journal, const char *what)
{
  if (journal->warned)
    return;
  journal->warned = true;
  fprintf (stderr,
           "sandpad-mcp: cannot write the run journal in %s (%s: %s); runs go on "
           "without it\n",
           journal->dir ? journal->dir : "(no HOME)", what, strerror (errno));
}

static void
cap_text (json_t *obj, const char *key, size_t max)
{
  const char *text = json_string_value (json_object_get (obj, key));
  size_t len = text ? strlen (text) : 0;

  if (len <= max)
    return;
  size_t keep = max;
  while (keep > 0 && ((unsigned char) text[keep] & 0xC0) == 0x80)
    keep--; /* cut on a character boundary */
  char *cut = xasprintf ("%.*s\n[... %zu more bytes]", (int) keep, text, len - keep);
  json_object_set_new (obj, key, json_string (cut));
  free (cut);
}

/* Each text in an entry: enough to recognise the run. */
static void
cap_string (json_t *obj, const char *key)
{
  cap_text (obj, key, SP_JOURNAL_TEXT_MAX);
}

/* Variables by name only: a value may be a secret. */
static void
blank_values (json_t *obj, const char *key)
{
  json_t *vars = json_object_get (obj, key);
  const char *name;
  json_t *value;

  if (json_is_object (vars))
    json_object_foreach (vars, name, value)
      json_object_set_new (vars, name, json_string (""));
}

/* Input files by path only: their content may be megabytes. */
static void
files_by_path (json_t *obj)
{
  json_t *files = json_object_get (obj, "files");
  json_t *item;
  size_t i;

  json_array_foreach (files, i, item)
    if (json_is_object (item))
      {
        json_t *path = json_incref (json_object_get (item, "path"));

        json_object_clear (item);
        if (path != NULL)
          json_object_set_new (item, "path", path);
      }
}

/* A display by what it is, not its data (an image is up to megabytes of
 * base64): its MIME types, where in stdout it came, and the start of its
 * text. */
static json_t *
display_summary (json_t *display)
{
  json_t *data = json_object_get (display, "data");
  json_t *types = json_array ();
  json_t *summary = json_object ();
  const char *mime;
  json_t *value;

  json_object_foreach (data, mime, value)
    json_array_append_new (types, json_string (mime));
  json_object_set_new (summary, "mime_types", types);
  json_object_set (summary, "stdout_offset", json_object_get (display, "stdout_offset"));
  value = json_object_get (data, "text/plain");
  if (json_is_string (value))
    {
      json_object_set (summary, "text", value);
      cap_text (summary, "text", SP_JOURNAL_DISPLAY_TEXT_MAX);
    }
  return summary;
}

void
mcp_journal_time (char when[64])
{
  struct timespec ts;
  struct tm tm;

  clock_gettime (CLOCK_REALTIME, &ts);
  gmtime_r (&ts.tv_sec, &tm);
  snprintf (when, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", tm.tm_year + 1900, tm.tm_mon + 1,
            tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
}

/* The tool's arguments as the journal keeps them: texts capped, edits by
 * number, input files by path, variables by name. */
json_t *
mcp_journal_input (json_t *input)
{
  json_t *asked = json_is_object (input) ? json_deep_copy (input) : json_object ();

  cap_string (asked, "code");
  cap_string (asked, "command");
  cap_string (asked, "stdin");
  blank_values (asked, "env");
  blank_values (asked, "environment");
  blank_values (json_object_get (asked, "execution_config"), "environment");
  files_by_path (asked);
  /* The edit itself is in "diff"; its texts may be megabytes. */
  if (json_is_array (json_object_get (asked, "edits")))
    {
      size_t n_edits = json_array_size (json_object_get (asked, "edits"));
      json_object_set_new (asked, "edits", json_integer ((json_int_t) n_edits));
    }
  return asked;
}

json_t *
mcp_journal_entry (const char *tool, json_t *input, json_t *structured)
{
  json_t *entry = json_deep_copy (structured);
  char when[64];

  mcp_journal_time (when);
  json_object_set_new (entry, "v", json_integer (SP_JOURNAL_VERSION));
  json_object_set_new (entry, "time", json_string (when));
  json_object_set_new (entry, "tool", json_string (tool));
  json_object_set_new (entry, "server_pid", json_integer (getpid ()));
  json_object_set_new (entry, "input", mcp_journal_input (input));
  cap_string (entry, "stdout");
  cap_string (entry, "stderr");
  cap_string (entry, "diff");
  json_t *displays = json_object_get (entry, "displays");
  if (json_is_array (displays))
    {
      json_t *summaries = json_array ();
      json_t *display;
      size_t i;

      json_array_foreach (displays, i, display)
        json_array_append_new (summaries, display_summary (display));
      json_object_set_new (entry, "displays", summaries);
    }
  /* code_execution's image: its size says one came back. */
  json_t *base64 = json_object_get (entry, "base64_output");
  if (base64 != NULL)
    {
      if (json_is_string (base64))
        json_object_set_new (entry, "base64_output_bytes",
                             json_integer ((json_int_t) json_string_length (base64)));
      json_object_del (entry, "base64_output");
    }
  return entry;
}

void
mcp_journal_append (McpJournal *journal, const char *name, const char *old_name, json_t *entry)
{
  if (journal->dir == NULL || journal->max_bytes == 0)
    return;
  char *line = json_dumps (entry, JSON_COMPACT);
  if (line == NULL)
    return;

  if (make_dirs (journal->dir) != 0)
    {
      warn_once (journal, "mkdir");
      free (line);
      return;
    }
  cleanup_free char *path = xasprintf ("%s/%s", journal->dir, name);
  struct stat st;
  if (lstat (path, &st) == 0 && st.st_size >= journal->max_bytes)
    {
      cleanup_free char *old = xasprintf ("%s/%s", journal->dir, old_name);
      (void) rename (path, old); /* another server may have done it first */
    }
  cleanup_fd int fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  size_t len = strlen (line);
  line[len] = '\n'; /* json_dumps left room for the NUL; the line is written whole */
  if (fd < 0 || write (fd, line, len + 1) != (ssize_t) (len + 1))
    warn_once (journal, "write");
  free (line);
}

void
mcp_journal_record (McpJournal *journal, const char *tool, json_t *input, json_t *structured)
{
  if (journal->dir == NULL || journal->max_bytes == 0)
    return;
  json_t *entry = mcp_journal_entry (tool, input, structured);
  mcp_journal_append (journal, "runs.jsonl", "runs.1.jsonl", entry);
  json_decref (entry);
}
