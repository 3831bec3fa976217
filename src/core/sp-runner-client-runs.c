/* sp-runner-client-runs.c: what the runner offers, the requests we send it
 * and the events it sends back about runs. */
#define G_LOG_DOMAIN "sp-runner-client"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>

#include "sp-data-table.h"
#include "sp-error-info-private.h"
#include "sp-run-result-private.h"
#include "sp-runner-client-private.h"

static guint signals[N_SIGNALS];

void
_sp_runner_client_add_signals (GType type)
{
  signals[SIGNAL_QUEUED] = g_signal_new ("queued", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_INT64);
  signals[SIGNAL_STARTED] = g_signal_new ("started", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_OUTPUT] = g_signal_new ("output", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 4, G_TYPE_STRING, SP_TYPE_OUTPUT_KIND,
                                         G_TYPE_STRING, G_TYPE_INT64);
  /* A rich result with an image or a table (issue 25): run id, its
   * text/plain, the PNG's bytes or NULL, the PNG's pixels per logical
   * pixel (0: a picture to fit; sp_output_item_get_image_scale()), the
   * SpDataTable or NULL, t_ms. One with neither comes as "output" text. */
  signals[SIGNAL_DISPLAY] = g_signal_new ("display", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 6, G_TYPE_STRING, G_TYPE_STRING,
                                          G_TYPE_BYTES, G_TYPE_UINT, SP_TYPE_DATA_TABLE,
                                          G_TYPE_INT64);
  signals[SIGNAL_EXITED] = g_signal_new ("exited", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 2, G_TYPE_STRING, SP_TYPE_RUN_RESULT);
  signals[SIGNAL_RELEASED] = g_signal_new ("released", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                           G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[SIGNAL_ERROR] = g_signal_new ("error", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING,
                                        G_TYPE_STRING);
  signals[SIGNAL_CLOSED] = g_signal_new ("closed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 1, G_TYPE_ERROR);
  signals[SIGNAL_INPUT_WAIT] = g_signal_new ("input-wait", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                             NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);
  signals[SIGNAL_PHASE] = g_signal_new ("phase", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_BOOLEAN,
                                        G_TYPE_INT64);
}

void
_sp_runner_client_emit (SpRunnerClient *self, guint which, ...)
{
  va_list args;

  va_start (args, which);
  g_signal_emit_valist (self, signals[which], 0, args);
  va_end (args);
}

void
_sp_runner_client_send (SpRunnerClient *self, char *line, gsize len)
{
  if (self->channel == NULL)
    {
      free (line);
      return;
    }
  sp_runner_channel_send (self->channel, line, len);
}

RunInfo *
_sp_runner_client_run_info_new (void)
{
  return g_new0 (RunInfo, 1);
}

void
_sp_runner_client_run_info_free (gpointer data)
{
  RunInfo *info = data;

  g_free (info->cwd);
  g_free (info->name);
  g_free (info->sandbox_mode);
  g_strfreev (info->sandbox_layers);
  g_clear_object (&info->execution);
  g_free (info);
}

void
_sp_runner_client_fail_runs (SpRunnerClient *self, const GError *error)
{
  g_autoptr (GHashTable) runs = self->runs;
  GHashTableIter iter;
  RunInfo *info;

  /* A fresh table first: a handler of the failures may look at it. */
  self->runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      _sp_runner_client_run_info_free);
  g_hash_table_iter_init (&iter, runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &info))
    if (info->execution != NULL)
      _sp_execution_set_failed (info->execution, error);
}

/* Sends a cancel or release for a run no caller follows any more. */
static void
send_ref_quietly (SpRunnerClient *self, SpMessageType type, const char *id)
{
  SpMessage msg = { .type = type };
  gsize len = 0;
  char *line;

  msg.u.ref.id = (char *) id;
  line = sp_message_encode (&msg, &len);
  if (line != NULL)
    _sp_runner_client_send (self, line, len);
}

