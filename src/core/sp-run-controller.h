/* sp-run-controller.h: one window's runs, without the window.
 *
 * The run shown (its id, its output model, the stderr kept to find an
 * error in, how it started), whether a program is running and whether it
 * seems to wait for input, and "Keep state between runs" (a runner
 * session of its own). The view starts, stops and feeds runs through it
 * and shows what it says; GLib only, so tests drive it without a
 * display. */
#pragma once

#include <gio/gio.h>

#include "sp-output-model.h"
#include "sp-run-request.h"
#include "sp-run-result.h"
#include "sp-runner-supervisor.h"

G_BEGIN_DECLS

#define SP_TYPE_RUN_CONTROLLER (sp_run_controller_get_type ())
G_DECLARE_FINAL_TYPE (SpRunController, sp_run_controller, SP, RUN_CONTROLLER, GObject)

SpRunController *sp_run_controller_new (SpRunnerSupervisor *supervisor);

SpRunnerSupervisor *sp_run_controller_get_supervisor (SpRunController *self);

/* Starts request (with the session when state is kept and it is
 * Python's); the last run lets its files go. On success there is a new
 * output model ("output") and the controller is "running". */
gboolean sp_run_controller_start (SpRunController *self, SpRunRequest *request, GError **error);
/* Cancels the running program. */
void sp_run_controller_stop (SpRunController *self);
/* The run shown ended and its files are not wanted any more. */
void sp_run_controller_release (SpRunController *self);
/* Sends a line (a newline is added) to the running program and echoes
 * it into the output; FALSE when nothing runs. */
gboolean sp_run_controller_send_input (SpRunController *self, const char *line);

const char *sp_run_controller_get_run_id (SpRunController *self);
SpOutputModel *sp_run_controller_get_output (SpRunController *self);
gboolean sp_run_controller_get_running (SpRunController *self);
/* The runner says the program is blocked reading its stdin (input_wait). */
gboolean sp_run_controller_get_waiting (SpRunController *self);
/* A compiled language's compile step is under way ("compiling"; the
 * runner's phase event): the run's own time limit has not started, the
 * compile step's (timeout in ms) has. FALSE once the program runs. */
gboolean sp_run_controller_get_compiling (SpRunController *self);
gint64 sp_run_controller_get_compile_timeout_ms (SpRunController *self);
/* The run's stderr, bounded, to find its error in when it ends. */
const char *sp_run_controller_get_stderr (SpRunController *self);
/* "warm start", "cold start[: why]" for the last run that ended; NULL
 * before one. */
const char *sp_run_controller_get_run_start (SpRunController *self);

/* Keep state between runs: Python runs share a session of their own, and
 * R runs another. The session id is Python's; R's adds "-r". */
gboolean sp_run_controller_get_keep_state (SpRunController *self);
void sp_run_controller_set_keep_state (SpRunController *self, gboolean keep);
const char *sp_run_controller_get_session_id (SpRunController *self);
/* Forgets the session's state: the next run starts with nothing. */
void sp_run_controller_restart_session (SpRunController *self);

G_END_DECLS
