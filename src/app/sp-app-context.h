/* sp-app-context.h: what a window and the app's session need of the
 * application, handed down to them instead of asked of it: the settings,
 * the runner's supervisor, the lock on the state folder (or why there is
 * none), and a word that the session changed. SpApplication makes one at
 * startup; each window holds it, and gives it to the windows it opens. */
#pragma once

#include <gio/gio.h>

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

G_END_DECLS
