/* sp-window-restore.h: what the app's session and restore code needs of a
 * window, and what tests look at: its file, its autosave copy, the text
 * restored from one, and the bars that speak about them. */
#pragma once

#include "sp-autosave.h"
#include "sp-reload-bar.h"
#include "sp-window.h"

G_BEGIN_DECLS

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

SpReloadBar *sp_window_get_file_bar (SpWindow *self);
SpReloadBar *sp_window_get_autosave_bar (SpWindow *self);
/* NULL until there was a notice. */
SpReloadBar *sp_window_get_notice_bar (SpWindow *self);
gboolean sp_window_get_run_on_change (SpWindow *self);
/* The Open Recent submenu. */
GMenuModel *sp_window_get_recent_menu (SpWindow *self);

G_END_DECLS
