/* test-supervisor.c: the app's side of the runner, headless: against the
 * real sandpad-runner for what it must do, and against a scripted fake for
 * what the real one must never do (crash, garbage, stall). */
#include "config.h"

#include <glib/gstdio.h>

#include "sp-test-wait.h"
#include "sp-output-model.h"
#include "sp-runner-supervisor.h"


typedef struct
{
  SpRunnerSupervisor *sup;
  char *run_id;
  GString *out;
  GString *err;
  SpRunResult *result;
  guint ticks;
} Run;

static void
on_output (SpRunnerSupervisor *sup, const char *id, int kind, const char *text, Run *run)
{
  if (g_strcmp0 (id, run->run_id) == 0)
    g_string_append (kind == SP_OUTPUT_STDERR ? run->err : run->out, text);
}

static void
on_exited (SpRunnerSupervisor *sup, const char *id, SpRunResult *result, Run *run)
{
  if (g_strcmp0 (id, run->run_id) == 0)
    run->result = sp_run_result_ref (result);
}

static gboolean
is_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (data);
}

static gboolean
has_state (gpointer data)
{
  gpointer *pair = data;
  return (int) sp_runner_supervisor_get_state (pair[0]) == GPOINTER_TO_INT (pair[1]);
}

static gboolean
has_result (gpointer data)
{
  return ((Run *) data)->result != NULL;
}

static SpRunnerSupervisor *
start (const char *path, const char *const *args)
{
  SpRunnerSupervisor *sup = sp_runner_supervisor_new (path);

  sp_runner_supervisor_set_runner_args (sup, args);
  sp_runner_supervisor_start (sup);
  return sup;
}

static void
run_init (Run *run, SpRunnerSupervisor *sup)
{
  memset (run, 0, sizeof *run);
  run->sup = sup;
  run->out = g_string_new (NULL);
  run->err = g_string_new (NULL);
  g_signal_connect (sup, "output", G_CALLBACK (on_output), run);
  g_signal_connect (sup, "exited", G_CALLBACK (on_exited), run);
}

static void
run_clear (Run *run)
{
  g_signal_handlers_disconnect_by_data (run->sup, run);
  g_free (run->run_id);
  g_string_free (run->out, TRUE);
  g_string_free (run->err, TRUE);
  g_clear_pointer (&run->result, sp_run_result_unref);
}

static void
run_code (Run *run, const char *code, gboolean stdin_open)
{
  g_autoptr (SpRunRequest) req = sp_run_request_new ("python", code);
  g_autoptr (GError) error = NULL;

  sp_run_request_set_stdin_open (req, stdin_open);
  run->run_id = sp_runner_supervisor_run (run->sup, req, &error);
  g_assert_no_error (error);
  g_assert_nonnull (run->run_id);
}

static gboolean
only_ours (gpointer data)
{
  return G_OBJECT (data)->ref_count == 1;
}

static void
finish (SpRunnerSupervisor *sup)
{
  sp_runner_supervisor_stop (sup);
  /* Cancelled reads and writes hand their references back on their way
   * out, on the next turns of the main loop. */
  g_assert_true (sp_test_wait_for (only_ours, sup, 5000));
  g_assert_finalize_object (sup);
}

static void
test_real_run (void)
{
  SpRunnerSupervisor *sup = start (g_getenv ("SANDPAD_RUNNER"), NULL);
  Run run;

  g_assert_true (sp_test_wait_for (is_ready, sup, 10000));
  g_assert_nonnull (sp_runner_supervisor_get_sandbox_mode (sup));
  g_assert_true (g_strv_contains (sp_runner_supervisor_get_languages (sup), "python"));
  run_init (&run, sup);
  run_code (&run, "import sys\nprint('hello')\nprint('oops', file=sys.stderr)\n", FALSE);
  g_assert_true (sp_test_wait_for (has_result, &run, 20000));
  g_assert_cmpstr (run.out->str, ==, "hello\n");
  g_assert_cmpstr (run.err->str, ==, "oops\n");
  g_assert_true (sp_run_result_succeeded (run.result));
  run_clear (&run);
  finish (sup);
}

static void
test_real_cancel_and_stdin (void)
{
  SpRunnerSupervisor *sup = start (g_getenv ("SANDPAD_RUNNER"), NULL);
  Run run;

  g_assert_true (sp_test_wait_for (is_ready, sup, 10000));
  run_init (&run, sup);
  run_code (&run, "print('hi', input())\n", TRUE);
  sp_runner_supervisor_send_stdin (sup, run.run_id, "Ada\n", FALSE);
  g_assert_true (sp_test_wait_for (has_result, &run, 20000));
  g_assert_cmpstr (run.out->str, ==, "hi Ada\n");
  run_clear (&run);

  run_init (&run, sup);
  run_code (&run, "while True: pass\n", FALSE);
  g_usleep (200 * 1000);
  sp_runner_supervisor_cancel (sup, run.run_id);
  g_assert_true (sp_test_wait_for (has_result, &run, 20000));
  g_assert_cmpint (sp_run_result_get_cancelled (run.result), !=, SP_CANCEL_NONE);
  g_assert_false (sp_run_result_succeeded (run.result));
  run_clear (&run);
  finish (sup);
}

