/* test-run-history.c: the run history keeps every run across a restart
 * (a new store on the same directory), evicts the oldest past its cap,
 * skips damaged, truncated and foreign files with a message, and two runs
 * compare line by line. */
#include "config.h"

#include <glib/gstdio.h>

#include "sp-run-history.h"

static char *
make_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("sp-history-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static SpRunRecord *
make_record (gint64 time_us, const char *code, const char *out, const char *err,
             const char *error)
{
  SpRunRecord *r = sp_run_record_new ();

  r->time_us = time_us;
  r->duration_ms = 250;
  r->language = g_strdup ("python");
  r->code = g_strdup (code);
  r->stdout_text = g_strdup (out);
  r->stderr_text = g_strdup (err);
  r->end = g_strdup (error ? "Exited with code 1" : "Exited with code 0");
  r->succeeded = error == NULL;
  r->exit_code = error ? 1 : 0;
  r->error = g_strdup (error);
  return r;
}

static void
test_restart (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *key = sp_run_history_key_for_path ("/home/me/x.py");
  const char *tricky = "line 1\n  indented\ttab\r\n\\back\\slash\n# [group]\nkey=value\n";

  {
    g_autoptr (SpRunHistory) history = sp_run_history_new (dir, 0);
    g_autoptr (SpRunRecord) a = make_record (1000, "print(1)\n", "1\n", "", NULL);
    g_autoptr (SpRunRecord) b = make_record (2000, tricky, tricky, "oops\n",
                                             "ZeroDivisionError: division by zero");
    g_autoptr (GError) error = NULL;

    b->files = g_strsplit ("plot-1.png (12 kB),out.csv (1 kB)", ",", -1);
    g_assert_true (sp_run_history_add (history, key, a, &error));
    g_assert_no_error (error);
    g_assert_true (sp_run_history_add (history, key, b, &error));
    g_assert_nonnull (b->id);
  }
  {
    /* a new store on the same directory: what a restart of the app does */
    g_autoptr (SpRunHistory) history = sp_run_history_new (dir, 0);
    g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GPtrArray) runs = sp_run_history_list (history, key, warnings);
    g_autoptr (GPtrArray) other = sp_run_history_list (history, "file-none", NULL);
    SpRunRecord *b;

    g_assert_cmpuint (warnings->len, ==, 0);
    g_assert_cmpuint (other->len, ==, 0);
    g_assert_cmpuint (runs->len, ==, 2);
    g_assert_cmpstr (((SpRunRecord *) runs->pdata[0])->code, ==, "print(1)\n");
    b = runs->pdata[1];
    g_assert_cmpint (b->time_us, ==, 2000);
    g_assert_cmpint (b->duration_ms, ==, 250);
    g_assert_cmpstr (b->code, ==, tricky);
    g_assert_cmpstr (b->stdout_text, ==, tricky);
    g_assert_cmpstr (b->stderr_text, ==, "oops\n");
    g_assert_cmpstr (b->error, ==, "ZeroDivisionError: division by zero");
    g_assert_false (b->succeeded);
    g_assert_cmpint (b->exit_code, ==, 1);
    g_assert_cmpstr (b->files[1], ==, "out.csv (1 kB)");
  }
  remove_tree (dir);
}

static guint
count_runs (SpRunHistory *history, const char *key)
{
  g_autoptr (GPtrArray) runs = sp_run_history_list (history, key, NULL);

  return runs->len;
}

/* Past the cap the oldest go first, whichever file they belong to; the
 * newest run stays even when it alone is over the cap. */
static void
test_eviction (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpRunHistory) history = sp_run_history_new (dir, 20 * 1024);
  g_autofree char *big = g_strnfill (3000, 'x');
  g_autofree char *huge = g_strnfill (40 * 1024, 'y');
  g_autoptr (GPtrArray) left = NULL;

  for (guint i = 0; i < 12; i++)
    {
      g_autoptr (SpRunRecord) r = make_record (1000 + i, "code", big, "", NULL);
      g_assert_true (sp_run_history_add (history, i % 2 ? "file-a" : "file-b", r, NULL));
    }
  left = sp_run_history_list (history, "file-a", NULL);
  g_assert_cmpuint (left->len, >, 0);
  g_assert_cmpuint (left->len + count_runs (history, "file-b"), <, 12);
  g_assert_cmpuint (left->len + count_runs (history, "file-b"), >=, 5);
  /* the survivors are the newest */
  g_assert_cmpint (((SpRunRecord *) left->pdata[left->len - 1])->time_us, ==, 1011);
  g_assert_cmpint (((SpRunRecord *) left->pdata[0])->time_us, >, 1001);

  {
    g_autoptr (SpRunRecord) r = make_record (5000, "code", huge, "", NULL);
    g_autoptr (SpRunRecord) latest = NULL;
    g_assert_true (sp_run_history_add (history, "file-c", r, NULL));
    g_assert_cmpuint (count_runs (history, "file-a") + count_runs (history, "file-b"), ==, 0);
    latest = sp_run_history_latest (history, "file-c", NULL);
    g_assert_nonnull (latest);
    g_assert_cmpstr (latest->stdout_text, ==, huge);
  }
  remove_tree (dir);
}

