/* sp-runner-client.h: one sandpad-runner process and its connection.
 *
 * Spawns the runner with one end of a socketpair as its fd 3 (own session,
 * parent-death signal), does the hello/ready handshake with a timeout, and
 * turns the runner's events into signals. Reads and writes are
 * asynchronous on the main context; nothing here blocks the main loop.
 *
 * A client lives once: when the runner exits, crashes, closes its socket,
 * stalls the handshake or sends a frame that does not decode, the client
 * kills it, fails the executions it tracked, and emits "closed". Starting
 * over is SpRunnerSupervisor's job.
 *
 * Pending I/O holds a reference: call sp_runner_client_stop() before
 * dropping the last one (SpRunnerSupervisor does).
 *
 * Signals (run ids are the ones sp_runner_client_run() returned):
 *   "queued"   (const char *run_id, gint64 position)
 *   "started"  (const char *run_id)
 *   "output"   (const char *run_id, SpOutputKind kind, const char *text, gint64 t_ms)
 *              t_ms: when the runner read it, its clock (as SpRunFile's); -1: unknown
 *                kind is SP_OUTPUT_STDOUT or SP_OUTPUT_STDERR
 *   "exited"   (const char *run_id, SpRunResult *result)
 *   "released" (const char *run_id)
 *   "error"    (const char *run_id or NULL, const char *code, const char *message)
 *                the runner refused a request; code is the protocol's
 *                ("unknown_run"), see sp_runner_error_from_string()
 *   "closed"   (GError *error)  the runner is gone, unasked (SP_RUNNER_ERROR)
 *   "input-wait" (const char *run_id, gboolean waiting)
 *                the program is blocked reading its stdin (TRUE), or no
 *                longer is; the runner's input_wait, read from the kernel
 *   "phase"    (const char *run_id, gboolean compiling, gint64 timeout_ms)
 *                a compiled language's compile step starts (TRUE), or its
 *                program step after it (FALSE); timeout_ms is that step's
 *                own time limit (the runner's phase event)
 */
#pragma once

#include <gio/gio.h>

#include "sp-data-table.h"

#include "sp-execution.h"
#include "sp-output-item.h"
#include "sp-run-request.h"
#include "sp-run-result.h"
#include "sp-runner-error.h"

G_BEGIN_DECLS

#define SP_RUNNER_CLIENT_DEFAULT_HANDSHAKE_TIMEOUT_MS 5000

#define SP_TYPE_RUNNER_CLIENT (sp_runner_client_get_type ())
G_DECLARE_FINAL_TYPE (SpRunnerClient, sp_runner_client, SP, RUNNER_CLIENT, GObject)

SpRunnerClient *sp_runner_client_new (const char *runner_path);

/* Before starting: extra runner arguments ("--sandbox", "fallback"), the
 * handshake timeout, and a prefix for the run ids this client makes (so
 * ids stay unique across runners, "2-" gives "2-r1"). */
void sp_runner_client_set_runner_args (SpRunnerClient *self, const char *const *args);
void sp_runner_client_set_handshake_timeout (SpRunnerClient *self, guint timeout_ms);
guint sp_runner_client_get_handshake_timeout (SpRunnerClient *self);
void sp_runner_client_set_id_prefix (SpRunnerClient *self, const char *prefix);

/* Spawns the runner, says hello and waits for ready. Fails with
 * SP_RUNNER_ERROR_SPAWN, _TIMEOUT, _CLOSED or a protocol code (the
 * runner sent garbage), or G_IO_ERROR_CANCELLED when stopped or
 * cancelled meanwhile (cancelling stops the client). */
void sp_runner_client_start_async (SpRunnerClient *self, GCancellable *cancellable,
                                   GAsyncReadyCallback callback, gpointer user_data);
gboolean sp_runner_client_start_finish (SpRunnerClient *self, GAsyncResult *result, GError **error);

/* Closes the socket: the runner kills its runs and exits (and is killed if
 * it is still there a few seconds later). Tracked executions fail. No
 * "closed" signal: this close was asked for. */
void sp_runner_client_stop (SpRunnerClient *self);

/* The handshake completed and the connection is still up. */
gboolean sp_runner_client_is_ready (SpRunnerClient *self);
/* The runner's process id as a string while it runs, else NULL. */
const char *sp_runner_client_get_identifier (SpRunnerClient *self);

/* What the ready event said; NULL (or FALSE) before the handshake. */
const char *sp_runner_client_get_runner_version (SpRunnerClient *self);
/* The languages the runner can run, in its order ("python", ...). */
const char *const *sp_runner_client_get_languages (SpRunnerClient *self);
/* A language's interpreter version, and the file name extensions the
 * runner gives it ("py"; the first is the usual one); NULL if unknown. */
const char *sp_runner_client_get_language_version (SpRunnerClient *self, const char *name);
const char *const *sp_runner_client_get_language_extensions (SpRunnerClient *self,
                                                             const char *name);
/* The language a file of this name is written in, by its extension, the
 * way the runner itself decides ("notes.sh" → "bash"); NULL if none. */
const char *sp_runner_client_language_for_file (SpRunnerClient *self, const char *file_name);
const char *sp_runner_client_get_sandbox_mode (SpRunnerClient *self);
const char *const *sp_runner_client_get_sandbox_layers (SpRunnerClient *self);
/* What "started" said a run got; FALSE before it started or once the
 * client forgot the run. */
gboolean sp_runner_client_get_run_sandbox (SpRunnerClient *self, const char *run_id,
                                           const char **mode, const char *const **layers);
/* name: "timeout_ms", "memory_mib" or "output_limit". */
gboolean sp_runner_client_get_limit (SpRunnerClient *self, const char *name, gint64 *default_value,
                                     gint64 *max_value);
gint64 sp_runner_client_get_max_concurrent (SpRunnerClient *self);

/* Sends a run; returns its new id (free it), or NULL with
 * SP_RUNNER_ERROR_NOT_READY or _INVALID_VALUE. Events follow as signals. */
char *sp_runner_client_run (SpRunnerClient *self, SpRunRequest *request, GError **error);
/* The same, and the client feeds the returned execution from the events
 * of its run until it finishes (or fails when the runner is lost). */
SpExecution *sp_runner_client_submit (SpRunnerClient *self, SpRunRequest *request, GError **error);
gboolean sp_runner_client_cancel (SpRunnerClient *self, const char *run_id, GError **error);
/* text may be NULL when eof is TRUE. */
gboolean sp_runner_client_send_stdin (SpRunnerClient *self, const char *run_id, const char *text,
                                      gboolean eof, GError **error);
gboolean sp_runner_client_release (SpRunnerClient *self, const char *run_id, GError **error);
/* Ends a session's interpreter (session_restart: the next run starts a
 * new one; session_close: and forgets it). */
gboolean sp_runner_client_end_session (SpRunnerClient *self, const char *session, gboolean restart,
                                       GError **error);

G_END_DECLS
