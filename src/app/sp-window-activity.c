/* sp-window-activity.c: what assistants run, seen from a window.
 *
 * One SpActivityModel per application follows sandpad-mcp's live journal
 * for as long as the app runs; Assistant Activity (win.activity) shows it
 * in one window per application. When an assistant's edit_and_execute
 * runs the file a window has open, that window's panel shows the run's
 * output and end as it goes (the file watch, elsewhere, reloads the text);
 * never while the window's own run is going, which it would hide. Once it
 * ends, it is kept in the file's run history (sp-window-history.c). */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sp-activity-window.h"
#include "sp-window-private.h"

#define WINDOW_KEY "sp-activity-window"

/* An assistant's run of this file shown in the panel: the model it fills
 * while the panel shows that model, and how much of the run's output it
 * holds (chunks, bytes of the last, which may still grow), so each journal
 * line appends only what is new. */
struct _SpWindowAssistant
{
  SpOutputModel *output;
  SpActivityRun *run;
  guint chunks;
  gsize last_len;
  gboolean error_shown;
  /* A run whose journal lines came since the last frame, shown on the
   * next one (a tick callback), once however many lines came. */
  SpActivityRun *changed;
  guint tick_id;
};

static gboolean
is_this_file (SpWindow *self, SpActivityRun *run)
{
  g_autofree char *path = NULL;
  g_autofree char *canonical = NULL;

  if (sp_document_get_file (self->document) == NULL || sp_activity_run_get_file (run) == NULL)
    return FALSE;
  path = g_file_get_path (sp_document_get_file (self->document));
  if (path == NULL)
    return FALSE;
  canonical = g_canonicalize_filename (path, NULL);
  return g_str_equal (canonical, sp_activity_run_get_file (run));
}

/* Appends what came since the last call: the rest of the chunk that was
 * last then (a chunk grows while its stream goes on), and new chunks. */
static void
append_new_output (SpWindow *self, SpActivityRun *run)
{
  GArray *chunks = sp_activity_run_get_output (run);
  guint first = self->assistant->chunks > 0 ? self->assistant->chunks - 1 : 0;

  for (guint i = first; i < chunks->len; i++)
    {
      SpActivityChunk *chunk = &g_array_index (chunks, SpActivityChunk, i);
      gsize len = strlen (chunk->text);
      gsize from = i + 1 == self->assistant->chunks ? self->assistant->last_len : 0;

      if (len > from)
        sp_output_model_append (self->assistant->output,
                                chunk->is_stderr ? SP_OUTPUT_STDERR : SP_OUTPUT_STDOUT,
                                chunk->text + from);
      self->assistant->last_len = len;
    }
  self->assistant->chunks = chunks->len;
}

/* The panel's model for this run, made the first time a journal line
 * about it comes (or after the window showed something else). */
static void
start_assistant_output (SpWindow *self)
{
  g_autoptr (SpOutputModel) output = sp_output_model_new ();

  /* Batched like a run of the window's own: a flood of journal lines is
   * shown once per frame at most. */
  sp_output_model_set_batched (output, TRUE);
  /* It is the run shown now; the window's last one lets its files go. */
  sp_run_controller_release (self->runs);
  g_set_object (&self->output, output);
  g_set_object (&self->assistant->output, output);
  self->assistant->chunks = 0;
  self->assistant->last_len = 0;
  self->assistant->error_shown = FALSE;
  sp_exec_panel_set_output (self->exec_panel, G_LIST_MODEL (output));
}

