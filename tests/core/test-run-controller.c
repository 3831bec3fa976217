/* test-run-controller.c: a window's runs without the window, against the
 * real runner. A run's output lands in a new model and in "output", its
 * end in "exited" with the stderr kept for its error and how it started;
 * a prompt followed by quiet is "waiting", and a line sent is given to the
 * program and echoed in its place; with state kept, Python runs share a
 * session that Restart empties and a bash run does not join; the runner
 * killed under a run is "runner-lost", and the next run works; a run's
 * results with an image are items of its model, counted per run. */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sp-run-controller.h"
#include "sp-test-wait.h"

#define WAIT_MS 30000

typedef struct
{
  SpRunController *runs;
  GString *seen; /* what "output" said */
  SpRunResult *result;
  guint n_exited;
  guint n_new;
  guint n_lost;
  char *session_ended;
} Fixture;

static gboolean
sup_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (data);
}

static void
on_output (SpRunController *runs, SpOutputKind kind, const char *text, Fixture *f)
{
  g_string_append (f->seen, text);
}

static void
on_exited (SpRunController *runs, SpRunResult *result, Fixture *f)
{
  g_assert_false (sp_run_controller_get_running (runs));
  g_clear_pointer (&f->result, sp_run_result_unref);
  f->result = sp_run_result_ref (result);
  f->n_exited++;
}

static void
on_new_run (SpRunController *runs, SpRunRequest *request, Fixture *f)
{
  g_assert_true (sp_run_controller_get_running (runs));
  g_assert_nonnull (sp_run_request_get_code (request));
  f->n_new++;
}

static void
on_lost (SpRunController *runs, Fixture *f)
{
  f->n_lost++;
}

static void
on_session_ended (SpRunController *runs, const char *why, Fixture *f)
{
  g_free (f->session_ended);
  f->session_ended = g_strdup (why);
}

static void
fixture_init (Fixture *f)
{
  g_autoptr (SpRunnerSupervisor) sup = sp_runner_supervisor_new (g_getenv ("SANDPAD_RUNNER"));

  sp_runner_supervisor_set_restart_delay (sup, 10);
  sp_runner_supervisor_start (sup);
  g_assert_true (sp_test_wait_for (sup_ready, sup, 15000));
  f->runs = sp_run_controller_new (sup);
  f->seen = g_string_new (NULL);
  g_signal_connect (f->runs, "output", G_CALLBACK (on_output), f);
  g_signal_connect (f->runs, "exited", G_CALLBACK (on_exited), f);
  g_signal_connect (f->runs, "runner-lost", G_CALLBACK (on_lost), f);
  g_signal_connect (f->runs, "new-run", G_CALLBACK (on_new_run), f);
  g_signal_connect (f->runs, "session-ended", G_CALLBACK (on_session_ended), f);
}

static void
fixture_clear (Fixture *f)
{
  g_autoptr (SpRunnerSupervisor) sup = g_object_ref (sp_run_controller_get_supervisor (f->runs));

  g_signal_handlers_disconnect_by_data (f->runs, f);
  g_assert_finalize_object (f->runs);
  sp_runner_supervisor_stop (sup);
  g_string_free (f->seen, TRUE);
  g_clear_pointer (&f->result, sp_run_result_unref);
  g_free (f->session_ended);
}

typedef struct
{
  Fixture *f;
  guint n;
} Exits;

static gboolean
has_exited (gpointer data)
{
  Exits *e = data;

  return e->f->n_exited >= e->n;
}

/* Runs code and waits for its end. */
static SpRunResult *
run (Fixture *f, const char *language, const char *code)
{
  g_autoptr (SpRunRequest) request = sp_run_request_new (language, code);
  g_autoptr (GError) error = NULL;
  Exits e = { f, f->n_exited + 1 };

  g_string_truncate (f->seen, 0);
  g_assert_true (sp_run_controller_start (f->runs, request, &error));
  g_assert_no_error (error);
  g_assert_true (sp_run_controller_get_running (f->runs));
  g_assert_true (sp_test_wait_for (has_exited, &e, WAIT_MS));
  return f->result;
}

/* The text of every row of a kind, in order. */
static char *
model_text (SpOutputModel *model, SpOutputKind kind)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (G_LIST_MODEL (model), i);

      if (sp_output_item_get_kind (item) == kind && sp_output_item_get_text (item) != NULL)
        g_string_append (text, sp_output_item_get_text (item));
    }
  return g_string_free (text, FALSE);
}

