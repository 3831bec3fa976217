/* sp-window-activity.c: what assistants run, seen from a window.
 *
 * One SpActivityModel per application follows sandpad-mcp's live journal
 * for as long as the app runs; Assistant Activity (win.activity) shows it
 * in one window per application. When an assistant's edit_and_execute
 * runs the file a window has open, that window's panel shows the run's
 * output and end as it goes (the file watch, elsewhere, reloads the text);
 * never while the window's own run is going, which it would hide. Once it
 * ends, it is kept in the file's run history (SpRunRecorder). What
 * is the file's and what is new in its output is SpActivityFollow's
 * (core); this file shows it, a frame at a time. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>
#include "sp-activity-follow.h"
#include "sp-activity-window.h"
#include "sp-window-private.h"

#define WINDOW_KEY "sp-activity-window"

/* An assistant's run of this file shown in the panel: its following
 * (core), and a run whose journal lines came since the last frame, shown
 * on the next one (a tick callback), once however many lines came. */
struct _SpWindowAssistant
{
  SpActivityFollow *follow;
  SpActivityRun *changed;
  guint tick_id;
};

static void
show_assistant_run (SpWindow *self, SpActivityRun *run)
{
  SpActivityFollow *follow = self->assistant->follow;
  g_autofree char *how = sp_activity_run_describe (run);
  g_autofree char *status = NULL;
  gboolean fresh;

  if (sp_run_controller_get_running (self->runs) || !sp_activity_follow_is_file (follow, run))
    return;
  fresh = self->output == NULL || self->output != sp_activity_follow_get_output (follow);
  if (sp_activity_follow_update (follow, run, fresh))
    {
      /* It is the run shown now; the window's last one lets its files go. */
      sp_run_controller_release (self->runs);
      g_set_object (&self->output, sp_activity_follow_get_output (follow));
      sp_exec_panel_set_output (self->exec_panel, G_LIST_MODEL (self->output));
    }
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
on_run_changed (SpActivityFollow *follow, SpActivityRun *run, SpWindow *self)
{
  /* Ended: kept in the file's history, as the window's own runs are. */
  if (!sp_activity_run_is_running (run) && self->recorder != NULL)
    sp_run_recorder_keep_assistant_run (self->recorder, run);
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

void
_sp_window_activity_init (SpWindow *self)
{
  self->assistant = g_new0 (SpWindowAssistant, 1);
  self->assistant->follow = sp_activity_follow_new (_sp_window_activity_model (self),
                                                    self->document);
  g_signal_connect_object (self->assistant->follow, "run-changed", G_CALLBACK (on_run_changed),
                           self, 0);
}

void
_sp_window_activity_dispose (SpWindow *self)
{
  SpWindowAssistant *a = g_steal_pointer (&self->assistant);

  if (a == NULL)
    return;
  g_clear_object (&a->follow);
  g_clear_object (&a->changed);
  if (a->tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), a->tick_id);
  g_free (a);
}

gboolean
_sp_window_activity_is_shown (SpWindow *self)
{
  return self->assistant != NULL && self->output != NULL
         && self->output == sp_activity_follow_get_output (self->assistant->follow);
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
