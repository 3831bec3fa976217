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

#include "sp-application.h"

G_BEGIN_DECLS

/* Connects to the app's windows; once, at startup. */
void sp_app_session_attach (SpApplication *app);

/* Writes the session now (a window's file changed). */
void sp_app_session_save (GtkApplication *app);

/* Closing every window from here on is the app ending: keep the session. */
void sp_app_session_freeze (GtkApplication *app);

/* Restores the last session's windows (once per process); returns the
 * first, or NULL when there was nothing to restore. */
GtkWindow *sp_app_session_restore (SpApplication *app);

G_END_DECLS
