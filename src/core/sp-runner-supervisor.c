/* sp-runner-supervisor.c: the app's sandpad-runner, kept alive. */
#define G_LOG_DOMAIN "sp-runner-supervisor"

#include "config.h"

#include <gio/gunixsocketaddress.h>
#include <glib/gi18n-lib.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sp-frame.h"
#include "sp-runner-supervisor.h"

G_DEFINE_ENUM_TYPE (SpRunnerState, sp_runner_state,
                    G_DEFINE_ENUM_VALUE (SP_RUNNER_STATE_STOPPED, "stopped"),
                    G_DEFINE_ENUM_VALUE (SP_RUNNER_STATE_STARTING, "starting"),
                    G_DEFINE_ENUM_VALUE (SP_RUNNER_STATE_READY, "ready"),
                    G_DEFINE_ENUM_VALUE (SP_RUNNER_STATE_RESTARTING, "restarting"),
                    G_DEFINE_ENUM_VALUE (SP_RUNNER_STATE_FAILED, "failed"))

typedef struct
{
  gint64 timeout_ms;
  gint64 memory_mib;
  char *cwd; /* from "started": where the run's files are */
} RunLimits;

static void
run_limits_free (gpointer data)
{
  RunLimits *limits = data;

  g_free (limits->cwd);
  g_free (limits);
}

struct _SpRunnerSupervisor
{
  GObject parent_instance;

  char *runner_path;
  GStrv runner_args;
  guint max_restarts;
  guint restart_window_ms;
  guint handshake_timeout_ms;

  SpRunnerState state;
  /* One generation per runner process: callbacks of a lost runner carry
   * their generation and are ignored once a new one started. */
  guint generation;
  GSubprocess *process;
  GIOStream *stream;
  GCancellable *cancellable;
  SpFrameReader *reader;
  GQueue writes; /* GBytes, written in order, one at a time */
  gboolean writing;
  guint handshake_id;
  guint restart_id;
  GArray *restarts; /* monotonic times of recent restarts */

  char *sandbox_mode;
  GStrv sandbox_layers;
  GStrv languages;
  char *last_error;
  GHashTable *runs; /* id → RunLimits, for describing results */
  guint64 next_run;
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
  STARTED,
  OUTPUT,
  EXITED,
  ERROR,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void spawn (SpRunnerSupervisor *self);
static void read_more (SpRunnerSupervisor *self);

static void
set_state (SpRunnerSupervisor *self, SpRunnerState state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

/* Drops the current runner process and everything attached to it. */
static void
teardown (SpRunnerSupervisor *self)
{
  self->generation++;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->handshake_id, g_source_remove);
  if (self->stream != NULL)
    g_io_stream_close (self->stream, NULL, NULL);
  g_clear_object (&self->stream);
  if (self->process != NULL)
    g_subprocess_force_exit (self->process);
  g_clear_object (&self->process);
  g_clear_pointer (&self->reader, sp_frame_reader_free);
  g_queue_clear_full (&self->writes, (GDestroyNotify) g_bytes_unref);
  self->writing = FALSE;
  g_hash_table_remove_all (self->runs);
}

static gboolean
restart_cb (gpointer user_data)
{
  SpRunnerSupervisor *self = user_data;

  self->restart_id = 0;
  spawn (self);
  return G_SOURCE_REMOVE;
}

/* The runner crashed, stalled, closed or sent garbage: never the app's end.
 * Restart it unless it keeps failing. */
static void
runner_lost (SpRunnerSupervisor *self, const char *why)
{
  gint64 now = g_get_monotonic_time ();
  guint recent = 0;

  if (self->state == SP_RUNNER_STATE_STOPPED || self->state == SP_RUNNER_STATE_FAILED)
    return;
  g_debug ("runner lost: %s", why);
  g_free (self->last_error);
  self->last_error = g_strdup (why);
  teardown (self);

  for (guint i = 0; i < self->restarts->len; i++)
    if (now - g_array_index (self->restarts, gint64, i) < (gint64) self->restart_window_ms * 1000)
      recent++;
  if (recent >= self->max_restarts)
    {
      set_state (self, SP_RUNNER_STATE_FAILED);
      return;
    }
  g_array_append_val (self->restarts, now);
  set_state (self, SP_RUNNER_STATE_RESTARTING);
  self->restart_id = g_timeout_add (200, restart_cb, self);
}

/* ---- writing ---- */

static void write_next (SpRunnerSupervisor *self);

static void
write_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpRunnerSupervisor) self = user_data;
  g_autoptr (GError) error = NULL;

  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        runner_lost (self, error->message);
      return;
    }
  self->writing = FALSE;
  g_bytes_unref (g_queue_pop_head (&self->writes));
  write_next (self);
}

