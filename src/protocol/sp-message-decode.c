/* sp-message-decode.c: one frame → one typed SpMessage, strictly. */
#include <stdlib.h>
#include <string.h>

#include "sp-json.h"
#include "sp-program-error-private.h"
#include "sp-proto.h"

#define TRY(expr)                                                                                  \
  do                                                                                               \
    {                                                                                              \
      if ((expr) != 0)                                                                             \
        return -1;                                                                                 \
    }                                                                                              \
  while (0)

#define FIELDS(...) ((const char *const[]){ "v", "type", __VA_ARGS__, NULL })

/* Values a well-formed peer never needs; they keep arithmetic on them
 * (ms → s, MiB → bytes) far from overflow. */
#define MAX_MS (INT64_C (1) << 40)
#define MAX_BYTES (INT64_C (1) << 50)

static const char *const stream_names[] = { "stdout", "stderr", NULL };
static const char *const end_names[] = { "exited", "signaled", "failed", NULL };
static const char *const cancel_names[] = { "none", "interrupt", "terminate", "kill", NULL };

static int
get_enum (json_t *obj, const char *key, bool required, const char *const *names, int *out,
          SpProtoError *err)
{
  char *value = NULL;

  TRY (sp_json_get_string (obj, key, required, &value, err));
  if (value == NULL)
    return 0;
  for (int i = 0; names[i] != NULL; i++)
    if (strcmp (names[i], value) == 0)
      {
        *out = i;
        free (value);
        return 0;
      }
  sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"%s\" has unknown value \"%.64s\"", key,
                      value);
  free (value);
  return -1;
}

static int
get_session_end (json_t *obj, const char *key, bool required, SpSessionEnd *out, SpProtoError *err)
{
  char *value = NULL;

  TRY (sp_json_get_string (obj, key, required, &value, err));
  if (value == NULL)
    return 0;
  *out = sp_session_end_from_string (value);
  free (value);
  if (*out == SP_SESSION_END_NONE)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"%s\" is unknown", key);
  return 0;
}

static int
get_id (json_t *obj, char **out, SpProtoError *err)
{
  TRY (sp_json_get_string (obj, "id", true, out, err));
  if (!sp_proto_id_valid (*out))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"id\" must be 1 to %d printable ASCII characters",
                               SP_PROTO_MAX_ID);
  return 0;
}

/* Session ids are chosen by the client, like run ids, and follow the
 * same rule (they appear in logs and in the runner's directory names). */
static int
get_session (json_t *obj, bool required, char **out, SpProtoError *err)
{
  TRY (sp_json_get_string (obj, "session", required, out, err));
  if (*out != NULL && !sp_proto_id_valid (*out))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"session\" must be 1 to %d printable ASCII characters",
                               SP_PROTO_MAX_ID);
  return 0;
}

static int
decode_run (json_t *obj, SpRun *run, SpProtoError *err)
{
  TRY (sp_json_check_fields (obj, "run",
                             FIELDS ("id", "language", "code", "path", "name", "args", "stdin",
                                     "stdin_open", "env", "timeout_ms", "memory_mib",
                                     "output_limit", "cwd", "network", "return_base64",
                                     "return_files", "environment", "session"),
                             err));
  TRY (get_id (obj, &run->id, err));
  TRY (sp_json_get_string (obj, "language", true, &run->language, err));
  TRY (sp_json_get_string (obj, "code", false, &run->code, err));
  TRY (sp_json_get_string (obj, "path", false, &run->path, err));
  if ((run->code == NULL) == (run->path == NULL))
    return sp_proto_set_error (err, run->code ? SP_ERR_INVALID_VALUE : SP_ERR_MISSING_FIELD,
                               "a run needs exactly one of \"code\" and \"path\"");
  if (run->path != NULL && run->path[0] != '/')
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"path\" must be absolute");
  TRY (sp_json_get_string (obj, "name", false, &run->name, err));
  if (run->name != NULL
      && (run->name[0] == '\0' || strchr (run->name, '/') != NULL || strcmp (run->name, ".") == 0
          || strcmp (run->name, "..") == 0 || strlen (run->name) > 128))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"name\" must be a plain file name of at most 128 bytes");
  TRY (sp_json_get_strv (obj, "args", false, &run->args, err));
  TRY (sp_json_get_string (obj, "stdin", false, &run->stdin_data, err));
  TRY (sp_json_get_bool (obj, "stdin_open", false, &run->stdin_open, err));
  TRY (sp_json_get_env (obj, "env", &run->env, err));
  TRY (sp_json_get_int (obj, "timeout_ms", false, 1, MAX_MS, &run->timeout_ms, err));
  TRY (sp_json_get_int (obj, "memory_mib", false, 1, MAX_BYTES >> 20, &run->memory_mib, err));
  TRY (sp_json_get_int (obj, "output_limit", false, 1, MAX_BYTES, &run->output_limit, err));
  TRY (sp_json_get_string (obj, "cwd", false, &run->cwd, err));
  if (run->cwd != NULL && run->cwd[0] != '/')
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"cwd\" must be absolute");
  TRY (sp_json_get_bool (obj, "network", false, &run->network, err));
  TRY (sp_json_get_bool (obj, "return_base64", false, &run->return_base64, err));
  TRY (sp_json_get_bool (obj, "return_files", false, &run->return_files, err));
  TRY (sp_json_get_string (obj, "environment", false, &run->environment, err));
  if (run->environment != NULL && run->environment[0] != '/')
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"environment\" must be absolute");
  return get_session (obj, false, &run->session, err);
}

