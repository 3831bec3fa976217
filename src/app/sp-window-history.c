/* sp-window-history.c: what the window shows of its run history: the
 * comparison with the run before in the status line (SpRunRecorder keeps
 * each run of the window's controller under the document's key, and each
 * assistant's edit_and_execute of its file that the window saw end), the
 * history list and "Changes since last run" (SpHistoryWindow), and
 * restoring a run's code. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-history-window.h"
#include "sp-run-recorder.h"
#include "sp-window-private.h"

struct _SpWindowHistory
{
  SpRunRecorder *recorder;
  SpHistoryWindow *window; /* the open history window, weak */
};

/* The run is kept: an open list shows it. */
static void
on_recorded (SpRunRecorder *recorder, SpRunRecord *record, SpWindow *self)
{
  if (self->history->window != NULL)
    sp_history_window_add_run (self->history->window, record);
}

/* Its comparison with the one before, made in a worker thread: the status
 * line the window set (the result's summary) gets it after it. */
static void
on_compared (SpRunRecorder *recorder, SpRunRecord *record, const char *comparison, SpWindow *self)
{
  g_autofree char *status = NULL;

  /* An assistant's run: only while the panel shows it, worded as
   * sp-window-activity.c words its status line. */
  if (record->tool != NULL)
    {
      if (!_sp_window_activity_is_shown (self))
        return;
      /* TRANSLATORS: how an assistant's run ended, then how its output
       * differs from the run before */
      status = g_strdup_printf (_ ("Run by an assistant: %s — %s"), record->end, comparison);
    }
  else
    status = g_strdup_printf ("%s — %s", record->end, comparison);
  sp_exec_panel_set_status (self->exec_panel, status, !record->succeeded);
}

/* The run itself is shown as always; only its keeping failed. */
static void
on_record_failed (SpRunRecorder *recorder, SpRunRecord *record, const char *message, SpWindow *self)
{
  g_autofree char *msg = g_strdup_printf (_ ("This run could not be kept in the history: %s"),
                                          message);

  _sp_window_toast (self, msg);
}

/* After the window's own "exited" handler: the comparison goes after the
 * status line that handler set. */
void
_sp_window_history_init (SpWindow *self)
{
  SpWindowHistory *h = g_new0 (SpWindowHistory, 1);
  g_autoptr (SpRunHistory) store
    = sp_run_history_new (NULL, (gint64) g_settings_get_uint (self->settings, "run-history-max-mib")
                                  * 1024 * 1024);

  h->recorder = sp_run_recorder_new (self->runs, self->document, store);
  g_signal_connect_object (h->recorder, "recorded", G_CALLBACK (on_recorded), self, 0);
  g_signal_connect_object (h->recorder, "compared", G_CALLBACK (on_compared), self, 0);
  g_signal_connect_object (h->recorder, "failed", G_CALLBACK (on_record_failed), self, 0);
  self->history = h;
}

void
_sp_window_history_add_assistant_run (SpWindow *self, SpActivityRun *run)
{
  if (self->history != NULL)
    sp_run_recorder_keep_assistant_run (self->history->recorder, run);
}

void
_sp_window_history_free (SpWindow *self)
{
  SpWindowHistory *h = g_steal_pointer (&self->history);

  if (h == NULL)
    return;
  g_clear_object (&h->recorder);
  if (h->window != NULL)
    g_object_remove_weak_pointer (G_OBJECT (h->window), (gpointer *) &h->window);
  g_free (h);
}

static void
on_restore_code (SpHistoryWindow *window, const char *code, const char *language, SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  GtkTextIter start, end;

  /* One user action: a single Undo brings back the text it replaced. */
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_delete (buffer, &start, &end);
  gtk_text_buffer_insert (buffer, &start, code, -1);
  gtk_text_buffer_end_user_action (buffer);
  if (language != NULL && *language != '\0')
    _sp_window_set_language (self, language);
  _sp_window_toast (self, _ ("The run's code is back in the editor; Undo takes it back"));
}

static SpHistoryWindow *
open_history (SpWindow *self, gboolean changes)
{
  SpWindowHistory *h = self->history;
  g_autofree char *key = sp_run_recorder_dup_key (h->recorder);
  SpHistoryWindow *window;

  /* One at a time, and up to date: a new list (the file may have another
   * name since), which runs that end are added to while it is open. */
  if (h->window != NULL)
    gtk_window_destroy (GTK_WINDOW (h->window));
  window = sp_history_window_new (GTK_WINDOW (self), sp_run_recorder_get_store (h->recorder), key);
  h->window = window;
  g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &h->window);
  g_signal_connect_object (window, "restore-code", G_CALLBACK (on_restore_code), self, 0);
  if (changes)
    sp_history_window_show_changes (window);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
history_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  open_history (SP_WINDOW (widget), FALSE);
}

static void
compare_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  open_history (SP_WINDOW (widget), TRUE);
}

void
_sp_window_install_history_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.history", NULL, history_action);
  gtk_widget_class_install_action (widget_class, "win.compare-runs", NULL, compare_action);
}