static void
write_next (SpRunnerSupervisor *self)
{
  GBytes *bytes;

  if (self->writing || self->stream == NULL || (bytes = g_queue_peek_head (&self->writes)) == NULL)
    return;
  self->writing = TRUE;
  g_output_stream_write_all_async (g_io_stream_get_output_stream (self->stream),
                                   g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                   G_PRIORITY_DEFAULT, self->cancellable, write_done,
                                   g_object_ref (self));
}

static void
send_message (SpRunnerSupervisor *self, const SpMessage *msg)
{
  gsize len = 0;
  char *line = sp_message_encode (msg, &len);

  g_return_if_fail (line != NULL);
  g_queue_push_tail (&self->writes, g_bytes_new_with_free_func (line, len, free, line));
  write_next (self);
}

/* ---- reading ---- */

static void
handle_ready (SpRunnerSupervisor *self, const SpReady *ready)
{
  g_autoptr (GStrvBuilder) langs = g_strv_builder_new ();

  g_clear_handle_id (&self->handshake_id, g_source_remove);
  g_free (self->sandbox_mode);
  self->sandbox_mode = g_strdup (ready->sandbox.mode);
  g_strfreev (self->sandbox_layers);
  self->sandbox_layers = g_strdupv (ready->sandbox.layers);
  for (gsize i = 0; i < ready->n_languages; i++)
    g_strv_builder_add (langs, ready->languages[i].name);
  g_strfreev (self->languages);
  self->languages = g_strv_builder_end (langs);
  set_state (self, SP_RUNNER_STATE_READY);
}

static void
handle_event (SpRunnerSupervisor *self, const SpMessage *msg)
{
  switch (msg->type)
    {
    case SP_MSG_READY:
      handle_ready (self, &msg->u.ready);
      break;
    case SP_MSG_STARTED:
      {
        RunLimits *limits = g_hash_table_lookup (self->runs, msg->u.started.id);
        if (limits != NULL)
          {
            g_free (limits->cwd);
            limits->cwd = g_strdup (msg->u.started.cwd);
          }
        g_signal_emit (self, signals[STARTED], 0, msg->u.started.id);
      }
      break;
    case SP_MSG_OUTPUT:
      g_signal_emit (self, signals[OUTPUT], 0, msg->u.output.id,
                     msg->u.output.stream == SP_STREAM_STDERR ? SP_OUTPUT_STDERR : SP_OUTPUT_STDOUT,
                     msg->u.output.data);
      break;
    case SP_MSG_EXITED:
      {
        RunLimits *limits = g_hash_table_lookup (self->runs, msg->u.exited.id);
        g_autoptr (SpRunResult) result = _sp_run_result_new (
          &msg->u.exited, limits ? limits->timeout_ms : 0, limits ? limits->memory_mib : 0,
          limits ? limits->cwd : NULL);
        g_signal_emit (self, signals[EXITED], 0, msg->u.exited.id, result);
      }
      break;
    case SP_MSG_RELEASED:
      g_hash_table_remove (self->runs, msg->u.ref.id);
      break;
    case SP_MSG_ERROR:
      g_signal_emit (self, signals[ERROR], 0, msg->u.error.id,
                     sp_proto_error_code_to_string (msg->u.error.code), msg->u.error.message);
      break;
    case SP_MSG_QUEUED:
    default:
      break;
    }
}

