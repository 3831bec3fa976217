/* sp-message-encode.c: one SpMessage → one compact JSON line.
 *
 * Optional fields that hold their default are left out, so a frame says
 * only what differs from the defaults in docs/protocol.md. */
#include <stdlib.h>
#include <string.h>

#include "sp-json.h"
#include "sp-program-error-private.h"
#include "sp-proto.h"

static const char *const stream_names[] = { "stdout", "stderr" };
static const char *const end_names[] = { "exited", "signaled", "failed" };
static const char *const cancel_names[] = { "none", "interrupt", "terminate", "kill" };

static void
set_str (json_t *obj, const char *key, const char *value, bool *ok)
{
  if (value != NULL)
    sp_json_set (obj, key, sp_json_str (value, ok));
}

static void
set_int (json_t *obj, const char *key, int64_t value)
{
  sp_json_set (obj, key, json_integer (value));
}

static void
set_bool (json_t *obj, const char *key, bool value)
{
  sp_json_set (obj, key, json_boolean (value));
}

/* The name beside a path that does not spell it, as lowercase hex; the
 * decoder's rules hold by construction or the frame is refused. */
static void
encode_file_name (json_t *item, const SpFileInfo *file, bool *ok)
{
  static const char digits[] = "0123456789abcdef";
  size_t len;
  char *hex;

  if (file->name_left_out)
    {
      if (file->name != NULL)
        *ok = false;
      set_bool (item, "path_hex_left_out", true);
      return;
    }
  if (file->name == NULL)
    return;
  len = strlen (file->name);
  if (len == 0 || len > SP_FILE_MAX_NAME || strcmp (file->name, file->path) == 0)
    *ok = false;
  hex = malloc (2 * len + 1);
  if (hex == NULL)
    abort ();
  for (size_t i = 0; i < len; i++)
    {
      hex[2 * i] = digits[(unsigned char) file->name[i] >> 4];
      hex[2 * i + 1] = digits[(unsigned char) file->name[i] & 0xf];
    }
  hex[2 * len] = '\0';
  set_str (item, "path_hex", hex, ok);
  free (hex);
}

static void
encode_run (json_t *obj, const SpRun *run, bool *ok)
{
  set_str (obj, "id", run->id, ok);
  set_str (obj, "language", run->language, ok);
  set_str (obj, "code", run->code, ok);
  set_str (obj, "path", run->path, ok);
  set_str (obj, "name", run->name, ok);
  if (run->args != NULL)
    sp_json_set (obj, "args", sp_json_strv (run->args, ok));
  set_str (obj, "stdin", run->stdin_data, ok);
  if (run->stdin_open)
    set_bool (obj, "stdin_open", true);
  if (run->env != NULL)
    {
      json_t *env = json_object ();
      for (size_t i = 0; run->env[i] != NULL; i++)
        {
          const char *eq = strchr (run->env[i], '=');
          char *name = eq ? strndup (run->env[i], (size_t) (eq - run->env[i])) : NULL;

          if (name == NULL)
            *ok = false;
          else
            json_object_set_new (env, name, sp_json_str (eq + 1, ok));
          free (name);
        }
      sp_json_set (obj, "env", env);
    }
  if (run->timeout_ms > 0)
    set_int (obj, "timeout_ms", run->timeout_ms);
  if (run->memory_mib > 0)
    set_int (obj, "memory_mib", run->memory_mib);
  if (run->output_limit > 0)
    set_int (obj, "output_limit", run->output_limit);
  set_str (obj, "cwd", run->cwd, ok);
  if (run->network)
    set_bool (obj, "network", true);
  if (run->return_base64)
    set_bool (obj, "return_base64", true);
  if (run->return_files)
    set_bool (obj, "return_files", true);
  set_str (obj, "environment", run->environment, ok);
  set_str (obj, "session", run->session, ok);
}

static json_t *
encode_sandbox (const SpSandboxInfo *info, bool *ok)
{
  json_t *obj = json_object ();

  set_str (obj, "mode", info->mode ? info->mode : "none", ok);
  sp_json_set (obj, "layers", sp_json_strv (info->layers, ok));
  if (info->waived != NULL && info->waived[0] != NULL)
    sp_json_set (obj, "waived", sp_json_strv (info->waived, ok));
  return obj;
}

