/* sp-window-packages.c: Open Folder… (the document's workspace) and the
 * Packages dialog. The workspace bounds the search for an environment:
 * from the file's folder up to it; an unsaved buffer uses the
 * workspace's own (SpDocument finds it). */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-file-dialog.h"
#include "sp-packages-dialog.h"
#include "sp-window-private.h"

const char *
sp_window_get_workspace (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return sp_document_get_workspace (self->document);
}

void
sp_window_set_workspace (SpWindow *self, const char *folder)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  sp_document_set_workspace (self->document, folder);
}

static void
on_folder_chosen (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpWindow) self = user_data;
  g_autoptr (GFile) folder = sp_file_dialog_choose_finish (result, NULL);
  g_autofree char *path = folder != NULL ? g_file_get_path (folder) : NULL;

  if (path != NULL)
    {
      /* TRANSLATORS: %s is the folder just opened */
      g_autofree char *message = g_strdup_printf (_ ("Workspace: %s"), path);
      sp_window_set_workspace (self, path);
      _sp_window_toast (self, message);
    }
}

static void
open_folder_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  sp_file_dialog_choose_async (GTK_WINDOW (widget), SP_FILE_DIALOG_FOLDER, _ ("Open Folder"),
                               _ ("_Open"), NULL, NULL, NULL, on_folder_chosen,
                               g_object_ref (widget));
}

SpPackagesDialog *
sp_window_show_packages (SpWindow *self)
{
  g_autofree char *folder = NULL;
  SpPackagesDialog *dialog;

  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  folder = sp_document_dup_folder (self->document);
  dialog = sp_packages_dialog_new (GTK_WINDOW (self), self->settings, folder,
                                   sp_document_get_workspace (self->document));
  /* A new venv changes what the next run gets: the card says so now. */
  g_signal_connect_object (dialog, "environment-changed",
                           G_CALLBACK (sp_document_environment_changed), self->document,
                           G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
  return dialog;
}

static void
packages_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  sp_window_show_packages (SP_WINDOW (widget));
}

void
_sp_window_install_packages_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.packages", NULL, packages_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, open_folder_action);
}
