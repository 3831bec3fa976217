/* sp-window-activity.c: what assistants run, seen from a window.
 *
 * One SpActivityModel per application follows sandpad-mcp's live journal
 * for as long as the app runs; Assistant Activity (win.activity) shows it
 * in one window per application. When an assistant's edit_and_execute
 * runs the file a window has open, that window's panel shows the run's
 * output and end as it goes (the file watch, elsewhere, reloads the text);
 * never while the window's own run is going, which it would hide. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-activity-window.h"
#include "sp-window-private.h"

#define MODEL_KEY "sp-activity-model"
#define WINDOW_KEY "sp-activity-window"

SpActivityModel *
_sp_window_activity_model (SpWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  SpActivityModel *model;

  g_return_val_if_fail (app != NULL, NULL);
  model = g_object_get_data (G_OBJECT (app), MODEL_KEY);
  if (model == NULL)
    {
      model = sp_activity_model_new (NULL);
      g_object_set_data_full (G_OBJECT (app), MODEL_KEY, model, g_object_unref);
    }
  return model;
}

static gboolean
is_this_file (SpWindow *self, SpActivityRun *run)
{
  g_autofree char *path = NULL;
  g_autofree char *canonical = NULL;

  if (self->file == NULL || sp_activity_run_get_file (run) == NULL)
    return FALSE;
  path = g_file_get_path (self->file);
  if (path == NULL)
    return FALSE;
  canonical = g_canonicalize_filename (path, NULL);
  return g_str_equal (canonical, sp_activity_run_get_file (run));
}

static void
show_assistant_run (SpWindow *self, SpActivityRun *run)
{
  g_autoptr (SpOutputModel) output = sp_output_model_new ();
  GArray *chunks = sp_activity_run_get_output (run);
  g_autofree char *how = sp_activity_run_describe (run);
  g_autofree char *status = NULL;

  if (self->running || !is_this_file (self, run))
    return;
  for (guint i = 0; i < chunks->len; i++)
    {
      SpActivityChunk *chunk = &g_array_index (chunks, SpActivityChunk, i);
      sp_output_model_append (output, chunk->is_stderr ? SP_OUTPUT_STDERR : SP_OUTPUT_STDOUT,
                              chunk->text);
    }
  if (sp_activity_run_get_error (run) != NULL)
    {
      g_autofree char *line = g_strdup_printf ("%s\n", sp_activity_run_get_error (run));
      sp_output_model_append (output, SP_OUTPUT_STDERR, line);
    }
  sp_output_model_flush (output);
  /* It is the run shown now; the window's last one lets its files go. */
  _sp_window_release_run (self);
  g_set_object (&self->output, output);
  sp_exec_panel_set_output (self->exec_panel, G_LIST_MODEL (output));
  /* TRANSLATORS: %s says how the assistant's run ended, or that it runs */
  status = g_strdup_printf (_("Run by an assistant: %s"), how);
  sp_exec_panel_set_status (self->exec_panel, status,
                            !sp_activity_run_is_running (run)
                              && sp_activity_run_get_exit_code (run) != 0);
}

static void
on_run_changed (SpActivityRun *run, SpWindow *self)
{
  if (g_strcmp0 (sp_activity_run_get_tool (run), "edit_and_execute") == 0)
    show_assistant_run (self, run);
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

  g_signal_connect_object (model, "run-added", G_CALLBACK (on_run_added), self, 0);
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
