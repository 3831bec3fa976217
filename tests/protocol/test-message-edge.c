/* test-message-edge.c: the corners of encoding and decoding that the
 * full round trips in test-message.c do not reach: defaults left out,
 * escaping, direction, the id of a rejected frame, frames that are not
 * NUL-terminated, and messages the encoder must refuse. */
#include "sp-proto.h"
#include "tap.h"
#include "test-common.h"

/* Decodes a C-string frame and returns the wire name of the outcome
 * ("success" or the error code), so a failing check prints both. */
static const char *
decode_code (const char *frame, SpDirection dir, char *id_out)
{
  SpMessage msg;
  SpProtoError err = { 0 };
  int rc = sp_message_decode (frame, strlen (frame), dir, &msg, &err, id_out);

  if (rc == 0)
    {
      sp_message_clear (&msg);
      return "success";
    }
  return sp_proto_error_code_to_string (err.code);
}

static void
test_minimal_run (void)
{
  SpMessage m = { .type = SP_MSG_RUN }, back;
  SpProtoError err = { 0 };
  size_t len = 0;
  const char *want
    = "{\"v\":1,\"type\":\"run\",\"id\":\"m\",\"language\":\"python\",\"code\":\"1\"}\n";

  m.u.run.id = xstrdup ("m");
  m.u.run.language = xstrdup ("python");
  m.u.run.code = xstrdup ("1");
  char *line = sp_message_encode (&m, &len);
  /* Defaults are left out, so the frame is exactly the three fields. */
  is_str (line, want, "minimal run: only id, language and code on the wire");
  is_int (len, (long long) strlen (want), "minimal run: length");

  is_int (sp_message_decode (want, strlen (want) - 1, SP_DIR_REQUEST, &back, &err, NULL), 0,
          "minimal run: decodes");
  const SpRun *r = &back.u.run;
  is_str (r->id, "m", "minimal run: id");
  is_str (r->language, "python", "minimal run: language");
  is_str (r->code, "1", "minimal run: code");
  ok (r->path == NULL && r->name == NULL && r->args == NULL && r->stdin_data == NULL
        && r->env == NULL && r->cwd == NULL,
      "minimal run: optional strings stay NULL");
  ok (!r->stdin_open && !r->network && r->timeout_ms == 0 && r->memory_mib == 0
        && r->output_limit == 0,
      "minimal run: optional values keep their defaults");
  char *again = sp_message_encode (&back, NULL);
  is_str (again, want, "minimal run: re-encodes byte-identical");
  free (again);
  free (line);
  sp_message_clear (&back);
  sp_message_clear (&m);
}

static void
test_output_escaping (void)
{
  SpMessage m = { .type = SP_MSG_OUTPUT }, back;
  SpProtoError err = { 0 };
  char data[128];
  size_t len = 0;
  bool raw_control = false;

  /* Every byte from 0x01 to 0x7f, newline and quote included. */
  for (int i = 1; i < 128; i++)
    data[i - 1] = (char) i;
  data[127] = '\0';
  m.u.output.id = xstrdup ("o");
  m.u.output.data = xstrdup (data);
  char *line = sp_message_encode (&m, &len);
  ok (line != NULL, "escaping: encodes");
  if (line == NULL)
    line = xstrdup ("\n");
  for (size_t i = 0; i + 1 < len; i++)
    raw_control |= (unsigned char) line[i] < 0x20;
  ok (!raw_control && line[len - 1] == '\n',
      "escaping: no raw control byte before the final newline");
  ok (strstr (line, "\\n") != NULL && strstr (line, "\\\"") != NULL
        && strstr (line, "\\u0001") != NULL,
      "escaping: newline, quote and U+0001 appear escaped");
  is_int (sp_message_decode (line, len - 1, SP_DIR_EVENT, &back, &err, NULL), 0,
          "escaping: decodes");
  is_str (back.u.output.data, data, "escaping: data survives");
  free (line);
  sp_message_clear (&back);
  sp_message_clear (&m);
}

