/* test-save.c: a save that fails loses nothing, in a real window under
 * Xvfb. On a tmpfs filled to its last block (mounted in a mount namespace
 * of this process's own: as root directly, else in a user namespace) Save
 * says "No space left on device", the file keeps its bytes and the editor
 * its text, still unsaved, with no Reload offered. A read-only folder
 * offers Save As; a file changed on disk since it was opened asks before
 * it is overwritten (Cancel keeps it, Overwrite replaces it). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "sp-application.h"
#include "sp-reload-bar.h"
#include "sp-test-tree.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

#define ORIGINAL "print('original')\n"
#define MINE "print('mine')\n"
/* In the editor: a file's final line break is the buffer's implicit
 * trailing newline, no empty last line. */
#define ORIGINAL_SHOWN "print('original')"
#define MINE_SHOWN "print('mine')"

static SpApplication *app;
static char *tmp_dir;
/* Set up in main(), before GTK has threads; NULL with ns_problem set when
 * this process could not have a mount namespace of its own. */
static char *full_dir;
static char *ro_dir;
static char *ns_problem;

static char *
buffer_text (SpWindow *window)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

static gboolean
is_modified (SpWindow *window)
{
  return gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)));
}

static gboolean
not_modified (gpointer data)
{
  return !is_modified (data);
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
assert_file (const char *path, const char *text)
{
  g_autofree char *got = NULL;
  g_autoptr (GError) error = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &got, &len, &error));
  g_assert_cmpmem (got, len, text, strlen (text));
}

typedef struct
{
  SpWindow *window;
  const char *text;
} TextWait;

static gboolean
has_text (gpointer data)
{
  TextWait *wait = data;
  g_autofree char *text = buffer_text (wait->window);

  return g_str_equal (text, wait->text);
}

/* A label under widget whose text holds part (a toast's title). */
static gboolean
shows_text (GtkWidget *widget, const char *part)
{
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_label (GTK_LABEL (widget)), part) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_text (child, part))
      return TRUE;
  return FALSE;
}

static gboolean
window_shows (gpointer data)
{
  TextWait *wait = data;

  return shows_text (GTK_WIDGET (wait->window), wait->text);
}

/* path is written with ORIGINAL (unless it holds it: the read-only
 * folder's file), opened, and MINE typed over it. */
static SpWindow *
open_and_edit (const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  SpWindow *window = sp_window_new (app);
  TextWait loaded = { window, ORIGINAL_SHOWN };
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    g_assert_true (g_file_set_contents (path, ORIGINAL, -1, &error));
  gtk_window_present (GTK_WINDOW (window));
  sp_window_load_file (window, file);
  g_assert_true (sp_test_wait_for (has_text, &loaded, 10000));
  spin (300);
  gtk_text_buffer_set_text (buffer, MINE_SHOWN, -1);
  gtk_text_buffer_set_modified (buffer, TRUE);
  return window;
}

/* Pages, then bytes, until the disk takes no more. */
static void
fill_disk (const char *path)
{
  g_autofree char *page = g_malloc0 (4096);
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

  g_assert_cmpint (fd, >=, 0);
  while (write (fd, page, 4096) == 4096)
    ;
  while (write (fd, page, 1) == 1)
    ;
  g_assert_cmpint (errno, ==, ENOSPC);
  g_assert_cmpint (close (fd), ==, 0);
}

static void
test_full_disk (void)
{
  g_autofree char *path = NULL;
  g_autofree char *filler = NULL;
  g_autofree char *text = NULL;
  SpWindow *window;
  TextWait toast = { NULL, "No space left on device" };

  if (full_dir == NULL)
    {
      g_test_skip (ns_problem);
      return;
    }
  path = g_build_filename (full_dir, "full.py", NULL);
  filler = g_build_filename (full_dir, "filler", NULL);
  window = open_and_edit (path);
  fill_disk (filler);
  toast.window = window;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL));
  g_assert_true (sp_test_wait_for (window_shows, &toast, 10000));
  /* Long enough for the file watch to have read the file, were it hit. */
  spin (800);
  assert_file (path, ORIGINAL);
  g_assert_true (is_modified (window));
  text = buffer_text (window);
  g_assert_cmpstr (text, ==, MINE_SHOWN);
  g_assert_null (sp_reload_bar_get_kind (sp_window_get_file_bar (window)));
  /* With room again, the same Save goes through. */
  g_assert_cmpint (g_unlink (filler), ==, 0);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL));
  g_assert_true (sp_test_wait_for (not_modified, window, 10000));
  assert_file (path, MINE);
  close_window (window);
}

static void
test_read_only_folder (void)
{
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  SpWindow *window;
  TextWait toast = { NULL, "Not saved" };
  GtkWidget *button;

  if (ro_dir == NULL)
    {
      g_test_skip ("root writes any folder, and no read-only mount could be made");
      return;
    }
  path = g_build_filename (ro_dir, "ro.py", NULL);
  /* Written before the folder is made read-only, in main(). */
  window = open_and_edit (path);
  toast.window = window;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL));
  g_assert_true (sp_test_wait_for (window_shows, &toast, 10000));
  button = find_button (GTK_WIDGET (window), "Save _As…");
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, "win.save-as");
  assert_file (path, ORIGINAL);
  g_assert_true (is_modified (window));
  text = buffer_text (window);
  g_assert_cmpstr (text, ==, MINE_SHOWN);
  close_window (window);
}

static SpAlert *
find_dialog (SpWindow *window)
{
  return sp_ui_test_find_alert (GTK_WINDOW (window));
}

static gboolean
dialog_shown (gpointer data)
{
  return find_dialog (data) != NULL;
}