/* Damaged, truncated and foreign files are skipped with a message each;
 * the good runs beside them are still listed. */
static void
test_damaged (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpRunHistory) history = sp_run_history_new (dir, 0);
  g_autoptr (SpRunRecord) good = make_record (3000, "ok", "fine\n", "", NULL);
  g_autoptr (SpRunRecord) victim = make_record (4000, "cut", "will be cut\n", "", NULL);
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) runs = NULL;
  g_autofree char *key_dir = g_build_filename (dir, "file-k", NULL);
  g_autofree char *victim_path = NULL;
  g_autofree char *contents = NULL;
  gsize len;

  g_assert_true (sp_run_history_add (history, "file-k", good, NULL));
  g_assert_true (sp_run_history_add (history, "file-k", victim, NULL));
  victim_path = g_build_filename (key_dir, victim->id, NULL);
  g_assert_true (g_file_get_contents (victim_path, &contents, &len, NULL));
  /* truncated: cut in the middle, before the [end] group */
  g_assert_true (g_file_set_contents (victim_path, contents, (gssize) len / 2, NULL));
  {
    g_autofree char *p1 = g_build_filename (key_dir, "00000000000000000001-garbage.run", NULL);
    g_autofree char *p2 = g_build_filename (key_dir, "00000000000000000002-binary.run", NULL);
    g_autofree char *p3 = g_build_filename (key_dir, "notes.txt", NULL);
    g_autofree char *p4 = g_build_filename (key_dir, "00000000000000000003-future.run", NULL);
    g_autofree char *p5 = g_build_filename (key_dir, "00000000000000000004-dir.run", NULL);
    g_assert_true (g_file_set_contents (p1, "[run]\nversion=1\ntime-us=abc\n[end]\ncomplete=true\n",
                                        -1, NULL));
    g_assert_true (g_file_set_contents (p2, "\x89PNG\r\n\x1a\n\xff\xfe\x00\x01", 12, NULL));
    g_assert_true (g_file_set_contents (p3, "hello", -1, NULL));
    g_assert_true (g_file_set_contents (p4, "[run]\nversion=99\n[end]\ncomplete=true\n", -1,
                                        NULL));
    g_assert_cmpint (g_mkdir (p5, 0700), ==, 0);
  }
  runs = sp_run_history_list (history, "file-k", warnings);
  g_assert_cmpuint (runs->len, ==, 1);
  g_assert_cmpstr (((SpRunRecord *) runs->pdata[0])->code, ==, "ok");
  g_assert_cmpuint (warnings->len, ==, 6);
  for (guint i = 0; i < warnings->len; i++)
    g_assert_true (strstr (g_ptr_array_index (warnings, i), "Skipped") != NULL);
  remove_tree (dir);
}

static void
test_compare (void)
{
  g_autoptr (SpRunRecord) a = make_record (1, "c", "one\ntwo\nthree\n", "", NULL);
  g_autoptr (SpRunRecord) b = make_record (2, "c", "one\nTWO\nthree\n", "warn\n",
                                           "ValueError: bad");
  g_autoptr (SpRunRecord) c = make_record (3, "c", "one\nTWO\nthree\n", "warn\n",
                                           "ValueError: bad");
  g_autoptr (SpRunRecord) d = make_record (4, "c", "one\nTWO\nthree\n", "warn\n",
                                           "ValueError: worse");
  g_autoptr (SpRunComparison) ab = sp_run_record_compare (a, b);
  g_autoptr (SpRunComparison) bc = sp_run_record_compare (b, c);
  g_autoptr (SpRunComparison) cd = sp_run_record_compare (c, d);
  g_autoptr (SpRunComparison) da = sp_run_record_compare (d, a);
  g_autofree char *ab_text = sp_run_comparison_to_text (ab, a, b);
  g_autofree char *ab_line = sp_run_comparison_describe (ab);
  g_autofree char *bc_line = sp_run_comparison_describe (bc);

  g_assert_false (ab->same_output);
  g_assert_cmpint (ab->error_change, ==, SP_RUN_ERROR_APPEARED);
  g_assert_true (strstr (ab_text, "-two\n+TWO\n") != NULL);
  g_assert_true (strstr (ab_text, "+warn\n") != NULL);
  g_assert_true (strstr (ab_text, "Error appeared: ValueError: bad") != NULL);
  g_assert_true (strstr (ab_line, "1 line of stdout differs") != NULL);
  g_assert_true (bc->same_output);
  g_assert_cmpint (bc->error_change, ==, SP_RUN_ERROR_SAME);
  g_assert_cmpstr (bc_line, ==, "Same output as the last run");
  g_assert_false (cd->same_output);
  g_assert_cmpint (cd->error_change, ==, SP_RUN_ERROR_CHANGED);
  g_assert_cmpint (da->error_change, ==, SP_RUN_ERROR_GONE);
}

int
main (int argc, char **argv)
{
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/run-history/restart", test_restart);
  g_test_add_func ("/run-history/eviction", test_eviction);
  g_test_add_func ("/run-history/damaged", test_damaged);
  g_test_add_func ("/run-history/compare", test_compare);
  return g_test_run ();
}