static void
test_direction (void)
{
  is_str (decode_code ("{\"v\":1,\"type\":\"ready\"}", SP_DIR_REQUEST, NULL), "unknown_type",
          "direction: ready is not a request");
  is_str (decode_code ("{\"v\":1,\"type\":\"error\",\"code\":\"io\",\"message\":\"m\"}",
                       SP_DIR_REQUEST, NULL),
          "unknown_type", "direction: error is not a request");
  is_str (decode_code ("{\"v\":1,\"type\":\"hello\"}", SP_DIR_EVENT, NULL), "unknown_type",
          "direction: hello is not an event");
  is_str (decode_code ("{\"v\":1,\"type\":\"run\",\"id\":\"a\",\"language\":\"python\","
                       "\"code\":\"1\"}",
                       SP_DIR_EVENT, NULL),
          "unknown_type", "direction: run is not an event");
  is_str (decode_code ("{\"v\":1,\"type\":\"invalid\"}", SP_DIR_EVENT, NULL), "unknown_type",
          "direction: the internal name \"invalid\" is no type either");
}

static void
test_id_out (void)
{
  /* The id buffer sits between guard bytes that must stay untouched. */
  struct
  {
    char before[8];
    char id[SP_PROTO_MAX_ID + 1];
    char after[8];
  } buf;
  char id64[SP_PROTO_MAX_ID + 1], frame[256];

  memset (&buf, 'G', sizeof buf);
  is_str (decode_code ("{\"v\":1,\"type\":\"run\",\"id\":\"r-7\",\"code\":\"1\"}", SP_DIR_REQUEST,
                       buf.id),
          "missing_field", "id_out: run without language fails");
  is_str (buf.id, "r-7", "id_out: ...but still names its run");
  is_str (decode_code ("{\"v\":9,\"type\":\"cancel\",\"id\":\"r-8\"}", SP_DIR_REQUEST, buf.id),
          "bad_version", "id_out: bad version fails");
  is_str (buf.id, "r-8", "id_out: ...but still names its run");
  is_str (decode_code ("{\"v\":1,\"type\":\"stdin\",\"id\":\"r-9\",\"eof\":true,\"x\":1}",
                       SP_DIR_REQUEST, buf.id),
          "unknown_field", "id_out: unknown field fails");
  is_str (buf.id, "r-9", "id_out: ...but still names its run");

  memset (id64, 'i', SP_PROTO_MAX_ID);
  id64[SP_PROTO_MAX_ID] = '\0';
  snprintf (frame, sizeof frame, "{\"v\":1,\"type\":\"run\",\"id\":\"%s\"}", id64);
  is_str (decode_code (frame, SP_DIR_REQUEST, buf.id), "missing_field",
          "id_out: run with a %d-byte id and nothing else fails", SP_PROTO_MAX_ID);
  is_str (buf.id, id64, "id_out: ...and the longest id is copied whole");

  snprintf (frame, sizeof frame, "{\"v\":1,\"type\":\"run\",\"id\":\"%sj\"}", id64);
  is_str (decode_code (frame, SP_DIR_REQUEST, buf.id), "invalid_value",
          "id_out: an id one byte too long is rejected");
  is_str (buf.id, "", "id_out: ...and not copied");
  ok (memcmp (buf.before, "GGGGGGGG", 8) == 0 && memcmp (buf.after, "GGGGGGGG", 8) == 0,
      "id_out: nothing written outside the buffer");

  is_str (decode_code ("{\"v\":1,\"type\":\"cancel\",\"id\":\"a b\"}", SP_DIR_REQUEST, buf.id),
          "invalid_value", "id_out: id with a space is rejected");
  is_str (buf.id, "", "id_out: ...and not copied");
  is_str (decode_code ("{\"v\":1,\"type\":\"cancel\",\"id\":7}", SP_DIR_REQUEST, buf.id),
          "wrong_type", "id_out: numeric id is rejected");
  is_str (buf.id, "", "id_out: ...and not copied");

  strcpy (buf.id, "stale");
  is_str (decode_code ("{\"v\":1,\"type\":\"hello\",\"client\":1}", SP_DIR_REQUEST, buf.id),
          "wrong_type", "id_out: hello with a numeric client fails");
  is_str (buf.id, "", "id_out: ...and a stale id from an earlier frame is cleared");
  strcpy (buf.id, "stale");
  is_str (decode_code ("{\"v\":1,\"id\":\"r\"", SP_DIR_REQUEST, buf.id), "invalid_json",
          "id_out: truncated JSON fails");
  is_str (buf.id, "", "id_out: ...with no id, as nothing could be parsed");
  is_str (decode_code ("{\"v\":1,\"type\":\"run\",\"id\":\"r\"}", SP_DIR_REQUEST, NULL),
          "missing_field", "id_out: may be NULL");
}