static int
decode_request (json_t *obj, SpMessage *msg, SpProtoError *err)
{
  switch (msg->type)
    {
    case SP_MSG_HELLO:
      TRY (sp_json_check_fields (obj, "hello", FIELDS ("client"), err));
      return sp_json_get_string (obj, "client", false, &msg->u.hello.client, err);
    case SP_MSG_RUN:
      return decode_run (obj, &msg->u.run, err);
    case SP_MSG_CANCEL:
    case SP_MSG_RELEASE:
      TRY (sp_json_check_fields (obj, sp_message_type_to_string (msg->type), FIELDS ("id"), err));
      return get_id (obj, &msg->u.ref.id, err);
    case SP_MSG_STDIN:
      TRY (sp_json_check_fields (obj, "stdin", FIELDS ("id", "data", "eof"), err));
      TRY (get_id (obj, &msg->u.stdin_.id, err));
      TRY (sp_json_get_string (obj, "data", false, &msg->u.stdin_.data, err));
      TRY (sp_json_get_bool (obj, "eof", false, &msg->u.stdin_.eof, err));
      if (msg->u.stdin_.data == NULL && !msg->u.stdin_.eof)
        return sp_proto_set_error (err, SP_ERR_MISSING_FIELD,
                                   "\"stdin\" needs \"data\", \"eof\" or both");
      return 0;
    case SP_MSG_SESSION_CLOSE:
    case SP_MSG_SESSION_RESTART:
      TRY (
        sp_json_check_fields (obj, sp_message_type_to_string (msg->type), FIELDS ("session"), err));
      return get_session (obj, true, &msg->u.session.session, err);
    default:
      return sp_proto_set_error (err, SP_ERR_UNKNOWN_TYPE, "\"%s\" is not a request",
                                 sp_message_type_to_string (msg->type));
    }
}

static int
decode_sandbox (json_t *obj, const char *key, SpSandboxInfo *info, SpProtoError *err)
{
  json_t *sandbox = NULL;

  TRY (sp_json_get_object (obj, key, true, &sandbox, err));
  TRY (sp_json_check_fields (sandbox, key,
                             (const char *const[]){ "mode", "layers", "waived", NULL }, err));
  TRY (sp_json_get_string (sandbox, "mode", true, &info->mode, err));
  TRY (sp_json_get_strv (sandbox, "waived", false, &info->waived, err));
  return sp_json_get_strv (sandbox, "layers", true, &info->layers, err);
}

static int
decode_range (json_t *limits, const char *key, SpLimitRange *range, SpProtoError *err)
{
  json_t *obj = NULL;

  TRY (sp_json_get_object (limits, key, true, &obj, err));
  TRY (sp_json_check_fields (obj, key, (const char *const[]){ "default", "max", NULL }, err));
  TRY (sp_json_get_int (obj, "default", true, 0, INT64_MAX, &range->default_value, err));
  return sp_json_get_int (obj, "max", true, 0, INT64_MAX, &range->max_value, err);
}

