/* sp-window-save.c: the editor's text and the disk: Save, Save As, and
 * the unsaved text's copy.
 *
 * The text goes to disk through sp_safe_save(), so a save that fails (a
 * full disk, a folder the user may not write) leaves the file as it was,
 * and the editor keeps its text, still unsaved. The file must also still
 * hold what the document last knew it to hold: else someone changed it
 * since, and the window asks before overwriting that. SpDocument writes,
 * SpDocumentNotice decides what a failure means to the person; this file
 * asks and tells.
 *
 * The copy: SpDocument keeps the unsaved text in the state folder (a
 * moment after typing stops, and here when the window loses the focus),
 * so a crash or a kill loses nothing. A copy that is left is restored at
 * the next start (sp-app-session.c). A write that fails, a full disk say,
 * is said in the window: the text itself is still in the editor and
 * nothing is removed. When another process owns the state folder
 * (sp-application.c), the document keeps no copy, and the window says so
 * once it has unsaved text. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-alert.h"
#include "sp-document-notice.h"
#include "sp-file-dialog.h"
#include "sp-window-private.h"

/* Failures stay up longer than news: the text is not on disk. */
#define FAILURE_TOAST_S 10

typedef struct
{
  SpWindow *self;
  GFile *file;
  gboolean then_close;
} SaveData;

static void
save_data_free (SaveData *data)
{
  g_clear_object (&data->self);
  g_clear_object (&data->file);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SaveData, save_data_free)

static void
save_data_notify (gpointer data, GClosure *closure)
{
  save_data_free (data);
}

static void write_to (SpWindow *self, GFile *file, gboolean then_close, gboolean overwrite);

static void
on_changed_response (SpAlert *dialog, const char *response, SaveData *data)
{
  if (g_str_equal (response, "overwrite"))
    write_to (data->self, data->file, data->then_close, TRUE);
}

/* Someone else wrote the file since we read or saved it. */
static void
ask_overwrite (SaveData *data, const SpDocumentNotice *notice)
{
  SpAlert *dialog = sp_alert_new (GTK_WINDOW (data->self), notice->title, NULL);

  sp_alert (set_body) (dialog, notice->message);
  sp_alert (add_responses) (dialog, "cancel", _ ("_Cancel"), "overwrite", _ ("_Overwrite"), NULL);
  sp_alert (set_response_appearance) (dialog, "overwrite", ADW_RESPONSE_DESTRUCTIVE);
  sp_alert (set_default_response) (dialog, "cancel");
  sp_alert (set_close_response) (dialog, "cancel");
  g_signal_connect_data (dialog, "response", G_CALLBACK (on_changed_response), data,
                         save_data_notify, 0);
  sp_alert_present (dialog, GTK_WINDOW (data->self));
}

/* The cause, in a toast, with Save As where the notice offers it. */
static void
show_failure (SpWindow *self, const SpDocumentNotice *notice)
{
  AdwToast *toast = adw_toast_new (notice->message);

  adw_toast_set_timeout (toast, FAILURE_TOAST_S);
  if (notice->offer == SP_DOCUMENT_OFFER_SAVE_AS)
    {
      adw_toast_set_button_label (toast, _ ("Save _As…"));
      adw_toast_set_action_name (toast, "win.save-as");
    }
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
save_ready (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SaveData) data = user_data;
  SpWindow *self = data->self;
  g_autoptr (GError) error = NULL;

  if (!sp_document_save_finish (SP_DOCUMENT (source), result, &error))
    {
      g_autoptr (SpDocumentNotice) notice = sp_document_notice_for_save (data->file, error);

      /* The buffer is not touched: its text and unsaved state stay. */
      if (notice->offer == SP_DOCUMENT_OFFER_OVERWRITE)
        ask_overwrite (g_steal_pointer (&data), notice);
      else
        show_failure (self, notice);
      return;
    }
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (self)), FALSE);
  _sp_window_update_title (self);
  if (data->then_close)
    gtk_window_close (GTK_WINDOW (self));
}

/* overwrite: the person said to replace whatever the file holds. */
static void
write_to (SpWindow *self, GFile *file, gboolean then_close, gboolean overwrite)
{
  SaveData *data = g_new0 (SaveData, 1);

  data->self = g_object_ref (self);
  data->file = g_object_ref (file);
  data->then_close = then_close;
  sp_document_save_async (self->document, file, overwrite, NULL, save_ready, data);
}

/* The window whose Save As… dialog is open, and whether it closes after. */
typedef struct
{
  SpWindow *self;
  gboolean then_close;
} SaveAs;

