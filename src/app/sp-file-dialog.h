/* sp-file-dialog.h: asks for a file to open or save, or a folder, in the
 * file dialog each GTK does best: GtkFileDialog from GTK 4.10 (the portal
 * where there is one), GtkFileChooserNative before (Debian 12's 4.8). Both
 * fall back to a GtkFileChooserDialog where no portal answers, as under
 * Xvfb in the tests. One async call over both, so no caller needs to know
 * which this build has. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum
{
  SP_FILE_DIALOG_OPEN,
  SP_FILE_DIALOG_SAVE,
  SP_FILE_DIALOG_FOLDER,
} SpFileDialogMode;

/* Shows the dialog over PARENT with TITLE and ACCEPT_LABEL (a mnemonic),
 * starting in INITIAL_FOLDER and, when saving, with INITIAL_NAME typed in
 * (either may be NULL). */
void sp_file_dialog_choose_async (GtkWindow *parent, SpFileDialogMode mode, const char *title,
                                  const char *accept_label, GFile *initial_folder,
                                  const char *initial_name, GCancellable *cancellable,
                                  GAsyncReadyCallback callback, gpointer user_data);
/* The file or folder chosen; NULL with G_IO_ERROR_CANCELLED when the
 * person closed the dialog without choosing. */
GFile *sp_file_dialog_choose_finish (GAsyncResult *result, GError **error);

G_END_DECLS
