/* test-autosave.c: copies of unsaved text come back byte for byte; a
 * damaged, truncated or foreign file in the folder is skipped with a
 * message; a failed write (a full disk, a tmpfs in a namespace of the
 * test's own) leaves the old copy whole; the
 * session file round-trips and a damaged one is an error, not a crash. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sp-autosave.h"
#include "sp-session-store.h"
#include "sp-test-tree.h"

/* Text that looks like the format itself, with every kind of line end. */
static const char tricky[] = "print('ünïcode ✓')\r\n%%\n# Sandpad autosave 1\n[Autosave]\n"
                             "Length=3\n\n\n\tlast line without newline";

static char *
make_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("sp-autosave-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static SpAutosaveEntry *
entry_new (const char *id, const char *path, const char *text, gint64 time)
{
  SpAutosaveEntry *entry = g_new0 (SpAutosaveEntry, 1);

  entry->id = g_strdup (id);
  entry->path = g_strdup (path);
  entry->title = g_strdup (path ? NULL : "Untitled 1");
  entry->language = g_strdup ("python");
  entry->time = time;
  entry->text = g_strdup (text);
  entry->length = strlen (text);
  return entry;
}

static void
test_round_trip (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpAutosaveEntry) a = entry_new ("abc-1", "/home/me/odd\nname=1.py", tricky, 100);
  g_autoptr (SpAutosaveEntry) b = entry_new ("abc-2", NULL, "", 50);
  g_autoptr (GPtrArray) problems = NULL;
  g_autoptr (GPtrArray) all = NULL;
  g_autoptr (GError) error = NULL;
  SpAutosaveEntry *got;

  g_assert_true (sp_autosave_write (dir, a, &error));
  g_assert_no_error (error);
  g_assert_true (sp_autosave_write (dir, b, &error));
  all = sp_autosave_load_all (dir, &problems);
  g_assert_cmpuint (problems->len, ==, 0);
  g_assert_cmpuint (all->len, ==, 2);
  /* Oldest first. */
  got = g_ptr_array_index (all, 0);
  g_assert_cmpstr (got->id, ==, "abc-2");
  g_assert_null (got->path);
  g_assert_cmpstr (got->title, ==, "Untitled 1");
  g_assert_cmpuint (got->length, ==, 0);
  got = g_ptr_array_index (all, 1);
  g_assert_cmpstr (got->id, ==, "abc-1");
  g_assert_cmpstr (got->path, ==, "/home/me/odd\nname=1.py");
  g_assert_cmpstr (got->language, ==, "python");
  g_assert_cmpint (got->time, ==, 100);
  g_assert_cmpuint (got->length, ==, strlen (tricky));
  g_assert_cmpmem (got->text, got->length, tricky, strlen (tricky));

  /* Removing is final, and removing again is no error. */
  g_assert_true (sp_autosave_remove (dir, "abc-1", &error));
  g_assert_true (sp_autosave_remove (dir, "abc-1", &error));
  g_assert_no_error (error);
  g_clear_pointer (&all, g_ptr_array_unref);
  g_clear_pointer (&problems, g_ptr_array_unref);
  all = sp_autosave_load_all (dir, &problems);
  g_assert_cmpuint (all->len, ==, 1);
  sp_test_remove_tree (dir);
}

static void
write_raw (const char *dir, const char *name, const char *data, gssize len)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (path, data, len, &error));
}

