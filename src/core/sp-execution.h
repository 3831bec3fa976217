/* sp-execution.h: one run of a snippet, as the app follows it.
 *
 * (Not "SpRun": that name is the protocol's run message, sp-proto.h.)
 * An execution is what SpRunnerClient hands back for a submitted request:
 * its id and language, where it is in its life (queued, running, exited,
 * failed), its result once it exited, how long it has run, and its output
 * as an SpOutputModel the panel can show directly. The client feeds it;
 * the app only reads it and watches notify::state. */
#pragma once

#include <gio/gio.h>

#include "sp-output-model.h"
#include "sp-run-result.h"

G_BEGIN_DECLS

typedef enum
{
  SP_EXECUTION_QUEUED,  /* submitted; waiting for a free slot */
  SP_EXECUTION_RUNNING, /* the program was started */
  SP_EXECUTION_EXITED,  /* it ended; see the result */
  SP_EXECUTION_FAILED,  /* refused, never ran, or the runner was lost; see the error */
} SpExecutionState;

GType sp_execution_state_get_type (void) G_GNUC_CONST;
#define SP_TYPE_EXECUTION_STATE (sp_execution_state_get_type ())

#define SP_TYPE_EXECUTION (sp_execution_get_type ())
G_DECLARE_FINAL_TYPE (SpExecution, sp_execution, SP, EXECUTION, GObject)

SpExecution *sp_execution_new (const char *id, const char *language);

const char *sp_execution_get_id (SpExecution *self);
const char *sp_execution_get_language (SpExecution *self);
SpExecutionState sp_execution_get_state (SpExecution *self);
/* Exited or failed: no further event will change it. */
gboolean sp_execution_is_finished (SpExecution *self);
/* NULL until the run exited. */
SpRunResult *sp_execution_get_result (SpExecution *self);
/* Why it failed, NULL unless SP_EXECUTION_FAILED. */
const GError *sp_execution_get_error (SpExecution *self);
/* The host directory it runs in, from its started event; NULL before. */
const char *sp_execution_get_cwd (SpExecution *self);
/* The program's output, owned by the execution. */
SpOutputModel *sp_execution_get_output (SpExecution *self);
/* Milliseconds since it started, frozen when it finished; 0 before it
 * started. Measured here, so it includes the trip through the runner. */
gint64 sp_execution_get_elapsed_ms (SpExecution *self);

/* Only SpRunnerClient feeds an execution, from the runner's events. */
void _sp_execution_set_started (SpExecution *self, const char *cwd);
void _sp_execution_append_output (SpExecution *self, SpOutputKind kind, const char *text,
                                  gint64 t_ms);
void _sp_execution_set_exited (SpExecution *self, SpRunResult *result);
void _sp_execution_set_failed (SpExecution *self, const GError *error);

G_END_DECLS
