/* sp-proto.c: names, errors and ownership helpers of the protocol. */
#include "sp-proto.h"
#include "sp-utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const error_names[SP_ERR_LAST] = {
  [SP_ERR_NONE] = "none",
  [SP_ERR_INVALID_JSON] = "invalid_json",
  [SP_ERR_NOT_OBJECT] = "not_object",
  [SP_ERR_BAD_VERSION] = "bad_version",
  [SP_ERR_UNKNOWN_TYPE] = "unknown_type",
  [SP_ERR_MISSING_FIELD] = "missing_field",
  [SP_ERR_WRONG_TYPE] = "wrong_type",
  [SP_ERR_INVALID_VALUE] = "invalid_value",
  [SP_ERR_UNKNOWN_FIELD] = "unknown_field",
  [SP_ERR_FRAME_TOO_LARGE] = "frame_too_large",
  [SP_ERR_NUL_BYTE] = "nul_byte",
  [SP_ERR_UNKNOWN_RUN] = "unknown_run",
  [SP_ERR_DUPLICATE_RUN] = "duplicate_run",
  [SP_ERR_RUN_STATE] = "run_state",
  [SP_ERR_UNSUPPORTED_LANGUAGE] = "unsupported_language",
  [SP_ERR_LIMIT] = "limit",
  [SP_ERR_IO] = "io",
  [SP_ERR_INTERNAL] = "internal",
  [SP_ERR_UNKNOWN_SESSION] = "unknown_session",
};

const char *
sp_proto_error_code_to_string (SpProtoErrorCode code)
{
  if (code < 0 || code >= SP_ERR_LAST)
    return "internal";
  return error_names[code];
}

SpProtoErrorCode
sp_proto_error_code_from_string (const char *name)
{
  for (int i = 1; i < SP_ERR_LAST; i++)
    if (strcmp (error_names[i], name) == 0)
      return (SpProtoErrorCode) i;
  return SP_ERR_NONE;
}

/* The message travels back to the peer inside an "error" event, which
 * cannot be encoded unless it is valid UTF-8. It quotes the peer's own
 * text, cut to a byte count ("%.64s", the buffer's size, jansson's
 * "near '...'" excerpt), and a cut can split a character: replace what
 * is invalid and trim to whole characters that fit. */
static void
keep_valid_utf8 (char *message, size_t size)
{
  size_t len = strlen (message), out_len = 0;

  if (sp_utf8_valid (message, len))
    return;
  char *clean = sp_utf8_sanitize (message, len, true, NULL, &out_len);
  if (out_len >= size)
    {
      out_len = size - 1;
      while (out_len > 0 && ((unsigned char) clean[out_len] & 0xC0) == 0x80)
        out_len--; /* back to the start of the character that did not fit */
    }
  memcpy (message, clean, out_len);
  message[out_len] = '\0';
  free (clean);
}

int
sp_proto_set_error (SpProtoError *err, SpProtoErrorCode code, const char *fmt, ...)
{
  va_list args;

  if (err == NULL)
    return -1;
  err->code = code;
  va_start (args, fmt);
  vsnprintf (err->message, sizeof err->message, fmt, args);
  va_end (args);
  keep_valid_utf8 (err->message, sizeof err->message);
  return -1;
}

static const char *const type_names[SP_MSG_LAST] = {
  [SP_MSG_INVALID] = "invalid",
  [SP_MSG_HELLO] = "hello",
  [SP_MSG_RUN] = "run",
  [SP_MSG_CANCEL] = "cancel",
  [SP_MSG_STDIN] = "stdin",
  [SP_MSG_RELEASE] = "release",
  [SP_MSG_READY] = "ready",
  [SP_MSG_QUEUED] = "queued",
  [SP_MSG_STARTED] = "started",
  [SP_MSG_OUTPUT] = "output",
  [SP_MSG_EXITED] = "exited",
  [SP_MSG_RELEASED] = "released",
  [SP_MSG_ERROR] = "error",
  [SP_MSG_SESSION_CLOSE] = "session_close",
  [SP_MSG_SESSION_RESTART] = "session_restart",
  [SP_MSG_SESSION_ENDED] = "session_ended",
  [SP_MSG_INPUT_WAIT] = "input_wait",
  [SP_MSG_DISPLAY] = "display",
  [SP_MSG_PHASE] = "phase",
  [SP_MSG_OUTPUT_OMITTED] = "output_omitted",
};

bool
sp_message_type_is_request (SpMessageType type)
{
  return (type >= SP_MSG_HELLO && type <= SP_MSG_RELEASE) || type == SP_MSG_SESSION_CLOSE
         || type == SP_MSG_SESSION_RESTART;
}

