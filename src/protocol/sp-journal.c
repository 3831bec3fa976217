/* sp-journal.c: one journal line -> SpJournalLine, strictly.
 *
 * The lines are the ones sandpad-mcp writes (src/mcp/mcp-journal.c,
 * mcp-activity.c) and docs/journal.md describes, key for key: whatever
 * the writer did not write is refused here, so a change on one side that
 * the other does not know fails a test instead of showing the user a
 * run with a blank field. */
#include <stdlib.h>
#include <string.h>

#include "sp-journal.h"
#include "sp-json.h"
#include "sp-program-error-private.h"

#define TRY(expr)                                                                                  \
  do                                                                                               \
    {                                                                                              \
      if ((expr) != 0)                                                                             \
        return -1;                                                                                 \
    }                                                                                              \
  while (0)

/* The writer cuts these texts at SP_JOURNAL_TEXT_MAX bytes and says how
 * much it left out in a short suffix. */
#define CAPPED_MAX (SP_JOURNAL_TEXT_MAX + 64)
#define TIME_LEN 24 /* "2026-11-23T10:00:00.000Z" */

#define RESULT_KEYS                                                                                \
  "end", "exit_code", "signal", "failure", "stdout", "stderr", "stdout_bytes", "stderr_bytes",     \
    "stdout_truncated", "stderr_truncated", "duration_ms", "cpu_ms", "peak_memory_bytes", "files", \
    "files_truncated", "error", "sandbox", "session", "diff", "installed_packages", "displays",    \
    "displays_truncated"
/* code_execution's CodeExecutionResult, base64_output as its size. */
#define CE_RESULT_KEYS                                                                             \
  "exit_code", "stdout", "stderr", "base64_output_bytes", "execution_time_ms", "memory_usage_mb",  \
    "cpu_usage_percent", "created_files", "installed_packages", "security_validation",             \
    "performance_metrics", "end"
#define RUN_KEYS "v", "time", "tool", "server_pid", "input"
#define LIVE_RUN_KEYS RUN_KEYS, "event", "run", "workspace"

static const char *const start_keys[] = { "v",          "event",     "run",   "time", "tool",
                                          "server_pid", "workspace", "input", NULL };
static const char *const output_keys[] = { "v", "event", "run", "stream", "text", "cut", NULL };
static const char *const end_keys[] = { LIVE_RUN_KEYS, RESULT_KEYS, NULL };
static const char *const entry_keys[] = { RUN_KEYS, RESULT_KEYS, NULL };
static const char *const ce_end_keys[] = { LIVE_RUN_KEYS, CE_RESULT_KEYS, NULL };
static const char *const ce_entry_keys[] = { RUN_KEYS, CE_RESULT_KEYS, NULL };

static const char *const event_names[] = { "start", "output", "end", NULL };
enum
{
  TOOL_CODE,
  TOOL_COMMAND,
  TOOL_EDIT,
  TOOL_CODE_EXECUTION,
};
static const char *const tool_names[] = { "execute_code", "execute_command", "edit_and_execute",
                                          "code_execution", NULL };
/* "refused" is code_execution's alone: a call its policy refused, which
 * never ran (the other tools journal only runs). */
static const char *const end_names[] = { "exited",    "timeout",   "memory", "output_limit", "disk",
                                         "processes", "cancelled", "failed", "refused",      NULL };
#define END_REFUSED 8
static const char *const stream_names[] = { "stdout", "stderr", NULL };
/* The languages execute_code takes (its inputSchema's enum in
 * src/mcp/mcp-tools.c, the runner's table in runner-langs.c). */
static const char *const language_names[] = { "python", "javascript", "bash", "c", "cpp",  "rust",
                                              "go",     "typescript", "ruby", "r", "java", NULL };
static const char *const risk_names[] = { "Low", "Medium", "High", "Critical", NULL };

bool
sp_journal_run_valid (const char *name)
{
  size_t len = strlen (name);

  if (len == 0 || len > SP_JOURNAL_MAX_RUN || name[0] < '0' || name[0] > '9')
    return false;
  /* It becomes a file name in cancel/: nothing that could leave it. */
  for (size_t i = 0; i < len; i++)
    if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'z')
          || (name[i] >= 'A' && name[i] <= 'Z') || name[i] == '-' || name[i] == '_'))
      return false;
  return true;
}

