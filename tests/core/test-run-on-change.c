/* test-run-on-change.c: Run on Change without a display (SpRunOnChange,
 * issue 24): the rerun's ticks (stop a run going first, wait for the
 * runner, wait for an assistant's journal line after a change on disk),
 * the toggle remembered per file, a save that runs the file against the
 * real runner, and a change on disk an assistant's edit_and_execute made,
 * which is not run again, with its control. */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "sp-run-on-change.h"
#include "sp-test-tree.h"
#include "sp-test-wait.h"

static void
test_step (void)
{
  /* A run going is stopped once, on the first tick, then waited for. */
  g_assert_cmpint (sp_run_on_change_step (1, TRUE, TRUE, FALSE, FALSE), ==, SP_RERUN_STOP);
  g_assert_cmpint (sp_run_on_change_step (2, TRUE, TRUE, FALSE, FALSE), ==, SP_RERUN_WAIT);
  g_assert_cmpint (sp_run_on_change_step (2, TRUE, TRUE, TRUE, TRUE), ==, SP_RERUN_WAIT);
  /* The runner not ready yet (a window just opened): wait. */
  g_assert_cmpint (sp_run_on_change_step (1, FALSE, FALSE, FALSE, FALSE), ==, SP_RERUN_WAIT);
  /* A save: run at once. */
  g_assert_cmpint (sp_run_on_change_step (1, FALSE, TRUE, FALSE, FALSE), ==, SP_RERUN_RUN);
  /* A change on disk: a few ticks for the journal line, then run... */
  for (guint tick = 1; tick < 4; tick++)
    g_assert_cmpint (sp_run_on_change_step (tick, FALSE, TRUE, TRUE, FALSE), ==, SP_RERUN_WAIT);
  g_assert_cmpint (sp_run_on_change_step (4, FALSE, TRUE, TRUE, FALSE), ==, SP_RERUN_RUN);
  /* ...unless an assistant's run explains it, whenever that is seen. */
  g_assert_cmpint (sp_run_on_change_step (1, FALSE, TRUE, TRUE, TRUE), ==, SP_RERUN_GIVE_UP);
  g_assert_cmpint (sp_run_on_change_step (4, FALSE, TRUE, TRUE, TRUE), ==, SP_RERUN_GIVE_UP);
  /* A save is never explained away. */
  g_assert_cmpint (sp_run_on_change_step (1, FALSE, TRUE, FALSE, TRUE), ==, SP_RERUN_RUN);
  /* Not forever: 100 ticks and it is dropped. */
  g_assert_cmpint (sp_run_on_change_step (101, TRUE, TRUE, FALSE, FALSE), ==, SP_RERUN_WAIT);
  g_assert_cmpint (sp_run_on_change_step (102, TRUE, TRUE, FALSE, FALSE), ==, SP_RERUN_GIVE_UP);
  g_assert_cmpint (sp_run_on_change_step (102, FALSE, FALSE, FALSE, FALSE), ==, SP_RERUN_GIVE_UP);
}

typedef struct
{
  char *dir;
  char *path;
  GFile *file;
  GSettings *settings;
  SpRunnerSupervisor *supervisor;
  SpRunController *runs;
  SpActivityModel *activity;
  SpDocument *document;
  SpRunOnChange *roc;
  guint n_run;
  guint n_active;
} Fixture;

static void
on_run (SpRunOnChange *roc, Fixture *f)
{
  f->n_run++;
}

static void
on_active (SpRunOnChange *roc, GParamSpec *pspec, Fixture *f)
{
  f->n_active++;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autofree char *made = g_dir_make_tmp ("sp-roc-XXXXXX", NULL);

  f->dir = g_canonicalize_filename (made, NULL);
  f->path = g_build_filename (f->dir, "prog.py", NULL);
  g_assert_true (g_file_set_contents (f->path, "print(1)\n", -1, NULL));
  f->file = g_file_new_for_path (f->path);
  f->settings = g_settings_new (APP_ID);
  f->supervisor = sp_runner_supervisor_new (g_getenv ("SANDPAD_RUNNER"));
  f->runs = sp_run_controller_new (f->supervisor);
  f->activity = sp_activity_model_new (f->dir);
  /* Made before the file is set: "loaded" tells it. */
  f->document = sp_document_new (NULL);
  f->roc = sp_run_on_change_new (f->document, f->runs, f->activity, f->settings);
  g_signal_connect (f->roc, "run", G_CALLBACK (on_run), f);
  g_signal_connect (f->roc, "notify::active", G_CALLBACK (on_active), f);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_clear_object (&f->roc);
  sp_document_close (f->document, TRUE);
  g_clear_object (&f->document);
  g_clear_object (&f->activity);
  g_clear_object (&f->runs);
  sp_runner_supervisor_stop (f->supervisor);
  g_clear_object (&f->supervisor);
  g_settings_reset (f->settings, "run-on-change-files");
  g_clear_object (&f->settings);
  g_clear_object (&f->file);
  sp_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->path);
}

static gboolean
supervisor_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (data);
}

static void
start_runner (Fixture *f)
{
  sp_runner_supervisor_start (f->supervisor);
  g_assert_true (sp_test_wait_for (supervisor_ready, f->supervisor, 15000));
}

static gboolean
settled (gpointer data)
{
  return !sp_run_on_change_get_pending (data);
}