static void
test_run (void)
{
  Fixture f = { 0 };
  SpOutputModel *first;
  SpRunResult *result;
  g_autofree char *out = NULL;

  fixture_init (&f);
  g_assert_null (sp_run_controller_get_run_start (f.runs));
  result = run (&f, "python", "print('hello')\n");
  g_assert_true (sp_run_result_succeeded (result));
  g_assert_cmpstr (f.seen->str, ==, "hello\n");
  /* Held, so the next run's model cannot be made at its address. */
  first = g_object_ref (sp_run_controller_get_output (f.runs));
  out = model_text (first, SP_OUTPUT_STDOUT);
  g_assert_cmpstr (out, ==, "hello\n");
  g_assert_nonnull (sp_run_controller_get_run_start (f.runs));
  g_assert_nonnull (sp_run_controller_get_run_id (f.runs));

  /* A failing run: its stderr is kept for the error; a new model. */
  result = run (&f, "python", "import sys\nsys.stderr.write('oops\\n')\nraise SystemExit(3)\n");
  g_assert_false (sp_run_result_succeeded (result));
  g_assert_true (sp_run_controller_get_output (f.runs) != first);
  g_assert_cmpstr (sp_run_controller_get_stderr (f.runs), ==, "oops\n");
  g_assert_cmpuint (f.n_new, ==, 2);
  g_object_unref (first);
  fixture_clear (&f);
}

/* The labels of the model's image items, with their sizes. */
static char *
model_images (SpOutputModel *output)
{
  GString *text = g_string_new (NULL);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (output));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (G_LIST_MODEL (output), i);
      GBytes *bytes = sp_output_item_get_bytes (item);

      if (bytes != NULL)
        g_string_append_printf (text, "%s:%" G_GSIZE_FORMAT "|", sp_output_item_get_label (item),
                                g_bytes_get_size (bytes));
    }
  return g_string_free (text, FALSE);
}

static void
on_display (SpRunController *runs, SpOutputItem *item, guint *n)
{
  (*n)++;
}

/* display()ed PNGs: each an item of the run's model, in memory, "Result
 * N" counted from 1 again in the next run. */
static void
test_display (void)
{
  /* a 1 x 1 PNG, 70 bytes */
  const char *code
    = "png = ('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwAD'\n"
      "       'hgGAWjR9awAAAABJRU5ErkJggg==')\n"
      "display({'image/png': png, 'text/plain': 'one'}, raw=True)\n"
      "display({'image/png': png, 'text/plain': 'two'}, raw=True)\n";
  Fixture f = { 0 };
  SpRunResult *result;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  guint n = 0;

  fixture_init (&f);
  g_signal_connect (f.runs, "display", G_CALLBACK (on_display), &n);
  result = run (&f, "python", code);
  g_assert_true (sp_run_result_succeeded (result));
  sp_output_model_flush (sp_run_controller_get_output (f.runs));
  first = model_images (sp_run_controller_get_output (f.runs));
  g_assert_cmpstr (first, ==, "Result 1:70|Result 2:70|");
  g_assert_cmpuint (n, ==, 2);
  /* their text reaches "output" listeners, the history among them */
  g_assert_nonnull (strstr (f.seen->str, "one\n"));
  result = run (&f, "python", code);
  sp_output_model_flush (sp_run_controller_get_output (f.runs));
  second = model_images (sp_run_controller_get_output (f.runs));
  g_assert_cmpstr (second, ==, "Result 1:70|Result 2:70|");
  g_assert_cmpuint (n, ==, 4);
  fixture_clear (&f);
}

static gboolean
is_waiting (gpointer data)
{
  return sp_run_controller_get_waiting (data);
}

