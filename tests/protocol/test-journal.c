/* test-journal.c: the run journal's strict decoder (sp-journal.c) on the
 * lines under journal/.
 *
 * usage: test-journal JOURNAL-DIR
 *
 * JOURNAL-DIR holds live-valid/, live-invalid/, runs-valid/ and
 * runs-invalid/ (lines of live.jsonl and of runs.jsonl). Each file holds
 * one line and its newline. A file in an invalid directory is named
 * <error_code>--<description>.json and must be refused with exactly that
 * code and a message in valid UTF-8; a file in a valid directory must
 * decode. Adding a case is adding a file. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "sp-journal.h"
#include "sp-utf8.h"
#include "tap.h"

/* The codes a journal line can be refused with; each has a fixture. */
static const SpProtoErrorCode line_codes[] = {
  SP_ERR_INVALID_JSON,  SP_ERR_NOT_OBJECT,    SP_ERR_BAD_VERSION,
  SP_ERR_UNKNOWN_TYPE,  SP_ERR_MISSING_FIELD, SP_ERR_WRONG_TYPE,
  SP_ERR_INVALID_VALUE, SP_ERR_UNKNOWN_FIELD, SP_ERR_NUL_BYTE,
};
#define N_LINE_CODES (sizeof line_codes / sizeof line_codes[0])

static int
is_fixture (const struct dirent *entry)
{
  size_t len = strlen (entry->d_name);

  return len > 5 && strcmp (entry->d_name + len - 5, ".json") == 0;
}

/* dir/name whole; *len leaves out the one trailing newline, which
 * *one_line reports together with the absence of any other. */
static char *
read_line (const char *dir, const char *name, size_t *len, bool *one_line)
{
  char path[4096];
  char *data = NULL;
  size_t size = 0;
  FILE *file;

  snprintf (path, sizeof path, "%s/%s", dir, name);
  file = fopen (path, "rb");
  if (file != NULL)
    {
      data = malloc (SP_JOURNAL_LINE_MAX + 2);
      size = data ? fread (data, 1, SP_JOURNAL_LINE_MAX + 1, file) : 0;
      fclose (file);
    }
  if (data == NULL)
    data = calloc (1, 1);
  if (data == NULL)
    abort ();
  data[size] = '\0';
  *one_line = size > 0 && data[size - 1] == '\n' && memchr (data, '\n', size - 1) == NULL;
  *len = *one_line ? size - 1 : size;
  return data;
}

static int
scan (const char *root, const char *sub, char *dir, size_t dir_size, struct dirent ***names)
{
  snprintf (dir, dir_size, "%s/%s", root, sub);
  int n = scandir (dir, names, is_fixture, alphasort);
  if (n < 0)
    {
      perror (dir);
      exit (2);
    }
  return n;
}

static void
check_invalid (const char *dir, const char *name, SpJournalFile file, bool *covered)
{
  char expected[64] = "";
  const char *dash = strstr (name, "--");
  size_t len;
  bool one_line;
  char *data = read_line (dir, name, &len, &one_line);
  SpJournalLine line;
  SpProtoError err = { .code = SP_ERR_NONE, .message = "" };

  if (dash != NULL && (size_t) (dash - name) < sizeof expected)
    memcpy (expected, name, (size_t) (dash - name));
  SpProtoErrorCode code = sp_proto_error_code_from_string (expected);
  ok (code != SP_ERR_NONE && one_line, "%s: names a known code and holds one line", name);
  for (size_t i = 0; i < N_LINE_CODES; i++)
    covered[i] |= line_codes[i] == code;

  int rc = sp_journal_decode (data, len, file, &line, &err);
  if (!is_str (rc == 0 ? "success" : sp_proto_error_code_to_string (err.code), expected,
               "%s: refused with the code in its name", name))
    diag ("message: %s", rc == 0 ? "(none)" : err.message);
  /* The app logs the message; it must be text, and nothing is left. */
  ok (rc != 0 && err.message[0] != '\0' && sp_utf8_valid (err.message, strlen (err.message))
        && line.run == NULL && line.files == NULL && line.time == NULL,
      "%s: with a message in valid UTF-8, and nothing left in the line", name);
  sp_journal_line_clear (&line);
  free (data);
}