static int
decode_ready (json_t *obj, SpReady *ready, SpProtoError *err)
{
  json_t *langs = NULL, *limits = NULL, *item;
  size_t i;

  TRY (sp_json_check_fields (obj, "ready",
                             FIELDS ("runner_version", "protocol", "languages", "limits", "sandbox",
                                     "unavailable"),
                             err));
  TRY (sp_json_get_string (obj, "runner_version", true, &ready->runner_version, err));
  TRY (sp_json_get_int (obj, "protocol", true, 1, INT64_MAX, &ready->protocol, err));
  TRY (sp_json_get_array (obj, "languages", true, &langs, err));
  ready->languages = calloc (json_array_size (langs) + 1, sizeof *ready->languages);
  if (ready->languages == NULL)
    abort ();
  json_array_foreach (langs, i, item)
    {
      SpLanguage *lang = &ready->languages[ready->n_languages++];

      if (!json_is_object (item))
        return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "languages[%zu] must be an object", i);
      TRY (sp_json_check_fields (item, "language",
                                 (const char *const[]){ "name", "path", "version", "extensions",
                                                        NULL },
                                 err));
      TRY (sp_json_get_string (item, "name", true, &lang->name, err));
      TRY (sp_json_get_string (item, "path", true, &lang->path, err));
      TRY (sp_json_get_string (item, "version", true, &lang->version, err));
      TRY (sp_json_get_strv (item, "extensions", true, &lang->extensions, err));
    }
  TRY (sp_json_get_strv (obj, "unavailable", false, &ready->unavailable, err));
  TRY (sp_json_get_object (obj, "limits", true, &limits, err));
  TRY (sp_json_check_fields (limits, "limits",
                             (const char *const[]){ "timeout_ms", "memory_mib", "output_limit",
                                                    "max_concurrent", "max_frame", NULL },
                             err));
  TRY (decode_range (limits, "timeout_ms", &ready->timeout_ms, err));
  TRY (decode_range (limits, "memory_mib", &ready->memory_mib, err));
  TRY (decode_range (limits, "output_limit", &ready->output_limit, err));
  TRY (sp_json_get_int (limits, "max_concurrent", true, 1, INT64_MAX, &ready->max_concurrent, err));
  TRY (sp_json_get_int (limits, "max_frame", true, 1, INT64_MAX, &ready->max_frame, err));
  return decode_sandbox (obj, "sandbox", &ready->sandbox, err);
}

static int
decode_started (json_t *obj, SpStarted *started, SpProtoError *err)
{
  TRY (sp_json_check_fields (obj, "started",
                             FIELDS ("id", "cwd", "t_ms", "timeout_ms", "memory_mib",
                                     "output_limit", "network", "sandbox", "environment", "session",
                                     "session_new", "execution_count", "warm"),
                             err));
  TRY (get_id (obj, &started->id, err));
  TRY (get_session (obj, false, &started->session, err));
  TRY (sp_json_get_bool (obj, "session_new", false, &started->session_new, err));
  if (started->session_new && started->session == NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"session_new\" is only for a session's runs");
  TRY (
    sp_json_get_int (obj, "execution_count", false, 1, INT64_MAX, &started->execution_count, err));
  if (started->execution_count != 0 && started->session == NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"execution_count\" is only for a session's runs");
  TRY (sp_json_get_string (obj, "cwd", true, &started->cwd, err));
  TRY (sp_json_get_int (obj, "t_ms", true, 0, INT64_MAX, &started->t_ms, err));
  TRY (sp_json_get_int (obj, "timeout_ms", true, 0, INT64_MAX, &started->timeout_ms, err));
  TRY (sp_json_get_int (obj, "memory_mib", true, 0, INT64_MAX, &started->memory_mib, err));
  TRY (sp_json_get_int (obj, "output_limit", true, 0, INT64_MAX, &started->output_limit, err));
  TRY (sp_json_get_bool (obj, "network", true, &started->network, err));
  TRY (sp_json_get_string (obj, "environment", false, &started->environment, err));
  TRY (sp_json_get_bool (obj, "warm", false, &started->warm, err));
  return decode_sandbox (obj, "sandbox", &started->sandbox, err);
}

/* "kind" is absent for a regular file, never "regular"; a symlink, and
 * only a symlink, has a "target". */
