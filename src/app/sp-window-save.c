/* sp-window-save.c: Save and Save As.
 *
 * The text goes to disk through sp_safe_save(), so a save that fails (a
 * full disk, a folder the user may not write) leaves the file as it was,
 * and the editor keeps its text, still unsaved. The file must also still
 * hold what the document last knew it to hold: else someone changed it
 * since, and the window asks before overwriting that. SpDocument writes;
 * this file asks and tells. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-alert.h"
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
ask_overwrite (SaveData *data)
{
  g_autofree char *name = g_file_get_basename (data->file);
  SpAlert *dialog = sp_alert_new (GTK_WINDOW (data->self), _ ("File Changed on Disk"), NULL);

  sp_alert (format_body) (
    dialog,
    _ ("“%s” changed on disk since it was opened or saved here. Overwrite replaces those "
       "changes with the editor's text."),
    name);
  sp_alert (add_responses) (dialog, "cancel", _ ("_Cancel"), "overwrite", _ ("_Overwrite"), NULL);
  sp_alert (set_response_appearance) (dialog, "overwrite", ADW_RESPONSE_DESTRUCTIVE);
  sp_alert (set_default_response) (dialog, "cancel");
  sp_alert (set_close_response) (dialog, "cancel");
  g_signal_connect_data (dialog, "response", G_CALLBACK (on_changed_response), data,
                         save_data_notify, 0);
  sp_alert_present (dialog, GTK_WINDOW (data->self));
}

/* The cause, in a toast; where the folder or file cannot be written,
 * with Save As for somewhere that can. */
static void
show_failure (SpWindow *self, const GError *error)
{
  g_autofree char *message = g_strdup_printf (_ ("Not saved: %s"), error->message);
  AdwToast *toast = adw_toast_new (message);

  adw_toast_set_timeout (toast, FAILURE_TOAST_S);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED)
      || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY))
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
      /* The buffer is not touched: its text and unsaved state stay. */
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG))
        ask_overwrite (g_steal_pointer (&data));
      else
        show_failure (self, error);
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