static void
test_frame_bounds (void)
{
  SpMessage m;
  SpProtoError err = { 0 };
  const char hello[] = "{\"v\":1,\"type\":\"hello\"}";
  /* Frames handed out by SpFrameReader are not NUL-terminated: the
   * decoder must stop at len even when garbage follows. */
  const char buffer[] = "{\"v\":1,\"type\":\"hello\"}{\"garbage";

  is_int (sp_message_decode (buffer, strlen (hello), SP_DIR_REQUEST, &m, &err, NULL), 0,
          "bounds: decoding stops at len");
  sp_message_clear (&m);
  is_int (sp_message_decode (buffer, strlen (hello) - 1, SP_DIR_REQUEST, &m, &err, NULL), -1,
          "bounds: one byte short is invalid");

  /* A NUL would hide the rest of the frame from any C-string consumer. */
  const char nul[] = "{\"v\":1,\"type\":\"hello\",\"client\":\"a\0b\"}";
  err.message[0] = '\0';
  is_int (sp_message_decode (nul, sizeof nul - 1, SP_DIR_REQUEST, &m, &err, NULL), -1,
          "bounds: raw NUL inside the frame is rejected");
  is_str (sp_proto_error_code_to_string (err.code), "nul_byte", "bounds: ...as nul_byte");
  ok (err.message[0] != '\0', "bounds: ...with a message");
  ok (m.type == SP_MSG_INVALID && m.u.run.id == NULL, "bounds: failed decode leaves out zeroed");
}

static void
test_encoder_refuses (void)
{
  SpMessage m = { 0 };

  ok (sp_message_encode (&m, NULL) == NULL, "encode: SP_MSG_INVALID is refused");
  m.type = SP_MSG_LAST;
  ok (sp_message_encode (&m, NULL) == NULL, "encode: SP_MSG_LAST is refused");

  m = (SpMessage){ .type = SP_MSG_OUTPUT };
  m.u.output.id = xstrdup ("o");
  m.u.output.data = xstrdup ("bad \xff byte");
  ok (sp_message_encode (&m, NULL) == NULL, "encode: output that is not UTF-8 is refused");
  sp_message_clear (&m);

  m = (SpMessage){ .type = SP_MSG_RUN };
  m.u.run.id = xstrdup ("r");
  m.u.run.language = xstrdup ("python");
  m.u.run.code = xstrdup ("1");
  m.u.run.env = strv_new ("NO_EQUALS_SIGN", NULL);
  ok (sp_message_encode (&m, NULL) == NULL, "encode: env entry without '=' is refused");
  sp_message_clear (&m);

  m = (SpMessage){ .type = SP_MSG_EXITED };
  m.u.exited.id = xstrdup ("x");
  m.u.exited.end = SP_END_LAST;
  ok (sp_message_encode (&m, NULL) == NULL, "encode: exited with an unknown end is refused");
  sp_message_clear (&m);
}

