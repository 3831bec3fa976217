/* test-session-message.c: the session fields and messages, both ways.
 *
 * Requests are covered by fixtures (fixtures/canonical and invalid); this
 * holds what fixtures cannot: events decoded strictly (a reason that is
 * not one, session_new without a session) and an encoder that refuses to
 * write what the decoder would refuse. */
#include "sp-proto.h"
#include "tap.h"
#include "test-common.h"

static SpProtoErrorCode
decode_event (const char *frame, SpMessage *msg)
{
  SpProtoError err = { 0 };

  if (sp_message_decode (frame, strlen (frame), SP_DIR_EVENT, msg, &err, NULL) == 0)
    return SP_ERR_NONE;
  return err.code;
}

static void
test_events (void)
{
  SpMessage msg;

  is_int (decode_event (
            "{\"v\":1,\"type\":\"session_ended\",\"session\":\"s\",\"reason\":\"idle\"}", &msg),
          SP_ERR_NONE, "session_ended decodes");
  is_int (msg.u.session.reason, SP_SESSION_END_IDLE, "with its reason");
  is_str (msg.u.session.session, "s", "and its session");
  sp_message_clear (&msg);
  is_int (decode_event ("{\"v\":1,\"type\":\"session_ended\",\"session\":\"s\",\"reason\":\"nap\"}",
                        &msg),
          SP_ERR_INVALID_VALUE, "an unknown reason is refused");
  is_int (decode_event (
            "{\"v\":1,\"type\":\"session_ended\",\"session\":\"s\",\"reason\":\"none\"}", &msg),
          SP_ERR_INVALID_VALUE, "\"none\" is no reason");
  is_int (decode_event ("{\"v\":1,\"type\":\"session_ended\",\"session\":\"s\"}", &msg),
          SP_ERR_MISSING_FIELD, "a reason is required");
  is_int (decode_event ("{\"v\":1,\"type\":\"started\",\"id\":\"r\",\"cwd\":\"/w\",\"t_ms\":1,"
                        "\"timeout_ms\":2,\"memory_mib\":3,\"output_limit\":4,\"network\":false,"
                        "\"sandbox\":{\"mode\":\"fallback\",\"layers\":[]},\"session_new\":true}",
                        &msg),
          SP_ERR_INVALID_VALUE, "session_new without a session is refused");
  is_int (decode_event ("{\"v\":1,\"type\":\"started\",\"id\":\"r\",\"cwd\":\"/w\",\"t_ms\":1,"
                        "\"timeout_ms\":2,\"memory_mib\":3,\"output_limit\":4,\"network\":false,"
                        "\"sandbox\":{\"mode\":\"fallback\",\"layers\":[]},\"execution_count\":3}",
                        &msg),
          SP_ERR_INVALID_VALUE, "execution_count without a session is refused");
  is_int (decode_event ("{\"v\":1,\"type\":\"started\",\"id\":\"r\",\"cwd\":\"/w\",\"t_ms\":1,"
                        "\"timeout_ms\":2,\"memory_mib\":3,\"output_limit\":4,\"network\":false,"
                        "\"sandbox\":{\"mode\":\"fallback\",\"layers\":[]},\"session\":\"s\","
                        "\"execution_count\":0}",
                        &msg),
          SP_ERR_INVALID_VALUE, "an execution_count of 0 is refused (they count from 1)");
  is_int (decode_event ("{\"v\":1,\"type\":\"exited\",\"id\":\"r\",\"end\":\"exited\","
                        "\"exit_code\":0,\"t_ms\":2,\"wall_ms\":3,\"cpu_ms\":4,"
                        "\"peak_memory_bytes\":5,\"stdout_bytes\":6,\"stderr_bytes\":7,"
                        "\"stdout_truncated\":false,\"stderr_truncated\":false,\"files\":[],"
                        "\"files_truncated\":false,\"session_ended\":\"later\"}",
                        &msg),
          SP_ERR_INVALID_VALUE, "an unknown session_ended in exited is refused");
  is_int (decode_event ("{\"v\":1,\"type\":\"session_close\",\"session\":\"s\"}", &msg),
          SP_ERR_UNKNOWN_TYPE, "session_close is not an event");
}

static void
test_encoder_refuses (void)
{
  SpMessage msg = { .type = SP_MSG_SESSION_ENDED };
  char *line;

  msg.u.session.session = (char *) "s";
  msg.u.session.reason = SP_SESSION_END_NONE;
  line = sp_message_encode (&msg, NULL);
  ok (line == NULL, "session_ended without a reason is not encoded");
  free (line);
  msg.u.session.reason = SP_SESSION_END_CLOSED;
  msg.u.session.session = (char *) "a b";
  line = sp_message_encode (&msg, NULL);
  ok (line == NULL, "nor with a session id the decoder would refuse");
  free (line);
  msg.u.session.session = (char *) "s";
  line = sp_message_encode (&msg, NULL);
  is_str (line, "{\"v\":1,\"type\":\"session_ended\",\"session\":\"s\",\"reason\":\"closed\"}\n",
          "a valid one is");
  free (line);

  SpMessage started = { .type = SP_MSG_STARTED };
  started.u.started.id = (char *) "r";
  started.u.started.cwd = (char *) "/w";
  started.u.started.session_new = true;
  line = sp_message_encode (&started, NULL);
  ok (line == NULL, "started with session_new but no session is not encoded");
  free (line);
}

static void
test_names (void)
{
  for (int i = 1; i < SP_SESSION_END_LAST; i++)
    is_int (sp_session_end_from_string (sp_session_end_to_string ((SpSessionEnd) i)), i,
            "reason %s round-trips", sp_session_end_to_string ((SpSessionEnd) i));
  ok (sp_message_type_is_request (SP_MSG_SESSION_CLOSE)
        && sp_message_type_is_request (SP_MSG_SESSION_RESTART)
        && !sp_message_type_is_request (SP_MSG_SESSION_ENDED),
      "close and restart are requests, session_ended an event");
}

int
main (void)
{
  plan (11 + 4 + (SP_SESSION_END_LAST - 1) + 1);
  test_events ();
  test_encoder_refuses ();
  test_names ();
  return done_testing ();
}