gboolean
_sp_runner_client_fail_run (SpRunnerClient *self, const char *id, const SpProtoError *perr)
{
  RunInfo *info = id[0] != '\0' ? g_hash_table_lookup (self->runs, id) : NULL;
  const char *code = sp_proto_error_code_to_string (perr->code);
  g_autofree char *message = NULL;
  g_autoptr (GError) error = NULL;

  if (info == NULL)
    return FALSE;
  if (info->failed)
    return TRUE;
  info->failed = TRUE;
  message = g_strdup_printf (_ ("The runner sent an invalid message about this run (%s): %s"), code,
                             perr->message);
  error = g_error_new_literal (SP_RUNNER_ERROR, sp_runner_error_from_proto (perr->code), message);
  /* Stopped, as no one will see its output or result; released by us
   * now if it is over (else "run_state", and again at its exited), as no
   * caller will release a run that never exited for it. */
  send_ref_quietly (self, SP_MSG_CANCEL, id);
  send_ref_quietly (self, SP_MSG_RELEASE, id);
  if (info->execution != NULL)
    _sp_execution_set_failed (info->execution, error);
  _sp_runner_client_emit (self, SIGNAL_ERROR, id, code, message);
  return TRUE;
}

/* An event about a run that failed: its callers were told, so only the
 * run's end matters, to release it and then forget it. */
static void
handle_failed_run (SpRunnerClient *self, const char *id, const SpMessage *msg)
{
  if (msg->type == SP_MSG_EXITED)
    send_ref_quietly (self, SP_MSG_RELEASE, id);
  else if (msg->type == SP_MSG_RELEASED
           || (msg->type == SP_MSG_ERROR && msg->u.error.code == SP_ERR_UNKNOWN_RUN))
    g_hash_table_remove (self->runs, id);
}

/* ---- the ready event ---- */

const SpReady *
sp_runner_client_get_ready (SpRunnerClient *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), NULL);
  return self->ready.type == SP_MSG_READY ? &self->ready.u.ready : NULL;
}

const char *
sp_runner_client_get_runner_version (SpRunnerClient *self)
{
  const SpReady *ready = sp_runner_client_get_ready (self);

  return ready ? ready->runner_version : NULL;
}

const char *const *
sp_runner_client_get_languages (SpRunnerClient *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), NULL);
  return (const char *const *) self->languages;
}

static const SpLanguage *
lookup_language (SpRunnerClient *self, const char *name)
{
  const SpReady *ready = sp_runner_client_get_ready (self);

  g_return_val_if_fail (name != NULL, NULL);

  for (gsize i = 0; ready != NULL && i < ready->n_languages; i++)
    if (g_strcmp0 (ready->languages[i].name, name) == 0)
      return &ready->languages[i];
  return NULL;
}

const char *
sp_runner_client_get_language_version (SpRunnerClient *self, const char *name)
{
  const SpLanguage *language = lookup_language (self, name);

  return language ? language->version : NULL;
}

const char *const *
sp_runner_client_get_language_extensions (SpRunnerClient *self, const char *name)
{
  const SpLanguage *language = lookup_language (self, name);

  return language ? (const char *const *) language->extensions : NULL;
}

const char *
sp_runner_client_language_for_file (SpRunnerClient *self, const char *file_name)
{
  const SpReady *ready = sp_runner_client_get_ready (self);
  const char *dot;

  g_return_val_if_fail (file_name != NULL, NULL);

  /* The runner matches the last extension exactly, case and all; so do we,
   * or the app would call a file Python that the runner refuses. */
  dot = strrchr (file_name, '.');
  if (dot == NULL || dot[1] == '\0' || ready == NULL)
    return NULL;
  for (gsize i = 0; i < ready->n_languages; i++)
    for (char **ext = ready->languages[i].extensions; ext != NULL && *ext != NULL; ext++)
      if (g_str_equal (*ext, dot + 1))
        return ready->languages[i].name;
  return NULL;
}

const char *
sp_runner_client_get_sandbox_mode (SpRunnerClient *self)
{
  const SpReady *ready = sp_runner_client_get_ready (self);

  return ready ? ready->sandbox.mode : NULL;
}

const char *const *
sp_runner_client_get_sandbox_layers (SpRunnerClient *self)
{
  const SpReady *ready = sp_runner_client_get_ready (self);

  return ready ? (const char *const *) ready->sandbox.layers : NULL;
}

