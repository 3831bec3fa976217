/* sp-run-controller.c: one window's runs: the run shown, its output, its
 * input, its session.
 *
 * Input: the runner says when the program is blocked reading its stdin
 * (the input_wait event, read from the kernel, never guessed from a prompt
 * and a pause), and the controller is "waiting" while it is; the view says
 * so and never takes the keyboard: a person typing in the editor when the
 * program starts waiting would send the rest of the line to the program
 * on Enter. A program that reads without a prompt is seen all the same,
 * and a progress bar or a prompt-like line followed by work is not taken
 * for a wait. What the user sends is echoed into the output
 * (SP_OUTPUT_INPUT) in its place between the program's output, as a
 * terminal shows it.
 *
 * Sessions (docs/protocol.md, "Sessions"): while state is kept, the
 * controller's Python runs share one runner session, an interpreter that
 * keeps variables, imports and its working directory from run to run.
 * Restart forgets that state; turning it off, or the controller going,
 * closes the session. */
#define G_LOG_DOMAIN "sp-run-controller"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sp-run-controller.h"

/* The stderr kept to find the error in, once the run is over. */
#define STDERR_MAX (256 * 1024)

struct _SpRunController
{
  GObject parent_instance;

  SpRunnerSupervisor *supervisor;
  /* The run shown. Its files (plots) stay until the next run, so the
   * view can show them; then the runner may forget it. */
  char *run_id;
  SpOutputModel *output;
  GString *stderr_text;
  gboolean running;
  gboolean run_exited;
  char *run_start;

  gboolean waiting;
  /* A compiled language's compile step is under way (the runner's phase
   * event), under a limit of its own. */
  gboolean compiling;
  gint64 compile_timeout_ms;
  /* The run's results with an image or a table: how many ("Result 2"),
   * and the tables' reads, cancelled with the run. */
  guint n_results;
  GCancellable *results_cancellable;

  gboolean keep_state;
  /* Python's session is session_id, R's session_id with "-r" (issue 42):
   * one interpreter per language, so switching the window's language and
   * back keeps each one's state. Whether a run named each since it last
   * ended, in the order of session_languages. */
  gboolean session_used[2];
  int run_session; /* the run's, as an index of session_languages; -1: none */
  char *session_id;
};

/* The languages whose runs Keep State puts in a session. */
static const char *const session_languages[] = { "python", "r" };

G_DEFINE_FINAL_TYPE (SpRunController, sp_run_controller, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_OUTPUT,
  PROP_RUNNING,
  PROP_WAITING,
  PROP_COMPILING,
  PROP_KEEP_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  NEW_RUN,
  OUTPUT,
  DISPLAY,
  STARTED,
  EXITED,
  FAILED,
  RUNNER_LOST,
  SESSION_ENDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean
is_current (SpRunController *self, const char *run_id)
{
  return self->run_id != NULL && g_strcmp0 (self->run_id, run_id) == 0;
}

/* ---- input ---- */

static void
set_waiting (SpRunController *self, gboolean waiting)
{
  if (self->waiting == waiting)
    return;
  self->waiting = waiting;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WAITING]);
}

static void
input_reset (SpRunController *self)
{
  set_waiting (self, FALSE);
}

static void
set_compiling (SpRunController *self, gboolean compiling, gint64 timeout_ms)
{
  self->compile_timeout_ms = compiling ? timeout_ms : 0;
  if (self->compiling == compiling)
    return;
  self->compiling = compiling;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPILING]);
}

static void
on_phase (SpRunnerSupervisor *sup, const char *run_id, gboolean compiling, gint64 timeout_ms,
          SpRunController *self)
{
  if (self->running && is_current (self, run_id))
    set_compiling (self, compiling, timeout_ms);
}

static void
on_input_wait (SpRunnerSupervisor *sup, const char *run_id, gboolean waiting, SpRunController *self)
{
  if (self->running && is_current (self, run_id))
    set_waiting (self, waiting);
}

