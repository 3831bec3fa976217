/* decode-events.c: the protocol's strict decoder for the Python tests,
 * which would otherwise check frames only as JSON. Reads frames, one per
 * line, on stdin and prints for each "ok" or "CODE: message" as a client
 * (SP_DIR_EVENT) decodes it. */
#include <stdio.h>
#include <stdlib.h>

#include "sp-proto.h"

int
main (void)
{
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;

  while ((len = getline (&line, &cap, stdin)) > 0)
    {
      SpMessage msg;
      SpProtoError err = { 0 };
      size_t frame = (size_t) len - (line[len - 1] == '\n');

      if (sp_message_decode (line, frame, SP_DIR_EVENT, &msg, &err, NULL) == 0)
        {
          puts ("ok");
          sp_message_clear (&msg);
        }
      else
        printf ("%s: %s\n", sp_proto_error_code_to_string (err.code), err.message);
    }
  free (line);
  return 0;
}