static void
read_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpRunnerSupervisor) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result,
                                                               &error);
  guint generation = self->generation;

  if (bytes == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        runner_lost (self, error->message);
      return;
    }
  if (g_bytes_get_size (bytes) == 0)
    {
      runner_lost (self, _("The runner closed its connection"));
      return;
    }

  sp_frame_reader_feed (self->reader, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  for (;;)
    {
      const char *frame;
      size_t len;
      SpProtoError perr = { 0 };
      SpMessage msg;
      int rc = sp_frame_reader_next (self->reader, &frame, &len, &perr);

      if (rc == 0)
        break;
      if (rc < 0 || sp_message_decode (frame, len, SP_DIR_EVENT, &msg, &perr, NULL) != 0)
        {
          /* A runner that sends what we cannot read cannot be trusted to
           * be in any known state: replace it. */
          g_autofree char *why = g_strdup_printf (_("The runner sent an invalid message: %s"),
                                                  perr.message);
          runner_lost (self, why);
          return;
        }
      handle_event (self, &msg);
      sp_message_clear (&msg);
      /* A signal handler may have stopped or restarted us. */
      if (self->generation != generation)
        return;
    }
  read_more (self);
}

static void
read_more (SpRunnerSupervisor *self)
{
  g_input_stream_read_bytes_async (g_io_stream_get_input_stream (self->stream), 65536,
                                   G_PRIORITY_DEFAULT, self->cancellable, read_done,
                                   g_object_ref (self));
}

static gboolean
handshake_timeout_cb (gpointer user_data)
{
  SpRunnerSupervisor *self = user_data;

  self->handshake_id = 0;
  runner_lost (self, _("The runner did not answer in time"));
  return G_SOURCE_REMOVE;
}

typedef struct
{
  SpRunnerSupervisor *self; /* weak: the wait outlives nothing important */
  guint generation;
} WaitData;

static void
process_exited (GObject *object, GAsyncResult *result, gpointer user_data)
{
  WaitData *data = user_data;

  if (data->self != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (data->self), (gpointer *) &data->self);
      if (data->generation == data->self->generation)
        runner_lost (data->self, _("The runner exited unexpectedly"));
    }
  g_free (data);
}

static void
child_setup (gpointer user_data)
{
  /* Its own session, and it dies with us: a runner must never outlive the
   * app it serves (it would then also kill its runs, see the runner). */
  setsid ();
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static void
spawn (SpRunnerSupervisor *self)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GSocket) socket = NULL;
  g_autoptr (GError) error = NULL;
  int fds[2];
  SpMessage hello = { .type = SP_MSG_HELLO };
  WaitData *wait;

  teardown (self);
  set_state (self, SP_RUNNER_STATE_STARTING);
  self->cancellable = g_cancellable_new ();
  self->reader = sp_frame_reader_new (SP_PROTO_MAX_FRAME);

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    {
      runner_lost (self, g_strerror (errno));
      return;
    }
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);
  g_subprocess_launcher_take_fd (launcher, fds[1], 3);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
  g_ptr_array_add (argv, self->runner_path);
  g_ptr_array_add (argv, (char *) "--fd");
  g_ptr_array_add (argv, (char *) "3");
  for (guint i = 0; self->runner_args != NULL && self->runner_args[i] != NULL; i++)
    g_ptr_array_add (argv, self->runner_args[i]);
  g_ptr_array_add (argv, NULL);
  self->process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata,
                                                &error);
  if (self->process == NULL)
    {
      close (fds[0]);
      runner_lost (self, error->message);
      return;
    }

  socket = g_socket_new_from_fd (fds[0], &error);
  if (socket == NULL)
    {
      close (fds[0]);
      runner_lost (self, error->message);
      return;
    }
  self->stream = G_IO_STREAM (g_socket_connection_factory_create_connection (socket));

  wait = g_new0 (WaitData, 1);
  wait->self = self;
  wait->generation = self->generation;
  g_object_add_weak_pointer (G_OBJECT (self), (gpointer *) &wait->self);
  g_subprocess_wait_async (self->process, NULL, process_exited, wait);

  hello.u.hello.client = (char *) "sandpad " PACKAGE_VERSION;
  send_message (self, &hello);
  self->handshake_id = g_timeout_add (self->handshake_timeout_ms, handshake_timeout_cb, self);
  read_more (self);
}

/* ---- GObject ---- */