static void
check_valid (const char *dir, const char *name, SpJournalFile file)
{
  size_t len;
  bool one_line;
  char *data = read_line (dir, name, &len, &one_line);
  SpJournalLine line;
  SpProtoError err = { 0 };

  int rc = sp_journal_decode (data, len, file, &line, &err);
  /* A runs.jsonl entry is what an end line says. */
  if (!ok (one_line && rc == 0 && (file == SP_JOURNAL_LIVE || line.event == SP_JOURNAL_END),
           "%s: one line that decodes", name))
    diag ("%s: %s", sp_proto_error_code_to_string (err.code), err.message);
  sp_journal_line_clear (&line);
  free (data);
}

static int
run_dir (const char *root, const char *sub, SpJournalFile file, bool valid, bool *covered)
{
  char dir[4096];
  struct dirent **names = NULL;
  int n = scan (root, sub, dir, sizeof dir, &names);

  for (int i = 0; i < n; i++)
    {
      if (valid)
        check_valid (dir, names[i]->d_name, file);
      else
        check_invalid (dir, names[i]->d_name, file, covered);
      free (names[i]);
    }
  free (names);
  return n;
}

static int
count (const char *root, const char *sub)
{
  char dir[4096];
  struct dirent **names = NULL;
  int n = scan (root, sub, dir, sizeof dir, &names);

  for (int i = 0; i < n; i++)
    free (names[i]);
  free (names);
  return n;
}

/* What the app reads of an end line, field for field. */
static void
check_end_fields (const char *root)
{
  char dir[4096];
  size_t len;
  bool one_line;
  SpJournalLine line;
  SpProtoError err = { 0 };

  snprintf (dir, sizeof dir, "%s/live-valid", root);
  char *data = read_line (dir, "end-exited-with-error.json", &len, &one_line);
  int rc = sp_journal_decode (data, len, SP_JOURNAL_LIVE, &line, &err);
  ok (rc == 0 && line.event == SP_JOURNAL_END && strcmp (line.run, "4242-mcp-1") == 0
        && strcmp (line.tool, "execute_code") == 0 && line.server_pid == 4242
        && line.workspace == NULL && strcmp (line.language, "python") == 0
        && strcmp (line.code, "print('hi')") == 0 && line.command == NULL,
      "an end line: the run, the tool, what was run");
  ok (rc == 0 && strcmp (line.end, "exited") == 0 && line.has_exit_code && line.exit_code == 1
        && line.duration_ms == 250 && strcmp (line.error_type, "ValueError") == 0
        && strcmp (line.error_message, "bad") == 0 && strcmp (line.stdout_text, "hi\n") == 0
        && line.files != NULL && strcmp (line.files[0], "plot-1.png") == 0
        && strcmp (line.files[1], "link") == 0 && line.files[2] == NULL && line.diff == NULL,
      "an end line: how it ended, its error, output and files");
  sp_journal_line_clear (&line);
  free (data);

  /* code_execution's result has names of its own: the app reads them as
   * the same fields. */
  data = read_line (dir, "end-code-execution.json", &len, &one_line);
  rc = sp_journal_decode (data, len, SP_JOURNAL_LIVE, &line, &err);
  ok (rc == 0 && strcmp (line.tool, "code_execution") == 0 && strcmp (line.language, "python") == 0
        && strcmp (line.code, "print(1)") == 0 && strcmp (line.end, "exited") == 0
        && line.has_exit_code && line.exit_code == 0 && line.duration_ms == 124
        && strcmp (line.stdout_text, "1\n") == 0 && line.files != NULL
        && strcmp (line.files[0], "noise.png") == 0 && line.files[1] == NULL,
      "a code_execution end line: execution_time_ms, created_files as the others' fields");
  sp_journal_line_clear (&line);
  free (data);
  snprintf (dir, sizeof dir, "%s/runs-valid", root);
  data = read_line (dir, "entry-code-execution-refused.json", &len, &one_line);
  rc = sp_journal_decode (data, len, SP_JOURNAL_RUNS, &line, &err);
  ok (rc == 0 && strcmp (line.end, "refused") == 0 && !line.has_exit_code && line.files != NULL
        && line.files[0] == NULL,
      "a refused code_execution call: exit_code -1 is no exit status");
  sp_journal_line_clear (&line);
  free (data);
  data = read_line (dir, "entry-code-execution-signal.json", &len, &one_line);
  rc = sp_journal_decode (data, len, SP_JOURNAL_RUNS, &line, &err);
  ok (rc == 0 && strcmp (line.end, "memory") == 0 && !line.has_exit_code,
      "code_execution's minus the signal is no exit status either");
  sp_journal_line_clear (&line);
  free (data);
}

