/* test-run-recorder.c: a window's runs kept in the history, against the
 * real runner: each run under the document's key with its code, language,
 * output and end; the first of a key compared with nothing, the next with
 * the one before; and an untitled buffer's runs found again by a document
 * restored from its copy, as after a restart; an assistant's
 * edit_and_execute of the file kept beside them, once, with its tool,
 * code, output, end and diff, read back the same from the store; its
 * code read from the file the run left, once. */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp-run-recorder.h"
#include "sp-test-tree.h"
#include "sp-test-wait.h"

#define WAIT_MS 30000

typedef struct
{
  guint n_recorded;
  guint n_compared;
  char *comparison;
  char *code;
  char *out;
  gboolean succeeded;
} Seen;

static gboolean
sup_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (data);
}

static void
on_compared (SpRunRecorder *recorder, SpRunRecord *record, const char *comparison, Seen *seen)
{
  g_free (seen->comparison);
  seen->comparison = g_strdup (comparison);
  seen->n_compared++;
}

static void
on_recorded (SpRunRecorder *recorder, SpRunRecord *record, Seen *seen)
{
  g_free (seen->code);
  seen->code = g_strdup (record->code);
  g_free (seen->out);
  seen->out = g_strdup (record->stdout_text);
  seen->succeeded = record->succeeded;
  seen->n_recorded++;
}

typedef struct
{
  Seen *seen;
  guint n;
} Until;

static gboolean
has_recorded (gpointer data)
{
  Until *u = data;

  return u->seen->n_recorded >= u->n;
}

static gboolean
has_compared (gpointer data)
{
  Until *u = data;

  return u->seen->n_compared >= u->n;
}

/* The comparison is made in a worker thread, after "recorded". */
static void
wait_compared (Seen *seen, guint n)
{
  Until u = { seen, n };

  g_assert_true (sp_test_wait_for (has_compared, &u, WAIT_MS));
}

static void
run (SpRunController *runs, Seen *seen, const char *code)
{
  g_autoptr (SpRunRequest) request = sp_run_request_new ("python", code);
  g_autoptr (GError) error = NULL;
  Until u = { seen, seen->n_recorded + 1 };

  g_assert_true (sp_run_controller_start (runs, request, &error));
  g_assert_no_error (error);
  g_assert_true (sp_test_wait_for (has_recorded, &u, WAIT_MS));
}

static void
test_record (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("sp-recorder-XXXXXX", &error);
  g_autofree char *history_dir = g_build_filename (dir, "history", NULL);
  g_autoptr (SpRunnerSupervisor) sup = sp_runner_supervisor_new (g_getenv ("SANDPAD_RUNNER"));
  g_autoptr (SpRunHistory) store = sp_run_history_new (history_dir, 1024 * 1024);
  g_autoptr (SpDocument) document = sp_document_new (dir);
  g_autoptr (SpDocument) restored = sp_document_new (dir);
  g_autoptr (SpRunController) runs = NULL;
  g_autoptr (SpRunRecorder) recorder = NULL;
  g_autoptr (GPtrArray) kept = NULL;
  g_autofree char *key = NULL;
  g_autofree char *restored_key = NULL;
  Seen seen = { 0 };

  g_assert_no_error (error);
  sp_runner_supervisor_start (sup);
  g_assert_true (sp_test_wait_for (sup_ready, sup, 15000));
  runs = sp_run_controller_new (sup);
  recorder = sp_run_recorder_new (runs, document, store);
  g_signal_connect (recorder, "recorded", G_CALLBACK (on_recorded), &seen);
  g_signal_connect (recorder, "compared", G_CALLBACK (on_compared), &seen);

  run (runs, &seen, "print('one')\n");
  g_assert_null (seen.comparison);
  g_assert_cmpstr (seen.code, ==, "print('one')\n");
  g_assert_cmpstr (seen.out, ==, "one\n");
  g_assert_true (seen.succeeded);

  /* The same output again: compared with the one before. */
  run (runs, &seen, "print('one')\n");
  wait_compared (&seen, 1);
  g_assert_nonnull (seen.comparison);
  run (runs, &seen, "print('two')\nraise SystemExit(1)\n");
  wait_compared (&seen, 2);
  g_assert_nonnull (seen.comparison);
  g_assert_false (seen.succeeded);

  key = sp_run_recorder_dup_key (recorder);
  kept = sp_run_history_list (store, key, NULL);
  g_assert_cmpuint (kept->len, ==, 3);
  g_clear_pointer (&kept, g_ptr_array_unref);

  /* A restart: a new document restored from the untitled buffer's copy
   * finds its runs. */
  {
    SpAutosaveEntry entry = { .id = (char *) sp_document_get_autosave_id (document),
                              .text = "print('two')\n",
                              .length = 13 };
    sp_document_restore (restored, &entry);
  }
  restored_key = sp_document_dup_history_key (restored);
  g_assert_cmpstr (restored_key, ==, key);
  kept = sp_run_history_list (store, restored_key, NULL);
  g_assert_cmpuint (kept->len, ==, 3);

  g_signal_handlers_disconnect_by_data (recorder, &seen);
  g_clear_object (&recorder);
  g_clear_object (&runs);
  sp_runner_supervisor_stop (sup);
  sp_document_close (document, TRUE);
  sp_document_close (restored, TRUE);
  g_free (seen.comparison);
  g_free (seen.code);
  g_free (seen.out);
  sp_test_remove_tree (dir);
}

