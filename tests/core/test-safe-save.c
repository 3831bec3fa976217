/* test-safe-save.c: a save that fails leaves the file whole. A tmpfs
 * filled to its last block, in a private mount namespace as root and in a
 * user namespace: the save fails with "no space", the original's bytes
 * are intact and no temporary file is left. Also a symlink (the target is
 * saved, the link kept), the mode, owner and ACL kept, a read-only folder
 * (a permission error, nothing written) and a file changed on disk since
 * it was read (refused, unless it already holds the new text). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "sp-safe-save.h"
#include "sp-test-tree.h"

#define ORIGINAL "print('original')\n"
#define EDITED "print('edited, and a little longer than before')\n"

static char *
make_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("sp-safe-save-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
write_file (const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
}

static void
assert_contents (const char *path, const char *text)
{
  g_autofree char *got = NULL;
  g_autoptr (GError) error = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &got, &len, &error));
  g_assert_cmpmem (got, len, text, strlen (text));
}

static int
by_name (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* The names in dir, sorted and joined by spaces: a leftover temporary
 * file shows. */
static char *
list_dir (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, by_name);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static gboolean
save (const char *path, const char *text, const char *expected, GError **error)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GBytes) contents = g_bytes_new (text, strlen (text));
  g_autoptr (GBytes) known = expected ? g_bytes_new (expected, strlen (expected)) : NULL;

  return sp_safe_save (file, contents, known, NULL, error);
}

typedef struct
{
  gboolean done;
  GError *error;
} SaveWait;

static void
on_saved (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SaveWait *wait = user_data;

  sp_safe_save_finish (result, &wait->error);
  wait->done = TRUE;
}

/* The async path, as the window uses it. */
static gboolean
save_async (const char *path, const char *text, const char *expected, GError **error)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GBytes) contents = g_bytes_new (text, strlen (text));
  g_autoptr (GBytes) known = expected ? g_bytes_new (expected, strlen (expected)) : NULL;
  SaveWait wait = { FALSE, NULL };

  sp_safe_save_async (file, contents, known, NULL, on_saved, &wait);
  while (!wait.done)
    g_main_context_iteration (NULL, TRUE);
  if (wait.error == NULL)
    return TRUE;
  g_propagate_error (error, wait.error);
  return FALSE;
}

static void
test_new_and_replace (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "a.py", NULL);
  g_autofree char *names = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (save_async (path, ORIGINAL, NULL, &error));
  g_assert_no_error (error);
  assert_contents (path, ORIGINAL);
  g_assert_true (save_async (path, EDITED, ORIGINAL, &error));
  g_assert_no_error (error);
  assert_contents (path, EDITED);
  /* Empty is a text too. */
  g_assert_true (save (path, "", NULL, &error));
  assert_contents (path, "");
  names = list_dir (dir);
  g_assert_cmpstr (names, ==, "a.py");
  sp_test_remove_tree (dir);
}

/* An ACL granting uid 4242 read: version 2, then (tag, perm, id) entries
 * in the kernel's order, as <linux/posix_acl_xattr.h> lays them out. */
static gsize
make_acl (guint8 *out)
{
  static const struct
  {
    guint16 tag, perm;
    guint32 id;
  } entries[] = {
    { 0x01, 6, G_MAXUINT32 }, { 0x02, 4, 4242 },        { 0x04, 4, G_MAXUINT32 },
    { 0x10, 4, G_MAXUINT32 }, { 0x20, 0, G_MAXUINT32 },
  };
  guint32 version = GUINT32_TO_LE (2);
  gsize at = 0;

  memcpy (out, &version, 4);
  at = 4;
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++)
    {
      guint16 tag = GUINT16_TO_LE (entries[i].tag), perm = GUINT16_TO_LE (entries[i].perm);
      guint32 id = GUINT32_TO_LE (entries[i].id);
      memcpy (out + at, &tag, 2);
      memcpy (out + at + 2, &perm, 2);
      memcpy (out + at + 4, &id, 4);
      at += 8;
    }
  return at;
}

