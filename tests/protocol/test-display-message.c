/* test-display-message.c: the "display" event (a program's MIME bundle),
 * both ways: strict decoding (types, MIME names, JSON values), and an
 * encoder that refuses what the decoder would refuse. The canonical
 * frame is fixtures/canonical/display.json. */
#include <stdio.h>

#include "sp-proto.h"
#include "tap.h"
#include "test-common.h"

#define HEAD "{\"v\":1,\"type\":\"display\",\"id\":\"r\",\"t_ms\":5,"

static SpProtoErrorCode
decode_event (const char *frame, SpMessage *msg)
{
  SpProtoError err = { 0 };

  if (sp_message_decode (frame, strlen (frame), SP_DIR_EVENT, msg, &err, NULL) == 0)
    return SP_ERR_NONE;
  return err.code;
}

static void
test_decode (void)
{
  SpMessage msg;

  is_int (decode_event (HEAD "\"data\":{\"text/plain\":\"4\",\"image/png\":\"iVBO\","
                             "\"application/json\":{\"a\":[1,2]}}}",
                        &msg),
          SP_ERR_NONE, "a bundle of three decodes");
  is_int ((long long) msg.u.display.n_items, 3, "with three items");
  is_str (msg.u.display.items[0].mime, "text/plain", "in order: text/plain first");
  is_str (msg.u.display.items[0].text, "4", "its text");
  is_str (msg.u.display.items[2].text, "{\"a\":[1,2]}", "JSON kept as compact text");
  ok (msg.u.display.items[2].is_json && !msg.u.display.items[1].is_json, "marked as JSON");
  is_int (msg.u.display.t_ms, 5, "t_ms");
  is_str (sp_message_run_id (&msg), "r", "the run it belongs to");
  sp_message_clear (&msg);
  is_int (decode_event (HEAD "\"data\":{\"application/vnd.dataresource+json\":\"x\"}}", &msg),
          SP_ERR_NONE, "a +json type may hold a string too");
  sp_message_clear (&msg);
  is_int (decode_event (HEAD "\"data\":{}}", &msg), SP_ERR_INVALID_VALUE,
          "an empty bundle is refused");
  is_int (decode_event (HEAD "\"data\":{\"text/plain\":4}}", &msg), SP_ERR_WRONG_TYPE,
          "a text type with a number is refused");
  is_int (decode_event (HEAD "\"data\":{\"text/plain\":null}}", &msg), SP_ERR_WRONG_TYPE,
          "a text type with null is refused");
  is_int (decode_event (HEAD "\"data\":{\"plain\":\"4\"}}", &msg), SP_ERR_INVALID_VALUE,
          "a MIME type without a slash is refused");
  is_int (decode_event (HEAD "\"data\":{\"text/pl ain\":\"4\"}}", &msg), SP_ERR_INVALID_VALUE,
          "a MIME type with a space is refused");
  is_int (decode_event (HEAD "\"data\":{\"a/b/c\":\"4\"}}", &msg), SP_ERR_INVALID_VALUE,
          "a MIME type with two slashes is refused");
  is_int (decode_event (HEAD "\"data\":[\"4\"]}", &msg), SP_ERR_WRONG_TYPE,
          "data as an array is refused");
  is_int (decode_event ("{\"v\":1,\"type\":\"display\",\"id\":\"r\",\"data\":{\"text/plain\":"
                        "\"4\"}}",
                        &msg),
          SP_ERR_MISSING_FIELD, "t_ms is required");
  is_int (decode_event (HEAD "\"data\":{\"text/plain\":\"4\"},\"metadata\":{}}", &msg),
          SP_ERR_UNKNOWN_FIELD, "an unknown field is refused");
  char many[2048];
  size_t used = (size_t) snprintf (many, sizeof many, "%s", HEAD "\"data\":{");
  for (int i = 0; i <= SP_DISPLAY_MAX_ITEMS; i++)
    used += (size_t) snprintf (many + used, sizeof many - used, "%s\"text/x%d\":\"v\"",
                               i ? "," : "", i);
  snprintf (many + used, sizeof many - used, "}}");
  is_int (decode_event (many, &msg), SP_ERR_INVALID_VALUE,
          "more than %d representations are refused", SP_DISPLAY_MAX_ITEMS);
  SpProtoError err = { 0 };
  const char *request = HEAD "\"data\":{\"text/plain\":\"4\"}}";
  ok (sp_message_decode (request, strlen (request), SP_DIR_REQUEST, &msg, &err, NULL) != 0
        && err.code == SP_ERR_UNKNOWN_TYPE,
      "display is not a request");
}

static void
test_encode (void)
{
  SpDisplayItem items[] = {
    { (char *) "text/plain", (char *) "4", false },
    { (char *) "application/json", (char *) "[1,{\"b\":2}]", true },
  };
  SpMessage msg = { .type = SP_MSG_DISPLAY };
  char *line;

  msg.u.display.id = (char *) "r";
  msg.u.display.t_ms = 7;
  msg.u.display.items = items;
  msg.u.display.n_items = 2;
  line = sp_message_encode (&msg, NULL);
  is_str (line,
          "{\"v\":1,\"type\":\"display\",\"id\":\"r\",\"t_ms\":7,\"data\":{\"text/plain\":"
          "\"4\",\"application/json\":[1,{\"b\":2}]}}\n",
          "a bundle encodes");
  free (line);
  items[1].text = (char *) "[1,";
  line = sp_message_encode (&msg, NULL);
  ok (line == NULL, "a JSON item that is not JSON is not encoded");
  free (line);
  items[1].text = (char *) "1";
  items[1].is_json = false;
  line = sp_message_encode (&msg, NULL);
  ok (line == NULL, "nor a JSON type marked as text");
  free (line);
  items[1].is_json = true;
  items[0].mime = (char *) "text plain";
  line = sp_message_encode (&msg, NULL);
  ok (line == NULL, "nor an invalid MIME type");
  free (line);
  items[0].mime = (char *) "text/plain";
  msg.u.display.n_items = 0;
  line = sp_message_encode (&msg, NULL);
  ok (line == NULL, "nor an empty bundle");
  free (line);
}

int
main (void)
{
  plan (20 + 5);
  test_decode ();
  test_encode ();
  return done_testing ();
}
