/* sp-runner-client.c: one sandpad-runner process: spawn, handshake, close.
 *
 * Its socket is an SpRunnerChannel (sp-runner-channel.c), whose handlers
 * are here; requests, the events about runs and the signals are in
 * sp-runner-client-runs.c. */
#define G_LOG_DOMAIN "sp-runner-client"

#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sp-data-table.h"
#include "sp-runner-client-private.h"
#include "sp-runner-scope.h"

/* How long a stopped runner gets to kill its runs, remove its directory
 * and exit on its own before it is killed. */
#define STOP_GRACE_SECONDS 3

G_DEFINE_FINAL_TYPE (SpRunnerClient, sp_runner_client, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_READY,
  PROP_HANDSHAKE_TIMEOUT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
kill_straggler (gpointer data)
{
  /* A no-op when it already exited: GSubprocess forgets a reaped pid. */
  g_subprocess_force_exit (G_SUBPROCESS (data));
  return G_SOURCE_REMOVE;
}

static void
disconnect_start_cancellable (SpRunnerClient *self)
{
  /* Not g_cancellable_disconnect(): we may be inside "cancelled", where it
   * would deadlock. */
  if (self->start_cancelled_id != 0)
    g_signal_handler_disconnect (self->start_cancellable, self->start_cancelled_id);
  self->start_cancelled_id = 0;
  g_clear_object (&self->start_cancellable);
}

/* Ends this client for good. error says why; NULL when it was asked to
 * stop. A runner that misbehaved is killed at once; one whose socket we
 * only closed gets a grace period to clean up after its runs. */
static void
close_client (SpRunnerClient *self, const GError *error)
{
  g_autoptr (SpRunnerClient) hold = NULL;
  g_autoptr (GError) stopped = NULL;
  g_autoptr (GTask) task = NULL;
  gboolean was_ready = self->phase == CLIENT_READY;

  if (self->phase == CLIENT_CLOSED)
    return;
  /* The handlers called below may drop the last reference. */
  hold = g_object_ref (self);
  self->phase = CLIENT_CLOSED;

  /* Pending reads, writes and the wait finish cancelled, later. */
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->handshake_id, g_source_remove);
  g_clear_handle_id (&self->eof_id, g_source_remove);
  if (self->channel != NULL)
    sp_runner_channel_close (self->channel);
  g_clear_object (&self->channel);
  if (self->process != NULL)
    {
      if (error != NULL)
        g_subprocess_force_exit (self->process);
      else
        g_timeout_add_seconds_full (G_PRIORITY_DEFAULT, STOP_GRACE_SECONDS, kill_straggler,
                                    g_object_ref (self->process), g_object_unref);
      g_clear_object (&self->process);
    }
  disconnect_start_cancellable (self);

  if (error == NULL)
    error = stopped = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                           _ ("The runner was stopped"));
  else
    g_debug ("runner closed: %s", error->message);
  task = g_steal_pointer (&self->start_task);
  _sp_runner_client_fail_runs (self, error);
  if (was_ready)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READY]);
  if (task != NULL)
    g_task_return_error (task, g_error_copy (error));
  if (stopped == NULL)
    _sp_runner_client_emit (self, SIGNAL_CLOSED, error);
}

static void
close_with (SpRunnerClient *self, SpRunnerError code, const char *message)
{
  g_autoptr (GError) error = g_error_new_literal (SP_RUNNER_ERROR, code, message);

  close_client (self, error);
}

/* ---- the handshake ---- */

static void
handle_ready (SpRunnerClient *self, SpMessage *msg)
{
  g_autoptr (GStrvBuilder) names = NULL;
  g_autoptr (GTask) task = NULL;

  /* ready answers our one hello; a second one changes nothing, so what
   * the accessors returned stays valid. */
  if (self->phase != CLIENT_STARTING)
    return;
  if (msg->u.ready.protocol != SP_PROTO_VERSION)
    {
      g_autofree char *why = g_strdup_printf (_ ("The runner speaks protocol %d, not %d"),
                                              (int) msg->u.ready.protocol, SP_PROTO_VERSION);
      close_with (self, SP_RUNNER_ERROR_BAD_VERSION, why);
      return;
    }
  names = g_strv_builder_new ();
  for (gsize i = 0; i < msg->u.ready.n_languages; i++)
    g_strv_builder_add (names, msg->u.ready.languages[i].name);
  self->languages = g_strv_builder_end (names);
  /* Keep the decoded message: it owns what the accessors return. */
  self->ready = *msg;
  memset (msg, 0, sizeof *msg);

  g_clear_handle_id (&self->handshake_id, g_source_remove);
  disconnect_start_cancellable (self);
  self->phase = CLIENT_READY;
  task = g_steal_pointer (&self->start_task);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READY]);
  if (task == NULL)
    return;
  /* A handler of notify::ready may have stopped us already. */
  if (self->phase == CLIENT_CLOSED)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _ ("The runner was stopped"));
  else
    g_task_return_boolean (task, TRUE);
}