static void
test_metadata_kept (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "a.py", NULL);
  g_autoptr (GError) error = NULL;
  guint8 acl[64], before[256], after[256];
  gsize acl_len = make_acl (acl);
  ssize_t before_len = -1, after_len;
  struct stat st;

  write_file (path, ORIGINAL);
  g_assert_cmpint (chmod (path, 0640), ==, 0);
  if (geteuid () == 0)
    g_assert_cmpint (chown (path, 1234, 2345), ==, 0);
  if (setxattr (path, "system.posix_acl_access", acl, acl_len, 0) == 0)
    before_len = getxattr (path, "system.posix_acl_access", before, sizeof before);
  else
    g_test_message ("no ACL on this filesystem (%s): mode and owner only", g_strerror (errno));
  g_assert_true (save (path, EDITED, NULL, &error));
  g_assert_no_error (error);
  assert_contents (path, EDITED);
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0640);
  if (geteuid () == 0)
    {
      g_assert_cmpint (st.st_uid, ==, 1234);
      g_assert_cmpint (st.st_gid, ==, 2345);
    }
  else
    g_test_message ("not root: the owner cannot be given away, not checked");
  if (before_len > 0)
    {
      after_len = getxattr (path, "system.posix_acl_access", after, sizeof after);
      g_assert_cmpmem (after, after_len, before, before_len);
    }
  sp_test_remove_tree (dir);
}

