/* sp-runner-client-private.h: what the two files of SpRunnerClient
 * share: sp-runner-client.c (process, handshake, the channel's owner) and
 * sp-runner-client-runs.c (requests, events, the signals). The socket
 * itself is an SpRunnerChannel (sp-runner-channel.c), which knows neither.
 * client.c calls into runs.c, never the other way. */
#pragma once

#include "sp-proto.h"
#include "sp-run-request-private.h"
#include "sp-run-result-private.h"
#include "sp-runner-error-private.h"
#include "sp-runner-channel.h"
#include "sp-runner-client.h"

G_BEGIN_DECLS

typedef enum
{
  CLIENT_NEW,
  CLIENT_STARTING, /* spawned, hello sent, waiting for ready */
  CLIENT_READY,
  CLIENT_CLOSED, /* for good: a client is not restarted */
} ClientPhase;

/* A run this client sent and has not seen the end of. */
typedef struct
{
  gint64 timeout_ms; /* resolved in "started"; for describing the result */
  gint64 memory_mib;
  char *cwd;
  char *name;         /* the run's file name, NULL for the runner's default */
  char *sandbox_mode; /* what "started" said this run got */
  GStrv sandbox_layers;
  gboolean accepted; /* "queued" came: later errors are not a refusal */
  /* An event about it could not be decoded: failed for our callers, its
   * later events dropped, released by us once it has ended. */
  gboolean failed;
  SpExecution *execution; /* NULL unless submitted */
} RunInfo;

enum
{
  SIGNAL_QUEUED,
  SIGNAL_STARTED,
  SIGNAL_OUTPUT,
  SIGNAL_DISPLAY,
  SIGNAL_EXITED,
  SIGNAL_RELEASED,
  SIGNAL_ERROR,
  SIGNAL_CLOSED,
  SIGNAL_INPUT_WAIT,
  SIGNAL_PHASE,
  N_SIGNALS
};

struct _SpRunnerClient
{
  GObject parent_instance;

  char *runner_path;
  GStrv runner_args;
  char *id_prefix;
  guint handshake_timeout_ms;

  ClientPhase phase;
  GSubprocess *process;
  SpRunnerChannel *channel;  /* the socket; NULL before the spawn and once closed */
  GCancellable *cancellable; /* the wait for the process */

  GTask *start_task;
  GCancellable *start_cancellable;
  gulong start_cancelled_id;
  guint handshake_id;
  guint eof_id; /* EOF seen: waiting briefly for the exit status */

  SpMessage ready; /* SP_MSG_READY once the handshake is done */
  GStrv languages;

  GHashTable *runs; /* id → RunInfo */
  guint next_run;
};

/* The signals above, made in the class (sp-runner-client-runs.c). */
void _sp_runner_client_add_signals (GType type);
/* g_signal_emit() for one of the signals above. */
void _sp_runner_client_emit (SpRunnerClient *self, guint which, ...);
/* Queues one encoded line (malloc'd by the protocol library; taken); a
 * client without a channel drops it. */
void _sp_runner_client_send (SpRunnerClient *self, char *line, gsize len);
void _sp_runner_client_dispatch (SpRunnerClient *self, SpMessage *msg);
/* Fails every tracked execution with error and forgets the runs. */
void _sp_runner_client_fail_runs (SpRunnerClient *self, const GError *error);
/* An event naming run `id` that did not decode (perr says why): fails
 * that run alone. FALSE when id names no run of ours. */
gboolean _sp_runner_client_fail_run (SpRunnerClient *self, const char *id,
                                     const SpProtoError *perr);
RunInfo *_sp_runner_client_run_info_new (void);
void _sp_runner_client_run_info_free (gpointer data);

/* The ready event as decoded; NULL before the handshake. */
const SpReady *sp_runner_client_get_ready (SpRunnerClient *self);

G_END_DECLS