/* ---- the channel ---- */

/* After EOF, how long to wait for the exit status, to say how it ended. */
#define EOF_GRACE_MS 250

static void
on_channel_message (SpMessage *msg, gpointer data)
{
  SpRunnerClient *self = data;

  if (msg->type == SP_MSG_READY)
    handle_ready (self, msg);
  else
    _sp_runner_client_dispatch (self, msg);
}

static gboolean
on_channel_bad_event (const char *id, const SpProtoError *perr, gpointer data)
{
  return _sp_runner_client_fail_run (data, id, perr);
}

static void
on_channel_failed (SpRunnerError code, const char *message, gpointer data)
{
  close_with (data, code, message);
}

static gboolean
eof_timeout_cb (gpointer user_data)
{
  SpRunnerClient *self = user_data;

  self->eof_id = 0;
  close_with (self, SP_RUNNER_ERROR_CLOSED, _ ("The runner closed its connection"));
  return G_SOURCE_REMOVE;
}

static void
on_channel_eof (gpointer data)
{
  SpRunnerClient *self = data;

  /* Usually the runner is exiting: give its status a moment to arrive,
   * it says more than "closed". */
  self->eof_id = g_timeout_add (EOF_GRACE_MS, eof_timeout_cb, self);
}

static const SpRunnerChannelHandlers channel_handlers = {
  .message = on_channel_message,
  .bad_event = on_channel_bad_event,
  .failed = on_channel_failed,
  .eof = on_channel_eof,
};

/* ---- the process ---- */

static void
process_exited (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpRunnerClient) self = user_data;
  GSubprocess *process = G_SUBPROCESS (object);
  g_autofree char *why = NULL;

  if (!g_subprocess_wait_finish (process, result, NULL) || self->phase == CLIENT_CLOSED)
    return;
  if (g_subprocess_get_if_signaled (process))
    why = g_strdup_printf (_ ("The runner was killed by signal %d"),
                           g_subprocess_get_term_sig (process));
  else
    why = g_strdup_printf (_ ("The runner exited unexpectedly with status %d"),
                           g_subprocess_get_exit_status (process));
  close_with (self, SP_RUNNER_ERROR_CLOSED, why);
}

static gboolean
handshake_timeout_cb (gpointer user_data)
{
  SpRunnerClient *self = user_data;
  g_autofree char *why = NULL;

  self->handshake_id = 0;
  why = g_strdup_printf (_ ("The runner did not answer the handshake within %u ms"),
                         self->handshake_timeout_ms);
  close_with (self, SP_RUNNER_ERROR_TIMEOUT, why);
  return G_SOURCE_REMOVE;
}

static void
child_setup (gpointer user_data)
{
  pid_t parent = GPOINTER_TO_INT (user_data);

  /* Between fork and exec: async-signal-safe calls only. Its own session,
   * so a terminal's Ctrl+C meant for the app does not reach the runner
   * and its runs; and it dies with the app, so a runner never outlives
   * the app it serves (it then kills its runs too). */
  setsid ();
  prctl (PR_SET_PDEATHSIG, SIGTERM);
  /* The app died before prctl(): the signal will never come. */
  if (getppid () != parent)
    _exit (1);
}

static void
on_scope (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GError) error = NULL;

  if (!sp_runner_scope_request_finish (result, &error))
    g_debug ("the runner stays in the app's cgroup (no delegated scope): %s", error->message);
}

