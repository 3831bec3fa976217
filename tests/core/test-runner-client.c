/* test-runner-client.c: SpRunnerClient against the real sandpad-runner,
 * over the real socket: handshake, output streams, cancel, stdin, a flood
 * that must not block the main loop, executions, refusals and stop. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "sp-runner-client-private.h" /* the ready event as decoded: max_frame */
#include "sp-test-client.h"

#define RUN_TIMEOUT_MS 30000

typedef struct
{
  SpRunnerClient *client;
  Recorder rec;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  Started started;
  /* A request may name a cwd only where the runner allows it. */
  const char *args[] = { "--allow-cwd", g_get_tmp_dir (), NULL };

  f->client = client_start (g_getenv ("SANDPAD_RUNNER"), args, 0, &started);
  recorder_init (&f->rec, f->client);
  g_assert_true (sp_test_wait_for (start_done, &started, 15000));
  g_assert_no_error (started.error);
  g_assert_true (started.ok);
  g_assert_true (sp_runner_client_is_ready (f->client));
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  /* Nothing went wrong unasked during any test. */
  g_assert_no_error (f->rec.closed);
  recorder_clear (&f->rec);
  sp_runner_client_stop (f->client);
  finalize_when_idle (g_steal_pointer (&f->client));
}

static char *
run (Fixture *f, SpRunRequest *request)
{
  g_autoptr (GError) error = NULL;
  char *id = sp_runner_client_run (f->client, request, &error);

  g_assert_no_error (error);
  g_assert_nonnull (id);
  return id;
}

static void
test_handshake (Fixture *f, gconstpointer data)
{
  const char *const *languages = sp_runner_client_get_languages (f->client);
  const char *const *py_ext = sp_runner_client_get_language_extensions (f->client, "python");
  gint64 def = 0, max = 0;
  gboolean ready = FALSE;

  g_assert_nonnull (languages);
  g_assert_true (g_strv_contains (languages, "python"));
  g_assert_true (g_strv_contains (languages, "javascript"));
  g_assert_true (g_strv_contains (languages, "bash"));
  g_assert_nonnull (py_ext);
  g_assert_cmpstr (py_ext[0], ==, "py");
  g_assert_cmpstr (sp_runner_client_get_language_version (f->client, "python"), !=, "");
  g_assert_null (sp_runner_client_get_language_version (f->client, "cobol"));
  g_assert_null (sp_runner_client_get_language_extensions (f->client, "cobol"));
  /* The runner's extensions decide, exactly as it does for a named file. */
  g_assert_cmpstr (sp_runner_client_language_for_file (f->client, "plot.py"), ==, "python");
  g_assert_cmpstr (sp_runner_client_language_for_file (f->client, "a.b.mjs"), ==, "javascript");
  g_assert_cmpstr (sp_runner_client_language_for_file (f->client, "setup.bash"), ==, "bash");
  g_assert_null (sp_runner_client_language_for_file (f->client, "notes.txt"));
  g_assert_null (sp_runner_client_language_for_file (f->client, "Makefile"));
  g_assert_null (sp_runner_client_language_for_file (f->client, "trailing."));

  g_assert_true (sp_runner_client_get_limit (f->client, "timeout_ms", &def, &max));
  g_assert_cmpint (def, ==, 30000);
  g_assert_cmpint (max, ==, 300000);
  g_assert_true (sp_runner_client_get_limit (f->client, "output_limit", &def, &max));
  g_assert_cmpint (max, ==, 64 * 1024 * 1024);
  g_assert_cmpint (sp_runner_client_get_max_concurrent (f->client), >=, 1);
  g_assert_cmpint (sp_runner_client_get_ready (f->client)->max_frame, ==, SP_PROTO_MAX_FRAME);
  g_assert_nonnull (sp_runner_client_get_runner_version (f->client));

  g_assert_true (g_strcmp0 (sp_runner_client_get_sandbox_mode (f->client), "namespaces") == 0
                 || g_strcmp0 (sp_runner_client_get_sandbox_mode (f->client), "fallback") == 0);
  g_assert_nonnull (sp_runner_client_get_sandbox_layers (f->client));
  g_assert_true (g_strv_contains (sp_runner_client_get_sandbox_layers (f->client), "seccomp"));
  g_object_get (f->client, "ready", &ready, NULL);
  g_assert_true (ready);
}