static json_t *
encode_range (const SpLimitRange *range)
{
  json_t *obj = json_object ();

  set_int (obj, "default", range->default_value);
  set_int (obj, "max", range->max_value);
  return obj;
}

static void
encode_ready (json_t *obj, const SpReady *ready, bool *ok)
{
  json_t *langs = json_array ();
  json_t *limits = json_object ();

  set_str (obj, "runner_version", ready->runner_version, ok);
  set_int (obj, "protocol", ready->protocol);
  for (size_t i = 0; i < ready->n_languages; i++)
    {
      const SpLanguage *lang = &ready->languages[i];
      json_t *item = json_object ();

      set_str (item, "name", lang->name, ok);
      set_str (item, "path", lang->path, ok);
      set_str (item, "version", lang->version, ok);
      sp_json_set (item, "extensions", sp_json_strv (lang->extensions, ok));
      json_array_append_new (langs, item);
    }
  sp_json_set (obj, "languages", langs);
  if (ready->unavailable != NULL && ready->unavailable[0] != NULL)
    {
      json_t *names = json_array ();
      for (size_t i = 0; ready->unavailable[i] != NULL; i++)
        json_array_append_new (names, json_string (ready->unavailable[i]));
      sp_json_set (obj, "unavailable", names);
    }
  sp_json_set (limits, "timeout_ms", encode_range (&ready->timeout_ms));
  sp_json_set (limits, "memory_mib", encode_range (&ready->memory_mib));
  sp_json_set (limits, "output_limit", encode_range (&ready->output_limit));
  set_int (limits, "max_concurrent", ready->max_concurrent);
  set_int (limits, "max_frame", ready->max_frame);
  sp_json_set (obj, "limits", limits);
  sp_json_set (obj, "sandbox", encode_sandbox (&ready->sandbox, ok));
}

static void
encode_started (json_t *obj, const SpStarted *started, bool *ok)
{
  set_str (obj, "id", started->id, ok);
  set_str (obj, "cwd", started->cwd, ok);
  set_int (obj, "t_ms", started->t_ms);
  set_int (obj, "timeout_ms", started->timeout_ms);
  set_int (obj, "memory_mib", started->memory_mib);
  set_int (obj, "output_limit", started->output_limit);
  set_bool (obj, "network", started->network);
  sp_json_set (obj, "sandbox", encode_sandbox (&started->sandbox, ok));
  set_str (obj, "environment", started->environment, ok);
  set_str (obj, "session", started->session, ok);
  if (started->session_new)
    set_bool (obj, "session_new", true);
  if (started->execution_count > 0)
    set_int (obj, "execution_count", started->execution_count);
  if (started->warm)
    set_bool (obj, "warm", true);
}