static void
append_to_model (SpRunnerSupervisor *sup, const char *id, int kind, const char *text,
                 SpOutputModel *model)
{
  sp_output_model_append (model, kind, text);
}

static gboolean
tick (gpointer data)
{
  ((Run *) data)->ticks++;
  return G_SOURCE_CONTINUE;
}

/* 10 MB of output arrive while the main loop keeps turning, and the model
 * keeps a bounded amount of it in few rows. */
static void
test_real_flood (void)
{
  SpRunnerSupervisor *sup = start (g_getenv ("SANDPAD_RUNNER"), NULL);
  g_autoptr (SpRunRequest) req = sp_run_request_new ("python",
                                                      "import sys\nfor i in range(100):\n"
                                                      "    sys.stdout.write('y' * 100000)\n");
  SpOutputModel *model = sp_output_model_new ();
  Run run;
  guint id;

  g_assert_true (sp_test_wait_for (is_ready, sup, 10000));
  run_init (&run, sup);
  g_signal_connect (sup, "output", G_CALLBACK (append_to_model), model);
  sp_run_request_set_output_limit (req, 16 * 1024 * 1024);
  run.run_id = sp_runner_supervisor_run (sup, req, NULL);
  id = g_timeout_add (10, tick, &run);
  g_assert_true (sp_test_wait_for (has_result, &run, 60000));
  g_source_remove (id);
  g_assert_cmpuint (run.out->len, ==, 10000000);
  g_assert_true (sp_run_result_succeeded (run.result));
  g_assert_cmpuint (run.ticks, >, 1); /* the loop was never blocked throughout */
  g_assert_true (sp_output_model_get_truncated (model));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), <, 200);
  g_signal_handlers_disconnect_by_data (sup, model);
  g_assert_finalize_object (model);
  run_clear (&run);
  finish (sup);
}

static const char *
fake (void)
{
  return g_getenv ("SANDPAD_FAKE_RUNNER");
}

/* The runner dies mid-run: the supervisor notices, restarts it, and the
 * next run works (the fake behaves after its first start). */
static void
test_fake_crash_then_recover (void)
{
  g_autofree char *counter = g_build_filename (g_get_tmp_dir (), "sandpad-fake-count-XXXXXX", NULL);
  int fd = g_mkstemp (counter);
  const char *args[] = { "--behave", "crash-after-ready", "--count-file", counter, "--ok-after",
                         "1", NULL };
  SpRunnerSupervisor *sup;
  gpointer restarting[2];
  Run run;

  close (fd);
  sup = start (fake (), args);
  restarting[0] = sup;
  restarting[1] = GINT_TO_POINTER (SP_RUNNER_STATE_RESTARTING);
  g_assert_true (sp_test_wait_for (is_ready, sup, 10000));
  run_init (&run, sup);
  run_code (&run, "print(1)", FALSE);
  g_assert_true (sp_test_wait_for (has_state, restarting, 10000));
  g_assert_nonnull (sp_runner_supervisor_get_last_error (sup));
  g_assert_true (sp_test_wait_for (is_ready, sup, 10000));
  run_clear (&run);

  run_init (&run, sup);
  run_code (&run, "print(1)", FALSE);
  g_assert_true (sp_test_wait_for (has_result, &run, 10000));
  g_assert_cmpstr (run.out->str, ==, "fake\n");
  run_clear (&run);
  finish (sup);
  g_unlink (counter);
}

static void
expect_failure (const char *behave, const char *error_part)
{
  const char *args[] = { "--behave", behave, NULL };
  SpRunnerSupervisor *sup = sp_runner_supervisor_new (fake ());
  gpointer failed[2] = { sup, GINT_TO_POINTER (SP_RUNNER_STATE_FAILED) };

  sp_runner_supervisor_set_runner_args (sup, args);
  /* One restart allowed, then it gives up: garbage every time is failure. */
  sp_runner_supervisor_set_restart_limit (sup, 1, 60000);
  sp_runner_supervisor_set_handshake_timeout (sup, 500);
  sp_runner_supervisor_start (sup);
  g_assert_true (sp_test_wait_for (has_state, failed, 20000));
  g_assert_nonnull (strstr (sp_runner_supervisor_get_last_error (sup), error_part));
  finish (sup);
}

static void
test_fake_garbage (void)
{
  expect_failure ("garbage", "invalid message");
}

static void
test_fake_stall (void)
{
  expect_failure ("stall", "did not answer");
}

static void
test_fake_oversize (void)
{
  expect_failure ("oversize", "invalid message");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/Supervisor/real-run", test_real_run);
  g_test_add_func ("/Sandpad/Supervisor/real-cancel-and-stdin", test_real_cancel_and_stdin);
  g_test_add_func ("/Sandpad/Supervisor/real-flood", test_real_flood);
  g_test_add_func ("/Sandpad/Supervisor/fake-crash-then-recover", test_fake_crash_then_recover);
  g_test_add_func ("/Sandpad/Supervisor/fake-garbage", test_fake_garbage);
  g_test_add_func ("/Sandpad/Supervisor/fake-stall", test_fake_stall);
  g_test_add_func ("/Sandpad/Supervisor/fake-oversize", test_fake_oversize);
  return g_test_run ();
}
