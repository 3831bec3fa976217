/* test-run-history.c: the run history keeps every run across a restart
 * (a new store on the same directory), evicts the oldest past its cap,
 * skips damaged, truncated and foreign files with a message, and two runs
 * compare line by line. A run's images are kept byte for byte up to the
 * per-run cap, count in the store's cap, go with their run, and a damaged
 * one is skipped with a message. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp-run-history.h"
#include "sp-test-tree.h"

static char *
make_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("sp-history-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

/* A run's file by its path: its folder is the run's directory. */
static gboolean
keep (SpRunRecord *record, const char *name, const char *mime, const char *path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);

  return sp_run_record_keep_image (record, name, mime, dir, base, error);
}

static SpRunRecord *
make_record (gint64 time_us, const char *code, const char *out, const char *err, const char *error)
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
  sp_test_remove_tree (dir);
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
  sp_test_remove_tree (dir);
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
    g_assert_true (
      g_file_set_contents (p1, "[run]\nversion=1\ntime-us=abc\n[end]\ncomplete=true\n", -1, NULL));
    g_assert_true (g_file_set_contents (p2, "\x89PNG\r\n\x1a\n\xff\xfe\x00\x01", 12, NULL));
    g_assert_true (g_file_set_contents (p3, "hello", -1, NULL));
    g_assert_true (g_file_set_contents (p4, "[run]\nversion=99\n[end]\ncomplete=true\n", -1, NULL));
    g_assert_cmpint (g_mkdir (p5, 0700), ==, 0);
  }
  runs = sp_run_history_list (history, "file-k", warnings);
  g_assert_cmpuint (runs->len, ==, 1);
  g_assert_cmpstr (((SpRunRecord *) runs->pdata[0])->code, ==, "ok");
  g_assert_cmpuint (warnings->len, ==, 6);
  for (guint i = 0; i < warnings->len; i++)
    g_assert_true (strstr (g_ptr_array_index (warnings, i), "Skipped") != NULL);
  /* the newest file is the damaged one: the latest run is the one before */
  {
    g_autoptr (SpRunRecord) latest = sp_run_history_latest (history, "file-k", NULL);
    g_assert_nonnull (latest);
    g_assert_cmpstr (latest->code, ==, "ok");
  }
  sp_test_remove_tree (dir);
}

/* Every byte value, NULs and line ends included, in a pattern of its own
 * per seed: what an image's bytes could be, and not text. */
static GBytes *
make_bytes (gsize size, guint seed)
{
  guint8 *data = g_malloc (size);

  for (gsize i = 0; i < size; i++)
    data[i] = (guint8) ((i * 7 + seed * 31 + (i >> 8)) & 0xff);
  return g_bytes_new_take (data, size);
}

/* A file of the run's directory, as the runner leaves it. */
static char *
make_run_file (const char *run_dir, const char *name, GBytes *bytes)
{
  char *path = g_build_filename (run_dir, name, NULL);
  gsize size;
  const char *data = g_bytes_get_data (bytes, &size);

  g_assert_true (g_file_set_contents (path, data, (gssize) size, NULL));
  return path;
}

static guint
count_files (const char *dir, const char *infix)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (strstr (name, infix) != NULL)
      n++;
  return n;
}

static SpRunImage *
image_at (SpRunRecord *record, guint index)
{
  return g_ptr_array_index (record->images, index);
}

/* A run's images come back byte for byte from a new store on the same
 * directory, with their names and types, and nothing is warned about. */
