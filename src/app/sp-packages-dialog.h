/* sp-packages-dialog.h: the Python environment a window's file uses, what
 * it holds, Create Environment, and installs through `sandpad-run
 * --install` under the policy in the settings. */
#pragma once

#include <adwaita.h>

#include "sp-document.h"

G_BEGIN_DECLS

#define SP_TYPE_PACKAGES_DIALOG (sp_packages_dialog_get_type ())
G_DECLARE_FINAL_TYPE (SpPackagesDialog, sp_packages_dialog, SP, PACKAGES_DIALOG, AdwWindow)

/* folder: where the file is (for an unsaved buffer, the workspace), NULL
 * when there is neither; workspace: how far up the search goes (NULL: the
 * folder alone). */
SpPackagesDialog *sp_packages_dialog_new (GtkWindow *parent, GSettings *settings,
                                          const char *folder, const char *workspace);
/* The dialog for document's file (or, unsaved, its workspace); a venv
 * made here tells the document its environment changed, so what the next
 * run gets is shown at once. */
SpPackagesDialog *sp_packages_dialog_new_for_document (GtkWindow *parent, GSettings *settings,
                                                       SpDocument *document);

/* For tests: what a person reads in the dialog. */
const char *sp_packages_dialog_get_environment (SpPackagesDialog *self);
GStrv sp_packages_dialog_get_packages (SpPackagesDialog *self);
gboolean sp_packages_dialog_get_busy (SpPackagesDialog *self);
char *sp_packages_dialog_get_output (SpPackagesDialog *self);
/* Where installs take packages from, in words (for tests). */
const char *sp_packages_dialog_get_sources (SpPackagesDialog *self);
const char *sp_packages_dialog_get_result (SpPackagesDialog *self);

G_END_DECLS
