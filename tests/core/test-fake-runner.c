/* test-fake-runner.c: what the app's side does when the runner misbehaves,
 * with a scripted fake (fake-runner.c): it crashes mid-run, sends garbage,
 * an unknown message or an oversize frame, stalls the handshake, or cannot
 * be started at all. The client must report each one, kill the runner and
 * fail its runs; the supervisor must restart it, rate-limited, so the next
 * run works. An event about one run that does not decode fails that run
 * alone: the runner is kept. */
#include "config.h"

#include <errno.h>

#include "sp-test-client.h"

typedef struct
{
  SpRunnerClient *client;
  Recorder rec;
  Started started;
  char *pid; /* taken at once: a runner that fails fast is gone soon */
} Fake;

static const char *
fake_path (void)
{
  return g_getenv ("SANDPAD_FAKE_RUNNER");
}

static void
fake_start (Fake *f, const char *flag, guint timeout_ms)
{
  const char *args[] = { flag, NULL };

  f->client = client_start (fake_path (), args, timeout_ms, &f->started);
  f->pid = g_strdup (sp_runner_client_get_identifier (f->client));
  recorder_init (&f->rec, f->client);
}

static void
fake_wait_ready (Fake *f)
{
  g_assert_true (sp_test_wait_for (start_done, &f->started, 10000));
  g_assert_no_error (f->started.error);
  g_assert_true (f->started.ok);
}

static void
fake_finish (Fake *f)
{
  g_clear_error (&f->started.error);
  g_clear_pointer (&f->pid, g_free);
  recorder_clear (&f->rec);
  sp_runner_client_stop (f->client);
  finalize_when_idle (g_steal_pointer (&f->client));
}

/* The control: the fake itself speaks the protocol well enough. */
static void
test_fake_behaves (void)
{
  g_autoptr (SpRunRequest) req = python ("print(1)");
  g_autoptr (SpExecution) exec = NULL;
  Fake f;
  RunLog *log;

  fake_start (&f, NULL, 0);
  fake_wait_ready (&f);
  g_assert_cmpstr (sp_runner_client_get_sandbox_mode (f.client), ==, "fake");
  exec = sp_runner_client_submit (f.client, req, NULL);
  log = recorder_wait (&f.rec, sp_execution_get_id (exec), "e", 10000);
  g_assert_cmpstr (log->events->str, ==, "qsoe");
  g_assert_cmpstr (log->out->str, ==, "fake\n");
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_EXITED);
  g_assert_cmpuint (f.rec.n_closed, ==, 0);
  fake_finish (&f);
}

/* After ready, `flag` makes the fake misbehave: "closed" with `code`, the
 * fake killed, a run in flight failed with the same error. */
static void
expect_closed (const char *flag, int code, const char *message_part)
{
  g_autoptr (SpRunRequest) req = python ("print(1)");
  g_autoptr (SpExecution) exec = NULL;
  Fake f;

  fake_start (&f, flag, 0);
  /* Ready comes before the misbehaviour, so the handshake succeeds. */
  fake_wait_ready (&f);
  exec = sp_runner_client_submit (f.client, req, NULL);
  if (exec == NULL)
    g_assert_cmpuint (f.rec.n_closed, ==, 1); /* already gone: garbage came with ready */
  g_assert_true (sp_test_wait_for (was_closed, &f.rec, 10000));
  g_test_message ("%s: %s", flag, f.rec.closed->message);
  g_assert_error (f.rec.closed, SP_RUNNER_ERROR, code);
  g_assert_nonnull (strstr (f.rec.closed->message, message_part));
  g_assert_false (sp_runner_client_is_ready (f.client));
  g_assert_null (sp_runner_client_get_identifier (f.client));
  if (exec != NULL)
    {
      g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_FAILED);
      g_assert_error (sp_execution_get_error (exec), SP_RUNNER_ERROR, code);
    }
  g_assert_true (wait_process_gone (f.pid, 5000));
  /* Reported once, and the client refuses further work calmly. */
  g_assert_cmpuint (f.rec.n_closed, ==, 1);
  g_assert_null (sp_runner_client_submit (f.client, req, NULL));
  fake_finish (&f);
}

static void
test_crash_after_ready (void)
{
  expect_closed ("--crash-after-ready", SP_RUNNER_ERROR_CLOSED, "status 3");
}