static void
test_remember (Fixture *f, gconstpointer data)
{
  g_autofree char *uri = g_file_get_uri (f->file);
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_auto (GStrv) many = NULL;
  g_auto (GStrv) files = NULL;
  g_autoptr (SpDocument) other = NULL;
  g_autoptr (SpRunOnChange) other_roc = NULL;

  /* Untitled: on for this window, nothing remembered. */
  sp_run_on_change_set_active (f->roc, TRUE);
  g_assert_true (sp_run_on_change_get_active (f->roc));
  files = g_settings_get_strv (f->settings, "run-on-change-files");
  g_assert_cmpuint (g_strv_length (files), ==, 0);
  g_clear_pointer (&files, g_strfreev);
  /* Loading a file not remembered turns it off. */
  g_autoptr (GBytes) contents = g_bytes_new_static ("print(1)\n", 9);
  sp_document_set_file (f->document, f->file, contents);
  g_assert_false (sp_run_on_change_get_active (f->roc));
  g_assert_cmpuint (f->n_active, ==, 2);

  /* 200 files remembered already: this one goes first, the oldest off. */
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *u = g_strdup_printf ("file:///elsewhere/%u.py", i);
      g_strv_builder_add (builder, u);
    }
  many = g_strv_builder_end (builder);
  g_settings_set_strv (f->settings, "run-on-change-files", (const char *const *) many);
  sp_run_on_change_set_active (f->roc, TRUE);
  files = g_settings_get_strv (f->settings, "run-on-change-files");
  g_assert_cmpuint (g_strv_length (files), ==, 200);
  g_assert_cmpstr (files[0], ==, uri);
  g_assert_cmpstr (files[1], ==, "file:///elsewhere/0.py");
  g_assert_false (g_strv_contains ((const char *const *) files, "file:///elsewhere/199.py"));
  g_clear_pointer (&files, g_strfreev);

  /* Another window opening the file finds it on. */
  other = sp_document_new (NULL);
  other_roc = sp_run_on_change_new (other, f->runs, f->activity, f->settings);
  sp_document_set_file (other, f->file, contents);
  g_assert_true (sp_run_on_change_get_active (other_roc));
  /* Off: forgotten, the rest kept. */
  sp_run_on_change_set_active (f->roc, FALSE);
  files = g_settings_get_strv (f->settings, "run-on-change-files");
  g_assert_cmpuint (g_strv_length (files), ==, 199);
  g_assert_false (g_strv_contains ((const char *const *) files, uri));
  sp_document_close (other, TRUE);
}

static void
test_saved (Fixture *f, gconstpointer data)
{
  g_autoptr (GBytes) contents = g_bytes_new_static ("print(1)\n", 9);

  start_runner (f);
  sp_document_set_file (f->document, f->file, contents);
  /* Control: off, a save asks for nothing. */
  g_signal_emit_by_name (f->document, "saved");
  g_assert_false (sp_run_on_change_get_pending (f->roc));
  sp_run_on_change_set_active (f->roc, TRUE);
  g_signal_emit_by_name (f->document, "saved");
  g_assert_true (sp_run_on_change_get_pending (f->roc));
  g_assert_true (sp_test_wait_for (settled, f->roc, 15000));
  g_assert_cmpuint (f->n_run, ==, 1);
  /* Turned off while one is pending: dropped. */
  g_signal_emit_by_name (f->document, "saved");
  sp_run_on_change_set_active (f->roc, FALSE);
  g_assert_false (sp_run_on_change_get_pending (f->roc));
  g_assert_cmpuint (f->n_run, ==, 1);
}

static void
append (const char *dir, const char *text)
{
  g_autofree char *path = g_build_filename (dir, "live.jsonl", NULL);
  int fd = g_open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, text, strlen (text)), ==, (ssize_t) strlen (text));
  close (fd);
}

static void
test_disk (Fixture *f, gconstpointer data)
{
  g_autoptr (GBytes) contents = g_bytes_new_static ("print(1)\n", 9);
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *time = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S.000Z");
  g_autofree char *edit = NULL;

  start_runner (f);
  sp_document_set_file (f->document, f->file, contents);
  sp_run_on_change_set_active (f->roc, TRUE);
  /* Control: a change on disk no assistant explains runs, after waiting
   * for a journal line that never comes. */
  sp_run_on_change_disk_changed (f->roc);
  g_assert_true (sp_run_on_change_get_pending (f->roc));
  g_assert_true (sp_test_wait_for (settled, f->roc, 15000));
  g_assert_cmpuint (f->n_run, ==, 1);
  /* An assistant's edit_and_execute of the file, started now: its run is
   * the file's run, not run again. */
  edit = g_strdup_printf ("{\"v\":1,\"event\":\"start\",\"run\":\"1-mcp-1\",\"time\":\"%s\","
                          "\"tool\":\"edit_and_execute\",\"server_pid\":%d,\"workspace\":\"%s\","
                          "\"input\":{\"path\":\"prog.py\",\"edits\":1}}\n",
                          time, (int) getpid (), f->dir);
  append (f->dir, edit);
  sp_run_on_change_disk_changed (f->roc);
  g_assert_true (sp_run_on_change_get_pending (f->roc));
  g_assert_true (sp_test_wait_for (settled, f->roc, 15000));
  g_assert_cmpuint (f->n_run, ==, 1);
  /* A save after it is the person's: it runs. */
  g_signal_emit_by_name (f->document, "saved");
  g_assert_true (sp_test_wait_for (settled, f->roc, 15000));
  g_assert_cmpuint (f->n_run, ==, 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/run-on-change/step", test_step);
#define ADD(path, func)                                                                            \
  g_test_add ("/Sandpad/run-on-change/" path, Fixture, NULL, fixture_set_up, func,                 \
              fixture_tear_down)
  ADD ("remember", test_remember);
  ADD ("saved", test_saved);
  ADD ("disk", test_disk);
  return g_test_run ();
}