static void
show_assistant_run (SpWindow *self, SpActivityRun *run)
{
  g_autofree char *how = sp_activity_run_describe (run);
  g_autofree char *status = NULL;

  if (sp_run_controller_get_running (self->runs) || !is_this_file (self, run))
    return;
  if (self->output == NULL || self->output != self->assistant->output
      || self->assistant->run != run)
    {
      start_assistant_output (self);
      g_set_object (&self->assistant->run, run);
    }
  append_new_output (self, run);
  if (!sp_activity_run_is_running (run) && sp_activity_run_get_error (run) != NULL
      && !self->assistant->error_shown)
    {
      g_autofree char *line = g_strdup_printf ("%s\n", sp_activity_run_get_error (run));
      sp_output_model_append (self->assistant->output, SP_OUTPUT_STDERR, line);
      self->assistant->error_shown = TRUE;
    }
  if (!sp_activity_run_is_running (run))
    sp_output_model_flush (self->assistant->output);
  /* TRANSLATORS: %s says how the assistant's run ended, or that it runs */
  status = g_strdup_printf (_ ("Run by an assistant: %s"), how);
  sp_exec_panel_set_status (self->exec_panel, status,
                            !sp_activity_run_is_running (run)
                              && sp_activity_run_get_exit_code (run) != 0);
}

static gboolean
assistant_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  SpWindow *self = SP_WINDOW (widget);
  g_autoptr (SpActivityRun) run = g_steal_pointer (&self->assistant->changed);

  self->assistant->tick_id = 0;
  if (run != NULL)
    show_assistant_run (self, run);
  return G_SOURCE_REMOVE;
}

static void
on_run_changed (SpActivityRun *run, SpWindow *self)
{
  if (g_strcmp0 (sp_activity_run_get_tool (run), "edit_and_execute") != 0
      || !is_this_file (self, run))
    return;
  /* Ended: kept in the file's history, as the window's own runs are. */
  if (!sp_activity_run_is_running (run))
    _sp_window_history_add_assistant_run (self, run);
  /* Another run of the file before the frame: show the first now, so
   * none is skipped. */
  if (self->assistant->changed != NULL && self->assistant->changed != run)
    {
      g_autoptr (SpActivityRun) earlier = g_steal_pointer (&self->assistant->changed);
      show_assistant_run (self, earlier);
    }
  g_set_object (&self->assistant->changed, run);
  if (self->assistant->tick_id == 0)
    self->assistant->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), assistant_tick,
                                                             NULL, NULL);
}

static void
on_run_added (SpActivityModel *model, SpActivityRun *run, SpWindow *self)
{
  g_signal_connect_object (run, "changed", G_CALLBACK (on_run_changed), self, 0);
}

void
_sp_window_activity_init (SpWindow *self)
{
  SpActivityModel *model = _sp_window_activity_model (self);

  self->assistant = g_new0 (SpWindowAssistant, 1);
  g_signal_connect_object (model, "run-added", G_CALLBACK (on_run_added), self, 0);
}

void
_sp_window_activity_dispose (SpWindow *self)
{
  SpWindowAssistant *a = g_steal_pointer (&self->assistant);

  if (a == NULL)
    return;
  g_clear_object (&a->output);
  g_clear_object (&a->run);
  g_clear_object (&a->changed);
  if (a->tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), a->tick_id);
  g_free (a);
}

gboolean
_sp_window_activity_is_shown (SpWindow *self)
{
  return self->assistant != NULL && self->output != NULL && self->output == self->assistant->output;
}

static void
forget_window (GtkWindow *window, GtkApplication *app)
{
  if (g_object_get_data (G_OBJECT (app), WINDOW_KEY) == window)
    g_object_set_data (G_OBJECT (app), WINDOW_KEY, NULL);
}

static void
activity_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  GtkWindow *window = g_object_get_data (G_OBJECT (app), WINDOW_KEY);

  if (window == NULL)
    {
      window = GTK_WINDOW (sp_activity_window_new (app, _sp_window_activity_model (self)));
      /* One per application; forgotten when it closes. */
      g_object_set_data (G_OBJECT (app), WINDOW_KEY, window);
      g_signal_connect_object (window, "destroy", G_CALLBACK (forget_window), app, 0);
    }
  gtk_window_present (window);
}

void
_sp_window_install_activity_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.activity", NULL, activity_action);
}
