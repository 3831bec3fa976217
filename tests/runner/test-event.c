/* test-event.c: runner_event_encode() always yields one valid frame, and
 * an exited event always stays an exited event with its id.
 *
 * The runner builds its events within the budget already (tested with
 * the real runner in test-contract.py); these are the repairs behind that,
 * fed events the runner itself no longer builds: raw bytes in strings,
 * a list over the frame, an out-of-range field, values that encode but
 * that the decoder refuses (issue 29). Every frame is checked by decoding
 * it with the protocol's own strict decoder, as a client does. */
#include <string.h>

#include "../protocol/tap.h"
#include "runner-event.h"
#include "runner-base.h"

/* Encodes msg, checks the frame fits and decodes as an event; returns the
 * decoded message (to be cleared) or type SP_MSG_INVALID. */
static SpMessage
round_trip (const SpMessage *msg, const char *what)
{
  SpMessage out = { .type = SP_MSG_INVALID };
  SpProtoError err = { 0 };
  size_t len = 0;
  char *line = runner_event_encode (msg, &len);

  ok (line != NULL, "%s: a frame comes out", what);
  if (line == NULL)
    return out;
  ok (len - 1 <= SP_PROTO_MAX_FRAME, "%s: it fits in %d bytes (%zu)", what, SP_PROTO_MAX_FRAME,
      len - 1);
  if (sp_message_decode (line, len - 1, SP_DIR_EVENT, &out, &err, NULL) != 0)
    {
      ok (false, "%s: it decodes: %s", what, err.message);
      out.type = SP_MSG_INVALID;
    }
  free (line);
  return out;
}

static SpExited
base_exited (void)
{
  SpExited ev = { 0 };

  ev.id = (char *) "run-1";
  ev.end = SP_END_EXITED;
  ev.exit_code = 3;
  ev.t_ms = 1234;
  ev.stdout_bytes = 10;
  return ev;
}

static void
test_raw_bytes (void)
{
  SpMessage msg = { .type = SP_MSG_EXITED, .u.exited = base_exited () };
  SpFileInfo file
    = { .path = (char *) "caf\xe9\x01.txt", .mime = (char *) "text/plain", .size = 5 };

  msg.u.exited.end = SP_END_FAILED;
  msg.u.exited.error = (char *) "cannot execute /tmp/d\xff/py: No such file";
  msg.u.exited.files = &file;
  msg.u.exited.n_files = 1;
  SpMessage out = round_trip (&msg, "raw bytes in error and path");
  is_int (out.type, SP_MSG_EXITED, "it stays an exited event");
  is_str (out.u.exited.id, "run-1", "with its id");
  is_str (out.u.exited.error, "cannot execute /tmp/d\\xff/py: No such file",
          "the error is escaped, not dropped");
  is_int ((long long) out.u.exited.n_files, 1, "the file is still listed");
  if (out.u.exited.n_files == 1)
    is_str (out.u.exited.files[0].path, "caf\\xe9\\x01.txt", "under its escaped name");
  sp_message_clear (&out);
}

static void
test_over_budget (void)
{
  SpMessage msg = { .type = SP_MSG_EXITED, .u.exited = base_exited () };
  size_t n = 3;
  SpFileInfo files[3];
  size_t big = 3 * 1024 * 1024;
  char *data = xmalloc (big + 1);

  memset (data, 'A', big);
  data[big] = '\0';
  for (size_t i = 0; i < n; i++)
    files[i] = (SpFileInfo){ .path = (char *) "plot.png",
                             .mime = (char *) "image/png",
                             .width = 10,
                             .height = 10,
                             .size = 1,
                             .base64 = data };
  msg.u.exited.files = files;
  msg.u.exited.n_files = n;
  SpMessage out = round_trip (&msg, "9 MiB of inline images");
  is_int (out.type, SP_MSG_EXITED, "it stays an exited event");
  is_int (out.u.exited.end, SP_END_EXITED, "with the run's real end");
  is_int (out.u.exited.exit_code, 3, "and exit code");
  is_int ((long long) out.u.exited.n_files, 3, "every file is still listed");
  bool any = false;
  for (size_t i = 0; i < out.u.exited.n_files; i++)
    any |= out.u.exited.files[i].base64 != NULL;
  ok (!any, "without their inline data");
  sp_message_clear (&out);

  /* A list too long even without data: the list goes, flagged. */
  size_t many = 60000;
  SpFileInfo *list = xcalloc (many, sizeof *list);
  for (size_t i = 0; i < many; i++)
    list[i] = (SpFileInfo){ .path = data + big - 200, .mime = (char *) "text/plain" };
  msg.u.exited.files = list;
  msg.u.exited.n_files = many;
  out = round_trip (&msg, "a 12 MiB file list");
  is_int (out.type, SP_MSG_EXITED, "it stays an exited event");
  is_int (out.u.exited.end, SP_END_EXITED, "with the run's real end");
  ok (out.u.exited.n_files == 0 && out.u.exited.files_truncated,
      "the list is left out and files_truncated says so");
  sp_message_clear (&out);
  free (list);
  free (data);
}

