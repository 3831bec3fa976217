/* test-error-parse.c: runner_error_parse() on real tracebacks (the .txt
 * files in tests/core/tracebacks, made by running snippets through
 * sandpad-run) gives what each .expect says; plus text with no error, a
 * frame list over the cap, an over-long message cut on a character
 * boundary, and line and column numbers past what the protocol carries
 * (issue 29), each result checked with the protocol's strict decoder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../protocol/tap.h"
#include "runner-error.h"
#include "runner-base.h"

static char *
slurp (const char *path)
{
  FILE *f = fopen (path, "re");
  char *data = xcalloc (1, 1 << 20);
  size_t n = f ? fread (data, 1, (1 << 20) - 1, f) : 0;

  if (f)
    fclose (f);
  data[n] = '\0';
  return data;
}

/* The value of "key=" in an .expect file, or "" */
static const char *
expect (const char *text, const char *key, char *out, size_t size)
{
  size_t klen = strlen (key);

  out[0] = '\0';
  for (const char *line = text; line && *line;
       line = strchr (line, '\n') ? strchr (line, '\n') + 1 : NULL)
    if (strncmp (line, key, klen) == 0 && line[klen] == '=')
      {
        size_t len = strcspn (line + klen + 1, "\n");
        snprintf (out, size, "%.*s", (int) len, line + klen + 1);
        break;
      }
  return out;
}

static void
check_fixture (const char *dir, const char *name)
{
  char path[4096], value[1024], snippet_value[256];
  const char *language = strncmp (name, "python", 6) == 0  ? "python"
                         : strncmp (name, "node", 4) == 0  ? "javascript"
                         : strncmp (name, "r-", 2) == 0    ? "r"
                         : strncmp (name, "java-", 5) == 0 ? "java"
                                                           : "bash";
  const char *snippet = language[0] == 'p' ? "main.py" : language[0] == 'j' ? "main.js" : "main.sh";

  snprintf (path, sizeof path, "%s/%s.txt", dir, name);
  char *text = slurp (path);
  snprintf (path, sizeof path, "%s/%s.expect", dir, name);
  char *want = slurp (path);
  /* R's and Java's (issue 42) name their snippet as sandpad-run did. */
  if (expect (want, "snippet", snippet_value, sizeof snippet_value)[0] != '\0')
    snippet = snippet_value;
  SpProgramError *error = runner_error_parse (language, text, snippet);

  if (!ok (error != NULL, "%s: an error is found", name))
    {
      for (int i = 0; i < 6; i++)
        ok (false, "%s: skipped", name);
    }
  else
    {
      is_str (error->type, expect (want, "type", value, sizeof value), "%s: type", name);
      is_str (error->message, expect (want, "message", value, sizeof value), "%s: message", name);
      is_int (error->line, atoll (expect (want, "line", value, sizeof value)), "%s: line", name);
      is_int (error->column, atoll (expect (want, "column", value, sizeof value)), "%s: column",
              name);
      is_int (error->syntax, strcmp (expect (want, "syntax", value, sizeof value), "true") == 0,
              "%s: syntax", name);
      is_int ((long long) error->n_frames, atoll (expect (want, "frames", value, sizeof value)),
              "%s: frames", name);
    }
  sp_program_error_free (error);
  free (text);
  free (want);
}

static void
check_bounds (void)
{
  size_t size = 200 * 64 + 4096;
  char *text = xcalloc (1, size), *p = text;

  p += sprintf (p, "Traceback (most recent call last):\n");
  for (int i = 1; i <= 200; i++)
    p += sprintf (p, "  File \"/code/main.py\", line %d, in f\n", i);
  /* A message of 2,000 two-byte characters: cut within the cap, whole. */
  p += sprintf (p, "ValueError: ");
  for (int i = 0; i < 2000; i++)
    p += sprintf (p, "\xc3\xa9");
  *p++ = '\n';

  SpProgramError *error = runner_error_parse ("python", text, "main.py");
  ok (error != NULL, "a long traceback is read");
  is_int ((long long) error->n_frames, SP_PROGRAM_ERROR_MAX_FRAMES, "frames are capped");
  is_int (error->frames[error->n_frames - 1].line, 200, "the innermost frames are kept");
  is_int (error->line, 200, "the line is the innermost");
  ok (strlen (error->message) <= SP_PROGRAM_ERROR_MAX_TEXT && strlen (error->message) % 2 == 0,
      "the message is capped on a character boundary (%zu bytes)", strlen (error->message));
  sp_program_error_free (error);
  free (text);
}