static void
encode_exited (json_t *obj, const SpExited *exited, bool *ok)
{
  json_t *files = json_array ();

  set_str (obj, "id", exited->id, ok);
  if (exited->end < 0 || exited->end >= SP_END_LAST)
    *ok = false;
  else
    set_str (obj, "end", end_names[exited->end], ok);
  if (exited->end == SP_END_EXITED)
    set_int (obj, "exit_code", exited->exit_code);
  if (exited->end == SP_END_SIGNALED)
    set_int (obj, "signal", exited->signal);
  if (exited->end == SP_END_FAILED)
    set_str (obj, "error", exited->error ? exited->error : "unknown error", ok);
  if (exited->limit != SP_LIMIT_NONE)
    set_str (obj, "limit", sp_limit_to_string (exited->limit), ok);
  if (exited->cancelled > SP_CANCEL_NONE && exited->cancelled < SP_CANCEL_LAST)
    set_str (obj, "cancelled", cancel_names[exited->cancelled], ok);
  set_int (obj, "t_ms", exited->t_ms);
  set_int (obj, "wall_ms", exited->wall_ms);
  set_int (obj, "cpu_ms", exited->cpu_ms);
  set_int (obj, "peak_memory_bytes", exited->peak_memory_bytes);
  set_int (obj, "stdout_bytes", exited->stdout_bytes);
  set_int (obj, "stderr_bytes", exited->stderr_bytes);
  set_bool (obj, "stdout_truncated", exited->stdout_truncated);
  set_bool (obj, "stderr_truncated", exited->stderr_truncated);
  if (exited->warm)
    set_bool (obj, "warm", true);
  if (exited->cold_reason != NULL)
    set_str (obj, "cold_reason", exited->cold_reason, ok);
  for (size_t i = 0; i < exited->n_files; i++)
    {
      json_t *item = json_object ();

      set_str (item, "path", exited->files[i].path, ok);
      encode_file_name (item, &exited->files[i], ok);
      set_int (item, "size", exited->files[i].size);
      set_str (item, "mime", exited->files[i].mime, ok);
      set_bool (item, "created", exited->files[i].created);
      if (exited->files[i].kind > SP_FILE_REGULAR && exited->files[i].kind < SP_FILE_KIND_LAST)
        set_str (item, "kind", sp_file_kind_names[exited->files[i].kind], ok);
      else if (exited->files[i].kind != SP_FILE_REGULAR)
        *ok = false;
      if (exited->files[i].kind == SP_FILE_SYMLINK)
        set_str (item, "target", exited->files[i].target ? exited->files[i].target : "", ok);
      if (exited->files[i].width > 0 && exited->files[i].height > 0)
        {
          set_int (item, "width", exited->files[i].width);
          set_int (item, "height", exited->files[i].height);
        }
      set_str (item, "base64", exited->files[i].base64, ok);
      if (exited->files[i].t_ms >= 0)
        set_int (item, "t_ms", exited->files[i].t_ms);
      json_array_append_new (files, item);
    }
  sp_json_set (obj, "files", files);
  set_bool (obj, "files_truncated", exited->files_truncated);
  if (exited->compiled)
    {
      json_t *compile = json_object ();
      set_bool (compile, "cached", exited->compile_cached);
      set_bool (compile, "failed", exited->compile_failed);
      set_int (compile, "wall_ms", exited->compile_wall_ms);
      set_int (compile, "cpu_ms", exited->compile_cpu_ms);
      sp_json_set (obj, "compile", compile);
    }
  sp_program_error_encode (obj, exited->program_error, ok);
  if (exited->session_ended != SP_SESSION_END_NONE)
    set_str (obj, "session_ended", sp_session_end_to_string (exited->session_ended), ok);
}

/* The id every message but hello, ready and error must carry. */
static const char *
message_id (const SpMessage *msg)
{
  switch (msg->type)
    {
    case SP_MSG_RUN:
      return msg->u.run.id;
    case SP_MSG_CANCEL:
    case SP_MSG_RELEASE:
    case SP_MSG_RELEASED:
      return msg->u.ref.id;
    case SP_MSG_STDIN:
      return msg->u.stdin_.id;
    case SP_MSG_QUEUED:
      return msg->u.queued.id;
    case SP_MSG_STARTED:
      return msg->u.started.id;
    case SP_MSG_OUTPUT:
      return msg->u.output.id;
    case SP_MSG_DISPLAY:
      return msg->u.display.id;
    case SP_MSG_EXITED:
      return msg->u.exited.id;
    case SP_MSG_INPUT_WAIT:
      return msg->u.input_wait.id;
    case SP_MSG_PHASE:
      return msg->u.phase.id;
    case SP_MSG_OUTPUT_OMITTED:
      return msg->u.omitted.id;
    default:
      return "";
    }
}

/* Refuses what the decoder would refuse, so we never send a frame that
 * our own peer must reject. */
