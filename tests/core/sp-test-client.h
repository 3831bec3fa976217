/* sp-test-client.h: records what an SpRunnerClient or SpRunnerSupervisor
 * says (they emit the same signals), starts clients and waits for them,
 * for the core tests. */
#pragma once

#include <glib/gstdio.h>
#include <signal.h>

#include "sp-runner-supervisor.h"
#include "sp-test-wait.h"

/* Everything one run id got, in order ("qsoe" + "r": queued, started,
 * output, exited, released; "!" for an error event). */
typedef struct
{
  GString *events;
  GString *out;
  GString *err;
  SpRunResult *result;
  char *error_code;
  guint n_exited;
} RunLog;

typedef struct
{
  GObject *emitter;
  GHashTable *runs; /* id → RunLog */
  GError *closed;   /* the last "closed" */
  guint n_closed;
} Recorder;

static inline void
run_log_free (gpointer data)
{
  RunLog *log = data;

  g_string_free (log->events, TRUE);
  g_string_free (log->out, TRUE);
  g_string_free (log->err, TRUE);
  g_clear_pointer (&log->result, sp_run_result_unref);
  g_free (log->error_code);
  g_free (log);
}

static inline RunLog *
recorder_log (Recorder *rec, const char *id)
{
  RunLog *log = g_hash_table_lookup (rec->runs, id);

  if (log == NULL)
    {
      log = g_new0 (RunLog, 1);
      log->events = g_string_new (NULL);
      log->out = g_string_new (NULL);
      log->err = g_string_new (NULL);
      g_hash_table_insert (rec->runs, g_strdup (id), log);
    }
  return log;
}

static inline void
rec_queued (GObject *o, const char *id, gint64 position, Recorder *rec)
{
  g_assert_cmpint (position, >=, 0);
  g_string_append_c (recorder_log (rec, id)->events, 'q');
}

static inline void
rec_started (GObject *o, const char *id, Recorder *rec)
{
  g_string_append_c (recorder_log (rec, id)->events, 's');
}

static inline void
rec_output (GObject *o, const char *id, SpOutputKind kind, const char *text, gint64 t_ms,
            Recorder *rec)
{
  RunLog *log = recorder_log (rec, id);

  g_assert_true (kind == SP_OUTPUT_STDOUT || kind == SP_OUTPUT_STDERR);
  /* One letter per stream change, not per chunk: floods stay readable. */
  if (log->events->len == 0 || log->events->str[log->events->len - 1] != 'o')
    g_string_append_c (log->events, 'o');
  g_string_append (kind == SP_OUTPUT_STDERR ? log->err : log->out, text);
}

static inline void
rec_exited (GObject *o, const char *id, SpRunResult *result, Recorder *rec)
{
  RunLog *log = recorder_log (rec, id);

  g_string_append_c (log->events, 'e');
  log->n_exited++;
  g_clear_pointer (&log->result, sp_run_result_unref);
  log->result = sp_run_result_ref (result);
}

/* 'W': the program waits for input; 'w': it no longer does. */
static inline void
rec_input_wait (GObject *o, const char *id, gboolean waiting, Recorder *rec)
{
  g_string_append_c (recorder_log (rec, id)->events, waiting ? 'W' : 'w');
}

static inline void
rec_released (GObject *o, const char *id, Recorder *rec)
{
  g_string_append_c (recorder_log (rec, id)->events, 'r');
}

static inline void
rec_error (GObject *o, const char *id, const char *code, const char *message, Recorder *rec)
{
  g_assert_nonnull (code);
  g_assert_nonnull (message);
  if (id == NULL)
    return;
  g_string_append_c (recorder_log (rec, id)->events, '!');
  g_free (recorder_log (rec, id)->error_code);
  recorder_log (rec, id)->error_code = g_strdup (code);
}

static inline void
rec_closed (GObject *o, const GError *error, Recorder *rec)
{
  g_assert_nonnull (error);
  g_clear_error (&rec->closed);
  rec->closed = g_error_copy (error);
  rec->n_closed++;
}