static void
test_hello (Fixture *f, gconstpointer data)
{
  g_autoptr (SpRunRequest) req = python ("print('hello')");
  g_autofree char *id = run (f, req);
  RunLog *log = recorder_wait (&f->rec, id, "e", RUN_TIMEOUT_MS);

  g_assert_cmpstr (log->events->str, ==, "qsoe");
  g_assert_cmpstr (log->out->str, ==, "hello\n");
  g_assert_cmpstr (log->err->str, ==, "");
  g_assert_cmpint (sp_run_result_get_end (log->result), ==, SP_RUN_END_EXITED);
  g_assert_cmpint (sp_run_result_get_exit_code (log->result), ==, 0);
  g_assert_true (sp_run_result_succeeded (log->result));
  g_assert_cmpint (sp_run_result_get_stdout_bytes (log->result), ==, 6);
  g_assert_cmpint (sp_run_result_get_wall_ms (log->result), >, 0);
  g_assert_cmpint (sp_run_result_get_peak_memory (log->result), >, 0);
  g_assert_false (sp_run_result_get_truncated (log->result));

  g_assert_true (sp_runner_client_release (f->client, id, NULL));
  recorder_wait (&f->rec, id, "qsoer", RUN_TIMEOUT_MS);
}

/* A Python snippet's last value (a display event) shows as its text in
 * its place among the output (issue 25), with no critical on the way. */
static void
test_display (Fixture *f, gconstpointer data)
{
  g_autoptr (SpRunRequest) req = python ("print('a')\nx = 6 * 7\nx\n");
  g_autofree char *id = run (f, req);
  RunLog *log = recorder_wait (&f->rec, id, "e", RUN_TIMEOUT_MS);

  g_assert_cmpstr (log->out->str, ==, "a\n42\n");
  g_assert_cmpint (sp_run_result_get_exit_code (log->result), ==, 0);
}

/* The runner warms a python3 up after hello; Python runs then start warm,
 * and the result says so (the policy card shows it). */
static void
test_warm (Fixture *f, gconstpointer data)
{
  gint64 deadline = g_get_monotonic_time () + 90 * G_USEC_PER_SEC;
  gboolean warm = FALSE;

  while (!warm && g_get_monotonic_time () < deadline)
    {
      g_autoptr (SpRunRequest) req = python ("print('hello')");
      g_autofree char *id = run (f, req);
      RunLog *log = recorder_wait (&f->rec, id, "e", RUN_TIMEOUT_MS);

      g_assert_cmpstr (log->out->str, ==, "hello\n");
      warm = sp_run_result_get_warm (log->result);
      g_assert_true (sp_runner_client_release (f->client, id, NULL));
      recorder_wait (&f->rec, id, "qsoer", RUN_TIMEOUT_MS);
      if (!warm)
        g_usleep (200 * 1000);
    }
  g_assert_true (warm);
}

static void
test_stderr (Fixture *f, gconstpointer data)
{
  g_autoptr (SpRunRequest) req = python ("import sys\n"
                                         "print('out')\n"
                                         "sys.stdout.flush()\n"
                                         "print('oops', file=sys.stderr)\n"
                                         "sys.exit(2)\n");
  g_autofree char *id = run (f, req);
  RunLog *log = recorder_wait (&f->rec, id, "e", RUN_TIMEOUT_MS);

  g_assert_cmpstr (log->out->str, ==, "out\n");
  g_assert_cmpstr (log->err->str, ==, "oops\n");
  g_assert_cmpint (sp_run_result_get_exit_code (log->result), ==, 2);
  g_assert_cmpint (sp_run_result_get_stderr_bytes (log->result), ==, 5);
  g_assert_false (sp_run_result_succeeded (log->result));
}

/* The result carries the runner's reading of the error (program_error),
 * the same object the CLI and the MCP server give: the line in the
 * function that divided, the snippet's frames told from the rest. */
