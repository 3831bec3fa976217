/* sp-app-context.h: what a window and the app's session need of the
 * application, handed down to them instead of asked of it: the settings,
 * the runner's supervisor, the lock on the state folder (or why there is
 * none), and a word that the session changed. SpApplication makes one at
 * startup; each window holds it, and gives it to the windows it opens. */
#pragma once

#include <gtk/gtk.h>

#include "sp-runner-supervisor.h"
#include "sp-state-lock.h"

G_BEGIN_DECLS

#define SP_TYPE_APP_CONTEXT (sp_app_context_get_type ())
G_DECLARE_FINAL_TYPE (SpAppContext, sp_app_context, SP, APP_CONTEXT, GObject)

/* lock NULL when another process holds the state folder; problem then
 * says so. */
SpAppContext *sp_app_context_new (GSettings *settings, SpRunnerSupervisor *supervisor,
                                  SpStateLock *lock, const char *problem);
GSettings *sp_app_context_get_settings (SpAppContext *self);
SpRunnerSupervisor *sp_app_context_get_supervisor (SpAppContext *self);
SpStateLock *sp_app_context_get_state_lock (SpAppContext *self);
const char *sp_app_context_get_state_problem (SpAppContext *self);
/* A window's file changed: "session-changed" tells whoever keeps the
 * session (sp-app-session.c) to write it. */
void sp_app_context_session_changed (SpAppContext *self);

/* The one factory of windows: the session's restore, New Window and a
 * file opened in a window of its own make theirs through it, so none of
 * them calls the window's constructor (sp-application.c sets it to
 * sp_window_new_in). Returns the window, an SpWindow. */
typedef GtkWindow *(*SpAppWindowFactory) (GtkApplication *app, SpAppContext *context);
void sp_app_context_set_window_factory (SpAppContext *self, SpAppWindowFactory factory);
GtkWindow *sp_app_context_new_window (SpAppContext *self, GtkApplication *app);

G_END_DECLS