static bool
message_valid (const SpMessage *msg)
{
  const char *id = message_id (msg);

  if (id == NULL || (id[0] != '\0' && !sp_proto_id_valid (id)))
    return false;
  switch (msg->type)
    {
    case SP_MSG_RUN:
      return (msg->u.run.session == NULL || sp_proto_id_valid (msg->u.run.session))
             && msg->u.run.language != NULL
             && (msg->u.run.code == NULL) != (msg->u.run.path == NULL)
             && (msg->u.run.path == NULL || msg->u.run.path[0] == '/')
             && (msg->u.run.cwd == NULL || msg->u.run.cwd[0] == '/')
             && (msg->u.run.environment == NULL || msg->u.run.environment[0] == '/');
    case SP_MSG_STDIN:
      return msg->u.stdin_.data != NULL || msg->u.stdin_.eof;
    case SP_MSG_OUTPUT:
      return msg->u.output.stream == SP_STREAM_STDOUT || msg->u.output.stream == SP_STREAM_STDERR;
    case SP_MSG_EXITED:
      return msg->u.exited.limit >= SP_LIMIT_NONE && msg->u.exited.limit < SP_LIMIT_LAST
             && msg->u.exited.cancelled >= SP_CANCEL_NONE
             && msg->u.exited.cancelled < SP_CANCEL_LAST
             && msg->u.exited.session_ended >= SP_SESSION_END_NONE
             && msg->u.exited.session_ended < SP_SESSION_END_LAST;
    case SP_MSG_STARTED:
      return (msg->u.started.session == NULL || sp_proto_id_valid (msg->u.started.session))
             && (msg->u.started.session != NULL
                 || (!msg->u.started.session_new && msg->u.started.execution_count == 0));
    case SP_MSG_SESSION_CLOSE:
    case SP_MSG_SESSION_RESTART:
      return msg->u.session.session != NULL && sp_proto_id_valid (msg->u.session.session);
    case SP_MSG_SESSION_ENDED:
      return msg->u.session.session != NULL && sp_proto_id_valid (msg->u.session.session)
             && msg->u.session.reason > SP_SESSION_END_NONE
             && msg->u.session.reason < SP_SESSION_END_LAST;
    case SP_MSG_INPUT_WAIT:
      return id[0] != '\0' && msg->u.input_wait.t_ms >= 0;
    case SP_MSG_PHASE:
      return id[0] != '\0' && msg->u.phase.phase >= 0 && msg->u.phase.phase < SP_PHASE_LAST
             && msg->u.phase.timeout_ms >= 1 && msg->u.phase.timeout_ms <= (INT64_C (1) << 40)
             && msg->u.phase.t_ms >= 0;
    case SP_MSG_OUTPUT_OMITTED:
      return id[0] != '\0'
             && (msg->u.omitted.stream == SP_STREAM_STDOUT
                 || msg->u.omitted.stream == SP_STREAM_STDERR)
             && msg->u.omitted.bytes >= 1 && msg->u.omitted.lines >= 0
             && msg->u.omitted.lines <= msg->u.omitted.bytes && msg->u.omitted.t_ms >= 0
             && (msg->u.omitted.file == NULL || sp_proto_output_file_valid (msg->u.omitted.file))
             && (msg->u.omitted.file != NULL || !msg->u.omitted.file_cut);
    case SP_MSG_ERROR:
      return msg->u.error.code > SP_ERR_NONE && msg->u.error.code < SP_ERR_LAST
             && (msg->u.error.id == NULL || sp_proto_id_valid (msg->u.error.id));
    default:
      return true;
    }
}

