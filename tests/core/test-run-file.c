/* test-run-file.c: a run's file is read only as a regular file beneath
 * the run's directory (issue 29): a symlink at the name or at any folder
 * on the way is refused, its target never read; a FIFO is refused without
 * blocking; a file over the cap is refused before it is read; Save As
 * copies bytes, never a symlink, and leaves the chosen file alone when
 * it refuses. Each refusal has a control that passes. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp-run-file.h"

typedef struct
{
  char *run;    /* the run's directory */
  char *secret; /* a file of "the person's", outside it */
} Fixture;

static void
put (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
  g_assert_no_error (error);
}

static void
setup (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *top = g_dir_make_tmp ("sp-run-file-XXXXXX", &error);
  g_autofree char *sub = NULL;
  g_autofree char *link = NULL;

  g_assert_no_error (error);
  f->run = g_build_filename (top, "run", NULL);
  f->secret = g_build_filename (top, "secret.txt", NULL);
  g_assert_cmpint (g_mkdir (f->run, 0700), ==, 0);
  put (top, "secret.txt", "the person's secret\n");
  put (f->run, "notes\n.txt", "a,b\n1,2\n");
  put (f->run, "notes\\x0a.txt", "literal\n");
  sub = g_build_filename (f->run, "sub", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  put (sub, "ok.txt", "beneath\n");
  link = g_build_filename (f->run, "report.csv", NULL);
  g_assert_cmpint (symlink (f->secret, link), ==, 0);
  g_free (link);
  link = g_build_filename (f->run, "dirlink", NULL);
  g_assert_cmpint (symlink (top, link), ==, 0);
  g_free (link);
  link = g_build_filename (f->run, "fifo", NULL);
  g_assert_cmpint (mkfifo (link, 0600), ==, 0);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  g_autofree char *top = g_path_get_dirname (f->run);
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", top);

  g_assert_cmpint (system (cmd), ==, 0);
  g_free (f->run);
  g_free (f->secret);
}

static char *
read_text (Fixture *f, const char *name, gsize max, SpRunFileRead how, gboolean *whole,
           GError **error)
{
  g_autoptr (GBytes) bytes = sp_run_file_read (f->run, name, max, how, whole, NULL, error);

  return bytes ? g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes)) : NULL;
}

/* The name's bytes, not the runner's escaped text, name the file. */
static void
test_regular (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  gboolean whole = FALSE;
  g_autofree char *a = read_text (f, "notes\n.txt", 4096, SP_RUN_FILE_READ_HEAD, &whole, &error);
  g_autofree char *b = NULL;
  g_autofree char *head = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (a, ==, "a,b\n1,2\n");
  g_assert_true (whole);
  b = read_text (f, "sub/ok.txt", 4096, SP_RUN_FILE_READ_WHOLE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (b, ==, "beneath\n");
  head = read_text (f, "notes\n.txt", 3, SP_RUN_FILE_READ_HEAD, &whole, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (head, ==, "a,b");
  g_assert_false (whole);
}

static void
assert_refused (Fixture *f, const char *name, int code)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *text = read_text (f, name, 4096, SP_RUN_FILE_READ_HEAD, NULL, &error);

  g_assert_null (text);
  g_assert_error (error, G_IO_ERROR, code);
}

/* A symlink the run planted, at the name or on the way, is never followed
 * (the control: the same secret is readable by its own path). */
static void
test_symlinks (Fixture *f, gconstpointer data)
{
  g_autofree char *top = g_path_get_dirname (f->run);
  g_autofree char *control = NULL;

  g_assert_true (g_file_get_contents (f->secret, &control, NULL, NULL));
  assert_refused (f, "report.csv", G_IO_ERROR_NOT_REGULAR_FILE);
  assert_refused (f, "dirlink/secret.txt", G_IO_ERROR_NOT_REGULAR_FILE);
  assert_refused (f, "../secret.txt", G_IO_ERROR_NOT_REGULAR_FILE);
  assert_refused (f, f->secret, G_IO_ERROR_NOT_REGULAR_FILE);
  assert_refused (f, "sub", G_IO_ERROR_NOT_REGULAR_FILE);
}

/* A FIFO would block an open without O_NONBLOCK for good: the alarm turns
 * such a hang into a failure instead of a stuck test. (No bound on the
 * time the refusal takes: a blocked open never returns, so there is
 * nothing between "refused" and the alarm to measure.) */
static void
test_fifo (Fixture *f, gconstpointer data)
{
  alarm (20);
  assert_refused (f, "fifo", G_IO_ERROR_NOT_REGULAR_FILE);
  alarm (0);
}

/* The bytes this thread has read (read(2) and the like: the kernel's
 * rchar), or -1 where the kernel does not count them. */
static gint64
thread_read_bytes (void)
{
  g_autofree char *text = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/thread-self/io", &text, NULL, NULL))
    return -1;
  line = strstr (text, "rchar:");
  return line != NULL ? g_ascii_strtoll (line + 6, NULL, 10) : -1;
}

/* Open's cap is checked against fstat before reading: a sparse file of
 * 1 GiB is refused without a byte of it read (the control: 4 MiB exactly
 * is read, and counted). Counted in bytes, not timed: reading up to the
 * cap first would be as quick as the control, yet wrong. */
static void
test_too_large (Fixture *f, gconstpointer data)
{
  g_autofree char *path = g_build_filename (f->run, "big.txt", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  int fd = g_open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  gint64 before, control_read, refused_read;

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, SP_RUN_FILE_OPEN_MAX), ==, 0);
  before = thread_read_bytes ();
  bytes = sp_run_file_read (f->run, "big.txt", SP_RUN_FILE_OPEN_MAX, SP_RUN_FILE_READ_WHOLE, NULL,
                            NULL, &error);
  control_read = thread_read_bytes () - before;
  g_assert_no_error (error);
  g_assert_cmpuint (g_bytes_get_size (bytes), ==, SP_RUN_FILE_OPEN_MAX);
  g_clear_pointer (&bytes, g_bytes_unref);

  g_assert_cmpint (ftruncate (fd, G_GINT64_CONSTANT (1) << 30), ==, 0);
  close (fd);
  before = thread_read_bytes ();
  bytes = sp_run_file_read (f->run, "big.txt", SP_RUN_FILE_OPEN_MAX, SP_RUN_FILE_READ_WHOLE, NULL,
                            NULL, &error);
  refused_read = thread_read_bytes () - before;
  g_assert_null (bytes);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  if (before < 0)
    {
      g_test_skip ("/proc/thread-self/io cannot be read: the bytes read are not counted");
      return;
    }
  g_test_message ("read: %" G_GINT64_FORMAT " bytes for the control, %" G_GINT64_FORMAT
                  " for the refusal",
                  control_read, refused_read);
  g_assert_cmpint (control_read, >=, SP_RUN_FILE_OPEN_MAX);
  /* What the counter's own reads add, far under the cap. */
  g_assert_cmpint (refused_read, <, SP_RUN_FILE_OPEN_MAX / 2);
}