static const char *const session_end_names[SP_SESSION_END_LAST] = {
  [SP_SESSION_END_NONE] = "none",       [SP_SESSION_END_EXITED] = "exited",
  [SP_SESSION_END_TIMEOUT] = "timeout", [SP_SESSION_END_CANCELLED] = "cancelled",
  [SP_SESSION_END_LIMIT] = "limit",     [SP_SESSION_END_CLOSED] = "closed",
  [SP_SESSION_END_RESTART] = "restart", [SP_SESSION_END_IDLE] = "idle",
  [SP_SESSION_END_FAILED] = "failed",
};

const char *
sp_session_end_to_string (SpSessionEnd reason)
{
  if (reason < 0 || reason >= SP_SESSION_END_LAST)
    return "none";
  return session_end_names[reason];
}

SpSessionEnd
sp_session_end_from_string (const char *name)
{
  for (int i = 1; i < SP_SESSION_END_LAST; i++)
    if (strcmp (session_end_names[i], name) == 0)
      return (SpSessionEnd) i;
  return SP_SESSION_END_NONE;
}

const char *
sp_message_type_to_string (SpMessageType type)
{
  if (type <= SP_MSG_INVALID || type >= SP_MSG_LAST)
    return "invalid";
  return type_names[type];
}

static const char *const limit_names[SP_LIMIT_LAST] = {
  [SP_LIMIT_NONE] = "none",
  [SP_LIMIT_TIME] = "time",
  [SP_LIMIT_CPU] = "cpu",
  [SP_LIMIT_MEMORY] = "memory",
  [SP_LIMIT_OUTPUT] = "output",
  [SP_LIMIT_PROCESSES] = "processes",
  [SP_LIMIT_DISK] = "disk",
  [SP_LIMIT_INPUT_IDLE] = "input_idle",
  [SP_LIMIT_COMPILE_TIME] = "compile_time",
};

const char *const sp_phase_names[SP_PHASE_LAST + 1] = { "compile", "run", NULL };

const char *
sp_phase_to_string (SpPhaseKind phase)
{
  if (phase < 0 || phase >= SP_PHASE_LAST)
    return "run";
  return sp_phase_names[phase];
}

const char *const sp_file_kind_names[SP_FILE_KIND_LAST + 1]
  = { "regular", "symlink", "fifo", "socket", "device", "other", NULL };

const char *
sp_limit_to_string (SpLimit limit)
{
  if (limit < 0 || limit >= SP_LIMIT_LAST)
    return "none";
  return limit_names[limit];
}