gboolean
sp_run_controller_send_input (SpRunController *self, const char *line)
{
  g_autofree char *with_newline = NULL;

  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), FALSE);
  g_return_val_if_fail (line != NULL, FALSE);
  if (!self->running || self->run_id == NULL)
    return FALSE;
  with_newline = g_strconcat (line, "\n", NULL);
  sp_runner_supervisor_send_stdin (self->supervisor, self->run_id, with_newline, FALSE);
  if (self->output != NULL)
    sp_output_model_append (self->output, SP_OUTPUT_INPUT, with_newline);
  /* Listeners see it in its place too: the run history's transcript read
   * "Name: Hello Alice" without the answer typed. */
  g_signal_emit (self, signals[OUTPUT], 0, SP_OUTPUT_INPUT, with_newline);
  input_reset (self);
  return TRUE;
}

/* ---- the session ---- */

/* The runner only has the session once a run asked for it; a restart or
 * close before that would be answered with unknown_session. */
/* The index of language in session_languages, -1 if it has none. */
static int
session_index (const char *language)
{
  for (guint i = 0; i < G_N_ELEMENTS (session_languages); i++)
    if (g_strcmp0 (language, session_languages[i]) == 0)
      return (int) i;
  return -1;
}

/* The runner's id of language i's session: Python's is the controller's
 * own, another's adds its name ("-r"). */
static char *
session_id_for (SpRunController *self, int i)
{
  return i == 0 ? g_strdup (self->session_id)
                : g_strdup_printf ("%s-%s", self->session_id, session_languages[i]);
}

static void
end_session (SpRunController *self, gboolean restart)
{
  SpRunnerClient *client;

  if (self->supervisor == NULL)
    return;
  client = sp_runner_supervisor_get_client (self->supervisor);
  for (guint i = 0; i < G_N_ELEMENTS (session_languages); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *id = NULL;

      if (!self->session_used[i])
        continue;
      self->session_used[i] = FALSE;
      id = session_id_for (self, (int) i);
      if (client != NULL && sp_runner_client_is_ready (client)
          && !sp_runner_client_end_session (client, id, restart, &error))
        g_debug ("ending the session: %s", error->message);
    }
}

gboolean
sp_run_controller_get_keep_state (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), FALSE);
  return self->keep_state;
}

void
sp_run_controller_set_keep_state (SpRunController *self, gboolean keep)
{
  g_return_if_fail (SP_IS_RUN_CONTROLLER (self));
  keep = !!keep;
  if (self->keep_state == keep)
    return;
  self->keep_state = keep;
  /* Off: the state is not wanted any more. */
  if (!keep)
    end_session (self, FALSE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KEEP_STATE]);
}

const char *
sp_run_controller_get_session_id (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), NULL);
  return self->session_id;
}

void
sp_run_controller_restart_session (SpRunController *self)
{
  g_return_if_fail (SP_IS_RUN_CONTROLLER (self));
  end_session (self, TRUE);
}

/* ---- runs ---- */