static int
find_name (const char *const *names, const char *value)
{
  for (int i = 0; names[i] != NULL; i++)
    if (strcmp (names[i], value) == 0)
      return i;
  return -1;
}

/* A string that must be one of names; its index in *index. */
static int
get_enum (json_t *obj, const char *key, bool required, const char *const *names, char **out,
          int *index, SpProtoError *err)
{
  TRY (sp_json_get_string (obj, key, required, out, err));
  if (*out == NULL)
    return 0;
  int i = find_name (names, *out);
  if (i < 0)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"%s\" has unknown value \"%.64s\"", key, *out);
  if (index != NULL)
    *index = i;
  return 0;
}

/* A string of at most max bytes. */
static int
get_text (json_t *obj, const char *key, bool required, size_t max, char **out, SpProtoError *err)
{
  TRY (sp_json_get_string (obj, key, required, out, err));
  if (*out != NULL && strlen (*out) > max)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"%s\" is over %zu bytes", key,
                               max);
  return 0;
}

/* A key the writer always writes, whose value may be null. */
static int
require_key (json_t *obj, const char *key, SpProtoError *err)
{
  if (json_object_get (obj, key) == NULL)
    return sp_proto_set_error (err, SP_ERR_MISSING_FIELD, "missing field \"%s\"", key);
  return 0;
}

static int
get_time (json_t *obj, char **out, SpProtoError *err)
{
  static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";

  TRY (sp_json_get_string (obj, "time", true, out, err));
  bool valid = strlen (*out) == TIME_LEN;
  for (size_t i = 0; valid && i < TIME_LEN; i++)
    valid = shape[i] == 'd' ? (*out)[i] >= '0' && (*out)[i] <= '9' : (*out)[i] == shape[i];
  if (!valid)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"time\" must be UTC as YYYY-MM-DDTHH:MM:SS.mmmZ");
  return 0;
}

/* Checked and dropped. */
static int
check_string (json_t *obj, const char *key, bool required, size_t max, SpProtoError *err)
{
  char *value = NULL;
  int rc = get_text (obj, key, required, max, &value, err);

  free (value);
  return rc;
}

static int
check_int (json_t *obj, const char *key, bool required, int64_t min, int64_t max, SpProtoError *err)
{
  int64_t value;

  return sp_json_get_int (obj, key, required, min, max, &value, err);
}

static int
check_bool (json_t *obj, const char *key, bool required, SpProtoError *err)
{
  bool value;

  return sp_json_get_bool (obj, key, required, &value, err);
}

static int
check_timeout (json_t *obj, SpProtoError *err)
{
  json_t *timeout = json_object_get (obj, "timeout");

  if (timeout != NULL && !json_is_null (timeout)
      && (!json_is_number (timeout) || !(json_number_value (timeout) > 0)
          || json_number_value (timeout) > 300))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"timeout\" must be a number above 0 and at most 300");
  return 0;
}

/* Variables by name: the writer blanks every value (it may be a secret),
 * so a value here is refused. */
static int
check_vars (json_t *obj, const char *key, SpProtoError *err)
{
  char **vars = NULL;

  TRY (sp_json_get_env (obj, key, &vars, err));
  for (size_t i = 0; vars != NULL && vars[i] != NULL; i++)
    {
      const char *eq = strchr (vars[i], '=');

      if (eq != NULL && eq[1] != '\0')
        {
          sp_strv_free (vars);
          return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                     "field \"%s\" keeps a variable's value", key);
        }
    }
  sp_strv_free (vars);
  return 0;
}

/* execute_code's input files, by path only: the content is not kept. */
static int
check_input_files (json_t *input, SpProtoError *err)
{
  json_t *files = NULL, *item;
  size_t i;

  TRY (sp_json_get_array (input, "files", false, &files, err));
  json_array_foreach (files, i, item)
    {
      if (!json_is_object (item))
        return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "input files[%zu] must be an object", i);
      TRY (
        sp_json_check_fields (item, "an input file", (const char *const[]){ "path", NULL }, err));
      TRY (check_string (item, "path", true, SIZE_MAX, err));
    }
  return 0;
}

/* edit_and_execute's execution_config: code_execution's input for the
 * run of the edited file, without code and install_packages (the tool
 * refuses them, so no run has them). */