gboolean
sp_runner_client_get_limit (SpRunnerClient *self, const char *name, gint64 *default_value,
                            gint64 *max_value)
{
  const SpReady *ready = sp_runner_client_get_ready (self);
  const SpLimitRange *range;

  g_return_val_if_fail (name != NULL, FALSE);

  if (ready == NULL)
    return FALSE;
  if (g_str_equal (name, "timeout_ms"))
    range = &ready->timeout_ms;
  else if (g_str_equal (name, "memory_mib"))
    range = &ready->memory_mib;
  else if (g_str_equal (name, "output_limit"))
    range = &ready->output_limit;
  else
    g_return_val_if_reached (FALSE);
  if (default_value != NULL)
    *default_value = range->default_value;
  if (max_value != NULL)
    *max_value = range->max_value;
  return TRUE;
}

gint64
sp_runner_client_get_max_concurrent (SpRunnerClient *self)
{
  const SpReady *ready = sp_runner_client_get_ready (self);

  return ready ? ready->max_concurrent : 0;
}

/* ---- requests ---- */

static gboolean
check_ready (SpRunnerClient *self, GError **error)
{
  if (self->phase == CLIENT_READY)
    return TRUE;
  g_set_error_literal (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_NOT_READY,
                       _ ("The sandboxed runner is not ready"));
  return FALSE;
}

/* The longest line the runner reads: what its ready event said, else the
 * protocol's own cap. */
static gsize
max_frame (SpRunnerClient *self)
{
  const SpReady *ready = sp_runner_client_get_ready (self);

  return ready != NULL && ready->max_frame > 0 ? (gsize) ready->max_frame : SP_PROTO_MAX_FRAME;
}

/* Encodes and queues msg; FALSE when the protocol library refuses it, or
 * when the line is longer than the runner reads: sent, it would break the
 * connection and with it every window's runs, so it fails here alone. */
static gboolean
send_message (SpRunnerClient *self, const SpMessage *msg, GError **error)
{
  gsize len = 0;
  char *line = sp_message_encode (msg, &len);

  if (line == NULL)
    {
      g_set_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_INVALID_VALUE, _ ("Invalid %s request"),
                   sp_message_type_to_string (msg->type));
      return FALSE;
    }
  /* len counts the newline, which the runner's cap does not. */
  if (len - 1 > max_frame (self))
    {
      g_autofree char *size = g_format_size_full (len - 1, G_FORMAT_SIZE_IEC_UNITS);
      g_autofree char *limit = g_format_size_full (max_frame (self), G_FORMAT_SIZE_IEC_UNITS);

      free (line);
      if (msg->type == SP_MSG_RUN)
        /* Translators: the sizes are like "5.2 MiB" and "4.0 MiB". */
        g_set_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_FRAME_TOO_LARGE,
                     _ ("The code is too big to run: %s, and a run may be at most %s"), size,
                     limit);
      else
        g_set_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_FRAME_TOO_LARGE,
                     _ ("The %s request is too big to send: %s, and the limit is %s"),
                     sp_message_type_to_string (msg->type), size, limit);
      return FALSE;
    }
  _sp_runner_client_send (self, line, len);
  return TRUE;
}

static char *
send_run (SpRunnerClient *self, SpRunRequest *request, SpExecution **execution, GError **error)
{
  g_autofree char *id = NULL;
  SpMessage msg;
  RunInfo *info;
  gboolean sent;

  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), NULL);
  g_return_val_if_fail (request != NULL, NULL);

  if (!check_ready (self, error))
    return NULL;
  id = g_strdup_printf ("%sr%u", self->id_prefix, ++self->next_run);
  _sp_run_request_to_message (request, id, &msg);
  sent = send_message (self, &msg, error);
  if (sent)
    {
      info = _sp_runner_client_run_info_new ();
      /* Until "started" resolves them: what was asked, or the defaults. */
      info->timeout_ms = msg.u.run.timeout_ms ? msg.u.run.timeout_ms
                                              : self->ready.u.ready.timeout_ms.default_value;
      info->memory_mib = msg.u.run.memory_mib ? msg.u.run.memory_mib
                                              : self->ready.u.ready.memory_mib.default_value;
      info->name = g_strdup (msg.u.run.name);
      if (execution != NULL)
        {
          *execution = sp_execution_new (id, sp_run_request_get_language (request));
          info->execution = g_object_ref (*execution);
        }
      g_hash_table_insert (self->runs, g_strdup (id), info);
    }
  sp_message_clear (&msg);
  return sent ? g_steal_pointer (&id) : NULL;
}