/* An assistant's run of path, as SpActivityModel fills one from the
 * journal. */
static SpActivityRun *
assistant_run_of (const char *id, const char *path, gboolean ended)
{
  SpActivityRun *run = _sp_activity_run_new (id);
  const char *files[] = { "out.txt", NULL };

  _sp_activity_run_set_start (run, "edit_and_execute", "python", path, path, "/ws",
                              "2026-11-23T09:09:51.425Z", 4242);
  _sp_activity_run_add_output (run, FALSE, "after the edit\n");
  _sp_activity_run_add_output (run, TRUE, "Traceback ...\nZeroDivisionError: division by zero\n");
  if (ended)
    _sp_activity_run_set_end (run, "exited", 1, 250, "ZeroDivisionError: division by zero",
                              "--- prog.py\n+++ prog.py\n@@ -1 +1 @@\n-print('before')\n"
                              "+print('after the edit'); print(1 / 0)\n",
                              files, NULL, NULL);
  return run;
}

static SpActivityRun *
assistant_run (const char *id, gboolean ended)
{
  return assistant_run_of (id, "/ws/prog.py", ended);
}

static void
test_assistant_run (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("sp-recorder-XXXXXX", &error);
  g_autofree char *history_dir = g_build_filename (dir, "history", NULL);
  g_autoptr (SpRunnerSupervisor) sup = sp_runner_supervisor_new (g_getenv ("SANDPAD_RUNNER"));
  g_autoptr (SpRunHistory) store = sp_run_history_new (history_dir, 1024 * 1024);
  g_autoptr (SpRunHistory) reread = sp_run_history_new (history_dir, 1024 * 1024);
  g_autoptr (SpDocument) document = sp_document_new (dir);
  g_autoptr (SpRunController) runs = sp_run_controller_new (sup);
  g_autoptr (SpRunRecorder) recorder = sp_run_recorder_new (runs, document, store);
  g_autoptr (SpActivityRun) going = assistant_run ("4242-mcp-1", FALSE);
  g_autoptr (SpActivityRun) ended = assistant_run ("4242-mcp-2", TRUE);
  g_autoptr (GPtrArray) kept = NULL;
  g_autofree char *key = sp_run_recorder_dup_key (recorder);
  const char *code = "print('after the edit'); print(1 / 0)\n";
  SpRunRecord *r;
  Seen seen = { 0 };

  g_assert_no_error (error);
  g_signal_connect (recorder, "recorded", G_CALLBACK (on_recorded), &seen);
  /* still running: nothing to keep yet */
  g_assert_false (sp_run_recorder_add_assistant_run (recorder, going, code));
  g_assert_cmpuint (seen.n_recorded, ==, 0);

  g_assert_true (sp_run_recorder_add_assistant_run (recorder, ended, code));
  g_assert_cmpuint (seen.n_recorded, ==, 1);
  /* each journal run once, however often its "changed" comes */
  g_assert_false (sp_run_recorder_claim_assistant_run (recorder, ended));
  g_assert_false (sp_run_recorder_add_assistant_run (recorder, ended, code));
  g_assert_cmpuint (seen.n_recorded, ==, 1);

  /* read back from the files, as a new process would */
  kept = sp_run_history_list (reread, key, NULL);
  g_assert_cmpuint (kept->len, ==, 1);
  r = g_ptr_array_index (kept, 0);
  g_assert_cmpstr (r->tool, ==, "edit_and_execute");
  g_assert_cmpstr (r->assistant_run, ==, "4242-mcp-2");
  g_assert_cmpstr (r->code, ==, code);
  g_assert_cmpstr (r->language, ==, "python");
  g_assert_cmpstr (r->stdout_text, ==, "after the edit\n");
  g_assert_nonnull (strstr (r->stderr_text, "ZeroDivisionError"));
  g_assert_cmpstr (r->error, ==, "ZeroDivisionError: division by zero");
  g_assert_cmpint (r->exit_code, ==, 1);
  g_assert_false (r->succeeded);
  g_assert_cmpint (r->duration_ms, ==, 250);
  g_assert_cmpstr (r->end, ==, "Exited with code 1 · 0.25 s");
  g_assert_nonnull (strstr (r->diff, "+print('after the edit'); print(1 / 0)\n"));
  g_assert_cmpstr (r->files[0], ==, "out.txt");
  /* the journal's UTC start time */
  g_assert_cmpint (r->time_us, ==, G_GINT64_CONSTANT (1795424991425000));

  g_signal_handlers_disconnect_by_data (recorder, &seen);
  g_clear_object (&recorder);
  sp_document_close (document, TRUE);
  g_free (seen.code);
  g_free (seen.out);
  sp_test_remove_tree (dir);
}