static void
test_error_info (Fixture *f, gconstpointer data)
{
  g_autoptr (SpRunRequest) req = python ("def ratio(a, b):\n"
                                         "    return a / b\n"
                                         "\n"
                                         "print(ratio(1, 0))\n");
  g_autoptr (SpRunRequest) named = python ("import json\njson.loads('{')\n");
  g_autofree char *id = run (f, req);
  RunLog *log = recorder_wait (&f->rec, id, "e", RUN_TIMEOUT_MS);
  SpErrorInfo *info = sp_run_result_get_error_info (log->result);

  g_assert_nonnull (info);
  g_assert_cmpstr (sp_error_info_get_error_type (info), ==, "ZeroDivisionError");
  g_assert_cmpstr (sp_error_info_get_message (info), ==, "division by zero");
  g_assert_cmpint (sp_error_info_get_line (info), ==, 2);
  g_assert_cmpuint (sp_error_info_get_n_frames (info), ==, 2);
  g_assert_cmpstr (sp_error_info_get_frame (info, 1)->function, ==, "ratio");
  g_assert_true (sp_error_info_get_frame (info, 0)->in_snippet);

  /* Named: library frames (json's) are not the snippet's. */
  sp_run_request_set_name (named, "calc.py");
  g_autofree char *id2 = run (f, named);
  log = recorder_wait (&f->rec, id2, "e", RUN_TIMEOUT_MS);
  info = sp_run_result_get_error_info (log->result);
  g_assert_nonnull (info);
  g_assert_cmpstr (sp_error_info_get_error_type (info), ==, "json.decoder.JSONDecodeError");
  g_assert_cmpint (sp_error_info_get_line (info), ==, 2);
  g_assert_true (sp_error_info_get_frame (info, 0)->in_snippet);
  g_assert_false (
    sp_error_info_get_frame (info, sp_error_info_get_n_frames (info) - 1)->in_snippet);

  /* A run that succeeded has none. */
  g_autoptr (SpRunRequest) fine = python ("print(1)\n");
  g_autofree char *id3 = run (f, fine);
  log = recorder_wait (&f->rec, id3, "e", RUN_TIMEOUT_MS);
  g_assert_null (sp_run_result_get_error_info (log->result));
}

static void
test_cancel (Fixture *f, gconstpointer data)
{
  g_autoptr (SpRunRequest) req = python ("print('spinning', flush=True)\nwhile True: pass\n");
  g_autofree char *id = run (f, req);
  RunLog *log;

  /* Cancel once it is really running, not while still queued. */
  recorder_wait (&f->rec, id, "qso", RUN_TIMEOUT_MS);
  g_assert_true (sp_runner_client_cancel (f->client, id, NULL));
  log = recorder_wait (&f->rec, id, "e", RUN_TIMEOUT_MS);
  g_assert_cmpint (sp_run_result_get_cancelled (log->result), ==, SP_RUN_CANCEL_INTERRUPT);
  g_assert_false (sp_run_result_succeeded (log->result));
  /* SIGINT: Python says so on stderr. */
  g_assert_nonnull (strstr (log->err->str, "KeyboardInterrupt"));

  /* A second cancel of an exited run is refused, and named. */
  g_assert_true (sp_runner_client_cancel (f->client, id, NULL));
  log = recorder_wait (&f->rec, id, "!", RUN_TIMEOUT_MS);
  g_assert_cmpstr (log->error_code, ==, "run_state");
  g_assert_cmpint (sp_runner_error_from_string (log->error_code), ==, SP_RUNNER_ERROR_RUN_STATE);
}

static void
test_stdin (Fixture *f, gconstpointer data)
{
  g_autoptr (SpRunRequest) req = python ("name = input()\nprint('hi', name)\n"
                                         "import sys\nprint(len(sys.stdin.read()))\n");
  g_autofree char *id = NULL;
  RunLog *log;

  sp_run_request_set_stdin_open (req, TRUE);
  id = run (f, req);
  /* The runner's input_wait: the program is blocked in input(), and once
   * the line is given, no longer. */
  recorder_wait (&f->rec, id, "qsW", RUN_TIMEOUT_MS);
  g_assert_true (sp_runner_client_send_stdin (f->client, id, "Ada\n", FALSE, NULL));
  recorder_wait (&f->rec, id, "Ww", RUN_TIMEOUT_MS);
  g_assert_true (sp_runner_client_send_stdin (f->client, id, "abc", FALSE, NULL));
  g_assert_true (sp_runner_client_send_stdin (f->client, id, NULL, TRUE, NULL));
  log = recorder_wait (&f->rec, id, "e", RUN_TIMEOUT_MS);
  g_assert_cmpstr (log->out->str, ==, "hi Ada\n3\n");
  g_assert_true (sp_run_result_succeeded (log->result));
}

