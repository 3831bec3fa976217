/* runner-event.c: every event about a run leaves as one valid frame. */
#include "runner-event.h"

#include <stdio.h>
#include <string.h>

#include "runner-base.h"
#include "sp-utf8.h"

/* What an escaped error message or cwd may grow to; far below the frame. */
#define ESCAPED_TEXT_MAX (64 * 1024)

/* Whether the client's strict decoder takes the frame. The encoder
 * refuses much of what the decoder would, not all of it (a program's
 * line number past int32 got through, issue 29), and a frame the app
 * cannot decode costs it the runner every window shares: so the runner
 * reads each frame as the client will. Not output events: they are most
 * of the traffic, decoding one costs 1.5 times encoding it (64 KiB of
 * data: 1.4 ms against 0.9 ms), and the encoder already checks all a
 * decoder does of them (the runner's id and stream, data as UTF-8
 * without NUL, t_ms from the runner's clock). */
static bool
client_decodes (const SpMessage *msg, const char *line, size_t len)
{
  SpMessage back;
  SpProtoError err;

  if (msg->type == SP_MSG_OUTPUT)
    return true;
  if (sp_message_decode (line, len - 1, SP_DIR_EVENT, &back, &err, NULL) != 0)
    return false;
  sp_message_clear (&back);
  return true;
}

/* NULL when the frame cannot be made, is over the budget or would not
 * decode. */
static char *
encode_within (const SpMessage *msg, size_t *len)
{
  char *line = sp_message_encode (msg, len);

  /* *len counts the newline; the budget does not. */
  if (line != NULL && (*len - 1 > SP_PROTO_MAX_FRAME || !client_decodes (msg, line, *len)))
    {
      free (line);
      line = NULL;
    }
  return line;
}

/* Whether program_error is what the decoder refuses: it alone, in an
 * exited that holds nothing else. It is the program's text read by the
 * runner, so the likeliest culprit, and the only part left out for it. */
static bool
program_error_ok (const SpProgramError *error)
{
  SpMessage msg = { .type = SP_MSG_EXITED };
  size_t len;
  char *line;

  if (error == NULL)
    return true;
  msg.u.exited.id = (char *) "program-error";
  msg.u.exited.end = SP_END_EXITED;
  msg.u.exited.program_error = (SpProgramError *) error;
  line = encode_within (&msg, &len);
  free (line);
  return line != NULL;
}

static bool
text_ok (const char *s)
{
  return s == NULL || sp_utf8_valid (s, strlen (s));
}

/* s itself when it is valid UTF-8, else a malloc'd escaped copy that
 * *owned keeps for freeing. */
static char *
fixed_text (char *s, size_t max, char **owned)
{
  if (text_ok (s))
    return s;
  *owned = runner_escape_name (s, max);
  return *owned;
}