char *
sp_runner_client_run (SpRunnerClient *self, SpRunRequest *request, GError **error)
{
  return send_run (self, request, NULL, error);
}

SpExecution *
sp_runner_client_submit (SpRunnerClient *self, SpRunRequest *request, GError **error)
{
  g_autofree char *id = NULL;
  SpExecution *execution = NULL;

  id = send_run (self, request, &execution, error);
  return id ? execution : NULL;
}

static gboolean
send_ref (SpRunnerClient *self, SpMessageType type, const char *run_id, GError **error)
{
  SpMessage msg = { .type = type };

  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), FALSE);
  g_return_val_if_fail (run_id != NULL, FALSE);

  if (!check_ready (self, error))
    return FALSE;
  msg.u.ref.id = (char *) run_id;
  return send_message (self, &msg, error);
}

gboolean
sp_runner_client_cancel (SpRunnerClient *self, const char *run_id, GError **error)
{
  return send_ref (self, SP_MSG_CANCEL, run_id, error);
}

gboolean
sp_runner_client_release (SpRunnerClient *self, const char *run_id, GError **error)
{
  return send_ref (self, SP_MSG_RELEASE, run_id, error);
}

gboolean
sp_runner_client_end_session (SpRunnerClient *self, const char *session, gboolean restart,
                              GError **error)
{
  SpMessage msg = { .type = restart ? SP_MSG_SESSION_RESTART : SP_MSG_SESSION_CLOSE };

  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), FALSE);
  g_return_val_if_fail (session != NULL, FALSE);

  if (!check_ready (self, error))
    return FALSE;
  msg.u.session.session = (char *) session;
  return send_message (self, &msg, error);
}

gboolean
sp_runner_client_send_stdin (SpRunnerClient *self, const char *run_id, const char *text,
                             gboolean eof, GError **error)
{
  SpMessage msg = { .type = SP_MSG_STDIN };

  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), FALSE);
  g_return_val_if_fail (run_id != NULL, FALSE);
  g_return_val_if_fail (text != NULL || eof, FALSE);

  if (!check_ready (self, error))
    return FALSE;
  msg.u.stdin_.id = (char *) run_id;
  msg.u.stdin_.data = (char *) text;
  msg.u.stdin_.eof = !!eof;
  return send_message (self, &msg, error);
}

gboolean
sp_runner_client_get_run_sandbox (SpRunnerClient *self, const char *run_id, const char **mode,
                                  const char *const **layers)
{
  RunInfo *info;

  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), FALSE);
  g_return_val_if_fail (run_id != NULL, FALSE);

  info = g_hash_table_lookup (self->runs, run_id);
  if (info == NULL || info->sandbox_mode == NULL)
    return FALSE;
  if (mode != NULL)
    *mode = info->sandbox_mode;
  if (layers != NULL)
    *layers = (const char *const *) info->sandbox_layers;
  return TRUE;
}

/* ---- events ---- */

static void
handle_started (SpRunnerClient *self, const SpStarted *started)
{
  RunInfo *info = g_hash_table_lookup (self->runs, started->id);

  if (info != NULL)
    {
      info->accepted = TRUE;
      info->timeout_ms = started->timeout_ms;
      info->memory_mib = started->memory_mib;
      g_free (info->cwd);
      info->cwd = g_strdup (started->cwd);
      g_free (info->sandbox_mode);
      info->sandbox_mode = g_strdup (started->sandbox.mode);
      g_strfreev (info->sandbox_layers);
      info->sandbox_layers = g_strdupv (started->sandbox.layers);
      if (info->execution != NULL)
        _sp_execution_set_started (info->execution, started->cwd);
    }
  _sp_runner_client_emit (self, SIGNAL_STARTED, started->id);
}

/* The PNG's pixels per logical pixel, as the bundle's
 * SP_DISPLAY_PNG_SCALE_MIME entry says (a JSON integer, 1 to 8), or 0. */
static guint
png_scale (const char *json)
{
  char *end = NULL;
  guint64 value;

  if (json == NULL || !g_ascii_isdigit (json[0]))
    return 0;
  value = g_ascii_strtoull (json, &end, 10);
  return *end == '\0' && value >= 1 && value <= 8 ? (guint) value : 0;
}