static int
decode_file_kind (json_t *item, SpFileInfo *file, SpProtoError *err)
{
  int kind = 0;

  if (json_object_get (item, "kind") != NULL)
    {
      TRY (get_enum (item, "kind", true, sp_file_kind_names, &kind, err));
      if (kind == SP_FILE_REGULAR)
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                   "field \"kind\" is \"regular\"; leave it out instead");
    }
  file->kind = (SpFileKind) kind;
  TRY (sp_json_get_string (item, "target", file->kind == SP_FILE_SYMLINK, &file->target, err));
  if (file->kind != SP_FILE_SYMLINK && file->target != NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"target\" is only for symlinks");
  return 0;
}

/* A name a client will open beneath the run's directory: relative, no
 * empty, "." or ".." part, so it cannot climb out or name the directory
 * itself. The decoder is the only place that checks it. */
static bool
name_beneath (const char *name)
{
  const char *part = name;

  if (name[0] == '\0' || name[0] == '/')
    return false;
  for (;;)
    {
      size_t n = strcspn (part, "/");
      if (n == 0 || (n == 1 && part[0] == '.') || (n == 2 && part[0] == '.' && part[1] == '.'))
        return false;
      if (part[n] == '\0')
        return true;
      part += n + 1;
    }
}

static int
hex_digit (char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "path_hex" (lowercase, at most SP_FILE_MAX_NAME bytes, no NUL, not what
 * path already spells) or "path_hex_left_out" (true only), never both;
 * with neither, path itself is the name and must be one. */
static int
decode_file_name (json_t *item, size_t i, SpFileInfo *file, SpProtoError *err)
{
  char *hex = NULL;
  size_t len;

  TRY (sp_json_get_bool (item, "path_hex_left_out", false, &file->name_left_out, err));
  if (json_object_get (item, "path_hex_left_out") != NULL && !file->name_left_out)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "files[%zu].path_hex_left_out is false; leave it out instead", i);
  TRY (sp_json_get_string (item, "path_hex", false, &hex, err));
  if (hex == NULL)
    return file->name_left_out || name_beneath (file->path)
             ? 0
             : sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                   "files[%zu].path is not a name beneath the directory", i);
  len = strlen (hex);
  file->name = calloc (len / 2 + 1, 1);
  if (file->name == NULL)
    abort ();
  for (size_t j = 0; j + 1 < len; j += 2)
    {
      int hi = hex_digit (hex[j]), lo = hex_digit (hex[j + 1]);
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
        break;
      file->name[j / 2] = (char) (hi << 4 | lo);
    }
  free (hex);
  if (file->name_left_out)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "files[%zu] has both path_hex and path_hex_left_out", i);
  if (len == 0 || len % 2 != 0 || len > 2 * SP_FILE_MAX_NAME || strlen (file->name) != len / 2)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "files[%zu].path_hex must be 1 to %d bytes as lowercase hex, "
                               "without NUL",
                               i, SP_FILE_MAX_NAME);
  if (!name_beneath (file->name) || strcmp (file->name, file->path) == 0)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "files[%zu].path_hex is not a name beneath the directory "
                               "that path does not spell",
                               i);
  return 0;
}

static int
decode_files (json_t *obj, SpExited *exited, SpProtoError *err)
{
  json_t *files = NULL, *item;
  size_t i;

  TRY (sp_json_get_array (obj, "files", true, &files, err));
  exited->files = calloc (json_array_size (files) + 1, sizeof *exited->files);
  if (exited->files == NULL)
    abort ();
  json_array_foreach (files, i, item)
    {
      SpFileInfo *file = &exited->files[exited->n_files++];

      if (!json_is_object (item))
        return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "files[%zu] must be an object", i);
      TRY (sp_json_check_fields (item, "file",
                                 (const char *const[]){ "path", "path_hex", "path_hex_left_out",
                                                        "size", "mime", "created", "kind", "target",
                                                        "width", "height", "base64", "t_ms", NULL },
                                 err));
      TRY (sp_json_get_string (item, "path", true, &file->path, err));
      TRY (decode_file_name (item, i, file, err));
      TRY (sp_json_get_int (item, "size", true, 0, INT64_MAX, &file->size, err));
      TRY (sp_json_get_string (item, "mime", true, &file->mime, err));
      TRY (sp_json_get_bool (item, "created", true, &file->created, err));
      TRY (decode_file_kind (item, file, err));
      TRY (sp_json_get_int (item, "width", false, 1, INT32_MAX, &file->width, err));
      TRY (sp_json_get_int (item, "height", false, 1, INT32_MAX, &file->height, err));
      TRY (sp_json_get_string (item, "base64", false, &file->base64, err));
      file->t_ms = -1;
      TRY (sp_json_get_int (item, "t_ms", false, 0, INT64_MAX, &file->t_ms, err));
    }
  return 0;
}