static void
test_symlink (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *sub = g_build_filename (dir, "real", NULL);
  g_autofree char *target = g_build_filename (sub, "a.py", NULL);
  g_autofree char *link = g_build_filename (dir, "link.py", NULL);
  g_autofree char *names = NULL;
  g_autofree char *points = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  write_file (target, ORIGINAL);
  /* Relative, to another folder: resolved from the link's own folder. */
  g_assert_cmpint (symlink ("real/a.py", link), ==, 0);
  g_assert_true (save (link, EDITED, ORIGINAL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  points = g_file_read_link (link, &error);
  g_assert_cmpstr (points, ==, "real/a.py");
  assert_contents (target, EDITED);
  names = list_dir (dir);
  g_assert_cmpstr (names, ==, "link.py real");
  g_clear_pointer (&names, g_free);
  names = list_dir (sub);
  g_assert_cmpstr (names, ==, "a.py");
  sp_test_remove_tree (dir);
}

static void
test_changed_on_disk (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "a.py", NULL);
  g_autoptr (GError) error = NULL;

  write_file (path, "print('theirs')\n");
  g_assert_false (save_async (path, EDITED, ORIGINAL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG);
  g_test_message ("changed: %s", error->message);
  assert_contents (path, "print('theirs')\n");
  g_clear_error (&error);
  /* The same edit made on disk already is no conflict. */
  write_file (path, EDITED);
  g_assert_true (save (path, EDITED, ORIGINAL, &error));
  /* Nor a file that is gone: saving brings it back. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_true (save (path, EDITED, ORIGINAL, &error));
  g_assert_no_error (error);
  assert_contents (path, EDITED);
  /* Without an expectation, whatever is there is replaced. */
  write_file (path, "print('theirs')\n");
  g_assert_true (save (path, ORIGINAL, NULL, &error));
  assert_contents (path, ORIGINAL);
  sp_test_remove_tree (dir);
}

/* A folder the user may not write: as root, the effective uid becomes
 * nobody's for the save (root writes anywhere), in a subprocess. */
static void
test_read_only_dir (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *sub = NULL;
  g_autofree char *path = NULL;
  g_autofree char *names = NULL;
  g_autoptr (GError) error = NULL;
  gboolean ok;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }
  dir = make_dir ();
  sub = g_build_filename (dir, "ro", NULL);
  path = g_build_filename (sub, "a.py", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  write_file (path, ORIGINAL);
  g_assert_cmpint (chmod (path, 0666), ==, 0);
  g_assert_cmpint (chmod (dir, 0755), ==, 0);
  g_assert_cmpint (chmod (sub, 0555), ==, 0);
  /* The effective uid only: the saved one takes root back to clean up. */
  if (geteuid () == 0)
    g_assert_cmpint (setresuid ((uid_t) -1, 65534, 0), ==, 0);
  ok = save (path, EDITED, ORIGINAL, &error);
  if (getuid () == 0)
    g_assert_cmpint (setresuid ((uid_t) -1, 0, (uid_t) -1), ==, 0);
  g_assert_false (ok);
  g_test_message ("read-only folder: %s", error->message);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_nonnull (strstr (error->message, sub));
  assert_contents (path, ORIGINAL);
  names = list_dir (sub);
  g_assert_cmpstr (names, ==, "a.py");
  g_assert_cmpint (chmod (sub, 0755), ==, 0);
  sp_test_remove_tree (dir);
}

/* ---- a full disk ---- */

typedef enum
{
  AS_ROOT,   /* a mount namespace of root's own */
  IN_USERNS, /* a user namespace and its mount namespace, any uid */
} Where;

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

/* Enters a private mount namespace (and for IN_USERNS a user namespace
 * where we are root) and mounts a 64 KiB tmpfs on mnt. Only system calls:
 * the probe runs it in a forked child of a process that may have threads.
 * Returns 0 or an errno. */
static int
mount_small_tmpfs (Where where, const char *mnt)
{
  if (where == AS_ROOT)
    {
      if (geteuid () != 0)
        return EPERM;
      if (unshare (CLONE_NEWNS) != 0)
        return errno;
    }
  else
    {
      char map[64];
      uid_t uid = geteuid ();
      gid_t gid = getegid ();
      int err;

      if (unshare (CLONE_NEWUSER | CLONE_NEWNS) != 0)
        return errno;
      /* gid_map may be written only once setgroups is denied. */
      snprintf (map, sizeof map, "0 %u 1\n", (unsigned) uid);
      if ((err = write_text ("/proc/self/setgroups", "deny")) != 0
          || (err = write_text ("/proc/self/uid_map", map)) != 0)
        return err;
      snprintf (map, sizeof map, "0 %u 1\n", (unsigned) gid);
      if ((err = write_text ("/proc/self/gid_map", map)) != 0)
        return err;
    }
  /* Nothing mounted here reaches the host's namespace. */
  if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return errno;
  if (mount ("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0755") != 0)
    return errno;
  return 0;
}

/* Whether this machine lets us mount a tmpfs that way: tried in a child. */
static int
probe_namespace (Where where)
{
  g_autofree char *dir = make_dir ();
  int status = 0;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (mount_small_tmpfs (where, dir));
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_rmdir (dir);
  return WIFEXITED (status) ? WEXITSTATUS (status) : EINTR;
}

/* Writes a filler until the disk takes no more: pages, then bytes. */
static void
fill_disk (const char *path)
{
  g_autofree char *page = g_malloc0 (4096);
  int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  struct statvfs vfs;

  g_assert_cmpint (fd, >=, 0);
  while (write (fd, page, 4096) == 4096)
    ;
  while (write (fd, page, 1) == 1)
    ;
  g_assert_cmpint (errno, ==, ENOSPC);
  g_assert_cmpint (close (fd), ==, 0);
  g_assert_cmpint (statvfs (path, &vfs), ==, 0);
  g_assert_cmpuint (vfs.f_bavail, ==, 0);
}

/* In the subprocess: the original on a full tmpfs survives a save. */
static void
full_disk_scenario (Where where)
{
  g_autofree char *mnt = make_dir ();
  g_autofree char *path = g_build_filename (mnt, "a.py", NULL);
  g_autofree char *filler = g_build_filename (mnt, "filler", NULL);
  g_autofree char *names = NULL;
  g_autoptr (GError) error = NULL;
  int err = mount_small_tmpfs (where, mnt);

  if (err != 0)
    g_error ("the probe mounted a tmpfs, this process cannot: %s", g_strerror (err));
  write_file (path, ORIGINAL);
  fill_disk (filler);
  g_assert_false (save_async (path, EDITED, ORIGINAL, &error));
  g_test_message ("full disk: %s", error->message);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE);
  assert_contents (path, ORIGINAL);
  names = list_dir (mnt);
  g_assert_cmpstr (names, ==, "a.py filler");
  g_clear_error (&error);
  /* With room again the same save goes through. */
  g_assert_cmpint (g_unlink (filler), ==, 0);
  g_assert_true (save_async (path, EDITED, ORIGINAL, &error));
  assert_contents (path, EDITED);
  g_assert_cmpint (umount (mnt), ==, 0);
  g_assert_cmpint (g_rmdir (mnt), ==, 0);
}

static void
test_full_disk (gconstpointer data)
{
  Where where = GPOINTER_TO_INT (data);
  int err;

  if (g_test_subprocess ())
    {
      full_disk_scenario (where);
      return;
    }
  /* The subprocess is a fresh process: unshare(CLONE_NEWUSER) needs one
   * thread, and this one may have GTask's workers. */
  err = probe_namespace (where);
  if (err != 0)
    {
      g_autofree char *why = g_strdup_printf ("cannot mount a tmpfs in a %s: %s",
                                              where == AS_ROOT ? "mount namespace as root"
                                                               : "user namespace",
                                              g_strerror (err));
      g_test_skip (why);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/safe-save/new-and-replace", test_new_and_replace);
  g_test_add_func ("/safe-save/metadata-kept", test_metadata_kept);
  g_test_add_func ("/safe-save/symlink", test_symlink);
  g_test_add_func ("/safe-save/changed-on-disk", test_changed_on_disk);
  g_test_add_func ("/safe-save/read-only-dir", test_read_only_dir);
  g_test_add_data_func ("/safe-save/full-disk/as-root", GINT_TO_POINTER (AS_ROOT), test_full_disk);
  g_test_add_data_func ("/safe-save/full-disk/user-namespace", GINT_TO_POINTER (IN_USERNS),
                        test_full_disk);
  return g_test_run ();
}