/* Saves, and answers the question the window must ask. */
static void
save_and_answer (SpWindow *window, const char *response)
{
  SpAlert *dialog;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL));
  g_assert_true (sp_test_wait_for (dialog_shown, window, 10000));
  dialog = find_dialog (window);
  g_assert_cmpstr (sp_alert (get_heading) (dialog), ==, "File Changed on Disk");
  sp_ui_test_alert_respond (dialog, response);
}

static void
test_changed_on_disk (void)
{
  g_autofree char *path = g_build_filename (tmp_dir, "changed.py", NULL);
  g_autoptr (GError) error = NULL;
  SpWindow *window = open_and_edit (path);

  /* Someone else's edit, then Save before the window has read it. */
  g_assert_true (g_file_set_contents (path, "print('theirs')\n", -1, &error));
  save_and_answer (window, "cancel");
  spin (300);
  assert_file (path, "print('theirs')\n");
  g_assert_true (is_modified (window));
  save_and_answer (window, "overwrite");
  g_assert_true (sp_test_wait_for (not_modified, window, 10000));
  assert_file (path, MINE);
  close_window (window);
}

static int
write_text (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return errno;
  n = write (fd, text, strlen (text));
  close (fd);
  return n == (ssize_t) strlen (text) ? 0 : EIO;
}

/* A mount namespace of our own: root's directly; anyone else's inside a
 * user namespace that maps our ids to themselves, so the session bus and
 * the X server still see who we are. Returns 0 or an errno. */
static int
enter_mount_namespace (void)
{
  char map[64];
  int err;

  if (geteuid () == 0)
    return unshare (CLONE_NEWNS) == 0 ? 0 : errno;
  if (unshare (CLONE_NEWUSER | CLONE_NEWNS) != 0)
    return errno;
  snprintf (map, sizeof map, "%u %u 1\n", (unsigned) geteuid (), (unsigned) geteuid ());
  if ((err = write_text ("/proc/self/setgroups", "deny")) != 0
      || (err = write_text ("/proc/self/uid_map", map)) != 0)
    return err;
  snprintf (map, sizeof map, "%u %u 1\n", (unsigned) getegid (), (unsigned) getegid ());
  return write_text ("/proc/self/gid_map", map);
}

/* Save writes the final newline, as GNOME Text Editor does (GtkSourceView's
 * implicit trailing newline): typed text without one is saved with it;
 * opened again, the file shows no empty last line, and saved again it
 * keeps its bytes. A file ending in an empty line keeps that line. */
static void
test_final_newline (void)
{
  g_autofree char *path = g_build_filename (tmp_dir, "newline.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  SpWindow *window = open_and_edit (path);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  TextWait loaded = { NULL, "x = 1\n" };

  gtk_text_buffer_set_text (buffer, "x = 1", -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL));
  g_assert_true (sp_test_wait_for (not_modified, window, 10000));
  assert_file (path, "x = 1\n");
  close_window (window);

  g_assert_true (g_file_set_contents (path, "x = 1\n\n", -1, NULL));
  window = sp_window_new (app);
  loaded.window = window;
  gtk_window_present (GTK_WINDOW (window));
  sp_window_load_file (window, file);
  g_assert_true (sp_test_wait_for (has_text, &loaded, 10000));
  spin (300);
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), TRUE);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL));
  g_assert_true (sp_test_wait_for (not_modified, window, 10000));
  assert_file (path, "x = 1\n\n");
  close_window (window);
}

/* The full tmpfs and the read-only folder; before gtk_test_init(), as a
 * user namespace needs a process of one thread. */
static void
set_up_mounts (void)
{
  g_autofree char *full = g_build_filename (tmp_dir, "full", NULL);
  g_autofree char *ro = g_build_filename (tmp_dir, "ro", NULL);
  g_autofree char *ro_file = g_build_filename (ro, "ro.py", NULL);
  int err;

  g_assert_cmpint (g_mkdir (full, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (ro, 0700), ==, 0);
  g_assert_true (g_file_set_contents (ro_file, ORIGINAL, -1, NULL));
  err = enter_mount_namespace ();
  /* Nothing mounted here reaches the host's namespace. */
  if (err == 0 && mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    err = errno;
  if (err == 0 && mount ("tmpfs", full, "tmpfs", 0, "size=64k,mode=0700") != 0)
    err = errno;
  if (err == 0)
    full_dir = g_steal_pointer (&full);
  else
    ns_problem = g_strdup_printf ("cannot mount a tmpfs in a mount namespace: %s",
                                  g_strerror (err));
  /* Root writes any folder: read-only it is only as a read-only mount. */
  if (err == 0
      && (mount (ro, ro, NULL, MS_BIND, NULL) != 0
          || mount (NULL, ro, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0))
    err = errno;
  if (err == 0 || (geteuid () != 0 && g_chmod (ro, 0500) == 0))
    ro_dir = g_steal_pointer (&ro);
}

int
main (int argc, char **argv)
{
  g_autofree char *state = NULL;
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  tmp_dir = g_dir_make_tmp ("sp-save-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  set_up_mounts ();
  state = g_build_filename (tmp_dir, "state", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  {
    g_autofree char *data = g_build_filename (tmp_dir, "data", NULL);
    g_setenv ("XDG_DATA_HOME", data, TRUE);
  }
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/Sandpad/Save/full-disk", test_full_disk);
  g_test_add_func ("/Sandpad/Save/read-only-folder", test_read_only_folder);
  g_test_add_func ("/Sandpad/Save/changed-on-disk", test_changed_on_disk);
  g_test_add_func ("/Sandpad/Save/final-newline", test_final_newline);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  /* Unmounted only in this process's namespace, where they are. */
  if (full_dir != NULL)
    umount (full_dir);
  if (ro_dir != NULL)
    umount (ro_dir);
  sp_test_remove_tree (tmp_dir);
  return ret;
}
