/* sp-safe-save.c: write beside, flush, rename over.
 *
 * g_file_replace_contents() falls back to truncating the file and writing
 * in place whenever it cannot make its temporary file match the original
 * (another owner, a symlink, a hard link), and a full disk then leaves
 * the file empty. Here the original is never opened for writing: the
 * only step that touches it is rename(2), which either happens whole or
 * not at all. The price is that a save needs room for two copies for a
 * moment, and that a hard-linked file becomes a file of its own. */
#define G_LOG_DOMAIN "sp-safe-save"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "sp-safe-save.h"

/* As the kernel's own limit on a path's symlinks. */
#define MAX_LINKS 40
/* The temporary file's name keeps this much of the original's, so that
 * ".name.XXXXXX" stays within NAME_MAX. */
#define TEMP_NAME_KEEP 200
#define ACL_XATTR "system.posix_acl_access"
#define ACL_MAX 65536

typedef struct
{
  GFile *file;
  GBytes *contents;
  GBytes *expected;
} SaveJob;

static void
save_job_free (SaveJob *job)
{
  g_clear_object (&job->file);
  g_clear_pointer (&job->contents, g_bytes_unref);
  g_clear_pointer (&job->expected, g_bytes_unref);
  g_free (job);
}

/* errsv is errno, saved by the caller before anything else ran; name is
 * a file name, made displayable here. format takes the name and errsv's
 * text, in that order. */
static gboolean
set_errno_error (GError **error, int errsv, const char *format, const char *name)
{
  g_autofree char *display = g_filename_display_name (name);
  g_autofree char *message = NULL;

  /* format is always one of this file's literals, each with two %s. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  message = g_strdup_printf (format, display, g_strerror (errsv));
#pragma GCC diagnostic pop
  g_set_error_literal (error, G_IO_ERROR, g_io_error_from_errno (errsv), message);
  return FALSE;
}

/* The file a save replaces: path itself, or where its symlinks lead
 * (which need not exist yet: saving through a dangling link creates its
 * target, as writing to it would). */
static char *
resolve_target (const char *path, GError **error)
{
  g_autofree char *current = g_strdup (path);

  for (int i = 0; i < MAX_LINKS; i++)
    {
      char link[PATH_MAX];
      struct stat st;
      ssize_t n;

      if (lstat (current, &st) != 0 || !S_ISLNK (st.st_mode))
        return g_steal_pointer (&current);
      n = readlink (current, link, sizeof link - 1);
      if (n < 0)
        {
          set_errno_error (error, errno, _ ("Cannot read the link “%s”: %s"), current);
          return NULL;
        }
      link[n] = '\0';
      if (g_path_is_absolute (link))
        {
          g_free (current);
          current = g_strdup (link);
        }
      else
        {
          g_autofree char *dir = g_path_get_dirname (current);
          g_free (current);
          current = g_build_filename (dir, link, NULL);
        }
    }
  set_errno_error (error, ELOOP, _ ("Cannot save “%s”: %s"), path);
  return NULL;
}

static gboolean
bytes_equal_data (GBytes *bytes, const char *data, gsize len)
{
  gsize have = 0;
  const char *mine = g_bytes_get_data (bytes, &have);

  return have == len && (len == 0 || memcmp (mine, data, len) == 0);
}

/* Whether file still holds expected: else someone else wrote it since
 * the caller read it, and saving would silently drop their change. */
static gboolean
check_unchanged (GFile *file, GBytes *expected, GBytes *contents, GCancellable *cancellable,
                 GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *now = NULL;
  g_autofree char *name = NULL;
  gsize len = 0;

  if (expected == NULL)
    return TRUE;
  if (!g_file_load_contents (file, cancellable, &now, &len, NULL, &local))
    {
      if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (bytes_equal_data (expected, now, len) || bytes_equal_data (contents, now, len))
    return TRUE;
  name = g_file_get_parse_name (file);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG,
               _ ("“%s” changed on disk since it was read"), name);
  return FALSE;
}

/* An empty new file beside target, named after it and hidden, readable
 * by no one the original does not let read it (its mode, less the
 * umask; a new file gets the usual 0666 less the umask). */
static int
make_temp (const char *target, const struct stat *orig, char **tmp_path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (target);
  g_autofree char *base = g_path_get_basename (target);
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  int mode = orig != NULL ? (int) (orig->st_mode & 0777) : 0666;
  int fd;

  if (strlen (base) > TEMP_NAME_KEEP)
    base[TEMP_NAME_KEEP] = '\0';
  name = g_strdup_printf (".%s.XXXXXX", base);
  path = g_build_filename (dir, name, NULL);
  /* O_CREAT | O_EXCL come with it: never a file someone put there. */
  fd = g_mkstemp_full (path, O_RDWR | O_CLOEXEC | O_NOCTTY, mode);
  if (fd < 0)
    {
      set_errno_error (error, errno,
                       _ ("Cannot create a file in the folder “%s”: %s. The file is unchanged."),
                       dir);
      return -1;
    }
  *tmp_path = g_steal_pointer (&path);
  return fd;
}

static gboolean
write_all (int fd, GBytes *contents)
{
  gsize len = 0;
  const char *data = g_bytes_get_data (contents, &len);

  while (len > 0)
    {
      ssize_t n = write (fd, data, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n == 0)
            errno = EIO;
          return FALSE;
        }
      data += n;
      len -= (gsize) n;
    }
  return TRUE;
}

/* The original's ACL (its extended entries; the mode holds the rest). */
static void
copy_acl (int fd, const char *target)
{
  g_autofree char *value = g_malloc (ACL_MAX);
  ssize_t n = getxattr (target, ACL_XATTR, value, ACL_MAX);

  /* None, or a filesystem without ACLs: the mode said it all. */
  if (n <= 0)
    return;
  if (fsetxattr (fd, ACL_XATTR, value, (size_t) n, 0) != 0)
    g_debug ("cannot keep the ACL of %s: %s", target, g_strerror (errno));
}

