/* sp-json.h: strict field access on jansson objects (internal to the
 * protocol module). Every getter names the field in its error, so a
 * client learns exactly what was wrong with its request. */
#pragma once

#include <jansson.h>

#include "sp-proto.h"

/* Fails with SP_ERR_UNKNOWN_FIELD on any key not in the NULL-terminated
 * allowed list: a misspelt "timout_ms" must not silently mean "default". */
int sp_json_check_fields (json_t *obj, const char *what, const char *const *allowed,
                          SpProtoError *err);

/* Each returns 0 on success (also when an optional field is absent, leaving
 * *out untouched) and -1 with *err set otherwise. Strings are copied. */
int sp_json_get_string (json_t *obj, const char *key, bool required, char **out, SpProtoError *err);
int sp_json_get_int (json_t *obj, const char *key, bool required, int64_t min, int64_t max,
                     int64_t *out, SpProtoError *err);
int sp_json_get_bool (json_t *obj, const char *key, bool required, bool *out, SpProtoError *err);
int sp_json_get_strv (json_t *obj, const char *key, bool required, char ***out, SpProtoError *err);
/* An object of string values, returned as "KEY=VALUE" entries. */
int sp_json_get_env (json_t *obj, const char *key, char ***out, SpProtoError *err);
/* A nested object, borrowed. */
int sp_json_get_object (json_t *obj, const char *key, bool required, json_t **out,
                        SpProtoError *err);
int sp_json_get_array (json_t *obj, const char *key, bool required, json_t **out,
                       SpProtoError *err);

/* A display's "data" (sp-display.c): decoded strictly into display's
 * items, or encoded (*ok cleared when an item is invalid). */
int sp_display_data_decode (json_t *data, SpDisplay *display, SpProtoError *err);
json_t *sp_display_data_encode (const SpDisplay *display, bool *ok);

/* Builders that abort on allocation failure, so encoders stay linear.
 * A string that is not valid UTF-8 clears *ok and encodes as null. */
void sp_json_set (json_t *obj, const char *key, json_t *value);
json_t *sp_json_str (const char *s, bool *ok);
json_t *sp_json_strv (char *const *strv, bool *ok);