static gboolean
spawn (SpRunnerClient *self, GError **error)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GSocket) socket = NULL;
  g_autoptr (GError) local_error = NULL;
  int fds[2];

  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    {
      int errsv = errno;
      g_set_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_SPAWN,
                   _ ("Could not create the runner's socket: %s"), g_strerror (errsv));
      return FALSE;
    }
  /* The protocol is on fd 3; anything on stdout would only be noise in
   * the app's (or a TAP test's) output. Diagnostics go to stderr. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  /* The launcher owns the child's end now and closes our copy of it. */
  g_subprocess_launcher_take_fd (launcher, fds[1], 3);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, GINT_TO_POINTER (getpid ()), NULL);
  g_ptr_array_add (argv, self->runner_path);
  g_ptr_array_add (argv, (char *) "--fd");
  g_ptr_array_add (argv, (char *) "3");
  for (guint i = 0; self->runner_args != NULL && self->runner_args[i] != NULL; i++)
    g_ptr_array_add (argv, self->runner_args[i]);
  g_ptr_array_add (argv, NULL);

  self->process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata,
                                                &local_error);
  if (self->process == NULL || (socket = g_socket_new_from_fd (fds[0], &local_error)) == NULL)
    {
      close (fds[0]);
      g_set_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_SPAWN,
                   _ ("Could not start the runner: %s"), local_error->message);
      return FALSE;
    }
  self->channel
    = sp_runner_channel_new (G_IO_STREAM (g_socket_connection_factory_create_connection (socket)),
                             &channel_handlers, self);
  /* Where the user's systemd gives one, the runner moves to a delegated
   * scope of its own and gives each run a cgroup there; meanwhile, and
   * everywhere else, it runs with what it has. Nothing waits for this. */
  const char *id = g_subprocess_get_identifier (self->process);
  if (id != NULL)
    sp_runner_scope_request_async ((GPid) g_ascii_strtoll (id, NULL, 10), NULL, on_scope, NULL);
  return TRUE;
}

typedef struct
{
  SpRunnerClient *self;
  GError *error;
} Failure;

static gboolean
fail_later_cb (gpointer user_data)
{
  Failure *failure = user_data;

  close_client (failure->self, failure->error);
  g_object_unref (failure->self);
  g_error_free (failure->error);
  g_free (failure);
  return G_SOURCE_REMOVE;
}

void
sp_runner_client_start_async (SpRunnerClient *self, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  g_autoptr (GError) error = NULL;
  SpMessage hello = { .type = SP_MSG_HELLO };
  gsize len = 0;
  char *line;

  g_return_if_fail (SP_IS_RUNNER_CLIENT (self));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sp_runner_client_start_async);
  if (self->phase != CLIENT_NEW)
    {
      g_task_return_new_error (task, SP_RUNNER_ERROR, SP_RUNNER_ERROR_FAILED,
                               "A runner client starts only once");
      return;
    }
  if (g_task_return_error_if_cancelled (task))
    {
      self->phase = CLIENT_CLOSED;
      return;
    }

  self->phase = CLIENT_STARTING;
  self->start_task = g_steal_pointer (&task);
  if (!spawn (self, &error))
    {
      /* Reported like any other loss, but not before this call returns. */
      Failure *failure = g_new0 (Failure, 1);
      failure->self = g_object_ref (self);
      failure->error = g_steal_pointer (&error);
      g_idle_add (fail_later_cb, failure);
      return;
    }
  if (cancellable != NULL)
    {
      self->start_cancellable = g_object_ref (cancellable);
      self->start_cancelled_id = g_signal_connect_swapped (cancellable, "cancelled",
                                                           G_CALLBACK (sp_runner_client_stop),
                                                           self);
    }
  g_subprocess_wait_async (self->process, self->cancellable, process_exited, g_object_ref (self));

  hello.u.hello.client = (char *) "sandpad " PACKAGE_VERSION;
  line = sp_message_encode (&hello, &len);
  g_assert (line != NULL);
  _sp_runner_client_send (self, line, len);
  self->handshake_id = g_timeout_add (self->handshake_timeout_ms, handshake_timeout_cb, self);
  sp_runner_channel_start (self->channel);
}

