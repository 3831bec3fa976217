/* test-fixtures.c: decodes the request frames under fixtures/.
 *
 * usage: test-fixtures INVALID-DIR [VALID-DIR [CANONICAL-DIR]]
 *
 * Each file holds one frame and a trailing newline. A file in INVALID-DIR
 * is named <error_code>--<description>.json and must be rejected with
 * exactly that code; a file in VALID-DIR must decode, and survive
 * re-encoding. A file in CANONICAL-DIR (a request or an event) must
 * re-encode to its own bytes: round trips alone would not notice a field
 * renamed on both sides at once. Adding a case is adding a file.
 */
#include <dirent.h>
#include <stdio.h>

#include "sp-proto.h"
#include "sp-utf8.h"
#include "tap.h"
#include "test-common.h"

/* The codes a request can fail with; each must have a fixture. */
static const SpProtoErrorCode request_codes[] = {
  SP_ERR_INVALID_JSON,  SP_ERR_NOT_OBJECT, SP_ERR_BAD_VERSION,   SP_ERR_UNKNOWN_TYPE,
  SP_ERR_MISSING_FIELD, SP_ERR_WRONG_TYPE, SP_ERR_INVALID_VALUE, SP_ERR_UNKNOWN_FIELD,
};
#define N_REQUEST_CODES (sizeof request_codes / sizeof request_codes[0])

static int
is_fixture (const struct dirent *entry)
{
  size_t len = strlen (entry->d_name);

  return len > 5 && strcmp (entry->d_name + len - 5, ".json") == 0;
}

/* Reads dir/name whole; *len excludes the one trailing newline, which
 * *one_line reports together with the absence of any other newline. */
static char *
read_frame (const char *dir, const char *name, size_t *len, bool *one_line)
{
  char path[4096];
  char *data = NULL;
  size_t size = 0;
  FILE *file;

  snprintf (path, sizeof path, "%s/%s", dir, name);
  file = fopen (path, "rb");
  if (file != NULL)
    {
      data = malloc (1 << 16);
      size = data ? fread (data, 1, (1 << 16) - 1, file) : 0;
      fclose (file);
    }
  if (data == NULL)
    data = xstrdup ("");
  data[size] = '\0';
  *one_line = size > 0 && data[size - 1] == '\n' && memchr (data, '\n', size - 1) == NULL;
  *len = *one_line ? size - 1 : size;
  return data;
}

static void
check_invalid (const char *dir, const char *name, bool *covered)
{
  char expected[64] = "";
  const char *dash = strstr (name, "--");
  size_t len;
  bool one_line;
  char *frame = read_frame (dir, name, &len, &one_line);
  SpMessage msg;
  SpProtoError err = { .code = SP_ERR_NONE, .message = "" };
  char id[SP_PROTO_MAX_ID + 1];

  if (dash != NULL && (size_t) (dash - name) < sizeof expected)
    memcpy (expected, name, (size_t) (dash - name));
  SpProtoErrorCode code = sp_proto_error_code_from_string (expected);
  /* A misspelt code in a file name must fail, not test nothing. */
  ok (code != SP_ERR_NONE && one_line, "%s: names a known code and holds one line", name);
  for (size_t i = 0; i < N_REQUEST_CODES; i++)
    covered[i] |= request_codes[i] == code;

  int rc = sp_message_decode (frame, len, SP_DIR_REQUEST, &msg, &err, id);
  if (!is_str (rc == 0 ? "success" : sp_proto_error_code_to_string (err.code), expected,
               "%s: rejected with the code in its name", name))
    diag ("message: %s", rc == 0 ? "(none)" : err.message);
  /* The runner sends the message back in an "error" event: it must be
   * valid UTF-8 even when it quotes a frame cut inside a character. */
  ok (rc != 0 && err.message[0] != '\0' && sp_utf8_valid (err.message, strlen (err.message))
        && msg.type == SP_MSG_INVALID,
      "%s: with a message in valid UTF-8, and nothing left in the output", name);
  sp_message_clear (&msg);
  free (frame);
}

