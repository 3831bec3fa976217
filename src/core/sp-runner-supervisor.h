/* sp-runner-supervisor.h: the app's sandpad-runner, kept alive.
 *
 * Owns one SpRunnerClient at a time and forwards its signals. When the
 * runner crashes, hangs or sends garbage (the client's "closed"), it says
 * so through the "state" property and starts a new client, at most
 * max_restarts times within a window (3 in 10 s by default), then gives
 * up in SP_RUNNER_STATE_FAILED. So the next Run after a crash works.
 * Nothing here blocks the main loop. */
#pragma once

#include <gio/gio.h>

#include "sp-runner-client.h"

G_BEGIN_DECLS

typedef enum
{
  SP_RUNNER_STATE_STOPPED,
  SP_RUNNER_STATE_STARTING,
  SP_RUNNER_STATE_READY,
  SP_RUNNER_STATE_RESTARTING,
  SP_RUNNER_STATE_FAILED,
} SpRunnerState;

GType sp_runner_state_get_type (void) G_GNUC_CONST;
#define SP_TYPE_RUNNER_STATE (sp_runner_state_get_type ())

#define SP_TYPE_RUNNER_SUPERVISOR (sp_runner_supervisor_get_type ())
G_DECLARE_FINAL_TYPE (SpRunnerSupervisor, sp_runner_supervisor, SP, RUNNER_SUPERVISOR, GObject)

SpRunnerSupervisor *sp_runner_supervisor_new (const char *runner_path);

/* Extra arguments for the runner (tests: "--sandbox", "fallback"). */
void sp_runner_supervisor_set_runner_args (SpRunnerSupervisor *self, const char *const *args);
/* Restart budget: at most max_restarts within window_ms (default 3 in 10 s). */
void sp_runner_supervisor_set_restart_limit (SpRunnerSupervisor *self, guint max_restarts,
                                             guint window_ms);
void sp_runner_supervisor_set_handshake_timeout (SpRunnerSupervisor *self, guint timeout_ms);
/* Pause before a restart (default 200 ms), so a crash loop cannot spin. */
void sp_runner_supervisor_set_restart_delay (SpRunnerSupervisor *self, guint delay_ms);

void sp_runner_supervisor_start (SpRunnerSupervisor *self);
/* Closes the runner's socket: it kills its runs and exits. */
void sp_runner_supervisor_stop (SpRunnerSupervisor *self);

SpRunnerState sp_runner_supervisor_get_state (SpRunnerSupervisor *self);
gboolean sp_runner_supervisor_is_ready (SpRunnerSupervisor *self);
/* What the last ready event said; NULL before the first handshake. */
const char *sp_runner_supervisor_get_sandbox_mode (SpRunnerSupervisor *self);
const char *const *sp_runner_supervisor_get_sandbox_layers (SpRunnerSupervisor *self);
/* The layers a run got, from its "started" event (see sp-runner-client.h). */
gboolean sp_runner_supervisor_get_run_sandbox (SpRunnerSupervisor *self, const char *run_id,
                                               const char **mode, const char *const **layers);
const char *const *sp_runner_supervisor_get_languages (SpRunnerSupervisor *self);
/* Why the runner was last lost, for the window to show; NULL if never. */
const char *sp_runner_supervisor_get_last_error (SpRunnerSupervisor *self);
/* The current runner's client; NULL when stopped or failed. */
SpRunnerClient *sp_runner_supervisor_get_client (SpRunnerSupervisor *self);

/* Returns the new run's id, or NULL with error (SP_RUNNER_ERROR_NOT_READY
 * when the runner is not ready). Ids stay unique across restarts. */
char *sp_runner_supervisor_run (SpRunnerSupervisor *self, SpRunRequest *request, GError **error);
/* The same as an SpExecution the current client feeds. */
SpExecution *sp_runner_supervisor_submit (SpRunnerSupervisor *self, SpRunRequest *request,
                                          GError **error);
/* These do nothing when the runner is not ready. */
void sp_runner_supervisor_cancel (SpRunnerSupervisor *self, const char *run_id);
void sp_runner_supervisor_send_stdin (SpRunnerSupervisor *self, const char *run_id,
                                      const char *text, gboolean eof);
void sp_runner_supervisor_release (SpRunnerSupervisor *self, const char *run_id);

/* Signals, forwarded from the current client (see sp-runner-client.h):
 *   "queued"   (const char *run_id, gint64 position)
 *   "started"  (const char *run_id)
 *   "output"   (const char *run_id, SpOutputKind kind, const char *text, gint64 t_ms)
 *              t_ms: when the runner read it, its clock (as SpRunFile's); -1: unknown
 *   "exited"   (const char *run_id, SpRunResult *result)
 *   "released" (const char *run_id)
 *   "error"    (const char *run_id or NULL, const char *code, const char *message)
 *   "closed"   (GError *error)  a runner was lost; a restart may follow
 *   "input-wait" (const char *run_id, gboolean waiting)
 *   "phase"    (const char *run_id, gboolean compiling, gint64 timeout_ms)
 *              a compiled language's compile step, or its program step after
 *              one, starts under its own time limit (SpRunnerClient's)
 */

G_END_DECLS
