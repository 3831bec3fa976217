/* fuzz-decode.c: sp_message_decode on arbitrary frames, as both ends
 * decode them: the runner reads requests, the client reads events.
 *
 * Beyond "no crash, no leak" (ASan, UBSan), for every input:
 * - a rejected frame has a real error code and a message that is valid
 *   UTF-8 (the runner sends it back inside an "error" event, which cannot
 *   be encoded otherwise), and the id handed back is empty or a valid id;
 * - an accepted frame encodes again, as one line of valid UTF-8, that
 *   decodes to the same type and encodes to the very same bytes. */
#include <string.h>

#include "fuzz-check.h"
#include "sp-proto.h"

static void
check_rejected (const SpProtoError *err, const char *id)
{
  FUZZ_REQUIRE (err->code > SP_ERR_NONE && err->code < SP_ERR_LAST);
  FUZZ_REQUIRE (memchr (err->message, '\0', sizeof err->message) != NULL);
  FUZZ_REQUIRE (err->message[0] != '\0');
  FUZZ_REQUIRE (fuzz_utf8_valid (err->message, strlen (err->message)));
  FUZZ_REQUIRE (id[0] == '\0' || sp_proto_id_valid (id));
}

static void
check_round_trip (const SpMessage *msg, SpDirection dir)
{
  SpMessage again;
  SpProtoError err = { 0 };
  size_t len = 0, len2 = 0;
  char *line, *line2;

  FUZZ_REQUIRE (msg->version == SP_PROTO_VERSION);
  FUZZ_REQUIRE (sp_message_type_is_request (msg->type) == (dir == SP_DIR_REQUEST));
  line = sp_message_encode (msg, &len);
  FUZZ_REQUIRE (line != NULL);
  FUZZ_REQUIRE (len > 0 && strlen (line) == len);
  FUZZ_REQUIRE (memchr (line, '\n', len) == line + len - 1);
  FUZZ_REQUIRE (fuzz_utf8_valid (line, len - 1));

  FUZZ_REQUIRE (sp_message_decode (line, len - 1, dir, &again, &err, NULL) == 0);
  FUZZ_REQUIRE (again.type == msg->type);
  line2 = sp_message_encode (&again, &len2);
  FUZZ_REQUIRE (line2 != NULL);
  FUZZ_REQUIRE (len2 == len && memcmp (line, line2, len) == 0);

  sp_message_clear (&again);
  free (line);
  free (line2);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const SpDirection dirs[] = { SP_DIR_REQUEST, SP_DIR_EVENT };

  for (size_t d = 0; d < 2; d++)
    {
      SpMessage msg;
      SpProtoError err = { 0 };
      char id[SP_PROTO_MAX_ID + 1];

      memset (id, 'x', sizeof id); /* decode must reset it */
      if (sp_message_decode ((const char *) data, size, dirs[d], &msg, &err, id) != 0)
        check_rejected (&err, id);
      else
        check_round_trip (&msg, dirs[d]);
      sp_message_clear (&msg);
    }
  return 0;
}