static int
check_execution_config (json_t *input, SpProtoError *err)
{
  static const char *const keys[] = { "language",    "timeout",        "working_directory",
                                      "environment", "capture_output", "return_base64",
                                      NULL };
  json_t *config = NULL;
  char *language = NULL;

  TRY (sp_json_get_object (input, "execution_config", false, &config, err));
  if (config == NULL)
    return 0;
  TRY (sp_json_check_fields (config, "execution_config", keys, err));
  int rc = get_enum (config, "language", false, language_names, &language, NULL, err);
  free (language);
  TRY (rc);
  TRY (check_int (config, "timeout", false, 1, 300, err));
  TRY (check_string (config, "working_directory", false, SIZE_MAX, err));
  TRY (check_vars (config, "environment", err));
  TRY (check_bool (config, "capture_output", false, err));
  return check_bool (config, "return_base64", false, err);
}

/* The tool's arguments as sandpad-mcp accepted them, with the texts
 * capped, input files by name only, variables by name only and edits by
 * number. */
static int
decode_input (json_t *line, int tool, SpJournalLine *out, SpProtoError *err)
{
  static const char *const code_keys[] = { "language", "code",  "timeout",    "memory_mib", "stdin",
                                           "env",      "files", "session_id", NULL };
  static const char *const command_keys[] = { "command", "work_dir", "timeout", NULL };
  static const char *const edit_keys[] = { "path", "file_path",        "edits",
                                           "args", "execution_config", NULL };
  static const char *const ce_keys[] = { "language",
                                         "code",
                                         "timeout",
                                         "install_packages",
                                         "working_directory",
                                         "environment",
                                         "capture_output",
                                         "return_base64",
                                         NULL };
  static const char *const *const keys[] = { code_keys, command_keys, edit_keys, ce_keys };
  bool runs_code = tool == TOOL_CODE || tool == TOOL_CODE_EXECUTION;
  json_t *input = NULL;
  char *session = NULL;
  char **strv = NULL;

  TRY (sp_json_get_object (line, "input", true, &input, err));
  TRY (sp_json_check_fields (input, "input", keys[tool], err));
  TRY (get_enum (input, "language", runs_code, language_names, &out->language, NULL, err));
  TRY (get_text (input, "code", runs_code, CAPPED_MAX, &out->code, err));
  TRY (get_text (input, "command", tool == TOOL_COMMAND, CAPPED_MAX, &out->command, err));
  /* edit_and_execute's file is "path" or, by the spec's name, "file_path". */
  TRY (sp_json_get_string (input, "path", false, &out->path, err));
  if (tool == TOOL_EDIT && out->path == NULL)
    TRY (sp_json_get_string (input, "file_path", true, &out->path, err));
  else if (json_object_get (input, "file_path") != NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"file_path\" is \"path\" given twice");
  TRY (check_string (input, "stdin", false, CAPPED_MAX, err));
  TRY (check_string (input, "work_dir", false, SIZE_MAX, err));
  TRY (check_string (input, "working_directory", false, SIZE_MAX, err));
  TRY (check_int (input, "memory_mib", false, 1, INT32_MAX, err));
  TRY (check_int (input, "edits", tool == TOOL_EDIT, 1, INT32_MAX, err));
  TRY (tool == TOOL_CODE_EXECUTION ? check_int (input, "timeout", false, 1, 300, err)
                                   : check_timeout (input, err));
  TRY (check_bool (input, "capture_output", false, err));
  TRY (check_bool (input, "return_base64", false, err));
  TRY (check_vars (input, "env", err));
  TRY (check_vars (input, "environment", err));
  TRY (sp_json_get_string (input, "session_id", false, &session, err));
  bool session_valid = session == NULL || sp_proto_id_valid (session);
  free (session);
  if (!session_valid)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"session_id\" is not an id");
  TRY (sp_json_get_strv (input, "args", false, &strv, err));
  sp_strv_free (strv);
  strv = NULL;
  TRY (sp_json_get_strv (input, "install_packages", false, &strv, err));
  sp_strv_free (strv);
  TRY (check_execution_config (input, err));
  return check_input_files (input, err);
}