static void
on_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GBytes **out = user_data;
  g_autoptr (GError) error = NULL;
  gboolean whole = FALSE;

  *out = sp_run_file_read_finish (result, &whole, &error);
  g_assert_no_error (error);
  g_assert_true (whole);
}

static void
test_async (Fixture *f, gconstpointer data)
{
  GBytes *bytes = NULL;

  sp_run_file_read_async (f->run, "notes\\x0a.txt", 4096, SP_RUN_FILE_READ_HEAD, NULL, on_read,
                          &bytes);
  while (bytes == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "literal\n", 8);
  g_bytes_unref (bytes);
}

/* Save As of a symlink entry used to make a symlink in the person's
 * folder (g_file_copy with NOFOLLOW_SYMLINKS); now it is refused and the
 * chosen file keeps its bytes. A regular file is copied as bytes. */
static void
test_save (Fixture *f, gconstpointer data)
{
  g_autofree char *top = g_path_get_dirname (f->run);
  g_autofree char *dest_path = g_build_filename (top, "saved.csv", NULL);
  g_autoptr (GFile) dest = g_file_new_for_path (dest_path);
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  GStatBuf st;

  put (top, "saved.csv", "the person's own\n");
  g_assert_false (sp_run_file_save (f->run, "report.csv", dest, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_clear_error (&error);
  g_assert_cmpint (g_lstat (dest_path, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
  g_assert_true (g_file_get_contents (dest_path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "the person's own\n");
  g_clear_pointer (&text, g_free);

  g_assert_false (sp_run_file_save (f->run, "fifo", dest, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_clear_error (&error);

  g_assert_true (sp_run_file_save (f->run, "notes\n.txt", dest, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_lstat (dest_path, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
  g_assert_true (g_file_get_contents (dest_path, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "a,b\n1,2\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/Sandpad/RunFile/regular", Fixture, NULL, setup, test_regular, teardown);
  g_test_add ("/Sandpad/RunFile/symlinks", Fixture, NULL, setup, test_symlinks, teardown);
  g_test_add ("/Sandpad/RunFile/fifo", Fixture, NULL, setup, test_fifo, teardown);
  g_test_add ("/Sandpad/RunFile/too-large", Fixture, NULL, setup, test_too_large, teardown);
  g_test_add ("/Sandpad/RunFile/async", Fixture, NULL, setup, test_async, teardown);
  g_test_add ("/Sandpad/RunFile/save", Fixture, NULL, setup, test_save, teardown);
  return g_test_run ();
}