/* Owner, group, mode and ACL of the original where permitted: an
 * ordinary user cannot give a file away, and then the new file is theirs.
 * Set-id bits are kept only with the owner or group they were for, so a
 * save never makes a program set-id to someone else. Best effort: a
 * file saved with different metadata beats a file not saved. */
static void
copy_metadata (int fd, const char *target, const struct stat *orig)
{
  mode_t mode = orig->st_mode & 07777;

  if (fchown (fd, orig->st_uid, orig->st_gid) != 0)
    {
      mode &= ~(mode_t) S_ISUID;
      if (fchown (fd, (uid_t) -1, orig->st_gid) != 0)
        mode &= ~(mode_t) S_ISGID;
    }
  /* After fchown, which clears the set-id bits. */
  if (fchmod (fd, mode) != 0)
    g_debug ("cannot keep the mode of %s: %s", target, g_strerror (errno));
  copy_acl (fd, target);
}

/* So the rename itself survives a crash; the file is saved either way,
 * so a failure here is only logged. */
static void
sync_dir (const char *target)
{
  g_autofree char *dir = g_path_get_dirname (target);
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0 || fsync (fd) != 0)
    g_debug ("cannot flush the folder %s: %s", dir, g_strerror (errno));
  if (fd >= 0)
    close (fd);
}

/* The temporary file written, flushed, made like the original, closed
 * and renamed over target; on any failure removed. */
static gboolean
replace_with_temp (const char *target, const struct stat *orig, GBytes *contents,
                   GCancellable *cancellable, GError **error)
{
  g_autofree char *tmp = NULL;
  g_autofree char *base = g_path_get_basename (target);
  int fd = make_temp (target, orig, &tmp, error);
  int errsv = 0;
  gboolean ok;

  if (fd < 0)
    return FALSE;
  /* fsync before rename: else a crash can leave the new name with no
   * data (ext4 and others order only what they are asked to). */
  ok = write_all (fd, contents) && fsync (fd) == 0;
  errsv = errno;
  if (ok && orig != NULL)
    copy_metadata (fd, target, orig);
  /* close() reports late write errors on network filesystems. */
  if (close (fd) != 0 && ok)
    {
      ok = FALSE;
      errsv = errno;
    }
  if (!ok)
    set_errno_error (error, errsv, _ ("Could not write “%s”: %s. The file is unchanged."), base);
  else if (g_cancellable_set_error_if_cancelled (cancellable, error))
    ok = FALSE;
  else if (rename (tmp, target) != 0)
    {
      ok = FALSE;
      set_errno_error (error, errno, _ ("Could not replace “%s”: %s. The file is unchanged."),
                       base);
    }
  if (!ok)
    {
      g_unlink (tmp);
      return FALSE;
    }
  sync_dir (target);
  return TRUE;
}

static gboolean
save_local (GFile *file, const char *path, GBytes *contents, GBytes *expected,
            GCancellable *cancellable, GError **error)
{
  g_autofree char *target = resolve_target (path, error);
  struct stat orig;
  gboolean exists;

  if (target == NULL)
    return FALSE;
  exists = stat (target, &orig) == 0;
  if (!exists && errno != ENOENT)
    return set_errno_error (error, errno, _ ("Cannot save “%s”: %s"), target);
  if (exists && !S_ISREG (orig.st_mode))
    {
      g_autofree char *display = g_filename_display_name (target);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, _ ("“%s” is not a regular file"),
                   display);
      return FALSE;
    }
  /* A file the user may not write stays so, though the folder would let
   * it be replaced (as GIO's replace refuses it too). */
  if (exists && access (target, W_OK) != 0)
    return set_errno_error (error, errno, _ ("“%s” is not writable: %s"), target);
  if (!check_unchanged (file, expected, contents, cancellable, error))
    return FALSE;
  return replace_with_temp (target, exists ? &orig : NULL, contents, cancellable, error);
}

gboolean
sp_safe_save (GFile *file, GBytes *contents, GBytes *expected, GCancellable *cancellable,
              GError **error)
{
  g_autofree char *path = NULL;
  gsize len = 0;
  const char *data;

  g_return_val_if_fail (G_IS_FILE (file), FALSE);
  g_return_val_if_fail (contents != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  path = g_file_get_path (file);
  if (path != NULL)
    return save_local (file, path, contents, expected, cancellable, error);
  /* A remote location (GVfs without a FUSE path): its backend decides
   * how a replace is done. */
  if (!check_unchanged (file, expected, contents, cancellable, error))
    return FALSE;
  data = g_bytes_get_data (contents, &len);
  /* An empty GBytes may hold NULL, which GIO refuses. */
  return g_file_replace_contents (file, data != NULL ? data : "", len, NULL, FALSE,
                                  G_FILE_CREATE_NONE, NULL, cancellable, error);
}

static void
save_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  SaveJob *job = task_data;
  GError *error = NULL;

  if (sp_safe_save (job->file, job->contents, job->expected, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
sp_safe_save_async (GFile *file, GBytes *contents, GBytes *expected, GCancellable *cancellable,
                    GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  SaveJob *job;

  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (contents != NULL);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, sp_safe_save_async);
  job = g_new0 (SaveJob, 1);
  job->file = g_object_ref (file);
  job->contents = g_bytes_ref (contents);
  job->expected = expected != NULL ? g_bytes_ref (expected) : NULL;
  g_task_set_task_data (task, job, (GDestroyNotify) save_job_free);
  g_task_run_in_thread (task, save_thread);
}

gboolean
sp_safe_save_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
