/* test-supervisor.c: SpRunnerSupervisor with the real sandpad-runner: it
 * forwards the client's signals, replaces a runner that was killed so the
 * next run works, limits restarts to max_restarts per window, stops and
 * starts again, and takes its runner down when dropped. */
#include "config.h"

#include <errno.h>

#include "sp-output-model.h"
#include "sp-runner-supervisor-private.h"
#include "sp-test-client.h"

#define RUN_TIMEOUT_MS 30000

static gboolean
sup_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (data);
}

static SpRunnerSupervisor *
start_real (void)
{
  SpRunnerSupervisor *sup = sp_runner_supervisor_new (g_getenv ("SANDPAD_RUNNER"));

  sp_runner_supervisor_set_restart_delay (sup, 10);
  sp_runner_supervisor_start (sup);
  g_assert_true (sp_test_wait_for (sup_ready, sup, 15000));
  return sup;
}

static char *
run_code (SpRunnerSupervisor *sup, const char *code)
{
  g_autoptr (SpRunRequest) req = python (code);
  g_autoptr (GError) error = NULL;
  char *id = sp_runner_supervisor_run (sup, req, &error);

  g_assert_no_error (error);
  return id;
}

static void
append_to_model (SpRunnerSupervisor *sup, const char *id, SpOutputKind kind, const char *text,
                 gint64 t_ms, SpOutputModel *model)
{
  sp_output_model_append (model, kind, text);
}

/* Every signal of the client comes through, the way the app uses them. */
static void
test_forwards (void)
{
  SpRunnerSupervisor *sup = start_real ();
  SpOutputModel *model = sp_output_model_new ();
  g_autofree char *id = NULL;
  Recorder rec;
  RunLog *log;

  g_assert_true (g_strv_contains (sp_runner_supervisor_get_languages (sup), "python"));
  g_assert_nonnull (sp_runner_supervisor_get_sandbox_mode (sup));
  g_assert_nonnull (sp_runner_supervisor_get_sandbox_layers (sup));
  g_assert_null (sp_runner_supervisor_get_last_error (sup));
  recorder_init (&rec, sup);
  g_signal_connect (sup, "output", G_CALLBACK (append_to_model), model);
  id = run_code (sup, "import sys\nprint('hello', flush=True)\nprint('oops', file=sys.stderr)\n");
  g_assert_cmpstr (id, ==, "r1");
  log = recorder_wait (&rec, id, "e", RUN_TIMEOUT_MS);
  g_assert_cmpstr (log->out->str, ==, "hello\n");
  g_assert_cmpstr (log->err->str, ==, "oops\n");
  g_assert_true (sp_run_result_succeeded (log->result));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 2);

  sp_runner_supervisor_release (sup, id);
  recorder_wait (&rec, id, "r", RUN_TIMEOUT_MS);
  g_assert_cmpstr (log->events->str, ==, "qsoer");
  /* An error event names its run and its code. */
  sp_runner_supervisor_cancel (sup, id);
  log = recorder_wait (&rec, id, "!", RUN_TIMEOUT_MS);
  g_assert_cmpstr (log->error_code, ==, "unknown_run");

  g_signal_handlers_disconnect_by_data (sup, model);
  g_assert_finalize_object (model);
  recorder_clear (&rec);
  sp_runner_supervisor_stop (sup);
  g_assert_finalize_object (sup);
}

static void
kill_runner (SpRunnerSupervisor *sup, char **pid_out)
{
  const char *pid = sp_runner_client_get_identifier (sp_runner_supervisor_get_client (sup));

  g_assert_nonnull (pid);
  g_assert_cmpint (kill ((pid_t) atoi (pid), SIGKILL), ==, 0);
  if (pid_out != NULL)
    *pid_out = g_strdup (pid);
}

/* The runner is killed mid-run: the run fails, the runner is replaced,
 * and the next run works. */
static void
test_killed_runner_is_replaced (void)
{
  SpRunnerSupervisor *sup = start_real ();
  g_autoptr (SpRunRequest) spin = python ("print('up', flush=True)\nwhile True: pass\n");
  g_autoptr (SpExecution) lost = sp_runner_supervisor_submit (sup, spin, NULL);
  g_autofree char *old_pid = NULL;
  g_autofree char *id = NULL;
  Recorder rec;
  RunLog *log;

  recorder_init (&rec, sup);
  recorder_wait (&rec, sp_execution_get_id (lost), "o", RUN_TIMEOUT_MS);
  kill_runner (sup, &old_pid);
  g_assert_true (sp_test_wait_for (was_closed, &rec, 10000));
  g_assert_error (rec.closed, SP_RUNNER_ERROR, SP_RUNNER_ERROR_CLOSED);
  g_assert_nonnull (strstr (rec.closed->message, "signal 9"));
  g_assert_cmpint (sp_execution_get_state (lost), ==, SP_EXECUTION_FAILED);
  g_assert_cmpstr (sp_runner_supervisor_get_last_error (sup), ==, rec.closed->message);
  g_assert_false (sp_runner_supervisor_is_ready (sup));

  g_assert_true (sp_test_wait_for (sup_ready, sup, 15000));
  g_assert_cmpstr (sp_runner_client_get_identifier (sp_runner_supervisor_get_client (sup)), !=,
                   old_pid);
  id = run_code (sup, "print('again')");
  g_assert_cmpstr (id, ==, "2-r1");
  log = recorder_wait (&rec, id, "e", RUN_TIMEOUT_MS);
  g_assert_cmpstr (log->out->str, ==, "again\n");
  g_assert_true (sp_run_result_succeeded (log->result));

  recorder_clear (&rec);
  sp_runner_supervisor_stop (sup);
  g_assert_finalize_object (sup);
}