static void
check_sizes_and_names (void)
{
  size_t big = (size_t) SP_JOURNAL_LINE_MAX + 1;
  char *data = malloc (big);
  SpJournalLine line;
  SpProtoError err = { 0 };

  if (data == NULL)
    abort ();
  memset (data, ' ', big);
  data[0] = '{';
  data[big - 1] = '}';
  ok (sp_journal_decode (data, big, SP_JOURNAL_LIVE, &line, &err) != 0
        && err.code == SP_ERR_FRAME_TOO_LARGE,
      "a line over SP_JOURNAL_LINE_MAX is refused before parsing");
  free (data);

  ok (sp_journal_run_valid ("4242-mcp-1") && sp_journal_run_valid ("1-a_b")
        && sp_journal_run_valid ("1"),
      "run names as sandpad-mcp makes them are valid");
  ok (!sp_journal_run_valid ("") && !sp_journal_run_valid ("mcp-1")
        && !sp_journal_run_valid ("1-../x") && !sp_journal_run_valid ("1/x")
        && !sp_journal_run_valid ("1 x") && !sp_journal_run_valid ("1-\xc3\xa9"),
      "a name that is no file name of cancel/ is not");
  char longest[SP_JOURNAL_MAX_RUN + 2];
  memset (longest, '7', sizeof longest);
  longest[SP_JOURNAL_MAX_RUN] = '\0';
  bool fits = sp_journal_run_valid (longest);
  longest[SP_JOURNAL_MAX_RUN] = '7';
  longest[SP_JOURNAL_MAX_RUN + 1] = '\0';
  ok (fits && !sp_journal_run_valid (longest), "names up to %d bytes", SP_JOURNAL_MAX_RUN);
}

int
main (int argc, char **argv)
{
  bool covered[N_LINE_CODES] = { false };
  bool all_covered = true;

  if (argc != 2)
    {
      fprintf (stderr, "usage: %s JOURNAL-DIR\n", argv[0]);
      return 2;
    }
  const char *root = argv[1];
  int n_invalid = count (root, "live-invalid") + count (root, "runs-invalid");
  int n_valid = count (root, "live-valid") + count (root, "runs-valid");

  plan (3 * n_invalid + n_valid + 2 + 2 + 3 + 4);
  run_dir (root, "live-invalid", SP_JOURNAL_LIVE, false, covered);
  run_dir (root, "runs-invalid", SP_JOURNAL_RUNS, false, covered);
  for (size_t i = 0; i < N_LINE_CODES; i++)
    if (!covered[i])
      {
        diag ("no fixture for %s", sp_proto_error_code_to_string (line_codes[i]));
        all_covered = false;
      }
  ok (all_covered, "every code a journal line can earn but frame_too_large has a fixture");
  ok (n_invalid >= 40 && n_valid >= 10, "%d invalid lines, %d valid", n_invalid, n_valid);
  run_dir (root, "live-valid", SP_JOURNAL_LIVE, true, NULL);
  run_dir (root, "runs-valid", SP_JOURNAL_RUNS, true, NULL);
  check_end_fields (root);
  check_sizes_and_names ();
  return done_testing ();
}