bool
sp_proto_env_name_valid (const char *name, size_t len)
{
  if (len == 0 || (name[0] >= '0' && name[0] <= '9'))
    return false;
  for (size_t i = 0; i < len; i++)
    if (!((name[i] >= 'A' && name[i] <= 'Z') || (name[i] >= 'a' && name[i] <= 'z')
          || (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
      return false;
  return true;
}

bool
sp_proto_id_valid (const char *id)
{
  size_t len = strlen (id);

  if (len == 0 || len > SP_PROTO_MAX_ID)
    return false;
  /* Printable ASCII only: ids end up in logs and file listings. */
  for (size_t i = 0; i < len; i++)
    if (id[i] < 0x21 || id[i] > 0x7e)
      return false;
  return true;
}

bool
sp_proto_output_file_valid (const char *name)
{
  size_t len = strlen (name);

  if (len == 0 || len > 255 || strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
    return false;
  for (size_t i = 0; i < len; i++)
    if (name[i] < 0x21 || name[i] > 0x7e || name[i] == '/')
      return false;
  return true;
}

size_t
sp_strv_length (char *const *strv)
{
  size_t n = 0;

  while (strv != NULL && strv[n] != NULL)
    n++;
  return n;
}

char **
sp_strv_copy (char *const *strv)
{
  if (strv == NULL)
    return NULL;

  size_t n = sp_strv_length (strv);
  char **copy = calloc (n + 1, sizeof *copy);
  if (copy == NULL)
    abort ();
  for (size_t i = 0; i < n; i++)
    if ((copy[i] = strdup (strv[i])) == NULL)
      abort ();
  return copy;
}

void
sp_strv_free (char **strv)
{
  for (size_t i = 0; strv != NULL && strv[i] != NULL; i++)
    free (strv[i]);
  free (strv);
}

void
sp_sandbox_info_clear (SpSandboxInfo *info)
{
  free (info->mode);
  sp_strv_free (info->layers);
  sp_strv_free (info->waived);
  memset (info, 0, sizeof *info);
}

void
sp_sandbox_info_copy (SpSandboxInfo *dst, const SpSandboxInfo *src)
{
  dst->mode = src->mode ? strdup (src->mode) : NULL;
  dst->layers = sp_strv_copy (src->layers);
  dst->waived = sp_strv_copy (src->waived);
}

static void
clear_run (SpRun *run)
{
  free (run->id);
  free (run->language);
  free (run->code);
  free (run->path);
  free (run->name);
  sp_strv_free (run->args);
  free (run->stdin_data);
  sp_strv_free (run->env);
  free (run->cwd);
  free (run->environment);
  free (run->session);
}

static void
clear_ready (SpReady *ready)
{
  free (ready->runner_version);
  for (size_t i = 0; i < ready->n_languages; i++)
    {
      free (ready->languages[i].name);
      free (ready->languages[i].path);
      free (ready->languages[i].version);
      sp_strv_free (ready->languages[i].extensions);
    }
  free (ready->languages);
  sp_strv_free (ready->unavailable);
  sp_sandbox_info_clear (&ready->sandbox);
}

void
sp_program_error_free (SpProgramError *error)
{
  if (error == NULL)
    return;
  free (error->type);
  free (error->message);
  for (size_t i = 0; i < error->n_frames; i++)
    {
      free (error->frames[i].file);
      free (error->frames[i].function);
    }
  free (error->frames);
  free (error);
}

static void
clear_exited (SpExited *exited)
{
  free (exited->id);
  free (exited->error);
  free (exited->cold_reason);
  for (size_t i = 0; i < exited->n_files; i++)
    {
      free (exited->files[i].path);
      free (exited->files[i].name);
      free (exited->files[i].mime);
      free (exited->files[i].base64);
      free (exited->files[i].target);
    }
  free (exited->files);
  sp_program_error_free (exited->program_error);
}

/* Here, beside the message's clear, not with the display codec: the
 * messages own their memory, and the codec builds on them. */
void
sp_display_clear (SpDisplay *display)
{
  for (size_t i = 0; i < display->n_items; i++)
    {
      free (display->items[i].mime);
      free (display->items[i].text);
    }
  free (display->items);
  display->items = NULL;
  display->n_items = 0;
}

void
sp_message_clear (SpMessage *msg)
{
  switch (msg->type)
    {
    case SP_MSG_HELLO:
      free (msg->u.hello.client);
      break;
    case SP_MSG_RUN:
      clear_run (&msg->u.run);
      break;
    case SP_MSG_CANCEL:
    case SP_MSG_RELEASE:
    case SP_MSG_RELEASED:
      free (msg->u.ref.id);
      break;
    case SP_MSG_STDIN:
      free (msg->u.stdin_.id);
      free (msg->u.stdin_.data);
      break;
    case SP_MSG_READY:
      clear_ready (&msg->u.ready);
      break;
    case SP_MSG_QUEUED:
      free (msg->u.queued.id);
      break;
    case SP_MSG_STARTED:
      free (msg->u.started.id);
      free (msg->u.started.cwd);
      free (msg->u.started.environment);
      free (msg->u.started.session);
      sp_sandbox_info_clear (&msg->u.started.sandbox);
      break;
    case SP_MSG_OUTPUT:
      free (msg->u.output.id);
      free (msg->u.output.data);
      break;
    case SP_MSG_EXITED:
      clear_exited (&msg->u.exited);
      break;
    case SP_MSG_ERROR:
      free (msg->u.error.id);
      free (msg->u.error.message);
      break;
    case SP_MSG_SESSION_CLOSE:
    case SP_MSG_SESSION_RESTART:
    case SP_MSG_SESSION_ENDED:
      free (msg->u.session.session);
      break;
    case SP_MSG_INPUT_WAIT:
      free (msg->u.input_wait.id);
      break;
    case SP_MSG_PHASE:
      free (msg->u.phase.id);
      break;
    case SP_MSG_DISPLAY:
      free (msg->u.display.id);
      sp_display_clear (&msg->u.display);
      break;
    case SP_MSG_OUTPUT_OMITTED:
      free (msg->u.omitted.id);
      free (msg->u.omitted.file);
      break;
    case SP_MSG_INVALID:
    case SP_MSG_LAST:
    default:
      break;
    }
  memset (msg, 0, sizeof *msg);
}

const char *
sp_message_run_id (const SpMessage *msg)
{
  switch (msg->type)
    {
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
    case SP_MSG_RELEASED:
      return msg->u.ref.id;
    case SP_MSG_ERROR:
      return msg->u.error.id;
    case SP_MSG_INPUT_WAIT:
      return msg->u.input_wait.id;
    case SP_MSG_PHASE:
      return msg->u.phase.id;
    case SP_MSG_OUTPUT_OMITTED:
      return msg->u.omitted.id;
    default:
      return NULL;
    }
}