/* exited's "compile": a compiled language's compile step. */
static int
decode_compile (json_t *obj, SpExited *exited, SpProtoError *err)
{
  json_t *compile = NULL;

  TRY (sp_json_get_object (obj, "compile", false, &compile, err));
  if (compile == NULL)
    return 0;
  exited->compiled = true;
  TRY (sp_json_check_fields (compile, "compile",
                             (const char *const[]){ "cached", "failed", "wall_ms", "cpu_ms", NULL },
                             err));
  TRY (sp_json_get_bool (compile, "cached", true, &exited->compile_cached, err));
  TRY (sp_json_get_bool (compile, "failed", true, &exited->compile_failed, err));
  TRY (sp_json_get_int (compile, "wall_ms", true, 0, INT64_MAX, &exited->compile_wall_ms, err));
  return sp_json_get_int (compile, "cpu_ms", true, 0, INT64_MAX, &exited->compile_cpu_ms, err);
}

static int
decode_exited (json_t *obj, SpExited *exited, SpProtoError *err)
{
  int end = 0, cancelled = 0;
  char *limit = NULL;

  TRY (
    sp_json_check_fields (obj, "exited",
                          FIELDS ("id", "end", "exit_code", "signal", "error", "limit", "cancelled",
                                  "t_ms", "wall_ms", "cpu_ms", "peak_memory_bytes", "stdout_bytes",
                                  "stderr_bytes", "stdout_truncated", "stderr_truncated", "files",
                                  "files_truncated", "program_error", "session_ended", "warm",
                                  "cold_reason", "compile"),
                          err));
  TRY (decode_compile (obj, exited, err));
  TRY (get_session_end (obj, "session_ended", false, &exited->session_ended, err));
  TRY (get_id (obj, &exited->id, err));
  TRY (get_enum (obj, "end", true, end_names, &end, err));
  exited->end = (SpEnd) end;
  TRY (sp_json_get_int (obj, "exit_code", exited->end == SP_END_EXITED, 0, 255, &exited->exit_code,
                        err));
  TRY (
    sp_json_get_int (obj, "signal", exited->end == SP_END_SIGNALED, 1, 64, &exited->signal, err));
  TRY (sp_json_get_string (obj, "error", exited->end == SP_END_FAILED, &exited->error, err));
  TRY (sp_json_get_string (obj, "limit", false, &limit, err));
  if (limit != NULL)
    {
      for (int i = 1; i < SP_LIMIT_LAST && exited->limit == SP_LIMIT_NONE; i++)
        if (strcmp (limit, sp_limit_to_string ((SpLimit) i)) == 0)
          exited->limit = (SpLimit) i;
      free (limit);
      if (exited->limit == SP_LIMIT_NONE)
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"limit\" is unknown");
    }
  TRY (get_enum (obj, "cancelled", false, cancel_names, &cancelled, err));
  exited->cancelled = (SpCancelStage) cancelled;
  TRY (sp_json_get_int (obj, "t_ms", true, 0, INT64_MAX, &exited->t_ms, err));
  TRY (sp_json_get_int (obj, "wall_ms", true, 0, INT64_MAX, &exited->wall_ms, err));
  TRY (sp_json_get_int (obj, "cpu_ms", true, 0, INT64_MAX, &exited->cpu_ms, err));
  TRY (sp_json_get_int (obj, "peak_memory_bytes", true, 0, INT64_MAX, &exited->peak_memory_bytes,
                        err));
  TRY (sp_json_get_int (obj, "stdout_bytes", true, 0, INT64_MAX, &exited->stdout_bytes, err));
  TRY (sp_json_get_int (obj, "stderr_bytes", true, 0, INT64_MAX, &exited->stderr_bytes, err));
  TRY (sp_json_get_bool (obj, "stdout_truncated", true, &exited->stdout_truncated, err));
  TRY (sp_json_get_bool (obj, "stderr_truncated", true, &exited->stderr_truncated, err));
  TRY (decode_files (obj, exited, err));
  TRY (sp_program_error_decode (obj, "program_error", &exited->program_error, err));
  TRY (sp_json_get_bool (obj, "warm", false, &exited->warm, err));
  TRY (sp_json_get_string (obj, "cold_reason", false, &exited->cold_reason, err));
  return sp_json_get_bool (obj, "files_truncated", true, &exited->files_truncated, err);
}

