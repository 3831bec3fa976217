/* sp-runner-supervisor.c: the app's sandpad-runner, kept alive. */
#define G_LOG_DOMAIN "sp-runner-supervisor"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sp-runner-supervisor-private.h"

G_DEFINE_ENUM_TYPE (SpRunnerState, sp_runner_state,
                    G_DEFINE_ENUM_VALUE (SP_RUNNER_STATE_STOPPED, "stopped"),
                    G_DEFINE_ENUM_VALUE (SP_RUNNER_STATE_STARTING, "starting"),
                    G_DEFINE_ENUM_VALUE (SP_RUNNER_STATE_READY, "ready"),
                    G_DEFINE_ENUM_VALUE (SP_RUNNER_STATE_RESTARTING, "restarting"),
                    G_DEFINE_ENUM_VALUE (SP_RUNNER_STATE_FAILED, "failed"))

struct _SpRunnerSupervisor
{
  GObject parent_instance;

  char *runner_path;
  GStrv runner_args;
  guint max_restarts;
  guint restart_window_ms;
  guint restart_delay_ms;
  guint handshake_timeout_ms;

  SpRunnerState state;
  SpRunnerClient *client;
  guint generation; /* clients started: makes run ids unique across them */
  guint restart_id;
  GArray *restarts; /* clock times of the restarts within the window */
  SpSupervisorClock clock;
  gpointer clock_data;

  /* What the last ready said, kept while a restart is under way. */
  char *sandbox_mode;
  GStrv sandbox_layers;
  GStrv languages;
  char *last_error;
};

G_DEFINE_FINAL_TYPE (SpRunnerSupervisor, sp_runner_supervisor, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_STATE,
  N_PROPS
};