/* Joins the names that to_string gives 0..n-1, for one readable compare. */
static const char *
joined (const char *(*to_string) (int), int n)
{
  static char buf[512];

  buf[0] = '\0';
  for (int i = 0; i < n; i++)
    snprintf (buf + strlen (buf), sizeof buf - strlen (buf), "%s%s", i ? "," : "", to_string (i));
  return buf;
}

static const char *
code_name (int i)
{
  return sp_proto_error_code_to_string ((SpProtoErrorCode) i);
}

static const char *
type_name (int i)
{
  return sp_message_type_to_string ((SpMessageType) i);
}

static const char *
limit_name (int i)
{
  return sp_limit_to_string ((SpLimit) i);
}

static void
test_names (void)
{
  bool codes_ok = true;

  /* The wire vocabulary is a contract with every client. */
  is_str (joined (code_name, SP_ERR_LAST),
          "none,invalid_json,not_object,bad_version,unknown_type,missing_field,wrong_type,"
          "invalid_value,unknown_field,frame_too_large,nul_byte,unknown_run,duplicate_run,"
          "run_state,unsupported_language,limit,io,internal,unknown_session",
          "names: error codes on the wire");
  is_str (
    joined (type_name, SP_MSG_LAST),
    "invalid,hello,run,cancel,stdin,release,ready,queued,started,output,exited,released,"
    "error,session_close,session_restart,session_ended,input_wait,display,phase,output_omitted",
    "names: message types on the wire");
  is_str (joined (limit_name, SP_LIMIT_LAST),
          "none,time,cpu,memory,output,processes,disk,input_idle,compile_time",
          "names: limits on the wire");

  for (int c = SP_ERR_NONE + 1; c < SP_ERR_LAST; c++)
    codes_ok &= (int) sp_proto_error_code_from_string (sp_proto_error_code_to_string (c)) == c;
  ok (codes_ok, "names: every error code maps to its wire name and back");
  is_int (sp_proto_error_code_from_string ("none"), SP_ERR_NONE,
          "names: \"none\" is not an error code a peer can send");
  is_int (sp_proto_error_code_from_string ("frobnicate"), SP_ERR_NONE,
          "names: an unknown name maps to SP_ERR_NONE");
  is_str (sp_proto_error_code_to_string (SP_ERR_LAST), "internal",
          "names: an out-of-range code is reported as internal");
}

/* The runner's times are optional (older runners send none) but never
 * negative or of another type. */
static void
test_times (void)
{
  is_str (decode_code ("{\"v\":1,\"type\":\"output\",\"id\":\"r\",\"stream\":\"stdout\","
                       "\"data\":\"a\",\"t_ms\":-1}",
                       SP_DIR_EVENT, NULL),
          "invalid_value", "times: a negative output t_ms");
  is_str (decode_code ("{\"v\":1,\"type\":\"output\",\"id\":\"r\",\"stream\":\"stdout\","
                       "\"data\":\"a\",\"t_ms\":\"5\"}",
                       SP_DIR_EVENT, NULL),
          "wrong_type", "times: an output t_ms as a string");
  is_str (decode_code ("{\"v\":1,\"type\":\"exited\",\"id\":\"r\",\"end\":\"exited\","
                       "\"exit_code\":0,\"t_ms\":2,\"wall_ms\":3,\"cpu_ms\":4,"
                       "\"peak_memory_bytes\":5,\"stdout_bytes\":6,\"stderr_bytes\":7,"
                       "\"stdout_truncated\":false,\"stderr_truncated\":false,"
                       "\"files\":[{\"path\":\"f\",\"size\":1,\"mime\":\"text/plain\","
                       "\"created\":true,\"t_ms\":-3}],\"files_truncated\":false}",
                       SP_DIR_EVENT, NULL),
          "invalid_value", "times: a negative file t_ms");
}

/* phase (issue 38): the four fields, of their types, "compile" or "run",
 * a limit of at least 1 ms. */