/* The supervisor's clock in the rate test: time moves only when the test
 * says, so how long a real restart takes cannot move a kill across the
 * window's edge. */
static gint64
test_clock (gpointer data)
{
  return *(gint64 *) data;
}

typedef struct
{
  Recorder *rec;
  guint n;
} ClosedCount;

static gboolean
closed_count_reached (gpointer data)
{
  ClosedCount *c = data;

  return c->rec->n_closed >= c->n;
}

/* Kills the runner and waits until the supervisor noticed. */
static void
kill_and_wait (SpRunnerSupervisor *sup, Recorder *rec)
{
  ClosedCount count = { rec, rec->n_closed + 1 };

  kill_runner (sup, NULL);
  g_assert_true (sp_test_wait_for (closed_count_reached, &count, 10000));
}

/* At most max_restarts within the window: older restarts do not count.
 * The window is measured on the test's clock, from its edge on both sides. */
static void
test_rate_limit (void)
{
  SpRunnerSupervisor *sup = start_real ();
  gint64 now = 1000 * G_USEC_PER_SEC;
  Recorder rec;

  recorder_init (&rec, sup);
  _sp_runner_supervisor_set_clock (sup, test_clock, &now);
  sp_runner_supervisor_set_restart_limit (sup, 1, 10000);
  kill_and_wait (sup, &rec);
  g_assert_cmpint (sp_runner_supervisor_get_state (sup), ==, SP_RUNNER_STATE_RESTARTING);
  g_assert_true (sp_test_wait_for (sup_ready, sup, 15000));

  /* The first restart just left the window (10 s later): another one is
   * allowed. */
  now += 10000 * 1000;
  kill_and_wait (sup, &rec);
  g_assert_cmpint (sp_runner_supervisor_get_state (sup), ==, SP_RUNNER_STATE_RESTARTING);
  g_assert_true (sp_test_wait_for (sup_ready, sup, 15000));

  /* A microsecond short of the window of that one: give up. */
  now += 10000 * 1000 - 1;
  kill_and_wait (sup, &rec);
  g_assert_cmpint (sp_runner_supervisor_get_state (sup), ==, SP_RUNNER_STATE_FAILED);
  g_assert_null (sp_runner_supervisor_get_client (sup));
  g_assert_cmpuint (rec.n_closed, ==, 3);

  /* start() begins afresh, at the same instant. */
  sp_runner_supervisor_start (sup);
  g_assert_true (sp_test_wait_for (sup_ready, sup, 15000));
  kill_and_wait (sup, &rec);
  g_assert_cmpint (sp_runner_supervisor_get_state (sup), ==, SP_RUNNER_STATE_RESTARTING);
  g_assert_true (sp_test_wait_for (sup_ready, sup, 15000));
  recorder_clear (&rec);
  sp_runner_supervisor_stop (sup);
  g_assert_finalize_object (sup);
}

/* stop() takes the runner down and says "stopped"; requests are refused
 * until start(). */
static void
test_stop_and_start (void)
{
  SpRunnerSupervisor *sup = start_real ();
  g_autofree char *pid = g_strdup (
    sp_runner_client_get_identifier (sp_runner_supervisor_get_client (sup)));
  g_autoptr (SpRunRequest) req = python ("print(2)");
  g_autoptr (GError) error = NULL;
  g_autofree char *id = NULL;
  Recorder rec;

  recorder_init (&rec, sup);
  sp_runner_supervisor_stop (sup);
  g_assert_cmpint (sp_runner_supervisor_get_state (sup), ==, SP_RUNNER_STATE_STOPPED);
  g_assert_true (wait_process_gone (pid, 2500));
  g_assert_null (sp_runner_supervisor_run (sup, req, &error));
  g_assert_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_NOT_READY);
  sp_runner_supervisor_cancel (sup, "r1"); /* nothing to do, and no crash */
  g_assert_cmpuint (rec.n_closed, ==, 0);

  sp_runner_supervisor_start (sup);
  g_assert_true (sp_test_wait_for (sup_ready, sup, 15000));
  id = run_code (sup, "print(2)");
  g_assert_cmpstr (recorder_wait (&rec, id, "e", RUN_TIMEOUT_MS)->out->str, ==, "2\n");
  recorder_clear (&rec);
  sp_runner_supervisor_stop (sup);
  g_assert_finalize_object (sup);
}

/* Dropping the last reference is enough: no pending call keeps the
 * supervisor alive, and its runner goes with it. */
static void
test_dropped_while_ready (void)
{
  SpRunnerSupervisor *sup = start_real ();
  g_autofree char *pid = g_strdup (
    sp_runner_client_get_identifier (sp_runner_supervisor_get_client (sup)));

  g_assert_finalize_object (sup);
  g_assert_true (wait_process_gone (pid, 2500));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("SANDPAD_RUNNER"));

  g_test_add_func ("/Sandpad/Supervisor/forwards", test_forwards);
  g_test_add_func ("/Sandpad/Supervisor/killed-runner-is-replaced", test_killed_runner_is_replaced);
  g_test_add_func ("/Sandpad/Supervisor/rate-limit", test_rate_limit);
  g_test_add_func ("/Sandpad/Supervisor/stop-and-start", test_stop_and_start);
  g_test_add_func ("/Sandpad/Supervisor/dropped-while-ready", test_dropped_while_ready);
  return g_test_run ();
}
