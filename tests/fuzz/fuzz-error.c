/* fuzz-error.c: runner_error_parse() on arbitrary stderr, with the
 * protocol's strict decoder as the oracle.
 *
 * The input is what a program wrote to stderr; the runner keeps its last
 * RUNNER_ERROR_TAIL bytes and sanitizes them to UTF-8 before parsing, and
 * so does this harness. Each input is read as python's, node's and bash's
 * stderr. For every error found:
 * - at most SP_PROGRAM_ERROR_MAX_FRAMES frames, every string valid UTF-8
 *   (by the harness's own decoder) within SP_PROGRAM_ERROR_MAX_TEXT;
 * - in an exited event it encodes, and sp_message_decode, the client's
 *   strict decoder, accepts it with the same line and frames: the runner
 *   must never send an event the app cannot read (issue 29: a line number
 *   past int32 was one). */
#include <string.h>

#include "fuzz-check.h"
#include "runner-error.h"
#include "sp-utf8.h"

static void
check_text (const char *s)
{
  FUZZ_REQUIRE (s != NULL);
  FUZZ_REQUIRE (strlen (s) <= SP_PROGRAM_ERROR_MAX_TEXT);
  FUZZ_REQUIRE (fuzz_utf8_valid (s, strlen (s)));
}

static void
check_decodes (SpProgramError *error)
{
  SpMessage msg = { .type = SP_MSG_EXITED }, back;
  SpProtoError err = { 0 };
  size_t len = 0;
  char *line;

  msg.u.exited.id = (char *) "r1";
  msg.u.exited.end = SP_END_EXITED;
  msg.u.exited.exit_code = 1;
  msg.u.exited.program_error = error;
  line = sp_message_encode (&msg, &len);
  FUZZ_REQUIRE (line != NULL);
  if (sp_message_decode (line, len - 1, SP_DIR_EVENT, &back, &err, NULL) != 0)
    {
      fprintf (stderr, "the decoder refuses the event: %s\n", err.message);
      FUZZ_REQUIRE (!"the client's strict decoder accepts the event");
    }
  FUZZ_REQUIRE (back.u.exited.program_error != NULL);
  FUZZ_REQUIRE (back.u.exited.program_error->line == error->line);
  FUZZ_REQUIRE (back.u.exited.program_error->n_frames == error->n_frames);
  sp_message_clear (&back);
  free (line);
}

static void
check_language (const char *language, const char *snippet, const char *text)
{
  SpProgramError *error = runner_error_parse (language, text, snippet);

  if (error == NULL)
    return;
  check_text (error->type);
  check_text (error->message);
  FUZZ_REQUIRE (error->n_frames <= SP_PROGRAM_ERROR_MAX_FRAMES);
  for (size_t i = 0; i < error->n_frames; i++)
    {
      check_text (error->frames[i].file);
      if (error->frames[i].function != NULL)
        check_text (error->frames[i].function);
    }
  check_decodes (error);
  sp_program_error_free (error);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  size_t start = size > RUNNER_ERROR_TAIL ? size - RUNNER_ERROR_TAIL : 0;
  size_t consumed = 0, out_len = 0;
  char *text = sp_utf8_sanitize ((const char *) data + start, size - start, true, &consumed,
                                 &out_len);

  if (text == NULL)
    return 0;
  check_language ("python", "main.py", text);
  check_language ("javascript", "main.js", text);
  check_language ("bash", "main.sh", text);
  check_language ("ruby", "main.rb", text);
  check_language ("r", "main.R", text);
  check_language ("java", "Main.java", text);
  free (text);
  return 0;
}