typedef struct
{
  guint ticks;
  gint64 last;
  gint64 max_gap;
} Ticker;

static gboolean
tick (gpointer data)
{
  Ticker *t = data;
  gint64 now = g_get_monotonic_time ();

  t->max_gap = MAX (t->max_gap, now - t->last);
  t->last = now;
  t->ticks++;
  return G_SOURCE_CONTINUE;
}

/* 10 MB arrive while the main loop keeps turning: a 10 ms timer ticks all
 * along, never held up for long. */
static void
test_flood (Fixture *f, gconstpointer data)
{
  g_autoptr (SpRunRequest) req = python ("import sys\n"
                                         "for i in range(100):\n"
                                         "    sys.stdout.write('y' * 100000)\n");
  Ticker ticker = { 0, g_get_monotonic_time (), 0 };
  g_autofree char *id = NULL;
  gint64 begin, duration;
  RunLog *log;
  guint source;

  sp_run_request_set_output_limit (req, 16 * 1024 * 1024);
  begin = ticker.last = g_get_monotonic_time ();
  source = g_timeout_add (10, tick, &ticker);
  id = run (f, req);
  log = recorder_wait (&f->rec, id, "e", 60000);
  duration = g_get_monotonic_time () - begin;
  g_source_remove (source);

  g_assert_cmpuint (log->out->len, ==, 10000000);
  g_assert_cmpint (sp_run_result_get_stdout_bytes (log->result), ==, 10000000);
  g_assert_false (sp_run_result_get_truncated (log->result));
  g_assert_true (sp_run_result_succeeded (log->result));
  g_test_message ("flood: %" G_GINT64_FORMAT " ms, %u ticks, longest gap %" G_GINT64_FORMAT " ms",
                  duration / 1000, ticker.ticks, ticker.max_gap / 1000);
  /* Relative, so a slow machine is no failure: a reader that blocked
   * through the flood would leave one gap about as long as the flood. */
  g_assert_cmpuint (ticker.ticks, >=, 5);
  g_assert_cmpint (ticker.max_gap, <, duration / 3);
}

/* A submitted run comes back as an execution the client keeps up to date. */
static void
test_execution (Fixture *f, gconstpointer data)
{
  g_autoptr (SpRunRequest) req = python ("import time\nprint('x')\ntime.sleep(0.1)\n");
  g_autoptr (GError) error = NULL;
  SpExecution *exec = sp_runner_client_submit (f->client, req, &error);
  SpOutputModel *output;
  SpOutputItem *item;

  g_assert_no_error (error);
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_QUEUED);
  g_assert_cmpstr (sp_execution_get_language (exec), ==, "python");
  g_assert_cmpint (sp_execution_get_elapsed_ms (exec), ==, 0);
  recorder_wait (&f->rec, sp_execution_get_id (exec), "e", RUN_TIMEOUT_MS);

  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_EXITED);
  g_assert_true (sp_execution_is_finished (exec));
  g_assert_nonnull (sp_execution_get_cwd (exec));
  g_assert_nonnull (sp_execution_get_result (exec));
  g_assert_true (sp_run_result_succeeded (sp_execution_get_result (exec)));
  g_assert_null (sp_execution_get_error (exec));
  g_assert_cmpint (sp_execution_get_elapsed_ms (exec), >=, 100);
  output = sp_execution_get_output (exec);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (output)), ==, 1);
  item = g_list_model_get_item (G_LIST_MODEL (output), 0);
  g_assert_cmpstr (sp_output_item_get_text (item), ==, "x\n");
  g_assert_cmpint (sp_output_item_get_kind (item), ==, SP_OUTPUT_STDOUT);
  g_object_unref (item);
  /* The client let go of it at "exited". */
  g_assert_finalize_object (exec);
}