static void
check_valid (const char *dir, const char *name)
{
  size_t len, len2 = 0;
  bool one_line;
  char *frame = read_frame (dir, name, &len, &one_line);
  SpMessage msg, again;
  SpProtoError err = { 0 };

  int rc = sp_message_decode (frame, len, SP_DIR_REQUEST, &msg, &err, NULL);
  if (!ok (one_line && rc == 0, "%s: one line that decodes", name))
    diag ("%s: %s", sp_proto_error_code_to_string (err.code), err.message);

  /* The decoded message must be one the encoder can send back out, and
   * the result must be a fixed point of decode + encode. */
  char *line = rc == 0 ? sp_message_encode (&msg, &len2) : NULL;
  char *line2 = NULL;
  if (line != NULL && sp_message_decode (line, len2 - 1, SP_DIR_REQUEST, &again, &err, NULL) == 0)
    {
      line2 = sp_message_encode (&again, NULL);
      sp_message_clear (&again);
    }
  ok (line != NULL && line2 != NULL && strcmp (line, line2) == 0,
      "%s: re-encodes to a frame that decodes to itself", name);
  free (line);
  free (line2);
  sp_message_clear (&msg);
  free (frame);
}

static void
check_canonical (const char *dir, const char *name)
{
  size_t len;
  bool one_line;
  char *frame = read_frame (dir, name, &len, &one_line);
  SpMessage msg;
  SpProtoError err = { 0 };
  char *line = NULL;

  /* Requests and events share the directory; the type decides. */
  int rc = sp_message_decode (frame, len, SP_DIR_REQUEST, &msg, &err, NULL);
  if (rc != 0 && err.code == SP_ERR_UNKNOWN_TYPE)
    rc = sp_message_decode (frame, len, SP_DIR_EVENT, &msg, &err, NULL);
  if (rc == 0)
    line = sp_message_encode (&msg, NULL);
  else
    diag ("%s: %s", sp_proto_error_code_to_string (err.code), err.message);
  /* len leaves out the newline, but frame still ends with it, as the
   * encoder's line does. */
  is_str (line, one_line ? frame : "(not one line)", "%s: re-encodes to the same bytes", name);
  free (line);
  sp_message_clear (&msg);
  free (frame);
}

int
main (int argc, char **argv)
{
  struct dirent **invalid = NULL, **valid = NULL, **canonical = NULL;
  int n_invalid, n_valid = 0, n_canonical = 0;
  bool covered[N_REQUEST_CODES] = { false };
  bool all_covered = true;

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s INVALID-DIR [VALID-DIR [CANONICAL-DIR]]\n", argv[0]);
      return 2;
    }
  n_invalid = scandir (argv[1], &invalid, is_fixture, alphasort);
  if (argc > 2)
    n_valid = scandir (argv[2], &valid, is_fixture, alphasort);
  if (argc > 3)
    n_canonical = scandir (argv[3], &canonical, is_fixture, alphasort);
  if (n_invalid < 0 || n_valid < 0 || n_canonical < 0)
    {
      perror ("scandir");
      return 2;
    }

  plan (2 + 3 * n_invalid + 2 * n_valid + n_canonical);
  ok (n_invalid >= 30, "%d invalid fixtures, at least 30", n_invalid);
  for (int i = 0; i < n_invalid; i++)
    check_invalid (argv[1], invalid[i]->d_name, covered);
  for (size_t i = 0; i < N_REQUEST_CODES; i++)
    if (!covered[i])
      {
        diag ("no fixture for %s", sp_proto_error_code_to_string (request_codes[i]));
        all_covered = false;
      }
  ok (all_covered, "every error code a request can earn has a fixture");
  for (int i = 0; i < n_valid; i++)
    check_valid (argv[2], valid[i]->d_name);
  for (int i = 0; i < n_canonical; i++)
    check_canonical (argv[3], canonical[i]->d_name);

  for (int i = 0; i < n_invalid; i++)
    free (invalid[i]);
  for (int i = 0; i < n_valid; i++)
    free (valid[i]);
  for (int i = 0; i < n_canonical; i++)
    free (canonical[i]);
  free (invalid);
  free (valid);
  free (canonical);
  return done_testing ();
}