static void
test_unencodable (void)
{
  SpMessage msg = { .type = SP_MSG_EXITED, .u.exited = base_exited () };

  msg.u.exited.limit = (SpLimit) 99; /* a bug: no such limit */
  msg.u.exited.cancelled = SP_CANCEL_TERMINATE;
  SpMessage out = round_trip (&msg, "an exited event no repair can save");
  is_int (out.type, SP_MSG_EXITED, "it still ends the run");
  is_str (out.u.exited.id, "run-1", "under its id");
  is_int (out.u.exited.end, SP_END_FAILED, "as failed");
  ok (out.u.exited.error != NULL && strstr (out.u.exited.error, "could not encode") != NULL,
      "saying why");
  is_int (out.u.exited.cancelled, SP_CANCEL_TERMINATE, "keeping its cancellation");
  is_int (out.u.exited.t_ms, 1234, "and its time");
  sp_message_clear (&out);
}

static void
test_other_events (void)
{
  SpMessage msg = { .type = SP_MSG_STARTED };

  msg.u.started.id = (char *) "r2";
  msg.u.started.cwd = (char *) "/tmp/\xff/run-0/work";
  msg.u.started.sandbox.mode = (char *) "namespaces";
  SpMessage out = round_trip (&msg, "started with a raw-byte cwd");
  is_int (out.type, SP_MSG_STARTED, "it stays a started event");
  is_str (out.u.started.cwd, "/tmp/\\xff/run-0/work", "its cwd escaped");
  sp_message_clear (&out);

  SpMessage bad = { .type = SP_MSG_OUTPUT };
  bad.u.output.id = (char *) "r3";
  bad.u.output.stream = (SpStream) 7;
  bad.u.output.data = (char *) "x";
  out = round_trip (&bad, "an output event that cannot be encoded");
  is_int (out.type, SP_MSG_ERROR, "becomes an error");
  is_str (out.u.error.id, "r3", "that names its run");
  sp_message_clear (&out);

  SpMessage err = { .type = SP_MSG_ERROR };
  err.u.error.code = SP_ERR_UNKNOWN_FIELD;
  err.u.error.message = (char *) "unknown field \"\xc3\"";
  out = round_trip (&err, "an error message cut inside a character");
  is_int (out.type, SP_MSG_ERROR, "stays that error");
  is_int (out.u.error.code, SP_ERR_UNKNOWN_FIELD, "with its code");
  sp_message_clear (&out);
}

/* Values the encoder writes but the decoder refuses: the event is
 * repaired as little as it takes, never sent as it is. */
static void
test_undecodable (void)
{
  SpMessage msg = { .type = SP_MSG_EXITED, .u.exited = base_exited () };
  SpProgramFrame frame = { .file = (char *) "/code/main.py", .line = 99999999999 };
  SpProgramError error = { .type = (char *) "ValueError",
                           .message = (char *) "x",
                           .line = 99999999999,
                           .frames = &frame,
                           .n_frames = 1 };
  SpFileInfo file = { .path = (char *) "plot.png",
                      .mime = (char *) "image/png",
                      .size = 5,
                      .width = 640,
                      .height = 480 };

  msg.u.exited.program_error = &error;
  msg.u.exited.files = &file;
  msg.u.exited.n_files = 1;
  SpMessage out = round_trip (&msg, "a program_error line past int32");
  is_int (out.type, SP_MSG_EXITED, "it stays an exited event");
  is_str (out.u.exited.id, "run-1", "with its id");
  is_int (out.u.exited.exit_code, 3, "and exit code");
  ok (out.u.exited.program_error == NULL, "without the program_error");
  is_int ((long long) out.u.exited.n_files, 1, "the file is still listed");
  sp_message_clear (&out);

  /* The control: a file the decoder refuses keeps a good program_error. */
  frame.line = 2147483647;
  error.line = 2147483647;
  file.width = (int64_t) INT32_MAX + 1;
  out = round_trip (&msg, "an image width past int32");
  is_int (out.type, SP_MSG_EXITED, "it stays an exited event");
  ok (out.u.exited.program_error != NULL && out.u.exited.program_error->line == 2147483647,
      "the program_error is kept, at the largest line");
  ok (out.u.exited.n_files == 0 && out.u.exited.files_truncated,
      "the list is left out and files_truncated says so");
  sp_message_clear (&out);

  SpMessage started = { .type = SP_MSG_STARTED };
  started.u.started.id = (char *) "r4";
  started.u.started.cwd = (char *) "/tmp/run-0/work";
  started.u.started.sandbox.mode = (char *) "namespaces";
  started.u.started.timeout_ms = -1;
  out = round_trip (&started, "started with a negative timeout");
  is_int (out.type, SP_MSG_ERROR, "becomes an error");
  is_int (out.u.error.code, SP_ERR_INTERNAL, "of code internal");
  is_str (out.u.error.id, "r4", "that names its run");
  sp_message_clear (&out);
}

int
main (void)
{
  plan (39 + 17);
  test_raw_bytes ();
  test_over_budget ();
  test_unencodable ();
  test_other_events ();
  test_undecodable ();
  return done_testing ();
}