static int
decode_files (json_t *line, SpJournalLine *out, SpProtoError *err)
{
  static const char *const keys[] = { "path",   "size", "mime",   "created", "width",
                                      "height", "kind", "inline", NULL };
  json_t *files = NULL, *item;
  size_t i;

  TRY (sp_json_get_array (line, "files", true, &files, err));
  out->files = calloc (json_array_size (files) + 1, sizeof *out->files);
  if (out->files == NULL)
    abort ();
  json_array_foreach (files, i, item)
    {
      char *kind = NULL;

      if (!json_is_object (item))
        return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "files[%zu] must be an object", i);
      TRY (sp_json_check_fields (item, "a file", keys, err));
      TRY (sp_json_get_string (item, "path", true, &out->files[i], err));
      TRY (check_int (item, "size", true, 0, INT64_MAX, err));
      TRY (check_string (item, "mime", true, SIZE_MAX, err));
      TRY (check_bool (item, "created", true, err));
      TRY (check_bool (item, "inline", false, err));
      TRY (check_int (item, "width", false, 1, INT32_MAX, err));
      TRY (check_int (item, "height", false, 1, INT32_MAX, err));
      int rc = get_enum (item, "kind", false, sp_file_kind_names, &kind, NULL, err);
      free (kind);
      TRY (rc);
    }
  return 0;
}

static int
decode_error (json_t *line, SpJournalLine *out, SpProtoError *err)
{
  SpProgramError *error = NULL;
  int rc = sp_program_error_decode (line, "error", &error, err);

  if (rc == 0 && error != NULL)
    {
      out->error_type = strdup (error->type);
      out->error_message = strdup (error->message);
      if (out->error_type == NULL || out->error_message == NULL)
        abort ();
    }
  sp_program_error_free (error);
  return rc;
}

static int
decode_sandbox (json_t *line, SpProtoError *err)
{
  json_t *sandbox = NULL;
  char **layers = NULL;

  TRY (sp_json_get_object (line, "sandbox", false, &sandbox, err));
  if (sandbox == NULL)
    return 0;
  TRY (sp_json_check_fields (sandbox, "sandbox",
                             (const char *const[]){ "mode", "layers", "waived", "warm", NULL },
                             err));
  TRY (check_string (sandbox, "mode", true, SIZE_MAX, err));
  TRY (check_bool (sandbox, "warm", true, err));
  TRY (sp_json_get_strv (sandbox, "layers", true, &layers, err));
  sp_strv_free (layers);
  layers = NULL;
  TRY (sp_json_get_strv (sandbox, "waived", false, &layers, err));
  sp_strv_free (layers);
  return 0;
}

static int
decode_session (json_t *line, SpProtoError *err)
{
  json_t *session = NULL;
  char *id = NULL, *ended = NULL;

  TRY (sp_json_get_object (line, "session", false, &session, err));
  if (session == NULL)
    return 0;
  TRY (sp_json_check_fields (session, "session",
                             (const char *const[]){ "id", "new", "ended", "execution_count", NULL },
                             err));
  TRY (check_bool (session, "new", true, err));
  TRY (check_int (session, "execution_count", false, 1, INT64_MAX, err));
  TRY (require_key (session, "ended", err));
  TRY (sp_json_get_string (session, "id", true, &id, err));
  bool id_valid = sp_proto_id_valid (id);
  free (id);
  if (!id_valid)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"id\" is not a session id");
  TRY (sp_json_get_string (session, "ended", false, &ended, err));
  bool ended_valid = ended == NULL || sp_session_end_from_string (ended) != SP_SESSION_END_NONE;
  free (ended);
  if (!ended_valid)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"ended\" is unknown");
  return 0;
}

/* A display by its MIME types, where in stdout it came and the start of
 * its text: the writer keeps no data (an image is megabytes of base64). */
static int
decode_displays (json_t *line, SpProtoError *err)
{
  static const char *const keys[] = { "mime_types", "stdout_offset", "text", NULL };
  json_t *displays = NULL, *item;
  size_t i;

  TRY (sp_json_get_array (line, "displays", false, &displays, err));
  json_array_foreach (displays, i, item)
    {
      char **types = NULL;

      if (!json_is_object (item))
        return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "displays[%zu] must be an object", i);
      TRY (sp_json_check_fields (item, "a display", keys, err));
      TRY (sp_json_get_strv (item, "mime_types", true, &types, err));
      bool empty = types[0] == NULL;
      sp_strv_free (types);
      if (empty)
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                   "field \"mime_types\" of displays[%zu] is empty", i);
      TRY (check_int (item, "stdout_offset", true, 0, INT64_MAX, err));
      TRY (check_string (item, "text", false, SP_JOURNAL_DISPLAY_TEXT_MAX + 64, err));
    }
  return 0;
}

