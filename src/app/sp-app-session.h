/* sp-app-session.h: the app's open windows, kept across starts, and the
 * unsaved text of a start that did not end normally.
 *
 * The session (sp-session-store.c) is written whenever the set of windows
 * or a window's file changes, so it holds after a crash too; closing the
 * last window (the app ending) keeps it. At start, restore brings back
 * each window of the session (its file, and its unsaved text from the
 * autosave folder) and every other copy left in that folder, and says in
 * the first window which files it had to skip. */
#pragma once

#include <gtk/gtk.h>

#include "sp-app-context.h"

G_BEGIN_DECLS

/* Connects to the app's windows and to context's "session-changed"; once,
 * at startup. The windows it restores get context. */
void sp_app_session_attach (GtkApplication *app, SpAppContext *context);

/* Writes the session now (a window's file changed). */
void sp_app_session_save (GtkApplication *app);

/* Closing every window from here on is the app ending: keep the session. */
void sp_app_session_freeze (GtkApplication *app);

/* The window that shows file, if one does (a restored session may
 * already show a file named on the command line). */
GtkWindow *sp_app_session_find_window (GtkApplication *app, GFile *file);

/* Restores the last session's windows (once per process); returns the
 * first, or NULL when there was nothing to restore. */
GtkWindow *sp_app_session_restore (GtkApplication *app);

G_END_DECLS
