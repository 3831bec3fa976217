/* sp-display.c: the "display" event's data, a MIME bundle.
 *
 * A program's rich result (a value, an image, a table) as Jupyter gives
 * it: {mime: value}. Text types carry a string; a JSON type
 * (application/json, anything "+json") any JSON value, kept here as its
 * compact text so the structs stay plain C. One strict decoder for the
 * wire and for what the runner reads from a program (runner-display.c). */
#include <stdlib.h>
#include <string.h>

#include "sp-json.h"
#include "sp-proto.h"

/* type "/" subtype, each of letters, digits and "!#$&^_.+-" (RFC 6838's
 * restricted names), at most SP_DISPLAY_MAX_MIME bytes. */
bool
sp_display_mime_valid (const char *mime)
{
  size_t len = strlen (mime);
  const char *slash = strchr (mime, '/');

  if (len == 0 || len > SP_DISPLAY_MAX_MIME || slash == NULL || slash == mime || slash[1] == '\0'
      || strchr (slash + 1, '/') != NULL)
    return false;
  for (const char *p = mime; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')
          || strchr ("!#$&^_.+-/", *p) != NULL))
      return false;
  return true;
}

bool
sp_display_mime_is_json (const char *mime)
{
  size_t len = strlen (mime);

  return strcmp (mime, "application/json") == 0
         || (len > 5 && strcmp (mime + len - 5, "+json") == 0);
}

int
sp_display_data_decode (json_t *data, SpDisplay *display, SpProtoError *err)
{
  const char *mime;
  json_t *value;

  if (!json_is_object (data))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "field \"data\" must be an object");
  size_t n = json_object_size (data);
  if (n == 0 || n > SP_DISPLAY_MAX_ITEMS)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"data\" must hold 1 to %d representations",
                               SP_DISPLAY_MAX_ITEMS);
  display->items = calloc (n, sizeof *display->items);
  if (display->items == NULL)
    abort ();
  json_object_foreach (data, mime, value)
    {
      SpDisplayItem *item = &display->items[display->n_items];
      if (!sp_display_mime_valid (mime))
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                   "\"data\" has an invalid MIME type \"%.64s\"", mime);
      item->is_json = sp_display_mime_is_json (mime);
      if (!item->is_json && !json_is_string (value))
        return sp_proto_set_error (err, SP_ERR_WRONG_TYPE,
                                   "\"data\" value of %.64s must be a string", mime);
      item->text = item->is_json
                     ? json_dumps (value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER)
                     : strdup (json_string_value (value));
      item->mime = strdup (mime);
      if (item->text == NULL || item->mime == NULL)
        abort ();
      display->n_items++;
    }
  return 0;
}

json_t *
sp_display_data_encode (const SpDisplay *display, bool *ok)
{
  json_t *data = json_object ();

  if (data == NULL)
    abort ();
  if (display->n_items == 0 || display->n_items > SP_DISPLAY_MAX_ITEMS)
    *ok = false;
  for (size_t i = 0; i < display->n_items; i++)
    {
      const SpDisplayItem *item = &display->items[i];
      json_t *value = NULL;
      if (item->mime == NULL || item->text == NULL || !sp_display_mime_valid (item->mime)
          || item->is_json != sp_display_mime_is_json (item->mime))
        {
          *ok = false;
          continue;
        }
      value = item->is_json ? json_loads (item->text, JSON_DECODE_ANY, NULL)
                            : sp_json_str (item->text, ok);
      if (value == NULL)
        {
          *ok = false;
          continue;
        }
      sp_json_set (data, item->mime, value);
    }
  return data;
}
