/* sp-program-error.c: the "program_error" object of exited, both ways.
 *
 * Its own file so the exited encoder and decoder each gain one call:
 * the object is {type, message, line, column?, syntax?, frames: [{file,
 * line, column?, function?}]}, decoded as strictly as the rest. */
#include <stdlib.h>

#include "sp-json.h"
#include "sp-program-error-private.h"

#define FIELDS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define TRY(x)                                                                                     \
  do                                                                                               \
    {                                                                                              \
      if ((x) < 0)                                                                                 \
        return -1;                                                                                 \
    }                                                                                              \
  while (0)

void
sp_program_error_encode (json_t *obj, const SpProgramError *error, bool *ok)
{
  if (error == NULL)
    return;

  json_t *item = json_object ();
  json_t *frames = json_array ();

  sp_json_set (item, "type", sp_json_str (error->type ? error->type : "", ok));
  sp_json_set (item, "message", sp_json_str (error->message ? error->message : "", ok));
  sp_json_set (item, "line", json_integer (error->line));
  if (error->column > 0)
    sp_json_set (item, "column", json_integer (error->column));
  if (error->syntax)
    sp_json_set (item, "syntax", json_true ());
  if (error->n_frames > SP_PROGRAM_ERROR_MAX_FRAMES)
    *ok = false;
  for (size_t i = 0; i < error->n_frames; i++)
    {
      const SpProgramFrame *f = &error->frames[i];
      json_t *frame = json_object ();

      sp_json_set (frame, "file", sp_json_str (f->file ? f->file : "", ok));
      sp_json_set (frame, "line", json_integer (f->line));
      if (f->column > 0)
        sp_json_set (frame, "column", json_integer (f->column));
      if (f->function != NULL)
        sp_json_set (frame, "function", sp_json_str (f->function, ok));
      json_array_append_new (frames, frame);
    }
  sp_json_set (item, "frames", frames);
  sp_json_set (obj, "program_error", item);
}

static int
decode_frames (json_t *frames, SpProgramError *error, SpProtoError *err)
{
  json_t *item;
  size_t i;

  if (json_array_size (frames) > SP_PROGRAM_ERROR_MAX_FRAMES)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "program_error has more than %d frames",
                               SP_PROGRAM_ERROR_MAX_FRAMES);
  error->frames = calloc (json_array_size (frames) + 1, sizeof *error->frames);
  if (error->frames == NULL)
    abort ();
  json_array_foreach (frames, i, item)
    {
      SpProgramFrame *f = &error->frames[error->n_frames++];

      if (!json_is_object (item))
        return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "frames[%zu] must be an object", i);
      TRY (
        sp_json_check_fields (item, "frame", FIELDS ("file", "line", "column", "function"), err));
      TRY (sp_json_get_string (item, "file", true, &f->file, err));
      TRY (sp_json_get_int (item, "line", true, 0, SP_PROGRAM_ERROR_MAX_LINE, &f->line, err));
      TRY (sp_json_get_int (item, "column", false, 1, SP_PROGRAM_ERROR_MAX_LINE, &f->column, err));
      TRY (sp_json_get_string (item, "function", false, &f->function, err));
    }
  return 0;
}

int
sp_program_error_decode (json_t *obj, const char *key, SpProgramError **out, SpProtoError *err)
{
  json_t *item = NULL, *frames = NULL;

  TRY (sp_json_get_object (obj, key, false, &item, err));
  if (item == NULL)
    return 0;

  SpProgramError *error = calloc (1, sizeof *error);
  if (error == NULL)
    abort ();
  /* Owned by the message from here, so a failure below frees it. */
  *out = error;
  TRY (sp_json_check_fields (item, key,
                             FIELDS ("type", "message", "line", "column", "syntax", "frames"),
                             err));
  TRY (sp_json_get_string (item, "type", true, &error->type, err));
  TRY (sp_json_get_string (item, "message", true, &error->message, err));
  TRY (sp_json_get_int (item, "line", true, 0, SP_PROGRAM_ERROR_MAX_LINE, &error->line, err));
  TRY (sp_json_get_int (item, "column", false, 1, SP_PROGRAM_ERROR_MAX_LINE, &error->column, err));
  TRY (sp_json_get_bool (item, "syntax", false, &error->syntax, err));
  TRY (sp_json_get_array (item, "frames", true, &frames, err));
  return decode_frames (frames, error, err);
}