static int
check_number (json_t *obj, const char *key, SpProtoError *err)
{
  json_t *value = json_object_get (obj, key);

  if (value == NULL)
    return sp_proto_set_error (err, SP_ERR_MISSING_FIELD, "missing field \"%s\"", key);
  if (!json_is_number (value))
    return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "field \"%s\" must be a number", key);
  if (!(json_number_value (value) >= 0))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"%s\" must be from 0", key);
  return 0;
}

/* code_execution's created_files: the paths go to out->files. */
static int
decode_created_files (json_t *line, SpJournalLine *out, SpProtoError *err)
{
  static const char *const keys[] = { "path", "size_bytes", "mime_type", "created_at", NULL };
  json_t *files = NULL, *item;
  size_t i;

  TRY (sp_json_get_array (line, "created_files", true, &files, err));
  out->files = calloc (json_array_size (files) + 1, sizeof *out->files);
  if (out->files == NULL)
    abort ();
  json_array_foreach (files, i, item)
    {
      if (!json_is_object (item))
        return sp_proto_set_error (err, SP_ERR_WRONG_TYPE, "created_files[%zu] must be an object",
                                   i);
      TRY (sp_json_check_fields (item, "a created file", keys, err));
      TRY (sp_json_get_string (item, "path", true, &out->files[i], err));
      TRY (check_int (item, "size_bytes", true, 0, INT64_MAX, err));
      TRY (check_string (item, "mime_type", true, SIZE_MAX, err));
      TRY (check_string (item, "created_at", true, 64, err));
    }
  return 0;
}

static int
decode_security (json_t *line, SpProtoError *err)
{
  static const char *const keys[] = { "allowed",  "risk_level",       "blocked_operations",
                                      "warnings", "scan_duration_ms", NULL };
  json_t *security = NULL;
  char **strv = NULL;
  char *risk = NULL;

  TRY (sp_json_get_object (line, "security_validation", true, &security, err));
  TRY (sp_json_check_fields (security, "security_validation", keys, err));
  TRY (check_bool (security, "allowed", true, err));
  int rc = get_enum (security, "risk_level", true, risk_names, &risk, NULL, err);
  free (risk);
  TRY (rc);
  TRY (sp_json_get_strv (security, "blocked_operations", true, &strv, err));
  sp_strv_free (strv);
  strv = NULL;
  TRY (sp_json_get_strv (security, "warnings", true, &strv, err));
  sp_strv_free (strv);
  return check_int (security, "scan_duration_ms", true, 0, INT64_MAX, err);
}

static int
decode_metrics (json_t *line, SpProtoError *err)
{
  static const char *const keys[] = { "sandbox_setup_time_ms", "code_validation_time_ms",
                                      "execution_time_ms",     "result_processing_time_ms",
                                      "total_time_ms",         NULL };
  json_t *metrics = NULL;

  TRY (sp_json_get_object (line, "performance_metrics", true, &metrics, err));
  TRY (sp_json_check_fields (metrics, "performance_metrics", keys, err));
  for (size_t i = 0; keys[i] != NULL; i++)
    TRY (check_int (metrics, keys[i], true, 0, INT64_MAX, err));
  return 0;
}

/* code_execution's CodeExecutionResult (src/mcp/mcp-code-execution.c),
 * capped, with base64_output's image as its size. Its exit_code is minus
 * the signal when one ended the program and -1 when it never ran; a
 * reader gets only a real exit status as one. */