static void
sp_runner_supervisor_dispose (GObject *object)
{
  SpRunnerSupervisor *self = SP_RUNNER_SUPERVISOR (object);

  g_clear_handle_id (&self->restart_id, g_source_remove);
  self->state = SP_RUNNER_STATE_STOPPED;
  teardown (self);
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
  g_hash_table_unref (self->runs);
  G_OBJECT_CLASS (sp_runner_supervisor_parent_class)->finalize (object);
}

static void
sp_runner_supervisor_get_property (GObject *object, guint prop_id, GValue *value,
                                   GParamSpec *pspec)
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

  object_class->dispose = sp_runner_supervisor_dispose;
  object_class->finalize = sp_runner_supervisor_finalize;
  object_class->get_property = sp_runner_supervisor_get_property;

  properties[PROP_STATE]
    = g_param_spec_enum ("state", NULL, NULL, SP_TYPE_RUNNER_STATE, SP_RUNNER_STATE_STOPPED,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[STARTED] = g_signal_new ("started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                   NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  signals[OUTPUT] = g_signal_new ("output", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                  NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_INT,
                                  G_TYPE_STRING);
  signals[EXITED] = g_signal_new ("exited", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                  NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, SP_TYPE_RUN_RESULT);
  signals[ERROR] = g_signal_new ("error", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                 NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING,
                                 G_TYPE_STRING);
}

static void
sp_runner_supervisor_init (SpRunnerSupervisor *self)
{
  self->max_restarts = 3;
  self->restart_window_ms = 10000;
  self->handshake_timeout_ms = 5000;
  self->restarts = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, run_limits_free);
  g_queue_init (&self->writes);
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
sp_runner_supervisor_set_handshake_timeout (SpRunnerSupervisor *self, guint timeout_ms)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  self->handshake_timeout_ms = timeout_ms;
}

void
sp_runner_supervisor_start (SpRunnerSupervisor *self)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));

  g_array_set_size (self->restarts, 0);
  spawn (self);
}

void
sp_runner_supervisor_stop (SpRunnerSupervisor *self)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));

  g_clear_handle_id (&self->restart_id, g_source_remove);
  set_state (self, SP_RUNNER_STATE_STOPPED);
  teardown (self);
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

char *
sp_runner_supervisor_run (SpRunnerSupervisor *self, SpRunRequest *request, GError **error)
{
  SpMessage msg;
  RunLimits *limits;
  char *id;

  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (self), NULL);
  g_return_val_if_fail (request != NULL, NULL);

  if (self->state != SP_RUNNER_STATE_READY)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                           _("The sandboxed runner is not ready"));
      return NULL;
    }
  id = g_strdup_printf ("r%" G_GUINT64_FORMAT, ++self->next_run);
  _sp_run_request_to_message (request, id, &msg);
  limits = g_new0 (RunLimits, 1);
  /* Resolved defaults come back in "started"; these are for the summary. */
  limits->timeout_ms = msg.u.run.timeout_ms ? msg.u.run.timeout_ms : 30000;
  limits->memory_mib = msg.u.run.memory_mib ? msg.u.run.memory_mib : 512;
  g_hash_table_insert (self->runs, g_strdup (id), limits);
  send_message (self, &msg);
  sp_message_clear (&msg);
  return id;
}

static void
send_ref (SpRunnerSupervisor *self, SpMessageType type, const char *run_id)
{
  SpMessage msg = { .type = type };

  if (self->state != SP_RUNNER_STATE_READY)
    return;
  msg.u.ref.id = (char *) run_id;
  send_message (self, &msg);
}

void
sp_runner_supervisor_cancel (SpRunnerSupervisor *self, const char *run_id)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  send_ref (self, SP_MSG_CANCEL, run_id);
}

void
sp_runner_supervisor_release (SpRunnerSupervisor *self, const char *run_id)
{
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  send_ref (self, SP_MSG_RELEASE, run_id);
}

void
sp_runner_supervisor_send_stdin (SpRunnerSupervisor *self, const char *run_id, const char *text,
                                 gboolean eof)
{
  SpMessage msg = { .type = SP_MSG_STDIN };

  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (self));
  if (self->state != SP_RUNNER_STATE_READY)
    return;
  msg.u.stdin_.id = (char *) run_id;
  msg.u.stdin_.data = (char *) text;
  msg.u.stdin_.eof = eof;
  send_message (self, &msg);
}