/* A rich result (a Python value, display()): an image/png as "display"
 * with its bytes and text, a table (a pandas DataFrame's
 * application/vnd.dataresource+json that reads as one, sp-data-table.h)
 * as "display" with the table and text; anything else as its text/plain,
 * in its place among the output, as a terminal shows it. The execution
 * keeps the text. */
static void
handle_display (SpRunnerClient *self, const SpDisplay *display)
{
  const char *text = "", *png = NULL, *table_json = NULL;
  guint scale = 0;

  /* A chart's data (SP_DISPLAY_CHART_MIME): the panel shows its picture,
   * the plot file, already. */
  for (size_t i = 0; i < display->n_items; i++)
    if (strcmp (display->items[i].mime, SP_DISPLAY_CHART_MIME) == 0)
      return;
  for (size_t i = 0; i < display->n_items; i++)
    if (strcmp (display->items[i].mime, "text/plain") == 0)
      text = display->items[i].text;
    else if (strcmp (display->items[i].mime, "image/png") == 0)
      png = display->items[i].text;
    else if (strcmp (display->items[i].mime, SP_DISPLAY_PNG_SCALE_MIME) == 0)
      scale = png_scale (display->items[i].text);
    else if (strcmp (display->items[i].mime, SP_DATA_TABLE_MIME) == 0)
      table_json = display->items[i].text;
  g_autofree char *line = g_str_has_suffix (text, "\n") ? g_strdup (text)
                                                        : g_strconcat (text, "\n", NULL);
  RunInfo *info = g_hash_table_lookup (self->runs, display->id);
  if (info != NULL && info->execution != NULL)
    _sp_execution_append_output (info->execution, SP_OUTPUT_STDOUT, line, display->t_ms);
  if (png != NULL)
    {
      gsize len = 0;
      guchar *data = g_base64_decode (png, &len);
      g_autoptr (GBytes) bytes = g_bytes_new_take (data, len);
      if (len > 0)
        {
          _sp_runner_client_emit (self, SIGNAL_DISPLAY, display->id, text, bytes, scale, NULL,
                                  (gint64) display->t_ms);
          return;
        }
    }
  if (table_json != NULL)
    {
      /* Read later, off this thread (sp-data-table.h); one that is no
       * table shows its text then. */
      g_autoptr (SpDataTable) table = sp_data_table_new (table_json);
      _sp_runner_client_emit (self, SIGNAL_DISPLAY, display->id, text, NULL, 0u, table,
                              (gint64) display->t_ms);
      return;
    }
  _sp_runner_client_emit (self, SIGNAL_OUTPUT, display->id, SP_OUTPUT_STDOUT, line,
                          (gint64) display->t_ms);
}

/* An output_omitted event as the notice in its place among the output:
 * how much was left out, and where the whole stream is. */
static void
handle_omitted (SpRunnerClient *self, const SpOutputOmitted *omitted)
{
  RunInfo *info = g_hash_table_lookup (self->runs, omitted->id);
  g_autofree char *text = _sp_output_omitted_describe (omitted);

  if (info != NULL && info->execution != NULL)
    _sp_execution_append_output (info->execution, SP_OUTPUT_NOTICE, text, omitted->t_ms);
  _sp_runner_client_emit (self, SIGNAL_OUTPUT, omitted->id, SP_OUTPUT_NOTICE, text,
                          (gint64) omitted->t_ms);
}

static void
handle_exited (SpRunnerClient *self, const SpExited *exited)
{
  RunInfo *info = g_hash_table_lookup (self->runs, exited->id);
  g_autoptr (SpRunResult) result = NULL;

  result = _sp_run_result_new (exited, info ? info->timeout_ms : 0, info ? info->memory_mib : 0,
                               info ? info->cwd : NULL);
  if (exited->program_error != NULL)
    {
      g_autoptr (SpErrorInfo) error_info = _sp_error_info_new_from_proto (exited->program_error,
                                                                          info ? info->name : NULL);
      _sp_run_result_set_error_info (result, error_info);
    }
  if (info != NULL && info->execution != NULL)
    _sp_execution_set_exited (info->execution, result);
  /* The last event of the run: nothing more to route. */
  g_hash_table_remove (self->runs, exited->id);
  _sp_runner_client_emit (self, SIGNAL_EXITED, exited->id, result);
}

