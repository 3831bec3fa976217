/* sp-file-dialog.c: GtkFileDialog or GtkFileChooserNative behind one async
 * call. Either way the dialog is not modal, as Sandpad's choosers always
 * were: the window stays usable while it is open. A dismissed dialog is
 * G_IO_ERROR_CANCELLED, the error callers already ignore. */
#define G_LOG_DOMAIN "sp-file-dialog"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-file-dialog.h"

#if GTK_CHECK_VERSION(4, 10, 0)

static void
on_dialog_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GtkFileDialog *dialog = GTK_FILE_DIALOG (source);
  g_autoptr (GError) error = NULL;
  GFile *file = NULL;

  switch ((SpFileDialogMode) GPOINTER_TO_INT (g_task_get_task_data (task)))
    {
    case SP_FILE_DIALOG_OPEN:
      file = gtk_file_dialog_open_finish (dialog, result, &error);
      break;
    case SP_FILE_DIALOG_SAVE:
      file = gtk_file_dialog_save_finish (dialog, result, &error);
      break;
    case SP_FILE_DIALOG_FOLDER:
      file = gtk_file_dialog_select_folder_finish (dialog, result, &error);
      break;
    default:
      g_assert_not_reached ();
    }
  if (file != NULL)
    g_task_return_pointer (task, file, g_object_unref);
  else if (g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_DISMISSED)
           || g_error_matches (error, GTK_DIALOG_ERROR, GTK_DIALOG_ERROR_CANCELLED))
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", error->message);
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static void
show (GTask *task, GtkWindow *parent, SpFileDialogMode mode, const char *title,
      const char *accept_label, GFile *initial_folder, const char *initial_name,
      GCancellable *cancellable)
{
  g_autoptr (GtkFileDialog) dialog = gtk_file_dialog_new ();

  gtk_file_dialog_set_title (dialog, title);
  gtk_file_dialog_set_accept_label (dialog, accept_label);
  gtk_file_dialog_set_modal (dialog, FALSE);
  if (initial_folder != NULL)
    gtk_file_dialog_set_initial_folder (dialog, initial_folder);
  if (initial_name != NULL)
    gtk_file_dialog_set_initial_name (dialog, initial_name);
  switch (mode)
    {
    case SP_FILE_DIALOG_OPEN:
      gtk_file_dialog_open (dialog, parent, cancellable, on_dialog_done, g_object_ref (task));
      break;
    case SP_FILE_DIALOG_SAVE:
      gtk_file_dialog_save (dialog, parent, cancellable, on_dialog_done, g_object_ref (task));
      break;
    case SP_FILE_DIALOG_FOLDER:
      gtk_file_dialog_select_folder (dialog, parent, cancellable, on_dialog_done,
                                     g_object_ref (task));
      break;
    default:
      g_assert_not_reached ();
    }
}

#else /* GTK before 4.10: GtkFileChooserNative */

static void
on_response (GtkNativeDialog *native, int response, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));
  /* The task holds the chooser until it is done with it. */
  g_object_set_data (G_OBJECT (task), "sp-chooser", NULL);
  if (file != NULL)
    g_task_return_pointer (task, g_steal_pointer (&file), g_object_unref);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "The file dialog was closed");
}

static void
show (GTask *task, GtkWindow *parent, SpFileDialogMode mode, const char *title,
      const char *accept_label, GFile *initial_folder, const char *initial_name,
      GCancellable *cancellable)
{
  static const GtkFileChooserAction actions[] = {
    [SP_FILE_DIALOG_OPEN] = GTK_FILE_CHOOSER_ACTION_OPEN,
    [SP_FILE_DIALOG_SAVE] = GTK_FILE_CHOOSER_ACTION_SAVE,
    [SP_FILE_DIALOG_FOLDER] = GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
  };
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (title, parent, actions[mode],
                                                               accept_label, _ ("_Cancel"));

  (void) cancellable; /* never cancelled here; GTK 4.10's dialog takes it */
  if (initial_folder != NULL)
    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), initial_folder, NULL);
  if (initial_name != NULL && mode == SP_FILE_DIALOG_SAVE)
    gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), initial_name);
  g_object_set_data_full (G_OBJECT (task), "sp-chooser", chooser, g_object_unref);
  g_signal_connect (chooser, "response", G_CALLBACK (on_response), g_object_ref (task));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

#endif

void
sp_file_dialog_choose_async (GtkWindow *parent, SpFileDialogMode mode, const char *title,
                             const char *accept_label, GFile *initial_folder,
                             const char *initial_name, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (parent == NULL || GTK_IS_WINDOW (parent));
  g_return_if_fail (mode >= SP_FILE_DIALOG_OPEN && mode <= SP_FILE_DIALOG_FOLDER);
  g_return_if_fail (initial_folder == NULL || G_IS_FILE (initial_folder));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, sp_file_dialog_choose_async);
  g_task_set_task_data (task, GINT_TO_POINTER (mode), NULL);
  show (task, parent, mode, title, accept_label, initial_folder, initial_name, cancellable);
}

GFile *
sp_file_dialog_choose_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
