/* fuzz-journal.c: sp_journal_decode on arbitrary lines, as a line of
 * live.jsonl and as an entry of runs.jsonl: the app reads both from a
 * directory that any process of the user can write.
 *
 * Beyond "no crash, no leak" (ASan, UBSan), for every input:
 * - a refused line has a real error code and a non-empty message that is
 *   valid UTF-8 (the app logs it), and leaves nothing in the line;
 * - an accepted line has every field its event promises, each string
 *   valid UTF-8 without NUL within the schema's caps, a run name that can
 *   be a file name in cancel/, and decodes the same way again. */
#include <string.h>

#include "fuzz-check.h"
#include "sp-journal.h"

static void
check_text (const char *text, size_t max)
{
  FUZZ_REQUIRE (text != NULL);
  FUZZ_REQUIRE (strlen (text) <= max);
  FUZZ_REQUIRE (fuzz_utf8_valid (text, strlen (text)));
}

static void
check_optional (const char *text)
{
  if (text != NULL)
    check_text (text, SP_JOURNAL_LINE_MAX);
}

static void
check_accepted (const SpJournalLine *line, SpJournalFile file)
{
  FUZZ_REQUIRE (file == SP_JOURNAL_LIVE || line->event == SP_JOURNAL_END);
  if (file == SP_JOURNAL_LIVE)
    {
      FUZZ_REQUIRE (line->run != NULL && sp_journal_run_valid (line->run));
      FUZZ_REQUIRE (strchr (line->run, '/') == NULL && strcmp (line->run, "..") != 0);
    }
  else
    FUZZ_REQUIRE (line->run == NULL && line->workspace == NULL);
  if (line->event == SP_JOURNAL_OUTPUT)
    {
      check_text (line->text, SP_JOURNAL_OUTPUT_MAX);
      FUZZ_REQUIRE (line->tool == NULL && line->end == NULL);
      return;
    }
  check_text (line->time, 24);
  FUZZ_REQUIRE (strlen (line->time) == 24 && line->time[23] == 'Z');
  check_text (line->tool, 32);
  FUZZ_REQUIRE (line->server_pid > 0 && line->server_pid <= INT32_MAX);
  /* Each tool's input names what it ran. */
  FUZZ_REQUIRE (line->code != NULL || line->command != NULL || line->path != NULL);
  check_optional (line->workspace);
  check_optional (line->language);
  check_optional (line->code);
  check_optional (line->command);
  check_optional (line->path);
  if (line->event == SP_JOURNAL_START)
    {
      FUZZ_REQUIRE (line->end == NULL && line->files == NULL);
      return;
    }
  check_text (line->end, 32);
  FUZZ_REQUIRE (!line->has_exit_code || (line->exit_code >= 0 && line->exit_code <= 255));
  FUZZ_REQUIRE (line->duration_ms >= 0);
  FUZZ_REQUIRE ((line->error_type == NULL) == (line->error_message == NULL));
  check_optional (line->error_type);
  check_optional (line->error_message);
  check_optional (line->diff);
  check_text (line->stdout_text, SP_JOURNAL_TEXT_MAX + 64);
  check_text (line->stderr_text, SP_JOURNAL_TEXT_MAX + 64);
  FUZZ_REQUIRE (line->files != NULL);
  for (size_t i = 0; line->files[i] != NULL; i++)
    check_optional (line->files[i]);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const SpJournalFile files[] = { SP_JOURNAL_LIVE, SP_JOURNAL_RUNS };

  for (size_t f = 0; f < 2; f++)
    {
      SpJournalLine line, again;
      SpProtoError err = { 0 };

      if (sp_journal_decode ((const char *) data, size, files[f], &line, &err) != 0)
        {
          FUZZ_REQUIRE (err.code > SP_ERR_NONE && err.code < SP_ERR_LAST);
          FUZZ_REQUIRE (memchr (err.message, '\0', sizeof err.message) != NULL);
          FUZZ_REQUIRE (err.message[0] != '\0');
          FUZZ_REQUIRE (fuzz_utf8_valid (err.message, strlen (err.message)));
          FUZZ_REQUIRE (line.run == NULL && line.time == NULL && line.text == NULL
                        && line.files == NULL && line.end == NULL);
          continue;
        }
      check_accepted (&line, files[f]);
      /* Decoding does not depend on anything but the bytes. */
      FUZZ_REQUIRE (sp_journal_decode ((const char *) data, size, files[f], &again, &err) == 0);
      FUZZ_REQUIRE (again.event == line.event && again.has_exit_code == line.has_exit_code
                    && again.exit_code == line.exit_code);
      sp_journal_line_clear (&again);
      sp_journal_line_clear (&line);
    }
  return 0;
}