/* A refused request: an error event with its id, and nothing else. */
static void
test_refused (Fixture *f, gconstpointer data)
{
  g_autoptr (SpRunRequest) req = sp_run_request_new ("cobol", "DISPLAY 'HI'.");
  g_autoptr (SpExecution) exec = sp_runner_client_submit (f->client, req, NULL);
  const GError *error;
  RunLog *log = recorder_wait (&f->rec, sp_execution_get_id (exec), "!", RUN_TIMEOUT_MS);

  g_assert_cmpstr (log->events->str, ==, "!");
  g_assert_cmpstr (log->error_code, ==, "unsupported_language");
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_FAILED);
  error = sp_execution_get_error (exec);
  g_assert_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_UNSUPPORTED_LANGUAGE);
  g_assert_null (sp_execution_get_result (exec));
}

/* Code longer than the runner reads in a line (issue 23): that run fails
 * alone, before anything is sent, saying so with the limit; the
 * connection, and with it every other window's runs, goes on. Sent, it
 * broke the connection with "frame longer than 4194304 bytes". */
static void
test_too_big (Fixture *f, gconstpointer data)
{
  g_autoptr (GString) code = g_string_new ("print('big')\n");
  g_autoptr (SpRunRequest) big = NULL;
  g_autoptr (SpRunRequest) small = python ("print('after')\n");
  g_autoptr (GError) error = NULL;
  g_autofree char *refused = NULL;
  g_autofree char *id = NULL;
  RunLog *log;

  while (code->len <= SP_PROTO_MAX_FRAME)
    g_string_append (code, "# a comment line that only makes the file big\n");
  big = python (code->str);
  refused = sp_runner_client_run (f->client, big, &error);
  g_assert_null (refused);
  g_assert_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_FRAME_TOO_LARGE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "too big to run"));
  /* g_format_size puts a no-break space before the unit. */
  g_assert_nonnull (strstr (error->message, "at most 4.0"));

  g_assert_true (sp_runner_client_is_ready (f->client));
  id = run (f, small);
  log = recorder_wait (&f->rec, id, "e", RUN_TIMEOUT_MS);
  g_assert_nonnull (strstr (log->out->str, "after"));
}

/* cwd (writable by the sandbox's uid 65534), args and env reach the
 * program, and the files it made come back in the result. */
static void
test_cwd_args_env (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = g_dir_make_tmp ("sandpad-core-XXXXXX", NULL);
  g_autoptr (SpRunRequest) req = python ("import os, sys\n"
                                         "open('out.txt', 'w').write('hi')\n"
                                         "print(sys.argv[1:], os.environ['GREETING'])\n");
  const char *args[] = { "a", "b c", NULL };
  g_autofree char *id = NULL;
  g_autofree char *expected = NULL;
  const SpRunFile *file;
  RunLog *log;

  g_assert_nonnull (dir);
  g_assert_cmpint (g_chmod (dir, 0777), ==, 0);
  /* ...and one that belongs to the uid running the program. */
  if (geteuid () == 0)
    g_assert_cmpint (chown (dir, 65534, 65534), ==, 0);
  sp_run_request_set_cwd (req, dir);
  sp_run_request_set_args (req, args);
  sp_run_request_setenv (req, "GREETING", "hi");
  id = run (f, req);
  log = recorder_wait (&f->rec, id, "e", RUN_TIMEOUT_MS);
  g_assert_cmpstr (log->err->str, ==, "");
  g_assert_cmpstr (log->out->str, ==, "['a', 'b c'] hi\n");
  g_assert_cmpuint (sp_run_result_get_n_files (log->result), ==, 1);
  file = sp_run_result_get_file (log->result, 0);
  g_assert_cmpstr (file->relative, ==, "out.txt");
  expected = g_build_filename (dir, "out.txt", NULL);
  g_assert_cmpstr (file->path, ==, expected);
  g_assert_cmpint (file->size, ==, 2);

  /* A named cwd survives release. */
  g_assert_true (sp_runner_client_release (f->client, id, NULL));
  recorder_wait (&f->rec, id, "r", RUN_TIMEOUT_MS);
  g_assert_cmpint (g_unlink (expected), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* stop() closes the socket: the runner exits by itself (well within the
 * grace period), running executions fail as cancelled, and no "closed"
 * is emitted, since it was asked for. */
static void
test_stop (Fixture *f, gconstpointer data)
{
  g_autoptr (SpRunRequest) req = python ("print('up', flush=True)\nimport time\ntime.sleep(60)\n");
  g_autoptr (SpExecution) exec = sp_runner_client_submit (f->client, req, NULL);
  g_autofree char *pid = g_strdup (sp_runner_client_get_identifier (f->client));
  g_autoptr (GError) error = NULL;

  recorder_wait (&f->rec, sp_execution_get_id (exec), "o", RUN_TIMEOUT_MS);
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_RUNNING);
  sp_runner_client_stop (f->client);
  g_assert_false (sp_runner_client_is_ready (f->client));
  g_assert_null (sp_runner_client_get_identifier (f->client));
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_FAILED);
  g_assert_error (sp_execution_get_error (exec), G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_true (wait_process_gone (pid, 2500));
  g_assert_cmpuint (f->rec.n_closed, ==, 0);

  /* Requests now fail, without crashing anything. */
  g_assert_null (sp_runner_client_run (f->client, req, &error));
  g_assert_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_NOT_READY);
  g_clear_error (&error);
  g_assert_false (sp_runner_client_cancel (f->client, "r1", &error));
  g_assert_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_NOT_READY);
}