gboolean
sp_runner_client_start_finish (SpRunnerClient *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sp_runner_client_start_async,
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
sp_runner_client_stop (SpRunnerClient *self)
{
  g_return_if_fail (SP_IS_RUNNER_CLIENT (self));
  close_client (self, NULL);
}

/* ---- GObject ---- */

static void
sp_runner_client_dispose (GObject *object)
{
  close_client (SP_RUNNER_CLIENT (object), NULL);
  G_OBJECT_CLASS (sp_runner_client_parent_class)->dispose (object);
}

static void
sp_runner_client_finalize (GObject *object)
{
  SpRunnerClient *self = SP_RUNNER_CLIENT (object);

  g_free (self->runner_path);
  g_strfreev (self->runner_args);
  g_free (self->id_prefix);
  sp_message_clear (&self->ready);
  g_strfreev (self->languages);
  g_hash_table_unref (self->runs);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (sp_runner_client_parent_class)->finalize (object);
}

static void
sp_runner_client_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpRunnerClient *self = SP_RUNNER_CLIENT (object);

  switch (prop_id)
    {
    case PROP_READY:
      g_value_set_boolean (value, sp_runner_client_is_ready (self));
      break;
    case PROP_HANDSHAKE_TIMEOUT:
      g_value_set_uint (value, self->handshake_timeout_ms);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_runner_client_set_property (GObject *object, guint prop_id, const GValue *value,
                               GParamSpec *pspec)
{
  SpRunnerClient *self = SP_RUNNER_CLIENT (object);

  switch (prop_id)
    {
    case PROP_HANDSHAKE_TIMEOUT:
      sp_runner_client_set_handshake_timeout (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_runner_client_class_init (SpRunnerClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GType type = G_TYPE_FROM_CLASS (klass);

  object_class->dispose = sp_runner_client_dispose;
  object_class->finalize = sp_runner_client_finalize;
  object_class->get_property = sp_runner_client_get_property;
  object_class->set_property = sp_runner_client_set_property;

  properties[PROP_READY] = g_param_spec_boolean ("ready", NULL, NULL, FALSE,
                                                 G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                                   | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_HANDSHAKE_TIMEOUT]
    = g_param_spec_uint ("handshake-timeout", NULL, NULL, 1, G_MAXUINT,
                         SP_RUNNER_CLIENT_DEFAULT_HANDSHAKE_TIMEOUT_MS,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  _sp_runner_client_add_signals (type);
}

static void
sp_runner_client_init (SpRunnerClient *self)
{
  self->handshake_timeout_ms = SP_RUNNER_CLIENT_DEFAULT_HANDSHAKE_TIMEOUT_MS;
  self->id_prefix = g_strdup ("");
  self->cancellable = g_cancellable_new ();
  self->runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      _sp_runner_client_run_info_free);
}

SpRunnerClient *
sp_runner_client_new (const char *runner_path)
{
  SpRunnerClient *self;

  g_return_val_if_fail (runner_path != NULL, NULL);

  self = g_object_new (SP_TYPE_RUNNER_CLIENT, NULL);
  self->runner_path = g_strdup (runner_path);
  return self;
}

void
sp_runner_client_set_runner_args (SpRunnerClient *self, const char *const *args)
{
  g_return_if_fail (SP_IS_RUNNER_CLIENT (self));
  g_return_if_fail (self->phase == CLIENT_NEW);

  g_strfreev (self->runner_args);
  self->runner_args = g_strdupv ((char **) args);
}

void
sp_runner_client_set_handshake_timeout (SpRunnerClient *self, guint timeout_ms)
{
  g_return_if_fail (SP_IS_RUNNER_CLIENT (self));
  g_return_if_fail (timeout_ms > 0);

  if (self->handshake_timeout_ms == timeout_ms)
    return;
  self->handshake_timeout_ms = timeout_ms;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HANDSHAKE_TIMEOUT]);
}

guint
sp_runner_client_get_handshake_timeout (SpRunnerClient *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), 0);
  return self->handshake_timeout_ms;
}

void
sp_runner_client_set_id_prefix (SpRunnerClient *self, const char *prefix)
{
  g_return_if_fail (SP_IS_RUNNER_CLIENT (self));
  g_return_if_fail (self->next_run == 0);

  g_free (self->id_prefix);
  self->id_prefix = g_strdup (prefix ? prefix : "");
}

gboolean
sp_runner_client_is_ready (SpRunnerClient *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), FALSE);
  return self->phase == CLIENT_READY;
}

const char *
sp_runner_client_get_identifier (SpRunnerClient *self)
{
  g_return_val_if_fail (SP_IS_RUNNER_CLIENT (self), NULL);
  return self->process ? g_subprocess_get_identifier (self->process) : NULL;
}
