/* sp-application.h: the application: settings, the runner, windows. */
#pragma once

#include <adwaita.h>

#include "sp-app-context.h"
#include "sp-runner-supervisor.h"
#include "sp-stall-meter.h"
#include "sp-state-lock.h"
#include "sp-window.h"

G_BEGIN_DECLS

#define SP_TYPE_APPLICATION (sp_application_get_type ())
G_DECLARE_FINAL_TYPE (SpApplication, sp_application, SP, APPLICATION, AdwApplication)

SpApplication *sp_application_new (void);
GSettings *sp_application_get_settings (SpApplication *self);
SpRunnerSupervisor *sp_application_get_supervisor (SpApplication *self);
/* The main loop's stall meter, when SANDPAD_STALL_LOG names a log file
 * (see README); else NULL. */
SpStallMeter *sp_application_get_stall_meter (SpApplication *self);
/* The lock on the state folder (autosave copies, session), taken at
 * startup; NULL when another process holds it, and then the problem
 * says so ("... is in use by another Sandpad (process N)"). */
SpStateLock *sp_application_get_state_lock (SpApplication *self);
const char *sp_application_get_state_problem (SpApplication *self);
/* What its windows and session are handed of it; NULL before startup. */
SpAppContext *sp_application_get_context (SpApplication *self);

/* A window of the application (sp_window_new_in() with its context). */
static inline SpWindow *
sp_window_new (SpApplication *app)
{
  return sp_window_new_in (GTK_APPLICATION (app), sp_application_get_context (app));
}

/* A new window of the application for file (sp_window_open_new_in()). */
static inline void
sp_window_open_new (SpApplication *app, GFile *file)
{
  sp_window_open_new_in (GTK_APPLICATION (app), sp_application_get_context (app), file);
}

G_END_DECLS