static void
set_running (SpRunController *self, gboolean running)
{
  input_reset (self);
  set_compiling (self, FALSE, 0);
  if (self->running == running)
    return;
  self->running = running;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

static void
on_output (SpRunnerSupervisor *sup, const char *run_id, SpOutputKind kind, const char *text,
           gint64 t_ms, SpRunController *self)
{
  if (!is_current (self, run_id))
    return;
  sp_output_model_append_timed (self->output, kind, text, t_ms);
  if (kind == SP_OUTPUT_STDERR && self->stderr_text->len < STDERR_MAX)
    g_string_append (self->stderr_text, text);
  g_signal_emit (self, signals[OUTPUT], 0, kind, text);
}

/* A rich result with an image or a table (a value, display()): its text
 * goes to the run's listeners as output (the history keeps it), the image
 * or table into the run's model as an item of its own, in its place.
 * Text-only results come as output. */
static void
on_display (SpRunnerSupervisor *sup, const char *run_id, const char *text, GBytes *png, guint scale,
            SpDataTable *table, gint64 t_ms, SpRunController *self)
{
  g_autofree char *line = NULL;

  if (!is_current (self, run_id))
    return;
  line = g_str_has_suffix (text, "\n") ? g_strdup (text) : g_strconcat (text, "\n", NULL);
  if (png != NULL || table != NULL)
    {
      g_autoptr (SpOutputItem) item = NULL;
      g_autofree char *label = NULL;

      /* Translators: an image or table a program showed as a result; %u
       * counts them, per run. */
      label = g_strdup_printf (_ ("Result %u"), ++self->n_results);
      if (png != NULL)
        {
          /* Its bytes in memory (at most what the runner lets through),
           * never a file: a folder in /tmp outlived a killed app. */
          item = sp_output_item_new_image (label, label);
          sp_output_item_set_bytes (item, png);
          sp_output_item_set_size (item, (gint64) g_bytes_get_size (png));
          sp_output_item_set_image_scale (item, scale);
        }
      else
        {
          item = sp_output_item_new_table (table, text, label);
          /* Read on a worker thread; the row shows it once it is. */
          sp_data_table_load_async (table, self->results_cancellable, NULL, NULL);
        }
      sp_output_model_append_item (self->output, item);
      g_signal_emit (self, signals[DISPLAY], 0, item);
    }
  g_signal_emit (self, signals[OUTPUT], 0, SP_OUTPUT_STDOUT, line);
}

static void
on_started (SpRunnerSupervisor *sup, const char *run_id, SpRunController *self)
{
  if (is_current (self, run_id))
    g_signal_emit (self, signals[STARTED], 0);
}

static void
on_exited (SpRunnerSupervisor *sup, const char *run_id, SpRunResult *result, SpRunController *self)
{
  const char *ended;

  if (!is_current (self, run_id))
    return;
  self->run_exited = TRUE;
  /* Everything the program wrote comes before its plots, files and error. */
  sp_output_model_flush (self->output);
  g_free (self->run_start);
  if (sp_run_result_get_warm (result))
    self->run_start = g_strdup (_ ("warm start"));
  else if (sp_run_result_get_cold_reason (result) != NULL)
    /* TRANSLATORS: the runner turned its warm starts off; %s says why */
    self->run_start = g_strdup_printf (_ ("cold start: %s"),
                                       sp_run_result_get_cold_reason (result));
  else
    self->run_start = g_strdup (_ ("cold start"));
  set_running (self, FALSE);
  g_signal_emit (self, signals[EXITED], 0, result);
  ended = sp_run_result_get_session_ended (result);
  if (ended != NULL)
    {
      if (self->run_session >= 0)
        self->session_used[self->run_session] = FALSE;
      g_signal_emit (self, signals[SESSION_ENDED], 0, ended);
    }
}

static void
on_run_error (SpRunnerSupervisor *sup, const char *run_id, const char *code, const char *message,
              SpRunController *self)
{
  if (run_id != NULL && !is_current (self, run_id))
    return;
  set_running (self, FALSE);
  g_signal_emit (self, signals[FAILED], 0, message);
}

static void
on_state_changed (SpRunnerSupervisor *sup, GParamSpec *pspec, SpRunController *self)
{
  /* The runner died under the run: the supervisor restarts it and the
   * next run works; the view says so. */
  if (self->running && sp_runner_supervisor_get_state (sup) != SP_RUNNER_STATE_READY)
    {
      set_running (self, FALSE);
      g_signal_emit (self, signals[RUNNER_LOST], 0);
    }
}

gboolean
sp_run_controller_start (SpRunController *self, SpRunRequest *request, GError **error)
{
  char *run_id;

  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), FALSE);
  g_return_val_if_fail (request != NULL, FALSE);
  g_return_val_if_fail (!self->running, FALSE);

  /* Sessions are Python's and R's; other languages run afresh as always. */
  int i = session_index (sp_run_request_get_language (request));
  self->run_session = self->keep_state ? i : -1;
  if (self->run_session >= 0)
    {
      g_autofree char *id = session_id_for (self, i);
      sp_run_request_set_session (request, id);
      self->session_used[i] = TRUE;
    }
  sp_run_controller_release (self);
  g_string_truncate (self->stderr_text, 0);
  self->run_exited = FALSE;
  self->n_results = 0;
  self->results_cancellable = g_cancellable_new ();
  run_id = sp_runner_supervisor_run (self->supervisor, request, error);
  if (run_id == NULL)
    return FALSE;
  self->run_id = run_id;
  g_clear_object (&self->output);
  self->output = sp_output_model_new ();
  /* Output is shown in batches, a few dozen times a second at most, so a
   * flood of tiny writes costs the view one update per batch. */
  sp_output_model_set_batched (self->output, TRUE);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OUTPUT]);
  set_running (self, TRUE);
  g_signal_emit (self, signals[NEW_RUN], 0, request);
  return TRUE;
}