static void
on_save_as_chosen (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SaveAs *save_as = user_data;
  g_autoptr (SpWindow) self = save_as->self;
  gboolean then_close = save_as->then_close;
  g_autoptr (GFile) file = sp_file_dialog_choose_finish (result, NULL);

  g_free (save_as);
  if (file != NULL)
    write_to (self, file, then_close, FALSE);
}

static void
save_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);

  _sp_window_save (self, sp_document_get_file (self->document), FALSE);
}

static void
save_as_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  _sp_window_save (SP_WINDOW (widget), NULL, FALSE);
}

void
_sp_window_install_save_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
}

void
_sp_window_save (SpWindow *self, GFile *file, gboolean then_close)
{
  g_autofree char *suggested = NULL;
  GFile *file_now = sp_document_get_file (self->document);
  g_autoptr (GFile) folder = NULL;
  SaveAs *save_as;

  if (file != NULL)
    {
      write_to (self, file, then_close, FALSE);
      return;
    }
  suggested = _sp_window_file_name_for (self, "snippet");
  /* Beside the snippet, or at home: never the app's working directory. */
  folder = file_now ? g_file_get_parent (file_now) : g_file_new_for_path (g_get_home_dir ());
  save_as = g_new0 (SaveAs, 1);
  save_as->self = g_object_ref (self);
  save_as->then_close = then_close;
  sp_file_dialog_choose_async (GTK_WINDOW (self), SP_FILE_DIALOG_SAVE, _ ("Save Snippet"),
                               _ ("_Save"), folder, suggested, NULL, on_save_as_chosen, save_as);
}

/* ---- the unsaved text's copy ---- */

/* SpDocumentNotice decides what is said and offered; this shows it in
 * the copy's bar. */
static void
on_autosave_status (SpDocument *document, int status, const char *error, SpWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  const char *why_off = NULL;
  g_autoptr (SpDocumentNotice) notice = NULL;

  if (status == SP_DOCUMENT_AUTOSAVE_OFF)
    {
      if (app == NULL)
        return; /* a window being torn down */
      why_off = sp_app_context_get_state_problem (self->context);
    }
  notice = sp_document_notice_for_autosave ((SpDocumentAutosaveStatus) status, error, why_off);
  if (notice->clears != NULL
      && g_strcmp0 (sp_reload_bar_get_kind (self->autosave_bar), notice->clears) == 0)
    sp_reload_bar_hide (self->autosave_bar);
  if (notice->kind == NULL)
    return;
  sp_reload_bar_show (self->autosave_bar, notice->kind, notice->message, TRUE);
  if (notice->offer == SP_DOCUMENT_OFFER_SAVE_AS)
    sp_reload_bar_add_button (self->autosave_bar, "save-as", _ ("Save _As…"), NULL);
}

/* "Untitled 2": the window's place among the app's windows. */
static void
on_prepare_copy (SpDocument *document, SpWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  GList *windows = app != NULL ? gtk_application_get_windows (app) : NULL;
  g_autofree char *name = g_strdup_printf (_ ("Untitled %u"),
                                           g_list_length (windows)
                                             - (guint) MAX (g_list_index (windows, self), 0));

  sp_document_set_untitled_name (document, name);
}

static void
on_buffer_changed (SpWindow *self)
{
  sp_document_text_changed (self->document);
}

static void
on_modified_changed (SpWindow *self)
{
  sp_document_set_modified (self->document, gtk_text_buffer_get_modified (
                                              GTK_TEXT_BUFFER (sp_window_get_buffer (self))));
}

/* The document found the text unsaved (its file went away, say). */
static void
on_document_modified (SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  gboolean modified = sp_document_get_modified (self->document);

  if (gtk_text_buffer_get_modified (buffer) != modified)
    gtk_text_buffer_set_modified (buffer, modified);
}

static void
on_active_changed (SpWindow *self)
{
  if (self->document == NULL)
    return; /* disposed */
  if (!gtk_window_is_active (GTK_WINDOW (self)) && sp_document_get_modified (self->document))
    sp_document_autosave_now (self->document);
}

static void
on_autosave_bar_response (SpReloadBar *bar, const char *response, SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  GFile *file = sp_document_get_file (self->document);

  if (g_str_equal (response, "discard"))
    {
      /* Back to the file as it is on disk, or to an empty scratch buffer;
       * the copy goes. */
      sp_reload_bar_hide (bar);
      if (file != NULL && g_file_query_exists (file, NULL))
        sp_window_load_file (self, file);
      else
        {
          gtk_text_buffer_set_text (buffer, "", 0);
          gtk_text_buffer_set_modified (buffer, FALSE);
        }
      sp_document_autosave_forget (self->document);
    }
  else if (g_str_equal (response, "keep"))
    sp_reload_bar_hide (bar);
  else if (g_str_equal (response, "save-as"))
    gtk_widget_activate_action (GTK_WIDGET (self), "win.save-as", NULL);
}