static int
decode_ce_result (json_t *line, SpJournalLine *out, SpProtoError *err)
{
  int64_t exit_code = 0;
  char **installed = NULL;

  TRY (get_enum (line, "end", true, end_names, &out->end, NULL, err));
  TRY (sp_json_get_int (line, "exit_code", true, -64, 255, &exit_code, err));
  out->has_exit_code = exit_code >= 0;
  out->exit_code = exit_code >= 0 ? exit_code : 0;
  TRY (get_text (line, "stdout", true, CAPPED_MAX, &out->stdout_text, err));
  TRY (get_text (line, "stderr", true, CAPPED_MAX, &out->stderr_text, err));
  TRY (check_int (line, "base64_output_bytes", false, 0, INT64_MAX, err));
  TRY (sp_json_get_int (line, "execution_time_ms", true, 0, INT64_MAX, &out->duration_ms, err));
  TRY (check_number (line, "memory_usage_mb", err));
  TRY (check_number (line, "cpu_usage_percent", err));
  TRY (decode_created_files (line, out, err));
  TRY (sp_json_get_strv (line, "installed_packages", true, &installed, err));
  sp_strv_free (installed);
  TRY (decode_security (line, err));
  return decode_metrics (line, err);
}

/* The tool's structuredContent (src/mcp/mcp-result.c), capped. */
static int
decode_result (json_t *line, int tool, SpJournalLine *out, SpProtoError *err)
{
  int end = 0;

  TRY (get_enum (line, "end", true, end_names, &out->end, &end, err));
  if (end == END_REFUSED)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"end\" is \"refused\" for code_execution only");
  TRY (require_key (line, "exit_code", err));
  TRY (require_key (line, "signal", err));
  if (!json_is_null (json_object_get (line, "exit_code")))
    {
      TRY (sp_json_get_int (line, "exit_code", true, 0, 255, &out->exit_code, err));
      out->has_exit_code = true;
    }
  TRY (check_int (line, "signal", false, 1, 64, err));
  TRY (check_string (line, "failure", false, SIZE_MAX, err));
  TRY (get_text (line, "stdout", true, CAPPED_MAX, &out->stdout_text, err));
  TRY (get_text (line, "stderr", true, CAPPED_MAX, &out->stderr_text, err));
  TRY (check_int (line, "stdout_bytes", true, 0, INT64_MAX, err));
  TRY (check_int (line, "stderr_bytes", true, 0, INT64_MAX, err));
  TRY (check_bool (line, "stdout_truncated", true, err));
  TRY (check_bool (line, "stderr_truncated", true, err));
  TRY (sp_json_get_int (line, "duration_ms", true, 0, INT64_MAX, &out->duration_ms, err));
  TRY (check_int (line, "cpu_ms", true, 0, INT64_MAX, err));
  TRY (check_int (line, "peak_memory_bytes", true, 0, INT64_MAX, err));
  TRY (decode_files (line, out, err));
  TRY (check_bool (line, "files_truncated", true, err));
  TRY (decode_error (line, out, err));
  TRY (decode_sandbox (line, err));
  TRY (decode_session (line, err));
  char **installed = NULL;
  TRY (sp_json_get_strv (line, "installed_packages", false, &installed, err));
  sp_strv_free (installed);
  TRY (decode_displays (line, err));
  TRY (check_bool (line, "displays_truncated", false, err));
  if (tool != TOOL_EDIT && json_object_get (line, "diff") != NULL)
    return sp_proto_set_error (err, SP_ERR_UNKNOWN_FIELD,
                               "field \"diff\" belongs to edit_and_execute only");
  return get_text (line, "diff", false, CAPPED_MAX, &out->diff, err);
}

static int
decode_end (json_t *line, int tool, SpJournalLine *out, SpProtoError *err)
{
  return tool == TOOL_CODE_EXECUTION ? decode_ce_result (line, out, err)
                                     : decode_result (line, tool, out, err);
}

/* What was run: the start line's keys, which an end line repeats. */
static int
decode_run (json_t *line, bool live, int *tool, SpJournalLine *out, SpProtoError *err)
{
  TRY (get_time (line, &out->time, err));
  TRY (get_enum (line, "tool", true, tool_names, &out->tool, tool, err));
  TRY (sp_json_get_int (line, "server_pid", true, 1, INT32_MAX, &out->server_pid, err));
  if (live)
    {
      TRY (require_key (line, "workspace", err));
      TRY (sp_json_get_string (line, "workspace", false, &out->workspace, err));
    }
  return decode_input (line, *tool, out, err);
}

