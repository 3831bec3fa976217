/* test-execution.c: an execution's life, fed by hand the way the client
 * feeds it: states and their notifications, output, result, failure,
 * elapsed time, and that nothing changes once it is finished. */
#include "sp-execution.h"
#include "sp-run-result-private.h"
#include "sp-runner-error.h"

static void
count_notify (GObject *object, GParamSpec *pspec, guint *count)
{
  (*count)++;
}

static SpRunResult *
make_result (SpRunEnd end, int exit_code, const char *error)
{
  SpExited exited = { 0 };

  exited.end = (SpEnd) end;
  exited.exit_code = exit_code;
  exited.error = (char *) error;
  exited.wall_ms = 5;
  return _sp_run_result_new (&exited, 30000, 512, NULL);
}

static guint
n_items (SpExecution *exec)
{
  return g_list_model_get_n_items (G_LIST_MODEL (sp_execution_get_output (exec)));
}

static void
test_lifecycle (void)
{
  SpExecution *exec = sp_execution_new ("r1", "python");
  g_autoptr (SpRunResult) result = make_result (SP_RUN_END_EXITED, 0, NULL);
  g_autofree char *id = NULL;
  guint notified = 0;

  g_signal_connect (exec, "notify::state", G_CALLBACK (count_notify), &notified);
  g_object_get (exec, "id", &id, NULL);
  g_assert_cmpstr (id, ==, "r1");
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_QUEUED);
  g_assert_false (sp_execution_is_finished (exec));
  g_assert_cmpint (sp_execution_get_elapsed_ms (exec), ==, 0);
  g_assert_null (sp_execution_get_result (exec));

  _sp_execution_set_started (exec, "/tmp/somewhere");
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_RUNNING);
  g_assert_cmpstr (sp_execution_get_cwd (exec), ==, "/tmp/somewhere");
  g_assert_cmpuint (notified, ==, 1);
  _sp_execution_append_output (exec, SP_OUTPUT_STDOUT, "a", -1);
  _sp_execution_append_output (exec, SP_OUTPUT_STDOUT, "b", -1);
  _sp_execution_append_output (exec, SP_OUTPUT_STDERR, "c", -1);
  g_assert_cmpuint (n_items (exec), ==, 2);
  g_usleep (20 * 1000);
  g_assert_cmpint (sp_execution_get_elapsed_ms (exec), >=, 20);

  _sp_execution_set_exited (exec, result);
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_EXITED);
  g_assert_true (sp_execution_is_finished (exec));
  g_assert_true (sp_execution_get_result (exec) == result);
  g_assert_null (sp_execution_get_error (exec));
  g_assert_cmpuint (notified, ==, 2);

  /* Frozen: late output, a second end, a failure change nothing. */
  gint64 elapsed = sp_execution_get_elapsed_ms (exec);
  g_usleep (20 * 1000);
  g_assert_cmpint (sp_execution_get_elapsed_ms (exec), ==, elapsed);
  _sp_execution_append_output (exec, SP_OUTPUT_STDOUT, "late", -1);
  g_assert_cmpuint (n_items (exec), ==, 2);
  {
    g_autoptr (GError) error = g_error_new_literal (SP_RUNNER_ERROR, SP_RUNNER_ERROR_CLOSED, "x");
    _sp_execution_set_failed (exec, error);
  }
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_EXITED);
  g_assert_cmpuint (notified, ==, 2);

  g_signal_handlers_disconnect_by_data (exec, &notified);
  g_assert_finalize_object (exec);
}

static void
test_failed_before_start (void)
{
  SpExecution *exec = sp_execution_new ("r2", "bash");
  g_autoptr (GError) error = g_error_new_literal (SP_RUNNER_ERROR, SP_RUNNER_ERROR_CLOSED,
                                                  "The runner exited unexpectedly");

  _sp_execution_set_failed (exec, error);
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_FAILED);
  g_assert_error (sp_execution_get_error (exec), SP_RUNNER_ERROR, SP_RUNNER_ERROR_CLOSED);
  g_assert_cmpint (sp_execution_get_elapsed_ms (exec), ==, 0);
  _sp_execution_set_started (exec, "/late");
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_FAILED);
  g_assert_null (sp_execution_get_cwd (exec));
  g_assert_finalize_object (exec);
}

/* "end": "failed" means it never ran: a failed execution, with the
 * runner's reason, and the result still there. */
static void
test_never_ran (void)
{
  SpExecution *exec = sp_execution_new ("r3", "javascript");
  g_autoptr (SpRunResult) result = make_result (SP_RUN_END_FAILED, 0, "execve: No such file");

  _sp_execution_set_exited (exec, result);
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_FAILED);
  g_assert_nonnull (sp_execution_get_result (exec));
  g_assert_cmpstr (sp_execution_get_error (exec)->message, ==, "execve: No such file");
  g_assert_finalize_object (exec);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/Execution/lifecycle", test_lifecycle);
  g_test_add_func ("/Sandpad/Execution/failed-before-start", test_failed_before_start);
  g_test_add_func ("/Sandpad/Execution/never-ran", test_never_ran);
  return g_test_run ();
}