void
_sp_window_autosave_init (SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));

  g_signal_connect_object (self->autosave_bar, "response", G_CALLBACK (on_autosave_bar_response),
                           self, 0);
  g_signal_connect_object (self->document, "autosave-status", G_CALLBACK (on_autosave_status), self,
                           0);
  g_signal_connect_object (self->document, "prepare-copy", G_CALLBACK (on_prepare_copy), self, 0);
  g_signal_connect_object (self->document, "notify::modified", G_CALLBACK (on_document_modified),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (buffer, "changed", G_CALLBACK (on_buffer_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (buffer, "modified-changed", G_CALLBACK (on_modified_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect (self, "notify::is-active", G_CALLBACK (on_active_changed), NULL);
}

/* Before the view goes: the copy stays for the next start if the text is
 * unsaved and nobody said Discard. */
void
_sp_window_autosave_dispose (SpWindow *self)
{
  if (self->document == NULL || self->source_view == NULL)
    return;
  sp_document_close (self->document, self->close_confirmed);
  /* Tearing the view down changes the buffer: nothing of it may reach
   * the document any more. */
  g_signal_handlers_disconnect_by_func (sp_window_get_buffer (self), on_buffer_changed, self);
  g_signal_handlers_disconnect_by_func (sp_window_get_buffer (self), on_modified_changed, self);
}

void
sp_window_restore_autosave (SpWindow *self, const SpAutosaveEntry *entry)
{
  GtkTextBuffer *buffer;
  g_autofree char *when = NULL;
  g_autofree char *message = NULL;
  g_autoptr (GDateTime) time = NULL;
  GtkTextIter start;

  g_return_if_fail (SP_IS_WINDOW (self));
  buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  if (entry->language != NULL)
    _sp_window_set_language (self, entry->language);
  gtk_text_buffer_begin_irreversible_action (buffer);
  /* The copy holds the file's text (sp_document_text_for_file()). */
  gtk_text_buffer_set_text (buffer, entry->text,
                            (int) sp_document_editor_length (entry->text, entry->length));
  gtk_text_buffer_end_irreversible_action (buffer);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  gtk_text_buffer_set_modified (buffer, TRUE);
  /* The file (and what it holds now), id, language and name; the text is
   * unsaved. */
  sp_document_restore (self->document, entry);
  _sp_window_update_title (self);

  time = g_date_time_new_from_unix_local (entry->time);
  /* Day, month's name and year in the order and words of the person's
   * language, as GNOME's apps write dates: "%x" is the locale's numeric
   * date, "12/05/26" in C.UTF-8, May or December as one reads it. */
  when = time != NULL
           /* Translators: when unsaved text was kept, as g_date_time_format()
            * takes it ("5 December 2026, 14:32"): write the day, month and
            * year in your language's order and words. */
           ? g_date_time_format (time, C_ ("restored text's time", "%-d %B %Y, %H:%M"))
           : g_strdup ("?");
  /* Discard does what it can: an untitled buffer has no file to go back
   * to, and empties. */
  if (entry->path != NULL)
    message = g_strdup_printf (_ ("Unsaved text from %s was restored: Sandpad did not close "
                                  "normally. Save keeps it; Discard goes back to the file."),
                               when);
  else
    message = g_strdup_printf (_ ("Unsaved text from %s was restored: Sandpad did not close "
                                  "normally. Save As keeps it; Discard empties the editor."),
                               when);
  sp_reload_bar_show (self->autosave_bar, "restored", message, FALSE);
  sp_reload_bar_add_button (self->autosave_bar, "keep", _ ("_Keep"), NULL);
  sp_reload_bar_add_button (self->autosave_bar, "discard", _ ("_Discard"),
                            _ ("Throw the restored text away"));
}

void
sp_window_show_autosave_notice (SpWindow *self, const char *message)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  if (self->notice_bar == NULL)
    {
      self->notice_bar = sp_reload_bar_new ();
      sp_page_add_bar (self->page, GTK_WIDGET (self->notice_bar));
      g_signal_connect (self->notice_bar, "response", G_CALLBACK (sp_reload_bar_hide), NULL);
    }
  sp_reload_bar_show (self->notice_bar, "notice", message, TRUE);
  sp_reload_bar_add_button (self->notice_bar, "dismiss", _ ("_Dismiss"), NULL);
}

void
sp_window_autosave_now (SpWindow *self)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  sp_document_autosave_now (self->document);
}
