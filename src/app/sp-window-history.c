/* sp-window-history.c: every run of a window kept, and compared with the
 * one before.
 *
 * While a run goes, its output is collected as the panel shows it; when it
 * exits, the run (code, output, files, the bytes of its first images, how
 * it ended) goes into the history under the document's key (an untitled
 * buffer's is its autosave copy's, so it survives a restart) and
 * the status line says whether the output is the same as the last run's.
 * "Changes since last run" and the history list open SpHistoryWindow. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-history-window.h"
#include "sp-run-history.h"
#include "sp-window-private.h"

struct _SpWindowHistory
{
  SpRunHistory *store;
  gboolean recording;
  char *code;
  char *language;
  gint64 started_us;
  GString *stdout_text;
  GString *stderr_text;
  gboolean cut;
  SpHistoryWindow *window; /* the open history window, weak */
};

static void on_new_run (SpRunController *runs, SpRunRequest *request, SpWindow *self);
static void on_output (SpRunController *runs, SpOutputKind kind, const char *text,
                       SpWindow *self);
static void on_exited (SpRunController *runs, SpRunResult *result, SpWindow *self);

/* After the window's own "exited": the comparison goes after the status
 * line that handler set. */
void
_sp_window_history_init (SpWindow *self)
{
  SpWindowHistory *h = g_new0 (SpWindowHistory, 1);

  h->stdout_text = g_string_new (NULL);
  h->stderr_text = g_string_new (NULL);
  self->history = h;
  g_signal_connect_object (self->runs, "new-run", G_CALLBACK (on_new_run), self, 0);
  g_signal_connect_object (self->runs, "output", G_CALLBACK (on_output), self, 0);
  g_signal_connect_object (self->runs, "exited", G_CALLBACK (on_exited), self, 0);
}

void
_sp_window_history_free (SpWindow *self)
{
  SpWindowHistory *h = g_steal_pointer (&self->history);

  if (h == NULL)
    return;
  g_clear_object (&h->store);
  if (h->window != NULL)
    g_object_remove_weak_pointer (G_OBJECT (h->window), (gpointer *) &h->window);
  g_free (h->code);
  g_free (h->language);
  g_string_free (h->stdout_text, TRUE);
  g_string_free (h->stderr_text, TRUE);
  g_free (h);
}

/* Made when first needed: the window has its settings only after init. */
static SpRunHistory *
get_store (SpWindow *self)
{
  SpWindowHistory *h = self->history;

  if (h->store == NULL)
    h->store = sp_run_history_new (
      NULL, (gint64) g_settings_get_uint (self->settings, "run-history-max-mib") * 1024 * 1024);
  return h->store;
}

/* The file's key, or for an untitled buffer its copy's, which a restart
 * brings back with the text (SpDocument). */
static char *
history_key (SpWindow *self)
{
  return sp_document_dup_history_key (self->document);
}

static void
on_new_run (SpRunController *runs, SpRunRequest *request, SpWindow *self)
{
  SpWindowHistory *h = self->history;
  const char *code = sp_run_request_get_code (request);
  const char *language = sp_run_request_get_language (request);

  h->recording = TRUE;
  g_free (h->code);
  h->code = g_strdup (code);
  g_free (h->language);
  h->language = g_strdup (language);
  h->started_us = g_get_real_time ();
  g_string_truncate (h->stdout_text, 0);
  g_string_truncate (h->stderr_text, 0);
  h->cut = FALSE;
}

static void
on_output (SpRunController *runs, SpOutputKind kind, const char *text, SpWindow *self)
{
  SpWindowHistory *h = self->history;
  GString *to = kind == SP_OUTPUT_STDERR ? h->stderr_text : h->stdout_text;

  if (!h->recording || (kind != SP_OUTPUT_STDOUT && kind != SP_OUTPUT_STDERR))
    return;
  /* The store keeps the start of each stream; collecting past that would
   * only hold memory. */
  if (to->len < SP_RUN_HISTORY_TEXT_MAX)
    g_string_append (to, text);
  else
    h->cut = TRUE;
}

/* The run's files by name, and its images' bytes while its directory is
 * still there (the next run replaces it). */