static void
test_images_restart (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *run_dir = make_dir ();
  g_autoptr (GBytes) png = make_bytes (70000, 1);
  g_autoptr (GBytes) svg = g_bytes_new_static ("<svg xmlns='http://www.w3.org/2000/svg'/>\n", 43);
  g_autofree char *png_path = make_run_file (run_dir, "plot-1.png", png);
  g_autofree char *svg_path = make_run_file (run_dir, "fig.svg", svg);
  g_autofree char *key_dir = g_build_filename (dir, "file-img", NULL);
  g_autoptr (GError) error = NULL;

  {
    g_autoptr (SpRunHistory) history = sp_run_history_new (dir, 0);
    g_autoptr (SpRunRecord) r = make_record (7000, "plot()", "", "", NULL);

    g_assert_true (keep (r, "plot-1.png", "image/png", png_path, &error));
    g_assert_no_error (error);
    g_assert_true (keep (r, "fig.svg", "image/svg+xml", svg_path, &error));
    g_assert_no_error (error);
    g_assert_true (sp_run_history_add (history, "file-img", r, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (count_files (key_dir, ".image-"), ==, 2);
    g_assert_nonnull (image_at (r, 0)->path);
    g_assert_true (g_str_has_prefix (image_at (r, 0)->path, key_dir));
  }
  /* the run's directory is gone, as after the next run */
  g_unlink (png_path);
  g_unlink (svg_path);
  {
    g_autoptr (SpRunHistory) history = sp_run_history_new (dir, 0);
    g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GPtrArray) runs = sp_run_history_list (history, "file-img", warnings);
    g_autoptr (SpRunRecord) latest = sp_run_history_latest (history, "file-img", NULL);
    g_autoptr (SpRunRecord) copy = NULL;
    g_autofree char *on_disk = NULL;
    gsize len;
    SpRunRecord *r;

    g_assert_cmpuint (warnings->len, ==, 0);
    g_assert_cmpuint (runs->len, ==, 1);
    r = runs->pdata[0];
    g_assert_cmpuint (r->images->len, ==, 2);
    g_assert_cmpstr (image_at (r, 0)->name, ==, "plot-1.png");
    g_assert_cmpstr (image_at (r, 0)->mime, ==, "image/png");
    g_assert_true (g_bytes_equal (image_at (r, 0)->bytes, png));
    g_assert_cmpstr (image_at (r, 1)->name, ==, "fig.svg");
    g_assert_cmpstr (image_at (r, 1)->mime, ==, "image/svg+xml");
    g_assert_true (g_bytes_equal (image_at (r, 1)->bytes, svg));
    /* what a viewer decodes is the same bytes */
    g_assert_true (g_file_get_contents (image_at (r, 0)->path, &on_disk, &len, NULL));
    g_assert_cmpmem (on_disk, len, g_bytes_get_data (png, NULL), g_bytes_get_size (png));
    g_assert_cmpuint (latest->images->len, ==, 2);
    copy = sp_run_record_copy (r);
    g_assert_cmpuint (copy->images->len, ==, 2);
    g_assert_true (g_bytes_equal (image_at (copy, 1)->bytes, svg));
  }
  sp_test_remove_tree (dir);
  sp_test_remove_tree (run_dir);
}

/* At most SP_RUN_RECORD_IMAGES_MAX images and SP_RUN_RECORD_IMAGE_BYTES_MAX
 * bytes of them a run; a symlink, a directory or a file of another type is
 * never read. */
static void
test_images_cap (void)
{
  g_autofree char *run_dir = make_dir ();
  g_autoptr (SpRunRecord) r = make_record (1, "c", "", "", NULL);
  g_autoptr (SpRunRecord) big = make_record (2, "c", "", "", NULL);
  g_autoptr (GBytes) small = make_bytes (100, 2);
  g_autoptr (GBytes) three = make_bytes (3 * 1024 * 1024, 3);
  g_autoptr (GBytes) two = make_bytes (2 * 1024 * 1024, 4);
  g_autoptr (GBytes) over = make_bytes (SP_RUN_RECORD_IMAGE_BYTES_MAX + 1, 5);
  g_autofree char *small_path = make_run_file (run_dir, "small.png", small);
  g_autofree char *three_path = make_run_file (run_dir, "three.png", three);
  g_autofree char *two_path = make_run_file (run_dir, "two.gif", two);
  g_autofree char *over_path = make_run_file (run_dir, "over.png", over);
  g_autofree char *link_path = g_build_filename (run_dir, "link.png", NULL);
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < SP_RUN_RECORD_IMAGES_MAX; i++)
    {
      g_autofree char *name = g_strdup_printf ("plot-%u.png", i);
      g_assert_true (keep (r, name, "image/png", small_path, &error));
      g_assert_no_error (error);
    }
  g_assert_false (keep (r, "one-more.png", "image/png", small_path, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  g_clear_error (&error);
  g_assert_cmpuint (r->images->len, ==, SP_RUN_RECORD_IMAGES_MAX);

  /* one image over the cap by itself is not kept; two that add up over it
   * keep the first */
  g_assert_false (keep (big, "over.png", "image/png", over_path, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (keep (big, "three.png", "image/png", three_path, &error));
  g_assert_no_error (error);
  g_assert_false (keep (big, "two.gif", "image/gif", two_path, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_true (keep (big, "small.png", "image/png", small_path, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (big->images->len, ==, 2);

  g_assert_cmpint (symlink (small_path, link_path), ==, 0);
  g_assert_false (keep (big, "link.png", "image/png", link_path, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (keep (big, "dir.png", "image/png", run_dir, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_false (keep (big, "data.csv", "text/csv", small_path, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_cmpuint (big->images->len, ==, 2);
  sp_test_remove_tree (run_dir);
}

/* A folder of the run that is a symlink is not followed either (issue 29:
 * the history read images by path, O_NOFOLLOW on the last part only), so
 * an image of the person's is not kept as the run's; a FIFO is refused
 * without blocking. The control: the same file in a real folder is kept. */
static void
test_images_beneath (void)
{
  g_autofree char *run_dir = make_dir ();
  g_autofree char *elsewhere = make_dir ();
  g_autoptr (SpRunRecord) r = make_record (1, "c", "", "", NULL);
  g_autoptr (GBytes) small = make_bytes (100, 2);
  g_autofree char *real = g_build_filename (run_dir, "real", NULL);
  g_autofree char *sub = g_build_filename (run_dir, "sub", NULL);
  g_autofree char *fifo = g_build_filename (run_dir, "pipe.png", NULL);
  g_autofree char *mine = make_run_file (elsewhere, "mine.png", small);
  g_autofree char *control = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (real, 0700), ==, 0);
  control = make_run_file (real, "mine.png", small);
  g_assert_cmpint (symlink (elsewhere, sub), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (
    sp_run_record_keep_image (r, "real/mine.png", "image/png", run_dir, "real/mine.png", &error));
  g_assert_no_error (error);
  g_assert_false (
    sp_run_record_keep_image (r, "sub/mine.png", "image/png", run_dir, "sub/mine.png", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_clear_error (&error);
  alarm (20);
  g_assert_false (
    sp_run_record_keep_image (r, "pipe.png", "image/png", run_dir, "pipe.png", &error));
  alarm (0);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_cmpuint (r->images->len, ==, 1);
  sp_test_remove_tree (run_dir);
  sp_test_remove_tree (elsewhere);
}

/* The images count in the store's cap and go with their run. */
static void
test_images_eviction (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *run_dir = make_dir ();
  g_autofree char *key_dir = g_build_filename (dir, "file-ev", NULL);
  /* the runs' text alone would fit many times over */
  g_autoptr (SpRunHistory) history = sp_run_history_new (dir, 100 * 1024);
  g_autoptr (GPtrArray) runs = NULL;

  for (guint i = 0; i < 4; i++)
    {
      g_autoptr (SpRunRecord) r = make_record (1000 + i, "plot()", "ok\n", "", NULL);
      g_autoptr (GBytes) bytes = make_bytes (40 * 1024, i);
      g_autofree char *path = make_run_file (run_dir, "plot-1.png", bytes);

      g_assert_true (keep (r, "plot-1.png", "image/png", path, NULL));
      g_assert_true (sp_run_history_add (history, "file-ev", r, NULL));
    }
  runs = sp_run_history_list (history, "file-ev", NULL);
  /* two runs of 40 KiB images fit in 100 KiB, three do not */
  g_assert_cmpuint (runs->len, ==, 2);
  g_assert_cmpint (((SpRunRecord *) runs->pdata[0])->time_us, ==, 1002);
  g_assert_cmpuint (count_files (key_dir, ".run"), ==, 2);
  g_assert_cmpuint (count_files (key_dir, ".image-"), ==, 2);
  for (guint i = 0; i < runs->len; i++)
    {
      SpRunRecord *r = runs->pdata[i];
      g_autoptr (GBytes) bytes = make_bytes (40 * 1024, 2 + i);

      g_assert_cmpuint (r->images->len, ==, 1);
      g_assert_true (g_bytes_equal (image_at (r, 0)->bytes, bytes));
    }
  sp_test_remove_tree (dir);
  sp_test_remove_tree (run_dir);
}

/* A missing, truncated or swapped image is skipped with a message naming
 * it; the run is still listed with the images that are whole. */
static void
test_images_damaged (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *run_dir = make_dir ();
  g_autoptr (SpRunHistory) history = sp_run_history_new (dir, 0);
  g_autoptr (SpRunRecord) r = make_record (9000, "plots()", "", "", NULL);
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) runs = NULL;
  g_autoptr (GBytes) good = make_bytes (5000, 9);
  char *paths[4] = { NULL };
  g_autofree char *cut = NULL;
  gsize len;
  SpRunRecord *back;

  for (guint i = 0; i < 4; i++)
    {
      g_autoptr (GBytes) bytes = make_bytes (5000, 9 + i);
      g_autofree char *name = g_strdup_printf ("plot-%u.png", i);
      g_autofree char *path = make_run_file (run_dir, name, bytes);

      g_assert_true (keep (r, name, "image/png", path, NULL));
    }
  g_assert_true (sp_run_history_add (history, "file-dmg", r, NULL));
  for (guint i = 0; i < 4; i++)
    paths[i] = g_strdup (image_at (r, i)->path);
  /* 1: truncated; 2: another file of the same size; 3: gone */
  g_assert_true (g_file_get_contents (paths[1], &cut, &len, NULL));
  g_assert_true (g_file_set_contents (paths[1], cut, (gssize) len / 2, NULL));
  {
    g_autoptr (GBytes) foreign = make_bytes (5000, 77);
    g_assert_true (g_file_set_contents (paths[2], g_bytes_get_data (foreign, NULL), 5000, NULL));
  }
  g_assert_cmpint (g_unlink (paths[3]), ==, 0);

  runs = sp_run_history_list (history, "file-dmg", warnings);
  g_assert_cmpuint (runs->len, ==, 1);
  back = runs->pdata[0];
  g_assert_cmpuint (back->images->len, ==, 1);
  g_assert_cmpstr (image_at (back, 0)->name, ==, "plot-0.png");
  g_assert_true (g_bytes_equal (image_at (back, 0)->bytes, good));
  g_assert_cmpuint (warnings->len, ==, 3);
  for (guint i = 0; i < warnings->len; i++)
    {
      const char *line = g_ptr_array_index (warnings, i);
      g_assert_true (strstr (line, "Skipped") != NULL);
      g_assert_true (strstr (line, paths[i + 1]) != NULL);
    }
  for (guint i = 0; i < 4; i++)
    g_free (paths[i]);
  sp_test_remove_tree (dir);
  sp_test_remove_tree (run_dir);
}

/* A run file that names an image outside its own (another run's, or a path
 * out of the store) gets none of it. */
static void
test_images_foreign_name (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *key_dir = g_build_filename (dir, "file-f", NULL);
  g_autofree char *secret = g_build_filename (dir, "secret.png", NULL);
  g_autofree char *run = g_build_filename (key_dir, "00000000000000000005-aaaaaaaa.run", NULL);
  g_autoptr (SpRunHistory) history = sp_run_history_new (dir, 0);
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) runs = NULL;
  g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "secret", 6);
  g_autofree char *text = NULL;

  g_assert_cmpint (g_mkdir (key_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (secret, "secret", 6, NULL));
  text = g_strdup_printf ("[run]\nversion=1\ntime-us=5\nduration-ms=1\nlanguage=python\nend=x\n"
                          "succeeded=true\nexit-code=0\noutput-cut=false\ncode=c\nstdout=\n"
                          "stderr=\n[image 0]\nname=p.png\ntype=image/png\nfile=../secret.png\n"
                          "size=6\nsha256=%s\n[end]\ncomplete=true\n",
                          sum);
  g_assert_true (g_file_set_contents (run, text, -1, NULL));
  runs = sp_run_history_list (history, "file-f", warnings);
  g_assert_cmpuint (runs->len, ==, 1);
  g_assert_cmpuint (((SpRunRecord *) runs->pdata[0])->images->len, ==, 0);
  g_assert_cmpuint (warnings->len, ==, 1);
  sp_test_remove_tree (dir);
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

/* Issue 23: "Changes since last run" diffs the code too, and a list row
 * says what set a run apart, not "Exited with code 0" again. */
static void
test_compare_code_and_summary (void)
{
  g_autoptr (SpRunRecord) a = make_record (1, "x = 1\nprint(x)\n", "1\n", "", NULL);
  g_autoptr (SpRunRecord) b = make_record (2, "x = 2\nprint(x)\n", "2\n", "", NULL);
  g_autoptr (SpRunRecord) c = make_record (3, "x = 2\nprint(x)\n", "2\n", "", NULL);
  g_autoptr (SpRunRecord) d = make_record (4, "x = 2\nprint(x)\n", "2\nmore\n", "",
                                           "ValueError: bad");
  g_autoptr (SpRunComparison) ab = sp_run_record_compare (a, b);
  g_autoptr (SpRunComparison) bc = sp_run_record_compare (b, c);
  g_autofree char *ab_text = sp_run_comparison_to_text (ab, a, b);
  g_autofree char *bc_text = sp_run_comparison_to_text (bc, b, c);
  g_autofree char *s_a = sp_run_record_summary (a, NULL);
  g_autofree char *s_b = sp_run_record_summary (b, a);
  g_autofree char *s_c = sp_run_record_summary (c, b);
  g_autofree char *s_d = sp_run_record_summary (d, c);
  g_autoptr (SpRunRecord) long_line = make_record (5, "print('a')\n", "", "", NULL);
  g_autofree char *s_long = NULL;

  g_test_message ("%s", ab_text);
  g_assert_nonnull (strstr (ab_text, "--- code, last run\n+++ code, this run\n"));
  g_assert_nonnull (strstr (ab_text, "-x = 1\n+x = 2\n"));
  /* The code first, then the output. */
  g_assert_true (strstr (ab_text, "+x = 2") < strstr (ab_text, "+2\n"));
  g_assert_nonnull (strstr (bc_text, "The code is the same as the last run's."));

  g_assert_cmpstr (s_a, ==, "Output: 1");
  g_assert_cmpstr (s_b, ==, "Code: x = 2");
  g_assert_cmpstr (s_c, ==, "Same code and output as the run before");
  g_assert_cmpstr (s_d, ==, "Output: more");
  g_free (long_line->code);
  long_line->code = g_strnfill (200, 'y');
  s_long = sp_run_record_summary (long_line, a);
  g_assert_cmpuint (g_utf8_strlen (s_long, -1), <, 90);
  g_assert_true (g_str_has_suffix (s_long, "…"));
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
  g_test_add_func ("/run-history/compare-code-and-summary", test_compare_code_and_summary);
  g_test_add_func ("/run-history/images-restart", test_images_restart);
  g_test_add_func ("/run-history/images-cap", test_images_cap);
  g_test_add_func ("/run-history/images-eviction", test_images_eviction);
  g_test_add_func ("/run-history/images-damaged", test_images_damaged);
  g_test_add_func ("/run-history/images-foreign-name", test_images_foreign_name);
  g_test_add_func ("/run-history/images-beneath", test_images_beneath);
  return g_test_run ();
}