static void
encode_body (json_t *obj, const SpMessage *msg, bool *ok)
{
  if (!message_valid (msg))
    *ok = false;
  switch (msg->type)
    {
    case SP_MSG_HELLO:
      set_str (obj, "client", msg->u.hello.client, ok);
      break;
    case SP_MSG_RUN:
      encode_run (obj, &msg->u.run, ok);
      break;
    case SP_MSG_CANCEL:
    case SP_MSG_RELEASE:
    case SP_MSG_RELEASED:
      set_str (obj, "id", msg->u.ref.id, ok);
      break;
    case SP_MSG_STDIN:
      set_str (obj, "id", msg->u.stdin_.id, ok);
      set_str (obj, "data", msg->u.stdin_.data, ok);
      if (msg->u.stdin_.eof)
        set_bool (obj, "eof", true);
      break;
    case SP_MSG_READY:
      encode_ready (obj, &msg->u.ready, ok);
      break;
    case SP_MSG_QUEUED:
      set_str (obj, "id", msg->u.queued.id, ok);
      set_int (obj, "position", msg->u.queued.position);
      break;
    case SP_MSG_STARTED:
      encode_started (obj, &msg->u.started, ok);
      break;
    case SP_MSG_OUTPUT:
      set_str (obj, "id", msg->u.output.id, ok);
      set_str (obj, "stream", stream_names[msg->u.output.stream == SP_STREAM_STDERR], ok);
      set_str (obj, "data", msg->u.output.data ? msg->u.output.data : "", ok);
      if (msg->u.output.t_ms >= 0)
        set_int (obj, "t_ms", msg->u.output.t_ms);
      break;
    case SP_MSG_DISPLAY:
      set_str (obj, "id", msg->u.display.id, ok);
      set_int (obj, "t_ms", msg->u.display.t_ms < 0 ? 0 : msg->u.display.t_ms);
      sp_json_set (obj, "data", sp_display_data_encode (&msg->u.display, ok));
      break;
    case SP_MSG_EXITED:
      encode_exited (obj, &msg->u.exited, ok);
      break;
    case SP_MSG_ERROR:
      set_str (obj, "id", msg->u.error.id, ok);
      set_str (obj, "code", sp_proto_error_code_to_string (msg->u.error.code), ok);
      set_str (obj, "message", msg->u.error.message ? msg->u.error.message : "", ok);
      break;
    case SP_MSG_SESSION_CLOSE:
    case SP_MSG_SESSION_RESTART:
      set_str (obj, "session", msg->u.session.session, ok);
      break;
    case SP_MSG_SESSION_ENDED:
      set_str (obj, "session", msg->u.session.session, ok);
      set_str (obj, "reason", sp_session_end_to_string (msg->u.session.reason), ok);
      break;
    case SP_MSG_INPUT_WAIT:
      set_str (obj, "id", msg->u.input_wait.id, ok);
      set_bool (obj, "waiting", msg->u.input_wait.waiting);
      set_int (obj, "t_ms", msg->u.input_wait.t_ms);
      break;
    case SP_MSG_PHASE:
      set_str (obj, "id", msg->u.phase.id, ok);
      set_str (obj, "phase", sp_phase_to_string (msg->u.phase.phase), ok);
      set_int (obj, "timeout_ms", msg->u.phase.timeout_ms);
      set_int (obj, "t_ms", msg->u.phase.t_ms);
      break;
    case SP_MSG_OUTPUT_OMITTED:
      set_str (obj, "id", msg->u.omitted.id, ok);
      set_str (obj, "stream", stream_names[msg->u.omitted.stream == SP_STREAM_STDERR], ok);
      set_int (obj, "bytes", msg->u.omitted.bytes);
      set_int (obj, "lines", msg->u.omitted.lines);
      set_int (obj, "t_ms", msg->u.omitted.t_ms);
      if (msg->u.omitted.file != NULL)
        set_str (obj, "file", msg->u.omitted.file, ok);
      if (msg->u.omitted.file_cut)
        set_bool (obj, "file_cut", true);
      break;
    case SP_MSG_INVALID:
    case SP_MSG_LAST:
    default:
      *ok = false;
      break;
    }
}

char *
sp_message_encode (const SpMessage *msg, size_t *len_out)
{
  json_t *obj = json_object ();
  bool ok = true;
  char *text;

  if (obj == NULL)
    abort ();
  set_int (obj, "v", SP_PROTO_VERSION);
  set_str (obj, "type", sp_message_type_to_string (msg->type), &ok);
  encode_body (obj, msg, &ok);

  /* JSON_COMPACT escapes control characters inside strings, so the only
   * raw newline in the output is the one we add. */
  text = ok ? json_dumps (obj, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref (obj);
  if (text == NULL)
    return NULL;

  size_t len = strlen (text);
  char *line = realloc (text, len + 2);
  if (line == NULL)
    abort ();
  line[len] = '\n';
  line[len + 1] = '\0';
  if (len_out)
    *len_out = len + 1;
  return line;
}