static void
test_input (void)
{
  Fixture f = { 0 };
  g_autoptr (SpRunRequest) request
    = sp_run_request_new ("python", "name = input('name? ')\nprint('hi', name)\n");
  g_autoptr (GError) error = NULL;
  g_autofree char *echoed = NULL;
  g_autofree char *out = NULL;
  Exits e;

  fixture_init (&f);
  /* Nothing runs: nothing is sent. */
  g_assert_false (sp_run_controller_send_input (f.runs, "early"));
  sp_run_request_set_stdin_open (request, TRUE);
  g_assert_true (sp_run_controller_start (f.runs, request, &error));
  g_assert_no_error (error);
  g_assert_true (sp_test_wait_for (is_waiting, f.runs, WAIT_MS));
  e = (Exits){ &f, f.n_exited + 1 };
  g_assert_true (sp_run_controller_send_input (f.runs, "bob"));
  g_assert_false (sp_run_controller_get_waiting (f.runs));
  g_assert_true (sp_test_wait_for (has_exited, &e, WAIT_MS));
  g_assert_false (sp_run_controller_get_waiting (f.runs));
  /* The answer is echoed on the prompt's line, as a terminal shows it. */
  echoed = model_text (sp_run_controller_get_output (f.runs), SP_OUTPUT_INPUT);
  g_assert_cmpstr (echoed, ==, "name? bob\n");
  out = model_text (sp_run_controller_get_output (f.runs), SP_OUTPUT_STDOUT);
  g_assert_cmpstr (out, ==, "hi bob\n");

  /* A progress bar (an open line rewritten with \r) is not a prompt. */
  run (&f, "python",
       "import sys, time\nsys.stdout.write('10%\\r'); sys.stdout.flush()\ntime.sleep(1)\n");
  g_assert_false (sp_run_controller_get_waiting (f.runs));
  fixture_clear (&f);
}

static void
test_session (void)
{
  Fixture f = { 0 };
  SpRunResult *result;

  fixture_init (&f);
  /* Off: each run starts afresh. */
  run (&f, "python", "x = 41\n");
  result = run (&f, "python", "print(x + 1)\n");
  g_assert_false (sp_run_result_succeeded (result));

  sp_run_controller_set_keep_state (f.runs, TRUE);
  run (&f, "python", "x = 41\n");
  result = run (&f, "python", "print(x + 1)\n");
  g_assert_true (sp_run_result_succeeded (result));
  g_assert_cmpstr (f.seen->str, ==, "42\n");
  /* bash is not Python's session. */
  result = run (&f, "bash", "echo ${x:-none}\n");
  g_assert_cmpstr (f.seen->str, ==, "none\n");
  result = run (&f, "python", "print(x)\n");
  g_assert_cmpstr (f.seen->str, ==, "41\n");

  sp_run_controller_restart_session (f.runs);
  result = run (&f, "python", "print(x)\n");
  g_assert_false (sp_run_result_succeeded (result));

  /* The session's own end is said after the run's. */
  g_assert_null (f.session_ended);
  run (&f, "python", "import os\nos._exit(0)\n");
  g_assert_nonnull (f.session_ended);
  fixture_clear (&f);
}

static gboolean
has_output (gpointer data)
{
  return ((Fixture *) data)->seen->len > 0;
}

static gboolean
was_lost (gpointer data)
{
  return ((Fixture *) data)->n_lost > 0;
}

static void
test_runner_lost (void)
{
  Fixture f = { 0 };
  g_autoptr (SpRunRequest) request
    = sp_run_request_new ("python", "print('up', flush=True)\nwhile True: pass\n");
  g_autoptr (GError) error = NULL;
  SpRunnerSupervisor *sup;
  const char *pid;
  SpRunResult *result;

  fixture_init (&f);
  sup = sp_run_controller_get_supervisor (f.runs);
  g_assert_true (sp_run_controller_start (f.runs, request, &error));
  g_assert_true (sp_test_wait_for (has_output, &f, WAIT_MS));
  pid = sp_runner_client_get_identifier (sp_runner_supervisor_get_client (sup));
  g_assert_cmpint (kill ((pid_t) atoi (pid), SIGKILL), ==, 0);
  g_assert_true (sp_test_wait_for (was_lost, &f, 10000));
  g_assert_false (sp_run_controller_get_running (f.runs));
  g_assert_true (sp_test_wait_for (sup_ready, sup, 15000));
  result = run (&f, "python", "print('again')\n");
  g_assert_true (sp_run_result_succeeded (result));
  fixture_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("SANDPAD_RUNNER"));
  g_test_add_func ("/run-controller/run", test_run);
  g_test_add_func ("/run-controller/input", test_input);
  g_test_add_func ("/run-controller/display", test_display);
  g_test_add_func ("/run-controller/session", test_session);
  g_test_add_func ("/run-controller/runner-lost", test_runner_lost);
  return g_test_run ();
}
