/* sp-window.h: a window: the editor beside the execution panel. */
#pragma once

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "sp-app-context.h"
#include "sp-autosave.h"
#include "sp-hidden-bar.h"
#include "sp-packages-dialog.h"
#include "sp-reload-bar.h"

G_BEGIN_DECLS

#define SP_TYPE_WINDOW (sp_window_get_type ())
G_DECLARE_FINAL_TYPE (SpWindow, sp_window, SP, WINDOW, AdwApplicationWindow)

/* A window of app, with what it needs of the application (context); the
 * windows it opens get the same. SpApplication's sp_window_new() gives
 * its own. */
SpWindow *sp_window_new_in (GtkApplication *app, SpAppContext *context);
SpAppContext *sp_window_get_context (SpWindow *self);
void sp_window_load_file (SpWindow *self, GFile *file);
/* A new window for file, shown once the file is read: a file that cannot
 * be opened (not text, unreadable) makes no window, and the message naming
 * it goes to another window of app, or to a dialog of its own. */
void sp_window_open_new_in (GtkApplication *app, SpAppContext *context, GFile *file);

/* The workspace folder (Open Folder…): environments are looked for from
 * the file's folder up to it, and an unsaved buffer uses its own. */
const char *sp_window_get_workspace (SpWindow *self);
void sp_window_set_workspace (SpWindow *self, const char *folder);
/* The Packages dialog for the window's file (win.packages). */
SpPackagesDialog *sp_window_show_packages (SpWindow *self);

/* What the app's session and its restore need of a window (sp-app-session.c):
 * its file, its copy's id, language and split. */
GFile *sp_window_get_file (SpWindow *self);
const char *sp_window_get_autosave_id (SpWindow *self);
const char *sp_window_get_language_name (SpWindow *self);
double sp_window_get_panel_fraction (SpWindow *self);
void sp_window_set_panel_fraction (SpWindow *self, double fraction);

/* Puts an autosaved copy's text in the window, for the file it belongs to
 * (or none), keeps the copy under its id and says so in a bar that offers
 * Discard. */
void sp_window_restore_autosave (SpWindow *self, const SpAutosaveEntry *entry);
/* A message about the autosave folder (files skipped at start). */
void sp_window_show_autosave_notice (SpWindow *self, const char *message);
/* Writes the copy now (as a pause in typing or leaving the window would). */
void sp_window_autosave_now (SpWindow *self);

/* For tests: the pieces a person would look at and type into. */
GtkSourceBuffer *sp_window_get_buffer (SpWindow *self);
GtkWidget *sp_window_get_exec_panel (SpWindow *self);
gboolean sp_window_get_running (SpWindow *self);
/* The bar over a text that holds bidi or zero-width characters. */
SpHiddenBar *sp_window_get_hidden_bar (SpWindow *self);
SpReloadBar *sp_window_get_file_bar (SpWindow *self);
SpReloadBar *sp_window_get_autosave_bar (SpWindow *self);
/* NULL until there was a notice. */
SpReloadBar *sp_window_get_notice_bar (SpWindow *self);
gboolean sp_window_get_run_on_change (SpWindow *self);
/* The Open Recent submenu. */
GMenuModel *sp_window_get_recent_menu (SpWindow *self);

G_END_DECLS