static void
test_garbage (void)
{
  expect_closed ("--garbage", SP_RUNNER_ERROR_INVALID_JSON, "invalid_json");
}

static void
test_unknown_message (void)
{
  expect_closed ("--unknown", SP_RUNNER_ERROR_UNKNOWN_TYPE, "unknown_type");
}

static void
test_oversize (void)
{
  expect_closed ("--oversize", SP_RUNNER_ERROR_FRAME_TOO_LARGE, "frame_too_large");
}

/* A runner that never answers hello: the handshake times out. */
static void
test_stall (void)
{
  gint64 begin = g_get_monotonic_time ();
  Fake f;

  fake_start (&f, "--stall", 300);
  g_assert_true (sp_test_wait_for (start_done, &f.started, 10000));
  g_assert_false (f.started.ok);
  g_assert_error (f.started.error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_TIMEOUT);
  g_assert_cmpint (g_get_monotonic_time () - begin, >=, 300 * 1000);
  g_assert_true (sp_test_wait_for (was_closed, &f.rec, 1000));
  g_assert_error (f.rec.closed, SP_RUNNER_ERROR, SP_RUNNER_ERROR_TIMEOUT);
  g_assert_true (wait_process_gone (f.pid, 5000));
  fake_finish (&f);
}

/* A runner from the future: its ready names a protocol we do not speak. */
static void
test_wrong_protocol (void)
{
  Fake f;

  fake_start (&f, "--future", 0);
  g_assert_true (sp_test_wait_for (start_done, &f.started, 10000));
  g_assert_error (f.started.error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_BAD_VERSION);
  g_assert_cmpuint (f.rec.n_closed, ==, 1);
  g_assert_null (sp_runner_client_get_runner_version (f.client));
  g_assert_null (sp_runner_client_get_languages (f.client));
  g_assert_true (wait_process_gone (f.pid, 5000));
  fake_finish (&f);
}

static void
test_spawn_failure (void)
{
  Started started;
  SpRunnerClient *client = client_start ("/nonexistent/sandpad-runner", NULL, 0, &started);
  Recorder rec;

  recorder_init (&rec, client);
  /* Reported later, never from inside start_async(). */
  g_assert_false (started.done);
  g_assert_true (sp_test_wait_for (start_done, &started, 5000));
  g_assert_error (started.error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_SPAWN);
  g_assert_cmpuint (rec.n_closed, ==, 1);
  g_assert_error (rec.closed, SP_RUNNER_ERROR, SP_RUNNER_ERROR_SPAWN);
  g_clear_error (&started.error);
  recorder_clear (&rec);
  finalize_when_idle (client);
}

