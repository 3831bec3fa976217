/* sp-window-packages.c: a window's workspace folder (Open Folder…) and its
 * Packages dialog. The workspace bounds the search for an environment:
 * from the file's folder up to it; an unsaved buffer uses the
 * workspace's own. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-environment.h"
#include "sp-packages-dialog.h"
#include "sp-window-private.h"

/* The folder a run of this window's text belongs to: the saved file's,
 * else the workspace (NULL: neither). */
char *
_sp_window_folder (SpWindow *self)
{
  g_autoptr (GFile) parent = self->file ? g_file_get_parent (self->file) : NULL;

  if (parent != NULL)
    return g_file_get_path (parent);
  return g_strdup (self->workspace);
}

/* The environment a run of this window gets, for its language: looked for
 * from the folder up to the workspace (the folder alone without one). */
char *
_sp_window_environment (SpWindow *self)
{
  g_autofree char *dir = _sp_window_folder (self);

  if (dir == NULL)
    return NULL;
  return sp_environment_find (_sp_window_get_language (self), dir,
                              self->workspace != NULL ? self->workspace : dir);
}

const char *
sp_window_get_workspace (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return self->workspace;
}

void
sp_window_set_workspace (SpWindow *self, const char *folder)
{
  g_autofree char *canonical = NULL;

  g_return_if_fail (SP_IS_WINDOW (self));
  canonical = folder != NULL ? g_canonicalize_filename (folder, NULL) : NULL;
  if (g_strcmp0 (canonical, self->workspace) == 0)
    return;
  g_free (self->workspace);
  self->workspace = g_steal_pointer (&canonical);
  _sp_window_update_policy (self);
}

static void
on_folder_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  g_autoptr (SpWindow) self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = folder != NULL ? g_file_get_path (folder) : NULL;

      if (path != NULL)
        {
          /* TRANSLATORS: %s is the folder just opened */
          g_autofree char *message = g_strdup_printf (_("Workspace: %s"), path);
          sp_window_set_workspace (self, path);
          _sp_window_toast (self, message);
        }
    }
  g_object_unref (dialog);
}

static void
open_folder_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (
    _("Open Folder"), GTK_WINDOW (widget), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Open"),
    _("_Cancel"));

  g_signal_connect (chooser, "response", G_CALLBACK (on_folder_response), g_object_ref (widget));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

SpPackagesDialog *
sp_window_show_packages (SpWindow *self)
{
  g_autofree char *folder = NULL;
  SpPackagesDialog *dialog;

  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  folder = _sp_window_folder (self);
  dialog = sp_packages_dialog_new (GTK_WINDOW (self), self->settings, folder, self->workspace);
  /* A new venv changes what the next run gets: the card says so now. */
  g_signal_connect_object (dialog, "environment-changed", G_CALLBACK (_sp_window_update_policy),
                           self, G_CONNECT_SWAPPED);
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