static inline void
recorder_init (Recorder *rec, gpointer emitter)
{
  memset (rec, 0, sizeof *rec);
  rec->emitter = emitter;
  rec->runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, run_log_free);
  g_signal_connect (emitter, "queued", G_CALLBACK (rec_queued), rec);
  g_signal_connect (emitter, "started", G_CALLBACK (rec_started), rec);
  g_signal_connect (emitter, "output", G_CALLBACK (rec_output), rec);
  g_signal_connect (emitter, "exited", G_CALLBACK (rec_exited), rec);
  g_signal_connect (emitter, "released", G_CALLBACK (rec_released), rec);
  g_signal_connect (emitter, "error", G_CALLBACK (rec_error), rec);
  g_signal_connect (emitter, "closed", G_CALLBACK (rec_closed), rec);
  g_signal_connect (emitter, "input-wait", G_CALLBACK (rec_input_wait), rec);
}

static inline void
recorder_clear (Recorder *rec)
{
  g_signal_handlers_disconnect_by_data (rec->emitter, rec);
  g_hash_table_unref (rec->runs);
  g_clear_error (&rec->closed);
}

typedef struct
{
  Recorder *rec;
  const char *id;
  const char *events; /* wait until the run's events contain this */
} RunWait;

static inline gboolean
run_has_events (gpointer data)
{
  RunWait *wait = data;
  RunLog *log = g_hash_table_lookup (wait->rec->runs, wait->id);

  return log != NULL && strstr (log->events->str, wait->events) != NULL;
}

/* Spins the main loop until the run's events contain `events`. Several
 * events may arrive in one read, so never wait for a suffix. */
static inline RunLog *
recorder_wait (Recorder *rec, const char *id, const char *events, guint timeout_ms)
{
  RunWait wait = { rec, id, events };

  if (!sp_test_wait_for (run_has_events, &wait, timeout_ms))
    g_error ("run %s: waited for \"%s\", got \"%s\"", id, events,
             g_hash_table_contains (rec->runs, id) ? recorder_log (rec, id)->events->str : "");
  return recorder_log (rec, id);
}

static inline gboolean
was_closed (gpointer data)
{
  return ((Recorder *) data)->n_closed > 0;
}

/* ---- starting clients ---- */

typedef struct
{
  gboolean done;
  gboolean ok;
  GError *error;
} Started;

static inline void
on_start_done (GObject *object, GAsyncResult *result, gpointer data)
{
  Started *started = data;

  started->ok = sp_runner_client_start_finish (SP_RUNNER_CLIENT (object), result, &started->error);
  started->done = TRUE;
}

static inline gboolean
start_done (gpointer data)
{
  return ((Started *) data)->done;
}

/* Starts a client without waiting; args after "--fd 3" may be NULL. */
static inline SpRunnerClient *
client_start (const char *path, const char *const *args, guint timeout_ms, Started *started)
{
  SpRunnerClient *client = sp_runner_client_new (path);

  memset (started, 0, sizeof *started);
  sp_runner_client_set_runner_args (client, args);
  if (timeout_ms > 0)
    sp_runner_client_set_handshake_timeout (client, timeout_ms);
  sp_runner_client_start_async (client, NULL, on_start_done, started);
  return client;
}

static inline gboolean
only_ours (gpointer data)
{
  return G_OBJECT (data)->ref_count == 1;
}

/* Cancelled reads, writes and waits hand their references back on their
 * way out, on the next turns of the main loop; then the object must go. */
static inline void
finalize_when_idle (gpointer object)
{
  g_assert_true (sp_test_wait_for (only_ours, object, 5000));
  g_assert_finalize_object (object);
}

static inline gboolean
process_gone (gpointer data)
{
  return kill ((pid_t) GPOINTER_TO_INT (data), 0) != 0 && errno == ESRCH;
}

/* The process with this id exits (and is reaped) within timeout_ms. */
static inline gboolean
wait_process_gone (const char *identifier, guint timeout_ms)
{
  g_assert_nonnull (identifier);
  return sp_test_wait_for (process_gone, GINT_TO_POINTER (atoi (identifier)), timeout_ms);
}

static inline SpRunRequest *
python (const char *code)
{
  return sp_run_request_new ("python", code);
}