static gboolean
cancel_cb (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

/* Cancelling the handshake stops the client: no "closed", it was asked. */
static void
test_start_cancelled (void)
{
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  SpRunnerClient *client = sp_runner_client_new (fake_path ());
  const char *args[] = { "--stall", NULL };
  g_autofree char *pid = NULL;
  Started started = { 0 };
  Recorder rec;

  recorder_init (&rec, client);
  sp_runner_client_set_runner_args (client, args);
  sp_runner_client_start_async (client, cancellable, on_start_done, &started);
  pid = g_strdup (sp_runner_client_get_identifier (client));
  g_timeout_add (100, cancel_cb, cancellable);
  g_assert_true (sp_test_wait_for (start_done, &started, 5000));
  g_assert_error (started.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpuint (rec.n_closed, ==, 0);
  g_assert_true (wait_process_gone (pid, 5000));
  g_clear_error (&started.error);
  recorder_clear (&rec);
  finalize_when_idle (client);
}

/* ---- the supervisor ---- */

/* Records the supervisor's states as letters: Starting, Ready,
 * restarting (r), Failed. */
static void
on_state (SpRunnerSupervisor *sup, GParamSpec *pspec, GString *states)
{
  g_string_append_c (states, "xSRrF"[sp_runner_supervisor_get_state (sup)]);
}

static gboolean
sup_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (data);
}

static gboolean
sup_failed (gpointer data)
{
  return sp_runner_supervisor_get_state (data) == SP_RUNNER_STATE_FAILED;
}

/* The fake crashes on its first start only: the supervisor restarts it
 * and the next run works. */
static void
test_supervisor_recovers (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sandpad-fake-XXXXXX", NULL);
  g_autofree char *counter = g_build_filename (dir, "count", NULL);
  const char *args[] = { "--crash-after-ready", "--count-file", counter, "--ok-after", "1", NULL };
  SpRunnerSupervisor *sup = sp_runner_supervisor_new (fake_path ());
  g_autoptr (SpRunRequest) req = python ("print(1)");
  g_autoptr (SpExecution) lost = NULL;
  g_autoptr (SpExecution) next = NULL;
  g_autoptr (GString) states = g_string_new (NULL);
  Recorder rec;
  RunLog *log;

  recorder_init (&rec, sup);
  g_signal_connect (sup, "notify::state", G_CALLBACK (on_state), states);
  sp_runner_supervisor_set_runner_args (sup, args);
  sp_runner_supervisor_start (sup);
  g_assert_true (sp_test_wait_for (sup_ready, sup, 10000));
  lost = sp_runner_supervisor_submit (sup, req, NULL);
  g_assert_cmpstr (sp_execution_get_id (lost), ==, "r1");
  g_assert_true (sp_test_wait_for (was_closed, &rec, 10000));
  g_assert_error (rec.closed, SP_RUNNER_ERROR, SP_RUNNER_ERROR_CLOSED);
  g_assert_cmpint (sp_execution_get_state (lost), ==, SP_EXECUTION_FAILED);
  g_assert_nonnull (sp_runner_supervisor_get_last_error (sup));

  g_assert_true (sp_test_wait_for (sup_ready, sup, 10000));
  g_assert_cmpstr (states->str, ==, "SRrSR");
  next = sp_runner_supervisor_submit (sup, req, NULL);
  g_assert_nonnull (next);
  /* Ids stay unique across runners. */
  g_assert_cmpstr (sp_execution_get_id (next), ==, "2-r1");
  log = recorder_wait (&rec, sp_execution_get_id (next), "e", 10000);
  g_assert_cmpstr (log->out->str, ==, "fake\n");
  g_assert_cmpint (sp_execution_get_state (next), ==, SP_EXECUTION_EXITED);

  recorder_clear (&rec);
  g_signal_handlers_disconnect_by_data (sup, states);
  sp_runner_supervisor_stop (sup);
  g_assert_finalize_object (sup);
  g_assert_cmpint (g_unlink (counter), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* A runner that misbehaves on every start: restarted max_restarts times,
 * then the supervisor gives up with state "failed". */
static void
expect_gives_up (const char *flag, guint max_restarts, const char *expected_states,
                 const char *message_part)
{
  const char *args[] = { flag, NULL };
  SpRunnerSupervisor *sup = sp_runner_supervisor_new (fake_path ());
  g_autoptr (GString) states = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpRunRequest) req = python ("print(1)");
  Recorder rec;

  recorder_init (&rec, sup);
  g_signal_connect (sup, "notify::state", G_CALLBACK (on_state), states);
  sp_runner_supervisor_set_runner_args (sup, args);
  sp_runner_supervisor_set_restart_limit (sup, max_restarts, 60000);
  sp_runner_supervisor_set_restart_delay (sup, 10);
  sp_runner_supervisor_set_handshake_timeout (sup, 300);
  sp_runner_supervisor_start (sup);
  g_assert_true (sp_test_wait_for (sup_failed, sup, 20000));
  g_assert_cmpstr (states->str, ==, expected_states);
  g_assert_cmpuint (rec.n_closed, ==, max_restarts + 1);
  g_assert_nonnull (strstr (sp_runner_supervisor_get_last_error (sup), message_part));
  g_assert_null (sp_runner_supervisor_get_client (sup));
  g_assert_null (sp_runner_supervisor_run (sup, req, &error));
  g_assert_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_NOT_READY);

  recorder_clear (&rec);
  g_signal_handlers_disconnect_by_data (sup, states);
  g_assert_finalize_object (sup);
}

static void
test_supervisor_gives_up_garbage (void)
{
  expect_gives_up ("--garbage", 2, "SRrSRrSRF", "invalid_json");
}

static void
test_supervisor_gives_up_stall (void)
{
  expect_gives_up ("--stall", 1, "SrSF", "did not answer");
}

static void
test_supervisor_no_restarts (void)
{
  expect_gives_up ("--oversize", 0, "SRF", "frame_too_large");
}

/* Issue 29: the runner's exited for one run does not decode (a
 * program's line number past int32). That run fails, saying why; it is
 * cancelled and released for the callers who no longer follow it; the
 * runner every window shares is not restarted and runs the next one. */
static void
test_undecodable_event_fails_run (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sandpad-fake-XXXXXX", NULL);
  g_autofree char *requests_log = g_build_filename (dir, "requests", NULL);
  const char *args[] = { "--bad-exited", "--requests-log", requests_log, NULL };
  SpRunnerSupervisor *sup = sp_runner_supervisor_new (fake_path ());
  g_autoptr (SpRunRequest) req = python ("print(1)");
  g_autoptr (SpExecution) bad = NULL;
  g_autoptr (SpExecution) next = NULL;
  g_autoptr (GString) states = g_string_new (NULL);
  g_autofree char *requests = NULL;
  const GError *error;
  Recorder rec;
  RunLog *log;

  recorder_init (&rec, sup);
  g_signal_connect (sup, "notify::state", G_CALLBACK (on_state), states);
  sp_runner_supervisor_set_runner_args (sup, args);
  sp_runner_supervisor_start (sup);
  g_assert_true (sp_test_wait_for (sup_ready, sup, 10000));
  bad = sp_runner_supervisor_submit (sup, req, NULL);
  log = recorder_wait (&rec, "r1", "!", 10000);
  g_assert_cmpstr (log->error_code, ==, "invalid_value");
  g_assert_cmpint (sp_execution_get_state (bad), ==, SP_EXECUTION_FAILED);
  error = sp_execution_get_error (bad);
  g_assert_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_INVALID_VALUE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "99999999999"));

  next = sp_runner_supervisor_submit (sup, req, NULL);
  /* The same runner: a new one would prefix its ids. */
  g_assert_cmpstr (sp_execution_get_id (next), ==, "r2");
  log = recorder_wait (&rec, "r2", "e", 10000);
  g_assert_cmpstr (log->out->str, ==, "fake\n");
  g_assert_cmpint (sp_execution_get_state (next), ==, SP_EXECUTION_EXITED);
  g_assert_cmpuint (rec.n_closed, ==, 0);
  g_assert_cmpstr (states->str, ==, "SR");
  /* Nothing of r1 after its failure reached the callers (the fake's
   * answers to cancel and release were before r2's events). */
  g_assert_cmpstr (recorder_log (&rec, "r1")->events->str, ==, "qso!");
  g_assert_true (g_file_get_contents (requests_log, &requests, NULL, NULL));
  g_assert_cmpstr (requests, ==, "cancel r1\nrelease r1\n");

  recorder_clear (&rec);
  g_signal_handlers_disconnect_by_data (sup, states);
  sp_runner_supervisor_stop (sup);
  g_assert_finalize_object (sup);
  g_assert_cmpint (g_unlink (requests_log), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (fake_path ());

  g_test_add_func ("/Sandpad/FakeRunner/behaves", test_fake_behaves);
  g_test_add_func ("/Sandpad/FakeRunner/crash-after-ready", test_crash_after_ready);
  g_test_add_func ("/Sandpad/FakeRunner/garbage", test_garbage);
  g_test_add_func ("/Sandpad/FakeRunner/unknown-message", test_unknown_message);
  g_test_add_func ("/Sandpad/FakeRunner/oversize", test_oversize);
  g_test_add_func ("/Sandpad/FakeRunner/stall", test_stall);
  g_test_add_func ("/Sandpad/FakeRunner/wrong-protocol", test_wrong_protocol);
  g_test_add_func ("/Sandpad/FakeRunner/spawn-failure", test_spawn_failure);
  g_test_add_func ("/Sandpad/FakeRunner/start-cancelled", test_start_cancelled);
  g_test_add_func ("/Sandpad/FakeRunner/supervisor-recovers", test_supervisor_recovers);
  g_test_add_func ("/Sandpad/FakeRunner/supervisor-gives-up-garbage",
                   test_supervisor_gives_up_garbage);
  g_test_add_func ("/Sandpad/FakeRunner/supervisor-gives-up-stall", test_supervisor_gives_up_stall);
  g_test_add_func ("/Sandpad/FakeRunner/supervisor-no-restarts", test_supervisor_no_restarts);
  g_test_add_func ("/Sandpad/FakeRunner/undecodable-event-fails-run",
                   test_undecodable_event_fails_run);
  return g_test_run ();
}