/* The error as exited carries it decodes strictly, as the app reads it. */
static bool
decodes (SpProgramError *error, const char *what)
{
  SpMessage msg = { .type = SP_MSG_EXITED }, back;
  SpProtoError err = { 0 };
  size_t len = 0;
  char *line;
  int rc = -1;

  msg.u.exited.id = (char *) "r1";
  msg.u.exited.end = SP_END_EXITED;
  msg.u.exited.exit_code = 1;
  msg.u.exited.program_error = error;
  line = sp_message_encode (&msg, &len);
  if (line != NULL)
    rc = sp_message_decode (line, len - 1, SP_DIR_EVENT, &back, &err, NULL);
  if (rc != 0)
    diag ("%s: %s", what, line ? err.message : "does not encode");
  else
    sp_message_clear (&back);
  free (line);
  return rc == 0;
}

typedef struct
{
  const char *what, *language, *text;
  size_t frames;
  int64_t line;
} Hostile;

/* A program can print any number where a line or column goes; only those
 * the protocol carries are read as a location, and a frame at the largest
 * line it carries is the control that the bound is not too tight. */
static const Hostile hostile[] = {
  { "python, line past int32", "python",
    "Traceback (most recent call last):\n"
    "  File \"/code/main.py\", line 3, in <module>\n"
    "  File \"/code/main.py\", line 99999999999, in f\n"
    "ValueError: x\n",
    1, 3 },
  { "python, the largest line and one past it", "python",
    "Traceback (most recent call last):\n"
    "  File \"/code/main.py\", line 2147483647, in <module>\n"
    "  File \"/code/main.py\", line 2147483648, in f\n"
    "ValueError: x\n",
    1, 2147483647 },
  { "python, line past int64", "python",
    "Traceback (most recent call last):\n"
    "  File \"/code/main.py\", line 99999999999999999999999999, in <module>\n"
    "ValueError: x\n",
    0, 0 },
  { "node, line and column past int32", "javascript",
    "/code/main.js:99999999999\nthrow x\n^\n\nError: boom\n"
    "    at f (/code/main.js:2:99999999999)\n"
    "    at /code/main.js:99999999999:1\n"
    "    at Object.<anonymous> (/code/main.js:4:1)\n",
    1, 4 },
  { "R, line past int32", "r",
    "Error in f() : x\n  at /code/main.R:99999999999 in f\n  at /code/main.R:7\n", 1, 7 },
  { "Java, line past int32", "java",
    "Exception in thread \"main\" java.lang.Error: x\n\tat Main.f(Main.java:99999999999)\n"
    "\tat Main.main(Main.java:7)\n",
    2, 7 },
  { "bash, line past int32", "bash",
    "/code/main.sh: line 99999999999: boom\n/code/main.sh: line 7: oops\n", 1, 7 },
};

static void
check_numbers (void)
{
  for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++)
    {
      const Hostile *h = &hostile[i];
      const char *snippet = strcmp (h->language, "python") == 0       ? "main.py"
                            : strcmp (h->language, "javascript") == 0 ? "main.js"
                            : strcmp (h->language, "r") == 0          ? "main.R"
                            : strcmp (h->language, "java") == 0       ? "Main.java"
                                                                      : "main.sh";
      SpProgramError *error = runner_error_parse (h->language, h->text, snippet);

      if (!ok (error != NULL, "%s: an error is found", h->what))
        {
          for (int k = 0; k < 3; k++)
            ok (false, "%s: skipped", h->what);
          continue;
        }
      ok (decodes (error, h->what), "%s: the event decodes strictly", h->what);
      is_int ((long long) error->n_frames, (long long) h->frames, "%s: frames", h->what);
      is_int (error->line, h->line, "%s: line", h->what);
      sp_program_error_free (error);
    }
}

int
main (int argc, char **argv)
{
  static const char *const names[] = { "python-nested",    "python-chained", "python-syntax",
                                       "python-recursion", "node-typeerror", "node-syntax",
                                       "bash-command",     "bash-syntax",    "r-error",
                                       "r-syntax",         "java-exception", "java-compile" };
  const size_t n = sizeof names / sizeof names[0];

  plan ((int) n * 7 + 5 + 5 + (int) (sizeof hostile / sizeof hostile[0]) * 4);
  if (argc < 2)
    return 1;
  for (size_t i = 0; i < n; i++)
    check_fixture (argv[1], names[i]);
  ok (runner_error_parse ("python", "hello\nworld\n", "main.py") == NULL, "no python error");
  ok (runner_error_parse ("javascript", "", "main.js") == NULL, "no node error");
  ok (runner_error_parse ("bash", "just output\n", "main.sh") == NULL, "no bash error");
  ok (runner_error_parse ("r", "[1] 2\nError\n", "main.R") == NULL, "no R error");
  ok (runner_error_parse ("java", "Exception in the air\n", "Main.java") == NULL, "no Java error");
  check_bounds ();
  check_numbers ();
  return done_testing ();
}