static int
decode_object (json_t *line, SpJournalFile file, SpJournalLine *out, SpProtoError *err)
{
  int64_t version = 0;
  int event = SP_JOURNAL_END, tool = 0;
  char *event_name = NULL;
  char *stream = NULL;

  /* The version first: a newer writer's line is refused as such, not for
   * the first key this reader does not know. */
  TRY (sp_json_get_int (line, "v", true, INT64_MIN, INT64_MAX, &version, err));
  if (version < SP_JOURNAL_VERSION_MIN || version > SP_JOURNAL_VERSION)
    return sp_proto_set_error (err, SP_ERR_BAD_VERSION,
                               "journal version %lld, this reader knows %d to %d",
                               (long long) version, SP_JOURNAL_VERSION_MIN, SP_JOURNAL_VERSION);
  /* code_execution's result has keys of its own; a tool that is not
   * known is refused as such by decode_run, after the common keys. */
  const char *tool_name = json_string_value (json_object_get (line, "tool"));
  bool ce = tool_name != NULL && find_name (tool_names, tool_name) == TOOL_CODE_EXECUTION;
  if (file == SP_JOURNAL_RUNS)
    {
      out->event = SP_JOURNAL_END;
      TRY (sp_json_check_fields (line, "a runs.jsonl entry", ce ? ce_entry_keys : entry_keys, err));
      TRY (decode_run (line, false, &tool, out, err));
      return decode_end (line, tool, out, err);
    }

  TRY (sp_json_get_string (line, "event", true, &event_name, err));
  event = find_name (event_names, event_name);
  if (event < 0)
    {
      sp_proto_set_error (err, SP_ERR_UNKNOWN_TYPE, "unknown event \"%.64s\"", event_name);
      free (event_name);
      return -1;
    }
  free (event_name);
  out->event = (SpJournalEvent) event;
  TRY (sp_json_check_fields (line, "a live.jsonl line",
                             event == SP_JOURNAL_START    ? start_keys
                             : event == SP_JOURNAL_OUTPUT ? output_keys
                             : ce                         ? ce_end_keys
                                                          : end_keys,
                             err));
  TRY (sp_json_get_string (line, "run", true, &out->run, err));
  if (!sp_journal_run_valid (out->run))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"run\" must be a digit, then up to %d letters, digits, "
                               "'-' or '_'",
                               SP_JOURNAL_MAX_RUN - 1);
  if (event == SP_JOURNAL_OUTPUT)
    {
      int index = 0;
      int rc = get_enum (line, "stream", true, stream_names, &stream, &index, err);

      free (stream);
      TRY (rc);
      out->is_stderr = index == 1;
      TRY (get_text (line, "text", true, SP_JOURNAL_OUTPUT_MAX, &out->text, err));
      return sp_json_get_bool (line, "cut", false, &out->cut, err);
    }
  TRY (decode_run (line, true, &tool, out, err));
  return event == SP_JOURNAL_END ? decode_end (line, tool, out, err) : 0;
}

int
sp_journal_decode (const char *data, size_t len, SpJournalFile file, SpJournalLine *out,
                   SpProtoError *err)
{
  json_error_t jerr;
  json_t *line;
  int rc;

  memset (out, 0, sizeof *out);
  if (len > SP_JOURNAL_LINE_MAX)
    return sp_proto_set_error (err, SP_ERR_FRAME_TOO_LARGE, "the line is over %d bytes",
                               SP_JOURNAL_LINE_MAX);
  if (memchr (data, '\0', len) != NULL)
    return sp_proto_set_error (err, SP_ERR_NUL_BYTE, "the line contains a NUL byte");
  /* jansson refuses invalid UTF-8 and \u0000, so every string is text. */
  line = json_loadb (data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
  if (line == NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_JSON, "invalid JSON at column %d: %s",
                               jerr.column, jerr.text);
  if (!json_is_object (line))
    rc = sp_proto_set_error (err, SP_ERR_NOT_OBJECT, "a journal line must be a JSON object");
  else
    rc = decode_object (line, file, out, err);
  json_decref (line);
  if (rc != 0)
    sp_journal_line_clear (out);
  return rc;
}

void
sp_journal_line_clear (SpJournalLine *line)
{
  free (line->run);
  free (line->time);
  free (line->tool);
  free (line->workspace);
  free (line->language);
  free (line->code);
  free (line->command);
  free (line->path);
  free (line->text);
  free (line->end);
  free (line->error_type);
  free (line->error_message);
  free (line->diff);
  sp_strv_free (line->files);
  free (line->stdout_text);
  free (line->stderr_text);
  memset (line, 0, sizeof *line);
}