enum
{
  QUEUED,
  STARTED,
  OUTPUT,
  DISPLAY,
  EXITED,
  RELEASED,
  ERROR,
  CLOSED,
  INPUT_WAIT,
  PHASE,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void spawn_client (SpRunnerSupervisor *self);

static void
set_state (SpRunnerSupervisor *self, SpRunnerState state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

static void
drop_client (SpRunnerSupervisor *self)
{
  if (self->client == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->client, self);
  sp_runner_client_stop (self->client);
  g_clear_object (&self->client);
}

/* ---- forwarding ---- */

static void
on_queued (SpRunnerClient *client, const char *id, gint64 position, SpRunnerSupervisor *self)
{
  g_signal_emit (self, signals[QUEUED], 0, id, position);
}

static void
on_started (SpRunnerClient *client, const char *id, SpRunnerSupervisor *self)
{
  g_signal_emit (self, signals[STARTED], 0, id);
}

static void
on_output (SpRunnerClient *client, const char *id, SpOutputKind kind, const char *text, gint64 t_ms,
           SpRunnerSupervisor *self)
{
  g_signal_emit (self, signals[OUTPUT], 0, id, kind, text, t_ms);
}

static void
on_input_wait (SpRunnerClient *client, const char *id, gboolean waiting, SpRunnerSupervisor *self)
{
  g_signal_emit (self, signals[INPUT_WAIT], 0, id, waiting);
}

static void
on_phase (SpRunnerClient *client, const char *id, gboolean compiling, gint64 timeout_ms,
          SpRunnerSupervisor *self)
{
  g_signal_emit (self, signals[PHASE], 0, id, compiling, timeout_ms);
}

static void
on_display (SpRunnerClient *client, const char *id, const char *text, GBytes *png, guint scale,
            SpDataTable *table, gint64 t_ms, SpRunnerSupervisor *self)
{
  g_signal_emit (self, signals[DISPLAY], 0, id, text, png, scale, table, t_ms);
}

static void
on_exited (SpRunnerClient *client, const char *id, SpRunResult *result, SpRunnerSupervisor *self)
{
  g_signal_emit (self, signals[EXITED], 0, id, result);
}

static void
on_released (SpRunnerClient *client, const char *id, SpRunnerSupervisor *self)
{
  g_signal_emit (self, signals[RELEASED], 0, id);
}

static void
on_error (SpRunnerClient *client, const char *id, const char *code, const char *message,
          SpRunnerSupervisor *self)
{
  g_signal_emit (self, signals[ERROR], 0, id, code, message);
}

/* ---- lifecycle ---- */

static void
on_ready_changed (SpRunnerClient *client, GParamSpec *pspec, SpRunnerSupervisor *self)
{
  if (!sp_runner_client_is_ready (client))
    return; /* closing: "closed" or stop() says what happens next */
  g_free (self->sandbox_mode);
  self->sandbox_mode = g_strdup (sp_runner_client_get_sandbox_mode (client));
  g_strfreev (self->sandbox_layers);
  self->sandbox_layers = g_strdupv ((char **) sp_runner_client_get_sandbox_layers (client));
  g_strfreev (self->languages);
  self->languages = g_strdupv ((char **) sp_runner_client_get_languages (client));
  set_state (self, SP_RUNNER_STATE_READY);
}

static gboolean
restart_cb (gpointer user_data)
{
  SpRunnerSupervisor *self = user_data;

  self->restart_id = 0;
  spawn_client (self);
  return G_SOURCE_REMOVE;
}

/* Restarts, unless that happened max_restarts times within the window. */
static void
schedule_restart (SpRunnerSupervisor *self)
{
  gint64 now = self->clock (self->clock_data);
  gint64 window = (gint64) self->restart_window_ms * 1000;

  for (guint i = self->restarts->len; i > 0; i--)
    if (now - g_array_index (self->restarts, gint64, i - 1) >= window)
      g_array_remove_index (self->restarts, i - 1);
  if (self->restarts->len >= self->max_restarts)
    {
      g_debug ("giving up after %u restarts in %u ms", self->restarts->len,
               self->restart_window_ms);
      set_state (self, SP_RUNNER_STATE_FAILED);
      return;
    }
  g_array_append_val (self->restarts, now);
  set_state (self, SP_RUNNER_STATE_RESTARTING);
  self->restart_id = g_timeout_add (self->restart_delay_ms, restart_cb, self);
}

/* The runner crashed, stalled, closed or sent garbage: never the app's
 * end. The client already failed its executions. */
static void
on_closed (SpRunnerClient *client, const GError *error, SpRunnerSupervisor *self)
{
  g_autoptr (SpRunnerSupervisor) hold = g_object_ref (self);

  g_free (self->last_error);
  self->last_error = g_strdup (error->message);
  drop_client (self);
  /* The state says what happens next by the time "closed" is emitted. */
  schedule_restart (self);
  g_signal_emit (self, signals[CLOSED], 0, error);
}

static void
spawn_client (SpRunnerSupervisor *self)
{
  g_autofree char *prefix = NULL;

  drop_client (self);
  self->generation++;
  self->client = sp_runner_client_new (self->runner_path);
  sp_runner_client_set_runner_args (self->client, (const char *const *) self->runner_args);
  sp_runner_client_set_handshake_timeout (self->client, self->handshake_timeout_ms);
  /* Ids stay unique across runners, so an id the app still holds from a
   * lost runner never names a run of the next one. */
  if (self->generation > 1)
    {
      prefix = g_strdup_printf ("%u-", self->generation);
      sp_runner_client_set_id_prefix (self->client, prefix);
    }
  g_signal_connect_object (self->client, "queued", G_CALLBACK (on_queued), self, 0);
  g_signal_connect_object (self->client, "started", G_CALLBACK (on_started), self, 0);
  g_signal_connect_object (self->client, "output", G_CALLBACK (on_output), self, 0);
  g_signal_connect_object (self->client, "display", G_CALLBACK (on_display), self, 0);
  g_signal_connect_object (self->client, "exited", G_CALLBACK (on_exited), self, 0);
  g_signal_connect_object (self->client, "input-wait", G_CALLBACK (on_input_wait), self, 0);
  g_signal_connect_object (self->client, "phase", G_CALLBACK (on_phase), self, 0);
  g_signal_connect_object (self->client, "released", G_CALLBACK (on_released), self, 0);
  g_signal_connect_object (self->client, "error", G_CALLBACK (on_error), self, 0);
  g_signal_connect_object (self->client, "closed", G_CALLBACK (on_closed), self, 0);
  g_signal_connect_object (self->client, "notify::ready", G_CALLBACK (on_ready_changed), self, 0);
  set_state (self, SP_RUNNER_STATE_STARTING);
  /* Success shows as notify::ready, failure as "closed": no callback, so
   * no pending call keeps the supervisor alive. */
  sp_runner_client_start_async (self->client, NULL, NULL, NULL);
}

/* ---- GObject ---- */

static void
sp_runner_supervisor_dispose (GObject *object)
{
  SpRunnerSupervisor *self = SP_RUNNER_SUPERVISOR (object);

  g_clear_handle_id (&self->restart_id, g_source_remove);
  self->state = SP_RUNNER_STATE_STOPPED;
  drop_client (self);
  G_OBJECT_CLASS (sp_runner_supervisor_parent_class)->dispose (object);
}

static void
sp_runner_supervisor_finalize (GObject *object)
{
  SpRunnerSupervisor *self = SP_RUNNER_SUPERVISOR (object);

  g_free (self->runner_path);
  g_strfreev (self->runner_args);
  g_array_unref (self->restarts);
  g_free (self->sandbox_mode);
  g_strfreev (self->sandbox_layers);
  g_strfreev (self->languages);
  g_free (self->last_error);
  G_OBJECT_CLASS (sp_runner_supervisor_parent_class)->finalize (object);
}

static void
sp_runner_supervisor_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpRunnerSupervisor *self = SP_RUNNER_SUPERVISOR (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_runner_supervisor_class_init (SpRunnerSupervisorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GType type = G_TYPE_FROM_CLASS (klass);

  object_class->dispose = sp_runner_supervisor_dispose;
  object_class->finalize = sp_runner_supervisor_finalize;
  object_class->get_property = sp_runner_supervisor_get_property;

  properties[PROP_STATE]
    = g_param_spec_enum ("state", NULL, NULL, SP_TYPE_RUNNER_STATE, SP_RUNNER_STATE_STOPPED,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[QUEUED] = g_signal_new ("queued", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_INT64);
  signals[STARTED] = g_signal_new ("started", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[OUTPUT] = g_signal_new ("output", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 4, G_TYPE_STRING, SP_TYPE_OUTPUT_KIND, G_TYPE_STRING,
                                  G_TYPE_INT64);
  /* The client's "display": a rich result with an image or a table. */
  signals[DISPLAY] = g_signal_new ("display", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 6, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_BYTES,
                                   G_TYPE_UINT, SP_TYPE_DATA_TABLE, G_TYPE_INT64);
  signals[EXITED] = g_signal_new ("exited", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 2, G_TYPE_STRING, SP_TYPE_RUN_RESULT);
  signals[RELEASED] = g_signal_new ("released", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[ERROR] = g_signal_new ("error", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_STRING);
  signals[CLOSED] = g_signal_new ("closed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 1, G_TYPE_ERROR);
  signals[INPUT_WAIT] = g_signal_new ("input-wait", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                      G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_BOOLEAN);
  signals[PHASE] = g_signal_new ("phase", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                 3, G_TYPE_STRING, G_TYPE_BOOLEAN, G_TYPE_INT64);
}

static gint64
monotonic_clock (gpointer user_data)
{
  return g_get_monotonic_time ();
}

static void
sp_runner_supervisor_init (SpRunnerSupervisor *self)
{
  self->max_restarts = 3;
  self->restart_window_ms = 10000;
  self->restart_delay_ms = 200;
  self->handshake_timeout_ms = SP_RUNNER_CLIENT_DEFAULT_HANDSHAKE_TIMEOUT_MS;
  self->restarts = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->clock = monotonic_clock;
}

SpRunnerSupervisor *
sp_runner_supervisor_new (const char *runner_path)
{
  SpRunnerSupervisor *self;

  g_return_val_if_fail (runner_path != NULL, NULL);

  self = g_object_new (SP_TYPE_RUNNER_SUPERVISOR, NULL);
  self->runner_path = g_strdup (runner_path);
  return self;
}

void
sp_runner_supervisor_set_runner_args (SpRunnerSupervisor *self, const char *const *args)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  g_strfreev (self->runner_args);
  self->runner_args = g_strdupv ((char **) args);
}

void
sp_runner_supervisor_set_restart_limit (SpRunnerSupervisor *self, guint max_restarts,
                                        guint window_ms)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  self->max_restarts = max_restarts;
  self->restart_window_ms = window_ms;
}

void
sp_runner_supervisor_set_restart_delay (SpRunnerSupervisor *self, guint delay_ms)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  self->restart_delay_ms = delay_ms;
}

void
_sp_runner_supervisor_set_clock (SpRunnerSupervisor *self, SpSupervisorClock clock,
                                 gpointer user_data)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  self->clock = clock != NULL ? clock : monotonic_clock;
  self->clock_data = clock != NULL ? user_data : NULL;
}

void
sp_runner_supervisor_set_handshake_timeout (SpRunnerSupervisor *self, guint timeout_ms)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  g_return_if_fail (timeout_ms > 0);
  self->handshake_timeout_ms = timeout_ms;
}

void
sp_runner_supervisor_start (SpRunnerSupervisor *self)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));

  g_clear_handle_id (&self->restart_id, g_source_remove);
  g_array_set_size (self->restarts, 0);
  spawn_client (self);
}