static int
decode_omitted (json_t *obj, SpOutputOmitted *om, SpProtoError *err)
{
  int stream = 0;

  TRY (sp_json_check_fields (obj, "output_omitted",
                             FIELDS ("id", "stream", "bytes", "lines", "t_ms", "file", "file_cut"),
                             err));
  TRY (get_id (obj, &om->id, err));
  TRY (get_enum (obj, "stream", true, stream_names, &stream, err));
  om->stream = (SpStream) stream;
  TRY (sp_json_get_int (obj, "bytes", true, 1, INT64_MAX, &om->bytes, err));
  TRY (sp_json_get_int (obj, "lines", true, 0, om->bytes, &om->lines, err));
  TRY (sp_json_get_int (obj, "t_ms", true, 0, INT64_MAX, &om->t_ms, err));
  TRY (sp_json_get_string (obj, "file", false, &om->file, err));
  if (om->file != NULL && !sp_proto_output_file_valid (om->file))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"file\" is not a plain file name");
  TRY (sp_json_get_bool (obj, "file_cut", false, &om->file_cut, err));
  if (om->file_cut && om->file == NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"file_cut\" without \"file\"");
  return 0;
}

static int
decode_event (json_t *obj, SpMessage *msg, SpProtoError *err)
{
  int stream = 0;
  char *code = NULL;

  switch (msg->type)
    {
    case SP_MSG_READY:
      return decode_ready (obj, &msg->u.ready, err);
    case SP_MSG_QUEUED:
      TRY (sp_json_check_fields (obj, "queued", FIELDS ("id", "position"), err));
      TRY (get_id (obj, &msg->u.queued.id, err));
      return sp_json_get_int (obj, "position", true, 0, INT64_MAX, &msg->u.queued.position, err);
    case SP_MSG_STARTED:
      return decode_started (obj, &msg->u.started, err);
    case SP_MSG_OUTPUT:
      TRY (sp_json_check_fields (obj, "output", FIELDS ("id", "stream", "data", "t_ms"), err));
      TRY (get_id (obj, &msg->u.output.id, err));
      TRY (get_enum (obj, "stream", true, stream_names, &stream, err));
      msg->u.output.stream = (SpStream) stream;
      TRY (sp_json_get_string (obj, "data", true, &msg->u.output.data, err));
      msg->u.output.t_ms = -1;
      return sp_json_get_int (obj, "t_ms", false, 0, INT64_MAX, &msg->u.output.t_ms, err);
    case SP_MSG_DISPLAY:
      {
        json_t *data = NULL;
        TRY (sp_json_check_fields (obj, "display", FIELDS ("id", "data", "t_ms"), err));
        TRY (get_id (obj, &msg->u.display.id, err));
        TRY (sp_json_get_int (obj, "t_ms", true, 0, INT64_MAX, &msg->u.display.t_ms, err));
        TRY (sp_json_get_object (obj, "data", true, &data, err));
        return sp_display_data_decode (data, &msg->u.display, err);
      }
    case SP_MSG_EXITED:
      return decode_exited (obj, &msg->u.exited, err);
    case SP_MSG_RELEASED:
      TRY (sp_json_check_fields (obj, "released", FIELDS ("id"), err));
      return get_id (obj, &msg->u.ref.id, err);
    case SP_MSG_ERROR:
      TRY (sp_json_check_fields (obj, "error", FIELDS ("id", "code", "message"), err));
      TRY (sp_json_get_string (obj, "id", false, &msg->u.error.id, err));
      if (msg->u.error.id != NULL && !sp_proto_id_valid (msg->u.error.id))
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"id\" is not a valid id");
      TRY (sp_json_get_string (obj, "code", true, &code, err));
      msg->u.error.code = sp_proto_error_code_from_string (code);
      free (code);
      if (msg->u.error.code == SP_ERR_NONE)
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "unknown error code");
      return sp_json_get_string (obj, "message", true, &msg->u.error.message, err);
    case SP_MSG_SESSION_ENDED:
      TRY (sp_json_check_fields (obj, "session_ended", FIELDS ("session", "reason"), err));
      TRY (get_session (obj, true, &msg->u.session.session, err));
      return get_session_end (obj, "reason", true, &msg->u.session.reason, err);
    case SP_MSG_INPUT_WAIT:
      TRY (sp_json_check_fields (obj, "input_wait", FIELDS ("id", "waiting", "t_ms"), err));
      TRY (get_id (obj, &msg->u.input_wait.id, err));
      TRY (sp_json_get_bool (obj, "waiting", true, &msg->u.input_wait.waiting, err));
      return sp_json_get_int (obj, "t_ms", true, 0, INT64_MAX, &msg->u.input_wait.t_ms, err);
    case SP_MSG_PHASE:
      {
        int phase = 0;
        TRY (
          sp_json_check_fields (obj, "phase", FIELDS ("id", "phase", "timeout_ms", "t_ms"), err));
        TRY (get_id (obj, &msg->u.phase.id, err));
        TRY (get_enum (obj, "phase", true, sp_phase_names, &phase, err));
        msg->u.phase.phase = (SpPhaseKind) phase;
        TRY (sp_json_get_int (obj, "timeout_ms", true, 1, MAX_MS, &msg->u.phase.timeout_ms, err));
        return sp_json_get_int (obj, "t_ms", true, 0, INT64_MAX, &msg->u.phase.t_ms, err);
      }
    case SP_MSG_OUTPUT_OMITTED:
      return decode_omitted (obj, &msg->u.omitted, err);
    default:
      return sp_proto_set_error (err, SP_ERR_UNKNOWN_TYPE, "\"%s\" is not an event",
                                 sp_message_type_to_string (msg->type));
    }
}