static void
test_not_started (void)
{
  SpRunnerClient *client = sp_runner_client_new (g_getenv ("SANDPAD_RUNNER"));
  g_autoptr (SpRunRequest) req = python ("print(1)");
  g_autoptr (GError) error = NULL;

  g_assert_false (sp_runner_client_is_ready (client));
  g_assert_null (sp_runner_client_get_languages (client));
  g_assert_null (sp_runner_client_get_runner_version (client));
  g_assert_false (sp_runner_client_get_limit (client, "timeout_ms", NULL, NULL));
  g_assert_null (sp_runner_client_run (client, req, &error));
  g_assert_error (error, SP_RUNNER_ERROR, SP_RUNNER_ERROR_NOT_READY);
  g_assert_finalize_object (client);
}

static void
test_error_codes (void)
{
  g_assert_cmpint (sp_runner_error_from_proto (SP_ERR_INVALID_JSON), ==,
                   SP_RUNNER_ERROR_INVALID_JSON);
  g_assert_cmpint (sp_runner_error_from_proto (SP_ERR_INTERNAL), ==, SP_RUNNER_ERROR_INTERNAL);
  g_assert_cmpint (sp_runner_error_from_proto (SP_ERR_NONE), ==, SP_RUNNER_ERROR_FAILED);
  g_assert_cmpint (sp_runner_error_from_string ("unknown_run"), ==, SP_RUNNER_ERROR_UNKNOWN_RUN);
  g_assert_cmpint (sp_runner_error_from_string ("no such code"), ==, SP_RUNNER_ERROR_FAILED);
  for (int code = SP_ERR_INVALID_JSON; code < SP_ERR_LAST; code++)
    g_assert_cmpstr (sp_runner_error_to_string (sp_runner_error_from_proto (code)), ==,
                     sp_proto_error_code_to_string (code));
  g_assert_null (sp_runner_error_to_string (SP_RUNNER_ERROR_TIMEOUT));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("SANDPAD_RUNNER"));

#define ADD(path, func)                                                                            \
  g_test_add ("/Sandpad/RunnerClient/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("handshake", test_handshake);
  ADD ("hello", test_hello);
  ADD ("stderr", test_stderr);
  ADD ("display", test_display);
  ADD ("warm", test_warm);
  ADD ("error-info", test_error_info);
  ADD ("cancel", test_cancel);
  ADD ("stdin", test_stdin);
  ADD ("flood", test_flood);
  ADD ("execution", test_execution);
  ADD ("refused", test_refused);
  ADD ("too-big", test_too_big);
  ADD ("cwd-args-env", test_cwd_args_env);
  ADD ("stop", test_stop);
#undef ADD
  g_test_add_func ("/Sandpad/RunnerClient/not-started", test_not_started);
  g_test_add_func ("/Sandpad/RunnerClient/error-codes", test_error_codes);
  return g_test_run ();
}