void
sp_runner_supervisor_stop (SpRunnerSupervisor *self)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));

  g_clear_handle_id (&self->restart_id, g_source_remove);
  drop_client (self);
  set_state (self, SP_RUNNER_STATE_STOPPED);
}

SpRunnerState
sp_runner_supervisor_get_state (SpRunnerSupervisor *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (self), SP_RUNNER_STATE_STOPPED);
  return self->state;
}

gboolean
sp_runner_supervisor_is_ready (SpRunnerSupervisor *self)
{
  return sp_runner_supervisor_get_state (self) == SP_RUNNER_STATE_READY;
}

const char *
sp_runner_supervisor_get_sandbox_mode (SpRunnerSupervisor *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (self), NULL);
  return self->sandbox_mode;
}

const char *const *
sp_runner_supervisor_get_sandbox_layers (SpRunnerSupervisor *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (self), NULL);
  return (const char *const *) self->sandbox_layers;
}

gboolean
sp_runner_supervisor_get_run_sandbox (SpRunnerSupervisor *self, const char *run_id,
                                      const char **mode, const char *const **layers)
{
  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (self), FALSE);
  if (self->client == NULL)
    return FALSE;
  return sp_runner_client_get_run_sandbox (self->client, run_id, mode, layers);
}

const char *const *
sp_runner_supervisor_get_languages (SpRunnerSupervisor *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (self), NULL);
  return (const char *const *) self->languages;
}