static SpMessageType
type_from_string (const char *name)
{
  for (int i = SP_MSG_INVALID + 1; i < SP_MSG_LAST; i++)
    if (strcmp (sp_message_type_to_string ((SpMessageType) i), name) == 0)
      return (SpMessageType) i;
  return SP_MSG_INVALID;
}

static int
decode_object (json_t *obj, SpDirection dir, SpMessage *out, SpProtoError *err, char *id_out)
{
  char *type = NULL;
  json_t *id = json_object_get (obj, "id");

  /* Remember the id first, so even a rejected request is answered with
   * an error the client can match to its run. */
  if (id_out != NULL && json_is_string (id) && sp_proto_id_valid (json_string_value (id)))
    strcpy (id_out, json_string_value (id));

  TRY (sp_json_get_int (obj, "v", true, INT64_MIN, INT64_MAX, &out->version, err));
  if (out->version != SP_PROTO_VERSION)
    return sp_proto_set_error (err, SP_ERR_BAD_VERSION, "protocol version %lld, expected %d",
                               (long long) out->version, SP_PROTO_VERSION);
  TRY (sp_json_get_string (obj, "type", true, &type, err));
  out->type = type_from_string (type);
  if (out->type == SP_MSG_INVALID)
    {
      sp_proto_set_error (err, SP_ERR_UNKNOWN_TYPE, "unknown message type \"%.64s\"", type);
      free (type);
      return -1;
    }
  free (type);

  bool is_request = sp_message_type_is_request (out->type);
  if (is_request != (dir == SP_DIR_REQUEST))
    return sp_proto_set_error (err, SP_ERR_UNKNOWN_TYPE, "\"%s\" is not a%s",
                               sp_message_type_to_string (out->type),
                               dir == SP_DIR_REQUEST ? " request" : "n event");
  return dir == SP_DIR_REQUEST ? decode_request (obj, out, err) : decode_event (obj, out, err);
}

int
sp_message_decode (const char *frame, size_t len, SpDirection dir, SpMessage *out,
                   SpProtoError *err, char *id_out)
{
  json_error_t jerr;
  json_t *obj;
  int rc;

  memset (out, 0, sizeof *out);
  if (id_out != NULL)
    id_out[0] = '\0';
  if (memchr (frame, '\0', len) != NULL)
    return sp_proto_set_error (err, SP_ERR_NUL_BYTE, "frame contains a NUL byte");

  obj = json_loadb (frame, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
  if (obj == NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_JSON, "invalid JSON at column %d: %s",
                               jerr.column, jerr.text);
  if (!json_is_object (obj))
    {
      json_decref (obj);
      return sp_proto_set_error (err, SP_ERR_NOT_OBJECT, "a frame must be a JSON object");
    }

  rc = decode_object (obj, dir, out, err, id_out);
  json_decref (obj);
  if (rc != 0)
    sp_message_clear (out);
  return rc;
}