static gboolean
mentions (GPtrArray *problems, const char *name, const char *why)
{
  for (guint i = 0; i < problems->len; i++)
    {
      const char *p = g_ptr_array_index (problems, i);
      if (strstr (p, name) != NULL && strstr (p, why) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
test_damaged_skipped (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpAutosaveEntry) good = entry_new ("good", "/tmp/x.py", tricky, 1);
  g_autofree char *good_path = g_build_filename (dir, "good.autosave", NULL);
  g_autofree char *copy = NULL;
  g_autofree char *damaged = NULL;
  g_autoptr (GPtrArray) problems = NULL;
  g_autoptr (GPtrArray) all = NULL;
  g_autoptr (GError) error = NULL;
  gsize len = 0;

  g_assert_true (sp_autosave_write (dir, good, &error));
  g_assert_true (g_file_get_contents (good_path, &copy, &len, &error));
  /* Cut short, one byte flipped in the text, a foreign file with our
   * suffix, a file that is not ours at all, empty, binary garbage, and a
   * directory. */
  write_raw (dir, "cut.autosave", copy, (gssize) len - 5);
  damaged = g_memdup2 (copy, len);
  damaged[len - 3] ^= 0x20;
  write_raw (dir, "flip.autosave", damaged, (gssize) len);
  write_raw (dir, "foreign.autosave", "hello\n", -1);
  write_raw (dir, "notes.txt", "hello\n", -1);
  write_raw (dir, "empty.autosave", "", 0);
  write_raw (dir, "junk.autosave", "# Sandpad autosave 1\n\xff\xfe[\n%%\n", -1);
  {
    g_autofree char *sub = g_build_filename (dir, "dir.autosave", NULL);
    g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  }
  all = sp_autosave_load_all (dir, &problems);
  for (guint i = 0; i < problems->len; i++)
    g_test_message ("skipped: %s", (char *) g_ptr_array_index (problems, i));
  g_assert_cmpuint (all->len, ==, 1);
  g_assert_cmpmem (((SpAutosaveEntry *) all->pdata[0])->text,
                   ((SpAutosaveEntry *) all->pdata[0])->length, tricky, strlen (tricky));
  g_assert_cmpuint (problems->len, ==, 7);
  g_assert_true (mentions (problems, "cut.autosave", "truncated"));
  g_assert_true (mentions (problems, "flip.autosave", "damaged"));
  g_assert_true (mentions (problems, "foreign.autosave", "not a Sandpad autosave file"));
  g_assert_true (mentions (problems, "notes.txt", "not an autosave file"));
  g_assert_true (mentions (problems, "junk.autosave", "damaged"));
  g_assert_true (mentions (problems, "dir.autosave", "not a regular file"));

  /* No folder yet: nothing to restore, nothing wrong. */
  g_clear_pointer (&all, g_ptr_array_unref);
  g_clear_pointer (&problems, g_ptr_array_unref);
  {
    g_autofree char *missing = g_build_filename (dir, "missing", NULL);
    all = sp_autosave_load_all (missing, &problems);
  }
  g_assert_cmpuint (all->len, ==, 0);
  g_assert_cmpuint (problems->len, ==, 0);
  sp_test_remove_tree (dir);
}

static void
test_bad_id (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpAutosaveEntry) evil = entry_new ("../evil", NULL, "x", 1);
  g_autoptr (GError) error = NULL;

  g_assert_false (sp_autosave_write (dir, evil, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  sp_test_remove_tree (dir);
}

/* Writes text to a /proc file with system calls only; 0 or an errno. */
static int
write_proc (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  int saved = 0;

  if (fd < 0)
    return errno;
  if (write (fd, text, strlen (text)) != (ssize_t) strlen (text))
    saved = errno ? errno : EIO;
  close (fd);
  return saved;
}

/* Makes a 64 KiB tmpfs at mnt that only this process sees: a mount
 * namespace of its own and, for an ordinary user, a user namespace whose
 * root it is, which is what lets it mount; so the test needs no root and
 * no mount outlives it. The maps are prepared text and only system calls
 * are made, so a child forked from a threaded process may call it.
 * Returns 0 or an errno, with what failed in *step. */
static int
enter_tmpfs_namespace (const char *mnt, const char *uid_map, const char *gid_map, const char **step)
{
  int err;

  *step = uid_map != NULL ? "make a user and mount namespace" : "make a mount namespace";
  if (unshare (uid_map != NULL ? CLONE_NEWUSER | CLONE_NEWNS : CLONE_NEWNS) != 0)
    return errno;
  if (uid_map != NULL)
    {
      *step = "write the uid and gid maps";
      if ((err = write_proc ("/proc/self/setgroups", "deny")) != 0
          || (err = write_proc ("/proc/self/uid_map", uid_map)) != 0
          || (err = write_proc ("/proc/self/gid_map", gid_map)) != 0)
        return err;
    }
  /* Private, so the tmpfs is not propagated back to the host's mounts. */
  *step = "make the mounts private";
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return errno;
  *step = "mount a tmpfs";
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=64k") != 0)
    return errno;
  return 0;
}

/* The maps that make this user root of a new user namespace; NULL for
 * root, who needs no user namespace to mount. */
static void
own_maps (char **uid_map, char **gid_map)
{
  *uid_map = geteuid () == 0 ? NULL : g_strdup_printf ("0 %u 1", (unsigned) geteuid ());
  *gid_map = geteuid () == 0 ? NULL : g_strdup_printf ("0 %u 1", (unsigned) getegid ());
}

/* Whether enter_tmpfs_namespace works here, tried in a forked child so
 * this process keeps its namespaces; NULL, or why not. */
static char *
tmpfs_namespace_refused (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *uid_map = NULL, *gid_map = NULL;
  char why[256] = "";
  int fds[2], status;
  ssize_t n;
  pid_t pid;

  own_maps (&uid_map, &gid_map);
  g_assert_cmpint (pipe2 (fds, O_CLOEXEC), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      const char *step;
      int err = enter_tmpfs_namespace (dir, uid_map, gid_map, &step);

      if (err != 0)
        {
          /* strerror is not for a forked child of a threaded process:
           * the step and the number, the parent names it. */
          char line[128];
          int len = snprintf (line, sizeof line, "%d %s", err, step);
          (void) !write (fds[1], line, (size_t) len);
        }
      _exit (err == 0 ? 0 : 1);
    }
  close (fds[1]);
  n = read (fds[0], why, sizeof why - 1);
  close (fds[0]);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  sp_test_remove_tree (dir);
  g_assert_true (WIFEXITED (status));
  if (WEXITSTATUS (status) == 0)
    return NULL;
  g_assert_cmpint (n, >, 0);
  why[n] = '\0';
  return g_strdup_printf ("cannot %s for a private tmpfs: %s", strchr (why, ' ') + 1,
                          g_strerror (atoi (why)));
}

/* A full disk: the write fails with ENOSPC, the old copy stays whole and
 * no temporary file is left behind. The disk is a 64 KiB tmpfs in a
 * namespace of the test's own (run in a subprocess), so anyone can run
 * it where the kernel lets users make namespaces; elsewhere it skips. */
static void
test_full_disk (void)
{
  g_autofree char *why = NULL;

  if (g_test_subprocess ())
    {
      g_autofree char *dir = make_dir ();
      g_autofree char *mnt = g_build_filename (dir, "mnt", NULL);
      g_autofree char *copies = g_build_filename (mnt, "autosave", NULL);
      g_autofree char *uid_map = NULL, *gid_map = NULL;
      g_autoptr (SpAutosaveEntry) small = entry_new ("doc", NULL, "print('small')\n", 1);
      g_autoptr (SpAutosaveEntry) big = NULL;
      g_autoptr (GPtrArray) all = NULL;
      g_autoptr (GPtrArray) problems = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *huge = NULL;
      const char *step;

      own_maps (&uid_map, &gid_map);
      g_assert_cmpint (g_mkdir (mnt, 0700), ==, 0);
      g_assert_cmpint (enter_tmpfs_namespace (mnt, uid_map, gid_map, &step), ==, 0);
      g_assert_true (sp_autosave_write (copies, small, &error));
      g_assert_no_error (error);
      huge = g_strnfill (256 * 1024, 'x');
      big = entry_new ("doc", NULL, huge, 2);
      g_assert_false (sp_autosave_write (copies, big, &error));
      g_assert_true (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOSPC));
      all = sp_autosave_load_all (copies, &problems);
      g_assert_cmpuint (problems->len, ==, 0);
      g_assert_cmpuint (all->len, ==, 1);
      g_assert_cmpstr (((SpAutosaveEntry *) all->pdata[0])->text, ==, "print('small')\n");
      g_assert_cmpint (umount (mnt), ==, 0);
      sp_test_remove_tree (dir);
      /* For the parent: the checks ran to here (and the message). */
      g_print ("full disk: %s\n", error->message);
      return;
    }
  why = tmpfs_namespace_refused ();
  if (why != NULL)
    {
      g_test_skip (why);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*full disk: *");
}

static void
test_session (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "state", "session.ini", NULL);
  g_autoptr (GPtrArray) windows = g_ptr_array_new_with_free_func (
    (GDestroyNotify) sp_session_window_free);
  g_autoptr (GPtrArray) back = NULL;
  g_autoptr (GError) error = NULL;
  SpSessionWindow *w = g_new0 (SpSessionWindow, 1);
  SpSessionWindow *got;

  w->path = g_strdup ("/home/me/a b.py");
  w->language = g_strdup ("python");
  w->panel_fraction = 0.4;
  g_ptr_array_add (windows, w);
  w = g_new0 (SpSessionWindow, 1);
  w->autosave_id = g_strdup ("1234");
  g_ptr_array_add (windows, w);
  g_assert_true (sp_session_store_save (path, windows, &error));
  g_assert_no_error (error);
  back = sp_session_store_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, 2);
  got = back->pdata[0];
  g_assert_cmpstr (got->path, ==, "/home/me/a b.py");
  g_assert_cmpstr (got->language, ==, "python");
  g_assert_cmpfloat_with_epsilon (got->panel_fraction, 0.4, 1e-9);
  got = back->pdata[1];
  g_assert_null (got->path);
  g_assert_cmpstr (got->autosave_id, ==, "1234");
  g_clear_pointer (&back, g_ptr_array_unref);

  /* Damaged: an error to report, never a crash. */
  g_assert_true (g_file_set_contents (path, "\xff\x01[[[garbage", -1, NULL));
  back = sp_session_store_load (path, &error);
  g_assert_null (back);
  g_assert_nonnull (error);
  g_test_message ("damaged session: %s", error->message);
  g_clear_error (&error);
  g_assert_true (g_file_set_contents (path, "[Other]\nx=1\n", -1, NULL));
  back = sp_session_store_load (path, &error);
  g_assert_null (back);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_clear_error (&error);
  g_unlink (path);
  back = sp_session_store_load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->len, ==, 0);
  sp_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/Autosave/round-trip", test_round_trip);
  g_test_add_func ("/Sandpad/Autosave/damaged-skipped", test_damaged_skipped);
  g_test_add_func ("/Sandpad/Autosave/bad-id", test_bad_id);
  g_test_add_func ("/Sandpad/Autosave/full-disk", test_full_disk);
  g_test_add_func ("/Sandpad/Autosave/session", test_session);
  return g_test_run ();
}