static char *
exited_fallback (const SpExited *orig, size_t *len)
{
  SpMessage msg = { .type = SP_MSG_EXITED, .u.exited = *orig };
  SpExited *ev = &msg.u.exited;
  size_t n = orig->n_files;
  SpFileInfo *files = n ? xcalloc (n, sizeof *files) : NULL;
  char **owned = xcalloc (4 * n + 2, sizeof *owned);
  char *line;

  /* 1. Escape every string that is not valid UTF-8; leave out a
   * program_error the client could not decode, keeping the rest. */
  ev->error = fixed_text (orig->error, ESCAPED_TEXT_MAX, &owned[0]);
  if (!program_error_ok (orig->program_error))
    ev->program_error = NULL;
  for (size_t i = 0; i < n; i++)
    {
      files[i] = orig->files[i];
      files[i].path = fixed_text (files[i].path, ESCAPED_TEXT_MAX, &owned[4 * i + 1]);
      /* The name stays the bytes on disk; the escaped path never is it. */
      if (files[i].name == NULL && !files[i].name_left_out && owned[4 * i + 1] != NULL)
        files[i].name_left_out = true;
      files[i].target = fixed_text (files[i].target, ESCAPED_TEXT_MAX, &owned[4 * i + 2]);
      files[i].mime = fixed_text (files[i].mime, ESCAPED_TEXT_MAX, &owned[4 * i + 3]);
      if (!text_ok (files[i].base64))
        files[i].base64 = NULL;
    }
  ev->files = files;
  line = encode_within (&msg, len);

  /* 2. Without inline image data. */
  for (size_t i = 0; line == NULL && i < n; i++)
    files[i].base64 = NULL;
  if (line == NULL && n > 0)
    line = encode_within (&msg, len);

  /* 3. Without the file list. */
  if (line == NULL && n > 0)
    {
      ev->files = NULL;
      ev->n_files = 0;
      ev->files_truncated = true;
      line = encode_within (&msg, len);
    }

  /* 4. Whatever went wrong, the run still ends, under its own id. */
  if (line == NULL)
    {
      SpMessage failed = { .type = SP_MSG_EXITED };
      failed.u.exited.id = orig->id;
      failed.u.exited.end = SP_END_FAILED;
      failed.u.exited.error = (char *) "the runner could not encode this run's result";
      failed.u.exited.t_ms = orig->t_ms;
      if (orig->cancelled > SP_CANCEL_NONE && orig->cancelled < SP_CANCEL_LAST)
        failed.u.exited.cancelled = orig->cancelled;
      line = encode_within (&failed, len);
    }

  for (size_t i = 0; i < 4 * n + 2; i++)
    free (owned[i]);
  free (owned);
  free (files);
  return line;
}

static char *
started_fallback (const SpStarted *orig, size_t *len)
{
  SpMessage msg = { .type = SP_MSG_STARTED, .u.started = *orig };
  cleanup_free char *cwd = NULL;

  msg.u.started.cwd = fixed_text (orig->cwd, ESCAPED_TEXT_MAX, &cwd);
  return encode_within (&msg, len);
}

static char *
error_fallback (const SpMessage *orig, size_t *len)
{
  SpMessage msg = *orig;
  cleanup_free char *message = NULL;

  msg.u.error.message = fixed_text (orig->u.error.message, ESCAPED_TEXT_MAX, &message);
  return encode_within (&msg, len);
}

char *
runner_event_encode (const SpMessage *msg, size_t *len)
{
  char *line = encode_within (msg, len);

  if (line != NULL)
    return line;
  if (msg->type == SP_MSG_EXITED)
    line = exited_fallback (&msg->u.exited, len);
  else if (msg->type == SP_MSG_STARTED)
    line = started_fallback (&msg->u.started, len);
  else if (msg->type == SP_MSG_ERROR)
    line = error_fallback (msg, len);
  if (line != NULL)
    return line;

  /* Only a bug gets here; say so, to the run's client when there is one. */
  const char *id = sp_message_run_id (msg);
  SpMessage err = { .type = SP_MSG_ERROR };
  err.u.error.id = id != NULL && sp_proto_id_valid (id) ? (char *) id : NULL;
  err.u.error.code = SP_ERR_INTERNAL;
  err.u.error.message = (char *) "the runner failed to encode an event";
  return encode_within (&err, len);
}

/* Valid characters pass; every other byte and every control character
 * becomes \xNN. The result is at most max bytes plus "…". */
char *
runner_escape_name (const char *raw, size_t max)
{
  Buf out = { 0 };
  size_t len = strlen (raw);

  for (size_t i = 0; i < len;)
    {
      unsigned char c = (unsigned char) raw[i];
      size_t seq = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
      char esc[8];
      const char *piece = raw + i;
      size_t piece_len = seq;

      if (seq == 0 || i + seq > len || !sp_utf8_valid (raw + i, seq) || c < 0x20 || c == 0x7f)
        {
          snprintf (esc, sizeof esc, "\\x%02x", c);
          piece = esc;
          piece_len = 4;
          seq = 1;
        }
      if (out.len + piece_len > max)
        {
          buf_append (&out, "\xe2\x80\xa6", 3);
          break;
        }
      buf_append (&out, piece, piece_len);
      i += seq;
    }
  buf_append (&out, "", 1);
  return out.data;
}