static char **
keep_files (SpRunRecord *record, SpRunResult *result)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < sp_run_result_get_n_files (result) && i < 200; i++)
    {
      const SpRunFile *file = sp_run_result_get_file (result, i);
      g_autofree char *size = g_format_size ((guint64) MAX (file->size, 0));
      g_autofree char *line = NULL;
      g_autoptr (GError) error = NULL;

      if (file->kind == SP_RUN_FILE_REGULAR && sp_run_record_is_image_type (file->mime)
          && (file->name == NULL
              || !sp_run_record_keep_image (record, file->relative, file->mime, file->dir,
                                            file->name, &error)))
        {
          g_debug ("not keeping %s: %s", file->relative,
                   error ? error->message : "the runner could not name it");
          /* TRANSLATORS: a file of a run whose image the history does not
           * keep: its name, its size */
          line = g_strdup_printf (_("%s (%s, not kept)"), file->relative, size);
        }
      else
        line = g_strdup_printf ("%s (%s)", file->relative, size);
      g_strv_builder_add (builder, line);
    }
  return g_strv_builder_end (builder);
}

static SpRunRecord *
make_record (SpWindow *self, SpRunResult *result)
{
  SpWindowHistory *h = self->history;
  SpRunRecord *r = sp_run_record_new ();
  SpErrorInfo *error = sp_run_result_get_error_info (result);

  r->time_us = h->started_us;
  r->duration_ms = sp_run_result_get_wall_ms (result);
  r->language = g_strdup (h->language);
  r->code = g_strdup (h->code);
  r->stdout_text = g_strdup (h->stdout_text->str);
  r->stderr_text = g_strdup (h->stderr_text->str);
  r->output_cut = h->cut || sp_run_result_get_truncated (result);
  r->end = sp_run_result_describe (result);
  r->succeeded = sp_run_result_succeeded (result);
  r->exit_code = sp_run_result_get_end (result) == SP_RUN_END_EXITED
                   ? sp_run_result_get_exit_code (result)
                   : -1;
  if (error != NULL)
    r->error = g_strdup_printf ("%s: %s", sp_error_info_get_error_type (error),
                                sp_error_info_get_message (error));
  r->files = keep_files (r, result);
  return r;
}

/* The run is kept and compared with the one before; the status line the
 * window set (the result's summary) gets the comparison after it. */
static void
on_exited (SpRunController *runs, SpRunResult *result, SpWindow *self)
{
  SpWindowHistory *h = self->history;
  g_autofree char *key = history_key (self);
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (SpRunRecord) previous = NULL;
  g_autoptr (SpRunRecord) record = NULL;
  g_autoptr (SpRunComparison) comparison = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *status = NULL;
  g_autofree char *summary = NULL;

  if (!h->recording)
    return;
  h->recording = FALSE;
  record = make_record (self, result);
  previous = sp_run_history_latest (get_store (self), key, warnings);
  if (!sp_run_history_add (get_store (self), key, record, &error))
    {
      /* The run itself is shown as always; only its keeping failed. */
      g_autofree char *msg = g_strdup_printf (_("This run could not be kept in the history: %s"),
                                              error->message);
      _sp_window_toast (self, msg);
    }
  else if (h->window != NULL)
    sp_history_window_add_run (h->window, record);
  if (previous == NULL)
    return;
  comparison = sp_run_record_compare (previous, record);
  line = sp_run_comparison_describe (comparison);
  summary = sp_run_result_describe (result);
  status = g_strdup_printf ("%s — %s", summary, line);
  sp_exec_panel_set_status (self->exec_panel, status, !sp_run_result_succeeded (result));
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
  _sp_window_toast (self, _("The run's code is back in the editor; Undo takes it back"));
}

static SpHistoryWindow *
open_history (SpWindow *self, gboolean changes)
{
  SpWindowHistory *h = self->history;
  g_autofree char *key = history_key (self);
  SpHistoryWindow *window;

  /* One at a time, and up to date: a new list (the file may have another
   * name since), which runs that end are added to while it is open. */
  if (h->window != NULL)
    gtk_window_destroy (GTK_WINDOW (h->window));
  window = sp_history_window_new (GTK_WINDOW (self), get_store (self), key);
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