void
sp_run_controller_release (SpRunController *self)
{
  g_return_if_fail (SP_IS_RUN_CONTROLLER (self));
  /* The previous run's files go with it. */
  if (self->run_id != NULL && self->run_exited)
    sp_runner_supervisor_release (self->supervisor, self->run_id);
  g_clear_pointer (&self->run_id, g_free);
  g_cancellable_cancel (self->results_cancellable);
  g_clear_object (&self->results_cancellable);
}

void
sp_run_controller_stop (SpRunController *self)
{
  g_return_if_fail (SP_IS_RUN_CONTROLLER (self));
  if (self->running && self->run_id != NULL)
    sp_runner_supervisor_cancel (self->supervisor, self->run_id);
}

SpRunnerSupervisor *
sp_run_controller_get_supervisor (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), NULL);
  return self->supervisor;
}

const char *
sp_run_controller_get_run_id (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), NULL);
  return self->run_id;
}

SpOutputModel *
sp_run_controller_get_output (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), NULL);
  return self->output;
}

gboolean
sp_run_controller_get_running (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), FALSE);
  return self->running;
}

gboolean
sp_run_controller_get_waiting (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), FALSE);
  return self->waiting;
}

gboolean
sp_run_controller_get_compiling (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), FALSE);
  return self->compiling;
}

gint64
sp_run_controller_get_compile_timeout_ms (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), 0);
  return self->compile_timeout_ms;
}

const char *
sp_run_controller_get_stderr (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), NULL);
  return self->stderr_text->str;
}

const char *
sp_run_controller_get_run_start (SpRunController *self)
{
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (self), NULL);
  return self->run_start;
}

/* ---- GObject ---- */

static void
sp_run_controller_dispose (GObject *object)
{
  SpRunController *self = SP_RUN_CONTROLLER (object);

  /* Nobody is left to watch a run or use the session. */
  if (self->supervisor != NULL)
    {
      sp_run_controller_stop (self);
      sp_run_controller_release (self);
      end_session (self, FALSE);
      g_signal_handlers_disconnect_by_data (self->supervisor, self);
    }
  g_clear_object (&self->supervisor);
  g_clear_object (&self->output);
  g_clear_object (&self->results_cancellable);
  G_OBJECT_CLASS (sp_run_controller_parent_class)->dispose (object);
}

static void
sp_run_controller_finalize (GObject *object)
{
  SpRunController *self = SP_RUN_CONTROLLER (object);

  g_free (self->run_id);
  g_free (self->run_start);
  g_free (self->session_id);
  g_string_free (self->stderr_text, TRUE);
  G_OBJECT_CLASS (sp_run_controller_parent_class)->finalize (object);
}

