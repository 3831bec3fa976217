/* sp-json.c: strict field access on jansson objects. */
#include "sp-json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
sp_json_check_fields (json_t *obj, const char *what, const char *const *allowed, SpProtoError *err)
{
  const char *key;
  json_t *value;

  json_object_foreach (obj, key, value)
    {
      bool known = false;

      for (size_t i = 0; allowed[i] != NULL && !known; i++)
        known = strcmp (allowed[i], key) == 0;
      if (!known)
        return sp_proto_set_error (err, SP_ERR_UNKNOWN_FIELD, "unknown field \"%.64s\" in %s", key,
                                   what);
    }
  return 0;
}

static json_t *
lookup (json_t *obj, const char *key, bool required, SpProtoError *err, int *rc)
{
  json_t *value = json_object_get (obj, key);

  *rc = 0;
  /* null means "not given", as clients written in other languages often
   * serialise absent optionals that way. */
  if (value == NULL || json_is_null (value))
    {
      if (required)
        *rc = sp_proto_set_error (err, SP_ERR_MISSING_FIELD, "missing field \"%s\"", key);
      return NULL;
    }
  return value;
}

int
sp_json_get_string (json_t *obj, const char *key, bool required, char **out, SpProtoError *err)
{
  int rc;
  json_t *value = lookup (obj, key, required, err, &rc);

  if (value == NULL)
    return rc;
  if (!json_is_string (value))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "field \"%s\" must be a string", key);
  /* The parser rejects \u0000 by default, so the C string is the whole value. */
  free (*out);
  *out = strdup (json_string_value (value));
  if (*out == NULL)
    abort ();
  return 0;
}

int
sp_json_get_int (json_t *obj, const char *key, bool required, int64_t min, int64_t max,
                 int64_t *out, SpProtoError *err)
{
  int rc;
  json_t *value = lookup (obj, key, required, err, &rc);

  if (value == NULL)
    return rc;
  if (!json_is_integer (value))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "field \"%s\" must be an integer", key);

  json_int_t v = json_integer_value (value);
  if (v < min || v > max)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"%s\" is %lld, outside %lld..%lld", key, (long long) v,
                               (long long) min, (long long) max);
  *out = v;
  return 0;
}

int
sp_json_get_bool (json_t *obj, const char *key, bool required, bool *out, SpProtoError *err)
{
  int rc;
  json_t *value = lookup (obj, key, required, err, &rc);

  if (value == NULL)
    return rc;
  if (!json_is_boolean (value))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "field \"%s\" must be true or false", key);
  *out = json_is_true (value);
  return 0;
}

int
sp_json_get_strv (json_t *obj, const char *key, bool required, char ***out, SpProtoError *err)
{
  int rc;
  json_t *value = lookup (obj, key, required, err, &rc);
  size_t i;
  json_t *item;

  if (value == NULL)
    return rc;
  if (!json_is_array (value))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "field \"%s\" must be an array of strings",
                               key);

  char **strv = calloc (json_array_size (value) + 1, sizeof *strv);
  if (strv == NULL)
    abort ();
  json_array_foreach (value, i, item)
    {
      if (!json_is_string (item))
        {
          sp_strv_free (strv);
          return sp_proto_set_error (err, SP_ERR_WRONG_TYPE,
                                     "field \"%s\" item %zu must be a string", key, i);
        }
      strv[i] = strdup (json_string_value (item));
      if (strv[i] == NULL)
        abort ();
    }
  sp_strv_free (*out);
  *out = strv;
  return 0;
}

int
sp_json_get_env (json_t *obj, const char *key, char ***out, SpProtoError *err)
{
  int rc;
  json_t *value = lookup (obj, key, false, err, &rc);
  const char *name;
  json_t *item;
  size_t i = 0;

  if (value == NULL)
    return rc;
  if (!json_is_object (value))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "field \"%s\" must be an object of strings",
                               key);

  char **strv = calloc (json_object_size (value) + 1, sizeof *strv);
  if (strv == NULL)
    abort ();
  json_object_foreach (value, name, item)
    {
      if (!sp_proto_env_name_valid (name, strlen (name)))
        {
          sp_strv_free (strv);
          return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                     "\"%s\" has an invalid variable name \"%.64s\"", key, name);
        }
      if (!json_is_string (item))
        {
          sp_strv_free (strv);
          return sp_proto_set_error (err, SP_ERR_WRONG_TYPE,
                                     "\"%s\" value of %.64s must be a string", key, name);
        }
      size_t n = strlen (name) + 1 + json_string_length (item) + 1;
      strv[i] = malloc (n);
      if (strv[i] == NULL)
        abort ();
      snprintf (strv[i], n, "%s=%s", name, json_string_value (item));
      i++;
    }
  sp_strv_free (*out);
  *out = strv;
  return 0;
}

int
sp_json_get_object (json_t *obj, const char *key, bool required, json_t **out, SpProtoError *err)
{
  int rc;
  json_t *value = lookup (obj, key, required, err, &rc);

  if (value == NULL)
    return rc;
  if (!json_is_object (value))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "field \"%s\" must be an object", key);
  *out = value;
  return 0;
}

int
sp_json_get_array (json_t *obj, const char *key, bool required, json_t **out, SpProtoError *err)
{
  int rc;
  json_t *value = lookup (obj, key, required, err, &rc);

  if (value == NULL)
    return rc;
  if (!json_is_array (value))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "field \"%s\" must be an array", key);
  *out = value;
  return 0;
}

void
sp_json_set (json_t *obj, const char *key, json_t *value)
{
  if (value == NULL || json_object_set_new (obj, key, value) != 0)
    abort ();
}

json_t *
sp_json_str (const char *s, bool *ok)
{
  json_t *value = json_string (s);

  if (value == NULL)
    {
      *ok = false;
      value = json_null ();
    }
  return value;
}

json_t *
sp_json_strv (char *const *strv, bool *ok)
{
  json_t *array = json_array ();

  if (array == NULL)
    abort ();
  for (size_t i = 0; strv != NULL && strv[i] != NULL; i++)
    if (json_array_append_new (array, sp_json_str (strv[i], ok)) != 0)
      abort ();
  return array;
}