static void
handle_error (SpRunnerClient *self, const SpErrorMsg *error)
{
  RunInfo *info = error->id ? g_hash_table_lookup (self->runs, error->id) : NULL;
  const char *code = sp_proto_error_code_to_string (error->code);

  /* An error before "queued" is the refusal of the run itself: no other
   * event will come for it. Later ones are about cancel, stdin, release. */
  if (info != NULL && !info->accepted)
    {
      if (info->execution != NULL)
        {
          g_autoptr (GError) gerror = g_error_new_literal (SP_RUNNER_ERROR,
                                                           sp_runner_error_from_proto (error->code),
                                                           error->message);
          _sp_execution_set_failed (info->execution, gerror);
        }
      g_hash_table_remove (self->runs, error->id);
    }
  _sp_runner_client_emit (self, SIGNAL_ERROR, error->id, code, error->message);
}

void
_sp_runner_client_dispatch (SpRunnerClient *self, SpMessage *msg)
{
  const char *id = sp_message_run_id (msg);
  RunInfo *info = id != NULL ? g_hash_table_lookup (self->runs, id) : NULL;

  if (info != NULL && info->failed)
    {
      handle_failed_run (self, id, msg);
      return;
    }

  switch (msg->type)
    {
    case SP_MSG_QUEUED:
      if ((info = g_hash_table_lookup (self->runs, msg->u.queued.id)) != NULL)
        info->accepted = TRUE;
      _sp_runner_client_emit (self, SIGNAL_QUEUED, msg->u.queued.id, msg->u.queued.position);
      break;
    case SP_MSG_STARTED:
      handle_started (self, &msg->u.started);
      break;
    case SP_MSG_OUTPUT:
      {
        SpOutputKind kind = msg->u.output.stream == SP_STREAM_STDERR ? SP_OUTPUT_STDERR
                                                                     : SP_OUTPUT_STDOUT;
        info = g_hash_table_lookup (self->runs, msg->u.output.id);
        if (info != NULL && info->execution != NULL)
          _sp_execution_append_output (info->execution, kind, msg->u.output.data,
                                       msg->u.output.t_ms);
        _sp_runner_client_emit (self, SIGNAL_OUTPUT, msg->u.output.id, kind, msg->u.output.data,
                                (gint64) msg->u.output.t_ms);
      }
      break;
    case SP_MSG_DISPLAY:
      handle_display (self, &msg->u.display);
      break;
    case SP_MSG_OUTPUT_OMITTED:
      handle_omitted (self, &msg->u.omitted);
      break;
    case SP_MSG_EXITED:
      handle_exited (self, &msg->u.exited);
      break;
    case SP_MSG_RELEASED:
      g_hash_table_remove (self->runs, msg->u.ref.id);
      _sp_runner_client_emit (self, SIGNAL_RELEASED, msg->u.ref.id);
      break;
    case SP_MSG_ERROR:
      handle_error (self, &msg->u.error);
      break;
    case SP_MSG_INPUT_WAIT:
      if (g_hash_table_contains (self->runs, msg->u.input_wait.id))
        _sp_runner_client_emit (self, SIGNAL_INPUT_WAIT, msg->u.input_wait.id,
                                (gboolean) msg->u.input_wait.waiting);
      break;
    case SP_MSG_PHASE:
      if (g_hash_table_contains (self->runs, msg->u.phase.id))
        _sp_runner_client_emit (self, SIGNAL_PHASE, msg->u.phase.id,
                                (gboolean) (msg->u.phase.phase == SP_PHASE_COMPILE),
                                (gint64) msg->u.phase.timeout_ms);
      break;
    case SP_MSG_SESSION_ENDED:
      /* The run that ended with its session says so in its result; an
       * idle session's end needs no answer. */
      break;
    case SP_MSG_READY:
    case SP_MSG_INVALID:
    case SP_MSG_HELLO:
    case SP_MSG_RUN:
    case SP_MSG_CANCEL:
    case SP_MSG_STDIN:
    case SP_MSG_LAST:
    default:
      /* sp_message_decode (SP_DIR_EVENT) lets only events through. */
      g_return_if_reached ();
    }
}