/* Writes to the FIFO at path until its reader goes (EPIPE). */
static gpointer
feed_fifo (gpointer path)
{
  static const char chunk[65536] = { 'x' };
  int fd = open (path, O_WRONLY | O_CLOEXEC);

  if (fd < 0)
    return NULL;
  while (write (fd, chunk, sizeof chunk) > 0)
    ;
  close (fd);
  return NULL;
}

/* The recorder reads the code from the file the run left, once per run;
 * a file it cannot read keeps the run without its code. */
static void
test_assistant_file (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("sp-recorder-XXXXXX", &error);
  g_autofree char *history_dir = g_build_filename (dir, "history", NULL);
  g_autofree char *path = g_build_filename (dir, "prog.py", NULL);
  g_autofree char *missing = g_build_filename (dir, "gone.py", NULL);
  g_autoptr (SpRunnerSupervisor) sup = sp_runner_supervisor_new (g_getenv ("SANDPAD_RUNNER"));
  g_autoptr (SpRunHistory) store = sp_run_history_new (history_dir, 1024 * 1024);
  g_autoptr (SpDocument) document = sp_document_new (dir);
  g_autoptr (SpRunController) runs = sp_run_controller_new (sup);
  g_autoptr (SpRunRecorder) recorder = sp_run_recorder_new (runs, document, store);
  g_autoptr (SpActivityRun) going = assistant_run_of ("4242-mcp-1", path, FALSE);
  g_autoptr (SpActivityRun) ended = assistant_run_of ("4242-mcp-2", path, TRUE);
  g_autoptr (SpActivityRun) lost = assistant_run_of ("4242-mcp-3", missing, TRUE);
  const char *code = "print('after the edit'); print(1 / 0)\n";
  Until u = { NULL, 1 };
  Seen seen = { 0 };

  g_assert_no_error (error);
  u.seen = &seen;
  g_assert_true (g_file_set_contents (path, code, -1, &error));
  g_assert_no_error (error);
  g_signal_connect (recorder, "recorded", G_CALLBACK (on_recorded), &seen);
  g_assert_false (sp_run_recorder_keep_assistant_run (recorder, going));
  g_assert_true (sp_run_recorder_keep_assistant_run (recorder, ended));
  /* claimed: a second "changed" before the read ends reads nothing */
  g_assert_false (sp_run_recorder_keep_assistant_run (recorder, ended));
  g_assert_cmpuint (seen.n_recorded, ==, 0);
  g_assert_true (sp_test_wait_for (has_recorded, &u, WAIT_MS));
  g_assert_cmpstr (seen.code, ==, code);
  g_assert_cmpstr (seen.out, ==, "after the edit\n");
  g_assert_false (sp_run_recorder_keep_assistant_run (recorder, ended));

  g_assert_true (sp_run_recorder_keep_assistant_run (recorder, lost));
  u.n = 2;
  g_assert_true (sp_test_wait_for (has_recorded, &u, WAIT_MS));
  g_assert_cmpstr (seen.code, ==, "");
  g_assert_cmpuint (seen.n_recorded, ==, 2);

  /* A file past the cap is not read whole to be dropped: an endless one
   * (a FIFO fed without end) is given up past the cap, and the run is kept
   * without its code. */
  g_autofree char *endless = g_build_filename (dir, "endless.py", NULL);
  g_autoptr (SpActivityRun) huge = assistant_run_of ("4242-mcp-4", endless, TRUE);
  g_assert_cmpint (mkfifo (endless, 0600), ==, 0);
  g_autoptr (GThread) feeder = g_thread_new ("feeder", feed_fifo, endless);
  g_assert_true (sp_run_recorder_keep_assistant_run (recorder, huge));
  u.n = 3;
  g_assert_true (sp_test_wait_for (has_recorded, &u, WAIT_MS));
  g_assert_cmpstr (seen.code, ==, "");
  g_thread_join (g_steal_pointer (&feeder));

  g_signal_handlers_disconnect_by_data (recorder, &seen);
  g_clear_object (&recorder);
  sp_document_close (document, TRUE);
  g_free (seen.code);
  g_free (seen.out);
  sp_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* feed_fifo learns its reader is gone from EPIPE. */
  signal (SIGPIPE, SIG_IGN);
  g_assert_nonnull (g_getenv ("SANDPAD_RUNNER"));
  g_test_add_func ("/run-recorder/record", test_record);
  g_test_add_func ("/run-recorder/assistant-run", test_assistant_run);
  g_test_add_func ("/run-recorder/assistant-file", test_assistant_file);
  return g_test_run ();
}