static void
test_phase (void)
{
  SpMessage msg = { .type = SP_MSG_PHASE };
  const char *head = "{\"v\":1,\"type\":\"phase\",\"id\":\"r\",";

  struct
  {
    const char *rest, *code, *what;
  } cases[] = {
    { "\"phase\":\"compile\",\"timeout_ms\":60000,\"t_ms\":3}", "success", "the four fields" },
    { "\"phase\":\"run\",\"timeout_ms\":1,\"t_ms\":0}", "success", "run, the smallest limit" },
    { "\"timeout_ms\":60000,\"t_ms\":3}", "missing_field", "phase is required" },
    { "\"phase\":\"compile\",\"t_ms\":3}", "missing_field", "timeout_ms is required" },
    { "\"phase\":\"compile\",\"timeout_ms\":60000}", "missing_field", "t_ms is required" },
    { "\"phase\":\"link\",\"timeout_ms\":60000,\"t_ms\":3}", "invalid_value", "no other phase" },
    { "\"phase\":1,\"timeout_ms\":60000,\"t_ms\":3}", "wrong_type", "phase as a number" },
    { "\"phase\":\"run\",\"timeout_ms\":0,\"t_ms\":3}", "invalid_value", "no zero limit" },
    { "\"phase\":\"run\",\"timeout_ms\":\"5\",\"t_ms\":3}", "wrong_type", "limit as a string" },
    { "\"phase\":\"run\",\"timeout_ms\":5,\"t_ms\":-1}", "invalid_value", "a negative t_ms" },
    { "\"phase\":\"run\",\"timeout_ms\":5,\"t_ms\":3,\"x\":1}", "unknown_field", "no other field" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char frame[256];
      snprintf (frame, sizeof frame, "%s%s", head, cases[i].rest);
      is_str (decode_code (frame, SP_DIR_EVENT, NULL), cases[i].code, "phase: %s", cases[i].what);
    }
  is_str (decode_code ("{\"v\":1,\"type\":\"phase\",\"phase\":\"run\",\"timeout_ms\":5,\"t_ms\":3}",
                       SP_DIR_EVENT, NULL),
          "missing_field", "phase: names its run");
  is_str (decode_code ("{\"v\":1,\"type\":\"phase\",\"id\":\"r\",\"phase\":\"run\","
                       "\"timeout_ms\":5,\"t_ms\":3}",
                       SP_DIR_REQUEST, NULL),
          "unknown_type", "phase: an event, never a request");
  msg.u.phase.id = (char *) "";
  msg.u.phase.timeout_ms = 5;
  ok (sp_message_encode (&msg, NULL) == NULL, "phase: not encoded without a run id");
  msg.u.phase.id = (char *) "r";
  msg.u.phase.timeout_ms = 0;
  ok (sp_message_encode (&msg, NULL) == NULL, "phase: not encoded without a limit");
  msg.u.phase.timeout_ms = 5;
  msg.u.phase.phase = SP_PHASE_LAST;
  ok (sp_message_encode (&msg, NULL) == NULL, "phase: not encoded with an unknown phase");
  msg.u.phase.phase = SP_PHASE_RUN;
  msg.u.phase.t_ms = -1;
  ok (sp_message_encode (&msg, NULL) == NULL, "phase: not encoded with a negative t_ms");
}

/* input_wait is strict like every event: all three fields, of their
 * types, nothing else; and the encoder refuses what the decoder would. */
static void
test_input_wait (void)
{
  SpMessage msg = { .type = SP_MSG_INPUT_WAIT };

  is_str (decode_code ("{\"v\":1,\"type\":\"input_wait\",\"id\":\"r\",\"waiting\":true,"
                       "\"t_ms\":3}",
                       SP_DIR_EVENT, NULL),
          "success", "input_wait: the three fields decode");
  is_str (decode_code ("{\"v\":1,\"type\":\"input_wait\",\"id\":\"r\",\"t_ms\":3}", SP_DIR_EVENT,
                       NULL),
          "missing_field", "input_wait: waiting is required");
  is_str (decode_code ("{\"v\":1,\"type\":\"input_wait\",\"id\":\"r\",\"waiting\":true}",
                       SP_DIR_EVENT, NULL),
          "missing_field", "input_wait: t_ms is required");
  is_str (decode_code ("{\"v\":1,\"type\":\"input_wait\",\"id\":\"r\",\"waiting\":1,"
                       "\"t_ms\":3}",
                       SP_DIR_EVENT, NULL),
          "wrong_type", "input_wait: waiting as a number");
  is_str (decode_code ("{\"v\":1,\"type\":\"input_wait\",\"id\":\"r\",\"waiting\":true,"
                       "\"t_ms\":-1}",
                       SP_DIR_EVENT, NULL),
          "invalid_value", "input_wait: a negative t_ms");
  is_str (decode_code ("{\"v\":1,\"type\":\"input_wait\",\"id\":\"r\",\"waiting\":true,"
                       "\"t_ms\":3,\"fd\":0}",
                       SP_DIR_EVENT, NULL),
          "unknown_field", "input_wait: no other field");
  is_str (decode_code ("{\"v\":1,\"type\":\"input_wait\",\"waiting\":true,\"t_ms\":3}",
                       SP_DIR_EVENT, NULL),
          "missing_field", "input_wait: names its run");
  msg.u.input_wait.id = (char *) "";
  ok (sp_message_encode (&msg, NULL) == NULL, "input_wait: not encoded without a run id");
  msg.u.input_wait.id = (char *) "r";
  msg.u.input_wait.t_ms = -1;
  ok (sp_message_encode (&msg, NULL) == NULL, "input_wait: not encoded with a negative t_ms");
}

/* output_omitted (issue 38) is strict like every event: what was left
 * out is at least a byte, no more lines than bytes, a file only as a
 * plain name in the run's directory, file_cut only with a file; and the
 * encoder refuses what the decoder would. */
static void
test_output_omitted (void)
{
  SpMessage msg = { .type = SP_MSG_OUTPUT_OMITTED };
  SpMessage back = { 0 };
  SpProtoError err = { 0 };
  const char *good = "{\"v\":1,\"type\":\"output_omitted\",\"id\":\"r\",\"stream\":\"stdout\","
                     "\"bytes\":10,\"lines\":2,\"t_ms\":3,\"file\":\"sandpad-stdout.txt\"}";

  is_str (decode_code (good, SP_DIR_EVENT, NULL), "success", "omitted: the fields decode");
  ok (sp_message_decode (good, strlen (good), SP_DIR_EVENT, &back, &err, NULL) == 0
        && back.u.omitted.bytes == 10 && back.u.omitted.lines == 2
        && back.u.omitted.stream == SP_STREAM_STDOUT
        && strcmp (back.u.omitted.file, "sandpad-stdout.txt") == 0 && !back.u.omitted.file_cut
        && strcmp (sp_message_run_id (&back), "r") == 0,
      "omitted: the values and the run come through");
  sp_message_clear (&back);
  is_str (decode_code ("{\"v\":1,\"type\":\"output_omitted\",\"id\":\"r\",\"stream\":\"stdout\","
                       "\"bytes\":0,\"lines\":0,\"t_ms\":3}",
                       SP_DIR_EVENT, NULL),
          "invalid_value", "omitted: nothing left out is no event");
  is_str (decode_code ("{\"v\":1,\"type\":\"output_omitted\",\"id\":\"r\",\"stream\":\"stdout\","
                       "\"bytes\":2,\"lines\":3,\"t_ms\":3}",
                       SP_DIR_EVENT, NULL),
          "invalid_value", "omitted: no more lines than bytes");
  is_str (decode_code ("{\"v\":1,\"type\":\"output_omitted\",\"id\":\"r\",\"stream\":\"stdout\","
                       "\"lines\":0,\"t_ms\":3}",
                       SP_DIR_EVENT, NULL),
          "missing_field", "omitted: bytes is required");
  is_str (decode_code ("{\"v\":1,\"type\":\"output_omitted\",\"id\":\"r\",\"stream\":\"stdin\","
                       "\"bytes\":2,\"lines\":0,\"t_ms\":3}",
                       SP_DIR_EVENT, NULL),
          "invalid_value", "omitted: only stdout or stderr");
  is_str (decode_code ("{\"v\":1,\"type\":\"output_omitted\",\"id\":\"r\",\"stream\":\"stdout\","
                       "\"bytes\":2,\"lines\":0,\"t_ms\":3,\"file\":\"../x\"}",
                       SP_DIR_EVENT, NULL),
          "invalid_value", "omitted: a file is a name, not a path");
  is_str (decode_code ("{\"v\":1,\"type\":\"output_omitted\",\"id\":\"r\",\"stream\":\"stdout\","
                       "\"bytes\":2,\"lines\":0,\"t_ms\":3,\"file\":\"..\"}",
                       SP_DIR_EVENT, NULL),
          "invalid_value", "omitted: a file is not ..");
  is_str (decode_code ("{\"v\":1,\"type\":\"output_omitted\",\"id\":\"r\",\"stream\":\"stdout\","
                       "\"bytes\":2,\"lines\":0,\"t_ms\":3,\"file_cut\":true}",
                       SP_DIR_EVENT, NULL),
          "invalid_value", "omitted: file_cut needs a file");
  is_str (decode_code ("{\"v\":1,\"type\":\"output_omitted\",\"id\":\"r\",\"stream\":\"stdout\","
                       "\"bytes\":2,\"lines\":0,\"t_ms\":3,\"data\":\"x\"}",
                       SP_DIR_EVENT, NULL),
          "unknown_field", "omitted: no other field");
  msg.u.omitted.id = (char *) "r";
  msg.u.omitted.bytes = 4;
  msg.u.omitted.lines = 5;
  ok (sp_message_encode (&msg, NULL) == NULL, "omitted: not encoded with more lines than bytes");
  msg.u.omitted.lines = 1;
  msg.u.omitted.file = (char *) "a/b";
  ok (sp_message_encode (&msg, NULL) == NULL, "omitted: not encoded with a path for its file");
  msg.u.omitted.file = NULL;
  msg.u.omitted.file_cut = true;
  ok (sp_message_encode (&msg, NULL) == NULL, "omitted: not encoded with file_cut alone");
}

/* An exited event whose one file entry is the JSON text given. */
static const char *
decode_file (const char *entry, SpMessage *msg)
{
  char frame[4096];
  SpProtoError err = { 0 };

  snprintf (frame, sizeof frame,
            "{\"v\":1,\"type\":\"exited\",\"id\":\"r\",\"end\":\"exited\",\"exit_code\":0,"
            "\"t_ms\":2,\"wall_ms\":3,\"cpu_ms\":4,\"peak_memory_bytes\":5,"
            "\"stdout_bytes\":6,\"stderr_bytes\":7,\"stdout_truncated\":false,"
            "\"stderr_truncated\":false,\"files\":[{%s,\"size\":1,\"mime\":\"text/plain\","
            "\"created\":true}],\"files_truncated\":false}",
            entry);
  if (sp_message_decode (frame, strlen (frame), SP_DIR_EVENT, msg, &err, NULL) == 0)
    return "success";
  return sp_proto_error_code_to_string (err.code);
}

static const char *
file_code (const char *entry)
{
  SpMessage msg;
  const char *code = decode_file (entry, &msg);

  if (strcmp (code, "success") == 0)
    sp_message_clear (&msg);
  return code;
}

/* A file's name is what a client opens beneath the run's directory: the
 * bytes beside a shown path that does not spell them (issue 29: the app
 * opened "notes\x0a.txt" for "notes\n.txt"), checked here so no client
 * can be handed a name that climbs out. */
static void
test_file_names (void)
{
  SpMessage msg;
  SpMessage m = { .type = SP_MSG_EXITED };
  SpFileInfo file = { .path = (char *) "notes\\x0a.txt",
                      .mime = (char *) "text/plain",
                      .name = (char *) "notes\n.txt",
                      .t_ms = -1 };
  char *line;

  is_str (decode_file ("\"path\":\"notes\\\\x0a.txt\",\"path_hex\":\"6e6f7465730a2e747874\"", &msg),
          "success", "names: path_hex decodes");
  is_str (msg.u.exited.files[0].name, "notes\n.txt", "names: to the bytes on disk");
  sp_message_clear (&msg);
  is_str (decode_file ("\"path\":\"notes\\\\x0a.txt\"", &msg), "success",
          "names: without path_hex the path is the name");
  ok (msg.u.exited.files[0].name == NULL && !msg.u.exited.files[0].name_left_out,
      "names: so no other name is given");
  sp_message_clear (&msg);
  is_str (decode_file ("\"path\":\"a\\\\x01…\",\"path_hex_left_out\":true", &msg), "success",
          "names: a name too long to carry is said to be left out");
  ok (msg.u.exited.files[0].name == NULL && msg.u.exited.files[0].name_left_out,
      "names: left out, not taken from path");
  sp_message_clear (&msg);

  is_str (file_code ("\"path\":\"x\",\"path_hex\":\"2e2e2f2e6261736872630a\""), "invalid_value",
          "names: path_hex of ../.bashrc is refused");
  is_str (file_code ("\"path\":\"x\",\"path_hex\":\"2f6574632f706173737764\""), "invalid_value",
          "names: an absolute path_hex is refused");
  is_str (file_code ("\"path\":\"x\",\"path_hex\":\"61002e747874\""), "invalid_value",
          "names: a NUL in path_hex is refused");
  is_str (file_code ("\"path\":\"x\",\"path_hex\":\"610A\""), "invalid_value",
          "names: uppercase hex is refused");
  is_str (file_code ("\"path\":\"x\",\"path_hex\":\"6\""), "invalid_value",
          "names: an odd number of digits is refused");
  is_str (file_code ("\"path\":\"x\",\"path_hex\":\"\""), "invalid_value",
          "names: an empty path_hex is refused");
  is_str (file_code ("\"path\":\"a\",\"path_hex\":\"61\""), "invalid_value",
          "names: a path_hex that path already spells is refused");
  is_str (file_code ("\"path\":\"x\",\"path_hex\":\"612f2f62\""), "invalid_value",
          "names: an empty part is refused");
  is_str (file_code ("\"path\":\"x\",\"path_hex\":\"0a\",\"path_hex_left_out\":true"),
          "invalid_value", "names: both path_hex and path_hex_left_out are refused");
  is_str (file_code ("\"path\":\"x\",\"path_hex_left_out\":false"), "invalid_value",
          "names: path_hex_left_out false is refused");
  is_str (file_code ("\"path\":\"../.bashrc\""), "invalid_value",
          "names: a path that is its own name must stay beneath");
  is_str (file_code ("\"path\":\"/etc/passwd\""), "invalid_value",
          "names: an absolute path is refused");

  m.u.exited.id = (char *) "r";
  m.u.exited.files = &file;
  m.u.exited.n_files = 1;
  line = sp_message_encode (&m, NULL);
  ok (line != NULL && strstr (line, "\"path_hex\":\"6e6f7465730a2e747874\"") != NULL,
      "names: the encoder writes the name as hex");
  free (line);
  file.name = (char *) "notes\\x0a.txt";
  ok (sp_message_encode (&m, NULL) == NULL, "names: the encoder refuses a name path spells");
}

int
main (void)
{
  plan (9 + 5 + 5 + 20 + 6 + 5 + 7 + 3 + 20 + 17 + 9 + 13);
  test_minimal_run ();
  test_output_escaping ();
  test_direction ();
  test_id_out ();
  test_frame_bounds ();
  test_encoder_refuses ();
  test_names ();
  test_times ();
  test_input_wait ();
  test_phase ();
  test_output_omitted ();
  test_file_names ();
  return done_testing ();
}