const char *
sp_runner_supervisor_get_last_error (SpRunnerSupervisor *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (self), NULL);
  return self->last_error;
}

SpRunnerClient *
sp_runner_supervisor_get_client (SpRunnerSupervisor *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (self), NULL);
  return self->client;
}

static gboolean
check_client (SpRunnerSupervisor *self, GError **error)
{
  if (self->client != NULL)
    return TRUE;
  g_set_error_literal (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_NOT_READY,
                       _ ("The sandboxed runner is not ready"));
  return FALSE;
}

char *
sp_runner_supervisor_run (SpRunnerSupervisor *self, SpRunRequest *request, GError **error)
{
  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (self), NULL);
  g_return_val_if_fail (request != NULL, NULL);

  if (!check_client (self, error))
    return NULL;
  return sp_runner_client_run (self->client, request, error);
}

SpExecution *
sp_runner_supervisor_submit (SpRunnerSupervisor *self, SpRunRequest *request, GError **error)
{
  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (self), NULL);
  g_return_val_if_fail (request != NULL, NULL);

  if (!check_client (self, error))
    return NULL;
  return sp_runner_client_submit (self->client, request, error);
}

void
sp_runner_supervisor_cancel (SpRunnerSupervisor *self, const char *run_id)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  if (self->client != NULL)
    sp_runner_client_cancel (self->client, run_id, NULL);
}

void
sp_runner_supervisor_release (SpRunnerSupervisor *self, const char *run_id)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  if (self->client != NULL)
    sp_runner_client_release (self->client, run_id, NULL);
}

void
sp_runner_supervisor_send_stdin (SpRunnerSupervisor *self, const char *run_id, const char *text,
                                 gboolean eof)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  if (self->client != NULL)
    sp_runner_client_send_stdin (self->client, run_id, text, eof, NULL);
}