static void
sp_run_controller_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpRunController *self = SP_RUN_CONTROLLER (object);

  switch (prop_id)
    {
    case PROP_OUTPUT:
      g_value_set_object (value, self->output);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;
    case PROP_WAITING:
      g_value_set_boolean (value, self->waiting);
      break;
    case PROP_COMPILING:
      g_value_set_boolean (value, self->compiling);
      break;
    case PROP_KEEP_STATE:
      g_value_set_boolean (value, self->keep_state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_run_controller_set_property (GObject *object, guint prop_id, const GValue *value,
                                GParamSpec *pspec)
{
  SpRunController *self = SP_RUN_CONTROLLER (object);

  switch (prop_id)
    {
    case PROP_KEEP_STATE:
      sp_run_controller_set_keep_state (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_run_controller_class_init (SpRunControllerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GType type = G_TYPE_FROM_CLASS (klass);

  object_class->dispose = sp_run_controller_dispose;
  object_class->finalize = sp_run_controller_finalize;
  object_class->get_property = sp_run_controller_get_property;
  object_class->set_property = sp_run_controller_set_property;

  properties[PROP_OUTPUT] = g_param_spec_object ("output", NULL, NULL, SP_TYPE_OUTPUT_MODEL,
                                                 G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY
                                                   | G_PARAM_STATIC_STRINGS);
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE,
                                                   G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY
                                                     | G_PARAM_STATIC_STRINGS);
  properties[PROP_WAITING] = g_param_spec_boolean ("waiting", NULL, NULL, FALSE,
                                                   G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY
                                                     | G_PARAM_STATIC_STRINGS);
  properties[PROP_COMPILING] = g_param_spec_boolean ("compiling", NULL, NULL, FALSE,
                                                     G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY
                                                       | G_PARAM_STATIC_STRINGS);
  properties[PROP_KEEP_STATE] = g_param_spec_boolean ("keep-state", NULL, NULL, FALSE,
                                                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY
                                                        | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* (SpRunRequest *request): the runner took it; it is the run shown */
  signals[NEW_RUN] = g_signal_new ("new-run", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 1, SP_TYPE_RUN_REQUEST);
  /* (SpOutputKind kind, const char *text): after the output model has it;
   * SP_OUTPUT_INPUT for a line sent to the program's stdin */
  signals[OUTPUT] = g_signal_new ("output", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 2, SP_TYPE_OUTPUT_KIND, G_TYPE_STRING);
  /* (SpOutputItem *item): a result with an image (its bytes) or a table
   * (read on a worker thread), "Result N", appended to the run's output
   * model; the view decodes an image. "output" follows with its text for
   * listeners */
  signals[DISPLAY] = g_signal_new ("display", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 1, SP_TYPE_OUTPUT_ITEM);
  /* The run shown has started (its sandbox is known). */
  signals[STARTED] = g_signal_new ("started", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
  /* (SpRunResult *result): no longer running, its output flushed */
  signals[EXITED] = g_signal_new ("exited", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 1, SP_TYPE_RUN_RESULT);
  /* (const char *message): the run could not start or was refused */
  signals[FAILED] = g_signal_new ("failed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 1, G_TYPE_STRING);
  /* The runner went away under the run shown. */
  signals[RUNNER_LOST] = g_signal_new ("runner-lost", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 0);
  /* (const char *why): the session ended with the run, after "exited" */
  signals[SESSION_ENDED] = g_signal_new ("session-ended", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                         NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
sp_run_controller_init (SpRunController *self)
{
  g_autofree char *uuid = g_uuid_string_random ();

  self->stderr_text = g_string_new (NULL);
  self->run_session = -1;
  /* Unique per controller (a protocol id: printable ASCII, at most 64). */
  self->session_id = g_strdup_printf ("window-%s", uuid);
}

SpRunController *
sp_run_controller_new (SpRunnerSupervisor *supervisor)
{
  SpRunController *self;

  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (supervisor), NULL);
  self = g_object_new (SP_TYPE_RUN_CONTROLLER, NULL);
  self->supervisor = g_object_ref (supervisor);
  g_signal_connect_object (supervisor, "output", G_CALLBACK (on_output), self, 0);
  g_signal_connect_object (supervisor, "started", G_CALLBACK (on_started), self, 0);
  g_signal_connect_object (supervisor, "exited", G_CALLBACK (on_exited), self, 0);
  g_signal_connect_object (supervisor, "error", G_CALLBACK (on_run_error), self, 0);
  g_signal_connect_object (supervisor, "input-wait", G_CALLBACK (on_input_wait), self, 0);
  g_signal_connect_object (supervisor, "phase", G_CALLBACK (on_phase), self, 0);
  g_signal_connect_object (supervisor, "display", G_CALLBACK (on_display), self, 0);
  g_signal_connect_object (supervisor, "notify::state", G_CALLBACK (on_state_changed), self, 0);
  return self;
}
